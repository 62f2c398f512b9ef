//! The partial output of a running call, kept up to a cap.

use std::fmt;

use serde_json::Value;

use crate::meta;
use crate::part::JsonObject;

/// Default bound, in bytes, on the partial output a running call keeps (1 MiB).
pub const DEFAULT_OUTPUT_CAP: usize = 1 << 20;

/// Partial output of a running call, kept up to a cap.
#[derive(Clone, PartialEq, Default)]
pub struct StreamedOutput {
    pub(super) kept: String,
    pub(super) total_bytes: u64,
    cap: usize,
}

impl StreamedOutput {
    pub(super) fn with_cap(cap: usize) -> Self {
        StreamedOutput {
            kept: String::new(),
            total_bytes: 0,
            cap,
        }
    }

    /// The output kept so far (at most the cap, cut on a character boundary).
    pub fn text(&self) -> &str {
        &self.kept
    }

    /// How many bytes were received in all, kept or not.
    pub fn total_bytes(&self) -> u64 {
        self.total_bytes
    }

    /// The most bytes kept.
    pub fn cap(&self) -> usize {
        self.cap
    }

    /// Whether some received output was not kept.
    pub fn is_truncated(&self) -> bool {
        self.total_bytes > self.kept.len() as u64
    }

    /// Counts the chunk and keeps what fits under the cap, cut on a character boundary.
    /// Once anything was dropped, later chunks are dropped too, so the kept text stays a
    /// prefix of the output.
    pub(super) fn push(&mut self, chunk: &str) {
        let truncated = self.is_truncated();
        self.total_bytes = self.total_bytes.saturating_add(chunk.len() as u64);
        if truncated {
            return;
        }
        let room = self.cap.saturating_sub(self.kept.len());
        let fits = chunk.floor_char_boundary(room);
        self.kept.push_str(chunk.get(..fits).unwrap_or_default());
    }

    pub(super) fn write_truncation_flags(&self, metadata: &mut JsonObject) {
        if self.is_truncated() {
            metadata.insert(meta::OUTPUT_TRUNCATED.into(), Value::Bool(true));
            metadata.insert(meta::OUTPUT_TOTAL_BYTES.into(), self.total_bytes.into());
            metadata.insert(meta::OUTPUT_CAP_BYTES.into(), self.cap.into());
        }
    }
}

impl fmt::Debug for StreamedOutput {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("StreamedOutput")
            .field("kept_bytes", &self.kept.len())
            .field("total_bytes", &self.total_bytes)
            .field("cap", &self.cap)
            .finish()
    }
}
