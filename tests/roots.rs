//! Roots from the config, offered to servers by the TUI's (interactive)
//! manager, and a change announced with notifications/roots/list_changed:
//! server-everything asks again, and its get-roots-list tool shows it.

mod common;

use std::sync::Arc;
use std::time::Duration;

use mcpdeck::config::{ServerConfig, Settings};
use mcpdeck::mcp::FrameLog;
use mcpdeck::mcp::manager::EventReceiver;
use mcpdeck::mcp::manager::{Command, Event, Manager, ServerStatus};
use mcpdeck::mcp::transport::stdio::Children;
use serde_json::json;

async fn call_text(m: &Manager, rx: &mut EventReceiver, tag: u64) -> String {
    m.send(Command::Call {
        tag,
        server: "se".into(),
        tool: "get-roots-list".into(),
        arguments: json!({}),
    });
    let deadline = tokio::time::Instant::now() + common::limit(30);
    loop {
        let ev = tokio::time::timeout_at(deadline, rx.recv())
            .await
            .expect("the call finishes")
            .expect("events");
        if let Event::CallFinished { tag: t, result, .. } = ev
            && t == tag
        {
            let r = result.expect("get-roots-list");
            return r.raw["content"][0]["text"]
                .as_str()
                .unwrap_or("")
                .to_string();
        }
    }
}

#[tokio::test]
async fn config_roots_are_offered_and_changes_announced() {
    let a = tempfile::tempdir().unwrap();
    let b = tempfile::tempdir().unwrap();
    let settings = Settings {
        roots: vec![a.path().to_path_buf()],
        request_timeout: common::limit(30),
        ..Settings::default()
    };
    let mut server = ServerConfig::stdio(
        "se",
        "node",
        &[common::everything_js().to_str().unwrap(), "stdio"],
    );
    if let mcpdeck::config::TransportConfig::Stdio { env, .. } = &mut server.transport {
        env.push(("GZIP_ALLOWED_DOMAINS".into(), "127.0.0.1".into()));
    }
    let frames = Arc::new(FrameLog::new(10_000));
    let (m, mut rx) = Manager::start_full(
        settings,
        vec![server],
        frames.clone(),
        Children::new(),
        true,
    );
    let deadline = tokio::time::Instant::now() + common::limit(30);
    loop {
        let ev = tokio::time::timeout_at(deadline, rx.recv())
            .await
            .unwrap()
            .unwrap();
        if let Event::Status {
            status: ServerStatus::Connected,
            ..
        } = ev
        {
            break;
        }
    }
    // server-everything asks for roots ~350 ms after initialized.
    tokio::time::sleep(Duration::from_millis(800)).await;
    let first = call_text(&m, &mut rx, 1).await;
    let a_uri = url::Url::from_directory_path(a.path()).unwrap();
    assert!(first.contains(a_uri.as_str()), "{first}");

    m.send(Command::SetRoots(vec![b.path().to_path_buf()]));
    let b_uri = url::Url::from_directory_path(b.path()).unwrap();
    let mut text = String::new();
    for tag in 2..40 {
        tokio::time::sleep(Duration::from_millis(100)).await;
        text = call_text(&m, &mut rx, tag).await;
        if text.contains(b_uri.as_str()) {
            break;
        }
    }
    assert!(text.contains(b_uri.as_str()), "{text}");
    assert!(
        frames
            .snapshot()
            .iter()
            .any(|f| f.method.as_deref() == Some("notifications/roots/list_changed"))
    );
    // Setting the same roots again announces nothing.
    let before = frames
        .snapshot()
        .iter()
        .filter(|f| f.method.as_deref() == Some("notifications/roots/list_changed"))
        .count();
    m.send(Command::SetRoots(vec![b.path().to_path_buf()]));
    let _ = call_text(&m, &mut rx, 99).await;
    let after = frames
        .snapshot()
        .iter()
        .filter(|f| f.method.as_deref() == Some("notifications/roots/list_changed"))
        .count();
    assert_eq!(before, after);
    m.shutdown().await;
}
