//! The JSON clients: Claude Desktop, Claude Code (home file and
//! `.mcp.json`), VS Code (`servers`, or `mcp.servers` in settings.json),
//! Cursor, Windsurf and Gemini CLI. All are read as JSONC (comments and
//! trailing commas).

use std::path::Path;
use std::time::Duration;

use serde_json::{Map, Value};

use super::vars::{self, Syntax};
use super::{Client, Ctx, Draft, FileResult, Origin, usable_name};

/// Parses JSON with comments and trailing commas; the error names the
/// file, line, column and reason.
pub(crate) fn parse_jsonc(text: &str, path: &Path) -> Result<Value, String> {
    let options = jsonc_parser::ParseOptions {
        allow_comments: true,
        allow_trailing_commas: true,
        allow_loose_object_property_names: false,
        allow_missing_commas: false,
        allow_single_quoted_strings: false,
        allow_hexadecimal_numbers: false,
        ..Default::default()
    };
    match jsonc_parser::parse_to_serde_value::<Value>(text, &options) {
        Ok(Value::Null) if text.trim().is_empty() => Ok(Value::Object(Map::new())),
        Ok(value) => Ok(value),
        Err(e) => Err(format!(
            "{}:{}:{}: invalid JSON: {}",
            path.display(),
            e.line_display(),
            e.column_display(),
            e.kind()
        )),
    }
}

fn syntax(client: Client) -> Syntax {
    match client {
        Client::ClaudeDesktop | Client::Zed | Client::Codex => Syntax::None,
        Client::ClaudeCode => Syntax::Shell,
        Client::Gemini => Syntax::ShellBare,
        Client::VsCode | Client::Cursor | Client::Windsurf => Syntax::Editor,
    }
}

pub(crate) fn read(ctx: &Ctx<'_>, text: &str, out: &mut FileResult) {
    let Origin::Client(client) = ctx.origin else {
        return;
    };
    let root = match parse_jsonc(text, ctx.path) {
        Ok(v) => v,
        Err(message) => {
            out.errors.push(ctx.file_error(message));
            return;
        }
    };
    let Some(root) = root.as_object() else {
        out.errors.push(ctx.file_error(format!(
            "{}: the file is not a JSON object",
            ctx.path.display()
        )));
        return;
    };
    let mut tables: Vec<(&Value, &str)> = Vec::new();
    match client {
        Client::VsCode => {
            if let Some(servers) = root.get("servers") {
                tables.push((servers, "servers"));
            }
            // settings.json: "mcp": {"servers": …}
            if let Some(servers) = root.get("mcp").and_then(|m| m.get("servers")) {
                tables.push((servers, "mcp.servers"));
            }
        }
        Client::ClaudeCode => {
            if let Some(servers) = root.get("mcpServers") {
                tables.push((servers, "mcpServers"));
            }
            // The local scope of the current directory in ~/.claude.json.
            let cwd = ctx.cwd.to_string_lossy();
            if let Some(servers) = root
                .get("projects")
                .and_then(|p| p.get(cwd.as_ref()))
                .and_then(|p| p.get("mcpServers"))
            {
                tables.push((servers, "projects[cwd].mcpServers"));
            }
        }
        _ => {
            if let Some(servers) = root.get("mcpServers") {
                tables.push((servers, "mcpServers"));
            }
        }
    }
    for (table, key) in tables {
        let Some(table) = table.as_object() else {
            out.errors.push(ctx.file_error(format!(
                "{}: `{key}` is not an object of servers",
                ctx.path.display()
            )));
            continue;
        };
        for (name, entry) in table {
            let mut warnings = Vec::new();
            let usable = usable_name(name, &mut warnings);
            let Some(entry) = entry.as_object() else {
                out.errors
                    .push(ctx.entry_error(name, "the entry is not an object"));
                continue;
            };
            match entry_draft(ctx, client, entry, &mut warnings)
                .and_then(|draft| draft.build(&usable, &mut warnings))
            {
                Ok(server) => out.servers.push(ctx.imported(&usable, server, warnings)),
                Err(message) => out.errors.push(ctx.entry_error(name, message)),
            }
        }
    }
}

/// A string field, translated.
pub(crate) fn string(
    entry: &Map<String, Value>,
    key: &str,
    tr: &mut dyn FnMut(&str) -> String,
) -> Result<Option<String>, String> {
    match entry.get(key) {
        None | Some(Value::Null) => Ok(None),
        Some(Value::String(s)) => Ok(Some(tr(s))),
        Some(other) => Err(format!("`{key}` must be a string, found {}", kind(other))),
    }
}

pub(crate) fn strings(
    entry: &Map<String, Value>,
    key: &str,
    tr: &mut dyn FnMut(&str) -> String,
) -> Result<Vec<String>, String> {
    match entry.get(key) {
        None | Some(Value::Null) => Ok(Vec::new()),
        Some(Value::Array(items)) => items
            .iter()
            .map(|item| match item {
                Value::String(s) => Ok(tr(s)),
                // Numbers and booleans in args are taken as text.
                Value::Number(n) => Ok(n.to_string()),
                Value::Bool(b) => Ok(b.to_string()),
                other => Err(format!("`{key}` must hold strings, found {}", kind(other))),
            })
            .collect(),
        Some(other) => Err(format!("`{key}` must be an array, found {}", kind(other))),
    }
}

pub(crate) fn pairs(
    entry: &Map<String, Value>,
    key: &str,
    tr: &mut dyn FnMut(&str) -> String,
) -> Result<Vec<(String, String)>, String> {
    match entry.get(key) {
        None | Some(Value::Null) => Ok(Vec::new()),
        Some(Value::Object(map)) => map
            .iter()
            .map(|(k, v)| match v {
                Value::String(s) => Ok((k.clone(), tr(s))),
                Value::Number(n) => Ok((k.clone(), n.to_string())),
                Value::Bool(b) => Ok((k.clone(), b.to_string())),
                other => Err(format!(
                    "`{key}.{k}` must be a string, found {}",
                    kind(other)
                )),
            })
            .collect(),
        Some(other) => Err(format!("`{key}` must be an object, found {}", kind(other))),
    }
}

pub(crate) fn kind(value: &Value) -> &'static str {
    match value {
        Value::Null => "null",
        Value::Bool(_) => "a boolean",
        Value::Number(_) => "a number",
        Value::String(_) => "a string",
        Value::Array(_) => "an array",
        Value::Object(_) => "an object",
    }
}

fn entry_draft(
    ctx: &Ctx<'_>,
    client: Client,
    entry: &Map<String, Value>,
    warnings: &mut Vec<String>,
) -> Result<Draft, String> {
    let syntax = syntax(client);
    let folder = ctx.folder.clone();
    let mut notes = Vec::new();
    let mut tr = |s: &str| vars::translate(s, syntax, &folder, &mut notes);
    let mut draft = Draft::new();
    draft.command = string(entry, "command", &mut tr)?;
    draft.args = strings(entry, "args", &mut tr)?;
    draft.env = pairs(entry, "env", &mut tr)?;
    draft.cwd = string(entry, "cwd", &mut tr)?;
    draft.headers = pairs(entry, "headers", &mut tr)?;
    draft.kind = match entry.get("type") {
        None | Some(Value::Null) => None,
        Some(Value::String(s)) => Some(s.clone()),
        Some(other) => return Err(format!("`type` must be a string, found {}", kind(other))),
    };
    let url = string(entry, "url", &mut tr)?;
    let server_url = string(entry, "serverUrl", &mut tr)?;
    let http_url = string(entry, "httpUrl", &mut tr)?;
    draft.url = match (http_url, server_url, url) {
        (Some(http), _, _) => {
            draft.implied = Some(crate::config::HttpTransportKind::StreamableHttp);
            Some(http)
        }
        (None, Some(server_url), _) => Some(server_url),
        (None, None, Some(url)) => {
            if client == Client::Gemini {
                // Gemini: `url` is SSE unless `type` says http.
                draft.implied = Some(crate::config::HttpTransportKind::Sse);
            }
            Some(url)
        }
        (None, None, None) => None,
    };
    if entry.get("disabled").and_then(Value::as_bool) == Some(true)
        || entry.get("enabled").and_then(Value::as_bool) == Some(false)
    {
        draft.enabled = false;
    }
    for key in ["disabledTools", "excludeTools"] {
        draft
            .deny_tools
            .extend(strings(entry, key, &mut |s| s.to_owned())?);
    }
    for key in ["includeTools", "enabledTools", "alwaysAllow"] {
        let allowed = strings(entry, key, &mut |s| s.to_owned())?;
        if !allowed.is_empty() && key != "alwaysAllow" {
            notes.push(format!(
                "`{key}` allows only {}; mcpdeck has deny lists, not allow lists, so every tool is available — deny the others with `deny_tools`",
                allowed.join(", ")
            ));
        }
    }
    if let Some(ms) = entry.get("timeout").and_then(Value::as_u64)
        && ms > 0
        && client == Client::Gemini
    {
        draft.timeout = Some(Duration::from_millis(ms));
    }
    if let Some(file) = entry.get("envFile").and_then(Value::as_str) {
        notes.push(format!(
            "`envFile` ({file}) is not read by mcpdeck; copy its variables into `env` or the environment"
        ));
    }
    if entry.get("oauth").is_some() {
        notes.push(
            "the client's `oauth` settings were not imported; add them under [servers.NAME.oauth] if the server needs a pre-registered client".into(),
        );
    }
    warnings.extend(notes);
    Ok(draft)
}
