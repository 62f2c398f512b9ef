//! Goose's files are detected as its own, its claims take no other agent's lines, and
//! its odd records are told with their lines.
#![allow(clippy::unwrap_used, clippy::expect_used, clippy::panic)]

use serde_json::json;
use toolnorm::{ErrorCode, ToolState};

use crate::dialects::claim_checks::{self, EachLine, no_line, read};
use crate::{Dialect, detect_line};

#[test]
fn detection_picks_goose_for_every_sample() {
    let lines = EachLine::ClaimedByNoOther { exempt: no_line };
    let streams = claim_checks::assert_recordings_detected_as(&["goose"], Dialect::GOOSE, lines);
    assert!(streams > 0);
    let sessions = claim_checks::assert_recordings_detected_as(
        &["goose-session"],
        Dialect::GOOSE_SESSION,
        lines,
    );
    assert!(sessions > 0);
}

#[test]
fn no_other_fixture_is_detected_as_goose() {
    claim_checks::assert_no_other_fixture_is(
        &["goose", "goose-session"],
        &[Dialect::GOOSE, Dialect::GOOSE_SESSION],
    );
}

#[test]
fn the_claims_are_gooses_own_keys_only() {
    let stream = [
        r#"{"type":"message","message":{"id":null,"role":"assistant","created":1,"content":[],"metadata":{"userVisible":true,"agentVisible":true}}}"#,
        r#"{"type":"notification","extension_id":"developer","log":{"message":"x"}}"#,
    ];
    for line in stream {
        assert_eq!(detect_line(line.as_bytes()), Some(Dialect::GOOSE), "{line}");
    }
    let session = [
        r#"{"working_dir":"/w","description":"","schedule_id":null,"message_count":0}"#,
        r#"{"id":null,"role":"user","created":1,"content":[],"metadata":{"userVisible":true,"agentVisible":true}}"#,
    ];
    for line in session {
        assert_eq!(
            detect_line(line.as_bytes()),
            Some(Dialect::GOOSE_SESSION),
            "{line}"
        );
    }
    let not_claimed = [
        // Goose's other events, which carry no key of its own.
        r#"{"type":"complete","total_tokens":10}"#,
        r#"{"type":"error","error":"boom"}"#,
        r#"{"type":"model_change","model":"m","mode":"auto"}"#,
        // A message event or a bare message without Goose's metadata.
        r#"{"type":"message","message":{"role":"assistant","content":[]}}"#,
        r#"{"role":"user","created":1,"content":[],"metadata":{}}"#,
        r#"{"type":"message","role":"user","created":1,"content":[],"metadata":{"userVisible":true}}"#,
        // A working directory without the rest of the metadata.
        r#"{"working_dir":"/w"}"#,
    ];
    for line in not_claimed {
        let claimant = detect_line(line.as_bytes());
        assert!(
            claimant != Some(Dialect::GOOSE) && claimant != Some(Dialect::GOOSE_SESSION),
            "{claimant:?} claims {line}"
        );
    }
}

/// A stream `message` event with these content items.
fn event(role: &str, items: &str) -> String {
    format!(
        r#"{{"type":"message","message":{{"id":null,"role":"{role}","created":1,"content":[{items}],"metadata":{{"userVisible":true,"agentVisible":true}}}}}}"#
    )
}

#[test]
fn every_odd_stream_line_is_told_with_its_line() {
    let input = [
        // 1: a request without an id, and one that names no tool.
        event(
            "assistant",
            r#"{"type":"toolRequest","toolCall":{"status":"success","value":{"name":"developer__shell"}}},{"type":"toolRequest","id":"c1","toolCall":{"status":"success","value":{"arguments":null}}}"#,
        ),
        // 2: its response, then a second one.
        event("user", r#"{"type":"toolResponse","id":"c1","toolResult":{"status":"success","value":{"content":[{"type":"text","text":"ok"}]}}}"#),
        event("user", r#"{"type":"toolResponse","id":"c1","toolResult":{"status":"success","value":[]}}"#),
        // 4: a response whose request the input does not hold.
        event("user", r#"{"type":"toolResponse","id":"c9","toolResult":{"status":"error","error":"-32600: Tool call cancelled by user"}}"#),
        // 5: an item of an unknown type that carries a call, an item that does not read.
        event(
            "assistant",
            r#"{"type":"toolInvocation","id":"c2","toolCall":{"status":"success","value":{"name":"toolbox__echo","arguments":{"text":"hi"}}}},{"type":"toolRequest","id":7}"#,
        ),
        // 6: a confirmation request, for a call no request started.
        event("assistant", r#"{"type":"actionRequired","data":{"actionType":"toolConfirmation","id":"c3","toolName":"developer__shell","arguments":{"command":"rm x"},"prompt":"Allow?"}}"#),
        // 7: an elicitation, and an action of an unknown type.
        event("assistant", r#"{"type":"actionRequired","data":{"actionType":"elicitation","id":"e1","message":"?","requested_schema":{}}},{"type":"actionRequired","data":{"actionType":"poll"}}"#),
        // 8: a message event without its message, an unknown event, and the run's end.
        r#"{"type":"message"}"#.to_owned(),
        r#"{"type":"usage","tokens":3}"#.to_owned(),
        r#"{"type":"error","error":"Request failed"}"#.to_owned(),
        "not json".to_owned(),
    ]
    .join("\n");
    let reading = read(Dialect::GOOSE, &input);
    let (kinds, diagnostics, parts) = (reading.kinds(), reading.diagnostics, reading.parts);
    assert_eq!(
        kinds,
        [
            (1, "malformed-event"),
            (1, "malformed-event"),
            (3, "unknown-call"),
            (4, "unknown-call"),
            (5, "unknown-event"),
            (5, "malformed-event"),
            (7, "unknown-event"),
            (8, "malformed-event"),
            (9, "unknown-event"),
            (11, "invalid-json"),
        ],
        "{diagnostics:?}"
    );
    let ids: Vec<&str> = parts.iter().map(|part| part.id.as_str()).collect();
    assert_eq!(ids, ["c1", "c9", "c2", "c3"]);
    assert_eq!(
        (parts[0].name.as_str(), parts[0].output.as_deref().cloned()),
        ("tool", Some(json!("ok")))
    );
    assert_eq!(
        parts[1].error.as_ref().unwrap().code,
        Some(ErrorCode::UserRejected)
    );
    assert_eq!(
        parts[2].metadata.as_ref().unwrap()["mcp"],
        json!({"server": "toolbox", "tool": "echo"})
    );
    assert_eq!(parts[2].state, ToolState::Started);
    assert_eq!(parts[3].input, json!({"command": "rm x"}));
    assert_eq!(
        parts[3].metadata.as_ref().unwrap()["approval"]["reason"],
        json!("Allow?")
    );
}

#[test]
fn every_odd_session_line_is_told_with_its_line() {
    let input = [
        r#"{"working_dir":"/w/project","description":"d","schedule_id":null,"message_count":3}"#,
        r#"{"id":null,"role":"assistant","created":1,"content":[{"type":"toolRequest","id":"c1","toolCall":{"status":"error","error":"-32602: Could not interpret tool use parameters for id c1"}},{"type":"frontendToolRequest","id":"c2","toolCall":{"status":"success","value":{"name":"open_page","arguments":{"url":"https://example.com"}}}}],"metadata":{"userVisible":true,"agentVisible":true}}"#,
        r#"{"id":"m","role":"user","created":2,"content":[{"type":"toolResponse","id":"c1","toolResult":{"status":"error","error":"-32602: Could not interpret tool use parameters for id c1"}},{"type":"toolResponse","id":"c2","toolResult":{"status":"success","value":[{"type":"text","text":"The user has declined to run this tool. DO NOT attempt to call this tool again."}]}}],"metadata":{"userVisible":true,"agentVisible":true}}"#,
        r#"{"summary":"?"}"#,
    ]
    .join("\n");
    let reading = read(Dialect::GOOSE_SESSION, &input);
    let (kinds, diagnostics, parts) = (reading.kinds(), reading.diagnostics, reading.parts);
    assert_eq!(kinds, [(4, "unknown-event")], "{diagnostics:?}");
    assert_eq!(parts.len(), 2);
    let invalid = parts[0].error.as_ref().unwrap();
    assert_eq!(
        invalid.message,
        "Could not interpret tool use parameters for id c1"
    );
    assert_eq!(
        parts[1].metadata.as_ref().unwrap()["itemType"],
        json!("frontendToolRequest")
    );
    assert_eq!(
        parts[1].error.as_ref().unwrap().code,
        Some(ErrorCode::UserRejected)
    );
}

#[test]
fn the_json_document_is_read_as_goose_prints_it_indented() {
    let document = json!({
        "messages": [
            {"id": null, "role": "user", "created": 1, "content": [{"type": "text", "text": "go"}], "metadata": {"userVisible": true, "agentVisible": true}},
            {"id": "a", "role": "assistant", "created": 2, "content": [{"type": "toolRequest", "id": "c1", "toolCall": {"status": "success", "value": {"name": "developer__shell", "arguments": {"command": "ls"}}}}], "metadata": {"userVisible": true, "agentVisible": true}},
            {"id": "m", "role": "user", "created": 3, "content": [{"type": "toolResponse", "id": "c1", "toolResult": {"status": "success", "value": {"content": [{"type": "text", "text": "a.txt"}], "isError": false}}}], "metadata": {"userVisible": true, "agentVisible": true}}
        ],
        "metadata": {"total_tokens": null, "status": "completed"}
    });
    let pretty = serde_json::to_string_pretty(&document).unwrap();
    let reading = read(None, &format!("{pretty}\n"));
    assert_eq!(reading.dialect, Some(Dialect::GOOSE));
    let parts = reading.clean_parts();
    assert_eq!(parts.len(), 1);
    assert_eq!(
        (parts[0].title.as_str(), parts[0].output.as_deref().cloned()),
        ("ls", Some(json!("a.txt")))
    );
    // A document of another shape is not Goose's.
    let other = r#"{"messages":[{"role":"user","content":"x"}],"metadata":{"status":"ok"}}"#;
    assert_ne!(detect_line(other.as_bytes()), Some(Dialect::GOOSE));
}

#[test]
fn lines_read_in_one_scan_read_as_item_by_item() {
    use crate::read::scan_check;
    let recorded = scan_check::recordings_read_alike(Dialect::GOOSE, |name| name == "goose")
        + scan_check::recordings_read_alike(Dialect::GOOSE_SESSION, |name| name == "goose-session");
    assert!(recorded >= 3, "{recorded} files");
    let request = r#"{"type":"toolRequest","id":"c1","toolCall":{"status":"success","value":{"name":"developer__shell","arguments":{"command":"ls"}}}}"#;
    let response = r#"{"type":"toolResponse","id":"c1","toolResult":{"status":"success","value":{"content":[{"type":"text","text":"a\nb"}],"isError":false}}}"#;
    let message = |items: &str| {
        format!(
            r#"{{"id":"m","role":"assistant","created":1,"content":[{items}],"metadata":{{"userVisible":true}}}}"#
        )
    };
    let messages = [
        message(request),
        message(response),
        // An item that does not read (a number, an id of another type, a key twice), and
        // one that reads beside it.
        message(&format!(r#"7,{request}"#)).replace("c1", "c2"),
        message(r#"{"type":"toolRequest","id":3}"#),
        message(&format!(
            r#"{{"type":"text","type":"toolRequest","id":"c4"}},{response}"#
        )),
        message(
            r#"{"type":"toolResponse","id":"c1","id":"c5","toolResult":{"status":"error","error":"-32603: no"}}"#,
        ),
        message(r#""not an item""#),
        message(
            r#"{"type":"hologram","id":"c6","toolCall":{"status":"success","value":{"name":"x"}}}"#,
        ),
        r#"{"id":"m","role":"user","content":null}"#.to_owned(),
        r#"{"id":"m","role":"user","content":"text"}"#.to_owned(),
    ];
    let mut stream = Vec::new();
    for message in &messages {
        stream.push(format!(r#"{{"type":"message","message":{message}}}"#));
    }
    // The `json` document, of every message but the one whose content is not a list.
    let document = messages.get(..messages.len() - 1).unwrap().join(",");
    stream.push(format!(
        r#"{{"messages":[{document}],"metadata":{{"status":"completed"}}}}"#
    ));
    stream.extend([
        r#"{"type":"message","message":null}"#.to_owned(),
        r#"{"type":"message","message":{"content":[1],"content":[]}}"#.to_owned(),
        r#"{"type":"complete","total_tokens":3}"#.to_owned(),
        r#"{"type":"message","message":{"content":["#.to_owned(),
    ]);
    let stream = stream.join("\n");
    let steps = scan_check::read_alike(Dialect::GOOSE, stream.as_bytes(), "the stream");
    let told = |what: &str| scan_check::told(&steps, what);
    assert!(
        told("does not read") >= 6 && told("toolCallStarted") >= 5,
        "{steps:#?}"
    );
    let mut session = vec![r#"{"working_dir":"/w","message_count":2}"#.to_owned()];
    session.extend(messages);
    let session = session.join("\n");
    scan_check::read_alike(Dialect::GOOSE_SESSION, session.as_bytes(), "the session");
}
