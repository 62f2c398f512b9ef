//! The `cline --json` stream (3.x): `agent_event`, `hook_event` and `run_result` lines.
//!
//! The tool events name their call; the agent that made it is told by the event itself
//! when it names one (`agentId`, `parentAgentId`: an SDK host's events), else by the
//! `hook_event` lines around it (`agent_start` of a subagent with its `parentAgentId`, then its
//! `tool_call` and `tool_result` hooks, then its `agent_end`): the events between a
//! subagent's start and end are its own, nested under the `spawn_agent` call that
//! started it.

use std::collections::HashMap;

use serde_json::Value;
use toolnorm::{ErrorCode, Payload, Timestamp, ToolError};

use super::DIALECT;
use super::outcome::{Seen, ended, sighted};
use super::wire::{AgentEvent, Line};
use crate::Dialect;
use crate::adapter::Adapter;
use crate::diagnostic::{Diagnostic, DiagnosticKind};
use crate::read::json;
use crate::track::{Ending, Facts};

/// The agent events that say nothing about a call: the model's text and reasoning, the
/// loop's iterations, token usage, the SDK's notices and the run's end (its error
/// repeats the failed calls' errors).
const KNOWN: &[&str] = &[
    "iteration_start",
    "iteration_end",
    "usage",
    "notice",
    "error",
    "done",
    "turn_start",
    "turn_end",
];

/// The tool that runs a subagent.
const SPAWN_AGENT: &str = "spawn_agent";

/// Reads `cline --json` (3.x) output.
#[derive(Debug, Default)]
pub struct ClineSdkAdapter {
    /// The agent whose events come now (the last hook's).
    current: Option<String>,
    /// Each subagent's parent agent and the `spawn_agent` call that started it.
    agents: HashMap<String, (Option<String>, Option<String>)>,
    /// The `spawn_agent` calls whose subagent has not started yet, in order.
    spawns: Vec<String>,
}

impl Adapter for ClineSdkAdapter {
    fn dialect(&self) -> Dialect {
        DIALECT
    }

    fn line(&mut self, line: u64, bytes: &[u8], facts: &mut Facts<'_>) {
        let envelope: Line<'_> = match json::parse_line(line, bytes, "not a Cline event") {
            Ok(envelope) => envelope,
            Err(diagnostic) => return facts.diagnostic(diagnostic),
        };
        let at = envelope.ts.as_deref().map(Timestamp::from);
        match envelope.kind.as_deref() {
            Some("hook_event") => self.hook(&envelope, facts),
            Some("agent_event") => match envelope.event {
                Some(event) => self.event(line, *event, at, facts),
                None => facts.diagnostic(Diagnostic::at(
                    line,
                    DiagnosticKind::MalformedEvent,
                    "an agent_event without its event",
                )),
            },
            Some("run_result") => {}
            other => facts.diagnostic(Diagnostic::notice(
                line,
                DiagnosticKind::UnknownEvent,
                format!("unknown Cline line type `{}`", other.unwrap_or_default()),
            )),
        }
    }
}

impl ClineSdkAdapter {
    /// A hook: which agent's events come next. A lead agent's start begins a run (its
    /// conversation is the session); a subagent's start ties it to the first
    /// `spawn_agent` call still waiting for one.
    fn hook(&mut self, envelope: &Line<'_>, facts: &mut Facts<'_>) {
        let Some(agent) = envelope.agent_id.clone() else {
            return;
        };
        match envelope.hook_event_name.as_deref() {
            Some("agent_start") => {
                if envelope.parent_agent_id.is_none()
                    && let Some(task) = envelope.task_id.as_deref()
                {
                    // A new run: its call ids may repeat another run's.
                    *self = ClineSdkAdapter::default();
                    facts.begin_session(task);
                }
                self.agent(agent, envelope.parent_agent_id.clone());
            }
            Some("agent_end") => {
                self.current = self
                    .agents
                    .get(&agent)
                    .and_then(|(parent, _)| parent.clone());
            }
            _ => self.current = Some(agent),
        }
    }

    /// Agent `agent` (spawned by `parent`) makes the events that come next; a subagent
    /// seen for the first time is tied to the first `spawn_agent` call still waiting for
    /// one.
    fn agent(&mut self, agent: String, parent: Option<String>) {
        if !self.agents.contains_key(&agent) {
            let call = parent
                .as_ref()
                .and_then(|_| (!self.spawns.is_empty()).then(|| self.spawns.remove(0)));
            self.agents.insert(agent.clone(), (parent, call));
        }
        self.current = Some(agent);
    }

    /// The `spawn_agent` call the current agent runs under.
    fn parent_call(&self) -> Option<&str> {
        let agent = self.current.as_ref()?;
        self.agents.get(agent)?.1.as_deref()
    }

    /// An agent event: the tool events start, stream and end calls.
    fn event(
        &mut self,
        line: u64,
        event: AgentEvent,
        at: Option<Timestamp>,
        facts: &mut Facts<'_>,
    ) {
        // An event that names its agent says whose it is, whatever the hooks said.
        if let Some(agent) = event.agent_id.clone() {
            self.agent(agent, event.parent_agent_id.clone());
        }
        let kind = event.kind.as_deref().unwrap_or_default();
        let tool = event.content_type.as_deref() == Some("tool");
        match kind {
            "content_start" if tool => self.start(line, &event, at, facts),
            "content_update" if tool => self.update(line, &event, at, facts),
            "content_end" if tool => self.end(line, &event, at, facts),
            "content_start" | "content_update" | "content_end" => {}
            "done" => interrupted(line, &event, at, facts),
            known if KNOWN.contains(&known) => {}
            other => {
                facts.diagnostic(Diagnostic::notice(
                    line,
                    DiagnosticKind::UnknownEvent,
                    format!("unknown Cline agent event `{other}`"),
                ));
                // Nothing tool-like is dropped: an event that names a call is read as the
                // tool event it looks like.
                if event.tool_call_id.is_some() {
                    if event.output.is_some() || event.error.is_some() {
                        self.end(line, &event, at, facts);
                    } else {
                        self.start(line, &event, at, facts);
                    }
                }
            }
        }
    }

    /// The call id of a tool event, or its diagnostic.
    fn call_id<'e>(line: u64, event: &'e AgentEvent, facts: &mut Facts<'_>) -> Option<&'e str> {
        let id = event.tool_call_id.as_deref().filter(|id| !id.is_empty());
        if id.is_none() {
            facts.diagnostic(Diagnostic::at(
                line,
                DiagnosticKind::MalformedEvent,
                format!(
                    "a Cline tool `{}` event without its `toolCallId`",
                    event.kind.as_deref().unwrap_or_default()
                ),
            ));
        }
        id
    }

    /// `content_start`: the call, with its whole input.
    fn start(
        &mut self,
        line: u64,
        event: &AgentEvent,
        at: Option<Timestamp>,
        facts: &mut Facts<'_>,
    ) {
        let Some(id) = Self::call_id(line, event, facts) else {
            return;
        };
        if event.tool_name.as_deref() == Some(SPAWN_AGENT) && !self.spawns.iter().any(|s| s == id) {
            self.spawns.push(id.to_owned());
        }
        let seen = Seen {
            id,
            tool: event.tool_name.as_deref(),
            input: event.input.as_ref(),
            at,
            parent: self.parent_call(),
        };
        sighted(line, seen, facts);
    }

    /// A call whose start the lines read so far do not hold (a stream joined late): it is
    /// opened from what this event says, with a notice.
    fn open_unseen(
        &mut self,
        line: u64,
        id: &str,
        event: &AgentEvent,
        at: Option<Timestamp>,
        facts: &mut Facts<'_>,
    ) {
        facts.diagnostic(Diagnostic::notice(
            line,
            DiagnosticKind::UnknownCall,
            format!("an event of call `{id}`, whose start the input does not hold"),
        ));
        self.start(line, event, at, facts);
    }

    /// `content_update`: the call runs; a command's output chunk streams.
    fn update(
        &mut self,
        line: u64,
        event: &AgentEvent,
        at: Option<Timestamp>,
        facts: &mut Facts<'_>,
    ) {
        let Some(id) = Self::call_id(line, event, facts) else {
            return;
        };
        if !facts.is_open(id) {
            if facts.finished(id).is_some() && !facts.is_other_sessions(id) {
                return facts.diagnostic(Diagnostic::notice(
                    line,
                    DiagnosticKind::UnknownCall,
                    format!("an update of call `{id}`, which has ended"),
                ));
            }
            self.open_unseen(line, id, event, at.clone(), facts);
        }
        facts.running(line, id, at);
        let chunk = event
            .update
            .as_ref()
            .and_then(|update| update.get("chunk"))
            .and_then(Value::as_str);
        if let Some(chunk) = chunk.filter(|chunk| !chunk.is_empty()) {
            facts.output(line, id, chunk);
        }
    }

    /// `content_end`: the call's output, or why it failed.
    fn end(&mut self, line: u64, event: &AgentEvent, at: Option<Timestamp>, facts: &mut Facts<'_>) {
        let Some(id) = Self::call_id(line, event, facts) else {
            return;
        };
        if !facts.is_open(id) {
            if facts.finished(id).is_some() && !facts.is_other_sessions(id) {
                return facts.diagnostic(Diagnostic::at(
                    line,
                    DiagnosticKind::Rejected,
                    format!("a second result for call `{id}`"),
                ));
            }
            self.open_unseen(line, id, event, at.clone(), facts);
        }
        let elapsed = event.duration_ms.as_ref().and_then(Value::as_u64);
        let ending = Ending::at(at).elapsed_ms(elapsed);
        let output = event.output.as_ref().unwrap_or(&Payload::NULL);
        ended(line, id, output, event.error.as_ref(), false, ending, facts);
    }
}

/// `done`: a run that ended `aborted` fails its calls still open, as interrupted; a run
/// that ended otherwise leaves them as they are (nothing says how they ended).
fn interrupted(line: u64, event: &AgentEvent, at: Option<Timestamp>, facts: &mut Facts<'_>) {
    if event.reason.as_deref() != Some("aborted") {
        return;
    }
    let error =
        ToolError::new("the run was aborted").with_code(ErrorCode::Other("interrupted".to_owned()));
    facts.fail_open_calls_of_session(line, None, &error, &Ending::at(at));
}
