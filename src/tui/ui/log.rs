//! The protocol log, full screen: every raw frame, filterable.

use crate::tui::theme::Role;
use ratatui::Frame;
use ratatui::layout::Rect;
use ratatui::style::{Modifier, Style};
use ratatui::text::{Line, Span};
use ratatui::widgets::{List, ListItem, ListState, Paragraph};

use crate::tui::app::{Mode, State};
use crate::tui::keymap::Action;

use super::*;

pub(super) fn render_log(s: &State, f: &mut Frame, area: Rect) {
    let frames = s.log_frames();
    let [list_area, detail_area] = crate::tui::app::log_areas(area, s.log.zoom);
    let height = list_area.height.saturating_sub(2) as usize;
    let sel = s
        .log
        .sel
        .unwrap_or(frames.len().saturating_sub(1))
        .min(frames.len().saturating_sub(1));
    let offset = sel.saturating_sub(height.saturating_sub(1));
    let name_width = s
        .servers
        .iter()
        .map(|v| v.name.chars().count())
        .max()
        .unwrap_or(8)
        .clamp(4, 24);
    // Only the visible rows are built.
    let items: Vec<ListItem> = frames
        .iter()
        .skip(offset)
        .take(height.max(1))
        .map(|fr| {
            let bad = serde_json::from_str::<serde_json::Value>(&fr.text)
                .map(|v| v.get("jsonrpc").and_then(|j| j.as_str()) != Some("2.0"))
                .unwrap_or(!fr.truncated());
            let dir_style = match fr.dir {
                crate::mcp::framelog::Direction::Out => Role::Link.style(),
                crate::mcp::framelog::Direction::In => Role::Ok.style(),
            };
            let method = fr.method.as_deref().map(clean).unwrap_or_else(|| {
                if fr.id.is_some() {
                    "(response)".into()
                } else {
                    "(no method)".into()
                }
            });
            let id = fr
                .id
                .as_ref()
                .map(|i| format!(" #{}", clean(&i.to_string())))
                .unwrap_or_default();
            let latency = fr
                .latency
                .map(|d| format!(" {}", crate::text::fmt_duration(d)))
                .unwrap_or_default();
            let mut spans = vec![
                Span::styled(
                    format!("{:>9.3} ", fr.elapsed.as_secs_f64()),
                    Role::Muted.style(),
                ),
                Span::raw(format!("{:<name_width$} ", clean(&fr.server))),
                Span::styled(format!("{} ", fr.dir.arrow()), dir_style),
                Span::styled(
                    format!("{method}{id}"),
                    Style::default().add_modifier(Modifier::BOLD),
                ),
                Span::styled(
                    format!("  {}{latency}", crate::text::human_size(fr.size)),
                    Role::Muted.style(),
                ),
            ];
            if bad {
                spans.push(Span::styled("  malformed", Role::Alert.style()));
            }
            ListItem::new(Line::from(spans))
        })
        .collect();
    let mut state = ListState::default().with_selected(if frames.is_empty() {
        None
    } else {
        Some(sel - offset)
    });
    let scope = if s.log.only_server {
        s.selected_server()
            .map(|v| clean(&v.name))
            .unwrap_or_default()
    } else {
        "all servers".into()
    };
    let filter = if s.log.method.is_empty() && s.mode != Mode::LogFilter {
        String::new()
    } else {
        format!(" /{}", clean(&s.log.method))
    };
    let follow = if s.log.sel.is_none() {
        " · following"
    } else {
        ""
    };
    let title = format!("Protocol log · {scope} ({}){filter}{follow}", frames.len());
    let list = List::new(items)
        .block(block(title, !s.log.frame_focus))
        .highlight_style(Role::Selected.style());
    f.render_stateful_widget(list, list_area, &mut state);
    render_frame(s, frames.get(sel).map(|fr| &**fr), f, detail_area);
}

/// The selected frame, wrapped at the pane's width; it scrolls when it
/// does not fit (the moves, once Tab focused it).
fn render_frame(s: &State, fr: Option<&crate::mcp::framelog::Frame>, f: &mut Frame, area: Rect) {
    let width = area.width.saturating_sub(2) as usize;
    let height = area.height.saturating_sub(2) as usize;
    let focused = s.log.frame_focus;
    let Some(fr) = fr else {
        f.render_widget(
            Paragraph::new(Line::styled("No frames yet.", Role::Muted.style()))
                .block(block("Frame".into(), focused)),
            area,
        );
        return;
    };
    let p = crate::tui::app::frame_prepared(fr);
    let w = (width.clamp(1, u16::MAX as usize)) as u16;
    let total = p.screen_len(w);
    let last = total.saturating_sub(height.max(1));
    let top = s.log.frame_scroll.min(last);
    // A search paints its matches in the frame shown (whole lines are
    // searched: a match a wrap cuts in two is painted on both parts).
    let search = &s.log.frame_search;
    let mut found = search.clone();
    if search.active() {
        found.forget();
        found.run(&p, w, 0);
        found.current = search.current.min(found.hits.len().saturating_sub(1));
    }
    let lines: Vec<Line> = p.screen_lines_marked(w, top, height.max(1), found.marks());
    let rows_len = total;
    let key = |a: Action| s.keymap.key_label(a).unwrap_or_default();
    let found = search.title(&found);
    let title = if rows_len <= height {
        "Frame".to_string()
    } else if focused {
        format!(
            "Frame · rows {}–{} of {} · {}/{} scroll · {} list",
            top + 1,
            (top + height).min(rows_len),
            rows_len,
            key(Action::Up),
            key(Action::Down),
            key(Action::NextPane),
        )
    } else {
        format!(
            "Frame · rows {}–{} of {} · {} to scroll",
            top + 1,
            (top + height).min(rows_len),
            rows_len,
            key(Action::NextPane),
        )
    };
    let title = format!("{title}{found}");
    f.render_widget(Paragraph::new(lines).block(block(title, focused)), area);
}
