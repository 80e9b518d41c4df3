//! The argument editor: opened on a tool as a form made from its
//! `inputSchema` (or as raw JSON when the schema has no form, with a note
//! saying why), prefilled with the tool's last arguments; checked as it is
//! typed; sent as a call. One key switches between the form and the JSON,
//! each made from the other; another resets to the last sent arguments,
//! then the skeleton, then back to the draft.

use crossterm::event::{KeyCode, KeyEvent};
use ratatui_textarea::{CursorMove, TextArea};
use serde_json::Value;

use crate::mcp::manager::Command;
use crate::tui::argform::{self, ArgForm, Draft, Kind};
use crate::tui::ask::{LineEdit, is_typing};
use crate::tui::keymap::Action;

use super::model::*;
use super::*;

/// The arguments last sent to a tool, as JSON text (`State::last_sent`;
/// `last_args` holds the draft that Esc kept, or what was sent).
pub fn last_sent<'a>(s: &'a State, server: &str, tool: &str) -> Option<&'a str> {
    s.last_sent
        .get(&(server.to_string(), tool.to_string()))
        .map(String::as_str)
}

pub(super) fn editor_key(
    s: &mut State,
    k: KeyEvent,
    action: Option<Action>,
    fx: &mut Vec<Effect>,
) -> bool {
    let Some(e) = s.editor.as_ref() else {
        s.mode = Mode::Normal;
        return true;
    };
    // A character typed into a field (or the JSON) stays a character.
    let types = is_typing(&k) && (!e.in_form || e.form.as_ref().is_ok_and(ArgForm::typing));
    if !types {
        match action {
            Some(Action::Send) => {
                send_call(s, fx);
                return true;
            }
            Some(Action::ExternalEditor) => {
                fx.push(Effect::ExternalEditor(current_text(e)));
                return true;
            }
            Some(Action::Back) => {
                // Keep what was typed for next time.
                if let Some(e) = s.editor.take() {
                    let text = current_text(&e);
                    s.last_args.insert((e.server, e.tool), text);
                }
                s.mode = Mode::Normal;
                return true;
            }
            Some(Action::ToggleJson) => {
                switch_view(s);
                return true;
            }
            Some(Action::ResetArgs) => {
                reset(s);
                return true;
            }
            _ => {}
        }
    }
    if e.in_form {
        form_key(s, k, action)
    } else {
        json_key(s, k, action)
    }
}

fn form_key(s: &mut State, k: KeyEvent, action: Option<Action>) -> bool {
    let ask = s.keymap.ask_action(&k);
    let (clear_key, remove_key) = (
        s.keymap.label(Action::ClearField),
        s.keymap.label(Action::RemoveItem),
    );
    let Some(e) = s.editor.as_mut() else {
        return false;
    };
    let Ok(form) = e.form.as_mut() else {
        e.in_form = false;
        return true;
    };
    let mut said = None;
    let edited = if form.typing() && LineEdit::edits(&k) {
        form.edit(&k)
    } else if ask != Some(Action::Toggle)
        && is_typing(&k)
        && let KeyCode::Char(c) = k.code
    {
        // Inside a form letters are never commands: on a choice they
        // pick the next option starting with them, on a yes/no `y` / `n`.
        // The character itself is read, so this is no keymap action (any
        // letter does it; the help lists it among the typing keys).
        form.jump(c)
    } else {
        let before = form.fields.clone();
        match (action, ask) {
            (Some(Action::ClearField), _) => {
                if form.clear_focused().is_err() {
                    said = Some(format!(
                        "{clear_key} clears a field; a list's items are removed one at a time ({remove_key})"
                    ));
                }
            }
            (Some(Action::SelectAll), _) => {
                form.select_focused();
            }
            (Some(Action::AddItem), _) => {
                said = Some(form.add_item().unwrap_or_else(|e| e));
            }
            (Some(Action::RemoveItem), _) => {
                said = Some(form.remove_item().unwrap_or_else(|e| e));
            }
            (_, Some(Action::Toggle)) => {
                form.toggle();
            }
            (_, Some(Action::Accept)) => {
                if matches!(form.focused().map(|n| &n.kind), Some(Kind::Array { .. })) {
                    said = Some(form.add_item().unwrap_or_else(|e| e));
                } else {
                    form.move_focus(1);
                }
            }
            (Some(Action::Down | Action::NextPane), _) => form.move_focus(1),
            (Some(Action::Up | Action::PrevPane), _) => form.move_focus(-1),
            (Some(Action::PageDown), _) => form.move_focus(5),
            (Some(Action::PageUp), _) => form.move_focus(-5),
            (Some(Action::Home), _) => form.move_focus(isize::MIN / 2),
            (Some(Action::End), _) => form.move_focus(isize::MAX / 2),
            (Some(a @ (Action::Left | Action::Right)), _) => {
                form.cycle(if a == Action::Right { 1 } else { -1 });
            }
            _ => return false,
        }
        form.fields != before
    };
    e.problems = form.problems.clone();
    let clear = edited && ended(e);
    if said.is_some() {
        say(s, said);
    } else if clear {
        s.status = None;
    }
    true
}

/// An edit: the reset round is over, and so is what the editor said.
/// True when the status bar is to be cleared.
fn ended(e: &mut Editor) -> bool {
    e.reset = None;
    std::mem::take(&mut e.said)
}

/// A message of the editor's in the status bar (the next edit clears it).
fn say(s: &mut State, msg: Option<String>) {
    if let Some(e) = s.editor.as_mut() {
        e.said = msg.is_some();
    }
    s.status = msg;
}

fn json_key(s: &mut State, k: KeyEvent, action: Option<Action>) -> bool {
    let Some(e) = s.editor.as_mut() else {
        return false;
    };
    // Tab goes to the next value rather than inserting spaces.
    let command = if is_typing(&k) { None } else { action };
    let edited = match command {
        Some(Action::NextPane) => {
            goto_slot(&mut e.text, true);
            return true;
        }
        Some(Action::PrevPane) => {
            goto_slot(&mut e.text, false);
            return true;
        }
        // Select all: what is typed or pasted next replaces the JSON.
        Some(Action::SelectAll) => {
            e.text.select_all();
            return true;
        }
        // Clear, as one edit (undo brings it back).
        Some(Action::ClearField) => {
            e.text.select_all();
            e.text.delete_char()
        }
        Some(Action::Undo) => e.text.undo(),
        // The rest goes to the text area as the raw key, outside the
        // keymap: its editing keys (characters, arrows, Backspace, Del,
        // Enter…) are text entry, the text area's own.
        _ => e.text.input(k),
    };
    if edited {
        e.problems = problems(&e.text.lines().join("\n"), e.schema.as_ref());
        if ended(e) {
            s.status = None;
        }
    }
    true
}

/// What the editor holds, as JSON text: the form's draft (a field that
/// cannot be read keeps its text), or the raw JSON as typed.
fn current_text(e: &Editor) -> String {
    match &e.form {
        Ok(form) if e.in_form => argform::json_text(&Value::Object(form.draft())),
        _ => e.text.lines().join("\n"),
    }
}

/// A JSON editor on `text`, the cursor where the first value is typed.
fn json_area(text: &str) -> TextArea<'static> {
    let text = argform::escape_invisible(text);
    let mut area = TextArea::new(text.lines().map(str::to_string).collect());
    area.set_tab_length(2);
    first_slot(&mut area);
    area
}

/// Put the cursor where typing makes sense: the first value (selected,
/// so typing replaces it), else inside the first `{`.
fn first_slot(area: &mut TextArea<'static>) {
    match argform::slots(area.lines()).first() {
        Some(&slot) => select(area, slot),
        None => {
            let inside = area
                .lines()
                .iter()
                .enumerate()
                .find_map(|(r, l)| l.chars().position(|c| c == '{').map(|c| (r, c + 1)));
            area.cancel_selection();
            let (r, c) = inside.unwrap_or((0, 0));
            area.move_cursor(CursorMove::Jump(clamp16(r), clamp16(c)));
        }
    }
}

fn clamp16(n: usize) -> u16 {
    n.min(u16::MAX as usize) as u16
}

fn select(area: &mut TextArea<'static>, (row, from, to): (usize, usize, usize)) {
    area.cancel_selection();
    area.move_cursor(CursorMove::Jump(clamp16(row), clamp16(from)));
    if to > from {
        area.start_selection();
        area.move_cursor(CursorMove::Jump(clamp16(row), clamp16(to)));
    }
}

/// Tab / Shift-Tab in the JSON: the next or previous value (wrapping).
fn goto_slot(area: &mut TextArea<'static>, forward: bool) {
    let slots = argform::slots(area.lines());
    if slots.is_empty() {
        return;
    }
    let ratatui_textarea::DataCursor(r, c) = area.cursor();
    // Where the cursor is: a selection counts from its start.
    let pos = area.selection_range().map_or((r, c), |(a, _)| a);
    let n = slots.len();
    let here = slots
        .iter()
        .position(|&(row, from, to)| row == pos.0 && from <= pos.1 && pos.1 <= to);
    let to = match (here, forward) {
        (Some(i), true) => (i + 1) % n,
        (Some(i), false) => (i + n - 1) % n,
        (None, true) => slots
            .iter()
            .position(|&(row, from, _)| (row, from) > pos)
            .unwrap_or(0),
        (None, false) => slots
            .iter()
            .rposition(|&(row, from, _)| (row, from) < pos)
            .unwrap_or(n - 1),
    };
    select(area, slots[to]);
}

/// Parse `text` and show it in the form; `Err` says why it cannot.
fn load_text(form: &mut ArgForm, text: &str) -> Result<(), String> {
    let v: Value = serde_json::from_str(text).map_err(|e| format!("it is not valid JSON ({e})"))?;
    form.load(&v)
}

/// Show `text` in the editor: in the form when it can, else as JSON with
/// a note (`what` names the text: "your last arguments").
fn show_text(e: &mut Editor, text: &str, what: &str) {
    match &mut e.form {
        Ok(form) => match load_text(form, text) {
            Ok(()) => {
                e.in_form = true;
                e.note = None;
                e.text = json_area(text);
            }
            Err(why) => {
                e.in_form = false;
                e.text = json_area(text);
                e.note = Some(format!("{what} do not fit the form: {why}"));
            }
        },
        Err(why) => {
            e.in_form = false;
            e.text = json_area(text);
            e.note = Some(no_form(why));
        }
    }
}

fn no_form(why: &str) -> String {
    format!("no form for this schema: {why}")
}

fn refresh(e: &mut Editor) {
    e.problems = match &e.form {
        Ok(form) if e.in_form => form.problems.clone(),
        _ => problems(&e.text.lines().join("\n"), e.schema.as_ref()),
    };
}

/// The arguments to start from: the form as it opens (required fields
/// and their defaults; optional defaults stay placeholders), or, without
/// a form, the schema's skeleton.
fn skeleton_text(e: &Editor) -> String {
    match &e.form {
        Ok(form) => {
            let mut blank = form.clone();
            blank.reset();
            argform::json_text(&Value::Object(blank.draft()))
        }
        Err(_) => {
            let v = e
                .schema
                .as_ref()
                .map(crate::schema::skeleton)
                .unwrap_or_else(|| serde_json::json!({}));
            argform::json_text(&v)
        }
    }
}

pub(super) fn open_editor(s: &mut State) -> bool {
    let Some((server, tool)) = s.selected_tool() else {
        return false;
    };
    if server.denied(&tool.name) {
        s.status = Some(format!(
            "{} is denied on {}; {} allows it",
            tool.name,
            server.name,
            s.keymap.label(Action::ToggleDeny)
        ));
        return true;
    }
    let key = (server.name.clone(), tool.name.clone());
    let schema = tool.input_schema.clone();
    let form = match &schema {
        Some(sc) => ArgForm::new(sc),
        None => Err("the tool has no inputSchema".into()),
    };
    let mut e = Editor {
        server: key.0.clone(),
        tool: key.1.clone(),
        text: TextArea::default(),
        problems: Vec::new(),
        form,
        in_form: false,
        note: None,
        schema,
        reset: None,
        said: false,
    };
    match s.last_args.get(&key) {
        Some(text) => show_text(&mut e, text, "your last arguments"),
        None => {
            let text = skeleton_text(&e);
            match &e.form {
                Ok(_) => {
                    e.in_form = true;
                    e.text = json_area(&text);
                }
                Err(why) => {
                    e.note = Some(no_form(why));
                    e.text = json_area(&text);
                }
            }
        }
    }
    refresh(&mut e);
    s.editor = Some(e);
    s.mode = Mode::Editor;
    s.focus = Pane::Detail;
    true
}

/// The form to the JSON (made from the form's values), or back (the
/// JSON read into the form, when it parses and the form can show it).
fn switch_view(s: &mut State) {
    let Some(e) = s.editor.as_mut() else { return };
    let status = match &mut e.form {
        Err(why) => Some(format!("{}; edit the JSON", no_form(why))),
        // Always: the JSON is made from what the form holds, a field that
        // cannot be read kept as the text typed (a string), so an invalid
        // form switches too; its problems are listed under the JSON.
        Ok(form) if e.in_form => {
            let text = argform::json_text(&Value::Object(form.draft()));
            let n = form.problems.len();
            e.text = json_area(&text);
            e.in_form = false;
            e.note = None;
            e.reset = None;
            (n > 0).then(|| {
                format!(
                    "the JSON holds the form as it is, with its problem{} (listed under it)",
                    if n == 1 { "" } else { "s" }
                )
            })
        }
        Ok(form) => match load_text(form, &e.text.lines().join("\n")) {
            Ok(()) => {
                e.in_form = true;
                e.note = None;
                e.reset = None;
                None
            }
            Err(why) => Some(format!("staying in JSON: {why}")),
        },
    };
    refresh(e);
    // A switch that worked needs no words (the hint names the way back).
    match status {
        Some(m) => say(s, Some(crate::sanitize::one_line(&m))),
        None if e.said => say(s, None),
        None => {}
    }
}

/// The reset key: the last sent arguments, then the skeleton, then the
/// draft the round started from; the status says which.
fn reset(s: &mut State) {
    let key = s.keymap.label(Action::ResetArgs);
    let Some(e) = s.editor.as_ref() else { return };
    let sent = last_sent(s, &e.server, &e.tool).map(str::to_string);
    let Some(e) = s.editor.as_mut() else { return };
    let (step, draft) = match e.reset.take() {
        None => {
            let draft = match &e.form {
                Ok(form) if e.in_form => Draft::Form(Box::new(form.clone())),
                _ => Draft::Json(e.text.lines().join("\n")),
            };
            (0, draft)
        }
        Some((i, d)) => (i + 1, d),
    };
    // The round, in order: (what, where to).
    enum To {
        Sent(String),
        Skeleton,
        Draft,
    }
    let mut round = Vec::new();
    if let Some(t) = sent {
        round.push(("the last sent arguments", To::Sent(t)));
    }
    round.push(("the skeleton", To::Skeleton));
    round.push(("your draft", To::Draft));
    let step = step % round.len();
    let next = round[(step + 1) % round.len()].0;
    let (what, to) = &round[step];
    match to {
        To::Sent(t) if e.in_form => show_text(e, t, "these arguments"),
        To::Sent(t) => replace_text(&mut e.text, t),
        To::Skeleton => match e.form.as_mut() {
            Ok(form) if e.in_form => form.reset(),
            _ => {
                let t = skeleton_text(e);
                replace_text(&mut e.text, &t);
            }
        },
        To::Draft => match (&draft, e.form.as_mut()) {
            (Draft::Form(f), Ok(form)) if e.in_form => *form = (**f).clone(),
            (Draft::Form(f), _) => {
                let t = argform::json_text(&Value::Object(f.draft()));
                replace_text(&mut e.text, &t);
            }
            (Draft::Json(t), _) if e.in_form => show_text(e, t, "your draft's arguments"),
            (Draft::Json(t), _) => replace_text(&mut e.text, t),
        },
    }
    refresh(e);
    e.reset = Some((step, draft));
    say(s, Some(format!("reset to {what} ({key} again: {next})")));
}

/// Replace the JSON as one edit (the editor's undo takes it back).
fn replace_text(area: &mut TextArea<'static>, text: &str) {
    area.select_all();
    area.insert_str(argform::escape_invisible(text));
    first_slot(area);
}

/// `$EDITOR` came back with this text: into the form when it can, else
/// the JSON (saying why).
pub(super) fn returned(s: &mut State, text: String) -> bool {
    let Some(e) = s.editor.as_mut() else {
        return true;
    };
    let text = text.trim_end();
    // Into the form when it was shown, or when only a note ("your last
    // arguments do not fit the form") kept the JSON: the note goes once
    // the text fits, or says why it still does not. JSON chosen by hand
    // stays JSON.
    if e.in_form || e.note.is_some() {
        show_text(e, text, "the edited arguments");
    } else {
        e.text = json_area(text);
    }
    e.reset = None;
    refresh(e);
    true
}

pub(super) fn send_call(s: &mut State, fx: &mut Vec<Effect>) {
    let toggle = s.keymap.label(Action::ToggleJson);
    let Some(editor) = s.editor.as_mut() else {
        return;
    };
    let (arguments, text) = match &mut editor.form {
        Ok(form) if editor.in_form => {
            let value = form.value();
            if form.blocked() || value.is_err() {
                form.focus_first_problem();
                let n = form.problems.len().max(1);
                let first = form.problems.first().cloned().unwrap_or_default();
                let json = if value.is_ok() {
                    format!("; {toggle} shows the JSON, which sends as it is")
                } else {
                    String::new()
                };
                let msg = crate::sanitize::one_line(&format!(
                    "not sent: {n} problem{} ({first}){json}",
                    if n == 1 { "" } else { "s" }
                ));
                say(s, Some(msg));
                return;
            }
            let m = value.unwrap_or_default();
            let v = Value::Object(m);
            let text = argform::json_text(&v);
            (v, text)
        }
        _ => {
            let text = editor.text.lines().join("\n");
            match serde_json::from_str(&text) {
                Ok(v @ Value::Object(_)) => (v, text),
                _ => {
                    say(s, Some("fix the JSON before sending".into()));
                    return;
                }
            }
        }
    };
    let (server, tool) = (editor.server.clone(), editor.tool.clone());
    s.editor = None;
    start_call(s, server, tool, arguments, text, fx);
}

/// Send a call (from the editor, or again from the history): it runs
/// beside any others, and the result pane shows it.
pub(super) fn start_call(
    s: &mut State,
    server: String,
    tool: String,
    arguments: Value,
    text: String,
    fx: &mut Vec<Effect>,
) {
    s.last_args
        .insert((server.clone(), tool.clone()), text.clone());
    s.last_sent
        .insert((server.clone(), tool.clone()), text.clone());
    let tag = s.next_tag();
    let call = InFlight {
        tag,
        server: server.clone(),
        tool: tool.clone(),
        args: text,
        started: s.clock,
        request_id: None,
        progress: None,
        task: None,
    };
    super::calls::begin(s, call);
    s.mode = Mode::Normal;
    s.focus = Pane::Result;
    s.relayout();
    super::find::search_again(s);
    fx.push(Effect::Manager(Command::Call {
        tag,
        server,
        tool,
        arguments,
    }));
}

/// What is wrong with the arguments text: JSON syntax, then the schema.
pub fn problems(text: &str, schema: Option<&Value>) -> Vec<String> {
    let value: Value = match serde_json::from_str(text) {
        Ok(v) => v,
        Err(e) => return vec![format!("not valid JSON: {e}")],
    };
    if !value.is_object() {
        return vec!["the arguments must be a JSON object".into()];
    }
    match schema {
        None => Vec::new(),
        Some(schema) => match crate::schema::check(schema, &value) {
            Ok(v) => v.into_iter().map(|v| v.to_string()).collect(),
            Err(e) => vec![format!("(not validated: {e})")],
        },
    }
}
