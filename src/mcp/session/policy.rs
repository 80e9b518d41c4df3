//! How a session answers the server's own requests: the declared client
//! capabilities, the roots offered, and who answers sampling and
//! elicitation (an automatic policy, or a person through an [`Asker`]).

use std::sync::{Arc, RwLock};

use serde_json::{Map, Value, json};
use tokio::sync::oneshot;

use crate::mcp::jsonrpc::{RpcError, codes};

/// The roots offered to servers (`roots/list`), shared by every session of
/// a manager so that a change reaches them all.
#[derive(Clone, Debug)]
pub struct SharedRoots(Arc<RwLock<Vec<Value>>>);

impl PartialEq for SharedRoots {
    fn eq(&self, other: &Self) -> bool {
        Arc::ptr_eq(&self.0, &other.0)
    }
}

impl SharedRoots {
    /// Roots from directories; none offers an empty list (never the
    /// current directory: a root the user did not choose is a widening of
    /// what a server such as server-filesystem may reach).
    pub fn new(dirs: &[std::path::PathBuf]) -> Self {
        SharedRoots(Arc::new(RwLock::new(roots_of(dirs))))
    }

    pub fn get(&self) -> Vec<Value> {
        self.0.read().unwrap_or_else(|p| p.into_inner()).clone()
    }

    /// Roots as another set has them now (a copy: later changes of either
    /// do not reach the other).
    pub fn copy_of(other: &SharedRoots) -> Self {
        SharedRoots(Arc::new(RwLock::new(other.get())))
    }

    /// Replace the roots; true when they changed.
    pub fn set(&self, dirs: &[std::path::PathBuf]) -> bool {
        self.set_values(roots_of(dirs))
    }

    /// Replace the roots with these (`{"uri", "name"}` objects); true when
    /// they changed.
    pub fn set_values(&self, new: Vec<Value>) -> bool {
        let mut cur = self.0.write().unwrap_or_else(|p| p.into_inner());
        if *cur == new {
            return false;
        }
        *cur = new;
        true
    }
}

/// `{"uri": "file:///…/", "name": …}` for each directory; none for none.
pub(super) fn roots_of(dirs: &[std::path::PathBuf]) -> Vec<Value> {
    dirs.iter()
        .filter_map(|d| {
            // Only an absolute path makes a `file://` URI; another is not
            // offered (never guessed into a URI).
            let Ok(uri) = url::Url::from_directory_path(d).map(|u| u.to_string()) else {
                tracing::warn!("root {} is not an absolute path: not offered", d.display());
                return None;
            };
            let name = d
                .file_name()
                .map(|n| n.to_string_lossy().into_owned())
                .unwrap_or_else(|| "/".into());
            Some(json!({"uri": uri, "name": name}))
        })
        .collect()
}

/// A request from the server that a person answers (sampling, elicitation).
#[derive(Debug, Clone, PartialEq)]
pub struct ServerRequest {
    pub server: Arc<str>,
    /// `sampling/createMessage` or `elicitation/create`.
    pub method: String,
    pub params: Value,
    /// The request (its progress token: the first id of a tool call) it
    /// belongs to, when the protocol says (a stateless-era
    /// `input_required` round); `None` for a request of its own.
    pub related: Option<i64>,
    /// The server's own id for the request (a `notifications/cancelled`
    /// from it names this); `None` for an `input_required` round's.
    pub request_id: Option<Value>,
}

/// Hands a server request to whoever answers it (the UI, through the
/// manager); the answer comes back on the receiver. A dropped sender is a
/// refusal.
#[derive(Clone)]
pub struct Asker(
    pub Arc<dyn Fn(ServerRequest) -> oneshot::Receiver<Result<Value, RpcError>> + Send + Sync>,
);

impl std::fmt::Debug for Asker {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str("Asker")
    }
}

impl PartialEq for Asker {
    fn eq(&self, other: &Self) -> bool {
        Arc::ptr_eq(&self.0, &other.0)
    }
}

/// The client capabilities mcpdeck declares to a server: one set for every
/// command (`[settings] capabilities`, `--capabilities`), so that a
/// server's tool list, which may depend on them, is the same in `tools`,
/// `call`, `smoke`, `lint`, `pin`, `verify`, `scan`, `serve` and the TUI.
/// Who *answers* the requests these allow is the command's business (a
/// person in the TUI and through serve's agent; an automatic policy in
/// `smoke`; a refusal in the other one-shot commands, since nobody is
/// there to answer).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Declared {
    /// `roots` (`{"listChanged": true}`): the configured roots, an empty
    /// list when none are.
    pub roots: bool,
    /// `sampling`.
    pub sampling: bool,
    /// `elicitation.form`.
    pub elicitation_form: bool,
    /// `elicitation.url`.
    pub elicitation_url: bool,
}

/// A word [`Declared::parse`] does not know.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[error("unknown capability {word:?}: use {}", Declared::WORDS)]
pub struct UnknownCapability {
    /// The word, as written.
    pub word: String,
}

impl Declared {
    /// `{}`: nothing declared.
    pub const NONE: Declared = Declared {
        roots: false,
        sampling: false,
        elicitation_form: false,
        elicitation_url: false,
    };
    /// Everything mcpdeck can declare: roots, sampling, form and URL
    /// elicitation.
    pub const ALL: Declared = Declared {
        roots: true,
        sampling: true,
        elicitation_form: true,
        elicitation_url: true,
    };
    /// The default: what `mcpdeck serve` declares upstream for a
    /// full-featured agent, which today is [`Declared::ALL`].
    pub const DEFAULT: Declared = Declared::ALL;

    /// The names [`Declared::parse`] takes, for messages and help.
    pub const WORDS: &'static str = "none, default, all, or a comma list of roots, sampling, elicitation, elicitation-form, elicitation-url";

    /// `none`, `default`, `all`, or a comma-separated list of `roots`,
    /// `sampling`, `elicitation` (form and URL), `elicitation-form`,
    /// `elicitation-url`. The error names the word it does not know.
    pub fn parse(text: &str) -> Result<Declared, UnknownCapability> {
        match text.trim() {
            "none" | "" => return Ok(Declared::NONE),
            "default" => return Ok(Declared::DEFAULT),
            "all" => return Ok(Declared::ALL),
            _ => {}
        }
        let mut d = Declared::NONE;
        for word in text.split(',').map(str::trim) {
            match word {
                "roots" => d.roots = true,
                "sampling" => d.sampling = true,
                "elicitation" => {
                    d.elicitation_form = true;
                    d.elicitation_url = true;
                }
                "elicitation-form" => d.elicitation_form = true,
                "elicitation-url" => d.elicitation_url = true,
                other => {
                    return Err(UnknownCapability {
                        word: other.to_string(),
                    });
                }
            }
        }
        Ok(d)
    }

    /// How [`Declared::parse`] reads it back (`none`, `all`, or the list).
    pub fn words(&self) -> String {
        if *self == Declared::NONE {
            return "none".into();
        }
        if *self == Declared::ALL {
            return "all".into();
        }
        let mut words = Vec::new();
        if self.roots {
            words.push("roots");
        }
        if self.sampling {
            words.push("sampling");
        }
        match (self.elicitation_form, self.elicitation_url) {
            (true, true) => words.push("elicitation"),
            (true, false) => words.push("elicitation-form"),
            (false, true) => words.push("elicitation-url"),
            (false, false) => {}
        }
        words.join(",")
    }

    /// The `capabilities` object.
    pub fn to_value(&self) -> Value {
        let mut caps = Map::new();
        if self.roots {
            caps.insert("roots".into(), json!({"listChanged": true}));
        }
        if self.sampling {
            caps.insert("sampling".into(), json!({}));
        }
        let mut elicitation = Map::new();
        if self.elicitation_form {
            elicitation.insert("form".into(), json!({}));
        }
        if self.elicitation_url {
            elicitation.insert("url".into(), json!({}));
        }
        if !elicitation.is_empty() {
            caps.insert("elicitation".into(), Value::Object(elicitation));
        }
        Value::Object(caps)
    }
}

impl Default for Declared {
    fn default() -> Self {
        Declared::DEFAULT
    }
}

/// How mcpdeck answers the server's own requests, and which client
/// capabilities it declares for that ([`ClientPolicy::declared`]). The
/// default declares nothing: every server request but `ping` is refused.
#[derive(Debug, Clone, PartialEq)]
pub struct ClientPolicy {
    /// What is declared; a request for something not declared is refused
    /// (method not found), whoever would answer it.
    pub declared: Declared,
    /// Ask a person: every declared sampling and elicitation request goes
    /// to the asker.
    pub ask: Option<Asker>,
    /// Answer `roots/list` with these roots (shared: the manager changes
    /// them when the config's roots change)
    /// (`{"uri": "file://…", "name": …}`); `None` is an empty list.
    pub roots: Option<SharedRoots>,
    /// Without an asker: accept every form elicitation with the requested
    /// schema's defaults (required fields without one get a value of their
    /// type). Otherwise a declared elicitation nobody can answer is
    /// declined, and URL-mode elicitation always is.
    pub elicitation_defaults: bool,
}

impl Default for ClientPolicy {
    fn default() -> Self {
        ClientPolicy {
            declared: Declared::NONE,
            ask: None,
            roots: None,
            elicitation_defaults: false,
        }
    }
}

impl ClientPolicy {
    /// The automatic policies of `mcpdeck smoke`: `declared`, roots are
    /// `roots` (the configured ones; none offers an empty list),
    /// elicitation is accepted with defaults, sampling is declined.
    pub fn automatic(declared: Declared, roots: SharedRoots) -> Self {
        ClientPolicy {
            declared,
            ask: None,
            roots: Some(roots),
            elicitation_defaults: true,
        }
    }

    /// The policy of a one-shot command: `declared`, the configured roots,
    /// and every sampling or elicitation request refused (declined), since
    /// nobody is there to answer.
    pub fn headless(declared: Declared, roots: SharedRoots) -> Self {
        ClientPolicy {
            declared,
            ask: None,
            roots: Some(roots),
            elicitation_defaults: false,
        }
    }

    /// The `capabilities` object to declare.
    pub fn capabilities(&self) -> Value {
        self.declared.to_value()
    }

    /// Whether `method` is declared: roots, sampling and elicitation (in
    /// the request's mode) each need their capability.
    fn declares(&self, method: &str, params: Option<&Value>) -> bool {
        match method {
            "roots/list" => self.declared.roots,
            "sampling/createMessage" => self.declared.sampling,
            "elicitation/create" => match elicitation_mode(params) {
                "url" => self.declared.elicitation_url,
                _ => self.declared.elicitation_form,
            },
            _ => false,
        }
    }

    /// Whether `method` goes to the person (through [`ClientPolicy::ask`]):
    /// sampling and elicitation, when declared (for elicitation, in the
    /// request's mode).
    pub fn asks(&self, method: &str, params: Option<&Value>) -> bool {
        self.ask.is_some()
            && matches!(method, "sampling/createMessage" | "elicitation/create")
            && self.declares(method, params)
    }

    /// The answer to a server request (other than ping) that no person
    /// answers.
    pub fn answer(&self, method: &str, params: Option<&Value>) -> Result<Value, RpcError> {
        if matches!(
            method,
            "roots/list" | "sampling/createMessage" | "elicitation/create"
        ) && !self.declares(method, params)
        {
            let what = match method {
                "roots/list" => "roots".to_string(),
                "sampling/createMessage" => "sampling".to_string(),
                _ => format!("elicitation ({} mode)", elicitation_mode(params)),
            };
            return Err(RpcError::new(
                codes::METHOD_NOT_FOUND,
                format!(
                    "mcpdeck did not declare the {what} capability for this server (--capabilities {})",
                    self.declared.words()
                ),
            ));
        }
        match method {
            "roots/list" => {
                Ok(json!({"roots": self.roots.as_ref().map(SharedRoots::get).unwrap_or_default()}))
            }
            "elicitation/create" => {
                if !self.elicitation_defaults || elicitation_mode(params) != "form" {
                    return Ok(json!({"action": "decline"}));
                }
                let schema = params
                    .and_then(|p| p.get("requestedSchema"))
                    .cloned()
                    .unwrap_or_else(|| json!({"type": "object"}));
                let content = crate::schema::skeleton(&schema);
                let content = if content.is_object() {
                    content
                } else {
                    json!({})
                };
                Ok(json!({"action": "accept", "content": content}))
            }
            "sampling/createMessage" => Err(RpcError::new(
                -1,
                "sampling declined: this mcpdeck command has no model to sample with (the TUI asks you, and serve asks its agent)",
            )),
            _ => Err(RpcError::new(
                codes::METHOD_NOT_FOUND,
                format!("mcpdeck does not support {method}"),
            )),
        }
    }
}

/// An elicitation request's mode (`form` when it names none).
fn elicitation_mode(params: Option<&Value>) -> &str {
    params
        .and_then(|p| p.get("mode"))
        .and_then(Value::as_str)
        .unwrap_or("form")
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn no_roots_configured_is_an_empty_list_never_the_current_directory() {
        for policy in [
            ClientPolicy::automatic(Declared::DEFAULT, SharedRoots::new(&[])),
            ClientPolicy::headless(Declared::DEFAULT, SharedRoots::new(&[])),
        ] {
            assert_eq!(policy.capabilities()["roots"], json!({"listChanged": true}));
            assert_eq!(
                policy.answer("roots/list", None).unwrap(),
                json!({"roots": []})
            );
        }
        let roots = SharedRoots::new(&[std::path::PathBuf::from("/srv/a b")]);
        assert_eq!(
            roots.get(),
            vec![json!({"uri": "file:///srv/a%20b/", "name": "a b"})]
        );
        assert!(roots.set(&[]));
        assert!(roots.get().is_empty());
        assert!(!roots.set(&[]));
    }

    #[test]
    fn one_declared_set_whoever_answers() {
        let roots = SharedRoots::new(&[]);
        let all = json!({
            "roots": {"listChanged": true},
            "sampling": {},
            "elicitation": {"form": {}, "url": {}},
        });
        assert_eq!(Declared::DEFAULT.to_value(), all);
        for policy in [
            ClientPolicy::automatic(Declared::DEFAULT, roots.clone()),
            ClientPolicy::headless(Declared::DEFAULT, roots.clone()),
        ] {
            assert_eq!(policy.capabilities(), all);
        }
        assert_eq!(ClientPolicy::default().capabilities(), json!({}));
    }

    #[test]
    fn a_headless_command_declines_what_nobody_can_answer() {
        let headless = ClientPolicy::headless(Declared::DEFAULT, SharedRoots::new(&[]));
        let form = json!({"message": "name?", "requestedSchema": {"type": "object",
            "properties": {"n": {"type": "string", "default": "x"}}}});
        assert_eq!(
            headless.answer("elicitation/create", Some(&form)).unwrap(),
            json!({"action": "decline"})
        );
        let e = headless
            .answer("sampling/createMessage", Some(&json!({})))
            .unwrap_err();
        assert_eq!(e.code, -1);
        assert!(e.message.contains("sampling declined"), "{}", e.message);
        assert_eq!(
            headless.answer("x/unknown", None).unwrap_err().code,
            codes::METHOD_NOT_FOUND
        );
        // smoke accepts a form with its defaults, declines a URL.
        let smoke = ClientPolicy::automatic(Declared::DEFAULT, SharedRoots::new(&[]));
        assert_eq!(
            smoke.answer("elicitation/create", Some(&form)).unwrap(),
            json!({"action": "accept", "content": {"n": "x"}})
        );
        assert_eq!(
            smoke
                .answer("elicitation/create", Some(&json!({"mode": "url"})))
                .unwrap(),
            json!({"action": "decline"})
        );
    }

    #[test]
    fn what_is_not_declared_is_refused_and_the_flag_named() {
        let d = Declared::parse("roots").unwrap();
        let p = ClientPolicy::automatic(d, SharedRoots::new(&[]));
        assert_eq!(p.capabilities(), json!({"roots": {"listChanged": true}}));
        for (method, params) in [
            ("sampling/createMessage", json!({})),
            ("elicitation/create", json!({"mode": "form"})),
        ] {
            let e = p.answer(method, Some(&params)).unwrap_err();
            assert_eq!(e.code, codes::METHOD_NOT_FOUND, "{method}");
            assert!(e.message.contains("--capabilities roots"), "{}", e.message);
        }
        let none = ClientPolicy::headless(Declared::NONE, SharedRoots::new(&[]));
        assert_eq!(none.capabilities(), json!({}));
        assert_eq!(
            none.answer("roots/list", None).unwrap_err().code,
            codes::METHOD_NOT_FOUND
        );
        // Only the form mode declared: a URL request is refused, a form one
        // goes to the person.
        let ask = Asker(Arc::new(|_| oneshot::channel().1));
        let person = ClientPolicy {
            declared: Declared::parse("elicitation-form").unwrap(),
            ask: Some(ask),
            ..ClientPolicy::default()
        };
        assert!(person.asks("elicitation/create", Some(&json!({"mode": "form"}))));
        assert!(!person.asks("elicitation/create", Some(&json!({"mode": "url"}))));
        assert!(!person.asks("sampling/createMessage", None));
    }

    #[test]
    fn capability_words_read_back() {
        for (text, words) in [
            ("none", "none"),
            ("default", "all"),
            ("all", "all"),
            ("roots", "roots"),
            ("roots, sampling", "roots,sampling"),
            ("elicitation-url", "elicitation-url"),
            ("roots,sampling,elicitation", "all"),
        ] {
            let d = Declared::parse(text).unwrap();
            assert_eq!(d.words(), words, "{text}");
            assert_eq!(Declared::parse(&d.words()).unwrap(), d);
        }
        let e = Declared::parse("roots,tasks").unwrap_err();
        assert_eq!(e.word, "tasks");
        let e = e.to_string();
        assert!(
            e.contains("\"tasks\"") && e.contains("elicitation-url"),
            "{e}"
        );
    }
}
