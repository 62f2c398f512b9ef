//! A tool-like event this version does not know is never dropped: an item type the
//! pinned schema lacks becomes a part named after its type (kind from the rules, else
//! `unknown`), with a notice; one that cannot be read as a call is an error.
#![allow(clippy::unwrap_used, clippy::expect_used)]

use crate::common;

use serde_json::{Value, json};
use toolnorm::{NormalizedToolPart, ToolKind, ToolState};
use toolnorm_adapters::{Dialect, Severity};

fn run(dialect: Dialect, lines: &[Value]) -> (Vec<NormalizedToolPart>, Vec<(Severity, String)>) {
    let text: String = lines.iter().map(|line| format!("{line}\n")).collect();
    let (parts, diagnostics) = common::normalize(text.as_bytes(), Some(dialect));
    let shown = diagnostics
        .iter()
        .map(|d| (d.severity, d.to_string()))
        .collect();
    (parts, shown)
}

#[test]
fn a_new_codex_app_server_item_type_is_a_call() {
    let item = json!({"type": "hologramProjection", "id": "hp_1", "subject": "a cat"});
    let (parts, diagnostics) = run(
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

    // A known item type that does not fit its schema stays an error, and so does an item
    // without an id.
    let (parts, diagnostics) = run(
        Dialect::CODEX_APP_SERVER,
        &[
            json!({"method": "item/started", "params": {"threadId": "t", "turnId": "u",
                "item": {"type": "commandExecution", "id": "c1"}}}),
            json!({"method": "item/started", "params": {"threadId": "t", "turnId": "u",
                "item": {"type": "hologramProjection"}}}),
        ],
    );
    assert!(parts.is_empty());
    assert_eq!(diagnostics.len(), 2, "{diagnostics:?}");
    assert!(
        diagnostics
            .iter()
            .all(|(severity, _)| *severity == Severity::Error)
    );
}

#[test]
fn a_new_codex_exec_item_type_is_a_call() {
    let item = json!({"id": "item_3", "type": "hologram_projection", "subject": "a cat"});
    let (parts, diagnostics) = run(
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
    let (parts, diagnostics) = run(
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
