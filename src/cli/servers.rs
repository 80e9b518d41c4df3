//! `mcpdeck servers`: every configured server connected at once, each
//! one's status, era, version, counts and connect time (or why it failed).

use std::io::Write;

use serde_json::{Value, json};

use super::exit::{Exit, Outcome};
use super::link::{finish, start, wait_settled};
use super::output;
use crate::config::Config;
use crate::mcp::manager::{ServerSnapshot, ServerStatus};
use crate::sanitize;
use crate::text::fmt_duration;

pub async fn servers(config: &Config, json: bool, trace: bool) -> Outcome {
    let names: Vec<String> = config.servers.iter().map(|s| s.name.clone()).collect();
    let (manager, mut rx) = start(config, config.servers.clone(), trace);
    wait_settled(&mut rx, &names).await;
    let snaps = manager.snapshot().await;
    finish(manager, rx);
    let any_failed = snaps
        .iter()
        .any(|s| matches!(s.status, ServerStatus::Failed { .. }));
    let mut out = crate::cli::output::stdout();
    if json {
        let list: Vec<Value> = snaps.iter().map(server_json).collect();
        let _ = writeln!(out, "{}", output::json_pretty(&json!({"servers": list})));
    } else if snaps.is_empty() {
        let _ = writeln!(out, "No servers are configured.");
    } else {
        let rows: Vec<[String; 8]> = snaps.iter().map(server_row).collect();
        let header = [
            "NAME", "STATUS", "ERA", "VERSION", "SERVER", "TOOLS", "RES", "PROMPTS",
        ]
        .map(String::from);
        let mut widths = header.clone().map(|h| h.chars().count());
        for r in &rows {
            for (i, c) in r.iter().enumerate() {
                widths[i] = widths[i].max(c.chars().count());
            }
        }
        let line = |r: &[String; 8]| {
            let cells: Vec<String> = r
                .iter()
                .enumerate()
                .map(|(i, c)| format!("{c:<w$}", w = widths[i]))
                .collect();
            format!("{}  CONNECT", cells.join("  "))
        };
        let _ = writeln!(out, "{}", line(&header).trim_end());
        for (r, s) in rows.iter().zip(&snaps) {
            let connect = s
                .negotiated
                .as_ref()
                .map(|n| fmt_duration(n.connect_time))
                .unwrap_or_else(|| "-".into());
            let l = line(r);
            let _ = writeln!(
                out,
                "{}",
                l.trim_end_matches("CONNECT").to_string() + &connect
            );
            if let ServerStatus::Failed(e) = &s.status {
                let _ = writeln!(out, "    error: {}", sanitize::strip(&e.to_string()));
                let tail = e.stderr_tail();
                if tail.len() > 3 {
                    let _ = writeln!(
                        out,
                        "    stderr: … ({} earlier lines: `mcpdeck info {}` shows them)",
                        tail.len() - 3,
                        sanitize::one_line(&s.config.name)
                    );
                }
                for l in tail.iter().rev().take(3).rev() {
                    let _ = writeln!(out, "    stderr: {}", sanitize::strip(l));
                }
            }
        }
    }
    Ok(if any_failed { Exit::Connect } else { Exit::Ok })
}

fn server_row(s: &ServerSnapshot) -> [String; 8] {
    let n = s.negotiated.as_ref();
    let connected = s.status == ServerStatus::Connected;
    let count = |c: usize| if connected { c.to_string() } else { "-".into() };
    [
        s.config.name.clone(),
        s.status.label().to_string(),
        n.map(|n| n.era.label().to_string())
            .unwrap_or_else(|| "-".into()),
        n.map(|n| n.version.clone()).unwrap_or_else(|| "-".into()),
        n.map(|n| {
            sanitize::one_line(&format!("{} {}", n.server_info.name, n.server_info.version))
                .trim()
                .to_string()
        })
        .unwrap_or_else(|| "-".into()),
        count(s.lists.tools.len()),
        count(s.lists.resources.len()),
        count(s.lists.prompts.len()),
    ]
}

fn server_json(s: &ServerSnapshot) -> Value {
    let n = s.negotiated.as_ref();
    let connected = s.status == ServerStatus::Connected;
    let (error, tail) = match &s.status {
        ServerStatus::Failed(e) => (json!(e.to_string()), json!(e.stderr_tail())),
        _ => (Value::Null, json!([])),
    };
    json!({
        "name": s.config.name,
        "enabled": s.config.enabled,
        "status": s.status.label(),
        "era": n.map(|n| n.era.label()),
        "version": n.map(|n| n.version.clone()),
        "serverInfo": n.map(|n| n.server_info.raw.clone()),
        "tools": connected.then_some(s.lists.tools.len()),
        "resources": connected.then_some(s.lists.resources.len()),
        "prompts": connected.then_some(s.lists.prompts.len()),
        "connectMs": n.map(|n| n.connect_time.as_millis() as u64),
        "error": error,
        "stderrTail": tail,
    })
}
