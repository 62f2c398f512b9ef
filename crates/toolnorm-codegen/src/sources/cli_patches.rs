//! What each CLI sends beyond its pinned schema: the documented [`Patch`]es of the
//! sources, each naming the fixture that shows it.

use crate::preprocess::Patch;

/// What `codex exec --json` (codex 0.171) sends beyond the newest
/// `@openai/codex-sdk` types (0.163), as recorded in `fixtures/codex-exec/`.
pub(super) const CODEX_EXEC_PATCHES: &[Patch] = &[
    // edit-file.jsonl, write-file.jsonl: `item.started` of a file change.
    Patch::AddEnumValue {
        def: "PatchApplyStatus",
        value: "in_progress",
    },
    // web-search.jsonl: `{"type": "search"|"open_page"|"find_in_page", …}`.
    Patch::AddProperty {
        def: "WebSearchItem",
        name: "action",
        schema: r#"{"description": "The web search action (search, open_page, find_in_page) as sent by the CLI; not declared by the SDK types."}"#,
    },
    // subagent.jsonl: the collaboration (subagent) tool item.
    Patch::AddUnionMember {
        union: "ThreadItem",
        name: "CollabToolCallItem",
        schema: r##"{
            "description": "A collaboration (subagent) tool call, as sent by the CLI; not declared by the SDK types.",
            "type": "object",
            "properties": {
                "id": {"type": "string"},
                "type": {"type": "string", "const": "collab_tool_call"},
                "tool": {"type": "string", "description": "spawn_agent, send_input, wait or close_agent."},
                "sender_thread_id": {"type": "string"},
                "receiver_thread_ids": {"type": "array", "items": {"type": "string"}},
                "prompt": {"type": ["string", "null"]},
                "agents_states": {"type": "object", "additionalProperties": true},
                "status": {"$ref": "#/definitions/McpToolCallStatus"}
            },
            "required": ["id", "type", "tool", "status"]
        }"##,
    },
];

/// What Codex 0.171 writes in its rollout files beyond the app-server protocol's
/// `ResponseItem`, as recorded in `fixtures/codex-rollout/`.
pub(super) const CODEX_ROLLOUT_PATCHES: &[Patch] = &[
    // shell-ok.jsonl: a `function_call_output`'s passthrough metadata carries the time
    // the output was made.
    Patch::AddProperty {
        def: "InternalChatMessageMetadataPassthrough",
        name: "create_time",
        schema: r#"{"type": ["number", "null"], "description": "When the item was made (epoch seconds), as the CLI writes it; not declared by the protocol schema."}"#,
    },
];

/// What `claude -p --output-format stream-json` (2.1.332) sends beyond the
/// agent SDK types, as recorded in `fixtures/claude-code/`.
pub(super) const CLAUDE_MESSAGE_PATCHES: &[Patch] = &[
    // subagent.jsonl: `task_notification` carries `summary_is_report`.
    Patch::AddProperty {
        def: "SDKTaskNotificationMessage",
        name: "summary_is_report",
        schema: r#"{"type": "boolean", "description": "Whether `summary` is the subagent's final report; not declared by the SDK types."}"#,
    },
];

/// What Claude Code 2.1.332 puts in `tool_use_result` beyond `sdk-tools.d.ts`,
/// as recorded in `fixtures/claude-code/`.
pub(super) const CLAUDE_TOOL_PATCHES: &[Patch] = &[
    // subagent.jsonl: the result of an async `Agent`/`Task` launch.
    Patch::AddMemberProperty {
        def: "AgentOutput",
        tag: "status",
        value: "async_launched",
        name: "canContinueAgent",
        schema: r#"{"type": "boolean", "description": "Whether the launched agent can be continued; not declared by sdk-tools.d.ts."}"#,
    },
];

/// What `qwen -p --output-format stream-json` (0.24.4) sends beyond the
/// `@qwen-code/sdk` types (0.1.14), as recorded in `fixtures/qwen-code/`.
pub(super) const QWEN_MESSAGE_PATCHES: &[Patch] = &[
    // shell-ok.jsonl (every 0.24.4 recording): a `stream_event` whose event is the
    // goal state (`{"type": "goal_state", "goal_state": {"v": 2, "goal": null, …}}`),
    // sent without `--include-partial-messages`.
    Patch::AddUnionMember {
        union: "StreamEvent",
        name: "GoalStateStreamEvent",
        schema: r#"{
            "description": "The session's goal state, as sent by the CLI; not declared by the SDK types.",
            "type": "object",
            "properties": {
                "type": {"type": "string", "const": "goal_state"},
                "goal_state": {"description": "The goal and its activity, read as JSON."}
            },
            "required": ["type"]
        }"#,
    },
];

/// What Copilot CLI (1.0.102, and 1.0.82) sends beyond the newest
/// `@github/copilot-sdk` types (1.0.14, declared for CLI 1.0.85), as recorded in
/// `fixtures/copilot/` and `fixtures/copilot-session/`.
pub(super) const COPILOT_EVENT_PATCHES: &[Patch] = &[
    // shell-ok.jsonl, read-file.jsonl, mcp-ok.jsonl, …: every `tool.execution_start`
    // (at 1.0.82, those of MCP tools and `web_fetch`).
    Patch::AddProperty {
        def: "ToolExecutionStartData",
        name: "toolTitle",
        schema: r#"{"description": "Human-readable title of the tool (`Running command`, `echo`), as sent by the CLI; not declared by the SDK types.", "type": "string"}"#,
    },
    // edit-file.jsonl, write-file.jsonl, partial-input.jsonl: the files a call changed.
    Patch::AddProperty {
        def: "ToolExecutionCompleteData",
        name: "fileEdits",
        schema: r#"{"description": "The files the call changed (`path`, `kind`: `create`, `edit`, …), as sent by the CLI; not declared by the SDK types.", "type": "array", "items": {"type": "object", "properties": {"path": {"type": "string"}, "kind": {"type": "string"}}, "required": ["path", "kind"]}}"#,
    },
];

/// What `pi --mode json` (0.73.1, and 0.52.12) sends beyond the declarations of
/// `@mariozechner/pi-coding-agent` 0.73.1, as recorded in `fixtures/pi/`.
pub(super) const PI_EVENT_PATCHES: &[Patch] = &[
    // shell-ok.jsonl and every stream with a call: a `toolCall` block while its arguments
    // stream (`message_update`, and the partial message it carries) holds the JSON text
    // so far and the block's place in the model's stream.
    Patch::AddProperty {
        def: "ToolCall",
        name: "partialArgs",
        schema: r#"{"description": "The arguments' JSON text streamed so far, as sent by the CLI while they stream; not declared by the package's types.", "type": "string"}"#,
    },
    Patch::AddProperty {
        def: "ToolCall",
        name: "streamIndex",
        schema: r#"{"description": "The block's index in the model's stream, as sent by the CLI while it streams; not declared by the package's types.", "type": "integer"}"#,
    },
];
