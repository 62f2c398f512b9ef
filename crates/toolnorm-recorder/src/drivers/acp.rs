//! ACP (Agent Client Protocol) driver: runs an ACP agent over stdio as an ACP
//! client would (`initialize`, `session/new`, `session/prompt`), answers
//! `session/request_permission` (rejecting when the scenario declines), and
//! records every line the agent writes until the prompt's response arrives.

use std::io::Write;
use std::process::{ChildStdin, Command};
use std::time::{Duration, Instant};

use serde_json::{Value, json};

use super::{Raw, Recorder};
use crate::error::{Error, Result};
use crate::run::{self, RunDirs};
use crate::scenario::Scenario;

fn send(stdin: &mut ChildStdin, msg: &Value) -> Result<()> {
    writeln!(stdin, "{msg}").map_err(|e| Error::io("writing to the ACP agent", e))?;
    stdin
        .flush()
        .map_err(|e| Error::io("writing to the ACP agent", e))
}

/// Picks the permission option: the first `reject*` option when the scenario
/// declines the call, else the first `allow*` option.
fn permission_outcome(sc: &Scenario, params: &Value) -> Value {
    let text = params
        .get("toolCall")
        .map(Value::to_string)
        .unwrap_or_default();
    let decline = sc
        .options
        .codex_decline
        .iter()
        .any(|d| text.contains(d.as_str()));
    let want = if decline { "reject" } else { "allow" };
    let options = params
        .get("options")
        .and_then(Value::as_array)
        .cloned()
        .unwrap_or_default();
    let chosen = options
        .iter()
        .find(|o| {
            o.get("kind")
                .and_then(Value::as_str)
                .is_some_and(|k| k.starts_with(want))
        })
        .or_else(|| options.first())
        .and_then(|o| o.get("optionId"))
        .cloned();
    match chosen {
        Some(id) => json!({"outcome": {"outcome": "selected", "optionId": id}}),
        None => json!({"outcome": {"outcome": "cancelled"}}),
    }
}

impl Recorder {
    /// Records one scenario through `claude-agent-acp`, which drives the
    /// pinned `claude` binary (`CLAUDE_CODE_EXECUTABLE`); the MCP server is
    /// handed over in `session/new`.
    pub(super) fn claude_acp(&self, sc: &Scenario, dirs: &RunDirs) -> Result<Raw> {
        let mut cmd = self.claude_command(sc, dirs)?;
        cmd.env("CLAUDE_CODE_EXECUTABLE", self.bin_dir().join("claude"));
        let program = self.bin_dir().join("claude-agent-acp");
        let mut acp = Command::new(program);
        acp.current_dir(&dirs.work).env_clear();
        for (k, v) in cmd.get_envs() {
            if let Some(v) = v {
                acp.env(k, v);
            }
        }
        record(
            "claude-code-acp",
            acp,
            "claude-agent-acp  # CLAUDE_CODE_EXECUTABLE=claude",
            sc,
            dirs,
            self.timeout,
            Some(&self.mcp_bin),
        )
    }

    /// Records one scenario through `opencode acp` (its MCP server comes from
    /// the OpenCode config).
    pub(super) fn opencode_acp(&self, sc: &Scenario, dirs: &RunDirs) -> Result<Raw> {
        let mut cmd = self.opencode_command(sc, dirs)?;
        cmd.arg("acp");
        record(
            "opencode-acp",
            cmd,
            "opencode acp",
            sc,
            dirs,
            self.timeout,
            None,
        )
    }
}

/// Records one scenario by driving an ACP agent started by `cmd`.
fn record(
    provider: &str,
    mut cmd: Command,
    display: &str,
    sc: &Scenario,
    dirs: &RunDirs,
    timeout: Duration,
    mcp_bin: Option<&std::path::Path>,
) -> Result<Raw> {
    let fail = |message: String| Error::Recording {
        provider: provider.into(),
        scenario: sc.name.clone(),
        message,
    };
    let (mut child, orx, erx) = run::spawn_lines(&mut cmd, true)?;
    let mut stdin = child.stdin.take().ok_or_else(|| fail("no stdin".into()))?;
    send(
        &mut stdin,
        &json!({"jsonrpc": "2.0", "id": 1, "method": "initialize", "params": {
            "protocolVersion": 1,
            "clientCapabilities": {"fs": {"readTextFile": false, "writeTextFile": false}, "terminal": false},
            "clientInfo": {"name": "toolnorm-record", "version": env!("CARGO_PKG_VERSION")}
        }}),
    )?;
    // MCP servers handed over in `session/new` (agents that take them from
    // their own config get none).
    let mcp_servers: Vec<Value> = mcp_bin
        .map(|p| json!({"name": crate::mcp::SERVER_NAME, "command": p, "args": [], "env": []}))
        .into_iter()
        .collect();
    let mut lines = Vec::new();
    let mut stderr = Vec::new();
    let start = Instant::now();
    let mut session: Option<String> = None;
    let mut cancel_at: Option<Instant> = None;
    let mut cancelled = false;
    let mut done = false;
    while !done && start.elapsed() < timeout {
        stderr.extend(erx.try_iter());
        if let (Some(t), Some(sid)) = (cancel_at, &session)
            && !cancelled
            && Instant::now() >= t
        {
            send(
                &mut stdin,
                &json!({"jsonrpc": "2.0", "method": "session/cancel", "params": {"sessionId": sid}}),
            )?;
            cancelled = true;
        }
        let Ok(line) = orx.recv_timeout(Duration::from_millis(50)) else {
            if let Ok(Some(_)) = child.try_wait() {
                break;
            }
            continue;
        };
        lines.push(line.clone());
        let Ok(msg) = serde_json::from_str::<Value>(&line) else {
            continue;
        };
        let method = msg.get("method").and_then(Value::as_str);
        match (method, msg.get("id")) {
            (Some(m), Some(id)) => {
                let params = msg.get("params").cloned().unwrap_or(Value::Null);
                let result = if m == "session/request_permission" {
                    json!(permission_outcome(sc, &params))
                } else {
                    json!({})
                };
                send(
                    &mut stdin,
                    &json!({"jsonrpc": "2.0", "id": id, "result": result}),
                )?;
            }
            (None, Some(id)) if id == &json!(1) => {
                send(
                    &mut stdin,
                    &json!({"jsonrpc": "2.0", "id": 2, "method": "session/new", "params": {"cwd": dirs.work, "mcpServers": mcp_servers}}),
                )?;
            }
            (None, Some(id)) if id == &json!(2) => {
                let sid = msg
                    .pointer("/result/sessionId")
                    .and_then(Value::as_str)
                    .ok_or_else(|| fail(format!("session/new failed: {line}")))?
                    .to_owned();
                send(
                    &mut stdin,
                    &json!({"jsonrpc": "2.0", "id": 3, "method": "session/prompt", "params": {"sessionId": sid, "prompt": [{"type": "text", "text": sc.full_prompt()}]}}),
                )?;
                session = Some(sid);
            }
            (None, Some(id)) if id == &json!(3) => done = true,
            (Some("session/update"), None) => {
                if cancel_at.is_none()
                    && let Some(ms) = sc.options.interrupt_after_ms
                    && msg
                        .pointer("/params/update/sessionUpdate")
                        .and_then(Value::as_str)
                        == Some("tool_call_update")
                {
                    cancel_at = Some(Instant::now() + Duration::from_millis(ms));
                }
            }
            _ => {}
        }
    }
    let tail = Instant::now() + Duration::from_millis(300);
    while let Ok(l) = orx.recv_timeout(tail.saturating_duration_since(Instant::now())) {
        lines.push(l);
    }
    drop(stdin);
    let _ = child.kill();
    let _ = child.wait();
    stderr.extend(erx.try_iter());
    run::write_lines(&dirs.root.join("stderr.log"), &stderr)?;
    if !done {
        return Err(fail(format!(
            "prompt did not finish within {}s ({} lines)",
            timeout.as_secs(),
            lines.len()
        )));
    }
    Ok(Raw {
        lines,
        command: format!(
            "{display}  # stdio ACP: initialize, session/new {{cwd}}, session/prompt {{sessionId, prompt}}"
        ),
        extras: Vec::new(),
    })
}
