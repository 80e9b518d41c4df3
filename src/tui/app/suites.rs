//! Test suites from the TUI: `T` saves the result's call (or the
//! history's selected call) as a step of a suite file, with its result as
//! the step's snapshot; `X` runs a suite (`mcpdeck test --json`, a child
//! process, so a run never holds up the screen) and shows its steps, each
//! opened with Enter to see its failures and their diffs.
//!
//! Both start with a picker: the suite files found under the config's
//! folder (the current one for the demo), ↑↓ to take one, or a path typed.

use std::path::PathBuf;

use crossterm::event::KeyEvent;
use serde_json::Value;

use crate::suite::append::Draft;
use crate::suite::diff;
use crate::suite::expect::Response;
use crate::tui::keymap::Action;

use super::keys::edit_line;
use super::*;

/// What the picked file is for.
#[derive(Debug, Clone, PartialEq)]
pub enum PickFor {
    /// Add this call as a step.
    Add(Box<Draft>),
    /// Run the suite.
    Run,
}

/// The suite picker.
#[derive(Debug, Clone, PartialEq)]
pub struct SuitePick {
    pub purpose: PickFor,
    /// The path typed (relative to `base`, or absolute).
    pub line: String,
    /// The suite files found under `base`, relative to it.
    pub found: Vec<String>,
    /// The found file ↑↓ took, if any.
    pub sel: Option<usize>,
    /// The folder relative paths are taken from.
    pub base: PathBuf,
    pub error: Option<String>,
}

/// One step of a run, as `mcpdeck test --json` reported it.
#[derive(Debug, Clone, PartialEq)]
pub struct TestRow {
    pub name: String,
    pub kind: String,
    pub server: String,
    pub status: String,
    pub ms: f64,
    pub error: Option<String>,
    pub notes: Vec<String>,
    /// Each failed assertion: its name, its sentence, and the diff of
    /// expected against actual.
    pub failures: Vec<(String, String, Vec<diff::Line>)>,
}

/// The tests view (`X`).
#[derive(Debug, Clone, PartialEq, Default)]
pub struct TestsView {
    pub file: PathBuf,
    pub running: bool,
    /// Why the run gave no report (a bad file, no server), as mcpdeck
    /// said it.
    pub error: Option<String>,
    pub rows: Vec<TestRow>,
    pub sel: usize,
    /// The selected step is open (its failures shown).
    pub open: bool,
    /// The open step's first line shown.
    pub scroll: usize,
}

impl TestsView {
    /// `3 passed, 1 failed`, or where the run stands.
    pub fn summary(&self) -> String {
        if self.running {
            return "running…".into();
        }
        if self.error.is_some() {
            return "not run".into();
        }
        let n = |st: &str| self.rows.iter().filter(|r| r.status == st).count();
        let mut parts = vec![format!("{} passed", n("passed"))];
        for (st, one, many) in [
            ("failed", "failed", "failed"),
            ("error", "error", "errors"),
            ("skipped", "skipped", "skipped"),
        ] {
            match n(st) {
                0 => {}
                1 => parts.push(format!("1 {one}")),
                k => parts.push(format!("{k} {many}")),
            }
        }
        parts.join(", ")
    }
}

/// The shown result's call as a draft step, or why it cannot be one.
fn draft_of_outcome(s: &State) -> Result<Draft, String> {
    let o = s.outcome.as_ref().ok_or("no call yet: call a tool first")?;
    if !s.servers.iter().any(|v| v.name == o.server) {
        return Err(format!(
            "{} is not a server of this config: a suite could not reach it",
            crate::sanitize::one_line(&o.server)
        ));
    }
    let args = match &o.args {
        Some(a) => serde_json::from_str::<Value>(a)
            .map_err(|_| "the arguments of this call are not JSON".to_string())?,
        None => return Err("the arguments of this call are not known (not in the log)".into()),
    };
    let response = match &o.result {
        Ok(r) => Response::Result(r.raw.clone()),
        Err(crate::mcp::manager::CallError::Request(crate::mcp::RequestError::Rpc {
            error,
            ..
        })) => {
            let mut e = serde_json::json!({"code": error.code, "message": error.message});
            if let Some(d) = &error.data {
                e["data"] = d.clone();
            }
            Response::Error(e)
        }
        Err(e) => {
            return Err(format!(
                "this call got no answer ({}): only a result or a JSON-RPC error makes a step",
                crate::sanitize::one_line(&e.to_string())
            ));
        }
    };
    Ok(Draft {
        server: o.server.clone(),
        tool: o.tool.clone(),
        args,
        response,
        snapshot: true,
        when: String::new(),
    })
}

/// The history's selected call as a draft step, or why it cannot be one.
fn draft_of_entry(s: &State) -> Result<Draft, String> {
    let shown = super::history_view::shown(s);
    let e = shown
        .get(s.history_sel)
        .and_then(|&i| s.history.get(i))
        .ok_or("no call selected")?;
    if e.masked_args() {
        return Err(
            "its arguments held a secret, kept masked in the history: call it again (e) and save that result"
                .into(),
        );
    }
    if e.masked_result() {
        return Err(
            "its result had values masked in the history (under keys that look like secrets'): call it again (r) and save that result"
                .into(),
        );
    }
    let Some(result) = &e.result else {
        return Err(match (&e.error, e.cut) {
            (_, Some(size)) => format!(
                "its result ({}) was too large to keep in the history: call it again and save that result",
                crate::text::human_size(size as usize)
            ),
            (Some(err), _) => format!(
                "it ended without a result ({}): the history keeps no JSON-RPC error to expect",
                crate::sanitize::one_line(err)
            ),
            _ => "the history keeps no result of it".into(),
        });
    };
    if !s.servers.iter().any(|v| v.name == e.server) {
        return Err(format!(
            "{} is not a server of this config: a suite could not reach it",
            crate::sanitize::one_line(&e.server)
        ));
    }
    Ok(Draft {
        server: e.server.clone(),
        tool: e.tool.clone(),
        args: e.args.clone(),
        response: Response::Result(result.clone()),
        snapshot: true,
        when: String::new(),
    })
}

/// `T`: save the shown call (in the history view: the selected one).
pub(super) fn add(s: &mut State, fx: &mut Vec<Effect>) -> bool {
    let draft = if s.mode == Mode::History {
        draft_of_entry(s)
    } else {
        draft_of_outcome(s)
    };
    match draft {
        Ok(d) => fx.push(Effect::FindSuites(PickFor::Add(Box::new(d)))),
        Err(why) => {
            s.status = Some(format!(
                "not saved as a test step: {}",
                crate::sanitize::one_line(&why)
            ))
        }
    }
    true
}

/// `X`: pick a suite to run.
pub(super) fn run(s: &mut State, fx: &mut Vec<Effect>) -> bool {
    fx.push(Effect::FindSuites(PickFor::Run));
    let _ = s;
    true
}

/// The driver found these suite files under `base`: the picker opens.
pub(super) fn found(s: &mut State, purpose: PickFor, base: PathBuf, found: Vec<PathBuf>) {
    let found: Vec<String> = found
        .iter()
        .map(|p| p.strip_prefix(&base).unwrap_or(p).display().to_string())
        .collect();
    if purpose == PickFor::Run && found.is_empty() && s.last_suite.is_none() {
        s.status = Some(format!(
            "no test suites (*{}) under {}: {} saves a call as a step of one",
            crate::suite::SUFFIX,
            crate::sanitize::one_line(&base.display().to_string()),
            s.keymap.label(Action::AddTest)
        ));
        return;
    }
    let line = match (&purpose, &s.last_suite) {
        (_, Some(last)) => last.clone(),
        (PickFor::Run, None) => found.first().cloned().unwrap_or_default(),
        (PickFor::Add(d), None) => found.first().cloned().unwrap_or_else(|| {
            format!(
                "tests/{}{}",
                crate::suite::slug(&d.server),
                crate::suite::SUFFIX
            )
        }),
    };
    let sel = found.iter().position(|f| *f == line);
    s.suite_pick = Some(SuitePick {
        purpose,
        line,
        found,
        sel,
        base,
        error: None,
    });
    s.mode = Mode::SuitePick;
}

/// The picker's keys: type a path, ↑↓ take a found file, Enter goes,
/// Esc cancels.
pub(super) fn pick_key(s: &mut State, k: KeyEvent, fx: &mut Vec<Effect>) -> bool {
    let Some(p) = s.suite_pick.as_mut() else {
        s.mode = Mode::Normal;
        return true;
    };
    if edit_line(&mut p.line, &k) {
        p.sel = None;
        p.error = None;
        return true;
    }
    match s.keymap.action(&k) {
        Some(Action::Back) => {
            s.suite_pick = None;
            s.mode = Mode::Normal;
        }
        Some(Action::ClearField) => {
            p.line.clear();
            p.sel = None;
        }
        Some(a @ (Action::Up | Action::Down)) if !p.found.is_empty() => {
            let n = p.found.len();
            let i = match (p.sel, a) {
                (None, Action::Up) => n - 1,
                (None, _) => 0,
                (Some(i), Action::Up) => (i + n - 1) % n,
                (Some(i), _) => (i + 1) % n,
            };
            p.sel = Some(i);
            p.line = p.found[i].clone();
            p.error = None;
        }
        Some(Action::Open) => {
            let typed = p.line.trim().to_string();
            if typed.is_empty() {
                p.error = Some("type a file name, or take one with ↑↓".into());
                return true;
            }
            if typed.starts_with('~') {
                p.error = Some(
                    "~ is not expanded here: give a path from the folder shown, or a whole one"
                        .into(),
                );
                return true;
            }
            let mut rel = typed.clone();
            if !rel.ends_with(".toml") {
                rel.push_str(crate::suite::SUFFIX);
            }
            let file = p.base.join(&rel);
            let stem = crate::suite::stem(&file);
            if !stem.chars().any(char::is_alphanumeric) {
                p.error = Some(format!(
                    "{}: give the suite a name, like tests/weather{}",
                    crate::sanitize::one_line(&rel),
                    crate::suite::SUFFIX
                ));
                return true;
            }
            let Some(p) = s.suite_pick.take() else {
                return true;
            };
            s.last_suite = Some(rel);
            s.mode = Mode::Normal;
            match p.purpose {
                PickFor::Add(d) => fx.push(Effect::SaveStep { file, draft: d }),
                PickFor::Run => start_run(s, file, fx),
            }
        }
        _ => return false,
    }
    true
}

fn start_run(s: &mut State, file: PathBuf, fx: &mut Vec<Effect>) {
    if s.tests.as_ref().is_some_and(|v| v.running) {
        s.status = Some("a suite is running already: its results come first".into());
        s.mode = Mode::Tests;
        return;
    }
    s.tests = Some(TestsView {
        file: file.clone(),
        running: true,
        ..Default::default()
    });
    s.mode = Mode::Tests;
    fx.push(Effect::RunSuite(file));
}

/// The command line that runs `file` as this session would:
/// `mcpdeck --config 'FILE' test 'SUITE'` (`--demo` for the demo).
pub fn test_command(s: &State, file: &std::path::Path) -> String {
    let q = |p: &std::path::Path| super::keys::sh_quote(&p.display().to_string());
    match &s.config_path {
        Some(c) => format!("mcpdeck --config {} test {}", q(c), q(file)),
        None => format!("mcpdeck --demo test {}", q(file)),
    }
}

/// The driver saved a step (or says why not).
pub(super) fn saved(s: &mut State, r: Result<crate::suite::append::Saved, String>) {
    let one = crate::sanitize::one_line;
    s.status = Some(match r {
        Ok(saved) => format!(
            "{} step \"{}\" to {}{}; {} runs it, or `{}`",
            if saved.created {
                "made a suite with"
            } else {
                "added"
            },
            one(&saved.name),
            one(&saved.file.display().to_string()),
            if saved.snapshot.is_some() {
                ", its result kept as the snapshot"
            } else {
                ""
            },
            s.keymap.label(Action::RunTests),
            one(&test_command(s, &saved.file))
        ),
        Err(why) => format!("not saved as a test step: {}", one(&why)),
    });
}

/// A step of the `--json` report as a row.
fn row_of(v: &Value) -> TestRow {
    let text = |k: &str| {
        v.get(k)
            .and_then(Value::as_str)
            .unwrap_or_default()
            .to_string()
    };
    TestRow {
        name: text("name"),
        kind: text("kind"),
        server: text("server"),
        status: text("status"),
        ms: v.get("ms").and_then(Value::as_f64).unwrap_or_default(),
        error: v.get("error").and_then(Value::as_str).map(str::to_string),
        notes: v
            .get("notes")
            .and_then(Value::as_array)
            .map(|a| {
                a.iter()
                    .filter_map(Value::as_str)
                    .map(str::to_string)
                    .collect()
            })
            .unwrap_or_default(),
        failures: v
            .get("failures")
            .and_then(Value::as_array)
            .map(|a| {
                a.iter()
                    .map(|f| {
                        let null = Value::Null;
                        let (e, a) = (
                            f.get("expected").unwrap_or(&null),
                            f.get("actual").unwrap_or(&null),
                        );
                        (
                            f.get("assertion")
                                .and_then(Value::as_str)
                                .unwrap_or_default()
                                .to_string(),
                            f.get("message")
                                .and_then(Value::as_str)
                                .unwrap_or_default()
                                .to_string(),
                            diff::lines(e, a, 400),
                        )
                    })
                    .collect()
            })
            .unwrap_or_default(),
    }
}

/// The run ended: its report (`mcpdeck test --json`), or why there is
/// none.
pub(super) fn ran(s: &mut State, file: PathBuf, r: Result<Value, String>) {
    let Some(v) = s.tests.as_mut().filter(|v| v.file == file) else {
        return;
    };
    v.running = false;
    v.open = false;
    v.scroll = 0;
    match r {
        Ok(doc) => {
            v.rows = doc
                .get("suites")
                .and_then(Value::as_array)
                .into_iter()
                .flatten()
                .flat_map(|s| {
                    s.get("steps")
                        .and_then(Value::as_array)
                        .cloned()
                        .unwrap_or_default()
                })
                .map(|st| row_of(&st))
                .collect();
            v.error = None;
            v.sel = v
                .rows
                .iter()
                .position(|r| r.status != "passed")
                .unwrap_or(0);
        }
        Err(e) => {
            v.rows.clear();
            v.error = Some(e);
        }
    }
}

/// The lines of an open step: its error, each failure's sentence and
/// diff, its notes.
pub fn open_lines(r: &TestRow) -> Vec<(char, String)> {
    let mut out = Vec::new();
    if let Some(e) = &r.error {
        out.push(('!', e.clone()));
    }
    for (assertion, message, lines) in &r.failures {
        out.push(('✗', format!("{assertion}: {message}")));
        for l in lines {
            out.push(match l {
                diff::Line::Same(t) => (' ', format!("  {t}")),
                diff::Line::Removed(t) => ('-', format!("- {t}")),
                diff::Line::Added(t) => ('+', format!("+ {t}")),
                diff::Line::Gap => (' ', "⋮".into()),
                diff::Line::More(n) => (' ', format!("… {n} more lines")),
            });
        }
        out.push((' ', String::new()));
    }
    for n in &r.notes {
        out.push(('·', n.clone()));
    }
    if out.is_empty() {
        out.push(('✓', "every assertion held".into()));
    }
    out
}

/// The tests view's keys: ↑↓ a step (or scroll an open one), Enter opens
/// it, Esc closes it (then the view), `r` runs the suite again.
pub(super) fn view_key(s: &mut State, k: KeyEvent, fx: &mut Vec<Effect>) -> bool {
    let action = s.keymap.history_action(&k);
    let page = s.areas.main.height.saturating_sub(4).max(1) as isize;
    let Some(v) = s.tests.as_mut() else {
        s.mode = Mode::Normal;
        return true;
    };
    let n = v.rows.len();
    if v.open {
        let len = v.rows.get(v.sel).map_or(0, |r| open_lines(r).len());
        let by = |d: isize| step(v.scroll, d, len);
        match action {
            Some(Action::Up) => v.scroll = by(-1),
            Some(Action::Down) => v.scroll = by(1),
            Some(Action::PageUp) => v.scroll = by(-page),
            Some(Action::PageDown) => v.scroll = by(page),
            Some(Action::Home) => v.scroll = 0,
            Some(Action::End) => v.scroll = len.saturating_sub(1),
            Some(Action::Back | Action::Open) => v.open = false,
            Some(Action::Quit) => s.mode = Mode::Normal,
            _ => return false,
        }
        return true;
    }
    let by = |d: isize| step(v.sel, d, n);
    match action {
        Some(Action::Up) => v.sel = by(-1),
        Some(Action::Down) => v.sel = by(1),
        Some(Action::PageUp) => v.sel = by(-page),
        Some(Action::PageDown) => v.sel = by(page),
        Some(Action::Home) => v.sel = 0,
        Some(Action::End) => v.sel = n.saturating_sub(1),
        Some(Action::Open) if n > 0 => {
            v.open = true;
            v.scroll = 0;
        }
        Some(Action::Rerun) if !v.running => {
            let file = v.file.clone();
            start_run(s, file, fx);
        }
        Some(Action::Back | Action::Quit | Action::RunTests) => s.mode = Mode::Normal,
        Some(Action::Help) => {
            s.help_back = Some(Mode::Tests);
            s.mode = Mode::Help;
        }
        _ => return false,
    }
    true
}
