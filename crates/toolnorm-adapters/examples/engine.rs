//! An engine that runs an agent CLI and shows its tool calls: feed the CLI's output, line
//! by line as it arrives, and get each part change back.
//!
//! `cargo run -p toolnorm-adapters --example engine -- fixtures/codex-app-server/shell-stream.jsonl`
//! (a recorded stream stands in for the live CLI's stdout).

use std::io::{BufRead, BufReader};

use toolnorm_adapters::{Normalizer, Step};

fn main() -> std::io::Result<()> {
    let path = std::env::args().nth(1).unwrap_or_else(|| {
        concat!(
            env!("CARGO_MANIFEST_DIR"),
            "/../../fixtures/codex-app-server/shell-stream.jsonl"
        )
        .into()
    });
    let reader = BufReader::new(std::fs::File::open(path)?);

    // The dialect is detected from the first lines; finished calls are dropped once shown.
    let mut normalizer = Normalizer::builder().evict_finished(true).build();
    let mut on_step = |step: Step<'_>| match step {
        Step::Applied { update, .. } => {
            let part = update.part();
            println!("{:<8} {:<10} {}", part.state, part.kind, part.title);
        }
        Step::Diagnostic(diagnostic) => eprintln!("skipped: {diagnostic}"),
    };
    for line in reader.split(b'\n') {
        let mut line = line?;
        line.push(b'\n');
        normalizer.push(&line, &mut on_step);
    }
    normalizer.finish(&mut on_step);
    for call in normalizer.fold().calls() {
        println!("still open at the end: {} ({})", call.id(), call.state());
    }
    Ok(())
}
