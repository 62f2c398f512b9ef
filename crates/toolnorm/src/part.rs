//! The canonical tool part: the one shape every provider's tool events normalize to.
//!
//! These types mirror the contract's TypeScript exactly: camelCase JSON, optional
//! fields omitted when absent (never `null`), arbitrary JSON for `input`, `output`
//! and `error.details`, and a JSON object for `metadata`.

use std::fmt;

use serde::{Deserialize, Deserializer, Serialize};
use serde_json::{Map, Value};

use crate::payload::Payload;

use crate::error_code::ErrorCode;

/// A JSON object: the type of `metadata`.
pub type JsonObject = Map<String, Value>;

/// The stable UI bucket of a tool (icon, grouping). It is not the provider's tool name.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, PartialOrd, Ord, Serialize, Deserialize)]
#[cfg_attr(feature = "ts", derive(ts_rs::TS))]
#[cfg_attr(feature = "schema", derive(schemars::JsonSchema))]
#[serde(rename_all = "snake_case")]
pub enum ToolKind {
    /// A web search.
    WebSearch,
    /// A browser action (navigate, click, snapshot, …).
    Browser,
    /// Reading files or listing/searching them.
    FileRead,
    /// Creating or overwriting a file.
    FileWrite,
    /// Editing part of a file.
    FileEdit,
    /// A shell command.
    Bash,
    /// A subagent or task delegated to another agent.
    Subagent,
    /// A tool served by an MCP server that fits no other bucket.
    Mcp,
    /// A question put to the user.
    Question,
    /// A todo list or plan update.
    Todo,
    /// Anything else.
    Unknown,
}

impl ToolKind {
    /// Every kind, in the contract's order.
    pub const ALL: [ToolKind; 11] = [
        ToolKind::WebSearch,
        ToolKind::Browser,
        ToolKind::FileRead,
        ToolKind::FileWrite,
        ToolKind::FileEdit,
        ToolKind::Bash,
        ToolKind::Subagent,
        ToolKind::Mcp,
        ToolKind::Question,
        ToolKind::Todo,
        ToolKind::Unknown,
    ];

    /// The wire name, e.g. `"file_read"`.
    pub fn as_str(self) -> &'static str {
        match self {
            ToolKind::WebSearch => "web_search",
            ToolKind::Browser => "browser",
            ToolKind::FileRead => "file_read",
            ToolKind::FileWrite => "file_write",
            ToolKind::FileEdit => "file_edit",
            ToolKind::Bash => "bash",
            ToolKind::Subagent => "subagent",
            ToolKind::Mcp => "mcp",
            ToolKind::Question => "question",
            ToolKind::Todo => "todo",
            ToolKind::Unknown => "unknown",
        }
    }
}

impl fmt::Display for ToolKind {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.pad(self.as_str())
    }
}

/// Where a tool call is in its lifecycle: `started → running → complete | error`.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, PartialOrd, Ord, Serialize, Deserialize)]
#[cfg_attr(feature = "ts", derive(ts_rs::TS))]
#[cfg_attr(feature = "schema", derive(schemars::JsonSchema))]
#[serde(rename_all = "lowercase")]
pub enum ToolState {
    /// The call is known (name, maybe partial input) but not yet executing.
    Started,
    /// The call is executing.
    Running,
    /// The call finished successfully. Final.
    Complete,
    /// The call failed. Final.
    Error,
}

impl ToolState {
    /// Every state, in lifecycle order.
    pub const ALL: [ToolState; 4] = [
        ToolState::Started,
        ToolState::Running,
        ToolState::Complete,
        ToolState::Error,
    ];

    /// The wire name, e.g. `"complete"`.
    pub fn as_str(self) -> &'static str {
        match self {
            ToolState::Started => "started",
            ToolState::Running => "running",
            ToolState::Complete => "complete",
            ToolState::Error => "error",
        }
    }

    /// Whether the state is final (`complete` or `error`).
    pub fn is_terminal(self) -> bool {
        matches!(self, ToolState::Complete | ToolState::Error)
    }
}

impl fmt::Display for ToolState {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.pad(self.as_str())
    }
}

/// Failure data of a tool call. Only ever present on a call in the `error` state.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[cfg_attr(feature = "ts", derive(ts_rs::TS))]
#[cfg_attr(feature = "schema", derive(schemars::JsonSchema))]
#[serde(rename_all = "camelCase")]
pub struct ToolError {
    /// Human-readable failure message.
    pub message: String,
    /// Machine-readable code (an exit code, `permission_denied`, …).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    #[cfg_attr(feature = "ts", ts(optional, type = "string"))]
    pub code: Option<ErrorCode>,
    /// Any structured detail (captured output, provider error object, …).
    #[serde(
        default,
        skip_serializing_if = "Option::is_none",
        deserialize_with = "present_value"
    )]
    #[cfg_attr(feature = "ts", ts(optional, type = "unknown"))]
    pub details: Option<Payload>,
}

impl ToolError {
    /// An error with only a message.
    pub fn new(message: impl Into<String>) -> Self {
        ToolError {
            message: message.into(),
            code: None,
            details: None,
        }
    }

    /// Sets the machine-readable code.
    #[must_use]
    pub fn with_code(mut self, code: impl Into<ErrorCode>) -> Self {
        self.code = Some(code.into());
        self
    }

    /// Sets the structured details.
    #[must_use]
    pub fn with_details(mut self, details: impl Into<Payload>) -> Self {
        self.details = Some(details.into());
        self
    }
}

/// A point in time exactly as the provider gave it: an ISO-8601 string or an epoch number.
#[derive(Debug, Clone, PartialEq, Serialize)]
#[cfg_attr(feature = "schema", derive(schemars::JsonSchema))]
#[serde(untagged)]
pub enum Timestamp {
    /// An epoch number (OpenCode and most JSON APIs: milliseconds).
    Epoch(serde_json::Number),
    /// An ISO-8601 / RFC 3339 string.
    Text(String),
}

/// Read directly by the JSON type it has, rather than as an untagged enum (which buffers
/// the value and builds an error for each variant it tries).
impl<'de> Deserialize<'de> for Timestamp {
    fn deserialize<D: serde::Deserializer<'de>>(deserializer: D) -> Result<Self, D::Error> {
        struct Visitor;
        impl serde::de::Visitor<'_> for Visitor {
            type Value = Timestamp;
            fn expecting(&self, formatter: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
                formatter.write_str("an ISO-8601 string or an epoch number")
            }
            fn visit_u64<E: serde::de::Error>(self, value: u64) -> Result<Timestamp, E> {
                Ok(Timestamp::Epoch(value.into()))
            }
            fn visit_i64<E: serde::de::Error>(self, value: i64) -> Result<Timestamp, E> {
                Ok(Timestamp::Epoch(value.into()))
            }
            fn visit_f64<E: serde::de::Error>(self, value: f64) -> Result<Timestamp, E> {
                serde_json::Number::from_f64(value)
                    .map(Timestamp::Epoch)
                    .ok_or_else(|| E::custom("a timestamp that is not a finite number"))
            }
            fn visit_str<E: serde::de::Error>(self, value: &str) -> Result<Timestamp, E> {
                Ok(Timestamp::Text(value.to_owned()))
            }
            fn visit_string<E: serde::de::Error>(self, value: String) -> Result<Timestamp, E> {
                Ok(Timestamp::Text(value))
            }
        }
        deserializer.deserialize_any(Visitor)
    }
}

impl Timestamp {
    /// The instant in epoch milliseconds, when it can be read.
    ///
    /// Numbers of at least 10^11 are taken as milliseconds, smaller ones as seconds
    /// (10^11 ms is 1973; 10^11 s is the year 5138). Strings are parsed as RFC 3339.
    pub fn epoch_millis(&self) -> Option<f64> {
        match self {
            Timestamp::Epoch(number) => {
                let value = number.as_f64()?;
                if !value.is_finite() {
                    return None;
                }
                Some(if value.abs() >= 1e11 {
                    value
                } else {
                    value * 1000.0
                })
            }
            Timestamp::Text(text) => {
                if let Some((seconds, nanos)) = crate::utc_text::read(text) {
                    let millis = seconds.checked_mul(1_000)? + u64::from(nanos / 1_000_000);
                    return Some(millis as f64);
                }
                let instant: jiff::Timestamp = text.parse().ok()?;
                Some(instant.as_millisecond() as f64)
            }
        }
    }

    /// The instant in nanoseconds since the Unix epoch, when it can be read and is not
    /// before 1970 (OpenTelemetry's span times): numbers as [`epoch_millis`](Self::epoch_millis)
    /// reads them, strings to the nanosecond they state.
    pub fn epoch_nanos(&self) -> Option<u64> {
        match self {
            Timestamp::Epoch(number) => {
                let nanos = match number.as_u64() {
                    Some(whole) if whole >= 100_000_000_000 => whole.checked_mul(1_000_000)?,
                    Some(whole) => whole.checked_mul(1_000_000_000)?,
                    None => {
                        let nanos = self.epoch_millis()? * 1e6;
                        if !(0.0..u64::MAX as f64).contains(&nanos) {
                            return None;
                        }
                        nanos.round() as u64
                    }
                };
                Some(nanos)
            }
            Timestamp::Text(text) => {
                if let Some((seconds, nanos)) = crate::utc_text::read(text) {
                    return seconds
                        .checked_mul(1_000_000_000)?
                        .checked_add(nanos.into());
                }
                let instant: jiff::Timestamp = text.parse().ok()?;
                u64::try_from(instant.as_nanosecond()).ok()
            }
        }
    }

    /// Milliseconds from `self` to `later`, when both can be read and `later` is not earlier.
    pub fn millis_until(&self, later: &Timestamp) -> Option<u64> {
        let elapsed = later.epoch_millis()? - self.epoch_millis()?;
        (elapsed >= 0.0 && elapsed < u64::MAX as f64).then(|| elapsed.round() as u64)
    }
}

impl From<&str> for Timestamp {
    fn from(text: &str) -> Self {
        Timestamp::Text(text.to_owned())
    }
}

impl From<String> for Timestamp {
    fn from(text: String) -> Self {
        Timestamp::Text(text)
    }
}

impl From<u64> for Timestamp {
    fn from(epoch: u64) -> Self {
        Timestamp::Epoch(epoch.into())
    }
}

impl From<i64> for Timestamp {
    fn from(epoch: i64) -> Self {
        Timestamp::Epoch(epoch.into())
    }
}

/// When a call started and finished.
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize)]
#[cfg_attr(feature = "ts", derive(ts_rs::TS))]
#[cfg_attr(feature = "schema", derive(schemars::JsonSchema))]
#[serde(rename_all = "camelCase")]
pub struct Timing {
    /// When the call started, as the provider gave it.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    #[cfg_attr(feature = "ts", ts(optional, type = "string | number"))]
    pub started_at: Option<Timestamp>,
    /// When the call reached a terminal state, as the provider gave it.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    #[cfg_attr(feature = "ts", ts(optional, type = "string | number"))]
    pub completed_at: Option<Timestamp>,
    /// How long the call took, in milliseconds.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    #[cfg_attr(feature = "ts", ts(optional, type = "number"))]
    pub elapsed_ms: Option<u64>,
}

impl Timing {
    /// Whether no field is set.
    pub fn is_empty(&self) -> bool {
        self.started_at.is_none() && self.completed_at.is_none() && self.elapsed_ms.is_none()
    }
}

/// The canonical snapshot of one tool call, as a UI renders it.
///
/// Invariants kept by every constructor in this crate: `output` only with state
/// `complete`, `error` only with state `error`, never both.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[cfg_attr(feature = "ts", derive(ts_rs::TS))]
#[cfg_attr(feature = "schema", derive(schemars::JsonSchema))]
#[serde(rename_all = "camelCase")]
pub struct NormalizedToolPart {
    /// The provider's call id; stable for the whole lifecycle.
    pub id: String,
    /// The provider's explicit tool name (`Bash`, `webSearch`, `browser_navigate`, …).
    pub name: String,
    /// The UI bucket.
    pub kind: ToolKind,
    /// The human line shown in the UI (action text).
    pub title: String,
    /// The provider's arguments, normalized only enough to be inspectable.
    #[cfg_attr(feature = "ts", ts(type = "unknown"))]
    pub input: Payload,
    /// Successful result data (state `complete` only).
    #[serde(
        default,
        skip_serializing_if = "Option::is_none",
        deserialize_with = "present_value"
    )]
    #[cfg_attr(feature = "ts", ts(optional, type = "unknown"))]
    pub output: Option<Payload>,
    /// Failure data (state `error` only).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    #[cfg_attr(feature = "ts", ts(optional, inline))]
    pub error: Option<ToolError>,
    /// The lifecycle state.
    pub state: ToolState,
    /// Start, end and duration, when known.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    #[cfg_attr(feature = "ts", ts(optional, inline))]
    pub timing: Option<Timing>,
    /// Provider-specific detail a UI may use (MCP server/tool, task ids, truncation flags, …).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    #[cfg_attr(feature = "ts", ts(optional, type = "Record<string, unknown>"))]
    pub metadata: Option<JsonObject>,
}

/// Deserializes a field that is present as `Some(value)`, even when the value is JSON `null`.
///
/// With `#[serde(default)]`, an absent field stays `None`; a present `null` output is
/// kept as `Some(Value::Null)`, so a round trip never loses it.
pub(crate) fn present_value<'de, D: Deserializer<'de>, T: Deserialize<'de>>(
    deserializer: D,
) -> Result<Option<T>, D::Error> {
    T::deserialize(deserializer).map(Some)
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    #[test]
    fn optional_fields_are_omitted_not_null() {
        let part = NormalizedToolPart {
            id: "call_1".into(),
            name: "Bash".into(),
            kind: ToolKind::Bash,
            title: "ls".into(),
            input: json!({"command": "ls"}).into(),
            output: None,
            error: None,
            state: ToolState::Running,
            timing: None,
            metadata: None,
        };
        let text = serde_json::to_string(&part).unwrap();
        assert_eq!(
            text,
            r#"{"id":"call_1","name":"Bash","kind":"bash","title":"ls","input":{"command":"ls"},"state":"running"}"#
        );
    }

    #[test]
    fn a_null_output_survives_a_round_trip() {
        let text = r#"{"id":"a","name":"n","kind":"mcp","title":"t","input":null,"output":null,"state":"complete"}"#;
        let part: NormalizedToolPart = serde_json::from_str(text).unwrap();
        assert_eq!(part.output.as_deref(), Some(&Value::Null));
        assert_eq!(serde_json::to_string(&part).unwrap(), text);
    }

    #[test]
    fn timestamps_keep_the_provider_form() {
        let timing: Timing = serde_json::from_str(
            r#"{"startedAt":"2026-01-02T03:04:05.250Z","completedAt":1767323045500}"#,
        )
        .unwrap();
        assert_eq!(
            timing.started_at,
            Some(Timestamp::from("2026-01-02T03:04:05.250Z"))
        );
        assert_eq!(
            timing.completed_at,
            Some(Timestamp::from(1_767_323_045_500_u64))
        );
        let started = timing.started_at.as_ref().unwrap();
        let completed = timing.completed_at.as_ref().unwrap();
        assert_eq!(started.millis_until(completed), Some(250));
        assert_eq!(completed.millis_until(started), None);
    }

    #[test]
    fn timestamps_read_every_json_number_and_string_and_nothing_else() {
        for text in [
            "-5",
            "0",
            "18446744073709551615",
            "1.5e3",
            "\"x\"",
            "\"\\u00e9\"",
        ] {
            let read: Timestamp = serde_json::from_str(text).unwrap();
            let value: Value = serde_json::from_str(text).unwrap();
            assert_eq!(serde_json::to_value(&read).unwrap(), value);
        }
        for text in ["null", "true", "[]", "{}"] {
            let error = serde_json::from_str::<Timestamp>(text).unwrap_err();
            assert!(
                error
                    .to_string()
                    .contains("an ISO-8601 string or an epoch number"),
                "{error}"
            );
        }
    }

    #[test]
    fn epoch_seconds_and_millis_are_told_apart() {
        assert_eq!(
            Timestamp::from(1_700_000_000_u64).epoch_millis(),
            Some(1.7e12)
        );
        assert_eq!(
            Timestamp::from(1_700_000_000_000_u64).epoch_millis(),
            Some(1.7e12)
        );
        assert_eq!(Timestamp::from("not a date").epoch_millis(), None);
    }

    #[test]
    fn nanoseconds_keep_what_the_provider_stated() {
        let nanos = |timestamp: Timestamp| timestamp.epoch_nanos();
        assert_eq!(
            nanos("2026-01-02T03:04:05.123456789Z".into()),
            Some(1_767_323_045_123_456_789)
        );
        assert_eq!(
            nanos(1_700_000_000_u64.into()),
            Some(1_700_000_000_000_000_000)
        );
        assert_eq!(
            nanos(1_700_000_000_250_u64.into()),
            Some(1_700_000_000_250_000_000)
        );
        assert_eq!(
            nanos(serde_json::from_str("1700000000.5").unwrap()),
            Some(1_700_000_000_500_000_000)
        );
        assert_eq!(nanos((-5_i64).into()), None);
        assert_eq!(nanos("1969-12-31T23:59:59Z".into()), None);
        assert_eq!(nanos(u64::MAX.into()), None);
        assert_eq!(nanos("not a date".into()), None);
    }

    #[test]
    fn kinds_use_the_contract_names() {
        let names: Vec<String> = ToolKind::ALL
            .iter()
            .map(|kind| {
                serde_json::to_value(kind)
                    .unwrap()
                    .as_str()
                    .unwrap()
                    .to_owned()
            })
            .collect();
        assert_eq!(
            names,
            [
                "web_search",
                "browser",
                "file_read",
                "file_write",
                "file_edit",
                "bash",
                "subagent",
                "mcp",
                "question",
                "todo",
                "unknown"
            ]
        );
        for kind in ToolKind::ALL {
            assert_eq!(serde_json::to_value(kind).unwrap(), kind.as_str());
        }
    }
}
