//! Permission denials. A call a permission check denied fails with code
//! `permission_denied`; Claude Code says so in three places:
//!
//! - stream-json: a `system` `permission_denied` message before the call's result, with
//!   the reason;
//! - transcripts: the result's line has `permissionDecision` `reject` or `deny`;
//! - the end of the turn (`result`): `permission_denials` names every denied call, and
//!   those still open (never answered) fail there.
//!
//! A host that answers permission checks itself (`--permission-prompt-tool stdio`, the
//! SDKs) sees a `control_request` `can_use_tool` for each call to check: the call's
//! `metadata.permission` says it was asked, and why (`decisionReason`, `blockedPath`).

use std::collections::HashMap;

use serde::Deserialize;
use serde_json::value::RawValue;
use serde_json::{Map, Value};
use toolnorm::{ErrorCode, JsonObject, ToolError, meta};

use super::envelope::Envelope;
use crate::diagnostic::{Diagnostic, DiagnosticKind};
use crate::track::{Ending, Facts, text_error};

/// A permission check denied a call; the reason, when it gave one.
#[derive(Debug, Default)]
pub(super) struct Denial {
    reason: Option<String>,
}

impl Denial {
    /// The error of the denied call whose result says `text`: the denial's reason, else
    /// the result's first line.
    pub fn error(self, text: &str) -> ToolError {
        let reason = self.reason.unwrap_or_else(|| text_error(text).message);
        ToolError::new(reason).with_code(ErrorCode::PermissionDenied)
    }
}

/// The calls a permission check denied, until their result or the end of the turn.
#[derive(Debug, Default)]
pub(super) struct Denials {
    denied: HashMap<String, Denial>,
}

impl Denials {
    /// `system` `permission_denied`: the call's result will come, and is a denial.
    pub fn announced(
        &mut self,
        line: u64,
        bytes: &[u8],
        envelope: &Envelope<'_>,
        out: &mut Facts<'_>,
    ) {
        match (
            &envelope.tool_use_id,
            serde_json::from_slice::<Value>(bytes),
        ) {
            (Some(id), Ok(value)) => {
                let reason = value
                    .get("message")
                    .and_then(Value::as_str)
                    .map(str::to_owned);
                self.denied
                    .insert(id.as_ref().to_owned(), Denial { reason });
            }
            _ => out.diagnostic(Diagnostic::at(
                line,
                DiagnosticKind::MalformedEvent,
                "a permission_denied message without `tool_use_id`",
            )),
        }
    }

    /// `control_request`: the CLI asks its host a question; `can_use_tool` is whether a
    /// call may run, which the call's `metadata.permission` records. Other requests
    /// (hook callbacks, MCP messages, elicitations) carry no call.
    pub fn control_request(&mut self, line: u64, bytes: &[u8], out: &mut Facts<'_>) {
        /// The SDK's `SDKControlRequest` with a `SDKControlPermissionRequest` in it.
        #[derive(Deserialize)]
        struct ControlRequest {
            #[serde(default)]
            request: Option<Map<String, Value>>,
        }
        let request = match serde_json::from_slice::<ControlRequest>(bytes) {
            Ok(ControlRequest {
                request: Some(request),
            }) => request,
            Ok(_) => {
                return out.diagnostic(Diagnostic::at(
                    line,
                    DiagnosticKind::MalformedEvent,
                    "a control_request without `request`",
                ));
            }
            Err(error) => {
                return out.diagnostic(crate::read::json::malformed(
                    line,
                    "`control_request`",
                    &error,
                ));
            }
        };
        if request.get("subtype").and_then(Value::as_str) != Some("can_use_tool") {
            return;
        }
        let Some(id) = request.get("tool_use_id").and_then(Value::as_str) else {
            return out.diagnostic(Diagnostic::at(
                line,
                DiagnosticKind::MalformedEvent,
                "a `can_use_tool` request without `tool_use_id`",
            ));
        };
        if !out.is_open(id) {
            return;
        }
        let mut permission = JsonObject::new();
        permission.insert("asked".into(), true.into());
        for (from, to) in [
            ("decision_reason", "decisionReason"),
            ("decision_reason_type", "decisionReasonType"),
            ("blocked_path", "blockedPath"),
            ("title", "title"),
        ] {
            if let Some(value) = request.get(from).filter(|value| !value.is_null()) {
                permission.insert(to.into(), value.clone());
            }
        }
        let mut metadata = JsonObject::new();
        metadata.insert(meta::PERMISSION.into(), Value::Object(permission));
        out.merge_metadata(line, id, metadata);
    }

    /// Transcripts: the permission check refused the call (`permissionDecision`), for a
    /// reason its result will say.
    pub fn refused(&mut self, id: &str) {
        self.denied.entry(id.to_owned()).or_default();
    }

    /// The denial of a call whose result came, if it was denied.
    pub fn take(&mut self, id: &str) -> Option<Denial> {
        self.denied.remove(id)
    }

    /// The end of a turn (`result`): the calls its `permission_denials` name fail, if
    /// still open. `scanned`: the denials as the one scan of the line read them, if it
    /// did (else they are read out of `bytes`).
    pub fn turn_ended(
        &mut self,
        line: u64,
        bytes: &[u8],
        scanned: Option<Option<&RawValue>>,
        out: &mut Facts<'_>,
    ) {
        /// Only the denials are read out of the session's last line, the rest skipped.
        #[derive(Deserialize)]
        struct Denied<'a> {
            #[serde(borrow, default)]
            permission_denials: Option<&'a RawValue>,
        }
        let raw = match scanned {
            Some(raw) => raw,
            None => serde_json::from_slice::<Denied<'_>>(bytes)
                .ok()
                .and_then(|denied| denied.permission_denials),
        };
        let denials: Vec<Value> = raw
            .and_then(|raw| serde_json::from_str(raw.get()).ok())
            .unwrap_or_default();
        for denial in &denials {
            let Some(id) = denial.get("tool_use_id").and_then(Value::as_str) else {
                continue;
            };
            if out.is_open(id) {
                let reason = self.denied.remove(id).and_then(|denial| denial.reason);
                let error = ToolError::new(reason.unwrap_or_else(|| "permission denied".into()))
                    .with_code(ErrorCode::PermissionDenied);
                out.fail(line, id, error, Ending::default());
            }
        }
    }
}

/// Transcripts: whether the permission check refused the calls of a result's line
/// (`permissionDecision` `reject` or `deny`).
pub(super) fn refused(envelope: &Envelope<'_>) -> bool {
    envelope
        .permission_decision
        .and_then(|raw| serde_json::from_str::<Value>(raw.get()).ok())
        .and_then(|decision| decision.get("decision")?.as_str().map(str::to_owned))
        .is_some_and(|decision| matches!(decision.as_str(), "reject" | "deny"))
}

#[cfg(test)]
mod tests {
    use serde_json::{Value, json};
    use toolnorm::ToolState;

    use super::super::tests::part;
    use super::*;

    fn bash_call() -> Value {
        json!({"type": "assistant", "message": {"content": [{"type": "tool_use", "id": "toolu_1",
            "name": "Bash", "input": {"command": "rm notes.txt"}}]}})
    }

    fn failed_result(fields: Value) -> Value {
        let mut line = json!({"type": "user", "message": {"content": [{"type": "tool_result",
            "tool_use_id": "toolu_1", "content": "rm needs approval.\nmore", "is_error": true}]}});
        line.as_object_mut()
            .unwrap()
            .extend(fields.as_object().unwrap().clone());
        line
    }

    #[test]
    fn a_denial_is_announced_before_the_result_or_in_the_transcript() {
        let announced = json!({"type": "system", "subtype": "permission_denied",
            "tool_use_id": "toolu_1", "message": "Permission to use Bash has been denied."});
        let call = part(&[bash_call(), announced, failed_result(json!({}))]);
        let error = call.error.unwrap();
        assert_eq!(
            (error.message.as_str(), error.code.clone()),
            (
                "Permission to use Bash has been denied.",
                Some(ErrorCode::PermissionDenied)
            )
        );
        let transcript = failed_result(json!({"permissionDecision": {"decision": "reject"}}));
        let error = part(&[bash_call(), transcript]).error.unwrap();
        assert_eq!(
            (error.message.as_str(), error.code.clone()),
            ("rm needs approval.", Some(ErrorCode::PermissionDenied))
        );
    }

    #[test]
    fn a_denied_call_without_a_result_fails_at_the_end_of_the_turn() {
        let end = json!({"type": "result", "subtype": "success",
            "permission_denials": [{"tool_use_id": "toolu_1", "tool_name": "Bash", "tool_input": {}}]});
        let call = part(&[bash_call(), end]);
        assert_eq!(call.state, ToolState::Error);
        let error = call.error.unwrap();
        assert_eq!(
            (error.message.as_str(), error.code.clone()),
            ("permission denied", Some(ErrorCode::PermissionDenied))
        );
    }

    #[test]
    fn a_permission_request_is_recorded_on_its_call() {
        let asked = json!({"type": "control_request", "request_id": "r1", "request": {
            "subtype": "can_use_tool", "tool_name": "Bash", "input": {"command": "rm notes.txt"},
            "tool_use_id": "toolu_1", "decision_reason": "rm is not allowed", "blocked_path": null}});
        let call = part(&[bash_call(), asked]);
        assert_eq!(call.state, ToolState::Started);
        assert_eq!(
            call.metadata.unwrap()["permission"],
            json!({"asked": true, "decisionReason": "rm is not allowed"})
        );
        // Other requests carry no call.
        let hook = json!({"type": "control_request", "request_id": "r2",
            "request": {"subtype": "hook_callback", "callback_id": "c", "input": {}}});
        assert!(
            !part(&[bash_call(), hook])
                .metadata
                .unwrap()
                .contains_key("permission")
        );
    }

    #[test]
    fn a_denial_comes_before_the_exit_code() {
        let announced =
            json!({"type": "system", "subtype": "permission_denied", "tool_use_id": "toolu_1"});
        let mut result = failed_result(json!({}));
        result["message"]["content"][0]["content"] = json!("Exit code 1\nrm: refused");
        let error = part(&[bash_call(), announced, result]).error.unwrap();
        assert_eq!(
            (error.message.as_str(), error.code.clone()),
            ("Exit code 1", Some(ErrorCode::PermissionDenied))
        );
    }
}
