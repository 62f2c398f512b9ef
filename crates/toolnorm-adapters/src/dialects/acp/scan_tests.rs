//! The scan against the field-by-field reading: every recording and odd lines read alike,
//! and the common lines read in one scan.

use super::*;
use crate::Dialect;
use crate::dialects::claim_checks;
use crate::read::scan_check;

/// A `session/update` line of `update`.
fn update(update: &str) -> String {
    format!(
        r#"{{"jsonrpc":"2.0","method":"session/update","params":{{"sessionId":"s","update":{update}}}}}"#
    )
}

#[test]
fn the_scan_reads_every_recording_as_the_field_by_field_reading_does() {
    let files = scan_check::recordings_read_alike(Dialect::ACP, |name| name.contains("acp"));
    assert!(files > 60, "{files} recordings");
}

#[test]
fn odd_lines_read_as_the_field_by_field_reading_reads_them() {
    let lines = [
        // `rawOutput` of every shape, kept as its text.
        update(r#"{"sessionUpdate":"tool_call_update","toolCallId":"a","status":"completed","rawOutput":"a\n\u00e9 \ud83d\ude00"}"#),
        update(r#"{"sessionUpdate":"tool_call_update","toolCallId":"a","status":"completed","rawOutput":"\ud800"}"#),
        update(r#"{"sessionUpdate":"tool_call_update","toolCallId":"a","status":"completed","rawOutput":{ "b" : [ 1 , 2.50 ] , "a" : null }}"#),
        update(r#"{"sessionUpdate":"tool_call_update","toolCallId":"a","status":"completed","rawOutput":{"a":1,"a":2}}"#),
        update(r#"{"sessionUpdate":"tool_call_update","toolCallId":"a","status":"completed","rawOutput":1e400}"#),
        update(r#"{"sessionUpdate":"tool_call_update","toolCallId":"a","status":"failed","rawOutput":{"exitCode":2,"output":"no"}}"#),
        update(r#"{"sessionUpdate":"tool_call","toolCallId":"b","title":"t","rawOutput":"x","rawOutput":"y"}"#),
        // A call, its updates, a present `null` input and output.
        update(
            r#"{"sessionUpdate":"tool_call","toolCallId":"a","title":"ls","kind":"execute","status":"pending","rawInput":{"command":"ls"},"locations":[{"path":"/w"}]}"#,
        ),
        update(
            r#"{"_meta":{"claudeCode":{"toolName":"Bash"}},"toolCallId":"a","sessionUpdate":"tool_call_update","status":"in_progress","rawInput":null,"content":[{"type":"content","content":{"type":"text","text":"x"}}]}"#,
        ),
        update(
            r#"{"sessionUpdate":"tool_call_update","toolCallId":"a","status":"completed","rawOutput":null,"extra":{"a":[1,2]}}"#,
        ),
        // Keys given twice.
        update(r#"{"sessionUpdate":"tool_call","toolCallId":"b","toolCallId":"c","title":"t"}"#),
        update(r#"{"sessionUpdate":"agent_message_chunk","sessionUpdate":"tool_call","toolCallId":"d","title":"t"}"#),
        update(r#"{"sessionUpdate":"tool_call","sessionUpdate":"plan","toolCallId":"e","title":"t"}"#),
        update(r#"{"toolCallId":"f","toolCallId":"g","sessionUpdate":"plan"}"#),
        r#"{"jsonrpc":"2.0","method":"session/update","params":{"update":{"sessionUpdate":"plan"},"update":{"sessionUpdate":"tool_call","toolCallId":"h","title":"t"}}}"#.to_owned(),
        r#"{"jsonrpc":"2.0","method":"session/update","method":"x","params":{"update":{"sessionUpdate":"tool_call","toolCallId":"i","title":"t"}}}"#.to_owned(),
        r#"{"jsonrpc":"2.0","method":"session/update","params":{},"params":{"update":{"sessionUpdate":"tool_call","toolCallId":"j","title":"t"}}}"#.to_owned(),
        r#"{"jsonrpc":"2.0","method":"session/update","params":{"sessionId":"s","sessionId":"t","update":{"sessionUpdate":"tool_call","toolCallId":"k","title":"t"}}}"#.to_owned(),
        // Null and string payloads.
        r#"{"jsonrpc":"2.0","method":"session/update","params":null}"#.to_owned(),
        r#"{"jsonrpc":"2.0","method":"session/update","params":"x"}"#.to_owned(),
        r#"{"jsonrpc":"2.0","method":"session/update"}"#.to_owned(),
        r#"{"jsonrpc":"2.0","method":"session/update","params":{"sessionId":"s"}}"#.to_owned(),
        r#"{"jsonrpc":"2.0","method":"session/update","params":{"sessionId":7,"update":{"sessionUpdate":"tool_call","toolCallId":"l","title":"t"}}}"#.to_owned(),
        update("null"),
        update(r#""tool_call""#),
        update(r#"{"sessionUpdate":null}"#),
        update(r#"{"toolCallId":"m"}"#),
        update(r#"{"sessionUpdate":"tool_call","toolCallId":"n","title":"t","content":null}"#),
        update(r#"{"sessionUpdate":"tool_call_update","toolCallId":"n","content":null,"locations":null}"#),
        update(r#"{"sessionUpdate":"tool_call_update","toolCallId":"n","content":"x"}"#),
        update(r#"{"sessionUpdate":"tool_call_update","toolCallId":"n","rawInput":"text","rawOutput":[1]}"#),
        update(r#"{"sessionUpdate":"tool_call_update","toolCallId":"n","status":"nope"}"#),
        update(r#"{"sessionUpdate":"tool_call_update","toolCallId":"n","content":[{"type":"hologram"}]}"#),
        update(r#"{"sessionUpdate":"tool_call","toolCallId":"o"}"#),
        update(r#"{"sessionUpdate":"tool_call","toolCallId":null,"title":"t"}"#),
        // Unknown update kinds, other methods.
        update(r#"{"sessionUpdate":"hologram","toolCallId":"p","title":"t"}"#),
        update(r#"{"sessionUpdate":"agent_message_chunk","content":{"type":"text","text":"hi"}}"#),
        r#"{"jsonrpc":"2.0","method":"_auth/status_update","params":{"authStatus":"ok"}}"#.to_owned(),
        r#"{"jsonrpc":"2.0","method":"fs/read_text_file","id":3,"params":null}"#.to_owned(),
        // The session's directory.
        r#"{"jsonrpc":"2.0","id":1,"method":"session/new","params":{"cwd":"/w","mcpServers":[]}}"#.to_owned(),
        r#"{"jsonrpc":"2.0","id":1,"method":"session/load","params":{"cwd":7}}"#.to_owned(),
        r#"{"jsonrpc":"2.0","id":1,"method":"session/resume","params":null}"#.to_owned(),
        r#"{"jsonrpc":"2.0","id":1,"method":"session/new"}"#.to_owned(),
        // Params before the method.
        r#"{"jsonrpc":"2.0","params":{"sessionId":"s","update":{"sessionUpdate":"tool_call","toolCallId":"q","title":"t"}},"method":"session/update"}"#.to_owned(),
        r#"{"params":{"cwd":"/v"},"id":2,"method":"session/new"}"#.to_owned(),
        // Permission requests and their answers, other responses.
        r#"{"jsonrpc":"2.0","id":"7","method":"session/request_permission","params":{"sessionId":"s","toolCall":{"toolCallId":"a","title":"ls"},"options":[{"optionId":"y","name":"Yes","kind":"allow_once"}]}}"#.to_owned(),
        r#"{"jsonrpc":"2.0","id":8,"result":{"stopReason":"end_turn"}}"#.to_owned(),
        r#"{"jsonrpc":"2.0","id":"\u0037","result":{"outcome":{"outcome":"selected","optionId":"y"}}}"#.to_owned(),
        r#"{"jsonrpc":"2.0","id":null,"error":{"code":1}}"#.to_owned(),
        r#"{"jsonrpc":"2.0","id":1,"id":2,"result":{}}"#.to_owned(),
        r#"{"jsonrpc":"2.0","result":{}}"#.to_owned(),
        r#"{"jsonrpc":"2.0","method":5,"id":4}"#.to_owned(),
        // Escaped keys, unicode escapes in ids.
        r#"{"jsonrpc":"2.0","m\u0065thod":"session/update","params":{"update":{"session\u0055pdate":"tool_call","\u0074oolCallId":"r","title":"t"}}}"#.to_owned(),
        update(r#"{"sessionUpdate":"tool_call","toolCallId":"\u00e9\ud83d\ude00","title":"\"t\""}"#),
        update(r#"{"sessionUpdate":"tool_call_update","toolCallId":"\u00e9\ud83d\ude00","status":"failed"}"#),
        // Not JSON-RPC, not JSON, cut.
        r#"{"jsonrpc":"2.0"}"#.to_owned(),
        "[1]".to_owned(),
        "7".to_owned(),
        update(r#"{"sessionUpdate":"tool_call","toolCallId":"s","title":"t""#),
        r#"{"jsonrpc":"2.0","method":"session/update","params":{"update":{"sessionUpdate":"tool_c"#.to_owned(),
    ];
    let text = lines.join("\n");
    scan_check::read_alike(Dialect::ACP, text.as_bytes(), "the lines above");
}

/// What the scan makes of `line`: `None` when it gives up.
fn scanned(line: &str) -> Option<&'static str> {
    Some(match scan(line.as_bytes())? {
        Frame::Call(_) => "call",
        Frame::Cwd(_) => "cwd",
        Frame::Response(_) => "response",
        Frame::Skipped => "skipped",
    })
}

#[test]
fn the_common_lines_are_read_in_one_scan() {
    let call = update(
        r#"{"_meta":{"claudeCode":{"toolName":"Bash"}},"toolCallId":"a","sessionUpdate":"tool_call","rawInput":{},"status":"pending","title":"ls","kind":"execute","content":[]}"#,
    );
    assert_eq!(scanned(&call), Some("call"));
    let done = update(
        r#"{"sessionUpdate":"tool_call_update","toolCallId":"a","status":"completed","content":[{"type":"content","content":{"type":"text","text":"x"}}],"rawOutput":{"output":"x"}}"#,
    );
    assert_eq!(scanned(&done), Some("call"));
    for kind in [
        "agent_message_chunk",
        "available_commands_update",
        "usage_update",
        "plan",
    ] {
        let line = update(&format!(
            r#"{{"sessionUpdate":"{kind}","x":[1,{{"y":null}}]}}"#
        ));
        assert_eq!(scanned(&line), Some("skipped"), "{kind}");
    }
    assert_eq!(
        scanned(r#"{"jsonrpc":"2.0","id":1,"result":{"x":[]}}"#),
        Some("response")
    );
    assert_eq!(
        scanned(r#"{"jsonrpc":"2.0","id":1,"method":"session/new","params":{"cwd":"/w"}}"#),
        Some("cwd")
    );
    assert_eq!(
        scanned(r#"{"jsonrpc":"2.0","method":"_x","params":{"a":1}}"#),
        Some("skipped")
    );
    // Left to the field-by-field reading.
    assert_eq!(
        scanned(r#"{"jsonrpc":"2.0","id":0,"method":"session/request_permission","params":{}}"#),
        None
    );
    assert_eq!(
        scanned(&update(r#"{"sessionUpdate":"tool_call","toolCallId":"a"}"#)),
        None
    );
}

#[test]
fn every_recorded_line_but_permission_requests_is_read_in_one_scan() {
    let mut lines = 0;
    for file in claim_checks::recordings_where(|name| name.contains("acp")) {
        let text = std::fs::read_to_string(&file).unwrap();
        for line in text.lines().filter(|line| !line.trim().is_empty()) {
            let permission = line.contains(r#""method":"session/request_permission""#);
            assert_eq!(
                scanned(line).is_some(),
                !permission,
                "{}: {line}",
                file.display()
            );
            lines += 1;
        }
    }
    assert!(lines > 1000, "{lines} lines");
}

#[test]
fn a_raw_output_is_kept_as_it_came() {
    let line = update(
        r#"{"sessionUpdate":"tool_call_update","toolCallId":"a","status":"completed","rawOutput":"a\tb"}"#,
    );
    let Some(Frame::Call(seen)) = scan(line.as_bytes()) else {
        panic!("not read in one scan")
    };
    assert_eq!(
        seen.raw_output
            .as_ref()
            .and_then(|output| output.raw_text()),
        Some(r#""a\tb""#)
    );
}
