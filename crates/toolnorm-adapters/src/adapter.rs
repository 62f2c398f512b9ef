//! [`Adapter`]: what reads one dialect, line by line, into facts about tool calls, and
//! the options the normalizer hands a built-in one.

use std::any::Any;

use crate::Dialect;
use crate::track::Facts;

/// Reads one dialect, line by line, into facts about tool calls.
///
/// An adapter keeps only what it needs to relate later lines to earlier ones (for
/// example which subagent task belongs to which call), never the whole stream: what the
/// calls are (name, title, input, output so far) is held by the fold, and read back
/// through [`Facts`].
///
/// Engines plug in a dialect of their own with
/// [`NormalizerBuilder::adapter`](crate::NormalizerBuilder::adapter).
pub trait Adapter: Any {
    /// The dialect this adapter reads.
    fn dialect(&self) -> Dialect;

    /// Reads one input line (without its newline). Every line is used, or reported
    /// with a diagnostic: never dropped in silence.
    fn line(&mut self, line: u64, bytes: &[u8], facts: &mut Facts<'_>);

    /// The input ended.
    fn finish(&mut self, _facts: &mut Facts<'_>) {}
}

/// What a built-in dialect's adapter may need from the normalizer's options.
#[derive(Debug, Clone, Default)]
pub(crate) struct AdapterOptions {
    /// MCP server names, for dialects that prefix tool names with them (OpenCode).
    pub mcp_servers: Vec<String>,
}
