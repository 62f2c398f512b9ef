//! A tool call whose state is known only at run time, driven by canonical events.
//!
//! [`AnyToolCall::apply`] maps each event onto the typed transitions of
//! [`ToolCall`]; it never bypasses them. An event that changes nothing (an exact
//! duplicate) is accepted and reported as unchanged. An event that does not fit is
//! rejected with an [`Error::Rejected`] that names the call, its state and the event,
//! and the unchanged call is handed back.

use crate::payload::Payload;

use crate::approval::{Approval, ApprovalStatus, Settled};
use crate::error::{Error, Rejection};
use crate::event::{
    ApprovalRequested, ApprovalResolved, InputUpdated, MetadataMerged, OutputAppended,
    TitleUpdated, ToolCallCompleted, ToolCallFailed, ToolCallRunning, ToolCallStarted, ToolEvent,
};
use crate::lifecycle::{
    CallState, Complete, Completion, Failed, Failure, Open, PartView, Running, Started, ToolCall,
};
use crate::part::{JsonObject, NormalizedToolPart, Timing, ToolKind, ToolState};

/// Runs the same expression on the typed call inside any state.
macro_rules! on_any {
    ($any:expr, $call:ident => $body:expr) => {
        match $any {
            AnyToolCall::Started($call) => $body,
            AnyToolCall::Running($call) => $body,
            AnyToolCall::Complete($call) => $body,
            AnyToolCall::Failed($call) => $body,
        }
    };
}

/// A tool call in any of the four states.
#[derive(Debug, Clone, PartialEq)]
pub enum AnyToolCall {
    /// Known, not yet executing.
    Started(ToolCall<Started>),
    /// Executing.
    Running(ToolCall<Running>),
    /// Finished successfully.
    Complete(ToolCall<Complete>),
    /// Failed.
    Failed(ToolCall<Failed>),
}

/// The result of an event that applied.
#[derive(Debug, Clone, PartialEq)]
#[non_exhaustive]
pub struct Applied {
    /// The call after the event.
    pub call: AnyToolCall,
    /// Whether the event changed the call (`false` for an exact duplicate).
    pub changed: bool,
}

/// An event that did not apply, with the call handed back unchanged.
#[derive(Debug)]
#[non_exhaustive]
pub struct Rejected {
    /// The call, exactly as it was (boxed: rejections are rare, calls are large).
    pub call: Box<AnyToolCall>,
    /// Why; it carries the rejected event.
    pub error: Error,
}

impl AnyToolCall {
    /// Starts a call from its start event, with the given cap on partial output.
    pub fn start(event: ToolCallStarted, output_cap: usize) -> Self {
        let mut call = ToolCall::start(event.id, event.name, event.kind)
            .with_title(event.title)
            .with_input(event.input)
            .with_metadata(event.metadata.unwrap_or_default())
            .with_output_cap(output_cap);
        if let Some(at) = event.at {
            call = call.started_at(at);
        }
        AnyToolCall::Started(call)
    }

    /// The call id.
    pub fn id(&self) -> &str {
        on_any!(self, call => call.id())
    }

    /// The provider's tool name.
    pub fn name(&self) -> &str {
        on_any!(self, call => call.name())
    }

    /// The UI bucket.
    pub fn kind(&self) -> ToolKind {
        on_any!(self, call => call.kind())
    }

    /// The human title.
    pub fn title(&self) -> &str {
        on_any!(self, call => call.title())
    }

    /// The current input.
    pub fn input(&self) -> &Payload {
        on_any!(self, call => call.input())
    }

    /// The metadata merged so far.
    pub fn metadata(&self) -> &JsonObject {
        on_any!(self, call => call.metadata())
    }

    /// Start, end and duration, as far as known.
    pub fn timing(&self) -> &Timing {
        on_any!(self, call => call.timing())
    }

    /// The wire state.
    pub fn state(&self) -> ToolState {
        on_any!(self, call => call.state())
    }

    /// The call's approval, once one was requested.
    pub fn approval(&self) -> Option<&Approval> {
        on_any!(self, call => call.approval())
    }

    /// Whether the call is complete or failed.
    pub fn is_terminal(&self) -> bool {
        self.state().is_terminal()
    }

    /// Projects the call to the canonical part.
    pub fn to_part(&self) -> NormalizedToolPart {
        on_any!(self, call => call.to_part())
    }

    /// The part, borrowed: serializes as [`to_part`](Self::to_part) does, without a copy.
    pub fn part_view(&self) -> PartView<'_> {
        on_any!(self, call => call.part_view())
    }

    /// Applies one event through the typed transitions: the call after it, or the call
    /// unchanged and why the event does not apply.
    ///
    /// ```
    /// use toolnorm::{AnyToolCall, Applied, Rejected, ToolCall, ToolEvent, ToolKind, ToolState};
    ///
    /// let event = |line: &str| serde_json::from_str::<ToolEvent>(line);
    /// let call = AnyToolCall::from(ToolCall::start("c1", "Bash", ToolKind::Bash));
    /// let running = event(r#"{"type":"toolCallRunning","id":"c1"}"#)?;
    ///
    /// let Applied { call, changed, .. } = call.apply(running.clone()).expect("it can run");
    /// assert!(changed);
    /// assert_eq!(call.state(), ToolState::Running);
    /// let Applied { call, changed, .. } = call.apply(running).expect("a duplicate applies");
    /// assert!(!changed);
    ///
    /// let done = event(r#"{"type":"toolCallCompleted","id":"c1","output":"ok"}"#)?;
    /// let Applied { call, .. } = call.apply(done).expect("a running call can complete");
    /// let late = event(r#"{"type":"titleUpdated","id":"c1","title":"ls -la"}"#)?;
    /// let Err(Rejected { call, error, .. }) = call.apply(late) else {
    ///     panic!("a complete call takes no new title")
    /// };
    /// assert_eq!((call.state(), call.title()), (ToolState::Complete, "Bash"));
    /// assert_eq!(
    ///     error.to_string(),
    ///     "tool call `c1` is complete: titleUpdated rejected, terminal states are final"
    /// );
    /// # Ok::<(), serde_json::Error>(())
    /// ```
    pub fn apply(self, event: ToolEvent) -> Result<Applied, Rejected> {
        match event {
            ToolEvent::ToolCallStarted(started) => self.restart(started),
            ToolEvent::InputUpdated(update) => self.edit(update),
            ToolEvent::TitleUpdated(update) => self.edit(update),
            ToolEvent::MetadataMerged(update) => self.edit(update),
            ToolEvent::ToolCallRunning(running) => self.run(running),
            ToolEvent::OutputAppended(chunk) => self.append_output(chunk),
            ToolEvent::ToolCallCompleted(completed) => self.complete(completed),
            ToolEvent::ToolCallFailed(failed) => self.fail(failed),
            ToolEvent::ApprovalRequested(request) => self.request_approval(request),
            ToolEvent::ApprovalResolved(resolution) => self.resolve_approval(resolution),
        }
    }

    fn reject(self, event: ToolEvent, reason: Rejection) -> Result<Applied, Rejected> {
        let error = Error::Rejected {
            id: self.id().to_owned(),
            state: self.state(),
            event: Box::new(event),
            reason,
        };
        Err(Rejected {
            call: Box::new(self),
            error,
        })
    }

    fn unchanged(self) -> Result<Applied, Rejected> {
        Ok(Applied {
            call: self,
            changed: false,
        })
    }

    fn changed(call: AnyToolCall) -> Result<Applied, Rejected> {
        Ok(Applied {
            call,
            changed: true,
        })
    }

    /// A second start is a duplicate when it says exactly what the call already holds.
    fn restart(self, started: ToolCallStarted) -> Result<Applied, Rejected> {
        let same = self.name() == started.name
            && self.kind() == started.kind
            && self.title() == started.title
            && *self.input() == started.input
            && started.metadata.as_ref().is_none_or(|metadata| {
                metadata
                    .iter()
                    .all(|(key, value)| self.metadata().get(key) == Some(value))
            });
        if same {
            self.unchanged()
        } else {
            self.reject(started.into(), Rejection::ConflictingStart)
        }
    }

    /// Applies an edit to an open call; on a terminal call, an edit that changes nothing
    /// is a duplicate and any other is rejected.
    fn edit<E: Edit>(self, edit: E) -> Result<Applied, Rejected> {
        if edit.repeats(&self) {
            return self.unchanged();
        }
        match self {
            AnyToolCall::Started(mut call) => {
                edit.apply(&mut call);
                Self::changed(AnyToolCall::Started(call))
            }
            AnyToolCall::Running(mut call) => {
                edit.apply(&mut call);
                Self::changed(AnyToolCall::Running(call))
            }
            terminal => terminal.reject(edit.into(), Rejection::Terminal),
        }
    }

    fn run(self, running: ToolCallRunning) -> Result<Applied, Rejected> {
        match self {
            AnyToolCall::Started(call) => Self::changed(AnyToolCall::Running(call.run(running.at))),
            AnyToolCall::Running(_) => self.unchanged(),
            terminal => terminal.reject(running.into(), Rejection::Terminal),
        }
    }

    /// Output on a started call proves it runs: the call moves to `Running` first.
    fn append_output(self, chunk: OutputAppended) -> Result<Applied, Rejected> {
        let call = match self {
            AnyToolCall::Started(_) if chunk.offset > 0 => {
                return self.reject(chunk.into(), Rejection::OutputGap { expected: 0 });
            }
            AnyToolCall::Started(_) if chunk.chunk.is_empty() => return self.unchanged(),
            AnyToolCall::Started(call) => call.run(chunk.at.clone()),
            AnyToolCall::Running(call) => call,
            terminal => return terminal.reject(chunk.into(), Rejection::Terminal),
        };
        let streamed = call.streamed_output();
        let received = streamed.total_bytes();
        let start = chunk.offset;
        let end = start.saturating_add(chunk.chunk.len() as u64);
        if start > received {
            let expected = received;
            return AnyToolCall::Running(call)
                .reject(chunk.into(), Rejection::OutputGap { expected });
        }
        // The part of the chunk that overlaps what was kept must match it.
        let kept = streamed.text().as_bytes();
        let overlap_end = end.min(received).min(kept.len() as u64);
        if start < overlap_end {
            let (from, to) = (start as usize, overlap_end as usize);
            if kept.get(from..to) != chunk.chunk.as_bytes().get(..to - from) {
                return AnyToolCall::Running(call).reject(chunk.into(), Rejection::OutputMismatch);
            }
        }
        if end <= received {
            return AnyToolCall::Running(call).unchanged();
        }
        let fresh_from = (received - start) as usize;
        match chunk.chunk.get(fresh_from..) {
            Some(fresh) => {
                let mut call = call;
                call.append_output(fresh);
                Self::changed(AnyToolCall::Running(call))
            }
            // The overlap ends inside a character: the chunks disagree on the text.
            None => AnyToolCall::Running(call).reject(chunk.into(), Rejection::OutputMismatch),
        }
    }

    fn complete(self, completed: ToolCallCompleted) -> Result<Applied, Rejected> {
        fn finish<S: Open>(
            call: ToolCall<S>,
            completed: ToolCallCompleted,
        ) -> Result<Applied, Rejected> {
            let completion = Completion {
                output: completed.output,
                input: completed.input,
                title: completed.title,
                at: completed.at,
                elapsed_ms: completed.elapsed_ms,
            };
            let mut call = call.complete(completion);
            settle(&mut call, (ApprovalStatus::Approved, None));
            AnyToolCall::changed(AnyToolCall::Complete(call))
        }
        match self {
            AnyToolCall::Started(call) => finish(call, completed),
            AnyToolCall::Running(call) => finish(call, completed),
            AnyToolCall::Complete(ref call) if repeats_completion(call, &completed) => {
                self.unchanged()
            }
            terminal => terminal.reject(completed.into(), Rejection::Terminal),
        }
    }

    fn fail(self, failed: ToolCallFailed) -> Result<Applied, Rejected> {
        fn finish<S: Open>(call: ToolCall<S>, failed: ToolCallFailed) -> Result<Applied, Rejected> {
            let failure = Failure {
                error: failed.error,
                input: failed.input,
                title: failed.title,
                at: failed.at,
                elapsed_ms: failed.elapsed_ms,
            };
            let mut call = call.fail(failure);
            let settled = Approval::settled_by_failure(call.error());
            settle(&mut call, settled);
            AnyToolCall::changed(AnyToolCall::Failed(call))
        }
        match self {
            AnyToolCall::Started(call) => finish(call, failed),
            AnyToolCall::Running(call) => finish(call, failed),
            AnyToolCall::Failed(ref call) if repeats_failure(call, &failed) => self.unchanged(),
            // The provider's error for a call its approval ended: it says what happened.
            AnyToolCall::Failed(mut call) if call.ended_by_approval() => {
                call.refine_error(Failure {
                    error: failed.error,
                    input: failed.input,
                    title: failed.title,
                    at: failed.at,
                    elapsed_ms: failed.elapsed_ms,
                });
                Self::changed(AnyToolCall::Failed(call))
            }
            terminal => terminal.reject(failed.into(), Rejection::Terminal),
        }
    }
}

impl AnyToolCall {
    /// A request sets a pending approval on an open call that was not asked before; the
    /// same request again is a duplicate, a different one is rejected (a call is asked
    /// once).
    fn request_approval(self, request: ApprovalRequested) -> Result<Applied, Rejected> {
        match self.approval() {
            Some(current) if current.asked_by(&request) => return self.unchanged(),
            Some(_) => return self.reject(request.into(), Rejection::AlreadyAsked),
            None if self.is_terminal() => {
                return self.reject(request.into(), Rejection::Terminal);
            }
            None => {}
        }
        let approval = Approval::requested(&request);
        let mut call = self;
        on_any!(&mut call, call => call.put_approval(approval));
        Self::changed(call)
    }

    /// A resolution decides the pending approval (or adds what a decision settled by the
    /// call's outcome did not know); a denial or a cancellation ends an open call.
    fn resolve_approval(self, resolution: ApprovalResolved) -> Result<Applied, Rejected> {
        let Some(current) = self.approval() else {
            return self.reject(resolution.into(), Rejection::NoApprovalRequest);
        };
        let was_pending = current.is_pending();
        let next = match current.resolve(&resolution) {
            Ok(Some(next)) => next,
            Ok(None) => return self.unchanged(),
            Err(reason) => return self.reject(resolution.into(), reason),
        };
        let ending = next.ending().filter(|_| was_pending);
        let mut call = self;
        on_any!(&mut call, call => call.put_approval(next));
        let Some(error) = ending else {
            return Self::changed(call);
        };
        let failure = Failure {
            at: resolution.at,
            ..Failure::new(error)
        };
        let mut failed = match call {
            AnyToolCall::Started(call) => call.fail(failure),
            AnyToolCall::Running(call) => call.fail(failure),
            finished => return Self::changed(finished),
        };
        failed.mark_ended_by_approval();
        Self::changed(AnyToolCall::Failed(failed))
    }
}

/// Settles a pending approval by how the call ended (it completed or failed after it
/// ran, so it was approved; it failed refused or interrupted); a decided one stays as it
/// was.
fn settle<S: CallState>(call: &mut ToolCall<S>, settled: Settled) {
    if let Some(approval) = call
        .approval()
        .and_then(|approval| approval.settle(settled))
    {
        call.put_approval(approval);
    }
}

/// An event that edits an open call in place: new input, title or metadata.
trait Edit: Into<ToolEvent> {
    /// Whether the call already holds what the edit sets.
    fn repeats(&self, call: &AnyToolCall) -> bool;
    /// Makes the edit.
    fn apply<S: Open>(self, call: &mut ToolCall<S>);
}

impl Edit for InputUpdated {
    fn repeats(&self, call: &AnyToolCall) -> bool {
        *call.input() == self.input
    }
    fn apply<S: Open>(self, call: &mut ToolCall<S>) {
        call.set_input(self.input);
    }
}

impl Edit for TitleUpdated {
    fn repeats(&self, call: &AnyToolCall) -> bool {
        call.title() == self.title
    }
    fn apply<S: Open>(self, call: &mut ToolCall<S>) {
        call.set_title(self.title);
    }
}

impl Edit for MetadataMerged {
    fn repeats(&self, call: &AnyToolCall) -> bool {
        let current = call.metadata();
        self.metadata
            .iter()
            .all(|(key, value)| current.get(key) == Some(value))
    }
    fn apply<S: Open>(self, call: &mut ToolCall<S>) {
        call.merge_metadata(self.metadata);
    }
}

/// Whether a completion event says nothing new about a complete call.
fn repeats_completion(call: &ToolCall<Complete>, completed: &ToolCallCompleted) -> bool {
    (completed.output.is_none() || completed.output.as_ref() == call.output())
        && completed
            .input
            .as_ref()
            .is_none_or(|input| input == call.input())
        && completed
            .title
            .as_deref()
            .is_none_or(|title| title == call.title())
        && (completed.at.is_none() || completed.at == call.timing().completed_at)
}

/// Whether a failure event says nothing new about a failed call.
fn repeats_failure(call: &ToolCall<Failed>, failed: &ToolCallFailed) -> bool {
    let error = call.error();
    failed.error.message == error.message
        && failed.error.code == error.code
        && (failed.error.details.is_none() || failed.error.details == error.details)
        && failed
            .input
            .as_ref()
            .is_none_or(|input| input == call.input())
        && failed
            .title
            .as_deref()
            .is_none_or(|title| title == call.title())
        && (failed.at.is_none() || failed.at == call.timing().completed_at)
}

impl From<ToolCall<Started>> for AnyToolCall {
    fn from(call: ToolCall<Started>) -> Self {
        AnyToolCall::Started(call)
    }
}

impl From<ToolCall<Running>> for AnyToolCall {
    fn from(call: ToolCall<Running>) -> Self {
        AnyToolCall::Running(call)
    }
}

impl From<ToolCall<Complete>> for AnyToolCall {
    fn from(call: ToolCall<Complete>) -> Self {
        AnyToolCall::Complete(call)
    }
}

impl From<ToolCall<Failed>> for AnyToolCall {
    fn from(call: ToolCall<Failed>) -> Self {
        AnyToolCall::Failed(call)
    }
}
