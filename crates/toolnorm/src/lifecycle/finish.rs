//! What a call carries into a terminal state: a [`Completion`] or a [`Failure`].

use crate::part::{Timestamp, ToolError};
use crate::payload::Payload;

/// What a call carries into `Complete`: the output and, when the provider sends them
/// only at the end, the final input and title.
#[derive(Debug, Clone, Default, PartialEq)]
#[non_exhaustive]
pub struct Completion {
    /// The output. When `None`, the streamed output (if any) becomes the output.
    pub output: Option<Payload>,
    /// The final input, replacing what was streamed.
    pub input: Option<Payload>,
    /// The final title.
    pub title: Option<String>,
    /// When the call finished.
    pub at: Option<Timestamp>,
    /// The duration the provider measured; otherwise it is computed from the timestamps.
    pub elapsed_ms: Option<u64>,
}

impl Completion {
    /// A completion with this output.
    pub fn with_output(output: impl Into<Payload>) -> Self {
        Completion {
            output: Some(output.into()),
            ..Completion::default()
        }
    }

    /// Sets the final input.
    #[must_use]
    pub fn input(mut self, input: impl Into<Payload>) -> Self {
        self.input = Some(input.into());
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
    pub input: Option<Payload>,
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
    pub fn input(mut self, input: impl Into<Payload>) -> Self {
        self.input = Some(input.into());
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
