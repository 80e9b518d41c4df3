//! Make text from a server safe for a terminal.
//!
//! Nothing a server sends may reach the terminal as an escape sequence: not
//! CSI/OSC/DCS sequences, not C0/C1 control characters, not bidi overrides
//! that reorder what the user reads. Two modes:
//! - [`strip`] removes them (the CLI's plain text output);
//! - [`visible`] replaces them with visible placeholders (traces, the TUI),
//!   so a hostile server is seen for what it is.

use std::borrow::Cow;

#[derive(Clone, Copy, PartialEq, Eq)]
enum Mode {
    Strip,
    Visible,
}

/// Remove escape sequences and control characters; keep `\n` and `\t`.
pub fn strip(s: &str) -> Cow<'_, str> {
    clean(s, Mode::Strip)
}

/// Replace escape sequences and control characters with visible
/// placeholders (`␛[31m`, `␇`, `<U+202E>`); keep `\n` and `\t`.
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

/// Escape control characters (`\n` and `\t` kept) and bidi controls as
/// `\uXXXX`, for text that leaves mcpdeck (the clipboard): JSON stays
/// valid and means the same, and nothing pasted reorders or commands a
/// terminal. Returns the text and how many characters were escaped.
pub fn escape_controls(s: &str) -> (Cow<'_, str>, usize) {
    if !s.chars().any(needs_cleaning) {
        return (Cow::Borrowed(s), 0);
    }
    let mut out = String::with_capacity(s.len() + 16);
    let mut n = 0;
    for c in s.chars() {
        if needs_cleaning(c) {
            n += 1;
            out.push_str(&format!("\\u{:04x}", c as u32));
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

fn clean(s: &str, mode: Mode) -> Cow<'_, str> {
    if !s.chars().any(needs_cleaning) {
        return Cow::Borrowed(s);
    }
    let mut out = String::with_capacity(s.len() + 16);
    let mut chars = s.chars().peekable();
    while let Some(c) = chars.next() {
        match c {
            '\n' | '\t' => out.push(c),
            '\u{1b}' => {
                // An escape sequence: take all of it, so no part of it
                // reaches the terminal as a command.
                let mut seq = String::new();
                match chars.peek().copied() {
                    Some('[') => {
                        seq.push(chars.next().unwrap_or('['));
                        take_csi(&mut chars, &mut seq);
                    }
                    Some(']') | Some('P') | Some('X') | Some('^') | Some('_') => {
                        seq.push(chars.next().unwrap_or(']'));
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
                    out.push_str("<U+009B>");
                    push_visible(&mut out, &seq);
                }
            }
            '\u{9d}' | '\u{90}' | '\u{98}' | '\u{9e}' | '\u{9f}' => {
                let mut seq = String::new();
                take_string(&mut chars, &mut seq);
                if mode == Mode::Visible {
                    out.push_str(&format!("<U+{:04X}>", c as u32));
                    push_visible(&mut out, &seq);
                }
            }
            c if needs_cleaning(c) => {
                if mode == Mode::Visible {
                    push_placeholder(&mut out, c);
                }
            }
            c => out.push(c),
        }
    }
    Cow::Owned(out)
}

/// The rest of a CSI sequence: parameters and intermediates, then one final byte.
fn take_csi(chars: &mut std::iter::Peekable<std::str::Chars<'_>>, seq: &mut String) {
    while let Some(&c) = chars.peek() {
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
fn take_string(chars: &mut std::iter::Peekable<std::str::Chars<'_>>, seq: &mut String) {
    while let Some(&c) = chars.peek() {
        if c == '\n' {
            // An unterminated sequence ends at the line's end; the newline stays.
            return;
        }
        chars.next();
        seq.push(c);
        match c {
            '\u{7}' | '\u{9c}' => return,
            '\u{1b}' => {
                if chars.peek() == Some(&'\\') {
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
        } else if needs_cleaning(c) {
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
        _ => out.push_str(&format!("<U+{n:04X}>")),
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
        assert_eq!(s, "okred title clip  c1 evil bell crX");
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
        assert!(v.contains("<U+009B>31m"));
        assert!(v.contains("<U+202E>evil<U+202C>"));
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
}
