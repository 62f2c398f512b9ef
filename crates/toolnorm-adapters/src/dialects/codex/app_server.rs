//! `codex app-server`: the v2 JSON-RPC stream (items, output deltas, approvals).

mod approvals;
mod command_item;
mod thread_items;

use foldhash::HashMap;
use std::borrow::Cow;

use serde::Deserialize;
use serde_json::Value;
use serde_json::value::RawValue;
use toolnorm::{JsonObject, Timestamp, meta};
use toolnorm_wire::codex_app_server as app;

use super::items::{ItemFacts, Items, object, unknown_item};
use crate::Dialect;
use crate::adapter::Adapter;
use crate::diagnostic::{Diagnostic, DiagnosticKind};
use crate::dialects::Entry;
use crate::read::json;
use crate::read::tolerant::{self, Repair};
use crate::track::{Facts, Sighting};

/// The dialect this module reads.
pub(crate) const DIALECT: Dialect = Dialect::new("codex-app-server", "codex");

impl Dialect {
    /// `codex app-server` (JSON-RPC, protocol v2).
    pub const CODEX_APP_SERVER: Dialect = DIALECT;
}

/// Its row of the dialect table.
pub(crate) const ENTRY: Entry = Entry {
    dialect: DIALECT,
    summary: "`codex app-server` JSON-RPC stream",
    feature: "codex",
    rules: super::RULES,
    claims: super::claims_app_server,
    adapter: |_| Box::new(CodexAppServerAdapter::new()),
    read_ahead: None,
    recordings: &["codex-app-server"],
    agent_version: "`cliVersion` of the thread a `thread/started` starts",
    stores: &[],
};

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

/// The server's approval requests before v2 (v2's are `item/<type>/requestApproval`).
const APPROVAL_METHODS: &[&str] = &["execCommandApproval", "applyPatchApproval"];

/// The item types of the pinned schema's `ThreadItem`.
const THREAD_ITEM_TYPES: &[&str] = &[
    "agentMessage",
    "collabAgentToolCall",
    "commandExecution",
    "contextCompaction",
    "dynamicToolCall",
    "enteredReviewMode",
    "exitedReviewMode",
    "fileChange",
    "functionCallOutput",
    "hookPrompt",
    "imageGeneration",
    "imageView",
    "mcpToolCall",
    "plan",
    "reasoning",
    "sleep",
    "subAgentActivity",
    "userMessage",
    "webSearch",
];

/// The item types of [`THREAD_ITEM_TYPES`] that are tool calls.
const TOOL_ITEM_TYPES: &[&str] = &[
    "collabAgentToolCall",
    "commandExecution",
    "dynamicToolCall",
    "fileChange",
    "imageGeneration",
    "imageView",
    "mcpToolCall",
    "sleep",
    "webSearch",
];

/// An item's `type`.
#[derive(Deserialize)]
struct ItemType<'a> {
    #[serde(borrow, rename = "type")]
    kind: Cow<'a, str>,
}

/// Methods that carry nothing about tool calls.
const IGNORED_METHODS: &[&str] = &[
    "account/rateLimits/updated",
    "account/updated",
    "configWarning",
    // 0.14x: a thread-level warning (e.g. under-development features enabled).
    "warning",
    // An automatic reviewer's warning about the thread, not about a call.
    "guardianWarning",
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
    /// The approval requests not yet settled.
    approvals: approvals::Approvals,
    /// Command item id → what was written to its terminal so far (`metadata.terminalInput`).
    terminal_input: HashMap<String, Vec<Value>>,
    /// The last line read (the line of what the end of the stream applies).
    last_line: u64,
}

impl CodexAppServerAdapter {
    /// An adapter using these title rules.
    pub fn new() -> Self {
        CodexAppServerAdapter {
            items: Items::new(),
            approvals: approvals::Approvals::default(),
            terminal_input: HashMap::default(),
            last_line: 0,
        }
    }
}

impl Adapter for CodexAppServerAdapter {
    fn dialect(&self) -> Dialect {
        DIALECT
    }

    fn finish(&mut self, out: &mut Facts<'_>) {
        self.items.finish(self.last_line, out);
    }

    fn line(&mut self, line: u64, bytes: &[u8], out: &mut Facts<'_>) {
        self.last_line = line;
        let rpc: Rpc<'_> = match json::parse_line(line, bytes, "not a JSON-RPC message") {
            Ok(rpc) => rpc,
            Err(diagnostic) => return out.diagnostic(diagnostic),
        };
        let Some(method) = rpc.method.as_deref() else {
            // The client's answer to an approval request, when the stream holds it.
            if let (Some(id), Some(result)) = (rpc.id, rpc.result)
                && self.approvals.answered(line, id, result, out)
            {
                return;
            }
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
            "item/started" | "item/completed" if let Some(read) = command_item::read(params) => {
                let completed = method == "item/completed";
                out.session(&read.thread_id);
                let item = read.item;
                let facts = thread_items::command_item_facts(thread_items::CommandItem {
                    id: item.id,
                    command: item.command,
                    cwd: item.cwd.0,
                    status: item.status,
                    exit_code: item.exit_code,
                    output: item.aggregated_output,
                    times: [item.started_at_ms, item.completed_at_ms, item.duration_ms],
                });
                self.seen(line, facts, completed, &read.thread_id, out);
            }
            "item/started" => match tolerant::from_str::<app::ItemStartedNotification>(params) {
                Ok(started) => {
                    self.repaired(line, method, &started.repairs, out);
                    let started = started.value;
                    self.item(line, started.item, false, &started.thread_id, out)
                }
                Err(error) => self.unknown_item(line, method, params, false, &error, out),
            },
            "item/completed" => {
                match tolerant::from_str::<app::ItemCompletedNotification>(params) {
                    Ok(completed) => {
                        self.repaired(line, method, &completed.repairs, out);
                        let completed = completed.value;
                        self.item(line, completed.item, true, &completed.thread_id, out)
                    }
                    Err(error) => self.unknown_item(line, method, params, true, &error, out),
                }
            }
            "item/commandExecution/outputDelta" => {
                match serde_json::from_str::<app::CommandExecutionOutputDeltaNotification>(params) {
                    Ok(delta) => {
                        out.session(&delta.thread_id);
                        joined(line, &delta.item_id, "commandExecution", out);
                        out.output(line, &delta.item_id, &delta.delta);
                    }
                    Err(error) => out.diagnostic(json::malformed(line, method, &error)),
                }
            }
            "item/fileChange/outputDelta" => {
                match serde_json::from_str::<app::FileChangeOutputDeltaNotification>(params) {
                    Ok(delta) => {
                        out.session(&delta.thread_id);
                        joined(line, &delta.item_id, "fileChange", out);
                        out.output(line, &delta.item_id, &delta.delta);
                    }
                    Err(error) => out.diagnostic(json::malformed(line, method, &error)),
                }
            }
            "item/mcpToolCall/progress" => {
                match serde_json::from_str::<app::McpToolCallProgressNotification>(params) {
                    Ok(progress) => {
                        out.session(&progress.thread_id);
                        joined(line, &progress.item_id, "mcpToolCall", out);
                        let metadata = object([(meta::PROGRESS, Value::from(progress.message))]);
                        out.merge_metadata(line, &progress.item_id, metadata);
                    }
                    Err(error) => out.diagnostic(json::malformed(line, method, &error)),
                }
            }
            "item/commandExecution/terminalInteraction" => {
                self.terminal_interaction(line, method, params, out)
            }
            "serverRequest/resolved" => self.approvals.resolved(params, out),
            "item/autoApprovalReview/started" | "item/autoApprovalReview/completed" => {
                self.approvals.reviewed(line, method, params, out)
            }
            method
                if method.ends_with("/requestApproval") || APPROVAL_METHODS.contains(&method) =>
            {
                self.approvals.requested(line, method, rpc.id, params, out)
            }
            method if IGNORED_METHODS.contains(&method) => {}
            method if method.starts_with("codex/event/") => {}
            other if other.starts_with("item/") => {
                self.unknown_item_method(line, other, params, out)
            }
            // A new `thread/*`, `account/*`, `turn/*` … method carries no call: a notice.
            other => out.diagnostic(Diagnostic::notice(
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
        if let Some(version) = thread
            .and_then(|thread| thread.get("cliVersion"))
            .and_then(Value::as_str)
        {
            out.agent_version(version);
        }
        // A thread started (or resumed) is a session: its calls carry its id.
        if let Some(id) = thread
            .and_then(|thread| thread.get("id"))
            .and_then(Value::as_str)
        {
            out.begin_session(id);
            // A subagent's thread names the thread it was spawned from.
            let parent = thread.and_then(|thread| {
                thread
                    .get("parentThreadId")
                    .or_else(|| thread.pointer("/source/subAgent/thread_spawn/parent_thread_id"))
                    .and_then(Value::as_str)
            });
            self.items.thread_started(line, id, parent, out);
        }
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

    /// A new `item/<type>/<update>` method (an update this version does not know, such
    /// as a new delta): said with a notice. It names the item and its type, so an item
    /// whose start the stream does not hold is opened from it, as for known updates; a
    /// method that names no item carries no call.
    fn unknown_item_method(&mut self, line: u64, method: &str, params: &str, out: &mut Facts<'_>) {
        #[derive(Deserialize)]
        struct Update<'a> {
            #[serde(borrow, default, rename = "itemId")]
            item_id: Option<Cow<'a, str>>,
            #[serde(borrow, default, rename = "threadId")]
            thread_id: Option<Cow<'a, str>>,
        }
        let update = match serde_json::from_str::<Update<'_>>(params) {
            Ok(update) => update,
            Err(error) => return out.diagnostic(json::malformed(line, method, &error)),
        };
        out.diagnostic(Diagnostic::notice(
            line,
            DiagnosticKind::UnknownEvent,
            format!("unknown Codex app-server method `{method}`"),
        ));
        if let Some(thread) = &update.thread_id {
            out.session(thread);
        }
        let item_type = method.split('/').nth(1).filter(|kind| !kind.is_empty());
        let (Some(id), Some(item_type)) = (update.item_id, item_type) else {
            return;
        };
        if THREAD_ITEM_TYPES.contains(&item_type) && !TOOL_ITEM_TYPES.contains(&item_type) {
            return;
        }
        joined(line, &id, item_type, out);
    }

    /// The notice for an item read with the fields its schema requires filled in.
    fn repaired(&self, line: u64, method: &str, repairs: &[Repair], out: &mut Facts<'_>) {
        if let Some(notice) = tolerant::repairs_notice(line, &format!("`{method}`"), repairs) {
            out.diagnostic(notice);
        }
    }

    /// An `item/started` / `item/completed` whose item does not read as the pinned schema's
    /// `ThreadItem`, even with its missing fields filled in: an item type this version
    /// does not know is still a call (named after its type, with a notice), and so is a
    /// tool item of a known type that does not fit its schema (with a notice naming what
    /// does not fit); one that is not even an item with an id is an error.
    fn unknown_item(
        &mut self,
        line: u64,
        method: &str,
        params: &str,
        completed: bool,
        error: &serde_json::Error,
        out: &mut Facts<'_>,
    ) {
        #[derive(Deserialize)]
        struct Params<'a> {
            #[serde(borrow)]
            item: &'a RawValue,
        }
        let item = serde_json::from_str::<Params<'_>>(params).ok();
        let item_type = item
            .as_ref()
            .and_then(|params| serde_json::from_str::<ItemType<'_>>(params.item.get()).ok());
        let known = item_type
            .as_ref()
            .is_some_and(|item| THREAD_ITEM_TYPES.contains(&item.kind.as_ref()));
        let tool = item_type
            .as_ref()
            .is_some_and(|item| TOOL_ITEM_TYPES.contains(&item.kind.as_ref()));
        let facts = item
            .filter(|_| !known || tool)
            .and_then(|params| unknown_item(params.item.get(), completed));
        let Some((kind, facts)) = facts else {
            return out.diagnostic(json::malformed(line, method, error));
        };
        let message = match known {
            true => format!(
                "`{kind}` item that does not match its schema ({}), read by its id and type",
                json::without_position(error)
            ),
            false => format!("unknown Codex app-server item type `{kind}`, read as a tool call"),
        };
        let kind = match known {
            true => DiagnosticKind::MalformedEvent,
            false => DiagnosticKind::UnknownEvent,
        };
        out.diagnostic(Diagnostic::notice(line, kind, message));
        self.items.seen(line, facts, None, out);
    }

    fn item(
        &mut self,
        line: u64,
        item: app::ThreadItem,
        completed: bool,
        thread: &str,
        out: &mut Facts<'_>,
    ) {
        out.session(thread);
        if let app::ThreadItem::SubAgentActivity {
            id,
            kind,
            agent_thread_id,
            completed_at_ms,
            ..
        } = &item
        {
            use app::SubAgentActivityKind as K;
            let failed = match kind {
                // The activity item that starts an agent completes at once; the call lasts
                // until the agent ends.
                K::Started if completed_at_ms.is_some() && out.is_open(id) => return,
                K::Started => None,
                K::Completed => Some(None),
                K::Interrupted => Some(Some("interrupted")),
                K::Interacted => return,
            };
            if let Some(failed) = failed {
                // The activity is announced (`item/started`), then done (`item/completed`,
                // with its time): the agent's call ends with the latter.
                if let Some(at) = completed_at_ms {
                    let at = Some(Timestamp::from(*at));
                    self.items
                        .agent_finished(line, agent_thread_id, at, failed, out);
                }
                return;
            }
        }
        if let Some(facts) = thread_items::item_facts(item, completed, out) {
            self.seen(line, facts, completed, thread, out);
        }
    }

    /// The facts of an item of `thread`, from `item/started` or `item/completed`.
    fn seen(
        &mut self,
        line: u64,
        facts: ItemFacts,
        completed: bool,
        thread: &str,
        out: &mut Facts<'_>,
    ) {
        if completed {
            self.terminal_input.remove(&facts.sighting.id);
            let id = facts.sighting.id.as_str();
            // The client's refusal or cancellation ended the call, and a fold that
            // drops finished calls no longer holds it: the item's `declined` end
            // comes after, and says nothing the answer did not.
            if self.approvals.ended_by_answer(id) && out.finished(id).is_some() {
                return;
            }
        }
        let approvals = &mut self.approvals;
        let asked = |id: &str, out: &mut Facts<'_>| approvals.item_sighted(line, id, out);
        self.items.seen_then(line, facts, Some(thread), out, asked);
    }

    /// `item/commandExecution/terminalInteraction`: input written to a running command's
    /// terminal (`stdin`, empty when the terminal was only polled). Each goes, in order,
    /// into the command's `metadata.terminalInput` (`{stdin, processId}`); a command whose
    /// start the stream does not hold is opened from it, as for its output.
    fn terminal_interaction(&mut self, line: u64, method: &str, params: &str, out: &mut Facts<'_>) {
        let interaction = match tolerant::from_str::<app::TerminalInteractionNotification>(params) {
            Ok(interaction) => {
                self.repaired(line, method, &interaction.repairs, out);
                interaction.value
            }
            Err(error) => return out.diagnostic(json::malformed(line, method, &error)),
        };
        let id = interaction.item_id.as_str();
        out.session(&interaction.thread_id);
        joined(line, id, "commandExecution", out);
        if !out.is_open(id) {
            // Written after the command ended: its call is final, the line known.
            return;
        }
        let inputs = self.terminal_input.entry(id.to_owned()).or_default();
        inputs.push(Value::Object(object([
            ("stdin", Value::from(interaction.stdin)),
            ("processId", Value::from(interaction.process_id)),
        ])));
        let metadata = object([(meta::TERMINAL_INPUT, Value::Array(inputs.clone()))]);
        out.merge_metadata(line, id, metadata);
    }
}

/// A stream joined in the middle: an update (`item/<type>/…`) for an item whose start the
/// stream does not hold. The method names the item's type, so the call is opened from it,
/// running, with a notice; the item's completion fills in the rest.
fn joined(line: u64, id: &str, item_type: &str, out: &mut Facts<'_>) {
    if out.call(id).is_some() || out.finished(id).is_some() {
        return;
    }
    out.diagnostic(Diagnostic::notice(
        line,
        DiagnosticKind::UnknownCall,
        format!("an update of `{item_type}` item `{id}`, whose start the stream does not hold: the call is opened from it"),
    ));
    let sighting = Sighting::new(id, item_type, Value::Object(JsonObject::new()))
        .metadata(object([(meta::ITEM_TYPE, Value::from(item_type))]));
    out.sighted(line, sighting);
    out.running(line, id, None);
}
