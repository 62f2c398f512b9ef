//! What `opencode serve` asks the user about a call, and what was answered:
//! permissions (the call's approval) and the `question` tool's questions.
//!
//! | event (`properties`) | becomes |
//! |---|---|
//! | `permission.asked` (`id`, `permission`, `patterns`, `tool.callID`) | `approvalRequested` of the call, with OpenCode's three answers as options: `once`, `always`, `reject` |
//! | `permission.updated` (before 1.x: `id`, `type`, `title`, `callID`, `time.created`) | the same, the title as the reason |
//! | `permission.replied` (`requestID` and `reply`, before 1.x `permissionID` and `response`) | `approvalResolved` (`decidedBy: user`) |
//! | `question.asked` (`tool.callID`) | nothing more: the `question` call's input holds the questions |
//! | `question.replied` (`requestID`, `answers`: a list per question) | the answers in the call's `metadata.questions`, before its output comes |
//! | `question.rejected` | nothing more: the call fails with its own error |
//!
//! A request for a call not seen yet, or an answer to a request not seen, is a notice.

use foldhash::HashMap;

use serde::Deserialize;
use serde_json::{Value, json};
use toolnorm::{ApprovalOption, ApprovalRequested, ApprovalResolved, ApprovalScope, DecidedBy};
use toolnorm::{Decision, Payload, Timestamp};

use crate::diagnostic::{Diagnostic, DiagnosticKind};
use crate::track::Facts;

/// The call a request is about, by the request's id.
#[derive(Debug, Default)]
pub(super) struct Asks {
    calls: HashMap<String, String>,
}

/// The call a request names (`tool: {callID}`, before 1.x `callID`).
#[derive(Deserialize)]
struct ToolRef {
    #[serde(rename = "callID")]
    call_id: String,
}

/// `permission.asked` / `permission.updated` / `question.asked` properties.
#[derive(Deserialize)]
struct Request {
    id: String,
    #[serde(default)]
    tool: Option<ToolRef>,
    #[serde(rename = "callID", default)]
    call_id: Option<String>,
    /// 1.x: the permission (`bash`, `edit`, …) and the patterns it is asked for.
    #[serde(default)]
    permission: Option<String>,
    #[serde(default)]
    patterns: Vec<String>,
    /// Before 1.x: what is asked, as a sentence.
    #[serde(default)]
    title: Option<String>,
    #[serde(default)]
    time: Option<Created>,
}

#[derive(Deserialize)]
struct Created {
    created: Option<i64>,
}

/// `permission.replied` / `question.replied` properties.
#[derive(Deserialize)]
struct Reply {
    #[serde(rename = "requestID", alias = "permissionID")]
    request_id: String,
    #[serde(alias = "response", default)]
    reply: Option<String>,
    #[serde(default)]
    answers: Option<Value>,
}

impl Asks {
    /// Reads one of the events of the table above; `properties` is its JSON text.
    pub(super) fn event(&mut self, line: u64, kind: &str, properties: &str, out: &mut Facts<'_>) {
        let malformed = |error: serde_json::Error| {
            Diagnostic::at(
                line,
                DiagnosticKind::MalformedEvent,
                format!("OpenCode `{kind}`: {error}"),
            )
        };
        match kind {
            "permission.asked" | "permission.updated" | "question.asked" => {
                match serde_json::from_str::<Request>(properties) {
                    Ok(request) => self.asked(line, kind, request, out),
                    Err(error) => out.diagnostic(malformed(error)),
                }
            }
            "permission.replied" | "question.replied" => {
                match serde_json::from_str::<Reply>(properties) {
                    Ok(reply) => self.replied(line, kind, reply, out),
                    Err(error) => out.diagnostic(malformed(error)),
                }
            }
            // `question.rejected`: the call ends with its own error.
            _ => {}
        }
    }

    fn asked(&mut self, line: u64, kind: &str, request: Request, out: &mut Facts<'_>) {
        let Some(call) = request.tool.map(|tool| tool.call_id).or(request.call_id) else {
            // A permission asked for no call (a directory outside the project): no part.
            return;
        };
        if !out.is_open(&call) {
            return out.diagnostic(Diagnostic::notice(
                line,
                DiagnosticKind::UnknownEvent,
                format!("OpenCode `{kind}` for call `{call}`, which is not open"),
            ));
        }
        self.calls.insert(request.id, call.clone());
        if kind == "question.asked" {
            return;
        }
        let reason = request.title.or_else(|| {
            let permission = request.permission?;
            Some(match request.patterns.is_empty() {
                true => permission,
                false => format!("{permission}: {}", request.patterns.join(", ")),
            })
        });
        let option = |id: &str, label: &str, decision, scope| ApprovalOption {
            id: id.to_owned(),
            label: label.to_owned(),
            decision,
            scope: Some(scope),
        };
        out.approval_requested(
            line,
            ApprovalRequested {
                id: call,
                reason,
                options: vec![
                    option(
                        "once",
                        "Allow once",
                        Decision::Approved,
                        ApprovalScope::Once,
                    ),
                    option(
                        "always",
                        "Always allow",
                        Decision::Approved,
                        ApprovalScope::Always,
                    ),
                    option("reject", "Reject", Decision::Denied, ApprovalScope::Once),
                ],
                risk: None,
                at: request
                    .time
                    .and_then(|time| time.created)
                    .map(Timestamp::from),
            },
        );
    }

    fn replied(&mut self, line: u64, kind: &str, reply: Reply, out: &mut Facts<'_>) {
        let Some(call) = self.calls.remove(&reply.request_id) else {
            return out.diagnostic(Diagnostic::notice(
                line,
                DiagnosticKind::UnknownEvent,
                format!(
                    "OpenCode `{kind}` answers request `{}`, which was not seen",
                    reply.request_id
                ),
            ));
        };
        if kind == "question.replied" {
            let answers: Payload =
                json!({ "answers": reply.answers.unwrap_or(Value::Null) }).into();
            return out.note_questions(line, &call, None, Some(&answers));
        }
        let (decision, scope) = match reply.reply.as_deref() {
            Some("once") => (Decision::Approved, ApprovalScope::Once),
            Some("always") => (Decision::Approved, ApprovalScope::Always),
            Some("reject") => (Decision::Denied, ApprovalScope::Once),
            other => {
                return out.diagnostic(Diagnostic::notice(
                    line,
                    DiagnosticKind::UnknownEvent,
                    format!("OpenCode `{kind}` with an answer toolnorm does not know: {other:?}"),
                ));
            }
        };
        out.approval_resolved(
            line,
            ApprovalResolved {
                id: call,
                decision,
                decided_by: Some(DecidedBy::User),
                scope: Some(scope),
                option_id: reply.reply,
                feedback: None,
                risk: None,
                at: None,
            },
        );
    }
}
