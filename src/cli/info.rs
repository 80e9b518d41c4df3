//! `mcpdeck info` (what was negotiated, and how) and `mcpdeck tools`.

use std::io::Write;

use serde_json::{Value, json};

use super::TargetArgs;
use super::exit::{Exit, Failure, Outcome};
use super::link::{Link, Options};
use super::output;
use crate::config::Config;
use crate::mcp::session::ListSet;
use crate::sanitize;
use crate::text::fmt_duration;

pub async fn info(config: &Config, target: &TargetArgs, json: bool, trace: bool) -> Outcome {
    // The lists are asked for (at once: about one round trip) for their
    // caching hints (SEP-2549).
    let link = Link::open(config, target, Options::new(trace).listing(ListSet::ALL)).await?;
    let snap = link.server.clone();
    link.close();
    let Some(n) = snap.negotiated else {
        return Err(Failure::new(
            Exit::Connect,
            "connected, but nothing was negotiated",
        ));
    };
    let mut out = crate::cli::output::stdout();
    if json {
        let v = json!({
            "name": snap.config.name,
            "era": n.era.label(),
            "version": n.version,
            "detection": n.detection,
            "transport": n.transport,
            "serverInfo": n.server_info.raw,
            "capabilities": n.capabilities,
            "instructions": n.instructions,
            "supportedVersions": n.supported_versions,
            "connectMs": n.connect_time.as_millis() as u64,
            "caching": caching_json(&snap.lists),
        });
        let _ = writeln!(out, "{}", output::json_pretty(&v));
        return Ok(Exit::Ok);
    }
    let info = &n.server_info;
    let title = info
        .title
        .as_deref()
        .map(|t| format!(" \"{}\"", sanitize::strip(t)))
        .unwrap_or_default();
    let _ = writeln!(
        out,
        "server:       {} {}{title}",
        sanitize::strip(&info.name),
        sanitize::strip(&info.version)
    );
    let _ = writeln!(out, "era:          {} ({})", n.era, n.version);
    let _ = writeln!(out, "transport:    {}", n.transport);
    let _ = writeln!(out, "detected by:  {}", sanitize::strip(&n.detection));
    if !n.supported_versions.is_empty() {
        let _ = writeln!(
            out,
            "supports:     {}",
            sanitize::strip(&n.supported_versions.join(", "))
        );
    }
    let _ = writeln!(out, "connected in: {}", fmt_duration(n.connect_time));
    let caps: Vec<String> = n
        .capabilities
        .as_object()
        .map(|m| {
            m.iter()
                .map(|(k, v)| {
                    let flags: Vec<&str> = v
                        .as_object()
                        .map(|o| {
                            // Extensions are named by their ids.
                            if k == "extensions" {
                                return o.keys().map(String::as_str).collect();
                            }
                            o.iter()
                                .filter(|(_, b)| b.as_bool() == Some(true))
                                .map(|(f, _)| f.as_str())
                                .collect()
                        })
                        .unwrap_or_default();
                    if flags.is_empty() {
                        k.clone()
                    } else {
                        format!("{k} ({})", flags.join(", "))
                    }
                })
                .collect()
        })
        .unwrap_or_default();
    let caps = if caps.is_empty() {
        "(none)".to_string()
    } else {
        caps.join(", ")
    };
    let _ = writeln!(out, "capabilities: {}", sanitize::strip(&caps));
    let listed: Vec<&str> = [
        "server/discover",
        "tools/list",
        "resources/list",
        "resources/templates/list",
        "prompts/list",
    ]
    .into_iter()
    .filter(|m| {
        *m == "server/discover" && n.era == crate::mcp::types::Era::Stateless
            || snap.lists.hint(m).is_some()
            || list_asked(&n.capabilities, m)
    })
    .collect();
    if !listed.is_empty() {
        let _ = writeln!(out, "caching:");
        for m in listed {
            let said = snap
                .lists
                .hint(m)
                .map(|h| h.describe())
                .unwrap_or_else(|| "no ttlMs or cacheScope given".to_string());
            let _ = writeln!(out, "    {m:<25} {said}");
        }
    }
    if let Some(i) = &n.instructions {
        let _ = writeln!(out, "instructions:");
        for line in sanitize::strip(i).lines() {
            let _ = writeln!(out, "    {line}");
        }
    }
    Ok(Exit::Ok)
}

/// Whether `info` asked for this list (the server declares its capability).
fn list_asked(caps: &Value, method: &str) -> bool {
    let cap = match method {
        "tools/list" => "tools",
        "prompts/list" => "prompts",
        "resources/list" | "resources/templates/list" => "resources",
        _ => return false,
    };
    caps.get(cap).is_some()
}

/// `{"tools/list": {"ttlMs", "cacheScope", "fresh"}, …}` for the hints given.
fn caching_json(lists: &crate::mcp::session::Lists) -> Value {
    let mut m = serde_json::Map::new();
    for (method, h) in &lists.hints {
        m.insert(
            (*method).to_string(),
            json!({"ttlMs": h.ttl_ms, "cacheScope": h.scope, "fresh": h.fresh()}),
        );
    }
    Value::Object(m)
}

pub async fn tools(
    config: &Config,
    target: &TargetArgs,
    json: bool,
    full: bool,
    trace: bool,
) -> Outcome {
    let link = Link::open(config, target, Options::new(trace).listing(ListSet::TOOLS)).await?;
    let snap = link.server.clone();
    link.close();
    let mut out = crate::cli::output::stdout();
    if json {
        let raw: Vec<Value> = snap.lists.tools.iter().map(|t| t.raw.clone()).collect();
        let mut v = json!({"tools": raw});
        // mcpdeck's own marker, beside the server's objects (never in them).
        let denied: Vec<&str> = snap
            .lists
            .tools
            .iter()
            .filter(|t| snap.config.is_tool_denied(&t.name))
            .map(|t| t.name.as_str())
            .collect();
        if !denied.is_empty() {
            v["denied"] = json!(denied);
        }
        let _ = writeln!(out, "{}", output::json_pretty(&v));
        return Ok(Exit::Ok);
    }
    if snap.lists.tools.is_empty() {
        let declared = snap
            .negotiated
            .as_ref()
            .is_some_and(|n| n.has_capability("tools"));
        let _ = writeln!(
            out,
            "{}",
            if declared {
                "The server lists no tools."
            } else {
                "The server does not declare the tools capability."
            }
        );
    }
    for t in snap.lists.tools.iter() {
        let more = format!("{}, or tools --full", tool_command(target, &t.name));
        let _ = output::write_tool(
            &mut out,
            t,
            snap.config.is_tool_denied(&t.name),
            full,
            &sanitize::one_line(&more),
        );
    }
    Ok(Exit::Ok)
}

/// The `mcpdeck tool …` command that shows `name` of TARGET whole.
fn tool_command(target: &TargetArgs, name: &str) -> String {
    let name = shell_word(name);
    match &target.target {
        Some(t) => format!("mcpdeck tool {} {name}", shell_word(t)),
        None => format!("mcpdeck tool {name} -- …"),
    }
}

/// A word as a shell takes it back: quoted when it has more than
/// letters, digits and `-_./:@`.
fn shell_word(w: &str) -> String {
    if !w.is_empty()
        && w.chars()
            .all(|c| c.is_ascii_alphanumeric() || "-_./:@".contains(c))
    {
        w.to_string()
    } else {
        format!("'{}'", w.replace('\'', "'\\''"))
    }
}

/// `mcpdeck tool TARGET NAME`: one tool whole, or with `--json` the tool
/// object as the server sent it.
pub async fn tool(
    config: &Config,
    words: &[String],
    command: &[String],
    json: bool,
    trace: bool,
) -> Outcome {
    let (target, name) = super::resources::split_words(words, command, "tool", "NAME")?;
    let link = Link::open(config, &target, Options::new(trace).listing(ListSet::TOOLS)).await?;
    let snap = link.server.clone();
    link.close();
    if let Some(e) = snap.lists.error("tools/list") {
        return Err(super::exit::call_failure(
            &crate::mcp::manager::CallError::Request(e.clone()),
        ));
    }
    let Some(t) = snap.lists.tools.iter().find(|t| t.name == name) else {
        let names: Vec<&str> = snap.lists.tools.iter().map(|t| t.name.as_str()).collect();
        let hint = crate::text::did_you_mean(&names, &name).unwrap_or_else(|| {
            if names.is_empty() {
                "; it lists no tools".to_string()
            } else {
                "; `mcpdeck tools` lists them".to_string()
            }
        });
        return Err(Failure::new(
            Exit::Usage,
            format!(
                "server {:?} lists no tool named {:?}{hint}",
                sanitize::one_line(&snap.config.name),
                sanitize::one_line(&name)
            ),
        ));
    };
    let mut out = crate::cli::output::stdout();
    if json {
        let _ = writeln!(out, "{}", output::json_pretty(&t.raw));
    } else {
        let _ = output::write_tool_whole(&mut out, t, snap.config.is_tool_denied(&t.name));
    }
    Ok(Exit::Ok)
}
