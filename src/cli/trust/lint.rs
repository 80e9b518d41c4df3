//! `mcpdeck lint TARGET [--json]`. (Being written: see issue 14.)

use clap::Args;

use crate::cli::TargetArgs;
use crate::cli::exit::{Exit, Failure, Outcome};
use crate::config::Config;

#[derive(Args, Debug)]
pub struct LintArgs {
    #[command(flatten)]
    pub target: TargetArgs,
    /// Print {"findings": [{server, kind, name, rule, severity, message, evidence}]}
    #[arg(long)]
    pub json: bool,
}

pub async fn run(_config: &Config, _args: &LintArgs, _trace: bool) -> Outcome {
    Err(Failure::new(Exit::Usage, "lint is not built yet"))
}
