//! The headless CLI: every command but the TUI, on the same core (a
//! [`Manager`](crate::mcp::manager::Manager), reached through `link`).
//! Text output for people, `--json` for scripts, exit codes from
//! `exit`.
//!
//! Commands: `servers`, `info`, `tools`, `tool`, `call` (`call`), `smoke`
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

mod app;
pub mod args;
pub mod auth;
mod call;
pub mod completions;
mod config;
pub mod diff;
mod events;
pub mod exit;
pub mod export;
mod help;
pub mod import;
mod info;
pub mod link;
pub mod load;
pub mod manage;
pub mod oneshot;
pub mod output;
pub mod record;
pub mod registry;
pub mod resources;
pub mod secret;
mod servers;
pub mod serves;
pub mod smoke;
pub mod target;
pub mod test;
mod tour;
pub mod trust;
pub mod values;

use std::io::Write;

use crate::text;

pub use args::{Cli, Cmd};
pub use config::load_config;
pub use exit::{Exit, Failure, Outcome};
pub use target::TargetArgs;

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
    report_as(false, outcome)
}

/// The exit code of an outcome; a failure's message goes to stderr and,
/// for a command in JSON mode (`json`, see [`json_mode`]), its error
/// envelope (`{"error": {"kind", …}}`, [`Failure::envelope`]) to stdout.
pub fn report_as(json: bool, outcome: Outcome) -> i32 {
    match outcome {
        Ok(code) => code as i32,
        Err(f) => {
            if json && f.wants_envelope() {
                let mut out = output::stdout();
                let _ = writeln!(out, "{}", output::json_pretty(&f.envelope()));
                let _ = out.flush();
            }
            let mut err = std::io::stderr().lock();
            let _ = writeln!(err, "mcpdeck: {}", f.message);
            f.code as i32
        }
    }
}

/// Whether the command answers in JSON (`--json`, `--sarif`): its
/// failures then print the error envelope on stdout too.
pub fn json_mode(cli: &Cli) -> bool {
    use manage::ConfigCmd;
    match &cli.command {
        None => false,
        Some(cmd) => match cmd {
            Cmd::Servers { json, .. }
            | Cmd::Info { json, .. }
            | Cmd::Tools { json, .. }
            | Cmd::Tool { json, .. }
            | Cmd::Call { json, .. }
            | Cmd::Serves { json } => *json,
            Cmd::Smoke(a) => a.json,
            Cmd::Test(a) => a.json,
            Cmd::Resources(a) | Cmd::Templates(a) | Cmd::Prompts(a) | Cmd::Skills(a) => a.json,
            Cmd::Skill(a) => a.json,
            Cmd::AppInfo(a) => a.json,
            Cmd::Registry(
                registry::RegistryCmd::Search { json, .. }
                | registry::RegistryCmd::Show { json, .. }
                | registry::RegistryCmd::Add { json, .. },
            ) => *json,
            Cmd::Read(a) => a.json,
            Cmd::Prompt(a) => a.json,
            Cmd::Complete(a) => a.json,
            Cmd::Auth(auth::AuthCmd::Status { json }) => *json,
            Cmd::Secret(secret::SecretCmd::List { json }) => *json,
            Cmd::Import(a) => a.json,
            Cmd::Add(a) => a.json,
            Cmd::Remove(a) | Cmd::Enable(a) | Cmd::Disable(a) => a.json,
            Cmd::Deny(a) | Cmd::Allow(a) => a.json,
            Cmd::Lint(a) => a.json,
            Cmd::Pin(a) | Cmd::Verify(a) => a.json,
            Cmd::Scan(a) => a.json || a.sarif,
            Cmd::Config(ConfigCmd::Path { json } | ConfigCmd::Check { json }) => *json,
            Cmd::Stats(a) => a.json,
            Cmd::Diff(a) => a.json,
            Cmd::Bench(a) => a.json,
            _ => false,
        },
    }
}

/// Run a headless command to its exit code: its answer is printed (a
/// failure's message on stderr, and its error envelope on stdout in JSON
/// mode), stdout is closed, and only then are the servers it used stopped
/// ([`oneshot`]).
pub async fn run(cli: Cli, config: Config) -> i32 {
    let json = json_mode(&cli);
    let code = report_as(json, timed(cli, config).await);
    oneshot::finish().await;
    code
}

/// The `--timeout` of a command that has one (not smoke, scan and bench,
/// whose `--timeout` is their own).
fn limit_of(cmd: &Cmd) -> Option<&target::Limit> {
    match cmd {
        Cmd::Servers { limit, .. }
        | Cmd::Info { limit, .. }
        | Cmd::Tools { limit, .. }
        | Cmd::Tool { limit, .. }
        | Cmd::Call { limit, .. } => Some(limit),
        Cmd::Resources(a) | Cmd::Templates(a) | Cmd::Prompts(a) | Cmd::Skills(a) => Some(&a.limit),
        Cmd::Skill(a) => Some(&a.limit),
        Cmd::AppInfo(a) => Some(&a.limit),
        Cmd::Read(a) => Some(&a.limit),
        Cmd::Prompt(a) => Some(&a.limit),
        Cmd::Complete(a) => Some(&a.limit),
        Cmd::Lint(a) => Some(&a.limit),
        Cmd::Pin(a) | Cmd::Verify(a) => Some(&a.limit),
        _ => None,
    }
}

/// The registry inputs of a command that takes them (for a
/// `registry:NAME` TARGET).
fn registry_inputs_of(cmd: &Cmd) -> Option<registry::RegistryInputs> {
    match cmd {
        Cmd::Info {
            registry,
            registry_arg,
            ..
        }
        | Cmd::Tools {
            registry,
            registry_arg,
            ..
        } => Some(registry.with_arg(registry_arg)),
        Cmd::Call { registry, .. } => Some(registry.clone()),
        Cmd::Resources(a) | Cmd::Templates(a) | Cmd::Prompts(a) | Cmd::Skills(a) => {
            Some(a.registry.with_arg(&a.registry_arg))
        }
        Cmd::Smoke(a) => Some(a.registry.with_arg(&a.registry_arg)),
        Cmd::Lint(a) => Some(a.registry.with_arg(&a.registry_arg)),
        _ => None,
    }
}

/// Extra time the whole command gets over `--timeout`, so that the
/// connect's or the request's own timeout (which knows the server) comes
/// first.
const LIMIT_SLACK: std::time::Duration = std::time::Duration::from_millis(500);

/// [`dispatch`] within the command's `--timeout`; a timeout's message says
/// how to raise it.
async fn timed(cli: Cli, config: Config) -> Outcome {
    let limit = match cli.command.as_ref().and_then(limit_of) {
        Some(l) => l.duration()?,
        None => None,
    };
    link::set_limit(limit);
    registry::set_inputs(cli.command.as_ref().and_then(registry_inputs_of));
    // The whole command's deadline is for one server asked once. The
    // commands over several servers (`servers`, `pin`, `verify`) report
    // each one, so each connection and request keeps its own limit (one
    // that hangs is a row of the report, not the end of it); `read
    // --watch` waits for updates as long as it is let.
    let whole = match &cli.command {
        Some(Cmd::Servers { .. } | Cmd::Pin(_) | Cmd::Verify(_)) => None,
        Some(Cmd::Read(a)) if a.watch => None,
        _ => limit,
    };
    let outcome = match whole {
        None => dispatch(cli, config).await,
        Some(d) => match tokio::time::timeout(d + LIMIT_SLACK, dispatch(cli, config)).await {
            Ok(outcome) => outcome,
            Err(_) => Err(Failure::new(
                Exit::Connect,
                format!("no answer within {}", text::fmt_duration(d)),
            )
            .kind(exit::Kind::Timeout)),
        },
    };
    outcome.map_err(|f| {
        if f.json_kind() != exit::Kind::Timeout {
            return f;
        }
        let hint = match limit {
            Some(d) => format!(
                "\nthe limit was --timeout {}; give it more time with a larger --timeout SECS",
                target::Limit::secs(d)
            ),
            None => "\nthe limit was the config's connect_timeout / request_timeout; give it more time with --timeout SECS".to_string(),
        };
        f.hint(&hint)
    })
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
        Some(Cmd::Servers { json, .. }) => servers(&config, json, trace).await,
        Some(Cmd::Info { target, json, .. }) => info(&config, &target, json, trace).await,
        Some(Cmd::Tools {
            target, json, full, ..
        }) => tools(&config, &target, json, full, trace).await,
        Some(Cmd::Tool {
            words,
            json,
            command,
            ..
        }) => info::tool(&config, &words, &command, json, trace).await,
        Some(Cmd::Call {
            words,
            args_file,
            args,
            no_validate,
            log_level,
            json,
            command,
            ..
        }) => {
            let (target, rest) = tool_words("call", words, command)?;
            let Some(tool) = rest.first() else {
                return Err(Failure::new(
                    Exit::Usage,
                    "call needs a TOOL: `mcpdeck call TARGET TOOL [ARGS_JSON]`",
                ));
            };
            let json_args =
                call::read_args(rest.get(1).map(String::as_str), args_file.as_deref()).await?;
            let call = CallArgs {
                tool: tool.clone(),
                json_args,
                pairs: args,
                no_validate,
                json,
                log_level,
            };
            call_tool(&config, &target, &call, trace).await
        }
        Some(Cmd::Smoke(a)) => smoke::smoke(&config, &a, trace).await,
        Some(Cmd::Test(a)) => test::test(&config, &a, trace).await,
        Some(Cmd::Resources(a)) => resources::resources(&config, &a, trace).await,
        Some(Cmd::Templates(a)) => resources::templates(&config, &a, trace).await,
        Some(Cmd::Read(a)) => resources::read(&config, &a, trace).await,
        Some(Cmd::Prompts(a)) => resources::prompts(&config, &a, trace).await,
        Some(Cmd::Prompt(a)) => resources::prompt(&config, &a, trace).await,
        Some(Cmd::Skills(a)) => resources::skills_list(&config, &a, trace).await,
        Some(Cmd::Skill(a)) => resources::skill(&config, &a, trace).await,
        Some(Cmd::AppInfo(a)) => app::app_info(&config, &a, trace).await,
        Some(Cmd::Registry(c)) => registry::run(&config, c).await,
        Some(Cmd::Complete(a)) => resources::complete(&config, &a, trace).await,
        Some(Cmd::Auth(a)) => auth::run(&config, &a).await,
        Some(Cmd::Secret(a)) => secret::run(&config, &a).await,
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
        Some(Cmd::Completions(a)) => {
            completions::print(&a, <Cli as clap::CommandFactory>::command())
        }
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
