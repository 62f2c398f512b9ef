//! Approvals read from the streams: a request, the client's answer when the stream holds
//! both directions, a request that comes before its call, and a refusal nobody was asked.

#![allow(clippy::unwrap_used, clippy::expect_used)] // test code: a failure should panic

use serde_json::{Value, json};
use toolnorm::{NormalizedToolPart, ToolState};
use toolnorm_adapters::Dialect;

use crate::common;

fn read(dialect: &str, lines: &[Value]) -> Vec<NormalizedToolPart> {
    common::read_lines(dialect, lines)
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
    let text: String = lines.iter().map(|line| format!("{line}\n")).collect();
    let normalizer = toolnorm_adapters::Normalizer::builder()
        .dialect(Dialect::from_name(dialect))
        .evict_finished(true)
        .build();
    let (_, diagnostics) = common::run(normalizer, text.as_bytes());
    diagnostics.iter().map(ToString::to_string).collect()
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

/// `opencode serve`: a `bash` tool part in `status`, as `message.part.updated`.
fn opencode_part(status: &str) -> Value {
    let mut state = json!({"status": status, "input": {"command": "rm notes.txt"}, "time": {"start": 1767226260000_u64}});
    match status {
        "error" => {
            state["error"] = json!("The user rejected permission to use this specific tool call.")
        }
        "completed" => {
            state["output"] = json!("");
            state["title"] = json!("rm notes.txt");
            state["metadata"] = json!({"exit": 0});
        }
        _ => {}
    }
    if status != "running" {
        state["time"]["end"] = json!(1767226280000_u64);
    }
    json!({"type": "message.part.updated", "properties": {"sessionID": "ses_1", "part": {"type": "tool", "tool": "bash",
        "callID": "call_1", "state": state, "id": "prt_1", "sessionID": "ses_1", "messageID": "msg_1"}}})
}

#[test]
fn opencode_permission_asked_and_replied() {
    let asked = json!({"type": "permission.asked", "properties": {"id": "per_1", "sessionID": "ses_1", "permission": "bash",
        "patterns": ["rm notes.txt"], "metadata": {}, "always": ["rm *"], "tool": {"messageID": "msg_1", "callID": "call_1"}}});
    let reply = |reply: &str| json!({"type": "permission.replied", "properties": {"sessionID": "ses_1", "requestID": "per_1", "reply": reply}});
    let waiting = read("opencode", &[opencode_part("running"), asked.clone()]);
    assert_eq!(approval(&waiting[0])["status"], "pending");
    assert_eq!(approval(&waiting[0])["reason"], "bash: rm notes.txt");
    assert_eq!(approval(&waiting[0])["options"][1]["id"], "always");

    let rejected = read(
        "opencode",
        &[
            opencode_part("running"),
            asked.clone(),
            reply("reject"),
            opencode_part("error"),
        ],
    );
    assert_eq!(rejected[0].state, ToolState::Error);
    let error = rejected[0].error.as_ref().unwrap();
    assert_eq!(
        error.code.as_ref().map(|code| code.as_str()),
        Some("user_rejected")
    );
    assert_eq!(
        error.message,
        "The user rejected permission to use this specific tool call."
    );
    assert_eq!(approval(&rejected[0])["decidedBy"], "user");

    let always = read(
        "opencode",
        &[
            opencode_part("running"),
            asked,
            reply("always"),
            opencode_part("completed"),
        ],
    );
    assert_eq!(always[0].state, ToolState::Complete);
    assert_eq!(approval(&always[0])["status"], "approved");
    assert_eq!(approval(&always[0])["scope"], "always");

    // Before 1.x: `permission.updated` and `permission.replied` with `permissionID`.
    let older = read(
        "opencode",
        &[
            opencode_part("running"),
            json!({"type": "permission.updated", "properties": {"id": "per_2", "type": "bash", "pattern": "rm *",
                "sessionID": "ses_1", "messageID": "msg_1", "callID": "call_1", "title": "rm notes.txt",
                "metadata": {}, "time": {"created": 1767226270000_u64}}}),
            json!({"type": "permission.replied", "properties": {"sessionID": "ses_1", "permissionID": "per_2", "response": "once"}}),
            opencode_part("completed"),
        ],
    );
    assert_eq!(approval(&older[0])["reason"], "rm notes.txt");
    assert_eq!(approval(&older[0])["optionId"], "once");
    assert!(
        approval(&older[0])["requestedAt"].is_string()
            || approval(&older[0])["requestedAt"].is_number()
    );
}

#[test]
fn codex_automatic_review_decides_as_reviewer_with_its_risk() {
    let review = |status: &str, risk: Value, rationale: Value| {
        let method = if status == "inProgress" {
            "started"
        } else {
            "completed"
        };
        json!({"method": format!("item/autoApprovalReview/{method}"), "params": {"threadId": "th", "turnId": "tu",
            "startedAtMs": 1767225720000_u64, "completedAtMs": 1767225723000_u64, "reviewId": "r1", "targetItemId": "c1",
            "review": {"status": status, "riskScore": null, "riskLevel": risk, "rationale": rationale},
            "action": {"type": "command", "command": "rm notes.txt"}}})
    };
    let item = |status: &str| {
        json!({"type":"commandExecution","id":"c1","command":"rm notes.txt","cwd":"/w",
        "processId":null,"status":status,"commandActions":[],"aggregatedOutput":null,"exitCode":null,"durationMs":null})
    };
    let denied = read(
        "codex-app-server",
        &[
            json!({"method":"item/started","params":{"item":item("inProgress"),"threadId":"th","turnId":"tu"}}),
            review("inProgress", Value::Null, Value::Null),
            review(
                "denied",
                json!("high"),
                json!("Deletes a file the task did not ask to delete"),
            ),
            json!({"method":"item/completed","params":{"item":item("declined"),"threadId":"th","turnId":"tu"}}),
        ],
    );
    let decided = approval(&denied[0]);
    assert_eq!(decided["status"], "denied");
    assert_eq!(decided["decidedBy"], "reviewer");
    assert_eq!(decided["risk"], "high");
    assert_eq!(
        decided["feedback"],
        "Deletes a file the task did not ask to delete"
    );
    assert_eq!(decided["requestedAt"], 1767225720000_u64);
    assert_eq!(decided["resolvedAt"], 1767225723000_u64);
    let error = denied[0].error.as_ref().unwrap();
    assert_eq!(
        error.code.as_ref().map(|code| code.as_str()),
        Some("permission_denied")
    );

    // Approved without a `started` first: the review asks and decides at once.
    let approved = read(
        "codex-app-server",
        &[
            json!({"method":"item/started","params":{"item":item("inProgress"),"threadId":"th","turnId":"tu"}}),
            review("approved", json!("low"), json!("A scratch file")),
            json!({"method":"item/completed","params":{"item":item("completed"),"threadId":"th","turnId":"tu"}}),
        ],
    );
    assert_eq!(approved[0].state, ToolState::Complete);
    assert_eq!(approval(&approved[0])["decidedBy"], "reviewer");
    assert_eq!(approval(&approved[0])["risk"], "low");
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
