//! OpenCode: `opencode serve` events (`GET /event`), the `/global/event` wrapper, and
//! `opencode run --format json` lines. Kilo Code's CLI (`@kilocode/cli` 7.x, a fork of
//! OpenCode) prints the same shapes (`kilo run --format json`, recorded in
//! `fixtures/kilo-run/`) and is read here: no line names the fork, so its calls carry
//! `provider: "opencode"`.
//!
//! A tool is a `ToolPart` whose state moves `pending → running → completed | error`;
//! every `message.part.updated` carries the whole part. Ids are `part.callID` (else
//! `part.id`), names `part.tool`. The title is `state.metadata.actionDescriptor` when
//! present, else the rules, else OpenCode's own `state.title`. A `bash` call that exits
//! non-zero is reported by OpenCode as completed with `metadata.exit`; here it fails
//! with code `exit_code`. A call a permission rule or the user refused fails with code
//! `permission_denied`. The `task` tool's child session (`state.metadata.sessionId`)
//! becomes `metadata.childSessionId`, and calls in that session carry
//! `metadata.parentToolCallId`. MCP tools are named `<server>_<tool>`: servers given in
//! the options are matched first; otherwise a tool that is not built in splits at its
//! first `_`.
//!
//! A tool part that lacks a field its schema requires is read with that field's empty
//! value and a notice naming it; an empty object written `[]` (Lua, PHP encoders:
//! `state.input`, `state.metadata`, the part's `metadata`) reads as `{}`
//! (`tolerant_part`).
//!
//! What `opencode serve` asks the user (`permission.*`, `question.*`) is the call's
//! approval and its questions' answers (`asks`).
//!
//! `export` reads the sessions OpenCode stores, as `opencode export` prints them: their
//! parts are read here, as the parts of `message.part.updated` events are.

mod asks;
pub(crate) mod export;
mod ignored;
mod tolerant_part;
mod tool_part;

use std::borrow::Cow;
use std::collections::HashMap;

use serde::Deserialize;
use serde_json::value::RawValue;
use serde_json::{Value, json};
use toolnorm::ErrorCode;
use toolnorm::meta;
use toolnorm::{JsonObject, Timestamp, ToolError};
use toolnorm_wire::opencode as wire;

use crate::Dialect;
use crate::adapter::Adapter;
use crate::diagnostic::{Diagnostic, DiagnosticKind};
use crate::dialects::Entry;
use crate::read::json;
use crate::rules::mcp;
use crate::track::Facts;
use crate::track::{Ending, Sighting, exit_error, is_refusal, text_error};

use crate::read::line_keys::LineKeys;
use tool_part::{ToolPart, ToolState};

/// The dialect this module reads.
pub(crate) const DIALECT: Dialect = Dialect::new("opencode", "opencode");

/// Its rules file (the kind and title of each of its tools), as `(origin, TOML text)`.
pub(crate) const RULES: (&str, &str) = (
    "src/dialects/opencode/rules.toml",
    include_str!("rules.toml"),
);

impl Dialect {
    /// OpenCode: `opencode serve` events (plain or `/global/event`), `opencode run --format json`.
    pub const OPENCODE: Dialect = DIALECT;
}

/// Its row of the dialect table.
pub(crate) const ENTRY: Entry = Entry {
    dialect: DIALECT,
    summary: "OpenCode serve events, `/global/event`, or `opencode run --format json`",
    feature: "opencode",
    rules: RULES,
    claims,
    adapter: |options| Box::new(OpenCodeAdapter::new(options.mcp_servers.clone())),
    read_ahead: None,
    recordings: &["opencode-run", "opencode-serve", "kilo-run"],
    agent_version: "",
    stores: &[],
};

/// The part types of the pinned schema other than `tool`: they carry no tool call.
const NON_TOOL_PARTS: &[&str] = &[
    "text",
    "subtask",
    "reasoning",
    "file",
    "step-start",
    "step-finish",
    "snapshot",
    "patch",
    "agent",
    "retry",
    "compaction",
];

/// Whether a line is OpenCode's: a `/global/event` envelope (`payload`, no `type`), a bus event
/// (`type` with a dot, and `properties`), or an `opencode run` event (`sessionID`).
pub(crate) fn claims(keys: &LineKeys<'_>) -> bool {
    if keys.has("method") {
        return false;
    }
    // `/global/event` wraps the event in `payload` and has no `type` of its own; a Codex
    // rollout line (`{"timestamp", "type": "response_item", "payload"}`) has one.
    if keys.has("payload") {
        return !keys.has("type");
    }
    let Some(kind) = keys.kind() else {
        return false;
    };
    (keys.has("properties") && kind.contains('.'))
        || (keys.has("sessionID")
            && matches!(
                kind.as_ref(),
                "tool_use" | "step_start" | "step_finish" | "text" | "reasoning" | "error"
            ))
}

/// The envelope of any of the three forms.
#[derive(Deserialize)]
struct Envelope<'a> {
    #[serde(borrow, rename = "type", default)]
    kind: Option<Cow<'a, str>>,
    /// `opencode serve` events.
    #[serde(borrow, default)]
    properties: Option<&'a RawValue>,
    /// `opencode run --format json` lines.
    #[serde(borrow, default)]
    part: Option<&'a RawValue>,
    /// The `/global/event` wrapper.
    #[serde(borrow, default)]
    payload: Option<&'a RawValue>,
    /// The project directory, on `/global/event` lines.
    #[serde(borrow, default)]
    directory: Option<Cow<'a, str>>,
}

/// `session.created` / `session.updated`: the session's directory.
#[derive(Deserialize)]
struct SessionProperties<'a> {
    #[serde(borrow)]
    info: SessionInfo<'a>,
}

#[derive(Deserialize)]
struct SessionInfo<'a> {
    #[serde(borrow, default)]
    directory: Option<Cow<'a, str>>,
}

#[derive(Deserialize)]
struct PartProperties<'a> {
    #[serde(borrow, default)]
    part: Option<&'a RawValue>,
}

#[derive(Deserialize)]
struct PartProbe<'a> {
    #[serde(borrow, rename = "type")]
    kind: Cow<'a, str>,
}

/// Reads OpenCode event streams.
pub struct OpenCodeAdapter {
    servers: Vec<String>,
    /// Child session → the `task` call that runs it.
    sessions: HashMap<String, String>,
    /// Permissions and questions asked.
    asks: asks::Asks,
}

impl OpenCodeAdapter {
    /// An adapter using these title rules and, when known, the configured MCP server names.
    pub fn new(servers: Vec<String>) -> Self {
        OpenCodeAdapter {
            servers,
            sessions: HashMap::new(),
            asks: asks::Asks::default(),
        }
    }
}

impl Adapter for OpenCodeAdapter {
    fn dialect(&self) -> Dialect {
        DIALECT
    }

    fn line(&mut self, line: u64, bytes: &[u8], out: &mut Facts<'_>) {
        let text = match crate::read::utf8::text(bytes) {
            Some(text) => text,
            None => {
                out.diagnostic(Diagnostic::at(
                    line,
                    DiagnosticKind::InvalidJson,
                    "not valid UTF-8",
                ));
                return;
            }
        };
        self.event(line, text, out);
    }
}

impl OpenCodeAdapter {
    fn event(&mut self, line: u64, text: &str, out: &mut Facts<'_>) {
        let envelope: Envelope<'_> =
            match json::parse_line(line, text.as_bytes(), "not an OpenCode event") {
                Ok(envelope) => envelope,
                Err(diagnostic) => return out.diagnostic(diagnostic),
            };
        if let Some(directory) = &envelope.directory {
            out.set_cwd(directory.as_ref());
        }
        if let Some(payload) = envelope.payload {
            return self.event(line, payload.get(), out);
        }
        let Some(kind) = envelope.kind.as_deref() else {
            out.diagnostic(Diagnostic::at(
                line,
                DiagnosticKind::MalformedEvent,
                "an event without `type`",
            ));
            return;
        };
        match kind {
            // `opencode serve`: the part is in `properties`.
            "message.part.updated" => {
                let part = envelope
                    .properties
                    .and_then(|properties| {
                        serde_json::from_str::<PartProperties<'_>>(properties.get()).ok()
                    })
                    .and_then(|properties| properties.part);
                match part {
                    Some(part) => self.part(line, part.get(), out),
                    None => out.diagnostic(Diagnostic::at(
                        line,
                        DiagnosticKind::MalformedEvent,
                        "message.part.updated without a part",
                    )),
                }
            }
            "message.part.delta" => {
                if let Some(properties) = envelope.properties {
                    match serde_json::from_str::<wire::EventMessagePartDeltaProperties>(
                        properties.get(),
                    ) {
                        Ok(_) => {}
                        Err(error) => {
                            out.diagnostic(json::malformed(line, "message.part.delta", &error))
                        }
                    }
                }
            }
            // `opencode run --format json`: the part is at the top level.
            "tool_use" => match envelope.part {
                Some(part) => self.part(line, part.get(), out),
                None => out.diagnostic(Diagnostic::at(
                    line,
                    DiagnosticKind::MalformedEvent,
                    "tool_use without a part",
                )),
            },
            "session.created" | "session.updated" => {
                let directory = envelope
                    .properties
                    .and_then(|properties| {
                        serde_json::from_str::<SessionProperties<'_>>(properties.get()).ok()
                    })
                    .and_then(|properties| properties.info.directory);
                if let Some(directory) = directory {
                    out.set_cwd(directory.as_ref());
                }
            }
            "permission.asked" | "permission.updated" | "permission.replied" | "question.asked"
            | "question.replied" | "question.rejected" => {
                let properties = envelope.properties.map_or("{}", RawValue::get);
                self.asks.event(line, kind, properties, out);
            }
            "step_start" | "step_finish" | "text" | "reasoning" | "error" | "file" | "patch"
            | "agent" | "snapshot" | "retry" => {}
            other if ignored::EVENTS.contains(&other) => {}
            // A new `message.part.*` event: its part, when it carries one, is read as an
            // update is (a tool part is a call); one without a part carries no call.
            other if other.starts_with("message.part.") => {
                out.diagnostic(Diagnostic::notice(
                    line,
                    DiagnosticKind::UnknownEvent,
                    format!("unknown OpenCode event `{other}`"),
                ));
                let part = envelope
                    .properties
                    .and_then(|properties| {
                        serde_json::from_str::<PartProperties<'_>>(properties.get()).ok()
                    })
                    .and_then(|properties| properties.part);
                if let Some(part) = part {
                    self.part(line, part.get(), out);
                }
            }
            // Any other type (sessions, servers, files …) carries no call: a notice.
            other => out.diagnostic(Diagnostic::notice(
                line,
                DiagnosticKind::UnknownEvent,
                format!("unknown OpenCode event `{other}`"),
            )),
        }
    }

    /// Reads one part (the JSON of a `Part`): a tool part is a call.
    pub(super) fn part(&mut self, line: u64, part: &str, out: &mut Facts<'_>) {
        // A tool part, the usual case, is read at once (a part that reads as one has the
        // type `tool`); any other part fails to (most at their `type`) and is probed.
        if let Ok(tool) = serde_json::from_str::<ToolPart>(part) {
            return self.tool_part(line, tool, out);
        }
        match serde_json::from_str::<PartProbe<'_>>(part) {
            Ok(probe) if probe.kind == "tool" => {}
            Ok(probe) if NON_TOOL_PARTS.contains(&probe.kind.as_ref()) => return,
            // A part type this version does not know: said, not dropped in silence; one
            // shaped as a tool part (a tool, its call id, a state) is read as one.
            Ok(probe) => {
                let tool = tool_shaped(part);
                out.diagnostic(Diagnostic::notice(
                    line,
                    DiagnosticKind::UnknownEvent,
                    match tool {
                        Some(_) => format!(
                            "unknown OpenCode part type `{}`, read as a tool part",
                            probe.kind
                        ),
                        None => format!("unknown OpenCode part type `{}`", probe.kind),
                    },
                ));
                match tool {
                    Some(Ok(part)) => self.tool_part(line, part.into(), out),
                    Some(Err(error)) => out.diagnostic(json::malformed(line, "tool part", &error)),
                    None => {}
                }
                return;
            }
            Err(error) => return out.diagnostic(json::malformed(line, "part", &error)),
        }
        match serde_json::from_str::<ToolPart>(part) {
            Ok(part) => self.tool_part(line, part, out),
            Err(error) => match tolerant_part::read(part) {
                Some(read) => {
                    if let Some(notice) = read.notice(line, "tool part") {
                        out.diagnostic(notice);
                    }
                    self.tool_part(line, read.value.into(), out);
                }
                None => out.diagnostic(json::malformed(line, "tool part", &error)),
            },
        }
    }

    /// The MCP server and tool of `tool`: by the configured server names, else (for a
    /// name that is not one of OpenCode's built-in tools, as its rules list them) split at
    /// the first `_`.
    fn split_mcp(&self, tool: &str, builtin: bool) -> Option<(String, String)> {
        if let Some(split) = mcp::split_server_prefix(tool, &self.servers) {
            return Some((split.server.to_owned(), split.tool.to_owned()));
        }
        if builtin {
            return None;
        }
        let (server, bare) = tool.split_once('_')?;
        (!server.is_empty() && !bare.is_empty()).then(|| (server.to_owned(), bare.to_owned()))
    }

    fn tool_part(&mut self, line: u64, part: ToolPart, out: &mut Facts<'_>) {
        out.session(&part.session_id);
        let id = if part.call_id.is_empty() {
            part.id.clone()
        } else {
            part.call_id.clone()
        };
        let (input, metadata, title, started, ended) = match &part.state {
            ToolState::Pending(state) => (state.input.clone(), None, None, None, None),
            ToolState::Running(state) => (
                state.input.clone(),
                Some(&state.metadata),
                state.title.clone(),
                Some(state.time.start),
                None,
            ),
            ToolState::Completed(state) => (
                state.input.clone(),
                Some(&state.metadata),
                Some(state.title.clone()),
                Some(state.time.start),
                Some(state.time.end),
            ),
            ToolState::Error(state) => (
                state.input.clone(),
                Some(&state.metadata),
                None,
                Some(state.time.start),
                Some(state.time.end),
            ),
        };
        let mut call_metadata = JsonObject::new();
        call_metadata.insert(meta::ITEM_TYPE.into(), "tool".into());
        call_metadata.insert(meta::PART_ID.into(), part.id.as_str().into());
        call_metadata.insert(meta::SESSION_ID.into(), part.session_id.as_str().into());
        if let Some(parent) = self.sessions.get(&part.session_id) {
            call_metadata.insert(meta::PARENT_TOOL_CALL_ID.into(), parent.as_str().into());
        }
        if let Some(child) = metadata
            .and_then(|metadata| metadata.get("sessionId"))
            .and_then(Value::as_str)
            && part.tool == "task"
        {
            call_metadata.insert(meta::CHILD_SESSION_ID.into(), child.into());
            self.sessions.insert(child.to_owned(), id.clone());
        }
        let descriptor = metadata
            .and_then(|metadata| metadata.get("actionDescriptor"))
            .and_then(action_descriptor_text);
        let mut sighting = Sighting::new(id.clone(), part.tool.clone(), Value::Object(input));
        sighting.mcp = self.split_mcp(&part.tool, out.is_builtin(&part.tool));
        let mcp_tool = sighting.mcp.is_some();
        sighting.metadata = call_metadata;
        sighting.at = started.map(epoch);
        sighting.title = descriptor;
        sighting.provided_title = title;
        let was_open = out.is_open(&id);
        out.sighted(line, sighting);
        let ending = Ending {
            at: ended.map(epoch),
            ..Ending::default()
        };
        match part.state {
            ToolState::Pending(_) => {}
            ToolState::Running(state) => {
                if !was_open || started.is_some() {
                    out.running(line, &id, Some(epoch(state.time.start)));
                }
                if let Some(output) = state.metadata.get("output").and_then(Value::as_str) {
                    out.streamed_text(line, &id, output);
                }
            }
            ToolState::Completed(state) => {
                let exit = state.metadata.get("exit").and_then(Value::as_i64);
                match exit {
                    Some(code) if code != 0 && part.tool == "bash" => {
                        let error = exit_error(code, state.output);
                        out.fail(line, &id, error, ending);
                    }
                    _ => {
                        if !state.attachments.is_empty() {
                            let attachments = state.attachments.iter().map(attachment).collect();
                            let mut listed = JsonObject::new();
                            listed.insert(meta::ATTACHMENTS.into(), Value::Array(attachments));
                            out.merge_metadata(line, &id, listed);
                        }
                        if let Some(truncated) = state
                            .metadata
                            .get("truncated")
                            .filter(|flag| flag.as_bool() == Some(true))
                        {
                            let mut flags = JsonObject::new();
                            flags.insert("outputTruncated".into(), truncated.clone());
                            out.merge_metadata(line, &id, flags);
                        }
                        out.complete(line, &id, Some(state.output), ending);
                    }
                }
            }
            ToolState::Error(state) => {
                let error = if is_refusal(&state.error) {
                    ToolError::new(first_line(&state.error))
                        .with_code(ErrorCode::PermissionDenied)
                        .with_details(json!({ "output": state.error }))
                } else if mcp_tool {
                    text_error(&state.error).with_code(ErrorCode::McpError)
                } else {
                    text_error(&state.error)
                };
                out.fail(line, &id, error, ending);
            }
        }
    }
}

/// An attachment as metadata: its name, type and where it is, never its inline data
/// (`data:` URLs are left out: they are the file itself).
/// A part of an unknown type read as a tool part, when it has a tool part's fields.
fn tool_shaped(part: &str) -> Option<Result<wire::ToolPart, serde_json::Error>> {
    let Ok(Value::Object(mut part)) = serde_json::from_str::<Value>(part) else {
        return None;
    };
    let shaped = part.get("tool").is_some_and(Value::is_string)
        && part.get("state").is_some_and(Value::is_object)
        && (part.get("callID").is_some() || part.get("id").is_some());
    if !shaped {
        return None;
    }
    part.insert("type".into(), "tool".into());
    Some(serde_json::from_value(Value::Object(part)))
}

fn attachment(file: &wire::FilePart) -> Value {
    let mut entry = JsonObject::new();
    entry.insert("id".into(), file.id.as_str().into());
    entry.insert("mime".into(), file.mime.as_str().into());
    if let Some(name) = &file.filename {
        entry.insert("filename".into(), name.as_str().into());
    }
    if !file.url.starts_with("data:") {
        entry.insert("url".into(), file.url.as_str().into());
    }
    Value::Object(entry)
}

fn epoch(ms: u64) -> Timestamp {
    Timestamp::from(ms)
}

/// `actionDescriptor` as text: a string, or an object with `title`/`text`/`description`.
fn action_descriptor_text(descriptor: &Value) -> Option<String> {
    match descriptor {
        Value::String(text) if !text.trim().is_empty() => Some(text.clone()),
        Value::Object(object) => ["title", "text", "description", "label"]
            .iter()
            .find_map(|key| object.get(*key).and_then(Value::as_str))
            .filter(|text| !text.trim().is_empty())
            .map(str::to_owned),
        _ => None,
    }
}

fn first_line(text: &str) -> String {
    text.trim()
        .lines()
        .next()
        .unwrap_or_default()
        .trim()
        .to_owned()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn mcp_names_split_on_the_server() {
        let rules = crate::TitleRules::builtin();
        let split = |adapter: &OpenCodeAdapter, tool: &str| {
            adapter.split_mcp(tool, rules.knows("opencode", tool))
        };
        let configured = OpenCodeAdapter::new(vec!["my_server".into()]);
        assert_eq!(
            split(&configured, "my_server_do_it"),
            Some(("my_server".into(), "do_it".into()))
        );
        let guessing = OpenCodeAdapter::new(Vec::new());
        assert_eq!(
            split(&guessing, "amalgm_browser_tabs_new"),
            Some(("amalgm".into(), "browser_tabs_new".into()))
        );
        assert_eq!(split(&guessing, "apply_patch"), None);
        assert_eq!(split(&guessing, "bash"), None);
    }

    #[test]
    fn descriptors() {
        assert_eq!(
            action_descriptor_text(&json!("Opening tab")).as_deref(),
            Some("Opening tab")
        );
        assert_eq!(
            action_descriptor_text(&json!({"title": "Doing X"})).as_deref(),
            Some("Doing X")
        );
        assert_eq!(action_descriptor_text(&json!({})), None);
    }
}
