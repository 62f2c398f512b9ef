//! `toolnorm`: see `toolnorm --help`.

use std::process::ExitCode;

use clap::Parser;

/// mimalloc: the normalizer allocates many small, short-lived values per line, where it
/// is markedly faster than the system allocator.
#[global_allocator]
static ALLOCATOR: mimalloc::MiMalloc = mimalloc::MiMalloc;

fn main() -> ExitCode {
    let cli = toolnorm_cli::Cli::parse();
    toolnorm_cli::run(cli, std::io::stdout().lock(), &mut std::io::stderr().lock())
}
