//! Older CLI releases (`fixtures/<provider>@<version>/`) read like the pinned one: per
//! version, the wire differences the adapters tolerate, each on the fixture showing it.
#![allow(clippy::unwrap_used, clippy::expect_used)]

use crate::common;

use serde_json::json;
use toolnorm::{NormalizedToolPart, ToolState};
use toolnorm_adapters::Dialect;

fn only(parts: &[NormalizedToolPart]) -> &NormalizedToolPart {
    assert_eq!(parts.len(), 1, "{parts:#?}");
    &parts[0]
}

fn error_code(part: &NormalizedToolPart) -> Option<String> {
    serde_json::to_value(part).unwrap()["error"]["code"]
        .as_str()
        .map(str::to_owned)
}

/// The scenarios whose outcome every version shares: the shell call completes, exit 3
/// fails with `exit_code`.
fn shell_outcomes(dir: &str) {
    let ok = common::fixture(&format!("{dir}/shell-ok.jsonl"));
    assert_eq!(only(&ok).state, ToolState::Complete, "{dir}");
    let failed = common::fixture(&format!("{dir}/shell-exit-3.jsonl"));
    let failed = only(&failed);
    assert_eq!(failed.state, ToolState::Error, "{dir}");
    assert_eq!(error_code(failed).as_deref(), Some("exit_code"), "{dir}");
}

#[test]
fn claude_code_2_0_and_2_1_read_like_the_pinned_release() {
    for version in ["2.0.73", "2.1.36"] {
        shell_outcomes(&format!("claude-code@{version}"));
        shell_outcomes(&format!("claude-code-transcript@{version}"));
    }
}

/// Codex 0.118: `item/started` / `item/completed` without `startedAtMs` / `completedAtMs`
/// (optional through the codegen step `optional_properties`).
#[test]
fn codex_app_server_0_118_items_without_lifecycle_timestamps() {
    shell_outcomes("codex-app-server@0.118.0");
    let parts = common::lines(
        Dialect::CODEX_APP_SERVER,
        &[
            json!({"method": "item/started", "params": {"threadId": "t", "turnId": "u", "item": {
                "type": "commandExecution", "id": "c1", "command": "ls", "cwd": "/w",
                "processId": null, "source": "agent", "status": "inProgress",
                "commandActions": [], "aggregatedOutput": null, "exitCode": null,
                "durationMs": null}}}),
            json!({"method": "item/completed", "params": {"threadId": "t", "turnId": "u", "item": {
                "type": "commandExecution", "id": "c1", "command": "ls", "cwd": "/w",
                "processId": null, "source": "agent", "status": "completed",
                "commandActions": [], "aggregatedOutput": "a\n", "exitCode": 0,
                "durationMs": 5}}}),
        ],
    );
    assert_eq!(only(&parts).state, ToolState::Complete);
}

/// Codex 0.118: a declined command's approval request comes before any `item/started`
/// (the item is first seen completed, `declined`); the approval is kept for it.
#[test]
fn codex_app_server_0_118_approval_before_the_item() {
    let parts = common::lines(
        Dialect::CODEX_APP_SERVER,
        &[
            json!({"method": "item/commandExecution/requestApproval", "id": 0, "params": {
                "threadId": "t", "turnId": "u", "itemId": "c1", "reason": "Delete it?",
                "command": "rm notes.txt", "cwd": "/w"}}),
            json!({"method": "serverRequest/resolved", "params": {"threadId": "t", "requestId": 0}}),
            json!({"method": "item/completed", "params": {"threadId": "t", "turnId": "u", "item": {
                "type": "commandExecution", "id": "c1", "command": "rm notes.txt", "cwd": "/w",
                "processId": null, "source": "agent", "status": "declined",
                "commandActions": [], "aggregatedOutput": null, "exitCode": null,
                "durationMs": null}}}),
        ],
    );
    let part = only(&parts);
    assert_eq!(part.state, ToolState::Error);
    assert_eq!(error_code(part).as_deref(), Some("permission_denied"));
    let metadata = serde_json::to_value(part).unwrap()["metadata"].clone();
    assert_eq!(metadata["approval"]["status"], "denied", "{metadata}");
    assert_eq!(metadata["approval"]["reason"], "Delete it?", "{metadata}");

    // The recording holds the client's answer, before the item too: the user declined.
    let parts = common::fixture("codex-app-server@0.118.0/permission-denied.jsonl");
    let part = only(&parts);
    assert_eq!(part.state, ToolState::Error);
    assert_eq!(error_code(part).as_deref(), Some("user_rejected"));
    let metadata = serde_json::to_value(part).unwrap()["metadata"].clone();
    assert_eq!(metadata["approval"]["status"], "denied", "{metadata}");
    assert_eq!(metadata["approval"]["decidedBy"], "user", "{metadata}");
}

/// Codex 0.118 and 0.142: a `webSearch` item has no `completedAtMs` of its own; its
/// `item/completed` ends it.
#[test]
fn codex_app_server_web_search_ends_with_item_completed() {
    let search = json!({"type": "webSearch", "id": "ws1", "query": "q",
        "action": {"type": "search", "query": "q", "queries": null}});
    let parts = common::lines(
        Dialect::CODEX_APP_SERVER,
        &[
            json!({"method": "item/started", "params": {"threadId": "t", "turnId": "u", "item": search}}),
            json!({"method": "item/completed", "params": {"threadId": "t", "turnId": "u", "item": search}}),
        ],
    );
    assert_eq!(only(&parts).state, ToolState::Complete);
    for version in ["0.118.0", "0.142.0"] {
        let parts = common::fixture(&format!("codex-app-server@{version}/web-search.jsonl"));
        assert_eq!(parts.len(), 3, "{version}");
        assert!(
            parts.iter().all(|part| part.state == ToolState::Complete),
            "{version}"
        );
    }
}

/// Codex 0.142: a thread-level `warning` notification, nothing about tools.
#[test]
fn codex_app_server_0_142_warning_is_ignored() {
    shell_outcomes("codex-app-server@0.142.0");
    let parts = common::lines(
        Dialect::CODEX_APP_SERVER,
        &[json!({"method": "warning", "params": {"threadId": "t", "message": "unstable"}})],
    );
    assert!(parts.is_empty());
}

#[test]
fn codex_exec_0_118_and_0_142_read_like_the_pinned_release() {
    for version in ["0.118.0", "0.142.0"] {
        shell_outcomes(&format!("codex-exec@{version}"));
    }
}

#[test]
fn opencode_1_1_and_1_17_read_like_the_pinned_release() {
    for version in ["1.1.53", "1.17.19"] {
        for dir in ["opencode-run", "opencode-serve", "opencode-acp"] {
            shell_outcomes(&format!("{dir}@{version}"));
        }
    }
}

/// `opencode export` 1.17 stores and prints the calls as 1.18 does.
#[test]
fn opencode_export_1_17_reads_like_the_pinned_release() {
    shell_outcomes("opencode-export");
    shell_outcomes("opencode-export@1.17.19");
}

/// OpenCode 1.1: tool errors read `Error: <message>`; a permission rule's refusal is
/// still `permission_denied`. (`opencode run` 1.1 prints no line for a failed call.)
#[test]
fn opencode_1_1_refusal_behind_its_error_prefix() {
    for dir in ["opencode-serve", "opencode-serve-global", "opencode-acp"] {
        let parts = common::fixture(&format!("{dir}@1.1.53/permission-denied.jsonl"));
        let part = only(&parts);
        assert_eq!(part.state, ToolState::Error, "{dir}");
        assert_eq!(
            error_code(part).as_deref(),
            Some("permission_denied"),
            "{dir}"
        );
    }
    assert!(common::fixture("opencode-run@1.1.53/permission-denied.jsonl").is_empty());
}

/// `claude-agent-acp` 0.65.0 (driving Claude Code 2.1.36) reads like the pinned adapter.
#[test]
fn claude_agent_acp_0_65_reads_like_the_pinned_release() {
    shell_outcomes("claude-code-acp@0.65.0");
    // The recording holds the client's answer: the user rejected the call.
    let parts = common::fixture("claude-code-acp@0.65.0/permission-denied.jsonl");
    assert_eq!(error_code(only(&parts)).as_deref(), Some("user_rejected"));
}

/// Codex 0.142 records no thread item in its rollout files (`event_msg` `item_completed`
/// came with 0.16x): a command's end is the result the model was given, its exit code
/// read from the text; MCP calls and patches end at `mcp_tool_call_end` /
/// `patch_apply_end`.
#[test]
fn codex_rollout_0_142_ends_calls_from_results_and_end_events() {
    shell_outcomes("codex-rollout");
    shell_outcomes("codex-rollout@0.142.0");
    let failed = common::fixture("codex-rollout@0.142.0/mcp-error.jsonl");
    assert_eq!(error_code(only(&failed)).as_deref(), Some("mcp_error"));
    let edit = common::fixture("codex-rollout@0.142.0/edit-file.jsonl");
    assert_eq!(only(&edit).state, ToolState::Complete);
    assert_eq!(only(&edit).title, "Editing src/greet.py");
}

/// Continue CLI 1.5.11 saves no `usage` (the session's, a message's): its calls read as
/// 1.5.47's do.
#[test]
fn continue_session_1_5_11_reads_like_the_pinned_release() {
    shell_outcomes("continue-session");
    shell_outcomes("continue-session@1.5.11");
    for scenario in ["permission-denied", "read-missing", "mcp-error", "todo"] {
        let old = common::fixture(&format!("continue-session@1.5.11/{scenario}.jsonl"));
        let new = common::fixture(&format!("continue-session/{scenario}.jsonl"));
        assert_eq!(old, new, "{scenario}");
    }
}
