//! The one way from a headless command to the core: a [`Manager`], as the
//! TUI has, started on the servers a command needs. Every command connects,
//! reports connect errors and findings, and maps failures to exit codes the
//! same way.
//!
//! - [`start`] starts the manager on many servers (`servers`);
//! - [`Link`] is one server, connected: requests, lists, calls,
//!   subscriptions and notifications go through the manager's commands and
//!   come back as its events, with progress, log messages, task statuses
//!   and findings reported on stderr as they arrive (never on stdout).

use std::collections::VecDeque;
use std::ops::ControlFlow;
use std::sync::Arc;
use std::time::Duration;

use serde_json::Value;

use super::events::report;
use super::exit::{Failure, connect_failure_as};
use super::target::{TargetArgs, target_config};
use crate::config::{Config, ServerConfig, Settings};
use crate::mcp::framelog::FrameLog;
use crate::mcp::manager::{
    Answers, CallError, Command, Event, EventReceiver, Manager, ServerSnapshot, ServerStatus,
};
use crate::mcp::session::{ConnectError, ListSet};
use crate::mcp::{CallResult, Finding};
use crate::startup::CHILDREN;
use crate::trace::{self, warn_insecure};

/// This run's `--timeout` ([`set_limit`]).
static LIMIT: std::sync::Mutex<Option<Duration>> = std::sync::Mutex::new(None);

/// `--timeout SECS` of the running command: the connect and each request
/// of every [`Link`] (and of [`start`]) end within it.
pub fn set_limit(limit: Option<Duration>) {
    *LIMIT.lock().unwrap_or_else(|p| p.into_inner()) = limit;
}

/// This run's `--timeout`, if one was given.
pub fn limit() -> Option<Duration> {
    *LIMIT.lock().unwrap_or_else(|p| p.into_inner())
}

/// Start the manager on `servers` (headless: no client capabilities).
pub fn start(
    config: &Config,
    mut servers: Vec<ServerConfig>,
    trace_frames: bool,
) -> (Manager, EventReceiver) {
    warn_insecure(&servers);
    let mut settings = oneshot_settings(config);
    if let Some(t) = limit() {
        settings.connect_timeout = t;
        settings.request_timeout = t;
        for s in &mut servers {
            s.timeout = Some(t);
        }
    }
    let frames = trace::frame_log(&config.settings, trace_frames, &servers);
    Manager::start_answering(
        settings,
        servers,
        frames,
        CHILDREN.clone(),
        Answers::Nothing,
    )
}

/// Wait until every named server has a settled status.
pub async fn wait_settled(rx: &mut EventReceiver, names: &[String]) {
    let mut waiting: Vec<&String> = names.iter().collect();
    while !waiting.is_empty() {
        let Some(ev) = rx.recv().await else { return };
        report(&ev);
        if let Event::Status { server, status, .. } = &ev
            && status.settled()
        {
            waiting.retain(|n| *n != server);
        }
    }
}

/// Stop the manager's servers once the answer is out (stdout closed, see
/// [`super::oneshot`]), then report what it said last.
pub fn finish(manager: Manager, rx: EventReceiver) {
    super::oneshot::defer(manager, rx, true);
}

/// The settings of a one-shot command's manager: its servers are stopped
/// with `oneshot_grace`, after the answer.
fn oneshot_settings(config: &Config) -> Settings {
    let mut settings = config.settings.clone();
    settings.shutdown_grace = settings.oneshot_grace;
    settings
}

/// How a [`Link`] is opened.
#[derive(Debug, Clone, Copy)]
pub struct Options {
    /// `--trace`: every frame and HTTP exchange on stderr.
    pub trace: bool,
    /// How the server's own requests are answered.
    pub answers: Answers,
    /// Keep findings for the caller ([`Link::take_findings`]) instead of
    /// printing them.
    pub keep_findings: bool,
    /// A request timeout for this run, over the config's (and the server's).
    pub timeout: Option<Duration>,
    /// A connect timeout for this run, over the config's (`--timeout`).
    pub connect_timeout: Option<Duration>,
    /// The lists the connect asks for (all by default): a command asks
    /// only for what it uses, so the server does no work nobody reads.
    pub lists: ListSet,
}

impl Options {
    pub fn new(trace: bool) -> Self {
        Options {
            trace,
            answers: Answers::Nothing,
            keep_findings: false,
            timeout: limit(),
            connect_timeout: limit(),
            lists: ListSet::ALL,
        }
    }

    /// Ask only for the lists in `lists` when connecting.
    pub fn listing(self, lists: ListSet) -> Self {
        Options { lists, ..self }
    }
}

/// One server, connected through the manager.
pub struct Link {
    manager: Manager,
    events: EventReceiver,
    /// The server as it was when it connected: its config, what was
    /// negotiated, and its tools, resources and prompts.
    pub server: ServerSnapshot,
    next_tag: u64,
    keep_findings: bool,
    findings: Vec<Finding>,
    /// Notifications waiting for [`Link::notification`].
    notifications: VecDeque<(String, Option<Value>)>,
}

impl Link {
    /// Connect TARGET. Usage errors (an unknown name) are `Err`; a server
    /// that could not be connected is `Ok(Err(…))`, with why.
    pub async fn connect(
        config: &Config,
        target: &TargetArgs,
        options: Options,
    ) -> Result<Result<Link, (String, ConnectError)>, Failure> {
        let server = super::registry::resolve_target(config, target).await?;
        Ok(Link::connect_server(config, server, options).await)
    }

    /// Connect `server` (resolved already); a server that could not be
    /// connected is `Err`, with why.
    pub async fn connect_server(
        config: &Config,
        mut server: ServerConfig,
        options: Options,
    ) -> Result<Link, (String, ConnectError)> {
        let mut settings = oneshot_settings(config);
        if let Some(t) = options.timeout {
            settings.request_timeout = t;
            server.timeout = Some(t);
        }
        if let Some(t) = options.connect_timeout {
            settings.connect_timeout = t;
        }
        warn_insecure(std::slice::from_ref(&server));
        let name = server.name.clone();
        let frames = trace::frame_log(&settings, options.trace, std::slice::from_ref(&server));
        let (manager, mut events) = Manager::start_listing(
            settings.clone(),
            vec![server],
            frames,
            CHILDREN.clone(),
            options.answers,
            options.lists,
        );
        let mut kept = Vec::new();
        loop {
            let Some(ev) = events.recv().await else {
                break;
            };
            let settled = matches!(&ev, Event::Status { server, status, .. }
                if *server == name && status.settled());
            match ev {
                Event::Finding { finding, .. } if options.keep_findings => kept.push(finding),
                ev => report(&ev),
            }
            if settled {
                break;
            }
        }
        let snap = manager
            .snapshot()
            .await
            .into_iter()
            .find(|s| s.config.name == name);
        match snap {
            Some(server) if server.status == ServerStatus::Connected => Ok(Link {
                manager,
                events,
                server,
                next_tag: 1,
                keep_findings: options.keep_findings,
                findings: kept,
                notifications: VecDeque::new(),
            }),
            Some(ServerSnapshot {
                status: ServerStatus::NeedsAuth(e) | ServerStatus::Failed(e),
                ..
            }) => {
                finish(manager, events);
                Err((name, e))
            }
            _ => {
                finish(manager, events);
                Err((
                    name,
                    ConnectError::Internal("the manager stopped before the server settled".into()),
                ))
            }
        }
    }

    /// Connect TARGET; a server that could not be connected is a failure
    /// with its exit code.
    pub async fn open(
        config: &Config,
        target: &TargetArgs,
        options: Options,
    ) -> Result<Link, Failure> {
        match Link::connect(config, target, options).await? {
            Ok(link) => Ok(link),
            Err((name, e)) => {
                // What `auth login` needs to find this server again.
                let login_as = match &target.target {
                    Some(t) if config.server(&name).is_none() && !t.is_empty() => t.clone(),
                    _ => name.clone(),
                };
                // With a terminal, a server that needs a login offers one,
                // then connects again.
                if let Some(a) = e.auth()
                    && let Ok(server) = target_config(config, target)
                    && super::auth::offer_login(config, &server, a).await
                {
                    return Link::connect(config, target, options)
                        .await?
                        .map_err(|(name, e)| connect_failure_as(&name, &login_as, &e));
                }
                Err(connect_failure_as(&name, &login_as, &e))
            }
        }
    }

    pub fn name(&self) -> &str {
        &self.server.config.name
    }

    /// Whether the server declares `capability` (`resources`, `prompts`, …).
    pub fn declares(&self, capability: &str) -> bool {
        self.server
            .negotiated
            .as_ref()
            .is_some_and(|n| n.has_capability(capability))
    }

    /// The server's capabilities as negotiated (`null` before).
    pub fn capabilities(&self) -> &Value {
        static NONE: Value = Value::Null;
        self.server
            .negotiated
            .as_ref()
            .map_or(&NONE, |n| &n.capabilities)
    }

    /// Whether the server declares `capability` with `flag: true`
    /// (`resources` and `subscribe`).
    pub fn declares_flag(&self, capability: &str, flag: &str) -> bool {
        self.server.negotiated.as_ref().is_some_and(|n| {
            n.capabilities
                .get(capability)
                .and_then(|c| c.get(flag))
                .and_then(Value::as_bool)
                == Some(true)
        })
    }

    /// Every frame sent and received so far.
    pub fn frames(&self) -> &Arc<FrameLog> {
        self.manager.frames()
    }

    /// The findings kept so far (with [`Options::keep_findings`]).
    pub fn take_findings(&mut self) -> Vec<Finding> {
        std::mem::take(&mut self.findings)
    }

    fn tag(&mut self) -> u64 {
        self.next_tag += 1;
        self.next_tag
    }

    /// Receive events, reporting them, until `want` picks one; `None` when
    /// the manager is gone. Cancel-safe: an event is taken only when
    /// `want` sees it.
    pub async fn until<T>(
        &mut self,
        mut want: impl FnMut(Event) -> ControlFlow<T, Event>,
    ) -> Option<T> {
        loop {
            let ev = self.events.recv().await?;
            let ev = match want(ev) {
                ControlFlow::Break(found) => return Some(found),
                ControlFlow::Continue(ev) => ev,
            };
            match ev {
                Event::Finding { finding, .. } if self.keep_findings => self.findings.push(finding),
                Event::Notification { method, params, .. }
                    if method == "notifications/resources/updated" =>
                {
                    self.notifications.push_back((method, params));
                }
                ev => report(&ev),
            }
        }
    }

    fn gone() -> CallError {
        CallError::Request(crate::mcp::RequestError::Closed {
            description: "the manager stopped before the answer came".into(),
            stderr_tail: Vec::new(),
        })
    }

    /// Any request; its result.
    pub async fn request(&mut self, method: &str, params: Value) -> Result<Value, CallError> {
        let tag = self.tag();
        self.manager.send(Command::Request {
            tag,
            server: self.name().to_string(),
            method: method.to_string(),
            params,
        });
        self.response(tag).await
    }

    /// A list as the server gave it while connecting (every page), or why
    /// it did not come: `tools/list`, `resources/list`,
    /// `resources/templates/list` or `prompts/list`.
    pub fn listed(&self, method: &str) -> Result<Vec<Value>, CallError> {
        let lists = &self.server.lists;
        if let Some(e) = lists.error(method) {
            return Err(CallError::Request(e.clone()));
        }
        Ok(match method {
            "tools/list" => lists.tools.iter().map(|t| t.raw.clone()).collect(),
            "resources/list" => lists.resources.clone(),
            "resources/templates/list" => lists.templates.clone(),
            "prompts/list" => lists.prompts.clone(),
            _ => Vec::new(),
        })
    }

    async fn response(&mut self, tag: u64) -> Result<Value, CallError> {
        self.until(|ev| match ev {
            Event::Response { tag: t, result, .. } if t == tag => ControlFlow::Break(result),
            ev => ControlFlow::Continue(ev),
        })
        .await
        .unwrap_or_else(|| Err(Self::gone()))
    }

    /// Call a tool (as a task when it requires that); the result and how
    /// long it took. Deny lists apply.
    pub async fn call(
        &mut self,
        tool: &str,
        arguments: Value,
    ) -> (Result<CallResult, CallError>, Duration) {
        let tag = self.start_call(tool, arguments);
        self.until(|ev| match ev {
            Event::CallFinished {
                tag: t,
                result,
                elapsed,
                ..
            } if t == tag => ControlFlow::Break((result, elapsed)),
            ev => ControlFlow::Continue(ev),
        })
        .await
        .unwrap_or_else(|| (Err(Self::gone()), Duration::ZERO))
    }

    /// Start a tool call and return at once with its tag; its
    /// [`Event::CallFinished`] comes through [`Link::until`]. The manager
    /// runs each call on its own, so many can be in flight at once.
    pub fn start_call(&mut self, tool: &str, arguments: Value) -> u64 {
        let tag = self.tag();
        self.manager.send(Command::Call {
            tag,
            server: self.name().to_string(),
            tool: tool.to_string(),
            arguments,
        });
        tag
    }

    /// Cancel a call (or request) by its tag; the server is told, and the
    /// call still finishes with its event (cancelled, or its answer if it
    /// was already in).
    pub fn cancel(&self, tag: u64) {
        self.manager.send(Command::Cancel { tag });
    }

    /// Ask for log messages at `level` and above.
    pub async fn set_log_level(&mut self, level: &str) -> Result<(), CallError> {
        self.manager.send(Command::SetLogLevel(
            self.name().to_string(),
            level.to_string(),
        ));
        self.until(|ev| match ev {
            Event::LogLevel { result, .. } => ControlFlow::Break(result),
            ev => ControlFlow::Continue(ev),
        })
        .await
        .unwrap_or_else(|| Err(Self::gone()))
    }

    /// Subscribe to a resource's updates (`on`), or end the subscription.
    pub async fn subscribe(&mut self, uri: &str, on: bool) -> Result<(), CallError> {
        let (name, uri) = (self.name().to_string(), uri.to_string());
        self.manager.send(if on {
            Command::Subscribe(name, uri.clone())
        } else {
            Command::Unsubscribe(name, uri.clone())
        });
        self.until(|ev| match ev {
            Event::Subscription { uri: u, result, .. } if u == uri => ControlFlow::Break(result),
            ev => ControlFlow::Continue(ev),
        })
        .await
        .unwrap_or_else(|| Err(Self::gone()))
    }

    /// The params of the next `notifications/resources/updated`; `None`
    /// when the server is gone.
    pub async fn resource_update(&mut self) -> Option<Value> {
        if let Some((_, params)) = self.notifications.pop_front() {
            return Some(params.unwrap_or_default());
        }
        self.until(|ev| match ev {
            Event::Notification { method, params, .. }
                if method == "notifications/resources/updated" =>
            {
                ControlFlow::Break(params.unwrap_or_default())
            }
            Event::Status { status, .. }
                if status.settled() && status != ServerStatus::Connected =>
            {
                ControlFlow::Break(Value::Null)
            }
            ev => ControlFlow::Continue(ev),
        })
        .await
        .filter(|v| !v.is_null())
    }

    /// Done with the server now: stop it (the usual polite order, with
    /// `oneshot_grace`) and report what it says meanwhile.
    pub async fn shutdown(self) {
        let Link {
            manager,
            mut events,
            keep_findings,
            ..
        } = self;
        manager.shutdown().await;
        if !keep_findings {
            super::events::drain(&mut events);
        }
    }

    /// Done with the server: it is stopped after the answer, when stdout
    /// is closed ([`super::oneshot::finish`]), and what it says meanwhile
    /// is reported (unless the findings are kept).
    pub fn close(self) {
        let Link {
            manager,
            events,
            keep_findings,
            ..
        } = self;
        super::oneshot::defer(manager, events, !keep_findings);
    }
}
