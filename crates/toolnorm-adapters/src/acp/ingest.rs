//! ACP to canonical events: the stream an ACP client sees, folded into tool calls.
//!
//! Read: `session/update` notifications with `tool_call` / `tool_call_update`,
//! `session/request_permission` requests and the responses to them. Everything else
//! (other session updates, `initialize` and `session/*` responses, file-system and
//! terminal requests) carries no tool-call data and is skipped on purpose, without a
//! diagnostic.

use std::collections::HashMap;

use serde::Deserialize;
use serde_json::{Map, Value};
use toolnorm::{
    ErrorCode, InputUpdated, JsonObject, MetadataMerged, OutputAppended, Timestamp, TitleUpdated,
    ToolCallCompleted, ToolCallFailed, ToolCallRunning, ToolCallStarted, ToolError, ToolKind,
    ToolState,
};
use toolnorm_wire::acp;

use super::emit::META_KEY;
use super::kinds::{Clues, kind_of, state_of};
use crate::adapter::{Adapter, Emitted};
use crate::calls::text_error;
use crate::diagnostic::{Diagnostic, DiagnosticKind};
use crate::finished::Finished;
use crate::{Dialect, json};

/// `session/request_permission` params (the pinned schema holds only `session/update`;
/// the tool call in it is the schema's `ToolCallUpdate`).
#[derive(Deserialize)]
struct PermissionRequest {
    #[serde(rename = "toolCall")]
    tool_call: acp::ToolCallUpdate,
    #[serde(default)]
    options: Vec<Value>,
}

/// One sight of a call, from `tool_call`, `tool_call_update` or a permission request.
struct Seen {
    id: String,
    session: Option<Value>,
    title: Option<String>,
    kind: Option<acp::ToolKind>,
    status: Option<acp::ToolCallStatus>,
    name: Option<String>,
    raw_input: Option<Value>,
    raw_output: Option<Value>,
    /// The content blocks, as sent (already checked against the schema's types).
    content: Option<Vec<Value>>,
    meta: Option<Map<String, Value>>,
}

impl Seen {
    /// `raw` is the object the call was read from: `rawInput`/`rawOutput` are taken from
    /// it so that a present `null` stays a value.
    fn from_call(call: acp::ToolCall, raw: &Value, session: Option<Value>) -> Self {
        Seen {
            id: call.tool_call_id.0,
            session,
            title: Some(call.title),
            kind: call.kind,
            status: call.status,
            name: call.name,
            raw_input: raw.get("rawInput").cloned(),
            raw_output: raw.get("rawOutput").cloned(),
            content: raw.get("content").and_then(Value::as_array).cloned(),
            meta: call.meta,
        }
    }

    fn from_update(update: acp::ToolCallUpdate, raw: &Value, session: Option<Value>) -> Self {
        Seen {
            id: update.tool_call_id.0,
            session,
            title: update.title,
            kind: update.kind,
            status: update.status,
            name: update.name,
            raw_input: raw.get("rawInput").cloned(),
            raw_output: raw.get("rawOutput").cloned(),
            content: raw.get("content").and_then(Value::as_array).cloned(),
            meta: update.meta,
        }
    }

    /// `_meta.toolnorm`, when a toolnorm emitter wrote the frame.
    fn toolnorm(&self) -> Option<&Map<String, Value>> {
        self.meta.as_ref()?.get(META_KEY)?.as_object()
    }

    /// The text blocks of the content, joined by newlines.
    fn text(&self) -> Option<String> {
        let texts: Vec<&str> = self
            .content
            .iter()
            .flatten()
            .filter(|content| content.get("type").and_then(Value::as_str) == Some("content"))
            .filter_map(|content| {
                let block = content.get("content")?;
                (block.get("type")?.as_str()? == "text").then_some(block.get("text")?.as_str()?)
            })
            .collect();
        (!texts.is_empty()).then(|| texts.join("\n"))
    }

    /// Whether the content has diffs, all of new files.
    fn only_new_files(&self) -> bool {
        let mut diffs = self
            .content
            .iter()
            .flatten()
            .filter(|content| content.get("type").and_then(Value::as_str) == Some("diff"))
            .map(|diff| diff.get("oldText").is_none_or(Value::is_null));
        diffs.next().is_some_and(|new| new && diffs.all(|new| new))
    }

    /// The tool name of a foreign call: `name`, else a `toolName` some agent put in
    /// its own `_meta` namespace (Claude Code's ACP adapter: `_meta.claudeCode.toolName`).
    fn foreign_name(&self) -> Option<String> {
        self.name.clone().or_else(|| {
            self.meta
                .as_ref()?
                .values()
                .find_map(|namespace| Some(namespace.get("toolName")?.as_str()?.to_owned()))
        })
    }
}

/// A call this adapter has started and not yet finished.
#[derive(Debug)]
struct Call {
    /// Its frames carry `_meta.toolnorm`.
    own: bool,
    kind: ToolKind,
    title: String,
    input: Value,
    state: ToolState,
    /// Text content streamed so far (foreign calls).
    streamed: String,
    /// The permission asked for it, as put in `metadata.permission`.
    permission: Option<Map<String, Value>>,
}

/// Reads ACP JSON-RPC lines (`--provider acp`).
#[derive(Debug, Default)]
pub struct AcpAdapter {
    /// MCP server names, to split `<server>_<tool>` names.
    mcp_servers: Vec<String>,
    open: HashMap<String, Call>,
    /// Calls already finished, in bounded memory.
    closed: Finished,
    /// Permission requests still unanswered: JSON-RPC id (as JSON text) → call id.
    permissions: HashMap<String, String>,
}

impl AcpAdapter {
    /// A fresh adapter; `mcp_servers` name the MCP servers of `<server>_<tool>` names.
    pub fn new(mcp_servers: Vec<String>) -> Self {
        AcpAdapter {
            mcp_servers,
            ..AcpAdapter::default()
        }
    }

    fn seen(&mut self, line: u64, seen: Seen, out: &mut Emitted) {
        if self.closed.get(&seen.id).is_some() {
            if let Some(status) = seen
                .status
                .filter(|status| !state_of(*status).is_terminal())
            {
                out.diagnostic(Diagnostic::at(
                    line,
                    DiagnosticKind::Rejected,
                    format!(
                        "tool call `{}` already finished: status `{status}` ignored",
                        seen.id
                    ),
                ));
            }
            return;
        }
        let first = !self.open.contains_key(&seen.id);
        if first {
            self.start(line, &seen, out);
        }
        let Some(call) = self.open.get_mut(&seen.id) else {
            return;
        };
        let toolnorm = seen.toolnorm();
        if !first {
            if let Some(title) = seen.title.as_ref().filter(|title| **title != call.title) {
                call.title = title.clone();
                out.event(
                    line,
                    TitleUpdated {
                        id: seen.id.clone(),
                        title: title.clone(),
                        at: None,
                    },
                );
            }
            if let Some(input) = seen
                .raw_input
                .as_ref()
                .filter(|input| **input != call.input)
            {
                call.input = input.clone();
                out.event(
                    line,
                    InputUpdated {
                        id: seen.id.clone(),
                        input: input.clone(),
                        at: None,
                    },
                );
            }
            if let Some(metadata) = toolnorm
                .and_then(|meta| meta.get("metadata"))
                .and_then(Value::as_object)
                .filter(|metadata| !metadata.is_empty())
            {
                out.event(
                    line,
                    MetadataMerged {
                        id: seen.id.clone(),
                        metadata: metadata.clone(),
                        at: None,
                    },
                );
            }
        }
        let timing = |key: &str| -> Option<&Value> { toolnorm?.get("timing")?.get(key) };
        let started_at = timing("startedAt").and_then(timestamp);
        let state = seen.status.map(state_of).unwrap_or(call.state);
        if state != ToolState::Started && call.state == ToolState::Started {
            call.state = ToolState::Running;
            out.event(
                line,
                ToolCallRunning {
                    id: seen.id.clone(),
                    at: started_at,
                },
            );
        }
        if call.state == ToolState::Running {
            stream(line, &seen, call, out);
        }
        let at = timing("completedAt").and_then(timestamp);
        let elapsed_ms = timing("elapsedMs").and_then(Value::as_u64);
        match state {
            ToolState::Started | ToolState::Running => {}
            ToolState::Complete => {
                let output = if call.own {
                    seen.raw_output.clone()
                } else {
                    seen.raw_output
                        .clone()
                        .or_else(|| seen.text().map(Value::from))
                };
                if let Some(error) = (!call.own && call.kind == ToolKind::Bash)
                    .then(|| exit_error(output.as_ref(), &seen))
                    .flatten()
                {
                    out.event(
                        line,
                        ToolCallFailed {
                            id: seen.id.clone(),
                            error,
                            input: None,
                            title: None,
                            elapsed_ms,
                            at,
                        },
                    );
                    self.close(&seen.id);
                    return;
                }
                if let Some(flags) = truncation_flags(toolnorm) {
                    out.event(
                        line,
                        MetadataMerged {
                            id: seen.id.clone(),
                            metadata: flags,
                            at: None,
                        },
                    );
                }
                out.event(
                    line,
                    ToolCallCompleted {
                        id: seen.id.clone(),
                        output,
                        input: None,
                        title: None,
                        elapsed_ms,
                        at,
                    },
                );
                self.close(&seen.id);
            }
            ToolState::Error => {
                let own_error = toolnorm
                    .and_then(|meta| meta.get("error"))
                    .and_then(|error| ToolError::deserialize(error).ok());
                let error = own_error.unwrap_or_else(|| foreign_error(&seen, call.kind));
                out.event(
                    line,
                    ToolCallFailed {
                        id: seen.id.clone(),
                        error,
                        input: None,
                        title: None,
                        elapsed_ms,
                        at,
                    },
                );
                self.close(&seen.id);
            }
        }
    }

    /// The first sight of a call: `toolCallStarted`.
    fn start(&mut self, line: u64, seen: &Seen, out: &mut Emitted) {
        let toolnorm = seen.toolnorm();
        let own_name = toolnorm
            .and_then(|meta| meta.get("toolName"))
            .and_then(Value::as_str)
            .map(str::to_owned);
        let name = own_name
            .or_else(|| seen.foreign_name())
            .or_else(|| seen.title.clone())
            .unwrap_or_else(|| seen.id.clone());
        let title = seen.title.clone().unwrap_or_else(|| name.clone());
        let own_kind = toolnorm
            .and_then(|meta| meta.get("kind"))
            .and_then(|kind| ToolKind::deserialize(kind).ok());
        let mcp = matches!(seen.kind, None | Some(acp::ToolKind::Other))
            .then(|| mcp_name(&name, &self.mcp_servers))
            .flatten();
        let kind = own_kind.unwrap_or_else(|| {
            let clues = Clues {
                name: Some(name.as_str()),
                title: &title,
                only_new_files: seen.only_new_files(),
                mcp: mcp.is_some(),
            };
            kind_of(seen.kind, clues)
        });
        let metadata = match toolnorm {
            Some(meta) => meta
                .get("metadata")
                .and_then(Value::as_object)
                .cloned()
                .unwrap_or_default(),
            None => {
                let mut metadata = foreign_metadata(seen);
                if let Some((server, tool)) = mcp.filter(|_| kind == ToolKind::Mcp) {
                    metadata.insert(
                        "mcp".into(),
                        serde_json::json!({ "server": server, "tool": tool }),
                    );
                }
                metadata
            }
        };
        let at = toolnorm
            .and_then(|meta| meta.get("timing")?.get("startedAt"))
            .and_then(timestamp);
        let input = seen.raw_input.clone().unwrap_or(Value::Null);
        out.event(
            line,
            ToolCallStarted {
                id: seen.id.clone(),
                name,
                kind,
                title: title.clone(),
                input: input.clone(),
                metadata: (!metadata.is_empty()).then_some(metadata),
                at,
            },
        );
        self.open.insert(
            seen.id.clone(),
            Call {
                own: toolnorm.is_some(),
                kind,
                title,
                input,
                state: ToolState::Started,
                streamed: String::new(),
                permission: None,
            },
        );
    }

    fn close(&mut self, id: &str) {
        let state = self
            .open
            .remove(id)
            .map_or(ToolState::Complete, |call| call.state);
        self.closed.insert(id, state);
    }

    fn permission_request(&mut self, line: u64, message: &Map<String, Value>, out: &mut Emitted) {
        let Some(params) = message.get("params") else {
            out.diagnostic(malformed(
                line,
                "`session/request_permission` without params",
            ));
            return;
        };
        let request = match PermissionRequest::deserialize(params) {
            Ok(request) => request,
            Err(error) => {
                out.diagnostic(malformed(
                    line,
                    format!("`session/request_permission`: {error}"),
                ));
                return;
            }
        };
        let raw = params.get("toolCall").unwrap_or(&Value::Null);
        let seen = Seen::from_update(request.tool_call, raw, params.get("sessionId").cloned());
        let id = seen.id.clone();
        self.seen(line, seen, out);
        let Some(call) = self.open.get_mut(&id) else {
            return;
        };
        let mut permission = Map::new();
        permission.insert("options".into(), Value::Array(request.options));
        call.permission = Some(permission.clone());
        merge_permission(line, &id, permission, out);
        if let Some(request_id) = message.get("id") {
            self.permissions.insert(request_id.to_string(), id);
        }
    }

    fn response(&mut self, line: u64, message: &Map<String, Value>, out: &mut Emitted) {
        let Some(request_id) = message.get("id") else {
            return;
        };
        let Some(id) = self.permissions.remove(&request_id.to_string()) else {
            return;
        };
        let Some(call) = self.open.get_mut(&id) else {
            return;
        };
        let outcome = match (message.get("result"), message.get("error")) {
            (Some(result), _) => result.get("outcome").cloned().unwrap_or(Value::Null),
            (None, Some(error)) => serde_json::json!({ "outcome": "error", "error": error }),
            (None, None) => return,
        };
        let mut permission = call.permission.clone().unwrap_or_default();
        permission.insert("outcome".into(), outcome);
        call.permission = Some(permission.clone());
        merge_permission(line, &id, permission, out);
    }
}

impl Adapter for AcpAdapter {
    fn dialect(&self) -> Dialect {
        Dialect::Acp
    }

    fn line(&mut self, line: u64, bytes: &[u8], out: &mut Emitted) {
        let message = match serde_json::from_slice::<Value>(bytes) {
            Ok(Value::Object(message)) => message,
            Ok(_) => {
                out.diagnostic(malformed(line, "not a JSON-RPC message (not an object)"));
                return;
            }
            Err(error) => {
                out.diagnostic(match json::classify(bytes, &error) {
                    Some(invalid) => Diagnostic::at(line, invalid.kind, invalid.message),
                    None => malformed(line, error.to_string()),
                });
                return;
            }
        };
        match message.get("method").and_then(Value::as_str) {
            Some("session/update") => self.update(line, &message, out),
            Some("session/request_permission") => self.permission_request(line, &message, out),
            // Other requests and notifications carry no tool-call data.
            Some(_) => {}
            None if message.contains_key("id") => self.response(line, &message, out),
            None => out.diagnostic(malformed(
                line,
                "not a JSON-RPC message (no method and no id)",
            )),
        }
    }
}

impl AcpAdapter {
    fn update(&mut self, line: u64, message: &Map<String, Value>, out: &mut Emitted) {
        let params = message.get("params");
        let Some(update) = params.and_then(|params| params.get("update")) else {
            out.diagnostic(malformed(line, "`session/update` without params.update"));
            return;
        };
        let session = params.and_then(|params| params.get("sessionId")).cloned();
        let seen = match update.get("sessionUpdate").and_then(Value::as_str) {
            Some("tool_call") => acp::ToolCall::deserialize(update)
                .map(|call| Seen::from_call(call, update, session))
                .map_err(|error| format!("`tool_call`: {error}")),
            Some("tool_call_update") => acp::ToolCallUpdate::deserialize(update)
                .map(|call| Seen::from_update(call, update, session))
                .map_err(|error| format!("`tool_call_update`: {error}")),
            // Message chunks, plans, commands, modes, usage: not tool calls.
            Some(_) => return,
            None => Err("`session/update` without `sessionUpdate`".to_owned()),
        };
        match seen {
            Ok(seen) => self.seen(line, seen, out),
            Err(message) => out.diagnostic(malformed(line, message)),
        }
    }
}

fn malformed(line: u64, message: impl Into<String>) -> Diagnostic {
    Diagnostic::at(line, DiagnosticKind::MalformedEvent, message)
}

fn merge_permission(line: u64, id: &str, permission: Map<String, Value>, out: &mut Emitted) {
    let mut metadata = JsonObject::new();
    metadata.insert("permission".into(), Value::Object(permission));
    out.event(
        line,
        MetadataMerged {
            id: id.to_owned(),
            metadata,
            at: None,
        },
    );
}

fn timestamp(value: &Value) -> Option<Timestamp> {
    Timestamp::deserialize(value).ok()
}

/// New text content of a running call, as output chunks: frames from toolnorm carry
/// `_meta.toolnorm.outputAppended`; other agents resend their text content, of which
/// what extends the text seen so far is appended.
fn stream(line: u64, seen: &Seen, call: &mut Call, out: &mut Emitted) {
    let chunk = if call.own {
        seen.toolnorm()
            .and_then(|meta| meta.get("outputAppended"))
            .and_then(|appended| {
                let offset = appended.get("offset")?.as_u64()?;
                let chunk = appended.get("chunk")?.as_str()?;
                (offset == call.streamed.len() as u64).then(|| chunk.to_owned())
            })
    } else {
        seen.text().and_then(|text| {
            text.strip_prefix(call.streamed.as_str())
                .map(str::to_owned)
                .filter(|fresh| !fresh.is_empty())
        })
    };
    if let Some(chunk) = chunk.filter(|chunk| !chunk.is_empty()) {
        out.event(
            line,
            OutputAppended {
                id: seen.id.clone(),
                offset: call.streamed.len() as u64,
                chunk: chunk.clone(),
                at: None,
            },
        );
        call.streamed.push_str(&chunk);
    }
}

/// The core's truncation flags, when the emitter cut `rawOutput`.
fn truncation_flags(toolnorm: Option<&Map<String, Value>>) -> Option<JsonObject> {
    let cut = toolnorm?.get("truncated")?.get("rawOutput")?;
    let mut flags = JsonObject::new();
    flags.insert(toolnorm::meta::OUTPUT_TRUNCATED.into(), Value::Bool(true));
    for (key, field) in [
        (toolnorm::meta::OUTPUT_TOTAL_BYTES, "totalBytes"),
        (toolnorm::meta::OUTPUT_CAP_BYTES, "capBytes"),
    ] {
        if let Some(value) = cut.get(field) {
            flags.insert(key.into(), value.clone());
        }
    }
    Some(flags)
}

/// Metadata of a call from an agent that did not send `_meta.toolnorm`.
fn foreign_metadata(seen: &Seen) -> JsonObject {
    let mut metadata = JsonObject::new();
    metadata.insert("provider".into(), "acp".into());
    if let Some(session) = &seen.session {
        metadata.insert("sessionId".into(), session.clone());
    }
    if let Some(kind) = seen.kind {
        metadata.insert("acpKind".into(), kind.to_string().into());
    }
    if let Some(meta) = seen.meta.as_ref().filter(|meta| !meta.is_empty()) {
        metadata.insert("acpMeta".into(), Value::Object(meta.clone()));
        // A call made inside a subagent (Claude Code's adapter: `parentToolUseId`).
        let parent = meta.values().find_map(|namespace| {
            ["parentToolUseId", "parentToolCallId"]
                .iter()
                .find_map(|key| namespace.get(key)?.as_str())
        });
        if let Some(parent) = parent {
            metadata.insert("parentToolCallId".into(), parent.into());
        }
    }
    metadata
}

/// The server and tool of an MCP tool name: `mcp__server__tool`, `<server>_<tool>` with a
/// configured server, else split at the first `_`.
fn mcp_name(name: &str, servers: &[String]) -> Option<(String, String)> {
    if let Some(split) = crate::mcp::split_double_underscore(name)
        .or_else(|| crate::mcp::split_server_prefix(name, servers))
    {
        return Some((split.server.to_owned(), split.tool.to_owned()));
    }
    let (server, tool) = name.split_once('_')?;
    (!server.is_empty() && !tool.is_empty()).then(|| (server.to_owned(), tool.to_owned()))
}

/// A shell command reported completed with a non-zero exit status (OpenCode's
/// `rawOutput.metadata.exit`, or an `exitCode` / `exit_code` field): `exit_code`, as
/// every adapter reports it.
fn exit_error(output: Option<&Value>, seen: &Seen) -> Option<ToolError> {
    let output = output?;
    let code = [
        output
            .get("metadata")
            .and_then(|metadata| metadata.get("exit")),
        output.get("exitCode"),
        output.get("exit_code"),
    ]
    .into_iter()
    .flatten()
    .find_map(Value::as_i64)
    .filter(|code| *code != 0)?;
    let text = output
        .get("output")
        .and_then(Value::as_str)
        .map(str::to_owned)
        .or_else(|| seen.text())
        .unwrap_or_default();
    Some(crate::calls::exit_error(code, text))
}

/// Text without the Markdown code fence an agent wrapped it in (Claude Code's adapter
/// shows results as ```` ``` ```` blocks).
fn unfenced(text: &str) -> &str {
    let trimmed = text.trim();
    let Some(rest) = trimmed.strip_prefix("```") else {
        return text;
    };
    let body = rest.split_once('\n').map_or("", |(_, body)| body);
    body.strip_suffix("```").unwrap_or(body)
}

/// The error of a foreign failed call: a text `rawOutput` (or its `error`/`message`, or
/// the text content) as message, `rawOutput` as details; a shell command's `Exit code N`
/// is `exit_code`, a refused permission `permission_denied`, a failed MCP tool
/// `mcp_error`.
fn foreign_error(seen: &Seen, kind: ToolKind) -> ToolError {
    let raw = seen.raw_output.as_ref();
    let raw_text = raw.and_then(|raw| match raw {
        Value::String(text) => Some(text.clone()),
        other => ["error", "message"]
            .iter()
            .find_map(|key| Some(other.get(key)?.as_str()?.to_owned())),
    });
    let text = raw_text
        .or_else(|| seen.text().map(|text| unfenced(&text).to_owned()))
        .unwrap_or_default();
    if kind == ToolKind::Bash
        && let Some(error) = crate::calls::exit_code_error(&text)
    {
        return error;
    }
    let mut error = text_error(&text);
    // OpenCode's refusal texts, and Claude Code's ACP adapter's.
    if crate::opencode::is_refusal(text.trim()) || text.starts_with("User refused permission") {
        error.code = Some(ErrorCode::PermissionDenied);
    } else if kind == ToolKind::Mcp {
        error.code = Some(ErrorCode::McpError);
    }
    // A text `rawOutput` is the message (and `details.output` when longer) already.
    if let Some(raw) = raw.filter(|raw| !raw.is_null() && !raw.is_string()) {
        error.details = Some(raw.clone());
    }
    error
}
