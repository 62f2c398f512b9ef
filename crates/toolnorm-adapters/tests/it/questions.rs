//! Questions read from the streams: a `question` call of Claude Code, OpenCode and Codex
//! carries `metadata.questions` in the same shape, with the answer once given.

#![allow(clippy::unwrap_used, clippy::expect_used)] // test code: a failure should panic

use serde_json::{Value, json};
use toolnorm::{NormalizedToolPart, Question, ToolKind, ToolState};
use toolnorm_adapters::Dialect;

use crate::common;

fn read(dialect: &str, lines: &[Value]) -> Vec<NormalizedToolPart> {
    common::read_lines(dialect, lines)
}

fn questions(part: &NormalizedToolPart) -> Vec<Question> {
    assert_eq!(part.kind, ToolKind::Question, "{part:?}");
    let value = part.metadata.as_ref().expect("metadata")["questions"].clone();
    serde_json::from_value(value).expect("typed questions")
}

fn asked() -> Value {
    json!({"questions": [
        {"question": "Which database?", "header": "Storage", "multiSelect": false,
         "options": [{"label": "SQLite", "description": "One file"}, {"label": "PostgreSQL", "description": "A server"}]},
        {"question": "Which features?", "header": "Features", "multiSelect": true,
         "options": [{"label": "auth", "description": "Sign-in"}, {"label": "search", "description": "Full text"}]}
    ]})
}

const ANSWERED: &str = "User has answered your questions: \"Which database?\"=\"SQLite\", \"Which features?\"=\"auth, search\". You can now continue with the user's answers in mind.";

/// The two answers `ANSWERED` gives.
fn assert_answered(questions: &[Question]) {
    assert_eq!(questions.len(), 2);
    assert_eq!(questions[0].options[1].label, "PostgreSQL");
    assert_eq!(questions[0].answer, Some(vec!["SQLite".to_owned()]));
    assert!(questions[1].multi_select);
    assert_eq!(
        questions[1].answer,
        Some(vec!["auth".to_owned(), "search".to_owned()])
    );
}

#[test]
fn claude_code_ask_user_question_is_asked_then_answered() {
    let use_line = json!({"type":"assistant","session_id":"s1","message":{"id":"m1","role":"assistant","model":"claude",
        "content":[{"type":"tool_use","id":"toolu_q","name":"AskUserQuestion","input":asked()}]}});
    let open = read("claude-code", std::slice::from_ref(&use_line));
    assert_eq!(open[0].state, ToolState::Started);
    assert!(
        questions(&open[0])
            .iter()
            .all(|question| question.answer.is_none())
    );

    let result = json!({"type":"user","session_id":"s1","message":{"role":"user",
        "content":[{"type":"tool_result","tool_use_id":"toolu_q","content":ANSWERED}]},
        "tool_use_result":{"questions":asked()["questions"],"answers":{"Which database?":"SQLite","Which features?":"auth, search"}}});
    let done = read("claude-code", &[use_line, result]);
    assert_eq!(done[0].state, ToolState::Complete);
    assert_answered(&questions(&done[0]));
}

#[test]
fn opencode_question_is_answered_in_its_output() {
    let line = json!({"type":"tool_use","timestamp":1767225610002_u64,"sessionID":"ses_1","part":{"type":"tool","tool":"question",
        "callID":"call_q","state":{"status":"completed","input":{"questions":[
            {"question":"Which database?","header":"Storage","options":[{"label":"SQLite","description":"One file"},{"label":"PostgreSQL","description":"A server"}]},
            {"question":"Which features?","header":"Features","multiple":true,"options":[{"label":"auth","description":"Sign-in"},{"label":"search","description":"Full text"}]}]},
        "output":ANSWERED,"metadata":{"answers":[["SQLite"],["auth","search"]]},"title":"Asked 2 questions",
        "time":{"start":1767225610000_u64,"end":1767225610001_u64}},
        "id":"prt_1","sessionID":"ses_1","messageID":"msg_1"}});
    let parts = read("opencode", &[line]);
    assert_answered(&questions(&parts[0]));
}

#[test]
fn codex_request_user_input_is_answered_by_id() {
    let call = json!({"timestamp":"2026-01-01T00:00:10.000Z","type":"response_item","payload":{"type":"function_call",
        "name":"request_user_input","call_id":"call_q","arguments":json!({"questions":[
            {"id":"db","header":"Storage","question":"Which database?","options":[{"label":"SQLite","description":"One file"},{"label":"PostgreSQL","description":"A server"}]},
            {"id":"port","header":"Port","question":"Which port?"}]}).to_string()}});
    let output = json!({"timestamp":"2026-01-01T00:00:20.000Z","type":"response_item","payload":{"type":"function_call_output",
        "call_id":"call_q","output":json!({"answers":{"db":{"answers":["SQLite"]},"port":{"answers":["8080"]}}}).to_string()}});
    let parts = read("codex-rollout", &[call, output]);
    let questions = questions(&parts[0]);
    assert_eq!(questions[0].id.as_deref(), Some("db"));
    assert_eq!(questions[0].answer, Some(vec!["SQLite".to_owned()]));
    assert_eq!(questions[1].answer, Some(vec!["8080".to_owned()]));
    assert_eq!(parts[0].title, "Asking the user");
}

#[test]
fn a_question_dismissed_keeps_its_questions_unanswered() {
    let use_line = json!({"type":"assistant","session_id":"s1","message":{"id":"m1","role":"assistant","model":"claude",
        "content":[{"type":"tool_use","id":"toolu_q","name":"AskUserQuestion","input":asked()}]}});
    let result = json!({"type":"user","session_id":"s1","message":{"role":"user",
        "content":[{"type":"tool_result","tool_use_id":"toolu_q","is_error":true,"content":"The user dismissed the questions"}]}});
    let parts = read("claude-code", &[use_line, result]);
    assert_eq!(parts[0].state, ToolState::Error);
    assert!(
        questions(&parts[0])
            .iter()
            .all(|question| question.answer.is_none())
    );
}

#[test]
fn opencode_question_replied_answers_before_the_output() {
    let part = |status: &str| {
        json!({"type": "message.part.updated", "properties": {"sessionID": "ses_1", "part": {"type": "tool", "tool": "question",
            "callID": "call_q", "state": {"status": status, "input": asked(), "time": {"start": 1767226260000_u64}},
            "id": "prt_1", "sessionID": "ses_1", "messageID": "msg_1"}}})
    };
    let lines = [
        part("running"),
        json!({"type": "question.asked", "properties": {"id": "que_1", "sessionID": "ses_1", "questions": asked()["questions"],
            "tool": {"messageID": "msg_1", "callID": "call_q"}}}),
        json!({"type": "question.replied", "properties": {"sessionID": "ses_1", "requestID": "que_1",
            "answers": [["SQLite"], ["auth", "search"]]}}),
    ];
    let parts = read("opencode", &lines);
    assert_eq!(parts[0].state, ToolState::Running);
    assert_answered(&questions(&parts[0]));
    // An output that does not repeat the answers keeps them.
    let mut done = part("completed");
    done["properties"]["part"]["state"]["output"] = json!("Answered.");
    done["properties"]["part"]["state"]["title"] = json!("Asked 2 questions");
    done["properties"]["part"]["state"]["metadata"] = json!({});
    done["properties"]["part"]["state"]["time"]["end"] = json!(1767226280000_u64);
    let mut ended = lines.to_vec();
    ended.push(done);
    let parts = read("opencode", &ended);
    assert_eq!(parts[0].state, ToolState::Complete);
    assert_answered(&questions(&parts[0]));
}

#[test]
fn an_acp_elicitation_tied_to_a_call_is_its_questions() {
    let update = |update: Value| json!({"jsonrpc": "2.0", "method": "session/update", "params": {"sessionId": "s1", "update": update}});
    let lines = [
        update(
            json!({"sessionUpdate": "tool_call", "toolCallId": "c1", "name": "mcp__deploy__release",
            "title": "release", "kind": "other", "status": "in_progress", "rawInput": {"service": "api"}}),
        ),
        json!({"jsonrpc": "2.0", "id": 7, "method": "elicitation/create", "params": {"sessionId": "s1", "toolCallId": "c1",
            "mode": "form", "message": "Where should it go?", "requestedSchema": {"type": "object", "properties": {
                "env": {"type": "string", "title": "Environment",
                        "oneOf": [{"const": "staging", "title": "Staging"}, {"const": "prod", "title": "Production"}]}},
                "required": ["env"]}}}),
        json!({"jsonrpc": "2.0", "id": 7, "result": {"action": "accept", "content": {"env": "staging"}}}),
        json!({"jsonrpc": "2.0", "id": 8, "method": "elicitation/create", "params": {"sessionId": "s1", "toolCallId": "c1",
            "mode": "form", "message": "Anything else?", "requestedSchema": {"type": "object", "properties": {
                "tags": {"type": "array", "title": "Tags", "items": {"type": "string", "enum": ["hotfix", "canary"]}},
                "note": {"type": "string", "description": "A note for the log"}}}}}),
        json!({"jsonrpc": "2.0", "id": 8, "result": {"action": "decline"}}),
        update(
            json!({"sessionUpdate": "tool_call_update", "toolCallId": "c1", "status": "completed", "rawOutput": "released"}),
        ),
    ];
    let text: String = lines.iter().map(|line| format!("{line}\n")).collect();
    let (parts, diagnostics) =
        common::normalize(text.as_bytes(), Some(Dialect::from_name("acp").unwrap()));
    assert!(diagnostics.is_empty(), "{diagnostics:#?}");
    let value = parts[0].metadata.as_ref().unwrap()["questions"].clone();
    let asked: Vec<Question> = serde_json::from_value(value).unwrap();
    assert_eq!(asked.len(), 3);
    assert_eq!(asked[0].question, "Where should it go?");
    assert_eq!(asked[0].header.as_deref(), Some("Environment"));
    assert_eq!(asked[0].options[1].label, "prod");
    assert_eq!(asked[0].answer, Some(vec!["staging".to_owned()]));
    assert_eq!(asked[1].question, "Tags");
    assert!(asked[1].multi_select);
    assert_eq!(asked[1].options.len(), 2);
    assert_eq!(asked[2].question, "A note for the log");
    assert!(asked[1].answer.is_none() && asked[2].answer.is_none());
}

#[test]
fn a_claude_code_host_answers_ask_user_question_in_its_updated_input() {
    let use_line = json!({"type":"assistant","session_id":"s1","message":{"id":"m1","role":"assistant","model":"claude",
        "content":[{"type":"tool_use","id":"toolu_q","name":"AskUserQuestion","input":asked()}]}});
    let mut answered = asked();
    answered["answers"] = json!({"Which database?": "SQLite", "Which features?": "auth, search"});
    let lines = [
        use_line,
        json!({"type":"control_request","request_id":"r1","request":{"subtype":"can_use_tool","tool_name":"AskUserQuestion",
            "input":asked(),"tool_use_id":"toolu_q"}}),
        json!({"type":"control_response","response":{"subtype":"success","request_id":"r1",
            "response":{"behavior":"allow","updatedInput":answered}}}),
    ];
    let parts = read("claude-code", &lines);
    assert_eq!(parts[0].input["answers"]["Which database?"], "SQLite");
    assert_answered(&questions(&parts[0]));
}
