//! The protocol log, full screen: every raw frame, filterable.

use crate::tui::theme::Role;
use ratatui::Frame;
use ratatui::layout::{Constraint, Layout, Rect};
use ratatui::style::{Modifier, Style};
use ratatui::text::{Line, Span};
use ratatui::widgets::{List, ListItem, ListState, Paragraph};

use crate::sanitize;
use crate::tui::app::{Mode, State};

use super::*;

pub(super) fn render_log(s: &State, f: &mut Frame, area: Rect) {
    let frames = s.log_frames();
    let [list_area, detail_area] =
        Layout::vertical([Constraint::Percentage(60), Constraint::Percentage(40)]).areas(area);
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
                .map(|d| format!(" {:.1}ms", d.as_secs_f64() * 1e3))
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
        .block(block(title, true))
        .highlight_style(Role::Selected.style());
    f.render_stateful_widget(list, list_area, &mut state);

    let detail: Vec<Line> = match frames.get(sel) {
        None => vec![Line::styled("No frames yet.", Role::Muted.style())],
        Some(fr) => {
            let pretty = serde_json::from_str::<serde_json::Value>(&fr.text)
                .ok()
                .and_then(|v| serde_json::to_string_pretty(&v).ok())
                .unwrap_or_else(|| fr.text.to_string());
            let mut lines: Vec<Line> = sanitize::visible(&pretty)
                .lines()
                .take(detail_area.height.saturating_sub(2) as usize + 1)
                .map(|l| Line::raw(l.to_string()))
                .collect();
            if fr.truncated() {
                lines.insert(
                    0,
                    Line::styled(
                        format!("(cut: {} of {} bytes kept)", fr.text.len(), fr.size),
                        Role::Warn.style(),
                    ),
                );
            }
            lines
        }
    };
    f.render_widget(
        Paragraph::new(detail).block(block("Frame".into(), false)),
        detail_area,
    );
}
