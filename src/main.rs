use clap::Parser;

fn main() {
    let cli = mcpdeck::cli::Cli::parse();
    std::process::exit(mcpdeck::cli::run(cli));
}
