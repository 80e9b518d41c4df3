//! The keyring backend of the credential store: the OS keyring (or a
//! stand-in in tests) holds the secrets, split where an entry is too small;
//! a non-secret index file lists them.

use super::*;

// ---------------------------------------------------------------------------
// The keyring.

/// Where the keyring store puts secrets: the OS keyring, or a stand-in in
/// tests. Errors are descriptions without secrets.
pub(super) trait Vault: Send + Sync {
    /// For messages: "Secret Service", "macOS Keychain", ...
    fn name(&self) -> &'static str;
    /// The largest secret one entry holds (Windows: 2560 bytes).
    fn max_part(&self) -> usize;
    /// `None`: no such entry.
    fn get(&self, user: &str) -> Result<Option<Vec<u8>>, KeyringError>;
    fn set(&self, user: &str, secret: &[u8]) -> Result<(), KeyringError>;
    /// Deleting a missing entry is not an error.
    fn delete(&self, user: &str) -> Result<(), KeyringError>;
}

/// Why the keyring refused, or could not be asked. The `keyring` crate's
/// own error is kept as text only: its `Debug` can carry the bytes of a
/// secret (`BadEncoding`), and nothing here may show one.
#[derive(Debug, Clone, thiserror::Error)]
pub enum KeyringError {
    /// The platform's secure storage failed.
    #[error("platform failure: {0}")]
    Platform(String),
    /// The keyring could not be used (it is locked, say).
    #[error("no access to the keyring (is it locked?): {0}")]
    NoAccess(String),
    #[error("no such entry")]
    NoEntry,
    /// An entry's data is not what was stored.
    #[error("an entry is not in the expected format")]
    BadFormat,
    #[error("the keyring is malformed: {0}")]
    Malformed(String),
    /// An attribute or the secret is too long for this keyring.
    #[error("the {what} is longer than the keyring allows ({limit})")]
    TooLong { what: String, limit: u32 },
    /// An attribute the keyring does not accept.
    #[error("invalid {what}: {why}")]
    Invalid { what: String, why: String },
    /// Several entries match one key.
    #[error(
        "{count} entries match; remove the extra `{SERVICE}` entries with the keyring's own tool"
    )]
    Ambiguous { count: usize },
    #[error("no keyring service is available")]
    NoService,
    #[error("not supported: {0}")]
    NotSupported(String),
    /// A keyring error this mcpdeck does not know.
    #[error("unexpected keyring error")]
    Unexpected,
    /// This build has no keyring for its platform.
    #[error("no OS keyring support on this platform")]
    NoPlatform,
    /// The probe's thread could not be started.
    #[error("could not start the keyring probe: {0}")]
    ProbeThread(#[source] Arc<io::Error>),
    /// The probe did not answer in time (a D-Bus call can hang).
    #[error("the keyring did not answer within {} s", .0.as_secs_f32())]
    ProbeTimeout(Duration),
    /// The probe's thread ended without an answer.
    #[error("the keyring probe failed")]
    ProbeLost,
}

impl From<&keyring::Error> for KeyringError {
    /// The error, described without any secret data it may carry.
    fn from(e: &keyring::Error) -> Self {
        use keyring::Error as E;
        match e {
            E::PlatformFailure(p) => KeyringError::Platform(p.to_string()),
            E::NoStorageAccess(p) => KeyringError::NoAccess(p.to_string()),
            E::NoEntry => KeyringError::NoEntry,
            E::BadEncoding(_) | E::BadDataFormat(..) => KeyringError::BadFormat,
            E::BadStoreFormat(why) => KeyringError::Malformed(why.clone()),
            E::TooLong(what, limit) => KeyringError::TooLong {
                what: what.clone(),
                limit: *limit,
            },
            E::Invalid(what, why) => KeyringError::Invalid {
                what: what.clone(),
                why: why.clone(),
            },
            E::Ambiguous(items) => KeyringError::Ambiguous { count: items.len() },
            E::NoDefaultStore => KeyringError::NoService,
            E::NotSupportedByStore(why) => KeyringError::NotSupported(why.clone()),
            _ => KeyringError::Unexpected,
        }
    }
}

#[cfg(target_os = "macos")]
pub(super) const KEYRING_NAME: &str = "macOS Keychain";
#[cfg(target_os = "windows")]
pub(super) const KEYRING_NAME: &str = "Windows Credential Manager";
#[cfg(not(any(target_os = "macos", target_os = "windows")))]
pub(super) const KEYRING_NAME: &str = "Secret Service";

/// The platform's keyring, through the `keyring` crate.
pub(super) struct OsKeyring;

impl OsKeyring {
    pub(super) fn entry(user: &str) -> Result<keyring::Entry, KeyringError> {
        keyring::Entry::new(SERVICE, user).map_err(|e| KeyringError::from(&e))
    }
}

impl Vault for OsKeyring {
    fn name(&self) -> &'static str {
        KEYRING_NAME
    }

    fn max_part(&self) -> usize {
        // CRED_MAX_CREDENTIAL_BLOB_SIZE is 2560; keep well under it.
        if cfg!(windows) { 2048 } else { usize::MAX }
    }

    fn get(&self, user: &str) -> Result<Option<Vec<u8>>, KeyringError> {
        match Self::entry(user)?.get_secret() {
            Ok(secret) => Ok(Some(secret)),
            Err(keyring::Error::NoEntry) => Ok(None),
            Err(e) => Err(KeyringError::from(&e)),
        }
    }

    fn set(&self, user: &str, secret: &[u8]) -> Result<(), KeyringError> {
        Self::entry(user)?
            .set_secret(secret)
            .map_err(|e| KeyringError::from(&e))
    }

    fn delete(&self, user: &str) -> Result<(), KeyringError> {
        match Self::entry(user)?.delete_credential() {
            Ok(()) | Err(keyring::Error::NoEntry) => Ok(()),
            Err(e) => Err(KeyringError::from(&e)),
        }
    }
}

/// The OS keyring, if it answers: probed once per process.
pub(super) fn os_keyring() -> Result<Arc<dyn Vault>, KeyringError> {
    static PROBED: OnceLock<Result<(), KeyringError>> = OnceLock::new();
    PROBED
        .get_or_init(|| probe_bounded(PROBE_TIMEOUT, probe_os_keyring))
        .clone()
        .map(|()| Arc::new(OsKeyring) as Arc<dyn Vault>)
}

/// Looks up an entry that does not exist: "no entry" means the keyring
/// works; anything else (no D-Bus session, no Secret Service, an
/// unsupported platform) means it does not.
pub(super) fn probe_os_keyring() -> Result<(), KeyringError> {
    if let Err(e) = keyring::Entry::store_status() {
        return Err(match e {
            keyring::Error::Invalid(what, _) if what == "platform" => KeyringError::NoPlatform,
            e => KeyringError::from(e),
        });
    }
    match OsKeyring.get("probe") {
        Ok(_) => Ok(()),
        Err(e) => Err(e),
    }
}

/// Runs `probe` on its own thread and gives up after `timeout` (a D-Bus
/// call can hang); a probe that does not answer in time counts as failed,
/// and its thread is left to finish on its own.
pub(super) fn probe_bounded(
    timeout: Duration,
    probe: impl FnOnce() -> Result<(), KeyringError> + Send + 'static,
) -> Result<(), KeyringError> {
    let (tx, rx) = mpsc::channel();
    std::thread::Builder::new()
        .name("mcpdeck-keyring-probe".to_string())
        .spawn(move || {
            let _ = tx.send(probe());
        })
        .map_err(|e| KeyringError::ProbeThread(Arc::new(e)))?;
    match rx.recv_timeout(timeout) {
        Ok(answer) => answer,
        Err(mpsc::RecvTimeoutError::Timeout) => Err(KeyringError::ProbeTimeout(timeout)),
        Err(mpsc::RecvTimeoutError::Disconnected) => Err(KeyringError::ProbeLost),
    }
}

/// The keyring user of a token: a hash of (issuer, resource, client_id), so
/// it is short and stable.
pub(super) fn token_key(issuer: &str, resource: Option<&str>, client_id: &str) -> String {
    format!(
        "token:{}",
        key_hash(&serde_json::json!([issuer, resource, client_id]))
    )
}

/// The keyring user of a client registration.
pub(super) fn client_key(issuer: &str, client_id: &str) -> String {
    format!(
        "client:{}",
        key_hash(&serde_json::json!([issuer, client_id]))
    )
}

pub(super) fn key_hash(parts: &serde_json::Value) -> String {
    let digest = ring::digest::digest(&ring::digest::SHA256, parts.to_string().as_bytes());
    digest.as_ref()[..16]
        .iter()
        .map(|b| format!("{b:02x}"))
        .collect()
}

/// The keyring user of part `i` of a secret (part 0 is the key itself).
pub(super) fn part_key(key: &str, i: usize) -> String {
    if i == 0 {
        key.to_string()
    } else {
        format!("{key}#{i}")
    }
}

/// Stores `blob` in as many entries as the keyring needs, then deletes the
/// parts an older, longer value left. Returns the number of parts.
pub(super) fn put_blob(
    vault: &dyn Vault,
    key: &str,
    blob: &[u8],
    old_parts: usize,
) -> Result<usize, StoreError> {
    let chunks: Vec<&[u8]> = blob.chunks(vault.max_part().max(1)).collect();
    for (i, chunk) in chunks.iter().enumerate() {
        vault
            .set(&part_key(key, i), chunk)
            .map_err(|e| keyring_error(vault, "store a secret", e))?;
    }
    for i in chunks.len()..old_parts {
        vault
            .delete(&part_key(key, i))
            .map_err(|e| keyring_error(vault, "delete a secret", e))?;
    }
    Ok(chunks.len())
}

/// The secret in `parts` entries; `None` if any is missing.
pub(super) fn get_blob(
    vault: &dyn Vault,
    key: &str,
    parts: usize,
) -> Result<Option<Vec<u8>>, StoreError> {
    let mut out = Vec::new();
    for i in 0..parts {
        match vault
            .get(&part_key(key, i))
            .map_err(|e| keyring_error(vault, "read a secret", e))?
        {
            Some(part) => out.extend_from_slice(&part),
            None => return Ok(None),
        }
    }
    Ok(Some(out))
}

pub(super) fn delete_blob(vault: &dyn Vault, key: &str, parts: usize) -> Result<(), StoreError> {
    for i in 0..parts.max(1) {
        vault
            .delete(&part_key(key, i))
            .map_err(|e| keyring_error(vault, "delete a secret", e))?;
    }
    Ok(())
}

pub(super) fn keyring_error(
    vault: &dyn Vault,
    action: &'static str,
    source: KeyringError,
) -> StoreError {
    StoreError::Keyring {
        keyring: vault.name(),
        action,
        source,
    }
}

pub(super) fn encode_secret<T: Serialize>(secrets: &T) -> Vec<u8> {
    // Serializing a struct of strings cannot fail.
    serde_json::to_vec(secrets).unwrap_or_default()
}

/// The secret half of a token, as kept in the keyring.
#[derive(Serialize, Deserialize)]
pub(super) struct TokenSecrets {
    pub(super) access_token: Secret,
    pub(super) refresh_token: Option<Secret>,
    /// The DPoP key the token is bound to (absent in older entries).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub(super) dpop_key: Option<Secret>,
}

/// The secret half of a client, as kept in the keyring.
#[derive(Serialize, Deserialize)]
pub(super) struct ClientSecrets {
    pub(super) client_secret: Secret,
}

/// A token in the index: everything but the secrets.
#[derive(Clone, PartialEq, Serialize, Deserialize)]
pub(super) struct TokenMeta {
    pub(super) issuer: String,
    pub(super) resource: Option<String>,
    pub(super) client_id: String,
    pub(super) server_url: String,
    pub(super) token_type: String,
    pub(super) scopes: Vec<String>,
    pub(super) expires_at: Option<u64>,
    pub(super) obtained_at: u64,
    /// How many keyring entries hold the secrets.
    pub(super) parts: usize,
}

impl TokenMeta {
    pub(super) fn of(t: &StoredToken, parts: usize) -> TokenMeta {
        TokenMeta {
            issuer: t.issuer.clone(),
            resource: t.resource.clone(),
            client_id: t.client_id.clone(),
            server_url: t.server_url.clone(),
            token_type: t.token_type.clone(),
            scopes: t.scopes.clone(),
            expires_at: t.expires_at,
            obtained_at: t.obtained_at,
            parts,
        }
    }

    pub(super) fn key(&self) -> String {
        token_key(&self.issuer, self.resource.as_deref(), &self.client_id)
    }
}

/// A client in the index: everything but the secret.
#[derive(Clone, PartialEq, Serialize, Deserialize)]
pub(super) struct ClientMeta {
    pub(super) issuer: String,
    pub(super) client_id: String,
    pub(super) auth_method: String,
    pub(super) redirect_uris: Vec<String>,
    pub(super) registered_at: u64,
    pub(super) client_secret_expires_at: Option<u64>,
    /// How many keyring entries hold the secret (0: it has none).
    pub(super) parts: usize,
}

impl ClientMeta {
    pub(super) fn of(c: &StoredClient, parts: usize) -> ClientMeta {
        ClientMeta {
            issuer: c.issuer.clone(),
            client_id: c.client_id.clone(),
            auth_method: c.auth_method.clone(),
            redirect_uris: c.redirect_uris.clone(),
            registered_at: c.registered_at,
            client_secret_expires_at: c.client_secret_expires_at,
            parts,
        }
    }

    pub(super) fn key(&self) -> String {
        client_key(&self.issuer, &self.client_id)
    }
}

/// The whole token, or `None` when its keyring entry is gone or unreadable
/// (deleted by hand, say): the caller then logs in again.
pub(super) fn load_token(
    vault: &dyn Vault,
    meta: &TokenMeta,
) -> Result<Option<StoredToken>, StoreError> {
    let Some(blob) = get_blob(vault, &meta.key(), meta.parts)? else {
        tracing::warn!(
            "the keyring has no secret for the token from {} for {}",
            meta.issuer,
            meta.server_url
        );
        return Ok(None);
    };
    let Ok(secrets) = serde_json::from_slice::<TokenSecrets>(&blob) else {
        tracing::warn!(
            "the keyring's secret for the token from {} for {} is not in the expected format",
            meta.issuer,
            meta.server_url
        );
        return Ok(None);
    };
    Ok(Some(StoredToken {
        issuer: meta.issuer.clone(),
        resource: meta.resource.clone(),
        client_id: meta.client_id.clone(),
        server_url: meta.server_url.clone(),
        access_token: secrets.access_token,
        refresh_token: secrets.refresh_token,
        dpop_key: secrets.dpop_key,
        token_type: meta.token_type.clone(),
        scopes: meta.scopes.clone(),
        expires_at: meta.expires_at,
        obtained_at: meta.obtained_at,
    }))
}

/// The whole registration, or `None` when it has a secret the keyring no
/// longer holds.
pub(super) fn load_client(
    vault: &dyn Vault,
    meta: &ClientMeta,
) -> Result<Option<StoredClient>, StoreError> {
    let client_secret = if meta.parts == 0 {
        None
    } else {
        let secrets = get_blob(vault, &meta.key(), meta.parts)?
            .and_then(|blob| serde_json::from_slice::<ClientSecrets>(&blob).ok());
        let Some(secrets) = secrets else {
            tracing::warn!(
                "the keyring has no usable secret for client {} of {}",
                meta.client_id,
                meta.issuer
            );
            return Ok(None);
        };
        Some(secrets.client_secret)
    };
    Ok(Some(StoredClient {
        issuer: meta.issuer.clone(),
        client_id: meta.client_id.clone(),
        client_secret,
        auth_method: meta.auth_method.clone(),
        redirect_uris: meta.redirect_uris.clone(),
        registered_at: meta.registered_at,
        client_secret_expires_at: meta.client_secret_expires_at,
    }))
}
