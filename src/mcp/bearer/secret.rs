//! A secret that never shows: tokens, codes, verifiers, client secrets.

use std::fmt;

/// A secret string. `Debug` and `Display` print `***`; only
/// [`Secret::expose`] gives the value, for the one place that sends it.
#[derive(Clone, PartialEq, Eq, Default, serde::Serialize, serde::Deserialize)]
#[serde(transparent)]
pub struct Secret(String);

impl Secret {
    pub fn new(value: impl Into<String>) -> Self {
        Secret(value.into())
    }

    pub fn expose(&self) -> &str {
        &self.0
    }

    pub fn is_empty(&self) -> bool {
        self.0.is_empty()
    }
}

impl fmt::Debug for Secret {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str("***")
    }
}

impl fmt::Display for Secret {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str("***")
    }
}

/// Remove every secret's text from a message (a server may echo what it
/// was sent).
pub fn scrub(text: &str, secrets: &[&Secret]) -> String {
    let mut out = text.to_string();
    for s in secrets {
        if s.0.len() >= 4 {
            out = out.replace(&s.0, "***");
        }
    }
    out
}

/// Remember `secret` for [`redact`] (an empty one is not remembered):
/// see [`crate::mcp::known`].
pub fn remember(secret: &Secret) {
    crate::mcp::known::remember(secret.expose());
}

pub use crate::mcp::known::{holds_known, redact};

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn remembered_secrets_are_redacted() {
        remember(&Secret::new("rem-4711-long"));
        remember(&Secret::new("rem-4711"));
        remember(&Secret::new(""));
        assert_eq!(
            redact("a rem-4711-long b rem-4711 c"),
            "a •••••• b •••••• c"
        );
        assert!(holds_known("xrem-4711x"));
        assert!(!holds_known("nothing here"));
        assert!(matches!(redact("plain"), std::borrow::Cow::Borrowed(_)));
    }

    #[test]
    fn secrets_never_print() {
        let s = Secret::new("tok-123456");
        assert_eq!(format!("{s} {s:?}"), "*** ***");
        assert_eq!(s.expose(), "tok-123456");
        assert_eq!(
            scrub("invalid token tok-123456 given", &[&s]),
            "invalid token *** given"
        );
    }
}
