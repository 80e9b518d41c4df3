//! The resources and prompts views of a server: a filterable list, an
//! argument form (a template's variables, a prompt's arguments) with
//! suggestions from the server's `completion/complete`, and what was read
//! (`resources/read`) or got (`prompts/get`); resource subscriptions.
//!
//! Each view owns its state ([`Browse`]); its keys and the manager's
//! answers update it through a [`Ctx`] that lends it what it needs of the
//! rest of the app (its server, request tags, its area) and collects what
//! it asks in return: `Command::Request`, `Subscribe` and `Unsubscribe` as
//! effects, a status line, and where to go next. Every answer is matched
//! by its tag: the answer to a request that was replaced since (a
//! completion for text typed over, a read the person moved on from) is
//! dropped.

mod answer;
mod form;

use std::collections::{BTreeMap, BTreeSet, HashMap};

use crossterm::event::{KeyCode, KeyEvent, MouseButton, MouseEvent, MouseEventKind};
use ratatui::layout::{Position, Rect};
use serde_json::{Map, Value, json};

pub use answer::{mark_updated, on_subscription, server_gone};
pub use form::ArgForm;

use super::app::{Effect, Mode, ServerView, State};
use super::ask::{Field, is_typing};
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
    /// Opened by following a link from a call's result: Esc goes back
    /// there.
    pub from_result: bool,
}

/// Where the app goes after a key in a view.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub enum Go {
    #[default]
    Stay,
    /// Back to the panes.
    Panes,
    /// The other view.
    View(Kind),
    /// The skills view of the same server (listed anew).
    Skills,
    /// The help, over this view.
    Help,
}

/// What a view needs of the rest of the app for one key or answer, and
/// what it asks in return.
pub struct Ctx<'a> {
    pub kind: Kind,
    /// The view's server, while it is configured.
    pub server: Option<&'a mut ServerView>,
    /// The app's request tags (shared with its other requests).
    pub tags: &'a mut u64,
    /// Where the view is on screen (for page heights).
    pub area: Rect,
    pub fx: &'a mut Vec<Effect>,
    /// Set by the view: a line for the status bar (`Some(None)` clears it).
    pub status: Option<Option<String>>,
    /// Set by the view: where to go next.
    pub go: Go,
}

impl Ctx<'_> {
    fn say(&mut self, status: impl Into<String>) {
        self.status = Some(Some(status.into()));
    }

    fn tag(&mut self) -> u64 {
        let t = *self.tags;
        *self.tags += 1;
        t
    }

    fn server(&self) -> Option<&ServerView> {
        self.server.as_deref()
    }
}
fn text<'a>(v: &'a Value, key: &str) -> Option<&'a str> {
    v.get(key).and_then(Value::as_str)
}

/// The server a view shows (for the renderer).
pub fn server_of(s: &State, kind: Kind) -> Option<&ServerView> {
    let name = &s.browse(kind).server;
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

/// The rows of a view after its filter (for the renderer).
pub fn entries(s: &State, kind: Kind) -> Vec<Entry> {
    s.browse(kind).entries(kind, server_of(s, kind))
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

impl Browse {
    /// The rows after the filter.
    pub fn entries(&self, kind: Kind, server: Option<&ServerView>) -> Vec<Entry> {
        let Some(v) = server else {
            return Vec::new();
        };
        let needle = self.filter.to_lowercase();
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

    /// Show this view on `server` (its state is kept while the server stays
    /// the same).
    pub fn open(&mut self, server: String) {
        if self.server != server {
            let last = std::mem::take(&mut self.last);
            *self = Browse {
                server,
                last,
                ..Browse::default()
            };
        }
        self.filtering = false;
        // Opened as a view of its own, not from a result's link (`f` sets
        // it again after opening).
        self.from_result = false;
    }

    /// A key in the view.
    pub fn key(&mut self, k: KeyEvent, action: Option<Action>, cx: &mut Ctx) -> bool {
        if self.filtering {
            return self.filter_key(k, action, cx);
        }
        if self.form.is_some() {
            return self.form_key(k, action, cx);
        }
        match action {
            Some(a) => self.list_action(a, cx),
            None => false,
        }
    }

    fn filter_key(&mut self, k: KeyEvent, action: Option<Action>, cx: &mut Ctx) -> bool {
        // The filter's own editing keys: raw, outside the keymap, because
        // they are text entry (every character is typed, Backspace
        // deletes); the commands below come from the keymap.
        match k.code {
            KeyCode::Backspace => {
                self.filter.pop();
            }
            KeyCode::Char(c) if is_typing(&k) => self.filter.push(c),
            _ => match action {
                Some(Action::Back) => {
                    self.filter.clear();
                    self.filtering = false;
                }
                Some(Action::Open) => self.filtering = false,
                Some(a @ (Action::Up | Action::Down | Action::PageUp | Action::PageDown)) => {
                    return self.move_in(a, cx);
                }
                _ => return false,
            },
        }
        self.sel = 0;
        true
    }

    fn list_action(&mut self, a: Action, cx: &mut Ctx) -> bool {
        match a {
            Action::Up
            | Action::Down
            | Action::PageUp
            | Action::PageDown
            | Action::Home
            | Action::End => self.move_in(a, cx),
            Action::NextPane | Action::PrevPane | Action::Left | Action::Right => {
                self.contents_focus = match a {
                    Action::Left => false,
                    Action::Right => self.shown.is_some(),
                    _ => !self.contents_focus && self.shown.is_some(),
                };
                true
            }
            Action::Open | Action::Send => self.enter(cx),
            Action::Filter => {
                self.filtering = true;
                self.contents_focus = false;
                true
            }
            Action::Subscribe => self.toggle_subscription(cx),
            Action::Save => self.save(cx),
            Action::Copy => self.copy(cx),
            Action::Back => self.back(cx),
            Action::Quit => {
                cx.go = Go::Panes;
                true
            }
            Action::Resources | Action::Prompts => {
                let other = if a == Action::Resources {
                    Kind::Resources
                } else {
                    Kind::Prompts
                };
                cx.go = if other == cx.kind {
                    Go::Panes
                } else {
                    Go::View(other)
                };
                true
            }
            Action::Help => {
                cx.go = Go::Help;
                true
            }
            Action::Skills => {
                cx.go = Go::Skills;
                true
            }
            _ => false,
        }
    }

    /// The rows the contents pane shows on this screen (a pending
    /// request's line takes the first), and its text width.
    fn contents_geometry(&self, cx: &Ctx) -> (usize, u16) {
        let rows = self.entries(cx.kind, cx.server()).len();
        let (_, bottom) = crate::tui::ui::browse::areas(cx.area, rows);
        let height = (bottom.height.saturating_sub(2) as usize)
            .saturating_sub(usize::from(self.pending.is_some()));
        (height, bottom.width.saturating_sub(2))
    }

    fn move_in(&mut self, a: Action, cx: &Ctx) -> bool {
        let (height, width) = self.contents_geometry(cx);
        let page = if self.contents_focus {
            height.max(1) as isize
        } else {
            10
        };
        let by = match a {
            Action::Up => -1,
            Action::Down => 1,
            Action::PageUp => -page,
            Action::PageDown => page,
            Action::Home => isize::MIN / 2,
            Action::End => isize::MAX / 2,
            _ => return false,
        };
        if self.contents_focus {
            // By screen lines at the pane's width (long lines wrap); the
            // last page, not the last line alone, is as far as it goes.
            let n = self.shown.as_ref().map_or(0, |x| x.lines.screen_len(width));
            let last = n.saturating_sub(height.max(1)) + 1;
            let new = step(self.scroll, by, last);
            let changed = new != self.scroll;
            self.scroll = new;
            return changed;
        }
        let n = self.entries(cx.kind, cx.server()).len();
        let new = step(self.sel.min(n.saturating_sub(1)), by, n);
        let changed = new != self.sel;
        self.sel = new;
        changed
    }

    /// The mouse in the view: a click on a row selects it (and focuses the
    /// list), on what was read focuses that; the wheel scrolls what is
    /// under the pointer.
    pub fn mouse(&mut self, m: MouseEvent, cx: &mut Ctx) -> bool {
        let list = self.entries(cx.kind, cx.server());
        let (list_area, bottom) = crate::tui::ui::browse::areas(cx.area, list.len());
        let at = Position::new(m.column, m.row);
        let (on_list, on_contents) = (list_area.contains(at), bottom.contains(at));
        // While a form is open, the keys (and so the mouse) are its own.
        if self.form.is_some() || self.filtering {
            return false;
        }
        match m.kind {
            MouseEventKind::ScrollDown | MouseEventKind::ScrollUp => {
                if on_list {
                    self.contents_focus = false;
                } else if on_contents && self.shown.is_some() {
                    self.contents_focus = true;
                } else {
                    return false;
                }
                let a = if m.kind == MouseEventKind::ScrollDown {
                    Action::Down
                } else {
                    Action::Up
                };
                for _ in 0..3 {
                    self.move_in(a, cx);
                }
                true
            }
            MouseEventKind::Down(MouseButton::Left) if on_list => {
                self.contents_focus = false;
                if let Some(i) = self.row_at(m.row, list_area, &list, cx) {
                    self.sel = i;
                }
                true
            }
            MouseEventKind::Down(MouseButton::Left) if on_contents && self.shown.is_some() => {
                self.contents_focus = true;
                true
            }
            _ => false,
        }
    }

    /// The entry drawn on screen row `row` of the list (laid out as the
    /// renderer does: the selected row has its description under it).
    fn row_at(&self, row: u16, area: Rect, list: &[Entry], cx: &Ctx) -> Option<usize> {
        let inner_y = area.y + 1;
        let height = area.height.saturating_sub(2) as usize;
        if list.is_empty() || row < inner_y || (row - inner_y) as usize >= height {
            return None;
        }
        let wanted = (row - inner_y) as usize;
        let v = cx.server()?;
        let sel = self.sel.min(list.len() - 1);
        let offset = crate::tui::layout::list_offset(sel, height.saturating_sub(1).max(1));
        let mut y = 0;
        for (i, e) in list.iter().enumerate().skip(offset) {
            let rows = if i == sel && has_about(*e, entry_value(v, *e)) {
                2
            } else {
                1
            };
            if wanted < y + rows {
                return Some(i);
            }
            y += rows;
        }
        None
    }

    /// Esc: out of the contents, cancel the request in flight (the server
    /// is told), clear the filter, leave.
    fn back(&mut self, cx: &mut Ctx) -> bool {
        if self.from_result {
            // Back to the result the link was followed from (a read still
            // under way is cancelled, and the server told).
            if let Some(p) = self.pending.take() {
                cx.fx.push(Effect::Manager(Command::Cancel { tag: p.tag }));
            }
            self.from_result = false;
            self.contents_focus = false;
            cx.go = Go::Panes;
        } else if self.contents_focus {
            self.contents_focus = false;
        } else if let Some(p) = self.pending.take() {
            cx.fx.push(Effect::Manager(Command::Cancel { tag: p.tag }));
            cx.say(format!(
                "cancelled {} {} (the server was told); Esc again leaves",
                p.what.verb(),
                crate::sanitize::one_line(p.what.label())
            ));
        } else if !self.filter.is_empty() {
            self.filter.clear();
            self.sel = 0;
        } else {
            cx.go = Go::Panes;
        }
        true
    }

    /// The selected entry and its value, when its server can be asked.
    fn selected(&self, cx: &mut Ctx) -> Option<(Entry, Value)> {
        let list = self.entries(cx.kind, cx.server());
        let sel = self.sel.min(list.len().saturating_sub(1));
        let Some(e) = list.get(sel).copied() else {
            cx.say(match cx.kind {
                Kind::Resources => "no resource selected",
                Kind::Prompts => "no prompt selected",
            });
            return None;
        };
        let v = cx.server()?;
        if v.status != ServerStatus::Connected {
            let note = format!("{} is {}; connect it first", v.name, v.status.label());
            cx.say(note);
            return None;
        }
        let value = entry_value(v, e)?.clone();
        Some((e, value))
    }

    /// Enter on an entry: read a resource, open a template's or a prompt's
    /// form (a prompt without arguments is got at once).
    fn enter(&mut self, cx: &mut Ctx) -> bool {
        let Some((e, x)) = self.selected(cx) else {
            return true;
        };
        let Some(v) = cx.server() else {
            return true;
        };
        let server = v.name.clone();
        let completions = v
            .negotiated
            .as_ref()
            .is_some_and(|n| n.has_capability("completions"));
        match e {
            Entry::Resource(_) => match text(&x, "uri") {
                Some(uri) => self.read(&server, uri, false, cx),
                None => cx.say("this resource has no uri to read"),
            },
            Entry::Template(_) => {
                let Some(template) = text(&x, "uriTemplate") else {
                    cx.say("this template has no uriTemplate");
                    return true;
                };
                if let Err(e) = crate::uritemplate::validate(template) {
                    cx.say(crate::sanitize::one_line(&e));
                    return true;
                }
                let vars = crate::uritemplate::variables(template);
                if vars.is_empty() {
                    // Nothing to fill in: it is a URI.
                    self.read(&server, template, false, cx);
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
                self.open_form(server, target, fields, completions, cx);
            }
            Entry::Prompt(_) => {
                let Some(name) = text(&x, "name").map(str::to_string) else {
                    cx.say("this prompt has no name");
                    return true;
                };
                let args = prompt_args(&x);
                if args.is_empty() {
                    self.get(&server, &name, Map::new(), cx);
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
                self.open_form(server, target, fields, completions, cx);
            }
        }
        true
    }
}

/// Whether the renderer gives the selected row a second line (what it
/// is about): always, but for a resource with nothing to say.
fn has_about(e: Entry, x: Option<&Value>) -> bool {
    match (e, x) {
        (Entry::Resource(_), Some(x)) => {
            ["mimeType", "description", "uri"]
                .iter()
                .any(|k| text(x, k).is_some_and(|t| !t.is_empty()))
                || x.get("size").and_then(Value::as_u64).is_some()
        }
        (Entry::Resource(_), None) => false,
        _ => true,
    }
}

/// `value` moved by `by`, within `0..len`.
fn step(value: usize, by: isize, len: usize) -> usize {
    if len == 0 {
        return 0;
    }
    (value as isize)
        .saturating_add(by)
        .clamp(0, len as isize - 1) as usize
}
