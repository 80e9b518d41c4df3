//! The help overlay, generated from the keymap: one column, the
//! descriptions wrapped beside their keys, a legend of what the lists'
//! abbreviations mean; it scrolls, and `/` searches it.

use crate::tui::theme::Role;
use ratatui::Frame;
use ratatui::layout::Rect;
use ratatui::style::{Modifier, Style};
use ratatui::text::{Line, Span};
use ratatui::widgets::{Block, Borders, Clear, Paragraph};

use crate::tui::app::State;

use super::*;

/// The widest the help gets (wider reads badly).
const MAX_WIDTH: u16 = 100;

/// What the lists' badges and abbreviations mean: (what is seen, meaning).
const LEGEND: &[(&str, &str)] = &[
    ("●", "connected"),
    ("⠋", "connecting (the spinner turns)"),
    ("✗", "failed: the server detail says why, with its stderr"),
    ("🔒", "needs a login (OAuth): the login key logs in"),
    ("○ ◌", "disabled (space enables) · disconnected"),
    (
        "2025-11-25",
        "the protocol version agreed with the server (the era)",
    ),
    ("11t", "the server has 11 tools"),
    ("12 ms", "the last call's round trip (else the last ping's)"),
    (
        "⚠ insecure",
        "TLS certificates are not verified for this server",
    ),
    (
        "risk",
        "a high lint finding on the tool (poisoning, shadowing, hidden text…): its detail says what and where",
    ),
    (
        "lint",
        "a medium lint finding on the tool; low ones show only in its detail",
    ),
    (
        "changed",
        "the tool is not as pinned: its detail shows the diff, A accepts it",
    ),
    ("new", "the tool came after the server was pinned"),
    (
        "ro",
        "read-only: the tool says it changes nothing (readOnlyHint)",
    ),
    ("destructive", "the tool may destroy data (destructiveHint)"),
    (
        "open",
        "open world: the tool reaches outside (openWorldHint)",
    ),
    (
        "denied",
        "in the server's deny_tools: mcpdeck will not call it",
    ),
    (
        "srv__tool",
        "in the all-servers view, the tool's server and name",
    ),
    (
        "◉ ✱ {}",
        "resources: subscribed · updated since it was read · a template",
    ),
    (
        "C->S S->C",
        "protocol log: a frame from mcpdeck to the server · from the server",
    ),
    ("malformed", "protocol log: the frame is not valid JSON-RPC"),
    (
        "[x] [=] ⚠2",
        "import: ticked · in the config already · 2 warnings to read",
    ),
    (
        "3/5t",
        "attach: 3 of the server's 5 tools reach its agent (the rest refused or withheld)",
    ),
    (
        "lines 1–20 of 300",
        "the part of the result shown, in screen lines",
    ),
];

/// The popup's rectangle on a screen of this size.
pub(super) fn help_area(area: Rect, zoom: bool) -> Rect {
    if zoom {
        // The whole screen but the status bar (`z`).
        return Rect {
            height: area.height.saturating_sub(1).max(3).min(area.height),
            ..area
        };
    }
    let width = area.width.min(MAX_WIDTH);
    // The status bar below stays visible (it says how to scroll and close).
    let height = area.height.saturating_sub(2).max(3);
    let mut r = centered(area, width, height);
    r.y = area.y + u16::from(area.height > height + 1);
    r
}

/// The help's lines for a text `width` columns wide, after the search.
pub fn help_lines(s: &State, width: u16) -> Vec<Line<'static>> {
    let width = width as usize;
    let query = s.help_query.to_lowercase();
    let hit = |a: &str, b: &str| {
        query.is_empty() || a.to_lowercase().contains(&query) || b.to_lowercase().contains(&query)
    };
    let mut groups: Vec<(String, Vec<(String, String)>)> = s
        .keymap
        .help()
        .into_iter()
        .map(|(g, rows)| {
            (
                g.title().to_string(),
                rows.into_iter().map(|(k, h)| (k, h.to_string())).collect(),
            )
        })
        .collect();
    groups.push((
        "What the lists show".to_string(),
        LEGEND
            .iter()
            .map(|(k, h)| (k.to_string(), h.to_string()))
            .collect(),
    ));
    // The key column as wide as its longest entry, within reason: the
    // words get the rest, wrapped under themselves.
    // (The legend has a column of its own.)
    let column = |rows: &[(String, String)]| {
        rows.iter()
            .map(|(k, _)| k.chars().count())
            .max()
            .unwrap_or(0)
            .clamp(6, (width / 3).max(6))
    };
    let keys_w = groups
        .iter()
        .take(groups.len() - 1)
        .map(|(_, rows)| column(rows))
        .max()
        .unwrap_or(6);
    let legend_w = groups.last().map_or(6, |(_, rows)| column(rows));
    let mut lines = Vec::new();
    let n = groups.len();
    for (i, (title, rows)) in groups.into_iter().enumerate() {
        let kw = if i + 1 == n { legend_w } else { keys_w };
        let desc_w = width.saturating_sub(kw + 4).max(8);
        let rows: Vec<_> = rows.into_iter().filter(|(k, h)| hit(k, h)).collect();
        if rows.is_empty() {
            continue;
        }
        if !lines.is_empty() {
            lines.push(Line::raw(""));
        }
        lines.push(Line::styled(
            title,
            Style::default().add_modifier(Modifier::BOLD),
        ));
        for (keys, help) in rows {
            // Keys too long for the column wrap at their separators.
            let key_parts = wrap_words(&keys, kw);
            let help_parts = wrap_words(&help, desc_w);
            for i in 0..key_parts.len().max(help_parts.len()) {
                let k = key_parts.get(i).map(String::as_str).unwrap_or("");
                let h = help_parts.get(i).cloned().unwrap_or_default();
                lines.push(Line::from(vec![
                    Span::styled(format!("  {k:<kw$}  "), Role::Accent.style()),
                    Span::raw(h),
                ]));
            }
        }
    }
    if lines.is_empty() {
        lines.push(Line::styled(
            format!("no key or word matches {:?}", clean(&s.help_query)),
            Role::Muted.style(),
        ));
    }
    lines
}

/// The help's length and the rows it has on a screen of this size.
pub fn help_geometry(s: &State, screen: Rect) -> (usize, usize) {
    let popup = help_area(screen, s.help_zoom);
    let inner_w = popup.width.saturating_sub(2);
    // One row for the search line when searching.
    let search = usize::from(s.help_typing || !s.help_query.is_empty());
    let rows = (popup.height.saturating_sub(2) as usize).saturating_sub(search);
    (help_lines(s, inner_w).len(), rows)
}

pub(super) fn render_help(s: &State, f: &mut Frame, area: Rect) {
    let popup = help_area(area, s.help_zoom);
    let inner_w = popup.width.saturating_sub(2);
    let lines = help_lines(s, inner_w);
    let (total, rows) = help_geometry(s, area);
    let last = total.saturating_sub(rows.max(1));
    let scroll = s.help_scroll.min(last);
    // The popup no taller than its content.
    let searching = s.help_typing || !s.help_query.is_empty();
    let height = (total.min(rows) + 2 + usize::from(searching)) as u16;
    let popup = if s.help_zoom {
        popup
    } else {
        Rect {
            y: popup.y + (popup.height.saturating_sub(height)) / 2,
            height: height.min(popup.height),
            ..popup
        }
    };
    f.render_widget(Clear, popup);
    let position = if total > rows {
        format!(
            " · {}–{} of {total}",
            scroll + 1,
            (scroll + rows).min(total)
        )
    } else {
        String::new()
    };
    let title = format!("Keys{position}");
    let block = Block::default().borders(Borders::ALL).title(title);
    let inner = block.inner(popup);
    f.render_widget(block, popup);
    let mut shown: Vec<Line> = Vec::new();
    if searching {
        let cursor = if s.help_typing { "▏" } else { "" };
        shown.push(Line::from(vec![
            Span::styled("/", Role::Accent.style()),
            Span::raw(format!("{}{cursor}", clean(&s.help_query))),
        ]));
    }
    shown.extend(lines.into_iter().skip(scroll).take(rows));
    f.render_widget(Paragraph::new(shown), inner);
}
