//! `mcpdeck diff A B [--json|--markdown]`: what changed between two
//! versions of a server's tools, prompts, resources and templates, and
//! whether it breaks clients ([`crate::diff`]). Exit 1 when anything is
//! breaking, else 0; 2 for usage and input errors; a server that could not
//! be connected keeps its own code.
//!
//! A and B are each a word (a file — a `tools --json` snapshot, a
//! recording, a pin file —, a configured server name or an http(s) URL),
//! or an ad-hoc stdio server: `--a-cmd "CMD ARGS…"`, `--b-cmd "CMD ARGS…"`,
//! or `-- CMD ARGS…` (last) for B. A word that is a configured server's name
//! is the server; any other word naming an existing file is the file
//! (write `./NAME` for a file named like a server); `-` is stdin.

use std::io::Write;
use std::path::PathBuf;

use clap::Args;

use crate::cli::TargetArgs;
use crate::cli::exit::{Exit, Failure, Outcome};
use crate::cli::link::{Link, Options};
use crate::cli::output;
use crate::config::Config;
use crate::diff::{Category, Surface, compare, load_file, load_text, render};
use crate::mcp::session::ListSet;
use crate::sanitize;

#[derive(Args, Debug)]
pub struct DiffArgs {
    /// A and B: each a file (a `tools --json` snapshot, a recording, a pin
    /// file), a configured server name or an http(s):// URL
    #[arg(value_name = "SIDE", num_args = 0..=2)]
    pub sides: Vec<String>,
    /// A as an ad-hoc stdio server, one string: "CMD ARGS…" (split like a shell)
    #[arg(long, value_name = "CMDLINE")]
    pub a_cmd: Option<String>,
    /// B as an ad-hoc stdio server, one string: "CMD ARGS…"
    #[arg(long, value_name = "CMDLINE")]
    pub b_cmd: Option<String>,
    /// The server to take from a recording or pin file that holds several
    #[arg(long, value_name = "NAME")]
    pub server: Option<String>,
    /// Print {"changes": […], "breaking": N, "nonBreaking": M, …}
    #[arg(long, conflicts_with = "markdown")]
    pub json: bool,
    /// Print Markdown for a pull request comment
    #[arg(long)]
    pub markdown: bool,
    /// B as an ad-hoc stdio server: `-- CMD ARGS…`
    #[arg(last = true, value_name = "CMD")]
    pub command: Vec<String>,
}

/// One side of the comparison, before it is read.
#[derive(Debug)]
enum Side {
    File(PathBuf),
    Live(TargetArgs),
}

impl Side {
    fn label(&self) -> String {
        match self {
            Side::File(p) => p.display().to_string(),
            Side::Live(t) => match &t.target {
                Some(name) => name.clone(),
                None => format!("-- {}", t.command.join(" ")),
            },
        }
    }
}

fn command_side(which: &str, line: &str) -> Result<Side, Failure> {
    let words = crate::text::split_command(line).map_err(|e| {
        Failure::new(
            Exit::Usage,
            format!("--{which}-cmd {line:?}: {e}; give the command as one quoted string"),
        )
    })?;
    if words.is_empty() {
        return Err(Failure::new(
            Exit::Usage,
            format!(
                "--{which}-cmd is empty; give the command as one string: --{which}-cmd \"CMD ARGS…\""
            ),
        ));
    }
    Ok(Side::Live(TargetArgs {
        target: None,
        command: words,
    }))
}

/// A word: a configured server, a URL, or a file.
fn word_side(config: &Config, word: &str) -> Result<Side, Failure> {
    let live = || {
        Side::Live(TargetArgs {
            target: Some(word.to_string()),
            command: Vec::new(),
        })
    };
    if word.starts_with("http://") || word.starts_with("https://") || config.server(word).is_some()
    {
        return Ok(live());
    }
    let path = PathBuf::from(word);
    if word == "-" || path.exists() {
        return Ok(Side::File(path));
    }
    if word.contains('/') || word.ends_with(".json") || word.ends_with(".jsonl") {
        return Err(Failure::new(Exit::Usage, format!("no such file: {word}")));
    }
    // Neither: say what a server name would have needed.
    let target = TargetArgs {
        target: Some(word.to_string()),
        command: Vec::new(),
    };
    match crate::cli::target::target_config(config, &target) {
        Ok(_) => Ok(live()),
        Err(f) => Err(Failure::new(
            Exit::Usage,
            format!("{word:?} is no file here, and {}", f.message),
        )),
    }
}

/// A and B, from the arguments.
fn sides(config: &Config, args: &DiffArgs) -> Result<(Side, Side), Failure> {
    if args.b_cmd.is_some() && !args.command.is_empty() {
        return Err(Failure::new(
            Exit::Usage,
            "give B either as --b-cmd \"CMD ARGS…\" or as `-- CMD ARGS…`, not both",
        ));
    }
    let mut words = args.sides.iter();
    let a = match &args.a_cmd {
        Some(line) => command_side("a", line)?,
        None => match words.next() {
            Some(w) => word_side(config, w)?,
            None => return Err(usage_two_sides()),
        },
    };
    let b = if let Some(line) = &args.b_cmd {
        command_side("b", line)?
    } else if !args.command.is_empty() {
        Side::Live(TargetArgs {
            target: None,
            command: args.command.clone(),
        })
    } else {
        match words.next() {
            Some(w) => word_side(config, w)?,
            None => return Err(usage_two_sides()),
        }
    };
    if let Some(extra) = words.next() {
        return Err(Failure::new(
            Exit::Usage,
            format!("unexpected word {extra:?}: diff compares two sides, A and B"),
        ));
    }
    Ok((a, b))
}

fn usage_two_sides() -> Failure {
    Failure::new(
        Exit::Usage,
        "diff needs two sides: `mcpdeck diff A B`, each a file (a `tools --json` snapshot, a recording, a pin file), a server name or a URL; an ad-hoc server as --a-cmd \"CMD ARGS…\", --b-cmd \"CMD ARGS…\" or `-- CMD ARGS…` (B)",
    )
}

/// A file side; `-` is stdin.
fn read_file(path: &std::path::Path, server: Option<&str>) -> Result<Surface, Failure> {
    let loaded = if path.as_os_str() == "-" {
        let mut text = String::new();
        std::io::Read::read_to_string(&mut std::io::stdin(), &mut text).map_err(|e| {
            Failure::new(
                Exit::Usage,
                format!("could not read stdin (`-`) as UTF-8 text: {e}"),
            )
        })?;
        load_text("stdin", &text, server)
    } else {
        load_file(path, server)
    }
    .map_err(|e| Failure::new(Exit::Usage, e.to_string()))?;
    for w in &loaded.warnings {
        eprintln!("mcpdeck: warning: {}", sanitize::one_line(w));
    }
    Ok(loaded.surface)
}

/// The lists a live side is asked for: those the other side has, or all.
fn listing(other: Option<&Surface>) -> ListSet {
    match other {
        None => ListSet::ALL,
        Some(s) => ListSet {
            tools: s.tools.is_some(),
            prompts: s.prompts.is_some(),
            resources: s.resources.is_some(),
            templates: s.templates.is_some(),
        },
    }
}

/// Connect a live side and take its lists (only those in `lists`).
async fn read_live(
    config: &Config,
    target: &TargetArgs,
    lists: ListSet,
    trace: bool,
) -> Result<Surface, Failure> {
    let link = Link::open(config, target, Options::new(trace).listing(lists)).await?;
    let snap = link.server.clone();
    link.close();
    if let Some((method, e)) = snap.lists.errors.first() {
        return Err(Failure::new(
            Exit::for_kind(e.kind()),
            format!(
                "{}: {method} did not come ({}); it cannot be compared",
                snap.config.name,
                sanitize::strip(&e.to_string())
            ),
        ));
    }
    let all = Surface::from_lists(&snap.lists);
    let mut surface = Surface::default();
    for (c, asked) in [
        (Category::Tool, lists.tools),
        (Category::Prompt, lists.prompts),
        (Category::Resource, lists.resources),
        (Category::Template, lists.templates),
    ] {
        if asked && let Some(items) = all.get(c) {
            surface.set(c, items.clone());
        }
    }
    Ok(surface)
}

pub async fn run(config: &Config, args: &DiffArgs, trace: bool) -> Outcome {
    let (a, b) = sides(config, args)?;
    let stdin = |s: &Side| matches!(s, Side::File(p) if p.as_os_str() == "-");
    if stdin(&a) && stdin(&b) {
        return Err(Failure::new(
            Exit::Usage,
            "only one side can be read from stdin (`-`)",
        ));
    }
    let server = args.server.as_deref();
    // Files first: their errors come before anything connects, and they
    // say which lists a live side needs.
    let fa = match &a {
        Side::File(p) => Some(read_file(p, server)?),
        Side::Live(_) => None,
    };
    let fb = match &b {
        Side::File(p) => Some(read_file(p, server)?),
        Side::Live(_) => None,
    };
    let live = |side: &Side, other: Option<&Surface>| {
        let lists = listing(other);
        let target = match side {
            Side::Live(t) => Some(t.clone()),
            Side::File(_) => None,
        };
        async move {
            match target {
                Some(t) => read_live(config, &t, lists, trace).await.map(Some),
                None => Ok(None),
            }
        }
    };
    let (la, lb) = futures_util::future::join(live(&a, fb.as_ref()), live(&b, fa.as_ref())).await;
    let sa = match fa {
        Some(s) => s,
        None => la?.unwrap_or_default(),
    };
    let sb = match fb {
        Some(s) => s,
        None => lb?.unwrap_or_default(),
    };
    let diff = compare(&sa, &sb);
    let (label_a, label_b) = (a.label(), b.label());
    if diff.compared.is_empty() {
        // Nothing compared is no pass: a CI gate would let anything through.
        let has = |s: &Surface| {
            let names: Vec<&str> = s.categories().iter().map(|c| c.plural()).collect();
            if names.is_empty() {
                "no lists".to_string()
            } else {
                names.join(", ")
            }
        };
        return Err(Failure::new(
            Exit::Usage,
            format!(
                "nothing to compare: {} has {}, {} has {}",
                sanitize::one_line(&label_a),
                has(&sa),
                sanitize::one_line(&label_b),
                has(&sb)
            ),
        ));
    }
    let mut out = crate::cli::output::stdout();
    let _ = if args.json {
        writeln!(out, "{}", output::json_pretty(&diff.to_json()))
    } else if args.markdown {
        write!(out, "{}", render::markdown(&diff, &label_a, &label_b))
    } else {
        write!(out, "{}", render::text(&diff, &label_a, &label_b))
    };
    Ok(if diff.breaking() > 0 {
        Exit::ToolError
    } else {
        Exit::Ok
    })
}
