//! The legacy HTTP+SSE transport (protocol 2024-11-05): GET the SSE URL,
//! wait for the `endpoint` event, POST every message there; answers come
//! back on the SSE stream.

use std::sync::Arc;
use std::sync::atomic::{AtomicBool, Ordering};
use std::time::Duration;

use futures_util::StreamExt;
use reqwest::header::{HeaderMap, HeaderValue};
use tokio::sync::mpsc;
use tokio::task::AbortHandle;

use super::error::{HttpFailure, OpenError, TransportClosed};
use super::http::{
    ChannelReader, HttpSpec, client, content_type, describe_send_error, excerpt, header_map,
    read_body, status_text, www_authenticate,
};
use super::inbound::Inbound;
use super::sse_parse::{SseItem, SseParser};
use crate::mcp::finding::{Finding, Severity};
use crate::mcp::netlog::{ExchangeHandle, NetLog, shown_header, shown_url};

/// The sending half of a legacy HTTP+SSE connection.
pub struct LegacySseTransport {
    name: Arc<str>,
    client: reqwest::Client,
    endpoint: reqwest::Url,
    shown_endpoint: String,
    headers: HeaderMap,
    tx: mpsc::Sender<Inbound>,
    net: Arc<NetLog>,
    reader_task: AbortHandle,
    closed: Arc<AtomicBool>,
}

impl std::fmt::Debug for LegacySseTransport {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("LegacySseTransport")
            .field("endpoint", &self.shown_endpoint)
            .finish()
    }
}

fn shown(h: &HeaderMap) -> Vec<(String, String)> {
    h.iter()
        .map(|(k, v)| shown_header(k.as_str(), &String::from_utf8_lossy(v.as_bytes())))
        .collect()
}

impl Drop for LegacySseTransport {
    fn drop(&mut self) {
        self.closed.store(true, Ordering::Release);
        self.reader_task.abort();
        self.net.finish_open(&self.name, "closed");
    }
}

impl LegacySseTransport {
    /// Open the SSE stream and wait (up to `wait`) for the `endpoint` event.
    pub async fn open(
        spec: &HttpSpec,
        name: Arc<str>,
        net: Arc<NetLog>,
        wait: Duration,
    ) -> Result<(LegacySseTransport, ChannelReader), OpenError> {
        let url = reqwest::Url::parse(&spec.url).map_err(|e| {
            OpenError::Config(format!(
                "`url` {:?} is not a valid URL: {e}",
                shown_url(&spec.url)
            ))
        })?;
        let shown_sse = shown_url(url.as_str());
        let client = client(spec)?;
        let headers = header_map(&spec.headers)?;
        let mut get_headers = headers.clone();
        get_headers.insert(
            reqwest::header::ACCEPT,
            HeaderValue::from_static("text/event-stream"),
        );
        let ex = net.begin(
            &name,
            "GET",
            shown_sse.clone(),
            "legacy SSE stream".into(),
            shown(&get_headers),
        );
        let resp = tokio::time::timeout(wait, client.get(url.clone()).headers(get_headers).send())
            .await
            .map_err(|_| {
                let m = format!("GET {shown_sse}: no answer within {wait:?}");
                ex.fail(m.clone());
                failed(None, m)
            })?
            .map_err(|e| {
                let m = describe_send_error("GET", url.as_str(), &e);
                ex.fail(m.clone());
                failed(None, m)
            })?;
        let status = resp.status();
        ex.response(status.as_u16(), shown(resp.headers()));
        if !status.is_success() {
            let challenges = www_authenticate(resp.headers());
            let text = read_body(resp, 64 * 1024, &ex).await.unwrap_or_default();
            ex.finish();
            let mut m = format!(
                "GET {shown_sse} (legacy HTTP+SSE) answered {}",
                status_text(status)
            );
            if !text.trim().is_empty() {
                m.push_str(&format!(": {}", excerpt(&text)));
            }
            let mut f = HttpFailure::new(Some(status.as_u16()), m);
            f.www_authenticate = challenges;
            f.url = Some(url.to_string());
            f.body = (!text.is_empty()).then_some(text);
            return Err(OpenError::Http(Box::new(f)));
        }
        let ctype = content_type(resp.headers());
        if ctype != "text/event-stream" {
            ex.finish();
            return Err(failed(
                None,
                format!(
                    "GET {shown_sse} (legacy HTTP+SSE) answered with Content-Type {ctype:?}, not text/event-stream"
                ),
            ));
        }
        let mut body = resp.bytes_stream();
        let mut parser = SseParser::new();
        let mut items = Vec::new();
        let mut early: Vec<SseItem> = Vec::new();
        let deadline = tokio::time::Instant::now() + wait;
        let endpoint = 'found: loop {
            let chunk = match tokio::time::timeout_at(deadline, body.next()).await {
                Err(_) => {
                    ex.finish();
                    return Err(failed(
                        None,
                        format!(
                            "GET {shown_sse}: the SSE stream sent no `endpoint` event within {wait:?}; is this a legacy HTTP+SSE endpoint?"
                        ),
                    ));
                }
                Ok(None) => {
                    ex.finish();
                    return Err(failed(
                        None,
                        format!(
                            "GET {shown_sse}: the SSE stream ended before the `endpoint` event"
                        ),
                    ));
                }
                Ok(Some(Err(e))) => {
                    let m = format!("GET {shown_sse}: the SSE stream broke: {e}");
                    ex.fail(m.clone());
                    return Err(failed(None, m));
                }
                Ok(Some(Ok(c))) => c,
            };
            ex.add_bytes(chunk.len(), 0);
            parser.feed(&chunk, &mut items);
            let mut rest = items.drain(..);
            for item in rest.by_ref() {
                match item {
                    SseItem::Event { event, data, .. } if event == "endpoint" => {
                        let e = url.join(data.trim()).map_err(|e| {
                            failed(None, format!(
                                "GET {shown_sse}: the `endpoint` event names {:?}, which is not a URL: {e}",
                                crate::sanitize::one_line(&data)
                            ))
                        })?;
                        early.extend(rest);
                        break 'found e;
                    }
                    other => early.push(other),
                }
            }
        };
        let (tx, rx) = mpsc::channel(1024);
        if endpoint.origin() != url.origin() {
            // The configured headers (credentials) would go to another
            // host: refuse, as the official SDKs do.
            return Err(failed(
                None,
                format!(
                    "GET {shown_sse}: the `endpoint` event points to another origin ({}); mcpdeck posts only to the origin of `url`",
                    shown_url(endpoint.as_str())
                ),
            ));
        }
        let closed = Arc::new(AtomicBool::new(false));
        let reader = {
            let tx = tx.clone();
            let closed = closed.clone();
            let shown_sse = shown_sse.clone();
            tokio::spawn(async move {
                for item in early {
                    deliver(&tx, &shown_sse, item).await;
                }
                let mut broke = None;
                loop {
                    match body.next().await {
                        Some(Ok(chunk)) => {
                            let before = parser.events();
                            parser.feed(&chunk, &mut items);
                            ex.add_bytes(chunk.len(), parser.events() - before);
                            for item in items.drain(..) {
                                deliver(&tx, &shown_sse, item).await;
                            }
                        }
                        Some(Err(e)) => {
                            broke = Some(e.to_string());
                            break;
                        }
                        None => break,
                    }
                }
                ex.finish();
                if !closed.load(Ordering::Acquire) {
                    let description = match broke {
                        Some(e) => format!("the SSE stream of {shown_sse} broke: {e}"),
                        None => format!("the server closed the SSE stream of {shown_sse}"),
                    };
                    let _ = tx
                        .send(Inbound::Closed {
                            description,
                            requested: false,
                            stderr_tail: Vec::new(),
                        })
                        .await;
                }
            })
        };
        Ok((
            LegacySseTransport {
                name,
                client,
                shown_endpoint: shown_url(endpoint.as_str()),
                endpoint,
                headers,
                tx,
                net,
                reader_task: reader.abort_handle(),
                closed,
            },
            ChannelReader::new(rx),
        ))
    }

    /// POST one message to the endpoint; the answer arrives on the stream.
    pub async fn send(&self, line: &str) -> Result<(), TransportClosed> {
        if self.closed.load(Ordering::Acquire) {
            return Err(TransportClosed("the SSE connection was closed".into()));
        }
        let body = line.trim_end_matches('\n').to_string();
        let head: serde_json::Value = serde_json::from_str(&body).unwrap_or_default();
        let method = head
            .get("method")
            .and_then(|m| m.as_str())
            .map(str::to_string);
        let id = head
            .get("id")
            .and_then(|i| i.as_i64())
            .filter(|_| method.is_some());
        let mut headers = self.headers.clone();
        headers.insert(
            reqwest::header::CONTENT_TYPE,
            HeaderValue::from_static("application/json"),
        );
        let ex = self.net.begin(
            &self.name,
            "POST",
            self.shown_endpoint.clone(),
            method.clone().unwrap_or_else(|| "response".into()),
            shown(&headers),
        );
        let r = self
            .client
            .post(self.endpoint.clone())
            .headers(headers)
            .body(body)
            .send()
            .await;
        let failure = match r {
            Err(e) => {
                let m = describe_send_error("POST", self.endpoint.as_str(), &e);
                ex.fail(m.clone());
                Some(HttpFailure::new(None, m))
            }
            Ok(resp) => self.check(resp, &ex).await,
        };
        if let Some(f) = failure {
            let item = match id {
                Some(id) => Inbound::Failed { id, failure: f },
                None => Inbound::Finding(Finding::new(Severity::Warning, f.message)),
            };
            let _ = self.tx.send(item).await;
        }
        Ok(())
    }

    async fn check(&self, resp: reqwest::Response, ex: &ExchangeHandle) -> Option<HttpFailure> {
        let status = resp.status();
        ex.response(status.as_u16(), shown(resp.headers()));
        let text = read_body(resp, 64 * 1024, ex).await.unwrap_or_default();
        ex.finish();
        if status.is_success() {
            return None;
        }
        let mut m = format!(
            "POST {} answered {}",
            self.shown_endpoint,
            status_text(status)
        );
        if !text.trim().is_empty() {
            m.push_str(&format!(": {}", excerpt(&text)));
        }
        let mut f = HttpFailure::new(Some(status.as_u16()), m);
        f.body = (!text.is_empty()).then_some(text);
        Some(f)
    }

    pub async fn close(&self) {
        if self.closed.swap(true, Ordering::AcqRel) {
            return;
        }
        self.reader_task.abort();
        self.net.finish_open(&self.name, "closed");
        let _ = self
            .tx
            .send(Inbound::Closed {
                description: "the SSE connection was closed".into(),
                requested: true,
                stderr_tail: Vec::new(),
            })
            .await;
    }
}

async fn deliver(tx: &mpsc::Sender<Inbound>, shown_sse: &str, item: SseItem) {
    let out = match item {
        SseItem::Oddity(m) => {
            Inbound::Finding(Finding::new(Severity::Warning, format!("{shown_sse}: {m}")))
        }
        SseItem::Event { event, data, .. } => {
            if data.trim().is_empty() {
                return;
            }
            match event.as_str() {
                "message" => Inbound::Line(data),
                "endpoint" => Inbound::Finding(Finding::frame(
                    Severity::Warning,
                    format!(
                        "{shown_sse}: a second `endpoint` event; ignored (messages still go to the first)"
                    ),
                    &data,
                )),
                other => Inbound::LineWithFinding(
                    data.clone(),
                    Finding::frame(
                        Severity::Warning,
                        format!(
                            "{shown_sse}: an event of type {:?} (MCP sends `message` events); its data was read as a message",
                            crate::sanitize::one_line(other)
                        ),
                        &data,
                    ),
                ),
            }
        }
    };
    let _ = tx.send(out).await;
}

/// Opening the stream failed with this message (no HTTP status to report).
fn failed(status: Option<u16>, message: String) -> OpenError {
    OpenError::Http(Box::new(HttpFailure::new(status, message)))
}
