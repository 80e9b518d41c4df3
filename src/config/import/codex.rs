//! Codex CLI: `[mcp_servers.NAME]` in config.toml.

use std::time::Duration;

use toml::{Table, Value};

use super::vars::{self, Syntax};
use super::{Ctx, Draft, FileResult, usable_name};

pub(crate) fn read(ctx: &Ctx<'_>, text: &str, out: &mut FileResult) {
    let root: Table = match text.parse() {
        Ok(t) => t,
        Err(e) => {
            let e: toml::de::Error = e;
            let (line, column) = e
                .span()
                .map(|span| line_column(text, span.start))
                .unwrap_or((1, 1));
            out.errors.push(ctx.file_error(format!(
                "{}:{line}:{column}: invalid TOML: {}",
                ctx.path.display(),
                e.message()
            )));
            return;
        }
    };
    let Some(servers) = root.get("mcp_servers") else {
        return;
    };
    let Some(servers) = servers.as_table() else {
        out.errors.push(ctx.file_error(format!(
            "{}: `mcp_servers` is not a table of servers",
            ctx.path.display()
        )));
        return;
    };
    for (name, entry) in servers {
        let mut warnings = Vec::new();
        let usable = usable_name(name, &mut warnings);
        let Some(entry) = entry.as_table() else {
            out.errors
                .push(ctx.entry_error(name, "the entry is not a table"));
            continue;
        };
        match draft(entry, &mut warnings).and_then(|d| d.build(&usable, &mut warnings)) {
            Ok(server) => out.servers.push(ctx.imported(&usable, server, warnings)),
            Err(message) => out.errors.push(ctx.entry_error(name, message)),
        }
    }
}

/// 1-based line and column (in characters) of byte `offset`.
pub(crate) fn line_column(text: &str, offset: usize) -> (usize, usize) {
    let before = &text[..offset.min(text.len())];
    let line = before.matches('\n').count() + 1;
    let column = before.rsplit('\n').next().map_or(0, |l| l.chars().count()) + 1;
    (line, column)
}

fn lit(s: &str) -> String {
    let mut none = Vec::new();
    vars::translate(s, Syntax::None, std::path::Path::new(""), &mut none)
}

fn string(entry: &Table, key: &str) -> Result<Option<String>, String> {
    match entry.get(key) {
        None => Ok(None),
        Some(Value::String(s)) => Ok(Some(lit(s))),
        Some(other) => Err(format!(
            "`{key}` must be a string, found {}",
            other.type_str()
        )),
    }
}

fn strings(entry: &Table, key: &str) -> Result<Vec<String>, String> {
    match entry.get(key) {
        None => Ok(Vec::new()),
        Some(Value::Array(items)) => items
            .iter()
            .map(|v| match v {
                Value::String(s) => Ok(s.clone()),
                other => Err(format!(
                    "`{key}` must hold strings, found {}",
                    other.type_str()
                )),
            })
            .collect(),
        Some(other) => Err(format!(
            "`{key}` must be an array, found {}",
            other.type_str()
        )),
    }
}

fn pairs(entry: &Table, key: &str) -> Result<Vec<(String, String)>, String> {
    match entry.get(key) {
        None => Ok(Vec::new()),
        Some(Value::Table(t)) => t
            .iter()
            .map(|(k, v)| match v {
                Value::String(s) => Ok((k.clone(), s.clone())),
                other => Err(format!(
                    "`{key}.{k}` must be a string, found {}",
                    other.type_str()
                )),
            })
            .collect(),
        Some(other) => Err(format!(
            "`{key}` must be a table, found {}",
            other.type_str()
        )),
    }
}

fn draft(entry: &Table, warnings: &mut Vec<String>) -> Result<Draft, String> {
    let mut d = Draft::new();
    d.command = string(entry, "command")?;
    d.args = strings(entry, "args")?.iter().map(|a| lit(a)).collect();
    d.env = pairs(entry, "env")?
        .into_iter()
        .map(|(k, v)| (k, lit(&v)))
        .collect();
    // `env_vars`: variables Codex passes on from its own environment,
    // which is what `${VAR}` does in mcpdeck.
    for var in strings(entry, "env_vars")? {
        if !vars::is_variable_name(&var) {
            return Err(format!(
                "`env_vars` must name environment variables, found \"{var}\""
            ));
        }
        if !d.env.iter().any(|(k, _)| *k == var) {
            d.env.push((var.clone(), format!("${{{var}}}")));
        }
    }
    d.cwd = string(entry, "cwd")?;
    d.url = string(entry, "url")?;
    d.headers = pairs(entry, "http_headers")?
        .into_iter()
        .map(|(k, v)| (k, lit(&v)))
        .collect();
    for (header, var) in pairs(entry, "env_http_headers")? {
        if !vars::is_variable_name(&var) {
            return Err(format!(
                "`env_http_headers.{header}` must name an environment variable, found \"{var}\""
            ));
        }
        d.headers.push((header, format!("${{{var}}}")));
    }
    if let Some(var) = string(entry, "bearer_token_env_var")? {
        if !vars::is_variable_name(&var) {
            return Err(format!(
                "`bearer_token_env_var` must name an environment variable, found \"{var}\""
            ));
        }
        d.headers
            .push(("Authorization".to_owned(), format!("Bearer ${{{var}}}")));
    }
    if d.url.is_some() {
        d.implied = Some(crate::config::HttpTransportKind::StreamableHttp);
    }
    if entry.get("enabled").and_then(Value::as_bool) == Some(false) {
        d.enabled = false;
    }
    d.deny_tools = strings(entry, "disabled_tools")?;
    let allowed = strings(entry, "enabled_tools")?;
    if !allowed.is_empty() {
        warnings.push(format!(
            "`enabled_tools` allows only {}; mcpdeck has deny lists, not allow lists, so every tool is available — deny the others with `deny_tools`",
            allowed.join(", ")
        ));
    }
    let seconds = match entry.get("tool_timeout_sec") {
        Some(Value::Integer(n)) if *n > 0 => Some(*n as f64),
        Some(Value::Float(f)) if *f > 0.0 && f.is_finite() => Some(*f),
        _ => None,
    };
    d.timeout = seconds.map(Duration::from_secs_f64);
    Ok(d)
}
