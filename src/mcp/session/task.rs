//! Task-augmented tool calls: `tools/call` with `task`, `tasks/get` at the
//! server's poll interval, `tasks/result`, and `tasks/cancel`.

use std::time::Duration;

use serde_json::{Value, json};
use tokio::sync::oneshot;

use crate::mcp::jsonrpc::{self};
use crate::mcp::types::CallResult;

use super::handle::*;
use super::model::*;

impl Session {
    /// Call a tool as a task (2025-11-25 tasks): `tools/call` with `task`,
    /// then `tasks/get` every `pollInterval` until the task ends or needs
    /// input, then `tasks/result` (which also carries the server's queued
    /// requests, such as elicitation). Each status goes to `status`. When
    /// `cancel` fires, the task is cancelled with `tasks/cancel`.
    pub async fn call_task(
        &self,
        name: &str,
        arguments: Value,
        meta: Option<serde_json::Map<String, Value>>,
        mut cancel: oneshot::Receiver<()>,
        status: impl Fn(TaskStatus),
    ) -> Result<CallResult, RequestError> {
        let cancelled = || RequestError::Cancelled {
            method: format!("tools/call {name} (task)"),
        };
        // Each step races the cancel: the first request is cancelled like
        // any request, the later ones end the task with tasks/cancel.
        let created = {
            let pending = self
                .start_request(
                    "tools/call",
                    Some(super::request::with_meta(
                        json!({"name": name, "arguments": arguments, "task": {"ttl": TASK_TTL_MS}}),
                        meta,
                    )),
                    true,
                )
                .await?;
            let id = pending.id;
            let wait = pending.wait(self, None);
            tokio::pin!(wait);
            tokio::select! {
                biased;
                r = &mut wait => r?,
                _ = &mut cancel => {
                    if self.cancel(id, "cancelled by the user").await {
                        return Err(cancelled());
                    }
                    wait.await?
                }
            }
        };
        let Some(task) = created.get("task").filter(|t| t.is_object()) else {
            // The server ran it at once: a plain result.
            return Ok(self.parse_call(created));
        };
        let Some(id) = task
            .get("taskId")
            .and_then(Value::as_str)
            .map(str::to_string)
        else {
            return Err(RequestError::Protocol(format!(
                "tools/call {name} created a task without a taskId: {}",
                jsonrpc::short(&created)
            )));
        };
        let end_task = async |this: &Session| {
            let _ = this
                .request("tasks/cancel", Some(json!({"taskId": id})))
                .await;
        };
        let mut current = TaskStatus::read(&id, task);
        status(current.clone());
        let mut polls = 0u32;
        while !current.done() && current.status != "input_required" {
            let wait = current.poll_interval;
            let step = async {
                tokio::time::sleep(wait).await;
                self.request("tasks/get", Some(json!({"taskId": id}))).await
            };
            let v = tokio::select! {
                biased;
                _ = &mut cancel => {
                    end_task(self).await;
                    return Err(cancelled());
                }
                r = step => match r {
                    Ok(v) => v,
                    Err(e) => {
                        end_task(self).await;
                        return Err(e);
                    }
                },
            };
            let next = TaskStatus::read(&id, &v);
            if next != current {
                status(next.clone());
            }
            current = next;
            polls += 1;
            if polls > MAX_TASK_POLLS {
                end_task(self).await;
                return Err(RequestError::Protocol(format!(
                    "task {id} of {name} was still {} after {MAX_TASK_POLLS} polls; cancelled",
                    current.status
                )));
            }
        }
        if current.status == "cancelled" {
            return Err(cancelled());
        }
        // tasks/result waits for the end (and delivers queued requests): it
        // may take as long as the task may live.
        let fetch = async {
            let pending = self
                .start_request("tasks/result", Some(json!({"taskId": id})), false)
                .await?;
            pending
                .wait(self, Some(Duration::from_millis(TASK_TTL_MS)))
                .await
        };
        let v = tokio::select! {
            biased;
            r = fetch => match r {
                Ok(v) => v,
                Err(e) => {
                    end_task(self).await;
                    return Err(e);
                }
            },
            _ = &mut cancel => {
                end_task(self).await;
                return Err(cancelled());
            }
        };
        if current.status == "input_required" {
            let mut done = current;
            done.status = "completed".into();
            done.message = None;
            status(done);
        }
        Ok(self.parse_call(v))
    }
}

/// How long a task may live on the server (tools/call `task.ttl`).
pub const TASK_TTL_MS: u64 = 5 * 60 * 1000;

/// The most `tasks/get` polls for one task.
pub const MAX_TASK_POLLS: u32 = 10_000;

/// A task's state, as `tasks/get` reports it.
#[derive(Debug, Clone, PartialEq)]
pub struct TaskStatus {
    pub task_id: String,
    /// `working`, `input_required`, `completed`, `failed`, `cancelled`.
    pub status: String,
    pub message: Option<String>,
    /// How long to wait between polls (the server's `pollInterval`,
    /// between 100 ms and 5 s).
    pub poll_interval: Duration,
}

impl TaskStatus {
    pub(super) fn read(id: &str, v: &Value) -> TaskStatus {
        TaskStatus {
            task_id: id.to_string(),
            status: v
                .get("status")
                .and_then(Value::as_str)
                .unwrap_or("working")
                .to_string(),
            message: v
                .get("statusMessage")
                .and_then(Value::as_str)
                .map(str::to_string),
            poll_interval: Duration::from_millis(
                v.get("pollInterval")
                    .and_then(Value::as_u64)
                    .unwrap_or(1000)
                    .clamp(100, 5000),
            ),
        }
    }

    /// A terminal status.
    pub fn done(&self) -> bool {
        matches!(self.status.as_str(), "completed" | "failed" | "cancelled")
    }
}
