//! Subagents: the `system` `task_*` messages about the task a call spawned, and the
//! subagent calls launched in the background, which end with their `task_notification`.
//!
//! What is known of a call's task is its `metadata.task` object, merged as updates come
//! (`taskId`, `description`, `subagentType`, `taskType`, `parentTaskId`, `workflowName`,
//! `status`, `progress`, `summary`, `lastToolName`, `toolUses`, `error`, `background`).

use foldhash::{HashMap, HashSet};

use serde::Deserialize;
use serde_json::Value;
use toolnorm::{JsonObject, Timestamp, ToolError, meta};
use toolnorm_wire::claude_messages as wire;

use crate::track::{Ending, Facts};

/// What is read of a structured result (`tool_use_result`, which can repeat the whole
/// output): whether it launched a background agent, and which.
#[derive(Deserialize, Clone)]
pub(super) struct Launch {
    #[serde(default)]
    status: Option<Value>,
    #[serde(default, rename = "agentId")]
    agent_id: Option<Value>,
}

impl Launch {
    /// A result with this `status` and `agentId`.
    pub fn of(status: Option<Value>, agent_id: Option<Value>) -> Self {
        Launch { status, agent_id }
    }

    /// The subagent the call ran (or launched), when its result names it.
    pub fn agent(&self) -> Option<&str> {
        self.agent_id.as_ref().and_then(Value::as_str)
    }

    /// Whether the call launched its subagent in the background (`async_launched`): the
    /// result is not its end.
    pub fn in_background(&self) -> bool {
        self.status.as_ref().and_then(Value::as_str) == Some("async_launched")
    }
}

/// How a subagent task stopped.
struct TaskEnd {
    /// Its status as the provider names it (`completed`, `failed`, `stopped`, …).
    status: String,
    /// Whether it completed (else it failed or was stopped).
    completed: bool,
    /// What it reports: the call's output, or its error message.
    summary: String,
    /// When.
    at: Option<Timestamp>,
}

/// The subagent tasks of a stream, and the calls that spawned them.
#[derive(Debug, Default)]
pub(super) struct Tasks {
    /// Subagent task id → the call that spawned it.
    spawned_by: HashMap<String, String>,
    /// The `metadata.task` object of each call with a task, merged as updates come.
    metadata: HashMap<String, JsonObject>,
    /// Subagent calls launched in the background, waiting for their notification.
    background: HashSet<String>,
    /// Subagent (agent id) → the call that ran it, as its result names it, for the
    /// transcript lines of the subagent's sidechain.
    agents: HashMap<String, String>,
}

impl Tasks {
    /// The call that ran (or launched) subagent `agent`, once its result said so.
    pub fn spawner(&self, agent: &str) -> Option<&str> {
        self.agents.get(agent).map(String::as_str)
    }

    /// A call's result names the subagent it ran.
    pub fn ran(&mut self, agent: &str, call: &str) {
        self.agents.insert(agent.to_owned(), call.to_owned());
    }

    /// `task_started`: the task of a call.
    pub fn started(
        &mut self,
        line: u64,
        started: wire::SdkTaskStartedMessage,
        out: &mut Facts<'_>,
    ) {
        let Some(call) = started.tool_use_id else {
            return;
        };
        self.spawned_by
            .insert(started.task_id.clone(), call.clone());
        let mut task = JsonObject::new();
        task.insert("taskId".into(), started.task_id.into());
        task.insert("description".into(), started.description.into());
        if let Some(kind) = started.subagent_type {
            task.insert("subagentType".into(), kind.into());
        }
        if let Some(kind) = started.task_type {
            task.insert("taskType".into(), kind.into());
        }
        if let Some(parent) = started.parent_task_id {
            task.insert("parentTaskId".into(), parent.into());
        }
        if let Some(workflow) = started.workflow_name {
            task.insert("workflowName".into(), workflow.into());
        }
        if started.is_backgrounded == Some(true) {
            task.insert("background".into(), true.into());
        }
        task.insert("status".into(), "running".into());
        self.update(line, &call, task, out);
    }

    /// `task_progress`: what the subagent is doing.
    pub fn progress(
        &mut self,
        line: u64,
        progress: wire::SdkTaskProgressMessage,
        out: &mut Facts<'_>,
    ) {
        let Some(call) = progress
            .tool_use_id
            .or_else(|| self.spawned_by.get(&progress.task_id).cloned())
        else {
            return;
        };
        let mut task = JsonObject::new();
        task.insert(meta::PROGRESS.into(), progress.description.into());
        if let Some(tool) = progress.last_tool_name {
            task.insert("lastToolName".into(), tool.into());
        }
        if let Some(summary) = progress.summary {
            task.insert("summary".into(), summary.into());
        }
        task.insert("toolUses".into(), progress.usage.tool_uses.into());
        self.update(line, &call, task, out);
    }

    /// `task_updated`: the task's status or error changed.
    pub fn updated(
        &mut self,
        line: u64,
        updated: wire::SdkTaskUpdatedMessage,
        out: &mut Facts<'_>,
    ) {
        let Some(call) = self.spawned_by.get(&updated.task_id).cloned() else {
            return;
        };
        let mut task = JsonObject::new();
        if let Some(status) = updated.patch.status {
            task.insert("status".into(), status.to_string().into());
        }
        if let Some(error) = updated.patch.error {
            task.insert("error".into(), error.into());
        }
        if let Some(description) = updated.patch.description {
            task.insert("description".into(), description.into());
        }
        if let Some(background) = updated.patch.is_backgrounded {
            task.insert("background".into(), background.into());
        }
        if !task.is_empty() {
            self.update(line, &call, task, out);
        }
    }

    /// `task_notification`: the task ended; a call that launched it in the background
    /// ends with it, completed with the task's summary or failed with `task_<status>`.
    pub fn notification(
        &mut self,
        line: u64,
        notification: wire::SdkTaskNotificationMessage,
        at: Option<Timestamp>,
        out: &mut Facts<'_>,
    ) {
        let Some(call) = notification
            .tool_use_id
            .clone()
            .or_else(|| self.spawned_by.get(&notification.task_id).cloned())
        else {
            return;
        };
        self.spawned_by.remove(&notification.task_id);
        if let Some(usage) = &notification.usage {
            let mut task = JsonObject::new();
            task.insert("toolUses".into(), usage.tool_uses.into());
            self.update(line, &call, task, out);
        }
        let completed = match notification.status {
            wire::SdkTaskNotificationMessageStatus::Completed => true,
            wire::SdkTaskNotificationMessageStatus::Failed
            | wire::SdkTaskNotificationMessageStatus::Stopped => false,
        };
        let end = TaskEnd {
            status: notification.status.to_string(),
            completed,
            summary: notification.summary,
            at,
        };
        self.ended(line, &call, end, out);
    }

    /// A `<task-notification>` as a transcript records it: the message Claude Code sends
    /// itself when a background subagent stops, naming the call (`<tool-use-id>`), the
    /// `<status>` and the `<result>`. It ends the call as a `task_notification` does.
    pub fn notified_in_text(
        &mut self,
        line: u64,
        text: &str,
        at: Option<Timestamp>,
        out: &mut Facts<'_>,
    ) {
        let tag = |name: &str| -> Option<&str> {
            let open = format!("<{name}>");
            let start = text.find(&open)? + open.len();
            let end = start + text.get(start..)?.find(&format!("</{name}>"))?;
            text.get(start..end).map(str::trim)
        };
        let (Some(call), Some(status)) = (tag("tool-use-id"), tag("status")) else {
            return;
        };
        // The subagent's report (`<result>`) is what `task_notification` calls its summary;
        // `<summary>` is a one-line status ("Agent … finished").
        let summary = tag("result")
            .or_else(|| tag("summary"))
            .unwrap_or_default()
            .to_owned();
        let end = TaskEnd {
            status: status.to_owned(),
            completed: status == "completed",
            summary,
            at,
        };
        self.ended(line, call, end, out);
    }

    /// A subagent task stopped with `status`: the task metadata says so and, for a call
    /// launched in the background, the call ends (its summary the output, or the error
    /// `task_<status>`).
    fn ended(&mut self, line: u64, call: &str, end: TaskEnd, out: &mut Facts<'_>) {
        let TaskEnd {
            status,
            completed,
            summary,
            at,
        } = end;
        let mut changes = JsonObject::new();
        changes.insert("status".into(), status.as_str().into());
        self.update(line, call, changes, out);
        self.metadata.remove(call);
        if !self.background.remove(call) {
            return;
        }
        let ending = Ending::at(at);
        if completed {
            out.complete(line, call, Some(Value::String(summary)), ending);
        } else {
            let error = ToolError::new(summary).with_code(format!("task_{status}"));
            out.fail(line, call, error, ending);
        }
    }

    /// A call's result says it launched its subagent in the background: the call keeps
    /// running, its task marked `background`, until the task's notification.
    pub fn launched(
        &mut self,
        line: u64,
        call: &str,
        launch: &Launch,
        at: Option<Timestamp>,
        out: &mut Facts<'_>,
    ) {
        self.background.insert(call.to_owned());
        let mut task = self.metadata.remove(call).unwrap_or_default();
        task.insert("status".into(), "running".into());
        task.insert("background".into(), true.into());
        if let Some(agent) = launch.agent_id.as_ref().and_then(Value::as_str) {
            task.entry("taskId").or_insert_with(|| agent.into());
            self.spawned_by.insert(agent.to_owned(), call.to_owned());
        }
        self.metadata.insert(call.to_owned(), task.clone());
        out.running(line, call, at);
        out.merge_metadata(line, call, task_metadata(task));
    }

    /// Merges `changes` into the call's `metadata.task`, while the call is open.
    fn update(&mut self, line: u64, call: &str, changes: JsonObject, out: &mut Facts<'_>) {
        if !out.is_open(call) {
            return;
        }
        let task = self.metadata.entry(call.to_owned()).or_default();
        task.extend(changes);
        out.merge_metadata(line, call, task_metadata(task.clone()));
    }
}

/// The metadata to merge for a call's task: `{"task": {…}}`.
fn task_metadata(task: JsonObject) -> JsonObject {
    let mut metadata = JsonObject::new();
    metadata.insert(meta::TASK.into(), Value::Object(task));
    metadata
}

#[cfg(test)]
mod tests {
    use serde_json::{Value, json};
    use toolnorm::ToolState;

    use super::super::tests::part;

    fn agent_call(id: &str) -> Value {
        json!({"type": "assistant", "message": {"content": [{"type": "tool_use", "id": id,
            "name": "Agent", "input": {"description": "Count files", "prompt": "Count them"}}]}})
    }

    fn system(subtype: &str, fields: Value) -> Value {
        let mut line =
            json!({"type": "system", "subtype": subtype, "session_id": "s", "uuid": "u"});
        line.as_object_mut()
            .unwrap()
            .extend(fields.as_object().unwrap().clone());
        line
    }

    fn notification(status: &str, summary: &str) -> Value {
        system(
            "task_notification",
            json!({"task_id": "a1", "status": status, "summary": summary, "output_file": "/t/a1"}),
        )
    }

    #[test]
    fn a_background_subagent_runs_until_its_notification() {
        let launched = json!({"type": "user", "message": {"content": [{"type": "tool_result",
            "tool_use_id": "toolu_1", "content": "Async agent launched"}]},
            "tool_use_result": {"status": "async_launched", "agentId": "a1"}});
        let progress = system(
            "task_progress",
            json!({"task_id": "a1", "description": "Counting", "last_tool_name": "Bash",
                "usage": {"total_tokens": 1, "tool_uses": 2, "duration_ms": 1}}),
        );
        let running = part(&[agent_call("toolu_1"), launched.clone(), progress.clone()]);
        assert_eq!(running.state, ToolState::Running);
        let call = part(&[
            agent_call("toolu_1"),
            launched,
            progress,
            notification("stopped", "Stopped by the user"),
        ]);
        assert_eq!(call.state, ToolState::Error);
        let error = call.error.unwrap();
        assert_eq!(
            (
                error.message.as_str(),
                error.code.as_ref().map(toolnorm::ErrorCode::as_str)
            ),
            ("Stopped by the user", Some("task_stopped"))
        );
        assert_eq!(
            call.metadata.unwrap()["task"],
            json!({"status": "stopped", "background": true, "taskId": "a1",
                "progress": "Counting", "lastToolName": "Bash", "toolUses": 2})
        );
    }

    #[test]
    fn a_transcript_ends_a_background_subagent_at_its_task_notification_message() {
        let launched = json!({"type": "user", "message": {"content": [{"type": "tool_result",
            "tool_use_id": "toolu_1", "content": "Async agent launched"}]},
            "toolUseResult": {"status": "async_launched", "agentId": "a1"}});
        let notice = |status: &str| {
            json!({"type": "user", "message": {"role": "user", "content": format!(
                "<task-notification>\n<task-id>a1</task-id>\n<tool-use-id>toolu_1</tool-use-id>\n\
                 <status>{status}</status>\n<summary>Agent \"Count\" finished</summary>\n\
                 <result>There is 1 file.</result>\n</task-notification>")},
                "timestamp": "2026-01-01T00:00:09.000Z"})
        };
        let done = part(&[agent_call("toolu_1"), launched.clone(), notice("completed")]);
        assert_eq!(done.state, ToolState::Complete);
        assert_eq!(done.output.as_deref(), Some(&json!("There is 1 file.")));
        let failed = part(&[agent_call("toolu_1"), launched.clone(), notice("failed")]);
        assert_eq!(failed.state, ToolState::Error);
        assert_eq!(
            failed
                .error
                .unwrap()
                .code
                .as_ref()
                .map(toolnorm::ErrorCode::as_str),
            Some("task_failed")
        );
        // Without a launch in the background, the message ends nothing.
        let running = part(&[agent_call("toolu_1"), notice("completed")]);
        assert_eq!(running.state, ToolState::Started);
    }

    #[test]
    fn what_the_newer_task_messages_say_goes_into_the_task() {
        let started = system(
            "task_started",
            json!({"task_id": "a1", "tool_use_id": "toolu_1", "description": "Count files",
                "subagent_type": "Explore", "is_backgrounded": true, "parent_task_id": "t0",
                "workflow_name": "review", "prompt": "Count them", "run_id": "r1"}),
        );
        let progress = system(
            "task_progress",
            json!({"task_id": "a1", "tool_use_id": "toolu_1", "description": "Counting",
                "summary": "Counted 2 of 3", "usage": {"total_tokens": 1, "tool_uses": 2,
                "duration_ms": 1}}),
        );
        let updated = system(
            "task_updated",
            json!({"task_id": "a1", "patch": {"description": "Count all files",
                "is_backgrounded": false, "status": "running", "end_time": 1}}),
        );
        let notified = system(
            "task_notification",
            json!({"task_id": "a1", "tool_use_id": "toolu_1", "status": "completed",
                "summary": "3", "output_file": "/t/a1", "usage": {"total_tokens": 1,
                "tool_uses": 3, "duration_ms": 1}}),
        );
        let call = part(&[agent_call("toolu_1"), started, progress, updated, notified]);
        assert_eq!(
            call.metadata.unwrap()["task"],
            json!({"taskId": "a1", "description": "Count all files", "subagentType": "Explore",
                "parentTaskId": "t0", "workflowName": "review", "background": false,
                "status": "completed", "progress": "Counting", "summary": "Counted 2 of 3",
                "toolUses": 3})
        );
    }

    #[test]
    fn a_subagent_in_the_foreground_ends_with_its_result() {
        let started = system(
            "task_started",
            json!({"task_id": "a1", "tool_use_id": "toolu_1", "description": "Count files",
                "subagent_type": "general-purpose"}),
        );
        let result = json!({"type": "user", "message": {"content": [{"type": "tool_result",
            "tool_use_id": "toolu_1", "content": "3 files"}]}});
        let lines = [
            agent_call("toolu_1"),
            started,
            notification("completed", "3 files"),
        ];
        let open = part(&lines);
        assert!(!open.state.is_terminal(), "{open:?}");
        assert_eq!(open.metadata.unwrap()["task"]["status"], "completed");
        let call = part(&[lines.as_slice(), &[result]].concat());
        assert_eq!(call.state, ToolState::Complete);
        assert_eq!(call.output.as_deref(), Some(&json!("3 files")));
        assert_eq!(
            call.metadata.unwrap()["task"],
            json!({"taskId": "a1", "description": "Count files",
                "subagentType": "general-purpose", "status": "completed"})
        );
    }
}
