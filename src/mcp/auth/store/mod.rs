//! Where OAuth tokens and client registrations are kept between runs.
//!
//! Two places, chosen by `[settings] credentials` (auto | keyring | file):
//!
//! - **The OS keyring** (macOS Keychain, Windows Credential Manager, the
//!   Secret Service on Linux and the BSDs), when one is reachable. Secrets
//!   go in the keyring, one entry per token and per client (service
//!   `mcpdeck`); a non-secret index file, `credentials-index.json`, lists
//!   what exists so lookups need not enumerate the keyring.
//! - **A file**, `credentials.json` in the user's data directory
//!   (`$XDG_DATA_HOME/mcpdeck` or `~/.local/share/mcpdeck` on Linux). The
//!   secrets are plain in it; the file is 0600 in a 0700 directory.
//!
//! Either way the JSON files are written atomically (a temp file in the same
//! directory, fsync, rename, fsync of the directory), and every change is a
//! read-modify-write under an exclusive `flock` on `credentials.lock`, so two
//! mcpdeck processes refreshing at once do not lose a rotated refresh token.
//! Readers take the lock shared.
//!
//! Tokens are keyed by (issuer, resource, client_id) and found by the MCP
//! server URL they were obtained for; registrations are keyed by
//! (issuer, client_id). Nothing here prints a secret: not the errors, not
//! `Debug`.
//!
//! Named secrets (`mcpdeck secret set NAME`, `${secret:NAME}` in the
//! config) are kept the same way, in files of their own (`secrets.json`,
//! or the keyring and `secrets-index.json`): see [`named`].
//!
//! Everything is synchronous: the files are small and callers hold the store
//! only briefly.

use std::fs::{self, File, OpenOptions};
use std::io;
use std::path::{Path, PathBuf};
use std::sync::{Arc, OnceLock, mpsc};
use std::time::Duration;

use serde::de::DeserializeOwned;
use serde::{Deserialize, Serialize};

use crate::config::CredentialStoreKind;
use crate::mcp::bearer::Secret;

/// The keyring service name, and the name of the data directory.
const SERVICE: &str = "mcpdeck";
/// The file store.
const FILE_NAME: &str = "credentials.json";
/// The keyring store's index (no secrets).
const INDEX_NAME: &str = "credentials-index.json";
/// Taken (`flock`) around every read and every read-modify-write.
const LOCK_NAME: &str = "credentials.lock";
/// The format of both JSON files.
const FORMAT_VERSION: u64 = 1;
/// How long the keyring probe may take before the keyring counts as absent.
const PROBE_TIMEOUT: Duration = Duration::from_secs(2);

/// What the user can set to avoid the keyring.
const FILE_HINT: &str =
    "set `credentials = \"file\"` in [settings] to keep OAuth credentials in a file instead";

/// A token kept for an MCP server.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct StoredToken {
    /// The authorization server that issued it.
    pub issuer: String,
    /// The RFC 8707 resource sent (`None` when omitted).
    pub resource: Option<String>,
    pub client_id: String,
    /// The MCP server URL this was obtained for (the lookup key at startup).
    pub server_url: String,
    pub access_token: Secret,
    pub refresh_token: Option<Secret>,
    /// The private key of a DPoP-bound token (RFC 9449; base64url PKCS#8):
    /// a secret, kept beside the token (absent in older files).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub dpop_key: Option<Secret>,
    pub token_type: String,
    /// The scopes granted.
    pub scopes: Vec<String>,
    /// Unix seconds.
    pub expires_at: Option<u64>,
    /// Unix seconds.
    pub obtained_at: u64,
}

/// A client registration kept for an authorization server.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct StoredClient {
    pub issuer: String,
    pub client_id: String,
    pub client_secret: Option<Secret>,
    /// `client_secret_basic` | `client_secret_post` | `none` | `private_key_jwt`.
    pub auth_method: String,
    pub redirect_uris: Vec<String>,
    /// Unix seconds.
    pub registered_at: u64,
    /// Unix seconds; `Some(0)` means it never expires.
    pub client_secret_expires_at: Option<u64>,
}

/// Why the store could not do what was asked. The messages name the file or
/// the keyring and the fix, and never contain a secret.
#[derive(Debug, thiserror::Error)]
pub enum StoreError {
    /// No home directory, so no data directory.
    #[error(
        "no home directory to keep OAuth credentials in: set $HOME (or $XDG_DATA_HOME) to a directory mcpdeck may write"
    )]
    NoHome,
    /// `credentials = "keyring"`, and no keyring answered.
    #[error("no OS keyring is reachable ({reason}); {FILE_HINT}")]
    KeyringUnavailable {
        #[source]
        reason: KeyringError,
    },
    /// A file or directory operation failed.
    #[error("could not {action} {}: {source}", path.display())]
    Io {
        action: &'static str,
        path: PathBuf,
        #[source]
        source: io::Error,
    },
    /// A credentials file could not be encoded (serialized) before writing.
    #[error("could not encode {}: {source}", path.display())]
    Encode {
        path: PathBuf,
        #[source]
        source: serde_json::Error,
    },
    /// A credentials file that cannot be read as one. It is left as it is.
    /// The detail never quotes the file (it may hold secrets).
    #[error(
        "{} is not a credentials file this mcpdeck can read ({detail}); it was left untouched: delete it ({holds}",
        path.display()
    )]
    Corrupt {
        path: PathBuf,
        detail: String,
        /// What deleting it forgets, and how to get it back.
        holds: &'static str,
    },
    /// The keyring refused an operation.
    #[error("the OS keyring ({keyring}) could not {action}: {source}; {FILE_HINT}")]
    Keyring {
        keyring: &'static str,
        action: &'static str,
        #[source]
        source: KeyringError,
    },
}

/// The store of tokens and client registrations.
pub struct CredentialStore {
    /// The data directory: the file store, the index and the lock live here.
    dir: PathBuf,
    backend: Backend,
    /// Why `auto` did not use the keyring, if it did not.
    fallback: Option<KeyringError>,
}

enum Backend {
    /// Everything in `credentials.json`.
    File,
    /// Secrets in the keyring, the rest in `credentials-index.json`.
    Keyring(Arc<dyn Vault>),
}

impl std::fmt::Debug for CredentialStore {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("CredentialStore")
            .field("where", &self.describe())
            .finish()
    }
}

impl CredentialStore {
    /// Opens the store the setting names. `Auto`: the keyring when one is
    /// reachable (probed once per process, for at most two seconds), else
    /// the file. `Keyring` when none is reachable: an error that says so and
    /// suggests `credentials = "file"`. Nothing is created until something
    /// is saved.
    pub fn open(kind: CredentialStoreKind) -> Result<CredentialStore, StoreError> {
        Self::open_with(kind, data_dir, os_keyring)
    }

    /// The decision behind [`CredentialStore::open`], with the directory
    /// and the keyring probe passed in.
    fn open_with(
        kind: CredentialStoreKind,
        dir: impl FnOnce() -> Result<PathBuf, StoreError>,
        probe: impl FnOnce() -> Result<Arc<dyn Vault>, KeyringError>,
    ) -> Result<CredentialStore, StoreError> {
        let dir = dir()?;
        match kind {
            CredentialStoreKind::File => Ok(Self::file_in(dir)),
            CredentialStoreKind::Keyring => match probe() {
                Ok(vault) => Ok(Self::keyring_in(dir, vault)),
                Err(reason) => Err(StoreError::KeyringUnavailable { reason }),
            },
            CredentialStoreKind::Auto => match probe() {
                Ok(vault) => Ok(Self::keyring_in(dir, vault)),
                Err(reason) => {
                    tracing::debug!("no OS keyring ({reason}): OAuth credentials go to a file");
                    let mut store = Self::file_in(dir);
                    store.fallback = Some(reason);
                    Ok(store)
                }
            },
        }
    }

    /// For tests and for an explicit folder: a file store in `dir`.
    pub fn file_in(dir: PathBuf) -> CredentialStore {
        CredentialStore {
            dir,
            backend: Backend::File,
            fallback: None,
        }
    }

    fn keyring_in(dir: PathBuf, vault: Arc<dyn Vault>) -> CredentialStore {
        CredentialStore {
            dir,
            backend: Backend::Keyring(vault),
            fallback: None,
        }
    }

    /// Where secrets go, for `auth status`: `file /home/u/.local/share/mcpdeck/credentials.json`
    /// or `OS keyring (Secret Service)`.
    pub fn describe(&self) -> String {
        match &self.backend {
            Backend::File => format!("file {}", self.dir.join(FILE_NAME).display()),
            Backend::Keyring(vault) => format!("OS keyring ({})", vault.name()),
        }
    }

    /// `"file"` or `"keyring"`.
    pub fn kind_name(&self) -> &'static str {
        match self.backend {
            Backend::File => "file",
            Backend::Keyring(_) => "keyring",
        }
    }

    /// Why `auto` chose the file: the keyring probe's answer. `None` when the
    /// store is what was asked for.
    pub fn fallback_reason(&self) -> Option<&KeyringError> {
        self.fallback.as_ref()
    }

    /// The newest token obtained for this server URL (exact string match
    /// after trimming one trailing '/'), optionally only for the given
    /// client_id.
    pub fn token_for(
        &self,
        server_url: &str,
        client_id: Option<&str>,
    ) -> Result<Option<StoredToken>, StoreError> {
        let wanted =
            |url: &str, id: &str| same_url(url, server_url) && client_id.is_none_or(|c| c == id);
        match &self.backend {
            Backend::File => {
                let doc: Doc<StoredToken, StoredClient> = self.read(FILE_NAME)?;
                Ok(newest(
                    &doc.tokens,
                    |t| wanted(&t.server_url, &t.client_id),
                    |t| t.obtained_at,
                )
                .cloned())
            }
            Backend::Keyring(vault) => {
                let doc: Doc<TokenMeta, ClientMeta> = self.read(INDEX_NAME)?;
                let mut candidates: Vec<(usize, &TokenMeta)> = doc
                    .tokens
                    .iter()
                    .enumerate()
                    .filter(|(_, t)| wanted(&t.server_url, &t.client_id))
                    .collect();
                candidates.sort_by_key(|(i, t)| std::cmp::Reverse((t.obtained_at, *i)));
                for (_, meta) in candidates {
                    if let Some(token) = load_token(vault.as_ref(), meta)? {
                        return Ok(Some(token));
                    }
                }
                Ok(None)
            }
        }
    }

    /// Insert or replace the token with the same (issuer, resource,
    /// client_id). When this returns `Ok` the token is on disk (or in the
    /// keyring): callers rely on this for rotated refresh tokens.
    pub fn save_token(&self, token: &StoredToken) -> Result<(), StoreError> {
        match &self.backend {
            Backend::File => self.update(FILE_NAME, |doc: &mut Doc<StoredToken, StoredClient>| {
                doc.tokens.retain(|t| !same_token(t, token));
                doc.tokens.push(token.clone());
                Ok(())
            }),
            Backend::Keyring(vault) => {
                self.update(INDEX_NAME, |doc: &mut Doc<TokenMeta, ClientMeta>| {
                    let key = token_key(&token.issuer, token.resource.as_deref(), &token.client_id);
                    let old_parts = doc
                        .tokens
                        .iter()
                        .filter(|m| m.key() == key)
                        .map(|m| m.parts)
                        .max()
                        .unwrap_or(0);
                    let blob = encode_secret(&TokenSecrets {
                        access_token: token.access_token.clone(),
                        refresh_token: token.refresh_token.clone(),
                        dpop_key: token.dpop_key.clone(),
                    });
                    let parts = put_blob(vault.as_ref(), &key, &blob, old_parts)?;
                    doc.tokens.retain(|m| m.key() != key);
                    doc.tokens.push(TokenMeta::of(token, parts));
                    Ok(())
                })
            }
        }
    }

    /// Remove every token for this server URL (matched as in
    /// [`CredentialStore::token_for`]); returns what was removed, so a
    /// caller can revoke them.
    pub fn remove_tokens(&self, server_url: &str) -> Result<Vec<StoredToken>, StoreError> {
        match &self.backend {
            Backend::File => self.update(FILE_NAME, |doc: &mut Doc<StoredToken, StoredClient>| {
                let (gone, kept) = std::mem::take(&mut doc.tokens)
                    .into_iter()
                    .partition(|t| same_url(&t.server_url, server_url));
                doc.tokens = kept;
                Ok(gone)
            }),
            Backend::Keyring(vault) => {
                self.update(INDEX_NAME, |doc: &mut Doc<TokenMeta, ClientMeta>| {
                    let (gone, kept): (Vec<TokenMeta>, Vec<TokenMeta>) =
                        std::mem::take(&mut doc.tokens)
                            .into_iter()
                            .partition(|t| same_url(&t.server_url, server_url));
                    // Read every secret first (to hand back), then delete: if the
                    // keyring fails half way the index still lists what is left.
                    let mut removed = Vec::new();
                    for meta in &gone {
                        if let Some(token) = load_token(vault.as_ref(), meta)? {
                            removed.push(token);
                        }
                    }
                    for meta in &gone {
                        delete_blob(vault.as_ref(), &meta.key(), meta.parts)?;
                    }
                    doc.tokens = kept;
                    Ok(removed)
                })
            }
        }
    }

    /// Remove the token with `token`'s (issuer, resource, client_id) only
    /// while it is still `token` (the same access token): one another
    /// mcpdeck process stored meanwhile (a refresh, a login) stays. The
    /// check and the removal happen under the exclusive lock. Returns
    /// whether it was removed.
    pub fn remove_token_if_current(&self, token: &StoredToken) -> Result<bool, StoreError> {
        let this = |t: &StoredToken| same_token(t, token) && t.access_token == token.access_token;
        match &self.backend {
            Backend::File => self.update(FILE_NAME, |doc: &mut Doc<StoredToken, StoredClient>| {
                let before = doc.tokens.len();
                doc.tokens.retain(|t| !this(t));
                Ok(doc.tokens.len() != before)
            }),
            Backend::Keyring(vault) => {
                self.update(INDEX_NAME, |doc: &mut Doc<TokenMeta, ClientMeta>| {
                    let key = token_key(&token.issuer, token.resource.as_deref(), &token.client_id);
                    let Some(meta) = doc.tokens.iter().find(|m| m.key() == key).cloned() else {
                        return Ok(false);
                    };
                    // An entry whose secret is gone is removed too.
                    let current = load_token(vault.as_ref(), &meta)?;
                    if current.as_ref().is_some_and(|t| !this(t)) {
                        return Ok(false);
                    }
                    delete_blob(vault.as_ref(), &key, meta.parts)?;
                    doc.tokens.retain(|m| m.key() != key);
                    Ok(true)
                })
            }
        }
    }

    /// Every token kept, for `auth status`.
    pub fn tokens(&self) -> Result<Vec<StoredToken>, StoreError> {
        match &self.backend {
            Backend::File => {
                let doc: Doc<StoredToken, StoredClient> = self.read(FILE_NAME)?;
                Ok(doc.tokens)
            }
            Backend::Keyring(vault) => {
                let doc: Doc<TokenMeta, ClientMeta> = self.read(INDEX_NAME)?;
                let mut out = Vec::new();
                for meta in &doc.tokens {
                    if let Some(token) = load_token(vault.as_ref(), meta)? {
                        out.push(token);
                    }
                }
                Ok(out)
            }
        }
    }

    /// The registration kept for an authorization server (keyed by issuer;
    /// if several, the newest of those whose redirect_uris contain
    /// `redirect_uri` when given and one does, else the newest).
    pub fn client_for(
        &self,
        issuer: &str,
        redirect_uri: Option<&str>,
    ) -> Result<Option<StoredClient>, StoreError> {
        match &self.backend {
            Backend::File => {
                let doc: Doc<StoredToken, StoredClient> = self.read(FILE_NAME)?;
                Ok(pick_client(&doc.clients, issuer, redirect_uri, |c| {
                    (&c.issuer, &c.redirect_uris, c.registered_at)
                })
                .cloned())
            }
            Backend::Keyring(vault) => {
                let doc: Doc<TokenMeta, ClientMeta> = self.read(INDEX_NAME)?;
                let Some(meta) = pick_client(&doc.clients, issuer, redirect_uri, |c| {
                    (&c.issuer, &c.redirect_uris, c.registered_at)
                }) else {
                    return Ok(None);
                };
                load_client(vault.as_ref(), meta)
            }
        }
    }

    /// Insert or replace the registration with the same (issuer, client_id).
    pub fn save_client(&self, client: &StoredClient) -> Result<(), StoreError> {
        match &self.backend {
            Backend::File => self.update(FILE_NAME, |doc: &mut Doc<StoredToken, StoredClient>| {
                doc.clients
                    .retain(|c| !(c.issuer == client.issuer && c.client_id == client.client_id));
                doc.clients.push(client.clone());
                Ok(())
            }),
            Backend::Keyring(vault) => {
                self.update(INDEX_NAME, |doc: &mut Doc<TokenMeta, ClientMeta>| {
                    let key = client_key(&client.issuer, &client.client_id);
                    let old_parts = doc
                        .clients
                        .iter()
                        .filter(|m| m.key() == key)
                        .map(|m| m.parts)
                        .max()
                        .unwrap_or(0);
                    let blob = match &client.client_secret {
                        Some(secret) => encode_secret(&ClientSecrets {
                            client_secret: secret.clone(),
                        }),
                        None => Vec::new(),
                    };
                    let parts = put_blob(vault.as_ref(), &key, &blob, old_parts)?;
                    doc.clients.retain(|m| m.key() != key);
                    doc.clients.push(ClientMeta::of(client, parts));
                    Ok(())
                })
            }
        }
    }

    /// Forget the registration (issuer, client_id), if kept.
    pub fn remove_client(&self, issuer: &str, client_id: &str) -> Result<(), StoreError> {
        let this = |i: &str, c: &str| i == issuer && c == client_id;
        match &self.backend {
            Backend::File => self.update(FILE_NAME, |doc: &mut Doc<StoredToken, StoredClient>| {
                doc.clients.retain(|c| !this(&c.issuer, &c.client_id));
                Ok(())
            }),
            Backend::Keyring(vault) => {
                self.update(INDEX_NAME, |doc: &mut Doc<TokenMeta, ClientMeta>| {
                    for meta in doc.clients.iter().filter(|c| this(&c.issuer, &c.client_id)) {
                        delete_blob(vault.as_ref(), &meta.key(), meta.parts)?;
                    }
                    doc.clients.retain(|c| !this(&c.issuer, &c.client_id));
                    Ok(())
                })
            }
        }
    }

    /// Reads one of the JSON files under a shared lock. A missing directory
    /// or file reads as empty (and nothing is created).
    fn read<D>(&self, name: &str) -> Result<D, StoreError>
    where
        D: DeserializeOwned + Default,
    {
        if !self.dir.exists() {
            return Ok(D::default());
        }
        tighten_dir(&self.dir)?;
        let _lock = FileLock::take(&self.dir.join(LOCK_NAME), false)?;
        read_doc(&self.dir.join(name))
    }

    /// A read-modify-write of one of the JSON files under the exclusive
    /// lock. The file is written (atomically) only when `change` succeeds
    /// and changed something.
    fn update<D, R>(
        &self,
        name: &str,
        change: impl FnOnce(&mut D) -> Result<R, StoreError>,
    ) -> Result<R, StoreError>
    where
        D: DeserializeOwned + Serialize + Clone + PartialEq + Default,
    {
        ensure_dir(&self.dir)?;
        let _lock = FileLock::take(&self.dir.join(LOCK_NAME), true)?;
        let path = self.dir.join(name);
        let mut doc: D = read_doc(&path)?;
        let before = doc.clone();
        let out = change(&mut doc)?;
        if doc != before {
            let bytes = serde_json::to_vec_pretty(&doc).map_err(|source| StoreError::Encode {
                path: path.clone(),
                source,
            })?;
            write_atomic(&self.dir, name, &bytes)?;
        }
        Ok(out)
    }
}

// ---------------------------------------------------------------------------
// Matching.

/// Compares server URLs: exact, after trimming one trailing '/' from each.
fn same_url(a: &str, b: &str) -> bool {
    let trim = |s: &str| s.strip_suffix('/').unwrap_or(s).to_string();
    trim(a) == trim(b)
}

fn same_token(a: &StoredToken, b: &StoredToken) -> bool {
    a.issuer == b.issuer && a.resource == b.resource && a.client_id == b.client_id
}

/// The newest item that matches: the largest time, the later one on a tie
/// (saves append, so later means saved more recently).
fn newest<T>(items: &[T], matches: impl Fn(&T) -> bool, time: impl Fn(&T) -> u64) -> Option<&T> {
    items
        .iter()
        .enumerate()
        .filter(|(_, t)| matches(t))
        .max_by_key(|(i, t)| (time(t), *i))
        .map(|(_, t)| t)
}

fn pick_client<'a, C>(
    clients: &'a [C],
    issuer: &str,
    redirect_uri: Option<&str>,
    fields: impl Fn(&C) -> (&String, &Vec<String>, u64),
) -> Option<&'a C> {
    let of_issuer = |c: &C| fields(c).0 == issuer;
    if let Some(uri) = redirect_uri {
        let with_uri = newest(
            clients,
            |c| of_issuer(c) && fields(c).1.iter().any(|u| u == uri),
            |c| fields(c).2,
        );
        if with_uri.is_some() {
            return with_uri;
        }
    }
    newest(clients, of_issuer, |c| fields(c).2)
}

mod file;
mod named;
mod vault;

use file::*;
use named::*;
pub use vault::KeyringError;
use vault::*;

#[cfg(test)]
mod tests {
    use super::*;
    use std::collections::BTreeMap;
    use std::sync::Mutex;
    use std::sync::atomic::{AtomicBool, Ordering};

    fn token(url: &str, client: &str, access: &str, at: u64) -> StoredToken {
        StoredToken {
            issuer: "https://as.example.com".into(),
            resource: Some("https://mcp.example.com/mcp".into()),
            client_id: client.into(),
            server_url: url.into(),
            access_token: Secret::new(access),
            refresh_token: Some(Secret::new(format!("refresh-{access}"))),
            dpop_key: Some(Secret::new(format!("dpop-key-of-{access}"))),
            token_type: "Bearer".into(),
            scopes: vec!["read".into()],
            expires_at: Some(at + 3600),
            obtained_at: at,
        }
    }

    fn client(id: &str, redirect: &str, at: u64, secret: Option<&str>) -> StoredClient {
        StoredClient {
            issuer: "https://as.example.com".into(),
            client_id: id.into(),
            client_secret: secret.map(Secret::new),
            auth_method: if secret.is_some() {
                "client_secret_basic"
            } else {
                "none"
            }
            .into(),
            redirect_uris: vec![redirect.into()],
            registered_at: at,
            client_secret_expires_at: None,
        }
    }

    fn names(dir: &Path) -> Vec<String> {
        let mut out: Vec<String> = fs::read_dir(dir)
            .expect("list dir")
            .map(|e| e.expect("entry").file_name().to_string_lossy().into_owned())
            .collect();
        out.sort();
        out
    }

    #[cfg(unix)]
    fn mode(path: &Path) -> u32 {
        use std::os::unix::fs::PermissionsExt;
        fs::metadata(path).expect("stat").permissions().mode() & 0o777
    }

    /// An in-memory keyring.
    #[derive(Default)]
    struct MemVault {
        entries: Mutex<BTreeMap<String, Vec<u8>>>,
        max_part: usize,
        fail: AtomicBool,
    }

    impl MemVault {
        fn with_part(max_part: usize) -> Arc<MemVault> {
            Arc::new(MemVault {
                max_part,
                ..MemVault::default()
            })
        }
        fn dump(&self) -> BTreeMap<String, Vec<u8>> {
            self.entries.lock().expect("lock").clone()
        }
    }

    impl Vault for MemVault {
        fn name(&self) -> &'static str {
            "test vault"
        }
        fn max_part(&self) -> usize {
            self.max_part
        }
        fn get(&self, user: &str) -> Result<Option<Vec<u8>>, KeyringError> {
            Ok(self.entries.lock().expect("lock").get(user).cloned())
        }
        fn set(&self, user: &str, secret: &[u8]) -> Result<(), KeyringError> {
            if self.fail.load(Ordering::SeqCst) {
                return Err(KeyringError::NoAccess("the collection is locked".into()));
            }
            self.entries
                .lock()
                .expect("lock")
                .insert(user.to_string(), secret.to_vec());
            Ok(())
        }
        fn delete(&self, user: &str) -> Result<(), KeyringError> {
            self.entries.lock().expect("lock").remove(user);
            Ok(())
        }
    }

    #[test]
    fn store_is_send_and_sync() {
        fn check<T: Send + Sync>() {}
        check::<CredentialStore>();
    }

    #[test]
    fn missing_directory_reads_empty_and_creates_nothing() {
        let tmp = tempfile::tempdir().expect("tempdir");
        let dir = tmp.path().join("mcpdeck");
        let store = CredentialStore::file_in(dir.clone());
        assert_eq!(store.tokens().expect("tokens"), vec![]);
        assert_eq!(store.token_for("https://x", None).expect("lookup"), None);
        assert_eq!(store.client_for("https://as", None).expect("lookup"), None);
        assert!(!dir.exists());
        assert_eq!(store.kind_name(), "file");
        assert_eq!(
            store.describe(),
            format!("file {}", dir.join("credentials.json").display())
        );
    }

    #[test]
    fn file_tokens_round_trip() {
        let tmp = tempfile::tempdir().expect("tempdir");
        let store = CredentialStore::file_in(tmp.path().join("mcpdeck"));
        let url = "https://mcp.example.com/mcp";

        let a = token(url, "client-a", "access-a1", 100);
        store.save_token(&a).expect("save");
        assert_eq!(store.token_for(url, None).expect("lookup"), Some(a.clone()));
        // One trailing slash either side is ignored; anything else is not.
        assert_eq!(
            store.token_for(&format!("{url}/"), None).expect("lookup"),
            Some(a.clone())
        );
        let slashed = token(&format!("{url}/"), "client-s", "access-s", 50);
        store.save_token(&slashed).expect("save");
        assert_eq!(
            store.token_for(url, Some("client-s")).expect("lookup"),
            Some(slashed.clone())
        );
        assert_eq!(
            store.token_for(&format!("{url}//"), None).expect("lookup"),
            None
        );
        assert_eq!(
            store
                .token_for("https://mcp.example.com/MCP", None)
                .expect("lookup"),
            None
        );

        // Same (issuer, resource, client_id): replaced, not added.
        let a2 = token(url, "client-a", "access-a2", 200);
        store.save_token(&a2).expect("save");
        assert_eq!(store.tokens().expect("tokens").len(), 2);
        assert_eq!(
            store.token_for(url, Some("client-a")).expect("lookup"),
            Some(a2.clone())
        );

        // A different resource is another token.
        let mut other_resource = token(url, "client-a", "access-r", 150);
        other_resource.resource = None;
        store.save_token(&other_resource).expect("save");
        assert_eq!(store.tokens().expect("tokens").len(), 3);

        // The newest for the URL, or the one for the client asked for.
        let b = token(url, "client-b", "access-b", 300);
        store.save_token(&b).expect("save");
        assert_eq!(store.token_for(url, None).expect("lookup"), Some(b.clone()));
        assert_eq!(
            store.token_for(url, Some("client-a")).expect("lookup"),
            Some(a2.clone())
        );
        assert_eq!(store.token_for(url, Some("nobody")).expect("lookup"), None);

        // Another server's token stays when this one's are removed.
        // (Its own resource: tokens are keyed by (issuer, resource, client_id).)
        let mut elsewhere = token("https://other.example.com/mcp", "client-a", "access-o", 10);
        elsewhere.resource = Some("https://other.example.com/mcp".into());
        store.save_token(&elsewhere).expect("save");

        let mut removed = store.remove_tokens(&format!("{url}/")).expect("remove");
        removed.sort_by_key(|t| t.obtained_at);
        assert_eq!(removed, vec![slashed, other_resource, a2, b]);
        assert_eq!(store.token_for(url, None).expect("lookup"), None);
        assert_eq!(store.tokens().expect("tokens"), vec![elsewhere]);
        assert_eq!(store.remove_tokens(url).expect("remove"), vec![]);
    }

    /// A token is removed only while it is the one stored: a newer one for
    /// the same (issuer, resource, client_id), saved by another process,
    /// stays; other tokens are untouched.
    fn removes_only_the_current_token(store: &CredentialStore) {
        let url = "https://mcp.example.com/mcp";
        let old = token(url, "client-a", "access-old", 100);
        let other = token(url, "client-b", "access-b", 150);
        store.save_token(&old).expect("save");
        store.save_token(&other).expect("save");
        let newer = token(url, "client-a", "access-new", 200);
        store.save_token(&newer).expect("save");
        assert!(!store.remove_token_if_current(&old).expect("remove"));
        assert_eq!(
            store.token_for(url, Some("client-a")).expect("lookup"),
            Some(newer.clone())
        );
        assert!(store.remove_token_if_current(&newer).expect("remove"));
        assert_eq!(
            store.token_for(url, Some("client-a")).expect("lookup"),
            None
        );
        assert!(!store.remove_token_if_current(&newer).expect("remove"));
        assert_eq!(store.tokens().expect("tokens"), vec![other]);
    }

    #[test]
    fn file_removes_only_the_current_token() {
        let tmp = tempfile::tempdir().expect("tempdir");
        removes_only_the_current_token(&CredentialStore::file_in(tmp.path().join("mcpdeck")));
    }

    #[test]
    fn keyring_removes_only_the_current_token() {
        let tmp = tempfile::tempdir().expect("tempdir");
        let vault = MemVault::with_part(usize::MAX);
        let store = CredentialStore::keyring_in(tmp.path().to_path_buf(), vault.clone());
        removes_only_the_current_token(&store);
        // Only the remaining token's secret is left in the keyring.
        assert_eq!(vault.dump().len(), 1);
    }

    #[test]
    fn file_clients_round_trip() {
        let tmp = tempfile::tempdir().expect("tempdir");
        let store = CredentialStore::file_in(tmp.path().to_path_buf());
        let issuer = "https://as.example.com";
        let one = client("one", "http://127.0.0.1:4000/callback", 10, Some("s1"));
        let two = client("two", "http://127.0.0.1:5000/callback", 20, None);
        store.save_client(&one).expect("save");
        store.save_client(&two).expect("save");

        assert_eq!(
            store.client_for(issuer, None).expect("lookup"),
            Some(two.clone())
        );
        assert_eq!(
            store
                .client_for(issuer, Some("http://127.0.0.1:4000/callback"))
                .expect("lookup"),
            Some(one.clone())
        );
        assert_eq!(
            store
                .client_for(issuer, Some("http://127.0.0.1:9999/callback"))
                .expect("lookup"),
            Some(two.clone())
        );
        assert_eq!(
            store.client_for("https://other", None).expect("lookup"),
            None
        );

        let mut one_again = one.clone();
        one_again.client_secret = Some(Secret::new("s1-rotated"));
        one_again.registered_at = 30;
        store.save_client(&one_again).expect("save");
        assert_eq!(
            store.client_for(issuer, None).expect("lookup"),
            Some(one_again.clone())
        );

        store.remove_client(issuer, "one").expect("remove");
        assert_eq!(store.client_for(issuer, None).expect("lookup"), Some(two));
        store.remove_client(issuer, "two").expect("remove");
        store.remove_client(issuer, "never-there").expect("remove");
        assert_eq!(store.client_for(issuer, None).expect("lookup"), None);
    }

    #[test]
    fn file_format_is_versioned_json() {
        let tmp = tempfile::tempdir().expect("tempdir");
        let store = CredentialStore::file_in(tmp.path().to_path_buf());
        store
            .save_token(&token("https://m/", "c", "acc-1", 1))
            .expect("save");
        let text = fs::read_to_string(tmp.path().join("credentials.json")).expect("read");
        let v: serde_json::Value = serde_json::from_str(&text).expect("json");
        assert_eq!(v["version"], 1);
        assert_eq!(v["tokens"][0]["access_token"], "acc-1");
        assert_eq!(v["clients"], serde_json::json!([]));
    }

    #[cfg(unix)]
    #[test]
    fn directory_is_0700_and_files_0600() {
        let tmp = tempfile::tempdir().expect("tempdir");
        let dir = tmp.path().join("share").join("mcpdeck");
        let store = CredentialStore::file_in(dir.clone());
        store
            .save_token(&token("https://m", "c", "acc", 1))
            .expect("save");
        assert_eq!(mode(&dir), 0o700);
        assert_eq!(mode(&dir.join("credentials.json")), 0o600);
        assert_eq!(mode(&dir.join("credentials.lock")), 0o600);
    }

    #[cfg(unix)]
    #[test]
    fn loose_directory_and_file_are_tightened() {
        use std::os::unix::fs::PermissionsExt;
        let tmp = tempfile::tempdir().expect("tempdir");
        let dir = tmp.path().join("mcpdeck");
        fs::create_dir(&dir).expect("mkdir");
        fs::set_permissions(&dir, fs::Permissions::from_mode(0o755)).expect("chmod");
        let store = CredentialStore::file_in(dir.clone());
        store
            .save_token(&token("https://m", "c", "acc", 1))
            .expect("save");
        assert_eq!(mode(&dir), 0o700);

        // A reader tightens too.
        fs::set_permissions(&dir, fs::Permissions::from_mode(0o755)).expect("chmod");
        fs::set_permissions(
            dir.join("credentials.json"),
            fs::Permissions::from_mode(0o644),
        )
        .expect("chmod");
        assert_eq!(store.tokens().expect("tokens").len(), 1);
        assert_eq!(mode(&dir), 0o700);
        assert_eq!(mode(&dir.join("credentials.json")), 0o600);
    }

    #[test]
    fn corrupt_file_is_an_error_and_left_alone() {
        let tmp = tempfile::tempdir().expect("tempdir");
        let path = tmp.path().join("credentials.json");
        let store = CredentialStore::file_in(tmp.path().to_path_buf());
        for content in [
            "{\"version\":1,\"tokens\":[{\"access_token\":\"sekrit-123\"",
            "{\"version\":1,\"tokens\":[{\"access_token\":\"sekrit-123\"}]}",
            "{\"version\":1,\"tokens\":\"sekrit-123\"}",
            "not json sekrit-123",
            "{\"tokens\":[]}",
            "\u{0}\u{1}binary",
        ] {
            fs::write(&path, content).expect("write");
            let errors = [
                store.tokens().map(|_| ()).expect_err("tokens"),
                store
                    .token_for("https://m", None)
                    .map(|_| ())
                    .expect_err("lookup"),
                store
                    .save_token(&token("https://m", "c", "acc", 1))
                    .expect_err("save"),
                store
                    .remove_tokens("https://m")
                    .map(|_| ())
                    .expect_err("remove"),
                store
                    .save_client(&client("c", "http://l", 1, Some("cs")))
                    .expect_err("save"),
            ];
            for e in errors {
                assert!(matches!(e, StoreError::Corrupt { .. }), "{e:?}");
                let msg = e.to_string();
                assert!(msg.contains(&path.display().to_string()), "{msg}");
                assert!(msg.contains("delete it"), "{msg}");
                assert!(!msg.contains("sekrit"), "{msg}");
            }
            assert_eq!(fs::read_to_string(&path).expect("read"), content);
        }
        assert_eq!(
            names(tmp.path()),
            vec!["credentials.json", "credentials.lock"]
        );
    }

    #[test]
    fn newer_format_is_not_overwritten() {
        let tmp = tempfile::tempdir().expect("tempdir");
        let path = tmp.path().join("credentials.json");
        let content = "{\"version\":2,\"tokens\":[],\"clients\":[],\"vaults\":{}}";
        fs::write(&path, content).expect("write");
        let store = CredentialStore::file_in(tmp.path().to_path_buf());
        let e = store
            .save_token(&token("https://m", "c", "acc", 1))
            .expect_err("save");
        assert!(e.to_string().contains("format version 2"), "{e}");
        assert_eq!(fs::read_to_string(&path).expect("read"), content);
    }

    #[test]
    fn debug_shows_no_secret() {
        let t = token("https://m", "c", "sekrit-access", 1);
        let c = client("c", "http://l", 1, Some("sekrit-client"));
        let shown = format!(
            "{t:?} {c:?} {:?}",
            CredentialStore::file_in(PathBuf::from("/x"))
        );
        assert!(!shown.contains("sekrit"), "{shown}");
        assert!(shown.contains("***"), "{shown}");
    }

    #[test]
    fn concurrent_saves_lose_nothing() {
        let tmp = tempfile::tempdir().expect("tempdir");
        let dir = tmp.path().join("mcpdeck");
        let threads: Vec<_> = ["a", "b"]
            .into_iter()
            .map(|who| {
                let store = CredentialStore::file_in(dir.clone());
                std::thread::spawn(move || {
                    for i in 0..50 {
                        let t = token(
                            "https://m",
                            &format!("{who}-{i}"),
                            &format!("acc-{who}-{i}"),
                            i,
                        );
                        store.save_token(&t).expect("save");
                    }
                })
            })
            .collect();
        for t in threads {
            t.join().expect("thread");
        }
        let store = CredentialStore::file_in(dir.clone());
        let tokens = store.tokens().expect("tokens");
        assert_eq!(tokens.len(), 100);
        for who in ["a", "b"] {
            for i in 0..50 {
                let id = format!("{who}-{i}");
                let found = store.token_for("https://m", Some(&id)).expect("lookup");
                assert_eq!(
                    found.map(|t| t.access_token.expose().to_string()),
                    Some(format!("acc-{id}"))
                );
            }
        }
        assert_eq!(names(&dir), vec!["credentials.json", "credentials.lock"]);
    }

    #[test]
    fn no_temp_files_left_behind() {
        let tmp = tempfile::tempdir().expect("tempdir");
        let store = CredentialStore::file_in(tmp.path().to_path_buf());
        store
            .save_token(&token("https://m", "c", "acc", 1))
            .expect("save");
        store
            .save_client(&client("c", "http://l", 1, None))
            .expect("save");
        store.remove_tokens("https://m").expect("remove");
        store
            .remove_client("https://as.example.com", "c")
            .expect("remove");
        assert_eq!(
            names(tmp.path()),
            vec!["credentials.json", "credentials.lock"]
        );
    }

    #[cfg(unix)]
    #[test]
    fn a_failed_write_leaves_no_temp_file() {
        let tmp = tempfile::tempdir().expect("tempdir");
        // The target is a directory: the rename fails after the temp file
        // was written.
        fs::create_dir(tmp.path().join("credentials.json")).expect("mkdir");
        fs::write(tmp.path().join("credentials.json").join("x"), "x").expect("write");
        let e = write_atomic(tmp.path(), "credentials.json", b"{}").expect_err("rename");
        assert!(e.to_string().contains("credentials.json"), "{e}");
        assert_eq!(names(tmp.path()), vec!["credentials.json"]);
    }

    #[test]
    fn auto_falls_back_to_the_file_when_the_probe_fails() {
        let tmp = tempfile::tempdir().expect("tempdir");
        let dir = || Ok(tmp.path().to_path_buf());
        let store = CredentialStore::open_with(CredentialStoreKind::Auto, dir, || {
            Err(KeyringError::Platform("no D-Bus session bus".to_string()))
        })
        .expect("open");
        assert_eq!(store.kind_name(), "file");
        assert_eq!(
            store.fallback_reason().map(ToString::to_string).as_deref(),
            Some("platform failure: no D-Bus session bus")
        );
        assert!(
            store.describe().starts_with("file "),
            "{}",
            store.describe()
        );

        let store = CredentialStore::open_with(CredentialStoreKind::Auto, dir, || {
            Ok(MemVault::with_part(usize::MAX) as Arc<dyn Vault>)
        })
        .expect("open");
        assert_eq!(store.kind_name(), "keyring");
        assert_eq!(store.describe(), "OS keyring (test vault)");
        assert!(store.fallback_reason().is_none());
    }

    #[test]
    fn keyring_setting_without_a_keyring_is_an_error() {
        let tmp = tempfile::tempdir().expect("tempdir");
        let e = CredentialStore::open_with(
            CredentialStoreKind::Keyring,
            || Ok(tmp.path().to_path_buf()),
            || Err(KeyringError::Platform("no D-Bus session bus".to_string())),
        )
        .expect_err("open");
        assert!(matches!(e, StoreError::KeyringUnavailable { .. }), "{e:?}");
        let msg = e.to_string();
        assert!(msg.contains("no D-Bus session bus"), "{msg}");
        assert!(msg.contains("credentials = \"file\""), "{msg}");
    }

    #[test]
    fn file_setting_never_probes() {
        let tmp = tempfile::tempdir().expect("tempdir");
        let store = CredentialStore::open_with(
            CredentialStoreKind::File,
            || Ok(tmp.path().to_path_buf()),
            || panic!("probed"),
        )
        .expect("open");
        assert_eq!(store.kind_name(), "file");
        assert!(store.fallback_reason().is_none());
        let e = CredentialStore::open_with(
            CredentialStoreKind::File,
            || Err(StoreError::NoHome),
            || panic!("probed"),
        )
        .expect_err("no home");
        assert!(e.to_string().contains("$HOME"), "{e}");
    }

    #[test]
    fn a_hanging_probe_gives_up_in_time() {
        let started = std::time::Instant::now();
        let answer = probe_bounded(Duration::from_millis(100), || {
            std::thread::sleep(Duration::from_secs(5));
            Ok(())
        });
        assert!(
            matches!(answer, Err(KeyringError::ProbeTimeout(t)) if t == Duration::from_millis(100)),
            "{answer:?}"
        );
        assert!(started.elapsed() < Duration::from_secs(2));
        assert!(probe_bounded(Duration::from_secs(2), || Ok(())).is_ok());
        assert!(matches!(
            probe_bounded(Duration::from_secs(2), || Err(KeyringError::NoService)),
            Err(KeyringError::NoService)
        ));
    }

    #[test]
    fn keyring_store_keeps_secrets_out_of_the_index() {
        let tmp = tempfile::tempdir().expect("tempdir");
        let vault = MemVault::with_part(usize::MAX);
        let store = CredentialStore::keyring_in(tmp.path().to_path_buf(), vault.clone());
        let url = "https://mcp.example.com/mcp";
        let a = token(url, "client-a", "sekrit-a", 100);
        let b = token(url, "client-b", "sekrit-b", 200);
        store.save_token(&a).expect("save");
        store.save_token(&b).expect("save");
        let c = client("client-a", "http://l", 5, Some("sekrit-client"));
        let public = client("public", "http://l", 6, None);
        store.save_client(&c).expect("save");
        store.save_client(&public).expect("save");

        let index = fs::read_to_string(tmp.path().join("credentials-index.json")).expect("index");
        assert!(!index.contains("sekrit"), "{index}");
        assert!(index.contains("client-a"), "{index}");
        assert!(!tmp.path().join("credentials.json").exists());
        // Two tokens and one client secret; the public client has none.
        assert_eq!(vault.dump().len(), 3);

        assert_eq!(
            store.token_for(&format!("{url}/"), None).expect("lookup"),
            Some(b.clone())
        );
        assert_eq!(
            store.token_for(url, Some("client-a")).expect("lookup"),
            Some(a.clone())
        );
        assert_eq!(store.tokens().expect("tokens"), vec![a.clone(), b.clone()]);
        assert_eq!(
            store
                .client_for("https://as.example.com", Some("http://l"))
                .expect("lookup"),
            Some(public.clone())
        );
        store
            .remove_client("https://as.example.com", "public")
            .expect("remove");
        assert_eq!(
            store
                .client_for("https://as.example.com", None)
                .expect("lookup"),
            Some(c.clone())
        );

        // Replacing keeps one entry; the newest secret wins.
        let a2 = token(url, "client-a", "sekrit-a2", 300);
        store.save_token(&a2).expect("save");
        assert_eq!(
            store.token_for(url, None).expect("lookup"),
            Some(a2.clone())
        );
        assert_eq!(vault.dump().len(), 3);

        let mut removed = store.remove_tokens(url).expect("remove");
        removed.sort_by_key(|t| t.obtained_at);
        assert_eq!(removed, vec![b, a2]);
        store
            .remove_client("https://as.example.com", "client-a")
            .expect("remove");
        assert!(vault.dump().is_empty());
        assert_eq!(store.tokens().expect("tokens"), vec![]);
        assert_eq!(
            names(tmp.path()),
            vec!["credentials-index.json", "credentials.lock"]
        );
    }

    #[test]
    fn keyring_store_splits_long_secrets() {
        let tmp = tempfile::tempdir().expect("tempdir");
        let vault = MemVault::with_part(16);
        let store = CredentialStore::keyring_in(tmp.path().to_path_buf(), vault.clone());
        let long = token("https://m", "c", &"x".repeat(100), 1);
        store.save_token(&long).expect("save");
        let parts = vault.dump().len();
        assert!(parts > 1, "{parts}");
        assert_eq!(
            store.token_for("https://m", None).expect("lookup"),
            Some(long)
        );
        // A shorter secret later: the extra parts go.
        let short = token("https://m", "c", "y", 2);
        store.save_token(&short).expect("save");
        assert!(vault.dump().len() < parts);
        assert_eq!(
            store.token_for("https://m", None).expect("lookup"),
            Some(short)
        );
        store.remove_tokens("https://m").expect("remove");
        assert!(vault.dump().is_empty());
    }

    #[test]
    fn keyring_failures_change_nothing_and_show_no_secret() {
        let tmp = tempfile::tempdir().expect("tempdir");
        let vault = MemVault::with_part(usize::MAX);
        let store = CredentialStore::keyring_in(tmp.path().to_path_buf(), vault.clone());
        let a = token("https://m", "c", "sekrit-1", 1);
        store.save_token(&a).expect("save");
        vault.fail.store(true, Ordering::SeqCst);
        let e = store
            .save_token(&token("https://m", "c", "sekrit-2", 2))
            .expect_err("locked");
        assert!(
            matches!(
                &e,
                StoreError::Keyring {
                    source: KeyringError::NoAccess(_),
                    ..
                }
            ),
            "{e:?}"
        );
        let msg = e.to_string();
        assert!(msg.contains("the collection is locked"), "{msg}");
        assert!(msg.contains("credentials = \"file\""), "{msg}");
        assert!(!msg.contains("sekrit"), "{msg}");
        assert_eq!(store.token_for("https://m", None).expect("lookup"), Some(a));
    }

    #[test]
    fn keyring_entry_deleted_by_hand_reads_as_no_token() {
        let tmp = tempfile::tempdir().expect("tempdir");
        let vault = MemVault::with_part(usize::MAX);
        let store = CredentialStore::keyring_in(tmp.path().to_path_buf(), vault.clone());
        let old = token("https://m", "old", "sekrit-old", 1);
        let new = token("https://m", "new", "sekrit-new", 2);
        store.save_token(&old).expect("save");
        store.save_token(&new).expect("save");
        let key = token_key(&new.issuer, new.resource.as_deref(), &new.client_id);
        vault.delete(&key).expect("delete");
        // The newest whose secret is still there.
        assert_eq!(
            store.token_for("https://m", None).expect("lookup"),
            Some(old.clone())
        );
        assert_eq!(store.tokens().expect("tokens"), vec![old.clone()]);
        assert_eq!(store.remove_tokens("https://m").expect("remove"), vec![old]);
        assert_eq!(store.tokens().expect("tokens"), vec![]);
    }

    #[test]
    fn file_named_secrets_round_trip_beside_tokens() {
        let tmp = tempfile::tempdir().expect("tempdir");
        let dir = tmp.path().join("mcpdeck");
        let store = CredentialStore::file_in(dir.clone());
        let t = token("https://m", "c", "acc", 1);
        store.save_token(&t).expect("save");
        let before = fs::read_to_string(dir.join("credentials.json")).expect("read");
        named::tests::named_secrets_round_trip(&store);
        // The token is untouched, and credentials.json byte for byte.
        assert_eq!(store.tokens().expect("tokens"), vec![t]);
        assert_eq!(
            fs::read_to_string(dir.join("credentials.json")).expect("read"),
            before
        );
        let text = fs::read_to_string(dir.join("secrets.json")).expect("read");
        let v: serde_json::Value = serde_json::from_str(&text).expect("json");
        assert_eq!(v["version"], 1);
        assert_eq!(v["secrets"][0]["name"], "B.key");
        assert_eq!(v["secrets"][0]["value"], "sekrit-b");
        assert_eq!(
            names(&dir),
            vec!["credentials.json", "credentials.lock", "secrets.json"]
        );
        #[cfg(unix)]
        assert_eq!(mode(&dir.join("secrets.json")), 0o600);
        assert_eq!(
            store.describe_secrets(),
            format!("file {}", dir.join("secrets.json").display())
        );
    }

    #[test]
    fn keyring_named_secrets_stay_out_of_the_index() {
        let tmp = tempfile::tempdir().expect("tempdir");
        let vault = MemVault::with_part(4);
        let store = CredentialStore::keyring_in(tmp.path().to_path_buf(), vault.clone());
        named::tests::named_secrets_round_trip(&store);
        let index = fs::read_to_string(tmp.path().join("secrets-index.json")).expect("index");
        assert!(!index.contains("sekrit"), "{index}");
        assert!(index.contains("B.key"), "{index}");
        assert!(!tmp.path().join("secrets.json").exists());
        // "sekrit-b" in parts of four bytes.
        let entries = vault.dump();
        assert_eq!(
            entries.keys().collect::<Vec<_>>(),
            vec!["secret:B.key", "secret:B.key#1"]
        );
        assert_eq!(store.describe_secrets(), "OS keyring (test vault)");
        // A value deleted from the keyring by hand reads as none.
        vault.delete("secret:B.key").expect("delete");
        assert_eq!(store.secret("B.key").expect("get"), None);
        // A shorter value later: the extra parts go.
        store
            .save_secret("B.key", &Secret::new("ab"))
            .expect("save");
        assert_eq!(vault.dump().len(), 1);
        assert!(store.remove_secret("B.key").expect("remove"));
        assert!(vault.dump().is_empty());
    }

    #[test]
    fn keyring_named_secret_failures_change_nothing() {
        let tmp = tempfile::tempdir().expect("tempdir");
        let vault = MemVault::with_part(usize::MAX);
        let store = CredentialStore::keyring_in(tmp.path().to_path_buf(), vault.clone());
        store
            .save_secret("K", &Secret::new("sekrit-1"))
            .expect("save");
        vault.fail.store(true, Ordering::SeqCst);
        let e = store
            .save_secret("K", &Secret::new("sekrit-2"))
            .expect_err("locked");
        let msg = e.to_string();
        assert!(msg.contains("the collection is locked"), "{msg}");
        assert!(!msg.contains("sekrit"), "{msg}");
        assert_eq!(
            store
                .secret("K")
                .expect("get")
                .map(|s| s.expose().to_string()),
            Some("sekrit-1".to_string())
        );
    }

    #[test]
    fn secrets_file_keeps_its_version_rules() {
        let tmp = tempfile::tempdir().expect("tempdir");
        let path = tmp.path().join("secrets.json");
        let store = CredentialStore::file_in(tmp.path().to_path_buf());
        // A newer format is not read, and not overwritten.
        let newer = "{\"version\":2,\"secrets\":[{\"name\":\"A\",\"value\":\"sekrit\"}]}";
        fs::write(&path, newer).expect("write");
        let e = store
            .save_secret("B", &Secret::new("x"))
            .expect_err("newer");
        let msg = e.to_string();
        assert!(msg.contains("format version 2"), "{msg}");
        assert!(msg.contains("mcpdeck secret set NAME"), "{msg}");
        assert!(!msg.contains("sekrit"), "{msg}");
        assert_eq!(fs::read_to_string(&path).expect("read"), newer);
        // Unknown fields of a later mcpdeck are no error.
        fs::write(
            &path,
            "{\"version\":1,\"later\":true,\"secrets\":[{\"name\":\"A\",\"value\":\"v\",\"updated_at\":1,\"note\":\"x\"}]}",
        )
        .expect("write");
        assert_eq!(store.secret_names().expect("names"), vec!["A"]);
        // A credentials file with no secrets in it is what it was.
        assert!(matches!(store.tokens().map(|t| t.len()), Ok(0)));
    }

    #[test]
    fn keys_are_stable_and_distinct() {
        let k = token_key("https://as", Some("https://r"), "c");
        assert_eq!(k, token_key("https://as", Some("https://r"), "c"));
        assert!(
            k.starts_with("token:") && k.len() == "token:".len() + 32,
            "{k}"
        );
        assert_ne!(k, token_key("https://as", None, "c"));
        assert_ne!(
            token_key("https://as", Some(""), "c"),
            token_key("https://as", None, "c")
        );
        assert_ne!(
            token_key("a", Some("b"), "c"),
            token_key("a", Some("b,c"), "")
        );
        assert_ne!(client_key("https://as", "c"), client_key("https://as", "d"));
    }
}
