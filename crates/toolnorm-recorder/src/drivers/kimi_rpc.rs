//! Kimi's JSON-RPC driver: `kimi --wire`, configured as `kimi --print` is (`kimi`).
//!
//! The driver sends `initialize` (wire protocol `1.10`), then `prompt` with the prompt;
//! Kimi asks before each call that needs approval (`request`, an `ApprovalRequest`, as
//! `--wire` does not approve on its own), and the driver approves it once, or rejects it
//! when its description contains one of the scenario's `codex_decline` texts; it records
//! every line Kimi writes until the answer to `prompt`. Releases before 1.x answer no
//! `initialize`: the prompt is sent after it all the same. An interrupted scenario sends
//! `cancel` once its delay has passed after the first `ToolCall`.

use std::time::Duration;

use serde_json::{Value, json};

use super::jsonrpc::{self, Protocol};
use super::{Raw, Recorder};
use crate::error::Result;
use crate::run::RunDirs;
use crate::scenario::Scenario;

/// The wire protocol version the driver speaks.
const PROTOCOL_VERSION: &str = "1.10";

/// Kimi's wire protocol, from `initialize` to the answer to `prompt`.
struct KimiRpc<'a> {
    sc: &'a Scenario,
    done: bool,
}

impl Protocol for KimiRpc<'_> {
    const PEER: &'static str = "kimi --wire";
    const JSONRPC: bool = true;
    const UNFINISHED: &'static str = "prompt did not finish";
    const GRACE: Duration = Duration::from_secs(3);

    fn opening(&mut self) -> Vec<Value> {
        vec![
            json!({
                "id": "1", "method": "initialize",
                "params": {"protocol_version": PROTOCOL_VERSION, "client": {"name": "toolnorm-record"}}
            }),
            json!({"id": "2", "method": "prompt", "params": {"user_input": self.sc.full_prompt()}}),
        ]
    }

    fn answer(&self, method: &str, params: &Value) -> Value {
        let payload = params.get("payload").cloned().unwrap_or(Value::Null);
        let request = payload.get("id").cloned().unwrap_or(Value::Null);
        match (method, params.get("type").and_then(Value::as_str)) {
            ("request", Some("ApprovalRequest")) => {
                let text = payload.to_string();
                let reject = self
                    .sc
                    .options
                    .codex_decline
                    .iter()
                    .any(|needle| text.contains(needle.as_str()));
                let response = if reject { "reject" } else { "approve" };
                json!({"request_id": request, "response": response})
            }
            _ => json!({"request_id": request}),
        }
    }

    fn response(
        &mut self,
        id: &Value,
        _msg: &Value,
        _line: &str,
    ) -> std::result::Result<Vec<Value>, String> {
        if id == &json!("2") {
            self.done = true;
        }
        Ok(Vec::new())
    }

    fn notification(&mut self, _method: &str, _msg: &Value) {}

    fn arms_interrupt(&self, method: &str, msg: &Value) -> bool {
        method == "event" && msg.pointer("/params/type").and_then(Value::as_str) == Some("ToolCall")
    }

    fn interrupt(&self) -> Option<Value> {
        Some(json!({"id": "3", "method": "cancel"}))
    }

    fn done(&self) -> bool {
        self.done
    }
}

/// Records one scenario through `kimi --wire`.
pub(super) fn record(rec: &Recorder, sc: &Scenario, dirs: &RunDirs) -> Result<Raw> {
    let (mut cmd, args) = rec.kimi_command(sc, dirs, false)?;
    cmd.args(&args).arg("--wire");
    let mut proto = KimiRpc { sc, done: false };
    let lines = jsonrpc::converse(&mut proto, &mut cmd, "kimi-rpc", sc, dirs, rec.timeout)?;
    let shown = super::shell_join(&args);
    Ok(Raw {
        lines,
        command: format!(
            "kimi {shown} --wire  # stdio JSON-RPC: initialize {{protocol_version: {PROTOCOL_VERSION}}}, prompt {{user_input}}; each ApprovalRequest answered approve (reject: codex_decline)"
        ),
        extras: Vec::new(),
        session: Vec::new(),
    })
}
