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
    let height = area.height.saturating_sub(2) as usize;
    let width = area.width.saturating_sub(2);
    let mut lines: Vec<Line> = Vec::new();
    // While a call runs, the pane is that call's: the previous outcome is
    // not shown under it (it would read as this call's result).
    let title = if let Some(c) = &s.inflight {
        lines.extend(inflight_lines(s, c));
        if let Some(o) = &s.outcome {
            lines.push(Line::styled(
                format!(
                    "(the previous result, {} on {}, is replaced when this call ends)",
                    clean(&o.tool),
                    clean(&o.server)
                ),
                Role::Muted.style(),
            ));
        }
        format!(
            "Result · running {} on {}",
            clean(&c.tool),
            clean(&c.server)
        )
    } else if let Some(o) = &s.outcome {
        if let Some(hint) = step_up_hint(s) {
            lines.push(hint);
        }
        // Only the screen lines in view are cut from the prepared
        // outcome: a 20 MB result costs no more per frame than a short one.
        let room = height.saturating_sub(lines.len()).max(1);
        let total = o.lines.screen_len(width);
        lines.extend(o.lines.screen_lines_marked(
            width,
            s.result_scroll,
            room,
            s.result_search.marks(),
        ));
        let (long, short) = if total > room {
            let first = s.result_scroll.min(total.saturating_sub(1)) + 1;
            let last = (s.result_scroll + room).min(total);
            (
                format!(" · lines {first}–{last} of {total}"),
                format!(" · {first}–{last}/{total}"),
            )
        } else {
            (String::new(), String::new())
        };
        // The position matters most when the title does not fit: the
        // server's name goes first, then the long form of the position.
        let (tool, server, time) = (
            clean(&o.tool),
            clean(&o.server),
            crate::text::fmt_duration(o.elapsed),
        );
        let room_w = area.width.saturating_sub(2) as usize;
        // A search says what it looks for and where it stands, before
        // anything else but the pane's name.
        let found = s.result_search.title(&s.result_search);
        [
            format!("Result · {tool} on {server} · {time}{long}{found}"),
            format!("Result · {tool} on {server} · {time}{short}{found}"),
            format!("Result · {tool} · {time}{short}{found}"),
            format!("Result{found}{short} · {tool}"),
        ]
        .into_iter()
        .find(|t| t.chars().count() <= room_w)
        .unwrap_or_else(|| format!("Result{found}"))
    } else {
        lines.extend(result_placeholder(s));
        "Result".into()
    };
    // The outcome is wrapped already; the in-flight and placeholder lines
    // are short and wrap here.
    let mut p = Paragraph::new(lines).block(block(title, s.focus == Pane::Result));
    if s.outcome.is_none() || s.inflight.is_some() {
        p = p.wrap(Wrap { trim: false });
    }
    f.render_widget(p, area);
}

/// Whether the result pane's first row is the login hint (the scroll
/// bound leaves it out).
pub fn step_up_hint_shown(s: &State) -> bool {
    s.inflight.is_none() && step_up_hint(s).is_some()
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
