//! An incremental Server-Sent Events parser (the WHATWG event-stream
//! format), written for MCP rather than taken from a crate:
//!
//! - it is linear in its input: a multi-megabyte `data:` line arriving in
//!   small chunks is scanned once, never re-scanned per chunk;
//! - it keeps the `id` and `retry` of events that carry no data (MCP servers
//!   send such "priming" events so that a client can resume a stream);
//! - bytes that are not UTF-8 are replaced and reported, never a stall;
//! - it reports lines that are not fields, so a broken server is visible.

use std::time::Duration;

/// The most bytes one event's data may hold before it is dropped.
pub const MAX_EVENT: usize = super::stdio::MAX_LINE;

/// What [`SseParser::feed`] found.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum SseItem {
    /// A dispatched event with data.
    Event {
        /// The event type (`message` when the stream named none).
        event: String,
        data: String,
        /// The event's `id`, if this event carried one.
        id: Option<String>,
    },
    /// Something off in the stream: a line that is not a field, bytes that
    /// are not UTF-8, an oversized event. The stream goes on.
    Oddity(String),
}

/// The parser state. Feed it chunks as they arrive.
#[derive(Debug, Default)]
pub struct SseParser {
    line: Vec<u8>,
    data: Vec<u8>,
    data_dropped: bool,
    /// The current line is over the limit (it is skipped to its end).
    line_overflow: bool,
    /// Bytes held at the start of a connection until the BOM is decided.
    bom: Vec<u8>,
    event: String,
    id: Option<String>,
    last_id: Option<String>,
    retry: Option<Duration>,
    started: bool,
    after_cr: bool,
    events: u64,
}

impl SseParser {
    pub fn new() -> Self {
        Self::default()
    }

    /// The last event id seen (for `Last-Event-ID`), if any.
    pub fn last_event_id(&self) -> Option<&str> {
        self.last_id.as_deref()
    }

    /// The reconnection time the server asked for, if any.
    pub fn retry(&self) -> Option<Duration> {
        self.retry
    }

    /// Events dispatched so far (with data).
    pub fn events(&self) -> u64 {
        self.events
    }

    /// A new connection (a resumed stream) starts: forget any partial line
    /// or event, keep the last event id and the retry time.
    pub fn new_connection(&mut self) {
        self.line.clear();
        self.data.clear();
        self.data_dropped = false;
        self.line_overflow = false;
        self.bom.clear();
        self.event.clear();
        self.id = None;
        self.started = false;
        self.after_cr = false;
    }

    /// Parse a chunk; complete events and oddities are appended to `out`.
    pub fn feed(&mut self, chunk: &[u8], out: &mut Vec<SseItem>) {
        if !self.started {
            // A UTF-8 byte order mark may start the stream, possibly split
            // across chunks: hold the first bytes until it is decided.
            const BOM: &[u8] = b"\xEF\xBB\xBF";
            self.bom.extend_from_slice(chunk);
            if self.bom.len() < 3 && BOM.starts_with(&self.bom) {
                return;
            }
            self.started = true;
            let held = std::mem::take(&mut self.bom);
            let rest = held.strip_prefix(BOM).unwrap_or(&held);
            self.feed_bytes(rest, out);
            return;
        }
        self.feed_bytes(chunk, out);
    }

    fn feed_bytes(&mut self, chunk: &[u8], out: &mut Vec<SseItem>) {
        let mut start = 0;
        let mut i = 0;
        while i < chunk.len() {
            let b = chunk[i];
            if b == b'\n' && self.after_cr && i == start && self.line.is_empty() {
                // The LF of a CRLF whose CR ended the previous chunk or line.
                self.after_cr = false;
                i += 1;
                start = i;
                continue;
            }
            self.after_cr = false;
            if b == b'\n' || b == b'\r' {
                self.push_line_part(&chunk[start..i], out);
                let line = std::mem::take(&mut self.line);
                self.line_done(&line, out);
                self.line = line;
                self.line.clear();
                if b == b'\r' {
                    self.after_cr = true;
                }
                i += 1;
                start = i;
                continue;
            }
            i += 1;
        }
        self.push_line_part(&chunk[start..], out);
    }

    /// The stream ended: an event not ended by a blank line is dropped (as
    /// the spec says), with an oddity when it had data.
    pub fn finish(&mut self, out: &mut Vec<SseItem>) {
        if !self.started && !self.bom.is_empty() {
            self.started = true;
            let held = std::mem::take(&mut self.bom);
            self.feed_bytes(&held, out);
        }
        // An incomplete last line is discarded (WHATWG), not taken as a field.
        let partial = !self.line.is_empty();
        self.line.clear();
        self.line_overflow = false;
        self.after_cr = false;
        if !self.data.is_empty() || (partial && !self.data_dropped) {
            out.push(SseItem::Oddity(format!(
                "the stream ended inside an event ({} bytes of data without the blank line that ends an event); dropped",
                self.data.len()
            )));
        }
        self.data.clear();
        self.data_dropped = false;
        self.event.clear();
        self.id = None;
    }

    fn push_line_part(&mut self, part: &[u8], out: &mut Vec<SseItem>) {
        if part.is_empty() {
            return;
        }
        if self.line_overflow {
            return;
        }
        if self.line.len() + part.len() > MAX_EVENT + 16 {
            out.push(SseItem::Oddity(format!(
                "an event stream line is longer than {} MiB; dropped",
                MAX_EVENT / (1024 * 1024)
            )));
            if self.line.starts_with(b"data") {
                self.data_dropped = true;
            }
            self.line.clear();
            self.line_overflow = true;
            return;
        }
        self.line.extend_from_slice(part);
    }

    fn line_done(&mut self, line: &[u8], out: &mut Vec<SseItem>) {
        if std::mem::take(&mut self.line_overflow) {
            return; // reported when it overflowed
        }
        if line.is_empty() {
            self.dispatch(out);
            return;
        }
        if line[0] == b':' {
            return; // a comment (keep-alive)
        }
        let (name, value) = match line.iter().position(|&b| b == b':') {
            Some(p) => {
                let v = &line[p + 1..];
                (&line[..p], v.strip_prefix(b" ").unwrap_or(v))
            }
            None => (line, &b""[..]),
        };
        match name {
            b"data" => {
                if self.data_dropped {
                    return;
                }
                if self.data.len() + value.len() + 1 > MAX_EVENT {
                    out.push(SseItem::Oddity(format!(
                        "an event's data is longer than {} MiB; dropped",
                        MAX_EVENT / (1024 * 1024)
                    )));
                    self.data.clear();
                    self.data_dropped = true;
                    return;
                }
                self.data.extend_from_slice(value);
                self.data.push(b'\n');
            }
            b"event" => self.event = self.text(value, "event", out),
            b"id" => {
                if !value.contains(&0) {
                    self.id = Some(self.text(value, "id", out));
                }
            }
            b"retry" => {
                if !value.is_empty() && value.iter().all(u8::is_ascii_digit) {
                    // All digits: parses unless absurdly long.
                    let ms = std::str::from_utf8(value)
                        .ok()
                        .and_then(|s| s.parse::<u64>().ok())
                        .unwrap_or(u64::MAX);
                    self.retry = Some(Duration::from_millis(ms));
                } else {
                    out.push(SseItem::Oddity(format!(
                        "`retry:` is not a number of milliseconds: {:?}; ignored",
                        String::from_utf8_lossy(&value[..value.len().min(80)])
                    )));
                }
            }
            _ => {
                let shown = String::from_utf8_lossy(&line[..line.len().min(200)]);
                let what = if line.contains(&b':') {
                    "an unknown field"
                } else {
                    "a line that is not a field (no colon)"
                };
                out.push(SseItem::Oddity(format!(
                    "the event stream has {what}: {shown:?}; ignored"
                )));
            }
        }
    }

    fn text(&self, v: &[u8], field: &str, out: &mut Vec<SseItem>) -> String {
        match std::str::from_utf8(v) {
            Ok(s) => s.to_string(),
            Err(_) => {
                out.push(SseItem::Oddity(format!(
                    "the `{field}:` field is not valid UTF-8; invalid bytes replaced"
                )));
                String::from_utf8_lossy(v).into_owned()
            }
        }
    }

    fn dispatch(&mut self, out: &mut Vec<SseItem>) {
        let id = self.id.take();
        if let Some(i) = &id {
            // An empty `id:` resets the last event id.
            self.last_id = (!i.is_empty()).then(|| i.clone());
        }
        let dropped = std::mem::take(&mut self.data_dropped);
        if self.data.is_empty() || dropped {
            self.data.clear();
            self.event.clear();
            return;
        }
        let mut data = std::mem::take(&mut self.data);
        data.pop(); // the last LF
        if data.is_empty() {
            // `data:` with nothing in it: a priming event, no message (a
            // browser would dispatch an empty message; MCP has none).
            self.event.clear();
            return;
        }
        let data = match String::from_utf8(data) {
            Ok(s) => s,
            Err(e) => {
                out.push(SseItem::Oddity(
                    "an event's data is not valid UTF-8; invalid bytes replaced with U+FFFD".into(),
                ));
                String::from_utf8_lossy(e.as_bytes()).into_owned()
            }
        };
        let event = if self.event.is_empty() {
            "message".to_string()
        } else {
            std::mem::take(&mut self.event)
        };
        self.event.clear();
        self.events += 1;
        out.push(SseItem::Event { event, data, id });
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn parse_chunks(chunks: &[&[u8]]) -> (Vec<SseItem>, SseParser) {
        let mut p = SseParser::new();
        let mut out = Vec::new();
        for c in chunks {
            p.feed(c, &mut out);
        }
        p.finish(&mut out);
        (out, p)
    }

    fn ev(event: &str, data: &str, id: Option<&str>) -> SseItem {
        SseItem::Event {
            event: event.into(),
            data: data.into(),
            id: id.map(str::to_string),
        }
    }

    #[test]
    fn spec_basics() {
        let (out, p) = parse_chunks(&[b"data: a\ndata:b\n\nevent: x\nid: 7\ndata: {}\n\n"]);
        assert_eq!(
            out,
            vec![ev("message", "a\nb", None), ev("x", "{}", Some("7"))]
        );
        assert_eq!(p.last_event_id(), Some("7"));
    }

    #[test]
    fn every_split_gives_the_same_events() {
        let text: &[u8] = b"\xEF\xBB\xBFid: e1\r\nretry: 250\r\n\r\n: keepalive\r\ndata: {\"a\":1}\r\n\r\nevent: message\rdata: two\r\rdata: x\n\n";
        let (whole, p) = parse_chunks(&[text]);
        assert_eq!(
            whole,
            vec![
                ev("message", "{\"a\":1}", None),
                ev("message", "two", None),
                ev("message", "x", None)
            ]
        );
        assert_eq!(p.retry(), Some(Duration::from_millis(250)));
        assert_eq!(p.last_event_id(), Some("e1"));
        for cut in 3..text.len() {
            let (split, _) = parse_chunks(&[&text[..cut], &text[cut..]]);
            assert_eq!(split, whole, "split at {cut}");
        }
        // One byte at a time (the BOM stays whole in the first chunk).
        let mut chunks: Vec<&[u8]> = vec![&text[..3]];
        chunks.extend(text[3..].chunks(1));
        let (bytes, _) = parse_chunks(&chunks);
        assert_eq!(bytes, whole);
    }

    #[test]
    fn priming_event_without_data_keeps_id_and_retry() {
        let (out, p) = parse_chunks(&[b"id: prime-1\nretry: 500\ndata:\n\n"]);
        assert!(out.is_empty());
        assert_eq!(p.last_event_id(), Some("prime-1"));
        assert_eq!(p.retry(), Some(Duration::from_millis(500)));
    }

    #[test]
    fn garbage_is_reported_not_fatal() {
        let (out, _) = parse_chunks(&[
            b"this is not a field\nretry: soon\ndata: \xff\xfe garbage\n\ndata: ok\n\n",
        ]);
        assert!(matches!(&out[0], SseItem::Oddity(m) if m.contains("no colon")));
        assert!(matches!(&out[1], SseItem::Oddity(m) if m.contains("retry")));
        assert!(matches!(&out[2], SseItem::Oddity(m) if m.contains("UTF-8")));
        assert!(matches!(&out[3], SseItem::Event { data, .. } if data.contains('\u{FFFD}')));
        assert_eq!(out[4], ev("message", "ok", None));
    }

    #[test]
    fn split_bom_resumed_connection_and_long_comment() {
        let (out, _) = parse_chunks(&[b"\xEF", b"\xBB\xBFdata: x\n\n"]);
        assert_eq!(out, vec![ev("message", "x", None)]);
        let mut p = SseParser::new();
        let mut out = Vec::new();
        p.feed(b"id: 1\nretry: 10000\n\ndata: half", &mut out);
        p.finish(&mut out);
        p.new_connection();
        p.feed(b"\xEF\xBB\xBFdata: whole\n\n", &mut out);
        assert!(matches!(&out[0], SseItem::Oddity(_)));
        assert_eq!(out[1], ev("message", "whole", None));
        assert_eq!(p.last_event_id(), Some("1"));
        assert_eq!(p.retry(), Some(Duration::from_secs(10)));
        // A truncated `retry:` at the end is not taken.
        let (_, p) = parse_chunks(&[b"retry: 10"]);
        assert_eq!(p.retry(), None);
        // An oversized comment drops only itself.
        let mut long = b"data: a\n:".to_vec();
        long.extend(std::iter::repeat_n(b'x', MAX_EVENT + 100));
        long.extend_from_slice(b"\n\n");
        let mut p = SseParser::new();
        let mut out = Vec::new();
        p.feed(&long, &mut out);
        assert!(out.contains(&ev("message", "a", None)), "{:?}", out.len());
    }

    #[test]
    fn unterminated_event_is_dropped_with_an_oddity() {
        let (out, _) = parse_chunks(&[b"data: half"]);
        assert_eq!(out.len(), 1);
        assert!(matches!(&out[0], SseItem::Oddity(m) if m.contains("ended inside an event")));
    }

    #[test]
    fn large_data_in_small_chunks() {
        let big = "x".repeat(3 * 1024 * 1024);
        let text = format!("data: {big}\n\n");
        let mut p = SseParser::new();
        let mut out = Vec::new();
        for c in text.as_bytes().chunks(4096) {
            p.feed(c, &mut out);
        }
        assert_eq!(out.len(), 1);
        assert!(matches!(&out[0], SseItem::Event { data, .. } if data.len() == big.len()));
    }
}
