//! Redacting the fields of a canonical event.

use serde_json::Value;
use toolnorm::{JsonObject, Payload, ToolError, ToolEvent};

use super::Redactor;

impl Redactor {
    /// Redacts every field of `event` that carries the call's data: input, output,
    /// title, error (message and details), metadata, streamed chunks, an approval's reason
    /// and feedback; ids, names,
    /// kinds, states and times are left as they are. How many secrets were found.
    pub fn redact_event(&self, event: &mut ToolEvent) -> u32 {
        match event {
            ToolEvent::ToolCallStarted(started) => {
                self.redact_string(&mut started.title)
                    + self.redact_value(started.input.to_mut())
                    + started
                        .metadata
                        .as_mut()
                        .map_or(0, |metadata| self.redact_object(metadata))
            }
            ToolEvent::InputUpdated(updated) => self.redact_value(updated.input.to_mut()),
            ToolEvent::TitleUpdated(updated) => self.redact_string(&mut updated.title),
            ToolEvent::MetadataMerged(merged) => self.redact_object(&mut merged.metadata),
            ToolEvent::ToolCallRunning(_) => 0,
            ToolEvent::OutputAppended(appended) => self.redact_string(&mut appended.chunk),
            ToolEvent::ToolCallCompleted(completed) => {
                completed
                    .output
                    .as_mut()
                    .map_or(0, |output| self.redact_value(output.to_mut()))
                    + self.redact_ending(completed.input.as_mut(), completed.title.as_mut())
            }
            ToolEvent::ToolCallFailed(failed) => {
                self.redact_error(&mut failed.error)
                    + self.redact_ending(failed.input.as_mut(), failed.title.as_mut())
            }
            ToolEvent::ApprovalRequested(request) => request
                .reason
                .as_mut()
                .map_or(0, |reason| self.redact_string(reason)),
            ToolEvent::ApprovalResolved(resolution) => resolution
                .feedback
                .as_mut()
                .map_or(0, |feedback| self.redact_string(feedback)),
        }
    }

    /// Redacts the final input and title an ending may carry.
    fn redact_ending(&self, input: Option<&mut Payload>, title: Option<&mut String>) -> u32 {
        input.map_or(0, |input| self.redact_value(input.to_mut()))
            + title.map_or(0, |title| self.redact_string(title))
    }

    /// Redacts an error's message and details.
    pub fn redact_error(&self, error: &mut ToolError) -> u32 {
        self.redact_string(&mut error.message)
            + error
                .details
                .as_mut()
                .map_or(0, |details| self.redact_value(details.to_mut()))
    }

    /// Redacts a string in place.
    pub fn redact_string(&self, text: &mut String) -> u32 {
        let (redacted, found) = self.redact_text(text);
        if let std::borrow::Cow::Owned(redacted) = redacted {
            *text = redacted;
        }
        found
    }

    /// Redacts the values of an object in place (see [`Redactor::redact_value`]).
    pub fn redact_object(&self, object: &mut JsonObject) -> u32 {
        object
            .iter_mut()
            .map(|(key, value)| match value {
                Value::String(text) if self.is_secret_key(key) && !super::is_redacted(text) => {
                    *text = "[REDACTED:secret_field]".to_owned();
                    1
                }
                value => self.redact_value(value),
            })
            .sum()
    }
}
