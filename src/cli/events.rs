//! What the servers say while a command waits for them, on stderr (never
//! on stdout): progress, log messages and task statuses, findings about
//! their frames, and what was dropped. Below [`super::link`], which reports
//! as it connects and asks, and [`super::oneshot`], which reports what the
//! servers say while they stop.

use std::io::Write;

use serde_json::Value;

use crate::mcp::Finding;
use crate::mcp::manager::{Event, EventReceiver};
use crate::sanitize;

/// Report what is left in the event stream.
pub fn drain(rx: &mut EventReceiver) {
    while let Ok(ev) = rx.try_recv() {
        report(&ev);
    }
}

/// Print what deserves the user's attention while we wait: progress, log
/// messages and task statuses, and findings about the server's frames.
pub fn report(ev: &Event) {
    match ev {
        Event::TaskStatus { server, status, .. } => {
            let message = status
                .message
                .as_deref()
                .map(|m| format!(" · {}", sanitize::one_line(m)))
                .unwrap_or_default();
            eprintln!(
                "mcpdeck: [{}] task {} {}{message}",
                sanitize::one_line(server),
                sanitize::one_line(&status.task_id),
                sanitize::one_line(&status.status)
            );
        }
        Event::Notification {
            server,
            method,
            params: Some(p),
        } => {
            let mut err = std::io::stderr().lock();
            match method.as_str() {
                "notifications/progress" => {
                    let _ = writeln!(
                        err,
                        "mcpdeck: [{}] progress {}",
                        sanitize::one_line(server),
                        crate::mcp::types::progress_text(
                            p.get("progress").and_then(Value::as_f64).unwrap_or(0.0),
                            p.get("total").and_then(Value::as_f64),
                            p.get("message").and_then(Value::as_str),
                        )
                    );
                }
                "notifications/message" => {
                    let _ = writeln!(
                        err,
                        "mcpdeck: [{}] {}",
                        sanitize::one_line(server),
                        crate::mcp::types::log_line(p)
                    );
                }
                _ => {}
            }
        }
        Event::Finding {
            server,
            previous,
            finding,
            ..
        } => {
            if *previous {
                print_finding(&format!("{server} (previous session)"), finding)
            } else {
                print_finding(server, finding)
            }
        }
        Event::Dropped {
            server,
            notifications,
            stderr,
            findings,
        } => eprintln!(
            "mcpdeck: [{}] {}",
            sanitize::one_line(server),
            crate::mcp::manager::DropCounts {
                notifications: *notifications,
                stderr: *stderr,
                findings: *findings,
            }
            .text()
        ),
        _ => {}
    }
}

/// A finding on stderr, with (the start of) its frame.
pub fn print_finding(server: &str, finding: &Finding) {
    let mut err = std::io::stderr().lock();
    let _ = writeln!(
        err,
        "mcpdeck: [{}] {}: {}",
        sanitize::one_line(server),
        finding.severity.label(),
        sanitize::one_line(&finding.message)
    );
    if let Some(raw) = &finding.raw {
        let cut = crate::mcp::finding::truncate(raw, 200);
        let more = if finding.raw_len > cut.len() {
            format!(" …({} bytes)", finding.raw_len)
        } else {
            String::new()
        };
        let _ = writeln!(err, "    frame: {}{more}", sanitize::one_line(cut));
    }
}
