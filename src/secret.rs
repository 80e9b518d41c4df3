//! Named secrets: values a server needs (an API key, a token) kept in
//! mcpdeck's credential store instead of the config file, and referred to
//! there as `${secret:NAME}`.
//!
//! - [`Secrets`] is the store: the OS keyring, else a 0600 file, as
//!   `[settings] credentials` chooses (the same store, lock and atomic
//!   writes as the OAuth tokens; see [`crate::mcp::auth::store`]). Values
//!   are [`Secret`]s, which never print.
//! - A config keeps `${secret:NAME}` as written: `config check`, the TUI,
//!   `export`, recordings and traces show the reference, never the value.
//!   [`resolve`] puts the values in when a server connects (the manager's
//!   session spec and the OAuth authorizer call it), and remembers them
//!   so that whatever shows a command line, a URL or a header masks them
//!   ([`crate::mcp::bearer::secret::redact`]).
//! - Names are `[A-Za-z0-9_.-]{1,64}` ([`check_name`]).

use std::path::PathBuf;

use crate::config::{
    Config, CredentialStoreKind, Diagnostic, MAX_SECRET_NAME, SecretPiece, ServerConfig,
    is_secret_name,
};
use crate::mcp::auth::store::{CredentialStore, StoreError};
pub use crate::mcp::bearer::Secret;

/// Why a secret could not be stored, read or removed. Never holds a value.
#[derive(Debug, thiserror::Error)]
pub enum Error {
    /// A name with characters a secret name cannot have.
    #[error(
        "invalid secret name {name:?}: use 1 to {MAX_SECRET_NAME} letters, digits, `_`, `.` or `-` (e.g. {suggested})"
    )]
    InvalidName {
        name: String,
        /// A valid name close to it.
        suggested: String,
    },
    /// An empty value: a secret that is nothing is a mistake.
    #[error(
        "the value of secret {name} is empty; give a value (to forget it: mcpdeck secret rm {name})"
    )]
    Empty { name: String },
    /// The credential store failed (it says which, and the fix).
    #[error(transparent)]
    Store(#[from] StoreError),
}

/// The named secrets of mcpdeck's credential store.
#[derive(Debug)]
pub struct Secrets {
    store: CredentialStore,
}

impl Secrets {
    /// Opens the store `[settings] credentials` names (as OAuth does:
    /// `auto` is the keyring when one answers, else the file). Nothing is
    /// created until a secret is stored.
    pub fn open(kind: CredentialStoreKind) -> Result<Secrets, Error> {
        Ok(Secrets {
            store: CredentialStore::open(kind)?,
        })
    }

    /// A file store in `dir` (tests, and an explicit folder).
    pub fn file_in(dir: PathBuf) -> Secrets {
        Secrets {
            store: CredentialStore::file_in(dir),
        }
    }

    /// Where the values are: `file …/secrets.json` or `OS keyring (…)`.
    pub fn describe(&self) -> String {
        self.store.describe_secrets()
    }

    /// Stores `value` under `name`, replacing any value it had.
    pub fn set(&self, name: &str, value: &str) -> Result<(), Error> {
        check_name(name)?;
        if value.is_empty() {
            return Err(Error::Empty {
                name: name.to_string(),
            });
        }
        Ok(self.store.save_secret(name, &Secret::new(value))?)
    }

    /// The value of `name`, if one is stored.
    pub fn get(&self, name: &str) -> Result<Option<Secret>, Error> {
        check_name(name)?;
        Ok(self.store.secret(name)?)
    }

    /// Forgets `name`; whether it was stored.
    pub fn remove(&self, name: &str) -> Result<bool, Error> {
        check_name(name)?;
        Ok(self.store.remove_secret(name)?)
    }

    /// The names stored, sorted.
    pub fn names(&self) -> Result<Vec<String>, Error> {
        Ok(self.store.secret_names()?)
    }
}

/// `Ok` when `name` can name a secret (`[A-Za-z0-9_.-]{1,64}`), else the
/// error that says so, with a name that can.
pub fn check_name(name: &str) -> Result<(), Error> {
    if is_secret_name(name) {
        return Ok(());
    }
    Err(Error::InvalidName {
        name: name.to_string(),
        suggested: name_for(&[name]),
    })
}

/// A valid secret name made of `parts` joined by `_` (`["github",
/// "GITHUB_TOKEN"]` → `github_GITHUB_TOKEN`): other characters become
/// `_`, and it is cut to 64.
pub fn name_for(parts: &[&str]) -> String {
    let joined: String = parts
        .iter()
        .filter(|p| !p.is_empty())
        .copied()
        .collect::<Vec<_>>()
        .join("_")
        .chars()
        .map(|c| {
            if c.is_ascii_alphanumeric() || matches!(c, '_' | '.' | '-') {
                c
            } else {
                '_'
            }
        })
        .collect::<String>()
        .trim_start_matches('-')
        .chars()
        .take(MAX_SECRET_NAME)
        .collect();
    if joined.is_empty() {
        "SECRET".to_string()
    } else {
        joined
    }
}

/// `server` with its `${secret:NAME}` references replaced by the values
/// of the store `kind` names, for a connection; a server without any
/// comes back as it is (the store is not opened). The values are
/// remembered so that displays mask them. The error names the place in
/// the config and the fix: `config.toml:7:29: server "h": the secret TOK
/// is not in mcpdeck's credential store (file …); store it: mcpdeck
/// secret set TOK`.
pub fn resolve(server: &ServerConfig, kind: CredentialStoreKind) -> Result<ServerConfig, String> {
    if server.secrets.is_empty() {
        return Ok(server.clone());
    }
    let store = Secrets::open(kind).map_err(|e| {
        format!(
            "server {:?} needs secrets from mcpdeck's credential store, which cannot be opened: {e}",
            server.name
        )
    })?;
    resolve_from(server, &store)
}

/// Why a server cannot connect without `name`: `server "h": the secret
/// TOK is not in mcpdeck's credential store (file …); store it: mcpdeck
/// secret set TOK` (without the place).
fn not_stored(server: &str, name: &str, store: &Secrets) -> String {
    format!(
        "server {server:?}: the secret {name} is not in mcpdeck's credential store ({}); store it: mcpdeck secret set {name}",
        store.describe()
    )
}

/// The `${secret:NAME}`s of the enabled servers of `config` that have no
/// value in its store, each where it is written (`FILE:LINE:COL: server
/// "h": the secret TOK is not in …; store it: mcpdeck secret set TOK`),
/// for `config check`. The store is opened only when a server refers to a
/// secret; an error: it cannot be opened.
pub fn missing(config: &Config) -> Result<Vec<Diagnostic>, String> {
    let servers: Vec<&ServerConfig> = config
        .servers
        .iter()
        .filter(|s| s.enabled && !s.secrets.is_empty())
        .collect();
    if servers.is_empty() {
        return Ok(Vec::new());
    }
    let store = Secrets::open(config.settings.credentials)
        .map_err(|e| format!("the credential store cannot be opened: {e}"))?;
    let mut stored: Vec<(String, bool)> = Vec::new();
    let mut out = Vec::new();
    for server in servers {
        for string in &server.secrets {
            for piece in &string.pieces {
                let SecretPiece::Secret(name) = piece else {
                    continue;
                };
                let here = match stored.iter().find(|(n, _)| n == name) {
                    Some((_, here)) => *here,
                    None => {
                        let here = store.get(name).map_err(|e| e.to_string())?.is_some();
                        stored.push((name.clone(), here));
                        here
                    }
                };
                if !here {
                    out.push(
                        string
                            .written
                            .with_message(not_stored(&server.name, name, &store)),
                    );
                }
            }
        }
    }
    Ok(out)
}

/// [`resolve`] with the store given.
pub fn resolve_from(server: &ServerConfig, store: &Secrets) -> Result<ServerConfig, String> {
    let mut failure: Option<String> = None;
    let resolved = server.with_secrets(&mut |name| match store.get(name) {
        Ok(Some(value)) => {
            crate::mcp::bearer::secret::remember(&value);
            Some(value.expose().to_string())
        }
        Ok(None) => None,
        Err(e) => {
            failure = Some(format!("reading the secret {name}: {e}"));
            None
        }
    });
    match resolved {
        Ok(config) => Ok(config),
        Err(missing) => Err(match failure {
            Some(why) => format!(
                "{}: server {:?}: {why}; store it again: mcpdeck secret set {}",
                missing.at, server.name, missing.name
            ),
            None => format!(
                "{}: {}",
                missing.at,
                not_stored(&server.name, &missing.name, store)
            ),
        }),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn config(text: &str) -> crate::config::Config {
        crate::config::load_str(text, Some(std::path::Path::new("c.toml")), &|_| None)
            .expect("loads")
    }

    #[test]
    fn names_are_checked_and_suggested() {
        assert!(check_name("GITHUB_TOKEN").is_ok());
        assert!(check_name("a.b-c_9").is_ok());
        for bad in ["", "a b", "ü", "a/b", &"x".repeat(65)] {
            let e = check_name(bad).expect_err(bad);
            let msg = e.to_string();
            assert!(msg.starts_with("invalid secret name"), "{msg}");
            assert!(msg.contains("letters, digits"), "{msg}");
        }
        assert_eq!(
            check_name("my key").expect_err("space").to_string(),
            "invalid secret name \"my key\": use 1 to 64 letters, digits, `_`, `.` or `-` (e.g. my_key)"
        );
        assert_eq!(name_for(&["gh", "X-Api-Key"]), "gh_X-Api-Key");
        assert_eq!(name_for(&["a b", "c/d"]), "a_b_c_d");
        assert_eq!(name_for(&["", ""]), "SECRET");
        assert_eq!(name_for(&[&"y".repeat(80)]).len(), 64);
    }

    #[test]
    fn the_file_store_round_trips() {
        let tmp = tempfile::tempdir().expect("tempdir");
        let s = Secrets::file_in(tmp.path().join("mcpdeck"));
        assert_eq!(s.names().expect("names"), Vec::<String>::new());
        s.set("TOK", "sekrit").expect("set");
        s.set("other", "x").expect("set");
        assert_eq!(s.names().expect("names"), vec!["TOK", "other"]);
        assert_eq!(
            s.get("TOK").expect("get").map(|v| v.expose().to_string()),
            Some("sekrit".into())
        );
        assert!(matches!(s.set("TOK", ""), Err(Error::Empty { .. })));
        assert!(matches!(s.set("T K", "v"), Err(Error::InvalidName { .. })));
        assert!(matches!(s.get("T K"), Err(Error::InvalidName { .. })));
        assert!(s.remove("TOK").expect("rm"));
        assert!(!s.remove("TOK").expect("rm"));
        assert_eq!(s.get("TOK").expect("get"), None);
        assert!(s.describe().ends_with("secrets.json"), "{}", s.describe());
        assert!(!format!("{s:?}").contains('x'.to_string().repeat(2).as_str()));
    }

    #[test]
    fn resolve_puts_values_in_and_names_the_place_of_a_missing_one() {
        let tmp = tempfile::tempdir().expect("tempdir");
        let store = Secrets::file_in(tmp.path().to_path_buf());
        store.set("TOK", "sekrit-42").expect("set");
        let c = config(
            "[servers.s]\ncommand = \"srv\"\nargs = [\"--key=${secret:TOK}\", \"$${secret:TOK}\"]\nenv = { K = \"${secret:TOK}\" }\n\n[servers.h]\nurl = \"http://127.0.0.1:9/mcp\"\nheaders = { X-Team = \"t-${secret:NOPE}\" }\n",
        );
        let s = c.server("s").expect("s");
        let resolved = resolve_from(s, &store).expect("resolves");
        let crate::config::TransportConfig::Stdio { args, env, .. } = &resolved.transport else {
            panic!("stdio")
        };
        assert_eq!(args, &["--key=sekrit-42", "${secret:TOK}"]);
        assert_eq!(env, &[("K".to_string(), "sekrit-42".to_string())]);
        assert!(resolved.secrets.is_empty());
        // The loaded config shows the references only.
        assert!(!format!("{s:?}").contains("sekrit"));
        // Resolving again changes nothing.
        assert_eq!(resolve_from(&resolved, &store).expect("again"), resolved);

        let h = c.server("h").expect("h");
        let why = resolve_from(h, &store).expect_err("missing");
        assert!(
            why.starts_with("c.toml:8:22: server \"h\": the secret NOPE is not in mcpdeck's credential store (file "),
            "{why}"
        );
        assert!(
            why.ends_with("; store it: mcpdeck secret set NOPE"),
            "{why}"
        );
        // No references: the store is not even opened.
        let plain = ServerConfig::stdio("p", "x", &[]);
        assert_eq!(resolve(&plain, CredentialStoreKind::Keyring), Ok(plain));
    }
}
