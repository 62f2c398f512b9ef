//! Approval requests of `codex app-server` and the decisions on them.
//!
//! The server asks its client before it runs a command or applies a change: a JSON-RPC
//! request `item/commandExecution/requestApproval` or `item/fileChange/requestApproval`
//! (`itemId`, `reason`, `availableDecisions`), or, before the v2 protocol,
//! `execCommandApproval` / `applyPatchApproval` (`callId`). The client's answer is a
//! response `{decision}` with the request's id, when the stream holds both directions;
//! `serverRequest/resolved` then says the request is settled, without the decision. A
//! decision the stream does not hold is left to the item's outcome (`declined`: denied).
//!
//! With automatic review on, a reviewer model decides instead of the client:
//! `item/autoApprovalReview/started` asks (`targetItemId`; `startedAtMs`), and
//! `item/autoApprovalReview/completed` decides (`review.status` `approved` / `denied`,
//! `decidedBy: reviewer`, `review.rationale` as the feedback, `review.riskLevel` (else
//! `riskScore`) as the risk, `completedAtMs`); an `aborted` review decides nothing (the
//! request goes on to the client). A review of no item (a network call) is about no call.

use std::borrow::Cow;
use std::collections::{HashMap, HashSet};

use serde::Deserialize;
use serde_json::Value;
use serde_json::value::RawValue;
use toolnorm::{
    ApprovalOption, ApprovalRequested, ApprovalResolved, ApprovalScope, DecidedBy, Decision,
};

use crate::diagnostic::{Diagnostic, DiagnosticKind};
use crate::track::Facts;

/// `params` of an approval request (v2 and the older methods).
#[derive(Deserialize)]
struct RequestParams<'a> {
    /// v2: the item the request is about.
    #[serde(borrow, default, rename = "itemId")]
    item_id: Option<Cow<'a, str>>,
    /// Before v2: the call the request is about.
    #[serde(borrow, default, rename = "callId")]
    call_id: Option<Cow<'a, str>>,
    #[serde(borrow, default)]
    reason: Option<Cow<'a, str>>,
    #[serde(borrow, default, rename = "threadId")]
    thread_id: Option<Cow<'a, str>>,
    #[serde(borrow, default, rename = "conversationId")]
    conversation_id: Option<Cow<'a, str>>,
    #[serde(default, rename = "availableDecisions")]
    available_decisions: Vec<Value>,
}

/// `params` of `serverRequest/resolved`.
#[derive(Deserialize)]
struct ResolvedParams<'a> {
    #[serde(borrow, default, rename = "requestId")]
    request_id: Option<&'a RawValue>,
    #[serde(borrow, default, rename = "threadId")]
    thread_id: Option<Cow<'a, str>>,
}

/// `params` of `item/autoApprovalReview/*`.
#[derive(Deserialize)]
struct ReviewParams<'a> {
    #[serde(borrow, default, rename = "targetItemId")]
    target_item_id: Option<Cow<'a, str>>,
    #[serde(default, rename = "startedAtMs")]
    started_at_ms: Option<i64>,
    #[serde(default, rename = "completedAtMs")]
    completed_at_ms: Option<i64>,
    #[serde(borrow)]
    review: Review<'a>,
}

/// A review: its status, the risk it saw, and why.
#[derive(Deserialize)]
struct Review<'a> {
    #[serde(borrow)]
    status: Cow<'a, str>,
    #[serde(default, rename = "riskLevel", alias = "risk_level")]
    risk_level: Option<String>,
    #[serde(default, rename = "riskScore", alias = "risk_score")]
    risk_score: Option<u64>,
    #[serde(borrow, default)]
    rationale: Option<Cow<'a, str>>,
}

impl Review<'_> {
    /// The risk it saw: its level, else its score.
    fn risk(&self) -> Option<String> {
        self.risk_level
            .clone()
            .or_else(|| self.risk_score.map(|score| format!("score {score}")))
    }
}

/// The approval requests of a stream, until they are settled.
#[derive(Debug, Default)]
pub(super) struct Approvals {
    /// JSON-RPC id of a request not yet settled (as written) → the item it is about and
    /// the thread that asked (the client's answer names neither).
    open: HashMap<String, (String, Option<String>)>,
    /// Item id → the request that came before the item did (before 0.12x a declined
    /// command has no `item/started`: its request comes first).
    early: HashMap<String, ApprovalRequested>,
    /// Item id → the client's answer to such a request, also before the item.
    early_answers: HashMap<String, ApprovalResolved>,
    /// Items the client's answer refused or cancelled, until their `item/completed`: the
    /// answer ended the call, and the item's `declined` end comes after it.
    ended: HashSet<String>,
}

impl Approvals {
    /// A request from the server: the item waits for a decision.
    pub fn requested(
        &mut self,
        line: u64,
        method: &str,
        id: Option<&RawValue>,
        params: &str,
        out: &mut Facts<'_>,
    ) {
        let Ok(params) = serde_json::from_str::<RequestParams<'_>>(params) else {
            return out.diagnostic(Diagnostic::at(
                line,
                DiagnosticKind::MalformedEvent,
                format!("{method} without params"),
            ));
        };
        let thread = params
            .thread_id
            .as_ref()
            .or(params.conversation_id.as_ref())
            .map(|thread| thread.as_ref().to_owned());
        if let Some(thread) = &thread {
            out.session(thread);
        }
        let Some(item) = params.item_id.or(params.call_id) else {
            // A request about the session (`item/permissions/requestApproval`), not a call.
            return out.diagnostic(Diagnostic::notice(
                line,
                DiagnosticKind::UnknownEvent,
                format!("`{method}` names no item: a request about no tool call"),
            ));
        };
        let request = ApprovalRequested {
            id: item.as_ref().to_owned(),
            reason: params.reason.map(Cow::into_owned),
            options: params
                .available_decisions
                .iter()
                .filter_map(option)
                .collect(),
            risk: None,
            at: None,
        };
        if let Some(id) = id {
            self.open
                .insert(id.get().to_owned(), (item.as_ref().to_owned(), thread));
        }
        if out.is_open(&item) && !out.is_other_sessions(&item) {
            out.approval_requested(line, request);
        } else {
            self.early.insert(item.into_owned(), request);
        }
    }

    /// `item/autoApprovalReview/started` or `…/completed`: the reviewer asked about an
    /// item, or decided.
    pub fn reviewed(&mut self, line: u64, method: &str, params: &str, out: &mut Facts<'_>) {
        let params = match serde_json::from_str::<ReviewParams<'_>>(params) {
            Ok(params) => params,
            Err(error) => {
                return out.diagnostic(Diagnostic::at(
                    line,
                    DiagnosticKind::MalformedEvent,
                    format!("`{method}`: {error}"),
                ));
            }
        };
        let Some(item) = params.target_item_id else {
            // A network call's review: about no tool call.
            return;
        };
        let item = item.into_owned();
        if !out.is_open(&item) {
            return out.diagnostic(Diagnostic::notice(
                line,
                DiagnosticKind::UnknownEvent,
                format!("`{method}` reviews item `{item}`, which is not open"),
            ));
        }
        let review = params.review;
        if out.call(&item).and_then(|call| call.approval()).is_none() {
            out.approval_requested(
                line,
                ApprovalRequested {
                    id: item.clone(),
                    reason: None,
                    options: Vec::new(),
                    risk: review.risk(),
                    at: params.started_at_ms.map(Into::into),
                },
            );
        }
        let decision = match review.status.as_ref() {
            "approved" => Decision::Approved,
            "denied" => Decision::Denied,
            // In progress, or aborted (the request goes on to the client).
            _ => return,
        };
        out.approval_resolved(
            line,
            ApprovalResolved {
                id: item,
                decision,
                decided_by: Some(DecidedBy::Reviewer),
                scope: None,
                option_id: None,
                risk: review.risk(),
                feedback: review.rationale.map(Cow::into_owned),
                at: params.completed_at_ms.map(Into::into),
            },
        );
    }

    /// An item was sighted: the request that came before it, if any, now applies.
    pub fn item_sighted(&mut self, line: u64, item: &str, out: &mut Facts<'_>) {
        if let Some(request) = self.early.remove(item) {
            out.approval_requested(line, request);
        }
        if let Some(answer) = self.early_answers.remove(item) {
            out.approval_resolved(line, answer);
        }
    }

    /// A response from the client (`{decision}`), when the stream holds it: whether it
    /// answered an open request.
    pub fn answered(
        &mut self,
        line: u64,
        id: &RawValue,
        result: &RawValue,
        out: &mut Facts<'_>,
    ) -> bool {
        #[derive(Deserialize)]
        struct Answer {
            decision: Value,
        }
        let Some((item, thread)) = self.open.get(id.get()) else {
            return false;
        };
        let Ok(Answer { decision }) = serde_json::from_str::<Answer>(result.get()) else {
            return false;
        };
        let Some((decision_made, scope)) = decision_of(&decision) else {
            out.diagnostic(Diagnostic::notice(
                line,
                DiagnosticKind::UnknownEvent,
                format!("an approval decision toolnorm does not know: {decision}"),
            ));
            return true;
        };
        // The answer is about the call of the thread that asked, whichever thread's line
        // came before it.
        if let Some(thread) = thread {
            out.session(thread);
        }
        if decision_made != Decision::Approved {
            self.ended.insert(item.clone());
        }
        let answer = ApprovalResolved {
            id: item.clone(),
            decision: decision_made,
            decided_by: Some(DecidedBy::User),
            scope,
            option_id: Some(name_of(&decision).to_owned()),
            feedback: None,
            risk: None,
            at: None,
        };
        if self.early.contains_key(item) {
            // Its item has not come yet: the answer applies once it does.
            self.early_answers.insert(item.clone(), answer);
        } else {
            out.approval_resolved(line, answer);
        }
        true
    }

    /// Whether the item's end comes after the client's answer ended its call (a refusal
    /// or a cancellation); asked once, when the item completes.
    pub fn ended_by_answer(&mut self, item: &str) -> bool {
        self.ended.remove(item)
    }

    /// `serverRequest/resolved`: the request is settled (the decision, when the stream
    /// holds it, came with the client's response).
    pub fn resolved(&mut self, params: &str, out: &mut Facts<'_>) {
        let Ok(ResolvedParams {
            request_id: Some(request),
            thread_id,
        }) = serde_json::from_str::<ResolvedParams<'_>>(params)
        else {
            return;
        };
        if let Some(thread) = &thread_id {
            out.session(thread);
        }
        self.open.remove(request.get());
    }
}

/// The name of a decision: the string, or the one key of an object
/// (`{"acceptWithExecpolicyAmendment": {…}}`).
fn name_of(decision: &Value) -> &str {
    match decision {
        Value::String(name) => name,
        Value::Object(object) if object.len() == 1 => {
            object.keys().next().map_or("", String::as_str)
        }
        _ => "",
    }
}

/// What a decision decides, and how far it reaches: v2's `CommandExecutionApprovalDecision`
/// and `FileChangeApprovalDecision`, and the older `ReviewDecision`.
fn decision_of(decision: &Value) -> Option<(Decision, Option<ApprovalScope>)> {
    use ApprovalScope::{Always, Once, Session};
    Some(match name_of(decision) {
        "accept" | "approved" => (Decision::Approved, Some(Once)),
        "acceptForSession" | "approved_for_session" => (Decision::Approved, Some(Session)),
        "acceptWithExecpolicyAmendment"
        | "applyNetworkPolicyAmendment"
        | "approved_execpolicy_amendment" => (Decision::Approved, Some(Always)),
        "decline" | "denied" => (Decision::Denied, Some(Once)),
        "cancel" | "abort" => (Decision::Cancelled, None),
        _ => return None,
    })
}

/// An offered decision as an option (its name is its id and its label).
fn option(decision: &Value) -> Option<ApprovalOption> {
    let (made, scope) = decision_of(decision)?;
    let name = name_of(decision).to_owned();
    Some(ApprovalOption {
        id: name.clone(),
        label: name,
        decision: made,
        scope,
    })
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    #[test]
    fn every_decision_of_the_protocol_decides_something() {
        for (decision, made, scope) in [
            (
                json!("accept"),
                Decision::Approved,
                Some(ApprovalScope::Once),
            ),
            (
                json!("acceptForSession"),
                Decision::Approved,
                Some(ApprovalScope::Session),
            ),
            (
                json!({"acceptWithExecpolicyAmendment": {"execpolicy_amendment": ["rm"]}}),
                Decision::Approved,
                Some(ApprovalScope::Always),
            ),
            (
                json!("decline"),
                Decision::Denied,
                Some(ApprovalScope::Once),
            ),
            (json!("cancel"), Decision::Cancelled, None),
            (
                json!("approved_for_session"),
                Decision::Approved,
                Some(ApprovalScope::Session),
            ),
            (json!("abort"), Decision::Cancelled, None),
        ] {
            assert_eq!(decision_of(&decision), Some((made, scope)), "{decision}");
        }
        assert_eq!(decision_of(&json!("maybe")), None);
        assert_eq!(decision_of(&json!({"a": 1, "b": 2})), None);
        assert_eq!(
            option(&json!({"acceptWithExecpolicyAmendment": {}}))
                .map(|option| option.id)
                .as_deref(),
            Some("acceptWithExecpolicyAmendment")
        );
    }
}
