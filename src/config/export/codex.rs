//! Codex CLI's `config.toml`: `[mcp_servers.NAME]` tables, merged with
//! toml_edit so that comments and every other table stay as written.

use std::path::Path;

use serde_json::{Map, Value, json};
use toml_edit::{Array, DocumentMut, InlineTable, Item, Table};

use super::Client;
use super::source::{Seg, Text};
use super::write::Merged;

/// Codex's header keys: `Authorization: Bearer ${VAR}` becomes
/// `bearer_token_env_var = "VAR"`, a header that is exactly `${VAR}` goes
/// to `env_http_headers`, the rest to `http_headers`.
pub(super) fn headers(
    server: &str,
    headers: &[(String, Text)],
    entry: &mut Map<String, Value>,
    warn: &mut dyn FnMut(String),
) {
    let mut plain = Map::new();
    let mut from_env = Map::new();
    for (key, value) in headers {
        if key.eq_ignore_ascii_case("authorization")
            && let [
                Seg::Lit(bearer),
                Seg::Var {
                    name,
                    default: None,
                },
            ] = value.0.as_slice()
            && bearer.trim_end().eq_ignore_ascii_case("bearer")
            && !entry.contains_key("bearer_token_env_var")
        {
            entry.insert("bearer_token_env_var".into(), json!(name));
        } else if let Some(var) = value.only_var() {
            from_env.insert(key.clone(), json!(var));
        } else {
            let text = super::text(Client::Codex, server, "headers", value, warn);
            plain.insert(key.clone(), json!(text));
        }
    }
    if !plain.is_empty() {
        entry.insert("http_headers".into(), Value::Object(plain));
    }
    if !from_env.is_empty() {
        entry.insert("env_http_headers".into(), Value::Object(from_env));
    }
}

/// Codex's `env`: a variable passed on under its own name (`K = "${K}"`)
/// goes to `env_vars` (Codex forwards it from its environment); other
/// values are written as they are.
pub(super) fn env(
    server: &str,
    env: &[(String, Text)],
    entry: &mut Map<String, Value>,
    warn: &mut dyn FnMut(String),
) {
    let mut plain = Map::new();
    let mut forwarded = Vec::new();
    for (key, value) in env {
        if value.only_var() == Some(key.as_str()) {
            forwarded.push(json!(key));
        } else {
            let text = super::text(Client::Codex, server, "env", value, warn);
            plain.insert(key.clone(), json!(text));
        }
    }
    if !plain.is_empty() {
        entry.insert("env".into(), Value::Object(plain));
    }
    if !forwarded.is_empty() {
        entry.insert("env_vars".into(), Value::Array(forwarded));
    }
}

fn value(v: &Value) -> toml_edit::Value {
    match v {
        Value::Bool(b) => (*b).into(),
        Value::Number(n) => match n.as_i64() {
            Some(i) => i.into(),
            None => n.as_f64().unwrap_or_default().into(),
        },
        Value::String(s) => s.as_str().into(),
        Value::Array(items) => {
            let mut array = Array::new();
            for item in items {
                array.push(value(item));
            }
            array.into()
        }
        Value::Object(map) => {
            let mut table = InlineTable::new();
            for (k, v) in map {
                table.insert(k, value(v));
            }
            table.into()
        }
        // Entries never hold null.
        Value::Null => "".into(),
    }
}

fn table(entry: &Value) -> Table {
    let mut table = Table::new();
    if let Value::Object(map) = entry {
        for (k, v) in map {
            table.insert(k, Item::Value(value(v)));
        }
    }
    table
}

/// A TOML item as JSON, to compare an existing entry with a new one.
fn item_json(item: &Item) -> Value {
    match item {
        Item::None => Value::Null,
        Item::Value(v) => value_json(v),
        Item::Table(t) => Value::Object(
            t.iter()
                .map(|(k, v)| (k.to_owned(), item_json(v)))
                .collect(),
        ),
        Item::ArrayOfTables(a) => Value::Array(
            a.iter()
                .map(|t| item_json(&Item::Table(t.clone())))
                .collect(),
        ),
    }
}

fn value_json(v: &toml_edit::Value) -> Value {
    match v {
        toml_edit::Value::String(s) => json!(s.value()),
        toml_edit::Value::Integer(i) => json!(i.value()),
        toml_edit::Value::Float(f) => json!(f.value()),
        toml_edit::Value::Boolean(b) => json!(b.value()),
        toml_edit::Value::Datetime(d) => json!(d.value().to_string()),
        toml_edit::Value::Array(a) => Value::Array(a.iter().map(value_json).collect()),
        toml_edit::Value::InlineTable(t) => Value::Object(
            t.iter()
                .map(|(k, v)| (k.to_owned(), value_json(v)))
                .collect(),
        ),
    }
}

/// The entries as `[mcp_servers.NAME]` tables.
pub(super) fn to_text(entries: &[(String, Value)]) -> String {
    let mut doc = DocumentMut::new();
    let mut servers = Table::new();
    servers.set_implicit(true);
    for (name, entry) in entries {
        servers.insert(name, Item::Table(table(entry)));
    }
    doc.insert("mcp_servers", Item::Table(servers));
    doc.to_string()
}

/// Merges the entries into the text of a `config.toml`.
pub(super) fn merge(
    path: &Path,
    text: &str,
    entries: &[(String, Value)],
    force: bool,
) -> Result<Merged, String> {
    let mut doc: DocumentMut = text.parse().map_err(|e: toml_edit::TomlError| {
        let at = e
            .span()
            .map(|s| {
                let before = text.get(..s.start).unwrap_or(text);
                let line = before.matches('\n').count() + 1;
                let column = before.rsplit('\n').next().map_or(0, |l| l.chars().count()) + 1;
                format!(":{line}:{column}")
            })
            .unwrap_or_default();
        format!(
            "{}{at}: invalid TOML: {}; fix the file, or move it away to start a new one",
            path.display(),
            e.message().trim_end()
        )
    })?;
    let mut merged = Merged::default();
    if !doc.contains_key("mcp_servers") {
        let mut servers = Table::new();
        servers.set_implicit(true);
        doc.insert("mcp_servers", Item::Table(servers));
    }
    let servers = doc
        .get_mut("mcp_servers")
        .and_then(Item::as_table_mut)
        .ok_or_else(|| {
            format!(
                "{}: `mcp_servers` is not a table; fix it by hand, then export again",
                path.display()
            )
        })?;
    for (name, entry) in entries {
        let mut new = table(entry);
        match servers.get(name) {
            Some(old) if super::same_entry(&item_json(old), entry) => {
                merged.unchanged.push(name.clone())
            }
            Some(_) if !force => merged.conflicts.push(name.clone()),
            Some(old) => {
                if let Some(old) = old.as_table() {
                    *new.decor_mut() = old.decor().clone();
                    if let Some(position) = old.position() {
                        new.set_position(Some(position));
                    }
                }
                servers.insert(name, Item::Table(new));
                merged.replaced.push(name.clone());
            }
            None => {
                servers.insert(name, Item::Table(new));
                merged.added.push(name.clone());
            }
        }
    }
    merged.text = doc.to_string();
    Ok(merged)
}
