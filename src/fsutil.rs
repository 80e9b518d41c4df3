//! Private files written atomically: the credential store and the pin file
//! share one way to do it.

use std::fs::{self, File, OpenOptions};
use std::io::{self, Write};
use std::path::{Path, PathBuf};
use std::sync::atomic::{AtomicU64, Ordering};

/// An I/O step that failed: what was being done, to which path, and why.
#[derive(Debug)]
pub struct IoFailure {
    pub action: &'static str,
    pub path: PathBuf,
    pub source: io::Error,
}

/// Distinguishes temporary files of one process.
static TEMP_COUNTER: AtomicU64 = AtomicU64::new(0);

/// Creates `dir` (and its parents) owner-only (0700) if it is missing.
pub fn create_private_dir(dir: &Path) -> Result<(), IoFailure> {
    let mut builder = fs::DirBuilder::new();
    builder.recursive(true);
    #[cfg(unix)]
    {
        use std::os::unix::fs::DirBuilderExt;
        builder.mode(0o700);
    }
    builder.create(dir).map_err(|source| IoFailure {
        action: "create the directory",
        path: dir.to_path_buf(),
        source,
    })
}

/// Writes `dir/name` atomically: a new 0600 temp file in `dir`, fsync,
/// rename over the target, fsync of `dir`. The temp file is removed on
/// failure, and the target is then untouched.
pub fn write_private_atomic(dir: &Path, name: &str, bytes: &[u8]) -> Result<(), IoFailure> {
    let target = dir.join(name);
    let (tmp, mut file) = loop {
        let nanos = std::time::SystemTime::now()
            .duration_since(std::time::UNIX_EPOCH)
            .map(|d| d.subsec_nanos())
            .unwrap_or(0);
        let n = TEMP_COUNTER.fetch_add(1, Ordering::Relaxed);
        let tmp = dir.join(format!(".{name}.{}.{n}.{nanos}.tmp", std::process::id()));
        let mut options = OpenOptions::new();
        options.write(true).create_new(true);
        #[cfg(unix)]
        {
            use std::os::unix::fs::OpenOptionsExt;
            options.mode(0o600);
        }
        match options.open(&tmp) {
            Ok(file) => break (tmp, file),
            Err(e) if e.kind() == io::ErrorKind::AlreadyExists => continue,
            Err(source) => {
                return Err(IoFailure {
                    action: "create a file in",
                    path: dir.to_path_buf(),
                    source,
                });
            }
        }
    };
    let written = file
        .write_all(bytes)
        .and_then(|()| file.sync_all())
        .map_err(|source| IoFailure {
            action: "write",
            path: tmp.clone(),
            source,
        });
    drop(file);
    let renamed = written.and_then(|()| {
        fs::rename(&tmp, &target).map_err(|source| IoFailure {
            action: "replace",
            path: target.clone(),
            source,
        })
    });
    if let Err(e) = renamed {
        let _ = fs::remove_file(&tmp);
        return Err(e);
    }
    #[cfg(unix)]
    File::open(dir)
        .and_then(|d| d.sync_all())
        .map_err(|source| IoFailure {
            action: "sync",
            path: dir.to_path_buf(),
            source,
        })?;
    Ok(())
}

/// Writes `path` atomically, for files a user keeps (a test suite, its
/// snapshots, a report): a temporary file in the same folder (made with its
/// parents when missing), synced, then renamed over `path`. An existing
/// file keeps its permissions; a new one gets 0644 (less the umask does not
/// apply: it is set, as a checked-in file is).
pub fn write_atomic(path: &Path, bytes: &[u8]) -> io::Result<()> {
    let dir = path
        .parent()
        .filter(|p| !p.as_os_str().is_empty())
        .unwrap_or(Path::new("."));
    fs::create_dir_all(dir)?;
    let mut tmp = tempfile::Builder::new()
        .prefix(".mcpdeck")
        .suffix(".tmp")
        .tempfile_in(dir)?;
    tmp.write_all(bytes)?;
    tmp.as_file().sync_all()?;
    let perms = match fs::metadata(path) {
        Ok(m) => m.permissions(),
        Err(_) => {
            #[cfg(unix)]
            {
                use std::os::unix::fs::PermissionsExt;
                fs::Permissions::from_mode(0o644)
            }
            #[cfg(not(unix))]
            {
                tmp.as_file().metadata()?.permissions()
            }
        }
    };
    tmp.as_file().set_permissions(perms)?;
    tmp.persist(path).map_err(|e| e.error)?;
    Ok(())
}
