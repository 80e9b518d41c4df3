//! Bounded queues under a storm: a server (tests/fixtures/storm_server.py)
//! that sends 100,000 notifications and 5,000 stderr lines during a call,
//! through a real Manager whose events are not read for a while; the TUI
//! showing what was dropped; and the findings of a replaced session told
//! from its successor's.

mod common;

use std::sync::Arc;
use std::time::{Duration, Instant};

use mcpdeck::config::{ServerConfig, Settings};
use mcpdeck::mcp::framelog::FrameLog;
use mcpdeck::mcp::manager::queue::DROPPABLE_BOUND;
use mcpdeck::mcp::manager::{Command, DropCounts, Event, EventReceiver, Manager, ServerStatus};
use mcpdeck::tui::app::{Msg, State, update};
use mcpdeck::tui::keymap::Keymap;
use ratatui::Terminal;
use ratatui::backend::TestBackend;
use serde_json::{Value, json};

const STORM: usize = 100_000;

fn storm_server(name: &str, mode: &str, marker: &str) -> ServerConfig {
    let script = common::repo().join("tests/fixtures/storm_server.py");
    let py = common::py_v1().display().to_string();
    ServerConfig::stdio(
        name,
        py,
        &["-X", marker, &script.display().to_string(), mode],
    )
}

fn settings() -> Settings {
    Settings {
        probe_timeout: Duration::from_millis(500),
        shutdown_grace: Duration::from_millis(500),
        request_timeout: common::limit(120),
        connect_timeout: common::limit(30),
        ..Settings::default()
    }
}

/// The next event that `want` accepts; the others are given to `seen`.
async fn until(
    rx: &mut EventReceiver,
    what: &str,
    seen: &mut Vec<Event>,
    want: impl Fn(&Event) -> bool,
) -> Event {
    let deadline = Instant::now() + common::limit(60);
    loop {
        let left = deadline.saturating_duration_since(Instant::now());
        match tokio::time::timeout(left, rx.recv()).await {
            Ok(Some(ev)) if want(&ev) => return ev,
            Ok(Some(ev)) => seen.push(ev),
            Ok(None) => panic!("the manager ended while waiting for {what}; saw {seen:#?}"),
            Err(_) => panic!("no {what} within the limit; saw {:#?}", seen.len()),
        }
    }
}

fn connected(ev: &Event) -> bool {
    matches!(
        ev,
        Event::Status {
            status: ServerStatus::Connected,
            ..
        }
    )
}

/// Every droppable kind at its bound, plus a few critical events and the
/// drop reports: what the queue may hold at most here.
const MOST_QUEUED: usize = 3 * DROPPABLE_BOUND + 32;

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_storm_of_notifications_is_coalesced_dropped_and_counted_with_the_queues_bounded() {
    let mark = common::marker("storm");
    let dir = tempfile::tempdir().expect("tempdir");
    let done = dir.path().join("done");
    let mut server = storm_server("storm", "storm", &mark);
    if let mcpdeck::config::TransportConfig::Stdio { env, .. } = &mut server.transport {
        env.push(("STORM_DONE".into(), done.display().to_string()));
    }
    let (m, mut rx) = Manager::start(settings(), vec![server], Arc::new(FrameLog::new(10_000)));
    let mut seen = Vec::new();
    until(&mut rx, "the server connected", &mut seen, connected).await;
    m.send(Command::Call {
        tag: 1,
        server: "storm".into(),
        tool: "storm".into(),
        arguments: json!({}),
    });
    // The UI does not read its events for a while: the storm comes and
    // goes meanwhile. Wait until the server has sent it all, and the queue
    // stops changing (the call's answer is in it, behind the storm).
    let deadline = Instant::now() + common::limit(120);
    let mut last = (usize::MAX, 0);
    let mut still = 0;
    while still < 10 {
        assert!(
            Instant::now() < deadline,
            "the storm did not settle: {:?} {:?}",
            rx.stats(),
            m.inbound_stats()
        );
        tokio::time::sleep(Duration::from_millis(100)).await;
        let stats = rx.stats();
        assert!(stats.queued <= MOST_QUEUED, "{stats:?}");
        let now = (stats.queued, stats.dropped + stats.coalesced);
        still = if done.exists() && now == last {
            still + 1
        } else {
            0
        };
        last = now;
    }
    // Nothing unbounded was ever queued, here or between the sessions and
    // the manager.
    let (out, inbound) = (rx.stats(), m.inbound_stats());
    assert!(out.peak <= MOST_QUEUED, "{out:?}");
    assert!(inbound.peak <= MOST_QUEUED, "{inbound:?}");
    assert!(out.dropped > 0 && out.coalesced > 0, "{out:?}");

    // Now the UI reads: the call's answer is there, complete.
    let finished = until(&mut rx, "the call's answer", &mut seen, |ev| {
        matches!(ev, Event::CallFinished { .. })
    })
    .await;
    let Event::CallFinished { tag, result, .. } = finished else {
        unreachable!()
    };
    assert_eq!(tag, 1);
    let result = result.expect("the call succeeded");
    assert_eq!(result.raw["content"][0]["text"], "storm done");
    while let Ok(ev) = rx.try_recv() {
        seen.push(ev);
    }
    m.shutdown().await;
    while let Ok(ev) = rx.try_recv() {
        seen.push(ev);
    }

    let mut dropped = DropCounts::default();
    let (mut logs, mut progress) = (0, Vec::new());
    for ev in &seen {
        match ev {
            Event::Dropped {
                server,
                notifications,
                stderr,
                findings,
            } => {
                assert_eq!(server, "storm");
                dropped.add(DropCounts {
                    notifications: *notifications,
                    stderr: *stderr,
                    findings: *findings,
                });
            }
            Event::Notification { method, .. } if method == "notifications/message" => logs += 1,
            Event::Notification { method, params, .. } if method == "notifications/progress" => {
                progress.push(
                    params
                        .as_ref()
                        .and_then(|p| p.get("progress"))
                        .and_then(Value::as_u64)
                        .unwrap_or(0),
                );
            }
            _ => {}
        }
    }
    eprintln!(
        "storm: {logs} logs and {} progress shown, dropped {dropped:?}, UI queue {out:?}, inbound {inbound:?}",
        progress.len()
    );
    // The drops were reported, exactly as counted.
    assert!(dropped.notifications > 0, "{dropped:?}");
    assert_eq!(
        dropped.total(),
        out.dropped + inbound.dropped,
        "{dropped:?} {out:?} {inbound:?}"
    );
    // Every notification was shown, replaced by a newer one of its token,
    // or dropped and counted.
    assert_eq!(
        logs + progress.len() + out.coalesced + inbound.coalesced + dropped.notifications,
        STORM,
        "logs {logs}, progress {}, {out:?} {inbound:?} {dropped:?}",
        progress.len()
    );
    // Progress was coalesced to the latest: few shown, the last one last.
    assert!(progress.len() < 100, "{} progress events", progress.len());
    assert_eq!(progress.last(), Some(&(STORM as u64 / 2)), "{progress:?}");
    assert!(progress.windows(2).all(|w| w[0] < w[1]), "{progress:?}");
    common::assert_no_leak(&mark);
}

fn screen(s: &State, w: u16, h: u16) -> String {
    let mut t = Terminal::new(TestBackend::new(w, h)).expect("terminal");
    t.draw(|f| mcpdeck::tui::ui::render(s, f)).expect("draw");
    let buf = t.backend().buffer().clone();
    let mut out = String::new();
    for y in 0..buf.area.height {
        for x in 0..buf.area.width {
            out.push_str(buf[(x, y)].symbol());
        }
        out.push('\n');
    }
    out
}

#[test]
fn the_tui_shows_what_a_storm_dropped() {
    let configs = vec![ServerConfig::stdio("demo", "x", &[])];
    let mut s = State::new(&configs, Keymap::default(), None);
    let mut fx = Vec::new();
    let mut send = |s: &mut State, ev: Event| update(s, Msg::Manager(ev), &mut fx);
    send(
        &mut s,
        Event::Status {
            server: "demo".into(),
            status: ServerStatus::Connected,
            negotiated: None,
        },
    );
    let before = screen(&s, 120, 40);
    assert!(!before.contains("dropped"), "{before}");
    for (n, e) in [(1_000, 0), (234, 7)] {
        send(
            &mut s,
            Event::Dropped {
                server: "demo".into(),
                notifications: n,
                stderr: e,
                findings: 0,
            },
        );
    }
    assert_eq!(
        s.servers[0].dropped,
        DropCounts {
            notifications: 1_234,
            stderr: 7,
            findings: 0
        }
    );
    let out = screen(&s, 120, 40);
    assert!(
        out.contains("1,234 notifications, 7 stderr lines dropped (storm)"),
        "{out}"
    );
}

#[test]
fn the_tui_keeps_a_previous_sessions_findings_apart() {
    let configs = vec![ServerConfig::stdio("demo", "x", &[])];
    let mut s = State::new(&configs, Keymap::default(), None);
    let mut fx = Vec::new();
    let finding = |session: u64, previous: bool, text: &str| Event::Finding {
        server: "demo".into(),
        session,
        previous,
        finding: mcpdeck::mcp::Finding::new(mcpdeck::mcp::finding::Severity::Warning, text),
    };
    for ev in [
        Event::Status {
            server: "demo".into(),
            status: ServerStatus::Connected,
            negotiated: None,
        },
        finding(4, false, "first session's"),
        finding(9, false, "second session's"),
        finding(4, true, "late from the first"),
    ] {
        update(&mut s, Msg::Manager(ev), &mut fx);
    }
    let v = &s.servers[0];
    assert_eq!((v.findings, v.previous_findings), (1, 2));
    let out = screen(&s, 140, 40);
    assert!(
        out.contains("late from the first (previous session)"),
        "{out}"
    );
    assert!(
        !out.contains("second session's (previous session)"),
        "{out}"
    );
    assert!(out.contains("1 findings"), "{out}");
    assert!(out.contains("2 findings of a previous session"), "{out}");
}

/// The session a finding came from, if it is a "not JSON" finding whose
/// text contains `needle`.
fn garbled(ev: &Event, needle: &str) -> Option<(u64, bool)> {
    match ev {
        Event::Finding {
            session,
            previous,
            finding,
            ..
        } if finding.raw.as_deref().is_some_and(|r| r.contains(needle))
            || finding.message.contains(needle) =>
        {
            Some((*session, *previous))
        }
        _ => None,
    }
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_replaced_sessions_late_finding_is_reported_under_its_own_session() {
    let mark = common::marker("garble");
    let server = storm_server("garble", "garble", &mark);
    let (m, mut rx) = Manager::start(settings(), vec![server], Arc::new(FrameLog::new(10_000)));
    let mut seen = Vec::new();
    // The first session's finding, after initialized.
    let first = until(&mut rx, "the first session's finding", &mut seen, |ev| {
        garbled(ev, "after initialized").is_some()
    })
    .await;
    let (old, previous) = garbled(&first, "after initialized").expect("a finding");
    assert!(!previous, "{first:?}");
    until(&mut rx, "the server connected", &mut seen, connected).await;
    // Reconnect: the old session is closed as the new one starts; the old
    // server's bad frame on its way out is the old session's.
    m.send(Command::Reconnect("garble".into()));
    let mut closing = None;
    let mut fresh = None;
    let deadline = Instant::now() + common::limit(60);
    while closing.is_none() || fresh.is_none() {
        let left = deadline.saturating_duration_since(Instant::now());
        let ev = match tokio::time::timeout(left, rx.recv()).await {
            Ok(Some(ev)) => ev,
            other => panic!("no findings of both sessions ({other:?}); saw {seen:#?}"),
        };
        if let Some(f) = garbled(&ev, "closing") {
            closing = Some(f);
        } else if let Some((session, _)) = garbled(&ev, "after initialized")
            && session != old
        {
            fresh = garbled(&ev, "after initialized");
        }
        seen.push(ev);
    }
    m.shutdown().await;
    let (closing, fresh) = (closing.expect("closing"), fresh.expect("fresh"));
    assert_eq!(closing, (old, true), "the old session's late finding");
    assert!(fresh.0 > old, "{fresh:?} after {old}");
    assert!(!fresh.1, "the new session's finding is not a previous one");
    common::assert_no_leak(&mark);
}
