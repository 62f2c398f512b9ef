//! The id of a rollout `web_search_call` written without one (as older Codex releases
//! write it).

use serde_json::Value;

use super::At;
use super::response::known;
use crate::diagnostic::{Diagnostic, DiagnosticKind};
use crate::dialects::codex::items::Items;
use crate::track::Facts;

/// The id of a `web_search_call` written without one (as older Codex releases write
/// it): the web search the file told of before with the same action, whose own
/// `web_search_call` has not come (the same call again: `None`, it is known); else a new
/// call with the id `web_search_call@<line>` (its line in the file, so a file read again
/// gives it the same id), with a notice.
pub(super) fn read(
    at: &At<'_>,
    action: Option<&Value>,
    items: &mut Items,
    out: &mut Facts<'_>,
) -> Option<String> {
    if let Some(seen) = items.search_without_id(action) {
        return (!known(&seen, out)).then_some(seen);
    }
    let id = format!("web_search_call@{}", at.line);
    out.diagnostic(Diagnostic::notice(
        at.line,
        DiagnosticKind::MalformedEvent,
        format!("a `web_search_call` without an id, read as call `{id}`"),
    ));
    Some(id)
}
