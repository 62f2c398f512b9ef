//! One tool call, [`ToolCall<S>`], and the transitions between its states.

use std::fmt;
use std::marker::PhantomData;

use serde_json::Value;

use super::finish::{Completion, Failure};
use super::output::{DEFAULT_OUTPUT_CAP, StreamedOutput};
use super::state::{
    CallState, Complete, Failed, NotYetRunning, Open, Running, Started, Streaming, Succeeded,
    Unsuccessful,
};
use crate::approval::Approval;
use crate::meta;
use crate::part::{JsonObject, Timestamp, Timing, ToolError, ToolKind, ToolState};
use crate::payload::Payload;

/// Everything a call holds whatever its state.
#[derive(Clone, PartialEq)]
pub(super) struct Common {
    pub(super) id: String,
    pub(super) name: String,
    pub(super) kind: ToolKind,
    pub(super) title: String,
    pub(super) input: Payload,
    pub(super) metadata: JsonObject,
    pub(super) timing: Timing,
    /// The approval, once one was requested (boxed: most calls have none).
    pub(super) approval: Option<Box<Approval>>,
    /// The call failed because its approval was denied or cancelled, and the provider's
    /// own error for it has not come yet.
    pub(super) ended_by_approval: bool,
    output_cap: usize,
}

/// One tool call in state `S` ([`Started`], [`Running`], [`Complete`] or [`Failed`]): the
/// contract's lifecycle, checked by the compiler.
///
#[doc = include_str!("doc.md")]
pub struct ToolCall<S: CallState> {
    /// Boxed: a call moves at each transition and through a fold, its state data alone
    /// then moves with the pointer.
    pub(super) common: Box<Common>,
    pub(super) data: S::Data,
    state: PhantomData<S>,
}

impl<S: CallState> Clone for ToolCall<S> {
    fn clone(&self) -> Self {
        ToolCall {
            common: self.common.clone(),
            data: self.data.clone(),
            state: PhantomData,
        }
    }
}

impl<S: CallState> PartialEq for ToolCall<S> {
    fn eq(&self, other: &Self) -> bool {
        self.common == other.common && self.data == other.data
    }
}

impl ToolCall<Started> {
    /// Starts a call. The title defaults to the name and the input to `null`.
    ///
    /// ```
    /// use serde_json::json;
    /// use toolnorm::{ToolCall, ToolKind, ToolState};
    ///
    /// let call = ToolCall::start("toolu_1", "Read", ToolKind::FileRead)
    ///     .with_title("Reading src/main.rs")
    ///     .with_input(json!({ "file_path": "src/main.rs" }))
    ///     .started_at("2026-03-01T10:00:00Z");
    /// assert_eq!(call.state(), ToolState::Started);
    /// let part = call.to_part();
    /// assert_eq!((part.name.as_str(), part.title.as_str()), ("Read", "Reading src/main.rs"));
    /// assert_eq!(part.output, None);
    /// ```
    pub fn start(id: impl Into<String>, name: impl Into<String>, kind: ToolKind) -> Self {
        let name = name.into();
        ToolCall {
            common: Box::new(Common {
                id: id.into(),
                title: name.clone(),
                name,
                kind,
                input: Payload::NULL,
                metadata: JsonObject::new(),
                timing: Timing::default(),
                approval: None,
                ended_by_approval: false,
                output_cap: DEFAULT_OUTPUT_CAP,
            }),
            data: (),
            state: PhantomData,
        }
    }

    /// Sets the title.
    #[must_use]
    pub fn with_title(mut self, title: impl Into<String>) -> Self {
        self.common.title = title.into();
        self
    }

    /// Sets the input.
    #[must_use]
    pub fn with_input(mut self, input: impl Into<Payload>) -> Self {
        self.common.input = input.into();
        self
    }

    /// Sets the metadata.
    #[must_use]
    pub fn with_metadata(mut self, metadata: JsonObject) -> Self {
        self.common.metadata = metadata;
        self
    }

    /// Sets when the call started.
    #[must_use]
    pub fn started_at(mut self, at: impl Into<Timestamp>) -> Self {
        self.common.timing.started_at = Some(at.into());
        self
    }

    /// Sets the bound on partial output kept while running.
    #[must_use]
    pub fn with_output_cap(mut self, cap: usize) -> Self {
        self.common.output_cap = cap;
        self
    }
}

impl<S: CallState> ToolCall<S> {
    /// The provider's call id.
    pub fn id(&self) -> &str {
        &self.common.id
    }

    /// The provider's tool name.
    pub fn name(&self) -> &str {
        &self.common.name
    }

    /// The UI bucket.
    pub fn kind(&self) -> ToolKind {
        self.common.kind
    }

    /// The human title.
    pub fn title(&self) -> &str {
        &self.common.title
    }

    /// The current input.
    pub fn input(&self) -> &Payload {
        &self.common.input
    }

    /// The metadata merged so far.
    pub fn metadata(&self) -> &JsonObject {
        &self.common.metadata
    }

    /// Start, end and duration, as far as known.
    pub fn timing(&self) -> &Timing {
        &self.common.timing
    }

    /// The wire state.
    pub fn state(&self) -> ToolState {
        S::STATE
    }

    /// The call's approval, once one was requested (`metadata.approval` of its part).
    pub fn approval(&self) -> Option<&Approval> {
        self.common.approval.as_deref()
    }

    /// Sets the approval: a request, the decision on it.
    ///
    /// ```
    /// use toolnorm::{Approval, ApprovalStatus, DecidedBy, ToolCall, ToolKind, ToolError};
    ///
    /// let mut call = ToolCall::start("c1", "Bash", ToolKind::Bash);
    /// call.set_approval(Approval { reason: Some("Delete notes.txt?".into()), ..Approval::default() });
    /// assert_eq!(call.to_part().metadata.unwrap()["approval"]["status"], "pending");
    /// call.set_approval(Approval { status: ApprovalStatus::Denied, decided_by: Some(DecidedBy::User), ..Approval::default() });
    /// let failed = call.fail(ToolError::new("denied").with_code("user_rejected").into());
    /// assert_eq!(failed.approval().map(|approval| approval.status), Some(ApprovalStatus::Denied));
    /// ```
    pub fn set_approval(&mut self, approval: Approval)
    where
        S: Open,
    {
        self.put_approval(approval);
    }

    /// Sets the approval in any state: a decision told after the call finished.
    pub(crate) fn put_approval(&mut self, approval: Approval) {
        self.common.approval = Some(Box::new(approval));
    }

    /// Replaces the input (e.g. as it streams in).
    pub fn set_input(&mut self, input: impl Into<Payload>)
    where
        S: Open,
    {
        self.common.input = input.into();
    }

    /// Replaces the title.
    pub fn set_title(&mut self, title: impl Into<String>)
    where
        S: Open,
    {
        self.common.title = title.into();
    }

    /// Merges metadata: each top-level key replaces the key of the same name.
    pub fn merge_metadata(&mut self, metadata: JsonObject)
    where
        S: Open,
    {
        self.common.metadata.extend(metadata);
    }

    /// Moves a started call to `Running`.
    pub fn run(self, at: Option<Timestamp>) -> ToolCall<Running>
    where
        S: NotYetRunning,
    {
        let mut common = self.common;
        if common.timing.started_at.is_none() {
            common.timing.started_at = at;
        }
        let data = StreamedOutput::with_cap(common.output_cap);
        ToolCall {
            common,
            data,
            state: PhantomData,
        }
    }

    /// Appends partial output, keeping at most the call's output cap.
    pub fn append_output(&mut self, chunk: &str)
    where
        S: Streaming,
    {
        self.data.push(chunk);
    }

    /// The partial output received so far.
    pub fn streamed_output(&self) -> &StreamedOutput
    where
        S: Streaming,
    {
        &self.data
    }

    /// Completes the call (through `Running`, when it is still `Started`).
    ///
    /// Without an explicit output, the streamed output becomes the output.
    pub fn complete(self, completion: Completion) -> ToolCall<Complete>
    where
        S: Open,
    {
        let running = S::into_running(self);
        let streamed = running.data;
        let mut common = running.common;
        common.finish(
            completion.input,
            completion.title,
            completion.at,
            completion.elapsed_ms,
        );
        // The truncation flags describe the output the part holds: only the streamed
        // output can have been cut; a final output given whole is not.
        let output = match completion.output {
            Some(output) => Some(output),
            None if streamed.total_bytes > 0 => {
                streamed.write_truncation_flags(&mut common.metadata);
                Some(Value::String(streamed.kept).into())
            }
            None => None,
        };
        ToolCall {
            common,
            data: output,
            state: PhantomData,
        }
    }

    /// Fails the call (through `Running`, when it is still `Started`).
    ///
    /// Streamed output is not lost: when the error has no details, it goes to
    /// `error.details.partialOutput`.
    pub fn fail(self, failure: Failure) -> ToolCall<Failed>
    where
        S: Open,
    {
        let running = S::into_running(self);
        let streamed = running.data;
        let mut common = running.common;
        common.finish(failure.input, failure.title, failure.at, failure.elapsed_ms);
        let mut error = failure.error;
        // As for a completion: the flags are about the partial output the part keeps.
        if error.details.is_none() && streamed.total_bytes > 0 {
            streamed.write_truncation_flags(&mut common.metadata);
            let mut details = JsonObject::new();
            details.insert(
                meta::details::PARTIAL_OUTPUT.into(),
                Value::String(streamed.kept),
            );
            error.details = Some(Value::Object(details).into());
        }
        ToolCall {
            common,
            data: error,
            state: PhantomData,
        }
    }

    /// The output of a complete call (`None` when the tool returned nothing).
    pub fn output(&self) -> Option<&Payload>
    where
        S: Succeeded,
    {
        self.data.as_ref()
    }

    /// The error of a failed call.
    pub fn error(&self) -> &ToolError
    where
        S: Unsuccessful,
    {
        &self.data
    }

    /// Whether the call failed because its approval was denied or cancelled, and the
    /// provider's own error for it has not come yet.
    pub(crate) fn ended_by_approval(&self) -> bool {
        self.common.ended_by_approval
    }

    /// Marks the call as failed by its approval's decision.
    pub(crate) fn mark_ended_by_approval(&mut self) {
        self.common.ended_by_approval = true;
    }

    /// The provider's own error for a call its approval ended: its message and details
    /// (the details kept so far when it has none), its final input and title, and its time
    /// when it has one; the code stays the decision's, which says who refused.
    pub(crate) fn refine_error(&mut self, failure: Failure)
    where
        S: Unsuccessful,
    {
        self.data.message = failure.error.message;
        if failure.error.details.is_some() {
            self.data.details = failure.error.details;
        }
        let common = &mut self.common;
        let elapsed_ms = match failure.at {
            Some(_) => failure.elapsed_ms,
            None => failure.elapsed_ms.or(common.timing.elapsed_ms),
        };
        let at = failure.at.or_else(|| common.timing.completed_at.clone());
        common.finish(failure.input, failure.title, at, elapsed_ms);
        common.ended_by_approval = false;
    }
}

impl Common {
    fn finish(
        &mut self,
        input: Option<Payload>,
        title: Option<String>,
        at: Option<Timestamp>,
        elapsed_ms: Option<u64>,
    ) {
        if let Some(input) = input {
            self.input = input;
        }
        if let Some(title) = title {
            self.title = title;
        }
        let timing = &mut self.timing;
        timing.completed_at = at;
        timing.elapsed_ms = elapsed_ms.or_else(|| {
            let started = timing.started_at.as_ref()?;
            started.millis_until(timing.completed_at.as_ref()?)
        });
    }
}

impl<S: CallState> fmt::Debug for ToolCall<S> {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let common = &self.common;
        f.debug_struct(&format!("ToolCall<{}>", S::STATE))
            .field("id", &common.id)
            .field("name", &common.name)
            .field("kind", &common.kind)
            .field("title", &common.title)
            .field("input", &common.input)
            .field("data", &self.data)
            .field("timing", &common.timing)
            .field("metadata", &common.metadata)
            .field("approval", &common.approval)
            .finish()
    }
}
