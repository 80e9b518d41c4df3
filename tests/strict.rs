//! Strict answers, against a real server process that answers badly
//! (tests/fixtures/strict_server.py): a response whose `jsonrpc` is wrong,
//! or whose result lacks what its method returns, completes nothing (the
//! request waits for the valid answer); a garbled answer or one over the
//! size limit fails its own request at once, when its id can be read.

mod common;

use std::sync::Arc;
use std::time::Duration;

use mcpdeck::config::{ProtocolPin, ServerConfig, Settings};
use mcpdeck::mcp::finding::Severity;
use mcpdeck::mcp::framelog::FrameLog;
use mcpdeck::mcp::manager::session_spec;
use mcpdeck::mcp::session::{RequestError, Session};
use serde_json::json;

fn server(mode: &str, marker: &str) -> ServerConfig {
    let script = common::repo().join("tests/fixtures/strict_server.py");
    let py = common::py_v1().display().to_string();
    let mut c = ServerConfig::stdio(
        "strict",
        py,
        &["-X", marker, &script.display().to_string(), mode],
    );
    c.protocol = ProtocolPin::Initialize;
    c
}

async fn connect(mode: &str, settings: &Settings) -> (Session, String) {
    let marker = common::marker(mode);
    let spec = session_spec(&server(mode, &marker), settings, None).expect("spec");
    let frames = Arc::new(FrameLog::new(1000));
    let session = Session::connect(&spec, frames, Arc::new(|_| {}))
        .await
        .unwrap_or_else(|e| panic!("{mode}: connect: {e}"));
    (session, marker)
}

fn settings() -> Settings {
    Settings {
        shutdown_grace: Duration::from_millis(300),
        request_timeout: common::limit(60),
        ..Settings::default()
    }
}

fn findings_with(session: &Session, needle: &str) -> Vec<String> {
    session
        .findings()
        .into_iter()
        .filter(|f| f.message.contains(needle))
        .map(|f| format!("{:?} {}", f.severity, f.message))
        .collect()
}

#[tokio::test]
async fn a_jsonrpc_1_0_answer_with_the_right_id_does_not_complete_the_call() {
    let (s, marker) = connect("wrong-version", &settings()).await;
    let r = s.call_tool("echo", json!({"n": 1})).await;
    let found = findings_with(&s, "`jsonrpc` is \"1.0\"");
    s.close().await;
    common::assert_no_leak(&marker);
    let r = r.expect("the call gets the valid answer");
    assert_eq!(
        r.raw["content"][0]["text"], "real {\"n\": 1}",
        "the decoy was taken"
    );
    // The initialize answer and the call's were both sent as 1.0 first.
    assert!(
        found
            .iter()
            .any(|f| f.contains("the answer to tools/call") && f.contains("waits for a valid one")),
        "{found:?}"
    );
    assert!(
        found.iter().any(|f| f.contains("the answer to initialize")),
        "{found:?}"
    );
    assert!(found.iter().all(|f| f.starts_with("Error")), "{found:?}");
}

#[tokio::test]
async fn answers_that_lack_what_the_method_returns_are_not_taken() {
    let (s, marker) = connect("bad-shape", &settings()).await;
    // initialize waited for the answer with a protocolVersion.
    let n = s.negotiated().expect("negotiated");
    assert!(!n.version.is_empty());
    let tools = s.list_tools().await;
    let init = findings_with(&s, "has no `protocolVersion`");
    let list = findings_with(&s, "has no `tools`");
    s.close().await;
    common::assert_no_leak(&marker);
    let tools = tools.expect("tools/list gets the valid answer");
    assert_eq!(tools.len(), 1);
    assert!(
        init.iter().any(|f| f.contains("the answer to initialize")),
        "{init:?}"
    );
    assert!(
        list.iter().any(|f| f.contains("the answer to tools/list")),
        "{list:?}"
    );
}

#[tokio::test]
async fn a_request_with_only_unusable_answers_times_out() {
    let mut st = settings();
    st.request_timeout = Duration::from_millis(1500);
    let (s, marker) = connect("never-valid", &st).await;
    let r = s.list_tools().await;
    s.close().await;
    common::assert_no_leak(&marker);
    match r {
        Err(RequestError::Timeout { method, .. }) => assert_eq!(method, "tools/list"),
        other => panic!("expected a timeout, got {other:?}"),
    }
}

#[tokio::test]
async fn a_garbled_answer_fails_its_request_at_once() {
    // A deadline far away: a timeout here would mean the id was not read.
    let (s, marker) = connect("garbled", &settings()).await;
    let r = s.call_tool("echo", json!({})).await;
    let found = findings_with(&s, "is not valid JSON");
    s.close().await;
    common::assert_no_leak(&marker);
    match r {
        Err(RequestError::Protocol(m)) => {
            assert!(m.contains("the answer to tools/call"), "{m}");
            assert!(m.contains("is not valid JSON"), "{m}");
        }
        other => panic!("expected the parse error, got {other:?}"),
    }
    assert_eq!(found.len(), 1, "{found:?}");
    assert!(found[0].contains("the request failed"), "{found:?}");
}

#[tokio::test]
async fn an_answer_over_the_size_limit_fails_its_request_at_once() {
    for mode in ["oversize-end", "oversize-start"] {
        let st = Settings {
            max_message_size: 1024 * 1024,
            ..settings()
        };
        let (s, marker) = connect(mode, &st).await;
        let r = s.call_tool("echo", json!({})).await;
        let findings = s.findings();
        // The session is still usable: the next line is read normally.
        let again = s.list_tools().await;
        s.close().await;
        common::assert_no_leak(&marker);
        match r {
            Err(RequestError::Protocol(m)) => {
                assert!(m.contains("the answer to tools/call"), "{mode}: {m}");
                assert!(m.contains("over the limit of 1048576 bytes"), "{mode}: {m}");
                assert!(m.contains("max_message_size"), "{mode}: {m}");
            }
            other => panic!("{mode}: expected the size error, got {other:?}"),
        }
        assert!(
            findings
                .iter()
                .any(|f| f.severity == Severity::Error && f.message.contains("2000")),
            "{mode}: {findings:?}"
        );
        assert_eq!(again.expect("tools/list after").len(), 1, "{mode}");
    }
}
