//! The screen's geometry: where each pane goes for a terminal size, and
//! which row of a list is on top. Shared by the renderer (which lays out
//! each frame) and by `update` (which keeps the areas of the current size in
//! the state, to map a click to what the eye sees there).

use ratatui::layout::{Constraint, Layout, Rect};

/// Where each pane goes on a screen of this size (shared with the mouse
/// handling, so a click lands where the eye sees it).
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub struct Areas {
    pub main: Rect,
    pub status: Rect,
    pub servers: Rect,
    pub tools: Rect,
    pub detail: Rect,
    pub result: Rect,
}

pub fn layout(area: Rect, servers: usize) -> Areas {
    let [main, status] = Layout::vertical([Constraint::Min(3), Constraint::Length(1)]).areas(area);
    let left_width = (main.width / 3).clamp(24, 48);
    let [left, right] =
        Layout::horizontal([Constraint::Length(left_width), Constraint::Min(20)]).areas(main);
    let servers_height = (servers as u16 + 2).clamp(3, (left.height / 2).max(3));
    let [servers, tools] =
        Layout::vertical([Constraint::Length(servers_height), Constraint::Min(3)]).areas(left);
    let [detail, result] =
        Layout::vertical([Constraint::Percentage(55), Constraint::Percentage(45)]).areas(right);
    Areas {
        main,
        status,
        servers,
        tools,
        detail,
        result,
    }
}

/// The panes with `pane` zoomed: it takes the whole of `main`, the others
/// no room (they are not drawn).
pub fn zoomed(a: Areas, pane: crate::tui::app::Pane) -> Areas {
    use crate::tui::app::Pane;
    let none = Rect::default();
    let mut z = Areas {
        servers: none,
        tools: none,
        detail: none,
        result: none,
        ..a
    };
    match pane {
        Pane::Servers => z.servers = a.main,
        Pane::Tools => z.tools = a.main,
        Pane::Detail => z.detail = a.main,
        Pane::Result => z.result = a.main,
    }
    z
}

/// The first row a list shows, so that `sel` is visible in `height` rows.
pub fn list_offset(sel: usize, height: usize) -> usize {
    sel.saturating_sub(height.saturating_sub(1))
}
