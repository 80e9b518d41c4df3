//! The protocol log and the network view: keys, following the newest, and
//! their geometry (shared with the renderer, so a click lands where the
//! eye sees it).

use ratatui::layout::{Constraint, Layout, Rect};

use crate::mcp::framelog::Frame;
use crate::tui::keymap::Action;

use super::media::copy;
use super::model::*;
use super::*;

/// The protocol log's two panes in `main`: the frames, and the selected
/// frame.
pub fn log_areas(main: Rect, zoom: bool) -> [Rect; 2] {
    if zoom {
        // The frame alone (`z`); the list keeps its keys.
        return [Rect::default(), main];
    }
    Layout::vertical([Constraint::Percentage(60), Constraint::Percentage(40)]).areas(main)
}

/// The network view's list (its header row, its rows) and the details of
/// the selected exchange, in `main`, with `rows` exchanges.
pub fn net_areas(main: Rect, rows: usize) -> (Rect, Rect, Rect) {
    // A short list leaves the rest to the details; a long one gets half.
    let list_height =
        (rows.min(u16::MAX as usize / 2) as u16 + 3).clamp(4, (main.height / 2).max(4));
    let [list, detail] =
        Layout::vertical([Constraint::Length(list_height), Constraint::Min(0)]).areas(main);
    let inner = inside(list);
    let [_, rows_area] = Layout::vertical([Constraint::Length(1), Constraint::Min(0)]).areas(inner);
    (list, rows_area, detail)
}

/// A bordered pane's inside.
pub(super) fn inside(r: Rect) -> Rect {
    Rect {
        x: r.x.saturating_add(1),
        y: r.y.saturating_add(1),
        width: r.width.saturating_sub(2),
        height: r.height.saturating_sub(2),
    }
}

/// Frames larger than this are shown as sent, not pretty-printed.
const PRETTY_LIMIT: usize = 2 * 1024 * 1024;

/// A frame as the frame pane shows it: pretty JSON (as sent when it does
/// not parse or is very large), sanitized; a cut frame starts with a
/// note. Wrapped at the pane's width like a result (so a search finds a
/// match that a wrap cuts in two).
pub fn frame_prepared(frame: &Frame) -> crate::tui::result::Prepared {
    let pretty = (frame.text.len() <= PRETTY_LIMIT)
        .then(|| serde_json::from_str::<serde_json::Value>(&frame.text).ok())
        .flatten()
        .and_then(|v| serde_json::to_string_pretty(&v).ok())
        .unwrap_or_else(|| frame.text.to_string());
    let note = frame
        .truncated()
        .then(|| format!("(cut: {} of {} bytes kept)", frame.text.len(), frame.size));
    crate::tui::result::Prepared::plain(note, &pretty)
}

/// The frame's screen rows at `width` columns, as the pane shows them.
pub fn frame_lines(frame: &Frame, width: usize) -> Vec<String> {
    let p = frame_prepared(frame);
    let width = width.clamp(1, u16::MAX as usize) as u16;
    let n = p.screen_len(width);
    p.screen_lines(width, 0, n)
        .iter()
        .map(crate::tui::result::line_text)
        .collect()
}

/// The frame pane of the protocol log at the current size: the selected
/// frame's rows, and how many the pane shows.
pub(super) fn frame_pane(s: &State) -> (crate::tui::result::Prepared, u16, usize) {
    let frames = s.log_frames();
    let sel = s
        .log
        .sel
        .unwrap_or(frames.len().saturating_sub(1))
        .min(frames.len().saturating_sub(1));
    let [_, pane] = log_areas(s.areas.main, s.log.zoom);
    let inner = inside(pane);
    let p = frames
        .get(sel)
        .map(|f| frame_prepared(f))
        .unwrap_or_default();
    (p, inner.width.max(1), inner.height as usize)
}

/// Scroll the frame pane by `by` rows (as far as its last page).
pub(super) fn scroll_frame(s: &mut State, by: isize) -> bool {
    let (p, width, height) = frame_pane(s);
    let last = p.screen_len(width).saturating_sub(height.max(1));
    let new = (s.log.frame_scroll.min(last) as isize)
        .saturating_add(by)
        .clamp(0, last as isize) as usize;
    let changed = new != s.log.frame_scroll;
    s.log.frame_scroll = new;
    changed
}

pub(super) fn log_key(s: &mut State, action: Option<Action>, fx: &mut Vec<Effect>) -> bool {
    let Some(a) = action else { return false };
    if s.log.frame_focus {
        let by = match a {
            Action::Up => Some(-1),
            Action::Down => Some(1),
            Action::PageUp => Some(-10),
            Action::PageDown => Some(10),
            Action::Home => Some(isize::MIN / 2),
            Action::End => Some(isize::MAX / 2),
            _ => None,
        };
        if let Some(by) = by {
            scroll_frame(s, by);
            return true;
        }
    }
    if a == Action::Zoom {
        s.log.zoom = !s.log.zoom;
        return true;
    }
    let n = s.log_frames().len();
    let current = s.log.sel.unwrap_or(n.saturating_sub(1));
    let by = |d: isize| Some(step(current, d, n));
    let before = s.log.sel;
    s.log.sel = match a {
        Action::NextPane | Action::PrevPane | Action::Left | Action::Right => {
            s.log.frame_focus = match a {
                Action::Left => false,
                Action::Right => true,
                _ => !s.log.frame_focus,
            };
            return true;
        }
        Action::Back | Action::ProtocolLog | Action::Quit => {
            // Back to the serve attached to, if any.
            s.mode = if s.attached.is_some() {
                Mode::Attached
            } else {
                Mode::Normal
            };
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
        Action::Save => {
            fx.push(Effect::SaveLog);
            return true;
        }
        Action::Open => {
            frame_result(s);
            return true;
        }
        Action::Record => {
            fx.push(Effect::Record);
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
    if s.log.sel != before || a == Action::AllTools {
        // Another frame: from its top.
        s.log.frame_scroll = 0;
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

/// Enter on a `tools/call` frame (the request or its response): its
/// result in the result view (a recording opened with `mcpdeck open`, or
/// a call made elsewhere).
fn frame_result(s: &mut State) {
    use crate::mcp::framelog::Direction;
    use serde_json::Value;
    let frames = s.log_frames();
    let sel = s.log.sel.unwrap_or(frames.len().saturating_sub(1));
    let Some(f) = frames.get(sel) else { return };
    if f.method.as_deref() != Some("tools/call") || f.id.is_none() {
        s.status = Some("Enter shows the result of a tools/call frame".into());
        return;
    }
    // The request and the response of this call (same server and id).
    let pair = |dir: Direction| {
        frames
            .iter()
            .find(|g| g.server == f.server && g.id == f.id && g.dir == dir)
            .and_then(|g| {
                serde_json::from_str::<Value>(&g.text)
                    .ok()
                    .map(|v| (g.clone(), v))
            })
    };
    let args = pair(Direction::Out)
        .and_then(|(_, v)| v.pointer("/params/arguments").map(Value::to_string));
    let tool = pair(Direction::Out)
        .and_then(|(_, v)| {
            v.pointer("/params/name")
                .and_then(Value::as_str)
                .map(str::to_string)
        })
        .unwrap_or_else(|| "?".into());
    let Some((response, v)) = pair(Direction::In) else {
        s.status = Some(format!("no response to this {tool} call in the log"));
        return;
    };
    let Some(result) = v.get("result").cloned() else {
        s.status = Some(format!(
            "{tool} failed: {}",
            v.get("error").map(Value::to_string).unwrap_or_default()
        ));
        return;
    };
    let r = crate::mcp::types::CallResult::parse(result, &mut Vec::new());
    let result = Ok(r);
    show_outcome(
        s,
        f.server.to_string(),
        tool,
        result,
        response.latency.unwrap_or_default(),
        args,
    );
}

/// Show a result that was not just made by a call here (a call in the
/// log, one kept in the history): in the result pane, which takes the
/// focus.
pub(super) fn show_outcome(
    s: &mut State,
    server: String,
    tool: String,
    result: Result<crate::mcp::types::CallResult, crate::mcp::manager::CallError>,
    elapsed: std::time::Duration,
    args: Option<String>,
) {
    let lines = crate::tui::result::lines(&result, None);
    let tag = s.next_tag();
    super::calls::show_new(
        s,
        Outcome {
            tag,
            scroll: 0,
            ended: 0,
            args,
            server,
            tool,
            result,
            elapsed,
            output_schema: None,
            lines,
            folding: None,
            cursor: 0,
        },
    );
    s.mode = Mode::Normal;
    s.focus = Pane::Result;
    s.relayout();
    super::find::search_again(s);
}
