//! The dialects toolnorm reads: one folder each, and the one [`TABLE`] that lists them.
//!
//! A dialect's folder owns everything about it: its reader (an
//! [`Adapter`](crate::Adapter) that tells the [`Facts`](crate::Facts) of each line what
//! happened to which call), its `claims` over a line's top-level keys, its rules file
//! (`rules.toml`: the kind and title of each of its tools), the raw call ids its fixtures
//! hold (`call_ids.toml`, for the tests), and its row of the table (`ENTRY`, with its
//! [`Dialect`] constant).
//!
//! Adding a dialect takes its folder, its row in [`TABLE`], its cargo feature (in
//! `Cargo.toml`, listed by `all-dialects`), and, when it has pinned wire schemas, their
//! entry in the codegen's source list. Detection, [`Dialect::all`], the command line's
//! `--provider` values, the fuzz targets, the property tests and the recorder's list of
//! sources all read the table; tests check the feature list and the codegen's sources
//! against it.

// One cargo feature per dialect folder (the table's rows carry the same gates); the
// event log is always read.
#[cfg(feature = "acp")]
pub(crate) mod acp;
#[cfg(feature = "amp")]
pub(crate) mod amp;
#[cfg(test)]
pub(crate) mod claim_checks;
#[cfg(feature = "claude-code")]
pub(crate) mod claude_code;
#[cfg(feature = "cline")]
pub(crate) mod cline;
#[cfg(feature = "cline-sdk")]
pub(crate) mod cline_sdk;
#[cfg(feature = "codex")]
pub(crate) mod codex;
#[cfg(feature = "continue-cli")]
pub(crate) mod continue_cli;
#[cfg(feature = "copilot")]
pub(crate) mod copilot;
#[cfg(feature = "crush")]
pub(crate) mod crush;
#[cfg(feature = "cursor")]
pub(crate) mod cursor;
#[cfg(feature = "droid")]
pub(crate) mod droid;
pub(crate) mod event_log;
#[cfg(feature = "gemini-cli")]
pub(crate) mod gemini_cli;
#[cfg(feature = "goose")]
pub(crate) mod goose;
#[cfg(feature = "grok")]
pub(crate) mod grok;
#[cfg(feature = "kimi")]
pub(crate) mod kimi;
#[cfg(feature = "opencode")]
pub(crate) mod opencode;
#[cfg(feature = "openhands")]
pub(crate) mod openhands;
#[cfg(feature = "pi")]
pub(crate) mod pi;
#[cfg(feature = "qwen-code")]
pub(crate) mod qwen_code;
pub(crate) mod read_ahead;
#[cfg(feature = "vibe")]
pub(crate) mod vibe;
// The tests name every dialect: they run with all of them.
#[cfg(all(test, feature = "all-dialects"))]
mod tests;

use crate::Dialect;
use crate::adapter::{Adapter, AdapterOptions};
use crate::read::line_keys::LineKeys;
use crate::rules::TitleRules;

/// One dialect: how to recognise its lines and how to read them.
pub(crate) struct Entry {
    /// Its name and provider.
    pub dialect: Dialect,
    /// One line for people (`--help`).
    pub summary: &'static str,
    /// The cargo feature that builds it (empty for the event log, always built).
    pub feature: &'static str,
    /// Its rules file, as `(origin, TOML text)`.
    pub rules: (&'static str, &'static str),
    /// Whether a line is one of its own (the first row that claims a line decides).
    pub claims: fn(&LineKeys<'_>) -> bool,
    /// A fresh adapter.
    pub adapter: fn(&AdapterOptions) -> Box<dyn Adapter + Send>,
    /// What of a line its adapter can read ahead of it, on another thread (see
    /// [`read_ahead`]); `None` for a dialect read line by line only.
    pub read_ahead: Option<read_ahead::ReadAhead>,
    /// The recorder's sources that record this dialect from the real CLIs (each names
    /// a driver of `toolnorm-record`; a source may record several dialects); empty for
    /// dialects no CLI writes.
    pub recordings: &'static [&'static str],
    /// Where its lines say the version of the agent that wrote them (`Facts::agent_version`),
    /// for people; empty when they do not say it (a test holds each to its recordings).
    pub agent_version: &'static str,
    /// Where its agent keeps session files of this dialect by default (none for a
    /// stream only, or a store that is not files of its own).
    pub stores: &'static [crate::Store],
}

/// The generic rules, after every dialect's own.
pub(crate) const DEFAULT_RULES: (&str, &str) = (
    "rules/default.toml",
    include_str!("../../rules/default.toml"),
);

/// Every dialect toolnorm reads. Each line is claimed by at most one of them (a test
/// checks it on every fixture), so the order is the one people see in `--help`. Each
/// dialect's row is there when its cargo feature is on.
pub(crate) const TABLE: &[Entry] = &[
    #[cfg(feature = "claude-code")]
    claude_code::ENTRY,
    #[cfg(feature = "codex")]
    codex::app_server::ENTRY,
    #[cfg(feature = "codex")]
    codex::exec::ENTRY,
    #[cfg(feature = "codex")]
    codex::rollout::ENTRY,
    #[cfg(feature = "opencode")]
    opencode::ENTRY,
    #[cfg(feature = "opencode")]
    opencode::export::ENTRY,
    #[cfg(feature = "acp")]
    acp::ENTRY,
    #[cfg(feature = "gemini-cli")]
    gemini_cli::ENTRY,
    #[cfg(feature = "qwen-code")]
    qwen_code::ENTRY,
    #[cfg(feature = "qwen-code")]
    qwen_code::session::ENTRY,
    #[cfg(feature = "cursor")]
    cursor::ENTRY,
    #[cfg(feature = "amp")]
    amp::ENTRY,
    #[cfg(feature = "cline")]
    cline::ENTRY,
    #[cfg(feature = "cline")]
    cline::task::ENTRY,
    #[cfg(feature = "cline-sdk")]
    cline_sdk::ENTRY,
    #[cfg(feature = "cline-sdk")]
    cline_sdk::session::ENTRY,
    #[cfg(feature = "droid")]
    droid::ENTRY,
    #[cfg(feature = "droid")]
    droid::session::ENTRY,
    #[cfg(feature = "droid")]
    droid::rpc::ENTRY,
    #[cfg(feature = "copilot")]
    copilot::ENTRY,
    #[cfg(feature = "pi")]
    pi::ENTRY,
    #[cfg(feature = "pi")]
    pi::session::ENTRY,
    #[cfg(feature = "grok")]
    grok::ENTRY,
    #[cfg(feature = "grok")]
    grok::session::ENTRY,
    #[cfg(feature = "kimi")]
    kimi::ENTRY,
    #[cfg(feature = "kimi")]
    kimi::wire_log::ENTRY,
    #[cfg(feature = "vibe")]
    vibe::ENTRY,
    #[cfg(feature = "vibe")]
    vibe::journal::ENTRY,
    #[cfg(feature = "goose")]
    goose::ENTRY,
    #[cfg(feature = "goose")]
    goose::session::ENTRY,
    #[cfg(feature = "continue-cli")]
    continue_cli::ENTRY,
    #[cfg(feature = "openhands")]
    openhands::ENTRY,
    #[cfg(feature = "openhands")]
    openhands::sdk::ENTRY,
    #[cfg(feature = "crush")]
    crush::ENTRY,
    event_log::ENTRY,
];

impl Dialect {
    /// Every dialect toolnorm reads, in the table's order.
    pub fn all() -> impl Iterator<Item = Dialect> {
        TABLE.iter().map(|entry| entry.dialect)
    }

    /// The dialect with this command-line name, among those toolnorm reads.
    pub fn from_name(name: &str) -> Option<Dialect> {
        Dialect::all().find(|dialect| dialect.as_str() == name)
    }

    /// A line's worth of help about the dialect, for toolnorm's own dialects.
    pub fn summary(self) -> Option<&'static str> {
        entry(self).map(|entry| entry.summary)
    }

    /// Where the agent keeps session files of this dialect by default: what `toolnorm
    /// sessions` looks for under a home folder. Empty for a dialect only streamed.
    pub fn stores(self) -> &'static [crate::Store] {
        entry(self).map_or(&[], |entry| entry.stores)
    }

    /// Where the dialect's lines say the version of the agent that wrote them (what the
    /// `otel` format's `toolnorm.agent.version` comes from), for people; `None` when they
    /// do not say it.
    pub fn agent_version_source(self) -> Option<&'static str> {
        entry(self)
            .map(|entry| entry.agent_version)
            .filter(|source| !source.is_empty())
    }

    /// The cargo feature of `toolnorm-adapters` that builds this dialect's reader, e.g.
    /// `codex` for each Codex dialect; empty for the event log (every build reads it)
    /// and for a dialect an engine names itself.
    pub fn feature(&self) -> &'static str {
        entry(*self).map_or("", |entry| entry.feature)
    }
}

impl TitleRules {
    /// The built-in rules: each dialect's rules file in the table's order, then
    /// `rules/default.toml`. They compile when first used, once per process: a reader
    /// of one dialect compiles only the files of its provider.
    pub fn builtin() -> Self {
        static SOURCES: crate::rules::LazyBuiltin = crate::rules::LazyBuiltin {
            whole: builtin_rules,
            provider_files: builtin_rules_files_of,
        };
        // One lazy set, copied: its copies share what it compiled.
        static BUILTIN: std::sync::OnceLock<TitleRules> = std::sync::OnceLock::new();
        BUILTIN
            .get_or_init(|| TitleRules::lazy_builtin(&SOURCES))
            .clone()
    }
}

/// The whole built-in rule set, compiled once per process.
pub(crate) fn builtin_rules() -> &'static TitleRules {
    static BUILTIN: std::sync::OnceLock<TitleRules> = std::sync::OnceLock::new();
    BUILTIN.get_or_init(|| TitleRules::from_sources_that_parse(&rules_files()))
}

/// The built-in rules of the files that can hold `provider`'s rules (its dialects' files,
/// each holding its provider's rules only: tested) and the generic ones.
fn builtin_rules_files_of(provider: &str) -> TitleRules {
    TitleRules::from_sources_that_parse(&rules_files_for(provider))
}

/// The built-in rules files that hold `provider`'s rules, then the generic ones.
fn rules_files_for(provider: &str) -> Vec<(&'static str, &'static str)> {
    let own = |file: &(&str, &str)| {
        TABLE
            .iter()
            .any(|entry| entry.rules == *file && entry.dialect.provider() == provider)
    };
    rules_files()
        .into_iter()
        .filter(|file| *file == DEFAULT_RULES || own(file))
        .collect()
}

/// The table's row of a dialect toolnorm reads.
pub(crate) fn entry(dialect: Dialect) -> Option<&'static Entry> {
    TABLE.iter().find(|entry| entry.dialect == dialect)
}

/// The dialect one line belongs to, if it says: the first row that claims it.
///
/// A claim is evidence, not a verdict: when a [`Normalizer`](crate::Normalizer) detects
/// a stream's dialect, the dialect that claims a line is taken only once it understands
/// one of the first lines ([`DETECTION_WINDOW`](crate::DETECTION_WINDOW)); a dialect
/// whose claimed lines are all events it does not know is rejected for that stream
/// ([`Normalizer::rejected`](crate::Normalizer::rejected)).
pub fn detect_line(bytes: &[u8]) -> Option<Dialect> {
    claimant(bytes, &[])
}

/// The first row of the table, among those not `excluded`, that claims a line. A line
/// that is an array is claimed only by the dialects that read arrays, on its first item.
pub(crate) fn claimant(bytes: &[u8], excluded: &[Dialect]) -> Option<Dialect> {
    let candidates = TABLE
        .iter()
        .filter(|entry| !excluded.contains(&entry.dialect));
    if let Some(keys) = LineKeys::of(bytes) {
        return candidates
            .into_iter()
            .find(|entry| (entry.claims)(&keys))
            .map(|entry| entry.dialect);
    }
    let keys = LineKeys::of_array_head(bytes)?;
    candidates
        .filter(|entry| ARRAY_DOCUMENTS.contains(&entry.dialect))
        .find(|entry| (entry.claims)(&keys))
        .map(|entry| entry.dialect)
}

/// The dialects whose files are one JSON array (a line holding an array is offered
/// only to them, with the keys of its first item).
const ARRAY_DOCUMENTS: &[Dialect] = &[
    #[cfg(feature = "cline")]
    cline::task::DIALECT,
    #[cfg(feature = "openhands")]
    openhands::DIALECT,
];

/// The recorder's sources, each with the dialect it records, in the table's order.
pub fn recordings() -> impl Iterator<Item = (&'static str, Dialect)> {
    TABLE.iter().flat_map(|entry| {
        entry
            .recordings
            .iter()
            .map(move |source| (*source, entry.dialect))
    })
}

/// The built-in rules files: each dialect's, then the generic ones, once each.
pub(crate) fn rules_files() -> Vec<(&'static str, &'static str)> {
    let mut files: Vec<(&str, &str)> = Vec::new();
    for entry in TABLE {
        if entry.rules != DEFAULT_RULES && !files.contains(&entry.rules) {
            files.push(entry.rules);
        }
    }
    files.push(DEFAULT_RULES);
    files
}
