//! Make text from a server safe for a terminal.
//!
//! Nothing a server sends may reach the terminal as an escape sequence: not
//! CSI/OSC/DCS sequences, not C0/C1 control characters, not bidi overrides
//! that reorder what the user reads. And nothing may stay hidden: zero-width
//! characters, Unicode tag characters, bidi controls and stray variation
//! selectors are shown as placeholders (`⟨U+200B⟩`), in both modes. A run of
//! tag characters is shown with the ASCII it hides: `⟨tags "ignore…"⟩`.
//! Emoji keep their joiners and selectors: U+200D between two emoji, U+FE0F
//! (or U+FE0E) after an emoji, and the tag letters of a subdivision flag.
//! Two modes:
//! - [`strip`] removes escape sequences and controls (the CLI's plain text
//!   output);
//! - [`visible`] replaces them with visible placeholders (traces, the TUI),
//!   so a hostile server is seen for what it is.

use std::borrow::Cow;
use std::iter::Peekable;
use std::str::CharIndices;

#[derive(Clone, Copy, PartialEq, Eq)]
enum Mode {
    Strip,
    Visible,
}

/// What kind of invisible character a server's text holds.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Hidden {
    /// U+200B–U+200F, U+2060–U+2064, U+FEFF and other invisible fillers.
    ZeroWidth,
    /// Unicode tag characters U+E0000–U+E007F (they can spell out ASCII).
    Tag,
    /// Bidi embeddings, overrides and isolates (U+202A–U+202E,
    /// U+2066–U+2069, U+061C).
    Bidi,
    /// Variation selectors U+FE00–U+FE0F, U+E0100–U+E01EF outside emoji.
    VariationSelector,
}

/// Remove escape sequences and control characters; keep `\n` and `\t`;
/// show invisible characters as `⟨U+200B⟩`.
pub fn strip(s: &str) -> Cow<'_, str> {
    clean(s, Mode::Strip)
}

/// Replace escape sequences, control characters and invisible characters
/// with visible placeholders (`␛[31m`, `␇`, `⟨U+202E⟩`); keep `\n` and `\t`.
pub fn visible(s: &str) -> Cow<'_, str> {
    clean(s, Mode::Visible)
}

/// Replace every control character, `\n` and `\t` included, for one-line
/// display (a frame in a log row).
pub fn one_line(s: &str) -> String {
    let v = visible(s);
    v.chars()
        .map(|c| match c {
            '\n' => '␤',
            '\t' => '␉',
            c => c,
        })
        .collect()
}

/// Escape control characters (`\n` and `\t` kept), bidi controls and
/// hidden characters as `\uXXXX` (a surrogate pair above U+FFFF), for text
/// that leaves mcpdeck (the clipboard): JSON stays valid and means the
/// same, and nothing pasted reorders, hides or commands a terminal.
/// Returns the text and how many characters were escaped.
pub fn escape_controls(s: &str) -> (Cow<'_, str>, usize) {
    if !s.chars().any(|c| needs_cleaning(c) || maybe_hidden(c)) {
        return (Cow::Borrowed(s), 0);
    }
    let hidden = hidden_chars(s);
    let mut out = String::with_capacity(s.len() + 16);
    let mut n = 0;
    let mut next = hidden.iter().peekable();
    for (i, c) in s.char_indices() {
        let is_hidden = next.peek().is_some_and(|h| h.0 == i);
        if is_hidden {
            next.next();
        }
        if is_hidden || needs_cleaning(c) {
            n += 1;
            let mut buf = [0u16; 2];
            for unit in c.encode_utf16(&mut buf) {
                out.push_str(&format!("\\u{unit:04x}"));
            }
        } else {
            out.push(c);
        }
    }
    (Cow::Owned(out), n)
}

fn is_bidi_control(c: char) -> bool {
    matches!(c, '\u{202A}'..='\u{202E}' | '\u{2066}'..='\u{2069}' | '\u{061C}')
}

fn needs_cleaning(c: char) -> bool {
    (c.is_control() && c != '\n' && c != '\t') || is_bidi_control(c)
}

/// The kind of an invisible character, whatever its neighbours.
pub fn hidden_kind(c: char) -> Option<Hidden> {
    match c {
        '\u{200B}'..='\u{200F}'
        | '\u{2060}'..='\u{2064}'
        | '\u{FEFF}'
        | '\u{00AD}'
        | '\u{034F}'
        | '\u{180E}'
        | '\u{115F}'
        | '\u{1160}'
        | '\u{3164}'
        | '\u{FFA0}' => Some(Hidden::ZeroWidth),
        '\u{E0000}'..='\u{E007F}' => Some(Hidden::Tag),
        '\u{FE00}'..='\u{FE0F}' | '\u{E0100}'..='\u{E01EF}' => Some(Hidden::VariationSelector),
        c if is_bidi_control(c) => Some(Hidden::Bidi),
        _ => None,
    }
}

fn maybe_hidden(c: char) -> bool {
    hidden_kind(c).is_some()
}

/// A character an emoji sequence may start with or join.
fn is_emoji(c: char) -> bool {
    matches!(c,
        '\u{00A9}' | '\u{00AE}' | '\u{203C}' | '\u{2049}' | '\u{2122}' | '\u{2139}'
        | '\u{2194}'..='\u{21AA}' | '\u{231A}'..='\u{23FF}' | '\u{24C2}'
        | '\u{25AA}'..='\u{25FE}' | '\u{2600}'..='\u{27BF}' | '\u{2934}' | '\u{2935}'
        | '\u{2B05}'..='\u{2B55}' | '\u{3030}' | '\u{303D}' | '\u{3297}' | '\u{3299}'
        | '\u{1F000}'..='\u{1FAFF}')
}

/// A CJK ideograph, which may take one variation selector.
fn is_ideograph(c: char) -> bool {
    matches!(c,
        '\u{3400}'..='\u{4DBF}' | '\u{4E00}'..='\u{9FFF}' | '\u{F900}'..='\u{FAFF}'
        | '\u{20000}'..='\u{3134F}')
}

/// The invisible characters of `s` that are not part of an emoji sequence,
/// by byte offset. Emoji keep U+200D between two emoji, U+FE0E/U+FE0F
/// after an emoji or a keycap base (`0-9#*`), the tag letters of a
/// subdivision flag (U+1F3F4, tag letters, U+E007F), and one variation
/// selector after a CJK ideograph.
pub fn hidden_chars(s: &str) -> Vec<(usize, char, Hidden)> {
    if !s.chars().any(maybe_hidden) {
        return Vec::new();
    }
    let chars: Vec<(usize, char)> = s.char_indices().collect();
    let mut out = Vec::new();
    // Whether the character before is part of an emoji: an emoji, or a
    // selector kept after one.
    let mut prev_emoji = false;
    let mut i = 0;
    while i < chars.len() {
        let (at, c) = chars[i];
        let Some(kind) = hidden_kind(c) else {
            prev_emoji = is_emoji(c);
            i += 1;
            continue;
        };
        let prev = i.checked_sub(1).map(|p| chars[p].1);
        let next = chars.get(i + 1).map(|n| n.1);
        let in_emoji = match c {
            '\u{200D}' => prev_emoji && next.is_some_and(is_emoji),
            '\u{FE0E}' | '\u{FE0F}' => {
                prev.is_some_and(|p| is_emoji(p) || matches!(p, '0'..='9' | '#' | '*'))
            }
            // An ideographic variation sequence: one selector after a CJK
            // ideograph (a run of them is smuggling, not typography).
            '\u{FE00}'..='\u{FE0D}' | '\u{E0100}'..='\u{E01EF}' => {
                prev.is_some_and(is_ideograph) && next.is_none_or(|n| hidden_kind(n).is_none())
            }
            '\u{E0020}'..='\u{E007E}' if prev == Some('\u{1F3F4}') => {
                // A subdivision flag: 🏴 + 2..=7 tag letters/digits + cancel tag.
                let mut j = i;
                while j < chars.len()
                    && matches!(chars[j].1, '\u{E0030}'..='\u{E0039}' | '\u{E0061}'..='\u{E007A}')
                {
                    j += 1;
                }
                let n = j - i;
                if (2..=7).contains(&n) && chars.get(j).map(|c| c.1) == Some('\u{E007F}') {
                    prev_emoji = true;
                    i = j + 1;
                    continue;
                }
                false
            }
            _ => false,
        };
        if !in_emoji {
            out.push((at, c, kind));
        }
        prev_emoji = in_emoji && c != '\u{200D}';
        i += 1;
    }
    out
}

/// The ASCII that a run of tag characters spells (U+E0020–U+E007E map to
/// ' '–'~'); other tag characters are `\u{..}`-escaped.
pub fn decode_tags(run: impl IntoIterator<Item = char>) -> String {
    run.into_iter()
        .map(|c| match c as u32 {
            n @ 0xE0020..=0xE007E => char::from_u32(n - 0xE0000)
                .map(String::from)
                .unwrap_or_default(),
            n => format!("\\u{{{n:X}}}"),
        })
        .collect()
}

type It<'a> = Peekable<CharIndices<'a>>;

fn clean(s: &str, mode: Mode) -> Cow<'_, str> {
    if !s.chars().any(|c| needs_cleaning(c) || maybe_hidden(c)) {
        return Cow::Borrowed(s);
    }
    let hidden = hidden_chars(s);
    if hidden.is_empty() && !s.chars().any(needs_cleaning) {
        return Cow::Borrowed(s);
    }
    let is_hidden = |i: usize| hidden.binary_search_by_key(&i, |h| h.0).is_ok();
    let mut out = String::with_capacity(s.len() + 16);
    let mut chars: It<'_> = s.char_indices().peekable();
    while let Some((i, c)) = chars.next() {
        match c {
            '\n' | '\t' => out.push(c),
            _ if is_hidden(i) && hidden_kind(c) == Some(Hidden::Tag) => {
                // A run of tag characters: show the text it spells.
                let mut run = vec![c];
                while let Some(&(j, d)) = chars.peek() {
                    if is_hidden(j) && hidden_kind(d) == Some(Hidden::Tag) {
                        run.push(d);
                        chars.next();
                    } else {
                        break;
                    }
                }
                out.push_str(&format!("⟨tags \"{}\"⟩", decode_tags(run)));
            }
            _ if is_hidden(i) => push_placeholder(&mut out, c),
            '\u{1b}' => {
                // An escape sequence: take all of it, so no part of it
                // reaches the terminal as a command.
                let mut seq = String::new();
                match chars.peek().map(|p| p.1) {
                    Some('[') => {
                        chars.next();
                        seq.push('[');
                        take_csi(&mut chars, &mut seq);
                    }
                    Some(n @ (']' | 'P' | 'X' | '^' | '_')) => {
                        chars.next();
                        seq.push(n);
                        take_string(&mut chars, &mut seq);
                    }
                    Some(n) if ('\u{20}'..='\u{7e}').contains(&n) => {
                        seq.push(n);
                        chars.next();
                    }
                    _ => {}
                }
                if mode == Mode::Visible {
                    out.push('␛');
                    push_visible(&mut out, &seq);
                }
            }
            '\u{9b}' => {
                let mut seq = String::new();
                take_csi(&mut chars, &mut seq);
                if mode == Mode::Visible {
                    out.push_str("⟨U+009B⟩");
                    push_visible(&mut out, &seq);
                }
            }
            '\u{9d}' | '\u{90}' | '\u{98}' | '\u{9e}' | '\u{9f}' => {
                let mut seq = String::new();
                take_string(&mut chars, &mut seq);
                if mode == Mode::Visible {
                    out.push_str(&format!("⟨U+{:04X}⟩", c as u32));
                    push_visible(&mut out, &seq);
                }
            }
            c if needs_cleaning(c) => {
                if mode == Mode::Visible {
                    push_placeholder(&mut out, c);
                }
            }
            // A joiner or selector kept for an emoji whose base an escape
            // sequence took: no longer part of an emoji.
            c if maybe_hidden(c) && !follows_emoji(out.chars().next_back(), c) => {
                push_placeholder(&mut out, c)
            }
            c => out.push(c),
        }
    }
    Cow::Owned(out)
}

/// Whether `c`, kept as part of an emoji, still follows what it belongs to.
fn follows_emoji(last: Option<char>, c: char) -> bool {
    let Some(last) = last else { return false };
    match c {
        '\u{FE0E}' | '\u{FE0F}' => is_emoji(last) || matches!(last, '0'..='9' | '#' | '*'),
        '\u{200D}' => is_emoji(last) || last == '\u{FE0F}',
        '\u{E0000}'..='\u{E007F}' => last == '\u{1F3F4}' || hidden_kind(last) == Some(Hidden::Tag),
        '\u{FE00}'..='\u{FE0D}' | '\u{E0100}'..='\u{E01EF}' => is_ideograph(last),
        _ => true,
    }
}

/// The rest of a CSI sequence: parameters and intermediates, then one final byte.
fn take_csi(chars: &mut It<'_>, seq: &mut String) {
    while let Some(&(_, c)) = chars.peek() {
        if ('\u{20}'..='\u{3f}').contains(&c) {
            seq.push(c);
            chars.next();
        } else {
            if ('\u{40}'..='\u{7e}').contains(&c) {
                seq.push(c);
                chars.next();
            }
            return;
        }
    }
}

/// The rest of a string sequence (OSC, DCS…), up to BEL or ST (`ESC \` or U+009C).
fn take_string(chars: &mut It<'_>, seq: &mut String) {
    while let Some(&(_, c)) = chars.peek() {
        if c == '\n' {
            // An unterminated sequence ends at the line's end; the newline stays.
            return;
        }
        chars.next();
        seq.push(c);
        match c {
            '\u{7}' | '\u{9c}' => return,
            '\u{1b}' => {
                if chars.peek().map(|p| p.1) == Some('\\') {
                    seq.push('\\');
                    chars.next();
                }
                return;
            }
            _ => {}
        }
    }
}

fn push_visible(out: &mut String, seq: &str) {
    for c in seq.chars() {
        if c == '\n' {
            out.push('\n');
        } else if needs_cleaning(c) || maybe_hidden(c) {
            push_placeholder(out, c);
        } else {
            out.push(c);
        }
    }
}

fn push_placeholder(out: &mut String, c: char) {
    let n = c as u32;
    match n {
        0x00..=0x1f => out.push(char::from_u32(0x2400 + n).unwrap_or('�')),
        0x7f => out.push('␡'),
        _ => out.push_str(&format!("⟨U+{n:04X}⟩")),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn escaped_controls_keep_json_meaning() {
        let raw = serde_json::json!({"t": "a\u{202e}b\u{1b}[2Jc\u{9b}d\ne"});
        let text = serde_json::to_string_pretty(&raw).unwrap();
        let (safe, n) = escape_controls(&text);
        // ESC is escaped by JSON itself; the bidi override and C1 are not.
        assert_eq!(n, 2, "{safe}");
        assert!(!safe.chars().any(needs_cleaning), "{safe}");
        assert!(
            safe.contains("\\u202e") && safe.contains("\\u009b"),
            "{safe}"
        );
        let back: serde_json::Value = serde_json::from_str(&safe).unwrap();
        assert_eq!(back, raw);
        let (plain, n) = escape_controls("plain\ttext\n");
        assert_eq!((plain.as_ref(), n), ("plain\ttext\n", 0));
    }

    const HOSTILE: &str = "ok\x1b[2J\x1b[31mred\x1b[0m \x1b]0;pwned\x07title \x1b]52;c;aGk=\x1b\\clip \u{9b}31m c1 \u{202e}evil\u{202c} bell\x07 cr\rX\x7f";

    #[test]
    fn strip_removes_every_sequence_and_control() {
        let s = strip(HOSTILE);
        assert_eq!(s, "okred title clip  c1 ⟨U+202E⟩evil⟨U+202C⟩ bell crX");
        for c in s.chars() {
            assert!(!needs_cleaning(c), "{c:?} left in {s:?}");
        }
    }

    #[test]
    fn visible_shows_placeholders_and_no_raw_controls() {
        let v = visible(HOSTILE);
        assert!(v.contains("␛[2J"));
        assert!(v.contains("␛]0;pwned␇"));
        assert!(v.contains("␛]52;c;aGk=␛\\"));
        assert!(v.contains("⟨U+009B⟩31m"));
        assert!(v.contains("⟨U+202E⟩evil⟨U+202C⟩"));
        assert!(v.contains("cr␍X␡"));
        for c in v.chars() {
            assert!(!needs_cleaning(c), "{c:?} left in {v:?}");
        }
    }

    #[test]
    fn clean_text_is_borrowed_and_newlines_stay() {
        assert!(matches!(
            strip("plain\ttext\nline two ünïcödé"),
            Cow::Borrowed(_)
        ));
        assert_eq!(strip("a\x1b[1mb\nc"), "ab\nc");
        assert_eq!(one_line("a\nb\tc"), "a␤b␉c");
    }

    #[test]
    fn unterminated_sequences_do_not_swallow_following_lines() {
        assert_eq!(strip("x\x1b]0;title\nnext line"), "x\nnext line");
        assert_eq!(strip("tail\x1b"), "tail");
        assert_eq!(strip("tail\x1b["), "tail");
    }

    #[test]
    fn invisible_characters_become_visible_in_every_mode() {
        let text = "a\u{200B}b\u{2060}c\u{FEFF}d\u{FE00}e";
        let want = "a⟨U+200B⟩b⟨U+2060⟩c⟨U+FEFF⟩d⟨U+FE00⟩e";
        assert_eq!(strip(text), want);
        assert_eq!(visible(text), want);
        assert_eq!(one_line(text), want);
        // Tag characters spell ASCII: the placeholder shows what.
        let tags: String = "hi!"
            .chars()
            .map(|c| char::from_u32(0xE0000 + c as u32).unwrap())
            .collect();
        assert_eq!(strip(&format!("x{tags}y")), "x⟨tags \"hi!\"⟩y");
        let kinds: Vec<Hidden> = hidden_chars("\u{200B}\u{202E}\u{E0041}\u{E0101}")
            .into_iter()
            .map(|h| h.2)
            .collect();
        assert_eq!(
            kinds,
            [
                Hidden::ZeroWidth,
                Hidden::Bidi,
                Hidden::Tag,
                Hidden::VariationSelector
            ]
        );
    }

    #[test]
    fn emoji_keep_their_joiners_and_selectors() {
        // ❤️ (U+2764 U+FE0F), 👨‍💻 (ZWJ), 1️⃣ (keycap), 🏴󠁧󠁢󠁳󠁣󠁴󠁿 (Scotland).
        for emoji in [
            "\u{2764}\u{FE0F}",
            "\u{1F468}\u{200D}\u{1F4BB}",
            "1\u{FE0F}\u{20E3}",
            "\u{1F3F4}\u{E0067}\u{E0062}\u{E0073}\u{E0063}\u{E0074}\u{E007F}",
        ] {
            let text = format!("ok {emoji} done");
            assert!(matches!(strip(&text), Cow::Borrowed(_)), "{text:?}");
            assert!(hidden_chars(&text).is_empty(), "{text:?}");
            assert_eq!(escape_controls(&text).1, 0);
        }
        // An ideographic variation sequence (葛󠄀) is typography too; a run
        // of selectors is not.
        assert!(hidden_chars("\u{845B}\u{E0100}").is_empty());
        assert_eq!(hidden_chars("\u{845B}\u{E0100}\u{E0101}").len(), 2);
        // The same characters outside emoji are hidden text.
        assert_eq!(strip("a\u{FE0F}b"), "a⟨U+FE0F⟩b");
        assert_eq!(strip("a\u{200D}b"), "a⟨U+200D⟩b");
    }

    #[test]
    fn copies_escape_hidden_characters_as_valid_json() {
        let raw = serde_json::json!({"t": "a\u{200B}b\u{E0041}c"});
        let text = serde_json::to_string(&raw).unwrap();
        let (safe, n) = escape_controls(&text);
        assert_eq!(n, 2, "{safe}");
        assert!(
            safe.contains("\\u200b") && safe.contains("\\udb40\\udc41"),
            "{safe}"
        );
        let back: serde_json::Value = serde_json::from_str(&safe).unwrap();
        assert_eq!(back, raw);
    }

    proptest::proptest! {
        #![proptest_config(proptest::prelude::ProptestConfig::with_cases(500))]

        /// What `strip` and `visible` give back holds nothing hidden and
        /// nothing to clean: cleaning it again changes nothing.
        #[test]
        fn cleaning_is_final(
            s in "([a-z19#*]|\u{1b}|\u{1b}\\[|\u{9b}|\u{200b}|\u{200d}|\u{202e}|\u{2060}|\u{fe0f}|\u{fe00}|\u{20e3}|\u{e0041}|\u{e0067}|\u{e007f}|\u{e0101}|\u{1f600}|\u{1f3f4}|\u{2764}|葛|\n){0,24}",
        ) {
            for clean in [strip(&s).into_owned(), visible(&s).into_owned()] {
                proptest::prop_assert!(hidden_chars(&clean).is_empty(), "{:?} -> {:?}", s, clean);
                proptest::prop_assert_eq!(strip(&clean).into_owned(), clean.clone());
            }
        }
    }
}
