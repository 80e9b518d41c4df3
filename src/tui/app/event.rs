//! Manager events: statuses and lists, calls finishing, progress, server
//! requests, notifications, findings and stderr.

use std::sync::Arc;

use serde_json::Value;

use crate::mcp::manager::{Event, ServerStatus};
use crate::mcp::session::Lists;
use crate::mcp::types::Tool;

use super::model::*;
use super::*;

pub(super) fn on_event(s: &mut State, ev: Event, fx: &mut Vec<Effect>) -> bool {
    let find = |s: &mut State, name: &str| s.servers.iter().position(|v| v.name == name);
    match ev {
        Event::Servers(_) => false,
        Event::Status {
            server,
            status,
            negotiated,
        } => {
            if let Some(i) = find(s, &server) {
                let v = &mut s.servers[i];
                v.status = status;
                if let Some(n) = negotiated {
                    v.negotiated = Some(*n);
                }
                // Only a connected server's tools can be called.
                let gone = v.status != ServerStatus::Connected;
                if gone && !v.lists.tools.is_empty() {
                    v.lists = Arc::new(Lists::default());
                    s.refilter();
                }
                // Its requests and subscriptions died with its session.
                if gone {
                    if let Some(note) = s.asks.drop_server(&server, fx).status {
                        s.status = Some(note);
                    }
                    if let Some(i) = find(s, &server) {
                        crate::tui::browse::server_gone(&mut s.servers[i]);
                    }
                }
            }
            true
        }
        Event::Lists { server, lists } => {
            let previous = s.selected_names();
            if let Some(i) = find(s, &server) {
                let old = std::mem::replace(&mut s.servers[i].lists, lists);
                // A changed list (list_changed, refresh) is shown as a diff.
                if s.servers[i].status == ServerStatus::Connected && !old.tools.is_empty() {
                    let diff = tool_diff(&old.tools, &s.servers[i].lists.tools);
                    if !diff.is_empty() {
                        let line = format!("tools changed: {diff}");
                        s.status = Some(format!("{}: {line}", server));
                        push_bounded(&mut s.servers[i].notices, line);
                    }
                }
                s.refilter_to(previous);
            }
            true
        }
        Event::DenyList { server, tools } => {
            if let Some(i) = find(s, &server) {
                s.servers[i].deny = tools;
            }
            true
        }
        Event::CallStarted {
            tag, request_id, ..
        } => {
            if let Some(c) = s.inflight.as_mut().filter(|c| c.tag == tag) {
                c.request_id = Some(request_id);
            }
            false
        }
        Event::ServerRequest {
            id,
            server,
            method,
            params,
        } => {
            // The first is shown at once (its screen says who asks, and
            // older messages would hide the keys); a later one waits.
            s.status = s.asks.push(AskView {
                id,
                server,
                method,
                params,
            });
            true
        }
        Event::TaskStatus {
            tag,
            status,
            server: _,
        } => {
            let Some(c) = s.inflight.as_mut().filter(|c| c.tag == tag) else {
                return false;
            };
            let mut text = format!("task {}: {}", status.task_id, status.status);
            if let Some(m) = &status.message {
                text.push_str(&format!(" · {m}"));
            }
            c.task = Some(crate::sanitize::one_line(&text));
            true
        }
        Event::Subscription {
            server,
            uri,
            subscribed,
            result,
        } => {
            if let Some(i) = find(s, &server) {
                let v = &mut s.servers[i];
                crate::tui::browse::on_subscription(v, &uri, subscribed, result.is_ok());
            }
            let what = if subscribed {
                "subscribed to"
            } else {
                "unsubscribed from"
            };
            s.status = Some(match result {
                Ok(()) => format!("{server}: {what} {}", crate::sanitize::one_line(&uri)),
                Err(e) => format!(
                    "{server}: not {what} {}: {e}",
                    crate::sanitize::one_line(&uri)
                ),
            });
            true
        }
        // Answers to requests of the resources and prompts views.
        Event::Response { tag, result, .. } => {
            use crate::tui::browse::Kind;
            let Some(kind) = [Kind::Resources, Kind::Prompts]
                .into_iter()
                .find(|k| s.browse(*k).awaits(tag))
            else {
                return false;
            };
            s.with_browse(kind, fx, |b, cx| b.on_response(tag, result, cx))
        }
        Event::Ping {
            server,
            result,
            requested,
        } => {
            match result {
                Ok(d) => {
                    if let Some(i) = find(s, &server) {
                        s.servers[i].ping = Some(d);
                    }
                    if requested {
                        s.status = Some(format!("{server}: ping {}", crate::text::fmt_duration(d)));
                    }
                }
                // The automatic ping of a server that does not answer pings
                // is no news; the one asked for is.
                Err(e) if requested => s.status = Some(format!("{server}: ping failed: {e}")),
                Err(_) => {}
            }
            true
        }
        Event::LogLevel {
            server,
            level,
            result,
        } => {
            match result {
                Ok(()) => {
                    if let Some(i) = find(s, &server) {
                        s.servers[i].log_level = Some(level.clone());
                    }
                    s.status = Some(format!("{server}: log level {level}"));
                }
                Err(e) => s.status = Some(format!("{server}: log level not set: {e}")),
            }
            true
        }
        Event::CallFinished {
            tag,
            server,
            tool,
            result,
            elapsed,
        } => {
            if s.inflight.as_ref().map(|c| c.tag) != Some(tag) {
                return false;
            }
            s.inflight = None;
            let output_schema = s
                .servers
                .iter()
                .find(|v| v.name == server)
                .and_then(|v| v.lists.tools.iter().find(|t| t.name == tool))
                .and_then(|t| t.output_schema.clone());
            if let Some(i) = find(s, &server) {
                s.servers[i].last_latency = Some(elapsed);
            }
            let lines = crate::tui::result::lines(&result, output_schema.as_ref());
            s.outcome = Some(Outcome {
                server,
                tool,
                result,
                elapsed,
                output_schema,
                lines,
            });
            s.result_scroll = 0;
            if s.mode == Mode::ConfirmQuit {
                s.mode = Mode::Normal;
            }
            s.focus = Pane::Result;
            true
        }
        Event::Finding { server, finding } => {
            if let Some(i) = find(s, &server) {
                s.servers[i].findings += 1;
                let line = format!("{}: {}", finding.severity.label(), finding.message);
                push_bounded(&mut s.servers[i].notices, line);
            }
            true
        }
        Event::Stderr { server, line } => {
            if let Some(i) = find(s, &server) {
                push_bounded(&mut s.servers[i].stderr, line);
            }
            // Only the failed server's pane shows stderr; redraw is cheap.
            true
        }
        Event::Notification {
            server,
            method,
            params,
        } => {
            if method == "notifications/progress" {
                let p = params.clone().unwrap_or_default();
                let token = p.get("progressToken").and_then(|t| {
                    t.as_i64()
                        .or_else(|| t.as_str().and_then(|s| s.parse().ok()))
                });
                if let Some(c) = s.inflight.as_mut()
                    && c.server == server
                    && token.is_some()
                    && c.request_id == token
                {
                    let progress = p.get("progress").and_then(Value::as_f64).unwrap_or(0.0);
                    // Time comes in messages (`Msg::Clock`): the rate needs two
                    // readings of the clock.
                    let now = s.clock;
                    let first = c.progress.as_ref().map_or((now, progress), |v| v.first);
                    let secs = match (now, first.0) {
                        (Some(now), Some(then)) => now.duration_since(then).as_secs_f64(),
                        _ => 0.0,
                    };
                    c.progress = Some(ProgressView {
                        progress,
                        total: p.get("total").and_then(Value::as_f64),
                        message: p
                            .get("message")
                            .and_then(Value::as_str)
                            .map(crate::sanitize::one_line),
                        rate: (secs > 0.05).then(|| (progress - first.1) / secs),
                        first,
                    });
                    return true;
                }
            }
            if method == "notifications/resources/updated"
                && let Some(uri) = params
                    .as_ref()
                    .and_then(|p| p.get("uri"))
                    .and_then(Value::as_str)
                && let Some(i) = find(s, &server)
                && crate::tui::browse::mark_updated(&mut s.servers[i], uri)
                && s.resources.server == server
            {
                let uri = uri.to_string();
                use crate::tui::browse::Kind;
                s.with_browse(Kind::Resources, fx, |b, cx| b.on_updated(&uri, cx));
            }
            if let Some(i) = find(s, &server) {
                let line = match (method.as_str(), &params) {
                    ("notifications/message", Some(p)) => crate::mcp::types::log_line(p),
                    _ => method,
                };
                push_bounded(&mut s.servers[i].notices, line);
            }
            true
        }
    }
}

/// What changed between two tool lists: `+added -removed ~changed`.
pub fn tool_diff(old: &[Tool], new: &[Tool]) -> String {
    let mut parts = Vec::new();
    for t in new {
        match old.iter().find(|o| o.name == t.name) {
            None => parts.push(format!("+{}", t.name)),
            Some(o) if o.raw != t.raw => parts.push(format!("~{}", t.name)),
            Some(_) => {}
        }
    }
    for o in old {
        if !new.iter().any(|t| t.name == o.name) {
            parts.push(format!("-{}", o.name));
        }
    }
    crate::sanitize::one_line(&parts.join(" "))
}
