//! JSON Schema checks of tool arguments (`inputSchema`) and structured
//! results (`outputSchema`), with errors by path for a person to read;
//! [`skeleton`] arguments to start editing from (or to send blind, as the
//! smoke test does); and [`rows`], a schema flattened for a person to read.
//!
//! [`skeleton`] and [`rows`] are pure and UI-agnostic. They read schemas as
//! real servers send them (draft-07 or 2020-12), follow local `$ref`s
//! (`#`, `#/$defs/X`, `#/definitions/X`, any local JSON pointer), merge
//! `allOf`, and never panic: recursion, nesting and total work are bounded,
//! and whatever they do not understand is skipped.

use serde_json::{Map, Value};

/// One way an instance breaks its schema.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Violation {
    /// JSON pointer into the instance; empty for the root.
    pub path: String,
    pub message: String,
}

impl std::fmt::Display for Violation {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        let path = if self.path.is_empty() {
            "(root)"
        } else {
            self.path.as_str()
        };
        write!(f, "{path}: {}", self.message)
    }
}

/// Check `instance` against `schema`. `Err` means the schema itself could
/// not be compiled (the server sent a broken schema).
pub fn check(schema: &Value, instance: &Value) -> Result<Vec<Violation>, String> {
    let validator = jsonschema::validator_for(schema)
        .map_err(|e| format!("the schema is not valid JSON Schema: {e}"))?;
    Ok(validator
        .iter_errors(instance)
        .map(|e| Violation {
            path: e.instance_path().to_string(),
            message: e.to_string(),
        })
        .collect())
}

/// How many levels of schema (properties, array items, alternatives) the
/// walkers descend before giving up on a branch. Recursive `$ref`s are
/// caught earlier, by name; this is the backstop for everything else.
const MAX_DEPTH: usize = 16;
/// Schema nodes one call may visit, so that schemas whose `$ref`s fan out
/// (a DAG of definitions, each used twice) cannot blow up exponentially.
const BUDGET: usize = 20_000;
/// Rows one call of [`rows`] returns at most (plus a "truncated" marker).
const MAX_ROWS: usize = 2_000;
/// Elements [`skeleton`] generates at most for an array's `minItems`.
const MAX_ITEMS: u64 = 64;
/// Characters [`skeleton`] pads a string to at most for its `minLength`.
const MAX_STRING: u64 = 4_096;
/// An enum whose values, joined, are at most this long is shown as the row's
/// `ty` (`"a"|"b"`); a longer one as its base type plus an `enum:` detail.
const ENUM_TY_MAX: usize = 48;
/// Longest value (default, examples, enum list) quoted in a detail.
const DETAIL_MAX: usize = 80;

type Obj = Map<String, Value>;

/// A value a person can start editing, and a smoke test can send, for
/// `schema` (usually a tool's `inputSchema`).
///
/// Per schema, in this order: its `default`; else its `const`; else the
/// first of its `examples` (or an OpenAPI-style `example`); else its first
/// `enum` value; else a value of its type (a `type` array picks the first
/// type that is not `"null"`; without `type`, the type is guessed from the
/// keywords present, and a schema that says nothing gives `null`):
///
/// - object: every **required** property, plus the optional properties that
///   have a `default` (with it), in the schema's `properties` order. Other
///   optional properties are left out, so that a blind call sends only what
///   the server asks for and a person sees what they must fill in; a
///   `minProperties` is topped up with further properties in order. A
///   required name missing from `properties` gets a skeleton of
///   `additionalProperties` (or `null`).
/// - string: `""`, or a placeholder for the common `format`s (`date-time`,
///   `date`, `time`, `uri`, `email`, `uuid`, `hostname`, `ipv4`, …), padded
///   with `x` to `minLength` and cut to `maxLength`. With a `pattern`, a few
///   simple candidates (`a`, `0`, `A`, repeated) are tried and the first
///   that matches is used; a pattern none of them matches is not satisfied.
/// - integer / number: 0 (`0.0` for number) when it lies within
///   `minimum`/`maximum` (and `exclusiveMinimum`/`exclusiveMaximum`), else
///   the nearest valid bound; moved to a `multipleOf` where one fits.
/// - boolean: `false`; null: `null`.
/// - array: `[]`, or `minItems` elements (at most 64) made from
///   `prefixItems` (or draft-07 tuple `items`) then `items`; a `contains`
///   makes at least one element from that schema. `uniqueItems` is not
///   honoured when `minItems` > 1.
///
/// `anyOf`/`oneOf` take the first alternative that is not `{"type":"null"}`
/// (nor a reference back into a schema being expanded), falling back to a
/// null alternative; `allOf` parts are merged (properties and required
/// united; otherwise the first word on a keyword wins, the schema's own
/// keywords first). Local `$ref`s are followed against `schema` as root.
///
/// A reference back into a schema already being expanded, nesting deeper
/// than 16 levels, and anything past the work budget give `null`. The result
/// validates against the schema whenever that is feasible with these rules
/// (see the tests); `pattern`, `uniqueItems`, `not`, `oneOf` exclusivity and
/// `dependentRequired` are the known gaps.
pub fn skeleton(schema: &Value) -> Value {
    let walker = Walker::new(schema);
    let mut chain = vec![ROOT_KEY.to_string()];
    walker.skeleton(schema, 0, &mut chain)
}

mod rows;
mod sample;
mod skeleton;
mod walk;

pub use rows::{SchemaRow, rows};
pub use sample::{Arguments, SampleError, Source, arguments, description_examples};
use walk::{ROOT_KEY, Walker};
/// Shared with the argument form, which reads schemas the same way.
pub(crate) use walk::{declared_types, infer_type, is_null_only, merge_key};

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    #[test]
    fn violations_name_their_paths() {
        let schema = json!({"type":"object","properties":{"a":{"type":"integer"},"b":{"type":"array","items":{"type":"string"}}},"required":["a"]});
        assert!(
            check(&schema, &json!({"a": 1, "b": ["x"]}))
                .unwrap()
                .is_empty()
        );
        let v = check(&schema, &json!({"b": ["x", 2]})).unwrap();
        assert_eq!(v.len(), 2, "{v:?}");
        assert!(
            v.iter()
                .any(|x| x.path.is_empty() && x.message.contains("\"a\""))
        );
        assert!(
            v.iter()
                .any(|x| x.path == "/b/1" && x.message.contains("string"))
        );
        assert!(v[0].to_string().contains(": "));
    }

    #[test]
    fn draft07_schemas_from_real_servers_compile() {
        let schema = json!({"$schema":"http://json-schema.org/draft-07/schema#","type":"object","properties":{"message":{"type":"string"}},"required":["message"]});
        assert_eq!(check(&schema, &json!({"message": "hi"})).unwrap(), vec![]);
        assert_eq!(check(&schema, &json!({})).unwrap().len(), 1);
    }

    #[test]
    fn a_broken_schema_is_an_error_not_a_panic() {
        assert!(check(&json!({"type": 12}), &json!({})).is_err());
    }

    /// Real and realistic tool schemas: server-everything (zod → draft-07),
    /// the Python SDK (pydantic, 2020-12) and hand-written ones.
    fn real_schemas() -> Vec<(&'static str, Value)> {
        let d7 = "http://json-schema.org/draft-07/schema#";
        vec![
            (
                "get-sum",
                json!({"type":"object","properties":{"a":{"type":"number","description":"First number"},"b":{"type":"number","description":"Second number"}},"required":["a","b"],"additionalProperties":false,"$schema":d7}),
            ),
            (
                "get-structured-content",
                json!({"type":"object","properties":{"location":{"type":"string","enum":["New York","Chicago","Los Angeles"],"description":"Choose city"}},"required":["location"],"additionalProperties":false,"$schema":d7}),
            ),
            (
                "get-structured-content output",
                json!({"type":"object","properties":{"temperature":{"type":"number","description":"Temperature in celsius"},"conditions":{"type":"string","description":"Weather conditions description"},"humidity":{"type":"number","description":"Humidity percentage"}},"required":["temperature","conditions","humidity"],"additionalProperties":false,"$schema":d7}),
            ),
            (
                "trigger-long-running-operation",
                json!({"type":"object","properties":{"duration":{"type":"number","default":10,"description":"Duration of the operation in seconds"},"steps":{"type":"number","default":5,"description":"Number of steps in the operation"}},"additionalProperties":false,"$schema":d7}),
            ),
            (
                "python get_weather",
                json!({"properties":{"city":{"title":"City","type":"string"}},"required":["city"],"title":"get_weatherArguments","type":"object"}),
            ),
            ("pydantic $defs", pydantic()),
            (
                "formats",
                json!({"$schema":d7,"type":"object","properties":{
                    "when":{"type":"string","format":"date-time"},
                    "day":{"type":"string","format":"date"},
                    "site":{"type":"string","format":"uri"},
                    "mail":{"type":"string","format":"email"},
                    "id":{"type":"string","format":"uuid"},
                    "host":{"type":"string","format":"hostname"},
                    "ip":{"type":"string","format":"ipv4"},
                    "code":{"type":"string","minLength":3,"maxLength":8},
                    "zip":{"type":"string","pattern":"^[0-9]{5}$"},
                    "slug":{"type":"string","pattern":"^[a-z][a-z0-9-]*$","minLength":4},
                    "upper":{"type":"string","pattern":"^[A-Z]{3}$"}},
                    "required":["when","day","site","mail","id","host","ip","code","zip","slug","upper"]}),
            ),
            (
                "arrays",
                json!({"type":"object","properties":{
                    "tags":{"type":"array","items":{"type":"string","minLength":1},"minItems":2},
                    "points":{"type":"array","minItems":1,"items":{"type":"object","properties":{"x":{"type":"number"},"y":{"type":"number"}},"required":["x","y"],"additionalProperties":false}},
                    "pair":{"type":"array","prefixItems":[{"type":"string"},{"type":"integer"}],"items":false,"minItems":2},
                    "must":{"type":"array","contains":{"const":"x"}},
                    "ids":{"type":"array","items":{"type":"integer"}}},
                    "required":["tags","points","pair","must","ids"]}),
            ),
            (
                "draft-07 tuple",
                json!({"$schema":d7,"type":"object","properties":{"rgb":{"type":"array","items":[{"type":"integer","minimum":0,"maximum":255},{"type":"integer","minimum":0},{"type":"integer"}],"additionalItems":false,"minItems":3}},"required":["rgb"]}),
            ),
            (
                "numbers",
                json!({"type":"object","properties":{
                    "page":{"type":"integer","minimum":1,"maximum":100},
                    "offset":{"type":"integer","minimum":-5,"maximum":5},
                    "ratio":{"type":"number","exclusiveMinimum":0,"exclusiveMaximum":1},
                    "temp":{"type":"number","maximum":-10.5},
                    "step":{"type":"integer","exclusiveMinimum":0,"multipleOf":5},
                    "big":{"type":"number","minimum":2.5},
                    "flag":{"type":"boolean"},
                    "nothing":{"type":"null"},
                    "version":{"const":3},
                    "mode":{"type":"string","examples":["fast","slow"]},
                    "note":{"type":["null","string"]}},
                    "required":["page","offset","ratio","temp","step","big","flag","nothing","version","mode","note"]}),
            ),
            (
                "draft-04 exclusive",
                json!({"$schema":"http://json-schema.org/draft-04/schema#","type":"object","properties":{"n":{"type":"integer","minimum":0,"exclusiveMinimum":true}},"required":["n"]}),
            ),
            (
                "nested objects",
                json!({"type":"object","properties":{"config":{"type":"object","properties":{"retries":{"type":"integer","minimum":0,"default":3},"server":{"type":"object","properties":{"host":{"type":"string"},"port":{"type":"integer","minimum":1,"maximum":65535}},"required":["host","port"],"additionalProperties":false},"labels":{"type":"object","additionalProperties":{"type":"string"}}},"required":["server","labels"],"additionalProperties":false}},"required":["config"]}),
            ),
            (
                "allOf with definitions",
                json!({"allOf":[{"$ref":"#/definitions/Base"},{"type":"object","properties":{"extra":{"type":"boolean"}},"required":["extra"]}],"definitions":{"Base":{"type":"object","properties":{"id":{"type":"integer","minimum":1}},"required":["id"]}}}),
            ),
            (
                "oneOf union",
                json!({"type":"object","properties":{"shape":{"oneOf":[{"type":"object","properties":{"kind":{"const":"circle"},"r":{"type":"number","exclusiveMinimum":0}},"required":["kind","r"]},{"type":"object","properties":{"kind":{"const":"square"},"side":{"type":"number"}},"required":["kind","side"]}]}},"required":["shape"]}),
            ),
            ("recursive tree", tree()),
            (
                "minProperties",
                json!({"type":"object","properties":{"a":{"type":"string"},"b":{"type":"string"}},"minProperties":1}),
            ),
            (
                "required but undeclared",
                json!({"type":"object","required":["x"],"additionalProperties":{"type":"integer"}}),
            ),
        ]
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
            "required": ["address", "tags", "count", "billing"],
            "title": "lookupArguments",
            "type": "object"
        })
    }

    fn tree() -> Value {
        json!({"$defs":{"Node":{"type":"object","properties":{"name":{"type":"string"},"children":{"type":"array","items":{"$ref":"#/$defs/Node"}}},"required":["name","children"]}},"type":"object","properties":{"root":{"$ref":"#/$defs/Node"}},"required":["root"]})
    }

    #[test]
    fn skeletons_of_real_schemas_validate() {
        for (name, schema) in real_schemas() {
            let value = skeleton(&schema);
            let violations = check(&schema, &value).unwrap();
            assert!(
                violations.is_empty(),
                "{name}: {value} breaks its schema: {violations:?}"
            );
        }
    }

    #[test]
    fn skeletons_are_what_a_person_expects() {
        let all: Vec<(&str, Value)> = real_schemas();
        let of = |name: &str| skeleton(&all.iter().find(|(n, _)| *n == name).unwrap().1);
        assert_eq!(of("get-sum"), json!({"a": 0.0, "b": 0.0}));
        assert_eq!(
            of("get-structured-content"),
            json!({"location": "New York"})
        );
        assert_eq!(
            of("trigger-long-running-operation"),
            json!({"duration": 10, "steps": 5})
        );
        assert_eq!(of("python get_weather"), json!({"city": ""}));
        // Optional properties only with a default; required Optional[int]
        // takes the non-null alternative.
        assert_eq!(
            of("pydantic $defs"),
            json!({"address": {"street": "", "zip": "00000"}, "unit": "celsius", "tags": [""], "limit": null, "count": 1, "billing": {"street": "", "zip": "00000"}})
        );
        assert_eq!(
            of("formats"),
            json!({"when": "2026-01-01T00:00:00Z", "day": "2026-01-01", "site": "https://example.com", "mail": "user@example.com", "id": "00000000-0000-0000-0000-000000000000", "host": "example.com", "ip": "127.0.0.1", "code": "xxx", "zip": "00000", "slug": "xxxx", "upper": "AAA"})
        );
        assert_eq!(
            of("arrays"),
            json!({"tags": ["x", "x"], "points": [{"x": 0.0, "y": 0.0}], "pair": ["", 0], "must": ["x"], "ids": []})
        );
        assert_eq!(of("draft-07 tuple"), json!({"rgb": [0, 0, 0]}));
        assert_eq!(
            of("numbers"),
            json!({"page": 1, "offset": 0, "ratio": 0.5, "temp": -10.5, "step": 5, "big": 2.5, "flag": false, "nothing": null, "version": 3, "mode": "fast", "note": ""})
        );
        assert_eq!(of("draft-04 exclusive"), json!({"n": 1}));
        assert_eq!(
            of("nested objects"),
            json!({"config": {"retries": 3, "server": {"host": "", "port": 1}, "labels": {}}})
        );
        assert_eq!(
            of("allOf with definitions"),
            json!({"id": 1, "extra": false})
        );
        assert_eq!(
            of("oneOf union"),
            json!({"shape": {"kind": "circle", "r": 1.0}})
        );
        assert_eq!(
            of("recursive tree"),
            json!({"root": {"name": "", "children": []}})
        );
        assert_eq!(of("minProperties"), json!({"a": ""}));
        assert_eq!(of("required but undeclared"), json!({"x": 0}));
        // A bare Optional[int] with default None (pydantic) is its default.
        assert_eq!(
            skeleton(&json!({"anyOf":[{"type":"integer"},{"type":"null"}],"default":null})),
            Value::Null
        );
        assert_eq!(
            skeleton(&json!({"anyOf":[{"type":"null"},{"type":"integer"}]})),
            json!(0)
        );
        assert_eq!(
            skeleton(&json!({"type":"string","maxLength":2,"format":"uuid"})),
            json!("00")
        );
    }

    fn row(depth: usize, name: &str, ty: &str, required: bool) -> SchemaRow {
        SchemaRow {
            depth,
            name: name.to_string(),
            ty: ty.to_string(),
            required,
            description: None,
            details: Vec::new(),
        }
    }

    fn with(mut r: SchemaRow, description: Option<&str>, details: &[&str]) -> SchemaRow {
        r.description = description.map(str::to_string);
        r.details = details.iter().map(|d| d.to_string()).collect();
        r
    }

    #[test]
    fn rows_of_server_everything_schemas() {
        let all = real_schemas();
        let of = |name: &str| rows(&all.iter().find(|(n, _)| *n == name).unwrap().1);
        assert_eq!(
            of("get-structured-content"),
            vec![with(
                row(
                    0,
                    "location",
                    "\"New York\"|\"Chicago\"|\"Los Angeles\"",
                    true
                ),
                Some("Choose city"),
                &[]
            )]
        );
        assert_eq!(
            of("trigger-long-running-operation"),
            vec![
                with(
                    row(0, "duration", "number", false),
                    Some("Duration of the operation in seconds"),
                    &["default: 10"]
                ),
                with(
                    row(0, "steps", "number", false),
                    Some("Number of steps in the operation"),
                    &["default: 5"]
                ),
            ]
        );
        // A derived title ("City" for "city") is not repeated.
        assert_eq!(
            of("python get_weather"),
            vec![row(0, "city", "string", true)]
        );
    }

    #[test]
    fn rows_follow_refs_and_fold_alternatives() {
        assert_eq!(
            rows(&pydantic()),
            vec![
                row(0, "address", "ref Address", true),
                row(1, "street", "string", true),
                with(row(1, "zip", "string", true), None, &["pattern: ^\\d{5}$"]),
                with(
                    row(0, "unit", "\"celsius\"|\"fahrenheit\"", false),
                    None,
                    &["default: \"celsius\"", "ref: Unit"]
                ),
                with(
                    row(0, "tags", "array<string>", true),
                    None,
                    &["minItems: 1"]
                ),
                with(
                    row(0, "limit", "integer|null", false),
                    None,
                    &["default: null"]
                ),
                row(0, "count", "integer|null", true),
                row(0, "billing", "Address|null", true),
                row(1, "(any of 1)", "ref Address", false),
                row(2, "street", "string", true),
                with(row(2, "zip", "string", true), None, &["pattern: ^\\d{5}$"]),
            ]
        );
        assert_eq!(
            rows(&tree()),
            vec![
                row(0, "root", "ref Node", true),
                row(1, "name", "string", true),
                row(1, "children", "array<Node>", true),
                row(2, "[]", "ref Node (recursive)", false),
            ]
        );
        let all = real_schemas();
        let of = |name: &str| rows(&all.iter().find(|(n, _)| *n == name).unwrap().1);
        assert_eq!(
            of("oneOf union"),
            vec![
                row(0, "shape", "object", true),
                row(1, "(one of 1)", "object", false),
                row(2, "kind", "const \"circle\"", true),
                with(row(2, "r", "number", true), None, &["min 0 (exclusive)"]),
                row(1, "(one of 2)", "object", false),
                row(2, "kind", "const \"square\"", true),
                row(2, "side", "number", true),
            ]
        );
        assert_eq!(
            of("arrays"),
            vec![
                with(
                    row(0, "tags", "array<string>", true),
                    None,
                    &["minItems: 2"]
                ),
                with(
                    row(0, "points", "array<object>", true),
                    None,
                    &["minItems: 1"]
                ),
                with(
                    row(1, "[]", "object", false),
                    None,
                    &["no additional properties"]
                ),
                row(2, "x", "number", true),
                row(2, "y", "number", true),
                with(
                    row(0, "pair", "[string, integer]", true),
                    None,
                    &["minItems: 2"]
                ),
                row(0, "must", "array", true),
                row(0, "ids", "array<integer>", true),
            ]
        );
        assert_eq!(
            of("nested objects"),
            vec![
                with(
                    row(0, "config", "object", true),
                    None,
                    &["no additional properties"]
                ),
                with(
                    row(1, "retries", "integer", false),
                    None,
                    &["default: 3", "min 0"]
                ),
                with(
                    row(1, "server", "object", true),
                    None,
                    &["no additional properties"]
                ),
                row(2, "host", "string", true),
                with(
                    row(2, "port", "integer", true),
                    None,
                    &["min 1", "max 65535"]
                ),
                with(
                    row(1, "labels", "object", true),
                    None,
                    &["additional properties allowed"]
                ),
                row(2, "*", "string", false),
            ]
        );
        assert_eq!(
            of("allOf with definitions"),
            vec![
                with(row(0, "id", "integer", true), None, &["min 1"]),
                row(0, "extra", "boolean", true),
            ]
        );
        let formats = of("formats");
        assert_eq!(formats[2].details, vec!["format: uri"]);
        assert_eq!(formats[7].details, vec!["minLength: 3", "maxLength: 8"]);
    }

    #[test]
    fn long_enums_and_other_details() {
        let schema = json!({"type":"object","properties":{
            "color":{"type":"string","enum":["red","green","blue","cyan","magenta","yellow","black","white"],"description":"  Pen colour\n"},
            "ratio":{"type":"number","minimum":0,"maximum":1,"multipleOf":0.25,"examples":[0.5]},
            "old":{"type":"string","deprecated":true,"readOnly":true,"title":"Legacy field"}}});
        assert_eq!(
            rows(&schema),
            vec![
                with(
                    row(0, "color", "string", false),
                    Some("Pen colour"),
                    &["enum: red, green, blue, cyan, magenta, yellow, black, white"]
                ),
                with(
                    row(0, "ratio", "number", false),
                    None,
                    &["examples: 0.5", "min 0", "max 1", "multiple of 0.25"]
                ),
                with(
                    row(0, "old", "string", false),
                    None,
                    &["deprecated", "read-only", "title: Legacy field"]
                ),
            ]
        );
    }

    #[test]
    fn schemas_without_properties_have_no_rows() {
        for schema in [
            json!({"type":"object"}),
            json!({"type":"object","properties":{}}),
            json!({"type":"string"}),
            json!({}),
        ] {
            assert_eq!(rows(&schema), vec![], "{schema}");
        }
    }

    #[test]
    fn odd_schemas_do_not_panic() {
        let odd = [
            json!(true),
            json!(false),
            json!(null),
            json!(7),
            json!("object"),
            json!([]),
            json!([{"type":"object"}]),
            json!({"type": 7}),
            json!({"type": [7, null]}),
            json!({"properties": []}),
            json!({"properties": {"a": 7, "b": [], "c": true, "d": false, "e": null}, "required": ["a", 1, null, "zz"]}),
            json!({"required": "a"}),
            json!({"$ref": "#/$defs/missing"}),
            json!({"$ref": 7}),
            json!({"$ref": "#/%zz/%"}),
            json!({"$ref": "#anchor"}),
            json!({"$ref": "https://example.com/schema.json#/$defs/X"}),
            json!({"$ref": "#"}),
            json!({"allOf": [{"$ref": "#"}]}),
            json!({"allOf": 7, "anyOf": {}, "oneOf": [7, true]}),
            json!({"anyOf": []}),
            json!({"anyOf": [{"$ref": "#"}]}),
            json!({"enum": []}),
            json!({"enum": 5, "const": null}),
            json!({"type": "array", "items": [], "minItems": 3}),
            json!({"type": "array", "items": 7, "prefixItems": 7, "minItems": 1_000_000_000u64}),
            json!({"type": "string", "minLength": 1_000_000_000_000u64, "maxLength": -1}),
            json!({"type": "string", "pattern": "(unclosed"}),
            json!({"type": "integer", "minimum": 1e300}),
            json!({"type": "integer", "minimum": 10, "maximum": 1}),
            json!({"type": "number", "exclusiveMinimum": 1e308, "exclusiveMaximum": 1.7e308}),
            json!({"type": "number", "multipleOf": 0, "minimum": "a"}),
            json!({"$defs": {"A": {"$ref": "#/$defs/A"}}, "$ref": "#/$defs/A"}),
            json!({"$defs": {"A": {"allOf": [{"$ref": "#/$defs/A"}]}}, "properties": {"a": {"$ref": "#/$defs/A"}}}),
            json!({"$defs": {"A": {"$ref": "#/$defs/B"}, "B": {"$ref": "#/$defs/A"}}, "properties": {"a": {"$ref": "#/$defs/A"}}, "required": ["a"]}),
            json!({"type": "object", "properties": {"me": {"$ref": "#"}}, "required": ["me"]}),
            json!({"properties": {"x": {"anyOf": [{"$ref": "#"}, {"type": "null"}]}}, "required": ["x"]}),
        ];
        for schema in &odd {
            let _ = skeleton(schema);
            let _ = rows(schema);
        }
        assert_eq!(rows(&json!(true)), vec![]);
        assert_eq!(rows(&json!([])), vec![]);
        assert_eq!(rows(&json!({"type": 7})), vec![]);
        assert_eq!(rows(&json!({"properties": []})), vec![]);
        assert_eq!(rows(&json!({"$ref": "#/$defs/missing"})), vec![]);
        assert_eq!(skeleton(&json!({"$ref": "#/$defs/missing"})), Value::Null);
        assert_eq!(skeleton(&json!({"type": 7})), Value::Null);
        assert_eq!(skeleton(&json!(true)), Value::Null);
        let me = json!({"type": "object", "properties": {"me": {"$ref": "#"}}, "required": ["me"]});
        assert_eq!(skeleton(&me), json!({"me": null}));
        assert_eq!(rows(&me), vec![row(0, "me", "ref root (recursive)", true)]);
        let missing = json!({"properties": {"m": {"$ref": "#/$defs/Gone", "description": "lost"}}});
        assert_eq!(
            rows(&missing),
            vec![with(
                row(0, "m", "ref Gone", false),
                Some("lost"),
                &["unresolved reference"]
            )]
        );
        // Optional self-reference: the null alternative stops the recursion.
        let linked = json!({"$defs": {"L": {"type": "object", "properties": {"v": {"type": "integer"}, "next": {"anyOf": [{"$ref": "#/$defs/L"}, {"type": "null"}]}}, "required": ["v", "next"]}}, "$ref": "#/$defs/L"});
        let value = skeleton(&linked);
        assert_eq!(value, json!({"v": 0, "next": null}));
        assert_eq!(check(&linked, &value).unwrap(), vec![]);
    }

    #[test]
    fn fan_out_and_deep_nesting_are_bounded() {
        // 24 definitions, each using the next twice: 2^24 paths.
        let mut defs = Map::new();
        for i in 0..24 {
            let next = json!({"$ref": format!("#/$defs/D{}", i + 1)});
            defs.insert(
                format!("D{i}"),
                json!({"type": "object", "properties": {"l": next, "r": next}, "required": ["l", "r"]}),
            );
        }
        defs.insert("D24".to_string(), json!({"type": "string"}));
        let schema = json!({"$defs": defs, "$ref": "#/$defs/D0"});
        let started = std::time::Instant::now();
        let _ = skeleton(&schema);
        let listed = rows(&schema);
        assert!(started.elapsed() < std::time::Duration::from_secs(10));
        assert!(listed.len() <= MAX_ROWS + 1);
        assert_eq!(listed.last().unwrap().name, "…");

        // Leaves at the deepest level shown do not count as cut off.
        let mut exact = json!({"type": "string"});
        for _ in 0..=MAX_DEPTH {
            exact = json!({"type": "object", "properties": {"a": exact}});
        }
        let listed = rows(&exact);
        assert_eq!(listed.len(), MAX_DEPTH + 1);
        assert_eq!(listed.last().unwrap().ty, "string");

        // Properties nested 300 deep, with no $ref at all.
        let mut deep = json!({"type": "string"});
        for _ in 0..300 {
            deep = json!({"type": "object", "properties": {"a": deep}, "required": ["a"]});
        }
        let value = skeleton(&deep);
        let listed = rows(&deep);
        assert!(listed.iter().all(|r| r.depth <= MAX_DEPTH));
        assert_eq!(listed.last().unwrap().name, "…");
        let mut v = &value;
        let mut levels = 0;
        while let Some(inner) = v.get("a") {
            v = inner;
            levels += 1;
        }
        assert!(levels <= MAX_DEPTH + 1, "{levels}");
    }
}
