//! The secret values this process put into a server's config
//! (`${secret:NAME}`, resolved at connect time; a `registry:` target's
//! secret inputs): whatever shows a command line, a URL or a header value
//! masks them ([`redact`]). Below every other module of the core (the
//! network log uses it, and names nothing of the OAuth engine).

use std::borrow::Cow;
use std::sync::{OnceLock, RwLock};

fn known() -> &'static RwLock<Vec<String>> {
    static KNOWN: OnceLock<RwLock<Vec<String>>> = OnceLock::new();
    KNOWN.get_or_init(Default::default)
}

/// Remember a secret value (an empty one is not remembered).
pub fn remember(value: &str) {
    if value.is_empty() {
        return;
    }
    let mut known = known().write().unwrap_or_else(|p| p.into_inner());
    if !known.iter().any(|k| k == value) {
        known.push(value.to_string());
        // The longest first: one that contains another is masked whole.
        known.sort_by_key(|s| std::cmp::Reverse(s.len()));
    }
}

/// Whether `text` holds a remembered secret.
pub fn holds_known(text: &str) -> bool {
    let known = known().read().unwrap_or_else(|p| p.into_inner());
    known.iter().any(|s| text.contains(s.as_str()))
}

/// `text` with every remembered secret's value replaced by `••••••`.
pub fn redact(text: &str) -> Cow<'_, str> {
    let known = known().read().unwrap_or_else(|p| p.into_inner());
    if !known.iter().any(|s| text.contains(s.as_str())) {
        return Cow::Borrowed(text);
    }
    let mut out = text.to_string();
    for s in known.iter() {
        out = out.replace(s.as_str(), "••••••");
    }
    Cow::Owned(out)
}
