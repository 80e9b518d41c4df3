//! An HTTP server that dies and comes back while connected: the status
//! changes with the reason (a failed ping or call no longer leaves a green
//! badge), and a server restarted behind mcpdeck's back (it answers the old
//! session with 400 "No valid session ID", as server-everything does) gets
//! a new session on its own, once, and the call goes through.

mod common;

use std::sync::Arc;
use std::time::Duration;

use mcpdeck::config::{ServerConfig, Settings};
use mcpdeck::mcp::FrameLog;
use mcpdeck::mcp::manager::{Command, Event, EventReceiver, Manager, ServerStatus};
use mcpdeck::mcp::transport::stdio::Children;
use serde_json::json;

/// The next event that `pick` takes, within the test's limit.
async fn next<T>(rx: &mut EventReceiver, mut pick: impl FnMut(Event) -> Option<T>) -> T {
    let deadline = tokio::time::Instant::now() + common::limit(30);
    loop {
        let ev = tokio::time::timeout_at(deadline, rx.recv())
            .await
            .expect("the event came in time")
            .expect("events");
        if let Some(t) = pick(ev) {
            return t;
        }
    }
}

async fn connected(rx: &mut EventReceiver) {
    next(rx, |ev| match ev {
        Event::Status {
            status: ServerStatus::Connected,
            ..
        } => Some(()),
        Event::Status {
            status: ServerStatus::Failed(e),
            ..
        } => panic!("did not connect: {e}"),
        _ => None,
    })
    .await
}

fn start(url: &str) -> (Manager, EventReceiver) {
    let settings = Settings {
        request_timeout: common::limit(30),
        ..Settings::default()
    };
    Manager::start_full(
        settings,
        vec![ServerConfig::http("ev", url)],
        Arc::new(FrameLog::new(10_000)),
        Children::new(),
        true,
    )
}

async fn echo(m: &Manager, rx: &mut EventReceiver, tag: u64) -> Result<String, String> {
    echo_seeing(m, rx, tag, &mut Vec::new()).await
}

/// [`echo`], keeping the findings that came meanwhile (before the result).
async fn echo_seeing(
    m: &Manager,
    rx: &mut EventReceiver,
    tag: u64,
    findings: &mut Vec<String>,
) -> Result<String, String> {
    m.send(Command::Call {
        tag,
        server: "ev".into(),
        tool: "echo".into(),
        arguments: json!({"message": "again"}),
    });
    next(rx, |ev| match ev {
        Event::CallFinished { tag: t, result, .. } if t == tag => Some(
            result
                .map(|r| {
                    r.raw["content"][0]["text"]
                        .as_str()
                        .unwrap_or("")
                        .to_string()
                })
                .map_err(|e| e.to_string()),
        ),
        Event::Finding { finding, .. } => {
            findings.push(finding.message);
            None
        }
        _ => None,
    })
    .await
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_dead_http_server_fails_with_its_reason_and_a_restarted_one_gets_a_new_session() {
    let port = common::free_port();
    let server = common::everything_http_on("streamableHttp", port);
    let (m, mut rx) = start(&server.url);
    connected(&mut rx).await;
    assert_eq!(echo(&m, &mut rx, 1).await.as_deref(), Ok("Echo: again"));

    // Restarted behind mcpdeck's back: the old session id gets 400. The
    // call re-initializes once, says so, and goes through.
    drop(server);
    let server = common::everything_http_on("streamableHttp", port);
    let mut findings = Vec::new();
    let again = echo_seeing(&m, &mut rx, 2, &mut findings).await;
    assert_eq!(again.as_deref(), Ok("Echo: again"));
    assert!(
        findings
            .iter()
            .any(|f| f.contains("expired HTTP session") && f.contains("initialized session")),
        "{findings:?}"
    );

    // Killed: the ping fails, and the status says why (no green badge).
    drop(server);
    m.send(Command::Ping("ev".into()));
    // Both come, in either order (the status through the session's end).
    let (mut ping, mut why) = (None, None);
    while ping.is_none() || why.is_none() {
        next(&mut rx, |ev| match ev {
            Event::Ping { result, .. } => {
                ping = Some(result);
                Some(())
            }
            Event::Status {
                status: ServerStatus::Failed(e),
                ..
            } => {
                why = Some(e.to_string());
                Some(())
            }
            Event::Status { status, .. } => panic!("unexpected status {status:?}"),
            other => {
                eprintln!("{other:?}");
                None
            }
        })
        .await;
    }
    let (ping, why) = (ping.unwrap_or(Ok(Duration::ZERO)), why.unwrap_or_default());
    assert!(ping.is_err(), "{ping:?}");
    assert!(why.contains("unreachable"), "{why}");
    // A call now says the server is failed, at once.
    let refused = echo(&m, &mut rx, 3).await.unwrap_err();
    assert!(refused.contains("failed"), "{refused}");

    // Back again: a reconnect brings it back.
    let _server = common::everything_http_on("streamableHttp", port);
    m.send(Command::Reconnect("ev".into()));
    connected(&mut rx).await;
    assert_eq!(echo(&m, &mut rx, 4).await.as_deref(), Ok("Echo: again"));
    tokio::time::timeout(Duration::from_secs(10), m.shutdown())
        .await
        .expect("shutdown");
}
