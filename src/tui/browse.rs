//! The resources and prompts views of a server: a filterable list, an
//! argument form (a template's variables, a prompt's arguments) with
//! suggestions from the server's `completion/complete`, and what was read
//! (`resources/read`) or got (`prompts/get`); resource subscriptions.
//!
//! Plain data and pure transitions, like the rest of `app`: keys and manager
//! events go in, `Command::Request`, `Subscribe` and `Unsubscribe` come out
//! as effects. Every answer is matched by its tag: the answer to a request
//! that was replaced since (a completion for text typed over, a read the
//! person moved on from) is dropped.

use std::collections::{BTreeMap, BTreeSet, HashMap};

use crossterm::event::{KeyCode, KeyEvent};
use serde_json::{Map, Value, json};

use super::app::{Effect, Mode, ServerView, State};
use super::ask::{Field, LineEdit, is_typing};
use super::keymap::Action;
use super::result::Prepared;
use crate::mcp::manager::{CallError, Command, ServerStatus};

/// The most suggestions kept from one completion answer (the spec caps
/// them at 100; a hostile server may send more).
const MAX_SUGGESTIONS: usize = 100;

/// Which of the two views.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Kind {
    Resources,
    Prompts,
}

impl Kind {
    pub fn mode(self) -> Mode {
        match self {
            Kind::Resources => Mode::Resources,
            Kind::Prompts => Mode::Prompts,
        }
    }

    pub fn of_mode(mode: Mode) -> Option<Kind> {
        match mode {
            Mode::Resources => Some(Kind::Resources),
            Mode::Prompts => Some(Kind::Prompts),
            _ => None,
        }
    }
}

/// One row of a view: an index into the server's lists.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Entry {
    Resource(usize),
    Template(usize),
    Prompt(usize),
}

/// A server's resource subscriptions, as the UI knows them.
#[derive(Debug, Clone, Default, PartialEq)]
pub struct Subs {
    /// The URIs subscribed to.
    pub on: BTreeSet<String>,
    /// Asked, not answered yet: the URI and whether it is a subscribe.
    pub asking: BTreeMap<String, bool>,
    /// Subscribed URIs the server said were updated since they were read.
    pub updated: BTreeSet<String>,
}

/// What a request of the views is for.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum What {
    Read { uri: String },
    Prompt { name: String },
}

impl What {
    pub fn label(&self) -> &str {
        match self {
            What::Read { uri } => uri,
            What::Prompt { name } => name,
        }
    }

    pub fn verb(&self) -> &'static str {
        match self {
            What::Read { .. } => "reading",
            What::Prompt { .. } => "getting",
        }
    }
}

/// A read or get in flight.
#[derive(Debug, Clone)]
pub struct Pending {
    pub tag: u64,
    pub server: String,
    pub what: What,
    /// Read again after an update notification (the scroll stays).
    pub refresh: bool,
}

/// What was read or got, prepared for display.
#[derive(Debug, Clone)]
pub struct Shown {
    pub server: String,
    pub what: What,
    pub result: Result<Value, CallError>,
    pub lines: Prepared,
    /// Blobs, images and audio: a safe file name and the base64 data.
    pub media: Vec<(String, String)>,
    /// How many times it was read again after an update.
    pub updates: usize,
}

/// What a form is for.
#[derive(Debug, Clone, PartialEq)]
pub enum Target {
    Template {
        template: String,
        name: String,
    },
    Prompt {
        name: String,
        description: Option<String>,
    },
}

impl Target {
    /// The template or the prompt's name: the key of the values kept.
    pub fn key(&self) -> &str {
        match self {
            Target::Template { template, .. } => template,
            Target::Prompt { name, .. } => name,
        }
    }
}

/// The server's suggestions for one field.
#[derive(Debug, Clone, PartialEq)]
pub struct Suggest {
    pub field: usize,
    pub values: Vec<String>,
    pub total: Option<u64>,
    pub has_more: bool,
    /// The suggestion picked last (Tab), if any.
    pub at: Option<usize>,
    /// Why there are none: the request failed.
    pub error: Option<String>,
}

impl Suggest {
    /// How many more the server has than are shown.
    pub fn more(&self) -> Option<String> {
        match self.total {
            Some(t) if t as usize > self.values.len() => {
                Some(format!("{} more", t as usize - self.values.len()))
            }
            _ if self.has_more => Some("more".into()),
            _ => None,
        }
    }
}

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
        super::ask::content_of(&self.fields)
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

/// The state of one view.
#[derive(Debug, Clone, Default)]
pub struct Browse {
    /// The server the view shows.
    pub server: String,
    pub filter: String,
    /// Typing the filter.
    pub filtering: bool,
    /// Index into the filtered entries.
    pub sel: usize,
    /// The keys scroll what was read rather than move in the list.
    pub contents_focus: bool,
    pub scroll: usize,
    pub form: Option<ArgForm>,
    pub pending: Option<Pending>,
    pub shown: Option<Shown>,
    /// What was typed in each form, to reopen it so: (server, template
    /// or prompt) → the fields' texts.
    pub last: HashMap<(String, String), Vec<(String, String)>>,
}

fn view(s: &State, kind: Kind) -> &Browse {
    match kind {
        Kind::Resources => &s.resources,
        Kind::Prompts => &s.prompts,
    }
}

fn view_mut(s: &mut State, kind: Kind) -> &mut Browse {
    match kind {
        Kind::Resources => &mut s.resources,
        Kind::Prompts => &mut s.prompts,
    }
}

fn text<'a>(v: &'a Value, key: &str) -> Option<&'a str> {
    v.get(key).and_then(Value::as_str)
}

/// The server a view shows.
pub fn server_of(s: &State, kind: Kind) -> Option<&ServerView> {
    let name = &view(s, kind).server;
    s.servers.iter().find(|v| &v.name == name)
}

/// Whether the server declares `resources.subscribe`.
pub fn can_subscribe(v: &ServerView) -> bool {
    v.negotiated.as_ref().is_some_and(|n| {
        n.capabilities
            .get("resources")
            .and_then(|r| r.get("subscribe"))
            .and_then(Value::as_bool)
            == Some(true)
    })
}

/// The rows of a view after its filter.
pub fn entries(s: &State, kind: Kind) -> Vec<Entry> {
    let Some(v) = server_of(s, kind) else {
        return Vec::new();
    };
    let needle = view(s, kind).filter.to_lowercase();
    let keep = |x: &Value, keys: &[&str]| {
        needle.is_empty()
            || keys
                .iter()
                .any(|k| text(x, k).is_some_and(|t| t.to_lowercase().contains(&needle)))
    };
    let lists = &v.lists;
    match kind {
        Kind::Resources => {
            let fields = ["name", "title", "uri", "description", "mimeType"];
            let tfields = ["name", "title", "uriTemplate", "description", "mimeType"];
            let resources = lists
                .resources
                .iter()
                .enumerate()
                .filter(|(_, r)| keep(r, &fields))
                .map(|(i, _)| Entry::Resource(i));
            let templates = lists
                .templates
                .iter()
                .enumerate()
                .filter(|(_, t)| keep(t, &tfields))
                .map(|(i, _)| Entry::Template(i));
            resources.chain(templates).collect()
        }
        Kind::Prompts => lists
            .prompts
            .iter()
            .enumerate()
            .filter(|(_, p)| keep(p, &["name", "title", "description"]))
            .map(|(i, _)| Entry::Prompt(i))
            .collect(),
    }
}

/// The JSON of an entry.
pub fn entry_value(v: &ServerView, e: Entry) -> Option<&Value> {
    match e {
        Entry::Resource(i) => v.lists.resources.get(i),
        Entry::Template(i) => v.lists.templates.get(i),
        Entry::Prompt(i) => v.lists.prompts.get(i),
    }
}

/// A prompt's arguments: (name, title, description, required).
pub fn prompt_args(p: &Value) -> Vec<(String, Option<String>, Option<String>, bool)> {
    p.get("arguments")
        .and_then(Value::as_array)
        .map(|args| {
            args.iter()
                .filter_map(|a| {
                    let name = text(a, "name")?.to_string();
                    Some((
                        name,
                        text(a, "title").map(str::to_string),
                        text(a, "description").map(str::to_string),
                        a.get("required").and_then(Value::as_bool) == Some(true),
                    ))
                })
                .collect()
        })
        .unwrap_or_default()
}

/// Open a view on the selected server (its state is kept while the
/// server stays the same).
pub fn open(s: &mut State, kind: Kind) {
    let server = s
        .selected_server()
        .map(|v| v.name.clone())
        .unwrap_or_default();
    let b = view_mut(s, kind);
    if b.server != server {
        let last = std::mem::take(&mut b.last);
        *b = Browse {
            server,
            last,
            ..Browse::default()
        };
    }
    b.filtering = false;
    s.mode = kind.mode();
}

/// A key in a view.
pub fn key(
    s: &mut State,
    kind: Kind,
    k: KeyEvent,
    action: Option<Action>,
    fx: &mut Vec<Effect>,
) -> bool {
    if view(s, kind).filtering {
        return filter_key(s, kind, k, action);
    }
    if view(s, kind).form.is_some() {
        return form_key(s, kind, k, action, fx);
    }
    match action {
        Some(a) => list_action(s, kind, a, fx),
        None => false,
    }
}

fn filter_key(s: &mut State, kind: Kind, k: KeyEvent, action: Option<Action>) -> bool {
    let b = view_mut(s, kind);
    match k.code {
        KeyCode::Esc => {
            b.filter.clear();
            b.filtering = false;
        }
        KeyCode::Enter => b.filtering = false,
        KeyCode::Backspace => {
            b.filter.pop();
        }
        KeyCode::Char(c) if is_typing(&k) => b.filter.push(c),
        KeyCode::Up | KeyCode::Down | KeyCode::PageUp | KeyCode::PageDown => {
            return action.is_some_and(|a| move_in(s, kind, a));
        }
        _ => return false,
    }
    b.sel = 0;
    true
}

fn list_action(s: &mut State, kind: Kind, a: Action, fx: &mut Vec<Effect>) -> bool {
    match a {
        Action::Up
        | Action::Down
        | Action::PageUp
        | Action::PageDown
        | Action::Home
        | Action::End => move_in(s, kind, a),
        Action::NextPane | Action::PrevPane | Action::Left | Action::Right => {
            let b = view_mut(s, kind);
            b.contents_focus = match a {
                Action::Left => false,
                Action::Right => b.shown.is_some(),
                _ => !b.contents_focus && b.shown.is_some(),
            };
            true
        }
        Action::Open | Action::Send => enter(s, kind, fx),
        Action::Filter => {
            let b = view_mut(s, kind);
            b.filtering = true;
            b.contents_focus = false;
            true
        }
        Action::Subscribe => toggle_subscription(s, kind, fx),
        Action::Save => save(s, kind, fx),
        Action::Copy => copy(s, kind, fx),
        Action::Back => back(s, kind),
        Action::Quit => {
            s.mode = Mode::Normal;
            true
        }
        Action::Resources | Action::Prompts => {
            let other = if a == Action::Resources {
                Kind::Resources
            } else {
                Kind::Prompts
            };
            if other == kind {
                s.mode = Mode::Normal;
            } else {
                open(s, other);
            }
            true
        }
        Action::Help => {
            s.help_back = Some(kind.mode());
            s.mode = Mode::Help;
            true
        }
        _ => false,
    }
}

/// The rows the contents pane shows on this screen.
fn contents_height(s: &State, kind: Kind) -> usize {
    let main = s.areas.main;
    let (_, bottom) = super::ui::browse::areas(main, entries(s, kind).len());
    bottom.height.saturating_sub(2) as usize
}

fn step(value: usize, by: isize, len: usize) -> usize {
    if len == 0 {
        return 0;
    }
    (value as isize)
        .saturating_add(by)
        .clamp(0, len as isize - 1) as usize
}

fn move_in(s: &mut State, kind: Kind, a: Action) -> bool {
    let by = match a {
        Action::Up => -1,
        Action::Down => 1,
        Action::PageUp => -10,
        Action::PageDown => 10,
        Action::Home => isize::MIN / 2,
        Action::End => isize::MAX / 2,
        _ => return false,
    };
    if view(s, kind).contents_focus {
        let height = contents_height(s, kind).max(1);
        let b = view_mut(s, kind);
        let n = b.shown.as_ref().map_or(0, |x| x.lines.len());
        // The last page, not the last line alone, is as far as it goes.
        let last = n.saturating_sub(height) + 1;
        b.scroll = step(b.scroll, by, last);
        return true;
    }
    let n = entries(s, kind).len();
    let b = view_mut(s, kind);
    let new = step(b.sel.min(n.saturating_sub(1)), by, n);
    let changed = new != b.sel;
    b.sel = new;
    changed
}

/// Esc: out of the contents, stop waiting, clear the filter, leave.
fn back(s: &mut State, kind: Kind) -> bool {
    let b = view_mut(s, kind);
    if b.contents_focus {
        b.contents_focus = false;
    } else if let Some(p) = b.pending.take() {
        s.status = Some(format!(
            "stopped waiting for {}; its answer will be dropped",
            crate::sanitize::one_line(p.what.label())
        ));
    } else if !b.filter.is_empty() {
        b.filter.clear();
        b.sel = 0;
    } else {
        s.mode = Mode::Normal;
    }
    true
}

/// The selected entry and its server, when the server can be asked.
fn selected(s: &mut State, kind: Kind) -> Option<(Entry, &ServerView)> {
    let list = entries(s, kind);
    let sel = view(s, kind).sel.min(list.len().saturating_sub(1));
    let Some(e) = list.get(sel).copied() else {
        s.status = Some(match kind {
            Kind::Resources => "no resource selected".into(),
            Kind::Prompts => "no prompt selected".into(),
        });
        return None;
    };
    let v = server_of(s, kind)?;
    if v.status != ServerStatus::Connected {
        let note = format!("{} is {}; connect it first", v.name, v.status.label());
        s.status = Some(note);
        return None;
    }
    let v = server_of(s, kind)?;
    Some((e, v))
}

/// Enter on an entry: read a resource, open a template's or a prompt's
/// form (a prompt without arguments is got at once).
fn enter(s: &mut State, kind: Kind, fx: &mut Vec<Effect>) -> bool {
    let Some((e, v)) = selected(s, kind) else {
        return true;
    };
    let server = v.name.clone();
    let completions = v
        .negotiated
        .as_ref()
        .is_some_and(|n| n.has_capability("completions"));
    let Some(x) = entry_value(v, e).cloned() else {
        return false;
    };
    match e {
        Entry::Resource(_) => match text(&x, "uri") {
            Some(uri) => read(s, &server, uri, false, fx),
            None => s.status = Some("this resource has no uri to read".into()),
        },
        Entry::Template(_) => {
            let Some(template) = text(&x, "uriTemplate") else {
                s.status = Some("this template has no uriTemplate".into());
                return true;
            };
            if let Err(e) = crate::uritemplate::validate(template) {
                s.status = Some(crate::sanitize::one_line(&e));
                return true;
            }
            let vars = crate::uritemplate::variables(template);
            if vars.is_empty() {
                // Nothing to fill in: it is a URI.
                read(s, &server, template, false, fx);
                return true;
            }
            let fields = vars
                .iter()
                .map(|name| Field::new(name, &json!({"type": "string"}), true))
                .collect();
            let target = Target::Template {
                template: template.to_string(),
                name: text(&x, "title")
                    .or_else(|| text(&x, "name"))
                    .unwrap_or(template)
                    .to_string(),
            };
            open_form(s, kind, server, target, fields, completions, fx);
        }
        Entry::Prompt(_) => {
            let Some(name) = text(&x, "name").map(str::to_string) else {
                s.status = Some("this prompt has no name".into());
                return true;
            };
            let args = prompt_args(&x);
            if args.is_empty() {
                get(s, &server, &name, Map::new(), fx);
                return true;
            }
            let fields = args
                .iter()
                .map(|(arg, title, description, required)| {
                    let mut schema = json!({"type": "string"});
                    if let Some(t) = title {
                        schema["title"] = json!(t);
                    }
                    if let Some(d) = description {
                        schema["description"] = json!(d);
                    }
                    Field::new(arg, &schema, *required)
                })
                .collect();
            let target = Target::Prompt {
                name,
                description: text(&x, "description").map(str::to_string),
            };
            open_form(s, kind, server, target, fields, completions, fx);
        }
    }
    true
}

fn open_form(
    s: &mut State,
    kind: Kind,
    server: String,
    target: Target,
    mut fields: Vec<Field>,
    completions: bool,
    fx: &mut Vec<Effect>,
) {
    let b = view_mut(s, kind);
    if let Some(last) = b.last.get(&(server.clone(), target.key().to_string())) {
        for f in &mut fields {
            if let Some((_, t)) = last.iter().find(|(k, _)| *k == f.key)
                && let Some(line) = f.line_mut()
            {
                *line = LineEdit::new(t.clone());
            }
        }
    }
    b.form = Some(ArgForm {
        server,
        target,
        fields,
        focus: 0,
        completions,
        suggest: None,
        asking: None,
        asked: None,
    });
    b.contents_focus = false;
    complete(s, kind, fx);
}

/// Close the form, keeping what was typed for next time.
fn close_form(s: &mut State, kind: Kind) -> Option<ArgForm> {
    let b = view_mut(s, kind);
    let f = b.form.take()?;
    b.last
        .insert((f.server.clone(), f.target.key().to_string()), f.texts());
    Some(f)
}

fn read(s: &mut State, server: &str, uri: &str, refresh: bool, fx: &mut Vec<Effect>) {
    let tag = s.next_tag();
    fx.push(Effect::Manager(Command::Request {
        tag,
        server: server.to_string(),
        method: "resources/read".into(),
        params: json!({ "uri": uri }),
    }));
    s.resources.pending = Some(Pending {
        tag,
        server: server.to_string(),
        what: What::Read {
            uri: uri.to_string(),
        },
        refresh,
    });
}

fn get(
    s: &mut State,
    server: &str,
    name: &str,
    arguments: Map<String, Value>,
    fx: &mut Vec<Effect>,
) {
    let tag = s.next_tag();
    fx.push(Effect::Manager(Command::Request {
        tag,
        server: server.to_string(),
        method: "prompts/get".into(),
        // Always an object: SDKs that validate arguments refuse none.
        params: json!({ "name": name, "arguments": arguments }),
    }));
    s.prompts.pending = Some(Pending {
        tag,
        server: server.to_string(),
        what: What::Prompt {
            name: name.to_string(),
        },
        refresh: false,
    });
}

fn form_key(
    s: &mut State,
    kind: Kind,
    k: KeyEvent,
    action: Option<Action>,
    fx: &mut Vec<Effect>,
) -> bool {
    let Some(f) = view_mut(s, kind).form.as_mut() else {
        return false;
    };
    // Text entry first: a character is a character (`q` types a q).
    let editing = is_typing(&k)
        || matches!(
            k.code,
            KeyCode::Backspace
                | KeyCode::Delete
                | KeyCode::Left
                | KeyCode::Right
                | KeyCode::Home
                | KeyCode::End
        );
    let focus = f.focus;
    if editing && let Some(line) = f.fields.get_mut(focus).and_then(Field::line_mut) {
        let before = line.text.clone();
        line.key(&k);
        if line.text != before {
            if let Some(g) = f.suggest.as_mut() {
                g.at = None;
            }
            complete(s, kind, fx);
        }
        return true;
    }
    let Some(a) = action else { return false };
    match a {
        Action::Send => submit(s, kind, fx),
        Action::Back => {
            close_form(s, kind);
        }
        Action::Down | Action::Open => move_focus(s, kind, 1, fx),
        Action::Up => move_focus(s, kind, -1, fx),
        Action::NextPane => {
            if !pick(s, kind, 1) {
                move_focus(s, kind, 1, fx);
            }
        }
        Action::PrevPane => {
            if !pick(s, kind, -1) {
                move_focus(s, kind, -1, fx);
            }
        }
        Action::Help => {
            s.help_back = Some(kind.mode());
            s.mode = Mode::Help;
        }
        _ => return false,
    }
    true
}

fn move_focus(s: &mut State, kind: Kind, by: isize, fx: &mut Vec<Effect>) {
    let Some(f) = view_mut(s, kind).form.as_mut() else {
        return;
    };
    let new = step(f.focus, by, f.fields.len());
    if new != f.focus {
        f.focus = new;
        f.suggest = None;
        complete(s, kind, fx);
    }
}

/// Tab: put the next (or previous) suggestion in the field. False when
/// the field has none.
fn pick(s: &mut State, kind: Kind, by: isize) -> bool {
    let Some(f) = view_mut(s, kind).form.as_mut() else {
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
fn complete(s: &mut State, kind: Kind, fx: &mut Vec<Effect>) {
    let Some(f) = view(s, kind).form.as_ref() else {
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
        Target::Template { template, .. } => json!({"type": "ref/resource", "uri": template}),
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
    let server = f.server.clone();
    let tag = s.next_tag();
    let Some(f) = view_mut(s, kind).form.as_mut() else {
        return;
    };
    f.asking = Some((tag, f.focus));
    f.asked = Some((f.focus, value));
    fx.push(Effect::Manager(Command::Request {
        tag,
        server,
        method: "completion/complete".into(),
        params,
    }));
}

/// Ctrl-S in a form: read the expanded URI, or get the prompt.
fn submit(s: &mut State, kind: Kind, fx: &mut Vec<Effect>) {
    let Some(f) = view_mut(s, kind).form.as_mut() else {
        return;
    };
    let content = match f.content() {
        Ok(c) => c,
        Err(bad) => {
            if let Some(i) = f.fields.iter().position(|x| x.error().is_some()) {
                f.focus = i;
            }
            s.status = Some(format!(
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
            s.status = Some(crate::sanitize::one_line(&e));
            return;
        }
        None => None,
    };
    let Some(f) = close_form(s, kind) else { return };
    s.status = None;
    match (&f.target, uri) {
        (Target::Template { .. }, Some(uri)) => read(s, &f.server, &uri, false, fx),
        (Target::Prompt { name, .. }, _) => get(s, &f.server, name, content, fx),
        _ => {}
    }
}

/// A subscription of the selected resource, on or off.
fn toggle_subscription(s: &mut State, kind: Kind, fx: &mut Vec<Effect>) -> bool {
    if kind != Kind::Resources {
        s.status = Some("subscriptions are for resources".into());
        return true;
    }
    let Some((e, v)) = selected(s, kind) else {
        return true;
    };
    let Entry::Resource(_) = e else {
        s.status = Some("a template cannot be subscribed to; only resources can".into());
        return true;
    };
    let name = v.name.clone();
    if !can_subscribe(v) {
        s.status = Some(format!(
            "{name} does not declare resources.subscribe: it sends no resource updates"
        ));
        return true;
    }
    let Some(uri) = entry_value(v, e)
        .and_then(|x| text(x, "uri"))
        .map(str::to_string)
    else {
        return true;
    };
    let on = !v.subs.on.contains(&uri);
    let shown = crate::sanitize::one_line(&uri);
    if v.subs.asking.contains_key(&uri) {
        s.status = Some(format!("still waiting for {name} about {shown}"));
        return true;
    }
    if let Some(v) = s.servers.iter_mut().find(|x| x.name == name) {
        v.subs.asking.insert(uri.clone(), on);
    }
    s.status = Some(format!(
        "{} {shown}…",
        if on {
            "subscribing to"
        } else {
            "unsubscribing from"
        }
    ));
    fx.push(Effect::Manager(if on {
        Command::Subscribe(name, uri)
    } else {
        Command::Unsubscribe(name, uri)
    }));
    true
}

/// The answer to a subscribe or unsubscribe: the marks follow.
pub fn on_subscription(s: &mut State, server: &str, uri: &str, subscribed: bool, ok: bool) {
    let Some(v) = s.servers.iter_mut().find(|x| x.name == server) else {
        return;
    };
    v.subs.asking.remove(uri);
    if !ok {
        return;
    }
    if subscribed {
        v.subs.on.insert(uri.to_string());
    } else {
        v.subs.on.remove(uri);
        v.subs.updated.remove(uri);
    }
}

/// `notifications/resources/updated`: a subscribed resource is marked, and
/// read again if it is the one shown.
pub fn on_updated(
    s: &mut State,
    server: &str,
    params: Option<&Value>,
    fx: &mut Vec<Effect>,
) -> bool {
    let Some(uri) = params.and_then(|p| text(p, "uri")).map(str::to_string) else {
        return false;
    };
    let Some(v) = s.servers.iter_mut().find(|x| x.name == server) else {
        return false;
    };
    if !v.subs.on.contains(&uri) {
        return false;
    }
    v.subs.updated.insert(uri.clone());
    let shown = s.resources.shown.as_ref().is_some_and(|x| {
        x.server == server && matches!(&x.what, What::Read { uri: u } if *u == uri)
    });
    if shown && s.resources.pending.is_none() {
        read(s, server, &uri, true, fx);
    }
    true
}

/// A server is no longer connected: its subscriptions are gone.
pub fn server_gone(s: &mut State, server: &str) {
    if let Some(v) = s.servers.iter_mut().find(|x| x.name == server) {
        v.subs = Subs::default();
    }
}

/// An answer to a request of the views; false when it is not one (or
/// no longer awaited).
pub fn on_response(s: &mut State, tag: u64, result: Result<Value, CallError>) -> bool {
    for kind in [Kind::Resources, Kind::Prompts] {
        let b = view_mut(s, kind);
        if b.pending.as_ref().is_some_and(|p| p.tag == tag) {
            if let Some(p) = b.pending.take() {
                finish(s, kind, p, result);
            }
            return true;
        }
        if let Some(f) = b.form.as_mut()
            && let Some((_, field)) = f.asking.filter(|(t, _)| *t == tag)
        {
            f.asking = None;
            f.suggest = Some(suggestions(field, result));
            return true;
        }
    }
    false
}

fn suggestions(field: usize, result: Result<Value, CallError>) -> Suggest {
    let mut g = Suggest {
        field,
        values: Vec::new(),
        total: None,
        has_more: false,
        at: None,
        error: None,
    };
    match result {
        Ok(v) => {
            let c = v.get("completion").cloned().unwrap_or(Value::Null);
            g.values = c
                .get("values")
                .and_then(Value::as_array)
                .map(|vs| {
                    vs.iter()
                        .filter_map(Value::as_str)
                        .take(MAX_SUGGESTIONS)
                        .map(str::to_string)
                        .collect()
                })
                .unwrap_or_default();
            g.total = c.get("total").and_then(Value::as_u64);
            g.has_more = c.get("hasMore").and_then(Value::as_bool) == Some(true);
        }
        Err(e) => g.error = Some(e.to_string()),
    }
    g
}

fn finish(s: &mut State, kind: Kind, p: Pending, result: Result<Value, CallError>) {
    let (lines, media) = match &p.what {
        What::Read { .. } => super::result::read_lines(&result),
        What::Prompt { name } => super::result::prompt_lines(name, &result),
    };
    if let (What::Read { uri }, Ok(_)) = (&p.what, &result)
        && let Some(v) = s.servers.iter_mut().find(|x| x.name == p.server)
    {
        v.subs.updated.remove(uri);
    }
    let b = view_mut(s, kind);
    let updates = match &b.shown {
        Some(old) if p.refresh && old.what == p.what && old.server == p.server => old.updates + 1,
        _ => 0,
    };
    if !p.refresh {
        b.scroll = 0;
    }
    b.shown = Some(Shown {
        server: p.server,
        what: p.what,
        result,
        lines,
        media,
        updates,
    });
}

fn save(s: &mut State, kind: Kind, fx: &mut Vec<Effect>) -> bool {
    use base64::Engine;
    let Some(x) = &view(s, kind).shown else {
        s.status = Some("nothing read yet to save".into());
        return true;
    };
    if x.media.is_empty() {
        s.status = Some("this has no blob, image or audio to save".into());
        return true;
    }
    let mut files = Vec::new();
    let mut bad = 0;
    for (name, data) in &x.media {
        match base64::engine::general_purpose::STANDARD.decode(data.trim()) {
            Ok(bytes) => files.push((name.clone(), bytes)),
            Err(_) => bad += 1,
        }
    }
    if files.is_empty() {
        s.status = Some(format!(
            "{bad} blob{} not valid base64; nothing saved",
            if bad == 1 { " is" } else { "s are" }
        ));
        return true;
    }
    fx.push(Effect::Save(files));
    true
}

fn copy(s: &mut State, kind: Kind, fx: &mut Vec<Effect>) -> bool {
    let Some(x) = &view(s, kind).shown else {
        s.status = Some("nothing to copy yet".into());
        return true;
    };
    let text = match &x.result {
        Ok(v) => serde_json::to_string_pretty(v).unwrap_or_default(),
        Err(e) => e.to_string(),
    };
    super::app::copy(s, text, fx);
    true
}
