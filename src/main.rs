//! mcpdeck's entry: parse the command line, then run either a headless
//! command (`mcpdeck::cli`) or the TUI (`mcpdeck::tui`) on the same core
//! (`mcpdeck::entry`).

fn main() {
    let args = mcpdeck::cli::args::parse();
    let code = mcpdeck::entry::run(args);
    // The last spans, within a bounded wait (nothing when telemetry is off).
    mcpdeck::telemetry::shutdown();
    std::process::exit(code);
}
