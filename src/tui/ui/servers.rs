//! The servers pane: each server's badge, name, version, tool count and latency.

use crate::tui::theme::Role;
use ratatui::Frame;
use ratatui::layout::Rect;
use ratatui::style::{Modifier, Style};
use ratatui::text::{Line, Span};
use ratatui::widgets::{List, ListItem, ListState};

use crate::mcp::manager::ServerStatus;
use crate::tui::app::{Pane, ServerView, State};

use super::*;

pub(super) fn badge(s: &State, v: &ServerView) -> Span<'static> {
    match &v.status {
        ServerStatus::Pending => Span::styled(
            SPINNER[s.spinner % SPINNER.len()].to_string(),
            Role::Warn.style(),
        ),
        ServerStatus::Connected => Span::styled("●", Role::Ok.style()),
        ServerStatus::Failed { .. } => Span::styled("✗", Role::Error.style()),
        ServerStatus::NeedsAuth { .. } => Span::styled("🔒", Role::Warn.style()),
        ServerStatus::Disabled => Span::styled("○", Role::Muted.style()),
        ServerStatus::Disconnected => Span::styled("◌", Role::Muted.style()),
    }
}

pub(super) fn render_servers(s: &State, f: &mut Frame, area: Rect) {
    let width = area.width.saturating_sub(2) as usize;
    let items: Vec<ListItem> = s
        .servers
        .iter()
        .map(|v| {
            // The version agreed while connected; otherwise the status (a
            // version from an old session would read as a live one).
            let era = match (&v.status, &v.negotiated) {
                (ServerStatus::Connected, Some(n)) => n.version.clone(),
                _ => v.status.label().to_string(),
            };
            let tools = if v.status == ServerStatus::Connected {
                format!(" {}t", v.lists.tools.len())
            } else {
                String::new()
            };
            // The last call's latency, else the last ping's (a server not
            // connected has none now).
            let latency = v
                .last_latency
                .or(v.ping)
                .filter(|_| v.status == ServerStatus::Connected)
                .map(|d| format!(" {}", crate::text::fmt_duration(d)))
                .unwrap_or_default();
            let insecure = v.http.as_ref().is_some_and(|h| h.insecure);
            // Offered `/` or the home directory as a root.
            let wide = s.wide_roots(v);
            // Tried from the registry: in this session, not in the config.
            let tried = s.registry.is_tried(&v.name);
            // What must be seen whole: the badge, the tool count and the
            // latency (and the insecure mark); then the name, cut with `…`
            // if it must; the version goes first when room is short.
            let fixed = 2
                + tools.chars().count()
                + latency.chars().count()
                + if insecure { 11 } else { 0 }
                + if wide { 7 } else { 0 }
                + if tried { 4 } else { 0 };
            let name = clean(&v.name);
            let name_w = name.chars().count();
            let era = format!(" {}", clean(&era));
            let era = if fixed + name_w + era.chars().count() <= width {
                era
            } else {
                String::new()
            };
            let name = fit_end(&name, width.saturating_sub(fixed).max(1));
            let mut spans = vec![
                badge(s, v),
                Span::raw(" "),
                Span::styled(name, Style::default().add_modifier(Modifier::BOLD)),
            ];
            // Before the rest, so a narrow pane still shows it.
            if insecure {
                spans.push(Span::raw(" "));
                spans.push(insecure_badge());
            }
            if tried {
                spans.push(Span::raw(" "));
                spans.push(Span::styled("try", Role::Warn.style()));
            }
            if wide {
                spans.push(Span::raw(" "));
                spans.push(Span::styled(
                    "⚠ root",
                    Role::Warn.style().add_modifier(Modifier::BOLD),
                ));
            }
            spans.push(Span::styled(
                format!("{era}{tools}{latency}"),
                Role::Muted.style(),
            ));
            ListItem::new(Line::from(spans))
        })
        .collect();
    let mut state = ListState::default().with_selected(Some(s.server_sel));
    let list = List::new(items)
        .block(block(
            format!(
                "Servers ({})",
                position(
                    s.server_sel,
                    s.servers.len(),
                    area.height.saturating_sub(2) as usize
                )
            ),
            s.focus == Pane::Servers,
        ))
        .highlight_style(Role::Selected.style());
    f.render_stateful_widget(list, area, &mut state);
}

/// TLS verification is off for this server.
pub(super) fn insecure_badge() -> Span<'static> {
    Span::styled(
        "⚠ insecure",
        Role::Warn.style().add_modifier(Modifier::BOLD),
    )
}
