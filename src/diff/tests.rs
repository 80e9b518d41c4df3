use serde_json::{Value, json};

use super::*;

fn tools(list: Value) -> Surface {
    Surface {
        tools: list.as_array().cloned(),
        ..Surface::default()
    }
}

fn search(input: Value) -> Value {
    json!({"name": "search", "description": "Find things", "inputSchema": input})
}

fn base_input() -> Value {
    json!({
        "type": "object",
        "properties": {
            "q": {"type": "string"},
            "limit": {"type": "number", "minimum": 1, "maximum": 100},
            "mode": {"type": "string", "enum": ["fast", "full"]},
            "tag": {"type": ["string", "null"]},
            "filter": {
                "type": "object",
                "properties": {"since": {"type": "string"}},
            },
            "ids": {"type": "array", "items": {"type": "integer"}},
        },
        "required": ["q"],
    })
}

/// The changes from the base input schema to `edit`ed copy.
fn input_changes(edit: impl FnOnce(&mut Value)) -> Vec<Change> {
    let mut changed = base_input();
    edit(&mut changed);
    let a = tools(json!([search(base_input())]));
    let b = tools(json!([search(changed)]));
    compare(&a, &b).changes
}

fn kinds(changes: &[Change]) -> Vec<(&'static str, bool)> {
    changes.iter().map(|c| (c.kind, c.breaking)).collect()
}

#[test]
fn same_lists_have_no_change() {
    let a = tools(json!([search(base_input())]));
    let d = compare(&a, &a.clone());
    assert!(d.changes.is_empty());
    assert_eq!(d.compared, vec![Category::Tool]);
    assert_eq!(d.skipped, Vec::<Category>::new());
}

#[test]
fn removed_and_added_tools() {
    let a = tools(json!([search(base_input()), {"name": "old", "inputSchema": {}}]));
    let b = tools(json!([search(base_input()), {"name": "new", "inputSchema": {}}]));
    let d = compare(&a, &b);
    assert_eq!(
        kinds(&d.changes),
        vec![("tool-removed", true), ("tool-added", false)]
    );
    assert_eq!(d.changes[0].path, "tools/old");
    assert_eq!(d.breaking(), 1);
    assert_eq!(d.non_breaking(), 1);
}

#[test]
fn new_required_parameter_is_breaking_and_optional_is_not() {
    let c = input_changes(|s| {
        s["properties"]["page"] = json!({"type": "integer"});
        s["properties"]["sort"] = json!({"type": "string"});
        s["required"] = json!(["q", "page"]);
    });
    assert_eq!(
        kinds(&c),
        vec![
            ("required-parameter-added", true),
            ("optional-parameter-added", false)
        ]
    );
    assert_eq!(c[0].path, "tools/search/inputSchema/properties/page");
}

#[test]
fn optional_become_required_is_breaking() {
    let c = input_changes(|s| s["required"] = json!(["q", "limit"]));
    assert_eq!(kinds(&c), vec![("parameter-now-required", true)]);
    let c = input_changes(|s| s["required"] = json!([]));
    assert_eq!(kinds(&c), vec![("parameter-now-optional", false)]);
}

#[test]
fn type_narrowed_or_changed_is_breaking_widened_is_not() {
    let c = input_changes(|s| s["properties"]["tag"]["type"] = json!("string"));
    assert_eq!(kinds(&c), vec![("parameter-type-changed", true)]);
    assert_eq!(c[0].path, "tools/search/inputSchema/properties/tag/type");
    assert_eq!(c[0].before, Some(json!(["null", "string"])));
    assert_eq!(c[0].after, Some(json!("string")));

    let c = input_changes(|s| s["properties"]["limit"]["type"] = json!("integer"));
    assert_eq!(kinds(&c), vec![("parameter-type-changed", true)]);

    let c = input_changes(|s| s["properties"]["q"]["type"] = json!("number"));
    assert_eq!(kinds(&c), vec![("parameter-type-changed", true)]);

    let c = input_changes(|s| s["properties"]["q"]["type"] = json!(["string", "number"]));
    assert_eq!(kinds(&c), vec![("parameter-type-widened", false)]);
}

#[test]
fn new_enum_and_removed_enum_value_are_breaking() {
    let c = input_changes(|s| s["properties"]["q"]["enum"] = json!(["a", "b"]));
    assert_eq!(kinds(&c), vec![("enum-added", true)]);
    let c = input_changes(|s| s["properties"]["q"]["const"] = json!("a"));
    assert_eq!(kinds(&c), vec![("const-added", true)]);
    let c = input_changes(|s| s["properties"]["mode"]["enum"] = json!(["fast", "slow"]));
    assert_eq!(
        kinds(&c),
        vec![("enum-value-added", false), ("enum-value-removed", true)]
            .into_iter()
            .rev()
            .collect::<Vec<_>>()
    );
    let removed = c
        .iter()
        .find(|c| c.kind == "enum-value-removed")
        .map(|c| &c.before);
    assert_eq!(removed, Some(&Some(json!("full"))));
}

#[test]
fn bounds_narrowed_are_breaking_widened_are_not() {
    let c = input_changes(|s| s["properties"]["limit"]["maximum"] = json!(50));
    assert_eq!(kinds(&c), vec![("constraint-narrowed", true)]);
    let c = input_changes(|s| s["properties"]["limit"]["minimum"] = json!(5));
    assert_eq!(kinds(&c), vec![("constraint-narrowed", true)]);
    let c = input_changes(|s| s["properties"]["limit"]["maximum"] = json!(500));
    assert_eq!(kinds(&c), vec![("constraint-widened", false)]);
    let c = input_changes(|s| s["properties"]["q"]["maxLength"] = json!(10));
    assert_eq!(kinds(&c), vec![("constraint-narrowed", true)]);
    let c = input_changes(|s| s["additionalProperties"] = json!(false));
    assert_eq!(kinds(&c), vec![("additional-properties-closed", true)]);
}

#[test]
fn nested_properties_and_items_are_walked() {
    let c = input_changes(|s| {
        s["properties"]["filter"]["properties"]["until"] = json!({"type": "string"});
        s["properties"]["filter"]["required"] = json!(["until"]);
    });
    assert_eq!(kinds(&c), vec![("required-parameter-added", true)]);
    assert_eq!(
        c[0].path,
        "tools/search/inputSchema/properties/filter/properties/until"
    );
    assert!(
        c[0].message.contains("\"filter.until\""),
        "{}",
        c[0].message
    );

    let c = input_changes(|s| s["properties"]["ids"]["items"]["type"] = json!("string"));
    assert_eq!(kinds(&c), vec![("parameter-type-changed", true)]);
    assert_eq!(
        c[0].path,
        "tools/search/inputSchema/properties/ids/items/type"
    );
}

#[test]
fn refs_to_defs_are_followed() {
    let with = |t: &str| {
        json!({
            "type": "object",
            "$defs": {"Id": {"type": t}},
            "properties": {"id": {"$ref": "#/$defs/Id"}},
        })
    };
    let a = tools(json!([search(with("string"))]));
    let b = tools(json!([search(with("integer"))]));
    let c = compare(&a, &b).changes;
    assert_eq!(kinds(&c), vec![("parameter-type-changed", true)]);
    assert_eq!(c[0].path, "tools/search/inputSchema/properties/id/type");
}

#[test]
fn recursive_refs_end() {
    let tree = |t: &str| {
        json!({
            "$defs": {"Node": {"type": "object", "properties": {
                "name": {"type": t},
                "children": {"type": "array", "items": {"$ref": "#/$defs/Node"}},
            }}},
            "$ref": "#/$defs/Node",
        })
    };
    let a = tools(json!([search(tree("string"))]));
    let b = tools(json!([search(tree("number"))]));
    let c = compare(&a, &b).changes;
    assert_eq!(kinds(&c), vec![("parameter-type-changed", true)]);
}

#[test]
fn output_schema_property_removed_or_retyped_is_breaking() {
    let out = |props: Value| {
        json!({"name": "t", "inputSchema": {"type": "object"},
               "outputSchema": {"type": "object", "properties": props, "required": ["a"]}})
    };
    let a = tools(json!([out(
        json!({"a": {"type": "number"}, "b": {"type": "string"}})
    )]));
    let removed = tools(json!([out(json!({"a": {"type": "number"}}))]));
    let c = compare(&a, &removed).changes;
    assert_eq!(kinds(&c), vec![("output-property-removed", true)]);
    assert_eq!(c[0].path, "tools/t/outputSchema/properties/b");

    let retyped = tools(json!([out(
        json!({"a": {"type": "string"}, "b": {"type": "string"}})
    )]));
    let c = compare(&a, &retyped).changes;
    assert_eq!(kinds(&c), vec![("output-type-changed", true)]);

    let added = tools(json!([out(
        json!({"a": {"type": "number"}, "b": {"type": "string"}, "c": {}})
    )]));
    let c = compare(&a, &added).changes;
    assert_eq!(kinds(&c), vec![("output-property-added", false)]);

    // Narrowed output is safe for a reader.
    let narrowed = tools(json!([out(
        json!({"a": {"type": "integer"}, "b": {"type": "string"}})
    )]));
    let c = compare(&a, &narrowed).changes;
    assert_eq!(kinds(&c), vec![("output-type-narrowed", false)]);
}

#[test]
fn annotation_turned_destructive_is_breaking() {
    let t = |ann: Value| json!({"name": "t", "inputSchema": {}, "annotations": ann});
    let a = tools(json!([t(
        json!({"readOnlyHint": true, "destructiveHint": false})
    )]));
    let b = tools(json!([t(
        json!({"readOnlyHint": false, "destructiveHint": true})
    )]));
    let c = compare(&a, &b).changes;
    assert_eq!(
        kinds(&c),
        vec![
            ("annotation-destructive", true),
            ("annotation-destructive", true)
        ]
    );
    let safer = compare(&b, &a).changes;
    assert_eq!(
        kinds(&safer),
        vec![("annotation-changed", false), ("annotation-changed", false)]
    );
    // Absent → true is destructive too.
    let a = tools(json!([t(json!({}))]));
    let b = tools(json!([t(json!({"destructiveHint": true}))]));
    assert_eq!(
        kinds(&compare(&a, &b).changes),
        vec![("annotation-destructive", true)]
    );
}

#[test]
fn description_changes_are_not_breaking() {
    let mut b = search(base_input());
    b["description"] = json!("Find more things");
    b["inputSchema"]["properties"]["q"]["description"] = json!("the query");
    let c = compare(&tools(json!([search(base_input())])), &tools(json!([b]))).changes;
    assert_eq!(
        kinds(&c),
        vec![
            ("description-changed", false),
            ("description-changed", false)
        ]
    );
}

#[test]
fn meta_and_icons_are_ignored() {
    let mut b = search(base_input());
    b["_meta"] = json!({"x": 1});
    b["icons"] = json!([{"src": "a.png"}]);
    let c = compare(&tools(json!([search(base_input())])), &tools(json!([b]))).changes;
    assert!(c.is_empty(), "{c:?}");
}

#[test]
fn prompts_resources_templates() {
    let a = Surface {
        prompts: Some(vec![
            json!({"name": "p", "arguments": [{"name": "x", "required": false}]}),
            json!({"name": "gone"}),
        ]),
        resources: Some(vec![json!({"uri": "file:///a", "name": "a"})]),
        templates: Some(vec![json!({"name": "t", "uriTemplate": "x://{id}"})]),
        ..Surface::default()
    };
    let b = Surface {
        prompts: Some(vec![json!({"name": "p", "arguments": [
            {"name": "x", "required": true}, {"name": "y", "required": true}]})]),
        resources: Some(vec![]),
        templates: Some(vec![json!({"name": "t", "uriTemplate": "x://{id}/{rev}"})]),
        ..Surface::default()
    };
    let d = compare(&a, &b);
    assert_eq!(
        kinds(&d.changes),
        vec![
            ("prompt-removed", true),
            ("argument-now-required", true),
            ("required-argument-added", true),
            ("uri-template-changed", true),
            ("resource-removed", false),
        ]
    );
    assert_eq!(d.changes[4].path, "resources/file:~1~1~1a");
}

#[test]
fn only_lists_both_sides_have_are_compared() {
    let a = tools(json!([]));
    let b = Surface {
        tools: Some(vec![]),
        prompts: Some(vec![json!({"name": "p"})]),
        ..Surface::default()
    };
    let d = compare(&a, &b);
    assert!(d.changes.is_empty());
    assert_eq!(d.compared, vec![Category::Tool]);
    assert_eq!(d.skipped, vec![Category::Prompt]);
    let j = d.to_json();
    assert_eq!(j["breaking"], 0);
    assert_eq!(j["nonBreaking"], 0);
    assert_eq!(j["skipped"], json!(["prompts"]));
}

#[test]
fn markdown_escapes_pipes_and_backticks() {
    let a = tools(json!([{"name": "a|b`c", "inputSchema": {}}]));
    let d = compare(&a, &tools(json!([])));
    let md = render::markdown(&d, "old.json", "new.json");
    assert!(
        md.starts_with("### ❌ mcpdeck diff: 1 breaking change, 0 non-breaking changes"),
        "{md}"
    );
    assert!(md.contains("tools/a\\|b\\`c"), "{md}");
    let row = md.lines().last().unwrap_or_default();
    // Five cell borders: the pipe in the name did not make a sixth.
    assert_eq!(row.matches(" | ").count() + 2, 5, "{row}");
}

#[test]
fn text_strips_control_characters() {
    let a = tools(json!([{"name": "evil\u{1b}[31m", "inputSchema": {}}]));
    let d = compare(&a, &tools(json!([])));
    let t = render::text(&d, "a", "b");
    assert!(!t.contains('\u{1b}'), "{t}");
    let breaking = t.find("Breaking:").unwrap_or(usize::MAX);
    assert!(breaking < t.len(), "{t}");
}

// --- files ---

#[test]
fn snapshot_forms() {
    let l = load_text("s.json", r#"{"tools":[{"name":"a"}]}"#, None).expect("snapshot");
    assert_eq!(l.kind, "snapshot");
    assert_eq!(l.surface.categories(), vec![Category::Tool]);
    let l = load_text("s.json", r#"[{"name":"a"}]"#, None).expect("bare array");
    assert_eq!(l.surface.tools.map(|t| t.len()), Some(1));
    let l = load_text(
        "s.json",
        r#"{"jsonrpc":"2.0","id":1,"result":{"prompts":[],"resourceTemplates":[{"uriTemplate":"x://{a}"}]}}"#,
        None,
    )
    .expect("response");
    assert_eq!(
        l.surface.categories(),
        vec![Category::Prompt, Category::Template]
    );
}

#[test]
fn bad_files_say_what_was_expected() {
    let e = load_text("x.json", "{\"foo\": 1}", None).expect_err("no lists");
    let m = e.to_string();
    assert!(m.starts_with("x.json: no `tools`"), "{m}");
    assert!(m.contains("pin file"), "{m}");
    let e = load_text("x.json", "{\"tools\": [{\"title\": 1}]}", None).expect_err("no name");
    assert!(e.to_string().contains("tools[0] has no name"), "{e}");
    let e = load_text("x.json", "{\"tools\": [", None).expect_err("cut");
    assert!(e.to_string().contains("not valid JSON"), "{e}");
    let e = load_text("x.json", "", None).expect_err("empty");
    assert!(e.to_string().contains("empty"), "{e}");
}

fn line(server: &str, dir: &str, frame: Value) -> String {
    json!({"t": 0.1, "server": server, "dir": dir, "frame": frame}).to_string()
}

#[test]
fn recording_takes_the_last_complete_list_with_every_page() {
    let head =
        json!({"mcpdeck_recording": 1, "version": "0.1.0", "servers": [{"name": "s"}]}).to_string();
    let lines = [
        head,
        line(
            "s",
            "send",
            json!({"jsonrpc": "2.0", "id": 1, "method": "tools/list", "params": {}}),
        ),
        line(
            "s",
            "recv",
            json!({"jsonrpc": "2.0", "id": 1, "result": {"tools": [{"name": "old"}]}}),
        ),
        // A server request with a colliding id is not an answer.
        line(
            "s",
            "recv",
            json!({"jsonrpc": "2.0", "id": 2, "method": "roots/list"}),
        ),
        line(
            "s",
            "send",
            json!({"jsonrpc": "2.0", "id": 2, "result": {"roots": []}}),
        ),
        line(
            "s",
            "send",
            json!({"jsonrpc": "2.0", "id": 2, "method": "tools/list"}),
        ),
        line(
            "s",
            "recv",
            json!({"jsonrpc": "2.0", "id": 2, "result": {"tools": [{"name": "a"}], "nextCursor": "p2"}}),
        ),
        line(
            "s",
            "send",
            json!({"jsonrpc": "2.0", "id": 3, "method": "tools/list", "params": {"cursor": "p2"}}),
        ),
        line(
            "s",
            "recv",
            json!({"jsonrpc": "2.0", "id": 3, "result": {"tools": [{"name": "b"}]}}),
        ),
        // A later list cut short (no answer) does not count.
        line(
            "s",
            "send",
            json!({"jsonrpc": "2.0", "id": 4, "method": "tools/list"}),
        ),
        "{\"t\": 0.2, \"server\": \"s\", \"dir\": \"re".to_string(),
    ];
    let l = load_text("r.jsonl", &lines.join("\n"), None).expect("recording");
    assert_eq!(l.kind, "recording");
    let names: Vec<&str> = l
        .surface
        .tools
        .iter()
        .flatten()
        .filter_map(|t| t["name"].as_str())
        .collect();
    assert_eq!(names, ["a", "b"]);
    assert_eq!(l.surface.categories(), vec![Category::Tool]);
    assert_eq!(l.warnings.len(), 1);
    assert!(l.warnings[0].contains("line 11"), "{:?}", l.warnings);
}

#[test]
fn recording_with_several_servers_needs_one_named() {
    let lines = [
        json!({"mcpdeck_recording": 1}).to_string(),
        line(
            "a",
            "send",
            json!({"jsonrpc": "2.0", "id": 1, "method": "tools/list"}),
        ),
        line(
            "a",
            "recv",
            json!({"jsonrpc": "2.0", "id": 1, "result": {"tools": []}}),
        ),
        line(
            "b",
            "send",
            json!({"jsonrpc": "2.0", "id": 1, "method": "prompts/list"}),
        ),
        line(
            "b",
            "recv",
            json!({"jsonrpc": "2.0", "id": 1, "result": {"prompts": [{"name": "p"}]}}),
        ),
    ]
    .join("\n");
    let e = load_text("r.jsonl", &lines, None).expect_err("two servers");
    assert!(e.to_string().contains("--server NAME"), "{e}");
    assert!(e.to_string().contains("a, b"), "{e}");
    let l = load_text("r.jsonl", &lines, Some("b")).expect("b");
    assert_eq!(l.surface.categories(), vec![Category::Prompt]);
    let e = load_text("r.jsonl", &lines, Some("c")).expect_err("no c");
    assert!(e.to_string().contains("recorded: a, b"), "{e}");
}

#[test]
fn pin_file_gives_the_canonical_definitions() {
    let pins = json!({"version": 1, "servers": {"s#1": {
    "server": "s", "key": "s#1", "definitions": [
        {"kind": "tool", "name": "echo", "sha256": "x", "canonical": {"name": "echo", "inputSchema": {}}},
        {"kind": "prompt", "name": "p", "sha256": "y", "canonical": {"name": "p"}},
    ]}}});
    let l = load_text("pins.json", &pins.to_string(), None).expect("pins");
    assert_eq!(l.kind, "pin file");
    assert_eq!(l.surface.categories(), Category::ALL.to_vec());
    assert_eq!(l.surface.tools.as_ref().map(Vec::len), Some(1));
    assert_eq!(l.surface.resources.as_ref().map(Vec::len), Some(0));
    let e = load_text(
        "pins.json",
        &json!({"version": 2, "servers": {}}).to_string(),
        None,
    )
    .expect_err("v2");
    assert!(e.to_string().contains("version 2"), "{e}");
}

#[test]
fn refs_nested_in_equal_schemas_are_followed() {
    let with = |t: &str| {
        json!({
            "type": "object",
            "definitions": {"Id": {"type": t}},
            "properties": {"ids": {"type": "array", "items": {"$ref": "#/definitions/Id"}}},
        })
    };
    let a = tools(json!([search(with("string"))]));
    let b = tools(json!([search(with("boolean"))]));
    let c = compare(&a, &b).changes;
    assert_eq!(kinds(&c), vec![("parameter-type-changed", true)]);
    assert_eq!(
        c[0].path,
        "tools/search/inputSchema/properties/ids/items/type"
    );
}

#[test]
fn any_of_branches() {
    let with =
        |branches: Value| json!({"type": "object", "properties": {"v": {"anyOf": branches}}});
    let a = tools(json!([search(with(
        json!([{"type": "string"}, {"type": "null"}])
    ))]));
    let reordered = tools(json!([search(with(
        json!([{"type": "null"}, {"type": "string"}])
    ))]));
    assert!(compare(&a, &reordered).changes.is_empty());
    // Branches that only name a type are a type list (Pydantic's Optional).
    let plain = tools(json!([search(
        json!({"type": "object", "properties": {"v": {"type": "string"}}})
    )]));
    let c = compare(&a, &plain).changes;
    assert_eq!(kinds(&c), vec![("parameter-type-changed", true)]);
    assert_eq!(c[0].path, "tools/search/inputSchema/properties/v/type");
    assert_eq!(c[0].before, Some(json!(["null", "string"])));
    let c = compare(&plain, &a).changes;
    assert_eq!(kinds(&c), vec![("parameter-type-widened", false)]);
    // Other branches are compared one by one.
    let obj = |t: &str| json!({"type": "object", "properties": {"k": {"type": t}}});
    let a = tools(json!([search(with(
        json!([obj("string"), {"type": "null"}])
    ))]));
    let fewer = tools(json!([search(with(json!([obj("string")])))]));
    let c = compare(&a, &fewer).changes;
    assert_eq!(kinds(&c), vec![("variant-removed", true)]);
    let c = compare(&fewer, &a).changes;
    assert_eq!(kinds(&c), vec![("variant-added", false)]);
    let retyped = tools(json!([search(with(
        json!([obj("integer"), {"type": "null"}])
    ))]));
    let c = compare(&a, &retyped).changes;
    assert_eq!(kinds(&c), vec![("parameter-type-changed", true)]);
    assert_eq!(
        c[0].path,
        "tools/search/inputSchema/properties/v/anyOf/0/properties/k/type"
    );
}

#[test]
fn output_mirror_rules() {
    let out = |extra: Value| {
        let mut o =
            json!({"type": "object", "properties": {"s": {"type": "string"}}, "required": ["s"]});
        if let (Some(m), Some(e)) = (o["properties"]["s"].as_object_mut(), extra.as_object()) {
            m.extend(e.clone());
        }
        json!([{"name": "t", "inputSchema": {}, "outputSchema": o}])
    };
    let a = tools(out(json!({"enum": ["x", "y"]})));
    let b = tools(out(json!({"enum": ["x", "y", "z"]})));
    assert_eq!(
        kinds(&compare(&a, &b).changes),
        vec![("output-enum-value-added", true)]
    );
    assert_eq!(
        kinds(&compare(&b, &a).changes),
        vec![("output-enum-value-removed", false)]
    );
    let a = tools(out(json!({"maxLength": 5})));
    let b = tools(out(json!({"maxLength": 50})));
    assert_eq!(
        kinds(&compare(&a, &b).changes),
        vec![("output-constraint-widened", true)]
    );
    let mut none_required = out(json!({}));
    none_required[0]["outputSchema"]["required"] = json!([]);
    let c = compare(&tools(out(json!({}))), &tools(none_required)).changes;
    assert_eq!(kinds(&c), vec![("output-property-now-optional", true)]);
    let c = compare(
        &tools(out(json!({}))),
        &tools(json!([{"name": "t", "inputSchema": {}}])),
    )
    .changes;
    assert_eq!(kinds(&c), vec![("output-schema-removed", true)]);
}

#[test]
fn removed_parameter_breaks_only_a_closed_schema() {
    let c = input_changes(|s| {
        if let Some(p) = s["properties"].as_object_mut() {
            p.remove("tag");
        }
    });
    assert_eq!(kinds(&c), vec![("parameter-removed", false)]);
    let c = input_changes(|s| {
        if let Some(p) = s["properties"].as_object_mut() {
            p.remove("tag");
        }
        s["additionalProperties"] = json!(false);
    });
    assert_eq!(
        kinds(&c),
        vec![
            ("additional-properties-closed", true),
            ("parameter-removed", true)
        ]
    );
}

#[test]
fn prompt_and_template_paths_and_messages() {
    let a = Surface {
        prompts: Some(vec![json!({"name": "a/b", "arguments": []})]),
        ..Surface::default()
    };
    let b = Surface {
        prompts: Some(vec![
            json!({"name": "a/b", "arguments": [{"name": "x", "required": false}]}),
        ]),
        ..Surface::default()
    };
    let c = compare(&a, &b).changes;
    assert_eq!(kinds(&c), vec![("optional-argument-added", false)]);
    assert_eq!(c[0].path, "prompts/a~1b/arguments/x");
    assert_eq!(c[0].message, "prompt \"a/b\": new optional argument \"x\"");
}

#[test]
fn task_support_required_is_breaking() {
    let t = |s: &str| json!([{"name": "t", "inputSchema": {}, "execution": {"taskSupport": s}}]);
    let c = compare(&tools(t("optional")), &tools(t("required"))).changes;
    assert_eq!(kinds(&c), vec![("task-support-required", true)]);
    let c = compare(&tools(t("required")), &tools(t("optional"))).changes;
    assert_eq!(kinds(&c), vec![("execution-changed", false)]);
}
