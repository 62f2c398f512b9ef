//! Approvals: a call that waits for someone to allow it, and what was decided.
//!
//! A call's approval is the typed [`Approval`] a part shows as `metadata.approval`. Two
//! canonical events set it ([`ApprovalRequested`](crate::ApprovalRequested),
//! [`ApprovalResolved`](crate::ApprovalResolved)); the [`Fold`](crate::Fold) applies them
//! with the lifecycle's guarantees:
//!
//! - a call is asked at most once: a different second request is rejected, the same
//!   request again is a duplicate;
//! - a resolution needs a request: a resolution of a call that was never asked is
//!   rejected (an adapter that joins a stream midway sends the request first, with a
//!   notice);
//! - a denial or a cancellation ends the call as an error (`user_rejected` when the user
//!   refused, `permission_denied` for a policy or a reviewer, `interrupted` when the
//!   request was withdrawn);
//! - a request the stream never resolves is settled when the call ends: it failed
//!   refused, so it was denied (by the user, for `user_rejected`); it was interrupted, so
//!   the request was cancelled; it completed or failed otherwise, so it was let run:
//!   approved. A finished call's approval is never pending.
//!
//! ```
//! use toolnorm::{ApprovalStatus, DecidedBy, Fold, ToolEvent, ToolState};
//!
//! let event = |line: &str| serde_json::from_str::<ToolEvent>(line);
//! let mut fold = Fold::new();
//! fold.apply(event(r#"{"type":"toolCallStarted","id":"c1","name":"Bash","kind":"bash","title":"rm notes.txt"}"#)?)?;
//! fold.apply(event(r#"{"type":"approvalRequested","id":"c1","reason":"Delete notes.txt?","at":1767225720000}"#)?)?;
//! let denied = r#"{"type":"approvalResolved","id":"c1","decision":"denied","decidedBy":"user","at":1767225750000}"#;
//! let part = fold.apply(event(denied)?)?.part();
//! assert_eq!(part.state, ToolState::Error);
//! assert_eq!(part.error.and_then(|error| error.code).map(|code| code.to_string()).as_deref(), Some("user_rejected"));
//! let approval = fold.get("c1").and_then(|call| call.approval()).cloned().unwrap_or_default();
//! assert_eq!((approval.status, approval.decided_by), (ApprovalStatus::Denied, Some(DecidedBy::User)));
//! assert_eq!(approval.wait_ms(), Some(30_000));
//! # Ok::<(), Box<dyn std::error::Error>>(())
//! ```

use serde::{Deserialize, Serialize};

use crate::error::Rejection;
use crate::error_code::ErrorCode;
use crate::event::{ApprovalRequested, ApprovalResolved};
use crate::part::{Timestamp, ToolError};

/// Where a call's approval stands.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq, Hash, Serialize, Deserialize)]
#[cfg_attr(feature = "ts", derive(ts_rs::TS))]
#[cfg_attr(feature = "schema", derive(schemars::JsonSchema))]
#[serde(rename_all = "snake_case")]
pub enum ApprovalStatus {
    /// Asked, not yet decided: the call waits.
    #[default]
    Pending,
    /// Allowed.
    Approved,
    /// Refused.
    Denied,
    /// Withdrawn before a decision (the turn was cancelled).
    Cancelled,
}

impl ApprovalStatus {
    /// The wire string, e.g. `"pending"`.
    pub fn as_str(self) -> &'static str {
        match self {
            ApprovalStatus::Pending => "pending",
            ApprovalStatus::Approved => "approved",
            ApprovalStatus::Denied => "denied",
            ApprovalStatus::Cancelled => "cancelled",
        }
    }
}

impl std::fmt::Display for ApprovalStatus {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.pad(self.as_str())
    }
}

/// What a request was answered with: an [`ApprovalStatus`] other than pending.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Serialize, Deserialize)]
#[cfg_attr(feature = "ts", derive(ts_rs::TS))]
#[cfg_attr(feature = "schema", derive(schemars::JsonSchema))]
#[serde(rename_all = "snake_case")]
pub enum Decision {
    /// The call may run.
    Approved,
    /// The call may not run.
    Denied,
    /// The request was withdrawn before anyone decided.
    Cancelled,
}

impl From<Decision> for ApprovalStatus {
    fn from(decision: Decision) -> Self {
        match decision {
            Decision::Approved => ApprovalStatus::Approved,
            Decision::Denied => ApprovalStatus::Denied,
            Decision::Cancelled => ApprovalStatus::Cancelled,
        }
    }
}

/// Who decided.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Serialize, Deserialize)]
#[cfg_attr(feature = "ts", derive(ts_rs::TS))]
#[cfg_attr(feature = "schema", derive(schemars::JsonSchema))]
#[serde(rename_all = "snake_case")]
pub enum DecidedBy {
    /// A person, asked.
    User,
    /// A rule set in advance (a permission mode, an allow list, a sandbox policy).
    Policy,
    /// An automatic reviewer (a model that judges the call's risk).
    Reviewer,
}

impl DecidedBy {
    /// The wire string, e.g. `"user"`.
    pub fn as_str(self) -> &'static str {
        match self {
            DecidedBy::User => "user",
            DecidedBy::Policy => "policy",
            DecidedBy::Reviewer => "reviewer",
        }
    }
}

/// How far a decision reaches.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Serialize, Deserialize)]
#[cfg_attr(feature = "ts", derive(ts_rs::TS))]
#[cfg_attr(feature = "schema", derive(schemars::JsonSchema))]
#[serde(rename_all = "snake_case")]
pub enum ApprovalScope {
    /// This call only.
    Once,
    /// Calls like it for the rest of the session.
    Session,
    /// Calls like it from now on (a rule is saved).
    Always,
}

/// One answer a request offered.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[cfg_attr(feature = "ts", derive(ts_rs::TS))]
#[cfg_attr(feature = "schema", derive(schemars::JsonSchema))]
#[serde(rename_all = "camelCase")]
pub struct ApprovalOption {
    /// The provider's id of the option (what the client answers with).
    pub id: String,
    /// The label shown for it.
    pub label: String,
    /// What choosing it decides.
    pub decision: Decision,
    /// How far choosing it reaches, when the provider says.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    #[cfg_attr(feature = "ts", ts(optional))]
    pub scope: Option<ApprovalScope>,
}

/// A call's approval: `metadata.approval` of its part.
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize)]
#[cfg_attr(feature = "ts", derive(ts_rs::TS))]
#[cfg_attr(feature = "schema", derive(schemars::JsonSchema))]
#[serde(rename_all = "camelCase")]
pub struct Approval {
    /// Where it stands.
    pub status: ApprovalStatus,
    /// When the request was made.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    #[cfg_attr(feature = "ts", ts(optional, type = "string | number"))]
    pub requested_at: Option<Timestamp>,
    /// When it was decided.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    #[cfg_attr(feature = "ts", ts(optional, type = "string | number"))]
    pub resolved_at: Option<Timestamp>,
    /// Who decided, when the stream says.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    #[cfg_attr(feature = "ts", ts(optional))]
    pub decided_by: Option<DecidedBy>,
    /// How far the decision reaches, when the stream says.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    #[cfg_attr(feature = "ts", ts(optional))]
    pub scope: Option<ApprovalScope>,
    /// Why the agent asks.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    #[cfg_attr(feature = "ts", ts(optional))]
    pub reason: Option<String>,
    /// The answers offered.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    #[cfg_attr(feature = "ts", ts(as = "Option<Vec<ApprovalOption>>", optional))]
    pub options: Vec<ApprovalOption>,
    /// The risk the provider sees in the call (`"low"`, `"high"`, …), when it says.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    #[cfg_attr(feature = "ts", ts(optional))]
    pub risk: Option<String>,
    /// The id of the option chosen.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    #[cfg_attr(feature = "ts", ts(optional))]
    pub option_id: Option<String>,
    /// What came with the decision: a user's message, a reviewer's rationale.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    #[cfg_attr(feature = "ts", ts(optional))]
    pub feedback: Option<String>,
}

impl Approval {
    /// A pending approval, as a request asks it.
    pub fn requested(request: &ApprovalRequested) -> Self {
        Approval {
            status: ApprovalStatus::Pending,
            requested_at: request.at.clone(),
            reason: request.reason.clone(),
            options: request.options.clone(),
            risk: request.risk.clone(),
            ..Approval::default()
        }
    }

    /// Whether nobody has decided yet.
    pub fn is_pending(&self) -> bool {
        self.status == ApprovalStatus::Pending
    }

    /// How long the call waited for the decision, in milliseconds, when both times are known.
    pub fn wait_ms(&self) -> Option<u64> {
        self.requested_at
            .as_ref()?
            .millis_until(self.resolved_at.as_ref()?)
    }

    /// Whether `request` asks what this approval was asked.
    pub(crate) fn asked_by(&self, request: &ApprovalRequested) -> bool {
        self.requested_at == request.at
            && self.reason == request.reason
            && self.options == request.options
            && self.risk == request.risk
    }

    /// This approval after `resolution`: `None` when it says nothing new, or why it does
    /// not apply (it contradicts an earlier decision).
    ///
    /// A resolution of a decided approval applies when it agrees with the decision and
    /// only adds what was not known (a decision first settled by the call's outcome, then
    /// told by the stream with its time and who decided).
    pub(crate) fn resolve(
        &self,
        resolution: &ApprovalResolved,
    ) -> Result<Option<Approval>, Rejection> {
        let status = ApprovalStatus::from(resolution.decision);
        if !self.is_pending() && self.status != status {
            return Err(Rejection::ConflictingApproval);
        }
        let mut next = self.clone();
        next.status = status;
        fill(&mut next.resolved_at, &resolution.at)?;
        fill(&mut next.decided_by, &resolution.decided_by)?;
        fill(&mut next.scope, &resolution.scope)?;
        fill(&mut next.option_id, &resolution.option_id)?;
        fill(&mut next.feedback, &resolution.feedback)?;
        fill(&mut next.risk, &resolution.risk)?;
        Ok((next != *self).then_some(next))
    }

    /// The error that ends a call whose request was answered with `decision`: none when
    /// it was approved.
    pub(crate) fn ending(&self) -> Option<ToolError> {
        let (code, default) = match (self.status, self.decided_by) {
            (ApprovalStatus::Pending | ApprovalStatus::Approved, _) => return None,
            (ApprovalStatus::Denied, Some(DecidedBy::User)) => {
                (ErrorCode::UserRejected, "the user denied the call")
            }
            (ApprovalStatus::Denied, Some(DecidedBy::Reviewer)) => {
                (ErrorCode::PermissionDenied, "a reviewer denied the call")
            }
            (ApprovalStatus::Denied, _) => (ErrorCode::PermissionDenied, "the call was denied"),
            (ApprovalStatus::Cancelled, _) => {
                (ErrorCode::Interrupted, "the approval request was cancelled")
            }
        };
        let message = self.feedback.as_deref().unwrap_or(default);
        Some(ToolError::new(message).with_code(code))
    }

    /// What a pending approval settles to when its call fails with `error`: denied for a
    /// refusal (by the user for `user_rejected`), cancelled for an interruption, approved
    /// for any other failure (the call was let run, and failed).
    pub(crate) fn settled_by_failure(error: &ToolError) -> Settled {
        match error.code {
            Some(ErrorCode::UserRejected) => (ApprovalStatus::Denied, Some(DecidedBy::User)),
            Some(ErrorCode::PermissionDenied) => (ApprovalStatus::Denied, None),
            Some(ErrorCode::Interrupted) => (ApprovalStatus::Cancelled, None),
            _ => (ApprovalStatus::Approved, None),
        }
    }

    /// This approval, settled as `settled` says when it is still pending.
    pub(crate) fn settle(&self, (status, decided_by): Settled) -> Option<Approval> {
        self.is_pending().then(|| Approval {
            status,
            decided_by: self.decided_by.or(decided_by),
            ..self.clone()
        })
    }
}

/// What a call's outcome says of its pending approval: the status, and who decided when
/// the outcome says.
pub(crate) type Settled = (ApprovalStatus, Option<DecidedBy>);

/// Sets `slot` to `value` when it is empty; agrees when they are equal; otherwise the two
/// contradict each other.
fn fill<T: Clone + PartialEq>(slot: &mut Option<T>, value: &Option<T>) -> Result<(), Rejection> {
    match (slot.as_ref(), value) {
        (_, None) => Ok(()),
        (None, Some(value)) => {
            *slot = Some(value.clone());
            Ok(())
        }
        (Some(held), Some(value)) if held == value => Ok(()),
        (Some(_), Some(_)) => Err(Rejection::ConflictingApproval),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn resolution(decision: Decision) -> ApprovalResolved {
        ApprovalResolved {
            id: "c".into(),
            decision,
            decided_by: None,
            scope: None,
            option_id: None,
            feedback: None,
            risk: None,
            at: None,
        }
    }

    #[test]
    fn a_decision_settled_by_the_outcome_takes_the_details_the_stream_tells_later() {
        let settled = Approval {
            status: ApprovalStatus::Approved,
            ..Approval::default()
        };
        let told = ApprovalResolved {
            decided_by: Some(DecidedBy::User),
            at: Some(Timestamp::from(5u64)),
            ..resolution(Decision::Approved)
        };
        let next = settled.resolve(&told).ok().flatten().unwrap_or_default();
        assert_eq!(next.decided_by, Some(DecidedBy::User));
        assert_eq!(next.resolved_at, Some(Timestamp::from(5u64)));
        assert_eq!(next.resolve(&told), Ok(None), "told twice: nothing new");
        assert_eq!(
            next.resolve(&resolution(Decision::Denied)),
            Err(Rejection::ConflictingApproval)
        );
        let other_decider = ApprovalResolved {
            decided_by: Some(DecidedBy::Policy),
            ..resolution(Decision::Approved)
        };
        assert_eq!(
            next.resolve(&other_decider),
            Err(Rejection::ConflictingApproval)
        );
    }

    #[test]
    fn a_failure_settles_a_pending_approval_by_its_code() {
        let refused = ToolError::new("no").with_code(ErrorCode::UserRejected);
        let denied = ToolError::new("no").with_code(ErrorCode::PermissionDenied);
        let interrupted = ToolError::new("stop").with_code("interrupted");
        let exited = ToolError::new("exit 1").with_code(ErrorCode::ExitCode);
        let settled = Approval::settled_by_failure;
        assert_eq!(
            settled(&refused),
            (ApprovalStatus::Denied, Some(DecidedBy::User))
        );
        assert_eq!(settled(&denied), (ApprovalStatus::Denied, None));
        assert_eq!(settled(&interrupted), (ApprovalStatus::Cancelled, None));
        assert_eq!(settled(&exited), (ApprovalStatus::Approved, None));
        assert_eq!(
            settled(&ToolError::new("?")),
            (ApprovalStatus::Approved, None)
        );
    }

    #[test]
    fn the_ending_of_a_refusal_names_who_refused() {
        let denied = |decided_by| Approval {
            status: ApprovalStatus::Denied,
            decided_by,
            ..Approval::default()
        };
        let code = |approval: Approval| approval.ending().and_then(|error| error.code);
        assert_eq!(
            code(denied(Some(DecidedBy::User))),
            Some(ErrorCode::UserRejected)
        );
        assert_eq!(
            code(denied(Some(DecidedBy::Policy))),
            Some(ErrorCode::PermissionDenied)
        );
        assert_eq!(code(denied(None)), Some(ErrorCode::PermissionDenied));
        let with_feedback = Approval {
            feedback: Some("use trash instead".into()),
            ..denied(Some(DecidedBy::User))
        };
        assert_eq!(
            with_feedback.ending().map(|error| error.message),
            Some("use trash instead".into())
        );
        assert_eq!(Approval::default().ending(), None);
    }
}
