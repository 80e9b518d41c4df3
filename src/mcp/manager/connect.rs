//! Connecting a server: the attempt in the background (cancellable, panics
//! caught), and what its result does to the server's slot.

use std::sync::Arc;

use crate::mcp::session::{ConnectError, Lists, Session};

use super::model::*;
use super::spec::session_spec;
use super::task::*;

impl Task {
    /// Begin connecting (or mark disabled) without waiting.
    pub(super) fn start_connect(&mut self, name: &str) {
        let Some(generation) = self.reset(name) else {
            return;
        };
        let Some(slot) = self.slot(name) else { return };
        if !slot.config.enabled {
            self.set_status(name, ServerStatus::Disabled);
            return;
        }
        // A `${VAR}` of its table is not set: it fails at once, saying
        // which and where (nothing is started with the reference as
        // written). An edit of the config that fixes it reconnects it.
        if let Some(why) = slot.config.unresolved() {
            self.set_status(name, ServerStatus::Failed(ConnectError::Config(why)));
            return;
        }
        let config = slot.config.clone();
        // The roots this session offers: its own, else a copy of the
        // global ones; kept in the slot, so a change of either reaches
        // the session in place.
        let roots = self
            .client
            .roots
            .as_ref()
            .map(|global| match &config.roots {
                Some(own) => crate::mcp::session::SharedRoots::new(own),
                None => crate::mcp::session::SharedRoots::copy_of(global),
            });
        if let Some(slot) = self.slots.iter_mut().find(|s| s.config.name == name) {
            slot.roots = roots.clone();
            slot.roots_changed = false;
        }
        let settings = self.settings.clone();
        let frames = self.frames.clone();
        let sink = self.sink.clone();
        let children = self.children.clone();
        let msgs = self.msgs.clone();
        let server = name.to_string();
        let client = self.client.clone();
        let want = self.lists;
        let attempt = async move {
            let mut spec = session_spec(&config, &settings, Some(children))?;
            spec.client = client;
            if roots.is_some() {
                spec.client.roots = roots;
            }
            let session = Session::connect(&spec, frames, sink).await?;
            let listed =
                tokio::time::timeout(settings.connect_timeout, session.list_some(want)).await;
            match listed {
                Ok(Ok(lists)) => Ok((session, lists)),
                failed => {
                    let tail = session.stderr_tail(20);
                    session.close().await;
                    Err(match failed {
                        Ok(Err(e)) => ConnectError::Request {
                            error: e,
                            stderr_tail: tail,
                            context: Some("connected, but listing failed: ".into()),
                        },
                        _ => ConnectError::Timeout {
                            message: format!(
                                "connected, but listing did not finish within {} (connect_timeout)",
                                crate::text::fmt_duration(settings.connect_timeout)
                            ),
                            stderr_tail: tail,
                        },
                    })
                }
            }
        };
        let handle = self.tasks.spawn(async move {
            // A panic inside becomes a failure, not a server stuck pending.
            let result = match CatchUnwind(Box::pin(attempt)).await {
                Ok(result) => result,
                Err(panic) => Err(ConnectError::Internal(format!(
                    "internal error while connecting: {panic}"
                ))),
            };
            let _ = msgs.send(Msg::Connected {
                server,
                generation,
                result,
            });
        });
        if let Some(slot) = self.slot(name) {
            slot.connecting = Some(handle);
        }
        self.set_status(name, ServerStatus::Pending);
    }

    pub(super) fn connected(
        &mut self,
        server: String,
        generation: u64,
        result: Result<(Session, Lists), ConnectError>,
    ) {
        let Some(slot) = self.slot(&server).filter(|s| s.generation == generation) else {
            if let Ok((session, _)) = result {
                self.close_later(session);
            }
            return;
        };
        slot.connecting = None;
        match result {
            Ok((session, lists)) => {
                let relist = self.early_list_changed.remove(&session.id());
                // The server may have died between listing and now.
                if let Some(description) = session.closed() {
                    let stderr_tail = session.stderr_tail(20);
                    self.set_status(
                        &server,
                        ServerStatus::Failed(ConnectError::Lost {
                            description,
                            stderr_tail,
                        }),
                    );
                    return;
                }
                let listen_on_connect = self.listen_on_connect;
                let Some(slot) = self.slot(&server) else {
                    return;
                };
                slot.negotiated = session.negotiated();
                // The whole explanation (the TUI's detail shows one line).
                if let Some(n) = &slot.negotiated {
                    tracing::info!(
                        "{server}: {} ({}), detected by: {}",
                        n.era,
                        n.version,
                        n.detection
                    );
                }
                // The stateless era sends list changes only on a
                // subscriptions/listen stream: open it, for a long-lived
                // client (a one-shot command has no use for list changes).
                let listener = (listen_on_connect
                    && slot
                        .negotiated
                        .as_ref()
                        .is_some_and(|n| n.era == crate::mcp::types::Era::Stateless))
                .then(|| session.clone());
                slot.session = Some(session);
                slot.lists = Arc::new(lists);
                let lists = slot.lists.clone();
                if let Some(listener) = listener {
                    self.tasks.spawn(async move {
                        let _ = listener.listen().await;
                    });
                }
                // One ping right away, so the server's latency is known.
                if self.ping_on_connect
                    && let Some(pinger) = self.slot(&server).and_then(|s| s.session.clone())
                {
                    let events = self.events.clone();
                    let name = server.clone();
                    self.tasks.spawn(async move {
                        let result = pinger.ping().await.map_err(Into::into);
                        let _ = events.send(Event::Ping {
                            server: name,
                            result,
                            requested: false,
                        });
                    });
                }
                self.set_status(&server, ServerStatus::Connected);
                // Roots that changed while it connected: it may have asked
                // for the old ones already.
                if self.slot(&server).is_some_and(|s| s.roots_changed) {
                    self.announce_roots(&server);
                }
                self.emit_auth_info(&server);
                self.emit(Event::Lists {
                    server: server.clone(),
                    lists,
                });
                if relist {
                    self.relist(&server);
                }
            }
            Err(e) if e.needs_auth() => self.set_status(&server, ServerStatus::NeedsAuth(e)),
            Err(e) => self.set_status(&server, ServerStatus::Failed(e)),
        }
    }
}
