//! The servers pane's actions: connect, disconnect, restart, ping, the
//! server's own views, and switching a server on and off in the config.

use super::*;

/// Keys on the selected server.
pub(super) fn server_action(s: &mut State, a: Action, fx: &mut Vec<Effect>) -> bool {
    match a {
        // An empty tools pane has no tool to toggle: Space there never
        // disables the server.
        Action::ToggleServer if s.focus == Pane::Tools && s.selected_tool().is_none() => {
            let whose = s
                .selected_server()
                .map(|v| format!(" of {}", crate::sanitize::one_line(&v.name)))
                .unwrap_or_default();
            s.status = Some(format!(
                "no tool to toggle: the tools pane{whose} is empty ({} in the servers pane enables or disables the server)",
                s.keymap.label(Action::ToggleServer)
            ));
            true
        }
        Action::ToggleServer => match s.focused_item() {
            // Space toggles what the focused pane has selected: a server
            // in the servers pane, a tool (deny / allow) in the tools pane.
            Focused::Server => toggle_server(s, fx),
            Focused::Tool => toggle_deny(s, fx),
            Focused::Nothing => {
                s.status = Some(format!(
                    "{} toggles a server or a tool: pick one in a list ({})",
                    s.keymap.label(Action::ToggleServer),
                    s.keymap.label(Action::NextPane)
                ));
                true
            }
        },
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
                s.status =
                    Some("no config file to reload (demo): listing every server again".into());
            } else {
                fx.push(Effect::Reload);
            }
            // R always lists again, whatever a list's caching hints say
            // (SEP-2549): the person asked.
            for v in &s.servers {
                if v.status == ServerStatus::Connected {
                    fx.push(Effect::Manager(Command::Refresh(v.name.clone())));
                }
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

/// Enable or disable the selected server, and save it.
pub(super) fn toggle_server(s: &mut State, fx: &mut Vec<Effect>) -> bool {
    let Some(v) = s.servers.get_mut(s.server_sel) else {
        return false;
    };
    v.enabled = !v.enabled;
    let (server, enabled) = (v.name.clone(), v.enabled);
    let note = format!(
        "{} {}",
        if enabled { "enabled" } else { "disabled" },
        crate::sanitize::one_line(&server)
    );
    // A server tried from the registry is not in the file: this session.
    if let Some(c) = s.registry.tried.iter_mut().find(|c| c.name == server) {
        c.enabled = enabled;
        fx.push(Effect::Manager(Command::SetEnabled(server, enabled)));
        s.status = Some(format!(
            "{note} (for this session: it was tried from the registry, not in the config)"
        ));
        return true;
    }
    s.status = Some(format!("{note}…"));
    fx.push(Effect::WriteEnabled {
        server,
        enabled,
        note,
    });
    true
}
