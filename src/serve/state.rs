//! What `serve` knows: the served servers (config, status, lists), the
//! policy that filters them, the pins (`--pinned`) and the call log. Plain
//! data, queried by the agent side and (later) by a control socket.

use std::collections::VecDeque;
use std::sync::Arc;
use std::time::{Duration, SystemTime};

use serde_json::{Value, json};

use crate::config::{ServerConfig, ToolRefusal};
use crate::mcp::manager::ServerStatus;
use crate::mcp::session::{Lists, Negotiated};
use crate::mcp::types::Tool;
use crate::trust::Kind;
use crate::trust::pin::{self, PinStore};

use super::names::Naming;

/// How many calls the log keeps.
pub const CALL_LOG: usize = 1000;

/// One served server.
#[derive(Debug, Clone)]
pub struct Upstream {
    pub config: ServerConfig,
    pub status: ServerStatus,
    pub negotiated: Option<Negotiated>,
    /// Its last lists (kept while it is down, so its tools answer with an
    /// error naming its status rather than vanishing).
    pub lists: Option<Arc<Lists>>,
}

impl Upstream {
    pub fn new(config: ServerConfig) -> Self {
        Upstream {
            config,
            status: ServerStatus::Pending,
            negotiated: None,
            lists: None,
        }
    }

    /// Connected with its lists in, or settled otherwise.
    pub fn settled(&self) -> bool {
        match self.status {
            ServerStatus::Pending => false,
            ServerStatus::Connected => self.lists.is_some(),
            _ => true,
        }
    }

    /// Its status in words, with the reason for a failure.
    pub fn status_text(&self) -> String {
        match &self.status {
            ServerStatus::Failed(e) | ServerStatus::NeedsAuth(e) => {
                format!(
                    "{}: {}",
                    self.status.label(),
                    crate::sanitize::one_line(&e.to_string())
                )
            }
            other => other.label().to_string(),
        }
    }
}

/// One call made through `serve`.
#[derive(Debug, Clone)]
pub struct CallRecord {
    /// Its number, from 1, in the order calls came.
    pub seq: u64,
    pub server: String,
    pub tool: String,
    pub at: SystemTime,
    /// `None` while in flight.
    pub elapsed: Option<Duration>,
    /// `ok`, `isError`, `error: …`, `refused: …`, `cancelled`.
    pub outcome: String,
}

/// Why a tool is not offered to the agent.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Withheld {
    /// The config's policy refuses it.
    Policy(ToolRefusal),
    /// `--pinned`: it is not pinned, or it changed since it was pinned.
    Pin(String),
}

impl std::fmt::Display for Withheld {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self {
            Withheld::Policy(rule) => write!(f, "{rule}"),
            Withheld::Pin(why) => f.write_str(why),
        }
    }
}

/// Everything `serve` holds.
#[derive(Debug)]
pub struct ServeState {
    pub naming: Naming,
    /// The served servers (enabled ones), in config order.
    pub servers: Vec<Upstream>,
    /// `--pinned`: the pin file, as last read.
    pub pins: Option<PinStore>,
    pub calls: VecDeque<CallRecord>,
    /// The number of the last call logged.
    pub last_call: u64,
}

/// The last call's number, in every context of this process.
static NEXT_CALL: std::sync::atomic::AtomicU64 = std::sync::atomic::AtomicU64::new(0);

/// The lists as the agent sees them.
#[derive(Debug, Clone, Default, PartialEq)]
pub struct Visible {
    pub tools: Vec<Value>,
    pub prompts: Vec<Value>,
    pub resources: Vec<Value>,
    pub templates: Vec<Value>,
}

impl ServeState {
    pub fn server(&self, name: &str) -> Option<&Upstream> {
        self.servers.iter().find(|s| s.config.name == name)
    }

    pub fn server_mut(&mut self, name: &str) -> Option<&mut Upstream> {
        self.servers.iter_mut().find(|s| s.config.name == name)
    }

    /// The one server in transparent mode.
    pub fn only(&self) -> Option<&str> {
        match self.naming {
            Naming::Transparent => self.servers.first().map(|s| s.config.name.as_str()),
            Naming::Aggregated => None,
        }
    }

    /// Every server settled (connected with lists, or failed, …).
    pub fn settled(&self) -> bool {
        self.servers.iter().all(Upstream::settled)
    }

    /// Why `tool` of `server` is withheld from the agent, if it is.
    pub fn withheld(&self, server: &Upstream, tool: &Tool) -> Option<Withheld> {
        if let Some(rule) = server.config.tool_refusal(&tool.name) {
            return Some(Withheld::Policy(rule));
        }
        let pins = self.pins.as_ref()?;
        let key = pin::key_for(&server.config);
        let Some(pinned) = pins.get(&key) else {
            return Some(Withheld::Pin(format!(
                "--pinned: server {:?} has no pins; run `mcpdeck pin {}`",
                server.config.name, server.config.name
            )));
        };
        let one = Lists {
            tools: vec![tool.clone()],
            ..Lists::default()
        };
        let now = pin::fingerprint(&server.config.name, &key, None, &one);
        let same = now.definitions.first().is_some_and(|d| {
            pinned
                .definitions
                .iter()
                .any(|p| p.kind == Kind::Tool && p.name == d.name && p.sha256 == d.sha256)
        });
        (!same).then(|| {
            Withheld::Pin(format!(
                "--pinned: tool {:?} of server {:?} is not pinned or changed since it was pinned; review it with `mcpdeck verify {}`, then `mcpdeck pin {}`",
                tool.name, server.config.name, server.config.name, server.config.name
            ))
        })
    }

    /// The lists the agent sees: every served server that has lists (a
    /// server that went down keeps its last ones), withheld tools left
    /// out, names mapped.
    pub fn visible(&self) -> Visible {
        let mut v = Visible::default();
        let n = self.naming;
        for s in &self.servers {
            let Some(lists) = &s.lists else { continue };
            let name = s.config.name.as_str();
            for t in &lists.tools {
                if self.withheld(s, t).is_none() {
                    let mut raw = t.raw.clone();
                    raw["name"] = json!(n.name(name, &t.name));
                    v.tools.push(raw);
                }
            }
            for p in &lists.prompts {
                let mut raw = p.clone();
                if let Some(pn) = p.get("name").and_then(Value::as_str) {
                    raw["name"] = json!(n.name(name, pn));
                }
                v.prompts.push(raw);
            }
            for r in &lists.resources {
                let mut raw = r.clone();
                if let Some(uri) = r.get("uri").and_then(Value::as_str) {
                    raw["uri"] = json!(n.uri(name, uri));
                }
                v.resources.push(raw);
            }
            for t in &lists.templates {
                let mut raw = t.clone();
                if let Some(uri) = t.get("uriTemplate").and_then(Value::as_str) {
                    raw["uriTemplate"] = json!(n.uri(name, uri));
                }
                v.templates.push(raw);
            }
        }
        v
    }

    /// Add a call to the log (`outcome` `None`: in flight); its number
    /// for [`ServeState::finish_call`].
    pub fn log_call(&mut self, server: &str, tool: &str, outcome: Option<String>) -> u64 {
        if self.calls.len() >= CALL_LOG {
            self.calls.pop_front();
        }
        // One count for the whole process: the contexts of one serve (its
        // HTTP sessions) tell the same watchers, who tell calls apart by it.
        self.last_call = NEXT_CALL.fetch_add(1, std::sync::atomic::Ordering::Relaxed) + 1;
        self.calls.push_back(CallRecord {
            seq: self.last_call,
            server: server.to_string(),
            tool: tool.to_string(),
            at: SystemTime::now(),
            elapsed: outcome.as_ref().map(|_| Duration::ZERO),
            outcome: outcome.unwrap_or_else(|| "in flight".into()),
        });
        self.last_call
    }

    /// The end of call `seq` (if it is still in the log).
    pub fn finish_call(&mut self, seq: u64, outcome: String, elapsed: Duration) {
        if let Some(c) = self.calls.iter_mut().rev().find(|c| c.seq == seq)
            && c.elapsed.is_none()
        {
            c.outcome = outcome;
            c.elapsed = Some(elapsed);
        }
    }

    /// The capabilities offered to the agent: the served servers' merged
    /// (a key any of them declares), with `listChanged` on tools, prompts
    /// and resources (mcpdeck tells the agent when its view changes).
    pub fn capabilities(&self) -> Value {
        let mut caps = serde_json::Map::new();
        caps.insert("tools".into(), json!({"listChanged": true}));
        let mut subscribe = false;
        for s in &self.servers {
            let Some(n) = &s.negotiated else { continue };
            let Some(theirs) = n.capabilities.as_object() else {
                continue;
            };
            for (key, value) in theirs {
                match key.as_str() {
                    "prompts" => {
                        caps.insert(key.clone(), json!({"listChanged": true}));
                    }
                    "resources" => {
                        subscribe |= value.get("subscribe").and_then(Value::as_bool) == Some(true);
                        caps.insert(key.clone(), json!({"listChanged": true}));
                    }
                    "logging" | "completions" => {
                        caps.insert(key.clone(), json!({}));
                    }
                    // Task-augmented calls pass through (tasks/get, result
                    // and cancel go to the task's server); tasks/list only
                    // when one server is served.
                    "tasks" => {
                        let mut tasks = json!({"requests": {"tools": {"call": {}}}});
                        if value.get("cancel").is_some() {
                            tasks["cancel"] = json!({});
                        }
                        if self.only().is_some() && value.get("list").is_some() {
                            tasks["list"] = json!({});
                        }
                        caps.insert(key.clone(), tasks);
                    }
                    // Experimental features are not passed through.
                    _ => {}
                }
            }
        }
        if let Some(r) = caps.get_mut("resources") {
            r["subscribe"] = json!(subscribe);
        }
        Value::Object(caps)
    }

    /// The instructions for the agent: the one server's, or each server's
    /// under its name.
    pub fn instructions(&self) -> Option<String> {
        let parts: Vec<(String, String)> = self
            .servers
            .iter()
            .filter_map(|s| {
                let text = s.negotiated.as_ref()?.instructions.clone()?;
                (!text.trim().is_empty()).then(|| (s.config.name.clone(), text))
            })
            .collect();
        match (self.naming, parts.as_slice()) {
            (_, []) => None,
            (Naming::Transparent, [(_, text)]) => Some(text.clone()),
            _ => Some(
                parts
                    .iter()
                    .map(|(name, text)| {
                        format!("## {name}\n(tools and prompts `{name}__NAME`, resources `mcpdeck://{name}/URI`)\n\n{text}")
                    })
                    .collect::<Vec<_>>()
                    .join("\n\n"),
            ),
        }
    }

    /// The serverInfo for the agent: transparent, the server's own (its
    /// name and version kept, its title saying it is served by mcpdeck);
    /// aggregated, mcpdeck's.
    pub fn server_info(&self) -> Value {
        let mcpdeck = format!("mcpdeck {}", env!("CARGO_PKG_VERSION"));
        if self.naming == Naming::Transparent
            && let Some(n) = self.servers.first().and_then(|s| s.negotiated.as_ref())
        {
            let mut info = match &n.server_info.raw {
                Value::Object(o) => Value::Object(o.clone()),
                _ => json!({"name": n.server_info.name, "version": n.server_info.version}),
            };
            let title = n
                .server_info
                .title
                .clone()
                .unwrap_or_else(|| n.server_info.name.clone());
            info["title"] = json!(format!("{title} (served by {mcpdeck})"));
            return info;
        }
        let names: Vec<&str> = self
            .servers
            .iter()
            .map(|s| s.config.name.as_str())
            .collect();
        json!({
            "name": "mcpdeck",
            "title": format!("{mcpdeck} serving {}", names.join(", ")),
            "version": env!("CARGO_PKG_VERSION"),
        })
    }
}
