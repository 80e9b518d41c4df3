//! Hidden content: invisible and control characters in any text, and
//! names that mix Latin with look-alike letters.

use super::*;

/// Hidden characters and control characters in one text.
pub(super) fn hidden_findings(t: &Text, out: &mut Vec<Pending>) {
    let hidden = sanitize::hidden_chars(&t.text);
    let mut by_kind: BTreeMap<u8, Vec<(usize, char)>> = BTreeMap::new();
    for (at, c, kind) in &hidden {
        let k = match kind {
            Hidden::ZeroWidth => 0,
            Hidden::Tag => 1,
            Hidden::Bidi => 2,
            Hidden::VariationSelector => 3,
        };
        by_kind.entry(k).or_default().push((*at, *c));
    }
    for (k, hits) in by_kind {
        let (first, c) = hits[0];
        let n = hits.len();
        let (rule, message) = match k {
            0 => (
                "hidden-zero-width",
                format!(
                    "{n} invisible character{} (first U+{:04X}): a person reading this sees nothing there, the model reads it",
                    plural(n),
                    c as u32
                ),
            ),
            1 => {
                let decoded = sanitize::decode_tags(hits.iter().map(|h| h.1));
                (
                    "hidden-tag-characters",
                    format!(
                        "{n} Unicode tag character{} spell out text no one sees: \"{}\"",
                        plural(n),
                        cap(&sanitize::one_line(&decoded), 200)
                    ),
                )
            }
            2 => (
                "hidden-bidi",
                format!(
                    "{n} bidi control{} (first U+{:04X}): the text a person reads is not the order the model reads",
                    plural(n),
                    c as u32
                ),
            ),
            _ => {
                // Each selector can carry a byte (U+FE00–FE0F: 0–15,
                // U+E0100–E01EF: 16–255): show them when they spell text.
                let bytes: Vec<u8> = hits
                    .iter()
                    .filter_map(|h| match h.1 as u32 {
                        n @ 0xFE00..=0xFE0F => u8::try_from(n - 0xFE00).ok(),
                        n @ 0xE0100..=0xE01EF => u8::try_from(n - 0xE0100 + 16).ok(),
                        _ => None,
                    })
                    .collect();
                let spelled = String::from_utf8(bytes)
                    .ok()
                    .filter(|t| t.len() >= 3 && t.chars().all(|c| c.is_ascii_graphic() || c == ' '))
                    .map(|t| format!("; as bytes they spell \"{}\"", cap(&t, 120)))
                    .unwrap_or_default();
                (
                    "hidden-variation-selector",
                    format!(
                        "{n} variation selector{} outside an emoji (first U+{:04X}): invisible, and a known way to smuggle bytes{spelled}",
                        plural(n),
                        c as u32
                    ),
                )
            }
        };
        let evidence = if k == 1 {
            // The decoded message is the evidence: show all of it we can.
            let last = hits.last().map(|h| h.0 + 4).unwrap_or(first);
            let before: String = t.text[..first]
                .chars()
                .rev()
                .take(20)
                .collect::<Vec<_>>()
                .into_iter()
                .rev()
                .collect();
            cap(
                &format!(
                    "{}{}",
                    sanitize::one_line(&before),
                    sanitize::one_line(&t.text[first..floor(&t.text, last.min(t.text.len()))])
                ),
                160,
            )
        } else {
            evidence(&t.text, first, first + c.len_utf8())
        };
        out.push(Pending {
            rule,
            severity: Severity::High,
            field: t.field.clone(),
            message,
            evidence,
        });
    }
    // Escapes and control characters (a CR before LF is a line end).
    let bytes = t.text.as_bytes();
    if let Some((at, c)) = t.text.char_indices().find(|&(i, c)| {
        c.is_control() && c != '\n' && c != '\t' && !(c == '\r' && bytes.get(i + 1) == Some(&b'\n'))
    }) {
        let what = if c == '\u{1b}' || c == '\u{9b}' {
            "a terminal escape sequence"
        } else {
            "a control character"
        };
        out.push(Pending {
            rule: "hidden-control",
            severity: Severity::High,
            field: t.field.clone(),
            message: format!(
                "{what} (U+{:04X}): it can rewrite what a terminal shows, hiding or faking text",
                c as u32
            ),
            evidence: evidence(&t.text, at, at + c.len_utf8()),
        });
    }
}

pub(super) fn plural(n: usize) -> &'static str {
    if n == 1 { "" } else { "s" }
}

pub(super) fn is_cyrillic_or_greek(c: char) -> bool {
    matches!(c, '\u{0370}'..='\u{03FF}' | '\u{0400}'..='\u{04FF}' | '\u{0500}'..='\u{052F}' | '\u{1F00}'..='\u{1FFF}')
}

/// Letters of Cyrillic and Greek that look like Latin ones.
pub(super) const LOOK_ALIKES: &str = "аеорсухіјѕһԁԛԝуАВЕКМНОРСТХІЈЅοαρτνικΑΒΕΖΗΙΚΜΝΟΡΤΥΧ";

/// A name mixing Latin letters with Cyrillic or Greek ones, or written
/// only in look-alikes, in one word.
pub(super) fn confusable(name: &str) -> Option<(usize, usize)> {
    let mut words: Vec<(usize, &str)> = Vec::new();
    let mut from: Option<usize> = None;
    for (i, c) in name
        .char_indices()
        .chain(std::iter::once((name.len(), ' ')))
    {
        match (c.is_alphanumeric() && i < name.len(), from) {
            (true, None) => from = Some(i),
            (false, Some(f)) => {
                words.push((f, &name[f..i]));
                from = None;
            }
            _ => {}
        }
    }
    for (at, word) in words {
        let latin = word.chars().any(|c| c.is_ascii_alphabetic());
        let other: Vec<char> = word.chars().filter(|&c| is_cyrillic_or_greek(c)).collect();
        if other.is_empty() {
            continue;
        }
        let all_alike = !latin
            && other.len() == word.chars().filter(|c| c.is_alphabetic()).count()
            && other.iter().all(|c| LOOK_ALIKES.contains(*c))
            && name.chars().any(|c| c.is_ascii_alphabetic());
        if latin || all_alike {
            return Some((at, at + word.len()));
        }
    }
    None
}

pub(super) fn name_findings(def: &Def<'_>, t: &Text, out: &mut Vec<Pending>) {
    if let Some((s, e)) = confusable(&t.text) {
        let letters: Vec<String> = t.text[s..e]
            .chars()
            .filter(|&c| is_cyrillic_or_greek(c))
            .map(|c| format!("{c} U+{:04X}", c as u32))
            .collect();
        let severity = if t.role == Role::Name {
            Severity::High
        } else {
            Severity::Medium
        };
        out.push(Pending {
            rule: "confusable-name",
            severity,
            field: t.field.clone(),
            message: format!(
                "the {} \"{}\" mixes Latin with look-alike letters ({}): it poses as another name",
                if t.role == Role::Name {
                    def.kind.label()
                } else {
                    "parameter"
                },
                sanitize::one_line(&t.text),
                letters.join(", ")
            ),
            evidence: evidence(&t.text, s, e),
        });
    }
}
