//! The manager and sessions, in process, against the built-in demo server
//! (both eras) and against servers that misbehave on purpose.

mod common;

use std::sync::Arc;
use std::time::{Duration, Instant};

use mcpdeck::config::{ServerConfig, Settings};
use mcpdeck::mcp::framelog::{Direction, FrameLog};
use mcpdeck::mcp::manager::EventReceiver;
use mcpdeck::mcp::manager::{
    CallError, Command, Event, Manager, ServerStatus, aggregate_tools, split_qualified,
};
use mcpdeck::mcp::session::RequestError;
use mcpdeck::mcp::{Content, Era};
use serde_json::json;

fn demo(name: &str, extra: &[&str]) -> ServerConfig {
    let exe = common::mcpdeck_bin();
    let mut args = vec!["demo-server", "--name", name];
    args.extend_from_slice(extra);
    ServerConfig::stdio(name, exe.display().to_string(), &args)
}

fn shell(name: &str, script: &str) -> ServerConfig {
    ServerConfig::stdio(name, "sh", &["-c", script])
}

fn settings() -> Settings {
    Settings {
        probe_timeout: Duration::from_millis(500),
        shutdown_grace: Duration::from_millis(500),
        ..Settings::default()
    }
}

fn start(settings: Settings, servers: Vec<ServerConfig>) -> (Manager, EventReceiver) {
    Manager::start(settings, servers, Arc::new(FrameLog::new(10_000)))
}

async fn next_matching<T>(
    rx: &mut EventReceiver,
    max: Duration,
    mut f: impl FnMut(&Event) -> Option<T>,
) -> T {
    let deadline = Instant::now() + max;
    loop {
        let left = deadline.saturating_duration_since(Instant::now());
        match tokio::time::timeout(left, rx.recv()).await {
            Ok(Some(ev)) => {
                if let Some(t) = f(&ev) {
                    return t;
                }
            }
            Ok(None) => panic!("manager stopped"),
            Err(_) => panic!("no matching event within {max:?}"),
        }
    }
}

async fn settled(rx: &mut EventReceiver, name: &str) -> ServerStatus {
    next_matching(rx, common::limit(30), |ev| match ev {
        Event::Status { server, status, .. } if server == name && status.settled() => {
            Some(status.clone())
        }
        _ => None,
    })
    .await
}

/// Wait until every named server is settled; their statuses, in order.
async fn settled_all(rx: &mut EventReceiver, names: &[&str]) -> Vec<ServerStatus> {
    let mut got: Vec<Option<ServerStatus>> = vec![None; names.len()];
    next_matching(rx, common::limit(30), |ev| {
        if let Event::Status { server, status, .. } = ev
            && status.settled()
            && let Some(i) = names.iter().position(|n| n == server)
        {
            got[i] = Some(status.clone());
        }
        got.iter().all(Option::is_some).then_some(())
    })
    .await;
    got.into_iter().flatten().collect()
}

async fn call(
    m: &Manager,
    rx: &mut EventReceiver,
    tag: u64,
    server: &str,
    tool: &str,
    args: serde_json::Value,
) -> Result<mcpdeck::mcp::CallResult, CallError> {
    m.send(Command::Call {
        tag,
        server: server.into(),
        tool: tool.into(),
        arguments: args,
    });
    next_matching(rx, common::limit(30), |ev| match ev {
        Event::CallFinished { tag: t, result, .. } if *t == tag => Some(result.clone()),
        _ => None,
    })
    .await
}

#[tokio::test]
async fn both_eras_are_detected_and_every_content_type_arrives() {
    let (m, mut rx) = start(
        settings(),
        vec![
            demo("dual", &[]),
            demo("old", &["--era", "initialize"]),
            demo("new", &["--era", "stateless"]),
        ],
    );
    assert_eq!(
        settled_all(&mut rx, &["dual", "old", "new"]).await,
        vec![ServerStatus::Connected; 3]
    );
    let snap = m.snapshot().await;
    let era = |n: &str| {
        snap.iter()
            .find(|s| s.config.name == n)
            .unwrap()
            .negotiated
            .clone()
            .unwrap()
    };
    assert_eq!(era("dual").era, Era::Stateless);
    assert_eq!(era("dual").version, "2026-07-28");
    assert_eq!(era("new").era, Era::Stateless);
    assert_eq!(era("old").era, Era::Initialize);
    assert_eq!(era("old").version, "2025-11-25");
    assert!(
        era("old").detection.contains("-32601"),
        "{}",
        era("old").detection
    );
    assert_eq!(era("dual").server_info.name, "dual");

    let r = call(&m, &mut rx, 1, "old", "everything_mixed", json!({}))
        .await
        .unwrap();
    let kinds: Vec<&str> = r
        .content
        .iter()
        .map(|c| match c {
            Content::Text { .. } => "text",
            Content::Image { .. } => "image",
            Content::Audio { .. } => "audio",
            Content::ResourceLink { .. } => "resource_link",
            Content::Resource { .. } => "resource",
            Content::Unknown { .. } => "unknown",
        })
        .collect();
    assert_eq!(
        kinds,
        ["text", "image", "audio", "resource_link", "resource"]
    );
    let r = call(&m, &mut rx, 2, "new", "add", json!({"a": 2, "b": 40}))
        .await
        .unwrap();
    assert_eq!(r.structured().unwrap()["sum"].as_f64(), Some(42.0));
    let r = call(&m, &mut rx, 3, "dual", "fail", json!({"reason": "because"}))
        .await
        .unwrap();
    assert!(r.is_error);

    // Every request of the stateless era carried the envelope; the initialize era none.
    for f in m.frames().snapshot() {
        if f.dir != Direction::Out || f.method.as_deref() == Some("notifications/initialized") {
            continue;
        }
        let v: serde_json::Value = serde_json::from_str(&f.text).unwrap();
        let has = v["params"]["_meta"]
            .get("io.modelcontextprotocol/protocolVersion")
            .is_some();
        match &*f.server {
            "new" | "dual" => assert!(has, "{}", f.text),
            "old" if f.method.as_deref() != Some("server/discover") => assert!(!has, "{}", f.text),
            _ => {}
        }
    }
    m.shutdown().await;
}

#[tokio::test]
async fn ten_slow_servers_connect_concurrently() {
    let exe = common::mcpdeck_bin().display().to_string();
    let servers: Vec<ServerConfig> = (0..10)
        .map(|i| {
            shell(
                &format!("slow{i}"),
                &format!("sleep 1; exec '{exe}' demo-server"),
            )
        })
        .collect();
    let started = Instant::now();
    let (m, mut rx) = start(settings(), servers);
    let names: Vec<String> = (0..10).map(|i| format!("slow{i}")).collect();
    let names: Vec<&str> = names.iter().map(String::as_str).collect();
    assert_eq!(
        settled_all(&mut rx, &names).await,
        vec![ServerStatus::Connected; 10]
    );
    let wall = started.elapsed();
    let snap = m.snapshot().await;
    let sum: Duration = snap
        .iter()
        .map(|s| s.negotiated.as_ref().unwrap().connect_time)
        .sum();
    // Each took over a second; one after another would take their sum.
    assert!(
        snap.iter()
            .all(|s| s.negotiated.as_ref().unwrap().connect_time >= Duration::from_secs(1))
    );
    assert!(
        wall < sum / 3,
        "wall {wall:?} vs sum of connect times {sum:?}: not concurrent"
    );
    m.shutdown().await;
}

#[tokio::test]
async fn progress_resets_the_timeout_and_cancel_tells_the_server() {
    let s = Settings {
        request_timeout: Duration::from_millis(1000),
        ..settings()
    };
    let (m, mut rx) = start(s, vec![demo("d", &[])]);
    assert_eq!(settled(&mut rx, "d").await, ServerStatus::Connected);
    // 6 steps of 400 ms = 2.4 s > 1 s timeout, but each step reports progress.
    let r = call(
        &m,
        &mut rx,
        1,
        "d",
        "slow_task",
        json!({"steps": 6, "delay_ms": 400}),
    )
    .await
    .unwrap();
    assert!(!r.is_error);

    // Without progress the same timeout fires: a step longer than the timeout.
    let e = call(
        &m,
        &mut rx,
        2,
        "d",
        "slow_task",
        json!({"steps": 1, "delay_ms": 3000}),
    )
    .await
    .unwrap_err();
    assert!(
        matches!(e, CallError::Request(RequestError::Timeout { .. })),
        "{e:?}"
    );

    // Cancel a long call: it ends at once, and the server is told.
    m.send(Command::Call {
        tag: 3,
        server: "d".into(),
        tool: "slow_task".into(),
        arguments: json!({"steps": 100, "delay_ms": 500}),
    });
    let id = next_matching(&mut rx, common::limit(10), |ev| match ev {
        Event::CallStarted {
            tag: 3, request_id, ..
        } => Some(*request_id),
        _ => None,
    })
    .await;
    let t = Instant::now();
    m.send(Command::Cancel { tag: 3 });
    let res = next_matching(&mut rx, common::limit(10), |ev| match ev {
        Event::CallFinished { tag: 3, result, .. } => Some(result.clone()),
        _ => None,
    })
    .await;
    assert!(
        matches!(res, Err(CallError::Request(RequestError::Cancelled { .. }))),
        "{res:?}"
    );
    assert!(t.elapsed() < Duration::from_secs(5));
    let cancelled = m.frames().snapshot().into_iter().any(|f| {
        f.dir == Direction::Out
            && f.method.as_deref() == Some("notifications/cancelled")
            && serde_json::from_str::<serde_json::Value>(&f.text).unwrap()["params"]["requestId"]
                == json!(id)
    });
    assert!(
        cancelled,
        "notifications/cancelled for request {id} was not sent"
    );
    // The timed-out request was cancelled on the wire too.
    let timed_out = m
        .frames()
        .snapshot()
        .into_iter()
        .filter(|f| f.method.as_deref() == Some("notifications/cancelled"))
        .count();
    assert_eq!(timed_out, 2);
    m.shutdown().await;
}

#[tokio::test]
async fn a_crash_mid_call_fails_the_call_at_once_with_status_and_stderr() {
    let exe = common::mcpdeck_bin().display().to_string();
    // A real server whose process dies 1.5 s in, in the middle of a long call.
    let script = format!(
        "echo 'fatal: out of cheese' >&2; ( sleep 1.5; kill -9 $$ ) & exec '{exe}' demo-server"
    );
    let (m, mut rx) = start(settings(), vec![shell("crashy", &script)]);
    assert_eq!(settled(&mut rx, "crashy").await, ServerStatus::Connected);
    let t = Instant::now();
    let e = call(
        &m,
        &mut rx,
        1,
        "crashy",
        "slow_task",
        json!({"steps": 1, "delay_ms": 30000}),
    )
    .await
    .unwrap_err();
    assert!(
        t.elapsed() < Duration::from_secs(10),
        "the call waited for its timeout"
    );
    match e {
        CallError::Request(RequestError::Closed {
            description,
            stderr_tail,
        }) => {
            assert!(description.contains("signal 9"), "{description}");
            assert!(
                stderr_tail.iter().any(|l| l.contains("out of cheese")),
                "{stderr_tail:?}"
            );
        }
        other => panic!("{other:?}"),
    }
    // The server's failure was reported before the call's result.
    let status = m.snapshot().await[0].status.clone();
    assert!(
        matches!(status, ServerStatus::Failed(ref reason) if reason.to_string().contains("signal 9")),
        "{status:?}"
    );
    m.shutdown().await;
}

#[tokio::test]
async fn deny_lists_qualified_names_and_refusal() {
    let mut d = demo("d", &[]);
    d.deny_tools = vec!["fail".into()];
    let (m, mut rx) = start(settings(), vec![d, demo("e", &["--era", "initialize"])]);
    settled_all(&mut rx, &["d", "e"]).await;
    let agg = aggregate_tools(&m.snapshot().await);
    let names: Vec<&str> = agg.iter().map(|t| t.qualified.as_str()).collect();
    assert!(names.contains(&"d__echo") && names.contains(&"e__fail"));
    assert!(!names.contains(&"d__fail"), "a denied tool is listed");
    assert_eq!(split_qualified("d__my__tool"), Some(("d", "my__tool")));
    let e = call(&m, &mut rx, 1, "d", "fail", json!({}))
        .await
        .unwrap_err();
    assert!(matches!(e, CallError::Denied { .. }));
    assert!(e.to_string().contains("deny_tools"));
    // Lifting the deny list lets the call through.
    m.send(Command::SetDenyList("d".into(), vec![]));
    let r = call(&m, &mut rx, 2, "d", "fail", json!({})).await.unwrap();
    assert!(r.is_error);
    m.shutdown().await;
}

#[tokio::test]
async fn set_servers_keeps_unchanged_drops_removed_adds_new() {
    let (m, mut rx) = start(settings(), vec![demo("keep", &[]), demo("drop", &[])]);
    settled_all(&mut rx, &["keep", "drop"]).await;
    let before = m.snapshot().await;
    let keep_time = before[0].negotiated.as_ref().unwrap().connect_time;
    m.send(Command::SetServers(vec![
        demo("keep", &[]),
        demo("add", &[]),
    ]));
    let mut keep_reconnected = false;
    next_matching(&mut rx, common::limit(30), |ev| {
        if let Event::Status { server, .. } = ev
            && server == "keep"
        {
            keep_reconnected = true;
        }
        match ev {
            Event::Status {
                server,
                status: ServerStatus::Connected,
                ..
            } if server == "add" => Some(()),
            _ => None,
        }
    })
    .await;
    assert!(!keep_reconnected, "an unchanged server was reconnected");
    let after = m.snapshot().await;
    let names: Vec<&str> = after.iter().map(|s| s.config.name.as_str()).collect();
    assert_eq!(names, ["keep", "add"]);
    assert_eq!(
        after[0].negotiated.as_ref().unwrap().connect_time,
        keep_time
    );

    // Disable and enable.
    m.send(Command::SetEnabled("add".into(), false));
    assert_eq!(settled(&mut rx, "add").await, ServerStatus::Disabled);
    let e = call(&m, &mut rx, 1, "add", "echo", json!({"message": "x"}))
        .await
        .unwrap_err();
    assert!(matches!(e, CallError::NotConnected { .. }));
    m.send(Command::SetEnabled("add".into(), true));
    assert_eq!(settled(&mut rx, "add").await, ServerStatus::Connected);
    m.send(Command::Reconnect("keep".into()));
    assert_eq!(settled(&mut rx, "keep").await, ServerStatus::Connected);
    m.shutdown().await;
}

#[tokio::test]
async fn pagination_follows_every_page() {
    let (m, mut rx) = start(
        settings(),
        vec![demo("p", &["--page-size", "3", "--tools", "20"])],
    );
    assert_eq!(settled(&mut rx, "p").await, ServerStatus::Connected);
    let snap = m.snapshot().await;
    let tools = &snap[0].lists.tools;
    let mut names: Vec<&str> = tools.iter().map(|t| t.name.as_str()).collect();
    let n = names.len();
    names.sort();
    names.dedup();
    assert_eq!(names.len(), n, "a tool was listed twice");
    assert!(n >= 31, "{n} tools");
    let pages = m
        .frames()
        .snapshot()
        .iter()
        .filter(|f| f.dir == Direction::Out && f.method.as_deref() == Some("tools/list"))
        .count();
    assert_eq!(pages, n.div_ceil(3));
    m.shutdown().await;
}

#[tokio::test]
async fn a_command_that_does_not_exist_fails_clearly() {
    let (m, mut rx) = start(
        settings(),
        vec![ServerConfig::stdio("nope", "/definitely/not/here", &[])],
    );
    match settled(&mut rx, "nope").await {
        ServerStatus::Failed(reason) => {
            let reason = reason.to_string();
            assert!(
                reason.contains("/definitely/not/here") && reason.contains("PATH"),
                "{reason}"
            )
        }
        other => panic!("{other:?}"),
    }
    let http = ServerConfig::http("web", "http://127.0.0.1:9/mcp");
    m.send(Command::SetServers(vec![http]));
    assert!(matches!(
        settled(&mut rx, "web").await,
        ServerStatus::Failed(_)
    ));
    m.shutdown().await;
}

#[tokio::test]
async fn a_server_that_ignores_eof_and_sigterm_is_killed_and_reaped() {
    let exe = common::mcpdeck_bin().display().to_string();
    let mark = common::marker("stubborn");
    // demo-server exits on EOF, but its shell parent ignores SIGTERM and
    // keeps a sleeping child: only SIGKILL to the group ends it.
    let script = format!("trap '' TERM; '{exe}' demo-server; while :; do sleep 0.2; done # {mark}");
    let s = Settings {
        shutdown_grace: Duration::from_millis(300),
        ..settings()
    };
    let (m, mut rx) = start(s, vec![shell("stubborn", &script)]);
    assert_eq!(settled(&mut rx, "stubborn").await, ServerStatus::Connected);
    assert!(!common::processes_with(&mark).is_empty());
    let t = Instant::now();
    m.shutdown().await;
    assert!(t.elapsed() < Duration::from_secs(10));
    common::assert_no_leak(&mark);
}

#[tokio::test]
async fn capabilities_gate_what_is_listed() {
    let (m, mut rx) = start(
        settings(),
        vec![demo("bare", &["--no-resources", "--no-prompts"])],
    );
    assert_eq!(settled(&mut rx, "bare").await, ServerStatus::Connected);
    let methods: Vec<String> = m
        .frames()
        .snapshot()
        .iter()
        .filter(|f| f.dir == Direction::Out)
        .filter_map(|f| f.method.as_deref().map(str::to_string))
        .collect();
    assert!(methods.contains(&"tools/list".to_string()));
    assert!(
        !methods
            .iter()
            .any(|x| x.starts_with("resources/") || x.starts_with("prompts/")),
        "{methods:?}"
    );
    m.shutdown().await;
}

#[tokio::test]
async fn a_list_change_announced_while_connecting_is_fetched_again() {
    // server-everything sends tools/list_changed right after initialized,
    // while mcpdeck is still listing.
    let js = common::everything_js().display().to_string();
    let (m, mut rx) = start(
        settings(),
        vec![ServerConfig::stdio("ev", "node", &[js.as_str(), "stdio"])],
    );
    assert_eq!(settled(&mut rx, "ev").await, ServerStatus::Connected);
    // The lists at connect, then the lists fetched again.
    for _ in 0..2 {
        next_matching(&mut rx, common::limit(30), |ev| {
            matches!(ev, Event::Lists { .. }).then_some(())
        })
        .await;
    }
    let n = m
        .frames()
        .snapshot()
        .iter()
        .filter(|f| f.dir == Direction::Out && f.method.as_deref() == Some("tools/list"))
        .count();
    assert_eq!(n, 2, "tools/list was sent {n} times");
    m.shutdown().await;
}

fn silent(name: &str, mark: &str) -> ServerConfig {
    let py = common::py_v1().display().to_string();
    ServerConfig::stdio(
        name,
        py,
        &["-X", mark, "-c", "import time; time.sleep(300)"],
    )
}

#[tokio::test]
async fn disconnect_and_shutdown_while_connecting_leave_no_process() {
    let (a, b) = (
        common::marker("connecting-a"),
        common::marker("connecting-b"),
    );
    let (m, mut rx) = start(settings(), vec![silent("a", &a), silent("b", &b)]);
    let deadline = Instant::now() + common::limit(20);
    while common::processes_with(&a).is_empty() || common::processes_with(&b).is_empty() {
        assert!(Instant::now() < deadline, "the servers never started");
        tokio::time::sleep(Duration::from_millis(50)).await;
    }
    m.send(Command::Disconnect("a".into()));
    assert_eq!(settled(&mut rx, "a").await, ServerStatus::Disconnected);
    // Shutdown returns only once every server process is reaped.
    m.shutdown().await;
    assert!(
        common::processes_with(&b).is_empty(),
        "{:?}",
        common::processes_with(&b)
    );
    common::assert_no_leak(&a);
}
