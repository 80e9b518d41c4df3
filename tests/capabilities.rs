//! One client capability set for every command (issue 27): server-everything
//! offers tools by the client's capabilities, so `tools`, `call`, `lint`,
//! `pin`, `smoke` and `serve --pinned` must all see the same ones, and
//! `--capabilities` (or `[settings] capabilities`) changes them for all.

mod common;

use std::io::{BufRead, BufReader, Write};
use std::path::{Path, PathBuf};
use std::process::{Command, Stdio};

use serde_json::{Value, json};

fn config(dir: &Path, settings: &str) -> PathBuf {
    let everything = common::everything_js().display().to_string();
    let text = format!(
        "{settings}\n[servers.everything]\ncommand = \"node\"\nargs = [{everything:?}, \"stdio\"]\n"
    );
    common::write_file(dir, "config.toml", &text)
}

fn run(config: &Path, pins: &Path, args: &[&str]) -> common::Run {
    let mut all = vec!["--config", config.to_str().expect("utf-8 path")];
    all.extend_from_slice(args);
    common::mcpdeck_env(
        &all,
        &[("MCPDECK_PINS", pins.to_str().expect("utf-8 path"))],
        common::limit(60),
    )
}

fn tool_names(run: &common::Run) -> Vec<String> {
    let v: Value = serde_json::from_str(&run.stdout)
        .unwrap_or_else(|e| panic!("{e}: {}\n{}", run.stdout, run.stderr));
    v["tools"]
        .as_array()
        .expect("tools")
        .iter()
        .filter_map(|t| t["name"].as_str().map(String::from))
        .collect()
}

/// `mcpdeck --config CONFIG ARGS…` as an agent's server over stdio, in
/// `cwd`: initialize (declaring nothing), then `request` (id 2); its answer.
/// Serve's answer to `request` from an agent that declares `capabilities`.
fn ask_serve(
    config: &Path,
    args: &[&str],
    cwd: &Path,
    pins: &Path,
    capabilities: Value,
    request: Value,
) -> Value {
    let mut child = common::Reaped(
        Command::new(common::mcpdeck_bin())
            .current_dir(cwd)
            .args(["--config", config.to_str().expect("utf-8")])
            .args(args)
            .env("MCPDECK_PINS", pins)
            .env("MCPDECK_ERA_MEMORY", "off")
            .env("GZIP_ALLOWED_DOMAINS", "127.0.0.1")
            .stdin(Stdio::piped())
            .stdout(Stdio::piped())
            .stderr(Stdio::null())
            .spawn()
            .expect("spawn serve"),
    );
    let mut stdin = child.0.stdin.take().expect("stdin");
    let stdout = child.0.stdout.take().expect("stdout");
    let (tx, rx) = std::sync::mpsc::channel();
    std::thread::spawn(move || {
        for line in BufReader::new(stdout).lines().map_while(Result::ok) {
            if let Ok(v) = serde_json::from_str::<Value>(&line)
                && v["id"] == json!(2)
            {
                let _ = tx.send(v);
                return;
            }
        }
    });
    let mut request = request;
    request["jsonrpc"] = json!("2.0");
    request["id"] = json!(2);
    for frame in [
        json!({"jsonrpc": "2.0", "id": 1, "method": "initialize", "params": {
            "protocolVersion": "2025-11-25", "capabilities": capabilities,
            "clientInfo": {"name": "t", "version": "0"}}}),
        json!({"jsonrpc": "2.0", "method": "notifications/initialized"}),
        request,
    ] {
        writeln!(stdin, "{frame}").expect("write to serve");
    }
    let answer = rx.recv_timeout(common::limit(60)).expect("serve answers");
    drop(stdin);
    answer
}

/// The tools `serve --pinned everything` offers an agent, asked over stdio.
fn served_tools(config: &Path, pins: &Path) -> Vec<String> {
    let answer = ask_serve(
        config,
        &["serve", "--pinned", "everything"],
        Path::new("."),
        pins,
        // An agent that declares what mcpdeck declares (serve declares
        // upstream what its agent declared, no more).
        json!({"roots": {}, "sampling": {}, "elicitation": {"form": {}, "url": {}}}),
        json!({"method": "tools/list"}),
    );
    answer["result"]["tools"]
        .as_array()
        .expect("tools")
        .iter()
        .filter_map(|t| t["name"].as_str().map(String::from))
        .collect()
}

#[test]
fn every_command_sees_the_same_tools_and_pins_serve_agree() {
    let dir = tempfile::tempdir().expect("tempdir");
    let config = config(dir.path(), "");
    let pins = dir.path().join("pins.json");

    let listed = tool_names(run(&config, &pins, &["tools", "--json", "everything"]).ok());
    // The tools server-everything offers only to a client that declares
    // roots, elicitation and sampling.
    for name in [
        "get-roots-list",
        "trigger-elicitation-request",
        "trigger-sampling-request",
    ] {
        assert!(listed.iter().any(|n| n == name), "{name}: {listed:?}");
    }

    // call finds them.
    let r = run(&config, &pins, &["call", "everything", "get-roots-list"]);
    r.ok();
    assert!(r.stdout.contains("roots"), "{}", r.stdout);
    // Nobody can answer a sampling request in a one-shot command: it is
    // declined, and the message says where it can be answered.
    let r = run(
        &config,
        &pins,
        &[
            "call",
            "everything",
            "trigger-sampling-request",
            "--arg",
            "prompt=hi",
        ],
    );
    assert_eq!(r.code, 1, "{}\n{}", r.stdout, r.stderr);
    assert!(
        format!("{}{}", r.stdout, r.stderr).contains("sampling declined"),
        "{}\n{}",
        r.stdout,
        r.stderr
    );

    // lint and pin count the same tools.
    let n = listed.len();
    let r = run(&config, &pins, &["lint", "everything"]);
    assert!(
        r.stdout.contains(&format!("({n} tools")),
        "{n}: {}",
        r.stdout
    );
    let r = run(&config, &pins, &["pin", "everything"]);
    r.ok();
    assert!(
        r.stdout.contains(&format!("pinned everything: {n} tools")),
        "{n}: {}",
        r.stdout
    );
    // What was pinned is what serve --pinned offers: nothing withheld.
    let mut served = served_tools(&config, &pins);
    let mut listed = listed;
    served.sort();
    listed.sort();
    assert_eq!(served, listed);
    // And it verifies.
    run(&config, &pins, &["verify", "everything"]).ok();
    // An agent that declares nothing: serve declares nothing upstream
    // either, and the tools that need a capability are not offered to it.
    let bare = ask_serve(
        &config,
        &["serve", "everything"],
        Path::new("."),
        &pins,
        json!({}),
        json!({"method": "tools/list"}),
    );
    let bare: Vec<&str> = bare["result"]["tools"]
        .as_array()
        .expect("tools")
        .iter()
        .filter_map(|t| t["name"].as_str())
        .collect();
    assert!(bare.contains(&"echo"), "{bare:?}");
    for name in [
        "get-roots-list",
        "trigger-elicitation-request",
        "trigger-sampling-request",
    ] {
        assert!(
            !bare.contains(&name),
            "{name} offered to an agent without it: {bare:?}"
        );
    }
}

#[test]
fn the_flag_and_the_setting_choose_another_set() {
    let dir = tempfile::tempdir().expect("tempdir");
    let pins = dir.path().join("pins.json");
    let default = config(dir.path(), "");
    let all = tool_names(run(&default, &pins, &["tools", "--json", "everything"]).ok());

    let none = tool_names(
        run(
            &default,
            &pins,
            &["--capabilities", "none", "tools", "--json", "everything"],
        )
        .ok(),
    );
    assert!(none.len() < all.len(), "{none:?} vs {all:?}");
    assert!(!none.iter().any(|n| n == "get-roots-list"), "{none:?}");
    // With nothing declared, a call of a tool the server withholds names it.
    let r = run(
        &default,
        &pins,
        &[
            "--capabilities",
            "none",
            "call",
            "everything",
            "get-roots-list",
        ],
    );
    assert_eq!(r.code, 2, "{}\n{}", r.stdout, r.stderr);
    assert!(r.stderr.contains("get-roots-list"), "{}", r.stderr);

    let roots = tool_names(
        run(
            &default,
            &pins,
            &["tools", "--json", "everything", "--capabilities", "roots"],
        )
        .ok(),
    );
    assert!(roots.iter().any(|n| n == "get-roots-list"), "{roots:?}");
    assert!(
        !roots.iter().any(|n| n == "trigger-sampling-request"),
        "{roots:?}"
    );
    assert_eq!(roots.len(), none.len() + 1, "{roots:?}");

    // The config's own setting, and the flag over it.
    let configured = config(dir.path(), "[settings]\ncapabilities = \"roots\"");
    let from_setting = tool_names(run(&configured, &pins, &["tools", "--json", "everything"]).ok());
    assert_eq!(from_setting, roots);
    let flag_wins = tool_names(
        run(
            &configured,
            &pins,
            &["--capabilities", "default", "tools", "--json", "everything"],
        )
        .ok(),
    );
    assert_eq!(flag_wins.len(), all.len());

    // A word it does not know is a usage error that lists the words.
    let r = run(
        &default,
        &pins,
        &["--capabilities", "roots,tasks", "tools", "everything"],
    );
    assert_eq!(r.code, 2, "{}", r.stderr);
    assert!(
        r.stderr.contains("\"tasks\"") && r.stderr.contains("elicitation-url"),
        "{}",
        r.stderr
    );
}

/// The initialize frame carries the declared set (seen in --trace).
#[test]
fn the_declared_set_is_on_the_wire() {
    let dir = tempfile::tempdir().expect("tempdir");
    let pins = dir.path().join("pins.json");
    let config = config(dir.path(), "");
    let r = run(&config, &pins, &["--trace", "info", "everything"]);
    r.ok();
    let init = r
        .stderr
        .lines()
        .filter_map(|l| l.find('{').map(|i| &l[i..]))
        .filter_map(|j| serde_json::from_str::<Value>(j).ok())
        .find(|v| v["method"] == "initialize")
        .unwrap_or_else(|| panic!("no initialize frame in:\n{}", r.stderr));
    assert_eq!(
        init["params"]["capabilities"],
        json!({"roots": {"listChanged": true}, "sampling": {},
               "elicitation": {"form": {}, "url": {}}})
    );
}

/// Roots everywhere, not only in the TUI (issue 27): `smoke` and `serve`
/// started in a folder offer server-filesystem no root they were not
/// given, so it keeps the folder on its command line, and `smoke --calls
/// all` writes nothing where mcpdeck was started.
#[test]
fn smoke_and_serve_offer_no_root_they_were_not_given() {
    let dir = tempfile::tempdir().expect("tempdir");
    let cwd = tempfile::tempdir().expect("tempdir");
    let allowed = tempfile::tempdir().expect("tempdir");
    let allowed_real = std::fs::canonicalize(allowed.path())
        .expect("canonical")
        .display()
        .to_string();
    let fs_js = common::node_modules()
        .join("@modelcontextprotocol/server-filesystem/dist/index.js")
        .display()
        .to_string();
    let config = common::write_file(
        dir.path(),
        "config.toml",
        &format!(
            "[servers.fs]\ncommand = \"node\"\nargs = [{fs_js:?}, {:?}]\n",
            allowed.path().display().to_string()
        ),
    );
    let mut cmd = Command::new(common::mcpdeck_bin());
    cmd.current_dir(cwd.path())
        .args(["--config", config.to_str().expect("utf-8")])
        .args(["smoke", "fs", "--json", "--calls", "all", "--destructive"])
        .env("MCPDECK_ERA_MEMORY", "off")
        .stdin(Stdio::null())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped());
    let r = common::run_limited(cmd, common::limit(120));
    let v: Value = serde_json::from_str(&r.stdout)
        .unwrap_or_else(|e| panic!("{e}: {}\n{}", r.stdout, r.stderr));
    let checks = v["checks"].as_array().expect("checks");
    let said = |needle: &str| checks.iter().any(|c| c.to_string().contains(needle));
    assert!(
        said("answered with no roots"),
        "{}",
        serde_json::to_string_pretty(&v).unwrap_or_default()
    );
    assert!(
        said(&allowed_real),
        "list_allowed_directories keeps the configured folder: {v}"
    );
    let left: Vec<_> = std::fs::read_dir(cwd.path())
        .expect("read cwd")
        .filter_map(Result::ok)
        .map(|e| e.file_name())
        .collect();
    assert!(left.is_empty(), "smoke wrote into its cwd: {left:?}");

    // serve, for an agent that declares no roots: upstream gets none.
    let answer = ask_serve(
        &config,
        &["serve", "fs"],
        cwd.path(),
        &dir.path().join("pins.json"),
        json!({}),
        json!({"method": "tools/call",
            "params": {"name": "list_allowed_directories", "arguments": {}}}),
    );
    let text = answer["result"]["content"][0]["text"]
        .as_str()
        .unwrap_or_default()
        .to_string();
    assert!(text.contains(&allowed_real), "{answer}");
    let cwd_real = std::fs::canonicalize(cwd.path())
        .expect("canonical")
        .display()
        .to_string();
    assert!(!text.contains(&cwd_real), "{answer}");
}
