//! Output formats: how the normalizer's changes are written.
//!
//! Each format is one module holding its row of the table ([`FormatSpec`]) and its
//! [`FormatWriter`]; [`Format`] is a handle into the table ([`format`]), and [`Writer`]
//! writes steps in any of them:
//!
//! - `parts`: one `NormalizedToolPart` per line, one per call, written (and flushed) as
//!   soon as the call is terminal; calls still open at the end come last, in first-seen
//!   order.
//! - `updates`: one part snapshot per change, as it happens (flushed per line).
//! - `events`: the canonical event log (replayable with `--provider events`), flushed per
//!   line.
//! - `pretty`: the calls for people, as a tree by parent, flushed as each call ends;
//!   [`Writer::summary`] ends it with the line counts.
//! - `acp`: ACP `session/update` notifications (see [`AcpEmitter`]).
//! - `ai-sdk`: AI SDK UI message stream chunks (see [`AiSdkEmitter`]).
//! - `ag-ui`: AG-UI events (see [`AgUiEmitter`]).
//! - `otel`: OpenTelemetry spans, OTLP/JSON (see [`OtelEmitter`]).
//!
//! Every JSON format writes one JSON value per line; the two UI stream formats can be
//! framed as server-sent events instead ([`Writer::sse`]).

mod acp;
mod ag_ui;
mod ai_sdk;
mod events;
mod format;
mod frames;
mod json;
mod json_text;
#[cfg(feature = "otel")]
mod otel;
mod parts;
mod pretty;
mod ui;
mod updates;
mod writer;

pub use acp::{AcpEmitter, AcpOptions};
pub use ag_ui::AgUiEmitter;
pub use ai_sdk::AiSdkEmitter;
pub use format::{Format, FormatSpec, format_names};
#[cfg(feature = "otel")]
pub use otel::{OtelEmitter, OtelOptions, attr as otel_attr, spans_of as otel_spans};
pub use pretty::{first_line, human_duration};
pub use ui::{UI_META_KEY, UiMeta};
pub use writer::{FormatWriter, StepOut, Writer, WriterOptions};
