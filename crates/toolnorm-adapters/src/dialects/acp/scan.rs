//! One scan of an ACP line: the JSON-RPC envelope, the params of the methods read, and a
//! `session/update`'s update, all in one reading of the line's bytes, strings borrowed.
//!
//! It reads only the common shapes: `session/update` notifications (a tool call's fields
//! kept raw and read as the schema's `ToolCall` / `ToolCallUpdate`, the other update kinds
//! read past), the client's `session/new|load|resume` requests (their `cwd`), other
//! requests and notifications (read past) and responses (their id). Anything else (a
//! `session/request_permission`, rare, with its call and options; a key given twice; a
//! string where an object is due; a tool call that does not read; a line that is not JSON)
//! makes the scan give up, and the line is read as before, into a `serde_json::Value` and
//! field by field (`AcpAdapter::read_fields`), which says what is wrong with it: the scan
//! changes how often the bytes are read, never what a line means.
//!
//! What is read past is checked as JSON the way the floor checks it (`IgnoredAny`), not
//! built: a part read past that is valid JSON a `Value` refuses (nesting deeper than 128,
//! a number beyond `f64`, an unpaired surrogate escape) is read past, where the
//! field-by-field reading says the line is not valid JSON, as the Claude Code and codex
//! exec scans do.
//!
//! Hand-written visitors rather than the generated `SessionNotification`: its update is
//! an untagged union of owned types (every kind buffered, then tried in turn), where the
//! update kinds that carry no call (most of the bytes: command lists, message chunks,
//! usage) are only read past here. A tool call's fields are the generated types', given
//! back from their raw text.

use std::borrow::Cow;
use std::fmt;

use serde::Deserialize;
use serde::de::value::{BorrowedStrDeserializer, MapAccessDeserializer};
use serde::de::{self, DeserializeSeed, Deserializer, IgnoredAny, MapAccess, Visitor};
use serde_json::Value;
use serde_json::value::RawValue;
use toolnorm::Payload;
use toolnorm_wire::acp;

use super::seen::{Raw, Seen};
use crate::read::borrowed::Text;
use crate::read::json::give_up;

/// A line read in one scan.
pub(super) enum Frame<'a> {
    /// A `tool_call` or `tool_call_update` of a `session/update`.
    Call(Box<Seen>),
    /// The session's directory, from a `session/new`, `session/load` or `session/resume`.
    Cwd(Cow<'a, str>),
    /// A response, by its id as written.
    Response(&'a RawValue),
    /// A frame that carries no tool-call data: read past.
    Skipped,
}

/// The line read in one scan, or `None` when it is not of the shapes the scan reads.
pub(super) fn scan(bytes: &[u8]) -> Option<Frame<'_>> {
    crate::read::json::scan_line(bytes)
}

/// Whether a line starts a session: the client's `initialize` or `session/new` request,
/// or the agent's answer to one (its `protocolVersion`, the new `sessionId`).
pub(super) fn opens_session(bytes: &[u8]) -> bool {
    /// What tells the start of a session apart, the rest read past.
    #[derive(Deserialize)]
    struct Opening {
        #[serde(default)]
        method: Option<String>,
        #[serde(default)]
        result: Option<serde_json::Map<String, Value>>,
    }
    match serde_json::from_slice::<Opening>(bytes) {
        Ok(Opening {
            method: Some(method),
            ..
        }) => method == "initialize" || method == "session/new",
        Ok(Opening {
            result: Some(result),
            ..
        }) => {
            result.contains_key("protocolVersion")
                || (result.contains_key("sessionId") && !result.contains_key("stopReason"))
        }
        _ => false,
    }
}

/// The methods whose params the scan reads.
#[derive(Clone, Copy)]
enum Method {
    Update,
    /// `session/new`, `session/load`, `session/resume`: the session's directory.
    Directory,
    /// `session/request_permission` and `elicitation/create`: left to the field-by-field
    /// reading.
    Asks,
    /// Requests and notifications that carry no tool-call data.
    Other,
}

impl Method {
    fn of(method: &str) -> Self {
        match method {
            "session/update" => Method::Update,
            "session/new" | "session/load" | "session/resume" => Method::Directory,
            "session/request_permission" | "elicitation/create" => Method::Asks,
            _ => Method::Other,
        }
    }
}

impl<'de> Deserialize<'de> for Frame<'de> {
    fn deserialize<D: Deserializer<'de>>(deserializer: D) -> Result<Self, D::Error> {
        deserializer.deserialize_map(MessageVisitor)
    }
}

/// The JSON-RPC message: `method`, `params` (read as the method says when the method
/// comes first, kept raw and read after otherwise) and `id`.
struct MessageVisitor;

impl<'de> Visitor<'de> for MessageVisitor {
    type Value = Frame<'de>;

    fn expecting(&self, formatter: &mut fmt::Formatter<'_>) -> fmt::Result {
        formatter.write_str("a JSON-RPC message")
    }

    fn visit_map<A: MapAccess<'de>>(self, mut map: A) -> Result<Self::Value, A::Error> {
        let mut method = None;
        let mut params = None;
        let mut raw_params = None;
        let mut id = None;
        while let Some(Text(key)) = map.next_key::<Text<'de>>()? {
            match key.as_ref() {
                "method" => {
                    if method.is_some() {
                        return Err(give_up());
                    }
                    let Text(name) = map.next_value::<Text<'de>>()?;
                    let read = Method::of(&name);
                    if matches!(read, Method::Asks) {
                        return Err(give_up());
                    }
                    method = Some(read);
                }
                "params" => {
                    if params.is_some() || raw_params.is_some() {
                        return Err(give_up());
                    }
                    match method {
                        Some(method) => params = Some(map.next_value_seed(ParamsSeed(method))?),
                        None => raw_params = Some(map.next_value::<&'de RawValue>()?),
                    }
                }
                "id" => {
                    if id.is_some() {
                        return Err(give_up());
                    }
                    id = Some(map.next_value::<&'de RawValue>()?);
                }
                _ => {
                    map.next_value::<IgnoredAny>()?;
                }
            }
        }
        let Some(method) = method else {
            // A response; a message with neither is left to say what it lacks.
            return id.map(Frame::Response).ok_or_else(give_up);
        };
        let params = match (params, raw_params) {
            (Some(params), _) => Some(params),
            (None, Some(raw)) => Some(
                ParamsSeed(method)
                    .deserialize(raw)
                    .map_err(de::Error::custom)?,
            ),
            (None, None) => None,
        };
        match (method, params) {
            // `session/update` without params is left to say so.
            (Method::Update, None) => Err(give_up()),
            (_, params) => Ok(params.unwrap_or(Frame::Skipped)),
        }
    }
}

/// A method's params, read as the method says.
struct ParamsSeed(Method);

impl<'de> DeserializeSeed<'de> for ParamsSeed {
    type Value = Frame<'de>;

    fn deserialize<D: Deserializer<'de>>(self, deserializer: D) -> Result<Self::Value, D::Error> {
        match self.0 {
            Method::Update => deserializer.deserialize_map(UpdateParams),
            Method::Directory => deserializer.deserialize_map(DirectoryParams),
            Method::Asks => Err(give_up()),
            Method::Other => deserializer
                .deserialize_ignored_any(IgnoredAny)
                .map(|_| Frame::Skipped),
        }
    }
}

/// `session/update` params: `sessionId` and `update`.
struct UpdateParams;

impl<'de> Visitor<'de> for UpdateParams {
    type Value = Frame<'de>;

    fn expecting(&self, formatter: &mut fmt::Formatter<'_>) -> fmt::Result {
        formatter.write_str("session/update params")
    }

    fn visit_map<A: MapAccess<'de>>(self, mut map: A) -> Result<Self::Value, A::Error> {
        let mut session = None;
        let mut update = None;
        while let Some(Text(key)) = map.next_key::<Text<'de>>()? {
            match key.as_ref() {
                "sessionId" => {
                    if session.is_some() {
                        return Err(give_up());
                    }
                    session = Some(map.next_value::<Text<'de>>()?.0);
                }
                "update" => {
                    if update.is_some() {
                        return Err(give_up());
                    }
                    update = Some(map.next_value_seed(UpdateSeed)?);
                }
                _ => {
                    map.next_value::<IgnoredAny>()?;
                }
            }
        }
        // `session/update` without an update is left to say so.
        match update.ok_or_else(give_up)? {
            Some(mut seen) => {
                seen.session = session.map(|session| Value::String(session.into_owned()));
                Ok(Frame::Call(seen))
            }
            None => Ok(Frame::Skipped),
        }
    }
}

/// `session/new|load|resume` params: `cwd`.
struct DirectoryParams;

impl<'de> Visitor<'de> for DirectoryParams {
    type Value = Frame<'de>;

    fn expecting(&self, formatter: &mut fmt::Formatter<'_>) -> fmt::Result {
        formatter.write_str("session params")
    }

    fn visit_map<A: MapAccess<'de>>(self, mut map: A) -> Result<Self::Value, A::Error> {
        let mut cwd = None;
        while let Some(Text(key)) = map.next_key::<Text<'de>>()? {
            if key == "cwd" {
                if cwd.is_some() {
                    return Err(give_up());
                }
                cwd = Some(map.next_value::<Text<'de>>()?.0);
            } else {
                map.next_value::<IgnoredAny>()?;
            }
        }
        Ok(cwd.map_or(Frame::Skipped, Frame::Cwd))
    }
}

/// The fields of a tool call the schema's types read, in the order given back to them.
const FIELDS: [&str; 10] = [
    "toolCallId",
    "title",
    "kind",
    "status",
    "name",
    "rawInput",
    "rawOutput",
    "locations",
    "content",
    "_meta",
];

/// A tool call's fields, each as its raw text.
type Fields<'de> = [Option<&'de RawValue>; FIELDS.len()];

/// `params.update`: a tool call (`Some`), another kind of update (`None`, read past).
struct UpdateSeed;

impl<'de> DeserializeSeed<'de> for UpdateSeed {
    type Value = Option<Box<Seen>>;

    fn deserialize<D: Deserializer<'de>>(self, deserializer: D) -> Result<Self::Value, D::Error> {
        deserializer.deserialize_map(self)
    }
}

impl<'de> Visitor<'de> for UpdateSeed {
    type Value = Option<Box<Seen>>;

    fn expecting(&self, formatter: &mut fmt::Formatter<'_>) -> fmt::Result {
        formatter.write_str("a session update")
    }

    fn visit_map<A: MapAccess<'de>>(self, mut map: A) -> Result<Self::Value, A::Error> {
        let mut fields: Fields<'de> = [None; FIELDS.len()];
        let mut twice = false;
        let mut update = None;
        while let Some(Text(key)) = map.next_key::<Text<'de>>()? {
            if key == "sessionUpdate" {
                if update.is_some() {
                    return Err(give_up());
                }
                let Text(kind) = map.next_value::<Text<'de>>()?;
                update = Some(match kind.as_ref() {
                    "tool_call" => false,
                    "tool_call_update" => true,
                    // Message chunks, plans, commands, modes, usage: not tool calls.
                    _ => return read_past(map).map(|()| None),
                });
                continue;
            }
            match FIELDS.iter().position(|field| *field == key) {
                Some(index) => {
                    let slot = fields.get_mut(index).ok_or_else(give_up)?;
                    twice |= slot.is_some();
                    *slot = Some(map.next_value::<&'de RawValue>()?);
                }
                None => {
                    map.next_value::<IgnoredAny>()?;
                }
            }
        }
        // No `sessionUpdate`, or a field given twice: left to the field-by-field reading.
        let update = update.filter(|_| !twice).ok_or_else(give_up)?;
        seen(&fields, update)
            .map(|seen| Some(Box::new(seen)))
            .map_err(de::Error::custom)
    }
}

/// The rest of an update that is not a tool call, a second `sessionUpdate` left to the
/// field-by-field reading.
fn read_past<'de, A: MapAccess<'de>>(mut map: A) -> Result<(), A::Error> {
    while let Some(Text(key)) = map.next_key::<Text<'de>>()? {
        if key == "sessionUpdate" {
            return Err(give_up());
        }
        map.next_value::<IgnoredAny>()?;
    }
    Ok(())
}

/// The sight of a tool call's fields: read as the schema's type, the fields taken as sent
/// read again from their text.
fn seen(fields: &Fields<'_>, update: bool) -> Result<Seen, serde_json::Error> {
    let field = |name: &str| {
        FIELDS
            .iter()
            .position(|field| *field == name)
            .and_then(|index| fields.get(index).copied().flatten())
    };
    let value = |name: &str| {
        field(name)
            .map(|raw| serde_json::from_str::<Value>(raw.get()))
            .transpose()
    };
    let given = MapAccessDeserializer::new(Given {
        fields,
        next: 0,
        value: None,
    });
    // `rawInput` as the type reads it, a present `null` kept as a value.
    let sent = |name: &str, read: Option<Value>| field(name).map(|_| read.unwrap_or(Value::Null));
    // `rawOutput` (any value, as the type reads it) kept as its text, not given to the type.
    let raw_output = field("rawOutput")
        .map(|raw| serde_json::from_str::<Payload>(raw.get()))
        .transpose()?;
    let content = value("content")?.and_then(|content| match content {
        Value::Array(content) => Some(content),
        _ => None,
    });
    let locations = value("locations")?;
    Ok(if update {
        let mut call = acp::ToolCallUpdate::deserialize(given)?;
        let raw = Raw {
            raw_input: sent("rawInput", call.raw_input.take()),
            raw_output,
            locations,
            content,
        };
        Seen::from_update(call, raw, None)
    } else {
        let mut call = acp::ToolCall::deserialize(given)?;
        let raw = Raw {
            raw_input: sent("rawInput", call.raw_input.take()),
            raw_output,
            locations,
            content,
        };
        Seen::from_call(call, raw, None)
    })
}

/// A tool call's fields given back from their raw text.
struct Given<'a, 'de> {
    fields: &'a Fields<'de>,
    /// The index in [`FIELDS`] of the next field to look at.
    next: usize,
    /// The value of the key given back last.
    value: Option<&'de RawValue>,
}

impl<'de> MapAccess<'de> for Given<'_, 'de> {
    type Error = serde_json::Error;

    fn next_key_seed<K: DeserializeSeed<'de>>(
        &mut self,
        seed: K,
    ) -> Result<Option<K::Value>, Self::Error> {
        while let (Some(key), Some(raw)) = (FIELDS.get(self.next), self.fields.get(self.next)) {
            self.next += 1;
            // Read apart, as its text ([`seen`]).
            if *key == "rawOutput" {
                continue;
            }
            if let Some(raw) = raw {
                self.value = Some(raw);
                return seed
                    .deserialize(BorrowedStrDeserializer::new(key))
                    .map(Some);
            }
        }
        Ok(None)
    }

    fn next_value_seed<V: DeserializeSeed<'de>>(
        &mut self,
        seed: V,
    ) -> Result<V::Value, Self::Error> {
        seed.deserialize(self.value.take().ok_or_else(give_up::<Self::Error>)?)
    }
}

#[cfg(test)]
#[path = "scan_tests.rs"]
mod tests;
