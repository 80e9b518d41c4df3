//! The exporter: finished spans are queued (bounded), batched and sent
//! as OTLP/HTTP protobuf by mcpdeck's own reqwest (so the binary holds one
//! HTTP and one TLS stack), on a small runtime on a thread of its own. The
//! sessions' runtime (and the UI) never waits for the collector, and the
//! last spans can still go out after that runtime has stopped.
//!
//! Batching follows the OpenTelemetry batch span processor and its
//! variables: a batch goes out `OTEL_BSP_SCHEDULE_DELAY` ms (5,000) after
//! its first span, or at once when it holds `OTEL_BSP_MAX_EXPORT_BATCH_SIZE`
//! spans (512); at most `OTEL_BSP_MAX_QUEUE_SIZE` spans wait in the queue
//! (2,048; at most 2^20), and more are dropped (with the one warning).
//! Idle, the thread sleeps on its queue: no timer runs (the connection pool
//! keeps no idle timer either).

use std::time::Duration;

use reqwest::header::{CONTENT_TYPE, HeaderMap, HeaderName, HeaderValue};
use tokio::sync::mpsc;

use super::otlp::{Attr, SpanData, export_request};

/// The largest queue `OTEL_BSP_MAX_QUEUE_SIZE` may ask for.
const MAX_QUEUE: u64 = 1 << 20;

/// The exporter's timeout when no variable sets one (the OTel default).
const DEFAULT_TIMEOUT: Duration = Duration::from_secs(10);

/// What the export thread is asked.
enum Msg {
    Span(Box<SpanData>),
    /// Send everything queued, then say so.
    Flush(std::sync::mpsc::Sender<()>),
}

/// The batching limits (see the module's documentation).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
struct Batching {
    delay: Duration,
    queue: usize,
    batch: usize,
}

impl Batching {
    fn from_env(env: &dyn Fn(&str) -> Option<String>) -> Batching {
        let num = |k: &str| {
            env(k)
                .and_then(|v| v.trim().parse::<u64>().ok())
                .filter(|n| *n > 0)
        };
        // Bounded: the channel's own limit is far above, and a queue
        // larger than this only holds memory.
        let queue = num("OTEL_BSP_MAX_QUEUE_SIZE").map_or(2048, |n| n.min(MAX_QUEUE) as usize);
        Batching {
            delay: Duration::from_millis(num("OTEL_BSP_SCHEDULE_DELAY").unwrap_or(5000)),
            queue,
            // A batch is never larger than the queue.
            batch: num("OTEL_BSP_MAX_EXPORT_BATCH_SIZE")
                .map_or(512, |n| n as usize)
                .min(queue),
        }
    }
}

/// `OTEL_EXPORTER_OTLP_TRACES_TIMEOUT`, else `OTEL_EXPORTER_OTLP_TIMEOUT`
/// (milliseconds), else 10 s.
fn timeout(env: &dyn Fn(&str) -> Option<String>) -> Duration {
    [
        "OTEL_EXPORTER_OTLP_TRACES_TIMEOUT",
        "OTEL_EXPORTER_OTLP_TIMEOUT",
    ]
    .iter()
    .find_map(|k| env(k)?.trim().parse::<u64>().ok())
    .map_or(DEFAULT_TIMEOUT, Duration::from_millis)
}

/// The headers of `OTEL_EXPORTER_OTLP_HEADERS`, then those of
/// `OTEL_EXPORTER_OTLP_TRACES_HEADERS` over them: `key=value` pairs split
/// by commas, values percent-decoded. A pair that is not a valid header is
/// skipped and named by its place in the list only: values are often
/// secrets, and an unescaped comma in one makes its tail look like a pair.
fn headers(env: &dyn Fn(&str) -> Option<String>) -> (HeaderMap, Vec<String>) {
    let mut map = HeaderMap::new();
    let mut skipped = Vec::new();
    for var in [
        "OTEL_EXPORTER_OTLP_HEADERS",
        "OTEL_EXPORTER_OTLP_TRACES_HEADERS",
    ] {
        let Some(list) = env(var) else { continue };
        for (n, pair) in list.split(',').enumerate() {
            if pair.trim().is_empty() {
                continue;
            }
            let place = format!("entry {} of {var}", n + 1);
            let Some((key, value)) = pair.split_once('=') else {
                skipped.push(place);
                continue;
            };
            let key = key.trim();
            let value = crate::text::percent_decode(value.trim());
            match (
                HeaderName::from_bytes(key.as_bytes()),
                HeaderValue::from_str(&value),
            ) {
                (Ok(name), Ok(mut v)) => {
                    v.set_sensitive(true);
                    map.insert(name, v);
                }
                _ => skipped.push(place),
            }
        }
    }
    (map, skipped)
}

/// The queue into the export thread.
#[derive(Debug)]
pub(super) struct Exporter {
    tx: mpsc::Sender<Msg>,
}

impl std::fmt::Debug for Msg {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self {
            Msg::Span(s) => write!(f, "Span({})", s.name),
            Msg::Flush(_) => f.write_str("Flush"),
        }
    }
}

/// What the export loop needs.
struct Target {
    client: reqwest::Client,
    endpoint: String,
    shown: String,
    resource: Vec<Attr>,
}

impl Exporter {
    /// Start the export thread for `endpoint`; `resource` goes with every
    /// batch.
    pub(super) fn start(endpoint: &str, resource: Vec<Attr>) -> Result<Self, String> {
        let env = |k: &str| std::env::var(k).ok();
        let shown = crate::mcp::netlog::shown_url(endpoint);
        let _ = rustls::crypto::ring::default_provider().install_default();
        let (mut extra, skipped) = headers(&env);
        if !skipped.is_empty() {
            // A setting to fix, said at start (not the one export warning,
            // which stays for a collector that fails).
            super::config_warning(format!(
                "telemetry: {} not a valid HTTP header (`key=value`, the value percent-encoded) and not sent",
                match skipped.as_slice() {
                    [one] => format!("{one} is"),
                    many => format!("{} are", many.join(", ")),
                }
            ));
        }
        extra.insert(
            CONTENT_TYPE,
            HeaderValue::from_static("application/x-protobuf"),
        );
        let client = reqwest::Client::builder()
            .user_agent(concat!("mcpdeck/", env!("CARGO_PKG_VERSION")))
            .default_headers(extra)
            .timeout(timeout(&env))
            // No idle-connection timer: an idle mcpdeck wakes for nothing.
            // A connection the collector closed meanwhile is noticed (and
            // the request retried) when the next batch goes out.
            .pool_idle_timeout(None)
            .build()
            .map_err(|e| format!("telemetry: cannot build the HTTP client for {shown}: {e}"))?;
        let batching = Batching::from_env(&env);
        let (tx, rx) = mpsc::channel(batching.queue);
        let target = Target {
            client,
            endpoint: endpoint.to_string(),
            shown,
            resource,
        };
        let (ready_tx, ready_rx) = std::sync::mpsc::channel();
        std::thread::Builder::new()
            .name("mcpdeck-otel".into())
            .spawn(move || {
                match tokio::runtime::Builder::new_current_thread()
                    .enable_all()
                    .build()
                {
                    Ok(rt) => {
                        let _ = ready_tx.send(Ok(()));
                        rt.block_on(run(rx, batching, target));
                    }
                    Err(e) => {
                        let _ = ready_tx.send(Err(e.to_string()));
                    }
                }
            })
            .map_err(|e| format!("telemetry: cannot start the export thread: {e}"))?;
        ready_rx
            .recv()
            .map_err(|_| "telemetry: the export thread stopped at once".to_string())?
            .map_err(|e| format!("telemetry: cannot start the export runtime: {e}"))?;
        Ok(Exporter { tx })
    }

    /// Queue a finished span; never waits. A full queue drops it.
    pub(super) fn send(&self, span: SpanData) {
        if let Err(mpsc::error::TrySendError::Full(_)) = self.tx.try_send(Msg::Span(Box::new(span)))
        {
            super::warn_once(format!(
                "telemetry: more than {} spans wait for the collector; spans are dropped (this is said once)",
                self.tx.max_capacity()
            ));
        }
    }

    /// Send everything queued; returns once it is sent (or failed), or
    /// when `limit` is up (`false`). Blocks: call it off the runtimes.
    pub(super) fn flush(&self, limit: Duration) -> bool {
        let (done_tx, done_rx) = std::sync::mpsc::channel();
        let tx = self.tx.clone();
        let deadline = std::time::Instant::now() + limit;
        // The queue may be full: wait for room on a thread of its own.
        let queued = std::thread::Builder::new()
            .name("mcpdeck-otel-flush".into())
            .spawn(move || tx.blocking_send(Msg::Flush(done_tx)).is_ok());
        if queued.is_err() {
            return false;
        }
        done_rx
            .recv_timeout(deadline.saturating_duration_since(std::time::Instant::now()))
            .is_ok()
    }
}

/// The export thread's loop.
async fn run(mut rx: mpsc::Receiver<Msg>, batching: Batching, target: Target) {
    let mut batch: Vec<SpanData> = Vec::new();
    let mut due: Option<tokio::time::Instant> = None;
    loop {
        let msg = match due {
            Some(at) => tokio::select! {
                m = rx.recv() => m,
                () = tokio::time::sleep_until(at) => {
                    export(&target, &mut batch).await;
                    due = None;
                    continue;
                }
            },
            None => rx.recv().await,
        };
        match msg {
            Some(Msg::Span(span)) => {
                batch.push(*span);
                if batch.len() >= batching.batch {
                    export(&target, &mut batch).await;
                    due = None;
                } else if due.is_none() {
                    due = Some(tokio::time::Instant::now() + batching.delay);
                }
            }
            Some(Msg::Flush(done)) => {
                // What was queued before the flush is in `batch` now.
                while !batch.is_empty() {
                    let rest = batch.split_off(batch.len().min(batching.batch));
                    export(&target, &mut batch).await;
                    batch = rest;
                }
                due = None;
                let _ = done.send(());
            }
            None => {
                export(&target, &mut batch).await;
                return;
            }
        }
    }
}

/// POST the batch (emptied either way); a failure is the one warning.
async fn export(target: &Target, batch: &mut Vec<SpanData>) {
    if batch.is_empty() {
        return;
    }
    let body = export_request(&target.resource, "mcpdeck", batch);
    batch.clear();
    let shown = &target.shown;
    match target
        .client
        .post(target.endpoint.as_str())
        .body(body)
        .send()
        .await
    {
        Err(e) => {
            let e = e.without_url();
            super::warn_once(format!(
                "telemetry: cannot send spans to {shown}: {}; spans are dropped (this is said once)",
                crate::mcp::transport::http::error_chain(&e)
            ));
        }
        Ok(response) => {
            let status = response.status();
            if !status.is_success() {
                super::warn_once(format!(
                    "telemetry: the collector at {shown} answered HTTP {status}; spans are dropped (this is said once)"
                ));
            }
            // Read the (small) answer so the connection can be reused.
            let _ = response.bytes().await;
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::telemetry::tests::env;

    #[test]
    fn headers_merge_the_traces_variable_over_the_general_one() {
        let (map, skipped) = headers(&env(&[
            ("OTEL_EXPORTER_OTLP_HEADERS", "a=1, b = two%20words ,c=x"),
            (
                "OTEL_EXPORTER_OTLP_TRACES_HEADERS",
                "c=y,bad header=z,novalue",
            ),
        ]));
        assert_eq!(map["a"], "1");
        assert_eq!(map["b"], "two words");
        assert_eq!(map["c"], "y");
        assert!(map["a"].is_sensitive());
        assert_eq!(map.len(), 3);
        assert_eq!(
            skipped,
            [
                "entry 2 of OTEL_EXPORTER_OTLP_TRACES_HEADERS",
                "entry 3 of OTEL_EXPORTER_OTLP_TRACES_HEADERS"
            ]
        );
        // The tail of a value with an unescaped comma is named by place,
        // never shown.
        let (_, skipped) = headers(&env(&[(
            "OTEL_EXPORTER_OTLP_HEADERS",
            "authorization=Basic ab,c/d==",
        )]));
        assert_eq!(skipped, ["entry 2 of OTEL_EXPORTER_OTLP_HEADERS"]);
    }

    #[test]
    fn batching_and_timeout_follow_the_variables() {
        assert_eq!(
            Batching::from_env(&env(&[])),
            Batching {
                delay: Duration::from_secs(5),
                queue: 2048,
                batch: 512
            }
        );
        assert_eq!(
            Batching::from_env(&env(&[
                ("OTEL_BSP_SCHEDULE_DELAY", "100"),
                ("OTEL_BSP_MAX_QUEUE_SIZE", "10"),
                ("OTEL_BSP_MAX_EXPORT_BATCH_SIZE", "50"),
            ])),
            Batching {
                delay: Duration::from_millis(100),
                queue: 10,
                batch: 10
            }
        );
        // Zero or junk: the default.
        assert_eq!(
            Batching::from_env(&env(&[("OTEL_BSP_MAX_QUEUE_SIZE", "0")])).queue,
            2048
        );
        // Huge: bounded (tokio's channel would panic past usize::MAX >> 3).
        assert_eq!(
            Batching::from_env(&env(&[("OTEL_BSP_MAX_QUEUE_SIZE", "10000000000000000000")])).queue,
            1 << 20
        );
        assert_eq!(timeout(&env(&[])), DEFAULT_TIMEOUT);
        assert_eq!(
            timeout(&env(&[
                ("OTEL_EXPORTER_OTLP_TIMEOUT", "300"),
                ("OTEL_EXPORTER_OTLP_TRACES_TIMEOUT", "200")
            ])),
            Duration::from_millis(200)
        );
    }
}
