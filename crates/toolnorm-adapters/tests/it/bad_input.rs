//! The bad-input table: each case a stream with one kind of damage, the exact diagnostic
//! it gets (`line N: reason`), and the proof that processing went on: the parts written
//! (as `toolnorm normalize` writes them) are those of the undamaged stream, unless the
//! damage itself is what changes them.
#![allow(clippy::unwrap_used, clippy::expect_used)]

use crate::common;

use serde_json::{Value, json};
use toolnorm_adapters::{Dialect, Normalizer, Step};
use toolnorm_adapters::{Format, Writer};

/// What a run wrote: the parts (in `parts` format) and the diagnostics, as shown.
#[derive(Debug, PartialEq)]
struct Run {
    parts: Vec<Value>,
    diagnostics: Vec<String>,
    lines: u64,
}

fn run_with(bytes: &[u8], dialect: Option<Dialect>, chunk: usize) -> Run {
    let mut normalizer = Normalizer::builder()
        .dialect(dialect)
        .evict_finished(true)
        .build();
    let mut writer = Writer::new(Format::Parts, Vec::new());
    let mut diagnostics = Vec::new();
    let mut on_step = |step: Step<'_>| {
        if let Step::Diagnostic(diagnostic) = &step {
            diagnostics.push(diagnostic.to_string());
        }
        writer.step(&step).unwrap();
    };
    for piece in bytes.chunks(chunk.max(1)) {
        normalizer.push(piece, &mut on_step);
    }
    normalizer.finish(&mut on_step);
    writer.finish(normalizer.fold()).unwrap();
    let parts = String::from_utf8(writer.into_inner())
        .unwrap()
        .lines()
        .map(|line| serde_json::from_str(line).unwrap())
        .collect();
    assert_eq!(normalizer.stats().diagnostics, diagnostics.len() as u64);
    Run {
        parts,
        diagnostics,
        lines: normalizer.stats().lines,
    }
}

/// Runs `bytes` through the pipeline (dialect detected), whole and in 7-byte chunks; both
/// must give the same.
fn run(bytes: &[u8]) -> Run {
    let whole = run_with(bytes, None, usize::MAX);
    assert_eq!(
        whole,
        run_with(bytes, None, 7),
        "chunking changed the result"
    );
    whole
}

/// The recorded Claude Code session with one successful `Bash` call (`toolu_mock_1_1`):
/// line 1 init, 2 text, 3 `tool_use`, 4 `tool_result`, 5 text, 6 result.
fn shell_ok() -> Vec<String> {
    let text = std::fs::read_to_string(common::fixtures().join("claude-code/shell-ok.jsonl"))
        .expect("reading the fixture");
    text.lines().map(str::to_owned).collect()
}

fn join(lines: &[String]) -> String {
    lines.iter().map(|line| format!("{line}\n")).collect()
}

/// `shell_ok` with `line` inserted so that it becomes line `at` (1-based).
fn with_line(at: usize, line: &str) -> String {
    let mut lines = shell_ok();
    lines.insert(at - 1, line.to_owned());
    join(&lines)
}

/// The parts of the undamaged session.
fn baseline() -> Vec<Value> {
    let run = run(join(&shell_ok()).as_bytes());
    assert!(run.diagnostics.is_empty());
    assert_eq!(run.parts.len(), 1);
    assert_eq!(run.parts[0]["state"], "complete");
    run.parts
}

/// A Claude Code `tool_use` line for call `id`.
fn tool_use(id: &str, name: &str, input: Value) -> String {
    json!({"type": "assistant", "message": {"id": "msg_x", "role": "assistant", "type": "message",
        "content": [{"type": "tool_use", "id": id, "name": name, "input": input}]},
        "parent_tool_use_id": null, "session_id": "s"})
    .to_string()
}

/// A Claude Code `tool_result` line for call `id`.
fn tool_result(id: &str, content: &str, is_error: bool) -> String {
    json!({"type": "user", "message": {"role": "user", "content": [
        {"type": "tool_result", "tool_use_id": id, "content": content, "is_error": is_error}]},
        "parent_tool_use_id": null, "session_id": "s"})
    .to_string()
}

#[test]
fn empty_file() {
    let run = run(b"");
    assert_eq!(
        run,
        Run {
            parts: vec![],
            diagnostics: vec![],
            lines: 0
        }
    );
}

#[test]
fn blank_lines_are_skipped_and_counted() {
    let mut lines = shell_ok();
    lines.insert(2, String::new());
    lines.insert(3, "  \t\r".to_owned());
    lines.push("not json".to_owned());
    let run = run(join(&lines).as_bytes());
    assert_eq!(run.parts, baseline());
    // The blank lines 3 and 4 count: the broken line is line 9.
    assert_eq!(
        run.diagnostics,
        ["line 9: not valid JSON at column 2: expected ident"]
    );
    assert_eq!(run.lines, 9);
}

#[test]
fn a_non_json_line() {
    let run = run(with_line(3, "this is not JSON").as_bytes());
    assert_eq!(run.parts, baseline());
    assert_eq!(
        run.diagnostics,
        ["line 3: not valid JSON at column 2: expected ident"]
    );
}

#[test]
fn a_truncated_last_line() {
    let mut text = join(&shell_ok());
    text.push_str(r#"{"type":"assistant","message":{"content":[{"id":"toolu_"#);
    let run = run(text.as_bytes());
    assert_eq!(run.parts, baseline());
    assert_eq!(
        run.diagnostics,
        ["line 7: the input ends in the middle of this line"]
    );
}

#[test]
fn invalid_utf8() {
    let mut lines: Vec<Vec<u8>> = shell_ok().into_iter().map(String::into_bytes).collect();
    lines.insert(2, b"{\"type\":\"user\",\"message\":\"\xff\xfe\"}".to_vec());
    let text: Vec<u8> = lines
        .iter()
        .flat_map(|line| [line.as_slice(), b"\n"].concat())
        .collect();
    let run = run(&text);
    assert_eq!(run.parts, baseline());
    assert_eq!(run.diagnostics, ["line 3: not valid UTF-8"]);
}

#[test]
fn json_nested_ten_thousand_deep() {
    let deep = format!("{}{}", "[".repeat(10_000), "]".repeat(10_000));
    let in_a_field = format!(r#"{{"type":"assistant","message":{}}}"#, deep);
    let mut lines = shell_ok();
    lines.insert(2, deep.clone());
    lines.insert(3, in_a_field);
    let run = run(join(&lines).as_bytes());
    assert_eq!(run.parts, baseline());
    assert_eq!(
        run.diagnostics,
        [
            "line 3: not a Claude Code message: invalid type: sequence, expected a string",
            "line 4: content block: invalid type: sequence, expected a string",
        ]
    );
    // Objects, before the dialect is known: the first line.
    let deep = format!("{}1{}", r#"{"a":"#.repeat(10_000), "}".repeat(10_000));
    let run = self::run(format!("{deep}\n{}", join(&shell_ok())).as_bytes());
    assert_eq!(run.parts, baseline());
    assert_eq!(run.diagnostics, ["line 1: a line without `type`"]);
}

#[test]
fn a_100_mb_single_line() {
    let output = "x".repeat(100_000_000);
    let mut lines = shell_ok();
    lines[3] = lines[3].replacen("\"hello from the shell\"", &format!("\"{output}\""), 1);
    let text = join(&lines);
    let run = run_with(text.as_bytes(), None, 1 << 16);
    assert!(run.diagnostics.is_empty(), "{:?}", run.diagnostics);
    assert_eq!(run.parts.len(), 1);
    assert_eq!(
        run.parts[0]["output"].as_str().map(str::len),
        Some(100_000_000)
    );
}

#[test]
fn an_unknown_event_type() {
    let run = run(with_line(3, r#"{"type":"telepathy","payload_v9":{"x":1}}"#).as_bytes());
    assert_eq!(run.parts, baseline());
    assert_eq!(
        run.diagnostics,
        ["line 3: notice: unknown Claude Code message type `telepathy`"]
    );
}

#[test]
fn an_unknown_tool_is_a_call_like_any_other() {
    let mut lines = shell_ok();
    lines.insert(
        2,
        tool_use("toolu_new", "frobnicate_widget", json!({"speed": 3})),
    );
    lines.insert(3, tool_result("toolu_new", "done", false));
    let run = run(join(&lines).as_bytes());
    assert!(run.diagnostics.is_empty(), "{:?}", run.diagnostics);
    assert_eq!(run.parts.len(), 2);
    assert_eq!(run.parts[0]["name"], "frobnicate_widget");
    assert_eq!(run.parts[0]["kind"], "unknown");
    // Not a verb tool names are known to start with: shown as it is, not made a gerund.
    assert_eq!(run.parts[0]["title"], "Frobnicate widget");
    assert_eq!(run.parts[0]["state"], "complete");
    assert_eq!(run.parts[1], baseline()[0]);
}

#[test]
fn a_result_for_a_call_never_started() {
    let run = run(with_line(3, &tool_result("toolu_ghost", "boo", false)).as_bytes());
    assert_eq!(run.parts, baseline());
    assert_eq!(
        run.diagnostics,
        ["line 3: toolCallCompleted for tool call `toolu_ghost`, which was never started"]
    );
}

#[test]
fn a_start_repeated_with_different_input() {
    // Claude Code sends a tool block again as its input grows: while the call is open,
    // the latest block is its input.
    let refined = tool_use("toolu_mock_1_1", "Bash", json!({"command": "echo refined"}));
    let run = run(with_line(4, &refined).as_bytes());
    assert!(run.diagnostics.is_empty(), "{:?}", run.diagnostics);
    assert_eq!(run.parts[0]["input"], json!({"command": "echo refined"}));
    assert_eq!(run.parts[0]["output"], "hello from the shell");
    // Once the call is finished, a new start is reported and changes nothing.
    let late = tool_use("toolu_mock_1_1", "Bash", json!({"command": "rm -rf /"}));
    let run = self::run(with_line(5, &late).as_bytes());
    assert_eq!(
        run.diagnostics,
        ["line 5: tool call `toolu_mock_1_1` already finished (complete): toolCallStarted ignored"]
    );
    assert_eq!(run.parts, baseline());
    // In the canonical event log, a second start with other data is rejected.
    let log = [
        json!({"type": "toolCallStarted", "id": "a", "name": "Bash", "kind": "bash", "title": "ls", "input": {"command": "ls"}}),
        json!({"type": "toolCallStarted", "id": "a", "name": "Bash", "kind": "bash", "title": "ls", "input": {"command": "rm"}}),
        json!({"type": "toolCallCompleted", "id": "a", "output": "ok"}),
    ];
    let text: String = log.iter().map(|event| format!("{event}\n")).collect();
    let run = self::run(text.as_bytes());
    assert_eq!(
        run.diagnostics,
        [
            "line 2: tool call `a` is started: toolCallStarted rejected, it was already started with different data"
        ]
    );
    assert_eq!(run.parts.len(), 1);
    assert_eq!(run.parts[0]["input"], json!({"command": "ls"}));
    assert_eq!(run.parts[0]["output"], "ok");
}

#[test]
fn a_completion_after_an_error() {
    let mut lines = shell_ok();
    lines[3] = tool_result("toolu_mock_1_1", "boom", true);
    lines.insert(4, tool_result("toolu_mock_1_1", "fine after all", false));
    let run = run(join(&lines).as_bytes());
    assert_eq!(
        run.diagnostics,
        ["line 5: tool call `toolu_mock_1_1` already finished (error): toolCallCompleted ignored"]
    );
    assert_eq!(run.parts.len(), 1);
    assert_eq!(run.parts[0]["state"], "error");
    assert_eq!(run.parts[0]["error"]["message"], "boom");
}

#[test]
fn two_completions() {
    let mut lines = shell_ok();
    let second = tool_result("toolu_mock_1_1", "a different output", false);
    lines.insert(4, second);
    let run = run(join(&lines).as_bytes());
    assert_eq!(
        run.diagnostics,
        [
            "line 5: tool call `toolu_mock_1_1` already finished (complete): toolCallCompleted ignored"
        ]
    );
    assert_eq!(run.parts, baseline());
}

#[test]
fn a_result_before_its_use() {
    let mut lines = shell_ok();
    lines.swap(2, 3);
    let run = run(join(&lines).as_bytes());
    assert_eq!(
        run.diagnostics,
        ["line 3: toolCallCompleted for tool call `toolu_mock_1_1`, which was never started"]
    );
    // The call is still reported, as started: no result is invented or moved.
    assert_eq!(run.parts.len(), 1);
    assert_eq!(run.parts[0]["id"], "toolu_mock_1_1");
    assert_eq!(run.parts[0]["state"], "started");
}

#[test]
fn interleaved_sessions_with_colliding_call_ids() {
    let first = shell_ok();
    let mut second = shell_ok();
    second[3] = second[3].replace("hello from the shell", "hello from the other shell");
    let interleaved: Vec<String> = first
        .iter()
        .zip(&second)
        .flat_map(|(a, b)| [a.clone(), b.clone()])
        .collect();
    let run = run(join(&interleaved).as_bytes());
    assert_eq!(
        run.diagnostics,
        [
            "line 8: tool call `toolu_mock_1_1` already finished (complete): toolCallCompleted ignored"
        ]
    );
    assert_eq!(run.parts, baseline());
}

#[test]
fn two_runs_merged_line_by_line_keep_their_calls_apart() {
    // Two `claude -p` runs' outputs merged line by line: the end of the interrupted run
    // fails its own open calls, not the other run's.
    let interrupted =
        std::fs::read_to_string(common::fixtures().join("claude-code/interrupted.jsonl"))
            .expect("reading the fixture");
    let interrupted: Vec<String> = interrupted.lines().map(str::to_owned).collect();
    let other: Vec<String> = shell_ok()
        .iter()
        .map(|line| {
            line.replace("00000000-0000-4000-8000-000000000001", "other-session")
                .replace("toolu_mock_1_1", "toolu_other")
        })
        .collect();
    // The other run begins, the interrupted one begins, the other's call starts, the
    // interrupted run goes to its end, the other's call ends.
    let merged: Vec<String> = [&other[..1], &interrupted[..1], &other[1..3]]
        .into_iter()
        .chain([&interrupted[1..], &other[3..]])
        .flatten()
        .cloned()
        .collect();
    let run = run(join(&merged).as_bytes());
    assert!(run.diagnostics.is_empty(), "{:?}", run.diagnostics);
    let alone = self::run(join(&interrupted).as_bytes());
    let state = |parts: &[Value], id: &str| {
        let part = parts.iter().find(|part| part["id"] == id).cloned();
        part.map(|part| (part["state"].clone(), part.get("error").cloned()))
    };
    assert_eq!(
        state(&run.parts, "toolu_mock_1_1"),
        state(&alone.parts, "toolu_mock_1_1")
    );
    assert_eq!(
        state(&run.parts, "toolu_other"),
        Some((Value::from("complete"), None))
    );
}

#[test]
fn a_stream_ending_with_calls_open() {
    let mut lines = shell_ok();
    lines.truncate(3);
    let run = run(join(&lines).as_bytes());
    assert!(run.diagnostics.is_empty(), "{:?}", run.diagnostics);
    assert_eq!(run.parts.len(), 1);
    assert_eq!(run.parts[0]["state"], "started");
    assert_eq!(run.parts[0].get("output"), None);
}

#[test]
fn mixed_dialects_in_one_file() {
    let codex = r#"{"type":"item.started","item":{"id":"item_0","type":"command_execution","command":"ls","aggregated_output":"","status":"in_progress"}}"#;
    let opencode = r#"{"type":"message.part.updated","properties":{"part":{"id":"prt_1","type":"tool","tool":"bash","callID":"c1","sessionID":"s","messageID":"m","state":{"status":"pending","input":{},"raw":""}}}}"#;
    let mut lines = shell_ok();
    lines.insert(2, codex.to_owned());
    lines.insert(3, opencode.to_owned());
    let run = run(join(&lines).as_bytes());
    assert_eq!(run.parts, baseline());
    assert_eq!(
        run.diagnostics,
        [
            "line 3: a `codex-exec` event in a `claude-code` stream, ignored",
            "line 4: an `opencode` event in a `claude-code` stream, ignored",
        ]
    );
}

#[test]
fn extra_unknown_fields_are_tolerated() {
    let lines: Vec<String> = shell_ok()
        .iter()
        .map(|line| {
            let mut value: Value = serde_json::from_str(line).unwrap();
            let object = value.as_object_mut().unwrap();
            object.insert("fromTheFuture".into(), json!({"v": 99, "list": [1, 2]}));
            if let Some(message) = object.get_mut("message").and_then(Value::as_object_mut) {
                message.insert("newField".into(), json!(true));
            }
            value.to_string()
        })
        .collect();
    let run = run(join(&lines).as_bytes());
    assert!(run.diagnostics.is_empty(), "{:?}", run.diagnostics);
    assert_eq!(run.parts, baseline());
}

#[test]
fn a_missing_required_field() {
    let no_id = json!({"type": "assistant", "message": {"role": "assistant",
        "content": [{"type": "tool_use", "name": "Bash", "input": {"command": "ls"}}]}});
    let run = run(with_line(3, &no_id.to_string()).as_bytes());
    assert_eq!(run.parts, baseline());
    assert_eq!(
        run.diagnostics,
        ["line 3: `tool_use` block: missing field `id`"]
    );
}

#[test]
fn two_events_on_one_line() {
    // `cat` of a file that does not end with a newline: its last event and the next
    // file's first on one line.
    let mut lines = shell_ok();
    let fifth = lines.remove(4);
    lines[3].push_str(&fifth);
    let run = run(join(&lines).as_bytes());
    assert_eq!(run.parts, baseline());
    assert_eq!(
        run.diagnostics,
        [
            "line 4: notice: 2 JSON objects on one line (no newline between them), read one after the other"
        ]
    );
}

#[test]
fn a_line_cut_short_with_the_next_written_after_it() {
    // A writer killed in the middle of a line, then the next event appended.
    let mut lines = shell_ok();
    let cut = &lines[1][..60];
    lines[3] = format!("{cut}{}", lines[3]);
    let run = run(join(&lines).as_bytes());
    assert_eq!(run.parts, baseline());
    assert_eq!(
        run.diagnostics,
        [
            "line 4: its first 60 bytes are not a whole JSON object (a line cut short, the next written after it): lost; the 1 object(s) after them read"
        ]
    );
}
