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

/// The named secrets this process put into a server's config (see
/// [`crate::secret::resolve`]): whatever shows a command line, a URL or a
/// header value masks them ([`redact`]).
fn known() -> &'static std::sync::RwLock<Vec<Secret>> {
    static KNOWN: std::sync::OnceLock<std::sync::RwLock<Vec<Secret>>> = std::sync::OnceLock::new();
    KNOWN.get_or_init(Default::default)
}

/// Remember `secret` for [`redact`] (an empty one is not remembered).
pub fn remember(secret: &Secret) {
    if secret.is_empty() {
        return;
    }
    let mut known = known().write().unwrap_or_else(|p| p.into_inner());
    if !known.contains(secret) {
        known.push(secret.clone());
        // The longest first: one that contains another is masked whole.
        known.sort_by_key(|s| std::cmp::Reverse(s.0.len()));
    }
}

/// Whether `text` holds a remembered secret.
pub fn holds_known(text: &str) -> bool {
    let known = known().read().unwrap_or_else(|p| p.into_inner());
    known.iter().any(|s| text.contains(&s.0))
}

/// `text` with every remembered secret's value replaced by `••••••`.
pub fn redact(text: &str) -> std::borrow::Cow<'_, str> {
    let known = known().read().unwrap_or_else(|p| p.into_inner());
    if !known.iter().any(|s| text.contains(&s.0)) {
        return std::borrow::Cow::Borrowed(text);
    }
    let mut out = text.to_string();
    for s in known.iter() {
        out = out.replace(&s.0, "••••••");
    }
    std::borrow::Cow::Owned(out)
}

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
