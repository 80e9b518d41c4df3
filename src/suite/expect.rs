//! What a step's result must show (`expect`), and the check of a result
//! against it: every assertion that fails, in a fixed order, each with
//! what was expected, what came, and a sentence.

use regex::Regex;
use serde_json::{Value, json};

use super::Kind;
use super::jsonpath::{Path, json_eq};

/// A step's `expect` table.
#[derive(Debug, Clone, Default)]
pub struct Expect {
    /// `is_error`: the call's `isError`. Unset, a call must not return
    /// `isError: true`.
    pub is_error: Option<bool>,
    /// `error_code`: the server answers with a JSON-RPC error of this code.
    pub error_code: Option<i64>,
    /// `error_contains`: the JSON-RPC error's message contains this.
    pub error_contains: Option<String>,
    /// `text`: the result's text, exactly.
    pub text: Option<String>,
    /// `text_contains`: each of these is in the result's text.
    pub text_contains: Vec<String>,
    /// `text_matches`: the result's text matches this regex.
    pub text_matches: Option<Regex>,
    /// `structured`: `structuredContent` holds this (a subset match).
    pub structured: Option<Value>,
    /// `json`: JSONPath assertions, in the file's order.
    pub json: Vec<JsonCheck>,
    /// `content_types`: the content blocks' types, in order.
    pub content_types: Option<Vec<String>>,
    /// `output_schema_valid`: `structuredContent` matches the tool's
    /// `outputSchema` (true), or does not (false).
    pub output_schema_valid: Option<bool>,
    /// `max_ms`: the step takes at most this long.
    pub max_ms: Option<u64>,
    /// `mime_type` (reads): every content's `mimeType`.
    pub mime_type: Option<String>,
    /// `snapshot`: the whole result, normalized, matches the stored one.
    pub snapshot: bool,
    /// `ignore`: paths masked in this step's snapshot (besides the
    /// suite's).
    pub ignore: Vec<Path>,
}

impl Expect {
    /// Whether the step expects a JSON-RPC error rather than a result.
    pub fn wants_error(&self) -> bool {
        self.error_code.is_some() || self.error_contains.is_some()
    }
}

/// One path of `[expect.json]` and what its value must be.
#[derive(Debug, Clone)]
pub struct JsonCheck {
    pub path: Path,
    pub checks: Vec<Check>,
}

/// One test of a JSONPath's value.
#[derive(Debug, Clone)]
pub enum Check {
    Equal(Value),
    Type(String),
    Contains(Value),
    Matches(Regex),
    Length(u64),
    Gt(f64),
    Gte(f64),
    Lt(f64),
    Lte(f64),
    Exists(bool),
}

/// The operators of `[expect.json]`: a path's value is one of these
/// tables, else a value it must equal.
pub const OPERATORS: &[&str] = &[
    "equal", "type", "contains", "matches", "length", "gt", "gte", "lt", "lte", "exists",
];

/// The JSON types `type` names.
pub const TYPES: &[&str] = &[
    "string", "number", "integer", "boolean", "object", "array", "null",
];

impl Check {
    fn name(&self) -> &'static str {
        match self {
            Check::Equal(_) => "equal",
            Check::Type(_) => "type",
            Check::Contains(_) => "contains",
            Check::Matches(_) => "matches",
            Check::Length(_) => "length",
            Check::Gt(_) => "gt",
            Check::Gte(_) => "gte",
            Check::Lt(_) => "lt",
            Check::Lte(_) => "lte",
            Check::Exists(_) => "exists",
        }
    }

    fn expected(&self) -> Value {
        match self {
            Check::Equal(v) | Check::Contains(v) => v.clone(),
            Check::Type(t) => json!(t),
            Check::Matches(r) => json!(r.as_str()),
            Check::Length(n) => json!(n),
            Check::Gt(n) | Check::Gte(n) | Check::Lt(n) | Check::Lte(n) => json!(n),
            Check::Exists(b) => json!(b),
        }
    }
}

/// What a step got back.
#[derive(Debug, Clone, PartialEq)]
pub enum Response {
    /// A result object.
    Result(Value),
    /// A JSON-RPC error: `{code, message, data}`.
    Error(Value),
}

impl Response {
    /// The JSON the assertions' paths and the snapshot see: the result, or
    /// `{"error": {…}}`.
    pub fn root(&self) -> Value {
        match self {
            Response::Result(v) => v.clone(),
            Response::Error(e) => json!({ "error": e }),
        }
    }
}

/// An assertion that failed.
#[derive(Debug, Clone, PartialEq)]
pub struct Failure {
    /// Which: `text_contains`, `json $.a.b equal`, `snapshot`…
    pub assertion: String,
    pub expected: Value,
    pub actual: Value,
    /// What is wrong, in a sentence.
    pub message: String,
}

impl Failure {
    pub fn new(
        assertion: impl Into<String>,
        expected: Value,
        actual: Value,
        message: impl Into<String>,
    ) -> Failure {
        Failure {
            assertion: assertion.into(),
            expected,
            actual,
            message: message.into(),
        }
    }
}

/// The text of a result: a call's text blocks, a read's text contents, a
/// prompt's text messages, each joined by a line end.
pub fn text_of(kind: Kind, result: &Value) -> String {
    let texts = |items: Option<&Value>| -> Vec<String> {
        items
            .and_then(Value::as_array)
            .map(|a| {
                a.iter()
                    .filter_map(|b| b.get("text").and_then(Value::as_str))
                    .map(str::to_string)
                    .collect()
            })
            .unwrap_or_default()
    };
    let parts = match kind {
        Kind::Call => texts(result.get("content")),
        Kind::Read => texts(result.get("contents")),
        Kind::Prompt => result
            .get("messages")
            .and_then(Value::as_array)
            .map(|ms| {
                ms.iter()
                    .flat_map(|m| match m.get("content") {
                        Some(Value::Array(_)) => texts(m.get("content")),
                        Some(c) => c
                            .get("text")
                            .and_then(Value::as_str)
                            .map(|t| vec![t.to_string()])
                            .unwrap_or_default(),
                        None => Vec::new(),
                    })
                    .collect()
            })
            .unwrap_or_default(),
    };
    parts.join("\n")
}

/// A short form of a long text for a message.
fn short(s: &str) -> String {
    let line = crate::sanitize::one_line(s);
    if line.chars().count() > 120 {
        format!("{}…", line.chars().take(120).collect::<String>())
    } else {
        line
    }
}

/// What failed of `expect` for `response` of a step of `kind` that took
/// `ms`; `output_schema` is the tool's, for a call. The snapshot is
/// checked by the runner, which has the files.
pub fn check(
    expect: &Expect,
    kind: Kind,
    response: &Response,
    ms: u64,
    output_schema: Option<&Value>,
) -> Vec<Failure> {
    let mut out = Vec::new();
    match response {
        Response::Error(e) => {
            let code = e.get("code").and_then(Value::as_i64);
            let message = e.get("message").and_then(Value::as_str).unwrap_or("");
            if !expect.wants_error() {
                out.push(Failure::new(
                    "response",
                    json!("a result"),
                    e.clone(),
                    format!(
                        "the server answered with JSON-RPC error {}: {}; to expect it, add error_code = {}",
                        code.map_or("(no code)".into(), |c| c.to_string()),
                        short(message),
                        code.unwrap_or(-32603)
                    ),
                ));
            }
            if let Some(want) = expect.error_code
                && code != Some(want)
            {
                out.push(Failure::new(
                    "error_code",
                    json!(want),
                    json!(code),
                    format!(
                        "expected error {want}, got {}",
                        code.map_or("no code".into(), |c| c.to_string())
                    ),
                ));
            }
            if let Some(want) = &expect.error_contains
                && !message.contains(want.as_str())
            {
                out.push(Failure::new(
                    "error_contains",
                    json!(want),
                    json!(message),
                    format!("the error's message does not contain {:?}", short(want)),
                ));
            }
            // An error has no text: a text assertion cannot hold.
            let texts = [
                ("text", expect.text.is_some()),
                ("text_contains", !expect.text_contains.is_empty()),
                ("text_matches", expect.text_matches.is_some()),
            ];
            for (name, given) in texts {
                if given {
                    out.push(Failure::new(
                        name,
                        Value::Null,
                        e.clone(),
                        format!(
                            "the server answered with JSON-RPC error {}, which has no text; check its message with error_contains",
                            code.map_or("(no code)".into(), |c| c.to_string())
                        ),
                    ));
                }
            }
            check_json(expect, &response.root(), &mut out);
        }
        Response::Result(r) => {
            if expect.wants_error() {
                let what = match (expect.error_code, &expect.error_contains) {
                    (Some(c), _) => format!("error {c}"),
                    (None, Some(m)) => format!("an error containing {:?}", short(m)),
                    (None, None) => "an error".into(),
                };
                out.push(Failure::new(
                    if expect.error_code.is_some() {
                        "error_code"
                    } else {
                        "error_contains"
                    },
                    expect
                        .error_code
                        .map_or_else(|| json!(expect.error_contains), |c| json!(c)),
                    json!("a result"),
                    format!("expected {what}, but the server answered with a result"),
                ));
            }
            check_result(expect, kind, r, output_schema, &mut out);
        }
    }
    if let Some(max) = expect.max_ms
        && ms > max
    {
        out.push(Failure::new(
            "max_ms",
            json!(max),
            json!(ms),
            format!("took {ms} ms, more than max_ms = {max}"),
        ));
    }
    out
}

fn check_result(
    expect: &Expect,
    kind: Kind,
    r: &Value,
    output_schema: Option<&Value>,
    out: &mut Vec<Failure>,
) {
    let text = text_of(kind, r);
    if kind == Kind::Call {
        let is_error = r.get("isError").and_then(Value::as_bool).unwrap_or(false);
        let want = expect.is_error.unwrap_or(false);
        if is_error != want {
            let message = if is_error {
                format!(
                    "the tool returned isError: true ({}); to expect it, add is_error = true",
                    short(&text)
                )
            } else {
                "expected isError: true, the tool succeeded".to_string()
            };
            out.push(Failure::new(
                "is_error",
                json!(want),
                json!(is_error),
                message,
            ));
        }
    }
    if let Some(want) = &expect.content_types {
        let got: Vec<Value> = r
            .get("content")
            .and_then(Value::as_array)
            .map(|a| {
                a.iter()
                    .map(|b| b.get("type").cloned().unwrap_or(Value::Null))
                    .collect()
            })
            .unwrap_or_default();
        let want_v: Vec<Value> = want.iter().map(|t| json!(t)).collect();
        if got != want_v {
            out.push(Failure::new(
                "content_types",
                json!(want_v),
                json!(got),
                "the content blocks' types differ",
            ));
        }
    }
    if let Some(want) = &expect.mime_type {
        let contents: Vec<&Value> = r
            .get("contents")
            .and_then(Value::as_array)
            .map(|a| a.iter().collect())
            .unwrap_or_default();
        let types: Vec<Value> = contents
            .iter()
            .map(|c| c.get("mimeType").cloned().unwrap_or(Value::Null))
            .collect();
        if types.is_empty() || types.iter().any(|t| t.as_str() != Some(want)) {
            out.push(Failure::new(
                "mime_type",
                json!(want),
                if types.len() == 1 {
                    types[0].clone()
                } else {
                    json!(types)
                },
                if types.is_empty() {
                    "the read returned no contents".to_string()
                } else {
                    format!("not every content's mimeType is {want:?}")
                },
            ));
        }
    }
    if let Some(want) = &expect.text
        && text != *want
    {
        out.push(Failure::new(
            "text",
            json!(want),
            json!(text),
            "the text differs",
        ));
    }
    for want in &expect.text_contains {
        if !text.contains(want.as_str()) {
            out.push(Failure::new(
                "text_contains",
                json!(want),
                json!(text),
                format!("the text does not contain {:?}", short(want)),
            ));
        }
    }
    if let Some(re) = &expect.text_matches
        && !re.is_match(&text)
    {
        out.push(Failure::new(
            "text_matches",
            json!(re.as_str()),
            json!(text),
            format!("the text does not match /{}/", re.as_str()),
        ));
    }
    if let Some(want) = &expect.structured {
        match r.get("structuredContent") {
            None => out.push(Failure::new(
                "structured",
                want.clone(),
                Value::Null,
                "the result has no structuredContent",
            )),
            Some(got) => {
                if let Some((at, e, a)) = subset_mismatch(want, got, "structuredContent") {
                    out.push(Failure::new(
                        "structured",
                        want.clone(),
                        got.clone(),
                        format!("{at}: expected {}, got {}", short(&e), short(&a)),
                    ));
                }
            }
        }
    }
    check_json(expect, r, out);
    if let Some(want) = expect.output_schema_valid {
        let got = output_schema_check(r, output_schema);
        match (want, got) {
            (true, Err(why)) | (false, Ok(why)) => out.push(Failure::new(
                "output_schema_valid",
                json!(want),
                json!(!want),
                why,
            )),
            _ => {}
        }
    }
}

/// The `json` assertions, on `root` (a result, or `{"error": …}`).
fn check_json(expect: &Expect, root: &Value, out: &mut Vec<Failure>) {
    for jc in &expect.json {
        let value = jc.path.value(root);
        for c in &jc.checks {
            if let Some(message) = json_check(c, value.as_ref(), jc.path.is_singular()) {
                out.push(Failure::new(
                    format!("json {} {}", jc.path.as_str(), c.name()),
                    c.expected(),
                    value.clone().unwrap_or(Value::Null),
                    format!("{}: {message}", jc.path.as_str()),
                ));
            }
        }
    }
}

/// `Ok(why it is valid)` or `Err(why not)`: `structuredContent` against
/// the tool's `outputSchema`.
fn output_schema_check(r: &Value, schema: Option<&Value>) -> Result<String, String> {
    let Some(schema) = schema else {
        return Err("the tool declares no outputSchema".into());
    };
    let Some(structured) = r.get("structuredContent") else {
        return Err("the result has no structuredContent to check against the outputSchema".into());
    };
    match crate::schema::check(schema, structured) {
        Ok(v) if v.is_empty() => Ok("structuredContent matches the outputSchema".into()),
        Ok(v) => Err(format!(
            "structuredContent does not match the outputSchema: {}",
            v.iter()
                .map(|x| short(&x.to_string()))
                .collect::<Vec<_>>()
                .join("; ")
        )),
        Err(e) => Err(format!("the tool's outputSchema is broken: {}", short(&e))),
    }
}

/// The JSON type's name.
fn type_name(v: &Value) -> &'static str {
    match v {
        Value::Null => "null",
        Value::Bool(_) => "boolean",
        Value::Number(_) => "number",
        Value::String(_) => "string",
        Value::Array(_) => "array",
        Value::Object(_) => "object",
    }
}

/// Why `value` fails `c`, or `None`.
fn json_check(c: &Check, value: Option<&Value>, singular: bool) -> Option<String> {
    if let Check::Exists(want) = c {
        let exists = match value {
            None => false,
            Some(Value::Array(a)) if !singular => !a.is_empty(),
            Some(_) => true,
        };
        return (exists != *want).then(|| {
            if *want {
                "matched nothing".into()
            } else {
                "exists, expected nothing there".into()
            }
        });
    }
    let Some(v) = value else {
        return Some("matched nothing".into());
    };
    let num = |v: &Value| v.as_f64();
    match c {
        Check::Equal(want) => (!json_eq(v, want)).then(|| {
            format!(
                "expected {}, got {}",
                short(&want.to_string()),
                short(&v.to_string())
            )
        }),
        Check::Type(t) => {
            let ok = match t.as_str() {
                "integer" => {
                    v.as_i64().is_some()
                        || v.as_u64().is_some()
                        || v.as_f64().is_some_and(|f| f.fract() == 0.0)
                }
                t => type_name(v) == t,
            };
            (!ok).then(|| format!("expected a value of type {t}, got {}", type_name(v)))
        }
        Check::Contains(want) => {
            let ok = match (v, want) {
                (Value::String(s), Value::String(w)) => s.contains(w.as_str()),
                (Value::Array(a), w) => a.iter().any(|x| subset_mismatch(w, x, "").is_none()),
                (Value::Object(m), Value::String(k)) => m.contains_key(k),
                (Value::Object(_), w @ Value::Object(_)) => subset_mismatch(w, v, "").is_none(),
                _ => false,
            };
            (!ok).then(|| {
                format!(
                    "{} does not contain {}",
                    type_name(v),
                    short(&want.to_string())
                )
            })
        }
        Check::Matches(re) => match v {
            Value::String(s) => (!re.is_match(s))
                .then(|| format!("{} does not match /{}/", short(&v.to_string()), re.as_str())),
            other => Some(format!(
                "expected a string to match /{}/, got {}",
                re.as_str(),
                type_name(other)
            )),
        },
        Check::Length(n) => {
            let len = match v {
                Value::Array(a) => Some(a.len()),
                Value::String(s) => Some(s.chars().count()),
                Value::Object(m) => Some(m.len()),
                _ => None,
            };
            match len {
                Some(l) if l as u64 == *n => None,
                Some(l) => Some(format!("expected length {n}, got {l}")),
                None => Some(format!("a {} has no length", type_name(v))),
            }
        }
        Check::Gt(n) | Check::Gte(n) | Check::Lt(n) | Check::Lte(n) => {
            let Some(x) = num(v) else {
                return Some(format!("expected a number, got {}", type_name(v)));
            };
            let (ok, op) = match c {
                Check::Gt(_) => (x > *n, ">"),
                Check::Gte(_) => (x >= *n, ">="),
                Check::Lt(_) => (x < *n, "<"),
                _ => (x <= *n, "<="),
            };
            (!ok).then(|| format!("expected {op} {n}, got {x}"))
        }
        Check::Exists(_) => None,
    }
}

/// The first place where `want` is not a subset of `got`: objects need
/// `want`'s members (others may be there too), arrays the same length
/// with each element a subset, other values equality. Its path, and the
/// two values there.
pub fn subset_mismatch(want: &Value, got: &Value, at: &str) -> Option<(String, String, String)> {
    let here = || {
        if at.is_empty() {
            "$".to_string()
        } else {
            at.to_string()
        }
    };
    match (want, got) {
        (Value::Object(w), Value::Object(g)) => w.iter().find_map(|(k, wv)| {
            let path = if at.is_empty() {
                k.clone()
            } else {
                format!("{at}.{k}")
            };
            match g.get(k) {
                None => Some((path, wv.to_string(), "nothing".into())),
                Some(gv) => subset_mismatch(wv, gv, &path),
            }
        }),
        (Value::Array(w), Value::Array(g)) => {
            if w.len() != g.len() {
                return Some((
                    here(),
                    format!("{} items", w.len()),
                    format!("{} items", g.len()),
                ));
            }
            w.iter()
                .zip(g)
                .enumerate()
                .find_map(|(i, (wv, gv))| subset_mismatch(wv, gv, &format!("{}[{i}]", here())))
        }
        (w, g) => (!json_eq(w, g)).then(|| (here(), w.to_string(), g.to_string())),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn call(text: &str) -> Response {
        Response::Result(json!({
            "content": [{"type": "text", "text": text}, {"type": "image", "data": "", "mimeType": "image/png"}],
            "structuredContent": {"city": "Paris", "temp": 21, "tags": ["a", "b"]}
        }))
    }

    fn names(f: &[Failure]) -> Vec<&str> {
        f.iter().map(|f| f.assertion.as_str()).collect()
    }

    #[test]
    fn a_call_that_meets_everything_passes() {
        let e = Expect {
            is_error: Some(false),
            text: Some("Paris is 21 °C".into()),
            text_contains: vec!["Paris".into(), "21".into()],
            text_matches: Some(Regex::new(r"\d+ °C").unwrap()),
            structured: Some(json!({"city": "Paris"})),
            content_types: Some(vec!["text".into(), "image".into()]),
            json: vec![JsonCheck {
                path: Path::parse("$.structuredContent.temp").unwrap(),
                checks: vec![
                    Check::Type("integer".into()),
                    Check::Gt(20.0),
                    Check::Lte(21.0),
                ],
            }],
            output_schema_valid: Some(true),
            max_ms: Some(100),
            ..Default::default()
        };
        let schema = json!({"type": "object", "properties": {"city": {"type": "string"}}, "required": ["city"]});
        let f = check(&e, Kind::Call, &call("Paris is 21 °C"), 5, Some(&schema));
        assert!(f.is_empty(), "{f:#?}");
    }

    #[test]
    fn each_failure_names_its_assertion() {
        let e = Expect {
            text: Some("Lyon".into()),
            text_contains: vec!["Lyon".into()],
            text_matches: Some(Regex::new("^L").unwrap()),
            structured: Some(json!({"city": "Lyon", "tags": ["a"]})),
            content_types: Some(vec!["text".into()]),
            json: vec![JsonCheck {
                path: Path::parse("$.structuredContent.tags").unwrap(),
                checks: vec![Check::Length(3), Check::Contains(json!("z"))],
            }],
            output_schema_valid: Some(true),
            max_ms: Some(1),
            ..Default::default()
        };
        let f = check(&e, Kind::Call, &call("Paris"), 5, None);
        assert_eq!(
            names(&f),
            [
                "content_types",
                "text",
                "text_contains",
                "text_matches",
                "structured",
                "json $.structuredContent.tags length",
                "json $.structuredContent.tags contains",
                "output_schema_valid",
                "max_ms"
            ]
        );
        assert_eq!(
            f[4].message,
            "structuredContent.city: expected \"Lyon\", got \"Paris\""
        );
        assert_eq!(
            f[5].message,
            "$.structuredContent.tags: expected length 3, got 2"
        );
        assert_eq!(f[7].message, "the tool declares no outputSchema");
    }

    #[test]
    fn is_error_is_expected_false_unless_said() {
        let r = Response::Result(
            json!({"content": [{"type": "text", "text": "boom"}], "isError": true}),
        );
        let f = check(&Expect::default(), Kind::Call, &r, 1, None);
        assert_eq!(names(&f), ["is_error"]);
        assert!(f[0].message.contains("boom"), "{}", f[0].message);
        let e = Expect {
            is_error: Some(true),
            ..Default::default()
        };
        assert!(check(&e, Kind::Call, &r, 1, None).is_empty());
    }

    #[test]
    fn errors_expected_and_not() {
        let err = Response::Error(json!({"code": -32602, "message": "Unknown tool: nope"}));
        let f = check(&Expect::default(), Kind::Call, &err, 1, None);
        assert_eq!(names(&f), ["response"]);
        assert!(
            f[0].message.contains("add error_code = -32602"),
            "{}",
            f[0].message
        );
        let e = Expect {
            error_code: Some(-32602),
            error_contains: Some("Unknown tool".into()),
            ..Default::default()
        };
        assert!(check(&e, Kind::Call, &err, 1, None).is_empty());
        let e = Expect {
            error_code: Some(-32601),
            ..Default::default()
        };
        assert_eq!(names(&check(&e, Kind::Call, &err, 1, None)), ["error_code"]);
        let f = check(&e, Kind::Call, &call("x"), 1, None);
        assert_eq!(names(&f), ["error_code"]);
        assert!(f[0].message.contains("answered with a result"));
    }

    #[test]
    fn an_error_answer_is_checked_by_json_and_has_no_text() {
        let err = Response::Error(json!({"code": -32602, "message": "bad", "data": {"uri": "x"}}));
        let e = Expect {
            error_code: Some(-32602),
            text: Some("nope".into()),
            json: vec![
                JsonCheck {
                    path: Path::parse("$.error.message").unwrap(),
                    checks: vec![Check::Equal(json!("something else"))],
                },
                JsonCheck {
                    path: Path::parse("$.error.data.uri").unwrap(),
                    checks: vec![Check::Equal(json!("x"))],
                },
            ],
            ..Default::default()
        };
        let f = check(&e, Kind::Read, &err, 1, None);
        assert_eq!(names(&f), ["text", "json $.error.message equal"]);
        assert!(f[0].message.contains("has no text"), "{}", f[0].message);
    }

    #[test]
    fn reads_and_prompts_have_text() {
        let read = Response::Result(
            json!({"contents": [{"uri": "x", "mimeType": "text/plain", "text": "hello"}]}),
        );
        let e = Expect {
            mime_type: Some("text/plain".into()),
            text_contains: vec!["hell".into()],
            ..Default::default()
        };
        assert!(check(&e, Kind::Read, &read, 1, None).is_empty());
        let e = Expect {
            mime_type: Some("application/json".into()),
            ..Default::default()
        };
        assert_eq!(names(&check(&e, Kind::Read, &read, 1, None)), ["mime_type"]);
        let prompt = json!({"messages": [
            {"role": "user", "content": {"type": "text", "text": "a"}},
            {"role": "assistant", "content": [{"type": "text", "text": "b"}]}
        ]});
        assert_eq!(text_of(Kind::Prompt, &prompt), "a\nb");
    }

    #[test]
    fn json_checks() {
        let v = json!({"a": [1, {"b": "xyz"}], "n": 2.5, "o": {"k": 1}});
        let run = |path: &str, c: Check| {
            let p = Path::parse(path).unwrap();
            json_check(&c, p.value(&v).as_ref(), p.is_singular())
        };
        assert_eq!(run("$.n", Check::Type("number".into())), None);
        assert!(run("$.n", Check::Type("integer".into())).is_some());
        assert_eq!(run("$.a", Check::Contains(json!({"b": "xyz"}))), None);
        assert_eq!(run("$.a[1].b", Check::Contains(json!("y"))), None);
        assert_eq!(run("$.o", Check::Contains(json!("k"))), None);
        assert_eq!(
            run("$.a[1].b", Check::Matches(Regex::new("^x.z$").unwrap())),
            None
        );
        assert_eq!(run("$.missing", Check::Exists(false)), None);
        assert_eq!(
            run("$.missing", Check::Equal(json!(1))),
            Some("matched nothing".into())
        );
        assert_eq!(run("$..b", Check::Length(1)), None);
        assert_eq!(run("$..zz", Check::Exists(false)), None);
        assert_eq!(run("$.n", Check::Gte(2.5)), None);
        assert_eq!(
            run("$.n", Check::Lt(2.0)),
            Some("expected < 2, got 2.5".into())
        );
    }
}
