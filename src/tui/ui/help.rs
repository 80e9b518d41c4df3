//! The help overlay, generated from the keymap.

use crate::tui::theme::Role;
use ratatui::Frame;
use ratatui::layout::{Constraint, Layout, Rect};
use ratatui::style::{Modifier, Style};
use ratatui::text::{Line, Span};
use ratatui::widgets::{Block, Borders, Clear, Paragraph};

use crate::tui::app::State;

use super::*;

pub(super) fn render_help(s: &State, f: &mut Frame, area: Rect) {
    let mut lines = Vec::new();
    let help = s.keymap.help();
    // The key column as wide as its longest entry: room for the words.
    let kw = help
        .iter()
        .flat_map(|(_, rows)| rows.iter().map(|(k, _)| k.chars().count()))
        .max()
        .unwrap_or(0)
        .clamp(6, 14);
    for (group, rows) in help {
        lines.push(Line::styled(
            group.title(),
            Style::default().add_modifier(Modifier::BOLD),
        ));
        for (keys, help) in rows {
            lines.push(Line::from(vec![
                Span::styled(format!("  {keys:<kw$}  "), Role::Accent.style()),
                Span::raw(help),
            ]));
        }
    }
    // Two columns when one does not fit (80×24 and the like); when two do
    // not fit either, the help scrolls.
    let room = area.height.saturating_sub(2).max(1) as usize;
    let columns = if lines.len() > area.height.saturating_sub(4) as usize {
        2
    } else {
        1
    };
    let per_column = lines.len().div_ceil(columns).min(room);
    let shown = per_column * columns;
    let last = lines.len().saturating_sub(shown);
    let scroll = s.help_scroll.min(last);
    let width = if columns == 2 {
        area.width.saturating_sub(2)
    } else {
        70
    };
    let popup = centered(area, width, per_column as u16 + 2);
    f.render_widget(Clear, popup);
    let title = if last == 0 {
        "Keys (any key closes)".to_string()
    } else {
        let more = match (scroll > 0, scroll < last) {
            (true, true) => "↑↓ more",
            (false, _) => "↓ more",
            (true, false) => "↑ more",
        };
        format!("Keys ({more} · other keys close)")
    };
    let block = Block::default().borders(Borders::ALL).title(title);
    let inner = block.inner(popup);
    f.render_widget(block, popup);
    let parts =
        Layout::horizontal(vec![Constraint::Ratio(1, columns as u32); columns]).split(inner);
    let visible = &lines[scroll..(scroll + shown).min(lines.len())];
    for (i, chunk) in visible.chunks(per_column.max(1)).enumerate() {
        if let Some(part) = parts.get(i) {
            f.render_widget(Paragraph::new(chunk.to_vec()), *part);
        }
    }
}
