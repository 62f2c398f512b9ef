//! `codex app-server`: the v2 JSON-RPC stream (items, output deltas, approvals).

use std::borrow::Cow;
use std::collections::HashMap;

use serde::Deserialize;
use serde_json::value::RawValue;
use serde_json::{Value, json};
use toolnorm::{JsonObject, Timestamp, ToolError, ToolKind};
use toolnorm_wire::codex_app_server as app;

use super::items::{
    ItemFacts, Items, McpItem, Outcome, command_facts, command_outcome, file_change_facts,
    item_metadata, mcp_facts, object, web_search_facts,
};
use crate::Dialect;
use crate::diagnostic::{Diagnostic, DiagnosticKind};
use crate::providers::Adapter;
use crate::read::json;
use crate::track::Facts;
use crate::track::Sighting;

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
