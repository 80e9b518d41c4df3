//! Parsing and validating the configuration text.
//!
//! The text is parsed into a [`toml_edit::Document`], which keeps the byte
//! span of every key and value, and validated by hand so that every error can
//! point at the offending key or value.

use std::ops::Range;
use std::path::{Path, PathBuf};
use std::time::Duration;

use toml_edit::{Document, Item, Key, TableLike, Value};

use super::error::{ConfigError, Diagnostic};
use super::expand::{self, ExpandError};
use super::model::{
    Config, CredentialStoreKind, HttpTransportKind, LintConfig, OAuthConfig, ProtocolPin,
    SecretPiece, SecretPlace, SecretString, ServerConfig, Settings, TelemetryConfig,
    TransportConfig, UnsetVariable,
};

/// The longest time any setting may name: longer is surely a typo.
const MAX_DURATION: Duration = Duration::from_secs(7 * 24 * 3600);

mod sections;
mod values;

type Result<T> = std::result::Result<T, ConfigError>;

/// How `${VAR}` references are resolved while parsing.
#[derive(Clone, Copy)]
pub(crate) enum Env<'a> {
    /// Look variables up with the function; unset variables are errors.
    Lookup(&'a dyn Fn(&str) -> Option<String>),
    /// Validate structure only: every variable reads as the empty string and
    /// checks that depend on expanded values are skipped.
    Lenient,
}

/// Keys allowed at the top level.
const TOP_LEVEL_KEYS: &[&str] = &["settings", "servers", "keys", "theme", "telemetry"];
/// Keys allowed in `[telemetry]`.
pub(crate) const TELEMETRY_KEYS: &[&str] = &["otlp_endpoint", "capture_content"];
/// Keys allowed in `[settings]`.
pub(crate) const SETTINGS_KEYS: &[&str] = &[
    "request_timeout",
    "connect_timeout",
    "probe_timeout",
    "remember_era",
    "shutdown_grace",
    "oneshot_grace",
    "stderr_lines",
    "frame_log",
    "max_message_size",
    "roots",
    "capabilities",
    "browser",
    "credentials",
    "login_timeout",
    "lint_max_description",
    "save_dir",
    "registry_url",
];
/// Keys allowed in `[servers.NAME]`.
pub(crate) const SERVER_KEYS: &[&str] = &[
    "command",
    "args",
    "env",
    "cwd",
    "url",
    "headers",
    "transport",
    "ca_file",
    "insecure",
    "enabled",
    "deny_tools",
    "allow_tools",
    "protocol",
    "timeout",
    "oauth",
    "lint",
    "roots",
];

/// Parses and validates `text`. `path` is only used in messages and stored in
/// [`Config::path`].
pub(crate) fn parse(text: &str, path: Option<&Path>, env: Env<'_>) -> Result<Config> {
    let parser = Parser {
        source: text,
        path,
        env,
        unset: Default::default(),
        secrets: Default::default(),
    };
    let document = Document::parse(text)
        .map_err(|error| parser.error(error.span(), syntax_message(text, &error)))?;
    parser.config(&document)
}

/// What a TOML syntax error says: `invalid TOML: …`, with the key a
/// duplicate-key error is about (the parser does not name it).
pub(crate) fn syntax_message(text: &str, error: &toml_edit::TomlError) -> String {
    let mut message = format!("invalid TOML: {}", error.message());
    if let Some(key) = error
        .span()
        .filter(|_| error.message() == "duplicate key")
        .and_then(|span| text.get(span))
    {
        message.push_str(&format!(" `{key}`"));
    }
    message
}

/// Checks a server name: non-empty, `[A-Za-z0-9_.-]` only, no `__`.
/// The error is a complete message.
pub(crate) fn check_server_name(name: &str) -> std::result::Result<(), String> {
    if name.is_empty() {
        return Err(
            "server names must not be empty; use letters, digits, `_`, `.` and `-`".to_owned(),
        );
    }
    if let Some(bad) = name
        .chars()
        .find(|&c| !(c.is_ascii_alphanumeric() || matches!(c, '_' | '.' | '-')))
    {
        return Err(format!(
            "invalid server name \"{name}\": {bad:?} is not allowed; use only letters, digits, `_`, `.` and `-`"
        ));
    }
    if name.contains("__") {
        let mut fixed = name.to_owned();
        while fixed.contains("__") {
            fixed = fixed.replace("__", "_");
        }
        return Err(format!(
            "invalid server name \"{name}\": it must not contain `__`, which separates server and tool names in the tool list; rename it, e.g. \"{fixed}\""
        ));
    }
    Ok(())
}

/// A string value together with where it was written.
#[derive(Debug, Clone)]
pub(super) struct Raw {
    pub(super) text: String,
    pub(super) span: Option<Range<usize>>,
}

/// A key's value and the span of the key itself.
pub(super) struct Field<T> {
    pub(super) value: T,
    pub(super) key_span: Option<Range<usize>>,
}

impl<T> Field<T> {
    pub(super) fn new(value: T, key_span: &Option<Range<usize>>) -> Self {
        Self {
            value,
            key_span: key_span.clone(),
        }
    }
}

/// The keys of one server table, type-checked but not yet cross-checked or
/// expanded.
#[derive(Default)]
struct ServerFields {
    command: Option<Field<Raw>>,
    args: Option<Field<Vec<Raw>>>,
    env: Option<Field<Vec<(String, Raw)>>>,
    cwd: Option<Field<Raw>>,
    url: Option<Field<Raw>>,
    headers: Option<Field<Vec<(String, Raw)>>>,
    transport: Option<Field<HttpTransportKind>>,
    ca_file: Option<Field<Raw>>,
    insecure: Option<Field<bool>>,
    enabled: Option<bool>,
    deny_tools: Option<Vec<String>>,
    allow_tools: Option<Vec<String>>,
    protocol: Option<ProtocolPin>,
    timeout: Option<Duration>,
    oauth: Option<Field<OAuthConfig>>,
    lint: Option<LintConfig>,
    roots: Option<Vec<PathBuf>>,
}

pub(super) struct Parser<'a> {
    pub(super) source: &'a str,
    pub(super) path: Option<&'a Path>,
    pub(super) env: Env<'a>,
    /// While a server's table is read: its unset variables. A `${VAR}`
    /// whose variable is not set is then that server's problem (kept in
    /// [`ServerConfig::unset`]) rather than an error of the file; in
    /// `[settings]` and `[telemetry]`, which every command uses, it stays
    /// an error.
    pub(super) unset: std::cell::RefCell<Option<Vec<UnsetVariable>>>,
    /// While a server's table is read: its strings with `${secret:NAME}`
    /// references (kept in [`ServerConfig::secrets`]).
    pub(super) secrets: std::cell::RefCell<Vec<SecretString>>,
}

impl Parser<'_> {
    pub(super) fn error(
        &self,
        span: Option<Range<usize>>,
        message: impl Into<String>,
    ) -> ConfigError {
        Diagnostic::new(self.source, self.path, span, message).into()
    }

    /// The source text of a value, as written in the file.
    pub(super) fn written(&self, span: &Option<Range<usize>>) -> &str {
        span.clone()
            .and_then(|span| self.source.get(span))
            .unwrap_or("this value")
    }

    fn config(&self, document: &Document<&str>) -> Result<Config> {
        let mut config = Config::empty(self.path.map(Path::to_path_buf));
        for (key, key_span, item) in entries(document.as_table()) {
            match key {
                "settings" => config.settings = self.settings(item, key_span)?,
                "servers" => config.servers = self.servers(item, key_span)?,
                "keys" => config.keys = self.keys(item, key_span)?,
                "theme" => config.theme = self.theme(item, key_span)?,
                "telemetry" => config.telemetry = self.telemetry(item, key_span)?,
                _ => return Err(self.unknown_top_level_key(key, key_span, item)),
            }
        }
        Ok(config)
    }

    fn unknown_top_level_key(
        &self,
        key: &str,
        key_span: Option<Range<usize>>,
        item: &Item,
    ) -> ConfigError {
        let looks_like_server = item
            .as_table_like()
            .is_some_and(|table| table.contains_key("command") || table.contains_key("url"));
        if looks_like_server {
            return self.error(
                key_span,
                format!("unknown top-level table `{key}`; servers are declared as [servers.{key}]"),
            );
        }
        self.error(
            key_span,
            unknown_key_message(key, "at the top level", TOP_LEVEL_KEYS),
        )
    }

    fn servers(&self, item: &Item, key_span: Option<Range<usize>>) -> Result<Vec<ServerConfig>> {
        let found = match item {
            Item::ArrayOfTables(_) => "an array of tables ([[servers]])",
            _ => describe(item),
        };
        let table = item.as_table_like().ok_or_else(|| {
                self.error(
                    item.span().or(key_span.clone()),
                    format!(
                        "`servers` must be a table with one [servers.NAME] section per server, found {found}"
                    ),
                )
            })?;
        entries(table)
            .map(|(name, key_span, item)| self.server(name, key_span, item))
            .collect()
    }

    fn server(
        &self,
        name: &str,
        key_span: Option<Range<usize>>,
        item: &Item,
    ) -> Result<ServerConfig> {
        check_server_name(name).map_err(|message| self.error(key_span.clone(), message))?;
        // Point at the `[servers.NAME]` header when there is one.
        let header_span = match item {
            Item::Table(table) => table.span().or(key_span.clone()),
            _ => key_span.clone(),
        };
        let table = item.as_table_like().ok_or_else(|| {
            self.error(
                item.span().or(key_span.clone()),
                format!(
                    "server \"{name}\" must be a table like [servers.{name}], found {}",
                    describe(item)
                ),
            )
        })?;
        let ctx = format!("server \"{name}\": ");
        *self.unset.borrow_mut() = Some(Vec::new());
        self.secrets.borrow_mut().clear();
        let read = self.server_fields(name, &ctx, table).and_then(|fields| {
            Ok((
                self.server_transport(name, &ctx, header_span, &fields)?,
                fields,
            ))
        });
        let mut unset = self.unset.borrow_mut().take().unwrap_or_default();
        unset.sort_by_key(|u| u.diagnostic.position().map(|p| (p.line, p.column)));
        let mut secrets = std::mem::take(&mut *self.secrets.borrow_mut());
        secrets.sort_by_key(|s| s.written.position().map(|p| (p.line, p.column)));
        let (transport, fields) = read?;
        Ok(ServerConfig {
            name: name.to_owned(),
            transport,
            enabled: fields.enabled.unwrap_or(true),
            deny_tools: fields.deny_tools.unwrap_or_default(),
            allow_tools: fields.allow_tools.unwrap_or_default(),
            protocol: fields.protocol.unwrap_or_default(),
            timeout: fields.timeout,
            lint: fields.lint.unwrap_or_default(),
            roots: fields.roots,
            unset,
            secrets,
        })
    }

    /// A `roots` list: directories, `${VAR}` expanded, a relative one taken
    /// from the config file's folder (never from mcpdeck's working
    /// directory, which is wherever it was started).
    fn roots(&self, ctx: &str, value: (&Item, Option<Range<usize>>)) -> Result<Vec<PathBuf>> {
        let mut roots = Vec::new();
        for raw in self.string_array(ctx, "roots", value)? {
            let text = self.expand(ctx, "roots", &raw)?;
            if text.trim().is_empty() {
                return Err(self.error(
                    raw.span.clone(),
                    format!("{ctx}`roots` has an empty entry; name a directory, or remove it"),
                ));
            }
            let p = PathBuf::from(text);
            let p = match self.path.and_then(Path::parent) {
                Some(dir) if p.is_relative() => dir.join(p),
                _ => p,
            };
            // Absolute (a file given as `--config x.toml` has the current
            // directory as its folder): a root is a `file://` URI.
            roots.push(std::path::absolute(&p).unwrap_or(p));
        }
        Ok(roots)
    }

    /// Type-checks every key of a server table.
    fn server_fields(&self, name: &str, ctx: &str, table: &dyn TableLike) -> Result<ServerFields> {
        let mut fields = ServerFields::default();
        for (key, key_span, item) in entries(table) {
            let value = (item, key_span.clone());
            match key {
                "command" => {
                    fields.command = Some(Field::new(
                        self.non_empty_string(ctx, key, value)?,
                        &key_span,
                    ))
                }
                "args" => {
                    fields.args = Some(Field::new(self.string_array(ctx, key, value)?, &key_span))
                }
                "env" => {
                    let env = self.string_table(ctx, key, value)?;
                    fields.env = Some(Field::new(env, &key_span));
                }
                "cwd" => {
                    fields.cwd = Some(Field::new(
                        self.non_empty_string(ctx, key, value)?,
                        &key_span,
                    ))
                }
                "url" => {
                    fields.url = Some(Field::new(
                        self.non_empty_string(ctx, key, value)?,
                        &key_span,
                    ))
                }
                "headers" => {
                    let headers = self.string_table(ctx, key, value)?;
                    fields.headers = Some(Field::new(headers, &key_span));
                }
                "transport" => {
                    let raw = self.string(ctx, key, value)?;
                    let kind = HttpTransportKind::from_name(&raw.text).ok_or_else(|| {
                        self.error(
                            raw.span.clone(),
                            format!(
                                "{ctx}unknown transport \"{}\"; use \"http\" (streamable HTTP) or \"sse\" (legacy HTTP+SSE), or leave it out to detect",
                                raw.text
                            ),
                        )
                    })?;
                    fields.transport = Some(Field::new(kind, &key_span));
                }
                "ca_file" => {
                    fields.ca_file = Some(Field::new(
                        self.non_empty_string(ctx, key, value)?,
                        &key_span,
                    ))
                }
                "insecure" => {
                    fields.insecure = Some(Field::new(self.boolean(ctx, key, value)?, &key_span))
                }
                "enabled" => fields.enabled = Some(self.boolean(ctx, key, value)?),
                "deny_tools" | "allow_tools" => {
                    let mut tools = Vec::new();
                    for raw in self.string_array(ctx, key, value)? {
                        crate::config::model::check_tool_pattern(&raw.text).map_err(|why| {
                            self.error(raw.span.clone(), format!("{ctx}`{key}`: {why}"))
                        })?;
                        tools.push(raw.text);
                    }
                    if key == "deny_tools" {
                        fields.deny_tools = Some(tools);
                    } else {
                        fields.allow_tools = Some(tools);
                    }
                }
                "protocol" => {
                    let raw = self.string(ctx, key, value)?;
                    let pin = ProtocolPin::from_name(&raw.text).ok_or_else(|| {
                        let versions = ProtocolPin::KNOWN_VERSIONS.map(|v| format!("\"{v}\""));
                        self.error(
                            raw.span.clone(),
                            format!(
                                "{ctx}unknown protocol \"{}\"; use \"auto\", \"stateless\", \"initialize\" or one of the versions {}",
                                raw.text,
                                versions.join(", ")
                            ),
                        )
                    })?;
                    fields.protocol = Some(pin);
                }
                "timeout" => fields.timeout = Some(self.duration(ctx, key, value, false)?),
                "oauth" => {
                    fields.oauth = Some(Field::new(self.oauth(name, value)?, &key_span));
                }
                "lint" => fields.lint = Some(self.lint(name, value)?),
                "roots" => fields.roots = Some(self.roots(ctx, value)?),
                _ => return Err(self.unknown_server_key(name, key, key_span)),
            }
        }
        Ok(fields)
    }

    fn unknown_server_key(
        &self,
        name: &str,
        key: &str,
        key_span: Option<Range<usize>>,
    ) -> ConfigError {
        let place = format!("in server \"{name}\"");
        let message = if SETTINGS_KEYS.contains(&key) {
            let hint = if key == "request_timeout" {
                " (the per-server override is `timeout`)"
            } else {
                ""
            };
            format!("unknown key `{key}` {place}; it belongs in [settings]{hint}")
        } else {
            unknown_key_message(key, &place, SERVER_KEYS)
        };
        self.error(key_span, message)
    }

    /// Cross-checks the keys of a server and builds its expanded transport.
    fn server_transport(
        &self,
        name: &str,
        ctx: &str,
        header_span: Option<Range<usize>>,
        fields: &ServerFields,
    ) -> Result<TransportConfig> {
        let stdio_only = [
            ("args", fields.args.as_ref().map(|f| &f.key_span)),
            ("env", fields.env.as_ref().map(|f| &f.key_span)),
            ("cwd", fields.cwd.as_ref().map(|f| &f.key_span)),
        ];
        let http_only = [
            ("headers", fields.headers.as_ref().map(|f| &f.key_span)),
            ("transport", fields.transport.as_ref().map(|f| &f.key_span)),
            ("ca_file", fields.ca_file.as_ref().map(|f| &f.key_span)),
            ("insecure", fields.insecure.as_ref().map(|f| &f.key_span)),
            ("oauth", fields.oauth.as_ref().map(|f| &f.key_span)),
        ];
        let misplaced = |keys: &[(&str, Option<&Option<Range<usize>>>)], needs: &str| {
            keys.iter().find_map(|(key, span)| {
                span.map(|span| {
                    self.error(
                        span.clone(),
                        format!("{ctx}`{key}` only applies to servers with `{needs}`; remove it"),
                    )
                })
            })
        };
        match (&fields.command, &fields.url) {
            (Some(command), Some(url)) => {
                let later = [&command.key_span, &url.key_span]
                    .into_iter()
                    .max_by_key(|span| span.as_ref().map(|span| span.start))
                    .cloned()
                    .flatten();
                Err(self.error(
                    later,
                    format!("server \"{name}\" has both `command` and `url`; keep one"),
                ))
            }
            (None, None) => Err(self.error(
                header_span,
                format!(
                    "server \"{name}\" has neither `command` nor `url`; add `command = \"...\"` to run a local program, or `url = \"https://...\"` for a remote server"
                ),
            )),
            (Some(command), None) => {
                if let Some(error) = misplaced(&http_only, "url") {
                    return Err(error);
                }
                let args = match &fields.args {
                    Some(args) => args
                        .value
                        .iter()
                        .enumerate()
                        .map(|(i, raw)| self.expand_at(ctx, "args", raw, Some(SecretPlace::Arg(i))))
                        .collect::<Result<Vec<_>>>()?,
                    None => Vec::new(),
                };
                let env = match &fields.env {
                    Some(env) => self.expand_pairs(ctx, "env", &env.value, SecretPlace::Env)?,
                    None => Vec::new(),
                };
                let cwd = match &fields.cwd {
                    Some(cwd) => Some(PathBuf::from(self.expand(ctx, "cwd", &cwd.value)?)),
                    None => None,
                };
                Ok(TransportConfig::Stdio {
                    command: self.expand_at(
                        ctx,
                        "command",
                        &command.value,
                        Some(SecretPlace::Command),
                    )?,
                    args,
                    env,
                    cwd,
                })
            }
            (None, Some(url)) => {
                if let Some(error) = misplaced(&stdio_only, "command") {
                    return Err(error);
                }
                let unset_before = self.unset_count();
                let expanded = self.expand_at(ctx, "url", &url.value, Some(SecretPlace::Url))?;
                let scheme_ok = ["http://", "https://"].iter().any(|scheme| {
                    expanded
                        .get(..scheme.len())
                        .is_some_and(|prefix| prefix.eq_ignore_ascii_case(scheme))
                });
                // An unset variable leaves the URL as written: it is
                // checked once the variable is set, unless its start shows
                // the mistake already.
                // So does a `${secret:NAME}` at its start (put in when it
                // connects).
                let checkable = (self.unset_count() == unset_before || !expanded.starts_with('$'))
                    && !expanded.starts_with("${secret:");
                if !scheme_ok && checkable && matches!(self.env, Env::Lookup(_)) {
                    // Quote the value as written: the expansion may hold secrets.
                    return Err(self.error(
                        url.value.span.clone(),
                        format!(
                            "{ctx}`url` must start with http:// or https://, found \"{}\"",
                            url.value.text
                        ),
                    ));
                }
                let headers = match &fields.headers {
                    Some(headers) => {
                        self.expand_pairs(ctx, "headers", &headers.value, SecretPlace::Header)?
                    }
                    None => Vec::new(),
                };
                let ca_file = match &fields.ca_file {
                    Some(ca) => {
                        let p = PathBuf::from(self.expand(ctx, "ca_file", &ca.value)?);
                        // Relative to the config file's folder.
                        Some(match self.path.and_then(Path::parent) {
                            Some(dir) if p.is_relative() && !dir.as_os_str().is_empty() => {
                                dir.join(p)
                            }
                            _ => p,
                        })
                    }
                    None => None,
                };
                Ok(TransportConfig::Http {
                    url: expanded,
                    headers,
                    transport: fields
                        .transport
                        .as_ref()
                        .map_or(HttpTransportKind::Auto, |f| f.value),
                    ca_file,
                    insecure: fields.insecure.as_ref().is_some_and(|f| f.value),
                    oauth: fields.oauth.as_ref().map(|f| Box::new(f.value.clone())),
                })
            }
        }
    }

    fn expand_pairs(
        &self,
        ctx: &str,
        key: &str,
        pairs: &[(String, Raw)],
        place: fn(usize) -> SecretPlace,
    ) -> Result<Vec<(String, String)>> {
        pairs
            .iter()
            .enumerate()
            .map(|(i, (name, raw))| {
                Ok((name.clone(), self.expand_at(ctx, key, raw, Some(place(i)))?))
            })
            .collect()
    }

    /// How many unset variables the server being read has so far (see
    /// [`Parser::unset`]): a check of an expanded value is skipped when
    /// its expansion added one.
    pub(super) fn unset_count(&self) -> usize {
        self.unset.borrow().as_ref().map_or(0, Vec::len)
    }

    /// Expands `${VAR}` references in a string written for `key`, where
    /// no `${secret:NAME}` may be. In a server's table, a string with an
    /// unset variable is kept as written and the variable noted (see
    /// [`Parser::unset`]).
    pub(super) fn expand(&self, ctx: &str, key: &str, raw: &Raw) -> Result<String> {
        self.expand_at(ctx, key, raw, None)
    }

    /// [`Parser::expand`] for the string at `place` of a server, where
    /// `${secret:NAME}` references may be: they are kept as written, and
    /// the string noted (see [`Parser::secrets`]). `None`: a reference is
    /// an error that says where they may be.
    pub(super) fn expand_at(
        &self,
        ctx: &str,
        key: &str,
        raw: &Raw,
        place: Option<SecretPlace>,
    ) -> Result<String> {
        let lenient = |_: &str| Some(String::new());
        let lookup: &dyn Fn(&str) -> Option<String> = match self.env {
            Env::Lookup(lookup) => lookup,
            Env::Lenient => &lenient,
        };
        let deferred = self.unset.borrow().is_some();
        let expanded = expand::expand_pieces(&raw.text, lookup)
            .map_err(SecretHere::from)
            .and_then(|(pieces, missing)| {
                let secret = pieces.iter().find_map(|p| match p {
                    SecretPiece::Secret(name) => Some(name.clone()),
                    SecretPiece::Text(_) => None,
                });
                if let Some(name) = secret {
                    let Some(place) = place.filter(|_| deferred) else {
                        return Err(SecretHere::Refused(name));
                    };
                    if missing.is_empty() {
                        self.secrets.borrow_mut().push(SecretString {
                            place,
                            pieces: pieces.clone(),
                            written: Diagnostic::new(self.source, self.path, raw.span.clone(), ""),
                        });
                    }
                }
                Ok((expand::shown(&pieces), missing))
            });
        let expanded = match expanded {
            Ok(done) => Ok(done),
            Err(SecretHere::Refused(name)) => {
                return Err(self.error(
                    raw.span.clone(),
                    format!(
                        "{ctx}`${{secret:{name}}}` cannot be used in `{key}`; a secret can be in a server's `command`, `args`, `env` and `headers` values, `url`, and the `client_secret`, `id_token` and `idp_client_secret` of its [oauth] table{}",
                        if deferred { "" } else { " (write ${VAR} here, and set that variable)" }
                    ),
                ));
            }
            Err(SecretHere::Expand(e)) => Err(e),
        };
        let expanded = if deferred {
            expanded.map(|(text, missing)| {
                if missing.is_empty() {
                    return text;
                }
                let mut unset = self.unset.borrow_mut();
                let unset = unset.get_or_insert_with(Vec::new);
                for var in missing {
                    let message = format!(
                        "{ctx}the environment variable {var} is not set; set it, or give it a default in the config: ${{{var}:-default}} (${{{var}:-}} for an empty one)"
                    );
                    unset.push(UnsetVariable {
                        variable: var,
                        diagnostic: Diagnostic::new(
                            self.source,
                            self.path,
                            raw.span.clone(),
                            message,
                        ),
                    });
                }
                raw.text.clone()
            })
        } else {
            expanded.and_then(|(text, missing)| match missing.into_iter().next() {
                Some(var) => Err(ExpandError::Missing(var)),
                None => Ok(text),
            })
        };
        expanded.map_err(|error| {
            let message = match error {
                ExpandError::Missing(var) => format!(
                    "{ctx}the environment variable {var} is not set; set it, or write ${{{var}:-default}}"
                ),
                ExpandError::Unterminated => format!(
                    "{ctx}unterminated `${{` in `{key}`; close it with `}}`, or write `$$` for a literal `$`"
                ),
                ExpandError::InvalidReference(reference) => format!(
                    "{ctx}`{reference}` in `{key}` is not a valid variable reference; write ${{NAME}} or ${{NAME:-default}}, where NAME has only letters, digits and `_` (and `$$` for a literal `$`)"
                ),
                ExpandError::InvalidSecret(reference) => format!(
                    "{ctx}`{reference}` in `{key}` is not a valid secret reference; write ${{secret:NAME}}, where NAME is 1 to {} letters, digits, `_`, `.` or `-` (and `$$` for a literal `$`)",
                    expand::MAX_SECRET_NAME
                ),
            };
            self.error(raw.span.clone(), message)
        })
    }
}

/// Why [`Parser::expand_at`] could not expand a string.
enum SecretHere {
    Expand(ExpandError),
    /// A `${secret:NAME}` where none may be.
    Refused(String),
}

impl From<ExpandError> for SecretHere {
    fn from(e: ExpandError) -> Self {
        SecretHere::Expand(e)
    }
}

/// The entries of a table with the span of each key, in file order.
pub(super) fn entries(
    table: &dyn TableLike,
) -> impl Iterator<Item = (&str, Option<Range<usize>>, &Item)> {
    table
        .iter()
        .map(move |(key, item)| (key, table.key(key).and_then(Key::span), item))
}

/// `unknown key ...` with a did-you-mean suggestion, or the list of valid keys.
pub(crate) fn unknown_key_message(key: &str, place: &str, candidates: &[&str]) -> String {
    match suggest(key, candidates) {
        Some(suggestion) => {
            format!("unknown key `{key}` {place} — did you mean `{suggestion}`?")
        }
        None => {
            let valid: Vec<String> = candidates.iter().map(|c| format!("`{c}`")).collect();
            format!(
                "unknown key `{key}` {place}; valid keys are {}",
                valid.join(", ")
            )
        }
    }
}

/// The candidate closest to `key`, if it is close enough to be a typo.
pub(super) fn suggest<'c>(key: &str, candidates: &[&'c str]) -> Option<&'c str> {
    let key = key.to_ascii_lowercase();
    candidates
        .iter()
        .map(|&candidate| (strsim::damerau_levenshtein(&key, candidate), candidate))
        .filter(|&(distance, candidate)| distance <= (candidate.len() / 3).max(1))
        .min_by_key(|&(distance, _)| distance)
        .map(|(_, candidate)| candidate)
}

/// An HTTP header name (RFC 9110 token).
fn is_header_name(name: &str) -> bool {
    !name.is_empty()
        && name
            .chars()
            .all(|c| c.is_ascii_alphanumeric() || "!#$%&'*+-.^_`|~".contains(c))
}

pub(super) fn describe(item: &Item) -> &'static str {
    match item {
        Item::None => "nothing",
        Item::Value(value) => describe_value(value),
        Item::Table(_) => "a table",
        Item::ArrayOfTables(_) => "an array of tables",
    }
}

fn describe_value(value: &Value) -> &'static str {
    match value {
        Value::String(_) => "a string",
        Value::Integer(_) => "an integer",
        Value::Float(_) => "a float",
        Value::Boolean(_) => "a boolean",
        Value::Datetime(_) => "a date-time",
        Value::Array(_) => "an array",
        Value::InlineTable(_) => "a table",
    }
}

#[cfg(test)]
mod tests {
    use super::sections::{THEMES, built_in_theme};
    use super::*;

    fn no_env(_: &str) -> Option<String> {
        None
    }

    fn parse_err(text: &str) -> Diagnostic {
        let error = parse(text, Some(Path::new("c.toml")), Env::Lookup(&no_env)).unwrap_err();
        error
            .diagnostic()
            .cloned()
            .unwrap_or_else(|| panic!("{error}"))
    }

    fn at(diagnostic: &Diagnostic) -> (usize, usize) {
        let position = diagnostic.position().unwrap();
        (position.line, position.column)
    }

    #[test]
    fn suggestions() {
        assert_eq!(suggest("comand", SERVER_KEYS), Some("command"));
        assert_eq!(suggest("Command", SERVER_KEYS), Some("command"));
        assert_eq!(suggest("arg", SERVER_KEYS), Some("args"));
        assert_eq!(suggest("header", SERVER_KEYS), Some("headers"));
        assert_eq!(suggest("deny_tool", SERVER_KEYS), Some("deny_tools"));
        assert_eq!(
            suggest("request_timout", SETTINGS_KEYS),
            Some("request_timeout")
        );
        assert_eq!(suggest("server", TOP_LEVEL_KEYS), Some("servers"));
        assert_eq!(suggest("foo", SERVER_KEYS), None);
        assert_eq!(suggest("x", SERVER_KEYS), None);
    }

    #[test]
    fn server_names() {
        for good in ["a", "everything", "my-server.v2", "A_b-1.x"] {
            assert_eq!(check_server_name(good), Ok(()), "{good}");
        }
        assert!(
            check_server_name("")
                .unwrap_err()
                .contains("must not be empty")
        );
        assert!(
            check_server_name("my server")
                .unwrap_err()
                .contains("' ' is not allowed")
        );
        let message = check_server_name("a___b").unwrap_err();
        assert!(message.contains("must not contain `__`"), "{message}");
        assert!(message.contains("e.g. \"a_b\""), "{message}");
    }

    #[test]
    fn tool_patterns_are_checked() {
        let config = parse(
            "[servers.fs]\ncommand = \"x\"\ndeny_tools = [\"delete_*\", \"rm\"]\nallow_tools = [\"read_?ile\", \"*\"]\n",
            None,
            Env::Lookup(&no_env),
        )
        .unwrap();
        let fs = config.server("fs").unwrap();
        assert_eq!(fs.deny_tools, ["delete_*", "rm"]);
        assert_eq!(fs.allow_tools, ["read_?ile", "*"]);
        let d = parse_err("[servers.fs]\ncommand = \"x\"\nallow_tools = [\"ok\", \"\"]\n");
        assert_eq!(at(&d), (3, 22));
        assert!(
            d.message().contains("`allow_tools`: an empty entry"),
            "{}",
            d.message()
        );
        let d = parse_err("[servers.fs]\ncommand = \"x\"\ndeny_tools = [\" \"]\n");
        assert_eq!(at(&d), (3, 15));
        assert!(
            d.message().contains("server \"fs\": `deny_tools`"),
            "{}",
            d.message()
        );
    }

    #[test]
    fn capabilities_is_one_set_for_every_command() {
        use crate::mcp::session::Declared;
        let config = parse("", None, Env::Lookup(&no_env)).unwrap();
        assert_eq!(config.settings.capabilities, Declared::DEFAULT);
        let text = "[settings]\ncapabilities = \"roots,elicitation-form\"\n";
        let config = parse(text, None, Env::Lookup(&no_env)).unwrap();
        assert_eq!(
            config.settings.capabilities.words(),
            "roots,elicitation-form"
        );
        let d = parse_err("[settings]\ncapabilities = \"roots,tasks\"\n");
        assert!(
            d.message().contains("unknown capability \"tasks\""),
            "{}",
            d.message()
        );
    }

    #[test]
    fn oneshot_grace_is_its_own_setting() {
        let config = parse("", None, Env::Lookup(&no_env)).unwrap();
        assert_eq!(config.settings.oneshot_grace, Duration::from_millis(200));
        let text = "[settings]\noneshot_grace = 0.05\nshutdown_grace = 3\n";
        let config = parse(text, None, Env::Lookup(&no_env)).unwrap();
        assert_eq!(config.settings.oneshot_grace, Duration::from_millis(50));
        assert_eq!(config.settings.shutdown_grace, Duration::from_secs(3));
        let config = parse(
            "[settings]\noneshot_grace = 0\n",
            None,
            Env::Lookup(&no_env),
        );
        assert_eq!(config.unwrap().settings.oneshot_grace, Duration::ZERO);
        let d = parse_err("[settings]\noneshot_grace = -1\n");
        assert!(d.message().contains("oneshot_grace"), "{}", d.message());
        assert_eq!(
            suggest("oneshot_grase", SETTINGS_KEYS),
            Some("oneshot_grace")
        );
    }

    #[test]
    fn inline_and_dotted_servers() {
        let text =
            "servers.a = { command = \"x\", args = [\"1\"] }\nservers.b.url = \"http://h\"\n";
        let config = parse(text, None, Env::Lookup(&no_env)).unwrap();
        assert_eq!(config.servers.len(), 2);
        assert_eq!(config.servers[0], ServerConfig::stdio("a", "x", &["1"]));
        assert_eq!(config.servers[1], ServerConfig::http("b", "http://h"));
    }

    #[test]
    fn env_as_subtable_keeps_file_order() {
        let text = "[servers.a]\ncommand = \"x\"\n[servers.a.env]\nZ = \"1\"\nA = \"2\"\n";
        let config = parse(text, None, Env::Lookup(&no_env)).unwrap();
        let TransportConfig::Stdio { env, .. } = &config.servers[0].transport else {
            panic!("not stdio")
        };
        assert_eq!(
            env,
            &vec![
                ("Z".to_owned(), "1".to_owned()),
                ("A".to_owned(), "2".to_owned())
            ]
        );
    }

    #[test]
    fn value_errors_point_at_the_value() {
        let d = parse_err("[settings]\nrequest_timeout = \"60\"\n");
        assert_eq!(at(&d), (2, 19));
        assert_eq!(
            d.message(),
            "`request_timeout` must be a number of seconds, found a string"
        );

        let d = parse_err("[settings]\nprobe_timeout = 0\n");
        assert_eq!(d.message(), "`probe_timeout` must be greater than zero");
        let keys = parse(
            "[keys]\nquit = \"x\"\nsend = [\"ctrl-enter\", \"f5\"]\n",
            None,
            Env::Lookup(&no_env),
        )
        .unwrap()
        .keys;
        assert_eq!(
            keys,
            vec![
                ("quit".to_string(), vec!["x".to_string()]),
                (
                    "send".to_string(),
                    vec!["ctrl-enter".to_string(), "f5".to_string()]
                )
            ]
        );
        let theme = parse(
            "[theme]\naccent = \"#ff8800\"\n",
            None,
            Env::Lookup(&no_env),
        )
        .unwrap()
        .theme;
        assert_eq!(theme, vec![("accent".to_string(), "#ff8800".to_string())]);
        let d = parse_err("[theme]\naccent = 5\n");
        assert!(d.message().contains("must be a string"), "{}", d.message());
        let d = parse_err("[keys]\nquit = 5\n");
        assert!(
            d.message().contains("must be a key like"),
            "{}",
            d.message()
        );
        let d = parse_err("[settings]\nrequest_timeout = 1.8e19\n");
        assert!(
            d.message().contains("at most 604800 seconds"),
            "{}",
            d.message()
        );
        let d = parse_err("[servers.x]\ncommand = \"x\"\ntimeout = 604801\n");
        assert!(d.message().contains("at most"), "{}", d.message());
        let d = parse_err("[settings]\nframe_log = 1.5\n");
        assert_eq!(
            d.message(),
            "`frame_log` must be a whole number of frames, found a float"
        );
        let d = parse_err("[settings]\nstderr_lines = -1\n");
        assert_eq!(d.message(), "`stderr_lines` must not be negative, found -1");
        let d = parse_err("[settings]\nconnect_timeout = 1e300\n");
        assert_eq!(d.message(), "`connect_timeout` is too large, found 1e300");
        let d = parse_err("[settings]\nconnect_timeout = inf\n");
        assert_eq!(
            d.message(),
            "`connect_timeout` must be a finite number of seconds, found inf"
        );
        let d = parse_err("[servers.a]\ncommand = \"x\"\nargs = [\"a\", 2]\n");
        assert_eq!(at(&d), (3, 14));
        assert_eq!(
            d.message(),
            "server \"a\": `args` must be an array of strings, but element 2 is an integer"
        );
        let d = parse_err("[servers.a]\ncommand = \"x\"\nenv = { A = 1 }\n");
        assert_eq!(at(&d), (3, 13));
        assert_eq!(
            d.message(),
            "server \"a\": `env.A` must be a string, found an integer"
        );
        let d = parse_err("[servers.a]\ncommand = \"x\"\nenabled = \"yes\"\n");
        assert_eq!(
            d.message(),
            "server \"a\": `enabled` must be true or false, found a string"
        );
        let d = parse_err("[servers.a]\ncommand = \"\"\n");
        assert_eq!(d.message(), "server \"a\": `command` must not be empty");
        let d = parse_err("[servers.a]\nurl = \"ftp://${X:-h}\"\n");
        assert_eq!(
            d.message(),
            "server \"a\": `url` must start with http:// or https://, found \"ftp://${X:-h}\""
        );
        let d = parse_err("[servers.a]\nurl = \"http://h\"\nheaders = { \"Bad Name\" = \"x\" }\n");
        assert_eq!(at(&d), (3, 13));
        let d = parse_err("[servers.a]\ncommand = \"x\"\ntimeout = -0.5\n");
        assert_eq!(
            d.message(),
            "server \"a\": `timeout` must not be negative, found -0.5"
        );
    }

    #[test]
    fn secrets_are_kept_where_they_may_be_and_refused_elsewhere() {
        let ok = |text: &str| {
            parse(text, Some(Path::new("c.toml")), Env::Lookup(&no_env)).expect("parses")
        };
        let c = ok(
            "[servers.h]\nurl = \"${secret:URL}\"\nheaders = { A = \"x\", B = \"Bearer ${secret:T}\" }\n[servers.h.oauth]\nclient_secret = \"${secret:CS}\"\n",
        );
        let h = &c.servers[0];
        assert_eq!(h.secret_names(), vec!["URL", "T", "CS"]);
        let places: Vec<SecretPlace> = h.secrets.iter().map(|s| s.place).collect();
        assert_eq!(
            places,
            vec![
                SecretPlace::Url,
                SecretPlace::Header(1),
                SecretPlace::OAuthClientSecret,
            ]
        );
        let TransportConfig::Http { url, headers, .. } = &h.transport else {
            panic!("http")
        };
        assert_eq!(url, "${secret:URL}");
        assert_eq!(headers[1].1, "Bearer ${secret:T}");
        assert_eq!(at(&h.secrets[1].written), (3, 26));
        // A literal `$${secret:X}` is no reference.
        let c = ok("[servers.s]\ncommand = \"x\"\nargs = [\"$${secret:X}\", \"${secret:Y}\"]\n");
        assert_eq!(c.servers[0].secret_names(), vec!["Y"]);
        assert_eq!(c.servers[0].secrets[0].place, SecretPlace::Arg(1));
        // With an unset variable in the same string, the string is kept as
        // written and the server cannot start anyway.
        let c = ok("[servers.s]\ncommand = \"x\"\nenv = { K = \"${NOPE}${secret:Y}\" }\n");
        assert!(c.servers[0].secrets.is_empty());
        assert_eq!(c.servers[0].unset.len(), 1);

        for (text, key) in [
            (
                "[servers.s]\ncommand = \"x\"\ncwd = \"${secret:D}\"\n",
                "cwd",
            ),
            (
                "[servers.s]\nurl = \"http://h\"\n[servers.s.oauth]\nclient_id = \"${secret:I}\"\n",
                "client_id",
            ),
            ("[settings]\nbrowser = \"${secret:B}\"\n", "browser"),
        ] {
            let d = parse_err(text);
            assert!(
                d.message().contains(&format!("cannot be used in `{key}`")),
                "{d}"
            );
        }
        let d = parse_err("[settings]\nbrowser = \"${secret:B}\"\n");
        assert!(
            d.message()
                .ends_with("(write ${VAR} here, and set that variable)"),
            "{d}"
        );
        let d = parse_err("[servers.s]\ncommand = \"x\"\nargs = [\"${secret:a b}\"]\n");
        assert_eq!(at(&d), (3, 9));
        assert!(
            d.message().starts_with(
                "server \"s\": `${secret:a b}` in `args` is not a valid secret reference"
            ),
            "{d}"
        );
    }

    #[test]
    fn structural_errors() {
        let d = parse_err("[[servers]]\ncommand = \"x\"\n");
        assert!(
            d.message()
                .contains("found an array of tables ([[servers]])"),
            "{d}"
        );
        let d = parse_err("servers = 3\n");
        assert_eq!(at(&d), (1, 11));
        let d = parse_err("[servers]\na = \"x\"\n");
        assert_eq!(
            d.message(),
            "server \"a\" must be a table like [servers.a], found a string"
        );
        let d = parse_err("settings = []\n");
        assert_eq!(
            d.message(),
            "`settings` must be a table ([settings]), found an array"
        );
        let d = parse_err("[everything]\ncommand = \"x\"\n");
        assert_eq!(
            d.message(),
            "unknown top-level table `everything`; servers are declared as [servers.everything]"
        );
        let d = parse_err("[servers.a]\ncommand = \"x\"\nrequest_timeout = 3\n");
        assert_eq!(
            d.message(),
            "unknown key `request_timeout` in server \"a\"; it belongs in [settings] (the per-server override is `timeout`)"
        );
        let d = parse_err("[servers.a]\ncommand = \"x\"\nbogus = 3\n");
        assert!(
            d.message().starts_with(
                "unknown key `bogus` in server \"a\"; valid keys are `command`, `args`"
            ),
            "{d}"
        );
    }

    #[test]
    fn lenient_mode_only_checks_structure() {
        let text = "[servers.a]\nurl = \"${URL}\"\nheaders = { X = \"${TOKEN}\" }\n";
        let strict = parse(text, None, Env::Lookup(&no_env)).unwrap();
        assert_eq!(strict.servers[0].unset.len(), 2);
        let config = parse(text, None, Env::Lenient).unwrap();
        assert_eq!(config.servers[0].name, "a");
        assert!(config.servers[0].unset.is_empty());
        assert!(parse("[servers.a]\nurl = \"${\"\n", None, Env::Lenient).is_err());
    }

    #[test]
    fn a_theme_name_picks_a_built_in_theme_under_the_user_s_roles() {
        let theme = |text: &str| parse(text, None, Env::Lookup(&no_env)).unwrap().theme;
        let light = theme("[theme]\nname = \"light\"\n");
        let file = include_str!("../../../assets/themes/light.toml");
        assert!(!light.is_empty());
        for (role, colour) in &light {
            assert!(file.contains(&format!("{role} = \"{colour}\"")), "{role}");
        }
        // The user's roles come after the theme's, wherever `name` is.
        let mine = theme("[theme]\naccent = \"red\"\nname = \"light\"\n");
        assert_eq!(mine[..light.len()], light[..]);
        assert_eq!(mine[light.len()..], [("accent".into(), "red".into())]);
        for (name, _) in THEMES {
            let roles = theme(&format!("[theme]\nname = {name:?}\n"));
            assert!(roles.len() >= 9, "{name}: {roles:?}");
        }
        let d = parse_err("[theme]\nmuted = \"gray\"\nname = \"lihgt\"\n");
        assert_eq!(at(&d), (3, 8));
        assert_eq!(
            d.message(),
            "unknown theme \"lihgt\"; the built-in themes are \"default\", \"light\", \"high-contrast\" — did you mean \"light\"?"
        );
        let d = parse_err("[theme]\nname = \"solarized\"\n");
        assert!(
            d.message().contains("the built-in themes are"),
            "{}",
            d.message()
        );
        assert!(built_in_theme("nope").is_err());
    }
}
