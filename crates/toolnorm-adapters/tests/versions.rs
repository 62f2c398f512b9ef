//! Older CLI releases read like the pinned one: per version, the wire differences the
//! adapters tolerate.
#![allow(clippy::unwrap_used, clippy::expect_used)]

mod common;

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

/// Codex 0.118: `item/started` / `item/completed` without `startedAtMs` / `completedAtMs`
/// (optional through the codegen step `optional_properties`).
#[test]
fn codex_app_server_0_118_items_without_lifecycle_timestamps() {
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
    assert_eq!(metadata["approval"]["status"], "resolved", "{metadata}");
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
}

/// Codex 0.142: a thread-level `warning` notification, nothing about tools.
#[test]
fn codex_app_server_0_142_warning_is_ignored() {
    let parts = common::lines(
        Dialect::CODEX_APP_SERVER,
        &[json!({"method": "warning", "params": {"threadId": "t", "message": "unstable"}})],
    );
    assert!(parts.is_empty());
}
