//! `toolnorm-ts [--check]`: write (or check) generated/ts/toolnorm.ts.

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
        toolnorm_ts::check(&root).map(|()| format!("{} is up to date", toolnorm_ts::OUTPUT))
    } else {
        toolnorm_ts::write(&root).map(|_| format!("wrote {}", toolnorm_ts::OUTPUT))
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
