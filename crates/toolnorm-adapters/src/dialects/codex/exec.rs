//! `codex exec --json`: `item.started|updated|completed` events.

use std::borrow::Cow;

use serde::Deserialize;
use serde_json::value::RawValue;
use serde_json::{Value, json};
use toolnorm::ToolError;
use toolnorm_wire::codex_exec as exec;

use super::items::{
    Change, ChangeKind, ItemFacts, Items, McpItem, Outcome, Status, collab_sighting, command_facts,
    command_outcome, file_change_facts, item_metadata, mcp_facts, unknown_item, web_search_facts,
};
use crate::Dialect;
use crate::adapter::Adapter;
use crate::diagnostic::{Diagnostic, DiagnosticKind};
use crate::dialects::Entry;
use crate::read::json;
use crate::read::tolerant::{self, Repair};
use crate::track::Facts;
use crate::track::Sighting;

mod command;
mod scan;

use command::CommandItem;

/// The dialect this module reads.
pub(crate) const DIALECT: Dialect = Dialect::new("codex-exec", "codex");

impl Dialect {
    /// `codex exec --json`.
    pub const CODEX_EXEC: Dialect = DIALECT;
}

/// Its row of the dialect table.
pub(crate) const ENTRY: Entry = Entry {
    dialect: DIALECT,
    summary: "`codex exec --json`",
    feature: "codex",
    rules: super::RULES,
    claims: super::claims_exec,
    adapter: |_| Box::new(CodexExecAdapter::new()),
    read_ahead: None,
    recordings: &["codex-exec"],
    agent_version: "",
    stores: &[],
};

/// An exec event, read once: its `type`, and its item still raw, to be read with the
/// generated type of the item's kind.
#[derive(Deserialize)]
struct ExecEvent<'a> {
    #[serde(borrow, rename = "type")]
    kind: Option<Cow<'a, str>>,
    #[serde(borrow, default)]
    item: Option<&'a RawValue>,
    /// `thread.started`: the thread (session) of the run.
    #[serde(borrow, default)]
    thread_id: Option<Cow<'a, str>>,
}

/// The item types of the pinned `codex exec` schema.
const EXEC_ITEM_TYPES: &[&str] = &[
    "agent_message",
    "reasoning",
    "command_execution",
    "file_change",
    "mcp_tool_call",
    "collab_tool_call",
    "web_search",
    "todo_list",
    "error",
];

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
        DIALECT
    }

    fn line(&mut self, line: u64, bytes: &[u8], out: &mut Facts<'_>) {
        if let Some(event) = scan::scan(bytes)
            && self.scanned(line, event, out)
        {
            return;
        }
        self.read_fields(line, bytes, out);
    }
}

impl CodexExecAdapter {
    /// A line read in one scan ([`scan`]); `false` when it is of a shape left to the
    /// field-by-field reading ([`CodexExecAdapter::read_fields`]), which then reads it.
    fn scanned(&mut self, line: u64, event: scan::Scanned<'_>, out: &mut Facts<'_>) -> bool {
        let completed = match event.kind.as_deref() {
            Some("item.started" | "item.updated") => false,
            Some("item.completed") => true,
            Some("thread.started") => {
                if let Some(thread) = event.thread_id.as_deref() {
                    out.begin_session(thread);
                }
                return true;
            }
            Some("turn.started" | "turn.completed" | "turn.failed" | "error") => return true,
            _ => return false,
        };
        match event.item.map(|item| *item) {
            Some(ExecItem::NotACall) => {}
            Some(item) => {
                if let Some(facts) = item_facts(item, completed, out) {
                    self.items.seen(line, facts, None, out);
                }
            }
            None => return false,
        }
        true
    }

    /// A line read field by field: the event, then its item's `type`, then the item as
    /// that type; whatever is wrong with the line becomes its diagnostic.
    fn read_fields(&mut self, line: u64, bytes: &[u8], out: &mut Facts<'_>) {
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
            kind if kind.starts_with("item.") => {
                let known_event =
                    matches!(kind, "item.started" | "item.updated" | "item.completed");
                let Some(raw) = event.item.map(RawValue::get) else {
                    out.diagnostic(match known_event {
                        true => Diagnostic::at(
                            line,
                            DiagnosticKind::MalformedEvent,
                            format!("{kind} without `item`"),
                        ),
                        // A new event about the thread's items that names none: no call in it.
                        false => Diagnostic::notice(
                            line,
                            DiagnosticKind::UnknownEvent,
                            format!("unknown codex exec event `{kind}`"),
                        ),
                    });
                    return;
                };
                if !known_event {
                    // A new event that carries an item: the item is read as an update.
                    out.diagnostic(Diagnostic::notice(
                        line,
                        DiagnosticKind::UnknownEvent,
                        format!("unknown codex exec event `{kind}`, its item read as an update"),
                    ));
                }
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
                let known = EXEC_ITEM_TYPES.contains(&item.kind.as_ref());
                let mut repairs = Vec::new();
                let read =
                    exec_item_facts(&item.kind, raw, kind == "item.completed", &mut repairs, out);
                let what = format!("`{}` item", item.kind);
                if let Some(notice) = tolerant::repairs_notice(line, &what, &repairs) {
                    out.diagnostic(notice);
                }
                match read {
                    Ok(Some(facts)) => {
                        if !known {
                            out.diagnostic(Diagnostic::notice(
                                line,
                                DiagnosticKind::UnknownEvent,
                                format!(
                                    "unknown codex exec item type `{}`, read as a tool call",
                                    item.kind
                                ),
                            ));
                        }
                        self.items.seen(line, facts, None, out);
                    }
                    Ok(None) if !known => out.diagnostic(Diagnostic::at(
                        line,
                        DiagnosticKind::MalformedEvent,
                        format!("a `{}` item without an `id`", item.kind),
                    )),
                    Ok(None) => {}
                    // A tool item that does not fit its schema even so is still a call,
                    // read by its id and type.
                    Err(error) => match unknown_item(raw, kind == "item.completed") {
                        Some((_, facts)) => {
                            out.diagnostic(Diagnostic::notice(
                                line,
                                DiagnosticKind::MalformedEvent,
                                format!(
                                    "`{}` item that does not match its schema ({}), read by its id and type",
                                    item.kind,
                                    json::without_position(&error)
                                ),
                            ));
                            self.items.seen(line, facts, None, out);
                        }
                        None => out.diagnostic(json::malformed(line, &what, &error)),
                    },
                }
            }
            // Each run (`codex exec`, `codex exec resume`) numbers its items afresh.
            "thread.started" => {
                if let Some(thread) = event.thread_id.as_deref() {
                    out.begin_session(thread);
                }
            }
            "turn.started" | "turn.completed" | "turn.failed" | "error" => {}
            // Any other type is about the thread or turn: a notice.
            other => out.diagnostic(Diagnostic::notice(
                line,
                DiagnosticKind::UnknownEvent,
                format!("unknown codex exec event `{other}`"),
            )),
        }
    }
}

/// Reads an exec item with its generated type; a field its schema requires that the
/// item lacks is filled in and told in `repairs` ([`tolerant`]).
///
/// `codex exec` writes some items with a key twice (`web_search` items carry the item id
/// and then the call id, both as `id`). A JSON reader in JavaScript keeps the last one;
/// so does this, rather than reject the line.
fn read_item<T: serde::de::DeserializeOwned>(
    raw: &str,
    repairs: &mut Vec<Repair>,
) -> Result<T, serde_json::Error> {
    let read = tolerant::from_str(raw).or_else(|error| {
        if !error.to_string().starts_with("duplicate field") {
            return Err(error);
        }
        let value: Value = serde_json::from_str(raw)?;
        tolerant::from_value(value)
    })?;
    repairs.extend(read.repairs);
    Ok(read.value)
}

/// An exec item of a type read in its generated type (`web_search`, written with a key
/// twice, and item types this version does not know are read apart).
pub(super) enum ExecItem {
    Command(CommandItem),
    FileChange(exec::FileChangeItem),
    Mcp(exec::McpToolCallItem),
    Collab(exec::CollabToolCallItem),
    Todo(exec::TodoListItem),
    /// A `web_search` item, each of its keys' last value (`id` comes twice).
    WebSearch {
        id: String,
        query: String,
        action: Option<Value>,
    },
    /// `agent_message`, `reasoning`, `error`: conversation, not tool calls.
    NotACall,
}

/// Facts of an exec item, read with the generated type of its `type`.
fn exec_item_facts(
    kind: &str,
    raw: &str,
    completed: bool,
    repairs: &mut Vec<Repair>,
    out: &Facts<'_>,
) -> Result<Option<ItemFacts>, serde_json::Error> {
    let item = match kind {
        "command_execution" => ExecItem::Command(read_item(raw, repairs)?),
        "file_change" => ExecItem::FileChange(read_item(raw, repairs)?),
        "mcp_tool_call" => ExecItem::Mcp(read_item(raw, repairs)?),
        "collab_tool_call" => ExecItem::Collab(read_item(raw, repairs)?),
        "todo_list" => ExecItem::Todo(read_item(raw, repairs)?),
        "web_search" => {
            // Always written with `id` twice: straight to the reading of the last values.
            let read = tolerant::from_value::<exec::WebSearchItem>(serde_json::from_str(raw)?)?;
            repairs.extend(read.repairs);
            let item = read.value;
            return Ok(Some(web_search_facts(
                item.id,
                item.query,
                item.action,
                None,
                completed,
                "web_search",
            )));
        }
        "agent_message" | "reasoning" | "error" => ExecItem::NotACall,
        // A new item type may be a tool call: it is read as one, with a notice.
        _ => return Ok(unknown_item(raw, completed).map(|(_, facts)| facts)),
    };
    Ok(item_facts(item, completed, out))
}

/// Facts of an item read in its generated type; `None` for one that is no tool call.
fn item_facts(item: ExecItem, completed: bool, out: &Facts<'_>) -> Option<ItemFacts> {
    let facts = match item {
        ExecItem::Command(item) => {
            let status = command_status(item.status);
            let output = (status != Status::InProgress).then_some(item.aggregated_output);
            command_facts(
                item.id,
                item.command,
                None,
                command_outcome(status, item.exit_code, output),
                "command_execution",
            )
        }
        ExecItem::FileChange(item) => {
            let changes = item
                .changes
                .into_iter()
                .map(|change| Change {
                    path: change.path,
                    kind: change_kind(change.kind),
                    diff: None,
                })
                .collect();
            file_change_facts(item.id, changes, patch_status(item.status), "file_change")
        }
        ExecItem::Mcp(item) => {
            let result = item
                .result
                .and_then(|result| serde_json::to_value(result).ok());
            let error = item.error.map(|error| error.message);
            let item = McpItem {
                id: item.id,
                server: item.server,
                tool: item.tool,
                arguments: item.arguments,
                status: mcp_status(item.status),
                result,
                error,
            };
            mcp_facts(item, "mcp_tool_call")
        }
        ExecItem::Collab(item) => {
            let tool = camel_case(&item.tool);
            let input =
                json!({ "prompt": item.prompt, "receiverThreadIds": item.receiver_thread_ids });
            let spawned_threads = match tool.as_str() {
                "spawnAgent" => item.receiver_thread_ids.clone(),
                _ => Vec::new(),
            };
            let sighting = collab_sighting(item.id, tool, input, "collab_tool_call", out);
            let states = Value::Object(item.agents_states);
            let outcome = match item.status {
                exec::McpToolCallStatus::InProgress => Outcome::InProgress,
                exec::McpToolCallStatus::Failed => {
                    Outcome::Failed(ToolError::new("the agent call failed").with_details(states))
                }
                exec::McpToolCallStatus::Completed => Outcome::Completed(Some(states.into())),
            };
            let mut facts = ItemFacts::new(sighting, outcome);
            facts.spawned_threads = spawned_threads;
            facts
        }
        ExecItem::Todo(item) => {
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
        ExecItem::WebSearch { id, query, action } => {
            web_search_facts(id, query, action, None, completed, "web_search")
        }
        ExecItem::NotACall => return None,
    };
    Some(facts)
}

fn command_status(status: exec::CommandExecutionStatus) -> Status {
    use exec::CommandExecutionStatus as S;
    match status {
        S::InProgress => Status::InProgress,
        S::Completed => Status::Completed,
        S::Failed => Status::Failed,
    }
}

fn patch_status(status: exec::PatchApplyStatus) -> Status {
    use exec::PatchApplyStatus as S;
    match status {
        S::InProgress => Status::InProgress,
        S::Completed => Status::Completed,
        S::Failed => Status::Failed,
    }
}

fn mcp_status(status: exec::McpToolCallStatus) -> Status {
    use exec::McpToolCallStatus as S;
    match status {
        S::InProgress => Status::InProgress,
        S::Completed => Status::Completed,
        S::Failed => Status::Failed,
    }
}

fn change_kind(kind: exec::PatchChangeKind) -> ChangeKind {
    match kind {
        exec::PatchChangeKind::Add => ChangeKind::Add,
        exec::PatchChangeKind::Delete => ChangeKind::Delete,
        exec::PatchChangeKind::Update => ChangeKind::Update,
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
}
