//! OpenHands' agent SDK (PyPI `openhands-sdk`, which the `openhands` CLI 1.x and
//! `openhands-ai` 1.x run on): the events of a conversation, as `openhands --headless
//! --json` prints them (one a line, among lines of plain text for people) and as its
//! file store keeps them (`~/.openhands/conversations/<id>/events/event-<n>-<id>.json`,
//! one event a file without a newline: read joined one a line, in the order of their
//! names).
//!
//! An event is a pydantic model with its class in `kind`, and `id`, `timestamp`, `source`:
//!
//! | event | canonical events |
//! | --- | --- |
//! | `ActionEvent` (`tool_name`, `tool_call_id`, `action`: the tool's action with its own `kind`, `summary`: the model's words for it) | `toolCallStarted` |
//! | `ObservationEvent` (`tool_call_id`, `observation`: `content` parts, `is_error`; a command's `exit_code`) | `toolCallCompleted`, or `toolCallFailed` (`exit_code` when a command exited non-zero, `mcp_error` for an MCP tool's error) |
//! | `AgentErrorEvent` (`tool_call_id`, `error`: the call did not run) | `toolCallFailed` (`invalid_tool_use` when the agent refused its tool or arguments) |
//! | `UserRejectObservation` (`rejection_reason`, `rejection_source` `user` or `hook`) | `toolCallFailed` (`user_rejected`, or `permission_denied` for a hook) |
//! | `InterruptEvent` | `toolCallFailed` (`interrupted`) for every call still open |
//! | `MessageEvent`, `SystemPromptEvent`, `ConversationStateUpdateEvent`, `PauseEvent`, `Condensation`, … | (known, nothing about tools) |
//!
//! A call's input is its action without its `kind` (an MCP tool's `data`); its title the
//! rules', else the model's `summary`.

use std::borrow::Cow;

use serde::Deserialize;
use serde_json::Value;
use toolnorm::{ErrorCode, JsonObject, Payload, Timestamp, ToolError, ToolKind, meta};

use crate::Dialect;
use crate::adapter::Adapter;
use crate::diagnostic::{Diagnostic, DiagnosticKind};
use crate::dialects::Entry;
use crate::read::apart::{KeptAt, Step, ValueApart, one_text};
use crate::read::json;
use crate::read::line_keys::LineKeys;
use crate::track::{Ending, Facts, Sighting, exit_error, text_error};

/// The dialect: the SDK's events, with OpenHands' provider for the rules.
pub(crate) const DIALECT: Dialect = Dialect::new("openhands-sdk", "openhands");

impl Dialect {
    /// OpenHands' agent SDK events (`openhands --headless --json`, a conversation's
    /// stored events).
    pub const OPENHANDS_SDK: Dialect = DIALECT;
}

/// Its row of the dialect table.
pub(crate) const ENTRY: Entry = Entry {
    dialect: DIALECT,
    summary: "OpenHands CLI 1.x / agent SDK events (`openhands --headless --json`, `conversations/<id>/events/*.json` one a line)",
    feature: "openhands",
    rules: super::RULES,
    claims,
    adapter: |_| Box::<SdkAdapter>::default(),
    // `openhands --headless --json` (`fixtures/openhands-cli/`) and the events it stored
    // (`fixtures/openhands-events/`).
    read_ahead: None,
    recordings: &["openhands-cli"],
    agent_version: "",
    // One event a file: no file is a session of its own.
    stores: &[],
};

/// The event classes that carry nothing about a call.
const KNOWN: &[&str] = &[
    "MessageEvent",
    "SystemPromptEvent",
    "ConversationStateUpdateEvent",
    "PauseEvent",
    "Condensation",
    "CondensationRequest",
    "CondensationSummaryEvent",
    "ConversationErrorEvent",
    "HookExecutionEvent",
    "LLMCompletionLogEvent",
    "TokenEvent",
    "StreamingDeltaEvent",
];

/// The event classes about a call.
const CALL_EVENTS: &[&str] = &[
    "ActionEvent",
    "ObservationEvent",
    "AgentErrorEvent",
    "UserRejectObservation",
    "InterruptEvent",
];

/// Whether a line is one of the SDK's events: an event class in `kind`, with the `id`,
/// `timestamp` and `source` every event has.
pub(crate) fn claims(keys: &LineKeys<'_>) -> bool {
    keys.str("kind")
        .is_some_and(|kind| CALL_EVENTS.contains(&kind.as_ref()) || KNOWN.contains(&kind.as_ref()))
        && keys.has("id")
        && keys.has("timestamp")
        && keys.has("source")
        && !keys.has("type")
}

/// One event, as far as the calls need it.
#[derive(Deserialize)]
struct Event {
    #[serde(default)]
    kind: Option<String>,
    #[serde(default)]
    timestamp: Option<Timestamp>,
    #[serde(default)]
    tool_name: Option<String>,
    #[serde(default)]
    tool_call_id: Option<String>,
    /// An `ActionEvent`'s action: the tool's action model, its class in `kind`.
    #[serde(default)]
    action: Option<Value>,
    /// An `ActionEvent`'s summary of the call, in the model's words.
    #[serde(default)]
    summary: Option<String>,
    /// An `ObservationEvent`'s observation: `content` parts, `is_error`, its class in `kind`.
    #[serde(default)]
    observation: Option<Observation>,
    /// An `AgentErrorEvent`'s message.
    #[serde(default)]
    error: Option<String>,
    /// A `UserRejectObservation`'s reason and who refused (`user`, `hook`).
    #[serde(default)]
    rejection_reason: Option<String>,
    #[serde(default)]
    rejection_source: Option<String>,
}

/// Reads the SDK's events.
#[derive(Debug, Default)]
pub struct SdkAdapter {
    /// The calls started and not ended, in order.
    open: Vec<String>,
}

impl Adapter for SdkAdapter {
    fn dialect(&self) -> Dialect {
        DIALECT
    }

    fn line(&mut self, line: u64, bytes: &[u8], facts: &mut Facts<'_>) {
        let event: Event = match json::parse_line(line, bytes, "not an OpenHands SDK event") {
            Ok(event) => event,
            Err(diagnostic) => return facts.diagnostic(diagnostic),
        };
        self.open.retain(|id| facts.is_open(id));
        match event.kind.as_deref() {
            Some("ActionEvent") => self.action(line, event, facts),
            Some(kind @ ("ObservationEvent" | "AgentErrorEvent" | "UserRejectObservation")) => {
                let kind = kind.to_owned();
                self.ended(line, &kind, event, facts);
            }
            Some("InterruptEvent") => {
                for id in std::mem::take(&mut self.open) {
                    let error = ToolError::new("interrupted").with_code(ErrorCode::Interrupted);
                    facts.fail(line, &id, error, Ending::at(event.timestamp.clone()));
                }
            }
            Some(kind) if KNOWN.contains(&kind) => {}
            other => facts.diagnostic(Diagnostic::notice(
                line,
                DiagnosticKind::UnknownEvent,
                format!(
                    "an OpenHands SDK event of unknown kind `{}`",
                    other.unwrap_or_default()
                ),
            )),
        }
    }
}

impl SdkAdapter {
    /// The model called a tool.
    fn action(&mut self, line: u64, event: Event, facts: &mut Facts<'_>) {
        let Some(id) = event.tool_call_id.filter(|id| !id.is_empty()) else {
            return facts.diagnostic(Diagnostic::at(
                line,
                DiagnosticKind::MalformedEvent,
                "an `ActionEvent` without a `tool_call_id`",
            ));
        };
        let name = event.tool_name.unwrap_or_else(|| "tool".to_owned());
        let mut action = match event.action {
            Some(Value::Object(action)) => action,
            _ => JsonObject::new(),
        };
        let class = action
            .remove("kind")
            .and_then(|kind| kind.as_str().map(str::to_owned));
        let mcp = class.as_deref() == Some("MCPToolAction");
        let input = match action.remove("data") {
            Some(data) if mcp => data,
            Some(data) => {
                action.insert("data".into(), data);
                Value::Object(action)
            }
            None => Value::Object(action),
        };
        let mut metadata = JsonObject::new();
        if let Some(class) = class {
            metadata.insert(meta::ITEM_TYPE.into(), class.into());
        }
        let mut sighting = Sighting::new(id.clone(), name.clone(), input.clone())
            .metadata(metadata)
            .at(event.timestamp)
            .provided_title(event.summary.filter(|summary| !summary.trim().is_empty()));
        if mcp && facts.describe(&name, None, &input).0 == ToolKind::Unknown {
            // The event names no server: the action's class says the tool is a server's.
            sighting = sighting.kind(ToolKind::Mcp);
        }
        facts.sighted(line, sighting);
        self.open.push(id);
    }

    /// A call ended: observed, refused by the agent, or rejected.
    fn ended(&mut self, line: u64, kind: &str, event: Event, facts: &mut Facts<'_>) {
        let Some(id) = event.tool_call_id.clone().filter(|id| !id.is_empty()) else {
            return facts.diagnostic(Diagnostic::at(
                line,
                DiagnosticKind::MalformedEvent,
                format!("an `{kind}` without a `tool_call_id`"),
            ));
        };
        if !facts.is_open(&id) {
            if facts.finished(&id).is_some() {
                return facts.diagnostic(Diagnostic::notice(
                    line,
                    DiagnosticKind::UnknownCall,
                    format!("an `{kind}` of call `{id}`, which has ended"),
                ));
            }
            facts.diagnostic(Diagnostic::notice(
                line,
                DiagnosticKind::UnknownCall,
                format!("an `{kind}` of call `{id}`, whose action the input does not hold"),
            ));
            let name = event.tool_name.clone().unwrap_or_else(|| "tool".to_owned());
            facts.sighted(
                line,
                Sighting::new(id.clone(), name, Value::Object(JsonObject::new()))
                    .at(event.timestamp.clone()),
            );
        }
        let ending = Ending::at(event.timestamp.clone());
        match kind {
            "AgentErrorEvent" => {
                let message = event.error.unwrap_or_default();
                let mut error = text_error(&message);
                if is_invalid_use(&message) {
                    error.code = Some(ErrorCode::InvalidToolUse);
                }
                facts.fail(line, &id, error, ending);
            }
            "UserRejectObservation" => {
                let reason = event.rejection_reason.unwrap_or_default();
                let mut error = text_error(&reason);
                error.code = Some(if event.rejection_source.as_deref() == Some("hook") {
                    ErrorCode::PermissionDenied
                } else {
                    ErrorCode::UserRejected
                });
                facts.fail(line, &id, error, ending);
            }
            _ => observed(line, &id, event.observation.as_ref(), ending, facts),
        }
    }
}

/// An observation, read as a value but for its content parts' texts, kept apart as the
/// JSON text they came as ([`ValueApart`]): a tool's output can be the biggest thing in a
/// line.
type Observation = ValueApart<ContentTexts>;

/// Where an observation's content parts' texts lie.
struct ContentTexts;

impl KeptAt for ContentTexts {
    const IN_OBJECT: &'static [Step] = &[Step::Key("content"), Step::Each, Step::Key("text")];
}

/// A tool's observation ends its call.
fn observed(
    line: u64,
    id: &str,
    observation: Option<&Observation>,
    ending: Ending,
    facts: &mut Facts<'_>,
) {
    let output = observation.map(content_text);
    let text = || {
        output
            .as_ref()
            .and_then(Payload::text)
            .map(Cow::into_owned)
            .unwrap_or_default()
    };
    let field = |key: &str| observation.and_then(|observation| observation.value.get(key));
    let exit_code = field("exit_code").and_then(Value::as_i64);
    let is_error = field("is_error") == Some(&Value::Bool(true));
    let class = field("kind").and_then(Value::as_str).unwrap_or_default();
    if let Some(code) = exit_code.filter(|code| *code > 0) {
        return facts.fail(line, id, exit_error(code, text()), ending);
    }
    if is_error {
        let text = text();
        let mut error = text_error(if text.trim().is_empty() {
            "the tool failed"
        } else {
            &text
        });
        if class == "MCPToolObservation" {
            error.code = Some(ErrorCode::McpError);
        }
        return facts.fail(line, id, error, ending);
    }
    let output = output.filter(|output| output.text_head(1).is_some_and(|head| !head.is_empty()));
    facts.complete(line, id, output, ending);
}

/// Whether the agent refused a call before running it: a tool it does not have, or
/// arguments its tool does not take.
fn is_invalid_use(message: &str) -> bool {
    message.starts_with("Error validating tool")
        || (message.starts_with("Tool '") && message.contains("' not found"))
}

/// The text of an observation's `content`: its text parts' texts, without the header an
/// MCP tool's result begins with (`[Tool 'echo' executed.]`): one kept as it came, several
/// joined; a string content as it is.
fn content_text(observation: &Observation) -> Payload {
    match observation.value.get("content") {
        Some(Value::String(text)) => Payload::from(text.as_str()),
        Some(Value::Array(_)) => one_text(
            observation
                .kept
                .iter()
                .filter(|text| text.is_string() && !is_header(text)),
        ),
        _ => Payload::from(""),
    }
}

/// Whether a text is the header of an MCP tool's result (`[Tool 'echo' executed.]`),
/// told from its beginning unless it begins as one.
fn is_header(text: &Payload) -> bool {
    const OPENING: &str = "[Tool '";
    let opens = text
        .text_head(OPENING.len())
        .is_some_and(|head| head.starts_with(OPENING));
    opens
        && text
            .text()
            .is_some_and(|text| text.ends_with("' executed.]"))
}
