//! A call's approval as ACP's `session/request_permission`: the request the agent sends
//! the client when a call waits for approval.
//!
//! `{"jsonrpc":"2.0","id":"<call>:approval","method":"session/request_permission",
//! "params":{"sessionId","toolCall":{"toolCallId","title","kind","status"},"options",
//! "_meta":{"toolnorm":{"approval"}}}}`. The options are the provider's, by their decision
//! and scope (`allow_once`, `allow_always` for a session or always, `reject_once`,
//! `reject_always`; an option that withdraws the request has no ACP kind and is left
//! out); a provider that offered none gets ACP's two plain ones, `allow` (`allow_once`)
//! and `reject` (`reject_once`). The decision is not a frame of its own: the call's next
//! `tool_call_update` carries it in `_meta.toolnorm.metadata.approval`.

use serde_json::{Value, json};
use toolnorm::{Approval, ApprovalOption, ApprovalScope, Decision, meta};

use super::Fields;
use crate::acp::{META_KEY, acp_kind, acp_status};

/// The ACP `PermissionOptionKind` of an option; `None` for one that withdraws the request.
fn option_kind(option: &ApprovalOption) -> Option<&'static str> {
    let always = matches!(
        option.scope,
        Some(ApprovalScope::Session | ApprovalScope::Always)
    );
    match (option.decision, always) {
        (Decision::Approved, false) => Some("allow_once"),
        (Decision::Approved, true) => Some("allow_always"),
        (Decision::Denied, false) => Some("reject_once"),
        (Decision::Denied, true) => Some("reject_always"),
        (Decision::Cancelled, _) => None,
    }
}

/// The options of the request: the provider's that ACP has a kind for, else `allow` and
/// `reject`.
fn options(approval: &Approval) -> Vec<Value> {
    let offered: Vec<Value> = approval
        .options
        .iter()
        .filter_map(|option| {
            let kind = option_kind(option)?;
            Some(json!({"optionId": option.id, "name": option.label, "kind": kind}))
        })
        .collect();
    if !offered.is_empty() {
        return offered;
    }
    vec![
        json!({"optionId": "allow", "name": "Allow", "kind": "allow_once"}),
        json!({"optionId": "reject", "name": "Reject", "kind": "reject_once"}),
    ]
}

/// Writes the `session/request_permission` request of `part`, whose approval is
/// `approval`, as one line of JSON text into `out`.
pub(super) fn write_request(
    out: &mut Vec<u8>,
    session_id: &str,
    part: &Fields<'_>,
    approval: &Approval,
) -> serde_json::Result<()> {
    let raw = part
        .metadata
        .get(meta::APPROVAL)
        .map_or(Value::Null, |approval| approval.to_value());
    let request = json!({
        "jsonrpc": "2.0",
        "id": format!("{}:approval", part.id),
        "method": "session/request_permission",
        "params": {
            "sessionId": session_id,
            "toolCall": {
                "toolCallId": part.id,
                "title": part.title,
                "kind": acp_kind(part.kind),
                "status": acp_status(part.state),
            },
            "options": options(approval),
            "_meta": { META_KEY: { "approval": raw } },
        },
    });
    serde_json::to_writer(out, &request)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn option(decision: Decision, scope: Option<ApprovalScope>) -> ApprovalOption {
        ApprovalOption {
            id: "o".into(),
            label: "O".into(),
            decision,
            scope,
        }
    }

    #[test]
    fn an_option_has_the_kind_of_its_decision_and_scope() {
        let kinds: Vec<_> = [
            option(Decision::Approved, Some(ApprovalScope::Once)),
            option(Decision::Approved, None),
            option(Decision::Approved, Some(ApprovalScope::Session)),
            option(Decision::Approved, Some(ApprovalScope::Always)),
            option(Decision::Denied, Some(ApprovalScope::Once)),
            option(Decision::Denied, Some(ApprovalScope::Always)),
            option(Decision::Cancelled, None),
        ]
        .iter()
        .map(option_kind)
        .collect();
        assert_eq!(
            kinds,
            [
                Some("allow_once"),
                Some("allow_once"),
                Some("allow_always"),
                Some("allow_always"),
                Some("reject_once"),
                Some("reject_always"),
                None
            ]
        );
        let plain = options(&Approval::default());
        assert_eq!(plain[0]["kind"], "allow_once");
        assert_eq!(plain[1]["kind"], "reject_once");
    }
}
