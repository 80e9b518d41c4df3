//! What a headless run (a CLI command, `mcpdeck serve`) tells on stderr of
//! the servers it starts: with `--trace`, every raw frame, with time,
//! server and direction, and each HTTP exchange as it ends (secrets masked
//! by the net log); and, always, the servers whose TLS certificates are not
//! verified. (The TUI shows both on its screen.)
//!
//! The taps run on the sessions' reader and writer paths: they only format
//! the line and queue it on a [`LineWriter`], whose own thread writes
//! stderr. Stderr piped into a program that does not read it never holds up
//! the runtime; lines that do not fit are dropped and counted ("… N trace
//! lines dropped (stderr was not being read)"), and at exit what is queued
//! is written within a bounded wait.
//!
//! `--record FILE` taps the same logs (see [`crate::record`]).

use std::fmt::Write as _;
use std::sync::Arc;

use crate::config::{ServerConfig, Settings, TransportConfig};
use crate::mcp::framelog::FrameLog;
use crate::record::Recorder;
use crate::sanitize;
use crate::startup::LineWriter;

/// Say on stderr when TLS verification is off for a server.
pub fn warn_insecure(servers: &[ServerConfig]) {
    for s in servers {
        if s.enabled
            && let TransportConfig::Http { insecure: true, .. } = &s.transport
        {
            eprintln!(
                "mcpdeck: warning: TLS certificates are not verified for server {:?} (insecure = true)",
                s.name
            );
        }
    }
}

/// The frame log, with a `--trace` tap that prints every frame to stderr,
/// and the `--record` tap when recording (`servers` are named in the
/// recording).
pub fn frame_log(settings: &Settings, trace: bool, servers: &[ServerConfig]) -> Arc<FrameLog> {
    let log = FrameLog::new(settings.frame_log);
    crate::telemetry::attach(servers);
    let recording = Recorder::current().is_some();
    if recording {
        Recorder::global().attach(servers);
    }
    if !trace {
        if !recording {
            return Arc::new(log);
        }
        let log = log.with_tap(Box::new(crate::record::frame_tap));
        log.net().set_tap(Box::new(crate::record::exchange_tap));
        return Arc::new(log);
    }
    let out = LineWriter::start(
        Box::new(std::io::stderr()),
        "trace lines",
        "stderr was not being read",
    );
    let frames = out.clone();
    let log = log.with_tap(Box::new(move |frame, raw| {
        let line = format!(
            "[{:>9.3}] {} {} {}\n",
            frame.elapsed.as_secs_f64(),
            sanitize::one_line(&frame.server),
            frame.dir.arrow(),
            sanitize::one_line(raw)
        );
        frames.write(line.into_bytes());
        crate::record::frame_tap(frame, raw);
    }));
    // HTTP exchanges too: method, status, what it carried, timing and the
    // headers (secrets masked by the net log).
    log.net().set_tap(Box::new(move |e| {
        let outcome = match (&e.error, e.status) {
            (Some(x), _) => format!("failed: {}", sanitize::one_line(x)),
            (None, Some(s)) => s.to_string(),
            (None, None) => "-".into(),
        };
        let total = e.total.map(crate::text::fmt_duration).unwrap_or_default();
        let mut text = format!(
            "[{:>9.3}] {} HTTP {} {} {} -> {outcome} ({total}, {} B)\n",
            e.elapsed.as_secs_f64(),
            sanitize::one_line(&e.server),
            e.http_method,
            sanitize::one_line(&e.url),
            sanitize::one_line(&e.label),
            e.bytes,
        );
        for (k, v) in &e.request_headers {
            let _ = writeln!(
                text,
                "            > {}: {}",
                sanitize::one_line(k),
                sanitize::one_line(v)
            );
        }
        for (k, v) in &e.response_headers {
            let _ = writeln!(
                text,
                "            < {}: {}",
                sanitize::one_line(k),
                sanitize::one_line(v)
            );
        }
        out.write(text.into_bytes());
        crate::record::exchange_tap(e);
    }));
    Arc::new(log)
}
