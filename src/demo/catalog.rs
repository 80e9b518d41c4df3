//! What the demo server offers: tool definitions and argument validation,
//! static resources, the resource template, prompts and completions.
//!
//! Everything here is protocol-era neutral: it builds plain MCP result
//! objects; `server.rs` adds the 2026-07-28 envelope where needed.

use std::collections::HashMap;

use serde_json::{Map, Value, json};

use super::media;

pub const README_URI: &str = "demo://readme";
pub const LOGO_URI: &str = "demo://logo.png";
pub const GREETING_TEMPLATE: &str = "demo://greeting/{name}";
const GREETING_PREFIX: &str = "demo://greeting/";

pub const README_TEXT: &str = "# mcpdeck demo server\n\
\n\
A small MCP server built into mcpdeck (`mcpdeck demo-server`). It speaks\n\
newline-delimited JSON-RPC on stdin/stdout and serves both protocol eras:\n\
the `initialize` handshake (2024-11-05 to 2025-11-25) and the stateless\n\
2026-07-28 protocol (`server/discover` plus a `_meta` envelope on every request).\n\
\n\
## Tools\n\
- `echo`, `add`, `get_weather`: text and structured results\n\
- `render_image`, `make_sound`: PNG and WAV content blocks\n\
- `link_resource`, `embed_resource`: resource links and embedded resources\n\
- `slow_task`: progress notifications and cancellation\n\
- `fail`: a tool-level error (`isError: true`)\n\
- `log_messages`: log notifications at four levels\n\
- `everything_mixed`: one block of every content type\n\
\n\
## Resources\n\
- `demo://readme` (this file), `demo://logo.png`\n\
- template `demo://greeting/{name}`\n\
\n\
## Skills\n\
Through the `io.modelcontextprotocol/skills` extension (`skills/list`,\n\
`skills/get`, `resources/directory/read`); each file is read with `resources/read`:\n\
- `skill://demo-tour/SKILL.md`: how to explore this server with mcpdeck\n\
- `skill://docs/release-notes/SKILL.md`: writing release notes, with templates\n\
\n\
## Prompts\n\
- `review_code` (with completion for `language`), `greeting`\n\
\n\
Everything is synthetic and local: no network, no files, no state.\n";

const LANGUAGES: &[&str] = &["rust", "python", "go", "typescript"];
const GREETING_NAMES: &[&str] = &["world", "friend", "mcp", "rust"];
const CONDITIONS: &[&str] = &[
    "sunny",
    "partly cloudy",
    "cloudy",
    "light rain",
    "windy",
    "foggy",
];

// ---------------------------------------------------------------------------
// Tools
// ---------------------------------------------------------------------------

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum ParamType {
    String,
    Number,
    Integer,
}

impl ParamType {
    fn json_name(self) -> &'static str {
        match self {
            ParamType::String => "string",
            ParamType::Number => "number",
            ParamType::Integer => "integer",
        }
    }
}

#[derive(Debug, Clone)]
pub struct Param {
    pub name: &'static str,
    pub ty: ParamType,
    pub description: &'static str,
    pub required: bool,
    pub default: Option<Value>,
    pub choices: Option<&'static [&'static str]>,
}

impl Param {
    fn new(name: &'static str, ty: ParamType, description: &'static str) -> Self {
        Param {
            name,
            ty,
            description,
            required: false,
            default: None,
            choices: None,
        }
    }
    fn required(mut self) -> Self {
        self.required = true;
        self
    }
    fn default(mut self, v: Value) -> Self {
        self.default = Some(v);
        self
    }
    fn choices(mut self, c: &'static [&'static str]) -> Self {
        self.choices = Some(c);
        self
    }
}

/// Which implementation a tool runs.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum ToolKind {
    Echo,
    Add,
    GetWeather,
    RenderImage,
    MakeSound,
    LinkResource,
    EmbedResource,
    SlowTask,
    Fail,
    LogMessages,
    EverythingMixed,
    Generated,
}

#[derive(Debug, Clone)]
pub struct ToolDef {
    pub name: String,
    pub kind: ToolKind,
    pub params: Vec<Param>,
    /// The tool as listed by `tools/list`.
    pub json: Value,
}

#[derive(Clone, Copy)]
struct Hints {
    read_only: bool,
    destructive: bool,
    idempotent: bool,
    open_world: bool,
}

const PURE: Hints = Hints {
    read_only: true,
    destructive: false,
    idempotent: true,
    open_world: false,
};

fn tool(
    name: &str,
    kind: ToolKind,
    title: &str,
    description: &str,
    params: Vec<Param>,
    output_schema: Option<Value>,
    hints: Hints,
) -> ToolDef {
    let mut properties = Map::new();
    let mut required = Vec::new();
    for p in &params {
        let mut prop = Map::new();
        prop.insert("type".into(), json!(p.ty.json_name()));
        prop.insert("description".into(), json!(p.description));
        if let Some(c) = p.choices {
            prop.insert("enum".into(), json!(c));
        }
        if let Some(d) = &p.default {
            prop.insert("default".into(), d.clone());
        }
        if p.required {
            required.push(json!(p.name));
        }
        properties.insert(p.name.into(), Value::Object(prop));
    }
    let mut schema = Map::new();
    schema.insert("type".into(), json!("object"));
    if params.is_empty() {
        schema.insert("additionalProperties".into(), json!(false));
    } else {
        schema.insert("properties".into(), Value::Object(properties));
        if !required.is_empty() {
            schema.insert("required".into(), Value::Array(required));
        }
    }

    let mut t = Map::new();
    t.insert("name".into(), json!(name));
    t.insert("title".into(), json!(title));
    t.insert("description".into(), json!(description));
    t.insert("inputSchema".into(), Value::Object(schema));
    if let Some(o) = output_schema {
        t.insert("outputSchema".into(), o);
    }
    t.insert(
        "annotations".into(),
        json!({
            "title": title,
            "readOnlyHint": hints.read_only,
            "destructiveHint": hints.destructive,
            "idempotentHint": hints.idempotent,
            "openWorldHint": hints.open_world,
        }),
    );
    ToolDef {
        name: name.to_string(),
        kind,
        params,
        json: Value::Object(t),
    }
}

/// The built-in tools followed by `extra` generated `tool_0001`… tools.
pub fn build_tools(extra: usize) -> Vec<ToolDef> {
    use ParamType::*;
    let mut tools = vec![
        tool(
            "echo",
            ToolKind::Echo,
            "Echo",
            "Echo a message back as text.",
            vec![Param::new("message", String, "The message to echo back").required()],
            None,
            PURE,
        ),
        tool(
            "add",
            ToolKind::Add,
            "Add two numbers",
            "Add two numbers; returns the sum as text and as structured content.",
            vec![
                Param::new("a", Number, "First addend").required(),
                Param::new("b", Number, "Second addend").required(),
            ],
            Some(json!({
                "type": "object",
                "properties": {"sum": {"type": "number", "description": "a + b"}},
                "required": ["sum"],
            })),
            PURE,
        ),
        tool(
            "get_weather",
            ToolKind::GetWeather,
            "Weather report",
            "Made-up but deterministic weather for a city, as structured content \
             (with an outputSchema) and the same JSON as text.",
            vec![
                Param::new("city", String, "City name").required(),
                Param::new("units", String, "Temperature units")
                    .choices(&["metric", "imperial"])
                    .default(json!("metric")),
            ],
            Some(json!({
                "type": "object",
                "properties": {
                    "city": {"type": "string"},
                    "temperature": {"type": "number", "description": "°C for metric, °F for imperial"},
                    "units": {"type": "string", "enum": ["metric", "imperial"]},
                    "conditions": {"type": "string"},
                },
                "required": ["city", "temperature", "units", "conditions"],
            })),
            // Pretends to ask a weather service.
            Hints {
                open_world: true,
                ..PURE
            },
        ),
        tool(
            "render_image",
            ToolKind::RenderImage,
            "Render an image",
            "Render a PNG image filled with a colour (max 512x512) and return it as an image block.",
            vec![
                Param::new("width", Integer, "Width in pixels (1-512)").default(json!(16)),
                Param::new("height", Integer, "Height in pixels (1-512)").default(json!(16)),
                Param::new(
                    "color",
                    String,
                    "Fill colour: #rgb, #rrggbb or a simple name",
                )
                .default(json!("#3366ff")),
            ],
            None,
            PURE,
        ),
        tool(
            "make_sound",
            ToolKind::MakeSound,
            "Make a sound",
            "Generate a sine tone as a WAV file (16-bit mono 8 kHz, max 5000 ms) \
             and return it as an audio block.",
            vec![
                Param::new("duration_ms", Integer, "Length in milliseconds (max 5000)")
                    .default(json!(200)),
                Param::new("frequency", Number, "Tone frequency in Hz (20-4000)")
                    .default(json!(440)),
            ],
            None,
            PURE,
        ),
        tool(
            "link_resource",
            ToolKind::LinkResource,
            "Link a resource",
            "Return a resource_link block pointing at demo://readme.",
            vec![],
            None,
            PURE,
        ),
        tool(
            "embed_resource",
            ToolKind::EmbedResource,
            "Embed resources",
            "Return two embedded resource blocks: the demo README as text and the demo logo as a blob.",
            vec![],
            None,
            PURE,
        ),
        tool(
            "slow_task",
            ToolKind::SlowTask,
            "Slow task",
            "Work for `steps` steps of `delay_ms` each, reporting progress when the request \
             has a progressToken. Can be cancelled with notifications/cancelled.",
            vec![
                Param::new("steps", Integer, "Number of steps (max 1000)").default(json!(5)),
                Param::new(
                    "delay_ms",
                    Integer,
                    "Delay per step in milliseconds (max 10000)",
                )
                .default(json!(200)),
            ],
            None,
            PURE,
        ),
        tool(
            "fail",
            ToolKind::Fail,
            "Fail on purpose",
            "Always fails with a tool-level error (isError: true) explaining why.",
            vec![
                Param::new("reason", String, "Why the tool should fail")
                    .default(json!("something went wrong")),
            ],
            None,
            PURE,
        ),
        tool(
            "log_messages",
            ToolKind::LogMessages,
            "Send log messages",
            "Send notifications/message at levels debug, info, warning and error \
             (subject to the client's log level).",
            vec![],
            None,
            PURE,
        ),
        tool(
            "everything_mixed",
            ToolKind::EverythingMixed,
            "One of everything",
            "Return one content block of every type: text, image, audio, resource_link and resource.",
            vec![],
            None,
            PURE,
        ),
    ];
    for i in 1..=extra {
        tools.push(tool(
            &format!("tool_{i:04}"),
            ToolKind::Generated,
            &format!("Generated tool {i}"),
            &format!("Generated tool #{i} for benchmarks: echoes its `value` argument."),
            vec![
                Param::new("value", ParamType::String, "Any text to echo back").default(json!("")),
            ],
            None,
            PURE,
        ));
    }
    tools
}

/// Index of tools by name.
pub fn tool_index(tools: &[ToolDef]) -> HashMap<String, usize> {
    tools
        .iter()
        .enumerate()
        .map(|(i, t)| (t.name.clone(), i))
        .collect()
}

/// Check `arguments` against a tool's parameters and fill in defaults.
/// The error message names the offending argument.
pub fn validate_args(
    tool: &ToolDef,
    arguments: Option<&Value>,
) -> Result<Map<String, Value>, String> {
    let args = match arguments {
        None | Some(Value::Null) => Map::new(),
        Some(Value::Object(m)) => m.clone(),
        Some(other) => {
            return Err(format!(
                "Invalid arguments for tool '{}': arguments must be an object, got {}",
                tool.name,
                type_name(other)
            ));
        }
    };
    let mut out = args.clone();
    for p in &tool.params {
        match args.get(p.name) {
            None | Some(Value::Null) => {
                if p.required {
                    return Err(format!(
                        "Invalid arguments for tool '{}': missing required argument '{}'",
                        tool.name, p.name
                    ));
                }
                if let Some(d) = &p.default {
                    out.insert(p.name.into(), d.clone());
                } else {
                    out.remove(p.name);
                }
            }
            Some(v) => {
                let ok = match p.ty {
                    ParamType::String => v.is_string(),
                    ParamType::Number => v.is_number(),
                    ParamType::Integer => as_integer(v).is_some(),
                };
                if !ok {
                    return Err(format!(
                        "Invalid arguments for tool '{}': argument '{}' must be {} {}, got {}",
                        tool.name,
                        p.name,
                        if p.ty == ParamType::Integer {
                            "an"
                        } else {
                            "a"
                        },
                        p.ty.json_name(),
                        type_name(v)
                    ));
                }
                if let (Some(choices), Some(s)) = (p.choices, v.as_str())
                    && !choices.contains(&s)
                {
                    return Err(format!(
                        "Invalid arguments for tool '{}': argument '{}' must be one of {}, got {:?}",
                        tool.name,
                        p.name,
                        choices.join(", "),
                        s
                    ));
                }
                if p.ty == ParamType::Integer {
                    out.insert(p.name.into(), json!(as_integer(v)));
                }
            }
        }
    }
    Ok(out)
}

fn as_integer(v: &Value) -> Option<i64> {
    if let Some(i) = v.as_i64() {
        return Some(i);
    }
    if v.is_u64() {
        return Some(i64::MAX);
    }
    let f = v.as_f64()?;
    (f.fract() == 0.0 && f.is_finite() && f.abs() < 9.0e15).then_some(f as i64)
}

fn type_name(v: &Value) -> &'static str {
    match v {
        Value::Null => "null",
        Value::Bool(_) => "boolean",
        Value::Number(n) if n.is_f64() => "number",
        Value::Number(_) => "integer",
        Value::String(_) => "string",
        Value::Array(_) => "array",
        Value::Object(_) => "object",
    }
}

pub fn int_arg(args: &Map<String, Value>, name: &str) -> i64 {
    args.get(name).and_then(Value::as_i64).unwrap_or(0)
}

pub fn str_arg<'a>(args: &'a Map<String, Value>, name: &str) -> &'a str {
    args.get(name).and_then(Value::as_str).unwrap_or("")
}

pub fn num_arg(args: &Map<String, Value>, name: &str) -> f64 {
    args.get(name).and_then(Value::as_f64).unwrap_or(0.0)
}

// --- tool result helpers ----------------------------------------------------

pub fn text_block(text: impl Into<String>) -> Value {
    json!({"type": "text", "text": text.into()})
}

pub fn tool_result(content: Vec<Value>) -> Map<String, Value> {
    let mut m = Map::new();
    m.insert("content".into(), Value::Array(content));
    m.insert("isError".into(), json!(false));
    m
}

pub fn tool_error(message: impl Into<String>) -> Map<String, Value> {
    let mut m = Map::new();
    m.insert("content".into(), json!([text_block(message)]));
    m.insert("isError".into(), json!(true));
    m
}

pub fn add(args: &Map<String, Value>) -> Map<String, Value> {
    let (a, b) = (&args["a"], &args["b"]);
    let sum = match (a.as_i64(), b.as_i64()) {
        (Some(x), Some(y)) if x.checked_add(y).is_some() => json!(x + y),
        _ => json!(num_arg(args, "a") + num_arg(args, "b")),
    };
    let mut m = tool_result(vec![text_block(sum.to_string())]);
    m.insert("structuredContent".into(), json!({"sum": sum}));
    m
}

pub fn weather(args: &Map<String, Value>) -> Map<String, Value> {
    let city = str_arg(args, "city");
    let units = str_arg(args, "units");
    // FNV-1a over the lower-cased name: deterministic, different per city.
    let mut h: u64 = 0xcbf2_9ce4_8422_2325;
    for b in city.to_lowercase().bytes() {
        h ^= u64::from(b);
        h = h.wrapping_mul(0x0100_0000_01b3);
    }
    let celsius = -3.0 + (h % 350) as f64 / 10.0;
    let temperature = if units == "imperial" {
        (celsius * 9.0 / 5.0 + 32.0) * 10.0
    } else {
        celsius * 10.0
    }
    .round()
        / 10.0;
    let conditions = if celsius < 0.0 {
        "snow"
    } else {
        CONDITIONS[((h >> 20) % CONDITIONS.len() as u64) as usize]
    };
    let structured = json!({
        "city": city,
        "temperature": temperature,
        "units": units,
        "conditions": conditions,
    });
    let text = serde_json::to_string_pretty(&structured).unwrap_or_default();
    let mut m = tool_result(vec![text_block(text)]);
    m.insert("structuredContent".into(), structured);
    m
}

pub fn image_block(png: &[u8]) -> Value {
    json!({"type": "image", "data": media::base64(png), "mimeType": "image/png"})
}

pub fn audio_block(wav: &[u8]) -> Value {
    json!({"type": "audio", "data": media::base64(wav), "mimeType": "audio/wav"})
}

pub fn render_image(args: &Map<String, Value>) -> Map<String, Value> {
    let Some(color) = media::parse_color(str_arg(args, "color")) else {
        return tool_error(format!(
            "Invalid arguments for tool 'render_image': argument 'color' must be a colour \
             like #3366ff, #36f or a simple name, got {:?}",
            str_arg(args, "color")
        ));
    };
    let side = |name| int_arg(args, name).clamp(1, i64::from(media::MAX_IMAGE_SIDE)) as u32;
    let png = media::render_swatch(side("width"), side("height"), color);
    tool_result(vec![image_block(&png)])
}

pub fn make_sound(args: &Map<String, Value>) -> Map<String, Value> {
    let ms = int_arg(args, "duration_ms").clamp(1, i64::from(media::MAX_SOUND_MS)) as u32;
    let freq = num_arg(args, "frequency").clamp(20.0, 4000.0);
    tool_result(vec![audio_block(&media::sine_wav(ms, freq))])
}

pub fn resource_link_block() -> Value {
    json!({
        "type": "resource_link",
        "uri": README_URI,
        "name": "readme",
        "title": "Demo server README",
        "description": "What the mcpdeck demo server offers (read it with resources/read).",
        "mimeType": "text/markdown",
    })
}

pub fn readme_contents() -> Value {
    json!({"uri": README_URI, "mimeType": "text/markdown", "text": README_TEXT})
}

pub fn logo_contents() -> Value {
    json!({"uri": LOGO_URI, "mimeType": "image/png", "blob": media::base64(&media::logo_png())})
}

pub fn embed_resource() -> Map<String, Value> {
    tool_result(vec![
        json!({"type": "resource", "resource": readme_contents()}),
        json!({"type": "resource", "resource": logo_contents()}),
    ])
}

pub fn everything_mixed() -> Map<String, Value> {
    tool_result(vec![
        text_block("One block of every content type: text, image, audio, resource_link, resource."),
        image_block(&media::render_swatch(16, 16, [0x33, 0x66, 0xff])),
        audio_block(&media::sine_wav(250, 440.0)),
        resource_link_block(),
        json!({"type": "resource", "resource": readme_contents()}),
    ])
}

// ---------------------------------------------------------------------------
// Resources
// ---------------------------------------------------------------------------

pub fn resources() -> Vec<Value> {
    vec![
        json!({
            "uri": README_URI,
            "name": "readme",
            "title": "Demo server README",
            "description": "A short README about the demo server.",
            "mimeType": "text/markdown",
            "size": README_TEXT.len(),
        }),
        json!({
            "uri": LOGO_URI,
            "name": "logo",
            "title": "Demo logo",
            "description": "A 32x32 PNG logo (binary blob).",
            "mimeType": "image/png",
        }),
    ]
}

pub fn resource_templates() -> Vec<Value> {
    vec![json!({
        "uriTemplate": GREETING_TEMPLATE,
        "name": "greeting",
        "title": "Personal greeting",
        "description": "A plain-text greeting for {name}.",
        "mimeType": "text/plain",
    })]
}

/// Contents for `resources/read`, or `None` when the URI is unknown.
pub fn read_resource(uri: &str) -> Option<Vec<Value>> {
    match uri {
        README_URI => Some(vec![readme_contents()]),
        LOGO_URI => Some(vec![logo_contents()]),
        _ => {
            let raw = uri.strip_prefix(GREETING_PREFIX)?;
            let name = crate::text::percent_decode_strict(raw)?;
            if name.is_empty() || name.contains('/') {
                return None;
            }
            Some(vec![json!({
                "uri": uri,
                "mimeType": "text/plain",
                "text": format!("Hello, {name}!"),
            })])
        }
    }
}

// ---------------------------------------------------------------------------
// Prompts and completion
// ---------------------------------------------------------------------------

pub fn prompts() -> Vec<Value> {
    vec![
        json!({
            "name": "review_code",
            "title": "Review code",
            "description": "Ask the model to review a piece of code.",
            "arguments": [
                {"name": "code", "description": "The code to review", "required": true},
                {"name": "language", "description": "Programming language (completion available)", "required": false},
            ],
        }),
        json!({
            "name": "greeting",
            "title": "Greeting",
            "description": "A friendly greeting; takes no arguments.",
            "arguments": [],
        }),
    ]
}

/// Result of `prompts/get`, or a JSON-RPC invalid-params message.
pub fn get_prompt(name: &str, arguments: Option<&Value>) -> Result<Map<String, Value>, String> {
    let args = match arguments {
        None | Some(Value::Null) => Map::new(),
        Some(Value::Object(m)) => m.clone(),
        Some(_) => return Err("prompt arguments must be an object of strings".into()),
    };
    let arg = |key: &str| -> Result<Option<String>, String> {
        match args.get(key) {
            None | Some(Value::Null) => Ok(None),
            Some(Value::String(s)) => Ok(Some(s.clone())),
            Some(_) => Err(format!("prompt argument '{key}' must be a string")),
        }
    };
    let (description, text) = match name {
        "review_code" => {
            let code = arg("code")?.ok_or_else(|| {
                "Missing required argument 'code' for prompt 'review_code'".to_string()
            })?;
            let language = arg("language")?.filter(|l| !l.trim().is_empty());
            let what = language.as_deref().unwrap_or("the following");
            let fence = language.as_deref().unwrap_or("");
            (
                "Code review request",
                format!(
                    "Please review {what} code. Point out bugs, unclear names and missing tests, \
                     and suggest concrete improvements.\n\n```{fence}\n{code}\n```"
                ),
            )
        }
        "greeting" => (
            "A friendly greeting",
            "Hello! Please greet the user warmly and explain in two sentences what the \
             mcpdeck demo server can do."
                .to_string(),
        ),
        other => return Err(format!("Unknown prompt: {other}")),
    };
    let mut m = Map::new();
    m.insert("description".into(), json!(description));
    m.insert(
        "messages".into(),
        json!([{"role": "user", "content": {"type": "text", "text": text}}]),
    );
    Ok(m)
}

/// Candidate values for `completion/complete`; `Err` for an unknown reference.
pub fn complete(
    reference: &Value,
    argument: &str,
    value: &str,
    prompts_on: bool,
    resources_on: bool,
) -> Result<Vec<&'static str>, String> {
    let kind = reference.get("type").and_then(Value::as_str).unwrap_or("");
    let candidates: &[&str] = match kind {
        "ref/prompt" if prompts_on => {
            let name = reference.get("name").and_then(Value::as_str).unwrap_or("");
            match name {
                "review_code" if argument == "language" => LANGUAGES,
                "review_code" | "greeting" => &[],
                other => return Err(format!("Unknown prompt: {other}")),
            }
        }
        "ref/resource" if resources_on => {
            let uri = reference.get("uri").and_then(Value::as_str).unwrap_or("");
            match uri {
                GREETING_TEMPLATE if argument == "name" => GREETING_NAMES,
                GREETING_TEMPLATE | README_URI | LOGO_URI => &[],
                other => return Err(format!("Unknown resource template: {other}")),
            }
        }
        other => return Err(format!("Unsupported completion reference type: {other:?}")),
    };
    let prefix = value.to_lowercase();
    Ok(candidates
        .iter()
        .copied()
        .filter(|c| c.starts_with(&prefix))
        .collect())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn validation_names_the_argument() {
        let tools = build_tools(0);
        let add = tools.iter().find(|t| t.name == "add").unwrap();
        let e = validate_args(add, Some(&json!({"a": 1}))).unwrap_err();
        assert!(e.contains("'b'"), "{e}");
        let e = validate_args(add, Some(&json!({"a": "1", "b": 2}))).unwrap_err();
        assert!(e.contains("'a'") && e.contains("number"), "{e}");
        assert!(validate_args(add, Some(&json!({"a": 1.5, "b": 2}))).is_ok());

        let img = tools.iter().find(|t| t.name == "render_image").unwrap();
        let ok = validate_args(img, Some(&json!({"width": 4.0}))).unwrap();
        assert_eq!(ok["width"], json!(4));
        assert_eq!(ok["height"], json!(16));
        assert!(validate_args(img, Some(&json!({"width": 4.5}))).is_err());

        let w = tools.iter().find(|t| t.name == "get_weather").unwrap();
        let e = validate_args(w, Some(&json!({"city": "X", "units": "kelvin"}))).unwrap_err();
        assert!(e.contains("'units'"), "{e}");
    }

    #[test]
    fn greeting_template() {
        let c = read_resource("demo://greeting/Ada%20Lovelace").unwrap();
        assert_eq!(c[0]["text"], "Hello, Ada Lovelace!");
        assert!(read_resource("demo://greeting/").is_none());
        assert!(read_resource("demo://nope").is_none());
    }

    #[test]
    fn completion_by_prefix() {
        let r = json!({"type": "ref/prompt", "name": "review_code"});
        assert_eq!(
            complete(&r, "language", "Py", true, true).unwrap(),
            vec!["python"]
        );
        assert_eq!(complete(&r, "language", "", true, true).unwrap().len(), 4);
        assert!(complete(&r, "language", "", false, true).is_err());
    }
}
