//! `mcpdeck --demo` with no command and no terminal: a short headless tour
//! of the built-in demo servers.

use super::TargetArgs;
use super::call::{CallArgs, call_tool};
use super::exit::Outcome;
use super::info::tools;
use super::servers::servers;
use crate::config::Config;

/// `mcpdeck --demo` with no subcommand: a short headless tour.
pub async fn demo_tour(config: &Config, trace: bool) -> Outcome {
    outln!(
        "mcpdeck demo: three built-in demo servers (`mcpdeck demo-server`) in different eras.\n"
    );
    let code = servers(config, false, trace).await?;
    outln!("\n$ mcpdeck --demo tools demo");
    let target = TargetArgs {
        target: Some("demo".into()),
        command: Vec::new(),
    };
    tools(config, &target, false, false, trace).await?;
    for (tool, args) in [
        ("echo", r#"{"message":"hello from mcpdeck"}"#),
        ("get_weather", r#"{"city":"Zürich"}"#),
    ] {
        outln!("\n$ mcpdeck --demo call demo {tool} '{args}'");
        let call = CallArgs {
            tool: tool.into(),
            json_args: Some(args.into()),
            pairs: Vec::new(),
            no_validate: false,
            json: false,
            log_level: None,
        };
        if let Err(f) = call_tool(config, &target, &call, trace).await {
            eprintln!("mcpdeck: {}", f.message);
        }
    }
    outln!(
        "\nTry: mcpdeck --demo info demo-stateless · mcpdeck --demo call demo everything_mixed · add --trace to see every frame"
    );
    Ok(code)
}
