//! Era detection and the handshake: the `server/discover` probe raced
//! against `initialize`, the fallbacks for servers that stay silent or exit,
//! version choice, and re-initializing after the server expired the session.

use std::time::Instant;

use serde_json::{Value, json};

use crate::mcp::finding::{Finding, Severity};
use crate::mcp::jsonrpc::{self, RpcError, codes};
use crate::mcp::transport::{HttpFailure, Transport};
use crate::mcp::types::{Era, INITIALIZE_VERSIONS, STATELESS_VERSION, ServerInfo, client_info};
use crate::text::fmt_duration;

use super::handle::*;
use super::memory::Remembered;
use super::model::*;
use super::policy::*;

impl Session {
    /// An initialize that failed: over streamable HTTP with the transport
    /// not forced, an endpoint that refuses it may speak legacy HTTP+SSE.
    pub(super) fn init_failed(&self, e: RequestError) -> Negotiation {
        if self.inner.legacy_fallback
            && let RequestError::Http(f) = &e
            && f.refused()
        {
            return Legacy(format!(
                "streamable HTTP refused ({}); trying the legacy HTTP+SSE transport",
                f.message
            ));
        }
        Fail(self.connect_error(e))
    }

    pub(super) fn set_negotiated(&self, n: Negotiated) {
        *self.inner.wire.write().unwrap_or_else(|p| p.into_inner()) =
            Some((n.era, n.version.clone()));
        *self
            .inner
            .negotiated
            .write()
            .unwrap_or_else(|p| p.into_inner()) = Some(n);
    }

    pub(super) fn timeout_error(&self, spec: &SessionSpec, what: &str) -> ConnectError {
        let kind = match &spec.transport {
            TransportSpec::Stdio(_) => "an MCP server on stdio",
            TransportSpec::Http(_) => "an MCP endpoint",
        };
        ConnectError::Timeout {
            message: format!(
                "{} did not complete {what} within {} (connect_timeout); is it {kind}?",
                spec.transport.display(),
                fmt_duration(spec.connect_timeout)
            ),
            stderr_tail: self.stderr_tail(20),
        }
    }

    pub(super) fn connect_error(&self, e: RequestError) -> ConnectError {
        let tail = if e.stderr_tail().is_empty() {
            self.stderr_tail(20)
        } else {
            e.stderr_tail().to_vec()
        };
        ConnectError::Request {
            error: e,
            stderr_tail: tail,
            context: None,
        }
    }

    pub(super) async fn negotiate(
        &self,
        spec: &SessionSpec,
        recalled: Option<&Remembered>,
        started: Instant,
    ) -> Result<Negotiated, Negotiation> {
        if matches!(self.inner.transport, Transport::LegacySse(_)) {
            // The legacy transport predates the stateless era.
            return match &spec.pin {
                Pin::Stateless => Err(Fail(ConnectError::Config(
                    "the stateless era is pinned, but transport = \"sse\" is the legacy HTTP+SSE transport, which has no stateless era; use transport = \"http\"".into(),
                ))),
                Pin::Version(v) if INITIALIZE_VERSIONS.contains(&v.as_str()) => self
                    .initialize(
                        Some(v.clone()),
                        format!("version {v} pinned; legacy HTTP+SSE transport"),
                        started,
                    )
                    .await
                    .map_err(|e| Fail(self.connect_error(e))),
                _ => self
                    .initialize(
                        None,
                        "legacy HTTP+SSE transport (transport = \"sse\")".into(),
                        started,
                    )
                    .await
                    .map_err(|e| Fail(self.connect_error(e))),
            };
        }
        match &spec.pin {
            Pin::Initialize => self
                .initialize(None, "initialize era pinned in the config".into(), started)
                .await
                .map_err(|e| self.init_failed(e)),
            Pin::Version(v) if INITIALIZE_VERSIONS.contains(&v.as_str()) => self
                .initialize(
                    Some(v.clone()),
                    format!("version {v} pinned in the config"),
                    started,
                )
                .await
                .map_err(|e| self.init_failed(e)),
            Pin::Version(v) if v != STATELESS_VERSION => Err(Fail(ConnectError::Config(format!(
                "protocol version {v} is not one mcpdeck speaks ({STATELESS_VERSION}, {})",
                INITIALIZE_VERSIONS.join(", ")
            )))),
            Pin::Stateless | Pin::Version(_) => {
                let probe = self
                    .start_request_enveloped("server/discover", None)
                    .await
                    .map_err(|e| Fail(self.connect_error(e)))?;
                let v = probe.wait(self, None).await.map_err(|e| {
                    let mut err = self.connect_error(e);
                    if let ConnectError::Request { context, .. } = &mut err {
                        *context = Some(format!(
                            "the stateless era ({STATELESS_VERSION}) is pinned in the config, but "
                        ));
                    }
                    Fail(err)
                })?;
                self.discovered(&v, "stateless era pinned in the config".into(), started)
                    .map_err(Fail)
            }
            Pin::InitializeFirst => {
                let why = "initialize first (the agent behind mcpdeck serve speaks that era)";
                match self.initialize(None, why.into(), started).await {
                    Ok(n) => Ok(n),
                    Err(RequestError::Rpc { error, .. }) => {
                        // It refuses initialize: the stateless era, if it
                        // speaks it.
                        let mut n = self.detect(spec, started).await?;
                        n.detection = format!(
                            "{why}, but the server answered initialize with error {error}; probed: {}",
                            n.detection
                        );
                        Ok(n)
                    }
                    Err(e) => Err(self.init_failed(e)),
                }
            }
            Pin::Auto => match recalled {
                Some(r) => self.recalled(spec, r, started).await,
                None => self.detect(spec, started).await,
            },
        }
    }

    /// A server remembered as initialize-era ([`super::EraMemory`]):
    /// `initialize` at once. An error or an exit means it no longer takes
    /// it: probe afresh (a new process). Silence past the probe timeout
    /// (a slow start, or a server that now ignores `initialize`) sends
    /// `server/discover` too, and whichever succeeds decides.
    pub(super) async fn recalled(
        &self,
        spec: &SessionSpec,
        r: &Remembered,
        started: Instant,
    ) -> Result<Negotiated, Negotiation> {
        let offer = INITIALIZE_VERSIONS[0].to_string();
        let remembered = format!(
            "initialize era remembered from {} ({})",
            crate::text::fmt_utc(r.at),
            r.found
        );
        let mut init = match self.start_initialize(&offer).await {
            Ok(init) => init,
            Err(e @ RequestError::Closed { .. }) => {
                return Err(Redetect(format!(
                    "the server exited before the remembered initialize ({e})"
                )));
            }
            Err(e) => return Err(Fail(self.connect_error(e))),
        };
        match tokio::time::timeout(spec.probe_timeout, &mut init.rx).await {
            Ok(answer) => match answer.unwrap_or_else(|_| Err(self.closed_error())) {
                Ok(v) => self
                    .finish_initialize(
                        &v,
                        &offer,
                        false,
                        format!("{remembered}; server/discover skipped"),
                        started,
                    )
                    .await
                    .map_err(|e| Fail(self.connect_error(e))),
                Err(RequestError::Rpc { error, .. }) => Err(Redetect(format!(
                    "the server answered the remembered initialize with error {error}"
                ))),
                Err(e @ RequestError::Closed { .. }) => Err(Redetect(format!(
                    "the server exited on the remembered initialize ({e})"
                ))),
                Err(e) => Err(Fail(self.connect_error(e))),
            },
            Err(_) => {
                let probe = self
                    .start_request_enveloped("server/discover", None)
                    .await
                    .map_err(|e| Fail(self.connect_error(e)))?;
                let silent = format!(
                    "{remembered}, but no answer to initialize within {}; sent server/discover too",
                    fmt_duration(spec.probe_timeout)
                );
                self.race_both(probe, init, offer, silent, started).await
            }
        }
    }

    /// The dual-era probe. `server/discover` first; its answer decides. On
    /// silence past the probe timeout, `initialize` is sent on the same
    /// connection and whichever succeeds first wins, so a slow server costs
    /// no more than the probe timeout and is never misjudged.
    pub(super) async fn detect(
        &self,
        spec: &SessionSpec,
        started: Instant,
    ) -> Result<Negotiated, Negotiation> {
        let mut probe = self
            .start_request_enveloped("server/discover", None)
            .await
            .map_err(|e| Fail(self.connect_error(e)))?;
        let first = tokio::time::timeout(spec.probe_timeout, &mut probe.rx).await;
        let answer = match first {
            Ok(r) => r.unwrap_or_else(|_| Err(self.closed_error())),
            Err(_) => return self.race(probe, spec, started).await,
        };
        match answer {
            Ok(v) => self.discovered_or_fallback(&v, started).await,
            Err(RequestError::Rpc { error, .. }) => self.after_probe_error(*error, started).await,
            Err(RequestError::Closed { description, .. }) => Err(Restart(format!(
                "the server exited on the server/discover probe ({description}); restarted straight into initialize"
            ))),
            Err(RequestError::Http(f)) if f.refused() => self
                .initialize(
                    None,
                    format!("server/discover: {}; fell back to initialize", f.message),
                    started,
                )
                .await
                .map_err(|e| self.init_failed(e)),
            Err(e) => Err(Fail(self.connect_error(e))),
        }
    }

    pub(super) async fn discovered_or_fallback(
        &self,
        v: &Value,
        started: Instant,
    ) -> Result<Negotiated, Negotiation> {
        let versions = supported_versions(v);
        if versions.iter().any(|s| s == STATELESS_VERSION) {
            return self
                .discovered(
                    v,
                    format!("server/discover answered; supportedVersions {versions:?}"),
                    started,
                )
                .map_err(Fail);
        }
        if versions.is_empty() {
            // Not a DiscoverResult (some servers answer anything with `{}`).
            self.inner.finding(Finding::frame(
                Severity::Warning,
                "server/discover answered without `supportedVersions`; treated as an initialize-era server",
                &v.to_string(),
            ));
            return self
                .initialize(
                    None,
                    "server/discover answered without supportedVersions; fell back to initialize"
                        .into(),
                    started,
                )
                .await
                .map_err(|e| self.init_failed(e));
        }
        if versions
            .iter()
            .any(|s| INITIALIZE_VERSIONS.contains(&s.as_str()))
        {
            return self
                .initialize(
                    None,
                    format!("server/discover offered only {versions:?}; fell back to initialize"),
                    started,
                )
                .await
                .map_err(|e| self.init_failed(e));
        }
        Err(Fail(ConnectError::handshake(format!(
            "the server supports protocol versions {versions:?}; mcpdeck speaks {STATELESS_VERSION} and {}",
            INITIALIZE_VERSIONS.join(", ")
        ))))
    }

    pub(super) async fn after_probe_error(
        &self,
        error: RpcError,
        started: Instant,
    ) -> Result<Negotiated, Negotiation> {
        match error.code {
            codes::UNSUPPORTED_VERSION => {
                let supported = strings(error.data.as_ref().and_then(|d| d.get("supported")));
                // The best version both speak is the stateless one mcpdeck
                // asked with: ask once more (a server may refuse a first
                // request on purpose, or have changed its mind).
                if supported.iter().any(|s| s == STATELESS_VERSION) {
                    let why = format!(
                        "server/discover answered -32022 listing {supported:?}; asked again with {STATELESS_VERSION}, the newest version both speak"
                    );
                    let again = self
                        .start_request_enveloped("server/discover", None)
                        .await
                        .map_err(|e| Fail(self.connect_error(e)))?;
                    match again.wait(self, None).await {
                        Ok(v) => return self.discovered(&v, why, started).map_err(Fail),
                        Err(RequestError::Rpc { error, .. })
                            if error.code == codes::UNSUPPORTED_VERSION =>
                        {
                            let supported =
                                strings(error.data.as_ref().and_then(|d| d.get("supported")));
                            if supported
                                .iter()
                                .any(|s| INITIALIZE_VERSIONS.contains(&s.as_str()))
                            {
                                return self
                                    .initialize(None, format!("{why}; refused again, supported {supported:?}; fell back to initialize"), started)
                                    .await
                                    .map_err(|e| self.init_failed(e));
                            }
                            return Err(Fail(ConnectError::handshake(format!(
                                "the server refused protocol version {STATELESS_VERSION} twice though it lists it as supported ({supported:?})"
                            ))));
                        }
                        Err(e) => return Err(Fail(self.connect_error(e))),
                    }
                }
                if supported
                    .iter()
                    .any(|s| INITIALIZE_VERSIONS.contains(&s.as_str()))
                {
                    return self
                        .initialize(None, format!("server/discover answered -32022, supported {supported:?}; fell back to initialize"), started)
                        .await
                        .map_err(|e| self.init_failed(e));
                }
                Err(Fail(ConnectError::handshake(format!(
                    "the server does not support protocol version {STATELESS_VERSION} (it supports {supported:?}), and no version mcpdeck speaks"
                ))))
            }
            codes::MISSING_CLIENT_CAPABILITY => {
                let needed = error
                    .data
                    .as_ref()
                    .and_then(|d| d.get("requiredCapabilities"))
                    .map(|v| v.to_string())
                    .unwrap_or_default();
                Err(Fail(ConnectError::handshake(format!(
                    "the server speaks the stateless era but requires client capabilities mcpdeck does not offer yet: {needed} ({error})"
                ))))
            }
            codes::HEADER_MISMATCH => Err(Fail(ConnectError::handshake(format!(
                "the server speaks the stateless era but rejected the request headers: {error}"
            )))),
            _ => self
                .initialize(
                    None,
                    format!(
                        "server/discover answered error {}; fell back to initialize",
                        error
                    ),
                    started,
                )
                .await
                .map_err(|e| self.init_failed(e)),
        }
    }

    /// The probe was silent: send initialize too, and take whichever succeeds.
    pub(super) async fn race(
        &self,
        probe: PendingRequest,
        spec: &SessionSpec,
        started: Instant,
    ) -> Result<Negotiated, Negotiation> {
        let silent = format!(
            "no answer to server/discover within {}",
            fmt_duration(spec.probe_timeout)
        );
        let offer = INITIALIZE_VERSIONS[0].to_string();
        let init = match self.start_initialize(&offer).await {
            Ok(init) => init,
            // It exited on the probe just as the probe timed out.
            Err(e @ RequestError::Closed { .. }) => {
                return Err(Restart(format!(
                    "{silent}, and the server exited ({e}); restarted straight into initialize"
                )));
            }
            Err(e) => return Err(Fail(self.connect_error(e))),
        };
        self.race_both(probe, init, offer, silent, started).await
    }

    /// `server/discover` and `initialize` both sent: take whichever
    /// succeeds (when both are in, discover decides).
    pub(super) async fn race_both(
        &self,
        mut probe: PendingRequest,
        mut init: PendingRequest,
        offer: String,
        silent: String,
        started: Instant,
    ) -> Result<Negotiated, Negotiation> {
        let mut probe_err: Option<RequestError> = None;
        let mut init_err: Option<RequestError> = None;
        loop {
            tokio::select! {
                // The probe first: when both answers are in, the one sent
                // first (discover) decides.
                biased;
                r = &mut probe.rx, if probe_err.is_none() => {
                    match r.unwrap_or_else(|_| Err(self.closed_error())) {
                        Ok(v) if supported_versions(&v).iter().any(|s| s == STATELESS_VERSION) => {
                            return self.discovered(&v, format!("{silent}; server/discover answered after {}", fmt_duration(started.elapsed())), started).map_err(Fail);
                        }
                        Ok(_) => probe_err = Some(RequestError::Protocol("server/discover offered no stateless version".into())),
                        Err(e) => probe_err = Some(e),
                    }
                }
                r = &mut init.rx, if init_err.is_none() => {
                    match r.unwrap_or_else(|_| Err(self.closed_error())) {
                        Ok(v) => {
                            let how = match &probe_err {
                                Some(e) => format!("{silent}, then {e}; initialize negotiated"),
                                None => format!("{silent}; initialize negotiated"),
                            };
                            return self.finish_initialize(&v, &offer, false, how, started).await.map_err(|e| Fail(self.connect_error(e)));
                        }
                        Err(e) => init_err = Some(e),
                    }
                }
            }
            if let (Some(p), Some(i)) = (&probe_err, &init_err) {
                if matches!(p, RequestError::Closed { .. }) {
                    return Err(Restart(format!(
                        "{silent}, and the server exited ({p}); restarted straight into initialize"
                    )));
                }
                if let RequestError::Http(f) = i
                    && f.refused()
                {
                    return Err(self.init_failed(i.clone()));
                }
                if i.http().is_some_and(HttpFailure::needs_auth) {
                    return Err(Fail(self.connect_error(i.clone())));
                }
                return Err(Fail(ConnectError::handshake(format!(
                    "the server refused both eras: {p}; {i}"
                ))));
            }
        }
    }

    pub(super) fn discovered(
        &self,
        v: &Value,
        detection: String,
        started: Instant,
    ) -> Result<Negotiated, ConnectError> {
        let info = v
            .get("_meta")
            .and_then(|m| m.get("io.modelcontextprotocol/serverInfo"))
            .or_else(|| v.get("serverInfo"))
            .map(ServerInfo::from_value)
            .unwrap_or_default();
        if !v.get("capabilities").is_some_and(Value::is_object) {
            self.inner.finding(Finding::frame(
                Severity::Warning,
                "server/discover result has no `capabilities` object; nothing will be listed",
                &v.to_string(),
            ));
        }
        *self
            .inner
            .discover_hint
            .lock()
            .unwrap_or_else(|p| p.into_inner()) = CacheHint::of(v);
        Ok(Negotiated {
            era: Era::Stateless,
            version: STATELESS_VERSION.to_string(),
            detection,
            server_info: info,
            capabilities: v.get("capabilities").cloned().unwrap_or_else(|| json!({})),
            instructions: v
                .get("instructions")
                .and_then(Value::as_str)
                .map(str::to_string),
            supported_versions: supported_versions(v),
            connect_time: started.elapsed(),
            transport: self.inner.transport.kind(),
        })
    }

    /// Send `initialize` offering `version` (its answer is awaited by the
    /// caller).
    pub(super) async fn start_initialize(
        &self,
        version: &str,
    ) -> Result<PendingRequest, RequestError> {
        self.start_request(
            "initialize",
            Some(initialize_params(version, &self.inner.client)),
            false,
        )
        .await
    }

    /// The initialize handshake. `pinned` offers exactly that version.
    pub(super) async fn initialize(
        &self,
        pinned: Option<String>,
        detection: String,
        started: Instant,
    ) -> Result<Negotiated, RequestError> {
        let offer = pinned
            .clone()
            .unwrap_or_else(|| INITIALIZE_VERSIONS[0].to_string());
        let v = self
            .request(
                "initialize",
                Some(initialize_params(&offer, &self.inner.client)),
            )
            .await?;
        self.finish_initialize(&v, &offer, pinned.is_some(), detection, started)
            .await
    }

    pub(super) async fn finish_initialize(
        &self,
        v: &Value,
        offer: &str,
        exact: bool,
        detection: String,
        started: Instant,
    ) -> Result<Negotiated, RequestError> {
        let Some(version) = v.get("protocolVersion").and_then(Value::as_str) else {
            return Err(RequestError::Protocol(format!(
                "the initialize result has no protocolVersion: {}",
                jsonrpc::short(v)
            )));
        };
        if version == STATELESS_VERSION {
            return Err(RequestError::Protocol(format!(
                "the server chose {version} in answer to initialize, but that version has no handshake; set protocol = \"stateless\" for this server"
            )));
        }
        if !INITIALIZE_VERSIONS.contains(&version) {
            return Err(RequestError::Protocol(format!(
                "the server chose protocol version {version}, which mcpdeck does not speak (it offered {offer}; mcpdeck speaks {})",
                INITIALIZE_VERSIONS.join(", ")
            )));
        }
        if exact && version != offer {
            return Err(RequestError::Protocol(format!(
                "version {offer} is pinned in the config, but the server chose {version}; pin {version} or use protocol = \"auto\""
            )));
        }
        *self.inner.wire.write().unwrap_or_else(|p| p.into_inner()) =
            Some((Era::Initialize, version.to_string()));
        if let Some(h) = self.inner.transport.http() {
            h.set_protocol(Era::Initialize, version);
        }
        for key in ["serverInfo", "capabilities"] {
            if !v.get(key).is_some_and(Value::is_object) {
                self.inner.finding(Finding::frame(
                    Severity::Warning,
                    format!("the initialize result has no `{key}` object (required by the spec)"),
                    &v.to_string(),
                ));
            }
        }
        self.notify("notifications/initialized", None).await?;
        if let Some(h) = self.inner.transport.http() {
            // Server-initiated messages (and requests such as elicitation
            // that some servers send only there) arrive on the GET stream.
            h.listen();
        }
        let detection = if version == offer {
            detection
        } else {
            format!("{detection}; the server counter-offered {version}")
        };
        Ok(Negotiated {
            era: Era::Initialize,
            version: version.to_string(),
            detection,
            server_info: v
                .get("serverInfo")
                .map(ServerInfo::from_value)
                .unwrap_or_default(),
            capabilities: v.get("capabilities").cloned().unwrap_or_else(|| json!({})),
            instructions: v
                .get("instructions")
                .and_then(Value::as_str)
                .map(str::to_string),
            supported_versions: Vec::new(),
            connect_time: started.elapsed(),
            transport: self.inner.transport.kind(),
        })
    }

    /// The server answered 404 to the HTTP session `expired`: initialize a
    /// new one (once, however many requests noticed), with the version
    /// negotiated before.
    pub(super) async fn recover_session(
        &self,
        expired: &str,
        why: &str,
    ) -> Result<(), RequestError> {
        let Some(h) = self.inner.transport.http() else {
            return Err(RequestError::Protocol(why.to_string()));
        };
        let _one = self.inner.reinit.lock().await;
        if !h.reset_session(expired) {
            return Ok(()); // another request already started a new session
        }
        let version = self
            .negotiated()
            .map(|n| n.version)
            .unwrap_or_else(|| INITIALIZE_VERSIONS[0].to_string());
        // Not through `request`: that would wait here again (recursion).
        let pending = self.start_initialize(&version).await?;
        let limit = self.inner.request_timeout;
        let v = match tokio::time::timeout(limit, pending.rx).await {
            Ok(r) => r.unwrap_or_else(|_| Err(self.closed_error()))?,
            Err(_) => {
                return Err(RequestError::Timeout {
                    method: "initialize".into(),
                    after: limit,
                });
            }
        };
        let n = self
            .finish_initialize(
                &v,
                &version,
                true,
                "re-initialized after the server expired the session".into(),
                Instant::now(),
            )
            .await?;
        let new_id = h.session_id().unwrap_or_else(|| "(none)".into());
        self.inner.finding(Finding::new(
            Severity::Info,
            format!("the server expired HTTP session {expired:?} ({why}); initialized session {new_id:?} and sent the request again"),
        ));
        let keep = self.negotiated().map(|old| old.connect_time);
        let mut n = n;
        if let Some(t) = keep {
            n.connect_time = t;
        }
        self.set_negotiated(n);
        Ok(())
    }
}

/// How the probe ended when it did not produce a session.
pub(super) enum Negotiation {
    Fail(ConnectError),
    /// Start the process again and go straight to initialize.
    Restart(String),
    /// The remembered era no longer holds: start the process again and
    /// probe.
    Redetect(String),
    /// Start again on the legacy HTTP+SSE transport, straight into initialize.
    Legacy(String),
}

use Negotiation::{Fail, Legacy, Redetect, Restart};

pub(super) fn supported_versions(v: &Value) -> Vec<String> {
    strings(v.get("supportedVersions"))
}

/// The strings of a JSON array (anything else: none).
pub(super) fn strings(v: Option<&Value>) -> Vec<String> {
    v.and_then(Value::as_array)
        .map(|a| {
            a.iter()
                .filter_map(Value::as_str)
                .map(str::to_string)
                .collect()
        })
        .unwrap_or_default()
}

pub(super) fn initialize_params(version: &str, client: &ClientPolicy) -> Value {
    json!({"protocolVersion": version, "capabilities": client.capabilities(), "clientInfo": client_info()})
}
