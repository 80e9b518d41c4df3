//! The pin file: `{"version":1,"servers":{KEY: ServerPins}}`, written
//! atomically (a 0600 temp file beside it, then a rename).

use std::collections::BTreeMap;
use std::fs;
use std::io;
use std::path::{Path, PathBuf};

use serde::{Deserialize, Serialize};

use super::ServerPins;

/// The format version this mcpdeck reads and writes.
const FORMAT_VERSION: u64 = 1;

/// Why the pin file could not be used.
#[derive(Debug, thiserror::Error)]
pub enum PinError {
    #[error(
        "no home directory to keep pins in; set MCPDECK_PINS to the path of a pin file (e.g. ./pins.json)"
    )]
    NoHome,
    #[error("could not {action} {}: {source}", path.display())]
    Io {
        action: &'static str,
        path: PathBuf,
        source: io::Error,
    },
    #[error(
        "the pin file {} is unusable ({detail}); it was left as it is: move it aside \
         (or delete it) and run `mcpdeck pin` again to pin the servers afresh",
        path.display()
    )]
    Corrupt { path: PathBuf, detail: String },
}

/// The file's document.
#[derive(Serialize, Deserialize)]
struct Doc {
    version: u64,
    #[serde(default)]
    servers: BTreeMap<String, ServerPins>,
}

/// Just the version, read first so that a newer format is named as such.
#[derive(Deserialize)]
struct VersionOnly {
    version: Option<serde_json::Value>,
}

/// The pins of every server, as loaded from (and saved to) one file.
#[derive(Debug, Clone)]
pub struct PinStore {
    path: PathBuf,
    servers: BTreeMap<String, ServerPins>,
}

impl PinStore {
    /// `$MCPDECK_PINS` if set (and not empty), else
    /// `<data dir>/mcpdeck/pins.json` (e.g. `~/.local/share/mcpdeck/pins.json`).
    pub fn default_path() -> Result<PathBuf, PinError> {
        if let Some(p) = std::env::var_os("MCPDECK_PINS").filter(|p| !p.is_empty()) {
            return Ok(PathBuf::from(p));
        }
        directories::ProjectDirs::from("", "", "mcpdeck")
            .map(|d| d.data_dir().join("pins.json"))
            .ok_or(PinError::NoHome)
    }

    /// [`PinStore::load`] of [`PinStore::default_path`].
    pub fn load_default() -> Result<PinStore, PinError> {
        PinStore::load(&PinStore::default_path()?)
    }

    /// An empty store that saves to `path`.
    pub fn empty(path: &Path) -> PinStore {
        PinStore {
            path: path.to_path_buf(),
            servers: BTreeMap::new(),
        }
    }

    /// Read `path`; a missing file is an empty store. A file that is not
    /// a pin file of this format is an error naming it (never overwritten).
    pub fn load(path: &Path) -> Result<PinStore, PinError> {
        let bytes = match fs::read(path) {
            Ok(b) => b,
            Err(e) if e.kind() == io::ErrorKind::NotFound => return Ok(PinStore::empty(path)),
            Err(source) => {
                return Err(PinError::Io {
                    action: "read",
                    path: path.to_path_buf(),
                    source,
                });
            }
        };
        let corrupt = |detail: String| PinError::Corrupt {
            path: path.to_path_buf(),
            detail,
        };
        let head: VersionOnly =
            serde_json::from_slice(&bytes).map_err(|e| corrupt(json_detail(&e)))?;
        match head.version {
            Some(v) if v.as_u64() == Some(FORMAT_VERSION) => {}
            Some(v) => {
                return Err(corrupt(match v.as_u64() {
                    Some(n) => format!("format version {n}, from a newer mcpdeck?"),
                    None => "a \"version\" that is not a number".into(),
                }));
            }
            None => return Err(corrupt("no \"version\"".into())),
        }
        let doc: Doc = serde_json::from_slice(&bytes).map_err(|e| corrupt(json_detail(&e)))?;
        Ok(PinStore {
            path: path.to_path_buf(),
            servers: doc.servers,
        })
    }

    /// The file this store saves to.
    pub fn path(&self) -> &Path {
        &self.path
    }

    pub fn get(&self, key: &str) -> Option<&ServerPins> {
        self.servers.get(key)
    }

    /// Keep `pins` under its key (replacing what was there).
    pub fn set(&mut self, pins: ServerPins) {
        self.servers.insert(pins.key.clone(), pins);
    }

    /// Every pinned server, by key.
    pub fn iter(&self) -> impl Iterator<Item = &ServerPins> {
        self.servers.values()
    }

    /// Write the file: a 0600 temp file in the same directory, fsync,
    /// rename over the file. The directory is created (0700) if missing.
    pub fn save(&self) -> Result<(), PinError> {
        let doc = Doc {
            version: FORMAT_VERSION,
            servers: self.servers.clone(),
        };
        let mut text = serde_json::to_string_pretty(&doc).unwrap_or_default();
        text.push('\n');
        write_atomic(&self.path, text.as_bytes())
    }
}

fn json_detail(e: &serde_json::Error) -> String {
    crate::text::json_error_detail(e)
}

/// Writes the pin file atomically and owner-only, its directory created
/// owner-only if missing ([`crate::fsutil`]).
fn write_atomic(path: &Path, bytes: &[u8]) -> Result<(), PinError> {
    let io = |f: crate::fsutil::IoFailure| PinError::Io {
        action: f.action,
        path: f.path,
        source: f.source,
    };
    let name = path
        .file_name()
        .map(|n| n.to_string_lossy().into_owned())
        .ok_or_else(|| PinError::Io {
            action: "write",
            path: path.to_path_buf(),
            source: io::Error::new(io::ErrorKind::InvalidInput, "not a file name"),
        })?;
    let dir = match path.parent() {
        Some(d) if !d.as_os_str().is_empty() => d.to_path_buf(),
        _ => PathBuf::from("."),
    };
    if !dir.exists() {
        crate::fsutil::create_private_dir(&dir).map_err(io)?;
    }
    crate::fsutil::write_private_atomic(&dir, &name, bytes).map_err(io)
}
