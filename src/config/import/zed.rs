//! Zed: `context_servers` in settings.json (JSONC). New entries are
//! `{command, args, env, enabled}` or `{url, headers, enabled}`; older ones
//! `{"source": "custom", "command": {"path", "args", "env"}}`.

use serde_json::{Map, Value};

use super::json_clients::{kind, pairs, parse_jsonc, string, strings};
use super::vars::{self, Syntax};
use super::{Ctx, Draft, FileResult, usable_name};

pub(crate) fn read(ctx: &Ctx<'_>, text: &str, out: &mut FileResult) {
    let root = match parse_jsonc(text, ctx.path) {
        Ok(v) => v,
        Err(message) => {
            out.errors.push(ctx.file_error(message));
            return;
        }
    };
    let Some(servers) = root.get("context_servers") else {
        return;
    };
    let Some(servers) = servers.as_object() else {
        out.errors.push(ctx.file_error(format!(
            "{}: `context_servers` is not an object of servers",
            ctx.path.display()
        )));
        return;
    };
    for (name, entry) in servers {
        let mut warnings = Vec::new();
        let usable = usable_name(name, &mut warnings);
        let Some(entry) = entry.as_object() else {
            out.errors
                .push(ctx.entry_error(name, "the entry is not an object"));
            continue;
        };
        match draft(entry).and_then(|d| d.build(&usable, &mut warnings)) {
            Ok(server) => out.servers.push(ctx.imported(&usable, server, warnings)),
            Err(message) => out.errors.push(ctx.entry_error(name, message)),
        }
    }
}

fn draft(entry: &Map<String, Value>) -> Result<Draft, String> {
    let mut notes = Vec::new();
    let folder = std::path::PathBuf::new();
    let mut tr = |s: &str| vars::translate(s, Syntax::None, &folder, &mut notes);
    let mut draft = Draft::new();
    match entry.get("command") {
        // The older shape: "command": {"path", "args", "env"}.
        Some(Value::Object(command)) => {
            draft.command = string(command, "path", &mut tr)?;
            draft.args = strings(command, "args", &mut tr)?;
            draft.env = pairs(command, "env", &mut tr)?;
        }
        Some(Value::String(_)) | None | Some(Value::Null) => {
            draft.command = string(entry, "command", &mut tr)?;
            draft.args = strings(entry, "args", &mut tr)?;
            draft.env = pairs(entry, "env", &mut tr)?;
        }
        Some(other) => {
            return Err(format!(
                "`command` must be a string or an object, found {}",
                kind(other)
            ));
        }
    }
    draft.url = string(entry, "url", &mut tr)?;
    draft.headers = pairs(entry, "headers", &mut tr)?;
    if entry.get("enabled").and_then(Value::as_bool) == Some(false) {
        draft.enabled = false;
    }
    if draft.command.is_none()
        && draft.url.is_none()
        && entry.get("source").and_then(Value::as_str) == Some("extension")
    {
        return Err(
            "is provided by a Zed extension, which mcpdeck cannot run; add its command by hand"
                .into(),
        );
    }
    Ok(draft)
}
