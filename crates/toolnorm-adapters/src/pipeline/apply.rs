//! Applying canonical events: the fold, the counts, and the steps the caller sees.

use toolnorm::{AnyToolCall, Error as FoldError, Fold, Outcome, ToolEvent, ToolState};

use super::finished::Finished;
use super::{Stats, Step};
use crate::diagnostic::{Diagnostic, DiagnosticKind};
use crate::track::Sink;

/// The normalizer's side of the tracker for one input line: each event is applied to
/// the fold as it is made and reported to the caller; diagnostics wait for the end of
/// the line (the normalizer may still rewrite them).
pub(crate) struct Applier<'a> {
    pub fold: &'a mut Fold,
    pub finished: &'a mut Finished,
    pub stats: &'a mut Stats,
    /// Drop calls from the fold once they are terminal.
    pub evict: bool,
    /// Hand each applied event to the caller.
    pub keep_events: bool,
    /// The line's diagnostics.
    pub diagnostics: &'a mut Vec<Diagnostic>,
    /// Events made from the line so far.
    pub events: u64,
    pub on_step: &'a mut dyn FnMut(Step<'_>),
}

impl Sink for Applier<'_> {
    fn apply(&mut self, line: u64, event: ToolEvent) {
        self.events += 1;
        self.stats.events += 1;
        if let Some(state) = self.finished.get(event.id()) {
            let message = format!(
                "tool call `{}` already finished ({state}): {} ignored",
                event.id(),
                event.type_name()
            );
            self.diagnostics
                .push(Diagnostic::at(line, DiagnosticKind::Rejected, message));
            return;
        }
        let kept = self.keep_events.then(|| event.clone());
        let finished = match self.fold.apply(event) {
            Ok(update) => {
                if update.outcome == Outcome::Unchanged {
                    self.stats.duplicates += 1;
                    return;
                }
                self.stats.changes += 1;
                (self.on_step)(Step::Applied {
                    line,
                    event: kept.as_ref(),
                    update: &update,
                });
                update
                    .call
                    .is_terminal()
                    .then(|| (update.call.id().to_owned(), update.call.state()))
            }
            Err(error) => {
                let kind = match error {
                    FoldError::UnknownCall { .. } => DiagnosticKind::UnknownCall,
                    _ => DiagnosticKind::Rejected,
                };
                self.diagnostics
                    .push(Diagnostic::at(line, kind, error.to_string()));
                None
            }
        };
        if let Some((id, state)) = finished.filter(|_| self.evict) {
            self.fold.remove(&id);
            self.finished.insert(&id, state);
        }
    }

    fn call(&self, id: &str) -> Option<&AnyToolCall> {
        self.fold.get(id)
    }

    fn diagnostic(&mut self, diagnostic: Diagnostic) {
        self.diagnostics.push(diagnostic);
    }

    fn finished(&self, id: &str) -> Option<ToolState> {
        match self.fold.get(id) {
            Some(call) => call.is_terminal().then(|| call.state()),
            None => self.finished.get(id),
        }
    }
}
