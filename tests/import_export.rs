//! Round trips between mcpdeck and the other clients: export a config to
//! each client's own file (`export --to CLIENT --write`), import it back
//! (`import --from CLIENT`), and get the same servers; importing again
//! into the original config adds nothing. Everything runs under a
//! throw-away HOME and XDG directories.

use std::path::Path;
use std::process::{Command, Stdio};

use serde_json::Value;

const CONFIG: &str = r#"# the user's servers
[servers.files]
command = "npx"
args = ["-y", "@modelcontextprotocol/server-filesystem", "/tmp"]
env = { GITHUB_TOKEN = "${GITHUB_TOKEN}" }
deny_tools = ["write_file"]

[servers.remote]
url = "https://example.com/mcp"
"#;

fn run(home: &Path, config: &Path, args: &[&str]) -> (i32, String, String) {
    let out = Command::new(env!("CARGO_BIN_EXE_mcpdeck"))
        .arg("--config")
        .arg(config)
        .args(args)
        .current_dir(home)
        .env("HOME", home)
        .env("XDG_CONFIG_HOME", home.join(".config"))
        .env("XDG_DATA_HOME", home.join(".local/share"))
        .env("XDG_STATE_HOME", home.join(".local/state"))
        .env_remove("CLAUDE_CONFIG_DIR")
        .env_remove("CODEX_HOME")
        .env_remove("MCPDECK_CONFIG")
        .env("GITHUB_TOKEN", "unused")
        .stdin(Stdio::null())
        .output()
        .expect("run mcpdeck");
    (
        out.status.code().unwrap_or(-1),
        String::from_utf8_lossy(&out.stdout).into_owned(),
        String::from_utf8_lossy(&out.stderr).into_owned(),
    )
}

/// The servers an import would bring, by name.
fn imported(home: &Path, config: &Path, client: &str) -> Vec<Value> {
    let (code, out, err) = run(
        home,
        config,
        &["import", "--from", client, "--dry-run", "--json"],
    );
    assert_eq!(code, 0, "{client}: {err}");
    let v: Value = serde_json::from_str(&out).unwrap_or_else(|e| panic!("{client}: {e}: {out}"));
    let mut servers = v["servers"].as_array().cloned().unwrap_or_default();
    servers.sort_by_key(|s| s["name"].as_str().unwrap_or("").to_string());
    servers
}

#[test]
fn export_then_import_gives_the_same_servers_for_every_client() {
    for (client, http, deny) in [
        ("claude-code", true, false),
        ("vscode", true, false),
        ("cursor", true, false),
        ("windsurf", true, true),
        ("zed", true, false),
        ("codex", true, true),
        ("gemini", true, true),
        ("claude-desktop", false, false),
    ] {
        let dir = tempfile::tempdir().unwrap();
        let home = dir.path();
        std::fs::create_dir_all(home.join(".config")).unwrap();
        let config = home.join("mcpdeck.toml");
        std::fs::write(&config, CONFIG).unwrap();
        let (code, _, err) = run(home, &config, &["export", "--to", client, "--write"]);
        assert_eq!(code, 0, "{client}: {err}");

        // Back in a fresh config: the same servers.
        let fresh = home.join("fresh.toml");
        std::fs::write(&fresh, "").unwrap();
        let back = imported(home, &fresh, client);
        let names: Vec<&str> = back.iter().filter_map(|s| s["name"].as_str()).collect();
        let want: &[&str] = if http {
            &["files", "remote"]
        } else {
            &["files"]
        };
        assert_eq!(names, want, "{client}: {back:?}");
        let files = &back[0];
        assert_eq!(files["transport"], "stdio", "{client}");
        assert_eq!(files["command"], "npx", "{client}");
        assert_eq!(
            files["args"],
            serde_json::json!(["-y", "@modelcontextprotocol/server-filesystem", "/tmp"]),
            "{client}"
        );
        // A variable stays a reference on the way out and back, where the
        // client has variables.
        if !matches!(client, "claude-desktop" | "zed") {
            assert_eq!(
                files["env"]["GITHUB_TOKEN"], "${GITHUB_TOKEN}",
                "{client}: {files}"
            );
        }
        if deny {
            assert_eq!(
                files["deny_tools"],
                serde_json::json!(["write_file"]),
                "{client}"
            );
        }
        if http {
            assert_eq!(back[1]["transport"], "http", "{client}");
            assert_eq!(back[1]["url"], "https://example.com/mcp", "{client}");
        }

        // Into the original config: nothing new (a round trip adds nothing
        // where the client carried everything).
        if deny {
            let before = std::fs::read_to_string(&config).unwrap();
            let (code, _, err) = run(home, &config, &["import", "--from", client]);
            assert_eq!(code, 0, "{client}: {err}");
            assert_eq!(
                std::fs::read_to_string(&config).unwrap(),
                before,
                "{client}: importing what was exported added something"
            );
        }
    }
}

/// The round trips a newcomer makes (issue 27): a Cursor entry without
/// `args` is the same as mcpdeck's `"args": []` (export --write needs no
/// --force); a disabled server is still the one the client has (no
/// `NAME-2`); `export --via-serve` entries are not imported back (mcpdeck
/// would front itself); a file that does not parse is its error alone.
#[test]
fn round_trips_keep_to_one_server_each() {
    let dir = tempfile::tempdir().unwrap();
    let home = dir.path();
    let cursor = home.join(".cursor/mcp.json");
    std::fs::create_dir_all(cursor.parent().unwrap()).unwrap();
    std::fs::write(
        &cursor,
        r#"{"mcpServers": {
            "seq": {"command": "node"},
            "remote": {"url": "https://example.com/mcp"}
        }}"#,
    )
    .unwrap();
    let config = home.join("mcpdeck.toml");
    std::fs::write(&config, "").unwrap();
    let (code, out, err) = run(home, &config, &["import", "--from", "cursor"]);
    assert_eq!(code, 0, "{out}{err}");
    assert!(out.contains("Imported 2 servers"), "{out}");

    // Cursor's entry has no `args`; mcpdeck's export writes `"args": []`.
    let (code, out, err) = run(home, &config, &["export", "--to", "cursor", "--write"]);
    assert_eq!(code, 0, "export without --force: {out}{err}");

    // Disabling a server does not make the next import add it again.
    let (code, _, err) = run(home, &config, &["disable", "remote"]);
    assert_eq!(code, 0, "{err}");
    let (code, out, err) = run(home, &config, &["import", "--from", "cursor"]);
    assert_eq!(code, 0, "{err}");
    assert!(
        out.contains("Nothing new to import (2 already there)"),
        "{out}"
    );
    assert!(!out.contains("remote-2"), "{out}");

    // --via-serve entries: mcpdeck serve in front of this config.
    let (code, out, err) = run(
        home,
        &config,
        &[
            "export",
            "--to",
            "cursor",
            "--via-serve",
            "--write",
            "--force",
        ],
    );
    assert_eq!(code, 0, "{out}{err}");
    let (code, out, err) = run(home, &config, &["import", "--from", "cursor", "--json"]);
    assert_eq!(code, 0, "{err}");
    let v: Value = serde_json::from_str(&out).unwrap();
    assert_eq!(v["servers"], serde_json::json!([]), "{v:#}");
    let skipped = v["skipped"].as_array().unwrap();
    assert_eq!(skipped.len(), 2, "{v:#}");
    assert!(
        skipped.iter().all(|s| s["reason"]
            .as_str()
            .unwrap_or("")
            .contains("mcpdeck would front itself")),
        "{v:#}"
    );
    let text = std::fs::read_to_string(&config).unwrap();
    assert!(
        !text.contains("seq-2") && !text.contains("\"serve\""),
        "{text}"
    );

    // A file that does not parse: its error, exit 2, nothing else.
    let bad = home.join("bad.json");
    std::fs::write(&bad, "{\"mcpServers\": {").unwrap();
    let (code, out, err) = run(home, &config, &["import", bad.to_str().unwrap()]);
    assert_eq!(code, 2, "{out}{err}");
    assert!(!out.contains("Nothing new"), "{out}");
    assert!(err.contains("bad.json"), "{err}");
}
