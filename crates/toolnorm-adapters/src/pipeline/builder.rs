//! [`NormalizerBuilder`]: how a [`Normalizer`] runs.

use std::io::Write;

use super::Normalizer;
use crate::Dialect;
use crate::adapter::Adapter;
use crate::rules::TitleRules;

/// What the normalizer is set to do.
pub(crate) struct Settings {
    /// The input dialect; `None` detects it from the first lines.
    pub dialect: Option<Dialect>,
    /// An adapter the engine brought (it wins over `dialect`).
    pub adapter: Option<Box<dyn Adapter + Send>>,
    /// The cap on partial output a running call keeps, in bytes.
    pub output_cap: usize,
    /// The final output is cut to the cap too (and long lines are read cut).
    pub cap_final_output: bool,
    /// Drop calls from memory once they are terminal (after reporting them).
    pub evict_finished: bool,
    /// Pass each applied event to the callback (costs a copy per event).
    pub keep_events: bool,
    /// Title and kind rules (user rules first, then the built-in ones).
    pub rules: TitleRules,
    /// MCP server names, for providers that prefix tool names with them (OpenCode).
    pub mcp_servers: Vec<String>,
    /// The session's working directory, until the stream names its own.
    pub cwd: Option<String>,
    /// Redacts secrets from every event, diagnostic and audit line.
    pub redactor: Option<std::sync::Arc<crate::Redactor>>,
    /// The audit copy gets the lines as read, even when redacting.
    pub audit_raw: bool,
    /// Where lines that produced a diagnostic are copied.
    pub audit: Option<Box<dyn Write + Send>>,
    /// Metadata every call starts with.
    pub metadata: toolnorm::JsonObject,
}

/// Sets up a [`Normalizer`]: start from [`Normalizer::builder`] (or
/// [`Normalizer::with_adapter`]), set what differs from the defaults, then
/// [`build`](NormalizerBuilder::build).
///
/// ```
/// use toolnorm_adapters::{Dialect, Normalizer};
///
/// let normalizer = Normalizer::builder()
///     .dialect(Dialect::CLAUDE_CODE)
///     .output_cap(64 * 1024)
///     .evict_finished(true)
///     .build();
/// assert_eq!(normalizer.dialect(), Some(Dialect::CLAUDE_CODE));
/// ```
#[must_use]
pub struct NormalizerBuilder {
    settings: Settings,
}

impl Default for NormalizerBuilder {
    fn default() -> Self {
        NormalizerBuilder {
            settings: Settings {
                dialect: None,
                adapter: None,
                output_cap: toolnorm::DEFAULT_OUTPUT_CAP,
                cap_final_output: false,
                evict_finished: false,
                keep_events: false,
                rules: TitleRules::builtin(),
                mcp_servers: Vec::new(),
                cwd: None,
                redactor: None,
                audit_raw: false,
                audit: None,
                metadata: toolnorm::JsonObject::new(),
            },
        }
    }
}

impl NormalizerBuilder {
    /// The input dialect (default: detected from the first lines; `None` detects too).
    pub fn dialect(mut self, dialect: impl Into<Option<Dialect>>) -> Self {
        self.settings.dialect = dialect.into();
        self
    }

    /// Reads the input with this adapter: a dialect of the engine's own.
    pub fn adapter(mut self, adapter: impl Adapter + Send + 'static) -> Self {
        self.settings.adapter = Some(Box::new(adapter));
        self
    }

    /// The cap, in bytes, on the partial output a running call keeps (default 1 MiB).
    pub fn output_cap(mut self, bytes: usize) -> Self {
        self.settings.output_cap = bytes;
        self
    }

    /// Cuts the final output to the [output cap](Self::output_cap) too (default: off, the
    /// output a call ends with is passed whole, as the provider gave it). Each string of
    /// a completion's output, and of a failure's message and details, longer than the cap
    /// keeps its first `cap` bytes, and the call's metadata says so (`outputTruncated`,
    /// `outputTotalBytes`, the size in full, `outputCapBytes`), set just before the call
    /// ends. A line longer than 1 MiB is then read as a stream, each of its strings kept
    /// to the cap plus 64 KiB, so one huge output costs about the cap in memory.
    pub fn cap_final_output(mut self, cut: bool) -> Self {
        self.settings.cap_final_output = cut;
        self
    }

    /// Drops each call from memory once it is terminal and reported, so memory stays
    /// flat however long the stream (default: keep every call, for
    /// [`Normalizer::fold`]). A late event for a dropped call is still reported.
    pub fn evict_finished(mut self, evict: bool) -> Self {
        self.settings.evict_finished = evict;
        self
    }

    /// Hands each applied event to the callback too (costs a copy per event).
    pub fn keep_events(mut self, keep: bool) -> Self {
        self.settings.keep_events = keep;
        self
    }

    /// The title and kind rules (default: [`TitleRules::builtin`]).
    pub fn rules(mut self, rules: TitleRules) -> Self {
        self.settings.rules = rules;
        self
    }

    /// MCP server names, for providers that prefix tool names with them (OpenCode's
    /// `<server>_<tool>`).
    pub fn mcp_servers<S: Into<String>>(mut self, servers: impl IntoIterator<Item = S>) -> Self {
        self.settings.mcp_servers = servers.into_iter().map(Into::into).collect();
        self
    }

    /// The working directory the session ran in, for paths in titles shown relative to
    /// it, when the stream does not say (`codex exec --json` and `opencode run` never do;
    /// a directory the stream names wins).
    pub fn cwd(mut self, cwd: impl Into<String>) -> Self {
        self.settings.cwd = Some(cwd.into());
        self
    }

    /// Redacts secrets with `redactor` (default: none): every event is redacted as it is
    /// made, before the fold, so every output format sees only redacted text, and so do
    /// the diagnostics and the audit copy (see [`Redactor`](crate::Redactor)).
    pub fn redact(mut self, redactor: crate::Redactor) -> Self {
        self.settings.redactor = Some(std::sync::Arc::new(redactor));
        self
    }

    /// With [`redact`](Self::redact): the audit copy gets the lines as they were read,
    /// secrets included (default: redacted like everything else). For someone who must
    /// see the raw line to fix a reader; the audit file then holds the secrets.
    pub fn audit_raw(mut self, raw: bool) -> Self {
        self.settings.audit_raw = raw;
        self
    }

    /// Copies every input line that produces a diagnostic to `out`, verbatim, as
    /// `N<TAB>line<LF>` (`N` the 1-based line number), each line once, in input order.
    pub fn audit_to(mut self, out: Box<dyn Write + Send>) -> Self {
        self.settings.audit = Some(out);
        self
    }

    /// Sets `key` in the metadata of every call, from its start (merged into each
    /// `toolCallStarted` before it is applied, so every format carries it, the event log
    /// too): e.g. `source`, the file a call was read from, when many are read at once.
    pub fn metadata(mut self, key: impl Into<String>, value: impl Into<serde_json::Value>) -> Self {
        self.settings.metadata.insert(key.into(), value.into());
        self
    }

    /// The normalizer.
    pub fn build(self) -> Normalizer {
        Normalizer::from_settings(self.settings)
    }
}
