//! `mcpdeck smoke` never changes the user's world by default: against the
//! real mcp-server-git (on a throw-away repository with a staged file) and
//! mcp-server-time from PyPI, and the Python SDK server (no annotations).

mod common;

use common::pty::Tui;

use std::path::Path;
use std::process::{Command, Stdio};

use serde_json::Value;

fn git(dir: &Path, args: &[&str]) -> String {
    let out = Command::new("git")
        .args(args)
        .current_dir(dir)
        .env("GIT_CONFIG_GLOBAL", "/dev/null")
        .env("GIT_CONFIG_SYSTEM", "/dev/null")
        .stdin(Stdio::null())
        .output()
        .expect("git");
    assert!(
        out.status.success(),
        "git {args:?}: {}",
        String::from_utf8_lossy(&out.stderr)
    );
    String::from_utf8_lossy(&out.stdout).into_owned()
}

/// A repository with one commit and one staged, uncommitted file.
fn repo_with_staged_file() -> tempfile::TempDir {
    let dir = tempfile::tempdir().unwrap();
    let p = dir.path();
    git(p, &["init", "-q", "-b", "main", "."]);
    git(p, &["config", "user.email", "t@example.com"]);
    git(p, &["config", "user.name", "t"]);
    std::fs::write(p.join("a.txt"), "a\n").unwrap();
    git(p, &["add", "a.txt"]);
    git(p, &["commit", "-q", "-m", "first"]);
    std::fs::write(p.join("staged.txt"), "staged\n").unwrap();
    git(p, &["add", "staged.txt"]);
    dir
}

/// The repository's state: every ref, the index, the working tree status.
fn state(dir: &Path) -> String {
    [
        git(dir, &["for-each-ref"]),
        git(dir, &["ls-files", "--stage"]),
        git(dir, &["status", "--porcelain", "--branch"]),
    ]
    .join("\n--\n")
}

/// `mcpdeck smoke --json EXTRA -- python -m MODULE ARGS`, run in `cwd`.
fn smoke(cwd: &Path, extra: &[&str], module: &str, server_args: &[&str]) -> (i32, Value) {
    let py = common::py_v2();
    let py = py.to_str().unwrap();
    let mut cmd = Command::new(common::mcpdeck_bin());
    cmd.arg("smoke")
        .arg("--json")
        .args(extra)
        .args(["--", py, "-m", module])
        .args(server_args)
        .current_dir(cwd)
        .env(
            "MCPDECK_CONFIG",
            common::repo().join("tests/fixtures/empty.toml"),
        )
        .env("GIT_CONFIG_GLOBAL", "/dev/null")
        .stdin(Stdio::null())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped());
    let run = common::run_limited(cmd, common::limit(120));
    let report: Value = serde_json::from_str(&run.stdout)
        .unwrap_or_else(|e| panic!("not JSON ({e}):\n{}\n{}", run.stdout, run.stderr));
    (run.code, report)
}

fn tool<'a>(report: &'a Value, name: &str) -> &'a Value {
    report["checks"]
        .as_array()
        .unwrap()
        .iter()
        .find(|c| c["kind"] == "tool" && c["name"] == name)
        .unwrap_or_else(|| panic!("no tool check {name:?} in {report:#}"))
}

const GIT_WRITES: [&str; 4] = ["git_commit", "git_add", "git_create_branch", "git_checkout"];

#[test]
fn git_server_repository_is_untouched_by_default() {
    let repo = repo_with_staged_file();
    let before = state(repo.path());
    let dir = repo.path().to_str().unwrap();
    let (code, report) = smoke(repo.path(), &[], "mcp_server_git", &["--repository", dir]);
    assert_eq!(code, 0, "{report:#}");
    assert_eq!(state(repo.path()), before, "smoke changed the repository");
    for name in GIT_WRITES {
        let c = tool(&report, name);
        assert_eq!(c["status"], "skip", "{c}");
        assert_eq!(c["calls_with"], "--calls writes", "{c}");
        let msg = c["message"].as_str().unwrap();
        assert!(msg.contains("annotated as a write"), "{msg}");
    }
    let reset = tool(&report, "git_reset");
    assert_eq!(reset["status"], "skip");
    assert_eq!(reset["calls_with"], "--calls all");
    // Read-only tools are called with arguments worth sending.
    let status = tool(&report, "git_status");
    assert_eq!(status["status"], "pass", "{status}");
    assert_eq!(status["arguments"]["repo_path"], ".");
    assert_eq!(status["sources"]["repo_path"], "name");
    assert_eq!(report["summary"]["unannotated"], 0);
}

#[test]
fn git_server_writes_are_called_with_calls_writes() {
    let repo = repo_with_staged_file();
    let before = state(repo.path());
    let dir = repo.path().to_str().unwrap();
    let (_, report) = smoke(
        repo.path(),
        &[
            "--calls",
            "writes",
            "--args",
            r#"git_commit={"message":"smoke"}"#,
        ],
        "mcp_server_git",
        &["--repository", dir],
    );
    for name in GIT_WRITES {
        let c = tool(&report, name);
        assert_ne!(c["status"], "skip", "{name} was not called: {c}");
    }
    let commit = tool(&report, "git_commit");
    assert_eq!(commit["arguments"]["message"], "smoke");
    assert_eq!(commit["sources"]["message"], "given");
    // Destructive tools stay out.
    assert_eq!(tool(&report, "git_reset")["status"], "skip");
    assert_ne!(state(repo.path()), before, "the writes were not made");
    assert!(git(repo.path(), &["log", "--format=%s"]).contains("smoke"));
}

#[test]
fn time_server_uses_the_description_example() {
    let dir = tempfile::tempdir().unwrap();
    let (code, report) = smoke(dir.path(), &[], "mcp_server_time", &[]);
    assert_eq!(code, 0, "{report:#}");
    let c = tool(&report, "get_current_time");
    assert_eq!(c["status"], "pass", "{c}");
    assert_eq!(c["arguments"]["timezone"], "America/New_York");
    assert_eq!(c["sources"]["timezone"], "description");
}

#[test]
fn given_arguments_override() {
    let dir = tempfile::tempdir().unwrap();
    let file = common::write_file(
        dir.path(),
        "smoke-args.toml",
        "# realistic inputs, kept in the server's repository\n[get_current_time]\ntimezone = \"Europe/Paris\"\n\n[convert_time]\nsource_timezone = \"UTC\"\ntime = \"09:30\"\ntarget_timezone = \"Asia/Tokyo\"\n",
    );
    let file = file.to_str().unwrap();
    let (code, report) = smoke(
        dir.path(),
        &[
            "--args-file",
            file,
            "--args",
            r#"convert_time={"target_timezone":"Europe/Berlin"}"#,
        ],
        "mcp_server_time",
        &[],
    );
    assert_eq!(code, 0, "{report:#}");
    let now = tool(&report, "get_current_time");
    assert_eq!(now["arguments"]["timezone"], "Europe/Paris");
    assert_eq!(now["sources"]["timezone"], "given");
    let convert = tool(&report, "convert_time");
    assert_eq!(convert["status"], "pass", "{convert}");
    assert_eq!(convert["arguments"]["source_timezone"], "UTC");
    assert_eq!(convert["arguments"]["time"], "09:30");
    assert_eq!(convert["arguments"]["target_timezone"], "Europe/Berlin");
    // A bad file is a usage error that names it.
    let bad = common::write_file(dir.path(), "bad.toml", "[get_current_time\n");
    let run = common::mcpdeck(
        &["smoke", "--args-file", bad.to_str().unwrap(), "--", "true"],
        common::limit(30),
    );
    assert_eq!(run.code, 2, "{}", run.stderr);
    assert!(run.stderr.contains("bad.toml"), "{}", run.stderr);
}

#[test]
fn tools_without_annotations_need_calls_all() {
    let dir = tempfile::tempdir().unwrap();
    let script = common::server_script("py_v2_server.py");
    let script = script.to_str().unwrap();
    let py = common::py_v2();
    let py = py.to_str().unwrap();
    let run = common::mcpdeck(&["smoke", "--json", "--", py, script], common::limit(120));
    assert_eq!(run.code, 0, "{}\n{}", run.stdout, run.stderr);
    let report: Value = serde_json::from_str(&run.stdout).unwrap();
    let tools: Vec<&Value> = report["checks"]
        .as_array()
        .unwrap()
        .iter()
        .filter(|c| c["kind"] == "tool")
        .collect();
    assert!(tools.len() >= 3, "{report:#}");
    for c in &tools {
        assert_eq!(c["status"], "skip", "{c}");
        assert_eq!(c["calls_with"], "--calls all", "{c}");
        assert!(
            c["message"].as_str().unwrap().contains("spec's defaults"),
            "{c}"
        );
    }
    let n = report["summary"]["unannotated"].as_u64().unwrap();
    assert_eq!(n as usize, tools.len());
    let suggestion = report["summary"]["suggestion"].as_str().unwrap();
    assert!(suggestion.contains("readOnlyHint: true"), "{suggestion}");
    // The text report says it too.
    let run = common::mcpdeck(&["smoke", "--", py, script], common::limit(120));
    assert!(
        run.stdout.contains("note: ") && run.stdout.contains("annotate them"),
        "{}",
        run.stdout
    );

    // --calls all (and its alias --destructive) call them all.
    for flag in [["--calls", "all"].as_slice(), ["--destructive"].as_slice()] {
        let mut args = vec!["smoke", "--json"];
        args.extend_from_slice(flag);
        args.extend_from_slice(&["--", py, script]);
        let run = common::mcpdeck(&args, common::limit(120));
        let report: Value = serde_json::from_str(&run.stdout).unwrap();
        let skipped = report["checks"]
            .as_array()
            .unwrap()
            .iter()
            .filter(|c| c["kind"] == "tool" && c["status"] == "skip")
            .count();
        assert_eq!(skipped, 0, "{flag:?}: {report:#}");
    }
    // --only and --skip narrow the set; an unknown --skip is a warning.
    let run = common::mcpdeck(
        &[
            "smoke", "--json", "--calls", "all", "--only", "echo,add", "--skip", "add,nope", "--",
            py, script,
        ],
        common::limit(120),
    );
    let report: Value = serde_json::from_str(&run.stdout).unwrap();
    let called: Vec<&str> = report["checks"]
        .as_array()
        .unwrap()
        .iter()
        .filter(|c| c["kind"] == "tool" && c["status"] != "skip" && c["status"] != "warn")
        .filter_map(|c| c["name"].as_str())
        .collect();
    assert_eq!(called, ["echo"], "{report:#}");
    assert_eq!(tool(&report, "nope")["status"], "warn");
    let _ = dir;
}

/// `--only` must test something: a name the server does not list is a
/// usage error (exit 2) with the close names; a run whose `--only` tools
/// were all skipped fails (exit 1) and says which flag calls them.
#[test]
fn only_that_tests_nothing_fails() {
    let script = common::server_script("py_v2_server.py");
    let script = script.to_str().unwrap();
    let py = common::py_v2();
    let py = py.to_str().unwrap();
    let run = common::mcpdeck(
        &[
            "smoke",
            "--json",
            "--calls",
            "all",
            "--only",
            "ech,nosuch",
            "--",
            py,
            script,
        ],
        common::limit(120),
    );
    assert_eq!(run.code, 2, "{}\n{}", run.stdout, run.stderr);
    assert!(
        run.stderr.contains("\"ech\" (did you mean \"echo\"?)"),
        "{}",
        run.stderr
    );
    assert!(run.stderr.contains("\"nosuch\""), "{}", run.stderr);
    let v: Value = serde_json::from_str(&run.stdout).expect("the error envelope");
    assert_eq!(v["error"]["kind"], "usage", "{v:#}");

    // echo is not annotated: the default policy skips it.
    let run = common::mcpdeck(
        &["smoke", "--json", "--only", "echo", "--", py, script],
        common::limit(120),
    );
    assert_eq!(run.code, 1, "{}\n{}", run.stdout, run.stderr);
    let report: Value = serde_json::from_str(&run.stdout).unwrap();
    assert_eq!(report["ok"], false, "{report:#}");
    let only = tool(&report, "--only");
    assert_eq!(only["status"], "fail", "{only}");
    let message = only["message"].as_str().unwrap();
    assert!(
        message.contains("echo") && message.contains("--calls all"),
        "{message}"
    );
    // With the flag it names, echo is called and the run passes.
    let run = common::mcpdeck(
        &[
            "smoke", "--json", "--calls", "all", "--only", "echo", "--", py, script,
        ],
        common::limit(120),
    );
    assert_eq!(run.code, 0, "{}\n{}", run.stdout, run.stderr);
    let report: Value = serde_json::from_str(&run.stdout).unwrap();
    assert_eq!(tool(&report, "echo")["status"], "pass", "{report:#}");
    // Counts in words: one resource, one prompt.
    let list = report["checks"]
        .as_array()
        .unwrap()
        .iter()
        .find(|c| c["kind"] == "list")
        .expect("the list check");
    let message = list["message"].as_str().unwrap();
    assert!(
        message.contains("1 resource,") && message.ends_with("1 prompt"),
        "{message}"
    );
    // Timings are milliseconds with at most 3 decimals.
    for c in report["checks"].as_array().unwrap() {
        if let Some(ms) = c.get("ms") {
            let text = ms.to_string();
            let decimals = text.split_once('.').map_or(0, |(_, d)| d.len());
            assert!(decimals <= 3, "{c}");
        }
    }
}

/// smoke names a configured server by its name, not its command.
#[test]
fn smoke_reports_the_configured_name() {
    let dir = tempfile::tempdir().unwrap();
    let config = common::write_file(
        dir.path(),
        "config.toml",
        &format!(
            "[servers.demo]\ncommand = {:?}\nargs = [\"demo-server\"]\n",
            common::mcpdeck_bin().display().to_string()
        ),
    );
    let config = config.to_str().unwrap();
    let run = common::mcpdeck(
        &["--config", config, "smoke", "--json", "demo"],
        common::limit(120),
    );
    let report: Value = serde_json::from_str(&run.stdout)
        .unwrap_or_else(|e| panic!("{e}: {}\n{}", run.stdout, run.stderr));
    assert_eq!(report["target"], "demo", "{report:#}");
    assert_eq!(report["checks"][0]["name"], "demo", "{report:#}");
}

/// At a terminal, left at the default, smoke lists the additive writes and
/// asks once; the answer defaults to no.
#[test]
fn at_a_terminal_smoke_asks_before_writing() {
    for (answer, writes) in [("\r", false), ("y\r", true)] {
        let repo = repo_with_staged_file();
        let before = state(repo.path());
        let dir = repo.path().to_str().unwrap();
        let py = common::py_v2();
        let empty = common::repo().join("tests/fixtures/empty.toml");
        let mut tui = Tui::spawn(
            &[
                "smoke",
                "--",
                py.to_str().unwrap(),
                "-m",
                "mcp_server_git",
                "--repository",
                dir,
            ],
            Some(repo.path()),
            &[
                ("MCPDECK_CONFIG", empty.to_str().unwrap()),
                ("GIT_CONFIG_GLOBAL", "/dev/null"),
            ],
        );
        let screen = tui.wait_for("Call them too? [y/N]", 60);
        for name in GIT_WRITES {
            assert!(screen.contains(name), "{name} not listed:\n{screen}");
        }
        assert!(
            !screen.contains("git_reset"),
            "destructive tools are not offered:\n{screen}"
        );
        tui.keys(answer);
        let screen = tui.wait_for("skipped", 60);
        // git_reset stays out either way; the four writes only without a yes.
        let want = if writes { "1 skipped" } else { "5 skipped" };
        assert!(screen.contains(want), "{answer:?}: want {want}:\n{screen}");
        assert_eq!(state(repo.path()) == before, !writes, "{answer:?}");
        let deadline = std::time::Instant::now() + common::limit(30);
        while !matches!(tui.child.try_wait(), Ok(Some(_))) {
            assert!(std::time::Instant::now() < deadline, "smoke did not exit");
            std::thread::sleep(std::time::Duration::from_millis(50));
        }
    }
}
