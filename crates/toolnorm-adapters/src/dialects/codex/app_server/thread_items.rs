//! The app-server's thread items read into [`ItemFacts`], variant by variant: the match
//! on [`app::ThreadItem`] is exhaustive, so an item type a regenerated schema adds is a
//! compile error here, to be read or dropped on purpose.

use serde_json::{Value, json};
use toolnorm::{Payload, ToolError, meta};
use toolnorm_wire::codex_app_server as app;

use super::super::items::{
    Change, ChangeKind, ItemFacts, McpItem, Outcome, Status, collab_sighting, command_facts,
    command_outcome, file_change_facts, item_metadata, mcp_facts, web_search_facts,
};
use crate::track::{Facts, Sighting};

/// What a command item says, however it was read.
pub(super) struct CommandItem {
    pub id: String,
    pub command: String,
    pub cwd: String,
    pub status: app::CommandExecutionStatus,
    pub exit_code: Option<i32>,
    /// A JSON string.
    pub output: Option<Payload>,
    /// Started, completed (epoch milliseconds), and the duration.
    pub times: [Option<i64>; 3],
}

/// Facts of a command item.
pub(super) fn command_item_facts(item: CommandItem) -> ItemFacts {
    let [started, completed, duration] = item.times;
    command_facts(
        item.id,
        item.command,
        Some(item.cwd),
        command_outcome(
            command_status(item.status),
            item.exit_code.map(i64::from),
            item.output,
        ),
        "commandExecution",
    )
    .times(started, completed, duration)
}

/// Facts of an app-server item; `None` for items that are not tool calls, and for the
/// subagent activities other than `started` (the adapter reads those).
///
/// `completed`: the item came in `item/completed` (a web search of Codex 0.118 and 0.142
/// has no `completedAtMs` of its own; that notification is its only end).
pub(super) fn item_facts(
    item: app::ThreadItem,
    completed: bool,
    out: &Facts<'_>,
) -> Option<ItemFacts> {
    use app::ThreadItem as Item;
    let facts = match item {
        Item::CommandExecution {
            id,
            command,
            cwd: command_cwd,
            status,
            exit_code,
            aggregated_output,
            started_at_ms,
            completed_at_ms,
            duration_ms,
            ..
        } => command_item_facts(CommandItem {
            id,
            command,
            cwd: command_cwd.0,
            status,
            exit_code,
            output: aggregated_output.map(Payload::from),
            times: [started_at_ms, completed_at_ms, duration_ms],
        }),
        Item::FileChange {
            id,
            changes,
            status,
            started_at_ms,
            completed_at_ms,
            ..
        } => {
            let changes = changes
                .into_iter()
                .map(|change| Change {
                    kind: change_kind(&change.kind),
                    path: change.path,
                    diff: Some(change.diff),
                })
                .collect();
            file_change_facts(id, changes, patch_status(status), "fileChange").times(
                started_at_ms,
                completed_at_ms,
                None,
            )
        }
        Item::McpToolCall {
            id,
            server,
            tool,
            arguments,
            status,
            result,
            error,
            started_at_ms,
            completed_at_ms,
            duration_ms,
            ..
        } => {
            let item = McpItem {
                id,
                server,
                tool,
                arguments,
                status: mcp_status(status),
                result: result.and_then(|result| serde_json::to_value(result).ok()),
                error: error.map(|error| error.message),
            };
            mcp_facts(item, "mcpToolCall").times(started_at_ms, completed_at_ms, duration_ms)
        }
        Item::DynamicToolCall {
            id,
            tool,
            namespace,
            arguments,
            status,
            success,
            content_items,
            started_at_ms,
            completed_at_ms,
            duration_ms,
        } => {
            let mut sighting = Sighting::new(id, tool.clone(), arguments);
            sighting.metadata = item_metadata("dynamicToolCall");
            if let Some(namespace) = &namespace {
                sighting
                    .metadata
                    .insert(meta::NAMESPACE.into(), namespace.as_str().into());
                if let Some(server) = namespace
                    .strip_prefix("mcp__")
                    .filter(|server| !server.is_empty())
                {
                    sighting.mcp = Some((server.to_owned(), tool));
                }
            }
            let output = content_items.and_then(|items| serde_json::to_value(items).ok());
            let failed = |output: Option<Value>| {
                Outcome::Failed(match output {
                    Some(output) => ToolError::new("the tool failed").with_details(output),
                    None => ToolError::new("the tool failed"),
                })
            };
            use app::DynamicToolCallStatus as S;
            let outcome = match (status, success) {
                (S::InProgress, _) => Outcome::InProgress,
                (S::Failed, _) | (S::Completed, Some(false)) => failed(output),
                (S::Completed, _) => Outcome::Completed(output.map(Payload::from)),
            };
            ItemFacts::new(sighting, outcome).times(started_at_ms, completed_at_ms, duration_ms)
        }
        Item::WebSearch {
            id,
            query,
            action,
            results,
            started_at_ms,
            completed_at_ms,
        } => {
            let action = action.and_then(|action| serde_json::to_value(action).ok());
            let results = results.map(Value::Array);
            let done = completed || completed_at_ms.is_some();
            web_search_facts(id, query, action, results, done, "webSearch").times(
                started_at_ms,
                completed_at_ms,
                None,
            )
        }
        Item::CollabAgentToolCall {
            id,
            tool,
            status,
            prompt,
            model,
            receiver_thread_ids,
            sender_thread_id,
            agents_states,
            started_at_ms,
            completed_at_ms,
            ..
        } => {
            // A spawn names the thread it started among its receivers once it completes.
            let spawned_threads = match tool {
                app::CollabAgentTool::SpawnAgent => receiver_thread_ids.clone(),
                _ => Vec::new(),
            };
            let input = json!({ "prompt": prompt, "model": model, "receiverThreadIds": receiver_thread_ids });
            let tool = collab_tool_name(tool).to_owned();
            let mut sighting = collab_sighting(id, tool, input, "collabAgentToolCall", out);
            sighting
                .metadata
                .insert(meta::SENDER_THREAD_ID.into(), sender_thread_id.into());
            let states = serde_json::to_value(&agents_states).unwrap_or(Value::Null);
            use app::CollabAgentToolCallStatus as S;
            let outcome = match status {
                S::InProgress => Outcome::InProgress,
                S::Completed => Outcome::Completed(Some(states.into())),
                S::Failed => agent_call_failed("failed", states),
                S::Interrupted => agent_call_failed("interrupted", states),
            };
            let mut facts =
                ItemFacts::new(sighting, outcome).times(started_at_ms, completed_at_ms, None);
            facts.spawned_threads = spawned_threads;
            facts
        }
        Item::SubAgentActivity {
            id,
            kind: app::SubAgentActivityKind::Started,
            agent_path,
            agent_thread_id,
            model,
            started_at_ms,
            ..
        } => {
            let input = json!({ "agentPath": agent_path, "agentThreadId": agent_thread_id, "model": model });
            let mut sighting = Sighting::new(id, "subAgentActivity", input);
            sighting.metadata = item_metadata("subAgentActivity");
            sighting
                .metadata
                .insert(meta::CHILD_THREAD_ID.into(), agent_thread_id.as_str().into());
            let mut facts =
                ItemFacts::new(sighting, Outcome::InProgress).times(started_at_ms, None, None);
            facts.agent_thread = Some(agent_thread_id);
            facts
        }
        Item::ImageView {
            id,
            path,
            started_at_ms,
            completed_at_ms,
        } => {
            let mut sighting = Sighting::new(id, "imageView", json!({ "path": path.0 }));
            sighting.metadata = item_metadata("imageView");
            // Like a web search, an image view has no status: `item/completed` ends it.
            let outcome = ended_without_status(completed, completed_at_ms);
            ItemFacts::new(sighting, outcome).times(started_at_ms, completed_at_ms, None)
        }
        Item::Sleep {
            id,
            duration_ms,
            started_at_ms,
            completed_at_ms,
        } => {
            let mut sighting =
                Sighting::new(id, "sleep", json!({ "durationMs": duration_ms }));
            sighting.metadata = item_metadata("sleep");
            let outcome = ended_without_status(completed, completed_at_ms);
            ItemFacts::new(sighting, outcome).times(started_at_ms, completed_at_ms, None)
        }
        Item::ImageGeneration {
            id,
            status,
            revised_prompt,
            saved_path,
            failure,
            started_at_ms,
            completed_at_ms,
            ..
        } => {
            let input = json!({ "revisedPrompt": revised_prompt });
            let mut sighting = Sighting::new(id, "imageGeneration", input);
            sighting.metadata = item_metadata("imageGeneration");
            // The generated image itself (base64 `result`) stays out of the part: where it
            // was saved is the output.
            let saved = saved_path.map(|path| Value::String(path.0));
            let outcome = match (failure, status.as_str()) {
                (Some(failure), _) => Outcome::Failed(
                    ToolError::new("the image generation failed")
                        .with_details(serde_json::to_value(failure).unwrap_or(Value::Null)),
                ),
                (None, "failed") => Outcome::Failed(ToolError::new("the image generation failed")),
                (None, _) if completed || completed_at_ms.is_some() => Outcome::Completed(saved.map(Payload::from)),
                (None, _) => Outcome::InProgress,
            };
            ItemFacts::new(sighting, outcome).times(started_at_ms, completed_at_ms, None)
        }
        // The other activities of a subagent end or touch the call its `started` began.
        Item::SubAgentActivity { .. }
        // Conversation, not tool calls.
        | Item::UserMessage { .. }
        | Item::HookPrompt { .. }
        | Item::AgentMessage { .. }
        | Item::FunctionCallOutput { .. }
        | Item::Plan { .. }
        | Item::Reasoning { .. }
        | Item::EnteredReviewMode { .. }
        | Item::ExitedReviewMode { .. }
        | Item::ContextCompaction { .. } => return None,
    };
    Some(facts)
}

/// The outcome of an item that has no status of its own: complete once it ends (its
/// `item/completed`, or a completion time), else in progress.
fn ended_without_status(completed: bool, completed_at_ms: Option<i64>) -> Outcome {
    if completed || completed_at_ms.is_some() {
        Outcome::Completed(None)
    } else {
        Outcome::InProgress
    }
}

/// A failed or interrupted collab agent call; the status is the error code.
fn agent_call_failed(status: &'static str, states: Value) -> Outcome {
    Outcome::Failed(
        ToolError::new(format!("the agent call {status}"))
            .with_code(status)
            .with_details(states),
    )
}

/// A collab tool's name (the call's `name`, which the rules match): its wire spelling.
pub(super) fn collab_tool_name(tool: app::CollabAgentTool) -> &'static str {
    use app::CollabAgentTool as T;
    match tool {
        T::SpawnAgent => "spawnAgent",
        T::SendInput => "sendInput",
        T::ResumeAgent => "resumeAgent",
        T::Wait => "wait",
        T::CloseAgent => "closeAgent",
        T::SendMessage => "sendMessage",
        T::FollowupTask => "followupTask",
        T::InterruptAgent => "interruptAgent",
        T::ListAgents => "listAgents",
    }
}

fn command_status(status: app::CommandExecutionStatus) -> Status {
    use app::CommandExecutionStatus as S;
    match status {
        S::InProgress => Status::InProgress,
        S::Completed => Status::Completed,
        S::Failed => Status::Failed,
        S::Declined => Status::Declined,
    }
}

fn patch_status(status: app::PatchApplyStatus) -> Status {
    use app::PatchApplyStatus as S;
    match status {
        S::InProgress => Status::InProgress,
        S::Completed => Status::Completed,
        S::Failed => Status::Failed,
        S::Declined => Status::Declined,
    }
}

fn mcp_status(status: app::McpToolCallStatus) -> Status {
    use app::McpToolCallStatus as S;
    match status {
        S::InProgress => Status::InProgress,
        S::Completed => Status::Completed,
        S::Failed => Status::Failed,
    }
}

fn change_kind(kind: &app::PatchChangeKind) -> ChangeKind {
    match kind {
        app::PatchChangeKind::Add => ChangeKind::Add,
        app::PatchChangeKind::Delete => ChangeKind::Delete,
        app::PatchChangeKind::Update { .. } => ChangeKind::Update,
    }
}

#[cfg(test)]
mod tests {
    use toolnorm::ToolKind;

    use super::*;
    use crate::dialects::claim_checks;
    use crate::rules::{TitleRules, ToolRef};

    /// Every collab tool: its name is its wire name, and a built-in rule makes it a
    /// subagent call (the adapter leaves the kind of a known tool to the rules).
    #[test]
    fn every_collab_tool_is_a_subagent_call_by_its_rule() {
        use app::CollabAgentTool as T;
        let rules = TitleRules::builtin();
        for tool in [
            T::SpawnAgent,
            T::SendInput,
            T::ResumeAgent,
            T::Wait,
            T::CloseAgent,
            T::SendMessage,
            T::FollowupTask,
            T::InterruptAgent,
            T::ListAgents,
        ] {
            let name = collab_tool_name(tool);
            assert_eq!(serde_json::to_value(tool).unwrap(), Value::from(name));
            let reference = ToolRef {
                provider: "codex",
                tool: name,
                server: None,
                input: &json!({}),
                cwd: None,
            };
            assert_eq!(rules.kind(&reference), Some(ToolKind::Subagent), "{name}");
            assert!(rules.knows("codex", name), "{name}");
        }
    }

    /// The parts of app-server lines given as JSON.
    fn parts(lines: &[Value]) -> Vec<toolnorm::NormalizedToolPart> {
        let text = claim_checks::one_a_line(lines);
        claim_checks::read(crate::Dialect::CODEX_APP_SERVER, &text).clean_parts()
    }

    fn completed(item: Value) -> Value {
        json!({"method": "item/completed", "params": {"threadId": "t", "turnId": "u", "item": item}})
    }

    #[test]
    fn image_generation_sleep_and_image_view_items_are_calls() {
        let parts = parts(&[
            completed(
                json!({"type": "imageGeneration", "id": "ig_1", "status": "completed",
                "revisedPrompt": "a cat", "result": "aGVsbG8=", "savedPath": "/w/cat.png"}),
            ),
            completed(json!({"type": "sleep", "id": "sl_1", "durationMs": 500})),
            completed(json!({"type": "imageView", "id": "iv_1", "path": "/w/cat.png"})),
        ]);
        let summary: Vec<(&str, &str, ToolKind, &str)> = parts
            .iter()
            .map(|part| {
                (
                    part.id.as_str(),
                    part.name.as_str(),
                    part.kind,
                    part.state.as_str(),
                )
            })
            .collect();
        assert_eq!(
            summary,
            [
                ("ig_1", "imageGeneration", ToolKind::Unknown, "complete"),
                ("sl_1", "sleep", ToolKind::Unknown, "complete"),
                ("iv_1", "imageView", ToolKind::FileRead, "complete"),
            ]
        );
        // The image data stays out of the part; where it was saved is the output.
        assert_eq!(parts[0].output.as_deref(), Some(&json!("/w/cat.png")));
    }
}
