//! Latency statistics per server and method, fed from the frame log: each
//! response frame carries its method and the time since its request was
//! sent (the session pairs them by id), and its outcome is read from the
//! frame. The frames are read on each update (the log is shared, as the
//! protocol log view reads it); nothing polls.

use serde::Deserialize;
use serde::de::IgnoredAny;

use crate::mcp::framelog::{Direction, Frame};
use crate::record::stats::Outcome;

use super::State;

/// Take the frames recorded since the last look into the statistics.
/// Returns true when the selected server got a new sample (its detail may
/// show it).
pub(super) fn feed(s: &mut State) -> bool {
    let Some(log) = &s.frames else { return false };
    match log.last_seq() {
        Some(last) if last >= s.latency_next => {}
        _ => return false,
    }
    let frames = log.since(s.latency_next);
    let Some(newest) = frames.last() else {
        return false;
    };
    s.latency_next = newest.seq.saturating_add(1);
    let selected = s.servers.get(s.server_sel).map(|v| v.name.clone());
    let selected = selected.as_deref();
    let mut shown = false;
    for f in &frames {
        // A server still connecting: the step its frames show.
        if let Some(method) = &f.method
            && let Some(v) = s.servers.iter_mut().find(|v| *v.name == *f.server)
            && v.status == crate::mcp::manager::ServerStatus::Pending
        {
            v.connect_step = Some(match (f.dir, f.latency) {
                (Direction::Out, _) if f.id.is_some() => {
                    format!("{method} sent, waiting for its answer")
                }
                (Direction::In, Some(_)) => format!("{method} answered"),
                _ => format!(
                    "{method} {}",
                    if f.dir == Direction::Out {
                        "sent"
                    } else {
                        "received"
                    }
                ),
            });
            shown |= selected == Some(&*f.server);
        }
        if f.dir != Direction::In {
            continue;
        }
        let (Some(latency), Some(method)) = (f.latency, &f.method) else {
            continue;
        };
        s.latency.add(&f.server, method, latency, outcome(f));
        shown |= selected == Some(&*f.server);
    }
    shown
}

/// Forget the selected server's statistics (the reset key).
pub(super) fn reset(s: &mut State) -> bool {
    let Some(v) = s.servers.get(s.server_sel) else {
        return false;
    };
    s.latency.reset_server(&v.name);
    s.status = Some(format!(
        "{}: latency statistics reset",
        crate::sanitize::one_line(&v.name)
    ));
    true
}

#[derive(Deserialize)]
struct Response<'a> {
    #[serde(default)]
    error: Option<IgnoredAny>,
    /// Present (even `null`) or not.
    #[serde(default, borrow, deserialize_with = "present")]
    result: Option<&'a serde_json::value::RawValue>,
}

fn present<'de, D: serde::Deserializer<'de>>(
    d: D,
) -> Result<Option<&'de serde_json::value::RawValue>, D::Error> {
    <&serde_json::value::RawValue>::deserialize(d).map(Some)
}

#[derive(Deserialize)]
struct ResultProbe {
    #[serde(default, rename = "isError")]
    is_error: Option<bool>,
}

/// How a response frame ended: a JSON-RPC error, a result with
/// `isError: true`, or a result. What is not a response (an HTTP failure's
/// body, a dropped oversize message) is an error; a frame cut by the log's
/// per-frame limit counts as a result unless its start says error.
fn outcome(f: &Frame) -> Outcome {
    match serde_json::from_str::<Response>(&f.text) {
        Ok(r) if r.error.is_some() => Outcome::Error,
        Ok(Response {
            result: Some(raw), ..
        }) => match serde_json::from_str::<ResultProbe>(raw.get()) {
            Ok(ResultProbe {
                is_error: Some(true),
            }) => Outcome::ToolError,
            _ => Outcome::Ok,
        },
        Ok(_) => Outcome::Error,
        Err(_) if f.truncated() => {
            let head = &f.text.as_bytes()[..f.text.len().min(256)];
            let has = |needle: &[u8]| head.windows(needle.len()).any(|w| w == needle);
            if has(b"\"error\"") && !has(b"\"result\"") {
                Outcome::Error
            } else {
                Outcome::Ok
            }
        }
        Err(_) => Outcome::Error,
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::mcp::framelog::{FrameLog, FrameMeta};
    use std::sync::Arc;

    fn frame(text: &str) -> Arc<Frame> {
        let log = FrameLog::with_limits(10, 1 << 20, 64);
        log.record(&Arc::from("a"), Direction::In, text, FrameMeta::default())
    }

    #[test]
    fn outcomes_are_read_from_the_response() {
        let o = |t: &str| outcome(&frame(t));
        assert_eq!(o(r#"{"jsonrpc":"2.0","id":1,"result":{}}"#), Outcome::Ok);
        assert_eq!(o(r#"{"id":1,"result":null}"#), Outcome::Ok);
        assert_eq!(o(r#"{"id":1,"result":[1]}"#), Outcome::Ok);
        assert_eq!(
            o(r#"{"id":1,"result":{"content":[],"isError":true}}"#),
            Outcome::ToolError
        );
        assert_eq!(o(r#"{"id":1,"result":{"isError":false}}"#), Outcome::Ok);
        assert_eq!(
            o(r#"{"id":1,"error":{"code":-32601,"message":"no"}}"#),
            Outcome::Error
        );
        // An HTTP failure's body, or no answer in it.
        assert_eq!(o("Internal Server Error"), Outcome::Error);
        assert_eq!(o(r#"{"id":1}"#), Outcome::Error);
        // Cut by the per-frame limit (64 bytes here): its start tells.
        let long = "x".repeat(200);
        let cut_ok = format!(r#"{{"jsonrpc":"2.0","id":1,"result":{{"content":"{long}"}}}}"#);
        assert_eq!(o(&cut_ok), Outcome::Ok);
        let cut_err = format!(r#"{{"jsonrpc":"2.0","id":1,"error":{{"message":"{long}"}}}}"#);
        assert_eq!(o(&cut_err), Outcome::Error);
    }
}
