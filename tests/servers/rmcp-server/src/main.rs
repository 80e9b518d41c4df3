//! Tiny MCP test server on rmcp 3.9.0 (the official Rust SDK).
//!
//! Usage: `rmcp-test-server` (stdio) or `rmcp-test-server --http PORT`
//! (streamable HTTP on http://127.0.0.1:PORT/mcp).
//! Tools: `echo {text}` -> "echo: <text>", `add {a, b}` -> the sum as text,
//! `fail` -> a result with isError = true.
use std::sync::Arc;

use rmcp::{
    ErrorData, ServerHandler, ServiceExt,
    handler::server::wrapper::Parameters,
    model::{CallToolResult, ContentBlock, Implementation, ServerCapabilities, ServerConfig},
    tool, tool_handler, tool_router,
    transport::streamable_http_server::{
        StreamableHttpServerConfig, StreamableHttpService, session::local::LocalSessionManager,
    },
};
use schemars::JsonSchema;
use serde::Deserialize;

#[derive(Deserialize, JsonSchema)]
struct EchoArgs {
    /// Text to echo back.
    text: String,
}

#[derive(Deserialize, JsonSchema)]
struct AddArgs {
    /// First addend.
    a: i64,
    /// Second addend.
    b: i64,
}

#[derive(Clone)]
struct TestServer;

#[tool_router]
impl TestServer {
    #[tool(description = "Echo the text back, prefixed with 'echo: '.")]
    async fn echo(
        &self,
        Parameters(args): Parameters<EchoArgs>,
    ) -> Result<CallToolResult, ErrorData> {
        Ok(CallToolResult::success(vec![ContentBlock::text(format!(
            "echo: {}",
            args.text
        ))]))
    }

    #[tool(description = "Add two integers; the sum is returned as text.")]
    async fn add(
        &self,
        Parameters(args): Parameters<AddArgs>,
    ) -> Result<CallToolResult, ErrorData> {
        Ok(CallToolResult::success(vec![ContentBlock::text(
            (args.a + args.b).to_string(),
        )]))
    }

    #[tool(description = "Always fails: returns a result with isError = true.")]
    async fn fail(&self) -> Result<CallToolResult, ErrorData> {
        Ok(CallToolResult::error(vec![ContentBlock::text(
            "fail: this tool always fails",
        )]))
    }
}

#[tool_handler]
impl ServerHandler for TestServer {
    fn get_info(&self) -> ServerConfig {
        ServerConfig::new(ServerCapabilities::builder().enable_tools().build())
            .with_server_info(Implementation::new("rmcp-test", "0.1.0"))
            .with_instructions("rmcp test server")
    }
}

async fn serve_http(port: u16) -> Result<(), Box<dyn std::error::Error>> {
    let service = StreamableHttpService::new(
        || Ok(TestServer),
        Arc::new(LocalSessionManager::default()),
        StreamableHttpServerConfig::default(),
    );
    let listener = tokio::net::TcpListener::bind(("127.0.0.1", port)).await?;
    eprintln!("rmcp-test listening on http://127.0.0.1:{port}/mcp");
    loop {
        let (stream, _) = listener.accept().await?;
        let service = hyper_util::service::TowerToHyperService::new(service.clone());
        tokio::spawn(async move {
            let io = hyper_util::rt::TokioIo::new(stream);
            let conn = hyper::server::conn::http1::Builder::new().serve_connection(io, service);
            if let Err(e) = conn.await {
                eprintln!("http connection error: {e}");
            }
        });
    }
}

#[tokio::main]
async fn main() -> Result<(), Box<dyn std::error::Error>> {
    let args: Vec<String> = std::env::args().skip(1).collect();
    match args.as_slice() {
        [] => {
            let running = TestServer.serve(rmcp::transport::stdio()).await?;
            running.waiting().await?;
        }
        [flag, port] if flag == "--http" => serve_http(port.parse()?).await?,
        _ => {
            eprintln!("usage: rmcp-test-server [--http PORT]");
            std::process::exit(2);
        }
    }
    Ok(())
}
