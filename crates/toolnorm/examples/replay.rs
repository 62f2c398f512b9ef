//! Folds a canonical event log and prints the parts, one JSON object per line.
//!
//! `cargo run -p toolnorm --example replay -- [LOG]` (default: fixtures/events/session.jsonl).
//! Lines that do not apply are reported on stderr as `line N: reason` (or by event) and
//! skipped; the exit code is 1 when anything was reported.

use std::fs::File;
use std::io::{BufReader, Write};
use std::process::ExitCode;

fn main() -> ExitCode {
    let path = std::env::args().nth(1).unwrap_or_else(|| {
        concat!(
            env!("CARGO_MANIFEST_DIR"),
            "/../../fixtures/events/session.jsonl"
        )
        .into()
    });
    let file = match File::open(&path) {
        Ok(file) => file,
        Err(error) => {
            eprintln!("{path}: {error}");
            return ExitCode::from(2);
        }
    };
    let replay = toolnorm::replay_log(BufReader::new(file));
    let mut stdout = std::io::stdout().lock();
    for part in &replay.parts {
        let written = serde_json::to_writer(&mut stdout, part).map_err(std::io::Error::from);
        if let Err(error) = written.and_then(|()| stdout.write_all(b"\n")) {
            eprintln!("writing output: {error}");
            return ExitCode::from(2);
        }
    }
    for diagnostic in &replay.diagnostics {
        eprintln!("{diagnostic}");
    }
    eprintln!(
        "{} parts, {} diagnostics",
        replay.parts.len(),
        replay.diagnostics.len()
    );
    if replay.diagnostics.is_empty() {
        ExitCode::SUCCESS
    } else {
        ExitCode::FAILURE
    }
}
