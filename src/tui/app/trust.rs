//! Tool trust in the TUI: each server's lint findings and what changed
//! since its definitions were pinned, worked out again whenever a list
//! arrives; the key that accepts (re-pins) a server after review.

use crate::config::ServerConfig;
use crate::mcp::manager::ServerStatus;
use crate::trust::pin::{self, Change, ChangeKind, PinStore};
use crate::trust::{Finding, Kind, Severity, lint};

use super::{Effect, ServerView, State};

/// What tool trust knows of one server.
#[derive(Debug, Clone, Default)]
pub struct Trust {
    /// The server's config (its lint table, and how it is reached: the
    /// key of its pins).
    pub config: Option<ServerConfig>,
    /// The key of its pins ([`pin::key_for`]).
    pub key: String,
    /// Where its definitions come from ([`lint::source_key`]): the same
    /// server configured twice shadows nothing where it is identical.
    pub source: Option<String>,
    /// The lint findings on its current lists (its own rules and those
    /// across servers), most severe first.
    pub findings: Vec<Finding>,
    /// Its own rules' findings (kept: linting thousands of tools again is
    /// not free, and only a server whose lists changed needs it).
    own: Option<Vec<Finding>>,
    /// When it was pinned, if it was.
    pub pinned_at: Option<String>,
    /// What is not as pinned (empty when not pinned).
    pub changes: Vec<Change>,
}

impl Trust {
    pub fn new(config: &ServerConfig) -> Trust {
        Trust {
            config: Some(config.clone()),
            key: pin::key_for(config),
            source: Some(lint::source_key(&config.transport)),
            ..Trust::default()
        }
    }

    /// The findings on one tool.
    pub fn tool_findings<'a>(&'a self, tool: &'a str) -> impl Iterator<Item = &'a Finding> {
        self.findings
            .iter()
            .filter(move |f| f.kind == Kind::Tool && f.name == tool)
    }

    /// The most severe finding on one tool.
    pub fn tool_severity(&self, tool: &str) -> Option<Severity> {
        self.tool_findings(tool).map(|f| f.severity).max()
    }

    /// How one tool differs from its pin (added since, or changed).
    pub fn tool_change(&self, tool: &str) -> Option<&Change> {
        self.changes
            .iter()
            .find(|c| c.kind == Kind::Tool && c.name == tool)
    }

    /// The findings on the server itself (its instructions, its name).
    pub fn server_findings(&self) -> impl Iterator<Item = &Finding> {
        self.findings.iter().filter(|f| f.kind != Kind::Tool)
    }

    /// Counts by severity: (high, medium, low).
    pub fn counts(&self) -> (usize, usize, usize) {
        let n = |s: Severity| self.findings.iter().filter(|f| f.severity == s).count();
        (n(Severity::High), n(Severity::Medium), n(Severity::Low))
    }
}

/// The pin file as the TUI has it: loaded when it starts; `Err` says why
/// it could not be read (then nothing is compared, and accepting is
/// refused, so a broken file is never overwritten).
pub type Pins = Result<PinStore, String>;

/// The method whose list holds definitions of `kind`.
fn list_method(kind: Kind) -> &'static str {
    match kind {
        Kind::Tool => "tools/list",
        Kind::Prompt => "prompts/list",
        Kind::Resource => "resources/list",
        Kind::Template => "resources/templates/list",
        Kind::Server => "",
    }
}

/// Work out every server's findings and changes again (lists came, the
/// config was reloaded, pins were written). Returns what to announce: a
/// tool that changed since it was pinned while the session ran.
pub fn refresh(s: &mut State) -> Vec<String> {
    for v in &mut s.servers {
        v.trust.own = None;
    }
    refresh_lists_of(s, None)
}

/// Like [`refresh`] after the lists of `server` came: only that server is
/// linted again (the rules across servers run over all of them).
pub fn refresh_lists_of(s: &mut State, server: Option<&str>) -> Vec<String> {
    if let Some(name) = server
        && let Some(v) = s.servers.iter_mut().find(|v| v.name == name)
    {
        v.trust.own = None;
    }
    let listed: Vec<usize> = (0..s.servers.len())
        .filter(|&i| s.servers[i].status == ServerStatus::Connected)
        .collect();
    let across = {
        let peers: Vec<lint::Peer> = listed
            .iter()
            .map(|&i| {
                let v = &s.servers[i];
                lint::Peer {
                    source: v.trust.source.as_deref(),
                    group: v
                        .trust
                        .config
                        .as_ref()
                        .and_then(|c| c.lint.group.as_deref()),
                    ..lint::Peer::new(&v.name, &v.lists)
                }
            })
            .collect();
        lint::cross_peers(&peers)
    };
    let mut news = Vec::new();
    for i in 0..s.servers.len() {
        let connected = listed.contains(&i);
        let v = &s.servers[i];
        let mut findings = Vec::new();
        let mut own = None;
        let mut changes = Vec::new();
        let mut pinned_at = None;
        if connected {
            findings = match &v.trust.own {
                Some(f) => f.clone(),
                None => {
                    let options = v
                        .trust
                        .config
                        .as_ref()
                        .map(|c| lint::Options::for_server(c, &s.settings))
                        .unwrap_or_default();
                    let instructions = v
                        .negotiated
                        .as_ref()
                        .and_then(|n| n.instructions.as_deref());
                    let f = lint::lint_server(&v.name, &v.lists, instructions, &options);
                    own = Some(f.clone());
                    f
                }
            };
            findings.extend(across.iter().filter(|f| f.server == v.name).cloned());
            findings.sort_by_key(|f| std::cmp::Reverse(f.severity));
            if own.is_none() {
                // Lists and pins as they were: so are the changes.
                changes = v.trust.changes.clone();
                pinned_at = v.trust.pinned_at.clone();
            } else if let Ok(store) = &s.pins
                && let Some(pinned) = store.get(&v.trust.key)
            {
                pinned_at = Some(pinned.pinned_at.clone());
                let info = v.negotiated.as_ref().map(|n| &n.server_info);
                let now = pin::fingerprint(&v.name, &v.trust.key, info, &v.lists);
                // A list that did not come is not a list emptied.
                changes = pin::compare(pinned, &now)
                    .into_iter()
                    .filter(|c| v.lists.error(list_method(c.kind)).is_none())
                    .collect();
            }
        }
        let before: Vec<(String, ChangeKind)> = changed_tools(&s.servers[i]);
        let v = &mut s.servers[i];
        v.trust.findings = findings;
        if own.is_some() {
            v.trust.own = own;
        } else if !connected {
            v.trust.own = None;
        }
        v.trust.changes = changes;
        v.trust.pinned_at = pinned_at;
        for (tool, what) in changed_tools(v) {
            if connected && !before.contains(&(tool.clone(), what)) && !v.lists.tools.is_empty() {
                news.push(format!(
                    "{}: tool {} {} — review it in the detail",
                    crate::sanitize::one_line(&v.name),
                    crate::sanitize::one_line(&tool),
                    if what == ChangeKind::Added {
                        "is new since the pin"
                    } else {
                        "is not as pinned"
                    }
                ));
            }
        }
    }
    news
}

/// The tools of a server that are not as pinned (changed, or new since).
fn changed_tools(v: &ServerView) -> Vec<(String, ChangeKind)> {
    v.trust
        .changes
        .iter()
        .filter(|c| c.kind == Kind::Tool && c.what != ChangeKind::Removed)
        .map(|c| (c.name.clone(), c.what))
        .collect()
}

/// The accept key: pin the selected server's definitions as they are now
/// (after the person reviewed what changed).
pub fn accept(s: &mut State, fx: &mut Vec<Effect>) -> bool {
    let Some(v) = s
        .selected_server()
        .or_else(|| s.selected_tool().map(|(v, _)| v))
    else {
        s.status = Some("no server selected".into());
        return true;
    };
    let name = crate::sanitize::one_line(&v.name);
    if v.status != ServerStatus::Connected {
        s.status = Some(format!(
            "{name} is not connected: its definitions can be pinned once it is"
        ));
        return true;
    }
    if let Some((method, _)) = v.lists.errors.first() {
        s.status = Some(format!(
            "{name}: not pinned, its {method} failed (pin a server whose lists all came)"
        ));
        return true;
    }
    if let Err(e) = &s.pins {
        s.status = Some(format!("not pinned: {e}"));
        return true;
    }
    let info = v.negotiated.as_ref().map(|n| &n.server_info);
    let pins = pin::fingerprint(&v.name, &v.trust.key, info, &v.lists);
    let note = if v.trust.pinned_at.is_some() {
        format!(
            "{name}: accepted {} change(s); pinned {}",
            v.trust.changes.len(),
            pins.counts_text()
        )
    } else {
        format!("{name}: pinned {}", pins.counts_text())
    };
    fx.push(Effect::WritePins {
        pins: Box::new(pins),
        note,
    });
    true
}

/// The pins were written (or not): keep them, and compare again.
pub fn written(s: &mut State, result: Result<pin::ServerPins, String>, note: String) -> bool {
    match result {
        Ok(pins) => {
            if let Ok(store) = &mut s.pins {
                store.set(pins);
            }
            refresh(s);
            s.status = Some(note);
        }
        Err(e) => s.status = Some(format!("not pinned: {e}")),
    }
    true
}
