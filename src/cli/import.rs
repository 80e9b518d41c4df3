//! `mcpdeck import`: servers from other clients' files (`--all`, `--from
//! CLIENT`) or one file (`PATH`, a registry server.json too) into the
//! config, through the comment-preserving, atomic write-back.

use std::io::Write;
use std::path::{Path, PathBuf};

use clap::{Args, ValueEnum};
use serde_json::{Value, json};

use super::exit::{Exit, Failure, Kind, Outcome};
use crate::config::import::{
    self, Client, FileResult, ImportError, Imported, Locations, OnConflict,
};
use crate::config::{self, ConfigEditor, NewServer, TransportConfig};
use crate::sanitize;

#[derive(Args, Debug)]
#[command(group(clap::ArgGroup::new("source").required(true).args(["all", "from", "path"])))]
pub struct ImportArgs {
    /// Every known client's user files, and the project files of the current directory
    #[arg(long)]
    pub all: bool,
    /// One client's files
    #[arg(long, value_name = "CLIENT", value_parser = client_names())]
    pub from: Option<String>,
    /// One file; its format is detected (a registry server.json too)
    #[arg(value_name = "PATH")]
    pub path: Option<PathBuf>,
    /// Show what would be imported; write nothing
    #[arg(long)]
    pub dry_run: bool,
    /// Print {"servers": […], "errors": […]}
    #[arg(long)]
    pub json: bool,
    /// A name taken by a different server: import as NAME-2 (rename), leave it out (skip), or replace it
    #[arg(long, value_enum, default_value = "rename")]
    pub on_conflict: ConflictArg,
    /// Move the secrets written in clear in the clients' files into mcpdeck's credential store
    /// without asking (the config gets ${secret:SERVER_KEY}; the clients' files are not changed)
    #[arg(long)]
    pub move_secrets: bool,
}

#[derive(ValueEnum, Debug, Clone, Copy)]
pub enum ConflictArg {
    Skip,
    Rename,
    Replace,
}

fn client_names() -> clap::builder::PossibleValuesParser {
    clap::builder::PossibleValuesParser::new(Client::ALL.map(Client::name))
}

pub fn run(config_flag: Option<&Path>, args: &ImportArgs) -> Outcome {
    let cwd = std::env::current_dir().map_err(|e| {
        Failure::new(
            Exit::Usage,
            format!("cannot read the current directory: {e}"),
        )
    })?;
    let mut results: Vec<FileResult> = Vec::new();
    let mut looked: Vec<PathBuf> = Vec::new();
    if let Some(path) = &args.path {
        results.push(import::read_file(path, None, &cwd));
    } else {
        let at = Locations::from_env().ok_or_else(|| {
            Failure::new(
                Exit::Usage,
                "no home directory: set HOME, or import a file with `mcpdeck import PATH`",
            )
        })?;
        let clients: Vec<Client> = match &args.from {
            Some(name) => vec![
                Client::from_name(name)
                    .ok_or_else(|| Failure::new(Exit::Usage, format!("unknown client {name:?}")))?,
            ],
            None => Client::ALL.to_vec(),
        };
        for &client in &clients {
            looked.extend(client.user_files(&at));
            looked.extend(client.project_files(&cwd));
        }
        for (client, path) in import::discover(&clients, &at, &cwd) {
            results.push(import::read_file(&path, Some(client), &cwd));
        }
    }
    let mut found: Vec<Imported> = Vec::new();
    let mut errors: Vec<ImportError> = Vec::new();
    for result in results {
        found.extend(result.servers);
        errors.extend(result.errors);
    }
    // With PATH, a file that cannot be read or parsed stops everything.
    let fatal = args.path.is_some() && errors.iter().any(|e| e.fatal);

    let config_path = config::resolve_path(config_flag).ok_or_else(|| {
        Failure::new(
            Exit::Usage,
            "no config directory on this system; use --config FILE",
        )
    })?;
    let mut editor =
        ConfigEditor::open(&config_path).map_err(|e| Failure::new(Exit::Usage, e.to_string()))?;
    let existing = import::existing_servers(editor.baseline(), &config_path).map_err(|e| {
        Failure::new(
            Exit::Usage,
            format!("{e}\nfix the config first; nothing was imported"),
        )
    })?;
    let on_conflict = match args.on_conflict {
        ConflictArg::Skip => OnConflict::Skip,
        ConflictArg::Rename => OnConflict::Rename,
        ConflictArg::Replace => OnConflict::Replace,
    };
    let mut plan = if fatal {
        import::Plan::default()
    } else {
        import::plan(&existing, found, on_conflict)
    };
    // Secrets in clear: into the credential store, asked per server at a
    // terminal or all with --move-secrets (a dry run stores nothing).
    let moved: Vec<Vec<String>> = if fatal {
        Vec::new()
    } else {
        move_secrets(args, editor.baseline(), &config_path, &mut plan)
    };

    let mut write_error = None;
    if !fatal && !args.dry_run && !plan.add.is_empty() {
        let servers: Vec<NewServer> = plan
            .add
            .iter()
            .map(|item| NewServer {
                server: item.server.clone(),
                comment: Some(format!(
                    "imported from {}: {}",
                    item.client.label(),
                    item.path.display()
                )),
            })
            .collect();
        if let Err(e) = editor.import_servers(&plan.replace, &servers) {
            write_error = Some(e.to_string());
        }
    }

    // A `${VAR}` (Cursor's `${env:VAR}` too) that is not set now: said
    // for each server (the server cannot start until it is set).
    let written = (!fatal && !args.dry_run && write_error.is_none() && !plan.add.is_empty())
        .then(|| editor.baseline().to_owned());
    let unset: Vec<Vec<String>> = plan
        .add
        .iter()
        .map(|item| unset_warnings(item, written.as_deref(), &config_path))
        .collect();
    for warning in unset.iter().flatten() {
        eprintln!("mcpdeck: warning: {}", sanitize::strip(warning));
    }
    if args.json {
        let mut report = json!({
            // Nothing was added when the write failed.
            "servers": if write_error.is_some() { Vec::new() } else {
                plan.add.iter().zip(&unset).enumerate().map(|(i, (item, unset))| {
                    let mut v = server_json(item);
                    if let Some(list) = v["warnings"].as_array_mut() {
                        list.extend(unset.iter().map(|w| Value::from(w.clone())));
                    }
                    // The secrets moved into the store, when there are any.
                    if let Some(names) = moved.get(i).filter(|n| !n.is_empty()) {
                        v["secrets"] = json!(names);
                    }
                    v
                }).collect::<Vec<_>>()
            },
            // Left out: a name taken (--on-conflict skip), or mcpdeck
            // serve fronting mcpdeck (export --via-serve); `reason` says.
            "skipped": plan.skipped.iter().map(|i| json!({
                "name": i.name,
                "client": i.client.label(),
                "path": i.path.display().to_string(),
                "reason": i.warnings.last(),
            })).collect::<Vec<_>>(),
            "errors": errors.iter().map(|e| json!({
                "client": e.client,
                "path": e.path.display().to_string(),
                "message": e.message,
            })).collect::<Vec<_>>(),
        });
        // The report is the answer (no error envelope after it): it says
        // why nothing was written.
        if let Some(message) = &write_error {
            report["writeError"] = json!(message);
        }
        let mut out = crate::cli::output::stdout();
        let _ = writeln!(
            out,
            "{}",
            serde_json::to_string_pretty(&report).unwrap_or_default()
        );
    } else {
        print_text(args, &config_path, &plan, &errors, &looked);
    }
    // With --json the report above is the answer: no error envelope.
    let answered = |f: Failure| if args.json { f.answered() } else { f };
    if let Some(message) = write_error {
        return Err(answered(
            Failure::new(
                Exit::Usage,
                format!("{message}\nnothing was imported; the config is as it was"),
            )
            .kind(Kind::Config),
        ));
    }
    if fatal {
        let message = errors
            .iter()
            .filter(|e| e.fatal)
            .map(|e| sanitize::strip(&e.message).into_owned())
            .collect::<Vec<_>>()
            .join("\n");
        return Err(answered(Failure::new(
            Exit::Usage,
            format!("{message}\nnothing was imported"),
        )));
    }
    Ok(Exit::Ok)
}

/// Moves the secrets written in clear of each server to add into the
/// credential store (`[settings] credentials` of the config `text`), under
/// `SERVER_KEY` (`_2`, `_3`… when that name holds another value), and
/// writes `${secret:NAME}` in its place. Asks per server at a terminal
/// (stdin and stderr), or does it for all with `--move-secrets`; neither:
/// nothing moves (the warnings about them stay). A dry run stores nothing
/// but shows the entries as they would be. Returns each server's secret
/// names, in `plan.add` order.
fn move_secrets(
    args: &ImportArgs,
    text: &str,
    path: &Path,
    plan: &mut import::Plan,
) -> Vec<Vec<String>> {
    use std::io::IsTerminal;
    let mut moved = vec![Vec::new(); plan.add.len()];
    let interactive = std::io::stdin().is_terminal() && std::io::stderr().is_terminal();
    if !args.move_secrets && (args.dry_run || !interactive) {
        return moved;
    }
    let mut store: Option<Result<crate::secret::Secrets, String>> = None;
    for (item, names) in plan.add.iter_mut().zip(moved.iter_mut()) {
        let found = import::clear_secrets(&item.server);
        if found.is_empty() {
            continue;
        }
        let server = sanitize::one_line(&item.name);
        if !args.move_secrets {
            let n = found.len();
            let question = format!(
                "Move {n} secret{} of {server} into mcpdeck's credential store? [Y/n] ",
                if n == 1 { "" } else { "s" }
            );
            if !ask(&question) {
                continue;
            }
        }
        let store = store.get_or_insert_with(|| {
            crate::secret::Secrets::open(credentials_of(text, path)).map_err(|e| e.to_string())
        });
        let store = match store {
            Ok(s) => s,
            Err(e) => {
                item.warnings.push(format!(
                    "its secrets stay written in clear: the credential store cannot be opened: {e}"
                ));
                continue;
            }
        };
        for secret in found {
            let name = match free_name(store, &item.name, &secret) {
                Ok(n) => n,
                Err(e) => {
                    item.warnings
                        .push(format!("`{}` stays written in clear: {e}", secret.key));
                    continue;
                }
            };
            if !args.dry_run
                && let Err(e) = store.set(&name, &secret.value)
            {
                item.warnings
                    .push(format!("`{}` stays written in clear: {e}", secret.key));
                continue;
            }
            import::refer_to_secret(
                &mut item.server,
                &mut item.warnings,
                &secret,
                &name,
                !args.dry_run,
            );
            names.push(name);
        }
    }
    moved
}

/// The name `secret` of `server` gets in the store: `SERVER_KEY`, or the
/// first of `SERVER_KEY_2`, `_3`… that is free or holds this same value.
fn free_name(
    store: &crate::secret::Secrets,
    server: &str,
    secret: &import::ClearSecret,
) -> Result<String, crate::secret::Error> {
    let base = crate::secret::name_for(&[server, &secret.key]);
    for n in 1..100 {
        let name = if n == 1 {
            base.clone()
        } else {
            let suffix = format!("_{n}");
            let keep = crate::config::MAX_SECRET_NAME - suffix.len();
            format!("{}{suffix}", &base[..base.len().min(keep)])
        };
        match store.get(&name)? {
            None => return Ok(name),
            Some(v) if v.expose() == secret.value => return Ok(name),
            Some(_) => {}
        }
    }
    Ok(format!("{base}_x"))
}

/// `[settings] credentials` of the config text (the default when the file
/// is new or cannot be read).
fn credentials_of(text: &str, path: &Path) -> crate::config::CredentialStoreKind {
    config::settings_of(text, path)
        .map(|s| s.credentials)
        .unwrap_or_default()
}

/// Asks a yes/no question on stderr; yes unless the answer starts with n
/// (or stdin ends).
fn ask(question: &str) -> bool {
    use std::io::BufRead;
    let mut err = std::io::stderr();
    let _ = write!(err, "mcpdeck: {question}");
    let _ = err.flush();
    let mut answer = String::new();
    match std::io::stdin().lock().read_line(&mut answer) {
        Ok(0) | Err(_) => false,
        Ok(_) => !answer.trim_start().to_ascii_lowercase().starts_with('n'),
    }
}

/// The unset variables of an imported server: from the file as written
/// (`FILE:LINE:COL: server "x": the environment variable TOK is not
/// set; …`), else (a dry run) from the server alone, without a place.
fn unset_warnings(item: &Imported, written: Option<&str>, path: &Path) -> Vec<String> {
    let env = |name: &str| std::env::var(name).ok();
    if let Some(text) = written
        && let Ok(config) = config::load_str(text, Some(path), &env)
    {
        return super::manage::unset_warnings(config.server(&item.name));
    }
    let preview = config::import_preview(&NewServer {
        server: item.server.clone(),
        comment: None,
    });
    let Ok(config) =
        preview.and_then(|text| config::load_str(&text, None, &env).map_err(|e| e.to_string()))
    else {
        return Vec::new();
    };
    config
        .servers
        .iter()
        .filter(|s| s.enabled)
        .flat_map(|s| s.unset.iter().map(|u| u.diagnostic.message().to_owned()))
        .collect()
}

fn server_json(item: &Imported) -> Value {
    let s = &item.server;
    let pairs = |p: &[(String, String)]| {
        Value::Object(
            p.iter()
                .map(|(k, v)| (k.clone(), Value::from(v.clone())))
                .collect(),
        )
    };
    let (transport, command, args, env, cwd, url, headers) = match &s.transport {
        TransportConfig::Stdio {
            command,
            args,
            env,
            cwd,
        } => (
            "stdio",
            Value::from(command.clone()),
            Value::from(args.clone()),
            pairs(env),
            cwd.as_ref()
                .map_or(Value::Null, |c| Value::from(c.display().to_string())),
            Value::Null,
            json!({}),
        ),
        TransportConfig::Http {
            url,
            headers,
            transport,
            ..
        } => (
            if *transport == config::HttpTransportKind::Sse {
                "sse"
            } else {
                "http"
            },
            Value::Null,
            json!([]),
            json!({}),
            Value::Null,
            Value::from(url.clone()),
            pairs(headers),
        ),
    };
    json!({
        "name": item.name,
        "client": item.client.name(),
        "path": item.path.display().to_string(),
        "transport": transport,
        "command": command,
        "args": args,
        "env": env,
        "cwd": cwd,
        "url": url,
        "headers": headers,
        "enabled": s.enabled,
        "deny_tools": s.deny_tools,
        "warnings": item.warnings,
    })
}

fn print_text(
    args: &ImportArgs,
    config_path: &Path,
    plan: &import::Plan,
    errors: &[ImportError],
    looked: &[PathBuf],
) {
    let mut out = crate::cli::output::stdout();
    let mut err = std::io::stderr().lock();
    for item in &plan.add {
        let _ = writeln!(
            out,
            "+ {} ({}: {})",
            sanitize::one_line(&item.name),
            item.client.label(),
            sanitize::one_line(&item.path.display().to_string())
        );
        for warning in &item.warnings {
            let _ = writeln!(out, "    warning: {}", sanitize::one_line(warning));
        }
    }
    for item in &plan.skipped {
        let why = item
            .warnings
            .last()
            .map_or("a different server has that name", String::as_str);
        let _ = writeln!(
            out,
            "- {} skipped: {}",
            sanitize::one_line(&item.name),
            sanitize::one_line(why)
        );
    }
    // With PATH, a file-level error is the command's failure message.
    for e in errors.iter().filter(|e| !(args.path.is_some() && e.fatal)) {
        let _ = writeln!(err, "mcpdeck: import: {}", sanitize::strip(&e.message));
    }
    // A PATH that could not be read or parsed: its error is the answer
    // (exit 2), not "Nothing new to import".
    if args.path.is_some() && errors.iter().any(|e| e.fatal) {
        return;
    }
    if plan.add.is_empty() && plan.unchanged.is_empty() && errors.is_empty() && args.path.is_none()
    {
        let _ = writeln!(out, "No client files found. Looked in:");
        for path in looked {
            let _ = writeln!(out, "    {}", path.display());
        }
        return;
    }
    let already = if plan.unchanged.is_empty() {
        String::new()
    } else {
        format!(" ({} already there)", plan.unchanged.len())
    };
    if plan.add.is_empty() {
        let _ = writeln!(out, "Nothing new to import{already}.");
    } else {
        let _ = writeln!(
            out,
            "{} {} server{} into {}{already}.",
            if args.dry_run {
                "Would import"
            } else {
                "Imported"
            },
            plan.add.len(),
            if plan.add.len() == 1 { "" } else { "s" },
            config_path.display()
        );
    }
}
