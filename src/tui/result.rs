//! A call's outcome prepared for display, once, when it arrives: every
//! block sanitized and split into lines, so drawing a frame only touches
//! the lines on screen.
//!
//! Lines are wrapped at the pane's width and scrolled by screen line: the
//! end of a 20 MiB line is as reachable as its start. Where each line
//! starts on screen is worked out once per width ([`Wrapped`], cached);
//! a frame then cuts only the lines it shows.

use std::cell::RefCell;
use std::collections::HashMap;

use crate::tui::theme::Role;
use ratatui::style::{Modifier, Style};
use ratatui::text::{Line, Span};
use serde_json::Value;
use unicode_width::UnicodeWidthChar;

use crate::mcp::manager::CallError;

mod fold;
mod search;
use crate::mcp::types::{CallResult, Content};
use crate::sanitize;
pub use fold::Fold;
pub use search::{Hit, MAX_HITS, Marks, Search, find_in_rows, line_text, paint_line};
use search::{paint, within};

/// Styles of plain text rows (a byte per row instead of a `Style`).
const TEXT_STYLES: [Style; 2] = [Style::new(), Style::new().fg(Role::Accent.color())];
const PLAIN: u8 = 0;
const STRUCTURED: u8 = 1;

/// JSON up to this size is pretty-printed and coloured; larger stays
/// plain text (pretty-printing it costs too much).
const HIGHLIGHT_LIMIT: usize = 2 * 1024 * 1024;

/// One row of a prepared outcome: a range of `Prepared::text`, or a
/// styled line. Twelve bytes, so a 100 MB result costs little beyond its
/// text.
#[derive(Debug, Clone, Copy)]
struct Row {
    /// Index into `styled` when `styled` is true, else a byte offset.
    start: u32,
    len: u32,
    styled: bool,
    style: u8,
    /// Bytes of indent at the start of the text: wrapped parts of the
    /// line are indented as much.
    indent: u8,
}

/// A call's outcome, ready to draw: plain text kept as ranges into one
/// string, and the few decorated lines as they are.
#[derive(Debug, Clone, Default)]
pub struct Prepared {
    text: String,
    /// The decorated lines, shared between a whole outcome and its folded
    /// views (a fold copies no line).
    styled: std::sync::Arc<Vec<Line<'static>>>,
    /// A folded view's own lines (its nodes' summaries), numbered after
    /// `styled`'s.
    own: Vec<Line<'static>>,
    rows: Vec<Row>,
    /// The wrap at the last width asked for.
    wrapped: RefCell<Option<Wrapped>>,
    /// The styled lines' text joined, for searches (made by the first).
    styled_text: RefCell<Option<Joined>>,
    /// The JSON nodes that fold (see `fold`), by opening row.
    folds: Vec<Fold>,
}

/// The text of the styled rows, one after another: (row, start, length)
/// for each.
#[derive(Debug, Clone, Default)]
struct Joined {
    text: String,
    rows: Vec<(u32, u32, u32)>,
}

/// Where each row starts on screen at one width.
#[derive(Debug, Clone, Default)]
struct Wrapped {
    width: usize,
    /// `starts[i]`: the first screen line of row `i`; the last entry is
    /// the total.
    starts: Vec<u64>,
    /// For long rows that are not ASCII: the byte offsets (into the row)
    /// where each wrapped part after the first starts.
    breaks: HashMap<usize, Vec<u32>>,
}

/// Rows longer than this keep their break offsets (a frame then cuts any
/// part of them without scanning from the start).
const KEEP_BREAKS: usize = 4096;

/// The indent of continuation parts: the row's own, unless it would take
/// half the width.
fn cont_indent(indent: usize, width: usize) -> usize {
    if indent * 2 < width { indent } else { 0 }
}

/// Rows up to this size wrap at word boundaries; longer ASCII rows (a
/// minified JSON document, a base64 blob) are cut at the width, which
/// needs no scan to find any part.
const WORD_WRAP_LIMIT: usize = 64 * 1024;

/// Whether a row is cut at the width by arithmetic (long ASCII).
fn cut_by_width(text: &str) -> bool {
    text.len() > WORD_WRAP_LIMIT && text.is_ascii()
}

/// Where the parts after the first start (byte offsets) when `text` is
/// wrapped to `width` columns, continuation parts `width - pre` wide:
/// after the last space that fits, else (a word longer than the line)
/// at the width.
fn breaks(text: &str, width: usize, pre: usize) -> Vec<u32> {
    let mut out = Vec::new();
    let mut room = width.max(1);
    // The current part's start, its width so far, and the last place
    // after a space in it (with the width up to there).
    let mut start = 0usize;
    let mut used = 0usize;
    let mut after_space: Option<(usize, usize)> = None;
    for (i, c) in text.char_indices() {
        let w = c.width().unwrap_or(0);
        if used + w > room && used > 0 {
            let cut = match after_space {
                Some((at, upto)) if at > start && c != ' ' => {
                    used -= upto;
                    at
                }
                _ => {
                    used = 0;
                    i
                }
            };
            out.push(cut as u32);
            start = cut;
            after_space = None;
            room = (width - pre).max(1);
        }
        used += w;
        if c == ' ' {
            after_space = Some((i + 1, used));
        }
    }
    out
}

/// How many screen lines an ASCII text of `len` bytes takes.
fn ascii_height(len: usize, width: usize, pre: usize) -> usize {
    let width = width.max(1);
    if len <= width {
        1
    } else {
        let cw = (width - pre).max(1);
        1 + (len - width).div_ceil(cw)
    }
}

/// The display width of a line.
fn line_width(line: &Line) -> usize {
    line.spans.iter().map(|s| s.width()).sum()
}

/// The leading spaces of a styled line.
fn line_indent(line: &Line) -> usize {
    let mut n = 0;
    for s in &line.spans {
        let lead = s.content.len() - s.content.trim_start_matches(' ').len();
        n += lead;
        if lead < s.content.len() {
            break;
        }
    }
    n
}

/// Cut a styled line into parts `width` wide (continuations indented by
/// its own indent).
fn wrap_styled(line: &Line<'static>, width: usize) -> Vec<Line<'static>> {
    wrap_styled_at(line, width)
        .into_iter()
        .map(|p| p.0)
        .collect()
}

/// [`wrap_styled`], each part with the byte offset (into the line's text)
/// where its own text starts, and whether its first span is the indent
/// added to a continuation (not the line's text).
fn wrap_styled_at(line: &Line<'static>, width: usize) -> Vec<(Line<'static>, usize, bool)> {
    if line_width(line) <= width {
        return vec![(line.clone(), 0, false)];
    }
    let pre = cont_indent(line_indent(line).min(u8::MAX as usize), width);
    let mut parts: Vec<(Line<'static>, usize, bool)> = Vec::new();
    let mut current: Vec<Span<'static>> = Vec::new();
    let mut part_start = 0usize;
    let mut indented = false;
    let mut at = 0usize;
    let mut room = width.max(1);
    let mut used = 0usize;
    for span in &line.spans {
        let mut piece = String::new();
        for c in span.content.chars() {
            let w = c.width().unwrap_or(0);
            if used + w > room && used > 0 {
                if !piece.is_empty() {
                    current.push(Span::styled(std::mem::take(&mut piece), span.style));
                }
                parts.push((
                    Line::from(std::mem::take(&mut current)).style(line.style),
                    part_start,
                    indented,
                ));
                current.push(Span::raw(" ".repeat(pre)));
                part_start = at;
                indented = true;
                room = (width - pre).max(1);
                used = 0;
            }
            used += w;
            at += c.len_utf8();
            piece.push(c);
        }
        if !piece.is_empty() {
            current.push(Span::styled(piece, span.style));
        }
    }
    if !current.is_empty() {
        parts.push((Line::from(current).style(line.style), part_start, indented));
    }
    parts
}

impl Prepared {
    /// Plain text, one row a line (sanitized), after an optional note
    /// row in the warning colour: a frame of the protocol log.
    pub fn plain(note: Option<String>, text: &str) -> Prepared {
        let mut p = Prepared::default();
        if let Some(n) = note {
            p.push(Line::styled(n, Role::Warn.style()));
        }
        push_text(&mut p, text, "", PLAIN);
        p
    }

    /// The rows' text, one a line, as shown (what a diff compares).
    pub fn text_lines(&self) -> String {
        let mut out = String::with_capacity(self.text.len() + self.rows.len());
        for i in 0..self.len() {
            if let Some(l) = self.line(i) {
                for sp in &l.spans {
                    out.push_str(&sp.content);
                }
            }
            out.push('\n');
        }
        out
    }

    /// The bytes its text holds (for bounding what is kept).
    pub fn bytes(&self) -> usize {
        self.text.len()
    }

    /// Forget what is made again on demand (the wrap, the search text):
    /// for an outcome put aside while another is shown.
    pub fn shed(&self) {
        self.wrapped.replace(None);
        self.styled_text.replace(None);
    }

    /// Rows (logical lines, before wrapping).
    pub fn len(&self) -> usize {
        self.rows.len()
    }

    pub fn is_empty(&self) -> bool {
        self.rows.is_empty()
    }

    /// Row `i` as a line (borrowing the text).
    pub fn line(&self, i: usize) -> Option<Line<'_>> {
        let r = self.rows.get(i)?;
        if r.styled {
            return self.styled_line(r.start as usize).cloned();
        }
        Some(Line::styled(
            self.row_text(r)?,
            TEXT_STYLES[r.style as usize],
        ))
    }

    fn row_text(&self, r: &Row) -> Option<&str> {
        self.text.get(r.start as usize..(r.start + r.len) as usize)
    }

    /// The screen lines the outcome takes at `width` columns.
    pub fn screen_len(&self, width: u16) -> usize {
        self.with_wrap(width as usize, |w| {
            w.starts.last().copied().unwrap_or(0) as usize
        })
    }

    /// The screen lines `from..from + count` at `width` columns: rows
    /// wrapped at the width, continuations keeping the row's indent.
    pub fn screen_lines(&self, width: u16, from: usize, count: usize) -> Vec<Line<'_>> {
        self.screen_lines_marked(width, from, count, None)
    }

    /// [`Prepared::screen_lines`] with a search's matches painted.
    pub fn screen_lines_marked(
        &self,
        width: u16,
        from: usize,
        count: usize,
        marks: Option<Marks>,
    ) -> Vec<Line<'_>> {
        let width = (width as usize).max(1);
        self.with_wrap(width, |w| {
            let mut out = Vec::with_capacity(count);
            let from = from as u64;
            // The row that holds screen line `from`.
            let mut row = w.starts.partition_point(|s| *s <= from).saturating_sub(1);
            let mut skip = from.saturating_sub(w.starts.get(row).copied().unwrap_or(0)) as usize;
            while out.len() < count && row < self.rows.len() {
                let need = count - out.len();
                let hits = marks.map(|m| m.in_row(row)).unwrap_or_default();
                self.row_parts(w, row, skip, need, &hits, &mut out);
                row += 1;
                skip = 0;
            }
            out
        })
    }

    /// The row that screen line `line` (at `width` columns) belongs to.
    pub fn row_at(&self, width: u16, line: usize) -> usize {
        self.with_wrap((width as usize).max(1), |w| {
            w.starts
                .partition_point(|s| *s <= line as u64)
                .saturating_sub(1)
        })
    }

    /// The screen line (at `width` columns) where row `row` starts.
    pub fn row_start(&self, width: u16, row: usize) -> usize {
        self.with_wrap((width as usize).max(1), |w| {
            w.starts.get(row).copied().unwrap_or(0) as usize
        })
    }

    /// The screen line (at `width` columns) that shows the start of `hit`.
    pub fn screen_line_of(&self, width: u16, hit: Hit) -> usize {
        let width = (width as usize).max(1);
        let i = hit.row as usize;
        let at = hit.start as usize;
        self.with_wrap(width, |w| {
            let first = w.starts.get(i).copied().unwrap_or(0) as usize;
            let next = w.starts.get(i + 1).copied().unwrap_or(0) as usize;
            let Some(r) = self.rows.get(i).filter(|_| next > first + 1) else {
                // A row on one line (or none).
                return first;
            };
            let part = if r.styled {
                self.styled_line(r.start as usize).map_or(0, |l| {
                    wrap_styled_at(l, width)
                        .iter()
                        .rposition(|p| p.1 <= at)
                        .unwrap_or(0)
                })
            } else {
                let text = self.row_text(r).unwrap_or("");
                let pre = cont_indent(r.indent as usize, width);
                if cut_by_width(text) {
                    if at < width {
                        0
                    } else {
                        1 + (at - width) / (width - pre).max(1)
                    }
                } else {
                    let found;
                    let cuts: &[u32] = match w.breaks.get(&i) {
                        Some(b) => b,
                        None => {
                            found = breaks(text, width, pre);
                            &found
                        }
                    };
                    cuts.partition_point(|c| *c as usize <= at)
                }
            };
            first + part
        })
    }

    /// Parts `skip..skip + need` of row `i`, wrapped at `w.width`, with
    /// `hits` (byte ranges of the row) painted.
    fn row_parts<'a>(
        &'a self,
        w: &Wrapped,
        i: usize,
        skip: usize,
        need: usize,
        hits: &[(usize, usize, bool)],
        out: &mut Vec<Line<'a>>,
    ) {
        let Some(r) = self.rows.get(i) else { return };
        let width = w.width;
        if r.styled {
            if let Some(line) = self.styled_line(r.start as usize) {
                for (part, at, indented) in wrap_styled_at(line, width)
                    .into_iter()
                    .skip(skip)
                    .take(need)
                {
                    if hits.is_empty() {
                        out.push(part);
                        continue;
                    }
                    let style = part.style;
                    let mut spans = part.spans;
                    let lead = if indented && !spans.is_empty() {
                        Some(spans.remove(0))
                    } else {
                        None
                    };
                    let end = at + spans.iter().map(|s| s.content.len()).sum::<usize>();
                    let mut painted: Vec<Span> = lead.into_iter().collect();
                    painted.extend(paint(spans, at, within(hits, at, end)));
                    out.push(Line::from(painted).style(style));
                }
            }
            return;
        }
        let Some(text) = self.row_text(r) else { return };
        let style = TEXT_STYLES[r.style as usize];
        let pre = cont_indent(r.indent as usize, width);
        let ascii = cut_by_width(text);
        // Where part `k` starts: arithmetic for long ASCII, else the
        // breaks (kept for long rows, found again for short ones).
        let found;
        let cuts: &[u32] = if ascii {
            &[]
        } else if let Some(b) = w.breaks.get(&i) {
            b
        } else {
            found = breaks(text, width, pre);
            &found
        };
        let cw = (width - pre).max(1);
        let start_of = |k: usize| -> usize {
            match k {
                0 => 0,
                k if ascii => (width + (k - 1) * cw).min(text.len()),
                k => cuts.get(k - 1).map_or(text.len(), |c| *c as usize),
            }
        };
        let parts = if ascii {
            ascii_height(text.len(), width, pre)
        } else {
            cuts.len() + 1
        };
        for k in skip..(skip + need).min(parts) {
            let mut from = start_of(k);
            let Some(mut piece) = text.get(from..start_of(k + 1)) else {
                break;
            };
            // A part that starts where a space ended the line above: the
            // space was the break, not an indent.
            if k > 0
                && !ascii
                && let Some(rest) = piece.strip_prefix(' ')
            {
                piece = rest;
                from += 1;
            }
            let body = paint(
                vec![Span::styled(piece, style)],
                from,
                within(hits, from, from + piece.len()),
            );
            if k == 0 || pre == 0 {
                out.push(Line::from(body));
            } else {
                let mut spans = vec![Span::raw(" ".repeat(pre))];
                spans.extend(body);
                out.push(Line::from(spans));
            }
        }
    }

    /// Run `f` on the wrap at `width`, working it out first if the cached
    /// one is for another width.
    fn with_wrap<T>(&self, width: usize, f: impl FnOnce(&Wrapped) -> T) -> T {
        let width = width.max(1);
        let mut cache = self.wrapped.borrow_mut();
        if cache.as_ref().is_none_or(|w| w.width != width) {
            *cache = Some(self.wrap(width));
        }
        match cache.as_ref() {
            Some(w) => f(w),
            None => f(&Wrapped::default()),
        }
    }

    fn wrap(&self, width: usize) -> Wrapped {
        let mut starts = Vec::with_capacity(self.rows.len() + 1);
        let mut breaks_of = HashMap::new();
        let mut at = 0u64;
        for (i, r) in self.rows.iter().enumerate() {
            starts.push(at);
            let h = if r.styled {
                self.styled_line(r.start as usize).map_or(1, |l| {
                    // Only a line wider than the pane is cut (to count
                    // its parts); the others take one line, uncopied.
                    if line_width(l) <= width {
                        1
                    } else {
                        wrap_styled(l, width).len()
                    }
                })
            } else {
                let text = self.row_text(r).unwrap_or("");
                let pre = cont_indent(r.indent as usize, width);
                if cut_by_width(text) {
                    ascii_height(text.len(), width, pre)
                } else if text.len() <= width && text.is_ascii() {
                    1
                } else {
                    let b = breaks(text, width, pre);
                    let h = b.len() + 1;
                    if text.len() > KEEP_BREAKS {
                        breaks_of.insert(i, b);
                    }
                    h
                }
            };
            at += h.max(1) as u64;
        }
        starts.push(at);
        Wrapped {
            width,
            starts,
            breaks: breaks_of,
        }
    }

    /// Decorated line `i` (of `styled`, then of `own`).
    fn styled_line(&self, i: usize) -> Option<&Line<'static>> {
        match i.checked_sub(self.styled.len()) {
            None => self.styled.get(i),
            Some(j) => self.own.get(j),
        }
    }

    /// Whether any row is a decorated line.
    fn has_styled(&self) -> bool {
        !self.styled.is_empty() || !self.own.is_empty()
    }

    fn push(&mut self, line: Line<'static>) {
        self.rows.push(Row {
            start: (self.styled.len() + self.own.len()) as u32,
            len: 0,
            styled: true,
            style: PLAIN,
            indent: 0,
        });
        // A view's lines go to its own; a whole's are not shared while
        // it is being made.
        if self.own.is_empty() && std::sync::Arc::get_mut(&mut self.styled).is_some() {
            std::sync::Arc::make_mut(&mut self.styled).push(line);
        } else {
            self.own.push(line);
        }
        self.wrapped.take();
        self.styled_text.take();
    }

    fn push_plain(&mut self, indent: &str, text: &str, style: u8) {
        // Past 4 GiB of text, offsets would not fit: say so rather than wrap.
        if self.text.len() + indent.len() + text.len() > u32::MAX as usize {
            if self.rows.last().is_none_or(|r| !r.styled) {
                self.push(Line::styled(
                    "… (the rest is too large to show)",
                    Role::Warn.style(),
                ));
            }
            return;
        }
        let start = self.text.len() as u32;
        self.text.push_str(indent);
        self.text.push_str(text);
        self.rows.push(Row {
            start,
            len: (indent.len() + text.len()) as u32,
            styled: false,
            style,
            indent: indent.len().min(u8::MAX as usize) as u8,
        });
        self.wrapped.take();
        self.styled_text.take();
    }
}

mod build;
use build::push_text;
#[cfg(test)]
use build::push_text_or_json;
pub use build::{Media, annotations_text, lines, prompt_lines, read_lines};

#[cfg(test)]
mod wrap_tests {
    use super::*;
    use unicode_width::UnicodeWidthStr;

    fn text_of(p: &Prepared, width: u16) -> Vec<String> {
        let n = p.screen_len(width);
        p.screen_lines(width, 0, n)
            .iter()
            .map(|l| l.spans.iter().map(|s| s.content.as_ref()).collect())
            .collect()
    }

    #[test]
    fn annotations_read_as_a_person_would() {
        let a = serde_json::json!({"audience": ["user", "assistant"], "priority": 0.9,
            "lastModified": "2025-01-12T15:00:58Z", "x-team": "blue"});
        assert_eq!(
            annotations_text(&a).as_deref(),
            Some(
                "for user and assistant · priority 0.9 · modified 2025-01-12T15:00:58Z · x-team: \"blue\""
            )
        );
        assert_eq!(annotations_text(&serde_json::json!({})), None);
        assert_eq!(annotations_text(&serde_json::json!("odd")), None);
        // Control characters in a hostile value are made visible.
        let a = serde_json::json!({"lastModified": "\u{1b}[31mred"});
        assert!(!annotations_text(&a).unwrap().contains('\u{1b}'));
    }

    #[test]
    fn text_wraps_at_spaces_and_long_words_are_cut() {
        let mut p = Prepared::default();
        push_text(&mut p, "the quick brown fox jumps over", "", PLAIN);
        assert_eq!(
            text_of(&p, 10),
            vec!["the quick ", "brown fox ", "jumps over"]
        );
        let mut p = Prepared::default();
        push_text(&mut p, "abcdefghijklmnop qr", "", PLAIN);
        assert_eq!(text_of(&p, 6), vec!["abcdef", "ghijkl", "mnop ", "qr"]);
        // A space that overflows is the break: the next line does not
        // start with it.
        let mut p = Prepared::default();
        push_text(&mut p, "abc, def", "", PLAIN);
        assert_eq!(text_of(&p, 4), vec!["abc,", "def"]);
    }

    #[test]
    fn every_part_is_reachable_from_any_screen_line() {
        let mut p = Prepared::default();
        let line: String = (0..500).map(|i| format!("w{i} ")).collect();
        push_text(&mut p, &format!("{line}\n  {line}\n漢字{line}"), "", PLAIN);
        for width in [7u16, 20, 33, 80] {
            let all = text_of(&p, width);
            assert_eq!(all.len(), p.screen_len(width));
            // Any window is the same as the matching slice of the whole.
            for from in [0, 1, all.len() / 2, all.len() - 3] {
                let part: Vec<String> = p
                    .screen_lines(width, from, 3)
                    .iter()
                    .map(|l| l.spans.iter().map(|s| s.content.as_ref()).collect())
                    .collect();
                assert_eq!(part, all[from..from + 3], "width {width} from {from}");
            }
            // Nothing is lost: the text comes back whole (spaces aside).
            let joined: String = all.concat().replace(' ', "");
            assert_eq!(joined.matches("w499").count(), 3, "width {width}");
            assert!(all.iter().all(|l| l.width() <= width as usize));
        }
    }

    #[test]
    fn a_long_ascii_row_is_cut_by_arithmetic_and_reaches_its_end() {
        let mut p = Prepared::default();
        let text = format!("{}END", "a".repeat(200_000));
        push_text(&mut p, &text, "", PLAIN);
        let n = p.screen_len(80);
        assert_eq!(n, (200_003usize).div_ceil(80));
        let last = p.screen_lines(80, n - 1, 5);
        assert_eq!(last.len(), 1);
        assert!(last[0].spans[0].content.ends_with("END"));
    }
}
