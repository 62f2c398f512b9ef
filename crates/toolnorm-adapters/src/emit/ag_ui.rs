//! Parts to AG-UI (protocol 1.0) events: one run per stream, the tool-call events per
//! call, and a subagent invocation per subagent call.
//!
//! | part | events |
//! | --- | --- |
//! | first seen | `RUN_STARTED` (first call of the stream), `TOOL_CALL_START` (`toolCallName` = `name`) |
//! | a `subagent` call first seen | then `SUBAGENT_STARTED` (`subagentRunId` = the call id, `parentToolCallId` = the call id) |
//! | leaves `started` (input complete) | `TOOL_CALL_ARGS` with the whole input as JSON, `TOOL_CALL_END` |
//! | `complete` | `TOOL_CALL_RESULT` with `content` = the output (a string as it is, other JSON as its text) |
//! | `error` | `TOOL_CALL_RESULT` with `content` = `error.message`; `metadata.toolnorm.state` is `"error"` and `metadata.toolnorm.error` the error (code, details) |
//! | a subagent call ends | `SUBAGENT_FINISHED` (complete, `result` = the output) or `SUBAGENT_ERROR` (`message`, `code`) before its result |
//! | end of the stream | `TOOL_CALL_ARGS`/`TOOL_CALL_END` of calls still in `started`, `SUBAGENT_FINISHED` with outcome `suspended` for subagents still running, `RUN_FINISHED` |
//!
//! AG-UI has no failed tool result: a failure is a result whose `metadata.toolnorm`
//! says so (refusals too, with code `permission_denied` or `user_rejected`). Events of a
//! subagent's calls (`metadata.parentToolCallId`) carry `subagentRunId` while that
//! subagent runs. Every `TOOL_CALL_START` and `TOOL_CALL_RESULT` carries
//! `metadata.toolnorm` (see [`UiMeta`]): kind, title, state, error, timing, metadata.
//! Changes of a running call that AG-UI has no event for (title, metadata, streamed
//! output) show in its result's metadata.

use std::collections::{HashMap, HashSet};

use serde_json::{Map, Value, json};
use toolnorm::{NormalizedToolPart, ToolKind, ToolState};

use super::ui::{UiMeta, output_text, parent_of};

/// What was sent of an open call.
#[derive(Debug)]
struct Open {
    /// The subagent its events are attributed to.
    subagent: Option<String>,
    /// Whether `TOOL_CALL_END` was sent.
    ended: bool,
    /// The input as last seen (sent at `TOOL_CALL_END`).
    input: Value,
}

/// Turns part snapshots into AG-UI events.
///
/// ```
/// use toolnorm::{Completion, ToolCall, ToolKind};
/// use toolnorm_adapters::AgUiEmitter;
///
/// let mut emitter = AgUiEmitter::new("thread-1");
/// let call = ToolCall::start("t1", "Bash", ToolKind::Bash).with_title("ls");
/// let events = emitter.part(&call.to_part());
/// assert_eq!(events[0]["type"], "RUN_STARTED");
/// assert_eq!(events[1]["type"], "TOOL_CALL_START");
/// let done = call.complete(Completion::with_output("a.txt".into()));
/// let events = emitter.part(&done.to_part());
/// assert_eq!(events.last().unwrap()["type"], "TOOL_CALL_RESULT");
/// assert_eq!(emitter.finish().last().unwrap()["type"], "RUN_FINISHED");
/// ```
#[derive(Debug)]
pub struct AgUiEmitter {
    thread_id: String,
    started: bool,
    /// Open calls, in the order they started.
    open: HashMap<String, Open>,
    order: Vec<String>,
    /// Running subagent invocations (their call ids).
    subagents: HashSet<String>,
    /// Subagent invocations that ended (ids are not reused within a run).
    ended_subagents: HashSet<String>,
}

impl AgUiEmitter {
    /// An emitter of a run in thread `thread_id` (its run id is `<thread_id>-run`).
    pub fn new(thread_id: impl Into<String>) -> Self {
        AgUiEmitter {
            thread_id: thread_id.into(),
            started: false,
            open: HashMap::new(),
            order: Vec::new(),
            subagents: HashSet::new(),
            ended_subagents: HashSet::new(),
        }
    }

    /// The events for a new snapshot of `part` (none when nothing AG-UI shows changed).
    /// Feed it the changes the normalizer reports, in order.
    pub fn part(&mut self, part: &NormalizedToolPart) -> Vec<Value> {
        let mut events = Vec::new();
        self.run_started(&mut events);
        let id = part.id.as_str();
        if !self.open.contains_key(id) {
            let subagent = parent_of(part)
                .filter(|parent| self.subagents.contains(*parent))
                .map(str::to_owned);
            let mut event = self.event("TOOL_CALL_START", id, subagent.as_deref());
            event.insert("toolCallName".into(), part.name.clone().into());
            event.insert("metadata".into(), UiMeta::of(part, true).wrapped());
            events.push(Value::Object(event));
            if part.kind == ToolKind::Subagent && !self.ended_subagents.contains(id) {
                events.push(subagent_started(part, subagent.as_deref()));
                self.subagents.insert(id.to_owned());
            }
            self.open.insert(
                id.to_owned(),
                Open {
                    subagent,
                    ended: false,
                    input: part.input.clone(),
                },
            );
            self.order.push(id.to_owned());
        }
        if let Some(open) = self.open.get_mut(id) {
            open.input = part.input.clone();
        }
        if part.state != ToolState::Started {
            self.end_call(id, &mut events);
        }
        if part.state.is_terminal() {
            if self.subagents.contains(id) {
                self.end_subagent(id, Some(part), &mut events);
            }
            let subagent = self.open.remove(id).and_then(|open| open.subagent);
            self.order.retain(|open| open != id);
            let mut event = self.event("TOOL_CALL_RESULT", id, subagent.as_deref());
            event.insert("messageId".into(), format!("{id}:result").into());
            let content = match part.state {
                ToolState::Error => part
                    .error
                    .as_ref()
                    .map(|error| error.message.clone())
                    .unwrap_or_default(),
                _ => output_text(part.output.as_ref()),
            };
            event.insert("content".into(), content.into());
            event.insert("role".into(), "tool".into());
            event.insert("metadata".into(), UiMeta::of(part, true).wrapped());
            events.push(Value::Object(event));
        }
        events
    }

    /// The events that end the stream: the arguments of calls still open, the end of
    /// subagents still running (suspended), `RUN_FINISHED`.
    pub fn finish(&mut self) -> Vec<Value> {
        let mut events = Vec::new();
        self.run_started(&mut events);
        for id in self.order.clone() {
            self.end_call(&id, &mut events);
        }
        let mut running: Vec<String> = self.subagents.iter().cloned().collect();
        running.sort();
        for id in running {
            self.end_subagent(&id, None, &mut events);
        }
        events.push(json!({
            "type": "RUN_FINISHED",
            "threadId": self.thread_id,
            "runId": self.run_id(),
        }));
        self.started = false;
        events
    }

    fn run_id(&self) -> String {
        format!("{}-run", self.thread_id)
    }

    fn run_started(&mut self, events: &mut Vec<Value>) {
        if !self.started {
            self.started = true;
            events.push(json!({
                "type": "RUN_STARTED",
                "threadId": self.thread_id,
                "runId": self.run_id(),
                "protocolVersion": "1.0",
            }));
        }
    }

    fn event(&self, kind: &str, id: &str, subagent: Option<&str>) -> Map<String, Value> {
        let mut event = Map::new();
        event.insert("type".into(), kind.into());
        event.insert("toolCallId".into(), id.into());
        if let Some(subagent) = subagent {
            event.insert("subagentRunId".into(), subagent.into());
        }
        event
    }

    /// `TOOL_CALL_ARGS` and `TOOL_CALL_END` of a call whose input is complete.
    fn end_call(&mut self, id: &str, events: &mut Vec<Value>) {
        let Some(open) = self.open.get(id).filter(|open| !open.ended) else {
            return;
        };
        let mut args = self.event("TOOL_CALL_ARGS", id, open.subagent.as_deref());
        args.insert("delta".into(), open.input.to_string().into());
        events.push(Value::Object(args));
        events.push(Value::Object(self.event(
            "TOOL_CALL_END",
            id,
            open.subagent.as_deref(),
        )));
        if let Some(open) = self.open.get_mut(id) {
            open.ended = true;
        }
    }

    /// Ends subagent `id`: its calls' arguments first, then `SUBAGENT_FINISHED` or
    /// `SUBAGENT_ERROR` as its call ended (`None`: the stream ended first, suspended).
    fn end_subagent(
        &mut self,
        id: &str,
        part: Option<&NormalizedToolPart>,
        events: &mut Vec<Value>,
    ) {
        let children: Vec<String> = self
            .order
            .iter()
            .filter(|child| {
                self.open
                    .get(*child)
                    .is_some_and(|open| open.subagent.as_deref() == Some(id))
            })
            .cloned()
            .collect();
        for child in &children {
            self.end_call(child, events);
        }
        let mut event = Map::new();
        event.insert("subagentRunId".into(), id.into());
        match part {
            Some(part) if part.state == ToolState::Error => {
                event.insert("type".into(), "SUBAGENT_ERROR".into());
                let error = part.error.as_ref();
                let message = error.map(|error| error.message.clone());
                event.insert("message".into(), message.unwrap_or_default().into());
                if let Some(code) = error.and_then(|error| error.code.as_ref()) {
                    event.insert("code".into(), code.as_str().into());
                }
            }
            Some(part) => {
                event.insert("type".into(), "SUBAGENT_FINISHED".into());
                if let Some(output) = &part.output {
                    event.insert("result".into(), output.clone());
                }
            }
            None => {
                event.insert("type".into(), "SUBAGENT_FINISHED".into());
                event.insert("outcome".into(), json!({ "type": "suspended" }));
            }
        }
        events.push(Value::Object(event));
        self.subagents.remove(id);
        self.ended_subagents.insert(id.to_owned());
        // The children's later events are no longer attributed to the ended subagent.
        for child in children {
            if let Some(open) = self.open.get_mut(&child) {
                open.subagent = None;
            }
        }
    }
}

fn subagent_started(part: &NormalizedToolPart, parent: Option<&str>) -> Value {
    let name = ["subagent_type", "subagentType", "agent"]
        .iter()
        .find_map(|key| part.input.get(key)?.as_str())
        .unwrap_or(&part.name);
    let mut event = json!({
        "type": "SUBAGENT_STARTED",
        "subagentRunId": part.id,
        "name": name,
        "description": part.title,
        "parentToolCallId": part.id,
    });
    if let (Some(parent), Value::Object(fields)) = (parent, &mut event) {
        fields.insert("parentSubagentRunId".into(), parent.into());
    }
    event
}
