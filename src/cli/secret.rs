//! `mcpdeck secret set|get|rm|list`: the named secrets a config refers to
//! as `${secret:NAME}`, kept in mcpdeck's credential store (the keyring,
//! else the 0600 file; `[settings] credentials`). See [`crate::secret`].

use std::io::{IsTerminal, Read, Write};

use serde_json::json;

use super::exit::{Exit, Failure, Outcome};
use crate::config::Config;
use crate::sanitize;
use crate::secret::{self, Secrets};

/// The longest value `secret set` reads from stdin.
const MAX_VALUE: usize = 1024 * 1024;

/// `mcpdeck secret …`
#[derive(clap::Subcommand, Debug, Clone)]
pub enum SecretCmd {
    /// Store a secret: the value from a masked prompt at a terminal, else one line of stdin
    Set {
        /// Its name: 1 to 64 letters, digits, `_`, `.` or `-` (the config says ${secret:NAME})
        name: String,
    },
    /// Print a secret's value: to a terminal, or anywhere with --reveal
    Get {
        /// The secret's name
        name: String,
        /// Print it even when stdout is not a terminal (a pipe, a file)
        #[arg(long)]
        reveal: bool,
    },
    /// Forget a secret
    Rm {
        /// The secret's name
        name: String,
    },
    /// The secrets stored and those the config refers to, by name (never a value), with the servers that use each
    List {
        /// Print {"store", "secrets": [{"name", "stored", "servers"}]}
        #[arg(long)]
        json: bool,
    },
}

pub async fn run(config: &Config, cmd: &SecretCmd) -> Outcome {
    match cmd {
        SecretCmd::Set { name } => set(config, name).await,
        SecretCmd::Get { name, reveal } => get(config, name, *reveal),
        SecretCmd::Rm { name } => rm(config, name),
        SecretCmd::List { json } => list(config, *json),
    }
}

fn usage(message: impl Into<String>) -> Failure {
    Failure::new(Exit::Usage, message)
}

fn open(config: &Config) -> Result<Secrets, Failure> {
    Secrets::open(config.settings.credentials)
        .map_err(|e| usage(format!("the credential store cannot be opened: {e}")))
}

fn failed(e: secret::Error) -> Failure {
    usage(e.to_string())
}

async fn set(config: &Config, name: &str) -> Outcome {
    secret::check_name(name).map_err(failed)?;
    let value = if std::io::stdin().is_terminal() {
        let prompt = format!("Value of secret {name} (not shown): ");
        let read = tokio::task::spawn_blocking(move || read_masked(&prompt))
            .await
            .map_err(|e| usage(format!("reading the value: {e}")))?;
        match read {
            Ok(Some(v)) => v,
            Ok(None) => return Err(usage("cancelled; nothing was stored")),
            Err(e) => return Err(usage(format!("reading the value from the terminal: {e}"))),
        }
    } else {
        tokio::task::spawn_blocking(read_stdin_line)
            .await
            .map_err(|e| usage(format!("reading the value: {e}")))??
    };
    if value.is_empty() {
        return Err(usage(format!(
            "the value of secret {name} is empty; nothing was stored (give it at the prompt, or on stdin: printf %s \"$VALUE\" | mcpdeck secret set {name})"
        )));
    }
    let store = open(config)?;
    let existed = store.get(name).map_err(failed)?.is_some();
    store.set(name, &value).map_err(failed)?;
    let users = users_of(config, name);
    let used = if users.is_empty() {
        format!("; refer to it as ${{secret:{name}}} in the config")
    } else {
        format!("; used by {}", users.join(", "))
    };
    outln!(
        "{} secret {name} in {}{used}",
        if existed { "replaced" } else { "stored" },
        store.describe()
    );
    Ok(Exit::Ok)
}

fn get(config: &Config, name: &str, reveal: bool) -> Outcome {
    secret::check_name(name).map_err(failed)?;
    if !reveal && !std::io::stdout().is_terminal() {
        return Err(usage(format!(
            "stdout is not a terminal: the value of secret {name} would go to a pipe or a file; add --reveal to print it anyway"
        )));
    }
    let store = open(config)?;
    let Some(value) = store.get(name).map_err(failed)? else {
        return Err(not_stored(&store, name));
    };
    let mut out = super::output::stdout();
    let _ = writeln!(out, "{}", value.expose());
    Ok(Exit::Ok)
}

fn rm(config: &Config, name: &str) -> Outcome {
    secret::check_name(name).map_err(failed)?;
    let store = open(config)?;
    if !store.remove(name).map_err(failed)? {
        return Err(not_stored(&store, name));
    }
    let users = users_of(config, name);
    let still = if users.is_empty() {
        String::new()
    } else {
        format!(
            "; {} still refer{} to it and cannot connect until it is stored again",
            users.join(", "),
            if users.len() == 1 { "s" } else { "" }
        )
    };
    outln!("removed secret {name} from {}{still}", store.describe());
    Ok(Exit::Ok)
}

/// No secret `name`: where it was looked for, a close name, and the fix.
fn not_stored(store: &Secrets, name: &str) -> Failure {
    let names = store.names().unwrap_or_default();
    let refs: Vec<&str> = names.iter().map(String::as_str).collect();
    let hint = crate::text::did_you_mean(&refs, name).unwrap_or_default();
    usage(format!(
        "no secret {name} in {}{hint} (store it: mcpdeck secret set {name}; list them: mcpdeck secret list)",
        store.describe()
    ))
}

/// The configured servers whose tables refer to `name`.
fn users_of<'a>(config: &'a Config, name: &str) -> Vec<&'a str> {
    config
        .servers
        .iter()
        .filter(|s| s.secret_names().contains(&name))
        .map(|s| s.name.as_str())
        .collect()
}

fn list(config: &Config, json: bool) -> Outcome {
    let store = open(config)?;
    let stored = store.names().map_err(failed)?;
    // Every name stored, and every one the config refers to.
    let mut names: Vec<String> = stored.clone();
    for s in &config.servers {
        for n in s.secret_names() {
            if !names.iter().any(|m| m == n) {
                names.push(n.to_string());
            }
        }
    }
    names.sort();
    let rows: Vec<(String, bool, Vec<&str>)> = names
        .into_iter()
        .map(|n| {
            let users = users_of(config, &n);
            let is_stored = stored.contains(&n);
            (n, is_stored, users)
        })
        .collect();
    if json {
        let v = json!({
            "store": store.describe(),
            "secrets": rows.iter().map(|(name, stored, servers)| json!({
                "name": name,
                "stored": stored,
                "servers": servers,
            })).collect::<Vec<_>>(),
        });
        outln!("{}", super::output::json_pretty(&v));
        return Ok(Exit::Ok);
    }
    if rows.is_empty() {
        outln!(
            "no secrets in {} (store one: mcpdeck secret set NAME)",
            store.describe()
        );
        return Ok(Exit::Ok);
    }
    let width = rows.iter().map(|(n, ..)| n.len()).max().unwrap_or(0);
    for (name, is_stored, users) in &rows {
        let used = if users.is_empty() {
            "used by no server".to_string()
        } else {
            format!("used by {}", users.join(", "))
        };
        let line = if *is_stored {
            format!("{name:width$}  {used}")
        } else {
            format!("{name:width$}  NOT STORED, {used} (store it: mcpdeck secret set {name})")
        };
        outln!("{}", sanitize::one_line(&line));
    }
    outln!("kept in {}", store.describe());
    Ok(Exit::Ok)
}

/// The value on stdin: one line, its line break removed. More than one
/// line is refused (a secret is one line).
fn read_stdin_line() -> Result<String, Failure> {
    let mut bytes = Vec::new();
    std::io::stdin()
        .lock()
        .take(MAX_VALUE as u64 + 1)
        .read_to_end(&mut bytes)
        .map_err(|e| usage(format!("reading the value from stdin: {e}")))?;
    if bytes.len() > MAX_VALUE {
        return Err(usage(
            "the value on stdin is over 1 MiB; a secret is one line",
        ));
    }
    let text =
        String::from_utf8(bytes).map_err(|_| usage("the value on stdin is not UTF-8 text"))?;
    let line = text
        .strip_suffix('\n')
        .map(|l| l.strip_suffix('\r').unwrap_or(l))
        .unwrap_or(&text);
    if line.contains('\n') {
        return Err(usage(
            "stdin has more than one line; a secret is one line (give only the value, e.g. printf %s \"$VALUE\" | mcpdeck secret set NAME)",
        ));
    }
    Ok(line.to_string())
}

/// Asks for a value at the terminal on stderr without showing it (a `*`
/// per character). `None`: cancelled (Ctrl-C, Ctrl-D on an empty line,
/// Esc).
pub fn read_masked(prompt: &str) -> std::io::Result<Option<String>> {
    let mut err = std::io::stderr();
    write!(err, "{prompt}")?;
    err.flush()?;
    let answer = masked::read(&mut err);
    let _ = writeln!(err);
    answer
}

#[cfg(unix)]
mod masked {
    use std::io::{Read, Write};

    /// The terminal's settings, put back when dropped.
    struct Restore(libc::termios);

    impl Drop for Restore {
        fn drop(&mut self) {
            // SAFETY: tcsetattr reads the termios given; stdin stays open.
            unsafe {
                libc::tcsetattr(libc::STDIN_FILENO, libc::TCSAFLUSH, &self.0);
            }
        }
    }

    /// Reads a line from the terminal with echo, canonical mode and signals
    /// off (so Ctrl-C is a key here, and the terminal is always restored).
    pub(super) fn read(err: &mut impl Write) -> std::io::Result<Option<String>> {
        // SAFETY: a zeroed termios is a valid out-parameter for tcgetattr.
        let mut term: libc::termios = unsafe { std::mem::zeroed() };
        // SAFETY: STDIN_FILENO is open; `term` is a valid pointer.
        if unsafe { libc::tcgetattr(libc::STDIN_FILENO, &mut term) } != 0 {
            return Err(std::io::Error::last_os_error());
        }
        let _restore = Restore(term);
        let mut raw = term;
        raw.c_lflag &= !(libc::ECHO | libc::ICANON | libc::ISIG);
        raw.c_cc[libc::VMIN] = 1;
        raw.c_cc[libc::VTIME] = 0;
        // SAFETY: as above.
        if unsafe { libc::tcsetattr(libc::STDIN_FILENO, libc::TCSAFLUSH, &raw) } != 0 {
            return Err(std::io::Error::last_os_error());
        }
        let mut line: Vec<u8> = Vec::new();
        let mut stdin = std::io::stdin().lock();
        let mut byte = [0u8; 1];
        loop {
            if stdin.read(&mut byte)? == 0 {
                return Ok(None);
            }
            match byte[0] {
                b'\r' | b'\n' => break,
                // Ctrl-C, Esc; Ctrl-D on an empty line.
                0x03 | 0x1b => return Ok(None),
                0x04 if line.is_empty() => return Ok(None),
                0x04 => {}
                // Backspace: the last character.
                0x7f | 0x08 => {
                    while let Some(b) = line.pop() {
                        if b & 0xc0 != 0x80 {
                            let _ = write!(err, "\x08 \x08");
                            break;
                        }
                    }
                }
                // Ctrl-U: all of it.
                0x15 => {
                    let chars = String::from_utf8_lossy(&line).chars().count();
                    let _ = write!(err, "{}", "\x08 \x08".repeat(chars));
                    line.clear();
                }
                b if b < 0x20 => {}
                b => {
                    if b & 0xc0 != 0x80 {
                        let _ = write!(err, "*");
                    }
                    line.push(b);
                }
            }
            let _ = err.flush();
        }
        String::from_utf8(line)
            .map(Some)
            .map_err(|_| std::io::Error::new(std::io::ErrorKind::InvalidData, "not UTF-8 text"))
    }
}

#[cfg(not(unix))]
mod masked {
    use std::io::{BufRead, Write};

    /// Without termios: a plain line (shown as typed).
    pub(super) fn read(err: &mut impl Write) -> std::io::Result<Option<String>> {
        let _ = write!(err, "(the value is shown as you type) ");
        let mut line = String::new();
        if std::io::stdin().lock().read_line(&mut line)? == 0 {
            return Ok(None);
        }
        Ok(Some(line.trim_end_matches(['\r', '\n']).to_string()))
    }
}
