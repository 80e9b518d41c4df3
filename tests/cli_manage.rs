//! The config from the command line (`add`, `remove`, `enable`, `disable`,
//! `deny`, `allow`, `config path|check|edit`) and `completions`, run as the
//! real binary against a throw-away config with comments, under a
//! throw-away HOME and XDG directories. Files are compared byte for byte.

mod common;

use std::fs;
use std::path::{Path, PathBuf};
use std::process::{Command, Stdio};

use common::{Run, limit, mcpdeck_bin, run_limited};
use serde_json::Value;

/// The hand-written fixture with comments everywhere.
const COMMENTED: &str = include_str!("fixtures/config/commented.toml");

/// A throw-away HOME with XDG directories and a config file.
struct Sandbox {
    dir: tempfile::TempDir,
}

impl Sandbox {
    fn new() -> Self {
        let dir = tempfile::tempdir().unwrap();
        for sub in ["home", "xdg/config", "xdg/data", "xdg/state"] {
            fs::create_dir_all(dir.path().join(sub)).unwrap();
        }
        Sandbox { dir }
    }

    /// A sandbox whose `c.toml` holds `text`.
    fn with(text: &str) -> Self {
        let sandbox = Self::new();
        fs::write(sandbox.config(), text).unwrap();
        sandbox
    }

    fn path(&self, name: &str) -> PathBuf {
        self.dir.path().join(name)
    }

    /// The config file the commands are pointed at with --config.
    fn config(&self) -> PathBuf {
        self.path("c.toml")
    }

    fn text(&self) -> String {
        fs::read_to_string(self.config()).unwrap()
    }

    fn command(&self, args: &[&str], env: &[(&str, &str)]) -> Command {
        self.program(&mcpdeck_bin().display().to_string(), args, env)
    }

    /// `program ARGS` in the sandbox (a shell, with the mcpdeck under test
    /// first on PATH).
    fn shell(&self, program: &str, args: &[&str]) -> Command {
        let dir = mcpdeck_bin().parent().unwrap().display().to_string();
        let path = format!("{dir}:{}", std::env::var("PATH").unwrap_or_default());
        self.program(program, args, &[("PATH", &path)])
    }

    fn program(&self, program: &str, args: &[&str], env: &[(&str, &str)]) -> Command {
        let mut cmd = Command::new(program);
        cmd.args(args)
            .current_dir(self.dir.path())
            .env_remove("MCPDECK_CONFIG")
            .env_remove("VISUAL")
            .env_remove("EDITOR")
            .env("HOME", self.path("home"))
            .env("XDG_CONFIG_HOME", self.path("xdg/config"))
            .env("XDG_DATA_HOME", self.path("xdg/data"))
            .env("XDG_STATE_HOME", self.path("xdg/state"))
            .stdin(Stdio::null())
            .stdout(Stdio::piped())
            .stderr(Stdio::piped());
        for (k, v) in env {
            cmd.env(k, v);
        }
        cmd
    }

    /// `mcpdeck ARGS` with no --config.
    fn run_bare(&self, args: &[&str], env: &[(&str, &str)]) -> Run {
        run_limited(self.command(args, env), limit(60))
    }

    /// `mcpdeck --config c.toml ARGS`.
    fn run(&self, args: &[&str]) -> Run {
        let config = self.config().display().to_string();
        let mut all = vec!["--config", config.as_str()];
        all.extend_from_slice(args);
        self.run_bare(&all, &[])
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

/// `text` with the first `from` replaced by `to` (which must be there).
fn replaced(text: &str, from: &str, to: &str) -> String {
    assert!(text.contains(from), "{from:?} is not in the text");
    text.replacen(from, to, 1)
}

// ----- add -----

#[test]
fn add_stdio_appends_a_table_and_keeps_everything_else() {
    let s = Sandbox::with(COMMENTED);
    let run = s.run(&[
        "add",
        "local",
        "--env",
        "API_KEY=${API_KEY}",
        "--env",
        "LEVEL=debug",
        "--cwd",
        "/srv/x",
        "--",
        "node",
        "server.js",
        "--port",
        "3",
    ]);
    run.ok();
    let table = "[servers.local]\ncommand = \"node\"\nargs = [\"server.js\", \"--port\", \"3\"]\nenv = { API_KEY = \"${API_KEY}\", LEVEL = \"debug\" }\ncwd = \"/srv/x\"\n";
    let expected = replaced(
        COMMENTED,
        "# last server\n",
        &format!("# last server\n\n{table}"),
    );
    assert_eq!(s.text(), expected);
    // It says what it wrote and where.
    assert!(
        run.stdout.contains("added a stdio server \"local\""),
        "{}",
        run.stdout
    );
    assert!(
        run.stdout.contains(&s.config().display().to_string()),
        "{}",
        run.stdout
    );
    assert!(
        run.stdout.contains("    [servers.local]\n"),
        "{}",
        run.stdout
    );
    assert!(
        run.stdout.contains("    cwd = \"/srv/x\""),
        "{}",
        run.stdout
    );
    // And it loads: `config check` agrees (API_KEY is set for it).
    let check = run_limited(
        {
            let config = s.config().display().to_string();
            s.command(
                &["--config", &config, "config", "check"],
                &[("API_KEY", "k")],
            )
        },
        limit(60),
    );
    check.ok();
    assert!(
        check.stdout.contains("OK, 4 servers (4 enabled)"),
        "{}",
        check.stdout
    );
    // Removing it gives the file back byte for byte.
    s.run(&["remove", "local"]).ok();
    assert_eq!(s.text(), COMMENTED);
}

#[test]
fn add_url_makes_an_http_server_with_headers() {
    let s = Sandbox::with(COMMENTED);
    let run = s.run(&[
        "add",
        "gh",
        "https://api.example.com/mcp",
        "--header",
        "Authorization=Bearer ${GH_TOKEN}",
        "--header",
        "X-Client=mcpdeck",
        "--json",
    ]);
    run.ok();
    let expected = replaced(
        COMMENTED,
        "# last server\n",
        "# last server\n\n[servers.gh]\nurl = \"https://api.example.com/mcp\"\nheaders = { Authorization = \"Bearer ${GH_TOKEN}\", X-Client = \"mcpdeck\" }\n",
    );
    assert_eq!(s.text(), expected);
    let json: Value = serde_json::from_str(&run.stdout).unwrap();
    assert_eq!(json["server"], "gh");
    assert_eq!(json["action"], "added");
    assert_eq!(json["changed"], true);
    assert_eq!(json["path"], s.config().display().to_string());
}

#[test]
fn add_warns_about_a_variable_that_is_not_set() {
    let s = Sandbox::new();
    let header = "Authorization=Bearer ${MCPDECK_TEST_SURELY_UNSET_TOK}";
    let run = s.run(&["add", "h", "http://127.0.0.1:9/mcp", "--header", header]);
    run.ok();
    assert_eq!(
        run.stderr,
        format!(
            "mcpdeck: warning: {}:3:29: server \"h\": the environment variable MCPDECK_TEST_SURELY_UNSET_TOK is not set; set it, or give it a default in the config: ${{MCPDECK_TEST_SURELY_UNSET_TOK:-default}} (${{MCPDECK_TEST_SURELY_UNSET_TOK:-}} for an empty one)\n",
            s.config().display()
        )
    );
    // Written as given, the reference kept.
    assert!(
        s.text()
            .contains("headers = { Authorization = \"Bearer ${MCPDECK_TEST_SURELY_UNSET_TOK}\" }"),
        "{}",
        s.text()
    );
    // --json: the same warning on stderr, stdout stays the JSON.
    let run = s.run(&[
        "add",
        "h2",
        "http://127.0.0.1:9/mcp",
        "--header",
        header,
        "--json",
    ]);
    run.ok();
    let json: Value = serde_json::from_str(&run.stdout).unwrap();
    assert_eq!(json["action"], "added");
    assert!(
        run.stderr.contains(
            "server \"h2\": the environment variable MCPDECK_TEST_SURELY_UNSET_TOK is not set"
        ),
        "{}",
        run.stderr
    );
    // Set, nothing to say.
    let config = s.config().display().to_string();
    let run = s.run_bare(
        &[
            "--config",
            &config,
            "add",
            "h3",
            "http://127.0.0.1:9/mcp",
            "--header",
            header,
        ],
        &[("MCPDECK_TEST_SURELY_UNSET_TOK", "t")],
    );
    run.ok();
    assert_eq!(run.stderr, "");
    // A variable of [settings] stops every command: said too.
    let s = Sandbox::with("[settings]\nbrowser = \"${MCPDECK_TEST_SURELY_UNSET_BROWSER}\"\n");
    let run = s.run(&["add", "x", "http://127.0.0.1:9/mcp"]);
    run.ok();
    assert_eq!(
        run.stderr,
        format!(
            "mcpdeck: warning: the config does not load as it is now: {}:2:11: the environment variable MCPDECK_TEST_SURELY_UNSET_BROWSER is not set; set it, or write ${{MCPDECK_TEST_SURELY_UNSET_BROWSER:-default}}\n",
            s.config().display()
        )
    );
}

#[test]
fn add_creates_the_default_file_and_its_directory() {
    let s = Sandbox::new();
    let run = s.run_bare(&["add", "first", "--", "cat"], &[]);
    run.ok();
    let file = s.path("xdg/config/mcpdeck/config.toml");
    assert_eq!(
        fs::read_to_string(&file).unwrap(),
        "[servers.first]\ncommand = \"cat\"\n"
    );
    assert!(
        run.stdout.contains(&file.display().to_string()),
        "{}",
        run.stdout
    );
    // $MCPDECK_CONFIG is respected too.
    let other = s.path("elsewhere/mine.toml");
    let other_s = other.display().to_string();
    s.run_bare(
        &["add", "u", "http://127.0.0.1:1/mcp"],
        &[("MCPDECK_CONFIG", &other_s)],
    )
    .ok();
    assert_eq!(
        fs::read_to_string(&other).unwrap(),
        "[servers.u]\nurl = \"http://127.0.0.1:1/mcp\"\n"
    );
}

#[test]
fn add_refuses_bad_input_and_leaves_the_file_alone() {
    let s = Sandbox::with(COMMENTED);
    let cases: &[(&[&str], &str)] = &[
        (
            &["add", "remote", "--", "cat"],
            "a server named \"remote\" already exists",
        ),
        (&["add", "my__srv", "--", "cat"], "e.g. \"my_srv\""),
        (&["add", "my srv", "--", "cat"], "' ' is not allowed"),
        (&["add", "x"], "add needs a URL"),
        (
            &["add", "x", "https://example.com/mcp", "--", "cat"],
            "not both",
        ),
        (
            &["add", "x", "ftp://example.com"],
            "not an http:// or https:// URL",
        ),
        (
            &["add", "x", "--header", "A=b", "--", "cat"],
            "--header applies to HTTP servers",
        ),
        (
            &["add", "x", "https://example.com/mcp", "--env", "A=b"],
            "--env and --cwd apply to stdio servers",
        ),
        (
            &["add", "x", "https://example.com/mcp", "--header", "nope"],
            "--header takes NAME=VALUE",
        ),
        (
            &[
                "add",
                "x",
                "https://example.com/mcp",
                "--header",
                "bad name=1",
            ],
            "not a valid HTTP header name",
        ),
        (
            &["add", "x", "--env", "A=1", "--env", "A=2", "--", "cat"],
            "given twice",
        ),
        (
            &["add", "x", "--", "echo", "${unterminated"],
            "nothing was written",
        ),
    ];
    for (args, message) in cases {
        let run = s.run(args);
        fails(&run, 2);
        assert!(run.stderr.contains(message), "{args:?}: {}", run.stderr);
        assert_eq!(s.text(), COMMENTED, "{args:?} changed the file");
    }
    // --demo has no file to write.
    let run = s.run(&["--demo", "disable", "remote"]);
    fails(&run, 2);
    assert!(run.stderr.contains("drop --demo"), "{}", run.stderr);
    assert_eq!(s.text(), COMMENTED);
    // The existing name: how to replace it.
    let run = s.run(&["add", "remote", "--", "cat"]);
    assert!(
        run.stderr
            .contains("remove it first (`mcpdeck remove remote`)"),
        "{}",
        run.stderr
    );
}

// ----- remove -----

#[test]
fn remove_takes_the_table_and_its_comments() {
    let s = Sandbox::with(COMMENTED);
    let run = s.run(&["remove", "remote"]);
    run.ok();
    let expected = replaced(
        COMMENTED,
        "\n  # An indented comment between servers.\n[servers.remote]\nurl = \"https://example.com/mcp\"\nheaders = { Authorization = \"Bearer ${TOKEN:-none}\" }\n",
        "",
    );
    assert_eq!(s.text(), expected);
    assert!(
        run.stdout.contains("removed server \"remote\"") && run.stdout.contains("[servers.remote]"),
        "{}",
        run.stdout
    );
}

/// What `remove` prints is what it removed: not the next table's comment
/// (a byte diff matched the `# ` of two different comments).
#[test]
fn remove_prints_only_what_it_removed() {
    let s = Sandbox::with(
        "# first server\n[servers.a]\ncommand = \"node\"\n\n# the second server\n[servers.b]\ncommand = \"node\"\n",
    );
    let run = s.run(&["remove", "a"]);
    run.ok();
    assert_eq!(
        s.text(),
        "# the second server\n[servers.b]\ncommand = \"node\"\n"
    );
    assert!(
        run.stdout
            .contains("    # first server\n    [servers.a]\n    command = \"node\""),
        "{}",
        run.stdout
    );
    assert!(!run.stdout.contains("second server"), "{}", run.stdout);
}

#[test]
fn remove_of_an_unknown_name_suggests_one() {
    let s = Sandbox::with(COMMENTED);
    let run = s.run(&["remove", "remot"]);
    fails(&run, 2);
    assert!(
        run.stderr.contains("there is no server named \"remot\"")
            && run.stderr.contains("did you mean \"remote\"?"),
        "{}",
        run.stderr
    );
    let run = s.run(&["remove", "zzz"]);
    fails(&run, 2);
    assert!(
        run.stderr
            .contains("the servers are: everything, remote, inline"),
        "{}",
        run.stderr
    );
    assert_eq!(s.text(), COMMENTED);
}

// ----- enable, disable -----

#[test]
fn disable_then_enable_gives_the_file_back_byte_for_byte() {
    // (server, the line as it is, the line disabled, or the line added)
    let cases = [
        (
            "everything",
            "enabled = true         # toggled by the TUI\n",
            "enabled = false         # toggled by the TUI\n",
        ),
        (
            "remote",
            "headers = { Authorization = \"Bearer ${TOKEN:-none}\" }\n",
            "headers = { Authorization = \"Bearer ${TOKEN:-none}\" }\nenabled = false\n",
        ),
        (
            "inline",
            "inline = { command = \"cat\", env = { A = \"1\" } } # last server\n",
            "inline = { command = \"cat\", env = { A = \"1\" }, enabled = false } # last server\n",
        ),
    ];
    let s = Sandbox::with(COMMENTED);
    for (server, before, after) in cases {
        let run = s.run(&["disable", server]);
        run.ok();
        assert!(
            run.stdout
                .contains(&format!("disabled server \"{server}\""))
        );
        assert_eq!(s.text(), replaced(COMMENTED, before, after), "{server}");
        // Again: nothing to do, and it says so.
        let run = s.run(&["disable", server]);
        run.ok();
        assert!(run.stdout.contains("already disabled"), "{}", run.stdout);
        assert_eq!(s.text(), replaced(COMMENTED, before, after), "{server}");
        let run = s.run(&["enable", server, "--json"]);
        run.ok();
        let json: Value = serde_json::from_str(&run.stdout).unwrap();
        assert_eq!(
            (&json["action"], &json["changed"]),
            (&"enabled".into(), &true.into())
        );
        assert_eq!(s.text(), COMMENTED, "{server} disabled and enabled");
        let run = s.run(&["enable", server]);
        run.ok();
        assert!(run.stdout.contains("already enabled"), "{}", run.stdout);
        assert_eq!(s.text(), COMMENTED);
    }
}

#[test]
fn toggles_undone_in_any_order_give_the_file_back() {
    let s = Sandbox::with(COMMENTED);
    for server in ["remote", "inline"] {
        s.run(&["deny", server, "echo"]).ok();
        s.run(&["disable", server]).ok();
        s.run(&["deny", server, "add"]).ok();
        assert_ne!(s.text(), COMMENTED);
        s.run(&["allow", server, "echo"]).ok();
        s.run(&["enable", server]).ok();
        s.run(&["allow", server, "add"]).ok();
        assert_eq!(s.text(), COMMENTED, "{server}");
    }
}

#[test]
fn a_commented_or_hand_placed_key_keeps_its_place() {
    // `enabled = false` written by hand with a comment, and one followed by
    // another key: enabling keeps the line and changes the value.
    let text = "[servers.a]\ncommand = \"x\"\nenabled = false # flaky\n\n[servers.b]\nenabled = false\ncommand = \"y\"\n";
    let s = Sandbox::with(text);
    s.run(&["enable", "a"]).ok();
    s.run(&["enable", "b"]).ok();
    assert_eq!(
        s.text(),
        "[servers.a]\ncommand = \"x\"\nenabled = true # flaky\n\n[servers.b]\nenabled = true\ncommand = \"y\"\n"
    );
    s.run(&["disable", "a"]).ok();
    s.run(&["disable", "b"]).ok();
    assert_eq!(s.text(), text);
}

// ----- deny, allow -----

#[test]
fn deny_and_allow_edit_the_list_in_place() {
    let s = Sandbox::with(COMMENTED);
    let run = s.run(&["deny", "everything", "echo"]);
    run.ok();
    assert!(
        run.stdout
            .contains("denied tool \"echo\" of server \"everything\""),
        "{}",
        run.stdout
    );
    let denied = replaced(
        COMMENTED,
        "deny_tools = [ \"get-env\" ]  # hidden",
        "deny_tools = [ \"get-env\", \"echo\" ]  # hidden",
    );
    assert_eq!(s.text(), denied);
    let run = s.run(&["deny", "everything", "echo"]);
    run.ok();
    assert!(run.stdout.contains("already denied"), "{}", run.stdout);
    assert_eq!(s.text(), denied);
    let run = s.run(&["allow", "everything", "echo"]);
    run.ok();
    assert!(
        run.stdout.contains("allowed tool \"echo\""),
        "{}",
        run.stdout
    );
    assert_eq!(s.text(), COMMENTED);

    // A server without the key gets one, and loses it again.
    s.run(&["deny", "remote", "echo"]).ok();
    assert_eq!(
        s.text(),
        replaced(
            COMMENTED,
            "headers = { Authorization = \"Bearer ${TOKEN:-none}\" }\n",
            "headers = { Authorization = \"Bearer ${TOKEN:-none}\" }\ndeny_tools = [\"echo\"]\n"
        )
    );
    s.run(&["allow", "remote", "echo"]).ok();
    assert_eq!(s.text(), COMMENTED);

    // The user's own list, emptied: the key and its comment stay.
    s.run(&["allow", "everything", "get-env"]).ok();
    assert_eq!(
        s.text(),
        replaced(
            COMMENTED,
            "deny_tools = [ \"get-env\" ]  # hidden",
            "deny_tools = []  # hidden"
        )
    );
}

#[test]
fn a_multi_line_list_keeps_its_comments() {
    let text = "[servers.m]\ncommand = \"x\"\ndeny_tools = [\n    \"a\",  # why\n]\nargs = []\n";
    let s = Sandbox::with(text);
    s.run(&["deny", "m", "b"]).ok();
    assert_eq!(
        s.text(),
        "[servers.m]\ncommand = \"x\"\ndeny_tools = [\n    \"a\", \"b\",  # why\n]\nargs = []\n"
    );
    s.run(&["allow", "m", "b"]).ok();
    assert_eq!(s.text(), text);
}

#[test]
fn allow_of_a_tool_not_denied_says_so() {
    let s = Sandbox::with(COMMENTED);
    let run = s.run(&["allow", "everything", "get-enb"]);
    run.ok();
    assert!(
        run.stdout.contains("tool \"get-enb\" is not denied")
            && run.stdout.contains("did you mean \"get-env\"?"),
        "{}",
        run.stdout
    );
    let run = s.run(&["allow", "remote", "x", "--json"]);
    run.ok();
    let json: Value = serde_json::from_str(&run.stdout).unwrap();
    assert_eq!(json["changed"], false);
    assert_eq!(json["tool"], "x");
    assert_eq!(s.text(), COMMENTED);
}

#[test]
fn toggles_of_unknown_servers_fail_with_a_suggestion() {
    let s = Sandbox::with(COMMENTED);
    for args in [
        &["enable", "inlin"][..],
        &["disable", "inlin"],
        &["deny", "inlin", "t"],
        &["allow", "inlin", "t"],
    ] {
        let run = s.run(args);
        fails(&run, 2);
        assert!(
            run.stderr.contains("did you mean \"inline\"?"),
            "{args:?}: {}",
            run.stderr
        );
    }
    assert_eq!(s.text(), COMMENTED);
}

// ----- broken files -----

const BROKEN: &str = "[servers.a]\ncommand = \"x\"\ncomand = 3\n";

#[test]
fn a_broken_file_is_never_written() {
    let s = Sandbox::with(BROKEN);
    for args in [
        &["add", "b", "--", "cat"][..],
        &["remove", "a"],
        &["disable", "a"],
        &["deny", "a", "t"],
    ] {
        let run = s.run(args);
        fails(&run, 2);
        let place = format!("{}:3:1: unknown key `comand`", s.config().display());
        assert!(run.stderr.contains(&place), "{args:?}: {}", run.stderr);
        assert!(run.stderr.contains("mcpdeck config edit"), "{}", run.stderr);
        assert_eq!(s.text(), BROKEN);
    }
}

#[test]
fn an_unset_variable_does_not_stop_an_edit() {
    let text = "[servers.a]\ncommand = \"${MCPDECK_TEST_SURELY_UNSET}\"\n";
    let s = Sandbox::with(text);
    s.run(&["disable", "a"]).ok();
    assert_eq!(s.text(), format!("{text}enabled = false\n"));
    s.run(&["enable", "a"]).ok();
    assert_eq!(s.text(), text);
}

// ----- config path, check, edit -----

#[test]
fn config_path_names_the_file_and_whether_it_exists() {
    let s = Sandbox::new();
    let default = s.path("xdg/config/mcpdeck/config.toml");
    let run = s.run_bare(&["config", "path"], &[]);
    run.ok();
    assert_eq!(run.stdout, format!("{}\n", default.display()));
    assert!(run.stderr.contains("does not exist yet"), "{}", run.stderr);
    let run = s.run_bare(&["config", "path", "--json"], &[]);
    let json: Value = serde_json::from_str(&run.ok().stdout).unwrap();
    assert_eq!(json["path"], default.display().to_string());
    assert_eq!(json["exists"], false);
    assert_eq!(json["source"], "default");

    fs::write(s.config(), COMMENTED).unwrap();
    let config = s.config().display().to_string();
    let run = s.run_bare(
        &["config", "path", "--json"],
        &[("MCPDECK_CONFIG", &config)],
    );
    let json: Value = serde_json::from_str(&run.ok().stdout).unwrap();
    assert_eq!(json["path"], config);
    assert_eq!(json["exists"], true);
    assert_eq!(json["source"], "$MCPDECK_CONFIG");
    // --config wins, and a relative path is shown absolute.
    let run = s.run_bare(
        &["--config", "other.toml", "config", "path", "--json"],
        &[("MCPDECK_CONFIG", &config)],
    );
    let json: Value = serde_json::from_str(&run.ok().stdout).unwrap();
    assert_eq!(json["path"], s.path("other.toml").display().to_string());
    assert_eq!(json["source"], "--config");
    assert_eq!(json["exists"], false);
}

/// A file with an error in each of five sections, a server with an unset
/// variable (no error) and a good server.
const MANY_ERRORS: &str = r#"# header
[settings]
request_timout = 5

[servers.a]
command = "x"
comand = 3

[servers.a.env]
K = "v"

[servers.b]
url = "https://example.com/mcp"
headers = { A = "${MCPDECK_TEST_SURELY_UNSET}" }

[servers]
c = { command = "y",
      args = 3 }
d = { command = "z", enabled = "yes" }

[servers.ok]
command = "cat"

[servers."bad name"]
command = "cat"
"#;

/// `config check --json`: the same answers for a script, with the same
/// exit codes.
#[test]
fn config_check_json_gives_places_and_counts() {
    let s = Sandbox::with(
        "[servers.a]\ncommand = \"${MCPDECK_TEST_SURELY_UNSET}\"\n[servers.b]\nenabled = false\ncommand = \"node\"\n",
    );
    let run = s.run(&["config", "check", "--json"]);
    run.ok();
    let v: serde_json::Value = serde_json::from_str(&run.stdout).unwrap();
    assert_eq!(v["ok"], true, "{v}");
    assert_eq!(v["servers"], 2, "{v}");
    assert_eq!(v["enabled"], 1, "{v}");
    assert_eq!(v["errors"], serde_json::json!([]), "{v}");
    let w = &v["warnings"][0];
    assert_eq!(
        (w["line"].clone(), w["column"].clone()),
        (2.into(), 11.into()),
        "{v}"
    );
    assert!(
        w["message"]
            .as_str()
            .unwrap()
            .contains("MCPDECK_TEST_SURELY_UNSET is not set"),
        "{v}"
    );

    fs::write(s.config(), BROKEN).unwrap();
    let run = s.run(&["config", "check", "--json"]);
    fails(&run, 2);
    let v: serde_json::Value = serde_json::from_str(&run.stdout).unwrap();
    assert_eq!(v["ok"], false, "{v}");
    let e = &v["errors"][0];
    assert_eq!(
        (e["line"].clone(), e["column"].clone()),
        (3.into(), 1.into()),
        "{v}"
    );
    assert!(
        e["message"]
            .as_str()
            .unwrap()
            .contains("did you mean `command`?"),
        "{v}"
    );
}

#[test]
fn config_check_says_ok_or_where_the_errors_are() {
    let s = Sandbox::with(COMMENTED);
    let run = s.run(&["config", "check"]);
    run.ok();
    assert_eq!(
        run.stdout,
        format!("{}: OK, 3 servers (3 enabled)\n", s.config().display())
    );

    fs::write(s.config(), BROKEN).unwrap();
    let run = s.run(&["config", "check"]);
    fails(&run, 2);
    let first = run.stderr.lines().next().unwrap_or("");
    assert_eq!(
        first,
        format!(
            "{}:3:1: unknown key `comand` in server \"a\" — did you mean `command`?",
            s.config().display()
        )
    );
    // The line itself, underlined.
    assert!(
        run.stderr.contains("3 | comand = 3\n  | ^^^^^^"),
        "{}",
        run.stderr
    );

    // A variable that is not set is no error of the file (only the server
    // that uses it cannot start): a warning that says where and what to
    // do, and exit 0. A disabled server's variables are not warned about.
    fs::write(
        s.config(),
        "[servers.a]\ncommand = \"${MCPDECK_TEST_SURELY_UNSET}\"\n[servers.b]\nenabled = false\ncommand = \"${MCPDECK_TEST_SURELY_UNSET_2}\"\n",
    )
    .unwrap();
    let run = s.run(&["config", "check"]);
    run.ok();
    assert_eq!(
        run.stdout,
        format!("{}: OK, 2 servers (1 enabled)\n", s.config().display())
    );
    assert_eq!(
        run.stderr,
        format!(
            "mcpdeck: warning: {}:2:11: server \"a\": the environment variable MCPDECK_TEST_SURELY_UNSET is not set; set it, or give it a default in the config: ${{MCPDECK_TEST_SURELY_UNSET:-default}} (${{MCPDECK_TEST_SURELY_UNSET:-}} for an empty one)\n",
            s.config().display()
        )
    );

    // Every section's first error, in the order of the file; a syntax
    // error ends the list.
    fs::write(s.config(), MANY_ERRORS).unwrap();
    let run = s.run(&["config", "check"]);
    fails(&run, 2);
    let file = s.config().display().to_string();
    let places: Vec<&str> = run
        .stderr
        .lines()
        .filter_map(|l| l.strip_prefix(&format!("{file}:")))
        .collect();
    assert_eq!(
        places,
        [
            "3:1: unknown key `request_timout` in [settings] — did you mean `request_timeout`?",
            "7:1: unknown key `comand` in server \"a\" — did you mean `command`?",
            "18:14: server \"c\": `args` must be an array of strings, found an integer",
            "19:32: server \"d\": `enabled` must be true or false, found a string",
            "24:10: invalid server name \"bad name\": ' ' is not allowed; use only letters, digits, `_`, `.` and `-`",
        ],
        "{}",
        run.stderr
    );
    assert!(run.stderr.ends_with("5 errors\n"), "{}", run.stderr);
    fs::write(
        s.config(),
        "[servers.a]\ncommand = \"x\"\nbad syntax\n[servers.b]\ncomand = 1\n",
    )
    .unwrap();
    let run = s.run(&["config", "check"]);
    fails(&run, 2);
    assert!(
        run.stderr
            .starts_with(&format!("{file}:3:5: invalid TOML: ")),
        "{}",
        run.stderr
    );
    assert!(!run.stderr.contains("comand"), "{}", run.stderr);

    // A missing file.
    let run = s.run_bare(&["--config", "nope.toml", "config", "check"], &[]);
    fails(&run, 2);
    assert!(
        run.stderr.contains("nope.toml does not exist"),
        "{}",
        run.stderr
    );
}

/// An executable script in the sandbox that runs `body` with the file as $1.
fn editor_script(s: &Sandbox, name: &str, body: &str) -> String {
    let path = s.path(name);
    fs::write(&path, format!("#!/bin/sh\n{body}\n")).unwrap();
    #[cfg(unix)]
    {
        use std::os::unix::fs::PermissionsExt;
        fs::set_permissions(&path, fs::Permissions::from_mode(0o755)).unwrap();
    }
    path.display().to_string()
}

#[test]
fn config_edit_runs_the_editor_then_checks() {
    let s = Sandbox::new();
    let adds = editor_script(
        &s,
        "adds.sh",
        "printf '[servers.e]\\ncommand = \"cat\"\\n' >> \"$1\"",
    );
    let breaks = editor_script(&s, "breaks.sh", "printf 'oops = \\n' >> \"$1\"");
    let file = s.path("new/dir/e.toml");
    let file_s = file.display().to_string();

    // The file and its directory are created by the editor's save.
    let run = run_limited(
        s.command(
            &["--config", &file_s, "config", "edit"],
            &[("EDITOR", &adds)],
        ),
        limit(60),
    );
    run.ok();
    assert_eq!(run.stdout, format!("{file_s}: OK, 1 server (1 enabled)\n"));
    assert_eq!(
        fs::read_to_string(&file).unwrap(),
        "[servers.e]\ncommand = \"cat\"\n"
    );

    // $VISUAL comes before $EDITOR; a broken result is reported with its
    // place, and (not on a terminal) the command fails with a hint.
    let run = run_limited(
        s.command(
            &["--config", &file_s, "config", "edit"],
            &[("VISUAL", &breaks), ("EDITOR", &adds)],
        ),
        limit(60),
    );
    fails(&run, 2);
    assert!(
        run.stderr.contains(&format!("{file_s}:3:")),
        "{}",
        run.stderr
    );
    assert!(
        run.stderr.contains("run `mcpdeck config edit` again"),
        "{}",
        run.stderr
    );
    assert_eq!(
        fs::read_to_string(&file).unwrap(),
        "[servers.e]\ncommand = \"cat\"\noops = \n"
    );

    // An editor that cannot be started.
    let run = run_limited(
        s.command(
            &["--config", &file_s, "config", "edit"],
            &[("EDITOR", "/nonexistent/editor")],
        ),
        limit(60),
    );
    fails(&run, 2);
}

// ----- completions -----

#[test]
fn completion_scripts_for_every_shell() {
    let s = Sandbox::new();
    for shell in ["bash", "zsh", "fish", "elvish", "powershell"] {
        let run = s.run_bare(&["completions", shell], &[]);
        run.ok();
        assert!(run.stdout.len() > 1000, "{shell}: {}", run.stdout);
        for word in [
            "enable",
            "disable",
            "deny",
            "allow",
            "completions",
            "--config",
        ] {
            assert!(run.stdout.contains(word), "{shell} lacks {word}");
        }
    }
    let run = s.run_bare(&["completions", "tcsh"], &[]);
    fails(&run, 2);
}

fn have(program: &str) -> bool {
    Command::new(program)
        .arg("-c")
        .arg("exit 0")
        .stdout(Stdio::null())
        .stderr(Stdio::null())
        .status()
        .is_ok_and(|s| s.success())
}

/// What bash completes for `words` (the last is the word being completed),
/// with the function the script registers for `mcpdeck`.
fn bash_complete(s: &Sandbox, script: &Path, words: &[&str]) -> Vec<String> {
    let quoted: Vec<String> = words.iter().map(|w| format!("'{w}'")).collect();
    let cword = words.len() - 1;
    let program = format!(
        "source '{}'\nCOMP_WORDS=({})\nCOMP_CWORD={cword}\nCOMP_LINE=\"${{COMP_WORDS[*]}}\"\nf=$(complete -p mcpdeck | sed -E 's/.*-F ([^ ]+).*/\\1/')\n\"$f\" mcpdeck \"${{COMP_WORDS[COMP_CWORD]}}\" \"${{COMP_WORDS[COMP_CWORD-1]}}\"\nprintf '%s\\n' \"${{COMPREPLY[@]}}\"\n",
        script.display(),
        quoted.join(" ")
    );
    let run = run_limited(s.shell("bash", &["-c", &program]), limit(60));
    run.ok();
    run.stdout
        .lines()
        .filter(|l| !l.is_empty())
        .map(str::to_owned)
        .collect()
}

#[test]
fn bash_completes_server_names() {
    if !have("bash") {
        eprintln!("bash is not installed: skipped");
        return;
    }
    let s = Sandbox::with(COMMENTED);
    // Another config at the default place, with other names.
    let default = s.path("xdg/config/mcpdeck/config.toml");
    fs::create_dir_all(default.parent().unwrap()).unwrap();
    fs::write(&default, "[servers.dflt]\ncommand = \"cat\"\n").unwrap();
    let script = s.path("mcpdeck.bash");
    fs::write(
        &script,
        s.run_bare(&["completions", "bash"], &[])
            .ok()
            .stdout
            .clone(),
    )
    .unwrap();
    let config = s.config().display().to_string();

    let mut names = bash_complete(&s, &script, &["mcpdeck", "--config", &config, "enable", ""]);
    names.sort();
    assert_eq!(names, ["everything", "inline", "remote"]);
    assert_eq!(
        bash_complete(&s, &script, &["mcpdeck", "--config", &config, "deny", "re"]),
        ["remote"]
    );
    assert_eq!(
        bash_complete(
            &s,
            &script,
            &["mcpdeck", "--config", &config, "info", "inl"]
        ),
        ["inline"]
    );
    // Without --config: the default file's names.
    assert_eq!(
        bash_complete(&s, &script, &["mcpdeck", "remove", ""]),
        ["dflt"]
    );
    // Elsewhere, clap's completion: commands, not the hidden one.
    let commands = bash_complete(&s, &script, &["mcpdeck", "en"]);
    assert_eq!(commands, ["enable"]);
    assert!(bash_complete(&s, &script, &["mcpdeck", "__"]).is_empty());
}

#[test]
fn fish_and_zsh_scripts_complete_server_names_where_installed() {
    let s = Sandbox::with(COMMENTED);
    let config = s.config().display().to_string();
    if have("fish") {
        let script = s.path("mcpdeck.fish");
        fs::write(
            &script,
            s.run_bare(&["completions", "fish"], &[])
                .ok()
                .stdout
                .clone(),
        )
        .unwrap();
        let program = format!(
            "source '{}'; complete -C 'mcpdeck --config {config} disable '",
            script.display()
        );
        let fish = s.shell("fish", &["--no-config", "-c", &program]);
        let run = run_limited(fish, limit(60));
        run.ok();
        let mut names: Vec<&str> = run
            .stdout
            .lines()
            .filter_map(|l| l.split('\t').next())
            .collect();
        names.sort();
        assert_eq!(names, ["everything", "inline", "remote"], "{}", run.stdout);
    } else {
        eprintln!("fish is not installed: skipped");
    }
    if have("zsh") {
        let script = s.path("_mcpdeck");
        let text = s.run_bare(&["completions", "zsh"], &[]).ok().stdout.clone();
        assert!(
            text.contains(
                "':server -- A server configured in the config file:_mcpdeck_server_names'"
            )
        );
        fs::write(&script, text).unwrap();
        // The name lookup itself, with zsh's completion functions stubbed.
        let program = format!(
            "source '{}' 2>/dev/null\n_call_program() {{ shift; \"$@\" }}\n_describe() {{ print -l -- ${{(P)4}} }}\n_default() {{ print DEFAULT }}\nwords=(mcpdeck --config '{config}' enable '')\nCURRENT=4\n_mcpdeck_server_names\n",
            script.display()
        );
        let zsh = s.shell("zsh", &["-f", "-c", &program]);
        let run = run_limited(zsh, limit(60));
        run.ok();
        let mut names: Vec<&str> = run.stdout.lines().collect();
        names.sort();
        assert_eq!(names, ["everything", "inline", "remote"], "{}", run.stdout);
    } else {
        eprintln!("zsh is not installed: skipped");
    }
}

#[test]
fn the_hidden_names_command() {
    let s = Sandbox::with(COMMENTED);
    let run = s.run(&["__servers"]);
    assert_eq!(run.ok().stdout, "everything\nremote\ninline\n");
    // A broken file still gives the names its TOML has; no file, none.
    fs::write(s.config(), BROKEN).unwrap();
    assert_eq!(s.run(&["__servers"]).ok().stdout, "a\n");
    let run = s.run_bare(&["--config", "nope.toml", "__servers"], &[]);
    assert_eq!(run.ok().stdout, "");
    // It is not listed in the help.
    let help = s.run_bare(&["--help"], &[]);
    assert!(!help.ok().stdout.contains("__servers"));
}

/// Waits for the program in the pty to end; its exit code.
fn exit_code(tui: &mut common::pty::Tui) -> u32 {
    let deadline = std::time::Instant::now() + limit(30);
    loop {
        if let Ok(Some(status)) = tui.child.try_wait() {
            return status.exit_code();
        }
        assert!(
            std::time::Instant::now() < deadline,
            "mcpdeck did not end; the screen:\n{}",
            tui.screen()
        );
        std::thread::sleep(std::time::Duration::from_millis(50));
    }
}

#[test]
fn config_edit_on_a_terminal_offers_to_edit_again() {
    let s = Sandbox::new();
    // Breaks the file the first time, fixes it the second.
    let editor = editor_script(
        &s,
        "twice.sh",
        "if [ -e \"$1.seen\" ]; then printf '[servers.e]\\ncommand = \"cat\"\\n' > \"$1\"; else : > \"$1.seen\"; printf 'oops = \\n' >> \"$1\"; fi",
    );
    let file = s.path("e.toml");
    let file_s = file.display().to_string();
    let home = s.path("home").display().to_string();
    let xdg = s.path("xdg/config").display().to_string();
    let env = [
        ("VISUAL", editor.as_str()),
        ("HOME", home.as_str()),
        ("XDG_CONFIG_HOME", xdg.as_str()),
    ];
    let args = ["--config", file_s.as_str(), "config", "edit"];

    let mut tui = common::pty::Tui::spawn(&args, Some(s.dir.path()), &env);
    let screen = tui.wait_for("Edit again? [Y/n]", 30);
    assert!(screen.contains(&format!("{file_s}:1:")), "{screen}");
    tui.keys("\r");
    tui.wait_for("OK, 1 server (1 enabled)", 30);
    assert_eq!(exit_code(&mut tui), 0);
    assert_eq!(
        fs::read_to_string(&file).unwrap(),
        "[servers.e]\ncommand = \"cat\"\n"
    );

    // Answered no: the command fails and says what to do.
    fs::remove_file(s.path("e.toml.seen")).unwrap();
    let mut tui = common::pty::Tui::spawn(&args, Some(s.dir.path()), &env);
    tui.wait_for("Edit again? [Y/n]", 30);
    tui.keys("n\r");
    tui.wait_for("run `mcpdeck config edit` again", 30);
    assert_eq!(exit_code(&mut tui), 2);
}

#[test]
fn deny_and_allow_of_a_tool_refused_by_a_pattern_name_the_pattern_and_change_nothing() {
    let text = "[servers.fs]\ncommand = \"x\"\n# patterns\ndeny_tools = [\"delete_*\"]\n";
    let s = Sandbox::with(text);
    let run = s.run(&["deny", "fs", "delete_file"]);
    run.ok();
    assert!(
        run.stdout
            .contains("is already refused by deny_tools entry \"delete_*\""),
        "{}",
        run.stdout
    );
    assert_eq!(s.text(), text, "no exact entry beside the pattern");
    let run = s.run(&["allow", "fs", "delete_file"]);
    run.ok();
    assert!(
        run.stdout
            .contains("refused by deny_tools entry \"delete_*\", not by its own name"),
        "{}",
        run.stdout
    );
    assert_eq!(s.text(), text);

    // An exact entry beside the pattern: allow removes it, and says the
    // pattern still refuses the tool.
    let both = "[servers.fs]\ncommand = \"x\"\ndeny_tools = [\"delete_*\", \"delete_file\"]\n";
    let s = Sandbox::with(both);
    let run = s.run(&["allow", "fs", "delete_file"]);
    run.ok();
    assert!(
        run.stdout
            .contains("but the tool is still refused by deny_tools entry \"delete_*\""),
        "{}",
        run.stdout
    );
    assert!(
        s.text().contains("deny_tools = [\"delete_*\"]"),
        "{}",
        s.text()
    );

    // Refused by allow_tools: deny changes nothing either.
    let only = "[servers.fs]\ncommand = \"x\"\nallow_tools = [\"read_*\"]\n";
    let s = Sandbox::with(only);
    let run = s.run(&["deny", "fs", "write_file"]);
    run.ok();
    assert!(
        run.stdout.contains("already refused by allow_tools"),
        "{}",
        run.stdout
    );
    assert_eq!(s.text(), only);
}
