//! Codex app-server: the calls of a spawned agent's thread carry the call that spawned
//! it (`metadata.parentToolCallId`), however the link is told (a spawn's receivers on
//! completion, the child's `thread/started`), also for calls seen before the link; no
//! parent is guessed. A command's terminal input goes to its call. The lines are those
//! of `fixtures/codex-app-server/subagent.jsonl` (a spawn made a `spawnAgent` collab
//! call, as older releases and the v1 multi-agent tools make it).
#![allow(clippy::unwrap_used, clippy::expect_used)]

use crate::common;

use serde_json::{Value, json};
use toolnorm::{NormalizedToolPart, ToolState};
use toolnorm_adapters::Dialect;

const MAIN: &str = "00000000-0000-4000-8000-000000000002";
const CHILD: &str = "00000000-0000-4000-8000-000000000005";

fn run(lines: &[Value]) -> Vec<NormalizedToolPart> {
    let text: String = lines.iter().map(|line| format!("{line}\n")).collect();
    let (parts, diagnostics) = common::normalize(text.as_bytes(), Some(Dialect::CODEX_APP_SERVER));
    assert!(diagnostics.is_empty(), "{diagnostics:?}");
    parts
}

fn thread_started(id: &str, parent: Option<&str>) -> Value {
    json!({"method":"thread/started","params":{"thread":{"id":id,"environments":[{"environmentId":"local","cwd":"/workspace"}],"sessionId":id,"forkedFromId":null,"parentThreadId":parent,"preview":"","ephemeral":false}}})
}

fn spawn(method: &str, id: &str, receivers: &[&str]) -> Value {
    let status = match method {
        "item/started" => "inProgress",
        _ => "completed",
    };
    json!({"method":method,"params":{"item":{"type":"collabAgentToolCall","id":id,"tool":"spawnAgent","status":status,"senderThreadId":MAIN,"receiverThreadIds":receivers,"prompt":"Count the Python files.","model":null,"reasoningEffort":null,"agentsStates":{},"startedAtMs":1767225780000i64,"completedAtMs":null},"threadId":MAIN,"turnId":"00000000-0000-4000-8000-000000000003","startedAtMs":1767225780000i64},"emittedAtMs":1767225780000i64})
}

fn command(method: &str, id: &str, thread: &str) -> Value {
    let (status, output, exit) = match method {
        "item/started" => ("inProgress", Value::Null, Value::Null),
        _ => ("completed", json!("1\n"), json!(0)),
    };
    json!({"method":method,"params":{"item":{"type":"commandExecution","id":id,"pluginId":null,"scriptPath":null,"command":"/bin/bash -lc \"find . -name '*.py' | wc -l\"","cwd":"/workspace","processId":"4242","source":"unifiedExecStartup","status":status,"commandActions":[{"type":"search","command":"find . -name '*.py'","query":"*.py","path":"."}],"aggregatedOutput":output,"exitCode":exit,"durationMs":null,"startedAtMs":1767225790000i64,"completedAtMs":null},"threadId":thread,"turnId":"00000000-0000-4000-8000-000000000006","startedAtMs":1767225790000i64},"emittedAtMs":1767225790001i64})
}

fn parent(parts: &[NormalizedToolPart], id: &str) -> Option<String> {
    let part = parts.iter().find(|part| part.id == id).unwrap();
    part.metadata
        .as_ref()
        .and_then(|metadata| metadata.get("parentToolCallId"))
        .and_then(Value::as_str)
        .map(str::to_owned)
}

#[test]
fn a_call_seen_before_its_spawn_completes_gets_its_parent_when_it_does() {
    let parts = run(&[
        thread_started(MAIN, None),
        spawn("item/started", "call_spawn", &[]),
        command("item/started", "call_child_1", CHILD),
        spawn("item/completed", "call_spawn", &[CHILD]),
        command("item/completed", "call_child_1", CHILD),
        command("item/started", "call_child_2", CHILD),
        command("item/completed", "call_child_2", CHILD),
    ]);
    assert_eq!(
        parent(&parts, "call_child_1").as_deref(),
        Some("call_spawn")
    );
    assert_eq!(
        parent(&parts, "call_child_2").as_deref(),
        Some("call_spawn")
    );
    assert_eq!(parent(&parts, "call_spawn"), None);
    assert!(parts.iter().all(|part| part.state == ToolState::Complete));
}

#[test]
fn a_child_thread_names_its_parent_thread_whose_one_open_spawn_started_it() {
    let parts = run(&[
        thread_started(MAIN, None),
        spawn("item/started", "call_spawn", &[]),
        thread_started(CHILD, Some(MAIN)),
        command("item/started", "call_child_1", CHILD),
        command("item/completed", "call_child_1", CHILD),
    ]);
    assert_eq!(
        parent(&parts, "call_child_1").as_deref(),
        Some("call_spawn")
    );
}

#[test]
fn no_parent_is_guessed_and_a_childs_call_ends_once_its_parent_is_known() {
    // Two spawns open: the child's thread could be either's until one names it; a call
    // of the child (which said it is a subagent's) that ends before then ends after.
    let lines = [
        thread_started(MAIN, None),
        spawn("item/started", "call_spawn_a", &[]),
        spawn("item/started", "call_spawn_b", &[]),
        thread_started(CHILD, Some(MAIN)),
        command("item/started", "call_child_1", CHILD),
        command("item/completed", "call_child_1", CHILD),
        command("item/started", "call_child_2", CHILD),
    ];
    let mut named = lines.to_vec();
    named.push(spawn("item/completed", "call_spawn_b", &[CHILD]));
    named.push(command("item/completed", "call_child_2", CHILD));
    let parts = run(&named);
    assert_eq!(
        parent(&parts, "call_child_1").as_deref(),
        Some("call_spawn_b")
    );
    assert_eq!(
        parent(&parts, "call_child_2").as_deref(),
        Some("call_spawn_b")
    );
    let child = parts.iter().find(|part| part.id == "call_child_1").unwrap();
    assert_eq!(child.state, ToolState::Complete);
    assert_eq!(child.output.as_deref(), Some(&json!("1\n")));
    // Never named: the call ends at the end of the stream, with no parent.
    let parts = run(&lines);
    assert_eq!(parent(&parts, "call_child_1"), None);
    let child = parts.iter().find(|part| part.id == "call_child_1").unwrap();
    assert_eq!(child.state, ToolState::Complete);
    // A thread no spawn names is no subagent's.
    let parts = run(&[
        thread_started(MAIN, None),
        command("item/started", "call_other", CHILD),
        command("item/completed", "call_other", CHILD),
    ]);
    assert_eq!(parent(&parts, "call_other"), None);
}

#[test]
fn terminal_input_goes_to_its_command() {
    let interaction = |stdin: &str| json!({"method":"item/commandExecution/terminalInteraction","params":{"threadId":MAIN,"turnId":"00000000-0000-4000-8000-000000000003","itemId":"call_1","processId":"4242","stdin":stdin}});
    let parts = run(&[
        thread_started(MAIN, None),
        command("item/started", "call_1", MAIN),
        interaction("y\n"),
        interaction(""),
        command("item/completed", "call_1", MAIN),
    ]);
    assert_eq!(parts.len(), 1);
    assert_eq!(parts[0].state, ToolState::Complete);
    assert_eq!(
        parts[0].metadata.as_ref().unwrap().get("terminalInput"),
        Some(&json!([
            {"stdin": "y\n", "processId": "4242"},
            {"stdin": "", "processId": "4242"},
        ]))
    );
}
