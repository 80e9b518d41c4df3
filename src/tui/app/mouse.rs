//! The mouse: a click selects where it lands, the wheel scrolls.

use crossterm::event::{MouseEvent, MouseEventKind};

use super::keys::move_by;
use super::model::*;
use super::*;

pub(super) fn on_mouse(s: &mut State, m: MouseEvent) -> bool {
    use ratatui::layout::Position;
    if s.mode != Mode::Normal || s.asks.is_open() {
        return false;
    }
    let a = s.areas;
    let at = Position::new(m.column, m.row);
    let pane = [
        (a.servers, Pane::Servers),
        (a.tools, Pane::Tools),
        (a.detail, Pane::Detail),
        (a.result, Pane::Result),
    ]
    .into_iter()
    .find(|(r, _)| r.contains(at));
    match m.kind {
        MouseEventKind::ScrollDown | MouseEventKind::ScrollUp => {
            if let Some((_, p)) = pane {
                s.focus = p;
            }
            move_by(
                s,
                if m.kind == MouseEventKind::ScrollDown {
                    3
                } else {
                    -3
                },
            )
        }
        MouseEventKind::Down(crossterm::event::MouseButton::Left) => {
            let Some((rect, p)) = pane else { return false };
            s.focus = p;
            // The row under the pointer, inside the border.
            let row = m.row.saturating_sub(rect.y + 1) as usize;
            let height = rect.height.saturating_sub(2) as usize;
            if m.row > rect.y && row < height {
                match p {
                    Pane::Servers if !s.servers.is_empty() => {
                        let target = crate::tui::layout::list_offset(s.server_sel, height) + row;
                        if target < s.servers.len() && target != s.server_sel {
                            let by = target as isize - s.server_sel as isize;
                            move_by(s, by);
                        }
                    }
                    Pane::Tools if !s.visible.is_empty() => {
                        let target = crate::tui::layout::list_offset(s.tool_sel, height) + row;
                        if target < s.visible.len() {
                            s.tool_sel = target;
                            s.detail_scroll = 0;
                        }
                    }
                    _ => {}
                }
            }
            true
        }
        _ => false,
    }
}
