//! `--trace`: every raw frame, with time, server and direction, and each
//! HTTP exchange as it ends (secrets masked by the net log), on stderr.

use std::io::Write;
use std::sync::Arc;

use crate::config::Settings;
use crate::mcp::framelog::FrameLog;
use crate::sanitize;

/// The frame log, with a `--trace` tap that prints every frame to stderr.
pub fn frame_log(settings: &Settings, trace: bool) -> Arc<FrameLog> {
    let log = FrameLog::new(settings.frame_log);
    let log = if trace {
        log.with_tap(Box::new(|frame, raw| {
            let mut err = std::io::stderr().lock();
            let _ = writeln!(
                err,
                "[{:>9.3}] {} {} {}",
                frame.elapsed.as_secs_f64(),
                sanitize::one_line(&frame.server),
                frame.dir.arrow(),
                sanitize::one_line(raw)
            );
        }))
    } else {
        log
    };
    if trace {
        // HTTP exchanges too: method, status, what it carried, timing and
        // the headers (secrets masked by the net log).
        log.net().set_tap(Box::new(|e| {
            let mut err = std::io::stderr().lock();
            let outcome = match (&e.error, e.status) {
                (Some(x), _) => format!("failed: {}", sanitize::one_line(x)),
                (None, Some(s)) => s.to_string(),
                (None, None) => "-".into(),
            };
            let total = e.total.map(crate::text::fmt_duration).unwrap_or_default();
            let _ = writeln!(
                err,
                "[{:>9.3}] {} HTTP {} {} {} -> {outcome} ({total}, {} B)",
                e.elapsed.as_secs_f64(),
                sanitize::one_line(&e.server),
                e.http_method,
                sanitize::one_line(&e.url),
                sanitize::one_line(&e.label),
                e.bytes,
            );
            for (k, v) in &e.request_headers {
                let _ = writeln!(
                    err,
                    "            > {}: {}",
                    sanitize::one_line(k),
                    sanitize::one_line(v)
                );
            }
            for (k, v) in &e.response_headers {
                let _ = writeln!(
                    err,
                    "            < {}: {}",
                    sanitize::one_line(k),
                    sanitize::one_line(v)
                );
            }
        }));
    }
    Arc::new(log)
}
