//! Providers: each dialect's wire data read into facts about its tool calls.
//!
//! A provider module knows its wire format and the correlation only it owns (threads,
//! tasks, approvals, streamed blocks); it tells the [`Facts`] of each line what happened
//! to which call, and the tracker makes the canonical events. Which providers exist is
//! the [registry](crate::registry)'s business.

// One cargo feature per provider (the registry's entries carry the same gates); the
// event log is always read.
#[cfg(feature = "acp")]
pub(crate) mod acp;
#[cfg(feature = "claude-code")]
pub(crate) mod claude_code;
#[cfg(feature = "codex")]
pub(crate) mod codex;
pub(crate) mod event_log;
#[cfg(feature = "gemini-cli")]
pub(crate) mod gemini_cli;
#[cfg(feature = "opencode")]
pub(crate) mod opencode;
#[cfg(feature = "qwen-code")]
pub(crate) mod qwen_code;

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
pub trait Adapter {
    /// The dialect this adapter reads.
    fn dialect(&self) -> Dialect;

    /// Reads one input line (without its newline). Every line is used, or reported
    /// with a diagnostic: never dropped in silence.
    fn line(&mut self, line: u64, bytes: &[u8], facts: &mut Facts<'_>);

    /// The input ended.
    fn finish(&mut self, _facts: &mut Facts<'_>) {}
}

/// What a provider's adapter may need from the normalizer's options.
#[derive(Debug, Clone, Default)]
pub(crate) struct ProviderOptions {
    /// MCP server names, for providers that prefix tool names with them (OpenCode).
    pub mcp_servers: Vec<String>,
}
