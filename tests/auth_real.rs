//! OAuth end to end: a real SDK's OAuth-protected example server logged into
//! with `mcpdeck auth login` and used with the stored token; and, against
//! tests/servers/oauth_refresh.py (an MCP server that is its own
//! authorization server and rotates refresh tokens), refresh: one refresh
//! for 8 concurrent calls, the rotated refresh token stored and used by the
//! next run, no extra round trip with a valid token, and a clear exit 4 when
//! the refresh fails.
//!
//! Every mcpdeck run gets a throw-away HOME and XDG_DATA_HOME, so the file
//! credential store is the test's own. The tests that drive the library in
//! process (concurrent calls through one HTTP session) run in a child
//! process of this test binary, started with those variables set, since
//! the store's directory comes from the environment.

mod common;

use std::io::{BufRead, Read, Write};
use std::path::{Path, PathBuf};
use std::process::{Child, Command, Stdio};
use std::time::{Duration, Instant};

use serde_json::{Value, json};

// ---------------------------------------------------------------------------
// A throw-away home with a config and a file credential store.

struct Sandbox {
    dir: tempfile::TempDir,
}

impl Sandbox {
    /// A config with a redirect-following browser command, the file store,
    /// and `servers` (name, url) with no other settings.
    fn new(servers: &[(&str, &str)]) -> Sandbox {
        let dir = tempfile::tempdir().expect("tempdir");
        std::fs::create_dir_all(dir.path().join("home")).expect("home");
        let sb = Sandbox { dir };
        sb.write_config(servers);
        sb
    }

    fn write_config(&self, servers: &[(&str, &str)]) {
        let mut text = String::from(
            "[settings]\nbrowser = \"curl -fsSL -o /dev/null\"\ncredentials = \"file\"\n",
        );
        for (name, url) in servers {
            text.push_str(&format!("\n[servers.{name}]\nurl = \"{url}\"\n"));
        }
        std::fs::write(self.config(), text).expect("write config");
    }

    fn config(&self) -> PathBuf {
        self.dir.path().join("config.toml")
    }

    fn home(&self) -> PathBuf {
        self.dir.path().join("home")
    }

    fn data(&self) -> PathBuf {
        self.dir.path().join("data")
    }

    fn store_dir(&self) -> PathBuf {
        self.data().join("mcpdeck")
    }

    fn credentials_path(&self) -> PathBuf {
        self.store_dir().join("credentials.json")
    }

    /// The credentials file as text ("" when there is none).
    fn credentials_text(&self) -> String {
        std::fs::read_to_string(self.credentials_path()).unwrap_or_default()
    }

    fn credentials(&self) -> Value {
        serde_json::from_str(&self.credentials_text()).expect("credentials.json is JSON")
    }

    /// The stored tokens.
    fn tokens(&self) -> Vec<Value> {
        match std::fs::read_to_string(self.credentials_path()) {
            Ok(text) => {
                serde_json::from_str::<Value>(&text).expect("credentials.json is JSON")["tokens"]
                    .as_array()
                    .cloned()
                    .unwrap_or_default()
            }
            Err(_) => Vec::new(),
        }
    }

    /// The one stored token (fails unless there is exactly one).
    fn token(&self) -> Value {
        let tokens = self.tokens();
        assert_eq!(tokens.len(), 1, "stored tokens: {tokens:?}");
        tokens[0].clone()
    }

    fn env(&self) -> Vec<(String, String)> {
        let s = |p: PathBuf| p.display().to_string();
        vec![
            ("HOME".into(), s(self.home())),
            ("XDG_DATA_HOME".into(), s(self.data())),
            ("MCPDECK_CONFIG".into(), s(self.config())),
        ]
    }

    /// Run mcpdeck (stdin null, no terminal) in this sandbox.
    fn run(&self, args: &[&str]) -> common::Run {
        let mut cmd = Command::new(common::mcpdeck_bin());
        cmd.args(args)
            .stdin(Stdio::null())
            .stdout(Stdio::piped())
            .stderr(Stdio::piped())
            .env_remove("MCPDECK_BROWSER")
            .env_remove("BROWSER");
        for (k, v) in self.env() {
            cmd.env(k, v);
        }
        common::run_limited(cmd, common::limit(60))
    }
}

/// Unix permission bits of a path.
fn mode(path: &Path) -> u32 {
    use std::os::unix::fs::PermissionsExt;
    std::fs::metadata(path)
        .unwrap_or_else(|e| panic!("{}: {e}", path.display()))
        .permissions()
        .mode()
        & 0o777
}

fn now() -> u64 {
    std::time::SystemTime::now()
        .duration_since(std::time::UNIX_EPOCH)
        .expect("clock")
        .as_secs()
}

fn all_output(runs: &[&common::Run]) -> String {
    runs.iter()
        .map(|r| format!("{}\n{}", r.stdout, r.stderr))
        .collect::<Vec<_>>()
        .join("\n")
}

// ---------------------------------------------------------------------------
// Child processes, killed and reaped on drop (never a process group).

struct Proc {
    child: Child,
    what: String,
}

impl Proc {
    fn alive(&mut self) -> bool {
        matches!(self.child.try_wait(), Ok(None))
    }
}

impl Drop for Proc {
    fn drop(&mut self) {
        let _ = self.child.kill();
        let _ = self.child.wait();
    }
}

fn wait_listening(proc: &mut Proc, ports: &[u16]) -> bool {
    let deadline = Instant::now() + common::limit(30);
    while Instant::now() < deadline {
        if !proc.alive() {
            return false;
        }
        if ports
            .iter()
            .all(|p| std::net::TcpStream::connect(("127.0.0.1", *p)).is_ok())
        {
            return true;
        }
        std::thread::sleep(Duration::from_millis(50));
    }
    panic!("{} did not listen on {ports:?} in time", proc.what);
}

// ---------------------------------------------------------------------------
// The TypeScript SDK's simpleStreamableHttp example with --oauth.

fn sdk_example_js() -> PathBuf {
    let nm = std::env::var_os("MCPDECK_TEST_NODE_MODULES")
        .map(PathBuf::from)
        .unwrap_or_else(|| common::repo().join("tests/deps/node_modules"));
    let js = nm.join("@modelcontextprotocol/sdk/dist/esm/examples/server/simpleStreamableHttp.js");
    assert!(
        js.exists(),
        "the TypeScript SDK's example server is missing at {}: run the README's test command (scripts/test.sh), which installs the test servers",
        js.display()
    );
    js
}

struct SdkServer {
    _proc: Proc,
    port: u16,
    auth_port: u16,
    marker: String,
}

impl SdkServer {
    /// The example on free ports; `oauth` adds `--oauth` (its demo
    /// authorization server, which redirects back at once with a code).
    fn start(oauth: bool) -> SdkServer {
        let js = sdk_example_js();
        for _ in 0..3 {
            let port = common::free_port();
            let auth_port = loop {
                let p = common::free_port();
                if p != port {
                    break p;
                }
            };
            let marker = common::marker("sdk-oauth");
            let mut cmd = Command::new("node");
            cmd.arg("--require")
                .arg(common::server_script("loopback.cjs"))
                .arg(&js);
            if oauth {
                cmd.arg("--oauth");
            }
            // The example ignores other arguments: a marker to find it by.
            cmd.arg(&marker)
                .env("MCP_PORT", port.to_string())
                .env("MCP_AUTH_PORT", auth_port.to_string())
                .stdin(Stdio::null())
                .stdout(Stdio::null())
                .stderr(Stdio::null());
            let child = cmd.spawn().expect("spawn node");
            let mut proc = Proc {
                child,
                what: "the SDK example server".into(),
            };
            let ports: Vec<u16> = if oauth {
                vec![port, auth_port]
            } else {
                vec![port]
            };
            // It exits at once when a port was taken meanwhile: new ports.
            if wait_listening(&mut proc, &ports) {
                return SdkServer {
                    _proc: proc,
                    port,
                    auth_port,
                    marker,
                };
            }
        }
        panic!("the SDK example server did not start (three tries)");
    }

    /// The URL its protected resource metadata names (localhost).
    fn url(&self) -> String {
        format!("http://localhost:{}/mcp", self.port)
    }
}

fn tool_names(tools_json: &str) -> Vec<String> {
    let v: Value = serde_json::from_str(tools_json)
        .unwrap_or_else(|e| panic!("`tools --json` printed no JSON ({e}):\n{tools_json}"));
    let mut names: Vec<String> = v["tools"]
        .as_array()
        .unwrap_or_else(|| panic!("no tools array:\n{tools_json}"))
        .iter()
        .map(|t| t["name"].as_str().unwrap_or_default().to_string())
        .collect();
    names.sort();
    names
}

#[test]
fn sdk_example_server_login_tools_status_logout() {
    // The same example without --oauth, for the list of tools to expect.
    let open = SdkServer::start(false);
    let expected = {
        let sb = Sandbox::new(&[]);
        let run = sb.run(&["tools", &open.url(), "--json"]);
        run.ok();
        tool_names(&run.stdout)
    };
    assert!(!expected.is_empty(), "the example lists no tools");
    let open_marker = open.marker.clone();
    drop(open);
    common::assert_no_leak(&open_marker);

    let server = SdkServer::start(true);
    let url = server.url();
    let sb = Sandbox::new(&[("sdk", &url)]);

    // Before a login, a command says how to log in (exit 4, no terminal).
    let before = sb.run(&["tools", "sdk"]);
    assert_eq!(before.code, 4, "{}", all_output(&[&before]));
    assert!(
        before.stderr.contains("mcpdeck auth login sdk"),
        "{}",
        before.stderr
    );

    let login = sb.run(&["auth", "login", "sdk"]);
    login.ok();
    assert!(
        login.stdout.contains("logged in to sdk"),
        "{}",
        login.stdout
    );
    // The URL is shown (on stderr) as well as opened.
    assert!(
        login
            .stderr
            .contains(&format!("http://localhost:{}/authorize?", server.auth_port)),
        "{}",
        login.stderr
    );

    // The token is in the file store: 0600 in a 0700 directory.
    let token = sb.token();
    let access = token["access_token"].as_str().expect("access_token");
    assert!(!access.is_empty());
    assert_eq!(token["server_url"], url.as_str());
    let issuer = token["issuer"].as_str().expect("issuer").to_string();
    assert!(
        issuer.starts_with(&format!("http://localhost:{}", server.auth_port)),
        "issuer {issuer}"
    );
    assert_eq!(mode(&sb.credentials_path()), 0o600);
    assert_eq!(mode(&sb.store_dir()), 0o700);
    let mut secrets = vec![access.to_string()];
    for s in [&token["refresh_token"]]
        .into_iter()
        .chain(
            sb.credentials()["clients"]
                .as_array()
                .into_iter()
                .flatten()
                .map(|c| &c["client_secret"]),
        )
        .filter_map(Value::as_str)
    {
        secrets.push(s.to_string());
    }

    // The stored token is used: the example's tools are listed.
    let tools = sb.run(&["tools", "sdk", "--json"]);
    tools.ok();
    assert_eq!(tool_names(&tools.stdout), expected);
    // And a tool call works with it.
    let call = sb.run(&["call", "sdk", "greet", r#"{"name":"deck"}"#]);
    call.ok();
    assert!(call.stdout.contains("deck"), "{}", call.stdout);

    // Status: server, issuer, scopes, expiry, storage; never a secret.
    let status = sb.run(&["auth", "status", "--json"]);
    status.ok();
    let v: Value = serde_json::from_str(&status.stdout).expect("status JSON");
    let row = v["servers"]
        .as_array()
        .and_then(|l| l.iter().find(|r| r["server"] == "sdk"))
        .unwrap_or_else(|| panic!("no row for sdk: {v}"))
        .clone();
    assert_eq!(row["logged_in"], true, "{row}");
    assert_eq!(row["issuer"], issuer.as_str());
    assert_eq!(row["scopes"], token["scopes"]);
    assert!(
        row["scopes"].as_array().is_some_and(|s| !s.is_empty()),
        "{row}"
    );
    assert_eq!(row["expires_at"], token["expires_at"]);
    assert!(
        row["expires_at"].as_u64().is_some_and(|e| e > now()),
        "{row}"
    );
    assert_eq!(row["expired"], false);
    let storage = row["storage"].as_str().unwrap_or_default();
    assert!(
        storage.contains(&sb.credentials_path().display().to_string()),
        "{storage}"
    );
    let plain = sb.run(&["auth", "status"]);
    plain.ok();
    assert!(plain.stdout.contains("sdk"), "{}", plain.stdout);
    assert!(plain.stdout.contains(&issuer), "{}", plain.stdout);

    // No secret in anything printed so far.
    let printed = all_output(&[&login, &tools, &call, &status, &plain]);
    for s in &secrets {
        assert!(!printed.contains(s.as_str()), "a secret was printed");
    }

    // Log out: the token is forgotten.
    let logout = sb.run(&["auth", "logout", "sdk"]);
    logout.ok();
    assert!(logout.stdout.contains("forgotten"), "{}", logout.stdout);
    assert!(!logout.stdout.contains(access) && !logout.stderr.contains(access));
    assert!(
        !sb.credentials_text().contains(access),
        "the access token is still in the file"
    );
    assert!(sb.tokens().is_empty(), "{:?}", sb.tokens());
    let status = sb.run(&["auth", "status", "--json"]);
    status.ok();
    let v: Value = serde_json::from_str(&status.stdout).expect("status JSON");
    assert_eq!(v["servers"][0]["server"], "sdk");
    assert_eq!(v["servers"][0]["logged_in"], false, "{v}");
    let after = sb.run(&["tools", "sdk"]);
    assert_eq!(after.code, 4, "{}", all_output(&[&after]));
    assert!(after.stderr.contains("mcpdeck auth login sdk"));

    let marker = server.marker.clone();
    drop(server);
    common::assert_no_leak(&marker);
}

// ---------------------------------------------------------------------------
// tests/servers/oauth_refresh.py

struct Fake {
    _proc: Proc,
    port: u16,
}

impl Fake {
    fn start(args: &[&str]) -> Fake {
        Fake::start_with(PathBuf::from("python3"), args)
    }

    /// With this python (`--dpop` needs the test venv's PyJWT).
    fn start_with(python: PathBuf, args: &[&str]) -> Fake {
        let mut cmd = Command::new(python);
        cmd.arg(common::server_script("oauth_refresh.py"))
            .args(args)
            .stdin(Stdio::null())
            .stdout(Stdio::piped())
            .stderr(Stdio::inherit());
        let mut child = cmd.spawn().expect("spawn python3");
        let stdout = child.stdout.take().expect("stdout");
        let proc = Proc {
            child,
            what: "oauth_refresh.py".into(),
        };
        let (tx, rx) = std::sync::mpsc::channel();
        std::thread::spawn(move || {
            let mut line = String::new();
            let _ = std::io::BufReader::new(stdout).read_line(&mut line);
            let _ = tx.send(line);
        });
        let line = rx.recv_timeout(common::limit(20)).unwrap_or_default();
        let port = line
            .trim()
            .strip_prefix("PORT ")
            .and_then(|p| p.parse().ok())
            .unwrap_or_else(|| panic!("oauth_refresh.py did not announce its port: {line:?}"));
        Fake { _proc: proc, port }
    }

    fn url(&self) -> String {
        format!("http://127.0.0.1:{}/mcp", self.port)
    }

    /// One request to a test hook.
    fn admin(&self, method: &str, path: &str, body: Option<Value>) -> Value {
        let mut s = std::net::TcpStream::connect(("127.0.0.1", self.port)).expect("connect");
        s.set_read_timeout(Some(common::limit(20))).ok();
        let body = body.map(|b| b.to_string()).unwrap_or_default();
        write!(
            s,
            "{method} {path} HTTP/1.1\r\nHost: 127.0.0.1\r\nConnection: close\r\nContent-Type: application/json\r\nContent-Length: {}\r\n\r\n{body}",
            body.len()
        )
        .expect("write");
        let mut text = String::new();
        s.read_to_string(&mut text).expect("read");
        let (head, body) = text.split_once("\r\n\r\n").expect("an HTTP answer");
        assert!(head.starts_with("HTTP/1.1 200"), "{method} {path}: {head}");
        serde_json::from_str(body).unwrap_or_else(|e| panic!("{path}: {e}: {body}"))
    }

    fn counts(&self) -> Value {
        self.admin("GET", "/_admin/counts", None)
    }

    fn tokens(&self) -> Value {
        self.admin("GET", "/_admin/tokens", None)
    }

    fn set(&self, change: Value) {
        self.admin("POST", "/_admin/set", Some(change));
    }

    fn reset(&self) {
        self.admin("POST", "/_admin/reset", None);
    }

    /// The last tokens issued (access, refresh).
    fn last_issued(&self) -> (String, String) {
        let t = self.tokens();
        let last = t["issued"]
            .as_array()
            .and_then(|l| l.last())
            .unwrap_or_else(|| panic!("nothing issued: {t}"))
            .clone();
        (
            last["access_token"].as_str().unwrap_or_default().into(),
            last["refresh_token"].as_str().unwrap_or_default().into(),
        )
    }
}

fn num(v: &Value) -> u64 {
    v.as_u64().unwrap_or(0)
}

/// The requests a run made that belong to OAuth, not to MCP.
fn oauth_requests(counts: &Value) -> Vec<String> {
    counts["requests"]
        .as_object()
        .map(|m| {
            m.keys()
                .filter(|k| !k.ends_with(" /mcp"))
                .cloned()
                .collect()
        })
        .unwrap_or_default()
}

fn logged_in(fake: &Fake) -> Sandbox {
    let sb = Sandbox::new(&[("f", &fake.url())]);
    let login = sb.run(&["auth", "login", "f"]);
    login.ok();
    sb
}

#[test]
fn the_rotated_refresh_token_is_stored_and_the_next_run_refreshes_with_it() {
    // The login's token is due at once (fresh() refreshes 30 s early).
    let fake = Fake::start(&["--expires-in", "5"]);
    let sb = logged_in(&fake);
    let first = sb.token();
    let (_, rt1) = fake.last_issued();
    assert_eq!(first["refresh_token"], rt1.as_str());
    // Tokens from now on live an hour.
    fake.set(json!({"expires_in": 3600}));
    fake.reset();

    // Run 1 refreshes ahead of expiry, once.
    let run = sb.run(&["call", "f", "t1"]);
    run.ok();
    assert!(run.stdout.contains("called t1"), "{}", run.stdout);
    let c = fake.counts();
    assert_eq!(num(&c["refresh_ok"]), 1, "{c}");
    assert_eq!(num(&c["refresh_rejected"]), 0, "{c}");
    assert_eq!(num(&c["unauthorized"]), 0, "{c}");
    // The rotated refresh token is the stored one; the old one is spent.
    let (at2, rt2) = fake.last_issued();
    assert_ne!(rt2, rt1);
    let stored = sb.token();
    assert_eq!(stored["refresh_token"], rt2.as_str());
    assert_eq!(stored["access_token"], at2.as_str());
    assert!(!sb.credentials_text().contains(&rt1));
    assert_eq!(fake.tokens()["refresh"], json!([rt2]));
    // The call carried the new access token.
    assert_eq!(c["call_tokens"], json!([at2]));

    // Run 2: the server refuses the stored access token; the refresh with
    // the stored (rotated) refresh token succeeds, and rotates again.
    fake.set(json!({"reject_access": true}));
    fake.reset();
    let run = sb.run(&["call", "f", "t2"]);
    run.ok();
    assert!(run.stdout.contains("called t2"), "{}", run.stdout);
    let c = fake.counts();
    assert_eq!(num(&c["refresh_ok"]), 1, "{c}");
    assert_eq!(num(&c["refresh_rejected"]), 0, "{c}");
    let (at3, rt3) = fake.last_issued();
    assert_ne!(rt3, rt2);
    assert_eq!(sb.token()["refresh_token"], rt3.as_str());
    assert_eq!(c["call_tokens"], json!([at3]));
    // Nothing was printed with a secret in it.
    let out = all_output(&[&run]);
    for s in [&at2, &rt2, &at3, &rt3] {
        assert!(!out.contains(s.as_str()));
    }
}

/// DPoP (RFC 9449): the login asks for a token bound to a new key (the
/// server's challenge offers DPoP and its authorization server takes
/// ES256); the key is stored with the token; later runs prove every MCP
/// request with that same key, and a refresh is proved with it too.
#[test]
fn a_dpop_bound_token_and_its_key_are_stored_and_used_by_later_runs() {
    let fake = Fake::start_with(common::py_v2(), &["--dpop"]);
    let sb = Sandbox::new(&[("f", &fake.url())]);
    let login = sb.run(&["auth", "login", "f"]);
    login.ok();
    assert!(login.stdout.contains("DPoP-bound"), "{}", login.stdout);
    let stored = sb.token();
    assert_eq!(stored["token_type"], "DPoP", "{stored}");
    let key = stored["dpop_key"].as_str().unwrap_or_default().to_string();
    assert!(
        key.len() > 100,
        "the private key is kept with the token: {stored}"
    );
    assert_eq!(mode(&sb.credentials_path()) & 0o077, 0);
    let status = sb.run(&["auth", "status", "--json"]);
    status.ok();
    let v: Value = serde_json::from_str(&status.stdout).expect("json");
    assert_eq!(v["servers"][0]["dpop"], true, "{v}");
    let c = fake.counts();
    assert_eq!(c["dpop_errors"], json!([]), "{c}");
    fake.reset();

    // A new process: the stored key proves each request.
    let run = sb.run(&["call", "f", "t1"]);
    run.ok();
    assert!(run.stdout.contains("called t1"), "{}", run.stdout);
    let c = fake.counts();
    assert_eq!(c["dpop_errors"], json!([]), "{c}");
    assert_eq!(num(&c["unauthorized"]), 0, "{c}");
    let keys = c["dpop_keys"].as_array().cloned().unwrap_or_default();
    assert!(keys.len() >= 3, "initialize, initialized, tools/call…: {c}");
    assert!(keys.iter().all(|k| k == &keys[0]), "one key: {c}");

    // The server refuses the access token: the refresh is proved with the
    // same key (the server refuses any other), and the new token works.
    fake.set(json!({"reject_access": true}));
    fake.reset();
    let run = sb.run(&["call", "f", "t2"]);
    run.ok();
    assert!(run.stdout.contains("called t2"), "{}", run.stdout);
    let c = fake.counts();
    assert_eq!(c["dpop_errors"], json!([]), "{c}");
    assert_eq!(num(&c["refresh_ok"]), 1, "{c}");
    let again = c["dpop_keys"].as_array().cloned().unwrap_or_default();
    assert!(
        !again.is_empty() && again.iter().all(|k| k == &keys[0]),
        "{c}"
    );
    assert_eq!(sb.token()["dpop_key"], key.as_str());
    // No secret in what was printed.
    let out = all_output(&[&login, &run]);
    assert!(!out.contains(&key));
}

/// RFC 9449 §5: a Bearer access token whose refresh token is bound to the
/// key. The token is presented as Bearer, and the refresh is still proved
/// with the key kept in the store (the server refuses it otherwise).
#[test]
fn a_bearer_token_with_a_bound_refresh_token_refreshes_with_the_key() {
    let fake = Fake::start_with(common::py_v2(), &["--dpop-bearer"]);
    let sb = Sandbox::new(&[("f", &fake.url())]);
    let login = sb.run(&["auth", "login", "f"]);
    login.ok();
    assert!(!login.stdout.contains("DPoP-bound"), "{}", login.stdout);
    let stored = sb.token();
    assert_eq!(stored["token_type"], "Bearer", "{stored}");
    assert!(
        stored["dpop_key"].as_str().is_some_and(|k| k.len() > 100),
        "{stored}"
    );
    fake.set(json!({"reject_access": true}));
    fake.reset();
    let run = sb.run(&["call", "f", "t1"]);
    run.ok();
    assert!(run.stdout.contains("called t1"), "{}", run.stdout);
    let c = fake.counts();
    assert_eq!(c["dpop_errors"], json!([]), "{c}");
    assert_eq!(num(&c["refresh_ok"]), 1, "{c}");
}

#[test]
fn a_call_with_a_valid_stored_token_costs_no_extra_round_trip() {
    let fake = Fake::start(&[]);
    let open = Fake::start(&["--no-auth"]);
    let sb = logged_in(&fake);
    sb.write_config(&[("f", &fake.url()), ("open", &open.url())]);
    let (access, _) = fake.last_issued();
    fake.reset();
    open.reset();

    let with_token = sb.run(&["call", "f", "t3"]);
    with_token.ok();
    let without_auth = sb.run(&["call", "open", "t3"]);
    without_auth.ok();
    assert_eq!(with_token.stdout, without_auth.stdout);
    let (a, b) = (fake.counts(), open.counts());

    // Nothing but MCP requests: no metadata, registration, authorization or
    // token request, and no 401 answered.
    assert_eq!(oauth_requests(&a), Vec::<String>::new(), "{a}");
    assert_eq!(num(&a["unauthorized"]), 0, "{a}");
    assert_eq!(num(&a["refresh_ok"]), 0, "{a}");
    // Exactly the MCP requests the same command makes to the same server
    // without OAuth (by HTTP method and JSON-RPC method).
    assert_eq!(a["requests"], b["requests"], "with OAuth {a}\nwithout {b}");
    assert_eq!(a["mcp"], b["mcp"], "with OAuth {a}\nwithout {b}");
    assert_eq!(num(&a["mcp"]["tools/call"]), 1, "{a}");
    // And every call carried the stored token.
    assert_eq!(a["call_tokens"], json!([access]));
}

#[test]
fn a_refused_token_whose_refresh_is_refused_asks_for_auth_login() {
    let fake = Fake::start(&[]);
    let sb = logged_in(&fake);
    let (access, refresh) = fake.last_issued();
    fake.set(json!({"reject_access": true, "reject_refresh": true}));
    fake.reset();

    let run = sb.run(&["tools", "f"]);
    assert_eq!(run.code, 4, "{}", all_output(&[&run]));
    assert!(
        run.stderr.contains("`mcpdeck auth login f`"),
        "{}",
        run.stderr
    );
    assert!(run.stdout.is_empty(), "{}", run.stdout);
    let c = fake.counts();
    // One refresh was tried (and refused); no browser login was started
    // without a person (no registration, no authorization request).
    assert_eq!(num(&c["refresh_rejected"]), 1, "{c}");
    assert_eq!(num(&c["refresh_ok"]), 0, "{c}");
    assert!(c["requests"].get("GET /authorize").is_none(), "{c}");
    assert!(c["requests"].get("POST /register").is_none(), "{c}");
    // The dead token is forgotten; nothing secret was printed.
    assert!(sb.tokens().is_empty(), "{:?}", sb.tokens());
    for s in [&access, &refresh] {
        assert!(!all_output(&[&run]).contains(s.as_str()));
    }
}

#[test]
fn a_refresh_that_fails_for_a_while_keeps_the_refresh_token() {
    let fake = Fake::start(&[]);
    let sb = logged_in(&fake);
    let (_, rt1) = fake.last_issued();
    // The server refuses the token, and the token endpoint is down.
    fake.set(json!({"reject_access": true, "refresh_status": 503}));
    fake.reset();
    let run = sb.run(&["tools", "f"]);
    assert_eq!(run.code, 4, "{}", all_output(&[&run]));
    assert!(run.stderr.contains("503"), "{}", run.stderr);
    let c = fake.counts();
    assert_eq!(num(&c["refresh_failed"]), 1, "{c}");
    // The refresh token still works at the server: it is kept.
    assert_eq!(sb.token()["refresh_token"], rt1.as_str());

    // The token endpoint is back: the next run refreshes with it, no login.
    fake.set(json!({"refresh_status": 0}));
    fake.reset();
    let run = sb.run(&["tools", "f"]);
    run.ok();
    let c = fake.counts();
    assert_eq!(num(&c["refresh_ok"]), 1, "{c}");
    assert!(c["requests"].get("GET /authorize").is_none(), "{c}");
    let (_, rt2) = fake.last_issued();
    assert_eq!(sb.token()["refresh_token"], rt2.as_str());
}

#[test]
fn two_processes_refreshing_at_once_keep_the_rotated_token() {
    // The login's token is due at once; both runs refresh it with the same
    // refresh token, together (the fake holds the refreshes until both
    // came). One wins and rotates it; the other is refused.
    let fake = Fake::start(&["--expires-in", "5"]);
    let sb = logged_in(&fake);
    fake.set(json!({"expires_in": 3600, "hold_refresh": 2}));
    fake.reset();
    let spawn = |tool: &str| {
        let mut cmd = Command::new(common::mcpdeck_bin());
        cmd.args(["call", "f", tool])
            .stdin(Stdio::null())
            .stdout(Stdio::piped())
            .stderr(Stdio::piped())
            .env_remove("MCPDECK_BROWSER")
            .env_remove("BROWSER");
        for (k, v) in sb.env() {
            cmd.env(k, v);
        }
        std::thread::spawn(move || common::run_limited(cmd, common::limit(60)))
    };
    let (a, b) = (spawn("t1"), spawn("t2"));
    let (a, b) = (a.join().expect("run"), b.join().expect("run"));
    let c = fake.counts();
    assert_eq!(num(&c["refresh_ok"]), 1, "{c}");
    assert_eq!(num(&c["refresh_rejected"]), 1, "{c}");
    assert!(a.code == 0 || b.code == 0, "{}", all_output(&[&a, &b]));
    // Whatever the order, the store keeps the winner's refresh token: the
    // one the server still honours.
    let live = fake.tokens()["refresh"].clone();
    assert_eq!(
        live,
        json!([sb.token()["refresh_token"]]),
        "{}",
        all_output(&[&a, &b])
    );

    // So a later run whose token is refused refreshes without a login.
    fake.set(json!({"reject_access": true}));
    fake.reset();
    let run = sb.run(&["call", "f", "t3"]);
    run.ok();
    let c = fake.counts();
    assert_eq!(num(&c["refresh_ok"]), 1, "{c}");
    assert_eq!(num(&c["refresh_rejected"]), 0, "{c}");
}

// ---------------------------------------------------------------------------
// In process, through the library: 8 concurrent calls over one HTTP session.

const CHILD_ENV: &str = "MCPDECK_AUTH_REAL_CHILD";

/// Run the ignored test `name` of this binary in a child process inside
/// `sb` (HOME, XDG_DATA_HOME, MCPDECK_CONFIG), and pass on its verdict.
fn in_child(name: &str, sb: &Sandbox) {
    let exe = std::env::current_exe().expect("the test binary");
    let mut cmd = Command::new(exe);
    cmd.args([
        name,
        "--exact",
        "--ignored",
        "--nocapture",
        "--test-threads",
        "1",
    ])
    .stdin(Stdio::null())
    .stdout(Stdio::piped())
    .stderr(Stdio::piped())
    .env(CHILD_ENV, "1")
    .env_remove("MCPDECK_BROWSER")
    .env_remove("BROWSER");
    for (k, v) in sb.env() {
        cmd.env(k, v);
    }
    let run = common::run_limited(cmd, common::limit(120));
    assert!(
        run.code == 0 && run.stdout.contains("1 passed"),
        "the child test {name} failed (exit {}):\n{}\n{}",
        run.code,
        run.stdout,
        run.stderr
    );
}

/// In the child: the sandbox the parent set up (None when run by hand).
fn child_sandbox() -> Option<(PathBuf, PathBuf)> {
    std::env::var_os(CHILD_ENV)?;
    let config = PathBuf::from(std::env::var_os("MCPDECK_CONFIG")?);
    let data = PathBuf::from(std::env::var_os("XDG_DATA_HOME")?);
    Some((config, data.join("mcpdeck/credentials.json")))
}

mod inproc {
    use super::*;
    use std::sync::Arc;

    use mcpdeck::config::{CredentialStoreKind, ServerConfig, Settings};
    use mcpdeck::mcp::Content;
    use mcpdeck::mcp::framelog::FrameLog;
    use mcpdeck::mcp::manager::EventReceiver;
    use mcpdeck::mcp::manager::{Command as Cmd, Event, Manager, ServerStatus};

    pub fn settings() -> Settings {
        Settings {
            browser: Some("curl -fsSL -o /dev/null".into()),
            credentials: CredentialStoreKind::File,
            ..Settings::default()
        }
    }

    async fn next<T>(rx: &mut EventReceiver, mut f: impl FnMut(&Event) -> Option<T>) -> T {
        let max = common::limit(60);
        let deadline = Instant::now() + max;
        loop {
            let left = deadline.saturating_duration_since(Instant::now());
            match tokio::time::timeout(left, rx.recv()).await {
                Ok(Some(ev)) => {
                    if let Some(t) = f(&ev) {
                        return t;
                    }
                }
                Ok(None) => panic!("the manager stopped"),
                Err(_) => panic!("no matching event within {max:?}"),
            }
        }
    }

    /// Connect `name` at `url`.
    pub async fn connect(name: &str, url: &str) -> (Manager, EventReceiver) {
        let (m, mut rx) = Manager::start(
            settings(),
            vec![ServerConfig::http(name, url)],
            Arc::new(FrameLog::new(10_000)),
        );
        let status = next(&mut rx, |ev| match ev {
            Event::Status { server, status, .. } if server == name && status.settled() => {
                Some(status.clone())
            }
            _ => None,
        })
        .await;
        assert_eq!(status, ServerStatus::Connected, "{status:?}");
        (m, rx)
    }

    /// Call t1..t8 at once; each must answer "called tN".
    pub async fn eight_calls(m: &Manager, rx: &mut EventReceiver, name: &str) {
        for i in 1..=8u64 {
            m.send(Cmd::Call {
                tag: 100 + i,
                server: name.into(),
                tool: format!("t{i}"),
                arguments: json!({}),
            });
        }
        let mut done = std::collections::BTreeMap::new();
        while done.len() < 8 {
            let (tag, tool, result) = next(rx, |ev| match ev {
                Event::CallFinished {
                    tag, tool, result, ..
                } if (101..=108).contains(tag) => Some((*tag, tool.clone(), result.clone())),
                _ => None,
            })
            .await;
            let result = result.unwrap_or_else(|e| panic!("{tool} failed: {e}"));
            let text: Vec<&str> = result
                .content
                .iter()
                .filter_map(|c| match c {
                    Content::Text { text } => Some(text.as_str()),
                    _ => None,
                })
                .collect();
            assert_eq!(text, vec![format!("called {tool}").as_str()]);
            done.insert(tag, tool);
        }
    }
}

#[test]
fn eight_concurrent_calls_answered_401_make_one_refresh() {
    in_child("child_eight_concurrent_calls_after_401", &Sandbox::new(&[]));
}

#[test]
fn eight_concurrent_calls_with_a_token_due_make_one_refresh() {
    in_child(
        "child_eight_concurrent_calls_ahead_of_expiry",
        &Sandbox::new(&[]),
    );
}

#[test]
fn a_second_authorizer_takes_the_token_another_refreshed() {
    in_child(
        "child_a_second_authorizer_takes_the_token_another_refreshed",
        &Sandbox::new(&[]),
    );
}

/// Log in (the CLI) to `fake` as `name`, in the child's sandbox.
fn child_login(config: &Path, name: &str, url: &str) {
    std::fs::write(
        config,
        format!(
            "[settings]\nbrowser = \"curl -fsSL -o /dev/null\"\ncredentials = \"file\"\n\n[servers.{name}]\nurl = \"{url}\"\n"
        ),
    )
    .expect("config");
    let config = config.display().to_string();
    common::mcpdeck_env(
        &["auth", "login", name],
        &[("MCPDECK_CONFIG", &config)],
        common::limit(60),
    )
    .ok();
}

/// The one token stored for `url`.
fn stored(credentials: &Path, url: &str) -> Value {
    let v: Value =
        serde_json::from_str(&std::fs::read_to_string(credentials).expect("read")).expect("JSON");
    let tokens: Vec<Value> = v["tokens"]
        .as_array()
        .into_iter()
        .flatten()
        .filter(|t| t["server_url"] == url)
        .cloned()
        .collect();
    assert_eq!(tokens.len(), 1, "{tokens:?}");
    tokens[0].clone()
}

#[tokio::test(flavor = "multi_thread", worker_threads = 4)]
#[ignore = "run in a child process by eight_concurrent_calls_answered_401_make_one_refresh"]
async fn child_eight_concurrent_calls_after_401() {
    let Some((config, credentials)) = child_sandbox() else {
        return;
    };
    // A slow refresh, so the callers surely overlap it.
    let fake = Fake::start(&["--refresh-delay", "0.3"]);
    child_login(&config, "f", &fake.url());
    let (m, mut rx) = inproc::connect("f", &fake.url()).await;
    let (old, _) = fake.last_issued();
    // Now the server refuses the token, and holds its 401 answers until 8
    // requests got one: the 8 calls are in flight together.
    fake.set(json!({"reject_access": true, "hold_401": 8}));
    fake.reset();
    inproc::eight_calls(&m, &mut rx, "f").await;
    m.shutdown().await;

    let c = fake.counts();
    assert_eq!(num(&c["refresh_ok"]), 1, "{c}");
    assert_eq!(num(&c["refresh_rejected"]), 0, "{c}");
    assert!(num(&c["unauthorized"]) >= 8, "{c}");
    let (new, rt) = fake.last_issued();
    assert_ne!(new, old);
    // Every call was answered with the one new token, which is stored with
    // its rotated refresh token.
    assert_eq!(c["call_tokens"], json!(vec![new.clone(); 8]), "{c}");
    let t = stored(&credentials, &fake.url());
    assert_eq!(t["access_token"], new.as_str());
    assert_eq!(t["refresh_token"], rt.as_str());
}

#[tokio::test(flavor = "multi_thread", worker_threads = 4)]
#[ignore = "run in a child process by eight_concurrent_calls_with_a_token_due_make_one_refresh"]
async fn child_eight_concurrent_calls_ahead_of_expiry() {
    let Some((config, credentials)) = child_sandbox() else {
        return;
    };
    // The login's token becomes due (30 s before its end) a few seconds
    // after the login: after the connect, before the calls. Should the
    // connect take longer than that, the refresh happens while connecting;
    // then try again with a longer-lived token.
    for (attempt, lifetime) in [34u64, 45, 90].into_iter().enumerate() {
        let fake = Fake::start(&["--refresh-delay", "0.3"]);
        fake.set(json!({ "expires_in": lifetime }));
        let name = format!("f{attempt}");
        child_login(&config, &name, &fake.url());
        fake.set(json!({"expires_in": 3600}));
        let (old, _) = fake.last_issued();
        let due_at = stored(&credentials, &fake.url())["expires_at"]
            .as_u64()
            .expect("expires_at")
            - 30;
        let (m, mut rx) = inproc::connect(&name, &fake.url()).await;
        if num(&fake.counts()["refresh_ok"]) > 0 {
            m.shutdown().await;
            eprintln!("the token became due while connecting; a longer-lived one");
            continue;
        }
        // Wait until it is due (whole seconds, so one more).
        while now() <= due_at {
            tokio::time::sleep(Duration::from_millis(200)).await;
        }
        fake.reset();
        inproc::eight_calls(&m, &mut rx, &name).await;
        m.shutdown().await;

        let c = fake.counts();
        assert_eq!(num(&c["refresh_ok"]), 1, "{c}");
        assert_eq!(num(&c["refresh_rejected"]), 0, "{c}");
        // Ahead of expiry: the old token was never refused.
        assert_eq!(num(&c["unauthorized"]), 0, "{c}");
        let (new, rt) = fake.last_issued();
        assert_ne!(new, old);
        // Every call waited for the refresh and carried the new token.
        assert_eq!(c["call_tokens"], json!(vec![new.clone(); 8]), "{c}");
        let t = stored(&credentials, &fake.url());
        assert_eq!(t["access_token"], new.as_str());
        assert_eq!(t["refresh_token"], rt.as_str());
        return;
    }
    panic!("the connect outlasted even a 60 s head start");
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
#[ignore = "run in a child process by a_second_authorizer_takes_the_token_another_refreshed"]
async fn child_a_second_authorizer_takes_the_token_another_refreshed() {
    use mcpdeck::mcp::auth::Authorizer;
    use mcpdeck::mcp::auth::registry::auth_spec;
    let Some((config, credentials)) = child_sandbox() else {
        return;
    };
    // Two authorizers on one store: two mcpdeck processes. Both read the
    // login's token, which is due at once.
    let fake = Fake::start(&["--expires-in", "5"]);
    child_login(&config, "f", &fake.url());
    fake.set(json!({"expires_in": 3600}));
    fake.reset();
    let server = mcpdeck::config::ServerConfig::http("f", fake.url());
    let spec = auth_spec(&server, &inproc::settings()).expect("an HTTP server");
    let first = Authorizer::new(spec.clone()).expect("authorizer");
    let second = Authorizer::new(spec).expect("authorizer");
    let (old, _) = fake.last_issued();
    assert_eq!(
        first.bearer().map(|s| s.expose().to_string()),
        Some(old.clone())
    );
    assert_eq!(
        second.bearer().map(|s| s.expose().to_string()),
        Some(old.clone())
    );

    // The first refreshes (and rotates the refresh token)...
    first.fresh().await;
    let (new, rt) = fake.last_issued();
    assert_ne!(new, old);
    assert_eq!(
        first.bearer().map(|s| s.expose().to_string()),
        Some(new.clone())
    );
    // ...then the second, whose refresh token is spent, takes the stored one
    // instead of losing it.
    second.fresh().await;
    assert_eq!(
        second.bearer().map(|s| s.expose().to_string()),
        Some(new.clone())
    );
    let c = fake.counts();
    assert_eq!(num(&c["refresh_ok"]), 1, "{c}");
    assert_eq!(num(&c["refresh_rejected"]), 0, "{c}");
    let t = stored(&credentials, &fake.url());
    assert_eq!(t["access_token"], new.as_str());
    assert_eq!(t["refresh_token"], rt.as_str());
}
