//! `{{NAME}}` in a step's arguments, URI or prompt: a value an earlier
//! step captured (`capture = { NAME = "$.path" }`), or `{{env.NAME}}` an
//! environment variable. A string that is only `{{NAME}}` takes the
//! captured value as it is (a number stays a number); inside other text it
//! is written in (a string as it is, other values as JSON).

use std::collections::HashMap;

use serde_json::Value;

/// The captured values so far.
pub type Captures = HashMap<String, Value>;

/// A piece of a string: text, or a `{{NAME}}`.
#[derive(Debug, Clone, PartialEq)]
enum Piece<'a> {
    Text(std::borrow::Cow<'a, str>),
    Ref(&'a str),
}

/// `s` cut into text and references. `\{{` is a `{{` of the text (the
/// backslash dropped); a `{{` with no `}}` after it is text.
fn pieces(s: &str) -> Vec<Piece<'_>> {
    let mut out = Vec::new();
    let mut from = 0;
    let mut at = 0;
    while let Some(open) = s[at..].find("{{").map(|i| at + i) {
        if open > 0 && s.as_bytes()[open - 1] == b'\\' {
            out.push(Piece::Text(s[from..open - 1].into()));
            from = open;
            at = open + 2;
            continue;
        }
        let Some(close) = s[open + 2..].find("}}").map(|i| open + 2 + i) else {
            break;
        };
        if open > from {
            out.push(Piece::Text(s[from..open].into()));
        }
        out.push(Piece::Ref(s[open + 2..close].trim()));
        from = close + 2;
        at = from;
    }
    if from < s.len() {
        out.push(Piece::Text(s[from..].into()));
    }
    out
}

/// Each `{{…}}` in `s`: the name inside, trimmed.
pub fn references(s: &str) -> Vec<&str> {
    pieces(s)
        .into_iter()
        .filter_map(|p| match p {
            Piece::Ref(n) => Some(n),
            Piece::Text(_) => None,
        })
        .collect()
}

/// `s` written so that it reads back as itself: each `{{` as `\{{`.
pub fn escape(s: &str) -> String {
    s.replace("{{", "\\{{")
}

/// Every name referred to in `v`'s strings (and object keys).
pub fn names_in(v: &Value, out: &mut Vec<String>) {
    match v {
        Value::String(s) => out.extend(references(s).into_iter().map(str::to_string)),
        Value::Array(a) => a.iter().for_each(|x| names_in(x, out)),
        Value::Object(m) => {
            for (k, x) in m {
                out.extend(references(k).into_iter().map(str::to_string));
                names_in(x, out);
            }
        }
        _ => {}
    }
}

/// Why a reference cannot be filled.
#[derive(Debug, Clone, PartialEq, thiserror::Error)]
pub enum TemplateError {
    #[error("{{{{{0}}}}}: no earlier step captured {0}")]
    Unknown(String),
    #[error("{{{{env.{0}}}}}: the environment variable {0} is not set")]
    Unset(String),
}

fn lookup(
    name: &str,
    captures: &Captures,
    env: &dyn Fn(&str) -> Option<String>,
) -> Result<Value, TemplateError> {
    if let Some(var) = name.strip_prefix("env.") {
        return env(var)
            .map(Value::String)
            .ok_or_else(|| TemplateError::Unset(var.to_string()));
    }
    captures
        .get(name)
        .cloned()
        .ok_or_else(|| TemplateError::Unknown(name.to_string()))
}

/// `s` with its references filled in (and `\{{` made `{{`).
pub fn fill_str(
    s: &str,
    captures: &Captures,
    env: &dyn Fn(&str) -> Option<String>,
) -> Result<Value, TemplateError> {
    let pieces = pieces(s);
    if let [Piece::Ref(name)] = pieces.as_slice() {
        return lookup(name, captures, env);
    }
    let mut out = String::new();
    for p in pieces {
        match p {
            Piece::Text(t) => out.push_str(&t),
            Piece::Ref(name) => match lookup(name, captures, env)? {
                Value::String(v) => out.push_str(&v),
                v => out.push_str(&v.to_string()),
            },
        }
    }
    Ok(Value::String(out))
}

/// `v` with every reference in its strings (and keys) filled in.
pub fn fill(
    v: &Value,
    captures: &Captures,
    env: &dyn Fn(&str) -> Option<String>,
) -> Result<Value, TemplateError> {
    Ok(match v {
        Value::String(s) => fill_str(s, captures, env)?,
        Value::Array(a) => Value::Array(
            a.iter()
                .map(|x| fill(x, captures, env))
                .collect::<Result<_, _>>()?,
        ),
        Value::Object(m) => {
            let mut out = serde_json::Map::new();
            for (k, x) in m {
                let key = match fill_str(k, captures, env)? {
                    Value::String(s) => s,
                    other => other.to_string(),
                };
                out.insert(key, fill(x, captures, env)?);
            }
            Value::Object(out)
        }
        other => other.clone(),
    })
}

/// The environment, for [`fill`].
pub fn process_env(name: &str) -> Option<String> {
    std::env::var(name).ok()
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    #[test]
    fn whole_strings_keep_their_type_parts_are_written_in() {
        let mut c = Captures::new();
        c.insert("N".into(), json!(42));
        c.insert("CITY".into(), json!("Paris"));
        let env = |n: &str| (n == "HOME_TOWN").then(|| "Lyon".to_string());
        let v = json!({"n": "{{N}}", "s": "{{ CITY }} and {{N}}", "list": ["{{env.HOME_TOWN}}"], "{{CITY}}": true});
        assert_eq!(
            fill(&v, &c, &env).unwrap(),
            json!({"n": 42, "s": "Paris and 42", "list": ["Lyon"], "Paris": true})
        );
        assert_eq!(
            fill(&json!("{{X}}"), &c, &env),
            Err(TemplateError::Unknown("X".into()))
        );
        assert_eq!(
            fill(&json!("a {{env.NOPE}}"), &c, &env)
                .unwrap_err()
                .to_string(),
            "{{env.NOPE}}: the environment variable NOPE is not set"
        );
        // An unclosed brace pair is text; `\{{` is a `{{` of the text.
        assert_eq!(fill(&json!("{{x"), &c, &env).unwrap(), json!("{{x"));
        assert_eq!(
            fill(&json!("\\{{CITY}} is {{CITY}}"), &c, &env).unwrap(),
            json!("{{CITY}} is Paris")
        );
        assert!(references("\\{{CITY}}").is_empty());
        // What `escape` writes reads back as itself, a backslash before
        // braces too.
        for text in [
            "{{x}}",
            "a {{env.HOME}} b",
            "\\{{y}}",
            "{{",
            "}} {{ }}",
            "plain",
        ] {
            assert_eq!(
                fill_str(&escape(text), &c, &env).unwrap(),
                json!(text),
                "{text}"
            );
        }
        let mut names = Vec::new();
        names_in(&v, &mut names);
        assert_eq!(names, ["N", "CITY", "N", "env.HOME_TOWN", "CITY"]);
    }
}
