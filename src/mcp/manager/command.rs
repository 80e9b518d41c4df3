//! Commands from the UI or the CLI, applied to the task's state.

use crate::mcp::session::{RequestError, Session};

use super::model::*;
use super::task::*;

impl Task {
    pub(super) fn command(&mut self, cmd: Command) {
        match cmd {
            Command::SetServers(servers) => self.set_servers(servers),
            Command::Connect(name) | Command::Reconnect(name) => self.start_connect(&name),
            Command::Disconnect(name) => {
                if self.reset(&name).is_some() {
                    let enabled = self.slot(&name).is_some_and(|s| s.config.enabled);
                    let status = if enabled {
                        ServerStatus::Disconnected
                    } else {
                        ServerStatus::Disabled
                    };
                    self.set_status(&name, status);
                }
            }
            Command::SetEnabled(name, enabled) => {
                let Some(slot) = self.slot(&name) else { return };
                if slot.config.enabled == enabled {
                    return;
                }
                slot.config.enabled = enabled;
                if enabled {
                    self.start_connect(&name);
                } else {
                    self.reset(&name);
                    self.set_status(&name, ServerStatus::Disabled);
                }
            }
            Command::SetDenyList(name, tools) => {
                if let Some(slot) = self.slot(&name) {
                    slot.config.deny_tools = tools.clone();
                    self.emit(Event::DenyList {
                        server: name,
                        tools,
                    });
                }
            }
            Command::Refresh(name) => self.relist(&name),
            Command::Login { server, scopes } => self.login(&server, scopes),
            Command::CancelLogin(server) => self.cancel_login(&server),
            Command::Logout(server) => self.logout(&server),
            Command::AnswerServerRequest { id, result } => {
                let reply = self
                    .asks
                    .lock()
                    .unwrap_or_else(|p| p.into_inner())
                    .1
                    .remove(&id);
                if let Some(reply) = reply {
                    let _ = reply.send(result);
                }
            }
            Command::Request {
                tag,
                server,
                method,
                params,
            } => self.request(tag, server, method, params),
            Command::SetRoots(dirs) => {
                let changed = self.client.roots.as_ref().is_some_and(|r| r.set(&dirs));
                if changed {
                    let names: Vec<String> = self
                        .slots
                        .iter()
                        // A server with roots of its own keeps them.
                        .filter(|s| s.config.roots.is_none())
                        .map(|s| s.config.name.clone())
                        .collect();
                    for name in names {
                        self.set_server_roots(&name, None);
                    }
                }
            }
            Command::Subscribe(name, uri) => self.subscription(name, uri, true),
            Command::Unsubscribe(name, uri) => self.subscription(name, uri, false),
            Command::Ping(name) => self.on_session(
                &name.clone(),
                |s| async move { s.ping().await },
                move |result| Event::Ping {
                    server: name,
                    result,
                    requested: true,
                },
            ),
            Command::SetLogLevel(name, level) => {
                let asked = level.clone();
                self.on_session(
                    &name.clone(),
                    move |s| async move { s.set_log_level(&asked).await },
                    move |result| Event::LogLevel {
                        server: name,
                        level,
                        result,
                    },
                );
            }
            Command::Call {
                tag,
                server,
                tool,
                arguments,
            } => self.call(tag, server, tool, arguments, None),
            Command::CallWithMeta {
                tag,
                server,
                tool,
                arguments,
                meta,
            } => self.call(tag, server, tool, arguments, Some(meta)),
            // A call's or a request's.
            Command::Cancel { tag } => {
                if let Some((_, tx)) = self.calls.remove(&tag) {
                    let _ = tx.send(());
                }
            }
            Command::Snapshot(reply) => {
                let snap = self
                    .slots
                    .iter()
                    .map(|s| ServerSnapshot {
                        config: s.config.clone(),
                        status: s.status.clone(),
                        negotiated: s.negotiated.clone(),
                        lists: s.lists.clone(),
                        pid: s.session.as_ref().and_then(|x| x.pid()),
                    })
                    .collect();
                let _ = reply.send(snap);
            }
            Command::Shutdown(_) => {}
        }
    }

    /// A server's own roots (`None`: the global ones) are now `roots`:
    /// its session offers them at once, and a connected initialize-era
    /// server is told (`notifications/roots/list_changed`) when they
    /// changed. (A stateless-era server asks for roots within a call, and
    /// gets the new ones the next time.)
    pub(super) fn set_server_roots(&mut self, name: &str, roots: Option<Vec<std::path::PathBuf>>) {
        let global = self.client.roots.clone();
        let Some(slot) = self.slot(name) else {
            return;
        };
        slot.config.roots = roots;
        let Some(offered) = slot.roots.clone() else {
            return;
        };
        let changed = match &slot.config.roots {
            Some(own) => offered.set(own),
            None => global.is_some_and(|g| offered.set_values(g.get())),
        };
        if !changed {
            return;
        }
        if slot.status != ServerStatus::Connected {
            // Connecting: told once connected (see `connected`).
            slot.roots_changed = slot.connecting.is_some();
            return;
        }
        self.announce_roots(name);
    }

    /// Tell a connected initialize-era server its roots changed.
    pub(super) fn announce_roots(&mut self, name: &str) {
        let Some(slot) = self.slot(name) else { return };
        slot.roots_changed = false;
        let initialize_era = slot
            .negotiated
            .as_ref()
            .is_some_and(|n| n.era == crate::mcp::types::Era::Initialize);
        if let Some(session) = slot.session.clone().filter(|_| initialize_era) {
            self.tasks.spawn(async move {
                let _ = session
                    .notify("notifications/roots/list_changed", None)
                    .await;
            });
        }
    }

    /// List again; one re-list per server at a time (a burst of
    /// list_changed becomes at most one more).
    pub(super) fn relist(&mut self, name: &str) {
        let msgs = self.msgs.clone();
        let Some(slot) = self.slot(name) else { return };
        let Some(session) = slot.session.clone() else {
            return;
        };
        if slot.relisting {
            slot.relist_again = true;
            return;
        }
        slot.relisting = true;
        let server = name.to_string();
        let want = self.lists;
        self.tasks.spawn(async move {
            let result = session.list_some(want).await;
            let _ = msgs.send(Msg::Relisted {
                server,
                session: session.id(),
                result,
            });
        });
    }

    pub(super) fn subscription(&mut self, name: String, uri: String, on: bool) {
        let asked = uri.clone();
        self.on_session(
            &name.clone(),
            move |s| async move {
                if on {
                    s.subscribe(&asked).await
                } else {
                    s.unsubscribe(&asked).await
                }
            },
            move |result| Event::Subscription {
                server: name,
                uri,
                subscribed: on,
                result,
            },
        );
    }

    /// Run `work` on a connected server's session in the background, and
    /// emit the event `event` makes of its result (or of why there is no
    /// session to run it on).
    fn on_session<T: Send + 'static, F>(
        &mut self,
        name: &str,
        work: impl FnOnce(Session) -> F + Send + 'static,
        event: impl FnOnce(Result<T, CallError>) -> Event + Send + 'static,
    ) where
        F: std::future::Future<Output = Result<T, RequestError>> + Send + 'static,
    {
        let session = self.live_session(name);
        let events = self.events.clone();
        self.tasks.spawn(async move {
            let result = match session {
                Ok(s) => work(s).await.map_err(Into::into),
                Err(e) => Err(e),
            };
            let _ = events.send(event(result));
        });
    }

    /// The session of a connected server, or why there is none.
    pub(super) fn live_session(&self, name: &str) -> Result<Session, CallError> {
        let slot = self
            .slots
            .iter()
            .find(|s| s.config.name == name)
            .ok_or_else(|| CallError::UnknownServer(name.to_string()))?;
        slot.session
            .clone()
            .filter(|_| slot.status == ServerStatus::Connected)
            .ok_or_else(|| CallError::NotConnected {
                server: name.to_string(),
                status: slot.status.label().to_string(),
            })
    }
}
