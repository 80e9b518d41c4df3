//! Tool calls: denied tools refused, tasks run, cancellation, and the result
//! sent in the same ordered stream as the call's findings; other requests
//! (`resources/read`, `prompts/get`, …), cancellable the same way.

use std::time::{Duration, Instant};

use serde_json::Value;
use tokio::sync::oneshot;

use crate::mcp::session::RequestError;

use super::model::*;
use super::task::*;

impl Task {
    pub(super) fn call(
        &mut self,
        tag: u64,
        server: String,
        tool: String,
        arguments: Value,
        meta: Option<serde_json::Map<String, Value>>,
    ) {
        let refuse = |this: &Self, server: String, tool: String, e: CallError| {
            this.emit(Event::CallFinished {
                tag,
                server,
                tool,
                result: Err(e),
                elapsed: Duration::ZERO,
            });
        };
        let Some(slot) = self.slots.iter().find(|s| s.config.name == server) else {
            return refuse(self, server.clone(), tool, CallError::UnknownServer(server));
        };
        if let Some(rule) = slot.config.tool_refusal(&tool) {
            return refuse(
                self,
                server.clone(),
                tool.clone(),
                CallError::Denied { server, tool, rule },
            );
        }
        let Some(session) = slot
            .session
            .clone()
            .filter(|_| slot.status == ServerStatus::Connected)
        else {
            let status = slot.status.label().to_string();
            return refuse(
                self,
                server.clone(),
                tool,
                CallError::NotConnected { server, status },
            );
        };
        // A tool that must run as a task (2025-11-25 tasks).
        let as_task = slot
            .lists
            .tools
            .iter()
            .find(|t| t.name == tool)
            .and_then(|t| t.raw.get("execution"))
            .and_then(|e| e.get("taskSupport"))
            .and_then(Value::as_str)
            == Some("required");
        let (cancel_tx, mut cancel_rx) = oneshot::channel();
        self.next_call += 1;
        let call = self.next_call;
        self.calls.insert(tag, (call, cancel_tx));
        let events = self.events.clone();
        let msgs = self.msgs.clone();
        self.tasks.spawn(async move {
            let started = Instant::now();
            let (s, t) = (server.clone(), tool.clone());
            let work = async move {
                if as_task {
                    let _ = events.send(Event::CallStarted {
                        tag,
                        server: server.clone(),
                        tool: tool.clone(),
                        request_id: -1,
                    });
                    let ev = events.clone();
                    // Boxed, here and below: the call's future stays small,
                    // so spawning it copies little (the session's futures
                    // inlined made it tens of KB, copied on every call).
                    return Box::pin(session.call_task(
                        &tool,
                        arguments,
                        meta,
                        cancel_rx,
                        move |status| {
                            let _ = ev.send(Event::TaskStatus {
                                tag,
                                server: server.clone(),
                                status,
                            });
                        },
                    ))
                    .await;
                }
                // The request can be cancelled while it is still being
                // written (a large argument, a server slow to read): the
                // call ends at once; the session leaves the line out if
                // its turn had not come, or tells the server once it is
                // all out.
                let asked = std::sync::Arc::new(std::sync::atomic::AtomicI64::new(-1));
                let mut start =
                    Box::pin(session.start_call_tracked(&tool, arguments, meta, &asked));
                let pending = tokio::select! {
                    biased;
                    r = &mut start => r?,
                    Ok(()) = &mut cancel_rx => {
                        let id = asked.load(std::sync::atomic::Ordering::Acquire);
                        if id >= 0 {
                            session.cancel(id, "cancelled by the user").await;
                        }
                        return Err(RequestError::Cancelled {
                            method: format!("tools/call {tool}"),
                        });
                    }
                };
                let id = pending.id;
                // Retries (input_required rounds) change the id in flight.
                let current = pending.current_id();
                let _ = events.send(Event::CallStarted {
                    tag,
                    server,
                    tool: tool.clone(),
                    request_id: id,
                });
                let mut fut = Box::pin(session.finish_call(pending));
                tokio::select! {
                    biased;
                    r = &mut fut => r,
                    Ok(()) = &mut cancel_rx => {
                        let now = current.load(std::sync::atomic::Ordering::Acquire);
                        if session.cancel(now, "cancelled by the user").await {
                            // If the answer was already in, it is kept.
                            fut.await
                        } else {
                            // Between rounds (a person answering the
                            // server's input request): stop here, unless
                            // the answer is just arriving.
                            match tokio::time::timeout(Duration::from_millis(50), &mut fut).await {
                                Ok(r) => r,
                                Err(_) => Err(RequestError::Cancelled {
                                    method: format!("tools/call {tool}"),
                                }),
                            }
                        }
                    }
                }
            };
            let result = match CatchUnwind(Box::pin(work)).await {
                Ok(r) => r.map_err(CallError::Request),
                Err(panic) => Err(CallError::Request(RequestError::Protocol(format!(
                    "internal error during the call: {panic}"
                )))),
            };
            let event = Event::CallFinished {
                tag,
                server: s,
                tool: t,
                result,
                elapsed: started.elapsed(),
            };
            let _ = msgs.send(Msg::CallDone { call, event });
        });
    }
}

impl Task {
    /// Any request to a connected server, answered with
    /// [`Event::Response`]; [`Command::Cancel`] with its tag cancels it
    /// (the server is told), at any point, its write included.
    pub(super) fn request(&mut self, tag: u64, server: String, method: String, params: Value) {
        let session = match self.live_session(&server) {
            Ok(s) => s,
            Err(e) => {
                return self.emit(Event::Response {
                    tag,
                    server,
                    method,
                    result: Err(e),
                });
            }
        };
        let (cancel_tx, mut cancel_rx) = oneshot::channel();
        self.next_call += 1;
        let call = self.next_call;
        self.calls.insert(tag, (call, cancel_tx));
        let msgs = self.msgs.clone();
        self.tasks.spawn(async move {
            let current = std::sync::Arc::new(std::sync::atomic::AtomicI64::new(-1));
            let mut work = Box::pin(session.request_tracked(&method, Some(params), &current));
            let cancelled = || RequestError::Cancelled {
                method: method.clone(),
            };
            let result = tokio::select! {
                biased;
                r = &mut work => r,
                Ok(()) = &mut cancel_rx => {
                    let id = current.load(std::sync::atomic::Ordering::Acquire);
                    if id >= 0 && !session.cancel(id, "cancelled by the user").await {
                        // Not pending: the answer is just arriving, or a
                        // person is answering the server's input request.
                        match tokio::time::timeout(Duration::from_millis(50), &mut work).await {
                            Ok(r) => r,
                            Err(_) => Err(cancelled()),
                        }
                    } else {
                        Err(cancelled())
                    }
                }
            };
            let event = Event::Response {
                tag,
                server,
                method: method.clone(),
                result: result.map_err(CallError::Request),
            };
            let _ = msgs.send(Msg::CallDone { call, event });
        });
    }
}
