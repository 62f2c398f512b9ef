//! A call's approval as AG-UI 1.0's interrupt and resume.
//!
//! AG-UI has no channel back into a running run: a run that needs an answer ends, its
//! `RUN_FINISHED` outcome `interrupt` saying what it waits for, and the run that
//! continues from it carries the answers in its input's `resume`. So a call whose
//! approval is asked ends the run (see `AgUiEmitter::pause`), with one [`interrupt`]
//! for each call still waiting; the next event starts the run that continues, whose
//! `RUN_STARTED.input.resume` has a [`resume_entry`] for each of those the stream has
//! decided by then. A decision the stream gives later, while that run goes on, is
//! carried by the call's result metadata only (`metadata.toolnorm.metadata.approval`).

use serde_json::{Map, Value, json};
use toolnorm::{Approval, ApprovalStatus, meta};

use crate::emit::acp::Fields;

/// The `reason` of an approval's interrupt.
pub(super) const REASON: &str = "tool_approval";

/// A call whose approval was asked and not answered in a resume yet.
#[derive(Debug)]
struct Waiting {
    /// The call's id.
    call: String,
    /// The subagent the call's events are attributed to.
    subagent: Option<String>,
    /// Its approval, as last seen.
    approval: Approval,
    /// The same, as the part carries it (for the interrupt's metadata).
    raw: Value,
}

/// The calls waiting for approval, and whether the run is paused on them.
#[derive(Debug, Default)]
pub(super) struct Interrupts {
    /// In the order they were asked.
    waiting: Vec<Waiting>,
    /// The last run ended with the interrupt outcome, and no run started since.
    pub(super) paused: bool,
}

impl Interrupts {
    /// Takes a snapshot of a call while a run is going on; returns whether the call now
    /// asks (its approval is pending and was not asked before), which ends the run.
    ///
    /// A waiting call decided while the run goes on is not waited for any more.
    pub(super) fn sees(
        &mut self,
        part: &Fields<'_>,
        approval: Option<&Approval>,
        subagent: Option<&str>,
    ) -> bool {
        let Some(approval) = approval else {
            return false;
        };
        if let Some(at) = self.position(part.id) {
            if !approval.is_pending() {
                self.waiting.remove(at);
            }
            return false;
        }
        let asks = approval.is_pending() && !part.state.is_terminal();
        if asks {
            let raw = part
                .metadata
                .get(meta::APPROVAL)
                .map_or(Value::Null, |approval| approval.to_value());
            self.waiting.push(Waiting {
                call: part.id.to_owned(),
                subagent: subagent.map(str::to_owned),
                approval: approval.clone(),
                raw,
            });
        }
        asks
    }

    /// Whether a call waits for approval.
    pub(super) fn any_waiting(&self) -> bool {
        !self.waiting.is_empty()
    }

    /// The interrupts of the run that ends now: one per waiting call.
    pub(super) fn interrupts(&self) -> Vec<Value> {
        self.waiting.iter().map(interrupt).collect()
    }

    /// The interrupt ids raised by calls of subagent `subagent`.
    pub(super) fn raised_in(&self, subagent: &str) -> Vec<String> {
        self.waiting
            .iter()
            .filter(|waiting| waiting.subagent.as_deref() == Some(subagent))
            .map(|waiting| interrupt_id(&waiting.call))
            .collect()
    }

    /// The resume entries of the run that continues, on a snapshot of `part` (whose
    /// approval is taken first): one per waiting call now decided, which waits no more.
    pub(super) fn answers(&mut self, part: &Fields<'_>, approval: Option<&Approval>) -> Vec<Value> {
        if let Some(approval) = approval
            && let Some(waiting) = self
                .waiting
                .iter_mut()
                .find(|waiting| waiting.call == part.id)
        {
            waiting.approval = approval.clone();
        }
        let mut entries = Vec::new();
        self.waiting.retain(|waiting| {
            if waiting.approval.is_pending() {
                return true;
            }
            entries.push(resume_entry(&waiting.call, &waiting.approval));
            false
        });
        entries
    }

    fn position(&self, call: &str) -> Option<usize> {
        self.waiting.iter().position(|waiting| waiting.call == call)
    }
}

/// The id of the interrupt of call `call`'s approval (the AI SDK's `approvalId` too).
pub(super) fn interrupt_id(call: &str) -> String {
    format!("{call}:approval")
}

/// The interrupt of a waiting call: `reason` [`REASON`], the approval's reason as
/// `message`, the call, a `responseSchema` for the answer (`approved`, and the option
/// chosen when the provider offered options), and the approval in
/// `metadata.toolnorm.approval`.
fn interrupt(waiting: &Waiting) -> Value {
    let mut interrupt = Map::new();
    interrupt.insert("id".into(), json!(interrupt_id(&waiting.call)));
    interrupt.insert("reason".into(), json!(REASON));
    if let Some(reason) = &waiting.approval.reason {
        interrupt.insert("message".into(), json!(reason));
    }
    interrupt.insert("toolCallId".into(), json!(waiting.call));
    if let Some(subagent) = &waiting.subagent {
        interrupt.insert("subagentRunId".into(), json!(subagent));
    }
    let mut properties = Map::new();
    properties.insert("approved".into(), json!({"type": "boolean"}));
    if !waiting.approval.options.is_empty() {
        let ids: Vec<&str> = waiting
            .approval
            .options
            .iter()
            .map(|option| option.id.as_str())
            .collect();
        properties.insert("optionId".into(), json!({"type": "string", "enum": ids}));
    }
    interrupt.insert(
        "responseSchema".into(),
        json!({"type": "object", "properties": properties, "required": ["approved"]}),
    );
    interrupt.insert(
        "metadata".into(),
        json!({ crate::emit::ui::UI_META_KEY: { "approval": waiting.raw } }),
    );
    Value::Object(interrupt)
}

/// The answer to a decided call's interrupt: `cancelled` for a withdrawn request, else
/// `resolved` with the payload `{approved, optionId?, scope?, decidedBy?, feedback?}`.
fn resume_entry(call: &str, approval: &Approval) -> Value {
    let id = interrupt_id(call);
    if approval.status == ApprovalStatus::Cancelled {
        return json!({"interruptId": id, "status": "cancelled"});
    }
    let mut payload = Map::new();
    payload.insert(
        "approved".into(),
        json!(approval.status == ApprovalStatus::Approved),
    );
    if let Some(option) = &approval.option_id {
        payload.insert("optionId".into(), json!(option));
    }
    if let Some(scope) = approval.scope {
        payload.insert("scope".into(), json!(scope));
    }
    if let Some(decided_by) = approval.decided_by {
        payload.insert("decidedBy".into(), json!(decided_by.as_str()));
    }
    if let Some(feedback) = &approval.feedback {
        payload.insert("feedback".into(), json!(feedback));
    }
    json!({"interruptId": id, "status": "resolved", "payload": payload})
}
