//! Drives `claude-code-acp-rs`'s `NotificationConverter` over a Claude Code `stream-json`
//! file, line by line, as its agent's prompt loop does: each line is read as a JSON value,
//! then as the SDK's `Message` (as the SDK's message parser reads the CLI's output), then
//! converted; each notification is framed as a JSON-RPC `session/update` and written to
//! stdout, as `toolnorm normalize --format acp` writes its frames. Prints the counts to
//! stderr.
//!
//! Usage: toolnorm-rust-peer FILE > /dev/null

use std::error::Error;
use std::fs::File;
use std::io::{BufRead, BufReader, BufWriter, Write};

use claude_code_acp::converter::NotificationConverter;
use claude_code_agent_sdk::Message;
use serde::Serialize;
use serde_json::Value;

/// A JSON-RPC notification, as the ACP connection frames one.
#[derive(Serialize)]
struct Frame<'a, T> {
    jsonrpc: &'static str,
    method: &'static str,
    params: &'a T,
}

fn main() -> Result<(), Box<dyn Error>> {
    let path = std::env::args()
        .nth(1)
        .ok_or("usage: toolnorm-rust-peer FILE")?;
    let input = BufReader::with_capacity(1 << 16, File::open(path)?);
    let mut out = BufWriter::with_capacity(1 << 16, std::io::stdout().lock());
    let converter = NotificationConverter::with_cwd("/workspace".into());
    let (mut lines, mut unread, mut notifications) = (0u64, 0u64, 0u64);
    for line in input.lines() {
        let line = line?;
        if line.trim().is_empty() {
            continue;
        }
        lines += 1;
        let Ok(value) = serde_json::from_str::<Value>(&line) else {
            unread += 1;
            continue;
        };
        let session = value
            .get("session_id")
            .and_then(Value::as_str)
            .unwrap_or("session")
            .to_owned();
        let Ok(message) = serde_json::from_value::<Message>(value) else {
            unread += 1;
            continue;
        };
        for notification in converter.convert_message(&message, &session) {
            notifications += 1;
            let frame = Frame {
                jsonrpc: "2.0",
                method: "session/update",
                params: &notification,
            };
            serde_json::to_writer(&mut out, &frame)?;
            out.write_all(b"\n")?;
        }
    }
    out.flush()?;
    eprintln!("{lines} lines, {unread} not read as SDK messages, {notifications} notifications");
    Ok(())
}
