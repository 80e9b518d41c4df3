//! The skills view of a server: the MCP Skills extension (SEP-2640,
//! `io.modelcontextprotocol/skills`) as a careful host takes it.
//!
//! - Opening the view sends `skills/list` (every `nextCursor` page, at
//!   most [`skills::MAX_PAGES`]); listing reads no file.
//! - Enter on a skill loads it: a `resources/read` of its `SKILL.md` and
//!   nothing else, verified against the entry held (size, digest, the
//!   frontmatter field by field). What fails is not shown; an entry with
//!   problems is never read.
//! - Enter on one of a loaded skill's files reads that file, verified
//!   against the entry the skill was loaded from; a file the entry does
//!   not list is never read.
//!
//! The requests go to the manager as `Command::Request` effects and their
//! answers come back as events matched by tag (an answer no longer
//! awaited is dropped); each step is a pure function ([`check`]), so the
//! view never waits.

mod check;

use std::collections::HashMap;

use crossterm::event::KeyEvent;
use serde_json::{Value, json};

pub use check::{check_file, check_skill_md, may_read};

use crate::mcp::manager::{CallError, Command, ServerStatus};
use crate::mcp::skills::{self, Files, Listing, Skill, SkillFile};
use crate::sanitize;
use crate::tui::app::{Effect, Mode, State};
use crate::tui::keymap::Action;
use crate::tui::result::Prepared;

/// Which part of the view has the keys.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub enum Focus {
    #[default]
    List,
    /// A loaded skill's files.
    Files,
    /// The file shown.
    Contents,
}

/// A supporting file of a loaded skill, once asked for.
#[derive(Debug, Clone)]
pub enum FileState {
    /// Read and verified: its size, and its text (`None`: not UTF-8, so
    /// binary, not shown).
    Read {
        size: usize,
        text: Option<Box<Prepared>>,
    },
    /// Not read, or read and refused: why (nothing of it is kept).
    Failed(String),
}

/// What loading a skill came to.
#[derive(Debug, Clone)]
pub enum Load {
    /// `SKILL.md` read and verified against `entry`, the entry held while
    /// the skill is loaded (its files are read against it).
    Loaded {
        entry: Box<Skill>,
        /// `false`: a dynamic skill (no digest to check; only its
        /// frontmatter was compared).
        verified: bool,
        text: Box<Prepared>,
        /// The raw text, for copying.
        raw: String,
        /// The supporting files asked for, by URI.
        files: HashMap<String, FileState>,
    },
    /// The read failed or did not verify: why. Nothing of it is kept.
    Failed { entry: Box<Skill>, why: String },
}

impl Load {
    pub fn entry(&self) -> &Skill {
        match self {
            Load::Loaded { entry, .. } | Load::Failed { entry, .. } => entry,
        }
    }
}

/// `skills/list` in flight: its tag, the page asked for, the pages so far.
#[derive(Debug, Clone)]
pub struct ListingReq {
    pub tag: u64,
    pub page: usize,
    pub so_far: Listing,
}

/// A `resources/read` in flight.
#[derive(Debug, Clone)]
pub struct Reading {
    pub tag: u64,
    /// The entry the answer is verified against.
    pub entry: Box<Skill>,
    /// The file read (the skill's `SKILL.md`: a load).
    pub uri: String,
}

impl Reading {
    pub fn is_load(&self) -> bool {
        self.uri == self.entry.uri
    }
}

/// The state of the view.
#[derive(Debug, Clone, Default)]
pub struct SkillsView {
    /// The server the view shows.
    pub server: String,
    /// The last complete listing (`None`: none yet).
    pub listing: Option<Listing>,
    /// Its labels: names, or paths where names collide.
    pub labels: Vec<String>,
    /// Why the last `skills/list` failed.
    pub list_error: Option<String>,
    pub listing_req: Option<ListingReq>,
    pub reading: Option<Reading>,
    /// Loads by the URI of the skill's `SKILL.md` (this server's only).
    pub loads: HashMap<String, Load>,
    pub filter: String,
    /// Typing the filter.
    pub filtering: bool,
    /// Index into the filtered rows.
    pub sel: usize,
    pub focus: Focus,
    /// Index into the selected skill's files (its `SKILL.md` first).
    pub file_sel: usize,
    /// The first screen line of the file shown.
    pub scroll: usize,
}

/// One file of a skill as the files pane lists it.
#[derive(Debug, Clone, PartialEq)]
pub struct FileRow {
    pub uri: String,
    /// Its path relative to the skill's root.
    pub path: String,
    /// From the entry (`None`: a dynamic skill).
    pub size: Option<u64>,
}

/// A skill's files: `SKILL.md` first, then the others the entry lists
/// (only `SKILL.md` for a dynamic skill).
pub fn file_rows(skill: &Skill) -> Vec<FileRow> {
    let row = |f: &SkillFile| FileRow {
        uri: f.uri.clone(),
        path: skill.relative(&f.uri).to_string(),
        size: Some(f.size),
    };
    let mut rows = vec![match skill.file(&skill.uri) {
        Some(f) => row(f),
        None => FileRow {
            uri: skill.uri.clone(),
            path: "SKILL.md".into(),
            size: None,
        },
    }];
    if let Some(list) = skill.listed() {
        rows.extend(list.iter().filter(|f| f.uri != skill.uri).map(row));
    }
    rows
}

/// `2 files, 1.2 KB`, `dynamic`, or `–` (no usable file list).
pub fn files_text(s: &Skill) -> String {
    match &s.files {
        Some(Files::Listed(f)) => format!(
            "{} file{}, {}",
            f.len(),
            if f.len() == 1 { "" } else { "s" },
            crate::text::human_size(s.total_size().unwrap_or(0) as usize)
        ),
        Some(Files::Dynamic) => "dynamic".into(),
        None => "–".into(),
    }
}

/// What the list shows after a skill: `✗ invalid`, `✓ verified`,
/// `! dynamic`, `✗ failed: why`, or nothing.
pub fn badge(v: &SkillsView, skill: &Skill) -> Option<String> {
    if !skill.loadable() {
        return Some("✗ invalid".into());
    }
    match v.loads.get(&skill.uri) {
        Some(Load::Loaded { verified: true, .. }) => Some("✓ verified".into()),
        Some(Load::Loaded { .. }) => Some("! dynamic".into()),
        Some(Load::Failed { why, .. }) => Some(format!("✗ failed: {}", sanitize::one_line(why))),
        None => None,
    }
}

impl SkillsView {
    /// The listing's indices after the filter.
    pub fn rows(&self) -> Vec<usize> {
        let Some(l) = &self.listing else {
            return Vec::new();
        };
        let needle = self.filter.to_lowercase();
        l.skills
            .iter()
            .enumerate()
            .filter(|(i, k)| {
                needle.is_empty()
                    || [
                        self.labels.get(*i).map_or("", String::as_str),
                        &k.name,
                        &k.description,
                        &k.uri,
                    ]
                    .iter()
                    .any(|t| t.to_lowercase().contains(&needle))
            })
            .map(|(i, _)| i)
            .collect()
    }

    /// The selected skill and its index in the listing.
    pub fn selected(&self) -> Option<(usize, &Skill)> {
        let rows = self.rows();
        let i = *rows.get(self.sel.min(rows.len().saturating_sub(1)))?;
        Some((i, self.listing.as_ref()?.skills.get(i)?))
    }

    /// The selected skill's label.
    pub fn label(&self, i: usize) -> String {
        self.labels.get(i).cloned().unwrap_or_default()
    }

    /// The selected skill's load, if it has one for the entry listed now.
    pub fn load(&self) -> Option<&Load> {
        let (_, k) = self.selected()?;
        self.loads.get(&k.uri)
    }

    /// The selected skill, loaded: its held entry, its text, its files.
    pub fn loaded(&self) -> Option<&Load> {
        self.load().filter(|l| matches!(l, Load::Loaded { .. }))
    }

    /// The file the files pane has selected, when the skill is loaded.
    pub fn file(&self) -> Option<FileRow> {
        let rows = file_rows(self.loaded()?.entry());
        let i = self.file_sel.min(rows.len().saturating_sub(1));
        rows.into_iter().nth(i)
    }

    /// Whether the spinner has something to show.
    pub fn busy(&self) -> bool {
        self.listing_req.is_some() || self.reading.is_some()
    }

    /// Whether an answer with this tag is awaited by this view.
    pub fn awaits(&self, tag: u64) -> bool {
        self.listing_req.as_ref().is_some_and(|r| r.tag == tag)
            || self.reading.as_ref().is_some_and(|r| r.tag == tag)
    }

    /// A new listing: its labels, the selection kept on the same skill,
    /// and the loads whose entry did not change (a changed entry is a
    /// changed skill: it is loaded again).
    fn listed(&mut self, mut listing: Listing) {
        listing.mark_twins();
        let was = self.selected().map(|(_, k)| k.uri.clone());
        self.loads.retain(|uri, load| {
            listing
                .skills
                .iter()
                .any(|k| &k.uri == uri && k.raw == load.entry().raw)
        });
        self.labels = listing.labels();
        self.listing = Some(listing);
        self.list_error = None;
        let rows = self.rows();
        let skills = self.listing.as_ref().map_or(&[][..], |l| &l.skills[..]);
        let at = was.and_then(|uri| rows.iter().position(|i| skills[*i].uri == uri));
        if at != Some(self.sel) {
            self.sel = at.unwrap_or(0);
            self.file_sel = 0;
            self.scroll = 0;
        }
        if self.loaded().is_none() {
            self.focus = Focus::List;
        }
    }
}

fn say(s: &mut State, status: impl Into<String>) {
    s.status = Some(status.into());
}

/// Whether the server `name` can be asked for skills (configured,
/// connected, declaring the extension); else the status says why not.
fn askable(s: &mut State, name: &str) -> bool {
    let Some(v) = s.servers.iter().find(|v| v.name == name) else {
        let note = format!("{} is no longer configured", sanitize::one_line(name));
        say(s, note);
        return false;
    };
    let shown = sanitize::one_line(&v.name);
    if v.status != ServerStatus::Connected {
        let note = format!("{shown} is {}; connect it first", v.status.label());
        say(s, note);
        return false;
    }
    if v.negotiated
        .as_ref()
        .and_then(|n| skills::declared(&n.capabilities))
        .is_none()
    {
        let key = s.keymap.key_label(Action::Resources).unwrap_or_default();
        say(
            s,
            format!(
                "{shown} does not declare the skills extension ({}): no skills to list; {key} shows its resources",
                skills::EXTENSION
            ),
        );
        return false;
    }
    true
}

/// The skills key in the panes: the view of the selected server, listed
/// anew; or, on a server without the extension, the status says so.
pub fn open(s: &mut State, fx: &mut Vec<Effect>) -> bool {
    let Some(name) = s.selected_server().map(|v| v.name.clone()) else {
        say(s, "no server selected");
        return true;
    };
    if !askable(s, &name) {
        return true;
    }
    if s.skills.server != name {
        cancel_all(&mut s.skills, fx);
        s.skills = SkillsView {
            server: name,
            ..SkillsView::default()
        };
    }
    s.skills.filtering = false;
    s.mode = Mode::Skills;
    list(s, fx);
    true
}

/// Send `skills/list` (its first page), replacing one under way.
fn list(s: &mut State, fx: &mut Vec<Effect>) {
    let name = s.skills.server.clone();
    if !askable(s, &name) {
        return;
    }
    if let Some(r) = s.skills.listing_req.take() {
        fx.push(Effect::Manager(Command::Cancel { tag: r.tag }));
    }
    let tag = s.next_tag();
    fx.push(request(tag, &name, "skills/list", json!({})));
    s.skills.listing_req = Some(ListingReq {
        tag,
        page: 0,
        so_far: Listing::default(),
    });
}

fn request(tag: u64, server: &str, method: &str, params: Value) -> Effect {
    Effect::Manager(Command::Request {
        tag,
        server: server.to_string(),
        method: method.into(),
        params,
    })
}

/// Tell the server the requests under way are no longer wanted.
fn cancel_all(v: &mut SkillsView, fx: &mut Vec<Effect>) {
    if let Some(r) = v.listing_req.take() {
        fx.push(Effect::Manager(Command::Cancel { tag: r.tag }));
    }
    if let Some(r) = v.reading.take() {
        fx.push(Effect::Manager(Command::Cancel { tag: r.tag }));
    }
}

/// Read `uri` of `entry` (its `SKILL.md`: a load), replacing a read under
/// way. Refused without a request when the entry does not allow it.
fn read(s: &mut State, entry: &Skill, uri: &str, fx: &mut Vec<Effect>) {
    if let Err(why) = may_read(entry, uri) {
        say(s, format!("not read: {}", sanitize::one_line(&why)));
        return;
    }
    let name = s.skills.server.clone();
    if !askable(s, &name) {
        return;
    }
    if let Some(r) = s.skills.reading.take() {
        fx.push(Effect::Manager(Command::Cancel { tag: r.tag }));
    }
    let tag = s.next_tag();
    fx.push(request(tag, &name, "resources/read", json!({ "uri": uri })));
    s.skills.reading = Some(Reading {
        tag,
        entry: Box::new(entry.clone()),
        uri: uri.to_string(),
    });
}

/// A key in the view.
pub fn key(s: &mut State, k: KeyEvent, action: Option<Action>, fx: &mut Vec<Effect>) -> bool {
    if s.skills.filtering {
        return filter_key(s, k, action);
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
        Action::NextPane | Action::Right => focus_by(s, 1),
        Action::PrevPane | Action::Left => focus_by(s, -1),
        Action::Open | Action::Send => enter(s, fx),
        Action::Filter => {
            s.skills.filtering = true;
            s.skills.focus = Focus::List;
            true
        }
        // `r`: list again (the key that reconnects in the panes).
        Action::Reconnect => {
            list(s, fx);
            true
        }
        Action::Copy => copy(s, fx),
        Action::Back => back(s, fx),
        Action::Quit | Action::Skills => {
            s.mode = Mode::Normal;
            true
        }
        Action::Resources => {
            s.open_view(crate::tui::browse::Kind::Resources);
            true
        }
        Action::Prompts => {
            s.open_view(crate::tui::browse::Kind::Prompts);
            true
        }
        Action::Help => {
            s.help_back = Some(Mode::Skills);
            s.mode = Mode::Help;
            true
        }
        _ => false,
    }
}

fn filter_key(s: &mut State, k: KeyEvent, action: Option<Action>) -> bool {
    let v = &mut s.skills;
    if !crate::tui::app::edit_line(&mut v.filter, &k) {
        match action {
            Some(Action::Back) => {
                v.filter.clear();
                v.filtering = false;
            }
            Some(Action::Open) => v.filtering = false,
            Some(a @ (Action::Up | Action::Down | Action::PageUp | Action::PageDown)) => {
                return move_in(s, a);
            }
            _ => return false,
        }
    }
    let v = &mut s.skills;
    v.sel = 0;
    v.file_sel = 0;
    v.scroll = 0;
    true
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
    let (rows_seen, width) = crate::tui::ui::skills::contents_geometry(s);
    let page = match s.skills.focus {
        Focus::Contents => rows_seen.max(1) as isize,
        _ => 10,
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
    let v = &mut s.skills;
    match v.focus {
        Focus::List => {
            let new = step(v.sel, by, v.rows().len());
            let changed = new != v.sel;
            if changed {
                v.sel = new;
                v.file_sel = 0;
                v.scroll = 0;
            }
            changed
        }
        Focus::Files => {
            let n = v.loaded().map_or(0, |l| file_rows(l.entry()).len());
            let new = step(v.file_sel, by, n);
            let changed = new != v.file_sel;
            if changed {
                v.file_sel = new;
                v.scroll = 0;
            }
            changed
        }
        Focus::Contents => {
            let n = crate::tui::ui::skills::shown_lines(v).map_or(0, |p| p.screen_len(width));
            let last = n.saturating_sub(rows_seen.max(1)) + 1;
            let new = step(v.scroll, by, last);
            let changed = new != v.scroll;
            v.scroll = new;
            changed
        }
    }
}

/// Tab and the arrows: the list, a loaded skill's files, the file shown.
fn focus_by(s: &mut State, by: isize) -> bool {
    let v = &mut s.skills;
    let order = if v.loaded().is_some() {
        &[Focus::List, Focus::Files, Focus::Contents][..]
    } else {
        &[Focus::List][..]
    };
    let at = order.iter().position(|f| *f == v.focus).unwrap_or(0);
    let new = order[step(at, by, order.len())];
    let changed = new != v.focus;
    v.focus = new;
    changed
}

/// Enter: on a skill, load it (an invalid one says why not; a loaded one
/// opens its files); on a file, read it (or show it, once read).
fn enter(s: &mut State, fx: &mut Vec<Effect>) -> bool {
    match s.skills.focus {
        Focus::List => {
            let Some((i, skill)) = s.skills.selected() else {
                say(s, "no skill selected");
                return true;
            };
            let (label, skill) = (s.skills.label(i), skill.clone());
            let label = sanitize::one_line(&label);
            if !skill.loadable() {
                let n = skill.problems.len();
                say(
                    s,
                    format!(
                        "{label}: the entry is invalid, so it is never loaded ({n} problem{} shown below)",
                        if n == 1 { "" } else { "s" }
                    ),
                );
                return true;
            }
            if s.skills.loaded().is_some() {
                s.skills.focus = Focus::Files;
                return true;
            }
            read(s, &skill, &skill.uri, fx);
            true
        }
        Focus::Files => {
            let (Some(file), Some(load)) = (s.skills.file(), s.skills.loaded()) else {
                return false;
            };
            let entry = load.entry().clone();
            let read_already = match load {
                Load::Loaded { files, .. } => {
                    matches!(files.get(&file.uri), Some(FileState::Read { .. }))
                }
                Load::Failed { .. } => false,
            };
            if file.uri == entry.uri || read_already {
                s.skills.focus = Focus::Contents;
            } else {
                read(s, &entry, &file.uri, fx);
            }
            true
        }
        Focus::Contents => false,
    }
}

/// Esc: out of the contents and the files, cancel what is under way (the
/// server is told), clear the filter, leave.
fn back(s: &mut State, fx: &mut Vec<Effect>) -> bool {
    let v = &mut s.skills;
    match v.focus {
        Focus::Contents => {
            v.focus = Focus::Files;
            return true;
        }
        Focus::Files => {
            v.focus = Focus::List;
            return true;
        }
        Focus::List => {}
    }
    if let Some(r) = v.reading.take() {
        fx.push(Effect::Manager(Command::Cancel { tag: r.tag }));
        let what = sanitize::one_line(&r.uri);
        say(
            s,
            format!("cancelled reading {what} (the server was told); Esc again leaves"),
        );
    } else if let Some(r) = v.listing_req.take() {
        fx.push(Effect::Manager(Command::Cancel { tag: r.tag }));
        say(
            s,
            "cancelled skills/list (the server was told); Esc again leaves",
        );
    } else if !v.filter.is_empty() {
        v.filter.clear();
        v.sel = 0;
    } else {
        s.mode = Mode::Normal;
    }
    true
}

/// `y`: the text shown (a verified file's), to the clipboard.
fn copy(s: &mut State, fx: &mut Vec<Effect>) -> bool {
    let text = match (s.skills.loaded(), s.skills.file()) {
        (Some(Load::Loaded { raw, entry, .. }), Some(f)) if f.uri == entry.uri => Some(raw.clone()),
        (Some(Load::Loaded { files, .. }), Some(f)) => match files.get(&f.uri) {
            Some(FileState::Read { text: Some(p), .. }) => Some(p.text_lines()),
            _ => None,
        },
        _ => None,
    };
    match text {
        Some(t) => {
            let note = crate::tui::app::copy_effect(t, fx);
            say(s, note);
        }
        None => say(s, "nothing read to copy: load a skill, then read a file"),
    }
    true
}

/// An answer to a request of the view; false when it is not one (or no
/// longer awaited).
pub fn on_response(
    s: &mut State,
    tag: u64,
    result: Result<Value, CallError>,
    fx: &mut Vec<Effect>,
) -> bool {
    if s.skills.listing_req.as_ref().is_some_and(|r| r.tag == tag) {
        if let Some(r) = s.skills.listing_req.take() {
            on_page(s, r, result, fx);
        }
        return true;
    }
    if s.skills.reading.as_ref().is_some_and(|r| r.tag == tag) {
        if let Some(r) = s.skills.reading.take() {
            on_read(s, r, result);
        }
        return true;
    }
    false
}

/// A page of `skills/list`: the next one asked for, or the listing done.
fn on_page(
    s: &mut State,
    mut r: ListingReq,
    result: Result<Value, CallError>,
    fx: &mut Vec<Effect>,
) {
    let page = match result {
        Ok(p) => p,
        Err(e) => {
            let why = sanitize::one_line(&e.to_string());
            s.skills.list_error = Some(why.clone());
            say(s, format!("skills/list failed: {why}"));
            return;
        }
    };
    if r.page == 0 {
        r.so_far.ttl_ms = page.get("ttlMs").and_then(Value::as_u64);
        r.so_far.cache_scope = page
            .get("cacheScope")
            .and_then(Value::as_str)
            .map(str::to_string);
    }
    if let Some(list) = page.get("skills").and_then(Value::as_array) {
        r.so_far.skills.extend(list.iter().map(Skill::from_entry));
    }
    let cursor = page
        .get("nextCursor")
        .and_then(Value::as_str)
        .filter(|c| !c.is_empty());
    match cursor {
        Some(c) if r.page + 1 < skills::MAX_PAGES => {
            let tag = s.next_tag();
            fx.push(request(
                tag,
                &s.skills.server,
                "skills/list",
                json!({ "cursor": c }),
            ));
            s.skills.listing_req = Some(ListingReq {
                tag,
                page: r.page + 1,
                so_far: r.so_far,
            });
        }
        _ => {
            r.so_far.truncated = cursor.is_some();
            let n = r.so_far.skills.len();
            let invalid = r.so_far.skills.iter().filter(|k| !k.loadable()).count();
            s.skills.listed(r.so_far);
            let mut note = format!("{n} skill{} listed", if n == 1 { "" } else { "s" });
            if invalid > 0 {
                note.push_str(&format!(" ({invalid} invalid)"));
            }
            if cursor.is_some() {
                note.push_str(&format!("; stopped after {} pages", skills::MAX_PAGES));
            }
            say(s, note);
        }
    }
}

/// The answer to a read: verified against the entry it was asked for,
/// kept only if that entry is still the one listed.
fn on_read(s: &mut State, r: Reading, result: Result<Value, CallError>) {
    let v = &mut s.skills;
    let current = v.listing.as_ref().is_some_and(|l| {
        l.skills
            .iter()
            .any(|k| k.uri == r.entry.uri && k.raw == r.entry.raw)
    });
    let name = sanitize::one_line(&r.entry.name);
    if !current {
        say(
            s,
            format!(
                "{name}: its entry changed while it was read; nothing of it is used (Enter loads it again)"
            ),
        );
        return;
    }
    if r.is_load() {
        let r_uri = r.entry.uri.clone();
        let outcome = match &result {
            Ok(answer) => check_skill_md(&r.entry, answer),
            Err(e) => Err(e.to_string()),
        };
        let note = match outcome {
            Ok((text, verified)) => {
                let prepared = Box::new(Prepared::plain(None, &text));
                v.loads.insert(
                    r.entry.uri.clone(),
                    Load::Loaded {
                        entry: r.entry,
                        verified,
                        text: prepared,
                        raw: text,
                        files: HashMap::new(),
                    },
                );
                if v.selected().is_some_and(|(_, k)| k.uri == r_uri) {
                    v.file_sel = 0;
                    v.scroll = 0;
                }
                if verified {
                    format!("✓ {name}: SKILL.md verified")
                } else {
                    format!("! {name}: SKILL.md read (dynamic: no digest to check)")
                }
            }
            Err(why) => {
                let note = format!("✗ {name} not loaded: {}", sanitize::one_line(&why));
                v.loads.insert(
                    r.entry.uri.clone(),
                    Load::Failed {
                        entry: r.entry,
                        why,
                    },
                );
                if v.loaded().is_none() {
                    v.focus = Focus::List;
                }
                note
            }
        };
        say(s, note);
        return;
    }
    // A supporting file: kept with the load it was read for.
    let Some(Load::Loaded { entry, files, .. }) = v.loads.get_mut(&r.entry.uri) else {
        return;
    };
    if entry.raw != r.entry.raw {
        return;
    }
    let path = sanitize::one_line(entry.relative(&r.uri));
    let outcome = match &result {
        Ok(answer) => check_file(entry, &r.uri, answer),
        Err(e) => Err(e.to_string()),
    };
    let note = match outcome {
        Ok(bytes) => {
            let size = bytes.len();
            let text = String::from_utf8(bytes)
                .ok()
                .map(|t| Box::new(Prepared::plain(None, &t)));
            files.insert(r.uri.clone(), FileState::Read { size, text });
            if s.skills.file().is_some_and(|f| f.uri == r.uri) {
                s.skills.scroll = 0;
            }
            format!("✓ {path} verified")
        }
        Err(why) => {
            let note = format!("✗ {path} not read: {}", sanitize::one_line(&why));
            files.insert(r.uri.clone(), FileState::Failed(why));
            note
        }
    };
    say(s, note);
}
