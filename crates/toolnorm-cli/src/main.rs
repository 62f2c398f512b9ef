//! `toolnorm`: see `toolnorm --help`.

use std::process::ExitCode;

use clap::Parser;

mod allocator;

/// mimalloc, with huge blocks left to the system allocator ([`allocator`]).
#[global_allocator]
static ALLOCATOR: allocator::Allocator = allocator::Allocator;

fn main() -> ExitCode {
    let cli = toolnorm_cli::Cli::parse();
    toolnorm_cli::run(cli, std::io::stdout().lock(), &mut std::io::stderr().lock())
}
