//! `open`, `replay` and `stats`: reading recordings (`--record FILE`,
//! see [`crate::record`]).

use std::path::PathBuf;

use clap::Args;

use super::{Exit, Failure, Outcome};
use crate::config::Config;
use crate::record::{Recording, replay, stats as lat};

#[derive(Args, Debug)]
pub struct OpenArgs {
    /// A recording made with `--record FILE` or the TUI's save
    #[arg(value_name = "FILE")]
    pub file: PathBuf,
}

#[derive(Args, Debug)]
pub struct ReplayArgs {
    /// A recording made with `--record FILE` or the TUI's save
    #[arg(value_name = "FILE")]
    pub file: PathBuf,
    /// The recorded server to play (needed when the file holds several)
    #[arg(long, value_name = "NAME")]
    pub server: Option<String>,
    /// Keep the recorded delays: each message at its recorded time after
    /// the client's message it follows (requests answered concurrently)
    #[arg(long)]
    pub timing: bool,
}

#[derive(Args, Debug)]
pub struct StatsArgs {
    /// A recording made with `--record FILE` or the TUI's save
    #[arg(value_name = "FILE")]
    pub file: PathBuf,
    /// {"servers": {NAME: {METHOD: {count, p50_ms, p95_ms, p99_ms, max_ms, errors, tool_errors, unanswered}}}}
    #[arg(long)]
    pub json: bool,
}

/// Read a recording; the lines it could not read are named on stderr.
pub fn load(file: &std::path::Path) -> Result<Recording, Failure> {
    let rec = Recording::load(file).map_err(|m| Failure::new(Exit::Usage, m))?;
    for p in &rec.problems {
        eprintln!("mcpdeck: {}: {p}", file.display());
    }
    Ok(rec)
}

/// `mcpdeck stats FILE [--json]`.
pub fn stats(a: &StatsArgs) -> Outcome {
    let rec = load(&a.file)?;
    let rows = lat::of_recording(&rec).rows();
    if a.json {
        outln!("{}", lat::to_json(&rows));
    } else if rows.is_empty() {
        outln!("{}: no requests recorded", a.file.display());
    } else {
        out!("{}", lat::to_text(&rows));
    }
    Ok(Exit::Ok)
}

/// `mcpdeck replay FILE [--server NAME]`: serve stdin/stdout until stdin
/// ends. Run from `main` before any config is read (a client may start it
/// anywhere).
pub async fn replay(a: &ReplayArgs) -> Outcome {
    let rec = load(&a.file)?;
    let server = rec
        .pick_server(a.server.as_deref())
        .map_err(|m| Failure::new(Exit::Usage, m))?;
    let script = replay::Script::new(&rec, &server);
    if script.is_empty() {
        return Err(Failure::new(
            Exit::Usage,
            format!(
                "{} holds no requests to server {server:?}: nothing to replay",
                a.file.display()
            ),
        ));
    }
    let io = |e: std::io::Error| Failure::new(Exit::Connect, format!("replay: stdio failed: {e}"));
    let input = tokio::fs::File::from_std(dup(&std::io::stdin()).map_err(io)?);
    let output = tokio::fs::File::from_std(dup(&std::io::stdout()).map_err(io)?);
    let options = replay::Options { timing: a.timing };
    replay::serve(script, input, output, options)
        .await
        .map_err(io)?;
    Ok(Exit::Ok)
}

fn dup(stream: &impl std::os::fd::AsFd) -> std::io::Result<std::fs::File> {
    Ok(std::fs::File::from(stream.as_fd().try_clone_to_owned()?))
}

/// `mcpdeck open FILE`: the recording in the TUI, read-only.
pub async fn open(config: &Config, a: &OpenArgs) -> Outcome {
    use std::io::IsTerminal;
    let rec = load(&a.file)?;
    if !(std::io::stdin().is_terminal() && std::io::stdout().is_terminal()) {
        return Err(Failure::new(
            Exit::Usage,
            format!(
                "open shows {} in the TUI and needs a terminal; for scripts use `mcpdeck stats {}` or read the JSON Lines",
                a.file.display(),
                a.file.display()
            ),
        ));
    }
    crate::tui::open_recording(config, rec)
        .await
        .map_err(|e| Failure::new(Exit::Usage, e.to_string()))?;
    Ok(Exit::Ok)
}
