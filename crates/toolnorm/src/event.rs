//! Canonical lifecycle events: what happened to a tool call, in the past tense.
//!
//! Provider adapters turn provider events into these; the [`Fold`](crate::Fold) turns
//! them into parts. One event serializes to one JSON object (one line of the event log),
//! tagged by `type`.
//!
//! Every event is idempotent by construction, so a duplicated event (or a log replayed
//! twice) changes nothing: updates *set* values, metadata merges by key, and
//! [`OutputAppended`] names the byte offset its chunk starts at.

use crate::payload::Payload;
use serde::{Deserialize, Serialize};

use crate::approval::{ApprovalOption, ApprovalScope, DecidedBy, Decision};
use crate::part::{JsonObject, Timestamp, ToolError, ToolKind, present_value};

/// A call became known.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[cfg_attr(feature = "ts", derive(ts_rs::TS))]
#[cfg_attr(feature = "schema", derive(schemars::JsonSchema))]
#[serde(rename_all = "camelCase")]
pub struct ToolCallStarted {
    /// The provider's call id.
    pub id: String,
    /// The provider's tool name.
    pub name: String,
    /// The UI bucket.
    pub kind: ToolKind,
    /// The human title.
    pub title: String,
    /// The input known so far.
    #[serde(default)]
    #[cfg_attr(feature = "ts", ts(type = "unknown"))]
    pub input: Payload,
    /// Initial metadata.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    #[cfg_attr(feature = "ts", ts(optional, type = "Record<string, unknown>"))]
    pub metadata: Option<JsonObject>,
    /// When it happened, as the provider gave it.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    #[cfg_attr(feature = "ts", ts(optional, type = "string | number"))]
    pub at: Option<Timestamp>,
}

/// The input of a call was refined (it replaces the previous input).
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[cfg_attr(feature = "ts", derive(ts_rs::TS))]
#[cfg_attr(feature = "schema", derive(schemars::JsonSchema))]
#[serde(rename_all = "camelCase")]
pub struct InputUpdated {
    /// The call id.
    pub id: String,
    /// The new input.
    #[cfg_attr(feature = "ts", ts(type = "unknown"))]
    pub input: Payload,
    /// When it happened.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    #[cfg_attr(feature = "ts", ts(optional, type = "string | number"))]
    pub at: Option<Timestamp>,
}

/// The title of a call changed.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[cfg_attr(feature = "ts", derive(ts_rs::TS))]
#[cfg_attr(feature = "schema", derive(schemars::JsonSchema))]
#[serde(rename_all = "camelCase")]
pub struct TitleUpdated {
    /// The call id.
    pub id: String,
    /// The new title.
    pub title: String,
    /// When it happened.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    #[cfg_attr(feature = "ts", ts(optional, type = "string | number"))]
    pub at: Option<Timestamp>,
}

/// Metadata was merged into a call (each top-level key replaces the key of that name).
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[cfg_attr(feature = "ts", derive(ts_rs::TS))]
#[cfg_attr(feature = "schema", derive(schemars::JsonSchema))]
#[serde(rename_all = "camelCase")]
pub struct MetadataMerged {
    /// The call id.
    pub id: String,
    /// The keys to set.
    #[cfg_attr(feature = "ts", ts(type = "Record<string, unknown>"))]
    pub metadata: JsonObject,
    /// When it happened.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    #[cfg_attr(feature = "ts", ts(optional, type = "string | number"))]
    pub at: Option<Timestamp>,
}

/// A call started executing.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[cfg_attr(feature = "ts", derive(ts_rs::TS))]
#[cfg_attr(feature = "schema", derive(schemars::JsonSchema))]
#[serde(rename_all = "camelCase")]
pub struct ToolCallRunning {
    /// The call id.
    pub id: String,
    /// When it happened.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    #[cfg_attr(feature = "ts", ts(optional, type = "string | number"))]
    pub at: Option<Timestamp>,
}

/// A chunk of partial output arrived for a running call.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[cfg_attr(feature = "ts", derive(ts_rs::TS))]
#[cfg_attr(feature = "schema", derive(schemars::JsonSchema))]
#[serde(rename_all = "camelCase")]
pub struct OutputAppended {
    /// The call id.
    pub id: String,
    /// Byte offset of `chunk` in the call's whole streamed output.
    #[cfg_attr(feature = "ts", ts(type = "number"))]
    pub offset: u64,
    /// The text received.
    pub chunk: String,
    /// When it happened.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    #[cfg_attr(feature = "ts", ts(optional, type = "string | number"))]
    pub at: Option<Timestamp>,
}

/// A call finished successfully.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[cfg_attr(feature = "ts", derive(ts_rs::TS))]
#[cfg_attr(feature = "schema", derive(schemars::JsonSchema))]
#[serde(rename_all = "camelCase")]
pub struct ToolCallCompleted {
    /// The call id.
    pub id: String,
    /// The output; when absent, the streamed output becomes the output.
    #[serde(
        default,
        skip_serializing_if = "Option::is_none",
        deserialize_with = "present_value"
    )]
    #[cfg_attr(feature = "ts", ts(optional, type = "unknown"))]
    pub output: Option<Payload>,
    /// The final input, when the provider sends it only at the end.
    #[serde(
        default,
        skip_serializing_if = "Option::is_none",
        deserialize_with = "present_value"
    )]
    #[cfg_attr(feature = "ts", ts(optional, type = "unknown"))]
    pub input: Option<Payload>,
    /// The final title.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    #[cfg_attr(feature = "ts", ts(optional))]
    pub title: Option<String>,
    /// The duration the provider measured.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    #[cfg_attr(feature = "ts", ts(optional, type = "number"))]
    pub elapsed_ms: Option<u64>,
    /// When it happened.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    #[cfg_attr(feature = "ts", ts(optional, type = "string | number"))]
    pub at: Option<Timestamp>,
}

/// A call failed.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[cfg_attr(feature = "ts", derive(ts_rs::TS))]
#[cfg_attr(feature = "schema", derive(schemars::JsonSchema))]
#[serde(rename_all = "camelCase")]
pub struct ToolCallFailed {
    /// The call id.
    pub id: String,
    /// What went wrong.
    #[cfg_attr(feature = "ts", ts(inline))]
    pub error: ToolError,
    /// The final input, when the provider sends it only at the end.
    #[serde(
        default,
        skip_serializing_if = "Option::is_none",
        deserialize_with = "present_value"
    )]
    #[cfg_attr(feature = "ts", ts(optional, type = "unknown"))]
    pub input: Option<Payload>,
    /// The final title.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    #[cfg_attr(feature = "ts", ts(optional))]
    pub title: Option<String>,
    /// The duration the provider measured.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    #[cfg_attr(feature = "ts", ts(optional, type = "number"))]
    pub elapsed_ms: Option<u64>,
    /// When it happened.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    #[cfg_attr(feature = "ts", ts(optional, type = "string | number"))]
    pub at: Option<Timestamp>,
}

/// The agent asked for approval to run a call; the call waits (`metadata.approval`
/// becomes `pending`).
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[cfg_attr(feature = "ts", derive(ts_rs::TS))]
#[cfg_attr(feature = "schema", derive(schemars::JsonSchema))]
#[serde(rename_all = "camelCase")]
pub struct ApprovalRequested {
    /// The call id.
    pub id: String,
    /// Why the agent asks.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    #[cfg_attr(feature = "ts", ts(optional))]
    pub reason: Option<String>,
    /// The answers offered.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    #[cfg_attr(feature = "ts", ts(as = "Option<Vec<ApprovalOption>>", optional))]
    pub options: Vec<ApprovalOption>,
    /// The risk the provider sees in the call, when it says.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    #[cfg_attr(feature = "ts", ts(optional))]
    pub risk: Option<String>,
    /// When it happened.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    #[cfg_attr(feature = "ts", ts(optional, type = "string | number"))]
    pub at: Option<Timestamp>,
}

/// A call's approval request was answered. A denial or a cancellation ends the call as an
/// error.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[cfg_attr(feature = "ts", derive(ts_rs::TS))]
#[cfg_attr(feature = "schema", derive(schemars::JsonSchema))]
#[serde(rename_all = "camelCase")]
pub struct ApprovalResolved {
    /// The call id.
    pub id: String,
    /// The answer.
    pub decision: Decision,
    /// Who decided, when the stream says.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    #[cfg_attr(feature = "ts", ts(optional))]
    pub decided_by: Option<DecidedBy>,
    /// How far the decision reaches, when the stream says.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    #[cfg_attr(feature = "ts", ts(optional))]
    pub scope: Option<ApprovalScope>,
    /// The id of the option chosen.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    #[cfg_attr(feature = "ts", ts(optional))]
    pub option_id: Option<String>,
    /// What came with the decision: a user's message, a reviewer's rationale.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    #[cfg_attr(feature = "ts", ts(optional))]
    pub feedback: Option<String>,
    /// The risk the decider saw (an automatic reviewer's risk level), when the request
    /// did not carry it.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    #[cfg_attr(feature = "ts", ts(optional))]
    pub risk: Option<String>,
    /// When it happened.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    #[cfg_attr(feature = "ts", ts(optional, type = "string | number"))]
    pub at: Option<Timestamp>,
}

/// One entry of the event log.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[cfg_attr(feature = "ts", derive(ts_rs::TS))]
#[cfg_attr(feature = "schema", derive(schemars::JsonSchema))]
#[serde(tag = "type", rename_all = "camelCase")]
pub enum ToolEvent {
    /// See [`ToolCallStarted`].
    ToolCallStarted(ToolCallStarted),
    /// See [`InputUpdated`].
    InputUpdated(InputUpdated),
    /// See [`TitleUpdated`].
    TitleUpdated(TitleUpdated),
    /// See [`MetadataMerged`].
    MetadataMerged(MetadataMerged),
    /// See [`ToolCallRunning`].
    ToolCallRunning(ToolCallRunning),
    /// See [`OutputAppended`].
    OutputAppended(OutputAppended),
    /// See [`ToolCallCompleted`].
    ToolCallCompleted(ToolCallCompleted),
    /// See [`ToolCallFailed`].
    ToolCallFailed(ToolCallFailed),
    /// See [`ApprovalRequested`].
    ApprovalRequested(ApprovalRequested),
    /// See [`ApprovalResolved`].
    ApprovalResolved(ApprovalResolved),
}

impl ToolEvent {
    /// The call the event is about.
    pub fn id(&self) -> &str {
        match self {
            ToolEvent::ToolCallStarted(event) => &event.id,
            ToolEvent::InputUpdated(event) => &event.id,
            ToolEvent::TitleUpdated(event) => &event.id,
            ToolEvent::MetadataMerged(event) => &event.id,
            ToolEvent::ToolCallRunning(event) => &event.id,
            ToolEvent::OutputAppended(event) => &event.id,
            ToolEvent::ToolCallCompleted(event) => &event.id,
            ToolEvent::ToolCallFailed(event) => &event.id,
            ToolEvent::ApprovalRequested(event) => &event.id,
            ToolEvent::ApprovalResolved(event) => &event.id,
        }
    }

    /// The wire tag, e.g. `"toolCallStarted"`.
    pub fn type_name(&self) -> &'static str {
        match self {
            ToolEvent::ToolCallStarted(_) => "toolCallStarted",
            ToolEvent::InputUpdated(_) => "inputUpdated",
            ToolEvent::TitleUpdated(_) => "titleUpdated",
            ToolEvent::MetadataMerged(_) => "metadataMerged",
            ToolEvent::ToolCallRunning(_) => "toolCallRunning",
            ToolEvent::OutputAppended(_) => "outputAppended",
            ToolEvent::ToolCallCompleted(_) => "toolCallCompleted",
            ToolEvent::ToolCallFailed(_) => "toolCallFailed",
            ToolEvent::ApprovalRequested(_) => "approvalRequested",
            ToolEvent::ApprovalResolved(_) => "approvalResolved",
        }
    }
}

macro_rules! into_event {
    ($($variant:ident),*) => {$(
        impl From<$variant> for ToolEvent {
            fn from(event: $variant) -> Self {
                ToolEvent::$variant(event)
            }
        }
    )*};
}

into_event!(
    ToolCallStarted,
    InputUpdated,
    TitleUpdated,
    MetadataMerged,
    ToolCallRunning,
    OutputAppended,
    ToolCallCompleted,
    ToolCallFailed,
    ApprovalRequested,
    ApprovalResolved
);

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    #[test]
    fn events_are_tagged_by_type_in_camel_case() {
        let event = ToolEvent::from(ToolCallCompleted {
            id: "c1".into(),
            output: Some(json!("ok").into()),
            input: None,
            title: None,
            elapsed_ms: Some(12),
            at: Some(Timestamp::from("2026-01-01T00:00:00Z")),
        });
        let text = serde_json::to_string(&event).unwrap();
        assert_eq!(
            text,
            r#"{"type":"toolCallCompleted","id":"c1","output":"ok","elapsedMs":12,"at":"2026-01-01T00:00:00Z"}"#
        );
        assert_eq!(serde_json::from_str::<ToolEvent>(&text).unwrap(), event);
        assert_eq!(event.type_name(), "toolCallCompleted");
        assert_eq!(event.id(), "c1");
    }

    #[test]
    fn every_type_name_matches_the_serde_tag() {
        let events: Vec<ToolEvent> = vec![
            ToolCallStarted {
                id: "a".into(),
                name: "n".into(),
                kind: ToolKind::Bash,
                title: "t".into(),
                input: crate::Payload::NULL,
                metadata: None,
                at: None,
            }
            .into(),
            InputUpdated {
                id: "a".into(),
                input: json!(1).into(),
                at: None,
            }
            .into(),
            TitleUpdated {
                id: "a".into(),
                title: "t".into(),
                at: None,
            }
            .into(),
            MetadataMerged {
                id: "a".into(),
                metadata: JsonObject::new(),
                at: None,
            }
            .into(),
            ToolCallRunning {
                id: "a".into(),
                at: None,
            }
            .into(),
            OutputAppended {
                id: "a".into(),
                offset: 0,
                chunk: "x".into(),
                at: None,
            }
            .into(),
            ToolCallCompleted {
                id: "a".into(),
                output: None,
                input: None,
                title: None,
                elapsed_ms: None,
                at: None,
            }
            .into(),
            ToolCallFailed {
                id: "a".into(),
                error: ToolError::new("boom"),
                input: None,
                title: None,
                elapsed_ms: None,
                at: None,
            }
            .into(),
            ApprovalRequested {
                id: "a".into(),
                reason: None,
                options: Vec::new(),
                risk: None,
                at: None,
            }
            .into(),
            ApprovalResolved {
                id: "a".into(),
                decision: Decision::Approved,
                decided_by: None,
                scope: None,
                option_id: None,
                feedback: None,
                risk: None,
                at: None,
            }
            .into(),
        ];
        for event in events {
            let value = serde_json::to_value(&event).unwrap();
            assert_eq!(value["type"], event.type_name());
        }
    }
}
