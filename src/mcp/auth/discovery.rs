//! Finding who authorizes a server: its protected resource metadata
//! (RFC 9728), checked against the server's URL, then the authorization
//! server's metadata (RFC 8414 / OpenID discovery) in the order the MCP
//! spec mandates, with the 2025-03-26 fallbacks. Every URL tried goes into
//! the trace.

use serde_json::{Map, Value};

use crate::mcp::bearer::{AuthError, AuthErrorKind, BearerChallenge, Trace};

use super::http::{AuthHttp, Fetched, check_url};

/// What the authorization server's metadata says (absent or ill-typed
/// fields are `None` / empty).
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct AsMetadata {
    pub issuer: String,
    pub authorization_endpoint: Option<String>,
    pub token_endpoint: Option<String>,
    pub registration_endpoint: Option<String>,
    pub revocation_endpoint: Option<String>,
    pub scopes_supported: Option<Vec<String>>,
    pub code_challenge_methods_supported: Option<Vec<String>>,
    pub token_endpoint_auth_methods_supported: Option<Vec<String>>,
    pub grant_types_supported: Option<Vec<String>>,
    pub client_id_metadata_document_supported: bool,
    pub iss_parameter_supported: bool,
    /// RFC 9449 §5.1: the algorithms its token endpoint takes DPoP proofs in.
    pub dpop_signing_alg_values_supported: Option<Vec<String>>,
}

fn strings(doc: &Map<String, Value>, key: &str) -> Option<Vec<String>> {
    doc.get(key)?.as_array().map(|a| {
        a.iter()
            .filter_map(Value::as_str)
            .map(str::to_string)
            .collect()
    })
}

fn string(doc: &Map<String, Value>, key: &str) -> Option<String> {
    doc.get(key)?
        .as_str()
        .map(str::to_string)
        .filter(|s| !s.is_empty())
}

impl AsMetadata {
    pub fn from_doc(doc: &Map<String, Value>) -> AsMetadata {
        AsMetadata {
            issuer: string(doc, "issuer").unwrap_or_default(),
            authorization_endpoint: string(doc, "authorization_endpoint"),
            token_endpoint: string(doc, "token_endpoint"),
            registration_endpoint: string(doc, "registration_endpoint"),
            revocation_endpoint: string(doc, "revocation_endpoint"),
            scopes_supported: strings(doc, "scopes_supported"),
            code_challenge_methods_supported: strings(doc, "code_challenge_methods_supported"),
            dpop_signing_alg_values_supported: strings(doc, "dpop_signing_alg_values_supported"),
            token_endpoint_auth_methods_supported: strings(
                doc,
                "token_endpoint_auth_methods_supported",
            ),
            grant_types_supported: strings(doc, "grant_types_supported"),
            client_id_metadata_document_supported: doc
                .get("client_id_metadata_document_supported")
                .and_then(Value::as_bool)
                .unwrap_or(false),
            iss_parameter_supported: doc
                .get("authorization_response_iss_parameter_supported")
                .and_then(Value::as_bool)
                .unwrap_or(false),
        }
    }

    /// Whether the server lists this grant (absent list: the RFC 8414
    /// default, `authorization_code` and `implicit`).
    pub fn supports_grant(&self, grant: &str) -> bool {
        match &self.grant_types_supported {
            Some(list) => list.iter().any(|g| g == grant),
            None => matches!(grant, "authorization_code" | "implicit"),
        }
    }
}

/// The outcome of discovery.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Discovered {
    /// The protected resource metadata's `resource` (checked), when there
    /// was such metadata.
    pub resource: Option<String>,
    /// The PRM's `scopes_supported`.
    pub resource_scopes: Vec<String>,
    /// The PRM asks for DPoP-bound tokens (RFC 9728
    /// `dpop_bound_access_tokens_required`, or it lists
    /// `dpop_signing_alg_values_supported`).
    pub resource_dpop: bool,
    /// The issuer the metadata was found for.
    pub issuer: String,
    pub meta: AsMetadata,
}

fn trim_slash(s: &str) -> &str {
    s.strip_suffix('/').unwrap_or(s)
}

/// The server URL lies under the resource: same origin, and the server's
/// path starts with the resource's path.
pub fn resource_matches(resource: &str, server: &reqwest::Url) -> bool {
    let Ok(r) = reqwest::Url::parse(resource) else {
        return false;
    };
    if r.origin() != server.origin() {
        return false;
    }
    let rp = trim_slash(r.path());
    let sp = server.path();
    rp.is_empty() || sp == rp || sp.starts_with(&format!("{rp}/"))
}

/// The well-known PRM URLs for a server URL: path-inserted first, then
/// the root.
pub fn prm_candidates(server: &reqwest::Url) -> Vec<String> {
    let origin = server.origin().ascii_serialization();
    let path = trim_slash(server.path());
    let mut out = Vec::new();
    if !path.is_empty() {
        out.push(format!(
            "{origin}/.well-known/oauth-protected-resource{path}"
        ));
    }
    out.push(format!("{origin}/.well-known/oauth-protected-resource"));
    out
}

/// The metadata URLs of an issuer, in the mandated order.
pub fn as_candidates(issuer: &reqwest::Url) -> Vec<String> {
    let origin = issuer.origin().ascii_serialization();
    let path = trim_slash(issuer.path());
    if path.is_empty() {
        vec![
            format!("{origin}/.well-known/oauth-authorization-server"),
            format!("{origin}/.well-known/openid-configuration"),
        ]
    } else {
        vec![
            format!("{origin}/.well-known/oauth-authorization-server{path}"),
            format!("{origin}/.well-known/openid-configuration{path}"),
            format!("{origin}{path}/.well-known/openid-configuration"),
        ]
    }
}

/// The origins that gave no HTTP answer at all (a time-out, a refused
/// connection): their remaining candidate URLs are skipped, so a silent
/// server costs one time limit, not one per candidate.
#[derive(Debug, Default)]
struct Silent(Vec<url::Origin>);

impl Silent {
    /// Whether `url` is on a silent origin (noted in the trace when so).
    fn skip(&self, url: &str, trace: &mut Trace) -> bool {
        let Ok(u) = reqwest::Url::parse(url) else {
            return false;
        };
        let silent = self.0.contains(&u.origin());
        if silent {
            trace.note(format!(
                "{} skipped: {} gave no answer",
                crate::mcp::netlog::shown_url(url),
                u.origin().ascii_serialization()
            ));
        }
        silent
    }

    /// Remember `url`'s origin when the fetch brought no HTTP answer.
    fn note(&mut self, url: &str, fetched: &Fetched) {
        if let Fetched::Unusable(None, _) = fetched
            && let Ok(u) = reqwest::Url::parse(url)
            && !self.0.contains(&u.origin())
        {
            self.0.push(u.origin());
        }
    }
}

/// Find the authorization server of `server_url`. `authorization_server`
/// overrides the PRM's choice.
pub async fn discover(
    http: &AuthHttp,
    server_url: &str,
    challenge: &BearerChallenge,
    authorization_server: Option<&str>,
    trace: &mut Trace,
) -> Result<Discovered, AuthError> {
    let server = reqwest::Url::parse(server_url).map_err(|e| {
        AuthError::new(
            AuthErrorKind::Config,
            format!("the server URL is not a URL: {e}"),
        )
    })?;
    // 1. Protected resource metadata.
    let mut prm = None;
    let mut candidates = Vec::new();
    if let Some(url) = &challenge.resource_metadata {
        trace.note(format!(
            "the server's challenge names its resource metadata: {}",
            crate::mcp::netlog::shown_url(url)
        ));
        candidates.push(url.clone());
    }
    for c in prm_candidates(&server) {
        if !candidates.contains(&c) {
            candidates.push(c);
        }
    }
    let mut silent = Silent::default();
    for url in &candidates {
        if silent.skip(url, trace) {
            continue;
        }
        match http
            .get_doc(url, "protected resource metadata", trace)
            .await?
        {
            Fetched::Doc(doc) => {
                prm = Some(doc);
                break;
            }
            other => silent.note(url, &other),
        }
    }
    let mut resource = None;
    let mut resource_scopes = Vec::new();
    let mut resource_dpop = false;
    let issuer = match (&prm, authorization_server) {
        (Some(doc), over) => {
            let r = string(doc, "resource").ok_or_else(|| {
                AuthError::new(
                    AuthErrorKind::Discovery,
                    "the protected resource metadata has no `resource`",
                )
                .with_trace(trace)
            })?;
            if !resource_matches(&r, &server) {
                trace.note(format!(
                    "resource {r:?} does not cover {server_url}: stopped"
                ));
                return Err(AuthError::new(
                    AuthErrorKind::ResourceMismatch,
                    format!(
                        "the server's protected resource metadata is for {}, not for {}; nothing was sent to its authorization server (a misconfigured or malicious server)",
                        crate::mcp::netlog::shown_url(&r),
                        crate::mcp::netlog::shown_url(server_url)
                    ),
                )
                .with_trace(trace));
            }
            resource = Some(r);
            resource_scopes = strings(doc, "scopes_supported").unwrap_or_default();
            resource_dpop = doc
                .get("dpop_bound_access_tokens_required")
                .and_then(Value::as_bool)
                .unwrap_or(false)
                || strings(doc, "dpop_signing_alg_values_supported").is_some_and(|l| !l.is_empty());
            match over {
                Some(o) => {
                    trace.note(format!("authorization server from the config: {o}"));
                    Some(o.to_string())
                }
                None => {
                    let first = strings(doc, "authorization_servers")
                        .unwrap_or_default()
                        .into_iter()
                        .find(|s| !s.is_empty());
                    match first {
                        Some(f) => {
                            trace.note(format!("authorization server: {f}"));
                            Some(f)
                        }
                        None => {
                            return Err(AuthError::new(
                                AuthErrorKind::Discovery,
                                "the protected resource metadata lists no `authorization_servers`",
                            )
                            .with_trace(trace));
                        }
                    }
                }
            }
        }
        (None, Some(o)) => {
            trace.note(format!(
                "no protected resource metadata; authorization server from the config: {o}"
            ));
            Some(o.to_string())
        }
        (None, None) => None,
    };
    // 2. Authorization server metadata.
    let Some(issuer) = issuer else {
        // 2025-03-26: the server's origin is the authorization server.
        trace.note("no protected resource metadata: trying the server's origin as its authorization server (2025-03-26)");
        let origin = server.origin().ascii_serialization();
        let url = format!("{origin}/.well-known/oauth-authorization-server");
        if !silent.skip(&url, trace)
            && let Fetched::Doc(doc) = http
                .get_doc(&url, "authorization server metadata", trace)
                .await?
        {
            let mut meta = AsMetadata::from_doc(&doc);
            if meta.issuer.is_empty() {
                meta.issuer = origin.clone();
            }
            return Ok(Discovered {
                resource: None,
                resource_scopes,
                resource_dpop,
                issuer: meta.issuer.clone(),
                meta,
            });
        }
        trace.note(format!(
            "no metadata: using the default endpoints {origin}/authorize, /token, /register"
        ));
        return Ok(Discovered {
            resource: None,
            resource_scopes,
            resource_dpop,
            issuer: origin.clone(),
            meta: AsMetadata {
                issuer: origin.clone(),
                authorization_endpoint: Some(format!("{origin}/authorize")),
                token_endpoint: Some(format!("{origin}/token")),
                registration_endpoint: Some(format!("{origin}/register")),
                ..AsMetadata::default()
            },
        });
    };
    let issuer_url = check_url(&issuer, "authorization server")
        .map_err(|e| AuthError::new(AuthErrorKind::Discovery, e.to_string()).with_trace(trace))?;
    let mut last = String::new();
    for url in as_candidates(&issuer_url) {
        if silent.skip(&url, trace) {
            continue;
        }
        let fetched = http
            .get_doc(&url, "authorization server metadata", trace)
            .await?;
        silent.note(&url, &fetched);
        match fetched {
            Fetched::Doc(doc) => {
                let meta = AsMetadata::from_doc(&doc);
                if trim_slash(&meta.issuer) != trim_slash(&issuer) {
                    trace.note(format!(
                        "its issuer {:?} is not {issuer:?}: not used",
                        meta.issuer
                    ));
                    last = format!(
                        "the metadata at {} names issuer {:?}, not {issuer:?}",
                        crate::mcp::netlog::shown_url(&url),
                        crate::sanitize::one_line(&meta.issuer)
                    );
                    continue;
                }
                return Ok(Discovered {
                    resource,
                    resource_scopes,
                    resource_dpop,
                    issuer: meta.issuer.clone(),
                    meta,
                });
            }
            Fetched::Unusable(_, why) => last = why,
        }
    }
    Err(AuthError::new(
        AuthErrorKind::Discovery,
        format!(
            "no usable authorization server metadata for {} ({last}); set `authorization_server` in [servers.NAME.oauth] if the server names the wrong one",
            crate::mcp::netlog::shown_url(&issuer)
        ),
    )
    .with_trace(trace))
}

#[cfg(test)]
mod tests {
    use super::*;

    fn u(s: &str) -> reqwest::Url {
        reqwest::Url::parse(s).unwrap()
    }

    #[test]
    fn prm_urls_path_first_then_root() {
        assert_eq!(
            prm_candidates(&u("https://h.example/mcp")),
            vec![
                "https://h.example/.well-known/oauth-protected-resource/mcp",
                "https://h.example/.well-known/oauth-protected-resource"
            ]
        );
        assert_eq!(
            prm_candidates(&u("https://h.example/")),
            vec!["https://h.example/.well-known/oauth-protected-resource"]
        );
    }

    #[test]
    fn as_urls_in_the_mandated_order() {
        assert_eq!(
            as_candidates(&u("https://a.example/t1")),
            vec![
                "https://a.example/.well-known/oauth-authorization-server/t1",
                "https://a.example/.well-known/openid-configuration/t1",
                "https://a.example/t1/.well-known/openid-configuration",
            ]
        );
        for issuer in ["https://a.example", "https://a.example/"] {
            assert_eq!(
                as_candidates(&u(issuer)),
                vec![
                    "https://a.example/.well-known/oauth-authorization-server",
                    "https://a.example/.well-known/openid-configuration",
                ]
            );
        }
    }

    #[test]
    fn resource_must_cover_the_server() {
        let s = u("https://h.example/mcp");
        assert!(resource_matches("https://h.example/mcp", &s));
        assert!(resource_matches("https://h.example/", &s));
        assert!(resource_matches("https://h.example", &s));
        assert!(!resource_matches("https://evil.example.com/mcp", &s));
        assert!(!resource_matches("https://h.example/other", &s));
        assert!(!resource_matches("https://h.example/mc", &s));
        assert!(!resource_matches("http://h.example/mcp", &s));
        assert!(resource_matches(
            "https://h.example/api",
            &u("https://h.example/api/mcp")
        ));
    }

    #[test]
    fn a_silent_origin_is_asked_once() {
        let mut silent = Silent::default();
        let mut trace = Trace::default();
        let a = "http://127.0.0.1:9/.well-known/oauth-authorization-server";
        let b = "http://127.0.0.1:9/.well-known/openid-configuration";
        let other = "http://127.0.0.1:10/.well-known/openid-configuration";
        // An HTTP answer (here a 404) keeps the origin in play.
        silent.note(a, &Fetched::Unusable(Some(404), "not here".into()));
        assert!(!silent.skip(b, &mut trace));
        assert!(trace.is_empty());
        // No answer at all: the origin's other URLs are skipped, and the
        // trace says so; other origins are still asked.
        silent.note(a, &Fetched::Unusable(None, "no answer within 2s".into()));
        assert!(silent.skip(b, &mut trace));
        assert!(!silent.skip(other, &mut trace));
        assert_eq!(
            trace.to_string(),
            format!("  {b} skipped: http://127.0.0.1:9 gave no answer")
        );
    }

    #[test]
    fn metadata_fields_tolerate_wrong_types() {
        let doc = serde_json::json!({"issuer": "https://a", "scopes_supported": "x", "token_endpoint": 5,
            "grant_types_supported": ["client_credentials"], "client_id_metadata_document_supported": true});
        let m = AsMetadata::from_doc(doc.as_object().unwrap());
        assert_eq!(m.scopes_supported, None);
        assert_eq!(m.token_endpoint, None);
        assert!(m.client_id_metadata_document_supported);
        assert!(m.supports_grant("client_credentials"));
        assert!(!m.supports_grant("authorization_code"));
    }
}
