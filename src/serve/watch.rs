//! The config file (and, with `--pinned`, the pin file), watched for
//! changes: each is checked four times a second (one `stat`), so an edit
//! applies within half a second. A file replaced atomically (editors,
//! mcpdeck's own writer) is a new inode, a changed one a new mtime or
//! size: either counts; a change is read once it has been stable for one
//! check (debounce), so a file being written is not read half done.

use std::path::PathBuf;
use std::time::{Duration, SystemTime};

/// How often the files are looked at.
pub const PERIOD: Duration = Duration::from_millis(250);

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
}
