//! A tiny stdio MCP server with two tools, `echo` and `divide`, used by the
//! MCP scenarios. `divide` by zero answers with a tool error (`isError`).

use std::io::{BufRead, Write};

use serde_json::{Value, json};

use crate::error::{Error, Result};

/// The server name the CLIs are configured with.
pub const SERVER_NAME: &str = "toolbox";

fn tools() -> Value {
    json!([
        {
            "name": "echo",
            "description": "Echo the given text back.",
            "inputSchema": {"type": "object", "properties": {"text": {"type": "string", "description": "Text to echo"}}, "required": ["text"]}
        },
        {
            "name": "divide",
            "description": "Divide a by b.",
            "inputSchema": {"type": "object", "properties": {"a": {"type": "number"}, "b": {"type": "number"}}, "required": ["a", "b"]}
        }
    ])
}

fn call_tool(params: &Value) -> Value {
    let name = params.get("name").and_then(Value::as_str).unwrap_or("");
    let args = params.get("arguments").cloned().unwrap_or(Value::Null);
    match name {
        "echo" => {
            let text = args.get("text").and_then(Value::as_str).unwrap_or("");
            json!({"content": [{"type": "text", "text": format!("echo: {text}")}], "isError": false})
        }
        "divide" => {
            let a = args.get("a").and_then(Value::as_f64);
            let b = args.get("b").and_then(Value::as_f64);
            match (a, b) {
                (Some(_), Some(0.0)) => {
                    json!({"content": [{"type": "text", "text": "division by zero"}], "isError": true})
                }
                (Some(a), Some(b)) => {
                    json!({"content": [{"type": "text", "text": format!("{}", a / b)}], "isError": false})
                }
                _ => {
                    json!({"content": [{"type": "text", "text": "a and b must be numbers"}], "isError": true})
                }
            }
        }
        other => {
            json!({"content": [{"type": "text", "text": format!("unknown tool {other}")}], "isError": true})
        }
    }
}

/// Answers one JSON-RPC message; `None` for notifications.
pub fn respond(msg: &Value) -> Option<Value> {
    let id = msg.get("id")?.clone();
    let method = msg.get("method").and_then(Value::as_str).unwrap_or("");
    let params = msg.get("params").cloned().unwrap_or(Value::Null);
    let result = match method {
        "initialize" => {
            let version = params
                .get("protocolVersion")
                .and_then(Value::as_str)
                .unwrap_or("2025-06-18");
            json!({
                "protocolVersion": version,
                "capabilities": {"tools": {"listChanged": false}},
                "serverInfo": {"name": SERVER_NAME, "version": env!("CARGO_PKG_VERSION")}
            })
        }
        "ping" => json!({}),
        "tools/list" => json!({"tools": tools()}),
        "tools/call" => call_tool(&params),
        "resources/list" => json!({"resources": []}),
        "resources/templates/list" => json!({"resourceTemplates": []}),
        "prompts/list" => json!({"prompts": []}),
        _ => {
            return Some(
                json!({"jsonrpc": "2.0", "id": id, "error": {"code": -32601, "message": format!("method not found: {method}")}}),
            );
        }
    };
    Some(json!({"jsonrpc": "2.0", "id": id, "result": result}))
}

/// Serves newline-delimited JSON-RPC on stdin/stdout until stdin closes.
pub fn serve_stdio() -> Result<()> {
    let stdin = std::io::stdin();
    let mut stdout = std::io::stdout();
    for line in stdin.lock().lines() {
        let line = line.map_err(|e| Error::io("reading stdin", e))?;
        if line.trim().is_empty() {
            continue;
        }
        let Ok(msg) = serde_json::from_str::<Value>(&line) else {
            continue;
        };
        if let Some(reply) = respond(&msg) {
            writeln!(stdout, "{reply}").map_err(|e| Error::io("writing stdout", e))?;
            stdout.flush().map_err(|e| Error::io("writing stdout", e))?;
        }
    }
    Ok(())
}
