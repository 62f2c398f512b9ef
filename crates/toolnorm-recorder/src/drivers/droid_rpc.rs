//! Factory Droid's JSON-RPC driver: `droid exec --input-format stream-jsonrpc
//! --output-format stream-jsonrpc`, configured as `droid exec` is (`droid`).
//!
//! The driver sends `droid.initialize_session` (the working directory, the custom
//! model, autonomy `high`), then `droid.add_user_message` with the prompt; it allows
//! each `droid.request_permission` once (`proceed_once`); it records
//! every line Droid writes until the `agent_turn_completed` notification. Every message
//! it sends carries Droid's envelope (`type`, `factoryApiVersion`).

use std::time::Duration;

use serde_json::{Value, json};

use super::droid::MODEL_ID;
use super::jsonrpc::{self, Protocol};
use super::{Raw, Recorder};
use crate::error::Result;
use crate::run::RunDirs;
use crate::scenario::Scenario;

/// Droid's protocol, from `droid.initialize_session` to `agent_turn_completed`.
struct DroidRpc<'a> {
    sc: &'a Scenario,
    cwd: String,
    session: Option<String>,
    done: bool,
}

impl Protocol for DroidRpc<'_> {
    const PEER: &'static str = "droid exec --output-format stream-jsonrpc";
    const JSONRPC: bool = true;
    // The driver's requests name their `type`; an answer to Droid's request does not,
    // and is a `response`.
    const ENVELOPE: &'static [(&'static str, &'static str)] =
        &[("type", "response"), ("factoryApiVersion", "1.0.0")];
    const UNFINISHED: &'static str = "turn did not complete";
    const GRACE: Duration = Duration::from_secs(3);

    fn opening(&mut self) -> Vec<Value> {
        vec![json!({
            "type": "request", "id": "1", "method": "droid.initialize_session",
            "params": {"machineId": "toolnorm-record", "cwd": self.cwd, "modelId": MODEL_ID, "autonomyLevel": "high"}
        })]
    }

    fn answer(&self, method: &str, _params: &Value) -> Value {
        match method {
            "droid.request_permission" => json!({"selectedOption": "proceed_once"}),
            _ => json!({}),
        }
    }

    fn response(
        &mut self,
        id: &Value,
        msg: &Value,
        line: &str,
    ) -> std::result::Result<Vec<Value>, String> {
        if id != &json!("1") {
            return Ok(Vec::new());
        }
        let session = msg
            .pointer("/result/sessionId")
            .and_then(Value::as_str)
            .ok_or_else(|| format!("droid.initialize_session failed: {line}"))?;
        self.session = Some(session.to_owned());
        Ok(vec![json!({
            "type": "request", "id": "2", "method": "droid.add_user_message",
            "params": {"text": self.sc.full_prompt()}
        })])
    }

    fn notification(&mut self, method: &str, msg: &Value) {
        let kind = msg
            .pointer("/params/notification/type")
            .and_then(Value::as_str);
        if method == "droid.session_notification" && kind == Some("agent_turn_completed") {
            self.done = true;
        }
    }

    fn arms_interrupt(&self, method: &str, msg: &Value) -> bool {
        method == "droid.session_notification"
            && msg
                .pointer("/params/notification/type")
                .and_then(Value::as_str)
                == Some("tool_execution_phase_changed")
            && msg
                .pointer("/params/notification/phase")
                .and_then(Value::as_str)
                == Some("executing")
    }

    fn interrupt(&self) -> Option<Value> {
        let session = self.session.as_ref()?;
        Some(json!({
            "type": "request", "id": "3", "method": "droid.interrupt_session",
            "params": {"sessionId": session}
        }))
    }

    fn done(&self) -> bool {
        self.done
    }
}

/// Records one scenario through Droid's stream-jsonrpc.
pub(super) fn record(rec: &Recorder, sc: &Scenario, dirs: &RunDirs) -> Result<Raw> {
    let mut cmd = rec.droid_command(dirs)?;
    cmd.args([
        "exec",
        "--input-format",
        "stream-jsonrpc",
        "--output-format",
        "stream-jsonrpc",
        "-m",
        MODEL_ID,
    ]);
    let mut proto = DroidRpc {
        sc,
        cwd: dirs.work.display().to_string(),
        session: None,
        done: false,
    };
    let lines = jsonrpc::converse(&mut proto, &mut cmd, "droid-rpc", sc, dirs, rec.timeout)?;
    Ok(Raw {
        lines,
        command: format!(
            "droid exec --input-format stream-jsonrpc --output-format stream-jsonrpc -m {MODEL_ID}  # stdio JSON-RPC: droid.initialize_session {{cwd, modelId, autonomyLevel}}, droid.add_user_message {{text}}"
        ),
        extras: Vec::new(),
        session: Vec::new(),
    })
}
