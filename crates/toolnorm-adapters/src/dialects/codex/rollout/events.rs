//! `event_msg` lines: what the CLI itself says of a call (its thread item since Codex
//! 0.16x, the `*_begin` / `*_end` events before). `@openai/codex` ships no schema of
//! these payloads; the fields read here are few, and each is optional where the CLI's
//! versions differ.

use std::borrow::Cow;
use std::collections::{BTreeMap, HashSet};

use serde::Deserialize;
use serde_json::{Map, Value, json};
use toolnorm::{Payload, ToolError, meta};

use super::At;
use super::response::{Kind, ended, known};
use crate::diagnostic::{Diagnostic, DiagnosticKind};
use crate::dialects::codex::items::{
    Change, ChangeKind, ItemFacts, Items, McpItem, Outcome, Status, collab_sighting, command_facts,
    command_outcome, file_change_facts, item_metadata, mcp_facts, web_search_facts,
};
use crate::read::{json, kept_string};
use crate::track::{Facts, Sighting};

/// `event_msg` types that are about the turn, the conversation or the session.
const NOT_CALLS: &[&str] = &[
    "task_started",
    "task_complete",
    "turn_started",
    "turn_complete",
    "turn_aborted",
    "turn_diff",
    "token_count",
    "user_message",
    "agent_message",
    "agent_message_delta",
    "agent_reasoning",
    "agent_reasoning_delta",
    "agent_reasoning_raw_content",
    "agent_reasoning_raw_content_delta",
    "agent_reasoning_section_break",
    "thread_settings_applied",
    "thread_name_updated",
    "thread_rolled_back",
    "session_configured",
    "context_compacted",
    "entered_review_mode",
    "exited_review_mode",
    "plan_update",
    "error",
    "warning",
    "stream_error",
    "background_event",
    "exec_approval_request",
    "apply_patch_approval_request",
    "request_user_input",
    "elicitation_request",
    "exec_command_output_delta",
    "terminal_interaction",
    "view_image_tool_call",
    "undo_started",
    "undo_completed",
    "shutdown_complete",
    "deprecation_notice",
    "mcp_startup_update",
    "mcp_startup_complete",
    "item_started",
];

/// Thread item types that are no call.
const NOT_CALL_ITEMS: &[&str] = &[
    "UserMessage",
    "AgentMessage",
    "Reasoning",
    "Plan",
    "ContextCompaction",
    "HookPrompt",
    "EnteredReviewMode",
    "ExitedReviewMode",
];

/// Thread item types read as calls by their fields alone (no status of their own: the
/// item is recorded once they are done).
const PLAIN_CALL_ITEMS: &[&str] = &["ImageView", "ImageGeneration", "Sleep", "DynamicToolCall"];

/// The fields of the begin/end events read here (each event has some of them).
#[derive(Deserialize, Default)]
#[serde(default)]
struct CallEvent {
    call_id: Option<String>,
    command: Option<Value>,
    cwd: Option<String>,
    exit_code: Option<i64>,
    /// Kept as the JSON text it came as: a command's output can be the biggest thing in
    /// a rollout.
    #[serde(deserialize_with = "kept_string::optional")]
    aggregated_output: Option<Payload>,
    status: Option<String>,
    invocation: Option<Invocation>,
    result: Option<Value>,
    success: Option<bool>,
    changes: Option<BTreeMap<String, FileChange>>,
    query: Option<String>,
    action: Option<Value>,
    duration: Option<Duration>,
    stderr: Option<String>,
}

#[derive(Deserialize, Default)]
#[serde(default)]
struct Invocation {
    server: String,
    tool: String,
    arguments: Value,
}

/// One file of a patch: `{type: add|update|delete, unified_diff?, content?}`.
#[derive(Deserialize)]
struct FileChange {
    #[serde(rename = "type")]
    kind: String,
    #[serde(default)]
    unified_diff: Option<String>,
    #[serde(default)]
    content: Option<String>,
}

/// A Rust `Duration` as serde writes it.
#[derive(Deserialize, Default, Clone, Copy)]
#[serde(default)]
struct Duration {
    secs: u64,
    nanos: u64,
}

impl Duration {
    fn ms(self) -> u64 {
        self.secs.saturating_mul(1000) + self.nanos / 1_000_000
    }
}

/// A thread item (`item_completed`): the call fields of its type.
#[derive(Deserialize, Default)]
#[serde(default)]
struct ThreadItem {
    id: Option<String>,
    /// The fields it shares with the begin/end events, read apart from the item's own
    /// ([`read_item`]): a flattened struct would copy every value of the item first.
    #[serde(skip)]
    call: CallEvent,
    server: Option<String>,
    tool: Option<String>,
    arguments: Option<Value>,
    error: Option<Value>,
    kind: Option<String>,
    agent_thread_id: Option<String>,
    agent_path: Option<String>,
    model: Option<Value>,
    prompt: Option<Value>,
    sender_thread_id: Option<String>,
    receiver_thread_ids: Option<Value>,
    agents_states: Option<Value>,
}

/// Reads one `event_msg` payload.
pub(super) fn read(
    at: &At<'_>,
    payload: &str,
    items: &mut Items,
    spawns: &mut HashSet<String>,
    out: &mut Facts<'_>,
) {
    let kind = match serde_json::from_str::<Kind<'_>>(payload) {
        Ok(Kind { kind: Some(kind) }) => kind,
        Ok(Kind { kind: None }) => {
            return out.diagnostic(Diagnostic::at(
                at.line,
                DiagnosticKind::MalformedEvent,
                "an `event_msg` without `type`",
            ));
        }
        Err(error) => return out.diagnostic(json::malformed(at.line, "`event_msg`", &error)),
    };
    let kind: &str = &kind;
    if NOT_CALLS.contains(&kind) {
        return;
    }
    match kind {
        "item_completed" => item_completed(at, payload, items, spawns, out),
        "exec_command_begin" | "patch_apply_begin" | "mcp_tool_call_begin" | "web_search_begin" => {
            if let Some(event) = read_event(at, kind, payload, out) {
                begun(at, kind, event, items, out);
            }
        }
        "exec_command_end" | "patch_apply_end" | "mcp_tool_call_end" | "web_search_end" => {
            if let Some(event) = read_event(at, kind, payload, out) {
                let Some(id) = event.call_id.clone() else {
                    return missing_id(at, kind, out);
                };
                let Some(facts) = event_facts(kind, id, event, true) else {
                    return;
                };
                ended(at, facts, items, out);
            }
        }
        other => out.diagnostic(Diagnostic::notice(
            at.line,
            DiagnosticKind::UnknownEvent,
            format!("unknown Codex rollout event `{other}`"),
        )),
    }
}

fn read_event(at: &At<'_>, kind: &str, payload: &str, out: &mut Facts<'_>) -> Option<CallEvent> {
    serde_json::from_str(payload)
        .map_err(|error| out.diagnostic(json::malformed(at.line, &format!("`{kind}`"), &error)))
        .ok()
}

/// A `*_begin`: opens a call the file has not shown yet (the model's call comes first,
/// and then this is the same call again).
fn begun(at: &At<'_>, kind: &str, event: CallEvent, items: &mut Items, out: &mut Facts<'_>) {
    let Some(id) = event.call_id.clone() else {
        return missing_id(at, kind, out);
    };
    if out.is_open(&id) || known(&id, out) {
        return;
    }
    if let Some(mut facts) = event_facts(kind, id, event, false) {
        facts.started_at = at.at.clone();
        items.seen(at.line, facts, at.session, out);
    }
}

/// The call a begin or end event tells of (`done`: it is an end).
fn event_facts(kind: &str, id: String, event: CallEvent, done: bool) -> Option<ItemFacts> {
    let elapsed = event.duration.map(Duration::ms);
    let facts = match kind {
        "exec_command_begin" | "exec_command_end" => {
            let status = match (done, event.status.as_deref()) {
                (false, _) => Status::InProgress,
                (true, Some("declined")) => Status::Declined,
                (true, Some("failed")) => Status::Failed,
                (true, _) => Status::Completed,
            };
            let output = done.then(|| event.aggregated_output.clone().unwrap_or_else(|| "".into()));
            command_facts(
                id,
                command_line(event.command.as_ref()),
                event.cwd.as_deref().map(local_path),
                command_outcome(status, event.exit_code, output),
                "commandExecution",
            )
        }
        "patch_apply_begin" | "patch_apply_end" => {
            let status = match (done, event.success, event.status.as_deref()) {
                (false, ..) => Status::InProgress,
                (true, _, Some("declined")) => Status::Declined,
                (true, Some(false), _) | (true, _, Some("failed")) => Status::Failed,
                (true, ..) => Status::Completed,
            };
            let changes = file_changes(event.changes.unwrap_or_default());
            file_change_facts(id, changes, status, "fileChange")
        }
        "mcp_tool_call_begin" | "mcp_tool_call_end" => {
            let invocation = event.invocation.unwrap_or_default();
            // The result is `{"Ok": CallToolResult}` or `{"Err": message}`.
            let (result, error) = match event.result {
                Some(Value::Object(mut result)) => {
                    match (result.remove("Ok"), result.remove("Err")) {
                        (Some(ok), _) => (Some(ok), None),
                        (None, Some(err)) => (None, Some(text_of(&err))),
                        (None, None) => (Some(Value::Object(result)), None),
                    }
                }
                other => (other, None),
            };
            let is_error = result
                .as_ref()
                .and_then(|result| result.get("isError"))
                .and_then(Value::as_bool)
                == Some(true);
            let status = match (done, is_error || error.is_some()) {
                (false, _) => Status::InProgress,
                (true, true) => Status::Failed,
                (true, false) => Status::Completed,
            };
            let item = McpItem {
                id,
                server: invocation.server,
                tool: invocation.tool,
                arguments: invocation.arguments,
                status,
                result,
                error,
            };
            mcp_facts(item, "mcpToolCall")
        }
        "web_search_begin" | "web_search_end" => web_search_facts(
            id,
            event.query.unwrap_or_default(),
            event.action,
            None,
            done,
            "webSearch",
        ),
        _ => return None,
    };
    Some(facts.times(None, None, elapsed.and_then(|ms| i64::try_from(ms).ok())))
}

/// `item_completed`: the thread item of a call, whole, as the app-server sends it.
fn item_completed(
    at: &At<'_>,
    payload: &str,
    items: &mut Items,
    spawns: &mut HashSet<String>,
    out: &mut Facts<'_>,
) {
    #[derive(Deserialize)]
    struct Completed<'a> {
        #[serde(borrow)]
        item: Option<&'a serde_json::value::RawValue>,
    }
    let raw = match serde_json::from_str::<Completed<'_>>(payload) {
        Ok(Completed { item: Some(item) }) => item.get(),
        Ok(Completed { item: None }) => {
            return out.diagnostic(Diagnostic::at(
                at.line,
                DiagnosticKind::MalformedEvent,
                "`item_completed` without `item`",
            ));
        }
        Err(error) => return out.diagnostic(json::malformed(at.line, "`item_completed`", &error)),
    };
    let kind = match serde_json::from_str::<Kind<'_>>(raw) {
        Ok(Kind { kind: Some(kind) }) => kind,
        Ok(Kind { kind: None }) => Cow::Borrowed(""),
        Err(error) => return out.diagnostic(json::malformed(at.line, "`item_completed`", &error)),
    };
    if NOT_CALL_ITEMS.contains(&kind.as_ref()) {
        return;
    }
    let item = match read_item(raw) {
        Ok(item) => item,
        Err(error) => {
            return out.diagnostic(json::malformed(at.line, &format!("`{kind}` item"), &error));
        }
    };
    if kind == "SubAgentActivity" && item.kind.as_deref() != Some("started") {
        // The agent's end ends the call that started it; its other activities touch none.
        let failed = match item.kind.as_deref() {
            Some("completed") => None,
            Some("interrupted") => Some("interrupted"),
            Some("failed" | "errored") => Some("failed"),
            _ => return,
        };
        if let Some(thread) = item.agent_thread_id.as_deref() {
            items.agent_finished(at.line, thread, at.at.clone(), failed, out);
        }
        return;
    }
    let Some(id) = item.id.clone() else {
        return missing_id(at, &kind, out);
    };
    let facts = match kind.as_ref() {
        "CommandExecution" => event_facts("exec_command_end", id, item.call, true),
        "FileChange" => event_facts("patch_apply_end", id, item.call, true),
        "WebSearch" => event_facts("web_search_end", id, item.call, true),
        "McpToolCall" => Some(mcp_item(id, item)),
        "CollabAgentToolCall" => Some(collab_item(id, item, out)),
        "SubAgentActivity" => {
            spawns.insert(id.clone());
            Some(agent_started(id, item))
        }
        other => {
            if !PLAIN_CALL_ITEMS.contains(&other) {
                out.diagnostic(Diagnostic::notice(
                    at.line,
                    DiagnosticKind::UnknownEvent,
                    format!("unknown Codex thread item type `{other}`, read as a tool call"),
                ));
            }
            plain_item(other, id, raw)
        }
    };
    if let Some(facts) = facts {
        ended(at, facts, items, out);
    }
}

/// A thread item, its own fields and the ones it shares with the events, each read from
/// its text.
fn read_item(raw: &str) -> serde_json::Result<ThreadItem> {
    let mut item: ThreadItem = serde_json::from_str(raw)?;
    item.call = serde_json::from_str(raw)?;
    Ok(item)
}

fn mcp_item(id: String, item: ThreadItem) -> ItemFacts {
    let status = match item.call.status.as_deref() {
        Some("in_progress") => Status::InProgress,
        Some("failed") => Status::Failed,
        _ => Status::Completed,
    };
    let error = item.error.as_ref().map(text_of);
    let mcp = McpItem {
        id,
        server: item.server.unwrap_or_default(),
        tool: item.tool.unwrap_or_default(),
        arguments: item.arguments.unwrap_or(Value::Null),
        status,
        result: item.call.result,
        error,
    };
    mcp_facts(mcp, "mcpToolCall")
}

fn collab_item(id: String, item: ThreadItem, out: &Facts<'_>) -> ItemFacts {
    let tool = camel_case(item.tool.as_deref().unwrap_or("collab"));
    let input = json!({
        "prompt": item.prompt,
        "model": item.model,
        "receiverThreadIds": item.receiver_thread_ids.unwrap_or(Value::Array(Vec::new())),
    });
    let mut sighting = collab_sighting(id, tool, input, "collabAgentToolCall", out);
    if let Some(sender) = item.sender_thread_id {
        sighting
            .metadata
            .insert(meta::SENDER_THREAD_ID.into(), sender.into());
    }
    let states = item.agents_states.unwrap_or(Value::Object(Map::new()));
    let outcome = match item.call.status.as_deref() {
        Some("in_progress") => Outcome::InProgress,
        Some(status @ ("failed" | "interrupted")) => Outcome::Failed(
            ToolError::new(format!("the agent call {status}"))
                .with_code(status.to_owned())
                .with_details(states),
        ),
        _ => Outcome::Completed(Some(states.into())),
    };
    ItemFacts::new(sighting, outcome)
}

/// A subagent started: the call runs until the agent ends.
fn agent_started(id: String, item: ThreadItem) -> ItemFacts {
    let thread = item.agent_thread_id.unwrap_or_default();
    let input =
        json!({ "agentPath": item.agent_path, "agentThreadId": thread, "model": item.model });
    let mut sighting = Sighting::new(id, "subAgentActivity", input);
    sighting.metadata = item_metadata("subAgentActivity");
    sighting
        .metadata
        .insert(meta::CHILD_THREAD_ID.into(), thread.as_str().into());
    let mut facts = ItemFacts::new(sighting, Outcome::InProgress);
    facts.agent_thread = Some(thread);
    facts
}

/// A thread item read by its fields: named after its type (`ImageView` → `imageView`),
/// its other fields the input (an image's data left out), ended as it is recorded.
fn plain_item(kind: &str, id: String, raw: &str) -> Option<ItemFacts> {
    let Ok(Value::Object(mut fields)) = serde_json::from_str::<Value>(raw) else {
        return None;
    };
    for key in ["id", "type", "result"] {
        fields.remove(key);
    }
    let mut name = kind.to_owned();
    if let Some(first) = name.get_mut(..1) {
        first.make_ascii_lowercase();
    }
    let failed = fields.get("status").and_then(Value::as_str) == Some("failed")
        || fields.get("success").and_then(Value::as_bool) == Some(false);
    let mut sighting = Sighting::new(id, name.as_str(), Value::Object(fields));
    sighting.metadata = item_metadata(&name);
    let outcome = match failed {
        true => Outcome::Failed(ToolError::new("the tool failed")),
        false => Outcome::Completed(None),
    };
    Some(ItemFacts::new(sighting, outcome))
}

/// The changes of a patch, by path.
fn file_changes(changes: BTreeMap<String, FileChange>) -> Vec<Change> {
    changes
        .into_iter()
        .map(|(path, change)| {
            let kind = match change.kind.as_str() {
                "add" => ChangeKind::Add,
                "delete" => ChangeKind::Delete,
                _ => ChangeKind::Update,
            };
            let diff = change.unified_diff.or(match kind {
                ChangeKind::Add => change.content,
                _ => None,
            });
            Change { path, kind, diff }
        })
        .collect()
}

/// A command as one line: the argument list joined as a shell would read it back.
fn command_line(command: Option<&Value>) -> String {
    match command {
        Some(Value::String(command)) => command.clone(),
        Some(Value::Array(words)) => {
            let words: Vec<&str> = words.iter().filter_map(Value::as_str).collect();
            shlex::try_join(words.iter().copied()).unwrap_or_else(|_| words.join(" "))
        }
        _ => String::new(),
    }
}

/// A path the CLI may write as a `file://` URL.
fn local_path(path: &str) -> String {
    path.strip_prefix("file://").unwrap_or(path).to_owned()
}

fn text_of(value: &Value) -> String {
    match value {
        Value::String(text) => text.clone(),
        Value::Object(object) => object
            .get("message")
            .and_then(Value::as_str)
            .map_or_else(|| value.to_string(), str::to_owned),
        other => other.to_string(),
    }
}

/// `spawn_agent` → `spawnAgent`: the app-server's spelling of a collab tool.
fn camel_case(name: &str) -> String {
    let mut out = String::with_capacity(name.len());
    let mut upper = false;
    for c in name.chars() {
        if c == '_' {
            upper = true;
        } else if upper {
            out.extend(c.to_uppercase());
            upper = false;
        } else {
            out.push(c);
        }
    }
    out
}

fn missing_id(at: &At<'_>, kind: &str, out: &mut Facts<'_>) {
    out.diagnostic(Diagnostic::at(
        at.line,
        DiagnosticKind::MalformedEvent,
        format!("a `{kind}` without a call id"),
    ));
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn commands_are_joined_as_a_shell_reads_them() {
        let command = json!(["/bin/bash", "-lc", "echo hi"]);
        assert_eq!(command_line(Some(&command)), "/bin/bash -lc 'echo hi'");
        assert_eq!(local_path("file:///w"), "/w");
        assert_eq!(camel_case("wait_agent"), "waitAgent");
    }

    #[test]
    fn an_items_output_is_kept_as_its_text() {
        let raw = r#"{"type":"CommandExecution","id":"c","command":"ls","aggregated_output":"a\n\u001b\"","exit_code":0,"status":"completed"}"#;
        let item = read_item(raw).expect("an item");
        assert_eq!(item.id.as_deref(), Some("c"));
        let output = item.call.aggregated_output.expect("the output");
        assert_eq!(output.raw_text(), Some(r#""a\n\u001b\"""#));
        assert_eq!(output.as_str(), Some("a\n\u{1b}\""));
    }

    #[test]
    fn items_read_apart_are_refused_as_the_flattened_item_was() {
        // The item as it was read before: its own fields and the events' in one struct.
        #[derive(Deserialize)]
        struct Flattened {
            #[serde(flatten)]
            _item: ThreadItem,
            #[serde(flatten)]
            _call: CallEvent,
        }
        let items = [
            r#"{"type":"CommandExecution","id":"c","command":["ls"],"aggregated_output":"x","exit_code":2}"#,
            r#"{"type":"CommandExecution","id":"c","aggregated_output":null,"exit_code":null}"#,
            r#"{"type":"CommandExecution","id":"c","aggregated_output":5}"#,
            r#"{"type":"CommandExecution","id":"c","exit_code":"2"}"#,
            r#"{"type":"McpToolCall","id":7}"#,
            r#"{"type":"McpToolCall","id":"m","server":"s","tool":"t","arguments":{"a":1},"result":{"Ok":{}}}"#,
            r#"{"type":"FileChange","id":"f","changes":{"a.rs":{"type":"add","content":"x"}}}"#,
            r#"{"type":"FileChange","id":"f","changes":{"a.rs":{"content":"x"}}}"#,
            r#"{"type":"WebSearch","id":"w","query":"q","duration":{"secs":1,"nanos":"x"}}"#,
            "[1]",
        ];
        for raw in items {
            assert_eq!(
                read_item(raw).is_ok(),
                serde_json::from_str::<Flattened>(raw).is_ok(),
                "{raw}"
            );
        }
    }
}
