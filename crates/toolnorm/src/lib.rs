//! toolnorm: one canonical, type-safe lifecycle for the tool calls of AI coding agents.
//!
//! Agent CLIs each speak their own dialect of tool events. toolnorm turns them into one
//! shape, the [`NormalizedToolPart`] of the tool-normalization contract, through three
//! layers:
//!
//! - [`ToolCall<S>`]: a type-state lifecycle, `Started → Running → Complete | Failed`,
//!   where illegal transitions do not compile.
//! - [`ToolEvent`]: canonical lifecycle events, the event log.
//! - [`Fold`]: the projection of an event log into parts; [`replay`] gives the same parts
//!   as live folding.
//!
//! ```
//! use serde_json::json;
//! use toolnorm::{Completion, ToolCall, ToolKind, ToolState};
//!
//! let call = ToolCall::start("toolu_1", "Bash", ToolKind::Bash)
//!     .with_title("ls -la")
//!     .with_input(json!({ "command": "ls -la" }));
//! let mut running = call.run(None);
//! running.append_output("total 0\n");
//! let done = running.complete(Completion::default());
//! let part = done.to_part();
//! assert_eq!(part.state, ToolState::Complete);
//! assert_eq!(part.output, Some(json!("total 0\n")));
//! ```
#![deny(missing_docs)]
// Input data never panics the library: no unwrap, expect, panic or unchecked indexing.
#![deny(
    clippy::unwrap_used,
    clippy::expect_used,
    clippy::panic,
    clippy::indexing_slicing
)]

mod code;
mod dynamic;
mod error;
mod event;
mod finished;
mod fold;
mod legacy;
mod lifecycle;
mod log;
pub mod meta;
mod part;

pub use code::ErrorCode;
pub use dynamic::{AnyToolCall, Applied, Rejected};
pub use error::{Error, Rejection};
pub use event::{
    InputUpdated, MetadataMerged, OutputAppended, TitleUpdated, ToolCallCompleted, ToolCallFailed,
    ToolCallRunning, ToolCallStarted, ToolEvent,
};
pub use finished::{FINISHED_WINDOW, FinishedCalls};
pub use fold::{Fold, FoldBuilder, Outcome, Replay, Update, replay};
pub use legacy::LegacyToolState;
pub use lifecycle::{
    CallState, Complete, Completion, DEFAULT_OUTPUT_CAP, Failed, Failure, NotYetRunning, Open,
    PartView, Project, Running, Started, StreamedOutput, Streaming, Succeeded, ToolCall,
    Unsuccessful,
};
pub use log::{EventLogDecoder, LineSplitter, decode_line, replay_log, write_log};
pub use part::{JsonObject, NormalizedToolPart, Timestamp, Timing, ToolError, ToolKind, ToolState};
