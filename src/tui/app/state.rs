//! [`State`]: everything the UI shows, and queries over it (the visible
//! tools, the selection, the log's and the network view's contents).

use std::collections::HashMap;
use std::path::PathBuf;
use std::sync::Arc;

use crate::config::ServerConfig;
use crate::mcp::manager::ServerStatus;
use crate::mcp::netlog::Exchange;
use crate::mcp::types::Tool;
use crate::tui::keymap::Keymap;

use super::Effect;
use super::model::*;
use crate::tui::browse::{Browse, Ctx, Go, Kind};

/// A log a view follows live ([`State::follows`]).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Follow {
    /// The protocol log: new frames.
    Frames,
    /// The network view: exchanges that begin or change.
    Net,
}

/// Everything the UI shows. Plain data.
pub struct State {
    pub servers: Vec<ServerView>,
    pub server_sel: usize,
    /// Tools of every server rather than the selected one.
    pub all_tools: bool,
    pub filter: String,
    /// Indices (server, tool) of the tools shown, after scope and filter.
    pub visible: Vec<(usize, usize)>,
    pub tool_sel: usize,
    pub focus: Pane,
    pub mode: Mode,
    pub editor: Option<Editor>,
    /// Each tool's last arguments, for this session.
    pub last_args: HashMap<(String, String), String>,
    /// Each tool's arguments as last sent (the reset key goes back to them).
    pub last_sent: HashMap<(String, String), String>,
    /// The calls running, in the order they started (any number, on any
    /// servers: none waits for another).
    pub running: Vec<InFlight>,
    /// This session's finished calls not shown, oldest first (bounded;
    /// see `calls`).
    pub done: Vec<Outcome>,
    /// The entry the result pane shows (a running call's tag, or
    /// [`State::outcome`]'s).
    pub shown: Option<u64>,
    /// Server requests waiting for the person, and the screen of the first.
    pub asks: crate::tui::ask::Asks,
    pub outcome: Option<Outcome>,
    /// The first screen line of the result shown.
    pub result_scroll: usize,
    /// The search in the result (`/` there; `n`/`N` move between matches).
    pub result_search: crate::tui::result::Search,
    /// The search in the detail (`/` there).
    pub detail_search: crate::tui::result::Search,
    /// The result's links offered by `f` (uri, what to show), and the
    /// one selected.
    pub links: Vec<(String, String)>,
    pub links_sel: usize,
    /// The calls made, newest first (this session's and those kept from
    /// earlier ones).
    pub history: Vec<crate::tui::history::Entry>,
    /// Where the history is kept (`None`: it is not).
    pub history_path: Option<PathBuf>,
    pub history_sel: usize,
    pub history_filter: String,
    /// The history's filter is being typed.
    pub history_typing: bool,
    /// The calls marked in the history (two at most), for a diff.
    pub history_marked: Vec<crate::tui::history::Entry>,
    /// The diff of two calls, shown over the history list.
    pub history_diff: Option<super::history_diff::HistoryDiff>,
    /// The focused pane has the whole screen (`z`).
    pub zoom: bool,
    /// The help has the whole screen (`z` in the help).
    pub help_zoom: bool,
    /// The first screen line of the detail shown.
    pub detail_scroll: usize,
    /// The detail shows the selected server (rather than the tool): set
    /// when the servers pane takes the focus, kept while the detail has
    /// it, so the server's detail can be scrolled.
    pub detail_server: bool,
    /// The pane that had the focus before a call's result took it (Esc
    /// on the result goes back there).
    pub focus_before_result: Option<Pane>,
    /// The import screen, while it is open.
    pub import: Option<ImportView>,
    /// Enter waits for a server's tools (it was still connecting).
    pub pending_open: Option<PendingOpen>,
    /// Keys typed as a request screen came or went on its own are being
    /// dropped (see `app::guard`).
    pub key_guard: Option<super::guard::KeyGuard>,
    pub keymap: Keymap,
    /// A one-line message for the status bar (errors of writes, hints).
    pub status: Option<String>,
    /// When the status message was set (it expires after `STATUS_TTL`).
    pub status_since: Option<std::time::Instant>,
    pub spinner: usize,
    pub config_path: Option<PathBuf>,
    /// The raw frames (shared with the sessions; read-only here).
    pub frames: Option<Arc<crate::mcp::framelog::FrameLog>>,
    pub log: LogView,
    pub net: NetView,
    /// Latency per server and method, from the response frames (the
    /// reset key forgets a server's).
    pub latency: crate::record::stats::Latencies,
    /// The next frame the statistics read.
    pub latency_next: u64,
    /// The colours (`[theme]`, `NO_COLOR`).
    pub theme: crate::tui::theme::Theme,
    /// The time as the driver last told it (`Msg::Clock`).
    pub clock: Option<std::time::Instant>,
    /// The terminal's size (from `Msg::Resize`).
    pub size: (u16, u16),
    /// Where the panes are at that size, for mapping clicks and pages.
    pub areas: crate::tui::layout::Areas,
    pub add: AddForm,
    /// The resources view.
    pub resources: crate::tui::browse::Browse,
    /// The prompts view.
    pub prompts: crate::tui::browse::Browse,
    /// The skills view.
    pub skills: crate::tui::skills::SkillsView,
    /// The MCP Registry browser, and the servers tried from it.
    pub registry: crate::tui::registry::RegistryView,
    /// Where closing the help goes back to (a view), if not the panes.
    pub help_back: Option<Mode>,
    /// The first help line shown, when the help does not fit.
    pub help_scroll: usize,
    /// The help's search: the words typed after `/`.
    pub help_query: String,
    /// The search is being typed (keys go into it).
    pub help_typing: bool,
    /// The login screen, while it is open.
    pub login: Option<LoginView>,
    /// A call that needs more scope: the server and the scopes a login
    /// should ask for (the login key uses them).
    pub step_up: Option<(String, Vec<String>)>,
    /// The pin file, as read when the TUI started (tool trust).
    pub pins: super::trust::Pins,
    /// `[settings]` (the lint defaults among them).
    pub settings: crate::config::Settings,
    /// The list of running `mcpdeck serve` processes.
    pub serves: crate::tui::attach::ServesList,
    /// The serve attached to, if any.
    pub attached: Option<crate::tui::attach::Attached>,
    /// The user's home directory (a root that is it gets a warning badge).
    pub home: Option<PathBuf>,
    /// The roots come from `--roots` rather than the config.
    pub roots_flag: bool,
    /// A server's roots being edited (`D`).
    pub roots_edit: Option<super::roots::RootsEdit>,
    /// The test suite picker (`T`, `X`).
    pub suite_pick: Option<super::suites::SuitePick>,
    /// The tests view: a suite's run (`X`).
    pub tests: Option<super::suites::TestsView>,
    /// The suite file picked last (as typed), offered first next time.
    pub last_suite: Option<String>,
    next_tag: u64,
}

impl State {
    pub fn new(servers: &[ServerConfig], keymap: Keymap, config_path: Option<PathBuf>) -> State {
        let mut s = State {
            servers: servers.iter().map(ServerView::new).collect(),
            server_sel: 0,
            all_tools: false,
            filter: String::new(),
            visible: Vec::new(),
            tool_sel: 0,
            focus: Pane::Servers,
            mode: Mode::Normal,
            editor: None,
            last_args: HashMap::new(),
            last_sent: HashMap::new(),
            running: Vec::new(),
            done: Vec::new(),
            shown: None,
            asks: crate::tui::ask::Asks::default(),
            outcome: None,
            result_scroll: 0,
            result_search: Default::default(),
            detail_search: Default::default(),
            links: Vec::new(),
            links_sel: 0,
            history: Vec::new(),
            history_path: None,
            history_sel: 0,
            history_filter: String::new(),
            history_typing: false,
            history_marked: Vec::new(),
            history_diff: None,
            zoom: false,
            help_zoom: false,
            detail_scroll: 0,
            detail_server: true,
            focus_before_result: None,
            pending_open: None,
            key_guard: None,
            import: None,
            keymap,
            status: None,
            status_since: None,
            spinner: 0,
            config_path,
            frames: None,
            log: LogView::default(),
            net: NetView::default(),
            latency: Default::default(),
            latency_next: 0,
            // The driver hands in the theme it built from the config and
            // the environment.
            theme: crate::tui::theme::Theme::default(),
            clock: None,
            size: (80, 24),
            areas: crate::tui::layout::Areas::default(),
            add: AddForm::default(),
            resources: crate::tui::browse::Browse::default(),
            prompts: crate::tui::browse::Browse::default(),
            skills: crate::tui::skills::SkillsView::default(),
            registry: crate::tui::registry::RegistryView::default(),
            help_back: None,
            help_scroll: 0,
            help_query: String::new(),
            help_typing: false,
            login: None,
            step_up: None,
            pins: Err("the pin file was not read".into()),
            settings: crate::config::Settings::default(),
            serves: Default::default(),
            attached: None,
            home: None,
            roots_flag: false,
            roots_edit: None,
            suite_pick: None,
            tests: None,
            last_suite: None,
            next_tag: 1,
        };
        s.refilter();
        s.relayout();
        s
    }

    /// Recompute the panes' areas for the current size and server count.
    pub fn relayout(&mut self) {
        let screen = ratatui::layout::Rect::new(0, 0, self.size.0, self.size.1);
        self.areas = crate::tui::layout::layout(screen, self.servers.len());
        if let Some(p) = self.zoomed_pane() {
            self.areas = crate::tui::layout::zoomed(self.areas, p);
        }
    }

    /// The pane that has the whole screen (`z`), if any: the focused one,
    /// in the panes (the editor keeps the layout it needs).
    pub fn zoomed_pane(&self) -> Option<Pane> {
        (self.zoom && matches!(self.mode, Mode::Normal | Mode::Help | Mode::ConfirmQuit))
            .then_some(self.focus)
    }

    /// The focus moved: the detail follows (the server's while the servers
    /// pane has the focus, the tool's from the tools pane; moving into the
    /// detail keeps what it showed, so it can be scrolled).
    pub fn focused(&mut self) {
        match self.focus {
            Pane::Servers => {
                if !self.detail_server {
                    self.detail_scroll = 0;
                }
                self.detail_server = true;
            }
            // An empty tools pane (a failed server) keeps the server's
            // detail, so the next pane scrolls it.
            Pane::Tools if self.selected_tool().is_some() => {
                if self.detail_server {
                    self.detail_scroll = 0;
                }
                self.detail_server = false;
            }
            Pane::Tools => {}
            Pane::Detail | Pane::Result => {}
        }
    }

    /// What the focused pane has selected, for the keys that act on it.
    pub fn focused_item(&self) -> Focused {
        let server = match self.focus {
            Pane::Servers => true,
            Pane::Tools => self.selected_tool().is_none() && self.detail_server,
            Pane::Detail => self.detail_server,
            Pane::Result => return Focused::Nothing,
        };
        if server {
            if self.selected_server().is_some() {
                Focused::Server
            } else {
                Focused::Nothing
            }
        } else if self.selected_tool().is_some() {
            Focused::Tool
        } else {
            Focused::Nothing
        }
    }

    /// The rows a pane shows inside its border (a page for PgUp/PgDn).
    pub fn page_rows(&self, pane: Pane) -> usize {
        let area = match pane {
            Pane::Servers => self.areas.servers,
            Pane::Tools => self.areas.tools,
            Pane::Detail => self.areas.detail,
            Pane::Result => self.areas.result,
        };
        area.height.saturating_sub(2) as usize
    }

    /// The result pane's text width (inside its border).
    pub fn result_width(&self) -> u16 {
        self.areas.result.width.saturating_sub(2)
    }

    /// The screen lines of the outcome shown, at the result pane's width.
    pub fn result_len(&self) -> usize {
        match (&self.outcome, self.inflight()) {
            (Some(o), None) => o.lines.screen_len(self.result_width()),
            _ => 0,
        }
    }

    /// The rows of the result pane the outcome has (a login hint may take
    /// the first).
    pub fn result_room(&self) -> usize {
        let hint = crate::tui::ui::step_up_hint_shown(self) as usize
            + crate::tui::ui::strip_shown(self) as usize;
        self.page_rows(Pane::Result).saturating_sub(hint)
    }

    /// The screen lines of the detail pane's content at its width.
    pub fn detail_len(&self) -> usize {
        crate::tui::ui::detail_height(self, self.areas.detail.width.saturating_sub(2))
    }

    /// Whether anything animates (the spinner runs only then).
    pub fn busy(&self) -> bool {
        // The protocol log and the network view do not poll: the loop
        // wakes them when a frame or an exchange comes (`follows_logs`).
        self.animating()
    }

    /// The log the view follows live, if any: the loop wakes it when
    /// that log changes.
    pub fn follows(&self) -> Option<Follow> {
        if self.in_log() {
            Some(Follow::Frames)
        } else {
            (self.mode == Mode::Net).then_some(Follow::Net)
        }
    }

    /// Whether the spinner has something to show.
    pub(super) fn animating(&self) -> bool {
        !self.running.is_empty()
            || self.login.as_ref().is_some_and(LoginView::running)
            || self.resources.pending.is_some()
            || self.prompts.pending.is_some()
            || self.skills.busy()
            || self.registry.busy()
            || (self.mode == Mode::Tests && self.tests.as_ref().is_some_and(|v| v.running))
            || self
                .servers
                .iter()
                .any(|s| s.status == ServerStatus::Pending)
    }

    pub(super) fn in_log(&self) -> bool {
        matches!(self.mode, Mode::Log | Mode::LogFilter)
    }

    /// The frames the log shows, after its filters.
    pub fn log_frames(&self) -> Vec<Arc<crate::mcp::framelog::Frame>> {
        let Some(frames) = &self.frames else {
            return Vec::new();
        };
        let server = self
            .selected_server()
            .map(|v| v.name.as_str())
            .unwrap_or("");
        let method = self.log.method.to_lowercase();
        frames
            .snapshot()
            .into_iter()
            .filter(|f| !self.log.only_server || &*f.server == server)
            .filter(|f| {
                method.is_empty()
                    || f.method
                        .as_deref()
                        .is_some_and(|m| m.to_lowercase().contains(&method))
            })
            .collect()
    }

    /// The HTTP exchanges the network view shows, oldest first.
    pub fn net_exchanges(&self) -> Vec<Exchange> {
        let Some(frames) = &self.frames else {
            return Vec::new();
        };
        let mut all = frames.net().snapshot();
        if self.net.only_server {
            let server = self
                .selected_server()
                .map(|v| v.name.as_str())
                .unwrap_or("");
            all.retain(|e| &*e.server == server);
        }
        all
    }

    /// The index of the selected exchange in `list` (the newest when
    /// following, the next one when the selected one is gone).
    pub fn net_index(&self, list: &[Exchange]) -> Option<usize> {
        if list.is_empty() {
            return None;
        }
        let last = list.len() - 1;
        Some(match self.net.sel {
            None => last,
            Some(seq) => list.iter().position(|e| e.seq >= seq).unwrap_or(last),
        })
    }

    /// The roots offered to a server: its own `roots`, else the global
    /// ones (`--roots` replaced both when it was given).
    pub fn server_roots<'a>(&'a self, v: &'a ServerView) -> &'a [PathBuf] {
        match &v.trust.config {
            Some(c) => c.roots(&self.settings),
            None => &self.settings.roots,
        }
    }

    /// A server is offered a root that is `/` or the home directory.
    pub fn wide_roots(&self, v: &ServerView) -> bool {
        self.server_roots(v)
            .iter()
            .any(|d| crate::config::ServerConfig::wide_root(d, self.home.as_deref()).is_some())
    }

    pub fn selected_server(&self) -> Option<&ServerView> {
        self.servers.get(self.server_sel)
    }

    /// The selected tool and its server.
    pub fn selected_tool(&self) -> Option<(&ServerView, &Tool)> {
        let (si, ti) = *self.visible.get(self.tool_sel)?;
        let server = self.servers.get(si)?;
        Some((server, server.lists.tools.get(ti)?))
    }

    /// The selected tool as (server name, tool name).
    pub fn selected_names(&self) -> Option<(String, String)> {
        let (v, t) = self.selected_tool()?;
        Some((v.name.clone(), t.name.clone()))
    }

    /// Recompute the visible tools after a change of scope or filter.
    pub fn refilter(&mut self) {
        let previous = self.selected_names();
        self.refilter_to(previous);
    }

    /// Recompute the visible tools, keeping `previous` selected by name
    /// (indices shift when lists change; names do not).
    pub fn refilter_to(&mut self, previous: Option<(String, String)>) {
        let needle = self.filter.to_lowercase();
        let keep = |t: &Tool| {
            needle.is_empty()
                || t.name.to_lowercase().contains(&needle)
                || t.title
                    .as_deref()
                    .is_some_and(|x| x.to_lowercase().contains(&needle))
                || t.description
                    .as_deref()
                    .is_some_and(|d| d.to_lowercase().contains(&needle))
        };
        self.visible.clear();
        for (si, s) in self.servers.iter().enumerate() {
            if !self.all_tools && si != self.server_sel {
                continue;
            }
            for (ti, t) in s.lists.tools.iter().enumerate() {
                if keep(t) {
                    self.visible.push((si, ti));
                }
            }
        }
        let servers = &self.servers;
        self.tool_sel = previous
            .and_then(|(sn, tn)| {
                self.visible.iter().position(|&(si, ti)| {
                    servers[si].name == sn
                        && servers[si]
                            .lists
                            .tools
                            .get(ti)
                            .is_some_and(|t| t.name == tn)
                })
            })
            .unwrap_or(0)
            .min(self.visible.len().saturating_sub(1));
    }

    /// The resources or prompts view.
    pub fn browse(&self, kind: Kind) -> &Browse {
        match kind {
            Kind::Resources => &self.resources,
            Kind::Prompts => &self.prompts,
        }
    }

    /// Open a view on the selected server (its state is kept while the
    /// server stays the same).
    pub fn open_view(&mut self, kind: Kind) {
        let server = self
            .selected_server()
            .map(|v| v.name.clone())
            .unwrap_or_default();
        match kind {
            Kind::Resources => self.resources.open(server),
            Kind::Prompts => self.prompts.open(server),
        }
        self.mode = kind.mode();
    }

    /// Run `f` on a view with what it needs of the rest of the state, then
    /// carry out what it asked: a status line, where to go.
    pub(crate) fn with_browse<T>(
        &mut self,
        kind: Kind,
        fx: &mut Vec<Effect>,
        f: impl FnOnce(&mut Browse, &mut Ctx) -> T,
    ) -> T {
        let b = match kind {
            Kind::Resources => &mut self.resources,
            Kind::Prompts => &mut self.prompts,
        };
        let server = self.servers.iter_mut().find(|v| v.name == b.server);
        let mut cx = Ctx {
            kind,
            server,
            tags: &mut self.next_tag,
            area: self.areas.main,
            fx,
            status: None,
            go: Go::Stay,
        };
        let out = f(b, &mut cx);
        let (status, go) = (cx.status, cx.go);
        if let Some(status) = status {
            self.status = status;
        }
        match go {
            Go::Stay => {}
            Go::Panes => self.mode = Mode::Normal,
            Go::View(other) => self.open_view(other),
            Go::Skills => {
                crate::tui::skills::open(self, fx);
            }
            Go::Help => {
                self.help_back = Some(kind.mode());
                self.mode = Mode::Help;
            }
        }
        out
    }

    pub(crate) fn next_tag(&mut self) -> u64 {
        let t = self.next_tag;
        self.next_tag += 1;
        t
    }
}
