//! A borrowed part view writes the same JSON as the part itself, in every state.
#![allow(clippy::unwrap_used, clippy::expect_used)]

use serde_json::json;
use toolnorm::{AnyToolCall, Completion, Failure, ToolCall, ToolError, ToolKind};

fn same_json(call: &AnyToolCall) {
    assert_eq!(
        serde_json::to_string(&call.part_view()).unwrap(),
        serde_json::to_string(&call.to_part()).unwrap()
    );
}

#[test]
fn every_state_writes_the_same_json() {
    let bare = ToolCall::start("a", "Bash", ToolKind::Bash);
    same_json(&AnyToolCall::from(bare.clone()));
    let started = bare
        .with_title("ls")
        .with_input(json!({"command": "ls"}))
        .started_at("2026-03-01T10:00:00Z");
    let mut meta = toolnorm::JsonObject::new();
    meta.insert("provider".into(), json!("x"));
    let mut started = started;
    started.merge_metadata(meta);
    same_json(&AnyToolCall::from(started.clone()));
    let quiet = started.clone().run(None);
    same_json(&AnyToolCall::from(quiet));
    let mut running = started.clone().run(None);
    running.append_output("0123456789".repeat(200_000).as_str());
    same_json(&AnyToolCall::from(running.clone()));
    same_json(&AnyToolCall::from(
        running.clone().complete(Completion::default()),
    ));
    let done = started
        .clone()
        .complete(Completion::with_output(json!(null)).at("2026-03-01T10:00:02Z"));
    same_json(&AnyToolCall::from(done));
    let failed = running.fail(Failure::new(ToolError::new("boom").with_code("x")));
    same_json(&AnyToolCall::from(failed));
}
