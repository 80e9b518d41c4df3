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
use super::model::*;
use super::policy::*;

impl Inner {
    pub(super) async fn handle_inbound(self: &Arc<Self>, item: Inbound) {
        match item {
            Inbound::Line(line) => self.handle_line(&line).await,
            Inbound::LineWithFinding(line, f) => {
                self.finding(f);
                self.handle_line(&line).await;
            }
            Inbound::Finding(f) => self.finding(f),
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
                        },
                    );
                }
                if let Some(e) = entry {
                    let _ = e.tx.send(Err(RequestError::Http(Box::new(failure))));
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
            let _ = e.tx.send(Err(RequestError::Closed {
                description: format!("{} while waiting for {}", description, e.method),
                stderr_tail: tail.clone(),
            }));
        }
    }

    /// Find the pending request a response id points at. A numeric id that
    /// came back as a string is matched, with a finding.
    pub(super) fn take_pending(&self, id: &Id, raw: &str) -> Option<(i64, PendingEntry)> {
        let mut pending = self.pending.lock().unwrap_or_else(|p| p.into_inner());
        match id {
            Id::Num(n) => pending.remove(n).map(|e| (*n, e)),
            Id::Str(s) => {
                let n: i64 = s.parse().ok()?;
                let e = pending.remove(&n)?;
                drop(pending);
                self.finding(Finding::frame(
                    Severity::Warning,
                    format!("the response to request {n} came back with the id as a string ({s:?}); matched anyway"),
                    raw,
                ));
                Some((n, e))
            }
            Id::Other(num) => {
                // 3.0 for 3: matched, with a finding.
                let f = num
                    .as_f64()
                    .filter(|f| f.fract() == 0.0 && f.abs() < 9.0e15)?;
                let n = f as i64;
                let e = pending.remove(&n)?;
                drop(pending);
                self.finding(Finding::frame(
                    Severity::Warning,
                    format!(
                        "the response to request {n} came back with the id {num}; matched anyway"
                    ),
                    raw,
                ));
                Some((n, e))
            }
            Id::Null => None,
        }
    }

    pub(super) async fn handle_line(self: &Arc<Self>, line: &str) {
        let parsed = jsonrpc::parse_frame(line);
        // Match responses first so the frame record carries method and latency.
        let mut meta = FrameMeta::default();
        let mut deliveries = Vec::new();
        let mut others = Vec::new();
        for m in parsed.messages {
            match m {
                Message::Response { id, outcome } => match self.take_pending(&id, line) {
                    Some((n, entry)) => {
                        if meta.method.is_none() {
                            meta = FrameMeta {
                                method: Some(entry.method.clone()),
                                id: Some(Id::Num(n)),
                                latency: Some(entry.sent.elapsed()),
                            };
                        }
                        deliveries.push((entry, outcome));
                    }
                    None => {
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
                        meta.method = other.method().map(str::to_string);
                        if let Message::Request { id, .. } = &other {
                            meta.id = Some(id.clone());
                        }
                    }
                    others.push(other);
                }
            }
        }
        self.frames.record(&self.name, Direction::In, line, meta);
        for f in parsed.findings {
            self.finding(f);
        }
        for (entry, outcome) in deliveries {
            let method = entry.method.clone();
            let _ = entry.tx.send(outcome.map_err(|error| RequestError::Rpc {
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
            method: Some(method.to_string()),
            id: Some(id.clone()),
            latency: None,
        };
        if let Some(asker) = self.client.ask.clone().filter(|_| self.client.asks(method)) {
            // A person answers: the reader goes on meanwhile.
            let rx = (asker.0)(ServerRequest {
                server: self.name.clone(),
                method: method.to_string(),
                params: params.unwrap_or_else(|| json!({})),
            });
            let inner = self.clone();
            let method = method.to_string();
            self.open_asks.fetch_add(1, Ordering::AcqRel);
            tokio::spawn(async move {
                let answered = rx.await;
                inner.open_asks.fetch_sub(1, Ordering::AcqRel);
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
        let line = jsonrpc::response(&id, outcome);
        let inner = self.clone();
        tokio::spawn(async move {
            let _ = inner.send_line(line, meta).await;
        });
    }

    pub(super) fn on_notification(&self, method: String, params: Option<Value>) {
        if method == "notifications/progress"
            && let Some(token) = params.as_ref().and_then(|p| p.get("progressToken"))
        {
            let n = token
                .as_i64()
                .or_else(|| token.as_str().and_then(|s| s.parse().ok()));
            let pending = self.pending.lock().unwrap_or_else(|p| p.into_inner());
            // The request that asked with this token (a retry keeps the
            // first round's token under a new id), else one with that id.
            let asked = n.and_then(|n| {
                pending
                    .get(&n)
                    .filter(|e| e.progress_token == Some(n))
                    .or_else(|| pending.values().find(|e| e.progress_token == Some(n)))
            });
            match asked.or_else(|| n.and_then(|n| pending.get(&n))) {
                Some(entry) if entry.progress_token.is_some() => entry.progress.notify_one(),
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
