//! Attaching to a running `mcpdeck serve` through its control socket (see
//! [`crate::serve::control`]): the list of running serves, and the view of
//! the one attached to: its servers and tools (visible, refused by a rule,
//! withheld), its agent's calls live, its frames in the protocol log
//! (tagged `serve PID›SERVER`). `d` and Space steer it: the edit goes
//! through the socket, which writes the config file as `mcpdeck deny`
//! does; serve applies it and tells its agent.
//!
//! Plain state and pure transitions here; the socket is the driver's
//! ([`conn`], started by `Effect::Attach`), whose messages come back as
//! `Msg::Serves` and `Msg::Attach`.

pub mod conn;

use std::collections::VecDeque;
use std::path::PathBuf;

use serde_json::{Value, json};

use crate::sanitize;
use crate::tui::app::{Effect, Mode, State};
use crate::tui::keymap::Action;

/// The most calls the view keeps.
const KEEP_CALLS: usize = 500;

/// One running serve in the list.
#[derive(Debug, Clone, PartialEq)]
pub struct Running {
    pub pid: u32,
    pub socket: PathBuf,
    /// The agent's name and version, `-` before it spoke.
    pub agent: String,
    pub servers: String,
    pub calls: u64,
    pub config: String,
    /// Why it did not answer (it is listed still).
    pub error: Option<String>,
}

impl Running {
    pub fn from_found(f: &crate::serve::control::Found) -> Running {
        use crate::serve::control::{agent_name, server_names};
        match &f.status {
            Ok(s) => Running {
                pid: f.pid,
                socket: f.socket.clone(),
                agent: agent_name(s),
                servers: server_names(s),
                calls: s["call_count"].as_u64().unwrap_or(0),
                config: s["config"]
                    .as_str()
                    .map(sanitize::one_line)
                    .unwrap_or_else(|| "-".into()),
                error: None,
            },
            Err(e) => Running {
                pid: f.pid,
                socket: f.socket.clone(),
                agent: "-".into(),
                servers: "-".into(),
                calls: 0,
                config: "-".into(),
                error: Some(sanitize::one_line(e)),
            },
        }
    }
}

/// The list of running serves.
#[derive(Debug, Clone, Default)]
pub struct ServesList {
    pub loading: bool,
    pub rows: Vec<Running>,
    pub error: Option<String>,
    pub sel: usize,
}

/// How serve offers a tool to its agent.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum ToolState {
    Visible,
    /// Refused by the config's policy (`deny_tools`, `allow_tools`).
    Refused,
    /// Withheld by `--pinned`.
    Withheld,
}

#[derive(Debug, Clone, PartialEq)]
pub struct ServedTool {
    pub name: String,
    /// The name its agent gets (`SERVER__NAME` when aggregated).
    pub exposed: String,
    pub state: ToolState,
    /// The rule, or why it is withheld.
    pub rule: Option<String>,
}

#[derive(Debug, Clone, PartialEq)]
pub struct ServedServer {
    pub name: String,
    pub status: String,
    pub version: Option<String>,
    pub tools: Vec<ServedTool>,
    pub deny: Vec<String>,
    /// Not served now: disabled from here (kept so it can be enabled again).
    pub disabled: bool,
}

/// One call through serve.
#[derive(Debug, Clone, PartialEq)]
pub struct ServedCall {
    pub seq: u64,
    pub server: String,
    pub tool: String,
    /// Milliseconds since the epoch.
    pub at: u64,
    pub elapsed_ms: Option<f64>,
    pub outcome: String,
}

/// Which list of the attached view has the focus.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Focus {
    Servers,
    Tools,
    Calls,
}

/// The serve attached to.
#[derive(Debug, Clone)]
pub struct Attached {
    pub pid: u32,
    pub socket: PathBuf,
    /// Its first status came.
    pub connected: bool,
    pub agent: String,
    pub config: String,
    pub transport: String,
    pub call_count: u64,
    pub servers: Vec<ServedServer>,
    pub calls: VecDeque<ServedCall>,
    pub focus: Focus,
    pub server_sel: usize,
    pub tool_sel: usize,
    /// The selected call (`None`: the newest, followed).
    pub call_sel: Option<usize>,
    /// The socket went away: why.
    pub gone: Option<String>,
    /// Events serve dropped for this view (it read too slowly).
    pub dropped: u64,
}

impl Attached {
    pub fn new(pid: u32, socket: PathBuf) -> Attached {
        Attached {
            pid,
            socket,
            connected: false,
            agent: "-".into(),
            config: "-".into(),
            transport: String::new(),
            call_count: 0,
            servers: Vec::new(),
            calls: VecDeque::new(),
            focus: Focus::Servers,
            server_sel: 0,
            tool_sel: 0,
            call_sel: None,
            gone: None,
            dropped: 0,
        }
    }

    pub fn selected_server(&self) -> Option<&ServedServer> {
        self.servers.get(self.server_sel)
    }

    pub fn selected_tool(&self) -> Option<(&ServedServer, &ServedTool)> {
        let s = self.selected_server()?;
        Some((s, s.tools.get(self.tool_sel)?))
    }

    /// A status from serve: its servers replace the ones shown (a server
    /// disabled from here stays, marked, so it can be enabled again).
    pub fn apply_status(&mut self, status: &Value) {
        self.connected = true;
        self.agent = crate::serve::control::agent_name(status);
        if let Some(c) = status["config"].as_str() {
            self.config = sanitize::one_line(c);
        }
        self.transport = status["transport"]
            .as_str()
            .map(sanitize::one_line)
            .unwrap_or_default();
        self.call_count = status["call_count"].as_u64().unwrap_or(self.call_count);
        let selected = self.selected_server().map(|s| s.name.clone());
        let tool = self.selected_tool().map(|(_, t)| t.name.clone());
        let mut servers: Vec<ServedServer> = status["servers"]
            .as_array()
            .into_iter()
            .flatten()
            .map(parse_server)
            .collect();
        for old in &self.servers {
            if old.disabled && !servers.iter().any(|s| s.name == old.name) {
                servers.push(old.clone());
            }
        }
        self.servers = servers;
        self.server_sel = selected
            .and_then(|n| self.servers.iter().position(|s| s.name == n))
            .unwrap_or(self.server_sel)
            .min(self.servers.len().saturating_sub(1));
        let tools = self.selected_server().map_or(0, |s| s.tools.len());
        self.tool_sel = tool
            .and_then(|t| {
                self.selected_server()
                    .and_then(|s| s.tools.iter().position(|x| x.name == t))
            })
            .unwrap_or(self.tool_sel)
            .min(tools.saturating_sub(1));
        if let Some(calls) = status["calls"].as_array() {
            self.calls = calls.iter().filter_map(parse_call).collect();
        }
    }

    /// A call began or ended.
    pub fn apply_call(&mut self, call: &Value) {
        let Some(c) = parse_call(call) else { return };
        self.call_count = self.call_count.max(c.seq);
        match self.calls.iter_mut().rev().find(|x| x.seq == c.seq) {
            Some(old) => *old = c,
            None => {
                if self.calls.len() >= KEEP_CALLS {
                    self.calls.pop_front();
                    self.call_sel = self.call_sel.map(|i| i.saturating_sub(1));
                }
                self.calls.push_back(c);
            }
        }
    }
}

fn parse_server(v: &Value) -> ServedServer {
    let text = |k: &str| v[k].as_str().map(sanitize::one_line);
    let tools = v["tools"]
        .as_array()
        .into_iter()
        .flatten()
        .map(|t| ServedTool {
            name: t["name"].as_str().unwrap_or_default().to_string(),
            exposed: t["as"]
                .as_str()
                .or(t["name"].as_str())
                .unwrap_or_default()
                .to_string(),
            state: match t["state"].as_str() {
                Some("refused") => ToolState::Refused,
                Some("withheld") => ToolState::Withheld,
                _ => ToolState::Visible,
            },
            rule: t["rule"].as_str().map(sanitize::one_line),
        })
        .collect();
    ServedServer {
        name: v["name"].as_str().unwrap_or_default().to_string(),
        status: text("status").unwrap_or_default(),
        version: text("version"),
        tools,
        deny: v["deny_tools"]
            .as_array()
            .into_iter()
            .flatten()
            .filter_map(Value::as_str)
            .map(str::to_string)
            .collect(),
        disabled: false,
    }
}

fn parse_call(v: &Value) -> Option<ServedCall> {
    Some(ServedCall {
        seq: v["seq"].as_u64()?,
        server: v["server"].as_str()?.to_string(),
        tool: v["tool"].as_str()?.to_string(),
        at: v["at"].as_u64().unwrap_or(0),
        elapsed_ms: v["elapsed_ms"].as_f64(),
        outcome: v["outcome"].as_str().unwrap_or_default().to_string(),
    })
}

/// What the driver tells the attached view.
#[derive(Debug)]
pub enum AttachMsg {
    /// Serve's status (the first one: attached).
    Status(Value),
    /// A call began or ended.
    Call(Value),
    /// Serve dropped events for this view: the total so far.
    Dropped(u64),
    /// The answer to an edit: its message, or the error.
    Answer(Result<String, String>),
    /// The socket went away (serve exited), or could not be reached.
    Gone(String),
}

// ---------------------------------------------------------------------------
// Transitions.

/// Open the list and ask the driver to look.
pub fn open_list(s: &mut State, fx: &mut Vec<Effect>) -> bool {
    s.serves = ServesList {
        loading: true,
        ..ServesList::default()
    };
    s.mode = Mode::Serves;
    fx.push(Effect::FindServes);
    true
}

/// What the driver found.
pub fn found(s: &mut State, found: Result<Vec<Running>, String>) -> bool {
    s.serves.loading = false;
    match found {
        Ok(rows) => {
            let pid = s.serves.rows.get(s.serves.sel).map(|r| r.pid);
            s.serves.rows = rows;
            s.serves.error = None;
            s.serves.sel = pid
                .and_then(|p| s.serves.rows.iter().position(|r| r.pid == p))
                .unwrap_or(0);
        }
        Err(e) => s.serves.error = Some(e),
    }
    true
}

/// A key in the list of running serves.
pub fn list_key(s: &mut State, action: Option<Action>, fx: &mut Vec<Effect>) -> bool {
    let Some(a) = action else { return false };
    let n = s.serves.rows.len();
    match a {
        Action::Up
        | Action::Down
        | Action::PageUp
        | Action::PageDown
        | Action::Home
        | Action::End => {
            let new = crate::tui::app::step(s.serves.sel, moves(a), n);
            let moved = new != s.serves.sel;
            s.serves.sel = new;
            moved
        }
        Action::Open => {
            let Some(row) = s.serves.rows.get(s.serves.sel) else {
                s.status = Some("no serve to attach to".into());
                return true;
            };
            if let Some(e) = &row.error {
                s.status = Some(format!("serve {} does not answer: {e}", row.pid));
                return true;
            }
            let (pid, socket) = (row.pid, row.socket.clone());
            s.attached = Some(Attached::new(pid, socket.clone()));
            s.mode = Mode::Attached;
            s.status = Some(format!("attaching to serve {pid}…"));
            fx.push(Effect::Attach { pid, socket });
            true
        }
        Action::Serves | Action::Reload => open_list(s, fx),
        Action::Back => {
            s.mode = Mode::Normal;
            true
        }
        Action::Help => {
            s.help_back = Some(Mode::Serves);
            s.mode = Mode::Help;
            true
        }
        Action::Quit => {
            fx.push(Effect::Quit);
            true
        }
        _ => false,
    }
}

fn moves(a: Action) -> isize {
    match a {
        Action::Up => -1,
        Action::Down => 1,
        Action::PageUp => -10,
        Action::PageDown => 10,
        Action::Home => isize::MIN / 2,
        _ => isize::MAX / 2,
    }
}

/// A message about the serve attached to.
pub fn on_msg(s: &mut State, msg: AttachMsg) -> bool {
    let Some(a) = s.attached.as_mut() else {
        return false;
    };
    match msg {
        AttachMsg::Status(status) => {
            let first = !a.connected;
            a.apply_status(&status);
            if first {
                s.status = Some(format!(
                    "attached to serve {}: its frames go into the protocol log as `serve {}›…`",
                    a.pid, a.pid
                ));
            }
        }
        AttachMsg::Call(call) => a.apply_call(&call),
        AttachMsg::Dropped(total) => a.dropped = total,
        AttachMsg::Answer(Ok(message)) => s.status = Some(message),
        AttachMsg::Answer(Err(e)) => s.status = Some(format!("serve {}: {e}", a.pid)),
        AttachMsg::Gone(why) => {
            s.status = Some(format!("{why} (Esc goes back)"));
            a.gone = Some(why);
        }
    }
    true
}

/// A key in the attached view.
pub fn key(s: &mut State, action: Option<Action>, fx: &mut Vec<Effect>) -> bool {
    let Some(a) = action else { return false };
    let Some(at) = s.attached.as_mut() else {
        s.mode = Mode::Normal;
        return true;
    };
    match a {
        Action::Up
        | Action::Down
        | Action::PageUp
        | Action::PageDown
        | Action::Home
        | Action::End => move_in(at, a),
        Action::Left | Action::Right | Action::NextPane | Action::PrevPane => {
            at.focus = match (a, at.focus) {
                (Action::Left, Focus::Tools) => Focus::Servers,
                (Action::Left, f) => f,
                (Action::Right, Focus::Servers) => Focus::Tools,
                (Action::Right, f) => f,
                (Action::NextPane, Focus::Servers) => Focus::Tools,
                (Action::NextPane, Focus::Tools) => Focus::Calls,
                (Action::NextPane, Focus::Calls) => Focus::Servers,
                (_, Focus::Servers) => Focus::Calls,
                (_, Focus::Tools) => Focus::Servers,
                (_, Focus::Calls) => Focus::Tools,
            };
            true
        }
        Action::ToggleDeny => match at.focus {
            Focus::Tools => toggle_tool(s, fx),
            _ => {
                s.status = Some(format!(
                    "{} denies a tool: pick one in the tools list ({})",
                    s.keymap.label(Action::ToggleDeny),
                    s.keymap.label(Action::NextPane)
                ));
                true
            }
        },
        Action::ToggleServer => match at.focus {
            Focus::Servers => toggle_server(s, fx),
            Focus::Tools => toggle_tool(s, fx),
            Focus::Calls => false,
        },
        Action::Back => {
            let pid = at.pid;
            s.attached = None;
            s.mode = Mode::Normal;
            s.status = Some(format!("detached from serve {pid}"));
            fx.push(Effect::Detach);
            true
        }
        Action::ProtocolLog => {
            s.mode = Mode::Log;
            s.log.seen = s.frames.as_ref().and_then(|f| f.last_seq());
            true
        }
        Action::Serves => {
            s.attached = None;
            fx.push(Effect::Detach);
            open_list(s, fx)
        }
        Action::Help => {
            s.help_back = Some(Mode::Attached);
            s.mode = Mode::Help;
            true
        }
        Action::Quit => {
            fx.push(Effect::Quit);
            true
        }
        _ => false,
    }
}

fn move_in(at: &mut Attached, a: Action) -> bool {
    let by = moves(a);
    match at.focus {
        Focus::Servers => {
            let new = crate::tui::app::step(at.server_sel, by, at.servers.len());
            let moved = new != at.server_sel;
            if moved {
                at.server_sel = new;
                at.tool_sel = 0;
            }
            moved
        }
        Focus::Tools => {
            let n = at.selected_server().map_or(0, |s| s.tools.len());
            let new = crate::tui::app::step(at.tool_sel, by, n);
            let moved = new != at.tool_sel;
            at.tool_sel = new;
            moved
        }
        Focus::Calls => {
            let n = at.calls.len();
            let current = at.call_sel.unwrap_or(n.saturating_sub(1));
            let new = crate::tui::app::step(current, by, n);
            // Past the newest: follow again.
            at.call_sel = if new + 1 >= n && by > 0 {
                None
            } else {
                Some(new)
            };
            true
        }
    }
}

/// The view cannot steer a serve that is gone: say so.
fn gone(s: &mut State) -> bool {
    let Some(a) = &s.attached else { return true };
    match &a.gone {
        Some(why) => {
            s.status = Some(format!("{why}: nothing to change"));
            true
        }
        None => false,
    }
}

/// Deny or allow the selected tool through the socket.
fn toggle_tool(s: &mut State, fx: &mut Vec<Effect>) -> bool {
    if gone(s) {
        return true;
    }
    let Some(a) = &s.attached else { return false };
    let Some((server, tool)) = a.selected_tool() else {
        s.status = Some("no tool selected".into());
        return true;
    };
    // The toggle adds or removes the exact name (as in the panes).
    let op = if server.deny.contains(&tool.name) {
        "allow"
    } else {
        "deny"
    };
    let (server, tool) = (server.name.clone(), tool.name.clone());
    s.status = Some(format!(
        "{} {} on {} through serve {}…",
        if op == "deny" { "denying" } else { "allowing" },
        sanitize::one_line(&tool),
        sanitize::one_line(&server),
        a.pid
    ));
    fx.push(Effect::ServeOp(
        json!({"op": op, "server": server, "tool": tool}),
    ));
    true
}

/// Disable the selected server (or enable one disabled from here).
fn toggle_server(s: &mut State, fx: &mut Vec<Effect>) -> bool {
    if gone(s) {
        return true;
    }
    let Some(a) = s.attached.as_mut() else {
        return false;
    };
    let pid = a.pid;
    let Some(server) = a.servers.get_mut(a.server_sel) else {
        s.status = Some("no server selected".into());
        return true;
    };
    let op = if server.disabled { "enable" } else { "disable" };
    // A disabled server leaves serve's status; it stays listed here.
    server.disabled = op == "disable";
    let name = server.name.clone();
    s.status = Some(format!(
        "{op} {} through serve {pid}…",
        sanitize::one_line(&name)
    ));
    fx.push(Effect::ServeOp(json!({"op": op, "server": name})));
    true
}

#[cfg(test)]
mod tests {
    use super::*;

    fn status() -> Value {
        json!({
            "pid": 7, "config": "/c.toml", "transport": "stdio", "call_count": 1,
            "agent": {"clientInfo": {"name": "claude-code", "version": "2.0"}},
            "servers": [{"name": "a", "status": "connected", "version": "2025-11-25",
                "deny_tools": ["b*"],
                "tools": [{"name": "echo", "state": "visible"},
                          {"name": "boom", "state": "refused", "rule": "deny_tools entry \"b*\""}]}],
            "calls": [{"seq": 1, "server": "a", "tool": "echo", "at": 0, "elapsed_ms": 1.5, "outcome": "ok"}],
        })
    }

    fn attached() -> (State, Vec<Effect>) {
        let mut s = State::new(&[], Default::default(), None);
        s.attached = Some(Attached::new(7, PathBuf::from("/s.sock")));
        s.mode = Mode::Attached;
        on_msg(&mut s, AttachMsg::Status(status()));
        (s, Vec::new())
    }

    #[test]
    fn a_status_fills_the_view_and_d_denies_through_the_socket() {
        let (mut s, mut fx) = attached();
        let a = s.attached.as_ref().unwrap();
        assert_eq!(a.agent, "claude-code 2.0");
        assert_eq!(a.servers[0].tools[1].state, ToolState::Refused);
        assert_eq!(a.calls.len(), 1);
        key(&mut s, Some(Action::ToggleDeny), &mut fx);
        assert!(fx.is_empty(), "the servers list has the focus");
        key(&mut s, Some(Action::NextPane), &mut fx);
        key(&mut s, Some(Action::ToggleDeny), &mut fx);
        match fx.pop() {
            Some(Effect::ServeOp(v)) => {
                assert_eq!(v, json!({"op": "deny", "server": "a", "tool": "echo"}))
            }
            other => panic!("{other:?}"),
        }
        // A call that ends replaces its record.
        on_msg(
            &mut s,
            AttachMsg::Call(
                json!({"seq": 2, "server": "a", "tool": "echo", "outcome": "in flight"}),
            ),
        );
        on_msg(
            &mut s,
            AttachMsg::Call(
                json!({"seq": 2, "server": "a", "tool": "echo", "elapsed_ms": 3.0, "outcome": "ok"}),
            ),
        );
        let a = s.attached.as_ref().unwrap();
        assert_eq!(a.calls.len(), 2);
        assert_eq!(a.calls[1].outcome, "ok");
    }

    #[test]
    fn a_disabled_server_stays_to_be_enabled_and_esc_detaches() {
        let (mut s, mut fx) = attached();
        key(&mut s, Some(Action::ToggleServer), &mut fx);
        assert!(matches!(fx.pop(), Some(Effect::ServeOp(v)) if v["op"] == "disable"));
        let mut gone = status();
        gone["servers"] = json!([]);
        on_msg(&mut s, AttachMsg::Status(gone));
        let a = s.attached.as_ref().unwrap();
        assert_eq!(a.servers.len(), 1);
        assert!(a.servers[0].disabled);
        key(&mut s, Some(Action::ToggleServer), &mut fx);
        assert!(matches!(fx.pop(), Some(Effect::ServeOp(v)) if v["op"] == "enable"));
        on_msg(&mut s, AttachMsg::Gone("serve 7 exited".into()));
        key(&mut s, Some(Action::ToggleServer), &mut fx);
        assert!(fx.is_empty(), "nothing is sent to a serve that is gone");
        key(&mut s, Some(Action::Back), &mut fx);
        assert!(matches!(fx.pop(), Some(Effect::Detach)));
        assert!(s.attached.is_none());
        assert_eq!(s.mode, Mode::Normal);
    }
}
