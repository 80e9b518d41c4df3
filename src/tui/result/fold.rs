//! JSON in a result as a tree that folds. Pretty JSON is pushed row by
//! row ([`Prepared::push_json`]), and each object or array that spans rows
//! is recorded as a [`Fold`]: its opening and closing rows, its size and
//! its depth. A folded view is a new [`Prepared`] made from the whole one
//! ([`Prepared::folded`]): the rows of a folded node give way to its
//! opening row with its size (`"items": […] 300 items`). Everything else
//! (wrapping, drawing, searching) works on the view as on any outcome.

use std::collections::BTreeSet;

use ratatui::text::{Line, Span};

use super::{Prepared, Row};
use crate::tui::theme::Role;

/// An object or array of pretty JSON that spans rows.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Fold {
    /// The row that opens it (`"key": {`), and the one that closes it.
    pub open: u32,
    pub close: u32,
    /// Its keys or items.
    pub count: u32,
    pub array: bool,
    /// 0 for a block's top-level value, 1 for what that holds, …
    pub depth: u16,
}

impl Fold {
    /// `{…} 12 keys`, `[…] 300 items`.
    pub fn summary(&self) -> String {
        let (shape, what) = if self.array {
            ("[…]", "item")
        } else {
            ("{…}", "key")
        };
        let s = if self.count == 1 { "" } else { "s" };
        format!("{shape} {} {what}{s}", self.count)
    }

    fn contains(&self, row: u32) -> bool {
        self.open <= row && row <= self.close
    }
}

impl Prepared {
    /// Pretty JSON (already made visible: sanitized), one row a line,
    /// coloured, its nodes recorded for folding.
    pub(super) fn push_json(&mut self, pretty: &str) {
        let base = self.rows.len() as u32;
        // Open nodes: (row, array, items so far, indent).
        let mut stack: Vec<(u32, bool, u32, usize)> = Vec::new();
        for (i, l) in pretty.lines().enumerate() {
            let row = base + i as u32;
            let t = l.trim_start();
            let indent = l.len() - t.len();
            if t.starts_with('}') || t.starts_with(']') {
                if let Some((open, array, count, _)) = stack.pop() {
                    self.folds.push(Fold {
                        open,
                        close: row,
                        count,
                        array,
                        depth: stack.len().min(u16::MAX as usize) as u16,
                    });
                }
            } else if let Some(top) = stack.last_mut()
                && indent == top.3 + 2
            {
                top.2 += 1;
            }
            if t.ends_with('{') || t.ends_with('[') {
                stack.push((row, t.ends_with('['), 0, indent));
            }
            self.push(super::build::highlight_json_line(l));
        }
        // Closed inner-first: kept in the order of their opening rows.
        self.folds.sort_by_key(|f| f.open);
    }

    /// The nodes that fold, by opening row.
    pub fn folds(&self) -> &[Fold] {
        &self.folds
    }

    /// The innermost node holding `row` (its opening row included).
    pub fn fold_at(&self, row: u32) -> Option<Fold> {
        self.folds
            .iter()
            .filter(|f| f.contains(row))
            .max_by_key(|f| f.open)
            .copied()
    }

    /// This outcome with the nodes opening at the rows in `folded`
    /// folded: each shows on its opening row, with its size, and its
    /// other rows are left out. Also: for each row of the view, the row
    /// of `self` it shows.
    pub fn folded(&self, folded: &BTreeSet<u32>) -> (Prepared, Vec<u32>) {
        // The decorated lines are shared, not copied: a view's rows point
        // at the same ones, and its summaries are its own.
        let mut view = Prepared {
            styled: self.styled.clone(),
            own: self.own.clone(),
            ..Prepared::default()
        };
        let mut origin = Vec::with_capacity(self.rows.len());
        let mut fi = 0usize;
        let mut r = 0u32;
        let n = self.rows.len() as u32;
        while r < n {
            // The first fold opening at this row (folds sorted by open;
            // one row opens at most one node).
            while fi < self.folds.len() && self.folds[fi].open < r {
                fi += 1;
            }
            let here = self.folds.get(fi).filter(|f| f.open == r);
            if let Some(f) = here.filter(|f| folded.contains(&f.open)) {
                origin.push(r);
                let line = self.folded_line(f);
                view.rows.push(Row {
                    start: (view.styled.len() + view.own.len()) as u32,
                    len: 0,
                    styled: true,
                    style: 0,
                    indent: 0,
                });
                view.own.push(line);
                r = f.close + 1;
                continue;
            }
            origin.push(r);
            self.copy_row(r as usize, &mut view);
            r += 1;
        }
        // The view's own folds (for its opening rows), as the view counts.
        let mut at = std::collections::HashMap::with_capacity(origin.len());
        for (v, o) in origin.iter().enumerate() {
            at.insert(*o, v as u32);
        }
        view.folds = self
            .folds
            .iter()
            .filter_map(|f| {
                let open = *at.get(&f.open)?;
                let close = if folded.contains(&f.open) {
                    open
                } else {
                    *at.get(&f.close)?
                };
                Some(Fold { open, close, ..*f })
            })
            .collect();
        (view, origin)
    }

    /// A folded node's row: its opening row, `{`/`[` replaced by its size,
    /// with the comma its closing row had.
    fn folded_line(&self, f: &Fold) -> Line<'static> {
        let open = self.line(f.open as usize);
        let close_text = self
            .line(f.close as usize)
            .map(|l| l.to_string())
            .unwrap_or_default();
        let comma = if close_text.trim_end().ends_with(',') {
            ","
        } else {
            ""
        };
        let mut spans: Vec<Span<'static>> = open
            .map(|l| {
                l.spans
                    .into_iter()
                    .map(|s| Span::styled(s.content.into_owned(), s.style))
                    .collect()
            })
            .unwrap_or_default();
        // The last span ends with the `{` or `[` that opened the node.
        if let Some(last) = spans.last_mut() {
            let mut text = last.content.to_string();
            let trimmed = text.trim_end().len();
            text.truncate(trimmed);
            if text.ends_with('{') || text.ends_with('[') {
                text.pop();
            }
            last.content = text.into();
        }
        spans.push(Span::styled(
            f.summary(),
            Role::Muted
                .style()
                .add_modifier(ratatui::style::Modifier::BOLD),
        ));
        spans.push(Span::raw(comma));
        Line::from(spans)
    }

    /// Row `i` of `self` appended to `view`, as it is.
    fn copy_row(&self, i: usize, view: &mut Prepared) {
        let Some(r) = self.rows.get(i).copied() else {
            return;
        };
        if r.styled {
            // The same line, shared (see `folded`).
            view.rows.push(r);
        } else if let Some(text) = self.text.get(r.start as usize..(r.start + r.len) as usize) {
            let start = view.text.len() as u32;
            view.text.push_str(text);
            view.rows.push(Row { start, ..r });
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn prepared(v: serde_json::Value) -> Prepared {
        let mut p = Prepared::default();
        p.push(Line::raw("before"));
        p.push_json(&serde_json::to_string_pretty(&v).unwrap());
        p
    }

    fn text(p: &Prepared) -> Vec<String> {
        (0..p.len())
            .map(|i| p.line(i).map(|l| l.to_string()).unwrap_or_default())
            .collect()
    }

    #[test]
    fn nodes_are_found_with_their_size_and_depth() {
        let p = prepared(serde_json::json!({"a": {"x": 1, "y": [1, 2]}, "e": {}, "b": []}));
        let folds: Vec<(u32, u32, u32, bool, u16)> = p
            .folds()
            .iter()
            .map(|f| (f.open, f.close, f.count, f.array, f.depth))
            .collect();
        // Row 0 is the line before; `{}` and `[]` are one line: no node.
        assert_eq!(
            folds,
            [
                (1, 11, 3, false, 0),
                (2, 8, 2, false, 1),
                (4, 7, 2, true, 2)
            ]
        );
        assert_eq!(p.fold_at(5).map(|f| f.open), Some(4));
        assert_eq!(p.fold_at(9).map(|f| f.open), Some(1));
        assert_eq!(p.fold_at(0), None);
    }

    #[test]
    fn a_folded_view_keeps_the_comma_and_maps_its_rows() {
        let p = prepared(serde_json::json!({"a": {"x": 1, "y": [1, 2]}, "b": 2}));
        let folded: BTreeSet<u32> = [2].into_iter().collect();
        let (view, origin) = p.folded(&folded);
        assert_eq!(
            text(&view),
            ["before", "{", "  \"a\": {…} 2 keys,", "  \"b\": 2", "}"]
        );
        assert_eq!(origin, [0, 1, 2, 9, 10]);
        // The view's own nodes, in its rows: the root, and `a` on one row.
        let folds: Vec<(u32, u32)> = view.folds().iter().map(|f| (f.open, f.close)).collect();
        assert_eq!(folds, [(1, 4), (2, 2)]);
        // A node inside a folded one is left out of the view's nodes.
        let folded: BTreeSet<u32> = [1, 4].into_iter().collect();
        let (view, _) = p.folded(&folded);
        assert_eq!(text(&view), ["before", "{…} 2 keys"]);
    }
}
