//! `mcpdeck test` against real servers: server-everything (initialize
//! era, stdio), the Python SDK 1.30 (initialize era) and 2.3 (stateless
//! era) test servers. Every assertion kind passing and failing, captures,
//! snapshots written with --update then compared, a changed server's
//! snapshot diff, JUnit XML read back by a parser, bad files, --filter,
//! --fail-fast, --jobs and the exit codes. Installed by scripts/test.sh.

mod common;

use std::path::Path;

use common::{assert_no_leak, everything_js, limit, marker, mcpdeck, py_v1, py_v2, server_script};
use serde_json::Value;

/// A TOML string of `s` (a path, a marker).
fn q(s: &str) -> String {
    toml_quote(s)
}

fn toml_quote(s: &str) -> String {
    format!("{:?}", s)
}

/// `target = [...]` for server-everything on stdio, with a marker to find
/// its processes.
fn everything(mark: &str) -> String {
    format!(
        "[{}, {}, \"stdio\", {}]",
        q("node"),
        q(&everything_js().display().to_string()),
        q(mark)
    )
}

fn python(v: u8, mark: &str) -> String {
    let (py, script) = if v == 1 {
        (py_v1(), server_script("py_v1_server.py"))
    } else {
        (py_v2(), server_script("py_v2_server.py"))
    };
    // The marker rides on the environment's command line: `env` runs the
    // server with it as a harmless variable.
    format!(
        "[\"env\", {}, {}, {}]",
        q(&format!("MCPDECK_MARK={mark}")),
        q(&py.display().to_string()),
        q(&script.display().to_string())
    )
}

/// `mcpdeck test ARGS…` run in `dir`.
fn test_run(dir: &Path, args: &[&str]) -> common::Run {
    let mut all = vec!["test"];
    all.extend(args);
    common::mcpdeck_in(Some(dir), &all, &[], limit(120))
}

fn json_of(run: &common::Run) -> Value {
    serde_json::from_str(&run.stdout).unwrap_or_else(|e| {
        panic!(
            "not JSON ({e}):\nstdout:\n{}\nstderr:\n{}",
            run.stdout, run.stderr
        )
    })
}

fn steps(doc: &Value) -> Vec<Value> {
    doc["suites"]
        .as_array()
        .expect("suites")
        .iter()
        .flat_map(|s| s["steps"].as_array().expect("steps").clone())
        .collect()
}

fn by_name<'a>(steps: &'a [Value], name: &str) -> &'a Value {
    steps
        .iter()
        .find(|s| s["name"] == name)
        .unwrap_or_else(|| panic!("no step {name:?} in {steps:#?}"))
}

fn assertions(step: &Value) -> Vec<String> {
    step["failures"]
        .as_array()
        .expect("failures")
        .iter()
        .map(|f| f["assertion"].as_str().unwrap_or_default().to_string())
        .collect()
}

const PASSING: &str = r##"
[[call]]
name = "echo"
tool = "echo"
args = { message = "hello" }
[call.expect]
is_error = false
text = "Echo: hello"
text_contains = ["Echo", "hello"]
text_matches = '^Echo: h\w+$'
content_types = ["text"]
max_ms = 30000

[[call]]
name = "weather"
tool = "get-structured-content"
args = { location = "Chicago" }
[call.expect]
output_schema_valid = true
structured = { conditions = "Light rain / drizzle" }
[call.expect.json]
"$.structuredContent.temperature" = { type = "integer", gt = 0, gte = 36, lt = 100, lte = 36, equal = 36 }
"$.structuredContent.conditions" = { matches = "rain", contains = "drizzle", length = 20 }
"$.structuredContent" = { contains = "humidity", length = 3 }
"$.content[*].type" = ["text"]
"$.structuredContent.wind" = { exists = false }
"$..humidity" = { exists = true }

[[call]]
name = "image"
tool = "get-tiny-image"
expect = { content_types = ["text", "image", "text"] }

[[call]]
name = "unknown tool"
tool = "no-such-tool"
expect = { is_error = true, text_contains = "not found" }

[[read]]
name = "a document"
uri = "demo://resource/static/document/architecture.md"
expect = { mime_type = "text/markdown", text_contains = "#" }

[[read]]
name = "a missing resource"
uri = "demo://nope"
expect = { error_code = -32602, error_contains = "not found" }

[[prompt]]
name = "args prompt"
prompt = "args-prompt"
args = { city = "Paris" }
expect = { text_contains = "Paris" }
"##;

/// Every assertion kind fails where it should, each named in the JSON.
const FAILING: &str = r##"
[[call]]
name = "echo"
tool = "echo"
args = { message = "hello" }
[call.expect]
is_error = true
text = "Echo: bye"
text_contains = "bye"
text_matches = '^bye'
content_types = ["image"]

[[call]]
name = "weather"
tool = "get-structured-content"
args = { location = "Chicago" }
[call.expect]
structured = { conditions = "Sunny" }
[call.expect.json]
"$.structuredContent.temperature" = { type = "string", gt = 100, gte = 100, lt = 0, lte = 0, equal = 1 }
"$.structuredContent.conditions" = { matches = "^snow", contains = "hail", length = 2 }
"$.structuredContent.wind" = { exists = true }

[[call]]
name = "no output schema"
tool = "echo"
args = { message = "x" }
expect = { output_schema_valid = true }

[[call]]
name = "slow"
tool = "trigger-long-running-operation"
args = { duration = 0.3, steps = 1 }
expect = { max_ms = 1 }

[[read]]
name = "a document"
uri = "demo://resource/static/document/architecture.md"
expect = { mime_type = "application/json", text_contains = "no such words here" }

[[read]]
name = "a missing resource"
uri = "demo://nope"
expect = { error_code = -32601 }

[[read]]
name = "an error not expected"
uri = "demo://nope"

[[read]]
name = "an error expected, a result came"
uri = "demo://resource/static/document/architecture.md"
expect = { error_contains = "nope" }

[[prompt]]
name = "args prompt"
prompt = "args-prompt"
args = { city = "Paris" }
expect = { text_contains = "Lyon" }
"##;

#[test]
fn every_assertion_kind_passes_and_fails_against_server_everything() {
    let dir = tempfile::tempdir().unwrap();
    let mark = marker("suite-pass");
    let pass = common::write_file(
        dir.path(),
        "pass.mcpdeck.toml",
        &format!("[suite]\ntarget = {}\n{PASSING}", everything(&mark)),
    );
    let run = test_run(dir.path(), &["--json", &pass.display().to_string()]);
    let doc = json_of(&run);
    assert_eq!(run.code, 0, "{}\n{}", run.stdout, run.stderr);
    assert_eq!(doc["passed"], 7, "{doc:#}");
    assert_eq!(doc["failed"], 0);
    let server = format!("node {} stdio {mark}", everything_js().display());
    for s in steps(&doc) {
        assert_eq!(s["status"], "passed", "{s:#}");
        assert!(s["ms"].as_f64().is_some(), "{s}");
        assert_eq!(s["server"], server.as_str(), "{s}");
    }
    let kinds: Vec<Value> = steps(&doc).iter().map(|s| s["kind"].clone()).collect();
    assert_eq!(
        kinds,
        ["call", "call", "call", "call", "read", "read", "prompt"]
    );
    assert_no_leak(&mark);

    let mark = marker("suite-fail");
    let fail = common::write_file(
        dir.path(),
        "fail.mcpdeck.toml",
        &format!("[suite]\ntarget = {}\n{FAILING}", everything(&mark)),
    );
    let run = test_run(dir.path(), &["--json", &fail.display().to_string()]);
    assert_eq!(run.code, 1, "{}\n{}", run.stdout, run.stderr);
    let doc = json_of(&run);
    let all = steps(&doc);
    assert_eq!(doc["failed"], 9, "{doc:#}");
    assert_eq!(doc["passed"], 0, "{doc:#}");
    assert_eq!(
        assertions(by_name(&all, "echo")),
        [
            "is_error",
            "content_types",
            "text",
            "text_contains",
            "text_matches"
        ]
    );
    assert_eq!(
        assertions(by_name(&all, "weather")),
        [
            "structured",
            "json $.structuredContent.temperature type",
            "json $.structuredContent.temperature gt",
            "json $.structuredContent.temperature gte",
            "json $.structuredContent.temperature lt",
            "json $.structuredContent.temperature lte",
            "json $.structuredContent.temperature equal",
            "json $.structuredContent.conditions matches",
            "json $.structuredContent.conditions contains",
            "json $.structuredContent.conditions length",
            "json $.structuredContent.wind exists",
        ]
    );
    let weather = by_name(&all, "weather");
    let f = &weather["failures"][0];
    assert_eq!(f["expected"], serde_json::json!({"conditions": "Sunny"}));
    assert_eq!(f["actual"]["conditions"], "Light rain / drizzle");
    assert_eq!(
        f["message"],
        "structuredContent.conditions: expected \"Sunny\", got \"Light rain / drizzle\""
    );
    assert_eq!(
        assertions(by_name(&all, "no output schema")),
        ["output_schema_valid"]
    );
    let slow = by_name(&all, "slow");
    assert_eq!(assertions(slow), ["max_ms"]);
    assert!(slow["ms"].as_f64().unwrap() >= 300.0, "{slow}");
    assert_eq!(
        assertions(by_name(&all, "a document")),
        ["mime_type", "text_contains"]
    );
    assert_eq!(
        assertions(by_name(&all, "a missing resource")),
        ["error_code"]
    );
    let unexpected = by_name(&all, "an error not expected");
    assert_eq!(assertions(unexpected), ["response"]);
    assert!(
        unexpected["failures"][0]["message"]
            .as_str()
            .unwrap()
            .contains("add error_code = -32602"),
        "{unexpected}"
    );
    assert_eq!(
        assertions(by_name(&all, "an error expected, a result came")),
        ["error_contains"]
    );
    assert_eq!(assertions(by_name(&all, "args prompt")), ["text_contains"]);
    assert_no_leak(&mark);

    // The text report: a line a step, the first failure with its diff.
    let run = test_run(dir.path(), &[&fail.display().to_string()]);
    assert_eq!(run.code, 1);
    let out = &run.stdout;
    assert!(out.contains("✗ echo"), "{out}");
    assert!(
        out.contains("expected isError: true, the tool succeeded"),
        "{out}"
    );
    assert!(
        out.contains(
            "and 4 more: content_types, text, text_contains, text_matches (--json shows each)"
        ),
        "{out}"
    );
    assert!(out.contains("1 suite: 0 passed, 9 failed"), "{out}");
    // No colour when stdout is not a terminal.
    assert!(!out.contains('\x1b'), "{out:?}");
}

#[test]
fn captures_feed_later_steps_on_both_python_sdks() {
    let dir = tempfile::tempdir().unwrap();
    let (m1, m2) = (marker("suite-py1"), marker("suite-py2"));
    let suite = format!(
        r#"
[[call]]
name = "sum"
target = {v1}
tool = "add"
args = {{ a = 1, b = 2 }}
capture = {{ SUM = "$.structuredContent.result" }}
expect.structured = {{ result = 3 }}

[[call]]
name = "sum again"
target = {v1}
tool = "add"
args = {{ a = "{{{{SUM}}}}", b = 10 }}
expect.json = {{ "$.structuredContent.result" = 13 }}

[[call]]
name = "weather"
target = {v2}
tool = "get_weather"
args = {{ city = "Paris" }}
capture = {{ CITY = "$.structuredContent.city", T = "$.structuredContent.temperature_c" }}
expect.output_schema_valid = true

[[call]]
name = "echo the capture"
target = {v2}
tool = "echo"
args = {{ text = "{{{{CITY}}}} is {{{{T}}}} °C for {{{{env.SUITE_WHO}}}}" }}
expect.text = "echo: Paris is 21.5 °C for tester"

[[read]]
name = "config"
target = {v2}
uri = "config://app"
expect = {{ mime_type = "application/json", text = '{{"feature": true}}' }}

[[prompt]]
name = "greet the capture"
target = {v1}
prompt = "greet"
args = {{ name = "{{{{CITY}}}}" }}
expect.text_contains = "Please greet Paris warmly."
"#,
        v1 = python(1, &m1),
        v2 = python(2, &m2)
    );
    let file = common::write_file(dir.path(), "py.mcpdeck.toml", &suite);
    let run = common::mcpdeck_env(
        &["test", "--json", &file.display().to_string()],
        &[("SUITE_WHO", "tester")],
        limit(120),
    );
    let doc = json_of(&run);
    assert_eq!(run.code, 0, "{doc:#}\n{}", run.stderr);
    assert_eq!(doc["passed"], 6, "{doc:#}");
    let all = steps(&doc);
    let notes = by_name(&all, "weather")["notes"].to_string();
    assert!(notes.contains("captured CITY = \\\"Paris\\\""), "{notes}");
    assert_no_leak(&m1);
    assert_no_leak(&m2);

    // --filter keeps the step and the one whose capture it uses.
    let run = common::mcpdeck_env(
        &[
            "test",
            "--json",
            "--filter",
            "echo the",
            &file.display().to_string(),
        ],
        &[("SUITE_WHO", "tester")],
        limit(120),
    );
    let doc = json_of(&run);
    assert_eq!(run.code, 0, "{doc:#}");
    let names: Vec<Value> = steps(&doc).iter().map(|s| s["name"].clone()).collect();
    assert_eq!(names, ["weather", "echo the capture"]);

    // An unset variable is the step's error, exit 2.
    let run = test_run(
        dir.path(),
        &[
            "--json",
            "--filter",
            "echo the",
            &file.display().to_string(),
        ],
    );
    assert_eq!(run.code, 2, "{}", run.stdout);
    let doc = json_of(&run);
    let step = by_name(&steps(&doc), "echo the capture").clone();
    assert_eq!(step["status"], "error");
    assert_eq!(
        step["error"],
        "{{env.SUITE_WHO}}: the environment variable SUITE_WHO is not set"
    );
}

#[test]
fn snapshots_update_then_pass_then_show_a_changed_server() {
    let dir = tempfile::tempdir().unwrap();
    let mark = marker("suite-snap");
    // server-everything's get-env answers with its environment: another
    // SNAP_MARK is a server whose answer changed.
    let suite = |value: &str| {
        format!(
            r#"
[suite]
target = ["env", "SNAP_MARK={value}", "node", {js}, "stdio", {mark}]

[[call]]
name = "environment"
tool = "get-env"
expect.snapshot = true

[[call]]
name = "environment, its text ignored"
tool = "get-env"
expect = {{ snapshot = true, ignore = ["$.content[*].text"] }}

[[call]]
name = "sum"
tool = "get-sum"
args = {{ a = 1, b = 2 }}
expect.snapshot = true
"#,
            js = q(&everything_js().display().to_string()),
            mark = q(&mark),
        )
    };
    let file = common::write_file(dir.path(), "snap.mcpdeck.toml", &suite("one"));
    let arg = file.display().to_string();
    let run = test_run(dir.path(), &["--json", &arg]);
    assert_eq!(run.code, 1, "{}", run.stdout);
    let doc = json_of(&run);
    assert_eq!(doc["failed"], 3, "{doc:#}");
    for s in steps(&doc) {
        assert_eq!(assertions(&s), ["snapshot"], "{s:#}");
        assert!(
            s["failures"][0]["message"]
                .as_str()
                .unwrap()
                .contains("run with --update to write it"),
            "{s}"
        );
    }
    let run = test_run(dir.path(), &["--update", &arg]);
    assert_eq!(run.code, 0, "{}\n{}", run.stdout, run.stderr);
    assert!(run.stdout.contains("snapshot written"), "{}", run.stdout);
    let snaps = dir.path().join("__snapshots__/snap");
    let text = std::fs::read_to_string(snaps.join("sum.json")).unwrap();
    assert_eq!(
        serde_json::from_str::<Value>(&text).unwrap(),
        serde_json::json!({"content": [{"type": "text", "text": "The sum of 1 and 2 is 3."}]})
    );
    let ignored = std::fs::read_to_string(snaps.join("environment-its-text-ignored.json")).unwrap();
    assert!(ignored.contains("\"text\": \"[ignored]\""), "{ignored}");
    // Clean now.
    let run = test_run(dir.path(), &[&arg]);
    assert_eq!(run.code, 0, "{}\n{}", run.stdout, run.stderr);

    // The server's answer changes: the snapshot fails, and its diff shows
    // the one line of the text that changed.
    std::fs::write(&file, suite("two")).unwrap();
    let run = test_run(dir.path(), &[&arg]);
    assert_eq!(run.code, 1, "{}", run.stdout);
    let out = &run.stdout;
    assert!(out.contains("✗ environment"), "{out}");
    assert!(
        out.contains("the result differs from the snapshot"),
        "{out}"
    );
    let minus: Vec<&str> = out
        .lines()
        .filter(|l| l.trim_start().starts_with("- "))
        .collect();
    let plus: Vec<&str> = out
        .lines()
        .filter(|l| l.trim_start().starts_with("+ "))
        .collect();
    assert_eq!(minus.len(), 1, "{out}");
    assert_eq!(plus.len(), 1, "{out}");
    assert!(minus[0].contains("\"SNAP_MARK\": \"one\""), "{out}");
    assert!(plus[0].contains("\"SNAP_MARK\": \"two\""), "{out}");
    assert!(out.contains("✓ environment, its text ignored"), "{out}");
    assert!(out.contains("✓ sum"), "{out}");
    // --update takes the new answer.
    let run = test_run(dir.path(), &["--update", &arg]);
    assert_eq!(run.code, 0, "{}", run.stdout);
    assert!(run.stdout.contains("snapshot updated"), "{}", run.stdout);
    assert_eq!(test_run(dir.path(), &[&arg]).code, 0);
    assert_no_leak(&mark);
}

#[test]
fn junit_xml_reads_back_in_a_parser() {
    let dir = tempfile::tempdir().unwrap();
    let mark = marker("suite-junit");
    let file = common::write_file(
        dir.path(),
        "j.mcpdeck.toml",
        &format!(
            r#"
[suite]
name = "junit <&> suite"
target = {}

[[call]]
name = "ok"
tool = "echo"
args = {{ message = "hi" }}

[[call]]
name = "fails with <xml> & \"quotes\""
tool = "echo"
args = {{ message = "a\u0001b" }}
expect.text = "nope"

[[read]]
name = "cannot connect"
target = ["/nonexistent/mcpdeck-test-server"]
uri = "x://y"
"#,
            everything(&mark)
        ),
    );
    let xml = dir.path().join("out/report.xml");
    std::fs::create_dir_all(xml.parent().unwrap()).unwrap();
    let run = test_run(
        dir.path(),
        &[
            "--junit",
            &xml.display().to_string(),
            &file.display().to_string(),
        ],
    );
    // A server that cannot be started: exit 3, over the failure's 1.
    assert_eq!(run.code, 3, "{}\n{}", run.stdout, run.stderr);
    let script = r#"
import sys, xml.etree.ElementTree as ET
root = ET.parse(sys.argv[1]).getroot()
assert root.tag == "testsuites", root.tag
print(root.get("tests"), root.get("failures"), root.get("errors"), root.get("skipped"))
for s in root.iter("testsuite"):
    print("suite", s.get("name"), s.get("tests"), s.get("failures"), s.get("errors"))
    for c in s.iter("testcase"):
        kids = [k.tag for k in c]
        print("case", c.get("name"), c.get("classname"), c.get("line"), float(c.get("time")) >= 0, kids)
        for k in c:
            print(" ", k.tag, k.get("type"), k.get("message"))
            if k.tag == "failure":
                print("  body", repr(k.text.splitlines()[0]))
"#;
    let out = std::process::Command::new(py_v1())
        .arg("-c")
        .arg(script)
        .arg(&xml)
        .output()
        .unwrap();
    let text = String::from_utf8_lossy(&out.stdout);
    assert!(
        out.status.success(),
        "{text}\n{}",
        String::from_utf8_lossy(&out.stderr)
    );
    let lines: Vec<&str> = text.lines().collect();
    assert_eq!(lines[0], "3 1 1 0", "{text}");
    assert_eq!(lines[1], "suite junit <&> suite 3 1 1", "{text}");
    assert_eq!(lines[2], "case ok junit <&> suite 6 True []", "{text}");
    assert_eq!(
        lines[3], "case fails with <xml> & \"quotes\" junit <&> suite 11 True ['failure']",
        "{text}"
    );
    assert_eq!(lines[4], "  failure text the text differs", "{text}");
    assert_eq!(lines[5], "  body 'text: the text differs'", "{text}");
    assert!(
        lines[6].starts_with("case cannot connect junit <&> suite 17 True ['error']"),
        "{text}"
    );
    assert!(
        lines[7].starts_with("  error error could not connect"),
        "{text}"
    );
    // The control character the server echoed is shown by its picture,
    // never raw (XML 1.0 cannot hold it).
    let raw = std::fs::read_to_string(&xml).unwrap();
    assert!(!raw.contains('\u{1}'), "{raw}");
    assert!(raw.contains("+ Echo: a\u{2401}b"), "{raw}");
    assert_no_leak(&mark);
}

#[test]
fn bad_files_are_refused_with_their_place_before_anything_runs() {
    let dir = tempfile::tempdir().unwrap();
    let mark = marker("suite-bad");
    let good = common::write_file(
        dir.path(),
        "a.mcpdeck.toml",
        &format!(
            "[[call]]\ntarget = {}\ntool = \"echo\"\n",
            everything(&mark)
        ),
    );
    let bad = common::write_file(
        dir.path(),
        "b.mcpdeck.toml",
        "[[call]]\nserver = \"x\"\ntool = \"echo\"\n[call.expect]\ntext_containz = \"a\"\n",
    );
    let run = test_run(dir.path(), &[&dir.path().display().to_string()]);
    assert_eq!(run.code, 2, "{}\n{}", run.stdout, run.stderr);
    assert!(
        run.stderr.contains(&format!(
            "{}:5:1: unknown key `text_containz` in [call.expect] — did you mean `text_contains`?",
            bad.display()
        )),
        "{}",
        run.stderr
    );
    assert!(
        run.stderr
            .contains("1 test file could not be read; nothing was run"),
        "{}",
        run.stderr
    );
    // Nothing ran: the good file's server was never started.
    assert!(common::processes_with(&mark).is_empty());
    let _ = good;
    // --json: the error envelope.
    let run = test_run(dir.path(), &["--json", &bad.display().to_string()]);
    assert_eq!(run.code, 2);
    assert_eq!(json_of(&run)["error"]["kind"], "config", "{}", run.stdout);
    // A folder without suites, an unknown server.
    let empty = tempfile::tempdir().unwrap();
    let run = test_run(empty.path(), &[&empty.path().display().to_string()]);
    assert_eq!(run.code, 2);
    assert!(
        run.stderr.contains("no test files (*.mcpdeck.toml)"),
        "{}",
        run.stderr
    );
    let unknown = common::write_file(
        dir.path(),
        "u.toml",
        "[[call]]\nserver = \"nope\"\ntool = \"x\"\n",
    );
    let run = test_run(dir.path(), &["--json", &unknown.display().to_string()]);
    assert_eq!(run.code, 2, "{}", run.stdout);
    let step = steps(&json_of(&run))[0].clone();
    assert_eq!(step["status"], "error");
    assert!(
        step["error"]
            .as_str()
            .unwrap()
            .contains("no server named \"nope\""),
        "{step}"
    );
}

#[test]
fn fail_fast_skips_and_jobs_run_suites_side_by_side() {
    let dir = tempfile::tempdir().unwrap();
    let (ma, mb) = (marker("suite-ja"), marker("suite-jb"));
    let suite = |mark: &str, wrong: bool| {
        format!(
            "[suite]\ntarget = {}\n[[call]]\nname = \"first\"\ntool = \"echo\"\nargs = {{ message = \"a\" }}\nexpect.text = {}\n[[call]]\nname = \"second\"\ntool = \"trigger-long-running-operation\"\nargs = {{ duration = 0.5, steps = 1 }}\n",
            everything(mark),
            if wrong { "\"wrong\"" } else { "\"Echo: a\"" }
        )
    };
    common::write_file(dir.path(), "a.mcpdeck.toml", &suite(&ma, true));
    common::write_file(dir.path(), "b.mcpdeck.toml", &suite(&mb, false));
    let d = dir.path().display().to_string();
    let run = test_run(dir.path(), &["--json", "--fail-fast", &d]);
    assert_eq!(run.code, 1, "{}", run.stdout);
    let doc = json_of(&run);
    let statuses: Vec<Value> = steps(&doc).iter().map(|s| s["status"].clone()).collect();
    assert_eq!(
        statuses,
        ["failed", "skipped", "skipped", "skipped"],
        "{doc:#}"
    );
    assert_eq!(doc["skipped"], 3);

    // Two jobs: both suites' slow steps at once, reports in file order.
    let run = test_run(dir.path(), &["--json", "--jobs", "2", &d]);
    assert_eq!(run.code, 1, "{}", run.stdout);
    let doc = json_of(&run);
    let files: Vec<String> = doc["suites"]
        .as_array()
        .unwrap()
        .iter()
        .map(|s| {
            s["file"]
                .as_str()
                .unwrap()
                .rsplit('/')
                .next()
                .unwrap()
                .to_string()
        })
        .collect();
    assert_eq!(files, ["a.mcpdeck.toml", "b.mcpdeck.toml"]);
    assert_eq!(doc["passed"], 3);
    assert_eq!(doc["failed"], 1);
    // Side by side: the run took less than its suites one after another
    // (each starts a server and waits 0.5 s in its second step).
    let sum: f64 = doc["suites"]
        .as_array()
        .unwrap()
        .iter()
        .map(|s| s["ms"].as_f64().unwrap())
        .sum();
    assert!(
        run.elapsed.as_secs_f64() * 1000.0 < sum,
        "the suites did not overlap: {:?} for suites of {sum} ms in all",
        run.elapsed
    );
    // --fail-fast with two jobs: the failing suite's next step is skipped.
    let run = test_run(dir.path(), &["--json", "--fail-fast", "--jobs", "2", &d]);
    assert_eq!(run.code, 1, "{}", run.stdout);
    let doc = json_of(&run);
    let a: Vec<Value> = doc["suites"][0]["steps"]
        .as_array()
        .unwrap()
        .iter()
        .map(|s| s["status"].clone())
        .collect();
    assert_eq!(a, ["failed", "skipped"], "{doc:#}");
    // A suite named by a path relative to where the run starts.
    let run = test_run(dir.path(), &["--json", "b.mcpdeck.toml"]);
    assert_eq!(run.code, 0, "{}\n{}", run.stdout, run.stderr);
    assert_eq!(json_of(&run)["passed"], 2);
    // The text report keeps each suite's lines together.
    let run = test_run(dir.path(), &["--jobs", "2", &d]);
    let out = &run.stdout;
    let a = out.find("a.mcpdeck.toml").unwrap();
    let b = out.find("b.mcpdeck.toml").unwrap();
    let (first, second) = if a < b { (a, b) } else { (b, a) };
    let block = &out[first..second];
    assert!(block.contains("first") && block.contains("second"), "{out}");
    assert_no_leak(&ma);
    assert_no_leak(&mb);
}

#[test]
fn the_example_suite_passes_against_the_demo_servers() {
    let example = common::repo().join("tests.example.toml");
    let run = mcpdeck(
        &["--demo", "test", "--json", &example.display().to_string()],
        limit(60),
    );
    let doc = json_of(&run);
    assert_eq!(run.code, 0, "{doc:#}\n{}", run.stderr);
    assert_eq!(doc["passed"], 7, "{doc:#}");
}
