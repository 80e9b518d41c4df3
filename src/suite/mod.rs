//! Test suites (`*.mcpdeck.toml`): the calls, reads and prompt gets a
//! server's author keeps, each with what its result must show, run again
//! by `mcpdeck test` (documented in docs/testing.md).
//!
//! This module holds what needs no server: the file's model and its
//! reading, with errors at a line and column ([`parse`]); JSONPath
//! ([`jsonpath`]); the assertions ([`expect`]); captures and `{{…}}`
//! ([`template`]); snapshots ([`snapshot`]); expected against actual as lines
//! ([`diff`]). Running a suite against servers is
//! the CLI's (`cli::test`).

pub mod append;
pub mod diff;
pub mod expect;
pub mod jsonpath;
mod parse;
pub mod snapshot;
pub mod template;

use std::path::{Path, PathBuf};

use serde_json::Value;

pub use parse::{load, parse};

/// The conventional ending of a suite file: a directory given to `mcpdeck
/// test` is searched for these.
pub const SUFFIX: &str = ".mcpdeck.toml";

/// One test file.
#[derive(Debug, Clone)]
pub struct Suite {
    /// The file.
    pub path: PathBuf,
    /// `[suite] name`, else the file's name without [`SUFFIX`].
    pub name: String,
    /// `[suite] timeout`: each request's limit, over the config's.
    pub timeout: Option<std::time::Duration>,
    /// `[suite] ignore`: paths masked in every snapshot of the suite.
    pub ignore: Vec<jsonpath::Path>,
    /// The steps, in the file's order.
    pub steps: Vec<Step>,
}

impl Suite {
    /// The folder the suite's relative paths (commands, snapshots) are
    /// taken from.
    pub fn dir(&self) -> &Path {
        self.path
            .parent()
            .filter(|p| !p.as_os_str().is_empty())
            .unwrap_or(Path::new("."))
    }

    /// The file's name without [`SUFFIX`] (or `.toml`).
    pub fn stem(&self) -> String {
        stem(&self.path)
    }
}

/// A suite file's name without [`SUFFIX`] (or `.toml`).
pub fn stem(path: &Path) -> String {
    let name = path
        .file_name()
        .map(|n| n.to_string_lossy().into_owned())
        .unwrap_or_default();
    name.strip_suffix(SUFFIX)
        .or_else(|| name.strip_suffix(".toml"))
        .unwrap_or(&name)
        .to_string()
}

/// Every `*.mcpdeck.toml` under `dir` (at most `max`), sorted; hidden
/// folders, `__snapshots__`, `node_modules` and `target` are left out.
pub fn find(dir: &Path, max: usize) -> Vec<PathBuf> {
    let mut out = Vec::new();
    walk(dir, max, &mut out);
    out
}

fn walk(dir: &Path, max: usize, out: &mut Vec<PathBuf>) {
    let Ok(entries) = std::fs::read_dir(dir) else {
        return;
    };
    let mut entries: Vec<PathBuf> = entries.filter_map(Result::ok).map(|e| e.path()).collect();
    entries.sort();
    for path in entries {
        if out.len() >= max {
            return;
        }
        let name = path
            .file_name()
            .map(|n| n.to_string_lossy().into_owned())
            .unwrap_or_default();
        // A symlinked folder is not followed (it may loop).
        let is_dir = std::fs::symlink_metadata(&path).is_ok_and(|m| m.is_dir());
        if is_dir {
            if !(name.starts_with('.')
                || name == "__snapshots__"
                || name == "node_modules"
                || name == "target")
            {
                walk(&path, max, out);
            }
        } else if name.ends_with(SUFFIX) {
            out.push(path);
        }
    }
}

/// A file name made of `s`: letters, digits, `-`, `_` and `.` kept, runs
/// of anything else one `-`; at most 80 characters; never empty.
pub fn slug(s: &str) -> String {
    let mut out = String::new();
    for c in s.chars() {
        if c.is_alphanumeric() || c == '_' || c == '.' {
            out.push(c);
        } else if !out.ends_with('-') {
            out.push('-');
        }
    }
    let out: String = out.trim_matches(['-', '.']).chars().take(80).collect();
    if out.is_empty() { "step".into() } else { out }
}

/// What a step does.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Kind {
    /// `[[call]]`: `tools/call`.
    Call,
    /// `[[read]]`: `resources/read`.
    Read,
    /// `[[prompt]]`: `prompts/get`.
    Prompt,
}

impl Kind {
    /// The table's name in the file, and the word in reports.
    pub fn label(self) -> &'static str {
        match self {
            Kind::Call => "call",
            Kind::Read => "read",
            Kind::Prompt => "prompt",
        }
    }

    /// The key naming what the step asks for.
    pub fn subject_key(self) -> &'static str {
        match self {
            Kind::Call => "tool",
            Kind::Read => "uri",
            Kind::Prompt => "prompt",
        }
    }
}

/// Where a step's server comes from.
#[derive(Debug, Clone, PartialEq, Eq, Hash)]
pub enum Target {
    /// A configured server's name, or an http(s):// URL.
    Named(String),
    /// An ad-hoc stdio server: the command and its arguments, run in the
    /// suite's folder.
    Command(Vec<String>),
}

impl Target {
    /// How reports name it.
    pub fn label(&self) -> String {
        match self {
            Target::Named(n) => crate::sanitize::one_line(n),
            Target::Command(words) => crate::sanitize::one_line(&words.join(" ")),
        }
    }
}

/// One step.
#[derive(Debug, Clone)]
pub struct Step {
    /// 1-based, in the file's order.
    pub number: usize,
    /// The line of its `[[call]]` (or `[[read]]`, `[[prompt]]`).
    pub line: usize,
    pub kind: Kind,
    /// `name`, if given.
    pub name: Option<String>,
    pub target: Target,
    /// The tool, the URI or the prompt (may hold `{{…}}`).
    pub subject: String,
    /// The arguments (an object; may hold `{{…}}`); empty for a read.
    pub args: Value,
    pub expect: expect::Expect,
    /// `capture`: a name and the path whose value it takes.
    pub capture: Vec<(String, jsonpath::Path)>,
    /// The name of its snapshot file (without `.json`), unique in the
    /// suite: the step's name, else its kind and subject, made a file name.
    pub snapshot: String,
}

impl Step {
    /// How reports name the step: its `name`, else `call echo`.
    pub fn label(&self) -> String {
        match &self.name {
            Some(n) => crate::sanitize::one_line(n),
            None => format!(
                "{} {}",
                self.kind.label(),
                crate::sanitize::one_line(&self.subject)
            ),
        }
    }
}
