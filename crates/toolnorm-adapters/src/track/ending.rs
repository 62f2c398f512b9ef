//! The ends of a call's life the readers report: it runs, completes or fails.

use serde_json::Value;
use toolnorm::{Payload, ToolCallCompleted, ToolCallFailed, ToolCallRunning, ToolError};

use super::{Ending, Facts};

impl Facts<'_> {
    /// A call is executing.
    pub fn running(&mut self, line: u64, id: &str, at: Option<toolnorm::Timestamp>) {
        let id = self.part_id(id);
        let id: &str = &id;
        self.emit(
            line,
            ToolCallRunning {
                id: id.to_owned(),
                at,
            }
            .into(),
        );
    }

    /// A call finished with `output`.
    pub fn complete(
        &mut self,
        line: u64,
        id: &str,
        output: Option<impl Into<Payload>>,
        ending: Ending,
    ) {
        let output = output.map(Into::into);
        let id = self.part_id(id);
        let id: &str = &id;
        if !ending.restored {
            self.note_questions(line, id, ending.input.as_ref(), output.as_ref());
        }
        let title = self.close(id, ending.input.as_ref());
        self.emit(
            line,
            ToolCallCompleted {
                id: id.to_owned(),
                output,
                input: ending.input.map(Payload::from),
                title,
                elapsed_ms: ending.elapsed_ms,
                at: ending.at,
            }
            .into(),
        );
    }

    /// A call failed with `error`.
    pub fn fail(&mut self, line: u64, id: &str, error: ToolError, ending: Ending) {
        let id = self.part_id(id).into_owned();
        self.fail_part(line, &id, error, ending);
    }

    /// The call whose part id is `id` failed with `error`.
    pub(super) fn fail_part(&mut self, line: u64, id: &str, error: ToolError, ending: Ending) {
        if !ending.restored {
            self.note_questions(line, id, ending.input.as_ref(), None);
            self.ask_before_refusal(line, id, &error);
        }
        let title = self.close(id, ending.input.as_ref());
        self.emit(
            line,
            ToolCallFailed {
                id: id.to_owned(),
                error,
                input: ending.input.map(Payload::from),
                title,
                elapsed_ms: ending.elapsed_ms,
                at: ending.at,
            }
            .into(),
        );
    }

    /// Forgets what the tracker kept of a call that ends; returns the title that goes with
    /// its final input, when that input is new and the title differs from the current one.
    fn close(&mut self, id: &str, input: Option<&Value>) -> Option<String> {
        let title = input
            .filter(|input| self.open(id).is_some_and(|call| call.input() != *input))
            .and_then(|input| self.title_for(id, Some(input)));
        self.tracker.extras.remove(id);
        title
    }
}
