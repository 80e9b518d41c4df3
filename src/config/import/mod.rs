//! Import of the servers other MCP clients know (see CLIENT-CONFIGS.md):
//! where their files are ([`clients`]), reading each format
//! ([`json_clients`], [`zed`], [`codex`], [`registry`]), translating
//! variables ([`vars`]), and deciding what to add to mcpdeck's config
//! ([`plan`]: duplicates, name clashes, what is already there).
//!
//! An [`Imported`] server holds its strings as they are written in
//! mcpdeck's config: `${VAR}` is a reference, `$$` a literal `$`.

pub mod clients;
mod codex;
mod json_clients;
mod registry;
pub mod vars;
mod zed;

use std::fs;
use std::io::Read;
use std::path::{Path, PathBuf};
use std::time::Duration;

pub use clients::{Client, Locations};

use super::model::{HttpTransportKind, ServerConfig, TransportConfig};
use super::parse::check_server_name;

/// The largest file import reads.
pub const MAX_FILE_SIZE: u64 = 10 * 1024 * 1024;

/// Where an imported server came from.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Origin {
    Client(Client),
    /// A registry `server.json`.
    Registry,
}

impl Origin {
    /// The name in `--json` (`claude-code`, …, `registry`).
    pub fn name(self) -> &'static str {
        match self {
            Origin::Client(c) => c.name(),
            Origin::Registry => "registry",
        }
    }

    pub fn label(self) -> &'static str {
        match self {
            Origin::Client(c) => c.label(),
            Origin::Registry => "the MCP registry's server.json",
        }
    }
}

/// One server read from another client's file, normalised.
#[derive(Debug, Clone, PartialEq)]
pub struct Imported {
    /// The name it will have in mcpdeck (after the checks of [`plan`]).
    pub name: String,
    pub client: Origin,
    /// The file it was read from.
    pub path: PathBuf,
    /// The server, strings as written in mcpdeck's config.
    pub server: ServerConfig,
    /// Everything the user should know about this server.
    pub warnings: Vec<String>,
}

/// A file or an entry that could not be imported.
#[derive(Debug, Clone, PartialEq)]
pub struct ImportError {
    /// The client's name, `registry`, or `unknown`.
    pub client: String,
    pub path: PathBuf,
    pub message: String,
    /// The whole file failed (it does not parse, cannot be read, …), as
    /// opposed to one entry of it.
    pub fatal: bool,
}

/// What reading one file gave.
#[derive(Debug, Default)]
pub struct FileResult {
    pub servers: Vec<Imported>,
    pub errors: Vec<ImportError>,
}

/// Context for reading a file.
pub(crate) struct Ctx<'a> {
    pub origin: Origin,
    pub path: &'a Path,
    /// The folder `${workspaceFolder}` stands for.
    pub folder: PathBuf,
    /// The current directory (Claude Code's local scope).
    pub cwd: &'a Path,
}

impl Ctx<'_> {
    fn entry_error(&self, name: &str, message: impl std::fmt::Display) -> ImportError {
        ImportError {
            client: self.origin.name().to_owned(),
            path: self.path.to_path_buf(),
            message: format!("server \"{}\": {message}", crate::sanitize::one_line(name)),
            fatal: false,
        }
    }

    fn file_error(&self, message: impl Into<String>) -> ImportError {
        ImportError {
            client: self.origin.name().to_owned(),
            path: self.path.to_path_buf(),
            message: message.into(),
            fatal: true,
        }
    }

    fn imported(&self, name: &str, server: ServerConfig, warnings: Vec<String>) -> Imported {
        Imported {
            name: name.to_owned(),
            client: self.origin,
            path: self.path.to_path_buf(),
            server,
            warnings,
        }
    }
}

/// Reads one file. `client` is the client it belongs to when known;
/// otherwise the format is detected from the name and content.
pub fn read_file(path: &Path, client: Option<Client>, cwd: &Path) -> FileResult {
    let guessed = client.or_else(|| Client::from_path(path));
    let client_name = guessed.map_or("unknown", Client::name);
    let fail = |message: String| FileResult {
        servers: Vec::new(),
        errors: vec![ImportError {
            client: client_name.to_owned(),
            path: path.to_path_buf(),
            message,
            fatal: true,
        }],
    };
    let text = match read_text(path) {
        Ok(text) => text,
        Err(message) => return fail(message),
    };
    let is_toml = path.extension().is_some_and(|e| e == "toml");
    let origin = match guessed {
        Some(client) => Origin::Client(client),
        None if is_toml => Origin::Client(Client::Codex),
        None => match json_clients::parse_jsonc(&text, path) {
            Ok(value) => match detect(&value) {
                Some(origin) => origin,
                None => {
                    return fail(format!(
                        "{}: not a file mcpdeck can import from: no `mcpServers`, `servers`, `context_servers` or `mcp_servers`, and not a registry server.json",
                        path.display()
                    ));
                }
            },
            Err(message) => return fail(message),
        },
    };
    let folder = project_folder(path);
    let ctx = Ctx {
        origin,
        path,
        folder,
        cwd,
    };
    let mut result = FileResult::default();
    match origin {
        Origin::Client(Client::Codex) => codex::read(&ctx, &text, &mut result),
        Origin::Client(Client::Zed) => zed::read(&ctx, &text, &mut result),
        Origin::Registry => registry::read(&ctx, &text, &mut result),
        Origin::Client(_) => json_clients::read(&ctx, &text, &mut result),
    }
    result
}

/// Which format a JSON document of unknown origin is in.
fn detect(value: &serde_json::Value) -> Option<Origin> {
    let object = value.as_object()?;
    if object.contains_key("packages") || object.contains_key("remotes") {
        return Some(Origin::Registry);
    }
    if object.contains_key("context_servers") {
        return Some(Origin::Client(Client::Zed));
    }
    if object.contains_key("servers")
        || value.get("mcp").is_some_and(|m| m.get("servers").is_some())
    {
        return Some(Origin::Client(Client::VsCode));
    }
    let servers = object.get("mcpServers")?.as_object()?;
    let has = |key: &str| servers.values().any(|entry| entry.get(key).is_some());
    Some(Origin::Client(if has("serverUrl") {
        Client::Windsurf
    } else if has("httpUrl") {
        Client::Gemini
    } else {
        Client::ClaudeCode
    }))
}

/// The folder a file belongs to: the project for a file in `.vscode`,
/// `.cursor`, … , else the file's own folder.
fn project_folder(path: &Path) -> PathBuf {
    let absolute = std::path::absolute(path).unwrap_or_else(|_| path.to_path_buf());
    let parent = absolute.parent().unwrap_or(Path::new("/"));
    let hidden = parent
        .file_name()
        .and_then(|n| n.to_str())
        .is_some_and(|n| matches!(n, ".vscode" | ".cursor" | ".zed" | ".gemini"));
    if hidden {
        parent.parent().unwrap_or(parent).to_path_buf()
    } else {
        parent.to_path_buf()
    }
}

/// The file's text: at most [`MAX_FILE_SIZE`], UTF-8; symlink loops and
/// unreadable files are clear messages.
fn read_text(path: &Path) -> Result<String, String> {
    let shown = path.display();
    let file = fs::File::open(path).map_err(|e| {
        if e.raw_os_error() == Some(libc::ELOOP) {
            format!("{shown}: a symbolic link loop; point the link at a real file")
        } else if e.kind() == std::io::ErrorKind::PermissionDenied {
            format!("{shown}: cannot read it (permission denied); check its permissions")
        } else {
            format!("{shown}: cannot read it: {e}")
        }
    })?;
    let meta = file
        .metadata()
        .map_err(|e| format!("{shown}: cannot read it: {e}"))?;
    if meta.is_dir() {
        return Err(format!("{shown}: is a directory, not a file"));
    }
    if meta.len() > MAX_FILE_SIZE {
        return Err(format!(
            "{shown}: the file is {} MB, over the 10 MB import limit; it was skipped",
            meta.len() / (1024 * 1024)
        ));
    }
    let mut bytes = Vec::new();
    file.take(MAX_FILE_SIZE + 1)
        .read_to_end(&mut bytes)
        .map_err(|e| format!("{shown}: cannot read it: {e}"))?;
    if bytes.len() as u64 > MAX_FILE_SIZE {
        return Err(format!(
            "{shown}: over the 10 MB import limit; it was skipped"
        ));
    }
    String::from_utf8(bytes).map_err(|e| {
        format!(
            "{shown}: not UTF-8 text (invalid byte at offset {})",
            e.utf8_error().valid_up_to()
        )
    })
}

/// The files to read: every client's user files and the project files of
/// `cwd` (only those that exist), each once.
pub fn discover(clients: &[Client], at: &Locations, cwd: &Path) -> Vec<(Client, PathBuf)> {
    let mut files: Vec<(Client, PathBuf)> = Vec::new();
    let mut seen: Vec<PathBuf> = Vec::new();
    for &client in clients {
        for path in client
            .user_files(at)
            .into_iter()
            .chain(client.project_files(cwd))
        {
            // A dangling link or a loop is still reported (symlink_metadata).
            if fs::symlink_metadata(&path).is_err() {
                continue;
            }
            let key = fs::canonicalize(&path).unwrap_or_else(|_| path.clone());
            if seen.contains(&key) {
                continue;
            }
            seen.push(key);
            files.push((client, path));
        }
    }
    files
}

// ----- building servers -----

/// The parts of an entry every format has, before they become a
/// [`ServerConfig`]. Strings are already translated.
#[derive(Debug, Default)]
pub(crate) struct Draft {
    pub command: Option<String>,
    pub args: Vec<String>,
    pub env: Vec<(String, String)>,
    pub cwd: Option<String>,
    pub url: Option<String>,
    pub headers: Vec<(String, String)>,
    /// `type` as written.
    pub kind: Option<String>,
    /// Transport when the format says it without `type` (Gemini `url`).
    pub implied: Option<HttpTransportKind>,
    pub enabled: bool,
    pub deny_tools: Vec<String>,
    pub timeout: Option<Duration>,
}

impl Draft {
    pub fn new() -> Self {
        Draft {
            enabled: true,
            ..Draft::default()
        }
    }

    /// The server, or why the entry cannot be one.
    pub fn build(self, name: &str, warnings: &mut Vec<String>) -> Result<ServerConfig, String> {
        let http_kind = match self.kind.as_deref() {
            None => None,
            Some("stdio") => None,
            Some("http" | "streamable-http" | "streamableHttp" | "streamable_http") => {
                Some(HttpTransportKind::StreamableHttp)
            }
            Some("sse") => Some(HttpTransportKind::Sse),
            Some(other) => {
                return Err(format!(
                    "unknown type \"{}\"; mcpdeck knows \"stdio\", \"http\", \"streamable-http\" and \"sse\"",
                    crate::sanitize::one_line(other)
                ));
            }
        };
        for (key, value) in self.env.iter().chain(&self.headers) {
            if vars::looks_secret(key, value) {
                let instead = if key.eq_ignore_ascii_case("authorization") {
                    "Bearer ${TOKEN}".to_owned()
                } else {
                    format!("${{{}}}", vars::input_variable(key))
                };
                warnings.push(format!(
                    "`{key}` holds a secret written in clear; it was imported as it is — consider `{instead}` and setting that variable instead, or `mcpdeck import --move-secrets`, which keeps it in mcpdeck's credential store"
                ));
            }
        }
        let transport = match (self.command, self.url) {
            (Some(_), Some(_)) => {
                return Err("has both a command and a URL; keep one in the client's file".into());
            }
            (None, None) => {
                return Err(
                    "has neither `command` nor `url`; it cannot be started or reached".into(),
                );
            }
            (Some(command), None) => {
                if self.kind.as_deref().is_some_and(|k| k != "stdio") {
                    return Err(format!(
                        "type \"{}\" needs a URL, but the entry has a command",
                        self.kind.unwrap_or_default()
                    ));
                }
                if command.trim().is_empty() {
                    return Err("`command` is empty".into());
                }
                if let Some(cwd) = &self.cwd
                    && !cwd.starts_with("${")
                    && Path::new(cwd).is_relative()
                {
                    warnings.push(format!(
                        "the working directory \"{cwd}\" is relative: mcpdeck starts the server there relative to its own current directory; make it absolute if the server needs a fixed folder"
                    ));
                }
                TransportConfig::Stdio {
                    command,
                    args: self.args,
                    env: self.env,
                    cwd: self.cwd.map(PathBuf::from),
                }
            }
            (None, Some(url)) => {
                if self.kind.as_deref() == Some("stdio") {
                    return Err("type \"stdio\" needs a command, but the entry has a URL".into());
                }
                if !(url.starts_with("http://")
                    || url.starts_with("https://")
                    || url.starts_with("${"))
                {
                    return Err(format!(
                        "URL \"{}\" is not http:// or https://",
                        crate::sanitize::one_line(&url)
                    ));
                }
                TransportConfig::Http {
                    url,
                    headers: self.headers,
                    transport: http_kind.or(self.implied).unwrap_or_default(),
                    ca_file: None,
                    insecure: false,
                    oauth: None,
                }
            }
        };
        Ok(ServerConfig {
            name: name.to_owned(),
            transport,
            enabled: self.enabled,
            deny_tools: self.deny_tools,
            allow_tools: Vec::new(),
            protocol: Default::default(),
            timeout: self.timeout,
            lint: Default::default(),
            roots: None,
            unset: Vec::new(),
            secrets: Vec::new(),
        })
    }
}

/// A secret written in clear in an imported server's `env` or `headers`
/// (what [`Draft::build`] warns about), which can move into mcpdeck's
/// credential store ([`refer_to_secret`]).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct ClearSecret {
    /// The variable or header name.
    pub key: String,
    /// A header (else an `env` variable).
    pub header: bool,
    /// Its index in `env` or `headers`.
    index: usize,
    /// The secret itself, as the server gets it (`$$` read as `$`).
    pub value: String,
    /// What stays written before the reference: the scheme of an
    /// `Authorization` header (`Bearer `), else nothing.
    pub prefix: String,
}

/// The secrets `server` has written in clear, in `env` then `headers`
/// order (the values [`vars::looks_secret`] finds).
pub fn clear_secrets(server: &ServerConfig) -> Vec<ClearSecret> {
    let (pairs, header): (&[(String, String)], bool) = match &server.transport {
        TransportConfig::Stdio { env, .. } => (env, false),
        TransportConfig::Http { headers, .. } => (headers, true),
    };
    let mut out = Vec::new();
    for (index, (key, written)) in pairs.iter().enumerate() {
        if !vars::looks_secret(key, written) {
            continue;
        }
        // Only `$$` can be in it (no `${`): the value the server gets.
        let value = written.replace("$$", "$");
        let (prefix, value) = match value.split_once(' ') {
            Some((scheme, rest))
                if header
                    && key.eq_ignore_ascii_case("authorization")
                    && !rest.trim().is_empty()
                    && scheme.len() <= 16
                    && scheme.chars().all(|c| c.is_ascii_alphabetic() || c == '-') =>
            {
                (format!("{scheme} "), rest.trim().to_string())
            }
            _ => (String::new(), value),
        };
        out.push(ClearSecret {
            key: key.clone(),
            header,
            index,
            value,
            prefix,
        });
    }
    out
}

/// Writes `${secret:NAME}` (after its prefix) where `secret` was written
/// in clear in `server`, and says so in `warnings` instead of the warning
/// about the secret in clear (`stored`: it is in the store; else, a dry
/// run, it would be).
pub fn refer_to_secret(
    server: &mut ServerConfig,
    warnings: &mut Vec<String>,
    secret: &ClearSecret,
    name: &str,
    stored: bool,
) {
    let pairs = match &mut server.transport {
        TransportConfig::Stdio { env, .. } if !secret.header => env,
        TransportConfig::Http { headers, .. } if secret.header => headers,
        _ => return,
    };
    let Some((_, value)) = pairs.get_mut(secret.index) else {
        return;
    };
    *value = format!(
        "{}${{secret:{name}}}",
        super::expand::escape(&secret.prefix)
    );
    let clear = format!("`{}` holds a secret written in clear", secret.key);
    warnings.retain(|w| !w.starts_with(&clear));
    warnings.push(format!(
        "`{}`: its secret {} mcpdeck's credential store as {name}, written `${{secret:{name}}}`",
        secret.key,
        if stored { "is in" } else { "would go into" }
    ));
}

/// A usable name for `name`: the same when valid, else a suggestion
/// (letters, digits, `_`, `.`, `-`; no `__`) with a warning.
pub fn usable_name(name: &str, warnings: &mut Vec<String>) -> String {
    if check_server_name(name).is_ok() {
        return name.to_owned();
    }
    let mut fixed: String = name
        .chars()
        .map(|c| {
            if c.is_ascii_alphanumeric() || matches!(c, '_' | '.' | '-') {
                c
            } else {
                '-'
            }
        })
        .collect();
    while fixed.contains("__") {
        fixed = fixed.replace("__", "_");
    }
    while fixed.contains("--") {
        fixed = fixed.replace("--", "-");
    }
    let fixed = fixed.trim_matches('-').to_owned();
    let fixed = if fixed.is_empty() {
        "server".to_owned()
    } else {
        fixed
    };
    warnings.push(format!(
        "the name \"{}\" cannot be used in mcpdeck (only letters, digits, `_`, `.` and `-`, and never `__`); it was imported as \"{fixed}\"",
        crate::sanitize::one_line(name)
    ));
    fixed
}

// ----- what to add -----

/// What to do with a name that is taken by a different server.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub enum OnConflict {
    /// Import it as NAME-2 (NAME-3, …) with a warning.
    #[default]
    Rename,
    /// Leave it out.
    Skip,
    /// Replace the server of that name.
    Replace,
}

/// What an import will do to the config.
#[derive(Debug, Default)]
pub struct Plan {
    /// Servers to add (or, when named in `replace`, to put in place of the
    /// server of that name), with their final names.
    pub add: Vec<Imported>,
    /// Names of servers already in the config that are replaced.
    pub replace: Vec<String>,
    /// Servers found that are already there under some name.
    pub unchanged: Vec<Imported>,
    /// Servers left out because of `--on-conflict skip`.
    pub skipped: Vec<Imported>,
}

/// Decides what to add, given the servers already in the config
/// (`existing`, strings as written) and what was found, in order.
pub fn plan(existing: &[ServerConfig], found: Vec<Imported>, on_conflict: OnConflict) -> Plan {
    let mut plan = Plan::default();
    // The same server is the same command or URL: whether it is enabled
    // and which tools it denies are this config's own choices (disabling a
    // server must not make the next import add it again as NAME-2).
    let same = |a: &ServerConfig, b: &ServerConfig| {
        let (a, b) = (normalized(a), normalized(b));
        a.transport == b.transport && a.timeout == b.timeout
    };
    for mut item in found {
        // `mcpdeck serve` in front of mcpdeck's own servers (what `export
        // --via-serve` writes): importing it would have mcpdeck front
        // itself.
        if let Some(fronted) = fronts_mcpdeck(&item.server) {
            item.warnings.push(format!(
                "it runs `mcpdeck serve` in front of {fronted} (written by `mcpdeck export --via-serve`): not imported, as mcpdeck would front itself"
            ));
            plan.skipped.push(item);
            continue;
        }
        // Already in the config or in this import under the name?
        let taken = |name: &str, plan: &Plan| -> Option<ServerConfig> {
            if let Some(i) = plan.add.iter().find(|i| i.name == name) {
                return Some(i.server.clone());
            }
            if plan.replace.iter().any(|r| r == name) {
                return None;
            }
            existing.iter().find(|s| s.name == name).cloned()
        };
        match taken(&item.name, &plan) {
            None => {
                item.server.name = item.name.clone();
                plan.add.push(item);
            }
            Some(there) if same(&there, &item.server) => plan.unchanged.push(item),
            Some(_) => match on_conflict {
                OnConflict::Skip => {
                    item.warnings.push(format!(
                        "a different server named \"{}\" is already there; this one was skipped (--on-conflict skip)",
                        item.name
                    ));
                    plan.skipped.push(item);
                }
                OnConflict::Replace => {
                    item.warnings.push(format!(
                        "it replaces the server named \"{}\" that was there (--on-conflict replace)",
                        item.name
                    ));
                    item.server.name = item.name.clone();
                    if let Some(index) = plan.add.iter().position(|i| i.name == item.name) {
                        plan.add[index] = item;
                    } else {
                        plan.replace.push(item.name.clone());
                        plan.add.push(item);
                    }
                }
                OnConflict::Rename => {
                    let mut n = 2;
                    loop {
                        let candidate = format!("{}-{n}", item.name);
                        match taken(&candidate, &plan) {
                            None => {
                                item.warnings.push(format!(
                                    "a different server named \"{}\" is already there; this one was imported as \"{candidate}\"",
                                    item.name
                                ));
                                item.name = candidate.clone();
                                item.server.name = candidate;
                                plan.add.push(item);
                                break;
                            }
                            Some(there) if same(&there, &item.server) => {
                                item.name = candidate;
                                plan.unchanged.push(item);
                                break;
                            }
                            Some(_) => n += 1,
                        }
                    }
                }
            },
        }
    }
    plan
}

/// What a server that is `mcpdeck serve` (any mcpdeck executable, run
/// directly) fronts: `"seq"`, or `"the servers of CONFIG"`; `None` for
/// another server.
fn fronts_mcpdeck(server: &ServerConfig) -> Option<String> {
    let TransportConfig::Stdio { command, args, .. } = &server.transport else {
        return None;
    };
    let program = Path::new(command).file_name()?.to_str()?;
    let own = std::env::current_exe()
        .ok()
        .is_some_and(|exe| exe == Path::new(command));
    if !(own || program == "mcpdeck" || program == "mcpdeck.exe") {
        return None;
    }
    // The flags that take a value (`--roots` takes several, up to the next
    // flag): their values are neither the command nor a served name.
    const VALUED: &[&str] = &[
        "--config",
        "--record",
        "--log-file",
        "--capabilities",
        "--http",
    ];
    let mut words = args.iter().map(String::as_str).peekable();
    let mut positional = Vec::new();
    while let Some(word) = words.next() {
        if VALUED.contains(&word) {
            words.next();
        } else if word == "--roots" {
            while words
                .peek()
                .is_some_and(|w| !w.starts_with('-') && *w != "serve")
            {
                words.next();
            }
        } else if !word.starts_with('-') {
            positional.push(word);
        }
    }
    let (&first, named) = positional.split_first()?;
    if first != "serve" {
        return None;
    }
    Some(if named.is_empty() {
        "mcpdeck's own servers".to_string()
    } else {
        named
            .iter()
            .map(|n| format!("\"{}\"", crate::sanitize::one_line(n)))
            .collect::<Vec<_>>()
            .join(", ")
    })
}

/// The servers of mcpdeck's config `text` with their strings as written
/// (`${VAR}` kept as a reference, `$$` for a literal `$`), for comparison
/// with imported ones. An invalid file is an error.
pub fn existing_servers(text: &str, path: &Path) -> Result<Vec<ServerConfig>, super::ConfigError> {
    let config = super::parse::parse(text, Some(path), super::parse::Env::Lenient)?;
    let raw: toml::Table = text.parse().unwrap_or_default();
    let servers = raw.get("servers").and_then(toml::Value::as_table);
    Ok(config
        .servers
        .into_iter()
        .map(|mut server| {
            if let Some(table) = servers
                .and_then(|s| s.get(&server.name))
                .and_then(toml::Value::as_table)
            {
                written_strings(&mut server, table);
            }
            server
        })
        .collect())
}

/// Puts the strings of `table` (as written) into `server`.
fn written_strings(server: &mut ServerConfig, table: &toml::Table) {
    let text = |key: &str| {
        table
            .get(key)
            .and_then(toml::Value::as_str)
            .map(str::to_owned)
    };
    let pairs = |key: &str| -> Vec<(String, String)> {
        table
            .get(key)
            .and_then(toml::Value::as_table)
            .map(|t| {
                t.iter()
                    .filter_map(|(k, v)| Some((k.clone(), v.as_str()?.to_owned())))
                    .collect()
            })
            .unwrap_or_default()
    };
    match &mut server.transport {
        TransportConfig::Stdio {
            command,
            args,
            env,
            cwd,
        } => {
            if let Some(c) = text("command") {
                *command = c;
            }
            if let Some(list) = table.get("args").and_then(toml::Value::as_array) {
                *args = list
                    .iter()
                    .filter_map(|a| a.as_str().map(str::to_owned))
                    .collect();
            }
            *env = pairs("env");
            *cwd = text("cwd").map(PathBuf::from);
        }
        TransportConfig::Http { url, headers, .. } => {
            if let Some(u) = text("url") {
                *url = u;
            }
            *headers = pairs("headers");
        }
    }
}

/// `$$` for every `$` that does not start a `${…}` reference.
fn escape_literals(text: &str) -> String {
    let mut out = String::with_capacity(text.len());
    let mut rest = text;
    while let Some(dollar) = rest.find('$') {
        out.push_str(&rest[..dollar]);
        let after = &rest[dollar + 1..];
        if let Some(body) = after.strip_prefix('{')
            && let Some(close) = body.find('}')
            && (vars::is_variable_name(body[..close].split(":-").next().unwrap_or(""))
                || body[..close]
                    .strip_prefix(super::expand::SECRET_PREFIX)
                    .is_some_and(super::expand::is_secret_name))
        {
            out.push_str(&rest[dollar..dollar + 2 + close + 1]);
            rest = &body[close + 1..];
        } else {
            out.push_str("$$");
            rest = after;
        }
    }
    out.push_str(rest);
    out
}

/// `server` with `${VAR:-default}` read as `${VAR}` and literal `$` as
/// `$$`, the form [`existing_servers`] gives.
fn normalized(server: &ServerConfig) -> ServerConfig {
    let keep = |name: &str| Some(format!("${{{name}}}"));
    let mut server = server.clone();
    rewrite_strings(&mut server, |t| {
        let expanded = super::expand::expand(t, &keep).unwrap_or_else(|_| t.to_owned());
        escape_literals(&expanded)
    });
    // `auto` tries streamable HTTP first: a client that names streamable
    // HTTP (Gemini's `httpUrl`) means the same server as mcpdeck's `auto`
    // (so exporting and importing back adds nothing).
    if let TransportConfig::Http { transport, .. } = &mut server.transport
        && *transport == super::HttpTransportKind::StreamableHttp
    {
        *transport = super::HttpTransportKind::Auto;
    }
    server
}

fn rewrite_strings(server: &mut ServerConfig, f: impl Fn(&str) -> String) {
    match &mut server.transport {
        TransportConfig::Stdio {
            command, args, env, ..
        } => {
            *command = f(command);
            for a in args.iter_mut() {
                *a = f(a);
            }
            for (_, v) in env.iter_mut() {
                *v = f(v);
            }
        }
        TransportConfig::Http { url, headers, .. } => {
            *url = f(url);
            for (_, v) in headers.iter_mut() {
                *v = f(v);
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn secrets_in_clear_are_found_and_replaced_by_references() {
        let mut http = ServerConfig::http("gh", "https://x/mcp");
        if let TransportConfig::Http { headers, .. } = &mut http.transport {
            *headers = vec![
                ("Authorization".into(), "Bearer ghp_1$$2".into()),
                ("Accept".into(), "text/plain".into()),
                ("X-Api-Key".into(), "k-9".into()),
                ("X-Token".into(), "${TOK}".into()),
            ];
        }
        let found = clear_secrets(&http);
        assert_eq!(
            found
                .iter()
                .map(|s| (s.key.as_str(), s.prefix.as_str(), s.value.as_str()))
                .collect::<Vec<_>>(),
            [
                ("Authorization", "Bearer ", "ghp_1$2"),
                ("X-Api-Key", "", "k-9")
            ]
        );
        let mut warnings = vec![
            "`Authorization` holds a secret written in clear; it was imported as it is — …".into(),
            "`X-Api-Key` holds a secret written in clear; …".into(),
        ];
        refer_to_secret(
            &mut http,
            &mut warnings,
            &found[0],
            "gh_Authorization",
            true,
        );
        refer_to_secret(&mut http, &mut warnings, &found[1], "gh_X-Api-Key", false);
        let TransportConfig::Http { headers, .. } = &http.transport else {
            panic!("http")
        };
        assert_eq!(headers[0].1, "Bearer ${secret:gh_Authorization}");
        assert_eq!(headers[2].1, "${secret:gh_X-Api-Key}");
        assert_eq!(headers[3].1, "${TOK}");
        assert_eq!(
            warnings,
            [
                "`Authorization`: its secret is in mcpdeck's credential store as gh_Authorization, written `${secret:gh_Authorization}`",
                "`X-Api-Key`: its secret would go into mcpdeck's credential store as gh_X-Api-Key, written `${secret:gh_X-Api-Key}`",
            ]
        );
        // The entry as written loads with its references.
        let mut stdio = ServerConfig::stdio("s", "node", &[]);
        if let TransportConfig::Stdio { env, .. } = &mut stdio.transport {
            *env = vec![("API_KEY".into(), "a b".into())];
        }
        let found = clear_secrets(&stdio);
        assert_eq!(
            (found[0].prefix.as_str(), found[0].value.as_str()),
            ("", "a b")
        );
    }

    #[test]
    fn mcpdeck_serve_fronting_is_recognised_with_its_flags() {
        let serve = |args: &[&str]| ServerConfig::stdio("x", "/usr/local/bin/mcpdeck", args);
        assert_eq!(
            fronts_mcpdeck(&serve(&["serve", "--config", "/a/config.toml", "seq"])).as_deref(),
            Some("\"seq\"")
        );
        assert_eq!(
            fronts_mcpdeck(&serve(&["--roots", "/a", "/b", "serve", "--all"])).as_deref(),
            Some("mcpdeck's own servers")
        );
        assert_eq!(
            fronts_mcpdeck(&serve(&[
                "--trace",
                "serve",
                "a",
                "b",
                "--http",
                "127.0.0.1:0"
            ]))
            .as_deref(),
            Some("\"a\", \"b\"")
        );
        assert_eq!(fronts_mcpdeck(&serve(&["tools", "serve"])), None);
        assert_eq!(
            fronts_mcpdeck(&ServerConfig::stdio("x", "node", &["serve"])),
            None
        );
    }

    fn found(name: &str, command: &str) -> Imported {
        Imported {
            name: name.into(),
            client: Origin::Client(Client::Cursor),
            path: PathBuf::from("/x/mcp.json"),
            server: ServerConfig::stdio(name, command, &[]),
            warnings: Vec::new(),
        }
    }

    #[test]
    fn plan_dedupes_renames_skips_replaces() {
        let existing = vec![ServerConfig::stdio("a", "one", &[])];
        let items = vec![
            found("a", "one"),
            found("a", "two"),
            found("b", "x"),
            found("b", "x"),
            found("a", "two"),
        ];
        let p = plan(&existing, items.clone(), OnConflict::Rename);
        let names: Vec<_> = p.add.iter().map(|i| i.name.as_str()).collect();
        assert_eq!(names, ["a-2", "b"]);
        assert_eq!(p.unchanged.len(), 3);
        assert!(p.add[0].warnings[0].contains("imported as \"a-2\""));

        let p = plan(&existing, items.clone(), OnConflict::Skip);
        let names: Vec<_> = p.add.iter().map(|i| i.name.as_str()).collect();
        assert_eq!(names, ["b"]);
        assert_eq!(p.skipped.len(), 2);

        let p = plan(&existing, items, OnConflict::Replace);
        assert_eq!(p.replace, ["a"]);
        let names: Vec<_> = p.add.iter().map(|i| i.name.as_str()).collect();
        assert_eq!(names, ["a", "b"]);
    }

    #[test]
    fn clients_from_file_names() {
        let c = |p: &str| Client::from_path(Path::new(p));
        assert_eq!(
            c("/h/.config/Code/User/settings.json"),
            Some(Client::VsCode)
        );
        assert_eq!(
            c("/h/.config/Code/User/profiles/x/mcp.json"),
            Some(Client::VsCode)
        );
        assert_eq!(c("/p/.vscode/mcp.json"), Some(Client::VsCode));
        assert_eq!(c("/p/.cursor/mcp.json"), Some(Client::Cursor));
        assert_eq!(c("/h/.config/zed/settings.json"), Some(Client::Zed));
        assert_eq!(c("/p/.gemini/settings.json"), Some(Client::Gemini));
        assert_eq!(c("/h/.claude.json"), Some(Client::ClaudeCode));
        assert_eq!(c("/p/.mcp.json"), Some(Client::ClaudeCode));
        assert_eq!(
            c("/x/claude_desktop_config.json"),
            Some(Client::ClaudeDesktop)
        );
        assert_eq!(
            c("/h/.codeium/windsurf/mcp_config.json"),
            Some(Client::Windsurf)
        );
        assert_eq!(c("/h/.codex/config.toml"), Some(Client::Codex));
        assert_eq!(c("/x/server.json"), None);
        for client in Client::ALL {
            assert_eq!(Client::from_name(client.name()), Some(client));
        }
    }

    #[test]
    fn formats_from_content() {
        let d = |text: &str| detect(&serde_json::from_str(text).unwrap());
        assert_eq!(
            d(r#"{"name": "a/b", "packages": []}"#),
            Some(Origin::Registry)
        );
        assert_eq!(
            d(r#"{"context_servers": {}}"#),
            Some(Origin::Client(Client::Zed))
        );
        assert_eq!(
            d(r#"{"mcp": {"servers": {}}}"#),
            Some(Origin::Client(Client::VsCode))
        );
        assert_eq!(
            d(r#"{"mcpServers": {"a": {"serverUrl": "https://x"}}}"#),
            Some(Origin::Client(Client::Windsurf))
        );
        assert_eq!(
            d(r#"{"mcpServers": {"a": {"httpUrl": "https://x"}}}"#),
            Some(Origin::Client(Client::Gemini))
        );
        assert_eq!(
            d(r#"{"mcpServers": {"a": {"command": "x"}}}"#),
            Some(Origin::Client(Client::ClaudeCode))
        );
        assert_eq!(d(r#"{"editor.fontSize": 3}"#), None);
    }

    #[test]
    fn names_are_made_usable() {
        let mut w = Vec::new();
        assert_eq!(usable_name("my__server", &mut w), "my_server");
        assert_eq!(usable_name("My Server!", &mut w), "My-Server");
        assert_eq!(usable_name("ok.name-1", &mut w), "ok.name-1");
        assert_eq!(w.len(), 2);
    }

    #[test]
    fn literal_dollars_are_escaped_for_comparison() {
        assert_eq!(escape_literals("$5 ${A} ${B:-x} $"), "$$5 ${A} ${B:-x} $$");
    }
}
