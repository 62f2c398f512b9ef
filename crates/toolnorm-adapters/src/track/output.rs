//! Streamed output: chunks at their offsets, output resent whole, and what redaction
//! held back.

use std::borrow::Cow;

use serde_json::Value;
use toolnorm::{AnyToolCall, OutputAppended};

use super::Facts;

impl Facts<'_> {
    /// Bytes of output an open call has streamed so far (the offset of its next chunk).
    pub fn streamed(&self, id: &str) -> u64 {
        let id = self.part_id(id);
        let id: &str = &id;
        match self.open(id) {
            Some(AnyToolCall::Running(call)) => call.streamed_output().total_bytes(),
            _ => 0,
        }
    }

    /// A chunk of streamed output for a call (`outputAppended` at the right offset; for a
    /// call never started the fold reports it).
    pub fn output(&mut self, line: u64, id: &str, chunk: &str) {
        self.append(line, id, chunk, false);
    }

    /// At the end of the stream: the streamed output still held back (while redacting,
    /// until a line ends) goes out, for the calls still open.
    pub(crate) fn release_held(&mut self, line: u64) {
        let Some(redaction) = self.tracker.redaction.as_mut() else {
            return;
        };
        for (id, text) in redaction.take_held() {
            if self.is_open(&id) {
                self.append(line, &id, &text, true);
            }
        }
    }

    /// `outputAppended` of `chunk` (`redacted`: the chunk is redacted already).
    fn append(&mut self, line: u64, id: &str, chunk: &str, redacted: bool) {
        let id = self.part_id(id);
        let id: &str = &id;
        let offset = self.streamed(id);
        let event = OutputAppended {
            id: id.to_owned(),
            offset,
            chunk: chunk.to_owned(),
            at: None,
        };
        self.emit_event(line, event.into(), redacted);
    }

    /// The whole output so far, as a provider that resends it reports it: what extends the
    /// output already streamed is appended; a text that does not extend it (the provider
    /// cut or rewrote it) is left for the final output. When redacting, the text is
    /// redacted whole first, and compared so.
    pub fn streamed_text(&mut self, line: u64, id: &str, text: &str) {
        let id = self.part_id(id);
        let id: &str = &id;
        if !self.is_open(id) {
            return;
        }
        let redacting = self.tracker.redaction.is_some();
        let text = match &self.tracker.redaction {
            Some(redaction) => redaction.redact_text(text),
            None => Cow::Borrowed(text),
        };
        let (seen, extends) = match self.open(id) {
            // The kept output is a prefix of all that was streamed: the text must begin
            // with it to extend it.
            Some(AnyToolCall::Running(call)) => {
                let streamed = call.streamed_output();
                (streamed.total_bytes(), text.starts_with(streamed.text()))
            }
            _ => (0, true),
        };
        let Ok(seen) = usize::try_from(seen) else {
            return;
        };
        if let Some(fresh) = text
            .get(seen..)
            .filter(|fresh| extends && !fresh.is_empty())
        {
            let fresh = fresh.to_owned();
            self.append(line, id, &fresh, redacting);
        }
    }
}

/// The text of an output or a tool result's content: the string, or the text of its
/// content blocks joined by newlines; `None` for anything else.
pub fn content_text(content: &Value) -> Option<String> {
    match content {
        Value::String(text) => Some(text.clone()),
        Value::Array(blocks) => {
            let texts: Vec<&str> = blocks
                .iter()
                .filter_map(|block| block.get("text").and_then(Value::as_str))
                .collect();
            (!texts.is_empty()).then(|| texts.join("\n"))
        }
        _ => None,
    }
}
