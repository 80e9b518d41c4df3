//! `mcpdeck export`: each client's shape on stdout, and `--write` merging
//! into the client's file (comments and unrelated keys kept byte for
//! byte, a backup kept). Every run has a throw-away HOME and XDG dirs.

use std::fs;
use std::path::{Path, PathBuf};
use std::process::{Command, Stdio};

use serde_json::{Value, json};

const CONFIG: &str = r#"# mcpdeck's own config
[servers.files]
command = "node"
args = ["${HOME}/srv/files.js", "--root", "/data"]
env = { GITHUB_TOKEN = "${GITHUB_TOKEN}", LEVEL = "info" }
cwd = "/srv"
deny_tools = ["delete_file", "move_file"]

[servers.remote]
url = "https://example.com/mcp"
headers = { Authorization = "Bearer ${API_TOKEN}", X-Team = "core" }

[servers.legacy]
url = "https://example.com/sse"
transport = "sse"

[servers.off]
command = "python3"
args = ["-m", "off"]
enabled = false
"#;

struct Env {
    dir: tempfile::TempDir,
}

struct Run {
    code: i32,
    stdout: String,
    stderr: String,
}

impl Env {
    fn new() -> Env {
        let dir = tempfile::tempdir().unwrap();
        for d in ["home", "xdg-config", "xdg-data", "xdg-state"] {
            fs::create_dir_all(dir.path().join(d)).unwrap();
        }
        fs::write(dir.path().join("config.toml"), CONFIG).unwrap();
        Env { dir }
    }

    fn home(&self) -> PathBuf {
        self.dir.path().join("home")
    }

    fn xdg(&self) -> PathBuf {
        self.dir.path().join("xdg-config")
    }

    fn run_with(&self, args: &[&str], extra: &[(&str, &Path)]) -> Run {
        let mut cmd = Command::new(env!("CARGO_BIN_EXE_mcpdeck"));
        cmd.arg("--config")
            .arg(self.dir.path().join("config.toml"))
            .args(args)
            .env("HOME", self.home())
            .env("XDG_CONFIG_HOME", self.xdg())
            .env("XDG_DATA_HOME", self.dir.path().join("xdg-data"))
            .env("XDG_STATE_HOME", self.dir.path().join("xdg-state"))
            .env("GITHUB_TOKEN", "not-a-secret")
            .env("API_TOKEN", "not-a-secret")
            .env_remove("CLAUDE_CONFIG_DIR")
            .env_remove("CODEX_HOME")
            .env_remove("MCPDECK_CONFIG")
            .stdin(Stdio::null());
        for (k, v) in extra {
            cmd.env(k, v);
        }
        let out = cmd.output().unwrap();
        Run {
            code: out.status.code().unwrap_or(-1),
            stdout: String::from_utf8_lossy(&out.stdout).into_owned(),
            stderr: String::from_utf8_lossy(&out.stderr).into_owned(),
        }
    }

    fn run(&self, args: &[&str]) -> Run {
        self.run_with(args, &[])
    }
}

fn json_of(run: &Run) -> Value {
    assert_eq!(run.code, 0, "stderr: {}", run.stderr);
    serde_json::from_str(&run.stdout).unwrap_or_else(|e| panic!("{e}: {}", run.stdout))
}

/// The parsed value of a JSON-with-comments text.
fn jsonc(text: &str) -> Value {
    jsonc_parser::cst::CstRootNode::parse(text, &jsonc_parser::ParseOptions::default())
        .unwrap()
        .to_serde_value()
        .unwrap()
}

/// The object's keys, in order.
fn keys(v: &Value) -> Vec<&str> {
    v.as_object()
        .unwrap_or_else(|| panic!("not an object: {v}"))
        .keys()
        .map(String::as_str)
        .collect()
}

/// The backups of `file` next to it.
fn backups(file: &Path) -> Vec<PathBuf> {
    let name = file.file_name().unwrap().to_string_lossy().into_owned();
    let mut found: Vec<PathBuf> = fs::read_dir(file.parent().unwrap())
        .unwrap()
        .map(|e| e.unwrap().path())
        .filter(|p| {
            p.file_name()
                .unwrap()
                .to_string_lossy()
                .starts_with(&format!("{name}.mcpdeck-backup-"))
        })
        .collect();
    found.sort();
    found
}

#[test]
fn claude_desktop_gets_stdio_only_without_variables_expanded() {
    let env = Env::new();
    let run = env.run(&["export", "--to", "claude-desktop"]);
    let v = json_of(&run);
    assert_eq!(keys(&v), ["mcpServers"]);
    let servers = &v["mcpServers"];
    assert_eq!(keys(servers), ["files"]);
    let files = &servers["files"];
    assert_eq!(keys(files), ["command", "args", "env"]);
    assert_eq!(files["command"], "node");
    assert_eq!(
        files["args"],
        json!(["${HOME}/srv/files.js", "--root", "/data"])
    );
    assert_eq!(
        files["env"],
        json!({"GITHUB_TOKEN": "${GITHUB_TOKEN}", "LEVEL": "info"})
    );
    for said in [
        "remote: skipped: Claude Desktop's file has no remote (HTTP) servers",
        "legacy: skipped",
        "off: skipped: it is disabled",
        "does not expand variables: `${GITHUB_TOKEN}`",
        "deny_tools (delete_file, move_file) is not carried",
        "`cwd` is not carried",
    ] {
        assert!(run.stderr.contains(said), "{said:?} in {}", run.stderr);
    }
}

#[test]
fn claude_code_has_types_and_deny_rules() {
    let env = Env::new();
    let run = env.run(&["export", "--to", "claude-code"]);
    let v = json_of(&run);
    let servers = &v["mcpServers"];
    assert_eq!(keys(servers), ["files", "remote", "legacy"]);
    assert_eq!(keys(&servers["files"]), ["type", "command", "args", "env"]);
    assert_eq!(servers["files"]["type"], "stdio");
    assert_eq!(servers["files"]["args"][0], "${HOME}/srv/files.js");
    assert_eq!(servers["files"]["env"]["GITHUB_TOKEN"], "${GITHUB_TOKEN}");
    assert_eq!(
        servers["remote"],
        json!({"type": "http", "url": "https://example.com/mcp",
               "headers": {"Authorization": "Bearer ${API_TOKEN}", "X-Team": "core"}})
    );
    assert_eq!(
        servers["legacy"],
        json!({"type": "sse", "url": "https://example.com/sse"})
    );
    assert!(
        run.stderr
            .contains("mcp__files__delete_file, mcp__files__move_file"),
        "{}",
        run.stderr
    );
}

#[test]
fn vscode_uses_servers_env_colon_and_cwd() {
    let env = Env::new();
    let v = json_of(&env.run(&["export", "--to", "vscode"]));
    assert_eq!(keys(&v), ["servers"]);
    let servers = &v["servers"];
    assert_eq!(keys(servers), ["files", "remote", "legacy"]);
    let files = &servers["files"];
    assert_eq!(keys(files), ["type", "command", "args", "env", "cwd"]);
    assert_eq!(files["args"][0], "${env:HOME}/srv/files.js");
    assert_eq!(files["env"]["GITHUB_TOKEN"], "${env:GITHUB_TOKEN}");
    assert_eq!(files["cwd"], "/srv");
    assert_eq!(servers["remote"]["type"], "http");
    assert_eq!(
        servers["remote"]["headers"]["Authorization"],
        "Bearer ${env:API_TOKEN}"
    );
    assert_eq!(servers["legacy"]["type"], "sse");
}

#[test]
fn cursor_has_url_entries_without_type() {
    let env = Env::new();
    let v = json_of(&env.run(&["export", "--to", "cursor"]));
    let servers = &v["mcpServers"];
    assert_eq!(keys(servers), ["files", "remote", "legacy"]);
    assert_eq!(keys(&servers["files"]), ["command", "args", "env"]);
    assert_eq!(
        servers["files"]["env"]["GITHUB_TOKEN"],
        "${env:GITHUB_TOKEN}"
    );
    assert_eq!(keys(&servers["remote"]), ["url", "headers"]);
    assert_eq!(keys(&servers["legacy"]), ["url"]);
}

#[test]
fn windsurf_has_server_url_disabled_and_disabled_tools() {
    let env = Env::new();
    let v = json_of(&env.run(&["export", "--to", "windsurf"]));
    let servers = &v["mcpServers"];
    assert_eq!(keys(servers), ["files", "remote", "legacy", "off"]);
    assert_eq!(
        servers["files"]["disabledTools"],
        json!(["delete_file", "move_file"])
    );
    assert_eq!(servers["files"]["args"][0], "${env:HOME}/srv/files.js");
    assert_eq!(keys(&servers["remote"]), ["serverUrl", "headers"]);
    assert_eq!(servers["remote"]["serverUrl"], "https://example.com/mcp");
    assert_eq!(servers["off"]["disabled"], json!(true));
    assert_eq!(servers["off"]["command"], "python3");
}

#[test]
fn zed_uses_context_servers_new_shape() {
    let env = Env::new();
    let run = env.run(&["export", "--to", "zed"]);
    let v = json_of(&run);
    assert_eq!(keys(&v), ["context_servers"]);
    let servers = &v["context_servers"];
    assert_eq!(keys(servers), ["files", "remote", "legacy", "off"]);
    // The new shape: command is a string, not {path, args}.
    assert_eq!(keys(&servers["files"]), ["command", "args", "env"]);
    assert!(servers["files"]["command"].is_string());
    assert_eq!(keys(&servers["remote"]), ["url", "headers"]);
    assert_eq!(servers["off"]["enabled"], json!(false));
    assert!(
        run.stderr.contains("Zed does not expand variables"),
        "{}",
        run.stderr
    );
}

#[test]
fn codex_gets_mcp_servers_tables() {
    let env = Env::new();
    let run = env.run(&["export", "--to", "codex"]);
    assert_eq!(run.code, 0, "{}", run.stderr);
    let doc: toml::Table = run.stdout.parse().unwrap();
    let servers = doc["mcp_servers"].as_table().unwrap();
    let names: Vec<&str> = servers.keys().map(String::as_str).collect();
    assert_eq!(names, ["files", "remote", "off"]);
    assert!(
        run.stdout.contains("[mcp_servers.files]\n"),
        "{}",
        run.stdout
    );
    let files = servers["files"].as_table().unwrap();
    assert_eq!(files["command"].as_str(), Some("node"));
    assert_eq!(files["cwd"].as_str(), Some("/srv"));
    // A variable passed on under its own name is forwarded, not written.
    assert_eq!(
        files["env_vars"],
        toml::Value::Array(vec!["GITHUB_TOKEN".into()])
    );
    assert_eq!(files["env"]["LEVEL"].as_str(), Some("info"));
    assert_eq!(
        files["disabled_tools"],
        toml::Value::Array(vec!["delete_file".into(), "move_file".into()])
    );
    let remote = servers["remote"].as_table().unwrap();
    assert_eq!(remote["url"].as_str(), Some("https://example.com/mcp"));
    assert_eq!(remote["bearer_token_env_var"].as_str(), Some("API_TOKEN"));
    assert_eq!(remote["http_headers"]["X-Team"].as_str(), Some("core"));
    assert!(!remote.contains_key("headers"));
    assert_eq!(servers["off"]["enabled"].as_bool(), Some(false));
    assert!(
        run.stderr.contains("legacy: skipped: Codex CLI has no SSE"),
        "{}",
        run.stderr
    );
}

#[test]
fn gemini_has_http_url_for_streamable_and_url_for_sse() {
    let env = Env::new();
    let v = json_of(&env.run(&["export", "--to", "gemini"]));
    let servers = &v["mcpServers"];
    assert_eq!(keys(servers), ["files", "remote", "legacy"]);
    assert_eq!(
        keys(&servers["files"]),
        ["command", "args", "env", "cwd", "excludeTools"]
    );
    assert_eq!(servers["files"]["args"][0], "${HOME}/srv/files.js");
    assert_eq!(
        servers["files"]["excludeTools"],
        json!(["delete_file", "move_file"])
    );
    assert_eq!(keys(&servers["remote"]), ["httpUrl", "headers"]);
    assert_eq!(keys(&servers["legacy"]), ["url"]);
}

#[test]
fn a_disabled_server_named_is_exported_with_a_warning() {
    let env = Env::new();
    let run = env.run(&["export", "--to", "cursor", "off"]);
    let v = json_of(&run);
    assert_eq!(keys(&v["mcpServers"]), ["off"]);
    assert!(run.stderr.contains("exported enabled"), "{}", run.stderr);
}

const VSCODE_FILE: &str = "// my VS Code servers\n{\n\t\"inputs\": [\n\t\t{ \"type\": \"promptString\", \"id\": \"tok\", \"password\": true }, // the token\n\t],\n\t\"servers\": {\n\t\t/* hand-written */\n\t\t\"mine\": { \"command\": \"mine\", \"args\": [] },\n\t},\n\t\"other\": { \"keep\": [1, 2,], },\n}\n";

#[test]
fn write_into_jsonc_keeps_everything_outside_the_server_table() {
    let env = Env::new();
    let file = env.xdg().join("Code/User/mcp.json");
    fs::create_dir_all(file.parent().unwrap()).unwrap();
    fs::write(&file, VSCODE_FILE).unwrap();
    let run = env.run(&["export", "--to", "vscode", "--write", "files", "remote"]);
    assert_eq!(run.code, 0, "{}", run.stderr);
    let after = fs::read_to_string(&file).unwrap();
    // Everything up to the last existing entry, and from the server
    // table's closing brace on, is unchanged.
    let head_end = VSCODE_FILE.find("\"args\": [] },\n").unwrap() + "\"args\": [] },\n".len();
    let tail_start = VSCODE_FILE.find("\t},\n\t\"other\"").unwrap();
    assert!(
        after.starts_with(&VSCODE_FILE[..head_end]),
        "head changed:\n{after}"
    );
    assert!(
        after.ends_with(&VSCODE_FILE[tail_start..]),
        "tail changed:\n{after}"
    );
    let v = jsonc(&after);
    assert_eq!(keys(&v["servers"]), ["mine", "files", "remote"]);
    assert_eq!(
        v["servers"]["files"]["env"]["GITHUB_TOKEN"],
        "${env:GITHUB_TOKEN}"
    );
    assert_eq!(v["servers"]["remote"]["type"], "http");
    assert_eq!(v["inputs"][0]["id"], "tok");
    // The backup holds the file as it was, and the report names it.
    let found = backups(&file);
    assert_eq!(found.len(), 1, "{found:?}");
    assert_eq!(fs::read_to_string(&found[0]).unwrap(), VSCODE_FILE);
    assert!(
        run.stdout.contains(&found[0].display().to_string()),
        "{}",
        run.stdout
    );
    // Again: nothing to do, nothing written, no second backup.
    let again = env.run(&["export", "--to", "vscode", "--write", "files", "remote"]);
    assert_eq!(again.code, 0, "{}", again.stderr);
    assert!(
        again.stdout.contains("already up to date"),
        "{}",
        again.stdout
    );
    assert_eq!(fs::read_to_string(&file).unwrap(), after);
    assert_eq!(backups(&file).len(), 1);
}

#[test]
fn a_server_defined_differently_is_replaced_only_with_force() {
    let env = Env::new();
    let file = env.home().join(".cursor/mcp.json");
    fs::create_dir_all(file.parent().unwrap()).unwrap();
    let before =
        "{\n  // theirs\n  \"mcpServers\": {\n    \"files\": { \"command\": \"other\" }\n  }\n}\n";
    fs::write(&file, before).unwrap();
    let run = env.run(&["export", "--to", "cursor", "--write"]);
    assert_eq!(run.code, 2, "{}", run.stdout);
    assert!(
        run.stderr.contains("already has \"files\"") && run.stderr.contains("--force"),
        "{}",
        run.stderr
    );
    assert_eq!(fs::read_to_string(&file).unwrap(), before);
    assert!(backups(&file).is_empty());

    let run = env.run(&["export", "--to", "cursor", "--write", "--force"]);
    assert_eq!(run.code, 0, "{}", run.stderr);
    assert!(run.stdout.contains("replaced: files"), "{}", run.stdout);
    let after = fs::read_to_string(&file).unwrap();
    assert!(after.starts_with("{\n  // theirs\n"), "{after}");
    let v = jsonc(&after);
    assert_eq!(v["mcpServers"]["files"]["command"], "node");
    assert_eq!(keys(&v["mcpServers"]), ["files", "remote", "legacy"]);
    assert_eq!(fs::read_to_string(&backups(&file)[0]).unwrap(), before);
}

#[test]
fn write_into_a_missing_file_creates_it_and_its_directory() {
    let env = Env::new();
    let file = env.home().join(".codeium/windsurf/mcp_config.json");
    let run = env.run(&["export", "--to", "windsurf", "--write"]);
    assert_eq!(run.code, 0, "{}", run.stderr);
    assert!(run.stdout.contains("created"), "{}", run.stdout);
    let v: Value = serde_json::from_str(&fs::read_to_string(&file).unwrap()).unwrap();
    assert_eq!(keys(&v), ["mcpServers"]);
    assert_eq!(keys(&v["mcpServers"]), ["files", "remote", "legacy", "off"]);
    assert_eq!(
        v["mcpServers"]["remote"]["serverUrl"],
        "https://example.com/mcp"
    );
    assert!(backups(&file).is_empty());
    #[cfg(unix)]
    {
        use std::os::unix::fs::PermissionsExt;
        let mode = fs::metadata(&file).unwrap().permissions().mode();
        assert_eq!(mode & 0o077, 0, "a new file is private: {mode:o}");
    }
}

const CODEX_FILE: &str = "# Codex settings\nmodel = \"o3\"  # the model\n\n[mcp_servers.keep]\n# hand-written\ncommand = \"keep\"\nargs = [ \"a\",\"b\" ]\n\n[profiles.fast]\nmodel = \"o4-mini\" # quick\n";

#[test]
fn write_into_codex_toml_keeps_comments_and_other_tables() {
    let env = Env::new();
    let codex_home = env.dir.path().join("codex-home");
    fs::create_dir_all(&codex_home).unwrap();
    let file = codex_home.join("config.toml");
    fs::write(&file, CODEX_FILE).unwrap();
    #[cfg(unix)]
    {
        use std::os::unix::fs::PermissionsExt;
        fs::set_permissions(&file, fs::Permissions::from_mode(0o640)).unwrap();
    }
    let run = env.run_with(
        &["export", "--to", "codex", "--write", "remote", "files"],
        &[("CODEX_HOME", &codex_home)],
    );
    assert_eq!(run.code, 0, "{}", run.stderr);
    let after = fs::read_to_string(&file).unwrap();
    let head_end = CODEX_FILE.find("[profiles.fast]").unwrap();
    assert!(after.starts_with(&CODEX_FILE[..head_end]), "{after}");
    assert!(after.ends_with(&CODEX_FILE[head_end..]), "{after}");
    let doc: toml::Table = after.parse().unwrap();
    let servers = doc["mcp_servers"].as_table().unwrap();
    let names: Vec<&str> = servers.keys().map(String::as_str).collect();
    assert_eq!(names, ["keep", "remote", "files"]);
    assert_eq!(
        servers["remote"]["bearer_token_env_var"].as_str(),
        Some("API_TOKEN")
    );
    assert_eq!(doc["profiles"]["fast"]["model"].as_str(), Some("o4-mini"));
    let found = backups(&file);
    assert_eq!(found.len(), 1);
    assert_eq!(fs::read_to_string(&found[0]).unwrap(), CODEX_FILE);
    #[cfg(unix)]
    {
        use std::os::unix::fs::PermissionsExt;
        let mode = fs::metadata(&file).unwrap().permissions().mode();
        assert_eq!(mode & 0o777, 0o640, "permissions kept");
    }
    // The default location is not touched when CODEX_HOME is set.
    assert!(!env.home().join(".codex").exists());
}

#[test]
fn claude_code_deny_rules_go_to_its_settings_file() {
    let env = Env::new();
    let claude = env.home().join(".claude");
    fs::create_dir_all(&claude).unwrap();
    let settings = claude.join("settings.json");
    let before = "{\n  // mine\n  \"model\": \"opus\",\n  \"permissions\": {\n    \"allow\": [\"Bash(ls:*)\"],\n    \"deny\": [\"Bash(rm:*)\", \"mcp__files__delete_file\"]\n  }\n}\n";
    fs::write(&settings, before).unwrap();
    let home_file = env.home().join(".claude.json");
    let home_before =
        "{\n  \"numStartups\": 12,\n  \"projects\": {\"/x\": {\"mcpServers\": {}}}\n}\n";
    fs::write(&home_file, home_before).unwrap();
    let run = env.run(&["export", "--to", "claude-code", "--write", "files"]);
    assert_eq!(run.code, 0, "{}", run.stderr);
    let v = jsonc(&fs::read_to_string(&settings).unwrap());
    assert_eq!(
        v["permissions"]["deny"],
        json!([
            "Bash(rm:*)",
            "mcp__files__delete_file",
            "mcp__files__move_file"
        ])
    );
    assert_eq!(v["permissions"]["allow"], json!(["Bash(ls:*)"]));
    assert_eq!(v["model"], "opus");
    let after = fs::read_to_string(&settings).unwrap();
    assert!(
        after.starts_with("{\n  // mine\n  \"model\": \"opus\",\n"),
        "{after}"
    );
    assert_eq!(fs::read_to_string(&backups(&settings)[0]).unwrap(), before);
    // The servers go to the top-level mcpServers of ~/.claude.json (user
    // scope); the projects are untouched.
    let h = jsonc(&fs::read_to_string(&home_file).unwrap());
    assert_eq!(keys(&h), ["numStartups", "projects", "mcpServers"]);
    assert_eq!(h["mcpServers"]["files"]["type"], "stdio");
    assert_eq!(h["projects"], json!({"/x": {"mcpServers": {}}}));
    assert!(
        run.stdout
            .contains("deny rules added: mcp__files__move_file"),
        "{}",
        run.stdout
    );
}

#[test]
fn claude_config_dir_moves_both_claude_code_files() {
    let env = Env::new();
    let dir = env.dir.path().join("claude-dir");
    let run = env.run_with(
        &["export", "--to", "claude-code", "--write"],
        &[("CLAUDE_CONFIG_DIR", &dir)],
    );
    assert_eq!(run.code, 0, "{}", run.stderr);
    let servers: Value =
        serde_json::from_str(&fs::read_to_string(dir.join(".claude.json")).unwrap()).unwrap();
    assert_eq!(keys(&servers["mcpServers"]), ["files", "remote", "legacy"]);
    let settings: Value =
        serde_json::from_str(&fs::read_to_string(dir.join("settings.json")).unwrap()).unwrap();
    assert_eq!(
        settings["permissions"]["deny"],
        json!(["mcp__files__delete_file", "mcp__files__move_file"])
    );
    assert!(!env.home().join(".claude.json").exists());
}

#[test]
fn an_unknown_client_is_a_usage_error_listing_the_clients() {
    let env = Env::new();
    let run = env.run(&["export", "--to", "vs-code"]);
    assert_eq!(run.code, 2);
    assert!(run.stdout.is_empty());
    for name in [
        "claude-desktop",
        "claude-code",
        "vscode",
        "cursor",
        "windsurf",
        "zed",
        "codex",
        "gemini",
    ] {
        assert!(run.stderr.contains(name), "{name} in {}", run.stderr);
    }
    assert!(
        run.stderr.contains("did you mean \"vscode\""),
        "{}",
        run.stderr
    );
}

#[test]
fn an_unknown_server_is_a_usage_error_with_a_suggestion() {
    let env = Env::new();
    let run = env.run(&["export", "--to", "cursor", "--write", "remot"]);
    assert_eq!(run.code, 2);
    assert!(
        run.stderr.contains("unknown server \"remot\""),
        "{}",
        run.stderr
    );
    assert!(
        run.stderr.contains("did you mean \"remote\""),
        "{}",
        run.stderr
    );
    assert!(!env.home().join(".cursor").exists(), "nothing written");
}

#[test]
fn a_file_that_does_not_parse_is_left_alone() {
    let env = Env::new();
    let file = env.home().join(".gemini/settings.json");
    fs::create_dir_all(file.parent().unwrap()).unwrap();
    let before = "{\n  \"theme\": \"x\",\n  \"mcpServers\": { \"a\": ]\n}\n";
    fs::write(&file, before).unwrap();
    let run = env.run(&["export", "--to", "gemini", "--write"]);
    assert_eq!(run.code, 2, "{}", run.stdout);
    assert!(
        run.stderr.contains(&file.display().to_string()) && run.stderr.contains("line 3"),
        "{}",
        run.stderr
    );
    assert_eq!(fs::read_to_string(&file).unwrap(), before);
    assert!(backups(&file).is_empty());
}

#[test]
fn zed_settings_get_a_context_servers_key_and_keep_the_rest() {
    let env = Env::new();
    let file = env.xdg().join("zed/settings.json");
    fs::create_dir_all(file.parent().unwrap()).unwrap();
    let before = "// Zed settings\n{\n  \"theme\": \"One Dark\",\n  \"buffer_font_size\": 15, // big\n  \"vim_mode\": true\n}\n";
    fs::write(&file, before).unwrap();
    let run = env.run(&["export", "--to", "zed", "--write", "remote", "off"]);
    assert_eq!(run.code, 0, "{}", run.stderr);
    let after = fs::read_to_string(&file).unwrap();
    let head = "// Zed settings\n{\n  \"theme\": \"One Dark\",\n  \"buffer_font_size\": 15, // big\n  \"vim_mode\": true";
    assert!(after.starts_with(head), "{after}");
    assert!(after.ends_with("}\n"), "{after}");
    let v = jsonc(&after);
    assert_eq!(
        keys(&v),
        ["theme", "buffer_font_size", "vim_mode", "context_servers"]
    );
    assert_eq!(keys(&v["context_servers"]), ["remote", "off"]);
    assert_eq!(v["context_servers"]["off"]["enabled"], json!(false));
    assert_eq!(fs::read_to_string(&backups(&file)[0]).unwrap(), before);
}

#[test]
fn export_needs_no_variable_to_be_set() {
    let env = Env::new();
    let mut cmd = Command::new(env!("CARGO_BIN_EXE_mcpdeck"));
    let out = cmd
        .arg("--config")
        .arg(env.dir.path().join("config.toml"))
        .args(["export", "--to", "cursor"])
        .env("HOME", env.home())
        .env("XDG_CONFIG_HOME", env.xdg())
        .env_remove("GITHUB_TOKEN")
        .env_remove("API_TOKEN")
        .env_remove("MCPDECK_CONFIG")
        .stdin(Stdio::null())
        .output()
        .unwrap();
    assert_eq!(
        out.status.code(),
        Some(0),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    let v: Value = serde_json::from_slice(&out.stdout).unwrap();
    assert_eq!(
        v["mcpServers"]["files"]["env"]["GITHUB_TOKEN"],
        "${env:GITHUB_TOKEN}"
    );
}

#[test]
fn via_serve_runs_mcpdeck_serve_for_each_server_and_carries_no_secret() {
    let env = Env::new();
    let config = env.dir.path().join("config.toml");
    let exe = Path::new(env!("CARGO_BIN_EXE_mcpdeck"));
    let serve = |name: &str| json!(["serve", "--config", config.display().to_string(), name]);
    // Claude Code: every server (HTTP ones too, and the disabled one, which
    // `serve` shows once it is enabled) becomes a stdio entry running serve.
    let run = env.run(&["export", "--to", "claude-code", "--via-serve"]);
    let v = json_of(&run);
    let servers = &v["mcpServers"];
    assert_eq!(keys(servers), ["files", "remote", "legacy", "off"]);
    for name in ["files", "remote", "legacy", "off"] {
        let entry = &servers[name];
        assert_eq!(keys(entry), ["type", "command", "args"], "{name}: {entry}");
        assert_eq!(entry["type"], "stdio");
        assert_eq!(entry["command"], exe.display().to_string());
        assert_eq!(entry["args"], serve(name));
    }
    // Nothing of the servers' own: no env, no headers, no URL, and the deny
    // lists are enforced by serve, not turned into permission rules.
    for absent in ["GITHUB_TOKEN", "API_TOKEN", "example.com", "files.js"] {
        assert!(!run.stdout.contains(absent), "{absent} in {}", run.stdout);
    }
    assert!(
        !run.stderr.contains("mcp__files__delete_file"),
        "{}",
        run.stderr
    );

    // VS Code and Cursor, for the servers named.
    let v = json_of(&env.run(&["export", "--to", "vscode", "--via-serve", "files"]));
    assert_eq!(keys(&v["servers"]), ["files"]);
    assert_eq!(v["servers"]["files"]["command"], exe.display().to_string());
    assert_eq!(v["servers"]["files"]["args"], serve("files"));
    let v = json_of(&env.run(&["export", "--to", "cursor", "--via-serve", "remote"]));
    assert_eq!(v["mcpServers"]["remote"]["args"], serve("remote"));

    // --write merges the entries into the client's file like any export.
    let run = env.run(&["export", "--to", "cursor", "--via-serve", "--write"]);
    assert_eq!(run.code, 0, "{}", run.stderr);
    let written = fs::read_to_string(env.home().join(".cursor/mcp.json")).unwrap();
    let v = jsonc(&written);
    assert_eq!(v["mcpServers"]["files"]["args"], serve("files"));
}

#[test]
fn via_serve_needs_a_config_file() {
    let env = Env::new();
    // No --config, and no file at the default place (an empty XDG dir).
    let mut cmd = Command::new(env!("CARGO_BIN_EXE_mcpdeck"));
    let out = cmd
        .args(["export", "--to", "cursor", "--via-serve"])
        .env_remove("MCPDECK_CONFIG")
        .env("HOME", env.home())
        .env("XDG_CONFIG_HOME", env.xdg())
        .stdin(Stdio::null())
        .output()
        .unwrap();
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert_eq!(out.status.code(), Some(2), "{stderr}");
    assert!(
        stderr.contains("--via-serve needs a config file"),
        "{stderr}"
    );
}

#[test]
fn deny_patterns_and_allow_lists_are_carried_only_as_exact_names() {
    let env = Env::new();
    fs::write(
        env.dir.path().join("config.toml"),
        "[servers.fs]\ncommand = \"node\"\ndeny_tools = [\"delete_*\", \"move_file\"]\nallow_tools = [\"read_*\"]\n\n[servers.git]\ncommand = \"git-mcp\"\nallow_tools = [\"status\", \"log\"]\n",
    )
    .unwrap();
    let run = env.run(&["export", "--to", "claude-code"]);
    json_of(&run);
    assert!(run.stderr.contains("mcp__fs__move_file"), "{}", run.stderr);
    assert!(!run.stderr.contains("mcp__fs__delete_"), "{}", run.stderr);
    for said in [
        "the deny_tools patterns \"delete_*\" are not carried (export with --via-serve",
        "allow_tools (read_*) is not carried",
        "allow_tools (status, log) is not carried",
    ] {
        assert!(run.stderr.contains(said), "{said:?} in {}", run.stderr);
    }
    // Gemini has an allow list of exact names.
    let run = env.run(&["export", "--to", "gemini"]);
    let v = json_of(&run);
    assert_eq!(v["mcpServers"]["fs"]["excludeTools"], json!(["move_file"]));
    assert!(v["mcpServers"]["fs"].get("includeTools").is_none());
    assert_eq!(
        v["mcpServers"]["git"]["includeTools"],
        json!(["status", "log"])
    );
    assert!(
        run.stderr.contains("allow_tools (read_*) is not carried"),
        "{}",
        run.stderr
    );
}
