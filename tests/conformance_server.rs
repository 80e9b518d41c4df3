//! The official conformance suite's server scenarios
//! (`@modelcontextprotocol/conformance` 0.2.0-alpha.12) for 2025-11-25 and
//! 2026-07-28, against the suite's reference everything-server directly and
//! through `mcpdeck serve --http` in front of it, a fresh pair for each
//! scenario (`scripts/conformance-server`, which prints the table): every
//! scenario that passes directly passes through serve, but the one the
//! script names in `KNOWN` with the one check that fails for a reason
//! outside mcpdeck (the reference server loses an answer for a client that
//! waits the `retry` it asked for; see the script).

mod common;

use std::process::{Command, Stdio};

#[test]
fn every_server_scenario_that_passes_directly_passes_through_serve() {
    let deps = common::repo().join("tests/deps/conformance-server/node_modules");
    assert!(
        deps.join("@modelcontextprotocol/conformance").exists(),
        "run scripts/test.sh to install tests/deps/conformance-server"
    );
    let mut cmd = Command::new("python3");
    cmd.arg(common::repo().join("scripts/conformance-server"))
        .args(["--jobs", "2"])
        .env("MCPDECK_BIN", common::mcpdeck_bin())
        .env("MCPDECK_ERA_MEMORY", "off")
        .env_remove("MCPDECK_CONFIG")
        .stdin(Stdio::null())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped());
    let run = common::run_limited(cmd, common::limit(900));
    // The table, for whoever reads the test's output.
    println!("{}", run.stdout);
    assert_eq!(run.code, 0, "{}\n{}", run.stdout, run.stderr);
    // Both revisions ran, with the scenarios the suite has for them, and
    // serve passed at least as many as the reference server directly.
    for (version, at_least) in [("2025-11-25", 30), ("2026-07-28", 35)] {
        let line = run
            .stdout
            .lines()
            .find(|l| l.starts_with(&format!("{version}: ")))
            .unwrap_or_else(|| panic!("no table for {version}:\n{}", run.stdout));
        let numbers: Vec<usize> = line
            .split(|c: char| !c.is_ascii_digit())
            .filter_map(|n| n.parse().ok())
            .collect();
        // "VERSION: N scenarios, D pass directly, S through mcpdeck serve"
        let [.., total, direct, served] = numbers[..] else {
            panic!("{line}")
        };
        assert!(total >= at_least, "{line}");
        assert!(served + 1 >= direct, "{line}");
    }
    assert!(
        run.stdout
            .contains("lost through mcpdeck serve: 0 scenario run(s)"),
        "{}",
        run.stdout
    );
}
