//! The other CLIs that write Claude Code's stream shape, told apart by the evidence
//! their own `claims` reads, so that Claude Code's `claims` leaves their lines alone.

use crate::read::line_keys::LineKeys;

/// Whether a line of Claude Code's shape is another CLI's, on the evidence that CLI's
/// own `claims` reads: an Amp thread id (`session_id` `T-…`); Cursor's `model_call_id` or
/// `timestamp_ms`, its `init` that names `apiKeySource` but lists no `tools`, its
/// `result` with a `request_id`, and its messages with a `session_id` but no `uuid`,
/// no `parent_tool_use_id` and no API message `id` (every line Claude Code writes has a
/// `uuid`).
pub(super) fn claim(keys: &LineKeys<'_>) -> bool {
    if keys
        .str("session_id")
        .is_some_and(|id| id.starts_with("T-"))
    {
        return true;
    }
    if keys.has("uuid") {
        return false;
    }
    if keys.has("model_call_id") || keys.has("timestamp_ms") {
        return true;
    }
    match keys.kind().as_deref() {
        Some("system") => {
            keys.has("apiKeySource") && keys.has("permissionMode") && !keys.has("tools")
        }
        Some("result") => keys.has("request_id") && keys.has("duration_api_ms"),
        Some("user" | "assistant") => {
            keys.has("session_id")
                && !keys.has("parent_tool_use_id")
                && !keys.object_has("message", "id")
                && !keys.object_has("message", "parts")
        }
        _ => false,
    }
}
