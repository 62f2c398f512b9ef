//! `toolnorm-codegen`: `sync` the pinned provider schemas, `generate` the
//! Rust wire types (`--check` to verify them).

use std::collections::BTreeMap;
use std::path::PathBuf;
use std::process::ExitCode;

use clap::{Parser, Subcommand};
use toolnorm_codegen::{Error, default_repo_root, generate, sync};

#[derive(Parser)]
#[command(
    name = "toolnorm-codegen",
    version,
    about = "Pin provider schemas and generate toolnorm-wire",
    // Help is laid out as written, whatever the terminal (and whether or not another
    // crate in the build turns on clap's `wrap_help`), so its goldens stay stable.
    term_width = 0
)]
struct Cli {
    /// Repository root (defaults to the workspace this binary was built in).
    #[arg(long, global = true)]
    repo: Option<PathBuf>,
    #[command(subcommand)]
    command: Cmd,
}

#[derive(Subcommand)]
enum Cmd {
    /// Regenerate generated/rust/src from schemas/.
    Generate {
        /// Do not write; fail with a diff if generated/ is stale or a pinned
        /// schema does not match its sha256.
        #[arg(long)]
        check: bool,
    },
    /// Re-extract schemas/ from the pinned npm packages (as extract/package-lock.json locks them; needs npm
    /// and node).
    Sync {
        /// Scratch npm prefix, outside the repository.
        #[arg(long, default_value = "/tmp/toolnorm-schema-sync")]
        scratch: PathBuf,
        /// Pin a package to a new version, e.g. `--pin @openai/codex@0.171.0` (written to
        /// extract/package.json and its lockfile).
        #[arg(long = "pin", value_name = "PACKAGE@VERSION")]
        pins: Vec<String>,
        /// Reuse the packages already installed in the scratch prefix.
        #[arg(long)]
        skip_install: bool,
        /// Extract only this source (a module name, e.g. `opencode_export`); the other
        /// pinned files stay as they are. May be repeated.
        #[arg(long = "only", value_name = "MODULE")]
        only: Vec<String>,
    },
}

fn parse_pin(pin: &str) -> Result<(String, String), Error> {
    // Scoped packages start with '@'; the version follows the last '@'.
    match pin.rsplit_once('@') {
        Some((package, version)) if !package.is_empty() && !version.is_empty() => {
            Ok((package.to_string(), version.to_string()))
        }
        _ => Err(Error::Usage(format!(
            "--pin wants PACKAGE@VERSION, got `{pin}`"
        ))),
    }
}

fn run(cli: Cli) -> Result<(), Error> {
    let repo = cli.repo.unwrap_or_else(default_repo_root);
    match cli.command {
        Cmd::Generate { check: true } => {
            generate::verify_and_check(&repo)?;
            println!("generated/ is up to date");
        }
        Cmd::Generate { check: false } => {
            let files = generate::generate_all(&repo)?;
            generate::write_all(&repo, &files)?;
            println!("wrote {} files to {}", files.len(), generate::GENERATED_SRC);
        }
        Cmd::Sync {
            scratch,
            pins,
            skip_install,
            only,
        } => {
            let versions = pins
                .iter()
                .map(|p| parse_pin(p))
                .collect::<Result<BTreeMap<_, _>, _>>()?;
            let report = sync::sync(&sync::SyncOptions {
                repo,
                scratch,
                versions,
                skip_install,
                only,
            })?;
            print!("{report}");
            println!("Next: {}", generate::REGENERATE);
        }
    }
    Ok(())
}

fn main() -> ExitCode {
    match run(Cli::parse()) {
        Ok(()) => ExitCode::SUCCESS,
        Err(e) => {
            eprintln!("error: {e}");
            ExitCode::FAILURE
        }
    }
}
