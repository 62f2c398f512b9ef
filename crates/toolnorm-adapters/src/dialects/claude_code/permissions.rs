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
//! approval is requested (its reason: the check's `decision_reason`, else the prompt's
//! `title`), and the host's `control_response` (`allow` / `deny`, when the stream holds
//! it) decides it.

use foldhash::{HashMap, HashSet};

use serde::Deserialize;
use serde_json::value::RawValue;
use serde_json::{Map, Value};
use toolnorm::{ApprovalRequested, ApprovalResolved, Decision, ErrorCode, ToolError};

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

/// The calls a permission check denied, until their result or the end of the turn, and
/// the permission requests not yet answered.
#[derive(Debug, Default)]
pub(super) struct Denials {
    denied: HashMap<String, Denial>,
    /// `can_use_tool` request id → the call it asks about.
    asked: HashMap<String, String>,
    /// Calls the host's answer refused, until their result: the answer ended the call.
    answered_no: HashSet<String>,
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
    /// call may run: its approval is requested. Other requests (hook callbacks, MCP
    /// messages, elicitations) carry no call.
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
        let text = |key: &str| request.get(key).and_then(Value::as_str).map(str::to_owned);
        let asked = ApprovalRequested {
            id: id.to_owned(),
            reason: text("decision_reason").or_else(|| text("title")),
            options: Vec::new(),
            risk: None,
            at: None,
        };
        if let Some(request_id) = envelope_request_id(bytes) {
            self.asked.insert(request_id, id.to_owned());
        }
        out.approval_requested(line, asked);
    }

    /// `control_response`: the host's answer to a `can_use_tool` request, when the stream
    /// holds both directions (`behavior` `allow` or `deny`, with a message).
    pub fn control_response(&mut self, line: u64, bytes: &[u8], out: &mut Facts<'_>) {
        /// The SDK's `SDKControlResponse`: `{response: {subtype, request_id, response}}`.
        #[derive(Deserialize)]
        struct ControlResponse {
            #[serde(default)]
            response: Option<Map<String, Value>>,
        }
        let Ok(ControlResponse {
            response: Some(response),
        }) = serde_json::from_slice::<ControlResponse>(bytes)
        else {
            return;
        };
        let Some(id) = response
            .get("request_id")
            .and_then(Value::as_str)
            .and_then(|request| self.asked.remove(request))
        else {
            // The answer to another request (hooks, MCP, initialize): no call in it.
            return;
        };
        let answer = response.get("response");
        let behavior = answer
            .and_then(|answer| answer.get("behavior"))
            .and_then(Value::as_str);
        let decision = match (response.get("subtype").and_then(Value::as_str), behavior) {
            (Some("success"), Some("allow")) => Decision::Approved,
            (Some("success"), Some("deny")) => Decision::Denied,
            // The host failed to answer: the call does not run.
            (Some("error"), _) => Decision::Cancelled,
            _ => {
                return out.diagnostic(Diagnostic::notice(
                    line,
                    DiagnosticKind::UnknownEvent,
                    format!("an answer to the permission request of call `{id}` that says neither allow nor deny"),
                ));
            }
        };
        let feedback = answer
            .and_then(|answer| answer.get("message"))
            .or_else(|| response.get("error"))
            .and_then(Value::as_str)
            .filter(|message| !message.is_empty())
            .map(str::to_owned);
        if decision != Decision::Approved {
            self.answered_no.insert(id.clone());
        }
        // An allow may change the call's input (`updatedInput`): the call runs with it
        // (an `AskUserQuestion` host answers so, the answers in its `answers`).
        if let Some(input) = answer
            .filter(|_| decision == Decision::Approved)
            .and_then(|answer| answer.get("updatedInput"))
            .filter(|input| input.is_object())
        {
            out.update_input(line, &id, input.clone(), None);
        }
        // The host may ask a person or decide in code: who decided is not said.
        let resolution = ApprovalResolved {
            id,
            decision,
            decided_by: None,
            scope: None,
            option_id: None,
            feedback,
            risk: None,
            at: None,
        };
        out.approval_resolved(line, resolution);
    }

    /// Transcripts: the permission check refused the call (`permissionDecision`), for a
    /// reason its result will say.
    pub fn refused(&mut self, id: &str) {
        self.denied.entry(id.to_owned()).or_default();
    }

    /// Whether the host's answer refused the call whose result came (the answer ended
    /// it); asked once, at its result.
    pub fn answered_no(&mut self, id: &str) -> bool {
        self.answered_no.remove(id)
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

/// The `request_id` of a `control_request` line.
fn envelope_request_id(bytes: &[u8]) -> Option<String> {
    #[derive(Deserialize)]
    struct Request {
        #[serde(default)]
        request_id: Option<String>,
    }
    serde_json::from_slice::<Request>(bytes).ok()?.request_id
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
    fn a_permission_request_is_the_calls_approval_and_the_hosts_answer_decides_it() {
        let asked = json!({"type": "control_request", "request_id": "r1", "request": {
            "subtype": "can_use_tool", "tool_name": "Bash", "input": {"command": "rm notes.txt"},
            "tool_use_id": "toolu_1", "decision_reason": "rm is not allowed", "blocked_path": null}});
        let call = part(&[bash_call(), asked.clone()]);
        assert_eq!(call.state, ToolState::Started);
        assert_eq!(
            call.metadata.unwrap()["approval"],
            json!({"status": "pending", "reason": "rm is not allowed"})
        );
        let denied = json!({"type": "control_response", "response": {"subtype": "success",
            "request_id": "r1", "response": {"behavior": "deny", "message": "not this file"}}});
        let call = part(&[bash_call(), asked.clone(), denied]);
        let error = call.error.unwrap();
        assert_eq!(
            (error.message.as_str(), error.code),
            ("not this file", Some(ErrorCode::PermissionDenied))
        );
        let allowed = json!({"type": "control_response", "response": {"subtype": "success",
            "request_id": "r1", "response": {"behavior": "allow", "updatedInput": {}}}});
        let call = part(&[bash_call(), asked, allowed]);
        assert_eq!(call.state, ToolState::Started);
        assert_eq!(call.metadata.unwrap()["approval"]["status"], "approved");
        // Other requests carry no call.
        let hook = json!({"type": "control_request", "request_id": "r2",
            "request": {"subtype": "hook_callback", "callback_id": "c", "input": {}}});
        assert!(
            !part(&[bash_call(), hook])
                .metadata
                .unwrap()
                .contains_key("approval")
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
