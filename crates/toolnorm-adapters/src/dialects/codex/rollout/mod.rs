//! Codex rollout files: the session record the CLI writes on its own
//! (`$CODEX_HOME/sessions/YYYY/MM/DD/rollout-*.jsonl`), one `{timestamp, type, payload}`
//! line per item.
//!
//! A rollout tells of one call up to three times: the model's `response_item` that asked
//! for it (`function_call`, `custom_tool_call`, `local_shell_call`, `web_search_call`),
//! the CLI's own `event_msg` about it (`item_completed` with the thread item since Codex
//! 0.16x; `exec_command_end`, `patch_apply_end`, `mcp_tool_call_end`, `web_search_end`
//! before), and the `response_item` that gave the model its result
//! (`function_call_output`, `custom_tool_call_output`). All of them name the call by its
//! `call_id` (a web search by its item `id`), so they are one call: the first line that
//! says what the call is opens it, the first that says how it ended ends it, and a later
//! line about a call already ended is known and skipped.
//!
//! | line | canonical events |
//! | --- | --- |
//! | `session_meta` | none: a new session (its `id`), its `cwd` for relative paths in titles |
//! | `response_item` `function_call` / `custom_tool_call` / `local_shell_call` | `toolCallStarted`, `toolCallRunning` |
//! | `response_item` `web_search_call` | the call, completed (it is recorded once done); one without an id is the web search told of before with the same action, else the call `web_search_call@<line>`, with a notice |
//! | `event_msg` `item_completed` of a tool item, `*_end` | `inputUpdated` when its input changed; `toolCallCompleted` or `toolCallFailed` (started and running first, if never seen) |
//! | `event_msg` `*_begin` | `toolCallStarted`, `toolCallRunning` when the call was not seen yet; else none |
//! | `response_item` `function_call_output` / `custom_tool_call_output` | `toolCallCompleted` or `toolCallFailed` (read from the text: exit code, `aborted by user`, `rejected by user`; a code-mode script's `Script completed` / `failed` / `terminated`), unless the call has ended already |
//! | `response_item` `custom_tool_call_output` of a code-mode `exec` whose script yielded | `metadataMerged` (`cellId`), then `toolCallCompleted` |
//! | `event_msg` `item_completed` `SubAgentActivity` `completed` / `interrupted` | the end of the call that started that agent thread |
//! | `turn_context`, `world_state`, token counts, messages, reasoning, other `event_msg` | none |
//! | any other line type, `response_item` type or thread item type | a notice (a tool-like one is still a call) |
//!
//! The calls have the names, kinds and titles of `codex app-server`'s items for the same
//! calls (`rules.toml`): a shell call is `commandExecution`, a patch `fileChange`,
//! an MCP tool (`namespace` `mcp__<server>`) its tool of that server, a web search
//! `webSearch`, a subagent spawn `subAgentActivity` (running until the agent ends) and the
//! other collaboration tools their app-server names (`wait`, `sendMessage`, …). Code
//! mode's `exec` (a script that calls tools) and `wait` for a script's cell
//! (`cell_id`) are read by the `code_mode` module: the script's calls go to
//! `metadata.scriptCalls` (each is also a call of its own when the file records its
//! `item_completed` or `*_end`), and the `wait` is the continuation of its cell, not a
//! subagent wait.
//!
//! The `response_item` payloads are read with the generated `ResponseItem`
//! (`toolnorm_wire::codex_rollout`); the package declares no type for the envelope nor
//! for the `event_msg` payloads, whose few fields are read here by hand ([`events`]).

mod events;
mod response;
mod search_id;

use std::borrow::Cow;
use std::collections::HashSet;

use serde::Deserialize;
use serde_json::value::RawValue;
use toolnorm::Timestamp;

use super::code_mode::Cells;
use super::items::Items;
use crate::Dialect;
use crate::adapter::Adapter;
use crate::diagnostic::{Diagnostic, DiagnosticKind};
use crate::dialects::Entry;
use crate::read::json;
use crate::read::line_keys::LineKeys;
use crate::track::Facts;

/// The dialect this module reads.
pub(crate) const DIALECT: Dialect = Dialect::new("codex-rollout", "codex");

impl Dialect {
    /// Codex rollout files (`$CODEX_HOME/sessions/YYYY/MM/DD/rollout-*.jsonl`).
    pub const CODEX_ROLLOUT: Dialect = DIALECT;
}

/// Its row of the dialect table.
pub(crate) const ENTRY: Entry = Entry {
    dialect: DIALECT,
    summary: "Codex rollout file (`$CODEX_HOME/sessions/…/rollout-*.jsonl`)",
    feature: "codex",
    rules: super::RULES,
    claims,
    adapter: |_| Box::new(CodexRolloutAdapter::new()),
    // The rollout files the app-server runs write (`fixtures/codex-rollout/`).
    read_ahead: None,
    recordings: &["codex-app-server"],
    agent_version: "`cli_version` of `session_meta`",
    stores: &[crate::Store::at(".codex", "sessions/**/rollout-*.jsonl").or_env("CODEX_HOME")],
};

/// The line types of a rollout file.
const LINE_TYPES: &[&str] = &[
    "session_meta",
    "turn_context",
    "response_item",
    "event_msg",
    "compacted",
    "world_state",
    "token_usage_record",
    "inter_agent_communication_metadata",
];

/// Whether a line is a rollout file's: no `method`, a `payload`, and a rollout line type.
pub(crate) fn claims(keys: &LineKeys<'_>) -> bool {
    !keys.has("method")
        && keys.has("payload")
        && keys
            .kind()
            .as_deref()
            .is_some_and(|kind| LINE_TYPES.contains(&kind))
}

/// One rollout line: its type, when it was written, and its payload still raw.
#[derive(Deserialize)]
struct Line<'a> {
    #[serde(borrow, rename = "type")]
    kind: Option<Cow<'a, str>>,
    #[serde(borrow, default)]
    timestamp: Option<Cow<'a, str>>,
    #[serde(borrow, default)]
    payload: Option<&'a RawValue>,
}

/// The fields of `session_meta` toolnorm reads.
#[derive(Deserialize)]
struct SessionMeta<'a> {
    #[serde(borrow, default)]
    id: Option<Cow<'a, str>>,
    #[serde(borrow, default)]
    cwd: Option<Cow<'a, str>>,
    /// The version of Codex that wrote the file.
    #[serde(borrow, default)]
    cli_version: Option<Cow<'a, str>>,
}

/// Reads Codex rollout files.
pub struct CodexRolloutAdapter {
    items: Items,
    /// The session (thread) the lines belong to: the last `session_meta`'s.
    session: Option<String>,
    /// Subagent spawns: their calls end when their agent does, not at their output.
    spawns: HashSet<String>,
    /// Code mode: the `exec` call that started each script cell.
    cells: Cells,
}

impl CodexRolloutAdapter {
    /// A fresh adapter.
    pub fn new() -> Self {
        CodexRolloutAdapter {
            items: Items::new(),
            session: None,
            spawns: HashSet::new(),
            cells: Cells::default(),
        }
    }
}

/// What a line tells the reading of its payload.
pub(super) struct At<'a> {
    /// The input line number.
    pub line: u64,
    /// When the line was written.
    pub at: Option<Timestamp>,
    /// The session it belongs to.
    pub session: Option<&'a str>,
}

impl Adapter for CodexRolloutAdapter {
    fn dialect(&self) -> Dialect {
        DIALECT
    }

    fn line(&mut self, line: u64, bytes: &[u8], out: &mut Facts<'_>) {
        let parsed: Line<'_> = match json::parse_line(line, bytes, "not a Codex rollout line") {
            Ok(parsed) => parsed,
            Err(diagnostic) => return out.diagnostic(diagnostic),
        };
        let Some(kind) = parsed.kind.as_deref() else {
            return out.diagnostic(Diagnostic::at(
                line,
                DiagnosticKind::MalformedEvent,
                "a rollout line without `type`",
            ));
        };
        let Some(payload) = parsed.payload.map(RawValue::get) else {
            let diagnostic = match LINE_TYPES.contains(&kind) {
                true => Diagnostic::at(
                    line,
                    DiagnosticKind::MalformedEvent,
                    format!("`{kind}` without `payload`"),
                ),
                false => unknown_line(line, kind),
            };
            return out.diagnostic(diagnostic);
        };
        let at = parsed.timestamp.map(|time| Timestamp::from(time.as_ref()));
        match kind {
            "session_meta" => self.session_meta(line, payload, out),
            "response_item" => {
                let at = At {
                    line,
                    at,
                    session: self.session.as_deref(),
                };
                response::read(
                    &at,
                    payload,
                    &mut self.items,
                    &mut self.spawns,
                    &mut self.cells,
                    out,
                );
            }
            "event_msg" => {
                let at = At {
                    line,
                    at,
                    session: self.session.as_deref(),
                };
                events::read(&at, payload, &mut self.items, &mut self.spawns, out);
            }
            // Settings, model context, token accounting, compaction: no call in them.
            "turn_context"
            | "compacted"
            | "world_state"
            | "token_usage_record"
            | "inter_agent_communication_metadata" => {}
            other => out.diagnostic(unknown_line(line, other)),
        }
    }
}

impl CodexRolloutAdapter {
    /// A session begins: the thread's id, and its working directory.
    fn session_meta(&mut self, line: u64, payload: &str, out: &mut Facts<'_>) {
        let meta: SessionMeta<'_> = match serde_json::from_str(payload) {
            Ok(meta) => meta,
            Err(error) => return out.diagnostic(json::malformed(line, "`session_meta`", &error)),
        };
        if let Some(id) = meta.id.as_deref() {
            out.begin_session(id);
            // Its calls are the file's own: no spawning call to wait for.
            self.items.thread_started(line, id, None, out);
            self.session = Some(id.to_owned());
        }
        if let Some(cwd) = meta.cwd.as_deref() {
            out.set_cwd(cwd);
        }
        if let Some(version) = meta.cli_version.as_deref() {
            out.agent_version(version);
        }
    }
}

fn unknown_line(line: u64, kind: &str) -> Diagnostic {
    Diagnostic::notice(
        line,
        DiagnosticKind::UnknownEvent,
        format!("unknown Codex rollout line type `{kind}`"),
    )
}
