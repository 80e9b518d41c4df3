//! Keys: each goes to the request screen, the view or the mode that has
//! the keyboard; in the panes, named actions from the keymap.

use crossterm::event::{KeyCode, KeyEvent, KeyModifiers};

use crate::config::ServerConfig;
use crate::mcp::manager::{Command, ServerStatus};
use crate::tui::keymap::Action;

use super::editor::{editor_key, open_editor};
use super::media::{copy, save_result};
use super::model::*;
use super::views::{log_key, net_key, open_net};
use super::*;

mod servers;
mod tools;

use servers::server_action;
pub(super) use tools::command_line;
pub(crate) use tools::sh_quote;
use tools::{toggle_deny, tool_action};

pub(super) fn on_key(s: &mut State, k: KeyEvent, fx: &mut Vec<Effect>) -> bool {
    // A message lasts until the next key: what that key does says what
    // happened now, not five actions ago.
    let had_status = s.status.take().is_some();
    key(s, k, fx) || had_status
}

fn key(s: &mut State, k: KeyEvent, fx: &mut Vec<Effect>) -> bool {
    let action = s.keymap.action(&k);
    if action == Some(Action::ForceQuit) {
        fx.push(Effect::Interrupt);
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
    // Enter on a server that is still connecting: the keys typed next
    // are for the editor it will open, never for another screen.
    if let Some(p) = s.pending_open.as_mut() {
        if action == Some(Action::Back) {
            let p = s.pending_open.take();
            s.status = Some(format!(
                "stopped waiting for {}",
                p.map(|p| crate::sanitize::one_line(&p.server))
                    .unwrap_or_default()
            ));
        } else if p.keys.len() < PENDING_KEYS {
            p.keys.push(k);
        }
        return true;
    }
    match s.mode {
        Mode::Help => help_key(s, k, action),
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
        Mode::Log if s.log.frame_focus || s.log.frame_search.typing => {
            super::find::frame_key(s, k, fx)
        }
        Mode::Log => log_key(s, action, fx),
        Mode::Net => net_key(s, action, fx),
        Mode::Resources | Mode::Prompts => {
            let kind = match s.mode {
                Mode::Resources => crate::tui::browse::Kind::Resources,
                _ => crate::tui::browse::Kind::Prompts,
            };
            s.with_browse(kind, fx, |b, cx| b.key(k, action, cx))
        }
        Mode::Skills => crate::tui::skills::key(s, k, action, fx),
        Mode::Registry => crate::tui::registry::key(s, k, action, fx),
        Mode::AddServer => add_key(s, k, fx),
        Mode::Roots => super::roots::key(s, k, fx),
        Mode::SuitePick => super::suites::pick_key(s, k, fx),
        Mode::Tests => super::suites::view_key(s, k, fx),
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
        Mode::Import => super::import::key(s, k, action, fx),
        Mode::Serves => crate::tui::attach::list_key(s, action, fx),
        Mode::Links => super::links::key(s, action, fx),
        Mode::History => super::history_view::key(s, k, fx),
        Mode::Attached => crate::tui::attach::key(s, action, fx),
        Mode::Normal if matches!(s.focus, Pane::Result | Pane::Detail) => {
            super::find::pane_key(s, k, fx)
        }
        Mode::Normal => match action {
            Some(a) => normal_action(s, a, fx),
            None => false,
        },
    }
}

/// The help: the moves scroll it, `/` searches it, other keys close it.
fn help_key(s: &mut State, k: KeyEvent, action: Option<Action>) -> bool {
    if s.help_typing {
        if edit_line(&mut s.help_query, &k) {
            s.help_scroll = 0;
            return true;
        }
        match action {
            Some(Action::Back) => {
                s.help_query.clear();
                s.help_typing = false;
            }
            Some(Action::Open) => s.help_typing = false,
            Some(a @ (Action::Up | Action::Down | Action::PageUp | Action::PageDown)) => {
                return help_scroll(s, a);
            }
            _ => return false,
        }
        s.help_scroll = 0;
        return true;
    }
    match action {
        Some(
            a @ (Action::Up
            | Action::Down
            | Action::PageUp
            | Action::PageDown
            | Action::Home
            | Action::End),
        ) => help_scroll(s, a),
        Some(Action::Zoom) => {
            s.help_zoom = !s.help_zoom;
            s.help_scroll = 0;
            true
        }
        Some(Action::Filter) => {
            s.help_query.clear();
            s.help_typing = true;
            s.help_scroll = 0;
            true
        }
        Some(Action::Back) if !s.help_query.is_empty() => {
            s.help_query.clear();
            s.help_scroll = 0;
            true
        }
        _ => {
            s.help_scroll = 0;
            s.help_query.clear();
            s.mode = s.help_back.take().unwrap_or(Mode::Normal);
            true
        }
    }
}

fn help_scroll(s: &mut State, a: Action) -> bool {
    let screen = ratatui::layout::Rect::new(0, 0, s.size.0, s.size.1);
    let (total, rows) = crate::tui::ui::help_geometry(s, screen);
    let page = rows.max(1) as isize;
    let by = match a {
        Action::Up => -1,
        Action::Down => 1,
        Action::PageUp => -page,
        Action::PageDown => page,
        Action::Home => isize::MIN / 2,
        _ => isize::MAX / 2,
    };
    let last = total.saturating_sub(rows.max(1));
    let new = step(s.help_scroll.min(last), by, last + 1);
    let moved = new != s.help_scroll;
    s.help_scroll = new;
    moved
}

/// A key typed into a one-line text (a character, Backspace); false when
/// it is not for the text but a command.
///
/// Raw keys, outside the keymap: this is text entry (the filters, the
/// help's search, the add-server form), where every character is typed
/// and Backspace deletes, as in any text box; were they actions, a
/// rebinding could turn a letter into a command mid-word. The help lists
/// them among the fixed typing keys.
pub(crate) fn edit_line(text: &mut String, k: &KeyEvent) -> bool {
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
        // As in every form: clear the field.
        Some(Action::ClearField) => field.clear(),
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
        Action::Import => super::import::open(s, fx),
        Action::EditRoots => super::roots::open(s, fx),
        Action::Filter | Action::AllTools | Action::Open | Action::ToggleDeny | Action::Back => {
            tool_action(s, a, fx)
        }
        Action::FollowLink => super::links::open(s, fx),
        Action::PrevCall | Action::NextCall => {
            let by = if a == Action::NextCall { 1 } else { -1 };
            if s.entry_count() == 0 {
                s.status = Some("no call yet".into());
                return true;
            }
            let moved = super::calls::step(s, by);
            if !moved {
                let end = if by > 0 { "newest" } else { "oldest" };
                s.status = Some(format!("this is the {end} call kept"));
            }
            true
        }
        Action::Requests => {
            if !s.asks.bring_back() {
                s.status = Some("no server request is waiting".into());
            }
            true
        }
        Action::History => super::history_view::open(s),
        Action::AddTest => super::suites::add(s, fx),
        Action::RunTests => super::suites::run(s, fx),
        Action::Copy
        | Action::CopyCommand
        | Action::CopyCurl
        | Action::Save
        | Action::ProtocolLog
        | Action::Network
        | Action::Resources
        | Action::Prompts
        | Action::Skills
        | Action::Subscribe => view_action(s, a, fx),
        Action::Help | Action::Quit => app_action(s, a, fx),
        Action::Zoom => {
            s.zoom = !s.zoom;
            s.relayout();
            true
        }
        Action::AcceptPins => super::trust::accept(s, fx),
        Action::ResetStats => super::latency::reset(s),
        Action::Record => {
            fx.push(Effect::Record);
            true
        }
        Action::Login => super::login::login(s, fx),
        Action::Logout => super::login::logout(s, fx),
        Action::Registry => crate::tui::registry::open(s, fx),
        Action::TryServer => {
            s.status = Some(format!(
                "{} tries an entry of the MCP Registry: {} opens the registry browser",
                s.keymap.label(Action::TryServer),
                s.keymap.label(Action::Registry)
            ));
            true
        }
        Action::Serves => crate::tui::attach::open_list(s, fx),
        // Send, the JSON switch, the external editor and the list keys
        // belong to the argument editor; the answers to a server's request.
        _ => {
            let keys = s.keymap.label(a);
            let what = a.help();
            s.status = Some(match a {
                Action::Send
                | Action::ExternalEditor
                | Action::ToggleJson
                | Action::ResetArgs
                | Action::AddItem
                | Action::RemoveItem
                | Action::SelectAll
                | Action::ClearField
                | Action::Undo => format!(
                    "{keys} ({what}) works in the argument editor and forms: pick a tool and press {}",
                    s.keymap.label(Action::Open)
                ),
                _ => format!("{keys} ({what}) does nothing here"),
            });
            true
        }
    }
}

/// Moves between the panes.
fn focus_action(s: &mut State, a: Action) -> bool {
    let moved = focus_move(s, a);
    if moved {
        s.focused();
    }
    moved
}

fn focus_move(s: &mut State, a: Action) -> bool {
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
        // Shift-Tab from the servers pane goes into the selected server's
        // detail (to scroll its stderr, notifications, latency table), and
        // back out of it to the servers.
        Action::PrevPane if s.focus == Pane::Servers && s.selected_server().is_some() => {
            if !s.detail_server {
                s.detail_scroll = 0;
            }
            s.detail_server = true;
            s.focus = Pane::Detail;
            true
        }
        Action::PrevPane if s.focus == Pane::Detail && s.detail_server => {
            s.focus = Pane::Servers;
            true
        }
        Action::NextPane | Action::PrevPane => {
            s.focus = s.focus.step(a == Action::NextPane);
            true
        }
        _ => false,
    }
}

/// The most keys kept while waiting for a server's tools.
const PENDING_KEYS: usize = 512;

/// The status while Enter waits for a server.
pub fn waiting_note(s: &State) -> String {
    let Some(p) = &s.pending_open else {
        return String::new();
    };
    let typed = match p.keys.len() {
        0 => String::new(),
        n => format!("; {n} keys typed are kept for it"),
    };
    format!(
        "waiting for {} to connect: its first tool's editor opens then{typed} ({} stops)",
        crate::sanitize::one_line(&p.server),
        s.keymap.label(Action::Back)
    )
}

/// Enter with no tool to open: wait for a server that is connecting, or
/// say why there is none.
fn not_ready(s: &mut State) -> bool {
    let server = (!s.all_tools)
        .then(|| s.selected_server())
        .flatten()
        .map(|v| (v.name.clone(), v.status.clone(), v.lists.tools.len()));
    s.status = Some(match server {
        Some((name, ServerStatus::Pending, _)) => {
            s.pending_open = Some(PendingOpen {
                server: name,
                keys: Vec::new(),
            });
            // The status bar shows the wait while it lasts.
            return true;
        }
        Some((name, ServerStatus::Connected, 0)) => {
            format!("{} has no tools", crate::sanitize::one_line(&name))
        }
        Some((name, ServerStatus::Connected, _)) => {
            format!(
                "no tool of {} matches the filter",
                crate::sanitize::one_line(&name)
            )
        }
        Some((name, status, _)) => format!(
            "{} is not connected ({}): {} reconnects",
            crate::sanitize::one_line(&name),
            status.label(),
            s.keymap.label(Action::Reconnect)
        ),
        None => "no tool selected".to_string(),
    });
    true
}

/// A server that Enter waits for changed: open its first tool's editor
/// and hand it the keys typed meanwhile, or give up and say so.
pub(super) fn resume_pending(s: &mut State, fx: &mut Vec<Effect>) -> bool {
    let Some(p) = &s.pending_open else {
        return false;
    };
    let Some(v) = s.servers.iter().find(|v| v.name == p.server) else {
        s.pending_open = None;
        return true;
    };
    match v.status {
        ServerStatus::Pending => false,
        ServerStatus::Connected if v.lists.tools.is_empty() => false,
        ServerStatus::Connected => {
            let Some(p) = s.pending_open.take() else {
                return false;
            };
            // Its first visible tool, if the selection is elsewhere.
            if s.selected_tool().is_none_or(|(v, _)| v.name != p.server)
                && let Some(i) = s
                    .visible
                    .iter()
                    .position(|(si, _)| s.servers.get(*si).is_some_and(|v| v.name == p.server))
            {
                s.tool_sel = i;
            }
            if s.selected_tool().is_some() {
                let from = s.focus;
                if open_editor(s) && s.mode == Mode::Editor {
                    s.focus_before_result = Some(from);
                }
                for k in p.keys {
                    key(s, k, fx);
                }
            }
            true
        }
        _ => {
            let Some(p) = s.pending_open.take() else {
                return false;
            };
            s.status = Some(format!(
                "{} did not connect ({}); {} typed keys were dropped",
                crate::sanitize::one_line(&p.server),
                v.status.label(),
                p.keys.len()
            ));
            true
        }
    }
}

/// Keys that open a view, or act on the result.
fn view_action(s: &mut State, a: Action, fx: &mut Vec<Effect>) -> bool {
    match a {
        Action::Copy => {
            let (text, file) = match &s.outcome {
                Some(o) => {
                    let safe = super::media::safe_name(&o.tool);
                    match &o.result {
                        Ok(r) => (
                            serde_json::to_string_pretty(&r.raw).unwrap_or_default(),
                            format!("mcpdeck-{safe}-result.json"),
                        ),
                        Err(e) => (e.to_string(), format!("mcpdeck-{safe}-error.txt")),
                    }
                }
                None => {
                    s.status = Some("nothing to copy yet".into());
                    return true;
                }
            };
            s.status = Some(super::media::copy_or_save(text, &file, fx));
            true
        }
        Action::CopyCommand => {
            match command_line(s) {
                Ok(line) => copy(s, line, fx),
                Err(why) => s.status = Some(why),
            }
            true
        }
        Action::CopyCurl => {
            match super::curl::command(s) {
                Ok(call) => fx.push(Effect::CopyCurl(Box::new(call))),
                Err(why) => s.status = Some(crate::sanitize::one_line(&why)),
            }
            true
        }
        Action::Save => {
            save_result(s, fx);
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
        Action::Skills => crate::tui::skills::open(s, fx),
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
            if !s.running.is_empty() {
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
    // A page is what the focused pane shows.
    let page = s.page_rows(s.focus).max(1) as isize;
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
        Pane::Detail => {
            // The last page, not the last line alone, is as far as it goes.
            let last = s
                .detail_len()
                .saturating_sub(s.page_rows(Pane::Detail).max(1));
            let new = step(s.detail_scroll, by, last + 1);
            if new == s.detail_scroll {
                return false;
            }
            s.detail_scroll = new;
        }
        Pane::Result => {
            // JSON that folds: ↑ ↓ move its cursor.
            if by.abs() == 1
                && s.inflight().is_none()
                && s.outcome.as_ref().is_some_and(super::fold::folds)
            {
                return super::fold::step_cursor(s, by);
            }
            // By screen lines, at the pane's width: the end of a long
            // line is reached like any other.
            let last = s.result_len().saturating_sub(s.result_room().max(1));
            let new = step(s.result_scroll, by, last + 1);
            let to_end = by >= isize::MAX / 2;
            if new == s.result_scroll {
                if to_end {
                    super::fold::follow_scroll(s, true);
                    return true;
                }
                return false;
            }
            s.result_scroll = new;
            super::fold::follow_scroll(s, to_end);
        }
    }
    true
}
