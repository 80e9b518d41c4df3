//! What changed between pins and now: definitions added, removed and
//! changed; for a changed one, each field that differs by its path
//! (`description`, `inputSchema.properties.path.type`, `arguments[city]`),
//! with a word diff of text.

use std::collections::BTreeMap;

use serde::Serialize;
use serde_json::Value;

use super::{Definition, Kind, ServerPins, canonical_text};
use crate::sanitize;

/// How a definition changed.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize)]
#[serde(rename_all = "lowercase")]
pub enum ChangeKind {
    Added,
    Removed,
    Changed,
}

/// One definition that is not as pinned.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct Change {
    pub kind: Kind,
    pub name: String,
    pub what: ChangeKind,
    /// For `changed`: each field that differs. For `added` and `removed`:
    /// the definition's fields (on the side that has them).
    pub fields: Vec<FieldDiff>,
}

/// One field that differs. `before` and `after` are the exact text (a
/// string as it is, anything else as canonical JSON); `None` where the
/// field is absent on that side.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub struct FieldDiff {
    pub field: String,
    pub before: Option<String>,
    pub after: Option<String>,
    /// The word diff of `before` and `after` when both are there.
    pub words: Vec<WordChange>,
}

/// A run of the word diff.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
#[serde(tag = "op", content = "text", rename_all = "lowercase")]
pub enum WordChange {
    Same(String),
    Removed(String),
    Added(String),
}

/// The definitions added, removed and changed from `pinned` to `now`,
/// sorted by kind and name. `serverInfo` is not compared here (see
/// [`info_change`]).
pub fn compare(pinned: &ServerPins, now: &ServerPins) -> Vec<Change> {
    let index = |p: &'_ ServerPins| -> BTreeMap<(Kind, String), Definition> {
        p.definitions
            .iter()
            .map(|d| ((d.kind, d.name.clone()), d.clone()))
            .collect()
    };
    let (before, after) = (index(pinned), index(now));
    let mut keys: Vec<&(Kind, String)> = before.keys().chain(after.keys()).collect();
    keys.sort();
    keys.dedup();
    let mut changes = Vec::new();
    for key in keys {
        let (kind, name) = (key.0, key.1.clone());
        match (before.get(key), after.get(key)) {
            (Some(b), Some(a)) if b.sha256 == a.sha256 => {}
            (Some(b), Some(a)) => {
                let mut fields = Vec::new();
                diff_value("", Some(&b.canonical), Some(&a.canonical), &mut fields);
                changes.push(Change {
                    kind,
                    name,
                    what: ChangeKind::Changed,
                    fields,
                });
            }
            (Some(b), None) => changes.push(Change {
                kind,
                name,
                what: ChangeKind::Removed,
                fields: whole(&b.canonical, true),
            }),
            (None, Some(a)) => changes.push(Change {
                kind,
                name,
                what: ChangeKind::Added,
                fields: whole(&a.canonical, false),
            }),
            (None, None) => {}
        }
    }
    changes
}

/// The server's name or version, if either differs from the pinned one:
/// a [`Kind::Server`] change, for information (not a failure of `verify`).
pub fn info_change(pinned: &ServerPins, now: &ServerPins) -> Option<Change> {
    let as_value = |p: &ServerPins| {
        p.server_info
            .as_ref()
            .map(|i| serde_json::json!({"name": i.name, "version": i.version}))
    };
    let (b, a) = (as_value(pinned)?, as_value(now)?);
    let mut fields = Vec::new();
    diff_value("serverInfo", Some(&b), Some(&a), &mut fields);
    (!fields.is_empty()).then(|| Change {
        kind: Kind::Server,
        name: now.server.clone(),
        what: ChangeKind::Changed,
        fields,
    })
}

/// The top-level fields of a definition (but its name), on one side.
fn whole(canonical: &Value, removed: bool) -> Vec<FieldDiff> {
    let Some(obj) = canonical.as_object() else {
        return Vec::new();
    };
    obj.iter()
        .filter(|(k, _)| k.as_str() != "name")
        .map(|(k, v)| {
            let text = Some(text_of(v));
            FieldDiff {
                field: k.clone(),
                before: if removed { text.clone() } else { None },
                after: if removed { None } else { text },
                words: Vec::new(),
            }
        })
        .collect()
}

/// A value as text: a string as it is, anything else as canonical JSON.
fn text_of(v: &Value) -> String {
    match v {
        Value::String(s) => s.clone(),
        v => canonical_text(v),
    }
}

/// `path.key`, or `path["key"]` when the key is not a plain word.
fn join(path: &str, key: &str) -> String {
    let plain = !key.is_empty()
        && key
            .chars()
            .all(|c| c.is_alphanumeric() || c == '_' || c == '-' || c == '$');
    match (path.is_empty(), plain) {
        (true, true) => key.to_string(),
        (false, true) => format!("{path}.{key}"),
        (_, false) => format!("{path}[{}]", serde_json::Value::from(key)),
    }
}

/// The `name` of each element when every element is an object with a
/// distinct string `name` (prompt arguments, …).
fn names(items: &[Value]) -> Option<Vec<&str>> {
    let names: Vec<&str> = items
        .iter()
        .map(|v| v.get("name").and_then(Value::as_str))
        .collect::<Option<_>>()?;
    let mut sorted = names.clone();
    sorted.sort();
    sorted.dedup();
    (sorted.len() == names.len()).then_some(names)
}

/// Push a [`FieldDiff`] for each difference between `before` and `after`
/// under `path`: objects by key, arrays of named objects by name, other
/// arrays of objects by index; strings, scalars and arrays of scalars are
/// compared whole, with a word diff.
fn diff_value(path: &str, before: Option<&Value>, after: Option<&Value>, out: &mut Vec<FieldDiff>) {
    match (before, after) {
        (None, None) => {}
        (Some(b), Some(a)) if b == a => {}
        (Some(Value::Object(b)), Some(Value::Object(a))) => {
            let mut keys: Vec<&String> = b.keys().chain(a.keys()).collect();
            keys.sort();
            keys.dedup();
            for k in keys {
                diff_value(&join(path, k), b.get(k), a.get(k), out);
            }
        }
        (Some(Value::Array(b)), Some(Value::Array(a)))
            if b.iter().chain(a).all(Value::is_object) && !(b.is_empty() && a.is_empty()) =>
        {
            if let (Some(bn), Some(an)) = (names(b), names(a)) {
                let mut keys: Vec<&str> = bn.iter().chain(&an).copied().collect();
                keys.sort();
                keys.dedup();
                for k in keys {
                    let p = format!("{path}[{}]", serde_json::Value::from(k));
                    let bi = bn.iter().position(|n| *n == k).map(|i| &b[i]);
                    let ai = an.iter().position(|n| *n == k).map(|i| &a[i]);
                    diff_value(&p, bi, ai, out);
                }
            } else {
                for i in 0..b.len().max(a.len()) {
                    diff_value(&format!("{path}[{i}]"), b.get(i), a.get(i), out);
                }
            }
        }
        (Some(Value::Array(b)), Some(Value::Array(a)))
            if b.iter().chain(a).all(|v| !v.is_object() && !v.is_array()) =>
        {
            let list = |items: &[Value]| {
                items
                    .iter()
                    .map(canonical_text)
                    .collect::<Vec<_>>()
                    .join(", ")
            };
            let (bt, at) = (list(b), list(a));
            out.push(FieldDiff {
                field: path.to_string(),
                words: word_diff(&bt, &at),
                before: Some(bt),
                after: Some(at),
            });
        }
        (b, a) => {
            let (bt, at) = (b.map(text_of), a.map(text_of));
            let words = match (&bt, &at) {
                // One word each (a type, a version, a URI): replaced whole
                // reads better than `0.[-0-]{+1+}.[-9-]{+0+}`.
                (Some(x), Some(y))
                    if !x.contains(char::is_whitespace) && !y.contains(char::is_whitespace) =>
                {
                    let removed = (!x.is_empty()).then(|| WordChange::Removed(x.clone()));
                    let added = (!y.is_empty()).then(|| WordChange::Added(y.clone()));
                    removed.into_iter().chain(added).collect()
                }
                (Some(x), Some(y)) => word_diff(x, y),
                _ => Vec::new(),
            };
            out.push(FieldDiff {
                field: path.to_string(),
                before: bt,
                after: at,
                words,
            });
        }
    }
}

/// The most cells of the LCS table; a longer changed middle is shown as
/// removed whole and added whole.
const MAX_CELLS: usize = 1_000_000;

/// Words, runs of white space, and every other character alone.
fn tokens(s: &str) -> Vec<&str> {
    #[derive(PartialEq, Clone, Copy)]
    enum Class {
        Word,
        Space,
        Other,
    }
    let class = |c: char| {
        if c.is_alphanumeric() || c == '_' {
            Class::Word
        } else if c.is_whitespace() {
            Class::Space
        } else {
            Class::Other
        }
    };
    let mut out = Vec::new();
    let mut start = 0;
    let mut last: Option<Class> = None;
    for (i, c) in s.char_indices() {
        let k = class(c);
        if let Some(l) = last
            && (l != k || k == Class::Other)
        {
            out.push(&s[start..i]);
            start = i;
        }
        last = Some(k);
    }
    if start < s.len() {
        out.push(&s[start..]);
    }
    out
}

/// A word-level diff of `before` and `after`: runs of same, removed and
/// added text that, read in order, give `before` (same + removed) and
/// `after` (same + added). The common start and end are found first; the
/// middle by longest common subsequence, or, when it is too long (see
/// [`MAX_CELLS`]), as one removal and one addition.
pub fn word_diff(before: &str, after: &str) -> Vec<WordChange> {
    token_diff(&tokens(before), &tokens(after))
}

/// A line diff of `before` and `after`, as [`word_diff`] does words: each
/// run holds whole lines (with their line ends).
pub fn line_diff(before: &str, after: &str) -> Vec<WordChange> {
    let b: Vec<&str> = before.split_inclusive('\n').collect();
    let a: Vec<&str> = after.split_inclusive('\n').collect();
    token_diff(&b, &a)
}

/// Every field that differs from `before` to `after`, by its path
/// (`city`, `units.kind`, `items[2]`), each with a word diff: what the
/// pin diff shows for a definition, for any two values (a call's
/// arguments in the history).
pub fn values(before: &Value, after: &Value) -> Vec<FieldDiff> {
    let mut out = Vec::new();
    diff_value("", Some(before), Some(after), &mut out);
    out
}

/// The diff of two token lists: common start and end first, the middle by
/// longest common subsequence (or removed and added whole past
/// [`MAX_CELLS`]); runs merged.
fn token_diff(b: &[&str], a: &[&str]) -> Vec<WordChange> {
    let prefix = b.iter().zip(a).take_while(|(x, y)| x == y).count();
    let suffix = b[prefix..]
        .iter()
        .rev()
        .zip(a[prefix..].iter().rev())
        .take_while(|(x, y)| x == y)
        .count();
    let (bm, am) = (&b[prefix..b.len() - suffix], &a[prefix..a.len() - suffix]);
    let mut ops: Vec<(u8, &str)> = Vec::new();
    ops.extend(b[..prefix].iter().map(|t| (0, *t)));
    if (bm.len() + 1).saturating_mul(am.len() + 1) > MAX_CELLS {
        ops.extend(bm.iter().map(|t| (1, *t)));
        ops.extend(am.iter().map(|t| (2, *t)));
    } else {
        lcs_ops(bm, am, &mut ops);
    }
    ops.extend(b[b.len() - suffix..].iter().map(|t| (0, *t)));
    let mut out: Vec<WordChange> = Vec::new();
    for (op, t) in ops {
        match (out.last_mut(), op) {
            (Some(WordChange::Same(s)), 0)
            | (Some(WordChange::Removed(s)), 1)
            | (Some(WordChange::Added(s)), 2) => s.push_str(t),
            (_, 0) => out.push(WordChange::Same(t.into())),
            (_, 1) => out.push(WordChange::Removed(t.into())),
            _ => out.push(WordChange::Added(t.into())),
        }
    }
    out
}

/// The diff of two token lists by their longest common subsequence
/// (0 same, 1 removed, 2 added); removals come before additions.
fn lcs_ops<'a>(b: &[&'a str], a: &[&'a str], ops: &mut Vec<(u8, &'a str)>) {
    let (n, m) = (b.len(), a.len());
    let w = m + 1;
    // dp[i * w + j]: the LCS length of b[i..] and a[j..].
    let mut dp = vec![0u32; (n + 1) * w];
    for i in (0..n).rev() {
        for j in (0..m).rev() {
            dp[i * w + j] = if b[i] == a[j] {
                dp[(i + 1) * w + j + 1] + 1
            } else {
                dp[(i + 1) * w + j].max(dp[i * w + j + 1])
            };
        }
    }
    let (mut i, mut j) = (0, 0);
    while i < n || j < m {
        if i < n && j < m && b[i] == a[j] {
            ops.push((0, b[i]));
            i += 1;
            j += 1;
        } else if j == m || (i < n && dp[(i + 1) * w + j] >= dp[i * w + j + 1]) {
            ops.push((1, b[i]));
            i += 1;
        } else {
            ops.push((2, a[j]));
            j += 1;
        }
    }
}

/// The longest text of one side shown in [`Change::render_text`] (the
/// JSON has all of it).
const SHOWN: usize = 400;
/// Unchanged text longer than this is shortened around the changes.
const CONTEXT: usize = 30;

fn cut_front(s: &str, n: usize) -> String {
    s.chars().take(n).collect()
}

fn cut_back(s: &str, n: usize) -> String {
    let count = s.chars().count();
    s.chars().skip(count.saturating_sub(n)).collect()
}

/// One side's text, on one line, shortened past [`SHOWN`] characters.
fn shown(s: &str) -> String {
    let line = sanitize::one_line(s);
    if line.chars().count() > SHOWN {
        format!("{}…", cut_front(&line, SHOWN))
    } else {
        line
    }
}

/// A word diff on one line: `[-removed-]`, `{+added+}`; long unchanged
/// runs shortened to their ends next to a change.
pub fn render_words(words: &[WordChange]) -> String {
    let mut out = String::new();
    let last = words.len().saturating_sub(1);
    for (i, w) in words.iter().enumerate() {
        match w {
            WordChange::Same(s) => {
                let s = sanitize::one_line(s);
                if s.chars().count() <= 2 * CONTEXT + 1 {
                    out.push_str(&s);
                } else {
                    if i > 0 {
                        out.push_str(&cut_front(&s, CONTEXT));
                    }
                    out.push('…');
                    if i < last {
                        out.push_str(&cut_back(&s, CONTEXT));
                    }
                }
            }
            WordChange::Removed(s) => {
                out.push_str("[-");
                out.push_str(&sanitize::one_line(s));
                out.push_str("-]");
            }
            WordChange::Added(s) => {
                out.push_str("{+");
                out.push_str(&sanitize::one_line(s));
                out.push_str("+}");
            }
        }
    }
    out
}

impl FieldDiff {
    /// `~ description: Reads a [-file-]{+file and its secrets+}`,
    /// `+ inputSchema.properties.note: {"type":"string"}`, `- title: Old`.
    pub fn render_text(&self) -> String {
        let field = sanitize::one_line(&self.field);
        match (&self.before, &self.after) {
            (Some(_), Some(_)) => format!("~ {field}: {}", render_words(&self.words)),
            (None, Some(a)) => format!("+ {field}: {}", shown(a)),
            (Some(b), None) => format!("- {field}: {}", shown(b)),
            (None, None) => format!("~ {field}"),
        }
    }
}

impl Change {
    /// Readable lines, safe for a terminal: a head line
    /// (`changed tool "search"`), then one indented line per field (none
    /// for a removed definition).
    pub fn render_text(&self) -> Vec<String> {
        let what = match self.what {
            ChangeKind::Added => "added",
            ChangeKind::Removed => "removed",
            ChangeKind::Changed => "changed",
        };
        let mut lines = vec![format!(
            "{what} {} \"{}\"",
            self.kind.label(),
            sanitize::one_line(&self.name)
        )];
        // A removed definition is named only (the JSON has its fields).
        if self.what != ChangeKind::Removed {
            lines.extend(self.fields.iter().map(|f| format!("  {}", f.render_text())));
        }
        lines
    }
}
