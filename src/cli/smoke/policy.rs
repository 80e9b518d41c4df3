//! Which tools a command that calls tools on its own (smoke now, any later
//! load or batch mode) may call, and with whose arguments.
//!
//! By default only tools annotated `readOnlyHint: true`. The MCP spec's
//! defaults make a tool without annotations a write that may destroy
//! (`readOnlyHint` false, `destructiveHint` true), so such a tool is called
//! only with `--calls all`, whatever it is named.

use std::collections::BTreeMap;
use std::io::{BufRead, IsTerminal, Write};
use std::path::Path;

use serde_json::{Map, Value};

use crate::mcp::Tool;
use crate::sanitize;

/// How far a run may go (`--calls`).
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Default, clap::ValueEnum)]
pub enum Calls {
    /// Only tools annotated readOnlyHint: true.
    #[default]
    #[value(name = "read-only", alias = "readonly")]
    ReadOnly,
    /// Also tools annotated readOnlyHint: false and destructiveHint: false.
    Writes,
    /// Every tool: destructive ones and those without annotations too.
    All,
}

impl Calls {
    pub fn flag(self) -> &'static str {
        match self {
            Calls::ReadOnly => "--calls read-only",
            Calls::Writes => "--calls writes",
            Calls::All => "--calls all",
        }
    }
}

/// What a tool's annotations say about its effects, with the spec's
/// defaults for what they leave out.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Effect {
    /// `readOnlyHint: true`.
    ReadOnly,
    /// `readOnlyHint: false` and `destructiveHint: false`: it adds, never
    /// destroys.
    Additive,
    /// `destructiveHint: true`.
    Destructive,
    /// `readOnlyHint: false` and no `destructiveHint`, which defaults to true.
    DestructiveByDefault,
    /// Neither hint: a write that may destroy, by the spec's defaults.
    Unannotated,
}

impl Effect {
    pub fn of(tool: &Tool) -> Effect {
        let hint = |k: &str| {
            tool.annotations
                .as_ref()
                .and_then(|a| a.get(k))
                .and_then(Value::as_bool)
        };
        match (hint("readOnlyHint"), hint("destructiveHint")) {
            (Some(true), _) => Effect::ReadOnly,
            (_, Some(false)) => Effect::Additive,
            (_, Some(true)) => Effect::Destructive,
            (Some(false), None) => Effect::DestructiveByDefault,
            (None, None) => Effect::Unannotated,
        }
    }

    /// The least `--calls` that calls such a tool.
    pub fn needs(self) -> Calls {
        match self {
            Effect::ReadOnly => Calls::ReadOnly,
            Effect::Additive => Calls::Writes,
            _ => Calls::All,
        }
    }

    /// Why a run below [`Effect::needs`] leaves it out.
    pub fn reason(self) -> &'static str {
        match self {
            Effect::ReadOnly => "read-only",
            Effect::Additive => {
                "annotated as a write (readOnlyHint: false, destructiveHint: false): it may change files, repositories or accounts"
            }
            Effect::Destructive => "annotated destructive (destructiveHint: true)",
            Effect::DestructiveByDefault => {
                "annotated readOnlyHint: false without destructiveHint, which defaults to true: it may destroy"
            }
            Effect::Unannotated => {
                "no readOnlyHint/destructiveHint annotations: by the spec's defaults it may write and destroy"
            }
        }
    }
}

/// The choice of tools for one run.
#[derive(Debug, Clone, Default)]
pub struct Selection {
    pub calls: Calls,
    /// `--only`: when not empty, nothing else is called.
    pub only: Vec<String>,
    /// `--skip`.
    pub skip: Vec<String>,
}

/// Why a tool is not called, and the flag that would call it.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Skip {
    pub reason: String,
    pub calls_with: Option<&'static str>,
}

impl Selection {
    /// `None` when `tool` is to be called, else why not.
    pub fn skip(&self, tool: &Tool) -> Option<Skip> {
        if self.skip.contains(&tool.name) {
            return Some(Skip {
                reason: "left out with --skip".into(),
                calls_with: None,
            });
        }
        if !self.only.is_empty() && !self.only.contains(&tool.name) {
            return Some(Skip {
                reason: "not named by --only".into(),
                calls_with: None,
            });
        }
        let effect = Effect::of(tool);
        let needs = effect.needs();
        (needs > self.calls).then(|| Skip {
            reason: format!("{}; {} calls it", effect.reason(), needs.flag()),
            calls_with: Some(needs.flag()),
        })
    }

    /// Names given to `--only` or `--skip` that the server does not list.
    pub fn unknown<'a>(&'a self, tools: &[Tool]) -> Vec<&'a str> {
        self.only
            .iter()
            .chain(&self.skip)
            .filter(|n| !tools.iter().any(|t| t.name == **n))
            .map(String::as_str)
            .collect()
    }
}

/// With a person at a terminal (stdin and stderr both terminals), and a
/// run left at the default: list the tools annotated as additive writes
/// and ask once whether to call them too. The answer defaults to no.
pub fn ask_for_writes(tools: &[&Tool]) -> bool {
    if tools.is_empty() || !std::io::stdin().is_terminal() || !std::io::stderr().is_terminal() {
        return false;
    }
    let names: Vec<String> = tools.iter().map(|t| sanitize::one_line(&t.name)).collect();
    let mut err = std::io::stderr().lock();
    let _ = writeln!(
        err,
        "{} tool(s) are annotated as writes (readOnlyHint: false, destructiveHint: false) and may change files, repositories or accounts:\n  {}",
        names.len(),
        names.join(", ")
    );
    let _ = write!(err, "Call them too? [y/N] ");
    let _ = err.flush();
    drop(err);
    let mut line = String::new();
    if std::io::stdin().lock().read_line(&mut line).is_err() {
        return false;
    }
    matches!(line.trim().to_ascii_lowercase().as_str(), "y" | "yes")
}

/// The caller's own arguments, per tool: `--args-file` first, then each
/// `--args TOOL=JSON` over it (key by key).
pub fn given_arguments(
    file: Option<&Path>,
    args: &[String],
) -> Result<BTreeMap<String, Map<String, Value>>, String> {
    let mut out: BTreeMap<String, Map<String, Value>> = BTreeMap::new();
    if let Some(path) = file {
        out = read_args_file(path)?;
    }
    for a in args {
        let Some((tool, json)) = a.split_once('=') else {
            return Err(format!(
                "--args {a:?}: write TOOL=JSON, e.g. --args 'get_weather={{\"city\":\"Paris\"}}'"
            ));
        };
        let value: Value = serde_json::from_str(json)
            .map_err(|e| format!("--args {tool}=…: the JSON does not parse: {e}"))?;
        let Value::Object(map) = value else {
            return Err(format!(
                "--args {tool}=…: give a JSON object of arguments, e.g. {{\"city\":\"Paris\"}}"
            ));
        };
        out.entry(tool.to_string()).or_default().extend(map);
    }
    Ok(out)
}

/// An arguments file: TOML (`[tool]` tables) or JSON (`{"tool": {…}}`),
/// told apart by the extension, else by trying JSON then TOML.
fn read_args_file(path: &Path) -> Result<BTreeMap<String, Map<String, Value>>, String> {
    let shown = path.display();
    let text = std::fs::read_to_string(path)
        .map_err(|e| format!("--args-file {shown}: cannot read it: {e}"))?;
    let ext = path
        .extension()
        .and_then(|e| e.to_str())
        .map(str::to_ascii_lowercase);
    let value: Value = match ext.as_deref() {
        Some("toml") => toml_value(&text).map_err(|e| format!("--args-file {shown}: {e}"))?,
        Some("json") => serde_json::from_str(&text)
            .map_err(|e| format!("--args-file {shown}: not valid JSON: {e}"))?,
        _ => match serde_json::from_str(&text) {
            Ok(v) => v,
            Err(json_err) => toml_value(&text).map_err(|toml_err| {
                format!("--args-file {shown}: neither JSON ({json_err}) nor TOML ({toml_err})")
            })?,
        },
    };
    let Value::Object(tools) = value else {
        return Err(format!(
            "--args-file {shown}: the file must hold one table per tool, e.g. [get_weather] city = \"Paris\""
        ));
    };
    let mut out = BTreeMap::new();
    for (tool, args) in tools {
        let Value::Object(args) = args else {
            return Err(format!(
                "--args-file {shown}: `{tool}` must be a table of arguments, not {}",
                crate::mcp::types::schema_type(&args)
            ));
        };
        out.insert(tool, args);
    }
    Ok(out)
}

fn toml_value(text: &str) -> Result<Value, String> {
    let table: toml::Table = toml::from_str(text).map_err(|e| {
        let msg = e.message().to_string();
        match e.span().map(|s| line_col(text, s.start)) {
            Some((line, col)) => format!("not valid TOML at line {line}, column {col}: {msg}"),
            None => format!("not valid TOML: {msg}"),
        }
    })?;
    serde_json::to_value(table).map_err(|e| format!("cannot use the TOML values: {e}"))
}

fn line_col(text: &str, offset: usize) -> (usize, usize) {
    let before = &text[..offset.min(text.len())];
    let line = before.matches('\n').count() + 1;
    let col = before.rsplit('\n').next().map_or(0, |l| l.chars().count()) + 1;
    (line, col)
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    fn tool(annotations: Option<Value>) -> Tool {
        let mut v = json!({"name": "t", "inputSchema": {"type": "object"}});
        if let Some(a) = annotations {
            v["annotations"] = a;
        }
        Tool::parse(&v, &mut Vec::new()).unwrap()
    }

    #[test]
    fn effects_follow_the_spec_defaults() {
        let cases = [
            (None, Effect::Unannotated),
            (Some(json!({"title": "T"})), Effect::Unannotated),
            (Some(json!({"readOnlyHint": true})), Effect::ReadOnly),
            (
                Some(json!({"readOnlyHint": true, "destructiveHint": true})),
                Effect::ReadOnly,
            ),
            (
                Some(json!({"readOnlyHint": false, "destructiveHint": false})),
                Effect::Additive,
            ),
            (Some(json!({"destructiveHint": false})), Effect::Additive),
            (
                Some(json!({"readOnlyHint": false})),
                Effect::DestructiveByDefault,
            ),
            (Some(json!({"destructiveHint": true})), Effect::Destructive),
        ];
        for (a, want) in cases {
            assert_eq!(Effect::of(&tool(a.clone())), want, "{a:?}");
        }
    }

    #[test]
    fn the_default_calls_only_read_only_tools() {
        let default = Selection::default();
        let writes = Selection {
            calls: Calls::Writes,
            ..Selection::default()
        };
        let all = Selection {
            calls: Calls::All,
            ..Selection::default()
        };
        let ro = tool(Some(json!({"readOnlyHint": true})));
        let add = tool(Some(
            json!({"readOnlyHint": false, "destructiveHint": false}),
        ));
        let bare = tool(None);
        assert_eq!(default.skip(&ro), None);
        let s = default.skip(&add).unwrap();
        assert_eq!(s.calls_with, Some("--calls writes"));
        assert!(s.reason.contains("--calls writes calls it"), "{}", s.reason);
        assert_eq!(writes.skip(&add), None);
        let s = writes.skip(&bare).unwrap();
        assert_eq!(s.calls_with, Some("--calls all"));
        assert!(s.reason.contains("spec's defaults"), "{}", s.reason);
        assert_eq!(all.skip(&bare), None);
    }

    #[test]
    fn only_and_skip_narrow() {
        let ro = tool(Some(json!({"readOnlyHint": true})));
        let only = Selection {
            only: vec!["other".into()],
            ..Selection::default()
        };
        assert_eq!(only.skip(&ro).unwrap().reason, "not named by --only");
        let skip = Selection {
            calls: Calls::All,
            skip: vec!["t".into()],
            ..Selection::default()
        };
        assert_eq!(skip.skip(&ro).unwrap().reason, "left out with --skip");
        // --only never widens the policy.
        let only_write = Selection {
            only: vec!["t".into()],
            ..Selection::default()
        };
        assert!(only_write.skip(&tool(None)).is_some());
        assert_eq!(only.unknown(&[ro]), ["other"]);
    }

    #[test]
    fn arguments_from_files_and_flags() {
        let dir = tempfile::tempdir().unwrap();
        let toml_path = dir.path().join("args.toml");
        std::fs::write(
            &toml_path,
            "# realistic inputs\n[get_current_time]\ntimezone = \"Europe/Paris\"\n\n[add]\na = 1\nb = 2\n",
        )
        .unwrap();
        let got = given_arguments(
            Some(&toml_path),
            &[
                "add={\"b\": 40}".to_string(),
                "echo={\"message\":\"hi\"}".to_string(),
            ],
        )
        .unwrap();
        assert_eq!(got["get_current_time"]["timezone"], "Europe/Paris");
        assert_eq!(Value::Object(got["add"].clone()), json!({"a": 1, "b": 40}));
        assert_eq!(got["echo"]["message"], "hi");

        let json_path = dir.path().join("args.json");
        std::fs::write(&json_path, r#"{"echo": {"message": "from json"}}"#).unwrap();
        let got = given_arguments(Some(&json_path), &[]).unwrap();
        assert_eq!(got["echo"]["message"], "from json");

        let bad = dir.path().join("bad.toml");
        std::fs::write(&bad, "[echo]\nmessage = \n").unwrap();
        let err = given_arguments(Some(&bad), &[]).unwrap_err();
        assert!(err.contains("bad.toml") && err.contains("line 2"), "{err}");
        let err = given_arguments(None, &["echo=[1]".into()]).unwrap_err();
        assert!(err.contains("JSON object"), "{err}");
        let err = given_arguments(None, &["echo".into()]).unwrap_err();
        assert!(err.contains("TOOL=JSON"), "{err}");
        let flat = dir.path().join("flat.json");
        std::fs::write(&flat, r#"{"echo": "hi"}"#).unwrap();
        let err = given_arguments(Some(&flat), &[]).unwrap_err();
        assert!(err.contains("`echo` must be a table"), "{err}");
    }
}
