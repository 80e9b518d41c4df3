//! `config path`, `config check` (text and `--json`: every error of the
//! file, the first of each section) and `config edit` (the editor, then
//! the check, again on request).

use std::io::{BufRead, IsTerminal, Write};
use std::path::Path;

use clap::Subcommand;
use serde_json::json;
use toml_edit::Item;

use super::{config_path, usage, warn_unset};
use crate::cli::exit::{Exit, Failure, Outcome};
use crate::config::{self, Config, ConfigError};

#[derive(Subcommand, Debug)]
pub enum ConfigCmd {
    /// Print the config file's path (respecting --config and $MCPDECK_CONFIG) and whether it exists
    Path {
        /// Print {"path", "exists", "source"}
        #[arg(long)]
        json: bool,
    },
    /// Validate the config file: OK with the server count, or the error as FILE:LINE:COL: message (exit 2)
    Check {
        /// Print {"path", "ok", "servers", "enabled", "warnings": [{line, column, message}], "errors": [{line, column, message}]}
        #[arg(long)]
        json: bool,
    },
    /// Open the config file in $VISUAL or $EDITOR (else vi), then check it
    Edit,
}

pub fn config_cmd(config: &Config, from_flag: bool, cmd: &ConfigCmd) -> Outcome {
    match cmd {
        ConfigCmd::Path { json } => path(config, from_flag, *json),
        ConfigCmd::Check { json } => check(config, *json),
        ConfigCmd::Edit => edit(config),
    }
}

fn path(config: &Config, from_flag: bool, json: bool) -> Outcome {
    let path = config_path(config)?;
    let source = if from_flag {
        "--config"
    } else if std::env::var_os(config::CONFIG_ENV_VAR).is_some_and(|v| !v.is_empty()) {
        "$MCPDECK_CONFIG"
    } else {
        "default"
    };
    let exists = path.is_file();
    let path = std::path::absolute(path).unwrap_or_else(|_| path.to_path_buf());
    let path = path.as_path();
    if json {
        outln!(
            "{}",
            json!({"path": path.display().to_string(), "exists": exists, "source": source})
        );
    } else {
        // The path alone on stdout (for `$(mcpdeck config path)`), the rest
        // on stderr.
        outln!("{}", path.display());
        let from = match source {
            "default" => "the default location".to_owned(),
            other => format!("from {other}"),
        };
        if exists {
            eprintln!("({from}; the file exists)");
        } else if path.exists() {
            eprintln!("({from}; it exists but is not a file)");
        } else {
            eprintln!(
                "({from}; the file does not exist yet: `mcpdeck add` or `mcpdeck config edit` creates it)"
            );
        }
    }
    Ok(Exit::Ok)
}

/// Checks the file at `path` as mcpdeck loads it (with the environment's
/// variables): a one-line summary, or the errors ([`all_errors`]). The
/// `${VAR}`s of enabled servers that are not set now are warned about on
/// stderr ([`warn_unset`]).
fn check_file(path: &Path) -> Result<String, Vec<ConfigError>> {
    let text = std::fs::read_to_string(path).map_err(|source| {
        vec![ConfigError::Read {
            path: path.to_path_buf(),
            source,
        }]
    })?;
    let config = config::load_str(&text, Some(path), &|name| std::env::var(name).ok())
        .map_err(|_| all_errors(path, &text))?;
    // Not errors: such a server fails alone when it is used (on stderr,
    // before the summary).
    warn_unset(&config.servers);
    // So is a `${secret:NAME}` that is not in the credential store.
    for warning in missing_secrets(&config) {
        eprintln!("mcpdeck: warning: {}", crate::sanitize::strip(&warning));
    }
    let total = config.servers.len();
    let enabled = config.servers.iter().filter(|s| s.enabled).count();
    let servers = if total == 1 { "server" } else { "servers" };
    Ok(format!(
        "{}: OK, {total} {servers} ({enabled} enabled)",
        path.display()
    ))
}

/// The `${secret:NAME}`s of enabled servers with no value in the
/// credential store, as warnings (`FILE:LINE:COL: server "h": the secret
/// …; store it: mcpdeck secret set NAME`).
fn missing_secrets(config: &Config) -> Vec<String> {
    match crate::secret::missing(config) {
        Ok(found) => found.iter().map(config::Diagnostic::summary).collect(),
        Err(why) => vec![why],
    }
}

/// The errors as printed: each `FILE:LINE:COL: message` with its line.
fn errors_text(errors: &[ConfigError]) -> String {
    let mut out: Vec<String> = errors.iter().map(ToString::to_string).collect();
    if errors.len() > 1 {
        out.push(format!("{} errors", errors.len()));
    }
    out.join("\n")
}

/// Every error of the file, the first of each section: after an error in a
/// server's table (its sub-tables too) or in another `[section]`, that
/// section is blanked (its lines left empty, so that nothing else moves)
/// and the file is checked again. A TOML syntax error, or an error outside
/// any section, ends the list.
fn all_errors(path: &Path, text: &str) -> Vec<ConfigError> {
    let env = |name: &str| std::env::var(name).ok();
    let mut text = text.to_owned();
    let mut errors: Vec<ConfigError> = Vec::new();
    while errors.len() < 100 {
        let Err(error) = config::load_str(&text, Some(path), &env) else {
            break;
        };
        let line = error
            .diagnostic()
            .and_then(|d| d.position())
            .map(|p| p.line);
        let section = line.and_then(|line| section_at(&text, line));
        if errors.iter().any(|e| e.summary() == error.summary()) {
            break;
        }
        errors.push(error);
        let Some(ranges) = section else {
            break;
        };
        text = blank(&text, ranges);
    }
    errors
}

/// The byte ranges of the section holding `line` (1-based): a
/// `[servers.NAME]` table with its sub-tables, a server written inline in
/// `[servers]`, or another top-level `[section]` with its sub-tables.
fn section_at(text: &str, line: usize) -> Option<Vec<std::ops::Range<usize>>> {
    fn headers(
        table: &toml_edit::Table,
        path: &mut Vec<String>,
        out: &mut Vec<(usize, Vec<String>)>,
    ) {
        for (key, item) in table.iter() {
            path.push(key.to_owned());
            match item {
                Item::Table(child) => {
                    if let Some(span) = child.span().filter(|_| !child.is_implicit()) {
                        out.push((span.start, path.clone()));
                    }
                    headers(child, path, out);
                }
                Item::ArrayOfTables(array) => {
                    for child in array.iter() {
                        if let Some(span) = child.span() {
                            out.push((span.start, path.clone()));
                        }
                        headers(child, path, out);
                    }
                }
                _ => {}
            }
            path.pop();
        }
    }
    let document = toml_edit::Document::parse(text).ok()?;
    let offset = text
        .split_inclusive('\n')
        .take(line.saturating_sub(1))
        .map(str::len)
        .sum::<usize>();
    let mut sections = Vec::new();
    headers(document.as_table(), &mut Vec::new(), &mut sections);
    sections.sort();
    let index = sections.iter().rposition(|(start, _)| *start <= offset)?;
    let end = |i: usize| sections.get(i + 1).map_or(text.len(), |s| s.0);
    let path = &sections[index].1;
    let owner: &[String] = match path.as_slice() {
        [servers, _, ..] if servers == "servers" => &path[..2],
        [servers] if servers == "servers" => {
            // A server written inline: `NAME = { … }`, from its key's
            // line to the end of its value.
            let table = document.get("servers")?.as_table()?;
            let range = table.iter().find_map(|(name, item)| {
                let key = table.key(name)?.span()?;
                let value = item.span()?;
                let first = line_of(text, key.start);
                let last = line_of(text, value.end.saturating_sub(1));
                (first <= line && line <= last).then(|| {
                    let start = text
                        .get(..key.start)
                        .and_then(|t| t.rfind('\n'))
                        .map_or(0, |i| i + 1);
                    start..value.end
                })
            })?;
            return Some(vec![range]);
        }
        [_, ..] => &path[..1],
        [] => return None,
    };
    Some(
        sections
            .iter()
            .enumerate()
            .filter(|(_, (_, p))| p.starts_with(owner))
            .map(|(i, (start, _))| *start..end(i))
            .collect(),
    )
}

/// The 1-based line of byte `offset`.
fn line_of(text: &str, offset: usize) -> usize {
    text.as_bytes()[..offset.min(text.len())]
        .iter()
        .filter(|&&c| c == b'\n')
        .count()
        + 1
}

/// `text` with everything but the line ends in `ranges` removed.
fn blank(text: &str, mut ranges: Vec<std::ops::Range<usize>>) -> String {
    ranges.sort_by_key(|r| std::cmp::Reverse(r.start));
    let mut text = text.to_owned();
    for range in ranges {
        if let Some(part) = text.get(range.clone()) {
            let newlines = "\n".repeat(part.matches('\n').count());
            text.replace_range(range, &newlines);
        }
    }
    text
}

fn check(config: &Config, json: bool) -> Outcome {
    let path = config_path(config)?;
    if !path.exists() {
        return Err(usage(format!(
            "{} does not exist; `mcpdeck add` or `mcpdeck config edit` creates it",
            path.display()
        )));
    }
    if json {
        return check_json(path);
    }
    match check_file(path) {
        Ok(summary) => {
            outln!("{summary}");
            Ok(Exit::Ok)
        }
        Err(errors) => {
            // FILE:LINE:COL: message, then the line with the place underlined.
            eprintln!("{}", errors_text(&errors));
            Ok(Exit::Usage)
        }
    }
}

/// `config check --json`: `{"path", "ok", "servers", "enabled",
/// "warnings", "errors"}`, each warning and error `{line, column,
/// message}` (no line or column when it has none); exit 0 or 2 as in text.
fn check_json(path: &Path) -> Outcome {
    let place = |d: Option<&config::Diagnostic>, fallback: String| {
        let mut v = serde_json::Map::new();
        if let Some(p) = d.and_then(|d| d.position()) {
            v.insert("line".into(), p.line.into());
            v.insert("column".into(), p.column.into());
        }
        v.insert(
            "message".into(),
            d.map_or(fallback, |d| d.message().to_string()).into(),
        );
        serde_json::Value::Object(v)
    };
    let text = std::fs::read_to_string(path);
    let loaded = text
        .as_ref()
        .map_err(|e| e.to_string())
        .map(|t| config::load_str(t, Some(path), &|name| std::env::var(name).ok()));
    let report = match loaded {
        Ok(Ok(config)) => serde_json::json!({
            "path": path.display().to_string(),
            "ok": true,
            "servers": config.servers.len(),
            "enabled": config.servers.iter().filter(|s| s.enabled).count(),
            "warnings": config.servers.iter().filter(|s| s.enabled)
                .flat_map(|s| s.unset.iter())
                .map(|u| place(Some(&u.diagnostic), String::new()))
                .chain(match crate::secret::missing(&config) {
                    Ok(found) => found.iter().map(|d| place(Some(d), String::new())).collect(),
                    Err(why) => vec![place(None, why)],
                })
                .collect::<Vec<_>>(),
            "errors": [],
        }),
        Ok(Err(_)) => {
            let errors = all_errors(path, text.as_deref().unwrap_or_default());
            serde_json::json!({
                "path": path.display().to_string(),
                "ok": false,
                "warnings": [],
                "errors": errors.iter().map(|e| place(e.diagnostic(), e.to_string())).collect::<Vec<_>>(),
            })
        }
        Err(e) => serde_json::json!({
            "path": path.display().to_string(),
            "ok": false,
            "warnings": [],
            "errors": [{"message": format!("cannot read {}: {e}", path.display())}],
        }),
    };
    let ok = report["ok"] == serde_json::json!(true);
    outln!(
        "{}",
        serde_json::to_string_pretty(&report).unwrap_or_default()
    );
    Ok(if ok { Exit::Ok } else { Exit::Usage })
}

fn edit(config: &Config) -> Outcome {
    let path = config_path(config)?;
    if let Some(dir) = path.parent().filter(|d| !d.as_os_str().is_empty()) {
        std::fs::create_dir_all(dir)
            .map_err(|e| usage(format!("cannot create {}: {e}", dir.display())))?;
    }
    let interactive = std::io::stdin().is_terminal() && std::io::stderr().is_terminal();
    loop {
        run_editor(path)?;
        if !path.exists() {
            outln!("{} was not created; nothing to check", path.display());
            return Ok(Exit::Ok);
        }
        let errors = match check_file(path) {
            Ok(summary) => {
                outln!("{summary}");
                return Ok(Exit::Ok);
            }
            Err(errors) => errors,
        };
        eprintln!("{}", errors_text(&errors));
        if !interactive || !ask("Edit again? [Y/n] ") {
            break;
        }
    }
    Err(usage(format!(
        "{} has the errors above; mcpdeck will not load it until they are fixed: run `mcpdeck config edit` again",
        path.display()
    )))
}

/// Asks a yes/no question on the terminal; yes unless the answer starts
/// with n (or stdin ends).
fn ask(question: &str) -> bool {
    let mut err = std::io::stderr();
    let _ = write!(err, "{question}");
    let _ = err.flush();
    let mut answer = String::new();
    match std::io::stdin().lock().read_line(&mut answer) {
        Ok(0) | Err(_) => false,
        Ok(_) => !answer.trim_start().to_ascii_lowercase().starts_with('n'),
    }
}

/// Runs $VISUAL, else $EDITOR, else vi on `path` and waits for it. The
/// variable may hold arguments (`code --wait`): it is run by the shell.
fn run_editor(path: &Path) -> Result<(), Failure> {
    let editor = ["VISUAL", "EDITOR"]
        .into_iter()
        .filter_map(std::env::var_os)
        .find(|v| !v.is_empty())
        .map(|v| v.to_string_lossy().into_owned())
        .unwrap_or_else(|| "vi".to_owned());
    let mut command = editor_command(&editor, path);
    let status = command.status().map_err(|e| {
        usage(format!(
            "cannot run the editor `{editor}`: {e}; set $VISUAL or $EDITOR to your editor"
        ))
    })?;
    if !status.success() {
        eprintln!("mcpdeck: the editor `{editor}` ended with {status}; checking the file anyway");
    }
    Ok(())
}

#[cfg(unix)]
fn editor_command(editor: &str, path: &Path) -> std::process::Command {
    let mut command = std::process::Command::new("sh");
    command
        .arg("-c")
        .arg(format!("{editor} \"$1\""))
        .arg("sh")
        .arg(path);
    command
}

#[cfg(not(unix))]
fn editor_command(editor: &str, path: &Path) -> std::process::Command {
    let mut words = editor.split_whitespace();
    let mut command = std::process::Command::new(words.next().unwrap_or("notepad"));
    command.args(words).arg(path);
    command
}
