//! Claude Code: `claude -p --output-format stream-json --verbose` and the session
//! transcripts Claude Code writes under its config dir (`projects/…/*.jsonl`).
//!
//! | line | canonical events | module |
//! | --- | --- | --- |
//! | `system` `init`; any transcript line's `cwd` | (remembers `cwd`) | |
//! | `assistant` with `tool_use` / `server_tool_use` / `mcp_tool_use` | `toolCallStarted` (or `inputUpdated` when partial messages started it) | |
//! | `assistant` with `web_search_tool_result` / `web_fetch_tool_result` / `mcp_tool_result` | `toolCallCompleted` / `toolCallFailed` of the server tool | `results` |
//! | `user` with `tool_result` | `toolCallCompleted`, or `toolCallFailed` when `is_error` | `results` |
//! | `stream_event` `content_block_start` / `input_json_delta` | `toolCallStarted`, then `inputUpdated` as the input streams | `stream` |
//! | `system` `task_started` / `task_progress` / `task_updated` | `metadataMerged` of `metadata.task` on the spawning call | `tasks` |
//! | `system` `task_notification` | finishes a background subagent call | `tasks` |
//! | `system` `permission_denied`, `result.permission_denials` | the call fails with code `permission_denied` | `permissions` |
//! | `control_request` `can_use_tool`, the host's `control_response` | `approvalRequested`, `approvalResolved` | `permissions` |
//! | `tool_progress` | `toolCallRunning` | `progress` |
//! | the lines `known` lists (hooks, retries, notices, rate limits, transcript state) | (skipped) | `known` |
//!
//! Errors: a shell call's (kind `bash`) result `Exit code N` fails with code `exit_code`
//! and `details.exitCode`; a denied permission with `permission_denied`; a call the user
//! rejected with `user_rejected` (the `results` module has the whole table). A subagent
//! call answered with `status: async_launched` runs in the background until its
//! `task_notification`. Calls inside a subagent carry `metadata.parentToolCallId`; a call
//! another tool made (code execution calling tools: the block's `caller`) carries
//! `metadata.caller`.
//!
//! `envelope` reads what every line has. A line type or `system` subtype that is neither
//! read nor listed in `known` is a notice.

use std::any::Any;
use std::borrow::Cow;

use serde::Deserialize;

use toolnorm_wire::claude_messages as wire;

use crate::Dialect;
use crate::adapter::Adapter;
use crate::diagnostic::{Diagnostic, DiagnosticKind};
use crate::dialects::Entry;
use crate::dialects::read_ahead::{ReadAhead, Scanned};
use crate::read::json;
use crate::read::line_keys::LineKeys;
use crate::track::Facts;

mod envelope;
mod known;
mod others;
mod permissions;
mod progress;
mod result_block;
mod results;
mod scan;
mod stream;
mod tasks;
mod tool_use;

use envelope::{Block, Envelope};
use tool_use::{
    MCP_TOOL_USE, NON_TOOL_BLOCKS, OtherToolResult, OtherToolUse, SERVER_TOOL_USE, TOOL_USE,
    ToolUse,
};

/// The dialect this module reads.
pub(crate) const DIALECT: Dialect = Dialect::new("claude-code", "claude-code");

/// Its rules file (the kind and title of each of its tools), as `(origin, TOML text)`.
pub(crate) const RULES: (&str, &str) = (
    "src/dialects/claude_code/rules.toml",
    include_str!("rules.toml"),
);

impl Dialect {
    /// Claude Code `--output-format stream-json`, and its session transcripts.
    pub const CLAUDE_CODE: Dialect = DIALECT;
}

/// Its row of the dialect table.
pub(crate) const ENTRY: Entry = Entry {
    dialect: DIALECT,
    summary: "Claude Code stream-json or session transcript",
    feature: "claude-code",
    rules: RULES,
    claims,
    adapter: |_| Box::new(ClaudeCodeAdapter::new()),
    read_ahead: Some(READ_AHEAD),
    recordings: &["claude-code"],
    agent_version: "`claude_code_version` of stream-json's `system` `init`; `version` of each transcript line",
    stores: &[crate::Store::at(".claude", "projects/**/*.jsonl").or_env("CLAUDE_CONFIG_DIR")],
};

/// Claude Code stream-json and transcript line types that identify the dialect.
const LINE_TYPES: &[&str] = &[
    "system",
    "assistant",
    "user",
    "result",
    "stream_event",
    "summary",
    "file-history-snapshot",
    "queue-operation",
    "attachment",
    "last-prompt",
];

/// Whether a line is Claude Code's: a message or record `type` of its own, outside
/// JSON-RPC and OpenCode envelopes. A `user`/`assistant` line has its `message`, a `result` its `subtype` (Gemini CLI
/// writes records of those types without them); a `message` with `parts` and a `system`
/// line with `systemPayload` are Qwen Code's session records, a `system` line with
/// `reasoning_effort` Factory Droid's stream-json `init`.
pub(crate) fn claims(keys: &LineKeys<'_>) -> bool {
    !keys.has("method")
        && !keys.has("payload")
        && !keys.has("qwen_code_version")
        && !others::claim(keys)
        && keys.kind().as_deref().is_some_and(|kind| match kind {
            // Qwen Code's session records hold Gemini's `parts` in this envelope.
            "user" | "assistant" => keys.has("message") && !keys.object_has("message", "parts"),
            "result" => keys.has("subtype"),
            // A `system` line naming a `reasoning_effort` is Factory Droid's `init`.
            "system" => !keys.has("systemPayload") && !keys.has("reasoning_effort"),
            kind => LINE_TYPES.contains(&kind),
        })
}

/// Reads Claude Code stream-json and transcripts (and Qwen Code's stream-json, which
/// has the same shape).
pub struct ClaudeCodeAdapter {
    /// The dialect its calls are said to be in: Claude Code's, or Qwen Code's.
    dialect: Dialect,
    /// Tool-use blocks being streamed.
    streams: stream::Streams,
    /// Calls a permission check denied, waiting for their result.
    denials: permissions::Denials,
    /// Subagent tasks and the calls that spawned them.
    tasks: tasks::Tasks,
}

impl Default for ClaudeCodeAdapter {
    fn default() -> Self {
        Self::for_dialect(DIALECT)
    }
}

impl ClaudeCodeAdapter {
    /// An adapter at the start of a stream.
    pub fn new() -> Self {
        Self::default()
    }

    /// An adapter at the start of a stream in Claude Code's shape written by another
    /// CLI (Qwen Code): the calls carry that `dialect`'s provider, so its rules apply.
    pub(crate) fn for_dialect(dialect: Dialect) -> Self {
        ClaudeCodeAdapter {
            dialect,
            streams: Default::default(),
            denials: Default::default(),
            tasks: Default::default(),
        }
    }
}

impl Adapter for ClaudeCodeAdapter {
    fn dialect(&self) -> Dialect {
        self.dialect
    }

    fn line(&mut self, line: u64, bytes: &[u8], out: &mut Facts<'_>) {
        self.read(line, bytes, scan::scan(bytes), out);
    }
}

/// A line's one scan, read ahead of it.
pub(crate) struct Prescan<'a>(Option<Box<Envelope<'a>>>);

/// How Claude Code's lines are read ahead: their one scan, and a stream event's event.
pub(crate) const READ_AHEAD: ReadAhead = ReadAhead {
    scan: read_ahead,
    line: read_scanned,
};

/// Reads a line ahead: its one scan, and a stream event's event.
fn read_ahead(bytes: &[u8]) -> Scanned<'_> {
    let scanned = scan::scan(bytes).map(|mut envelope| {
        if envelope.kind.as_deref() == Some("stream_event")
            && let (Some(event), Some(scanned)) = (envelope.event, envelope.scanned.as_mut())
        {
            scanned.event = Some(stream::read_event(event));
        }
        Box::new(envelope)
    });
    Scanned::ClaudeCode(Prescan(scanned))
}

/// Has `adapter` read a line with its scan read ahead.
fn read_scanned<'a>(
    adapter: &mut dyn Adapter,
    line: u64,
    bytes: &'a [u8],
    scanned: Scanned<'a>,
    out: &mut Facts<'_>,
) {
    if let Scanned::ClaudeCode(Prescan(scanned)) = scanned
        && let Some(claude) = (&mut *adapter as &mut dyn Any).downcast_mut::<ClaudeCodeAdapter>()
    {
        return claude.read(line, bytes, scanned.map(|envelope| *envelope), out);
    }
    adapter.line(line, bytes, out);
}

impl ClaudeCodeAdapter {
    /// Reads one line, given its one scan (`None`: the scan gave up on it).
    fn read<'a>(
        &mut self,
        line: u64,
        bytes: &'a [u8],
        scanned: Option<Envelope<'a>>,
        out: &mut Facts<'_>,
    ) {
        // One scan of the line reads nearly every line (often ahead of it, on another
        // thread); the rest are read field by field, which also says what is wrong with
        // them.
        let mut envelope: Envelope<'_> = match scanned {
            Some(envelope) => envelope,
            None => match json::parse_line(line, bytes, "not a Claude Code message") {
                Ok(envelope) => envelope,
                Err(diagnostic) => return out.diagnostic(diagnostic),
            },
        };
        // A transcript's sidechain line is its subagent's: inside the call that spawned
        // it, once that is known (its result names the agent).
        if envelope.parent_tool_use_id.is_none()
            && let Some(call) = envelope
                .sidechain_agent()
                .and_then(|agent| self.tasks.spawner(agent))
        {
            envelope.parent_tool_use_id = Some(Cow::Owned(call.to_owned()));
        }
        // Transcript lines carry the session's directory on every line.
        if let Some(cwd) = envelope.cwd.as_deref()
            && out.cwd().is_none()
        {
            out.set_cwd(cwd);
        }
        let Some(kind) = envelope.kind.as_deref() else {
            out.diagnostic(Diagnostic::at(
                line,
                DiagnosticKind::MalformedEvent,
                "a line without `type`",
            ));
            return;
        };
        // A stream-json run (`claude -p`, a resumed session) begins with `system` `init`;
        // its calls are its own. Transcripts have no such line: a new session id is a new
        // session (files concatenated). A later line naming a run's session belongs to
        // that run, so the runs of streams merged line by line keep their calls apart.
        let version = (envelope.claude_code_version.as_deref())
            .or(envelope.qwen_code_version.as_deref())
            .or(envelope.version.as_deref());
        if let Some(version) = version {
            out.agent_version(version);
        }
        if kind == "system"
            && envelope.subtype.as_deref() == Some("init")
            && let Some(session) = envelope.session_id.as_deref()
        {
            out.begin_session(session);
        } else if let Some(session) = envelope.transcript_session.as_deref() {
            out.session(session);
        } else if let Some(session) = envelope.session_id.as_deref() {
            out.back_to_session(session);
        }
        match kind {
            "assistant" => {
                let blocks = envelope.blocks(line, out);
                self.assistant(line, &envelope, blocks, out);
            }
            "user" => {
                let blocks = envelope.blocks(line, out);
                self.user(line, &envelope, blocks, out);
            }
            "progress" => self.progress(line, &envelope, out),
            "stream_event" => {
                let read = (envelope.scanned.as_mut()).and_then(|scanned| scanned.event.take());
                self.streams.event(line, &envelope, read, out);
            }
            "system" => self.system(line, bytes, &envelope, out),
            "tool_progress" => progress::tool_progress(line, bytes, out),
            "control_request" => self.denials.control_request(line, bytes, out),
            "control_response" => self.denials.control_response(line, bytes, out),
            "result" => {
                let denials = envelope
                    .scanned
                    .as_ref()
                    .map(|scanned| scanned.permission_denials);
                self.denials.turn_ended(line, bytes, denials, out);
                results::run_ended(line, bytes, &envelope, out);
            }
            other if known::without_calls(other) => {}
            // Tool calls come in `assistant`, `user`, `stream_event` and `system`
            // messages: a new line type is a notice.
            other => out.diagnostic(Diagnostic::notice(
                line,
                DiagnosticKind::UnknownEvent,
                format!("unknown Claude Code message type `{other}`"),
            )),
        }
    }
}

impl ClaudeCodeAdapter {
    fn assistant(
        &mut self,
        line: u64,
        envelope: &Envelope<'_>,
        blocks: Vec<Block<'_>>,
        out: &mut Facts<'_>,
    ) {
        let at = envelope.at();
        for block in blocks {
            let (kind, block) = match block {
                Block::ToolUse(block) => {
                    self.streams.sighted(line, block.into(), envelope, out);
                    continue;
                }
                Block::ToolResult(_) | Block::Skipped => continue,
                Block::Raw(kind, block) => (kind, block),
            };
            let text = block.get();
            let result = match kind.as_ref() {
                // A block the schema's type does not read (a `caller` of a newer kind) is
                // read by what identifies the call.
                TOOL_USE => serde_json::from_str::<wire::BetaToolUseBlock>(text)
                    .map(ToolUse::from)
                    .or_else(|error| {
                        serde_json::from_str::<OtherToolUse>(text)
                            .map(|block| ToolUse::other(block, TOOL_USE))
                            .map_err(|_| error)
                    })
                    .map(|block| self.streams.sighted(line, block, envelope, out)),
                // The schema lists the server tools it knows; one it does not (a newer API's)
                // is read by what identifies the call.
                SERVER_TOOL_USE => serde_json::from_str::<wire::BetaServerToolUseBlock>(text)
                    .map(ToolUse::from)
                    .or_else(|error| {
                        serde_json::from_str::<OtherToolUse>(text)
                            .map(|block| ToolUse::other(block, SERVER_TOOL_USE))
                            .map_err(|_| error)
                    })
                    .map(|block| self.streams.sighted(line, block, envelope, out)),
                MCP_TOOL_USE => serde_json::from_str::<wire::BetaMcpToolUseBlock>(text)
                    .map(|block| self.streams.sighted(line, block.into(), envelope, out)),
                "web_search_tool_result" => {
                    serde_json::from_str::<wire::BetaWebSearchToolResultBlock>(text).map(|result| {
                        let id = &result.tool_use_id;
                        results::server_result(line, id, &result.content, at.clone(), out);
                    })
                }
                "web_fetch_tool_result" => {
                    serde_json::from_str::<wire::BetaWebFetchToolResultBlock>(text).map(|result| {
                        let id = &result.tool_use_id;
                        results::server_result(line, id, &result.content, at.clone(), out);
                    })
                }
                "mcp_tool_result" => serde_json::from_str::<wire::BetaMcpToolResultBlock>(text)
                    .map(|result| results::mcp_result(line, result, at.clone(), out)),
                other if NON_TOOL_BLOCKS.contains(&other) => Ok(()),
                // A server tool this version does not know (`code_execution_tool_result`,
                // `tool_search_tool_result`, …): its result ends the call its use started.
                other if other.ends_with("_tool_result") => {
                    serde_json::from_str::<OtherToolResult>(text).map(|result| {
                        let id = &result.tool_use_id;
                        results::server_result(line, id, &result.content, at.clone(), out);
                    })
                }
                // A tool-use block of a type this version does not know is still a call.
                other if other.ends_with("tool_use") => serde_json::from_str::<OtherToolUse>(text)
                    .map(|block| {
                        out.diagnostic(Diagnostic::notice(
                            line,
                            DiagnosticKind::UnknownEvent,
                            format!("unknown content block type `{other}`, read as a tool call"),
                        ));
                        let block = ToolUse::other(block, other);
                        self.streams.sighted(line, block, envelope, out);
                    }),
                other => {
                    out.diagnostic(Diagnostic::notice(
                        line,
                        DiagnosticKind::UnknownEvent,
                        format!("unknown content block type `{other}`"),
                    ));
                    Ok(())
                }
            };
            if let Err(error) = result {
                out.diagnostic(json::malformed(line, &format!("`{kind}` block"), &error));
            }
        }
    }

    /// A transcript's `progress` line. Some versions write a subagent's messages into the
    /// parent transcript this way (`data.type = "agent_progress"`, the subagent's message
    /// in `data.message`, the spawning call in `parentToolUseID`): its tool calls are read
    /// as the subagent's, with `parentToolCallId`. Other progress (shell output, hooks)
    /// carries no call.
    fn progress(&mut self, line: u64, envelope: &Envelope<'_>, out: &mut Facts<'_>) {
        #[derive(Deserialize)]
        struct Data<'a> {
            #[serde(borrow, rename = "type", default)]
            kind: Option<Cow<'a, str>>,
            #[serde(borrow, default)]
            message: Option<&'a serde_json::value::RawValue>,
        }
        let Some(data) = envelope
            .data
            .and_then(|data| serde_json::from_str::<Data<'_>>(data.get()).ok())
        else {
            return;
        };
        let (Some("agent_progress"), Some(message)) = (data.kind.as_deref(), data.message) else {
            return;
        };
        let mut nested: Envelope<'_> = match serde_json::from_str(message.get()) {
            Ok(nested) => nested,
            Err(error) => {
                return out.diagnostic(json::malformed(line, "`agent_progress` message", &error));
            }
        };
        if nested.parent_tool_use_id.is_none() {
            nested.parent_tool_use_id = envelope.progress_parent.clone();
        }
        if nested.timestamp.is_none() {
            nested.timestamp = envelope.timestamp.clone();
        }
        match nested.kind.as_deref() {
            Some("assistant") => {
                let blocks = nested.blocks(line, out);
                self.assistant(line, &nested, blocks, out);
            }
            Some("user") => {
                let blocks = nested.blocks(line, out);
                self.user(line, &nested, blocks, out);
            }
            _ => {}
        }
    }

    fn system(&mut self, line: u64, bytes: &[u8], envelope: &Envelope<'_>, out: &mut Facts<'_>) {
        let subtype = envelope.subtype.as_deref().unwrap_or_default();
        let result = match subtype {
            "init" => {
                if let Some(cwd) = &envelope.cwd {
                    out.set_cwd(cwd.as_ref());
                }
                Ok(())
            }
            "task_started" => serde_json::from_slice::<wire::SdkTaskStartedMessage>(bytes)
                .map(|started| self.tasks.started(line, started, out)),
            "task_progress" => serde_json::from_slice::<wire::SdkTaskProgressMessage>(bytes)
                .map(|progress| self.tasks.progress(line, progress, out)),
            "task_updated" => serde_json::from_slice::<wire::SdkTaskUpdatedMessage>(bytes)
                .map(|updated| self.tasks.updated(line, updated, out)),
            "task_notification" => serde_json::from_slice::<wire::SdkTaskNotificationMessage>(
                bytes,
            )
            .map(|notification| {
                self.tasks
                    .notification(line, notification, envelope.at(), out)
            }),
            "permission_denied" => {
                self.denials.announced(line, bytes, envelope, out);
                Ok(())
            }
            other if known::system_without_calls(other) || known::hook_event(other) => Ok(()),
            other => {
                out.diagnostic(Diagnostic::notice(
                    line,
                    DiagnosticKind::UnknownEvent,
                    format!("unknown Claude Code system message `{other}`"),
                ));
                Ok(())
            }
        };
        if let Err(error) = result {
            out.diagnostic(json::malformed(
                line,
                &format!("system `{subtype}` message"),
                &error,
            ));
        }
    }
}

#[cfg(test)]
mod tests {
    use serde_json::Value;
    use toolnorm::NormalizedToolPart;

    use crate::Dialect;
    use crate::dialects::claim_checks::{self, one_a_line};

    /// The parts Claude Code lines make; no line may give a diagnostic.
    pub(super) fn parts(lines: &[Value]) -> Vec<NormalizedToolPart> {
        claim_checks::read(Dialect::CLAUDE_CODE, &one_a_line(lines)).clean_parts()
    }

    /// The one part Claude Code lines make.
    pub(super) fn part(lines: &[Value]) -> NormalizedToolPart {
        let mut parts = parts(lines);
        assert_eq!(parts.len(), 1, "{parts:#?}");
        parts.remove(0)
    }

    /// The parts and the diagnostics (as shown) of Claude Code lines.
    fn run(lines: &[Value]) -> (Vec<NormalizedToolPart>, Vec<String>) {
        let reading = claim_checks::read(Dialect::CLAUDE_CODE, &one_a_line(lines));
        let diagnostics = reading
            .diagnostics
            .iter()
            .map(ToString::to_string)
            .collect();
        (reading.parts, diagnostics)
    }

    #[test]
    fn a_subagents_calls_written_as_agent_progress_come_out_with_their_parent() {
        let progress = |message: serde_json::Value| {
            serde_json::json!({"type": "progress", "parentToolUseID": "toolu_task",
                "toolUseID": "agent_msg_1", "sessionId": "s",
                "timestamp": "2026-01-01T00:00:05.000Z",
                "data": {"type": "agent_progress", "agentId": "a1", "message": message}})
        };
        let parts = parts(&[
            serde_json::json!({"type": "assistant", "sessionId": "s", "message": {"content": [
                {"type": "tool_use", "id": "toolu_task", "name": "Task",
                 "input": {"description": "Count", "prompt": "count"}}]}}),
            progress(
                serde_json::json!({"type": "assistant", "message": {"content": [
                {"type": "tool_use", "id": "toolu_child", "name": "Bash",
                 "input": {"command": "ls | wc -l"}}]}}),
            ),
            progress(serde_json::json!({"type": "user", "message": {"content": [
                {"type": "tool_result", "tool_use_id": "toolu_child", "content": "3"}]}})),
            serde_json::json!({"type": "progress", "parentToolUseID": "toolu_task",
                "data": {"type": "bash_progress", "output": "…"}}),
        ]);
        assert_eq!(parts.len(), 2);
        let child = &parts[1];
        assert_eq!(child.id, "toolu_child");
        assert_eq!(child.state.as_str(), "complete");
        assert_eq!(
            child.metadata.as_ref().unwrap()["parentToolCallId"],
            "toolu_task"
        );
    }

    #[test]
    fn a_server_tool_this_version_does_not_know_still_ends() {
        let call = part(&[
            serde_json::json!({"type": "assistant", "message": {"content": [
                {"type": "server_tool_use", "id": "srvtoolu_1", "name": "code_execution",
                 "input": {"code": "print(1)"}},
                {"type": "code_execution_tool_result", "tool_use_id": "srvtoolu_1",
                 "content": {"type": "code_execution_result", "stdout": "1\n", "return_code": 0}}
            ]}}),
        ]);
        assert_eq!(call.state.as_str(), "complete");
        assert_eq!(call.output.unwrap()["stdout"], "1\n");

        let failed = part(&[
            serde_json::json!({"type": "assistant", "message": {"content": [
                {"type": "server_tool_use", "id": "srvtoolu_2", "name": "tool_search", "input": {}},
                {"type": "tool_search_tool_result", "tool_use_id": "srvtoolu_2",
                 "content": {"type": "tool_search_tool_result_error", "error_code": "unavailable"}}
            ]}}),
        ]);
        assert_eq!(failed.state.as_str(), "error");
        assert_eq!(failed.error.unwrap().code.unwrap().as_str(), "unavailable");
    }

    #[test]
    fn a_caller_the_schema_does_not_know_keeps_the_call() {
        let caller =
            serde_json::json!({"type": "code_execution_20260601", "tool_id": "srvtoolu_9"});
        let block = serde_json::json!({"type": "tool_use", "id": "toolu_1", "name": "Bash",
            "input": {"command": "ls"}, "caller": caller});
        let whole = part(&[serde_json::json!({"type": "assistant", "session_id": "s",
            "message": {"content": [block.clone()]},
            "wire_tool_inputs": {"toolu_1": {"command": "cd /w && ls"}}})]);
        assert_eq!(whole.name, "Bash");
        assert_eq!(whole.input["command"], "ls");
        assert_eq!(whole.metadata.as_ref().unwrap()["caller"], caller);
        let mut empty = block.clone();
        empty["input"] = serde_json::json!({});
        let streamed = part(&[
            serde_json::json!({"type": "stream_event", "session_id": "s", "event":
                {"type": "content_block_start", "index": 0, "content_block": empty}}),
            serde_json::json!({"type": "stream_event", "session_id": "s", "event":
                {"type": "content_block_delta", "index": 0, "delta":
                    {"type": "input_json_delta", "partial_json": "{\"command\": \"ls\"}"}}}),
        ]);
        assert_eq!(streamed.input["command"], "ls");
        assert_eq!(streamed.metadata.as_ref().unwrap()["caller"], caller);
        // A direct call says nothing of its caller.
        let mut direct = block;
        direct["caller"] = serde_json::json!({"type": "direct"});
        let direct = part(&[serde_json::json!({"type": "assistant",
            "message": {"content": [direct]}})]);
        assert!(!direct.metadata.unwrap().contains_key("caller"));
    }

    #[test]
    fn a_tool_use_block_of_a_new_type_is_a_call_with_a_notice() {
        let (parts, diagnostics) = run(&[serde_json::json!({"type": "assistant", "message":
        {"content": [
            {"type": "thinking", "thinking": "hm"},
            {"type": "future_tool_use", "id": "ftu_1", "name": "teleport", "input": {"to": "x"}},
            {"type": "hologram", "data": 1}
        ]}})]);
        assert_eq!(parts.len(), 1);
        assert_eq!(parts[0].id, "ftu_1");
        assert_eq!(
            parts[0].metadata.as_ref().unwrap()["itemType"],
            "future_tool_use"
        );
        assert_eq!(
            diagnostics,
            [
                "line 1: notice: unknown content block type `future_tool_use`, read as a tool call",
                "line 1: notice: unknown content block type `hologram`",
            ]
        );
        // One that cannot be read as a call is an error.
        let (parts, diagnostics) = run(&[serde_json::json!({"type": "assistant", "message":
            {"content": [{"type": "future_tool_use", "name": "teleport"}]}})]);
        assert!(parts.is_empty());
        assert_eq!(diagnostics.len(), 1);
        assert!(!diagnostics[0].contains("notice"), "{diagnostics:?}");
    }
}
