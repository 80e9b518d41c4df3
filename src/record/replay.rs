//! `mcpdeck replay FILE`: an MCP server on stdio that answers from a
//! recording.
//!
//! Matching: a request is matched by its method and its `params` with the
//! top-level `params._meta` removed (progress tokens, trace context, the
//! stateless era's per-request protocol fields); missing params, `null`
//! and `{}` are the same. The handshake (`initialize`, `server/discover`)
//! and `ping` are matched by method alone, so any client can connect.
//! When the same request was recorded several times, the answers are
//! given in recorded order, then the last one again.
//!
//! Each answer carries the caller's id. What the server sent while the
//! request was open goes first, in recorded order:
//! - notifications: progress (its token rewritten to the caller's, or
//!   dropped when the caller asked for none), and the others (list_changed,
//!   log messages) with the oldest open request;
//! - the server's own requests (sampling, elicitation, roots): sent to the
//!   client with an id of the replay's own (`replay-N`), and the replay
//!   waits for the client's answer before it goes on, as the recorded
//!   server did. An answer other than the recorded client's is told on
//!   stderr; the recorded answers follow all the same. A request for a
//!   capability the client did not declare in its `initialize` is not
//!   sent (told on stderr).
//!
//! What the server sent when no request was open goes after the client's
//! message before it: after a request's answer, or after a notification
//! (the `roots/list` a server asks after `notifications/initialized`).
//!
//! `--timing` keeps the recorded delays: each message goes at its
//! recorded time after the client's message that it follows. Requests
//! are then answered concurrently, as a server would, and a
//! `notifications/cancelled` stops the answer to the request it names.
//!
//! A request with no recorded match gets a JSON-RPC error naming the
//! method and what was recorded for it; a request recorded without an
//! answer gets an error saying so.

use std::collections::HashMap;
use std::future::Future;
use std::pin::Pin;
use std::time::Duration;

use futures_util::StreamExt;
use futures_util::future::{AbortHandle, abortable};
use futures_util::stream::FuturesUnordered;
use serde_json::{Value, json};
use tokio::io::{AsyncBufReadExt, AsyncRead, AsyncWrite, AsyncWriteExt, BufReader};
use tokio::sync::{mpsc, oneshot, watch};
use tokio::time::Instant;

use super::{Dir, Recording};

/// One message of the recorded server's, in its place.
#[derive(Debug, Clone, PartialEq)]
pub enum Step {
    /// Sent as it is (a notification, or the answer).
    Send(Value),
    /// A request of the server's own: sent with a replay id, and the
    /// client's answer awaited.
    Ask {
        method: String,
        params: Option<Value>,
        /// The recording's line (named in a note).
        line: usize,
        /// What the recorded client answered (`{"result": …}` or
        /// `{"error": …}`), if it did.
        answered: Option<Value>,
    },
}

/// A [`Step`] and its recorded time, in seconds after the client's
/// message it follows.
#[derive(Debug, Clone, PartialEq)]
pub struct Timed {
    pub at: f64,
    pub step: Step,
}

/// One recorded answer.
#[derive(Debug, Clone, Default)]
struct Answer {
    /// What the server sent while the request was open.
    before: Vec<Timed>,
    /// The recorded request's progress token, if it had one.
    token: Option<Value>,
    /// `{"result": …}` or `{"error": …}`, and when; `None`: never answered.
    reply: Option<(f64, Value)>,
    /// What the server sent after the answer, before the client's next
    /// message.
    after: Vec<Timed>,
}

#[derive(Debug)]
struct Recorded {
    params: Value,
    answers: Vec<Answer>,
    next: usize,
}

/// What the server sent after each recorded notification of a method.
#[derive(Debug, Default)]
struct NoteTurns {
    turns: Vec<Vec<Timed>>,
    next: usize,
}

/// The answers of one recorded server.
#[derive(Debug, Default)]
pub struct Script {
    server: String,
    file: String,
    by_method: HashMap<String, Vec<Recorded>>,
    notes: HashMap<String, NoteTurns>,
}

/// Params as matched: `_meta` removed, null and missing as `{}`.
pub fn normalize(params: Option<&Value>) -> Value {
    match params {
        None | Some(Value::Null) => json!({}),
        Some(Value::Object(m)) => {
            let mut m = m.clone();
            m.remove("_meta");
            Value::Object(m)
        }
        Some(v) => v.clone(),
    }
}

fn by_method_alone(method: &str) -> bool {
    matches!(method, "initialize" | "server/discover" | "ping")
}

/// `{"result": …}` or `{"error": …}` of a response.
fn outcome(response: &Value) -> Value {
    match response.get("error") {
        Some(err) => json!({ "error": err }),
        None => json!({ "result": response.get("result").cloned().unwrap_or(Value::Null) }),
    }
}

/// Where the recorded server's messages went while the script was made.
#[derive(Debug, Clone)]
enum Turn {
    /// After answer `usize` (recorded at `f64`).
    Request(usize, f64),
    /// After turn `usize` of the notification `String` (at `f64`).
    Note(String, usize, f64),
}

impl Script {
    /// The answers `server` gave in `rec`.
    pub fn new(rec: &Recording, server: &str) -> Script {
        let mut script = Script {
            server: server.to_string(),
            file: rec.path.display().to_string(),
            by_method: HashMap::new(),
            notes: HashMap::new(),
        };
        let entries: Vec<&super::Entry> =
            rec.entries.iter().filter(|e| e.server == server).collect();
        // Which requests (by their place in `entries`) got an answer: one
        // that never did (cancelled, or the recording ended) is not taken
        // as the request the server's other messages went with.
        let mut answered = vec![false; entries.len()];
        let mut asked_at: HashMap<String, usize> = HashMap::new();
        for (n, e) in entries.iter().enumerate() {
            let Some(f) = &e.frame else { continue };
            let Some(id) = f.get("id").filter(|i| !i.is_null()) else {
                continue;
            };
            match (e.dir, f.get("method").is_some()) {
                (Dir::Send, true) => {
                    asked_at.insert(id.to_string(), n);
                }
                (Dir::Recv, false) => {
                    if let Some(at) = asked_at.remove(&id.to_string()) {
                        answered[at] = true;
                    }
                }
                _ => {}
            }
        }
        // Open requests: (recorded id, answer index, when it was sent,
        // whether it is answered in the end).
        let mut open: Vec<(Value, usize, f64, bool)> = Vec::new();
        let mut answers: Vec<Answer> = Vec::new();
        let mut slots: Vec<(String, usize)> = Vec::new();
        let mut last: Option<Turn> = None;
        // The server's requests by their id: the client's answer is
        // filled in at the end (`asked[n]`).
        let mut ask_ids: HashMap<String, usize> = HashMap::new();
        let mut asked: Vec<Option<Value>> = Vec::new();
        for (n, e) in entries.iter().enumerate() {
            let Some(f) = &e.frame else { continue };
            let method = f.get("method").and_then(Value::as_str);
            let id = f.get("id").filter(|i| !i.is_null());
            // A message of the server's own, placed in the turn it goes with.
            let mut place = |step: Step, token: Option<&Value>| {
                let with_token = token
                    .and_then(|t| open.iter().find(|o| answers[o.1].token.as_ref() == Some(t)));
                let owner = with_token.or_else(|| open.iter().find(|o| o.3));
                if let Some(&(_, i, t0, _)) = owner {
                    answers[i].before.push(Timed {
                        at: (e.t - t0).max(0.0),
                        step,
                    });
                    return;
                }
                match &last {
                    Some(Turn::Request(i, t0)) => answers[*i].after.push(Timed {
                        at: (e.t - t0).max(0.0),
                        step,
                    }),
                    Some(Turn::Note(m, k, t0)) => {
                        if let Some(turn) =
                            script.notes.get_mut(m).and_then(|n| n.turns.get_mut(*k))
                        {
                            turn.push(Timed {
                                at: (e.t - t0).max(0.0),
                                step,
                            });
                        }
                    }
                    // Before the client said anything: nothing to follow.
                    None => {}
                }
            };
            match (e.dir, method, id) {
                (Dir::Send, Some(m), Some(id)) => {
                    let params = normalize(f.get("params"));
                    let token = f.pointer("/params/_meta/progressToken").cloned();
                    let list = script.by_method.entry(m.to_string()).or_default();
                    let at = match list
                        .iter()
                        .position(|r| by_method_alone(m) || r.params == params)
                    {
                        Some(i) => i,
                        None => {
                            list.push(Recorded {
                                params,
                                answers: Vec::new(),
                                next: 0,
                            });
                            list.len() - 1
                        }
                    };
                    answers.push(Answer {
                        token,
                        ..Answer::default()
                    });
                    slots.push((m.to_string(), at));
                    open.push((id.clone(), answers.len() - 1, e.t, answered[n]));
                    last = Some(Turn::Request(answers.len() - 1, e.t));
                }
                (Dir::Send, Some(m), None) => {
                    // A request the client gave up on is no longer open.
                    if m == "notifications/cancelled"
                        && let Some(id) = f.pointer("/params/requestId")
                    {
                        open.retain(|o| &o.0 != id);
                    }
                    let turns = script.notes.entry(m.to_string()).or_default();
                    turns.turns.push(Vec::new());
                    last = Some(Turn::Note(m.to_string(), turns.turns.len() - 1, e.t));
                }
                (Dir::Send, None, Some(id)) => {
                    // The client's answer to one of the server's requests.
                    if let Some(&n) = ask_ids.get(&id.to_string()) {
                        asked[n] = Some(outcome(f));
                    }
                }
                (Dir::Recv, Some(m), None) => {
                    let token = (m == "notifications/progress")
                        .then(|| f.pointer("/params/progressToken"))
                        .flatten();
                    place(Step::Send(f.clone()), token);
                }
                (Dir::Recv, Some(m), Some(id)) => {
                    ask_ids.insert(id.to_string(), asked.len());
                    asked.push(None);
                    place(
                        Step::Ask {
                            method: m.to_string(),
                            params: f.get("params").cloned(),
                            line: e.line,
                            // For now the ask's number; its answer at the end.
                            answered: Some(json!(asked.len() - 1)),
                        },
                        None,
                    );
                }
                (Dir::Recv, None, Some(id)) => {
                    if let Some(pos) = open.iter().position(|o| &o.0 == id) {
                        let (_, i, t0, _) = open.remove(pos);
                        answers[i].reply = Some(((e.t - t0).max(0.0), outcome(f)));
                    }
                }
                _ => {}
            }
        }
        // The recorded client's answers in their asks.
        let fill = |steps: &mut Vec<Timed>| {
            for s in steps {
                if let Step::Ask { answered, .. } = &mut s.step {
                    let n = answered.as_ref().and_then(Value::as_u64);
                    *answered = n.and_then(|n| asked.get(n as usize).cloned().flatten());
                }
            }
        };
        for a in &mut answers {
            fill(&mut a.before);
            fill(&mut a.after);
        }
        for turns in script.notes.values_mut() {
            turns.turns.iter_mut().for_each(fill);
        }
        for (answer, (method, at)) in answers.into_iter().zip(slots) {
            if let Some(list) = script.by_method.get_mut(&method) {
                list[at].answers.push(answer);
            }
        }
        script
    }

    /// How many distinct requests were recorded.
    pub fn len(&self) -> usize {
        self.by_method.values().map(Vec::len).sum()
    }

    pub fn is_empty(&self) -> bool {
        self.len() == 0
    }

    /// The messages that answer `message`, without their timing and with
    /// the server's requests as they would go (no id): see [`Script::plan`].
    #[cfg(test)]
    pub fn answer(&mut self, message: &Value) -> Vec<Value> {
        self.plan(message)
            .into_iter()
            .map(|t| match t.step {
                Step::Send(v) => v,
                Step::Ask { method, params, .. } => ask_frame(&method, params.as_ref()),
            })
            .collect()
    }

    /// What the server does for `message`, in order: for a request, what
    /// it sent while the request was open, the answer (or an error naming
    /// what was not recorded), then what it sent after; for a
    /// notification, what it sent after the recorded one; for a response,
    /// nothing.
    pub fn plan(&mut self, message: &Value) -> Vec<Timed> {
        let Some(method) = message.get("method").and_then(Value::as_str) else {
            return Vec::new(); // a response to us: the loop routes it
        };
        let Some(id) = message.get("id").cloned() else {
            // A notification: what followed its recorded turn, once each.
            let Some(turns) = self.notes.get_mut(method) else {
                return Vec::new();
            };
            let k = turns.next;
            turns.next += 1;
            return turns.turns.get(k).cloned().unwrap_or_default();
        };
        let error = |code: i64, message: String| {
            vec![Timed {
                at: 0.0,
                step: Step::Send(
                    json!({"jsonrpc": "2.0", "id": id, "error": {"code": code, "message": message}}),
                ),
            }]
        };
        let params = normalize(message.get("params"));
        let Some(list) = self.by_method.get_mut(method) else {
            let mut known: Vec<&String> = self.by_method.keys().collect();
            known.sort();
            return error(
                -32601,
                format!(
                    "replay: {} recorded no {method:?} request from server {:?} (recorded methods: {})",
                    self.file,
                    self.server,
                    known
                        .iter()
                        .map(|s| s.as_str())
                        .collect::<Vec<_>>()
                        .join(", ")
                ),
            );
        };
        let Some(rec) = list
            .iter_mut()
            .find(|r| by_method_alone(method) || r.params == params)
        else {
            let recorded: Vec<String> = list
                .iter()
                .take(5)
                .map(|r| crate::mcp::finding::truncate(&r.params.to_string(), 200).to_string())
                .collect();
            return error(
                -32602,
                format!(
                    "replay: {} recorded no {method:?} with params {} (server {:?}; recorded params: {})",
                    self.file,
                    crate::mcp::finding::truncate(&params.to_string(), 200),
                    self.server,
                    recorded.join(" | ")
                ),
            );
        };
        let i = rec.next.min(rec.answers.len().saturating_sub(1));
        rec.next += 1;
        let Some(answer) = rec.answers.get(i) else {
            return error(-32603, format!("replay: {method:?} has no recorded answer"));
        };
        let caller_token = message.pointer("/params/_meta/progressToken");
        let mut out = Vec::new();
        for t in &answer.before {
            let mut t = t.clone();
            if let Step::Send(note) = &mut t.step
                && note.get("method").and_then(Value::as_str) == Some("notifications/progress")
            {
                match (caller_token, note.pointer_mut("/params/progressToken")) {
                    (Some(token), Some(slot)) => *slot = token.clone(),
                    _ => continue,
                }
            }
            out.push(t);
        }
        match &answer.reply {
            Some((at, reply)) => {
                let mut msg = json!({"jsonrpc": "2.0", "id": id});
                if let (Value::Object(m), Value::Object(r)) = (&mut msg, reply) {
                    m.extend(r.clone());
                }
                out.push(Timed {
                    at: *at,
                    step: Step::Send(msg),
                });
            }
            None => {
                let at = out.last().map_or(0.0, |t| t.at);
                out.extend(error(
                    -32603,
                    format!(
                        "replay: the recorded {method:?} request got no answer before the recording ended ({})",
                        self.file
                    ),
                ));
                if let Some(last) = out.last_mut() {
                    last.at = at;
                }
            }
        }
        out.extend(answer.after.iter().cloned());
        out
    }
}

/// A request of the server's, as sent (the id is added when it goes).
fn ask_frame(method: &str, params: Option<&Value>) -> Value {
    let mut msg = json!({"jsonrpc": "2.0", "method": method});
    if let (Value::Object(m), Some(p)) = (&mut msg, params) {
        m.insert("params".into(), p.clone());
    }
    msg
}

/// The capability a client declares for the server's request `method`.
fn capability_for(method: &str) -> Option<&'static str> {
    match method {
        "sampling/createMessage" => Some("sampling"),
        "elicitation/create" => Some("elicitation"),
        "roots/list" => Some("roots"),
        _ => None,
    }
}

/// How [`serve`] plays a script.
#[derive(Debug, Clone, Copy, Default)]
pub struct Options {
    /// Keep the recorded delays.
    pub timing: bool,
}

/// A request of the server's on its way out.
struct Outgoing {
    /// The frame, without an id.
    frame: Value,
    /// Where the client's answer goes.
    reply: oneshot::Sender<Value>,
    /// The answer it is part of (the caller's id, as a key of `stoppers`).
    owner: Option<String>,
}

/// An answer being played; it ends with its key in `stoppers`, if the
/// message had an id.
type Playing = Pin<Box<dyn Future<Output = Option<(String, u64)>> + Send>>;

/// How one answer is played (see [`play`]).
struct Playback {
    steps: Vec<Timed>,
    /// The step that is the answer itself; with `timing`, what comes
    /// after it (or everything, for a notification) is dropped once the
    /// input ends.
    reply: Option<usize>,
    start: Instant,
    timing: bool,
    owner: Option<String>,
}

/// The instant `at` seconds after `start`, if it is one (a recording's
/// times are outside data: a huge or odd `t` gives none).
fn due(start: Instant, at: f64) -> Option<Instant> {
    Duration::try_from_secs_f64(at)
        .ok()
        .and_then(|d| start.checked_add(d))
}

/// Play an answer: each step at its time (with `timing`), each of the
/// server's requests answered before the next step.
async fn play(
    p: Playback,
    out: mpsc::UnboundedSender<Value>,
    asks: mpsc::UnboundedSender<Outgoing>,
    mut ended: watch::Receiver<bool>,
) {
    for (i, t) in p.steps.into_iter().enumerate() {
        // With `timing`, what is due after the answer is not waited for
        // once the input has ended.
        let optional = p.timing && p.reply.is_none_or(|r| i > r);
        if optional && *ended.borrow() {
            return;
        }
        if p.timing
            && t.at > 0.0
            && let Some(when) = due(p.start, t.at)
        {
            if optional {
                tokio::select! {
                    () = tokio::time::sleep_until(when) => {}
                    _ = ended.wait_for(|e| *e) => return,
                }
            } else {
                tokio::time::sleep_until(when).await;
            }
        }
        match t.step {
            Step::Send(v) => {
                let _ = out.send(v);
            }
            Step::Ask {
                method,
                params,
                line,
                answered,
            } => {
                let (reply, rx) = oneshot::channel();
                let ask = Outgoing {
                    frame: ask_frame(&method, params.as_ref()),
                    reply,
                    owner: p.owner.clone(),
                };
                if asks.send(ask).is_err() {
                    return;
                }
                // No answer (not sent, or the input ended): go on.
                let Ok(reply) = rx.await else { continue };
                let now = outcome(&reply);
                if let Some(recorded) = answered
                    && recorded != now
                {
                    eprintln!(
                        "replay: the client answered {method} (recorded on line {line}) otherwise than the recorded client: {} where the recording has {}; the recorded answers follow all the same",
                        crate::mcp::finding::truncate(&now.to_string(), 300),
                        crate::mcp::finding::truncate(&recorded.to_string(), 300),
                    );
                }
            }
        }
    }
}

/// Serve `script` over `input`/`output` until `input` ends and every
/// answer begun has gone (what the recording has after an answer is not
/// waited for then). A line that is not JSON gets a parse error (id null).
pub async fn serve<R, W>(
    mut script: Script,
    input: R,
    mut output: W,
    options: Options,
) -> std::io::Result<()>
where
    R: AsyncRead + Unpin,
    W: AsyncWrite + Unpin,
{
    let mut input = BufReader::new(input);
    let mut line: Vec<u8> = Vec::new();
    let (out_tx, mut out_rx) = mpsc::unbounded_channel::<Value>();
    let (ask_tx, mut ask_rx) = mpsc::unbounded_channel::<Outgoing>();
    let (ended_tx, ended_rx) = watch::channel(false);
    let mut playing: FuturesUnordered<Playing> = FuturesUnordered::new();
    // Answers being played, by the caller's id (for cancellation), each
    // with its number (a finished one takes only its own entry away).
    let mut stoppers: HashMap<String, (u64, AbortHandle)> = HashMap::new();
    let mut plays = 0u64;
    // The server's requests awaiting the client, by their replay id, with
    // the answer each belongs to.
    let mut waiting: HashMap<String, (oneshot::Sender<Value>, Option<String>)> = HashMap::new();
    let mut asked = 0u64;
    // What the client declared in `initialize` (None: not seen).
    let mut declared: Option<Value> = None;
    let mut reading = true;
    loop {
        let mut batch: Vec<Value> = Vec::new();
        tokio::select! {
            biased;
            Some(v) = out_rx.recv() => batch.push(v),
            Some(ask) = ask_rx.recv() => {
                let Outgoing { mut frame, reply, owner } = ask;
                let method = frame.get("method").and_then(Value::as_str).unwrap_or("").to_string();
                let missing = capability_for(&method).filter(|cap| {
                    declared.as_ref().is_some_and(|d| d.get(*cap).is_none())
                });
                // Dropping `reply` lets the answer go on without one.
                if let Some(cap) = missing {
                    eprintln!("replay: {method} not sent: the client did not declare the {cap} capability");
                } else if reading {
                    asked += 1;
                    let id = format!("replay-{asked}");
                    frame["id"] = json!(id);
                    waiting.insert(json!(id).to_string(), (reply, owner));
                    batch.push(frame);
                }
            }
            Some(done) = playing.next(), if !playing.is_empty() => {
                if let Some((key, n)) = done
                    && stoppers.get(&key).is_some_and(|s| s.0 == n)
                {
                    stoppers.remove(&key);
                }
            }
            read = input.read_until(b'\n', &mut line), if reading => {
                if read? == 0 {
                    reading = false;
                    let _ = ended_tx.send(true);
                    // Nobody will answer the server's requests now.
                    waiting.clear();
                }
                let text = std::mem::take(&mut line);
                let messages = match std::str::from_utf8(&text) {
                    Ok(t) if t.trim().is_empty() => Vec::new(),
                    Ok(t) => match serde_json::from_str::<Value>(t) {
                        Ok(Value::Array(b)) => b,
                        Ok(msg) => vec![msg],
                        Err(e) => {
                            batch.push(json!({"jsonrpc": "2.0", "id": null,
                                "error": {"code": -32700, "message": format!("replay: not JSON: {e}")}}));
                            Vec::new()
                        }
                    },
                    Err(e) => {
                        batch.push(json!({"jsonrpc": "2.0", "id": null,
                            "error": {"code": -32700, "message": format!("replay: a line that is not UTF-8: {e}")}}));
                        Vec::new()
                    }
                };
                let start = Instant::now();
                for msg in messages {
                    let method = msg.get("method").and_then(Value::as_str);
                    let id = msg.get("id").filter(|i| !i.is_null());
                    match (method, id) {
                        (None, Some(id)) => {
                            if let Some((reply, _)) = waiting.remove(&id.to_string()) {
                                let _ = reply.send(msg.clone());
                            }
                            continue;
                        }
                        (Some("initialize"), _) => {
                            declared = Some(msg.pointer("/params/capabilities").cloned().unwrap_or(json!({})));
                        }
                        (Some("notifications/cancelled"), None) => {
                            let key = msg.pointer("/params/requestId").map(Value::to_string);
                            if let Some((_, stop)) = key.as_ref().and_then(|k| stoppers.remove(k)) {
                                stop.abort();
                                // Its requests to the client are void too.
                                let void: Vec<String> = waiting
                                    .iter()
                                    .filter(|(_, w)| w.1 == key)
                                    .map(|(id, _)| id.clone())
                                    .collect();
                                for ask in void {
                                    waiting.remove(&ask);
                                    let ask: Value = serde_json::from_str(&ask).unwrap_or(Value::Null);
                                    batch.push(json!({"jsonrpc": "2.0", "method": "notifications/cancelled",
                                        "params": {"requestId": ask, "reason": "the request it served was cancelled"}}));
                                }
                            }
                        }
                        _ => {}
                    }
                    let steps = script.plan(&msg);
                    let waits = steps.iter().any(|t| {
                        matches!(t.step, Step::Ask { .. }) || (options.timing && t.at > 0.0)
                    });
                    if !waits {
                        batch.extend(steps.into_iter().filter_map(|t| match t.step {
                            Step::Send(v) => Some(v),
                            Step::Ask { .. } => None,
                        }));
                        continue;
                    }
                    let key = id.map(Value::to_string);
                    let reply = id.and_then(|id| {
                        steps.iter().position(|t| {
                            matches!(&t.step, Step::Send(v) if v.get("method").is_none() && v.get("id") == Some(id))
                        })
                    });
                    let playback = Playback {
                        steps,
                        reply,
                        start,
                        timing: options.timing,
                        owner: key.clone(),
                    };
                    let (run, stop) = abortable(play(playback, out_tx.clone(), ask_tx.clone(), ended_rx.clone()));
                    plays += 1;
                    let entry = key.map(|k| (k, plays));
                    if let Some((k, n)) = &entry {
                        stoppers.insert(k.clone(), (*n, stop));
                    }
                    playing.push(Box::pin(async move {
                        let _ = run.await;
                        entry
                    }));
                }
            }
            else => break,
        }
        // Whatever else is ready goes in the same write.
        while let Ok(v) = out_rx.try_recv() {
            batch.push(v);
        }
        if !batch.is_empty() {
            let mut bytes = Vec::new();
            for v in &batch {
                bytes.extend_from_slice(v.to_string().as_bytes());
                bytes.push(b'\n');
            }
            output.write_all(&bytes).await?;
            output.flush().await?;
        }
        // The plays run only while the select polls them, so what they
        // sent is in the batch just written.
        if !reading && playing.is_empty() {
            break;
        }
    }
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;

    fn rec(text: &str) -> Recording {
        let text = format!("{{\"mcpdeck_recording\":1,\"servers\":[]}}\n{text}");
        Recording::read(std::path::Path::new("r.jsonl"), text.as_bytes()).unwrap()
    }

    #[test]
    fn answers_match_params_without_meta_and_take_the_callers_id() {
        let recording = rec(
            r#"{"t":0,"server":"s","dir":"send","frame":{"jsonrpc":"2.0","id":3,"method":"tools/call","params":{"name":"echo","arguments":{"m":"hi"},"_meta":{"progressToken":7}}}}
{"t":0,"server":"s","dir":"recv","frame":{"jsonrpc":"2.0","method":"notifications/progress","params":{"progressToken":7,"progress":1}}}
{"t":0,"server":"s","dir":"recv","frame":{"jsonrpc":"2.0","id":3,"result":{"content":[{"type":"text","text":"hi"}]}}}
"#,
        );
        let mut s = Script::new(&recording, "s");
        let out = s.answer(&json!({"jsonrpc":"2.0","id":"x","method":"tools/call",
            "params":{"name":"echo","arguments":{"m":"hi"},"_meta":{"progressToken":"p"}}}));
        assert_eq!(out.len(), 2, "{out:?}");
        assert_eq!(out[0]["params"]["progressToken"], "p");
        assert_eq!(out[1]["id"], "x");
        assert_eq!(out[1]["result"]["content"][0]["text"], "hi");
        // Without a progress token the progress is not sent.
        let out = s.answer(&json!({"jsonrpc":"2.0","id":1,"method":"tools/call",
            "params":{"name":"echo","arguments":{"m":"hi"}}}));
        assert_eq!(out.len(), 1);
        let out = s.answer(&json!({"jsonrpc":"2.0","id":2,"method":"tools/call",
            "params":{"name":"echo","arguments":{"m":"bye"}}}));
        let msg = out[0]["error"]["message"].as_str().unwrap();
        assert!(
            msg.contains("no \"tools/call\" with params") && msg.contains("bye"),
            "{msg}"
        );
        let out = s.answer(&json!({"jsonrpc":"2.0","id":2,"method":"prompts/list"}));
        assert_eq!(out[0]["error"]["code"], -32601);
        assert!(
            s.answer(&json!({"jsonrpc":"2.0","method":"notifications/initialized"}))
                .is_empty()
        );
    }
}

#[cfg(test)]
mod play_tests {
    use super::*;
    use tokio::io::{AsyncBufReadExt, AsyncWriteExt, BufReader};

    fn rec(text: &str) -> Recording {
        let text = format!("{{\"mcpdeck_recording\":1,\"servers\":[]}}\n{text}");
        Recording::read(std::path::Path::new("r.jsonl"), text.as_bytes()).unwrap()
    }

    /// A server that asks for roots after `initialized`, elicits during a
    /// call and logs after answering it; the reply comes 0.5 s after the
    /// call.
    const ASKING: &str = r#"{"t":0,"server":"s","dir":"send","frame":{"jsonrpc":"2.0","id":1,"method":"initialize","params":{"capabilities":{"roots":{}}}}}
{"t":0.01,"server":"s","dir":"recv","frame":{"jsonrpc":"2.0","id":1,"result":{"protocolVersion":"2025-11-25","capabilities":{}}}}
{"t":0.02,"server":"s","dir":"send","frame":{"jsonrpc":"2.0","method":"notifications/initialized"}}
{"t":0.03,"server":"s","dir":"recv","frame":{"jsonrpc":"2.0","id":0,"method":"roots/list"}}
{"t":0.04,"server":"s","dir":"send","frame":{"jsonrpc":"2.0","id":0,"result":{"roots":[]}}}
{"t":1,"server":"s","dir":"send","frame":{"jsonrpc":"2.0","id":2,"method":"tools/call","params":{"name":"ask","arguments":{}}}}
{"t":1.1,"server":"s","dir":"recv","frame":{"jsonrpc":"2.0","id":1,"method":"elicitation/create","params":{"message":"name?"}}}
{"t":1.2,"server":"s","dir":"send","frame":{"jsonrpc":"2.0","id":1,"result":{"action":"accept","content":{"name":"ada"}}}}
{"t":1.5,"server":"s","dir":"recv","frame":{"jsonrpc":"2.0","id":2,"result":{"content":[{"type":"text","text":"hello ada"}]}}}
{"t":1.6,"server":"s","dir":"recv","frame":{"jsonrpc":"2.0","method":"notifications/message","params":{"level":"info","data":"done"}}}
"#;

    #[test]
    fn the_servers_requests_and_later_notes_are_placed_in_their_turns() {
        let mut s = Script::new(&rec(ASKING), "s");
        let init = s.plan(&json!({"jsonrpc":"2.0","id":"a","method":"initialize","params":{}}));
        assert_eq!(init.len(), 1);
        let after = s.plan(&json!({"jsonrpc":"2.0","method":"notifications/initialized"}));
        assert_eq!(after.len(), 1, "{after:?}");
        assert_eq!(
            after[0].step,
            Step::Ask {
                method: "roots/list".into(),
                params: None,
                line: 5,
                answered: Some(json!({"result": {"roots": []}})),
            }
        );
        assert!((after[0].at - 0.01).abs() < 1e-9);
        // A second `initialized` has no recorded turn.
        assert!(
            s.plan(&json!({"jsonrpc":"2.0","method":"notifications/initialized"}))
                .is_empty()
        );
        let call = s.plan(&json!({"jsonrpc":"2.0","id":9,"method":"tools/call",
            "params":{"name":"ask","arguments":{}}}));
        assert_eq!(call.len(), 3, "{call:?}");
        assert!(
            matches!(&call[0].step, Step::Ask { method, answered: Some(a), .. }
            if method == "elicitation/create" && a["result"]["content"]["name"] == "ada")
        );
        let Step::Send(reply) = &call[1].step else {
            panic!("{call:?}")
        };
        assert_eq!(reply["id"], 9);
        assert!((call[1].at - 0.5).abs() < 1e-9);
        let Step::Send(log) = &call[2].step else {
            panic!("{call:?}")
        };
        assert_eq!(log["method"], "notifications/message");
    }

    type ToServer = tokio::io::WriteHalf<tokio::io::DuplexStream>;
    type FromServer = tokio::io::Lines<BufReader<tokio::io::ReadHalf<tokio::io::DuplexStream>>>;

    /// Run `serve` on `script` with a client at the other end of a pipe.
    fn pipes(
        script: Script,
        options: Options,
    ) -> (
        ToServer,
        FromServer,
        tokio::task::JoinHandle<std::io::Result<()>>,
    ) {
        let (client, server) = tokio::io::duplex(1 << 16);
        let (server_in, server_out) = tokio::io::split(server);
        let task = tokio::spawn(serve(script, server_in, server_out, options));
        let (client_in, client_out) = tokio::io::split(client);
        (client_out, BufReader::new(client_in).lines(), task)
    }

    async fn send(to: &mut ToServer, v: Value) {
        to.write_all(format!("{v}\n").as_bytes()).await.unwrap();
    }

    async fn next(from: &mut FromServer) -> Value {
        let line = from.next_line().await.unwrap().expect("a line");
        serde_json::from_str(&line).unwrap()
    }

    /// Send `initialize` (id 1) declaring `capabilities`.
    async fn initialize(to: &mut ToServer, capabilities: Value) {
        let init = json!({"jsonrpc":"2.0","id":1,"method":"initialize",
            "params":{"capabilities":capabilities}});
        send(to, init).await;
    }

    /// Call the recorded `ask` tool as request `id`: the server's
    /// elicitation comes first.
    async fn call_ask(to: &mut ToServer, from: &mut FromServer, id: u64) -> Value {
        send(
            to,
            json!({"jsonrpc":"2.0","id":id,"method":"tools/call",
            "params":{"name":"ask","arguments":{}}}),
        )
        .await;
        let ask = next(from).await;
        assert_eq!(ask["method"], "elicitation/create");
        ask
    }

    #[tokio::test(start_paused = true)]
    async fn asks_wait_for_the_client_and_timing_keeps_the_recorded_delays() {
        let script = Script::new(&rec(ASKING), "s");
        let (mut to, mut from, task) = pipes(script, Options { timing: true });
        initialize(&mut to, json!({"roots":{},"elicitation":{}})).await;
        assert_eq!(next(&mut from).await["id"], 1);
        send(
            &mut to,
            json!({"jsonrpc":"2.0","method":"notifications/initialized"}),
        )
        .await;
        let roots = next(&mut from).await;
        assert_eq!(roots["method"], "roots/list");
        assert_eq!(roots["id"], "replay-1");
        send(
            &mut to,
            json!({"jsonrpc":"2.0","id":"replay-1","result":{"roots":[]}}),
        )
        .await;
        let start = Instant::now();
        let ask = call_ask(&mut to, &mut from, 7).await;
        assert_eq!(ask["params"]["message"], "name?");
        // Recorded 0.1 s after the call (virtual time: exact).
        assert_eq!(start.elapsed(), Duration::from_millis(100));
        // Nothing more until the client answers.
        assert!(
            tokio::time::timeout(Duration::from_secs(5), next(&mut from))
                .await
                .is_err()
        );
        send(
            &mut to,
            json!({"jsonrpc":"2.0","id":ask["id"],
            "result":{"action":"accept","content":{"name":"ada"}}}),
        )
        .await;
        let reply = next(&mut from).await;
        assert_eq!(reply["id"], 7);
        assert_eq!(reply["result"]["content"][0]["text"], "hello ada");
        let log = next(&mut from).await;
        assert_eq!(log["method"], "notifications/message");
        to.shutdown().await.unwrap();
        assert!(from.next_line().await.unwrap().is_none());
        task.await.unwrap().unwrap();
    }

    #[tokio::test(start_paused = true)]
    async fn a_cancelled_request_is_not_answered_and_undeclared_asks_are_not_sent() {
        let script = Script::new(&rec(ASKING), "s");
        let (mut to, mut from, task) = pipes(script, Options { timing: true });
        // No roots capability: the roots/list after initialized is not sent.
        initialize(&mut to, json!({})).await;
        assert_eq!(next(&mut from).await["id"], 1);
        send(
            &mut to,
            json!({"jsonrpc":"2.0","method":"notifications/initialized"}),
        )
        .await;
        send(&mut to, json!({"jsonrpc":"2.0","id":2,"method":"ping"})).await;
        assert_eq!(next(&mut from).await["id"], 2);
        send(
            &mut to,
            json!({"jsonrpc":"2.0","id":7,"method":"tools/call",
            "params":{"name":"ask","arguments":{}}}),
        )
        .await;
        send(
            &mut to,
            json!({"jsonrpc":"2.0","method":"notifications/cancelled",
            "params":{"requestId":7}}),
        )
        .await;
        send(&mut to, json!({"jsonrpc":"2.0","id":3,"method":"ping"})).await;
        assert_eq!(next(&mut from).await["id"], 3);
        to.shutdown().await.unwrap();
        // The call's answer never comes: the stream just ends.
        assert!(from.next_line().await.unwrap().is_none());
        task.await.unwrap().unwrap();
    }

    #[tokio::test]
    async fn without_timing_answers_come_at_once_and_in_order() {
        let script = Script::new(&rec(ASKING), "s");
        let (mut to, mut from, task) = pipes(script, Options::default());
        initialize(&mut to, json!({"elicitation":{}})).await;
        send(&mut to, json!({"jsonrpc":"2.0","id":2,"method":"ping"})).await;
        assert_eq!(next(&mut from).await["id"], 1);
        assert_eq!(next(&mut from).await["id"], 2);
        // At the input's end the answers begun still go out.
        call_ask(&mut to, &mut from, 3).await;
        to.shutdown().await.unwrap();
        let reply = next(&mut from).await;
        assert_eq!(reply["id"], 3);
        assert_eq!(next(&mut from).await["method"], "notifications/message");
        assert!(from.next_line().await.unwrap().is_none());
        task.await.unwrap().unwrap();
    }

    #[tokio::test]
    async fn the_input_ending_before_an_ask_ends_the_replay() {
        let script = Script::new(&rec(ASKING), "s");
        let (mut to, mut from, task) = pipes(script, Options { timing: true });
        initialize(&mut to, json!({"roots":{}})).await;
        send(
            &mut to,
            json!({"jsonrpc":"2.0","method":"notifications/initialized"}),
        )
        .await;
        to.shutdown().await.unwrap();
        // The roots/list due 10 ms after `initialized` is not waited for.
        tokio::time::timeout(Duration::from_secs(10), task)
            .await
            .expect("the replay ends")
            .unwrap()
            .unwrap();
        assert_eq!(next(&mut from).await["id"], 1);
    }

    #[tokio::test(start_paused = true)]
    async fn odd_recorded_times_do_not_stop_the_replay() {
        let recording = rec(
            r#"{"t":0,"server":"s","dir":"send","frame":{"jsonrpc":"2.0","id":1,"method":"ping"}}
{"t":1e300,"server":"s","dir":"recv","frame":{"jsonrpc":"2.0","id":1,"result":{}}}
"#,
        );
        let (mut to, mut from, task) =
            pipes(Script::new(&recording, "s"), Options { timing: true });
        send(&mut to, json!({"jsonrpc":"2.0","id":"p","method":"ping"})).await;
        assert_eq!(next(&mut from).await["id"], "p");
        // Not UTF-8: a parse error, and the replay goes on.
        to.write_all(b"\xff\xfe\n").await.unwrap();
        let err = next(&mut from).await;
        assert_eq!(err["error"]["code"], -32700, "{err}");
        to.shutdown().await.unwrap();
        task.await.unwrap().unwrap();
    }

    #[test]
    fn a_request_never_answered_does_not_take_what_came_later() {
        let recording = rec(
            r#"{"t":0,"server":"s","dir":"send","frame":{"jsonrpc":"2.0","id":1,"method":"tools/call","params":{"name":"slow"}}}
{"t":1,"server":"s","dir":"send","frame":{"jsonrpc":"2.0","method":"notifications/cancelled","params":{"requestId":1}}}
{"t":2,"server":"s","dir":"send","frame":{"jsonrpc":"2.0","id":2,"method":"tools/list"}}
{"t":2.1,"server":"s","dir":"recv","frame":{"jsonrpc":"2.0","method":"notifications/message","params":{"data":"listing"}}}
{"t":2.2,"server":"s","dir":"recv","frame":{"jsonrpc":"2.0","id":2,"result":{"tools":[]}}}
{"t":3,"server":"s","dir":"send","frame":{"jsonrpc":"2.0","id":3,"method":"tools/call","params":{"name":"lost"}}}
{"t":4,"server":"s","dir":"send","frame":{"jsonrpc":"2.0","id":4,"method":"prompts/list"}}
{"t":4.1,"server":"s","dir":"recv","frame":{"jsonrpc":"2.0","method":"notifications/tools/list_changed"}}
{"t":4.2,"server":"s","dir":"recv","frame":{"jsonrpc":"2.0","id":4,"result":{"prompts":[]}}}
"#,
        );
        let mut s = Script::new(&recording, "s");
        let list = s.answer(&json!({"jsonrpc":"2.0","id":7,"method":"tools/list"}));
        assert_eq!(list.len(), 2, "{list:?}");
        assert_eq!(list[0]["method"], "notifications/message");
        // Request 3 was never answered (and not cancelled): the
        // list_changed went with the prompts/list that was.
        let prompts = s.answer(&json!({"jsonrpc":"2.0","id":8,"method":"prompts/list"}));
        assert_eq!(prompts.len(), 2, "{prompts:?}");
        assert_eq!(prompts[0]["method"], "notifications/tools/list_changed");
        let slow = s.answer(
            &json!({"jsonrpc":"2.0","id":9,"method":"tools/call","params":{"name":"slow"}}),
        );
        assert_eq!(slow.len(), 1, "{slow:?}");
        assert_eq!(slow[0]["error"]["code"], -32603);
    }
}
