//! Hostile and broken authorization servers (tests/servers/fake_oauth.py):
//! `mcpdeck auth login` must fail with a clear reason and the discovery
//! trace, in bounded time, without a secret in its output or its log, and
//! without a token in the credential store. One happy path with the same
//! fake shows that the failures are the fake's doing, not the harness's.

mod common;

use std::path::{Path, PathBuf};
use std::process::{Command, Stdio};

use serde_json::Value;

// The fake's fixed secrets (see the top of fake_oauth.py).
const CLIENT_SECRET: &str = "fake-client-secret-7Hq2Lm";
const ACCESS_TOKEN: &str = "fake-access-token-Kx81Vb";
const REFRESH_TOKEN: &str = "fake-refresh-token-Wm4cJd";
const CODE: &str = "fake-code-Pz3nRt";
const STALE_CODE: &str = "fake-stale-code-Yy6eQa";
const SECRETS: [&str; 5] = [CLIENT_SECRET, ACCESS_TOKEN, REFRESH_TOKEN, CODE, STALE_CODE];

/// The fake in one mode, with a throw-away HOME, data directory and config.
/// The server process is killed and reaped on drop (`common::HttpServer`).
struct Fake {
    server: common::HttpServer,
    dir: tempfile::TempDir,
    config: PathBuf,
}

fn fake(mode: &str) -> Fake {
    fake_with(mode, &[], "")
}

/// `extra_args` go to the fake, `settings` into `[settings]`.
fn fake_with(mode: &str, extra_args: &[&str], settings: &str) -> Fake {
    let mut cmd = Command::new("python3");
    cmd.arg(common::server_script("fake_oauth.py"))
        .args(["--mode", mode])
        .args(extra_args);
    let server = common::HttpServer::start_announced(cmd, "/mcp");
    let dir = tempfile::tempdir().expect("tempdir");
    for sub in ["home", "data", "config", "state", "cache"] {
        std::fs::create_dir_all(dir.path().join(sub)).expect("mkdir");
    }
    let config = common::write_file(
        dir.path(),
        "config.toml",
        &format!(
            "[settings]\nbrowser = \"curl -fsSL -o /dev/null\"\ncredentials = \"file\"\n{settings}\n\n[servers.fake]\nurl = \"{}\"\n",
            server.url
        ),
    );
    Fake {
        server,
        dir,
        config,
    }
}

impl Fake {
    fn base(&self) -> String {
        format!("http://127.0.0.1:{}", self.server.port)
    }

    fn log_file(&self) -> PathBuf {
        self.dir.path().join("mcpdeck.log")
    }

    fn credentials(&self) -> PathBuf {
        self.dir.path().join("data/mcpdeck/credentials.json")
    }

    /// mcpdeck with this config, a throw-away HOME and data directory, no
    /// browser but the config's, stdin null, a debug log file; killed past
    /// a generous limit.
    fn mcpdeck(&self, args: &[&str]) -> common::Run {
        let d = self.dir.path();
        let mut cmd = Command::new(common::mcpdeck_bin());
        cmd.arg("--log-file")
            .arg(self.log_file())
            .args(args)
            .stdin(Stdio::null())
            .stdout(Stdio::piped())
            .stderr(Stdio::piped())
            .env("MCPDECK_CONFIG", &self.config)
            .env("HOME", d.join("home"))
            .env("XDG_DATA_HOME", d.join("data"))
            .env("XDG_CONFIG_HOME", d.join("config"))
            .env("XDG_STATE_HOME", d.join("state"))
            .env("XDG_CACHE_HOME", d.join("cache"))
            .env("RUST_LOG", "debug")
            .env_remove("MCPDECK_BROWSER")
            .env_remove("BROWSER")
            .env_remove("DISPLAY")
            .env_remove("WAYLAND_DISPLAY")
            .env_remove("SSH_CONNECTION");
        common::run_limited(cmd, common::limit(30))
    }

    fn login(&self) -> common::Run {
        self.mcpdeck(&["auth", "login", "fake"])
    }

    /// Every request the fake saw (its `/_log`).
    fn log(&self) -> Vec<Value> {
        let text = http_get(self.server.port, "/_log");
        match serde_json::from_str(&text) {
            Ok(Value::Array(a)) => a,
            _ => panic!("the fake's /_log is not a JSON list: {text}"),
        }
    }

    /// The requests whose path (without the query) is `path`.
    fn requests_to(&self, path: &str) -> Vec<Value> {
        self.log()
            .into_iter()
            .filter(|e| {
                let p = e["path"].as_str().unwrap_or_default();
                p.split('?').next() == Some(path)
            })
            .collect()
    }

    /// Nothing reached the authorization server beyond its metadata.
    fn assert_no_authorization_attempt(&self) {
        for path in ["/register", "/authorize", "/token"] {
            let seen = self.requests_to(path);
            assert!(seen.is_empty(), "the fake saw {path}: {seen:?}");
        }
    }

    /// The credential store holds no token (the file may be absent, or hold
    /// only a client registration), and no file under the temp dir holds a
    /// token or a code (log files included).
    fn assert_no_token_stored(&self) {
        let path = self.credentials();
        if path.exists() {
            let text = std::fs::read_to_string(&path).expect("read credentials.json");
            let doc: Value = serde_json::from_str(&text).expect("credentials.json is JSON");
            let tokens = doc["tokens"].as_array().map(Vec::len).unwrap_or(0);
            assert_eq!(tokens, 0, "a token was stored: {text}");
        }
        for (file, text) in files_under(self.dir.path()) {
            for s in [ACCESS_TOKEN, REFRESH_TOKEN, CODE, STALE_CODE] {
                assert!(!text.contains(s), "{} holds {s:?}:\n{text}", file.display());
            }
        }
    }

    /// The log file (if any) never holds a secret.
    fn assert_log_clean(&self) {
        if let Ok(text) = std::fs::read_to_string(self.log_file()) {
            for s in SECRETS {
                assert!(!text.contains(s), "the log file holds {s:?}:\n{text}");
            }
        }
    }
}

/// A plain HTTP/1.0 GET to the fake (no client library needed).
fn http_get(port: u16, path: &str) -> String {
    use std::io::{Read, Write};
    let mut s = std::net::TcpStream::connect(("127.0.0.1", port)).expect("connect to the fake");
    s.set_read_timeout(Some(common::limit(10)))
        .expect("timeout");
    write!(s, "GET {path} HTTP/1.0\r\nHost: 127.0.0.1:{port}\r\n\r\n").expect("send");
    let mut out = Vec::new();
    s.read_to_end(&mut out).expect("read");
    let out = String::from_utf8_lossy(&out).into_owned();
    match out.split_once("\r\n\r\n") {
        Some((head, body)) if head.starts_with("HTTP/1.") && head.contains(" 200 ") => {
            body.to_string()
        }
        _ => panic!("GET {path}: {out}"),
    }
}

/// Every regular file under `dir` with its text.
fn files_under(dir: &Path) -> Vec<(PathBuf, String)> {
    let mut out = Vec::new();
    let Ok(entries) = std::fs::read_dir(dir) else {
        return out;
    };
    for e in entries.flatten() {
        let p = e.path();
        if p.is_dir() {
            out.extend(files_under(&p));
        } else if let Ok(bytes) = std::fs::read(&p) {
            out.push((p, String::from_utf8_lossy(&bytes).into_owned()));
        }
    }
    out
}

fn assert_no_secret(run: &common::Run) {
    for s in SECRETS {
        assert!(
            !run.stdout.contains(s) && !run.stderr.contains(s),
            "{s:?} was shown:\nstdout:\n{}\nstderr:\n{}",
            run.stdout,
            run.stderr
        );
    }
}

/// A failed login: exit 4, the failure named, the trace after it, no
/// secret shown. Returns stderr.
fn failed(run: &common::Run) -> &str {
    assert_eq!(
        run.code, 4,
        "exit {}\nstdout:\n{}\nstderr:\n{}",
        run.code, run.stdout, run.stderr
    );
    assert!(
        run.stderr.contains("login to fake failed: "),
        "{}",
        run.stderr
    );
    assert!(run.stderr.contains("discovery trace:"), "{}", run.stderr);
    assert!(!run.stdout.contains("logged in"), "{}", run.stdout);
    // Nothing from the server reaches the terminal raw.
    for c in ['\x1b', '\x07'] {
        assert!(
            !run.stdout.contains(c) && !run.stderr.contains(c),
            "{c:?} was printed:\n{}",
            run.stderr
        );
    }
    assert_no_secret(run);
    &run.stderr
}

/// The failure message (the line after `login to fake failed: `).
fn message(stderr: &str) -> &str {
    stderr
        .lines()
        .find_map(|l| l.split_once("login to fake failed: ").map(|(_, m)| m))
        .unwrap_or_default()
}

/// The lines of the trace printed with the failure.
fn trace_lines(stderr: &str) -> Vec<&str> {
    stderr
        .split_once("discovery trace:")
        .map(|(_, t)| t.lines().filter(|l| !l.trim().is_empty()).collect())
        .unwrap_or_default()
}

fn assert_trace_has(stderr: &str, wanted: &str) {
    assert!(
        trace_lines(stderr).iter().any(|l| l.contains(wanted)),
        "no trace line with {wanted:?} in:\n{stderr}"
    );
}

/// The trace up to the authorization server: the probe's 401 and the
/// protected resource metadata named by the challenge, read.
fn assert_discovery_start(stderr: &str, base: &str) {
    assert_trace_has(
        stderr,
        &format!("POST {base}/mcp -> 401: a Bearer challenge"),
    );
    assert_trace_has(
        stderr,
        &format!(
            "GET {base}/.well-known/oauth-protected-resource/mcp -> 200: protected resource metadata, read"
        ),
    );
}

// ---------------------------------------------------------------------------
// The happy path.

#[test]
fn ok_login_then_tools_with_the_stored_token() {
    let f = fake("ok");
    let base = f.base();
    // Without a token and without a terminal, `tools` says how to log in
    // (exit 4) and starts nothing itself.
    let run = f.mcpdeck(&["tools", "fake"]);
    assert_eq!(
        run.code, 4,
        "stdout:\n{}\nstderr:\n{}",
        run.stdout, run.stderr
    );
    assert!(
        run.stderr.contains("mcpdeck auth login fake"),
        "{}",
        run.stderr
    );
    f.assert_no_authorization_attempt();

    let run = f.login();
    assert_eq!(
        run.code, 0,
        "stdout:\n{}\nstderr:\n{}",
        run.stdout, run.stderr
    );
    assert!(
        run.stdout.contains(&format!(
            "logged in to fake: issuer {base}, client fake-client-id, scopes mcp"
        )),
        "{}",
        run.stdout
    );
    assert!(run.stderr.contains("mcpdeck: discovery:"), "{}", run.stderr);
    assert!(
        run.stderr.contains(&format!(
            "GET {base}/.well-known/oauth-authorization-server -> 200"
        )),
        "{}",
        run.stderr
    );
    assert!(
        run.stderr.contains(&format!("{base}/authorize?")),
        "the URL to open is shown: {}",
        run.stderr
    );
    assert_no_secret(&run);
    // The fake checked PKCE, the redirect URI and Basic authentication.
    let token = f.requests_to("/token");
    assert_eq!(token.len(), 1, "{token:?}");
    assert_eq!(f.requests_to("/register").len(), 1);

    let text = std::fs::read_to_string(f.credentials()).expect("credentials.json exists");
    assert!(text.contains(ACCESS_TOKEN), "the token is kept: {text}");
    #[cfg(unix)]
    {
        use std::os::unix::fs::PermissionsExt;
        let mode = std::fs::metadata(f.credentials())
            .expect("stat")
            .permissions()
            .mode();
        assert_eq!(mode & 0o777, 0o600, "credentials.json mode {mode:o}");
    }

    // `tools` uses the stored token: no new login, and the tool is listed.
    let run = f.mcpdeck(&["--trace", "tools", "fake"]);
    assert_eq!(
        run.code, 0,
        "stdout:\n{}\nstderr:\n{}",
        run.stdout, run.stderr
    );
    assert!(run.stdout.contains("whoami"), "{}", run.stdout);
    assert_no_secret(&run);
    assert_eq!(f.requests_to("/token").len(), 1, "no second token request");
    assert_eq!(f.requests_to("/authorize").len(), 1, "no second login");
    let with_token = f
        .requests_to("/mcp")
        .iter()
        .filter(|e| e["auth"].as_bool() == Some(true))
        .count();
    assert!(with_token >= 2, "{:?}", f.requests_to("/mcp"));

    let run = f.mcpdeck(&["auth", "status", "--json"]);
    run.ok();
    assert_no_secret(&run);
    let status: Value = serde_json::from_str(&run.stdout).expect("status JSON");
    assert_eq!(status["servers"][0]["logged_in"], true, "{}", run.stdout);
    assert_eq!(status["servers"][0]["issuer"], base.as_str());

    let run = f.mcpdeck(&["auth", "logout", "fake"]);
    run.ok();
    assert_no_secret(&run);
    assert!(run.stdout.contains("forgotten"), "{}", run.stdout);
    f.assert_no_token_stored();
    f.assert_log_clean();
}

// ---------------------------------------------------------------------------
// Authorization server metadata that cannot be used.

#[test]
fn metadata_that_is_html() {
    let f = fake("meta-html");
    let base = f.base();
    let run = f.login();
    let err = failed(&run);
    assert_discovery_start(err, &base);
    for doc in ["oauth-authorization-server", "openid-configuration"] {
        assert_trace_has(
            err,
            &format!("GET {base}/.well-known/{doc} -> 200: an HTML page, not a JSON document"),
        );
    }
    let m = message(err);
    assert!(
        m.contains(&format!(
            "no usable authorization server metadata for {base}"
        )) && m.contains("an HTML page"),
        "{m}"
    );
    f.assert_no_authorization_attempt();
    f.assert_no_token_stored();
    f.assert_log_clean();
}

#[test]
fn metadata_over_one_mebibyte() {
    let f = fake("meta-huge");
    let base = f.base();
    let run = f.login();
    let err = failed(&run);
    assert_discovery_start(err, &base);
    assert_trace_has(
        err,
        &format!(
            "GET {base}/.well-known/oauth-authorization-server -> 200: the body is larger than 1 MiB"
        ),
    );
    let m = message(err);
    assert!(m.contains("larger than 1 MiB"), "{m}");
    assert!(
        !err.contains("xxxxxxxxxxxxxxxx"),
        "the document's content is not dumped: {} bytes of stderr",
        err.len()
    );
    f.assert_no_authorization_attempt();
    f.assert_no_token_stored();
    f.assert_log_clean();
}

#[test]
fn metadata_that_is_not_json() {
    let f = fake("meta-notjson");
    let base = f.base();
    let run = f.login();
    let err = failed(&run);
    assert_discovery_start(err, &base);
    assert_trace_has(
        err,
        &format!(
            "GET {base}/.well-known/oauth-authorization-server -> 200: not JSON (application/json)"
        ),
    );
    let m = message(err);
    assert!(m.contains("not JSON"), "{m}");
    f.assert_no_authorization_attempt();
    f.assert_no_token_stored();
    f.assert_log_clean();
}

#[test]
fn metadata_redirect_loop() {
    let f = fake("meta-redirect-loop");
    let base = f.base();
    let run = f.login();
    let err = failed(&run);
    assert_discovery_start(err, &base);
    assert_trace_has(
        err,
        &format!(
            "GET {base}/.well-known/oauth-authorization-server -> 302: redirects to {base}/loop/a"
        ),
    );
    assert_trace_has(err, &format!("GET {base}/loop/b -> 302: redirect loop"));
    let m = message(err);
    assert!(m.contains("redirects in a loop"), "{m}");
    // Each hop was fetched once: the loop was noticed, not walked again.
    assert_eq!(f.requests_to("/loop/a").len(), 1);
    assert_eq!(f.requests_to("/loop/b").len(), 1);
    f.assert_no_authorization_attempt();
    f.assert_no_token_stored();
    f.assert_log_clean();
}

#[test]
fn metadata_redirect_to_another_origin() {
    let f = fake("meta-redirect-origin");
    let base = f.base();
    let port = f.server.port;
    let run = f.login();
    let err = failed(&run);
    assert_discovery_start(err, &base);
    assert_trace_has(
        err,
        &format!(
            "GET {base}/.well-known/oauth-authorization-server -> 302: redirect to another origin: refused"
        ),
    );
    let m = message(err);
    assert!(
        m.contains(&format!(
            "redirects to another origin (http://localhost:{port}/.well-known/oauth-authorization-server)"
        )),
        "{m}"
    );
    // Never followed: no request came in under the other origin's name.
    let log = f.log();
    assert!(
        log.iter()
            .all(|e| e["host"].as_str() != Some(&format!("localhost:{port}"))),
        "{log:?}"
    );
    f.assert_no_authorization_attempt();
    f.assert_no_token_stored();
    f.assert_log_clean();
}

#[test]
fn slow_authorization_server_is_given_up_in_bounded_time() {
    // One OAuth exchange may take connect_timeout (capped at 30 s); the
    // fake sleeps far longer than that.
    let f = fake_with("slow-as", &["--delay", "120"], "connect_timeout = 2");
    let base = f.base();
    let run = f.login();
    let err = failed(&run);
    assert_discovery_start(err, &base);
    assert_trace_has(
        err,
        &format!("GET {base}/.well-known/oauth-authorization-server -> ---: no answer within 2s"),
    );
    // The same silent server is not asked again for its next candidate.
    assert_trace_has(
        err,
        &format!("{base}/.well-known/openid-configuration skipped: {base} gave no answer"),
    );
    assert!(
        f.requests_to("/.well-known/openid-configuration")
            .is_empty()
    );
    let m = message(err);
    assert!(
        m.contains(&format!(
            "no usable authorization server metadata for {base}"
        )) && m.contains("no answer within 2s"),
        "{m}"
    );
    assert!(
        run.elapsed < common::limit(20),
        "gave up only after {:?}",
        run.elapsed
    );
    f.assert_no_authorization_attempt();
    f.assert_no_token_stored();
    f.assert_log_clean();
}

// ---------------------------------------------------------------------------
// Protected resource metadata that must stop the login before the AS.

#[test]
fn resource_pointing_elsewhere_is_refused_before_the_authorization_server() {
    let f = fake("prm-elsewhere");
    let base = f.base();
    let run = f.login();
    let err = failed(&run);
    assert_discovery_start(err, &base);
    assert_trace_has(
        err,
        &format!("resource \"https://evil.example.com/mcp\" does not cover {base}/mcp: stopped"),
    );
    let m = message(err);
    assert!(
        m.contains("is for https://evil.example.com/mcp, not for")
            && m.contains("nothing was sent to its authorization server"),
        "{m}"
    );
    // Nothing at all went to the authorization server, not even for its
    // metadata.
    let log = f.log();
    for e in &log {
        let path = e["path"].as_str().unwrap_or_default();
        assert!(
            path == "/mcp" || path == "/.well-known/oauth-protected-resource/mcp",
            "the fake saw {path}: {log:?}"
        );
    }
    f.assert_no_token_stored();
    f.assert_log_clean();
}

#[test]
fn authorization_server_over_plain_http_elsewhere_is_refused() {
    let f = fake("as-plain-http");
    let base = f.base();
    let run = f.login();
    let err = failed(&run);
    assert_discovery_start(err, &base);
    assert_trace_has(err, "authorization server: http://as.example.com");
    let m = message(err);
    assert!(
        m.contains("http://as.example.com") && m.contains("https only"),
        "{m}"
    );
    let log = f.log();
    assert!(
        log.iter().all(|e| !e["path"]
            .as_str()
            .unwrap_or_default()
            .contains("authorization-server")),
        "{log:?}"
    );
    f.assert_no_authorization_attempt();
    f.assert_no_token_stored();
    f.assert_log_clean();
}

// ---------------------------------------------------------------------------
// Registration.

#[test]
fn registration_without_client_id() {
    let f = fake("register-no-client-id");
    let base = f.base();
    let run = f.login();
    let err = failed(&run);
    assert_discovery_start(err, &base);
    assert_trace_has(err, &format!("POST {base}/register -> 201"));
    assert_trace_has(err, "the registration answer has no client_id");
    let m = message(err);
    assert!(
        m.contains(&format!(
            "dynamic client registration at {base}/register answered without a client_id"
        )),
        "{m}"
    );
    assert_eq!(f.requests_to("/register").len(), 1);
    assert!(f.requests_to("/authorize").is_empty());
    assert!(f.requests_to("/token").is_empty());
    f.assert_no_token_stored();
    // Not even the half registration (it carried a client secret).
    if let Ok(text) = std::fs::read_to_string(f.credentials()) {
        assert!(!text.contains(CLIENT_SECRET), "{text}");
    }
    f.assert_log_clean();
}

// ---------------------------------------------------------------------------
// The token endpoint.

#[test]
fn token_endpoint_answers_500() {
    let f = fake("token-500");
    let base = f.base();
    let run = f.login();
    let err = failed(&run);
    assert_discovery_start(err, &base);
    assert_trace_has(err, &format!("POST {base}/token -> 500"));
    let m = message(err);
    assert!(
        m.contains(&format!(
            "the token endpoint {base}/token refused the authorization_code grant (HTTP 500"
        )),
        "{m}"
    );
    assert_eq!(f.requests_to("/token").len(), 1, "one try, no loop");
    f.assert_no_token_stored();
    f.assert_log_clean();
}

#[test]
fn token_endpoint_answers_an_oauth_error_that_echoes_secrets() {
    let f = fake("token-error");
    let base = f.base();
    let run = f.login();
    let err = failed(&run);
    assert_discovery_start(err, &base);
    assert_trace_has(err, &format!("POST {base}/token -> 400"));
    let m = message(err);
    // The server's own words, with what mcpdeck sent it masked.
    assert!(
        m.contains(
            "(invalid_grant: the code *** has expired (client secret was ***)␛]0;pwned␇␛[2J)"
        ),
        "{m}"
    );
    assert_eq!(f.requests_to("/token").len(), 1);
    f.assert_no_token_stored();
    f.assert_log_clean();
}

// ---------------------------------------------------------------------------
// The redirect back to mcpdeck.

#[test]
fn callback_with_a_wrong_state_is_ignored_and_the_right_one_accepted() {
    let f = fake("state-wrong");
    let base = f.base();
    let run = f.login();
    assert_eq!(
        run.code, 0,
        "stdout:\n{}\nstderr:\n{}",
        run.stdout, run.stderr
    );
    assert!(
        run.stdout
            .contains(&format!("logged in to fake: issuer {base}")),
        "{}",
        run.stdout
    );
    assert_no_secret(&run);
    let authorize = f.requests_to("/authorize");
    assert_eq!(authorize.len(), 1, "{authorize:?}");
    assert_eq!(
        authorize[0]["note"].as_str(),
        Some("stale callback answered 400"),
        "the stale redirect was refused and the listener kept waiting: {authorize:?}"
    );
    let token = f.requests_to("/token");
    assert_eq!(token.len(), 1, "{token:?}");
    let body = token[0]["body"].as_str().unwrap_or_default();
    assert!(
        body.contains(&format!("code={CODE}")) && !body.contains(STALE_CODE),
        "the right code was exchanged: {body}"
    );
    f.assert_log_clean();
}

#[test]
fn callback_with_only_a_wrong_state_times_out() {
    let f = fake_with("state-only-wrong", &[], "login_timeout = 2");
    let base = f.base();
    let run = f.login();
    let err = failed(&run);
    assert_discovery_start(err, &base);
    assert!(
        err.contains("waiting for the browser to come back"),
        "{err}"
    );
    assert_trace_has(
        err,
        "waiting for the redirect: no login came back within 2 s",
    );
    let m = message(err);
    assert!(m.starts_with("no login came back within 2 s"), "{m}");
    assert_eq!(f.requests_to("/authorize").len(), 1);
    assert!(
        f.requests_to("/token").is_empty(),
        "the stale code is never exchanged"
    );
    f.assert_no_token_stored();
    f.assert_log_clean();
}

#[test]
fn callback_with_access_denied() {
    let f = fake("callback-denied");
    let base = f.base();
    let run = f.login();
    let err = failed(&run);
    assert_discovery_start(err, &base);
    assert!(err.contains(&format!("{base}/authorize?")), "{err}");
    assert_trace_has(
        err,
        "waiting for the redirect: the authorization server refused the login: access_denied (The user said no)",
    );
    let m = message(err);
    assert!(
        m.starts_with(
            "the authorization server refused the login: access_denied (The user said no)"
        ),
        "{m}"
    );
    assert!(f.requests_to("/token").is_empty());
    f.assert_no_token_stored();
    f.assert_log_clean();
}

#[test]
fn callback_with_another_issuer() {
    let f = fake("iss-mismatch");
    let base = f.base();
    let run = f.login();
    let err = failed(&run);
    assert_discovery_start(err, &base);
    assert_trace_has(
        err,
        &format!("the redirect names issuer \"https://evil.example.com\", not \"{base}\": refused"),
    );
    let m = message(err);
    assert!(
        m.contains(&format!(
            "the login came back from issuer \"https://evil.example.com\", not \"{base}\""
        )) && m.contains("the code was not used and no token was stored"),
        "{m}"
    );
    assert!(
        f.requests_to("/token").is_empty(),
        "the code is never exchanged"
    );
    f.assert_no_token_stored();
    f.assert_log_clean();
}

#[test]
fn callback_without_the_promised_issuer() {
    let f = fake("iss-missing");
    let base = f.base();
    let run = f.login();
    let err = failed(&run);
    assert_discovery_start(err, &base);
    assert_trace_has(
        err,
        "the redirect names no issuer, though the server promises one: refused",
    );
    let m = message(err);
    assert!(
        m.contains(&format!(
            "the authorization server {base} promises an `iss` in its redirect and sent none"
        )),
        "{m}"
    );
    assert!(f.requests_to("/token").is_empty());
    f.assert_no_token_stored();
    f.assert_log_clean();
}

// ---------------------------------------------------------------------------
// A kept registration the authorization server no longer knows.

#[test]
fn a_forgotten_registration_is_dropped_and_the_login_registers_again() {
    let f = fake("forget-client");
    let path = seed_stale_client(&f);
    let run = f.login();
    assert_eq!(
        run.code, 0,
        "stdout:\n{}\nstderr:\n{}",
        run.stdout, run.stderr
    );
    assert!(
        run.stderr.contains("invalid_client") && run.stderr.contains("registering again"),
        "{}",
        run.stderr
    );
    // Two authorizations (the stale client, then the new one), one
    // registration, and the stale client is gone from the store.
    assert_eq!(f.requests_to("/authorize").len(), 2);
    assert_eq!(f.requests_to("/register").len(), 1);
    let text = std::fs::read_to_string(&path).expect("credentials.json");
    assert!(!text.contains("stale-client"), "{text}");
    assert!(text.contains(ACCESS_TOKEN), "{text}");
    assert!(!run.stderr.contains("stale-secret") && !run.stdout.contains("stale-secret"));
}

/// A registration kept from an earlier run, which the server has since
/// forgotten; returns the store's path.
fn seed_stale_client(f: &Fake) -> PathBuf {
    let base = f.base();
    let port = common::free_port();
    // A registration kept from an earlier run, which the server has since
    // forgotten (its token endpoint answers invalid_client).
    let stale = serde_json::json!({
        "version": 1,
        "tokens": [],
        "clients": [{
            "issuer": base,
            "client_id": "stale-client",
            "client_secret": "stale-secret",
            "auth_method": "client_secret_basic",
            "redirect_uris": [format!("http://127.0.0.1:{port}/callback")],
            "registered_at": 1_700_000_000u64,
            "client_secret_expires_at": null
        }]
    });
    let path = f.credentials();
    std::fs::create_dir_all(path.parent().expect("a folder")).expect("mkdir");
    std::fs::write(&path, stale.to_string()).expect("seed the store");
    path
}

#[test]
fn a_browser_command_that_fails_ends_the_login_instead_of_waiting() {
    // The authorization server refuses the stale client at /authorize (as
    // real ones do, without redirecting): curl -f fails, and the login ends
    // at once with why, not after the five-minute time limit.
    let f = fake("ok");
    seed_stale_client(&f);
    let run = f.login();
    let stderr = failed(&run);
    assert!(
        run.elapsed < std::time::Duration::from_secs(20),
        "{:?}",
        run.elapsed
    );
    let msg = message(stderr);
    assert!(
        msg.contains("curl") && msg.contains("no login came back"),
        "{stderr}"
    );
    f.assert_no_token_stored();
}

/// `auth login` on a server that needs none: it answers an unauthenticated
/// initialize (200, no challenge) and publishes no OAuth metadata. It says
/// no login is needed (exit 0), instead of trying registration (exit 4).
/// A server that refuses without a challenge or metadata most likely wants
/// an API key, and the message says how to give one.
#[test]
fn login_where_none_is_needed_says_so() {
    for (mode, code, said) in [
        (
            "basic",
            0,
            "fake needs no login: it answered without credentials (HTTP 200",
        ),
        (
            "forbidden",
            4,
            "fake offers no OAuth (HTTP 403 without a challenge",
        ),
    ] {
        let server = common::fake_http(mode, &[]);
        let dir = tempfile::tempdir().expect("tempdir");
        let config = common::write_file(
            dir.path(),
            "config.toml",
            &format!(
                "[settings]\nbrowser = \"false\"\ncredentials = \"file\"\n\n[servers.fake]\nurl = \"{}\"\n",
                server.url
            ),
        );
        let run = common::mcpdeck_env(
            &["auth", "login", "fake"],
            &[
                ("MCPDECK_CONFIG", config.to_str().expect("utf-8")),
                ("XDG_DATA_HOME", dir.path().to_str().expect("utf-8")),
            ],
            common::limit(30),
        );
        assert_eq!(run.code, code, "{mode}: {}\n{}", run.stdout, run.stderr);
        let all = format!("{}{}", run.stdout, run.stderr);
        assert!(all.contains(said), "{mode}: {all}");
        assert!(!all.contains("registration"), "{mode}: {all}");
    }
}

// ---------------------------------------------------------------------------
// Workload identity (SEP-1933): a refusal is the answer.

/// The jwt-bearer grant with the platform's token, refused by the token
/// endpoint (the fake takes only its own registered client, with Basic
/// authentication, and only authorization_code): one token request,
/// no other grant tried (no registration, no browser login), exit 4 naming
/// the refusal, and the platform's token shown nowhere.
#[test]
fn a_refused_workload_token_is_final() {
    let f = fake("ok");
    let jwt = "eyJhbGciOiJSUzI1NiJ9.eyJzdWIiOiJ3b3JrbG9hZCJ9.c2lnbmF0dXJlLXdvcmtsb2Fk";
    let token_file = common::write_file(f.dir.path(), "workload.jwt", jwt);
    std::fs::write(
        &f.config,
        format!(
            "[settings]\nbrowser = \"curl -fsSL -o /dev/null\"\ncredentials = \"file\"\n\n[servers.fake]\nurl = \"{}\"\n\n[servers.fake.oauth]\nclient_id = \"workload-client\"\nworkload_token_file = \"{}\"\n",
            f.server.url,
            token_file.display()
        ),
    )
    .expect("write config");
    let run = f.mcpdeck(&["tools", "fake"]);
    assert_eq!(run.code, 4, "{}\n{}", run.stdout, run.stderr);
    assert!(
        run.stderr.contains(
            "/token refused the urn:ietf:params:oauth:grant-type:jwt-bearer grant (invalid_client"
        ),
        "{}",
        run.stderr
    );
    let tokens = f.requests_to("/token");
    assert_eq!(tokens.len(), 1, "one token request: {tokens:?}");
    let body = tokens[0]["body"].as_str().unwrap_or_default();
    assert!(
        body.contains("grant_type=urn%3Aietf%3Aparams%3Aoauth%3Agrant-type%3Ajwt-bearer")
            && body.contains("assertion=eyJ"),
        "{body}"
    );
    assert!(f.requests_to("/register").is_empty());
    assert!(f.requests_to("/authorize").is_empty());
    assert!(!run.stdout.contains(jwt) && !run.stderr.contains(jwt));
    f.assert_no_token_stored();
    if let Ok(text) = std::fs::read_to_string(f.log_file()) {
        assert!(!text.contains(jwt), "the log holds the platform token");
    }
    // Asked again, it is refused again the same way: still one request
    // each time, never another grant.
    let again = f.mcpdeck(&["tools", "fake"]);
    assert_eq!(again.code, 4);
    assert_eq!(f.requests_to("/token").len(), 2);
    assert!(f.requests_to("/authorize").is_empty());
}
