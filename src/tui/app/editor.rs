//! The argument editor: opened on a tool (its last arguments, else a
//! skeleton of its schema), checked as it is typed, sent as a call.

use crossterm::event::KeyEvent;
use ratatui_textarea::TextArea;
use serde_json::Value;

use crate::mcp::manager::Command;
use crate::tui::keymap::Action;

use super::model::*;
use super::*;

pub(super) fn editor_key(
    s: &mut State,
    k: KeyEvent,
    action: Option<Action>,
    fx: &mut Vec<Effect>,
) -> bool {
    match action {
        Some(Action::Send) => {
            send_call(s, fx);
            return true;
        }
        Some(Action::ExternalEditor) => {
            if let Some(e) = &s.editor {
                fx.push(Effect::ExternalEditor(e.text.lines().join("\n")));
            }
            return true;
        }
        Some(Action::Back) => {
            // Keep what was typed for next time.
            if let Some(e) = s.editor.take() {
                s.last_args
                    .insert((e.server, e.tool), e.text.lines().join("\n"));
            }
            s.mode = Mode::Normal;
            return true;
        }
        _ => {}
    }
    let Some(editor) = s.editor.as_mut() else {
        s.mode = Mode::Normal;
        return true;
    };
    if editor.text.input(k) {
        let schema = s
            .servers
            .iter()
            .find(|v| v.name == editor.server)
            .and_then(|v| v.lists.tools.iter().find(|t| t.name == editor.tool))
            .and_then(|t| t.input_schema.clone());
        editor.problems = problems(&editor.text.lines().join("\n"), schema.as_ref());
    }
    true
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
    let text = s.last_args.get(&key).cloned().unwrap_or_else(|| {
        let skeleton = tool
            .input_schema
            .as_ref()
            .map(crate::schema::skeleton)
            .unwrap_or_else(|| serde_json::json!({}));
        serde_json::to_string_pretty(&skeleton).unwrap_or_else(|_| "{}".into())
    });
    let problems = problems(&text, tool.input_schema.as_ref());
    let mut area = TextArea::new(text.lines().map(str::to_string).collect());
    area.set_tab_length(2);
    s.editor = Some(Editor {
        server: key.0,
        tool: key.1,
        text: area,
        problems,
    });
    s.mode = Mode::Editor;
    s.focus = Pane::Detail;
    true
}

pub(super) fn send_call(s: &mut State, fx: &mut Vec<Effect>) {
    let Some(editor) = s.editor.as_ref() else {
        return;
    };
    if s.inflight.is_some() {
        s.status = Some(format!(
            "a call is already in flight; {} cancels it",
            s.keymap.label(Action::Back)
        ));
        return;
    }
    let text = editor.text.lines().join("\n");
    let arguments: Value = match serde_json::from_str(&text) {
        Ok(v @ Value::Object(_)) => v,
        _ => {
            s.status = Some("fix the JSON before sending".into());
            return;
        }
    };
    let (server, tool) = (editor.server.clone(), editor.tool.clone());
    s.last_args.insert((server.clone(), tool.clone()), text);
    let tag = s.next_tag();
    s.inflight = Some(InFlight {
        tag,
        server: server.clone(),
        tool: tool.clone(),
        request_id: None,
        progress: None,
        task: None,
    });
    s.editor = None;
    s.mode = Mode::Normal;
    s.focus = Pane::Result;
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
