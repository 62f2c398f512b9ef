//! What both Codex dialects share: the facts of one thread item, how it stands, and the
//! correlation of subagent threads with the calls that started them.

use std::collections::VecDeque;

use serde_json::{Value, json};
use toolnorm::{ErrorCode, JsonObject, Payload, Timestamp, ToolError, ToolKind, meta};

use super::threads::Threads;
use crate::track::Facts;
use crate::track::{Ending, MCP_TOOL_FAILED, Sighting, exit_error, text_error};

/// How an item stands.
#[derive(Debug)]
pub(super) enum Outcome {
    InProgress,
    Completed(Option<Payload>),
    Failed(ToolError),
}

/// An item of a type this version does not know, read by what identifies a call (its
/// `id` and `type`): a call of that name, its other fields the input, ended when the
/// item is (`completed`). `None` when the item has no id.
pub(super) fn unknown_item(raw: &str, completed: bool) -> Option<(String, ItemFacts)> {
    #[derive(serde::Deserialize)]
    struct Unknown {
        id: String,
        #[serde(rename = "type")]
        kind: String,
        #[serde(flatten)]
        rest: JsonObject,
    }
    let Unknown { id, kind, rest } = serde_json::from_str(raw).ok()?;
    let mut sighting = Sighting::new(id, kind.clone(), Value::Object(rest));
    sighting.metadata = item_metadata(&kind);
    let outcome = if completed {
        Outcome::Completed(None)
    } else {
        Outcome::InProgress
    };
    Some((kind, ItemFacts::new(sighting, outcome)))
}

/// What one thread item says about its call, in either dialect.
#[derive(Debug)]
pub(super) struct ItemFacts {
    pub sighting: Sighting,
    pub outcome: Outcome,
    pub started_at: Option<Timestamp>,
    pub completed_at: Option<Timestamp>,
    pub elapsed_ms: Option<u64>,
    /// For a subagent start: the thread the agent runs in.
    pub agent_thread: Option<String>,
    /// For an agent spawn call (`spawnAgent`): the threads it spawned, as its receivers
    /// (known once the spawn completes).
    pub spawned_threads: Vec<String>,
}

impl ItemFacts {
    pub(super) fn new(sighting: Sighting, outcome: Outcome) -> Self {
        ItemFacts {
            sighting,
            outcome,
            started_at: None,
            completed_at: None,
            elapsed_ms: None,
            agent_thread: None,
            spawned_threads: Vec::new(),
        }
    }

    pub(super) fn times(
        mut self,
        started: Option<i64>,
        completed: Option<i64>,
        duration: Option<i64>,
    ) -> Self {
        self.started_at = started.map(Timestamp::from);
        self.completed_at = completed.map(Timestamp::from);
        self.elapsed_ms = duration.and_then(|ms| u64::try_from(ms).ok());
        self
    }
}

pub(super) fn object(pairs: impl IntoIterator<Item = (&'static str, Value)>) -> JsonObject {
    pairs
        .into_iter()
        .filter(|(_, value)| !value.is_null())
        .map(|(key, value)| (key.to_owned(), value))
        .collect()
}

pub(super) fn item_metadata(item_type: &str) -> JsonObject {
    object([(meta::ITEM_TYPE, Value::from(item_type))])
}

/// How an item stands, in the words both dialects share (each maps its own generated
/// status enums here, exhaustively).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(super) enum Status {
    InProgress,
    Completed,
    Failed,
    /// The user declined it (app-server only).
    Declined,
}

/// A shell command's end: output (a JSON string) on success, `exit_code` on a non-zero
/// exit, `permission_denied` when the user declined it.
pub(super) fn command_outcome(
    status: Status,
    exit_code: Option<i64>,
    output: Option<Payload>,
) -> Outcome {
    match (status, exit_code) {
        (Status::InProgress, _) => Outcome::InProgress,
        (Status::Declined, _) => Outcome::Failed(
            ToolError::new("the command was declined").with_code(ErrorCode::PermissionDenied),
        ),
        (_, Some(code)) if code != 0 => Outcome::Failed(exit_error(
            code,
            output.map_or_else(|| Value::from(""), Value::from),
        )),
        // The text read for the message, not kept parsed in the output.
        (Status::Failed, _) => Outcome::Failed(match output.as_ref().and_then(Payload::text) {
            Some(text) if !text.trim().is_empty() => text_error(&text),
            _ => ToolError::new("the command failed"),
        }),
        (Status::Completed, _) => Outcome::Completed(output),
    }
}

pub(super) fn command_facts(
    id: String,
    command: String,
    cwd: Option<String>,
    outcome: Outcome,
    item_type: &str,
) -> ItemFacts {
    let input = Value::Object(object([
        ("command", Value::from(command)),
        ("cwd", cwd.map_or(Value::Null, Value::from)),
    ]));
    let mut sighting = Sighting::new(id, "commandExecution", input);
    sighting.metadata = item_metadata(item_type);
    ItemFacts::new(sighting, outcome)
}

/// What a file change does to its file.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(super) enum ChangeKind {
    Add,
    Delete,
    Update,
}

impl ChangeKind {
    /// Its name in the call's input and output (both dialects spell it so).
    pub(super) fn as_str(self) -> &'static str {
        match self {
            ChangeKind::Add => "add",
            ChangeKind::Delete => "delete",
            ChangeKind::Update => "update",
        }
    }
}

/// One change of a file change item.
#[derive(Debug)]
pub(super) struct Change {
    pub path: String,
    pub kind: ChangeKind,
    /// The diff, when the dialect gives it.
    pub diff: Option<String>,
}

/// File changes. Their kind and title are the rules' (`rules.toml`), read from the
/// input's `changes` (path and kind of each); only the title of several files, which
/// counts them, is given here: no title template counts.
pub(super) fn file_change_facts(
    id: String,
    changes: Vec<Change>,
    status: Status,
    item_type: &str,
) -> ItemFacts {
    let input_changes: Vec<Value> = changes
        .iter()
        .map(|change| json!({ "path": change.path, "kind": change.kind.as_str() }))
        .collect();
    let mut sighting = Sighting::new(id, "fileChange", json!({ "changes": input_changes }));
    sighting.metadata = item_metadata(item_type);
    if let [_, _, ..] = changes.as_slice() {
        let all_added = changes.iter().all(|change| change.kind == ChangeKind::Add);
        let verb = if all_added { "Writing" } else { "Editing" };
        sighting.title = Some(format!("{verb} {} files", changes.len()));
    }
    let outcome = match status {
        Status::InProgress => Outcome::InProgress,
        Status::Declined => Outcome::Failed(
            ToolError::new("the change was declined").with_code(ErrorCode::PermissionDenied),
        ),
        Status::Failed => Outcome::Failed(ToolError::new("the patch did not apply")),
        Status::Completed => {
            let output: Vec<Value> = changes
                .into_iter()
                .map(|Change { path, kind, diff }| {
                    let mut change = json!({ "path": path, "kind": kind.as_str() });
                    if let (Some(diff), Some(change)) = (diff, change.as_object_mut()) {
                        change.insert("diff".into(), diff.into());
                    }
                    change
                })
                .collect();
            Outcome::Completed(Some(json!({ "changes": output }).into()))
        }
    };
    ItemFacts::new(sighting, outcome)
}

/// A collab (subagent) tool call. Its kind is its rule's; a tool no rule knows (one a
/// newer Codex adds) is still a subagent call.
pub(super) fn collab_sighting(
    id: String,
    tool: String,
    input: Value,
    item_type: &str,
    out: &Facts<'_>,
) -> Sighting {
    let mut sighting = Sighting::new(id, tool, input);
    sighting.metadata = item_metadata(item_type);
    if !out.is_builtin(&sighting.name) {
        sighting.kind = Some(ToolKind::Subagent);
    }
    sighting
}

/// An MCP tool call item, in either dialect.
pub(super) struct McpItem {
    pub id: String,
    pub server: String,
    pub tool: String,
    pub arguments: Value,
    pub status: Status,
    pub result: Option<Value>,
    pub error: Option<String>,
}

pub(super) fn mcp_facts(item: McpItem, item_type: &str) -> ItemFacts {
    let McpItem {
        id,
        server,
        tool,
        arguments,
        status,
        result,
        error,
    } = item;
    let mut sighting = Sighting::new(id, tool.clone(), arguments);
    sighting.mcp = Some((server, tool));
    sighting.metadata = item_metadata(item_type);
    let outcome = match (status, error) {
        (Status::InProgress, _) => Outcome::InProgress,
        (_, Some(message)) => {
            Outcome::Failed(ToolError::new(message).with_code(ErrorCode::McpError))
        }
        (Status::Failed | Status::Declined, None) => Outcome::Failed(match result {
            Some(result) => {
                let message = result_text(&result).unwrap_or_else(|| MCP_TOOL_FAILED.to_owned());
                ToolError::new(message)
                    .with_code(ErrorCode::McpError)
                    .with_details(result)
            }
            None => ToolError::new(MCP_TOOL_FAILED).with_code(ErrorCode::McpError),
        }),
        (Status::Completed, None) => Outcome::Completed(result.map(Payload::from)),
    };
    ItemFacts::new(sighting, outcome)
}

/// The text blocks of an MCP result (`content[].text`), joined.
fn result_text(result: &Value) -> Option<String> {
    let texts: Vec<&str> = result
        .get("content")?
        .as_array()?
        .iter()
        .filter_map(|block| block.get("text").and_then(Value::as_str))
        .collect();
    (!texts.is_empty()).then(|| texts.join("\n"))
}

pub(super) fn web_search_facts(
    id: String,
    query: String,
    action: Option<Value>,
    results: Option<Value>,
    done: bool,
    item_type: &str,
) -> ItemFacts {
    let mut input = object([("query", Value::from(query))]);
    if let Some(action) = &action {
        input.insert(meta::ACTION.into(), action.clone());
    }
    let mut sighting = Sighting::new(id, "webSearch", Value::Object(input));
    sighting.metadata = item_metadata(item_type);
    if let Some(action) = action {
        sighting.metadata.insert(meta::ACTION.into(), action);
    }
    let outcome = if done {
        Outcome::Completed(results.map(Payload::from))
    } else {
        Outcome::InProgress
    };
    ItemFacts::new(sighting, outcome)
}

/// Shared handling of item facts: sightings, ends, subagent threads ([`Threads`]: a call
/// made in a subagent's thread carries `metadata.parentToolCallId`, the call that started
/// that thread).
pub(super) struct Items {
    threads: Threads,
    /// Web searches seen (id, `input.action`), oldest first, whose rollout
    /// `web_search_call` has not come yet: one that comes without an id is the first of
    /// the same action.
    searches: VecDeque<(String, Option<Value>)>,
}

/// At most this many web searches wait for their `web_search_call`.
const MAX_SEARCHES: usize = 64;

impl Items {
    pub(super) fn new() -> Self {
        Items {
            threads: Threads::default(),
            searches: VecDeque::new(),
        }
    }

    /// A thread started: a root (no `parent`), or a subagent's thread spawned from the
    /// thread `parent` ([`Threads::started`]).
    pub(super) fn thread_started(
        &mut self,
        line: u64,
        thread: &str,
        parent: Option<&str>,
        out: &mut Facts<'_>,
    ) {
        self.threads.started(line, thread, parent, out);
    }

    /// The stream ended: the call ends held for a parent that never came are applied.
    pub(super) fn finish(&mut self, line: u64, out: &mut Facts<'_>) {
        self.threads.release(line, out);
    }

    /// An item was seen (started, updated or completed) on `thread`.
    pub(super) fn seen(
        &mut self,
        line: u64,
        facts: ItemFacts,
        thread: Option<&str>,
        out: &mut Facts<'_>,
    ) {
        self.seen_then(line, facts, thread, out, |_, _| {});
    }

    /// As [`seen`](Self::seen), with `sighted` applied once the item's call is open and
    /// before it ends (an approval request that came before the item).
    pub(super) fn seen_then(
        &mut self,
        line: u64,
        mut facts: ItemFacts,
        thread: Option<&str>,
        out: &mut Facts<'_>,
        sighted: impl FnOnce(&str, &mut Facts<'_>),
    ) {
        let id = facts.sighting.id.clone();
        if let Some(thread) = thread {
            match self.threads.parent(thread) {
                Some(parent) => {
                    facts
                        .sighting
                        .metadata
                        .insert(meta::PARENT_TOOL_CALL_ID.into(), parent.as_str().into());
                }
                None => self.threads.seen(thread, &id),
            }
        }
        if let Some(agent_thread) = facts.agent_thread.take() {
            self.threads.link(line, &agent_thread, &id, thread, out);
        }
        let spawned = std::mem::take(&mut facts.spawned_threads);
        if let (Some(thread), true) = (thread, facts.sighting.name == "spawnAgent") {
            let open = spawned.is_empty() && matches!(facts.outcome, Outcome::InProgress);
            self.threads.spawn_seen(thread, &id, open);
        }
        if facts.sighting.name == "webSearch" && !self.searches.iter().any(|(seen, _)| *seen == id)
        {
            if self.searches.len() == MAX_SEARCHES {
                self.searches.pop_front();
            }
            let action = facts.sighting.input.get(meta::ACTION).cloned();
            self.searches.push_back((id.clone(), action));
        }
        // A call that already ended (its approval was denied before the item's end came)
        // only takes the item's end.
        let ended = out.finished(&id).is_some() && !out.is_other_sessions(&id);
        // The client's answer to a request that came before the item (a refusal or a
        // cancellation) ends the call as the item is sighted: the item's end adds nothing.
        let mut ended_by_answer = false;
        if !ended {
            let was_open = out.is_open(&id);
            facts.sighting.at = facts.started_at.clone();
            out.sighted(line, facts.sighting);
            if !was_open {
                out.running(line, &id, facts.started_at.clone());
            }
            sighted(&id, out);
            ended_by_answer = out.finished(&id).is_some();
        }
        for spawned in spawned {
            self.threads.link(line, &spawned, &id, thread, out);
        }
        if ended_by_answer {
            return;
        }
        // The sighting above already brought the call to this input (and its title).
        let ending = Ending::at(facts.completed_at).elapsed_ms(facts.elapsed_ms);
        if matches!(facts.outcome, Outcome::InProgress) {
            return;
        }
        // In a subagent's thread whose spawning call is not known yet, the end waits.
        match self.threads.end(thread, &id, facts.outcome, ending) {
            Some((Outcome::Completed(output), ending)) => out.complete(line, &id, output, ending),
            Some((Outcome::Failed(error), ending)) => out.fail(line, &id, error, ending),
            Some((Outcome::InProgress, _)) | None => {}
        }
    }

    /// A rollout `web_search_call` of this id came: it waits no more.
    pub(super) fn search_answered(&mut self, id: &str) {
        self.searches.retain(|(seen, _)| seen != id);
    }

    /// A rollout `web_search_call` without an id: the web search seen before it with the
    /// same action that has had no `web_search_call` yet, if there is one.
    pub(super) fn search_without_id(&mut self, action: Option<&Value>) -> Option<String> {
        let index = self
            .searches
            .iter()
            .position(|(_, seen)| seen.as_ref() == action)?;
        self.searches.remove(index).map(|(id, _)| id)
    }

    /// A subagent finished: the call that started its thread completes.
    pub(super) fn agent_finished(
        &mut self,
        line: u64,
        thread: &str,
        at: Option<Timestamp>,
        failed: Option<&'static str>,
        out: &mut Facts<'_>,
    ) {
        let Some(call) = self.threads.parent(thread).cloned() else {
            return;
        };
        if !out.is_open(&call) {
            return;
        }
        let ending = Ending {
            at,
            ..Ending::default()
        };
        match failed {
            None => out.complete(line, &call, None::<Payload>, ending),
            Some(status) => out.fail(
                line,
                &call,
                ToolError::new(format!("the agent was {status}")).with_code(status),
                ending,
            ),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn command_outcomes() {
        assert!(matches!(
            command_outcome(Status::Completed, Some(0), Some("ok".into())),
            Outcome::Completed(Some(_))
        ));
        let Outcome::Failed(error) = command_outcome(Status::Failed, Some(3), Some("boom".into()))
        else {
            panic!()
        };
        assert_eq!(error.code, Some(ErrorCode::ExitCode));
        assert_eq!(
            error.details.as_deref(),
            Some(&json!({"exitCode": 3, "output": "boom"}))
        );
        let Outcome::Failed(error) = command_outcome(Status::Declined, None, None) else {
            panic!()
        };
        assert_eq!(error.code, Some(ErrorCode::PermissionDenied));
        assert!(matches!(
            command_outcome(Status::InProgress, None, None),
            Outcome::InProgress
        ));
    }

    #[test]
    fn the_rules_title_one_file_the_adapter_several() {
        let add = |path: &str| Change {
            path: path.into(),
            kind: ChangeKind::Add,
            diff: None,
        };
        let sight = |changes| {
            file_change_facts("c".into(), changes, Status::InProgress, "fileChange").sighting
        };
        let one = sight(vec![add("/w/a")]);
        assert_eq!((one.kind, one.title), (None, None));
        let two = sight(vec![add("/w/a"), add("/w/b")]);
        assert_eq!(
            (two.kind, two.title.as_deref()),
            (None, Some("Writing 2 files"))
        );
    }
}
