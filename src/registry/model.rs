//! The registry's entries as mcpdeck reads them: a `ServerResponse`
//! (`{server: ServerDetail, _meta}`), leniently (camelCase, and the older
//! snake_case names), every string kept as sent (shown through the
//! sanitizer).

use serde_json::{Map, Value, json};

/// `_meta` key of the official registry's own data.
pub const OFFICIAL: &str = "io.modelcontextprotocol.registry/official";

fn field<'v>(o: &'v Map<String, Value>, camel: &str, snake: &str) -> Option<&'v Value> {
    o.get(camel).or_else(|| o.get(snake))
}

fn text(o: &Map<String, Value>, camel: &str, snake: &str) -> Option<String> {
    field(o, camel, snake)
        .and_then(Value::as_str)
        .map(str::to_string)
}

fn flag(o: &Map<String, Value>, camel: &str, snake: &str) -> bool {
    field(o, camel, snake).and_then(Value::as_bool) == Some(true)
}

fn objects<'v>(o: &'v Map<String, Value>, camel: &str, snake: &str) -> Vec<&'v Map<String, Value>> {
    field(o, camel, snake)
        .and_then(Value::as_array)
        .map(|a| a.iter().filter_map(Value::as_object).collect())
        .unwrap_or_default()
}

/// An input: an environment variable, a header, an argument's value or a
/// `{variable}` of a template.
#[derive(Debug, Clone, PartialEq, Default)]
pub struct Input {
    /// The variable's, header's or argument's name (for a positional
    /// argument: its `valueHint`, else `argument N`).
    pub name: String,
    pub description: Option<String>,
    pub required: bool,
    pub secret: bool,
    pub default: Option<String>,
    pub choices: Vec<String>,
    pub format: Option<String>,
    /// A fixed value (may hold `{variables}`).
    pub value: Option<String>,
    /// The `{variables}` of `value`.
    pub variables: Vec<Input>,
}

impl Input {
    fn read(o: &Map<String, Value>, name: String) -> Input {
        let variables = o
            .get("variables")
            .and_then(Value::as_object)
            .map(|vars| {
                vars.iter()
                    .filter_map(|(k, v)| v.as_object().map(|v| Input::read(v, k.clone())))
                    .collect()
            })
            .unwrap_or_default();
        Input {
            name,
            description: text(o, "description", "description"),
            required: flag(o, "isRequired", "is_required"),
            secret: flag(o, "isSecret", "is_secret"),
            default: field(o, "default", "default").and_then(scalar),
            choices: field(o, "choices", "choices")
                .and_then(Value::as_array)
                .map(|a| a.iter().filter_map(scalar).collect())
                .unwrap_or_default(),
            format: text(o, "format", "format"),
            value: field(o, "value", "value").and_then(scalar),
            variables,
        }
    }

    fn to_json(&self) -> Value {
        json!({
            "name": self.name,
            "description": self.description,
            "isRequired": self.required,
            "isSecret": self.secret,
            "default": self.default,
            "choices": self.choices,
            "format": self.format,
            "value": self.value,
            "variables": self.variables.iter().map(Input::to_json).collect::<Vec<_>>(),
        })
    }
}

/// A string, number or boolean as text.
fn scalar(v: &Value) -> Option<String> {
    match v {
        Value::String(s) => Some(s.clone()),
        Value::Number(n) => Some(n.to_string()),
        Value::Bool(b) => Some(b.to_string()),
        _ => None,
    }
}

/// A runtime or package argument.
#[derive(Debug, Clone, PartialEq)]
pub struct Arg {
    /// `--name` of a named argument; `None` for a positional one.
    pub flag: Option<String>,
    pub input: Input,
    /// `isRepeated`.
    pub repeated: bool,
}

/// A package: how to run the server locally.
#[derive(Debug, Clone, PartialEq)]
pub struct Package {
    /// npm, pypi, oci, nuget, mcpb.
    pub registry_type: String,
    pub identifier: String,
    pub version: Option<String>,
    pub runtime_hint: Option<String>,
    /// `transport.type`: stdio (else streamable-http or sse, with a URL).
    pub transport: String,
    pub transport_url: Option<String>,
    pub runtime_args: Vec<Arg>,
    pub package_args: Vec<Arg>,
    pub env: Vec<Input>,
    pub file_sha256: Option<String>,
    pub registry_base_url: Option<String>,
}

/// A remote: the server at a URL.
#[derive(Debug, Clone, PartialEq)]
pub struct Remote {
    /// streamable-http or sse.
    pub kind: String,
    /// May hold `{variables}`.
    pub url: String,
    pub variables: Vec<Input>,
    pub headers: Vec<Input>,
}

/// One registry entry (one version of one server).
#[derive(Debug, Clone, PartialEq)]
pub struct Entry {
    pub name: String,
    pub title: Option<String>,
    pub description: Option<String>,
    pub version: String,
    /// active, deprecated or deleted.
    pub status: String,
    pub status_message: Option<String>,
    pub published_at: Option<String>,
    pub updated_at: Option<String>,
    pub is_latest: bool,
    pub repository: Option<String>,
    pub website: Option<String>,
    pub packages: Vec<Package>,
    pub remotes: Vec<Remote>,
    /// The ServerResponse as received.
    pub raw: Value,
}

fn args(list: Vec<&Map<String, Value>>) -> Vec<Arg> {
    list.into_iter()
        .enumerate()
        .map(|(i, a)| {
            let named = a.get("type").and_then(Value::as_str) == Some("named");
            let flag_name = if named { text(a, "name", "name") } else { None };
            let name = flag_name
                .clone()
                .map(|n| n.trim_start_matches('-').to_string())
                .or_else(|| text(a, "valueHint", "value_hint"))
                .unwrap_or_else(|| format!("argument {}", i + 1));
            Arg {
                flag: flag_name,
                input: Input::read(a, name),
                repeated: flag(a, "isRepeated", "is_repeated"),
            }
        })
        .collect()
}

impl Entry {
    /// A `ServerResponse` (`{server, _meta}`), or a bare `ServerDetail`.
    pub fn from_response(v: &Value) -> Option<Entry> {
        let server = v.get("server").unwrap_or(v).as_object()?;
        let official = v
            .get("_meta")
            .and_then(|m| m.get(OFFICIAL))
            .and_then(Value::as_object);
        let o = |k: &str| official.and_then(|m| m.get(k));
        let name = text(server, "name", "name")?;
        let packages = objects(server, "packages", "packages")
            .into_iter()
            .map(|p| {
                let transport = p.get("transport").and_then(Value::as_object);
                Package {
                    registry_type: text(p, "registryType", "registry_type")
                        .unwrap_or_else(|| "npm".into()),
                    identifier: text(p, "identifier", "identifier")
                        .or_else(|| text(p, "name", "name"))
                        .unwrap_or_default(),
                    version: text(p, "version", "version").filter(|v| !v.is_empty()),
                    runtime_hint: text(p, "runtimeHint", "runtime_hint"),
                    transport: transport
                        .and_then(|t| text(t, "type", "type"))
                        .unwrap_or_else(|| "stdio".into()),
                    transport_url: transport.and_then(|t| text(t, "url", "url")),
                    runtime_args: args(objects(p, "runtimeArguments", "runtime_arguments")),
                    package_args: args(objects(p, "packageArguments", "package_arguments")),
                    env: objects(p, "environmentVariables", "environment_variables")
                        .into_iter()
                        .filter_map(|e| text(e, "name", "name").map(|n| Input::read(e, n)))
                        .collect(),
                    file_sha256: text(p, "fileSha256", "file_sha256"),
                    registry_base_url: text(p, "registryBaseUrl", "registry_base_url"),
                }
            })
            .collect();
        let remotes = objects(server, "remotes", "remotes")
            .into_iter()
            .map(|r| Remote {
                kind: text(r, "type", "transport_type").unwrap_or_else(|| "streamable-http".into()),
                url: text(r, "url", "url").unwrap_or_default(),
                variables: r
                    .get("variables")
                    .and_then(Value::as_object)
                    .map(|vars| {
                        vars.iter()
                            .filter_map(|(k, v)| v.as_object().map(|v| Input::read(v, k.clone())))
                            .collect()
                    })
                    .unwrap_or_default(),
                headers: objects(r, "headers", "headers")
                    .into_iter()
                    .filter_map(|h| text(h, "name", "name").map(|n| Input::read(h, n)))
                    .collect(),
            })
            .collect();
        let repository = server
            .get("repository")
            .and_then(|r| r.get("url"))
            .and_then(Value::as_str)
            .map(str::to_string);
        Some(Entry {
            name,
            title: text(server, "title", "title"),
            description: text(server, "description", "description"),
            version: text(server, "version", "version").unwrap_or_default(),
            status: o("status")
                .and_then(Value::as_str)
                .or_else(|| server.get("status").and_then(Value::as_str))
                .unwrap_or("active")
                .to_string(),
            status_message: o("statusMessage")
                .and_then(Value::as_str)
                .map(str::to_string),
            published_at: o("publishedAt").and_then(Value::as_str).map(str::to_string),
            updated_at: o("updatedAt").and_then(Value::as_str).map(str::to_string),
            is_latest: o("isLatest").and_then(Value::as_bool).unwrap_or(true),
            repository,
            website: text(server, "websiteUrl", "website_url"),
            packages,
            remotes,
            raw: v.clone(),
        })
    }

    /// `registry search --json`'s shape for one entry.
    pub fn summary_json(&self) -> Value {
        json!({
            "name": self.name,
            "title": self.title,
            "description": self.description,
            "version": self.version,
            "status": self.status,
            "statusMessage": self.status_message,
            "packages": self.packages.iter().map(|p| json!({
                "registryType": p.registry_type,
                "identifier": p.identifier,
                "version": p.version,
                "runtimeHint": p.runtime_hint,
                "transport": p.transport,
            })).collect::<Vec<_>>(),
            "remotes": self.remotes.iter().map(|r| json!({"type": r.kind, "url": r.url})).collect::<Vec<_>>(),
            "repository": self.repository,
        })
    }

    /// Every input, for `registry show --json`.
    pub fn inputs_json(&self) -> Value {
        json!({
            "packages": self.packages.iter().map(|p| json!({
                "env": p.env.iter().map(Input::to_json).collect::<Vec<_>>(),
                "runtimeArguments": p.runtime_args.iter().map(|a| a.input.to_json()).collect::<Vec<_>>(),
                "packageArguments": p.package_args.iter().map(|a| a.input.to_json()).collect::<Vec<_>>(),
            })).collect::<Vec<_>>(),
            "remotes": self.remotes.iter().map(|r| json!({
                "variables": r.variables.iter().map(Input::to_json).collect::<Vec<_>>(),
                "headers": r.headers.iter().map(Input::to_json).collect::<Vec<_>>(),
            })).collect::<Vec<_>>(),
        })
    }

    /// The entry's own text, for the lint rules: title, description,
    /// status message, and every input's description.
    pub fn texts(&self) -> Vec<(String, String)> {
        let mut out = Vec::new();
        let mut push = |what: String, t: &Option<String>| {
            if let Some(t) = t {
                out.push((what, t.clone()));
            }
        };
        push("title".into(), &self.title);
        push("description".into(), &self.description);
        push("statusMessage".into(), &self.status_message);
        for p in &self.packages {
            for i in p
                .env
                .iter()
                .chain(p.runtime_args.iter().map(|a| &a.input))
                .chain(p.package_args.iter().map(|a| &a.input))
            {
                push(format!("input {}", i.name), &i.description);
            }
        }
        for r in &self.remotes {
            for i in r.headers.iter().chain(&r.variables) {
                push(format!("input {}", i.name), &i.description);
            }
        }
        out
    }
}
