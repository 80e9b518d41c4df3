//! Searching a prepared outcome, or a pane's rows: where a query occurs
//! (one pass over the text, ASCII case folded a block at a time), the
//! matches painted on the lines drawn, and [`Search`], the state of a
//! search as it is typed and stepped through.

use ratatui::style::{Modifier, Style};
use ratatui::text::{Line, Span};

use super::{Joined, Prepared};
use crate::tui::theme::Role;

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
    pub(super) fn in_row(&self, row: usize) -> Vec<(usize, usize, bool)> {
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
pub(super) fn within(
    hits: &[(usize, usize, bool)],
    from: usize,
    to: usize,
) -> &[(usize, usize, bool)] {
    // Every match has the query's length: their ends are in order too.
    let first = hits.partition_point(|h| h.1 <= from);
    let last = hits.partition_point(|h| h.0 < to);
    &hits[first..last.max(first)]
}

/// Cut `spans` (whose text starts at byte `at` of its row) where the
/// matches begin and end, the matched parts drawn as matches.
pub(super) fn paint<'a>(
    spans: Vec<Span<'a>>,
    mut at: usize,
    hits: &[(usize, usize, bool)],
) -> Vec<Span<'a>> {
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
        if self.has_styled() {
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
        let joined = if !self.has_styled() {
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
            let Some(line) = self.styled_line(r.start as usize) else {
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
mod tests {
    use super::super::{PLAIN, push_text, push_text_or_json};
    use super::*;

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
