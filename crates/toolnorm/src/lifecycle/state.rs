//! The four states of a call, and the marker traits that say which transitions each allows.

use std::fmt;

use crate::payload::Payload;

use super::call::ToolCall;
use super::output::StreamedOutput;
use crate::part::{ToolError, ToolState};

mod sealed {
    pub trait Sealed {}
    impl Sealed for super::Started {}
    impl Sealed for super::Running {}
    impl Sealed for super::Complete {}
    impl Sealed for super::Failed {}
}

/// A lifecycle state of a [`ToolCall`]. Sealed: the four states are the only ones.
#[diagnostic::on_unimplemented(
    message = "`{Self}` is not a tool-call state",
    note = "the lifecycle states are Started, Running, Complete and Failed; no other type can be one"
)]
pub trait CallState: sealed::Sealed {
    /// What a call holds only in this state (the output of a complete call, …).
    type Data: Clone + fmt::Debug + PartialEq;
    /// The wire state this type-state projects to.
    const STATE: ToolState;
}

/// State: the call is known but not yet executing.
#[derive(Debug)]
pub struct Started(());
/// State: the call is executing.
#[derive(Debug)]
pub struct Running(());
/// State: the call finished successfully. Final.
#[derive(Debug)]
pub struct Complete(());
/// State: the call failed. Final. (Named so that it does not shadow `std::error::Error`.)
#[derive(Debug)]
pub struct Failed(());

impl CallState for Started {
    type Data = ();
    const STATE: ToolState = ToolState::Started;
}
impl CallState for Running {
    type Data = StreamedOutput;
    const STATE: ToolState = ToolState::Running;
}
impl CallState for Complete {
    type Data = Option<Payload>;
    const STATE: ToolState = ToolState::Complete;
}
impl CallState for Failed {
    type Data = ToolError;
    const STATE: ToolState = ToolState::Error;
}

/// States in which a call can still change: `Started` and `Running`.
#[diagnostic::on_unimplemented(
    message = "a `{Self}` tool call is terminal and cannot change any more",
    label = "this call already reached a terminal state",
    note = "lifecycle: Started → Running → Complete | Failed; Complete and Failed are final"
)]
pub trait Open: CallState {
    #[doc(hidden)]
    fn into_running(call: ToolCall<Self>) -> ToolCall<Running>
    where
        Self: Sized;
}

impl Open for Started {
    fn into_running(call: ToolCall<Self>) -> ToolCall<Running> {
        call.run(None)
    }
}

impl Open for Running {
    fn into_running(call: ToolCall<Self>) -> ToolCall<Running> {
        call
    }
}

/// The state from which a call can start running: `Started` only.
#[diagnostic::on_unimplemented(
    message = "a `{Self}` tool call cannot start running",
    label = "only a Started call can move to Running",
    note = "lifecycle: Started → Running → Complete | Failed"
)]
pub trait NotYetRunning: CallState {}
impl NotYetRunning for Started {}

/// The state that accepts partial output: `Running` only.
#[diagnostic::on_unimplemented(
    message = "a `{Self}` tool call does not take partial output",
    label = "only a Running call streams output",
    note = "move a Started call to Running first; Complete and Failed calls are final"
)]
pub trait Streaming: CallState<Data = StreamedOutput> {}
impl Streaming for Running {}

/// The state that has an output: `Complete` only.
#[diagnostic::on_unimplemented(
    message = "a `{Self}` tool call has no output",
    label = "only a Complete call has an output",
    note = "output exists only on Complete and error only on Failed; never both"
)]
pub trait Succeeded: CallState<Data = Option<Payload>> {}
impl Succeeded for Complete {}

/// The state that has an error: `Failed` only.
#[diagnostic::on_unimplemented(
    message = "a `{Self}` tool call has no error",
    label = "only a Failed call has an error",
    note = "output exists only on Complete and error only on Failed; never both"
)]
pub trait Unsuccessful: CallState<Data = ToolError> {}
impl Unsuccessful for Failed {}
