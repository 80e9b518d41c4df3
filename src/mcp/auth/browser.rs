//! Which command opens a login URL, and starting it.
//!
//! [`choose`] picks the command: the `[settings] browser` setting, else
//! `$MCPDECK_BROWSER`, else `$BROWSER` (its first colon-separated entry, the
//! xdg convention), else the platform's opener, but only where a browser can
//! show up (a display, not over SSH). [`launch`] starts it with the URL as an
//! argument (replacing `%s`, else appended) without ever waiting for it; the
//! child is reaped on a task, and [`Launched::finished`] tells how it ended
//! so that a failing browser command can be reported ([`failure`]).

use std::collections::VecDeque;
use std::process::{ExitStatus, Stdio};
use std::time::Duration;

use tokio::io::AsyncReadExt;
use tokio::sync::oneshot;

/// Lines of a browser command's stderr that are kept.
const TAIL_LINES: usize = 20;
/// The longest stderr line kept (longer ones are cut).
const MAX_LINE: usize = 500;
/// How long stderr is still read after the command exits (a browser it
/// started may hold the pipe open for as long as it runs).
const DRAIN_LIMIT: Duration = Duration::from_millis(250);

/// Where a browser command came from.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum BrowserSource {
    /// The `[settings] browser` setting.
    Setting,
    /// `$MCPDECK_BROWSER`.
    McpdeckBrowser,
    /// `$BROWSER`.
    Browser,
    /// The platform's opener (`xdg-open`, `open`, `start`).
    Platform,
}

impl BrowserSource {
    /// Where the command came from, for messages.
    pub fn label(self) -> &'static str {
        match self {
            BrowserSource::Setting => "the `browser` setting",
            BrowserSource::McpdeckBrowser => "$MCPDECK_BROWSER",
            BrowserSource::Browser => "$BROWSER",
            BrowserSource::Platform => "the platform's opener",
        }
    }
}

/// Why the chosen browser command cannot be used.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum BrowserCommandError {
    /// It cannot be split into words (an open quote, a lone backslash).
    #[error("{}: {why}", .from.label())]
    Unsplittable { from: BrowserSource, why: String },
    /// It has no words.
    #[error("{} is empty", .from.label())]
    Empty { from: BrowserSource },
}

/// A command that opens a URL.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct BrowserCommand {
    /// The program and its arguments; the URL replaces `%s` in an argument,
    /// else it is appended.
    pub argv: Vec<String>,
    pub source: BrowserSource,
}

/// The operating systems whose openers differ.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Os {
    /// Linux, the BSDs and other Unix-likes: `xdg-open`.
    Xdg,
    Mac,
    Windows,
}

const CURRENT_OS: Os = if cfg!(target_os = "macos") {
    Os::Mac
} else if cfg!(windows) {
    Os::Windows
} else {
    Os::Xdg
};

/// A variable that is set and not blank.
fn var(env: &dyn Fn(&str) -> Option<String>, name: &str) -> Option<String> {
    env(name).filter(|v| !v.trim().is_empty())
}

/// The command, in this order: `[settings] browser` (given as `setting`),
/// else `$MCPDECK_BROWSER`, else `$BROWSER` (its first colon-separated
/// entry), else the platform's opener, but only when there is a display and
/// not over SSH: Linux/BSD `xdg-open` when `$DISPLAY` or `$WAYLAND_DISPLAY`
/// is set and neither `$SSH_CONNECTION` nor `$SSH_TTY` is; macOS `open`
/// unless over SSH; Windows `cmd /c start ""`. `None` when nothing applies;
/// an error when the chosen command cannot be split into words or is empty.
/// Blank variables count as unset.
pub fn choose(
    setting: Option<&str>,
    env: &dyn Fn(&str) -> Option<String>,
) -> Result<Option<BrowserCommand>, BrowserCommandError> {
    choose_for(CURRENT_OS, setting, env)
}

fn choose_for(
    os: Os,
    setting: Option<&str>,
    env: &dyn Fn(&str) -> Option<String>,
) -> Result<Option<BrowserCommand>, BrowserCommandError> {
    if let Some(s) = setting {
        return split(s, BrowserSource::Setting).map(Some);
    }
    if let Some(s) = var(env, "MCPDECK_BROWSER") {
        return split(&s, BrowserSource::McpdeckBrowser).map(Some);
    }
    if let Some(s) = var(env, "BROWSER") {
        // The xdg convention: a colon-separated list, tried in order; the
        // first is taken (Windows paths have colons of their own).
        let first = if os == Os::Windows {
            Some(s.as_str())
        } else {
            s.split(':').find(|e| !e.trim().is_empty())
        };
        if let Some(first) = first {
            return split(first, BrowserSource::Browser).map(Some);
        }
    }
    let over_ssh = var(env, "SSH_CONNECTION").is_some() || var(env, "SSH_TTY").is_some();
    let argv: &[&str] = match os {
        Os::Xdg => {
            let display = var(env, "DISPLAY").is_some() || var(env, "WAYLAND_DISPLAY").is_some();
            if !display || over_ssh {
                return Ok(None);
            }
            &["xdg-open"]
        }
        Os::Mac => {
            if over_ssh {
                return Ok(None);
            }
            &["open"]
        }
        Os::Windows => &["cmd", "/c", "start", ""],
    };
    Ok(Some(BrowserCommand {
        argv: argv.iter().map(|a| a.to_string()).collect(),
        source: BrowserSource::Platform,
    }))
}

fn split(line: &str, source: BrowserSource) -> Result<BrowserCommand, BrowserCommandError> {
    let argv = crate::text::split_command(line)
        .map_err(|why| BrowserCommandError::Unsplittable { from: source, why })?;
    if argv.is_empty() {
        return Err(BrowserCommandError::Empty { from: source });
    }
    Ok(BrowserCommand { argv, source })
}

/// Whether the user named the command (the setting or `$MCPDECK_BROWSER`,
/// not `$BROWSER` nor the platform's opener): the login may then run
/// without a person asking for it.
pub fn explicit(setting: Option<&str>, env: &dyn Fn(&str) -> Option<String>) -> bool {
    setting.is_some_and(|s| !s.trim().is_empty()) || var(env, "MCPDECK_BROWSER").is_some()
}

/// The arguments to start: the URL replaces `%s` in every argument that has
/// it, else it is appended. `cmd /c …` (Windows) gets the characters its
/// shell would act on (`&` between query parameters) escaped.
fn argv_with_url(cmd: &BrowserCommand, url: &str, windows: bool) -> Vec<String> {
    let via_cmd = windows
        && cmd
            .argv
            .first()
            .is_some_and(|p| p.eq_ignore_ascii_case("cmd") || p.eq_ignore_ascii_case("cmd.exe"))
        && cmd
            .argv
            .get(1)
            .is_some_and(|a| a.eq_ignore_ascii_case("/c"));
    let url = if via_cmd {
        cmd_escape(url)
    } else {
        url.to_string()
    };
    let mut substituted = false;
    let mut argv: Vec<String> = cmd
        .argv
        .iter()
        .map(|a| {
            if a.contains("%s") {
                substituted = true;
                a.replace("%s", &url)
            } else {
                a.clone()
            }
        })
        .collect();
    if !substituted {
        argv.push(url);
    }
    argv
}

/// Escape what `cmd.exe` would interpret, with `^`.
fn cmd_escape(s: &str) -> String {
    let mut out = String::with_capacity(s.len() + 8);
    for c in s.chars() {
        if matches!(c, '^' | '&' | '|' | '<' | '>' | '(' | ')' | '%' | '!' | '"') {
            out.push('^');
        }
        out.push(c);
    }
    out
}

/// How a browser command ended.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct BrowserExit {
    /// The program that was started.
    pub program: String,
    /// Its exit status; `None` when it could not be waited for.
    pub status: Option<ExitStatus>,
    /// The last lines of its stderr (at most 20).
    pub stderr_tail: Vec<String>,
}

impl BrowserExit {
    /// Whether it exited successfully.
    pub fn success(&self) -> bool {
        self.status.is_some_and(|s| s.success())
    }
}

/// A message when the browser command failed, `None` when it did not (or
/// when how it ended is unknown).
pub fn failure(exit: &BrowserExit) -> Option<String> {
    let status = exit.status?;
    if status.success() {
        return None;
    }
    let said: Vec<&str> = exit
        .stderr_tail
        .iter()
        .map(|l| l.trim())
        .filter(|l| !l.is_empty())
        .collect();
    let said = match said.len() {
        0 => String::new(),
        n => format!(": {}", said[n.saturating_sub(3)..].join(" / ")),
    };
    Some(format!(
        "the browser command `{}` failed ({status}){said}; open the URL yourself",
        crate::sanitize::one_line(&exit.program)
    ))
}

/// A started browser command.
#[derive(Debug)]
pub struct Launched {
    pid: Option<u32>,
    program: String,
    done: oneshot::Receiver<BrowserExit>,
}

impl Launched {
    /// The process id, while it is known.
    pub fn id(&self) -> Option<u32> {
        self.pid
    }

    /// How the command ended (after it has been reaped), with the tail of
    /// its stderr. Pending until it exits.
    pub fn finished(self) -> impl Future<Output = BrowserExit> + Send + 'static {
        let program = self.program;
        let done = self.done;
        async move {
            done.await.unwrap_or(BrowserExit {
                program,
                status: None,
                stderr_tail: Vec::new(),
            })
        }
    }
}

/// Start the command with the URL (replacing `%s`, else appended as its last
/// argument); stdin and stdout are null, stderr is captured (the last 20
/// lines kept). Never waits for it: it is reaped on a Tokio task, and
/// [`Launched::finished`] yields its exit status and stderr tail. Must be
/// called within a Tokio runtime (an error otherwise).
pub fn launch(cmd: &BrowserCommand, url: &str) -> std::io::Result<Launched> {
    let handle = tokio::runtime::Handle::try_current().map_err(|_| {
        std::io::Error::other("a browser command can only be started within the Tokio runtime")
    })?;
    let argv = argv_with_url(cmd, url, cfg!(windows));
    let Some((program, args)) = argv.split_first() else {
        return Err(std::io::Error::new(
            std::io::ErrorKind::InvalidInput,
            "the browser command is empty",
        ));
    };
    let _guard = handle.enter();
    let mut child = tokio::process::Command::new(program)
        .args(args)
        .stdin(Stdio::null())
        .stdout(Stdio::null())
        .stderr(Stdio::piped())
        .kill_on_drop(false)
        .spawn()?;
    let pid = child.id();
    let stderr = child.stderr.take();
    let (tx, done) = oneshot::channel();
    let name = program.clone();
    handle.spawn(async move {
        let mut tail = Tail::default();
        let mut stderr = stderr;
        let mut chunk = [0u8; 4096];
        let status = loop {
            tokio::select! {
                st = child.wait() => break st.ok(),
                n = read_some(&mut stderr, &mut chunk) => match n {
                    Some(n) => tail.push(&chunk[..n]),
                    None => stderr = None,
                },
            }
        };
        // What it wrote just before exiting; a browser it started may keep
        // the pipe open, so not for long.
        let _ = tokio::time::timeout(DRAIN_LIMIT, async {
            while let Some(n) = read_some(&mut stderr, &mut chunk).await {
                tail.push(&chunk[..n]);
            }
        })
        .await;
        let _ = tx.send(BrowserExit {
            program: name,
            status,
            stderr_tail: tail.finish(),
        });
    });
    Ok(Launched {
        pid,
        program: program.clone(),
        done,
    })
}

/// Read from stderr while it is open: `None` at its end or on an error, and
/// pending for ever once it is closed.
async fn read_some(
    stderr: &mut Option<tokio::process::ChildStderr>,
    chunk: &mut [u8],
) -> Option<usize> {
    match stderr {
        Some(s) => match s.read(chunk).await {
            Ok(0) | Err(_) => None,
            Ok(n) => Some(n),
        },
        None => std::future::pending().await,
    }
}

/// The last lines of a stream, each cut to [`MAX_LINE`] bytes.
#[derive(Default)]
struct Tail {
    lines: VecDeque<String>,
    partial: Vec<u8>,
}

impl Tail {
    fn push(&mut self, bytes: &[u8]) {
        for &b in bytes {
            if b == b'\n' {
                self.end_line();
            } else if self.partial.len() < MAX_LINE {
                self.partial.push(b);
            }
        }
    }

    fn end_line(&mut self) {
        let raw = std::mem::take(&mut self.partial);
        let text = String::from_utf8_lossy(&raw);
        let line = crate::sanitize::one_line(text.trim_end_matches('\r'));
        self.lines.push_back(line);
        while self.lines.len() > TAIL_LINES {
            self.lines.pop_front();
        }
    }

    fn finish(mut self) -> Vec<String> {
        if !self.partial.is_empty() {
            self.end_line();
        }
        self.lines.into()
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::collections::HashMap;

    fn env_of(pairs: &[(&str, &str)]) -> impl Fn(&str) -> Option<String> {
        let map: HashMap<String, String> = pairs
            .iter()
            .map(|(k, v)| (k.to_string(), v.to_string()))
            .collect();
        move |k| map.get(k).cloned()
    }

    fn argv(c: &Option<BrowserCommand>) -> Option<Vec<&str>> {
        c.as_ref()
            .map(|c| c.argv.iter().map(String::as_str).collect())
    }

    #[test]
    fn precedence() {
        let all = env_of(&[
            ("MCPDECK_BROWSER", "mine --x"),
            ("BROWSER", "theirs"),
            ("DISPLAY", ":0"),
        ]);
        let c = choose_for(Os::Xdg, Some("firefox --new-window"), &all).expect("ok");
        assert_eq!(argv(&c), Some(vec!["firefox", "--new-window"]));
        assert_eq!(c.map(|c| c.source), Some(BrowserSource::Setting));

        let c = choose_for(Os::Xdg, None, &all).expect("ok");
        assert_eq!(argv(&c), Some(vec!["mine", "--x"]));
        assert_eq!(c.map(|c| c.source), Some(BrowserSource::McpdeckBrowser));

        let env = env_of(&[("BROWSER", "theirs"), ("DISPLAY", ":0")]);
        let c = choose_for(Os::Xdg, None, &env).expect("ok");
        assert_eq!(argv(&c), Some(vec!["theirs"]));
        assert_eq!(c.map(|c| c.source), Some(BrowserSource::Browser));

        let env = env_of(&[("DISPLAY", ":0")]);
        let c = choose_for(Os::Xdg, None, &env).expect("ok");
        assert_eq!(argv(&c), Some(vec!["xdg-open"]));
        assert_eq!(c.map(|c| c.source), Some(BrowserSource::Platform));

        // Blank variables count as unset.
        let env = env_of(&[("MCPDECK_BROWSER", " "), ("BROWSER", ""), ("DISPLAY", ":0")]);
        let c = choose_for(Os::Xdg, None, &env).expect("ok");
        assert_eq!(argv(&c), Some(vec!["xdg-open"]));
    }

    #[test]
    fn browser_list_takes_the_first_entry() {
        let env = env_of(&[("BROWSER", ":w3m %s:lynx")]);
        let c = choose_for(Os::Xdg, None, &env).expect("ok");
        assert_eq!(argv(&c), Some(vec!["w3m", "%s"]));
        // Windows paths keep their colons.
        let env = env_of(&[("BROWSER", "C:/b/b.exe")]);
        let c = choose_for(Os::Windows, None, &env).expect("ok");
        assert_eq!(argv(&c), Some(vec!["C:/b/b.exe"]));
    }

    #[test]
    fn display_and_ssh_rules() {
        let none = |pairs: &[(&str, &str)], os| {
            choose_for(os, None, &env_of(pairs)).expect("ok").is_none()
        };
        assert!(none(&[], Os::Xdg));
        assert!(!none(&[("WAYLAND_DISPLAY", "wayland-0")], Os::Xdg));
        assert!(none(
            &[("DISPLAY", ":0"), ("SSH_CONNECTION", "1 2 3 4")],
            Os::Xdg
        ));
        assert!(none(
            &[("DISPLAY", ":0"), ("SSH_TTY", "/dev/pts/1")],
            Os::Xdg
        ));
        assert!(!none(&[], Os::Mac));
        assert!(none(&[("SSH_TTY", "/dev/pts/1")], Os::Mac));
        assert!(!none(&[], Os::Windows));
        let c = choose_for(Os::Mac, None, &env_of(&[])).expect("ok");
        assert_eq!(argv(&c), Some(vec!["open"]));
        let c = choose_for(Os::Windows, None, &env_of(&[])).expect("ok");
        assert_eq!(argv(&c), Some(vec!["cmd", "/c", "start", ""]));
        // A named command is used over SSH too.
        let env = env_of(&[("BROWSER", "w3m"), ("SSH_TTY", "/dev/pts/1")]);
        assert!(choose_for(Os::Xdg, None, &env).expect("ok").is_some());
    }

    #[test]
    fn bad_commands_are_errors() {
        let env = env_of(&[]);
        let e = choose_for(Os::Xdg, Some("firefox 'x"), &env).expect_err("unclosed quote");
        assert!(e.to_string().contains("`browser` setting"), "{e}");
        let e = choose_for(Os::Xdg, Some("  "), &env).expect_err("empty");
        assert_eq!(
            e,
            BrowserCommandError::Empty {
                from: BrowserSource::Setting
            }
        );
        assert_eq!(e.to_string(), "the `browser` setting is empty");
        let env = env_of(&[("MCPDECK_BROWSER", "a\\")]);
        let e = choose_for(Os::Xdg, None, &env).expect_err("backslash");
        assert!(
            matches!(
                &e,
                BrowserCommandError::Unsplittable {
                    from: BrowserSource::McpdeckBrowser,
                    ..
                }
            ),
            "{e:?}"
        );
        assert!(e.to_string().contains("$MCPDECK_BROWSER"), "{e}");
    }

    #[test]
    fn explicit_means_named_by_the_user() {
        assert!(explicit(Some("firefox"), &env_of(&[])));
        assert!(explicit(None, &env_of(&[("MCPDECK_BROWSER", "curl -sL")])));
        assert!(!explicit(
            None,
            &env_of(&[("BROWSER", "firefox"), ("DISPLAY", ":0")])
        ));
        assert!(!explicit(None, &env_of(&[("MCPDECK_BROWSER", "")])));
        assert!(!explicit(Some(""), &env_of(&[])));
    }

    #[test]
    fn url_replaces_percent_s_or_is_appended() {
        let url = "https://as.example/authorize?a=1&b=%2F";
        let cmd = |argv: &[&str]| BrowserCommand {
            argv: argv.iter().map(|a| a.to_string()).collect(),
            source: BrowserSource::Browser,
        };
        assert_eq!(
            argv_with_url(&cmd(&["w3m", "%s", "-o", "x"]), url, false),
            vec!["w3m", url, "-o", "x"]
        );
        assert_eq!(
            argv_with_url(&cmd(&["b", "--url=%s"]), url, false),
            vec!["b".to_string(), format!("--url={url}")]
        );
        assert_eq!(
            argv_with_url(&cmd(&["firefox"]), url, false),
            vec!["firefox", url]
        );
        assert_eq!(
            argv_with_url(&cmd(&["cmd", "/c", "start", ""]), url, true),
            vec![
                "cmd",
                "/c",
                "start",
                "",
                "https://as.example/authorize?a=1^&b=^%2F"
            ]
        );
        // Not escaped for anything other than cmd.
        assert_eq!(
            argv_with_url(&cmd(&["firefox"]), url, true),
            vec!["firefox", url]
        );
    }

    #[cfg(unix)]
    #[test]
    fn failure_messages() {
        use std::os::unix::process::ExitStatusExt;
        let exit = |code: i32, tail: &[&str]| BrowserExit {
            program: "xdg-open".into(),
            status: Some(ExitStatus::from_raw(code << 8)),
            stderr_tail: tail.iter().map(|l| l.to_string()).collect(),
        };
        assert_eq!(failure(&exit(0, &["noise"])), None);
        let msg = failure(&exit(3, &["a", "", "b", "c", "d"])).expect("failure");
        assert!(msg.contains("`xdg-open` failed"), "{msg}");
        assert!(msg.contains('3'), "{msg}");
        assert!(msg.ends_with(": b / c / d; open the URL yourself"), "{msg}");
        let unknown = BrowserExit {
            program: "x".into(),
            status: None,
            stderr_tail: Vec::new(),
        };
        assert_eq!(failure(&unknown), None);
    }

    #[test]
    fn tail_keeps_the_last_lines() {
        let mut t = Tail::default();
        for i in 0..30 {
            t.push(format!("line {i}\r\n").as_bytes());
        }
        t.push(&[b'x'; 2000]);
        t.push(b"\x1b[31m");
        let lines = t.finish();
        assert_eq!(lines.len(), TAIL_LINES);
        assert_eq!(lines[0], "line 11");
        let last = lines.last().map(String::as_str).unwrap_or_default();
        assert!(last.len() < MAX_LINE + 20);
        assert!(!last.contains('\u{1b}'));
    }

    #[cfg(unix)]
    #[tokio::test]
    async fn failing_command_reports_status_and_stderr() {
        let cmd = BrowserCommand {
            argv: vec![
                "sh".into(),
                "-c".into(),
                "echo one >&2; echo \"got $1\" >&2; exit 3".into(),
                "sh".into(),
            ],
            source: BrowserSource::Setting,
        };
        let launched = launch(&cmd, "https://x.example/?a=1&b=2").expect("launch");
        let exit = tokio::time::timeout(Duration::from_secs(10), launched.finished())
            .await
            .expect("finished in time");
        assert_eq!(exit.status.and_then(|s| s.code()), Some(3));
        assert!(!exit.success());
        assert_eq!(
            exit.stderr_tail,
            vec!["one", "got https://x.example/?a=1&b=2"]
        );
        let msg = failure(&exit).expect("failure");
        assert!(msg.contains("`sh` failed"), "{msg}");
        assert!(msg.contains("got https://x.example"), "{msg}");
    }

    #[cfg(unix)]
    #[tokio::test]
    async fn finished_command_leaves_no_zombie() {
        let cmd = BrowserCommand {
            argv: vec!["true".into()],
            source: BrowserSource::Setting,
        };
        let launched = launch(&cmd, "https://x.example/").expect("launch");
        let pid = launched.id().expect("pid");
        let exit = tokio::time::timeout(Duration::from_secs(10), launched.finished())
            .await
            .expect("finished in time");
        assert!(exit.success());
        assert_eq!(failure(&exit), None);
        let pid = libc::pid_t::try_from(pid).expect("pid fits");
        // Reaped: no such process, not even a zombie.
        // SAFETY: signal 0 only checks whether the process exists.
        let alive = unsafe { libc::kill(pid, 0) };
        assert_eq!(alive, -1);
        assert_eq!(
            std::io::Error::last_os_error().raw_os_error(),
            Some(libc::ESRCH)
        );
    }

    #[cfg(unix)]
    #[tokio::test]
    async fn exit_is_reported_while_a_grandchild_holds_stderr() {
        // Like xdg-open starting a browser that inherits stderr and runs on.
        let cmd = BrowserCommand {
            argv: vec![
                "sh".into(),
                "-c".into(),
                "sleep 5 & echo bye >&2; exit 0".into(),
            ],
            source: BrowserSource::Setting,
        };
        let launched = launch(&cmd, "u").expect("launch");
        let exit = tokio::time::timeout(Duration::from_secs(3), launched.finished())
            .await
            .expect("not held up by the grandchild");
        assert!(exit.success());
        assert_eq!(exit.stderr_tail, vec!["bye"]);
    }

    #[tokio::test]
    async fn a_missing_program_is_an_error() {
        let cmd = BrowserCommand {
            argv: vec!["/nonexistent/mcpdeck-browser".into()],
            source: BrowserSource::Setting,
        };
        assert!(launch(&cmd, "u").is_err());
    }

    #[test]
    fn launch_outside_a_runtime_is_an_error() {
        let cmd = BrowserCommand {
            argv: vec!["true".into()],
            source: BrowserSource::Setting,
        };
        assert!(launch(&cmd, "u").is_err());
    }
}
