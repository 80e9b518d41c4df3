//! Logins through the manager (the TUI's login and log-out keys): the
//! server's authorizer runs the login in the background, its events go out
//! as [`Event::Login`], and a successful login reconnects the server.

use std::sync::Arc;

use crate::mcp::auth::{self, LoginEvent};
use crate::mcp::bearer::{AuthError, AuthErrorKind};

use super::model::*;
use super::task::*;

impl Task {
    fn authorizer_of(&mut self, name: &str) -> Option<Result<Arc<auth::Authorizer>, AuthError>> {
        let settings = self.settings.clone();
        let slot = self.slot(name)?;
        auth::authorizer(&slot.config, &settings)
    }

    /// What may be shown about a server's login (after connecting, a login
    /// or a log-out).
    pub(super) fn emit_auth_info(&mut self, name: &str) {
        if let Some(Ok(a)) = self.authorizer_of(name) {
            self.emit(Event::AuthInfo {
                server: name.to_string(),
                info: a.info(),
            });
        }
    }

    pub(super) fn login(&mut self, name: &str, scopes: Vec<String>) {
        let a = match self.authorizer_of(name) {
            Some(Ok(a)) => a,
            Some(Err(e)) => {
                self.emit(Event::LoginFinished {
                    server: name.to_string(),
                    result: Err(e),
                });
                return;
            }
            None => {
                self.emit(Event::LoginFinished {
                    server: name.to_string(),
                    result: Err(AuthError::new(
                        AuthErrorKind::Config,
                        format!("{name} is not an HTTP server that can log in (stdio, or `headers` set Authorization)"),
                    )),
                });
                return;
            }
        };
        let events = self.events.clone();
        let msgs = self.msgs.clone();
        let server = name.to_string();
        self.tasks.spawn(async move {
            let tx = events.clone();
            let s = server.clone();
            a.set_reporter(Some(Arc::new(move |event: LoginEvent| {
                let _ = tx.send(Event::Login {
                    server: s.clone(),
                    event,
                });
            })));
            let result = a.login(&scopes).await;
            a.set_reporter(None);
            let ok = result.is_ok();
            let _ = events.send(Event::LoginFinished {
                server: server.clone(),
                result,
            });
            if ok {
                let _ = msgs.send(Msg::Reconnect(server));
            }
        });
    }

    pub(super) fn cancel_login(&mut self, name: &str) {
        if let Some(Ok(a)) = self.authorizer_of(name) {
            a.cancel();
        }
    }

    pub(super) fn logout(&mut self, name: &str) {
        let Some(Ok(a)) = self.authorizer_of(name) else {
            return;
        };
        let events = self.events.clone();
        let msgs = self.msgs.clone();
        let server = name.to_string();
        self.tasks.spawn(async move {
            let result = a.logout().await;
            let _ = events.send(Event::LoggedOut {
                server: server.clone(),
                result,
            });
            let _ = msgs.send(Msg::Reconnect(server));
        });
    }
}
