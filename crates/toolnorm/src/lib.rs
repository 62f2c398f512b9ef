//! toolnorm: one canonical, type-safe lifecycle for the tool calls of AI coding agents.
//!
//! Agent CLIs (Claude Code, Codex, OpenCode, ACP agents) each speak their own dialect of
//! tool events. toolnorm turns them into one shape, the [`NormalizedToolPart`] of the
//! tool-normalization contract, through three layers:
//!
//! - [`ToolCall<S>`]: the lifecycle of one call as a type-state,
//!   `Started → Running → Complete | Failed`, where an illegal transition does not compile
//!   (below). For an engine that runs its tools itself.
//! - [`ToolEvent`]: the canonical lifecycle events, what provider adapters produce; one JSON
//!   object per line of the event log ([`write_log`], [`EventLogDecoder`]).
//! - [`Fold`]: events folded into parts, each change reported as it happens
//!   ([`Fold::apply`]), optionally holding only open calls
//!   ([`FoldBuilder::evict_finished`]); [`replay`] and [`replay_log`] give the same parts
//!   from a whole log. Inside, [`AnyToolCall`] is one call driven by events through the
//!   typed transitions.
//!
//! The vocabulary every provider shares is typed too: [`ToolKind`] and [`ToolState`] on the
//! part, [`ErrorCode`] for `error.code`, [`meta`] for the keys of `metadata`.
//!
//! The book's [core library](https://github.com/toolnorm/toolnorm/blob/main/docs/src/user-guide/core-library.md) page shows the lifecycle
//! and the fold at work; its [introduction](https://github.com/toolnorm/toolnorm/blob/main/docs/src/introduction.md) says where the rest is.
//!
//! # The lifecycle
//!
#![doc = include_str!("lifecycle/doc.md")]
#![deny(missing_docs)]
// Input data never panics the library: no unwrap, expect, panic or unchecked indexing.
#![deny(
    clippy::unwrap_used,
    clippy::expect_used,
    clippy::panic,
    clippy::indexing_slicing
)]

mod any_call;
mod approval;
mod error;
mod error_code;
mod event;
mod finished;
mod fold;
mod legacy;
mod lifecycle;
mod log;
pub mod meta;
mod part;
mod payload;
mod question;
mod utc_text;

pub use any_call::{AnyToolCall, Applied, Rejected};
pub use approval::{Approval, ApprovalOption, ApprovalScope, ApprovalStatus, DecidedBy, Decision};
pub use error::{Error, Rejection};
pub use error_code::ErrorCode;
pub use event::{
    ApprovalRequested, ApprovalResolved, InputUpdated, MetadataMerged, OutputAppended,
    TitleUpdated, ToolCallCompleted, ToolCallFailed, ToolCallRunning, ToolCallStarted, ToolEvent,
};
pub use finished::{FINISHED_WINDOW, FinishedCalls};
pub use fold::{Fold, FoldBuilder, Outcome, Replay, Update, replay};
pub use legacy::LegacyToolState;
pub use lifecycle::{
    CallState, Complete, Completion, DEFAULT_OUTPUT_CAP, Failed, Failure, MetaValue, MetadataView,
    NotYetRunning, Open, PartField, PartView, Project, Running, Started, StreamedOutput, Streaming,
    Succeeded, ToolCall, Unsuccessful,
};
pub use log::{EventLogDecoder, LineSplitter, decode_line, replay_log, write_log};
pub use part::{JsonObject, NormalizedToolPart, Timestamp, Timing, ToolError, ToolKind, ToolState};
pub use payload::{Payload, read_sharing};
pub use question::{Question, QuestionOption};
