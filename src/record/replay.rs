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
//! Each answer carries the caller's id. Notifications the server sent
//! while the request was open are sent first: progress (its token
//! rewritten to the caller's, or dropped when the caller asked for none),
//! and the others (list_changed, log messages) with the oldest open
//! request. Requests the recorded server sent to the client (sampling,
//! elicitation, roots) are not replayed.
//!
//! A request with no recorded match gets a JSON-RPC error naming the
//! method and what was recorded for it; a request recorded without an
//! answer gets an error saying so.

use std::collections::HashMap;

use serde_json::{Value, json};
use tokio::io::{AsyncBufReadExt, AsyncRead, AsyncWrite, AsyncWriteExt, BufReader};

use super::{Dir, Recording};

/// One recorded answer.
#[derive(Debug, Clone)]
struct Answer {
    /// Notifications sent before the answer.
    notes: Vec<Value>,
    /// The recorded request's progress token, if it had one.
    token: Option<Value>,
    /// `{"result": …}` or `{"error": …}`; `None`: never answered.
    reply: Option<Value>,
}

#[derive(Debug)]
struct Recorded {
    params: Value,
    answers: Vec<Answer>,
    next: usize,
}

/// The answers of one recorded server.
#[derive(Debug, Default)]
pub struct Script {
    server: String,
    file: String,
    by_method: HashMap<String, Vec<Recorded>>,
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

impl Script {
    /// The answers `server` gave in `rec`.
    pub fn new(rec: &Recording, server: &str) -> Script {
        let mut script = Script {
            server: server.to_string(),
            file: rec.path.display().to_string(),
            by_method: HashMap::new(),
        };
        // Open requests: (recorded id, method, index in by_method[method], answer index).
        let mut open: Vec<(Value, String, usize, usize)> = Vec::new();
        let mut answers: Vec<Answer> = Vec::new();
        let mut slots: Vec<(String, usize)> = Vec::new();
        for e in rec.entries.iter().filter(|e| e.server == server) {
            let Some(f) = &e.frame else { continue };
            let method = f.get("method").and_then(Value::as_str);
            let id = f.get("id").filter(|i| !i.is_null());
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
                        notes: Vec::new(),
                        token,
                        reply: None,
                    });
                    slots.push((m.to_string(), at));
                    open.push((id.clone(), m.to_string(), at, answers.len() - 1));
                }
                (Dir::Recv, Some(m), None) => {
                    // A notification: progress goes with its token's request,
                    // the rest with the oldest open request.
                    let token = f.pointer("/params/progressToken");
                    let owner = match token {
                        Some(t) if m == "notifications/progress" => open
                            .iter()
                            .find(|o| answers[o.3].token.as_ref() == Some(t))
                            .map(|o| o.3),
                        _ => open.first().map(|o| o.3),
                    };
                    if let Some(i) = owner {
                        answers[i].notes.push(f.clone());
                    }
                }
                (Dir::Recv, None, Some(id)) => {
                    if let Some(pos) = open.iter().position(|o| &o.0 == id) {
                        let (_, _, _, i) = open.remove(pos);
                        answers[i].reply = Some(match f.get("error") {
                            Some(err) => json!({ "error": err }),
                            None => {
                                json!({ "result": f.get("result").cloned().unwrap_or(Value::Null) })
                            }
                        });
                    }
                }
                _ => {}
            }
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

    /// The messages that answer `request` (notifications first, the
    /// response last); none for a notification or a response.
    pub fn answer(&mut self, request: &Value) -> Vec<Value> {
        let Some(method) = request.get("method").and_then(Value::as_str) else {
            return Vec::new(); // a response to us: nothing to say
        };
        let Some(id) = request.get("id").cloned() else {
            return Vec::new(); // a notification
        };
        let error = |code: i64, message: String| {
            vec![json!({"jsonrpc": "2.0", "id": id, "error": {"code": code, "message": message}})]
        };
        let params = normalize(request.get("params"));
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
        let caller_token = request.pointer("/params/_meta/progressToken");
        let mut out = Vec::new();
        for note in &answer.notes {
            let mut note = note.clone();
            if note.get("method").and_then(Value::as_str) == Some("notifications/progress") {
                match (caller_token, note.pointer_mut("/params/progressToken")) {
                    (Some(t), Some(slot)) => *slot = t.clone(),
                    _ => continue,
                }
            }
            out.push(note);
        }
        match &answer.reply {
            Some(reply) => {
                let mut msg = json!({"jsonrpc": "2.0", "id": id});
                if let (Value::Object(m), Value::Object(r)) = (&mut msg, reply) {
                    m.extend(r.clone());
                }
                out.push(msg);
            }
            None => out.extend(error(
                -32603,
                format!(
                    "replay: the recorded {method:?} request got no answer before the recording ended ({})",
                    self.file
                ),
            )),
        }
        out
    }
}

/// Serve `script` over `input`/`output` until `input` ends. A line that
/// is not JSON gets a parse error (id null).
pub async fn serve<R, W>(mut script: Script, input: R, mut output: W) -> std::io::Result<()>
where
    R: AsyncRead + Unpin,
    W: AsyncWrite + Unpin,
{
    let mut lines = BufReader::new(input).lines();
    while let Some(line) = lines.next_line().await? {
        if line.trim().is_empty() {
            continue;
        }
        let replies = match serde_json::from_str::<Value>(&line) {
            Ok(Value::Array(batch)) => batch.iter().flat_map(|m| script.answer(m)).collect(),
            Ok(msg) => script.answer(&msg),
            Err(e) => vec![json!({"jsonrpc": "2.0", "id": null,
                "error": {"code": -32700, "message": format!("replay: not JSON: {e}")}})],
        };
        for r in replies {
            let mut bytes = r.to_string().into_bytes();
            bytes.push(b'\n');
            output.write_all(&bytes).await?;
        }
        output.flush().await?;
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
