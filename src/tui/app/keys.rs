//! Keys: each goes to the request screen, the view or the mode that has
//! the keyboard; in the panes, named actions from the keymap.

use crossterm::event::{KeyCode, KeyEvent, KeyModifiers};

use crate::config::ServerConfig;
use crate::mcp::manager::Command;
use crate::tui::keymap::Action;

use super::editor::{editor_key, open_editor};
use super::media::save_media;
use super::model::*;
use super::views::{log_key, net_key, open_net};
use super::*;

pub(super) fn on_key(s: &mut State, k: KeyEvent, fx: &mut Vec<Effect>) -> bool {
    let action = s.keymap.action(&k);
    if action == Some(Action::ForceQuit) {
        fx.push(Effect::Quit);
        return true;
    }
    // A server's request is answered before anything else.
    if s.asks.is_open() {
        let step = s.asks.key(k, &s.keymap, fx);
        if step.status.is_some() {
            s.status = step.status;
        }
        return step.redraw;
    }
    match s.mode {
        Mode::Help => {
            // The moves scroll a help that does not fit (the render
            // clamps); any other key closes it.
            let by: isize = match action {
                Some(Action::Up) => -1,
                Some(Action::Down) => 1,
                Some(Action::PageUp) => -10,
                Some(Action::PageDown) => 10,
                Some(Action::Home) => isize::MIN / 2,
                Some(Action::End) => isize::MAX / 2,
                _ => {
                    s.help_scroll = 0;
                    s.mode = s.help_back.take().unwrap_or(Mode::Normal);
                    return true;
                }
            };
            s.help_scroll = step(s.help_scroll, by, 1_000);
            true
        }
        Mode::ConfirmQuit => {
            // The dialog's own keys (`confirm`) first, then quit again.
            if matches!(
                s.keymap.confirm_action(&k),
                Some(Action::Confirm | Action::Quit)
            ) {
                fx.push(Effect::Quit);
            } else {
                s.mode = Mode::Normal;
            }
            true
        }
        Mode::Filter => filter_key(s, k, action),
        Mode::Log => log_key(s, action, fx),
        Mode::Net => net_key(s, action, fx),
        Mode::Resources | Mode::Prompts => {
            let kind = match s.mode {
                Mode::Resources => crate::tui::browse::Kind::Resources,
                _ => crate::tui::browse::Kind::Prompts,
            };
            s.with_browse(kind, fx, |b, cx| b.key(k, action, cx))
        }
        Mode::AddServer => add_key(s, k, fx),
        Mode::LogFilter => {
            if !edit_line(&mut s.log.method, &k) {
                match action {
                    Some(Action::Back) => {
                        s.log.method.clear();
                        s.mode = Mode::Log;
                    }
                    Some(Action::Open) => s.mode = Mode::Log,
                    _ => return false,
                }
            }
            s.log.sel = None;
            true
        }
        Mode::Editor => editor_key(s, k, action, fx),
        Mode::Login => super::login::login_key(s, action, fx),
        Mode::Normal => match action {
            Some(a) => normal_action(s, a, fx),
            None => false,
        },
    }
}

/// A key typed into a one-line text (a character, Backspace); false when
/// it is not for the text but a command.
pub(super) fn edit_line(text: &mut String, k: &KeyEvent) -> bool {
    match k.code {
        KeyCode::Backspace => {
            text.pop();
            true
        }
        KeyCode::Char(c) if !k.modifiers.contains(KeyModifiers::CONTROL) => {
            text.push(c);
            true
        }
        _ => false,
    }
}

pub(super) fn filter_key(s: &mut State, k: KeyEvent, action: Option<Action>) -> bool {
    if !edit_line(&mut s.filter, &k) {
        match action {
            Some(Action::Back) => {
                s.filter.clear();
                s.mode = Mode::Normal;
            }
            Some(Action::Open) => s.mode = Mode::Normal,
            Some(a @ (Action::Up | Action::Down | Action::PageUp | Action::PageDown)) => {
                return move_action(s, a);
            }
            _ => return false,
        }
    }
    s.refilter();
    true
}

pub(super) fn add_key(s: &mut State, k: KeyEvent, fx: &mut Vec<Effect>) -> bool {
    let form = &mut s.add;
    let field = if form.field == 0 {
        &mut form.name
    } else {
        &mut form.command
    };
    if edit_line(field, &k) {
        s.add.error = None;
        return true;
    }
    match s.keymap.action(&k) {
        Some(Action::Back) => {
            s.mode = Mode::Normal;
            return true;
        }
        Some(Action::NextPane | Action::PrevPane | Action::Up | Action::Down) => {
            form.field = 1 - form.field
        }
        Some(Action::Open) if form.field == 0 => form.field = 1,
        Some(Action::Open) => {
            let name = form.name.trim().to_string();
            let words = match split_command(&form.command) {
                Ok(w) if !w.is_empty() => w,
                Ok(_) => {
                    form.error = Some("type the command that starts the server".into());
                    return true;
                }
                Err(e) => {
                    form.error = Some(e);
                    return true;
                }
            };
            if name.is_empty()
                || !name
                    .chars()
                    .all(|c| c.is_ascii_alphanumeric() || "_.-".contains(c))
                || name.contains("__")
            {
                form.error =
                    Some("the name may use letters, digits, `_`, `.` and `-` (not `__`)".into());
                form.field = 0;
                return true;
            }
            if s.servers.iter().any(|v| v.name == name) {
                form.error = Some(format!("there is already a server named {name:?}"));
                form.field = 0;
                return true;
            }
            let is_url = |w: &str| {
                let w = w.to_ascii_lowercase();
                w.starts_with("http://") || w.starts_with("https://")
            };
            let server = if words.len() == 1 && is_url(&words[0]) {
                // A URL: an HTTP server (the transport is detected).
                ServerConfig::http(name, words[0].clone())
            } else {
                let args: Vec<&str> = words[1..].iter().map(String::as_str).collect();
                ServerConfig::stdio(name, words[0].clone(), &args)
            };
            fx.push(Effect::AddServer(server));
            s.mode = Mode::Normal;
        }
        _ => return false,
    }
    s.add.error = None;
    true
}

pub(super) fn normal_action(s: &mut State, a: Action, fx: &mut Vec<Effect>) -> bool {
    match a {
        Action::Up
        | Action::Down
        | Action::PageUp
        | Action::PageDown
        | Action::Home
        | Action::End => move_action(s, a),
        Action::Left | Action::Right | Action::NextPane | Action::PrevPane => focus_action(s, a),
        Action::ToggleServer
        | Action::Reconnect
        | Action::Ping
        | Action::LogLevel
        | Action::Reload
        | Action::AddServer => server_action(s, a, fx),
        Action::Filter | Action::AllTools | Action::Open | Action::ToggleDeny | Action::Back => {
            tool_action(s, a, fx)
        }
        Action::Copy
        | Action::Save
        | Action::ProtocolLog
        | Action::Network
        | Action::Resources
        | Action::Prompts
        | Action::Subscribe => view_action(s, a, fx),
        Action::Help | Action::Quit => app_action(s, a, fx),
        Action::Login => super::login::login(s, fx),
        Action::Logout => super::login::logout(s, fx),
        // Send and the external editor belong to the editor.
        _ => {
            s.status = Some(format!("`{}` is not available yet", a.name()));
            true
        }
    }
}

/// Moves between the panes.
fn focus_action(s: &mut State, a: Action) -> bool {
    match a {
        Action::Left => {
            s.focus = Pane::Servers;
            true
        }
        Action::Right => {
            s.focus = match s.focus {
                Pane::Servers => Pane::Tools,
                Pane::Tools => Pane::Detail,
                other => other,
            };
            true
        }
        Action::NextPane | Action::PrevPane => {
            s.focus = s.focus.step(a == Action::NextPane);
            true
        }
        _ => false,
    }
}

/// Keys on the selected server.
fn server_action(s: &mut State, a: Action, fx: &mut Vec<Effect>) -> bool {
    match a {
        Action::ToggleServer => {
            let Some(v) = s.servers.get_mut(s.server_sel) else {
                return false;
            };
            v.enabled = !v.enabled;
            let (server, enabled) = (v.name.clone(), v.enabled);
            fx.push(Effect::WriteEnabled { server, enabled });
            true
        }
        Action::Reconnect => {
            let Some(v) = s.servers.get(s.server_sel) else {
                return false;
            };
            fx.push(Effect::Manager(Command::Reconnect(v.name.clone())));
            true
        }
        Action::Ping => {
            let Some(v) = s.servers.get(s.server_sel) else {
                return false;
            };
            fx.push(Effect::Manager(Command::Ping(v.name.clone())));
            s.status = Some(format!("{}: ping…", v.name));
            true
        }
        Action::LogLevel => {
            let Some(v) = s.servers.get(s.server_sel) else {
                return false;
            };
            use crate::mcp::session::LOG_LEVELS;
            let next = match v.log_level.as_deref() {
                Some(l) => LOG_LEVELS
                    .iter()
                    .position(|x| *x == l)
                    .map_or(0, |i| (i + 1) % LOG_LEVELS.len()),
                None => 0,
            };
            fx.push(Effect::Manager(Command::SetLogLevel(
                v.name.clone(),
                LOG_LEVELS[next].to_string(),
            )));
            true
        }
        Action::Reload => {
            if s.config_path.is_none() {
                s.status = Some("nothing to reload: this session has no config file (demo)".into());
            } else {
                fx.push(Effect::Reload);
            }
            true
        }
        Action::AddServer => {
            s.add = AddForm::default();
            s.mode = Mode::AddServer;
            true
        }
        _ => false,
    }
}

/// Keys on the tools and calls.
fn tool_action(s: &mut State, a: Action, fx: &mut Vec<Effect>) -> bool {
    match a {
        Action::Filter => {
            s.mode = Mode::Filter;
            s.focus = Pane::Tools;
            true
        }
        Action::AllTools => {
            s.all_tools = !s.all_tools;
            s.tool_sel = 0;
            s.refilter();
            true
        }
        Action::Back => {
            if let Some(c) = &s.inflight {
                fx.push(Effect::Manager(Command::Cancel { tag: c.tag }));
                s.status = Some(format!("cancelling {} on {}…", c.tool, c.server));
            } else if !s.filter.is_empty() {
                s.filter.clear();
                s.refilter();
            } else {
                s.focus = Pane::Servers;
            }
            true
        }
        Action::Open => open_editor(s),
        Action::ToggleDeny => {
            let Some((si, ti)) = s.visible.get(s.tool_sel).copied() else {
                return false;
            };
            let v = &mut s.servers[si];
            let Some(tool) = v.lists.tools.get(ti).map(|t| t.name.clone()) else {
                return false;
            };
            let previous = v.deny.clone();
            if v.denied(&tool) {
                v.deny.retain(|d| *d != tool);
            } else {
                v.deny.push(tool);
            }
            let (server, tools) = (v.name.clone(), v.deny.clone());
            fx.push(Effect::WriteDeny {
                server,
                tools,
                previous,
            });
            true
        }
        _ => false,
    }
}

/// Keys that open a view, or act on the result.
fn view_action(s: &mut State, a: Action, fx: &mut Vec<Effect>) -> bool {
    match a {
        Action::Copy => {
            let text = match &s.outcome {
                Some(o) => match &o.result {
                    Ok(r) => serde_json::to_string_pretty(&r.raw).unwrap_or_default(),
                    Err(e) => e.to_string(),
                },
                None => {
                    s.status = Some("nothing to copy yet".into());
                    return true;
                }
            };
            copy(s, text, fx);
            true
        }
        Action::Save => {
            save_media(s, fx);
            true
        }
        Action::ProtocolLog => {
            s.mode = Mode::Log;
            s.log.seen = s.frames.as_ref().and_then(|f| f.last_seq());
            true
        }
        Action::Network => {
            open_net(s);
            true
        }
        Action::Resources => {
            s.open_view(crate::tui::browse::Kind::Resources);
            true
        }
        Action::Prompts => {
            s.open_view(crate::tui::browse::Kind::Prompts);
            true
        }
        Action::Subscribe => {
            let key = s.keymap.key_label(Action::Resources).unwrap_or_default();
            s.status = Some(format!(
                "subscriptions are made in the resources view ({key})"
            ));
            true
        }
        _ => false,
    }
}

/// Help and quit.
fn app_action(s: &mut State, a: Action, fx: &mut Vec<Effect>) -> bool {
    match a {
        Action::Help => {
            s.mode = Mode::Help;
            true
        }
        Action::Quit => {
            if s.inflight.is_some() {
                s.mode = Mode::ConfirmQuit;
            } else {
                fx.push(Effect::Quit);
            }
            true
        }
        _ => false,
    }
}

pub(super) fn move_action(s: &mut State, a: Action) -> bool {
    let page = 10;
    match a {
        Action::Up => move_by(s, -1),
        Action::Down => move_by(s, 1),
        Action::PageUp => move_by(s, -page),
        Action::PageDown => move_by(s, page),
        Action::Home => move_by(s, isize::MIN / 2),
        Action::End => move_by(s, isize::MAX / 2),
        _ => false,
    }
}

pub(super) fn move_by(s: &mut State, by: isize) -> bool {
    match s.focus {
        Pane::Servers => {
            let new = step(s.server_sel, by, s.servers.len());
            if new == s.server_sel {
                return false;
            }
            s.server_sel = new;
            s.detail_scroll = 0;
            if !s.all_tools {
                s.tool_sel = 0;
                s.refilter();
            }
        }
        Pane::Tools => {
            let new = step(s.tool_sel, by, s.visible.len());
            if new == s.tool_sel {
                return false;
            }
            s.tool_sel = new;
            s.detail_scroll = 0;
        }
        Pane::Detail => s.detail_scroll = step(s.detail_scroll, by, usize::MAX / 4),
        Pane::Result => {
            // The last page, not the last line alone, is as far as it goes.
            let height = s.areas.result.height.saturating_sub(2) as usize;
            let n = s.outcome.as_ref().map(|o| o.lines.len()).unwrap_or(0);
            let last = n.saturating_sub(height.max(1)) + 1;
            s.result_scroll = step(s.result_scroll, by, last);
        }
    }
    true
}
