//! The history view: every call, newest first.

use crate::tui::theme::Role;
use ratatui::Frame;
use ratatui::layout::Rect;
use ratatui::text::{Line, Span};
use ratatui::widgets::Paragraph;

use crate::tui::app::State;
use crate::tui::history::Status;

use super::*;

pub(super) fn render_history(s: &State, f: &mut Frame, area: Rect) {
    if let Some(d) = &s.history_diff {
        return render_diff(d, f, area);
    }
    let shown = crate::tui::app::history_shown(s);
    let rows = area.height.saturating_sub(2).max(1) as usize;
    let sel = s.history_sel.min(shown.len().saturating_sub(1));
    let top = list_offset(sel, rows);
    let width = area.width.saturating_sub(2) as usize;
    let server_w = s
        .history
        .iter()
        .map(|e| e.server.chars().count())
        .max()
        .unwrap_or(6)
        .clamp(6, 20);
    let tool_w = s
        .history
        .iter()
        .map(|e| e.tool.chars().count())
        .max()
        .unwrap_or(6)
        .clamp(6, 28);
    let mut lines: Vec<Line> = Vec::new();
    for (k, &i) in shown.iter().enumerate().skip(top).take(rows) {
        let Some(e) = s.history.get(i) else { continue };
        let when = crate::text::fmt_utc(e.at);
        let status_style = match e.status {
            Status::Ok => Role::Ok.style(),
            Status::IsError | Status::Error => Role::Error.style(),
            Status::Cancelled => Role::Warn.style(),
        };
        let mark = if s.history_marked.contains(e) {
            "● "
        } else {
            "  "
        };
        let fixed = format!(
            "{mark}{when}  {:<server_w$}  {:<tool_w$}  ",
            fit(&clean(&e.server), server_w),
            fit(&clean(&e.tool), tool_w)
        );
        let status = format!("{:<9}", e.status.word());
        let ms = format!(
            "{:>8}  ",
            crate::text::fmt_duration(std::time::Duration::from_millis(e.ms))
        );
        let used = fixed.chars().count() + status.chars().count() + ms.chars().count();
        let args = e.args_summary(width.saturating_sub(used));
        let mut spans = vec![
            Span::raw(fixed),
            Span::styled(status, status_style),
            Span::styled(ms, Role::Muted.style()),
            Span::raw(args),
        ];
        if k == sel {
            spans = selected_row(spans);
        }
        lines.push(Line::from(spans));
    }
    if shown.is_empty() {
        lines.push(Line::styled(
            if s.history.is_empty() {
                "No calls yet: each call you make is kept here.".to_string()
            } else {
                format!("No call matches “{}”.", clean(&s.history_filter))
            },
            Role::Muted.style(),
        ));
    }
    let kept = match &s.history_path {
        Some(p) => format!("kept in {}", clean(&p.display().to_string())),
        None => "not kept on disk (MCPDECK_HISTORY=off)".to_string(),
    };
    let filter = if s.history_typing || !s.history_filter.is_empty() {
        let cursor = if s.history_typing { "▏" } else { "" };
        format!(" · /{}{cursor}", clean(&s.history_filter))
    } else {
        String::new()
    };
    let position = if shown.len() > rows {
        format!("{}/{}", sel + 1, shown.len())
    } else {
        shown.len().to_string()
    };
    let marked = match s.history_marked.len() {
        0 => String::new(),
        n => format!(" · {n} marked"),
    };
    let title = format!("History ({position}){filter}{marked} · {kept}");
    f.render_widget(Paragraph::new(lines).block(block(title, true)), area);
}

/// The diff of two calls, over the list.
fn render_diff(d: &crate::tui::app::HistoryDiff, f: &mut Frame, area: Rect) {
    let rows = area.height.saturating_sub(2) as usize;
    let total = d.height(area.width.saturating_sub(2).max(1));
    let top = d.scroll.min(total.saturating_sub(rows));
    let position = if total > rows {
        format!(
            " · lines {}–{} of {total}",
            top + 1,
            (top + rows).min(total)
        )
    } else {
        String::new()
    };
    let title = format!("{}{position}", d.title);
    let p = Paragraph::new(d.lines.clone())
        .wrap(ratatui::widgets::Wrap { trim: false })
        .scroll((top.min(u16::MAX as usize) as u16, 0))
        .block(block(title, true));
    f.render_widget(p, area);
}

/// `text` cut to `w` characters (with `…`).
fn fit(text: &str, w: usize) -> String {
    if text.chars().count() <= w {
        text.to_string()
    } else {
        let mut t: String = text.chars().take(w.saturating_sub(1)).collect();
        t.push('…');
        t
    }
}
