//! The era memory (settings.remember_era): a stdio server found to speak
//! only the initialize era gets `initialize` at once on the next run, with
//! no `server/discover` probe; a server that changed era since is probed
//! again at once; stateless servers are never remembered.

mod common;

use std::path::Path;

use common::{everything_js, limit, mcpdeck_env, py_v1, py_v2, server_script};
use serde_json::Value;

/// `mcpdeck --trace info --json -- CMD` with the memory in `memory`, and
/// a `probe_timeout` long enough that a server slow to start on a busy
/// machine answers the remembered `initialize` before `server/discover`
/// is sent as well (the race that follows is
/// `a_remembered_server_that_changed_era_is_probed_again_at_once`'s).
fn info(memory: &Path, cmd: &[String]) -> (Value, Vec<String>) {
    let dir = memory.parent().expect("a folder");
    std::fs::create_dir_all(dir).expect("create the folder");
    let config = common::write_file(dir, "patient.toml", "[settings]\nprobe_timeout = 30\n");
    info_with(&config, memory, cmd)
}

fn info_with(config: &Path, memory: &Path, cmd: &[String]) -> (Value, Vec<String>) {
    let config = config.display().to_string();
    let mut args = vec!["--config", &config, "--trace", "info", "--json", "--"];
    args.extend(cmd.iter().map(String::as_str));
    let memory = memory.display().to_string();
    let run = mcpdeck_env(&args, &[("MCPDECK_ERA_MEMORY", &memory)], limit(60));
    assert_eq!(run.code, 0, "{args:?}\n{}", run.stderr);
    let v: Value = serde_json::from_str(&run.stdout).expect("info --json prints JSON");
    (v, sent_methods(&run.stderr))
}

/// The methods mcpdeck sent, from its `--trace` on stderr.
fn sent_methods(stderr: &str) -> Vec<String> {
    stderr
        .lines()
        .filter(|l| l.contains(" C->S "))
        .filter_map(|l| {
            let at = l.find("\"method\":\"")? + 10;
            let rest = &l[at..];
            Some(rest[..rest.find('"')?].to_string())
        })
        .collect()
}

/// How many servers the memory file holds.
fn remembered(memory: &Path) -> usize {
    std::fs::read(memory)
        .ok()
        .and_then(|b| serde_json::from_slice::<Value>(&b).ok())
        .and_then(|v| v["servers"].as_object().map(|o| o.len()))
        .unwrap_or(0)
}

#[test]
fn real_initialize_era_servers_are_remembered_and_skip_the_probe() {
    for cmd in [
        vec![
            "node".to_string(),
            everything_js().display().to_string(),
            "stdio".into(),
        ],
        vec![
            py_v1().display().to_string(),
            server_script("py_v1_server.py").display().to_string(),
        ],
    ] {
        let dir = tempfile::tempdir().expect("tempdir");
        let memory = dir.path().join("state/eras.json");
        let (first, sent) = info(&memory, &cmd);
        assert_eq!(first["era"], "initialize", "{cmd:?}: {first}");
        assert_eq!(sent[0], "server/discover", "{cmd:?}: {sent:?}");
        let probed = first["detection"].as_str().expect("detection").to_string();
        assert!(!probed.contains("remembered"), "{probed}");
        assert_eq!(remembered(&memory), 1, "{cmd:?}");

        let (second, sent) = info(&memory, &cmd);
        assert_eq!(second["era"], "initialize", "{cmd:?}: {second}");
        assert_eq!(second["version"], first["version"]);
        assert_eq!(sent[0], "initialize", "{cmd:?}: {sent:?}");
        assert!(!sent.iter().any(|m| m == "server/discover"), "{sent:?}");
        let detection = second["detection"].as_str().expect("detection");
        assert!(
            detection.contains("initialize era remembered from")
                && detection.contains(&probed)
                && detection.contains("server/discover skipped"),
            "{detection}"
        );
        // What is kept is a key and the probe's answer, never the command line.
        let text = std::fs::read_to_string(&memory).expect("memory file");
        assert!(!text.contains(&cmd[1]), "{text}");
    }
}

#[test]
fn a_stateless_server_is_never_remembered() {
    let dir = tempfile::tempdir().expect("tempdir");
    let memory = dir.path().join("eras.json");
    let cmd = vec![
        py_v2().display().to_string(),
        server_script("py_v2_server.py").display().to_string(),
    ];
    for _ in 0..2 {
        let (v, sent) = info(&memory, &cmd);
        assert_eq!(v["era"], "stateless", "{v}");
        assert_eq!(sent[0], "server/discover", "{sent:?}");
    }
    assert_eq!(remembered(&memory), 0);
}

/// The era-switch fixture in `dir`, started in `mode`.
fn switch(dir: &Path, mode: &str) -> Vec<String> {
    std::fs::write(dir.join("mode"), mode).expect("write the mode");
    let _ = std::fs::remove_file(dir.join("methods"));
    vec![
        py_v1().display().to_string(),
        common::repo()
            .join("tests/fixtures/era_switch_server.py")
            .display()
            .to_string(),
        dir.display().to_string(),
    ]
}

/// The methods the fixture received.
fn received(dir: &Path) -> Vec<String> {
    std::fs::read_to_string(dir.join("methods"))
        .unwrap_or_default()
        .lines()
        .map(str::to_string)
        .collect()
}

#[test]
fn a_remembered_server_that_changed_era_is_probed_again_at_once() {
    for (mode, why) in [
        (
            "stateless",
            "the server answered the remembered initialize with error",
        ),
        (
            "exit-on-initialize",
            "the server exited on the remembered initialize",
        ),
        ("silent-initialize", "but no answer to initialize within"),
    ] {
        let dir = tempfile::tempdir().expect("tempdir");
        let memory = dir.path().join("eras.json");
        // A short probe timeout for the silent server.
        let config = common::write_file(
            dir.path(),
            "quick.toml",
            "[settings]\nprobe_timeout = 0.5\n",
        );
        let info = |memory: &Path, cmd: &[String]| info_with(&config, memory, cmd);
        let (v, _) = info(&memory, &switch(dir.path(), "initialize"));
        assert_eq!(v["era"], "initialize", "{v}");
        assert_eq!(received(dir.path())[0], "server/discover");
        let (v, _) = info(&memory, &switch(dir.path(), "initialize"));
        assert_eq!(received(dir.path())[0], "initialize", "remembered");
        assert_eq!(remembered(&memory), 1, "{v}");

        // The server now speaks 2026-07-28 only.
        let (v, _) = info(&memory, &switch(dir.path(), mode));
        assert_eq!(v["era"], "stateless", "{mode}: {v}");
        let detection = v["detection"].as_str().expect("detection");
        assert!(detection.contains(why), "{mode}: {detection}");
        assert_eq!(remembered(&memory), 0, "{mode}: forgotten");
        // And the next run probes first.
        info(&memory, &switch(dir.path(), mode));
        assert_eq!(received(dir.path())[0], "server/discover", "{mode}");
    }
}

#[test]
fn the_memory_can_be_turned_off() {
    let dir = tempfile::tempdir().expect("tempdir");
    let memory = dir.path().join("eras.json");
    let config = common::write_file(dir.path(), "off.toml", "[settings]\nremember_era = 0\n");
    let cmd = switch(dir.path(), "initialize");
    let memory_s = memory.display().to_string();
    for _ in 0..2 {
        let mut args = vec!["--config", config.to_str().expect("utf-8"), "info", "--"];
        args.extend(cmd.iter().map(String::as_str));
        let run = mcpdeck_env(&args, &[("MCPDECK_ERA_MEMORY", &memory_s)], limit(60));
        assert_eq!(run.code, 0, "{}", run.stderr);
        assert_eq!(received(dir.path())[0], "server/discover");
        let _ = std::fs::remove_file(dir.path().join("methods"));
    }
    assert!(!memory.exists(), "remember_era = 0 writes nothing");
    // MCPDECK_ERA_MEMORY=off (what scripts/test.sh sets) likewise.
    for _ in 0..2 {
        let mut args = vec!["info", "--"];
        args.extend(cmd.iter().map(String::as_str));
        let run = mcpdeck_env(&args, &[], limit(60));
        assert_eq!(run.code, 0, "{}", run.stderr);
        assert_eq!(received(dir.path())[0], "server/discover");
        let _ = std::fs::remove_file(dir.path().join("methods"));
    }
}
