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
    let (before, url, after) = bottom_lines(s, v);
    let count =
        |lines: &[Line]| -> u16 { lines.iter().map(|l| rows(&line_text(l), inner.width)).sum() };
    let url_rows = url.as_deref().map_or(0, |u| {
        u.chars().count().div_ceil(inner.width.max(1) as usize) as u16
    });
    let max = inner.height.saturating_sub(2);
    let after_rows = count(&after).min(max);
    let url_rows = url_rows.min(max - after_rows);
    let before_rows = count(&before).min(max - after_rows - url_rows);
    let bottom_rows = before_rows + url_rows + after_rows;
    let trace_area = Rect {
        height: inner.height.saturating_sub(bottom_rows),
        ..inner
    };
    let mut y = inner.y + trace_area.height;
    let mut next = |h: u16| {
        let r = Rect {
            y,
            height: h,
            ..inner
        };
        y += h;
        r
    };
    let (before_area, url_area, after_area) = (next(before_rows), next(url_rows), next(after_rows));

    let mut trace: Vec<Line> = vec![Line::styled(
        "Discovery",
        Style::default().add_modifier(Modifier::BOLD),
    )];
    if !v.scopes.is_empty() {
        trace.push(Line::styled(
            format!("  asking for scope {:?}", clean(&v.scopes.join(" "))),
            Role::Warn.style(),
        ));
    }
    if v.trace.is_empty() {
        trace.push(Line::styled(
            "  asking the server what it needs…",
            Role::Muted.style(),
        ));
    }
    for l in v.trace.iter().skip(v.scroll) {
        trace.push(Line::raw(format!("  {l}")));
    }
    f.render_widget(Paragraph::new(trace).wrap(Wrap { trim: false }), trace_area);
    f.render_widget(
        Paragraph::new(before).wrap(Wrap { trim: false }),
        before_area,
    );
    if let Some(url) = &url {
        render_link(f, url_area, url);
    }
    f.render_widget(Paragraph::new(after).wrap(Wrap { trim: false }), after_area);
}

/// The URL, cut into rows, each row a terminal hyperlink (OSC 8) to the
/// whole URL: a click opens it even when it wraps. Only a URL of printable
/// ASCII is linked (mcpdeck builds it percent-encoded; anything else is
/// drawn as plain, sanitized text).
fn render_link(f: &mut Frame, area: Rect, url: &str) {
    use ratatui::buffer::CellDiffOption;
    let width = area.width.max(1) as usize;
    let style = Role::Accent.style();
    let linkable = !url.is_empty() && url.chars().all(|c| c.is_ascii_graphic());
    if !linkable {
        f.render_widget(
            Paragraph::new(Line::styled(clean(url), style)).wrap(Wrap { trim: false }),
            area,
        );
        return;
    }
    let chars: Vec<char> = url.chars().collect();
    let buf = f.buffer_mut();
    for (i, chunk) in chars.chunks(width).enumerate().take(area.height as usize) {
        let y = area.y + i as u16;
        let text: String = chunk.iter().collect();
        for (j, c) in chunk.iter().enumerate() {
            if let Some(cell) = buf.cell_mut((area.x + j as u16, y)) {
                cell.set_char(*c).set_style(style);
            }
        }
        // The first cell carries the whole row inside the link; the diff
        // counts it as the row's width and skips the cells it covers.
        if let (Some(cell), Some(w)) = (
            buf.cell_mut((area.x, y)),
            std::num::NonZeroU16::new(chunk.len() as u16),
        ) {
            cell.set_symbol(&format!("\x1b]8;;{url}\x1b\\{text}\x1b]8;;\x1b\\"))
                .set_diff_option(CellDiffOption::ForcedWidth(w));
        }
    }
}

fn line_text(l: &Line) -> String {
    l.spans.iter().map(|s| s.content.as_ref()).collect()
}

/// The lines under the trace: before the URL, the URL, after it.
fn bottom_lines(
    s: &State,
    v: &LoginView,
) -> (Vec<Line<'static>>, Option<String>, Vec<Line<'static>>) {
    let k = &s.keymap;
    let mut before = Vec::new();
    if v.url.is_some() {
        before.push(Line::raw(""));
        before.push(Line::styled(
            "Open this URL to log in:",
            Style::default().add_modifier(Modifier::BOLD),
        ));
    }
    let mut lines = Vec::new();
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
    (before, v.url.clone(), lines)
}
