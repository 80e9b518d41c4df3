//! Named secrets: `mcpdeck secret set|get|rm|list` on the file store, and
//! `${secret:NAME}` in a config, put in when the server connects: a stdio
//! server gets it in its environment and arguments, an HTTP server in a
//! header it checks; the value never shows in `--trace`, a recording or
//! `config check`; a missing one names its place and the fix; `import
//! --move-secrets` moves secrets written in clear into the store.

mod common;

use std::path::{Path, PathBuf};
use std::process::{Command, Stdio};

use common::{Run, fake_http, limit, mcpdeck_bin, run_limited, server_script, write_file};
use serde_json::Value;

/// A home of its own: the config (with `credentials = "file"`), the data
/// directory the store is in, and what the commands read on stdin.
struct Home {
    dir: tempfile::TempDir,
}

impl Home {
    fn new(servers: &str) -> Home {
        let dir = tempfile::tempdir().unwrap();
        let home = Home { dir };
        home.config(servers);
        home
    }

    fn config(&self, servers: &str) -> PathBuf {
        write_file(
            self.dir.path(),
            "config.toml",
            &format!("[settings]\ncredentials = \"file\"\n\n{servers}"),
        )
    }

    fn config_path(&self) -> PathBuf {
        self.dir.path().join("config.toml")
    }

    fn store_dir(&self) -> PathBuf {
        self.dir.path().join("data").join("mcpdeck")
    }

    /// mcpdeck `args` with this home, `stdin` on its stdin (none: empty).
    fn run_in(&self, cwd: &Path, args: &[&str], stdin: Option<&str>) -> Run {
        let mut cmd = Command::new(mcpdeck_bin());
        cmd.args(args)
            .current_dir(cwd)
            .env("MCPDECK_CONFIG", self.config_path())
            .env("HOME", self.dir.path())
            .env("XDG_DATA_HOME", self.dir.path().join("data"))
            .env("XDG_CONFIG_HOME", self.dir.path().join("xdg-config"))
            .env("XDG_STATE_HOME", self.dir.path().join("state"))
            .env("MCPDECK_ERA_MEMORY", "off")
            .env("MCPDECK_HISTORY", "off")
            .env_remove("CLAUDE_CONFIG_DIR")
            .env_remove("CODEX_HOME")
            .stdout(Stdio::piped())
            .stderr(Stdio::piped());
        match stdin {
            Some(text) => {
                let file = write_file(self.dir.path(), "stdin.txt", text);
                cmd.stdin(std::fs::File::open(file).unwrap());
            }
            None => {
                cmd.stdin(Stdio::null());
            }
        }
        run_limited(cmd, limit(60))
    }

    fn run(&self, args: &[&str]) -> Run {
        self.run_in(self.dir.path(), args, None)
    }

    fn set(&self, name: &str, value: &str) {
        self.run_in(
            self.dir.path(),
            &["secret", "set", name],
            Some(&format!("{value}\n")),
        )
        .ok();
    }
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

fn everything_said(run: &Run) -> String {
    format!("{}\n{}", run.stdout, run.stderr)
}

/// The env_server.py test server with `args`, as a `[servers.NAME]` table.
fn env_server(name: &str, args: &str, env: &str) -> String {
    let script = server_script("env_server.py").display().to_string();
    format!(
        "[servers.{name}]\ncommand = \"python3\"\nargs = [{script:?}{args}]\nenv = {{ {env} }}\n\n"
    )
}

#[test]
fn set_from_stdin_list_get_reveal_and_rm() {
    let h = Home::new(&env_server("s", "", "K = \"${secret:API_TOKEN}\""));
    let set = h.run_in(
        h.dir.path(),
        &["secret", "set", "API_TOKEN"],
        Some("sekrit-value-1\r\n"),
    );
    set.ok();
    assert!(
        set.stdout.starts_with("stored secret API_TOKEN in file "),
        "{}",
        set.stdout
    );
    assert!(set.stdout.contains("used by s"), "{}", set.stdout);
    assert!(!everything_said(&set).contains("sekrit"));

    // The file store: 0600, the value as given without its line break; no
    // credentials.json (the OAuth file) is made for it.
    let file = h.store_dir().join("secrets.json");
    let stored: Value = serde_json::from_str(&std::fs::read_to_string(&file).unwrap()).unwrap();
    assert_eq!(stored["version"], 1);
    assert_eq!(stored["secrets"][0]["value"], "sekrit-value-1");
    {
        use std::os::unix::fs::PermissionsExt;
        let mode = std::fs::metadata(&file).unwrap().permissions().mode() & 0o777;
        assert_eq!(mode, 0o600);
    }
    assert!(!h.store_dir().join("credentials.json").exists());

    // list: names only, with the servers that use them (and those the
    // config names that are not stored).
    h.config(&format!(
        "{}{}",
        env_server("s", "", "K = \"${secret:API_TOKEN}\""),
        env_server("t", "", "K = \"${secret:OTHER}\"")
    ));
    let list = h.run(&["secret", "list"]);
    list.ok();
    assert!(!list.stdout.contains("sekrit"), "{}", list.stdout);
    let lines: Vec<&str> = list.stdout.lines().collect();
    assert_eq!(lines[0], "API_TOKEN  used by s");
    assert_eq!(
        lines[1],
        "OTHER      NOT STORED, used by t (store it: mcpdeck secret set OTHER)"
    );
    let v = json(h.run(&["secret", "list", "--json"]).ok());
    assert_eq!(
        v["secrets"],
        serde_json::json!([
            {"name": "API_TOKEN", "stored": true, "servers": ["s"]},
            {"name": "OTHER", "stored": false, "servers": ["t"]},
        ])
    );
    assert!(v["store"].as_str().unwrap().ends_with("secrets.json"));

    // get: not to a pipe without --reveal.
    let get = h.run(&["secret", "get", "API_TOKEN"]);
    fails(&get, 2);
    assert!(get.stdout.is_empty());
    assert!(get.stderr.contains("add --reveal"), "{}", get.stderr);
    let get = h.run(&["secret", "get", "API_TOKEN", "--reveal"]);
    get.ok();
    assert_eq!(get.stdout, "sekrit-value-1\n");

    // Replacing says so.
    let again = h.run_in(
        h.dir.path(),
        &["secret", "set", "API_TOKEN"],
        Some("sekrit-value-2"),
    );
    assert!(again.ok().stdout.starts_with("replaced secret API_TOKEN"));
    assert_eq!(
        h.run(&["secret", "get", "API_TOKEN", "--reveal"]).stdout,
        "sekrit-value-2\n"
    );

    // rm, then it is gone (exit 2, with the fix and a close name).
    let rm = h.run(&["secret", "rm", "API_TOKEN"]);
    rm.ok();
    assert!(rm.stdout.contains("s still refers to it"), "{}", rm.stdout);
    h.set("API_TOKEM", "x");
    let gone = h.run(&["secret", "get", "API_TOKEN", "--reveal"]);
    fails(&gone, 2);
    assert!(
        gone.stderr.contains("no secret API_TOKEN in file ")
            && gone.stderr.contains("did you mean \"API_TOKEM\"?")
            && gone.stderr.contains("mcpdeck secret set API_TOKEN"),
        "{}",
        gone.stderr
    );
    fails(&h.run(&["secret", "rm", "API_TOKEN"]), 2);
}

#[test]
fn bad_names_and_values_are_refused() {
    let h = Home::new("");
    let bad = h.run_in(h.dir.path(), &["secret", "set", "my key"], Some("v\n"));
    fails(&bad, 2);
    assert!(
        bad.stderr
            .contains("invalid secret name \"my key\": use 1 to 64 letters, digits, `_`, `.` or `-` (e.g. my_key)"),
        "{}",
        bad.stderr
    );
    let empty = h.run_in(h.dir.path(), &["secret", "set", "E"], Some("\n"));
    fails(&empty, 2);
    assert!(
        empty.stderr.contains("is empty; nothing was stored"),
        "{}",
        empty.stderr
    );
    let two = h.run_in(h.dir.path(), &["secret", "set", "E"], Some("a\nb\n"));
    fails(&two, 2);
    assert!(two.stderr.contains("more than one line"), "{}", two.stderr);
    let none = h.run(&["secret", "list"]);
    assert!(
        none.ok().stdout.starts_with("no secrets in file "),
        "{}",
        none.stdout
    );
    // Nothing was written for them.
    assert!(!h.store_dir().join("secrets.json").exists());
    // A flag that does nothing here is refused.
    fails(&h.run(&["--trace", "secret", "list"]), 2);
}

#[test]
fn a_stdio_server_gets_secrets_in_its_env_and_args_and_nothing_shows_them() {
    let h = Home::new(&env_server(
        "s",
        ", \"--team=${secret:STDIO_TOK}\", \"$${secret:STDIO_TOK}\"",
        "MY_TOKEN = \"pre-${secret:STDIO_TOK}\", PLAIN = \"p\"",
    ));
    h.set("STDIO_TOK", "sekrit-stdio-42");
    let env = h.run(&["call", "s", "env", "--arg", "name=MY_TOKEN"]);
    env.ok();
    assert!(env.stdout.contains("pre-sekrit-stdio-42"), "{}", env.stdout);
    let argv = h.run(&["call", "s", "argv"]);
    argv.ok();
    // The reference is put in; `$${secret:…}` stays a literal.
    assert!(
        argv.stdout
            .contains("--team=sekrit-stdio-42 ${secret:STDIO_TOK}"),
        "{}",
        argv.stdout
    );

    // Not in a trace or a recording of a run that does not echo it, nor
    // in what config check or servers --json say.
    let rec = h.dir.path().join("rec.jsonl");
    let traced = h.run(&["--trace", "--record", rec.to_str().unwrap(), "tools", "s"]);
    traced.ok();
    assert!(traced.stderr.contains("tools/list"), "{}", traced.stderr);
    assert!(!everything_said(&traced).contains("sekrit"));
    let recording = std::fs::read_to_string(&rec).unwrap();
    assert!(!recording.contains("sekrit"), "{recording}");
    assert!(
        recording.contains("--team=${secret:STDIO_TOK}"),
        "{recording}"
    );
    let check = h.run(&["config", "check"]);
    check.ok();
    assert!(!everything_said(&check).contains("sekrit"));
    assert!(check.stderr.is_empty(), "{}", check.stderr);
    let servers = h.run(&["servers", "--json"]);
    servers.ok();
    assert!(!everything_said(&servers).contains("sekrit"));
}

#[test]
fn a_command_that_cannot_start_shows_its_arguments_masked() {
    let h = Home::new(
        "[servers.x]\ncommand = \"/nonexistent/mcpdeck-test-server\"\nargs = [\"--key=${secret:ARG_TOK}\"]\n",
    );
    h.set("ARG_TOK", "sekrit-arg-9");
    let r = h.run(&["tools", "x"]);
    fails(&r, 3);
    assert!(
        r.stderr
            .contains("could not start `/nonexistent/mcpdeck-test-server --key=••••••`"),
        "{}",
        r.stderr
    );
    assert!(!everything_said(&r).contains("sekrit"));
}

#[test]
fn a_missing_secret_names_its_place_and_the_fix() {
    let h = Home::new(&env_server("s", "", "K = \"${secret:NOT_THERE}\""));
    let cfg = h.config_path().display().to_string();
    let r = h.run(&["tools", "s"]);
    fails(&r, 2);
    // [settings] (2 lines) and a blank line come first: env is on line 7.
    let place = format!(
        "{cfg}:7:13: server \"s\": the secret NOT_THERE is not in mcpdeck's credential store (file "
    );
    assert!(r.stderr.contains(&place), "{}", r.stderr);
    assert!(
        r.stderr
            .trim_end()
            .ends_with("; store it: mcpdeck secret set NOT_THERE"),
        "{}",
        r.stderr
    );
    // servers: that server failed, with the same message.
    let v = json(fails(&h.run(&["servers", "--json"]), 3));
    let error = v["servers"][0]["error"].as_str().unwrap_or_default();
    assert!(error.starts_with(&place), "{v:#}");
    // config check: a warning, not an error (and in --json).
    let check = h.run(&["config", "check"]);
    check.ok();
    assert!(
        check.stderr.contains(&format!("mcpdeck: warning: {place}")),
        "{}",
        check.stderr
    );
    let v = json(h.run(&["config", "check", "--json"]).ok());
    assert_eq!(v["warnings"][0]["line"], 7);
    assert!(
        v["warnings"][0]["message"]
            .as_str()
            .unwrap()
            .contains("mcpdeck secret set NOT_THERE"),
        "{v:#}"
    );
    // Stored, it connects.
    h.set("NOT_THERE", "now-here");
    h.run(&["tools", "s"]).ok();
}

#[test]
fn an_http_server_checks_a_header_that_comes_from_a_secret() {
    let server = fake_http("unauthorized", &[]);
    let h = Home::new(&format!(
        "[servers.h]\nurl = \"{}\"\nheaders = {{ Authorization = \"Bearer ${{secret:FAKE_TOKEN}}\", X-Team = \"${{secret:TEAM}}\" }}\n",
        server.url
    ));
    // Without the secrets: no request is sent, the place and the fix.
    let r = h.run(&["tools", "h"]);
    fails(&r, 2);
    assert!(
        r.stderr
            .contains("the secret FAKE_TOKEN is not in mcpdeck's credential store")
            && r.stderr.contains("mcpdeck secret set FAKE_TOKEN"),
        "{}",
        r.stderr
    );
    h.set("FAKE_TOKEN", "good-token");
    h.set("TEAM", "team-sekrit-77");
    let rec = h.dir.path().join("rec.jsonl");
    let r = h.run(&[
        "--trace",
        "--record",
        rec.to_str().unwrap(),
        "tools",
        "h",
        "--json",
    ]);
    r.ok();
    assert!(r.stdout.contains("\"echo\""), "{}", r.stdout);
    // The trace shows the exchanges, the headers masked: by name
    // (Authorization) and by value (X-Team holds a secret).
    assert!(r.stderr.contains("> x-team: ••••••"), "{}", r.stderr);
    assert!(
        r.stderr.contains("> authorization: Bearer ••••••"),
        "{}",
        r.stderr
    );
    let said = everything_said(&r);
    assert!(
        !said.contains("good-token") && !said.contains("team-sekrit"),
        "{said}"
    );
    let recording = std::fs::read_to_string(&rec).unwrap();
    assert!(
        !recording.contains("good-token") && !recording.contains("team-sekrit"),
        "{recording}"
    );
    // The server got them.
    let log: Value = reqwest_get(&format!("http://127.0.0.1:{}/_log", server.port));
    let posts: Vec<&Value> = log
        .as_array()
        .unwrap()
        .iter()
        .filter(|e| e["method"] == "POST")
        .collect();
    assert!(!posts.is_empty());
    for p in posts {
        assert_eq!(p["headers"]["x-team"], "team-sekrit-77", "{p}");
        assert_eq!(p["headers"]["authorization"], "Bearer good-token", "{p}");
    }
    // A wrong value is the server's 401 (exit 4), not mcpdeck's.
    h.set("FAKE_TOKEN", "bad-token");
    fails(&h.run(&["tools", "h"]), 4);
}

/// GET a JSON document over plain HTTP/1.1 (the fake's test hooks).
fn reqwest_get(url: &str) -> Value {
    use std::io::{Read, Write};
    let rest = url.strip_prefix("http://").unwrap();
    let (host, path) = rest.split_once('/').unwrap();
    let mut s = std::net::TcpStream::connect(host).unwrap();
    write!(
        s,
        "GET /{path} HTTP/1.1\r\nHost: {host}\r\nConnection: close\r\n\r\n"
    )
    .unwrap();
    let mut text = String::new();
    s.read_to_string(&mut text).unwrap();
    let body = text.split_once("\r\n\r\n").map_or("", |(_, b)| b);
    serde_json::from_str(body).unwrap_or_else(|e| panic!("{e}: {text}"))
}

#[test]
fn import_moves_secrets_in_clear_with_move_secrets() {
    let h = Home::new("");
    let client = h.dir.path().join("mcp.json");
    let original = r#"{"mcpServers": {
        "gh": {"command": "npx", "args": ["-y", "gh-mcp"], "env": {"GITHUB_TOKEN": "ghp_sekrit$1", "LEVEL": "debug"}},
        "api": {"type": "http", "url": "https://api.example.com/mcp", "headers": {"Authorization": "Bearer tok-sekrit", "X-Api-Key": "k-sekrit"}}
    }}"#;
    std::fs::write(&client, original).unwrap();
    let path = client.to_str().unwrap();

    // A dry run stores nothing, and shows what would be written.
    let v = json(
        h.run(&["import", path, "--move-secrets", "--dry-run", "--json"])
            .ok(),
    );
    let gh = v["servers"]
        .as_array()
        .unwrap()
        .iter()
        .find(|s| s["name"] == "gh")
        .unwrap();
    assert_eq!(gh["env"]["GITHUB_TOKEN"], "${secret:gh_GITHUB_TOKEN}");
    assert_eq!(gh["secrets"], serde_json::json!(["gh_GITHUB_TOKEN"]));
    assert!(!h.store_dir().join("secrets.json").exists());
    assert!(
        !h.config_path().exists()
            || !std::fs::read_to_string(h.config_path())
                .unwrap()
                .contains("gh")
    );

    // Without a terminal and without the flag: as before (in clear, a warning).
    let plain = json(h.run(&["import", path, "--dry-run", "--json"]).ok());
    let gh = plain["servers"]
        .as_array()
        .unwrap()
        .iter()
        .find(|s| s["name"] == "gh")
        .unwrap();
    assert_eq!(gh["env"]["GITHUB_TOKEN"], "ghp_sekrit$$1");
    assert!(
        gh["warnings"].to_string().contains("written in clear"),
        "{gh}"
    );

    let r = h.run(&["import", path, "--move-secrets"]);
    r.ok();
    assert!(
        !everything_said(&r).contains("sekrit"),
        "{}",
        everything_said(&r)
    );
    let config = std::fs::read_to_string(h.config_path()).unwrap();
    assert!(!config.contains("sekrit"), "{config}");
    assert!(
        config.contains("GITHUB_TOKEN = \"${secret:gh_GITHUB_TOKEN}\""),
        "{config}"
    );
    assert!(config.contains("LEVEL = \"debug\""), "{config}");
    assert!(
        config.contains("Authorization = \"Bearer ${secret:api_Authorization}\""),
        "{config}"
    );
    assert!(
        config.contains("X-Api-Key = \"${secret:api_X-Api-Key}\""),
        "{config}"
    );
    for (name, value) in [
        ("gh_GITHUB_TOKEN", "ghp_sekrit$1"),
        ("api_Authorization", "tok-sekrit"),
        ("api_X-Api-Key", "k-sekrit"),
    ] {
        let got = h.run(&["secret", "get", name, "--reveal"]);
        assert_eq!(got.ok().stdout, format!("{value}\n"), "{name}");
    }
    // The other client's file is as it was.
    assert_eq!(std::fs::read_to_string(&client).unwrap(), original);
    // The imported config loads, and config check finds every secret.
    let check = h.run(&["config", "check"]);
    check.ok();
    assert!(check.stderr.is_empty(), "{}", check.stderr);
}

/// The env a pty run of mcpdeck gets for `h`'s config and store.
fn pty_env(h: &Home) -> Vec<(String, String)> {
    vec![
        (
            "MCPDECK_CONFIG".into(),
            h.config_path().display().to_string(),
        ),
        ("HOME".into(), h.dir.path().display().to_string()),
        (
            "XDG_DATA_HOME".into(),
            h.dir.path().join("data").display().to_string(),
        ),
        (
            "XDG_CONFIG_HOME".into(),
            h.dir.path().join("xdg-config").display().to_string(),
        ),
    ]
}

#[test]
fn at_a_terminal_set_asks_without_showing_the_value() {
    let h = Home::new("");
    let env = pty_env(&h);
    let env: Vec<(&str, &str)> = env.iter().map(|(k, v)| (k.as_str(), v.as_str())).collect();
    let mut t = common::pty::Tui::spawn(&["secret", "set", "PTY_TOK"], Some(h.dir.path()), &env);
    t.wait_for("Value of secret PTY_TOK (not shown):", 15);
    // A typo taken back with backspace.
    t.keys("sekrit-ptyX\x7f!\r");
    assert!(t.wait_exit().success(), "{}", t.screen());
    let screen = t.screen();
    assert!(!screen.contains("sekrit"), "{screen}");
    assert!(screen.contains("***********"), "{screen}");
    assert!(
        screen.contains("stored secret PTY_TOK in file "),
        "{screen}"
    );
    assert_eq!(
        h.run(&["secret", "get", "PTY_TOK", "--reveal"]).ok().stdout,
        "sekrit-pty!\n"
    );

    // Ctrl-C cancels: nothing stored.
    let mut t = common::pty::Tui::spawn(&["secret", "set", "PTY_NOT"], Some(h.dir.path()), &env);
    t.wait_for("(not shown):", 15);
    t.keys("abc\x03");
    assert_eq!(t.wait_exit().exit_code(), 2, "{}", t.screen());
    assert!(t.screen().contains("cancelled; nothing was stored"));
    fails(&h.run(&["secret", "get", "PTY_NOT", "--reveal"]), 2);
}

#[test]
fn at_a_terminal_import_asks_per_server() {
    let h = Home::new("");
    let client = h.dir.path().join("mcp.json");
    std::fs::write(
        &client,
        r#"{"mcpServers": {"gh": {"command": "gh-mcp", "env": {"GITHUB_TOKEN": "ghp_1", "API_KEY": "k_2"}}, "b": {"command": "b-mcp", "env": {"TOKEN": "t_3"}}}}"#,
    )
    .unwrap();
    let env = pty_env(&h);
    let env: Vec<(&str, &str)> = env.iter().map(|(k, v)| (k.as_str(), v.as_str())).collect();
    let mut t = common::pty::Tui::spawn(
        &["import", client.to_str().unwrap()],
        Some(h.dir.path()),
        &env,
    );
    t.wait_for(
        "Move 2 secrets of gh into mcpdeck's credential store? [Y/n]",
        15,
    );
    t.keys("\r");
    t.wait_for(
        "Move 1 secret of b into mcpdeck's credential store? [Y/n]",
        15,
    );
    t.keys("n\r");
    assert!(t.wait_exit().success(), "{}", t.screen());
    let config = std::fs::read_to_string(h.config_path()).unwrap();
    assert!(
        config.contains(
            "env = { GITHUB_TOKEN = \"${secret:gh_GITHUB_TOKEN}\", API_KEY = \"${secret:gh_API_KEY}\" }"
        ),
        "{config}"
    );
    assert!(config.contains("env = { TOKEN = \"t_3\" }"), "{config}");
    let v = json(h.run(&["secret", "list", "--json"]).ok());
    let names: Vec<&str> = v["secrets"]
        .as_array()
        .unwrap()
        .iter()
        .filter(|s| s["stored"] == true)
        .map(|s| s["name"].as_str().unwrap())
        .collect();
    assert_eq!(names, ["gh_API_KEY", "gh_GITHUB_TOKEN"]);
}
