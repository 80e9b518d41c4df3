//! MCP Apps views, read and checked, never rendered: `tools` marks a tool
//! with a view `[app]`, `tool` names the view, and `app-info` reads it and
//! reports its size, mime type, CSP, permissions and problems (exit 1 when
//! there are any). Against tests/servers/apps.mjs: the official TypeScript
//! SDK's McpServer with the official MCP Apps helpers
//! (@modelcontextprotocol/ext-apps), as app authors write them.

mod common;

use serde_json::Value;

/// The server script in a folder of its own whose `node_modules` is the
/// test dependencies' (an ES module finds its imports from where it is).
fn server() -> (tempfile::TempDir, String) {
    let dir = tempfile::tempdir().expect("tempdir");
    let js = dir.path().join("apps.mjs");
    std::fs::copy(common::server_script("apps.mjs"), &js).expect("copy");
    let nm = common::node_modules();
    assert!(
        nm.join("@modelcontextprotocol/ext-apps/package.json")
            .exists(),
        "run scripts/test.sh: it installs the test servers ({})",
        nm.display()
    );
    std::os::unix::fs::symlink(&nm, dir.path().join("node_modules")).expect("symlink");
    let js = js.display().to_string();
    (dir, js)
}

fn run(args: &[&str], js: &str) -> common::Run {
    let mut all: Vec<&str> = args.to_vec();
    all.extend(["--", "node", js]);
    common::mcpdeck(&all, common::limit(60))
}

#[test]
fn tools_marks_views_and_tool_names_the_view() {
    let (_dir, js) = server();
    let r = run(&["tools"], &js);
    assert_eq!(r.code, 0, "{}", r.stderr);
    let line = |name: &str| {
        r.stdout
            .lines()
            .find(|l| l.starts_with(&format!("{name}(")))
            .unwrap_or_default()
            .to_string()
    };
    assert!(line("weather").contains("[app]"), "{}", r.stdout);
    assert!(line("sloppy").contains("[app]"), "{}", r.stdout);
    assert!(!line("plain").contains("app"), "{}", r.stdout);
    let r = run(&["tool", "weather"], &js);
    assert_eq!(r.code, 0, "{}", r.stderr);
    assert!(
        r.stdout
            .contains("app view: ui://weather/view.html, visible to model and app"),
        "{}",
        r.stdout
    );
}

#[test]
fn a_good_view_is_reported_with_its_csp_and_permissions() {
    let (_dir, js) = server();
    let r = run(&["app-info", "weather"], &js);
    assert_eq!(r.code, 0, "{}\n{}", r.stdout, r.stderr);
    for want in [
        "weather → ui://weather/view.html",
        "document: text/html;profile=mcp-app, 96 B, HTML",
        "connectDomains: https://api.weather.example",
        "resourceDomains: https://cdn.example.com",
        "permissions: clipboardWrite",
        "no problems found",
    ] {
        assert!(r.stdout.contains(want), "{want:?} missing:\n{}", r.stdout);
    }
    let r = run(&["app-info", "weather", "--json"], &js);
    assert_eq!(r.code, 0, "{}", r.stderr);
    let v: Value = serde_json::from_str(&r.stdout).expect("json");
    assert_eq!(v["resourceUri"], "ui://weather/view.html");
    assert_eq!(v["resource"]["mimeType"], "text/html;profile=mcp-app");
    assert_eq!(v["resource"]["size"], 96);
    assert_eq!(v["resource"]["html"], true);
    assert_eq!(v["visibility"], serde_json::json!(["model", "app"]));
    assert_eq!(v["csp"]["connectDomains"][0], "https://api.weather.example");
    assert!(v["permissions"]["clipboardWrite"].is_object(), "{v}");
    assert_eq!(v["prefersBorder"], true);
    assert_eq!(v["problems"], serde_json::json!([]));
}

#[test]
fn a_sloppy_view_lists_each_problem_and_exits_1() {
    let (_dir, js) = server();
    let r = run(&["app-info", "sloppy", "--json"], &js);
    assert_eq!(r.code, 1, "{}\n{}", r.stdout, r.stderr);
    let v: Value = serde_json::from_str(&r.stdout).expect("json");
    let problems: Vec<String> = v["problems"]
        .as_array()
        .map(|a| {
            a.iter()
                .filter_map(Value::as_str)
                .map(String::from)
                .collect()
        })
        .unwrap_or_default();
    for want in [
        "mimeType \"text/html\"",
        "not HTML",
        "\"*\" allows every origin",
        "\"http://api.example.com\" is not TLS",
        "permissions.usb",
    ] {
        assert!(
            problems.iter().any(|p| p.contains(want)),
            "{want:?} missing: {problems:?}"
        );
    }
    assert_eq!(problems.len(), 5, "{problems:?}");
}

#[test]
fn a_tool_without_a_view_is_a_usage_error_naming_those_with_one() {
    let (_dir, js) = server();
    let r = run(&["app-info", "plain"], &js);
    assert_eq!(r.code, 2, "{}", r.stdout);
    assert!(
        r.stderr.contains("names no MCP Apps view") && r.stderr.contains("weather, sloppy"),
        "{}",
        r.stderr
    );
    let r = run(&["app-info", "nope"], &js);
    assert_eq!(r.code, 2);
    assert!(r.stderr.contains("no tool named \"nope\""), "{}", r.stderr);
}
