//! `response_item` lines: the model's calls and the results it was given, read with the
//! generated `ResponseItem`.

use std::borrow::Cow;
use std::collections::HashSet;

use serde::Deserialize;
use serde_json::{Map, Value, json};
use toolnorm::{ErrorCode, ToolError};
use toolnorm_wire::codex_rollout as wire;

use super::{At, search_id};
use crate::diagnostic::{Diagnostic, DiagnosticKind};
use crate::dialects::codex::code_mode::{self, Cells};
use crate::dialects::codex::items::{
    Change, ChangeKind, ItemFacts, Items, McpItem, Outcome, Status, collab_sighting, command_facts,
    command_outcome, file_change_facts, item_metadata, mcp_facts, web_search_facts,
};
use crate::read::{json, tolerant};
use crate::track::{Ending, Facts, Sighting, exit_error};

/// The `type` of a payload.
#[derive(Deserialize)]
pub(super) struct Kind<'a> {
    #[serde(borrow, rename = "type", default)]
    pub kind: Option<Cow<'a, str>>,
}

/// `response_item` types that are conversation or context, not calls.
const NOT_CALLS: &[&str] = &[
    "message",
    "agent_message",
    "reasoning",
    "additional_tools",
    "compaction",
    "configuration_update",
    "compaction_trigger",
    "context_compaction",
    "other",
];

/// The collaboration (subagent) tools, by the name the model calls them, and their
/// app-server names.
const COLLAB_TOOLS: &[(&str, &str)] = &[
    ("spawn_agent", "spawnAgent"),
    ("send_input", "sendInput"),
    ("send_message", "sendMessage"),
    ("followup_task", "followupTask"),
    ("resume_agent", "resumeAgent"),
    ("wait", "wait"),
    ("wait_agent", "wait"),
    ("close_agent", "closeAgent"),
    ("interrupt_agent", "interruptAgent"),
    ("list_agents", "listAgents"),
];

/// The shell tools the model calls, whose calls the CLI runs as commands.
const SHELL_TOOLS: &[&str] = &["exec_command", "shell", "shell_command", "local_shell"];

/// Reads one `response_item` payload.
pub(super) fn read(
    at: &At<'_>,
    payload: &str,
    items: &mut Items,
    spawns: &mut HashSet<String>,
    cells: &mut Cells,
    out: &mut Facts<'_>,
) {
    let kind = match serde_json::from_str::<Kind<'_>>(payload) {
        Ok(Kind { kind: Some(kind) }) => kind,
        Ok(Kind { kind: None }) => {
            return out.diagnostic(Diagnostic::at(
                at.line,
                DiagnosticKind::MalformedEvent,
                "a `response_item` without `type`",
            ));
        }
        Err(error) => return out.diagnostic(json::malformed(at.line, "`response_item`", &error)),
    };
    if NOT_CALLS.contains(&kind.as_ref()) {
        return;
    }
    let item = match tolerant::from_str::<wire::ResponseItem>(payload) {
        Ok(item) => {
            if let Some(notice) = item.notice(at.line, &format!("`{kind}` item")) {
                out.diagnostic(notice);
            }
            item.value
        }
        Err(error) => return unknown_or_malformed(at, &kind, payload, &error, items, out),
    };
    use wire::ResponseItem as R;
    match item {
        R::FunctionCall {
            arguments,
            call_id,
            name,
            namespace,
            ..
        } => {
            let input: Value = serde_json::from_str(&arguments)
                .unwrap_or_else(|_| json!({ "arguments": arguments }));
            let cell = code_mode::waited_cell(&name, namespace.as_deref(), &input);
            let facts = match cell {
                Some(cell) => cells.wait_facts(call_id, input, cell, at.session),
                None => function_call(call_id, &name, namespace.as_deref(), input, out),
            };
            if facts.sighting.name == "subAgentActivity" {
                spawns.insert(facts.sighting.id.clone());
            }
            started(at, facts, items, out);
        }
        R::CustomToolCall {
            call_id,
            input,
            name,
            ..
        } => {
            let facts = match name.as_str() {
                "apply_patch" => file_change_facts(
                    call_id,
                    patch_changes(&input),
                    Status::InProgress,
                    "fileChange",
                ),
                code_mode::EXEC_TOOL => {
                    let direct = |call: &code_mode::ScriptCall| {
                        let input = code_mode::call_input(call);
                        function_call(String::new(), &call.tool, None, input, out)
                    };
                    code_mode::exec_facts(call_id, &input, &direct, out)
                }
                _ => plain_call(
                    call_id,
                    &name,
                    json!({ "input": input }),
                    "custom_tool_call",
                ),
            };
            started(at, facts, items, out);
        }
        R::LocalShellCall {
            action:
                wire::LocalShellAction::Exec {
                    command,
                    working_directory,
                    ..
                },
            call_id,
            id,
            ..
        } => {
            let Some(id) = call_id.or(id) else {
                return missing_id(at, "local_shell_call", out);
            };
            let command = shlex::try_join(command.iter().map(String::as_str))
                .unwrap_or_else(|_| command.join(" "));
            let facts = command_facts(
                id,
                command,
                working_directory,
                Outcome::InProgress,
                "commandExecution",
            );
            started(at, facts, items, out);
        }
        R::WebSearchCall {
            action, id, status, ..
        } => {
            let action = action.and_then(|action| serde_json::to_value(action).ok());
            let Some(id) = id.or_else(|| search_id::read(at, action.as_ref(), items, out)) else {
                return;
            };
            if known(&id, out) {
                return items.search_answered(&id);
            }
            let query = action.as_ref().and_then(search_query).unwrap_or_default();
            let done = status.as_deref() != Some("in_progress");
            let facts = web_search_facts(id.clone(), query, action, None, done, "webSearch");
            ended(at, facts, items, out);
            items.search_answered(&id);
        }
        R::ImageGenerationCall {
            id,
            revised_prompt,
            status,
            ..
        } => {
            let Some(id) = id else {
                return missing_id(at, "image_generation_call", out);
            };
            // The image itself (base64 `result`) stays out of the part.
            let mut sighting = Sighting::new(
                id,
                "imageGeneration",
                json!({ "revisedPrompt": revised_prompt }),
            );
            sighting.metadata = item_metadata("imageGeneration");
            let outcome = match status.as_str() {
                "failed" => Outcome::Failed(ToolError::new("the image generation failed")),
                "in_progress" | "generating" => Outcome::InProgress,
                _ => Outcome::Completed(None),
            };
            ended(at, ItemFacts::new(sighting, outcome), items, out);
        }
        R::ToolSearchCall {
            arguments,
            call_id,
            id,
            ..
        } => {
            let Some(id) = call_id.or(id) else {
                return missing_id(at, "tool_search_call", out);
            };
            let facts = plain_call(id, "tool_search", arguments, "tool_search_call");
            started(at, facts, items, out);
        }
        R::FunctionCallOutput {
            call_id, output, ..
        } => match call_id {
            Some(call_id) => {
                output_given(at, &call_id, &output_text(&output), spawns, cells, out);
            }
            None => missing_id(at, "function_call_output", out),
        },
        R::CustomToolCallOutput {
            call_id,
            name,
            output,
            ..
        } => {
            let text = output_text(&output);
            if code_mode::is_notice(name.as_deref(), &text) && out.is_open(&call_id) {
                return out.output(at.line, &call_id, &text);
            }
            output_given(at, &call_id, &text, spawns, cells, out);
        }
        R::ToolSearchOutput { call_id, tools, .. } => match call_id {
            Some(call_id) if out.is_open(&call_id) => {
                let ending = Ending::at(at.at.clone());
                out.complete(at.line, &call_id, Some(json!({ "tools": tools })), ending);
            }
            Some(call_id) => not_open(at, &call_id, out),
            None => missing_id(at, "tool_search_output", out),
        },
        // Read above by their type alone.
        R::Message { .. }
        | R::AgentMessage { .. }
        | R::Reasoning { .. }
        | R::AdditionalTools { .. }
        | R::Compaction { .. }
        | R::ConfigurationUpdate { .. }
        | R::CompactionTrigger
        | R::ContextCompaction { .. }
        | R::Other => {}
    }
}

/// A call the model asked for: open it, unless this session has it already.
fn started(at: &At<'_>, mut facts: ItemFacts, items: &mut Items, out: &mut Facts<'_>) {
    if known(&facts.sighting.id, out) {
        return;
    }
    facts.started_at = at.at.clone();
    items.seen(at.line, facts, at.session, out);
}

/// A line that says how a call stands, whole: it opens the call if need be, brings its
/// input to the line's, and ends it; a call already ended is left as it is.
pub(super) fn ended(at: &At<'_>, mut facts: ItemFacts, items: &mut Items, out: &mut Facts<'_>) {
    if known(&facts.sighting.id, out) {
        return;
    }
    if !out.is_open(&facts.sighting.id) {
        facts.started_at = at.at.clone();
    }
    facts.completed_at = at.at.clone();
    items.seen(at.line, facts, at.session, out);
}

/// Whether the call has ended already in this session (its later lines are the same
/// call again). An id a call of an earlier session had, seen again after another
/// `session_meta`, is a call of its own.
pub(super) fn known(id: &str, out: &Facts<'_>) -> bool {
    !out.is_open(id) && out.finished(id).is_some() && !out.is_other_sessions(id)
}

/// A function call, named as the app-server names the same call.
fn function_call(
    id: String,
    name: &str,
    namespace: Option<&str>,
    input: Value,
    out: &Facts<'_>,
) -> ItemFacts {
    let mcp_server = namespace
        .and_then(|namespace| namespace.strip_prefix("mcp__"))
        .map(|server| (server.trim_end_matches('_').to_owned(), name.to_owned()))
        .or_else(|| {
            let rest = name.strip_prefix("mcp__")?;
            let (server, tool) = rest.split_once("__")?;
            Some((server.to_owned(), tool.to_owned()))
        });
    if let Some((server, tool)) = mcp_server {
        let item = McpItem {
            id,
            server,
            tool,
            arguments: input,
            status: Status::InProgress,
            result: None,
            error: None,
        };
        return mcp_facts(item, "mcpToolCall");
    }
    let collab = COLLAB_TOOLS
        .iter()
        .find(|(tool, _)| *tool == name)
        .map(|(_, app_name)| *app_name)
        .filter(|_| namespace.is_none_or(|namespace| namespace == "collaboration"));
    match (collab, namespace) {
        // A spawn of the multi-agent tools: the agent's activity, as the app-server shows it.
        (Some("spawnAgent"), Some(_)) => {
            let path = input.get("task_name").cloned().unwrap_or(Value::Null);
            let prompt = input.get("message").cloned().unwrap_or(Value::Null);
            let mut sighting = Sighting::new(
                id,
                "subAgentActivity",
                json!({ "agentPath": path, "prompt": prompt }),
            );
            sighting.metadata = item_metadata("subAgentActivity");
            ItemFacts::new(sighting, Outcome::InProgress)
        }
        (Some(tool), _) => {
            let sighting = collab_sighting(id, tool.to_owned(), input, "collabAgentToolCall", out);
            ItemFacts::new(sighting, Outcome::InProgress)
        }
        (None, _) if SHELL_TOOLS.contains(&name) => {
            let command = match input.get("cmd").or_else(|| input.get("command")) {
                Some(Value::String(command)) => command.clone(),
                Some(Value::Array(words)) => {
                    let words: Vec<&str> = words.iter().filter_map(Value::as_str).collect();
                    shlex::try_join(words.iter().copied()).unwrap_or_else(|_| words.join(" "))
                }
                _ => String::new(),
            };
            let cwd = input
                .get("workdir")
                .and_then(Value::as_str)
                .map(str::to_owned);
            command_facts(id, command, cwd, Outcome::InProgress, "commandExecution")
        }
        (None, _) if name == "apply_patch" => {
            let patch = input
                .get("input")
                .or_else(|| input.get("patch"))
                .and_then(Value::as_str)
                .unwrap_or_default();
            file_change_facts(id, patch_changes(patch), Status::InProgress, "fileChange")
        }
        (None, _) => plain_call(id, name, input, "function_call"),
    }
}

/// A call of a tool read as it is named, its input as given.
fn plain_call(id: String, name: &str, input: Value, item_type: &str) -> ItemFacts {
    let mut sighting = Sighting::new(id, name, input);
    sighting.metadata = item_metadata(item_type);
    ItemFacts::new(sighting, Outcome::InProgress)
}

/// The files an `apply_patch` patch touches (`*** Add File: path`, …).
fn patch_changes(patch: &str) -> Vec<Change> {
    patch
        .lines()
        .filter_map(|line| {
            let line = line.strip_prefix("*** ")?;
            let (kind, path) = [
                ("Add File: ", ChangeKind::Add),
                ("Update File: ", ChangeKind::Update),
                ("Delete File: ", ChangeKind::Delete),
            ]
            .into_iter()
            .find_map(|(prefix, kind)| line.strip_prefix(prefix).map(|path| (kind, path)))?;
            Some(Change {
                path: path.trim().to_owned(),
                kind,
                diff: None,
            })
        })
        .collect()
}

/// What a web search looked for: its query, the page it opened or the text it found.
fn search_query(action: &Value) -> Option<String> {
    ["query", "url", "pattern"]
        .iter()
        .find_map(|key| action.get(key).and_then(Value::as_str))
        .map(str::to_owned)
}

/// The text of a call's output (text items joined).
fn output_text(output: &wire::FunctionCallOutputBody) -> String {
    use wire::FunctionCallOutputContentItem as I;
    match output {
        wire::FunctionCallOutputBody::String(text) => text.clone(),
        wire::FunctionCallOutputBody::Array(items) => items
            .iter()
            .filter_map(|item| match item {
                I::InputTextFunctionCallOutputContentItem { text, .. } => Some(text.as_str()),
                _ => None,
            })
            .collect::<Vec<_>>()
            .join("\n"),
    }
}

/// The result the model was given ends a call that no other line ended (the CLI's own
/// events, read first, carry the structured outcome when the file has them).
fn output_given(
    at: &At<'_>,
    call_id: &str,
    text: &str,
    spawns: &HashSet<String>,
    cells: &mut Cells,
    out: &mut Facts<'_>,
) {
    if !out.is_open(call_id) {
        return not_open(at, call_id, out);
    }
    // A spawned agent's call ends when the agent does.
    if spawns.contains(call_id) {
        return;
    }
    let ending = Ending::at(at.at.clone());
    let is_command = matches!(out.name(call_id), Some("commandExecution"));
    let script = cells.result(at.line, at.session, call_id, text, out);
    match script.unwrap_or_else(|| text_outcome(text, is_command)) {
        Outcome::InProgress => {}
        Outcome::Completed(output) => out.complete(at.line, call_id, output, ending),
        Outcome::Failed(error) => out.fail(at.line, call_id, error, ending),
    }
}

/// How a call ended, as the text the model was given tells it.
fn text_outcome(text: &str, is_command: bool) -> Outcome {
    if text.contains("rejected by user") {
        let message = if is_command {
            "the command was declined"
        } else {
            "the call was declined"
        };
        return Outcome::Failed(ToolError::new(message).with_code(ErrorCode::PermissionDenied));
    }
    if let Some(line) = text
        .lines()
        .find(|line| line.starts_with("aborted by user"))
    {
        return Outcome::Failed(ToolError::new(line.trim()).with_code("interrupted"));
    }
    let (header, output) = match text.split_once("\nOutput:\n") {
        Some((header, output)) => (header, output),
        None => (text, text),
    };
    let code = header.lines().find_map(|line| {
        line.strip_prefix("Process exited with code ")
            .or_else(|| line.strip_prefix("Exit code: "))
            .and_then(|code| code.trim().parse::<i64>().ok())
    });
    match code {
        Some(code) if code != 0 => Outcome::Failed(exit_error(code, output)),
        Some(_) => Outcome::Completed(Some(output.into())),
        None if is_command && text.contains(" failed") => {
            command_outcome(Status::Failed, None, Some(text.into()))
        }
        None => Outcome::Completed(Some(text.into())),
    }
}

/// A result for a call that is not open: one ended already is the same call again; one
/// the file never opened cannot be named.
fn not_open(at: &At<'_>, call_id: &str, out: &mut Facts<'_>) {
    if known(call_id, out) {
        return;
    }
    out.diagnostic(Diagnostic::notice(
        at.line,
        DiagnosticKind::UnknownCall,
        format!("the result of call `{call_id}`, which the file does not open"),
    ));
}

fn missing_id(at: &At<'_>, kind: &str, out: &mut Facts<'_>) {
    out.diagnostic(Diagnostic::at(
        at.line,
        DiagnosticKind::MalformedEvent,
        format!("a `{kind}` without a call id"),
    ));
}

/// A payload that does not read as the pinned `ResponseItem`: a type the schema does not
/// have is a notice (and a call, when it names one: a `call_id`, or an `id` with
/// `_call` in its type); a known type with wrong fields is an error.
fn unknown_or_malformed(
    at: &At<'_>,
    kind: &str,
    payload: &str,
    error: &serde_json::Error,
    items: &mut Items,
    out: &mut Facts<'_>,
) {
    if RESPONSE_ITEM_TYPES.contains(&kind) {
        return out.diagnostic(json::malformed(at.line, &format!("`{kind}` item"), error));
    }
    out.diagnostic(Diagnostic::notice(
        at.line,
        DiagnosticKind::UnknownEvent,
        format!("unknown Codex rollout item type `{kind}`"),
    ));
    let Ok(Value::Object(mut fields)) = serde_json::from_str::<Value>(payload) else {
        return;
    };
    let id = match fields.remove("call_id") {
        Some(Value::String(id)) => id,
        _ if kind.ends_with("_call") => match fields.get("id") {
            Some(Value::String(id)) => id.clone(),
            _ => return,
        },
        _ => return,
    };
    fields.remove("type");
    let mut sighting = Sighting::new(id, kind, Value::Object(Map::from_iter(fields)));
    sighting.metadata = item_metadata(kind);
    started(
        at,
        ItemFacts::new(sighting, Outcome::InProgress),
        items,
        out,
    );
}

/// Every `response_item` type of the pinned schema.
const RESPONSE_ITEM_TYPES: &[&str] = &[
    "additional_tools",
    "message",
    "agent_message",
    "reasoning",
    "local_shell_call",
    "function_call",
    "tool_search_call",
    "function_call_output",
    "custom_tool_call",
    "custom_tool_call_output",
    "tool_search_output",
    "web_search_call",
    "image_generation_call",
    "compaction",
    "configuration_update",
    "compaction_trigger",
    "context_compaction",
    "other",
];

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn patches_name_their_files() {
        let changes = patch_changes(
            "*** Begin Patch\n*** Add File: a.txt\n+x\n*** Update File: src/b.rs\n*** End Patch\n",
        );
        let got: Vec<(&str, ChangeKind)> = changes
            .iter()
            .map(|change| (change.path.as_str(), change.kind))
            .collect();
        assert_eq!(
            got,
            [("a.txt", ChangeKind::Add), ("src/b.rs", ChangeKind::Update)]
        );
    }

    #[test]
    fn outputs_say_how_commands_ended() {
        let exit = text_outcome(
            "Chunk ID: x\nProcess exited with code 3\nOutput:\nboom\n",
            true,
        );
        let Outcome::Failed(error) = exit else {
            panic!("{exit:?}")
        };
        assert_eq!(error.code, Some(ErrorCode::ExitCode));
        let ok = text_outcome(
            "Wall time: 0\nProcess exited with code 0\nOutput:\nhi\n",
            true,
        );
        assert!(matches!(ok, Outcome::Completed(Some(text)) if text == Value::from("hi\n")));
        let denied = text_outcome("exec_command failed: Rejected(\"rejected by user\")", true);
        let Outcome::Failed(error) = denied else {
            panic!("{denied:?}")
        };
        assert_eq!(error.code, Some(ErrorCode::PermissionDenied));
        let aborted = text_outcome("Wall time: 1.8 seconds\naborted by user", true);
        let Outcome::Failed(error) = aborted else {
            panic!("{aborted:?}")
        };
        assert_eq!(error.message, "aborted by user");
    }
}
