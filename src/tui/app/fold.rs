//! Folding JSON in the result pane. A result with JSON that folds has a
//! cursor row (↑ ↓ move it, the view follows; the page keys scroll and
//! bring it along): ← folds the innermost node holding it, → unfolds the
//! folded node there (or the first one in view), `C` folds everything
//! below each value's top level, `E` unfolds everything. The outcome keeps its whole
//! [`Prepared`] aside while anything is folded and shows a folded view of
//! it (`result::fold`).

use std::collections::BTreeSet;

use crate::tui::keymap::Action;
use crate::tui::result::Prepared;

use super::*;

/// An outcome's folds: the whole outcome, the nodes folded (by their
/// opening rows in it), and for each row of the view shown, its row in
/// the whole.
#[derive(Debug, Clone)]
pub struct Folding {
    pub whole: Prepared,
    pub folded: BTreeSet<u32>,
    pub origin: Vec<u32>,
}

/// A fold key on the result pane; false when it does not apply (no JSON
/// to fold there: ← and → then move between panes as elsewhere).
pub(super) fn key(s: &mut State, a: Action) -> bool {
    let width = s.result_width();
    let top_line = s.result_scroll;
    let page = s.result_room().max(1);
    if s.inflight().is_some() {
        return false;
    }
    let Some(o) = s.outcome.as_ref() else {
        return false;
    };
    let whole_folds = match &o.folding {
        Some(f) => f.whole.folds(),
        None => o.lines.folds(),
    };
    // A node is shown when its opening row is (not inside a folded one).
    let shown = |open: u32| {
        o.folding
            .as_ref()
            .is_none_or(|f| f.origin.binary_search(&open).is_ok())
    };
    if whole_folds.is_empty() {
        return false;
    }
    // The rows of the whole at the cursor and on the pane's last line.
    let view_row = |line: usize| o.lines.row_at(width, line);
    let to_whole = |o: &Outcome, v: usize| -> u32 {
        o.folding
            .as_ref()
            .and_then(|f| f.origin.get(v).copied())
            .unwrap_or(v as u32)
    };
    let cursor = visible_cursor(o, width, top_line, page);
    let top = to_whole(o, cursor);
    let first_in_view = to_whole(o, view_row(top_line));
    let bottom = to_whole(o, view_row(top_line + page - 1));
    let mut folded = o
        .folding
        .as_ref()
        .map(|f| f.folded.clone())
        .unwrap_or_default();
    let (changed, anchor) = match a {
        Action::Left => {
            // The innermost open node holding the cursor's row (the row
            // is shown, so every node holding it is too).
            let node = whole_folds
                .iter()
                .filter(|f| f.open <= top && top <= f.close && !folded.contains(&f.open))
                .max_by_key(|f| f.open)
                .copied();
            match node {
                Some(f) => {
                    folded.insert(f.open);
                    (true, f.open)
                }
                None => (false, top),
            }
        }
        Action::Right => {
            // The folded node at the cursor, else the first in view.
            let folded_shown =
                |f: &&crate::tui::result::Fold| folded.contains(&f.open) && shown(f.open);
            let node = whole_folds
                .iter()
                .filter(folded_shown)
                .find(|f| f.open == top)
                .or_else(|| {
                    whole_folds
                        .iter()
                        .filter(folded_shown)
                        .find(|f| first_in_view <= f.open && f.open <= bottom)
                })
                .copied();
            match node {
                Some(f) => {
                    folded.remove(&f.open);
                    (true, f.open)
                }
                None => (false, top),
            }
        }
        Action::FoldAll => {
            let before = folded.len();
            let shown: Vec<u32> = whole_folds
                .iter()
                .filter(|f| f.depth == 1 && shown(f.open))
                .map(|f| f.open)
                .collect();
            folded.extend(shown);
            // A node hidden inside a folded one stays as it was.
            (folded.len() != before, top)
        }
        Action::UnfoldAll => {
            let any = !folded.is_empty();
            folded.clear();
            (any, top)
        }
        _ => return false,
    };
    if !changed {
        // Nothing to fold or unfold: ← and → move between the panes, as
        // on any result.
        if matches!(a, Action::Left | Action::Right) {
            return false;
        }
        s.status = Some(match a {
            Action::FoldAll => "everything below the top level is folded".into(),
            _ => "nothing is folded".into(),
        });
        return true;
    }
    apply(s, folded, anchor);
    true
}

/// Show the outcome with `folded` folded, `anchor` (a row of the whole)
/// at the top of the pane, or the row that now holds it.
fn apply(s: &mut State, folded: BTreeSet<u32>, anchor: u32) {
    let width = s.result_width();
    let Some(o) = s.outcome.as_mut() else { return };
    let whole = match o.folding.take() {
        Some(f) => f.whole,
        None => std::mem::take(&mut o.lines),
    };
    let n = folded.len();
    if folded.is_empty() {
        o.lines = whole;
    } else {
        let (view, origin) = whole.folded(&folded);
        // The whole is kept only to fold again: its caches go.
        whole.shed();
        o.lines = view;
        o.folding = Some(Box::new(Folding {
            whole,
            folded,
            origin,
        }));
    }
    // The anchor's row in the view (the last row at or before it) has the
    // cursor, in view.
    let row = match &o.folding {
        Some(f) => f.origin.partition_point(|r| *r <= anchor).saturating_sub(1),
        None => anchor as usize,
    };
    o.cursor = row;
    let room = s.result_room().max(1);
    s.status = Some(match n {
        0 => "everything unfolded".into(),
        n => format!(
            "{n} node{} folded · {} unfolds · {} unfolds all",
            if n == 1 { "" } else { "s" },
            s.keymap.label(Action::Right),
            s.keymap.label(Action::UnfoldAll)
        ),
    });
    // The search runs again on what is shown now (a folded node's
    // insides are not searched); the cursor's row stays in view.
    super::find::search_again(s);
    reveal(s, width, room);
}

/// Whether an outcome has JSON that folds (then it has a cursor).
pub(super) fn folds(o: &Outcome) -> bool {
    o.folding.is_some() || !o.lines.folds().is_empty()
}

/// The cursor's row, or the top row of the view when the cursor is out
/// of it (a search or a page moved the view).
fn visible_cursor(o: &Outcome, width: u16, scroll: usize, room: usize) -> usize {
    let rows = o.lines.len().max(1);
    let c = o.cursor.min(rows - 1);
    let (first, next) = (o.lines.row_start(width, c), o.lines.row_start(width, c + 1));
    if next <= scroll || first >= scroll + room {
        o.lines.row_at(width, scroll)
    } else {
        c
    }
}

/// Scroll so the cursor's row is in view (the whole of it when it fits).
fn reveal(s: &mut State, width: u16, room: usize) {
    let last = s.result_len().saturating_sub(room);
    let Some(o) = s.outcome.as_ref() else { return };
    let first = o.lines.row_start(width, o.cursor);
    let next = o.lines.row_start(width, o.cursor + 1);
    let mut scroll = s.result_scroll;
    if first < scroll {
        scroll = first;
    } else if next > scroll + room {
        scroll = next.saturating_sub(room).min(first);
    }
    s.result_scroll = scroll.min(last);
}

/// ↑ ↓ on a result with JSON that folds: the cursor moves a row (a row
/// taller than the pane scrolls a line at a time first); false when the
/// result has none (the keys scroll, as on any result).
pub(super) fn step_cursor(s: &mut State, by: isize) -> bool {
    let width = s.result_width();
    let room = s.result_room().max(1);
    let scroll = s.result_scroll;
    if s.inflight().is_some() {
        return false;
    }
    let last = s.result_len().saturating_sub(room);
    let Some(o) = s.outcome.as_mut().filter(|o| folds(o)) else {
        return false;
    };
    let rows = o.lines.len();
    if rows == 0 {
        return false;
    }
    let c = visible_cursor(o, width, scroll, room);
    let moved_in = c != o.cursor.min(rows - 1);
    o.cursor = c;
    if moved_in {
        return true;
    }
    let (first, next) = (o.lines.row_start(width, c), o.lines.row_start(width, c + 1));
    if by > 0 {
        if next > scroll + room && scroll < last {
            s.result_scroll = scroll + 1;
            return true;
        }
        if c + 1 >= rows {
            return false;
        }
        o.cursor = c + 1;
    } else {
        if first < scroll {
            s.result_scroll = scroll - 1;
            return true;
        }
        if c == 0 {
            return false;
        }
        o.cursor = c - 1;
    }
    reveal(s, width, room);
    true
}

/// After the page keys scrolled: the cursor comes along into the view
/// (to its top row, or its last one at the end).
pub(super) fn follow_scroll(s: &mut State, to_end: bool) {
    let width = s.result_width();
    let room = s.result_room().max(1);
    let scroll = s.result_scroll;
    let Some(o) = s.outcome.as_mut().filter(|o| folds(o)) else {
        return;
    };
    o.cursor = if to_end {
        o.lines.len().saturating_sub(1)
    } else {
        visible_cursor(o, width, scroll, room)
    };
}
