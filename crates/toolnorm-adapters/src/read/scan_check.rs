//! Test support for the readers that read a line in one scan and fall back to reading it
//! field by field: a switch that turns every scan off on this thread, and the check that
//! both readings give the same events and diagnostics.

use crate::dialects::claim_checks::recordings_where;
use crate::{Dialect, Normalizer, Step};
use std::cell::Cell;

thread_local! {
    /// Whether this thread's adapters read every line field by field (no scan).
    static FIELD_BY_FIELD: Cell<bool> = const { Cell::new(false) };
}

/// Whether the scans are off on this thread (a reader's scan gives up when they are).
pub(crate) fn field_by_field() -> bool {
    FIELD_BY_FIELD.with(Cell::get)
}

/// Every event and diagnostic of `text` read as `dialect`, as written, with the scans on
/// or off.
fn steps(dialect: Dialect, text: &[u8], field_by_field: bool) -> Vec<String> {
    FIELD_BY_FIELD.with(|cell| cell.set(field_by_field));
    let mut normalizer = Normalizer::builder()
        .dialect(dialect)
        .keep_events(true)
        .build();
    let mut seen = Vec::new();
    let mut on_step = |step: Step<'_>| match step {
        Step::Applied { line, event, .. } => {
            seen.push(format!(
                "{line}: {}",
                serde_json::to_string(&event).unwrap()
            ));
        }
        Step::Diagnostic(diagnostic) => seen.push(diagnostic.to_string()),
    };
    normalizer.push(text, &mut on_step);
    normalizer.finish(&mut on_step);
    FIELD_BY_FIELD.with(|cell| cell.set(false));
    seen
}

/// Reads `text` as `dialect` with the scans on and off, asserts the two give the same
/// events and diagnostics (`what` names the text when they do not), and returns them.
pub(crate) fn read_alike(dialect: Dialect, text: &[u8], what: &str) -> Vec<String> {
    let scanned = steps(dialect, text, false);
    assert_eq!(scanned, steps(dialect, text, true), "{what}");
    scanned
}

/// Reads every recording under the fixture folders `folder` accepts as `dialect` both
/// ways, asserts the two give the same, and returns how many files it read.
pub(crate) fn recordings_read_alike(dialect: Dialect, folder: impl Fn(&str) -> bool) -> usize {
    let files = recordings_where(folder);
    for file in &files {
        let text = std::fs::read(file).unwrap();
        read_alike(dialect, &text, &file.display().to_string());
    }
    files.len()
}

/// How many of `steps` mention `what`.
pub(crate) fn told(steps: &[String], what: &str) -> usize {
    steps.iter().filter(|step| step.contains(what)).count()
}
