//! The era memory: which stdio servers were found to speak only the
//! initialize era, so the next connection sends `initialize` at once instead
//! of probing with `server/discover` first.
//!
//! The probe costs an initialize-era server its first unknown method
//! (server-everything: about 4 ms) and, for servers that exit on it, a
//! whole restart. A one-shot command run again and again from a script pays
//! that every time; with the memory it pays it once per
//! [`EraMemory::ttl`].
//!
//! What is remembered is keyed by what decides how the process behaves:
//! the command (and the file it resolves to, with its size and modification
//! time), the arguments (and, for each one naming a file, its size and
//! modification time), the explicit environment and the working directory.
//! A new release of the server (a changed script or binary) is a new key.
//! The key is a SHA-256 of all that: the file holds no command line and no
//! environment value. It is written owner-only, atomically.
//!
//! Only stdio servers whose era was *detected* (`protocol = "auto"`) are
//! remembered, and only when they turned out initialize-era: a stateless
//! server is found by the same `server/discover` that starts its session,
//! so there is nothing to skip. A remembered server that no longer takes
//! `initialize` (an error, or it exits) is forgotten and probed at once;
//! one that stays silent gets `server/discover` as well after the probe
//! timeout, and whichever answers decides.

use std::collections::BTreeMap;
use std::path::{Path, PathBuf};
use std::sync::{Arc, Mutex, OnceLock};
use std::time::{Duration, SystemTime};

use serde::{Deserialize, Serialize};
use serde_json::json;

use crate::mcp::transport::StdioSpec;

/// The environment variable naming the memory file, or `off`.
pub const ENV: &str = "MCPDECK_ERA_MEMORY";

/// At most this many servers are remembered; the oldest go first.
const MAX_ENTRIES: usize = 256;

/// The file's name in the state directory.
const FILE_NAME: &str = "eras.json";

/// One remembered server.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct Remembered {
    /// The version the server chose in answer to `initialize`.
    pub version: String,
    /// How the era was found when it was probed (the probe's answer).
    pub found: String,
    /// When it was probed (Unix seconds).
    pub at: u64,
}

#[derive(Debug, Default, Serialize, Deserialize)]
struct File {
    #[serde(default)]
    servers: BTreeMap<String, Remembered>,
}

/// The memory file and how long what it holds is trusted.
#[derive(Debug)]
pub struct EraMemory {
    path: PathBuf,
    ttl: Duration,
    /// Serializes this process's read-modify-write of the file.
    lock: Mutex<()>,
}

/// The process-wide memory the binary turned on ([`EraMemory::install`]);
/// the library alone (tests, embedders) never remembers.
static INSTALLED: OnceLock<Option<PathBuf>> = OnceLock::new();
static SHARED: OnceLock<Mutex<Option<Arc<EraMemory>>>> = OnceLock::new();

impl EraMemory {
    /// A memory kept in `path`, trusted for `ttl`.
    pub fn at(path: PathBuf, ttl: Duration) -> Self {
        EraMemory {
            path,
            ttl,
            lock: Mutex::new(()),
        }
    }

    /// Turn the memory on for this process: `$MCPDECK_ERA_MEMORY` (a file,
    /// or `off`), else `eras.json` in the user's state directory. Called
    /// once by the binary at start.
    pub fn install() {
        INSTALLED.get_or_init(|| match std::env::var_os(ENV) {
            Some(v) if v == "off" || v.is_empty() => None,
            Some(v) => Some(PathBuf::from(v)),
            None => crate::startup::state_dir().map(|d| d.join(FILE_NAME)),
        });
    }

    /// The installed memory with this `ttl` (`None` when it is off, not
    /// installed, or `ttl` is zero). One instance per process and ttl.
    pub fn shared(ttl: Duration) -> Option<Arc<EraMemory>> {
        if ttl.is_zero() {
            return None;
        }
        let path = INSTALLED.get()?.clone()?;
        let slot = SHARED.get_or_init(|| Mutex::new(None));
        let mut slot = slot.lock().unwrap_or_else(|p| p.into_inner());
        match &*slot {
            Some(m) if m.ttl == ttl && m.path == path => Some(m.clone()),
            _ => {
                let m = Arc::new(EraMemory::at(path, ttl));
                *slot = Some(m.clone());
                Some(m)
            }
        }
    }

    pub fn path(&self) -> &Path {
        &self.path
    }

    pub fn ttl(&self) -> Duration {
        self.ttl
    }

    /// What is remembered of the server `spec` starts, if it is still
    /// within the ttl.
    pub fn recall(&self, spec: &StdioSpec) -> Option<Remembered> {
        let key = key(spec);
        let _one = self.lock.lock().unwrap_or_else(|p| p.into_inner());
        let r = self.read().servers.remove(&key)?;
        let now = crate::text::unix_secs(SystemTime::now());
        let age = now.checked_sub(r.at)?; // from the future: not trusted
        (age < self.ttl.as_secs()).then_some(r)
    }

    /// Remember that the server `spec` starts speaks the initialize era.
    pub fn remember(&self, spec: &StdioSpec, version: &str, found: &str) {
        let key = key(spec);
        let r = Remembered {
            version: version.to_string(),
            found: found.to_string(),
            at: crate::text::unix_secs(SystemTime::now()),
        };
        self.update(|f| {
            f.servers.insert(key, r);
        });
    }

    /// Forget the server `spec` starts (it no longer takes `initialize`).
    pub fn forget(&self, spec: &StdioSpec) {
        let key = key(spec);
        self.update(|f| {
            f.servers.remove(&key);
        });
    }

    /// The file as it is; a missing or unreadable one is empty (it is a
    /// cache: the worst outcome is one more probe).
    fn read(&self) -> File {
        match std::fs::read(&self.path) {
            Ok(bytes) => serde_json::from_slice(&bytes).unwrap_or_else(|e| {
                tracing::warn!(
                    "era memory {}: not valid ({e}); starting afresh",
                    self.path.display()
                );
                File::default()
            }),
            Err(_) => File::default(),
        }
    }

    fn update(&self, change: impl FnOnce(&mut File)) {
        let _one = self.lock.lock().unwrap_or_else(|p| p.into_inner());
        let mut file = self.read();
        let before = serde_json::to_vec(&file).unwrap_or_default();
        change(&mut file);
        let now = crate::text::unix_secs(SystemTime::now());
        let ttl = self.ttl.as_secs();
        file.servers
            .retain(|_, r| now.checked_sub(r.at).is_some_and(|age| age < ttl));
        while file.servers.len() > MAX_ENTRIES {
            let Some(oldest) = file
                .servers
                .iter()
                .min_by_key(|(_, r)| r.at)
                .map(|(k, _)| k.clone())
            else {
                break;
            };
            file.servers.remove(&oldest);
        }
        let Ok(bytes) = serde_json::to_vec_pretty(&file) else {
            return;
        };
        if bytes == before {
            return;
        }
        let (Some(dir), Some(name)) = (self.path.parent(), self.path.file_name()) else {
            return;
        };
        let dir = if dir.as_os_str().is_empty() {
            Path::new(".")
        } else {
            dir
        };
        let written = crate::fsutil::create_private_dir(dir).and_then(|()| {
            crate::fsutil::write_private_atomic(dir, &name.to_string_lossy(), &bytes)
        });
        if let Err(e) = written {
            tracing::warn!(
                "era memory: cannot {} {}: {}",
                e.action,
                e.path.display(),
                e.source
            );
        }
    }
}

/// The key of the server `spec` starts: a SHA-256 over what decides how
/// it behaves (see the module's documentation).
pub fn key(spec: &StdioSpec) -> String {
    let cwd = spec
        .cwd
        .clone()
        .or_else(|| std::env::current_dir().ok())
        .unwrap_or_default();
    let path_var = spec
        .env
        .iter()
        .rev()
        .find(|(k, _)| k == "PATH")
        .map(|(_, v)| std::ffi::OsString::from(v))
        .or_else(|| std::env::var_os("PATH"));
    let command = resolve(&spec.command, &cwd, path_var.as_deref());
    let files: Vec<_> = spec
        .args
        .iter()
        .map(|a| {
            let p = cwd.join(a);
            file_stamp(&p)
        })
        .collect();
    let mut env: Vec<_> = spec.env.iter().collect();
    env.sort();
    let canonical = json!({
        "command": spec.command,
        "resolved": command.as_ref().map(|p| (p.to_string_lossy().into_owned(), file_stamp(p))),
        "args": spec.args,
        "files": files,
        "env": env,
        "cwd": cwd.to_string_lossy(),
    });
    let digest = ring::digest::digest(&ring::digest::SHA256, canonical.to_string().as_bytes());
    digest.as_ref().iter().map(|b| format!("{b:02x}")).collect()
}

/// Size and modification time (ns) of a regular file, if `path` is one.
fn file_stamp(path: &Path) -> Option<(u64, u128)> {
    let meta = std::fs::metadata(path).ok()?;
    if !meta.is_file() {
        return None;
    }
    let modified = meta
        .modified()
        .ok()?
        .duration_since(SystemTime::UNIX_EPOCH)
        .ok()?
        .as_nanos();
    Some((meta.len(), modified))
}

/// The file `command` runs: a path (relative to `cwd`) when it has a
/// slash, else the first match on `PATH`.
fn resolve(command: &str, cwd: &Path, path_var: Option<&std::ffi::OsStr>) -> Option<PathBuf> {
    if command.contains('/') {
        return Some(cwd.join(command));
    }
    std::env::split_paths(path_var?)
        .map(|dir| dir.join(command))
        .find(|p| p.is_file())
}

#[cfg(test)]
mod tests {
    use super::*;

    fn spec(dir: &Path, script: &str) -> StdioSpec {
        let mut s = StdioSpec::new("node", vec![script.to_string(), "stdio".into()]);
        s.cwd = Some(dir.to_path_buf());
        s
    }

    #[test]
    fn remembers_forgets_and_expires() {
        let dir = tempfile::tempdir().expect("temp dir");
        std::fs::write(dir.path().join("server.js"), "// v1").expect("write");
        let mem = EraMemory::at(dir.path().join("state/eras.json"), Duration::from_secs(60));
        let s = spec(dir.path(), "server.js");
        assert_eq!(mem.recall(&s), None);
        mem.remember(&s, "2025-11-25", "server/discover answered error -32601");
        let r = mem.recall(&s).expect("remembered");
        assert_eq!(r.version, "2025-11-25");
        assert_eq!(r.found, "server/discover answered error -32601");
        // Owner-only, and no command line or environment in the file.
        let text = std::fs::read_to_string(mem.path()).expect("read");
        assert!(
            !text.contains("server.js") && !text.contains("node"),
            "{text}"
        );
        #[cfg(unix)]
        {
            use std::os::unix::fs::PermissionsExt;
            let mode = std::fs::metadata(mem.path())
                .expect("meta")
                .permissions()
                .mode();
            assert_eq!(mode & 0o777, 0o600);
        }
        // Other arguments, environment or directory: another server.
        let mut other = s.clone();
        other.env.push(("MODE".into(), "stateless".into()));
        assert_eq!(mem.recall(&other), None);
        mem.forget(&s);
        assert_eq!(mem.recall(&s), None);
        // Expired entries are not recalled.
        let short = EraMemory::at(dir.path().join("short.json"), Duration::from_secs(1));
        short.remember(&s, "2025-11-25", "x");
        let mut file: File =
            serde_json::from_slice(&std::fs::read(short.path()).expect("read")).expect("json");
        for r in file.servers.values_mut() {
            r.at -= 5;
        }
        std::fs::write(short.path(), serde_json::to_vec(&file).expect("json")).expect("write");
        assert_eq!(short.recall(&s), None);
    }

    #[test]
    fn a_new_release_of_the_script_is_a_new_key() {
        let dir = tempfile::tempdir().expect("temp dir");
        let script = dir.path().join("server.js");
        std::fs::write(&script, "// v1").expect("write");
        let s = spec(dir.path(), "server.js");
        let before = key(&s);
        assert_eq!(key(&s), before, "the key is stable");
        std::fs::write(&script, "// version 2, longer").expect("write");
        assert_ne!(key(&s), before);
    }

    #[test]
    fn a_corrupt_file_is_a_cache_miss_and_is_replaced() {
        let dir = tempfile::tempdir().expect("temp dir");
        let path = dir.path().join("eras.json");
        std::fs::write(&path, "{not json").expect("write");
        let mem = EraMemory::at(path.clone(), Duration::from_secs(60));
        let s = spec(dir.path(), "x.js");
        assert_eq!(mem.recall(&s), None);
        mem.remember(&s, "2025-06-18", "y");
        assert_eq!(
            mem.recall(&s).map(|r| r.version).as_deref(),
            Some("2025-06-18")
        );
    }
}
