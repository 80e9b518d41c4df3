//! Tool arguments from the command line: a JSON object, plus `--arg
//! key=value` pairs read with the help of the tool's input schema.

use serde_json::{Map, Value};

/// Build the arguments object. `json` is the optional ARGS_JSON word;
/// `pairs` are `--arg key=value`. A value is a string when the schema says
/// the property is a string; otherwise it is read as JSON when it parses
/// (numbers, booleans, arrays, objects) and kept as a string when not.
pub fn build(
    json: Option<&str>,
    pairs: &[String],
    schema: Option<&Value>,
) -> Result<Value, String> {
    let mut obj = match json {
        None => Map::new(),
        Some(text) => match serde_json::from_str::<Value>(text) {
            Ok(Value::Object(m)) => m,
            Ok(other) => {
                return Err(format!(
                    "ARGS_JSON must be a JSON object like '{{\"key\": \"value\"}}', found {}",
                    crate::mcp::jsonrpc::short(&other)
                ));
            }
            Err(e) => {
                return Err(format!(
                    "ARGS_JSON is not valid JSON: {e} (quote it for the shell: '{{\"key\": 1}}')"
                ));
            }
        },
    };
    let mut seen = std::collections::HashSet::new();
    for pair in pairs {
        let Some((key, raw)) = pair.split_once('=') else {
            return Err(format!("--arg {pair:?} must look like key=value"));
        };
        if key.is_empty() {
            return Err(format!("--arg {pair:?} has an empty key"));
        }
        if !seen.insert(key) {
            return Err(format!(
                "--arg {key:?} is given more than once; give each key once (a list is one JSON value: --arg '{key}=[1, 2]')"
            ));
        }
        let prop = schema
            .and_then(|s| s.get("properties"))
            .and_then(|p| p.get(key));
        obj.insert(key.to_string(), value_for(raw, prop));
    }
    Ok(Value::Object(obj))
}

fn value_for(raw: &str, prop: Option<&Value>) -> Value {
    let types: Vec<&str> = match prop.and_then(|p| p.get("type")) {
        Some(Value::String(t)) => vec![t.as_str()],
        Some(Value::Array(ts)) => ts.iter().filter_map(Value::as_str).collect(),
        _ => Vec::new(),
    };
    if types == ["string"] {
        return Value::String(raw.to_string());
    }
    match serde_json::from_str::<Value>(raw) {
        Ok(v) if !(v.is_string() && types.contains(&"string")) => v,
        _ => Value::String(raw.to_string()),
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    #[test]
    fn pairs_follow_the_schema() {
        let schema = json!({"properties": {"name": {"type": "string"}, "n": {"type": "integer"}, "tags": {"type": "array"}}});
        let v = build(
            Some(r#"{"keep": true}"#),
            &[
                "name=5".into(),
                "n=5".into(),
                "tags=[\"a\"]".into(),
                "free=hello world".into(),
                "eq=a=b".into(),
            ],
            Some(&schema),
        )
        .unwrap();
        assert_eq!(
            v,
            json!({"keep": true, "name": "5", "n": 5, "tags": ["a"], "free": "hello world", "eq": "a=b"})
        );
    }

    #[test]
    fn bad_input_says_what_to_do() {
        assert!(
            build(Some("[1]"), &[], None)
                .unwrap_err()
                .contains("JSON object")
        );
        assert!(
            build(Some("{oops"), &[], None)
                .unwrap_err()
                .contains("not valid JSON")
        );
        assert!(
            build(None, &["novalue".into()], None)
                .unwrap_err()
                .contains("key=value")
        );
    }
}
