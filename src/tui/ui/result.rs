//! The result pane: the call in flight (progress, task status) or the last
//! call's outcome.

use crate::tui::theme::Role;
use ratatui::Frame;
use ratatui::layout::Rect;
use ratatui::text::{Line, Span};
use ratatui::widgets::{Paragraph, Wrap};

use crate::tui::app::{Pane, State};

use super::*;

/// A placeholder for the result pane before any result.
pub(super) fn result_placeholder(s: &State) -> Vec<Line<'static>> {
    match &s.inflight {
        Some(c) => inflight_lines(s, c),
        None => vec![Line::styled(
            format!(
                "No call yet: select a tool and press {}.",
                s.keymap.label(crate::tui::keymap::Action::Open)
            ),
            Role::Muted.style(),
        )],
    }
}

/// The in-flight lines: spinner, tool, server (and a task's status); then,
/// when the server reports progress, a line with the bar, the numbers, the
/// message and the rate.
pub(super) fn inflight_lines(s: &State, c: &crate::tui::app::InFlight) -> Vec<Line<'static>> {
    let mut head = format!(
        "{} calling {} on {}… ({} cancels)",
        SPINNER[s.spinner % SPINNER.len()],
        clean(&c.tool),
        clean(&c.server),
        s.keymap.label(crate::tui::keymap::Action::Back)
    );
    if let Some(t) = &c.task {
        head.push_str(&format!(" · {}", clean(t)));
    }
    let mut lines = vec![Line::raw(head)];
    let Some(p) = &c.progress else {
        return lines;
    };
    let mut spans = Vec::new();
    if let Some(r) = p.ratio() {
        let cells = 20usize;
        let done = (r * cells as f64).round() as usize;
        spans.push(Span::styled("█".repeat(done), Role::Ok.style()));
        spans.push(Span::styled("░".repeat(cells - done), Role::Muted.style()));
        spans.push(Span::raw(" "));
    }
    spans.push(Span::raw(clean(&p.text())));
    lines.push(Line::from(spans));
    lines
}

pub(super) fn render_result(s: &State, f: &mut Frame, area: Rect) {
    let title = match &s.outcome {
        Some(o) => format!(
            "Result · {} on {} · {} ms",
            clean(&o.tool),
            clean(&o.server),
            o.elapsed.as_millis()
        ),
        None => "Result".into(),
    };
    // Only the visible window of the prepared lines is handed to ratatui:
    // a 10 MB result costs no more per frame than a short one.
    let height = area.height.saturating_sub(2) as usize;
    let mut lines: Vec<Line> = Vec::new();
    if let Some(c) = &s.inflight
        && s.outcome.is_some()
    {
        lines.extend(
            inflight_lines(s, c)
                .into_iter()
                .map(|l| l.style(Role::Warn.style())),
        );
    }
    if let Some(hint) = step_up_hint(s) {
        lines.push(hint);
    }
    match &s.outcome {
        None => lines.extend(result_placeholder(s)),
        Some(o) => lines.extend(
            (s.result_scroll..s.result_scroll + height.max(1)).filter_map(|i| o.lines.line(i)),
        ),
    }
    let p = Paragraph::new(lines)
        .block(block(title, s.focus == Pane::Result))
        .wrap(Wrap { trim: false });
    f.render_widget(p, area);
}

/// Over a call that failed for want of a login or of scope: what the login
/// key would do.
fn step_up_hint(s: &State) -> Option<Line<'static>> {
    let o = s.outcome.as_ref()?;
    let auth = o.result.as_ref().err()?.auth()?;
    let (server, scopes) = s.step_up.as_ref().filter(|(n, _)| *n == o.server)?;
    if auth.kind != crate::mcp::auth::AuthErrorKind::NeedsLogin {
        return None;
    }
    let key = s.keymap.label(crate::tui::keymap::Action::Login);
    let text = if scopes.is_empty() {
        format!(
            "🔒 {} needs a login: press {key} to log in, then call again",
            clean(server)
        )
    } else {
        format!(
            "🔒 step-up: {} asks for more scope; press {key} to authorize {:?}, then call again",
            clean(server),
            clean(&scopes.join(" "))
        )
    };
    Some(Line::styled(text, Role::Warn.style()))
}
