//! The crate's one error type.

use crate::event::ToolEvent;
use crate::part::ToolState;

/// Why an event does not apply to a call in its current state.
#[derive(Debug, Clone, PartialEq, Eq)]
#[non_exhaustive]
pub enum Rejection {
    /// The call is complete or failed; terminal states are final.
    Terminal,
    /// The call was started again with a different name, kind, title, input or metadata.
    ConflictingStart,
    /// The output chunk starts past the end of the output received so far.
    OutputGap {
        /// Bytes received so far: where the next chunk should start.
        expected: u64,
    },
    /// The output chunk overlaps output already received and differs from it.
    OutputMismatch,
    /// The call was already asked for approval, with a different request.
    AlreadyAsked,
    /// The call was never asked for approval: there is nothing to resolve.
    NoApprovalRequest,
    /// The resolution contradicts the decision the call's approval already holds.
    ConflictingApproval,
}

impl std::fmt::Display for Rejection {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self {
            Rejection::Terminal => f.write_str("terminal states are final"),
            Rejection::ConflictingStart => {
                f.write_str("it was already started with different data")
            }
            Rejection::OutputGap { expected } => {
                write!(
                    f,
                    "the chunk leaves a gap: the output so far ends at byte {expected}"
                )
            }
            Rejection::OutputMismatch => {
                f.write_str("the chunk differs from output already received")
            }
            Rejection::AlreadyAsked => {
                f.write_str("it was already asked for approval, with a different request")
            }
            Rejection::NoApprovalRequest => f.write_str("no approval was requested for it"),
            Rejection::ConflictingApproval => {
                f.write_str("it contradicts the decision already made")
            }
        }
    }
}

/// Everything that can go wrong in this crate. None of it panics, and none of it loses data:
/// errors about events carry the rejected event.
#[derive(Debug, thiserror::Error)]
#[non_exhaustive]
pub enum Error {
    /// An event did not fit the call's current state; the call is unchanged.
    #[error("tool call `{id}` is {state}: {} rejected, {reason}", event.type_name())]
    Rejected {
        /// The call id.
        id: String,
        /// The call's state when the event arrived.
        state: ToolState,
        /// The rejected event.
        event: Box<ToolEvent>,
        /// Why it was rejected.
        reason: Rejection,
    },
    /// An event named a call that was never started (or one the fold no longer knows:
    /// removed, or evicted longer ago than the window of finished calls).
    #[error("{} for tool call `{id}`, which was never started", event.type_name())]
    UnknownCall {
        /// The call id.
        id: String,
        /// The event.
        event: Box<ToolEvent>,
    },
    /// An event arrived for a call that finished and was evicted from the fold (see
    /// [`FoldBuilder::evict_finished`](crate::FoldBuilder::evict_finished)); nothing changed.
    #[error("tool call `{id}` already finished ({state}): {} ignored", event.type_name())]
    AlreadyFinished {
        /// The call id.
        id: String,
        /// The state the call finished in.
        state: ToolState,
        /// The late event.
        event: Box<ToolEvent>,
    },
    /// A line of an event log is not a valid event.
    #[error("line {line}: {source}")]
    InvalidLine {
        /// 1-based line number.
        line: u64,
        /// What the JSON parser said.
        source: serde_json::Error,
    },
    /// The input ended in the middle of a line, and that partial line is not a valid event.
    #[error("line {line}: the input ends in the middle of this line ({source})")]
    TruncatedLine {
        /// 1-based line number.
        line: u64,
        /// What the JSON parser said.
        source: serde_json::Error,
    },
    /// Reading the input failed.
    #[error("reading input: {0}")]
    Io(#[from] std::io::Error),
}

impl Error {
    /// [`Error::UnknownCall`] for `event`.
    pub(crate) fn unknown_call(event: ToolEvent) -> Self {
        Error::UnknownCall {
            id: event.id().to_owned(),
            event: Box::new(event),
        }
    }

    /// The 1-based input line the error is about, when it is about one.
    pub fn line(&self) -> Option<u64> {
        match self {
            Error::InvalidLine { line, .. } | Error::TruncatedLine { line, .. } => Some(*line),
            _ => None,
        }
    }
}
