//! `mcpdeck pin [TARGET…]` and `mcpdeck verify [TARGET…]`: record a
//! fingerprint of each definition the servers show, and compare them later
//! ([`crate::trust::pin`]).
//!
//! Without TARGET, every enabled configured server; servers are connected
//! a few at a time. `verify` exits 1 on any added, removed or changed
//! definition and on a server that was never pinned; a server that could
//! not be connected (or whose lists did not come) keeps its own exit code,
//! which wins over 1 (the check is incomplete).

use std::io::Write;

use clap::Args;
use serde_json::{Value, json};

use crate::cli::TargetArgs;
use crate::cli::exit::{Exit, Failure, Outcome, connect_failure_as};
use crate::cli::link::{Link, Options};
use crate::cli::output;
use crate::config::{Config, ServerConfig};
use crate::sanitize;
use crate::trust::Kind;
use crate::trust::pin::{
    Change, ChangeKind, PinError, PinStore, ServerPins, compare, fingerprint, info_change, key_for,
};

#[derive(Args, Debug)]
pub struct PinArgs {
    /// Configured server names or http(s):// URLs [default: every enabled server]
    #[arg(value_name = "TARGET")]
    pub targets: Vec<String>,
    /// An ad-hoc stdio server: `-- CMD ARGS…`
    #[arg(last = true, value_name = "CMD")]
    pub command: Vec<String>,
    /// Print JSON: {"pinFile", "servers": [{"server", "key", "status", …}]}
    #[arg(long)]
    pub json: bool,
    #[command(flatten)]
    pub limit: crate::cli::target::Limit,
}

/// How many servers are connected at once.
const AT_ONCE: usize = 4;

/// One server to pin or verify.
struct Target {
    /// How it is named to `Link`.
    args: TargetArgs,
    /// How the user names it again (`mcpdeck pin …`).
    shown: String,
    /// Its config, for its key (before connecting).
    config: ServerConfig,
}

/// The servers the command is about, checked before anything connects.
fn targets(config: &Config, args: &PinArgs) -> Result<Vec<Target>, Failure> {
    if !args.command.is_empty() {
        if !args.targets.is_empty() {
            return Err(Failure::new(
                Exit::Usage,
                "give either TARGETs or `-- CMD ARGS…`, not both",
            ));
        }
        let t = TargetArgs {
            target: None,
            command: args.command.clone(),
        };
        let server = crate::cli::target::target_config(config, &t)?;
        return Ok(vec![Target {
            shown: format!("-- {}", args.command.join(" ")),
            args: t,
            config: server,
        }]);
    }
    let names: Vec<String> = if args.targets.is_empty() {
        let enabled: Vec<String> = config
            .servers
            .iter()
            .filter(|s| s.enabled)
            .map(|s| s.name.clone())
            .collect();
        if enabled.is_empty() {
            let at = config
                .path
                .as_ref()
                .map(|p| format!(" in {}", p.display()))
                .unwrap_or_default();
            return Err(Failure::new(
                Exit::Usage,
                format!(
                    "no enabled servers are configured{at}: name a TARGET (a server, an http(s):// URL) or give `-- CMD ARGS…`"
                ),
            ));
        }
        enabled
    } else {
        let mut seen = Vec::new();
        for t in &args.targets {
            if !seen.contains(t) {
                seen.push(t.clone());
            }
        }
        seen
    };
    let mut out = Vec::new();
    for name in names {
        let t = TargetArgs {
            target: Some(name.clone()),
            command: Vec::new(),
        };
        // A configured server is taken as it is (`Link` says if it is
        // disabled); anything else is resolved here, and an unknown name
        // is a usage error before anything connects.
        let server = match config.server(&name) {
            Some(s) => s.clone(),
            None => crate::cli::target::target_config(config, &t)?,
        };
        out.push(Target {
            args: t,
            shown: name,
            config: server,
        });
    }
    Ok(out)
}

/// Connect a server, fingerprint what it lists, and let it go.
async fn fingerprint_one(
    config: &Config,
    target: &Target,
    trace: bool,
) -> Result<ServerPins, Failure> {
    let link = match Link::connect(config, &target.args, Options::new(trace)).await? {
        Ok(link) => link,
        Err((name, e)) => return Err(connect_failure_as(&name, &target.shown, &e)),
    };
    let snap = link.server.clone();
    link.close();
    if let Some((method, e)) = snap.lists.errors.first() {
        return Err(Failure::new(
            Exit::for_kind(e.kind()),
            format!(
                "{}: {method} did not come ({}); its definitions cannot be fingerprinted",
                snap.config.name,
                sanitize::strip(&e.to_string())
            ),
        ));
    }
    let info = snap.negotiated.as_ref().map(|n| &n.server_info);
    Ok(fingerprint(
        &snap.config.name,
        &key_for(&snap.config),
        info,
        &snap.lists,
    ))
}

/// Fingerprint every target, [`AT_ONCE`] at a time, in order.
async fn fingerprint_all(
    config: &Config,
    targets: &[Target],
    trace: bool,
) -> Vec<Result<ServerPins, Failure>> {
    let mut out = Vec::with_capacity(targets.len());
    for chunk in targets.chunks(AT_ONCE) {
        let runs = chunk.iter().map(|t| fingerprint_one(config, t, trace));
        out.extend(futures_util::future::join_all(runs).await);
    }
    out
}

fn load_store() -> Result<PinStore, Failure> {
    PinStore::load_default().map_err(|e: PinError| Failure::new(Exit::Usage, e.to_string()))
}

/// The exit code of the first failure, reported on stderr (each one).
fn report_failure(f: &Failure, worst: &mut Option<Exit>) {
    eprintln!("mcpdeck: {}", f.message);
    worst.get_or_insert(f.code);
}

fn info_json(p: &ServerPins) -> Value {
    p.server_info.as_ref().map_or(
        Value::Null,
        |i| json!({"name": i.name, "version": i.version}),
    )
}

fn counts_json(p: &ServerPins) -> Value {
    json!({
        "tools": p.count(Kind::Tool),
        "prompts": p.count(Kind::Prompt),
        "resources": p.count(Kind::Resource),
        "templates": p.count(Kind::Template),
    })
}

/// ` (server-everything 2.0.0)`, or nothing.
fn info_text(p: &ServerPins) -> String {
    p.server_info
        .as_ref()
        .filter(|i| !i.name.is_empty() || !i.version.is_empty())
        .map(|i| {
            format!(
                " ({} {})",
                sanitize::one_line(&i.name),
                sanitize::one_line(&i.version)
            )
        })
        .unwrap_or_default()
}

pub async fn pin(config: &Config, args: &PinArgs, trace: bool) -> Outcome {
    let targets = targets(config, args)?;
    // A pin file that cannot be used stops the command before anything
    // connects; it is read again before the write, so that pins another
    // run saved meanwhile are kept.
    load_store()?;
    let results = fingerprint_all(config, &targets, trace).await;
    let mut store = load_store()?;
    let mut worst = None;
    let mut rows = Vec::new();
    let mut lines = Vec::new();
    let mut pinned = 0;
    for (target, result) in targets.iter().zip(results) {
        match result {
            Ok(now) => {
                let changes = store
                    .get(&now.key)
                    .map(|before| compare(before, &now).len());
                lines.push(format!(
                    "pinned {}: {}{}{}",
                    sanitize::one_line(&now.server),
                    now.counts_text(),
                    info_text(&now),
                    match changes {
                        Some(0) => String::new(),
                        Some(1) => "; 1 change since the last pin".into(),
                        Some(n) => format!("; {n} changes since the last pin"),
                        None => String::new(),
                    }
                ));
                rows.push(json!({
                    "server": now.server,
                    "key": now.key,
                    "status": "pinned",
                    "counts": counts_json(&now),
                    "serverInfo": info_json(&now),
                    "changesSinceLastPin": changes,
                }));
                store.set(now);
                pinned += 1;
            }
            Err(f) => {
                report_failure(&f, &mut worst);
                lines.push(format!(
                    "{}: FAILED (the error is above, on stderr)",
                    sanitize::one_line(&target.config.name)
                ));
                rows.push(json!({
                    "server": target.config.name,
                    "key": key_for(&target.config),
                    "status": "failed",
                    "error": f.message,
                }));
            }
        }
    }
    if pinned > 0 {
        store
            .save()
            .map_err(|e| Failure::new(Exit::Usage, e.to_string()))?;
    }
    let mut out = crate::cli::output::stdout();
    if args.json {
        let v = json!({"pinFile": store.path().display().to_string(), "servers": rows});
        let _ = writeln!(out, "{}", output::json_pretty(&v));
    } else {
        for l in lines {
            let _ = writeln!(out, "{l}");
        }
        if pinned > 0 {
            let _ = writeln!(out, "pin file: {}", store.path().display());
        }
    }
    Ok(worst.unwrap_or(Exit::Ok))
}

/// `1 changed, 2 added` for a server's changes.
fn summary(changes: &[Change]) -> String {
    let n = |w: ChangeKind| changes.iter().filter(|c| c.what == w).count();
    [
        (n(ChangeKind::Changed), "changed"),
        (n(ChangeKind::Added), "added"),
        (n(ChangeKind::Removed), "removed"),
    ]
    .iter()
    .filter(|(n, _)| *n > 0)
    .map(|(n, w)| format!("{n} {w}"))
    .collect::<Vec<_>>()
    .join(", ")
}

pub async fn verify(config: &Config, args: &PinArgs, trace: bool) -> Outcome {
    let targets = targets(config, args)?;
    let store = load_store()?;
    let results = fingerprint_all(config, &targets, trace).await;
    let mut worst = None;
    let mut drift = false;
    let mut rows = Vec::new();
    let mut lines: Vec<String> = Vec::new();
    for (target, result) in targets.iter().zip(results) {
        let now = match result {
            Ok(now) => now,
            Err(f) => {
                report_failure(&f, &mut worst);
                lines.push(format!(
                    "{}: FAILED (the error is above, on stderr)",
                    sanitize::one_line(&target.config.name)
                ));
                rows.push(json!({
                    "server": target.config.name,
                    "key": key_for(&target.config),
                    "status": "failed",
                    "changes": [],
                    "error": f.message,
                }));
                continue;
            }
        };
        let name = sanitize::one_line(&now.server);
        let Some(before) = store.get(&now.key) else {
            drift = true;
            let hint = format!("mcpdeck pin {}", target.shown);
            lines.push(format!(
                "{name}: not pinned: run `{}`",
                sanitize::one_line(&hint)
            ));
            rows.push(json!({
                "server": now.server,
                "key": now.key,
                "status": "unpinned",
                "changes": [],
                "hint": hint,
            }));
            continue;
        };
        let changes = compare(before, &now);
        let info = info_change(before, &now);
        let when = sanitize::one_line(&before.pinned_at);
        if changes.is_empty() {
            lines.push(format!(
                "{name}: ok, as pinned on {when} ({})",
                now.counts_text()
            ));
        } else {
            drift = true;
            lines.push(format!(
                "{name}: CHANGED since pinned on {when}: {}",
                summary(&changes)
            ));
            for c in &changes {
                lines.extend(c.render_text().into_iter().map(|l| format!("    {l}")));
            }
        }
        if let Some(i) = &info {
            lines
                .push("    note (not a failure by itself): the server's serverInfo changed".into());
            lines.extend(
                i.render_text()
                    .into_iter()
                    .skip(1)
                    .map(|l| format!("    {l}")),
            );
        }
        rows.push(json!({
            "server": now.server,
            "key": now.key,
            "status": if changes.is_empty() { "ok" } else { "changed" },
            "pinnedAt": before.pinned_at,
            "changes": changes,
            "serverInfo": {"pinned": info_json(before), "now": info_json(&now)},
            "serverInfoChanged": info.is_some(),
        }));
    }
    let mut out = crate::cli::output::stdout();
    if args.json {
        let v = json!({"pinFile": store.path().display().to_string(), "servers": rows});
        let _ = writeln!(out, "{}", output::json_pretty(&v));
    } else {
        for l in lines {
            let _ = writeln!(out, "{l}");
        }
    }
    Ok(match worst {
        Some(code) => code,
        None if drift => Exit::ToolError,
        None => Exit::Ok,
    })
}
