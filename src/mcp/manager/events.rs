//! What sessions and background work report, turned into events: findings,
//! notifications, list changes, progress, server requests for a person.

use std::sync::Arc;

use crate::mcp::finding::Finding;
use crate::mcp::session::{ConnectError, Session, SessionEvent, Tagged};

use super::model::*;
use super::task::*;

impl Task {
    pub(super) fn session_event(&mut self, ev: Tagged) {
        // A session older than the server's last reset (a reconnect, a
        // replaced config) or of a server that is gone is a previous one.
        let previous = self
            .slots
            .iter()
            .find(|s| *s.config.name == *ev.server)
            .is_none_or(|s| ev.session < s.floor);
        let Some(idx) = self
            .slots
            .iter()
            .position(|s| s.session.as_ref().is_some_and(|x| x.id() == ev.session))
        else {
            // A session still connecting (or closing): its findings, stderr
            // and notifications are still the server's; its findings say
            // which session they came from.
            match ev.event {
                SessionEvent::Finding(f) => self.emit(Event::Finding {
                    server: ev.server.to_string(),
                    session: ev.session,
                    previous,
                    finding: f,
                }),
                SessionEvent::Stderr(line) => self.emit(Event::Stderr {
                    server: ev.server.to_string(),
                    line,
                }),
                SessionEvent::RootsAsked { offered } => self.emit(Event::RootsAsked {
                    server: ev.server.to_string(),
                    offered,
                    at: std::time::SystemTime::now(),
                }),
                SessionEvent::Notification { method, params } => {
                    // A list changed while the lists were being fetched:
                    // fetch again once the session is in place.
                    if is_list_changed(&method) {
                        self.early_list_changed.insert(ev.session);
                    }
                    self.emit(Event::Notification {
                        server: ev.server.to_string(),
                        method,
                        params,
                    });
                }
                SessionEvent::Closed { .. } => {
                    self.early_list_changed.remove(&ev.session);
                }
            }
            return;
        };
        let server = self.slots[idx].config.name.clone();
        match ev.event {
            SessionEvent::Finding(finding) => self.emit(Event::Finding {
                server,
                session: ev.session,
                previous,
                finding,
            }),
            SessionEvent::Stderr(line) => self.emit(Event::Stderr { server, line }),
            SessionEvent::RootsAsked { offered } => self.emit(Event::RootsAsked {
                server,
                offered,
                at: std::time::SystemTime::now(),
            }),
            SessionEvent::Notification { method, params } => {
                if is_list_changed(&method) {
                    self.relist(&server);
                }
                self.emit(Event::Notification {
                    server,
                    method,
                    params,
                });
            }
            SessionEvent::Closed {
                description,
                requested,
                stderr_tail,
            } => {
                // Closed properly (an HTTP session's streams end with it).
                if let Some(gone) = self.slots[idx].session.take() {
                    self.close_later(gone);
                }
                self.slots[idx].relisting = false;
                if !requested {
                    self.set_status(
                        &server,
                        ServerStatus::Failed(ConnectError::Lost {
                            description,
                            stderr_tail,
                        }),
                    );
                }
            }
        }
    }

    pub(super) fn message(&mut self, msg: Msg) {
        match msg {
            Msg::Session(t) => self.session_event(t),
            Msg::Reconnect(server) => {
                self.emit_auth_info(&server);
                if self.slot(&server).is_some_and(|s| s.config.enabled) {
                    self.start_connect(&server);
                }
            }
            Msg::Connected {
                server,
                generation,
                result,
            } => self.connected(server, generation, result),
            Msg::Relisted {
                server,
                session,
                result,
            } => {
                let Some(slot) = self.slot(&server) else {
                    return;
                };
                if slot.session.as_ref().map(Session::id) != Some(session) {
                    return;
                }
                slot.relisting = false;
                let again = std::mem::take(&mut slot.relist_again);
                match result {
                    Ok(lists) => {
                        slot.lists = Arc::new(lists);
                        let lists = slot.lists.clone();
                        self.emit(Event::Lists {
                            server: server.clone(),
                            lists,
                        });
                    }
                    Err(e) => self.emit(Event::Finding {
                        server: server.clone(),
                        session,
                        previous: false,
                        finding: Finding::new(
                            crate::mcp::finding::Severity::Error,
                            format!("listing again failed: {e}"),
                        ),
                    }),
                }
                if again {
                    self.relist(&server);
                }
            }
            // Joins the UI queue's own report of the server's drops.
            Msg::Dropped { server, counts } => self.events.add_dropped(&server, counts),
            Msg::CallDone { call, event } => {
                if let Event::CallFinished { tag, .. } | Event::Response { tag, .. } = &event
                    && self.calls.get(tag).is_some_and(|(c, _)| *c == call)
                {
                    self.calls.remove(tag);
                }
                self.emit(event);
            }
        }
    }
}

/// What the sessions' queue into the manager may coalesce or drop: their
/// notifications, stderr lines and findings; never their end, nor the
/// results of the manager's own tasks.
impl super::queue::Queued for Msg {
    fn class(&self) -> super::queue::Class<'_> {
        use super::queue::{Class, Kind};
        let Msg::Session(t) = self else {
            return Class::Critical;
        };
        let (kind, coalesce, lazy) = match &t.event {
            SessionEvent::Notification { method, params } => (
                Kind::Notification,
                Event::coalesce_key(method, params.as_ref()),
                super::model::lazy_coalesce(method),
            ),
            SessionEvent::Stderr(_) => (Kind::Stderr, None, false),
            // A storm of roots/list is one "last asked" (per session).
            SessionEvent::RootsAsked { .. } => {
                (Kind::Notification, Some("roots asked".into()), false)
            }
            SessionEvent::Finding(_) => (Kind::Finding, None, false),
            SessionEvent::Closed { .. } => return Class::Critical,
        };
        Class::Droppable {
            server: &t.server,
            kind,
            coalesce: coalesce.map(|k| format!("{} {k}", t.session)),
            lazy,
        }
    }

    fn dropped(server: String, counts: super::queue::DropCounts) -> Self {
        Msg::Dropped { server, counts }
    }
}
