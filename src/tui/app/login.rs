//! OAuth in the TUI: the login and log-out keys, the login screen's keys,
//! and the manager's login events.

use crate::mcp::auth::{AuthError, AuthErrorKind, LoginEvent, TokenInfo};
use crate::mcp::manager::Command;
use crate::tui::keymap::Action;

use super::media::copy;
use super::model::*;
use super::*;

/// The server the login keys act on: the one the step-up offer names
/// when the result pane shows it, else the selected server.
fn target(s: &State) -> Option<(String, Vec<String>)> {
    if s.focus == Pane::Result
        && let Some((server, scopes)) = &s.step_up
    {
        return Some((server.clone(), scopes.clone()));
    }
    let v = s.selected_server()?;
    let scopes = match &s.step_up {
        Some((server, scopes)) if *server == v.name => scopes.clone(),
        _ => Vec::new(),
    };
    Some((v.name.clone(), scopes))
}

/// The login key: open the login screen and start the login.
pub(super) fn login(s: &mut State, fx: &mut Vec<Effect>) -> bool {
    let Some((server, scopes)) = target(s) else {
        return false;
    };
    let Some(v) = s.servers.iter().find(|v| v.name == server) else {
        return false;
    };
    if v.http.is_none() {
        s.status = Some(format!(
            "{server} runs as a local process (stdio): there is nothing to log in to"
        ));
        return true;
    }
    if !v.enabled {
        s.status = Some(format!("{server} is disabled: enable it first"));
        return true;
    }
    s.login = Some(LoginView::new(&server, scopes.clone()));
    s.mode = Mode::Login;
    s.status = None;
    fx.push(Effect::Manager(Command::Login { server, scopes }));
    true
}

/// The log-out key.
pub(super) fn logout(s: &mut State, fx: &mut Vec<Effect>) -> bool {
    let Some(v) = s.selected_server() else {
        return false;
    };
    if v.http.is_none() {
        s.status = Some(format!("{} has no login (stdio)", v.name));
        return true;
    }
    if v.auth.is_none() {
        s.status = Some(format!("{}: not logged in", v.name));
        return true;
    }
    let server = v.name.clone();
    s.status = Some(format!("{server}: logging out…"));
    fx.push(Effect::Manager(Command::Logout(server)));
    true
}

/// Keys on the login screen: Esc cancels (or closes when it is over),
/// the copy key copies the URL, the login key opens it again, Enter
/// closes a finished login, the moves scroll the trace.
pub(super) fn login_key(s: &mut State, action: Option<Action>, fx: &mut Vec<Effect>) -> bool {
    let Some(a) = action else { return false };
    let Some(view) = s.login.as_mut() else {
        s.mode = Mode::Normal;
        return true;
    };
    match a {
        Action::Back | Action::Quit => {
            if view.running() {
                fx.push(Effect::Manager(Command::CancelLogin(view.server.clone())));
                s.status = Some(format!("{}: login cancelled", view.server));
            }
            s.login = None;
            s.mode = Mode::Normal;
        }
        Action::Open if !view.running() => {
            s.login = None;
            s.mode = Mode::Normal;
        }
        Action::Copy => match view.url.clone() {
            Some(url) => copy(s, url, fx),
            None => s.status = Some("no URL yet".into()),
        },
        Action::Login => match &view.url {
            Some(url) if view.phase == LoginPhase::Waiting => {
                fx.push(Effect::OpenUrl(url.clone()));
            }
            _ if !view.running() => {
                // Try again.
                let (server, scopes) = (view.server.clone(), view.scopes.clone());
                *view = LoginView::new(&server, scopes.clone());
                fx.push(Effect::Manager(Command::Login { server, scopes }));
            }
            _ => {}
        },
        Action::Up => view.scroll = view.scroll.saturating_sub(1),
        Action::Down => view.scroll = step(view.scroll, 1, view.trace.len().max(1)),
        Action::PageUp => view.scroll = view.scroll.saturating_sub(10),
        Action::PageDown => view.scroll = step(view.scroll, 10, view.trace.len().max(1)),
        Action::Home => view.scroll = 0,
        Action::End => view.scroll = view.trace.len().saturating_sub(1),
        Action::Help => {
            s.help_back = Some(Mode::Login);
            s.mode = Mode::Help;
        }
        _ => return false,
    }
    true
}

/// Trace lines, each made safe to draw.
fn trace_lines(trace: &crate::mcp::auth::Trace) -> Vec<String> {
    trace
        .to_string()
        .lines()
        .map(|l| crate::sanitize::one_line(l.trim_start()))
        .filter(|l| !l.is_empty())
        .collect()
}

pub(super) fn on_login(s: &mut State, server: String, event: LoginEvent) -> bool {
    let Some(view) = s.login.as_mut().filter(|v| v.server == server) else {
        return false;
    };
    match event {
        LoginEvent::Discovered(trace) => {
            view.trace.extend(trace_lines(&trace));
        }
        LoginEvent::OpenUrl(url) => {
            view.url = Some(url);
            view.phase = LoginPhase::Waiting;
        }
        LoginEvent::Browser(how) => view.browser = Some(crate::sanitize::one_line(&how)),
        LoginEvent::Waiting => view.phase = LoginPhase::Waiting,
        LoginEvent::Exchanging => view.phase = LoginPhase::Exchanging,
    }
    true
}

pub(super) fn on_login_finished(
    s: &mut State,
    server: String,
    result: Result<TokenInfo, AuthError>,
) -> bool {
    let open = s.login.as_ref().is_some_and(|v| v.server == server);
    match result {
        Ok(info) => {
            if let Some(v) = s.servers.iter_mut().find(|v| v.name == server) {
                v.auth = Some(info);
            }
            if s.step_up.as_ref().is_some_and(|(n, _)| *n == server) {
                s.step_up = None;
            }
            s.status = Some(format!("{server}: logged in; reconnecting"));
            if open {
                // The server connects by itself: back to the panes.
                s.login = None;
                if s.mode == Mode::Login {
                    s.mode = Mode::Normal;
                }
            }
        }
        Err(e) => {
            if e.kind == AuthErrorKind::Cancelled && !open {
                return false;
            }
            s.status = Some(match no_oauth(s, &server, &e) {
                Some(why) => why,
                None => format!("{server}: login failed: {}", e.message),
            });
            if let Some(view) = s.login.as_mut().filter(|v| v.server == server) {
                // The error's trace repeats what the screen has shown, and
                // may add what came after.
                let lines = trace_lines(&e.trace);
                if lines.len() > view.trace.len() {
                    view.trace = lines;
                }
                view.phase = LoginPhase::Failed(crate::sanitize::one_line(&e.message));
            }
        }
    }
    true
}

pub(super) fn on_logged_out(
    s: &mut State,
    server: String,
    result: Result<Vec<String>, AuthError>,
) -> bool {
    s.status = Some(match result {
        Ok(done) => {
            if let Some(v) = s.servers.iter_mut().find(|v| v.name == server) {
                v.auth = None;
            }
            if done.is_empty() {
                format!("{server}: logged out (the token is forgotten)")
            } else {
                format!(
                    "{server}: logged out: {}",
                    crate::sanitize::one_line(&done.join("; "))
                )
            }
        }
        Err(e) => format!("{server}: log-out failed: {}", e.message),
    });
    true
}

pub(super) fn on_auth_info(s: &mut State, server: String, info: Option<TokenInfo>) -> bool {
    let Some(v) = s.servers.iter_mut().find(|v| v.name == server) else {
        return false;
    };
    if v.auth == info {
        return false;
    }
    v.auth = info;
    true
}

/// After a call failed: when the server needs a login (or more scope),
/// remember what to ask for so the login key can offer it.
pub(super) fn note_call_failure(s: &mut State, server: &str, error: &AuthError) {
    if error.kind == AuthErrorKind::NeedsLogin {
        s.step_up = Some((server.to_string(), error.scopes.clone()));
    }
}

/// Why a login that found no OAuth could not be: the server answers
/// without credentials (it needs no login), or it asked for them without a
/// challenge or metadata (it most likely wants an API key). `None` when
/// the server does offer OAuth (the login failed for another reason).
fn no_oauth(s: &State, server: &str, e: &AuthError) -> Option<String> {
    if !matches!(
        e.kind,
        AuthErrorKind::Discovery | AuthErrorKind::Registration
    ) {
        return None;
    }
    // Any OAuth metadata found: the server does offer OAuth, and the
    // error says why the login failed.
    let metadata = e.found_oauth_metadata();
    if metadata {
        return None;
    }
    let v = s.servers.iter().find(|v| v.name == server)?;
    let name = crate::sanitize::one_line(server);
    match &v.status {
        crate::mcp::manager::ServerStatus::Connected if v.auth.is_none() => Some(format!(
            "{name} needs no login: it answers without credentials and publishes no OAuth metadata (no WWW-Authenticate challenge, no /.well-known/oauth-protected-resource)"
        )),
        crate::mcp::manager::ServerStatus::NeedsAuth(_) => Some(format!(
            "{name} offers no OAuth (no challenge, no /.well-known/oauth-protected-resource): it most likely wants an API key; set headers = {{ Authorization = \"Bearer ${{TOKEN}}\" }} (or the header its docs name) under [servers.{name}] in the config"
        )),
        _ => None,
    }
}
