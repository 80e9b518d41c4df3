//! The tools pane's actions: open a tool's request, run it again, the
//! per-tool deny list, and a tool call as a command line to copy.

use super::*;

/// Keys on the tools and calls.
pub(super) fn tool_action(s: &mut State, a: Action, fx: &mut Vec<Effect>) -> bool {
    match a {
        Action::Filter => {
            // A new `/` starts a new filter (as in less and vim).
            s.filter.clear();
            s.refilter();
            s.mode = Mode::Filter;
            s.focus = Pane::Tools;
            s.focused();
            true
        }
        Action::AllTools => {
            s.all_tools = !s.all_tools;
            s.tool_sel = 0;
            s.refilter();
            true
        }
        Action::Back => {
            if let Some(c) = s.inflight().filter(|_| s.focus == Pane::Result) {
                // The running call shown, and only that one.
                fx.push(Effect::Manager(Command::Cancel { tag: c.tag }));
                s.status = Some(format!("cancelling {} on {}…", c.tool, c.server));
            } else if s.focus == Pane::Result {
                // Back to where the call was made from.
                s.focus = s.focus_before_result.take().unwrap_or(Pane::Tools);
                s.focused();
            } else if !s.filter.is_empty() {
                s.filter.clear();
                s.refilter();
            } else {
                s.focus = Pane::Servers;
                s.focused();
            }
            true
        }
        Action::Open if s.selected_tool().is_none() => not_ready(s),
        Action::Open => {
            let from = s.focus;
            let opened = open_editor(s);
            if opened && s.mode == Mode::Editor && matches!(from, Pane::Servers | Pane::Tools) {
                s.focus_before_result = Some(from);
            }
            opened
        }
        Action::ToggleDeny => match s.focused_item() {
            Focused::Tool => toggle_deny(s, fx),
            _ => {
                s.status = Some(format!(
                    "{} denies a tool: pick one in the tools pane ({})",
                    s.keymap.label(Action::ToggleDeny),
                    s.keymap.label(Action::NextPane)
                ));
                true
            }
        },
        _ => false,
    }
}

/// Deny or allow the selected tool on its server, and save the list.
pub(super) fn toggle_deny(s: &mut State, fx: &mut Vec<Effect>) -> bool {
    let Some((si, ti)) = s.visible.get(s.tool_sel).copied() else {
        return false;
    };
    let Some(v) = s.servers.get_mut(si) else {
        return false;
    };
    let Some(tool) = v.lists.tools.get(ti).map(|t| t.name.clone()) else {
        return false;
    };
    let previous = v.deny.clone();
    // The toggle adds or removes the exact name. A tool refused by a
    // pattern or by allow_tools only: say which rule, change nothing (an
    // exact entry beside the pattern would change nothing either).
    if !v.deny.contains(&tool)
        && let Some(rule) = crate::config::tool_refusal(&v.deny, &v.allow, &tool)
    {
        s.status = Some(format!(
            "{} is refused by {rule} of {}; change that entry in the config (`mcpdeck config edit`)",
            crate::sanitize::one_line(&tool),
            crate::sanitize::one_line(&v.name)
        ));
        return true;
    }
    let denied = !v.deny.contains(&tool);
    if denied {
        v.deny.push(tool.clone());
    } else {
        v.deny.retain(|d| *d != tool);
    }
    let (server, tools) = (v.name.clone(), v.deny.clone());
    let note = format!(
        "{} {} on {}",
        if denied { "denied" } else { "allowed" },
        crate::sanitize::one_line(&tool),
        crate::sanitize::one_line(&server)
    );
    // A server tried from the registry is not in the file: this session.
    if let Some(c) = s.registry.tried.iter_mut().find(|c| c.name == server) {
        c.deny_tools = tools.clone();
        fx.push(Effect::Manager(Command::SetDenyList(server, tools)));
        s.status = Some(format!(
            "{note} (for this session: it was tried from the registry, not in the config)"
        ));
        return true;
    }
    s.status = Some(format!("{note}…"));
    fx.push(Effect::WriteDeny {
        server,
        tools,
        previous,
        note,
    });
    true
}

/// The result's call as a shell command line that makes it again:
/// `mcpdeck --config 'FILE' call 'SERVER' 'TOOL' '{"a":1}'` (`--demo` for
/// the demo servers), each word quoted for a POSIX shell; or why not.
pub(in crate::tui::app) fn command_line(s: &State) -> Result<String, String> {
    let o = s
        .outcome
        .as_ref()
        .ok_or("no call yet to copy as a command line")?;
    let one = crate::sanitize::one_line;
    if !s.servers.iter().any(|v| v.name == o.server) {
        return Err(format!(
            "{} is not a server of this config: no command line makes this call",
            one(&o.server)
        ));
    }
    if o.tool.starts_with('-') {
        return Err(format!(
            "the tool {} starts with `-`, which the command line reads as an option",
            one(&o.tool)
        ));
    }
    let Some(args) = &o.args else {
        return Err("the arguments of this call are not known (not in the log)".into());
    };
    // Compact, as typed on a command line.
    let args = serde_json::from_str::<serde_json::Value>(args)
        .map(|v| v.to_string())
        .unwrap_or_else(|_| args.clone());
    let mut words = vec!["mcpdeck".to_string()];
    match &s.config_path {
        Some(p) => {
            words.push("--config".into());
            words.push(sh_quote(&p.display().to_string()));
        }
        None => words.push("--demo".into()),
    }
    words.push("call".into());
    words.push(sh_quote(&o.server));
    words.push(sh_quote(&o.tool));
    words.push(sh_quote(&args));
    Ok(words.join(" "))
}

/// `text` as one word for a POSIX shell: bare when it is plain, else in
/// single quotes (a quote inside as `'\''`).
pub(crate) fn sh_quote(text: &str) -> String {
    let plain = !text.is_empty()
        && text
            .chars()
            .all(|c| c.is_ascii_alphanumeric() || "-_./:=@%+,".contains(c));
    if plain {
        text.to_string()
    } else {
        format!("'{}'", text.replace('\'', "'\\''"))
    }
}
