//! The history view (`H`): every call, newest first. Enter shows the kept
//! result, `r` runs the call again as it was, `e` opens it in the argument
//! editor first, `/` filters, `m` marks and `d` shows the diff of two
//! (`history_diff`).

use crossterm::event::KeyEvent;

use crate::tui::keymap::Action;

use super::keys::edit_line;
use super::*;

/// `H`: open the history.
pub(super) fn open(s: &mut State) -> bool {
    s.history_sel = 0;
    s.history_typing = false;
    s.mode = Mode::History;
    true
}

/// The entries shown (after the filter), as indices into `s.history`.
pub fn shown(s: &State) -> Vec<usize> {
    s.history
        .iter()
        .enumerate()
        .filter(|(_, e)| e.matches(&s.history_filter))
        .map(|(i, _)| i)
        .collect()
}

pub(super) fn key(s: &mut State, k: KeyEvent, fx: &mut Vec<Effect>) -> bool {
    if s.history_typing {
        if edit_line(&mut s.history_filter, &k) {
            s.history_sel = 0;
            return true;
        }
        match s.keymap.action(&k) {
            Some(Action::Back) => {
                s.history_filter.clear();
                s.history_typing = false;
            }
            Some(Action::Open) => s.history_typing = false,
            _ => return false,
        }
        return true;
    }
    if s.history_diff.is_some() {
        return super::history_diff::key(s, s.keymap.history_action(&k));
    }
    let n = shown(s).len();
    let page = s.areas.main.height.saturating_sub(3).max(1) as isize;
    let by = |d: isize| step(s.history_sel, d, n);
    match s.keymap.history_action(&k) {
        Some(Action::Up) => s.history_sel = by(-1),
        Some(Action::Down) => s.history_sel = by(1),
        Some(Action::PageUp) => s.history_sel = by(-page),
        Some(Action::PageDown) => s.history_sel = by(page),
        Some(Action::Home) => s.history_sel = 0,
        Some(Action::End) => s.history_sel = n.saturating_sub(1),
        Some(Action::Filter) => {
            s.history_filter.clear();
            s.history_typing = true;
            s.history_sel = 0;
        }
        Some(Action::Back) if !s.history_filter.is_empty() => {
            s.history_filter.clear();
            s.history_sel = 0;
        }
        Some(Action::Back | Action::History | Action::Quit) => s.mode = Mode::Normal,
        Some(Action::Open) => show(s),
        Some(Action::Rerun) => rerun(s, fx),
        Some(Action::AddTest) => return super::suites::add(s, fx),
        Some(Action::RunTests) => return super::suites::run(s, fx),
        Some(Action::EditRerun) => edit(s),
        Some(Action::Mark) => {
            if let Some(e) = selected(s) {
                super::history_diff::mark(s, e);
            }
        }
        Some(Action::DiffMarked) => {
            let e = selected(s);
            super::history_diff::show(s, e);
        }
        Some(Action::Help) => {
            s.help_back = Some(Mode::History);
            s.mode = Mode::Help;
        }
        _ => return false,
    }
    true
}

fn selected(s: &State) -> Option<crate::tui::history::Entry> {
    let i = *shown(s).get(s.history_sel)?;
    s.history.get(i).cloned()
}

/// A kept call's outcome, as the result pane shows it.
pub(super) fn outcome_of(
    e: &crate::tui::history::Entry,
) -> Result<crate::mcp::types::CallResult, crate::mcp::manager::CallError> {
    match (&e.result, &e.error, e.cut) {
        (Some(r), _, _) => Ok(crate::mcp::types::CallResult::parse(
            r.clone(),
            &mut Vec::new(),
        )),
        (None, Some(err), _) => Err(crate::mcp::manager::CallError::Request(
            crate::mcp::session::RequestError::Protocol(err.clone()),
        )),
        (None, None, Some(size)) => Err(crate::mcp::manager::CallError::Request(
            crate::mcp::session::RequestError::Protocol(format!(
                "the result ({}) was too large to keep in the history; r runs the call again",
                crate::text::human_size(size as usize)
            )),
        )),
        (None, None, None) => Ok(crate::mcp::types::CallResult::parse(
            serde_json::json!({"content": []}),
            &mut Vec::new(),
        )),
    }
}

/// Enter: the kept result in the result pane.
fn show(s: &mut State) {
    let Some(e) = selected(s) else { return };
    let result = outcome_of(&e);
    super::views::show_outcome(
        s,
        e.server.clone(),
        e.tool.clone(),
        result,
        std::time::Duration::from_millis(e.ms),
        Some(e.args.to_string()),
    );
    s.status = Some(format!(
        "the kept result of {} on {}, {} ({})",
        crate::sanitize::one_line(&e.tool),
        crate::sanitize::one_line(&e.server),
        crate::text::fmt_utc(e.at),
        e.status.word()
    ));
}

/// `r`: the same call again. Arguments masked when kept cannot be sent
/// as they were: the editor opens instead, to fill them in.
fn rerun(s: &mut State, fx: &mut Vec<Effect>) {
    let Some(e) = selected(s) else { return };
    if e.masked_args() {
        edit(s);
        s.status = Some("some arguments were secrets, kept masked: fill them in, then send".into());
        return;
    }
    let text = crate::tui::argform::json_text(&e.args);
    super::editor::start_call(s, e.server, e.tool, e.args, text, fx);
}

/// `e`: the call in the argument editor, with its arguments.
fn edit(s: &mut State) {
    let Some(e) = selected(s) else { return };
    let Some(si) = s.servers.iter().position(|v| v.name == e.server) else {
        s.status = Some(format!(
            "{} is no longer in the config",
            crate::sanitize::one_line(&e.server)
        ));
        return;
    };
    s.server_sel = si;
    s.all_tools = false;
    s.filter.clear();
    s.refilter_to(Some((e.server.clone(), e.tool.clone())));
    if s.selected_names() != Some((e.server.clone(), e.tool.clone())) {
        s.status = Some(format!(
            "{} does not offer {} now (not connected, or the tool is gone)",
            crate::sanitize::one_line(&e.server),
            crate::sanitize::one_line(&e.tool)
        ));
        return;
    }
    s.last_args.insert(
        (e.server.clone(), e.tool.clone()),
        crate::tui::argform::json_text(&e.args),
    );
    s.mode = Mode::Normal;
    s.focus = Pane::Tools;
    super::editor::open_editor(s);
}
