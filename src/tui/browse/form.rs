//! The argument form of a view: a template's variables or a prompt's
//! arguments, with the server's suggestions (`completion/complete`).

use crossterm::event::KeyEvent;
use serde_json::{Map, Value, json};

use super::*;
use crate::mcp::manager::Command;
use crate::tui::ask::LineEdit;

/// A template's variables or a prompt's arguments being filled in.
#[derive(Debug, Clone)]
pub struct ArgForm {
    pub server: String,
    pub target: Target,
    pub fields: Vec<Field>,
    pub focus: usize,
    /// The server declares `completions`: suggestions are asked for.
    pub completions: bool,
    pub suggest: Option<Suggest>,
    /// The completion request awaited: its tag and field.
    pub asking: Option<(u64, usize)>,
    /// The field and value asked about last: a request goes only when
    /// they change.
    pub asked: Option<(usize, String)>,
}

impl ArgForm {
    fn text(&self, i: usize) -> String {
        self.fields
            .get(i)
            .and_then(Field::line)
            .map(|l| l.text.clone())
            .unwrap_or_default()
    }

    /// Every field's text, empty ones too.
    pub fn texts(&self) -> Vec<(String, String)> {
        (0..self.fields.len())
            .map(|i| (self.fields[i].key.clone(), self.text(i)))
            .collect()
    }

    /// The filled-in values, or how many fields need attention.
    pub fn content(&self) -> Result<Map<String, Value>, usize> {
        crate::tui::ask::content_of(&self.fields)
    }

    /// A template's URI with the values as they stand (empty ones
    /// expand to nothing), for the live preview.
    pub fn preview(&self) -> Option<Result<String, String>> {
        match &self.target {
            Target::Template { template, .. } => {
                Some(crate::uritemplate::expand(template, &self.texts()))
            }
            Target::Prompt { .. } => None,
        }
    }

    /// The suggestions of the focused field, if any.
    pub fn suggestions(&self) -> Option<&Suggest> {
        self.suggest.as_ref().filter(|g| g.field == self.focus)
    }

    /// Whether keys type into the focused field.
    pub fn typing(&self) -> bool {
        self.fields.get(self.focus).is_some_and(Field::is_text)
    }
}

impl Browse {
    pub(super) fn open_form(
        &mut self,
        server: String,
        target: Target,
        mut fields: Vec<Field>,
        completions: bool,
        cx: &mut Ctx,
    ) {
        if let Some(last) = self.last.get(&(server.clone(), target.key().to_string())) {
            for f in &mut fields {
                if let Some((_, t)) = last.iter().find(|(k, _)| *k == f.key)
                    && let Some(line) = f.line_mut()
                {
                    *line = LineEdit::new(t.clone());
                }
            }
        }
        self.form = Some(ArgForm {
            server,
            target,
            fields,
            focus: 0,
            completions,
            suggest: None,
            asking: None,
            asked: None,
        });
        self.contents_focus = false;
        self.complete(cx);
    }

    /// Close the form, keeping what was typed for next time.
    fn close_form(&mut self) -> Option<ArgForm> {
        let f = self.form.take()?;
        self.last
            .insert((f.server.clone(), f.target.key().to_string()), f.texts());
        Some(f)
    }

    pub(super) fn form_key(&mut self, k: KeyEvent, action: Option<Action>, cx: &mut Ctx) -> bool {
        let Some(f) = self.form.as_mut() else {
            return false;
        };
        // Text entry first: a character is a character (`q` types a q).
        let focus = f.focus;
        if LineEdit::edits(&k)
            && let Some(line) = f.fields.get_mut(focus).and_then(Field::line_mut)
        {
            let before = line.text.clone();
            line.key(&k);
            if line.text != before {
                if let Some(g) = f.suggest.as_mut() {
                    g.at = None;
                }
                self.complete(cx);
            }
            return true;
        }
        let Some(a) = action else { return false };
        match a {
            Action::ClearField => {
                if let Some(f) = self.form.as_mut()
                    && let Some(line) = f.fields.get_mut(focus).and_then(Field::line_mut)
                    && line.clear()
                {
                    if let Some(g) = f.suggest.as_mut() {
                        g.at = None;
                    }
                    self.complete(cx);
                }
            }
            Action::SelectAll => {
                if let Some(line) = self
                    .form
                    .as_mut()
                    .and_then(|f| f.fields.get_mut(focus))
                    .and_then(Field::line_mut)
                {
                    line.select_all();
                }
            }
            Action::Send => self.submit(cx),
            Action::Back => {
                self.close_form();
            }
            Action::Down | Action::Open => self.move_focus(1, cx),
            Action::Up => self.move_focus(-1, cx),
            Action::NextPane => {
                if !self.pick(1) {
                    self.move_focus(1, cx);
                }
            }
            Action::PrevPane => {
                if !self.pick(-1) {
                    self.move_focus(-1, cx);
                }
            }
            Action::Help => cx.go = Go::Help,
            _ => return false,
        }
        true
    }

    fn move_focus(&mut self, by: isize, cx: &mut Ctx) {
        let Some(f) = self.form.as_mut() else {
            return;
        };
        let new = super::step(f.focus, by, f.fields.len());
        if new != f.focus {
            f.focus = new;
            f.suggest = None;
            self.complete(cx);
        }
    }

    /// Tab: put the next (or previous) suggestion in the field. False when
    /// the field has none.
    fn pick(&mut self, by: isize) -> bool {
        let Some(f) = self.form.as_mut() else {
            return false;
        };
        let focus = f.focus;
        let Some(g) = f
            .suggest
            .as_mut()
            .filter(|g| g.field == focus && !g.values.is_empty())
        else {
            return false;
        };
        let n = g.values.len() as isize;
        let at = match g.at {
            None if by > 0 => 0,
            None => n - 1,
            Some(i) => (i as isize + by).rem_euclid(n),
        } as usize;
        g.at = Some(at);
        let value = g.values[at].clone();
        if let Some(line) = f.fields.get_mut(focus).and_then(Field::line_mut) {
            *line = LineEdit::new(value.clone());
        }
        // A pick is no reason to ask again, and an answer still on its way
        // (for what was typed before) would replace the list being cycled.
        f.asked = Some((focus, value));
        f.asking = None;
        true
    }

    /// Ask the server for suggestions for the focused field, if it offers
    /// completions and the field's value changed since the last ask.
    fn complete(&mut self, cx: &mut Ctx) {
        let Some(f) = self.form.as_mut() else {
            return;
        };
        if !f.completions || !f.typing() {
            return;
        }
        let value = f.text(f.focus);
        if f.asked.as_ref() == Some(&(f.focus, value.clone())) {
            return;
        }
        let reference = match &f.target {
            Target::Template { template, .. } => {
                json!({"type": "ref/resource", "uri": template})
            }
            Target::Prompt { name, .. } => json!({"type": "ref/prompt", "name": name}),
        };
        let others: Map<String, Value> = f
            .texts()
            .into_iter()
            .enumerate()
            .filter(|(i, (_, t))| *i != f.focus && !t.is_empty())
            .map(|(_, (k, t))| (k, Value::String(t)))
            .collect();
        let mut params = json!({
            "ref": reference,
            "argument": {"name": f.fields[f.focus].key, "value": value},
        });
        if !others.is_empty() {
            params["context"] = json!({ "arguments": others });
        }
        let tag = cx.tag();
        f.asking = Some((tag, f.focus));
        f.asked = Some((f.focus, value));
        cx.fx.push(Effect::Manager(Command::Request {
            tag,
            server: f.server.clone(),
            method: "completion/complete".into(),
            params,
        }));
    }

    /// Ctrl-S in a form: read the expanded URI, or get the prompt.
    fn submit(&mut self, cx: &mut Ctx) {
        let Some(f) = self.form.as_mut() else {
            return;
        };
        let content = match f.content() {
            Ok(c) => c,
            Err(bad) => {
                if let Some(i) = f.fields.iter().position(|x| x.error().is_some()) {
                    f.focus = i;
                }
                cx.say(format!(
                    "not sent: {bad} field{} need{} attention",
                    if bad == 1 { "" } else { "s" },
                    if bad == 1 { "s" } else { "" }
                ));
                return;
            }
        };
        let uri = match f.preview() {
            Some(Ok(uri)) => Some(uri),
            Some(Err(e)) => {
                cx.say(crate::sanitize::one_line(&e));
                return;
            }
            None => None,
        };
        let Some(f) = self.close_form() else { return };
        // Sent: whatever was said about the form is over.
        cx.status = Some(None);
        match (&f.target, uri) {
            (Target::Template { .. }, Some(uri)) => self.read(&f.server, &uri, false, cx),
            (Target::Prompt { name, .. }, _) => self.get(&f.server, name, content, cx),
            _ => {}
        }
    }
}
