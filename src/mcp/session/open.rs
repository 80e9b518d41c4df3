//! Opening a session: starting or reaching the transport, then negotiating.

use std::collections::HashMap;
use std::sync::atomic::{AtomicI64, Ordering};
use std::sync::{Arc, Mutex, RwLock, Weak};
use std::time::{Duration, Instant};

use tokio::sync::mpsc;

use crate::mcp::framelog::FrameLog;
use crate::mcp::transport::OpenError;
use crate::mcp::transport::http::{HttpKind, HttpTransport};
use crate::mcp::transport::legacy::LegacySseTransport;
use crate::mcp::transport::{Inbound, Reader, StdioTransport, Transport};

use super::handle::*;
use super::model::*;
use super::negotiate::Negotiation::{Fail, Legacy, Redetect, Restart};
use crate::mcp::transport::StdioSpec;
use crate::mcp::types::Era;

impl Session {
    /// Start (or reach) the server and negotiate the era.
    pub async fn connect(
        spec: &SessionSpec,
        frames: Arc<FrameLog>,
        events: EventSink,
    ) -> Result<Session, ConnectError> {
        let started = Instant::now();
        let deadline = started
            .checked_add(spec.connect_timeout)
            .unwrap_or_else(|| started + Duration::from_secs(100 * 365 * 24 * 3600));
        let legacy_first =
            matches!(&spec.transport, TransportSpec::Http(h) if h.kind == HttpKind::Sse);
        // A stdio server detected as initialize-era before, and remembered.
        let memory = match (&spec.transport, &spec.pin) {
            (TransportSpec::Stdio(stdio), Pin::Auto) => {
                spec.era_memory.as_ref().map(|m| (m.clone(), stdio))
            }
            _ => None,
        };
        let mut recalled = memory.as_ref().and_then(|(m, stdio)| m.recall(stdio));
        let mut redetected: Option<String> = None;
        let mut session =
            Session::open(spec, frames.clone(), events.clone(), legacy_first, deadline).await?;
        let (legacy, detection) = loop {
            let outcome = tokio::time::timeout_at(
                deadline.into(),
                session.negotiate(spec, recalled.as_ref(), started),
            )
            .await;
            if let Some((m, stdio)) = &memory {
                let initialize_era = matches!(&outcome, Ok(Ok(n)) if n.era == Era::Initialize);
                match &outcome {
                    // Found by probing: remember it (off the runtime's threads).
                    Ok(Ok(n)) if initialize_era && recalled.is_none() => {
                        remember(m, stdio, n);
                    }
                    Ok(Ok(_)) if initialize_era => {}
                    Ok(Err(Restart(_))) => {}
                    // Stateless now, or failed: probe next time.
                    _ if recalled.is_some() => {
                        let (m, stdio) = (m.clone(), (*stdio).clone());
                        tokio::task::spawn_blocking(move || m.forget(&stdio));
                    }
                    _ => {}
                }
            }
            match outcome {
                Ok(Ok(mut n)) => {
                    if let Some(why) = redetected {
                        n.detection = format!("{why}; probed again: {}", n.detection);
                    }
                    session.set_negotiated(n);
                    return Ok(session);
                }
                // The remembered era no longer holds: a new process, probed.
                Ok(Err(Redetect(why))) => {
                    session.close().await;
                    recalled = None;
                    redetected = Some(why);
                    session = Session::open(spec, frames.clone(), events.clone(), false, deadline)
                        .await?;
                }
                // The server exited on the probe: start it again, straight into initialize.
                Ok(Err(Restart(detection))) => break (false, detection),
                // The endpoint refused streamable HTTP: try legacy HTTP+SSE.
                Ok(Err(Legacy(detection))) => break (true, detection),
                Ok(Err(Fail(mut e))) => {
                    session.close().await;
                    if let ConnectError::Timeout { stderr_tail, .. }
                    | ConnectError::Handshake { stderr_tail, .. }
                    | ConnectError::Request { stderr_tail, .. } = &mut e
                        && stderr_tail.is_empty()
                    {
                        *stderr_tail = session.stderr_tail(20);
                    }
                    return Err(e);
                }
                Err(_) => {
                    let e = session.timeout_error(spec, "the handshake");
                    session.close().await;
                    return Err(e);
                }
            }
        };
        session.close().await;
        let fresh = Session::open(spec, frames, events, legacy, deadline).await?;
        let r =
            tokio::time::timeout_at(deadline.into(), fresh.initialize(None, detection, started))
                .await;
        match r {
            Ok(Ok(n)) => {
                // It exits on the probe: remembering it saves a restart.
                if let Some((m, stdio)) = &memory {
                    remember(m, stdio, &n);
                }
                fresh.set_negotiated(n);
                Ok(fresh)
            }
            Ok(Err(e)) => {
                fresh.close().await;
                Err(fresh.connect_error(e))
            }
            Err(_) => {
                let e = fresh.timeout_error(spec, "initialize");
                fresh.close().await;
                Err(e)
            }
        }
    }

    /// Start the process, or set up the HTTP client (for legacy HTTP+SSE:
    /// open the stream and wait for its endpoint).
    pub(super) async fn open(
        spec: &SessionSpec,
        frames: Arc<FrameLog>,
        events: EventSink,
        legacy: bool,
        deadline: Instant,
    ) -> Result<Session, ConnectError> {
        let mut err_rx = None;
        let mut legacy_fallback = false;
        let (transport, reader) = match &spec.transport {
            TransportSpec::Stdio(stdio) => {
                let (err_tx, rx) = mpsc::channel::<String>(1024);
                err_rx = Some(rx);
                let (t, r) = StdioTransport::spawn(stdio, Some(err_tx)).map_err(|e| {
                    let hint = if e.kind() == std::io::ErrorKind::NotFound {
                        "; check `command` in the config, or that it is on PATH"
                    } else {
                        ""
                    };
                    ConnectError::Spawn {
                        message: format!("could not start `{}`: {e}{hint}", stdio.display()),
                    }
                })?;
                (Transport::Stdio(t), Reader::Stdio(r))
            }
            TransportSpec::Http(http) if legacy => {
                let wait = deadline.saturating_duration_since(Instant::now());
                let (t, r) =
                    LegacySseTransport::open(http, spec.name.clone(), frames.net().clone(), wait)
                        .await
                        .map_err(|e| match e {
                            OpenError::Config(m) => ConnectError::Config(m),
                            OpenError::Http(f) => ConnectError::Open(f),
                        })?;
                (Transport::LegacySse(t), Reader::Channel(r))
            }
            TransportSpec::Http(http) => {
                legacy_fallback = http.kind == HttpKind::Auto;
                let (t, r) = HttpTransport::open(http, spec.name.clone(), frames.net().clone())
                    .map_err(|e| match e {
                        OpenError::Config(m) => ConnectError::Config(m),
                        OpenError::Http(f) => ConnectError::Open(f),
                    })?;
                (Transport::Http(t), Reader::Channel(r))
            }
        };
        let inner = Arc::new(Inner {
            id: SESSION_IDS.fetch_add(1, Ordering::Relaxed),
            name: spec.name.clone(),
            transport,
            pending: Mutex::new(HashMap::new()),
            next_id: AtomicI64::new(1),
            negotiated: RwLock::new(None),
            wire: RwLock::new(None),
            frames,
            findings: Mutex::new(Vec::new()),
            events,
            closed: Mutex::new(None),
            closed_signal: tokio::sync::watch::Sender::new(false),
            closing: std::sync::atomic::AtomicBool::new(false),
            request_timeout: spec.request_timeout,
            client: spec.client.clone(),
            legacy_fallback,
            reinit: tokio::sync::Mutex::new(()),
            log_level: RwLock::new(None),
            subscriptions: Mutex::new((std::collections::BTreeSet::new(), None)),
            open_asks: std::sync::atomic::AtomicUsize::new(0),
            asking: Default::default(),
            related: std::sync::atomic::AtomicI64::new(-1),
            listen_lock: tokio::sync::Mutex::new(()),
            discover_hint: std::sync::Mutex::new(None),
            write_lock: tokio::sync::Mutex::new(()),
            sweeper: Arc::new(Sweeper::default()),
        });
        tokio::spawn(super::deadline::sweep(
            Arc::downgrade(&inner),
            inner.sweeper.clone(),
        ));
        // stderr lines become events.
        if let Some(mut err_rx) = err_rx {
            let tag = (inner.id, inner.name.clone(), inner.events.clone());
            tokio::spawn(async move {
                while let Some(line) = err_rx.recv().await {
                    (tag.2)(Tagged {
                        session: tag.0,
                        server: tag.1.clone(),
                        event: SessionEvent::Stderr(line),
                    });
                }
            });
        }
        // The reader holds only a weak handle, so dropping every Session
        // handle shuts the server down.
        let weak: Weak<Inner> = Arc::downgrade(&inner);
        let mut inbound = reader;
        tokio::spawn(async move {
            while let Some(item) = inbound.next().await {
                let Some(inner) = weak.upgrade() else { break };
                let last = matches!(item, Inbound::Closed { .. });
                inner.handle_inbound(item).await;
                if last {
                    break;
                }
            }
        });
        Ok(Session { inner })
    }
}

/// Remember that the server `stdio` starts speaks the initialize era, in a
/// blocking task (the file is written and renamed; the answer need not
/// wait for it).
fn remember(memory: &Arc<super::memory::EraMemory>, stdio: &StdioSpec, n: &Negotiated) {
    let (m, stdio) = (memory.clone(), stdio.clone());
    let (version, found) = (n.version.clone(), n.detection.clone());
    tokio::task::spawn_blocking(move || m.remember(&stdio, &version, &found));
}
