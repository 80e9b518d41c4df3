//! Expected against actual, as lines: what `mcpdeck test` prints under a
//! failed step and what the TUI's test results show. A string is compared
//! as it is; other values as pretty JSON in which a string of several
//! lines is written a line each, so that one changed line of a long text
//! is one line of the diff.

use serde_json::Value;

use crate::sanitize;
use crate::trust::pin::{WordChange, line_diff};

/// Unchanged lines kept around a change.
const CONTEXT: usize = 3;

/// One line of a diff, its text made safe for a terminal.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Line {
    Same(String),
    /// Only in the expected side.
    Removed(String),
    /// Only in the actual side.
    Added(String),
    /// Unchanged lines left out.
    Gap,
    /// This many more lines past the limit.
    More(usize),
}

/// The text a side of a diff is shown as: a string as it is, other values
/// as pretty JSON whose strings of several lines are shown a line each
/// (so that one changed line of a long text is one line of the diff).
pub fn side(v: &Value) -> String {
    match v {
        Value::String(s) => s.clone(),
        other => {
            let mut out = String::new();
            shown_json(other, 0, &mut out);
            out
        }
    }
}

/// Pretty JSON, but a string with line ends is written as a block:
/// `"""`, its lines indented, `"""`.
fn shown_json(v: &Value, indent: usize, out: &mut String) {
    let pad = |n: usize| "  ".repeat(n);
    match v {
        Value::Object(m) if !m.is_empty() => {
            out.push_str("{\n");
            for (i, (k, x)) in m.iter().enumerate() {
                out.push_str(&pad(indent + 1));
                out.push_str(&serde_json::to_string(k).unwrap_or_default());
                out.push_str(": ");
                shown_json(x, indent + 1, out);
                if i + 1 < m.len() {
                    out.push(',');
                }
                out.push('\n');
            }
            out.push_str(&pad(indent));
            out.push('}');
        }
        Value::Array(a) if !a.is_empty() => {
            out.push_str("[\n");
            for (i, x) in a.iter().enumerate() {
                out.push_str(&pad(indent + 1));
                shown_json(x, indent + 1, out);
                if i + 1 < a.len() {
                    out.push(',');
                }
                out.push('\n');
            }
            out.push_str(&pad(indent));
            out.push(']');
        }
        Value::String(s) if s.contains('\n') => {
            out.push_str("\"\"\"\n");
            for line in s.lines() {
                out.push_str(&pad(indent + 1));
                out.push_str(line);
                out.push('\n');
            }
            out.push_str(&pad(indent));
            out.push_str("\"\"\"");
        }
        other => out.push_str(&serde_json::to_string(other).unwrap_or_default()),
    }
}

/// Expected (removed) against actual (added), line by line, unchanged
/// runs shortened to [`CONTEXT`] lines around the changes; at most `max`
/// lines. Nothing when a side is missing (`null`) or both read the same.
pub fn lines(expected: &Value, actual: &Value, max: usize) -> Vec<Line> {
    if expected.is_null() || actual.is_null() {
        return Vec::new();
    }
    let (mut before, mut after) = (side(expected), side(actual));
    if before == after {
        return Vec::new();
    }
    before.push('\n');
    after.push('\n');
    let mut all: Vec<(char, &str)> = Vec::new();
    let changes = line_diff(&before, &after);
    for change in &changes {
        let (mark, text) = match change {
            WordChange::Same(t) => (' ', t),
            WordChange::Removed(t) => ('-', t),
            WordChange::Added(t) => ('+', t),
        };
        all.extend(text.lines().map(|l| (mark, l)));
    }
    // Which lines are near a change.
    let near: Vec<bool> = (0..all.len())
        .map(|i| {
            let lo = i.saturating_sub(CONTEXT);
            let hi = (i + CONTEXT + 1).min(all.len());
            all[lo..hi].iter().any(|(m, _)| *m != ' ')
        })
        .collect();
    let mut out = Vec::new();
    let mut gap = false;
    for (i, (mark, text)) in all.iter().enumerate() {
        if !near[i] {
            gap = true;
            continue;
        }
        if gap {
            out.push(Line::Gap);
            gap = false;
        }
        let text = sanitize::one_line(text);
        out.push(match mark {
            '-' => Line::Removed(text),
            '+' => Line::Added(text),
            _ => Line::Same(text),
        });
    }
    if gap {
        out.push(Line::Gap);
    }
    if out.len() > max {
        let more = out.len() - max;
        out.truncate(max);
        out.push(Line::More(more));
    }
    out
}
