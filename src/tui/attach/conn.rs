//! The driver's side of an attach: two connections to serve's control
//! socket, on a task of their own (the UI never waits on the socket). One
//! asks (`status`, then each edit, answered in turn); the other watches:
//! frames go straight into the TUI's frame log, tagged `serve PID›SERVER`
//! (`serve PID›agent` for the agent's own), so the protocol log shows
//! them beside the TUI's; calls and statuses come back as messages.

use std::collections::HashMap;
use std::path::PathBuf;
use std::sync::Arc;
use std::time::Duration;

use serde_json::{Value, json};
use tokio::io::{AsyncBufReadExt, AsyncWriteExt, BufReader, Lines};
use tokio::net::UnixStream;
use tokio::net::unix::{OwnedReadHalf, OwnedWriteHalf};
use tokio::sync::mpsc;

use super::AttachMsg;
use crate::mcp::framelog::{Direction, FrameLog, FrameMeta};
use crate::mcp::jsonrpc::{Message, parse_frame};

/// How long serve has to answer a request.
const ANSWER_TIMEOUT: Duration = Duration::from_secs(10);

/// An attach in progress; dropping it ends it.
pub struct Handle {
    ops: mpsc::UnboundedSender<Value>,
    task: tokio::task::JoinHandle<()>,
}

impl Handle {
    /// Send an edit (`{"op":"deny",…}`); its answer comes as
    /// `AttachMsg::Answer`. False when the attach has ended.
    pub fn send(&self, op: Value) -> bool {
        self.ops.send(op).is_ok()
    }
}

impl Drop for Handle {
    fn drop(&mut self) {
        self.task.abort();
    }
}

/// Attach to serve `pid` at `socket`; its messages go to `out`.
pub fn start(
    pid: u32,
    socket: PathBuf,
    frames: Option<Arc<FrameLog>>,
    out: impl Fn(AttachMsg) + Send + Sync + 'static,
) -> Handle {
    let (ops, rx) = mpsc::unbounded_channel();
    let task = tokio::spawn(async move {
        let why = run(pid, &socket, frames, &out, rx).await;
        out(AttachMsg::Gone(why));
    });
    Handle { ops, task }
}

struct Conn {
    lines: Lines<BufReader<OwnedReadHalf>>,
    w: OwnedWriteHalf,
}

impl Conn {
    async fn open(socket: &std::path::Path) -> std::io::Result<Conn> {
        let (r, w) = UnixStream::connect(socket).await?.into_split();
        Ok(Conn {
            lines: BufReader::new(r).lines(),
            w,
        })
    }

    /// Send a request and read its answer.
    async fn ask(&mut self, request: &Value) -> Result<Value, String> {
        let mut line = request.to_string();
        line.push('\n');
        self.w
            .write_all(line.as_bytes())
            .await
            .map_err(|e| e.to_string())?;
        let answer = tokio::time::timeout(ANSWER_TIMEOUT, self.lines.next_line())
            .await
            .map_err(|_| format!("no answer within {} s", ANSWER_TIMEOUT.as_secs()))?
            .map_err(|e| e.to_string())?
            .ok_or("the connection closed")?;
        serde_json::from_str(&answer).map_err(|e| format!("a bad answer ({e})"))
    }
}

/// The attach, until the socket goes: why it ended.
async fn run(
    pid: u32,
    socket: &std::path::Path,
    frames: Option<Arc<FrameLog>>,
    out: &(impl Fn(AttachMsg) + Send + Sync),
    mut ops: mpsc::UnboundedReceiver<Value>,
) -> String {
    let gone = |e: &dyn std::fmt::Display| format!("serve {pid} is gone ({e})");
    let mut ctl = match Conn::open(socket).await {
        Ok(c) => c,
        Err(e) => return format!("cannot attach to serve {pid}: {e}"),
    };
    match ctl.ask(&json!({"op": "status"})).await {
        Ok(a) if a["status"].is_object() => out(AttachMsg::Status(a["status"].clone())),
        Ok(a) => return format!("serve {pid} answered: {}", a["error"]),
        Err(e) => return gone(&e),
    }
    let mut watch = match Conn::open(socket).await {
        Ok(c) => c,
        Err(e) => return gone(&e),
    };
    if let Err(e) = watch.ask(&json!({"op": "watch"})).await {
        return gone(&e);
    }
    let mut tags: HashMap<String, Arc<str>> = HashMap::new();
    loop {
        tokio::select! {
            op = ops.recv() => {
                let Some(op) = op else { return format!("detached from serve {pid}") };
                match ctl.ask(&op).await {
                    Ok(a) => out(AttachMsg::Answer(match a["error"].as_str() {
                        Some(e) => Err(e.to_string()),
                        None => Ok(a["message"].as_str().unwrap_or("done").to_string()),
                    })),
                    Err(e) => return gone(&e),
                }
            }
            line = watch.lines.next_line() => {
                let line = match line {
                    Ok(Some(l)) => l,
                    Ok(None) => return format!("serve {pid} exited: its control socket closed"),
                    Err(e) => return gone(&e),
                };
                let Ok(ev) = serde_json::from_str::<Value>(&line) else { continue };
                match ev["event"].as_str() {
                    Some("frame") => {
                        if let Some(log) = &frames {
                            record(log, &mut tags, pid, &ev);
                        }
                    }
                    Some("call") => out(AttachMsg::Call(ev["call"].clone())),
                    Some("status") => out(AttachMsg::Status(ev["status"].clone())),
                    Some("dropped") => out(AttachMsg::Dropped(ev["total"].as_u64().unwrap_or(0))),
                    _ => {}
                }
            }
        }
    }
}

/// A watched frame into the TUI's frame log.
fn record(log: &FrameLog, tags: &mut HashMap<String, Arc<str>>, pid: u32, ev: &Value) {
    let Some(text) = ev["text"].as_str() else {
        return;
    };
    let who = match ev["side"].as_str() {
        Some("agent") => "agent",
        _ => ev["server"].as_str().unwrap_or("?"),
    };
    let tag = tags
        .entry(who.to_string())
        .or_insert_with(|| Arc::from(format!("serve {pid}›{}", crate::sanitize::one_line(who))))
        .clone();
    let dir = if ev["dir"] == "C->S" {
        Direction::Out
    } else {
        Direction::In
    };
    let mut meta = FrameMeta::default();
    if let Some(m) = parse_frame(text).messages.first() {
        match m {
            Message::Request { id, method, .. } => {
                meta.method = Some(Arc::from(method.as_str()));
                meta.id = Some(id.clone());
            }
            Message::Notification { method, .. } => meta.method = Some(Arc::from(method.as_str())),
            Message::Response { id, .. } => meta.id = Some(id.clone()),
        }
    }
    log.record(&tag, dir, text, meta);
}
