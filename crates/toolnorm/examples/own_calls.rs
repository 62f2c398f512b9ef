//! An engine that runs tools itself and reports them through the type-state lifecycle:
//! the compiler keeps it from completing a call twice or giving a failed call an output.
//!
//! `cargo run -p toolnorm --example own_calls`

use serde_json::json;
use toolnorm::{Completion, Failure, ToolCall, ToolError, ToolKind};

fn main() {
    // A shell command that streams output and succeeds.
    let started = ToolCall::start("call_1", "bash", ToolKind::Bash)
        .with_title("cargo build")
        .with_input(json!({ "command": "cargo build" }))
        .started_at("2026-03-01T10:00:00Z");
    print(&started.to_part());
    let mut running = started.run(None);
    running.append_output("Compiling toolnorm v0.1.0\n");
    print(&running.to_part());
    let done = running.complete(Completion::default().at("2026-03-01T10:00:03Z"));
    print(&done.to_part());
    // `done.complete(..)` or `done.fail(..)` would not compile: a complete call is final.

    // A file read that fails.
    let read = ToolCall::start("call_2", "read", ToolKind::FileRead)
        .with_title("Reading notes.txt")
        .with_input(json!({ "path": "notes.txt" }));
    let failed = read.fail(Failure::new(
        ToolError::new("No such file").with_code("ENOENT"),
    ));
    print(&failed.to_part());
    // `failed.output()` would not compile: only a complete call has an output.
}

fn print(part: &toolnorm::NormalizedToolPart) {
    match serde_json::to_string(part) {
        Ok(line) => println!("{line}"),
        Err(error) => eprintln!("{error}"),
    }
}
