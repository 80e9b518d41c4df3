//! `cargo bench --bench auth`: the wall time of `mcpdeck auth login`, spawn
//! to exit, with a browser command that follows redirects (curl), as the
//! tests log in.
//!
//! 1. Against the official conformance suite's server (scenario
//!    `auth/metadata-default`): the runner is given a small client command
//!    (written here) that times `mcpdeck auth login` in a fresh credential
//!    store, then runs `mcpdeck smoke` with the stored token so the
//!    scenario completes; each run must pass.
//! 2. Against the TypeScript SDK's OAuth example (simpleStreamableHttp.js
//!    --oauth, its demo authorization server): a first login (discovery,
//!    dynamic registration, authorization, token) in a fresh store, and a
//!    login again with the registration kept.
//!
//! Each figure is the median of the runs (min and max beside it). Under
//! `cargo test --all-targets` this is a quick smoke run (one run each, no
//! meaning in the figures). A section whose dependencies are missing
//! (scripts/test.sh installs them) is skipped with a message.

#[path = "support/mod.rs"]
mod support;
use support::{check, free_port, run_limited};

use std::net::{SocketAddr, TcpStream};
use std::path::{Path, PathBuf};
use std::process::{Child, Command, Stdio};
use std::time::{Duration, Instant};

fn main() {
    // `cargo bench` passes --bench; under `cargo test` this is a quick smoke run.
    let full = std::env::args().any(|a| a == "--bench");
    let runs = if full { 15 } else { 1 };
    if full {
        println!(
            "mcpdeck OAuth benchmark: `mcpdeck auth login` wall time (spawn .. exit), median of {runs} runs\n"
        );
    } else {
        println!(
            "mcpdeck OAuth benchmark: SMOKE RUN (1 run each, test build); the figures mean nothing, run `cargo bench --bench auth`\n"
        );
    }
    let tmp = tempfile::tempdir().expect("temp dir");
    if let Err(why) = which("curl") {
        println!("skipped: {why} (the browser command of every login)");
        return;
    }
    match ConformanceDeps::find() {
        Ok(deps) => conformance_logins(&deps, tmp.path(), runs, full),
        Err(why) => println!("conformance server: skipped ({why})\n"),
    }
    match sdk_example() {
        Ok(js) => sdk_logins(&js, tmp.path(), runs),
        Err(why) => println!("TypeScript SDK example: skipped ({why})\n"),
    }
}

fn repo() -> PathBuf {
    PathBuf::from(env!("CARGO_MANIFEST_DIR"))
}

fn mcpdeck() -> PathBuf {
    PathBuf::from(env!("CARGO_BIN_EXE_mcpdeck"))
}

fn node_modules() -> PathBuf {
    std::env::var_os("MCPDECK_TEST_NODE_MODULES")
        .map(PathBuf::from)
        .unwrap_or_else(|| repo().join("tests/deps/node_modules"))
}

fn present(path: PathBuf, what: &str) -> Result<PathBuf, String> {
    if path.exists() {
        Ok(path)
    } else {
        Err(format!(
            "{what} is missing at {}; scripts/test.sh installs it",
            path.display()
        ))
    }
}

/// `name` on PATH.
fn which(name: &str) -> Result<PathBuf, String> {
    std::env::var_os("PATH")
        .iter()
        .flat_map(std::env::split_paths)
        .map(|d| d.join(name))
        .find(|p| p.is_file())
        .ok_or_else(|| format!("`{name}` is not on PATH"))
}

/// A config with the redirect-following browser, the file store, and one
/// server.
fn write_config(dir: &Path, name: &str, url: &str) -> PathBuf {
    let path = dir.join("config.toml");
    std::fs::write(
        &path,
        format!(
            "[settings]\nbrowser = \"curl -fsSL -o /dev/null\"\ncredentials = \"file\"\n\n[servers.{name}]\nurl = \"{url}\"\n"
        ),
    )
    .expect("write config");
    path
}

fn ms(d: Duration) -> f64 {
    d.as_secs_f64() * 1e3
}

/// `median ms (min .. max)`.
fn spread(mut v: Vec<Duration>) -> String {
    v.sort();
    let median = v[v.len() / 2];
    format!(
        "{:>8.1} ms  (min {:.1}, max {:.1})",
        ms(median),
        ms(v[0]),
        ms(v[v.len() - 1])
    )
}

// ---------------------------------------------------------------------------
// 1. The conformance suite's authorization server.

struct ConformanceDeps {
    node: PathBuf,
    suite: PathBuf,
    version: String,
    python: PathBuf,
}

impl ConformanceDeps {
    fn find() -> Result<ConformanceDeps, String> {
        let nm = node_modules();
        // The suite needs Node 22: the npm package `node` carries it.
        let node = present(nm.join("node/bin/node"), "Node 22 (npm package `node`)")?;
        let dir = nm.join("@modelcontextprotocol/conformance");
        let suite = present(dir.join("dist/index.js"), "the conformance suite")?;
        let version = std::fs::read_to_string(dir.join("package.json"))
            .ok()
            .and_then(|t| serde_json::from_str::<serde_json::Value>(&t).ok())
            .and_then(|v| v["version"].as_str().map(str::to_string))
            .unwrap_or_else(|| "?".into());
        Ok(ConformanceDeps {
            node,
            suite,
            version,
            python: which("python3")?,
        })
    }
}

/// The client command the runner is given: it appends the server URL.
/// Times `mcpdeck auth login` in a fresh store (one line `<exit> <seconds>`
/// appended to $BENCH_LOGIN_TIMES), then runs `mcpdeck smoke` with the
/// stored token so the scenario completes.
const CLIENT: &str = r#"
import json, os, pathlib, subprocess, sys, tempfile, time

url = sys.argv[-1]
binary = os.environ["MCPDECK_BIN"]
with tempfile.TemporaryDirectory(prefix="mcpdeck-bench-") as tmp:
    work = pathlib.Path(tmp)
    (work / "config.toml").write_text(
        '[settings]\nbrowser = "curl -fsSL -o /dev/null"\ncredentials = "file"\n\n'
        f"[servers.conformance]\nurl = {json.dumps(url)}\n"
    )
    env = dict(os.environ)
    env.update(MCPDECK_CONFIG=str(work / "config.toml"), XDG_DATA_HOME=str(work / "data"), HOME=str(work))
    env.pop("MCPDECK_BROWSER", None)
    started = time.perf_counter()
    login = subprocess.run(
        [binary, "auth", "login", "conformance"],
        env=env, stdin=subprocess.DEVNULL, stdout=subprocess.DEVNULL, stderr=subprocess.PIPE,
    )
    wall = time.perf_counter() - started
    with open(os.environ["BENCH_LOGIN_TIMES"], "a") as f:
        f.write(f"{login.returncode} {wall}\n")
    if login.returncode != 0:
        sys.stderr.write(login.stderr.decode(errors="replace"))
        sys.exit(login.returncode)
    smoke = [binary, "smoke", "conformance", "--calls", "all"]
    sys.exit(subprocess.run(smoke, env=env, stdin=subprocess.DEVNULL).returncode)
"#;

fn conformance_logins(deps: &ConformanceDeps, tmp: &Path, runs: usize, full: bool) {
    const SCENARIO: &str = "auth/metadata-default";
    let client = tmp.join("login-then-smoke");
    std::fs::write(&client, format!("#!{}\n{CLIENT}", deps.python.display()))
        .expect("write the client command");
    {
        use std::os::unix::fs::PermissionsExt;
        std::fs::set_permissions(&client, std::fs::Permissions::from_mode(0o755)).expect("chmod");
    }
    let times = tmp.join("login-times");
    let run = |i: usize| {
        let mut cmd = Command::new(&deps.node);
        cmd.arg(&deps.suite)
            .args(["client", "--command"])
            .arg(&client)
            .args(["--scenario", SCENARIO, "-o"])
            .arg(tmp.join(format!("conformance-{i}")))
            .env("MCPDECK_BIN", mcpdeck())
            .env("BENCH_LOGIN_TIMES", &times)
            .env_remove("MCPDECK_BROWSER")
            .env_remove("MCPDECK_CONFIG");
        let out = run_limited(cmd, "the conformance runner", Duration::from_secs(120));
        let text = format!(
            "{}{}",
            String::from_utf8_lossy(&out.stdout),
            String::from_utf8_lossy(&out.stderr)
        );
        assert!(
            out.status.success() && text.contains("OVERALL: PASSED"),
            "the conformance scenario {SCENARIO} did not pass:\n{text}"
        );
    };
    // One untimed run: the first pays for cold file caches.
    if full {
        run(0);
        let _ = std::fs::remove_file(&times);
    }
    for i in 1..=runs {
        run(i);
    }
    let walls: Vec<Duration> = std::fs::read_to_string(&times)
        .expect("the client command's times")
        .lines()
        .map(|l| {
            let (code, secs) = l.split_once(' ').expect("`<exit> <seconds>`");
            assert_eq!(code, "0", "a login failed");
            Duration::from_secs_f64(secs.parse().expect("seconds"))
        })
        .collect();
    assert_eq!(walls.len(), runs, "one login per run");
    println!(
        "conformance server {} (scenario {SCENARIO}: PRM, metadata, registration, authorization, token), a fresh store each run",
        deps.version
    );
    println!("  {:<44} {}", "mcpdeck auth login", spread(walls));
    println!();
}

// ---------------------------------------------------------------------------
// 2. The TypeScript SDK's OAuth example.

fn sdk_example() -> Result<PathBuf, String> {
    which("node")?;
    present(
        node_modules()
            .join("@modelcontextprotocol/sdk/dist/esm/examples/server/simpleStreamableHttp.js"),
        "the TypeScript SDK's example server",
    )
}

/// The example, killed and reaped when dropped.
struct SdkServer {
    child: Child,
    port: u16,
}

impl Drop for SdkServer {
    fn drop(&mut self) {
        let _ = self.child.kill();
        let _ = self.child.wait();
    }
}

impl SdkServer {
    fn start(js: &Path) -> SdkServer {
        for _ in 0..3 {
            let (port, auth_port) = (free_port(), free_port());
            if port == auth_port {
                continue;
            }
            let child = Command::new("node")
                .arg("--require")
                .arg(repo().join("tests/servers/loopback.cjs"))
                .arg(js)
                .arg("--oauth")
                .env("MCP_PORT", port.to_string())
                .env("MCP_AUTH_PORT", auth_port.to_string())
                .stdin(Stdio::null())
                .stdout(Stdio::null())
                .stderr(Stdio::null())
                .spawn()
                .expect("start node");
            let mut server = SdkServer { child, port };
            let deadline = Instant::now() + Duration::from_secs(60);
            let up = |p: u16| {
                TcpStream::connect_timeout(
                    &SocketAddr::from(([127, 0, 0, 1], p)),
                    Duration::from_millis(200),
                )
                .is_ok()
            };
            loop {
                // It exits when a port was taken meanwhile: other ports.
                if let Ok(Some(_)) = server.child.try_wait() {
                    break;
                }
                if up(port) && up(auth_port) {
                    return server;
                }
                assert!(
                    Instant::now() < deadline,
                    "the SDK example did not listen within 60 s"
                );
                std::thread::sleep(Duration::from_millis(20));
            }
        }
        panic!("the SDK example did not start (three tries)");
    }
}

fn sdk_logins(js: &Path, tmp: &Path, runs: usize) {
    let server = SdkServer::start(js);
    // Its protected resource metadata names localhost.
    let url = format!("http://localhost:{}/mcp", server.port);
    let login = |dir: &Path| {
        let mut cmd = Command::new(mcpdeck());
        cmd.args(["auth", "login", "sdk"])
            .env("MCPDECK_CONFIG", write_config(dir, "sdk", &url))
            .env("HOME", dir)
            .env("XDG_DATA_HOME", dir.join("data"))
            .env_remove("MCPDECK_BROWSER");
        let started = Instant::now();
        let out = run_limited(cmd, "mcpdeck auth login", Duration::from_secs(60));
        let wall = started.elapsed();
        check(&out, "mcpdeck auth login");
        wall
    };
    let (mut first, mut again) = (vec![], vec![]);
    // One untimed login first: cold caches, and the example's first answers.
    let warm = tmp.join("sdk-warm");
    std::fs::create_dir_all(&warm).expect("dir");
    login(&warm);
    for i in 0..runs {
        let dir = tmp.join(format!("sdk-{i}"));
        std::fs::create_dir_all(&dir).expect("dir");
        first.push(login(&dir));
        again.push(login(&dir));
    }
    drop(server);
    let version =
        std::fs::read_to_string(node_modules().join("@modelcontextprotocol/sdk/package.json"))
            .ok()
            .and_then(|t| serde_json::from_str::<serde_json::Value>(&t).ok())
            .and_then(|v| v["version"].as_str().map(str::to_string))
            .unwrap_or_else(|| "?".into());
    println!(
        "TypeScript SDK {version} example simpleStreamableHttp.js --oauth (its demo authorization server), {url}"
    );
    println!(
        "  {:<44} {}",
        "mcpdeck auth login (fresh store: registers)",
        spread(first)
    );
    println!(
        "  {:<44} {}",
        "mcpdeck auth login (registration kept)",
        spread(again)
    );
    println!();
}
