//! The reader: OpenHands' events, one a line, or a trajectory's array of them.

use std::collections::{HashMap, HashSet};

use serde_json::value::RawValue;
use serde_json::{Number, Value};
use toolnorm::{JsonObject, ToolKind, meta};

use super::outcome::{end, is_empty};
use super::wire::{Event, ToolCallMetadata};
use super::{
    ACTIONS_OBSERVED, ACTIONS_UNOBSERVED, DIALECT, MCP_ACTION, NON_TOOL_ACTIONS,
    NON_TOOL_OBSERVATIONS, TOOL_OBSERVATIONS,
};
use crate::Dialect;
use crate::adapter::Adapter;
use crate::diagnostic::{Diagnostic, DiagnosticKind};
use crate::read::json;
use crate::track::{Ending, Facts, Sighting};

/// Reads OpenHands' events: a trajectory (a JSON array of them, one document) or the
/// events of a session's folder, one a line.
#[derive(Debug, Default)]
pub struct OpenHandsAdapter {
    /// The call each action started, by the action's event id.
    calls: HashMap<String, String>,
    /// The event ids of every action read (a call's or not).
    actions: HashSet<String>,
}

/// Where an event is: its line, and its place in the array a trajectory's line holds.
#[derive(Clone, Copy)]
struct At {
    line: u64,
    item: Option<usize>,
}

impl At {
    /// How a diagnostic names the event.
    fn says(self, what: &str) -> String {
        match self.item {
            Some(item) => format!("event {item}: {what}"),
            None => what.to_owned(),
        }
    }
}

impl Adapter for OpenHandsAdapter {
    fn dialect(&self) -> Dialect {
        DIALECT
    }

    fn line(&mut self, line: u64, bytes: &[u8], facts: &mut Facts<'_>) {
        if bytes.trim_ascii_start().starts_with(b"[") {
            return self.trajectory(line, bytes, facts);
        }
        match json::parse_line::<Event>(line, bytes, "not an OpenHands event") {
            Ok(event) => self.event(At { line, item: None }, &event, facts),
            Err(diagnostic) => facts.diagnostic(diagnostic),
        }
    }
}

impl OpenHandsAdapter {
    /// A trajectory: every event of a session, in order. Its event ids are its own: the
    /// calls of an earlier trajectory are not answered by this one's observations.
    fn trajectory(&mut self, line: u64, bytes: &[u8], facts: &mut Facts<'_>) {
        let items: Vec<&RawValue> =
            match json::parse_line(line, bytes, "not an OpenHands trajectory") {
                Ok(items) => items,
                Err(diagnostic) => return facts.diagnostic(diagnostic),
            };
        self.calls.clear();
        self.actions.clear();
        for (index, item) in items.into_iter().enumerate() {
            let at = At {
                line,
                item: Some(index),
            };
            match serde_json::from_str::<Event>(item.get()) {
                Ok(event) => self.event(at, &event, facts),
                Err(error) => facts.diagnostic(Diagnostic::at(
                    line,
                    DiagnosticKind::MalformedEvent,
                    at.says(&format!(
                        "not an OpenHands event: {}",
                        json::without_position(&error)
                    )),
                )),
            }
        }
    }

    /// One event: an action or an observation.
    fn event(&mut self, at: At, event: &Event, facts: &mut Facts<'_>) {
        let metadata = match event.metadata() {
            Ok(metadata) => metadata,
            Err(problem) => {
                facts.diagnostic(Diagnostic::notice(
                    at.line,
                    DiagnosticKind::MalformedEvent,
                    at.says(&format!("{}: {problem}", describe(event))),
                ));
                None
            }
        };
        if let Some(action) = event.action.as_deref() {
            return self.action(at, action, event, metadata, facts);
        }
        if let Some(observation) = event.observation.as_deref() {
            return self.observation(at, observation, event, metadata, facts);
        }
        facts.diagnostic(Diagnostic::notice(
            at.line,
            DiagnosticKind::UnknownEvent,
            at.says("an OpenHands event that is neither an action nor an observation"),
        ));
    }

    /// An action: a call when it runs a tool (or the model called it), else nothing
    /// about tools.
    fn action(
        &mut self,
        at: At,
        action: &str,
        event: &Event,
        metadata: Option<ToolCallMetadata>,
        facts: &mut Facts<'_>,
    ) {
        if let Some(number) = &event.id {
            self.actions.insert(number.to_string());
        }
        let observed = ACTIONS_OBSERVED.contains(&action);
        // What runs nothing ends where the model called it; an action of an unknown type
        // waits for an observation.
        let runs_nothing =
            ACTIONS_UNOBSERVED.contains(&action) || NON_TOOL_ACTIONS.contains(&action);
        if !observed && !runs_nothing {
            facts.diagnostic(Diagnostic::notice(
                at.line,
                DiagnosticKind::UnknownEvent,
                at.says(&format!("an OpenHands action of unknown type `{action}`")),
            ));
        }
        // A tool the model called is a call, whatever the action; an action that runs a
        // tool without a call of the model's (the user's own command) is one too.
        if metadata.is_none() && !observed {
            return;
        }
        let Some(id) = call_id(metadata.as_ref(), event.id.as_ref()) else {
            return facts.diagnostic(Diagnostic::at(
                at.line,
                DiagnosticKind::MalformedEvent,
                at.says(&format!(
                    "a `{action}` action with neither a `tool_call_id` nor an event `id`"
                )),
            ));
        };
        let args = event
            .args
            .clone()
            .unwrap_or(Value::Object(JsonObject::new()));
        let (name, input) = if action == MCP_ACTION {
            let name = Event::field(Some(&args), "name").map(str::to_owned);
            let input = args.get("arguments").cloned().unwrap_or_default();
            (name, input)
        } else {
            (None, args.clone())
        };
        let name = metadata
            .as_ref()
            .and_then(|metadata| metadata.function_name.clone())
            .filter(|name| !name.is_empty())
            .or(name)
            .unwrap_or_else(|| action.to_owned());
        let mut call_metadata = JsonObject::new();
        call_metadata.insert(meta::ITEM_TYPE.into(), action.into());
        let mut sighting = Sighting::new(id.clone(), name.clone(), input.clone())
            .metadata(call_metadata)
            .at(event.timestamp.clone());
        if action == MCP_ACTION {
            if facts.describe(&name, None, &input).0 == ToolKind::Unknown {
                // The event names no server: the action says the tool is an MCP server's.
                sighting = sighting.kind(ToolKind::Mcp);
            }
        } else if name != action {
            // The action says what the function did (`str_replace_editor` reads with a
            // `read` action and writes with an `edit`): its rules give the kind and title.
            let (kind, title) = facts.describe(action, None, &input);
            sighting = sighting.kind(kind).title(title);
        }
        facts.sighted(at.line, sighting);
        if let Some(number) = &event.id {
            self.calls.insert(number.to_string(), id.clone());
        }
        if runs_nothing {
            // OpenHands runs nothing for these (`finish`, `reject`, a condensation
            // request): the call ends where the model made it.
            facts.complete(
                at.line,
                &id,
                said(&args),
                Ending::at(event.timestamp.clone()),
            );
        }
    }

    /// An observation: it ends the call of the action it answers (its `cause`, else the
    /// call its `tool_call_metadata` names).
    fn observation(
        &mut self,
        at: At,
        observation: &str,
        event: &Event,
        metadata: Option<ToolCallMetadata>,
        facts: &mut Facts<'_>,
    ) {
        let by_cause = event
            .cause
            .as_ref()
            .and_then(|cause| self.calls.get(&cause.to_string()))
            .cloned();
        let named = metadata
            .as_ref()
            .and_then(|metadata| metadata.tool_call_id.clone());
        let known_call = by_cause.or_else(|| {
            named
                .clone()
                .filter(|id| facts.is_open(id) || facts.finished(id).is_some())
        });
        let tool_like = TOOL_OBSERVATIONS.contains(&observation) || metadata.is_some();
        if !tool_like && !NON_TOOL_OBSERVATIONS.contains(&observation) {
            facts.diagnostic(Diagnostic::notice(
                at.line,
                DiagnosticKind::UnknownEvent,
                at.says(&format!(
                    "an OpenHands observation of unknown type `{observation}`"
                )),
            ));
        }
        let id = match known_call {
            Some(id) if facts.is_open(&id) => id,
            Some(id) => {
                return facts.diagnostic(Diagnostic::notice(
                    at.line,
                    DiagnosticKind::UnknownCall,
                    at.says(&format!(
                        "a `{observation}` observation of call `{id}`, which has ended"
                    )),
                ));
            }
            // An observation no call caused (an agent's error, a message's `null`), or
            // one of an action the input holds that is no call.
            None if !tool_like || (metadata.is_none() && self.caused_by_no_call(event)) => {
                return;
            }
            None => {
                let Some(id) = named.or_else(|| event.cause.as_ref().map(Number::to_string)) else {
                    return facts.diagnostic(Diagnostic::notice(
                        at.line,
                        DiagnosticKind::UnknownCall,
                        at.says(&format!(
                            "a `{observation}` observation that names no action or call"
                        )),
                    ));
                };
                self.open_unseen(at, &id, observation, event, metadata.as_ref(), facts);
                id
            }
        };
        end(at.line, &id, observation, event, facts);
    }

    /// Whether an observation names no action, or one the input holds that is no call.
    fn caused_by_no_call(&self, event: &Event) -> bool {
        event
            .cause
            .as_ref()
            .is_none_or(|cause| self.actions.contains(&cause.to_string()))
    }

    /// An observation of a call whose action the input does not hold: the call is opened
    /// with what the observation says of it, with a notice.
    fn open_unseen(
        &mut self,
        at: At,
        id: &str,
        observation: &str,
        event: &Event,
        metadata: Option<&ToolCallMetadata>,
        facts: &mut Facts<'_>,
    ) {
        facts.diagnostic(Diagnostic::notice(
            at.line,
            DiagnosticKind::UnknownCall,
            at.says(&format!(
                "a `{observation}` observation of call `{id}`, whose action the input does not hold"
            )),
        ));
        let name = metadata
            .and_then(|metadata| metadata.function_name.clone())
            .filter(|name| !name.is_empty())
            .unwrap_or_else(|| observation.to_owned());
        let mut call_metadata = JsonObject::new();
        call_metadata.insert(meta::ITEM_TYPE.into(), observation.into());
        facts.sighted(
            at.line,
            Sighting::new(id, name, Value::Object(JsonObject::new()))
                .metadata(call_metadata)
                .at(event.timestamp.clone()),
        );
        if let Some(cause) = &event.cause {
            self.calls.insert(cause.to_string(), id.to_owned());
        }
    }
}

/// The id of an action's call: the model's, else the action's event id.
fn call_id(metadata: Option<&ToolCallMetadata>, event_id: Option<&Number>) -> Option<String> {
    metadata
        .and_then(|metadata| metadata.tool_call_id.clone())
        .or_else(|| event_id.map(Number::to_string))
}

/// What an action that runs nothing says: a finish's final thought or outputs, a
/// rejection's outputs.
fn said(args: &Value) -> Option<Value> {
    ["final_thought", "outputs", "content"]
        .iter()
        .filter_map(|key| args.get(*key))
        .find(|value| !is_empty(value))
        .cloned()
}

/// How a diagnostic names an event: its type.
fn describe(event: &Event) -> String {
    match (&event.action, &event.observation) {
        (Some(action), _) => format!("a `{action}` action"),
        (None, Some(observation)) => format!("a `{observation}` observation"),
        (None, None) => "an event".to_owned(),
    }
}
