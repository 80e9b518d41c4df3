//! The mouse: a click selects where it lands and focuses its pane, the
//! wheel scrolls what is under the pointer; in the panes and in every view
//! (resources, prompts, protocol log, network, login).

use crossterm::event::{MouseButton, MouseEvent, MouseEventKind};
use ratatui::layout::{Position, Rect};

use super::keys::move_by;
use super::model::*;
use super::views::{inside, log_areas, log_key, net_areas, net_key, scroll_frame};
use super::*;
use crate::tui::keymap::Action;

pub(super) fn on_mouse(s: &mut State, m: MouseEvent, fx: &mut Vec<Effect>) -> bool {
    if s.asks.is_open() {
        return false;
    }
    match s.mode {
        Mode::Normal => {}
        Mode::Resources | Mode::Prompts => {
            let Some(kind) = crate::tui::browse::Kind::of_mode(s.mode) else {
                return false;
            };
            return s.with_browse(kind, fx, |b, cx| b.mouse(m, cx));
        }
        Mode::Log => return log_mouse(s, m, fx),
        Mode::Net => return net_mouse(s, m, fx),
        Mode::Login => return login_mouse(s, m, fx),
        _ => return false,
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
            if let Some((_, p)) = pane
                && s.focus != p
            {
                s.focus = p;
                s.focused();
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
            // The detail follows: a click on the servers pane shows the
            // server's, on a tool the tool's.
            s.focused();
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

/// The wheel's direction as a move, if it is the wheel.
fn wheel(m: &MouseEvent) -> Option<Action> {
    match m.kind {
        MouseEventKind::ScrollDown => Some(Action::Down),
        MouseEventKind::ScrollUp => Some(Action::Up),
        _ => None,
    }
}

fn left_click(m: &MouseEvent) -> bool {
    m.kind == MouseEventKind::Down(MouseButton::Left)
}

/// The row of `area`'s inside that `m` is on.
fn inner_row(m: &MouseEvent, area: Rect) -> Option<usize> {
    let inner = inside(area);
    (inner.contains(Position::new(m.column, m.row))).then(|| (m.row - inner.y) as usize)
}

/// The protocol log: a click on a frame selects it, on the frame pane
/// focuses it; the wheel moves the selection or scrolls the frame.
fn log_mouse(s: &mut State, m: MouseEvent, fx: &mut Vec<Effect>) -> bool {
    let [list, frame] = log_areas(s.areas.main, s.log.zoom);
    let at = Position::new(m.column, m.row);
    if let Some(a) = wheel(&m) {
        if frame.contains(at) {
            s.log.frame_focus = true;
            scroll_frame(s, if a == Action::Down { 3 } else { -3 });
            return true;
        }
        if !list.contains(at) {
            return false;
        }
        s.log.frame_focus = false;
        for _ in 0..3 {
            log_key(s, Some(a), fx);
        }
        return true;
    }
    if !left_click(&m) {
        return false;
    }
    if frame.contains(at) {
        s.log.frame_focus = true;
        return true;
    }
    if !list.contains(at) {
        return false;
    }
    s.log.frame_focus = false;
    if let Some(row) = inner_row(&m, list) {
        // Laid out as the renderer does: the selection on the last row.
        let n = s.log_frames().len();
        let height = inside(list).height as usize;
        let sel = s
            .log
            .sel
            .unwrap_or(n.saturating_sub(1))
            .min(n.saturating_sub(1));
        let target = sel.saturating_sub(height.saturating_sub(1)) + row;
        if target < n && Some(target) != s.log.sel {
            s.log.sel = Some(target);
            s.log.frame_scroll = 0;
        }
    }
    true
}

/// The network view: a click on an exchange selects it, on the details
/// focuses them; the wheel moves the selection or scrolls the details.
fn net_mouse(s: &mut State, m: MouseEvent, fx: &mut Vec<Effect>) -> bool {
    let list = s.net_exchanges();
    if list.is_empty() {
        return false;
    }
    let (list_area, rows, detail) = net_areas(s.areas.main, list.len());
    let at = Position::new(m.column, m.row);
    let on_list = list_area.contains(at);
    let on_detail = detail.contains(at);
    if let Some(a) = wheel(&m) {
        if !on_list && !on_detail {
            return false;
        }
        s.net.detail_focus = on_detail;
        for _ in 0..3 {
            net_key(s, Some(a), fx);
        }
        return true;
    }
    if !left_click(&m) {
        return false;
    }
    if on_detail {
        s.net.detail_focus = true;
        return true;
    }
    if !on_list {
        return false;
    }
    s.net.detail_focus = false;
    if rows.contains(at) {
        let sel = s.net_index(&list).unwrap_or(0);
        let height = rows.height as usize;
        let target = crate::tui::layout::list_offset(sel, height) + (m.row - rows.y) as usize;
        if let Some(e) = list.get(target)
            && target != sel
        {
            s.net.sel = Some(e.seq);
            s.net.detail_scroll = 0;
        }
    }
    true
}

/// The login screen: the wheel scrolls the discovery trace.
fn login_mouse(s: &mut State, m: MouseEvent, fx: &mut Vec<Effect>) -> bool {
    let Some(a) = wheel(&m) else { return false };
    for _ in 0..3 {
        super::login::login_key(s, Some(a), fx);
    }
    true
}
