//! `toolnorm`: see `toolnorm --help`.

use std::process::ExitCode;

use clap::Parser;

fn main() -> ExitCode {
    let cli = toolnorm_cli::Cli::parse();
    toolnorm_cli::run(cli, std::io::stdout().lock(), &mut std::io::stderr().lock())
}
