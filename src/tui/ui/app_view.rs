//! An MCP Apps tool's view in the tool detail (mcpdeck renders no view).

use ratatui::style::{Modifier, Style};
use ratatui::text::Line;

use super::*;
use crate::tui::theme::Role;

/// An MCP Apps tool's view: its `ui://` resource, who may call the tool,
/// and the view's CSP and permissions as the resource listing declares
/// them (mcpdeck renders no view).
pub(super) fn app_lines(
    ui: &crate::mcp::apps::ToolUi,
    resources: &[serde_json::Value],
    lines: &mut Vec<Line<'static>>,
) {
    lines.push(Line::raw(""));
    lines.push(Line::styled(
        "App view (MCP Apps; not rendered)",
        Style::default().add_modifier(Modifier::BOLD),
    ));
    lines.push(Line::raw(format!(
        "  resource: {}",
        clean(&ui.resource_uri)
    )));
    if let Some(v) = &ui.visibility {
        lines.push(Line::raw(format!("  visibility: {}", clean(&v.join(", ")))));
    }
    for p in crate::mcp::apps::tool_problems(ui) {
        lines.push(Line::styled(
            format!("  ✗ {}", clean(&p)),
            Role::Warn.style(),
        ));
    }
    let listed = resources.iter().find(|r| {
        r.get("uri").and_then(serde_json::Value::as_str) == Some(ui.resource_uri.as_str())
    });
    let meta = listed
        .and_then(|r| r.get("_meta"))
        .and_then(|m| m.get("ui"))
        .and_then(serde_json::Value::as_object);
    match meta {
        Some(m) => {
            match m.get("csp").and_then(serde_json::Value::as_object) {
                Some(csp) if !csp.is_empty() => {
                    for (k, v) in csp {
                        let list: Vec<String> = v
                            .as_array()
                            .map(|a| {
                                a.iter()
                                    .map(|d| {
                                        d.as_str().map_or_else(|| d.to_string(), str::to_string)
                                    })
                                    .collect()
                            })
                            .unwrap_or_default();
                        lines.push(Line::raw(format!(
                            "  csp {}: {}",
                            clean(k),
                            clean(&list.join(" "))
                        )));
                    }
                }
                _ => lines.push(Line::raw(
                    "  csp: none declared (no network, no outside resources)",
                )),
            }
            let perms: Vec<String> = m
                .get("permissions")
                .and_then(serde_json::Value::as_object)
                .map(|p| p.keys().cloned().collect())
                .unwrap_or_default();
            lines.push(Line::raw(format!(
                "  permissions: {}",
                if perms.is_empty() {
                    "none asked".to_string()
                } else {
                    clean(&perms.join(", "))
                }
            )));
        }
        None => lines.push(Line::styled(
            format!(
                "  {} (`mcpdeck app-info` reads the view and checks its CSP and permissions)",
                if listed.is_some() {
                    "the listing declares no CSP or permissions; the view's content may"
                } else {
                    "the view is not in the server's resource list"
                }
            ),
            Role::Muted.style(),
        )),
    }
}
