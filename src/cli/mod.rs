//! The headless CLI: every command but the TUI, on the same core (a
//! [`Manager`](crate::mcp::manager::Manager), reached through `link`).
//! Text output for people, `--json` for scripts, exit codes from
//! `exit`.
//!
//! Commands: `servers`, `info`, `tools`, `call` (`call`), `smoke`
//! (`smoke`), `resources`, `templates`, `read`, `prompts`, `prompt`,
//! `complete` (`resources`), `serves` (`serves`), `open`, `replay` and `stats` (`record`;
//! `replay` and `stats` run by `main`), `diff`, `bench` (`load`), and
//! `demo-server` (run by `main`).

// stdout goes through `output::stdout` (`outln!`, `out!`): `println!`
// panics when the reader has gone (`| head`).
#![warn(clippy::print_stdout)]

/// `println!` to the commands' stdout ([`output::stdout`]): a reader that
/// went away (`| head`) ends the run quietly instead of a panic.
macro_rules! outln {
    ($($t:tt)*) => {{
        let mut out = $crate::cli::output::stdout();
        let _ = std::io::Write::write_fmt(&mut out, format_args!($($t)*));
        let _ = std::io::Write::write_all(&mut out, b"\n");
    }};
}

/// `print!` to the commands' stdout, as [`outln!`].
macro_rules! out {
    ($($t:tt)*) => {{
        let _ = std::io::Write::write_fmt(&mut $crate::cli::output::stdout(), format_args!($($t)*));
    }};
}

pub mod args;
pub mod auth;
mod call;
pub mod completions;
mod config;
pub mod diff;
pub mod exit;
pub mod export;
pub mod import;
mod info;
pub mod link;
pub mod load;
pub mod manage;
pub mod oneshot;
pub mod output;
pub mod record;
pub mod resources;
mod servers;
pub mod serves;
pub mod smoke;
mod tour;
pub mod trace;
pub mod trust;
pub mod values;

use std::io::Write;

pub use args::{Cli, Cmd, TargetArgs};
pub use config::load_config;
pub use exit::{Exit, Failure, Outcome};

use crate::config::Config;
use call::{CallArgs, call_tool};
use config::no_servers_yet;
use info::{info, tools};
use servers::servers;
use tour::demo_tour;

/// Whether this run opens the TUI: no command, a terminal on both ends, and
/// something to show (servers, a config file to add them to, or the demo).
pub fn wants_tui(cli: &Cli, config: &Config) -> bool {
    cli.command.is_none()
        && interactive()
        && (cli.demo || !config.servers.is_empty() || config.path.is_some())
}

/// Whether stdin and stdout are both a terminal.
fn interactive() -> bool {
    use std::io::IsTerminal;
    std::io::stdin().is_terminal() && std::io::stdout().is_terminal()
}

/// The exit code of an outcome; a failure's message goes to stderr.
pub fn report(outcome: Outcome) -> i32 {
    match outcome {
        Ok(code) => code as i32,
        Err(f) => {
            let mut err = std::io::stderr().lock();
            let _ = writeln!(err, "mcpdeck: {}", f.message);
            f.code as i32
        }
    }
}

/// Run a headless command to its exit code: its answer is printed (a
/// failure's message on stderr), stdout is closed, and only then are the
/// servers it used stopped ([`oneshot`]).
pub async fn run(cli: Cli, config: Config) -> i32 {
    let code = report(dispatch(cli, config).await);
    oneshot::finish().await;
    code
}

/// Run a headless command (or, with none, its stand-in: the demo tour, a
/// hint when nothing is configured, or `servers`).
pub async fn dispatch(cli: Cli, config: Config) -> Outcome {
    let trace = cli.trace;
    // A login that starts by itself (smoke with a browser command) shows
    // its URL and trace on stderr.
    crate::mcp::auth::set_default_reporter(Some(auth::stderr_reporter()));
    match cli.command {
        None => {
            if cli.demo {
                demo_tour(&config, trace).await
            } else if !interactive() {
                // A script or a pipe: connecting every server unasked
                // would be a surprise (and slow); say what to run instead.
                Err(Failure::new(
                    Exit::Usage,
                    "no command, and no terminal for the TUI (stdin and stdout must both be one); nothing was connected. Try:\n  mcpdeck servers    each configured server's status\n  mcpdeck --demo     a tour of the built-in demo servers\n  mcpdeck --help     every command",
                ))
            } else if config.servers.is_empty() {
                no_servers_yet(&config);
                Ok(Exit::Ok)
            } else {
                servers(&config, false, trace).await
            }
        }
        Some(Cmd::Servers { json }) => servers(&config, json, trace).await,
        Some(Cmd::Info { target, json }) => info(&config, &target, json, trace).await,
        Some(Cmd::Tools { target, json }) => tools(&config, &target, json, trace).await,
        Some(Cmd::Call {
            words,
            args,
            no_validate,
            log_level,
            json,
            command,
        }) => {
            let (target, rest) = tool_words("call", words, command)?;
            let Some(tool) = rest.first() else {
                return Err(Failure::new(
                    Exit::Usage,
                    "call needs a TOOL: `mcpdeck call TARGET TOOL [ARGS_JSON]`",
                ));
            };
            let call = CallArgs {
                tool: tool.clone(),
                json_args: rest.get(1).cloned(),
                pairs: args,
                no_validate,
                json,
                log_level,
            };
            call_tool(&config, &target, &call, trace).await
        }
        Some(Cmd::Smoke(a)) => smoke::smoke(&config, &a, trace).await,
        Some(Cmd::Resources(a)) => resources::resources(&config, &a, trace).await,
        Some(Cmd::Templates(a)) => resources::templates(&config, &a, trace).await,
        Some(Cmd::Read(a)) => resources::read(&config, &a, trace).await,
        Some(Cmd::Prompts(a)) => resources::prompts(&config, &a, trace).await,
        Some(Cmd::Prompt(a)) => resources::prompt(&config, &a, trace).await,
        Some(Cmd::Complete(a)) => resources::complete(&config, &a, trace).await,
        Some(Cmd::Auth(a)) => auth::run(&config, &a).await,
        Some(Cmd::DemoServer(_)) => Ok(Exit::Ok),
        Some(Cmd::Serve(a)) => {
            let path = config.path.clone();
            match crate::serve::run(config, a, trace, path).await {
                Ok(()) => Ok(Exit::Ok),
                Err(crate::serve::ServeError::Usage(m)) => Err(Failure::new(Exit::Usage, m)),
                Err(crate::serve::ServeError::Io(m)) => Err(Failure::new(Exit::Connect, m)),
            }
        }
        Some(Cmd::Serves { json }) => serves::serves(json).await,
        Some(Cmd::Import(a)) => import::run(cli.config.as_deref(), &a),
        Some(Cmd::Export(a)) => export::run(&config, &a),
        Some(Cmd::Add(a)) => manage::add(&config, &a),
        Some(Cmd::Remove(a)) => manage::remove(&config, &a),
        Some(Cmd::Enable(a)) => manage::set_enabled(&config, &a, true),
        Some(Cmd::Disable(a)) => manage::set_enabled(&config, &a, false),
        Some(Cmd::Deny(a)) => manage::deny(&config, &a),
        Some(Cmd::Allow(a)) => manage::allow(&config, &a),
        Some(Cmd::Lint(a)) => trust::lint::run(&config, &a, trace).await,
        Some(Cmd::Pin(a)) => trust::pin::pin(&config, &a, trace).await,
        Some(Cmd::Verify(a)) => trust::pin::verify(&config, &a, trace).await,
        Some(Cmd::Scan(a)) => trust::scan::run(&config, &a, trace).await,
        Some(Cmd::Config(c)) => manage::config_cmd(&config, cli.config.is_some(), &c),
        Some(Cmd::Completions(a)) => completions::print(&a),
        Some(Cmd::ServerNames) => manage::server_names(&config),
        Some(Cmd::Open(a)) => record::open(&config, &a).await,
        Some(Cmd::Replay(_)) => Ok(Exit::Ok),
        Some(Cmd::Stats(a)) => record::stats(&a), // run by `main`
        Some(Cmd::Diff(a)) => diff::run(&config, &a, trace).await,
        Some(Cmd::Bench(a)) => load::run(&config, &a, trace).await,
    }
}

/// TARGET and the words after it (TOOL [ARGS_JSON]) of `call` and `bench`:
/// `CMD TARGET TOOL [ARGS_JSON]`, or `CMD TOOL [ARGS_JSON] -- CMD ARGS…`.
pub fn tool_words(
    cmd: &str,
    words: Vec<String>,
    command: Vec<String>,
) -> Result<(TargetArgs, Vec<String>), Failure> {
    let (target, rest) = if command.is_empty() {
        let mut w = words.into_iter();
        let target = TargetArgs {
            target: w.next(),
            command: Vec::new(),
        };
        (target, w.collect::<Vec<_>>())
    } else {
        (
            TargetArgs {
                target: None,
                command,
            },
            words,
        )
    };
    if rest.len() > 2 {
        return Err(Failure::new(
            Exit::Usage,
            format!(
                "unexpected word {:?}: with `-- CMD`, write `mcpdeck {cmd} TOOL [ARGS_JSON] -- CMD ARGS…`",
                rest[2]
            ),
        ));
    }
    Ok((target, rest))
}
