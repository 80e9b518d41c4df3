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
