//! `toolnorm-ts [--check]`: write (or check) generated/ts/toolnorm.ts, its copy in the npm
//! package, and the JSON Schemas.

use std::process::ExitCode;

fn main() -> ExitCode {
    let root = toolnorm_ts::workspace_root();
    let check = match std::env::args().nth(1).as_deref() {
        None => false,
        Some("--check") => true,
        Some(other) => {
            eprintln!("usage: toolnorm-ts [--check]   (unknown argument `{other}`)");
            return ExitCode::from(2);
        }
    };
    let result = if check {
        toolnorm_ts::check(&root).map(|()| {
            format!(
                "{}, its package copy and the JSON Schemas are up to date",
                toolnorm_ts::OUTPUT
            )
        })
    } else {
        toolnorm_ts::write(&root).map(|paths| format!("wrote {} files", paths.len()))
    };
    match result {
        Ok(message) => {
            println!("{message}");
            ExitCode::SUCCESS
        }
        Err(error) => {
            eprintln!("{error}");
            ExitCode::FAILURE
        }
    }
}
