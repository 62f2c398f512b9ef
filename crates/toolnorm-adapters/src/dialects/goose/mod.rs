//! Goose (Block's agent): `goose run --output-format stream-json` (and `--output-format
//! json`); and its session files
//! (`session`, the `goose-session` dialect).
//!
//! Both carry Goose's `Message` (`{"id", "role", "created", "content": [items],
//! "metadata"}`), whose tool items `messages` reads. The stream prints each message the
//! agent yields as it comes, wrapped, with the run's other events around them
//! (`StreamEvent` of `crates/goose-cli/src/session/mod.rs`, since 1.18):
//!
//! | line | canonical events |
//! | --- | --- |
//! | `{"type":"message","message":{…}}` | its content's tool items (`messages`) |
//! | `{"type":"notification","extension_id",…}`, `{"type":"model_change","model","mode"}`, `{"type":"complete","total_tokens"}` | (known, nothing about tools) |
//! | `{"type":"error","error"}` | (known: the run failed; its open calls stay open to the end of the input) |
//!
//! `goose run --output-format json` prints one document once the run is over,
//! `{"messages": [Message…], "metadata": {"total_tokens", "status"}}` (`JsonOutput`),
//! indented (the pipeline joins its lines): each message is read in turn.
//!
//! Goose is written in Rust and publishes no schema of these: the readers use serde
//! structs of their own (`wire`). No release of Goose is on a registry this project
//! reaches, so the fixtures are written from its source, not recorded.

use crate::Dialect;
use crate::adapter::Adapter;
use crate::diagnostic::{Diagnostic, DiagnosticKind};
use crate::dialects::Entry;
use crate::read::json::{self, OneScan};
use crate::read::line_keys::LineKeys;
use crate::track::Facts;

mod messages;
mod outcome;
mod result_value;
pub(crate) mod session;
#[cfg(test)]
mod tests;
mod wire;

use serde_json::value::RawValue;
use wire::{ContentItem, Item, StreamLine};

/// The dialect: `goose run --output-format stream-json`.
pub(crate) const DIALECT: Dialect = Dialect::new("goose", "goose");

/// Its rules file (the kind and title of each of its tools), as `(origin, TOML text)`.
pub(crate) const RULES: (&str, &str) =
    ("src/dialects/goose/rules.toml", include_str!("rules.toml"));

impl Dialect {
    /// Goose's `goose run --output-format stream-json` events.
    pub const GOOSE: Dialect = DIALECT;
}

/// Its row of the dialect table.
pub(crate) const ENTRY: Entry = Entry {
    dialect: DIALECT,
    summary: "Goose `goose run --output-format stream-json` events (and `json`)",
    feature: "goose",
    rules: RULES,
    claims,
    adapter: |_| Box::new(GooseStreamAdapter),
    // Not recorded: `fixtures/goose/` holds a sample written from Goose's source.
    read_ahead: None,
    recordings: &[],
    agent_version: "",
    stores: &[],
};

/// The stream's events that carry nothing about a call.
const KNOWN: &[&str] = &["notification", "model_change", "complete", "error"];

/// Whether a line is one of Goose's stream events, by what only Goose writes: a
/// `message` event whose message has Goose's `created` and its visibility metadata
/// (`userVisible`), or a `notification` naming its extension (`extension_id`); or the
/// `json` document: `messages` beside a `metadata` with a `status`, the messages with
/// Goose's visibility metadata.
pub(crate) fn claims(keys: &LineKeys<'_>) -> bool {
    match keys.kind().as_deref() {
        Some("message") => keys.raw("message").is_some_and(|raw| {
            raw.contains(r#""created":"#) && raw.contains(r#""metadata":{"userVisible":"#)
        }),
        Some("notification") => keys.has("extension_id"),
        Some(_) => false,
        None => {
            keys.object_has("metadata", "status")
                && keys
                    .raw("messages")
                    .is_some_and(|raw| raw.starts_with('[') && raw.contains(r#""userVisible""#))
        }
    }
}

/// Reads `goose run --output-format stream-json` output.
#[derive(Debug, Default)]
pub struct GooseStreamAdapter;

impl Adapter for GooseStreamAdapter {
    fn dialect(&self) -> Dialect {
        DIALECT
    }

    fn line(&mut self, line: u64, bytes: &[u8], facts: &mut Facts<'_>) {
        match json::read_in_one_scan::<StreamLine<Item>, StreamLine<&RawValue>>(
            line,
            bytes,
            "not a Goose stream event",
        ) {
            Ok(OneScan::InPlace(event)) => apply(line, event, facts),
            Ok(OneScan::Apart(event)) => apply(line, event, facts),
            Err(diagnostic) => facts.diagnostic(diagnostic),
        }
    }
}

/// A stream line's events: its messages' content items.
fn apply<C: ContentItem>(line: u64, event: StreamLine<C>, facts: &mut Facts<'_>) {
    let Some(kind) = event.kind else {
        // The `json` document: the run's messages, once it is over.
        let Some(all) = event.messages else {
            return facts.diagnostic(Diagnostic::notice(
                line,
                DiagnosticKind::UnknownEvent,
                "a Goose line that is neither a stream event nor the `json` document",
            ));
        };
        for message in all {
            messages::content(line, message.content, facts);
        }
        return;
    };
    match &*kind {
        "message" => match event.message {
            Some(message) => messages::content(line, message.content, facts),
            None => facts.diagnostic(Diagnostic::at(
                line,
                DiagnosticKind::MalformedEvent,
                "a Goose message event without its message",
            )),
        },
        known if KNOWN.contains(&known) => {}
        other => {
            facts.diagnostic(Diagnostic::notice(
                line,
                DiagnosticKind::UnknownEvent,
                format!("a Goose stream event of unknown type `{other}`"),
            ));
            // Nothing tool-like is dropped.
            if let Some(message) = event.message {
                messages::content(line, message.content, facts);
            }
        }
    }
}
