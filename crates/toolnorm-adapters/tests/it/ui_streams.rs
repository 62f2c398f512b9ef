//! The UI stream formats: every fixture's `ai-sdk` chunks and `ag-ui` events follow the
//! protocols' sequence rules and end each call as its part ends; failures, refusals,
//! sessions, subagents and streamed input map as documented. (CI also checks every
//! fixture with the real `ai` and `@ag-ui/*` packages: checks/ui-protocols.)
#![allow(clippy::unwrap_used, clippy::expect_used)]

use crate::common;

use std::collections::{HashMap, HashSet};

use serde_json::{Value, json};
use toolnorm::NormalizedToolPart;
use toolnorm_adapters::{AgUiEmitter, AiSdkEmitter, Normalizer, Step};

/// The part snapshots of a stream, in order, and the final parts by id.
pub(crate) fn snapshots(
    bytes: &[u8],
) -> (Vec<NormalizedToolPart>, HashMap<String, NormalizedToolPart>) {
    let mut normalizer = Normalizer::builder().build();
    let mut all = Vec::new();
    let mut on_step = |step: Step<'_>| {
        if let Step::Applied { update, .. } = step {
            all.push(update.part());
        }
    };
    normalizer.push(bytes, &mut on_step);
    normalizer.finish(&mut on_step);
    let last = all
        .iter()
        .map(|part| (part.id.clone(), part.clone()))
        .collect();
    (all, last)
}

pub(crate) fn ai_sdk(parts: &[NormalizedToolPart]) -> Vec<Value> {
    let mut emitter = AiSdkEmitter::new("s");
    let mut chunks: Vec<Value> = parts.iter().flat_map(|part| emitter.part(part)).collect();
    chunks.extend(emitter.finish());
    chunks
}

pub(crate) fn ag_ui(parts: &[NormalizedToolPart]) -> Vec<Value> {
    let mut emitter = AgUiEmitter::new("t");
    let mut events: Vec<Value> = parts.iter().flat_map(|part| emitter.part(part)).collect();
    events.extend(emitter.finish());
    events
}

fn part(value: Value) -> NormalizedToolPart {
    serde_json::from_value(value).unwrap()
}

fn is_denial(part: &NormalizedToolPart) -> bool {
    let refused = part.error.as_ref().is_some_and(|error| {
        error
            .code
            .as_ref()
            .is_some_and(|code| ["permission_denied", "user_rejected"].contains(&code.as_str()))
    });
    let approval = part
        .metadata
        .as_ref()
        .and_then(|metadata| metadata.get("approval"))
        .and_then(|approval| approval["status"].as_str());
    refused || matches!(approval, Some("denied" | "cancelled"))
}

/// The AI SDK rules: chunks inside a `start`/`finish` pair; per call and message a
/// `tool-input-start` first, deltas only while the input streams, one end chunk that
/// says how the part ended, nothing after it.
pub(crate) fn check_ai_sdk(
    chunks: &[Value],
    last: &HashMap<String, NormalizedToolPart>,
    origin: &str,
) {
    let mut open = false;
    let mut calls: HashMap<String, &str> = HashMap::new();
    let mut approvals: HashMap<String, String> = HashMap::new();
    let mut ended = HashSet::new();
    for chunk in chunks {
        let kind = chunk["type"].as_str().unwrap();
        match kind {
            "start" => {
                assert!(!open, "{origin}: start inside a message");
                assert!(chunk["messageId"].is_string(), "{origin}: {chunk}");
                open = true;
                calls.clear();
                continue;
            }
            "finish" => {
                assert!(open, "{origin}: finish outside a message");
                open = false;
                continue;
            }
            _ => assert!(open, "{origin}: {kind} outside a message"),
        }
        // An approval's response names its request, not the call.
        let id = match chunk["toolCallId"].as_str() {
            Some(id) => id.to_owned(),
            None => approvals[chunk["approvalId"].as_str().unwrap()].clone(),
        };
        assert!(
            !ended.contains(&id),
            "{origin}: {kind} after the end of {id}"
        );
        for key in required_keys(kind) {
            // A key the SDK's schema requires, even when its value is empty: without it
            // the client rejects the chunk and drops the rest of the stream.
            assert!(chunk.get(key).is_some(), "{origin}: {kind} without {key}");
        }
        if chunk.get("toolName").is_some()
            || kind.starts_with("tool-output-") && kind != "tool-output-denied"
        {
            assert_eq!(chunk["dynamic"], true, "{origin}: {chunk}");
        }
        let phase = calls.get(id.as_str()).copied();
        match (kind, phase) {
            ("tool-input-start", None | Some("streaming")) => {
                calls.insert(id, "streaming");
            }
            ("tool-input-delta", Some("streaming")) => {}
            ("tool-input-available", Some("streaming" | "available")) => {
                calls.insert(id, "available");
            }
            // A denial's error travels in `toolMetadata` of a last `tool-input-available`
            // (its end chunk has no field for it); the client keeps the approval.
            ("tool-input-available", Some("approval-requested" | "approval-responded"))
                if is_denial(&last[&id]) => {}
            // An input told after the approval was asked: the approval is asked again.
            ("tool-input-available", Some("approval-requested" | "approval-responded")) => {
                calls.insert(id, "available");
            }
            ("tool-approval-request", Some("available")) => {
                approvals.insert(chunk["approvalId"].as_str().unwrap().to_owned(), id.clone());
                calls.insert(id, "approval-requested");
            }
            ("tool-approval-response", Some("approval-requested")) => {
                calls.insert(id, "approval-responded");
            }
            (
                "tool-output-available" | "tool-output-error" | "tool-output-denied",
                Some("available" | "approval-responded"),
            ) => {
                let part = &last[&id];
                let expected = match part.state.as_str() {
                    "complete" => "tool-output-available",
                    "error" if is_denial(part) => "tool-output-denied",
                    _ => "tool-output-error",
                };
                assert_eq!(kind, expected, "{origin}: {id} ends as {}", part.state);
                if kind == "tool-output-error" {
                    assert_eq!(
                        chunk["errorText"],
                        part.error.as_ref().unwrap().message.as_str()
                    );
                }
                ended.insert(id);
            }
            (kind, phase) => panic!("{origin}: {kind} for {id} in phase {phase:?}"),
        }
    }
    assert!(!open, "{origin}: no finish");
    for (id, part) in last {
        assert_eq!(
            ended.contains(id),
            part.state.is_terminal(),
            "{origin}: {id}"
        );
    }
}

/// The keys the AI SDK's `uiMessageChunkSchema` requires of a tool chunk besides its
/// `type` and `toolCallId`.
fn required_keys(kind: &str) -> &'static [&'static str] {
    match kind {
        "tool-input-start" => &["toolName"],
        "tool-input-delta" => &["inputTextDelta"],
        "tool-input-available" => &["toolName", "input"],
        "tool-output-available" => &["output"],
        "tool-output-error" => &["errorText"],
        "tool-approval-request" => &["approvalId", "toolCallId"],
        "tool-approval-response" => &["approvalId", "approved"],
        _ => &[],
    }
}

/// No chunk (event) of a call is the same as the call's chunk before it, but for the
/// argument deltas: they append, so the same text twice (`[` then `[` of `[[`) still
/// grows the input.
pub(crate) fn check_no_repeats(frames: &[Value], origin: &str) {
    let mut last: HashMap<&str, &Value> = HashMap::new();
    for frame in frames {
        let Some(id) = frame.get("toolCallId").and_then(Value::as_str) else {
            continue;
        };
        let appends = matches!(
            frame["type"].as_str(),
            Some("tool-input-delta" | "TOOL_CALL_ARGS")
        );
        if let Some(previous) = last.insert(id, frame)
            && !appends
        {
            assert_ne!(previous, frame, "{origin}: {id} repeats a chunk");
        }
    }
}

/// What a client shows of a call after its chunks so far (the fields each chunk sets, as
/// `readUIMessageStream` takes them).
#[derive(Debug, Clone, Default, PartialEq)]
struct Shown {
    state: String,
    text: String,
    input: Value,
    title: Value,
    meta: Value,
    output: Value,
    error_text: Value,
}

/// A call sent again in a later message (its session's message closed and reopened)
/// shows something new there: of what it shows after each of its chunks in that message
/// (the reset of a `tool-input-start` the chunks after it fill again left out), something
/// differs from what it showed at the end of the message before.
pub(crate) fn check_messages_show_changes(chunks: &[Value], origin: &str) {
    let mut shown: HashMap<String, Shown> = HashMap::new();
    let mut at_end: HashMap<String, Shown> = HashMap::new();
    let mut approvals: HashMap<String, String> = HashMap::new();
    // The calls of the open message: what they showed after each chunk, and whether the
    // last of those is a start's reset.
    let mut in_message: Vec<(String, Vec<Shown>, bool)> = Vec::new();
    for chunk in chunks {
        let kind = chunk["type"].as_str().unwrap();
        if kind == "start" || kind == "finish" {
            for (id, views, _) in in_message.drain(..) {
                let now = shown[&id].clone();
                if let Some(before) = at_end.insert(id.clone(), now) {
                    assert!(
                        views.iter().any(|view| *view != before),
                        "{origin}: {id} sent again in a new message with nothing new"
                    );
                }
            }
            continue;
        }
        let id = match chunk["toolCallId"].as_str() {
            Some(id) => id.to_owned(),
            None => approvals[chunk["approvalId"].as_str().unwrap()].clone(),
        };
        if kind == "tool-approval-request" {
            approvals.insert(chunk["approvalId"].as_str().unwrap().to_owned(), id.clone());
        }
        let call = shown.entry(id.clone()).or_default();
        let field = |key: &str| chunk.get(key).cloned().unwrap_or(Value::Null);
        match kind {
            "tool-input-start" => {
                call.state = "input-streaming".into();
                call.text.clear();
                call.input = Value::Null;
                call.title = field("title");
                call.meta = field("toolMetadata");
            }
            "tool-input-delta" => call
                .text
                .push_str(chunk["inputTextDelta"].as_str().unwrap()),
            "tool-input-available" => {
                call.state = "input-available".into();
                call.input = field("input");
                call.title = field("title");
                call.meta = field("toolMetadata");
            }
            "tool-output-available" => {
                call.state = "output-available".into();
                call.output = field("output");
                call.meta = field("toolMetadata");
            }
            "tool-output-error" => {
                call.state = "output-error".into();
                call.error_text = field("errorText");
                call.meta = field("toolMetadata");
            }
            _ => call.state = kind.into(),
        }
        let view = call.clone();
        let at = match in_message.iter().position(|(open, _, _)| *open == id) {
            Some(at) => at,
            None => {
                in_message.push((id, Vec::new(), false));
                in_message.len() - 1
            }
        };
        let (_, views, after_start) = &mut in_message[at];
        if *after_start {
            views.pop();
        }
        views.push(view);
        *after_start = kind == "tool-input-start";
    }
}

/// The AG-UI rules: runs around everything, one after the other, a run ending early only
/// on calls waiting for approval (its interrupts, each a call whose arguments were sent);
/// per call START, ARGS, END, then RESULT when it ended; a call's events carry the
/// subagent of its START; subagents start before what they own and end once, or are
/// suspended by an interrupt and start again in the run that continues.
pub(crate) fn check_ag_ui(
    events: &[Value],
    last: &HashMap<String, NormalizedToolPart>,
    origin: &str,
) {
    assert_eq!(events.first().unwrap()["type"], "RUN_STARTED", "{origin}");
    assert_eq!(events.last().unwrap()["type"], "RUN_FINISHED", "{origin}");
    let mut phase: HashMap<String, &str> = HashMap::new();
    let mut owner: HashMap<String, Value> = HashMap::new();
    let mut active = HashSet::new();
    let mut finished = HashSet::new();
    let mut suspended = HashSet::new();
    let mut paused = false;
    for event in events.get(1..events.len() - 1).unwrap() {
        let kind = event["type"].as_str().unwrap();
        assert!(
            !paused || kind == "RUN_STARTED",
            "{origin}: {kind} after the run ended"
        );
        match kind {
            "RUN_FINISHED" => {
                assert_eq!(event["outcome"]["type"], "interrupt", "{origin}: {event}");
                assert!(
                    active.is_empty(),
                    "{origin}: subagents running at an interrupt"
                );
                for interrupt in event["outcome"]["interrupts"].as_array().unwrap() {
                    let id = interrupt["toolCallId"].as_str().unwrap();
                    assert_eq!(phase.get(id).copied(), Some("ended"), "{origin}: {id}");
                    let approval = last[id].metadata.as_ref().unwrap().get("approval");
                    assert!(approval.is_some(), "{origin}: {id} has no approval");
                }
                paused = true;
                continue;
            }
            "RUN_STARTED" => {
                assert!(paused, "{origin}: a run started inside a run");
                paused = false;
                continue;
            }
            _ => {}
        }
        if let Some(subagent) = event.get("subagentRunId").and_then(Value::as_str)
            && kind.starts_with("TOOL_CALL_")
        {
            assert!(
                active.contains(subagent),
                "{origin}: {event} outside its subagent"
            );
        }
        match kind {
            "SUBAGENT_STARTED" => {
                let id = event["subagentRunId"].as_str().unwrap().to_owned();
                assert_eq!(last[&id].kind.as_str(), "subagent", "{origin}");
                assert!(
                    !finished.contains(&id) || suspended.remove(&id),
                    "{origin}: {id} started after it ended"
                );
                assert!(active.insert(id), "{origin}: started twice");
                continue;
            }
            "SUBAGENT_FINISHED" | "SUBAGENT_ERROR" => {
                let id = event["subagentRunId"].as_str().unwrap().to_owned();
                assert!(
                    active.remove(&id),
                    "{origin}: {kind} of a subagent not running"
                );
                if event["outcome"]["type"] == "suspended" {
                    suspended.insert(id.clone());
                } else {
                    let expected = match last[&id].state.as_str() {
                        "error" => "SUBAGENT_ERROR",
                        _ => "SUBAGENT_FINISHED",
                    };
                    assert_eq!(kind, expected, "{origin}: {id}");
                }
                finished.insert(id);
                continue;
            }
            _ => {}
        }
        let id = event["toolCallId"].as_str().unwrap().to_owned();
        let subagent = event.get("subagentRunId").cloned().unwrap_or(Value::Null);
        match (kind, phase.get(id.as_str()).copied()) {
            ("TOOL_CALL_START", None) => {
                assert_eq!(event["toolCallName"], last[&id].name.as_str(), "{origin}");
                owner.insert(id.clone(), subagent.clone());
                phase.insert(id, "started");
            }
            ("TOOL_CALL_ARGS", Some("started")) => {
                phase.insert(id, "args");
            }
            ("TOOL_CALL_END", Some("args")) => {
                phase.insert(id, "ended");
            }
            ("TOOL_CALL_RESULT", Some("ended")) => {
                assert!(event["content"].is_string(), "{origin}: {event}");
                let part = &last[&id];
                let meta = &event["metadata"]["toolnorm"];
                assert_eq!(meta["state"], part.state.as_str(), "{origin}: {id}");
                assert_eq!(meta["kind"], part.kind.as_str(), "{origin}: {id}");
                if let Some(error) = &part.error {
                    assert_eq!(event["content"], error.message.as_str(), "{origin}: {id}");
                    let code = error.code.as_ref().map(|code| code.as_str());
                    assert_eq!(meta["error"]["code"].as_str(), code, "{origin}: {id}");
                }
                phase.insert(id, "result");
            }
            (kind, phase) => panic!("{origin}: {kind} for {id} in phase {phase:?}"),
        }
        if kind != "TOOL_CALL_START" && owner[event["toolCallId"].as_str().unwrap()] != subagent {
            // After its subagent ended, a call's events are no longer attributed to it.
            let opener = owner[event["toolCallId"].as_str().unwrap()]
                .as_str()
                .unwrap();
            assert!(
                subagent.is_null() && finished.contains(opener),
                "{origin}: {event}"
            );
        }
    }
    assert!(active.is_empty(), "{origin}: subagents never ended");
    for (id, part) in last {
        let expected = if part.state.is_terminal() {
            "result"
        } else {
            "ended"
        };
        assert_eq!(
            phase.get(id.as_str()).copied(),
            Some(expected),
            "{origin}: {id}"
        );
    }
}

#[test]
fn every_fixture_streams_by_the_protocols_rules() {
    let files = common::all_recordings();
    assert!(files.len() > 100, "{} fixtures", files.len());
    let (mut denied, mut failed, mut subagents) = (0, 0, 0);
    for path in &files {
        let origin = path.display().to_string();
        let (all, last) = snapshots(&std::fs::read(path).unwrap());
        let chunks = ai_sdk(&all);
        check_ai_sdk(&chunks, &last, &origin);
        check_no_repeats(&chunks, &origin);
        check_messages_show_changes(&chunks, &origin);
        let events = ag_ui(&all);
        check_ag_ui(&events, &last, &origin);
        check_no_repeats(&events, &origin);
        let count = |kind: &str| chunks.iter().filter(|chunk| chunk["type"] == kind).count();
        denied += count("tool-output-denied");
        failed += count("tool-output-error");
        subagents += events
            .iter()
            .filter(|event| event["type"] == "SUBAGENT_STARTED")
            .count();
    }
    // The fixtures hold each case the mappings tell apart.
    assert!(
        denied > 0 && failed > 0 && subagents > 0,
        "{denied} {failed} {subagents}"
    );
}

#[test]
fn a_refusal_is_denied_with_its_error_in_the_metadata_and_a_failure_is_an_error() {
    let refused = part(json!({
        "id": "a", "name": "Bash", "kind": "bash", "title": "rm x", "input": {"command": "rm x"},
        "state": "error", "error": {"message": "needs approval", "code": "permission_denied"}
    }));
    let chunks = ai_sdk(std::slice::from_ref(&refused));
    let kinds: Vec<&str> = chunks
        .iter()
        .map(|chunk| chunk["type"].as_str().unwrap())
        .collect();
    assert_eq!(
        kinds,
        [
            "start",
            "tool-input-start",
            "tool-input-available",
            "tool-output-denied",
            "finish"
        ]
    );
    let meta = &chunks[2]["toolMetadata"]["toolnorm"];
    assert_eq!(meta["error"]["code"], "permission_denied");
    assert_eq!(meta["error"]["message"], "needs approval");

    let failed = part(json!({
        "id": "b", "name": "Bash", "kind": "bash", "title": "false", "input": {},
        "state": "error", "error": {"message": "exit 1", "code": "exit_code", "details": {"exitCode": 1}}
    }));
    let chunks = ai_sdk(std::slice::from_ref(&failed));
    let end = &chunks[chunks.len() - 2];
    assert_eq!(end["type"], "tool-output-error");
    assert_eq!(end["errorText"], "exit 1");
    assert_eq!(
        end["toolMetadata"]["toolnorm"]["error"]["details"]["exitCode"],
        1
    );

    let events = ag_ui(&[failed]);
    let result = events
        .iter()
        .find(|event| event["type"] == "TOOL_CALL_RESULT")
        .unwrap();
    assert_eq!(result["content"], "exit 1");
    assert_eq!(result["metadata"]["toolnorm"]["state"], "error");
    assert_eq!(result["metadata"]["toolnorm"]["error"]["code"], "exit_code");
}

#[test]
fn a_growing_input_streams_as_deltas_and_a_rewritten_one_restarts() {
    let at = |input: Value| {
        part(
            json!({"id": "c", "name": "Bash", "kind": "bash", "title": "t", "input": input, "state": "started"}),
        )
    };
    let chunks = ai_sdk(&[
        at(json!({})),
        at(json!({"command": "ls"})),
        at(json!({"command": "ls", "cwd": "/"})),
        at(json!({"command": "pwd"})),
    ]);
    let deltas: Vec<(&str, &str)> = chunks
        .iter()
        .filter_map(|chunk| {
            let kind = chunk["type"].as_str()?;
            Some((kind, chunk["inputTextDelta"].as_str().unwrap_or("")))
        })
        .filter(|(kind, _)| kind.starts_with("tool-input"))
        .collect();
    assert_eq!(
        deltas,
        [
            ("tool-input-start", ""),
            ("tool-input-delta", "{"),
            ("tool-input-delta", r#""command":"ls""#),
            ("tool-input-delta", r#","cwd":"/""#),
            ("tool-input-start", ""),
            ("tool-input-delta", r#"{"command":"pwd""#),
        ]
    );
}

#[test]
fn sessions_are_messages_and_a_subagents_calls_stay_with_its_parent() {
    let call = |id: &str, session: &str, parent: Option<&str>| {
        let mut metadata = json!({"sessionId": session});
        if let Some(parent) = parent {
            metadata["parentToolCallId"] = parent.into();
        }
        let kind = if parent.is_none() { "subagent" } else { "bash" };
        part(
            json!({"id": id, "name": "task", "kind": kind, "title": id, "input": {},
                    "state": "running", "metadata": metadata}),
        )
    };
    let mut done = call("p", "s1", None);
    done.state = toolnorm::ToolState::Complete;
    let messages = |parts: &[NormalizedToolPart]| -> Vec<String> {
        ai_sdk(parts)
            .iter()
            .filter(|chunk| chunk["type"] == "start")
            .map(|chunk| chunk["messageId"].as_str().unwrap().to_owned())
            .collect()
    };
    let opened = [
        call("p", "s1", None),
        call("child", "s-child", Some("p")),
        call("q", "s2", None),
    ];
    let mut ended = opened.to_vec();
    ended.push(done);
    assert_eq!(messages(&ended), ["s1", "s2", "s1~2"]);
    // A snapshot that shows nothing new (streamed output, say) leaves the open message be.
    let mut unchanged = opened.to_vec();
    unchanged.push(call("p", "s1", None));
    assert_eq!(messages(&unchanged), ["s1", "s2"]);

    let events = ag_ui(&[call("p", "s1", None), call("child", "s-child", Some("p"))]);
    let child = events
        .iter()
        .find(|event| event["type"] == "TOOL_CALL_START" && event["toolCallId"] == "child")
        .unwrap();
    assert_eq!(child["subagentRunId"], "p");
    let suspended = events
        .iter()
        .find(|event| event["type"] == "SUBAGENT_FINISHED")
        .unwrap();
    assert_eq!(suspended["outcome"]["type"], "suspended");
}

#[test]
fn a_failed_subagent_is_a_subagent_error_after_its_calls_end() {
    let parent = |state: &str| {
        let mut value = json!({"id": "p", "name": "Task", "kind": "subagent", "title": "Research",
                               "input": {"subagent_type": "explorer"}, "state": state});
        if state == "error" {
            value["error"] = json!({"message": "the subagent gave up", "code": "task_failed"});
        }
        part(value)
    };
    let child = part(
        json!({"id": "c", "name": "Bash", "kind": "bash", "title": "ls", "input": {},
                            "state": "running", "metadata": {"parentToolCallId": "p"}}),
    );
    let events = ag_ui(&[parent("running"), child, parent("error")]);
    let kinds: Vec<&str> = events
        .iter()
        .map(|event| event["type"].as_str().unwrap())
        .collect();
    assert_eq!(
        kinds,
        [
            "RUN_STARTED",
            "TOOL_CALL_START",
            "SUBAGENT_STARTED",
            "TOOL_CALL_ARGS",
            "TOOL_CALL_END",
            "TOOL_CALL_START",
            "TOOL_CALL_ARGS",
            "TOOL_CALL_END",
            "SUBAGENT_ERROR",
            "TOOL_CALL_RESULT",
            "RUN_FINISHED",
        ]
    );
    assert_eq!(events[2]["name"], "explorer");
    assert_eq!(events[5]["subagentRunId"], "p");
    assert_eq!(events[8]["message"], "the subagent gave up");
    assert_eq!(events[8]["code"], "task_failed");
}

/// The events of generated calls, in two sessions with a subagent: `call_1` in session
/// `a`, `call_2` in session `b`, `call_3` spawned by `call_1`.
fn in_sessions(mut events: Vec<toolnorm::ToolEvent>) -> Vec<toolnorm::ToolEvent> {
    for event in &mut events {
        if let toolnorm::ToolEvent::ToolCallStarted(started) = event {
            let metadata = started.metadata.get_or_insert_with(Default::default);
            let (key, value) = match started.id.as_str() {
                "call_1" => (toolnorm::meta::SESSION_ID, "a"),
                "call_2" => (toolnorm::meta::SESSION_ID, "b"),
                _ => (toolnorm::meta::PARENT_TOOL_CALL_ID, "call_1"),
            };
            metadata.insert(key.into(), value.into());
        }
    }
    events
}

proptest::proptest! {
    #![proptest_config(proptest::prelude::ProptestConfig::with_cases(256))]

    /// Generated calls in interleaved sessions stream by the protocols' rules, and no
    /// chunk repeats what its call already shows.
    #[test]
    fn generated_calls_stream_by_the_rules_without_repeats(
        events in proptest::strategy::Strategy::prop_map(crate::acp::events(), in_sessions)
    ) {
        let mut fold = toolnorm::Fold::new();
        let mut streamed: HashMap<String, u64> = HashMap::new();
        let mut all = Vec::new();
        for mut event in events {
            if let toolnorm::ToolEvent::OutputAppended(appended) = &mut event {
                appended.offset = streamed.get(&appended.id).copied().unwrap_or(0);
            }
            let chunk = match &event {
                toolnorm::ToolEvent::OutputAppended(appended) => {
                    Some((appended.id.clone(), appended.chunk.len() as u64))
                }
                _ => None,
            };
            if let Ok(update) = fold.apply(event) {
                if let Some((id, length)) = chunk {
                    *streamed.entry(id).or_default() += length;
                }
                // Changes only, as the normalizer reports them: a duplicate is not one.
                if update.outcome != toolnorm::Outcome::Unchanged {
                    all.push(update.part());
                }
            }
        }
        let last: HashMap<String, NormalizedToolPart> = all
            .iter()
            .map(|part| (part.id.clone(), part.clone()))
            .collect();
        if !last.is_empty() {
            let chunks = ai_sdk(&all);
            check_ai_sdk(&chunks, &last, "generated");
            check_no_repeats(&chunks, "generated");
            check_messages_show_changes(&chunks, "generated");
            let events = ag_ui(&all);
            check_ag_ui(&events, &last, "generated");
            check_no_repeats(&events, "generated");
        }
    }
}
