//! Approvals: given a call and its approval events, then this part or this rejection.
#![allow(clippy::unwrap_used, clippy::expect_used)] // test code: a failure should panic

use serde_json::json;
use toolnorm::{Error, Fold, Outcome, Rejection, ToolEvent, ToolState};

fn event(value: serde_json::Value) -> ToolEvent {
    serde_json::from_value(value).unwrap()
}

/// A fold holding call `c1`, started at 10:00:00.
fn fold_with_call() -> Fold {
    let mut fold = Fold::new();
    fold.apply(event(json!({"type": "toolCallStarted", "id": "c1", "name": "Bash", "kind": "bash", "title": "rm notes.txt", "at": "2026-03-01T10:00:00Z"})))
        .unwrap();
    fold
}

fn request() -> ToolEvent {
    event(json!({
        "type": "approvalRequested", "id": "c1", "reason": "Delete notes.txt?",
        "options": [
            {"id": "allow", "label": "Yes", "decision": "approved", "scope": "once"},
            {"id": "reject", "label": "No", "decision": "denied"}
        ],
        "at": "2026-03-01T10:00:01Z"
    }))
}

fn approval(fold: &Fold) -> serde_json::Value {
    fold.parts()[0].metadata.as_ref().unwrap()["approval"].clone()
}

#[test]
fn a_request_makes_the_call_wait_and_its_approval_lets_it_run() {
    let mut fold = fold_with_call();
    fold.apply(request()).unwrap();
    assert_eq!(fold.parts()[0].state, ToolState::Started);
    assert_eq!(approval(&fold)["status"], "pending");
    assert_eq!(approval(&fold)["options"][1]["decision"], "denied");
    let approved = json!({"type": "approvalResolved", "id": "c1", "decision": "approved", "decidedBy": "user", "scope": "once", "optionId": "allow", "at": "2026-03-01T10:00:05Z"});
    fold.apply(event(approved.clone())).unwrap();
    assert_eq!(
        fold.parts()[0].state,
        ToolState::Started,
        "approved: it may run, it does not yet"
    );
    let expected = json!({
        "status": "approved", "requestedAt": "2026-03-01T10:00:01Z", "resolvedAt": "2026-03-01T10:00:05Z",
        "decidedBy": "user", "scope": "once", "reason": "Delete notes.txt?",
        "options": [
            {"id": "allow", "label": "Yes", "decision": "approved", "scope": "once"},
            {"id": "reject", "label": "No", "decision": "denied"}
        ],
        "optionId": "allow"
    });
    assert_eq!(approval(&fold), expected);
    assert_eq!(
        fold.get("c1").unwrap().approval().unwrap().wait_ms(),
        Some(4000)
    );
    assert_eq!(
        fold.apply(event(approved)).unwrap().outcome,
        Outcome::Unchanged
    );
    assert_eq!(
        fold.apply(request()).unwrap().outcome,
        Outcome::Unchanged,
        "the same request again"
    );
}

#[test]
fn a_denial_by_policy_and_a_cancellation_end_the_call() {
    for (resolution, code, message) in [
        (
            json!({"decision": "denied", "decidedBy": "policy"}),
            "permission_denied",
            "the call was denied",
        ),
        (
            json!({"decision": "denied", "decidedBy": "user", "feedback": "use trash"}),
            "user_rejected",
            "use trash",
        ),
        (
            json!({"decision": "cancelled"}),
            "interrupted",
            "the approval request was cancelled",
        ),
    ] {
        let mut fold = fold_with_call();
        fold.apply(request()).unwrap();
        let mut resolved =
            json!({"type": "approvalResolved", "id": "c1", "at": "2026-03-01T10:00:03Z"});
        resolved
            .as_object_mut()
            .unwrap()
            .extend(resolution.as_object().unwrap().clone());
        let part = fold.apply(event(resolved)).unwrap().part();
        assert_eq!(part.state, ToolState::Error);
        let error = part.error.unwrap();
        assert_eq!(
            (error.code.unwrap().as_str(), error.message.as_str()),
            (code, message)
        );
        assert_eq!(part.timing.unwrap().elapsed_ms, Some(3000));
    }
}

#[test]
fn an_unresolved_request_is_settled_by_what_the_call_did() {
    let mut ran = fold_with_call();
    ran.apply(request()).unwrap();
    ran.apply(event(json!({"type": "toolCallRunning", "id": "c1"})))
        .unwrap();
    assert_eq!(
        approval(&ran)["status"],
        "pending",
        "running says nothing: some agents run a call to tell its refusal"
    );
    ran.apply(event(
        json!({"type": "toolCallCompleted", "id": "c1", "output": "ok"}),
    ))
    .unwrap();
    assert_eq!(approval(&ran)["status"], "approved");
    assert!(
        approval(&ran).get("decidedBy").is_none(),
        "who decided is not known"
    );
    // The stream tells the decision afterwards: its details are added.
    ran.apply(event(json!({"type": "approvalResolved", "id": "c1", "decision": "approved", "decidedBy": "policy"})))
        .unwrap();
    assert_eq!(
        approval(&ran)["decidedBy"],
        "policy",
        "a decision told after the end fills it in"
    );
    let contradiction = ran
        .apply(event(
            json!({"type": "approvalResolved", "id": "c1", "decision": "denied"}),
        ))
        .unwrap_err();
    assert!(matches!(
        contradiction,
        Error::Rejected {
            reason: Rejection::ConflictingApproval,
            ..
        }
    ));

    let mut refused = fold_with_call();
    refused.apply(request()).unwrap();
    refused
        .apply(event(json!({"type": "toolCallFailed", "id": "c1", "error": {"message": "declined", "code": "permission_denied"}})))
        .unwrap();
    assert_eq!(approval(&refused)["status"], "denied");
    // Told after the call ended: the decision is recorded, the call's error stays.
    refused
        .apply(event(json!({"type": "approvalResolved", "id": "c1", "decision": "denied", "decidedBy": "user", "at": "2026-03-01T10:00:09Z"})))
        .unwrap();
    assert_eq!(approval(&refused)["resolvedAt"], "2026-03-01T10:00:09Z");
    assert_eq!(
        refused.parts()[0].error.as_ref().unwrap().message,
        "declined"
    );

    let mut failed = fold_with_call();
    failed.apply(request()).unwrap();
    failed
        .apply(event(json!({"type": "toolCallFailed", "id": "c1", "error": {"message": "exit 1", "code": "exit_code"}})))
        .unwrap();
    assert_eq!(
        approval(&failed)["status"],
        "approved",
        "it was let run, and failed"
    );
}

#[test]
fn a_resolution_needs_a_request_and_a_call_is_asked_once() {
    let mut fold = fold_with_call();
    let orphan = fold
        .apply(event(
            json!({"type": "approvalResolved", "id": "c1", "decision": "approved"}),
        ))
        .unwrap_err();
    assert!(matches!(
        orphan,
        Error::Rejected {
            reason: Rejection::NoApprovalRequest,
            ..
        }
    ));
    assert_eq!(
        orphan.to_string(),
        "tool call `c1` is started: approvalResolved rejected, no approval was requested for it"
    );
    fold.apply(request()).unwrap();
    let second = fold
        .apply(event(
            json!({"type": "approvalRequested", "id": "c1", "reason": "again?"}),
        ))
        .unwrap_err();
    assert!(matches!(
        second,
        Error::Rejected {
            reason: Rejection::AlreadyAsked,
            ..
        }
    ));
    assert_eq!(
        approval(&fold)["reason"],
        "Delete notes.txt?",
        "the rejected request changed nothing"
    );

    let mut done = fold_with_call();
    done.apply(event(
        json!({"type": "toolCallCompleted", "id": "c1", "output": "ok"}),
    ))
    .unwrap();
    let late = done.apply(request()).unwrap_err();
    assert!(matches!(
        late,
        Error::Rejected {
            reason: Rejection::Terminal,
            ..
        }
    ));
}

#[test]
fn the_providers_error_after_a_denial_says_what_happened_and_the_code_who_refused() {
    let mut fold = fold_with_call();
    fold.apply(request()).unwrap();
    fold.apply(event(
        json!({"type": "approvalResolved", "id": "c1", "decision": "denied", "decidedBy": "user"}),
    ))
    .unwrap();
    let provider = json!({"type": "toolCallFailed", "id": "c1",
        "error": {"message": "the command was declined", "code": "permission_denied", "details": {"status": "declined"}}});
    let update = fold.apply(event(provider.clone())).unwrap();
    assert_eq!(update.outcome, Outcome::Changed);
    let error = update.part().error.unwrap();
    assert_eq!(
        (error.message.as_str(), error.code.unwrap().as_str()),
        ("the command was declined", "user_rejected")
    );
    assert_eq!(error.details, Some(json!({"status": "declined"}).into()));
    // Only once: a different failure after it is rejected, as for any finished call.
    let late =
        json!({"type": "toolCallFailed", "id": "c1", "error": {"message": "something else"}});
    assert!(matches!(
        fold.apply(event(late)).unwrap_err(),
        Error::Rejected {
            reason: Rejection::Terminal,
            ..
        }
    ));
}
