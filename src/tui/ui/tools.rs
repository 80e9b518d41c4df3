//! The tools pane: the selected server's tools (or every server's), filtered.

use crate::tui::theme::Role;
use ratatui::Frame;
use ratatui::layout::Rect;
use ratatui::style::{Modifier, Style};
use ratatui::text::{Line, Span};
use ratatui::widgets::{List, ListItem, ListState};

use crate::tui::app::{Mode, Pane, State};

use super::*;

pub(super) fn render_tools(s: &State, f: &mut Frame, area: Rect) {
    let height = area.height.saturating_sub(2) as usize;
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
            let mut spans = Vec::new();
            if s.all_tools {
                spans.push(Span::styled(
                    format!("{}__", clean(&v.name)),
                    Role::Muted.style(),
                ));
            }
            let denied = v.denied(&t.name);
            let name_style = if denied {
                Role::Muted.style().add_modifier(Modifier::CROSSED_OUT)
            } else {
                Style::default()
            };
            spans.push(Span::styled(clean(&t.name), name_style));
            if let Some(title) = t.title.as_deref().filter(|x| !x.is_empty() && *x != t.name) {
                spans.push(Span::styled(
                    format!(" {}", clean(title)),
                    Role::Muted.style(),
                ));
            }
            for (on, label, color) in [
                (t.read_only(), " ro", Role::Ok.color()),
                (t.destructive(), " destructive", Role::Error.color()),
                (t.open_world(), " open", Role::Link.color()),
                (denied, " denied", Role::Error.color()),
            ] {
                if on {
                    spans.push(Span::styled(label, Style::default().fg(color)));
                }
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
    let title = format!("Tools · {scope} ({}){filter}", s.visible.len());
    let list = List::new(items)
        .block(block(title, s.focus == Pane::Tools))
        .highlight_style(Role::Selected.style());
    f.render_stateful_widget(list, area, &mut state);
}
