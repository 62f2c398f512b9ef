//! The fields of the Cline 3.x stream and session file that a call needs, named as
//! `@cline/sdk`'s TypeScript declarations name them (`AgentEvent`, `ContentStartEvent`,
//! `ContentUpdateEvent`, `ContentEndEvent`; the session's `MessageWithMetadata`).

use std::borrow::Cow;

use serde::Deserialize;
use serde_json::Value;
use toolnorm::Payload;

/// One line of `cline --json`: an envelope with its time and type.
#[derive(Debug, Deserialize)]
pub(super) struct Line<'a> {
    /// `agent_event`, `hook_event` or `run_result`.
    #[serde(rename = "type", borrow)]
    pub kind: Option<Cow<'a, str>>,
    /// When the CLI printed it (ISO 8601).
    pub ts: Option<String>,
    /// An `agent_event`'s event.
    pub event: Option<Box<AgentEvent>>,
    /// A `hook_event`'s hook: `agent_start`, `agent_end`, `tool_call`, `tool_result`, …
    #[serde(rename = "hookEventName")]
    pub hook_event_name: Option<String>,
    /// A `hook_event`'s agent (the lead, or a subagent).
    #[serde(rename = "agentId")]
    pub agent_id: Option<String>,
    /// The agent that spawned it (`null` for the lead).
    #[serde(rename = "parentAgentId")]
    pub parent_agent_id: Option<String>,
    /// A `hook_event`'s conversation.
    #[serde(rename = "taskId")]
    pub task_id: Option<String>,
}

/// An `AgentEvent`: the fields of the tool events, and of the run's error and end.
#[derive(Debug, Deserialize)]
pub(super) struct AgentEvent {
    /// `content_start`, `content_update`, `content_end`, `error`, `done`, …
    #[serde(rename = "type")]
    pub kind: Option<String>,
    /// `text`, `reasoning` or `tool` for the content events.
    #[serde(rename = "contentType")]
    pub content_type: Option<String>,
    /// The tool of a tool content event.
    #[serde(rename = "toolName")]
    pub tool_name: Option<String>,
    /// The call of a tool content event.
    #[serde(rename = "toolCallId")]
    pub tool_call_id: Option<String>,
    /// `content_start`: the call's input.
    pub input: Option<Value>,
    /// `content_update`: progress (a command's output chunk: `stream`, `chunk`).
    pub update: Option<Value>,
    /// `content_end`: the tool's output, kept as the JSON text it came as.
    pub output: Option<Payload>,
    /// `content_end`: why the call failed (a string); `error`: the run's error.
    pub error: Option<Value>,
    /// `content_end`: how long the call took.
    #[serde(rename = "durationMs")]
    pub duration_ms: Option<Value>,
    /// `done`: why the run ended (`completed`, `aborted`, …).
    pub reason: Option<String>,
    /// The agent whose event it is (`AgentEventMetadata`; the CLI's `--json` leaves it to
    /// the hooks around the event, an SDK host may send it).
    #[serde(rename = "agentId")]
    pub agent_id: Option<String>,
    /// The agent that spawned it.
    #[serde(rename = "parentAgentId")]
    pub parent_agent_id: Option<String>,
}

/// The session file: one document of the session's model messages.
#[derive(Debug, Deserialize)]
pub(super) struct SessionFile {
    /// The session (a subagent's is `<lead session>__<agent id>`).
    #[serde(rename = "sessionId")]
    pub session_id: Option<String>,
    /// Where the session came from: a subagent's names its parent's session.
    pub origin: Option<Origin>,
    /// The model's messages.
    #[serde(default)]
    pub messages: Vec<Value>,
}

/// A session's `origin`.
#[derive(Debug, Deserialize)]
pub(super) struct Origin {
    /// A subagent's: the session of the agent that spawned it.
    #[serde(rename = "parentThreadId")]
    pub parent_thread_id: Option<String>,
}

/// A session message (`MessageWithMetadata`): its role, content blocks and time.
#[derive(Debug, Deserialize)]
pub(super) struct Message {
    /// `user` or `assistant`.
    pub role: Option<String>,
    /// Text, or content blocks.
    #[serde(default)]
    pub content: Value,
    /// Epoch milliseconds.
    pub ts: Option<Value>,
}

/// A content block of a session message: the fields of `tool_use` and `tool_result`.
#[derive(Debug, Deserialize)]
pub(super) struct Block {
    /// `text`, `thinking`, `tool_use`, `tool_result`, …
    #[serde(rename = "type")]
    pub kind: Option<String>,
    /// `tool_use`: the call's id.
    pub id: Option<String>,
    /// The tool (both blocks name it).
    pub name: Option<String>,
    /// `tool_use`: the call's input.
    pub input: Option<Value>,
    /// `tool_result`: the call it answers.
    pub tool_use_id: Option<String>,
    /// `tool_result`: the output.
    #[serde(default)]
    pub content: Payload,
    /// `tool_result`: whether the call failed.
    pub is_error: Option<bool>,
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::read::json::same_error;
    use crate::read::json::without_position;

    /// An event's output as it was read before: a value.
    #[derive(Deserialize)]
    struct AsValue {
        output: Option<Value>,
    }

    #[test]
    fn an_output_reads_as_a_value_reads() {
        for output in [
            r#""a\n\u00e9 \ud83d\ude00 \"q\"""#,
            r#""\ud800""#,
            r#""\u0041\/""#,
            r#"[{"query":"a","result":"x","success":true}]"#,
            r#"{ "b" : [ 1 , 2.50 ] , "a" : null }"#,
            r#"{"a":1,"a":2}"#,
            "1e400",
            "-0",
            "null",
            "true",
            "[]",
            "[1,]",
        ] {
            let event =
                format!(r#"{{"type":"content_end","contentType":"tool","output":{output}}}"#);
            let now = serde_json::from_str::<AgentEvent>(&event).map_err(|e| without_position(&e));
            let before = serde_json::from_str::<AsValue>(&event).map_err(|e| without_position(&e));
            match (now, before) {
                (Ok(now), Ok(before)) => assert_eq!(
                    now.output.map(Payload::into_value),
                    before.output,
                    "{event}"
                ),
                (Err(now), Err(before)) => {
                    assert!(same_error(&now, &before), "{event}: {now} / {before}");
                }
                (now, before) => panic!("{event}: {:?} / {:?}", now.err(), before.err()),
            }
        }
        let missing = serde_json::from_str::<AgentEvent>(r#"{"type":"content_end"}"#).unwrap();
        assert!(missing.output.is_none());
    }

    #[test]
    fn an_output_is_kept_as_it_came() {
        let event: AgentEvent = serde_json::from_str(r#"{"output":"a\tb"}"#).unwrap();
        assert_eq!(
            event.output.as_ref().and_then(Payload::raw_text),
            Some(r#""a\tb""#)
        );
    }
}
