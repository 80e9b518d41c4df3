//! `mcpdeck export --to CLIENT [SERVER…] [--write] [--force]`: configured
//! servers in another client's format, printed or merged into its file.

use std::io::Write;

use clap::Args;

use super::exit::{Exit, Failure, Outcome};
use crate::config::Config;
use crate::config::export::{self, Client, FileReport};
use crate::text::did_you_mean;

#[derive(Args, Debug)]
pub struct ExportArgs {
    /// The client: claude-desktop, claude-code, vscode, cursor, windsurf, zed, codex, gemini
    #[arg(long, value_name = "CLIENT")]
    pub to: String,
    /// The servers to export [default: every configured server]
    #[arg(value_name = "SERVER")]
    pub servers: Vec<String>,
    /// Merge into the client's user file (a backup of it is kept) instead of printing
    #[arg(long)]
    pub write: bool,
    /// With --write: replace servers of the same name that the file defines differently
    #[arg(long)]
    pub force: bool,
    /// Each server runs through `mcpdeck serve --config THIS_CONFIG NAME` instead of
    /// directly: mcpdeck's deny lists and enabled switches apply to the agent live,
    /// and no secret of the server's is written into the client's file
    #[arg(long)]
    pub via_serve: bool,
}

fn client_list() -> String {
    Client::ALL.map(Client::name).join(", ")
}

pub fn run(config: &Config, args: &ExportArgs) -> Outcome {
    let Some(client) = Client::from_name(&args.to) else {
        let names = Client::ALL.map(Client::name);
        let hint = did_you_mean(&names, &args.to).unwrap_or_default();
        return Err(Failure::new(
            Exit::Usage,
            format!(
                "unknown client {:?}{hint}; --to takes one of: {}",
                crate::sanitize::one_line(&args.to),
                client_list()
            ),
        ));
    };
    if args.force && !args.write {
        return Err(Failure::new(
            Exit::Usage,
            "--force only applies with --write",
        ));
    }
    let all = export::sources(config).map_err(|e| Failure::new(Exit::Usage, e))?;
    let chosen = if args.servers.is_empty() {
        all
    } else {
        let names: Vec<&str> = all.iter().map(|s| s.name.as_str()).collect();
        let mut chosen = Vec::new();
        for wanted in &args.servers {
            match all.iter().find(|s| &s.name == wanted) {
                Some(s) if !chosen.iter().any(|c: &export::Source| c.name == s.name) => {
                    chosen.push(s.clone())
                }
                Some(_) => {}
                None => {
                    let hint = did_you_mean(&names, wanted).unwrap_or_default();
                    let known = if names.is_empty() {
                        "no servers are configured".to_owned()
                    } else {
                        format!("the configured servers are {}", names.join(", "))
                    };
                    return Err(Failure::new(
                        Exit::Usage,
                        format!(
                            "unknown server {:?}{hint} ({known})",
                            crate::sanitize::one_line(wanted)
                        ),
                    ));
                }
            }
        }
        chosen
    };
    let chosen = if args.via_serve {
        via_serve(config, chosen)?
    } else {
        chosen
    };
    let rendered = export::render(client, &chosen, !args.servers.is_empty());
    let mut err = std::io::stderr().lock();
    for w in &rendered.warnings {
        let _ = writeln!(err, "mcpdeck: warning: {w}");
    }
    drop(err);
    if !args.write {
        let mut out = crate::cli::output::stdout();
        let _ = out.write_all(export::to_text(&rendered).as_bytes());
        if !rendered.deny_rules.is_empty() {
            let settings = Client::claude_code_settings(&env)
                .map(|p| p.display().to_string())
                .unwrap_or_else(|| "~/.claude/settings.json".into());
            eprintln!(
                "mcpdeck: the deny lists are Claude Code permission rules; add them to `permissions.deny` in {settings} (--write does): {}",
                rendered.deny_rules.join(", ")
            );
        }
        return Ok(Exit::Ok);
    }
    let Some(path) = client.user_file(&env) else {
        return Err(Failure::new(
            Exit::Usage,
            format!(
                "no home directory is known, so {}'s file cannot be found; set HOME",
                client.label()
            ),
        ));
    };
    if rendered.entries.is_empty() {
        outln!(
            "Nothing to export to {}: {} is unchanged.",
            client.label(),
            path.display()
        );
        return Ok(Exit::Ok);
    }
    let settings = match client {
        Client::ClaudeCode => Client::claude_code_settings(&env),
        _ => None,
    };
    let report = export::write(&rendered, &path, settings.as_deref(), args.force)
        .map_err(|e| Failure::new(Exit::Usage, e))?;
    print_report(&report.servers, "servers");
    if let Some(settings) = &report.settings {
        print_report(settings, "deny rules");
    }
    Ok(Exit::Ok)
}

/// The servers as entries that run `mcpdeck serve` on each: the command is
/// this mcpdeck (by absolute path: the client's PATH may differ), the
/// config the one in use (by absolute path). Nothing else of the server
/// goes to the client: its command, URL, environment, headers and tokens
/// stay in mcpdeck's config; its deny list is enforced by `serve`, and a
/// disabled server is exported enabled (`serve` shows it once it is
/// enabled in mcpdeck, and nothing until then).
fn via_serve(config: &Config, chosen: Vec<export::Source>) -> Result<Vec<export::Source>, Failure> {
    let Some(path) = config.path.as_ref().filter(|p| p.is_file()) else {
        return Err(Failure::new(
            Exit::Usage,
            "--via-serve needs a config file for `mcpdeck serve` to read; add a server first (`mcpdeck add NAME -- CMD…`) or name one with --config",
        ));
    };
    let path = std::path::absolute(path).map_err(|e| {
        Failure::new(
            Exit::Usage,
            format!("cannot make {} absolute: {e}", path.display()),
        )
    })?;
    let exe = std::env::current_exe().map_err(|e| {
        Failure::new(
            Exit::Usage,
            format!("cannot find mcpdeck's own executable for --via-serve: {e}"),
        )
    })?;
    let text = |p: &std::path::Path| export::Text::literal(&p.to_string_lossy());
    Ok(chosen
        .into_iter()
        .map(|s| export::Source {
            transport: export::SourceTransport::Stdio {
                command: text(&exe),
                args: vec![
                    export::Text::literal("serve"),
                    export::Text::literal("--config"),
                    text(&path),
                    export::Text::literal(&s.name),
                ],
                env: Vec::new(),
                cwd: None,
            },
            enabled: true,
            deny_tools: Vec::new(),
            allow_tools: Vec::new(),
            timeout: s.timeout,
            name: s.name,
        })
        .collect())
}

fn env(name: &str) -> Option<String> {
    std::env::var(name).ok()
}

fn print_report(r: &FileReport, what: &str) {
    let path = r.path.display();
    if !r.written {
        outln!(
            "{path}: already up to date ({what}: {})",
            r.unchanged.join(", ")
        );
        return;
    }
    let verb = if r.created { "created" } else { "updated" };
    outln!("{path}: {verb}");
    for (label, names) in [
        ("added", &r.added),
        ("replaced", &r.replaced),
        ("unchanged", &r.unchanged),
    ] {
        if !names.is_empty() {
            outln!("  {what} {label}: {}", names.join(", "));
        }
    }
    if let Some(backup) = &r.backup {
        outln!("  backup of the previous file: {}", backup.display());
    }
}
