//! The HTTP side of OAuth: metadata fetched under guard (https or loopback
//! http only, redirects only within one origin, at most 1 MiB, a time limit
//! per request), and form or JSON POSTs that never follow redirects. Every
//! exchange goes into the network view and the trace; secrets never do.

use std::net::IpAddr;
use std::sync::{Arc, OnceLock};
use std::time::Duration;

use futures_util::StreamExt;
use reqwest::header::{HeaderMap, HeaderValue};
use serde_json::Value;

use crate::mcp::bearer::{AuthError, AuthErrorKind, Trace};
use crate::mcp::netlog::{ExchangeHandle, NetLog, shown_url};
use crate::mcp::transport::http::{error_chain, status_text};

/// The most bytes of a metadata or token answer.
pub const MAX_DOC: usize = 1024 * 1024;

/// Same-origin redirects followed for a metadata document.
const MAX_REDIRECTS: usize = 5;

/// The HTTP client of one server's logins.
pub struct AuthHttp {
    client: reqwest::Client,
    server: Arc<str>,
    net: OnceLock<Arc<NetLog>>,
    /// Time allowed for one whole exchange (connect, answer, body).
    pub limit: Duration,
}

/// What a GET of a metadata document brought.
pub enum Fetched {
    /// A JSON object.
    Doc(serde_json::Map<String, Value>),
    /// An answer that is not a usable document (the status, and why);
    /// discovery moves on to the next candidate.
    Unusable(Option<u16>, String),
}

/// A URL OAuth will not talk to ([`check_url`]). `url` is as it may be
/// shown (secrets masked); `what` names the URL (`token request`, …).
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum UrlRefused {
    #[error("the {what} URL {url:?} is not a URL: {source}")]
    NotAUrl {
        what: String,
        url: String,
        #[source]
        source: url::ParseError,
    },
    #[error(
        "the {what} URL {url} is plain http on another host; OAuth metadata and tokens go over https only (http is allowed on loopback)"
    )]
    PlainHttp { what: String, url: String },
    #[error("the {what} URL {url} has scheme {scheme:?}; only https (or http on loopback) is used")]
    Scheme {
        what: String,
        url: String,
        scheme: String,
    },
}

/// Why the body of an answer could not be read.
#[derive(Debug, thiserror::Error)]
pub enum ReadError {
    #[error("the body broke off: {}", error_chain(.0))]
    BrokeOff(#[source] reqwest::Error),
    #[error("the body is larger than {} MiB", MAX_DOC / (1024 * 1024))]
    TooLarge,
    #[error("the body did not arrive within {0:?}")]
    Late(Duration),
}

/// Why a POST brought no answer to look at. `url` is as it may be shown
/// (secrets masked); no message holds a secret of the request (its URL is
/// not in the `reqwest` error kept as the source).
#[derive(Debug, thiserror::Error)]
pub enum PostError {
    #[error(transparent)]
    Url(#[from] UrlRefused),
    #[error("POST {url}: no answer within {limit:?}")]
    Late { url: String, limit: Duration },
    /// The request could not be sent (DNS, TLS, a refused connection):
    /// `message` says so in words a person can act on.
    #[error("{message}")]
    Send {
        message: String,
        #[source]
        source: reqwest::Error,
    },
    /// OAuth POSTs never follow a redirect.
    #[error(
        "POST {url} answered {} (a redirect); {label} requests are never redirected",
        status_text(*.status)
    )]
    Redirect {
        url: String,
        status: reqwest::StatusCode,
        label: String,
    },
    #[error("POST {url}: {source}")]
    Body {
        url: String,
        #[source]
        source: ReadError,
    },
}

/// An answer to a POST: its status and body (bounded).
pub struct Posted {
    pub status: u16,
    pub body: String,
    pub content_type: String,
    /// RFC 9449 §8: the `DPoP-Nonce` the server handed out, if any.
    pub dpop_nonce: Option<String>,
}

impl AuthHttp {
    pub fn new(
        server: Arc<str>,
        limit: Duration,
        ca_file: Option<&std::path::Path>,
        insecure: bool,
    ) -> Result<AuthHttp, AuthError> {
        let _ = rustls::crypto::ring::default_provider().install_default();
        let mut b = reqwest::Client::builder()
            .user_agent(concat!("mcpdeck/", env!("CARGO_PKG_VERSION")))
            .connect_timeout(limit)
            .redirect(reqwest::redirect::Policy::none());
        if let Some(path) = ca_file
            && let Ok(pem) = std::fs::read(path)
            && let Ok(certs) = reqwest::Certificate::from_pem_bundle(&pem)
        {
            for c in certs {
                b = b.add_root_certificate(c);
            }
        }
        if insecure {
            b = b.danger_accept_invalid_certs(true);
        }
        let client = b.build().map_err(|e| {
            AuthError::new(
                AuthErrorKind::Config,
                format!("cannot set up the HTTP client: {}", error_chain(&e)),
            )
        })?;
        Ok(AuthHttp {
            client,
            server,
            net: OnceLock::new(),
            limit,
        })
    }

    /// The client (the server's TLS settings, redirects off).
    pub fn client(&self) -> &reqwest::Client {
        &self.client
    }

    /// Log exchanges in this network log (the transport's).
    pub fn attach(&self, net: Arc<NetLog>) {
        let _ = self.net.set(net);
    }

    fn begin(
        &self,
        method: &'static str,
        url: &str,
        label: &str,
        headers: &HeaderMap,
    ) -> Option<ExchangeHandle> {
        let net = self.net.get()?;
        let shown = headers
            .iter()
            .map(|(k, v)| {
                crate::mcp::netlog::shown_header(k.as_str(), &String::from_utf8_lossy(v.as_bytes()))
            })
            .collect();
        Some(net.begin(
            &self.server,
            method,
            shown_url(url),
            label.to_string(),
            shown,
        ))
    }

    /// GET a metadata document. `Err` only when discovery must stop (an
    /// unsafe URL, a redirect to another origin, a loop); a missing or
    /// unreadable document is `Fetched::Unusable`.
    pub async fn get_doc(
        &self,
        url: &str,
        what: &str,
        trace: &mut Trace,
    ) -> Result<Fetched, AuthError> {
        let mut current = check_url(url, what).map_err(|e| {
            AuthError::new(AuthErrorKind::Discovery, e.to_string()).with_trace(trace)
        })?;
        let origin = current.origin();
        let mut seen = vec![current.to_string()];
        for _ in 0..=MAX_REDIRECTS {
            let mut headers = HeaderMap::new();
            headers.insert(
                reqwest::header::ACCEPT,
                HeaderValue::from_static("application/json"),
            );
            let ex = self.begin("GET", current.as_str(), what, &headers);
            let sent = self.client.get(current.clone()).headers(headers).send();
            let resp = match tokio::time::timeout(self.limit, sent).await {
                Err(_) => {
                    if let Some(ex) = &ex {
                        ex.fail("no answer in time".into());
                    }
                    trace.push(
                        "GET",
                        current.as_str(),
                        None,
                        format!("no answer within {:?}", self.limit),
                    );
                    return Ok(Fetched::Unusable(
                        None,
                        format!("no answer within {:?}", self.limit),
                    ));
                }
                Ok(Err(e)) => {
                    let m = crate::mcp::transport::http::describe_send_error(
                        "GET",
                        current.as_str(),
                        &e,
                    );
                    if let Some(ex) = &ex {
                        ex.fail(m.clone());
                    }
                    trace.push("GET", current.as_str(), None, m.clone());
                    return Ok(Fetched::Unusable(None, m));
                }
                Ok(Ok(r)) => r,
            };
            let status = resp.status();
            if let Some(ex) = &ex {
                ex.response(status.as_u16(), vec![]);
            }
            if status.is_redirection() {
                if let Some(ex) = &ex {
                    ex.finish();
                }
                let Some(next) = resp
                    .headers()
                    .get(reqwest::header::LOCATION)
                    .and_then(|v| v.to_str().ok())
                    .and_then(|l| current.join(l).ok())
                else {
                    trace.push(
                        "GET",
                        current.as_str(),
                        Some(status.as_u16()),
                        "a redirect without a usable Location",
                    );
                    return Ok(Fetched::Unusable(
                        Some(status.as_u16()),
                        "a redirect without a usable Location".into(),
                    ));
                };
                if next.origin() != origin {
                    let m = format!(
                        "the {what} at {} redirects to another origin ({}); metadata is only read from the server that was asked",
                        shown_url(current.as_str()),
                        shown_url(next.as_str())
                    );
                    trace.push(
                        "GET",
                        current.as_str(),
                        Some(status.as_u16()),
                        "redirect to another origin: refused",
                    );
                    return Err(AuthError::new(AuthErrorKind::Discovery, m).with_trace(trace));
                }
                if seen.contains(&next.to_string()) {
                    trace.push(
                        "GET",
                        current.as_str(),
                        Some(status.as_u16()),
                        "redirect loop",
                    );
                    return Err(AuthError::new(
                        AuthErrorKind::Discovery,
                        format!("the {what} at {} redirects in a loop", shown_url(url)),
                    )
                    .with_trace(trace));
                }
                trace.push(
                    "GET",
                    current.as_str(),
                    Some(status.as_u16()),
                    format!("redirects to {}", shown_url(next.as_str())),
                );
                seen.push(next.to_string());
                current = next;
                continue;
            }
            let ctype = crate::mcp::transport::http::content_type(resp.headers());
            let body = self.read(resp, ex.as_ref()).await;
            if !status.is_success() {
                let m = status_text(status);
                trace.push(
                    "GET",
                    current.as_str(),
                    Some(status.as_u16()),
                    format!("{m}: not here"),
                );
                return Ok(Fetched::Unusable(Some(status.as_u16()), m));
            }
            let body = match body {
                Ok(b) => b,
                Err(e) => {
                    let m = e.to_string();
                    trace.push("GET", current.as_str(), Some(status.as_u16()), m.clone());
                    return Ok(Fetched::Unusable(Some(status.as_u16()), m));
                }
            };
            return Ok(match serde_json::from_str::<Value>(&body) {
                Ok(Value::Object(map)) => {
                    trace.push(
                        "GET",
                        current.as_str(),
                        Some(status.as_u16()),
                        format!("{what}, read"),
                    );
                    Fetched::Doc(map)
                }
                Ok(_) => {
                    let m = "JSON, but not an object".to_string();
                    trace.push("GET", current.as_str(), Some(status.as_u16()), m.clone());
                    Fetched::Unusable(Some(status.as_u16()), m)
                }
                Err(_) => {
                    let m = if ctype.contains("html") || body.trim_start().starts_with('<') {
                        "an HTML page, not a JSON document".to_string()
                    } else {
                        format!(
                            "not JSON ({}): {}",
                            if ctype.is_empty() {
                                "no Content-Type"
                            } else {
                                &ctype
                            },
                            crate::mcp::transport::http::excerpt(&body)
                        )
                    };
                    trace.push("GET", current.as_str(), Some(status.as_u16()), m.clone());
                    Fetched::Unusable(Some(status.as_u16()), m)
                }
            });
        }
        Err(AuthError::new(
            AuthErrorKind::Discovery,
            format!(
                "the {what} at {} redirects more than {MAX_REDIRECTS} times",
                shown_url(url)
            ),
        )
        .with_trace(trace))
    }

    /// POST a form (token, revocation) or JSON (registration); never follows
    /// a redirect. `Err` says why there is no answer (no secret in it).
    pub async fn post(
        &self,
        url: &str,
        label: &str,
        headers: HeaderMap,
        body: PostBody,
        trace: &mut Trace,
    ) -> Result<Posted, PostError> {
        let u = check_url(url, label)?;
        let mut headers = headers;
        headers.insert(
            reqwest::header::ACCEPT,
            HeaderValue::from_static("application/json"),
        );
        let (ctype, bytes) = match body {
            PostBody::Form(pairs) => {
                let text = url::form_urlencoded::Serializer::new(String::new())
                    .extend_pairs(pairs.iter().map(|(k, v)| (k.as_str(), v.as_str())))
                    .finish();
                ("application/x-www-form-urlencoded", text)
            }
            PostBody::Json(v) => ("application/json", v.to_string()),
        };
        headers.insert(
            reqwest::header::CONTENT_TYPE,
            HeaderValue::from_static(ctype),
        );
        let ex = self.begin("POST", u.as_str(), label, &headers);
        let sent = self
            .client
            .post(u.clone())
            .headers(headers)
            .body(bytes)
            .send();
        let resp = match tokio::time::timeout(self.limit, sent).await {
            Err(_) => {
                let e = PostError::Late {
                    url: shown_url(url),
                    limit: self.limit,
                };
                if let Some(ex) = &ex {
                    ex.fail(e.to_string());
                }
                trace.push("POST", url, None, "no answer in time");
                return Err(e);
            }
            Ok(Err(e)) => {
                let message = crate::mcp::transport::http::describe_send_error("POST", url, &e);
                if let Some(ex) = &ex {
                    ex.fail(message.clone());
                }
                trace.push("POST", url, None, message.clone());
                return Err(PostError::Send {
                    message,
                    source: e.without_url(),
                });
            }
            Ok(Ok(r)) => r,
        };
        let status = resp.status();
        if let Some(ex) = &ex {
            ex.response(status.as_u16(), vec![]);
        }
        let content_type = crate::mcp::transport::http::content_type(resp.headers());
        let dpop_nonce = resp
            .headers()
            .get("dpop-nonce")
            .and_then(|v| v.to_str().ok())
            .map(str::to_string);
        if status.is_redirection() {
            if let Some(ex) = &ex {
                ex.finish();
            }
            trace.push(
                "POST",
                url,
                Some(status.as_u16()),
                "a redirect: not followed",
            );
            return Err(PostError::Redirect {
                url: shown_url(url),
                status,
                label: label.to_string(),
            });
        }
        let body = self.read(resp, ex.as_ref()).await.map_err(|source| {
            trace.push("POST", url, Some(status.as_u16()), source.to_string());
            PostError::Body {
                url: shown_url(url),
                source,
            }
        })?;
        trace.push(
            "POST",
            url,
            Some(status.as_u16()),
            format!("{label}: {}", status_text(status)),
        );
        Ok(Posted {
            status: status.as_u16(),
            body,
            content_type,
            dpop_nonce,
        })
    }

    async fn read(
        &self,
        resp: reqwest::Response,
        ex: Option<&ExchangeHandle>,
    ) -> Result<String, ReadError> {
        let mut stream = resp.bytes_stream();
        let mut buf: Vec<u8> = Vec::new();
        let read = async {
            while let Some(chunk) = stream.next().await {
                let chunk = chunk.map_err(|e| ReadError::BrokeOff(e.without_url()))?;
                if let Some(ex) = ex {
                    ex.add_bytes(chunk.len(), 0);
                }
                if buf.len() + chunk.len() > MAX_DOC {
                    return Err(ReadError::TooLarge);
                }
                buf.extend_from_slice(&chunk);
            }
            Ok(())
        };
        let result = match tokio::time::timeout(self.limit, read).await {
            Err(_) => Err(ReadError::Late(self.limit)),
            Ok(r) => r,
        };
        if let Some(ex) = ex {
            match &result {
                Ok(()) => ex.finish(),
                Err(e) => ex.fail(e.to_string()),
            }
        }
        result?;
        Ok(String::from_utf8_lossy(&buf).into_owned())
    }
}

/// What a POST carries.
pub enum PostBody {
    Form(Vec<(String, String)>),
    Json(Value),
}

/// Whether a host is this machine.
pub fn is_loopback_host(host: &url::Host<&str>) -> bool {
    match host {
        url::Host::Domain(d) => {
            d.eq_ignore_ascii_case("localhost") || d.to_ascii_lowercase().ends_with(".localhost")
        }
        url::Host::Ipv4(a) => IpAddr::V4(*a).is_loopback(),
        url::Host::Ipv6(a) => IpAddr::V6(*a).is_loopback(),
    }
}

/// A URL that OAuth may talk to: https, or http on loopback only.
pub fn check_url(url: &str, what: &str) -> Result<reqwest::Url, UrlRefused> {
    let u = reqwest::Url::parse(url).map_err(|source| UrlRefused::NotAUrl {
        what: what.to_string(),
        url: shown_url(url),
        source,
    })?;
    let loopback = u.host().is_some_and(|h| is_loopback_host(&h));
    match u.scheme() {
        "https" => Ok(u),
        "http" if loopback => Ok(u),
        "http" => Err(UrlRefused::PlainHttp {
            what: what.to_string(),
            url: shown_url(url),
        }),
        s => Err(UrlRefused::Scheme {
            what: what.to_string(),
            url: shown_url(url),
            scheme: s.to_string(),
        }),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn only_https_or_loopback_http() {
        assert!(check_url("https://a.example/x", "m").is_ok());
        assert!(check_url("http://127.0.0.1:9/x", "m").is_ok());
        assert!(check_url("http://localhost:9/x", "m").is_ok());
        assert!(check_url("http://[::1]:9/x", "m").is_ok());
        let e = check_url("http://a.example/x", "metadata").unwrap_err();
        assert!(matches!(e, UrlRefused::PlainHttp { .. }), "{e:?}");
        assert!(e.to_string().contains("https only"), "{e}");
        assert!(matches!(
            check_url("file:///etc/passwd", "m"),
            Err(UrlRefused::Scheme { scheme, .. }) if scheme == "file"
        ));
        let e = check_url("not a url", "m").unwrap_err();
        assert!(matches!(e, UrlRefused::NotAUrl { .. }), "{e:?}");
        assert_eq!(
            e.to_string(),
            "the m URL \"not a url\" is not a URL: relative URL without a base"
        );
    }
}
