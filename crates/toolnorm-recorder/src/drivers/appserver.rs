//! Codex app-server driver: JSON-RPC (v2 protocol) over the CLI's stdio.
//!
//! The driver sends `initialize`, `initialized`, `thread/start` and
//! `turn/start`, answers approval requests (declining those the scenario names),
//! optionally sends `turn/interrupt`, and records every line the server writes
//! until the main thread's turn completes.

use std::io::Write;
use std::process::ChildStdin;
use std::time::{Duration, Instant};

use serde_json::{Value, json};

use super::{Raw, Recorder};
use crate::error::{Error, Result};
use crate::run::{self, RunDirs};
use crate::scenario::Scenario;

fn send(stdin: &mut ChildStdin, msg: &Value) -> Result<()> {
    writeln!(stdin, "{msg}").map_err(|e| Error::io("writing to codex app-server", e))?;
    stdin
        .flush()
        .map_err(|e| Error::io("writing to codex app-server", e))
}

/// The answer to a server-initiated request.
fn answer(sc: &Scenario, method: &str, params: &Value) -> Value {
    let text = params.to_string();
    let decline = sc
        .options
        .codex_decline
        .iter()
        .any(|d| text.contains(d.as_str()));
    match method {
        "item/commandExecution/requestApproval" | "item/fileChange/requestApproval" => {
            json!({"decision": if decline { "decline" } else { "accept" }})
        }
        "execCommandApproval" | "applyPatchApproval" => {
            json!({"decision": if decline { "denied" } else { "approved" }})
        }
        "mcpServer/elicitation/request" => {
            json!({"action": if decline { "decline" } else { "accept" }, "content": {}})
        }
        "item/permissions/requestApproval" => json!({"permissions": {}, "scope": "turn"}),
        _ => json!({}),
    }
}

/// Records one scenario through `codex app-server`.
pub(super) fn record(rec: &Recorder, sc: &Scenario, dirs: &RunDirs) -> Result<Raw> {
    let fail = |message: String| Error::Recording {
        provider: "codex-app-server".into(),
        scenario: sc.name.clone(),
        message,
    };
    let mut cmd = rec.codex_command(sc, dirs)?;
    cmd.arg("app-server");
    let (mut child, orx, erx) = run::spawn_lines(&mut cmd, true)?;
    let mut stdin = child.stdin.take().ok_or_else(|| fail("no stdin".into()))?;
    let mut lines: Vec<String> = Vec::new();
    let mut stderr: Vec<String> = Vec::new();
    send(
        &mut stdin,
        &json!({"id": 1, "method": "initialize", "params": {"clientInfo": {"name": "toolnorm-record", "title": "toolnorm recorder", "version": env!("CARGO_PKG_VERSION")}}}),
    )?;
    send(&mut stdin, &json!({"method": "initialized"}))?;
    send(
        &mut stdin,
        &json!({"id": 2, "method": "thread/start", "params": {"cwd": dirs.work}}),
    )?;
    let start = Instant::now();
    let mut thread_id: Option<String> = None;
    let mut turn_id: Option<String> = None;
    let mut interrupt_at: Option<Instant> = None;
    let mut interrupted = false;
    let mut done = false;
    while !done && start.elapsed() < rec.timeout {
        while let Ok(l) = erx.try_recv() {
            stderr.push(l);
        }
        if let Some(t) = interrupt_at
            && !interrupted
            && Instant::now() >= t
            && let (Some(th), Some(tu)) = (&thread_id, &turn_id)
        {
            send(
                &mut stdin,
                &json!({"id": 4, "method": "turn/interrupt", "params": {"threadId": th, "turnId": tu}}),
            )?;
            interrupted = true;
        }
        let Ok(line) = orx.recv_timeout(Duration::from_millis(50)) else {
            if let Ok(Some(_)) = child.try_wait() {
                break;
            }
            continue;
        };
        let Ok(msg) = serde_json::from_str::<Value>(&line) else {
            lines.push(line);
            continue;
        };
        lines.push(line.clone());
        let method = msg.get("method").and_then(Value::as_str);
        let id = msg.get("id");
        match (method, id) {
            (Some(m), Some(id)) => {
                let params = msg.get("params").cloned().unwrap_or(Value::Null);
                let result = answer(sc, m, &params);
                send(&mut stdin, &json!({"id": id, "result": result}))?;
            }
            (None, Some(id)) => {
                if id == &json!(2) {
                    let tid = msg
                        .pointer("/result/thread/id")
                        .and_then(Value::as_str)
                        .ok_or_else(|| fail(format!("thread/start failed: {line}")))?
                        .to_owned();
                    send(
                        &mut stdin,
                        &json!({"id": 3, "method": "turn/start", "params": {"threadId": tid, "input": [{"type": "text", "text": sc.full_prompt()}]}}),
                    )?;
                    thread_id = Some(tid);
                } else if id == &json!(3) {
                    turn_id = msg
                        .pointer("/result/turn/id")
                        .and_then(Value::as_str)
                        .map(str::to_owned);
                }
            }
            (Some(m), None) => {
                let params = msg.get("params").cloned().unwrap_or(Value::Null);
                let same_thread =
                    params.get("threadId").and_then(Value::as_str) == thread_id.as_deref();
                if m == "item/started"
                    && interrupt_at.is_none()
                    && let Some(ms) = sc.options.interrupt_after_ms
                    && params.pointer("/item/type").and_then(Value::as_str)
                        == Some("commandExecution")
                {
                    interrupt_at = Some(Instant::now() + Duration::from_millis(ms));
                }
                if m == "turn/completed" && same_thread {
                    done = true;
                }
            }
            (None, None) => {}
        }
    }
    // Collect what arrives right after completion, then stop the server.
    let tail = Instant::now() + Duration::from_millis(300);
    while let Ok(l) = orx.recv_timeout(tail.saturating_duration_since(Instant::now())) {
        lines.push(l);
    }
    drop(stdin);
    let stop = Instant::now() + Duration::from_secs(3);
    while Instant::now() < stop {
        if let Ok(Some(_)) = child.try_wait() {
            break;
        }
        std::thread::sleep(Duration::from_millis(50));
    }
    if let Ok(None) = child.try_wait() {
        let _ = child.kill();
        let _ = child.wait();
    }
    while let Ok(l) = erx.try_recv() {
        stderr.push(l);
    }
    run::write_lines(&dirs.root.join("stderr.log"), &stderr)?;
    if !done {
        return Err(fail(format!(
            "turn did not complete within {}s ({} lines)",
            rec.timeout.as_secs(),
            lines.len()
        )));
    }
    Ok(Raw {
        lines,
        command: "codex app-server  # stdio JSON-RPC: initialize, initialized, thread/start {cwd}, turn/start {threadId, input}".into(),
        extras: Vec::new(),
    })
}
