//! Property tests of the parsers: the invariants of the fuzz targets,
//! checked on stable in every `cargo test` run (the fuzzer itself runs
//! only from `scripts/fuzz.sh`). The invariants are the fuzz crate's own
//! functions (fuzz/src/lib.rs, included here), fed by proptest strategies
//! that reach the interesting shapes quickly.

#[path = "../fuzz/src/lib.rs"]
mod checks;

use proptest::prelude::*;
use serde_json::{Map, Value, json};

/// Any JSON value, small.
fn json_value() -> impl Strategy<Value = Value> {
    let leaf = prop_oneof![
        Just(Value::Null),
        any::<bool>().prop_map(Value::from),
        any::<i64>().prop_map(Value::from),
        (-1e6f64..1e6).prop_map(Value::from),
        Just(json!(u64::MAX)),
        "\\PC{0,8}".prop_map(Value::from),
    ];
    leaf.prop_recursive(3, 24, 4, |inner| {
        prop_oneof![
            prop::collection::vec(inner.clone(), 0..4).prop_map(Value::Array),
            prop::collection::vec((key(), inner), 0..4)
                .prop_map(|kv| Value::Object(kv.into_iter().collect::<Map<_, _>>())),
        ]
    })
}

/// Member names a JSON-RPC frame or a JSON Schema would have, and others.
fn key() -> impl Strategy<Value = String> {
    prop_oneof![
        prop::sample::select(vec![
            "jsonrpc",
            "id",
            "method",
            "params",
            "result",
            "error",
            "code",
            "message",
            "data",
            "type",
            "properties",
            "required",
            "items",
            "prefixItems",
            "anyOf",
            "oneOf",
            "allOf",
            "$ref",
            "$defs",
            "definitions",
            "enum",
            "const",
            "default",
            "examples",
            "minItems",
            "minLength",
            "maxLength",
            "pattern",
            "format",
            "minimum",
            "maximum",
            "multipleOf",
            "additionalProperties",
            "contains",
            "not",
        ])
        .prop_map(str::to_owned),
        "[a-z]{1,3}",
    ]
}

/// A JSON-RPC-like object: mostly the right members, with any values.
fn rpc_object() -> impl Strategy<Value = Value> {
    let member = prop_oneof![
        Just(("jsonrpc".to_owned(), json!("2.0"))),
        (Just("jsonrpc".to_owned()), json_value()),
        (
            Just("id".to_owned()),
            prop_oneof![
                any::<i64>().prop_map(Value::from),
                "[a-z0-9]{0,4}".prop_map(Value::from),
                json_value()
            ]
        ),
        (
            Just("method".to_owned()),
            prop_oneof!["[a-z/]{1,12}".prop_map(Value::from), json_value()]
        ),
        (Just("params".to_owned()), json_value()),
        (Just("result".to_owned()), json_value()),
        (Just("error".to_owned()), json_value()),
        (
            Just("error".to_owned()),
            (any::<i64>(), "\\PC{0,8}").prop_map(|(c, m)| json!({"code": c, "message": m}))
        ),
    ];
    prop::collection::vec(member, 0..6)
        .prop_map(|kv| Value::Object(kv.into_iter().collect::<Map<_, _>>()))
}

/// SSE lines and line ends, to be joined into a stream.
fn sse_piece() -> impl Strategy<Value = Vec<u8>> {
    prop_oneof![
        prop::sample::select(vec![
            "data: {\"a\":1}",
            "data:x",
            "data",
            "event: message",
            "event:",
            "id: 7",
            "id:",
            "id: \0",
            "retry: 1500",
            "retry: x",
            ": keep-alive",
            "bogus",
            "foo: bar",
            "\n",
            "\r",
            "\r\n",
            "\n\n",
            "\u{FEFF}",
            "é",
        ])
        .prop_map(|s| s.as_bytes().to_vec()),
        Just(vec![0xEF, 0xBB, 0xBF]),
        Just(vec![0xFF, 0xFE]),
        prop::collection::vec(any::<u8>(), 0..6),
    ]
}

/// A configuration file: comments, settings, servers written in several
/// ways (with `enabled`/`deny_tools` or without, inline or not).
fn config_text() -> impl Strategy<Value = String> {
    let comment = "# [ -~]{0,20}";
    let server = (
        "[a-z][a-z0-9-]{0,6}",
        prop_oneof![
            Just("command = \"node\"".to_owned()),
            Just("url = \"http://127.0.0.1:1/mcp\"".to_owned()),
            Just("command = \"x\"\nargs = [\"${HOME}\", \"$$\"]".to_owned()),
        ],
        prop::option::of(any::<bool>()),
        prop::option::of(prop::collection::vec("[a-z_]{1,5}", 0..3)),
        prop::option::of(comment),
        any::<bool>(),
    )
        .prop_map(|(name, how, enabled, deny, note, multiline)| {
            let mut s = format!("\n[servers.{name}]\n{how}\n");
            if let Some(note) = note {
                s.push_str(&note);
                s.push('\n');
            }
            if let Some(e) = enabled {
                s.push_str(&format!("enabled = {e} # toggled by hand\n"));
            }
            if let Some(list) = deny {
                let items: Vec<String> = list.iter().map(|t| format!("\"{t}\"")).collect();
                if multiline {
                    s.push_str(&format!(
                        "deny_tools = [\n  # why\n  {},\n]\n",
                        items.join(",\n  ")
                    ));
                } else {
                    s.push_str(&format!("deny_tools = [ {} ]\n", items.join(", ")));
                }
            }
            s
        });
    (
        prop::collection::vec(comment, 0..3),
        prop::option::of(Just("[settings]\nrequest_timeout = 30 # seconds\n")),
        prop::collection::vec(server, 0..4),
        prop::option::of(comment),
    )
        .prop_map(|(head, settings, servers, tail)| {
            let mut s = head.join("\n");
            s.push('\n');
            if let Some(settings) = settings {
                s.push_str(settings);
            }
            for server in servers {
                s.push_str(&server);
            }
            if let Some(tail) = tail {
                s.push_str(&tail);
            }
            s
        })
}

proptest! {
    #![proptest_config(ProptestConfig { cases: 256, failure_persistence: None, ..ProptestConfig::default() })]

    #[test]
    fn frame_any_text(text in "\\PC{0,120}") {
        checks::frame(text.as_bytes());
    }

    #[test]
    fn frame_any_bytes(bytes in prop::collection::vec(any::<u8>(), 0..64)) {
        checks::frame(&bytes);
    }

    #[test]
    fn frame_rpc_like(frame in prop_oneof![
        rpc_object(),
        prop::collection::vec(rpc_object(), 0..4).prop_map(Value::Array),
    ]) {
        checks::frame(frame.to_string().as_bytes());
    }

    #[test]
    fn sse_same_events_whatever_the_split(
        pieces in prop::collection::vec(sse_piece(), 0..16),
        sizes in prop::collection::vec(0u8..8, 0..8),
    ) {
        checks::sse_split(&pieces.concat(), &sizes);
    }

    #[test]
    fn uritemplate_never_panics(
        template in "([a-z:/.]|%[0-9a-f]{2}|\\{[+#./;?&]?[a-z]{0,3}(:[0-9]{1,5}|\\*)?(,[a-z]{1,2})?\\}|[{}%é ]){0,8}",
        values in prop::collection::vec(("[a-z]{0,3}", "(\\PC|%[0-9a-fA-F]{2}|%[89a-f][0-9a-f]){0,6}"), 0..4),
    ) {
        let mut input = template.into_bytes();
        for (name, value) in values {
            input.push(0);
            input.extend_from_slice(name.as_bytes());
            input.push(0);
            input.extend_from_slice(value.as_bytes());
        }
        checks::uritemplate(&input);
    }

    #[test]
    fn schema_never_panics(schema in json_value()) {
        checks::schema(schema.to_string().as_bytes());
    }

    #[test]
    fn www_authenticate_never_panics(header in "([A-Za-z]{1,6}|[ ,=\"\\\\\t]|[a-z_]{1,8}=\"[^\"]{0,6}\"?|[a-zA-Z0-9+/]{1,4}=*|\n|é){0,12}") {
        checks::www_authenticate(header.as_bytes());
    }
}

proptest! {
    // Each case writes files (in /dev/shm where it exists): fewer cases.
    #![proptest_config(ProptestConfig { cases: 48, failure_persistence: None, ..ProptestConfig::default() })]

    #[test]
    fn config_edits_keep_the_file_loadable_and_its_comments(text in config_text()) {
        checks::config(text.as_bytes());
    }

    #[test]
    fn config_any_text_loads_or_fails_cleanly(text in "([\\[\\]=\"#.a-z0-9\n ]|servers|command|enabled|deny_tools|\\$\\{){0,40}") {
        checks::config(text.as_bytes());
    }
}

/// The checked-in seed corpora go through the same checks (each is a file
/// the fuzzer starts from, so each must pass).
#[test]
fn the_seed_corpora_pass() {
    type Check = fn(&[u8]);
    let targets: [(&str, Check); 6] = [
        ("frame", checks::frame),
        ("sse", checks::sse),
        ("config", checks::config),
        ("uritemplate", checks::uritemplate),
        ("schema", checks::schema),
        ("www_authenticate", checks::www_authenticate),
    ];
    let root = std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("fuzz/seeds");
    for (target, check) in targets {
        let dir = root.join(target);
        let entries = std::fs::read_dir(&dir)
            .unwrap_or_else(|e| panic!("{}: {e} (the seed corpus is checked in)", dir.display()));
        let mut count = 0;
        for entry in entries {
            let path = entry.map(|e| e.path()).unwrap_or_default();
            let bytes = std::fs::read(&path).unwrap_or_else(|e| panic!("{}: {e}", path.display()));
            check(&bytes);
            count += 1;
        }
        assert!(count > 0, "{} has seeds", dir.display());
    }
}
