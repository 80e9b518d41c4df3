//! The screens of the requests: a form, a URL to open, a sampling request
//! answered by hand, or a request that can only be declined.

use ratatui_textarea::{TextArea, WrapMode};
use serde_json::Value;

use super::form::*;
use crate::tui::app::AskView;

/// The screen of the request at the front of the queue.
pub enum AskScreen {
    Form(Form),
    Url(UrlAsk),
    Sampling(Box<Sampling>),
    /// A request this client cannot show (an unknown elicitation mode or
    /// method): it can only be declined or cancelled.
    Other {
        text: String,
    },
}

/// An elicitation in URL mode.
#[derive(Debug, Clone, PartialEq)]
pub struct UrlAsk {
    pub message: String,
    /// The URL as sent (drawn sanitized).
    pub url: String,
    /// The URL parsed, when it is one: what is opened and copied.
    pub parsed: Option<url::Url>,
    pub elicitation_id: Option<String>,
}

impl UrlAsk {
    /// Whether `o` may open it: an http(s) URL only (never a file, a
    /// custom scheme, or anything an opener would run).
    pub fn openable(&self) -> Option<&url::Url> {
        self.parsed
            .as_ref()
            .filter(|u| matches!(u.scheme(), "http" | "https") && u.host_str().is_some())
    }
}

/// What a line of the sampling request is, for its style.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum LineKind {
    Heading,
    Label,
    Text,
    Muted,
}

/// A sampling request being answered by hand.
pub struct Sampling {
    /// The request as lines for a person (sanitized when drawn).
    pub request: Vec<(LineKind, String)>,
    pub scroll: usize,
    pub reply: TextArea<'static>,
    /// Keys go to the reply (else they scroll the request).
    pub in_reply: bool,
    /// Declining would throw the typed reply away: asked first.
    pub confirm: bool,
}

impl AskScreen {
    /// The screen for a request.
    pub fn new(ask: &AskView) -> AskScreen {
        let p = &ask.params;
        match ask.method.as_str() {
            "elicitation/create" => match p.get("mode").and_then(Value::as_str) {
                None | Some("form") => AskScreen::Form(Form::new(p)),
                Some("url") => AskScreen::Url(UrlAsk::new(p)),
                Some(other) => AskScreen::Other {
                    text: format!(
                        "An elicitation in mode {other:?}, which mcpdeck does not know.\n\n{}",
                        pretty(p)
                    ),
                },
            },
            "sampling/createMessage" => AskScreen::Sampling(Box::new(Sampling::new(p))),
            other => AskScreen::Other {
                text: format!("A request mcpdeck does not know: {other}\n\n{}", pretty(p)),
            },
        }
    }
}

pub(super) fn pretty(v: &Value) -> String {
    serde_json::to_string_pretty(v).unwrap_or_default()
}

/// A content block in a few words: text as it is, media by type and size.
pub(super) fn block_text(b: &Value) -> String {
    let ty = b.get("type").and_then(Value::as_str).unwrap_or("?");
    let size = |k: &str| {
        b.get(k)
            .and_then(Value::as_str)
            .map(|d| {
                // The decoded size, from the base64 length.
                let d = d.trim();
                let pad = d.bytes().rev().take_while(|b| *b == b'=').count();
                crate::text::human_size((d.len() * 3 / 4).saturating_sub(pad))
            })
            .unwrap_or_else(|| "no data".into())
    };
    let mime = b.get("mimeType").and_then(Value::as_str).unwrap_or("?");
    match ty {
        "text" => b
            .get("text")
            .and_then(Value::as_str)
            .unwrap_or_default()
            .to_string(),
        "image" | "audio" => format!("[{ty} {mime}, {}]", size("data")),
        "tool_use" => format!(
            "[tool use: {} {}]",
            b.get("name").and_then(Value::as_str).unwrap_or("?"),
            b.get("input").map(Value::to_string).unwrap_or_default()
        ),
        "tool_result" => {
            let inner = b
                .get("content")
                .and_then(Value::as_array)
                .map(|c| c.iter().map(block_text).collect::<Vec<_>>().join(" "))
                .unwrap_or_default();
            format!("[tool result] {inner}")
        }
        "resource_link" | "resource" => format!(
            "[{ty} {}]",
            b.get("uri")
                .or_else(|| b.get("resource").and_then(|r| r.get("uri")))
                .and_then(Value::as_str)
                .unwrap_or("?")
        ),
        other => format!("[{other}]"),
    }
}

impl Sampling {
    pub fn new(p: &Value) -> Sampling {
        use LineKind::*;
        let mut lines = Vec::new();
        let mut push = |k: LineKind, t: String| {
            for l in t.lines() {
                lines.push((k, l.to_string()));
            }
            if t.is_empty() {
                lines.push((k, String::new()));
            }
        };
        if let Some(sys) = text_of(p.get("systemPrompt")) {
            push(Heading, "System prompt".into());
            push(Text, sys);
            push(Text, String::new());
        }
        let messages = p
            .get("messages")
            .and_then(Value::as_array)
            .cloned()
            .unwrap_or_default();
        push(Heading, format!("Messages ({})", messages.len()));
        for m in &messages {
            let role = m.get("role").and_then(Value::as_str).unwrap_or("?");
            push(Label, format!("{role}:"));
            let blocks = match m.get("content") {
                Some(Value::Array(list)) => list.clone(),
                Some(b) => vec![b.clone()],
                None => vec![],
            };
            for b in &blocks {
                push(Text, block_text(b));
            }
        }
        push(Text, String::new());
        let mut facts = Vec::new();
        if let Some(n) = p.get("maxTokens") {
            facts.push(format!("max tokens {n}"));
        }
        if let Some(t) = p.get("temperature").and_then(Value::as_f64) {
            facts.push(format!("temperature {}", fmt_num(t)));
        }
        if let Some(c) = p.get("includeContext").and_then(Value::as_str) {
            facts.push(format!("context {c}"));
        }
        if let Some(s) = p.get("stopSequences").and_then(Value::as_array)
            && !s.is_empty()
        {
            let s: Vec<String> = s.iter().map(Value::to_string).collect();
            facts.push(format!("stop at {}", s.join(", ")));
        }
        if !facts.is_empty() {
            push(Muted, facts.join(" · "));
        }
        if let Some(prefs) = p.get("modelPreferences") {
            let hints: Vec<&str> = prefs
                .get("hints")
                .and_then(Value::as_array)
                .map(|h| {
                    h.iter()
                        .filter_map(|x| x.get("name").and_then(Value::as_str))
                        .collect()
                })
                .unwrap_or_default();
            let mut t = Vec::new();
            if !hints.is_empty() {
                t.push(format!("model hints {}", hints.join(", ")));
            }
            for (k, w) in [
                ("costPriority", "cost"),
                ("speedPriority", "speed"),
                ("intelligencePriority", "intelligence"),
            ] {
                if let Some(v) = prefs.get(k).and_then(Value::as_f64) {
                    t.push(format!("{w} {}", fmt_num(v)));
                }
            }
            if !t.is_empty() {
                push(Muted, t.join(" · "));
            }
        }
        if let Some(tools) = p.get("tools").and_then(Value::as_array) {
            let names: Vec<&str> = tools
                .iter()
                .filter_map(|t| t.get("name").and_then(Value::as_str))
                .collect();
            push(
                Muted,
                format!(
                    "tools offered {} (a hand-written reply uses none)",
                    names.join(", ")
                ),
            );
        }
        let mut reply = TextArea::default();
        reply.set_wrap_mode(WrapMode::WordOrGlyph);
        reply.set_placeholder_text("Type the reply the model would give…");
        Sampling {
            request: lines,
            scroll: 0,
            reply,
            in_reply: true,
            confirm: false,
        }
    }

    pub fn reply_text(&self) -> String {
        self.reply.lines().join("\n")
    }
}

impl UrlAsk {
    pub fn new(params: &Value) -> UrlAsk {
        let url = params
            .get("url")
            .and_then(Value::as_str)
            .unwrap_or_default()
            .to_string();
        UrlAsk {
            message: text_of(params.get("message")).unwrap_or_default(),
            parsed: url::Url::parse(&url).ok(),
            url,
            elicitation_id: text_of(params.get("elicitationId")),
        }
    }
}
