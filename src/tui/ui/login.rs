//! The login screen: the discovery trace, the URL to open, and where the
//! login stands (a spinner while it waits), over the panes.

use ratatui::Frame;
use ratatui::layout::Rect;
use ratatui::style::{Modifier, Style};
use ratatui::text::{Line, Span};
use ratatui::widgets::{Block, Borders, Clear, Paragraph, Wrap};

use crate::tui::app::{LoginPhase, LoginView, State};
use crate::tui::keymap::Action;
use crate::tui::theme::Role;

use super::*;

/// Rows `text` takes when wrapped at `width` (at least one).
fn rows(text: &str, width: u16) -> u16 {
    let w = width.max(1) as usize;
    let n = text.chars().count();
    if n <= w {
        return 1;
    }
    // Words wrap before the edge: leave room for the ragged ends.
    n.div_ceil(w.saturating_sub(8).max(1))
        .min(u16::MAX as usize) as u16
}

pub(super) fn render_login(s: &State, f: &mut Frame, area: Rect) {
    let Some(v) = &s.login else { return };
    let width = area.width.saturating_sub(4).clamp(20, 110);
    let height = area.height.saturating_sub(2).max(6);
    let rect = centered(area, width, height);
    f.render_widget(Clear, rect);
    let block = Block::default()
        .borders(Borders::ALL)
        .title(Span::styled(
            format!("Log in · {}", clean(&v.server)),
            Role::Accent.style().add_modifier(Modifier::BOLD),
        ))
        .border_style(Role::Accent.style());
    let inner = block.inner(rect);
    f.render_widget(block, rect);

    // The bottom part (the URL, the state, the keys) is always shown; the
    // trace gets what is left, and scrolls.
    let bottom = bottom_lines(s, v);
    let bottom_rows: u16 = bottom
        .iter()
        .map(|l| rows(&line_text(l), inner.width))
        .sum::<u16>()
        .min(inner.height.saturating_sub(2));
    let trace_area = Rect {
        height: inner.height.saturating_sub(bottom_rows),
        ..inner
    };
    let bottom_area = Rect {
        y: inner.y + trace_area.height,
        height: bottom_rows,
        ..inner
    };

    let mut trace: Vec<Line> = vec![Line::styled(
        "Discovery",
        Style::default().add_modifier(Modifier::BOLD),
    )];
    if v.trace.is_empty() {
        trace.push(Line::styled(
            "  asking the server what it needs…",
            Role::Muted.style(),
        ));
    }
    for l in v.trace.iter().skip(v.scroll) {
        trace.push(Line::raw(format!("  {l}")));
    }
    if !v.scopes.is_empty() {
        trace.insert(
            1,
            Line::styled(
                format!("  asking for scope {:?}", clean(&v.scopes.join(" "))),
                Role::Warn.style(),
            ),
        );
    }
    f.render_widget(Paragraph::new(trace).wrap(Wrap { trim: false }), trace_area);
    f.render_widget(
        Paragraph::new(bottom).wrap(Wrap { trim: false }),
        bottom_area,
    );
}

fn line_text(l: &Line) -> String {
    l.spans.iter().map(|s| s.content.as_ref()).collect()
}

fn bottom_lines(s: &State, v: &LoginView) -> Vec<Line<'static>> {
    let k = &s.keymap;
    let mut lines = Vec::new();
    if let Some(url) = &v.url {
        lines.push(Line::raw(""));
        lines.push(Line::styled(
            "Open this URL to log in:",
            Style::default().add_modifier(Modifier::BOLD),
        ));
        // The URL is an http(s) URL mcpdeck built; drawn safely anyway.
        lines.push(Line::styled(clean(url), Role::Accent.style()));
    }
    if let Some(b) = &v.browser {
        lines.push(Line::styled(clean(b), Role::Muted.style()));
    }
    lines.push(Line::raw(""));
    let spin = SPINNER[s.spinner % SPINNER.len()];
    let state = match &v.phase {
        LoginPhase::Discovering => Line::raw(format!("{spin} finding the authorization server…")),
        LoginPhase::Waiting => Line::raw(format!(
            "{spin} waiting for the browser to come back to http://127.0.0.1 …"
        )),
        LoginPhase::Exchanging => Line::raw(format!("{spin} exchanging the code for a token…")),
        LoginPhase::Done => Line::styled("✓ logged in", Role::Ok.style()),
        LoginPhase::Failed(why) => Line::styled(
            format!("✗ {}", clean(why)),
            Role::Error.style().add_modifier(Modifier::BOLD),
        ),
    };
    lines.push(state);
    let keys = if v.running() {
        let mut parts = vec![format!("{} cancel", k.label(Action::Back))];
        if v.url.is_some() {
            parts.push(format!("{} copy the URL", k.label(Action::Copy)));
            parts.push(format!("{} open it again", k.label(Action::Login)));
        }
        if v.trace.len() > 1 {
            parts.push(format!(
                "{}/{} scroll",
                k.label(Action::Up),
                k.label(Action::Down)
            ));
        }
        parts.join(" · ")
    } else {
        format!(
            "{} try again · {} close",
            k.label(Action::Login),
            k.label(Action::Back)
        )
    };
    lines.push(Line::styled(keys, Role::Muted.style()));
    lines
}
