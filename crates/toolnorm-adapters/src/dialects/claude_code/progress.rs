//! `tool_progress`: Claude Code says, every few seconds, that a call is still executing
//! (`elapsed_time_seconds`); the first such line marks a started call running.

use serde::Deserialize;
use toolnorm::ToolState;

use crate::read::json;
use crate::track::Facts;

/// What a `tool_progress` line says of its call (the SDK's `SDKToolProgressMessage`,
/// read leniently: the elapsed time may be fractional).
#[derive(Deserialize)]
struct ToolProgress {
    tool_use_id: String,
}

/// A `tool_progress` line: its call, when open and not yet running, is running.
pub(super) fn tool_progress(line: u64, bytes: &[u8], out: &mut Facts<'_>) {
    match serde_json::from_slice::<ToolProgress>(bytes) {
        Ok(progress) => {
            let started = out
                .call(&progress.tool_use_id)
                .is_some_and(|call| call.state() == ToolState::Started);
            if started {
                out.running(line, &progress.tool_use_id, None);
            }
        }
        Err(error) => out.diagnostic(json::malformed(line, "`tool_progress` message", &error)),
    }
}

#[cfg(test)]
mod tests {
    use serde_json::json;
    use toolnorm::ToolState;

    use super::super::tests::part;

    #[test]
    fn a_call_in_progress_is_running() {
        let call = json!({"type": "assistant", "message": {"content": [{"type": "tool_use",
            "id": "toolu_1", "name": "Bash", "input": {"command": "sleep 9"}}]}});
        let progress = json!({"type": "tool_progress", "tool_use_id": "toolu_1",
            "tool_name": "Bash", "parent_tool_use_id": null, "elapsed_time_seconds": 2.5,
            "uuid": "u", "session_id": "s"});
        assert_eq!(part(std::slice::from_ref(&call)).state, ToolState::Started);
        let running = part(&[call.clone(), progress.clone(), progress]);
        assert_eq!(running.state, ToolState::Running);
        // Progress of a call the stream does not hold opens nothing.
        let other = json!({"type": "tool_progress", "tool_use_id": "toolu_9",
            "tool_name": "Bash", "elapsed_time_seconds": 1, "uuid": "u", "session_id": "s"});
        assert_eq!(part(&[call, other]).state, ToolState::Started);
    }
}
