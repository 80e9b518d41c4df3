//! The command line itself, run as the binary: the commands under headings
//! in the help, every flag described, the global flags under their own
//! heading, global flags that would do nothing refused, only visible
//! commands suggested, bench's `--count`, and bare `mcpdeck` without a
//! terminal.

mod common;

use std::time::Duration;

fn run(args: &[&str]) -> common::Run {
    common::mcpdeck(args, common::limit(30))
}

/// The lines of a help text's section, from its heading to the next one
/// (or to the text after the sections).
fn section<'a>(help: &'a str, heading: &str) -> Vec<&'a str> {
    help.lines()
        .skip_while(|l| *l != heading)
        .skip(1)
        // Its lines are indented (blank ones between entries in long help).
        .take_while(|l| l.is_empty() || l.starts_with(' '))
        .collect()
}

#[test]
fn the_help_lists_the_commands_under_headings_however_it_is_asked() {
    let help = run(&["--help"]).ok().stdout.clone();
    assert_eq!(run(&["-h"]).ok().stdout, help);
    assert_eq!(run(&["help"]).ok().stdout, help);
    assert!(!help.contains("Commands:"), "{help}");
    for (heading, first) in [
        ("Explore and call:", "servers"),
        ("Configure:", "add"),
        ("Trust:", "lint"),
        ("Record and compare:", "open"),
        ("Serve:", "serve"),
        ("CI:", "smoke"),
        ("Other:", "demo-server"),
    ] {
        let under = section(&help, heading);
        assert!(
            under
                .first()
                .is_some_and(|l| l.starts_with(&format!("  {first} "))),
            "{heading} {first}:\n{help}"
        );
    }
    // Options and the text after them as before.
    assert!(section(&help, "Global options:").len() >= 7, "{help}");
    assert!(help.contains("\nExit codes: 0 ok"), "{help}");
    // A command's own help is clap's, asked either way.
    let tools = run(&["help", "tools"]).ok().stdout.clone();
    assert!(tools.contains("Usage: mcpdeck tools"), "{tools}");
    assert_eq!(run(&["tools", "--help"]).ok().stdout, tools);
    let auth = run(&["auth", "--help"]).ok().stdout.clone();
    assert!(auth.contains("Commands:\n  login "), "{auth}");
}

#[test]
fn json_is_described_and_global_flags_have_their_own_heading() {
    for cmd in ["servers", "info", "tools", "call", "smoke", "completions"] {
        let help = run(&[cmd, "-h"]).ok().stdout.clone();
        let own = section(&help, "Options:");
        let global = section(&help, "Global options:");
        for flag in [
            "--trace",
            "--demo",
            "--record",
            "--config",
            "--roots",
            "--log-file",
        ] {
            assert!(
                global.iter().any(|l| l.trim_start().starts_with(flag)),
                "{cmd}: {flag} not under Global options:\n{help}"
            );
            assert!(
                !own.iter().any(|l| l.trim_start().starts_with(flag)),
                "{cmd}: {flag} among the command's own options:\n{help}"
            );
        }
        if let Some(json) = own.iter().find(|l| l.trim_start().starts_with("--json")) {
            assert!(
                json.trim_start().len() > "--json".len() + 4,
                "{cmd}: --json has no description: {json:?}"
            );
        }
    }
}

#[test]
fn a_mistyped_command_is_offered_visible_commands_only() {
    let r = run(&["srvers"]);
    assert_eq!(r.code, 2, "{}", r.stderr);
    assert!(r.stderr.contains("'servers'"), "{}", r.stderr);
    assert!(!r.stderr.contains("__servers"), "{}", r.stderr);
}

#[test]
fn global_flags_that_do_nothing_are_a_usage_error() {
    let dir = tempfile::tempdir().expect("tempdir");
    let rec = common::write_file(dir.path(), "rec.jsonl", "");
    let rec = rec.to_str().expect("utf-8 path");
    for (args, flag, cmd) in [
        (
            vec!["--demo", "completions", "bash"],
            "--demo",
            "completions",
        ),
        (vec!["stats", rec, "--trace"], "--trace", "stats"),
        (
            vec!["demo-server", "--record", "x.jsonl"],
            "--record",
            "demo-server",
        ),
        (vec!["replay", rec, "--roots", "/"], "--roots", "replay"),
    ] {
        let r = run(&args);
        assert_eq!(r.code, 2, "{args:?}: {}", r.stderr);
        assert!(
            r.stderr
                .contains(&format!("{flag} does nothing for `mcpdeck {cmd}`")),
            "{args:?}: {}",
            r.stderr
        );
        assert!(r.stdout.is_empty(), "{args:?}: {}", r.stdout);
        assert!(
            r.stderr.contains(&format!("Usage: mcpdeck {cmd}")),
            "{}",
            r.stderr
        );
    }
    // The ones that work there still do.
    let r = run(&["completions", "bash", "--config", "/nonexistent.toml"]);
    r.ok();
    assert!(r.stdout.contains("_mcpdeck"));
}

#[test]
fn bench_takes_count_and_still_the_old_calls_and_n() {
    let help = run(&["bench", "--help"]).ok().stdout.clone();
    assert!(help.contains("--count <N>"), "{help}");
    assert!(!help.contains("--calls <N>"), "{help}");
    // Each name runs 2 calls against the demo server.
    let exe = common::mcpdeck_bin();
    let exe = exe.to_str().expect("utf-8 path");
    for flag in ["--count", "--calls", "-n"] {
        let r = common::mcpdeck(
            &[
                "bench",
                "echo",
                r#"{"message":"x"}"#,
                flag,
                "2",
                "--json",
                "--",
                exe,
                "demo-server",
            ],
            common::limit(60),
        );
        r.ok();
        let v: serde_json::Value = serde_json::from_str(&r.stdout).expect("json");
        assert_eq!(v["calls"], 2, "{flag}: {v}");
    }
}

#[test]
fn bare_mcpdeck_without_a_terminal_connects_nothing_and_says_what_to_run() {
    let dir = tempfile::tempdir().expect("tempdir");
    let touched = dir.path().join("started");
    let config = common::write_file(
        dir.path(),
        "config.toml",
        &format!(
            "[servers.s]\ncommand = \"sh\"\nargs = [\"-c\", \"touch {}; sleep 5\"]\n",
            touched.display()
        ),
    );
    let r = run(&["--config", config.to_str().expect("utf-8 path")]);
    assert_eq!(r.code, 2, "{}", r.stderr);
    assert!(r.stdout.is_empty(), "{}", r.stdout);
    for hint in ["mcpdeck servers", "mcpdeck --help", "no terminal"] {
        assert!(r.stderr.contains(hint), "{hint}: {}", r.stderr);
    }
    assert!(r.elapsed < Duration::from_secs(3), "{:?}", r.elapsed);
    std::thread::sleep(Duration::from_millis(200));
    assert!(!touched.exists(), "the server was started");
}
