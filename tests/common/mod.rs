//! Shared helpers for the integration tests: where the real servers are
//! (installed by scripts/test.sh), running the mcpdeck binary with a time
//! limit, and checking that no server process outlives a test.
#![allow(dead_code)]

pub mod pty;

use std::path::{Path, PathBuf};
use std::process::{Command, Output, Stdio};
use std::time::{Duration, Instant};

pub fn repo() -> PathBuf {
    PathBuf::from(env!("CARGO_MANIFEST_DIR"))
}

fn need(path: PathBuf, what: &str) -> PathBuf {
    assert!(
        path.exists(),
        "{what} is missing at {}: run the README's test command (scripts/test.sh), which installs the test servers",
        path.display()
    );
    path
}

fn env_or(var: &str, default: PathBuf) -> PathBuf {
    std::env::var_os(var).map(PathBuf::from).unwrap_or(default)
}

/// The test's node_modules (`$MCPDECK_TEST_NODE_MODULES`, else the repo's).
pub fn node_modules() -> PathBuf {
    env_or(
        "MCPDECK_TEST_NODE_MODULES",
        repo().join("tests/deps/node_modules"),
    )
}

/// `node …/server-everything/dist/index.js`
pub fn everything_js() -> PathBuf {
    let nm = node_modules();
    need(
        nm.join("@modelcontextprotocol/server-everything/dist/index.js"),
        "server-everything",
    )
}

/// The venv python with mcp==1.30.0.
pub fn py_v1() -> PathBuf {
    need(
        env_or(
            "MCPDECK_TEST_PY_V1",
            repo().join(".deps/venv-v1/bin/python"),
        ),
        "the mcp 1.30.0 venv",
    )
}

/// The venv python with mcp==2.3.0.
pub fn py_v2() -> PathBuf {
    need(
        env_or(
            "MCPDECK_TEST_PY_V2",
            repo().join(".deps/venv-v2/bin/python"),
        ),
        "the mcp 2.3.0 venv",
    )
}

/// The venv python with FastMCP 4.2.3 (on mcp 2.3.0), which serves Skills.
pub fn py_fastmcp() -> PathBuf {
    need(
        env_or(
            "MCPDECK_TEST_PY_FASTMCP",
            repo().join(".deps/venv-fastmcp/bin/python"),
        ),
        "the FastMCP 4.2.3 venv",
    )
}

/// The rmcp 3.9.0 test server binary (the test command builds it
/// unoptimized, in target/debug).
pub fn rmcp_server() -> PathBuf {
    need(
        env_or(
            "MCPDECK_TEST_RMCP_SERVER",
            repo().join("tests/servers/rmcp-server/target/debug/rmcp-test-server"),
        ),
        "the rmcp test server",
    )
}

pub fn server_script(name: &str) -> PathBuf {
    need(repo().join("tests/servers").join(name), name)
}

pub fn mcpdeck_bin() -> PathBuf {
    PathBuf::from(env!("CARGO_BIN_EXE_mcpdeck"))
}

/// A generous time limit, scaled by MCPDECK_TEST_TIME_SCALE on slow machines.
pub fn limit(secs: u64) -> Duration {
    let scale: f64 = std::env::var("MCPDECK_TEST_TIME_SCALE")
        .ok()
        .and_then(|s| s.parse().ok())
        .unwrap_or(1.0);
    Duration::from_secs_f64(secs as f64 * scale)
}

/// Stop a child a test started, and reap it: SIGTERM first when `term`
/// (a serve then stops and reaps its own servers), SIGKILL after 10 s.
pub fn reap(child: &mut std::process::Child, term: bool) {
    if let Ok(None) = child.try_wait() {
        if term {
            let _ = Command::new("kill")
                .args(["-TERM", &child.id().to_string()])
                .status();
        }
        let deadline = Instant::now() + limit(10);
        while let Ok(None) = child.try_wait() {
            if Instant::now() > deadline {
                let _ = child.kill();
                break;
            }
            std::thread::sleep(Duration::from_millis(20));
        }
    }
    let _ = child.wait();
}

/// A child that is stopped and reaped however the test ends ([`reap`]).
pub struct Reaped(pub std::process::Child);

impl Drop for Reaped {
    fn drop(&mut self) {
        reap(&mut self.0, true);
    }
}

pub struct Run {
    pub code: i32,
    pub stdout: String,
    pub stderr: String,
    pub elapsed: Duration,
}

impl Run {
    pub fn ok(&self) -> &Self {
        assert_eq!(
            self.code, 0,
            "exit {}\nstdout:\n{}\nstderr:\n{}",
            self.code, self.stdout, self.stderr
        );
        self
    }
}

/// Run mcpdeck with `args`, killing it (and failing) past `max`.
pub fn mcpdeck(args: &[&str], max: Duration) -> Run {
    mcpdeck_env(args, &[], max)
}

pub fn mcpdeck_env(args: &[&str], env: &[(&str, &str)], max: Duration) -> Run {
    mcpdeck_in(None, args, env, max)
}

/// [`mcpdeck_env`] run in `dir` (default: the test's own folder).
pub fn mcpdeck_in(dir: Option<&Path>, args: &[&str], env: &[(&str, &str)], max: Duration) -> Run {
    let mut cmd = Command::new(mcpdeck_bin());
    if let Some(d) = dir {
        cmd.current_dir(d);
    }
    cmd.args(args)
        .stdin(Stdio::null())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped());
    // Never read the developer's own config.
    cmd.env("MCPDECK_CONFIG", repo().join("tests/fixtures/empty.toml"));
    // server-everything's gzip tool would fetch a public URL: loopback only.
    cmd.env("GZIP_ALLOWED_DOMAINS", "127.0.0.1");
    // Every run probes the era (tests/era_memory.rs turns the memory on).
    cmd.env("MCPDECK_ERA_MEMORY", "off");
    cmd.env("MCPDECK_HISTORY", "off");
    for (k, v) in env {
        cmd.env(k, v);
    }
    run_limited(cmd, max)
}

pub fn run_limited(mut cmd: Command, max: Duration) -> Run {
    let started = Instant::now();
    let child = cmd.spawn().expect("spawn mcpdeck");
    let pid = child.id();
    let (tx, rx) = std::sync::mpsc::channel();
    std::thread::spawn(move || {
        let _ = tx.send(child.wait_with_output());
    });
    let out: Output = match rx.recv_timeout(max) {
        Ok(r) => r.expect("wait"),
        Err(_) => {
            // Interrupt first: mcpdeck then stops and reaps its servers.
            signal(pid, "-INT");
            if rx.recv_timeout(Duration::from_secs(5)).is_err() {
                signal(pid, "-9");
            }
            panic!(
                "mcpdeck {:?} did not finish within {:?}",
                cmd.get_args().collect::<Vec<_>>(),
                max
            );
        }
    };
    Run {
        code: out.status.code().unwrap_or(-1),
        stdout: String::from_utf8_lossy(&out.stdout).into_owned(),
        stderr: String::from_utf8_lossy(&out.stderr).into_owned(),
        elapsed: started.elapsed(),
    }
}

fn signal(pid: u32, sig: &str) {
    let _ = Command::new("kill").args([sig, &pid.to_string()]).status();
}

/// A unique marker to put on a server's command line, to find its processes.
pub fn marker(name: &str) -> String {
    use std::sync::atomic::{AtomicU32, Ordering};
    static N: AtomicU32 = AtomicU32::new(0);
    format!(
        "mcpdeck-test-{name}-{}-{}",
        std::process::id(),
        N.fetch_add(1, Ordering::Relaxed)
    )
}

/// Processes whose command line contains `marker` (zombies included).
pub fn processes_with(marker: &str) -> Vec<(u32, String)> {
    let mut found = Vec::new();
    let Ok(dir) = std::fs::read_dir("/proc") else {
        return found;
    };
    for entry in dir.flatten() {
        let Ok(pid) = entry.file_name().to_string_lossy().parse::<u32>() else {
            continue;
        };
        if pid == std::process::id() {
            continue;
        }
        let Ok(cmdline) = std::fs::read(entry.path().join("cmdline")) else {
            continue;
        };
        let text = String::from_utf8_lossy(&cmdline).replace('\0', " ");
        if text.contains(marker) {
            let state = std::fs::read_to_string(entry.path().join("stat")).unwrap_or_default();
            found.push((
                pid,
                format!("{text} [{}]", state.split(' ').nth(2).unwrap_or("?")),
            ));
        }
    }
    found
}

/// Assert that nothing with `marker` on its command line is alive, allowing
/// a short moment for the kernel to finish reaping.
pub fn assert_no_leak(marker: &str) {
    let deadline = Instant::now() + Duration::from_secs(3);
    loop {
        let left = processes_with(marker);
        if left.is_empty() {
            return;
        }
        if Instant::now() > deadline {
            panic!("processes outlived the test: {left:?}");
        }
        std::thread::sleep(Duration::from_millis(50));
    }
}

pub fn write_file(dir: &Path, name: &str, text: &str) -> PathBuf {
    let p = dir.join(name);
    std::fs::write(&p, text).expect("write");
    p
}

/// A free TCP port on 127.0.0.1 (bound and released; the OS hands out
/// ports in sequence, so a race with another test is unlikely).
pub fn free_port() -> u16 {
    let l = std::net::TcpListener::bind("127.0.0.1:0").expect("bind 127.0.0.1:0");
    l.local_addr().expect("local addr").port()
}

/// A test HTTP server process: killed (its whole process group) and reaped
/// on drop.
pub struct HttpServer {
    child: std::process::Child,
    pub port: u16,
    pub url: String,
}

impl HttpServer {
    /// Start `cmd` (in its own process group) and wait until `port` accepts.
    pub fn start(mut cmd: Command, port: u16, path: &str) -> HttpServer {
        use std::os::unix::process::CommandExt;
        cmd.stdin(Stdio::null())
            .stdout(Stdio::null())
            .stderr(Stdio::null())
            .process_group(0);
        let child = cmd.spawn().expect("spawn test HTTP server");
        let server = HttpServer {
            child,
            port,
            url: format!("http://127.0.0.1:{port}{path}"),
        };
        server.wait_ready();
        server
    }

    /// Start a server that prints `PORT <n>` as its first stdout line.
    pub fn start_announced(mut cmd: Command, path: &str) -> HttpServer {
        use std::io::BufRead;
        use std::os::unix::process::CommandExt;
        cmd.stdin(Stdio::null())
            .stdout(Stdio::piped())
            .stderr(Stdio::null())
            .process_group(0);
        let mut child = cmd.spawn().expect("spawn test HTTP server");
        let stdout = child.stdout.take().expect("stdout");
        let (tx, rx) = std::sync::mpsc::channel();
        std::thread::spawn(move || {
            let mut line = String::new();
            let _ = std::io::BufReader::new(stdout).read_line(&mut line);
            let _ = tx.send(line);
        });
        let line = rx.recv_timeout(limit(20)).unwrap_or_default();
        let port: u16 = match line
            .trim()
            .strip_prefix("PORT ")
            .and_then(|p| p.parse().ok())
        {
            Some(p) => p,
            None => {
                let _ = child.kill();
                let _ = child.wait();
                panic!("the test server did not announce its port (got {line:?})");
            }
        };
        let server = HttpServer {
            child,
            port,
            url: format!("http://127.0.0.1:{port}{path}"),
        };
        server.wait_ready();
        server
    }

    /// Whether this server's own process holds the listening socket on its
    /// port (Linux: the socket's inode from /proc/net/tcp{,6} among the
    /// child's open files). `true` where that cannot be read.
    pub fn owns_port(&mut self) -> bool {
        if matches!(self.child.try_wait(), Ok(Some(_))) {
            return false;
        }
        let mut inodes = Vec::new();
        for table in ["/proc/net/tcp", "/proc/net/tcp6"] {
            let Ok(text) = std::fs::read_to_string(table) else {
                return true;
            };
            for line in text.lines().skip(1) {
                let f: Vec<&str> = line.split_whitespace().collect();
                // local_address is ADDR:PORT (hex); st 0A is LISTEN.
                let port = f
                    .get(1)
                    .and_then(|a| a.rsplit(':').next())
                    .and_then(|p| u16::from_str_radix(p, 16).ok());
                if port == Some(self.port)
                    && f.get(3) == Some(&"0A")
                    && let Some(inode) = f.get(9)
                {
                    inodes.push(format!("socket:[{inode}]"));
                }
            }
        }
        let Ok(fds) = std::fs::read_dir(format!("/proc/{}/fd", self.child.id())) else {
            return true;
        };
        fds.flatten().any(|fd| {
            std::fs::read_link(fd.path())
                .map(|l| inodes.iter().any(|i| l.to_string_lossy() == i.as_str()))
                .unwrap_or(false)
        })
    }

    fn wait_ready(&self) {
        let deadline = Instant::now() + limit(30);
        while Instant::now() < deadline {
            if std::net::TcpStream::connect(("127.0.0.1", self.port)).is_ok() {
                return;
            }
            std::thread::sleep(Duration::from_millis(50));
        }
        panic!(
            "the test HTTP server on port {} did not start listening",
            self.port
        );
    }
}

impl Drop for HttpServer {
    fn drop(&mut self) {
        // The whole group (worker processes too). Through kill(2), not the
        // kill(1) program: procps' `kill -9 -PGID` can signal every process.
        if let Ok(pgid) = i32::try_from(self.child.id())
            && pgid > 1
        {
            // SAFETY: kill(2) has no memory-safety preconditions; a negative
            // pid names the server's own process group (process_group(0)).
            unsafe {
                libc::kill(-pgid, libc::SIGKILL);
            }
        }
        let _ = self.child.kill();
        let _ = self.child.wait();
    }
}

/// server-everything over HTTP (`streamableHttp` or `sse`), on 127.0.0.1.
pub fn everything_http(mode: &str) -> HttpServer {
    // A free port is free only for a moment: another test binary's server
    // may take it first (then this one fails to bind, and the other one
    // answers here). Start again on another port then.
    for _ in 0..4 {
        let mut server = everything_http_on(mode, free_port());
        if server.owns_port() {
            return server;
        }
    }
    panic!("every port tried was taken by another server")
}

/// [`everything_http`] on a given port (to start it again where it was).
pub fn everything_http_on(mode: &str, port: u16) -> HttpServer {
    let mut cmd = Command::new("node");
    cmd.arg("--require")
        .arg(server_script("loopback.cjs"))
        .arg(everything_js())
        .arg(mode)
        .env("PORT", port.to_string())
        // Its gzip tool would fetch a public URL: loopback only.
        .env("GZIP_ALLOWED_DOMAINS", "127.0.0.1");
    let path = if mode == "sse" { "/sse" } else { "/mcp" };
    HttpServer::start(cmd, port, path)
}

/// A Python SDK test server (`py_v1()` or `py_v2()`) over streamable HTTP.
pub fn python_http(python: PathBuf, script: &str) -> HttpServer {
    let port = free_port();
    let mut cmd = Command::new(python);
    cmd.arg(server_script(script))
        .arg("--http")
        .arg(port.to_string());
    HttpServer::start(cmd, port, "/mcp")
}

/// The rmcp test server over streamable HTTP.
pub fn rmcp_http() -> HttpServer {
    let port = free_port();
    let mut cmd = Command::new(rmcp_server());
    cmd.arg("--http").arg(port.to_string());
    HttpServer::start(cmd, port, "/mcp")
}

/// tests/servers/fake_http.py in `mode`.
pub fn fake_http(mode: &str, extra: &[&str]) -> HttpServer {
    let mut cmd = Command::new("python3");
    cmd.arg(server_script("fake_http.py")).arg(mode).args(extra);
    HttpServer::start_announced(cmd, "/mcp")
}
