//! The demo server's method handlers: lists (paged), reads, prompts,
//! skills and `tools/call`, the same in every era. The era's dispatch, the
//! framing and the stdin lock stay in `server.rs`.

use super::*;

impl Server {
    pub(super) async fn handle(
        &self,
        method: &str,
        params: Map<String, Value>,
        ctx: Ctx,
    ) -> Result<Map<String, Value>, RpcError> {
        let resources = !self.args.no_resources;
        let prompts = !self.args.no_prompts;
        match method {
            "tools/list" => {
                let (page, next) = self.page("tools", &self.tools, |t| t.json.clone(), &params)?;
                Ok(list_result("tools", page, next))
            }
            "tools/call" => self.call_tool(params, ctx).await,
            "resources/list" if resources => {
                let (page, next) =
                    self.page("resources", &catalog::resources(), Value::clone, &params)?;
                Ok(list_result("resources", page, next))
            }
            "resources/templates/list" if resources => {
                let (page, next) = self.page(
                    "templates",
                    &catalog::resource_templates(),
                    Value::clone,
                    &params,
                )?;
                Ok(list_result("resourceTemplates", page, next))
            }
            "resources/read" if resources => {
                let uri = str_param(&params, "uri").ok_or_else(|| {
                    RpcError::invalid_params("resources/read requires params.uri")
                })?;
                let contents = match &self.skills {
                    Some(skills) if uri.starts_with("skill://") => skills.read(uri),
                    _ => catalog::read_resource(uri),
                };
                match contents {
                    Some(contents) => {
                        let mut r = Map::new();
                        r.insert("contents".into(), Value::Array(contents));
                        Ok(r)
                    }
                    // 2026-07-28 moved "resource not found" from -32002 to -32602.
                    None => Err(RpcError::new(
                        match ctx {
                            Ctx::Legacy => RESOURCE_NOT_FOUND_LEGACY,
                            Ctx::Modern { .. } => INVALID_PARAMS,
                        },
                        "Resource not found",
                    )
                    .with_data(json!({"uri": uri}))),
                }
            }
            "skills/list" => {
                let skills = self.skills_or(method)?;
                let (page, next) = self.page("skills", skills.entries(), Value::clone, &params)?;
                Ok(list_result("skills", page, next))
            }
            "skills/get" => {
                let skills = self.skills_or(method)?;
                let uri = str_param(&params, "uri")
                    .ok_or_else(|| RpcError::invalid_params("skills/get requires params.uri"))?;
                let skill = skills.get(uri).ok_or_else(|| {
                    RpcError::invalid_params(format!("No skill is served at {uri}"))
                        .with_data(json!({"uri": uri}))
                })?;
                let mut r = Map::new();
                r.insert("skill".into(), skill.clone());
                Ok(r)
            }
            "resources/directory/read" => {
                let skills = self.skills_or(method)?;
                let uri = str_param(&params, "uri").ok_or_else(|| {
                    RpcError::invalid_params("resources/directory/read requires params.uri")
                })?;
                let (kind, children) = skills.directory(uri).ok_or_else(|| {
                    RpcError::invalid_params(format!("{uri} is not a directory resource"))
                        .with_data(json!({"uri": uri}))
                })?;
                let (page, next) = self.page(&kind, children, Value::clone, &params)?;
                Ok(list_result("resources", page, next))
            }
            "prompts/list" if prompts => {
                let (page, next) =
                    self.page("prompts", &catalog::prompts(), Value::clone, &params)?;
                Ok(list_result("prompts", page, next))
            }
            "prompts/get" if prompts => {
                let name = str_param(&params, "name")
                    .ok_or_else(|| RpcError::invalid_params("prompts/get requires params.name"))?;
                catalog::get_prompt(name, params.get("arguments")).map_err(RpcError::invalid_params)
            }
            "completion/complete" if prompts || resources => {
                let reference = params.get("ref").filter(|r| r.is_object()).ok_or_else(|| {
                    RpcError::invalid_params("completion/complete requires params.ref")
                })?;
                let argument = params.get("argument");
                let name = argument.and_then(|a| a.get("name")).and_then(Value::as_str);
                let value = argument
                    .and_then(|a| a.get("value"))
                    .and_then(Value::as_str);
                let (Some(name), Some(value)) = (name, value) else {
                    return Err(RpcError::invalid_params(
                        "completion/complete requires params.argument.name and params.argument.value",
                    ));
                };
                let values = catalog::complete(reference, name, value, prompts, resources)
                    .map_err(RpcError::invalid_params)?;
                let mut r = Map::new();
                r.insert(
                    "completion".into(),
                    json!({"values": values, "total": values.len(), "hasMore": false}),
                );
                Ok(r)
            }
            _ => Err(RpcError::method_not_found(method)),
        }
    }

    /// The skills, or Method not found when this server offers none.
    fn skills_or(&self, method: &str) -> Result<&Skills, RpcError> {
        self.skills
            .as_ref()
            .ok_or_else(|| RpcError::method_not_found(method))
    }

    fn page<T>(
        &self,
        kind: &str,
        items: &[T],
        to_json: impl Fn(&T) -> Value,
        params: &Map<String, Value>,
    ) -> Result<(Vec<Value>, Option<String>), RpcError> {
        let invalid = || RpcError::invalid_params("Invalid cursor");
        let start = match params.get("cursor") {
            None | Some(Value::Null) => 0,
            Some(Value::String(c)) => decode_cursor(kind, c).ok_or_else(invalid)?,
            Some(_) => return Err(invalid()),
        };
        if start > items.len() {
            return Err(invalid());
        }
        let size = self.args.page_size.filter(|&n| n > 0).unwrap_or(usize::MAX);
        let end = start.saturating_add(size).min(items.len());
        let page = items[start..end].iter().map(to_json).collect();
        let next = (end < items.len()).then(|| encode_cursor(kind, end));
        Ok((page, next))
    }

    async fn call_tool(
        &self,
        params: Map<String, Value>,
        ctx: Ctx,
    ) -> Result<Map<String, Value>, RpcError> {
        let name = str_param(&params, "name")
            .ok_or_else(|| RpcError::invalid_params("tools/call requires params.name"))?;
        let tool = self
            .tool_index
            .get(name)
            .map(|&i| &self.tools[i])
            .ok_or_else(|| RpcError::invalid_params(format!("Unknown tool: {name}")))?;
        let args = match catalog::validate_args(tool, params.get("arguments")) {
            Ok(a) => a,
            Err(msg) => return Ok(catalog::tool_error(msg)),
        };
        Ok(match tool.kind {
            ToolKind::Echo => catalog::tool_result(vec![catalog::text_block(format!(
                "echo: {}",
                catalog::str_arg(&args, "message")
            ))]),
            ToolKind::Generated => catalog::tool_result(vec![catalog::text_block(format!(
                "{}: {}",
                tool.name,
                catalog::str_arg(&args, "value")
            ))]),
            ToolKind::Add => catalog::add(&args),
            ToolKind::GetWeather => catalog::weather(&args),
            ToolKind::RenderImage => catalog::render_image(&args),
            ToolKind::MakeSound => catalog::make_sound(&args),
            ToolKind::LinkResource => catalog::tool_result(vec![catalog::resource_link_block()]),
            ToolKind::EmbedResource => catalog::embed_resource(),
            ToolKind::EverythingMixed => catalog::everything_mixed(),
            ToolKind::Fail => catalog::tool_error(format!(
                "The tool failed on purpose: {}. (This is a tool-level error: the request \
                 succeeded and isError: true tells the caller the tool did not.)",
                catalog::str_arg(&args, "reason")
            )),
            ToolKind::LogMessages => {
                let mut sent = 0;
                for level in [Level::Debug, Level::Info, Level::Warning, Level::Error] {
                    let text = format!("log_messages: a message at level {}", level.as_str());
                    if self.log(ctx, level, &text) {
                        sent += 1;
                    }
                }
                catalog::tool_result(vec![catalog::text_block(format!(
                    "sent {sent} log messages"
                ))])
            }
            ToolKind::SlowTask => {
                let steps = catalog::int_arg(&args, "steps").clamp(0, 1000);
                let delay = catalog::int_arg(&args, "delay_ms").clamp(0, 10_000) as u64;
                let token = meta(&params)
                    .and_then(|m| m.get("progressToken"))
                    .filter(|t| t.is_string() || t.is_number())
                    .cloned();
                for i in 1..=steps {
                    if delay > 0 {
                        tokio::time::sleep(Duration::from_millis(delay)).await;
                    } else {
                        tokio::task::yield_now().await;
                    }
                    if let Some(token) = &token {
                        self.out.notify(
                            "notifications/progress",
                            json!({
                                "progressToken": token,
                                "progress": i,
                                "total": steps,
                                "message": format!("step {i} of {steps}"),
                            }),
                        );
                    }
                }
                catalog::tool_result(vec![catalog::text_block(format!(
                    "done after {steps} steps"
                ))])
            }
        })
    }
}

fn list_result(key: &str, items: Vec<Value>, next: Option<String>) -> Map<String, Value> {
    let mut r = Map::new();
    r.insert(key.into(), Value::Array(items));
    if let Some(n) = next {
        r.insert("nextCursor".into(), json!(n));
    }
    r
}
