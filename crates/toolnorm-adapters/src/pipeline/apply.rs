//! Applying canonical events: the fold, the counts, and the steps the caller sees.

use toolnorm::{
    AnyToolCall, Error as FoldError, Fold, MetadataMerged, Outcome, ToolEvent, ToolState,
};

use super::cap::{self, RecentCuts};
use super::{Stats, Step};
use crate::diagnostic::{Diagnostic, DiagnosticKind};
use crate::track::Sink;

/// The normalizer's side of the tracker for one input line: each event is applied to
/// the fold as it is made and reported to the caller; diagnostics wait for the end of
/// the line (the normalizer may still rewrite them).
pub(crate) struct Applier<'a> {
    /// The stream's dialect.
    pub dialect: crate::Dialect,
    pub fold: &'a mut Fold,
    pub stats: &'a mut Stats,
    /// Hand each applied event to the caller.
    pub keep_events: bool,
    /// Metadata merged into every `toolCallStarted`.
    pub start_metadata: &'a toolnorm::JsonObject,
    /// The line's diagnostics.
    pub diagnostics: &'a mut Vec<Diagnostic>,
    /// Events made from the line so far.
    pub events: u64,
    pub on_step: &'a mut dyn FnMut(Step<'_>),
    /// The cap on final output, when it is cut too.
    pub final_cap: Option<usize>,
    /// The strings cut from long lines, for the full size of a cut output.
    pub recent: &'a mut RecentCuts,
    /// The version of the agent that wrote the stream, once a line said it.
    pub agent_version: &'a mut Option<String>,
}

impl Applier<'_> {
    fn apply_one(&mut self, line: u64, mut event: ToolEvent) {
        if let ToolEvent::ToolCallStarted(started) = &mut event
            && !self.start_metadata.is_empty()
        {
            let metadata = started.metadata.get_or_insert_with(Default::default);
            for (key, value) in self.start_metadata {
                metadata.insert(key.clone(), value.clone());
            }
        }
        self.events += 1;
        self.stats.events += 1;
        let kept = self.keep_events.then(|| event.clone());
        match self.fold.apply(event) {
            Ok(update) => {
                if update.outcome == Outcome::Unchanged {
                    self.stats.duplicates += 1;
                    return;
                }
                self.stats.changes += 1;
                (self.on_step)(Step::Applied {
                    line,
                    dialect: self.dialect,
                    agent_version: self.agent_version.as_deref(),
                    event: kept.as_ref(),
                    update: &update,
                });
            }
            Err(error) => {
                // `AlreadyFinished` (a late event for an evicted call) is a rejection too.
                let kind = match error {
                    FoldError::UnknownCall { .. } => DiagnosticKind::UnknownCall,
                    _ => DiagnosticKind::Rejected,
                };
                self.diagnostics
                    .push(Diagnostic::at(line, kind, error.to_string()));
            }
        }
    }
}

impl Sink for Applier<'_> {
    /// With a cap on final output, a terminal event's output is cut, and the flags that
    /// say so go to the call's metadata just before it ends.
    fn apply(&mut self, line: u64, mut event: ToolEvent) {
        if let Some(cap) = self.final_cap
            && let Some(flags) = cap::cut_final(&mut event, cap, self.recent)
            && self
                .fold
                .get(event.id())
                .is_some_and(|call| !call.is_terminal())
        {
            let merged = MetadataMerged {
                id: event.id().to_owned(),
                metadata: flags,
                at: None,
            };
            self.apply_one(line, ToolEvent::MetadataMerged(merged));
        }
        self.apply_one(line, event);
    }

    fn unchanged(&mut self) {
        self.events += 1;
        self.stats.events += 1;
        self.stats.duplicates += 1;
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
            None => self.fold.finished(id),
        }
    }

    fn agent_version(&mut self, version: &str) {
        if self.agent_version.as_deref() != Some(version) {
            *self.agent_version = Some(version.to_owned());
        }
    }

    fn open_ids(&self) -> Vec<String> {
        self.fold
            .calls()
            .filter(|call| !call.is_terminal())
            .map(|call| call.id().to_owned())
            .collect()
    }
}
