//! What `main` runs once the command line is parsed: the headless command
//! (`cli`) or the TUI (`tui`), in the runtime `startup` makes.
//!
//! It lives in the library, not in `main.rs`, so that the binary's own crate
//! compiles next to nothing: `startup::run` is generic over the work's
//! future, and every instantiation made in `main.rs` (the runtime's
//! `block_on`, the futures' drop code) was optimized again in the binary,
//! alone on one core after the library: 6-9 s of a cold release build.

use crate::cli::{self, Cli, Cmd};
use crate::{startup, tui};

/// Run what `args` ask for; the process's exit code.
pub fn run(args: Cli) -> i32 {
    if let Some(path) = &args.log_file
        && let Err(e) = startup::init_logging(path)
    {
        eprintln!("mcpdeck: {e}");
        return cli::Exit::Usage as i32;
    }
    // Stdio servers found to be initialize-era are remembered between runs
    // (settings.remember_era; MCPDECK_ERA_MEMORY).
    crate::mcp::session::EraMemory::install();
    // The built-in demo server speaks MCP on stdio: no config, no signals.
    if let Some(Cmd::DemoServer(demo)) = args.command {
        return startup::run(async move {
            match crate::demo::run(demo).await {
                Ok(()) => 0,
                Err(e) => {
                    eprintln!("demo-server: {e:#}");
                    1
                }
            }
        });
    }
    // `replay` is an MCP server on stdio, run by clients, and `stats` reads
    // a file: no config either (a broken one does not stop them).
    if let Some(Cmd::Replay(replay)) = &args.command {
        return startup::run(async move { cli::report(cli::record::replay(replay).await) });
    }
    if let Some(Cmd::Stats(stats)) = &args.command {
        let code = cli::report_as(cli::json_mode(&args), cli::record::stats(stats));
        return if startup::stdout_is_gone() {
            startup::STDOUT_CLOSED
        } else {
            code
        };
    }
    startup::run(async move {
        let config = match cli::load_config(&args) {
            Ok(c) => c,
            Err(f) => return cli::report_as(cli::json_mode(&args), Err(f)),
        };
        // Spans, when an OTLP endpoint is configured: a problem is a
        // warning, never a reason for the command to fail.
        if let Err(m) = crate::telemetry::init(&config.telemetry) {
            eprintln!("mcpdeck: {m}");
        }
        if let Some(path) = &args.record
            && let Err(m) = crate::record::Recorder::global().open(path)
        {
            return cli::report_as(
                cli::json_mode(&args),
                Err(cli::Failure::new(cli::Exit::Usage, m)),
            );
        }
        // Without a command (the TUI, or its headless stand-in), mcpdeck
        // logs to a file by default (never to the screen).
        if args.log_file.is_none()
            && args.command.is_none()
            && let Some(path) = startup::default_log_file()
        {
            let _ = startup::init_logging(&path);
        }
        if cli::wants_tui(&args, &config) {
            return match tui::launch(&config).await {
                Ok(tui::run::Ended::Quit) => 0,
                // Ctrl-C, as terminal programs do (128 + SIGINT).
                Ok(tui::run::Ended::Interrupted) => cli::Exit::Interrupted as i32,
                Err(e) => {
                    eprintln!("mcpdeck: {e}");
                    let code = match e {
                        tui::LaunchError::Config(_) => cli::Exit::Usage,
                        tui::LaunchError::Terminal(_) => cli::Exit::Connect,
                    };
                    code as i32
                }
            };
        }
        cli::run(args, config).await
    })
}
