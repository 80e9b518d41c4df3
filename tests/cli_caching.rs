//! SEP-2549 caching hints: `info` shows the `ttlMs` and `cacheScope` of
//! `server/discover` and of each list (text and `--json`), says when a
//! server gives none, and `read` notes a read's hints on stderr. Against
//! the built-in demo servers: `demo-stateless` declares a minute, public;
//! `demo` declares 0, private; `demo-legacy` (initialize era) gives none.

mod common;

use serde_json::Value;

fn demo(args: &[&str]) -> common::Run {
    let mut all = vec!["--demo"];
    all.extend_from_slice(args);
    common::mcpdeck(&all, common::limit(60))
}

#[test]
fn info_shows_each_lists_caching_hints() {
    let r = demo(&["info", "demo-stateless"]);
    assert_eq!(r.code, 0, "{}", r.stderr);
    for want in [
        "server/discover           fresh for 60 s, public",
        "tools/list                fresh for 60 s, public",
        "prompts/list              fresh for 60 s, public",
    ] {
        assert!(r.stdout.contains(want), "{want:?} missing:\n{}", r.stdout);
    }
    let r = demo(&["info", "demo", "--json"]);
    assert_eq!(r.code, 0, "{}", r.stderr);
    let v: Value = serde_json::from_str(&r.stdout).expect("json");
    assert_eq!(v["caching"]["tools/list"]["ttlMs"], 0);
    assert_eq!(v["caching"]["tools/list"]["cacheScope"], "private");
    assert_eq!(v["caching"]["tools/list"]["fresh"], false);
    assert_eq!(v["caching"]["resources/list"]["ttlMs"], 0);
    let r = demo(&["info", "demo-legacy"]);
    assert_eq!(r.code, 0, "{}", r.stderr);
    assert!(
        r.stdout
            .contains("tools/list                no ttlMs or cacheScope given"),
        "{}",
        r.stdout
    );
    assert!(!r.stdout.contains("    server/discover "), "{}", r.stdout);
}

#[test]
fn info_lists_extensions_by_id() {
    let r = demo(&["info", "demo"]);
    assert_eq!(r.code, 0, "{}", r.stderr);
    assert!(
        r.stdout
            .contains("extensions (io.modelcontextprotocol/skills)"),
        "{}",
        r.stdout
    );
}

#[test]
fn read_notes_its_hints_on_stderr() {
    let r = demo(&["read", "demo", "demo://readme"]);
    assert_eq!(r.code, 0, "{}", r.stderr);
    assert!(
        r.stderr
            .contains("mcpdeck: caching: not to be reused (ttlMs 0), private"),
        "{}",
        r.stderr
    );
}
