//! `skills` and `skill` against the built-in demo server's two skills
//! (`demo-tour`, and `release-notes` under the prefix `docs/`): listing
//! reads no file, loading verifies SKILL.md (size, digest, frontmatter)
//! and reads other files only when asked, a file the entry does not list
//! is refused unread, and a server without the extension says so. The
//! refusals of tampered content are run against the official conformance
//! suite's scenarios (tests/http_real.rs) and in the unit tests.

mod common;

use serde_json::Value;

fn demo(args: &[&str]) -> common::Run {
    let mut all = vec!["--demo", "--trace"];
    all.extend_from_slice(args);
    common::mcpdeck(&all, common::limit(60))
}

/// The `resources/read` URIs the run sent (from its `--trace`).
fn reads(run: &common::Run) -> Vec<String> {
    run.stderr
        .lines()
        .filter(|l| l.contains("\"method\":\"resources/read\""))
        .filter_map(|l| {
            let i = l.find("\"uri\":\"")? + 7;
            let rest = &l[i..];
            Some(rest[..rest.find('"')?].to_string())
        })
        .collect()
}

#[test]
fn listing_shows_both_skills_and_reads_nothing() {
    let r = demo(&["skills", "demo"]);
    assert_eq!(r.code, 0, "{}", r.stderr);
    assert!(
        r.stdout.contains("demo-tour  Explore mcpdeck"),
        "{}",
        r.stdout
    );
    assert!(
        r.stdout
            .contains("skill://docs/release-notes/SKILL.md · 3 files"),
        "{}",
        r.stdout
    );
    assert!(reads(&r).is_empty(), "{:?}", reads(&r));
    let r = demo(&["skills", "demo", "--json"]);
    assert_eq!(r.code, 0, "{}", r.stderr);
    let v: Value = serde_json::from_str(&r.stdout).expect("json");
    let uris: Vec<&str> = v["skills"]
        .as_array()
        .map(|a| a.iter().filter_map(|s| s["uri"].as_str()).collect())
        .unwrap_or_default();
    assert_eq!(
        uris,
        [
            "skill://demo-tour/SKILL.md",
            "skill://docs/release-notes/SKILL.md"
        ]
    );
    assert_eq!(v["problems"], serde_json::json!([]));
}

#[test]
fn loading_verifies_skill_md_and_reads_other_files_only_when_asked() {
    let r = demo(&["skill", "demo", "release-notes"]);
    assert_eq!(r.code, 0, "{}", r.stderr);
    assert!(r.stdout.contains("✓ SKILL.md verified"), "{}", r.stdout);
    assert!(r.stdout.contains("# Release notes"), "{}", r.stdout);
    assert!(
        r.stdout.contains("templates/hotfix.md  194 B  not read"),
        "{}",
        r.stdout
    );
    assert_eq!(reads(&r), ["skill://docs/release-notes/SKILL.md"]);

    // By path, one file asked for.
    let r = demo(&[
        "skill",
        "demo",
        "docs/release-notes",
        "--file",
        "templates/hotfix.md",
        "--json",
    ]);
    assert_eq!(r.code, 0, "{}", r.stderr);
    let v: Value = serde_json::from_str(&r.stdout).expect("json");
    assert_eq!(v["verified"], true);
    assert!(
        v["text"]
            .as_str()
            .unwrap_or_default()
            .starts_with("---\nname: release-notes")
    );
    let files = v["files"].as_array().cloned().unwrap_or_default();
    let hot = files
        .iter()
        .find(|f| f["path"] == "templates/hotfix.md")
        .expect("hotfix listed");
    assert_eq!(hot["read"], true);
    assert!(
        hot["text"]
            .as_str()
            .unwrap_or_default()
            .contains("(hotfix)")
    );
    let rel = files
        .iter()
        .find(|f| f["path"] == "templates/release.md")
        .expect("release listed");
    assert_eq!(rel["read"], false);
    assert!(rel.get("text").is_none());
    assert_eq!(
        reads(&r),
        [
            "skill://docs/release-notes/SKILL.md",
            "skill://docs/release-notes/templates/hotfix.md"
        ]
    );

    // By URI: skills/get, no listing.
    let r = demo(&["skill", "demo", "skill://demo-tour/SKILL.md", "--all-files"]);
    assert_eq!(r.code, 0, "{}", r.stderr);
    assert!(
        r.stderr.contains("\"method\":\"skills/get\""),
        "{}",
        r.stderr
    );
    assert!(
        !r.stderr.contains("\"method\":\"skills/list\""),
        "{}",
        r.stderr
    );
    assert!(
        r.stdout.contains("references/KEYS.md  552 B  verified"),
        "{}",
        r.stdout
    );
}

#[test]
fn an_unlisted_file_is_refused_unread_and_unknown_names_are_usage_errors() {
    let r = demo(&[
        "skill",
        "demo",
        "demo-tour",
        "--file",
        "references/SECRET.md",
    ]);
    assert_eq!(r.code, 1, "{}", r.stdout);
    assert!(
        r.stderr.contains("is not listed in the skill's resources"),
        "{}",
        r.stderr
    );
    assert_eq!(reads(&r), ["skill://demo-tour/SKILL.md"]);
    let r = demo(&["skill", "demo", "nope"]);
    assert_eq!(r.code, 2);
    assert!(
        r.stderr.contains("no skill named \"nope\"")
            && r.stderr.contains("demo-tour, release-notes"),
        "{}",
        r.stderr
    );
}

#[test]
fn a_server_without_the_extension_says_so() {
    let r = demo(&["skills", "demo-stateless"]);
    assert_eq!(r.code, 0, "{}", r.stderr);
    assert!(
        r.stdout
            .contains("does not declare the io.modelcontextprotocol/skills"),
        "{}",
        r.stdout
    );
    let r = demo(&["skill", "demo-stateless", "demo-tour"]);
    assert_eq!(r.code, 2);
    assert!(r.stderr.contains("does not declare"), "{}", r.stderr);
}

/// A folder of skills for FastMCP: `ops/deploy` (a prefix, a nested
/// metadata map, a script) and `pdf` (a folded description).
fn skills_folder() -> tempfile::TempDir {
    let dir = tempfile::tempdir().expect("tempdir");
    let root = dir.path();
    std::fs::create_dir_all(root.join("ops/deploy/scripts")).expect("mkdir");
    std::fs::create_dir_all(root.join("pdf")).expect("mkdir");
    std::fs::write(
        root.join("ops/deploy/SKILL.md"),
        "---\nname: deploy\ndescription: Deploy a service with the team's checklist\nlicense: Apache-2.0\nmetadata:\n  owner: ops\n  version: \"3\"\n---\n\n# Deploy\n\nRun `scripts/check.sh` first.\n",
    )
    .expect("write");
    std::fs::write(
        root.join("ops/deploy/scripts/check.sh"),
        "#!/bin/sh\necho checking\n",
    )
    .expect("write");
    std::fs::write(
        root.join("pdf/SKILL.md"),
        "---\nname: pdf\ndescription: >\n  Fill PDF forms\n  and merge documents\n---\nBody.\n",
    )
    .expect("write");
    dir
}

fn fastmcp(args: &[&str], root: &std::path::Path) -> common::Run {
    let py = common::py_fastmcp().display().to_string();
    let script = common::server_script("fastmcp_skills.py")
        .display()
        .to_string();
    let root = root.display().to_string();
    let mut all = vec!["--trace"];
    all.extend_from_slice(args);
    all.extend(["--", py.as_str(), script.as_str(), root.as_str()]);
    common::mcpdeck(&all, common::limit(60))
}

/// Against a real SDK that serves skills (FastMCP 4.2.3): its listing, a
/// skill under a prefix loaded and verified with its script, a folded
/// description (which FastMCP renders without the block's last line break,
/// and which still compares equal), and nothing read before it is asked.
#[test]
fn fastmcp_skills_list_load_and_verify() {
    let dir = skills_folder();
    let r = fastmcp(&["skills"], dir.path());
    assert_eq!(r.code, 0, "{}", r.stderr);
    assert!(
        r.stdout
            .contains("deploy  Deploy a service with the team's checklist"),
        "{}",
        r.stdout
    );
    assert!(
        r.stdout.contains("skill://ops/deploy/SKILL.md · 2 files"),
        "{}",
        r.stdout
    );
    assert!(
        r.stdout.contains("pdf  Fill PDF forms and merge documents"),
        "{}",
        r.stdout
    );
    assert!(!r.stdout.contains("invalid"), "{}", r.stdout);
    assert!(reads(&r).is_empty(), "{:?}", reads(&r));

    let r = fastmcp(
        &["skill", "ops/deploy", "--all-files", "--json"],
        dir.path(),
    );
    assert_eq!(r.code, 0, "{}", r.stderr);
    let v: Value = serde_json::from_str(&r.stdout).expect("json");
    assert_eq!(v["verified"], true);
    assert_eq!(v["skill"]["frontmatter"]["metadata"]["version"], "3");
    let script = v["files"]
        .as_array()
        .and_then(|f| f.iter().find(|f| f["path"] == "scripts/check.sh"))
        .cloned()
        .unwrap_or_default();
    assert_eq!(script["read"], true, "{v}");
    assert_eq!(script["text"], "#!/bin/sh\necho checking\n");

    let r = fastmcp(&["skill", "pdf"], dir.path());
    assert_eq!(r.code, 0, "{}\n{}", r.stdout, r.stderr);
    assert!(r.stdout.contains("✓ SKILL.md verified"), "{}", r.stdout);
    assert_eq!(reads(&r), ["skill://pdf/SKILL.md"]);
}
