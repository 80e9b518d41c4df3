//! Misbehaving HTTP servers (tests/servers/fake_http.py): session expiry,
//! a stream dropped mid-response, garbage events, an HTML 500, slow headers,
//! a redirect, 401/403, and a legacy HTTP+SSE endpoint.

mod common;

use std::sync::Arc;
use std::time::Duration;

use mcpdeck::mcp::framelog::Direction;
use mcpdeck::mcp::session::{ClientPolicy, EventSink, Pin, Session, SessionSpec, TransportSpec};
use mcpdeck::mcp::transport::http::HttpSpec;
use mcpdeck::mcp::{FrameLog, Severity};
use serde_json::{Value, json};

fn spec(url: &str) -> SessionSpec {
    SessionSpec {
        name: Arc::from("fake"),
        transport: TransportSpec::Http(HttpSpec::new(url)),
        client: ClientPolicy::default(),
        pin: Pin::Auto,
        era_memory: None,
        request_timeout: common::limit(20),
        connect_timeout: common::limit(20),
        probe_timeout: Duration::from_secs(1),
    }
}

async fn connect(url: &str) -> (Session, Arc<FrameLog>) {
    let frames = Arc::new(FrameLog::new(1000));
    let sink: EventSink = Arc::new(|_| {});
    let s = Session::connect(&spec(url), frames.clone(), sink)
        .await
        .unwrap_or_else(|e| panic!("connect {url}: {e}"));
    (s, frames)
}

/// What the fake server received, in order.
async fn server_log(server: &common::HttpServer) -> Vec<Value> {
    let url = format!("http://127.0.0.1:{}/_log", server.port);
    let text = reqwest::get(url).await.unwrap().text().await.unwrap();
    serde_json::from_str(&text).unwrap()
}

fn rpc_method(entry: &Value) -> Option<String> {
    let body: Value = serde_json::from_str(entry["body"].as_str()?).ok()?;
    body["method"].as_str().map(str::to_string)
}

fn text_of(result: &mcpdeck::mcp::CallResult) -> String {
    result.raw["content"][0]["text"]
        .as_str()
        .unwrap_or("")
        .to_string()
}

#[tokio::test]
async fn session_expiry_reinitializes_and_retries() {
    let server = common::fake_http("session-expiry", &[]);
    let (session, _) = connect(&server.url).await;
    assert_eq!(session.http_session_id().as_deref(), Some("s1"));
    for i in 0..5 {
        let r = session
            .call_tool("echo", json!({"text": format!("n{i}")}))
            .await
            .unwrap_or_else(|e| panic!("call {i}: {e}"));
        assert_eq!(text_of(&r), format!("echo: n{i}"));
    }
    // Expired after two calls each time: s1, s2, s3.
    assert_eq!(session.http_session_id().as_deref(), Some("s3"));
    let log = server_log(&server).await;
    let inits = log
        .iter()
        .filter(|e| rpc_method(e).as_deref() == Some("initialize"))
        .count();
    assert_eq!(inits, 3, "{log:#?}");
    let findings = session.findings();
    assert!(
        findings
            .iter()
            .any(|f| f.severity == Severity::Info
                && f.message.contains("expired HTTP session \"s1\"")),
        "{findings:#?}"
    );
    // A re-initialize goes without the expired session header.
    let second_init = log
        .iter()
        .filter(|e| rpc_method(e).as_deref() == Some("initialize"))
        .nth(1)
        .unwrap();
    assert!(
        second_init["headers"].get("mcp-session-id").is_none(),
        "{second_init:#}"
    );
    session.close().await;
    let log = server_log(&server).await;
    let delete = log
        .iter()
        .find(|e| e["method"] == "DELETE")
        .expect("DELETE on close");
    assert_eq!(delete["headers"]["mcp-session-id"], "s3");
}

#[tokio::test]
async fn dropped_stream_resumes_with_last_event_id_after_retry() {
    let server = common::fake_http("sse-drop", &[]);
    let (session, frames) = connect(&server.url).await;
    let r = session
        .call_tool("echo", json!({"text": "again"}))
        .await
        .unwrap();
    assert_eq!(text_of(&r), "echo: again");
    let log = server_log(&server).await;
    let resume = log
        .iter()
        .find(|e| e["method"] == "GET" && e["headers"].get("last-event-id").is_some())
        .unwrap_or_else(|| panic!("no resume GET: {log:#?}"));
    assert_eq!(resume["headers"]["last-event-id"], "ev-1");
    assert_eq!(resume["headers"]["mcp-session-id"], "s1");
    let delay = resume["resume_delay_ms"].as_f64().unwrap();
    assert!(
        delay >= 250.0,
        "resumed after {delay} ms, before the server's retry of 300 ms"
    );
    // The notification sent before the drop was delivered too.
    assert!(
        frames
            .snapshot()
            .iter()
            .any(|f| f.dir == Direction::In && f.method.as_deref() == Some("notifications/message")),
    );
    session.close().await;
}

#[tokio::test]
async fn garbage_events_become_findings_and_the_answer_still_arrives() {
    let server = common::fake_http("garbage-sse", &[]);
    let (session, _) = connect(&server.url).await;
    let r = session
        .call_tool("echo", json!({"text": "x"}))
        .await
        .unwrap();
    assert_eq!(text_of(&r), "echo: x");
    let findings: Vec<String> = session.findings().into_iter().map(|f| f.message).collect();
    let has = |needle: &str| findings.iter().any(|m| m.contains(needle));
    assert!(has("no colon"), "{findings:#?}");
    assert!(has("UTF-8"), "{findings:#?}");
    assert!(has("\"weird\""), "{findings:#?}");
    assert!(findings.len() >= 5, "{findings:#?}");
    session.close().await;
}

#[tokio::test]
async fn initialize_era_headers_and_the_get_stream() {
    // The initialize era: session id and protocol version after init.
    let server = common::fake_http("basic", &[]);
    let (session, _) = connect(&server.url).await;
    session
        .call_tool("add", json!({"a": 2, "b": 3}))
        .await
        .unwrap();
    let log = server_log(&server).await;
    let call = log
        .iter()
        .find(|e| rpc_method(e).as_deref() == Some("tools/call"))
        .unwrap();
    assert_eq!(call["headers"]["mcp-session-id"], "s1");
    assert_eq!(call["headers"]["mcp-protocol-version"], "2025-11-25");
    assert_eq!(
        call["headers"]["accept"],
        "application/json, text/event-stream"
    );
    let init = log
        .iter()
        .find(|e| rpc_method(e).as_deref() == Some("initialize"))
        .unwrap();
    assert!(init["headers"].get("mcp-protocol-version").is_none());
    // The standalone GET stream was tried (405 here, which is fine).
    assert!(log.iter().any(|e| e["method"] == "GET"));
    session.close().await;
}

// ------------------------------------------------------------ through the CLI

#[test]
fn html_500_is_one_clear_line() {
    let server = common::fake_http("html-500", &[]);
    let run = common::mcpdeck(&["info", &server.url], common::limit(30));
    assert_eq!(run.code, 3, "{}", run.stderr);
    let err = run.stderr.trim();
    assert!(err.contains("HTTP 500 Internal Server Error"), "{err}");
    assert!(err.contains(&server.url), "{err}");
    assert!(
        err.contains("<title>500 Internal Server Error</title>"),
        "{err}"
    );
    assert_eq!(err.lines().count(), 1, "{err}");
    assert!(err.len() < 1200, "the 3 KB page is not dumped: {err}");
}

#[test]
fn slow_headers_time_out_naming_the_url() {
    let server = common::fake_http("slow-headers", &["--delay", "30"]);
    let dir = tempfile::tempdir().unwrap();
    let cfg = common::write_file(
        dir.path(),
        "c.toml",
        &format!(
            "[settings]\nconnect_timeout = 2\n\n[servers.slow]\nurl = \"{}\"\n",
            server.url
        ),
    );
    let run = common::mcpdeck(
        &["--config", cfg.to_str().unwrap(), "info", "slow"],
        common::limit(20),
    );
    assert_eq!(run.code, 3, "{}", run.stderr);
    assert!(run.stderr.contains(&server.url), "{}", run.stderr);
    assert!(run.stderr.contains("within 2 s"), "{}", run.stderr);
    assert!(run.elapsed < Duration::from_secs(15), "{:?}", run.elapsed);
}

#[test]
fn a_redirect_is_followed() {
    let server = common::fake_http("redirect", &[]);
    let run = common::mcpdeck(
        &["call", &server.url, "echo", r#"{"text":"moved"}"#],
        common::limit(30),
    );
    run.ok();
    assert!(run.stdout.contains("echo: moved"), "{}", run.stdout);
}

#[test]
fn unauthorized_needs_auth_and_the_token_never_shows() {
    let server = common::fake_http("unauthorized", &[]);
    let run = common::mcpdeck(&["info", &server.url], common::limit(30));
    assert_eq!(run.code, 4, "{}", run.stderr);
    assert!(run.stderr.contains("needs authorization"), "{}", run.stderr);
    assert!(run.stderr.contains("HTTP 401"), "{}", run.stderr);
    // The challenge's resource_metadata is followed, and the trace says so.
    assert!(
        run.stderr
            .contains("the server's challenge names its resource metadata"),
        "{}",
        run.stderr
    );
    assert!(
        run.stderr
            .contains(&format!("mcpdeck auth login {}", server.url)),
        "{}",
        run.stderr
    );

    let dir = tempfile::tempdir().unwrap();
    let cfg = common::write_file(
        dir.path(),
        "c.toml",
        &format!(
            "[servers.auth]\nurl = \"{}\"\nheaders = {{ Authorization = \"Bearer ${{FAKE_TOKEN}}\" }}\n",
            server.url
        ),
    );
    let cfg = cfg.to_str().unwrap();
    let run = common::mcpdeck_env(
        &[
            "--config",
            cfg,
            "--trace",
            "call",
            "auth",
            "echo",
            r#"{"text":"in"}"#,
        ],
        &[("FAKE_TOKEN", "good-token")],
        common::limit(30),
    );
    run.ok();
    assert!(run.stdout.contains("echo: in"));
    assert!(!run.stdout.contains("good-token") && !run.stderr.contains("good-token"));
    let run = common::mcpdeck_env(
        &["--config", cfg, "servers", "--json"],
        &[("FAKE_TOKEN", "bad-token")],
        common::limit(30),
    );
    assert!(run.stdout.contains("needs auth"), "{}", run.stdout);
    assert!(!run.stdout.contains("bad-token") && !run.stderr.contains("bad-token"));
    // smoke: exit 4.
    let run = common::mcpdeck(&["smoke", &server.url], common::limit(30));
    assert_eq!(run.code, 4, "{}\n{}", run.stdout, run.stderr);
}

#[test]
fn forbidden_needs_auth() {
    let server = common::fake_http("forbidden", &[]);
    let run = common::mcpdeck(&["tools", &server.url], common::limit(30));
    assert_eq!(run.code, 4, "{}", run.stderr);
    assert!(run.stderr.contains("HTTP 403 Forbidden"), "{}", run.stderr);
    assert!(
        run.stderr.contains("forbidden: this key may not use MCP"),
        "{}",
        run.stderr
    );
}

#[test]
fn connection_refused_names_the_url() {
    let port = common::free_port();
    let url = format!("http://127.0.0.1:{port}/mcp");
    let run = common::mcpdeck(&["info", &url], common::limit(30));
    assert_eq!(run.code, 3);
    assert!(run.stderr.contains(&url), "{}", run.stderr);
    assert!(run.stderr.contains("connection refused"), "{}", run.stderr);
}

#[test]
fn legacy_sse_endpoint() {
    let server = common::fake_http("legacy-sse", &[]);
    let sse = format!("http://127.0.0.1:{}/sse", server.port);
    // Detected: POST /sse is refused, GET /sse gives the endpoint.
    let run = common::mcpdeck(
        &["smoke", "--json", "--calls", "all", &sse],
        common::limit(60),
    );
    assert_eq!(run.code, 0, "{}\n{}", run.stdout, run.stderr);
    let report: Value = serde_json::from_str(&run.stdout).unwrap();
    assert_eq!(report["server"]["transport"], "sse");
    assert_eq!(report["server"]["protocolVersion"], "2024-11-05");
    let names: Vec<&str> = report["checks"]
        .as_array()
        .unwrap()
        .iter()
        .filter(|c| c["kind"] == "tool" && c["status"] == "pass")
        .filter_map(|c| c["name"].as_str())
        .collect();
    assert_eq!(names, ["echo", "add"], "{report:#}");
}

#[test]
fn a_secret_in_the_url_query_is_masked() {
    let server = common::fake_http("html-500", &[]);
    let url = format!("{}?api_key=sup3rsecret&x=1", server.url);
    let run = common::mcpdeck(&["info", &url], common::limit(30));
    assert_eq!(run.code, 3);
    assert!(!run.stderr.contains("sup3rsecret"), "{}", run.stderr);
    assert!(run.stderr.contains("api_key="), "{}", run.stderr);
}

#[test]
fn tls_with_a_private_ca_and_insecure() {
    let dir = tempfile::tempdir().unwrap();
    let made = std::process::Command::new(common::py_v2())
        .arg(common::server_script("make_certs.py"))
        .arg(dir.path())
        .status()
        .unwrap();
    assert!(made.success());
    let cert = dir.path().join("server.pem");
    let key = dir.path().join("server.key");
    let server = common::fake_http(
        "basic",
        &["--tls", cert.to_str().unwrap(), key.to_str().unwrap()],
    );
    let url = format!("https://127.0.0.1:{}/mcp", server.port);

    // Not trusted: a TLS error naming the URL and the fix.
    let run = common::mcpdeck(&["info", &url], common::limit(30));
    assert_eq!(run.code, 3, "{}", run.stderr);
    assert!(run.stderr.contains("TLS failed"), "{}", run.stderr);
    assert!(run.stderr.contains(&url), "{}", run.stderr);
    assert!(run.stderr.contains("ca_file"), "{}", run.stderr);

    // Trusted through ca_file (relative to the config file), or not
    // verified at all with insecure = true, which warns.
    std::fs::rename(dir.path().join("ca.pem"), dir.path().join("company-ca.pem")).unwrap();
    let cfg = common::write_file(
        dir.path(),
        "c.toml",
        &format!(
            "[servers.trusted]\nurl = \"{url}\"\nca_file = \"company-ca.pem\"\n\n[servers.unchecked]\nurl = \"{url}\"\ninsecure = true\n"
        ),
    );
    let cfg = cfg.to_str().unwrap();
    let run = common::mcpdeck(
        &[
            "--config",
            cfg,
            "call",
            "trusted",
            "echo",
            r#"{"text":"tls"}"#,
        ],
        common::limit(30),
    );
    run.ok();
    assert!(run.stdout.contains("echo: tls"));
    assert!(!run.stderr.contains("not verified"), "{}", run.stderr);
    let run = common::mcpdeck(
        &[
            "--config",
            cfg,
            "call",
            "unchecked",
            "echo",
            r#"{"text":"tls"}"#,
        ],
        common::limit(30),
    );
    run.ok();
    assert!(
        run.stderr
            .contains("TLS certificates are not verified for server \"unchecked\""),
        "{}",
        run.stderr
    );
    // A missing ca_file is named.
    let cfg2 = common::write_file(
        dir.path(),
        "d.toml",
        &format!("[servers.t]\nurl = \"{url}\"\nca_file = \"nope.pem\"\n"),
    );
    let run = common::mcpdeck(
        &["--config", cfg2.to_str().unwrap(), "info", "t"],
        common::limit(30),
    );
    assert_ne!(run.code, 0);
    assert!(run.stderr.contains("cannot read ca_file"), "{}", run.stderr);
    assert!(run.stderr.contains("nope.pem"), "{}", run.stderr);
}

/// The fake HTTP server in `mode`, a session connected to it, and a ping
/// that must fail (both modes break the ping's connection).
async fn connected_and_ping_failed(mode: &str) -> (common::HttpServer, Session) {
    let server = common::fake_http(mode, &[]);
    let (s, _frames) = connect(&server.url).await;
    let ping = s.ping().await;
    assert!(ping.is_err(), "{ping:?}");
    (server, s)
}

/// A ping whose connection closes with no answer, the server still up: the
/// ping fails, a HEAD on a fresh connection finds the server there, and the
/// session goes on (the next call is answered).
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_connection_closed_without_an_answer_on_a_live_server_keeps_the_session() {
    let (server, s) = connected_and_ping_failed("drop-ping").await;
    assert_eq!(s.closed(), None, "the session ended");
    let log = server_log(&server).await;
    assert!(
        log.iter().any(|r| r["method"] == "HEAD"),
        "no reachability check: {log:?}"
    );
    let r = s
        .call_tool("echo", json!({"text": "still here"}))
        .await
        .expect("the call after the dropped ping");
    assert_eq!(text_of(&r), "echo: still here");
}

/// A server that dies while its connection sits in the pool: the ping
/// fails on that connection (not a connect error), the HEAD cannot
/// connect, and the session ends saying the server is unreachable.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_server_that_dies_under_a_pooled_connection_ends_the_session() {
    let (_server, s) = connected_and_ping_failed("die-on-ping").await;
    let deadline = tokio::time::Instant::now() + common::limit(10);
    while s.closed().is_none() {
        assert!(
            tokio::time::Instant::now() < deadline,
            "the session did not end"
        );
        tokio::time::sleep(Duration::from_millis(20)).await;
    }
    let why = s.closed().unwrap_or_default();
    assert!(why.contains("unreachable"), "{why}");
}
