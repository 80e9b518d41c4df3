//! The screens where the person answers a server's request: an
//! elicitation form (MCP 2025-11-25 `requestedSchema`), a URL elicitation,
//! and a sampling request (`sampling/createMessage`) answered by hand.
//!
//! [`Asks`] is a view that owns its state (the queue and the screen of the
//! request at its front): a key goes in, the screen changes, and an answer
//! comes out as `Effect::Manager(Command::AnswerServerRequest)`, with a
//! line for the status bar. Everything a server sent is sanitized when it
//! is drawn.

mod form;
mod screens;

use std::collections::VecDeque;

use crossterm::event::{KeyCode, KeyEvent};
use serde_json::{Value, json};

pub use form::*;
pub use screens::*;

use super::app::{AskView, Effect};
use super::keymap::{Action, Keymap};
use crate::mcp::jsonrpc::RpcError;
use crate::mcp::manager::Command;

/// The model name a hand-written sampling reply carries.
pub const HUMAN_MODEL: &str = "mcpdeck-human";

/// The error a declined sampling request gets.
pub const SAMPLING_DECLINED: &str = "the user declined the sampling request";

/// What a view's update hands back besides its effects.
#[derive(Debug, Default, PartialEq)]
pub struct Step {
    /// The screen changed.
    pub redraw: bool,
    /// A line for the status bar.
    pub status: Option<String>,
}

impl Step {
    fn drawn() -> Step {
        Step {
            redraw: true,
            status: None,
        }
    }

    fn say(status: String) -> Step {
        Step {
            redraw: true,
            status: Some(status),
        }
    }

    fn ignored() -> Step {
        Step::default()
    }
}

/// The server requests waiting for the person, oldest first, and the
/// screen of the first: shown over everything, and every key goes to it.
#[derive(Default)]
pub struct Asks {
    pub queue: VecDeque<AskView>,
    /// The screen of the request at the front (its id, its screen).
    pub screen: Option<(u64, AskScreen)>,
    /// The requests are put aside (the later key): the screen is hidden,
    /// kept as it was, until the requests key brings it back.
    pub aside: bool,
}

impl Asks {
    pub fn len(&self) -> usize {
        self.queue.len()
    }

    pub fn is_empty(&self) -> bool {
        self.queue.is_empty()
    }

    /// Whether a request is shown (then every key goes to it).
    pub fn is_open(&self) -> bool {
        self.screen.is_some() && !self.aside
    }

    /// How many requests wait put aside (none while one is shown).
    pub fn waiting_aside(&self) -> usize {
        if self.aside { self.queue.len() } else { 0 }
    }

    /// A new request; the first is shown at once, a later one waits (the
    /// status says so), and while the requests are put aside every one
    /// waits with them.
    pub fn push(&mut self, ask: AskView, keymap: &Keymap) -> Option<String> {
        let status = if self.aside {
            Some(format!(
                "{} asks ({}): {} waiting · {} answers",
                ask.server,
                ask.method,
                self.queue.len() + 1,
                keymap.label(Action::Requests)
            ))
        } else {
            (!self.queue.is_empty()).then(|| {
                format!(
                    "{} asks too ({}): {} waiting",
                    ask.server,
                    ask.method,
                    self.queue.len() + 1
                )
            })
        };
        self.queue.push_back(ask);
        self.sync();
        status
    }

    /// The later key: the request shown waits, hidden, with the others;
    /// everything else goes on (the calls keep running).
    fn put_aside(&mut self, keymap: &Keymap) -> Step {
        self.aside = true;
        let n = self.queue.len();
        Step::say(format!(
            "{n} request{} waiting · {} answers",
            if n == 1 { "" } else { "s" },
            keymap.label(Action::Requests)
        ))
    }

    /// The requests key: show the requests put aside, as they were left.
    pub fn bring_back(&mut self) -> bool {
        if self.queue.is_empty() {
            return false;
        }
        self.aside = false;
        self.sync();
        true
    }

    /// Keep the screen on the front of the queue.
    fn sync(&mut self) {
        let same =
            matches!((&self.screen, self.queue.front()), (Some((id, _)), Some(a)) if *id == a.id);
        if !same {
            self.screen = self.queue.front().map(|a| (a.id, AskScreen::new(a)));
        }
    }

    /// Answer the request at the front and show the next one.
    fn answer(
        &mut self,
        result: Result<Value, RpcError>,
        fx: &mut Vec<Effect>,
        what: &str,
    ) -> Step {
        let Some(a) = self.queue.pop_front() else {
            return Step::ignored();
        };
        let status = match self.queue.len() {
            0 => format!("{} on {}: {what}", a.method, a.server),
            n => format!("{} on {}: {what}; {n} more waiting", a.method, a.server),
        };
        fx.push(Effect::Manager(Command::AnswerServerRequest {
            id: a.id,
            result,
        }));
        self.sync();
        if self.queue.is_empty() {
            self.aside = false;
        }
        Step::say(status)
    }

    fn elicitation(&self) -> bool {
        self.queue
            .front()
            .is_some_and(|a| a.method.starts_with("elicitation/"))
    }

    /// A key while a request is shown: nothing reaches the panes.
    pub fn key(&mut self, k: KeyEvent, keymap: &Keymap, fx: &mut Vec<Effect>) -> Step {
        let action = keymap.ask_action(&k);
        if action == Some(Action::Later) {
            return self.put_aside(keymap);
        }
        match self.screen.as_ref().map(|(_, screen)| screen) {
            None => Step::ignored(),
            Some(AskScreen::Form(_)) => self.form_key(k, action, keymap, fx),
            Some(AskScreen::Url(_)) => self.url_key(action, fx),
            Some(AskScreen::Sampling(_)) => self.sampling_key(k, action, keymap, fx),
            Some(AskScreen::Other { .. }) => match action {
                Some(Action::Decline) => self.decline_other(fx),
                Some(Action::Back) if self.elicitation() => {
                    self.answer(Ok(action_value("cancel")), fx, "cancelled")
                }
                Some(Action::Back) => self.decline_other(fx),
                _ => Step::ignored(),
            },
        }
    }

    fn decline_other(&mut self, fx: &mut Vec<Effect>) -> Step {
        let result = if self.elicitation() {
            Ok(action_value("decline"))
        } else {
            Err(RpcError::new(
                -32601,
                "mcpdeck does not handle this request",
            ))
        };
        self.answer(result, fx, "declined")
    }

    fn form_key(
        &mut self,
        k: KeyEvent,
        action: Option<Action>,
        keymap: &Keymap,
        fx: &mut Vec<Effect>,
    ) -> Step {
        let Some((_, AskScreen::Form(f))) = self.screen.as_mut() else {
            return Step::ignored();
        };
        // The question "throw away what you typed?": yes (or the same key
        // again) answers; any other key goes back to the form, unchanged.
        if let Some(leave) = f.confirm.take() {
            let again = !is_typing(&k)
                && matches!(
                    (leave, action),
                    (Leave::Decline, Some(Action::Decline)) | (Leave::Cancel, Some(Action::Back))
                );
            if again || keymap.confirm_action(&k) == Some(Action::Confirm) {
                return self.leave_form(leave, fx);
            }
            return Step::say("kept: the form is as you left it".into());
        }
        // Text entry first: in a text field, a character is a character and
        // the editing keys edit.
        if LineEdit::edits(&k)
            && let Some(line) = f.fields.get_mut(f.focus).and_then(Field::line_mut)
        {
            line.key(&k);
            return Step::drawn();
        }
        // Nor is a letter ever a command elsewhere in the form (`d` once
        // declined from a choice, and what was typed next reached the
        // main screen): on a choice it picks the next option starting with
        // it, on a yes/no `y` or `n`. Declining is Ctrl-D or the button.
        // The character itself is read, so this is no keymap action (any
        // letter does it; the help lists it among the typing keys).
        if action != Some(Action::Toggle)
            && is_typing(&k)
            && let KeyCode::Char(c) = k.code
        {
            let moved = f.fields.get_mut(f.focus).is_some_and(|x| x.jump(c));
            return if moved {
                Step::drawn()
            } else {
                Step::ignored()
            };
        }
        let Some(a) = action else {
            return Step::ignored();
        };
        let fields = f.fields.len();
        match a {
            Action::Send => return self.ask_leave(Leave::Accept, fx),
            Action::Decline => return self.ask_leave(Leave::Decline, fx),
            Action::Back => return self.ask_leave(Leave::Cancel, fx),
            Action::Accept | Action::Toggle if f.button().is_some() => {
                let b = f.button().unwrap_or(Leave::Accept);
                return self.ask_leave(b, fx);
            }
            Action::Down | Action::NextPane | Action::Accept => f.move_focus(1),
            Action::Up | Action::PrevPane => f.move_focus(-1),
            Action::PageDown => f.move_focus(5),
            Action::PageUp => f.move_focus(-5),
            Action::Home => f.focus = 0,
            Action::End => f.move_focus(isize::MAX / 2),
            // Between the buttons, ← and → move.
            Action::Left | Action::Right if f.button().is_some() => {
                let by = if a == Action::Right { 1 } else { -1 };
                f.focus = (f.focus as isize + by)
                    .clamp(fields as isize, (fields + BUTTONS.len()) as isize - 1)
                    as usize;
            }
            Action::Toggle => {
                if let Some(field) = f.fields.get_mut(f.focus) {
                    field.toggle();
                }
            }
            Action::Left | Action::Right => {
                if let Some(field) = f.fields.get_mut(f.focus) {
                    field.cycle(if a == Action::Right { 1 } else { -1 });
                }
            }
            Action::ClearField => {
                if let Some(field) = f.fields.get_mut(f.focus) {
                    field.clear();
                }
            }
            Action::SelectAll => {
                if let Some(line) = f.fields.get_mut(f.focus).and_then(Field::line_mut) {
                    line.select_all();
                }
            }
            _ => return Step::ignored(),
        }
        Step::drawn()
    }

    /// A way out of the form: accept (when it is valid), or decline or
    /// cancel, asking first when that would throw typed answers away.
    fn ask_leave(&mut self, leave: Leave, fx: &mut Vec<Effect>) -> Step {
        let Some((_, AskScreen::Form(f))) = self.screen.as_mut() else {
            return Step::ignored();
        };
        if leave != Leave::Accept && f.changed() {
            f.confirm = Some(leave);
            return Step::drawn();
        }
        self.leave_form(leave, fx)
    }

    fn leave_form(&mut self, leave: Leave, fx: &mut Vec<Effect>) -> Step {
        let Some((_, AskScreen::Form(f))) = self.screen.as_mut() else {
            return Step::ignored();
        };
        match leave {
            Leave::Decline => self.answer(Ok(action_value("decline")), fx, "declined"),
            Leave::Cancel => self.answer(Ok(action_value("cancel")), fx, "cancelled"),
            Leave::Accept => match f.content() {
                Ok(content) => self.answer(
                    Ok(json!({ "action": "accept", "content": content })),
                    fx,
                    "accepted",
                ),
                Err(bad) => {
                    // Go to the first field that needs attention.
                    if let Some(i) = f.fields.iter().position(|x| x.error().is_some()) {
                        f.focus = i;
                    }
                    Step::say(format!(
                        "not sent: {bad} field{} need{} attention",
                        if bad == 1 { "" } else { "s" },
                        if bad == 1 { "s" } else { "" }
                    ))
                }
            },
        }
    }

    fn url_key(&mut self, action: Option<Action>, fx: &mut Vec<Effect>) -> Step {
        let Some((_, AskScreen::Url(u))) = self.screen.as_ref() else {
            return Step::ignored();
        };
        match action {
            Some(Action::Accept | Action::Send) => {
                self.answer(Ok(action_value("accept")), fx, "accepted (done)")
            }
            Some(Action::Decline) => self.answer(Ok(action_value("decline")), fx, "declined"),
            Some(Action::Back) => self.answer(Ok(action_value("cancel")), fx, "cancelled"),
            Some(Action::OpenUrl) => match u.openable() {
                Some(url) => {
                    let url = url.to_string();
                    let status = format!(
                        "opening {} in the browser…",
                        crate::sanitize::one_line(&url)
                    );
                    fx.push(Effect::OpenUrl(url));
                    Step::say(status)
                }
                None => Step::say(
                    "only http(s) URLs are opened; copy it instead if you trust it".into(),
                ),
            },
            Some(Action::Copy) => {
                let text = u
                    .parsed
                    .as_ref()
                    .map(url::Url::to_string)
                    .unwrap_or_else(|| crate::sanitize::strip(&u.url).into_owned());
                Step::say(super::app::copy_effect(text, fx))
            }
            _ => Step::ignored(),
        }
    }

    fn sampling_key(
        &mut self,
        k: KeyEvent,
        action: Option<Action>,
        keymap: &Keymap,
        fx: &mut Vec<Effect>,
    ) -> Step {
        let Some((_, AskScreen::Sampling(x))) = self.screen.as_mut() else {
            return Step::ignored();
        };
        let declined = || Err(RpcError::new(-1, SAMPLING_DECLINED));
        // "Throw away your reply?": yes, or the same key again, declines.
        if x.confirm {
            x.confirm = false;
            let again = !is_typing(&k) && matches!(action, Some(Action::Decline | Action::Back));
            if again || keymap.confirm_action(&k) == Some(Action::Confirm) {
                return self.answer(declined(), fx, "declined");
            }
            return Step::say("kept: your reply is as you left it".into());
        }
        let leaving = match action {
            Some(Action::Back) => true,
            Some(Action::Decline) => !(x.in_reply && is_typing(&k)),
            _ => false,
        };
        if leaving && !x.reply_text().trim().is_empty() {
            x.confirm = true;
            return Step::drawn();
        }
        // The request scrolls from anywhere with the page keys.
        let rows = x.request.len();
        match action {
            Some(Action::Send) => {
                let text = x.reply_text();
                if text.trim().is_empty() {
                    return Step::say("type a reply first (or decline)".into());
                }
                let result = json!({
                    "role": "assistant",
                    "content": {"type": "text", "text": text},
                    "model": HUMAN_MODEL,
                    "stopReason": "endTurn",
                });
                return self.answer(Ok(result), fx, "reply sent");
            }
            Some(Action::Back) => return self.answer(declined(), fx, "declined"),
            Some(Action::Decline) if !(x.in_reply && is_typing(&k)) => {
                return self.answer(declined(), fx, "declined");
            }
            Some(Action::NextPane | Action::PrevPane) => {
                x.in_reply = !x.in_reply;
                return Step::drawn();
            }
            Some(Action::PageUp) => {
                x.scroll = x.scroll.saturating_sub(5);
                return Step::drawn();
            }
            Some(Action::PageDown) => {
                x.scroll = (x.scroll + 5).min(rows.saturating_sub(1));
                return Step::drawn();
            }
            _ => {}
        }
        // In the reply, the rest goes to the text area as the raw key,
        // outside the keymap: its editing keys are text entry.
        if x.in_reply {
            return Step {
                redraw: x.reply.input(k),
                status: None,
            };
        }
        match action {
            Some(Action::Up) => x.scroll = x.scroll.saturating_sub(1),
            Some(Action::Down) => x.scroll = (x.scroll + 1).min(rows.saturating_sub(1)),
            Some(Action::Home) => x.scroll = 0,
            Some(Action::End) => x.scroll = rows.saturating_sub(1),
            Some(Action::Accept) => x.in_reply = true,
            _ => return Step::ignored(),
        }
        Step::drawn()
    }

    /// Drop the requests of a call that ended (cancelled, most often):
    /// an elicitation is answered `cancel`, anything else with an error,
    /// so the server and the manager forget them too.
    pub fn drop_call(&mut self, tag: u64, fx: &mut Vec<Effect>) -> Step {
        let dropped = self.drop_where(
            |a| a.call == Some(tag),
            |a| {
                if a.method.starts_with("elicitation/") {
                    Ok(action_value("cancel"))
                } else {
                    Err(RpcError::new(-32603, "the call it was for ended"))
                }
            },
            fx,
        );
        match dropped {
            0 => Step::ignored(),
            n => Step::say(format!(
                "the call ended: its {n} waiting request{} cancelled",
                if n == 1 { "" } else { "s" }
            )),
        }
    }

    /// Drop the request a server gave up (`notifications/cancelled` naming
    /// its own id for it). It is answered with an error, so the manager
    /// forgets it; the session sends the server nothing for it.
    pub fn drop_given_up(&mut self, server: &str, theirs: &Value, fx: &mut Vec<Effect>) -> Step {
        let dropped = self.drop_where(
            |a| a.server == server && a.request_id.as_ref() == Some(theirs),
            |_| Err(RpcError::new(-32603, "the server cancelled its request")),
            fx,
        );
        match dropped {
            0 => Step::ignored(),
            _ => Step::say(format!(
                "{server} gave up its request: it no longer waits for you"
            )),
        }
    }

    /// Drop the requests of a server that is no longer connected. Each is
    /// answered with an error, so the manager forgets it too.
    pub fn drop_server(&mut self, server: &str, fx: &mut Vec<Effect>) -> Step {
        let dropped = self.drop_where(
            |a| a.server == server,
            |_| Err(RpcError::new(-32603, "the server disconnected")),
            fx,
        );
        match dropped {
            0 => Step::ignored(),
            n => Step::say(format!(
                "{server} is no longer connected: {n} request{} dropped",
                if n == 1 { "" } else { "s" }
            )),
        }
    }

    /// Answer and drop the requests `which` picks, with `answer`; how many.
    fn drop_where(
        &mut self,
        which: impl Fn(&AskView) -> bool,
        answer: impl Fn(&AskView) -> Result<Value, RpcError>,
        fx: &mut Vec<Effect>,
    ) -> usize {
        let before = self.queue.len();
        let mut kept = VecDeque::new();
        for a in self.queue.drain(..) {
            if which(&a) {
                fx.push(Effect::Manager(Command::AnswerServerRequest {
                    id: a.id,
                    result: answer(&a),
                }));
            } else {
                kept.push_back(a);
            }
        }
        self.queue = kept;
        let dropped = before - self.queue.len();
        if dropped > 0 {
            self.sync();
            if self.queue.is_empty() {
                self.aside = false;
            }
        }
        dropped
    }
}

fn action_value(action: &str) -> Value {
    json!({ "action": action })
}

#[cfg(test)]
mod tests {
    use super::*;
    // Raw keys: the tests type into a `LineEdit`, whose keys are text
    // entry (outside the keymap, see `LineEdit::key`).
    use crossterm::event::{KeyCode, KeyModifiers};

    #[test]
    fn a_json_field_must_have_the_schema_type() {
        let mut f = Field::new("tags", &serde_json::json!({"type": "array"}), true);
        if let Some(l) = f.line_mut() {
            l.text = "5".into();
        }
        assert_eq!(f.value(), Err("must be JSON of type array".to_string()));
        if let Some(l) = f.line_mut() {
            l.text = "[1, 2]".into();
        }
        assert_eq!(f.value(), Ok(Some(serde_json::json!([1, 2]))));
    }

    #[test]
    fn formats_are_checked_as_the_spec_names_them() {
        for ok in ["a@b.co", "first.last+tag@example.org"] {
            assert!(is_email(ok), "{ok}");
        }
        for bad in ["", "a@", "@b.co", "a@b", "a b@c.de", "a@.com", "a@b.com."] {
            assert!(!is_email(bad), "{bad}");
        }
        for ok in ["2024-02-29", "1999-12-31"] {
            assert!(is_date(ok), "{ok}");
        }
        for bad in [
            "2023-02-29",
            "2024-13-01",
            "2024-1-01",
            "24-01-01",
            "2024-01-32",
            "x",
        ] {
            assert!(!is_date(bad), "{bad}");
        }
        for ok in [
            "2025-11-25T10:30:00Z",
            "2025-11-25t10:30:00.123+01:00",
            "2025-11-25T23:59:60-05:30",
        ] {
            assert!(is_date_time(ok), "{ok}");
        }
        for bad in [
            "2025-11-25",
            "2025-11-25T10:30Z",
            "2025-11-25T24:00:00Z",
            "2025-11-25T10:30:00",
            "2025-11-25T10:30:00.Z",
            "2025-11-25T10:30:00+1:00",
        ] {
            assert!(!is_date_time(bad), "{bad}");
        }
        assert!(check_format("uri", "https://example.com/x").is_ok());
        assert!(check_format("uri", "not a uri").is_err());
        assert!(
            check_format("color", "anything").is_ok(),
            "unknown formats pass"
        );
    }

    #[test]
    fn fields_follow_the_schema() {
        let f = Field::new("n", &json!({"type": "number", "default": 2}), false);
        assert_eq!(f.value(), Ok(Some(json!(2))));
        let f = Field::new("n", &json!({"type": ["integer", "null"]}), true);
        assert_eq!(f.value(), Err("required".into()));
        // An optional choice cycles through "none"; a required one does not.
        let mut f = Field::new("c", &json!({"type": "string", "enum": ["a", "b"]}), false);
        assert_eq!(f.value(), Ok(None));
        f.cycle(-1);
        assert_eq!(f.value(), Ok(Some(json!("b"))));
        f.cycle(1);
        assert_eq!(f.value(), Ok(None));
        let mut f = Field::new("c", &json!({"type": "string", "enum": ["a", "b"]}), true);
        f.cycle(1);
        assert_eq!(f.value(), Ok(Some(json!("a"))));
        // An optional yes/no without a default can go back to no answer.
        let mut f = Field::new("b", &json!({"type": "boolean"}), false);
        let seen: Vec<_> = (0..3)
            .map(|_| {
                f.toggle();
                f.value().unwrap()
            })
            .collect();
        assert_eq!(seen, vec![Some(json!(true)), Some(json!(false)), None]);
        // Nested objects are not in the spec: typed as JSON.
        let f = Field::new("o", &json!({"type": "object", "default": {"k": 1}}), false);
        assert!(f.is_text());
        assert_eq!(f.value(), Ok(Some(json!({"k": 1}))));
        // Typed text: the cursor moves by characters, not bytes.
        let mut l = LineEdit::new("né".into());
        let k = |c| KeyEvent::new(c, KeyModifiers::NONE);
        l.key(&k(KeyCode::Left));
        l.key(&k(KeyCode::Char('x')));
        l.key(&k(KeyCode::End));
        l.key(&k(KeyCode::Backspace));
        assert_eq!(l.text, "nx");
    }

    #[test]
    fn a_prefilled_default_is_selected_and_replaced_by_the_first_key() {
        let k = |c| KeyEvent::new(c, KeyModifiers::NONE);
        let mut f = Field::new("n", &json!({"type": "number", "default": 42}), true);
        for c in "4.5".chars() {
            f.line_mut().map(|l| l.key(&k(KeyCode::Char(c))));
        }
        assert_eq!(f.value(), Ok(Some(json!(4.5))), "not 424.5");
        // Backspace clears a selected default; → keeps it, the cursor at
        // its end; ← puts it at the start.
        let mut l = LineEdit::prefilled("hello".into());
        assert!(l.selected);
        l.key(&k(KeyCode::Backspace));
        assert_eq!((l.text.as_str(), l.selected), ("", false));
        let mut l = LineEdit::prefilled("hello".into());
        l.key(&k(KeyCode::Right));
        l.key(&k(KeyCode::Char('!')));
        assert_eq!(l.text, "hello!");
        let mut l = LineEdit::prefilled("hello".into());
        l.key(&k(KeyCode::Home));
        l.key(&k(KeyCode::Char('>')));
        assert_eq!(l.text, ">hello");
        // Select-all again, and clear.
        assert!(l.select_all());
        l.key(&k(KeyCode::Char('x')));
        assert_eq!(l.text, "x");
        assert!(l.clear() && l.text.is_empty() && !l.clear());
        assert!(!LineEdit::prefilled(String::new()).selected);
    }

    #[test]
    fn letters_pick_choices_and_the_form_knows_what_was_typed() {
        let mut f = Form::new(&form_params());
        assert!(!f.changed(), "the defaults are not typed answers");
        let level = 1;
        assert!(f.fields[level].jump('e'));
        assert_eq!(f.fields[level].value(), Ok(Some(json!("error"))));
        assert!(f.fields[level].jump('e'));
        assert_eq!(f.fields[level].value(), Ok(Some(json!("emergency"))));
        assert!(!f.fields[level].jump('x'), "no choice starts with x");
        assert!(f.changed());
        // Back as it opened: nothing typed.
        f.fields[level].clear();
        assert!(!f.changed());
        // Multiple choice: a letter moves the cursor to the option; a
        // yes/no takes y and n.
        assert!(f.fields[2].jump('c'));
        assert!(matches!(f.fields[2].input, Input::Many { at: 2, .. }));
        assert!(f.fields[3].jump('n'));
        assert_eq!(f.fields[3].value(), Ok(Some(json!(false))));
        assert!(f.fields[3].clear());
        assert_eq!(f.fields[3].value(), Ok(None));
        // Tab goes on past the fields to the buttons, and stops there.
        f.focus = 0;
        f.move_focus(4);
        assert_eq!(f.button(), Some(Leave::Accept));
        f.move_focus(10);
        assert_eq!(f.button(), Some(Leave::Cancel));
        assert!(f.focused().is_none());
    }

    fn form_params() -> Value {
        json!({"message": "m", "requestedSchema": {"type": "object", "properties": {
            "name": {"type": "string", "default": "Ada"},
            "level": {"type": "string", "enum": ["debug", "info", "error", "emergency"]},
            "tags": {"type": "array", "items": {"enum": ["a", "b", "c"]}},
            "on": {"type": "boolean", "default": true}}}})
    }

    #[test]
    fn bounds_read_as_symbols_and_zod_extremes_are_none() {
        let zod = 9007199254740991.0;
        assert_eq!(bounds(Some(1.0), Some(zod), false).as_deref(), Some("≥ 1"));
        assert_eq!(
            bounds(Some(-zod), Some(10.0), false).as_deref(),
            Some("≤ 10")
        );
        assert_eq!(
            bounds(Some(1.0), Some(10.0), false).as_deref(),
            Some("1 to 10")
        );
        assert_eq!(bounds(Some(-zod), Some(zod), false), None);
        assert_eq!(
            bounds(Some(i64::MIN as f64), Some(u64::MAX as f64), false),
            None
        );
        assert_eq!(bounds(Some(2.0), None, true).as_deref(), Some("at least 2"));
        assert_eq!(
            bounds_ex(Some((0.0, true)), Some((1.0, false)), false).as_deref(),
            Some("> 0, ≤ 1")
        );
    }
}
