//! The protocol log and the network view: keys, and following the newest.

use crate::tui::keymap::Action;

use super::media::copy;
use super::model::*;
use super::*;

pub(super) fn log_key(s: &mut State, action: Option<Action>, fx: &mut Vec<Effect>) -> bool {
    let Some(a) = action else { return false };
    let n = s.log_frames().len();
    let current = s.log.sel.unwrap_or(n.saturating_sub(1));
    let by = |d: isize| Some(step(current, d, n));
    s.log.sel = match a {
        Action::Back | Action::ProtocolLog | Action::Quit => {
            s.mode = Mode::Normal;
            return true;
        }
        Action::Network => {
            open_net(s);
            return true;
        }
        Action::Help => {
            s.mode = Mode::Help;
            return true;
        }
        Action::Filter => {
            s.mode = Mode::LogFilter;
            return true;
        }
        Action::Copy => {
            let frames = s.log_frames();
            let sel = s.log.sel.unwrap_or(frames.len().saturating_sub(1));
            if let Some(f) = frames.get(sel) {
                let text = f.text.to_string();
                copy(s, text, fx);
            }
            return true;
        }
        Action::AllTools => {
            s.log.only_server = !s.log.only_server;
            None
        }
        Action::Up => by(-1),
        Action::Down => by(1),
        Action::PageUp => by(-10),
        Action::PageDown => by(10),
        Action::Home => Some(0),
        // End follows the newest frames again.
        Action::End => None,
        _ => return false,
    };
    if s.log.sel == Some(n.saturating_sub(1)) && matches!(a, Action::Down | Action::PageDown) {
        s.log.sel = None;
    }
    true
}

/// Open the network view, following the newest exchange.
pub(super) fn open_net(s: &mut State) {
    s.mode = Mode::Net;
    s.net.sel = None;
    s.net.seen = None;
    s.net.detail_focus = false;
    s.net.detail_scroll = 0;
    net_poll(s);
}

/// Look at the net log: true when what the view shows has changed since
/// the last look. Cheap when nothing is open and nothing began.
pub(super) fn net_poll(s: &mut State) -> bool {
    let Some((next, version)) = s
        .frames
        .as_ref()
        .map(|f| (f.net().next_seq(), f.net().version()))
    else {
        return false;
    };
    if s.net.seen.is_some_and(|(_, v)| v == version) {
        return false;
    }
    if s.net.sel.is_none() && s.net.seen.is_some_and(|(n, _)| n != next) {
        // Following: a new exchange is shown from its top.
        s.net.detail_scroll = 0;
    }
    s.net.open = s.net_exchanges().iter().any(|e| !e.done());
    s.net.seen = Some((next, version));
    true
}

pub(super) fn net_key(s: &mut State, action: Option<Action>, fx: &mut Vec<Effect>) -> bool {
    let Some(a) = action else { return false };
    let list = s.net_exchanges();
    let n = list.len();
    let current = s.net_index(&list).unwrap_or(0);
    if s.net.detail_focus {
        // The details are a few dozen lines at most: a rough bound will do.
        let rows = list.get(current).map_or(0, |e| {
            8 + e.request_headers.len() + e.response_headers.len()
        });
        let scroll = &mut s.net.detail_scroll;
        match a {
            Action::Up => *scroll = step(*scroll, -1, rows),
            Action::Down => *scroll = step(*scroll, 1, rows),
            Action::PageUp => *scroll = step(*scroll, -10, rows),
            Action::PageDown => *scroll = step(*scroll, 10, rows),
            Action::Home => *scroll = 0,
            Action::End => *scroll = rows.saturating_sub(1),
            _ => {}
        }
        if matches!(
            a,
            Action::Up
                | Action::Down
                | Action::PageUp
                | Action::PageDown
                | Action::Home
                | Action::End
        ) {
            return true;
        }
    }
    let to = |i: usize| list.get(i).map(|e| e.seq);
    let by = |d: isize| to(step(current, d, n));
    s.net.sel = match a {
        Action::Back | Action::Network | Action::Quit => {
            s.mode = Mode::Normal;
            return true;
        }
        Action::ProtocolLog => {
            s.mode = Mode::Log;
            s.log.seen = s.frames.as_ref().and_then(|f| f.last_seq());
            return true;
        }
        Action::Help => {
            s.mode = Mode::Help;
            return true;
        }
        Action::Copy => {
            match list.get(current) {
                Some(e) => copy(s, e.text(), fx),
                None => s.status = Some("no exchange to copy".into()),
            }
            return true;
        }
        Action::AllTools => {
            s.net.only_server = !s.net.only_server;
            s.net.sel = None;
            s.net.detail_scroll = 0;
            net_poll(s);
            return true;
        }
        Action::NextPane | Action::PrevPane | Action::Left | Action::Right => {
            s.net.detail_focus = match a {
                Action::Left => false,
                Action::Right => true,
                _ => !s.net.detail_focus,
            };
            return true;
        }
        Action::Up => by(-1),
        Action::Down => by(1),
        Action::PageUp => by(-10),
        Action::PageDown => by(10),
        Action::Home => to(0),
        // End follows the newest exchanges again.
        Action::End => None,
        _ => return false,
    };
    // Moving down past the newest follows again.
    if n > 0 && s.net.sel == to(n - 1) && matches!(a, Action::Down | Action::PageDown) {
        s.net.sel = None;
    }
    s.net.detail_scroll = 0;
    true
}
