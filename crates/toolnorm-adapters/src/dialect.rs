//! [`Dialect`]: a name for what a stream speaks.

use std::fmt;

/// An input dialect: the wire format of one provider's stream (for example Claude Code
/// stream-json, or `codex exec --json`).
///
/// The dialects toolnorm reads are listed by [`Dialect::all`], each one a row of the
/// dialect table (and a constant such as [`Dialect::CLAUDE_CODE`]); an engine names
/// its own with [`Dialect::new`] for an [`Adapter`](crate::Adapter) it plugs in.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub struct Dialect {
    name: &'static str,
    provider: &'static str,
}

impl Dialect {
    /// A dialect named `name` (its command-line name, e.g. `claude-code`) whose calls
    /// belong to `provider` (the name that rules match and `metadata.provider` shows; two
    /// dialects of one provider, like Codex's, share it).
    pub const fn new(name: &'static str, provider: &'static str) -> Self {
        Dialect { name, provider }
    }

    /// The name used on the command line, e.g. `claude-code`.
    pub const fn as_str(self) -> &'static str {
        self.name
    }

    /// The provider whose calls this dialect carries, e.g. `codex` for both Codex dialects.
    pub const fn provider(self) -> &'static str {
        self.provider
    }
}

impl fmt::Display for Dialect {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.name)
    }
}
