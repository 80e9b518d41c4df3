//! What goes to a server: the agent's names and URIs resolved to a
//! server's, the policy checked (a refused tool never leaves mcpdeck), and
//! the request passed on as a manager command with a tag: calls (plain and
//! task-augmented), tasks, prompts, resources, subscriptions, completion
//! and the log level.

use super::*;

impl Serve {
    /// The server of an agent's tool or prompt name, or the error to answer.
    pub(super) fn resolve(&self, name: &str, what: &str) -> Result<(String, String), Value> {
        let only = self.state.only();
        let unknown = || {
            error(
                codes::INVALID_PARAMS,
                format!("unknown {what} {name:?}"),
                None,
            )
        };
        let (server, own) = self.state.naming.split(name, only).ok_or_else(unknown)?;
        let upstream = self.state.server(server).ok_or_else(unknown)?;
        self.check_up(upstream)?;
        Ok((server.to_string(), own.to_string()))
    }

    /// An error naming the server and its status, unless it is connected.
    pub(super) fn check_up(&self, upstream: &Upstream) -> Result<(), Value> {
        if upstream.status == ServerStatus::Connected {
            return Ok(());
        }
        Err(error(
            codes::INTERNAL_ERROR,
            format!(
                "server {:?} is {}; its tools are unavailable until it is connected again",
                upstream.config.name,
                upstream.status_text()
            ),
            Some(json!({"server": upstream.config.name, "status": upstream.status.label()})),
        ))
    }

    pub(super) fn call(&mut self, id: &Value, params: Option<&Value>, stateless: bool) {
        let Some(name) = params.and_then(|p| p.get("name")).and_then(Value::as_str) else {
            return self.fail(
                id,
                error(codes::INVALID_PARAMS, "tools/call needs params.name", None),
            );
        };
        let only = self.state.only();
        let unknown = || {
            error(
                codes::INVALID_PARAMS,
                format!("unknown tool {name:?}"),
                None,
            )
        };
        let Some((server, tool)) = self.state.naming.split(name, only) else {
            return self.fail(id, unknown());
        };
        let (server, tool) = (server.to_string(), tool.to_string());
        let Some(upstream) = self.state.server(&server) else {
            return self.fail(id, unknown());
        };
        // The policy first: a refused tool is refused whatever the
        // server's state, and the error names the rule.
        if let Some(rule) = upstream.config.tool_refusal(&tool) {
            let message = format!(
                "tool {tool:?} is refused on server {server:?} by its {rule} in the mcpdeck config"
            );
            let (list, pattern) = match &rule {
                crate::config::ToolRefusal::Denied { pattern } => ("deny_tools", Some(pattern)),
                crate::config::ToolRefusal::NotAllowed => ("allow_tools", None),
            };
            self.state
                .log_call(&server, &tool, Some(format!("refused: {rule}")));
            return self.fail(
                id,
                error(
                    codes::INVALID_PARAMS,
                    message,
                    Some(json!({"server": server, "tool": tool, "rule": {"list": list, "pattern": pattern}})),
                ),
            );
        }
        if let Some(found) = upstream
            .lists
            .as_ref()
            .and_then(|l| l.tools.iter().find(|t| t.name == tool))
            && let Some(why) = self.state.withheld(upstream, found)
        {
            self.state
                .log_call(&server, &tool, Some(format!("refused: {why}")));
            return self.fail(
                id,
                error(
                    codes::INVALID_PARAMS,
                    why.to_string(),
                    Some(json!({"server": server, "tool": tool})),
                ),
            );
        }
        if let Err(e) = self.check_up(upstream) {
            self.state
                .log_call(&server, &tool, Some("error: not connected".into()));
            return self.fail(id, e);
        }
        // A task-augmented call (2025-11-25 tasks): passed on as it is; the
        // agent polls tasks/get and tasks/result through serve.
        if params.is_some_and(|p| p.get("task").is_some()) {
            self.state
                .log_call(&server, &tool, Some("task created".into()));
            let mut p = upstream_params(params);
            p["name"] = json!(tool);
            return self.forward(id, stateless, server, "tools/call", p, Reply::Task);
        }
        let arguments = params
            .and_then(|p| p.get("arguments"))
            .cloned()
            .unwrap_or_else(|| json!({}));
        let progress = params
            .and_then(|p| p.get("_meta"))
            .and_then(|m| m.get("progressToken"))
            .cloned();
        let log = self.state.log_call(&server, &tool, None);
        let tag = self.wait_upstream(id, stateless, &server, Reply::Call { log }, progress);
        // The agent's own `_meta` goes on (a W3C traceparent, its keys);
        // the progressToken and the era's keys are the session's.
        let mut meta = match upstream_params(params).get("_meta") {
            Some(Value::Object(m)) => m.clone(),
            _ => Map::new(),
        };
        let mut extra = Map::new();
        for key in ["inputResponses", "requestState"] {
            if let Some(v) = params.and_then(|p| p.get(key)) {
                extra.insert(key.into(), v.clone());
            }
        }
        self.pass_through(&server, stateless, extra, &mut meta);
        self.manager.send(Command::CallWithMeta {
            tag,
            server,
            tool,
            arguments,
            meta,
        });
    }

    /// `tasks/get`, `tasks/result`, `tasks/cancel`: to the server whose task
    /// it is, with its own task id.
    pub(super) fn task_request(
        &mut self,
        id: &Value,
        method: &str,
        params: Option<&Value>,
        stateless: bool,
    ) {
        let Some(task) = params.and_then(|p| p.get("taskId")).and_then(Value::as_str) else {
            return self.fail(
                id,
                error(
                    codes::INVALID_PARAMS,
                    format!("{method} needs params.taskId"),
                    None,
                ),
            );
        };
        let Some((server, theirs)) = self.tasks.get(task).cloned() else {
            return self.fail(
                id,
                error(
                    codes::INVALID_PARAMS,
                    format!("unknown task {task:?} (not created through this mcpdeck serve)"),
                    None,
                ),
            );
        };
        if let Err(e) = self
            .state
            .server(&server)
            .ok_or_else(|| {
                error(
                    codes::INVALID_PARAMS,
                    format!("server {server:?} is no longer served"),
                    None,
                )
            })
            .and_then(|u| self.check_up(u))
        {
            return self.fail(id, e);
        }
        let mut p = upstream_params(params);
        p["taskId"] = json!(theirs);
        self.forward(id, stateless, server, method, p, Reply::Task);
    }

    /// `tasks/list`: the one server's list (its ids are the agent's); with
    /// several servers, each one's tasks would need their own cursor, so
    /// the agent is told to ask for its tasks one by one.
    pub(super) fn task_list(&mut self, id: &Value, params: Option<&Value>, stateless: bool) {
        let Some(server) = self.state.only().map(str::to_string) else {
            return self.fail(
                id,
                error(
                    codes::METHOD_NOT_FOUND,
                    "tasks/list is offered when one server is served; ask tasks/get for each task",
                    None,
                ),
            );
        };
        if let Some(u) = self.state.server(&server)
            && let Err(e) = self.check_up(u)
        {
            return self.fail(id, e);
        }
        let p = upstream_params(params);
        self.forward(id, stateless, server, "tasks/list", p, Reply::Task);
    }

    /// Map the task ids in an upstream answer (or notification) of
    /// `server` to the agent's, remembering new ones.
    pub(super) fn map_tasks(&mut self, server: &str, v: &mut Value) {
        let naming = self.state.naming;
        let map = |task: &mut Value, tasks: &mut HashMap<String, (String, String)>| {
            if let Some(theirs) = task
                .get("taskId")
                .and_then(Value::as_str)
                .map(str::to_string)
            {
                let ours = naming.name(server, &theirs);
                task["taskId"] = json!(ours);
                tasks.insert(ours, (server.to_string(), theirs));
            }
        };
        if let Some(task) = v.get_mut("task") {
            map(task, &mut self.tasks);
        }
        if v.get("taskId").is_some() {
            map(v, &mut self.tasks);
        }
        if let Some(list) = v.get_mut("tasks").and_then(Value::as_array_mut) {
            for task in list {
                map(task, &mut self.tasks);
            }
        }
        if let Some(related) = v
            .get_mut("_meta")
            .and_then(|m| m.get_mut("io.modelcontextprotocol/related-task"))
        {
            map(related, &mut self.tasks);
        }
    }

    /// A new tag for the agent's request `id`, remembered with what its
    /// answer becomes.
    pub(super) fn wait_upstream(
        &mut self,
        id: &Value,
        stateless: bool,
        server: &str,
        reply: Reply,
        progress: Option<Value>,
    ) -> u64 {
        let tag = self.tag();
        self.tags.insert(id_key(id), tag);
        self.pending.insert(
            tag,
            Pending {
                id: id.clone(),
                stateless,
                server: server.to_string(),
                reply,
                progress,
                upstream_token: None,
                inputs: Vec::new(),
                queued: Vec::new(),
                finished: None,
                capabilities: stateless.then(|| self.agent.capabilities.clone()),
            },
        );
        tag
    }

    /// A stateless agent's request to a server of the same era goes as it
    /// is: with the agent's own client capabilities (so the server refuses
    /// what this agent cannot do, -32021), its `inputResponses` and
    /// `requestState` (`extra`, for a call; other requests keep them in
    /// their params), and an `input_required` answer comes back to the
    /// agent as the server sent it: keys, requests and state unchanged.
    pub(super) fn pass_through(
        &self,
        server: &str,
        stateless: bool,
        extra: Map<String, Value>,
        meta: &mut Map<String, Value>,
    ) {
        let same_era = self.state.server(server).is_some_and(|u| {
            u.negotiated
                .as_ref()
                .is_some_and(|n| n.era == crate::mcp::types::Era::Stateless)
        });
        if !stateless || !same_era {
            return;
        }
        meta.insert(
            "io.modelcontextprotocol/clientCapabilities".into(),
            self.agent.capabilities.clone(),
        );
        meta.insert(
            crate::mcp::session::PASS_THROUGH.into(),
            Value::Object(extra),
        );
    }

    /// Send a request upstream and remember whom to answer.
    pub(super) fn forward(
        &mut self,
        id: &Value,
        stateless: bool,
        server: String,
        method: &str,
        params: Value,
        reply: Reply,
    ) {
        let mut params = params;
        if let Some(obj) = params.as_object_mut() {
            let meta = obj.entry("_meta").or_insert_with(|| json!({}));
            if let Some(meta) = meta.as_object_mut() {
                // inputResponses and requestState are among the params.
                self.pass_through(&server, stateless, Map::new(), meta);
                if meta.is_empty() {
                    obj.remove("_meta");
                }
            }
        }
        let tag = self.wait_upstream(id, stateless, &server, reply, None);
        self.manager.send(Command::Request {
            tag,
            server,
            method: method.to_string(),
            params,
        });
    }

    pub(super) fn by_name(
        &mut self,
        id: &Value,
        method: &str,
        params: Option<&Value>,
        stateless: bool,
        what: &str,
    ) {
        let name = params
            .and_then(|p| p.get("name"))
            .and_then(Value::as_str)
            .unwrap_or_default();
        match self.resolve(name, what) {
            Ok((server, own)) => {
                let mut p = upstream_params(params);
                p["name"] = json!(own);
                self.forward(id, stateless, server, method, p, Reply::Plain);
            }
            Err(e) => self.fail(id, e),
        }
    }

    /// [`Self::resolve_uri`] for the `uri` of a request's params.
    fn resolve_uri_of(&self, params: Option<&Value>) -> Result<(String, String), Value> {
        let uri = params
            .and_then(|p| p.get("uri"))
            .and_then(Value::as_str)
            .unwrap_or_default();
        self.resolve_uri(uri)
    }

    /// The server and own URI of an agent's URI, or the error to answer.
    pub(super) fn resolve_uri(&self, uri: &str) -> Result<(String, String), Value> {
        let unknown = || {
            error(
                codes::INVALID_PARAMS,
                format!("unknown resource {uri:?}: resources are named mcpdeck://SERVER/URI here"),
                None,
            )
        };
        let (server, own) = self
            .state
            .naming
            .split_uri(uri, self.state.only())
            .ok_or_else(unknown)?;
        let upstream = self.state.server(server).ok_or_else(unknown)?;
        self.check_up(upstream)?;
        Ok((server.to_string(), own.to_string()))
    }

    pub(super) fn by_uri(
        &mut self,
        id: &Value,
        method: &str,
        params: Option<&Value>,
        stateless: bool,
        reply: Reply,
    ) {
        match self.resolve_uri_of(params) {
            Ok((server, own)) => {
                let mut p = upstream_params(params);
                p["uri"] = json!(own);
                self.forward(id, stateless, server, method, p, reply);
            }
            Err(e) => self.fail(id, e),
        }
    }

    pub(super) fn subscribe(
        &mut self,
        id: &Value,
        method: &str,
        params: Option<&Value>,
        stateless: bool,
    ) {
        match self.resolve_uri_of(params) {
            Ok((server, own)) => {
                let on = method == "resources/subscribe";
                self.subs
                    .push((server.clone(), own.clone(), on, id.clone(), stateless));
                self.manager.send(if on {
                    Command::Subscribe(server, own)
                } else {
                    Command::Unsubscribe(server, own)
                });
            }
            Err(e) => self.fail(id, e),
        }
    }

    pub(super) fn complete(&mut self, id: &Value, params: Option<&Value>, stateless: bool) {
        let reference = params
            .and_then(|p| p.get("ref"))
            .cloned()
            .unwrap_or_default();
        let kind = reference
            .get("type")
            .and_then(Value::as_str)
            .unwrap_or_default();
        let resolved = match kind {
            "ref/prompt" => self
                .resolve(
                    reference
                        .get("name")
                        .and_then(Value::as_str)
                        .unwrap_or_default(),
                    "prompt",
                )
                .map(|(s, own)| (s, "name", own)),
            "ref/resource" => self
                .resolve_uri(
                    reference
                        .get("uri")
                        .and_then(Value::as_str)
                        .unwrap_or_default(),
                )
                .map(|(s, own)| (s, "uri", own)),
            other => Err(error(
                codes::INVALID_PARAMS,
                format!("unknown completion reference type {other:?}"),
                None,
            )),
        };
        match resolved {
            Ok((server, key, own)) => {
                let mut p = upstream_params(params);
                p["ref"][key] = json!(own);
                self.forward(
                    id,
                    stateless,
                    server,
                    "completion/complete",
                    p,
                    Reply::Plain,
                );
            }
            Err(e) => self.fail(id, e),
        }
    }

    pub(super) fn set_level(&mut self, id: &Value, params: Option<&Value>, stateless: bool) {
        let Some(level) = params.and_then(|p| p.get("level")).and_then(Value::as_str) else {
            return self.fail(
                id,
                error(
                    codes::INVALID_PARAMS,
                    "logging/setLevel needs params.level",
                    None,
                ),
            );
        };
        if !crate::mcp::session::LOG_LEVELS.contains(&level) {
            return self.fail(
                id,
                error(
                    codes::INVALID_PARAMS,
                    format!("unknown log level {level:?}"),
                    None,
                ),
            );
        }
        for s in &self.state.servers {
            if s.status == ServerStatus::Connected {
                self.manager.send(Command::SetLogLevel(
                    s.config.name.clone(),
                    level.to_string(),
                ));
            }
        }
        self.respond(id, stateless, json!({}));
    }
}
