//! Codex app-server driver: JSON-RPC (v2 protocol) over the CLI's stdio.
//!
//! The driver sends `initialize`, `initialized`, `thread/start` and
//! `turn/start`, answers approval requests (declining or cancelling those the scenario
//! names, each answer recorded after its request),
//! optionally sends `turn/interrupt`, and records every line the server writes
//! until the main thread's turn completes. The rollout files the server wrote
//! for the session are kept beside it (`codex-rollout/`).

use std::path::Path;
use std::time::Duration;

use serde_json::{Value, json};

use super::jsonrpc::{self, Protocol};
use super::{Raw, Recorder};
use crate::error::Result;
use crate::run::RunDirs;
use crate::scenario::{Answer, Scenario};

/// The answer to a server-initiated request: accept, or decline or cancel the requests
/// the scenario names.
fn answer(sc: &Scenario, method: &str, params: &Value) -> Value {
    let answer = sc.options.answer(&params.to_string());
    let pick = |accept: &str, decline: &str, cancel: &str| match answer {
        Answer::Allow => accept.to_owned(),
        Answer::Decline => decline.to_owned(),
        Answer::Cancel => cancel.to_owned(),
    };
    match method {
        "item/commandExecution/requestApproval" | "item/fileChange/requestApproval" => {
            json!({"decision": pick("accept", "decline", "cancel")})
        }
        "execCommandApproval" | "applyPatchApproval" => {
            json!({"decision": pick("approved", "denied", "abort")})
        }
        "mcpServer/elicitation/request" => {
            json!({"action": pick("accept", "decline", "cancel"), "content": {}})
        }
        "item/permissions/requestApproval" => json!({"permissions": {}, "scope": "turn"}),
        _ => json!({}),
    }
}

/// The app-server v2 protocol, from `initialize` to the main thread's
/// `turn/completed`.
struct AppServer<'a> {
    sc: &'a Scenario,
    work: &'a Path,
    thread_id: Option<String>,
    turn_id: Option<String>,
    done: bool,
}

impl Protocol for AppServer<'_> {
    const PEER: &'static str = "codex app-server";
    const JSONRPC: bool = false;
    const UNFINISHED: &'static str = "turn did not complete";
    const GRACE: Duration = Duration::from_secs(3);

    fn opening(&mut self) -> Vec<Value> {
        vec![
            json!({"id": 1, "method": "initialize", "params": {"clientInfo": {"name": "toolnorm-record", "title": "toolnorm recorder", "version": env!("CARGO_PKG_VERSION")}}}),
            json!({"method": "initialized"}),
            json!({"id": 2, "method": "thread/start", "params": {"cwd": self.work}}),
        ]
    }

    fn answer(&self, method: &str, params: &Value) -> Value {
        answer(self.sc, method, params)
    }

    fn response(
        &mut self,
        id: &Value,
        msg: &Value,
        line: &str,
    ) -> std::result::Result<Vec<Value>, String> {
        if id == &json!(2) {
            let tid = msg
                .pointer("/result/thread/id")
                .and_then(Value::as_str)
                .ok_or_else(|| format!("thread/start failed: {line}"))?
                .to_owned();
            let start = json!({"id": 3, "method": "turn/start", "params": {"threadId": tid, "input": [{"type": "text", "text": self.sc.full_prompt()}]}});
            self.thread_id = Some(tid);
            return Ok(vec![start]);
        }
        if id == &json!(3) {
            self.turn_id = msg
                .pointer("/result/turn/id")
                .and_then(Value::as_str)
                .map(str::to_owned);
        }
        Ok(Vec::new())
    }

    fn notification(&mut self, method: &str, msg: &Value) {
        let same_thread =
            msg.pointer("/params/threadId").and_then(Value::as_str) == self.thread_id.as_deref();
        if method == "turn/completed" && same_thread {
            self.done = true;
        }
    }

    fn arms_interrupt(&self, method: &str, msg: &Value) -> bool {
        method == "item/started"
            && msg.pointer("/params/item/type").and_then(Value::as_str) == Some("commandExecution")
    }

    fn interrupt(&self) -> Option<Value> {
        let (th, tu) = (self.thread_id.as_ref()?, self.turn_id.as_ref()?);
        Some(json!({"id": 4, "method": "turn/interrupt", "params": {"threadId": th, "turnId": tu}}))
    }

    fn done(&self) -> bool {
        self.done
    }
}

/// Records one scenario through `codex app-server`.
pub(super) fn record(rec: &Recorder, sc: &Scenario, dirs: &RunDirs) -> Result<Raw> {
    let mut cmd = rec.codex_command(sc, dirs)?;
    cmd.arg("app-server");
    let mut proto = AppServer {
        sc,
        work: &dirs.work,
        thread_id: None,
        turn_id: None,
        done: false,
    };
    let lines = jsonrpc::converse(
        &mut proto,
        &mut cmd,
        "codex-app-server",
        sc,
        dirs,
        rec.timeout,
    )?;
    let rollout = rec.codex_rollout(dirs);
    let extras = match rollout.is_empty() {
        true => Vec::new(),
        false => vec![("codex-rollout".to_owned(), rollout)],
    };
    Ok(Raw {
        lines,
        command: "codex app-server  # stdio JSON-RPC: initialize, initialized, thread/start {cwd}, turn/start {threadId, input}".into(),
        extras,
        session: Vec::new(),
    })
}
