//! Token endpoint requests: the authorization code, refresh,
//! client_credentials, RFC 8693 token exchange and the RFC 7523 jwt-bearer
//! grant, with the client authenticated as the server says (basic, post,
//! none, private_key_jwt). Answers are read leniently; errors name the
//! OAuth error and never a secret.

use base64::Engine as _;
use reqwest::header::{HeaderMap, HeaderValue};
use serde_json::Value;

use super::dpop::{DpopKey, NonceFrom};
use super::http::{AuthHttp, PostBody};
use crate::mcp::bearer::secret::scrub;
use crate::mcp::bearer::{AuthError, AuthErrorKind, Secret, Trace};

/// How the client proves who it is at the token endpoint.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum ClientAuth {
    /// `Authorization: Basic` with the id and secret.
    Basic(Secret),
    /// `client_id` and `client_secret` in the body.
    Post(Secret),
    /// `client_id` in the body only (a public client).
    None,
    /// A JWT signed with the client's key (PKCS#8 PEM), and its algorithm.
    PrivateKeyJwt { pem: Secret, alg: Option<String> },
}

impl ClientAuth {
    /// The name used in metadata and registrations.
    pub fn method_name(&self) -> &'static str {
        match self {
            ClientAuth::Basic(_) => "client_secret_basic",
            ClientAuth::Post(_) => "client_secret_post",
            ClientAuth::None => "none",
            ClientAuth::PrivateKeyJwt { .. } => "private_key_jwt",
        }
    }

    /// The method for a client with `secret`, given what the server lists
    /// (`registered`: the method the registration answered with).
    pub fn choose(
        secret: Option<&Secret>,
        registered: Option<&str>,
        supported: Option<&[String]>,
    ) -> ClientAuth {
        let Some(secret) = secret.filter(|s| !s.is_empty()) else {
            return ClientAuth::None;
        };
        let pick = |m: &str| match m {
            "client_secret_basic" => Some(ClientAuth::Basic(secret.clone())),
            "client_secret_post" => Some(ClientAuth::Post(secret.clone())),
            "none" => Some(ClientAuth::None),
            _ => None,
        };
        if let Some(m) = registered.and_then(pick) {
            return m;
        }
        if let Some(list) = supported {
            for want in ["client_secret_basic", "client_secret_post", "none"] {
                if list.iter().any(|m| m == want)
                    && let Some(m) = pick(want)
                {
                    return m;
                }
            }
        }
        // RFC 8414: the default is client_secret_basic.
        ClientAuth::Basic(secret.clone())
    }
}

/// A client at an authorization server.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Client {
    pub client_id: String,
    pub auth: ClientAuth,
}

/// What a token endpoint granted.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Granted {
    pub access_token: Secret,
    pub token_type: String,
    pub refresh_token: Option<Secret>,
    /// Seconds from now.
    pub expires_in: Option<u64>,
    /// The granted scope, when the server said.
    pub scope: Option<Vec<String>>,
    /// RFC 8693: the type of the issued token.
    pub issued_token_type: Option<String>,
    /// The DPoP key the request was proved with (the access token is
    /// bound to it when `token_type` is DPoP; the refresh token may be
    /// either way).
    pub dpop_key: Option<Secret>,
}

/// A token endpoint's failure: the message names the endpoint and the
/// OAuth error, and never a secret.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[error("{message}")]
pub struct TokenFailure {
    /// The OAuth `error` code (`invalid_grant`, `invalid_client`, …).
    pub error: Option<String>,
    pub error_description: Option<String>,
    pub status: Option<u16>,
    pub message: String,
}

impl TokenFailure {
    pub fn into_auth(self, trace: &Trace) -> AuthError {
        AuthError::new(AuthErrorKind::Token, self.message).with_trace(trace)
    }
}

/// The current time in seconds since the epoch.
pub fn now() -> u64 {
    std::time::SystemTime::now()
        .duration_since(std::time::UNIX_EPOCH)
        .map(|d| d.as_secs())
        .unwrap_or(0)
}

/// POST a grant to the token endpoint. `audience` is the issuer (for
/// `private_key_jwt`). With a DPoP key, the request carries a proof
/// (RFC 9449 §5), and a `use_dpop_nonce` refusal is answered once, with
/// the nonce the server handed out (§8).
pub async fn request(
    http: &AuthHttp,
    endpoint: &str,
    client: &Client,
    audience: &str,
    params: Vec<(String, String)>,
    dpop: Option<&DpopKey>,
    trace: &mut Trace,
) -> Result<Granted, TokenFailure> {
    let mut nonce_retried = false;
    loop {
        match request_once(
            http,
            endpoint,
            client,
            audience,
            params.clone(),
            dpop,
            trace,
        )
        .await
        {
            Err((f, Some(nonce)))
                if !nonce_retried && f.error.as_deref() == Some("use_dpop_nonce") =>
            {
                if let Some(k) = dpop {
                    k.set_nonce(NonceFrom::AuthorizationServer, &nonce);
                }
                trace.note("the token endpoint asked for a DPoP nonce: sent again with it");
                nonce_retried = true;
            }
            Err((f, _)) => return Err(f),
            Ok(g) => return Ok(g),
        }
    }
}

/// One POST of [`request`]; a failure comes with the `DPoP-Nonce` the
/// answer carried.
async fn request_once(
    http: &AuthHttp,
    endpoint: &str,
    client: &Client,
    audience: &str,
    mut params: Vec<(String, String)>,
    dpop: Option<&DpopKey>,
    trace: &mut Trace,
) -> Result<Granted, (TokenFailure, Option<String>)> {
    let no_nonce = |f: TokenFailure| (f, None);
    let mut headers = HeaderMap::new();
    let mut secrets: Vec<Secret> = params
        .iter()
        .filter(|(k, _)| {
            matches!(
                k.as_str(),
                "code"
                    | "code_verifier"
                    | "refresh_token"
                    | "assertion"
                    | "subject_token"
                    | "client_secret"
                    | "token"
            )
        })
        .map(|(_, v)| Secret::new(v.clone()))
        .collect();
    match &client.auth {
        ClientAuth::Basic(secret) => {
            let enc =
                |s: &str| url::form_urlencoded::byte_serialize(s.as_bytes()).collect::<String>();
            let pair = format!("{}:{}", enc(&client.client_id), enc(secret.expose()));
            let value = format!(
                "Basic {}",
                base64::engine::general_purpose::STANDARD.encode(pair)
            );
            if let Ok(mut v) = HeaderValue::from_str(&value) {
                v.set_sensitive(true);
                headers.insert(reqwest::header::AUTHORIZATION, v);
            }
            secrets.push(secret.clone());
        }
        ClientAuth::Post(secret) => {
            params.push(("client_id".into(), client.client_id.clone()));
            params.push(("client_secret".into(), secret.expose().to_string()));
            secrets.push(secret.clone());
        }
        ClientAuth::None => params.push(("client_id".into(), client.client_id.clone())),
        ClientAuth::PrivateKeyJwt { pem, alg } => {
            let jwt = super::jwt::client_assertion(
                pem.expose(),
                alg.as_deref(),
                &client.client_id,
                audience,
                now(),
            )
            .map_err(|e| {
                no_nonce(TokenFailure {
                    error: None,
                    error_description: None,
                    status: None,
                    message: format!("cannot sign the client assertion: {e}"),
                })
            })?;
            params.push(("client_id".into(), client.client_id.clone()));
            params.push((
                "client_assertion_type".into(),
                "urn:ietf:params:oauth:client-assertion-type:jwt-bearer".into(),
            ));
            secrets.push(Secret::new(jwt.clone()));
            params.push(("client_assertion".into(), jwt));
        }
    }
    let grant = params
        .iter()
        .find(|(k, _)| k == "grant_type")
        .map(|(_, v)| v.clone())
        .unwrap_or_default();
    if let Some(k) = dpop {
        let proof = k
            .proof(
                "POST",
                endpoint,
                None,
                NonceFrom::AuthorizationServer,
                now(),
            )
            .map_err(|e| {
                no_nonce(TokenFailure {
                    error: None,
                    error_description: None,
                    status: None,
                    message: format!("cannot make the DPoP proof for the token request: {e}"),
                })
            })?;
        if let Ok(v) = HeaderValue::from_str(&proof) {
            headers.insert("dpop", v);
        }
    }
    let refs: Vec<&Secret> = secrets.iter().collect();
    let posted = http
        .post(
            endpoint,
            "token request",
            headers,
            PostBody::Form(params),
            trace,
        )
        .await
        .map_err(|e| {
            no_nonce(TokenFailure {
                error: None,
                error_description: None,
                status: None,
                message: scrub(&e.to_string(), &refs),
            })
        })?;
    if let (Some(k), Some(n)) = (dpop, &posted.dpop_nonce) {
        k.set_nonce(NonceFrom::AuthorizationServer, n);
    }
    let body: Option<Value> = serde_json::from_str(&posted.body).ok();
    let field = |k: &str| {
        body.as_ref()
            .and_then(|b| b.get(k))
            .and_then(Value::as_str)
            .map(str::to_string)
    };
    if !(200..300).contains(&posted.status) || field("error").is_some() {
        let error = field("error");
        let description = field("error_description");
        let what = match (&error, &description) {
            (Some(e), Some(d)) => format!("{e}: {d}"),
            (Some(e), None) => e.clone(),
            _ => format!(
                "HTTP {}{}",
                posted.status,
                if posted.body.trim().is_empty() {
                    String::new()
                } else {
                    format!(": {}", crate::mcp::transport::http::excerpt(&posted.body))
                }
            ),
        };
        return Err((
            TokenFailure {
                message: scrub(
                    &format!(
                        "the token endpoint {} refused the {grant} grant ({what})",
                        crate::mcp::netlog::shown_url(endpoint)
                    ),
                    &refs,
                ),
                error,
                error_description: description,
                status: Some(posted.status),
            },
            posted.dpop_nonce.clone(),
        ));
    }
    let Some(Value::Object(map)) = body else {
        return Err(no_nonce(TokenFailure {
            error: None,
            error_description: None,
            status: Some(posted.status),
            message: format!(
                "the token endpoint {} answered HTTP {} with a body that is not a JSON object ({})",
                crate::mcp::netlog::shown_url(endpoint),
                posted.status,
                if posted.content_type.is_empty() {
                    "no Content-Type"
                } else {
                    &posted.content_type
                }
            ),
        }));
    };
    let get = |k: &str| {
        map.get(k)
            .and_then(Value::as_str)
            .filter(|s| !s.is_empty())
            .map(str::to_string)
    };
    let Some(access) = get("access_token") else {
        return Err(no_nonce(TokenFailure {
            error: None,
            error_description: None,
            status: Some(posted.status),
            message: format!(
                "the token endpoint {} answered without an access_token",
                crate::mcp::netlog::shown_url(endpoint)
            ),
        }));
    };
    let expires_in = map.get("expires_in").and_then(|v| {
        v.as_u64()
            .or_else(|| v.as_f64().filter(|f| *f >= 0.0).map(|f| f as u64))
            .or_else(|| v.as_str().and_then(|s| s.trim().parse().ok()))
    });
    let token_type = get("token_type").unwrap_or_else(|| "Bearer".into());
    Ok(Granted {
        access_token: Secret::new(access),
        // Kept whenever the request carried a proof: a Bearer access token
        // may come with a refresh token bound to the key (RFC 9449 §5).
        dpop_key: dpop.map(DpopKey::stored),
        token_type,
        refresh_token: get("refresh_token").map(Secret::new),
        expires_in,
        scope: get("scope").map(|s| s.split_whitespace().map(str::to_string).collect()),
        issued_token_type: get("issued_token_type"),
    })
}

/// RFC 7009: revoke a token (best effort; `Err` says why it failed).
pub async fn revoke(
    http: &AuthHttp,
    endpoint: &str,
    client: &Client,
    audience: &str,
    token: &Secret,
    hint: &str,
    trace: &mut Trace,
) -> Result<(), TokenFailure> {
    let params = vec![
        ("token".to_string(), token.expose().to_string()),
        ("token_type_hint".to_string(), hint.to_string()),
    ];
    match request(http, endpoint, client, audience, params, None, trace).await {
        Ok(_) => Ok(()),
        // 200 with an empty body is success for RFC 7009; `request` wants an
        // access_token, so read its failure.
        Err(f) if f.status.is_some_and(|s| (200..300).contains(&s)) => Ok(()),
        Err(f) => Err(f),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn auth_method_follows_the_server() {
        let s = Secret::new("sec");
        let list = |v: &[&str]| v.iter().map(|s| s.to_string()).collect::<Vec<_>>();
        assert_eq!(ClientAuth::choose(None, None, None), ClientAuth::None);
        assert_eq!(
            ClientAuth::choose(Some(&s), None, Some(&list(&["client_secret_post"]))),
            ClientAuth::Post(s.clone())
        );
        assert_eq!(
            ClientAuth::choose(
                Some(&s),
                None,
                Some(&list(&["client_secret_post", "client_secret_basic"]))
            ),
            ClientAuth::Basic(s.clone())
        );
        assert_eq!(
            ClientAuth::choose(Some(&s), Some("client_secret_post"), None),
            ClientAuth::Post(s.clone())
        );
        assert_eq!(
            ClientAuth::choose(Some(&s), None, None),
            ClientAuth::Basic(s.clone())
        );
        assert_eq!(
            ClientAuth::choose(Some(&s), None, Some(&list(&["none"]))),
            ClientAuth::None
        );
    }
}
