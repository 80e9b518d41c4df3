//! Searching a pane's text: the result, the detail and, in the protocol
//! log, the selected frame. `/` types a search there (each letter searches
//! again and brings the first match at or below the view into it), Enter
//! keeps it, `n` and `N` go to the next and previous match, Esc drops it.

use crossterm::event::KeyEvent;

use crate::tui::keymap::Action;
use crate::tui::result::Search;

use super::keys::{edit_line, normal_action};
use super::views::{frame_pane, log_key};
use super::*;

/// The panes (and the log's frame) that can be searched.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Target {
    Result,
    Detail,
    Frame,
}

fn search_of(s: &mut State, t: Target) -> &mut Search {
    match t {
        Target::Result => &mut s.result_search,
        Target::Detail => &mut s.detail_search,
        Target::Frame => &mut s.log.frame_search,
    }
}

/// A key while the result or the detail has the focus (in the panes).
pub(super) fn pane_key(s: &mut State, k: KeyEvent, fx: &mut Vec<Effect>) -> bool {
    let t = if s.focus == Pane::Result {
        Target::Result
    } else {
        Target::Detail
    };
    if search_of(s, t).typing {
        return typing_key(s, t, k);
    }
    match s.keymap.result_action(&k) {
        Some(a @ (Action::NextMatch | Action::PrevMatch | Action::Filter)) => {
            search_action(s, t, a)
        }
        // Esc takes the search away first; then it does what it does
        // elsewhere (cancel the call, go back).
        // (On the result, a call in flight is cancelled first: the pane
        // is that call's.)
        Some(Action::Back)
            if search_of(s, t).active() && (t == Target::Detail || s.inflight().is_none()) =>
        {
            search_of(s, t).clear();
            true
        }
        // JSON folds on the result; elsewhere ← → move between panes.
        Some(a @ (Action::Left | Action::Right | Action::FoldAll | Action::UnfoldAll))
            if t == Target::Result =>
        {
            super::fold::key(s, a) || normal_action(s, a, fx)
        }
        Some(a) => normal_action(s, a, fx),
        None => false,
    }
}

/// A key in the protocol log while its frame has the focus.
pub(super) fn frame_key(s: &mut State, k: KeyEvent, fx: &mut Vec<Effect>) -> bool {
    if s.log.frame_search.typing {
        return typing_key(s, Target::Frame, k);
    }
    let action = s.keymap.result_action(&k);
    match action {
        Some(a @ (Action::NextMatch | Action::PrevMatch | Action::Filter)) => {
            search_action(s, Target::Frame, a)
        }
        Some(Action::Back) if s.log.frame_search.active() => {
            s.log.frame_search.clear();
            true
        }
        _ => log_key(s, action, fx),
    }
}

fn search_action(s: &mut State, t: Target, a: Action) -> bool {
    if a == Action::Filter {
        if t == Target::Result && (s.inflight().is_some() || s.outcome.is_none()) {
            s.status = Some("nothing to search yet: no result".into());
            return true;
        }
        // A new `/` starts a new search (as in less and vim).
        let search = search_of(s, t);
        search.clear();
        search.typing = true;
        return true;
    }
    // The detail and the frame change under a search (a server's stderr
    // grows, a followed log shows a newer frame): look again first,
    // keeping the place.
    if t != Target::Result && !search_of(s, t).query.is_empty() {
        let current = search_of(s, t).current;
        if t == Target::Detail {
            let rows: Vec<String> = crate::tui::ui::detail_lines(s)
                .iter()
                .map(crate::tui::result::line_text)
                .collect();
            let search = search_of(s, t);
            search.run_rows(rows.iter().map(String::as_str), 0);
        } else {
            let (p, width, _) = frame_pane(s);
            let search = search_of(s, t);
            search.forget();
            search.run(&p, width, 0);
        }
        let search = search_of(s, t);
        search.current = current.min(search.hits.len().saturating_sub(1));
    }
    let search = search_of(s, t);
    if search.query.is_empty() {
        let key = s.keymap.label(Action::Filter);
        s.status = Some(format!("no search: {key} searches this pane"));
    } else if search.hits.is_empty() {
        let note = no_match(&search.query);
        s.status = Some(note);
    } else {
        search.step(a == Action::NextMatch);
        reveal(s, t);
    }
    true
}

/// Keys while the search is typed: each edit searches again (the view
/// follows the first match at or below it); Enter keeps the search for
/// `n` and `N`, Esc drops it, the arrows go between matches.
fn typing_key(s: &mut State, t: Target, k: KeyEvent) -> bool {
    if edit_line(&mut search_of(s, t).query, &k) {
        search(s, t);
        return true;
    }
    match s.keymap.action(&k) {
        Some(Action::Back) => search_of(s, t).clear(),
        Some(Action::Open) => {
            let search = search_of(s, t);
            search.typing = false;
            if search.query.is_empty() {
                search.clear();
            } else if search.hits.is_empty() {
                let note = no_match(&search.query);
                s.status = Some(note);
            }
        }
        Some(a @ (Action::Down | Action::Up)) => {
            search_of(s, t).step(a == Action::Down);
            reveal(s, t);
        }
        _ => return false,
    }
    true
}

fn no_match(query: &str) -> String {
    format!(
        "no match for “{}” in this pane",
        crate::sanitize::one_line(query)
    )
}

/// Search the pane for the query as it stands.
fn search(s: &mut State, t: Target) {
    match t {
        Target::Result => {
            let width = s.result_width();
            let from = s.result_scroll;
            let Some(o) = s.outcome.as_ref().filter(|_| s.inflight().is_none()) else {
                s.result_search.hits.clear();
                return;
            };
            s.result_search.run(&o.lines, width, from);
        }
        Target::Detail => {
            let texts: Vec<String> = crate::tui::ui::detail_lines(s)
                .iter()
                .map(crate::tui::result::line_text)
                .collect();
            let from = detail_row_at(s, s.detail_scroll);
            s.detail_search
                .run_rows(texts.iter().map(String::as_str), from);
        }
        Target::Frame => {
            // Whole lines are searched (a match a wrap cuts is found).
            let (p, width, _) = frame_pane(s);
            let from = p.row_at(width, s.log.frame_scroll);
            s.log.frame_search.run(&p, width, from);
        }
    }
    reveal(s, t);
}

/// The detail's line (unwrapped) at screen line `scroll`.
fn detail_row_at(s: &State, scroll: usize) -> usize {
    let width = s.areas.detail.width.saturating_sub(2).max(1);
    let lines = crate::tui::ui::detail_lines(s);
    let mut at = 0;
    for (i, l) in lines.into_iter().enumerate() {
        at += wrapped(l, width);
        if at > scroll {
            return i;
        }
    }
    0
}

/// The screen lines a line takes at `width` columns (as the detail wraps).
fn wrapped(line: ratatui::text::Line<'static>, width: u16) -> usize {
    ratatui::widgets::Paragraph::new(line)
        .wrap(ratatui::widgets::Wrap { trim: false })
        .line_count(width)
}

/// Scroll the pane so the current match is in view (a third down the
/// pane, so the lines before it show too).
fn reveal(s: &mut State, t: Target) {
    let Some(hit) = search_of(s, t).current_hit() else {
        return;
    };
    let place = |line: usize, scroll: &mut usize, room: usize, total: usize| {
        let room = room.max(1);
        if line < *scroll || line >= *scroll + room {
            *scroll = line
                .saturating_sub(room / 3)
                .min(total.saturating_sub(room));
        }
    };
    match t {
        Target::Result => {
            let Some(o) = s.outcome.as_ref() else { return };
            let line = o.lines.screen_line_of(s.result_width(), hit);
            let (room, total) = (s.result_room(), s.result_len());
            place(line, &mut s.result_scroll, room, total);
        }
        Target::Detail => {
            let width = s.areas.detail.width.saturating_sub(2).max(1);
            let lines = crate::tui::ui::detail_lines(s);
            let row = hit.row as usize;
            let before: usize = lines
                .iter()
                .take(row)
                .map(|l| wrapped(l.clone(), width))
                .sum();
            // Within a wrapped line: the lines its text up to the match takes.
            let within = lines.get(row).map_or(0, |l| {
                let text = crate::tui::result::line_text(l);
                let upto = text.get(..hit.start as usize).unwrap_or("");
                wrapped(ratatui::text::Line::raw(upto.to_string()), width).saturating_sub(1)
            });
            let (room, total) = (s.page_rows(Pane::Detail), s.detail_len());
            place(before + within, &mut s.detail_scroll, room, total);
        }
        Target::Frame => {
            let (p, width, room) = frame_pane(s);
            let line = p.screen_line_of(width, hit);
            place(line, &mut s.log.frame_scroll, room, p.screen_len(width));
        }
    }
}

/// A new result came: a search kept from the last one looks in it.
pub(super) fn search_again(s: &mut State) {
    s.result_search.typing = false;
    if s.result_search.query.is_empty() {
        s.result_search.clear();
    } else {
        s.result_search.forget();
        search(s, Target::Result);
    }
}
