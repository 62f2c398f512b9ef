//! Provider adapters: the tool events of agent CLIs into toolnorm's canonical lifecycle.
//!
//! Each dialect has an [`Adapter`] that turns its lines into canonical
//! [`ToolEvent`](toolnorm::ToolEvent)s; the [`Normalizer`] runs one over a stream (detecting
//! the dialect from the first lines unless told), folds the events into parts and reports
//! each change and each diagnostic; [`output`] writes the changes in the CLI's formats.
#![deny(missing_docs)]
// Input data never panics the library: no unwrap, expect, panic or unchecked indexing.
#![deny(
    clippy::unwrap_used,
    clippy::expect_used,
    clippy::panic,
    clippy::indexing_slicing
)]

mod acp;
mod diagnostic;
mod emit;
mod error;
mod pipeline;
mod providers;
mod read;
mod rules;
mod track;

use std::fmt;

pub use diagnostic::{Diagnostic, DiagnosticKind};
pub use emit::{AcpEmitter, AcpOptions, Format, Writer};
pub use error::Error;
pub use pipeline::detect::{DETECTION_WINDOW, detect_line};
pub use pipeline::{Normalizer, Options, Stats, Step};
pub use providers::acp::AcpAdapter;
pub use providers::claude_code::ClaudeCodeAdapter;
pub use providers::codex::{CodexAppServerAdapter, CodexExecAdapter};
pub use providers::event_log::EventLogAdapter;
pub use providers::opencode::OpenCodeAdapter;
pub use providers::{Adapter, Emitted};
pub use rules::{TitleRules, ToolRef};

/// An input dialect.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
#[non_exhaustive]
pub enum Dialect {
    /// Claude Code `--output-format stream-json`, and its session transcripts.
    ClaudeCode,
    /// `codex app-server` (JSON-RPC, protocol v2).
    CodexAppServer,
    /// `codex exec --json`.
    CodexExec,
    /// OpenCode: `opencode serve` events (plain or `/global/event`), `opencode run --format json`.
    OpenCode,
    /// toolnorm's own canonical event log.
    Events,
    /// Agent Client Protocol v1 JSON-RPC, as a client sees it.
    Acp,
}

impl Dialect {
    /// Every dialect.
    pub const ALL: &[Dialect] = &[
        Dialect::ClaudeCode,
        Dialect::CodexAppServer,
        Dialect::CodexExec,
        Dialect::OpenCode,
        Dialect::Events,
        Dialect::Acp,
    ];

    /// The name used on the command line, e.g. `claude-code`.
    pub fn as_str(self) -> &'static str {
        match self {
            Dialect::ClaudeCode => "claude-code",
            Dialect::CodexAppServer => "codex-app-server",
            Dialect::CodexExec => "codex-exec",
            Dialect::OpenCode => "opencode",
            Dialect::Events => "events",
            Dialect::Acp => "acp",
        }
    }

    /// The dialect with this command-line name.
    pub fn from_name(name: &str) -> Option<Dialect> {
        Dialect::ALL
            .iter()
            .copied()
            .find(|dialect| dialect.as_str() == name)
    }
}

impl fmt::Display for Dialect {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.as_str())
    }
}

/// A fresh adapter for `dialect`.
pub fn adapter_for(dialect: Dialect, options: &Options) -> Box<dyn Adapter + Send> {
    let rules = std::sync::Arc::new(options.rules.clone());
    match dialect {
        Dialect::ClaudeCode => Box::new(ClaudeCodeAdapter::new(rules)),
        Dialect::CodexAppServer => Box::new(CodexAppServerAdapter::new(rules)),
        Dialect::CodexExec => Box::new(CodexExecAdapter::new(rules)),
        Dialect::OpenCode => Box::new(OpenCodeAdapter::new(rules, options.mcp_servers.clone())),
        Dialect::Events => Box::new(EventLogAdapter),
        Dialect::Acp => Box::new(AcpAdapter::new(options.mcp_servers.clone())),
    }
}

/// The README's Rust examples, compiled and run as doctests.
#[cfg(doctest)]
#[doc = include_str!("../../../README.md")]
struct ReadmeExamples;
