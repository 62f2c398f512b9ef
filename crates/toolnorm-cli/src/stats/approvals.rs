//! The approvals of `toolnorm stats`: per tool, how many calls asked, how many were
//! denied (or the request withdrawn), and how long they waited for the decision.

use std::collections::BTreeMap;

use serde::{Deserialize, Serialize};
use toolnorm::{Approval, ApprovalStatus, NormalizedToolPart, meta};

use super::quantile;

/// The approvals of one tool.
#[derive(Debug, Default, Serialize)]
#[serde(rename_all = "camelCase")]
pub(super) struct ToolApprovals {
    pub(super) name: String,
    /// Calls that asked.
    pub(super) asked: u64,
    pub(super) approved: u64,
    /// Denied, or the request withdrawn (cancelled).
    pub(super) denied: u64,
    /// Still waiting when the stream ended.
    pub(super) pending: u64,
    pub(super) denial_rate: f64,
    /// Calls whose wait is known (both times given).
    pub(super) timed: u64,
    pub(super) wait_p50_ms: Option<u64>,
    pub(super) wait_max_ms: Option<u64>,
}

/// The approvals of every tool that asked, as the calls are counted.
#[derive(Debug, Default)]
pub(super) struct Tally {
    tools: BTreeMap<String, (ToolApprovals, Vec<u64>)>,
}

impl Tally {
    /// Counts `part`'s approval, if it has one.
    pub(super) fn add(&mut self, part: &NormalizedToolPart) {
        let Some(approval) = part
            .metadata
            .as_ref()
            .and_then(|metadata| metadata.get(meta::APPROVAL))
            .and_then(|approval| Approval::deserialize(approval).ok())
        else {
            return;
        };
        let (tool, waits) = self.tools.entry(part.name.clone()).or_insert_with(|| {
            let tool = ToolApprovals {
                name: part.name.clone(),
                ..ToolApprovals::default()
            };
            (tool, Vec::new())
        });
        tool.asked += 1;
        match approval.status {
            ApprovalStatus::Pending => tool.pending += 1,
            ApprovalStatus::Approved => tool.approved += 1,
            ApprovalStatus::Denied | ApprovalStatus::Cancelled => tool.denied += 1,
        }
        waits.extend(approval.wait_ms());
    }

    /// The tools that asked, most asked first (by name on a tie).
    pub(super) fn finish(self) -> Vec<ToolApprovals> {
        let mut tools: Vec<ToolApprovals> = self
            .tools
            .into_values()
            .map(|(mut tool, mut waits)| {
                waits.sort_unstable();
                tool.denial_rate = tool.denied as f64 / tool.asked.max(1) as f64;
                tool.timed = waits.len() as u64;
                tool.wait_p50_ms = quantile(&waits, 0.5);
                tool.wait_max_ms = waits.last().copied();
                tool
            })
            .collect();
        tools.sort_by(|a, b| b.asked.cmp(&a.asked).then_with(|| a.name.cmp(&b.name)));
        tools
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    fn part(name: &str, approval: serde_json::Value) -> NormalizedToolPart {
        serde_json::from_value(
            json!({"id": "c", "name": name, "kind": "bash", "title": "t",
            "input": null, "state": "error", "error": {"message": "no"},
            "metadata": {"approval": approval}}),
        )
        .unwrap_or_else(|error| panic!("{error}"))
    }

    #[test]
    fn denials_and_waits_are_counted_per_tool() {
        let mut tally = Tally::default();
        tally.add(&part("Bash", json!({"status": "denied", "requestedAt": 1772359205000u64, "resolvedAt": 1772359209000u64})));
        tally.add(&part("Bash", json!({"status": "approved", "requestedAt": 1772359205000u64, "resolvedAt": 1772359206000u64})));
        tally.add(&part("Bash", json!({"status": "cancelled"})));
        tally.add(&part("Write", json!({"status": "pending"})));
        let tools = tally.finish();
        let bash = &tools[0];
        assert_eq!(
            (bash.name.as_str(), bash.asked, bash.approved, bash.denied),
            ("Bash", 3, 1, 2)
        );
        assert_eq!(
            (bash.timed, bash.wait_p50_ms, bash.wait_max_ms),
            (2, Some(1000), Some(4000))
        );
        assert!((bash.denial_rate - 2.0 / 3.0).abs() < 1e-9);
        assert_eq!((tools[1].name.as_str(), tools[1].pending), ("Write", 1));
    }
}
