//! The canonical event log as an input dialect: one `ToolEvent` per line.

use std::borrow::Cow;

use serde::Deserialize;
use serde::de::DeserializeOwned;
use toolnorm::{
    ApprovalRequested, ApprovalResolved, InputUpdated, MetadataMerged, OutputAppended,
    TitleUpdated, ToolCallCompleted, ToolCallFailed, ToolCallRunning, ToolCallStarted, ToolEvent,
};

use crate::Dialect;
use crate::adapter::Adapter;
use crate::dialects::{DEFAULT_RULES, Entry};
use crate::read::json;
use crate::track::Facts;

use crate::read::line_keys::LineKeys;

/// The dialect this module reads.
pub(crate) const DIALECT: Dialect = Dialect::new("events", "toolnorm");

impl Dialect {
    /// toolnorm's own canonical event log.
    pub const EVENTS: Dialect = DIALECT;
}

/// Its row of the dialect table.
pub(crate) const ENTRY: Entry = Entry {
    dialect: DIALECT,
    summary: "toolnorm's own event log (`--format events`)",
    feature: "",
    rules: DEFAULT_RULES,
    claims,
    adapter: |_| Box::new(EventLogAdapter),
    read_ahead: None,
    recordings: &[],
    agent_version: "",
    stores: &[],
};

/// The canonical event types.
const EVENT_TYPES: &[&str] = &[
    "toolCallStarted",
    "inputUpdated",
    "titleUpdated",
    "metadataMerged",
    "toolCallRunning",
    "outputAppended",
    "toolCallCompleted",
    "toolCallFailed",
];

/// Whether a line is a canonical event.
pub(crate) fn claims(keys: &LineKeys<'_>) -> bool {
    !keys.has("method")
        && !keys.has("payload")
        && keys
            .kind()
            .as_deref()
            .is_some_and(|kind| EVENT_TYPES.contains(&kind))
}

/// Reads toolnorm's own event log (what `--format events` writes).
#[derive(Debug, Default)]
pub struct EventLogAdapter;

impl Adapter for EventLogAdapter {
    fn dialect(&self) -> Dialect {
        DIALECT
    }

    fn line(&mut self, line: u64, bytes: &[u8], out: &mut Facts<'_>) {
        if let Some(event) = direct(bytes) {
            return out.event(line, event);
        }
        match json::parse_line::<ToolEvent>(line, bytes, "not a toolnorm event") {
            Ok(event) => out.event(line, event),
            Err(diagnostic) => out.diagnostic(diagnostic),
        }
    }
}

/// The event read as the struct its `type` names: the same event as reading a
/// [`ToolEvent`], without serde's buffering of every field of an internally tagged enum
/// (a copy of the whole line). `None` when that fails: the full read then says why.
fn direct(bytes: &[u8]) -> Option<ToolEvent> {
    #[derive(Deserialize)]
    struct Tag<'a> {
        #[serde(borrow, rename = "type")]
        kind: Cow<'a, str>,
    }
    fn read<T: DeserializeOwned + Into<ToolEvent>>(text: &str) -> Option<ToolEvent> {
        serde_json::from_str::<T>(text).ok().map(Into::into)
    }
    // UTF-8 checked once here, not again for every string read below.
    let text = crate::read::utf8::text(bytes)?;
    let kind = match json::leading_type(bytes) {
        Some(kind) => Cow::Borrowed(kind),
        None => serde_json::from_str::<Tag<'_>>(text).ok()?.kind,
    };
    match kind.as_ref() {
        "toolCallStarted" => read::<ToolCallStarted>(text),
        "inputUpdated" => read::<InputUpdated>(text),
        "titleUpdated" => read::<TitleUpdated>(text),
        "metadataMerged" => read::<MetadataMerged>(text),
        "toolCallRunning" => read::<ToolCallRunning>(text),
        "outputAppended" => read::<OutputAppended>(text),
        "toolCallCompleted" => read::<ToolCallCompleted>(text),
        "toolCallFailed" => read::<ToolCallFailed>(text),
        "approvalRequested" => read::<ApprovalRequested>(text),
        "approvalResolved" => read::<ApprovalResolved>(text),
        _ => None,
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn direct_reading_gives_the_event_of_the_tagged_reading() {
        let lines = [
            r#"{"type":"toolCallStarted","id":"a","name":"Bash","kind":"bash","title":"ls","input":{"command":"ls"},"metadata":{"x":1},"at":"2026-01-01T00:00:00Z"}"#,
            r#"{"type":"inputUpdated","id":"a","input":[1,{"b":null}],"at":5}"#,
            r#"{"type":"titleUpdated","id":"a","title":"t"}"#,
            r#"{"type":"metadataMerged","id":"a","metadata":{"k":"v"}}"#,
            r#"{"type":"toolCallRunning","id":"a"}"#,
            r#"{"type":"outputAppended","id":"a","offset":3,"chunk":"x\ny"}"#,
            r#"{"type":"toolCallCompleted","id":"a","output":null}"#,
            r#"{"type":"toolCallCompleted","id":"a","output":{"o":1},"input":{},"title":"z"}"#,
            r#"{"type":"toolCallFailed","id":"a","error":{"message":"m","code":"c","details":[1]}}"#,
            r#"{"type":"approvalRequested","id":"a","reason":"Delete?","options":[{"id":"y","label":"Yes","decision":"approved","scope":"once"}],"at":7}"#,
            r#"{"type":"approvalResolved","id":"a","decision":"denied","decidedBy":"user","feedback":"no"}"#,
        ];
        for line in lines {
            let tagged: ToolEvent = serde_json::from_str(line).unwrap();
            assert_eq!(direct(line.as_bytes()), Some(tagged), "{line}");
        }
        for line in [
            r#"{"type":"toolCallRunning"}"#,
            r#"{"type":"nope","id":"a"}"#,
            r#"{"id":"a"}"#,
            r#"{"type":"toolCallRunning","type":"toolCallRunning","id":"a"}"#,
            r#"{"type":"toolCallRunning","id":"a","type":"toolCallStarted"}"#,
            r#"{"type":"toolCallRunning","id":"a""#,
        ] {
            assert_eq!(direct(line.as_bytes()), None, "{line}");
            assert!(serde_json::from_str::<ToolEvent>(line).is_err(), "{line}");
        }
    }
}
