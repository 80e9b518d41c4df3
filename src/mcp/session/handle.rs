//! The session handle: its shared state ([`Inner`]), accessors, and close.

use std::collections::HashMap;
use std::sync::atomic::AtomicI64;
use std::sync::{Arc, Mutex, RwLock};
use std::time::{Duration, Instant};

use serde_json::Value;
use tokio::sync::{Notify, oneshot};

use crate::mcp::finding::{Finding, Severity};
use crate::mcp::framelog::{Direction, FrameLog, FrameMeta};
use crate::mcp::jsonrpc::RpcError;
use crate::mcp::transport::http::HttpTransport;
use crate::mcp::transport::{StderrBuffer, Transport};
use crate::mcp::types::Era;

use super::model::*;
use super::policy::*;
use super::timeout::Deadline;

pub(super) struct PendingEntry {
    pub(super) tx: oneshot::Sender<Result<Value, RequestError>>,
    pub(super) method: Arc<str>,
    pub(super) sent: Instant,
    /// The progressToken the request carried, if any: its own id, or the
    /// first round's id on an input_required retry (one token a call).
    pub(super) progress_token: Option<i64>,
    /// How far its line has got (cancellation depends on it).
    pub(super) write: Arc<Mutex<Write>>,
    /// When it times out (none: a stream that stays open, such as
    /// `subscriptions/listen`, or a caller that keeps its own time).
    pub(super) deadline: Option<Deadline>,
    /// Its telemetry span, when telemetry is on (ends with the request).
    pub(super) span: Option<Box<crate::telemetry::RequestSpan>>,
}

impl PendingEntry {
    /// End the request's span (if any) with how the request ended.
    pub(super) fn end_span(&mut self, outcome: Result<&Value, &RequestError>) {
        let Some(span) = self.span.take() else { return };
        use crate::telemetry::Outcome;
        span.end(match outcome {
            Ok(v) => Outcome::Result(v),
            Err(RequestError::Rpc { error, .. }) => Outcome::RpcError(error.code, &error.message),
            Err(RequestError::Timeout { .. }) => Outcome::Timeout,
            Err(RequestError::Cancelled { .. }) => Outcome::Cancelled,
            Err(RequestError::Closed { description, .. }) => Outcome::Transport(description),
            Err(RequestError::Http(f)) => Outcome::Transport(&f.message),
            Err(RequestError::Protocol(why)) => Outcome::Protocol(why),
        });
    }

    /// Settle the request: end its span, hand the outcome to its waiter.
    pub(super) fn settle(mut self, outcome: Result<Value, RequestError>) {
        self.end_span(outcome.as_ref());
        let _ = self.tx.send(outcome);
    }
}

/// The one timer of a session: it sleeps until the earliest deadline of
/// the requests in flight and times out those that passed it. A request
/// costs no timer of its own (a timer registration a call was a good part
/// of the per-call cost): requests are sent with later and later
/// deadlines, so the armed time rarely moves.
#[derive(Debug, Default)]
pub(super) struct Sweeper {
    /// The time the sweeper sleeps until; `None` while nothing is in flight.
    /// Taken only with the `pending` lock held (lock order: pending, armed).
    pub(super) armed: Mutex<Option<tokio::time::Instant>>,
    pub(super) wake: Notify,
    pub(super) stopped: std::sync::atomic::AtomicBool,
}

impl Sweeper {
    /// A request with this deadline is in flight: wake the sweeper if it
    /// must look earlier than it would. Call with the `pending` lock held.
    pub(super) fn arm(&self, at: tokio::time::Instant) {
        let mut armed = self.armed.lock().unwrap_or_else(|p| p.into_inner());
        if armed.is_none_or(|a| at < a) {
            *armed = Some(at);
            drop(armed);
            self.wake.notify_one();
        }
    }

    pub(super) fn stop(&self) {
        self.stopped
            .store(true, std::sync::atomic::Ordering::Release);
        self.wake.notify_one();
    }
}

/// How far a request's line has got on its way to the server. It is
/// written by a task of its own, so a caller that gives up (a cancel
/// during a long write) never leaves half a line in the stream.
#[derive(Debug)]
pub(super) enum Write {
    /// Waiting for its turn.
    Queued,
    /// Being written.
    Writing,
    /// Fully written.
    Written,
    /// Cancelled before its turn: it is never written.
    Dropped,
    /// Cancelled while being written: this `notifications/cancelled`
    /// (its params) follows the line, in the same turn.
    CancelAfter(Value),
}

/// The most findings a session keeps.
pub(super) const MAX_FINDINGS: usize = 1000;

/// The most pages a list may have before we stop following cursors.
pub(super) const MAX_PAGES: usize = 10_000;

pub(super) struct Inner {
    pub(super) id: u64,
    pub(super) name: Arc<str>,
    pub(super) transport: Transport,
    pub(super) pending: Mutex<HashMap<i64, PendingEntry>>,
    pub(super) next_id: AtomicI64,
    pub(super) negotiated: RwLock<Option<Negotiated>>,
    /// The era requests are framed for (`_meta` envelope or not).
    pub(super) wire: RwLock<Option<(Era, String)>>,
    pub(super) frames: Arc<FrameLog>,
    pub(super) findings: Mutex<Vec<Finding>>,
    pub(super) events: EventSink,
    pub(super) closed: Mutex<Option<(String, Vec<String>)>>,
    /// Flips to true once `closed` is set.
    pub(super) closed_signal: tokio::sync::watch::Sender<bool>,
    /// mcpdeck is closing the session: what fails from now on (an open
    /// listen stream) is its doing, not a finding about the server.
    pub(super) closing: std::sync::atomic::AtomicBool,
    pub(super) request_timeout: Duration,
    /// How server requests are answered.
    pub(super) client: ClientPolicy,
    /// Streamable HTTP with the transport not forced: an endpoint that
    /// refuses initialize may be legacy HTTP+SSE.
    pub(super) legacy_fallback: bool,
    /// One re-initialization at a time (after the server expired the session).
    pub(super) reinit: tokio::sync::Mutex<()>,
    /// The stateless era's per-request log level (`_meta`), once set.
    pub(super) log_level: RwLock<Option<String>>,
    /// Server requests a person is answering now: while any is open, the
    /// session's request deadlines wait.
    pub(super) open_asks: std::sync::atomic::AtomicUsize,
    /// Those server requests by the server's id (as JSON text), each with
    /// whether the server gave it up (`notifications/cancelled`): then its
    /// answer is not sent.
    pub(super) asking: std::sync::Mutex<std::collections::HashMap<String, bool>>,
    /// While the reader hands up a message that came on the HTTP stream of
    /// a request (`Inbound::Related`): that request's id (the call a
    /// server request belongs to); -1 otherwise.
    pub(super) related: std::sync::atomic::AtomicI64,
    /// Times out the requests in flight (see [`Sweeper`]).
    pub(super) sweeper: Arc<Sweeper>,
    /// One `subscriptions/listen` change at a time.
    pub(super) listen_lock: tokio::sync::Mutex<()>,
    /// SEP-2549: the caching hints of `server/discover`'s result.
    pub(super) discover_hint: std::sync::Mutex<Option<CacheHint>>,
    /// One writer at a time on a stdio pipe, so a request cancelled while
    /// it waits for its turn can be left out whole (see [`Write`]).
    pub(super) write_lock: tokio::sync::Mutex<()>,
    /// Resource subscriptions, and the stateless era's open
    /// `subscriptions/listen` request (its id).
    pub(super) subscriptions: Mutex<(std::collections::BTreeSet<String>, Option<i64>)>,
}

impl Drop for Inner {
    fn drop(&mut self) {
        self.sweeper.stop();
    }
}

/// A live session. Cheap to clone. Call [`Session::close`] when done; if
/// every handle is dropped, the server is shut down too.
#[derive(Clone)]
pub struct Session {
    pub(super) inner: Arc<Inner>,
}

impl std::fmt::Debug for Session {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Session")
            .field("name", &self.inner.name)
            .field("id", &self.inner.id)
            .finish()
    }
}

/// A request on its way: its id (for cancellation) and its answer.
pub struct PendingRequest {
    pub id: i64,
    pub(super) method: Arc<str>,
    pub(super) rx: oneshot::Receiver<Result<Value, RequestError>>,
    /// What was asked, kept to ask again once after the server expired
    /// the HTTP session.
    pub(super) params: Option<Value>,
    /// The progressToken, kept for every retry of the request.
    pub(super) progress_token: Option<i64>,
    pub(super) retried: bool,
    /// input_required rounds so far (stateless era).
    pub(super) input_rounds: u32,
    /// Asked with [`PASS_THROUGH`](super::request::PASS_THROUGH): an
    /// `input_required` result is the answer, as the server sent it (the
    /// caller's own caller answers it and asks again).
    pub(super) pass_through: bool,
    /// The id of the request in flight now (it changes with each retry),
    /// for whoever cancels it.
    pub(super) current: Arc<AtomicI64>,
}

impl Session {
    /// The transport in use: `stdio`, `http` or `sse`.
    pub fn transport_kind(&self) -> &'static str {
        self.inner.transport.kind()
    }

    /// The HTTP session id (initialize era over streamable HTTP).
    pub fn http_session_id(&self) -> Option<String> {
        self.inner
            .transport
            .http()
            .and_then(HttpTransport::session_id)
    }

    pub fn id(&self) -> u64 {
        self.inner.id
    }

    pub fn name(&self) -> &Arc<str> {
        &self.inner.name
    }

    /// What was negotiated (set once connected).
    pub fn negotiated(&self) -> Option<Negotiated> {
        self.inner
            .negotiated
            .read()
            .unwrap_or_else(|p| p.into_inner())
            .clone()
    }

    pub fn stderr(&self) -> Option<&Arc<StderrBuffer>> {
        self.inner.transport.stderr()
    }

    /// The server's process id, for a stdio server.
    pub fn pid(&self) -> Option<u32> {
        self.inner.transport.pid()
    }

    pub fn stderr_tail(&self, n: usize) -> Vec<String> {
        self.stderr().map(|b| b.tail(n)).unwrap_or_default()
    }

    pub fn findings(&self) -> Vec<Finding> {
        self.inner
            .findings
            .lock()
            .unwrap_or_else(|p| p.into_inner())
            .clone()
    }

    pub fn frames(&self) -> &Arc<FrameLog> {
        &self.inner.frames
    }

    /// Whether the connection is gone, and why.
    pub fn closed(&self) -> Option<String> {
        self.inner
            .closed
            .lock()
            .unwrap_or_else(|p| p.into_inner())
            .as_ref()
            .map(|c| c.0.clone())
    }

    /// Close stdin, then signals; returns when the server is reaped.
    pub async fn close(&self) {
        self.inner
            .closing
            .store(true, std::sync::atomic::Ordering::Release);
        self.inner.transport.close().await;
        self.inner
            .fail_all("the session was closed by mcpdeck", false);
    }
}

impl Inner {
    pub(super) fn emit(&self, event: SessionEvent) {
        (self.events)(Tagged {
            session: self.id,
            server: self.name.clone(),
            event,
        });
    }

    /// Tell the manager the server was given its roots (the detail shows
    /// when it last asked).
    pub(super) fn roots_asked(&self, method: &str, outcome: &Result<Value, RpcError>) {
        if method != "roots/list" {
            return;
        }
        if let Ok(answer) = outcome {
            let offered = answer
                .get("roots")
                .and_then(Value::as_array)
                .map_or(0, Vec::len);
            self.emit(SessionEvent::RootsAsked { offered });
        }
    }

    pub(super) fn finding(&self, f: Finding) {
        {
            let mut all = self.findings.lock().unwrap_or_else(|p| p.into_inner());
            if all.len() >= MAX_FINDINGS {
                all.remove(0);
            }
            all.push(f.clone());
        }
        self.emit(SessionEvent::Finding(f));
    }

    /// Record a frame and send it (the newline is added here), in its
    /// turn.
    pub(super) async fn send_line(
        &self,
        line: String,
        meta: FrameMeta,
    ) -> Result<(), crate::mcp::transport::TransportClosed> {
        let _turn = self.write_turn().await;
        self.write_line(line, meta).await
    }

    /// The turn to write: on a stdio pipe writers take turns here (HTTP
    /// sends do not wait for each other).
    pub(super) async fn write_turn(&self) -> Option<tokio::sync::MutexGuard<'_, ()>> {
        match &self.transport {
            Transport::Stdio(_) => Some(self.write_lock.lock().await),
            _ => None,
        }
    }

    /// Record a frame and send it, the turn already taken. The log keeps
    /// the line itself (no copy) and the transport sends it from there.
    pub(super) async fn write_line(
        &self,
        line: String,
        meta: FrameMeta,
    ) -> Result<(), crate::mcp::transport::TransportClosed> {
        if line.len() > self.frames.per_frame() {
            // The log keeps a cut copy of a large frame: send the original.
            self.frames.record(&self.name, Direction::Out, &line, meta);
            return self.transport.send(&line).await;
        }
        let frame = self
            .frames
            .record_owned(&self.name, Direction::Out, line, meta);
        self.transport.send(&frame.text).await
    }

    /// Result-level checks shared by every request.
    pub(super) fn check_result(&self, method: &str, v: Value) -> Result<Value, RequestError> {
        match v.get("resultType").and_then(Value::as_str) {
            None | Some("complete") => {}
            Some("input_required") => {
                return Err(RequestError::Protocol(format!(
                    "the server still needs input to complete {method} after {MAX_INPUT_ROUNDS} rounds of input_required; gave up"
                )));
            }
            Some(other) => self.finding(Finding::frame(
                Severity::Warning,
                format!("{method}: unknown resultType {other:?}; treated as complete"),
                &v.to_string(),
            )),
        }
        if !v.is_object() {
            self.finding(Finding::frame(
                Severity::Warning,
                format!("the result of {method} is not an object"),
                &v.to_string(),
            ));
        }
        Ok(v)
    }
}
