//! Kimi's wire messages: a session's `wire.jsonl` (`~/.kimi/sessions/<work dir
//! hash>/<session>/wire.jsonl`), and the same messages as `kimi --wire` sends them over
//! JSON-RPC.
//!
//! The file begins with its header, `{"type":"metadata","protocol_version":"1.10"}`; each
//! record after it is `{"timestamp": <epoch seconds>, "message": {"type", "payload"}}`.
//! `kimi --wire` sends the same `{type, payload}` as the `params` of a JSON-RPC `event`
//! notification or `request`:
//!
//! | message | canonical events |
//! | --- | --- |
//! | `ToolCall` (`id`, `function: {name, arguments}`) | `toolCallStarted` |
//! | `ToolCallPart` (`arguments_part`) | `inputUpdated` (the last call's arguments, longer) |
//! | `ToolResult` (`tool_call_id`, `return_value: {is_error, output, message}`) | `toolCallCompleted`, or `toolCallFailed` when `is_error` |
//! | `ApprovalRequest` (`id`, `tool_call_id`, `sender`, `description`) | `approvalRequested` (a subagent's call is asked about before its `ToolCall`: the request opens it) |
//! | `ApprovalResponse` (`request_id`, `response`: `approve`, `approve_for_session`, `reject`) | `approvalResolved` (a rejection ends the call: the `ToolResult` after it says so again) |
//! | `SubagentEvent` (`parent_tool_call_id`, `event: {type, payload}`) | its event, the calls under the parent call |
//! | `StepInterrupted`; the answer to a cancelled `prompt` (`{"status": "cancelled"}`, `kimi --wire`) | `toolCallFailed` (`interrupted`) for each call still open |
//! | `TurnBegin`, `TurnEnd`, `SteerInput`, `StepBegin`, `StepRetry`, `ContentPart`, `StatusUpdate`, `CompactionBegin`, `CompactionEnd`, `MCPLoadingBegin`, `MCPLoadingEnd`, `HookTriggered`, `HookResolved`, `Notification`, `PlanDisplay`, `BtwBegin`, `BtwEnd`, `QuestionRequest`, `QuestionResponse`, `ToolCallRequest`, `HookRequest`, `HookResponse` | (known, nothing a call needs) |

use foldhash::{HashMap, HashSet};

use serde_json::{Number, Value};
use toolnorm::{
    ApprovalRequested, ApprovalResolved, ApprovalScope, DecidedBy, Decision, ErrorCode, Timestamp,
    ToolError,
};

use super::outcome::{ended, from_return_value, open_unseen, sighted};
use super::wire::{Envelope, ToolCall, UNUSED, WireLine};
use crate::Dialect;
use crate::adapter::Adapter;
use crate::diagnostic::{Diagnostic, DiagnosticKind};
use crate::dialects::Entry;
use crate::read::json;
use crate::read::line_keys::LineKeys;
use crate::track::{Ending, Facts};

/// The dialect: Kimi's wire messages, with Kimi's provider for the rules.
pub(crate) const DIALECT: Dialect = Dialect::new("kimi-wire", "kimi");

impl Dialect {
    /// Kimi's wire log (`~/.kimi/sessions/…/wire.jsonl`) and `kimi --wire` JSON-RPC.
    pub const KIMI_WIRE: Dialect = DIALECT;
}

/// Its row of the dialect table.
pub(crate) const ENTRY: Entry = Entry {
    dialect: DIALECT,
    summary: "Kimi Code CLI wire log (`~/.kimi/sessions/…/wire.jsonl`) or `kimi --wire` JSON-RPC",
    feature: "kimi",
    rules: super::RULES,
    claims,
    adapter: |_| Box::<KimiWireAdapter>::default(),
    // The wire logs of the `--print` runs (`fixtures/kimi-wire/`) and the `--wire` runs
    // (`fixtures/kimi-rpc/`).
    read_ahead: None,
    recordings: &["kimi", "kimi-rpc"],
    agent_version: "`kimi --wire`: the `initialize` answer's `result.server.version` (a wire log names none)",
    // A session's own wire log, which carries its subagents' messages: not theirs
    // (`subagents/<agent>/wire.jsonl`), whose calls it already holds.
    stores: &[crate::Store::at(".kimi", "sessions/*/*/wire.jsonl")],
};

/// Whether a line is Kimi's: the wire file's header (`type: "metadata"` with its
/// `protocol_version`), a record (`timestamp` and `message` holding `payload`), or a
/// `kimi --wire` message (`jsonrpc`, method `event` or `request`, `params` holding
/// `payload`).
pub(crate) fn claims(keys: &LineKeys<'_>) -> bool {
    if keys.kind().as_deref() == Some("metadata") {
        return keys.has("protocol_version");
    }
    if keys.has("timestamp") && keys.object_has("message", "payload") {
        return !keys.has("type");
    }
    keys.has("jsonrpc")
        && matches!(keys.str("method").as_deref(), Some("event" | "request"))
        && keys.object_has("params", "payload")
}

/// Reads Kimi's wire messages.
#[derive(Debug, Default)]
pub struct KimiWireAdapter {
    /// The last call seen, whose arguments a `ToolCallPart` continues: its id, tool,
    /// arguments so far and parent call.
    last: Option<(String, Option<String>, String, Option<String>)>,
    /// The call each approval request is about, by request id.
    requests: HashMap<String, String>,
    /// The call that started each subagent, by agent id (`SubagentEvent`).
    agents: HashMap<String, String>,
    /// The calls a rejected approval ended: their `ToolResult` (Kimi's rejection message)
    /// says it again.
    denied: HashSet<String>,
}

impl Adapter for KimiWireAdapter {
    fn dialect(&self) -> Dialect {
        DIALECT
    }

    fn line(&mut self, line: u64, bytes: &[u8], facts: &mut Facts<'_>) {
        let record: WireLine<'_> = match json::parse_line(line, bytes, "not a Kimi wire record") {
            Ok(record) => record,
            Err(diagnostic) => return facts.diagnostic(diagnostic),
        };
        if record.kind.as_deref() == Some("metadata") && record.protocol_version.is_some() {
            return;
        }
        let at = record.timestamp.as_ref().and_then(epoch_seconds);
        if let Some(message) = record.message {
            return self.message(line, &message, None, at, facts);
        }
        match (record.method.as_deref(), record.params.as_ref()) {
            (Some("event" | "request"), Some(params)) => {
                self.message(line, &Envelope::of(params), None, at, facts)
            }
            // The client's own requests (`initialize`, `prompt`, `cancel`, …) and the
            // answers to them.
            (Some(_), _) => {}
            // The answer to a `prompt` whose turn was cancelled: its calls still open
            // were stopped.
            (None, _)
                if record
                    .result
                    .as_ref()
                    .and_then(|result| result.get("status"))
                    .and_then(Value::as_str)
                    == Some("cancelled") =>
            {
                interrupted(line, "the turn was cancelled", at, facts)
            }
            // The answer to `initialize` names the agent's version.
            (None, _) if record.result.is_some() || record.error.is_some() => {
                if let Some(version) = record
                    .result
                    .as_ref()
                    .and_then(|result| result.get("server"))
                    .and_then(|server| server.get("version"))
                    .and_then(Value::as_str)
                {
                    facts.agent_version(version);
                }
            }
            _ => facts.diagnostic(Diagnostic::notice(
                line,
                DiagnosticKind::UnknownEvent,
                "a Kimi wire line without a message",
            )),
        }
    }
}

impl KimiWireAdapter {
    /// One wire message (a subagent's under `parent`).
    fn message(
        &mut self,
        line: u64,
        message: &Envelope,
        parent: Option<&str>,
        at: Option<Timestamp>,
        facts: &mut Facts<'_>,
    ) {
        let kind = message.kind.as_deref().unwrap_or_default();
        match kind {
            "ToolCall" => match ToolCall::of(&message.payload) {
                Some(call) => {
                    sighted(line, &call, parent, at, facts);
                    self.last = call.id.clone().map(|id| {
                        let arguments = call.arguments.clone().unwrap_or_default();
                        (id, call.name.clone(), arguments, parent.map(str::to_owned))
                    });
                }
                None => facts.diagnostic(Diagnostic::at(
                    line,
                    DiagnosticKind::MalformedEvent,
                    "a Kimi `ToolCall` without its `function`",
                )),
            },
            "ToolCallPart" => self.part(line, message, at, facts),
            "ToolResult" => {
                let Some(id) = message.text("tool_call_id").filter(|id| !id.is_empty()) else {
                    return facts.diagnostic(Diagnostic::at(
                        line,
                        DiagnosticKind::MalformedEvent,
                        "a Kimi `ToolResult` without its `tool_call_id`",
                    ));
                };
                if facts.finished(id).is_some() && !facts.is_open(id) {
                    if self.denied.remove(id) {
                        return;
                    }
                    return facts.diagnostic(Diagnostic::at(
                        line,
                        DiagnosticKind::Rejected,
                        format!("a second result for call `{id}`"),
                    ));
                }
                open_unseen(line, id, parent, at.clone(), facts);
                let value = message.payload.get("return_value").unwrap_or(&Value::Null);
                let output = message.output.as_ref();
                ended(line, id, from_return_value(value, output), at, facts);
            }
            "SubagentEvent" => {
                let parent = message.text("parent_tool_call_id");
                if let (Some(agent), Some(parent)) = (message.text("agent_id"), parent) {
                    self.agents.insert(agent.to_owned(), parent.to_owned());
                }
                match message.payload.get("event") {
                    Some(event) => self.message(line, &Envelope::of(event), parent, at, facts),
                    None => facts.diagnostic(Diagnostic::at(
                        line,
                        DiagnosticKind::MalformedEvent,
                        "a Kimi `SubagentEvent` without its `event`",
                    )),
                }
            }
            "StepInterrupted" => interrupted(line, "the step was interrupted", at, facts),
            "ApprovalRequest" => self.approval_request(line, message, at, facts),
            "ApprovalResponse" | "ApprovalRequestResolved" => {
                self.approval_response(line, message, at, facts)
            }
            // Known, and nothing a call needs (their payloads are not even built).
            known if UNUSED.contains(&known) => {}
            other => facts.diagnostic(Diagnostic::notice(
                line,
                DiagnosticKind::UnknownEvent,
                format!("unknown Kimi wire message type `{other}`"),
            )),
        }
    }

    /// `ToolCallPart`: more of the last call's arguments.
    fn part(
        &mut self,
        line: u64,
        message: &Envelope,
        at: Option<Timestamp>,
        facts: &mut Facts<'_>,
    ) {
        let piece = message.text("arguments_part").unwrap_or_default();
        let Some((id, name, arguments, parent)) = self.last.as_mut() else {
            return facts.diagnostic(Diagnostic::notice(
                line,
                DiagnosticKind::UnknownCall,
                "a Kimi `ToolCallPart` before any `ToolCall`",
            ));
        };
        arguments.push_str(piece);
        if serde_json::from_str::<Value>(arguments).is_ok_and(|value| value.is_object()) {
            let call = ToolCall {
                id: Some(id.clone()),
                name: name.clone(),
                arguments: Some(arguments.clone()),
            };
            let parent = parent.clone();
            sighted(line, &call, parent.as_deref(), at, facts);
        }
    }

    /// `ApprovalRequest`: Kimi asks whether its call may run.
    fn approval_request(
        &mut self,
        line: u64,
        message: &Envelope,
        at: Option<Timestamp>,
        facts: &mut Facts<'_>,
    ) {
        let Some(call) = message.text("tool_call_id") else {
            return facts.diagnostic(Diagnostic::at(
                line,
                DiagnosticKind::MalformedEvent,
                "a Kimi `ApprovalRequest` without its `tool_call_id`",
            ));
        };
        if let Some(request) = message.text("id") {
            self.requests.insert(request.to_owned(), call.to_owned());
        }
        // A subagent's call is asked about before its `ToolCall` comes: the request opens
        // it (its tool is the request's `sender`), under the call that started the agent.
        if !facts.is_open(call) && facts.finished(call).is_none() {
            let parent = message
                .text("agent_id")
                .and_then(|agent| self.agents.get(agent))
                .cloned();
            let seen = ToolCall {
                id: Some(call.to_owned()),
                name: message.text("sender").map(str::to_owned),
                arguments: None,
            };
            sighted(line, &seen, parent.as_deref(), at.clone(), facts);
        }
        facts.approval_requested(
            line,
            ApprovalRequested {
                id: call.to_owned(),
                reason: message.text("description").map(str::to_owned),
                options: Vec::new(),
                risk: None,
                at,
            },
        );
    }

    /// `ApprovalResponse`: the answer to a request.
    fn approval_response(
        &mut self,
        line: u64,
        message: &Envelope,
        at: Option<Timestamp>,
        facts: &mut Facts<'_>,
    ) {
        let call = message
            .text("request_id")
            .and_then(|request| self.requests.get(request));
        let Some(call) = call.cloned() else {
            return facts.diagnostic(Diagnostic::notice(
                line,
                DiagnosticKind::UnknownCall,
                "a Kimi `ApprovalResponse` to a request the input does not hold",
            ));
        };
        let (decision, scope) = match message.text("response") {
            Some("approve") => (Decision::Approved, ApprovalScope::Once),
            Some("approve_for_session") => (Decision::Approved, ApprovalScope::Session),
            Some("reject") => (Decision::Denied, ApprovalScope::Once),
            other => {
                return facts.diagnostic(Diagnostic::notice(
                    line,
                    DiagnosticKind::UnknownEvent,
                    format!("an unknown Kimi approval response {other:?}"),
                ));
            }
        };
        if decision == Decision::Denied {
            self.denied.insert(call.clone());
        }
        let feedback = message.text("feedback").filter(|text| !text.is_empty());
        facts.approval_resolved(
            line,
            ApprovalResolved {
                id: call,
                decision,
                decided_by: Some(DecidedBy::User),
                scope: Some(scope),
                option_id: message.text("response").map(str::to_owned),
                feedback: feedback.map(str::to_owned),
                risk: None,
                at,
            },
        );
    }
}

/// The turn stopped with calls still open: each of them is interrupted.
fn interrupted(line: u64, why: &str, at: Option<Timestamp>, facts: &mut Facts<'_>) {
    let error = ToolError::new(why).with_code(ErrorCode::Interrupted);
    facts.fail_open_calls_of_session(line, None, &error, &Ending::at(at));
}

/// A record's time, epoch seconds with a fraction: as epoch milliseconds.
fn epoch_seconds(value: &Value) -> Option<Timestamp> {
    let seconds = value.as_f64()?;
    let millis = (seconds * 1000.0).round();
    (millis.is_finite() && (0.0..9.0e15).contains(&millis))
        .then(|| Timestamp::Epoch(Number::from(millis as u64)))
}
