//! Named secrets beside the OAuth credentials: an API key a server needs,
//! stored once (`mcpdeck secret set NAME`) and put into its config as
//! `${secret:NAME}` when it connects (see [`crate::secret`]).
//!
//! They live in files of their own, in the same directory and under the
//! same lock as the tokens, so that `credentials.json` keeps its format:
//! an older mcpdeck that rewrites it (a token refresh) would drop a field
//! it does not know, and with it every secret.
//!
//! - **File store:** `secrets.json`, 0600, the values plain:
//!   `{"version":1,"secrets":[{"name","value","updated_at"}]}`.
//! - **Keyring store:** each value in the keyring (user `secret:NAME`,
//!   split into `secret:NAME#1`… where an entry is too small), and
//!   `secrets-index.json`, which holds no value:
//!   `{"version":1,"secrets":[{"name","parts","updated_at"}]}`.
//!
//! Names are checked by the caller ([`crate::secret`]).

use super::*;

/// The file store's named secrets.
pub(super) const SECRETS_FILE_NAME: &str = "secrets.json";
/// The keyring store's index of named secrets (no values).
pub(super) const SECRETS_INDEX_NAME: &str = "secrets-index.json";

/// Both files: `{"version":1,"secrets":[...]}`, sorted by name.
#[derive(Clone, PartialEq, Serialize, Deserialize)]
pub(super) struct SecretsDoc<T> {
    pub(super) version: u64,
    #[serde(default = "Vec::new")]
    pub(super) secrets: Vec<T>,
}

impl<T> Default for SecretsDoc<T> {
    fn default() -> Self {
        SecretsDoc {
            version: FORMAT_VERSION,
            secrets: Vec::new(),
        }
    }
}

/// A named secret in `secrets.json`.
#[derive(Clone, PartialEq, Serialize, Deserialize)]
pub(super) struct NamedSecret {
    pub(super) name: String,
    pub(super) value: Secret,
    /// Unix seconds.
    pub(super) updated_at: u64,
}

/// A named secret in `secrets-index.json`: everything but the value.
#[derive(Clone, PartialEq, Serialize, Deserialize)]
pub(super) struct NamedMeta {
    pub(super) name: String,
    /// How many keyring entries hold the value.
    pub(super) parts: usize,
    /// Unix seconds.
    pub(super) updated_at: u64,
}

/// The keyring user of a named secret.
pub(super) fn secret_key(name: &str) -> String {
    format!("secret:{name}")
}

fn now() -> u64 {
    std::time::SystemTime::now()
        .duration_since(std::time::UNIX_EPOCH)
        .map_or(0, |d| d.as_secs())
}

impl CredentialStore {
    /// Where named secrets go, for messages: `file
    /// /home/u/.local/share/mcpdeck/secrets.json` or `OS keyring (Secret
    /// Service)`.
    pub fn describe_secrets(&self) -> String {
        match &self.backend {
            Backend::File => format!("file {}", self.dir.join(SECRETS_FILE_NAME).display()),
            Backend::Keyring(vault) => format!("OS keyring ({})", vault.name()),
        }
    }

    /// The names of the secrets kept, sorted.
    pub fn secret_names(&self) -> Result<Vec<String>, StoreError> {
        let mut names: Vec<String> = match &self.backend {
            Backend::File => {
                let doc: SecretsDoc<NamedSecret> = self.read(SECRETS_FILE_NAME)?;
                doc.secrets.into_iter().map(|s| s.name).collect()
            }
            Backend::Keyring(_) => {
                let doc: SecretsDoc<NamedMeta> = self.read(SECRETS_INDEX_NAME)?;
                doc.secrets.into_iter().map(|s| s.name).collect()
            }
        };
        names.sort();
        names.dedup();
        Ok(names)
    }

    /// The value of the secret `name`; `None` when there is none (or, in
    /// the keyring, when its entry was deleted by hand).
    pub fn secret(&self, name: &str) -> Result<Option<Secret>, StoreError> {
        match &self.backend {
            Backend::File => {
                let doc: SecretsDoc<NamedSecret> = self.read(SECRETS_FILE_NAME)?;
                Ok(doc
                    .secrets
                    .into_iter()
                    .find(|s| s.name == name)
                    .map(|s| s.value))
            }
            Backend::Keyring(vault) => {
                let doc: SecretsDoc<NamedMeta> = self.read(SECRETS_INDEX_NAME)?;
                let Some(meta) = doc.secrets.iter().find(|s| s.name == name) else {
                    return Ok(None);
                };
                let Some(blob) = get_blob(vault.as_ref(), &secret_key(name), meta.parts)? else {
                    tracing::warn!("the keyring has no value for the secret {name}");
                    return Ok(None);
                };
                match String::from_utf8(blob) {
                    Ok(value) => Ok(Some(Secret::new(value))),
                    Err(_) => {
                        tracing::warn!("the keyring's value for the secret {name} is not UTF-8");
                        Ok(None)
                    }
                }
            }
        }
    }

    /// Insert or replace the secret `name`. When this returns `Ok` it is
    /// on disk (or in the keyring).
    pub fn save_secret(&self, name: &str, value: &Secret) -> Result<(), StoreError> {
        let updated_at = now();
        match &self.backend {
            Backend::File => self.update(SECRETS_FILE_NAME, |doc: &mut SecretsDoc<NamedSecret>| {
                doc.secrets.retain(|s| s.name != name);
                doc.secrets.push(NamedSecret {
                    name: name.to_string(),
                    value: value.clone(),
                    updated_at,
                });
                doc.secrets.sort_by(|a, b| a.name.cmp(&b.name));
                Ok(())
            }),
            Backend::Keyring(vault) => {
                self.update(SECRETS_INDEX_NAME, |doc: &mut SecretsDoc<NamedMeta>| {
                    let old_parts = doc
                        .secrets
                        .iter()
                        .filter(|s| s.name == name)
                        .map(|s| s.parts)
                        .max()
                        .unwrap_or(0);
                    let parts = put_blob(
                        vault.as_ref(),
                        &secret_key(name),
                        value.expose().as_bytes(),
                        old_parts,
                    )?;
                    doc.secrets.retain(|s| s.name != name);
                    doc.secrets.push(NamedMeta {
                        name: name.to_string(),
                        parts,
                        updated_at,
                    });
                    doc.secrets.sort_by(|a, b| a.name.cmp(&b.name));
                    Ok(())
                })
            }
        }
    }

    /// Forget the secret `name`; whether there was one.
    pub fn remove_secret(&self, name: &str) -> Result<bool, StoreError> {
        match &self.backend {
            Backend::File => self.update(SECRETS_FILE_NAME, |doc: &mut SecretsDoc<NamedSecret>| {
                let before = doc.secrets.len();
                doc.secrets.retain(|s| s.name != name);
                Ok(doc.secrets.len() != before)
            }),
            Backend::Keyring(vault) => {
                self.update(SECRETS_INDEX_NAME, |doc: &mut SecretsDoc<NamedMeta>| {
                    let Some(meta) = doc.secrets.iter().find(|s| s.name == name) else {
                        return Ok(false);
                    };
                    // The keyring first: if it fails, the index still
                    // lists what is left.
                    delete_blob(vault.as_ref(), &secret_key(name), meta.parts)?;
                    doc.secrets.retain(|s| s.name != name);
                    Ok(true)
                })
            }
        }
    }
}

#[cfg(test)]
pub(super) mod tests {
    use super::*;

    /// What every backend does the same.
    pub(in crate::mcp::auth::store) fn named_secrets_round_trip(store: &CredentialStore) {
        assert_eq!(store.secret_names().expect("names"), Vec::<String>::new());
        assert_eq!(store.secret("A").expect("get"), None);
        store
            .save_secret("B.key", &Secret::new("sekrit-b"))
            .expect("save");
        store
            .save_secret("A", &Secret::new("sekrit-a"))
            .expect("save");
        assert_eq!(store.secret_names().expect("names"), vec!["A", "B.key"]);
        assert_eq!(
            store
                .secret("A")
                .expect("get")
                .map(|s| s.expose().to_string()),
            Some("sekrit-a".to_string())
        );
        // Replaced, not added.
        store
            .save_secret("A", &Secret::new("sekrit-a2 ünï"))
            .expect("save");
        assert_eq!(store.secret_names().expect("names"), vec!["A", "B.key"]);
        assert_eq!(
            store
                .secret("A")
                .expect("get")
                .map(|s| s.expose().to_string()),
            Some("sekrit-a2 ünï".to_string())
        );
        // Names are exact.
        assert_eq!(store.secret("a").expect("get"), None);
        assert!(store.remove_secret("A").expect("remove"));
        assert!(!store.remove_secret("A").expect("remove"));
        assert_eq!(store.secret("A").expect("get"), None);
        assert_eq!(store.secret_names().expect("names"), vec!["B.key"]);
    }
}
