//! The JSON files of the credential store: the versioned document, its
//! atomic writes, the data directory's permissions and the lock across
//! processes.

use super::*;

// ---------------------------------------------------------------------------
// The JSON files.

/// Both files: `{"version":1,"tokens":[...],"clients":[...]}`.
#[derive(Clone, PartialEq, Serialize, Deserialize)]
pub(super) struct Doc<T, C> {
    pub(super) version: u64,
    #[serde(default = "Vec::new")]
    pub(super) tokens: Vec<T>,
    #[serde(default = "Vec::new")]
    pub(super) clients: Vec<C>,
}

impl<T, C> Default for Doc<T, C> {
    fn default() -> Self {
        Doc {
            version: FORMAT_VERSION,
            tokens: Vec::new(),
            clients: Vec::new(),
        }
    }
}

/// Just the version, read before the rest so that a newer format is named
/// as such.
#[derive(Deserialize)]
pub(super) struct VersionOnly {
    pub(super) version: Option<serde_json::Value>,
}

/// Reads a credentials file ([`Doc`], or the named secrets' document);
/// missing = empty. Anything unreadable is an error naming the file, whose
/// detail never quotes the file's content.
pub(super) fn read_doc<D>(path: &Path) -> Result<D, StoreError>
where
    D: DeserializeOwned + Default,
{
    let text = match fs::read(path) {
        Ok(bytes) => bytes,
        Err(e) if e.kind() == io::ErrorKind::NotFound => return Ok(D::default()),
        Err(source) => {
            return Err(StoreError::Io {
                action: "read",
                path: path.to_path_buf(),
                source,
            });
        }
    };
    tighten_file(path);
    let corrupt = |detail: String| StoreError::Corrupt {
        path: path.to_path_buf(),
        detail,
        holds: holds(path),
    };
    let head: VersionOnly = serde_json::from_slice(&text).map_err(|e| corrupt(json_detail(&e)))?;
    match head.version {
        Some(v) if v.as_u64() == Some(FORMAT_VERSION) => {}
        Some(v) => {
            let shown = match v.as_u64() {
                Some(n) => format!("format version {n}, from a newer mcpdeck?"),
                None => "a \"version\" that is not a number".to_string(),
            };
            return Err(corrupt(shown));
        }
        None => return Err(corrupt("no \"version\"".to_string())),
    }
    serde_json::from_slice(&text).map_err(|e| corrupt(json_detail(&e)))
}

/// What deleting a store file forgets, and how to get it back: for
/// [`StoreError::Corrupt`].
pub(super) fn holds(path: &Path) -> &'static str {
    let secrets = [SECRETS_FILE_NAME, SECRETS_INDEX_NAME]
        .iter()
        .any(|n| path.file_name().is_some_and(|f| f == *n));
    if secrets {
        "this forgets every named secret) and store them again with `mcpdeck secret set NAME`"
    } else {
        "this forgets every saved login) and log in again"
    }
}

pub(super) fn json_detail(e: &serde_json::Error) -> String {
    crate::text::json_error_detail(e)
}

/// Writes `dir/name` atomically and owner-only
/// ([`crate::fsutil::write_private_atomic`]).
pub(super) fn write_atomic(dir: &Path, name: &str, bytes: &[u8]) -> Result<(), StoreError> {
    crate::fsutil::write_private_atomic(dir, name, bytes).map_err(|f| StoreError::Io {
        action: f.action,
        path: f.path,
        source: f.source,
    })
}

// ---------------------------------------------------------------------------
// The directory, permissions, the lock.

/// `<data dir>/mcpdeck`, e.g. `~/.local/share/mcpdeck`.
pub(super) fn data_dir() -> Result<PathBuf, StoreError> {
    directories::ProjectDirs::from("", "", SERVICE)
        .map(|p| p.data_dir().to_path_buf())
        .ok_or(StoreError::NoHome)
}

/// Creates the directory (0700) if needed; tightens it if it is looser.
pub(super) fn ensure_dir(dir: &Path) -> Result<(), StoreError> {
    let mut builder = fs::DirBuilder::new();
    builder.recursive(true);
    #[cfg(unix)]
    {
        use std::os::unix::fs::DirBuilderExt;
        builder.mode(0o700);
    }
    builder.create(dir).map_err(|source| StoreError::Io {
        action: "create the directory",
        path: dir.to_path_buf(),
        source,
    })?;
    tighten_dir(dir)
}

/// Makes an existing directory 0700 if group or others may use it.
pub(super) fn tighten_dir(dir: &Path) -> Result<(), StoreError> {
    #[cfg(unix)]
    {
        use std::os::unix::fs::PermissionsExt;
        let io_err = |action, source| StoreError::Io {
            action,
            path: dir.to_path_buf(),
            source,
        };
        let mode = fs::metadata(dir)
            .map_err(|e| io_err("inspect", e))?
            .permissions()
            .mode();
        if mode & 0o077 != 0 {
            fs::set_permissions(dir, fs::Permissions::from_mode(0o700))
                .map_err(|e| io_err("make private (0700)", e))?;
        }
    }
    #[cfg(not(unix))]
    let _ = dir;
    Ok(())
}

/// Makes an existing credentials file 0600 if it is looser (best effort:
/// the next write replaces it with a 0600 file anyway).
pub(super) fn tighten_file(path: &Path) {
    #[cfg(unix)]
    {
        use std::os::unix::fs::PermissionsExt;
        if let Ok(meta) = fs::metadata(path)
            && meta.permissions().mode() & 0o077 != 0
            && let Err(e) = fs::set_permissions(path, fs::Permissions::from_mode(0o600))
        {
            tracing::warn!("could not make {} private (0600): {e}", path.display());
        }
    }
    #[cfg(not(unix))]
    let _ = path;
}

/// An `flock` on the lock file, released when dropped (the file closes).
pub(super) struct FileLock {
    pub(super) _file: File,
}

impl FileLock {
    pub(super) fn take(path: &Path, exclusive: bool) -> Result<FileLock, StoreError> {
        let mut options = OpenOptions::new();
        options.read(true).write(true).create(true).truncate(false);
        #[cfg(unix)]
        {
            use std::os::unix::fs::OpenOptionsExt;
            options.mode(0o600);
        }
        let file = options.open(path).map_err(|source| StoreError::Io {
            action: "open the lock file",
            path: path.to_path_buf(),
            source,
        })?;
        #[cfg(unix)]
        {
            use std::os::fd::AsRawFd;
            let op = if exclusive {
                libc::LOCK_EX
            } else {
                libc::LOCK_SH
            };
            loop {
                // SAFETY: the descriptor is open for as long as `file` lives.
                let rc = unsafe { libc::flock(file.as_raw_fd(), op) };
                if rc == 0 {
                    break;
                }
                let e = io::Error::last_os_error();
                if e.kind() != io::ErrorKind::Interrupted {
                    return Err(StoreError::Io {
                        action: "lock",
                        path: path.to_path_buf(),
                        source: e,
                    });
                }
            }
        }
        #[cfg(not(unix))]
        let _ = exclusive;
        Ok(FileLock { _file: file })
    }
}
