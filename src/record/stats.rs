//! Latency statistics per server and method: count, p50, p95, p99, max
//! and errors. [`Latencies`] takes samples one by one (a recording here;
//! the TUI can feed it live); [`of_recording`] pairs a recording's
//! requests and responses by server, direction and id.
//!
//! The samples go into a bounded HDR-style [`Histogram`] per (server,
//! method), so a TUI session that runs for days keeps fixed memory, and
//! `mcpdeck stats` and the TUI agree. Percentiles are by the nearest rank,
//! never below the exact one and above it by less than 0.8 % (exact below
//! 256 µs); the maximum is exact.

use std::collections::{BTreeMap, HashMap};
use std::time::Duration;

use serde_json::{Value, json};

use super::histogram::Histogram;
use super::{Dir, Recording};

/// How a request ended.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Outcome {
    Ok,
    /// A JSON-RPC error response.
    Error,
    /// A result with `isError: true` (a tool that failed).
    ToolError,
}

#[derive(Debug, Default, Clone)]
struct Samples {
    micros: Histogram,
    errors: u64,
    tool_errors: u64,
    unanswered: u64,
}

/// Samples per (server, method).
#[derive(Debug, Default, Clone)]
pub struct Latencies {
    by: BTreeMap<(String, String), Samples>,
}

/// One row of statistics.
#[derive(Debug, Clone, PartialEq)]
pub struct Row {
    pub server: String,
    pub method: String,
    /// Answered requests.
    pub count: u64,
    pub p50: Duration,
    pub p95: Duration,
    pub p99: Duration,
    pub max: Duration,
    /// JSON-RPC error responses.
    pub errors: u64,
    /// Results with `isError: true`.
    pub tool_errors: u64,
    /// Requests the recording holds no answer to.
    pub unanswered: u64,
}

/// The exact nearest-rank percentile of sorted samples (the reference
/// the histogram is tested against).
pub fn percentile(sorted: &[u64], p: f64) -> u64 {
    if sorted.is_empty() {
        return 0;
    }
    let rank = ((p / 100.0) * sorted.len() as f64).ceil() as usize;
    sorted[rank.clamp(1, sorted.len()) - 1]
}

impl Latencies {
    pub fn add(&mut self, server: &str, method: &str, latency: Duration, outcome: Outcome) {
        let s = self
            .by
            .entry((server.to_string(), method.to_string()))
            .or_default();
        s.micros
            .record(u64::try_from(latency.as_micros()).unwrap_or(u64::MAX));
        match outcome {
            Outcome::Ok => {}
            Outcome::Error => s.errors += 1,
            Outcome::ToolError => s.tool_errors += 1,
        }
    }

    /// A request that got no answer.
    pub fn unanswered(&mut self, server: &str, method: &str) {
        self.by
            .entry((server.to_string(), method.to_string()))
            .or_default()
            .unanswered += 1;
    }

    /// Forget every sample.
    pub fn reset(&mut self) {
        self.by.clear();
    }

    /// Forget one server's samples.
    pub fn reset_server(&mut self, server: &str) {
        self.by.retain(|(s, _), _| s != server);
    }

    /// Keep only the servers `keep` says yes to.
    pub fn retain_servers(&mut self, mut keep: impl FnMut(&str) -> bool) {
        self.by.retain(|(s, _), _| keep(s));
    }

    /// Whether no request was counted.
    pub fn is_empty(&self) -> bool {
        self.by.is_empty()
    }

    /// The rows, by server then method.
    pub fn rows(&self) -> Vec<Row> {
        self.by
            .iter()
            .map(|((server, method), s)| row(server, method, s))
            .collect()
    }

    /// One server's rows, by method.
    pub fn server_rows(&self, server: &str) -> Vec<Row> {
        self.by
            .range((server.to_string(), String::new())..)
            .take_while(|((s, _), _)| s == server)
            .map(|((server, method), s)| row(server, method, s))
            .collect()
    }
}

fn row(server: &str, method: &str, s: &Samples) -> Row {
    let h = &s.micros;
    let us = |p| Duration::from_micros(h.percentile(p));
    Row {
        server: server.to_string(),
        method: method.to_string(),
        count: h.count(),
        p50: us(50.0),
        p95: us(95.0),
        p99: us(99.0),
        max: Duration::from_micros(h.max()),
        errors: s.errors,
        tool_errors: s.tool_errors,
        unanswered: s.unanswered,
    }
}

/// The statistics of a recording: each request paired with its response
/// by server, direction and id (requests the server sent to mcpdeck too,
/// under their method).
pub fn of_recording(rec: &Recording) -> Latencies {
    let mut lat = Latencies::default();
    // (server, request went out?, id) -> (method, t)
    let mut open: HashMap<(String, bool, String), (String, f64)> = HashMap::new();
    for e in &rec.entries {
        let Some(f) = &e.frame else { continue };
        let out = match e.dir {
            Dir::Send => true,
            Dir::Recv => false,
            Dir::Http => continue,
        };
        let Some(id) = f.get("id").filter(|i| !i.is_null()) else {
            continue;
        };
        let id = id.to_string();
        if let Some(m) = f.get("method").and_then(Value::as_str) {
            open.insert((e.server.clone(), out, id), (m.to_string(), e.t));
        } else if let Some((method, t0)) = open.remove(&(e.server.clone(), !out, id)) {
            let outcome = if f.get("error").is_some() {
                Outcome::Error
            } else if f.pointer("/result/isError") == Some(&Value::Bool(true)) {
                Outcome::ToolError
            } else {
                Outcome::Ok
            };
            // Times from a file: a negative or absurd difference is zero,
            // never a panic.
            let latency = Duration::try_from_secs_f64(e.t - t0).unwrap_or_default();
            lat.add(&e.server, &method, latency, outcome);
        }
    }
    for ((server, _, _), (method, _)) in open {
        lat.unanswered(&server, &method);
    }
    lat
}

fn ms(d: Duration) -> f64 {
    (d.as_secs_f64() * 1e6).round() / 1e3
}

/// The rows as JSON: `{"servers": {NAME: {METHOD: {count, p50_ms, …}}}}`.
pub fn to_json(rows: &[Row]) -> Value {
    let mut servers = serde_json::Map::new();
    for r in rows {
        let entry = servers
            .entry(r.server.clone())
            .or_insert_with(|| Value::Object(Default::default()));
        if let Value::Object(m) = entry {
            m.insert(
                r.method.clone(),
                json!({
                    "count": r.count,
                    "p50_ms": ms(r.p50),
                    "p95_ms": ms(r.p95),
                    "p99_ms": ms(r.p99),
                    "max_ms": ms(r.max),
                    "errors": r.errors,
                    "tool_errors": r.tool_errors,
                    "unanswered": r.unanswered,
                }),
            );
        }
    }
    json!({ "servers": servers })
}

/// The rows as a table for people.
pub fn to_text(rows: &[Row]) -> String {
    use std::fmt::Write;
    let wm = rows
        .iter()
        .map(|r| r.method.len())
        .max()
        .unwrap_or(6)
        .max(6);
    let mut t = String::new();
    let mut server = None;
    for r in rows {
        if server != Some(&r.server) {
            let _ = writeln!(t, "{}", crate::sanitize::one_line(&r.server));
            let _ = writeln!(
                t,
                "  {:<wm$} {:>6} {:>9} {:>9} {:>9} {:>9} {:>6} {:>7}",
                "method", "count", "p50 ms", "p95 ms", "p99 ms", "max ms", "errors", "isError"
            );
            server = Some(&r.server);
        }
        let _ = write!(
            t,
            "  {:<wm$} {:>6} {:>9.3} {:>9.3} {:>9.3} {:>9.3} {:>6} {:>7}",
            crate::sanitize::one_line(&r.method),
            r.count,
            ms(r.p50),
            ms(r.p95),
            ms(r.p99),
            ms(r.max),
            r.errors,
            r.tool_errors
        );
        if r.unanswered > 0 {
            let _ = write!(t, "  ({} unanswered)", r.unanswered);
        }
        t.push('\n');
    }
    t
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn nearest_rank_percentiles() {
        let v: Vec<u64> = (1..=100).collect();
        assert_eq!(percentile(&v, 50.0), 50);
        assert_eq!(percentile(&v, 95.0), 95);
        assert_eq!(percentile(&v, 99.0), 99);
        assert_eq!(percentile(&[7], 99.0), 7);
        assert_eq!(percentile(&[], 50.0), 0);
        assert_eq!(percentile(&[1, 2], 50.0), 1);
    }

    #[test]
    fn absurd_recorded_times_are_counted_not_a_panic() {
        let text = r#"{"mcpdeck_recording":1,"servers":[]}
{"t":-1e308,"server":"a","dir":"send","frame":{"jsonrpc":"2.0","id":1,"method":"ping"}}
{"t":1e308,"server":"a","dir":"recv","frame":{"jsonrpc":"2.0","id":1,"result":{}}}
{"t":5,"server":"a","dir":"send","frame":{"jsonrpc":"2.0","id":2,"method":"ping"}}
{"t":1,"server":"a","dir":"recv","frame":{"jsonrpc":"2.0","id":2,"result":{}}}
"#;
        let rec = Recording::read(std::path::Path::new("r"), text.as_bytes()).unwrap();
        let rows = of_recording(&rec).rows();
        assert_eq!(rows.len(), 1);
        assert_eq!(rows[0].count, 2);
    }

    #[test]
    fn requests_pair_with_responses_by_server_and_id() {
        let text = r#"{"mcpdeck_recording":1,"servers":[]}
{"t":0.0,"server":"a","dir":"send","frame":{"jsonrpc":"2.0","id":1,"method":"tools/call","params":{}}}
{"t":0.0,"server":"b","dir":"send","frame":{"jsonrpc":"2.0","id":1,"method":"tools/list"}}
{"t":0.010,"server":"a","dir":"recv","frame":{"jsonrpc":"2.0","id":1,"result":{"isError":true,"content":[]}}}
{"t":0.5,"server":"b","dir":"recv","frame":{"jsonrpc":"2.0","id":1,"error":{"code":-1,"message":"x"}}}
{"t":0.6,"server":"a","dir":"send","frame":{"jsonrpc":"2.0","id":2,"method":"tools/call","params":{}}}
{"t":0.6,"server":"a","dir":"recv","frame":{"jsonrpc":"2.0","id":9,"method":"roots/list"}}
{"t":0.7,"server":"a","dir":"send","frame":{"jsonrpc":"2.0","id":9,"result":{"roots":[]}}}
"#;
        let rec = Recording::read(std::path::Path::new("r"), text.as_bytes()).unwrap();
        let rows = of_recording(&rec).rows();
        let row = |s: &str, m: &str| {
            rows.iter()
                .find(|r| r.server == s && r.method == m)
                .unwrap()
        };
        let call = row("a", "tools/call");
        assert_eq!((call.count, call.tool_errors, call.unanswered), (1, 1, 1));
        assert_eq!(call.max, Duration::from_millis(10));
        let list = row("b", "tools/list");
        assert_eq!((list.count, list.errors), (1, 1));
        assert_eq!(row("a", "roots/list").count, 1);
        let j = to_json(&rows);
        assert_eq!(j["servers"]["b"]["tools/list"]["p50_ms"], 500.0);
    }

    #[test]
    fn rows_of_one_server_and_resets() {
        let mut lat = Latencies::default();
        let ms = Duration::from_millis;
        lat.add("a", "tools/call", ms(3), Outcome::Ok);
        lat.add("ab", "ping", ms(1), Outcome::Ok);
        lat.add("a", "ping", ms(2), Outcome::Error);
        lat.add("b", "tools/list", ms(4), Outcome::ToolError);
        let names = |rows: Vec<Row>| -> Vec<(String, String)> {
            rows.into_iter().map(|r| (r.server, r.method)).collect()
        };
        let pair = |s: &str, m: &str| (s.to_string(), m.to_string());
        assert_eq!(
            names(lat.server_rows("a")),
            [pair("a", "ping"), pair("a", "tools/call")]
        );
        assert!(lat.server_rows("c").is_empty());
        lat.reset_server("a");
        assert!(lat.server_rows("a").is_empty());
        assert_eq!(lat.rows().len(), 2, "other servers keep theirs");
        lat.retain_servers(|s| s == "b");
        assert_eq!(names(lat.rows()), [pair("b", "tools/list")]);
        lat.reset();
        assert!(lat.is_empty());
    }
}
