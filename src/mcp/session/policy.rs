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

    /// Replace the roots; true when they changed.
    pub fn set(&self, dirs: &[std::path::PathBuf]) -> bool {
        let new = roots_of(dirs);
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

/// How mcpdeck answers the server's own requests, and which client
/// capabilities it declares for that. The default offers nothing: every
/// server request but `ping` is refused.
#[derive(Debug, Clone, Default, PartialEq)]
pub struct ClientPolicy {
    /// Ask a person: sampling and elicitation (form and URL mode) are
    /// declared and every such request goes to the asker.
    pub ask: Option<Asker>,
    /// Offer `roots` and answer `roots/list` with these roots (shared: the
    /// manager changes them when the config's roots change)
    /// (`{"uri": "file://…", "name": …}`).
    pub roots: Option<SharedRoots>,
    /// Offer form elicitation and accept every request with the requested
    /// schema's defaults (required fields without one get a value of their
    /// type). URL-mode elicitation is declined.
    pub elicitation_defaults: bool,
}

impl ClientPolicy {
    /// The automatic policies of `mcpdeck smoke`: roots are `roots` (the
    /// configured ones; none offers an empty list), elicitation is accepted
    /// with defaults, sampling is declined.
    pub fn automatic(roots: SharedRoots) -> Self {
        ClientPolicy {
            ask: None,
            roots: Some(roots),
            elicitation_defaults: true,
        }
    }

    /// The `capabilities` object to declare.
    pub fn capabilities(&self) -> Value {
        let mut caps = Map::new();
        if self.roots.is_some() {
            caps.insert("roots".into(), json!({"listChanged": true}));
        }
        if self.ask.is_some() {
            caps.insert("sampling".into(), json!({}));
            caps.insert("elicitation".into(), json!({"form": {}, "url": {}}));
        } else if self.elicitation_defaults {
            caps.insert("elicitation".into(), json!({"form": {}}));
        }
        Value::Object(caps)
    }

    /// Whether `method` goes to the person (through [`ClientPolicy::ask`]).
    pub fn asks(&self, method: &str) -> bool {
        self.ask.is_some() && matches!(method, "sampling/createMessage" | "elicitation/create")
    }

    /// The answer to a server request (other than ping).
    pub fn answer(&self, method: &str, params: Option<&Value>) -> Result<Value, RpcError> {
        match method {
            "roots/list" => match &self.roots {
                Some(roots) => Ok(json!({"roots": roots.get()})),
                None => Err(RpcError::new(
                    codes::METHOD_NOT_FOUND,
                    "mcpdeck did not declare the roots capability for this server",
                )),
            },
            "elicitation/create" if self.elicitation_defaults => {
                let mode = params
                    .and_then(|p| p.get("mode"))
                    .and_then(Value::as_str)
                    .unwrap_or("form");
                if mode != "form" {
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
            "elicitation/create" => Err(RpcError::new(
                codes::METHOD_NOT_FOUND,
                "mcpdeck did not declare the elicitation capability for this server",
            )),
            "sampling/createMessage" => Err(RpcError::new(
                -1,
                "sampling declined: mcpdeck does not offer sampling here",
            )),
            _ => Err(RpcError::new(
                codes::METHOD_NOT_FOUND,
                format!("mcpdeck does not support {method}"),
            )),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn no_roots_configured_is_an_empty_list_never_the_current_directory() {
        for policy in [
            ClientPolicy::automatic(SharedRoots::new(&[])),
            ClientPolicy {
                roots: Some(SharedRoots::new(&[])),
                ..ClientPolicy::default()
            },
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
        // What a one-shot command does not offer is refused.
        let headless = ClientPolicy {
            roots: Some(SharedRoots::new(&[])),
            ..ClientPolicy::default()
        };
        assert_eq!(
            headless
                .answer("elicitation/create", None)
                .unwrap_err()
                .code,
            codes::METHOD_NOT_FOUND
        );
        assert_eq!(
            headless.answer("x/unknown", None).unwrap_err().code,
            codes::METHOD_NOT_FOUND
        );
    }
}
