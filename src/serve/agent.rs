//! The agent's side: one loop over the agent's lines (stdin), the
//! manager's events, the watched files and the settle deadline. Requests
//! go upstream as manager commands with a tag; answers come back as events
//! and are written to stdout with the agent's id.

use std::collections::HashMap;
use std::path::PathBuf;
use std::sync::Arc;
use std::time::Duration;

use serde_json::{Map, Value, json};
use tokio::io::{AsyncBufReadExt, AsyncWriteExt, BufReader};
use tokio::sync::mpsc;
use tokio::time::Instant;

use crate::config::{Config, ServerConfig};
use crate::mcp::jsonrpc::{RpcError, codes};
use crate::mcp::manager::{
    Answers, CallError, Command, Event, EventReceiver, Manager, ServerStatus,
};
use crate::mcp::session::RequestError;
use crate::mcp::types::{INITIALIZE_VERSIONS, STATELESS_VERSION};
use crate::trust::pin::PinStore;

mod forward;
mod start;
mod upstream;

pub(super) use start::run;
use start::{connection, load_pins, served};

use super::control::Control;
use super::names::Naming;
use super::state::{ServeState, Upstream, Visible};
use super::{Out, ServeArgs, ServeError};
use crate::config::watch::{Waker, Watched};

/// How mcpdeck's `requestState` starts (then the upstream request's tag).
const STATE_PREFIX: &str = "mcpdeck/";

/// The `_meta` key that marks a stateless-era request.
const VERSION_KEY: &str = "io.modelcontextprotocol/protocolVersion";

/// What an answer from upstream becomes.
#[derive(Debug, Clone)]
enum Reply {
    /// `tools/call`.
    Call { log: u64 },
    /// Passed on as it is.
    Plain,
    /// `resources/read`: the contents' URIs mapped.
    Read,
    /// A task-augmented `tools/call`, `tasks/get`, `tasks/result`,
    /// `tasks/cancel`, `tasks/list`: the task ids mapped (aggregated:
    /// `SERVER__ID`), and a new task remembered.
    Task,
}

/// An agent request waiting for upstream.
#[derive(Debug)]
struct Pending {
    /// The agent's id.
    id: Value,
    stateless: bool,
    server: String,
    reply: Reply,
    /// The agent's progressToken.
    progress: Option<Value>,
    /// The progressToken upstream (a call's request id), once known.
    upstream_token: Option<i64>,
    /// A stateless agent's round: the server's requests sent to it as
    /// `input_required` (input key → manager id), waiting for its retry.
    inputs: Vec<(String, u64)>,
    /// The server's requests that came while no retry was in (sent with
    /// the next round).
    queued: Vec<(u64, String, Value)>,
    /// The answer, come while an input_required round was out.
    finished: Option<Result<Value, Value>>,
    /// A stateless request's own client capabilities.
    capabilities: Option<Value>,
}

/// A request mcpdeck sent to the agent.
#[derive(Debug)]
enum Ask {
    /// A server's request (sampling, elicitation), manager id.
    Server(u64),
    /// `roots/list`, to offer the agent's roots upstream.
    Roots,
}

/// A stateless agent's `subscriptions/listen`.
#[derive(Debug)]
struct Listen {
    id: Value,
    tools: bool,
    prompts: bool,
    resources: bool,
    /// Agent URIs.
    uris: Vec<String>,
}

/// What the agent said about itself.
#[derive(Debug, Default)]
struct AgentInfo {
    /// `initialize` was answered.
    initialized: bool,
    /// Its capabilities (`initialize`, or the last stateless request's).
    capabilities: Value,
}

struct Serve {
    state: ServeState,
    manager: Manager,
    out: mpsc::UnboundedSender<Out>,
    args: ServeArgs,
    /// The agent spoke `initialize` first: its upstreams speak that era.
    initialize_era: bool,
    settled: bool,
    settle_by: Instant,
    /// Requests held until the servers settle.
    held: Vec<Value>,
    next_tag: u64,
    pending: HashMap<u64, Pending>,
    /// Tags by the agent's id (its JSON text), for cancellation.
    tags: HashMap<String, u64>,
    /// (server, upstream progress token) → the agent's token, and the id
    /// of the agent's request it belongs to.
    progress: HashMap<(String, i64), (Value, Value)>,
    /// Progress that came before its call's start was known.
    early: HashMap<(String, i64), Vec<Value>>,
    asks: HashMap<String, Ask>,
    /// The servers' requests sent to the agent: (server, the server's id
    /// as JSON text) → (serve's id for it, the manager's), so that a
    /// server's `notifications/cancelled` reaches the agent.
    server_asks: HashMap<(String, String), (String, u64)>,
    next_ask: u64,
    /// Subscribe/unsubscribe requests waiting: (server, uri, on) → ids.
    subs: Vec<(String, String, bool, Value, bool)>,
    listens: Vec<Listen>,
    agent: AgentInfo,
    /// The lists as last shown (list_changed when they differ).
    shown: Option<Visible>,
    config: Option<Watched>,
    pin_file: Option<Watched>,
    /// A status or a list came since the agent's view was last compared.
    views_changed: bool,
    /// The list changes servers announced whose lists have not come
    /// again yet: (server, kind).
    announced: Vec<(String, &'static str)>,
    /// Kinds whose change is passed on though the agent's view is the
    /// same (announced, and nothing changed that mcpdeck sees).
    forced: Vec<&'static str>,
    /// The control socket (`mcpdeck serves`, the TUI's attach).
    control: Control,
    /// Tasks created through serve: the agent's task id → (server, the
    /// server's task id).
    tasks: HashMap<String, (String, String)>,
}

/// An error object.
fn error(code: i64, message: impl Into<String>, data: Option<Value>) -> Value {
    let mut e = json!({"code": code, "message": message.into()});
    if let Some(d) = data {
        e["data"] = d;
    }
    e
}

fn rpc_error(e: &RpcError) -> Value {
    error(e.code, e.message.clone(), e.data.clone())
}

/// A key for an id (numbers and strings kept apart).
fn id_key(id: &Value) -> String {
    id.to_string()
}

/// The request's params without the stateless era's `_meta` keys (the
/// session puts its own); `None` stays `None`.
fn upstream_params(params: Option<&Value>) -> Value {
    let mut p = match params {
        Some(Value::Object(m)) => m.clone(),
        _ => Map::new(),
    };
    if let Some(Value::Object(meta)) = p.get_mut("_meta") {
        meta.retain(|k, _| !k.starts_with("io.modelcontextprotocol/"));
        meta.remove("progressToken");
        // Serve's own word to its session, never the agent's.
        meta.remove(crate::mcp::session::PASS_THROUGH);
        if meta.is_empty() {
            p.remove("_meta");
        }
    }
    Value::Object(p)
}

/// An upstream result without the stateless era's envelope (`resultType`,
/// `ttlMs`, `cacheScope`, `_meta` `io.modelcontextprotocol/…`): the
/// upstream's era is not the agent's; [`Serve::respond`] puts the agent's.
/// Returns the upstream's `ttlMs` and `cacheScope`, if any.
fn strip_envelope(result: &mut Value) -> (Option<Value>, Option<Value>) {
    let Some(obj) = result.as_object_mut() else {
        return (None, None);
    };
    // An input_required passed through (a stateless agent's request to a
    // stateless server) stays one: the agent answers it.
    if obj.get("resultType").and_then(Value::as_str) != Some("input_required") {
        obj.remove("resultType");
    }
    let ttl = obj.remove("ttlMs");
    let scope = obj.remove("cacheScope");
    if let Some(Value::Object(meta)) = obj.get_mut("_meta") {
        meta.retain(|k, _| !k.starts_with("io.modelcontextprotocol/"));
        if meta.is_empty() {
            obj.remove("_meta");
        }
    }
    (ttl, scope)
}

/// Root directories from the agent's `roots/list` answer (`file://` only).
fn root_dirs(result: &Value) -> Vec<PathBuf> {
    result
        .get("roots")
        .and_then(Value::as_array)
        .into_iter()
        .flatten()
        .filter_map(|r| r.get("uri").and_then(Value::as_str))
        .filter_map(|u| url::Url::parse(u).ok())
        .filter_map(|u| u.to_file_path().ok())
        .collect()
}

impl Serve {
    async fn run_loop(
        &mut self,
        mut events: EventReceiver,
        mut lines: mpsc::UnboundedReceiver<Result<String, String>>,
    ) -> Result<(), ServeError> {
        let files: Vec<&std::path::Path> = self
            .config
            .iter()
            .chain(self.pin_file.iter())
            .map(Watched::path)
            .collect();
        let mut waker = Waker::new(&files);
        self.check_settled();
        loop {
            tokio::select! {
                line = lines.recv() => match line {
                    Some(Ok(line)) => self.line(&line),
                    None => return Ok(()),
                    Some(Err(e)) => return Err(ServeError::Io(e)),
                },
                Some(ev) = events.recv() => {
                    self.event(ev);
                    while let Ok(ev) = events.try_recv() {
                        self.event(ev);
                    }
                    self.after_events();
                }
                _ = waker.wait(self.watch_settling()) => self.watch(),
                _ = tokio::time::sleep_until(self.settle_by), if !self.settled => {
                    let waiting: Vec<String> = self
                        .state
                        .servers
                        .iter()
                        .filter(|s| !s.settled())
                        .map(|s| s.config.name.clone())
                        .collect();
                    eprintln!(
                        "mcpdeck serve: answering without {} (still connecting)",
                        waiting.join(", ")
                    );
                    self.set_settled();
                }
                Some(request) = self.control.next() => self.control.answer(request, &self.state),
            }
            self.control.observe(&self.state);
        }
    }

    fn send(&self, frame: Value) {
        self.send_about(frame, None);
    }

    /// Send a frame that belongs to the agent's request `about` (its
    /// progress, a server's request made while it runs): over HTTP it goes
    /// on that request's stream.
    fn send_about(&self, frame: Value, about: Option<&Value>) {
        let mut line = frame.to_string();
        line.push('\n');
        self.control.agent_sent(&line);
        let _ = self.out.send((line, about.cloned()));
    }

    fn respond(&self, id: &Value, stateless: bool, result: Value) {
        let mut result = result;
        if stateless
            && let Some(obj) = result.as_object_mut()
            && obj.get("resultType").and_then(Value::as_str) != Some("input_required")
        {
            obj.insert("resultType".into(), json!("complete"));
        }
        self.send(json!({"jsonrpc": "2.0", "id": id, "result": result}));
    }

    fn fail(&self, id: &Value, error: Value) {
        self.send(json!({"jsonrpc": "2.0", "id": id, "error": error}));
    }

    fn notify(&self, method: &str, params: Option<Value>) {
        self.notify_about(method, params, None);
    }

    /// [`Serve::notify`] for the agent's request `about`.
    fn notify_about(&self, method: &str, params: Option<Value>, about: Option<&Value>) {
        let mut frame = json!({"jsonrpc": "2.0", "method": method});
        if let Some(p) = params {
            frame["params"] = p;
        }
        self.send_about(frame, about);
    }

    fn tag(&mut self) -> u64 {
        self.next_tag += 1;
        self.next_tag
    }

    // ---- the agent's frames ----

    fn line(&mut self, line: &str) {
        if line.trim().is_empty() {
            return;
        }
        self.control.agent_line(line);
        let frame: Value = match serde_json::from_str(line) {
            Ok(v) => v,
            Err(e) => {
                return self.fail(
                    &Value::Null,
                    error(codes::PARSE_ERROR, format!("not JSON: {e}"), None),
                );
            }
        };
        let Some(obj) = frame.as_object() else {
            return self.fail(
                &Value::Null,
                error(
                    codes::INVALID_REQUEST,
                    "a message must be one JSON object (batches are not supported)",
                    None,
                ),
            );
        };
        let method = obj.get("method").and_then(Value::as_str);
        let id = obj.get("id").cloned();
        match (method, id) {
            (Some(_), Some(_)) => self.request(frame),
            (Some(method), None) => {
                let method = method.to_string();
                self.notification(&method, obj.get("params"));
            }
            (None, Some(id)) => self.answer(&id, obj.get("result"), obj.get("error")),
            (None, None) => self.fail(
                &Value::Null,
                error(
                    codes::INVALID_REQUEST,
                    "neither a request nor a response",
                    None,
                ),
            ),
        }
    }

    fn request(&mut self, frame: Value) {
        let id = frame["id"].clone();
        let method = frame["method"].as_str().unwrap_or_default().to_string();
        let params = frame.get("params").cloned();
        let version = params
            .as_ref()
            .and_then(|p| p.get("_meta"))
            .and_then(|m| m.get(VERSION_KEY))
            .cloned();
        let stateless = version.is_some();
        if let Some(v) = &version {
            if v.as_str() != Some(STATELESS_VERSION) {
                return self.fail(
                    &id,
                    error(
                        codes::UNSUPPORTED_VERSION,
                        "Unsupported protocol version",
                        Some(json!({"supported": [STATELESS_VERSION], "requested": v})),
                    ),
                );
            }
            // This request's: what goes upstream with it is what this
            // agent declared now, never an earlier request's.
            self.agent.capabilities = params
                .as_ref()
                .and_then(|p| p["_meta"].get("io.modelcontextprotocol/clientCapabilities"))
                .cloned()
                .unwrap_or_else(|| json!({}));
        }
        if method == "ping" {
            return self.respond(&id, stateless, json!({}));
        }
        if !self.settled {
            self.held.push(frame);
            return;
        }
        let p = params.as_ref();
        if let Some(state) = p
            .and_then(|p| p.get("requestState"))
            .and_then(Value::as_str)
            .and_then(|s| s.strip_prefix(STATE_PREFIX))
            .and_then(|s| s.parse::<u64>().ok())
        {
            return self.retry(&id, state, p);
        }
        match method.as_str() {
            "initialize" => self.initialize(&id, p),
            "server/discover" => self.discover(&id),
            "tools/list" | "prompts/list" | "resources/list" | "resources/templates/list" => {
                self.list(&id, &method, stateless)
            }
            "tools/call" => self.call(&id, p, stateless),
            "prompts/get" => self.by_name(&id, &method, p, stateless, "prompt"),
            "resources/read" => self.by_uri(&id, &method, p, stateless, Reply::Read),
            "resources/subscribe" | "resources/unsubscribe" => {
                self.subscribe(&id, &method, p, stateless)
            }
            "completion/complete" => self.complete(&id, p, stateless),
            "tasks/get" | "tasks/result" | "tasks/cancel" => {
                self.task_request(&id, &method, p, stateless)
            }
            "tasks/list" => self.task_list(&id, p, stateless),
            "logging/setLevel" => self.set_level(&id, p, stateless),
            "subscriptions/listen" => self.listen(&id, p),
            _ => self.fail(
                &id,
                error(
                    codes::METHOD_NOT_FOUND,
                    format!("mcpdeck serve does not offer {method}"),
                    None,
                ),
            ),
        }
    }

    fn initialize(&mut self, id: &Value, params: Option<&Value>) {
        let asked = params
            .and_then(|p| p.get("protocolVersion"))
            .and_then(Value::as_str)
            .unwrap_or_default();
        let version = if INITIALIZE_VERSIONS.contains(&asked) {
            asked
        } else {
            INITIALIZE_VERSIONS[0]
        };
        self.agent.capabilities = params
            .and_then(|p| p.get("capabilities"))
            .cloned()
            .unwrap_or_else(|| json!({}));
        self.agent.initialized = true;
        let mut result = json!({
            "protocolVersion": version,
            "capabilities": self.state.capabilities(),
            "serverInfo": self.state.server_info(),
        });
        if let Some(text) = self.state.instructions() {
            result["instructions"] = json!(text);
        }
        self.shown = Some(self.state.visible());
        self.respond(id, false, result);
    }

    fn discover(&mut self, id: &Value) {
        let mut result = json!({
            "supportedVersions": [STATELESS_VERSION],
            "capabilities": self.state.capabilities(),
            "ttlMs": 0,
            "cacheScope": "private",
            "_meta": {"io.modelcontextprotocol/serverInfo": self.state.server_info()},
        });
        if let Some(text) = self.state.instructions() {
            result["instructions"] = json!(text);
        }
        self.respond(id, true, result);
    }

    fn list(&mut self, id: &Value, method: &str, stateless: bool) {
        let visible = self.state.visible();
        let (key, items) = match method {
            "tools/list" => ("tools", &visible.tools),
            "prompts/list" => ("prompts", &visible.prompts),
            "resources/list" => ("resources", &visible.resources),
            _ => ("resourceTemplates", &visible.templates),
        };
        let mut result = json!({ key: items });
        if stateless {
            result["ttlMs"] = json!(0);
            result["cacheScope"] = json!("private");
        }
        if self.shown.is_none() {
            self.shown = Some(visible.clone());
        }
        self.respond(id, stateless, result);
    }

    fn listen(&mut self, id: &Value, params: Option<&Value>) {
        let wanted = params
            .and_then(|p| p.get("notifications"))
            .cloned()
            .unwrap_or_else(|| json!({}));
        let flag = |k: &str| wanted.get(k).and_then(Value::as_bool) == Some(true);
        let uris: Vec<String> = wanted
            .get("resourceSubscriptions")
            .and_then(Value::as_array)
            .into_iter()
            .flatten()
            .filter_map(Value::as_str)
            .map(str::to_string)
            .collect();
        for uri in &uris {
            if let Ok((server, own)) = self.resolve_uri(uri) {
                self.manager.send(Command::Subscribe(server, own));
            }
        }
        self.listens.push(Listen {
            id: id.clone(),
            tools: flag("toolsListChanged"),
            prompts: flag("promptsListChanged"),
            resources: flag("resourcesListChanged"),
            uris,
        });
        // The ack echoes, under `notifications`, the part of the filter
        // that is honored (the kinds and the resources serve knows).
        let mut honored = Map::new();
        for key in [
            "toolsListChanged",
            "promptsListChanged",
            "resourcesListChanged",
        ] {
            if flag(key) {
                honored.insert(key.into(), json!(true));
            }
        }
        let known: Vec<String> = wanted
            .get("resourceSubscriptions")
            .and_then(Value::as_array)
            .into_iter()
            .flatten()
            .filter_map(Value::as_str)
            .filter(|u| self.resolve_uri(u).is_ok())
            .map(str::to_string)
            .collect();
        if !known.is_empty() {
            honored.insert("resourceSubscriptions".into(), json!(known));
        }
        let ack = json!({
            "_meta": {"io.modelcontextprotocol/subscriptionId": id},
            "notifications": honored,
        });
        self.notify("notifications/subscriptions/acknowledged", Some(ack));
        if self.shown.is_none() {
            self.shown = Some(self.state.visible());
        }
    }

    fn notification(&mut self, method: &str, params: Option<&Value>) {
        match method {
            "notifications/initialized" => self.ask_roots(),
            "notifications/roots/list_changed" => self.ask_roots(),
            "notifications/cancelled" => {
                let Some(id) = params.and_then(|p| p.get("requestId")) else {
                    return;
                };
                let key = id_key(id);
                self.held.retain(|f| id_key(&f["id"]) != key);
                if let Some(tag) = self.tags.remove(&key) {
                    // No answer goes to a cancelled request.
                    if let Some(p) = self.pending.remove(&tag)
                        && let Reply::Call { log } = p.reply
                    {
                        self.finish_log(log, "cancelled".into(), None);
                    }
                    self.manager.send(Command::Cancel { tag });
                }
                // A stateless listen ends when cancelled.
                self.listens.retain(|l| id_key(&l.id) != key);
            }
            _ => {}
        }
    }

    /// Ask the agent for its roots, when it offers them.
    fn ask_roots(&mut self) {
        // `--roots` on serve's command line: those, and only those, are
        // offered upstream, whatever the agent says.
        if self.agent.capabilities.get("roots").is_none() || crate::config::roots_flag_set() {
            return;
        }
        self.next_ask += 1;
        let id = format!("mcpdeck-{}", self.next_ask);
        self.asks.insert(id.clone(), Ask::Roots);
        self.send(json!({"jsonrpc": "2.0", "id": id, "method": "roots/list", "params": {}}));
    }

    /// The agent's answer to a request of mcpdeck's.
    fn answer(&mut self, id: &Value, result: Option<&Value>, err: Option<&Value>) {
        let Some(key) = id.as_str() else { return };
        let Some(ask) = self.asks.remove(key) else {
            return;
        };
        if matches!(ask, Ask::Server(_)) {
            self.server_asks.retain(|_, (asked, _)| asked != key);
        }
        match ask {
            Ask::Roots => {
                if let Some(r) = result {
                    self.manager.send(Command::SetRoots(root_dirs(r)));
                }
            }
            Ask::Server(ask) => {
                let result = match (result, err) {
                    (Some(r), _) => Ok(r.clone()),
                    (None, Some(e)) => Err(RpcError {
                        code: e
                            .get("code")
                            .and_then(Value::as_i64)
                            .unwrap_or(codes::INTERNAL_ERROR),
                        message: e
                            .get("message")
                            .and_then(Value::as_str)
                            .unwrap_or("the agent refused")
                            .to_string(),
                        data: e.get("data").cloned(),
                    }),
                    (None, None) => Err(RpcError::new(
                        codes::INTERNAL_ERROR,
                        "the agent answered with neither result nor error",
                    )),
                };
                self.manager
                    .send(Command::AnswerServerRequest { id: ask, result });
            }
        }
    }

    /// A stateless agent's retry with `inputResponses`: the answers go to
    /// the servers, and the request waiting upstream answers this id.
    fn retry(&mut self, id: &Value, tag: u64, params: Option<&Value>) {
        let Some(p) = self.pending.get_mut(&tag).filter(|p| !p.inputs.is_empty()) else {
            return self.fail(
                id,
                error(
                    codes::INVALID_PARAMS,
                    "requestState names no request waiting for input (it ended, or was answered already)",
                    None,
                ),
            );
        };
        let responses = params.and_then(|p| p.get("inputResponses"));
        let mut answers = Vec::new();
        for (key, ask) in std::mem::take(&mut p.inputs) {
            let result = match responses.and_then(|r| r.get(&key)) {
                Some(answer) => Ok(answer.clone()),
                None => Err(RpcError::new(
                    codes::INVALID_PARAMS,
                    format!("the agent sent no inputResponses entry {key:?}"),
                )),
            };
            answers.push(Command::AnswerServerRequest { id: ask, result });
        }
        p.id = id.clone();
        self.tags.insert(id_key(id), tag);
        for a in answers {
            self.manager.send(a);
        }
        if let Some(p) = self.pending.get_mut(&tag)
            && let Some(outcome) = p.finished.take()
            && let Some(p) = self.pending.remove(&tag)
        {
            return self.deliver(tag, p, outcome);
        }
        self.input_round(tag);
    }
}
