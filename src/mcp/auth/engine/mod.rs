//! One server's authorizer: it holds the current token, attaches it to
//! requests, refreshes it ahead of expiry or on a 401 (one refresh at a time
//! however many calls wait), obtains a new one with the grant the config
//! and the server allow, and runs the browser login (PKCE, loopback
//! redirect) when a person asks for it, or when the config says no person
//! is needed.
//!
//! The grants that need no person are in `grants`, the browser login in
//! `code`.

mod code;
mod grants;

use code::FORGOTTEN_CLIENT;
pub use code::pkce;

use std::collections::BTreeSet;
use std::path::PathBuf;
use std::sync::{Arc, Mutex, OnceLock};
use std::time::Duration;

use crate::config::{CredentialStoreKind, OAuthConfig, OAuthGrant, OAuthResource};
use crate::mcp::bearer::{
    AuthError, AuthErrorKind, Authorize, BearerChallenge, Credentials, Secret, Trace,
};
use crate::mcp::netlog::NetLog;

use super::browser;
use super::discovery::{Discovered, discover};
use super::dpop::{self, DpopKey, NonceFrom};
use super::http::{AuthHttp, check_url};
use super::register::{self, Identity, Source};
use super::report::{LoginEvent, Reporter, default_reporter_now};
use super::store::{CredentialStore, StoreError, StoredToken};
use super::token::{self, Client, ClientAuth, Granted, now};

/// Refresh this long before a token expires.
const REFRESH_EARLY: u64 = 30;

/// At most this many authorizations for one request (step-up).
pub const MAX_AUTHORIZATIONS: u32 = 3;

/// Everything an authorizer needs from the config.
#[derive(Debug, Clone)]
pub struct AuthSpec {
    /// The server's name (for messages and the network view).
    pub server: Arc<str>,
    /// The MCP endpoint.
    pub url: String,
    pub oauth: OAuthConfig,
    /// `[settings] browser`.
    pub browser: Option<String>,
    pub store: CredentialStoreKind,
    /// How long to wait for the browser's redirect.
    pub callback_limit: Duration,
    /// How long one OAuth HTTP exchange may take.
    pub http_limit: Duration,
    pub ca_file: Option<PathBuf>,
    pub insecure: bool,
    /// A browser login may start by itself when a request needs one (a
    /// browser command was named, and the caller runs without a person to
    /// ask: `smoke`, `auth login`).
    pub unattended: bool,
}

impl AuthSpec {
    pub fn new(server: &str, url: &str) -> AuthSpec {
        AuthSpec {
            server: Arc::from(server),
            url: url.to_string(),
            oauth: OAuthConfig::default(),
            browser: None,
            store: CredentialStoreKind::Auto,
            callback_limit: Duration::from_secs(300),
            http_limit: Duration::from_secs(15),
            ca_file: None,
            insecure: false,
            unattended: false,
        }
    }
}

/// What may be shown about the current token: never the token.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct TokenInfo {
    pub issuer: String,
    pub client_id: String,
    pub scopes: Vec<String>,
    pub expires_at: Option<u64>,
    pub refreshable: bool,
    /// Bound to a DPoP key (RFC 9449) rather than a Bearer token.
    pub dpop: bool,
    /// Where it is kept ("file …", "OS keyring …", or "memory").
    pub storage: String,
}

#[derive(Default)]
struct Current {
    token: Option<StoredToken>,
    loaded: bool,
    discovered: Option<Discovered>,
    challenge: BearerChallenge,
}

/// One server's authorizer, shared by its transport and by the UI.
pub struct Authorizer {
    spec: AuthSpec,
    http: AuthHttp,
    /// Opened on first use; an error when it cannot be (tokens are then
    /// kept in memory only).
    store: OnceLock<Result<CredentialStore, StoreError>>,
    current: Mutex<Current>,
    flight: tokio::sync::Mutex<()>,
    cancel: tokio::sync::Notify,
    reporter: Mutex<Option<Reporter>>,
    /// The DPoP key in use: the current token's, or the one made for the
    /// next token request (with the nonces its servers handed out).
    dpop: Mutex<Option<Arc<DpopKey>>>,
}

impl std::fmt::Debug for Authorizer {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Authorizer")
            .field("server", &self.spec.server)
            .finish()
    }
}

fn token_info(t: &StoredToken, storage: String) -> TokenInfo {
    TokenInfo {
        issuer: t.issuer.clone(),
        client_id: t.client_id.clone(),
        scopes: t.scopes.clone(),
        expires_at: t.expires_at,
        refreshable: t.refresh_token.is_some(),
        dpop: t.token_type.eq_ignore_ascii_case("dpop"),
        storage,
    }
}

fn union(a: &[String], b: &[String]) -> Vec<String> {
    let mut seen = BTreeSet::new();
    a.iter()
        .chain(b)
        .filter(|s| seen.insert((*s).clone()))
        .cloned()
        .collect()
}

/// A token to refresh before the next request: it can be refreshed and
/// ends within [`REFRESH_EARLY`] seconds.
fn due(t: &StoredToken) -> bool {
    t.refresh_token.is_some() && t.expires_at.is_some_and(|e| e <= now() + REFRESH_EARLY)
}

fn split_scope(s: Option<&str>) -> Vec<String> {
    s.map(|s| s.split_whitespace().map(str::to_string).collect())
        .unwrap_or_default()
}

impl Authorizer {
    pub fn new(spec: AuthSpec) -> Result<Arc<Authorizer>, AuthError> {
        let http = AuthHttp::new(
            spec.server.clone(),
            spec.http_limit,
            spec.ca_file.as_deref(),
            spec.insecure,
        )?;
        Ok(Arc::new(Authorizer {
            spec,
            http,
            store: OnceLock::new(),
            current: Mutex::new(Current::default()),
            flight: tokio::sync::Mutex::new(()),
            cancel: tokio::sync::Notify::new(),
            reporter: Mutex::new(None),
            dpop: Mutex::new(None),
        }))
    }

    pub fn spec(&self) -> &AuthSpec {
        &self.spec
    }

    /// Log OAuth exchanges in the transport's network view.
    pub fn attach(&self, net: Arc<NetLog>) {
        self.http.attach(net);
    }

    /// Where login events go (the CLI prints them, the TUI shows them).
    pub fn set_reporter(&self, reporter: Option<Reporter>) {
        *self.reporter.lock().unwrap_or_else(|p| p.into_inner()) = reporter;
    }

    fn report(&self, event: LoginEvent) {
        let r = self
            .reporter
            .lock()
            .unwrap_or_else(|p| p.into_inner())
            .clone()
            .or_else(default_reporter_now);
        if let Some(r) = r {
            r(event);
        }
    }

    fn store(&self) -> Result<&CredentialStore, &StoreError> {
        self.store
            .get_or_init(|| CredentialStore::open(self.spec.store))
            .as_ref()
    }

    /// Where tokens are kept, in words.
    pub fn storage_name(&self) -> String {
        match self.store() {
            Ok(s) => s.describe(),
            Err(e) => format!("memory only ({e})"),
        }
    }

    fn lock(&self) -> std::sync::MutexGuard<'_, Current> {
        self.current.lock().unwrap_or_else(|p| p.into_inner())
    }

    /// The token the config's client may use, loaded from the store the
    /// first time.
    fn load(&self) {
        let mut cur = self.lock();
        if cur.loaded {
            return;
        }
        cur.loaded = true;
        drop(cur);
        let found = self.store().ok().and_then(|s| {
            s.token_for(&self.spec.url, self.spec.oauth.client_id.as_deref())
                .ok()
                .flatten()
        });
        let mut cur = self.lock();
        if cur.token.is_none() {
            cur.token = found;
        }
    }

    /// The access token to send, if there is one.
    pub fn bearer(&self) -> Option<Secret> {
        self.load();
        self.lock().token.as_ref().map(|t| t.access_token.clone())
    }

    /// The DPoP key a token is bound to (none for a Bearer token), read
    /// from the store's copy once and then kept with its nonces.
    fn key_of(&self, t: &StoredToken) -> Option<Arc<DpopKey>> {
        let stored = t.dpop_key.as_ref()?;
        let mut held = self.dpop.lock().unwrap_or_else(|p| p.into_inner());
        if let Some(k) = held.as_ref().filter(|k| &k.stored() == stored) {
            return Some(k.clone());
        }
        match DpopKey::from_stored(stored) {
            Ok(k) => {
                let k = Arc::new(k);
                *held = Some(k.clone());
                Some(k)
            }
            Err(e) => {
                tracing::warn!(server = %self.spec.server, "{e}");
                None
            }
        }
    }

    /// The key for a new token request, when DPoP is to be used: always
    /// with `dpop = true`, never with `false`; by default when the
    /// authorization server takes ES256 proofs and the MCP server asks for
    /// DPoP (its challenge offers the scheme, or its resource metadata
    /// wants bound tokens).
    fn dpop_for_new(
        &self,
        d: &Discovered,
        challenge: &BearerChallenge,
        trace: &mut Trace,
    ) -> Option<Arc<DpopKey>> {
        let wanted = match self.spec.oauth.dpop {
            Some(false) => false,
            Some(true) => true,
            None => {
                dpop::supported_by(d.meta.dpop_signing_alg_values_supported.as_deref())
                    && (challenge.dpop || d.resource_dpop)
            }
        };
        if !wanted {
            return None;
        }
        let mut held = self.dpop.lock().unwrap_or_else(|p| p.into_inner());
        if let Some(k) = held.as_ref() {
            trace.note("DPoP: the token request carries a proof of the key in use");
            return Some(k.clone());
        }
        match DpopKey::generate() {
            Ok(k) => {
                trace.note("DPoP: a new key pair; the token request carries its proof");
                let k = Arc::new(k);
                *held = Some(k.clone());
                Some(k)
            }
            Err(e) => {
                trace.note(format!("DPoP: {e}; asking for a Bearer token"));
                None
            }
        }
    }

    /// What authorizes one request: the token, with a proof when it is
    /// DPoP-bound (`token_type` DPoP). A bound token whose key cannot sign
    /// is not sent at all (as Bearer it would only be refused).
    pub fn credentials(&self, method: &str, url: &str) -> Option<Credentials> {
        self.load();
        let t = self.lock().token.clone()?;
        if !t.token_type.eq_ignore_ascii_case("dpop") {
            return Some(Credentials {
                token: t.access_token,
                proof: None,
            });
        }
        let proof = self.key_of(&t).and_then(|k| {
            k.proof(
                method,
                url,
                Some(&t.access_token),
                NonceFrom::McpServer,
                now(),
            )
            .map_err(|e| tracing::warn!(server = %self.spec.server, "{e}"))
            .ok()
        });
        match proof {
            Some(p) => Some(Credentials {
                token: t.access_token,
                proof: Some(Secret::new(p)),
            }),
            None => {
                tracing::warn!(
                    server = %self.spec.server,
                    "the token is DPoP-bound and its stored key cannot sign a proof: sent without credentials; log in again"
                );
                None
            }
        }
    }

    /// The MCP server's `DPoP-Nonce`, for the next proofs.
    pub fn dpop_nonce(&self, nonce: &str) {
        let t = self.lock().token.clone();
        if let Some(k) = t.as_ref().and_then(|t| self.key_of(t)) {
            k.set_nonce(NonceFrom::McpServer, nonce);
        }
    }

    /// What may be shown about the current token.
    pub fn info(&self) -> Option<TokenInfo> {
        self.load();
        let t = self.lock().token.clone()?;
        Some(token_info(&t, self.storage_name()))
    }

    /// Stop a login that waits for the browser.
    pub fn cancel(&self) {
        self.cancel.notify_waiters();
    }

    /// Before a request: refresh a token that expires within 30 s.
    pub async fn fresh(&self) {
        self.load();
        if !self.lock().token.as_ref().is_some_and(due) {
            return;
        }
        let _flight = self.flight.lock().await;
        let still = self.lock().token.clone().filter(due);
        if let Some(t) = still {
            let challenge = self.lock().challenge.clone();
            let mut trace = Trace::default();
            if let Err(e) = self.refresh(&t, &challenge, &mut trace).await {
                tracing::info!(server = %self.spec.server, "refresh ahead of expiry failed: {e}");
            }
        }
    }

    /// A request was answered 401 with this challenge, having sent `sent`.
    /// `Ok`: send it again (with [`Authorizer::bearer`]).
    pub async fn unauthorized(
        &self,
        sent: Option<&Secret>,
        challenge: &BearerChallenge,
    ) -> Result<(), AuthError> {
        let _flight = self.flight.lock().await;
        let current = {
            let mut cur = self.lock();
            cur.challenge = challenge.clone();
            cur.token.clone()
        };
        // Another request got a new token meanwhile.
        if let Some(t) = &current
            && sent.is_none_or(|s| s != &t.access_token)
        {
            return Ok(());
        }
        let mut trace = Trace::default();
        // A refresh that failed without the refresh token being refused (the
        // token endpoint or the network failed): keep it for the next try.
        let mut kept = false;
        if let Some(t) = current.as_ref().filter(|t| t.refresh_token.is_some()) {
            match self.refresh(t, challenge, &mut trace).await {
                Ok(()) => return Ok(()),
                Err(e) => {
                    trace.note(format!("refresh failed: {e}"));
                    kept = self.lock().token.as_ref() == Some(t);
                }
            }
        }
        if let Some(t) = &current {
            trace.note("the server refused the stored token");
            if kept {
                trace.note("its refresh token is kept for the next try");
            } else {
                self.forget_token(t);
            }
        }
        self.obtain(challenge, &[], &mut trace).await
    }

    /// A request was answered 403 `insufficient_scope`; `round` counts the
    /// authorizations already made for it. `Ok`: send it again.
    pub async fn insufficient_scope(
        &self,
        challenge: &BearerChallenge,
        round: u32,
    ) -> Result<(), AuthError> {
        let _flight = self.flight.lock().await;
        let wanted = split_scope(challenge.scope.as_deref());
        let granted = self.granted();
        if round >= MAX_AUTHORIZATIONS {
            return Err(AuthError::new(
                AuthErrorKind::StepUpLimit,
                format!(
                    "the server still answers 403 insufficient_scope (wants {:?}) after {round} authorizations; gave up (check the scopes the server and its authorization server agree on)",
                    challenge.scope.as_deref().unwrap_or("")
                ),
            ));
        }
        if !wanted.is_empty() && wanted.iter().all(|w| granted.contains(w)) {
            return Err(AuthError::new(
                AuthErrorKind::StepUpLimit,
                format!(
                    "the server answers 403 insufficient_scope asking for {:?}, which the token already has; authorizing again would not help (the server and its authorization server disagree about scopes)",
                    wanted.join(" ")
                ),
            ));
        }
        let scopes = union(&granted, &wanted);
        let mut trace = Trace::default();
        trace.note(format!(
            "step-up: the server asks for scope {:?}; authorizing {:?}",
            challenge.scope.as_deref().unwrap_or(""),
            scopes.join(" ")
        ));
        self.lock().challenge = challenge.clone();
        self.obtain(challenge, &scopes, &mut trace).await
    }

    /// Drop a token that no longer works, in memory and in the store (but
    /// not a newer one another process stored meanwhile).
    /// The scopes the current token was granted.
    fn granted(&self) -> Vec<String> {
        self.lock()
            .token
            .as_ref()
            .map(|t| t.scopes.clone())
            .unwrap_or_default()
    }

    fn forget_token(&self, t: &StoredToken) {
        let mut cur = self.lock();
        if cur.token.as_ref() == Some(t) {
            cur.token = None;
        }
        drop(cur);
        if let Ok(store) = self.store() {
            let _ = store.remove_token_if_current(t);
        }
    }

    /// The store's token when it is no longer `t`: another mcpdeck process
    /// refreshed it (rotating the refresh token `t` holds) or logged in.
    fn newer_in_store(&self, t: &StoredToken) -> Option<StoredToken> {
        let stored = self
            .store()
            .ok()?
            .token_for(&self.spec.url, self.spec.oauth.client_id.as_deref())
            .ok()??;
        (stored.access_token != t.access_token).then_some(stored)
    }

    async fn discovered(
        &self,
        challenge: &BearerChallenge,
        trace: &mut Trace,
    ) -> Result<Discovered, AuthError> {
        if let Some(d) = self.lock().discovered.clone()
            && challenge.resource_metadata.is_none()
        {
            trace.note(format!("authorization server {} (found before)", d.issuer));
            return Ok(d);
        }
        let d = discover(
            &self.http,
            &self.spec.url,
            challenge,
            self.spec.oauth.authorization_server.as_deref(),
            trace,
        )
        .await?;
        self.lock().discovered = Some(d.clone());
        Ok(d)
    }

    fn resource(&self, d: &Discovered) -> Option<String> {
        match &self.spec.oauth.resource {
            OAuthResource::Omit => None,
            OAuthResource::Fixed(r) => Some(r.clone()),
            // Without resource metadata, the server's own URL (the spec's
            // canonical URI of the MCP server).
            OAuthResource::Discovered => d.resource.clone().or_else(|| Some(self.spec.url.clone())),
        }
    }

    /// The scopes to ask for: the config's, else the challenge's, else
    /// everything the resource lists; `offline_access` when the
    /// authorization server offers it.
    fn scopes(&self, d: &Discovered, challenge: &BearerChallenge, extra: &[String]) -> Vec<String> {
        let mut s = if !extra.is_empty() {
            extra.to_vec()
        } else if !self.spec.oauth.scopes.is_empty() {
            self.spec.oauth.scopes.clone()
        } else if challenge.scope.is_some() {
            split_scope(challenge.scope.as_deref())
        } else {
            d.resource_scopes.clone()
        };
        let offered = d
            .meta
            .scopes_supported
            .as_ref()
            .is_some_and(|l| l.iter().any(|x| x == "offline_access"));
        if offered && !s.iter().any(|x| x == "offline_access") {
            s.push("offline_access".into());
        }
        s
    }

    /// Which grant to use: the config's, else the one the server and the
    /// credentials allow.
    fn grant(&self, d: &Discovered) -> OAuthGrant {
        if let Some(g) = self.spec.oauth.grant {
            return g;
        }
        let o = &self.spec.oauth;
        if o.workload_token_file.is_some() || o.workload_token_env.is_some() {
            return OAuthGrant::Workload;
        }
        if o.id_token.is_some() && o.idp_token_endpoint.is_some() {
            return OAuthGrant::CrossApp;
        }
        let has_credentials =
            o.client_id.is_some() && (o.client_secret.is_some() || o.private_key_file.is_some());
        let no_code = !d.meta.supports_grant("authorization_code");
        if has_credentials
            && (no_code || o.private_key_file.is_some())
            && d.meta.supports_grant("client_credentials")
        {
            return OAuthGrant::ClientCredentials;
        }
        OAuthGrant::AuthorizationCode
    }

    /// Get a new token without a stored one to refresh.
    async fn obtain(
        &self,
        challenge: &BearerChallenge,
        extra: &[String],
        trace: &mut Trace,
    ) -> Result<(), AuthError> {
        let d = self.discovered(challenge, trace).await?;
        match self.grant(&d) {
            OAuthGrant::ClientCredentials => {
                self.client_credentials(&d, challenge, extra, trace).await
            }
            OAuthGrant::CrossApp => self.cross_app(&d, challenge, extra, trace).await,
            OAuthGrant::Workload => self.workload(&d, challenge, extra, trace).await,
            OAuthGrant::AuthorizationCode => {
                if self.spec.unattended
                    && browser::explicit(self.spec.browser.as_deref(), &|k| std::env::var(k).ok())
                {
                    self.authorize(&d, challenge, extra, trace)
                        .await
                        .map(|_| ())
                } else {
                    let scope = if extra.is_empty() {
                        String::new()
                    } else {
                        format!(" with scope {:?}", extra.join(" "))
                    };
                    Err(AuthError::new(
                        AuthErrorKind::NeedsLogin,
                        format!(
                            "{} needs a login{scope} at {} (a browser login)",
                            self.spec.server, d.issuer
                        ),
                    )
                    .with_scopes(extra)
                    .with_trace(trace))
                }
            }
        }
    }

    /// A person asked to log in (`auth login`, the TUI's login key), with
    /// extra scopes for a step-up. Runs discovery again.
    pub async fn login(&self, extra: &[String]) -> Result<TokenInfo, AuthError> {
        let _flight = self.flight.lock().await;
        // The stored token's scopes count in a step-up from a fresh process.
        self.load();
        let challenge = {
            let mut cur = self.lock();
            cur.discovered = None;
            cur.challenge.clone()
        };
        let mut trace = Trace::default();
        // A probe when no 401 was seen yet: what the server asks for.
        let challenge = if challenge == BearerChallenge::default() {
            self.probe(&mut trace).await?
        } else {
            challenge
        };
        let d = self.discovered(&challenge, &mut trace).await?;
        let extra = if extra.is_empty() {
            Vec::new()
        } else {
            union(&self.granted(), extra)
        };
        match self.grant(&d) {
            OAuthGrant::ClientCredentials => {
                self.client_credentials(&d, &challenge, &extra, &mut trace)
                    .await?
            }
            OAuthGrant::CrossApp => self.cross_app(&d, &challenge, &extra, &mut trace).await?,
            OAuthGrant::Workload => self.workload(&d, &challenge, &extra, &mut trace).await?,
            OAuthGrant::AuthorizationCode => {
                match self.authorize(&d, &challenge, &extra, &mut trace).await {
                    Ok(_) => {}
                    // A kept registration the server no longer knows: it is
                    // forgotten; register and authorize once more.
                    Err(e) if e.trace.steps.iter().any(|s| s.note == FORGOTTEN_CLIENT) => {
                        trace = e.trace;
                        trace.note("registering again and authorizing once more");
                        self.authorize(&d, &challenge, &extra, &mut trace).await?;
                    }
                    Err(e) => return Err(e),
                }
            }
        }
        self.info()
            .ok_or_else(|| AuthError::new(AuthErrorKind::Token, "no token after the login"))
    }

    /// An unauthenticated POST to learn the server's challenge (with the
    /// server's TLS settings). A server that does not answer at all is an
    /// error: discovery without it would only guess.
    async fn probe(&self, trace: &mut Trace) -> Result<BearerChallenge, AuthError> {
        let body = serde_json::json!({"jsonrpc":"2.0","id":0,"method":"initialize","params":{
            "protocolVersion":"2025-11-25","capabilities":{},"clientInfo":{"name":"mcpdeck","version":env!("CARGO_PKG_VERSION")}}});
        let sent = self
            .http
            .client()
            .post(&self.spec.url)
            .timeout(self.spec.http_limit)
            .header("content-type", "application/json")
            .header("accept", "application/json, text/event-stream")
            .body(body.to_string())
            .send()
            .await;
        let resp = match sent {
            Ok(r) => r,
            Err(e) => {
                let why = crate::mcp::transport::http::error_chain(&e);
                trace.push("POST", &self.spec.url, None, format!("no answer: {why}"));
                return Err(AuthError::new(
                    AuthErrorKind::Discovery,
                    format!(
                        "{} does not answer at {} ({why}); check that it runs and that `url` is right",
                        self.spec.server,
                        crate::mcp::netlog::shown_url(&self.spec.url)
                    ),
                )
                .with_trace(trace));
            }
        };
        let status = resp.status().as_u16();
        let values = crate::mcp::transport::http::www_authenticate(resp.headers());
        let c = BearerChallenge::from_headers(&values);
        trace.push(
            "POST",
            &self.spec.url,
            Some(status),
            if values.is_empty() {
                "no challenge".to_string()
            } else {
                "a Bearer challenge".to_string()
            },
        );
        Ok(c)
    }

    /// Forget the token (and revoke it where the server offers revocation).
    /// Returns what was done, for a person.
    pub async fn logout(&self) -> Result<Vec<String>, AuthError> {
        let _flight = self.flight.lock().await;
        self.load();
        let store = self
            .store()
            .map_err(|e| AuthError::new(AuthErrorKind::Store, e.to_string()))?;
        let removed = store
            .remove_tokens(&self.spec.url)
            .map_err(|e| AuthError::new(AuthErrorKind::Store, e.to_string()))?;
        self.lock().token = None;
        let mut done = Vec::new();
        for t in &removed {
            let mut trace = Trace::default();
            let revoked = match self
                .discovered(&BearerChallenge::default(), &mut trace)
                .await
            {
                Ok(d) => match &d.meta.revocation_endpoint {
                    Some(ep) => {
                        let client = self.client_for_token(&d, &t.client_id);
                        let mut r = token::revoke(
                            &self.http,
                            ep,
                            &client,
                            &d.issuer,
                            &t.access_token,
                            "access_token",
                            &mut trace,
                        )
                        .await;
                        if let (Ok(()), Some(rt)) = (&r, &t.refresh_token) {
                            r = token::revoke(
                                &self.http,
                                ep,
                                &client,
                                &d.issuer,
                                rt,
                                "refresh_token",
                                &mut trace,
                            )
                            .await;
                        }
                        match r {
                            Ok(()) => "revoked".to_string(),
                            Err(e) => format!("not revoked ({e})"),
                        }
                    }
                    None => "not revoked (the server offers no revocation endpoint)".to_string(),
                },
                Err(e) => format!("not revoked ({e})"),
            };
            done.push(format!(
                "token from {} for {}: {revoked}, forgotten",
                t.issuer, t.client_id
            ));
        }
        Ok(done)
    }

    /// The client a stored token was obtained with.
    fn client_for_token(&self, d: &Discovered, client_id: &str) -> Client {
        if let Ok(Some(c)) = register::configured(&self.spec.oauth, Some(&d.meta))
            && c.client_id == client_id
        {
            return c;
        }
        let kept = self.store().ok().and_then(|s| {
            s.client_for(&d.issuer, None)
                .ok()
                .flatten()
                .filter(|k| k.client_id == client_id)
        });
        match kept {
            Some(k) => Client {
                client_id: k.client_id,
                auth: ClientAuth::choose(
                    k.client_secret.as_ref(),
                    Some(&k.auth_method),
                    d.meta.token_endpoint_auth_methods_supported.as_deref(),
                ),
            },
            None => Client {
                client_id: client_id.to_string(),
                auth: ClientAuth::None,
            },
        }
    }

    fn token_endpoint<'a>(&self, d: &'a Discovered, trace: &Trace) -> Result<&'a str, AuthError> {
        d.meta.token_endpoint.as_deref().ok_or_else(|| {
            AuthError::new(
                AuthErrorKind::Discovery,
                format!(
                    "the authorization server {} lists no token_endpoint",
                    d.issuer
                ),
            )
            .with_trace(trace)
        })
    }

    /// Keep a granted token: stored first (a rotated refresh token must not
    /// be lost), then used.
    fn keep(
        &self,
        d: &Discovered,
        client_id: &str,
        resource: Option<String>,
        asked: &[String],
        g: Granted,
        old_refresh: Option<Secret>,
    ) -> StoredToken {
        let now = now();
        let t = StoredToken {
            issuer: d.issuer.clone(),
            resource,
            client_id: client_id.to_string(),
            server_url: self.spec.url.clone(),
            access_token: g.access_token,
            refresh_token: g.refresh_token.or(old_refresh),
            dpop_key: g.dpop_key,
            token_type: g.token_type,
            scopes: g.scope.unwrap_or_else(|| asked.to_vec()),
            expires_at: g.expires_in.map(|s| now + s),
            obtained_at: now,
        };
        if let Ok(store) = self.store()
            && let Err(e) = store.save_token(&t)
        {
            tracing::warn!(server = %self.spec.server, "the token could not be stored: {e}");
        }
        self.lock().token = Some(t.clone());
        t
    }

    async fn refresh(
        &self,
        t: &StoredToken,
        challenge: &BearerChallenge,
        trace: &mut Trace,
    ) -> Result<(), AuthError> {
        // Another process may have refreshed since `t` was read: its token
        // is the one to use (the refresh token held here is spent).
        let newer = self.newer_in_store(t);
        let t = match newer {
            Some(n) => {
                trace.note("another mcpdeck process renewed the token meanwhile: using its token");
                self.lock().token = Some(n.clone());
                if !due(&n) {
                    return Ok(());
                }
                n
            }
            None => t.clone(),
        };
        let t = &t;
        let Some(rt) = &t.refresh_token else {
            return Err(AuthError::new(AuthErrorKind::Token, "no refresh token"));
        };
        let d = self.discovered(challenge, trace).await?;
        let endpoint = self.token_endpoint(&d, trace)?.to_string();
        let client = self.client_for_token(&d, &t.client_id);
        let mut params = vec![
            ("grant_type".to_string(), "refresh_token".to_string()),
            ("refresh_token".to_string(), rt.expose().to_string()),
        ];
        if let Some(r) = &t.resource {
            params.push(("resource".into(), r.clone()));
        }
        // A bound token's refresh is proved with the same key (RFC 9449 §5).
        let dpop = self.key_of(t);
        match token::request(
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
            Ok(g) => {
                trace.note("refreshed the token");
                self.keep(
                    &d,
                    &t.client_id,
                    t.resource.clone(),
                    &t.scopes,
                    g,
                    Some(rt.clone()),
                );
                Ok(())
            }
            Err(f) => {
                if f.error.as_deref() == Some("invalid_grant") {
                    // Spent: perhaps by another process a moment ago, which
                    // then stores the new token.
                    if let Some(n) = self.newer_in_store(t) {
                        trace.note("the refresh token was spent by another mcpdeck process: using the token it stored");
                        self.lock().token = Some(n);
                        return Ok(());
                    }
                    self.forget_token(t);
                }
                Err(f.into_auth(trace))
            }
        }
    }
}

/// How the HTTP transport reaches the engine (it names none of it).
impl Authorize for Authorizer {
    fn credentials(&self, method: &str, url: &str) -> Option<Credentials> {
        Authorizer::credentials(self, method, url)
    }

    fn dpop_nonce(&self, nonce: &str) {
        Authorizer::dpop_nonce(self, nonce)
    }

    fn bearer(&self) -> Option<Secret> {
        Authorizer::bearer(self)
    }

    fn fresh(&self) -> futures_util::future::BoxFuture<'_, ()> {
        Box::pin(Authorizer::fresh(self))
    }

    fn unauthorized<'a>(
        &'a self,
        sent: Option<&'a Secret>,
        challenge: &'a BearerChallenge,
    ) -> futures_util::future::BoxFuture<'a, Result<(), AuthError>> {
        Box::pin(Authorizer::unauthorized(self, sent, challenge))
    }

    fn insufficient_scope<'a>(
        &'a self,
        challenge: &'a BearerChallenge,
        round: u32,
    ) -> futures_util::future::BoxFuture<'a, Result<(), AuthError>> {
        Box::pin(Authorizer::insufficient_scope(self, challenge, round))
    }

    fn attach(&self, net: Arc<NetLog>) {
        Authorizer::attach(self, net)
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use base64::Engine as _;

    #[test]
    fn pkce_is_s256_of_the_verifier() {
        let (v, c) = pkce().expect("randomness");
        assert_eq!(v.expose().len(), 43);
        assert!(
            v.expose()
                .bytes()
                .all(|b| b.is_ascii_alphanumeric() || b == b'-' || b == b'_')
        );
        let d = ring::digest::digest(&ring::digest::SHA256, v.expose().as_bytes());
        assert_eq!(
            c,
            base64::engine::general_purpose::URL_SAFE_NO_PAD.encode(d.as_ref())
        );
        assert_ne!(pkce().expect("randomness").0.expose(), v.expose());
    }

    #[test]
    fn scope_union_keeps_order_and_drops_repeats() {
        let s = |v: &[&str]| v.iter().map(|x| x.to_string()).collect::<Vec<_>>();
        assert_eq!(union(&s(&["a", "b"]), &s(&["b", "c"])), s(&["a", "b", "c"]));
    }
}
