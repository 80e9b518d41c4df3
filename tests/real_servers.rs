//! Real servers from the package registries and the official SDKs, driven
//! through the `mcpdeck` binary: server-everything (initialize era), the
//! Python SDK 1.30.0 (initialize era) and 2.3.0 (both eras), and rmcp 3.9.0
//! (both eras). Installed by scripts/test.sh.

mod common;

use common::{
    assert_no_leak, everything_js, limit, marker, mcpdeck, py_v1, py_v2, rmcp_server,
    server_script, write_file,
};
use serde_json::Value;

fn adhoc(cmd: &[String], args: &[&str]) -> common::Run {
    let mut all: Vec<&str> = args.to_vec();
    all.push("--");
    all.extend(cmd.iter().map(String::as_str));
    mcpdeck(&all, limit(90))
}

fn json(run: &common::Run) -> Value {
    run.ok();
    serde_json::from_str(&run.stdout).unwrap_or_else(|e| panic!("not JSON ({e}):\n{}", run.stdout))
}

fn everything() -> Vec<String> {
    vec![
        "node".into(),
        everything_js().display().to_string(),
        "stdio".into(),
    ]
}

fn v1() -> Vec<String> {
    vec![
        py_v1().display().to_string(),
        server_script("py_v1_server.py").display().to_string(),
    ]
}

fn v2() -> Vec<String> {
    vec![
        py_v2().display().to_string(),
        server_script("py_v2_server.py").display().to_string(),
    ]
}

fn rmcp() -> Vec<String> {
    vec![rmcp_server().display().to_string()]
}

fn tool_names(v: &Value) -> Vec<String> {
    v["tools"]
        .as_array()
        .unwrap()
        .iter()
        .map(|t| t["name"].as_str().unwrap().to_string())
        .collect()
}

#[test]
fn server_everything_initialize_era() {
    let info = json(&adhoc(&everything(), &["info", "--json"]));
    assert_eq!(info["era"], "initialize");
    assert_eq!(info["version"], "2025-11-25");
    assert_eq!(info["serverInfo"]["name"], "mcp-servers/everything");
    assert!(
        info["detection"].as_str().unwrap().contains("-32601"),
        "{}",
        info["detection"]
    );
    assert!(info["capabilities"]["tools"].is_object());

    let tools = json(&adhoc(&everything(), &["tools", "--json"]));
    let names = tool_names(&tools);
    // 17: get-roots-list, the elicitation and sampling triggers too, as
    // every command declares the default capabilities.
    assert_eq!(names.len(), 17, "{names:?}");
    for n in [
        "echo",
        "get-sum",
        "get-tiny-image",
        "get-structured-content",
        "trigger-long-running-operation",
    ] {
        assert!(names.iter().any(|x| x == n), "{n} missing from {names:?}");
    }

    let r = adhoc(&everything(), &["call", "echo", r#"{"message":"hello"}"#]);
    r.ok();
    assert_eq!(r.stdout.trim(), "Echo: hello");
    let r = adhoc(
        &everything(),
        &["call", "get-sum", "--arg", "a=2", "--arg", "b=40"],
    );
    r.ok();
    assert!(r.stdout.contains("42"), "{}", r.stdout);
    let r = adhoc(&everything(), &["call", "get-tiny-image"]);
    r.ok();
    assert!(r.stdout.contains("[image] image/png"), "{}", r.stdout);
    let r = adhoc(
        &everything(),
        &[
            "call",
            "get-structured-content",
            "--arg",
            "location=Chicago",
        ],
    );
    r.ok();
    assert!(
        r.stdout
            .contains("✓ structuredContent matches the outputSchema"),
        "{}",
        r.stdout
    );
    // Progress notifications during a long call do not disturb it.
    let r = adhoc(
        &everything(),
        &[
            "call",
            "trigger-long-running-operation",
            r#"{"duration":1,"steps":4}"#,
        ],
    );
    r.ok();
    assert!(
        r.stdout.contains("Long running operation completed"),
        "{}",
        r.stdout
    );
    // Validation against the inputSchema happens before sending.
    let r = adhoc(&everything(), &["call", "get-sum", r#"{"a":"two"}"#]);
    assert_eq!(r.code, 2, "{}", r.stderr);
    assert!(
        r.stderr.contains("/a") && r.stderr.contains("--no-validate"),
        "{}",
        r.stderr
    );
}

#[test]
fn python_sdk_1_30_initialize_era() {
    let info = json(&adhoc(&v1(), &["info", "--json"]));
    assert_eq!(info["era"], "initialize");
    assert_eq!(info["version"], "2025-11-25");
    assert_eq!(info["serverInfo"]["name"], "py-v1");
    assert!(
        info["detection"].as_str().unwrap().contains("-32602"),
        "{}",
        info["detection"]
    );

    let tools = json(&adhoc(&v1(), &["tools", "--json"]));
    let names = tool_names(&tools);
    for n in ["echo", "add", "get_weather", "fail", "slow"] {
        assert!(names.iter().any(|x| x == n), "{n} missing from {names:?}");
    }
    let r = adhoc(&v1(), &["call", "echo", r#"{"text":"hi"}"#]);
    r.ok();
    assert_eq!(r.stdout.trim(), "echo: hi");
    let r = json(&adhoc(
        &v1(),
        &["call", "get_weather", r#"{"city":"Zürich"}"#, "--json"],
    ));
    assert_eq!(r["structuredContent"]["city"], "Zürich");
    assert_eq!(r["structuredContent"]["temperature_c"], 21.5);
    let r = adhoc(&v1(), &["call", "fail"]);
    assert_eq!(r.code, 1, "isError exits 1: {}", r.stderr);
    assert!(r.stderr.contains("isError"), "{}", r.stderr);
    let r = adhoc(&v1(), &["call", "slow", r#"{"steps":3}"#]);
    r.ok();
}

#[test]
fn python_sdk_2_3_stateless_era() {
    let info = json(&adhoc(&v2(), &["info", "--json"]));
    assert_eq!(info["era"], "stateless");
    assert_eq!(info["version"], "2026-07-28");
    assert_eq!(info["serverInfo"]["name"], "py-v2");
    assert_eq!(info["supportedVersions"], serde_json::json!(["2026-07-28"]));
    assert!(
        info["detection"]
            .as_str()
            .unwrap()
            .contains("server/discover answered"),
        "{}",
        info["detection"]
    );

    let r = adhoc(&v2(), &["call", "echo", r#"{"text":"modern"}"#]);
    r.ok();
    assert_eq!(r.stdout.trim(), "echo: modern");
    let r = adhoc(&v2(), &["call", "get_weather", "--arg", "city=Oslo"]);
    r.ok();
    assert!(
        r.stdout
            .contains("✓ structuredContent matches the outputSchema"),
        "{}",
        r.stdout
    );
    let r = adhoc(
        &v2(),
        &["call", "add", "--arg", "a=1", "--arg", "b=2", "--json"],
    );
    let v = json(&r);
    assert_eq!(
        v["resultType"], "complete",
        "stateless results carry resultType"
    );
    let r = adhoc(&v2(), &["call", "fail"]);
    assert_eq!(r.code, 1);
}

#[test]
fn python_sdk_2_3_pinned_to_the_initialize_era() {
    let dir = tempfile::tempdir().unwrap();
    let mark = marker("v2pin");
    let cfg = format!(
        "[servers.old]\ncommand = {:?}\nargs = [\"-X\", {mark:?}, {:?}]\nprotocol = \"initialize\"\n\n\
         [servers.exact]\ncommand = {:?}\nargs = [\"-X\", {mark:?}, {:?}]\nprotocol = \"2025-06-18\"\n\n\
         [servers.forced-legacy]\ncommand = {:?}\nargs = [\"-X\", {mark:?}, {:?}, \"--legacy-only\"]\n",
        v2()[0],
        v2()[1],
        v2()[0],
        v2()[1],
        v2()[0],
        v2()[1]
    );
    let path = write_file(dir.path(), "config.toml", &cfg);
    let path = path.display().to_string();
    let old = json(&mcpdeck(
        &["--config", &path, "info", "old", "--json"],
        limit(60),
    ));
    assert_eq!(old["era"], "initialize");
    assert_eq!(old["version"], "2025-11-25");
    assert!(old["detection"].as_str().unwrap().contains("pinned"));
    let exact = json(&mcpdeck(
        &["--config", &path, "info", "exact", "--json"],
        limit(60),
    ));
    assert_eq!(exact["version"], "2025-06-18");
    let legacy = json(&mcpdeck(
        &["--config", &path, "info", "forced-legacy", "--json"],
        limit(60),
    ));
    assert_eq!(legacy["era"], "initialize");
    let r = mcpdeck(
        &[
            "--config",
            &path,
            "call",
            "old",
            "echo",
            r#"{"text":"legacy"}"#,
        ],
        limit(60),
    );
    r.ok();
    assert_eq!(r.stdout.trim(), "echo: legacy");
    assert_no_leak(&mark);
}

#[test]
fn rmcp_3_9_stateless_era() {
    let info = json(&adhoc(&rmcp(), &["info", "--json"]));
    assert_eq!(info["era"], "stateless");
    assert_eq!(info["version"], "2026-07-28");
    assert_eq!(info["serverInfo"]["name"], "rmcp-test");
    let tools = json(&adhoc(&rmcp(), &["tools", "--json"]));
    let mut names = tool_names(&tools);
    names.sort();
    assert_eq!(names, ["add", "echo", "fail"]);
    let r = adhoc(&rmcp(), &["call", "echo", r#"{"text":"from rust"}"#]);
    r.ok();
    assert_eq!(r.stdout.trim(), "echo: from rust");
    let r = adhoc(&rmcp(), &["call", "add", r#"{"a":20,"b":22}"#]);
    r.ok();
    assert!(r.stdout.contains("42"), "{}", r.stdout);
    let r = adhoc(&rmcp(), &["call", "fail"]);
    assert_eq!(r.code, 1);
    // An unknown tool is a JSON-RPC error from rmcp: exit 1 with the error.
    let r = adhoc(&rmcp(), &["call", "nope", "--no-validate"]);
    assert_eq!(r.code, 1, "{}", r.stderr);
    assert!(r.stderr.contains("-32602"), "{}", r.stderr);
}

#[test]
fn servers_reports_every_configured_server_concurrently() {
    let dir = tempfile::tempdir().unwrap();
    let mark = marker("servers");
    let entry = |name: &str, cmd: &[String], extra: &str| {
        let args: Vec<String> = cmd[1..].iter().map(|a| format!("{a:?}")).collect();
        format!(
            "[servers.{name}]\ncommand = {:?}\nargs = [{}]\n{extra}\n",
            cmd[0],
            args.join(", ")
        )
    };
    let mut v1m = v1();
    v1m.insert(1, "-X".into());
    v1m.insert(2, mark.clone());
    let cfg = [
        "# servers of every kind\n[settings]\nconnect_timeout = 20\n".to_string(),
        entry("everything", &everything(), "deny_tools = [\"get-env\"]"),
        entry("pyv1", &v1m, ""),
        entry("pyv2", &v2(), ""),
        entry("rmcp", &rmcp(), ""),
        entry("off", &v2(), "enabled = false"),
        "[servers.broken]\ncommand = \"sh\"\nargs = [\"-c\", \"echo 'cannot open db' >&2; exit 7\"]\n".to_string(),
    ]
    .join("\n");
    let path = write_file(dir.path(), "config.toml", &cfg)
        .display()
        .to_string();
    let r = mcpdeck(&["--config", &path, "servers", "--json"], limit(90));
    assert_eq!(
        r.code, 3,
        "a failed server makes `servers` exit 3: {}",
        r.stderr
    );
    let v: Value = serde_json::from_str(&r.stdout).unwrap();
    let s = |n: &str| {
        v["servers"]
            .as_array()
            .unwrap()
            .iter()
            .find(|s| s["name"] == n)
            .cloned()
            .unwrap()
    };
    assert_eq!(s("everything")["status"], "connected");
    assert_eq!(s("everything")["era"], "initialize");
    assert_eq!(s("everything")["tools"], 17);
    assert_eq!(s("pyv1")["era"], "initialize");
    assert_eq!(s("pyv2")["era"], "stateless");
    assert_eq!(s("rmcp")["era"], "stateless");
    assert_eq!(s("off")["status"], "disabled");
    assert_eq!(s("broken")["status"], "failed");
    assert!(
        s("broken")["error"]
            .as_str()
            .unwrap()
            .contains("exited with status 7"),
        "{}",
        s("broken")
    );
    assert_eq!(
        s("broken")["stderrTail"],
        serde_json::json!(["cannot open db"])
    );
    for n in ["everything", "pyv1", "pyv2", "rmcp"] {
        assert!(s(n)["connectMs"].as_u64().is_some(), "{n}");
    }
    // Text mode shows the same, with the error under the failed server.
    let t = mcpdeck(&["--config", &path, "servers"], limit(90));
    assert!(
        t.stdout.contains("broken")
            && t.stdout.contains("error: ")
            && t.stdout.contains("stderr: cannot open db"),
        "{}",
        t.stdout
    );
    // A denied tool is marked in `tools` and refused by `call`.
    let tools = mcpdeck(&["--config", &path, "tools", "everything"], limit(60));
    assert!(
        tools
            .stdout
            .lines()
            .any(|l| l.starts_with("get-env") && l.contains("DENIED")),
        "{}",
        tools.stdout
    );
    let c = mcpdeck(
        &["--config", &path, "call", "everything", "get-env"],
        limit(60),
    );
    assert_eq!(c.code, 2);
    assert!(c.stderr.contains("deny_tools"), "{}", c.stderr);
    assert_no_leak(&mark);
}

#[test]
fn a_slow_dual_era_server_is_not_misjudged_when_the_probe_times_out() {
    // Python takes ~0.8 s to start: with a 0.1 s probe timeout, initialize
    // is sent too, but the server answers server/discover first and refuses
    // initialize, so the stateless era must win.
    let dir = tempfile::tempdir().unwrap();
    let cfg = format!(
        "[settings]\nprobe_timeout = 0.1\n\n[servers.slow]\ncommand = {:?}\nargs = [{:?}]\n",
        v2()[0],
        v2()[1]
    );
    let path = write_file(dir.path(), "config.toml", &cfg)
        .display()
        .to_string();
    let r = mcpdeck(
        &["--config", &path, "info", "slow", "--json", "--trace"],
        limit(60),
    );
    let v = json(&r);
    assert_eq!(v["era"], "stateless", "{}", r.stderr);
    assert!(
        v["detection"]
            .as_str()
            .unwrap()
            .contains("server/discover answered after"),
        "{v}"
    );
    assert!(
        r.stderr.contains("\"method\":\"initialize\""),
        "initialize was raced: {}",
        r.stderr
    );
    let c = mcpdeck(
        &[
            "--config",
            &path,
            "call",
            "slow",
            "echo",
            r#"{"text":"raced"}"#,
        ],
        limit(60),
    );
    c.ok();
    assert_eq!(c.stdout.trim(), "echo: raced");
}

#[test]
fn env_and_cwd_reach_the_server() {
    let dir = tempfile::tempdir().unwrap();
    let work = dir.path().join("work dir");
    std::fs::create_dir(&work).unwrap();
    let cfg = format!(
        "[servers.everything]\ncommand = \"node\"\nargs = [{:?}, \"stdio\"]\ncwd = {:?}\n\
         env = {{ MCPDECK_PROBE = \"${{MCPDECK_TEST_OUTER}}-inner\", MCPDECK_DEFAULTED = \"${{MCPDECK_UNSET_VAR:-fallback}}\" }}\n",
        everything_js().display().to_string(),
        work.display().to_string()
    );
    let path = write_file(dir.path(), "config.toml", &cfg)
        .display()
        .to_string();
    let r = common::mcpdeck_env(
        &["--config", &path, "call", "everything", "get-env"],
        &[
            ("MCPDECK_TEST_OUTER", "outer"),
            ("MCPDECK_PARENT_ONLY", "inherited"),
        ],
        limit(60),
    );
    r.ok();
    assert!(
        r.stdout.contains("\"MCPDECK_PROBE\": \"outer-inner\""),
        "{}",
        r.stdout
    );
    assert!(
        r.stdout.contains("\"MCPDECK_DEFAULTED\": \"fallback\""),
        "{}",
        r.stdout
    );
    assert!(
        r.stdout.contains("\"MCPDECK_PARENT_ONLY\": \"inherited\""),
        "the parent environment is kept"
    );
    // The working directory: a shell checks it before it becomes the server.
    let cwd_cfg = format!(
        "[servers.here]\ncommand = \"sh\"\ncwd = {:?}\nargs = [\"-c\", \"[ \\\"$(pwd -P)\\\" = \\\"$WANT\\\" ] || {{ echo \\\"wrong cwd $(pwd)\\\" >&2; exit 9; }}; exec node {} stdio\"]\nenv = {{ WANT = {:?} }}\n",
        work.display().to_string(),
        everything_js().display(),
        work.canonicalize().unwrap().display().to_string()
    );
    let cwd_path = write_file(dir.path(), "cwd.toml", &cwd_cfg)
        .display()
        .to_string();
    let r = mcpdeck(
        &[
            "--config",
            &cwd_path,
            "call",
            "here",
            "echo",
            r#"{"message":"in place"}"#,
        ],
        limit(60),
    );
    r.ok();
    assert_eq!(r.stdout.trim(), "Echo: in place");

    // A missing variable is a config error naming the server and the variable.
    let r = mcpdeck(
        &["--config", &path, "call", "everything", "get-env"],
        limit(60),
    );
    assert_eq!(r.code, 2);
    assert!(
        r.stderr.contains("MCPDECK_TEST_OUTER") && r.stderr.contains("everything"),
        "{}",
        r.stderr
    );
}

#[test]
fn when_both_answers_are_in_the_probe_decides() {
    // rmcp answers both server/discover and initialize; with a 1 ms probe
    // timeout both are sent, and discover (sent and answered first) wins.
    let dir = tempfile::tempdir().unwrap();
    let cfg = format!(
        "[settings]\nprobe_timeout = 0.001\n\n[servers.r]\ncommand = {:?}\n",
        rmcp()[0]
    );
    let path = write_file(dir.path(), "config.toml", &cfg)
        .display()
        .to_string();
    for _ in 0..8 {
        let v = json(&mcpdeck(
            &["--config", &path, "info", "r", "--json"],
            limit(60),
        ));
        assert_eq!(v["era"], "stateless", "{v}");
    }
}
