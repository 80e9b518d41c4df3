//! A configured server as a session's spec: transport, era pin, timeouts.

use std::sync::Arc;

use crate::config::{HttpTransportKind, ProtocolPin, ServerConfig, Settings, TransportConfig};
use crate::mcp::session::{ClientPolicy, TransportSpec};
use crate::mcp::session::{ConnectError, EraMemory, Pin, SessionSpec};
use crate::mcp::transport::StdioSpec;
use crate::mcp::transport::http::{HttpKind, HttpSpec};
use crate::mcp::transport::stdio::Children;

/// Build a session spec from the config. `children` registers the
/// server's process so its owner can always reap it.
pub fn session_spec(
    config: &ServerConfig,
    settings: &Settings,
    children: Option<Arc<Children>>,
) -> Result<SessionSpec, ConnectError> {
    // Its strings hold a `${VAR}` as written: never start it so.
    if let Some(why) = config.unresolved() {
        return Err(ConnectError::Config(why));
    }
    // Its `${secret:NAME}`s: the values from the credential store, put in
    // only here, where the process is spawned or the requests are built
    // (a missing one: it fails, saying where and `mcpdeck secret set`).
    let resolved;
    let config = if config.secrets.is_empty() {
        config
    } else {
        resolved =
            crate::secret::resolve(config, settings.credentials).map_err(ConnectError::Config)?;
        &resolved
    };
    let transport = match &config.transport {
        TransportConfig::Stdio {
            command,
            args,
            env,
            cwd,
        } => TransportSpec::Stdio(StdioSpec {
            command: command.clone(),
            args: args.clone(),
            env: env.clone(),
            cwd: cwd.clone(),
            stderr_lines: settings.stderr_lines,
            grace: settings.shutdown_grace,
            children,
            max_line: settings.max_message_size,
        }),
        TransportConfig::Http {
            url,
            headers,
            transport,
            ca_file,
            insecure,
            ..
        } => TransportSpec::Http(HttpSpec {
            url: url.clone(),
            headers: headers.clone(),
            kind: match transport {
                HttpTransportKind::Auto => HttpKind::Auto,
                HttpTransportKind::StreamableHttp => HttpKind::StreamableHttp,
                HttpTransportKind::Sse => HttpKind::Sse,
            },
            ca_file: ca_file.clone(),
            insecure: *insecure,
            connect_timeout: settings.connect_timeout,
            auth: match crate::mcp::auth::authorizer(config, settings) {
                Some(Ok(a)) => Some(a),
                Some(Err(e)) => return Err(ConnectError::Config(e.message)),
                None => None,
            },
        }),
    };
    // Only stdio servers' eras are remembered.
    let era_memory = match &transport {
        TransportSpec::Stdio(_) => EraMemory::shared(settings.remember_era),
        TransportSpec::Http(_) => None,
    };
    let pin = match &config.protocol {
        ProtocolPin::Auto => Pin::Auto,
        ProtocolPin::Stateless => Pin::Stateless,
        ProtocolPin::Initialize => Pin::Initialize,
        ProtocolPin::InitializeFirst => Pin::InitializeFirst,
        ProtocolPin::Version(v) => Pin::Version(v.clone()),
    };
    Ok(SessionSpec {
        name: Arc::from(config.name.as_str()),
        transport,
        client: ClientPolicy::default(),
        pin,
        era_memory,
        request_timeout: config.request_timeout(settings),
        connect_timeout: settings.connect_timeout,
        probe_timeout: settings.probe_timeout,
    })
}
