//! The stdio JSON-RPC conversation the app-server and ACP drivers share.
//!
//! The driver sends the protocol's opening messages, answers the peer's
//! requests, hands responses and notifications to the protocol, sends the
//! protocol's interrupt once its countdown has run out, and records every line
//! the peer writes until the protocol says the turn is over. Each answer to a
//! request of the peer is recorded too, as the line sent, right after the request
//! it answers: the recording holds both directions of every request the peer made
//! (the driver's own requests and notifications are not recorded).

use std::io::Write;
use std::process::{ChildStdin, Command};
use std::time::{Duration, Instant};

use serde_json::{Map, Value, json};

use crate::error::{Error, Result};
use crate::run::{self, RunDirs};
use crate::scenario::Scenario;

/// One JSON-RPC protocol a driver speaks with a CLI over its stdio.
pub(super) trait Protocol {
    /// The peer, as named in errors (`codex app-server`).
    const PEER: &'static str;
    /// Whether every message carries `"jsonrpc": "2.0"`.
    const JSONRPC: bool;
    /// Fields every message sent carries besides (Factory Droid's `type` and
    /// `factoryApiVersion`); a field the message sets itself is kept.
    const ENVELOPE: &'static [(&'static str, &'static str)] = &[];
    /// What a turn that does not end within the time limit did not do.
    const UNFINISHED: &'static str;
    /// How long the peer may take to exit once its stdin is closed before it
    /// is killed.
    const GRACE: Duration;

    /// The messages sent as soon as the peer has started.
    fn opening(&mut self) -> Vec<Value>;
    /// The result of a request the peer sends.
    fn answer(&self, method: &str, params: &Value) -> Value;
    /// Takes the response to one of the driver's requests; returns the
    /// messages to send next, or why the recording fails.
    fn response(
        &mut self,
        id: &Value,
        msg: &Value,
        line: &str,
    ) -> std::result::Result<Vec<Value>, String>;
    /// Takes a notification.
    fn notification(&mut self, method: &str, msg: &Value);
    /// Whether a notification starts the interrupt countdown.
    fn arms_interrupt(&self, method: &str, msg: &Value) -> bool;
    /// The message that interrupts the turn, once the ids it names are known.
    fn interrupt(&self) -> Option<Value>;
    /// Whether the turn is over.
    fn done(&self) -> bool;
}

/// Writes one message to the peer; returns the line written (without its newline).
fn send<P: Protocol>(stdin: &mut ChildStdin, msg: Value) -> Result<String> {
    let msg = if P::JSONRPC {
        let mut framed = Map::new();
        framed.insert("jsonrpc".into(), json!("2.0"));
        if let Value::Object(fields) = msg {
            framed.extend(fields);
        }
        Value::Object(framed)
    } else {
        msg
    };
    let msg = match msg {
        Value::Object(mut fields) if !P::ENVELOPE.is_empty() => {
            for (key, value) in P::ENVELOPE {
                fields.entry(*key).or_insert_with(|| json!(value));
            }
            Value::Object(fields)
        }
        other => other,
    };
    let context = || format!("writing to {}", P::PEER);
    let line = msg.to_string();
    writeln!(stdin, "{line}").map_err(|e| Error::io(context(), e))?;
    stdin.flush().map_err(|e| Error::io(context(), e))?;
    Ok(line)
}

/// Runs `cmd` and converses with it in `proto` until the turn is over or
/// `timeout` has passed; keeps the peer's stderr next to the recording and
/// returns every line it wrote on stdout, each answer to one of its requests right
/// after the request.
pub(super) fn converse<P: Protocol>(
    proto: &mut P,
    cmd: &mut Command,
    provider: &str,
    sc: &Scenario,
    dirs: &RunDirs,
    timeout: Duration,
) -> Result<Vec<String>> {
    let fail = |message: String| Error::Recording {
        provider: provider.into(),
        scenario: sc.name.clone(),
        message,
    };
    let (mut child, orx, erx) = run::spawn_lines(cmd, true)?;
    let mut stdin = child.stdin.take().ok_or_else(|| fail("no stdin".into()))?;
    for msg in proto.opening() {
        send::<P>(&mut stdin, msg)?;
    }
    let mut lines: Vec<String> = Vec::new();
    let mut stderr: Vec<String> = Vec::new();
    let start = Instant::now();
    let mut interrupt_at: Option<Instant> = None;
    let mut interrupted = false;
    while !proto.done() && start.elapsed() < timeout {
        stderr.extend(erx.try_iter());
        if let Some(t) = interrupt_at
            && !interrupted
            && Instant::now() >= t
            && let Some(msg) = proto.interrupt()
        {
            send::<P>(&mut stdin, msg)?;
            interrupted = true;
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
                let result = proto.answer(m, &params);
                // The client's side of the exchange, as sent.
                lines.push(send::<P>(&mut stdin, json!({"id": id, "result": result}))?);
            }
            (None, Some(id)) => {
                for next in proto.response(id, &msg, &line).map_err(fail)? {
                    send::<P>(&mut stdin, next)?;
                }
            }
            (Some(m), None) => {
                if interrupt_at.is_none()
                    && let Some(ms) = sc.options.interrupt_after_ms
                    && proto.arms_interrupt(m, &msg)
                {
                    interrupt_at = Some(Instant::now() + Duration::from_millis(ms));
                }
                proto.notification(m, &msg);
            }
            (None, None) => {}
        }
    }
    // Collect what arrives right after the end of the turn, then stop the peer.
    let tail = Instant::now() + Duration::from_millis(300);
    while let Ok(l) = orx.recv_timeout(tail.saturating_duration_since(Instant::now())) {
        lines.push(l);
    }
    drop(stdin);
    run::stop(&mut child, P::GRACE);
    stderr.extend(erx.try_iter());
    run::write_lines(&dirs.root.join("stderr.log"), &stderr)?;
    if !proto.done() {
        return Err(fail(format!(
            "{} within {}s ({} lines)",
            P::UNFINISHED,
            timeout.as_secs(),
            lines.len()
        )));
    }
    Ok(lines)
}
