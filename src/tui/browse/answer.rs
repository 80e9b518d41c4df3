//! Requests of the views and their answers: reads and prompts got,
//! suggestions, subscriptions and their update marks, saving and copying
//! what was read.

use serde_json::{Map, Value, json};

use super::*;
use crate::mcp::manager::Command;

/// The answer to a subscribe or unsubscribe: the marks follow.
pub fn on_subscription(v: &mut ServerView, uri: &str, subscribed: bool, ok: bool) {
    v.subs.asking.remove(uri);
    if !ok {
        return;
    }
    if subscribed {
        v.subs.on.insert(uri.to_string());
    } else {
        v.subs.on.remove(uri);
        v.subs.updated.remove(uri);
    }
}

/// `notifications/resources/updated`: a subscribed resource is marked;
/// false when it is not subscribed to.
pub fn mark_updated(v: &mut ServerView, uri: &str) -> bool {
    if !v.subs.on.contains(uri) {
        return false;
    }
    v.subs.updated.insert(uri.to_string());
    true
}

/// A server is no longer connected: its subscriptions are gone.
pub fn server_gone(v: &mut ServerView) {
    v.subs = Subs::default();
}

fn suggestions(field: usize, result: Result<Value, CallError>) -> Suggest {
    let mut g = Suggest {
        field,
        values: Vec::new(),
        total: None,
        has_more: false,
        at: None,
        error: None,
    };
    match result {
        Ok(v) => {
            let c = v.get("completion").cloned().unwrap_or(Value::Null);
            g.values = c
                .get("values")
                .and_then(Value::as_array)
                .map(|vs| {
                    vs.iter()
                        .filter_map(Value::as_str)
                        .take(MAX_SUGGESTIONS)
                        .map(str::to_string)
                        .collect()
                })
                .unwrap_or_default();
            g.total = c.get("total").and_then(Value::as_u64);
            g.has_more = c.get("hasMore").and_then(Value::as_bool) == Some(true);
        }
        Err(e) => g.error = Some(e.to_string()),
    }
    g
}

impl Browse {
    pub(crate) fn read(&mut self, server: &str, uri: &str, refresh: bool, cx: &mut Ctx) {
        let tag = cx.tag();
        cx.fx.push(Effect::Manager(Command::Request {
            tag,
            server: server.to_string(),
            method: "resources/read".into(),
            params: json!({ "uri": uri }),
        }));
        self.pending = Some(Pending {
            tag,
            server: server.to_string(),
            what: What::Read {
                uri: uri.to_string(),
            },
            refresh,
        });
    }

    pub(super) fn get(
        &mut self,
        server: &str,
        name: &str,
        arguments: Map<String, Value>,
        cx: &mut Ctx,
    ) {
        let tag = cx.tag();
        cx.fx.push(Effect::Manager(Command::Request {
            tag,
            server: server.to_string(),
            method: "prompts/get".into(),
            // Always an object: SDKs that validate arguments refuse none.
            params: json!({ "name": name, "arguments": arguments }),
        }));
        self.pending = Some(Pending {
            tag,
            server: server.to_string(),
            what: What::Prompt {
                name: name.to_string(),
            },
            refresh: false,
        });
    }

    /// A subscription of the selected resource, on or off.
    pub(super) fn toggle_subscription(&mut self, cx: &mut Ctx) -> bool {
        if cx.kind != Kind::Resources {
            cx.say("subscriptions are for resources");
            return true;
        }
        let Some((e, x)) = self.selected(cx) else {
            return true;
        };
        let Entry::Resource(_) = e else {
            cx.say("a template cannot be subscribed to; only resources can");
            return true;
        };
        let Some(uri) = text(&x, "uri").map(str::to_string) else {
            return true;
        };
        let Some(v) = cx.server.as_deref_mut() else {
            return true;
        };
        let name = v.name.clone();
        if !can_subscribe(v) {
            cx.say(format!(
                "{name} does not declare resources.subscribe: it sends no resource updates"
            ));
            return true;
        }
        let on = !v.subs.on.contains(&uri);
        let shown = crate::sanitize::one_line(&uri);
        if v.subs.asking.contains_key(&uri) {
            cx.say(format!("still waiting for {name} about {shown}"));
            return true;
        }
        v.subs.asking.insert(uri.clone(), on);
        cx.say(format!(
            "{} {shown}…",
            if on {
                "subscribing to"
            } else {
                "unsubscribing from"
            }
        ));
        cx.fx.push(Effect::Manager(if on {
            Command::Subscribe(name, uri)
        } else {
            Command::Unsubscribe(name, uri)
        }));
        true
    }

    /// A subscribed resource of the view's server was updated: read it
    /// again if it is the one shown.
    pub fn on_updated(&mut self, uri: &str, cx: &mut Ctx) -> bool {
        let shown = self.shown.as_ref().is_some_and(|x| {
            x.server == self.server && matches!(&x.what, What::Read { uri: u } if u == uri)
        });
        if shown && self.pending.is_none() {
            let server = self.server.clone();
            self.read(&server, uri, true, cx);
        }
        shown
    }

    /// Whether an answer with this tag is awaited by this view.
    pub fn awaits(&self, tag: u64) -> bool {
        self.pending.as_ref().is_some_and(|p| p.tag == tag)
            || self
                .form
                .as_ref()
                .is_some_and(|f| f.asking.is_some_and(|(t, _)| t == tag))
    }

    /// An answer to a request of this view; false when it is not one (or no
    /// longer awaited).
    pub fn on_response(
        &mut self,
        tag: u64,
        result: Result<Value, CallError>,
        cx: &mut Ctx,
    ) -> bool {
        if self.pending.as_ref().is_some_and(|p| p.tag == tag) {
            if let Some(p) = self.pending.take() {
                self.finish(p, result, cx);
            }
            return true;
        }
        if let Some(f) = self.form.as_mut()
            && let Some((_, field)) = f.asking.filter(|(t, _)| *t == tag)
        {
            f.asking = None;
            f.suggest = Some(suggestions(field, result));
            return true;
        }
        false
    }

    fn finish(&mut self, p: Pending, result: Result<Value, CallError>, cx: &mut Ctx) {
        let (lines, media) = match &p.what {
            What::Read { .. } => crate::tui::result::read_lines(&result),
            What::Prompt { name } => crate::tui::result::prompt_lines(name, &result),
        };
        if let (What::Read { uri }, Ok(_)) = (&p.what, &result)
            && let Some(v) = cx.server.as_deref_mut().filter(|v| v.name == p.server)
        {
            v.subs.updated.remove(uri);
        }
        let updates = match &self.shown {
            Some(old) if p.refresh && old.what == p.what && old.server == p.server => {
                old.updates + 1
            }
            _ => 0,
        };
        if !p.refresh {
            self.scroll = 0;
        }
        self.shown = Some(Shown {
            server: p.server,
            what: p.what,
            result,
            lines,
            media,
            updates,
        });
    }

    pub(super) fn save(&mut self, cx: &mut Ctx) -> bool {
        use base64::Engine;
        let Some(x) = &self.shown else {
            cx.say("nothing read yet to save");
            return true;
        };
        if x.media.is_empty() {
            cx.say("this has no blob, image or audio to save");
            return true;
        }
        let mut files = Vec::new();
        let mut bad = 0;
        for (name, data) in &x.media {
            match base64::engine::general_purpose::STANDARD.decode(data.trim()) {
                Ok(bytes) => files.push((name.clone(), bytes)),
                Err(_) => bad += 1,
            }
        }
        if files.is_empty() {
            cx.say(format!(
                "{bad} blob{} not valid base64; nothing saved",
                if bad == 1 { " is" } else { "s are" }
            ));
            return true;
        }
        cx.fx.push(Effect::Save(files));
        true
    }

    pub(super) fn copy(&mut self, cx: &mut Ctx) -> bool {
        let Some(x) = &self.shown else {
            cx.say("nothing to copy yet");
            return true;
        };
        let text = match &x.result {
            Ok(v) => serde_json::to_string_pretty(v).unwrap_or_default(),
            Err(e) => e.to_string(),
        };
        let note = crate::tui::app::copy_effect(text, cx.fx);
        cx.say(note);
        true
    }
}
