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

use toolnorm::{Approval, ApprovalOption, ApprovalScope, Decision, meta};

use super::Fields;
use crate::acp::{META_KEY, acp_kind, acp_status};
use crate::emit::json::Object;

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

/// The options of the request, each as `(optionId, name, kind)`: the provider's that ACP
/// has a kind for, else `allow` and `reject`.
fn options(approval: &Approval) -> Vec<(&str, &str, &'static str)> {
    let offered: Vec<_> = approval
        .options
        .iter()
        .filter_map(|option| {
            Some((
                option.id.as_str(),
                option.label.as_str(),
                option_kind(option)?,
            ))
        })
        .collect();
    if !offered.is_empty() {
        return offered;
    }
    vec![
        ("allow", "Allow", "allow_once"),
        ("reject", "Reject", "reject_once"),
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
    let mut request = Object::open(out);
    request.str("jsonrpc", "2.0");
    request.str("id", &format!("{}:approval", part.id));
    request.str("method", "session/request_permission");
    request.key("params");
    let mut params = Object::open(request.out());
    params.str("sessionId", session_id);
    params.key("toolCall");
    let mut call = Object::open(params.out());
    call.str("toolCallId", part.id);
    call.str("title", part.title);
    call.value("kind", &acp_kind(part.kind))?;
    call.value("status", &acp_status(part.state))?;
    call.close();
    params.key("options");
    let list = params.out();
    list.push(b'[');
    for (place, (id, name, kind)) in options(approval).into_iter().enumerate() {
        if place > 0 {
            list.push(b',');
        }
        let mut option = Object::open(&mut *list);
        option.str("optionId", id);
        option.str("name", name);
        option.str("kind", kind);
        option.close();
    }
    list.push(b']');
    params.key("_meta");
    let mut meta = Object::open(params.out());
    meta.key(META_KEY);
    let mut toolnorm = Object::open(meta.out());
    toolnorm.value("approval", &part.metadata.get(meta::APPROVAL))?;
    toolnorm.close();
    meta.close();
    params.close();
    request.close();
    Ok(())
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
        let none = Approval::default();
        let plain = options(&none);
        assert_eq!(plain[0].2, "allow_once");
        assert_eq!(plain[1].2, "reject_once");
    }
}
