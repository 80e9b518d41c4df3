use super::*;
// Raw keys: the tests type into the form's fields, whose keys are text
// entry (outside the keymap, see `LineEdit::key`).
use crossterm::event::{KeyCode, KeyEventKind, KeyModifiers};
use serde_json::json;

fn typed(form: &mut ArgForm, text: &str) {
    for c in text.chars() {
        form.edit(&KeyEvent::new_with_kind(
            KeyCode::Char(c),
            KeyModifiers::NONE,
            KeyEventKind::Press,
        ));
    }
}

fn paths(form: &ArgForm) -> Vec<String> {
    form.rows().into_iter().map(|r| r.path).collect()
}

fn pydantic() -> Value {
    json!({
        "$defs": {
            "Address": {"properties": {"street": {"title": "Street", "type": "string"}, "zip": {"pattern": "^\\d{5}$", "title": "Zip", "type": "string"}}, "required": ["street", "zip"], "title": "Address", "type": "object"},
            "Unit": {"enum": ["celsius", "fahrenheit"], "title": "Unit", "type": "string"}
        },
        "properties": {
            "address": {"$ref": "#/$defs/Address"},
            "unit": {"$ref": "#/$defs/Unit", "default": "celsius"},
            "tags": {"items": {"type": "string"}, "minItems": 1, "title": "Tags", "type": "array"},
            "limit": {"anyOf": [{"type": "integer"}, {"type": "null"}], "default": null, "title": "Limit"},
            "count": {"anyOf": [{"type": "integer", "minimum": 1}, {"type": "null"}], "title": "Count"},
            "billing": {"anyOf": [{"$ref": "#/$defs/Address"}, {"type": "null"}], "title": "Billing"}
        },
        "required": ["address", "tags", "count"],
        "type": "object"
    })
}

#[test]
fn refs_all_of_and_nullable_alternatives_become_fields() {
    let form = ArgForm::new(&pydantic()).unwrap_or_else(|e| panic!("{e}"));
    assert_eq!(
        paths(&form),
        [
            "/address",
            "/address/street",
            "/address/zip",
            "/unit",
            "/tags",
            "/limit",
            "/count",
            "/billing",
            "/billing/street",
            "/billing/zip"
        ]
    );
    let unit = &form.fields[1];
    assert!(matches!(&unit.kind, Kind::Choice { options, sel: None } if options.len() == 2));
    assert_eq!(unit.default, Some(json!("celsius")));
    let count = &form.fields[4];
    assert!(count.required && count.nullable);
    assert!(matches!(count.kind, Kind::Number { integer: true, .. }));
    assert_eq!(count.hint, "whole number, ≥ 1");
    // A required nullable number left empty sends null; an optional
    // object left empty is left out; a required text sends "".
    let v = form.value().unwrap();
    assert_eq!(
        Value::Object(v),
        json!({"address": {"street": "", "zip": ""}, "tags": [], "count": null})
    );
}

#[test]
fn what_a_form_cannot_show_is_named() {
    let cases = [
        (
            json!({"type": "object", "properties": {"s": {"anyOf": [{"type": "object", "properties": {"a": {"type": "string"}}}, {"type": "string"}]}}}),
            "/s: anyOf with object alternatives",
        ),
        (
            json!({"$defs": {"N": {"type": "object", "properties": {"next": {"$ref": "#/$defs/N"}}}}, "type": "object", "properties": {"n": {"$ref": "#/$defs/N"}}}),
            "/n/next: a $ref cycle",
        ),
        (
            json!({"type": "object", "patternProperties": {"^x": {"type": "string"}}}),
            "patternProperties",
        ),
        (
            json!({"type": "object", "additionalProperties": {"type": "string"}}),
            "declares no properties and takes any",
        ),
        (
            json!({"type": "object", "properties": {"m": {"type": "object", "additionalProperties": true}}}),
            "/m: declares no properties and takes any",
        ),
        (
            json!({"type": "object", "properties": {"r": {"$ref": "https://example.com/s.json"}}}),
            "/r: a $ref the form cannot follow",
        ),
        (
            json!({"type": "object", "required": ["x"], "properties": {}}),
            "requires \"x\", which it does not describe",
        ),
        (json!({"type": "array"}), "not an object"),
    ];
    for (schema, why) in cases {
        let e = ArgForm::new(&schema).unwrap_err();
        assert!(e.contains(why), "{schema}: {e}");
    }
    // Without arguments, or with things typed as JSON: a form.
    assert!(
        ArgForm::new(&json!({"type": "object"}))
            .unwrap()
            .fields
            .is_empty()
    );
    let f = ArgForm::new(&json!({"type": "object", "properties": {
        "any": {}, "pair": {"type": "array", "prefixItems": [{"type": "string"}]},
        "either": {"type": ["string", "number"]}, "free": {"type": "object"}}}))
    .unwrap();
    assert!(f.fields.iter().all(|n| matches!(n.kind, Kind::Json { .. })));
    assert_eq!(f.fields[2].hint, "JSON: string or number");
}

#[test]
fn numbers_are_checked_as_they_are_typed() {
    let schema = json!({"type": "object", "properties": {
        "n": {"type": "number"}, "i": {"type": "integer", "maximum": 10}}, "required": ["n"]});
    let mut f = ArgForm::new(&schema).unwrap();
    assert_eq!(f.error_at("/n"), Some("required"));
    typed(&mut f, "4x");
    assert_eq!(f.error_at("/n"), Some("not a number"));
    assert!(
        f.problems.contains(&"/n: not a number".to_string()),
        "{:?}",
        f.problems
    );
    // The field says it; the root's "required" is not said twice.
    assert_eq!(f.problems.len(), 1, "{:?}", f.problems);
    f.edit(&KeyEvent::new_with_kind(
        KeyCode::Backspace,
        KeyModifiers::NONE,
        KeyEventKind::Press,
    ));
    typed(&mut f, ".5e1");
    assert!(f.errors.is_empty(), "{:?}", f.errors);
    f.move_focus(1);
    typed(&mut f, "1.5");
    assert_eq!(f.error_at("/i"), Some("not a whole number"));
    for _ in 0..3 {
        f.edit(&KeyEvent::new_with_kind(
            KeyCode::Backspace,
            KeyModifiers::NONE,
            KeyEventKind::Press,
        ));
    }
    typed(&mut f, "12");
    assert!(
        f.error_at("/i").is_some_and(|e| e.contains("10")),
        "{:?}",
        f.errors
    );
    assert!(f.blocked());
    assert_eq!(Value::Object(f.draft()), json!({"n": 45.0, "i": 12}));
    for bad in ["inf", "NaN", "1e999", ""] {
        assert!(number(bad, false).is_err(), "{bad}");
    }
    assert_eq!(number("18446744073709551615", true), Ok(json!(u64::MAX)));
}

#[test]
fn loading_keeps_values_and_refuses_what_it_cannot_show() {
    let mut f = ArgForm::new(&pydantic()).unwrap();
    let v = json!({"address": {"street": "Main", "zip": "12345"}, "unit": "fahrenheit",
                   "tags": ["a", "b"], "limit": 3, "count": null});
    f.load(&v).unwrap();
    assert_eq!(Value::Object(f.value().unwrap()), v);
    let before = f.clone();
    for (bad, why) in [
        (
            json!({"unit": "kelvin"}),
            "/unit: \"kelvin\" is not one of the choices",
        ),
        (json!({"extra": 1}), "/extra: not in the schema"),
        (json!({"tags": [1]}), "/tags/0: 1 where the form has a text"),
        (
            json!({"limit": null}),
            "/limit: null where the form has a whole number",
        ),
        (
            json!({"billing": {"street": ""}}),
            "/billing: an optional group with nothing filled in",
        ),
        (
            json!({"address": {"street": "x"}, "tags": [], "count": 1, "billing": {}}),
            "/billing: an optional group",
        ),
        (json!([1]), "not a JSON object"),
    ] {
        let e = f.load(&bad).unwrap_err();
        assert!(e.contains(why), "{bad}: {e}");
        assert_eq!(f, before, "a refused load changes nothing");
    }
}

#[test]
fn lists_add_and_remove_items_around_the_focus() {
    let schema = json!({"type": "object", "properties": {
        "points": {"type": "array", "items": {"type": "object", "properties": {
            "x": {"type": "number"}, "y": {"type": "number", "default": 0}}, "required": ["x", "y"]}}}});
    let mut f = ArgForm::new(&schema).unwrap();
    assert!(f.remove_item().is_err());
    assert_eq!(f.focus, vec![0]);
    f.add_item().unwrap();
    // Into the new item's first field; its required default is there.
    assert_eq!(f.focus, vec![0, 0, 0]);
    typed(&mut f, "1");
    f.add_item().unwrap();
    assert_eq!(f.focus, vec![0, 1, 0]);
    typed(&mut f, "2");
    assert_eq!(
        Value::Object(f.value().unwrap()),
        json!({"points": [{"x": 1, "y": 0}, {"x": 2, "y": 0}]})
    );
    f.focus = vec![0, 0, 1];
    assert!(f.in_list());
    f.remove_item().unwrap();
    assert_eq!(
        Value::Object(f.value().unwrap()),
        json!({"points": [{"x": 2, "y": 0}]})
    );
    assert_eq!(f.focus, vec![0, 0, 0]);
    f.remove_item().unwrap();
    assert_eq!(f.focus, vec![0], "back to the list's row");
    assert!(
        f.value().unwrap().is_empty(),
        "an optional empty list is left out"
    );
}

#[test]
fn choices_and_yes_no_cycle_through_not_set_when_optional() {
    let schema = json!({"type": "object", "properties": {
        "u": {"enum": ["a", "b"]}, "r": {"enum": ["x", "y"]}, "on": {"type": "boolean"}},
        "required": ["r"]});
    let mut f = ArgForm::new(&schema).unwrap();
    let sel = |f: &ArgForm, i: usize| match &f.fields[i].kind {
        Kind::Choice { sel, .. } => *sel,
        _ => panic!(),
    };
    let seen: Vec<Option<usize>> = (0..3)
        .map(|_| {
            f.cycle(1);
            sel(&f, 0)
        })
        .collect();
    assert_eq!(seen, [Some(0), Some(1), None]);
    f.cycle(-1);
    assert_eq!(sel(&f, 0), Some(1));
    f.move_focus(1);
    f.cycle(1);
    f.cycle(1);
    f.cycle(1);
    assert_eq!(sel(&f, 1), Some(0), "a required choice has no none");
    f.move_focus(1);
    let flips: Vec<Option<bool>> = (0..3)
        .map(|_| {
            f.toggle();
            match f.fields[2].kind {
                Kind::Bool(b) => b,
                _ => panic!(),
            }
        })
        .collect();
    assert_eq!(flips, [Some(true), Some(false), None]);
}

#[test]
fn the_required_message_of_the_validator_is_the_one_filtered() {
    // The field says "required"; the validator's own words for it at the
    // object are dropped, so they must be what it says.
    let v =
        crate::schema::check(&json!({"type": "object", "required": ["a/b"]}), &json!({})).unwrap();
    assert_eq!(
        v[0].message,
        format!("{} is a required property", json!("a/b"))
    );
}

#[test]
fn defaults_are_placeholders_unless_the_field_is_always_sent() {
    let schema = json!({"type": "object", "properties": {
        "opt": {"type": "object", "properties": {"port": {"type": "integer", "default": 443}}, "required": ["port"]},
        "req": {"type": "object", "properties": {
            "port": {"type": "integer", "default": 80},
            "host": {"type": "string", "default": "localhost"}}, "required": ["port"]},
        "mode": {"enum": ["a", "b"], "default": "b"}},
        "required": ["req"]});
    let f = ArgForm::new(&schema).unwrap();
    // Only the required port of the required group starts filled in.
    assert_eq!(
        Value::Object(f.value().unwrap()),
        json!({"req": {"port": 80}})
    );
    assert_eq!(f.fields[2].default, Some(json!("b")));
}

fn press(form: &mut ArgForm, code: KeyCode) -> bool {
    form.edit(&KeyEvent::new_with_kind(
        code,
        KeyModifiers::NONE,
        KeyEventKind::Press,
    ))
}

#[test]
fn zod_bounds_are_no_bounds_and_the_rest_read_as_symbols() {
    // What Zod writes for int(), int().min(1), positive(), max(10).
    let max = 9007199254740991_u64;
    let schema = json!({"type": "object", "properties": {
        "any": {"type": "integer", "minimum": -(max as i64), "maximum": max},
        "one_up": {"type": "integer", "minimum": 1, "maximum": max},
        "pos": {"type": "number", "exclusiveMinimum": 0, "maximum": max},
        "ten": {"type": "integer", "minimum": -(max as i64), "maximum": 10},
        "both": {"type": "integer", "minimum": 1, "maximum": 10},
        "huge": {"type": "integer", "minimum": 0, "maximum": u64::MAX},
        "i64": {"type": "integer", "minimum": i64::MIN, "maximum": 5},
        "name": {"type": "string", "minLength": 2, "maxLength": max},
        "tags": {"type": "array", "items": {"type": "string"}, "minItems": 1}}});
    let f = ArgForm::new(&schema).unwrap();
    let hints: Vec<&str> = f.fields.iter().map(|n| n.hint.as_str()).collect();
    assert_eq!(
        hints,
        [
            "whole number",
            "whole number, ≥ 1",
            "number, > 0",
            "whole number, ≤ 10",
            "whole number, 1 to 10",
            "whole number, ≥ 0",
            "whole number, ≤ 5",
            "at least 2 characters",
            "list of text, at least 1 items",
        ]
    );
    assert!(hints.iter().all(|h| !h.contains("9007199254740991")));
}

#[test]
fn a_default_is_selected_and_the_first_key_replaces_it() {
    let schema = json!({"type": "object", "properties": {
        "n": {"type": "number", "default": 42},
        "s": {"type": "string", "default": "hello"}},
        "required": ["n", "s"]});
    let mut f = ArgForm::new(&schema).unwrap();
    assert!(f.focused().and_then(Node::line).is_some_and(|l| l.selected));
    typed(&mut f, "4.5");
    assert_eq!(f.draft()["n"], json!(4.5), "not 424.5");
    // Once typed into, the text is the person's: keys append.
    typed(&mut f, "1");
    assert_eq!(f.draft()["n"], json!(4.51));
    // Backspace on a selected default clears it; an arrow keeps it.
    f.move_focus(1);
    assert!(press(&mut f, KeyCode::Backspace));
    assert_eq!(f.draft().get("s"), Some(&json!("")));
    f.reset();
    f.move_focus(1);
    press(&mut f, KeyCode::End);
    typed(&mut f, "!");
    assert_eq!(f.draft()["s"], json!("hello!"));
    // Select-all (Ctrl-A) selects what was typed; clear (Ctrl-U) empties.
    assert!(f.select_focused());
    typed(&mut f, "bye");
    assert_eq!(f.draft()["s"], json!("bye"));
    f.clear_focused().unwrap();
    assert_eq!(f.draft()["s"], json!(""));
    // Loaded arguments (the last sent) are not a default: not selected.
    f.load(&json!({"n": 7, "s": "x"})).unwrap();
    f.focus = vec![0];
    typed(&mut f, "8");
    assert_eq!(f.draft()["n"], json!(78));
}

#[test]
fn letters_pick_choices_and_answer_yes_no_and_ctrl_u_clears_any_field() {
    let schema = json!({"type": "object", "properties": {
        "level": {"enum": ["debug", "info", "warning", "error", "emergency"]},
        "on": {"type": "boolean"},
        "tags": {"type": "array", "items": {"type": "string"}}},
        "required": ["level"]});
    let mut f = ArgForm::new(&schema).unwrap();
    let level = |f: &ArgForm| f.draft().get("level").cloned();
    assert!(f.jump('e'));
    assert_eq!(level(&f), Some(json!("error")));
    assert!(f.jump('E'), "case aside; the next starting with e");
    assert_eq!(level(&f), Some(json!("emergency")));
    assert!(f.jump('e'), "and round again");
    assert_eq!(level(&f), Some(json!("error")));
    assert!(!f.jump('z'), "no choice starts with z: nothing changes");
    assert_eq!(level(&f), Some(json!("error")));
    f.clear_focused().unwrap();
    assert_eq!(level(&f), None);
    assert_eq!(f.error_at("/level"), Some("required: choose one"));
    f.move_focus(1);
    assert!(f.jump('y'));
    assert_eq!(f.draft()["on"], json!(true));
    assert!(f.jump('n'));
    assert_eq!(f.draft()["on"], json!(false));
    assert!(!f.jump('q'));
    // A list is emptied item by item, not by clear.
    f.move_focus(1);
    f.add_item().unwrap();
    f.focus = vec![2];
    assert!(f.clear_focused().is_err());
}

#[test]
fn a_number_that_cannot_be_read_goes_to_the_json_and_back() {
    let schema = json!({"type": "object", "properties": {
        "a": {"type": "number"}, "i": {"type": "integer"}}, "required": ["a"]});
    let mut f = ArgForm::new(&schema).unwrap();
    typed(&mut f, "40.5x");
    f.move_focus(1);
    typed(&mut f, "1.5");
    let draft = Value::Object(f.draft());
    assert_eq!(draft, json!({"a": "40.5x", "i": "1.5"}));
    let mut back = ArgForm::new(&schema).unwrap();
    back.load(&draft).unwrap();
    assert_eq!(Value::Object(back.draft()), draft);
    assert_eq!(back.error_at("/a"), Some("not a number"));
    assert_eq!(back.error_at("/i"), Some("not a whole number"));
    // A number sent as a string is a real mismatch: the form refuses it.
    let e = back.load(&json!({"a": "12"})).unwrap_err();
    assert!(e.contains("/a: \"12\" where the form has a number"), "{e}");
}
