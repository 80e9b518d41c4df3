//! The config file (and, with `serve --pinned`, the pin file), watched for
//! changes by `serve` and the TUI. On Linux the kernel says when something
//! happens to them (inotify on their folders: an idle mcpdeck does not wake
//! up at all);
//! elsewhere, or when inotify cannot be had, each is checked four times a
//! second (one `stat`). A file replaced atomically (editors, mcpdeck's own
//! writer) is a new inode, a changed one a new mtime or size: either
//! counts; a change is read once it has been stable for one check
//! ([`SETTLE`] later), so a file being written is not read half done.

use std::ffi::OsString;
use std::path::{Path, PathBuf};
use std::time::{Duration, SystemTime};

/// How often the files are looked at without inotify.
pub const PERIOD: Duration = Duration::from_millis(250);

/// How long a changed file must stay the same before it is read.
pub const SETTLE: Duration = Duration::from_millis(100);

/// What identifies a version of a file.
#[derive(Debug, Clone, PartialEq, Eq)]
struct Stamp {
    modified: Option<SystemTime>,
    len: u64,
    inode: u64,
}

fn stamp(path: &std::path::Path) -> Option<Stamp> {
    use std::os::unix::fs::MetadataExt;
    let m = std::fs::metadata(path).ok()?;
    Some(Stamp {
        modified: m.modified().ok(),
        len: m.len(),
        inode: m.ino(),
    })
}

/// One watched file.
#[derive(Debug)]
pub struct Watched {
    path: PathBuf,
    /// The version last read.
    seen: Option<Stamp>,
    /// A new version seen at the last check, read when it stays.
    settling: Option<Option<Stamp>>,
}

impl Watched {
    pub fn new(path: PathBuf) -> Self {
        let seen = stamp(&path);
        Watched {
            path,
            seen,
            settling: None,
        }
    }

    pub fn path(&self) -> &std::path::Path {
        &self.path
    }

    /// A change was seen and is waiting to be stable.
    pub fn settling(&self) -> bool {
        self.settling.is_some()
    }

    /// Whether the file changed and has since stayed the same for one
    /// check: then it is to be read again.
    pub fn changed(&mut self) -> bool {
        let now = stamp(&self.path);
        if now == self.seen {
            self.settling = None;
            return false;
        }
        match &self.settling {
            Some(s) if *s == now => {
                self.seen = now;
                self.settling = None;
                true
            }
            _ => {
                self.settling = Some(now);
                false
            }
        }
    }
}

/// When to look at the watched files again.
pub struct Waker {
    #[cfg(target_os = "linux")]
    inotify: Option<inotify::Inotify>,
    names: Vec<OsString>,
    tick: tokio::time::Interval,
    /// When a change being confirmed is looked at again: a deadline, so a
    /// caller that polls `wait` in a loop with other events (the TUI)
    /// still gets there.
    settle_at: Option<tokio::time::Instant>,
}

impl Waker {
    /// Wakes for changes to `files` (inotify on their folders, else a
    /// poll every [`PERIOD`]).
    pub fn new(files: &[&Path]) -> Waker {
        let mut tick = tokio::time::interval(PERIOD);
        tick.set_missed_tick_behavior(tokio::time::MissedTickBehavior::Delay);
        // A symlinked file (a dotfiles manager's) changes where it points:
        // its target's folder is watched too.
        let targets: Vec<PathBuf> = files
            .iter()
            .filter_map(|f| std::fs::canonicalize(f).ok())
            .filter(|t| !files.contains(&t.as_path()))
            .collect();
        let files: Vec<&Path> = files
            .iter()
            .copied()
            .chain(targets.iter().map(PathBuf::as_path))
            .collect();
        let files = files.as_slice();
        let names = files
            .iter()
            .filter_map(|f| f.file_name().map(OsString::from))
            .collect();
        Waker {
            #[cfg(target_os = "linux")]
            inotify: inotify::Inotify::watch(files)
                .map_err(|e| {
                    tracing::info!("no inotify ({e}); the config is polled");
                })
                .ok(),
            names,
            tick,
            settle_at: None,
        }
    }

    /// Whether the kernel tells of changes (no polling).
    #[cfg_attr(not(test), allow(dead_code))]
    pub fn notified(&self) -> bool {
        #[cfg(target_os = "linux")]
        {
            self.inotify.is_some()
        }
        #[cfg(not(target_os = "linux"))]
        {
            false
        }
    }

    /// Returns when the files should be looked at: something happened to
    /// one of them, or (`settling`) a change is waiting to be confirmed.
    pub async fn wait(&mut self, settling: bool) {
        #[cfg(target_os = "linux")]
        if let Some(inotify) = &mut self.inotify {
            if settling {
                let at = *self
                    .settle_at
                    .get_or_insert_with(|| tokio::time::Instant::now() + SETTLE);
                tokio::time::sleep_until(at).await;
                self.settle_at = None;
                inotify.drain();
                return;
            }
            self.settle_at = None;
            loop {
                match inotify.next(&self.names).await {
                    Ok(true) => return,
                    Ok(false) => continue,
                    Err(e) => {
                        tracing::warn!("inotify failed ({e}); polling the config instead");
                        break;
                    }
                }
            }
            self.inotify = None;
        }
        let _ = settling;
        self.tick.tick().await;
    }
}

#[cfg(target_os = "linux")]
mod inotify {
    //! The few inotify calls the watcher needs, through libc.

    use std::ffi::{CString, OsString};
    use std::os::fd::{AsRawFd, FromRawFd, OwnedFd};
    use std::os::unix::ffi::OsStrExt;
    use std::path::Path;

    use tokio::io::unix::AsyncFd;

    pub struct Inotify {
        fd: AsyncFd<OwnedFd>,
        buf: Vec<u8>,
    }

    const EVENTS: u32 = libc::IN_CLOSE_WRITE
        | libc::IN_MODIFY
        | libc::IN_MOVED_TO
        | libc::IN_MOVED_FROM
        | libc::IN_CREATE
        | libc::IN_DELETE
        | libc::IN_ATTRIB;

    impl Inotify {
        /// Watch the folders of `files`.
        pub fn watch(files: &[&Path]) -> std::io::Result<Inotify> {
            // SAFETY: no pointers; the result is checked.
            let raw = unsafe { libc::inotify_init1(libc::IN_NONBLOCK | libc::IN_CLOEXEC) };
            if raw < 0 {
                return Err(std::io::Error::last_os_error());
            }
            // SAFETY: `raw` is a new descriptor that nothing else owns.
            let owned = unsafe { OwnedFd::from_raw_fd(raw) };
            let mut dirs: Vec<&Path> = files
                .iter()
                .map(|f| match f.parent() {
                    Some(p) if !p.as_os_str().is_empty() => p,
                    _ => Path::new("."),
                })
                .collect();
            dirs.sort();
            dirs.dedup();
            for dir in dirs {
                let c = CString::new(dir.as_os_str().as_bytes())
                    .map_err(|_| std::io::Error::other("a NUL in the path"))?;
                // SAFETY: `c` is a valid C string for the duration of the call.
                let wd = unsafe { libc::inotify_add_watch(owned.as_raw_fd(), c.as_ptr(), EVENTS) };
                if wd < 0 {
                    return Err(std::io::Error::last_os_error());
                }
            }
            Ok(Inotify {
                // SAFETY: `owned` is our own descriptor, kept open and
                // unchanged for as long as the AsyncFd holds it.
                fd: unsafe {
                    AsyncFd::register_with_interest(owned, tokio::io::Interest::READABLE)
                }?,
                buf: vec![0; 16 * 1024],
            })
        }

        /// Wait for events; `true` when one names a file in `names` (or
        /// the kernel's queue overflowed, so any may have changed).
        pub async fn next(&mut self, names: &[OsString]) -> std::io::Result<bool> {
            loop {
                let mut guard = self.fd.readable().await?;
                match guard.try_io(|fd| read(fd.get_ref(), &mut self.buf)) {
                    Ok(Ok(n)) => return Ok(matches(&self.buf[..n], names)),
                    Ok(Err(e)) => return Err(e),
                    Err(_would_block) => continue,
                }
            }
        }

        /// Throw away what is queued (a change being confirmed is looked at anyway).
        pub fn drain(&mut self) {
            while let Ok(n) = read(self.fd.get_ref(), &mut self.buf) {
                if n == 0 {
                    break;
                }
            }
        }
    }

    fn read(fd: &OwnedFd, buf: &mut [u8]) -> std::io::Result<usize> {
        // SAFETY: `buf` is valid for `buf.len()` bytes.
        let n = unsafe { libc::read(fd.as_raw_fd(), buf.as_mut_ptr().cast(), buf.len()) };
        if n < 0 {
            return Err(std::io::Error::last_os_error());
        }
        Ok(n as usize)
    }

    /// Whether the events in `buf` name one of `names`.
    pub(super) fn matches(buf: &[u8], names: &[OsString]) -> bool {
        const HEADER: usize = std::mem::size_of::<libc::inotify_event>();
        let mut at = 0;
        while at + HEADER <= buf.len() {
            let field = |off: usize| {
                buf.get(at + off..at + off + 4)
                    .and_then(|b| b.try_into().ok())
                    .map(u32::from_ne_bytes)
                    .unwrap_or(0)
            };
            let mask = field(4);
            let len = field(12) as usize;
            if mask & libc::IN_Q_OVERFLOW != 0 {
                return true;
            }
            let name = buf.get(at + HEADER..at + HEADER + len).unwrap_or_default();
            let name = &name[..name.iter().position(|&b| b == 0).unwrap_or(name.len())];
            if names.iter().any(|n| n.as_bytes() == name) {
                return true;
            }
            at += HEADER + len;
        }
        false
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_change_counts_once_it_is_stable() {
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("c.toml");
        std::fs::write(&path, "a").unwrap();
        let mut w = Watched::new(path.clone());
        assert!(!w.changed());
        // Replaced atomically, with a different size.
        let tmp = dir.path().join("c.toml.tmp");
        std::fs::write(&tmp, "abc").unwrap();
        std::fs::rename(&tmp, &path).unwrap();
        assert!(!w.changed(), "not read while it may still change");
        assert!(w.changed());
        assert!(!w.changed());
        std::fs::remove_file(&path).unwrap();
        assert!(!w.changed());
        assert!(w.changed(), "a removed file is a change too");
    }

    #[cfg(target_os = "linux")]
    #[tokio::test]
    async fn the_kernel_tells_of_an_atomic_replace_and_nothing_else_wakes_it() {
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("c.toml");
        std::fs::write(&path, "a").unwrap();
        let mut waker = Waker::new(&[&path]);
        assert!(waker.notified());
        // Another file in the folder: no wake.
        std::fs::write(dir.path().join("other"), "x").unwrap();
        let quiet = tokio::time::timeout(Duration::from_millis(300), waker.wait(false)).await;
        assert!(quiet.is_err(), "woken by another file");
        // The watched file replaced atomically: a wake.
        let tmp = dir.path().join(".c.toml.tmp");
        std::fs::write(&tmp, "abc").unwrap();
        std::fs::rename(&tmp, &path).unwrap();
        tokio::time::timeout(Duration::from_secs(5), waker.wait(false))
            .await
            .expect("woken by the replace");
    }

    #[cfg(target_os = "linux")]
    #[tokio::test]
    async fn a_symlinked_files_target_is_watched_too() {
        let dir = tempfile::tempdir().unwrap();
        let dotfiles = dir.path().join("dotfiles");
        let config = dir.path().join("config");
        std::fs::create_dir_all(&dotfiles).unwrap();
        std::fs::create_dir_all(&config).unwrap();
        let target = dotfiles.join("mcpdeck.toml");
        std::fs::write(&target, "a").unwrap();
        let link = config.join("config.toml");
        std::os::unix::fs::symlink(&target, &link).unwrap();
        let mut waker = Waker::new(&[&link]);
        let mut watched = Watched::new(link.clone());
        // The target edited in place, in its own folder.
        std::fs::write(&target, "abc").unwrap();
        tokio::time::timeout(Duration::from_secs(5), waker.wait(false))
            .await
            .expect("woken by the target's change");
        assert!(!watched.changed(), "settling");
        assert!(watched.changed(), "the change is seen through the link");
    }
}
