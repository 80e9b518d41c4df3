//! The command line, as clap reads it: global flags, the commands and
//! their arguments, and TARGET.

use std::path::PathBuf;

use clap::{Parser, Subcommand};

use super::target::{Limit, TargetArgs};
use super::{resources, smoke};

pub const AFTER_HELP: &str = "\
TARGET is a configured server name, an http(s):// URL, or `-- CMD ARGS…` (last) for an ad-hoc stdio server.

Exit codes: 0 ok · 1 the tool returned isError or a JSON-RPC error · 2 usage or config error · 3 could not connect, or protocol failure · 4 authorization needed or failed";

/// The heading of the flags every command takes.
const GLOBAL: &str = "Global options";

#[derive(Parser, Debug)]
#[command(name = "mcpdeck", version, about = "A terminal deck for working with MCP servers by hand", after_help = AFTER_HELP)]
pub struct Cli {
    /// The config file [default: $MCPDECK_CONFIG, else the user config dir's mcpdeck/config.toml]
    #[arg(long, global = true, help_heading = GLOBAL, value_name = "FILE")]
    pub config: Option<PathBuf>,
    /// Print every raw frame, with time and direction, to stderr
    #[arg(long, global = true, help_heading = GLOBAL)]
    pub trace: bool,
    /// Record every frame (and HTTP exchange) to FILE as JSON Lines, secrets masked
    #[arg(long, global = true, help_heading = GLOBAL, value_name = "FILE")]
    pub record: Option<PathBuf>,
    /// Use the built-in demo servers instead of the config file
    #[arg(long, global = true, help_heading = GLOBAL)]
    pub demo: bool,
    /// Write mcpdeck's own log to FILE (level from RUST_LOG, default info); never to the screen
    #[arg(long, global = true, help_heading = GLOBAL, value_name = "FILE")]
    pub log_file: Option<PathBuf>,
    /// Offer these directories (and only these) to every server as roots, for this run, instead of the config's `roots` [default: the config's; none when it has none]
    #[arg(long, global = true, help_heading = GLOBAL, value_name = "DIR", num_args = 1.., action = clap::ArgAction::Append)]
    pub roots: Option<Vec<PathBuf>>,
    /// The client capabilities declared to every server: `default` (roots, sampling, elicitation: what serve declares for a full-featured agent), `none`, `all`, or a comma list of roots, sampling, elicitation, elicitation-form, elicitation-url [default: the config's `capabilities`, else default]
    #[arg(long, global = true, help_heading = GLOBAL, value_name = "SET", value_parser = parse_capabilities)]
    pub capabilities: Option<crate::mcp::session::Declared>,
    #[command(subcommand)]
    pub command: Option<Cmd>,
}

fn parse_capabilities(text: &str) -> Result<crate::mcp::session::Declared, String> {
    crate::mcp::session::Declared::parse(text).map_err(|e| e.to_string())
}

#[derive(Subcommand, Debug)]
pub enum Cmd {
    /// Each configured server's status, era, version, counts and connect time
    Servers {
        /// Print {"servers": [{name, enabled, status, era, version, serverInfo, tools, resources, prompts, connectMs, error, stderrTail}]} (a failure of the command: the error envelope, see docs/cli.md)
        #[arg(long)]
        json: bool,
        #[command(flatten)]
        limit: Limit,
    },
    /// The negotiated era and version (and how they were detected), serverInfo, capabilities, instructions
    Info {
        #[command(flatten)]
        target: TargetArgs,
        #[command(flatten)]
        registry: super::registry::RegistryInputs,
        #[command(flatten)]
        registry_arg: super::registry::RegistryArg,
        /// Print {name, era, version, detection, transport, serverInfo, capabilities, instructions, supportedVersions, connectMs} (a failure: the error envelope, see docs/cli.md)
        #[arg(long)]
        json: bool,
        #[command(flatten)]
        limit: Limit,
    },
    /// All tools of a server (every page)
    Tools {
        #[command(flatten)]
        target: TargetArgs,
        #[command(flatten)]
        registry: super::registry::RegistryInputs,
        #[command(flatten)]
        registry_arg: super::registry::RegistryArg,
        /// Print {"tools": […]} exactly as the server sent them (and "denied": [names] when the config denies some)
        #[arg(long)]
        json: bool,
        /// Print every description whole (the list shows the first 6 lines of each)
        #[arg(long)]
        full: bool,
        #[command(flatten)]
        limit: Limit,
    },
    /// One tool whole: `tool TARGET NAME`, or `tool NAME -- CMD ARGS…`: its
    /// badges, full description, parameters and output schema
    Tool {
        /// TARGET NAME (NAME alone with `-- CMD`)
        #[arg(value_name = "WORDS", num_args = 1..=2, required = true)]
        words: Vec<String>,
        /// Print the tool object exactly as the server sent it
        #[arg(long)]
        json: bool,
        #[command(flatten)]
        limit: Limit,
        /// An ad-hoc stdio server
        #[arg(last = true, value_name = "CMD")]
        command: Vec<String>,
    },
    /// Call a tool: `call TARGET TOOL [ARGS_JSON]`, or `call TOOL [ARGS_JSON] -- CMD ARGS…`;
    /// ARGS_JSON `-` reads the arguments from stdin
    Call {
        /// TARGET TOOL [ARGS_JSON] (TOOL [ARGS_JSON] with `-- CMD`); ARGS_JSON `-` reads them from stdin
        #[arg(value_name = "WORDS", num_args = 1..=3, required = true)]
        words: Vec<String>,
        /// Read the arguments (a JSON object) from FILE, for arguments too long for the command line
        #[arg(long, value_name = "FILE")]
        args_file: Option<PathBuf>,
        /// One argument, KEY=VALUE (typed by the tool's schema); repeatable
        #[arg(long = "arg", value_name = "KEY=VALUE")]
        args: Vec<String>,
        /// Send the arguments even if they do not match the inputSchema
        #[arg(long)]
        no_validate: bool,
        /// Ask the server for log messages at LEVEL and above during the call
        /// (debug, info, notice, warning, error, critical, alert, emergency); they go to stderr
        #[arg(long, value_name = "LEVEL")]
        log_level: Option<String>,
        /// Print the result object as received
        #[arg(long)]
        json: bool,
        #[command(flatten)]
        limit: Limit,
        #[command(flatten)]
        registry: super::registry::RegistryInputs,
        /// An ad-hoc stdio server
        #[arg(last = true, value_name = "CMD")]
        command: Vec<String>,
    },
    /// Smoke-test a server: connect, list, call the tools annotated read-only (--calls
    /// widens this) with arguments from --args or their schema, read static resources,
    /// get prompts; exit 0 only if nothing failed
    Smoke(smoke::SmokeArgs),
    /// Run test suites (*.mcpdeck.toml: calls, reads and prompts with assertions,
    /// captures and snapshots); exit 0 when all pass, 1 when one fails
    Test(super::test::TestArgs),
    /// All resources of a server (every page): uri, name, title, mimeType, size, description
    Resources(resources::ListArgs),
    /// The resource templates of a server, with each template's variables
    Templates(resources::ListArgs),
    /// Read a resource: `read TARGET URI`, or `read URI -- CMD ARGS…`; a URI
    /// with `{…}` is an RFC 6570 template, expanded with --var
    Read(resources::ReadArgs),
    /// All prompts of a server, with their arguments (required ones marked *)
    Prompts(resources::ListArgs),
    /// Get a prompt: `prompt TARGET NAME`, or `prompt NAME -- CMD ARGS…`
    Prompt(resources::PromptArgs),
    /// Ask for completions of a prompt argument or a resource template variable
    Complete(resources::CompleteArgs),
    /// The Agent Skills a server offers (SEP-2640, every page): name, description, files;
    /// invalid entries marked. Reads no skill file
    Skills(resources::ListArgs),
    /// Load a skill: `skill TARGET NAME` (a name, path or SKILL.md URI), or `skill NAME -- CMD`;
    /// reads and verifies its SKILL.md (size, sha256, frontmatter), files with --file/--all-files
    Skill(resources::SkillArgs),
    /// The MCP Apps view a tool names (_meta.ui.resourceUri): its size, mime type, CSP,
    /// permissions and metadata problems (read, never rendered); exit 1 on a problem
    AppInfo(super::app::AppInfoArgs),
    /// The MCP Registry: `registry search [QUERY]`, `registry show NAME`, `registry add NAME`;
    /// any command's TARGET may be `registry:NAME[@VERSION]` to try a server without adding it
    #[command(subcommand)]
    Registry(super::registry::RegistryCmd),
    /// OAuth logins of HTTP servers: `auth login SERVER`, `auth logout SERVER`, `auth status [--json]`
    #[command(subcommand)]
    Auth(super::auth::AuthCmd),
    /// Named secrets kept out of the config (${secret:NAME}): `secret set NAME`, `secret get NAME [--reveal]`,
    /// `secret rm NAME`, `secret list [--json]`
    #[command(subcommand)]
    Secret(super::secret::SecretCmd),
    /// Run the built-in demo MCP server on stdio
    DemoServer(crate::demo::DemoArgs),
    /// An MCP server on stdio for an agent, in front of configured servers: their tools,
    /// prompts and resources with the config's deny/allow lists enforced, live
    Serve(crate::serve::ServeArgs),
    /// The `mcpdeck serve` processes running for this user (by their control sockets):
    /// pid, agent, calls, servers, config file
    Serves {
        /// Print {"dir", "serves": [{"pid", "socket", "status"|"error"}]}
        #[arg(long)]
        json: bool,
    },
    /// Import servers from other clients' files (--all, --from CLIENT) or a file (PATH, incl. a registry server.json)
    Import(super::import::ImportArgs),
    /// Print servers in another client's format (claude-desktop, claude-code, vscode, cursor,
    /// windsurf, zed, codex, gemini), or merge them into its user file with --write
    Export(super::export::ExportArgs),
    /// Add a server to the config: `add NAME -- CMD ARGS…` (stdio) or `add NAME URL` (HTTP)
    Add(super::manage::AddArgs),
    /// Remove a server from the config
    Remove(super::manage::ServerArg),
    /// Enable a server in the config (`enabled` back to its default)
    Enable(super::manage::ServerArg),
    /// Disable a server in the config (`enabled = false`)
    Disable(super::manage::ServerArg),
    /// Deny a tool of a server (adds it to `deny_tools`)
    Deny(super::manage::ToolArgs),
    /// Allow a denied tool again (removes it from `deny_tools`)
    Allow(super::manage::ToolArgs),
    /// Lint what a server tells the model (names, descriptions, schemas, instructions); exit 1 on a high finding
    Lint(super::trust::lint::LintArgs),
    /// Record a fingerprint of each definition the servers show (all enabled servers without TARGET)
    Pin(super::trust::pin::PinArgs),
    /// Compare the servers' definitions with their pins; exit 1 on any change
    Verify(super::trust::pin::PinArgs),
    /// Lint (and verify) the servers of every client found on this machine, read-only; exit 1 on a high finding
    Scan(super::trust::scan::ScanArgs),
    /// The config file: `config path`, `config check`, `config edit`
    #[command(subcommand)]
    Config(super::manage::ConfigCmd),
    /// Print a shell completion script: bash, zsh, fish, elvish or powershell
    Completions(super::completions::CompletionsArgs),
    /// The configured server names, one a line (for the completion scripts)
    #[command(name = "__servers", hide = true)]
    ServerNames,
    /// Show a recording (`--record FILE`) in the TUI's log and result views, with no server
    Open(super::record::OpenArgs),
    /// An MCP server on stdio answering from a recording: `replay FILE [--server NAME]`
    Replay(super::record::ReplayArgs),
    /// Latency per server and method in a recording: count, p50, p95, p99, max, errors
    Stats(super::record::StatsArgs),
    /// Compare two versions of a server's tools, prompts, resources and templates
    /// (servers, `tools --json` snapshots, recordings, pin files); exit 1 on a breaking change
    Diff(super::diff::DiffArgs),
    /// Load on one tool: `bench TARGET TOOL [ARGS_JSON] --count N --concurrency C
    /// [--duration S]`, or `bench TOOL [ARGS_JSON] … -- CMD ARGS…`; calls/s, latency
    /// percentiles, errors by kind, and a stdio server's CPU and peak RSS
    Bench(super::load::BenchArgs),
}

/// The headings of `mcpdeck --help`, each with its commands in the order
/// shown ([`super::help`]). Every visible command is under one heading, once
/// (a test checks it): a new command is its name added here.
pub const GROUPS: super::help::Groups = &[
    (
        "Explore and call",
        &[
            "servers",
            "info",
            "tools",
            "tool",
            "call",
            "resources",
            "templates",
            "read",
            "prompts",
            "prompt",
            "complete",
            "skills",
            "skill",
            "app-info",
        ],
    ),
    (
        "Configure",
        &[
            "add", "registry", "remove", "enable", "disable", "deny", "allow", "config", "import",
            "export", "auth", "secret",
        ],
    ),
    ("Trust", &["lint", "pin", "verify", "scan"]),
    ("Record and compare", &["open", "replay", "stats", "diff"]),
    ("Serve", &["serve", "serves"]),
    ("CI", &["smoke", "test", "bench"]),
    ("Other", &["demo-server", "completions", "help"]),
];

/// The command line: [`Cli`], its help grouped by [`GROUPS`].
pub fn command() -> clap::Command {
    use clap::CommandFactory;
    super::help::grouped(Cli::command(), GROUPS)
}

/// [`Cli`] from `args` (the first being the program); a request for help
/// is the error that prints it, with the grouped help of [`command`].
pub fn try_parse_from<I, T>(args: I) -> Result<Cli, clap::Error>
where
    I: IntoIterator<Item = T>,
    T: Into<std::ffi::OsString> + Clone,
{
    use clap::error::ErrorKind;
    use clap::{CommandFactory, FromArgMatches};
    let args: Vec<std::ffi::OsString> = args.into_iter().map(Into::into).collect();
    // The grouped help costs a build of the whole command (milliseconds):
    // only a run that shows help pays for it.
    let matches = match Cli::command().try_get_matches_from(&args) {
        Err(e)
            if matches!(
                e.kind(),
                ErrorKind::DisplayHelp | ErrorKind::DisplayHelpOnMissingArgumentOrSubcommand
            ) =>
        {
            command().try_get_matches_from(&args)
        }
        other => other,
    };
    Cli::from_arg_matches_mut(&mut matches?).map_err(|e| e.format(&mut Cli::command()))
}

/// Parse the command line as clap does (a usage error is printed, exit 2),
/// with two rules of mcpdeck's: a mistyped command is offered only visible
/// commands as suggestions (never the hidden `__servers`), and the global
/// flags that do nothing for a command are refused ([`Cli::unused_globals`]).
pub fn parse() -> Cli {
    use clap::CommandFactory;
    let cli = match try_parse_from(std::env::args_os()) {
        Ok(cli) => cli,
        // Paths (`--config`, `--record`…) may be any bytes; a word taken as
        // text that is not UTF-8 is named.
        Err(e) if e.kind() == clap::error::ErrorKind::InvalidUtf8 => {
            match non_utf8_argument(std::env::args_os()) {
                Some(message) => Cli::command()
                    .error(clap::error::ErrorKind::InvalidUtf8, message)
                    .exit(),
                None => e.exit(),
            }
        }
        Err(e) => without_hidden_suggestions(e).exit(),
    };
    if let Some(message) = cli.unused_globals() {
        let mut cmd = Cli::command();
        cmd.build();
        // The usage line shown is the command's own.
        let name = std::env::args().find(|a| cmd.find_subcommand(a).is_some());
        let sub = name.and_then(|n| cmd.find_subcommand_mut(&n).cloned());
        sub.unwrap_or(cmd)
            .error(clap::error::ErrorKind::ArgumentConflict, message)
            .exit();
    }
    cli
}

/// The first argument that is not UTF-8, named (clap only says "invalid
/// UTF-8 was detected in one or more arguments"): mcpdeck keeps commands,
/// paths and values as text (they go into the config, JSON and the
/// screen).
fn non_utf8_argument(args: impl IntoIterator<Item = std::ffi::OsString>) -> Option<String> {
    args.into_iter().enumerate().skip(1).find_map(|(i, a)| {
        a.to_str().is_none().then(|| {
            format!(
                "argument {i} ({:?}) is not valid UTF-8; mcpdeck takes commands, paths and values as UTF-8 text: rename the file, or point a symlink with a UTF-8 name at it",
                a.to_string_lossy()
            )
        })
    })
}

/// A clap error without the hidden commands among its suggestions.
fn without_hidden_suggestions(mut e: clap::Error) -> clap::Error {
    use clap::CommandFactory;
    use clap::error::{ContextKind, ContextValue};
    let cmd = Cli::command();
    let hidden = |name: &str| {
        cmd.get_subcommands()
            .any(|s| s.is_hide_set() && s.get_name() == name)
    };
    if let Some(ContextValue::Strings(names)) = e.get(ContextKind::SuggestedSubcommand) {
        let visible: Vec<String> = names.iter().filter(|n| !hidden(n)).cloned().collect();
        if visible.is_empty() {
            e.remove(ContextKind::SuggestedSubcommand);
        } else {
            e.insert(
                ContextKind::SuggestedSubcommand,
                ContextValue::Strings(visible),
            );
        }
    }
    e
}

impl Cli {
    /// Why the global flags given do nothing for this command, if they do
    /// not: `completions`, `stats`, `replay`, `demo-server` and `secret` connect to no
    /// configured server, so `--demo`, `--record`, `--trace`, `--roots` and `--capabilities`
    /// would be silently ignored.
    pub fn unused_globals(&self) -> Option<String> {
        let command = match &self.command {
            Some(Cmd::Completions(_)) => "completions",
            Some(Cmd::Stats(_)) => "stats",
            Some(Cmd::Replay(_)) => "replay",
            Some(Cmd::DemoServer(_)) => "demo-server",
            Some(Cmd::Secret(_)) => "secret",
            _ => return None,
        };
        let given: Vec<&str> = [
            (self.demo, "--demo"),
            (self.record.is_some(), "--record"),
            (self.trace, "--trace"),
            (self.roots.is_some(), "--roots"),
            (self.capabilities.is_some(), "--capabilities"),
        ]
        .into_iter()
        .filter_map(|(on, flag)| on.then_some(flag))
        .collect();
        if given.is_empty() {
            return None;
        }
        Some(format!(
            "{} {} nothing for `mcpdeck {command}` (it connects to no server); leave {} out",
            given.join(", "),
            if given.len() == 1 { "does" } else { "do" },
            if given.len() == 1 { "it" } else { "them" },
        ))
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use clap::CommandFactory;

    /// Every visible flag and argument of every visible command, with the
    /// command's path, that has no description.
    fn undescribed(cmd: &clap::Command, path: &str, out: &mut Vec<String>) {
        for arg in cmd.get_arguments() {
            if arg.is_hide_set() || arg.get_id() == "help" || arg.get_id() == "version" {
                continue;
            }
            if arg.get_help().is_none() && arg.get_long_help().is_none() {
                out.push(format!("{path} {}", arg.get_id()));
            }
        }
        for sub in cmd.get_subcommands() {
            if !sub.is_hide_set() && sub.get_name() != "help" {
                undescribed(sub, &format!("{path} {}", sub.get_name()), out);
            }
        }
    }

    #[test]
    fn global_flags_that_do_nothing_are_refused() {
        let parse = |args: &[&str]| Cli::try_parse_from(args).expect("parses");
        let why = parse(&["mcpdeck", "--demo", "completions", "bash"]).unused_globals();
        assert_eq!(
            why.as_deref(),
            Some(
                "--demo does nothing for `mcpdeck completions` (it connects to no server); leave it out"
            )
        );
        let why = parse(&["mcpdeck", "stats", "f.jsonl", "--trace", "--record", "x"])
            .unused_globals()
            .expect("refused");
        assert!(
            why.starts_with("--record, --trace do nothing for `mcpdeck stats`"),
            "{why}"
        );
        assert!(
            parse(&["mcpdeck", "demo-server", "--roots", "/"])
                .unused_globals()
                .is_some()
        );
        assert!(
            parse(&["mcpdeck", "replay", "f", "--demo"])
                .unused_globals()
                .is_some()
        );
        // Where they count, and the flags that still do something.
        assert!(
            parse(&["mcpdeck", "--demo", "--trace", "tools", "demo"])
                .unused_globals()
                .is_none()
        );
        assert!(
            parse(&["mcpdeck", "completions", "bash", "--config", "c.toml"])
                .unused_globals()
                .is_none()
        );
        assert!(
            parse(&["mcpdeck", "demo-server", "--log-file", "l"])
                .unused_globals()
                .is_none()
        );
    }

    #[test]
    fn bench_counts_with_count_and_still_takes_calls_and_n() {
        for flag in ["--count", "--calls", "-n"] {
            let cli = Cli::try_parse_from(["mcpdeck", "bench", "demo", "echo", flag, "7"])
                .unwrap_or_else(|e| panic!("{flag}: {e}"));
            let Some(Cmd::Bench(b)) = cli.command else {
                panic!("not bench")
            };
            assert_eq!(b.calls, Some(7), "{flag}");
        }
        // The old names are not offered.
        let mut cmd = Cli::command();
        let help = cmd
            .find_subcommand_mut("bench")
            .expect("bench")
            .render_help()
            .to_string();
        assert!(help.contains("--count <N>"), "{help}");
        assert!(
            !help.contains("--calls <N>") && !help.contains("-n,"),
            "{help}"
        );
    }

    #[test]
    fn a_mistyped_command_is_offered_only_visible_commands() {
        let e = Cli::try_parse_from(["mcpdeck", "srvers"]).expect_err("unknown");
        assert!(
            e.to_string().contains("__servers"),
            "clap itself offers it: {e}"
        );
        let text = without_hidden_suggestions(e).to_string();
        assert!(!text.contains("__servers"), "{text}");
        assert!(text.contains("'servers'"), "{text}");
    }

    #[cfg(unix)]
    #[test]
    fn a_non_utf8_argument_is_named() {
        use std::os::unix::ffi::OsStringExt;
        let args = [
            "mcpdeck".into(),
            "tools".into(),
            "--".into(),
            std::ffi::OsString::from_vec(b"/tmp/\xffbin".to_vec()),
        ];
        let message = non_utf8_argument(args).expect("named");
        assert!(
            message.starts_with("argument 3 (\"/tmp/\u{fffd}bin\") is not valid UTF-8"),
            "{message}"
        );
        assert!(non_utf8_argument(["mcpdeck".into(), "tools".into()]).is_none());
    }

    /// The visible commands, `help` included.
    fn visible_commands() -> Vec<String> {
        let mut cmd = Cli::command();
        cmd.build();
        cmd.get_subcommands()
            .filter(|s| !s.is_hide_set())
            .map(|s| s.get_name().to_owned())
            .collect()
    }

    #[test]
    fn every_command_is_under_one_heading_of_the_help() {
        let visible = visible_commands();
        let listed: Vec<&str> = GROUPS
            .iter()
            .flat_map(|(_, names)| names.iter().copied())
            .collect();
        let mut wrong = Vec::new();
        for name in &visible {
            match listed.iter().filter(|n| **n == name).count() {
                1 => {}
                0 => wrong.push(format!("{name}: under no heading (add it to GROUPS)")),
                n => wrong.push(format!("{name}: under {n} headings")),
            }
        }
        for name in &listed {
            if !visible.iter().any(|v| v == name) {
                wrong.push(format!(
                    "{name}: in GROUPS, but no visible command has this name"
                ));
            }
        }
        assert!(wrong.is_empty(), "{wrong:#?}");
    }

    #[test]
    fn the_help_lists_each_command_under_its_heading_as_clap_would() {
        let help = command().render_help().to_string();
        let flat = Cli::command().render_help().to_string();
        // Under each heading its commands, in order, each line as clap
        // writes it in its flat list (the abouts aligned the same way).
        for (heading, names) in GROUPS {
            let lines: Vec<&str> = help
                .lines()
                .skip_while(|l| *l != format!("{heading}:"))
                .skip(1)
                .take_while(|l| !l.is_empty())
                .collect();
            assert_eq!(lines.len(), names.len(), "{heading}:\n{help}");
            for (line, name) in lines.iter().zip(names.iter()) {
                assert!(
                    line.starts_with(&format!("  {name} ")),
                    "{line:?} under {heading}"
                );
                assert!(flat.lines().any(|l| l == *line), "{line:?} is not clap's");
            }
        }
        assert!(!help.contains("Commands:"), "{help}");
        // Before the headings and from the options on, clap's own text.
        let first = format!("{}:", GROUPS[0].0);
        assert_eq!(
            help[..help.find(&first).expect("the first heading")],
            flat[..flat.find("Commands:").expect("clap's list")]
        );
        assert_eq!(
            help[help.find("\nOptions:").expect("options")..],
            flat[flat.find("\nOptions:").expect("options")..]
        );
        // The options are written once for -h and --help: none of the
        // global flags may have a long help of its own.
        assert_eq!(command().render_long_help().to_string(), help);
    }

    #[test]
    fn every_command_still_parses_and_help_asked_any_way_is_grouped() {
        use clap::error::ErrorKind;
        let mut cmd = Cli::command();
        cmd.build();
        for sub in cmd.get_subcommands() {
            let name = sub.get_name();
            let usage = format!("Usage: mcpdeck {name}");
            let asked: Vec<Vec<&str>> = std::iter::once(name)
                .chain(sub.get_all_aliases())
                .filter(|n| *n != "help")
                .map(|n| vec!["mcpdeck", n, "--help"])
                .chain([vec!["mcpdeck", "help", name]])
                .collect();
            for args in asked {
                let e = try_parse_from(&args).expect_err("help");
                assert_eq!(e.kind(), ErrorKind::DisplayHelp, "{args:?}: {e}");
                assert!(e.to_string().contains(&usage), "{args:?}: {e}");
            }
        }
        let grouped = command().render_help().to_string();
        for args in [
            &["mcpdeck", "--help"][..],
            &["mcpdeck", "-h"],
            &["mcpdeck", "help"],
        ] {
            let e = try_parse_from(args).expect_err("help");
            assert_eq!(e.kind(), ErrorKind::DisplayHelp, "{args:?}");
            assert_eq!(e.to_string(), grouped, "{args:?}");
        }
        // A command still parses into its arguments.
        let cli = try_parse_from(["mcpdeck", "--demo", "tools", "demo", "--json"]).expect("parses");
        assert!(cli.demo && matches!(cli.command, Some(Cmd::Tools { json: true, .. })));
    }

    #[test]
    fn every_flag_of_every_command_has_a_description() {
        let mut missing = Vec::new();
        undescribed(&Cli::command(), "mcpdeck", &mut missing);
        assert!(missing.is_empty(), "no description: {missing:#?}");
    }
}
