//! Approvals: a call's request and its decision, said the same way for every provider.
//!
//! A provider module says that the agent asked whether a call may run
//! ([`Facts::approval_requested`]) and what was answered ([`Facts::approval_resolved`]);
//! the fold keeps the typed [`Approval`](toolnorm::Approval) in `metadata.approval` and
//! ends a denied call. A decision the stream does not hold is left to the call's outcome.
//!
//! A call that fails refused (`permission_denied`, `user_rejected`) without a request the
//! stream shows was refused all the same, by a permission check or by the user: it gets a
//! denied approval too, so that every refusal of every provider shows the same way
//! (`decidedBy: user` for `user_rejected`; who refused a `permission_denied` call is not
//! said).

use serde::Deserialize;
use serde_json::Value;
use toolnorm::{
    Approval, ApprovalRequested, ApprovalResolved, ApprovalScope, ApprovalStatus, Decision,
    ErrorCode, ToolError,
};

use super::Facts;
use crate::diagnostic::{Diagnostic, DiagnosticKind};

/// The decision and scope of an option of one of the kinds ACP names (`allow_once`,
/// `allow_always`, `reject_once`, `reject_always`), which other agents reuse.
pub fn option_kind(kind: &str) -> Option<(Decision, ApprovalScope)> {
    Some(match kind {
        "allow_once" => (Decision::Approved, ApprovalScope::Once),
        "allow_always" => (Decision::Approved, ApprovalScope::Always),
        "reject_once" => (Decision::Denied, ApprovalScope::Once),
        "reject_always" => (Decision::Denied, ApprovalScope::Always),
        _ => return None,
    })
}

impl Facts<'_> {
    /// The agent asks whether the call `request.id` (its raw id) may run.
    pub fn approval_requested(&mut self, line: u64, mut request: ApprovalRequested) {
        request.id = self.part_id(&request.id).into_owned();
        self.emit(line, request.into());
    }

    /// The request about call `resolution.id` (its raw id) was answered.
    ///
    /// A call with no request (a stream joined after it) is asked first, with a notice. A
    /// decision about a call that ended without being asked, or that the stream does not
    /// hold, is a notice.
    pub fn approval_resolved(&mut self, line: u64, mut resolution: ApprovalResolved) {
        let id = self.part_id(&resolution.id).into_owned();
        let asked = match self.sink.call(&id) {
            Some(call) if call.approval().is_some() => true,
            Some(call) if !call.is_terminal() => false,
            held => {
                let why = if held.is_some() || self.sink.finished(&id).is_some() {
                    "which ended without being asked"
                } else {
                    "which the stream does not hold"
                };
                return self.diagnostic(Diagnostic::notice(
                    line,
                    DiagnosticKind::UnknownCall,
                    format!(
                        "a decision on the approval of call `{id}`, {why}: nothing to apply it to"
                    ),
                ));
            }
        };
        if !asked {
            self.diagnostic(Diagnostic::notice(
                line,
                DiagnosticKind::UnknownCall,
                format!("a decision on the approval of call `{id}`, whose request the stream does not hold: the request is assumed"),
            ));
            let request = ApprovalRequested {
                id: id.clone(),
                reason: None,
                options: Vec::new(),
                risk: None,
                at: None,
            };
            self.emit(line, request.into());
        }
        resolution.id = id;
        self.emit(line, resolution.into());
    }
}

impl Facts<'_> {
    /// A call's `metadata.approval` as toolnorm wrote it (a stream toolnorm wrote, read
    /// back): the events that made it, so that the call gets the same approval.
    pub fn restore_approval(&mut self, line: u64, id: &str, approval: &Value) {
        let Ok(approval) = Approval::deserialize(approval) else {
            return self.diagnostic(Diagnostic::at(
                line,
                DiagnosticKind::MalformedEvent,
                format!("call `{id}`: a `metadata.approval` that is not an approval"),
            ));
        };
        let id = self.part_id(id).into_owned();
        let asked = self
            .sink
            .call(&id)
            .is_some_and(|call| call.approval().is_some());
        if !asked {
            let request = ApprovalRequested {
                id: id.clone(),
                reason: approval.reason.clone(),
                options: approval.options.clone(),
                risk: approval.risk.clone(),
                at: approval.requested_at.clone(),
            };
            self.emit(line, request.into());
        }
        let decision = match approval.status {
            ApprovalStatus::Pending => return,
            ApprovalStatus::Approved => Decision::Approved,
            ApprovalStatus::Denied => Decision::Denied,
            ApprovalStatus::Cancelled => Decision::Cancelled,
        };
        let resolution = ApprovalResolved {
            id,
            decision,
            decided_by: approval.decided_by,
            scope: approval.scope,
            option_id: approval.option_id,
            feedback: approval.feedback,
            risk: None,
            at: approval.resolved_at,
        };
        self.emit(line, resolution.into());
    }

    /// Before call `id` (a part id) fails with `error`: when the error is a refusal and the
    /// open call was not asked, it is asked now (a request with no details), so that the
    /// failure denies it.
    pub(super) fn ask_before_refusal(&mut self, line: u64, id: &str, error: &ToolError) {
        let refusal = matches!(
            error.code,
            Some(ErrorCode::UserRejected | ErrorCode::PermissionDenied)
        );
        let unasked = self
            .sink
            .call(id)
            .is_some_and(|call| !call.is_terminal() && call.approval().is_none());
        if !refusal || !unasked {
            return;
        }
        let request = ApprovalRequested {
            id: id.to_owned(),
            reason: None,
            options: Vec::new(),
            risk: None,
            at: None,
        };
        self.emit(line, request.into());
    }
}
