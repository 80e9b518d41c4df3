//! Merging into a client's JSON (with comments) file through
//! jsonc-parser's CST: only the server table's entries are added or
//! replaced; every other byte stays as the user wrote it.

use std::path::Path;

use jsonc_parser::ParseOptions;
use jsonc_parser::cst::{CstInputValue, CstObject, CstRootNode};
use serde_json::Value;

use super::write::Merged;

fn input(v: &Value) -> CstInputValue {
    match v {
        Value::Null => CstInputValue::Null,
        Value::Bool(b) => CstInputValue::Bool(*b),
        Value::Number(n) => CstInputValue::Number(n.to_string()),
        Value::String(s) => CstInputValue::String(s.clone()),
        Value::Array(items) => CstInputValue::Array(items.iter().map(input).collect()),
        Value::Object(map) => {
            CstInputValue::Object(map.iter().map(|(k, v)| (k.clone(), input(v))).collect())
        }
    }
}

fn parse(path: &Path, text: &str) -> Result<CstRootNode, String> {
    CstRootNode::parse(text, &ParseOptions::default()).map_err(|e| {
        format!(
            "{}: {e}; fix the file, or move it away to start a new one",
            path.display()
        )
    })
}

fn root_object(path: &Path, root: &CstRootNode) -> Result<CstObject, String> {
    if root.value().is_some() && root.object_value().is_none() {
        return Err(format!(
            "{}: the file does not hold a JSON object; fix it by hand, then export again",
            path.display()
        ));
    }
    Ok(root.object_value_or_set())
}

/// Merges `entries` into the object under `key` of the file's text.
pub(super) fn merge(
    path: &Path,
    text: &str,
    key: &str,
    entries: &[(String, Value)],
    force: bool,
) -> Result<Merged, String> {
    let root = parse(path, text)?;
    let object = root_object(path, &root)?;
    let servers = object.object_value_or_create(key).ok_or_else(|| {
        format!(
            "{}: `{key}` is not an object; fix it by hand, then export again",
            path.display()
        )
    })?;
    let mut merged = Merged::default();
    for (name, entry) in entries {
        match servers.get(name) {
            Some(old) => {
                let same = old
                    .value()
                    .and_then(|v| v.to_serde_value())
                    .is_some_and(|old| super::same_entry(&old, entry));
                if same {
                    merged.unchanged.push(name.clone());
                } else if !force {
                    merged.conflicts.push(name.clone());
                } else {
                    old.set_value(input(entry));
                    merged.replaced.push(name.clone());
                }
            }
            None => {
                servers.append(name, input(entry));
                merged.added.push(name.clone());
            }
        }
    }
    merged.text = root.to_string();
    Ok(merged)
}

/// Adds the rules missing from `permissions.deny` of Claude Code's
/// settings text; returns the new text and the rules added.
pub(super) fn merge_deny(
    path: &Path,
    text: &str,
    rules: &[String],
) -> Result<(String, Vec<String>), String> {
    let root = parse(path, text)?;
    let object = root_object(path, &root)?;
    let not_list = || {
        format!(
            "{}: `permissions.deny` is not a list; fix it by hand, then export again",
            path.display()
        )
    };
    let deny = object
        .object_value_or_create("permissions")
        .and_then(|p| p.array_value_or_create("deny"))
        .ok_or_else(not_list)?;
    let present: Vec<Value> = deny
        .elements()
        .iter()
        .filter_map(|e| e.to_serde_value())
        .collect();
    let mut added = Vec::new();
    for rule in rules {
        let value = Value::String(rule.clone());
        if !present.contains(&value) && !added.contains(rule) {
            deny.append(CstInputValue::String(rule.clone()));
            added.push(rule.clone());
        }
    }
    Ok((root.to_string(), added))
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    #[test]
    fn only_the_server_table_changes() {
        let text = "// mine\n{\n  \"theme\": \"dark\", // keep\n  \"mcpServers\": {\n    \"old\": { \"command\": \"x\" },\n  },\n  \"z\": [1, 2,],\n}\n";
        let entries = vec![
            ("new".to_owned(), json!({"command": "node", "args": ["a"]})),
            ("old".to_owned(), json!({"command": "x"})),
        ];
        let m = merge(Path::new("f"), text, "mcpServers", &entries, false).unwrap();
        assert_eq!(m.added, ["new"]);
        assert_eq!(m.unchanged, ["old"]);
        assert!(m.text.starts_with("// mine\n{\n  \"theme\": \"dark\", // keep\n  \"mcpServers\": {\n    \"old\": { \"command\": \"x\" },"), "{}", m.text);
        assert!(
            m.text.ends_with("  },\n  \"z\": [1, 2,],\n}\n"),
            "{}",
            m.text
        );
        let value = CstRootNode::parse(&m.text, &ParseOptions::default())
            .unwrap()
            .to_serde_value()
            .unwrap();
        assert_eq!(value["mcpServers"]["new"]["args"][0], "a");

        let changed = vec![("old".to_owned(), json!({"command": "y"}))];
        let m = merge(Path::new("f"), text, "mcpServers", &changed, false).unwrap();
        assert_eq!(m.conflicts, ["old"]);
        let m = merge(Path::new("f"), text, "mcpServers", &changed, true).unwrap();
        assert_eq!(m.replaced, ["old"]);
        assert!(m.text.contains("\"y\""));
    }

    #[test]
    fn deny_rules_are_added_once() {
        let text = "{ \"permissions\": { \"deny\": [\"Bash(rm:*)\", \"mcp__a__x\"] } }";
        let rules = vec!["mcp__a__x".to_owned(), "mcp__a__y".to_owned()];
        let (out, added) = merge_deny(Path::new("s"), text, &rules).unwrap();
        assert_eq!(added, ["mcp__a__y"]);
        let value = CstRootNode::parse(&out, &ParseOptions::default())
            .unwrap()
            .to_serde_value()
            .unwrap();
        assert_eq!(
            value["permissions"]["deny"],
            json!(["Bash(rm:*)", "mcp__a__x", "mcp__a__y"])
        );
    }
}
