//! The validated, fully expanded configuration model.
//!
//! Every type here is plain data with `PartialEq`/`Eq`, so the server manager
//! can diff an old and a new [`Config`]: a server whose [`ServerConfig`] is
//! unchanged can keep running.

use std::path::{Path, PathBuf};
use std::time::Duration;

use super::error::Diagnostic;

/// The whole configuration file, validated and with `${VAR}` references
/// expanded.
#[derive(Debug, Clone, PartialEq, Eq, Default)]
pub struct Config {
    /// Global settings (`[settings]`); defaults for absent keys.
    pub settings: Settings,
    /// The servers (`[servers.NAME]`), in file order.
    pub servers: Vec<ServerConfig>,
    /// The file the configuration was read from, if any.
    pub path: Option<PathBuf>,
    /// Key bindings from `[keys]`: action name and its keys, in file
    /// order. The TUI checks the names and keys when it starts.
    pub keys: Vec<(String, Vec<String>)>,
    /// Colours from `[theme]`: role and colour, checked by the TUI. The
    /// roles of the built-in theme `name = "…"` picks come first, the
    /// user's roles after them (a later entry for a role wins).
    pub theme: Vec<(String, String)>,
    /// `[telemetry]`: spans over OTLP/HTTP (see [`crate::telemetry`]).
    pub telemetry: TelemetryConfig,
}

/// `[telemetry]`: where spans go and what they carry. The standard
/// `OTEL_EXPORTER_OTLP_*` variables apply when `otlp_endpoint` is unset.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct TelemetryConfig {
    /// The OTLP/HTTP endpoint (`${VAR}` expanded): a URL ending in
    /// `/v1/traces` is used as it is, any other gets `/v1/traces` appended.
    pub otlp_endpoint: Option<String>,
    /// Attach tool arguments and results to spans (truncated, secrets
    /// masked). Off by default.
    pub capture_content: bool,
}

impl Config {
    /// An empty configuration: default settings and no servers.
    pub fn empty(path: Option<PathBuf>) -> Self {
        Self {
            settings: Settings::default(),
            servers: Vec::new(),
            path,
            keys: Vec::new(),
            theme: Vec::new(),
            telemetry: TelemetryConfig::default(),
        }
    }

    /// The server called `name`, if there is one.
    pub fn server(&self, name: &str) -> Option<&ServerConfig> {
        self.servers.iter().find(|server| server.name == name)
    }
}

/// Global settings from the `[settings]` table.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Settings {
    /// Per-request timeout; reset whenever a progress notification arrives.
    pub request_timeout: Duration,
    /// Time allowed for spawning (or connecting) plus the handshake.
    pub connect_timeout: Duration,
    /// Time allowed for the era probe (`server/discover`) before falling back
    /// to `initialize`.
    pub probe_timeout: Duration,
    /// How long a stdio server found to speak only the initialize era is
    /// remembered as such (it then gets `initialize` at once, without the
    /// `server/discover` probe); zero: never remembered.
    pub remember_era: Duration,
    /// Grace period between closing stdin and SIGTERM, and again between
    /// SIGTERM and SIGKILL.
    pub shutdown_grace: Duration,
    /// [`Settings::shutdown_grace`] for the one-shot CLI commands (`tools`,
    /// `call`, `info`…): they have printed their answer and closed stdout
    /// before their servers are stopped, so a short grace is enough.
    pub oneshot_grace: Duration,
    /// Number of stderr lines kept per server.
    pub stderr_lines: usize,
    /// Number of raw frames kept in the frame-log ring buffer.
    pub frame_log: usize,
    /// The longest message taken from a stdio server, in bytes. A longer
    /// one is dropped, and the request it answers fails at once.
    pub max_message_size: usize,
    /// The directories offered to servers as roots (`roots/list`); empty
    /// offers none (the `roots` capability is still declared, with an
    /// empty list: see docs/configuration.md). Never the current directory.
    pub roots: Vec<PathBuf>,
    /// The client capabilities declared to every server (`capabilities`,
    /// `--capabilities`): one set for every command.
    pub capabilities: crate::mcp::session::Declared,
    /// The command that opens a login URL (the URL is appended); `None`:
    /// `$MCPDECK_BROWSER`, else `$BROWSER`, else the platform's opener.
    pub browser: Option<String>,
    /// `[settings] registry_url`: the MCP Registry (API v0.1) the
    /// `registry` commands ask; `None`: the official one.
    pub registry_url: Option<String>,
    /// Where the TUI's save key writes results (default: the current
    /// directory).
    pub save_dir: Option<PathBuf>,
    /// Where OAuth credentials are kept.
    pub credentials: CredentialStoreKind,
    /// How long a browser login may take before mcpdeck stops waiting for
    /// the redirect.
    pub login_timeout: Duration,
    /// The longest tool description `mcpdeck lint` accepts, in characters
    /// (`lint_max_description`); a server's `[servers.NAME.lint]
    /// max_description` overrides it.
    pub lint_max_description: usize,
}

impl Settings {
    /// Default for [`Settings::request_timeout`].
    pub const DEFAULT_REQUEST_TIMEOUT: Duration = Duration::from_secs(60);
    /// Default for [`Settings::connect_timeout`].
    pub const DEFAULT_CONNECT_TIMEOUT: Duration = Duration::from_secs(30);
    /// Default for [`Settings::probe_timeout`].
    pub const DEFAULT_PROBE_TIMEOUT: Duration = Duration::from_secs(1);
    /// Default for [`Settings::remember_era`] (a day).
    pub const DEFAULT_REMEMBER_ERA: Duration = Duration::from_secs(24 * 3600);
    /// Default for [`Settings::shutdown_grace`].
    pub const DEFAULT_SHUTDOWN_GRACE: Duration = Duration::from_secs(2);
    /// Default for [`Settings::oneshot_grace`].
    pub const DEFAULT_ONESHOT_GRACE: Duration = Duration::from_millis(200);
    /// Default for [`Settings::stderr_lines`].
    pub const DEFAULT_STDERR_LINES: usize = 500;
    /// Default for [`Settings::frame_log`].
    pub const DEFAULT_FRAME_LOG: usize = 10_000;
    /// Default for [`Settings::max_message_size`] (256 MiB).
    pub const DEFAULT_MAX_MESSAGE_SIZE: usize = crate::mcp::transport::stdio::MAX_LINE;
    /// Default for [`Settings::login_timeout`].
    pub const DEFAULT_LOGIN_TIMEOUT: Duration = Duration::from_secs(300);
    /// Default for [`Settings::lint_max_description`].
    pub const DEFAULT_LINT_MAX_DESCRIPTION: usize = crate::trust::lint::DEFAULT_MAX_DESCRIPTION;
}

impl Default for Settings {
    fn default() -> Self {
        Self {
            request_timeout: Self::DEFAULT_REQUEST_TIMEOUT,
            connect_timeout: Self::DEFAULT_CONNECT_TIMEOUT,
            probe_timeout: Self::DEFAULT_PROBE_TIMEOUT,
            remember_era: Self::DEFAULT_REMEMBER_ERA,
            shutdown_grace: Self::DEFAULT_SHUTDOWN_GRACE,
            oneshot_grace: Self::DEFAULT_ONESHOT_GRACE,
            stderr_lines: Self::DEFAULT_STDERR_LINES,
            frame_log: Self::DEFAULT_FRAME_LOG,
            max_message_size: Self::DEFAULT_MAX_MESSAGE_SIZE,
            roots: Vec::new(),
            capabilities: crate::mcp::session::Declared::DEFAULT,
            browser: None,
            registry_url: None,
            save_dir: None,
            credentials: CredentialStoreKind::Auto,
            login_timeout: Self::DEFAULT_LOGIN_TIMEOUT,
            lint_max_description: Self::DEFAULT_LINT_MAX_DESCRIPTION,
        }
    }
}

/// One `[servers.NAME]` table.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct ServerConfig {
    /// The server's name: non-empty, `[A-Za-z0-9_.-]` only, never `__`.
    pub name: String,
    /// How to reach the server.
    pub transport: TransportConfig,
    /// Whether the server is started (default `true`).
    pub enabled: bool,
    /// Tools hidden from the aggregate list and refused on call: exact
    /// names, or glob patterns with `*` (any run of characters) and `?`
    /// (one character). Deny wins over allow.
    pub deny_tools: Vec<String>,
    /// When not empty, only the tools matching one of these names or
    /// patterns are offered and called (`allow_tools`).
    pub allow_tools: Vec<String>,
    /// Which protocol era / version to speak.
    pub protocol: ProtocolPin,
    /// Per-server override of [`Settings::request_timeout`].
    pub timeout: Option<Duration>,
    /// What `mcpdeck lint` lets pass (`[servers.NAME.lint]`).
    pub lint: LintConfig,
    /// The directories offered to this server as roots, instead of
    /// [`Settings::roots`] (`roots = [...]` in its table; `[]` offers none).
    pub roots: Option<Vec<PathBuf>>,
    /// The `${VAR}`s of its table (without `:-default`) whose variable was
    /// not set when the file was read, in file order. Empty for a server
    /// that can be started. Otherwise the strings that hold them are kept
    /// as written (`${VAR}` included), and the server must not be started:
    /// see [`ServerConfig::unresolved`].
    pub unset: Vec<UnsetVariable>,
    /// The strings of its table that hold `${secret:NAME}` references, in
    /// file order. Those strings show the references as written (nothing
    /// here holds a secret's value); [`ServerConfig::with_secrets`] puts
    /// the values in when the server connects (see [`crate::secret`]).
    pub secrets: Vec<SecretString>,
}

/// A string of a server's table that holds `${secret:NAME}` references.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct SecretString {
    /// Which string of the server it is.
    pub place: SecretPlace,
    /// The string, `${VAR}`s expanded, cut at its references.
    pub pieces: Vec<SecretPiece>,
    /// Where it is written (for the message when a secret is missing).
    pub written: Diagnostic,
}

/// A piece of a string with secrets: text, or a `${secret:NAME}`.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum SecretPiece {
    Text(String),
    /// The secret's name.
    Secret(String),
}

/// Where in a server's table a string with secrets is.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum SecretPlace {
    Command,
    /// `args[i]`.
    Arg(usize),
    /// The value of `env`'s i-th entry.
    Env(usize),
    Url,
    /// The value of `headers`' i-th entry.
    Header(usize),
    /// `[servers.NAME.oauth] client_secret`.
    OAuthClientSecret,
    /// `[servers.NAME.oauth] id_token`.
    OAuthIdToken,
    /// `[servers.NAME.oauth] idp_client_secret`.
    OAuthIdpClientSecret,
}

/// A `${secret:NAME}` of a server that has no value.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct MissingSecret {
    /// The secret's name.
    pub name: String,
    /// Where it is written: `FILE:LINE:COL`.
    pub at: String,
}

/// A `${VAR}` in a server's table whose variable is not set (and that has
/// no `:-default`): a problem of that server, not of the file. Commands
/// that name the server fail with [`UnsetVariable::diagnostic`]; commands
/// over every server treat it as one that cannot start.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct UnsetVariable {
    /// The variable's name.
    pub variable: String,
    /// Where it is written, and what to do: `FILE:LINE:COL: server "h":
    /// the environment variable TOK is not set; …`.
    pub diagnostic: Diagnostic,
}

/// `[servers.NAME.lint]`: rules silenced for a server or one of its
/// definitions, and the description length limit.
#[derive(Debug, Clone, PartialEq, Eq, Default)]
pub struct LintConfig {
    /// Rule ids silenced for the whole server (`allow`).
    pub allow: Vec<String>,
    /// Rule ids silenced for one tool, prompt, resource or template, by
    /// name (`[servers.NAME.lint.tools.TOOL] allow = [...]`), in file order.
    pub allow_for: Vec<(String, Vec<String>)>,
    /// Overrides [`Settings::lint_max_description`] (`max_description`).
    pub max_description: Option<usize>,
    /// Servers of one group are not linted against each other (the rules
    /// across servers skip them). Not read from the file: the built-in
    /// demo sets it, its servers being one binary and the test servers
    /// side by side on purpose.
    pub group: Option<String>,
}

impl ServerConfig {
    /// A stdio server with default options; convenient in tests.
    pub fn stdio(name: impl Into<String>, command: impl Into<String>, args: &[&str]) -> Self {
        Self::with_transport(
            name.into(),
            TransportConfig::Stdio {
                command: command.into(),
                args: args.iter().map(|&arg| arg.to_owned()).collect(),
                env: Vec::new(),
                cwd: None,
            },
        )
    }

    /// An HTTP server with default options; convenient in tests.
    pub fn http(name: impl Into<String>, url: impl Into<String>) -> Self {
        Self::with_transport(
            name.into(),
            TransportConfig::Http {
                url: url.into(),
                headers: Vec::new(),
                transport: HttpTransportKind::Auto,
                ca_file: None,
                insecure: false,
                oauth: None,
            },
        )
    }

    fn with_transport(name: String, transport: TransportConfig) -> Self {
        Self {
            name,
            transport,
            enabled: true,
            deny_tools: Vec::new(),
            allow_tools: Vec::new(),
            protocol: ProtocolPin::Auto,
            timeout: None,
            lint: LintConfig::default(),
            roots: None,
            unset: Vec::new(),
            secrets: Vec::new(),
        }
    }

    /// The names of the secrets its table refers to (`${secret:NAME}`),
    /// each once, in file order.
    pub fn secret_names(&self) -> Vec<&str> {
        let mut names: Vec<&str> = Vec::new();
        for piece in self.secrets.iter().flat_map(|s| &s.pieces) {
            if let SecretPiece::Secret(name) = piece
                && !names.contains(&name.as_str())
            {
                names.push(name);
            }
        }
        names
    }

    /// This server with its `${secret:NAME}` references replaced by the
    /// values `value` gives (asked once per name), and none left in
    /// [`ServerConfig::secrets`]. The first name without a value is the
    /// error. A server without references comes back as it is.
    pub fn with_secrets(
        &self,
        value: &mut dyn FnMut(&str) -> Option<String>,
    ) -> Result<ServerConfig, MissingSecret> {
        let mut known: Vec<(&str, String)> = Vec::new();
        let mut out = self.clone();
        out.secrets = Vec::new();
        for string in &self.secrets {
            let mut text = String::new();
            for piece in &string.pieces {
                match piece {
                    SecretPiece::Text(t) => text.push_str(t),
                    SecretPiece::Secret(name) => {
                        if let Some((_, v)) = known.iter().find(|(n, _)| n == name) {
                            text.push_str(v);
                            continue;
                        }
                        let Some(v) = value(name) else {
                            return Err(MissingSecret {
                                name: name.clone(),
                                at: string.written.location(),
                            });
                        };
                        text.push_str(&v);
                        known.push((name, v));
                    }
                }
            }
            out.put(string.place, text);
        }
        Ok(out)
    }

    /// Sets the string at `place` (a place that does not exist is left
    /// alone: the places come from this server's own table).
    fn put(&mut self, place: SecretPlace, text: String) {
        let slot: Option<&mut String> = match (&mut self.transport, place) {
            (TransportConfig::Stdio { command, .. }, SecretPlace::Command) => Some(command),
            (TransportConfig::Stdio { args, .. }, SecretPlace::Arg(i)) => args.get_mut(i),
            (TransportConfig::Stdio { env, .. }, SecretPlace::Env(i)) => {
                env.get_mut(i).map(|(_, v)| v)
            }
            (TransportConfig::Http { url, .. }, SecretPlace::Url) => Some(url),
            (TransportConfig::Http { headers, .. }, SecretPlace::Header(i)) => {
                headers.get_mut(i).map(|(_, v)| v)
            }
            (TransportConfig::Http { oauth: Some(o), .. }, SecretPlace::OAuthClientSecret) => {
                o.client_secret.as_mut()
            }
            (TransportConfig::Http { oauth: Some(o), .. }, SecretPlace::OAuthIdToken) => {
                o.id_token.as_mut()
            }
            (TransportConfig::Http { oauth: Some(o), .. }, SecretPlace::OAuthIdpClientSecret) => {
                o.idp_client_secret.as_mut()
            }
            _ => None,
        };
        if let Some(slot) = slot {
            *slot = text;
        }
    }

    /// Why this server cannot be started as configured: the first of its
    /// [`ServerConfig::unset`] variables, as `FILE:LINE:COL: server "h":
    /// the environment variable TOK is not set; set it, or …` (naming the
    /// others too when there are more). `None`: nothing is missing.
    pub fn unresolved(&self) -> Option<String> {
        let (first, rest) = self.unset.split_first()?;
        let mut message = first.diagnostic.summary();
        let mut others: Vec<&str> = Vec::new();
        for u in rest {
            if u.variable != first.variable && !others.contains(&u.variable.as_str()) {
                others.push(&u.variable);
            }
        }
        if !others.is_empty() {
            message.push_str(&format!(" (also not set: {})", others.join(", ")));
        }
        Some(message)
    }

    /// Whether `other` reaches the server the same way and with the same
    /// session settings: only its policy (`deny_tools`, `allow_tools`,
    /// `lint`) and its `roots` may differ, which apply without
    /// reconnecting (new roots are announced to the server).
    pub fn same_connection(&self, other: &ServerConfig) -> bool {
        ServerConfig {
            deny_tools: Vec::new(),
            allow_tools: Vec::new(),
            lint: LintConfig::default(),
            roots: None,
            ..self.clone()
        } == ServerConfig {
            deny_tools: Vec::new(),
            allow_tools: Vec::new(),
            lint: LintConfig::default(),
            roots: None,
            ..other.clone()
        }
    }

    /// Why a root is wider than one means to give: `/` is the whole disk,
    /// `home` (the user's home directory) everything of theirs.
    pub fn wide_root(dir: &Path, home: Option<&Path>) -> Option<&'static str> {
        let parts = |p: &Path| -> Vec<std::ffi::OsString> {
            p.components()
                .filter(|c| !matches!(c, std::path::Component::CurDir))
                .map(|c| c.as_os_str().to_owned())
                .collect()
        };
        let dir = parts(dir);
        if dir.len() == 1 && dir[0] == "/" {
            return Some("the whole disk");
        }
        match home {
            Some(home) if parts(home) == dir => Some("your whole home directory"),
            _ => None,
        }
    }

    /// The directories offered to this server as roots: its own `roots`,
    /// else the global ones. Never anything the user did not write (or
    /// give with `--roots`): no roots configured means none offered.
    pub fn roots<'a>(&'a self, settings: &'a Settings) -> &'a [PathBuf] {
        self.roots.as_deref().unwrap_or(&settings.roots)
    }

    /// The request timeout for this server: its own `timeout`, or the global
    /// `request_timeout`.
    pub fn request_timeout(&self, settings: &Settings) -> Duration {
        self.timeout.unwrap_or(settings.request_timeout)
    }

    /// Whether the policy refuses `tool` (see [`ServerConfig::tool_refusal`]).
    pub fn is_tool_denied(&self, tool: &str) -> bool {
        self.tool_refusal(tool).is_some()
    }

    /// Why the policy refuses `tool`, if it does: the first `deny_tools`
    /// entry it matches, else (with a non-empty `allow_tools`) that no
    /// `allow_tools` entry matches it.
    pub fn tool_refusal(&self, tool: &str) -> Option<ToolRefusal> {
        tool_refusal(&self.deny_tools, &self.allow_tools, tool)
    }

    /// What would still refuse `tool` with its exact `deny_tools` entry
    /// removed.
    pub fn tool_refusal_without(&self, tool: &str) -> Option<ToolRefusal> {
        let rest: Vec<String> = self
            .deny_tools
            .iter()
            .filter(|d| *d != tool)
            .cloned()
            .collect();
        tool_refusal(&rest, &self.allow_tools, tool)
    }

    /// Whether `tool` is written, as it is, in `deny_tools` (what the
    /// deny/allow toggles add and remove).
    pub fn denies_exactly(&self, tool: &str) -> bool {
        self.deny_tools.iter().any(|denied| denied == tool)
    }
}

/// Why a tool is refused: the rule that refuses it.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum ToolRefusal {
    /// A `deny_tools` entry matches it (an exact name or a pattern).
    Denied { pattern: String },
    /// `allow_tools` is not empty and none of its entries matches it.
    NotAllowed,
}

impl std::fmt::Display for ToolRefusal {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self {
            ToolRefusal::Denied { pattern } => write!(f, "deny_tools entry {pattern:?}"),
            ToolRefusal::NotAllowed => f.write_str("allow_tools (it matches no entry)"),
        }
    }
}

/// The policy of a `deny_tools` and an `allow_tools` list for `tool`:
/// deny wins over allow; an empty allow list allows everything.
pub fn tool_refusal(deny: &[String], allow: &[String], tool: &str) -> Option<ToolRefusal> {
    if let Some(pattern) = deny.iter().find(|p| glob_matches(p, tool)) {
        return Some(ToolRefusal::Denied {
            pattern: pattern.clone(),
        });
    }
    if !allow.is_empty() && !allow.iter().any(|p| glob_matches(p, tool)) {
        return Some(ToolRefusal::NotAllowed);
    }
    None
}

/// Whether `name` matches `pattern`: `*` is any run of characters (none
/// too), `?` exactly one; every other character stands for itself, so a
/// pattern without `*` or `?` is an exact name.
pub fn glob_matches(pattern: &str, name: &str) -> bool {
    let p: Vec<char> = pattern.chars().collect();
    let n: Vec<char> = name.chars().collect();
    // Iterative matching with one backtrack point (the last `*`): linear
    // in practice, never exponential.
    let (mut pi, mut ni) = (0, 0);
    let mut star: Option<(usize, usize)> = None;
    while ni < n.len() {
        match p.get(pi) {
            Some('*') => {
                star = Some((pi, ni));
                pi += 1;
            }
            Some(&c) if c == '?' || c == n[ni] => {
                pi += 1;
                ni += 1;
            }
            _ => match star {
                Some((sp, sn)) => {
                    pi = sp + 1;
                    ni = sn + 1;
                    star = Some((sp, sn + 1));
                }
                None => return false,
            },
        }
    }
    p[pi..].iter().all(|&c| c == '*')
}

/// Why `pattern` cannot be a `deny_tools`/`allow_tools` entry, if it
/// cannot: empty, or only blanks.
pub fn check_tool_pattern(pattern: &str) -> Result<(), String> {
    if pattern.trim().is_empty() {
        return Err("an empty entry matches no tool; remove it or write a tool name or a pattern such as \"delete_*\"".into());
    }
    Ok(())
}

/// How a server is reached.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum TransportConfig {
    /// A child process speaking newline-delimited JSON-RPC on stdin/stdout.
    Stdio {
        /// The program to run (looked up in `PATH` if it has no slash).
        command: String,
        /// Its arguments.
        args: Vec<String>,
        /// Extra environment variables, in file order.
        env: Vec<(String, String)>,
        /// Working directory; `None` inherits mcpdeck's.
        cwd: Option<PathBuf>,
    },
    /// A remote server over HTTP.
    Http {
        /// The endpoint URL (`http://` or `https://`).
        url: String,
        /// Extra request headers, in file order.
        headers: Vec<(String, String)>,
        /// Which HTTP transport to use.
        transport: HttpTransportKind,
        /// A PEM file of extra trusted CA certificates (`ca_file`).
        ca_file: Option<PathBuf>,
        /// Skip TLS certificate verification (`insecure = true`).
        insecure: bool,
        /// How to log in (`[servers.NAME.oauth]`); `None`: the defaults
        /// (discovery and dynamic registration when the server asks).
        oauth: Option<Box<OAuthConfig>>,
    },
}

/// `[servers.NAME.oauth]`: how mcpdeck logs in to an HTTP server that
/// answers 401. Every key is optional: with none, the client is registered
/// dynamically and logs in with a browser.
#[derive(Clone, PartialEq, Eq, Default)]
pub struct OAuthConfig {
    /// A client registered beforehand with the authorization server.
    pub client_id: Option<String>,
    /// Its secret (usually `${VAR}`).
    pub client_secret: Option<String>,
    /// An https URL of a client ID metadata document (CIMD), used as the
    /// client_id where the authorization server supports it.
    pub client_metadata_url: Option<String>,
    /// The scopes to ask for; empty: what the server's challenge or
    /// metadata says.
    pub scopes: Vec<String>,
    /// A fixed port for the loopback redirect (for pre-registered clients);
    /// `None`: a free port.
    pub callback_port: Option<u16>,
    /// The `resource` parameter (RFC 8707).
    pub resource: OAuthResource,
    /// How tokens are got; `None`: what the server and the credentials
    /// allow (client_credentials for a configured client at a server that
    /// offers only that grant, or with a private key; cross-app access with
    /// an `id_token`; else the browser login).
    pub grant: Option<OAuthGrant>,
    /// The algorithm of `private_key_file` (`ES256` or `RS256`); `None`:
    /// from the key.
    pub signing_algorithm: Option<String>,
    /// A PKCS#8 PEM key (EC P-256 or RSA) for `private_key_jwt` client
    /// authentication with `client_credentials` (relative to the config).
    pub private_key_file: Option<PathBuf>,
    /// The authorization server's issuer URL, over discovery.
    pub authorization_server: Option<String>,
    /// Cross-app access: the identity provider's ID token (usually `${VAR}`).
    pub id_token: Option<String>,
    /// Cross-app access: the identity provider's token endpoint.
    pub idp_token_endpoint: Option<String>,
    /// Cross-app access: the client at the identity provider.
    pub idp_client_id: Option<String>,
    pub idp_client_secret: Option<String>,
    /// Workload identity federation (SEP-1933): a file holding the
    /// platform's JWT for this workload (read at each token request, as
    /// platforms rotate it; relative to the config).
    pub workload_token_file: Option<PathBuf>,
    /// Workload identity federation: the environment variable holding it.
    pub workload_token_env: Option<String>,
    /// DPoP (RFC 9449, SEP-1932): `Some(true)` always asks for tokens bound
    /// to a key of mcpdeck's, `Some(false)` never; `None` (auto) when the
    /// authorization server takes ES256 proofs and the MCP server asks
    /// for DPoP (its challenge or its resource metadata).
    pub dpop: Option<bool>,
}

impl std::fmt::Debug for OAuthConfig {
    /// Secrets print as `***`.
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        let masked = |s: &Option<String>| s.as_ref().map(|_| "***");
        f.debug_struct("OAuthConfig")
            .field("client_id", &self.client_id)
            .field("client_secret", &masked(&self.client_secret))
            .field("client_metadata_url", &self.client_metadata_url)
            .field("scopes", &self.scopes)
            .field("callback_port", &self.callback_port)
            .field("resource", &self.resource)
            .field("grant", &self.grant)
            .field("private_key_file", &self.private_key_file)
            .field("signing_algorithm", &self.signing_algorithm)
            .field("authorization_server", &self.authorization_server)
            .field("id_token", &masked(&self.id_token))
            .field("idp_token_endpoint", &self.idp_token_endpoint)
            .field("idp_client_id", &self.idp_client_id)
            .field("idp_client_secret", &masked(&self.idp_client_secret))
            .field("workload_token_file", &self.workload_token_file)
            .field("workload_token_env", &self.workload_token_env)
            .field("dpop", &self.dpop)
            .finish()
    }
}

/// The `resource` key of `[servers.NAME.oauth]`.
#[derive(Debug, Clone, PartialEq, Eq, Default)]
pub enum OAuthResource {
    /// The protected resource metadata's `resource`, else the server URL.
    #[default]
    Discovered,
    /// This value.
    Fixed(String),
    /// `resource = false`: never sent (for providers that reject it).
    Omit,
}

/// The `grant` key of `[servers.NAME.oauth]`.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum OAuthGrant {
    /// A person logs in with a browser (PKCE), tokens are refreshed.
    AuthorizationCode,
    /// Machine to machine: the client's secret or its private key.
    ClientCredentials,
    /// Cross-app access (enterprise): an identity provider's ID token is
    /// exchanged for an ID-JAG, then for a token (RFC 8693, RFC 7523).
    CrossApp,
    /// Workload identity federation (SEP-1933): the platform's JWT for the
    /// workload is the RFC 7523 assertion; no other grant is tried after.
    Workload,
}

impl OAuthGrant {
    pub fn from_name(name: &str) -> Option<Self> {
        match name {
            "authorization_code" => Some(OAuthGrant::AuthorizationCode),
            "client_credentials" => Some(OAuthGrant::ClientCredentials),
            "cross_app" | "jwt_bearer" => Some(OAuthGrant::CrossApp),
            "workload" | "wif" => Some(OAuthGrant::Workload),
            _ => None,
        }
    }
}

/// `[settings] credentials`: where tokens and registrations are kept.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub enum CredentialStoreKind {
    /// The OS keyring when one is reachable, else the file.
    #[default]
    Auto,
    Keyring,
    /// A file in the user's data directory (0600, locked while written).
    File,
}

impl CredentialStoreKind {
    pub fn from_name(name: &str) -> Option<Self> {
        match name {
            "auto" => Some(Self::Auto),
            "keyring" => Some(Self::Keyring),
            "file" => Some(Self::File),
            _ => None,
        }
    }
}

/// The `transport` key of an HTTP server.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub enum HttpTransportKind {
    /// Not specified: detect (streamable HTTP first, then legacy SSE).
    #[default]
    Auto,
    /// `transport = "http"`: streamable HTTP.
    StreamableHttp,
    /// `transport = "sse"`: the legacy HTTP+SSE transport.
    Sse,
}

impl HttpTransportKind {
    /// Parses the value of the `transport` key.
    pub fn from_name(name: &str) -> Option<Self> {
        match name {
            "auto" => Some(Self::Auto),
            "http" => Some(Self::StreamableHttp),
            "sse" => Some(Self::Sse),
            _ => None,
        }
    }

    /// The value written in the file for this kind.
    pub fn name(self) -> &'static str {
        match self {
            Self::Auto => "auto",
            Self::StreamableHttp => "http",
            Self::Sse => "sse",
        }
    }
}

/// The `protocol` key: which protocol era or exact version to speak.
#[derive(Debug, Clone, PartialEq, Eq, Default)]
pub enum ProtocolPin {
    /// Probe with `server/discover`, fall back to `initialize`.
    #[default]
    Auto,
    /// The stateless era (2026-07-28) only; no fallback.
    Stateless,
    /// The `initialize` era only, offering the newest version first.
    Initialize,
    /// Exactly this version; always one of [`ProtocolPin::KNOWN_VERSIONS`].
    Version(String),
    /// Never read from a file: `mcpdeck serve`'s choice for the servers
    /// of an initialize-era agent (`auto` in the file). `initialize`
    /// first; a server that refuses it is probed as with `auto`.
    InitializeFirst,
}

impl ProtocolPin {
    /// The protocol versions that can be pinned, newest first.
    pub const KNOWN_VERSIONS: [&'static str; 5] = [
        "2026-07-28",
        "2025-11-25",
        "2025-06-18",
        "2025-03-26",
        "2024-11-05",
    ];

    /// Parses the value of the `protocol` key; `None` if it is not one of
    /// `auto`, `stateless`, `initialize` or a known version.
    pub fn from_name(name: &str) -> Option<Self> {
        match name {
            "auto" => Some(Self::Auto),
            "stateless" => Some(Self::Stateless),
            "initialize" => Some(Self::Initialize),
            version if Self::KNOWN_VERSIONS.contains(&version) => {
                Some(Self::Version(version.to_owned()))
            }
            _ => None,
        }
    }

    /// The value written in the file for this pin.
    pub fn name(&self) -> &str {
        match self {
            Self::Auto | Self::InitializeFirst => "auto",
            Self::Stateless => "stateless",
            Self::Initialize => "initialize",
            Self::Version(version) => version,
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn protocol_names_round_trip() {
        for name in ["auto", "stateless", "initialize"]
            .into_iter()
            .chain(ProtocolPin::KNOWN_VERSIONS)
        {
            let pin = ProtocolPin::from_name(name).unwrap();
            assert_eq!(pin.name(), name);
        }
        assert_eq!(ProtocolPin::from_name("2025-01-01"), None);
        assert_eq!(ProtocolPin::from_name("latest"), None);
    }

    #[test]
    fn transport_names_round_trip() {
        for kind in [
            HttpTransportKind::Auto,
            HttpTransportKind::StreamableHttp,
            HttpTransportKind::Sse,
        ] {
            assert_eq!(HttpTransportKind::from_name(kind.name()), Some(kind));
        }
        assert_eq!(HttpTransportKind::from_name("ws"), None);
    }

    #[test]
    fn convenience_constructors() {
        let server = ServerConfig::stdio("demo", "mcpdeck", &["demo"]);
        assert!(server.enabled);
        assert_eq!(
            server.transport,
            TransportConfig::Stdio {
                command: "mcpdeck".into(),
                args: vec!["demo".into()],
                env: vec![],
                cwd: None,
            }
        );
        let settings = Settings::default();
        assert_eq!(server.request_timeout(&settings), Duration::from_secs(60));
        let remote = ServerConfig {
            timeout: Some(Duration::from_millis(500)),
            deny_tools: vec!["rm".into()],
            ..ServerConfig::http("r", "https://example.com/mcp")
        };
        assert_eq!(
            remote.request_timeout(&settings),
            Duration::from_millis(500)
        );
        assert!(remote.is_tool_denied("rm"));
        assert!(!remote.is_tool_denied("ls"));
    }

    #[test]
    fn globs_match_whole_names() {
        for (pattern, name, matches) in [
            ("rm", "rm", true),
            ("rm", "rmdir", false),
            ("delete_*", "delete_file", true),
            ("delete_*", "delete_", true),
            ("delete_*", "undelete_file", false),
            ("*_file", "read_file", true),
            ("*_file", "read_files", false),
            ("?s", "ls", true),
            ("?s", "s", false),
            ("a*b*c", "axxbyyc", true),
            ("a*b*c", "axxbyy", false),
            ("*", "", true),
            ("**x", "abx", true),
            ("é?", "éa", true),
            ("get-env", "get-env", true),
        ] {
            assert_eq!(glob_matches(pattern, name), matches, "{pattern} ~ {name}");
        }
    }

    #[test]
    fn deny_wins_over_allow_and_names_its_rule() {
        let server = ServerConfig {
            deny_tools: vec!["delete_*".into(), "rm".into()],
            allow_tools: vec!["delete_*".into(), "read_*".into(), "rm".into()],
            ..ServerConfig::stdio("fs", "x", &[])
        };
        assert_eq!(
            server.tool_refusal("delete_all"),
            Some(ToolRefusal::Denied {
                pattern: "delete_*".into()
            })
        );
        assert_eq!(
            server.tool_refusal("rm"),
            Some(ToolRefusal::Denied {
                pattern: "rm".into()
            })
        );
        assert_eq!(server.tool_refusal("read_file"), None);
        assert_eq!(
            server.tool_refusal("write_file"),
            Some(ToolRefusal::NotAllowed)
        );
        assert!(server.denies_exactly("rm"));
        assert!(!server.denies_exactly("delete_all"));
        let open = ServerConfig::stdio("fs", "x", &[]);
        assert_eq!(open.tool_refusal("anything"), None);
        assert!(check_tool_pattern("").is_err());
        assert!(check_tool_pattern("  ").is_err());
        assert!(check_tool_pattern("x*").is_ok());
    }
}
