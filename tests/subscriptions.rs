//! Resource subscriptions in both eras: `resources/subscribe` with
//! server-everything (initialize era), `subscriptions/listen` with the
//! Python SDK 2.3.0 server (stateless era).

mod common;

use std::sync::Arc;
use std::time::Duration;

use mcpdeck::mcp::framelog::Direction;
use mcpdeck::mcp::session::{
    ClientPolicy, EventSink, Pin, Session, SessionEvent, SessionSpec, Tagged, TransportSpec,
};
use mcpdeck::mcp::transport::StdioSpec;
use mcpdeck::mcp::{Era, FrameLog};
use serde_json::{Value, json};
use tokio::sync::mpsc;

async fn connect(
    command: String,
    args: Vec<String>,
) -> (
    Session,
    Arc<FrameLog>,
    mpsc::UnboundedReceiver<(String, Option<Value>)>,
) {
    let (tx, rx) = mpsc::unbounded_channel();
    let sink: EventSink = Arc::new(move |t: Tagged| {
        if let SessionEvent::Notification { method, params } = t.event {
            let _ = tx.send((method, params));
        }
    });
    let frames = Arc::new(FrameLog::new(1000));
    let mut stdio = StdioSpec::new(command, args);
    stdio
        .env
        .push(("GZIP_ALLOWED_DOMAINS".into(), "127.0.0.1".into()));
    let spec = SessionSpec {
        name: Arc::from("s"),
        transport: TransportSpec::Stdio(stdio),
        client: ClientPolicy::default(),
        pin: Pin::Auto,
        era_memory: None,
        request_timeout: common::limit(30),
        connect_timeout: common::limit(30),
        probe_timeout: Duration::from_secs(2),
    };
    let s = Session::connect(&spec, frames.clone(), sink)
        .await
        .expect("connect");
    (s, frames, rx)
}

async fn next_update(
    rx: &mut mpsc::UnboundedReceiver<(String, Option<Value>)>,
    within: Duration,
) -> Option<Value> {
    let deadline = tokio::time::Instant::now() + within;
    loop {
        let (method, params) = tokio::time::timeout_at(deadline, rx.recv()).await.ok()??;
        if method == "notifications/resources/updated" {
            return params;
        }
    }
}

#[tokio::test]
async fn initialize_era_resources_subscribe() {
    let (s, frames, mut rx) = connect(
        "node".into(),
        vec![
            common::everything_js().to_string_lossy().into_owned(),
            "stdio".into(),
        ],
    )
    .await;
    assert_eq!(s.negotiated().unwrap().era, Era::Initialize);
    let uri = "demo://resource/static/document/architecture.md";
    s.subscribe(uri).await.expect("subscribe");
    assert_eq!(s.subscriptions(), vec![uri.to_string()]);
    // server-everything sends updates every 5 s once this is on.
    s.call_tool("toggle-subscriber-updates", json!({}))
        .await
        .unwrap();
    let update = next_update(&mut rx, common::limit(15))
        .await
        .expect("an update");
    assert_eq!(update["uri"], uri);
    s.unsubscribe(uri).await.expect("unsubscribe");
    assert!(s.subscriptions().is_empty());
    let sent: Vec<String> = frames
        .snapshot()
        .iter()
        .filter(|f| f.dir == Direction::Out)
        .filter_map(|f| f.method.as_deref().map(str::to_string))
        .collect();
    assert!(sent.contains(&"resources/subscribe".to_string()));
    assert!(sent.contains(&"resources/unsubscribe".to_string()));
    s.close().await;
}

#[tokio::test]
async fn stateless_era_subscriptions_listen() {
    let (s, frames, mut rx) = connect(
        common::py_v2().to_string_lossy().into_owned(),
        vec![
            common::server_script("py_v2_server.py")
                .to_string_lossy()
                .into_owned(),
        ],
    )
    .await;
    assert_eq!(s.negotiated().unwrap().era, Era::Stateless);
    s.subscribe("config://app").await.expect("subscribe");
    // The acknowledgment comes first on the stream.
    let deadline = tokio::time::Instant::now() + common::limit(10);
    loop {
        let (method, _) = tokio::time::timeout_at(deadline, rx.recv())
            .await
            .expect("an acknowledgment")
            .expect("open");
        if method == "notifications/subscriptions/acknowledged" {
            break;
        }
    }
    // echo bumps config://app.
    s.call_tool("echo", json!({"text": "bump"})).await.unwrap();
    let update = next_update(&mut rx, common::limit(10))
        .await
        .expect("an update");
    assert_eq!(update["uri"], "config://app");
    assert!(
        update["_meta"]["io.modelcontextprotocol/subscriptionId"].is_string()
            || update["_meta"]["io.modelcontextprotocol/subscriptionId"].is_number(),
        "{update:#}"
    );
    let listen: Vec<Value> = frames
        .snapshot()
        .iter()
        .filter(|f| f.dir == Direction::Out && f.method.as_deref() == Some("subscriptions/listen"))
        .map(|f| serde_json::from_str(&f.text).unwrap())
        .collect();
    assert_eq!(listen.len(), 1, "{listen:#?}");
    assert_eq!(
        listen[0]["params"]["notifications"]["resourceSubscriptions"],
        json!(["config://app"])
    );
    // Unsubscribing reopens the stream without the resource.
    s.unsubscribe("config://app").await.unwrap();
    let reopened = frames
        .snapshot()
        .iter()
        .filter(|f| f.dir == Direction::Out && f.method.as_deref() == Some("subscriptions/listen"))
        .count();
    assert_eq!(reopened, 2);
    s.close().await;
}

#[test]
fn read_watch_follows_updates_over_http() {
    use std::io::{BufRead, BufReader};
    use std::process::{Command, Stdio};
    let server = common::python_http(common::py_v2(), "py_v2_server.py");
    let mut watcher = Command::new(common::mcpdeck_bin())
        .args([
            "read",
            &server.url,
            "config://app",
            "--watch",
            "--updates",
            "1",
        ])
        .env(
            "MCPDECK_CONFIG",
            common::repo().join("tests/fixtures/empty.toml"),
        )
        .stdin(Stdio::null())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .unwrap();
    // Wait until it says it is subscribed.
    let stderr = watcher.stderr.take().unwrap();
    let (tx, rx) = std::sync::mpsc::channel();
    std::thread::spawn(move || {
        for line in BufReader::new(stderr).lines().map_while(Result::ok) {
            let _ = tx.send(line);
        }
    });
    let subscribed = loop {
        match rx.recv_timeout(common::limit(20)) {
            Ok(l) if l.contains("subscribed to config://app") => break true,
            Ok(_) => continue,
            Err(_) => break false,
        }
    };
    if !subscribed {
        let _ = watcher.kill();
        let _ = watcher.wait();
        panic!("the watcher never subscribed");
    }
    // Another client's echo bumps the resource.
    let run = common::mcpdeck(
        &["call", &server.url, "echo", r#"{"text":"bump"}"#],
        common::limit(30),
    );
    run.ok();
    let deadline = std::time::Instant::now() + common::limit(20);
    let status = loop {
        if let Some(st) = watcher.try_wait().unwrap() {
            break st;
        }
        if std::time::Instant::now() > deadline {
            let _ = watcher.kill();
            let _ = watcher.wait();
            panic!("the watcher saw no update");
        }
        std::thread::sleep(Duration::from_millis(50));
    };
    assert!(status.success());
    let mut out = String::new();
    use std::io::Read;
    watcher
        .stdout
        .take()
        .unwrap()
        .read_to_string(&mut out)
        .unwrap();
    // Read once, then again after the update.
    assert_eq!(out.matches(r#"{"feature": true}"#).count(), 2, "{out}");
    let rest: Vec<String> = rx.try_iter().collect();
    assert!(
        rest.iter()
            .any(|l| l.contains("config://app was updated (1)")),
        "{rest:?}"
    );
}

/// The methods mcpdeck sent to its servers, from the frame log.
fn sent(frames: &FrameLog) -> Vec<String> {
    frames
        .snapshot()
        .iter()
        .filter(|f| f.dir == Direction::Out)
        .filter_map(|f| f.method.as_deref().map(str::to_string))
        .collect()
}

/// Whether a manager opens `subscriptions/listen` for a stateless-era
/// server once it is connected (and waited a moment for it).
async fn manager_listens(interactive: bool) -> Vec<String> {
    use mcpdeck::config::{ServerConfig, Settings};
    use mcpdeck::mcp::manager::{Event, Manager};
    use mcpdeck::mcp::transport::stdio::Children;
    let script = common::server_script("py_v2_server.py")
        .display()
        .to_string();
    let server = ServerConfig::stdio("py", common::py_v2().display().to_string(), &[&script]);
    let frames = Arc::new(FrameLog::new(1000));
    let (manager, mut rx) = Manager::start_full(
        Settings::default(),
        vec![server],
        frames.clone(),
        Children::new(),
        interactive,
    );
    let deadline = tokio::time::Instant::now() + common::limit(30);
    loop {
        match tokio::time::timeout_at(deadline, rx.recv()).await {
            Ok(Some(Event::Status { status, .. })) if status.settled() => break,
            Ok(Some(_)) => {}
            other => panic!("py did not connect: {:?}", other.is_err()),
        }
    }
    // The stream is opened right after the connect, if at all.
    let deadline = tokio::time::Instant::now() + Duration::from_secs(2);
    while tokio::time::Instant::now() < deadline
        && !sent(&frames).iter().any(|m| m == "subscriptions/listen")
    {
        tokio::time::sleep(Duration::from_millis(20)).await;
    }
    manager.shutdown().await;
    sent(&frames)
}

#[tokio::test]
async fn a_long_lived_manager_listens_for_list_changes_and_a_one_shot_one_does_not() {
    // The TUI's and serve's managers (answers as a person would).
    let sent = manager_listens(true).await;
    assert!(sent.iter().any(|m| m == "subscriptions/listen"), "{sent:?}");
    // A one-shot command's.
    let sent = manager_listens(false).await;
    assert!(sent.iter().any(|m| m == "tools/list"), "{sent:?}");
    assert!(
        !sent.iter().any(|m| m == "subscriptions/listen"),
        "{sent:?}"
    );
}

#[test]
fn one_shot_commands_open_no_listen_stream_and_warn_of_nothing() {
    // The stateless Python SDK server, over HTTP (configured, as in the
    // issue) and over stdio.
    let server = common::python_http(common::py_v2(), "py_v2_server.py");
    let dir = tempfile::tempdir().expect("tempdir");
    let config = common::write_file(
        dir.path(),
        "config.toml",
        &format!("[servers.py]\nurl = {:?}\n", server.url),
    );
    let config = config.to_str().expect("utf-8 path");
    let py = common::py_v2().display().to_string();
    let script = common::server_script("py_v2_server.py")
        .display()
        .to_string();
    for args in [
        vec!["--config", config, "--trace", "tools", "py"],
        vec!["--config", config, "--trace", "servers"],
        vec![
            "--config",
            config,
            "--trace",
            "call",
            "py",
            "echo",
            r#"{"text":"x"}"#,
        ],
        vec!["--trace", "tools", "--", &py, &script],
    ] {
        let run = common::mcpdeck(&args, common::limit(60));
        run.ok();
        assert!(
            run.stderr.contains("C->S"),
            "{args:?}: no trace:\n{}",
            run.stderr
        );
        assert!(
            !run.stderr.contains("subscriptions/listen"),
            "{args:?}: a listen stream was opened:\n{}",
            run.stderr
        );
        assert!(
            !run.stderr.contains("warning"),
            "{args:?}: a warning:\n{}",
            run.stderr
        );
    }
}
