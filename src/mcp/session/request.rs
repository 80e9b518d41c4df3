//! Requests: framing for the era, sending, waiting with timeouts that
//! progress restarts, cancellation, the stateless era's `input_required`
//! rounds, and tool calls.

use std::sync::Arc;
use std::sync::atomic::{AtomicI64, Ordering};
use std::time::{Duration, Instant};

use serde_json::{Map, Value, json};
use tokio::sync::oneshot;

use crate::mcp::framelog::FrameMeta;
use crate::mcp::jsonrpc::{self, Id, RpcError, codes};
use crate::mcp::types::{CallResult, Era, STATELESS_VERSION, client_info};
use crate::text::fmt_duration;

use super::handle::*;
use super::model::*;
use super::policy::*;
use super::timeout::Deadline;

impl Session {
    pub(super) fn closed_error(&self) -> RequestError {
        let closed = self
            .inner
            .closed
            .lock()
            .unwrap_or_else(|p| p.into_inner())
            .clone();
        match closed {
            Some((description, stderr_tail)) => RequestError::Closed {
                description,
                stderr_tail,
            },
            None => RequestError::Closed {
                description: "the connection closed".into(),
                stderr_tail: self.stderr_tail(20),
            },
        }
    }

    /// Send a request and wait for its answer (timeout from the settings,
    /// reset by progress notifications).
    pub async fn request(
        &self,
        method: &str,
        params: Option<Value>,
    ) -> Result<Value, RequestError> {
        self.request_tracked(method, params, &Arc::new(AtomicI64::new(-1)))
            .await
    }

    /// [`Session::request`]; `current` holds the id of the request in
    /// flight from before its line is written (retries change it), so that
    /// [`Session::cancel`] can stop it at any point.
    pub async fn request_tracked(
        &self,
        method: &str,
        params: Option<Value>,
        current: &Arc<AtomicI64>,
    ) -> Result<Value, RequestError> {
        let pending = self
            .send_request_tracked(method, params.clone(), Progress::None, Some(current))
            .await?;
        match pending.wait(self, None).await {
            Err(RequestError::Rpc { error, .. })
                if error.code == codes::UNSUPPORTED_VERSION && self.switch_version(&error) =>
            {
                let pending = self
                    .send_request_tracked(method, params, Progress::None, Some(current))
                    .await?;
                pending.wait(self, None).await
            }
            other => other,
        }
    }

    /// After -32022 in the stateless era: adopt a supported version we know.
    /// With 2026-07-28 the only stateless version, this fires only once a
    /// later revision is added to `known`; the probe handles -32022 itself.
    pub(super) fn switch_version(&self, error: &RpcError) -> bool {
        let mut wire = self.inner.wire.write().unwrap_or_else(|p| p.into_inner());
        let Some((Era::Stateless, current)) = wire.as_ref() else {
            return false;
        };
        let supported = error
            .data
            .as_ref()
            .and_then(|d| d.get("supported"))
            .and_then(Value::as_array);
        let known = [STATELESS_VERSION];
        match supported.and_then(|s| {
            s.iter()
                .filter_map(Value::as_str)
                .find(|v| known.contains(v) && v != current)
        }) {
            Some(v) => {
                *wire = Some((Era::Stateless, v.to_string()));
                true
            }
            None => false,
        }
    }

    pub(super) async fn start_request_enveloped(
        &self,
        method: &str,
        params: Option<Value>,
    ) -> Result<PendingRequest, RequestError> {
        let caps = self.inner.client.capabilities();
        self.start_request(
            method,
            Some(envelope_with(params, STATELESS_VERSION, caps)),
            false,
        )
        .await
    }

    /// Send a request without waiting. `with_progress` asks the server for
    /// progress notifications (which also reset the timeout), with the
    /// request's id as the progressToken.
    pub async fn start_request(
        &self,
        method: &str,
        params: Option<Value>,
        with_progress: bool,
    ) -> Result<PendingRequest, RequestError> {
        let progress = if with_progress {
            Progress::OwnId
        } else {
            Progress::None
        };
        self.send_request(method, params, progress).await
    }

    /// [`Session::start_request`] with the progressToken to ask with.
    pub(super) async fn send_request(
        &self,
        method: &str,
        params: Option<Value>,
        progress: Progress,
    ) -> Result<PendingRequest, RequestError> {
        self.send_request_tracked(method, params, progress, None)
            .await
    }

    /// Send a request that stays open with no deadline (a stream such as
    /// `subscriptions/listen`, or one whose caller keeps its own time).
    pub(super) async fn start_open_request(
        &self,
        method: &str,
        params: Option<Value>,
    ) -> Result<PendingRequest, RequestError> {
        self.send_request_full(method, params, Progress::None, None, None)
            .await
    }

    /// [`Session::send_request`]; `current` gets the request's id as soon
    /// as it has one, before the line is written, and follows its retries
    /// (it becomes the request's [`PendingRequest::current_id`]).
    async fn send_request_tracked(
        &self,
        method: &str,
        params: Option<Value>,
        progress: Progress,
        current: Option<&Arc<AtomicI64>>,
    ) -> Result<PendingRequest, RequestError> {
        // The handshake is timed by the connect deadline, not per request.
        let connected = self
            .inner
            .negotiated
            .read()
            .unwrap_or_else(|p| p.into_inner())
            .is_some();
        let timeout = connected.then_some(self.inner.request_timeout);
        self.send_request_full(method, params, progress, current, timeout)
            .await
    }

    /// [`Session::send_request_tracked`], with the request's timeout
    /// (none: no deadline).
    async fn send_request_full(
        &self,
        method: &str,
        params: Option<Value>,
        progress: Progress,
        current: Option<&Arc<AtomicI64>>,
        timeout: Option<Duration>,
    ) -> Result<PendingRequest, RequestError> {
        if let Some(e) = self.closed_error_if_closed() {
            return Err(e);
        }
        let (params, pass_through) = take_pass_through(params);
        let id = self.inner.next_id.fetch_add(1, Ordering::Relaxed);
        let current = match current {
            Some(current) => {
                current.store(id, Ordering::Release);
                current.clone()
            }
            None => Arc::new(AtomicI64::new(id)),
        };
        let progress_token = match progress {
            Progress::None => None,
            Progress::OwnId => Some(id),
            Progress::Token(token) => Some(token),
        };
        // Kept to send again: after a session expiry (HTTP), or with
        // inputResponses (the stateless era's input_required).
        let stateless = matches!(
            *self.inner.wire.read().unwrap_or_else(|p| p.into_inner()),
            Some((Era::Stateless, _))
        );
        let original = if self.inner.transport.http().is_some() || stateless {
            params.clone()
        } else {
            None
        };
        let mut params = params;
        if let Some(token) = progress_token {
            let p = params.get_or_insert_with(|| json!({}));
            if let Some(obj) = p.as_object_mut() {
                let meta = obj.entry("_meta").or_insert_with(|| json!({}));
                if let Some(m) = meta.as_object_mut() {
                    m.insert("progressToken".into(), json!(token));
                }
            }
        }
        let wire = self
            .inner
            .wire
            .read()
            .unwrap_or_else(|p| p.into_inner())
            .clone();
        if let Some((Era::Stateless, version)) = &wire {
            let mut p = envelope_with(params, version, self.inner.client.capabilities());
            let level = self
                .inner
                .log_level
                .read()
                .unwrap_or_else(|p| p.into_inner())
                .clone();
            if let Some(level) = level
                && let Some(meta) = p.get_mut("_meta").and_then(Value::as_object_mut)
            {
                meta.insert("io.modelcontextprotocol/logLevel".into(), json!(level));
            }
            params = Some(p);
        }
        // Telemetry: the request's span, its trace context in `_meta`
        // (only when telemetry is on: otherwise the frame is unchanged).
        let mut span = crate::telemetry::active().map(|t| {
            let version = wire.as_ref().map(|(_, v)| v.clone()).or_else(|| {
                params
                    .as_ref()
                    .and_then(|p| p.get("protocolVersion"))
                    .and_then(Value::as_str)
                    .map(str::to_string)
            });
            let span = t.start(crate::telemetry::RequestInfo {
                server: &self.inner.name,
                method,
                id,
                params: params.as_ref(),
                protocol_version: version.as_deref(),
                session_id: self.inner.transport.http().and_then(|h| h.session_id()),
                http: self.inner.transport.kind() != "stdio",
            });
            span.inject(&mut params);
            Box::new(span)
        });
        let line = jsonrpc::request(id, method, params.as_ref());
        if let Some(span) = &mut span {
            span.request_size(line.len());
        }
        let (tx, rx) = oneshot::channel();
        let write = Arc::new(std::sync::Mutex::new(Write::Queued));
        let method: Arc<str> = Arc::from(method);
        let deadline = timeout.map(Deadline::after);
        {
            let mut pending = self.inner.pending.lock().unwrap_or_else(|p| p.into_inner());
            pending.insert(
                id,
                PendingEntry {
                    tx,
                    method: method.clone(),
                    sent: Instant::now(),
                    progress_token,
                    write: write.clone(),
                    deadline,
                    span,
                },
            );
            if let Some(d) = deadline {
                self.inner.sweeper.arm(d.at);
            }
        }
        let meta = FrameMeta {
            method: Some(method.clone()),
            id: Some(Id::Num(id)),
            latency: None,
            json: true,
        };
        // Whoever waits here may give up (a cancel during a long write):
        // a write that does not finish at once goes on in a task of its
        // own, so no half line is left in the stream. Most writes finish
        // at the first poll and cost no task.
        let mut writer = Box::pin(self.clone().write_request(line, meta, write));
        let first =
            std::future::poll_fn(|cx| std::task::Poll::Ready(writer.as_mut().poll(cx))).await;
        let end = match first {
            std::task::Poll::Ready(end) => Ok(end),
            std::task::Poll::Pending => tokio::spawn(writer).await,
        };
        let failure = match end {
            Ok(WriteEnd::Written) => None,
            Ok(WriteEnd::Dropped) => Some(RequestError::Cancelled {
                method: method.to_string(),
            }),
            Ok(WriteEnd::Failed(e)) => Some(self.write_failed(e).await),
            Ok(WriteEnd::TimedOut(limit)) => Some(RequestError::Closed {
                description: format!(
                    "the server did not read its input for {} while {method} was being sent; the connection was closed",
                    fmt_duration(limit)
                ),
                stderr_tail: self.stderr_tail(20),
            }),
            Err(e) => Some(RequestError::Protocol(format!(
                "internal error while sending {method}: {e}"
            ))),
        };
        if let Some(e) = failure {
            let entry = self
                .inner
                .pending
                .lock()
                .unwrap_or_else(|p| p.into_inner())
                .remove(&id);
            if let Some(mut entry) = entry {
                entry.end_span(Err(&e));
            }
            return Err(e);
        }
        Ok(PendingRequest {
            id,
            method,
            rx,
            params: original,
            progress_token,
            retried: false,
            input_rounds: 0,
            pass_through,
            current,
        })
    }

    /// Write a request's line in its turn, unless it was cancelled before
    /// its turn came; a cancel that came during the write sends its
    /// `notifications/cancelled` right after the line. Writing is under the
    /// request's deadline too: a server that stops reading its input
    /// cannot hold a request (or the user) for ever.
    async fn write_request(
        self,
        line: String,
        meta: FrameMeta,
        write: Arc<std::sync::Mutex<Write>>,
    ) -> WriteEnd {
        let inner = &self.inner;
        let limit = inner.request_timeout;
        let work = async {
            let _turn = inner.write_turn().await;
            {
                let mut state = write.lock().unwrap_or_else(|p| p.into_inner());
                if !matches!(*state, Write::Queued) {
                    return WriteEnd::Dropped;
                }
                *state = Write::Writing;
            }
            let written = inner.write_line(line, meta).await;
            let state = std::mem::replace(
                &mut *write.lock().unwrap_or_else(|p| p.into_inner()),
                Write::Written,
            );
            if let (Ok(()), Write::CancelAfter(params)) = (&written, state) {
                let note = jsonrpc::notification("notifications/cancelled", Some(&params));
                let meta = FrameMeta {
                    method: Some(Arc::from("notifications/cancelled")),
                    json: true,
                    ..Default::default()
                };
                let _ = inner.write_line(note, meta).await;
            }
            match written {
                Ok(()) => WriteEnd::Written,
                Err(e) => WriteEnd::Failed(e),
            }
        };
        match tokio::time::timeout(limit, work).await {
            Ok(end) => end,
            Err(_) => {
                // Part of the line may be out: the stream cannot be trusted.
                let session = self.clone();
                tokio::spawn(async move { session.close().await });
                WriteEnd::TimedOut(limit)
            }
        }
    }

    pub(super) fn closed_error_if_closed(&self) -> Option<RequestError> {
        self.inner
            .closed
            .lock()
            .unwrap_or_else(|p| p.into_inner())
            .clone()
            .map(|(description, stderr_tail)| RequestError::Closed {
                description,
                stderr_tail,
            })
    }

    /// Send a notification.
    pub async fn notify(&self, method: &str, params: Option<Value>) -> Result<(), RequestError> {
        let line = jsonrpc::notification(method, params.as_ref());
        let meta = FrameMeta {
            method: Some(Arc::from(method)),
            json: true,
            ..Default::default()
        };
        match self.inner.send_line(line, meta).await {
            Ok(()) => Ok(()),
            Err(e) => Err(self.write_failed(e).await),
        }
    }

    /// A write failed: the server is most likely gone. Wait a moment for
    /// its exit report, so the error names the exit status and stderr
    /// rather than a broken pipe.
    pub(super) async fn write_failed(
        &self,
        e: crate::mcp::transport::TransportClosed,
    ) -> RequestError {
        let mut signal = self.inner.closed_signal.subscribe();
        let _ = tokio::time::timeout(Duration::from_secs(2), signal.wait_for(|c| *c)).await;
        self.closed_error_if_closed()
            .unwrap_or_else(|| RequestError::Closed {
                description: e.to_string(),
                stderr_tail: self.stderr_tail(20),
            })
    }

    /// Answer the `inputRequests` of an input_required result, as server
    /// requests are answered (the person, or the automatic policy).
    pub(super) async fn input_responses(
        &self,
        method: &str,
        v: &Value,
        related: Option<i64>,
    ) -> Result<Map<String, Value>, RequestError> {
        let mut answers = Map::new();
        let requests = v.get("inputRequests").and_then(Value::as_object);
        if requests.is_none_or(|r| r.is_empty()) && v.get("requestState").is_none() {
            return Err(RequestError::Protocol(format!(
                "{method}: the server answered input_required with neither inputRequests nor requestState"
            )));
        }
        for (key, req) in requests.into_iter().flatten() {
            let asked = req.get("method").and_then(Value::as_str).unwrap_or("");
            let params = req.get("params").cloned();
            let outcome = if let Some(asker) = self
                .inner
                .client
                .ask
                .clone()
                .filter(|_| self.inner.client.asks(asked, params.as_ref()))
            {
                let rx = (asker.0)(ServerRequest {
                    server: self.inner.name.clone(),
                    method: asked.to_string(),
                    params: params.unwrap_or_else(|| json!({})),
                    related,
                    request_id: None,
                });
                rx.await
                    .unwrap_or_else(|_| Err(RpcError::new(-1, format!("{asked} was not answered"))))
            } else if asked == "ping" {
                Ok(json!({}))
            } else {
                let outcome = self.inner.client.answer(asked, params.as_ref());
                self.inner.roots_asked(asked, &outcome);
                outcome
            };
            match outcome {
                Ok(answer) => {
                    answers.insert(key.clone(), answer);
                }
                Err(e) => {
                    return Err(RequestError::Protocol(format!(
                        "{method}: the server needs {asked} ({key}) first, and it was refused: {e}"
                    )));
                }
            }
        }
        Ok(answers)
    }

    /// Ping the server; the round trip time.
    pub async fn ping(&self) -> Result<Duration, RequestError> {
        let started = Instant::now();
        self.request(self.ping_method(), None).await?;
        Ok(started.elapsed())
    }

    /// What [`Session::ping`] sends: `ping`, or in the stateless era,
    /// which removed it, `server/discover` (the era's cheapest request,
    /// which every server answers).
    pub fn ping_method(&self) -> &'static str {
        match self.negotiated() {
            Some(n) if n.era == Era::Stateless => "server/discover",
            _ => "ping",
        }
    }

    /// Ask the server for log messages at `level` and above: `logging/setLevel`
    /// in the initialize era, the per-request `logLevel` in the stateless era
    /// (from now on, on every request).
    pub async fn set_log_level(&self, level: &str) -> Result<(), RequestError> {
        if !LOG_LEVELS.contains(&level) {
            return Err(RequestError::Protocol(format!(
                "unknown log level {level:?}; use one of {}",
                LOG_LEVELS.join(", ")
            )));
        }
        let n = self
            .negotiated()
            .ok_or_else(|| RequestError::Protocol("not connected".into()))?;
        if n.era == Era::Stateless {
            *self
                .inner
                .log_level
                .write()
                .unwrap_or_else(|p| p.into_inner()) = Some(level.to_string());
            return Ok(());
        }
        if !n.has_capability("logging") {
            return Err(RequestError::Protocol(
                "the server does not declare the logging capability, so it takes no log level"
                    .into(),
            ));
        }
        self.request("logging/setLevel", Some(json!({"level": level})))
            .await
            .map(|_| ())
    }

    /// Cancel a request: its waiter gets `Cancelled` at once, and the server
    /// is told with `notifications/cancelled`. Returns false if it was no
    /// longer pending.
    pub async fn cancel(&self, id: i64, reason: &str) -> bool {
        self.end_request(id, |entry| {
            (
                RequestError::Cancelled {
                    method: entry.method.to_string(),
                },
                reason.to_string(),
            )
        })
    }

    /// End a request in flight with the error `end` gives (and the reason
    /// the server is told): cancelled, or timed out. Returns false if it
    /// was no longer pending.
    pub(super) fn end_request(
        &self,
        id: i64,
        end: impl FnOnce(&PendingEntry) -> (RequestError, String),
    ) -> bool {
        let entry = self
            .inner
            .pending
            .lock()
            .unwrap_or_else(|p| p.into_inner())
            .remove(&id);
        let Some(entry) = entry else { return false };
        if let Some(h) = self.inner.transport.http() {
            // Dropping the POST's stream; in the stateless era this is
            // the cancellation itself.
            h.abort(id);
        }
        let (error, reason) = end(&entry);
        let mut entry = entry;
        entry.end_span(Err(&error));
        let _ = entry.tx.send(Err(error));
        let mut write = entry.write.lock().unwrap_or_else(|p| p.into_inner());
        if matches!(*write, Write::Queued) {
            // Its turn to be written has not come: it never will, and the
            // server has nothing to cancel.
            *write = Write::Dropped;
            return true;
        }
        // The spec forbids cancelling initialize. The notification is sent
        // in the background: a server that is not reading its input must
        // not hold up the one who cancels.
        // Over HTTP in the stateless era, dropping the stream (above) is
        // the cancellation; no notification is expected.
        let stateless_http = self.inner.transport.http().is_some()
            && matches!(
                *self.inner.wire.read().unwrap_or_else(|p| p.into_inner()),
                Some((Era::Stateless, _))
            );
        if &*entry.method != "initialize" && !stateless_http {
            let params = json!({"requestId": id, "reason": reason});
            if matches!(*write, Write::Writing) {
                // Being written: the notice follows the whole line.
                *write = Write::CancelAfter(params);
                return true;
            }
            drop(write);
            let session = self.clone();
            tokio::spawn(async move {
                let _ = session
                    .notify("notifications/cancelled", Some(params))
                    .await;
            });
        }
        true
    }

    /// Call a tool. Progress notifications reset the timeout.
    pub async fn call_tool(
        &self,
        name: &str,
        arguments: Value,
    ) -> Result<CallResult, RequestError> {
        let pending = self.start_call(name, arguments).await?;
        self.finish_call(pending).await
    }

    /// Start a `tools/call`; [`Session::finish_call`] waits for it.
    pub async fn start_call(
        &self,
        name: &str,
        arguments: Value,
    ) -> Result<PendingRequest, RequestError> {
        self.start_request(
            "tools/call",
            Some(json!({"name": name, "arguments": arguments})),
            true,
        )
        .await
    }

    /// [`Session::start_call`]; `id` gets the request's id before its line
    /// is written (and follows its retries), so that [`Session::cancel`]
    /// can stop it while the line is still on its way (a large argument, a
    /// server slow to read): the caller may stop waiting for this at once.
    pub async fn start_call_tracked(
        &self,
        name: &str,
        arguments: Value,
        meta: Option<Map<String, Value>>,
        id: &Arc<AtomicI64>,
    ) -> Result<PendingRequest, RequestError> {
        self.send_request_tracked(
            "tools/call",
            Some(with_meta(
                json!({"name": name, "arguments": arguments}),
                meta,
            )),
            Progress::OwnId,
            Some(id),
        )
        .await
    }

    pub async fn finish_call(&self, pending: PendingRequest) -> Result<CallResult, RequestError> {
        let v = pending.wait(self, None).await?;
        if v.get("resultType").and_then(Value::as_str) == Some("input_required") {
            // Passed through (see [`PASS_THROUGH`]): not a result yet.
            return Ok(CallResult {
                content: Vec::new(),
                is_error: false,
                raw: v,
            });
        }
        Ok(self.parse_call(v))
    }

    pub(super) fn parse_call(&self, v: Value) -> CallResult {
        let mut findings = Vec::new();
        let result = CallResult::parse(v, &mut findings);
        for f in findings {
            self.inner.finding(f);
        }
        result
    }
}

/// How a request's write ended.
enum WriteEnd {
    Written,
    /// Cancelled before its turn: not written.
    Dropped,
    Failed(crate::mcp::transport::TransportClosed),
    /// Not written within this time; the session is being closed.
    TimedOut(Duration),
}

/// The progressToken a request asks with.
pub(super) enum Progress {
    /// No progress wanted.
    None,
    /// The request's own id.
    OwnId,
    /// This token (a retry keeps the first round's).
    Token(i64),
}

impl PendingRequest {
    /// The id of the request in flight now: retries (input_required, an
    /// expired HTTP session) send it again under a new id.
    pub fn current_id(&self) -> Arc<AtomicI64> {
        self.current.clone()
    }

    /// The progressToken the request asked with: the same for every retry,
    /// so progress notifications match the call throughout.
    pub fn progress_token(&self) -> Option<i64> {
        self.progress_token
    }

    fn progress(&self) -> Progress {
        self.progress_token.map_or(Progress::None, Progress::Token)
    }

    /// Wait for the answer. The timeout (the session's unless given) starts
    /// again on each progress notification. On timeout the server is told
    /// with `notifications/cancelled`. The session's sweeper keeps the
    /// time: waiting costs no timer.
    pub async fn wait(
        mut self,
        session: &Session,
        timeout: Option<Duration>,
    ) -> Result<Value, RequestError> {
        if let Some(t) = timeout {
            session.set_timeout(self.id, t);
        }
        loop {
            let r = (&mut self.rx)
                .await
                .unwrap_or_else(|_| Err(session.closed_error()));
            if let Err(RequestError::Http(f)) = &r
                && let Some(expired) = &f.session_expired
                && !self.retried
                && &*self.method != "initialize"
            {
                // The server forgot the session: initialize again and ask
                // once more.
                let (expired, why) = (expired.clone(), f.message.clone());
                session.recover_session(&expired, &why).await?;
                let again = session
                    .send_request(&self.method, self.params.take(), self.progress())
                    .await?;
                self.id = again.id;
                self.rx = again.rx;
                self.retried = true;
                self.current.store(self.id, Ordering::Release);
                if let Some(t) = timeout {
                    session.set_timeout(self.id, t);
                }
                continue;
            }
            let v = r?;
            let input_required =
                v.get("resultType").and_then(Value::as_str) == Some("input_required");
            if input_required && self.pass_through {
                return Ok(v);
            }
            if input_required && self.input_rounds < MAX_INPUT_ROUNDS {
                // The server needs input (elicitation, sampling, roots)
                // first: answer each request, then ask again with the
                // answers and the opaque requestState.
                let mut params = self.params.clone().unwrap_or_else(|| json!({}));
                let answers = session
                    .input_responses(&self.method, &v, self.progress_token)
                    .await?;
                if answers.is_empty() {
                    // Only requestState: the server is not ready yet.
                    let wait = 50u64 << self.input_rounds.min(3);
                    tokio::time::sleep(Duration::from_millis(wait.min(250))).await;
                }
                if let Some(obj) = params.as_object_mut() {
                    if !answers.is_empty() {
                        obj.insert("inputResponses".into(), Value::Object(answers));
                    }
                    if let Some(state) = v.get("requestState") {
                        obj.insert("requestState".into(), state.clone());
                    }
                }
                let keep = self.params.take();
                // The same progressToken: whoever follows the call's
                // progress keeps seeing it.
                let again = session
                    .send_request(&self.method, Some(params), self.progress())
                    .await?;
                self.id = again.id;
                self.rx = again.rx;
                self.params = keep;
                self.input_rounds += 1;
                self.current.store(self.id, Ordering::Release);
                if let Some(t) = timeout {
                    session.set_timeout(self.id, t);
                }
                continue;
            }
            return session.inner.check_result(&self.method, v);
        }
    }
}

impl Session {
    /// Give request `id` its own timeout, from now.
    fn set_timeout(&self, id: i64, timeout: Duration) {
        let mut pending = self.inner.pending.lock().unwrap_or_else(|p| p.into_inner());
        if let Some(entry) = pending.get_mut(&id) {
            let deadline = Deadline::after(timeout);
            entry.deadline = Some(deadline);
            self.inner.sweeper.arm(deadline.at);
        }
    }
}

/// The syslog levels MCP uses, least severe first.
pub const LOG_LEVELS: [&str; 8] = [
    "debug",
    "info",
    "notice",
    "warning",
    "error",
    "critical",
    "alert",
    "emergency",
];

/// Add the 2026-07-28 `_meta` envelope to request params.
pub fn envelope(params: Option<Value>, version: &str) -> Value {
    envelope_with(params, version, json!({}))
}

/// `params` with `meta` as its `_meta` (nothing when `meta` is `None` or
/// empty).
pub(super) fn with_meta(mut params: Value, meta: Option<Map<String, Value>>) -> Value {
    if let (Some(meta), Some(obj)) = (meta.filter(|m| !m.is_empty()), params.as_object_mut()) {
        obj.insert("_meta".into(), Value::Object(meta));
    }
    params
}

/// [`envelope`] with the client capabilities to declare.
/// The `params._meta` key by which a caller passes a request on for
/// another client (serve, for its agent): its value is an object of
/// top-level params to add (`inputResponses`, `requestState`), and an
/// `input_required` result comes back as the answer instead of being
/// answered by this session. The key itself never goes on the wire.
pub const PASS_THROUGH: &str = "mcpdeck/passThrough";

/// `params` without the [`PASS_THROUGH`] key (its params merged in), and
/// whether it was there.
fn take_pass_through(params: Option<Value>) -> (Option<Value>, bool) {
    let Some(Value::Object(mut p)) = params else {
        return (params, false);
    };
    let Some(Value::Object(meta)) = p.get_mut("_meta") else {
        return (Some(Value::Object(p)), false);
    };
    let Some(extra) = meta.remove(PASS_THROUGH) else {
        return (Some(Value::Object(p)), false);
    };
    if meta.is_empty() {
        p.remove("_meta");
    }
    // Only the answers to an input_required round: nothing the caller
    // checked (a tool's name, a URI) can be changed this way.
    if let Value::Object(extra) = extra {
        for (k, v) in extra {
            if k == "inputResponses" || k == "requestState" {
                p.insert(k, v);
            }
        }
    }
    (Some(Value::Object(p)), true)
}

pub fn envelope_with(params: Option<Value>, version: &str, capabilities: Value) -> Value {
    let mut params = match params {
        Some(Value::Object(m)) => m,
        _ => Map::new(),
    };
    let meta = params.entry("_meta").or_insert_with(|| json!({}));
    if let Some(m) = meta.as_object_mut() {
        m.insert(
            "io.modelcontextprotocol/protocolVersion".into(),
            json!(version),
        );
        // A caller that passes another client's request on (serve) may
        // declare that client's capabilities instead of mcpdeck's.
        m.entry("io.modelcontextprotocol/clientCapabilities")
            .or_insert(capabilities);
        m.insert("io.modelcontextprotocol/clientInfo".into(), client_info());
    }
    Value::Object(params)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn envelope_keeps_other_meta() {
        let p = envelope(
            Some(json!({"name":"x","_meta":{"progressToken":3}})),
            STATELESS_VERSION,
        );
        assert_eq!(p["name"], "x");
        assert_eq!(p["_meta"]["progressToken"], 3);
        assert_eq!(
            p["_meta"]["io.modelcontextprotocol/protocolVersion"],
            STATELESS_VERSION
        );
        assert!(p["_meta"]["io.modelcontextprotocol/clientCapabilities"].is_object());
        assert_eq!(
            p["_meta"]["io.modelcontextprotocol/clientInfo"]["name"],
            "mcpdeck"
        );
    }
}
