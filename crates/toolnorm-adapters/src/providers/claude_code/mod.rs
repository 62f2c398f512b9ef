//! Claude Code: `claude -p --output-format stream-json --verbose` and the session
//! transcripts Claude Code writes under its config dir (`projects/…/*.jsonl`).
//!
//! | line | canonical events |
//! | --- | --- |
//! | `system` `init` | (remembers `cwd` and the MCP servers) |
//! | `assistant` with `tool_use` / `server_tool_use` / `mcp_tool_use` | `toolCallStarted` (or `inputUpdated` when partial messages started it) |
//! | `assistant` with `web_search_tool_result` / `web_fetch_tool_result` / `mcp_tool_result` | `toolCallCompleted` / `toolCallFailed` of the server tool |
//! | `user` with `tool_result` | `toolCallCompleted`, or `toolCallFailed` when `is_error` |
//! | `stream_event` `content_block_start` / `input_json_delta` | `toolCallStarted`, then `inputUpdated` as the input streams |
//! | `system` `task_started` / `task_progress` / `task_updated` | `metadataMerged` of `metadata.task` on the spawning call |
//! | `system` `task_notification` | finishes a background subagent call |
//! | `system` `permission_denied`, `result.permission_denials` | the call fails with code `permission_denied` |
//!
//! Errors: a `Bash` result `Exit code N` fails with code `exit_code` and
//! `details.exitCode`; a denied permission with `permission_denied`; a call the user
//! rejected with `user_rejected`. A subagent launched in the background (`Task`/`Agent`
//! answered with `status: async_launched`) stays running until its `task_notification`.
//! Calls inside a subagent carry `metadata.parentToolCallId`.

use std::collections::HashMap;

use serde::Deserialize;
use serde_json::Value;
use serde_json::value::RawValue;
use toolnorm::{JsonObject, Timestamp, ToolError};
use toolnorm_wire::claude_messages as wire;

use crate::Dialect;
use crate::diagnostic::{Diagnostic, DiagnosticKind};
use crate::providers::Adapter;
use crate::read::json;
use crate::rules::mcp;
use crate::track::Facts;
use crate::track::{Ending, Sighting, USER_DECLINED, exit_code_error, text_error};

use crate::read::probe::Probe;

mod envelope;
mod stream;
mod tasks;

use envelope::{Envelope, block_type};
use stream::Streams;
use tasks::Tasks;

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
/// JSON-RPC and OpenCode envelopes.
pub(crate) fn claims(probe: &Probe<'_>) -> bool {
    probe.method.is_none()
        && probe.payload.is_none()
        && probe.kind().is_some_and(|kind| LINE_TYPES.contains(&kind))
}

/// Line types that carry nothing about tools (stream-json and transcripts).
const IGNORED_TYPES: &[&str] = &[
    "summary",
    "file-history-snapshot",
    "attachment",
    "queue-operation",
    "api-request",
    "last-prompt",
    "tools-used",
    "cost-state",
    "atis-latch",
    "custom-title",
    "tool_progress",
    "tool_use_summary",
    "auth_status",
    "rate_limit_event",
    "keep_alive",
    "progress",
];

/// `system` subtypes that carry nothing about tools.
const IGNORED_SUBTYPES: &[&str] = &[
    "status",
    "background_tasks_changed",
    "compact_boundary",
    "hook_started",
    "hook_progress",
    "hook_response",
    "api_error",
    "informational",
    "local_command",
    "files_persisted",
    "session_state_changed",
    "turn_duration",
    "stop_hook_summary",
];

/// Reads Claude Code stream-json and transcripts.
pub struct ClaudeCodeAdapter {
    /// Tool-use blocks being streamed.
    streams: Streams,
    /// Calls a permission check denied, with the reason.
    denied: HashMap<String, String>,
    /// Subagent tasks and the calls that spawned them.
    tasks: Tasks,
}

impl ClaudeCodeAdapter {
    /// An adapter using these title rules.
    pub fn new() -> Self {
        ClaudeCodeAdapter {
            streams: Streams::default(),
            denied: HashMap::new(),
            tasks: Tasks::default(),
        }
    }
}

impl Adapter for ClaudeCodeAdapter {
    fn dialect(&self) -> Dialect {
        Dialect::CLAUDE_CODE
    }

    fn line(&mut self, line: u64, bytes: &[u8], out: &mut Facts<'_>) {
        let envelope: Envelope<'_> =
            match json::parse_line(line, bytes, "not a Claude Code message") {
                Ok(envelope) => envelope,
                Err(diagnostic) => return out.diagnostic(diagnostic),
            };
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
        match kind {
            "assistant" => self.assistant(line, &envelope, out),
            "user" => self.user(line, &envelope, out),
            "stream_event" => self.streams.event(line, &envelope, out),
            "system" => self.system(line, bytes, &envelope, out),
            "result" => self.result(line, bytes, out),
            other if IGNORED_TYPES.contains(&other) => {}
            other => out.diagnostic(Diagnostic::at(
                line,
                DiagnosticKind::UnknownEvent,
                format!("unknown Claude Code message type `{other}`"),
            )),
        }
    }
}

impl ClaudeCodeAdapter {
    fn assistant(&mut self, line: u64, envelope: &Envelope<'_>, out: &mut Facts<'_>) {
        let at = envelope.at();
        for block in envelope.blocks(line, out) {
            let kind = match block_type(block) {
                Ok(kind) => kind,
                Err(error) => {
                    out.diagnostic(json::malformed(line, "content block", &error));
                    continue;
                }
            };
            let text = block.get();
            let result = match kind.as_ref() {
                TOOL_USE => serde_json::from_str::<wire::BetaToolUseBlock>(text)
                    .map(|block| self.streams.sighted(line, block.into(), envelope, out)),
                SERVER_TOOL_USE => serde_json::from_str::<wire::BetaServerToolUseBlock>(text)
                    .map(|block| self.streams.sighted(line, block.into(), envelope, out)),
                MCP_TOOL_USE => serde_json::from_str::<wire::BetaMcpToolUseBlock>(text)
                    .map(|block| self.streams.sighted(line, block.into(), envelope, out)),
                "web_search_tool_result" => {
                    serde_json::from_str::<wire::BetaWebSearchToolResultBlock>(text).map(|result| {
                        let content = serde_json::to_value(&result.content).unwrap_or(Value::Null);
                        self.server_result(line, &result.tool_use_id, content, at.clone(), out);
                    })
                }
                "web_fetch_tool_result" => {
                    serde_json::from_str::<wire::BetaWebFetchToolResultBlock>(text).map(|result| {
                        let content = serde_json::to_value(&result.content).unwrap_or(Value::Null);
                        self.server_result(line, &result.tool_use_id, content, at.clone(), out);
                    })
                }
                "mcp_tool_result" => serde_json::from_str::<wire::BetaMcpToolResultBlock>(text)
                    .map(|result| {
                        let content = serde_json::to_value(&result.content).unwrap_or(Value::Null);
                        let ending = Ending {
                            at: at.clone(),
                            ..Ending::default()
                        };
                        if result.is_error {
                            let error = ToolError::new(
                                content_text(&content)
                                    .unwrap_or_else(|| "the MCP tool failed".into()),
                            )
                            .with_details(content);
                            out.fail(line, &result.tool_use_id, error, ending);
                        } else {
                            out.complete(line, &result.tool_use_id, Some(content), ending);
                        }
                    }),
                _ => Ok(()),
            };
            if let Err(error) = result {
                out.diagnostic(json::malformed(line, &format!("`{kind}` block"), &error));
            }
        }
    }

    /// A server tool's result block: an `*_tool_result_error` content is a failure.
    fn server_result(
        &mut self,
        line: u64,
        id: &str,
        content: Value,
        at: Option<Timestamp>,
        out: &mut Facts<'_>,
    ) {
        let ending = Ending {
            at,
            ..Ending::default()
        };
        let error_code = content
            .get("type")
            .and_then(Value::as_str)
            .filter(|kind| kind.ends_with("_error"))
            .and(content.get("error_code").and_then(Value::as_str));
        match error_code {
            Some(code) => {
                let error = ToolError::new(format!("the server tool failed: {code}"))
                    .with_code(code)
                    .with_details(content.clone());
                out.fail(line, id, error, ending);
            }
            None => out.complete(line, id, Some(content), ending),
        }
    }

    fn user(&mut self, line: u64, envelope: &Envelope<'_>, out: &mut Facts<'_>) {
        let at = envelope.at();
        let blocks = envelope.blocks(line, out);
        let results: Vec<_> = blocks
            .into_iter()
            .filter(|block| match block_type(block) {
                Ok(kind) => kind == "tool_result",
                Err(error) => {
                    out.diagnostic(json::malformed(line, "content block", &error));
                    false
                }
            })
            .collect();
        // The structured result (`tool_use_result`) belongs to the one result of its message.
        let structured = match results.as_slice() {
            [_] => envelope
                .tool_use_result
                .and_then(|raw| serde_json::from_str::<tasks::Launch>(raw.get()).ok()),
            _ => None,
        };
        let meta: Vec<Value> = envelope
            .tool_result_meta
            .and_then(|raw| serde_json::from_str(raw.get()).ok())
            .unwrap_or_default();
        // How the permission check decided, once per message.
        let refused_by_rule = envelope
            .permission_decision
            .and_then(|raw| serde_json::from_str::<Value>(raw.get()).ok())
            .and_then(|decision| decision.get("decision")?.as_str().map(str::to_owned))
            .is_some_and(|decision| matches!(decision.as_str(), "reject" | "deny"));
        for block in results {
            let result = match serde_json::from_str::<wire::ToolResultBlockParam>(block.get()) {
                Ok(result) => result,
                Err(error) => {
                    out.diagnostic(json::malformed(line, "`tool_result` block", &error));
                    continue;
                }
            };
            if refused_by_rule {
                self.denied
                    .entry(result.tool_use_id.clone())
                    .or_insert_with(|| "permission denied".to_owned());
            }
            let rejected = meta.iter().any(|entry| {
                entry.get("id").and_then(Value::as_str) == Some(result.tool_use_id.as_str())
                    && entry.get("non_execution_kind").and_then(Value::as_str)
                        == Some("user-rejected")
            });
            self.tool_result(line, result, structured.as_ref(), rejected, at.clone(), out);
        }
    }

    fn tool_result(
        &mut self,
        line: u64,
        result: wire::ToolResultBlockParam,
        structured: Option<&tasks::Launch>,
        rejected: bool,
        at: Option<Timestamp>,
        out: &mut Facts<'_>,
    ) {
        let id = result.tool_use_id;
        // A text result is moved, not copied: it can be the biggest thing in the stream.
        let content = result.content.map(|content| match content {
            wire::ToolResultBlockParamContent::String(text) => Value::String(text),
            blocks => serde_json::to_value(&blocks).unwrap_or(Value::Null),
        });
        let ending = Ending {
            at: at.clone(),
            ..Ending::default()
        };
        if result.is_error == Some(true) {
            let text = content.as_ref().and_then(content_text).unwrap_or_default();
            let is_mcp = out
                .name(&id)
                .is_some_and(|name| mcp::split_double_underscore(name).is_some());
            let error = if let Some(reason) = self.denied.remove(&id) {
                let reason = if reason == "permission denied" {
                    first_line(&text)
                } else {
                    reason
                };
                ToolError::new(reason).with_code("permission_denied")
            } else if rejected || text.starts_with(USER_DECLINED) {
                ToolError::new(first_line(&text)).with_code("user_rejected")
            } else if out.name(&id) == Some("Bash")
                && let Some(error) = exit_code_error(&text)
            {
                error
            } else if let Some(inner) = tool_use_error(&text) {
                text_error(inner).with_code("invalid_tool_use")
            } else if is_mcp {
                text_error(&text).with_code("mcp_error")
            } else {
                text_error(&text)
            };
            out.fail(line, &id, error, ending);
            return;
        }
        if let Some(launch) = structured.filter(|launch| launch.in_background()) {
            self.tasks.launched(line, &id, launch, at, out);
            return;
        }
        out.complete(line, &id, content, ending);
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
                match (
                    &envelope.tool_use_id,
                    serde_json::from_slice::<Value>(bytes),
                ) {
                    (Some(id), Ok(value)) => {
                        let reason = value
                            .get("message")
                            .and_then(Value::as_str)
                            .unwrap_or("permission denied")
                            .to_owned();
                        self.denied.insert(id.to_string(), reason);
                    }
                    _ => out.diagnostic(Diagnostic::at(
                        line,
                        DiagnosticKind::MalformedEvent,
                        "a permission_denied message without `tool_use_id`",
                    )),
                }
                Ok(())
            }
            other if IGNORED_SUBTYPES.contains(&other) => Ok(()),
            other => {
                out.diagnostic(Diagnostic::at(
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

    /// The end of a turn: calls a permission check denied fail, if still open.
    fn result(&mut self, line: u64, bytes: &[u8], out: &mut Facts<'_>) {
        /// Only the denials are read out of the session's last line, the rest skipped.
        #[derive(Deserialize)]
        struct Denials<'a> {
            #[serde(borrow, default)]
            permission_denials: Option<&'a RawValue>,
        }
        let denials: Vec<Value> = serde_json::from_slice::<Denials<'_>>(bytes)
            .ok()
            .and_then(|denials| denials.permission_denials)
            .and_then(|raw| serde_json::from_str(raw.get()).ok())
            .unwrap_or_default();
        for denial in &denials {
            let Some(id) = denial.get("tool_use_id").and_then(Value::as_str) else {
                continue;
            };
            if out.is_open(id) {
                let reason = self
                    .denied
                    .remove(id)
                    .unwrap_or_else(|| "permission denied".into());
                let error = ToolError::new(reason).with_code("permission_denied");
                out.fail(line, id, error, Ending::default());
            }
        }
    }
}

/// The message inside `<tool_use_error>…</tool_use_error>` (a call the CLI refused to run:
/// unknown tool, invalid input).
fn tool_use_error(text: &str) -> Option<&str> {
    let inner = text.trim().strip_prefix("<tool_use_error>")?;
    let inner = inner.strip_suffix("</tool_use_error>").unwrap_or(inner);
    Some(inner.strip_prefix("Error: ").unwrap_or(inner))
}

fn first_line(text: &str) -> String {
    text.trim()
        .lines()
        .next()
        .unwrap_or("the tool failed")
        .trim()
        .to_owned()
}

/// The text of a tool result: the string, or its text blocks joined.
fn content_text(content: &Value) -> Option<String> {
    match content {
        Value::String(text) => Some(text.clone()),
        Value::Array(blocks) => {
            let texts: Vec<&str> = blocks
                .iter()
                .filter_map(|block| block.get("text").and_then(Value::as_str))
                .collect();
            (!texts.is_empty()).then(|| texts.join("\n"))
        }
        _ => None,
    }
}

const TOOL_USE: &str = "tool_use";
const SERVER_TOOL_USE: &str = "server_tool_use";
const MCP_TOOL_USE: &str = "mcp_tool_use";

/// What a tool-use block (`tool_use`, `server_tool_use`, `mcp_tool_use`) says of its
/// call, whole in a message or starting to stream.
struct ToolUse {
    id: String,
    name: String,
    /// The MCP server and bare tool name, when the block names the server.
    mcp: Option<(String, String)>,
    input: Value,
    /// The block's type (`metadata.itemType`).
    item_type: &'static str,
}

impl From<wire::BetaToolUseBlock> for ToolUse {
    fn from(block: wire::BetaToolUseBlock) -> Self {
        ToolUse {
            id: block.id,
            name: block.name,
            mcp: None,
            input: block.input,
            item_type: TOOL_USE,
        }
    }
}

impl From<wire::BetaServerToolUseBlock> for ToolUse {
    fn from(block: wire::BetaServerToolUseBlock) -> Self {
        ToolUse {
            id: block.id,
            // The API's own name for the server tool (`web_search`).
            name: block.name.to_string(),
            mcp: None,
            input: Value::Object(block.input),
            item_type: SERVER_TOOL_USE,
        }
    }
}

impl From<wire::BetaMcpToolUseBlock> for ToolUse {
    fn from(block: wire::BetaMcpToolUseBlock) -> Self {
        ToolUse {
            mcp: Some((block.server_name, block.name.clone())),
            id: block.id,
            name: block.name,
            input: block.input,
            item_type: MCP_TOOL_USE,
        }
    }
}

impl ToolUse {
    /// The call as the tracker hears of it: what the block says, and what the line's
    /// envelope says (the subagent it runs in, when it was seen). A tool named
    /// `mcp__server__tool` is that server's.
    fn sighting(self, envelope: &Envelope<'_>) -> Sighting {
        let mcp = self.mcp.or_else(|| {
            mcp::split_double_underscore(&self.name)
                .map(|split| (split.server.to_owned(), split.tool.to_owned()))
        });
        let mut metadata = JsonObject::new();
        if let Some(parent) = envelope.parent() {
            metadata.insert("parentToolCallId".into(), parent.into());
        }
        metadata.insert("itemType".into(), self.item_type.into());
        Sighting {
            mcp,
            metadata,
            at: envelope.at(),
            ..Sighting::new(self.id, self.name, self.input)
        }
    }
}

#[cfg(test)]
mod tests {
    use serde_json::Value;
    use toolnorm::NormalizedToolPart;

    use crate::{Dialect, Normalizer, Step};

    /// The parts Claude Code lines make; no line may give a diagnostic.
    pub(super) fn parts(lines: &[Value]) -> Vec<NormalizedToolPart> {
        let text: String = lines.iter().map(|line| format!("{line}\n")).collect();
        let mut normalizer = Normalizer::builder().dialect(Dialect::CLAUDE_CODE).build();
        let mut diagnostics = Vec::new();
        let mut on_step = |step: Step<'_>| {
            if let Step::Diagnostic(diagnostic) = step {
                diagnostics.push(diagnostic.clone());
            }
        };
        normalizer.push(text.as_bytes(), &mut on_step);
        normalizer.finish(&mut on_step);
        assert!(diagnostics.is_empty(), "{diagnostics:?}");
        normalizer.fold().parts()
    }

    /// The one part Claude Code lines make.
    pub(super) fn part(lines: &[Value]) -> NormalizedToolPart {
        let mut parts = parts(lines);
        assert_eq!(parts.len(), 1, "{parts:#?}");
        parts.remove(0)
    }
}
