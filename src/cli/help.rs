//! `mcpdeck --help` with its commands under headings by purpose, as `gh`
//! and `cargo` list theirs. clap lists a command's subcommands in one flat
//! list under "Commands:"; [`grouped`] gives the command a help template
//! whose command list is written here, from the command's own subcommands
//! (each one's name, visible aliases and about, laid out as clap lays out
//! its list), under the headings it is given ([`super::args::GROUPS`]).
//! The rest of the help (usage, options, the text after) is clap's own.
//!
//! Only the top-level help is grouped (`mcpdeck -h`, `--help`, `mcpdeck
//! help`); each command's help is clap's as before.

use std::fmt::Write as _;

use clap::Command;
use clap::builder::StyledStr;

/// Headings, each with its commands in the order shown.
pub type Groups = &'static [(&'static str, &'static [&'static str])];

/// `cmd` with a help that lists its subcommands under `groups`. A visible
/// subcommand in no group is listed under the last heading (a test of
/// [`super::args`] makes sure there is none).
pub fn grouped(cmd: Command, groups: Groups) -> Command {
    let template = template(&cmd, groups);
    cmd.help_template(template)
}

/// clap's default template, with the grouped commands in place of
/// `{all-args}`'s "Commands:" section and the options rendered by clap.
fn template(cmd: &Command, groups: Groups) -> StyledStr {
    // Built, a command has its `help` subcommand (and `-h`, `-V`).
    let mut built = cmd.clone();
    built.build();
    let mut out = StyledStr::new();
    out.push_str("{before-help}{about-with-newline}\n{usage-heading} {usage}\n\n");
    write_groups(&mut out, &built, groups);
    // (clap ends a rendered help with a newline; the template's end is
    // `{after-help}`, as clap's own.)
    let options = options(cmd).ansi().to_string();
    let _ = write!(out, "\n{}{{after-help}}", options.trim_end_matches('\n'));
    out
}

/// Every heading with its commands: `  NAME  ABOUT [aliases: …]`, the
/// abouts aligned over the whole list.
fn write_groups(out: &mut StyledStr, cmd: &Command, groups: Groups) {
    let styles = cmd.get_styles();
    let (header, literal) = (styles.get_header(), styles.get_literal());
    let (context, value) = (styles.get_context(), styles.get_context_value());
    let visible: Vec<&Command> = cmd.get_subcommands().filter(|s| !s.is_hide_set()).collect();
    let width = visible
        .iter()
        .map(|s| s.get_name().chars().count())
        .max()
        .unwrap_or(0);
    let mut listed: Vec<Vec<&Command>> = groups
        .iter()
        .map(|(_, names)| {
            names
                .iter()
                .filter_map(|n| visible.iter().find(|s| s.get_name() == *n).copied())
                .collect()
        })
        .collect();
    let grouped = |s: &&Command| {
        groups
            .iter()
            .any(|(_, names)| names.contains(&s.get_name()))
    };
    if let Some(last) = listed.last_mut() {
        last.extend(visible.iter().filter(|s| !grouped(s)));
    }
    let shown = groups.iter().zip(&listed).filter(|(_, c)| !c.is_empty());
    for (i, ((heading, _), commands)) in shown.enumerate() {
        if i > 0 {
            out.push_str("\n");
        }
        let _ = writeln!(out, "{header}{heading}:{header:#}");
        for sub in commands {
            let name = sub.get_name();
            let _ = write!(out, "  {literal}{name}{literal:#}");
            let mut about = sub
                .get_about()
                .map(|a| a.ansi().to_string())
                .unwrap_or_default();
            let aliases: Vec<String> = sub
                .get_visible_aliases()
                .map(|a| format!("{value}{a}{value:#}"))
                .collect();
            if !aliases.is_empty() {
                let plural = if aliases.len() == 1 { "" } else { "es" };
                if !about.is_empty() {
                    about.push(' ');
                }
                let _ = write!(
                    about,
                    "{context}[alias{plural}: {context:#}{}{context}]{context:#}",
                    aliases.join(&format!("{context}, {context:#}"))
                );
            }
            if !about.is_empty() {
                let pad = width - name.chars().count();
                let _ = write!(out, "{:pad$}  {about}", "");
            }
            out.push_str("\n");
        }
    }
}

/// The options sections of `cmd`'s help ("Options:" and the headed ones),
/// as clap writes them: rendered from a command with the same arguments
/// and no subcommands.
fn options(cmd: &Command) -> StyledStr {
    // Neither the name nor the version shows in these sections; a version
    // makes clap add `-V, --version` as it does to `cmd`.
    let mut bare = Command::new("options")
        .styles(cmd.get_styles().clone())
        .help_template("{all-args}")
        .args(cmd.get_arguments().cloned());
    if cmd.get_version().or(cmd.get_long_version()).is_some() {
        bare = bare.version("shown by -V");
    }
    bare.render_help()
}
