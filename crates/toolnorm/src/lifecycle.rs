//! The type-state lifecycle of one tool call.
//!
//! A call moves through these states, and only forward:
//!
//! 1. [`Started`]: made by [`ToolCall::start`]. The call is known; input may still stream in.
//! 2. [`Running`]: reached with [`ToolCall::run`]. Partial output may be appended
//!    ([`ToolCall::append_output`]), bounded by the call's output cap.
//! 3. [`Complete`]: reached with [`ToolCall::complete`]. Holds the output. Final.
//! 4. [`Failed`]: reached with [`ToolCall::fail`]. Holds the error. Final.
//!
//! `complete` and `fail` are also available on a `Started` call, because providers
//! often report a result without an explicit running step. Such a call still passes
//! through `Running` internally, so timing and the projection are the same whichever
//! path it took.
//!
//! The output lives only in a `ToolCall<Complete>` and the error only in a
//! `ToolCall<Failed>`: no value of any type holds both, and terminal calls expose no
//! method that changes them. Misuse is a compile error that names the rule:
//!
//! ```compile_fail
//! use toolnorm::{ToolCall, ToolKind};
//! let done = ToolCall::start("call_1", "Bash", ToolKind::Bash).complete(Default::default());
//! done.complete(Default::default()); // a terminal call cannot complete again
//! ```

use std::borrow::Cow;
use std::fmt;
use std::marker::PhantomData;

use serde::Serialize;
use serde_json::Value;

use crate::part::{
    JsonObject, NormalizedToolPart, Timestamp, Timing, ToolError, ToolKind, ToolState,
};

/// Default bound, in bytes, on the partial output a running call keeps (1 MiB).
pub const DEFAULT_OUTPUT_CAP: usize = 1 << 20;

/// Metadata key of the partial output of a running call.
pub const PARTIAL_OUTPUT_KEY: &str = "partialOutput";
/// Metadata key set to `true` when streamed output went past the cap.
pub const OUTPUT_TRUNCATED_KEY: &str = "outputTruncated";
/// Metadata key holding the number of output bytes received when truncated.
pub const OUTPUT_TOTAL_BYTES_KEY: &str = "outputTotalBytes";
/// Metadata key holding the cap in bytes when truncated.
pub const OUTPUT_CAP_BYTES_KEY: &str = "outputCapBytes";
/// Key under `error.details` holding streamed output of a call that failed without details.
pub const PARTIAL_OUTPUT_DETAILS_KEY: &str = "partialOutput";

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
    type Data = Option<Value>;
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
pub trait Succeeded: CallState<Data = Option<Value>> {}
impl Succeeded for Complete {}

/// The state that has an error: `Failed` only.
#[diagnostic::on_unimplemented(
    message = "a `{Self}` tool call has no error",
    label = "only a Failed call has an error",
    note = "output exists only on Complete and error only on Failed; never both"
)]
pub trait Unsuccessful: CallState<Data = ToolError> {}
impl Unsuccessful for Failed {}

/// Partial output of a running call, kept up to a cap.
#[derive(Clone, PartialEq, Default)]
pub struct StreamedOutput {
    kept: String,
    total_bytes: u64,
    cap: usize,
}

impl StreamedOutput {
    fn with_cap(cap: usize) -> Self {
        StreamedOutput {
            kept: String::new(),
            total_bytes: 0,
            cap,
        }
    }

    /// The output kept so far (at most the cap, cut on a character boundary).
    pub fn text(&self) -> &str {
        &self.kept
    }

    /// How many bytes were received in all, kept or not.
    pub fn total_bytes(&self) -> u64 {
        self.total_bytes
    }

    /// Whether some received output was not kept.
    pub fn is_truncated(&self) -> bool {
        self.total_bytes > self.kept.len() as u64
    }

    /// The cap in bytes.
    pub fn cap(&self) -> usize {
        self.cap
    }

    fn push(&mut self, chunk: &str) {
        self.total_bytes = self.total_bytes.saturating_add(chunk.len() as u64);
        let room = self.cap.saturating_sub(self.kept.len());
        if room == 0 || self.is_truncated_before_push(chunk) {
            return;
        }
        if chunk.len() <= room {
            self.kept.push_str(chunk);
        } else {
            let mut end = room;
            while !chunk.is_char_boundary(end) {
                end -= 1;
            }
            self.kept.push_str(&chunk[..end]);
        }
    }

    /// Once anything was dropped, later chunks are dropped too, so the kept text stays a prefix.
    fn is_truncated_before_push(&self, chunk: &str) -> bool {
        self.total_bytes - chunk.len() as u64 > self.kept.len() as u64
    }

    fn write_truncation_flags(&self, metadata: &mut JsonObject) {
        if self.is_truncated() {
            metadata.insert(OUTPUT_TRUNCATED_KEY.into(), Value::Bool(true));
            metadata.insert(OUTPUT_TOTAL_BYTES_KEY.into(), self.total_bytes.into());
            metadata.insert(OUTPUT_CAP_BYTES_KEY.into(), self.cap.into());
        }
    }
}

impl fmt::Debug for StreamedOutput {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("StreamedOutput")
            .field("kept_bytes", &self.kept.len())
            .field("total_bytes", &self.total_bytes)
            .field("cap", &self.cap)
            .finish()
    }
}

/// What a call carries into `Complete`: the output and, when the provider sends them
/// only at the end, the final input and title.
#[derive(Debug, Clone, Default, PartialEq)]
#[non_exhaustive]
pub struct Completion {
    /// The output. When `None`, the streamed output (if any) becomes the output.
    pub output: Option<Value>,
    /// The final input, replacing what was streamed.
    pub input: Option<Value>,
    /// The final title.
    pub title: Option<String>,
    /// When the call finished.
    pub at: Option<Timestamp>,
    /// The duration the provider measured; otherwise it is computed from the timestamps.
    pub elapsed_ms: Option<u64>,
}

impl Completion {
    /// A completion with this output.
    pub fn with_output(output: Value) -> Self {
        Completion {
            output: Some(output),
            ..Completion::default()
        }
    }

    /// Sets the final input.
    #[must_use]
    pub fn input(mut self, input: Value) -> Self {
        self.input = Some(input);
        self
    }

    /// Sets the final title.
    #[must_use]
    pub fn title(mut self, title: impl Into<String>) -> Self {
        self.title = Some(title.into());
        self
    }

    /// Sets when the call finished.
    #[must_use]
    pub fn at(mut self, at: impl Into<Timestamp>) -> Self {
        self.at = Some(at.into());
        self
    }

    /// Sets the measured duration.
    #[must_use]
    pub fn elapsed_ms(mut self, elapsed_ms: u64) -> Self {
        self.elapsed_ms = Some(elapsed_ms);
        self
    }
}

/// What a call carries into `Failed`: the error and, optionally, the final input and title.
#[derive(Debug, Clone, PartialEq)]
#[non_exhaustive]
pub struct Failure {
    /// The error.
    pub error: ToolError,
    /// The final input, replacing what was streamed.
    pub input: Option<Value>,
    /// The final title.
    pub title: Option<String>,
    /// When the call failed.
    pub at: Option<Timestamp>,
    /// The duration the provider measured; otherwise it is computed from the timestamps.
    pub elapsed_ms: Option<u64>,
}

impl Failure {
    /// A failure with this error.
    pub fn new(error: ToolError) -> Self {
        Failure {
            error,
            input: None,
            title: None,
            at: None,
            elapsed_ms: None,
        }
    }

    /// Sets the final input.
    #[must_use]
    pub fn input(mut self, input: Value) -> Self {
        self.input = Some(input);
        self
    }

    /// Sets the final title.
    #[must_use]
    pub fn title(mut self, title: impl Into<String>) -> Self {
        self.title = Some(title.into());
        self
    }

    /// Sets when the call failed.
    #[must_use]
    pub fn at(mut self, at: impl Into<Timestamp>) -> Self {
        self.at = Some(at.into());
        self
    }

    /// Sets the measured duration.
    #[must_use]
    pub fn elapsed_ms(mut self, elapsed_ms: u64) -> Self {
        self.elapsed_ms = Some(elapsed_ms);
        self
    }
}

impl From<ToolError> for Failure {
    fn from(error: ToolError) -> Self {
        Failure::new(error)
    }
}

/// Everything a call holds whatever its state.
#[derive(Clone, PartialEq)]
struct Common {
    id: String,
    name: String,
    kind: ToolKind,
    title: String,
    input: Value,
    metadata: JsonObject,
    timing: Timing,
    output_cap: usize,
}

/// One tool call in state `S`. Only the lifecycle's transitions make a new state.
pub struct ToolCall<S: CallState> {
    common: Common,
    data: S::Data,
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
    pub fn start(id: impl Into<String>, name: impl Into<String>, kind: ToolKind) -> Self {
        let name = name.into();
        ToolCall {
            common: Common {
                id: id.into(),
                title: name.clone(),
                name,
                kind,
                input: Value::Null,
                metadata: JsonObject::new(),
                timing: Timing::default(),
                output_cap: DEFAULT_OUTPUT_CAP,
            },
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
    pub fn with_input(mut self, input: Value) -> Self {
        self.common.input = input;
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
    pub fn input(&self) -> &Value {
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

    /// The bound on partial output kept while running.
    pub fn output_cap(&self) -> usize {
        self.common.output_cap
    }

    /// The wire state.
    pub fn state(&self) -> ToolState {
        S::STATE
    }

    /// Replaces the input (e.g. as it streams in).
    pub fn set_input(&mut self, input: Value)
    where
        S: Open,
    {
        self.common.input = input;
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
        streamed.write_truncation_flags(&mut common.metadata);
        common.finish(
            completion.input,
            completion.title,
            completion.at,
            completion.elapsed_ms,
        );
        let output = match completion.output {
            Some(output) => Some(output),
            None if streamed.total_bytes > 0 => Some(Value::String(streamed.kept)),
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
        streamed.write_truncation_flags(&mut common.metadata);
        common.finish(failure.input, failure.title, failure.at, failure.elapsed_ms);
        let mut error = failure.error;
        if error.details.is_none() && streamed.total_bytes > 0 {
            let mut details = JsonObject::new();
            details.insert(
                PARTIAL_OUTPUT_DETAILS_KEY.into(),
                Value::String(streamed.kept),
            );
            error.details = Some(Value::Object(details));
        }
        ToolCall {
            common,
            data: error,
            state: PhantomData,
        }
    }

    /// The output of a complete call (`None` when the tool returned nothing).
    pub fn output(&self) -> Option<&Value>
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

    /// Projects the call to the canonical part.
    pub fn to_part(&self) -> NormalizedToolPart
    where
        S: Project,
    {
        let common = &self.common;
        let mut part = NormalizedToolPart {
            id: common.id.clone(),
            name: common.name.clone(),
            kind: common.kind,
            title: common.title.clone(),
            input: common.input.clone(),
            output: None,
            error: None,
            state: S::STATE,
            timing: (!common.timing.is_empty()).then(|| common.timing.clone()),
            metadata: (!common.metadata.is_empty()).then(|| common.metadata.clone()),
        };
        S::project(&self.data, &mut part);
        part
    }

    /// The canonical part, borrowed from the call: serializes exactly as
    /// [`to_part`](Self::to_part) does, without copying input, output or metadata.
    pub fn part_view(&self) -> PartView<'_>
    where
        S: Project,
    {
        let common = &self.common;
        let mut view = PartView {
            id: &common.id,
            name: &common.name,
            kind: common.kind,
            title: &common.title,
            input: &common.input,
            output: None,
            error: None,
            state: S::STATE,
            timing: (!common.timing.is_empty()).then_some(&common.timing),
            metadata: (!common.metadata.is_empty()).then_some(Cow::Borrowed(&common.metadata)),
        };
        S::view(&self.data, &mut view);
        view
    }
}

/// A [`NormalizedToolPart`] borrowed from a call ([`ToolCall::part_view`]), for writing
/// it out without a copy; it serializes to the same JSON.
#[derive(Debug, Serialize)]
#[serde(rename_all = "camelCase")]
pub struct PartView<'a> {
    id: &'a str,
    name: &'a str,
    kind: ToolKind,
    title: &'a str,
    input: &'a Value,
    #[serde(skip_serializing_if = "Option::is_none")]
    output: Option<&'a Value>,
    #[serde(skip_serializing_if = "Option::is_none")]
    error: Option<&'a ToolError>,
    state: ToolState,
    #[serde(skip_serializing_if = "Option::is_none")]
    timing: Option<&'a Timing>,
    #[serde(skip_serializing_if = "Option::is_none")]
    metadata: Option<Cow<'a, JsonObject>>,
}

/// How a state's own data shows in the projected part. Implemented for all four states.
pub trait Project: CallState {
    #[doc(hidden)]
    fn project(data: &Self::Data, part: &mut NormalizedToolPart);
    #[doc(hidden)]
    fn view<'a>(data: &'a Self::Data, view: &mut PartView<'a>);
}

impl Project for Started {
    fn project(_: &(), _: &mut NormalizedToolPart) {}
    fn view<'a>(_: &'a (), _: &mut PartView<'a>) {}
}

impl Project for Running {
    fn project(streamed: &StreamedOutput, part: &mut NormalizedToolPart) {
        if streamed.total_bytes == 0 {
            return;
        }
        let metadata = part.metadata.get_or_insert_with(JsonObject::new);
        metadata.insert(
            PARTIAL_OUTPUT_KEY.into(),
            Value::String(streamed.kept.clone()),
        );
        streamed.write_truncation_flags(metadata);
    }

    fn view<'a>(streamed: &'a StreamedOutput, view: &mut PartView<'a>) {
        if streamed.total_bytes == 0 {
            return;
        }
        let metadata = view
            .metadata
            .get_or_insert_with(|| Cow::Owned(JsonObject::new()))
            .to_mut();
        metadata.insert(
            PARTIAL_OUTPUT_KEY.into(),
            Value::String(streamed.kept.clone()),
        );
        streamed.write_truncation_flags(metadata);
    }
}

impl Project for Complete {
    fn project(output: &Option<Value>, part: &mut NormalizedToolPart) {
        part.output = output.clone();
    }
    fn view<'a>(output: &'a Option<Value>, view: &mut PartView<'a>) {
        view.output = output.as_ref();
    }
}

impl Project for Failed {
    fn project(error: &ToolError, part: &mut NormalizedToolPart) {
        part.error = Some(error.clone());
    }
    fn view<'a>(error: &'a ToolError, view: &mut PartView<'a>) {
        view.error = Some(error);
    }
}

impl Common {
    fn finish(
        &mut self,
        input: Option<Value>,
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
            .finish()
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    fn bash() -> ToolCall<Started> {
        ToolCall::start("call_1", "Bash", ToolKind::Bash)
            .with_title("ls -la")
            .with_input(json!({"command": "ls -la"}))
            .started_at(1_700_000_000_000_u64)
    }

    #[test]
    fn started_running_complete() {
        let mut running = bash().run(None);
        running.append_output("a\n");
        running.append_output("b\n");
        assert_eq!(running.streamed_output().text(), "a\nb\n");
        let part = running.to_part();
        assert_eq!(part.state, ToolState::Running);
        assert_eq!(part.metadata.unwrap()[PARTIAL_OUTPUT_KEY], "a\nb\n");

        let done = bash()
            .run(None)
            .complete(Completion::with_output(json!("a\nb\n")).at(1_700_000_000_750_u64));
        let part = done.to_part();
        assert_eq!(part.state, ToolState::Complete);
        assert_eq!(part.output, Some(json!("a\nb\n")));
        assert_eq!(part.error, None);
        assert_eq!(part.timing.unwrap().elapsed_ms, Some(750));
    }

    #[test]
    fn complete_from_started_goes_through_running() {
        let direct = bash().complete(Completion::with_output(json!(1)));
        let via_running = bash().run(None).complete(Completion::with_output(json!(1)));
        assert_eq!(direct, via_running);
    }

    #[test]
    fn streamed_output_becomes_the_output_when_none_is_given() {
        let mut running = bash().run(None);
        running.append_output("hello");
        let done = running.complete(Completion::default());
        assert_eq!(done.output(), Some(&json!("hello")));
    }

    #[test]
    fn completion_carries_final_input_and_title() {
        let search = ToolCall::start("ws_1", "webSearch", ToolKind::WebSearch)
            .with_input(json!({"query": ""}))
            .complete(
                Completion::default()
                    .input(json!({"query": "Reuters top news"}))
                    .title("Searching Reuters top news"),
            );
        assert_eq!(search.input(), &json!({"query": "Reuters top news"}));
        assert_eq!(search.title(), "Searching Reuters top news");
        assert_eq!(search.output(), None);
    }

    #[test]
    fn failure_keeps_streamed_output_in_details() {
        let mut running = bash().run(None);
        running.append_output("partial");
        let failed = running.fail(ToolError::new("exit 3").with_code("3").into());
        assert_eq!(
            failed.error().details,
            Some(json!({"partialOutput": "partial"}))
        );
        let part = failed.to_part();
        assert_eq!(part.state, ToolState::Error);
        assert_eq!(part.output, None);
    }

    #[test]
    fn partial_output_is_capped_on_a_char_boundary_and_flagged() {
        let mut running = bash().with_output_cap(5).run(None);
        running.append_output("ab");
        running.append_output("cdé"); // 'é' is 2 bytes: only "abcd" fits in 5 bytes
        running.append_output("x"); // dropped: the kept text stays a prefix
        let streamed = running.streamed_output();
        assert_eq!(streamed.text(), "abcd");
        assert_eq!(streamed.total_bytes(), 7);
        assert!(streamed.is_truncated());
        let done = running.complete(Completion::default());
        let part = done.to_part();
        let metadata = part.metadata.unwrap();
        assert_eq!(metadata[OUTPUT_TRUNCATED_KEY], true);
        assert_eq!(metadata[OUTPUT_TOTAL_BYTES_KEY], 7);
        assert_eq!(metadata[OUTPUT_CAP_BYTES_KEY], 5);
        assert_eq!(part.output, Some(json!("abcd")));
    }

    #[test]
    fn metadata_merges_by_top_level_key() {
        let mut call = bash();
        call.merge_metadata(json!({"a": 1, "b": {"x": 1}}).as_object().unwrap().clone());
        call.merge_metadata(json!({"b": {"y": 2}}).as_object().unwrap().clone());
        assert_eq!(
            call.metadata(),
            json!({"a": 1, "b": {"y": 2}}).as_object().unwrap()
        );
    }

    #[test]
    fn debug_names_the_state() {
        let text = format!("{:?}", bash().run(None));
        assert!(
            text.starts_with("ToolCall<running> { id: \"call_1\""),
            "{text}"
        );
    }
}
