//! The MCP Registry browser (`F`): search the registry as you type, read
//! what an entry needs and would run, try it for this session without
//! adding it, or add it to the config through a form of its inputs.
//!
//! - Typing in the search field waits [`DEBOUNCE`] for the next key, then
//!   asks for a search ([`RegistryFx::Search`]); the driver answers from
//!   the cache first (at once), then from the network, replacing it
//!   ([`RegistryMsg::Found`]), or says the registry cannot be reached
//!   ([`RegistryMsg::Failed`]). Answers to an older search are dropped.
//! - Trying an entry ([`Action::TryServer`]) adds it as a server of this
//!   session only: its [`ServerConfig`] is kept in [`RegistryView::tried`]
//!   (the driver hands those to the manager beside the config's servers),
//!   never written to the file. Missing inputs are asked first, in the
//!   form ([`form`]), and kept in memory only.
//! - Adding ([`Action::AddServer`] in the view) opens the form: one field
//!   per input of the way picked, secrets masked, choices as choices,
//!   defaults filled in, the command line it would run shown; its submit
//!   asks the driver to write it ([`RegistryFx::Add`]: the secrets go to
//!   the credential store, the config gets `${secret:NAME}`).
//!
//! Everything the registry sends is shown through the sanitizer.
//! [`fetch`] holds the driver's side (network, cache, the config write).

pub mod fetch;
pub mod form;

use std::time::{Duration, Instant};

use crossterm::event::KeyEvent;

use crate::config::ServerConfig;
use crate::registry::add::{lint_notes, local_name, memory_entry};
use crate::registry::launch::{self, Choice, Given, LaunchError, Resolved};
use crate::registry::{Entry, Input};
use crate::sanitize;
use crate::tui::app::{Effect, Mode, Pane, ServerView, State};
use crate::tui::keymap::Action;

pub use form::{Field, FieldKind, Form, Purpose};

/// How long the search waits for the next key before it asks.
pub const DEBOUNCE: Duration = Duration::from_millis(300);
/// Entries asked for per search (`registry search`'s default, so the CLI
/// and the TUI share their cache).
pub const LIMIT: usize = 30;

/// One entry of the results, with what the driver found out about it off
/// the UI's thread: the default way to run it (which runtimes are
/// installed) and the lint notes on its own text.
#[derive(Debug, Clone)]
pub struct Item {
    pub entry: Entry,
    /// `launch::pick`'s choice, or why there is none.
    pub default: Result<Choice, String>,
    /// Per package: its runtime command and whether it is on `PATH`.
    pub runtimes: Vec<(String, bool)>,
    /// `add::lint_notes`.
    pub notes: Vec<String>,
}

impl Item {
    /// An entry looked at with `installed` (the driver passes
    /// `launch::installed`; tests a fake).
    pub fn new(entry: Entry, installed: &dyn Fn(&str) -> bool) -> Item {
        let default = launch::pick(&entry, None, installed).map_err(|e| e.to_string());
        let runtimes = entry
            .packages
            .iter()
            .map(|p| {
                let rt = launch::runtime(p);
                (rt.to_string(), installed(rt))
            })
            .collect();
        let notes = lint_notes(&entry);
        Item {
            entry,
            default,
            runtimes,
            notes,
        }
    }
}

/// Which part of the view has the keys.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub enum Focus {
    /// The search field: keys type.
    #[default]
    Search,
    List,
    /// The selected entry's detail (it scrolls).
    Detail,
}

/// Where the results shown came from.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Source {
    /// The cache, fetched this long ago.
    Cache(Duration),
    Network,
}

/// A search under way: its number and query.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Pending {
    pub seq: u64,
    pub query: String,
}

/// Why the last search did not reach the registry, and the age of the
/// cache shown instead (`None`: nothing cached for it).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Unreachable {
    pub why: String,
    pub cache_age: Option<Duration>,
}

/// The state of the view (no `Debug`: the form and the tried servers
/// may hold secrets).
#[derive(Clone, Default)]
pub struct RegistryView {
    pub query: String,
    pub focus: Focus,
    /// The results shown (deleted entries left out).
    pub items: Vec<Item>,
    /// The query the results are for.
    pub shown_query: Option<String>,
    pub source: Option<Source>,
    /// The registry has more than [`LIMIT`] for this query.
    pub more: bool,
    pub sel: usize,
    pub detail_scroll: usize,
    /// The query changed at this time (the driver's clock; `None`: no
    /// clock yet, search at the next tick) and is not asked yet.
    pub due: Option<Option<Instant>>,
    /// The last search asked for.
    pub seq: u64,
    /// The network is asked (the spinner turns).
    pub pending: Option<Pending>,
    pub error: Option<Unreachable>,
    /// The registry the results are from.
    pub base: String,
    /// The add or try form, while it is open.
    pub form: Option<Form>,
    /// The servers tried (this session only, not in the config).
    pub tried: Vec<ServerConfig>,
    /// A server to select once the config is read again (one just added).
    pub select: Option<String>,
}

impl RegistryView {
    /// Whether the spinner (and the debounce's tick) must run.
    pub fn busy(&self) -> bool {
        self.due.is_some() || self.pending.is_some() || self.form.as_ref().is_some_and(|f| f.busy)
    }

    pub fn selected(&self) -> Option<&Item> {
        self.items
            .get(self.sel.min(self.items.len().saturating_sub(1)))
    }

    /// Whether `name` is a server tried from the registry (not in the
    /// config).
    pub fn is_tried(&self, name: &str) -> bool {
        self.tried.iter().any(|c| c.name == name)
    }
}

/// What the view asks the driver to do.
pub enum RegistryFx {
    /// Search `base` for `query`: the cache's answer first, then the
    /// network's (`RegistryMsg::Found`, `RegistryMsg::Failed`); a search
    /// under way is dropped.
    Search {
        base: String,
        query: String,
        seq: u64,
    },
    /// A server was tried (it is in `RegistryView::tried` now): hand the
    /// servers to the manager (the config's and the tried ones).
    Try(Box<ServerConfig>),
    /// Add an entry to the config file: its secrets into the credential
    /// store, `${secret:NAME}` in the file (answered with
    /// `RegistryMsg::Added`).
    Add(Box<Add>),
    /// Read the config again (after an add), then say `note`.
    Reload { note: String },
}

/// An add, as the driver carries it out.
pub struct Add {
    pub base: String,
    pub entry: Entry,
    pub resolved: Resolved,
    pub local: String,
}

// Never the values: a resolved entry holds its secrets.
impl std::fmt::Debug for RegistryFx {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self {
            RegistryFx::Search { base, query, seq } => f
                .debug_struct("Search")
                .field("base", base)
                .field("query", query)
                .field("seq", seq)
                .finish(),
            RegistryFx::Try(c) => write!(f, "Try({:?})", c.name),
            RegistryFx::Add(a) => write!(
                f,
                "Add({:?} {:?} as {:?}, {} secrets)",
                a.entry.name,
                a.entry.version,
                a.local,
                a.resolved.secrets.len()
            ),
            RegistryFx::Reload { note } => write!(f, "Reload({note:?})"),
        }
    }
}

/// What the driver brings back.
#[derive(Debug)]
pub enum RegistryMsg {
    /// Results of search `seq`: from the cache (fetched `Some(age)` ago)
    /// or the network (`None`).
    Found {
        seq: u64,
        query: String,
        items: Vec<Item>,
        cached: Option<Duration>,
        more: bool,
    },
    /// Search `seq` did not reach the registry: why, and the age of the
    /// cache sent before it (if any).
    Failed {
        seq: u64,
        why: String,
        cache_age: Option<Duration>,
    },
    /// An add was written (the secrets stored, by name), or why not.
    Added {
        local: String,
        result: Result<Vec<String>, String>,
    },
}

fn say(s: &mut State, note: impl Into<String>) {
    s.status = Some(note.into());
}

/// The registry asked: `[settings] registry_url`, else the official one.
pub fn base_url(s: &State) -> String {
    s.settings
        .registry_url
        .clone()
        .unwrap_or_else(|| crate::registry::DEFAULT_URL.to_string())
}

/// The registry key: the view, with the search field focused; the first
/// time (or when the registry changed), a search of everything.
pub fn open(s: &mut State, fx: &mut Vec<Effect>) -> bool {
    s.mode = Mode::Registry;
    s.registry.focus = Focus::Search;
    let base = base_url(s);
    let fresh = s.registry.shown_query.is_none() && s.registry.pending.is_none();
    if s.registry.base != base || (fresh && s.registry.due.is_none()) {
        s.registry.base = base;
        search_now(s, fx);
    }
    true
}

/// Ask for the query now (the debounce's end, `r`, the view opened).
fn search_now(s: &mut State, fx: &mut Vec<Effect>) {
    let v = &mut s.registry;
    v.due = None;
    v.seq += 1;
    if v.base.is_empty() {
        v.base = s
            .settings
            .registry_url
            .clone()
            .unwrap_or_else(|| crate::registry::DEFAULT_URL.to_string());
    }
    let query = v.query.trim().to_string();
    v.pending = Some(Pending {
        seq: v.seq,
        query: query.clone(),
    });
    fx.push(Effect::Registry(RegistryFx::Search {
        base: v.base.clone(),
        query,
        seq: v.seq,
    }));
}

/// The spinner's tick: the search asked once the typing paused.
pub fn tick(s: &mut State, fx: &mut Vec<Effect>) -> bool {
    let Some(since) = s.registry.due else {
        return false;
    };
    let ripe = match (since, s.clock) {
        (Some(at), Some(now)) => now.saturating_duration_since(at) >= DEBOUNCE,
        _ => true,
    };
    if ripe {
        search_now(s, fx);
    }
    ripe
}

/// An answer from the driver.
pub fn on_msg(s: &mut State, m: RegistryMsg, fx: &mut Vec<Effect>) -> bool {
    match m {
        RegistryMsg::Found {
            seq,
            query,
            items,
            cached,
            more,
        } => {
            let v = &mut s.registry;
            if seq != v.seq {
                return false;
            }
            let was = v.selected().map(|i| i.entry.name.clone());
            v.items = items
                .into_iter()
                .filter(|i| i.entry.status != "deleted")
                .collect();
            v.more = more;
            v.shown_query = Some(query);
            v.source = Some(match cached {
                Some(age) => Source::Cache(age),
                None => Source::Network,
            });
            if cached.is_none() {
                v.pending = None;
                v.error = None;
            }
            // The selection stays on the same entry when it is still there.
            let at = was.and_then(|n| v.items.iter().position(|i| i.entry.name == n));
            if at != Some(v.sel) {
                v.sel = at.unwrap_or(0);
                v.detail_scroll = 0;
            }
            true
        }
        RegistryMsg::Failed {
            seq,
            why,
            cache_age,
        } => {
            let v = &mut s.registry;
            if seq != v.seq {
                return false;
            }
            let query = v.pending.take().map(|p| p.query);
            if cache_age.is_none() {
                // Nothing for this search: the results of another are not
                // shown as if they were its.
                v.items.clear();
                v.shown_query = query;
                v.source = None;
                v.sel = 0;
                v.detail_scroll = 0;
            }
            v.error = Some(Unreachable { why, cache_age });
            true
        }
        RegistryMsg::Added { local, result } => {
            match result {
                Ok(stored) => {
                    let v = &mut s.registry;
                    v.form = None;
                    // The config has it now: the tried one of that name goes.
                    v.tried.retain(|c| c.name != local);
                    v.select = Some(local.clone());
                    let path = s
                        .config_path
                        .as_ref()
                        .map(|p| p.display().to_string())
                        .unwrap_or_default();
                    let secrets = match stored.len() {
                        0 => String::new(),
                        _ => format!("; secrets in the credential store: {}", stored.join(", ")),
                    };
                    let note = format!(
                        "added {} to {}{secrets}; it connects now",
                        sanitize::one_line(&local),
                        sanitize::one_line(&path)
                    );
                    s.mode = Mode::Normal;
                    s.focus = Pane::Servers;
                    say(s, format!("{note}…"));
                    fx.push(Effect::Registry(RegistryFx::Reload { note }));
                }
                Err(e) => {
                    let e = sanitize::one_line(&e);
                    if let Some(f) = s.registry.form.as_mut() {
                        f.busy = false;
                        f.error = Some(e.clone());
                    }
                    say(s, format!("not added: {e}"));
                }
            }
            true
        }
    }
}

/// After the config was read again: forget tried servers the config now
/// defines, and select a server just added.
pub fn reloaded(s: &mut State, servers: &[ServerConfig]) {
    s.registry
        .tried
        .retain(|t| servers.iter().any(|c| c.name == t.name && c == t));
    if let Some(name) = s.registry.select.take()
        && let Some(i) = s.servers.iter().position(|v| v.name == name)
    {
        s.server_sel = i;
        s.refilter();
    }
}

/// A key in the view.
pub fn key(s: &mut State, k: KeyEvent, action: Option<Action>, fx: &mut Vec<Effect>) -> bool {
    if s.registry.form.is_some() {
        return form::key(s, k, action, fx);
    }
    if s.registry.focus == Focus::Search {
        return search_key(s, k, action, fx);
    }
    let Some(a) = action else {
        return false;
    };
    match a {
        Action::Up
        | Action::Down
        | Action::PageUp
        | Action::PageDown
        | Action::Home
        | Action::End => move_in(s, a),
        Action::Filter => {
            s.registry.focus = Focus::Search;
            true
        }
        Action::Open | Action::NextPane | Action::Right if s.registry.focus == Focus::List => {
            s.registry.focus = Focus::Detail;
            true
        }
        Action::NextPane => {
            s.registry.focus = Focus::Search;
            true
        }
        Action::PrevPane | Action::Left if s.registry.focus == Focus::Detail => {
            s.registry.focus = Focus::List;
            true
        }
        Action::PrevPane => {
            s.registry.focus = Focus::Search;
            true
        }
        Action::Back if s.registry.focus == Focus::Detail => {
            s.registry.focus = Focus::List;
            true
        }
        Action::Back | Action::Quit | Action::Registry => {
            s.mode = Mode::Normal;
            true
        }
        // `r`: ask again now (the key that reconnects in the panes).
        Action::Reconnect => {
            search_now(s, fx);
            true
        }
        Action::TryServer => try_selected(s, fx),
        Action::AddServer => add_selected(s),
        Action::Help => {
            s.help_back = Some(Mode::Registry);
            s.mode = Mode::Help;
            true
        }
        _ => false,
    }
}

/// The search field: letters type; the moves move the list; Enter goes
/// to the list; Esc leaves the view (the query and results are kept).
fn search_key(s: &mut State, k: KeyEvent, action: Option<Action>, fx: &mut Vec<Effect>) -> bool {
    let v = &mut s.registry;
    if crate::tui::app::edit_line(&mut v.query, &k) {
        v.due = Some(s.clock);
        v.sel = 0;
        v.detail_scroll = 0;
        return true;
    }
    match action {
        Some(
            a @ (Action::Up
            | Action::Down
            | Action::PageUp
            | Action::PageDown
            | Action::Home
            | Action::End),
        ) => move_in(s, a),
        Some(Action::Open | Action::NextPane) => {
            // Enter asks at once what is typed, if it waits.
            if s.registry.due.is_some() {
                search_now(s, fx);
            }
            s.registry.focus = Focus::List;
            true
        }
        Some(Action::PrevPane) => {
            s.registry.focus = Focus::Detail;
            true
        }
        Some(Action::ClearField) => {
            s.registry.query.clear();
            s.registry.due = Some(s.clock);
            true
        }
        Some(Action::Back | Action::Registry) => {
            s.mode = Mode::Normal;
            true
        }
        Some(Action::TryServer) => try_selected(s, fx),
        _ => false,
    }
}

/// `value` moved by `by`, within `0..len`.
fn step(value: usize, by: isize, len: usize) -> usize {
    if len == 0 {
        return 0;
    }
    (value.min(len - 1) as isize)
        .saturating_add(by)
        .clamp(0, len as isize - 1) as usize
}

fn move_in(s: &mut State, a: Action) -> bool {
    let detail = s.registry.focus == Focus::Detail;
    let (rows_seen, total) = crate::tui::ui::registry::detail_geometry(s);
    let page = if detail {
        rows_seen.max(1) as isize
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
    let v = &mut s.registry;
    if detail {
        let last = total.saturating_sub(rows_seen.max(1)) + 1;
        let new = step(v.detail_scroll, by, last);
        let changed = new != v.detail_scroll;
        v.detail_scroll = new;
        return changed;
    }
    let new = step(v.sel, by, v.items.len());
    let changed = new != v.sel;
    if changed {
        v.sel = new;
        v.detail_scroll = 0;
    }
    changed
}

/// Every way to run an entry, in `registry show`'s order: its packages,
/// then its remotes.
pub fn ways(entry: &Entry) -> Vec<Choice> {
    (1..=entry.packages.len())
        .map(Choice::Package)
        .chain((1..=entry.remotes.len()).map(Choice::Remote))
        .collect()
}

/// `package 1: npm @x/y 1.0.0`, `remote 1: streamable-http https://…`.
pub fn way_label(entry: &Entry, c: Choice) -> String {
    let one = sanitize::one_line;
    match c {
        Choice::Package(n) => entry.packages.get(n - 1).map_or_else(String::new, |p| {
            format!(
                "package {n}: {} {}{}",
                one(&p.registry_type),
                one(&p.identifier),
                p.version
                    .as_deref()
                    .map(|v| format!(" {}", one(v)))
                    .unwrap_or_default()
            )
        }),
        Choice::Remote(n) => entry.remotes.get(n - 1).map_or_else(String::new, |r| {
            format!("remote {n}: {} {}", one(&r.kind), one(&r.url))
        }),
    }
}

/// The inputs a person fills for a way: its environment variables,
/// headers, arguments without a fixed value, and the `{variables}` of the
/// values that have one (each once).
pub fn inputs_of(entry: &Entry, c: Choice) -> Vec<(FieldKind, Input)> {
    let mut out: Vec<(FieldKind, Input)> = Vec::new();
    fn var(out: &mut Vec<(FieldKind, Input)>, i: &Input) {
        for v in &i.variables {
            if !out
                .iter()
                .any(|(k, x)| *k == FieldKind::Var && x.name == v.name)
            {
                out.push((FieldKind::Var, v.clone()));
            }
        }
    }
    match c {
        Choice::Package(n) => {
            let Some(p) = entry.packages.get(n - 1) else {
                return out;
            };
            for e in &p.env {
                if e.value.is_some() {
                    var(&mut out, e);
                } else {
                    out.push((FieldKind::Env, e.clone()));
                }
            }
            for a in p.runtime_args.iter().chain(&p.package_args) {
                if a.input.value.is_some() {
                    var(&mut out, &a.input);
                } else if !out
                    .iter()
                    .any(|(k, x)| *k == FieldKind::Arg && x.name == a.input.name)
                {
                    out.push((FieldKind::Arg, a.input.clone()));
                }
            }
        }
        Choice::Remote(n) => {
            let Some(r) = entry.remotes.get(n - 1) else {
                return out;
            };
            for v in &r.variables {
                out.push((FieldKind::Var, v.clone()));
            }
            for h in &r.headers {
                if h.value.is_some() {
                    var(&mut out, h);
                } else {
                    out.push((FieldKind::Header, h.clone()));
                }
            }
        }
    }
    out
}

/// The name a tried entry gets: its local name, or with `-try` (then a
/// number) when the config has a server of that name.
pub fn try_name(s: &State, entry: &Entry) -> String {
    let base = local_name(&entry.name);
    let taken = |n: &str| {
        s.servers
            .iter()
            .any(|v| v.name == n && !s.registry.is_tried(n))
    };
    if !taken(&base) {
        return base;
    }
    let mut name = format!("{base}-try");
    let mut i = 2;
    while taken(&name) {
        name = format!("{base}-try{i}");
        i += 1;
    }
    name
}

/// The name an added entry gets by default: its local name, or with a
/// number when the config has a server of that name.
pub fn add_name(s: &State, entry: &Entry) -> String {
    let base = local_name(&entry.name);
    let taken = |n: &str| {
        s.servers
            .iter()
            .any(|v| v.name == n && !s.registry.is_tried(n))
    };
    let mut name = base.clone();
    let mut i = 2;
    while taken(&name) {
        name = format!("{base}-{i}");
        i += 1;
    }
    name
}

/// The try key: connect the selected entry for this session, by its
/// default way; with inputs missing, the form asks for them first.
fn try_selected(s: &mut State, fx: &mut Vec<Effect>) -> bool {
    let Some(item) = s.registry.selected().cloned() else {
        say(s, "no entry selected: search, then pick one");
        return true;
    };
    let choice = match &item.default {
        Ok(c) => *c,
        Err(why) => {
            say(s, format!("cannot try it: {}", sanitize::one_line(why)));
            return true;
        }
    };
    match launch::resolve(&item.entry, choice, &Given::default()) {
        Ok(r) => start_try(s, &item.entry, r, fx),
        Err(LaunchError::Missing(_)) => {
            s.registry.form = Some(Form::new(s, &item, Purpose::Try));
            true
        }
        Err(e) => {
            say(
                s,
                format!(
                    "cannot try {}: {}",
                    sanitize::one_line(&item.entry.name),
                    sanitize::one_line(&e.to_string())
                ),
            );
            true
        }
    }
}

/// The add key: the form (refused without a config file).
fn add_selected(s: &mut State) -> bool {
    let Some(item) = s.registry.selected().cloned() else {
        say(s, "no entry selected: search, then pick one");
        return true;
    };
    if s.config_path.is_none() {
        let try_key = s.keymap.label(Action::TryServer);
        say(
            s,
            format!(
                "not added: this session has no config file (demo); {try_key} tries it for this session without adding it"
            ),
        );
        return true;
    }
    if item.entry.packages.is_empty() && item.entry.remotes.is_empty() {
        say(
            s,
            format!(
                "{} has neither packages nor remotes: nothing to add",
                sanitize::one_line(&item.entry.name)
            ),
        );
        return true;
    }
    s.registry.form = Some(Form::new(s, &item, Purpose::Add));
    true
}

/// Add a resolved entry as a server of this session (not the config),
/// select it and go to the panes.
pub(crate) fn start_try(s: &mut State, entry: &Entry, r: Resolved, fx: &mut Vec<Effect>) -> bool {
    let name = try_name(s, entry);
    let config = memory_entry(&name, &r);
    let v = &mut s.registry;
    v.form = None;
    match v.tried.iter_mut().find(|c| c.name == name) {
        Some(c) => *c = config.clone(),
        None => v.tried.push(config.clone()),
    }
    match s.servers.iter().position(|v| v.name == name) {
        Some(i) => {
            s.servers[i] = ServerView::new(&config);
            s.server_sel = i;
        }
        None => {
            s.servers.push(ServerView::new(&config));
            s.server_sel = s.servers.len() - 1;
        }
    }
    s.tool_sel = 0;
    s.refilter();
    s.relayout();
    s.mode = Mode::Normal;
    s.focus = Pane::Servers;
    s.focused();
    let deprecated = if entry.status == "deprecated" {
        format!(
            " [deprecated{}]",
            entry
                .status_message
                .as_deref()
                .map(|m| format!(": {}", sanitize::one_line(m)))
                .unwrap_or_default()
        )
    } else {
        String::new()
    };
    let note = format!(
        "trying {} ({} {}, {}){deprecated}: for this session, not in the config; {} goes back to the registry",
        sanitize::one_line(&name),
        sanitize::one_line(&entry.name),
        sanitize::one_line(&entry.version),
        r.picked,
        s.keymap.label(Action::Registry)
    );
    say(s, note);
    fx.push(Effect::Registry(RegistryFx::Try(Box::new(config))));
    true
}

/// The servers the manager runs: the config's, then the tried ones the
/// config does not name.
pub fn with_tried(config: &[ServerConfig], tried: &[ServerConfig]) -> Vec<ServerConfig> {
    let mut all = config.to_vec();
    all.extend(
        tried
            .iter()
            .filter(|t| !config.iter().any(|c| c.name == t.name))
            .cloned(),
    );
    all
}
