//! `session/request_permission`: the agent asks the client whether a call may run, with
//! the options it offers; the client's response (when the log holds it) selects one, or
//! says the prompt turn was cancelled. Both become the call's approval.

use serde::Deserialize;
use serde_json::value::RawValue;
use serde_json::{Map, Value};
use toolnorm::{ApprovalOption, ApprovalRequested, ApprovalResolved, DecidedBy, Decision};
use toolnorm_wire::acp;

use super::seen::{Raw, Seen};
use super::{AcpAdapter, malformed};
use crate::diagnostic::{Diagnostic, DiagnosticKind};
use crate::track::{Facts, option_kind};

/// `session/request_permission` params (the pinned schema holds only `session/update`;
/// the tool call in it is the schema's `ToolCallUpdate`).
#[derive(Deserialize)]
struct PermissionRequest {
    #[serde(rename = "toolCall")]
    tool_call: acp::ToolCallUpdate,
    #[serde(default)]
    options: Vec<Value>,
}

impl AcpAdapter {
    pub(super) fn permission_request(
        &mut self,
        line: u64,
        message: &Map<String, Value>,
        out: &mut Facts<'_>,
    ) {
        let Some(params) = message.get("params") else {
            out.diagnostic(malformed(
                line,
                "`session/request_permission` without params",
            ));
            return;
        };
        if params
            .get("_meta")
            .and_then(|meta| meta.get(crate::acp::META_KEY))
            .is_some()
        {
            // A request toolnorm wrote: the call's frames carry its approval whole
            // (`_meta.toolnorm.metadata.approval`), restored with them.
            return;
        }
        let request = match PermissionRequest::deserialize(params) {
            Ok(request) => request,
            Err(error) => {
                out.diagnostic(malformed(
                    line,
                    format!("`session/request_permission`: {error}"),
                ));
                return;
            }
        };
        let raw = params.get("toolCall").unwrap_or(&Value::Null);
        let mut seen = Seen::from_update(
            request.tool_call,
            Raw::of(raw),
            params.get("sessionId").cloned(),
        );
        let id = seen.id.clone();
        // The request shows the user a call already announced: its `rawInput` is what the
        // agent chose to show (OpenCode's is the command alone), not a new input.
        if out.is_open(&id) {
            seen.raw_input = None;
        }
        self.seen(line, seen, out);
        if !out.is_open(&id) {
            return;
        }
        let options = request.options.iter().filter_map(approval_option).collect();
        out.approval_requested(
            line,
            ApprovalRequested {
                id: id.clone(),
                reason: None,
                options,
                risk: None,
                at: None,
            },
        );
        if let Some(request_id) = message.get("id") {
            self.permissions
                .insert(request_id.to_string(), (id, request.options));
        }
    }

    /// Whether a response (its id as written) may answer a permission request or an
    /// elicitation.
    pub(super) fn answers(&self, id: &RawValue) -> bool {
        if self.permissions.is_empty() && self.elicitations.is_empty() {
            return false;
        }
        serde_json::from_str::<Value>(id.get()).map_or(true, |id| {
            let id = id.to_string();
            self.permissions.contains_key(&id) || self.elicitations.contains_key(&id)
        })
    }

    /// The client's answer to a permission request: the option it selected, or
    /// `cancelled` (the prompt turn was cancelled), or an error.
    pub(super) fn response(
        &mut self,
        line: u64,
        message: &Map<String, Value>,
        out: &mut Facts<'_>,
    ) {
        let Some(request_id) = message.get("id") else {
            return;
        };
        let Some((id, options)) = self.permissions.remove(&request_id.to_string()) else {
            self.elicitation_response(line, message, out);
            return;
        };
        let outcome = message
            .get("result")
            .and_then(|result| result.get("outcome"));
        let chosen = outcome
            .and_then(|outcome| outcome.get("optionId"))
            .and_then(Value::as_str);
        let selected = outcome
            .and_then(|outcome| outcome.get("outcome"))
            .and_then(Value::as_str);
        let (decision, scope, option_id, feedback) = match (selected, chosen, message.get("error"))
        {
            (Some("selected"), Some(chosen), _) => {
                let kind = options
                    .iter()
                    .find(|option| option.get("optionId").and_then(Value::as_str) == Some(chosen))
                    .and_then(|option| option.get("kind"))
                    .and_then(Value::as_str);
                let Some((decision, scope)) = kind.and_then(option_kind) else {
                    return out.diagnostic(Diagnostic::notice(
                        line,
                        DiagnosticKind::UnknownEvent,
                        format!("the permission request of call `{id}` was answered with option `{chosen}`, which it did not offer with a known kind"),
                    ));
                };
                (decision, Some(scope), Some(chosen.to_owned()), None)
            }
            (Some("cancelled"), _, _) => (Decision::Cancelled, None, None, None),
            (_, _, Some(error)) => {
                let message = error
                    .get("message")
                    .and_then(Value::as_str)
                    .map(str::to_owned);
                (Decision::Cancelled, None, None, message)
            }
            _ => {
                return out.diagnostic(malformed(
                    line,
                    format!(
                        "an answer to the permission request of call `{id}` without an outcome"
                    ),
                ));
            }
        };
        out.approval_resolved(
            line,
            ApprovalResolved {
                id,
                decision,
                decided_by: Some(DecidedBy::User),
                scope,
                option_id,
                feedback,
                risk: None,
                at: None,
            },
        );
    }
}

/// A `PermissionOption` (`optionId`, `name`, `kind`) as an approval option; `None` for
/// an option of a kind ACP does not define.
fn approval_option(option: &Value) -> Option<ApprovalOption> {
    let text = |key: &str| option.get(key).and_then(Value::as_str);
    let (decision, scope) = option_kind(text("kind")?)?;
    let id = text("optionId")?.to_owned();
    Some(ApprovalOption {
        label: text("name").map_or_else(|| id.clone(), str::to_owned),
        id,
        decision,
        scope: Some(scope),
    })
}
