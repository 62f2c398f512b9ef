//! One call as an OpenTelemetry GenAI `execute_tool` span, and a session as its
//! `invoke_agent` root span: names, attributes, status and times.

use opentelemetry_proto::tonic::common::v1::{AnyValue, KeyValue, any_value};
use opentelemetry_proto::tonic::trace::v1::span::SpanKind;
use opentelemetry_proto::tonic::trace::v1::status::StatusCode;
use opentelemetry_proto::tonic::trace::v1::{Span, Status};
use serde_json::Value;
use toolnorm::{ToolState, meta};

use super::ids::{SpanId, TraceId};
use crate::emit::acp::Fields;

/// Attribute names: the OpenTelemetry GenAI semantic conventions' and toolnorm's own.
pub mod attr {
    /// `execute_tool` for a call, `invoke_agent` for a session.
    pub const OPERATION: &str = "gen_ai.operation.name";
    /// The tool's name, as the provider gave it.
    pub const TOOL_NAME: &str = "gen_ai.tool.name";
    /// The call id.
    pub const TOOL_CALL_ID: &str = "gen_ai.tool.call.id";
    /// `function`, or `extension` for a tool an MCP server serves.
    pub const TOOL_TYPE: &str = "gen_ai.tool.type";
    /// The call's input as JSON (only with content).
    pub const TOOL_ARGUMENTS: &str = "gen_ai.tool.call.arguments";
    /// The call's output: a string as it is, other JSON as its text (only with content).
    pub const TOOL_RESULT: &str = "gen_ai.tool.call.result";
    /// The provider's session id, when the stream says it.
    pub const CONVERSATION: &str = "gen_ai.conversation.id";
    /// The agent (the provider) of a session.
    pub const AGENT_NAME: &str = "gen_ai.agent.name";
    /// The version of the agent, when the stream says it.
    pub const AGENT_VERSION: &str = "toolnorm.agent.version";
    /// A failed call's canonical error code (`other` when it has none).
    pub const ERROR_TYPE: &str = "error.type";
    /// The part's kind.
    pub const KIND: &str = "toolnorm.kind";
    /// The part's title.
    pub const TITLE: &str = "toolnorm.title";
    /// The part's state (`complete`, `error`, or `started` / `running` for a call the
    /// stream left open).
    pub const STATE: &str = "toolnorm.state";
    /// The provider (`claude-code`, `codex`, …).
    pub const PROVIDER: &str = "toolnorm.provider";
    /// The dialect the stream was read as.
    pub const DIALECT: &str = "toolnorm.dialect";
    /// The MCP server of a tool it serves.
    pub const MCP_SERVER: &str = "toolnorm.mcp.server";
    /// The tool's name on its MCP server.
    pub const MCP_TOOL: &str = "toolnorm.mcp.tool";
    /// The id of the call that spawned this one (a subagent's call).
    pub const PARENT_CALL: &str = "toolnorm.parent_tool_call.id";
    /// The approval's status, when one was asked.
    pub const APPROVAL: &str = "toolnorm.approval.status";
    /// `false` when the span's start or end was not stated by the stream: the times are
    /// then the positions of the call's events (see the format's documentation).
    pub const MEASURED: &str = "toolnorm.timing.measured";
    /// A session's number of calls.
    pub const CALLS: &str = "toolnorm.calls";
    /// A session's number of failed calls.
    pub const FAILED: &str = "toolnorm.calls.failed";
}

/// Where a span sits: its trace, its id and its parent's.
#[derive(Debug, Clone, Copy)]
pub(crate) struct Place {
    pub trace: TraceId,
    pub span: SpanId,
    pub parent: SpanId,
}

/// A span's start and end, in nanoseconds since the Unix epoch, whether the stream
/// stated both, and whether it stated the start (else both are positions).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) struct Times {
    pub start: u64,
    pub end: u64,
    pub measured: bool,
    pub stated: bool,
}

/// Nanoseconds per position: a call the stream gives no time for spans its events'
/// positions (line numbers), one millisecond each, so that a trace viewer draws such
/// calls in order and with a width.
pub(crate) const NANOS_PER_POSITION: u64 = 1_000_000;

/// The times of `call`, whose events came at positions `first..=last` and whose
/// subagent's calls, if any, ended by `children_end` (0 when none did): a start with no
/// stated end ends when the last of those did, or at once.
pub(crate) fn times(call: &Fields<'_>, first: u64, last: u64, children_end: u64) -> Times {
    let stated = |at: Option<&toolnorm::Timestamp>| at.and_then(toolnorm::Timestamp::epoch_nanos);
    let started = stated(call.timing.and_then(|timing| timing.started_at.as_ref()));
    let completed = stated(call.timing.and_then(|timing| timing.completed_at.as_ref()));
    match (started, completed) {
        (Some(start), Some(end)) if end >= start => Times {
            start,
            end,
            measured: true,
            stated: true,
        },
        (Some(start), _) => Times {
            start,
            end: start.max(children_end),
            measured: false,
            stated: true,
        },
        _ => Times {
            start: first.saturating_mul(NANOS_PER_POSITION),
            end: last.saturating_mul(NANOS_PER_POSITION),
            measured: false,
            stated: false,
        },
    }
}

/// The `execute_tool` span of `call`.
pub(crate) fn call_span(
    call: &Fields<'_>,
    place: Place,
    times: Times,
    dialect: Option<&str>,
    content: bool,
) -> Span {
    let metadata = call.metadata;
    let text = |key: &str| metadata.text(key);
    let mcp = metadata.get(meta::MCP).and_then(|mcp| mcp.as_json());
    let mcp_field = |key: &str| mcp.and_then(|mcp| mcp.get(key)).and_then(Value::as_str);
    let mut attributes = vec![
        string(attr::OPERATION, "execute_tool"),
        string(attr::TOOL_NAME, call.name),
        string(attr::TOOL_CALL_ID, call.id),
        string(
            attr::TOOL_TYPE,
            if mcp.is_some() {
                "extension"
            } else {
                "function"
            },
        ),
        string(attr::KIND, call.kind.as_str()),
        string(attr::TITLE, call.title),
        string(attr::STATE, call.state.as_str()),
    ];
    let optional = [
        (attr::CONVERSATION, text(meta::SESSION_ID)),
        (attr::PROVIDER, text(meta::PROVIDER)),
        (attr::DIALECT, dialect),
        (attr::MCP_SERVER, mcp_field(meta::MCP_SERVER)),
        (attr::MCP_TOOL, mcp_field(meta::MCP_TOOL)),
        (attr::PARENT_CALL, text(meta::PARENT_TOOL_CALL_ID)),
        (
            attr::APPROVAL,
            metadata
                .get(meta::APPROVAL)
                .and_then(|approval| approval.approval())
                .map(|approval| approval.status.as_str()),
        ),
    ];
    attributes.extend(
        optional
            .into_iter()
            .filter_map(|(key, value)| Some(string(key, value?))),
    );
    attributes.push(boolean(attr::MEASURED, times.measured));
    let mut status = Status::default();
    if let Some(error) = call.error.filter(|_| call.state == ToolState::Error) {
        let code = error.code.as_ref().map_or("other", |code| code.as_str());
        attributes.push(string(attr::ERROR_TYPE, code));
        status = Status {
            message: error.message.clone(),
            code: StatusCode::Error as i32,
        };
    }
    if content {
        attributes.push(string(attr::TOOL_ARGUMENTS, &call.input.to_json()));
        if let Some(output) = call.output.filter(|output| !output.is_null()) {
            let result = match output.text() {
                Some(text) => text.into_owned(),
                None => output.to_json(),
            };
            attributes.push(string(attr::TOOL_RESULT, &result));
        }
    }
    Span {
        trace_id: place.trace.to_vec(),
        span_id: place.span.to_vec(),
        parent_span_id: place.parent.to_vec(),
        name: format!("execute_tool {}", call.name),
        kind: SpanKind::Internal as i32,
        start_time_unix_nano: times.start,
        end_time_unix_nano: times.end,
        attributes,
        status: Some(status),
        ..Span::default()
    }
}

/// What a session's root span says.
#[derive(Debug, Clone, Default)]
pub(crate) struct SessionSummary<'a> {
    pub conversation: Option<&'a str>,
    pub provider: Option<&'a str>,
    pub dialect: Option<&'a str>,
    pub agent_version: Option<&'a str>,
    pub calls: u64,
    pub failed: u64,
}

/// The `invoke_agent` root span of a session.
pub(crate) fn session_span(
    trace: TraceId,
    span: SpanId,
    times: Times,
    summary: &SessionSummary<'_>,
) -> Span {
    let name = match summary.provider {
        Some(provider) => format!("invoke_agent {provider}"),
        None => "invoke_agent".to_owned(),
    };
    let mut attributes = vec![string(attr::OPERATION, "invoke_agent")];
    let optional = [
        (attr::AGENT_NAME, summary.provider),
        (attr::AGENT_VERSION, summary.agent_version),
        (attr::CONVERSATION, summary.conversation),
        (attr::PROVIDER, summary.provider),
        (attr::DIALECT, summary.dialect),
    ];
    attributes.extend(
        optional
            .into_iter()
            .filter_map(|(key, value)| Some(string(key, value?))),
    );
    attributes.push(integer(attr::CALLS, summary.calls));
    attributes.push(integer(attr::FAILED, summary.failed));
    attributes.push(boolean(attr::MEASURED, times.measured));
    Span {
        trace_id: trace.to_vec(),
        span_id: span.to_vec(),
        name,
        kind: SpanKind::Internal as i32,
        start_time_unix_nano: times.start,
        end_time_unix_nano: times.end,
        attributes,
        status: Some(Status::default()),
        ..Span::default()
    }
}

/// A string attribute.
pub(crate) fn string(key: &str, value: &str) -> KeyValue {
    attribute(key, any_value::Value::StringValue(value.to_owned()))
}

fn boolean(key: &str, value: bool) -> KeyValue {
    attribute(key, any_value::Value::BoolValue(value))
}

fn integer(key: &str, value: u64) -> KeyValue {
    attribute(
        key,
        any_value::Value::IntValue(i64::try_from(value).unwrap_or(i64::MAX)),
    )
}

fn attribute(key: &str, value: any_value::Value) -> KeyValue {
    KeyValue {
        key: key.to_owned(),
        value: Some(AnyValue { value: Some(value) }),
        ..KeyValue::default()
    }
}
