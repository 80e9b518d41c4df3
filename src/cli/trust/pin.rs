//! `mcpdeck pin [TARGET…]` and `mcpdeck verify [TARGET…]`. (Being written:
//! see issue 14.)

use clap::Args;

use crate::cli::exit::{Exit, Failure, Outcome};
use crate::config::Config;

#[derive(Args, Debug)]
pub struct PinArgs {
    /// Configured server names or http(s):// URLs [default: every enabled server]
    #[arg(value_name = "TARGET")]
    pub targets: Vec<String>,
    /// An ad-hoc stdio server: `-- CMD ARGS…`
    #[arg(last = true, value_name = "CMD")]
    pub command: Vec<String>,
    #[arg(long)]
    pub json: bool,
}

pub async fn pin(_config: &Config, _args: &PinArgs, _trace: bool) -> Outcome {
    Err(Failure::new(Exit::Usage, "pin is not built yet"))
}

pub async fn verify(_config: &Config, _args: &PinArgs, _trace: bool) -> Outcome {
    Err(Failure::new(Exit::Usage, "verify is not built yet"))
}
