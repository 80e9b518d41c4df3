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
use crate::mcp::types::{CallResult, Content};
use crate::sanitize;

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
    styled: Vec<Line<'static>>,
    rows: Vec<Row>,
    /// The wrap at the last width asked for.
    wrapped: RefCell<Option<Wrapped>>,
    /// The styled lines' text joined, for searches (made by the first).
    styled_text: RefCell<Option<Joined>>,
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

/// Call `found` with the offset of each place `needle` occurs in `hay`
/// (ASCII letters folded to lower case first when `fold`; `needle` is
/// lower case then), in order, until it returns false. Folding is done a
/// block at a time, so no copy of a large text is made.
fn find_all(hay: &[u8], needle: &[u8], fold: bool, mut found: impl FnMut(usize) -> bool) {
    let finder = memchr::memmem::Finder::new(needle);
    // Without a letter in the needle, case cannot matter.
    // Every match, overlapping ones too (`aa` twice in `aaa`), as the
    // narrowing of a search finds them: each look starts a byte after the
    // last match.
    let each = |hay: &[u8], upto: usize, found: &mut dyn FnMut(usize) -> bool| -> bool {
        let mut pos = 0;
        while pos < upto {
            let Some(at) = finder.find(&hay[pos..]) else {
                return true;
            };
            let at = pos + at;
            if at >= upto {
                return true;
            }
            if !found(at) {
                return false;
            }
            pos = at + 1;
        }
        true
    };
    if !fold || !needle.iter().any(u8::is_ascii_alphabetic) {
        each(hay, hay.len(), &mut found);
        return;
    }
    const BLOCK: usize = 1 << 16;
    let mut buf = Vec::with_capacity(BLOCK + needle.len());
    let mut start = 0;
    while start < hay.len() {
        // Each block overlaps the next by the needle's length less one, so
        // a match across the seam is found (in the block it starts in).
        let end = (start + BLOCK + needle.len().saturating_sub(1)).min(hay.len());
        lower_into(&mut buf, &hay[start..end]);
        if !each(&buf, BLOCK.min(buf.len()), &mut |at| found(start + at)) {
            return;
        }
        start += BLOCK;
    }
}

/// `src` with ASCII capitals made lower case, into `buf` (replacing what
/// it held); eight bytes at a time (bytes past ASCII are left as they are).
fn lower_into(buf: &mut Vec<u8>, src: &[u8]) {
    const HIGH: u64 = 0x8080_8080_8080_8080;
    buf.clear();
    buf.resize(src.len(), 0);
    let mut out = buf.chunks_exact_mut(8);
    let mut words = src.chunks_exact(8);
    for (o, w) in (&mut out).zip(&mut words) {
        let mut b = [0u8; 8];
        b.copy_from_slice(w);
        let x = u64::from_ne_bytes(b);
        let h = x & !HIGH;
        // The high bit of each byte: above `Z`, at or above `A`.
        let above_z = h + 0x2525_2525_2525_2525;
        let from_a = h + 0x3f3f_3f3f_3f3f_3f3f;
        let upper = (from_a ^ above_z) & !x & HIGH;
        o.copy_from_slice(&(x | (upper >> 2)).to_ne_bytes());
    }
    for (o, b) in out.into_remainder().iter_mut().zip(words.remainder()) {
        *o = b.to_ascii_lowercase();
    }
}

/// One place a search found: bytes `start..start + len` of row `row`.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Hit {
    pub row: u32,
    pub start: u32,
    pub len: u32,
}

/// At most this many matches are kept (the count then says so).
pub const MAX_HITS: usize = 100_000;

/// How a match is drawn, and the current one.
fn hit_style(current: bool) -> Style {
    let s = Style::new().add_modifier(Modifier::REVERSED);
    if current {
        s.fg(Role::Warn.color()).add_modifier(Modifier::BOLD)
    } else {
        s
    }
}

/// The matches to paint on the lines drawn: all of them, and which one is
/// the current.
#[derive(Debug, Clone, Copy)]
pub struct Marks<'h> {
    pub hits: &'h [Hit],
    pub current: Option<usize>,
}

impl Marks<'_> {
    /// The matches in row `row` as (start, end, is the current one).
    fn in_row(&self, row: usize) -> Vec<(usize, usize, bool)> {
        let row = row as u32;
        let first = self.hits.partition_point(|h| h.row < row);
        self.hits[first..]
            .iter()
            .take_while(|h| h.row == row)
            .enumerate()
            .map(|(k, h)| {
                (
                    h.start as usize,
                    (h.start + h.len) as usize,
                    self.current == Some(first + k),
                )
            })
            .collect()
    }
}

/// The matches (sorted by start) that overlap bytes `from..to` of a row:
/// a part of a long row paints only its own.
fn within(hits: &[(usize, usize, bool)], from: usize, to: usize) -> &[(usize, usize, bool)] {
    // Every match has the query's length: their ends are in order too.
    let first = hits.partition_point(|h| h.1 <= from);
    let last = hits.partition_point(|h| h.0 < to);
    &hits[first..last.max(first)]
}

/// Cut `spans` (whose text starts at byte `at` of its row) where the
/// matches begin and end, the matched parts drawn as matches.
fn paint<'a>(spans: Vec<Span<'a>>, mut at: usize, hits: &[(usize, usize, bool)]) -> Vec<Span<'a>> {
    use std::borrow::Cow;
    if hits.is_empty() {
        return spans;
    }
    let cut = |c: &Cow<'a, str>, a: usize, b: usize| -> Option<Cow<'a, str>> {
        match c {
            Cow::Borrowed(s) => s.get(a..b).map(Cow::Borrowed),
            Cow::Owned(s) => s.get(a..b).map(|t| Cow::Owned(t.to_string())),
        }
    };
    let mut out = Vec::with_capacity(spans.len() + 2 * hits.len());
    for span in spans {
        let len = span.content.len();
        let (lo, hi) = (at, at + len);
        at = hi;
        if !hits.iter().any(|&(a, b, _)| a < hi && b > lo) {
            out.push(span);
            continue;
        }
        // Boundaries inside this span, in order.
        let mut marks: Vec<usize> = vec![0, len];
        for &(a, b, _) in hits {
            for x in [a, b] {
                if x > lo && x < hi {
                    marks.push(x - lo);
                }
            }
        }
        marks.sort_unstable();
        marks.dedup();
        for w in marks.windows(2) {
            let (a, b) = (w[0], w[1]);
            let Some(text) = cut(&span.content, a, b) else {
                // Not on a character boundary (cannot happen for a match
                // found in this text): the rest of the span unpainted.
                if let Some(rest) = cut(&span.content, a, len) {
                    out.push(Span::styled(rest, span.style));
                }
                break;
            };
            let style = match hits.iter().find(|&&(x, y, _)| x <= lo + a && lo + b <= y) {
                Some(&(_, _, cur)) => span.style.patch(hit_style(cur)),
                None => span.style,
            };
            out.push(Span::styled(text, style));
        }
    }
    out
}

impl Prepared {
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
            return self.styled.get(r.start as usize).cloned();
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

    /// Every place `query` occurs, in order, at most [`MAX_HITS`] (the
    /// flag says the rest were left). ASCII letters match either case
    /// unless the query has a capital (smart case, as in vim and less).
    ///
    /// The plain text is searched in one pass over the buffer that holds
    /// it (a 10 MB result in a few milliseconds), and the styled lines in
    /// one pass over their joined text; a match is then placed in its row
    /// by walking the rows alongside.
    pub fn find(&self, query: &str) -> (Vec<Hit>, bool) {
        if query.is_empty() {
            return (Vec::new(), false);
        }
        let (needle, fold) = needle_of(query);
        let n = needle.len() as u32;
        // The plain rows: their texts lie in `text` in row order.
        let mut plain = Vec::new();
        let mut capped = false;
        {
            let mut rows = self
                .rows
                .iter()
                .enumerate()
                .filter(|(_, r)| !r.styled)
                .peekable();
            find_all(self.text.as_bytes(), needle.as_bytes(), fold, |at| {
                let at = at as u32;
                while rows.next_if(|(_, r)| r.start + r.len <= at).is_some() {}
                if let Some((i, r)) = rows.peek()
                    && at >= r.start
                    && at + n <= r.start + r.len
                {
                    if plain.len() == MAX_HITS {
                        capped = true;
                        return false;
                    }
                    plain.push(Hit {
                        row: *i as u32,
                        start: at - r.start,
                        len: n,
                    });
                }
                true
            });
        }
        // The styled rows, through their joined text.
        let mut styled = Vec::new();
        if !self.styled.is_empty() {
            let mut cache = self.styled_text.borrow_mut();
            let joined = cache.get_or_insert_with(|| self.join_styled());
            let mut rows = joined.rows.iter().peekable();
            find_all(joined.text.as_bytes(), needle.as_bytes(), fold, |at| {
                let at = at as u32;
                while rows.next_if(|(_, start, len)| start + len <= at).is_some() {}
                if let Some((row, start, len)) = rows.peek()
                    && at >= *start
                    && at + n <= start + len
                {
                    if styled.len() == MAX_HITS {
                        capped = true;
                        return false;
                    }
                    styled.push(Hit {
                        row: *row,
                        start: at - start,
                        len: n,
                    });
                }
                true
            });
        }
        // Both in row order, the first MAX_HITS of them.
        let mut hits = Vec::with_capacity((plain.len() + styled.len()).min(MAX_HITS));
        let (mut a, mut b) = (plain.into_iter().peekable(), styled.into_iter().peekable());
        while hits.len() < MAX_HITS {
            let next = match (a.peek(), b.peek()) {
                (Some(x), Some(y)) if y.row < x.row => b.next(),
                (Some(_), _) => a.next(),
                (None, _) => b.next(),
            };
            match next {
                Some(h) => hits.push(h),
                None => break,
            }
        }
        capped |= a.peek().is_some() || b.peek().is_some();
        (hits, capped)
    }

    /// The matches of `query` among `hits` (matches of a prefix of it),
    /// with the same case rule as [`Prepared::find`].
    pub fn narrow(&self, mut hits: Vec<Hit>, query: &str) -> Vec<Hit> {
        let fold = !query.chars().any(char::is_uppercase);
        let needle = query.as_bytes();
        let n = needle.len() as u32;
        let mut cache = self.styled_text.borrow_mut();
        let joined = if self.styled.is_empty() {
            None
        } else {
            Some(&*cache.get_or_insert_with(|| self.join_styled()))
        };
        hits.retain_mut(|h| {
            let Some(r) = self.rows.get(h.row as usize) else {
                return false;
            };
            let row: &[u8] = if r.styled {
                match joined.and_then(|j| {
                    let k = j.rows.partition_point(|x| x.0 < h.row);
                    j.rows
                        .get(k)
                        .filter(|x| x.0 == h.row)
                        .and_then(|&(_, start, len)| {
                            j.text
                                .as_bytes()
                                .get(start as usize..(start + len) as usize)
                        })
                }) {
                    Some(b) => b,
                    None => return false,
                }
            } else {
                self.row_text(r).unwrap_or("").as_bytes()
            };
            let Some(at) = row.get(h.start as usize..(h.start + n) as usize) else {
                return false;
            };
            h.len = n;
            if fold {
                at.eq_ignore_ascii_case(needle)
            } else {
                at == needle
            }
        });
        hits
    }

    /// The styled lines' text, joined (see [`Joined`]).
    fn join_styled(&self) -> Joined {
        let mut j = Joined::default();
        for (i, r) in self.rows.iter().enumerate() {
            if !r.styled {
                continue;
            }
            let Some(line) = self.styled.get(r.start as usize) else {
                continue;
            };
            let start = j.text.len();
            for span in &line.spans {
                j.text.push_str(&span.content);
            }
            if j.text.len() > u32::MAX as usize {
                break;
            }
            j.rows
                .push((i as u32, start as u32, (j.text.len() - start) as u32));
        }
        j
    }

    /// The row that screen line `line` (at `width` columns) belongs to.
    pub fn row_at(&self, width: u16, line: usize) -> usize {
        self.with_wrap((width as usize).max(1), |w| {
            w.starts
                .partition_point(|s| *s <= line as u64)
                .saturating_sub(1)
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
                self.styled.get(r.start as usize).map_or(0, |l| {
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
            if let Some(line) = self.styled.get(r.start as usize) {
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
                self.styled.get(r.start as usize).map_or(1, |l| {
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

    fn push(&mut self, line: Line<'static>) {
        self.rows.push(Row {
            start: self.styled.len() as u32,
            len: 0,
            styled: true,
            style: PLAIN,
            indent: 0,
        });
        self.styled.push(line);
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

fn clean(s: &str) -> String {
    sanitize::one_line(s)
}

/// Push `text` as lines, sanitized, with an indent.
fn push_text(lines: &mut Prepared, text: &str, indent: &str, style: u8) {
    let text = sanitize::visible(text);
    lines.text.reserve(text.len());
    for l in text.lines() {
        lines.push_plain(indent, l, style);
    }
}

/// Blobs up to this size whose mime type says text are shown decoded.
const BLOB_PREVIEW: usize = 64 * 1024;

/// A blob's size, and its text when it is small text (`text/*`, JSON,
/// XML) in UTF-8.
fn push_blob(lines: &mut Prepared, mime: Option<&str>, blob: &str, indent: &str) {
    let size = Content::decoded_len(blob);
    let essence = essence(mime);
    let texty = essence.starts_with("text/")
        || is_json(Some(&essence))
        || essence.ends_with("+xml")
        || essence == "application/xml";
    let decoded = (texty && size <= BLOB_PREVIEW)
        .then(|| {
            use base64::Engine;
            base64::engine::general_purpose::STANDARD
                .decode(blob.trim())
                .ok()
                .and_then(|b| String::from_utf8(b).ok())
        })
        .flatten();
    match decoded {
        Some(text) => {
            lines.push(Line::styled(
                format!(
                    "{indent}[blob] {}, {} decoded (text, shown below)",
                    clean(&essence),
                    human(size)
                ),
                Role::Media.style(),
            ));
            push_text(lines, &text, indent, PLAIN);
        }
        None => lines.push(Line::styled(
            format!(
                "{indent}[blob] {}, {} decoded",
                if essence.is_empty() {
                    "no mimeType".to_string()
                } else {
                    clean(&essence)
                },
                human(size)
            ),
            Role::Media.style(),
        )),
    }
}

/// Text that is a JSON object or array is shown pretty-printed with its
/// keys and values coloured; other text as it is.
fn push_text_or_json(lines: &mut Prepared, text: &str) {
    let t = text.trim_start();
    // Very large JSON stays plain text (pretty-printing it costs too much).
    if (t.starts_with('{') || t.starts_with('['))
        && text.len() < HIGHLIGHT_LIMIT
        && let Ok(v) = serde_json::from_str::<Value>(text)
        && let Ok(pretty) = serde_json::to_string_pretty(&v)
    {
        for l in sanitize::visible(&pretty).lines() {
            lines.push(highlight_json_line(l));
        }
        return;
    }
    push_text(lines, text, "", PLAIN);
}

/// Colour one line of pretty JSON: keys, strings, numbers and literals.
fn highlight_json_line(line: &str) -> Line<'static> {
    use ratatui::text::Span;
    let indent = line.len() - line.trim_start().len();
    let body = &line[indent..];
    let mut spans = vec![Span::raw(line[..indent].to_string())];
    let (key, rest) = match body
        .strip_prefix('"')
        .and_then(|b| b.find("\": ").map(|i| (i, b)))
    {
        Some((i, b)) => (Some(&body[..i + 2]), &b[i + 1..]),
        None => (None, body),
    };
    if let Some(k) = key {
        spans.push(Span::styled(k.to_string(), Role::Accent.style()));
    }
    let value = rest.trim_start_matches(": ").trim_end_matches(',');
    let style = if value.starts_with('"') {
        Role::Ok.style()
    } else if value == "true" || value == "false" || value == "null" {
        Role::Media.style()
    } else if value.starts_with(|c: char| c == '-' || c.is_ascii_digit()) {
        Role::Warn.style()
    } else {
        Style::default()
    };
    spans.push(Span::styled(rest.to_string(), style));
    Line::from(spans)
}

/// The lines of a call's outcome.
pub fn lines(result: &Result<CallResult, CallError>, output_schema: Option<&Value>) -> Prepared {
    let mut lines = Prepared::default();
    match result {
        Err(e) => {
            lines.push(Line::styled(
                format!("✗ {}", clean(&e.to_string())),
                Role::Error.style().add_modifier(Modifier::BOLD),
            ));
            // The server went away mid-call: its last words say why (the
            // last few; the server's detail has the whole tail).
            let tail = e.stderr_tail();
            if !tail.is_empty() {
                lines.push(Line::styled(
                    "the server's last stderr lines:",
                    Role::Muted.style(),
                ));
                for l in &tail[tail.len().saturating_sub(6)..] {
                    lines.push(Line::styled(format!("  {}", clean(l)), Role::Muted.style()));
                }
            }
        }
        Ok(r) => {
            if r.is_error {
                lines.push(Line::styled(
                    "✗ the tool reported an error (isError)",
                    Role::Alert.style().add_modifier(Modifier::BOLD),
                ));
            }
            let raw_blocks = r.raw.get("content").and_then(Value::as_array);
            for (i, block) in r.content.iter().enumerate() {
                // What the block's annotations say (who it is for, how
                // important, when it changed), after the block.
                let annotations = raw_blocks
                    .and_then(|b| b.get(i))
                    .and_then(|b| b.get("annotations"))
                    .and_then(annotations_text);
                match block {
                    Content::Text { text } => push_text_or_json(&mut lines, text),
                    Content::Image { mime, data } => lines.push(Line::styled(
                        format!(
                            "[image] {}, {} bytes",
                            clean(mime),
                            Content::decoded_len(data)
                        ),
                        Role::Media.style(),
                    )),
                    Content::Audio { mime, data } => lines.push(Line::styled(
                        format!(
                            "[audio] {}, {} bytes",
                            clean(mime),
                            Content::decoded_len(data)
                        ),
                        Role::Media.style(),
                    )),
                    Content::ResourceLink { uri, name, .. } => lines.push(Line::styled(
                        format!(
                            "[link] {} {}",
                            clean(uri),
                            name.as_deref().map(clean).unwrap_or_default()
                        ),
                        Role::Link.style(),
                    )),
                    Content::Resource {
                        uri,
                        mime,
                        text,
                        blob,
                    } => {
                        let mime_text = mime
                            .as_deref()
                            .map(|m| format!(" · {}", clean(m)))
                            .unwrap_or_default();
                        lines.push(Line::styled(
                            format!("[resource] {}{mime_text}", clean(uri)),
                            Role::Link.style(),
                        ));
                        if let Some(t) = text {
                            push_text(&mut lines, t, "  ", PLAIN);
                        } else if let Some(b) = blob {
                            push_blob(&mut lines, mime.as_deref(), b, "  ");
                        }
                    }
                    Content::Unknown { kind, .. } => lines.push(Line::styled(
                        format!("[unknown content type {}]", clean(kind)),
                        Role::Warn.style(),
                    )),
                }
                if let Some(a) = annotations {
                    lines.push(Line::styled(format!("  ↳ {a}"), Role::Muted.style()));
                }
            }
            if let Some(sc) = r.structured() {
                lines.push(Line::styled(
                    "structuredContent",
                    Style::default().add_modifier(Modifier::BOLD),
                ));
                let pretty = serde_json::to_string_pretty(sc).unwrap_or_default();
                if pretty.len() < HIGHLIGHT_LIMIT {
                    for l in sanitize::visible(&pretty).lines() {
                        lines.push(highlight_json_line(l));
                    }
                } else {
                    push_text(&mut lines, &pretty, "", STRUCTURED);
                }
                if let Some(schema) = output_schema {
                    match crate::schema::check(schema, sc) {
                        Ok(v) if v.is_empty() => {
                            lines.push(Line::styled("✓ matches the outputSchema", Role::Ok.style()))
                        }
                        Ok(v) => {
                            for x in v {
                                lines.push(Line::styled(
                                    format!("✗ {}", clean(&x.to_string())),
                                    Role::Error.style(),
                                ));
                            }
                        }
                        Err(e) => {
                            lines.push(Line::styled(format!("? {}", clean(&e)), Role::Warn.style()))
                        }
                    }
                }
            }
        }
    }
    lines
}

/// A content block's `annotations` for a person: `for user · priority
/// 0.9 · modified 2025-01-12T15:00:58Z`, then any other key as JSON;
/// `None` when there are none.
pub fn annotations_text(a: &Value) -> Option<String> {
    let obj = a.as_object()?;
    let mut parts = Vec::new();
    if let Some(aud) = obj.get("audience") {
        let who: Vec<String> = aud
            .as_array()
            .map(|v| {
                v.iter()
                    .map(|x| x.as_str().map_or_else(|| x.to_string(), str::to_string))
                    .collect()
            })
            .unwrap_or_else(|| vec![aud.to_string()]);
        parts.push(format!("for {}", who.join(" and ")));
    }
    if let Some(p) = obj.get("priority") {
        parts.push(format!("priority {p}"));
    }
    if let Some(m) = obj.get("lastModified") {
        parts.push(format!(
            "modified {}",
            m.as_str().map_or_else(|| m.to_string(), str::to_string)
        ));
    }
    for (k, v) in obj {
        if !matches!(k.as_str(), "audience" | "priority" | "lastModified") {
            parts.push(format!("{k}: {v}"));
        }
    }
    (!parts.is_empty()).then(|| clean(&parts.join(" · ")))
}

/// Blobs, images and audio to save: a safe file name and the base64 data.
pub type Media = Vec<(String, String)>;

fn error_line(e: &crate::mcp::manager::CallError) -> Line<'static> {
    Line::styled(
        format!("✗ {}", clean(&e.to_string())),
        Role::Error.style().add_modifier(Modifier::BOLD),
    )
}

/// Whether a mime type is JSON (`application/json`, `…+json`).
fn is_json(mime: Option<&str>) -> bool {
    let essence = essence(mime);
    essence == "application/json" || essence.ends_with("+json")
}

/// A mime type's essence: `text/plain; charset=utf-8` is `text/plain`.
fn essence(mime: Option<&str>) -> String {
    mime.unwrap_or("")
        .split(';')
        .next()
        .unwrap_or("")
        .trim()
        .to_ascii_lowercase()
}

fn human(n: usize) -> String {
    crate::text::human_size(n)
}

/// The lines of a `resources/read` answer: each content with its URI,
/// mime type and size; text as it is (JSON pretty-printed when its mime
/// type says JSON), a blob by its decoded size (saved with `s`).
pub fn read_lines(result: &Result<Value, crate::mcp::manager::CallError>) -> (Prepared, Media) {
    let mut lines = Prepared::default();
    let mut media = Vec::new();
    let v = match result {
        Err(e) => {
            lines.push(error_line(e));
            return (lines, media);
        }
        Ok(v) => v,
    };
    let Some(contents) = v.get("contents").and_then(Value::as_array) else {
        lines.push(Line::styled(
            "✗ the answer has no `contents` array; as received:",
            Role::Error.style(),
        ));
        let pretty = serde_json::to_string_pretty(v).unwrap_or_default();
        push_text(&mut lines, &pretty, "", PLAIN);
        return (lines, media);
    };
    if contents.is_empty() {
        lines.push(Line::styled("(no contents)", Role::Muted.style()));
    }
    let head = Role::Link.style().add_modifier(Modifier::BOLD);
    for (i, c) in contents.iter().enumerate() {
        let s = |k: &str| c.get(k).and_then(Value::as_str);
        let uri = s("uri").unwrap_or("(no uri)");
        let mime = s("mimeType");
        let mime_text = mime.map(clean).unwrap_or_else(|| "no mimeType".into());
        if i > 0 {
            lines.push(Line::raw(""));
        }
        match (s("text"), s("blob")) {
            (Some(text), _) => {
                lines.push(Line::styled(
                    format!("{} · {mime_text} · {}", clean(uri), human(text.len())),
                    head,
                ));
                if is_json(mime) {
                    push_text_or_json(&mut lines, text);
                } else {
                    push_text(&mut lines, text, "", PLAIN);
                }
            }
            (None, Some(blob)) => {
                lines.push(Line::styled(
                    format!("{} · {mime_text} · blob", clean(uri)),
                    head,
                ));
                push_blob(&mut lines, mime, blob, "");
                media.push((crate::text::file_name_for(uri, mime), blob.to_string()));
            }
            (None, None) => {
                lines.push(Line::styled(format!("{} · {mime_text}", clean(uri)), head));
                lines.push(Line::styled("(neither text nor blob)", Role::Warn.style()));
            }
        }
    }
    (lines, media)
}

/// The lines of a `prompts/get` answer: its description, then each
/// message with its role and content (text, media by type and size, an
/// embedded resource with its text, a resource link).
pub fn prompt_lines(
    name: &str,
    result: &Result<Value, crate::mcp::manager::CallError>,
) -> (Prepared, Media) {
    let mut lines = Prepared::default();
    let mut media = Vec::new();
    let v = match result {
        Err(e) => {
            lines.push(error_line(e));
            return (lines, media);
        }
        Ok(v) => v,
    };
    if let Some(d) = v.get("description").and_then(Value::as_str) {
        push_text(&mut lines, d, "", STRUCTURED);
        lines.push(Line::raw(""));
    }
    let Some(messages) = v.get("messages").and_then(Value::as_array) else {
        lines.push(Line::styled(
            "✗ the answer has no `messages` array",
            Role::Error.style(),
        ));
        return (lines, media);
    };
    if messages.is_empty() {
        lines.push(Line::styled("(no messages)", Role::Muted.style()));
    }
    let muted = Role::Media.style();
    let mut findings = Vec::new();
    for (i, m) in messages.iter().enumerate() {
        let role = m.get("role").and_then(Value::as_str).unwrap_or("(no role)");
        lines.push(Line::styled(
            format!("{}:", clean(role)),
            Role::Accent.style().add_modifier(Modifier::BOLD),
        ));
        let blocks = match m.get("content") {
            Some(Value::Array(list)) => list.clone(),
            Some(b) => vec![b.clone()],
            None => vec![],
        };
        for (j, b) in blocks.iter().enumerate() {
            let file = |mime: &str| {
                crate::text::file_name_for(
                    &format!("mcpdeck-{name}-{}-{}", i + 1, j + 1),
                    Some(mime),
                )
            };
            match Content::parse(b, &mut findings) {
                Content::Text { text } => push_text(&mut lines, &text, "  ", PLAIN),
                Content::Image { mime, data } | Content::Audio { mime, data } => {
                    let kind = if matches!(b.get("type").and_then(Value::as_str), Some("audio")) {
                        "audio"
                    } else {
                        "image"
                    };
                    lines.push(Line::styled(
                        format!(
                            "  [{kind}] {}, {}",
                            clean(&mime),
                            human(Content::decoded_len(&data))
                        ),
                        muted,
                    ));
                    media.push((file(&mime), data));
                }
                Content::Resource {
                    uri,
                    mime,
                    text,
                    blob,
                } => {
                    let mime_text = mime
                        .as_deref()
                        .map(clean)
                        .map(|m| format!(" · {m}"))
                        .unwrap_or_default();
                    lines.push(Line::styled(
                        format!("  [resource] {}{mime_text}", clean(&uri)),
                        Role::Link.style(),
                    ));
                    if let Some(t) = text {
                        push_text(&mut lines, &t, "    ", PLAIN);
                    } else if let Some(b) = blob {
                        push_blob(&mut lines, mime.as_deref(), &b, "    ");
                        media.push((crate::text::file_name_for(&uri, mime.as_deref()), b));
                    }
                }
                Content::ResourceLink {
                    uri,
                    name,
                    mime,
                    description,
                } => {
                    let mut t = format!("  [link] {}", clean(&uri));
                    if let Some(n) = name {
                        t.push_str(&format!(" {}", clean(&n)));
                    }
                    if let Some(m) = mime {
                        t.push_str(&format!(" · {}", clean(&m)));
                    }
                    lines.push(Line::styled(t, Role::Link.style()));
                    if let Some(d) = description {
                        push_text(&mut lines, &d, "    ", PLAIN);
                    }
                }
                Content::Unknown { kind, .. } => lines.push(Line::styled(
                    format!("  [unknown content type {}]", clean(&kind)),
                    Role::Warn.style(),
                )),
            }
        }
    }
    (lines, media)
}

/// What a query looks for, and whether case is folded: ASCII letters
/// match either case unless the query has a capital (smart case).
fn needle_of(query: &str) -> (String, bool) {
    if query.chars().any(char::is_uppercase) {
        (query.to_string(), false)
    } else {
        (query.to_ascii_lowercase(), true)
    }
}

/// Every place `query` occurs in `rows` (each searched on its own, with
/// the case rule of [`Prepared::find`]), at most [`MAX_HITS`].
pub fn find_in_rows<'a>(rows: impl Iterator<Item = &'a str>, query: &str) -> (Vec<Hit>, bool) {
    let mut hits = Vec::new();
    if query.is_empty() {
        return (hits, false);
    }
    let (needle, fold) = needle_of(query);
    let n = needle.len() as u32;
    let mut capped = false;
    for (i, row) in rows.enumerate() {
        find_all(row.as_bytes(), needle.as_bytes(), fold, |at| {
            if hits.len() == MAX_HITS {
                capped = true;
                return false;
            }
            hits.push(Hit {
                row: i as u32,
                start: at as u32,
                len: n,
            });
            true
        });
        if capped {
            break;
        }
    }
    (hits, capped)
}

/// `line` (row `row` of what was searched) with its matches painted.
pub fn paint_line<'a>(line: Line<'a>, row: usize, marks: Option<Marks>) -> Line<'a> {
    let Some(m) = marks else { return line };
    let hits = m.in_row(row);
    if hits.is_empty() {
        return line;
    }
    let style = line.style;
    Line::from(paint(line.spans, 0, &hits)).style(style)
}

/// The text of a line, its spans joined.
pub fn line_text(line: &Line) -> String {
    line.spans.iter().map(|s| s.content.as_ref()).collect()
}

/// A search in a pane's text: what is typed, the matches and the current
/// one.
#[derive(Debug, Clone, Default)]
pub struct Search {
    pub query: String,
    /// The query is being typed (keys go into it).
    pub typing: bool,
    pub hits: Vec<Hit>,
    /// More matches than [`MAX_HITS`]: the rest were not kept.
    pub capped: bool,
    /// The current match (an index into `hits`).
    pub current: usize,
    /// The query `hits` were found for.
    searched: String,
}

impl Search {
    /// A search is shown (typed or kept).
    pub fn active(&self) -> bool {
        self.typing || !self.query.is_empty()
    }

    pub fn clear(&mut self) {
        *self = Search::default();
    }

    /// Forget the matches (the text searched changed), keeping the query.
    pub fn forget(&mut self) {
        self.hits.clear();
        self.searched.clear();
        self.capped = false;
        self.current = 0;
    }

    /// Look for the query again in `p`; the current match becomes the
    /// first one at or after screen line `from` (at `width` columns).
    /// Look for the query again in `rows` (a pane's lines); the current
    /// match becomes the first one in row `from` or below.
    pub fn run_rows<'a>(&mut self, rows: impl Iterator<Item = &'a str>, from: usize) {
        let (hits, capped) = find_in_rows(rows, &self.query);
        self.hits = hits;
        self.capped = capped;
        self.searched = self.query.clone();
        let first = self.hits.partition_point(|h| (h.row as usize) < from);
        self.current = if first < self.hits.len() { first } else { 0 };
    }

    pub fn run(&mut self, p: &Prepared, width: u16, from: usize) {
        // A letter typed after the last search: its matches are among
        // the last ones (when they were all kept, and the case rule is the
        // same), so only those are looked at again.
        let narrows = !self.capped
            && !self.searched.is_empty()
            && self.query.starts_with(&self.searched)
            && self.query.chars().any(char::is_uppercase)
                == self.searched.chars().any(char::is_uppercase);
        if narrows {
            let hits = std::mem::take(&mut self.hits);
            self.hits = p.narrow(hits, &self.query);
        } else {
            let (hits, capped) = p.find(&self.query);
            self.hits = hits;
            self.capped = capped;
        }
        self.searched = self.query.clone();
        // The first match in the row at screen line `from` or below (a
        // binary search: a common word has matches in every row).
        let row = p.row_at(width, from) as u32;
        let first = self.hits.partition_point(|h| h.row < row);
        self.current = if first < self.hits.len() { first } else { 0 };
    }

    /// Move to the next (`forward`) or previous match, wrapping around.
    pub fn step(&mut self, forward: bool) {
        let n = self.hits.len();
        if n == 0 {
            return;
        }
        self.current = if forward {
            (self.current + 1) % n
        } else {
            (self.current + n - 1) % n
        };
    }

    pub fn current_hit(&self) -> Option<Hit> {
        self.hits.get(self.current).copied()
    }

    pub fn marks(&self) -> Option<Marks<'_>> {
        (!self.hits.is_empty()).then_some(Marks {
            hits: &self.hits,
            current: Some(self.current),
        })
    }

    /// The part of a pane's title a search adds: ` · /word▏ · match 2 of
    /// 7` (the cursor while it is typed), with `counted`'s position (the
    /// matches in what is drawn); empty without a search.
    pub fn title(&self, counted: &Search) -> String {
        if !self.active() {
            return String::new();
        }
        let cursor = if self.typing { "▏" } else { "" };
        let at = counted
            .position()
            .map(|p| format!(" · {p}"))
            .unwrap_or_default();
        format!(" · /{}{cursor}{at}", crate::sanitize::one_line(&self.query))
    }

    /// "match 2 of 7", "no match", or nothing without a query.
    pub fn position(&self) -> Option<String> {
        if self.query.is_empty() {
            return None;
        }
        Some(match self.hits.len() {
            0 => "no match".to_string(),
            n => format!(
                "match {} of {n}{}",
                self.current + 1,
                if self.capped { "+" } else { "" }
            ),
        })
    }
}

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

    /// The text of the screen lines with the matched parts in brackets
    /// (`{…}` for the current one).
    fn marked(p: &Prepared, width: u16, search: &Search) -> Vec<String> {
        let n = p.screen_len(width);
        p.screen_lines_marked(width, 0, n, search.marks())
            .iter()
            .map(|l| {
                l.spans
                    .iter()
                    .map(|s| {
                        let m = s.style.add_modifier;
                        if m.contains(Modifier::REVERSED | Modifier::BOLD) {
                            format!("{{{}}}", s.content)
                        } else if m.contains(Modifier::REVERSED) {
                            format!("[{}]", s.content)
                        } else {
                            s.content.to_string()
                        }
                    })
                    .collect()
            })
            .collect()
    }

    fn search(p: &Prepared, q: &str, width: u16) -> Search {
        let mut s = Search {
            query: q.into(),
            ..Search::default()
        };
        s.run(p, width, 0);
        s
    }

    #[test]
    fn a_search_finds_every_match_with_smart_case_and_paints_it() {
        let mut p = Prepared::default();
        push_text(&mut p, "Alpha beta alpha\ngamma ALPHA", "", PLAIN);
        let s = search(&p, "alpha", 80);
        assert_eq!(s.hits.len(), 3, "lower case matches any case");
        assert_eq!(
            marked(&p, 80, &s),
            vec!["{Alpha} beta [alpha]", "gamma [ALPHA]"]
        );
        assert_eq!(search(&p, "ALPHA", 80).hits.len(), 1, "a capital: exact");
        assert_eq!(
            search(&p, "zeta", 80).position().as_deref(),
            Some("no match")
        );
        let mut s = search(&p, "alpha", 80);
        s.step(false);
        assert_eq!(s.position().as_deref(), Some("match 3 of 3"));
        s.step(true);
        assert_eq!(
            s.position().as_deref(),
            Some("match 1 of 3"),
            "wraps around"
        );
    }

    #[test]
    fn a_match_across_a_wrap_is_painted_on_both_lines_and_located() {
        let mut p = Prepared::default();
        push_text(&mut p, "aaaa bbbbneedlecccc", "", PLAIN);
        let s = search(&p, "needle", 8);
        // "aaaa " | "bbbbneed" | "lecccc": the match spans two lines.
        assert_eq!(marked(&p, 8, &s), vec!["aaaa ", "bbbb{need}", "{le}cccc"]);
        assert_eq!(p.screen_line_of(8, s.hits[0]), 1);
        // In a long ASCII row cut by arithmetic, and in a coloured line.
        let mut p = Prepared::default();
        let long = format!("{}XYZ", "a".repeat(100_000));
        push_text(&mut p, &long, "", PLAIN);
        let s = search(&p, "XYZ", 80);
        assert_eq!(p.screen_line_of(80, s.hits[0]), 100_000 / 80);
        let mut p = Prepared::default();
        push_text_or_json(&mut p, r#"{"key": "a value with a needle in it"}"#);
        let s = search(&p, "needle", 20);
        let line = p.screen_line_of(20, s.hits[0]);
        let lines = marked(&p, 20, &s);
        assert!(lines[line].contains("{need"), "{lines:?} at {line}");
    }

    #[test]
    fn a_search_keeps_at_most_max_hits_and_says_so() {
        let mut p = Prepared::default();
        push_text(&mut p, &"ab".repeat(MAX_HITS + 10), "", PLAIN);
        let s = search(&p, "a", 80);
        assert_eq!(s.hits.len(), MAX_HITS);
        assert!(s.position().unwrap().ends_with('+'));
    }

    #[test]
    fn lowering_eight_bytes_at_a_time_matches_the_byte_at_a_time_way() {
        let all: Vec<u8> = (0..=255u8)
            .chain(b"Hello, WORLD @[`{ Zz".iter().copied())
            .collect();
        for start in 0..9 {
            let src = &all[start..];
            let mut buf = vec![1, 2, 3];
            lower_into(&mut buf, src);
            assert_eq!(buf, src.to_ascii_lowercase());
        }
    }

    #[test]
    fn narrowing_a_search_as_letters_are_typed_finds_what_a_new_search_would() {
        let mut p = Prepared::default();
        push_text(
            &mut p,
            "an ant and an Antelope\nanchor\naaab\n-----\n-----",
            "",
            PLAIN,
        );
        push_text_or_json(&mut p, r#"{"an": "Ant anthem", "b": ["antenna"]}"#);
        for width in [6u16, 80] {
            let mut s = Search::default();
            for q in [
                "a", "an", "ant", "ante", "anten", "antE", "-", "--", "---", "a", "aa", "aab",
            ] {
                s.query = q.into();
                s.run(&p, width, 0);
                assert_eq!(s.hits, p.find(q).0, "{q:?} at width {width}");
            }
        }
        let mut s = Search {
            query: "ant".into(),
            ..Search::default()
        };
        s.run(&p, 80, 0);
        assert_eq!(s.hits.len(), 5, "{:?}", s.hits);
        // Overlapping matches count, and none runs from one row into the
        // next: `--` four times in each row of `-----`.
        assert_eq!(p.find("--").0.len(), 8);
        assert_eq!(p.find("aa").0.len(), 2);
    }
}
