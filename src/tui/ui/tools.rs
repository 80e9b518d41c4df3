//! The tools pane: the selected server's tools (or every server's), filtered.

use crate::tui::theme::Role;
use ratatui::Frame;
use ratatui::layout::Rect;
use ratatui::style::{Modifier, Style};
use ratatui::text::{Line, Span};
use ratatui::widgets::{List, ListItem, ListState};

use crate::trust::Severity;
use crate::trust::pin::ChangeKind;
use crate::tui::app::{Mode, Pane, State};

use super::*;

pub(super) fn render_tools(s: &State, f: &mut Frame, area: Rect) {
    let height = area.height.saturating_sub(2) as usize;
    let width = area.width.saturating_sub(2) as usize;
    // Only the visible window is built: fast with 10 000 tools.
    let offset = list_offset(s.tool_sel, height);
    let items: Vec<ListItem> = s
        .visible
        .iter()
        .skip(offset)
        .take(height.max(1))
        .filter_map(|(si, ti)| {
            let v = s.servers.get(*si)?;
            let t = v.lists.tools.get(*ti)?;
            let denied = v.denied(&t.name);
            // Tool trust: a high finding is a risk, a medium one a lint;
            // a definition not as pinned is changed (or new since).
            let severity = v.trust.tool_severity(&t.name);
            let change = v.trust.tool_change(&t.name).map(|c| c.what);
            // The badges first: they must survive a narrow pane; the name
            // gives way (with `…`), then the title.
            let badges: Vec<(&str, ratatui::style::Color)> = [
                (
                    severity == Some(Severity::High),
                    " risk",
                    Role::Error.color(),
                ),
                (
                    severity == Some(Severity::Medium),
                    " lint",
                    Role::Warn.color(),
                ),
                (
                    change == Some(ChangeKind::Changed),
                    " changed",
                    Role::Warn.color(),
                ),
                (
                    change == Some(ChangeKind::Added),
                    " new",
                    Role::Warn.color(),
                ),
                (t.read_only(), " ro", Role::Ok.color()),
                (t.destructive(), " destructive", Role::Error.color()),
                (t.open_world(), " open", Role::Link.color()),
                (
                    crate::mcp::apps::tool_ui(&t.raw).is_some(),
                    " app",
                    Role::Accent.color(),
                ),
                (denied, " denied", Role::Error.color()),
            ]
            .into_iter()
            .filter(|(on, ..)| *on)
            .map(|(_, label, color)| (label, color))
            .collect();
            let badges_w: usize = badges.iter().map(|(l, _)| l.chars().count()).sum();
            let prefix = if s.all_tools {
                format!("{}__", clean(&v.name))
            } else {
                String::new()
            };
            let name = clean(&t.name);
            let room = width.saturating_sub(badges_w);
            let name_style = if denied {
                Role::Muted.style().add_modifier(Modifier::CROSSED_OUT)
            } else {
                Style::default()
            };
            let mut spans = Vec::new();
            let (pw, nw) = (prefix.chars().count(), name.chars().count());
            if pw + nw <= room {
                spans.push(Span::styled(prefix, Role::Muted.style()));
                spans.push(Span::styled(name, name_style));
                if let Some(title) = t.title.as_deref().filter(|x| !x.is_empty() && *x != t.name)
                    && room > pw + nw + 4
                {
                    let title = fit_end(&format!(" {}", clean(title)), room - pw - nw);
                    spans.push(Span::styled(title, Role::Muted.style()));
                }
            } else if pw > 0 {
                // Both cut: the server keeps a part of the room (a list of
                // every server's tools must say whose each is), the
                // tool's name the rest.
                let server = clean(&v.name);
                let keep = (room / 3).max(4).min(pw).min(room.saturating_sub(3));
                let server = fit_end(&server, keep.saturating_sub(2).max(1));
                let sw = server.chars().count() + 2;
                spans.push(Span::styled(format!("{server}__"), Role::Muted.style()));
                spans.push(Span::styled(
                    fit_end(&name, room.saturating_sub(sw).max(1)),
                    name_style,
                ));
            } else {
                spans.push(Span::styled(fit_end(&name, room.max(1)), name_style));
            }
            for (label, color) in badges {
                spans.push(Span::styled(label, Style::default().fg(color)));
            }
            Some(ListItem::new(Line::from(spans)))
        })
        .collect();
    let mut state = ListState::default().with_selected(Some(s.tool_sel - offset.min(s.tool_sel)));
    let scope = if s.all_tools {
        "all servers".to_string()
    } else {
        s.selected_server()
            .map(|v| clean(&v.name))
            .unwrap_or_default()
    };
    let filter = if s.filter.is_empty() && s.mode != Mode::Filter {
        String::new()
    } else {
        format!(" /{}", clean(&s.filter))
    };
    // More than fit: where the selection is (`12/340`).
    let count = position(s.tool_sel, s.visible.len(), height);
    // The count must be seen: the scope's name gives way (the filter,
    // after them, is cut at the pane's edge).
    let fixed = format!("Tools ·  ({count})").chars().count();
    let scope = fit_end(&scope, width.saturating_sub(fixed).max(1));
    let title = if scope.is_empty() {
        format!("Tools ({count}){filter}")
    } else {
        format!("Tools · {scope} ({count}){filter}")
    };
    let list = List::new(items)
        .block(block(title, s.focus == Pane::Tools))
        .highlight_style(Role::Selected.style());
    f.render_stateful_widget(list, area, &mut state);
}
