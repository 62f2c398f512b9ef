//! [`Dialect`]: a name for what a stream speaks.

use std::fmt;

/// An input dialect: the wire format of one provider's stream (for example Claude Code
/// stream-json, or `codex exec --json`).
///
/// The dialects toolnorm reads are listed by [`Dialect::all`], each one an entry of the
/// provider registry (and a constant such as [`Dialect::CLAUDE_CODE`]); an engine names
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

    /// Every dialect toolnorm reads, in the provider registry's order.
    pub fn all() -> impl Iterator<Item = Dialect> {
        crate::registry::ENTRIES.iter().map(|entry| entry.dialect)
    }

    /// The dialect with this command-line name, among those toolnorm reads.
    pub fn from_name(name: &str) -> Option<Dialect> {
        Dialect::all().find(|dialect| dialect.as_str() == name)
    }

    /// A line's worth of help about the dialect, for toolnorm's own dialects.
    pub fn summary(self) -> Option<&'static str> {
        crate::registry::entry(self).map(|entry| entry.summary)
    }

    /// The cargo feature of `toolnorm-adapters` that compiles this dialect's reader, e.g.
    /// `codex` for the three Codex dialects: each built-in provider's feature is named as
    /// the provider. Empty for the event log, which is always read, and for a dialect
    /// toolnorm does not read itself.
    pub fn feature(&self) -> &'static str {
        match crate::registry::entry(*self) {
            Some(_) if *self != Dialect::EVENTS => self.provider,
            _ => "",
        }
    }
}

impl fmt::Display for Dialect {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.name)
    }
}
