//! What the server sends: each line or HTTP message parsed, responses
//! matched to their requests, server requests answered, notifications
//! emitted, and every off-spec frame recorded as a finding.

use std::sync::Arc;
use std::sync::atomic::Ordering;

use serde_json::{Value, json};

use crate::mcp::finding::{Finding, Severity};
use crate::mcp::framelog::{Direction, FrameMeta};
use crate::mcp::jsonrpc::{self, Id, Message, RpcError};
use crate::mcp::transport::Inbound;
use crate::mcp::types::Era;

use super::handle::*;

/// What a response id found among the requests in flight.
pub(super) enum Match {
    /// The request, taken: the answer completes it.
    Taken(i64, PendingEntry),
    /// The request, left in flight: the answer cannot complete it.
    Refused {
        n: i64,
        method: Arc<str>,
        why: String,
    },
    None,
}
use super::model::*;
use super::policy::*;

impl Inner {
    pub(super) async fn handle_inbound(self: &Arc<Self>, item: Inbound) {
        match item {
            Inbound::Line(line) => self.handle_line(line).await,
            Inbound::Related { line, request } => {
                // The reader is one task: the id holds for this line only.
                self.related.store(request, Ordering::Release);
                self.handle_line(line).await;
                self.related.store(-1, Ordering::Release);
            }
            Inbound::LineWithFinding(line, f) => {
                self.finding(f);
                self.handle_line(line).await;
            }
            Inbound::Finding(f) => self.finding(f),
            Inbound::Oversize {
                len,
                limit,
                head,
                tail,
            } => self.oversize(len, limit, &head, &tail),
            Inbound::Failed { id, failure } => {
                let entry = self
                    .pending
                    .lock()
                    .unwrap_or_else(|p| p.into_inner())
                    .remove(&id);
                if let Some(body) = &failure.body {
                    // Every byte the server sent can be seen.
                    self.frames.record(
                        &self.name,
                        Direction::In,
                        body,
                        FrameMeta {
                            method: entry.as_ref().map(|e| e.method.clone()),
                            id: Some(Id::Num(id)),
                            latency: entry.as_ref().map(|e| e.sent.elapsed()),
                            json: false,
                        },
                    );
                }
                let unreachable = failure.unreachable;
                let description = failure.message.clone();
                if let Some(e) = entry {
                    e.settle(Err(RequestError::Http(Box::new(failure))));
                }
                // The HTTP server of an established session cannot be
                // reached any more: the session is over (its status says
                // why; a reconnect starts a new one). While connecting,
                // the connect's own error says it.
                let established = self
                    .wire
                    .read()
                    .unwrap_or_else(|p| p.into_inner())
                    .is_some();
                let closed = self
                    .closed
                    .lock()
                    .unwrap_or_else(|p| p.into_inner())
                    .is_some();
                let closing = self.closing.load(std::sync::atomic::Ordering::Acquire);
                if unreachable && established && !closed && !closing {
                    Box::pin(self.handle_inbound(Inbound::Closed {
                        description: format!("the server is unreachable: {description}"),
                        requested: false,
                        stderr_tail: Vec::new(),
                    }))
                    .await;
                }
            }
            Inbound::Closed {
                description,
                requested,
                stderr_tail,
            } => {
                *self.closed.lock().unwrap_or_else(|p| p.into_inner()) =
                    Some((description.clone(), stderr_tail.clone()));
                self.closed_signal.send_replace(true);
                if requested {
                    self.fail_all("the session was closed by mcpdeck", false);
                } else {
                    self.fail_all(&description, true);
                }
                self.emit(SessionEvent::Closed {
                    description,
                    requested,
                    stderr_tail,
                });
            }
        }
    }

    /// A message over the size limit was dropped. If it names a request in
    /// flight (its id read from its start or its end), that request fails
    /// now rather than waiting for its deadline.
    fn oversize(&self, len: usize, limit: usize, head: &str, tail: &str) {
        let id = jsonrpc::salvage_id_of_long(head, tail);
        let size = format!(
            "{len} bytes, over the limit of {limit} bytes (`max_message_size` in [settings])"
        );
        let shown = format!("{head} … {tail}");
        let taken = id
            .as_ref()
            .map(|id| self.take_pending(id, &shown, |_| None));
        match taken {
            Some(Match::Taken(n, entry)) => {
                let message = format!(
                    "the answer to {} (request {n}) is {size}; it was dropped",
                    entry.method
                );
                self.frames.record(
                    &self.name,
                    Direction::In,
                    &shown,
                    FrameMeta {
                        method: Some(entry.method.clone()),
                        id: Some(Id::Num(n)),
                        latency: Some(entry.sent.elapsed()),
                        json: false,
                    },
                );
                self.finding(Finding::frame(
                    Severity::Error,
                    format!("{message}; the request failed"),
                    &shown,
                ));
                entry.settle(Err(RequestError::Protocol(message)));
            }
            _ => self.finding(Finding::frame(
                Severity::Error,
                format!("the server sent a message of {size}; it was dropped"),
                &shown,
            )),
        }
    }

    pub(super) fn fail_all(&self, description: &str, with_tail: bool) {
        let entries: Vec<PendingEntry> = self
            .pending
            .lock()
            .unwrap_or_else(|p| p.into_inner())
            .drain()
            .map(|(_, e)| e)
            .collect();
        let tail = if with_tail {
            self.transport
                .stderr()
                .map(|b| b.tail(20))
                .unwrap_or_default()
        } else {
            Vec::new()
        };
        for e in entries {
            let description = format!("{} while waiting for {}", description, e.method);
            e.settle(Err(RequestError::Closed {
                description,
                stderr_tail: tail.clone(),
            }));
        }
    }

    /// Find the pending request a response id points at, and take it if
    /// `refuse` (given the request's method) has nothing against the
    /// answer. A numeric id that came back as a string (or as `3.0`) is
    /// matched, with a finding.
    pub(super) fn take_pending(
        &self,
        id: &Id,
        raw: &str,
        refuse: impl FnOnce(&str) -> Option<String>,
    ) -> Match {
        let (n, odd) = match id {
            Id::Num(n) => (*n, None),
            Id::Str(s) => match s.parse::<i64>() {
                Ok(n) => (n, Some(format!("as a string ({s:?})"))),
                Err(_) => return Match::None,
            },
            Id::Other(num) => {
                // 3.0 for 3: matched, with a finding.
                match num
                    .as_f64()
                    .filter(|f| f.fract() == 0.0 && f.abs() < 9.0e15)
                {
                    Some(f) => (f as i64, Some(num.to_string())),
                    None => return Match::None,
                }
            }
            Id::Null => return Match::None,
        };
        let entry = {
            let mut pending = self.pending.lock().unwrap_or_else(|p| p.into_inner());
            let Some(entry) = pending.get(&n) else {
                return Match::None;
            };
            if let Some(why) = refuse(&entry.method) {
                return Match::Refused {
                    n,
                    method: entry.method.clone(),
                    why,
                };
            }
            match pending.remove(&n) {
                Some(entry) => entry,
                None => return Match::None,
            }
        };
        if let Some(odd) = odd {
            self.finding(Finding::frame(
                Severity::Warning,
                format!("the response to request {n} came back with the id {odd}; matched anyway"),
                raw,
            ));
        }
        Match::Taken(n, entry)
    }

    /// One frame from the server. The frame log keeps the line itself.
    /// The call a message handed up now belongs to (see
    /// [`Inbound::Related`]): the progress token of the request on whose
    /// stream it came, which is the call's first id however many times it
    /// was sent again (an expired session, an input_required round).
    fn related_call(&self) -> Option<i64> {
        let id = Some(self.related.load(Ordering::Acquire)).filter(|id| *id >= 0)?;
        let pending = self.pending.lock().unwrap_or_else(|p| p.into_inner());
        Some(
            pending
                .get(&id)
                .and_then(|e| e.progress_token)
                .unwrap_or(id),
        )
    }

    pub(super) async fn handle_line(self: &Arc<Self>, owned: String) {
        let line = owned.as_str();
        let parsed = jsonrpc::parse_frame(line);
        // Parsed whole, with nothing to say: the line is valid JSON.
        let known_json =
            !parsed.messages.is_empty() && parsed.unusable.is_empty() && parsed.findings.is_empty();
        // Match responses first so the frame record carries method and latency.
        let mut meta = FrameMeta::default();
        let mut deliveries = Vec::new();
        let mut others = Vec::new();
        let mut failures = Vec::new();
        for u in parsed.unusable {
            let refused = |method: &str, n: i64| {
                Finding::frame(
                    Severity::Error,
                    format!(
                        "the answer to {method} (request {n}) {}; it was not taken as the answer, and the request waits for a valid one until its deadline",
                        u.why
                    ),
                    line,
                )
            };
            match self.take_pending(&u.id, line, |_| (!u.fails).then(String::new)) {
                Match::Taken(n, entry) => {
                    let message = format!("the answer to {} (request {n}) {}", entry.method, u.why);
                    self.finding(Finding::frame(
                        Severity::Error,
                        format!("{message}; the request failed"),
                        line,
                    ));
                    meta = FrameMeta {
                        method: Some(entry.method.clone()),
                        id: Some(Id::Num(n)),
                        latency: Some(entry.sent.elapsed()),
                        json: false,
                    };
                    failures.push((entry, message));
                }
                Match::Refused { n, method, .. } => {
                    meta.method.get_or_insert_with(|| method.clone());
                    meta.id.get_or_insert(Id::Num(n));
                    self.finding(refused(&method, n));
                }
                Match::None => {
                    meta.id.get_or_insert_with(|| u.id.clone());
                    self.finding(Finding::frame(
                        Severity::Error,
                        format!(
                            "a response with id {} {}; it matches no request in flight; skipped",
                            u.id, u.why
                        ),
                        line,
                    ));
                }
            }
        }
        for m in parsed.messages {
            match m {
                Message::Response { id, outcome } => match self.take_pending(&id, line, |method| {
                    outcome
                        .as_ref()
                        .ok()
                        .and_then(|v| jsonrpc::answer_problem(method, v))
                }) {
                    Match::Taken(n, entry) => {
                        if meta.method.is_none() {
                            meta = FrameMeta {
                                method: Some(entry.method.clone()),
                                id: Some(Id::Num(n)),
                                latency: Some(entry.sent.elapsed()),
                                json: false,
                            };
                        }
                        deliveries.push((entry, outcome));
                    }
                    Match::Refused { n, method, why } => {
                        if meta.method.is_none() {
                            meta.method = Some(method.clone());
                            meta.id = Some(Id::Num(n));
                        }
                        self.finding(Finding::frame(
                            Severity::Error,
                            format!(
                                "the answer to {method} (request {n}) {why}; it was not taken as the answer, and the request waits for a valid one until its deadline"
                            ),
                            line,
                        ));
                    }
                    Match::None => {
                        if meta.id.is_none() {
                            meta.id = Some(id.clone());
                        }
                        let what = if outcome.is_err() {
                            "an error response"
                        } else {
                            "a response"
                        };
                        self.finding(Finding::frame(
                            Severity::Warning,
                            format!("{what} with id {id} matches no request in flight (unknown, timed out or cancelled); ignored"),
                            line,
                        ));
                    }
                },
                other => {
                    if meta.method.is_none() {
                        meta.method = other.method().map(Arc::from);
                        if let Message::Request { id, .. } = &other {
                            meta.id = Some(id.clone());
                        }
                    }
                    others.push(other);
                }
            }
        }
        let size = line.len();
        meta.json = known_json;
        self.frames
            .record_owned(&self.name, Direction::In, owned, meta);
        for f in parsed.findings {
            self.finding(f);
        }
        for (entry, message) in failures {
            entry.settle(Err(RequestError::Protocol(message)));
        }
        for (mut entry, outcome) in deliveries {
            if let Some(span) = &mut entry.span {
                span.response_size(size);
            }
            let method = entry.method.to_string();
            entry.settle(outcome.map_err(|error| RequestError::Rpc {
                method,
                error: Box::new(error),
            }));
        }
        for m in others {
            match m {
                Message::Request { id, method, params } => self.answer(id, &method, params),
                Message::Notification { method, params } => self.on_notification(method, params),
                Message::Response { .. } => {}
            }
        }
    }

    /// Answer a request from the server. The answer is written by its own
    /// task: the reader never waits on the server's input (a server blocked
    /// writing to us while we wait to write to it would be a deadlock).
    pub(super) fn answer(self: &Arc<Self>, id: Id, method: &str, params: Option<Value>) {
        let stateless = matches!(
            *self.wire.read().unwrap_or_else(|p| p.into_inner()),
            Some((Era::Stateless, _))
        );
        if stateless {
            self.finding(Finding::new(
                Severity::Warning,
                format!("the server sent a {method} request, but the stateless era has no server-to-client requests (servers ask for input with resultType input_required)"),
            ));
        }
        let meta = FrameMeta {
            method: Some(Arc::from(method)),
            id: Some(id.clone()),
            latency: None,
            json: false,
        };
        if let Some(asker) = self
            .client
            .ask
            .clone()
            .filter(|_| self.client.asks(method, params.as_ref()))
        {
            // A person answers: the reader goes on meanwhile.
            let rx = (asker.0)(ServerRequest {
                server: self.name.clone(),
                method: method.to_string(),
                params: params.unwrap_or_else(|| json!({})),
                related: self.related_call(),
                request_id: Some(id.to_value()),
            });
            let inner = self.clone();
            let method = method.to_string();
            self.open_asks.fetch_add(1, Ordering::AcqRel);
            let key = id.to_value().to_string();
            self.asking
                .lock()
                .unwrap_or_else(|p| p.into_inner())
                .insert(key.clone(), false);
            tokio::spawn(async move {
                let answered = rx.await;
                inner.open_asks.fetch_sub(1, Ordering::AcqRel);
                let given_up = inner
                    .asking
                    .lock()
                    .unwrap_or_else(|p| p.into_inner())
                    .remove(&key)
                    .unwrap_or(false);
                if given_up {
                    // The server cancelled it: no answer is sent.
                    return;
                }
                let outcome = answered.unwrap_or_else(|_| {
                    Err(RpcError::new(
                        -1,
                        format!("{method} was not answered (mcpdeck closed the request)"),
                    ))
                });
                let line = jsonrpc::response(&id, outcome);
                let _ = inner.send_line(line, meta).await;
            });
            return;
        }
        let outcome = match method {
            "ping" => Ok(json!({})),
            _ => self.client.answer(method, params.as_ref()),
        };
        self.roots_asked(method, &outcome);
        let line = jsonrpc::response(&id, outcome);
        let inner = self.clone();
        tokio::spawn(async move {
            let _ = inner.send_line(line, meta).await;
        });
    }

    pub(super) fn on_notification(&self, method: String, params: Option<Value>) {
        if method == "notifications/cancelled"
            && let Some(id) = params.as_ref().and_then(|p| p.get("requestId"))
            && let Some(given_up) = self
                .asking
                .lock()
                .unwrap_or_else(|p| p.into_inner())
                .get_mut(&id.to_string())
        {
            *given_up = true;
        }
        if method == "notifications/progress"
            && let Some(token) = params.as_ref().and_then(|p| p.get("progressToken"))
        {
            let n = token
                .as_i64()
                .or_else(|| token.as_str().and_then(|s| s.parse().ok()));
            let mut pending = self.pending.lock().unwrap_or_else(|p| p.into_inner());
            // The request that asked with this token (a retry keeps the
            // first round's token under a new id), else one with that id.
            let asked = n.and_then(|n| {
                if pending.get(&n).is_some_and(|e| e.progress_token == Some(n)) {
                    Some(n)
                } else {
                    pending
                        .iter()
                        .find(|(_, e)| e.progress_token == Some(n))
                        .map(|(id, _)| *id)
                }
            });
            let id = asked.or_else(|| n.filter(|n| pending.contains_key(n)));
            match id.and_then(|id| pending.get_mut(&id)) {
                Some(entry) if entry.progress_token.is_some() => {
                    // Progress: the request's clock starts again.
                    if let Some(d) = entry.deadline.as_mut() {
                        d.extend();
                    }
                }
                Some(entry) => {
                    let method = entry.method.clone();
                    drop(pending);
                    self.finding(Finding::new(
                        Severity::Warning,
                        format!(
                            "a progress notification names {method} (token {token}), which asked for no progress; it does not extend the timeout"
                        ),
                    ));
                }
                None => {
                    drop(pending);
                    self.finding(Finding::new(
                        Severity::Info,
                        format!(
                            "a progress notification for token {token} matches no request in flight"
                        ),
                    ));
                }
            }
        }
        self.emit(SessionEvent::Notification { method, params });
    }
}
