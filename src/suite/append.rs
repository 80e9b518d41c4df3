//! Saving a call the user made as a step of a suite file (the TUI's
//! `add_test`): the step is appended as text, so the file's comments and
//! layout stay as they are; the file is read back as a suite before it is
//! written (a file that does not read is left alone); the result seen is
//! kept as the step's snapshot, so the next `mcpdeck test` compares with it.

use std::path::{Path, PathBuf};

use serde_json::Value;

use super::expect::Response;
use super::{Kind, snapshot};

/// A call to save as a step.
#[derive(Debug, Clone, PartialEq)]
pub struct Draft {
    pub server: String,
    pub tool: String,
    /// The arguments it was sent with (an object).
    pub args: Value,
    /// What came back.
    pub response: Response,
    /// Keep the result as the step's snapshot (`expect.snapshot = true`).
    pub snapshot: bool,
    /// When it was saved, for the comment above the step (`2026-11-28
    /// 07:40 UTC`).
    pub when: String,
}

/// What [`save`] did.
#[derive(Debug, Clone, PartialEq)]
pub struct Saved {
    pub file: PathBuf,
    /// The step's name in the file.
    pub name: String,
    /// The file was made by this save.
    pub created: bool,
    /// The snapshot written, if any.
    pub snapshot: Option<PathBuf>,
}

/// A TOML value of a JSON one: `null` has none.
fn toml_value(v: &Value) -> Result<toml_edit::Value, String> {
    Ok(match v {
        Value::Null => {
            return Err(
                "its arguments hold null, which TOML cannot write: leave that argument out or give it a value".into(),
            );
        }
        Value::Bool(b) => (*b).into(),
        Value::Number(n) => match (n.as_i64(), n.is_f64(), n.as_f64()) {
            (Some(i), _, _) => i.into(),
            (None, true, Some(f)) => f.into(),
            _ => {
                return Err(format!(
                    "its arguments hold {n}, larger than a TOML integer can be: the step would send another number"
                ));
            }
        },
        // Written so that it reads back as itself (`{{` is a capture).
        Value::String(s) => super::template::escape(s).as_str().into(),
        Value::Array(a) => {
            let mut out = toml_edit::Array::new();
            for x in a {
                out.push(toml_value(x)?);
            }
            out.fmt();
            toml_edit::Value::Array(out)
        }
        Value::Object(m) => {
            let mut out = toml_edit::InlineTable::new();
            for (k, x) in m {
                out.insert(super::template::escape(k), toml_value(x)?);
            }
            out.fmt();
            toml_edit::Value::InlineTable(out)
        }
    })
}

/// A step's name from the call: the tool and its arguments' values, short.
fn name_for(tool: &str, args: &Value) -> String {
    let mut words: Vec<String> = Vec::new();
    if let Some(m) = args.as_object() {
        for v in m.values() {
            words.push(match v {
                Value::String(s) => s.clone(),
                other => other.to_string(),
            });
        }
    }
    let mut name = crate::sanitize::one_line(tool);
    let rest = crate::sanitize::one_line(&words.join(" "));
    if !rest.is_empty() {
        name.push(' ');
        name.push_str(&rest);
    }
    if name.chars().count() > 60 {
        name = format!("{}…", name.chars().take(59).collect::<String>());
    }
    name
}

/// The step's text: a comment, then `[[call]]` and its keys.
pub fn step_text(draft: &Draft, name: &str) -> Result<String, String> {
    let q = |s: &str| toml_edit::Value::from(s).to_string();
    let mut t = format!(
        "\n# Saved from the mcpdeck TUI on {}.\n[[call]]\nname = {}\nserver = {}\ntool = {}\n",
        draft.when,
        q(name),
        q(&draft.server),
        q(&super::template::escape(&draft.tool))
    );
    match &draft.args {
        Value::Object(m) if m.is_empty() => {}
        Value::Object(_) => t.push_str(&format!("args = {}\n", toml_value(&draft.args)?)),
        other => {
            return Err(format!(
                "its arguments are {}, not an object",
                crate::mcp::jsonrpc::kind(other)
            ));
        }
    }
    let mut expect: Vec<String> = Vec::new();
    match &draft.response {
        Response::Error(e) => {
            if let Some(code) = e.get("code").and_then(Value::as_i64) {
                expect.push(format!("error_code = {code}"));
            }
        }
        Response::Result(r) => {
            if r.get("isError").and_then(Value::as_bool) == Some(true) {
                expect.push("is_error = true".into());
            }
        }
    }
    if draft.snapshot {
        expect.push("snapshot = true".into());
    }
    if !expect.is_empty() {
        t.push_str(&format!("expect = {{ {} }}\n", expect.join(", ")));
    }
    Ok(t)
}

/// Append `draft` to the suite at `path` (made, with its folders, when
/// missing), and write its snapshot.
pub fn save(path: &Path, draft: &Draft) -> Result<Saved, String> {
    let shown = path.display().to_string();
    let (old, created) = match std::fs::read_to_string(path) {
        Ok(t) => (t, false),
        Err(e) if e.kind() == std::io::ErrorKind::NotFound => (
            "# A test suite for `mcpdeck test` (docs/testing.md).\n".to_string(),
            true,
        ),
        Err(e) => return Err(format!("cannot read {shown}: {e}")),
    };
    // The names taken already (a file with no steps yet has none).
    let taken: Vec<String> = if created || !old.contains("[[") {
        Vec::new()
    } else {
        super::parse(&old, path)
            .map_err(|e| {
                format!(
                    "{shown} does not read as a suite, so nothing was added: {}",
                    e.summary()
                )
            })?
            .steps
            .iter()
            .map(|s| s.label())
            .collect()
    };
    let base = name_for(&draft.tool, &draft.args);
    let mut name = base.clone();
    let mut n = 2;
    while taken.contains(&name) {
        name = format!("{base} ({n})");
        n += 1;
    }
    let mut text = old.clone();
    if !text.is_empty() && !text.ends_with('\n') {
        text.push('\n');
    }
    text.push_str(&step_text(draft, &name)?);
    let suite = super::parse(&text, path).map_err(|e| {
        format!(
            "the step would not read back ({}); nothing was added",
            e.summary()
        )
    })?;
    let step = suite
        .steps
        .iter()
        .rev()
        .find(|s| s.kind == Kind::Call && s.name.as_deref() == Some(name.as_str()))
        .ok_or("the step did not read back; nothing was added")?;
    let snapshot = if draft.snapshot {
        let ignore: Vec<&super::jsonpath::Path> = suite.ignore.iter().collect();
        let file = snapshot::file(&suite, step);
        let actual = snapshot::normalize(&draft.response.root(), &ignore);
        snapshot::write(&file, &actual)
            .map_err(|e| format!("cannot write the snapshot {}: {e}", file.display()))?;
        Some(file)
    } else {
        None
    };
    crate::fsutil::write_atomic(path, text.as_bytes())
        .map_err(|e| format!("cannot write {shown}: {e}"))?;
    Ok(Saved {
        file: path.to_path_buf(),
        name,
        created,
        snapshot,
    })
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    fn draft(args: Value, response: Response) -> Draft {
        Draft {
            server: "demo".into(),
            tool: "get_weather".into(),
            args,
            response,
            snapshot: true,
            when: "2026-11-28 07:40 UTC".into(),
        }
    }

    #[test]
    fn appends_keeping_the_file_and_writes_the_snapshot() {
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("t/w.mcpdeck.toml");
        let ok = Response::Result(
            json!({"content": [{"type": "text", "text": "sunny"}], "_meta": {"requestId": 4}}),
        );
        let d = draft(json!({"city": "Paris", "odd key": [1, {"a": true}]}), ok);
        let saved = save(&path, &d).unwrap();
        assert!(saved.created);
        assert_eq!(saved.name, "get_weather Paris [1,{\"a\":true}]");
        let text = std::fs::read_to_string(&path).unwrap();
        assert!(
            text.starts_with("# A test suite for `mcpdeck test`"),
            "{text}"
        );
        assert!(
            text.contains("args = { city = \"Paris\", \"odd key\" = [1, { a = true }] }\n"),
            "{text}"
        );
        assert!(text.contains("expect = { snapshot = true }\n"), "{text}");
        let snap = saved.snapshot.unwrap();
        assert_eq!(
            snap,
            dir.path()
                .join("t/__snapshots__/w/get_weather-Paris-1-a-true.json")
        );
        let stored: Value = serde_json::from_str(&std::fs::read_to_string(&snap).unwrap()).unwrap();
        assert_eq!(stored["_meta"]["requestId"], "[id]");

        // A comment the user wrote stays; the same call again gets a name
        // of its own; an error is expected as an error.
        let mut t = std::fs::read_to_string(&path).unwrap();
        t.push_str("# my own note\n");
        std::fs::write(&path, &t).unwrap();
        let err = Response::Error(json!({"code": -32602, "message": "bad"}));
        let saved = save(
            &path,
            &draft(json!({"city": "Paris", "odd key": [1, {"a": true}]}), err),
        )
        .unwrap();
        assert!(!saved.created);
        assert_eq!(saved.name, "get_weather Paris [1,{\"a\":true}] (2)");
        let text = std::fs::read_to_string(&path).unwrap();
        assert!(
            text.contains(
                "# my own note\n\n# Saved from the mcpdeck TUI on 2026-11-28 07:40 UTC.\n"
            ),
            "{text}"
        );
        assert!(
            text.contains("expect = { error_code = -32602, snapshot = true }"),
            "{text}"
        );
        let suite = crate::suite::load(&path).unwrap();
        assert_eq!(suite.steps.len(), 2);
        assert_eq!(suite.steps[1].expect.error_code, Some(-32602));
    }

    #[test]
    fn arguments_that_look_like_captures_are_sent_as_they_were() {
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("t.mcpdeck.toml");
        let ok = Response::Result(json!({"content": []}));
        let args = json!({"t": "{{x}}", "e": "{{env.HOME}}", "{{k}}": 1.5});
        save(&path, &draft(args.clone(), ok)).unwrap();
        let suite = crate::suite::load(&path).unwrap();
        let none = crate::suite::template::Captures::new();
        let filled = crate::suite::template::fill(&suite.steps[0].args, &none, &|_| None).unwrap();
        assert_eq!(filled, args);
    }

    #[test]
    fn refuses_what_it_cannot_write_and_leaves_a_bad_file_alone() {
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("x.mcpdeck.toml");
        let ok = Response::Result(json!({"content": [], "isError": true}));
        let e = save(&path, &draft(json!({"a": null}), ok.clone())).unwrap_err();
        assert!(e.contains("null"), "{e}");
        let e = save(&path, &draft(json!({"a": u64::MAX}), ok.clone())).unwrap_err();
        assert!(e.contains("larger than a TOML integer"), "{e}");
        assert!(!path.exists());
        std::fs::write(&path, "[[call]]\nbogus = 1\n").unwrap();
        let e = save(&path, &draft(json!({}), ok.clone())).unwrap_err();
        assert!(e.contains("does not read as a suite"), "{e}");
        assert_eq!(
            std::fs::read_to_string(&path).unwrap(),
            "[[call]]\nbogus = 1\n"
        );
        std::fs::write(&path, "").unwrap();
        let saved = save(&path, &draft(json!({}), ok)).unwrap();
        assert_eq!(saved.name, "get_weather");
        let text = std::fs::read_to_string(&path).unwrap();
        assert!(
            text.contains("expect = { is_error = true, snapshot = true }"),
            "{text}"
        );
        assert!(!text.contains("args ="), "{text}");
    }
}
