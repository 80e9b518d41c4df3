//! Following a call's resource links (`f`): one is read in place, in the
//! resources view, several are listed first. Esc comes back to the result.

use crate::mcp::types::Content;
use crate::tui::browse::Kind;
use crate::tui::keymap::Action;

use super::*;

/// The links of the result shown: `resource_link` blocks, then embedded
/// resources (read again from the server), as (uri, label).
pub fn of_result(s: &State) -> Vec<(String, String)> {
    let Some(Ok(r)) = s
        .outcome
        .as_ref()
        .filter(|_| s.inflight().is_none())
        .map(|o| &o.result)
    else {
        return Vec::new();
    };
    let mut out: Vec<(String, String)> = Vec::new();
    for block in &r.content {
        let (uri, label) = match block {
            Content::ResourceLink {
                uri,
                name,
                description,
                ..
            } => {
                let mut label = name.clone().unwrap_or_default();
                if let Some(d) = description {
                    if !label.is_empty() {
                        label.push_str(" · ");
                    }
                    label.push_str(d);
                }
                (uri, label)
            }
            Content::Resource { uri, .. } => (uri, "embedded".to_string()),
            _ => continue,
        };
        if !out.iter().any(|(u, _)| u == uri) {
            out.push((uri.clone(), label));
        }
    }
    out
}

/// `f`: follow the result's only link, or list them.
pub(super) fn open(s: &mut State, fx: &mut Vec<Effect>) -> bool {
    let links = of_result(s);
    match links.len() {
        0 => {
            s.status = Some("this result has no resource link to follow".into());
        }
        1 => follow(s, &links[0].0, fx),
        _ => {
            s.links = links;
            s.links_sel = 0;
            s.mode = Mode::Links;
        }
    }
    true
}

/// Keys of the list of links.
pub(super) fn key(s: &mut State, action: Option<Action>, fx: &mut Vec<Effect>) -> bool {
    let n = s.links.len();
    match action {
        Some(Action::Up) => s.links_sel = s.links_sel.saturating_sub(1),
        Some(Action::Down) => s.links_sel = (s.links_sel + 1).min(n.saturating_sub(1)),
        Some(Action::Home) => s.links_sel = 0,
        Some(Action::End) => s.links_sel = n.saturating_sub(1),
        Some(Action::Open | Action::FollowLink) => {
            s.mode = Mode::Normal;
            if let Some((uri, _)) = s.links.get(s.links_sel).cloned() {
                follow(s, &uri, fx);
            }
        }
        Some(Action::Back | Action::Quit) => s.mode = Mode::Normal,
        _ => return false,
    }
    true
}

/// Read `uri` from the result's server in the resources view; Esc there
/// comes back to the result.
fn follow(s: &mut State, uri: &str, fx: &mut Vec<Effect>) {
    let Some(server) = s.outcome.as_ref().map(|o| o.server.clone()) else {
        return;
    };
    s.resources.open(server.clone());
    s.mode = Mode::Resources;
    s.with_browse(Kind::Resources, fx, |b, cx| {
        b.read(&server, uri, false, cx);
        b.contents_focus = true;
        b.from_result = true;
    });
}
