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
//! | its approval asked (`metadata.approval` pending) | the arguments of every open call, `SUBAGENT_FINISHED` (`suspended`, with the `interruptIds` it raised) for running subagents, `RUN_FINISHED` with outcome `interrupt` (see [`interrupt`]) |
//! | the next event after such an end | `RUN_STARTED` of the run that continues (`<thread>-run-2`, …), its `input.resume` answering the interrupts decided by then, `SUBAGENT_STARTED` again for the suspended subagents |
//!
//! AG-UI has no failed tool result: a failure is a result whose `metadata.toolnorm`
//! says so (refusals too, with code `permission_denied` or `user_rejected`). Events of a
//! subagent's calls (`metadata.parentToolCallId`) carry `subagentRunId` while that
//! subagent runs. Every `TOOL_CALL_START` and `TOOL_CALL_RESULT` carries
//! `metadata.toolnorm` (see [`UiMeta`]): kind, title, state, error, timing, metadata.
//! Changes of a running call that AG-UI has no event for (title, metadata, streamed
//! output) show in its result's metadata.

mod interrupt;

use std::collections::BTreeMap;

use foldhash::{HashMap, HashSet};
use serde_json::{Value, json as value};
use toolnorm::{NormalizedToolPart, ToolKind, ToolState};

use super::acp::Fields;
use super::format::FormatSpec;
use super::frames::Frames;
use super::json::{Object, json};
use super::json_text;
use super::ui::{
    UiEmitter, approval_of, json_text_of, output_text, parent_of, ui_writer, write_meta,
};
use interrupt::Interrupts;

/// What was sent of an open call.
#[derive(Debug)]
struct Open {
    /// Its place in the order calls started.
    seq: u64,
    /// The subagent its events are attributed to.
    subagent: Option<String>,
    /// Whether `TOOL_CALL_END` was sent.
    ended: bool,
    /// The input as last seen, as JSON text, while the call is `started` (it is sent at
    /// `TOOL_CALL_END`, which a later snapshot or the end of the stream brings).
    input: Vec<u8>,
}

/// A running subagent invocation, as `SUBAGENT_STARTED` announced it (sent again when a
/// run continues after an interrupt suspended it).
#[derive(Debug, Clone)]
struct Subagent {
    /// Its place in the order subagents started.
    seq: u64,
    name: String,
    description: String,
    /// The subagent whose call started it.
    parent: Option<String>,
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
/// let done = call.complete(Completion::with_output("a.txt"));
/// let events = emitter.part(&done.to_part());
/// assert_eq!(events.last().unwrap()["type"], "TOOL_CALL_RESULT");
/// assert_eq!(emitter.finish().last().unwrap()["type"], "RUN_FINISHED");
/// ```
#[derive(Debug)]
pub struct AgUiEmitter {
    /// The thread id.
    thread: String,
    /// The thread id, as JSON text.
    thread_id: Vec<u8>,
    /// The run id (`<thread_id>-run`, then `<thread_id>-run-2`, … for the runs that
    /// continue after an interrupt), as JSON text.
    run_id: Vec<u8>,
    /// Runs started.
    runs: u64,
    started: bool,
    /// Open calls.
    open: HashMap<String, Open>,
    /// The open calls in the order they started, by [`Open::seq`].
    order: BTreeMap<u64, String>,
    seq: u64,
    /// Running subagent invocations, by their call ids.
    subagents: HashMap<String, Subagent>,
    /// Subagent invocations an interrupt suspended, to start again when the run goes on.
    suspended: Vec<(String, Subagent)>,
    /// The calls waiting for approval.
    interrupts: Interrupts,
    /// Subagent invocations that ended (ids are not reused within a run).
    ended_subagents: HashSet<String>,
    /// The buffer the events of [`part`](Self::part) and [`finish`](Self::finish) are written in.
    buffer: Vec<u8>,
}

impl AgUiEmitter {
    /// An emitter of a run in thread `thread_id` (its run id is `<thread_id>-run`).
    pub fn new(thread_id: impl Into<String>) -> Self {
        let thread_id: String = thread_id.into();
        let mut thread = Vec::new();
        json(&mut thread, &thread_id);
        let mut run_id = Vec::new();
        json(&mut run_id, &format!("{thread_id}-run"));
        AgUiEmitter {
            thread: thread_id,
            thread_id: thread,
            run_id,
            runs: 0,
            started: false,
            open: HashMap::default(),
            order: BTreeMap::new(),
            seq: 0,
            subagents: HashMap::default(),
            suspended: Vec::new(),
            interrupts: Interrupts::default(),
            ended_subagents: HashSet::default(),
            buffer: Vec::new(),
        }
    }

    /// The events for a new snapshot of `part` (none when nothing AG-UI shows changed).
    /// Feed it the changes the normalizer reports, in order.
    pub fn part(&mut self, part: &NormalizedToolPart) -> Vec<Value> {
        let mut frames = Frames::held(std::mem::take(&mut self.buffer));
        let written = self.write(Fields::from(part), &mut frames);
        let values = if written.is_ok() {
            frames.values()
        } else {
            Vec::new()
        };
        self.buffer = frames.into_buffer();
        values
    }

    /// The events that end the stream: the arguments of calls still open, the end of
    /// subagents still running (suspended), `RUN_FINISHED`.
    pub fn finish(&mut self) -> Vec<Value> {
        let mut frames = Frames::held(std::mem::take(&mut self.buffer));
        self.write_finish(&mut frames);
        let values = frames.values();
        self.buffer = frames.into_buffer();
        values
    }

    /// Writes the events for a new snapshot of `part` into `frames`.
    pub(crate) fn write(
        &mut self,
        part: Fields<'_>,
        frames: &mut Frames<'_>,
    ) -> serde_json::Result<()> {
        let approval = approval_of(&part);
        if self.interrupts.paused {
            let answers = self.interrupts.answers(&part, approval.as_deref());
            self.resume(answers, frames)?;
        } else {
            self.run_started(frames);
        }
        let id = part.id;
        if !self.open.contains_key(id) {
            let subagent = parent_of(&part)
                .filter(|parent| self.subagents.contains_key(*parent))
                .map(str::to_owned);
            frames.object(|event| {
                head(event, "TOOL_CALL_START", id, subagent.as_deref());
                event.str("toolCallName", part.name);
                event.key("metadata");
                write_meta(event.out(), &part, true)
            })?;
            if part.kind == ToolKind::Subagent && !self.ended_subagents.contains(id) {
                let started = Subagent {
                    seq: self.seq,
                    name: subagent_name(&part).to_owned(),
                    description: part.title.to_owned(),
                    parent: subagent.clone(),
                };
                subagent_started(frames, id, &started)?;
                self.subagents.insert(id.to_owned(), started);
            }
            self.seq += 1;
            self.open.insert(
                id.to_owned(),
                Open {
                    seq: self.seq,
                    subagent,
                    ended: false,
                    input: Vec::new(),
                },
            );
            self.order.insert(self.seq, id.to_owned());
        }
        if part.state == ToolState::Started {
            if let Some(open) = self.open.get_mut(id).filter(|open| !open.ended) {
                open.input.clear();
                json_text::payload(&mut open.input, part.input);
            }
        } else {
            self.end_call(id, Some(part.input), frames)?;
        }
        let attributed = self.open.get(id).and_then(|open| open.subagent.clone());
        if self
            .interrupts
            .sees(&part, approval.as_deref(), attributed.as_deref())
        {
            return self.pause(frames);
        }
        if part.state.is_terminal() {
            if self.subagents.contains_key(id) {
                self.end_subagent(id, Some(&part), frames)?;
            }
            let open = self.open.remove(id);
            if let Some(open) = &open {
                self.order.remove(&open.seq);
            }
            let subagent = open.and_then(|open| open.subagent);
            frames.object(|event| {
                head(event, "TOOL_CALL_RESULT", id, subagent.as_deref());
                event.key("messageId");
                json(event.out(), &format!("{id}:result"));
                event.key("content");
                match part.state {
                    ToolState::Error => {
                        json(
                            event.out(),
                            part.error.map_or("", |error| error.message.as_str()),
                        );
                    }
                    _ => output_text(event.out(), part.output),
                }
                event.str("role", "tool");
                event.key("metadata");
                write_meta(event.out(), &part, true)
            })?;
        }
        Ok(())
    }

    /// Writes the events that end the stream: the arguments of calls still open, the end
    /// of subagents still running (suspended), `RUN_FINISHED`.
    pub(crate) fn write_finish(&mut self, frames: &mut Frames<'_>) {
        if self.interrupts.paused {
            // The stream ended waiting: its last run ended with the interrupt.
            return;
        }
        self.run_started(frames);
        if self.interrupts.any_waiting() {
            let _ = self.pause(frames);
            return;
        }
        let order: Vec<String> = self.order.values().cloned().collect();
        for id in order {
            let _ = self.end_call(&id, None, frames);
        }
        let mut running: Vec<String> = self.subagents.keys().cloned().collect();
        running.sort();
        for id in running {
            let _ = self.end_subagent(&id, None, frames);
        }
        let _ = frames.object(|event| {
            event.str("type", "RUN_FINISHED");
            event.raw("threadId", &self.thread_id);
            event.raw("runId", &self.run_id);
            Ok(())
        });
        self.started = false;
    }

    fn run_started(&mut self, frames: &mut Frames<'_>) {
        if !self.started {
            self.started = true;
            self.runs += 1;
            let _ = frames.object(|event| {
                event.str("type", "RUN_STARTED");
                event.raw("threadId", &self.thread_id);
                event.raw("runId", &self.run_id);
                event.str("protocolVersion", "1.0");
                Ok(())
            });
        }
    }

    /// Ends the run on the calls waiting for approval: the arguments of every open call,
    /// running subagents suspended (with the interrupts their calls raised), then
    /// `RUN_FINISHED` with outcome `interrupt`.
    fn pause(&mut self, frames: &mut Frames<'_>) -> serde_json::Result<()> {
        let order: Vec<String> = self.order.values().cloned().collect();
        for id in order {
            self.end_call(&id, None, frames)?;
        }
        let mut running: Vec<(String, Subagent)> = self.subagents.drain().collect();
        running.sort_by_key(|(_, subagent)| subagent.seq);
        // The innermost first: a subagent ends before the one that started it.
        for (id, _) in running.iter().rev() {
            let raised = self.interrupts.raised_in(id);
            frames.object(|event| {
                event.str("type", "SUBAGENT_FINISHED");
                event.str("subagentRunId", id);
                event.value(
                    "outcome",
                    &value!({"type": "suspended", "interruptIds": raised}),
                )
            })?;
        }
        self.suspended = running;
        let interrupts = self.interrupts.interrupts();
        frames.object(|event| {
            event.str("type", "RUN_FINISHED");
            event.raw("threadId", &self.thread_id);
            event.raw("runId", &self.run_id);
            event.value(
                "outcome",
                &value!({"type": "interrupt", "interrupts": interrupts}),
            )
        })?;
        self.started = false;
        self.interrupts.paused = true;
        Ok(())
    }

    /// Starts the run that continues after an interrupt: `RUN_STARTED` with the answers
    /// known (`input.resume`), then the suspended subagents again.
    fn resume(&mut self, answers: Vec<Value>, frames: &mut Frames<'_>) -> serde_json::Result<()> {
        self.runs += 1;
        self.run_id.clear();
        json(
            &mut self.run_id,
            &format!("{}-run-{}", self.thread, self.runs),
        );
        frames.object(|event| {
            event.str("type", "RUN_STARTED");
            event.raw("threadId", &self.thread_id);
            event.raw("runId", &self.run_id);
            event.str("protocolVersion", "1.0");
            if !answers.is_empty() {
                event.key("input");
                let mut input = Object::open(event.out());
                input.raw("threadId", &self.thread_id);
                input.raw("runId", &self.run_id);
                input.raw("messages", b"[]");
                input.value("resume", &answers)?;
                input.close();
            }
            Ok(())
        })?;
        self.started = true;
        self.interrupts.paused = false;
        for (id, subagent) in std::mem::take(&mut self.suspended) {
            subagent_started(frames, &id, &subagent)?;
            self.subagents.insert(id, subagent);
        }
        Ok(())
    }

    /// `TOOL_CALL_ARGS` and `TOOL_CALL_END` of a call whose input is complete: `input`,
    /// or the one last seen.
    fn end_call(
        &mut self,
        id: &str,
        input: Option<&Value>,
        frames: &mut Frames<'_>,
    ) -> serde_json::Result<()> {
        let Some(open) = self.open.get(id).filter(|open| !open.ended) else {
            return Ok(());
        };
        let subagent = open.subagent.as_deref();
        frames.object(|args| {
            head(args, "TOOL_CALL_ARGS", id, subagent);
            args.key("delta");
            match input {
                Some(input) => json(args.out(), &json_text_of(input)),
                None => json(args.out(), &String::from_utf8_lossy(&open.input)),
            }
            Ok(())
        })?;
        frames.object(|end| {
            head(end, "TOOL_CALL_END", id, subagent);
            Ok(())
        })?;
        if let Some(open) = self.open.get_mut(id) {
            open.ended = true;
            open.input = Vec::new();
        }
        Ok(())
    }

    /// Ends subagent `id`: its calls' arguments first, then `SUBAGENT_FINISHED` or
    /// `SUBAGENT_ERROR` as its call ended (`None`: the stream ended first, suspended).
    fn end_subagent(
        &mut self,
        id: &str,
        part: Option<&Fields<'_>>,
        frames: &mut Frames<'_>,
    ) -> serde_json::Result<()> {
        let children: Vec<String> = self
            .order
            .values()
            .filter(|child| {
                self.open
                    .get(*child)
                    .is_some_and(|open| open.subagent.as_deref() == Some(id))
            })
            .cloned()
            .collect();
        for child in &children {
            self.end_call(child, None, frames)?;
        }
        frames.object(|event| {
            event.str("subagentRunId", id);
            match part {
                Some(part) if part.state == ToolState::Error => {
                    event.str("type", "SUBAGENT_ERROR");
                    event.str(
                        "message",
                        part.error.map_or("", |error| error.message.as_str()),
                    );
                    if let Some(code) = part.error.and_then(|error| error.code.as_ref()) {
                        event.str("code", code.as_str());
                    }
                }
                Some(part) => {
                    event.str("type", "SUBAGENT_FINISHED");
                    if let Some(output) = part.output {
                        event.payload("result", output);
                    }
                }
                None => {
                    event.str("type", "SUBAGENT_FINISHED");
                    event.raw("outcome", br#"{"type":"suspended"}"#);
                }
            }
            Ok(())
        })?;
        self.subagents.remove(id);
        self.ended_subagents.insert(id.to_owned());
        // The children's later events are no longer attributed to the ended subagent.
        for child in children {
            if let Some(open) = self.open.get_mut(&child) {
                open.subagent = None;
            }
        }
        Ok(())
    }
}

/// The name of the agent a subagent call runs: its input's agent type, else the tool.
fn subagent_name<'a>(part: &Fields<'a>) -> &'a str {
    ["subagent_type", "subagentType", "agent"]
        .iter()
        .find_map(|key| part.input.get(key)?.as_str())
        .unwrap_or(part.name)
}

/// `SUBAGENT_STARTED` of the subagent of call `id`.
fn subagent_started(
    frames: &mut Frames<'_>,
    id: &str,
    subagent: &Subagent,
) -> serde_json::Result<()> {
    frames.object(|event| {
        event.str("type", "SUBAGENT_STARTED");
        event.str("subagentRunId", id);
        event.str("name", &subagent.name);
        event.str("description", &subagent.description);
        event.str("parentToolCallId", id);
        if let Some(parent) = &subagent.parent {
            event.str("parentSubagentRunId", parent);
        }
        Ok(())
    })
}

/// `type`, `toolCallId` and the `subagentRunId`, when there is one: how a tool-call
/// event begins.
fn head(event: &mut Object<'_, Frames<'_>>, kind: &str, id: &str, subagent: Option<&str>) {
    event.str("type", kind);
    event.str("toolCallId", id);
    if let Some(subagent) = subagent {
        event.str("subagentRunId", subagent);
    }
}
/// The row of `ag-ui`.
pub(crate) const FORMAT: FormatSpec = FormatSpec {
    name: "ag-ui",
    summary: "AG-UI events: a run, its tool calls and subagents",
    needs_events: false,
    takes_session_id: true,
    sse: true,
    sse_terminator: None,
    for_people: false,
    make: ui_writer::<AgUiEmitter>,
};

impl UiEmitter for AgUiEmitter {
    fn new(session_id: &str) -> Self {
        AgUiEmitter::new(session_id)
    }

    fn write(&mut self, part: Fields<'_>, frames: &mut Frames<'_>) -> serde_json::Result<()> {
        AgUiEmitter::write(self, part, frames)
    }

    fn write_finish(&mut self, frames: &mut Frames<'_>) {
        AgUiEmitter::write_finish(self, frames);
    }
}
