//! Codex: the app-server v2 protocol (`codex app-server`, JSON-RPC lines) and
//! `codex exec --json` (`item.started|updated|completed`).
//!
//! Both dialects describe tool calls as thread items that start and complete with their
//! whole state. Each item becomes [`ItemFacts`] (what the item says, whatever the
//! dialect); the adapters turn facts into canonical events.
//!
//! | item | name | input | output / error |
//! | --- | --- | --- | --- |
//! | commandExecution | `commandExecution` | `command`, `cwd` | `aggregatedOutput`; non-zero exit → `exit_code`; declined → `permission_denied` |
//! | fileChange | `fileChange` | `changes` (path, kind) | `changes` with diffs; declined → `permission_denied` |
//! | mcpToolCall | the MCP tool | `arguments` | `result`; `error.message` |
//! | dynamicToolCall | the tool | `arguments` | `contentItems`; `success: false` |
//! | webSearch | `webSearch` | `query`, `action` | `results` |
//! | collabAgentToolCall | the collab tool (`spawnAgent`, `wait`, …) | `prompt`, receivers | `agentsStates` |
//! | subAgentActivity `started` | `subAgentActivity` | agent path and thread | finished by the activity `completed` of the same agent thread |
//!
//! Calls made inside a subagent thread carry `metadata.parentToolCallId`: the call that
//! started that thread. Approval requests and their resolution go to `metadata.approval`.

use std::borrow::Cow;
use std::collections::HashMap;

use serde::Deserialize;
use serde_json::value::RawValue;
use serde_json::{Value, json};
use toolnorm::{JsonObject, Timestamp, ToolError, ToolKind};
use toolnorm_wire::codex_app_server as app;
use toolnorm_wire::codex_exec as exec;

use crate::Dialect;
use crate::diagnostic::{Diagnostic, DiagnosticKind};
use crate::providers::Adapter;
use crate::read::json;
use crate::rules::relative_to;
use crate::track::Facts;
use crate::track::{Ending, Sighting, exit_error, text_error};

use crate::read::probe::Probe;

/// Whether a line is the Codex app-server's: JSON-RPC without `"jsonrpc"`, whose method
/// is a `noun/verb` path other than ACP's `session/…`.
pub(crate) fn claims_app_server(probe: &Probe<'_>) -> bool {
    probe.jsonrpc.as_deref() != Some("2.0")
        && probe
            .method
            .as_deref()
            .is_some_and(|method| method.contains('/') && !method.starts_with("session/"))
}

/// Whether a line is `codex exec --json`'s: a `thread.*`, `turn.*` or `item.*` event.
pub(crate) fn claims_exec(probe: &Probe<'_>) -> bool {
    probe.method.is_none()
        && probe.payload.is_none()
        && probe.properties.is_none()
        && probe.kind().is_some_and(|kind| {
            ["thread.", "turn.", "item."]
                .iter()
                .any(|prefix| kind.starts_with(prefix))
        })
}

/// How an item stands.
#[derive(Debug)]
enum Outcome {
    InProgress,
    Completed(Option<Value>),
    Failed(ToolError),
}

/// What one thread item says about its call, in either dialect.
#[derive(Debug)]
struct ItemFacts {
    sighting: Sighting,
    outcome: Outcome,
    started_at: Option<Timestamp>,
    completed_at: Option<Timestamp>,
    elapsed_ms: Option<u64>,
    /// For a subagent start: the thread the agent runs in.
    agent_thread: Option<String>,
}

impl ItemFacts {
    fn new(sighting: Sighting, outcome: Outcome) -> Self {
        ItemFacts {
            sighting,
            outcome,
            started_at: None,
            completed_at: None,
            elapsed_ms: None,
            agent_thread: None,
        }
    }

    fn times(
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

fn object(pairs: impl IntoIterator<Item = (&'static str, Value)>) -> JsonObject {
    pairs
        .into_iter()
        .filter(|(_, value)| !value.is_null())
        .map(|(key, value)| (key.to_owned(), value))
        .collect()
}

fn item_metadata(item_type: &str) -> JsonObject {
    object([("itemType", Value::from(item_type))])
}

/// A shell command's end: output on success, `exit_code` on a non-zero exit,
/// `permission_denied` when the user declined it.
fn command_outcome(status: &str, exit_code: Option<i64>, output: Option<String>) -> Outcome {
    match (status, exit_code) {
        ("inProgress" | "in_progress", _) => Outcome::InProgress,
        ("declined", _) => Outcome::Failed(
            ToolError::new("the command was declined").with_code("permission_denied"),
        ),
        (_, Some(code)) if code != 0 => {
            Outcome::Failed(exit_error(code, output.unwrap_or_default()))
        }
        ("failed", _) => Outcome::Failed(match output.as_deref() {
            Some(text) if !text.trim().is_empty() => text_error(text),
            _ => ToolError::new("the command failed"),
        }),
        _ => Outcome::Completed(output.map(Value::String)),
    }
}

fn command_facts(
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

/// File changes: `file_write` when every change adds a file, else `file_edit`; a title
/// naming the count when there are several files.
fn file_change_facts(
    id: String,
    changes: Vec<(String, &'static str, Option<String>)>,
    status: &str,
    cwd: Option<&str>,
    item_type: &str,
) -> ItemFacts {
    let input_changes: Vec<Value> = changes
        .iter()
        .map(|(path, kind, _)| json!({ "path": path, "kind": kind }))
        .collect();
    let all_added = !changes.is_empty() && changes.iter().all(|(_, kind, _)| *kind == "add");
    let mut sighting = Sighting::new(id, "fileChange", json!({ "changes": input_changes }));
    sighting.metadata = item_metadata(item_type);
    sighting.kind = Some(if all_added {
        ToolKind::FileWrite
    } else {
        ToolKind::FileEdit
    });
    let verb = if all_added { "Writing" } else { "Editing" };
    sighting.title = Some(match changes.as_slice() {
        [(path, _, _)] => format!("{verb} {}", relative_to(path, cwd)),
        [] => format!("{verb} files"),
        many => format!("{verb} {} files", many.len()),
    });
    let outcome = match status {
        "inProgress" | "in_progress" => Outcome::InProgress,
        "declined" => Outcome::Failed(
            ToolError::new("the change was declined").with_code("permission_denied"),
        ),
        "failed" => Outcome::Failed(ToolError::new("the patch did not apply")),
        _ => {
            let output: Vec<Value> = changes
                .into_iter()
                .map(|(path, kind, diff)| {
                    let mut change = json!({ "path": path, "kind": kind });
                    if let (Some(diff), Some(change)) = (diff, change.as_object_mut()) {
                        change.insert("diff".into(), diff.into());
                    }
                    change
                })
                .collect();
            Outcome::Completed(Some(json!({ "changes": output })))
        }
    };
    ItemFacts::new(sighting, outcome)
}

/// An MCP tool call item, in either dialect.
struct McpItem<'a> {
    id: String,
    server: String,
    tool: String,
    arguments: Value,
    status: &'a str,
    result: Option<Value>,
    error: Option<String>,
}

fn mcp_facts(item: McpItem<'_>, item_type: &str) -> ItemFacts {
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
        ("inProgress" | "in_progress", _) => Outcome::InProgress,
        (_, Some(message)) => Outcome::Failed(ToolError::new(message).with_code("mcp_error")),
        ("failed", None) => Outcome::Failed(match result {
            Some(result) => {
                let message =
                    result_text(&result).unwrap_or_else(|| "the MCP tool failed".to_owned());
                ToolError::new(message)
                    .with_code("mcp_error")
                    .with_details(result)
            }
            None => ToolError::new("the MCP tool failed").with_code("mcp_error"),
        }),
        _ => Outcome::Completed(result),
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

fn web_search_facts(
    id: String,
    query: String,
    action: Option<Value>,
    results: Option<Value>,
    done: bool,
    item_type: &str,
) -> ItemFacts {
    let mut input = object([("query", Value::from(query))]);
    if let Some(action) = &action {
        input.insert("action".into(), action.clone());
    }
    let mut sighting = Sighting::new(id, "webSearch", Value::Object(input));
    sighting.metadata = item_metadata(item_type);
    if let Some(action) = action {
        sighting.metadata.insert("action".into(), action);
    }
    let outcome = if done {
        Outcome::Completed(results)
    } else {
        Outcome::InProgress
    };
    ItemFacts::new(sighting, outcome)
}

/// Facts of an app-server item; `None` for items that are not tool calls.
fn app_item_facts(item: app::ThreadItem, cwd: Option<&str>) -> Option<ItemFacts> {
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
        } => command_facts(
            id,
            command,
            Some(command_cwd.0),
            command_outcome(
                &status.to_string(),
                exit_code.map(i64::from),
                aggregated_output,
            ),
            "commandExecution",
        )
        .times(started_at_ms, completed_at_ms, duration_ms),
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
                .map(|change| (change.path, patch_kind_app(&change.kind), Some(change.diff)))
                .collect();
            file_change_facts(id, changes, &status.to_string(), cwd, "fileChange").times(
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
            let result = result.and_then(|result| serde_json::to_value(result).ok());
            let status = status.to_string();
            let item = McpItem {
                id,
                server,
                tool,
                arguments,
                status: &status,
                result,
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
                    .insert("namespace".into(), namespace.as_str().into());
                if let Some(server) = namespace
                    .strip_prefix("mcp__")
                    .filter(|server| !server.is_empty())
                {
                    sighting.mcp = Some((server.to_owned(), tool));
                }
            }
            let output = content_items.and_then(|items| serde_json::to_value(items).ok());
            let outcome = match (status.to_string().as_str(), success) {
                ("inProgress", _) => Outcome::InProgress,
                ("failed", _) | (_, Some(false)) => Outcome::Failed(match output {
                    Some(output) => ToolError::new("the tool failed").with_details(output),
                    None => ToolError::new("the tool failed"),
                }),
                _ => Outcome::Completed(output),
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
            let done = completed_at_ms.is_some();
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
            let input = json!({ "prompt": prompt, "model": model, "receiverThreadIds": receiver_thread_ids });
            let mut sighting = Sighting::new(id, tool.to_string(), input);
            sighting.metadata = item_metadata("collabAgentToolCall");
            sighting
                .metadata
                .insert("senderThreadId".into(), sender_thread_id.into());
            sighting.kind = Some(ToolKind::Subagent);
            let states = serde_json::to_value(&agents_states).unwrap_or(Value::Null);
            let outcome = match status.to_string().as_str() {
                "inProgress" => Outcome::InProgress,
                "completed" => Outcome::Completed(Some(states)),
                other => Outcome::Failed(
                    ToolError::new(format!("the agent call {other}"))
                        .with_code(other)
                        .with_details(states),
                ),
            };
            ItemFacts::new(sighting, outcome).times(started_at_ms, completed_at_ms, None)
        }
        Item::SubAgentActivity {
            id,
            kind,
            agent_path,
            agent_thread_id,
            model,
            started_at_ms,
            ..
        } if kind.to_string() == "started" => {
            let input = json!({ "agentPath": agent_path, "agentThreadId": agent_thread_id, "model": model });
            let mut sighting = Sighting::new(id, "subAgentActivity", input);
            sighting.metadata = item_metadata("subAgentActivity");
            sighting
                .metadata
                .insert("childThreadId".into(), agent_thread_id.as_str().into());
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
            let outcome = if completed_at_ms.is_some() {
                Outcome::Completed(None)
            } else {
                Outcome::InProgress
            };
            ItemFacts::new(sighting, outcome).times(started_at_ms, completed_at_ms, None)
        }
        _ => return None,
    };
    Some(facts)
}

fn patch_kind_app(kind: &app::PatchChangeKind) -> &'static str {
    match kind {
        app::PatchChangeKind::Add => "add",
        app::PatchChangeKind::Delete => "delete",
        app::PatchChangeKind::Update { .. } => "update",
    }
}

/// Shared handling of item facts: sightings, ends, subagent threads.
struct Items {
    /// Subagent thread → the call that started it.
    threads: HashMap<String, String>,
}

impl Items {
    fn new() -> Self {
        Items {
            threads: HashMap::new(),
        }
    }

    /// An item was seen (started, updated or completed) on `thread`.
    fn seen(&mut self, line: u64, mut facts: ItemFacts, thread: Option<&str>, out: &mut Facts<'_>) {
        if let Some(parent) = thread.and_then(|thread| self.threads.get(thread)) {
            facts
                .sighting
                .metadata
                .insert("parentToolCallId".into(), parent.as_str().into());
        }
        if let Some(agent_thread) = facts.agent_thread.take() {
            self.threads.insert(agent_thread, facts.sighting.id.clone());
        }
        let id = facts.sighting.id.clone();
        let was_open = out.is_open(&id);
        facts.sighting.at = facts.started_at.clone();
        out.sighted(line, facts.sighting);
        if !was_open {
            out.running(line, &id, facts.started_at.clone());
        }
        // The sighting above already brought the call to this input (and its title).
        let ending = Ending {
            input: None,
            at: facts.completed_at,
            elapsed_ms: facts.elapsed_ms,
        };
        match facts.outcome {
            Outcome::InProgress => {}
            Outcome::Completed(output) => out.complete(line, &id, output, ending),
            Outcome::Failed(error) => out.fail(line, &id, error, ending),
        }
    }

    /// A subagent finished: the call that started its thread completes.
    fn agent_finished(
        &mut self,
        line: u64,
        thread: &str,
        at: Option<Timestamp>,
        failed: Option<String>,
        out: &mut Facts<'_>,
    ) {
        let Some(call) = self.threads.get(thread).cloned() else {
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
            None => out.complete(line, &call, None, ending),
            Some(status) => out.fail(
                line,
                &call,
                ToolError::new(format!("the agent was {status}")).with_code(status),
                ending,
            ),
        }
    }
}

/// A JSON-RPC message as the app-server writes it.
#[derive(Deserialize)]
struct Rpc<'a> {
    #[serde(borrow, default)]
    method: Option<Cow<'a, str>>,
    #[serde(borrow, default)]
    params: Option<&'a RawValue>,
    #[serde(borrow, default)]
    id: Option<&'a RawValue>,
    #[serde(borrow, default)]
    result: Option<&'a RawValue>,
    #[serde(borrow, default)]
    error: Option<&'a RawValue>,
}

/// `params` fields shared by approval requests and their resolution.
#[derive(Deserialize)]
struct RequestParams<'a> {
    #[serde(borrow, default, rename = "itemId")]
    item_id: Option<Cow<'a, str>>,
    #[serde(borrow, default, rename = "requestId")]
    request_id: Option<&'a RawValue>,
    #[serde(borrow, default)]
    reason: Option<Cow<'a, str>>,
}

/// Methods that carry nothing about tool calls.
const IGNORED_METHODS: &[&str] = &[
    "account/rateLimits/updated",
    "account/updated",
    "configWarning",
    "mcpServer/startupStatus/updated",
    "remoteControl/status/changed",
    "thread/status/changed",
    "thread/tokenUsage/updated",
    "thread/name/updated",
    "thread/compacted",
    "thread/archived",
    "turn/started",
    "turn/completed",
    "turn/diff/updated",
    "turn/plan/updated",
    "item/agentMessage/delta",
    "item/reasoning/summaryTextDelta",
    "item/reasoning/summaryPartAdded",
    "item/reasoning/textDelta",
    "item/plan/delta",
    "error",
    "deprecationNotice",
    "sessionConfigured",
];

/// Reads `codex app-server` output (every server line of the JSON-RPC stream).
pub struct CodexAppServerAdapter {
    items: Items,
    /// Approval request id → the item it is about, and its `metadata.approval`.
    approvals: HashMap<String, (String, JsonObject)>,
}

impl CodexAppServerAdapter {
    /// An adapter using these title rules.
    pub fn new() -> Self {
        CodexAppServerAdapter {
            items: Items::new(),
            approvals: HashMap::new(),
        }
    }
}

impl Adapter for CodexAppServerAdapter {
    fn dialect(&self) -> Dialect {
        Dialect::CODEX_APP_SERVER
    }

    fn line(&mut self, line: u64, bytes: &[u8], out: &mut Facts<'_>) {
        let rpc: Rpc<'_> = match json::parse_line(line, bytes, "not a JSON-RPC message") {
            Ok(rpc) => rpc,
            Err(diagnostic) => return out.diagnostic(diagnostic),
        };
        let Some(method) = rpc.method.as_deref() else {
            // A response to a client request (initialize, thread/start, …): no tool in it.
            if rpc.id.is_none() || (rpc.result.is_none() && rpc.error.is_none()) {
                out.diagnostic(Diagnostic::at(
                    line,
                    DiagnosticKind::MalformedEvent,
                    "a JSON-RPC message with neither method nor result",
                ));
            }
            return;
        };
        let params = rpc.params.map_or("{}", RawValue::get);
        match method {
            "thread/started" => self.thread_started(line, params, out),
            "item/started" => match serde_json::from_str::<app::ItemStartedNotification>(params) {
                Ok(started) => self.item(line, started.item, &started.thread_id, out),
                Err(error) => out.diagnostic(json::malformed(line, "item/started", &error)),
            },
            "item/completed" => {
                match serde_json::from_str::<app::ItemCompletedNotification>(params) {
                    Ok(completed) => self.item(line, completed.item, &completed.thread_id, out),
                    Err(error) => out.diagnostic(json::malformed(line, "item/completed", &error)),
                }
            }
            "item/commandExecution/outputDelta" => {
                match serde_json::from_str::<app::CommandExecutionOutputDeltaNotification>(params) {
                    Ok(delta) => out.output(line, &delta.item_id, &delta.delta),
                    Err(error) => out.diagnostic(json::malformed(line, method, &error)),
                }
            }
            "item/fileChange/outputDelta" => {
                match serde_json::from_str::<app::FileChangeOutputDeltaNotification>(params) {
                    Ok(delta) => out.output(line, &delta.item_id, &delta.delta),
                    Err(error) => out.diagnostic(json::malformed(line, method, &error)),
                }
            }
            "item/mcpToolCall/progress" => {
                match serde_json::from_str::<app::McpToolCallProgressNotification>(params) {
                    Ok(progress) => {
                        let metadata = object([("progress", Value::from(progress.message))]);
                        out.merge_metadata(line, &progress.item_id, metadata);
                    }
                    Err(error) => out.diagnostic(json::malformed(line, method, &error)),
                }
            }
            "serverRequest/resolved" => self.resolved(line, params, out),
            method if method.ends_with("/requestApproval") => {
                self.approval_requested(line, method, rpc.id, params, out)
            }
            method if IGNORED_METHODS.contains(&method) => {}
            method if method.starts_with("codex/event/") => {}
            other => out.diagnostic(Diagnostic::at(
                line,
                DiagnosticKind::UnknownEvent,
                format!("unknown Codex app-server method `{other}`"),
            )),
        }
    }
}

impl CodexAppServerAdapter {
    fn thread_started(&mut self, line: u64, params: &str, out: &mut Facts<'_>) {
        let Ok(value) = serde_json::from_str::<Value>(params) else {
            out.diagnostic(Diagnostic::at(
                line,
                DiagnosticKind::MalformedEvent,
                "thread/started without params",
            ));
            return;
        };
        let thread = value.get("thread");
        let cwd = thread
            .and_then(|thread| {
                thread
                    .pointer("/environments/0/cwd")
                    .or_else(|| thread.get("cwd"))
            })
            .and_then(Value::as_str);
        if let Some(cwd) = cwd {
            out.set_cwd(cwd);
        }
    }

    fn item(&mut self, line: u64, item: app::ThreadItem, thread: &str, out: &mut Facts<'_>) {
        if let app::ThreadItem::SubAgentActivity {
            kind,
            agent_thread_id,
            completed_at_ms,
            ..
        } = &item
        {
            let kind = kind.to_string();
            if kind == "completed" || kind == "interrupted" {
                // The activity is announced (`item/started`), then done (`item/completed`,
                // with its time): the agent's call ends with the latter.
                if let Some(at) = completed_at_ms {
                    let failed = (kind == "interrupted").then(|| "interrupted".to_owned());
                    let at = Some(Timestamp::from(*at));
                    self.items
                        .agent_finished(line, agent_thread_id, at, failed, out);
                }
                return;
            }
        }
        let started_activity_done = matches!(
            &item,
            app::ThreadItem::SubAgentActivity {
                completed_at_ms: Some(_),
                ..
            }
        );
        let Some(facts) = app_item_facts(item, out.cwd()) else {
            return;
        };
        // The activity item that starts an agent completes at once; the call lasts until the agent ends.
        if started_activity_done && out.is_open(&facts.sighting.id) {
            return;
        }
        self.items.seen(line, facts, Some(thread), out);
    }

    fn approval_requested(
        &mut self,
        line: u64,
        method: &str,
        id: Option<&RawValue>,
        params: &str,
        out: &mut Facts<'_>,
    ) {
        let Ok(request) = serde_json::from_str::<RequestParams<'_>>(params) else {
            out.diagnostic(Diagnostic::at(
                line,
                DiagnosticKind::MalformedEvent,
                format!("{method} without params"),
            ));
            return;
        };
        let Some(item) = request.item_id else { return };
        let mut approval = object([
            ("status", Value::from("requested")),
            ("method", Value::from(method)),
        ]);
        if let Some(reason) = request.reason {
            approval.insert("reason".into(), reason.as_ref().into());
        }
        if let Some(id) = id {
            self.approvals
                .insert(id.get().to_owned(), (item.to_string(), approval.clone()));
        }
        out.merge_metadata(line, &item, object([("approval", Value::Object(approval))]));
    }

    fn resolved(&mut self, line: u64, params: &str, out: &mut Facts<'_>) {
        let Ok(RequestParams {
            request_id: Some(request),
            ..
        }) = serde_json::from_str::<RequestParams<'_>>(params)
        else {
            return;
        };
        let Some((item, mut approval)) = self.approvals.remove(request.get()) else {
            return;
        };
        if out.is_open(&item) {
            approval.insert("status".into(), "resolved".into());
            out.merge_metadata(line, &item, object([("approval", Value::Object(approval))]));
        }
    }
}

/// An exec event, read once: its `type`, and its item still raw, to be read with the
/// generated type of the item's kind.
#[derive(Deserialize)]
struct ExecEvent<'a> {
    #[serde(borrow, rename = "type")]
    kind: Option<Cow<'a, str>>,
    #[serde(borrow, default)]
    item: Option<&'a RawValue>,
}

/// The `type` of an item.
#[derive(Deserialize)]
struct ItemProbe<'a> {
    #[serde(borrow, rename = "type")]
    kind: Cow<'a, str>,
}

/// Reads `codex exec --json` output.
pub struct CodexExecAdapter {
    items: Items,
}

impl CodexExecAdapter {
    /// An adapter using these title rules.
    pub fn new() -> Self {
        CodexExecAdapter {
            items: Items::new(),
        }
    }
}

impl Adapter for CodexExecAdapter {
    fn dialect(&self) -> Dialect {
        Dialect::CODEX_EXEC
    }

    fn line(&mut self, line: u64, bytes: &[u8], out: &mut Facts<'_>) {
        let event: ExecEvent<'_> = match json::parse_line(line, bytes, "not a codex exec event") {
            Ok(event) => event,
            Err(diagnostic) => return out.diagnostic(diagnostic),
        };
        let Some(kind) = event.kind.as_deref() else {
            out.diagnostic(Diagnostic::at(
                line,
                DiagnosticKind::MalformedEvent,
                "an event without `type`",
            ));
            return;
        };
        match kind {
            "item.started" | "item.updated" | "item.completed" => {
                let Some(raw) = event.item.map(RawValue::get) else {
                    out.diagnostic(Diagnostic::at(
                        line,
                        DiagnosticKind::MalformedEvent,
                        format!("{kind} without `item`"),
                    ));
                    return;
                };
                let item = match serde_json::from_str::<ItemProbe<'_>>(raw) {
                    Ok(item) => item,
                    Err(error) => {
                        return out.diagnostic(json::malformed(
                            line,
                            "not a codex exec event",
                            &error,
                        ));
                    }
                };
                match exec_item_facts(&item.kind, raw, kind == "item.completed", out.cwd()) {
                    Ok(Some(facts)) => self.items.seen(line, facts, None, out),
                    Ok(None) => {}
                    Err(error) => out.diagnostic(json::malformed(
                        line,
                        &format!("`{}` item", item.kind),
                        &error,
                    )),
                }
            }
            "thread.started" | "turn.started" | "turn.completed" | "turn.failed" | "error" => {}
            other => out.diagnostic(Diagnostic::at(
                line,
                DiagnosticKind::UnknownEvent,
                format!("unknown codex exec event `{other}`"),
            )),
        }
    }
}

/// Reads an exec item with its generated type.
///
/// `codex exec` writes some items with a key twice (`web_search` items carry the item id
/// and then the call id, both as `id`). A JSON reader in JavaScript keeps the last one;
/// so does this, rather than reject the line.
fn read_item<T: serde::de::DeserializeOwned>(raw: &str) -> Result<T, serde_json::Error> {
    serde_json::from_str(raw).or_else(|error| {
        if !error.to_string().starts_with("duplicate field") {
            return Err(error);
        }
        let value: Value = serde_json::from_str(raw)?;
        serde_json::from_value(value)
    })
}

/// Facts of an exec item, read with the generated type of its `type`.
fn exec_item_facts(
    kind: &str,
    raw: &str,
    completed: bool,
    cwd: Option<&str>,
) -> Result<Option<ItemFacts>, serde_json::Error> {
    let facts = match kind {
        "command_execution" => {
            let item: exec::CommandExecutionItem = read_item(raw)?;
            let status = item.status.to_string();
            let output = (status != "in_progress").then_some(item.aggregated_output);
            command_facts(
                item.id,
                item.command,
                None,
                command_outcome(&status, item.exit_code, output),
                "command_execution",
            )
        }
        "file_change" => {
            let item: exec::FileChangeItem = read_item(raw)?;
            let changes = item
                .changes
                .into_iter()
                .map(|change| (change.path, patch_kind_exec(change.kind), None))
                .collect();
            file_change_facts(
                item.id,
                changes,
                &item.status.to_string(),
                cwd,
                "file_change",
            )
        }
        "mcp_tool_call" => {
            let item: exec::McpToolCallItem = read_item(raw)?;
            let result = item
                .result
                .and_then(|result| serde_json::to_value(result).ok());
            let error = item.error.map(|error| error.message);
            let status = item.status.to_string();
            let item = McpItem {
                id: item.id,
                server: item.server,
                tool: item.tool,
                arguments: item.arguments,
                status: &status,
                result,
                error,
            };
            mcp_facts(item, "mcp_tool_call")
        }
        "web_search" => {
            // Always written with `id` twice: straight to the tolerant reading.
            let item: exec::WebSearchItem = serde_json::from_value(serde_json::from_str(raw)?)?;
            web_search_facts(
                item.id,
                item.query,
                item.action,
                None,
                completed,
                "web_search",
            )
        }
        "collab_tool_call" => {
            let item: exec::CollabToolCallItem = read_item(raw)?;
            let tool = camel_case(&item.tool);
            let input =
                json!({ "prompt": item.prompt, "receiverThreadIds": item.receiver_thread_ids });
            let mut sighting = Sighting::new(item.id, tool, input);
            sighting.metadata = item_metadata("collab_tool_call");
            sighting.kind = Some(ToolKind::Subagent);
            let states = Value::Object(item.agents_states);
            let outcome = match item.status.to_string().as_str() {
                "in_progress" => Outcome::InProgress,
                "failed" => {
                    Outcome::Failed(ToolError::new("the agent call failed").with_details(states))
                }
                _ => Outcome::Completed(Some(states)),
            };
            ItemFacts::new(sighting, outcome)
        }
        "todo_list" => {
            let item: exec::TodoListItem = read_item(raw)?;
            let items = serde_json::to_value(&item.items).unwrap_or(Value::Null);
            let mut sighting = Sighting::new(item.id, "todo_list", json!({ "items": items }));
            sighting.metadata = item_metadata("todo_list");
            let outcome = if completed {
                Outcome::Completed(None)
            } else {
                Outcome::InProgress
            };
            ItemFacts::new(sighting, outcome)
        }
        _ => return Ok(None),
    };
    Ok(Some(facts))
}

fn patch_kind_exec(kind: exec::PatchChangeKind) -> &'static str {
    match kind {
        exec::PatchChangeKind::Add => "add",
        exec::PatchChangeKind::Delete => "delete",
        exec::PatchChangeKind::Update => "update",
    }
}

/// `spawn_agent` → `spawnAgent`: exec's collab tool names in the app-server spelling.
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

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn collab_names_follow_the_app_server() {
        assert_eq!(camel_case("spawn_agent"), "spawnAgent");
        assert_eq!(camel_case("wait"), "wait");
    }

    #[test]
    fn command_outcomes() {
        assert!(matches!(
            command_outcome("completed", Some(0), Some("ok".into())),
            Outcome::Completed(Some(_))
        ));
        let Outcome::Failed(error) = command_outcome("failed", Some(3), Some("boom".into())) else {
            panic!()
        };
        assert_eq!(error.code, Some(toolnorm::ErrorCode::ExitCode));
        assert_eq!(
            error.details,
            Some(json!({"exitCode": 3, "output": "boom"}))
        );
        let Outcome::Failed(error) = command_outcome("declined", None, None) else {
            panic!()
        };
        assert_eq!(error.code, Some(toolnorm::ErrorCode::PermissionDenied));
        assert!(matches!(
            command_outcome("inProgress", None, None),
            Outcome::InProgress
        ));
    }
}
