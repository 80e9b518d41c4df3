//! Snapshots: a step's whole result, normalized, kept in
//! `__snapshots__/SUITE/STEP.json` beside the suite file and compared on
//! every run; `mcpdeck test --update` writes them.
//!
//! Normalized means:
//! - under any `_meta`, a value that looks like a timestamp becomes
//!   `"[timestamp]"`, and the value of a key that names an id or a token
//!   (`requestId`, `progressToken`, `taskId`, `id`…) becomes `"[id]"`;
//! - what the suite's and the step's `ignore` paths select becomes
//!   `"[ignored]"`;
//! - objects' keys are sorted, so a server that reorders them does not
//!   change the snapshot.

use std::path::{Path, PathBuf};

use serde_json::{Map, Value};

use super::jsonpath::{self, json_eq};
use super::{Step, Suite, slug};

/// Where `step`'s snapshot is kept.
pub fn file(suite: &Suite, step: &Step) -> PathBuf {
    // Both names made file names: a suite file named `...mcpdeck.toml`
    // (stem `..`) stays inside `__snapshots__`.
    suite
        .dir()
        .join("__snapshots__")
        .join(slug(&suite.stem()))
        .join(format!("{}.json", step.snapshot))
}

/// Whether a `_meta` key names an id or a token.
fn id_key(key: &str) -> bool {
    let k = key.rsplit(['/', '.']).next().unwrap_or(key);
    let lower = k.to_ascii_lowercase();
    lower == "id"
        || lower == "uuid"
        || k.ends_with("Id")
        || k.ends_with("ID")
        || lower.ends_with("_id")
        || lower.ends_with("-id")
        || lower.ends_with("token")
}

/// Whether `s` looks like an RFC 3339 timestamp (`2026-11-28T07:00:00Z`).
fn timestamp(s: &str) -> bool {
    let b = s.as_bytes();
    b.len() >= 19
        && b[..4].iter().all(u8::is_ascii_digit)
        && b[4] == b'-'
        && b[7] == b'-'
        && (b[10] == b'T' || b[10] == b't' || b[10] == b' ')
        && b[13] == b':'
        && b[16] == b':'
}

fn mask_meta(v: &mut Value, in_meta: bool) {
    match v {
        Value::Object(m) => {
            for (k, x) in m.iter_mut() {
                if in_meta && id_key(k) && !x.is_object() && !x.is_array() {
                    *x = Value::String("[id]".into());
                } else if in_meta && x.as_str().is_some_and(timestamp) {
                    *x = Value::String("[timestamp]".into());
                } else {
                    mask_meta(x, in_meta || k == "_meta");
                }
            }
        }
        Value::Array(a) => a.iter_mut().for_each(|x| mask_meta(x, in_meta)),
        Value::String(s) if in_meta && timestamp(s) => *v = Value::String("[timestamp]".into()),
        _ => {}
    }
}

fn sorted(v: &Value) -> Value {
    match v {
        Value::Object(m) => {
            let mut keys: Vec<&String> = m.keys().collect();
            keys.sort();
            let mut out = Map::new();
            for k in keys {
                out.insert(k.clone(), sorted(&m[k]));
            }
            Value::Object(out)
        }
        Value::Array(a) => Value::Array(a.iter().map(sorted).collect()),
        other => other.clone(),
    }
}

/// `root` normalized (see the module's notes), with `ignore` masked.
pub fn normalize(root: &Value, ignore: &[&jsonpath::Path]) -> Value {
    let mut v = root.clone();
    mask_meta(&mut v, false);
    for path in ignore {
        for at in path.locations(&v.clone()) {
            jsonpath::replace(&mut v, &at, Value::String("[ignored]".into()));
        }
    }
    sorted(&v)
}

/// The text a snapshot is kept as: pretty JSON and a line end.
pub fn text(v: &Value) -> String {
    let mut s = serde_json::to_string_pretty(v).unwrap_or_else(|_| "null".into());
    s.push('\n');
    s
}

/// What a comparison found.
#[derive(Debug, Clone, PartialEq)]
pub enum Compared {
    /// The stored snapshot matches.
    Same,
    /// None is stored yet.
    Missing,
    /// The stored one (its text) differs.
    Differs(String),
    /// The stored file could not be read, or is not JSON.
    Unreadable(String),
}

/// Compare `actual` (normalized) with the snapshot at `path`.
pub fn compare(path: &Path, actual: &Value) -> Compared {
    let stored = match std::fs::read_to_string(path) {
        Ok(s) => s,
        Err(e) if e.kind() == std::io::ErrorKind::NotFound => return Compared::Missing,
        Err(e) => return Compared::Unreadable(format!("cannot read {}: {e}", path.display())),
    };
    match serde_json::from_str::<Value>(&stored) {
        Ok(v) if json_eq(&v, actual) => Compared::Same,
        Ok(v) => Compared::Differs(text(&sorted(&v))),
        Err(e) => Compared::Unreadable(format!(
            "{} is not JSON ({e}); fix it or delete it and run with --update",
            path.display()
        )),
    }
}

/// Write `actual` to `path` (its folders made), atomically.
pub fn write(path: &Path, actual: &Value) -> std::io::Result<()> {
    crate::fsutil::write_atomic(path, text(actual).as_bytes())
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    #[test]
    fn meta_ids_and_timestamps_are_masked_ignored_paths_too() {
        let v = json!({
            "content": [{"type": "text", "text": "2026-11-28T07:00:00Z is not in _meta"}],
            "_meta": {
                "io.modelcontextprotocol/related-task": {"taskId": "abc"},
                "requestId": 7,
                "progressToken": "p1",
                "at": "2026-11-28T07:00:00.123Z",
                "kind": "x",
                "valid": true
            },
            "structuredContent": {"now": 123, "city": "Paris"}
        });
        let ignore = jsonpath::Path::parse("$.structuredContent.now").unwrap();
        let n = normalize(&v, &[&ignore]);
        assert_eq!(
            n,
            json!({
                "_meta": {
                    "at": "[timestamp]",
                    "io.modelcontextprotocol/related-task": {"taskId": "[id]"},
                    "kind": "x",
                    "progressToken": "[id]",
                    "requestId": "[id]",
                    "valid": true
                },
                "content": [{"text": "2026-11-28T07:00:00Z is not in _meta", "type": "text"}],
                "structuredContent": {"city": "Paris", "now": "[ignored]"}
            })
        );
        // Sorted: the text puts `_meta` first.
        assert!(text(&n).starts_with("{\n  \"_meta\""), "{}", text(&n));
    }

    #[test]
    fn a_snapshot_stays_in_its_folder() {
        let text = "[[call]]\nname = \"package\"\nserver = \"a\"\ntool = \"t\"\n";
        let suite = crate::suite::parse(text, std::path::Path::new("d/...mcpdeck.toml")).unwrap();
        let f = file(&suite, &suite.steps[0]);
        assert_eq!(f, std::path::Path::new("d/__snapshots__/step/package.json"));
    }

    #[test]
    fn slugs_are_file_names() {
        assert_eq!(slug("call get weather (Paris)"), "call-get-weather-Paris");
        assert_eq!(slug("read file:///tmp/x.txt"), "read-file-tmp-x.txt");
        assert_eq!(slug("../.."), "step");
        assert_eq!(slug("日本 語"), "日本-語");
    }

    #[test]
    fn write_then_compare() {
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("__snapshots__/s/a.json");
        let v = json!({"b": 1, "a": [1, 2]});
        assert_eq!(compare(&path, &v), Compared::Missing);
        write(&path, &sorted(&v)).unwrap();
        assert_eq!(
            compare(&path, &json!({"a": [1, 2], "b": 1.0})),
            Compared::Same
        );
        match compare(&path, &json!({"a": [1], "b": 1})) {
            Compared::Differs(stored) => assert_eq!(
                stored,
                "{\n  \"a\": [\n    1,\n    2\n  ],\n  \"b\": 1\n}\n"
            ),
            other => panic!("{other:?}"),
        }
        std::fs::write(&path, "{").unwrap();
        assert!(matches!(compare(&path, &v), Compared::Unreadable(_)));
    }
}
