//! The exporter's HTTP client: mcpdeck's own reqwest (so the binary holds
//! one HTTP and one TLS stack), driven by a small runtime on a thread of
//! its own. The SDK's batch thread awaits each request from there: the
//! sessions' runtime (and the UI) never waits for the collector, and the
//! last spans can still go out after that runtime has stopped.

use std::future::Future;
use std::pin::Pin;
use std::time::Duration;

use opentelemetry_http::{Bytes, HttpClient, HttpError, Request, Response};

/// The exporter's timeout when no variable sets one (the OTel default).
const DEFAULT_TIMEOUT: Duration = Duration::from_secs(10);

#[derive(Debug)]
pub(super) struct ExportClient {
    client: reqwest::Client,
    runtime: tokio::runtime::Handle,
    shown: String,
}

/// `OTEL_EXPORTER_OTLP_TRACES_TIMEOUT`, else `OTEL_EXPORTER_OTLP_TIMEOUT`
/// (milliseconds), else 10 s.
fn timeout() -> Duration {
    [
        "OTEL_EXPORTER_OTLP_TRACES_TIMEOUT",
        "OTEL_EXPORTER_OTLP_TIMEOUT",
    ]
    .iter()
    .find_map(|k| std::env::var(k).ok()?.trim().parse::<u64>().ok())
    .map_or(DEFAULT_TIMEOUT, Duration::from_millis)
}

impl ExportClient {
    pub(super) fn start(endpoint: &str) -> Result<Self, String> {
        let shown = crate::mcp::netlog::shown_url(endpoint);
        let _ = rustls::crypto::ring::default_provider().install_default();
        let client = reqwest::Client::builder()
            .user_agent(concat!("mcpdeck/", env!("CARGO_PKG_VERSION")))
            .timeout(timeout())
            .build()
            .map_err(|e| format!("telemetry: cannot build the HTTP client for {shown}: {e}"))?;
        let (tx, rx) = std::sync::mpsc::channel();
        std::thread::Builder::new()
            .name("mcpdeck-otel".into())
            .spawn(move || {
                match tokio::runtime::Builder::new_current_thread()
                    .enable_all()
                    .build()
                {
                    Ok(rt) => {
                        let _ = tx.send(Ok(rt.handle().clone()));
                        rt.block_on(std::future::pending::<()>());
                    }
                    Err(e) => {
                        let _ = tx.send(Err(e.to_string()));
                    }
                }
            })
            .map_err(|e| format!("telemetry: cannot start the export thread: {e}"))?;
        let runtime = rx
            .recv()
            .map_err(|_| "telemetry: the export thread stopped at once".to_string())?
            .map_err(|e| format!("telemetry: cannot start the export runtime: {e}"))?;
        Ok(ExportClient {
            client,
            runtime,
            shown,
        })
    }
}

impl HttpClient for ExportClient {
    fn send_bytes<'life0, 'async_trait>(
        &'life0 self,
        request: Request<Bytes>,
    ) -> Pin<Box<dyn Future<Output = Result<Response<Bytes>, HttpError>> + Send + 'async_trait>>
    where
        'life0: 'async_trait,
        Self: 'async_trait,
    {
        let client = self.client.clone();
        let shown = self.shown.clone();
        let task = self.runtime.spawn(async move {
            let request = reqwest::Request::try_from(request)?;
            let response = match client.execute(request).await {
                Ok(r) => r,
                Err(e) => {
                    let e = e.without_url();
                    super::warn_once(format!(
                        "telemetry: cannot send spans to {shown}: {}; spans are dropped (this is said once)",
                        crate::mcp::transport::http::error_chain(&e)
                    ));
                    return Err(Box::new(e) as HttpError);
                }
            };
            let status = response.status();
            if !status.is_success() {
                super::warn_once(format!(
                    "telemetry: the collector at {shown} answered HTTP {status}; spans are dropped (this is said once)"
                ));
            }
            let mut out = Response::builder().status(status.as_u16());
            if let Some(h) = out.headers_mut() {
                *h = response.headers().clone();
            }
            let body = response.bytes().await.map_err(|e| Box::new(e.without_url()) as HttpError)?;
            Ok(out.body(body)?)
        });
        Box::pin(async move {
            match task.await {
                Ok(r) => r,
                Err(e) => Err(Box::new(e) as HttpError),
            }
        })
    }
}
