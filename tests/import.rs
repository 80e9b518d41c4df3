//! `mcpdeck import`: every client's file as its users write it, `--all`
//! under a fresh HOME, conflicts, idempotence, bad input and registry
//! server.json files (the registry's own examples). Runs the real binary
//! with a throw-away HOME and XDG directories.

use std::fs;
use std::path::{Path, PathBuf};
use std::process::{Command, Stdio};

use serde_json::{Value, json};

const FIXTURES: &str = concat!(env!("CARGO_MANIFEST_DIR"), "/tests/fixtures/clients");

struct World {
    _dir: tempfile::TempDir,
    home: PathBuf,
    project: PathBuf,
    config: PathBuf,
}

fn copy_tree(from: &Path, to: &Path, project: &Path) {
    for entry in fs::read_dir(from).unwrap() {
        let entry = entry.unwrap();
        let target = to.join(entry.file_name());
        if entry.file_type().unwrap().is_dir() {
            fs::create_dir_all(&target).unwrap();
            copy_tree(&entry.path(), &target, project);
        } else {
            let text = fs::read_to_string(entry.path()).unwrap();
            let text = text.replace("@PROJECT@", project.to_str().unwrap());
            fs::write(&target, text).unwrap();
        }
    }
}

impl World {
    /// A fresh HOME and project directory with the fixtures of `clients`
    /// in place (their `home/` and `project/` trees).
    fn new(clients: &[&str]) -> World {
        let dir = tempfile::tempdir().unwrap();
        let home = dir.path().join("home");
        let project = dir.path().join("work").join("app");
        fs::create_dir_all(&home).unwrap();
        fs::create_dir_all(&project).unwrap();
        let project = fs::canonicalize(&project).unwrap();
        for client in clients {
            for (part, to) in [("home", &home), ("project", &project)] {
                let from = Path::new(FIXTURES).join(client).join(part);
                if from.is_dir() {
                    copy_tree(&from, to, &project);
                }
            }
        }
        let config = dir.path().join("config").join("config.toml");
        World {
            _dir: dir,
            home,
            project,
            config,
        }
    }

    fn run(&self, args: &[&str]) -> (i32, String, String) {
        let mut cmd = Command::new(env!("CARGO_BIN_EXE_mcpdeck"));
        cmd.arg("--config")
            .arg(&self.config)
            .arg("import")
            .args(args)
            .current_dir(&self.project)
            .env("HOME", &self.home)
            .env("XDG_CONFIG_HOME", self.home.join(".config"))
            .env("XDG_DATA_HOME", self.home.join(".local/share"))
            .env("XDG_STATE_HOME", self.home.join(".local/state"))
            .env_remove("CLAUDE_CONFIG_DIR")
            .env_remove("CODEX_HOME")
            .env_remove("MCPDECK_CONFIG")
            .stdin(Stdio::null());
        let out = cmd.output().unwrap();
        (
            out.status.code().unwrap_or(-1),
            String::from_utf8_lossy(&out.stdout).into_owned(),
            String::from_utf8_lossy(&out.stderr).into_owned(),
        )
    }

    /// `import ARGS --json`: the report, after checking the exit code.
    fn json(&self, args: &[&str], code: i32) -> Value {
        let mut all = args.to_vec();
        all.push("--json");
        let (got, stdout, stderr) = self.run(&all);
        assert_eq!(got, code, "{args:?}\nstdout:\n{stdout}\nstderr:\n{stderr}");
        serde_json::from_str(&stdout)
            .unwrap_or_else(|e| panic!("not JSON ({e}):\n{stdout}\n{stderr}"))
    }

    fn config_text(&self) -> String {
        fs::read_to_string(&self.config).unwrap_or_default()
    }
}

/// The server called `name` in a report.
fn server<'r>(report: &'r Value, name: &str) -> &'r Value {
    report["servers"]
        .as_array()
        .unwrap()
        .iter()
        .find(|s| s["name"] == name)
        .unwrap_or_else(|| panic!("no server {name} in {report:#}"))
}

fn names(report: &Value) -> Vec<String> {
    let mut names: Vec<String> = report["servers"]
        .as_array()
        .unwrap()
        .iter()
        .map(|s| s["name"].as_str().unwrap().to_owned())
        .collect();
    names.sort();
    names
}

fn warnings(server: &Value) -> String {
    server["warnings"]
        .as_array()
        .unwrap()
        .iter()
        .map(|w| w.as_str().unwrap())
        .collect::<Vec<_>>()
        .join("\n")
}

/// Checks every field of the JSON object of a server except `warnings`.
fn assert_fields(server: &Value, expected: Value) {
    for (key, value) in expected.as_object().unwrap() {
        assert_eq!(&server[key], value, "`{key}` of {server:#}");
    }
    let keys: Vec<&String> = server.as_object().unwrap().keys().collect();
    assert_eq!(
        keys,
        [
            "name",
            "client",
            "path",
            "transport",
            "command",
            "args",
            "env",
            "cwd",
            "url",
            "headers",
            "enabled",
            "deny_tools",
            "warnings"
        ]
    );
}

#[test]
fn claude_desktop() {
    let w = World::new(&["claude-desktop"]);
    let r = w.json(&["--from", "claude-desktop", "--dry-run"], 0);
    assert_eq!(names(&r), ["filesystem", "sqlite"]);
    let path = w.home.join(".config/Claude/claude_desktop_config.json");
    assert_fields(
        server(&r, "filesystem"),
        json!({
            "client": "claude-desktop", "path": path.to_str().unwrap(), "transport": "stdio",
            "command": "npx",
            "args": ["-y", "@modelcontextprotocol/server-filesystem", "/home/me/Desktop", "/home/me/Downloads"],
            "env": {}, "cwd": null, "url": null, "headers": {}, "enabled": true, "deny_tools": [],
        }),
    );
    // No variables in Claude Desktop: a `$` is literal, written `$$`.
    assert_eq!(server(&r, "sqlite")["env"], json!({"PRICE_TAG": "$$5"}));
    assert_eq!(r["errors"], json!([]));
    assert!(!w.config.exists(), "--dry-run wrote the config");
}

#[test]
fn claude_code_both_scopes_and_project_file() {
    let w = World::new(&["claude-code"]);
    let r = w.json(&["--from", "claude-code", "--dry-run"], 0);
    // User scope, the local scope of this directory, the project's .mcp.json;
    // not another project's local scope.
    assert_eq!(names(&r), ["airtable", "events", "local-db", "sentry"]);
    assert_fields(
        server(&r, "sentry"),
        json!({"client": "claude-code", "transport": "http", "url": "https://mcp.sentry.dev/mcp",
               "command": null, "args": [], "env": {}, "headers": {}, "enabled": true}),
    );
    assert_fields(
        server(&r, "local-db"),
        json!({"transport": "stdio", "command": "node", "args": ["scripts/db-mcp.js"],
               "env": {"DB_URL": "${DB_URL:-postgres://localhost/dev}"},
               "path": w.home.join(".claude.json").to_str().unwrap()}),
    );
    assert_fields(
        server(&r, "events"),
        json!({"transport": "sse", "url": "${EVENTS_URL:-https://api.example.com}/sse",
               "headers": {"X-API-Key": "${EVENTS_KEY}"},
               "path": w.project.join(".mcp.json").to_str().unwrap()}),
    );
    assert_eq!(
        server(&r, "airtable")["env"],
        json!({"AIRTABLE_API_KEY": "${AIRTABLE_API_KEY}"})
    );
    // The reference is understood (nothing to say about it); that its
    // variable is not set now is said (a dry run: no place in a file).
    let unset = if std::env::var_os("AIRTABLE_API_KEY").is_some() {
        String::new()
    } else {
        "server \"airtable\": the environment variable AIRTABLE_API_KEY is not set; set it, or give it a default in the config: ${AIRTABLE_API_KEY:-default} (${AIRTABLE_API_KEY:-} for an empty one)".to_owned()
    };
    assert_eq!(warnings(server(&r, "airtable")), unset);
}

#[test]
fn claude_config_dir_moves_the_home_file() {
    let w = World::new(&[]);
    let moved = w.home.join("elsewhere");
    fs::create_dir_all(&moved).unwrap();
    fs::write(
        moved.join(".claude.json"),
        r#"{"mcpServers": {"moved": {"command": "m"}}}"#,
    )
    .unwrap();
    let out = Command::new(env!("CARGO_BIN_EXE_mcpdeck"))
        .args(["--config"])
        .arg(&w.config)
        .args(["import", "--from", "claude-code", "--json", "--dry-run"])
        .current_dir(&w.project)
        .env("HOME", &w.home)
        .env("XDG_CONFIG_HOME", w.home.join(".config"))
        .env("CLAUDE_CONFIG_DIR", &moved)
        .output()
        .unwrap();
    let r: Value = serde_json::from_slice(&out.stdout).unwrap();
    assert_eq!(names(&r), ["moved"]);
}

#[test]
fn vscode_inputs_and_workspace_variables() {
    let w = World::new(&["vscode"]);
    let r = w.json(&["--from", "vscode", "--dry-run"], 0);
    // mcp.json, the older settings.json `mcp.servers`, a profile's mcp.json,
    // the workspace's .vscode/mcp.json.
    assert_eq!(
        names(&r),
        [
            "fetch",
            "github",
            "memory",
            "notes",
            "perplexity",
            "playwright"
        ]
    );
    let profile = w.home.join(".config/Code/User/profiles/7f3a9c/mcp.json");
    assert_fields(
        server(&r, "playwright"),
        json!({"client": "vscode", "path": profile.to_str().unwrap(), "args": ["@playwright/mcp@latest"]}),
    );
    let p = server(&r, "perplexity");
    assert_fields(
        p,
        json!({"client": "vscode", "transport": "stdio", "command": "npx",
               "env": {"PERPLEXITY_API_KEY": "${PERPLEXITY_KEY}"}}),
    );
    assert!(
        warnings(p).contains("set the environment variable PERPLEXITY_KEY"),
        "{p:#}"
    );
    assert_fields(
        server(&r, "github"),
        json!({"transport": "http", "url": "https://api.githubcopilot.com/mcp/"}),
    );
    let project = w.project.to_str().unwrap();
    assert_fields(
        server(&r, "fetch"),
        json!({"cwd": project, "args": ["mcp-server-fetch"]}),
    );
    assert_fields(
        server(&r, "notes"),
        json!({"args": [format!("{project}/tools/notes.js"), "--home", "${HOME}"],
               "env": {"LEVEL": "${NOTES_LEVEL}"}}),
    );
}

#[test]
fn cursor_remote_without_type_and_secrets_in_clear() {
    let w = World::new(&["cursor"]);
    let r = w.json(&["--from", "cursor", "--dry-run"], 0);
    assert_eq!(names(&r), ["brave", "docs", "linear", "stripe"]);
    // A URL entry without `type` is an HTTP server (not stdio).
    assert_fields(
        server(&r, "linear"),
        json!({"transport": "http", "url": "https://mcp.linear.app/sse", "command": null}),
    );
    assert_fields(
        server(&r, "docs"),
        json!({"transport": "http", "url": "http://localhost:3000/mcp"}),
    );
    assert_eq!(
        server(&r, "brave")["env"],
        json!({"BRAVE_API_KEY": "${BRAVE_API_KEY}"})
    );
    let stripe = server(&r, "stripe");
    assert_eq!(
        stripe["env"],
        json!({"STRIPE_SECRET_KEY": "sk_test_51abcdef"})
    );
    assert!(
        warnings(stripe).contains("secret written in clear"),
        "{stripe:#}"
    );
}

#[test]
fn windsurf_server_url_and_disabled_tools() {
    let w = World::new(&["windsurf"]);
    let r = w.json(&["--from", "windsurf", "--dry-run"], 0);
    assert_eq!(names(&r), ["brave", "figma", "git"]);
    assert_fields(
        server(&r, "figma"),
        json!({"client": "windsurf", "transport": "http", "url": "https://figma.example.com/mcp",
               "headers": {"Authorization": "Bearer ${FIGMA_TOKEN}"}}),
    );
    assert_fields(
        server(&r, "git"),
        json!({"enabled": false, "deny_tools": ["git_commit", "git_push"],
               "args": ["mcp-server-git", "--repository", "${HOME}/src/app"]}),
    );
}

#[test]
fn zed_old_and_new_shapes() {
    let w = World::new(&["zed"]);
    let r = w.json(&["--from", "zed", "--dry-run"], 0);
    assert_eq!(names(&r), ["legacy", "postgres", "proj-tool", "remote-zed"]);
    assert_fields(
        server(&r, "legacy"),
        json!({"client": "zed", "transport": "stdio", "command": "/usr/local/bin/legacy-mcp",
               "args": ["--stdio"], "env": {"LOG": "1"}, "enabled": true}),
    );
    assert_fields(
        server(&r, "remote-zed"),
        json!({"transport": "http", "url": "https://zed.example.com/mcp",
               "headers": {"X-Team": "editors"}, "enabled": false}),
    );
    assert_eq!(server(&r, "postgres")["command"], "npx");
}

#[test]
fn codex_bearer_token_and_tool_filters() {
    let w = World::new(&["codex"]);
    let r = w.json(&["--from", "codex", "--dry-run"], 0);
    assert_eq!(names(&r), ["docs", "figma", "shell"]);
    assert_fields(
        server(&r, "figma"),
        json!({"client": "codex", "transport": "http", "url": "https://mcp.figma.com/mcp",
               "headers": {"X-Figma-Region": "us-east-1", "X-Org": "${FIGMA_ORG}",
                           "Authorization": "Bearer ${FIGMA_OAUTH_TOKEN}"}}),
    );
    let shell = server(&r, "shell");
    assert_fields(shell, json!({"enabled": false, "deny_tools": ["rm"]}));
    assert!(
        warnings(shell).contains("`enabled_tools` allows only ls, cat"),
        "{shell:#}"
    );
    let docs = server(&r, "docs");
    assert_fields(
        docs,
        json!({"args": ["--port", "4000"], "env": {"API_KEY": "plain-text-key"}}),
    );
    assert!(warnings(docs).contains("secret written in clear"));

    // $CODEX_HOME moves the file.
    let moved = w.home.join("codex-elsewhere");
    fs::create_dir_all(&moved).unwrap();
    fs::write(
        moved.join("config.toml"),
        "[mcp_servers.moved]\ncommand = \"m\"\n",
    )
    .unwrap();
    let out = Command::new(env!("CARGO_BIN_EXE_mcpdeck"))
        .arg("--config")
        .arg(&w.config)
        .args(["import", "--from", "codex", "--json", "--dry-run"])
        .current_dir(&w.project)
        .env("HOME", &w.home)
        .env("CODEX_HOME", &moved)
        .output()
        .unwrap();
    let r: Value = serde_json::from_slice(&out.stdout).unwrap();
    assert_eq!(names(&r), ["moved"]);
}

#[test]
fn gemini_url_kinds_variables_and_filters() {
    let w = World::new(&["gemini"]);
    let r = w.json(&["--from", "gemini", "--dry-run"], 0);
    assert_eq!(
        names(&r),
        [
            "fetch",
            "httpServer",
            "pythonTools",
            "sseServer",
            "typedHttp"
        ]
    );
    assert_fields(
        server(&r, "pythonTools"),
        json!({"client": "gemini", "cwd": "./mcp-servers/python",
               "env": {"DATABASE_URL": "${DB_CONNECTION_STRING}", "API_KEY": "${EXTERNAL_API_KEY}"},
               "deny_tools": ["delete_all"]}),
    );
    assert!(warnings(server(&r, "pythonTools")).contains("\"./mcp-servers/python\" is relative"));
    assert_eq!(server(&r, "httpServer")["transport"], "http");
    assert_eq!(server(&r, "sseServer")["transport"], "sse");
    let typed = server(&r, "typedHttp");
    assert_eq!(typed["transport"], "http");
    assert!(warnings(typed).contains("`includeTools` allows only search"));
}

const EVERY_CLIENT: [&str; 8] = [
    "claude-desktop",
    "claude-code",
    "vscode",
    "cursor",
    "windsurf",
    "zed",
    "codex",
    "gemini",
];

#[test]
fn all_under_a_fresh_home_then_nothing_more() {
    let w = World::new(&EVERY_CLIENT);
    let r = w.json(&["--all"], 0);
    assert_eq!(r["errors"], json!([]), "{r:#}");
    let mut expected = vec![
        // claude-desktop
        "filesystem",
        "sqlite",
        // claude-code
        "sentry",
        "local-db",
        "airtable",
        "events",
        // vscode
        "perplexity",
        "github",
        "fetch",
        "notes",
        "memory",
        "playwright",
        // cursor (brave is the same in Windsurf: imported once)
        "linear",
        "brave",
        "stripe",
        "docs",
        // windsurf
        "figma",
        "git",
        // zed
        "postgres",
        "remote-zed",
        "legacy",
        "proj-tool",
        // codex: docs and figma clash with Cursor's and Windsurf's
        "docs-2",
        "figma-2",
        "shell",
        // gemini: fetch clashes with VS Code's
        "pythonTools",
        "httpServer",
        "sseServer",
        "typedHttp",
        "fetch-2",
    ];
    expected.sort();
    assert_eq!(names(&r), expected);
    assert!(warnings(server(&r, "fetch-2")).contains("imported as \"fetch-2\""));
    // Every client appears.
    for client in EVERY_CLIENT {
        assert!(
            r["servers"]
                .as_array()
                .unwrap()
                .iter()
                .any(|s| s["client"] == client),
            "{client} missing"
        );
    }
    let written = w.config_text();
    assert!(written.contains("# imported from Zed: "), "{written}");
    assert!(written.contains("[servers.fetch-2]"), "{written}");

    // A second run adds nothing and leaves the file byte for byte.
    let again = w.json(&["--all"], 0);
    assert_eq!(again["servers"], json!([]), "{again:#}");
    assert_eq!(w.config_text(), written);
    let (code, stdout, _) = w.run(&["--all"]);
    assert_eq!(code, 0);
    // 30 servers, and Windsurf's copy of Cursor's brave.
    assert!(
        stdout.contains("Nothing new to import (31 already there)."),
        "{stdout}"
    );
    assert_eq!(w.config_text(), written);
}

const USER_CONFIG: &str = "\
# My mcpdeck servers.
[settings]
request_timeout = 30 # seconds

# the GitHub server I use at work
[servers.github]
command = \"gh-mcp\"   # local build
";

#[test]
fn conflicts_rename_skip_replace() {
    let w = World::new(&["vscode"]);
    fs::create_dir_all(w.config.parent().unwrap()).unwrap();

    fs::write(&w.config, USER_CONFIG).unwrap();
    let r = w.json(&["--from", "vscode"], 0);
    assert!(names(&r).contains(&"github-2".to_owned()));
    let text = w.config_text();
    assert!(text.starts_with(USER_CONFIG), "{text}");
    assert!(text.contains("[servers.github-2]\nurl = \"https://api.githubcopilot.com/mcp/\""));
    // Idempotent with a renamed server too.
    let again = w.json(&["--from", "vscode"], 0);
    assert_eq!(again["servers"], json!([]));

    fs::write(&w.config, USER_CONFIG).unwrap();
    let r = w.json(&["--from", "vscode", "--on-conflict", "skip"], 0);
    assert!(!names(&r).iter().any(|n| n.starts_with("github")), "{r:#}");
    let text = w.config_text();
    assert!(text.contains("command = \"gh-mcp\"   # local build"));
    assert!(!text.contains("githubcopilot"));

    fs::write(&w.config, USER_CONFIG).unwrap();
    let r = w.json(&["--from", "vscode", "--on-conflict", "replace"], 0);
    assert!(names(&r).contains(&"github".to_owned()));
    let text = w.config_text();
    assert!(!text.contains("gh-mcp"), "{text}");
    assert!(text.contains("# imported from VS Code: "));
    assert!(
        text.starts_with("# My mcpdeck servers.\n[settings]\nrequest_timeout = 30 # seconds\n")
    );
    assert_eq!(text.matches("[servers.github]").count(), 1);
}

#[test]
fn written_toml_keeps_comments_and_names_sources() {
    let w = World::new(&["codex"]);
    fs::create_dir_all(w.config.parent().unwrap()).unwrap();
    fs::write(&w.config, USER_CONFIG).unwrap();
    let (code, stdout, stderr) = w.run(&["--from", "codex", "--dry-run"]);
    assert_eq!(code, 0, "{stdout}{stderr}");
    assert!(stdout.contains("Would import 3 servers into"), "{stdout}");
    assert_eq!(w.config_text(), USER_CONFIG);
    let (code, stdout, stderr) = w.run(&["--from", "codex"]);
    assert_eq!(code, 0, "{stdout}{stderr}");
    let source = w.home.join(".codex/config.toml");
    assert!(
        stdout.starts_with(&format!(
            "+ docs (Codex CLI: {})\n    warning: `API_KEY` holds a secret written in clear",
            source.display()
        )),
        "{stdout}"
    );
    assert!(stdout.contains("\nImported 3 servers into "), "{stdout}");
    let text = w.config_text();
    let expected = format!(
        "{USER_CONFIG}\n# imported from Codex CLI: {s}\n[servers.docs]\ncommand = \"docs-server\"\nargs = [\"--port\", \"4000\"]\nenv = {{ API_KEY = \"plain-text-key\" }}\ntimeout = 45\n\n# imported from Codex CLI: {s}\n[servers.figma]\nurl = \"https://mcp.figma.com/mcp\"\nheaders = {{ X-Figma-Region = \"us-east-1\", X-Org = \"${{FIGMA_ORG}}\", Authorization = \"Bearer ${{FIGMA_OAUTH_TOKEN}}\" }}\ntransport = \"http\"\n\n# imported from Codex CLI: {s}\n[servers.shell]\ncommand = \"shell-mcp\"\nenabled = false\ndeny_tools = [\"rm\"]\n",
        s = source.display()
    );
    assert_eq!(text, expected);
    // Another client's file is never modified.
    assert_eq!(
        fs::read_to_string(&source).unwrap(),
        fs::read_to_string(Path::new(FIXTURES).join("codex/home/.codex/config.toml")).unwrap()
    );
}

#[test]
fn registry_server_json_examples() {
    let w = World::new(&[]);
    let dir = Path::new(FIXTURES).join("registry");

    let r = w.json(
        &[
            dir.join("with-package/server.json").to_str().unwrap(),
            "--dry-run",
        ],
        0,
    );
    let s = server(&r, "local-weather");
    assert_fields(
        s,
        json!({"client": "registry", "transport": "stdio", "command": "npx",
               "args": ["-y", "@modelcontextprotocol/server-weather@1.0.0", "${CONFIG_PATH}", "--port", "8080"],
               "env": {"API_KEY": "${API_KEY}"}}),
    );
    assert!(warnings(s).contains("set the environment variable API_KEY"));
    assert!(warnings(s).contains("set the environment variable CONFIG_PATH"));

    let r = w.json(
        &[
            dir.join("with-remote/server.json").to_str().unwrap(),
            "--dry-run",
        ],
        0,
    );
    let s = server(&r, "remote-weather");
    assert_fields(
        s,
        json!({"transport": "http", "url": "https://api.example.com/mcp",
               "headers": {"Authorization": "${AUTHORIZATION}"}}),
    );
    assert!(warnings(s).contains("AUTHORIZATION"));

    let r = w.json(
        &[
            dir.join("filesystem/server.json").to_str().unwrap(),
            "--dry-run",
        ],
        0,
    );
    assert_fields(
        server(&r, "filesystem"),
        json!({"command": "npx",
               "args": ["-y", "@modelcontextprotocol/server-filesystem@1.0.2", "/Users/username/Desktop"],
               "env": {"LOG_LEVEL": "${LOG_LEVEL:-info}"}}),
    );
    let oci = server(&r, "filesystem-oci");
    assert_fields(
        oci,
        json!({"command": "docker",
               "args": ["run", "-i", "--rm", "-e", "LOG_LEVEL", "--mount",
                        "type=bind,src=${SOURCE_PATH},dst=/project", "mcp/filesystem:1.0.2", "/project"]}),
    );
    assert!(warnings(oci).contains("SOURCE_PATH"));

    let r = w.json(&[dir.join("weather-pypi/server.json").to_str().unwrap()], 0);
    assert_fields(
        server(&r, "weather-mcp"),
        json!({"command": "uvx", "args": ["weather-mcp-server==0.5.0"],
               "env": {"WEATHER_API_KEY": "${WEATHER_API_KEY}", "WEATHER_UNITS": "${WEATHER_UNITS:-celsius}"}}),
    );
    // A package type import cannot run yet is a clear error, not a guess.
    let nuget = dir.join("nuget/server.json");
    let r = w.json(&[nuget.to_str().unwrap()], 0);
    assert_eq!(r["servers"], json!([]));
    assert_eq!(
        r["errors"],
        json!([{"client": "registry", "path": nuget.to_str().unwrap(),
                "message": "server \"knapcode-samplemcpserver\": packages of type \"nuget\" cannot be imported yet (npm, pypi and oci can); add its command by hand"}])
    );
    // The written file loads: references stay references.
    let text = w.config_text();
    assert!(
        text.contains("WEATHER_API_KEY = \"${WEATHER_API_KEY}\""),
        "{text}"
    );
}

#[test]
fn parse_error_with_path_writes_nothing_and_exits_2() {
    let w = World::new(&[]);
    fs::create_dir_all(w.config.parent().unwrap()).unwrap();
    fs::write(&w.config, USER_CONFIG).unwrap();
    let bad = Path::new(FIXTURES).join("bad/parse-error.json");
    let (code, stdout, stderr) = w.run(&[bad.to_str().unwrap()]);
    assert_eq!(code, 2, "{stdout}{stderr}");
    assert!(
        stderr.contains(&format!(
            "{}:3:28: invalid JSON: Expected comma",
            bad.display()
        )),
        "{stderr}"
    );
    assert!(stderr.contains("nothing was imported"), "{stderr}");
    assert_eq!(stderr.matches("invalid JSON").count(), 1, "{stderr}");
    assert_eq!(w.config_text(), USER_CONFIG);
}

#[test]
fn parse_error_with_all_imports_the_rest() {
    let w = World::new(&["cursor"]);
    let zed = w.home.join(".config/zed");
    fs::create_dir_all(&zed).unwrap();
    fs::write(
        zed.join("settings.json"),
        "{\n  \"context_servers\": {\n    \"x\": [1,\n}\n",
    )
    .unwrap();
    let r = w.json(&["--all"], 0);
    assert_eq!(names(&r), ["brave", "docs", "linear", "stripe"]);
    let errors = r["errors"].as_array().unwrap();
    assert_eq!(errors.len(), 1, "{r:#}");
    assert_eq!(errors[0]["client"], "zed");
    assert_eq!(
        errors[0]["path"],
        zed.join("settings.json").to_str().unwrap()
    );
    let message = errors[0]["message"].as_str().unwrap();
    assert!(
        message.starts_with(&format!(
            "{}:4:1: invalid JSON: ",
            zed.join("settings.json").display()
        )),
        "{message}"
    );
    assert!(w.config_text().contains("[servers.linear]"));
}

#[test]
fn bad_entries_are_listed_and_the_rest_imported() {
    let w = World::new(&[]);
    let bad = Path::new(FIXTURES).join("bad/entries.json");
    let r = w.json(&[bad.to_str().unwrap()], 0);
    assert_eq!(names(&r), ["good"]);
    let messages: Vec<&str> = r["errors"]
        .as_array()
        .unwrap()
        .iter()
        .map(|e| e["message"].as_str().unwrap())
        .collect();
    assert_eq!(messages.len(), 2, "{messages:?}");
    assert!(
        messages[0].starts_with("server \"weird\": unknown type \"websocket\""),
        "{messages:?}"
    );
    assert!(
        messages[1].starts_with("server \"empty\": has neither `command` nor `url`"),
        "{messages:?}"
    );
    assert!(w.config_text().contains("[servers.good]"));
}

#[test]
fn unusable_names_get_a_suggestion() {
    let w = World::new(&[]);
    let file = w.project.join(".mcp.json");
    fs::write(
        &file,
        r#"{"mcpServers": {"my__server": {"command": "a"}, "with space": {"command": "b"}}}"#,
    )
    .unwrap();
    let r = w.json(&[file.to_str().unwrap()], 0);
    assert_eq!(names(&r), ["my_server", "with-space"]);
    assert!(warnings(server(&r, "my_server")).contains("the name \"my__server\" cannot be used"));
}

#[cfg(unix)]
#[test]
fn symlink_loop_big_and_unreadable_files() {
    let w = World::new(&["gemini"]);
    // A loop where Cursor's file should be.
    let cursor = w.home.join(".cursor");
    fs::create_dir_all(&cursor).unwrap();
    std::os::unix::fs::symlink(cursor.join("b.json"), cursor.join("mcp.json")).unwrap();
    std::os::unix::fs::symlink(cursor.join("mcp.json"), cursor.join("b.json")).unwrap();
    // A file over 10 MB for Windsurf.
    let windsurf = w.home.join(".codeium/windsurf");
    fs::create_dir_all(&windsurf).unwrap();
    let mut big = String::from("{\"mcpServers\": {}, \"pad\": \"");
    big.push_str(&"x".repeat(10 * 1024 * 1024 + 10));
    big.push_str("\"}");
    fs::write(windsurf.join("mcp_config.json"), big).unwrap();
    // Codex's file is a directory: it cannot be read as a file.
    fs::create_dir_all(w.home.join(".codex/config.toml")).unwrap();

    let r = w.json(&["--all"], 0);
    assert_eq!(
        names(&r),
        [
            "fetch",
            "httpServer",
            "pythonTools",
            "sseServer",
            "typedHttp"
        ]
    );
    let errors: Vec<(String, String)> = r["errors"]
        .as_array()
        .unwrap()
        .iter()
        .map(|e| {
            (
                e["client"].as_str().unwrap().to_owned(),
                e["message"].as_str().unwrap().to_owned(),
            )
        })
        .collect();
    assert_eq!(errors.len(), 3, "{errors:?}");
    assert_eq!(errors[0].0, "cursor");
    assert!(errors[0].1.contains("a symbolic link loop"), "{errors:?}");
    assert_eq!(errors[1].0, "windsurf");
    assert!(
        errors[1].1.contains("over the 10 MB import limit"),
        "{errors:?}"
    );
    assert_eq!(errors[2].0, "codex");
    assert!(errors[2].1.contains("is a directory"), "{errors:?}");

    // A file without read permission (root reads everything, so only
    // checked for other users).
    if unsafe { libc::geteuid() } != 0 {
        use std::os::unix::fs::PermissionsExt;
        let file = w.project.join("locked.json");
        fs::write(&file, "{}").unwrap();
        fs::set_permissions(&file, fs::Permissions::from_mode(0o000)).unwrap();
        let (code, _, stderr) = w.run(&[file.to_str().unwrap()]);
        assert_eq!(code, 2);
        assert!(stderr.contains("permission denied"), "{stderr}");
    }
}

#[test]
fn an_invalid_config_is_left_byte_identical() {
    let w = World::new(&["cursor"]);
    fs::create_dir_all(w.config.parent().unwrap()).unwrap();
    let broken = "# mine\n[servers.a]\ncomand = \"x\"\n";
    fs::write(&w.config, broken).unwrap();
    let (code, _, stderr) = w.run(&["--all"]);
    assert_eq!(code, 2);
    assert!(stderr.contains("unknown key `comand`"), "{stderr}");
    assert_eq!(w.config_text(), broken);
}

#[test]
fn from_needs_a_known_client_and_one_source() {
    let w = World::new(&[]);
    let (code, _, stderr) = w.run(&["--from", "notepad"]);
    assert_eq!(code, 2);
    assert!(stderr.contains("claude-desktop"), "{stderr}");
    let (code, _, _) = w.run(&[]);
    assert_eq!(code, 2);
}

#[test]
fn a_failed_write_imports_nothing() {
    let w = World::new(&["cursor"]);
    // The config's folder is a file: the write fails.
    let blocker = w.home.join("not-a-dir");
    fs::write(&blocker, "").unwrap();
    let out = Command::new(env!("CARGO_BIN_EXE_mcpdeck"))
        .arg("--config")
        .arg(blocker.join("config.toml"))
        .args(["import", "--all", "--json"])
        .current_dir(&w.project)
        .env("HOME", &w.home)
        .env("XDG_CONFIG_HOME", w.home.join(".config"))
        .output()
        .unwrap();
    assert_eq!(out.status.code(), Some(2));
    let r: Value = serde_json::from_slice(&out.stdout).unwrap();
    assert_eq!(r["servers"], json!([]));
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert!(
        stderr.contains("nothing was imported; the config is as it was"),
        "{stderr}"
    );
    assert_eq!(fs::read_to_string(&blocker).unwrap(), "");
}
