//! The mcpdeck configuration file (TOML).
//!
//! ```toml
//! [settings]
//! request_timeout = 60
//!
//! [servers.everything]
//! command = "npx"
//! args = ["-y", "@modelcontextprotocol/server-everything"]
//!
//! [servers.remote]
//! url = "https://example.com/mcp"
//! headers = { Authorization = "Bearer ${TOKEN}" }
//! ```
//!
//! `config.example.toml` at the repository root documents every key.
//!
//! - [`resolve_path`] picks the file (`--config` > `MCPDECK_CONFIG` > the
//!   platform config directory).
//! - [`load`], [`load_or_empty`] and [`load_str`] parse and validate it into
//!   a [`Config`], expanding `${VAR}` references; every error names the file,
//!   line and column (see [`ConfigError`]).
//! - [`ConfigEditor`] makes targeted edits (enable/disable, deny lists,
//!   adding/removing servers) that keep comments and formatting, merge with
//!   external edits when that is safe, and write atomically;
//!   [`edit_enabled`], [`edit_deny`] and [`edit_allow`] make them on a
//!   server named by a person (the CLI's commands, `serve`'s control
//!   socket), failing with an [`EditError`] that says what to do.

mod edit;
mod error;
mod expand;
pub mod export;
pub mod import;
mod lint;
mod model;
mod oauth;
mod parse;
pub mod watch;

use std::ffi::OsString;
use std::fs;
use std::io;
use std::path::{Path, PathBuf};

pub use edit::{
    ConfigEditor, EditError, Edited, NewServer, edit_allow, edit_deny, edit_enabled, find_server,
    import_preview,
};
pub use error::{ConfigError, Diagnostic, Position};
pub use expand::{MAX_SECRET_NAME, is_secret_name};
pub use model::{
    Config, CredentialStoreKind, HttpTransportKind, LintConfig, MissingSecret, OAuthConfig,
    OAuthGrant, OAuthResource, ProtocolPin, SecretPiece, SecretPlace, SecretString, ServerConfig,
    Settings, TelemetryConfig, ToolRefusal, TransportConfig, UnsetVariable, glob_matches,
    tool_refusal,
};
pub(crate) use parse::{syntax_message, unknown_key_message};

/// The environment variable that overrides the default configuration path.
pub const CONFIG_ENV_VAR: &str = "MCPDECK_CONFIG";

/// The configuration file name inside the config directory.
pub const CONFIG_FILE_NAME: &str = "config.toml";

/// The default configuration path: `config.toml` in the platform config
/// directory (e.g. `~/.config/mcpdeck/config.toml` on Linux). `None` if no
/// home directory can be determined.
pub fn default_path() -> Option<PathBuf> {
    directories::ProjectDirs::from("", "", "mcpdeck")
        .map(|dirs| dirs.config_dir().join(CONFIG_FILE_NAME))
}

/// The configuration path to use: `cli` (from `--config FILE`) if given, else
/// `$MCPDECK_CONFIG` if set and non-empty, else [`default_path`].
pub fn resolve_path(cli: Option<&Path>) -> Option<PathBuf> {
    resolve_path_from(cli, std::env::var_os(CONFIG_ENV_VAR), default_path)
}

fn resolve_path_from(
    cli: Option<&Path>,
    env: Option<OsString>,
    default: impl FnOnce() -> Option<PathBuf>,
) -> Option<PathBuf> {
    cli.map(Path::to_path_buf)
        .or_else(|| env.filter(|value| !value.is_empty()).map(PathBuf::from))
        .or_else(default)
}

/// Reads, validates and expands the configuration file at `path`, taking
/// `${VAR}` values from the process environment.
pub fn load(path: &Path) -> Result<Config, ConfigError> {
    let text = fs::read_to_string(path).map_err(|source| ConfigError::Read {
        path: path.to_path_buf(),
        source,
    })?;
    let mut config = load_str(&text, Some(path), &|name| std::env::var(name).ok())?;
    apply_roots_flag(&mut config);
    Ok(config)
}

/// The roots given on the command line (`--roots DIR…`), for this run.
static ROOTS_FLAG: std::sync::RwLock<Option<Vec<PathBuf>>> = std::sync::RwLock::new(None);
/// `--capabilities`, for the rest of this process (see [`set_capabilities_flag`]).
static CAPABILITIES_FLAG: std::sync::RwLock<Option<crate::mcp::session::Declared>> =
    std::sync::RwLock::new(None);

/// Set the capabilities of `--capabilities` for the rest of this process:
/// every configuration loaded from now on declares these to every server,
/// instead of `[settings] capabilities`.
pub fn set_capabilities_flag(declared: Option<crate::mcp::session::Declared>) {
    *CAPABILITIES_FLAG.write().unwrap_or_else(|p| p.into_inner()) = declared;
}

/// Set the roots of `--roots DIR…` for the rest of this process: every
/// configuration [`load`]ed from now on (a reload too) offers these and
/// nothing else, to every server (they win over `[settings] roots` and a
/// server's own `roots`). Relative directories are taken from the current
/// directory, as a shell user means them.
pub fn set_roots_flag(dirs: Option<Vec<PathBuf>>) {
    let dirs = dirs.map(|dirs| {
        let cwd = std::env::current_dir().ok();
        dirs.into_iter()
            .map(|d| match &cwd {
                Some(cwd) if d.is_relative() => cwd.join(d),
                _ => d,
            })
            .collect()
    });
    *ROOTS_FLAG.write().unwrap_or_else(|p| p.into_inner()) = dirs;
}

/// Whether `--roots` was given (see [`set_roots_flag`]).
pub fn roots_flag_set() -> bool {
    ROOTS_FLAG
        .read()
        .unwrap_or_else(|p| p.into_inner())
        .is_some()
}

/// Apply `--roots` (see [`set_roots_flag`]) to a configuration that was
/// not read by [`load`] (the demo's, an empty one).
pub fn apply_roots_flag(config: &mut Config) {
    if let Some(declared) = *CAPABILITIES_FLAG.read().unwrap_or_else(|p| p.into_inner()) {
        config.settings.capabilities = declared;
    }
    let flag = ROOTS_FLAG.read().unwrap_or_else(|p| p.into_inner());
    if let Some(dirs) = flag.as_ref() {
        config.settings.roots = dirs.clone();
        for server in &mut config.servers {
            server.roots = None;
        }
    }
}

/// Like [`load`], but a file that does not exist yields an empty
/// configuration (default settings, no servers, `path` set). Meant for the
/// default path, where having no file is normal.
pub fn load_or_empty(path: &Path) -> Result<Config, ConfigError> {
    match load(path) {
        Err(ConfigError::Read { source, .. }) if source.kind() == io::ErrorKind::NotFound => {
            let mut config = Config::empty(Some(path.to_path_buf()));
            apply_roots_flag(&mut config);
            Ok(config)
        }
        other => other,
    }
}

/// Parses, validates and expands configuration `text`. `path` is used in
/// messages and stored in [`Config::path`]; `env` looks up `${VAR}`
/// references (return `None` for an unset variable).
pub fn load_str(
    text: &str,
    path: Option<&Path>,
    env: &dyn Fn(&str) -> Option<String>,
) -> Result<Config, ConfigError> {
    parse::parse(text, path, parse::Env::Lookup(env))
}

/// The `[settings]` of config `text`, read without needing any
/// environment variable (as [`validate_structure`]): for commands that
/// read the file themselves (`import` asks it where secrets go).
pub fn settings_of(text: &str, path: &Path) -> Result<Settings, ConfigError> {
    validate_structure(text, path).map(|c| c.settings)
}

/// Validates the structure of `text` without needing any environment
/// variable (every `${VAR}` reads as empty). Used before writing edits.
fn validate_structure(text: &str, path: &Path) -> Result<Config, ConfigError> {
    parse::parse(text, Some(path), parse::Env::Lenient)
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::collections::HashMap;
    use std::time::Duration;

    const FIXTURES: &str = concat!(env!("CARGO_MANIFEST_DIR"), "/tests/fixtures/config");

    fn fixture(name: &str) -> PathBuf {
        Path::new(FIXTURES).join(name)
    }

    fn env_from(pairs: &[(&str, &str)]) -> impl Fn(&str) -> Option<String> + use<> {
        let map: HashMap<String, String> = pairs
            .iter()
            .map(|(k, v)| ((*k).to_owned(), (*v).to_owned()))
            .collect();
        move |name| map.get(name).cloned()
    }

    fn load_fixture(name: &str, env: &[(&str, &str)]) -> Result<Config, ConfigError> {
        let path = fixture(name);
        let text = fs::read_to_string(&path).unwrap();
        load_str(&text, Some(&path), &env_from(env))
    }

    /// Loads an invalid fixture; returns (line, column, message).
    fn invalid(name: &str, env: &[(&str, &str)]) -> (usize, usize, String) {
        let error = load_fixture(name, env).expect_err(name);
        let diagnostic = error
            .diagnostic()
            .unwrap_or_else(|| panic!("{name}: not a diagnostic: {error}"));
        assert_eq!(diagnostic.path(), Some(fixture(name).as_path()));
        let position = diagnostic.position().expect("position");
        // The full message starts with path:line:column.
        let prefix = format!(
            "{}:{}:{}: ",
            fixture(name).display(),
            position.line,
            position.column
        );
        assert!(error.to_string().starts_with(&prefix), "{error}");
        (
            position.line,
            position.column,
            diagnostic.message().to_owned(),
        )
    }

    const VALID_ENV: &[(&str, &str)] =
        &[("HOME", "/home/me"), ("API_KEY", "k-123"), ("TOKEN", "t0k")];

    #[test]
    fn valid_fixture_with_every_option() {
        let config = load_fixture("valid.toml", VALID_ENV).unwrap();
        assert_eq!(config.path, Some(fixture("valid.toml")));
        assert_eq!(
            config.settings,
            Settings {
                request_timeout: Duration::from_secs(90),
                connect_timeout: Duration::from_millis(12_500),
                probe_timeout: Duration::from_millis(500),
                remember_era: Settings::DEFAULT_REMEMBER_ERA,
                shutdown_grace: Duration::from_secs(0),
                oneshot_grace: Settings::DEFAULT_ONESHOT_GRACE,
                stderr_lines: 250,
                frame_log: 20_000,
                max_message_size: 1_048_576,
                // Relative to the config file's folder.
                roots: vec![fixture("projects"), PathBuf::from("/srv/shared")],
                capabilities: crate::mcp::session::Declared::parse("roots,elicitation").unwrap(),
                browser: None,
                registry_url: None,
                save_dir: None,
                credentials: CredentialStoreKind::Auto,
                login_timeout: Settings::DEFAULT_LOGIN_TIMEOUT,
                lint_max_description: Settings::DEFAULT_LINT_MAX_DESCRIPTION,
            }
        );
        let names: Vec<&str> = config.servers.iter().map(|s| s.name.as_str()).collect();
        assert_eq!(names, ["everything", "remote", "legacy.sse", "pinned-1"]);

        assert_eq!(
            config.servers[0],
            ServerConfig {
                name: "everything".into(),
                transport: TransportConfig::Stdio {
                    command: "node".into(),
                    args: vec![
                        "/home/me/x/index.js".into(),
                        "stdio".into(),
                        "$literal".into(),
                    ],
                    env: vec![
                        ("API_KEY".into(), "k-123".into()),
                        ("LEVEL".into(), "info".into()),
                        ("PRICE".into(), "$5".into()),
                    ],
                    cwd: Some(PathBuf::from("/tmp")),
                },
                enabled: true,
                deny_tools: vec!["get-env".into(), "printEnv".into()],
                allow_tools: vec![],
                protocol: ProtocolPin::Auto,
                timeout: Some(Duration::from_secs(30)),
                lint: Default::default(),
                roots: None,
                unset: Vec::new(),
                secrets: Vec::new(),
            }
        );
        assert_eq!(
            config.servers[1],
            ServerConfig {
                name: "remote".into(),
                transport: TransportConfig::Http {
                    url: "https://example.com/mcp".into(),
                    headers: vec![
                        ("Authorization".into(), "Bearer t0k".into()),
                        ("X-Client".into(), "mcpdeck".into()),
                    ],
                    transport: HttpTransportKind::StreamableHttp,
                    ca_file: None,
                    insecure: false,
                    oauth: None,
                },
                enabled: false,
                deny_tools: vec![],
                allow_tools: vec![],
                protocol: ProtocolPin::Stateless,
                timeout: Some(Duration::from_millis(2500)),
                lint: Default::default(),
                roots: None,
                unset: Vec::new(),
                secrets: Vec::new(),
            }
        );
        let legacy = &config.servers[2];
        assert_eq!(
            legacy.transport,
            TransportConfig::Http {
                url: "http://localhost:8080/sse".into(),
                headers: vec![],
                transport: HttpTransportKind::Sse,
                ca_file: None,
                insecure: false,
                oauth: None,
            }
        );
        assert_eq!(legacy.protocol, ProtocolPin::Initialize);
        let pinned = &config.servers[3];
        assert_eq!(pinned.protocol, ProtocolPin::Version("2025-06-18".into()));
        assert_eq!(pinned.timeout, None);
        assert!(pinned.enabled);
    }

    #[test]
    fn defaults() {
        let config = load_str("", None, &|_| None).unwrap();
        assert_eq!(config, Config::default());
        assert_eq!(config.settings.request_timeout, Duration::from_secs(60));
        assert_eq!(config.settings.connect_timeout, Duration::from_secs(30));
        assert_eq!(config.settings.probe_timeout, Duration::from_secs(1));
        assert_eq!(config.settings.shutdown_grace, Duration::from_secs(2));
        assert_eq!(config.settings.stderr_lines, 500);
        assert_eq!(config.settings.frame_log, 10_000);

        let config = load_str(
            "[settings]\nframe_log = 5\n[servers.a]\ncommand = \"cat\"\n",
            None,
            &|_| None,
        )
        .unwrap();
        assert_eq!(config.settings.frame_log, 5);
        assert_eq!(config.settings.request_timeout, Duration::from_secs(60));
        assert_eq!(config.servers, vec![ServerConfig::stdio("a", "cat", &[])]);
    }

    #[test]
    fn telemetry_section_is_read_and_checked() {
        let env = env_from(&[("OTLP", "http://collector:4318")]);
        let config = load_str(
            "[telemetry]\notlp_endpoint = \"${OTLP}\"\ncapture_content = true\n",
            None,
            &env,
        )
        .unwrap();
        assert_eq!(
            config.telemetry,
            TelemetryConfig {
                otlp_endpoint: Some("http://collector:4318".into()),
                capture_content: true,
            }
        );
        let err = load_str(
            "[telemetry]\notlp_endpoint = \"localhost:4318\"\n",
            None,
            &env,
        )
        .unwrap_err()
        .to_string();
        assert!(
            err.contains("otlp_endpoint") && err.contains("http://"),
            "{err}"
        );
        assert!(err.contains(":2:"), "{err}");
        let err = load_str("[telemetry]\ncapture_content = \"yes\"\n", None, &env)
            .unwrap_err()
            .to_string();
        assert!(err.contains("true or false"), "{err}");
    }

    #[test]
    fn roots_per_server_relative_to_the_file_and_never_the_cwd() {
        let env = env_from(&[("PROJ", "/work/p")]);
        let text = "[settings]\nroots = [\"shared\"]\n\n[servers.a]\ncommand = \"x\"\nroots = [\"${PROJ}\", \"sub\"]\n\n[servers.b]\ncommand = \"x\"\nroots = []\n\n[servers.c]\ncommand = \"x\"\n";
        let config = load_str(text, Some(Path::new("/etc/deck/config.toml")), &env).unwrap();
        let roots = |name: &str| {
            config
                .server(name)
                .unwrap()
                .roots(&config.settings)
                .to_vec()
        };
        assert_eq!(
            roots("a"),
            [PathBuf::from("/work/p"), PathBuf::from("/etc/deck/sub")]
        );
        assert!(roots("b").is_empty());
        assert_eq!(roots("c"), [PathBuf::from("/etc/deck/shared")]);
        // None configured: none offered (not the current directory).
        let bare = load_str("[servers.c]\ncommand = \"x\"\n", None, &env).unwrap();
        assert!(bare.servers[0].roots(&bare.settings).is_empty());
        // An entry that expands to nothing is an error, not the file's folder.
        let err = load_str(
            "[servers.a]\ncommand = \"x\"\nroots = [\"${EMPTY:-}\"]\n",
            None,
            &env,
        )
        .unwrap_err()
        .to_string();
        assert!(err.contains("`roots` has an empty entry"), "{err}");
        assert!(err.contains(":3:"), "{err}");
        // A config named without a folder (`--config x.toml`): its roots are
        // made absolute from the current directory, so they are URIs.
        let here = load_str(
            "[settings]\nroots = [\"sub\"]\n",
            Some(Path::new("x.toml")),
            &env,
        )
        .unwrap();
        assert!(
            here.settings.roots[0].is_absolute(),
            "{:?}",
            here.settings.roots
        );
        assert!(here.settings.roots[0].ends_with("sub"));
    }

    #[test]
    fn wide_roots_are_the_whole_disk_and_home() {
        let home = Path::new("/home/me");
        let wide = |p: &str| ServerConfig::wide_root(Path::new(p), Some(home));
        assert_eq!(wide("/"), Some("the whole disk"));
        assert_eq!(wide("/home/me"), Some("your whole home directory"));
        assert_eq!(wide("/home/me/"), Some("your whole home directory"));
        assert_eq!(wide("/home/me/./"), Some("your whole home directory"));
        assert_eq!(wide("/home/me/proj"), None);
        assert_eq!(wide("/home"), None);
        assert_eq!(ServerConfig::wide_root(Path::new("/home/me"), None), None);
    }

    #[test]
    fn example_config_loads_and_documents_every_key() {
        let path = Path::new(env!("CARGO_MANIFEST_DIR")).join("config.example.toml");
        let text = fs::read_to_string(&path).unwrap();
        // Only HOME is needed; the other references have defaults.
        let config = load_str(&text, Some(&path), &env_from(&[("HOME", "/home/me")])).unwrap();
        assert_eq!(config.settings, Settings::default());
        let names: Vec<&str> = config.servers.iter().map(|s| s.name.as_str()).collect();
        assert_eq!(names, ["everything", "remote"]);
        // An optional key may be shown commented out (`# key = value`).
        let keys = parse::SETTINGS_KEYS
            .iter()
            .chain(parse::SERVER_KEYS)
            .chain(oauth::OAUTH_KEYS)
            .chain(lint::LINT_KEYS)
            .chain(parse::TELEMETRY_KEYS);
        for key in keys {
            let written = text.lines().any(|line| {
                let line = line.strip_prefix("# ").unwrap_or(line);
                line.starts_with(&format!("{key} = "))
                    || line.ends_with(&format!(".{key}]"))
                    || (line.starts_with('[') && line.contains(&format!(".{key}.")))
            });
            assert!(written, "config.example.toml does not document `{key}`");
        }
    }

    #[test]
    fn load_reads_files_and_load_or_empty_tolerates_missing_ones() {
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("config.toml");
        fs::write(&path, "[servers.a]\ncommand = \"cat\"\n").unwrap();
        let config = load(&path).unwrap();
        assert_eq!(config.path.as_deref(), Some(path.as_path()));
        assert_eq!(config.servers, vec![ServerConfig::stdio("a", "cat", &[])]);
        assert_eq!(load_or_empty(&path).unwrap(), config);

        let missing = dir.path().join("nope").join("config.toml");
        let error = load(&missing).unwrap_err();
        assert!(matches!(error, ConfigError::Read { .. }));
        assert!(
            error
                .to_string()
                .starts_with(&format!("cannot read {}: ", missing.display()))
        );
        let empty = load_or_empty(&missing).unwrap();
        assert_eq!(empty, Config::empty(Some(missing.clone())));

        // Other errors are still errors.
        let error = load_or_empty(&fixture("invalid_syntax.toml")).unwrap_err();
        assert!(error.diagnostic().is_some());
        assert!(matches!(
            load_or_empty(dir.path()),
            Err(ConfigError::Read { .. })
        ));
    }

    #[test]
    fn path_precedence() {
        let default = || Some(PathBuf::from("/default/config.toml"));
        let cli = Path::new("/cli.toml");
        assert_eq!(
            resolve_path_from(Some(cli), Some("/env.toml".into()), default),
            Some(PathBuf::from("/cli.toml"))
        );
        assert_eq!(
            resolve_path_from(None, Some("/env.toml".into()), default),
            Some(PathBuf::from("/env.toml"))
        );
        assert_eq!(
            resolve_path_from(None, Some(OsString::new()), default),
            Some(PathBuf::from("/default/config.toml"))
        );
        assert_eq!(
            resolve_path_from(None, None, default),
            Some(PathBuf::from("/default/config.toml"))
        );
        assert_eq!(resolve_path_from(None, None, || None), None);
        assert!(
            default_path().is_none_or(|path| path.ends_with("mcpdeck/config.toml")),
            "{:?}",
            default_path()
        );
    }

    #[test]
    fn expansion_and_missing_variables() {
        let text = r#"
[servers.local]
command = "${BIN:-node}"
args = ["${HOME}/a", "$$HOME", "${EMPTY:-d}", "${EMPTY}"]
cwd = "${HOME}"

[servers.remote]
url = "https://${HOST:-example.com}/mcp"
headers = { Authorization = "Bearer ${TOKEN}" }
"#;
        let env = env_from(&[("HOME", "/h"), ("EMPTY", ""), ("TOKEN", "s3cret")]);
        let config = load_str(text, None, &env).unwrap();
        assert_eq!(
            config.servers[0].transport,
            TransportConfig::Stdio {
                command: "node".into(),
                args: vec!["/h/a".into(), "$HOME".into(), "d".into(), String::new()],
                env: vec![],
                cwd: Some("/h".into()),
            }
        );
        assert_eq!(
            config.servers[1].transport,
            TransportConfig::Http {
                url: "https://example.com/mcp".into(),
                headers: vec![("Authorization".into(), "Bearer s3cret".into())],
                transport: HttpTransportKind::Auto,
                ca_file: None,
                insecure: false,
                oauth: None,
            }
        );

        // An unset variable is the problem of the server that uses it, not
        // of the file: the other servers load as usual.
        let env = env_from(&[("HOME", "/h"), ("EMPTY", "")]);
        let config = load_str(text, Some(Path::new("config.toml")), &env).unwrap();
        assert!(config.servers[0].unset.is_empty());
        assert_eq!(config.servers[0].unresolved(), None);
        let remote = &config.servers[1];
        assert_eq!(
            remote.unresolved().as_deref(),
            Some(
                "config.toml:9:29: server \"remote\": the environment variable TOKEN is not set; set it, or give it a default in the config: ${TOKEN:-default} (${TOKEN:-} for an empty one)"
            )
        );
        assert_eq!(remote.unset.len(), 1);
        assert_eq!(remote.unset[0].variable, "TOKEN");
        // The full message shows the line with the value underlined.
        let full = remote.unset[0].diagnostic.to_string();
        assert!(
            full.ends_with(
                "9 | headers = { Authorization = \"Bearer ${TOKEN}\" }\n  |                             ^^^^^^^^^^^^^^^^^"
            ),
            "{full}"
        );
        // The string is kept as written (nothing starts with it); the
        // others of the server are expanded.
        let TransportConfig::Http { url, headers, .. } = &remote.transport else {
            panic!("not http")
        };
        assert_eq!(url, "https://example.com/mcp");
        assert_eq!(headers[0].1, "Bearer ${TOKEN}");
    }

    #[test]
    fn unset_variables_in_any_server_string_are_deferred_and_all_named() {
        let text = r#"
[servers.s]
command = "${BIN}"
args = ["--key=${KEY}", "${KEY}", "${OK:-x}"]
env = { T = "${ENV_T}" }
cwd = "${DIR}"
roots = ["${ROOT}/p"]

[servers.h]
url = "${URL}"
ca_file = "${CA}"

[servers.h.oauth]
client_id = "${CID}"
client_metadata_url = "${META}"

[servers.off]
enabled = false
command = "${NOPE}"
"#;
        let config = load_str(text, Some(Path::new("c.toml")), &|_| None).unwrap();
        let vars = |name: &str| -> Vec<String> {
            let s = config.server(name).unwrap();
            s.unset.iter().map(|u| u.variable.clone()).collect()
        };
        assert_eq!(vars("s"), ["BIN", "KEY", "KEY", "ENV_T", "DIR", "ROOT"]);
        // The URL's scheme and the metadata URL are checked once set.
        assert_eq!(vars("h"), ["URL", "CA", "CID", "META"]);
        assert_eq!(vars("off"), ["NOPE"]);
        let s = config.server("s").unwrap();
        let why = s.unresolved().unwrap();
        assert!(
            why.starts_with("c.toml:3:11: server \"s\": the environment variable BIN is not set"),
            "{why}"
        );
        assert!(
            why.ends_with(" (also not set: KEY, ENV_T, DIR, ROOT)"),
            "{why}"
        );
        let TransportConfig::Stdio { command, args, .. } = &s.transport else {
            panic!("not stdio")
        };
        assert_eq!(command, "${BIN}");
        assert_eq!(args, &["--key=${KEY}", "${KEY}", "x"]);
        // Set, the same servers have nothing unresolved.
        let all = |_: &str| Some("https://set.example/x".to_owned());
        let config = load_str(text, None, &all).unwrap();
        assert!(config.servers.iter().all(|s| s.unset.is_empty()));
    }

    #[test]
    fn mistakes_in_references_and_global_variables_stay_errors() {
        let env = |_: &str| None;
        let error = |text: &str| {
            load_str(text, Some(Path::new("c.toml")), &env)
                .unwrap_err()
                .summary()
        };
        // A broken reference is a mistake in the file, even after an unset one.
        let e = error("[servers.a]\ncommand = \"x\"\nargs = [\"${A} ${B\"]\n");
        assert!(
            e.starts_with("c.toml:3:9: server \"a\": unterminated `${`"),
            "{e}"
        );
        let e = error("[servers.a]\nurl = \"http://h/${A}${1X}\"\n");
        assert!(
            e.contains("`${1X}` in `url` is not a valid variable reference"),
            "{e}"
        );
        // A URL that is wrong whatever the variables are.
        let e = error("[servers.a]\nurl = \"ftp://${A}\"\n");
        assert!(
            e.contains("`url` must start with http:// or https://"),
            "{e}"
        );
        // An empty roots entry is an error by design.
        let e = error("[servers.a]\ncommand = \"x\"\nroots = [\"${UNSET:-}\"]\n");
        assert!(e.contains("`roots` has an empty entry"), "{e}");
        // [settings] and [telemetry] are used by every command: their
        // variables must be set.
        let e = error("[settings]\nbrowser = \"${BROWSER_CMD}\"\n");
        assert_eq!(
            e,
            "c.toml:2:11: the environment variable BROWSER_CMD is not set; set it, or write ${BROWSER_CMD:-default}"
        );
        let e = error("[settings]\nroots = [\"${PROJ}\"]\n");
        assert!(e.contains("PROJ is not set"), "{e}");
        let e = error("[telemetry]\notlp_endpoint = \"${OTLP}\"\n");
        assert!(e.contains("OTLP is not set"), "{e}");
    }

    #[test]
    fn invalid_syntax() {
        let (line, column, message) = invalid("invalid_syntax.toml", &[]);
        assert_eq!((line, column), (4, 11));
        assert!(message.starts_with("invalid TOML: "), "{message}");
        assert!(
            message.contains("string values must be quoted"),
            "{message}"
        );
    }

    #[test]
    fn invalid_duplicate_server() {
        let (line, column, message) = invalid("invalid_duplicate_server.toml", &[]);
        assert_eq!((line, column), (6, 10));
        assert_eq!(message, "invalid TOML: duplicate key `a`");
    }

    #[test]
    fn invalid_unknown_server_key() {
        let (line, column, message) = invalid("invalid_unknown_key.toml", &[]);
        assert_eq!((line, column), (7, 1));
        assert_eq!(
            message,
            "unknown key `comand` in server \"everything\" — did you mean `command`?"
        );
    }

    #[test]
    fn invalid_unknown_settings_key() {
        let (line, column, message) = invalid("invalid_unknown_setting.toml", &[]);
        assert_eq!((line, column), (3, 1));
        assert_eq!(
            message,
            "unknown key `request_timout` in [settings] — did you mean `request_timeout`?"
        );
    }

    #[test]
    fn invalid_unknown_top_level_key() {
        let (line, column, message) = invalid("invalid_unknown_top_level.toml", &[]);
        assert_eq!((line, column), (2, 2));
        assert_eq!(
            message,
            "unknown key `server` at the top level — did you mean `servers`?"
        );
    }

    #[test]
    fn invalid_timeout_type() {
        let (line, column, message) = invalid("invalid_timeout_type.toml", &[]);
        assert_eq!((line, column), (3, 19));
        assert_eq!(
            message,
            "`request_timeout` must be a number of seconds, found a string"
        );
    }

    #[test]
    fn invalid_negative_timeout() {
        let (line, column, message) = invalid("invalid_negative_timeout.toml", &[]);
        assert_eq!((line, column), (4, 11));
        assert_eq!(
            message,
            "server \"slow\": `timeout` must not be negative, found -1.5"
        );
    }

    #[test]
    fn a_missing_variable_is_its_server_s_problem() {
        let config = load_fixture("invalid_missing_var.toml", &[]).unwrap();
        let unset = &config.servers[0].unset;
        assert_eq!(unset.len(), 1);
        let d = &unset[0].diagnostic;
        assert_eq!(
            d.path(),
            Some(fixture("invalid_missing_var.toml").as_path())
        );
        let position = d.position().unwrap();
        assert_eq!((position.line, position.column), (4, 29));
        assert_eq!(
            d.message(),
            "server \"remote\": the environment variable TOKEN is not set; set it, or give it a default in the config: ${TOKEN:-default} (${TOKEN:-} for an empty one)"
        );
        // With the variable set, the server has nothing unresolved.
        let set = load_fixture("invalid_missing_var.toml", &[("TOKEN", "x")]).unwrap();
        assert_eq!(set.servers[0].unresolved(), None);
        assert!(!set.servers[0].same_connection(&config.servers[0]));
    }

    #[test]
    fn invalid_unterminated_reference() {
        let (line, column, message) = invalid("invalid_unterminated.toml", &[("HOME", "/h")]);
        assert_eq!((line, column), (3, 18));
        assert_eq!(
            message,
            "server \"x\": unterminated `${` in `args`; close it with `}`, or write `$$` for a literal `$`"
        );
    }

    #[test]
    fn invalid_both_command_and_url() {
        let (line, column, message) = invalid("invalid_both_command_url.toml", &[]);
        assert_eq!((line, column), (4, 1));
        assert_eq!(
            message,
            "server \"x\" has both `command` and `url`; keep one"
        );
    }

    #[test]
    fn invalid_neither_command_nor_url() {
        let (line, column, message) = invalid("invalid_no_command_or_url.toml", &[]);
        assert_eq!((line, column), (3, 1));
        assert!(
            message.starts_with("server \"empty\" has neither `command` nor `url`; add `command"),
            "{message}"
        );
    }

    #[test]
    fn invalid_url_only_key_on_stdio_server() {
        let (line, column, message) = invalid("invalid_headers_with_command.toml", &[]);
        assert_eq!((line, column), (4, 1));
        assert_eq!(
            message,
            "server \"local\": `headers` only applies to servers with `url`; remove it"
        );
    }

    #[test]
    fn invalid_command_only_key_on_http_server() {
        let (line, column, message) = invalid("invalid_args_with_url.toml", &[]);
        assert_eq!((line, column), (3, 1));
        assert_eq!(
            message,
            "server \"remote\": `args` only applies to servers with `command`; remove it"
        );
    }

    #[test]
    fn invalid_server_name_characters() {
        let (line, column, message) = invalid("invalid_server_name.toml", &[]);
        assert_eq!((line, column), (1, 10));
        assert_eq!(
            message,
            "invalid server name \"my server\": ' ' is not allowed; use only letters, digits, `_`, `.` and `-`"
        );
    }

    #[test]
    fn invalid_server_name_double_underscore() {
        let (line, column, message) = invalid("invalid_server_name_underscores.toml", &[]);
        assert_eq!((line, column), (4, 10));
        assert!(
            message.starts_with("invalid server name \"my__server\": it must not contain `__`")
        );
        assert!(
            message.ends_with("rename it, e.g. \"my_server\""),
            "{message}"
        );
    }

    #[test]
    fn invalid_protocol() {
        let (line, column, message) = invalid("invalid_protocol.toml", &[]);
        assert_eq!((line, column), (3, 12));
        assert_eq!(
            message,
            "server \"x\": unknown protocol \"2025-01-01\"; use \"auto\", \"stateless\", \"initialize\" or one of the versions \"2026-07-28\", \"2025-11-25\", \"2025-06-18\", \"2025-03-26\", \"2024-11-05\""
        );
    }

    #[test]
    fn invalid_transport() {
        let (line, column, message) = invalid("invalid_transport.toml", &[]);
        assert_eq!((line, column), (3, 13));
        assert!(
            message.starts_with("server \"x\": unknown transport \"websocket\"; use \"http\""),
            "{message}"
        );
    }

    #[test]
    fn invalid_deny_tools() {
        let (line, column, message) = invalid("invalid_deny_tools.toml", &[]);
        assert_eq!((line, column), (3, 14));
        assert_eq!(
            message,
            "server \"x\": `deny_tools` must be an array of strings, found a string"
        );
    }

    #[test]
    fn invalid_servers_array() {
        let (line, column, message) = invalid("invalid_servers_array.toml", &[]);
        assert_eq!((line, column), (1, 1));
        assert!(message.starts_with("`servers` must be a table with one [servers.NAME] section per server, found an array of tables"));
    }
}
