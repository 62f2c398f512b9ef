//! The lines Claude Code writes that carry no tool call: read past without a notice.
//!
//! The lists are those of Claude Code 2.1.332: the stream-json message types and `system`
//! subtypes of the Agent SDK's `SDKMessage` and `StdoutMessage` unions
//! (`@anthropic-ai/claude-agent-sdk` 0.3.332, `sdk.d.ts`), and the record types the CLI
//! writes into its session transcripts. A type or subtype not listed here, nor read by
//! the adapter, is a notice: a newer CLI's line, which may carry a call.

/// Stream-json message types that carry no call. `tool_progress`, `control_request` and
/// `control_response` do and are read; `tool_use_summary` names calls already ended and only sums them up.
const STREAM_TYPES: &[&str] = &[
    "auth_status",
    "rate_limit_event",
    "tool_use_summary",
    "prompt_suggestion",
    "conversation_reset",
    "active_goal",
    "control_cancel_request",
    "keep_alive",
];

/// Transcript record types that carry no call: session state the CLI keeps beside the
/// messages (titles, modes, snapshots, costs, request shapes). Messages (`user`,
/// `assistant`, `system`, `progress`, `attachment`) are read or listed elsewhere.
const TRANSCRIPT_TYPES: &[&str] = &[
    "summary",
    "attachment",
    "custom-title",
    "ai-title",
    "ended-by-model",
    "continued-in",
    "last-prompt",
    "tag",
    "relocated",
    "agent-name",
    "agent-color",
    "agent-setting",
    "pr-link",
    "frame-link",
    "artifact-comment-monitor",
    "artifact-autoreact-ledger",
    "bridge-session",
    "history-suppression",
    "file-history-snapshot",
    "file-history-delta",
    "attribution-snapshot",
    "mode",
    "permission-mode",
    "isolation-latch",
    "session-owner",
    "dev-mods",
    "memory-mode",
    "atis-latch",
    "tools-used",
    "data-flow-records",
    "data-flow-incomplete",
    "derived-from",
    "worktree-state",
    "cost-state",
    "queue-operation",
    "content-replacement",
    "api-request",
    "api-request-shape",
    "api-request-blob",
    "api-request-resumed",
    "fork-context-ref",
    "observer-ref",
    "resume-head-vouch",
    "repl-mode",
    "hybrid-organization",
    // A row the CLI writes for a script's call (`ranByToolUseId`); it reads it past too.
    "host-row",
];

/// `system` subtypes that carry no call: in stream-json (the SDK's system messages other
/// than `init`, `task_*` and `permission_denied`, which are read) and in transcripts.
const SYSTEM_SUBTYPES: &[&str] = &[
    // Stream-json.
    "status",
    "api_retry",
    "notification",
    "compact_boundary",
    "control_request_progress",
    "model_refusal_fallback",
    "model_refusal_no_fallback",
    "local_command_output",
    "hook_started",
    "hook_progress",
    "hook_response",
    "plugin_install",
    "background_tasks_changed",
    "thinking_tokens",
    "session_state_changed",
    "worker_shutting_down",
    "commands_changed",
    "files_persisted",
    "memory_recall",
    "elicitation_complete",
    "mirror_error",
    "informational",
    "session_writes_lost",
    // Transcripts.
    "api_error",
    "local_command",
    "turn_duration",
    "stop_hook_summary",
    "agents_killed",
    "away_summary",
    "bridge_status",
    "cloud_session_status",
    "file_snapshot",
    "memory_saved",
    "model_consent_fallback",
    "model_fallback",
    "permission_retry",
    "placed",
    "rewind_stand_in",
    "scheduled_task_fire",
    "voice_call_talk",
];

/// Whether a line of type `kind` carries no call.
pub(super) fn without_calls(kind: &str) -> bool {
    STREAM_TYPES.contains(&kind) || TRANSCRIPT_TYPES.contains(&kind)
}

/// Whether a `system` line of this subtype carries no call.
pub(super) fn system_without_calls(subtype: &str) -> bool {
    SYSTEM_SUBTYPES.contains(&subtype)
}

/// Whether a `system` subtype is a hook's lifecycle (`hook_started`, `hook_progress`,
/// `hook_response` and any newer `hook_*`, written with `--include-hook-events`): hooks
/// run around calls but carry none.
pub(super) fn hook_event(subtype: &str) -> bool {
    subtype.starts_with("hook_")
}

#[cfg(test)]
mod tests {
    use serde_json::json;

    use super::super::tests::parts;
    use super::*;

    #[test]
    fn every_line_without_calls_reads_without_a_notice() {
        let mut lines = vec![
            json!({"type": "system", "subtype": "init", "session_id": "s",
            "cwd": "/w", "uuid": "u"}),
        ];
        for kind in STREAM_TYPES.iter().chain(TRANSCRIPT_TYPES) {
            lines.push(json!({"type": kind, "uuid": "u", "session_id": "s"}));
        }
        for subtype in SYSTEM_SUBTYPES.iter().chain(&["hook_cancelled"]) {
            lines.push(json!({"type": "system", "subtype": subtype, "uuid": "u",
                "session_id": "s"}));
        }
        // As the SDK types shape them.
        lines.push(
            json!({"type": "system", "subtype": "api_retry", "attempt": 1,
            "max_retries": 10, "retry_delay_ms": 500, "error_status": 529,
            "error": "server_error", "uuid": "u", "session_id": "s"}),
        );
        lines.push(
            json!({"type": "system", "subtype": "hook_started", "hook_id": "h",
            "hook_name": "PreToolUse:Bash", "hook_event": "PreToolUse", "uuid": "u",
            "session_id": "s"}),
        );
        lines.push(
            json!({"type": "rate_limit_event", "rate_limit_info": {"status": "allowed",
            "resetsAt": 1, "rateLimitType": "five_hour"}, "uuid": "u", "session_id": "s"}),
        );
        lines.push(
            json!({"type": "result", "subtype": "success", "is_error": false,
            "duration_ms": 1, "duration_api_ms": 1, "num_turns": 1, "result": "ok",
            "stop_reason": null, "total_cost_usd": 0, "usage": {}, "modelUsage": {},
            "permission_denials": [], "structured_output": {"answer": 42},
            "terminal_reason": "completed", "subagent_stats": {"spawned": 1},
            "uuid": "u", "session_id": "s"}),
        );
        assert!(parts(&lines).is_empty());
    }

    #[test]
    fn no_type_is_listed_twice() {
        for list in [STREAM_TYPES, TRANSCRIPT_TYPES, SYSTEM_SUBTYPES] {
            let mut sorted = list.to_vec();
            sorted.sort_unstable();
            sorted.dedup();
            assert_eq!(sorted.len(), list.len());
        }
        assert!(
            !STREAM_TYPES
                .iter()
                .any(|kind| TRANSCRIPT_TYPES.contains(kind))
        );
    }
}
