//! Writing the file atomically: a temporary file in the same directory,
//! fsync, the original's permissions (and owner when allowed), a last
//! check that the file is still as expected, rename, fsync of the
//! directory.

use super::*;

/// Distinguishes temporary files of one process.
pub(super) static TEMP_COUNTER: AtomicU64 = AtomicU64::new(0);

/// Replaces the file at `path` with `text`: writes a temporary file in the
/// same directory, fsyncs it, gives it the original's permissions (and, when
/// allowed, owner), and — if `still_expected` agrees — renames it over the
/// target and fsyncs the directory. A symlink is followed, so the link
/// stays a link. On failure the temporary file is removed and the target is
/// untouched.
pub(super) fn write_atomic(
    path: &Path,
    text: &str,
    still_expected: impl FnOnce() -> Result<()>,
) -> Result<()> {
    let write_error = |source: io::Error| ConfigError::Write {
        path: path.to_path_buf(),
        source,
    };
    let target = match fs::symlink_metadata(path) {
        Ok(metadata) if metadata.file_type().is_symlink() => {
            fs::canonicalize(path).map_err(write_error)?
        }
        _ => path.to_path_buf(),
    };
    let file_name = target.file_name().ok_or_else(|| {
        write_error(io::Error::new(
            io::ErrorKind::InvalidInput,
            "the path does not name a file",
        ))
    })?;
    let dir = match target.parent() {
        Some(dir) if !dir.as_os_str().is_empty() => dir.to_path_buf(),
        _ => PathBuf::from("."),
    };
    fs::create_dir_all(&dir).map_err(write_error)?;
    let original = match fs::metadata(&target) {
        Ok(metadata) => Some(metadata),
        Err(error) if error.kind() == io::ErrorKind::NotFound => None,
        Err(error) => return Err(write_error(error)),
    };
    let temp = dir.join(format!(
        ".{}.tmp-{}-{}",
        file_name.to_string_lossy(),
        process::id(),
        TEMP_COUNTER.fetch_add(1, Ordering::Relaxed)
    ));
    let mut options = OpenOptions::new();
    options.write(true).create_new(true);
    #[cfg(unix)]
    {
        use std::os::unix::fs::OpenOptionsExt;
        // New files may hold tokens: private by default.
        options.mode(0o600);
    }
    let file = options.open(&temp).map_err(write_error)?;
    let result = fill_and_rename(
        file,
        &temp,
        &target,
        text,
        original.as_ref(),
        still_expected,
    );
    if let Err(error) = result {
        // Best effort: the temporary file may not exist any more.
        let _ = fs::remove_file(&temp);
        return Err(match error {
            Step::Io(source) => write_error(source),
            Step::Config(error) => error,
        });
    }
    if let Err(error) = File::open(&dir).and_then(|dir| dir.sync_all()) {
        // The rename happened; only its durability across a crash is unsure.
        tracing::warn!(dir = %dir.display(), %error, "could not fsync the config directory");
    }
    Ok(())
}

pub(super) enum Step {
    Io(io::Error),
    Config(ConfigError),
}

impl From<io::Error> for Step {
    fn from(error: io::Error) -> Self {
        Self::Io(error)
    }
}

pub(super) fn fill_and_rename(
    mut file: File,
    temp: &Path,
    target: &Path,
    text: &str,
    original: Option<&Metadata>,
    still_expected: impl FnOnce() -> Result<()>,
) -> std::result::Result<(), Step> {
    file.write_all(text.as_bytes())?;
    if let Some(original) = original {
        file.set_permissions(original.permissions())?;
        copy_owner(&file, original);
    }
    file.sync_all()?;
    drop(file);
    still_expected().map_err(Step::Config)?;
    fs::rename(temp, target)?;
    Ok(())
}

/// Gives the new file the original's owner when they differ (only possible
/// as root); failure leaves it owned by the current user.
#[cfg(unix)]
pub(super) fn copy_owner(file: &File, original: &Metadata) {
    use std::os::unix::fs::MetadataExt;
    let differs = file
        .metadata()
        .is_ok_and(|current| current.uid() != original.uid() || current.gid() != original.gid());
    if differs
        && let Err(error) =
            std::os::unix::fs::fchown(file, Some(original.uid()), Some(original.gid()))
    {
        tracing::debug!(%error, "could not give the new config file its original owner");
    }
}

#[cfg(not(unix))]
pub(super) fn copy_owner(_file: &File, _original: &Metadata) {}
