//! Approvals read from the streams: a request, the client's answer when the stream holds
//! both directions, a request that comes before its call, and a refusal nobody was asked.

#![allow(clippy::unwrap_used, clippy::expect_used)] // test code: a failure should panic

use serde_json::{Value, json};
use toolnorm::{NormalizedToolPart, ToolState};
use toolnorm_adapters::Dialect;

use crate::common;

fn read(dialect: &str, lines: &[Value]) -> Vec<NormalizedToolPart> {
    let text: String = lines.iter().map(|line| format!("{line}\n")).collect();
    let dialect = Dialect::from_name(dialect).expect("a dialect");
    let (parts, diagnostics) = common::normalize(text.as_bytes(), Some(dialect));
    assert!(diagnostics.is_empty(), "{diagnostics:#?}");
    parts
}

fn approval(part: &NormalizedToolPart) -> &Value {
    &part.metadata.as_ref().expect("metadata")["approval"]
}

/// `codex app-server`: a command item, its approval request, and the item's end.
fn codex_command(id: &str, status: &str, request: Value, answer: Option<Value>) -> Vec<Value> {
    let item = |status: &str| {
        json!({"type":"commandExecution","id":id,"command":"rm notes.txt","cwd":"/w",
        "processId":null,"status":status,"commandActions":[],"aggregatedOutput":null,"exitCode":null,"durationMs":null})
    };
    let mut lines = vec![
        json!({"method":"item/started","params":{"item":item("inProgress"),"threadId":"th","turnId":"tu"}}),
        request,
    ];
    lines.extend(answer);
    lines.push(json!({"method":"serverRequest/resolved","params":{"threadId":"th","requestId":0}}));
    lines.push(json!({"method":"item/completed","params":{"item":item(status),"threadId":"th","turnId":"tu"}}));
    lines
}

fn codex_request(id: &str) -> Value {
    json!({"method":"item/commandExecution/requestApproval","id":0,"params":{"threadId":"th","turnId":"tu",
        "itemId":id,"reason":"Delete notes.txt?","command":"rm notes.txt","cwd":"/w",
        "availableDecisions":["accept","acceptForSession","decline","cancel"]}})
}

#[test]
fn codex_the_clients_decision_when_the_stream_holds_it_else_the_items_end() {
    let declined = read(
        "codex-app-server",
        &codex_command(
            "c1",
            "declined",
            codex_request("c1"),
            Some(json!({"id":0,"result":{"decision":"decline"}})),
        ),
    );
    let part = &declined[0];
    assert_eq!(part.state, ToolState::Error);
    assert_eq!(
        part.error
            .as_ref()
            .and_then(|error| error.code.clone())
            .map(|code| code.to_string())
            .as_deref(),
        Some("user_rejected")
    );
    assert_eq!(approval(part)["status"], "denied");
    assert_eq!(approval(part)["decidedBy"], "user");
    assert_eq!(approval(part)["optionId"], "decline");
    assert_eq!(approval(part)["reason"], "Delete notes.txt?");
    assert_eq!(approval(part)["options"].as_array().map(Vec::len), Some(4));

    let for_session = read(
        "codex-app-server",
        &codex_command(
            "c1",
            "completed",
            codex_request("c1"),
            Some(json!({"id":0,"result":{"decision":"acceptForSession"}})),
        ),
    );
    assert_eq!(for_session[0].state, ToolState::Complete);
    assert_eq!(approval(&for_session[0])["status"], "approved");
    assert_eq!(approval(&for_session[0])["scope"], "session");

    // Only the server's side: the item's end says what was decided.
    let unanswered = read(
        "codex-app-server",
        &codex_command("c1", "declined", codex_request("c1"), None),
    );
    assert_eq!(approval(&unanswered[0])["status"], "denied");
    assert_eq!(approval(&unanswered[0]).get("decidedBy"), None);
    assert_eq!(
        unanswered[0]
            .error
            .as_ref()
            .map(|error| error.message.as_str()),
        Some("the command was declined")
    );
}

/// Diagnostics of a stream read as `toolnorm normalize` reads it: finished calls are
/// dropped from the fold as soon as they end.
fn evicting_diagnostics(dialect: &str, lines: &[Value]) -> Vec<String> {
    use toolnorm_adapters::{Normalizer, Step};
    let text: String = lines.iter().map(|line| format!("{line}\n")).collect();
    let mut normalizer = Normalizer::builder()
        .dialect(Dialect::from_name(dialect))
        .evict_finished(true)
        .build();
    let mut diagnostics = Vec::new();
    let mut on_step = |step: Step<'_>| {
        if let Step::Diagnostic(diagnostic) = step {
            diagnostics.push(diagnostic.to_string());
        }
    };
    normalizer.push(text.as_bytes(), &mut on_step);
    normalizer.finish(&mut on_step);
    diagnostics
}

#[test]
fn codex_a_call_the_answer_ended_takes_its_declined_item_quietly() {
    // A recording with both directions: the client's refusal or cancellation ends the
    // call, then the item ends `declined` (with its times, as 0.171 writes it).
    for decision in ["decline", "cancel"] {
        let mut lines = codex_command(
            "c1",
            "declined",
            codex_request("c1"),
            Some(json!({"id":0,"result":{"decision":decision}})),
        );
        if let Some(params) = lines.last_mut().and_then(|line| line.get_mut("params")) {
            params["item"]["startedAtMs"] = json!(1_767_225_720_000_u64);
            params["item"]["completedAtMs"] = json!(1_767_225_760_000_u64);
        }
        assert_eq!(
            evicting_diagnostics("codex-app-server", &lines),
            Vec::<String>::new(),
            "{decision}"
        );
        let parts = read("codex-app-server", &lines);
        let code = parts[0].error.as_ref().and_then(|error| error.code.clone());
        let expected = match decision {
            "decline" => ("denied", "user_rejected"),
            _ => ("cancelled", "interrupted"),
        };
        assert_eq!(approval(&parts[0])["status"], expected.0);
        assert_eq!(
            code.map(|code| code.to_string()).as_deref(),
            Some(expected.1)
        );
    }
}

#[test]
fn codex_a_request_before_its_item_and_the_protocol_before_v2() {
    // Before 0.12x a declined command has no `item/started`: its request comes first.
    let item = json!({"type":"commandExecution","id":"c1","command":"rm notes.txt","cwd":"/w","processId":null,
        "status":"declined","commandActions":[],"aggregatedOutput":null,"exitCode":null,"durationMs":null});
    let parts = read(
        "codex-app-server",
        &[
            codex_request("c1"),
            json!({"method":"item/completed","params":{"item":item.clone(),"threadId":"th","turnId":"tu"}}),
        ],
    );
    assert_eq!(parts[0].state, ToolState::Error);
    assert_eq!(approval(&parts[0])["status"], "denied");
    assert_eq!(approval(&parts[0])["reason"], "Delete notes.txt?");
    // The client's answer before the item too: it applies once the item comes.
    let parts = read(
        "codex-app-server",
        &[
            codex_request("c1"),
            json!({"id":0,"result":{"decision":"decline"}}),
            json!({"method":"serverRequest/resolved","params":{"threadId":"th","requestId":0}}),
            json!({"method":"item/completed","params":{"item":item.clone(),"threadId":"th","turnId":"tu"}}),
        ],
    );
    assert_eq!(approval(&parts[0])["decidedBy"], "user");
    assert_eq!(approval(&parts[0])["optionId"], "decline");
    let error = parts[0].error.as_ref().unwrap();
    assert_eq!(
        (
            error.message.as_str(),
            error.code.as_ref().map(|code| code.as_str())
        ),
        // The answer ended the call as the item came: the item's `declined` adds nothing.
        ("the user denied the call", Some("user_rejected"))
    );

    let older = json!({"method":"execCommandApproval","id":0,"params":{"conversationId":"th","callId":"c1",
        "command":["rm","notes.txt"],"cwd":"/w","reason":"Delete it?"}});
    let parts = read(
        "codex-app-server",
        &codex_command(
            "c1",
            "completed",
            older,
            Some(json!({"id":0,"result":{"decision":"approved"}})),
        ),
    );
    assert_eq!(approval(&parts[0])["status"], "approved");
    assert_eq!(approval(&parts[0])["reason"], "Delete it?");
    assert_eq!(approval(&parts[0])["optionId"], "approved");
}

#[test]
fn a_refusal_nobody_was_seen_asking_for_is_a_denied_approval() {
    // Claude Code in print mode: the permission mode refuses without asking.
    let parts = read(
        "claude-code",
        &[
            json!({"type":"assistant","message":{"content":[{"type":"tool_use","id":"t1","name":"Bash","input":{"command":"rm notes.txt"}}]}}),
            json!({"type":"user","message":{"content":[{"type":"tool_result","tool_use_id":"t1",
                "content":"This command requires approval","is_error":true}]}}),
        ],
    );
    assert_eq!(parts[0].state, ToolState::Error);
    assert_eq!(approval(&parts[0]), &json!({"status": "denied"}));
    // A call that fails for another reason was not refused: it has no approval.
    let parts = read(
        "claude-code",
        &[
            json!({"type":"assistant","message":{"content":[{"type":"tool_use","id":"t1","name":"Bash","input":{"command":"false"}}]}}),
            json!({"type":"user","message":{"content":[{"type":"tool_result","tool_use_id":"t1","content":"Exit code 1","is_error":true}]}}),
        ],
    );
    assert!(
        parts[0]
            .metadata
            .as_ref()
            .is_none_or(|metadata| !metadata.contains_key("approval"))
    );
}

#[test]
fn claude_code_a_call_its_host_denied_takes_its_result_quietly() {
    // `--permission-prompt-tool stdio` with both directions: the host's `deny` ends the
    // call, then the CLI gives the model the refusal as the call's result.
    let lines = [
        json!({"type":"assistant","message":{"content":[{"type":"tool_use","id":"t1","name":"Bash","input":{"command":"rm notes.txt"}}]}}),
        json!({"type":"control_request","request_id":"r1","request":{"subtype":"can_use_tool","tool_name":"Bash",
            "input":{"command":"rm notes.txt"},"tool_use_id":"t1"}}),
        json!({"type":"control_response","response":{"subtype":"success","request_id":"r1",
            "response":{"behavior":"deny","message":"The user denied this call."}}}),
        json!({"type":"user","message":{"content":[{"type":"tool_result","tool_use_id":"t1",
            "content":"The user denied this call.","is_error":true}]}}),
    ];
    assert_eq!(
        evicting_diagnostics("claude-code", &lines),
        Vec::<String>::new()
    );
    let parts = read("claude-code", &lines);
    assert_eq!(parts[0].state, ToolState::Error);
    assert_eq!(approval(&parts[0])["status"], "denied");
    assert_eq!(
        approval(&parts[0])["feedback"],
        "The user denied this call."
    );
}
