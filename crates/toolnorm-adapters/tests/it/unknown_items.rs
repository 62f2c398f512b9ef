//! A tool-like event this version does not know is never dropped: an item type the
//! pinned schema lacks becomes a part named after its type (kind from the rules, else
//! `unknown`), with a notice; one that cannot be read as a call is an error.
#![allow(clippy::unwrap_used, clippy::expect_used)]

use crate::common;

use serde_json::json;
use toolnorm::{ToolKind, ToolState};
use toolnorm_adapters::{Dialect, Severity};

#[test]
fn a_new_codex_app_server_item_type_is_a_call() {
    let item = json!({"type": "hologramProjection", "id": "hp_1", "subject": "a cat"});
    let (parts, diagnostics) = common::shown_lines(
        Dialect::CODEX_APP_SERVER,
        &[
            json!({"method": "item/started", "params": {"threadId": "t", "turnId": "u", "item": item}}),
            json!({"method": "item/completed", "params": {"threadId": "t", "turnId": "u", "item": item}}),
        ],
    );
    assert_eq!(parts.len(), 1);
    let part = &parts[0];
    assert_eq!(
        (part.id.as_str(), part.name.as_str()),
        ("hp_1", "hologramProjection")
    );
    assert_eq!(
        (part.kind, part.state),
        (ToolKind::Unknown, ToolState::Complete)
    );
    assert_eq!(part.input, json!({"subject": "a cat"}));
    assert_eq!(diagnostics.len(), 2, "{diagnostics:?}");
    assert!(
        diagnostics
            .iter()
            .all(|(severity, message)| *severity == Severity::Notice
                && message.contains("`hologramProjection`"))
    );

    // A known tool item that does not fit its schema even with its missing fields filled
    // in (no `status`, whose value would be made up) is still a call, read by its id and
    // type, with a notice; an item without an id is an error.
    let (parts, diagnostics) = common::shown_lines(
        Dialect::CODEX_APP_SERVER,
        &[
            json!({"method": "item/started", "params": {"threadId": "t", "turnId": "u",
                "item": {"type": "commandExecution", "id": "c1"}}}),
            json!({"method": "item/started", "params": {"threadId": "t", "turnId": "u",
                "item": {"type": "hologramProjection"}}}),
        ],
    );
    assert_eq!(parts.len(), 1, "{diagnostics:?}");
    assert_eq!(
        (parts[0].id.as_str(), parts[0].name.as_str(), parts[0].state),
        ("c1", "commandExecution", ToolState::Running)
    );
    assert_eq!(diagnostics.len(), 2, "{diagnostics:?}");
    assert_eq!(diagnostics[0].0, Severity::Notice, "{diagnostics:?}");
    assert!(
        diagnostics[0].1.contains("missing field `status`"),
        "{diagnostics:?}"
    );
    assert_eq!(diagnostics[1].0, Severity::Error, "{diagnostics:?}");
}

#[test]
fn a_new_codex_exec_item_type_is_a_call() {
    let item = json!({"id": "item_3", "type": "hologram_projection", "subject": "a cat"});
    let (parts, diagnostics) = common::shown_lines(
        Dialect::CODEX_EXEC,
        &[
            json!({"type": "item.started", "item": item}),
            json!({"type": "item.completed", "item": item}),
            json!({"type": "item.completed", "item": {"id": "item_4", "type": "agent_message", "text": "done"}}),
        ],
    );
    assert_eq!(parts.len(), 1);
    assert_eq!(parts[0].name, "hologram_projection");
    assert_eq!(parts[0].state, ToolState::Complete);
    assert_eq!(diagnostics.len(), 2, "{diagnostics:?}");
    assert!(
        diagnostics
            .iter()
            .all(|(severity, _)| *severity == Severity::Notice)
    );
}

#[test]
fn a_new_opencode_part_type_is_a_notice() {
    let (parts, diagnostics) = common::shown_lines(
        Dialect::OPENCODE,
        &[
            json!({"type": "message.part.updated", "properties": {"part": {
            "id": "prt_1", "sessionID": "ses_1", "messageID": "msg_1", "type": "hologram"}}}),
        ],
    );
    assert!(parts.is_empty());
    assert_eq!(
        diagnostics,
        [(
            Severity::Notice,
            "line 1: notice: unknown OpenCode part type `hologram`".to_owned()
        )]
    );
}

#[test]
fn a_new_opencode_part_type_shaped_as_a_tool_part_is_a_call() {
    let part = |status: &str| {
        json!({"type": "message.part.updated", "properties": {"part": {
        "id": "prt_1", "sessionID": "ses_1", "messageID": "msg_1", "type": "tool-v2",
        "callID": "call_1", "tool": "bash",
        "state": if status == "completed" {
            json!({"status": "completed", "input": {"command": "ls"}, "output": "a\n",
                   "title": "ls", "metadata": {}, "time": {"start": 1, "end": 2}})
        } else {
            json!({"status": "pending", "input": {"command": "ls"}, "raw": ""})
        }}}})
    };
    let (parts, diagnostics) =
        common::shown_lines(Dialect::OPENCODE, &[part("pending"), part("completed")]);
    assert_eq!(parts.len(), 1, "{diagnostics:?}");
    assert_eq!(parts[0].id, "call_1");
    assert_eq!(parts[0].state, ToolState::Complete);
    assert_eq!(parts[0].output.as_deref(), Some(&json!("a\n")));
    assert!(
        diagnostics
            .iter()
            .all(|(severity, text)| *severity == Severity::Notice
                && text.contains("unknown OpenCode part type `tool-v2`, read as a tool part")),
        "{diagnostics:?}"
    );
}

#[test]
fn a_new_opencode_part_event_reads_its_part() {
    let (parts, diagnostics) = common::shown_lines(
        Dialect::OPENCODE,
        &[
            json!({"type": "message.part.replaced", "properties": {"part": {
                "id": "prt_1", "sessionID": "ses_1", "messageID": "msg_1", "type": "tool",
                "callID": "call_1", "tool": "read",
                "state": {"status": "running", "input": {"filePath": "a.txt"}, "time": {"start": 1}}}}}),
            json!({"type": "message.part.teleported", "properties": {}}),
        ],
    );
    assert_eq!(parts.len(), 1, "{diagnostics:?}");
    assert_eq!(
        (parts[0].id.as_str(), parts[0].state),
        ("call_1", ToolState::Running)
    );
    assert_eq!(
        diagnostics,
        [
            (
                Severity::Notice,
                "line 1: notice: unknown OpenCode event `message.part.replaced`".to_owned()
            ),
            (
                Severity::Notice,
                "line 2: notice: unknown OpenCode event `message.part.teleported`".to_owned()
            ),
        ]
    );
}

#[test]
fn a_new_codex_app_server_item_update_opens_its_call() {
    let (parts, diagnostics) = common::shown_lines(
        Dialect::CODEX_APP_SERVER,
        &[
            json!({"method": "item/commandExecution/hologramDelta",
                   "params": {"threadId": "t", "turnId": "u", "itemId": "call_1", "delta": "y\n"}}),
            json!({"method": "item/agentMessage/hologram",
                   "params": {"threadId": "t", "turnId": "u", "itemId": "msg_1"}}),
            json!({"method": "item/teleported", "params": {"threadId": "t"}}),
        ],
    );
    assert_eq!(parts.len(), 1, "only the command is a call: {parts:?}");
    assert_eq!(
        (parts[0].id.as_str(), parts[0].name.as_str(), parts[0].state),
        ("call_1", "commandExecution", ToolState::Running)
    );
    assert_eq!(parts[0].kind, ToolKind::Bash);
    let severities: Vec<Severity> = diagnostics.iter().map(|(severity, _)| *severity).collect();
    assert!(
        severities.iter().all(|s| *s == Severity::Notice),
        "{diagnostics:?}"
    );
    assert!(
        diagnostics[0]
            .1
            .contains("`item/commandExecution/hologramDelta`"),
        "{diagnostics:?}"
    );
}

#[test]
fn a_new_codex_exec_item_event_reads_its_item() {
    let (parts, diagnostics) = common::shown_lines(
        Dialect::CODEX_EXEC,
        &[
            json!({"type": "item.progressed", "item": {"id": "item_0", "type": "command_execution",
                   "command": "ls", "aggregated_output": "", "status": "in_progress"}}),
            json!({"type": "item.teleported"}),
        ],
    );
    assert_eq!(parts.len(), 1, "{diagnostics:?}");
    assert_eq!(
        (parts[0].id.as_str(), parts[0].state),
        ("item_0", ToolState::Running)
    );
    assert_eq!(
        diagnostics,
        [
            (Severity::Notice, "line 1: notice: unknown codex exec event `item.progressed`, its item read as an update".to_owned()),
            (Severity::Notice, "line 2: notice: unknown codex exec event `item.teleported`".to_owned()),
        ]
    );
}
