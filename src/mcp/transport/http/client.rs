//! The reqwest client for an endpoint (TLS, redirects, headers) and the
//! text of HTTP failures: error chains, excerpts of bodies, statuses.

use std::time::Duration;

use futures_util::StreamExt;
use reqwest::header::{HeaderMap, HeaderName, HeaderValue};

use crate::mcp::netlog::{ExchangeHandle, shown_url};

use crate::mcp::transport::error::{BodyError, OpenError};

use super::shared::*;
use super::spec::*;

/// Every `WWW-Authenticate` header value, as sent (values that are not
/// visible ASCII are left out).
pub fn www_authenticate(h: &HeaderMap) -> Vec<String> {
    h.get_all(reqwest::header::WWW_AUTHENTICATE)
        .iter()
        .filter_map(|v| v.to_str().ok())
        .map(str::to_string)
        .collect()
}

/// Build the HTTP client for a spec. Errors name the config key to fix.
pub fn client(spec: &HttpSpec) -> Result<reqwest::Client, OpenError> {
    // One crypto provider for rustls, process-wide; installing twice is harmless.
    let _ = rustls::crypto::ring::default_provider().install_default();
    let mut b = reqwest::Client::builder()
        .user_agent(concat!("mcpdeck/", env!("CARGO_PKG_VERSION")))
        .connect_timeout(spec.connect_timeout)
        .tcp_nodelay(true)
        // Below the common 5 s keep-alive of servers (uvicorn): a pooled
        // connection the server already closed would fail a POST, which is
        // not retried.
        .pool_idle_timeout(Duration::from_secs(4))
        .redirect(redirect_policy(&spec.headers));
    if let Some(path) = &spec.ca_file {
        let pem = std::fs::read(path).map_err(|e| {
            OpenError::Config(format!("cannot read ca_file {}: {e}", path.display()))
        })?;
        let certs = reqwest::Certificate::from_pem_bundle(&pem).map_err(|e| {
            OpenError::Config(format!(
                "ca_file {} holds no usable PEM certificate: {e}",
                path.display()
            ))
        })?;
        if certs.is_empty() {
            return Err(OpenError::Config(format!(
                "ca_file {} holds no PEM certificate (expected -----BEGIN CERTIFICATE-----)",
                path.display()
            )));
        }
        for c in certs {
            b = b.add_root_certificate(c);
        }
    }
    if spec.insecure {
        b = b.danger_accept_invalid_certs(true);
    }
    b.build().map_err(|e| {
        OpenError::Config(format!(
            "cannot set up the HTTP client: {}",
            error_chain(&e)
        ))
    })
}

/// Redirects are followed (307/308 keep the method and body), but when
/// secret headers are configured, not to another origin: reqwest strips only
/// Authorization and cookies there, not `X-API-Key` and the like.
pub(super) fn redirect_policy(headers: &[(String, String)]) -> reqwest::redirect::Policy {
    let secrets = headers
        .iter()
        .any(|(k, _)| crate::mcp::netlog::is_secret_header(k));
    reqwest::redirect::Policy::custom(move |attempt| {
        if attempt.previous().len() >= 10 {
            return attempt.error("more than 10 redirects");
        }
        let same_origin = attempt
            .previous()
            .first()
            .is_none_or(|first| first.origin() == attempt.url().origin());
        if secrets && !same_origin {
            attempt.stop()
        } else {
            attempt.follow()
        }
    })
}

/// The user's headers, checked.
pub fn header_map(headers: &[(String, String)]) -> Result<HeaderMap, OpenError> {
    let mut map = HeaderMap::new();
    for (k, v) in headers {
        let name = HeaderName::from_bytes(k.as_bytes()).map_err(|_| {
            OpenError::Config(format!("header name {k:?} is not a valid HTTP header name"))
        })?;
        let mut value = HeaderValue::from_str(v)
            .map_err(|_| OpenError::Config(format!("the value of header {k} is not a valid HTTP header value (control characters or non-ASCII)")))?;
        if crate::mcp::netlog::is_secret_header(k) || crate::mcp::bearer::secret::holds_known(v) {
            value.set_sensitive(true);
        }
        map.append(name, value);
    }
    Ok(map)
}

/// An error and its causes, joined: reqwest's own message says little
/// ("error sending request"); the cause says what happened.
pub fn error_chain(e: &dyn std::error::Error) -> String {
    let mut parts: Vec<String> = vec![e.to_string()];
    let mut src = e.source();
    while let Some(s) = src {
        let m = s.to_string();
        if !parts.iter().any(|p| p.contains(&m)) {
            parts.push(m);
        }
        src = s.source();
    }
    parts.join(": ")
}

/// A failed HTTP exchange in words a person can act on.
pub fn describe_send_error(verb: &str, url: &str, e: &reqwest::Error) -> String {
    let chain = error_chain(e);
    let lower = chain.to_lowercase();
    let (what, hint) = if lower.contains("dns error")
        || lower.contains("failed to lookup address")
        || lower.contains("name or service not known")
        || lower.contains("no address associated")
    {
        (
            "could not resolve the host of",
            "check the host name in `url`",
        )
    } else if lower.contains("certificate")
        || lower.contains("tls")
        || lower.contains("handshake")
        || lower.contains("invalidcertificate")
    {
        (
            "TLS failed for",
            "for a private CA set `ca_file`; `insecure = true` skips verification, which is not recommended",
        )
    } else if lower.contains("connection refused") {
        (
            "connection refused by",
            "is the server running and listening on that port?",
        )
    } else if e.is_timeout() {
        ("timed out reaching", "is the host reachable?")
    } else if e.is_redirect() {
        ("too many redirects from", "check `url`")
    } else if e.is_connect() {
        ("could not connect to", "is the server running?")
    } else {
        ("the exchange failed with", "")
    };
    let cause = root_cause(e);
    let hint = if hint.is_empty() {
        String::new()
    } else {
        format!(" ({hint})")
    };
    format!(
        "{verb} {}: {what} the server: {cause}{hint}",
        shown_url(url)
    )
}

pub(super) fn root_cause(e: &dyn std::error::Error) -> String {
    let mut last = e.to_string();
    let mut src = e.source();
    while let Some(s) = src {
        last = s.to_string();
        src = s.source();
    }
    last
}

/// A short, one-line, terminal-safe excerpt of a body.
pub fn excerpt(body: &str) -> String {
    let squeezed: String = body.split_whitespace().collect::<Vec<_>>().join(" ");
    let cut: String = squeezed.chars().take(EXCERPT).collect();
    let more = if squeezed.chars().count() > EXCERPT {
        "…"
    } else {
        ""
    };
    format!("{}{more}", crate::sanitize::one_line(&cut))
}

pub fn content_type(h: &HeaderMap) -> String {
    h.get(reqwest::header::CONTENT_TYPE)
        .and_then(|v| v.to_str().ok())
        .map(|v| {
            v.split(';')
                .next()
                .unwrap_or("")
                .trim()
                .to_ascii_lowercase()
        })
        .unwrap_or_default()
}

pub fn status_text(s: reqwest::StatusCode) -> String {
    match s.canonical_reason() {
        Some(r) => format!("HTTP {} {r}", s.as_u16()),
        None => format!("HTTP {}", s.as_u16()),
    }
}

/// Read a body up to `max` bytes (an error past it), as text (invalid
/// UTF-8 replaced).
pub async fn read_body(
    resp: reqwest::Response,
    max: usize,
    ex: &ExchangeHandle,
) -> Result<String, BodyError> {
    let mut body = resp.bytes_stream();
    let mut buf: Vec<u8> = Vec::new();
    while let Some(chunk) = body.next().await {
        let chunk =
            chunk.map_err(|e| BodyError(format!("the body broke off: {}", root_cause(&e))))?;
        ex.add_bytes(chunk.len(), 0);
        if buf.len() + chunk.len() > max {
            if max == MAX_ERROR_BODY {
                buf.extend_from_slice(&chunk[..max - buf.len()]);
                break;
            }
            return Err(BodyError(format!(
                "the body is larger than {} MiB",
                max / (1024 * 1024)
            )));
        }
        buf.extend_from_slice(&chunk);
    }
    Ok(match String::from_utf8(buf) {
        Ok(s) => s,
        Err(e) => String::from_utf8_lossy(e.as_bytes()).into_owned(),
    })
}
