//! The MCP Registry from the command line, against tests/servers/
//! fake_registry.py (the API v0.1 with 250-odd entries: every registry
//! type, remotes with variables and secret headers, deprecated and deleted
//! entries, hostile text, identifiers with shell syntax): `registry
//! search` (paging, latest only, the cache, offline), `registry show` (the
//! exact command lines, the inputs), `registry:NAME` targets (inputs from
//! flags, the choice said, refusals), and `registry add` (secrets into the
//! credential store, `${secret:NAME}` in the config). One test runs a real
//! npm package through `registry:NAME` with npx (server-everything, pinned),
//! with npm's cache in the test's folder.

mod common;

use std::path::{Path, PathBuf};
use std::process::{Command, Stdio};

use serde_json::Value;

/// The fake registry (killed and reaped on drop).
struct Fake {
    server: common::HttpServer,
}

impl Fake {
    fn start(args: &[&str]) -> Fake {
        let mut cmd = Command::new("python3");
        cmd.arg(common::server_script("fake_registry.py"))
            .args(args);
        Fake {
            server: common::HttpServer::start_announced(cmd, "/v0.1/servers"),
        }
    }

    fn base(&self) -> String {
        format!("http://127.0.0.1:{}", self.server.port)
    }

    fn requests(&self) -> Vec<String> {
        let text = get(self.server.port, "/_admin/requests");
        serde_json::from_str::<Vec<String>>(&text).unwrap_or_default()
    }
}

fn get(port: u16, path: &str) -> String {
    use std::io::{Read, Write};
    let mut s = std::net::TcpStream::connect(("127.0.0.1", port)).expect("connect");
    s.set_read_timeout(Some(common::limit(10))).ok();
    write!(s, "GET {path} HTTP/1.0\r\nHost: 127.0.0.1\r\n\r\n").expect("write");
    let mut text = String::new();
    s.read_to_string(&mut text).expect("read");
    text.split_once("\r\n\r\n")
        .map(|(_, b)| b.to_string())
        .unwrap_or_default()
}

/// A throw-away home: config, data, cache.
struct Home {
    dir: tempfile::TempDir,
}

impl Home {
    fn new(config: &str) -> Home {
        let dir = tempfile::tempdir().expect("tempdir");
        for sub in ["home", "data", "cache", "state"] {
            std::fs::create_dir_all(dir.path().join(sub)).expect("mkdir");
        }
        std::fs::write(
            dir.path().join("config.toml"),
            format!("[settings]\ncredentials = \"file\"\n{config}"),
        )
        .expect("config");
        Home { dir }
    }

    fn config(&self) -> PathBuf {
        self.dir.path().join("config.toml")
    }

    fn run(&self, args: &[&str]) -> common::Run {
        self.run_env(args, &[])
    }

    fn run_env(&self, args: &[&str], env: &[(&str, &Path)]) -> common::Run {
        let d = self.dir.path();
        let mut cmd = Command::new(common::mcpdeck_bin());
        cmd.args(args)
            .stdin(Stdio::null())
            .stdout(Stdio::piped())
            .stderr(Stdio::piped())
            .env("MCPDECK_CONFIG", self.config())
            .env("HOME", d.join("home"))
            .env("XDG_DATA_HOME", d.join("data"))
            .env("XDG_CACHE_HOME", d.join("cache"))
            .env("XDG_STATE_HOME", d.join("state"));
        for (k, v) in env {
            cmd.env(k, v);
        }
        common::run_limited(cmd, common::limit(120))
    }
}

fn json(r: &common::Run) -> Value {
    serde_json::from_str(&r.stdout).unwrap_or_else(|e| panic!("{e}: {}\n{}", r.stdout, r.stderr))
}

fn names(v: &Value) -> Vec<String> {
    v["servers"]
        .as_array()
        .map(|a| {
            a.iter()
                .filter_map(|s| s["name"].as_str().map(String::from))
                .collect()
        })
        .unwrap_or_default()
}

#[test]
fn search_pages_through_every_entry_latest_only_without_deleted() {
    let fake = Fake::start(&[]);
    let home = Home::new("");
    let base = fake.base();
    let r = home.run(&["registry", "search", "--all", "--json", "--registry", &base]);
    assert_eq!(r.code, 0, "{}", r.stderr);
    let v = json(&r);
    let all = names(&v);
    assert!(all.len() > 200, "{}", all.len());
    let mut unique = all.clone();
    unique.sort();
    unique.dedup();
    assert_eq!(unique.len(), all.len(), "one entry per name (latest only)");
    assert!(!all.iter().any(|n| n == "io.example/deleted-server"));
    let old = v["servers"]
        .as_array()
        .and_then(|a| a.iter().find(|s| s["name"] == "io.example/old"))
        .cloned()
        .unwrap_or_default();
    assert_eq!(old["status"], "deprecated");
    assert_eq!(old["statusMessage"], "use io.example/new instead");
    // Several pages were asked for, each with the cursor of the last.
    let pages = fake
        .requests()
        .iter()
        .filter(|p| p.starts_with("/v0.1/servers?"))
        .count();
    assert!(pages >= 3, "{:?}", fake.requests());
    assert!(
        fake.requests()
            .iter()
            .all(|p| !p.starts_with("/v0.1/servers?") || p.contains("version=latest"))
    );

    // A query, a limit; the text output marks the deprecated one.
    let r = home.run(&["registry", "search", "old", "--registry", &base]);
    assert_eq!(r.code, 0, "{}", r.stderr);
    assert!(
        r.stdout
            .contains("io.example/old 1.0.0  [deprecated: use io.example/new instead]"),
        "{}",
        r.stdout
    );
    let r = home.run(&[
        "registry",
        "search",
        "bulk",
        "--limit",
        "5",
        "--json",
        "--registry",
        &base,
    ]);
    let v = json(&r);
    assert_eq!(names(&v).len(), 5);
    assert_eq!(v["more"], true);
    let r = home.run(&["registry", "search", "--limit", "0", "--registry", &base]);
    assert_eq!(r.code, 2, "{}", r.stderr);
    assert!(r.stderr.contains("--limit 0"), "{}", r.stderr);
}

#[test]
fn a_repeated_search_comes_from_the_cache_and_offline_still_answers() {
    let fake = Fake::start(&[]);
    let home = Home::new("");
    let base = fake.base();
    let first = home.run(&[
        "registry",
        "search",
        "weather",
        "--json",
        "--registry",
        &base,
    ]);
    assert_eq!(first.code, 0, "{}", first.stderr);
    let asked = fake.requests().len();
    let again = home.run(&[
        "registry",
        "search",
        "weather",
        "--json",
        "--registry",
        &base,
    ]);
    assert_eq!(again.code, 0);
    assert_eq!(json(&again)["cached"], true);
    assert_eq!(names(&json(&again)), names(&json(&first)));
    assert_eq!(
        fake.requests().len(),
        asked,
        "no request for a cached search"
    );
    let fresh = home.run(&[
        "registry",
        "search",
        "weather",
        "--json",
        "--refresh",
        "--registry",
        &base,
    ]);
    assert_eq!(json(&fresh)["cached"], false);
    assert!(fake.requests().len() > asked);
    // The registry gone: --refresh falls back to the cache, and says so.
    drop(fake);
    let offline = home.run(&[
        "registry",
        "search",
        "weather",
        "--refresh",
        "--registry",
        &base,
    ]);
    assert_eq!(offline.code, 0, "{}", offline.stderr);
    assert!(
        offline.stderr.contains("cannot be reached"),
        "{}",
        offline.stderr
    );
    assert!(
        offline.stderr.contains("cached results"),
        "{}",
        offline.stderr
    );
    assert!(offline.stdout.contains("weather"), "{}", offline.stdout);
    // Never asked before and unreachable: a clear error, exit 3.
    let never = home.run(&["registry", "search", "nothing-like-it", "--registry", &base]);
    assert_eq!(never.code, 3, "{}", never.stderr);
}

#[test]
fn show_says_what_each_way_runs_and_what_it_needs() {
    let fake = Fake::start(&[]);
    let home = Home::new("");
    let base = fake.base();
    let r = home.run(&[
        "registry",
        "show",
        "io.github.example/weather-py",
        "--registry",
        &base,
    ]);
    assert_eq!(r.code, 0, "{}", r.stderr);
    assert!(r.stdout.contains("package 1: pypi"), "{}", r.stdout);
    assert!(r.stdout.contains("runtime: uvx"), "{}", r.stdout);
    assert!(r.stdout.contains("(required, secret)"), "{}", r.stdout);
    let r = home.run(&[
        "registry",
        "show",
        "io.github.modelcontextprotocol/server-everything",
        "--json",
        "--registry",
        &base,
    ]);
    let v = json(&r);
    let way = &v["ways"][0];
    assert_eq!(
        way["argv"],
        serde_json::json!([
            "npx",
            "-y",
            "@modelcontextprotocol/server-everything@2026.8.31"
        ])
    );
    // A remote with a {tenant} and a secret header: what to pass.
    let r = home.run(&[
        "registry",
        "show",
        "io.example/tenant-remote",
        "--registry",
        &base,
    ]);
    assert!(r.stdout.contains("--var tenant=…"), "{}", r.stdout);
    assert!(
        r.stdout.contains("one of acme, globex, initech"),
        "{}",
        r.stdout
    );
    // Hostile text arrives as placeholders, never as escapes.
    let r = home.run(&[
        "registry",
        "show",
        "io.example/hostile-text",
        "--registry",
        &base,
    ]);
    assert_eq!(r.code, 0, "{}", r.stderr);
    assert!(
        !r.stdout.contains('\u{1b}') && !r.stdout.contains('\u{202e}'),
        "{:?}",
        r.stdout
    );
    assert!(r.stdout.contains("␛"), "{}", r.stdout);
}

#[test]
fn identifiers_with_shell_syntax_are_refused_and_nothing_runs() {
    let fake = Fake::start(&[]);
    let home = Home::new("");
    let base = fake.base();
    for name in [
        "io.example/evil-npm",
        "io.example/evil-pypi",
        "io.example/evil-oci",
        "io.example/evil-hint",
    ] {
        let target = format!("registry:{name}");
        let r = home.run(&["tools", &target, "--registry", &base]);
        assert_eq!(r.code, 2, "{name}: {}\n{}", r.stdout, r.stderr);
        assert!(r.stderr.contains("refused"), "{name}: {}", r.stderr);
    }
}

#[test]
fn a_required_input_without_a_value_names_its_flag() {
    let fake = Fake::start(&[]);
    let home = Home::new("");
    let base = fake.base();
    let r = home.run(&[
        "tools",
        "registry:io.example/tenant-remote",
        "--registry",
        &base,
    ]);
    assert_eq!(r.code, 2, "{}", r.stderr);
    assert!(r.stderr.contains("--var tenant=…"), "{}", r.stderr);
    assert!(r.stderr.contains("--var api_key=…"), "{}", r.stderr);
    // A value outside the choices.
    let r = home.run(&[
        "tools",
        "registry:io.example/tenant-remote",
        "--var",
        "tenant=nope",
        "--var",
        "api_key=k",
        "--registry",
        &base,
    ]);
    assert_eq!(r.code, 2, "{}", r.stderr);
    assert!(
        r.stderr.contains("not one of acme, globex, initech"),
        "{}",
        r.stderr
    );
    // A secret in the URL is never printed (the template is shown).
    let r = home.run(&[
        "tools",
        "registry:io.example/tenant-remote",
        "--var",
        "tenant=acme",
        "--var",
        "api_key=SEKRIT-9x",
        "--registry",
        &base,
        "--timeout",
        "3",
    ]);
    assert!(
        !r.stderr.contains("SEKRIT-9x") && !r.stdout.contains("SEKRIT-9x"),
        "{}",
        r.stderr
    );
    assert!(
        r.stderr
            .contains("remote 1: streamable-http https://{tenant}.mcp.example.com/mcp"),
        "{}",
        r.stderr
    );
    // Inputs without a registry: target are a usage error.
    let r = home.run(&["tools", "https://example.com/mcp", "--var", "x=1"]);
    assert_eq!(r.code, 2);
    assert!(
        r.stderr.contains("for a registry:NAME target"),
        "{}",
        r.stderr
    );
}

/// The one test that runs npx: `registry:NAME` is about running what the
/// registry names. npm's cache is the test's own folder.
#[test]
fn a_real_npm_package_runs_through_a_registry_target() {
    let fake = Fake::start(&[]);
    let home = Home::new("");
    let base = fake.base();
    let npm_cache = home.dir.path().join("npm-cache");
    let r = home.run_env(
        &[
            "tools",
            "registry:io.github.modelcontextprotocol/server-everything@2026.8.31",
            "--json",
            "--registry",
            &base,
            "--timeout",
            "110",
        ],
        &[("npm_config_cache", &npm_cache)],
    );
    assert_eq!(r.code, 0, "{}\n{}", r.stdout, r.stderr);
    assert!(
        r.stderr
            .contains("package 1: npm @modelcontextprotocol/server-everything 2026.8.31"),
        "{}",
        r.stderr
    );
    let v = json(&r);
    let tools: Vec<&str> = v["tools"]
        .as_array()
        .map(|a| a.iter().filter_map(|t| t["name"].as_str()).collect())
        .unwrap_or_default();
    assert!(tools.contains(&"echo"), "{tools:?}");
    assert!(npm_cache.exists(), "npm used the test's cache");
}

/// `registry add`: the remote's secret header goes to the credential
/// store and the config says `${secret:NAME}` under a comment naming the
/// entry; the server then gets the header from the store, and the value
/// shows nowhere (the config, the trace, the output).
#[test]
fn add_keeps_the_secret_out_of_the_config_and_the_server_gets_it() {
    let mut mcp = Command::new("python3");
    mcp.arg(common::server_script("fake_http.py")).arg("basic");
    let mcp = common::HttpServer::start_announced(mcp, "/mcp");
    let fake = Fake::start(&["--local-remote", &mcp.url]);
    let home = Home::new("");
    let base = fake.base();
    let secret = "s3cr3t-Kq81-value";
    let add = home.run(&[
        "registry",
        "add",
        "io.example/local-remote",
        "--header",
        &format!("X-Api-Key={secret}"),
        "--yes",
        "--registry",
        &base,
    ]);
    assert_eq!(add.code, 0, "{}\n{}", add.stdout, add.stderr);
    let config = std::fs::read_to_string(home.config()).expect("config");
    assert!(
        config.contains("# from the MCP Registry: io.example/local-remote 1.0.0"),
        "{config}"
    );
    assert!(config.contains("[servers.local-remote]"), "{config}");
    assert!(
        config.contains("X-Api-Key = \"${secret:local-remote_X-Api-Key}\""),
        "{config}"
    );
    assert!(!config.contains(secret), "{config}");
    assert!(!add.stdout.contains(secret) && !add.stderr.contains(secret));
    // The server gets the header from the store.
    let tools = home.run(&["--trace", "tools", "local-remote"]);
    assert_eq!(tools.code, 0, "{}\n{}", tools.stdout, tools.stderr);
    assert!(tools.stdout.contains("echo"), "{}", tools.stdout);
    assert!(!tools.stdout.contains(secret) && !tools.stderr.contains(secret));
    let log = get(mcp.port, "/_log");
    let log: Vec<Value> = serde_json::from_str(&log).expect("the fake's log");
    assert!(!log.is_empty());
    assert!(
        log.iter()
            .filter(|r| r["method"] == "POST")
            .all(|r| r["headers"]["x-api-key"] == secret),
        "{log:?}"
    );
    // The same name again is refused before anything is stored.
    let stored = std::fs::read_to_string(home.dir.path().join("data/mcpdeck/secrets.json"))
        .expect("the secrets file");
    let again = home.run(&[
        "registry",
        "add",
        "io.example/local-remote",
        "--header",
        "X-Api-Key=other-value",
        "--yes",
        "--registry",
        &base,
    ]);
    assert_eq!(again.code, 2, "{}", again.stderr);
    assert!(
        again
            .stderr
            .contains("already has a server named \"local-remote\""),
        "{}",
        again.stderr
    );
    assert_eq!(
        std::fs::read_to_string(home.dir.path().join("data/mcpdeck/secrets.json")).expect("file"),
        stored
    );
    // Without the header the add is refused, naming the flag.
    let home2 = Home::new("");
    let r = home2.run(&[
        "registry",
        "add",
        "io.example/local-remote",
        "--yes",
        "--registry",
        &base,
    ]);
    assert_eq!(r.code, 2, "{}", r.stderr);
    assert!(r.stderr.contains("--header X-Api-Key=…"), "{}", r.stderr);
}

/// Every package type's command line, as an argument list (shell syntax
/// in values stays one argument, never interpreted), the default way (a
/// remote when there is one), and mcpb said unsupported.
#[test]
fn every_registry_type_builds_its_command_as_a_list() {
    let fake = Fake::start(&[]);
    let home = Home::new("");
    let base = fake.base();
    let show = |name: &str, extra: &[&str]| {
        let mut args = vec![
            "registry",
            "show",
            name,
            "--json",
            "--registry",
            base.as_str(),
        ];
        args.extend_from_slice(extra);
        let r = home.run(&args);
        assert_eq!(r.code, 0, "{name}: {}", r.stderr);
        json(&r)
    };
    let v = show(
        "io.example/docker-tool",
        &["--var", "source_path=/srv/data"],
    );
    let argv: Vec<String> =
        serde_json::from_value(v["ways"][0]["argv"].clone()).unwrap_or_default();
    assert_eq!(&argv[..4], ["docker", "run", "-i", "--rm"], "{argv:?}");
    assert!(
        argv.iter()
            .any(|a| a == "ghcr.io/example/docker-tool:1.2.0"),
        "{argv:?}"
    );
    // A {variable} with choices takes only one of them.
    let v = show(
        "io.example/docker-tool",
        &["--var", "source_path=/srv/data", "--var", "log_level=nope"],
    );
    assert!(
        v["ways"][0]["error"]
            .as_str()
            .unwrap_or_default()
            .contains("\"nope\" is not one of debug, info"),
        "{v}"
    );
    let v = show(
        "io.example/nuget-weather",
        &["--env", "WEATHER_CHOICES=sunny"],
    );
    let argv: Vec<String> =
        serde_json::from_value(v["ways"][0]["argv"].clone()).unwrap_or_default();
    assert_eq!(argv[0], "dnx");
    assert!(
        argv.contains(&"Knapcode.SampleMcpServer@0.5.0".to_string()),
        "{argv:?}"
    );
    let v = show("io.example/text-editor-bundle", &[]);
    assert!(
        v["ways"][0]["error"]
            .as_str()
            .unwrap_or_default()
            .contains("mcpb is not supported yet"),
        "{v}"
    );
    let v = show("io.example/hybrid", &[]);
    let default: Vec<&str> = v["ways"]
        .as_array()
        .map(|w| {
            w.iter()
                .filter(|w| w["default"] == true)
                .filter_map(|w| w["way"].as_str())
                .collect()
        })
        .unwrap_or_default();
    assert_eq!(default.len(), 1);
    assert!(default[0].starts_with("remote 1"), "{default:?}");
    // A runtime option the entry asks for (npx's --node-options) is refused.
    let v = show("io.example/evil-args", &[]);
    let e = v["ways"][0]["error"]
        .as_str()
        .unwrap_or_default()
        .to_string();
    assert!(e.contains("refused") && e.contains("--node-options"), "{v}");
    // --arg gives an argument by name; --var fills a {variable}.
    let v = show(
        "io.github.example/weather-py",
        &[
            "--env",
            "WEATHER_API_KEY=k",
            "--var",
            "config_dir=/etc/w",
            "--arg",
            "units=metric",
        ],
    );
    let argv: Vec<String> =
        serde_json::from_value(v["ways"][0]["argv"].clone()).unwrap_or_default();
    assert_eq!(argv[0], "uvx", "{argv:?}");
    assert!(
        argv.windows(2).any(|w| w == ["--units", "metric"]),
        "{argv:?}"
    );
    assert!(
        argv.contains(&"/etc/w/weather.toml".to_string()),
        "{argv:?}"
    );
    assert!(
        !argv.contains(&"k".to_string()),
        "the secret env value is not an argument"
    );
    let v = show("io.github.example/weather-py", &[]);
    assert!(
        v["ways"][0]["error"]
            .as_str()
            .unwrap_or_default()
            .contains("--env WEATHER_API_KEY=…"),
        "{v}"
    );
}
