//! `mcpdeck scan [--json|--sarif]`. (Being written: see issue 14.)

use clap::Args;

use crate::cli::exit::{Exit, Failure, Outcome};
use crate::config::Config;

#[derive(Args, Debug)]
pub struct ScanArgs {
    #[arg(long, conflicts_with = "sarif")]
    pub json: bool,
    /// SARIF 2.1.0, for CI code scanning
    #[arg(long)]
    pub sarif: bool,
}

pub async fn run(_config: &Config, _args: &ScanArgs, _trace: bool) -> Outcome {
    Err(Failure::new(Exit::Usage, "scan is not built yet"))
}
