//! `droid exec --input-format stream-jsonrpc --output-format stream-jsonrpc`: Droid's own
//! JSON-RPC protocol (not ACP), every message framed with `factoryApiVersion`. A client
//! opens a session (`droid.initialize_session`), sends the user's message
//! (`droid.add_user_message`) and answers `droid.request_permission`; Droid reports the
//! session in `droid.session_notification`s.
//!
//! | line | canonical events |
//! | --- | --- |
//! | notification `tool_call` (`toolUse`: `id`, `name`, `input`; sent again as the input streams) | `toolCallStarted`, then `inputUpdated` |
//! | notification `create_message` with `tool_use` blocks | `toolCallStarted` (or `inputUpdated`) |
//! | notification `tool_execution_phase_changed` `executing` | `toolCallRunning` |
//! | notification `tool_progress_update` (a command's `update.fullOutput` so far) | `toolCallRunning`, `outputAppended` |
//! | notification `child_session_available` (a `Task` call's subagent session) | `metadataMerged` of `metadata.childSessionId` |
//! | notification `tool_result` (`toolUseId`, `content`, `isError`) | `toolCallCompleted` / `toolCallFailed` |
//! | request `droid.request_permission` (its `options` by value: `proceed_once`, `proceed_always`, …, `cancel`) | `approvalRequested` of each call it names |
//! | notification `permission_resolved` (`selectedOption`) | `approvalResolved` (`decidedBy: user`) |
//! | responses, other notifications (text, working state, titles, token usage, settings) | (known, nothing about tools) |
//!
//! A call the user declined or interrupted (`Tool execution cancelled by user`, which
//! Droid sends twice) fails with code `user_rejected`; the other errors are those of the
//! stream-json (`outcome`).

use std::collections::HashMap;

use serde::Deserialize;
use serde_json::Value;
use toolnorm::{
    AnyToolCall, ApprovalOption, ApprovalRequested, ApprovalResolved, ApprovalScope, DecidedBy,
    Decision, ErrorCode, JsonObject, ToolKind, meta,
};

use super::stream::sighting;
use super::{RULES, outcome, split_mcp};
use crate::Dialect;
use crate::adapter::Adapter;
use crate::diagnostic::{Diagnostic, DiagnosticKind};
use crate::dialects::Entry;
use crate::read::json;
use crate::read::line_keys::LineKeys;
use crate::track::{Ending, Facts};

/// The dialect: Droid's stream-jsonrpc, with Droid's provider for the rules.
pub(crate) const DIALECT: Dialect = Dialect::new("droid-rpc", "droid");

impl Dialect {
    /// Factory Droid `droid exec --output-format stream-jsonrpc`.
    pub const DROID_RPC: Dialect = DIALECT;
}

/// Its row of the dialect table.
pub(crate) const ENTRY: Entry = Entry {
    dialect: DIALECT,
    summary: "Factory Droid `droid exec` stream-jsonrpc",
    feature: "droid",
    rules: RULES,
    claims,
    adapter: |_| Box::new(DroidRpcAdapter::default()),
    read_ahead: None,
    recordings: &["droid-rpc"],
    agent_version: "",
    stores: &[],
};

/// Notifications that carry nothing about calls.
const KNOWN: &[&str] = &[
    "droid_working_state_changed",
    "assistant_text_delta",
    "assistant_text_complete",
    "thinking_text_delta",
    "thinking_text_complete",
    "session_title_updated",
    "session_token_usage_changed",
    "settings_updated",
    "mcp_status_changed",
    "agent_turn_completed",
    "llm_retry",
    "assistant_message_retracted",
    "error",
];

/// What a user declines a call with.
const CANCELLED: &str = "Tool execution cancelled by user";

/// Whether a line is a Droid JSON-RPC message: it names its `factoryApiVersion` (or
/// its `factoryProtocolVersion`), which no other protocol writes.
pub(crate) fn claims(keys: &LineKeys<'_>) -> bool {
    keys.has("factoryApiVersion") || keys.has("factoryProtocolVersion")
}

/// Reads Droid's stream-jsonrpc.
#[derive(Debug, Default)]
pub struct DroidRpcAdapter {
    /// Permission requests seen: JSON-RPC id → the calls they ask about.
    permissions: HashMap<String, Vec<String>>,
}

/// One JSON-RPC message.
#[derive(Deserialize)]
struct Message {
    #[serde(default)]
    method: Option<String>,
    #[serde(default)]
    id: Option<Value>,
    #[serde(default)]
    params: Option<Value>,
}

/// A `tool_use` as the notifications and requests carry it.
#[derive(Deserialize)]
struct ToolUse {
    id: String,
    name: String,
    #[serde(default)]
    input: Value,
}

impl Adapter for DroidRpcAdapter {
    fn dialect(&self) -> Dialect {
        DIALECT
    }

    fn line(&mut self, line: u64, bytes: &[u8], facts: &mut Facts<'_>) {
        let message: Message = match json::parse_line(line, bytes, "not a Droid JSON-RPC message") {
            Ok(message) => message,
            Err(diagnostic) => return facts.diagnostic(diagnostic),
        };
        let params = message.params.unwrap_or(Value::Null);
        match message.method.as_deref() {
            // Responses to the client's requests.
            None => {}
            Some("droid.session_notification") => {
                if let Some(session) = params.get("sessionId").and_then(Value::as_str) {
                    facts.session(session);
                }
                let notification = params.get("notification").unwrap_or(&Value::Null);
                self.notification(line, notification, facts);
            }
            Some("droid.request_permission") => {
                let id = message.id.map(|id| id.to_string()).unwrap_or_default();
                self.permission_request(line, id, &params, facts);
            }
            Some(other) => facts.diagnostic(Diagnostic::notice(
                line,
                DiagnosticKind::UnknownEvent,
                format!("unknown Droid JSON-RPC method `{other}`"),
            )),
        }
    }
}

impl DroidRpcAdapter {
    fn notification(&mut self, line: u64, notification: &Value, facts: &mut Facts<'_>) {
        let kind = notification.get("type").and_then(Value::as_str);
        match kind {
            Some("tool_call") => {
                if let Some(call) = notification.get("toolUse") {
                    tool_use(line, call, facts);
                }
            }
            Some("create_message") => {
                let blocks = notification
                    .pointer("/message/content")
                    .and_then(Value::as_array);
                for block in blocks.into_iter().flatten() {
                    if block.get("type").and_then(Value::as_str) == Some("tool_use") {
                        tool_use(line, block, facts);
                    }
                }
            }
            Some("tool_execution_phase_changed") => {
                if notification.get("phase").and_then(Value::as_str) == Some("executing") {
                    running(line, notification, facts);
                }
            }
            Some("tool_progress_update") => {
                running(line, notification, facts);
                let id = notification.get("toolUseId").and_then(Value::as_str);
                let output = notification
                    .pointer("/update/fullOutput")
                    .and_then(Value::as_str);
                if let (Some(id), Some(output)) = (id, output) {
                    facts.streamed_text(line, id, output);
                }
            }
            Some("child_session_available") => {
                let id = notification.get("toolUseId").and_then(Value::as_str);
                let child = notification.get("childSessionId").and_then(Value::as_str);
                if let (Some(id), Some(child)) = (id, child) {
                    let mut metadata = JsonObject::new();
                    metadata.insert(meta::CHILD_SESSION_ID.into(), child.into());
                    facts.merge_metadata(line, id, metadata);
                }
            }
            Some("tool_result") => tool_result(line, notification, facts),
            Some("permission_resolved") => self.permission_resolved(line, notification, facts),
            Some(known) if KNOWN.contains(&known) => {}
            other => {
                facts.diagnostic(Diagnostic::notice(
                    line,
                    DiagnosticKind::UnknownEvent,
                    format!(
                        "unknown Droid session notification `{}`",
                        other.unwrap_or_default()
                    ),
                ));
                // Nothing tool-like is dropped.
                if let Some(call) = notification.get("toolUse") {
                    tool_use(line, call, facts);
                }
            }
        }
    }

    /// `droid.request_permission`: each call it asks about waits for approval, with the
    /// options offered.
    fn permission_request(&mut self, line: u64, id: String, params: &Value, facts: &mut Facts<'_>) {
        let options: Vec<ApprovalOption> = params
            .get("options")
            .and_then(Value::as_array)
            .into_iter()
            .flatten()
            .filter_map(approval_option)
            .collect();
        let mut calls = Vec::new();
        for asked in params
            .get("toolUses")
            .and_then(Value::as_array)
            .into_iter()
            .flatten()
        {
            let Some(call) = asked.get("toolUse") else {
                continue;
            };
            let Some(call_id) = tool_use(line, call, facts) else {
                continue;
            };
            let request = ApprovalRequested {
                id: call_id.clone(),
                reason: None,
                options: options.clone(),
                risk: None,
                at: None,
            };
            facts.approval_requested(line, request);
            calls.push(call_id);
        }
        self.permissions.insert(id, calls);
    }

    /// `permission_resolved`: the option chosen decides the calls of its request.
    fn permission_resolved(&mut self, line: u64, notification: &Value, facts: &mut Facts<'_>) {
        let request = notification
            .get("requestId")
            .map(Value::to_string)
            .unwrap_or_default();
        let mut calls = self.permissions.remove(&request).unwrap_or_default();
        for id in notification
            .get("toolUseIds")
            .and_then(Value::as_array)
            .into_iter()
            .flatten()
            .filter_map(Value::as_str)
        {
            if !calls.iter().any(|call| call == id) {
                calls.push(id.to_owned());
            }
        }
        let chosen = notification.get("selectedOption").and_then(Value::as_str);
        let Some((decision, scope)) = chosen.and_then(option_decision) else {
            return facts.diagnostic(Diagnostic::notice(
                line,
                DiagnosticKind::UnknownEvent,
                format!("a permission answered with an option toolnorm does not know: {chosen:?}"),
            ));
        };
        for call in calls {
            let resolution = ApprovalResolved {
                id: call,
                decision,
                decided_by: Some(DecidedBy::User),
                scope,
                option_id: chosen.map(str::to_owned),
                feedback: None,
                risk: None,
                at: None,
            };
            facts.approval_resolved(line, resolution);
        }
    }
}

/// What a Droid permission option decides, by its value: `proceed_once`, `proceed_always`
/// (and the other `proceed_*` that allow more), `cancel`.
fn option_decision(value: &str) -> Option<(Decision, Option<ApprovalScope>)> {
    if value == "cancel" || value.starts_with("reject") || value.starts_with("deny") {
        return Some((Decision::Denied, Some(ApprovalScope::Once)));
    }
    let rest = value.strip_prefix("proceed")?;
    let scope = match rest {
        "_once" | "" => ApprovalScope::Once,
        rest if rest.contains("session") => ApprovalScope::Session,
        _ => ApprovalScope::Always,
    };
    Some((Decision::Approved, Some(scope)))
}

/// An option of a permission request (`{value, label?}`) as an approval option.
fn approval_option(option: &Value) -> Option<ApprovalOption> {
    let value = option.get("value")?.as_str()?;
    let (decision, scope) = option_decision(value)?;
    let label = option.get("label").and_then(Value::as_str).unwrap_or(value);
    Some(ApprovalOption {
        id: value.to_owned(),
        label: label.to_owned(),
        decision,
        scope,
    })
}

/// A `tool_use`: the call starts, or its input grows; its id.
fn tool_use(line: u64, call: &Value, facts: &mut Facts<'_>) -> Option<String> {
    let call: ToolUse = match serde_json::from_value(call.clone()) {
        Ok(call) => call,
        Err(error) => {
            facts.diagnostic(json::malformed(line, "a tool_use", &error));
            return None;
        }
    };
    let id = call.id.clone();
    // A call of this session seen again once it has ended (a message written after its
    // result) is not a new call; an open one seen again has its input refined.
    let ended = !facts.is_other_sessions(&id) && facts.finished(&id).is_some();
    if !ended {
        facts.sighted(
            line,
            sighting(call.id, call.name, call.input, "tool_use", None),
        );
    }
    Some(id)
}

/// A call being executed (once: a running call stays so).
fn running(line: u64, notification: &Value, facts: &mut Facts<'_>) {
    if let Some(id) = notification.get("toolUseId").and_then(Value::as_str)
        && matches!(facts.call(id), Some(AnyToolCall::Started(_)))
    {
        facts.running(line, id, None);
    }
}

/// A `tool_result`: the call ends.
fn tool_result(line: u64, notification: &Value, facts: &mut Facts<'_>) {
    let Some(id) = notification.get("toolUseId").and_then(Value::as_str) else {
        return facts.diagnostic(Diagnostic::at(
            line,
            DiagnosticKind::MalformedEvent,
            "a Droid tool_result without its `toolUseId`",
        ));
    };
    // Droid sends the result of a call it cancelled twice: the second ends nothing.
    if facts.finished(id).is_some() {
        return;
    }
    let content = notification.get("content").cloned().unwrap_or(Value::Null);
    let failed = notification
        .get("isError")
        .and_then(Value::as_bool)
        .unwrap_or(false);
    if !failed {
        return facts.complete(line, id, Some(content), Ending::at(None));
    }
    let text = match &content {
        Value::String(text) => text.clone(),
        other => other.to_string(),
    };
    let is_mcp = facts.kind(id) == Some(ToolKind::Mcp)
        || facts.name(id).is_some_and(|name| split_mcp(name).is_some());
    let mut error = outcome::error(&text, is_mcp);
    if text
        .trim()
        .trim_start_matches("Error: ")
        .starts_with(CANCELLED)
    {
        error.code = Some(ErrorCode::UserRejected);
    }
    facts.fail(line, id, error, Ending::at(None));
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_permission_option_decides_by_its_value() {
        let once = Some((Decision::Approved, Some(ApprovalScope::Once)));
        assert_eq!(option_decision("proceed_once"), once);
        assert_eq!(
            option_decision("proceed_always"),
            Some((Decision::Approved, Some(ApprovalScope::Always)))
        );
        assert_eq!(
            option_decision("proceed_auto_run_low"),
            Some((Decision::Approved, Some(ApprovalScope::Always)))
        );
        assert_eq!(
            option_decision("cancel"),
            Some((Decision::Denied, Some(ApprovalScope::Once)))
        );
        assert_eq!(option_decision("maybe"), None);
        let option = serde_json::json!({"value": "proceed_once", "label": "Yes, allow"});
        assert_eq!(
            approval_option(&option).map(|option| (option.id, option.label)),
            Some(("proceed_once".to_owned(), "Yes, allow".to_owned()))
        );
    }
}
