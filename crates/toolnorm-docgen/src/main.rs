//! `toolnorm-docgen`: writes the book's provider reference, or with `--check` fails when it
//! is stale or a link of the book or the README is broken.

use std::process::ExitCode;

fn main() -> ExitCode {
    let root = toolnorm_docgen::repository_root();
    let check = match std::env::args().nth(1).as_deref() {
        None => false,
        Some("--check") => true,
        Some(other) => {
            eprintln!(
                "toolnorm-docgen: unknown argument `{other}` (usage: toolnorm-docgen [--check])"
            );
            return ExitCode::from(2);
        }
    };
    let result = if check {
        toolnorm_docgen::check(&root).map(|links| {
            println!(
                "{} is up to date; {links} relative links of the book and the README lead somewhere",
                toolnorm_docgen::reference::PAGE
            );
        })
    } else {
        toolnorm_docgen::write(&root)
            .map(|()| println!("wrote {}", toolnorm_docgen::reference::PAGE))
    };
    match result {
        Ok(()) => ExitCode::SUCCESS,
        Err(error) => {
            eprintln!("toolnorm-docgen: {error}");
            ExitCode::FAILURE
        }
    }
}
