//! Who the client is at an authorization server, in this priority:
//! pre-registered (the config), a client ID metadata document (CIMD), a
//! registration kept from before, dynamic client registration (RFC 7591).

use std::path::Path;

use serde_json::{Value, json};

use crate::config::OAuthConfig;
use crate::mcp::bearer::{AuthError, AuthErrorKind, Secret, Trace};

use super::discovery::AsMetadata;
use super::http::{AuthHttp, PostBody};
use super::store::{CredentialStore, StoredClient};
use super::token::{Client, ClientAuth, now};

/// Where the client's identity came from.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Source {
    Configured,
    MetadataDocument,
    Kept,
    Registered,
}

impl Source {
    pub fn label(self) -> &'static str {
        match self {
            Source::Configured => "pre-registered (config)",
            Source::MetadataDocument => "client ID metadata document",
            Source::Kept => "registered earlier",
            Source::Registered => "registered now",
        }
    }
}

/// The client and where it came from.
#[derive(Debug, Clone)]
pub struct Identity {
    pub client: Client,
    pub source: Source,
}

/// The client configured in `[servers.NAME.oauth]`, if any (with its
/// private key read when `private_key_file` is set).
pub fn configured(
    oauth: &OAuthConfig,
    meta: Option<&AsMetadata>,
) -> Result<Option<Client>, AuthError> {
    let Some(id) = &oauth.client_id else {
        return Ok(None);
    };
    if let Some(path) = &oauth.private_key_file {
        let pem = read_key(path)?;
        return Ok(Some(Client {
            client_id: id.clone(),
            auth: ClientAuth::PrivateKeyJwt {
                pem,
                alg: oauth.signing_algorithm.clone(),
            },
        }));
    }
    let secret = oauth.client_secret.clone().map(Secret::new);
    let supported = meta.and_then(|m| m.token_endpoint_auth_methods_supported.as_deref());
    Ok(Some(Client {
        client_id: id.clone(),
        auth: ClientAuth::choose(secret.as_ref(), None, supported),
    }))
}

fn read_key(path: &Path) -> Result<Secret, AuthError> {
    std::fs::read_to_string(path)
        .map(Secret::new)
        .map_err(|e| {
            AuthError::new(
                AuthErrorKind::Config,
                format!(
                    "cannot read `private_key_file` {}: {e} (a PKCS#8 PEM key, -----BEGIN PRIVATE KEY-----)",
                    path.display()
                ),
            )
        })
}

/// The client for a browser login that redirects to `redirect_uri`.
pub async fn identify(
    http: &AuthHttp,
    store: Option<&CredentialStore>,
    oauth: &OAuthConfig,
    meta: &AsMetadata,
    redirect_uri: &str,
    trace: &mut Trace,
) -> Result<Identity, AuthError> {
    if let Some(client) = configured(oauth, Some(meta))? {
        trace.note(format!(
            "client {}: pre-registered in the config ({})",
            client.client_id,
            client.auth.method_name()
        ));
        return Ok(Identity {
            client,
            source: Source::Configured,
        });
    }
    if let Some(url) = &oauth.client_metadata_url {
        if meta.client_id_metadata_document_supported {
            trace.note(format!(
                "client {url}: a client ID metadata document (the server supports them)"
            ));
            return Ok(Identity {
                client: Client {
                    client_id: url.clone(),
                    auth: ClientAuth::None,
                },
                source: Source::MetadataDocument,
            });
        }
        trace.note(
            "`client_metadata_url` is set, but the server does not list client_id_metadata_document_supported: registering instead",
        );
    }
    if let Some(store) = store
        && let Ok(Some(kept)) = store.client_for(&meta.issuer, Some(redirect_uri))
        && kept.redirect_uris.iter().any(|u| u == redirect_uri)
        && kept
            .client_secret_expires_at
            .is_none_or(|t| t == 0 || t > now())
    {
        trace.note(format!(
            "client {}: registered earlier with this server",
            kept.client_id
        ));
        let auth = ClientAuth::choose(
            kept.client_secret.as_ref(),
            Some(&kept.auth_method),
            meta.token_endpoint_auth_methods_supported.as_deref(),
        );
        return Ok(Identity {
            client: Client {
                client_id: kept.client_id,
                auth,
            },
            source: Source::Kept,
        });
    }
    let Some(endpoint) = &meta.registration_endpoint else {
        let hint = if meta.client_id_metadata_document_supported {
            "set `client_id` (a client registered with the server) or `client_metadata_url` (your client ID metadata document) in [servers.NAME.oauth]"
        } else {
            "set `client_id` (and `client_secret` if it has one) in [servers.NAME.oauth] for a client registered with the server"
        };
        trace.note("the server offers no dynamic client registration");
        return Err(AuthError::new(
            AuthErrorKind::Registration,
            format!(
                "the authorization server {} offers no way for mcpdeck to register: {hint}",
                meta.issuer
            ),
        )
        .with_trace(trace));
    };
    let method = match &meta.token_endpoint_auth_methods_supported {
        Some(list) if !list.iter().any(|m| m == "none") => list
            .iter()
            .find(|m| *m == "client_secret_basic" || *m == "client_secret_post")
            .cloned()
            .unwrap_or_else(|| "none".into()),
        _ => "none".into(),
    };
    let body = json!({
        "client_name": "mcpdeck",
        "redirect_uris": [redirect_uri],
        "grant_types": ["authorization_code", "refresh_token"],
        "response_types": ["code"],
        "token_endpoint_auth_method": method,
        "application_type": "native",
        "client_uri": "https://github.com/mcpdeck/mcpdeck",
    });
    let posted = http
        .post(
            endpoint,
            "client registration",
            Default::default(),
            PostBody::Json(body),
            trace,
        )
        .await
        .map_err(|e| {
            AuthError::new(AuthErrorKind::Registration, e.to_string()).with_trace(trace)
        })?;
    let doc: Option<Value> = serde_json::from_str(&posted.body).ok();
    let get = |k: &str| {
        doc.as_ref()
            .and_then(|d| d.get(k))
            .and_then(Value::as_str)
            .filter(|s| !s.is_empty())
            .map(str::to_string)
    };
    if !(200..300).contains(&posted.status) {
        let why = match (get("error"), get("error_description")) {
            (Some(e), Some(d)) => format!("{e}: {d}"),
            (Some(e), None) => e,
            _ => format!(
                "HTTP {}: {}",
                posted.status,
                crate::mcp::transport::http::excerpt(&posted.body)
            ),
        };
        return Err(AuthError::new(
            AuthErrorKind::Registration,
            format!(
                "dynamic client registration at {} failed ({why}); set `client_id` in [servers.NAME.oauth] for a client registered by hand",
                crate::mcp::netlog::shown_url(endpoint)
            ),
        )
        .with_trace(trace));
    }
    let Some(client_id) = get("client_id") else {
        trace.note("the registration answer has no client_id");
        return Err(AuthError::new(
            AuthErrorKind::Registration,
            format!(
                "dynamic client registration at {} answered without a client_id ({}); the server is broken: set `client_id` in [servers.NAME.oauth]",
                crate::mcp::netlog::shown_url(endpoint),
                if doc.is_some() { "JSON without the field" } else { "not JSON" }
            ),
        )
        .with_trace(trace));
    };
    let secret = get("client_secret").map(Secret::new);
    let registered_method = get("token_endpoint_auth_method");
    let auth = ClientAuth::choose(
        secret.as_ref(),
        registered_method.as_deref(),
        meta.token_endpoint_auth_methods_supported.as_deref(),
    );
    trace.note(format!(
        "client {client_id}: registered now ({})",
        auth.method_name()
    ));
    if let Some(store) = store {
        let kept = StoredClient {
            issuer: meta.issuer.clone(),
            client_id: client_id.clone(),
            client_secret: secret,
            auth_method: auth.method_name().to_string(),
            redirect_uris: vec![redirect_uri.to_string()],
            registered_at: now(),
            client_secret_expires_at: doc
                .as_ref()
                .and_then(|d| d.get("client_secret_expires_at"))
                .and_then(Value::as_u64),
        };
        if let Err(e) = store.save_client(&kept) {
            trace.note(format!("the registration could not be kept: {e}"));
        }
    }
    Ok(Identity {
        client: Client { client_id, auth },
        source: Source::Registered,
    })
}
