//! One authorizer per configured server and process, so that the
//! transport, every reconnect, the TUI's login key and `mcpdeck auth` share
//! its token and its single-flight refresh. Also the process's choice
//! about logins without a person: whether one may start by itself (where
//! their events go is in [`super::report`], which the engine reads).

use std::collections::HashMap;
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::{Arc, Mutex, OnceLock};

use crate::config::{ServerConfig, Settings, TransportConfig};

use super::engine::{AuthSpec, Authorizer};
use crate::mcp::bearer::{AuthError, AuthErrorKind};

static UNATTENDED: AtomicBool = AtomicBool::new(false);

/// Let a browser login start by itself when a request needs one and a
/// browser command was named (`[settings] browser` or `$MCPDECK_BROWSER`):
/// for commands that run without a person to ask (`smoke`).
pub fn allow_unattended_login(allow: bool) {
    UNATTENDED.store(allow, Ordering::Release);
}

pub fn unattended_login() -> bool {
    UNATTENDED.load(Ordering::Acquire)
}

type Key = (String, String, String);

fn registry() -> &'static Mutex<HashMap<Key, Arc<Authorizer>>> {
    static R: OnceLock<Mutex<HashMap<Key, Arc<Authorizer>>>> = OnceLock::new();
    R.get_or_init(|| Mutex::new(HashMap::new()))
}

/// The authorizer spec of an HTTP server (`None` for stdio servers and for
/// servers whose `headers` set `Authorization` themselves).
pub fn auth_spec(server: &ServerConfig, settings: &Settings) -> Option<AuthSpec> {
    let TransportConfig::Http {
        url,
        headers,
        ca_file,
        insecure,
        oauth,
        ..
    } = &server.transport
    else {
        return None;
    };
    if headers
        .iter()
        .any(|(k, _)| k.eq_ignore_ascii_case("authorization"))
    {
        return None;
    }
    let mut spec = AuthSpec::new(&server.name, url);
    spec.oauth = oauth.as_deref().cloned().unwrap_or_default();
    spec.browser = settings.browser.clone();
    spec.store = settings.credentials;
    spec.ca_file = ca_file.clone();
    spec.insecure = *insecure;
    spec.http_limit = settings
        .connect_timeout
        .min(std::time::Duration::from_secs(30));
    spec.unattended = unattended_login();
    spec.callback_limit = settings.login_timeout;
    Some(spec)
}

/// The authorizer of an HTTP server, shared within the process.
pub fn authorizer(
    server: &ServerConfig,
    settings: &Settings,
) -> Option<Result<Arc<Authorizer>, AuthError>> {
    // Its `${secret:NAME}`s (an oauth `client_secret`, a header, the URL)
    // are put in first, so every caller shares one authorizer.
    let resolved;
    let server = if server.secrets.is_empty() || auth_spec(server, settings).is_none() {
        server
    } else {
        match crate::secret::resolve(server, settings.credentials) {
            Ok(r) => {
                resolved = r;
                &resolved
            }
            Err(why) => return Some(Err(AuthError::new(AuthErrorKind::Config, why))),
        }
    };
    let spec = auth_spec(server, settings)?;
    let key = (
        spec.server.to_string(),
        spec.url.clone(),
        format!(
            "{:?} {:?} {:?} {} {:?}",
            spec.oauth, spec.browser, spec.store, spec.unattended, spec.callback_limit
        ),
    );
    let mut map = registry().lock().unwrap_or_else(|p| p.into_inner());
    if let Some(a) = map.get(&key) {
        return Some(Ok(a.clone()));
    }
    let made = Authorizer::new(spec);
    if let Ok(a) = &made {
        map.insert(key, a.clone());
    }
    Some(made)
}
