//! The browser login: PKCE S256, the loopback redirect, the `iss` check
//! and the code exchange.

use super::*;
use crate::mcp::auth::callback::{Callback, CallbackError, CallbackListener};

/// How long a failed browser command (one the user named) leaves for a
/// redirect already on its way before the login ends.
const BROWSER_FAILURE_GRACE: Duration = Duration::from_secs(2);

/// The trace note when the token endpoint no longer knows a kept
/// registration (`invalid_client`): it is forgotten.
pub(super) const FORGOTTEN_CLIENT: &str =
    "the server no longer knows the registered client (invalid_client): forgotten";

/// `len` bytes from the operating system's random source, base64url
/// without padding. `None` only when the OS cannot give randomness.
fn random_token(len: usize) -> Option<String> {
    use base64::Engine as _;
    use ring::rand::{SecureRandom as _, SystemRandom};
    let mut buf = vec![0u8; len];
    SystemRandom::new().fill(&mut buf).ok()?;
    Some(base64::engine::general_purpose::URL_SAFE_NO_PAD.encode(&buf))
}

/// A PKCE verifier (RFC 7636: 32 random bytes, base64url, 43 characters)
/// and its S256 challenge (base64url of the verifier's SHA-256).
pub fn pkce() -> Option<(Secret, String)> {
    use base64::Engine as _;
    let verifier = random_token(32)?;
    let digest = ring::digest::digest(&ring::digest::SHA256, verifier.as_bytes());
    let challenge = base64::engine::general_purpose::URL_SAFE_NO_PAD.encode(digest.as_ref());
    Some((Secret::new(verifier), challenge))
}

/// An unguessable `state` (16 random bytes).
fn new_state() -> Option<String> {
    random_token(16)
}

impl Authorizer {
    /// The browser login: PKCE, the loopback redirect, the code exchange.
    pub(super) async fn authorize(
        &self,
        d: &Discovered,
        challenge: &BearerChallenge,
        extra: &[String],
        trace: &mut Trace,
    ) -> Result<StoredToken, AuthError> {
        let meta = &d.meta;
        match &meta.code_challenge_methods_supported {
            Some(list) if !list.iter().any(|m| m == "S256") => {
                return Err(AuthError::new(
                    AuthErrorKind::Discovery,
                    format!("the authorization server {} does not support PKCE with S256 (it lists {list:?}); mcpdeck will not log in without it", d.issuer),
                )
                .with_trace(trace));
            }
            None => trace.note("the metadata does not list code_challenge_methods_supported; using PKCE S256 anyway"),
            _ => {}
        }
        let Some(auth_endpoint) = meta.authorization_endpoint.clone() else {
            return Err(AuthError::new(
                AuthErrorKind::Discovery,
                format!(
                    "the authorization server {} lists no authorization_endpoint",
                    d.issuer
                ),
            )
            .with_trace(trace));
        };
        let auth_url = check_url(&auth_endpoint, "authorization endpoint").map_err(|e| {
            AuthError::new(AuthErrorKind::Discovery, e.to_string()).with_trace(trace)
        })?;
        let listener = self.listener(d, trace).await?;
        let redirect_uri = listener.redirect_uri();
        let store = self.store().ok();
        let Identity { client, source } = register::identify(
            &self.http,
            store,
            &self.spec.oauth,
            meta,
            &redirect_uri,
            trace,
        )
        .await?;
        let scopes = self.scopes(d, challenge, extra);
        let resource = self.resource(d);
        let (Some((verifier, code_challenge)), Some(state)) = (pkce(), new_state()) else {
            return Err(AuthError::new(
                AuthErrorKind::Config,
                "the operating system gave no randomness for the PKCE verifier; check /dev/urandom and getrandom(2)",
            )
            .with_trace(trace));
        };
        let mut url = auth_url;
        {
            let mut q = url.query_pairs_mut();
            q.append_pair("response_type", "code")
                .append_pair("client_id", &client.client_id)
                .append_pair("redirect_uri", &redirect_uri)
                .append_pair("state", &state)
                .append_pair("code_challenge", &code_challenge)
                .append_pair("code_challenge_method", "S256");
            if !scopes.is_empty() {
                q.append_pair("scope", &scopes.join(" "));
            }
            if let Some(r) = &resource {
                q.append_pair("resource", r);
            }
        }
        trace.note(format!(
            "authorization code with PKCE S256 as {} ({}), scope {:?}, redirect {redirect_uri}",
            client.client_id,
            source.label(),
            scopes.join(" ")
        ));
        self.report(LoginEvent::Discovered(trace.clone()));
        self.report(LoginEvent::OpenUrl(url.to_string()));
        let launched = self.open_browser(url.as_str());
        let callback = self
            .await_redirect(listener, &state, launched, trace)
            .await?;
        check_iss(d, &callback, trace)?;
        self.report(LoginEvent::Exchanging);
        let endpoint = self.token_endpoint(d, trace)?.to_string();
        let mut params = vec![
            ("grant_type".to_string(), "authorization_code".to_string()),
            ("code".into(), callback.code.clone()),
            ("redirect_uri".into(), redirect_uri.clone()),
            ("code_verifier".into(), verifier.expose().to_string()),
        ];
        if let Some(r) = &resource {
            params.push(("resource".into(), r.clone()));
        }
        let dpop = self.dpop_for_new(d, challenge, trace);
        let g = match token::request(
            &self.http,
            &endpoint,
            &client,
            &d.issuer,
            params,
            dpop.as_deref(),
            trace,
        )
        .await
        {
            Ok(g) => g,
            Err(f) => {
                if f.error.as_deref() == Some("invalid_client")
                    && matches!(source, Source::Kept | Source::Registered)
                    && let Ok(store) = self.store()
                {
                    let _ = store.remove_client(&d.issuer, &client.client_id);
                    trace.note(FORGOTTEN_CLIENT);
                }
                return Err(f.into_auth(trace));
            }
        };
        Ok(self.keep(d, &client.client_id, resource, &scopes, g, None))
    }

    /// The loopback listener: on `callback_port`, else on the port of a kept
    /// registration (its redirect URI must match), else on a free port.
    async fn listener(
        &self,
        d: &Discovered,
        trace: &mut Trace,
    ) -> Result<CallbackListener, AuthError> {
        // The port of a kept registration, so it can be used again.
        let port = self.spec.oauth.callback_port.or_else(|| {
            if self.spec.oauth.client_id.is_some() {
                return None;
            }
            let kept = self.store().ok()?.client_for(&d.issuer, None).ok()??;
            kept.redirect_uris
                .iter()
                .find_map(|u| reqwest::Url::parse(u).ok()?.port())
        });
        match CallbackListener::bind(port).await {
            Ok(l) => Ok(l),
            Err(e) if self.spec.oauth.callback_port.is_none() && port.is_some() => {
                trace.note(format!(
                    "the port of the earlier registration is taken ({e}): a new one"
                ));
                CallbackListener::bind(None).await.map_err(|e| {
                    AuthError::new(AuthErrorKind::Config, e.to_string()).with_trace(trace)
                })
            }
            Err(e) => Err(AuthError::new(AuthErrorKind::Config, e.to_string()).with_trace(trace)),
        }
    }

    /// Open the URL with the browser command, saying how (or that it must
    /// be opened by hand).
    fn open_browser(&self, url: &str) -> Option<browser::Launched> {
        let env = |k: &str| std::env::var(k).ok();
        match browser::choose(self.spec.browser.as_deref(), &env) {
            Ok(Some(cmd)) => match browser::launch(&cmd, url) {
                Ok(l) => {
                    self.report(LoginEvent::Browser(format!(
                        "opened with `{}`",
                        cmd.argv.join(" ")
                    )));
                    Some(l)
                }
                Err(e) => {
                    self.report(LoginEvent::Browser(format!(
                        "`{}` failed to start ({e}); open the URL yourself",
                        cmd.argv.join(" ")
                    )));
                    None
                }
            },
            Ok(None) => {
                self.report(LoginEvent::Browser(
                    "no browser to open here: open the URL yourself".into(),
                ));
                None
            }
            Err(e) => {
                self.report(LoginEvent::Browser(format!(
                    "the browser command cannot be used ({e}); open the URL yourself"
                )));
                None
            }
        }
    }

    /// Wait for the redirect with the right state, for the time limit, a
    /// cancel, or a named browser command that failed.
    async fn await_redirect(
        &self,
        listener: CallbackListener,
        state: &str,
        launched: Option<browser::Launched>,
        trace: &mut Trace,
    ) -> Result<Callback, AuthError> {
        self.report(LoginEvent::Waiting);
        let cancel = self.cancel.notified();
        let waited = listener.wait(state, self.spec.callback_limit, cancel);
        // A browser command the user named (curl in scripts and CI) that
        // fails will not bring the login back: after a moment's grace for
        // a redirect already on its way, the login ends rather than waiting
        // out the time limit. The platform's opener failing is different:
        // the person can still open the URL by hand.
        let env = |k: &str| std::env::var(k).ok();
        let named = browser::explicit(self.spec.browser.as_deref(), &env);
        let mut browser_failed: Option<String> = None;
        let result = match launched {
            Some(l) => {
                tokio::pin!(waited);
                let finished = l.finished();
                tokio::pin!(finished);
                let mut browser_done = false;
                // Armed when a named browser command fails.
                let grace = tokio::time::sleep(BROWSER_FAILURE_GRACE);
                tokio::pin!(grace);
                loop {
                    tokio::select! {
                        r = &mut waited => break r,
                        st = &mut finished, if !browser_done => {
                            browser_done = true;
                            if let Some(msg) = browser::failure(&st) {
                                trace.note(msg.clone());
                                self.report(LoginEvent::Browser(msg.clone()));
                                if named {
                                    browser_failed = Some(msg);
                                    grace.as_mut().reset(
                                        tokio::time::Instant::now() + BROWSER_FAILURE_GRACE,
                                    );
                                }
                            }
                        }
                        _ = &mut grace, if browser_failed.is_some() => {
                            let msg = browser_failed.take().unwrap_or_default();
                            return Err(AuthError::new(
                                AuthErrorKind::Denied,
                                format!("{msg}, and no login came back: check the URL above in a browser, or the `browser` command"),
                            )
                            .with_trace(trace));
                        }
                    }
                }
            }
            None => waited.await,
        };
        result.map_err(|e| {
            let kind = match &e {
                CallbackError::Denied { .. } => AuthErrorKind::Denied,
                CallbackError::Timeout(_) => AuthErrorKind::Timeout,
                CallbackError::Cancelled => AuthErrorKind::Cancelled,
                _ => AuthErrorKind::Config,
            };
            trace.note(format!("waiting for the redirect: {e}"));
            AuthError::new(kind, e.to_string()).with_trace(trace)
        })
    }
}

/// The redirect's `iss` (RFC 9207): it must name the issuer when present,
/// and be present when the server promises it.
fn check_iss(d: &Discovered, callback: &Callback, trace: &mut Trace) -> Result<(), AuthError> {
    match (&callback.iss, d.meta.iss_parameter_supported) {
        (Some(iss), _) if iss != &d.issuer => {
            trace.note(format!(
                "the redirect names issuer {iss:?}, not {:?}: refused",
                d.issuer
            ));
            Err(AuthError::new(
                    AuthErrorKind::Denied,
                    format!("the login came back from issuer {:?}, not {:?} (a mix-up attack or a misconfigured server); the code was not used and no token was stored", crate::sanitize::one_line(iss), d.issuer),
                )
                .with_trace(trace))
        }
        (None, true) => {
            trace.note("the redirect names no issuer, though the server promises one: refused");
            Err(AuthError::new(
                    AuthErrorKind::Denied,
                    format!("the authorization server {} promises an `iss` in its redirect and sent none; the code was not used and no token was stored", d.issuer),
                )
                .with_trace(trace))
        }
        _ => Ok(()),
    }
}
