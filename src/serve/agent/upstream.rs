//! The manager's events (statuses, lists, answers, notifications, the
//! servers' own requests) turned into frames for the agent, and the
//! watched files (config, pins) applied.

use super::*;

impl Serve {
    pub(super) fn event(&mut self, ev: Event) {
        match ev {
            Event::Status {
                server,
                status,
                negotiated,
            } => {
                if let ServerStatus::Failed(e) | ServerStatus::NeedsAuth(e) = &status {
                    eprintln!(
                        "mcpdeck serve: server {server:?} {}: {}",
                        status.label(),
                        crate::sanitize::one_line(&e.to_string())
                    );
                }
                self.views_changed = true;
                if let Some(s) = self.state.server_mut(&server) {
                    s.status = status;
                    if let Some(n) = negotiated {
                        s.negotiated = Some(*n);
                    }
                }
            }
            Event::Lists { server, lists } => {
                self.views_changed = true;
                let announced: Vec<&'static str> = self
                    .announced
                    .iter()
                    .filter(|(s, _)| *s == server)
                    .map(|(_, k)| *k)
                    .collect();
                self.announced.retain(|(s, _)| *s != server);
                if let Some(s) = self.state.server_mut(&server) {
                    // A change the server announced, with nothing changed
                    // that mcpdeck can see (a description elsewhere, a
                    // server that refreshes its cache): passed on, since
                    // the server said so. A change only in what the agent
                    // does not see is not.
                    for kind in announced {
                        let same = s.lists.as_ref().is_some_and(|old| match kind {
                            "tools" => old.tools == lists.tools,
                            "prompts" => old.prompts == lists.prompts,
                            _ => {
                                old.resources == lists.resources && old.templates == lists.templates
                            }
                        });
                        if same && !self.forced.contains(&kind) {
                            self.forced.push(kind);
                        }
                    }
                    s.lists = Some(lists);
                }
            }
            Event::CallStarted {
                tag, request_id, ..
            } => self.call_started(tag, request_id),
            Event::CallFinished {
                tag,
                server,
                result,
                elapsed,
                ..
            } => self.call_finished(tag, &server, result, elapsed),
            Event::Response {
                tag,
                server,
                result,
                ..
            } => self.response(tag, &server, result),
            Event::Notification {
                server,
                method,
                params,
            } => self.upstream_notification(&server, &method, params),
            Event::ServerRequest {
                id,
                server,
                method,
                params,
                request_id,
                related,
            } => {
                let asked = self.server_request(id, &server, &method, params, related);
                if let (Some(asked), Some(theirs)) = (asked, request_id) {
                    self.server_asks
                        .insert((server, theirs.to_string()), (asked, id));
                }
            }
            Event::Subscription {
                server,
                uri,
                subscribed,
                result,
            } => {
                let at = self
                    .subs
                    .iter()
                    .position(|(s, u, on, ..)| *s == server && *u == uri && *on == subscribed);
                if let Some(i) = at {
                    let (.., id, stateless) = self.subs.remove(i);
                    match result {
                        Ok(()) => self.respond(&id, stateless, json!({})),
                        Err(e) => self.fail(&id, self.call_error(&server, &e)),
                    }
                }
            }
            _ => {}
        }
    }

    pub(super) fn call_started(&mut self, tag: u64, request_id: i64) {
        let Some(p) = self.pending.get_mut(&tag) else {
            return;
        };
        p.upstream_token = Some(request_id);
        let Some(token) = p.progress.clone() else {
            return;
        };
        let key = (p.server.clone(), request_id);
        let about = p.id.clone();
        let early = self.early.remove(&key);
        self.progress.insert(key, (token.clone(), about.clone()));
        for mut params in early.into_iter().flatten() {
            params["progressToken"] = token.clone();
            self.notify_about("notifications/progress", Some(params), Some(&about));
        }
    }

    pub(super) fn finish_log(&mut self, log: u64, outcome: String, elapsed: Option<Duration>) {
        self.state
            .finish_call(log, outcome, elapsed.unwrap_or_default());
    }

    pub(super) fn call_finished(
        &mut self,
        tag: u64,
        server: &str,
        result: Result<crate::mcp::CallResult, CallError>,
        elapsed: Duration,
    ) {
        let Some(p) = self.pending.remove(&tag) else {
            return;
        };
        if let Some(token) = p.upstream_token {
            let key = (server.to_string(), token);
            self.progress.remove(&key);
            self.early.remove(&key);
        }
        let log = match p.reply {
            Reply::Call { log } => log,
            _ => 0,
        };
        let outcome = match result {
            Ok(r) => {
                let outcome =
                    if r.raw.get("resultType").and_then(Value::as_str) == Some("input_required") {
                        "input required"
                    } else if r.is_error {
                        "isError"
                    } else {
                        "ok"
                    };
                self.finish_log(log, outcome.into(), Some(elapsed));
                let mut raw = r.raw;
                strip_envelope(&mut raw);
                Ok(raw)
            }
            Err(e) => {
                self.finish_log(log, format!("error: {e}"), Some(elapsed));
                Err(self.call_error(server, &e))
            }
        };
        self.deliver(tag, p, outcome);
    }

    /// Answer the agent's request; a stateless agent that was sent an
    /// input_required round gets the answer on its retry.
    pub(super) fn deliver(&mut self, tag: u64, mut p: Pending, outcome: Result<Value, Value>) {
        if !p.inputs.is_empty() {
            p.finished = Some(outcome);
            self.pending.insert(tag, p);
            return;
        }
        self.tags.remove(&id_key(&p.id));
        match outcome {
            Ok(v) => self.respond(&p.id, p.stateless, v),
            Err(e) => self.fail(&p.id, e),
        }
    }

    /// The error the agent gets for a failed upstream request: the
    /// server's JSON-RPC error unchanged, else one naming the server.
    pub(super) fn call_error(&self, server: &str, e: &CallError) -> Value {
        if let CallError::Request(RequestError::Rpc { error: rpc, .. }) = e {
            return rpc_error(rpc);
        }
        let status = self
            .state
            .server(server)
            .map(|s| s.status_text())
            .unwrap_or_else(|| "gone".into());
        error(
            codes::INTERNAL_ERROR,
            format!("server {server:?} ({status}): {e}"),
            Some(json!({"server": server, "status": status})),
        )
    }

    pub(super) fn response(&mut self, tag: u64, server: &str, result: Result<Value, CallError>) {
        let Some(p) = self.pending.remove(&tag) else {
            return;
        };
        let outcome = match result {
            Ok(mut v) => {
                let (ttl, scope) = strip_envelope(&mut v);
                if matches!(p.reply, Reply::Task) {
                    self.map_tasks(server, &mut v);
                }
                if matches!(p.reply, Reply::Read) {
                    let naming = self.state.naming;
                    if let Some(contents) = v.get_mut("contents").and_then(Value::as_array_mut) {
                        for c in contents {
                            if let Some(uri) = c.get("uri").and_then(Value::as_str) {
                                c["uri"] = json!(naming.uri(server, uri));
                            }
                        }
                    }
                    if p.stateless
                        && v.get("resultType").is_none()
                        && let Some(obj) = v.as_object_mut()
                    {
                        obj.insert("ttlMs".into(), ttl.unwrap_or(json!(0)));
                        obj.insert("cacheScope".into(), scope.unwrap_or(json!("private")));
                    }
                }
                Ok(v)
            }
            Err(e) => Err(self.call_error(server, &e)),
        };
        self.deliver(tag, p, outcome);
    }

    pub(super) fn upstream_notification(
        &mut self,
        server: &str,
        method: &str,
        params: Option<Value>,
    ) {
        match method {
            "notifications/progress" => {
                let Some(mut params) = params else { return };
                let Some(token) = params.get("progressToken").and_then(|t| {
                    t.as_i64()
                        .or_else(|| t.as_str().and_then(|s| s.parse().ok()))
                }) else {
                    return;
                };
                let key = (server.to_string(), token);
                match self.progress.get(&key) {
                    Some((agent, about)) => {
                        params["progressToken"] = agent.clone();
                        self.notify_about(method, Some(params), Some(about));
                    }
                    None => {
                        // Its call's start is not known yet; a call not
                        // asking for progress never gets there.
                        let wanted = self
                            .pending
                            .values()
                            .any(|p| p.server == server && p.progress.is_some());
                        if wanted {
                            let queue = self.early.entry(key).or_default();
                            if queue.len() < 64 {
                                queue.push(params);
                            }
                        }
                    }
                }
            }
            // The server gave up a request of its own: the agent is told,
            // under serve's id for it, and its answer is no longer awaited.
            "notifications/cancelled" => {
                let Some(params) = params else { return };
                let Some(theirs) = params.get("requestId") else {
                    return;
                };
                let Some((asked, ask)) = self
                    .server_asks
                    .remove(&(server.to_string(), theirs.to_string()))
                else {
                    return;
                };
                if self.asks.remove(&asked).is_none() {
                    return; // answered already
                }
                self.manager.send(Command::AnswerServerRequest {
                    id: ask,
                    result: Err(RpcError::new(
                        codes::INTERNAL_ERROR,
                        "the server cancelled its request",
                    )),
                });
                let mut cancel = json!({"requestId": asked});
                if let Some(reason) = params.get("reason") {
                    cancel["reason"] = reason.clone();
                }
                self.notify("notifications/cancelled", Some(cancel));
            }
            "notifications/tasks/status" => {
                let Some(mut params) = params else { return };
                self.map_tasks(server, &mut params);
                self.notify(method, Some(params));
            }
            "notifications/message" => {
                let Some(mut params) = params else { return };
                if self.state.naming == Naming::Aggregated
                    && let Some(obj) = params.as_object_mut()
                {
                    let logger = match obj.get("logger").and_then(Value::as_str) {
                        Some(l) => format!("{server}/{l}"),
                        None => server.to_string(),
                    };
                    obj.insert("logger".into(), json!(logger));
                }
                self.notify(method, Some(params));
            }
            "notifications/resources/updated" => {
                let Some(mut params) = params else { return };
                let Some(uri) = params.get("uri").and_then(Value::as_str) else {
                    return;
                };
                let agent_uri = self.state.naming.uri(server, uri);
                params["uri"] = json!(agent_uri);
                if let Some(meta) = params.get_mut("_meta").and_then(Value::as_object_mut) {
                    meta.remove("io.modelcontextprotocol/subscriptionId");
                    if meta.is_empty() {
                        params.as_object_mut().map(|o| o.remove("_meta"));
                    }
                }
                if self.agent.initialized {
                    self.notify(method, Some(params.clone()));
                }
                for l in &self.listens {
                    if l.uris.contains(&agent_uri) {
                        let mut p = params.clone();
                        p["_meta"] = json!({"io.modelcontextprotocol/subscriptionId": l.id});
                        self.notify(method, Some(p));
                    }
                }
            }
            // list_changed: the lists come again, and the agent is told
            // when its view changed (after_events).
            "notifications/tools/list_changed" => {
                self.announced.push((server.to_string(), "tools"))
            }
            "notifications/prompts/list_changed" => {
                self.announced.push((server.to_string(), "prompts"))
            }
            "notifications/resources/list_changed" => {
                self.announced.push((server.to_string(), "resources"))
            }
            _ => {}
        }
    }

    /// A server's request for the agent: sent to it (its id for it is
    /// returned), or as input_required to a stateless agent's request, or
    /// refused.
    pub(super) fn server_request(
        &mut self,
        ask: u64,
        server: &str,
        method: &str,
        params: Value,
        related: Option<i64>,
    ) -> Option<String> {
        let capability = match method {
            "sampling/createMessage" => "sampling",
            "elicitation/create" => "elicitation",
            _ => "",
        };
        // The agent's request it belongs to, when the server says (made on
        // that call's stream).
        let owner = related.and_then(|r| {
            self.pending
                .iter()
                .find(|(_, p)| p.server == server && p.upstream_token == Some(r))
                .map(|(tag, _)| *tag)
        });
        // A stateless agent takes no requests: the server's request goes
        // as input_required in the answer to the agent's request it belongs
        // to (when not known: the latest to that server).
        // A server that does not say (stdio) is taken to ask for the one
        // stateless request in flight to it; with several, whose it is
        // cannot be told, and it is refused rather than shown to another
        // agent.
        let stateless_round = if self.agent.initialized {
            None
        } else {
            owner
                .filter(|t| self.pending.get(t).is_some_and(|p| p.stateless))
                .or_else(|| {
                    let mut candidates = self
                        .pending
                        .iter()
                        .filter(|(_, p)| p.stateless && p.server == server)
                        .map(|(tag, _)| *tag);
                    match (candidates.next(), candidates.next()) {
                        (Some(one), None) => Some(one),
                        _ => None,
                    }
                })
        };
        // What that request declared (a stateless agent's capabilities
        // come with each request), else what the agent declared.
        let declared = stateless_round
            .and_then(|t| self.pending.get(&t))
            .and_then(|p| p.capabilities.as_ref())
            .unwrap_or(&self.agent.capabilities);
        let offered = !capability.is_empty() && declared.get(capability).is_some();
        if offered && let Some(tag) = stateless_round {
            if let Some(p) = self.pending.get_mut(&tag) {
                p.queued.push((ask, method.to_string(), params));
            }
            self.input_round(tag);
            return None;
        }
        if !offered || !self.agent.initialized {
            let several = !self.agent.initialized
                && stateless_round.is_none()
                && self
                    .pending
                    .values()
                    .filter(|p| p.stateless && p.server == server)
                    .count()
                    > 1;
            let message = if several {
                format!(
                    "server {server:?} asked for {method} while several agents' requests to it are in flight through mcpdeck serve, and did not say for which; refused"
                )
            } else {
                format!(
                    "the agent behind mcpdeck serve does not offer {}; server {server:?} asked for {method}",
                    if capability.is_empty() {
                        method
                    } else {
                        capability
                    }
                )
            };
            self.manager.send(Command::AnswerServerRequest {
                id: ask,
                result: Err(RpcError::new(codes::METHOD_NOT_FOUND, message)),
            });
            return None;
        }
        self.next_ask += 1;
        let id = format!("mcpdeck-{}", self.next_ask);
        self.asks.insert(id.clone(), Ask::Server(ask));
        // Made while one of the agent's calls runs: on that call's stream.
        let about = owner
            .and_then(|t| self.pending.get(&t))
            .map(|p| p.id.clone());
        self.send_about(
            json!({"jsonrpc": "2.0", "id": id, "method": method, "params": params}),
            about.as_ref(),
        );
        Some(id)
    }

    /// Send a stateless agent the server requests queued for request
    /// `tag`, as `input_required`, unless a round is already out.
    pub(super) fn input_round(&mut self, tag: u64) {
        let Some(p) = self.pending.get_mut(&tag) else {
            return;
        };
        if !p.inputs.is_empty() || p.queued.is_empty() {
            return;
        }
        let mut requests = Map::new();
        for (ask, method, params) in std::mem::take(&mut p.queued) {
            let key = format!("mcpdeck-{ask}");
            requests.insert(key.clone(), json!({"method": method, "params": params}));
            p.inputs.push((key, ask));
        }
        let id = p.id.clone();
        self.tags.remove(&id_key(&id));
        self.respond(
            &id,
            true,
            json!({
                "resultType": "input_required",
                "inputRequests": requests,
                "requestState": format!("{STATE_PREFIX}{tag}"),
            }),
        );
    }

    /// After a burst of events: settle, and tell the agent what changed.
    pub(super) fn after_events(&mut self) {
        self.check_settled();
        // Only a status or a list changes what the agent sees (progress
        // and log messages, the bulk of the events, do not).
        if std::mem::take(&mut self.views_changed) || !self.forced.is_empty() {
            self.tell_changes();
        }
    }

    pub(super) fn check_settled(&mut self) {
        if !self.settled && self.state.settled() {
            self.set_settled();
        }
    }

    pub(super) fn set_settled(&mut self) {
        self.settled = true;
        for frame in std::mem::take(&mut self.held) {
            self.request(frame);
        }
    }

    /// `list_changed` for each list the agent's view of changed.
    pub(super) fn tell_changes(&mut self) {
        let forced = std::mem::take(&mut self.forced);
        let Some(shown) = &self.shown else { return };
        let now = self.state.visible();
        let changed = [
            (
                shown.tools != now.tools || forced.contains(&"tools"),
                "tools",
            ),
            (
                shown.prompts != now.prompts || forced.contains(&"prompts"),
                "prompts",
            ),
            (
                shown.resources != now.resources
                    || shown.templates != now.templates
                    || forced.contains(&"resources"),
                "resources",
            ),
        ];
        for (differs, kind) in changed {
            if !differs {
                continue;
            }
            let method = format!("notifications/{kind}/list_changed");
            if self.agent.initialized {
                self.notify(&method, None);
            }
            for l in &self.listens {
                let wanted = match kind {
                    "tools" => l.tools,
                    "prompts" => l.prompts,
                    _ => l.resources,
                };
                if wanted {
                    self.notify(
                        &method,
                        Some(json!({"_meta": {"io.modelcontextprotocol/subscriptionId": l.id}})),
                    );
                }
            }
        }
        self.shown = Some(now);
    }

    // ---- the watched files ----

    /// A change to a watched file waits to be confirmed.
    pub(super) fn watch_settling(&self) -> bool {
        self.config.as_ref().is_some_and(Watched::settling)
            || self.pin_file.as_ref().is_some_and(Watched::settling)
    }

    pub(super) fn watch(&mut self) {
        if self.pin_file.as_mut().is_some_and(Watched::changed) {
            match load_pins() {
                Ok(p) => self.state.pins = Some(p),
                Err(e) => eprintln!("mcpdeck serve: the pin file was not read again: {e}"),
            }
            self.tell_changes();
        }
        let Some(watched) = self.config.as_mut() else {
            return;
        };
        if !watched.changed() {
            return;
        }
        let path = watched.path().to_path_buf();
        let config = match crate::config::load(&path) {
            Ok(c) => c,
            Err(e) => {
                eprintln!(
                    "mcpdeck serve: warning: the changed config was not applied (the previous one stays): {}",
                    e.to_string().lines().next().unwrap_or_default()
                );
                return;
            }
        };
        self.apply(config);
    }

    /// A new config: servers come and go, the policy is the new one.
    pub(super) fn apply(&mut self, config: Config) {
        let served = served(&config, &self.args);
        let mut old = std::mem::take(&mut self.state.servers);
        for c in &served {
            let upstream = match old.iter().position(|u| u.config.name == c.name) {
                Some(i) => {
                    let mut u = old.remove(i);
                    // Restarted by the manager only when it reaches the
                    // server another way (a change of policy or of roots
                    // applies in place: see `same_connection`).
                    if !u.config.same_connection(c) {
                        u = Upstream::new(c.clone());
                    }
                    u.config = c.clone();
                    u
                }
                None => Upstream::new(c.clone()),
            };
            self.state.servers.push(upstream);
        }
        for gone in old {
            eprintln!(
                "mcpdeck serve: server {:?} is no longer served",
                gone.config.name
            );
        }
        self.manager.send(Command::SetServers(
            served
                .iter()
                .map(|c| connection(c, self.initialize_era))
                .collect(),
        ));
        self.tell_changes();
    }
}
