//! The typed payload of a `tool_call` line: `{"<name>ToolCall": {"args": …, "result": …}}`
//! beside `toolCallId`, `startedAtMs` and `completedAtMs`.

use serde_json::{Map, Value};
use toolnorm::{JsonObject, Payload, Timestamp, meta};

use super::holder::{Body, Entry, Holder};
use crate::track::Sighting;

/// The keys of the `tool_call` object that are not its payload.
pub(super) const NOT_PAYLOAD: &[&str] = &[
    "toolCallId",
    "startedAtMs",
    "completedAtMs",
    "hookAdditionalContexts",
];

/// One call's payload.
pub(super) struct Call<'a> {
    /// The payload's key (`shellToolCall`, `function`, …).
    pub key: &'a str,
    /// The tool's name: the key without `ToolCall`; an MCP call's tool, a function's name.
    pub name: String,
    /// The MCP server and tool, for an `mcpToolCall`.
    pub mcp: Option<(String, String)>,
    /// The call's arguments (an MCP call's own arguments).
    pub input: Value,
    /// The result, once completed, kept as it came.
    pub result: Option<&'a Payload>,
    /// The call's description, when the payload gives one.
    pub description: Option<&'a str>,
}

/// The payload of a `tool_call` object: its one key that is not bookkeeping.
pub(super) fn read(holder: &Holder) -> Option<Call<'_>> {
    let bodies = || {
        holder.iter().filter_map(|(key, entry)| match entry {
            Entry::Body(body) => Some((key, &**body)),
            Entry::Value(_) | Entry::Other => None,
        })
    };
    let (key, body): (&str, &Body) = bodies()
        .find(|(key, _)| key.ends_with("ToolCall"))
        .or_else(|| bodies().find(|(key, _)| !NOT_PAYLOAD.contains(key)))?;
    let args = body.args.as_ref();
    let result = body.result.as_ref();
    let description = body.description.as_ref().and_then(Value::as_str);
    let bare = key.strip_suffix("ToolCall").unwrap_or(key);
    let text = |object: Option<&Value>, field: &str| -> Option<String> {
        object?
            .get(field)
            .and_then(Value::as_str)
            .filter(|text| !text.is_empty())
            .map(str::to_owned)
    };
    let call = match key {
        "mcpToolCall" => {
            let server = text(args, "providerIdentifier")
                .or_else(|| text(args, "serverIdentifier"))
                .or_else(|| text(args, "provider_identifier"));
            let full = text(args, "name");
            let tool = text(args, "toolName")
                .or_else(|| text(args, "tool_name"))
                .or_else(|| match (&full, &server) {
                    (Some(full), Some(server)) => full
                        .strip_prefix(server.as_str())
                        .and_then(|rest| rest.strip_prefix('-'))
                        .map(str::to_owned),
                    _ => None,
                })
                .or_else(|| full.clone());
            let name = tool.clone().unwrap_or_else(|| "mcp".to_owned());
            let input = args
                .and_then(|args| args.get("args"))
                .cloned()
                .unwrap_or_else(|| Value::Object(Map::new()));
            Call {
                key,
                name,
                mcp: server.zip(tool),
                input,
                result,
                description,
            }
        }
        "function" => {
            let name = body
                .name
                .as_ref()
                .and_then(Value::as_str)
                .filter(|name| !name.is_empty())
                .unwrap_or("function")
                .to_owned();
            // Its arguments are JSON text.
            let input = match &body.arguments {
                Some(Value::String(arguments)) => serde_json::from_str(arguments)
                    .unwrap_or_else(|_| Value::String(arguments.clone())),
                Some(other) => other.clone(),
                None => Value::Object(Map::new()),
            };
            Call {
                key,
                name,
                mcp: None,
                input,
                result,
                description,
            }
        }
        _ => Call {
            key,
            name: bare.to_owned(),
            mcp: None,
            input: args.map_or_else(|| Value::Object(Map::new()), arguments),
            result,
            description,
        },
    };
    Some(call)
}

/// A call's `args` without what only repeats the line (`toolCallId`) or is derived from
/// the command (a shell call's `parsingResult`, the parse of its command line).
fn arguments(args: &Value) -> Value {
    match args {
        Value::Object(object) => Value::Object(
            object
                .iter()
                .filter(|(key, _)| !DERIVED_ARGS.contains(&key.as_str()))
                .map(|(key, value)| (key.clone(), value.clone()))
                .collect(),
        ),
        other => other.clone(),
    }
}

/// The `args` keys [`arguments`] leaves out.
const DERIVED_ARGS: &[&str] = &["toolCallId", "parsingResult"];

impl Call<'_> {
    /// The sighting of this call as `id`, seen at `at`.
    pub fn sighting(&self, id: &str, at: Option<Timestamp>) -> Sighting {
        let mut metadata = JsonObject::new();
        metadata.insert(meta::ITEM_TYPE.into(), self.key.into());
        let mut sighting = Sighting::new(id, self.name.as_str(), self.input.clone())
            .metadata(metadata)
            .at(at)
            .provided_title(self.description.map(str::to_owned));
        if let Some((server, tool)) = &self.mcp {
            sighting = sighting.mcp(server.as_str(), tool.as_str());
        }
        sighting
    }
}

/// When a call started and ended, as the `tool_call` object and its line say.
#[derive(Clone, Copy, Default)]
pub(super) struct Timing {
    started: Option<u64>,
    completed: Option<u64>,
    line: Option<u64>,
}

impl Timing {
    /// The times of a `tool_call` object (`startedAtMs`, `completedAtMs`: epoch
    /// milliseconds as strings) and of its line (`timestamp_ms`).
    pub fn of(holder: &Holder, line: Option<u64>) -> Self {
        let millis = |key: &str| match holder.get(key) {
            Some(Value::String(text)) => text.parse().ok(),
            Some(Value::Number(number)) => number.as_u64(),
            _ => None,
        };
        Timing {
            started: millis("startedAtMs"),
            completed: millis("completedAtMs"),
            line,
        }
    }

    /// When the call started (else when its line was written).
    pub fn started(self) -> Option<Timestamp> {
        self.started.or(self.line).map(Timestamp::from)
    }

    /// When the call ended (else when its line was written).
    pub fn completed(self) -> Option<Timestamp> {
        self.completed.or(self.line).map(Timestamp::from)
    }

    /// How long it ran, when both ends are known.
    pub fn elapsed_ms(self) -> Option<u64> {
        self.completed?.checked_sub(self.started?)
    }
}
