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
use super::negotiate::Negotiation::{Fail, Legacy, Restart};

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
        let session =
            Session::open(spec, frames.clone(), events.clone(), legacy_first, deadline).await?;
        let outcome =
            tokio::time::timeout_at(deadline.into(), session.negotiate(spec, started)).await;
        let (legacy, detection) = match outcome {
            Ok(Ok(n)) => {
                session.set_negotiated(n);
                return Ok(session);
            }
            // The server exited on the probe: start it again, straight into initialize.
            Ok(Err(Restart(detection))) => (false, detection),
            // The endpoint refused streamable HTTP: try legacy HTTP+SSE.
            Ok(Err(Legacy(detection))) => (true, detection),
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
        };
        session.close().await;
        let fresh = Session::open(spec, frames, events, legacy, deadline).await?;
        let r =
            tokio::time::timeout_at(deadline.into(), fresh.initialize(None, detection, started))
                .await;
        match r {
            Ok(Ok(n)) => {
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
            request_timeout: spec.request_timeout,
            client: spec.client.clone(),
            legacy_fallback,
            reinit: tokio::sync::Mutex::new(()),
            log_level: RwLock::new(None),
            subscriptions: Mutex::new((std::collections::BTreeSet::new(), None)),
            open_asks: std::sync::atomic::AtomicUsize::new(0),
            listen_lock: tokio::sync::Mutex::new(()),
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
