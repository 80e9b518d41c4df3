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
    match ev {
        Event::Servers(_) => false,
        Event::Status {
            server,
            status,
            negotiated,
        } => {
            let redraw = on_status(s, server, status, negotiated, fx);
            super::keys::resume_pending(s, fx) || redraw
        }
        Event::Lists { server, lists } => {
            let redraw = on_lists(s, server, lists);
            super::keys::resume_pending(s, fx) || redraw
        }
        Event::DenyList { server, tools } => on_deny_list(s, server, tools),
        Event::CallStarted {
            tag, request_id, ..
        } => on_call_started(s, tag, request_id),
        Event::ServerRequest {
            id,
            server,
            method,
            params,
            related,
            request_id,
        } => on_server_request(s, id, server, method, params, related, request_id),
        Event::TaskStatus {
            tag,
            status,
            server: _,
        } => on_task_status(s, tag, status),
        Event::Subscription {
            server,
            uri,
            subscribed,
            result,
        } => on_subscription(s, server, uri, subscribed, result),
        Event::Response { tag, result, .. } => on_response(s, tag, result, fx),
        Event::Ping {
            server,
            result,
            requested,
        } => on_ping(s, server, result, requested),
        Event::LogLevel {
            server,
            level,
            result,
        } => on_log_level(s, server, level, result),
        Event::CallFinished {
            tag,
            server,
            tool,
            result,
            elapsed,
        } => on_call_finished(s, tag, server, tool, result, elapsed, fx),
        Event::Finding {
            server,
            session,
            previous,
            finding,
        } => on_finding(s, server, session, previous, finding),
        Event::Dropped {
            server,
            notifications,
            stderr,
            findings,
        } => on_dropped(
            s,
            server,
            crate::mcp::manager::DropCounts {
                notifications,
                stderr,
                findings,
            },
        ),
        Event::Stderr { server, line } => on_stderr(s, server, line),
        Event::RootsAsked {
            server,
            offered,
            at,
        } => match s.servers.iter_mut().find(|v| v.name == server) {
            Some(v) => {
                v.roots_asked = Some((at, offered));
                true
            }
            None => false,
        },
        Event::Notification {
            server,
            method,
            params,
        } => on_notification(s, server, method, params, fx),
        Event::Login { server, event } => super::login::on_login(s, server, event),
        Event::LoginFinished { server, result } => {
            super::login::on_login_finished(s, server, result)
        }
        Event::LoggedOut { server, result } => super::login::on_logged_out(s, server, result),
        Event::AuthInfo { server, info } => super::login::on_auth_info(s, server, info),
    }
}

/// The index of a server by name.
fn find(s: &State, name: &str) -> Option<usize> {
    s.servers.iter().position(|v| v.name == name)
}

/// A server's status changed; what died with its session goes.
fn on_status(
    s: &mut State,
    server: String,
    status: ServerStatus,
    negotiated: Option<Box<crate::mcp::session::Negotiated>>,
    fx: &mut Vec<Effect>,
) -> bool {
    if let Some(i) = find(s, &server) {
        let v = &mut s.servers[i];
        if status == ServerStatus::Pending {
            v.pending_since = s.clock;
            v.connect_step = None;
        }
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
            super::trust::refresh_lists_of(s, None);
        }
    }
    true
}

/// A server's lists came (again): a changed tool list is shown as a diff.
fn on_lists(s: &mut State, server: String, lists: Arc<Lists>) -> bool {
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
        // Lint again; a tool that is no longer as pinned is announced.
        let news = super::trust::refresh_lists_of(s, Some(&server));
        if !news.is_empty() {
            for line in &news {
                if let Some(i) = find(s, &server) {
                    push_bounded(&mut s.servers[i].notices, line.clone());
                }
            }
            s.status = Some(match news.len() {
                1 => news[0].clone(),
                n => format!("{} (and {} more)", news[0], n - 1),
            });
        }
    }
    true
}

/// A server's deny list as the manager has it.
fn on_deny_list(s: &mut State, server: String, tools: Vec<String>) -> bool {
    if let Some(i) = find(s, &server) {
        s.servers[i].deny = tools;
    }
    true
}

/// The call in flight was sent: its request id (and progressToken).
fn on_call_started(s: &mut State, tag: u64, request_id: i64) -> bool {
    if let Some(c) = s.running_mut(tag) {
        c.request_id = Some(request_id);
    }
    false
}

/// A server asks the person: the first request is shown at once.
fn on_server_request(
    s: &mut State,
    id: u64,
    server: String,
    method: String,
    params: Value,
    related: Option<i64>,
    request_id: Option<Value>,
) -> bool {
    // Which call it is for: the one the protocol names, else the one
    // call running on that server (with several, it cannot be told).
    // (A named request that is no call running here, such as a task's
    // `tasks/result`, falls back to the guess: the one call running.)
    let on_server = || s.running.iter().filter(|c| c.server == server);
    let only = || {
        let mut it = on_server();
        it.next().filter(|_| it.next().is_none())
    };
    let call = match related {
        Some(id) => on_server().find(|c| c.request_id == Some(id)).or_else(only),
        None => only(),
    }
    .map(|c| c.tag);
    // The first is shown at once (its screen says who asks, and
    // older messages would hide the keys); a later one waits.
    s.status = s.asks.push(
        AskView {
            id,
            server,
            method,
            params,
            call,
            request_id,
        },
        &s.keymap,
    );
    true
}

/// A call that runs as a task changed state.
fn on_task_status(s: &mut State, tag: u64, status: crate::mcp::session::TaskStatus) -> bool {
    let Some(c) = s.running_mut(tag) else {
        return false;
    };
    let mut text = format!("task {}: {}", status.task_id, status.status);
    if let Some(m) = &status.message {
        text.push_str(&format!(" · {m}"));
    }
    c.task = Some(crate::sanitize::one_line(&text));
    true
}

/// The answer to a subscribe or unsubscribe.
fn on_subscription(
    s: &mut State,
    server: String,
    uri: String,
    subscribed: bool,
    result: Result<(), crate::mcp::manager::CallError>,
) -> bool {
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

/// An answer to a request of the resources or prompts view.
fn on_response(
    s: &mut State,
    tag: u64,
    result: Result<Value, crate::mcp::manager::CallError>,
    fx: &mut Vec<Effect>,
) -> bool {
    use crate::tui::browse::Kind;
    if s.skills.awaits(tag) {
        return crate::tui::skills::on_response(s, tag, result, fx);
    }
    let Some(kind) = [Kind::Resources, Kind::Prompts]
        .into_iter()
        .find(|k| s.browse(*k).awaits(tag))
    else {
        return false;
    };
    s.with_browse(kind, fx, |b, cx| b.on_response(tag, result, cx))
}

/// A ping's round trip (the automatic one failing is no news).
fn on_ping(
    s: &mut State,
    server: String,
    result: Result<std::time::Duration, crate::mcp::manager::CallError>,
    requested: bool,
) -> bool {
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

/// The server's log level was set (or not).
fn on_log_level(
    s: &mut State,
    server: String,
    level: String,
    result: Result<(), crate::mcp::manager::CallError>,
) -> bool {
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

/// The call in flight finished: its outcome, prepared for display.
fn on_call_finished(
    s: &mut State,
    tag: u64,
    server: String,
    tool: String,
    result: Result<crate::mcp::types::CallResult, crate::mcp::manager::CallError>,
    elapsed: std::time::Duration,
    fx: &mut Vec<Effect>,
) -> bool {
    let Some(at) = s.running.iter().position(|c| c.tag == tag) else {
        return false;
    };
    let call = s.running.remove(at);
    let shown = s.shown == Some(tag);
    // Its requests still waiting are over: answered as cancelled.
    if let Some(note) = s.asks.drop_call(tag, fx).status {
        s.status = Some(note);
    }
    // "cancelling …" is over: the result says how the call ended.
    if shown
        && s.status
            .as_deref()
            .is_some_and(|m| m.starts_with("cancelling "))
    {
        s.status = None;
    }
    let output_schema = s
        .servers
        .iter()
        .find(|v| v.name == server)
        .and_then(|v| v.lists.tools.iter().find(|t| t.name == tool))
        .and_then(|t| t.output_schema.clone());
    // A round trip is the server's latency only when it answered (a
    // result, or a JSON-RPC error): a cancelled, timed-out or failed call
    // measures nothing of the server.
    let answered = match &result {
        Ok(_) => true,
        Err(crate::mcp::manager::CallError::Request(e)) => e.rpc().is_some(),
        Err(_) => false,
    };
    if answered && let Some(i) = find(s, &server) {
        s.servers[i].last_latency = Some(elapsed);
    }
    if let Err(e) = &result
        && let Some(auth) = e.auth()
    {
        super::login::note_call_failure(s, &server, auth);
    }
    let lines = crate::tui::result::lines(&result, output_schema.as_ref());
    // Into the history (kept on disk by the driver).
    let sent = serde_json::from_str(&call.args).unwrap_or_else(|_| serde_json::json!({}));
    let entry = crate::tui::history::Entry::new(&server, &tool, &sent, &result, elapsed);
    s.history.insert(0, entry.clone());
    s.history.truncate(crate::tui::history::MAX_ENTRIES);
    fx.push(Effect::History(Box::new(entry)));
    let outcome = Outcome {
        tag,
        scroll: 0,
        ended: 0,
        args: Some(call.args),
        server,
        tool,
        result,
        elapsed,
        output_schema,
        lines,
        folding: None,
        cursor: 0,
    };
    if s.mode == Mode::ConfirmQuit && s.running.is_empty() {
        s.mode = Mode::Normal;
    }
    if !shown {
        // Another entry is shown: this one waits among the others, and
        // the status bar says it ended.
        let word = outcome.status().word();
        let what = format!("{} on {}", outcome.tool, outcome.server);
        super::calls::keep_aside(s, outcome);
        let n = s
            .entries()
            .iter()
            .position(|e| e.tag == tag)
            .map_or(0, |i| i + 1);
        s.status = Some(crate::sanitize::one_line(&format!(
            "call {n} ({what}) ended: {word} · {}/{} shows it",
            s.keymap.label(crate::tui::keymap::Action::PrevCall),
            s.keymap.label(crate::tui::keymap::Action::NextCall),
        )));
        return true;
    }
    super::calls::show_new(s, outcome);
    // The result has the focus, so End and PgDn scroll it at once; Esc
    // goes back to where the call was made from.
    if s.focus != Pane::Result && s.mode == Mode::Normal {
        s.focus_before_result = Some(s.focus);
    }
    s.focus = Pane::Result;
    // (After the focus moved: a zoomed screen now shows the result, at
    // the width the search places its match for.)
    s.relayout();
    super::find::search_again(s);
    true
}

/// An off-spec frame or other finding about a server; a previous
/// session's (replaced by a reconnect, or closing) is counted apart and
/// marked as such.
fn on_finding(
    s: &mut State,
    server: String,
    session: u64,
    previous: bool,
    finding: crate::mcp::Finding,
) -> bool {
    if let Some(i) = find(s, &server) {
        let v = &mut s.servers[i];
        let mut line = format!("{}: {}", finding.severity.label(), finding.message);
        // A finding of an older session than the one counted is a
        // previous session's too.
        let older = v.findings_session.is_some_and(|current| session < current);
        if previous || older {
            v.previous_findings += 1;
            line.push_str(" (previous session)");
        } else {
            if v.findings_session != Some(session) {
                // A new session: the last one's findings are previous now.
                v.previous_findings += v.findings;
                v.findings = 0;
                v.findings_session = Some(session);
            }
            v.findings += 1;
        }
        push_bounded(&mut v.notices, line);
    }
    true
}

/// A storm: the manager dropped some of a server's notifications, stderr
/// lines or findings; the counts add up.
fn on_dropped(s: &mut State, server: String, counts: crate::mcp::manager::DropCounts) -> bool {
    if let Some(i) = find(s, &server) {
        s.servers[i].dropped.add(counts);
    }
    true
}

/// A line of a server's stderr.
fn on_stderr(s: &mut State, server: String, line: String) -> bool {
    if let Some(i) = find(s, &server) {
        push_bounded(&mut s.servers[i].stderr, line);
    }
    // Only the failed server's pane shows stderr; redraw is cheap.
    true
}

/// A notification: progress for the call in flight, resource updates, log messages.
fn on_notification(
    s: &mut State,
    server: String,
    method: String,
    params: Option<Value>,
    fx: &mut Vec<Effect>,
) -> bool {
    // The server gave up a request of its own that waits here: it goes
    // (its answer would not be sent anyway).
    if method == "notifications/cancelled"
        && let Some(theirs) = params.as_ref().and_then(|p| p.get("requestId"))
    {
        return match s.asks.drop_given_up(&server, theirs, fx).status {
            Some(note) => {
                s.status = Some(note);
                true
            }
            None => false,
        };
    }
    if method == "notifications/progress" {
        let p = params.clone().unwrap_or_default();
        let token = p.get("progressToken").and_then(|t| {
            t.as_i64()
                .or_else(|| t.as_str().and_then(|s| s.parse().ok()))
        });
        let now = s.clock;
        if let Some(c) = s
            .running
            .iter_mut()
            .find(|c| c.server == server && token.is_some() && c.request_id == token)
        {
            let progress = p.get("progress").and_then(Value::as_f64).unwrap_or(0.0);
            // Time comes in messages (`Msg::Clock`): the rate needs two
            // readings of the clock.
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
