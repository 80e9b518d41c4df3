//! Server requests answered by mcpdeck's client side, in both eras, with
//! the Python SDK 2.3.0 server's `whoami` tool (an elicitation and a roots
//! request): in the stateless era through resultType input_required
//! (inputRequests, then inputResponses and requestState on the retry), in
//! the initialize era through server-to-client requests.

mod common;

use std::sync::{Arc, Mutex};
use std::time::Duration;

use mcpdeck::mcp::framelog::Direction;
use mcpdeck::mcp::jsonrpc::RpcError;
use mcpdeck::mcp::session::{
    Asker, ClientPolicy, Declared, EventSink, Pin, ServerRequest, Session, SessionSpec,
    SharedRoots, TransportSpec,
};
use mcpdeck::mcp::transport::StdioSpec;
use mcpdeck::mcp::{Era, FrameLog};
use serde_json::{Value, json};

fn spec(extra: &[&str], client: ClientPolicy) -> SessionSpec {
    let mut args = vec![
        common::server_script("py_v2_server.py")
            .to_string_lossy()
            .into_owned(),
    ];
    args.extend(extra.iter().map(|s| s.to_string()));
    SessionSpec {
        name: Arc::from("py"),
        transport: TransportSpec::Stdio(StdioSpec::new(
            common::py_v2().to_string_lossy().into_owned(),
            args,
        )),
        client,
        pin: Pin::Auto,
        era_memory: None,
        request_timeout: common::limit(30),
        connect_timeout: common::limit(30),
        probe_timeout: Duration::from_secs(2),
    }
}

async fn whoami(extra: &[&str], client: ClientPolicy) -> (String, Era, Arc<FrameLog>) {
    let frames = Arc::new(FrameLog::new(1000));
    let sink: EventSink = Arc::new(|_| {});
    let s = Session::connect(&spec(extra, client), frames.clone(), sink)
        .await
        .expect("connect");
    let era = s.negotiated().unwrap().era;
    let r = s.call_tool("whoami", json!({})).await.expect("whoami");
    s.close().await;
    let text = r.raw["content"][0]["text"]
        .as_str()
        .unwrap_or("")
        .to_string();
    (text, era, frames)
}

fn tool_calls(frames: &FrameLog) -> Vec<Value> {
    frames
        .snapshot()
        .iter()
        .filter(|f| f.dir == Direction::Out && f.method.as_deref() == Some("tools/call"))
        .map(|f| serde_json::from_str(&f.text).unwrap())
        .collect()
}

/// A configured root: the repository's folder.
fn repo_root() -> SharedRoots {
    SharedRoots::new(&[std::path::PathBuf::from(env!("CARGO_MANIFEST_DIR"))])
}

/// No roots configured: the server is told there are none (never the
/// current directory).
#[tokio::test]
async fn stateless_input_required_without_roots_offers_none() {
    let (text, _, frames) = whoami(
        &[],
        ClientPolicy::automatic(Declared::DEFAULT, SharedRoots::new(&[])),
    )
    .await;
    assert_eq!(text, "hello Ada (36); roots []");
    let calls = tool_calls(&frames);
    let retry = &calls[calls.len() - 1]["params"];
    let answers = retry["inputResponses"].as_object().expect("inputResponses");
    assert!(
        answers
            .values()
            .any(|a| a["roots"].as_array().is_some_and(Vec::is_empty)),
        "{retry:#}"
    );
}

#[tokio::test]
async fn stateless_input_required_with_the_automatic_policy() {
    let (text, era, frames) =
        whoami(&[], ClientPolicy::automatic(Declared::DEFAULT, repo_root())).await;
    assert_eq!(era, Era::Stateless);
    let cwd = url::Url::from_directory_path(env!("CARGO_MANIFEST_DIR")).unwrap();
    assert_eq!(text, format!("hello Ada (36); roots ['{cwd}']"));
    let calls = tool_calls(&frames);
    assert!(calls.len() >= 2, "{calls:#?}");
    let retry = &calls[calls.len() - 1]["params"];
    let answers = retry["inputResponses"].as_object().expect("inputResponses");
    assert!(
        answers
            .values()
            .any(|a| a["action"] == "accept" && a["content"]["name"] == "Ada")
    );
    assert!(
        answers
            .values()
            .any(|a| a["roots"][0]["uri"] == cwd.as_str())
    );
    assert!(retry.get("requestState").is_some(), "{retry:#}");
    // Each round is a new request with a new id.
    assert_ne!(calls[0]["id"], calls[calls.len() - 1]["id"]);
}

/// A person answering through the asker: the elicitation gets "Grace", 41.
fn person() -> (ClientPolicy, Arc<Mutex<Vec<ServerRequest>>>) {
    let seen = Arc::new(Mutex::new(Vec::new()));
    let log = seen.clone();
    let ask = Asker(Arc::new(move |req: ServerRequest| {
        log.lock().unwrap().push(req.clone());
        let (tx, rx) = tokio::sync::oneshot::channel::<Result<Value, RpcError>>();
        let _ = tx.send(Ok(
            json!({"action": "accept", "content": {"name": "Grace", "age": 41}}),
        ));
        rx
    }));
    let mut policy = ClientPolicy::automatic(Declared::DEFAULT, repo_root());
    policy.elicitation_defaults = false;
    policy.ask = Some(ask);
    (policy, seen)
}

#[tokio::test]
async fn stateless_input_required_answered_by_a_person() {
    let (policy, seen) = person();
    let (text, era, _) = whoami(&[], policy).await;
    assert_eq!(era, Era::Stateless);
    assert!(
        text.starts_with("hello Grace (41); roots ['file://"),
        "{text}"
    );
    let seen = seen.lock().unwrap();
    assert_eq!(
        seen.len(),
        1,
        "only the elicitation goes to the person: {seen:?}"
    );
    assert_eq!(seen[0].method, "elicitation/create");
    assert_eq!(seen[0].params["message"], "Who is asking?");
}

#[tokio::test]
async fn initialize_era_server_requests_answered_by_a_person() {
    let (policy, seen) = person();
    let (text, era, frames) = whoami(&["--legacy-only"], policy).await;
    assert_eq!(era, Era::Initialize);
    assert!(
        text.starts_with("hello Grace (41); roots ['file://"),
        "{text}"
    );
    assert_eq!(seen.lock().unwrap().len(), 1);
    // The server asked with requests of its own; no inputResponses.
    assert!(
        tool_calls(&frames)
            .iter()
            .all(|c| c["params"].get("inputResponses").is_none())
    );
    assert!(
        frames
            .snapshot()
            .iter()
            .any(|f| f.dir == Direction::In && f.method.as_deref() == Some("elicitation/create"))
    );
}

#[tokio::test]
async fn a_declined_input_request_fails_the_call_clearly() {
    let ask = Asker(Arc::new(|_req: ServerRequest| {
        let (tx, rx) = tokio::sync::oneshot::channel::<Result<Value, RpcError>>();
        let _ = tx.send(Err(RpcError::new(-1, "the user declined")));
        rx
    }));
    let mut policy = ClientPolicy::automatic(Declared::DEFAULT, repo_root());
    policy.ask = Some(ask);
    let frames = Arc::new(FrameLog::new(1000));
    let sink: EventSink = Arc::new(|_| {});
    let s = Session::connect(&spec(&[], policy), frames, sink)
        .await
        .unwrap();
    let e = s
        .call_tool("whoami", json!({}))
        .await
        .unwrap_err()
        .to_string();
    s.close().await;
    assert!(e.contains("needs elicitation/create"), "{e}");
    assert!(e.contains("the user declined"), "{e}");
}

/// server-everything over stdio with the given client policy.
async fn everything(
    client: ClientPolicy,
) -> (
    Session,
    tokio::sync::mpsc::UnboundedReceiver<(String, Option<Value>)>,
) {
    let (tx, rx) = tokio::sync::mpsc::unbounded_channel();
    let sink: EventSink = Arc::new(move |t: mcpdeck::mcp::session::Tagged| {
        if let mcpdeck::mcp::session::SessionEvent::Notification { method, params } = t.event {
            let _ = tx.send((method, params));
        }
    });
    let mut stdio = StdioSpec::new(
        "node",
        vec![
            common::everything_js().to_string_lossy().into_owned(),
            "stdio".into(),
        ],
    );
    stdio
        .env
        .push(("GZIP_ALLOWED_DOMAINS".into(), "127.0.0.1".into()));
    let spec = SessionSpec {
        name: Arc::from("se"),
        transport: TransportSpec::Stdio(stdio),
        client,
        pin: Pin::Auto,
        era_memory: None,
        request_timeout: common::limit(30),
        connect_timeout: common::limit(30),
        probe_timeout: Duration::from_secs(2),
    };
    let s = Session::connect(&spec, Arc::new(FrameLog::new(1000)), sink)
        .await
        .expect("connect");
    (s, rx)
}

#[tokio::test]
async fn server_everything_sampling_answered_by_a_person() {
    let seen = Arc::new(Mutex::new(Vec::new()));
    let log = seen.clone();
    let ask = Asker(Arc::new(move |req: ServerRequest| {
        log.lock().unwrap().push(req.clone());
        let (tx, rx) = tokio::sync::oneshot::channel::<Result<Value, RpcError>>();
        let _ = tx.send(Ok(json!({
            "role": "assistant",
            "content": {"type": "text", "text": "forty-two, said the human"},
            "model": "mcpdeck-human",
            "stopReason": "endTurn"
        })));
        rx
    }));
    let mut policy = ClientPolicy::automatic(Declared::DEFAULT, repo_root());
    policy.elicitation_defaults = false;
    policy.ask = Some(ask);
    let (s, _rx) = everything(policy).await;
    let r = s
        .call_tool(
            "trigger-sampling-request",
            json!({"prompt": "the answer?", "maxTokens": 20}),
        )
        .await
        .expect("call");
    s.close().await;
    let text = r.raw.to_string();
    assert!(text.contains("forty-two, said the human"), "{text}");
    let seen = seen.lock().unwrap();
    assert_eq!(seen[0].method, "sampling/createMessage");
    assert!(
        seen[0].params["messages"][0]["content"]["text"]
            .as_str()
            .unwrap()
            .contains("the answer?")
    );
}

#[tokio::test]
async fn server_everything_log_messages_respect_the_level() {
    let (s, mut rx) = everything(ClientPolicy::default()).await;
    // At debug every message comes through: at least one within 7 s.
    s.set_log_level("debug").await.expect("logging/setLevel");
    s.call_tool("toggle-simulated-logging", json!({}))
        .await
        .unwrap();
    let first = tokio::time::Instant::now() + Duration::from_secs(7);
    loop {
        match tokio::time::timeout_at(first, rx.recv()).await {
            Ok(Some((method, _))) if method == "notifications/message" => break,
            Ok(Some(_)) => continue,
            _ => panic!("no log message at level debug"),
        }
    }
    s.set_log_level("error").await.expect("logging/setLevel");
    while rx.try_recv().is_ok() {}
    // Messages come every 5 s at random levels; at "error" only error and
    // above may arrive. Watch for 12 s.
    let deadline = tokio::time::Instant::now() + Duration::from_secs(12);
    let mut levels = Vec::new();
    while let Ok(Some((method, params))) = tokio::time::timeout_at(deadline, rx.recv()).await {
        if method == "notifications/message" {
            levels.push(
                params.unwrap_or_default()["level"]
                    .as_str()
                    .unwrap_or("")
                    .to_string(),
            );
        }
    }
    s.close().await;
    for l in &levels {
        assert!(
            ["error", "critical", "alert", "emergency"].contains(&l.as_str()),
            "a {l} message arrived at level error: {levels:?}"
        );
    }
}

/// A person who takes longer than the request timeout to answer does not
/// make the call time out: their time does not count.
#[tokio::test]
async fn a_slow_person_does_not_time_the_call_out() {
    let ask = Asker(Arc::new(|_req: ServerRequest| {
        let (tx, rx) = tokio::sync::oneshot::channel::<Result<Value, RpcError>>();
        tokio::spawn(async move {
            tokio::time::sleep(Duration::from_millis(2500)).await;
            let _ = tx.send(Ok(
                json!({"action": "accept", "content": {"name": "Slow", "age": 9}}),
            ));
        });
        rx
    }));
    let mut policy = ClientPolicy::automatic(Declared::DEFAULT, repo_root());
    policy.elicitation_defaults = false;
    policy.ask = Some(ask);
    for extra in [&[][..], &["--legacy-only"][..]] {
        let mut sp = spec(extra, policy.clone());
        sp.request_timeout = Duration::from_millis(1000);
        let sink: EventSink = Arc::new(|_| {});
        let s = Session::connect(&sp, Arc::new(FrameLog::new(1000)), sink)
            .await
            .expect("connect");
        let r = s.call_tool("whoami", json!({})).await;
        s.close().await;
        let r = r.unwrap_or_else(|e| panic!("{extra:?}: {e}"));
        let text = r.raw["content"][0]["text"].as_str().unwrap_or("");
        assert!(text.starts_with("hello Slow (9)"), "{extra:?}: {text}");
    }
}

/// A task can be cancelled: tasks/cancel goes to the server and the call
/// ends as cancelled.
#[tokio::test]
async fn a_task_is_cancelled_with_tasks_cancel() {
    let (tx, mut rx_events) = tokio::sync::mpsc::unbounded_channel::<String>();
    let frames = Arc::new(FrameLog::new(1000));
    let sink: EventSink = Arc::new(|_| {});
    let mut stdio = StdioSpec::new(
        "node",
        vec![
            common::everything_js().to_string_lossy().into_owned(),
            "stdio".into(),
        ],
    );
    stdio
        .env
        .push(("GZIP_ALLOWED_DOMAINS".into(), "127.0.0.1".into()));
    let spec = SessionSpec {
        name: Arc::from("se"),
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
    let (cancel_tx, cancel_rx) = tokio::sync::oneshot::channel();
    let call = s.call_task(
        "simulate-research-query",
        json!({"topic": "cancel me"}),
        None,
        cancel_rx,
        move |st| {
            let _ = tx.send(st.status);
        },
    );
    tokio::pin!(call);
    // Cancel once the task is working.
    let result = loop {
        tokio::select! {
            r = &mut call => break r,
            Some(st) = rx_events.recv() => {
                if st == "working" {
                    let _ = cancel_tx.send(());
                    break (&mut call).await;
                }
            }
        }
    };
    s.close().await;
    let e = result.expect_err("cancelled");
    assert!(
        matches!(e, mcpdeck::mcp::RequestError::Cancelled { .. }),
        "{e}"
    );
    assert!(
        frames
            .snapshot()
            .iter()
            .any(|f| f.dir == Direction::Out && f.method.as_deref() == Some("tasks/cancel")),
        "no tasks/cancel was sent"
    );
}
