//! Claude Code driven as the SDKs drive it (scenario option `claude_prompt_stdio`):
//! `claude -p --input-format stream-json --output-format stream-json --verbose
//! --permission-prompt-tool stdio`. The prompt goes in as a `user` message on stdin; the
//! CLI asks its host before a call that needs permission (a `control_request`
//! `can_use_tool` line) and waits for the host's `control_response`. The recorder allows
//! the call with its input unchanged, or denies the calls the scenario declines
//! (`codex_decline`), and writes each answer into the recording right after the request,
//! as the exact line it sent; the run ends with the `result` line.

use std::io::Write;
use std::process::Command;
use std::time::{Duration, Instant};

use serde_json::{Value, json};

use super::{Raw, shell_join};
use crate::error::{Error, Result};
use crate::run::{self, RunDirs};
use crate::scenario::{Answer, Scenario};

/// What the host answers to a denied call (the CLI hands it to the model as the result).
pub const DENIAL_MESSAGE: &str = "The user denied this call.";

/// The host's answer to a `control_request` line, when it is one the host must answer.
fn answer(sc: &Scenario, msg: &Value) -> Option<Value> {
    if msg.get("type").and_then(Value::as_str) != Some("control_request") {
        return None;
    }
    let request_id = msg.get("request_id")?.clone();
    let request = msg.get("request")?;
    let response = match request.get("subtype").and_then(Value::as_str) {
        Some("can_use_tool") => {
            let input = request.get("input").cloned().unwrap_or_else(|| json!({}));
            match sc.options.answer(&input.to_string()) {
                Answer::Allow => json!({"behavior": "allow", "updatedInput": input}),
                Answer::Decline | Answer::Cancel => {
                    json!({"behavior": "deny", "message": DENIAL_MESSAGE})
                }
            }
        }
        // Any other question (hook callbacks, MCP messages) gets an empty success.
        _ => json!({}),
    };
    Some(json!({
        "type": "control_response",
        "response": {"subtype": "success", "request_id": request_id, "response": response}
    }))
}

/// Runs `cmd` (`claude` with its environment) with `args` and the stdio options, sends
/// the prompt, answers the CLI's requests and returns every line of the conversation
/// (the CLI's and the answers) until the `result` line.
pub(super) fn record(
    sc: &Scenario,
    dirs: &RunDirs,
    mut cmd: Command,
    mut args: Vec<String>,
    timeout: Duration,
) -> Result<Raw> {
    let fail = |message: String| Error::Recording {
        provider: "claude-code".into(),
        scenario: sc.name.clone(),
        message,
    };
    args.extend(
        [
            "--input-format",
            "stream-json",
            "--permission-prompt-tool",
            "stdio",
        ]
        .map(String::from),
    );
    cmd.args(&args);
    let (mut child, orx, erx) = run::spawn_lines(&mut cmd, true)?;
    let mut stdin = child.stdin.take().ok_or_else(|| fail("no stdin".into()))?;
    let mut send = |msg: &Value| -> Result<String> {
        let line = msg.to_string();
        let context = || "writing to claude".to_owned();
        writeln!(stdin, "{line}").map_err(|e| Error::io(context(), e))?;
        stdin.flush().map_err(|e| Error::io(context(), e))?;
        Ok(line)
    };
    let prompt = json!({"type": "user", "message": {"role": "user", "content": sc.full_prompt()}});
    send(&prompt)?;
    let mut lines: Vec<String> = Vec::new();
    let start = Instant::now();
    let mut done = false;
    while !done && start.elapsed() < timeout {
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
        if let Some(reply) = answer(sc, &msg) {
            // The host's side of the exchange, as sent.
            lines.push(send(&reply)?);
        }
        done = msg.get("type").and_then(Value::as_str) == Some("result");
    }
    // Closing stdin ends the CLI's input: it exits.
    drop(stdin);
    run::stop(&mut child, Duration::from_secs(5));
    lines.extend(orx.try_iter());
    let stderr: Vec<String> = erx.try_iter().collect();
    run::write_lines(&dirs.root.join("stderr.log"), &stderr)?;
    if !done {
        return Err(fail(format!(
            "no result within {}s ({} lines)",
            timeout.as_secs(),
            lines.len()
        )));
    }
    Ok(Raw {
        lines,
        command: format!(
            "claude {}  # stdin: the prompt as a stream-json user message, a control_response to each control_request",
            shell_join(&args)
        ),
        extras: Vec::new(),
        session: Vec::new(),
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    fn scenario(decline: &[&str]) -> std::result::Result<Scenario, toml::de::Error> {
        let mut sc: Scenario = toml::from_str("description = \"d\"\nprompt = \"p\"\n")?;
        sc.options.codex_decline = decline.iter().map(|d| (*d).to_owned()).collect();
        Ok(sc)
    }

    #[test]
    fn a_permission_check_is_allowed_with_its_input_or_denied()
    -> std::result::Result<(), toml::de::Error> {
        let asked = json!({"type": "control_request", "request_id": "r1", "request": {
            "subtype": "can_use_tool", "tool_name": "Bash", "input": {"command": "rm notes.txt"}}});
        let allowed = answer(&scenario(&[])?, &asked);
        assert_eq!(
            allowed,
            Some(
                json!({"type": "control_response", "response": {"subtype": "success",
                "request_id": "r1", "response": {"behavior": "allow",
                "updatedInput": {"command": "rm notes.txt"}}}})
            )
        );
        let denied = answer(&scenario(&["rm "])?, &asked);
        assert_eq!(
            denied
                .as_ref()
                .and_then(|d| d.pointer("/response/response/behavior")),
            Some(&json!("deny"))
        );
        let other = json!({"type": "assistant", "message": {}});
        assert_eq!(answer(&scenario(&[])?, &other), None);
        Ok(())
    }
}
