//! One `${VAR}` that is not set, in one server's table, breaks only that
//! server: ad-hoc targets (`-- CMD`, a URL) never depend on the config's
//! variables; a command naming the server fails with exit 2, the place and
//! what to do; the commands over every server (`servers`, `pin`, `scan`,
//! `export`) treat it as a server that cannot start, or keep the reference
//! as written; a disabled server's variables cause nothing; `add`, `import`
//! and `config check` warn (see also tests/cli_manage.rs). Against
//! mcpdeck's demo server and server-everything.

mod common;

use std::path::{Path, PathBuf};

use common::{Run, everything_js, limit, mcpdeck_bin, mcpdeck_env, write_file};
use serde_json::Value;

/// Surely not set where the tests run.
const TOK: &str = "MCPDECK_TEST_UNSET_TOK_27";
const OFF: &str = "MCPDECK_TEST_UNSET_OFF_27";

/// demo (the built-in demo server), h (an HTTP server whose header names
/// an unset variable, on line 7 column 29) and off (disabled, its command
/// an unset variable).
fn config(dir: &Path) -> PathBuf {
    let exe = mcpdeck_bin().display().to_string();
    let text = format!(
        "[servers.demo]\ncommand = {exe:?}\nargs = [\"demo-server\"]\n\n[servers.h]\nurl = \"http://127.0.0.1:9/mcp\"\nheaders = {{ Authorization = \"Bearer ${{{TOK}}}\" }}\n\n[servers.off]\nenabled = false\ncommand = \"${{{OFF}}}\"\n"
    );
    write_file(dir, "config.toml", &text)
}

fn run(cfg: &Path, args: &[&str]) -> Run {
    run_env(cfg, args, &[])
}

fn run_env(cfg: &Path, args: &[&str], env: &[(&str, &str)]) -> Run {
    let cfg = cfg.display().to_string();
    let mut all = vec!["--config", cfg.as_str()];
    all.extend_from_slice(args);
    mcpdeck_env(&all, env, limit(90))
}

fn fails(run: &Run, code: i32) -> &Run {
    assert_eq!(
        run.code, code,
        "expected exit {code}\nstdout:\n{}\nstderr:\n{}",
        run.stdout, run.stderr
    );
    run
}

fn json(run: &Run) -> Value {
    serde_json::from_str(&run.stdout)
        .unwrap_or_else(|e| panic!("not JSON ({e}):\n{}\nstderr:\n{}", run.stdout, run.stderr))
}

/// The message a command naming h fails with (after `mcpdeck: `).
fn json_of_failure(run: &Run) -> Value {
    serde_json::from_str(&run.stdout)
        .unwrap_or_else(|e| panic!("not JSON ({e}):\n{}\n{}", run.stdout, run.stderr))
}

fn h_message(cfg: &Path) -> String {
    format!(
        "{}:7:29: server \"h\": the environment variable {TOK} is not set; set it, or give it a default in the config: ${{{TOK}:-default}} (${{{TOK}:-}} for an empty one)",
        cfg.display()
    )
}

#[test]
fn an_ad_hoc_target_never_depends_on_the_config_s_variables() {
    let dir = tempfile::tempdir().unwrap();
    let cfg = config(dir.path());
    let js = everything_js().display().to_string();
    let r = run(&cfg, &["tools", "--json", "--", "node", &js, "stdio"]);
    r.ok();
    let tools = json(&r);
    let names: Vec<&str> = tools["tools"]
        .as_array()
        .unwrap_or_else(|| panic!("no tools in {tools}"))
        .iter()
        .filter_map(|t| t["name"].as_str())
        .collect();
    assert!(names.contains(&"echo"), "{names:?}");
    assert!(!r.stderr.contains(TOK), "{}", r.stderr);
    // A URL that h has too: h's settings (its header) are left out, with
    // a warning; the connection is tried (nothing listens: exit 3, not 2).
    let r = run(&cfg, &["tools", "http://127.0.0.1:9/mcp"]);
    fails(&r, 3);
    assert!(
        r.stderr.starts_with(&format!(
            "mcpdeck: warning: not using the settings of server \"h\", which has this URL: {}",
            h_message(&cfg)
        )),
        "{}",
        r.stderr
    );
    assert!(r.stderr.contains("could not connect"), "{}", r.stderr);
}

#[test]
fn a_command_naming_the_server_fails_with_the_place_and_the_fix() {
    let dir = tempfile::tempdir().unwrap();
    let cfg = config(dir.path());
    let want = format!("mcpdeck: {}\n", h_message(&cfg));
    for args in [
        &["tools", "h"][..],
        &["info", "h"],
        &["call", "h", "echo", "{}"],
        &["lint", "h"],
        &["serve", "h"],
    ] {
        let r = run(&cfg, args);
        fails(&r, 2);
        assert_eq!(r.stderr, want, "{args:?}");
        assert_eq!(r.stdout, "", "{args:?}");
    }
    // With --json, the error envelope says it is the config's.
    let r = run(&cfg, &["tools", "h", "--json"]);
    fails(&r, 2);
    let v = json_of_failure(&r);
    assert_eq!(v["error"]["kind"], "config", "{v}");
    assert_eq!(
        format!(
            "mcpdeck: {}\n",
            v["error"]["message"].as_str().unwrap_or("")
        ),
        want
    );
    // Named, a disabled server is connected anyway: its variables then
    // matter too.
    let r = run(&cfg, &["tools", "off"]);
    fails(&r, 2);
    assert!(
        r.stderr.contains(&format!(
            "config.toml:11:11: server \"off\": the environment variable {OFF} is not set"
        )),
        "{}",
        r.stderr
    );
    // Set, the same command gets past the config (and fails to connect:
    // nothing listens on port 9).
    let r = run_env(&cfg, &["tools", "h"], &[(TOK, "t0k")]);
    fails(&r, 3);
    assert!(!r.stderr.contains("not set"), "{}", r.stderr);
}

#[test]
fn servers_lists_it_failed_and_the_others_work() {
    let dir = tempfile::tempdir().unwrap();
    let cfg = config(dir.path());
    let r = run(&cfg, &["servers", "--json"]);
    // A server failed: exit 3, as for any server that cannot start.
    fails(&r, 3);
    let v = json(&r);
    let list = v["servers"].as_array().unwrap();
    let by = |name: &str| {
        list.iter()
            .find(|s| s["name"] == name)
            .unwrap_or_else(|| panic!("no {name} in {v}"))
    };
    assert_eq!(by("demo")["status"], "connected");
    assert!(by("demo")["tools"].as_u64().unwrap_or(0) > 0, "{v}");
    assert_eq!(by("h")["status"], "failed");
    assert_eq!(by("h")["error"], h_message(&cfg).as_str());
    assert_eq!(by("off")["status"], "disabled");
    assert!(by("off")["error"].is_null(), "{v}");
    // The text names it too.
    let r = run(&cfg, &["servers"]);
    fails(&r, 3);
    assert!(
        r.stdout
            .contains(&format!("    error: {}\n", h_message(&cfg))),
        "{}",
        r.stdout
    );
    assert!(
        r.stdout.lines().any(|l| l.starts_with("demo  connected")),
        "{}",
        r.stdout
    );
}

#[test]
fn a_disabled_server_s_variables_cause_nothing() {
    let dir = tempfile::tempdir().unwrap();
    let exe = mcpdeck_bin().display().to_string();
    let cfg = write_file(
        dir.path(),
        "config.toml",
        &format!(
            "[servers.demo]\ncommand = {exe:?}\nargs = [\"demo-server\"]\n\n[servers.off]\nenabled = false\nurl = \"https://${{{OFF}}}/mcp\"\nheaders = {{ X = \"${{{TOK}}}\" }}\n"
        ),
    );
    let r = run(&cfg, &["servers", "--json"]);
    r.ok();
    assert!(!r.stderr.contains("not set"), "{}", r.stderr);
    let r = run(&cfg, &["tools", "demo"]);
    r.ok();
    assert_eq!(r.stderr, "");
    let r = run(&cfg, &["config", "check"]);
    r.ok();
    assert_eq!(r.stderr, "");
    assert!(
        r.stdout.contains("OK, 2 servers (1 enabled)"),
        "{}",
        r.stdout
    );
}

#[test]
fn pin_over_every_server_pins_the_others_and_names_the_variable() {
    let dir = tempfile::tempdir().unwrap();
    let cfg = config(dir.path());
    let pins = dir.path().join("pins.json");
    let pins = pins.display().to_string();
    let r = run_env(&cfg, &["pin", "--json"], &[("MCPDECK_PINS", &pins)]);
    // A config problem of one server: exit 2, the others pinned.
    fails(&r, 2);
    let v = json(&r);
    let list = v["servers"].as_array().unwrap();
    assert_eq!(list.len(), 2, "{v}");
    assert_eq!(list[0]["server"], "demo");
    assert_eq!(list[0]["status"], "pinned");
    assert_eq!(list[1]["server"], "h");
    assert_eq!(list[1]["status"], "failed");
    assert_eq!(list[1]["error"], h_message(&cfg).as_str());
    assert!(r.stderr.contains(&h_message(&cfg)), "{}", r.stderr);
    // verify the same way: demo as pinned, h failed.
    let r = run_env(&cfg, &["verify", "--json"], &[("MCPDECK_PINS", &pins)]);
    fails(&r, 2);
    let v = json(&r);
    assert_eq!(v["servers"][0]["status"], "ok", "{v}");
    assert_eq!(v["servers"][1]["status"], "failed", "{v}");
}

#[test]
fn export_keeps_the_reference_as_written() {
    let dir = tempfile::tempdir().unwrap();
    let cfg = config(dir.path());
    let r = run(&cfg, &["export", "--to", "claude-code", "h"]);
    r.ok();
    let v = json(&r);
    assert_eq!(
        v["mcpServers"]["h"]["headers"]["Authorization"],
        format!("Bearer ${{{TOK}}}")
    );
}

#[test]
fn scan_reports_it_as_a_server_that_cannot_start() {
    let dir = tempfile::tempdir().unwrap();
    let cfg = config(dir.path());
    let home = dir.path().join("home");
    std::fs::create_dir_all(&home).unwrap();
    let home = home.display().to_string();
    let xdg = dir.path().join("xdg").display().to_string();
    let r = run_env(
        &cfg,
        &["scan"],
        &[
            ("HOME", &home),
            ("XDG_CONFIG_HOME", &xdg),
            ("XDG_DATA_HOME", &xdg),
            ("MCPDECK_PINS", &format!("{xdg}/pins.json")),
        ],
    );
    r.ok();
    let line = |name: &str| {
        r.stdout
            .lines()
            .find(|l| l.trim_start().starts_with(&format!("{name} ")))
            .unwrap_or_else(|| panic!("no {name} line:\n{}", r.stdout))
            .to_owned()
    };
    assert!(line("demo").contains("scanned"), "{}", r.stdout);
    assert!(
        line("h").ends_with(&format!("failed: cannot be started: {}", h_message(&cfg))),
        "{}",
        r.stdout
    );
    assert!(line("off").contains("disabled"), "{}", r.stdout);
}

#[test]
fn import_warns_about_a_variable_that_is_not_set() {
    let dir = tempfile::tempdir().unwrap();
    let cfg = dir.path().join("config.toml");
    let project = dir.path().join(".cursor");
    std::fs::create_dir_all(&project).unwrap();
    let cursor = write_file(
        &project,
        "mcp.json",
        &format!(
            r#"{{"mcpServers": {{"remote": {{"url": "https://example.com/mcp", "headers": {{"Authorization": "Bearer ${{env:{TOK}}}"}}}}}}}}"#
        ),
    );
    let cursor = cursor.display().to_string();
    // A dry run: no place in a file yet.
    let r = run(&cfg, &["import", &cursor, "--dry-run"]);
    r.ok();
    assert!(
        r.stderr.contains(&format!(
            "mcpdeck: warning: server \"remote\": the environment variable {TOK} is not set; set it, or give it a default"
        )),
        "{}",
        r.stderr
    );
    let r = run(&cfg, &["import", &cursor, "--json"]);
    r.ok();
    let v = json(&r);
    let warning = format!(
        "{}:4:29: server \"remote\": the environment variable {TOK} is not set; set it, or give it a default in the config: ${{{TOK}:-default}} (${{{TOK}:-}} for an empty one)",
        cfg.display()
    );
    let warnings = v["servers"][0]["warnings"].as_array().unwrap();
    assert!(warnings.contains(&Value::from(warning.clone())), "{v}");
    assert!(
        r.stderr.contains(&format!("mcpdeck: warning: {warning}")),
        "{}",
        r.stderr
    );
}
