//! `resources`, `templates`, `read`, `prompts`, `prompt` and `complete`
//! against real servers: server-everything (initialize era), the Python SDK
//! 2.3.0 test server (stateless era), and mcpdeck's own demo server for
//! pagination and capability gates. Installed by scripts/test.sh.

mod common;

use std::path::{Path, PathBuf};

use base64::Engine as _;
use common::{assert_no_leak, everything_js, limit, marker, mcpdeck, py_v2, server_script};
use serde_json::Value;

fn adhoc(cmd: &[String], args: &[&str]) -> common::Run {
    let mut all: Vec<&str> = args.to_vec();
    all.push("--");
    all.extend(cmd.iter().map(String::as_str));
    mcpdeck(&all, limit(90))
}

fn json(run: &common::Run) -> Value {
    run.ok();
    serde_json::from_str(&run.stdout).unwrap_or_else(|e| panic!("not JSON ({e}):\n{}", run.stdout))
}

fn fails(run: &common::Run, code: i32) -> &common::Run {
    assert_eq!(
        run.code, code,
        "expected exit {code}\nstdout:\n{}\nstderr:\n{}",
        run.stdout, run.stderr
    );
    run
}

fn everything() -> Vec<String> {
    vec![
        "node".into(),
        everything_js().display().to_string(),
        "stdio".into(),
    ]
}

fn v2() -> Vec<String> {
    vec![
        py_v2().display().to_string(),
        server_script("py_v2_server.py").display().to_string(),
    ]
}

fn demo(extra: &[&str]) -> Vec<String> {
    let mut cmd = vec![
        common::mcpdeck_bin().display().to_string(),
        "demo-server".into(),
    ];
    cmd.extend(extra.iter().map(|s| s.to_string()));
    cmd
}

/// The directory server-everything serves its static documents from.
fn everything_docs() -> PathBuf {
    everything_js().parent().expect("dist/").join("docs")
}

fn strings(v: &Value, list: &str, key: &str) -> Vec<String> {
    v[list]
        .as_array()
        .unwrap_or_else(|| panic!("no {list} array in {v}"))
        .iter()
        .map(|x| x[key].as_str().unwrap_or_default().to_string())
        .collect()
}

fn files_in(dir: &Path) -> Vec<PathBuf> {
    let mut v: Vec<PathBuf> = std::fs::read_dir(dir)
        .unwrap()
        .map(|e| e.unwrap().path())
        .collect();
    v.sort();
    v
}

#[test]
fn server_everything_resources_and_templates() {
    // Every file in the server's docs directory is a static resource.
    let mut on_disk: Vec<String> = std::fs::read_dir(everything_docs())
        .unwrap()
        .map(|e| e.unwrap().file_name().to_string_lossy().into_owned())
        .collect();
    on_disk.sort();
    let list = json(&adhoc(&everything(), &["resources", "--json"]));
    let mut uris = strings(&list, "resources", "uri");
    uris.sort();
    let expected: Vec<String> = on_disk
        .iter()
        .map(|n| format!("demo://resource/static/document/{n}"))
        .collect();
    assert_eq!(uris, expected);
    for r in list["resources"].as_array().unwrap() {
        assert_eq!(r["mimeType"], "text/markdown", "{r}");
    }

    let text = adhoc(&everything(), &["resources"]);
    text.ok();
    for u in &expected {
        assert!(
            text.stdout.contains(u.as_str()),
            "{u} missing:\n{}",
            text.stdout
        );
    }
    assert!(text.stdout.contains("(text/markdown)"), "{}", text.stdout);

    let templates = json(&adhoc(&everything(), &["templates", "--json"]));
    let t = strings(&templates, "resourceTemplates", "uriTemplate");
    assert!(
        t.contains(&"demo://resource/dynamic/text/{resourceId}".to_string()),
        "{t:?}"
    );
    assert!(
        t.contains(&"demo://resource/dynamic/blob/{resourceId}".to_string()),
        "{t:?}"
    );
    let text = adhoc(&everything(), &["templates"]);
    text.ok();
    assert_eq!(
        text.stdout.matches("    variables: resourceId\n").count(),
        t.len(),
        "{}",
        text.stdout
    );
}

#[test]
fn server_everything_read_text_templates_and_errors() {
    // A static document reads back as the file on disk.
    let doc = everything_docs().join("features.md");
    let want = std::fs::read_to_string(&doc).unwrap();
    let r = json(&adhoc(
        &everything(),
        &[
            "read",
            "demo://resource/static/document/features.md",
            "--json",
        ],
    ));
    assert_eq!(r["contents"][0]["text"].as_str(), Some(want.as_str()));
    let text = adhoc(
        &everything(),
        &["read", "demo://resource/static/document/features.md"],
    );
    text.ok();
    let first = text.stdout.lines().next().unwrap_or_default();
    assert!(first.contains("text/markdown"), "{first}");
    assert!(
        text.stdout.contains(want.lines().next().unwrap()),
        "{}",
        text.stdout
    );

    // A template, expanded with --var.
    let r = json(&adhoc(
        &everything(),
        &[
            "read",
            "demo://resource/dynamic/text/{resourceId}",
            "--var",
            "resourceId=42",
            "--json",
        ],
    ));
    assert_eq!(r["contents"][0]["uri"], "demo://resource/dynamic/text/42");
    assert!(
        r["contents"][0]["text"]
            .as_str()
            .unwrap()
            .starts_with("Resource 42:"),
        "{r}"
    );

    // Template mistakes are usage errors naming the variable (no server needed).
    let missing = mcpdeck(
        &[
            "read",
            "demo://resource/dynamic/text/{resourceId}",
            "--",
            "false",
        ],
        limit(30),
    );
    fails(&missing, 2);
    assert!(missing.stderr.contains("resourceId"), "{}", missing.stderr);
    let unknown = mcpdeck(
        &[
            "read",
            "demo://resource/dynamic/text/{resourceId}",
            "--var",
            "resourceId=1",
            "--var",
            "colour=red",
            "--",
            "false",
        ],
        limit(30),
    );
    fails(&unknown, 2);
    assert!(unknown.stderr.contains("colour"), "{}", unknown.stderr);

    // The server's error: exit 1, and {"error": …} with --json.
    let nope = adhoc(&everything(), &["read", "demo://no/such/thing", "--json"]);
    fails(&nope, 1);
    let v: Value = serde_json::from_str(&nope.stdout).expect("JSON error");
    assert!(v["error"]["code"].is_i64(), "{v}");
    assert!(nope.stderr.contains("resources/read"), "{}", nope.stderr);
}

#[test]
fn server_everything_blob_is_saved_under_a_safe_name() {
    let dir = tempfile::tempdir().unwrap();
    let d = dir.path().display().to_string();
    let template = "demo://resource/dynamic/blob/{resourceId}";

    // --json and --save in one run: the file holds the decoded blob.
    let run = adhoc(
        &everything(),
        &[
            "read",
            template,
            "--var",
            "resourceId=7",
            "--save",
            &d,
            "--json",
        ],
    );
    let v = json(&run);
    let blob = v["contents"][0]["blob"].as_str().expect("a blob");
    let bytes = base64::engine::general_purpose::STANDARD
        .decode(blob)
        .unwrap();
    let files = files_in(dir.path());
    assert_eq!(files.len(), 1, "{files:?}");
    assert_eq!(files[0].parent(), Some(dir.path()));
    assert_eq!(std::fs::read(&files[0]).unwrap(), bytes);
    assert!(bytes.starts_with(b"Resource 7:"), "{bytes:?}");
    assert!(
        run.stderr.contains(&files[0].display().to_string()),
        "the path is reported: {}",
        run.stderr
    );

    // Text mode: mime and decoded size; a second save does not overwrite.
    let run = adhoc(
        &everything(),
        &["read", template, "--var", "resourceId=8", "--save", &d],
    );
    run.ok();
    let files = files_in(dir.path());
    assert_eq!(files.len(), 2, "{files:?}");
    let saved = run
        .stdout
        .lines()
        .find_map(|l| l.trim().strip_prefix("saved to "))
        .unwrap_or_else(|| panic!("no saved path:\n{}", run.stdout));
    let saved = PathBuf::from(saved);
    assert_eq!(saved.parent(), Some(dir.path()));
    let content = std::fs::read(&saved).unwrap();
    assert!(content.starts_with(b"Resource 8:"));
    let size = format!("blob of {} bytes", content.len());
    assert!(run.stdout.contains(&size), "{size}:\n{}", run.stdout);
    assert!(run.stdout.contains("text/plain"), "{}", run.stdout);

    // Without --save a blob is only described.
    let run = adhoc(&everything(), &["read", template, "--var", "resourceId=9"]);
    run.ok();
    assert!(run.stdout.contains("blob of "), "{}", run.stdout);
    assert!(!run.stdout.contains("Resource 9:"), "{}", run.stdout);
    assert_eq!(files_in(dir.path()).len(), 2);
}

#[test]
fn server_everything_prompts() {
    let list = json(&adhoc(&everything(), &["prompts", "--json"]));
    let names = strings(&list, "prompts", "name");
    for n in [
        "simple-prompt",
        "args-prompt",
        "completable-prompt",
        "resource-prompt",
    ] {
        assert!(names.contains(&n.to_string()), "{n} not in {names:?}");
    }
    let text = adhoc(&everything(), &["prompts"]);
    text.ok();
    assert!(
        text.stdout.contains("args-prompt(city*, state)"),
        "{}",
        text.stdout
    );
    assert!(text.stdout.contains("simple-prompt()"), "{}", text.stdout);

    // Without arguments.
    let simple = adhoc(&everything(), &["prompt", "simple-prompt"]);
    simple.ok();
    assert!(
        simple.stdout.starts_with("user:\n    "),
        "{}",
        simple.stdout
    );

    // A missing required argument is a usage error naming it.
    let missing = adhoc(
        &everything(),
        &["prompt", "args-prompt", "--arg", "state=TX"],
    );
    fails(&missing, 2);
    assert!(missing.stderr.contains("city"), "{}", missing.stderr);

    // With arguments, in both modes.
    let v = json(&adhoc(
        &everything(),
        &["prompt", "args-prompt", "--arg", "city=Lyon", "--json"],
    ));
    assert_eq!(v["messages"][0]["role"], "user");
    let said = v["messages"][0]["content"]["text"].as_str().unwrap();
    assert!(said.contains("Lyon"), "{said}");
    let text = adhoc(
        &everything(),
        &[
            "prompt",
            "args-prompt",
            "--arg",
            "city=Lyon",
            "--arg",
            "state=Rhône",
        ],
    );
    text.ok();
    assert!(text.stdout.contains("Lyon, Rhône"), "{}", text.stdout);

    // An embedded resource: its uri and text.
    let text = adhoc(
        &everything(),
        &[
            "prompt",
            "resource-prompt",
            "--arg",
            "resourceType=Text",
            "--arg",
            "resourceId=5",
        ],
    );
    text.ok();
    assert!(
        text.stdout
            .contains("[embedded resource] demo://resource/dynamic/text/5 (text/plain)"),
        "{}",
        text.stdout
    );
    assert!(
        text.stdout.contains("        Resource 5:"),
        "{}",
        text.stdout
    );

    // An unknown prompt: a usage error with a suggestion.
    let typo = adhoc(&everything(), &["prompt", "args-promt"]);
    fails(&typo, 2);
    assert!(typo.stderr.contains("\"args-prompt\""), "{}", typo.stderr);
}

#[test]
fn server_everything_completion() {
    let v = json(&adhoc(
        &everything(),
        &[
            "complete",
            "--prompt",
            "completable-prompt",
            "--arg",
            "department=S",
            "--json",
        ],
    ));
    assert_eq!(
        v["completion"]["values"],
        serde_json::json!(["Sales", "Support"])
    );

    let text = adhoc(
        &everything(),
        &[
            "complete",
            "--prompt",
            "completable-prompt",
            "--arg",
            "department=Eng",
        ],
    );
    text.ok();
    assert_eq!(text.stdout.lines().collect::<Vec<_>>(), ["Engineering"]);

    // The second argument depends on the first, sent as context.
    let text = adhoc(
        &everything(),
        &[
            "complete",
            "--prompt",
            "completable-prompt",
            "--arg",
            "name=",
            "--context",
            "department=Support",
        ],
    );
    text.ok();
    assert_eq!(
        text.stdout.lines().collect::<Vec<_>>(),
        ["John", "Kim", "Lee"]
    );

    // A resource template variable.
    let v = json(&adhoc(
        &everything(),
        &[
            "complete",
            "--resource",
            "demo://resource/dynamic/text/{resourceId}",
            "--arg",
            "resourceId=12",
            "--json",
        ],
    ));
    assert_eq!(v["completion"]["values"], serde_json::json!(["12"]));
    let none = adhoc(
        &everything(),
        &[
            "complete",
            "--resource",
            "demo://resource/dynamic/text/{resourceId}",
            "--arg",
            "resourceId=abc",
        ],
    );
    none.ok();
    assert_eq!(none.stdout.trim(), "(no completions)");

    // A variable the template does not have: usage error, before connecting.
    let bad = mcpdeck(
        &[
            "complete",
            "--resource",
            "demo://resource/dynamic/text/{resourceId}",
            "--arg",
            "id=1",
            "--",
            "false",
        ],
        limit(30),
    );
    fails(&bad, 2);
    assert!(bad.stderr.contains("resourceId"), "{}", bad.stderr);

    // An unknown prompt: exit 2, as `prompt` does (checked against the
    // listing before asking).
    let unknown = adhoc(
        &everything(),
        &["complete", "--prompt", "no-such-prompt", "--arg", "x=1"],
    );
    fails(&unknown, 2);
    assert!(
        unknown
            .stderr
            .contains("no prompt named \"no-such-prompt\""),
        "{}",
        unknown.stderr
    );
}

#[test]
fn python_sdk_2_3_stateless_era() {
    let info = json(&adhoc(&v2(), &["info", "--json"]));
    assert_eq!(info["era"], "stateless");

    let list = json(&adhoc(&v2(), &["resources", "--json"]));
    assert_eq!(strings(&list, "resources", "uri"), ["config://app"]);
    assert_eq!(list["resources"][0]["mimeType"], "application/json");

    let r = json(&adhoc(&v2(), &["read", "config://app", "--json"]));
    let text = r["contents"][0]["text"].as_str().expect("text contents");
    let parsed: Value = serde_json::from_str(text).unwrap();
    assert_eq!(parsed["feature"], true);
    assert!(
        r.get("resultType").is_none() || r["resultType"] == "complete",
        "{r}"
    );

    let templates = adhoc(&v2(), &["templates"]);
    templates.ok();
    assert!(
        templates.stdout.contains("no resource templates"),
        "{}",
        templates.stdout
    );

    let prompts = json(&adhoc(&v2(), &["prompts", "--json"]));
    assert_eq!(strings(&prompts, "prompts", "name"), ["greet"]);
    assert_eq!(prompts["prompts"][0]["arguments"][0]["name"], "name");
    assert_eq!(prompts["prompts"][0]["arguments"][0]["required"], true);

    let greet = adhoc(&v2(), &["prompt", "greet", "--arg", "name=Ada"]);
    greet.ok();
    let lines: Vec<&str> = greet.stdout.lines().collect();
    let user = lines.iter().position(|l| *l == "user:").expect("user:");
    assert!(lines[user + 1].contains("Ada"), "{}", greet.stdout);

    let missing = adhoc(&v2(), &["prompt", "greet"]);
    fails(&missing, 2);
    assert!(missing.stderr.contains("name"), "{}", missing.stderr);

    // This server declares no completions capability: said, exit 0.
    let c = adhoc(&v2(), &["complete", "--prompt", "greet", "--arg", "name=A"]);
    c.ok();
    assert!(c.stdout.contains("completions capability"), "{}", c.stdout);
}

#[test]
fn every_page_and_the_capability_gates() {
    let m = marker("cli-resources");
    // One resource per page: all of them, through several requests.
    let all = json(&adhoc(&demo(&["--name", &m]), &["resources", "--json"]));
    let paged_run = adhoc(
        &demo(&["--name", &m, "--page-size", "1"]),
        &["--trace", "resources", "--json"],
    );
    let paged = json(&paged_run);
    assert!(all["resources"].as_array().unwrap().len() >= 2, "{all}");
    assert_eq!(paged["resources"], all["resources"]);
    let requests = paged_run
        .stderr
        .lines()
        .filter(|l| l.contains("\"method\":\"resources/list\""))
        .count();
    assert_eq!(
        requests,
        all["resources"].as_array().unwrap().len(),
        "{}",
        paged_run.stderr
    );

    // No resources capability: said, exit 0; an empty list with --json.
    let gated = adhoc(&demo(&["--name", &m, "--no-resources"]), &["resources"]);
    gated.ok();
    assert!(
        gated
            .stdout
            .contains("does not declare the resources capability")
    );
    let v = json(&adhoc(
        &demo(&["--name", &m, "--no-resources"]),
        &["templates", "--json"],
    ));
    assert_eq!(v["resourceTemplates"], serde_json::json!([]));
    let gated = adhoc(&demo(&["--name", &m, "--no-prompts"]), &["prompts"]);
    gated.ok();
    assert!(
        gated
            .stdout
            .contains("does not declare the prompts capability")
    );
    let gated = adhoc(
        &demo(&["--name", &m, "--no-prompts"]),
        &["prompt", "greeting"],
    );
    fails(&gated, 2);

    // A PNG blob from the demo server, saved with an extension from its mime type.
    let dir = tempfile::tempdir().unwrap();
    let d = dir.path().display().to_string();
    let uris = strings(&all, "resources", "uri");
    let png = all["resources"]
        .as_array()
        .unwrap()
        .iter()
        .find(|r| r["mimeType"] == "image/png")
        .and_then(|r| r["uri"].as_str())
        .unwrap_or_else(|| panic!("no PNG resource in {uris:?}"));
    adhoc(&demo(&["--name", &m]), &["read", png, "--save", &d]).ok();
    let files = files_in(dir.path());
    assert_eq!(files.len(), 1, "{files:?}");
    assert_eq!(files[0].extension().and_then(|e| e.to_str()), Some("png"));
    let bytes = std::fs::read(&files[0]).unwrap();
    assert!(bytes.starts_with(b"\x89PNG\r\n\x1a\n"), "{:?}", &bytes[..8]);
    assert_no_leak(&m);
}

#[test]
fn over_streamable_http_in_both_eras() {
    let everything = common::everything_http("streamableHttp");
    let url = everything.url.as_str();
    let r = mcpdeck(
        &[
            "read",
            url,
            "demo://resource/dynamic/text/{resourceId}",
            "--var",
            "resourceId=31",
            "--json",
        ],
        limit(60),
    );
    let v = json(&r);
    assert_eq!(v["contents"][0]["uri"], "demo://resource/dynamic/text/31");
    let c = mcpdeck(
        &[
            "complete",
            url,
            "--prompt",
            "completable-prompt",
            "--arg",
            "department=M",
        ],
        limit(60),
    );
    c.ok();
    assert_eq!(c.stdout.lines().collect::<Vec<_>>(), ["Marketing"]);

    let py = common::python_http(py_v2(), "py_v2_server.py");
    let v = json(&mcpdeck(
        &["read", &py.url, "config://app", "--json"],
        limit(60),
    ));
    assert_eq!(v["contents"][0]["uri"], "config://app");
    let p = mcpdeck(
        &["prompt", &py.url, "greet", "--arg", "name=Grace"],
        limit(60),
    );
    p.ok();
    assert!(p.stdout.contains("Grace"), "{}", p.stdout);
}

/// A server whose every string carries terminal escapes, and whose blob
/// names a path outside the save directory.
const HOSTILE: &str = r#"
import base64, json, sys
ESC = "\x1b[2J\x1b]0;pwned\x07\u202e\u009b31m"
ESCAPE_TO = sys.argv[1]
def send(o):
    sys.stdout.write(json.dumps(o) + "\n")
    sys.stdout.flush()
for line in sys.stdin:
    m = json.loads(line)
    rid, method = m.get("id"), m.get("method")
    if rid is None:
        continue
    res = None
    if method == "initialize":
        res = {"protocolVersion": m["params"]["protocolVersion"],
               "capabilities": {"resources": {}, "prompts": {}, "completions": {}},
               "serverInfo": {"name": "evil" + ESC, "version": "1"}}
    elif method == "resources/list":
        res = {"resources": [{"uri": "evil://r" + ESC, "name": "n" + ESC, "title": "t" + ESC,
                              "description": "d" + ESC, "mimeType": "text/plain" + ESC, "size": 3}]}
    elif method == "resources/templates/list":
        res = {"resourceTemplates": [{"uriTemplate": "evil://{id}" + ESC, "name": "n" + ESC}]}
    elif method == "resources/read":
        res = {"contents": [
            {"uri": ESCAPE_TO + ESC, "mimeType": "application/octet-stream" + ESC,
             "blob": base64.b64encode(b"pwned").decode()},
            {"uri": "evil://t", "mimeType": "text/plain", "text": "hi" + ESC}]}
    elif method == "prompts/list":
        res = {"prompts": [{"name": "p" + ESC, "description": "d" + ESC,
                            "arguments": [{"name": "a" + ESC, "description": "x" + ESC}]}]}
    elif method == "prompts/get":
        res = {"description": "d" + ESC, "messages": [
            {"role": "user" + ESC, "content": {"type": "text", "text": "x" + ESC}},
            {"role": "user", "content": {"type": "resource_link", "uri": "evil://l" + ESC, "name": "l" + ESC}}]}
    elif method == "completion/complete":
        res = {"completion": {"values": ["v" + ESC], "total": 9, "hasMore": True}}
    if res is None:
        send({"jsonrpc": "2.0", "id": rid, "error": {"code": -32601, "message": "no " + method}})
    else:
        send({"jsonrpc": "2.0", "id": rid, "result": res})
"#;

#[test]
fn hostile_strings_are_sanitized_and_saves_stay_in_the_directory() {
    let scripts = tempfile::tempdir().unwrap();
    let script = common::write_file(scripts.path(), "evil.py", HOSTILE);
    let m = marker("cli-resources-evil");
    // Where a careless client would write the blob.
    let outside = std::env::temp_dir().join(&m);
    let escape_to = format!("../../../../../../../..{}", outside.display());
    let server = vec![
        "python3".to_string(),
        script.display().to_string(),
        escape_to,
    ];
    let dir = tempfile::tempdir().unwrap();
    let d = dir.path().display().to_string();
    let prompt_name = "p\u{1b}[2J\u{1b}]0;pwned\u{7}\u{202e}\u{9b}31m";
    let runs = [
        adhoc(&server, &["resources"]),
        adhoc(&server, &["templates"]),
        adhoc(&server, &["read", "evil://r", "--save", &d]),
        adhoc(&server, &["prompts"]),
        adhoc(&server, &["prompt", prompt_name]),
        adhoc(
            &server,
            &[
                "complete",
                "--prompt",
                prompt_name,
                "--arg",
                &format!("a{}=v", &prompt_name[1..]),
            ],
        ),
    ];
    for r in &runs {
        r.ok();
        for bad in ['\u{1b}', '\u{7}', '\u{9b}', '\u{202e}'] {
            assert!(
                !r.stdout.contains(bad),
                "{bad:?} reached the terminal:\n{:?}",
                r.stdout
            );
        }
    }
    assert!(runs[2].stdout.contains("hi"), "{}", runs[2].stdout);
    assert!(
        runs[4].stdout.contains("[resource link]"),
        "{}",
        runs[4].stdout
    );
    assert!(
        runs[5]
            .stdout
            .contains("(1 of 9 values; the server has more)")
    );
    let files = files_in(dir.path());
    assert_eq!(files.len(), 1, "{files:?}");
    assert_eq!(std::fs::read(&files[0]).unwrap(), b"pwned");
    let name = files[0].file_name().unwrap().to_string_lossy().into_owned();
    assert!(
        name.chars()
            .all(|c| c.is_ascii_alphanumeric() || "._-".contains(c))
            && !name.starts_with('.'),
        "{name:?}"
    );
    assert!(
        !outside.exists(),
        "the blob escaped to {}",
        outside.display()
    );
    assert_no_leak(&m);
}

/// `read --watch` on a server that does not declare `resources.subscribe`
/// is like every capability not declared: the read is printed, a note
/// says why nothing is watched, exit 0 (it exited 3).
#[test]
fn watch_without_subscribe_says_so_and_exits_0() {
    let r = adhoc(&demo(&[]), &["read", "demo://readme", "--watch"]);
    r.ok();
    assert!(r.stdout.contains("demo://readme"), "{}", r.stdout);
    assert!(
        r.stderr
            .contains("does not declare resources.subscribe, so demo://readme cannot be watched"),
        "{}",
        r.stderr
    );
}
