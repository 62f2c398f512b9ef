//! The pipeline: bytes in, canonical events folded into parts, changes out.
//!
//! [`Normalizer`] splits input into lines (chunks may be cut anywhere), detects the
//! dialect from the first lines unless told (a dialect that claims a line must understand
//! one of the first lines, see [`DETECTION_WINDOW`]), hands each line to the provider's adapter,
//! whose facts the tracker turns into events, applies them to a [`Fold`] and reports
//! every change and every diagnostic to a callback, in input order. It holds only open
//! calls when asked to drop finished ones, so memory stays flat however long the stream.

mod ahead;
mod apply;
mod audit;
mod builder;
mod cap;
mod detect;
mod document;
mod glued;

use std::io;
use std::sync::Arc;

use toolnorm::{Fold, ToolEvent, Update};

pub use builder::NormalizerBuilder;

use crate::Dialect;
use crate::adapter::{Adapter, AdapterOptions};
use crate::diagnostic::{Diagnostic, DiagnosticKind};
use crate::dialects::read_ahead::{ReadAhead, Scanner};
use crate::dialects::{self, detect_line};
use crate::read::encoding::Decoding;
use crate::read::lines::Lines;
use crate::read::log_line::LogLines;
use crate::read::surrogates;
use crate::rules::TitleRules;
use crate::track::{Facts, Tracker};
pub(crate) use ahead::{Ahead, Filled, ScannedBatch};
use apply::Applier;
use audit::Audit;
use builder::Settings;
use cap::RecentCuts;
use detect::Detection;
use document::{Document, Take};

/// How many lines are read, at most, before giving up on detection: the lines no dialect
/// claims are reported once this many wait, and a dialect that claimed a line is rejected
/// for the stream when this many lines from that one on are all missed (none gives an
/// event or is one it knows; see [`Normalizer::rejected`]).
pub const DETECTION_WINDOW: usize = 32;

/// What the normalizer reports, in input order.
#[derive(Debug)]
pub enum Step<'a> {
    /// An event applied and changed (or created) a part.
    Applied {
        /// The input line the event came from.
        line: u64,
        /// The stream's dialect (known once a line of it was applied).
        dialect: Dialect,
        /// The version of the agent that wrote the stream, once a line said it.
        agent_version: Option<&'a str>,
        /// The event, when [`NormalizerBuilder::keep_events`] is set.
        event: Option<&'a ToolEvent>,
        /// The part after the event.
        update: &'a Update<'a>,
    },
    /// Something in the input could not be used.
    Diagnostic(&'a Diagnostic),
}

/// Counts of what went through.
///
/// Every input line is counted in exactly one of `applied_lines`, `known_lines`,
/// `notice_lines` and `error_lines`, decided once the adapter has read it: a line with
/// an error diagnostic is an error line; else one with a notice is a notice line; else
/// one that gave an event is applied; else it is known (see
/// [`accounted_lines`](Stats::accounted_lines)).
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
#[non_exhaustive]
pub struct Stats {
    /// Input lines read.
    pub lines: u64,
    /// Lines that gave at least one event that changed a part, or a duplicate.
    pub applied_lines: u64,
    /// Lines the dialect knows that carry no tool data, skipped on purpose (a Claude
    /// Code `summary`, a Codex `turn/started`, a blank line …).
    pub known_lines: u64,
    /// Lines with a notice and no error: well-formed events this version does not know.
    pub notice_lines: u64,
    /// Lines with an error: not used, and they may have carried tool data.
    pub error_lines: u64,
    /// Canonical events produced by the adapter.
    pub events: u64,
    /// Events that changed a part.
    pub changes: u64,
    /// Exact duplicates (applied, changed nothing).
    pub duplicates: u64,
    /// Diagnostics reported (`errors` + `notices`).
    pub diagnostics: u64,
    /// Diagnostics of [`Severity::Error`](crate::Severity::Error) reported.
    pub errors: u64,
    /// Diagnostics of [`Severity::Notice`](crate::Severity::Notice) reported.
    pub notices: u64,
}

impl Stats {
    /// The lines counted in one of the four classes; equal to `lines` once the input
    /// has been read to its end.
    pub fn accounted_lines(&self) -> u64 {
        self.applied_lines + self.known_lines + self.notice_lines + self.error_lines
    }
}

enum Stage {
    /// The dialect is not known yet: the first lines wait for it (see [`detect`]).
    Detecting(Detection),
    /// Lines go to the adapter; its facts to the tracker.
    Ready(Box<dyn Adapter + Send>, Box<Tracker>),
}

struct Core {
    stage: Stage,
    /// What the adapter can read of a line ahead of it, when it is a built-in dialect's
    /// that can.
    read_ahead: Option<ReadAhead>,
    setup: TrackerSetup,
    adapter_options: AdapterOptions,
    keep_events: bool,
    /// Metadata every call starts with ([`NormalizerBuilder::metadata`]).
    start_metadata: toolnorm::JsonObject,
    fold: Fold,
    /// The diagnostics of the line being read (kept to reuse the buffer).
    diagnostics: Vec<Diagnostic>,
    stats: Stats,
    audit: Option<Audit>,
    /// The cap on final output, when it is cut too.
    final_cap: Option<usize>,
    /// The strings cut from long lines lately.
    recent: RecentCuts,
    /// Tells the lines a logger or the agent's runtime wrote among the events.
    log_lines: LogLines,
    /// The version of the agent that wrote the stream, once a line said it.
    agent_version: Option<String>,
    /// An indented JSON document being read (`opencode export`): its lines so far.
    document: Document,
    /// The dialects that claimed lines of this stream but understood none of them (see
    /// [`detect`]).
    rejected: Vec<Dialect>,
}

/// `N lines: A applied, K known non-tool, N notices, E errors` (the line classes).
impl std::fmt::Display for Stats {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        let count = |n: u64, what: &str| match n {
            1 => format!("1 {what}"),
            n => format!("{n} {what}s"),
        };
        write!(
            f,
            "{}: {} applied, {} known non-tool, {}, {}",
            count(self.lines, "line"),
            self.applied_lines,
            self.known_lines,
            count(self.notice_lines, "notice"),
            count(self.error_lines, "error")
        )
    }
}

/// Normalizes one stream.
///
/// Feed it bytes with [`push`](Normalizer::push) as they come (cut anywhere), then call
/// [`finish`](Normalizer::finish); each applied change and each diagnostic reaches the
/// callback as a [`Step`] as soon as its line is read.
///
/// ```
/// use toolnorm_adapters::{Normalizer, Step};
///
/// let stream = concat!(
///     r#"{"type":"item.started","item":{"id":"item_0","type":"command_execution","command":"ls","aggregated_output":"","status":"in_progress"}}"#, "\n",
///     r#"{"type":"item.completed","item":{"id":"item_0","type":"command_execution","command":"ls","aggregated_output":"a.txt\n","exit_code":0,"status":"completed"}}"#, "\n",
/// );
/// let mut normalizer = Normalizer::builder().build();
/// let mut states = Vec::new();
/// let mut on_step = |step: Step<'_>| {
///     if let Step::Applied { update, .. } = step {
///         states.push(update.call.state());
///     }
/// };
/// normalizer.push(stream.as_bytes(), &mut on_step);
/// normalizer.finish(&mut on_step);
/// assert_eq!(normalizer.dialect().map(|d| d.as_str()), Some("codex-exec"));
/// let part = &normalizer.fold().parts()[0];
/// assert_eq!((part.title.as_str(), part.state.as_str()), ("ls", "complete"));
/// ```
pub struct Normalizer {
    /// The input's encoding: UTF-8 passed through, UTF-16 read as UTF-8.
    decoding: Decoding,
    lines: Lines,
    core: Core,
}

impl Default for Normalizer {
    fn default() -> Self {
        Normalizer::builder().build()
    }
}

impl Normalizer {
    /// A normalizer with the default settings: the dialect detected, every call kept.
    pub fn new() -> Self {
        Normalizer::default()
    }

    /// Sets up a normalizer.
    pub fn builder() -> NormalizerBuilder {
        NormalizerBuilder::default()
    }

    /// Sets up a normalizer that reads with `adapter`, a dialect of the engine's own
    /// (see the crate's `custom_dialect` example).
    pub fn with_adapter(adapter: impl Adapter + Send + 'static) -> NormalizerBuilder {
        NormalizerBuilder::default().adapter(adapter)
    }

    fn from_settings(settings: Settings) -> Self {
        let adapter_options = AdapterOptions {
            mcp_servers: settings.mcp_servers,
        };
        let setup = TrackerSetup {
            rules: settings.rules,
            cwd: settings.cwd,
            redactor: settings.redactor,
            audit_raw: settings.audit_raw,
        };
        let mut read_ahead = None;
        let stage = match (settings.adapter, settings.dialect) {
            (Some(adapter), _) => ready(adapter, &setup),
            (None, Some(dialect)) => match dialects::entry(dialect) {
                Some(entry) => {
                    read_ahead = entry.read_ahead;
                    ready((entry.adapter)(&adapter_options), &setup)
                }
                None => Stage::Detecting(Detection::default()),
            },
            (None, None) => Stage::Detecting(Detection::default()),
        };
        let final_cap = settings.cap_final_output.then_some(settings.output_cap);
        let lines = match final_cap {
            Some(cap) => Lines::cutting(cap.saturating_add(cap::MARGIN)),
            None => Lines::new(),
        };
        Normalizer {
            decoding: Decoding::default(),
            lines,
            core: Core {
                stage,
                read_ahead,
                setup,
                adapter_options,
                keep_events: settings.keep_events,
                start_metadata: settings.metadata,
                fold: Fold::builder()
                    .output_cap(settings.output_cap)
                    .evict_finished(settings.evict_finished)
                    .build(),
                diagnostics: Vec::new(),
                stats: Stats::default(),
                audit: settings.audit.map(Audit::new),
                final_cap,
                recent: RecentCuts::default(),
                log_lines: LogLines::default(),
                agent_version: None,
                document: Document::default(),
                rejected: Vec::new(),
            },
        }
    }

    /// Flushes the audit output; the first error writing it, if any.
    pub fn finish_audit(&mut self) -> io::Result<()> {
        match self.core.audit.as_mut() {
            None => Ok(()),
            Some(audit) => audit.finish(),
        }
    }

    /// Feeds a chunk of input.
    pub fn push(&mut self, chunk: &[u8], on_step: &mut dyn FnMut(Step<'_>)) {
        self.push_ahead(chunk, &mut Ahead::none(), on_step);
    }

    /// Feeds a chunk of input whose lines were read ahead (each is taken from `ahead`
    /// when it comes as it was read).
    pub(crate) fn push_ahead(
        &mut self,
        chunk: &[u8],
        ahead: &mut Ahead<'_>,
        on_step: &mut dyn FnMut(Step<'_>),
    ) {
        let Normalizer {
            decoding,
            lines,
            core,
        } = self;
        decoding.push(chunk, |text| {
            lines.push(text, |line, bytes, cuts| {
                core.recent.add(cuts);
                core.line(line, bytes, false, ahead, on_step);
            });
        });
    }

    /// Ends the input: reads a last line without newline, flushes detection and the adapter.
    pub fn finish(&mut self, on_step: &mut dyn FnMut(Step<'_>)) {
        let Normalizer {
            decoding,
            lines,
            core,
        } = self;
        let ahead = &mut Ahead::none();
        decoding.finish(|text| {
            lines.push(text, |line, bytes, cuts| {
                core.recent.add(cuts);
                core.line(line, bytes, false, ahead, on_step);
            });
        });
        lines.finish(|line, bytes, cuts| {
            core.recent.add(cuts);
            core.line(line, bytes, true, ahead, on_step);
        });
        core.flush_document(on_step);
        core.end_detection(on_step);
        let last = core.stats.lines;
        core.read(None, on_step, |adapter, facts| {
            adapter.finish(facts);
            facts.release_held(last);
        });
    }

    /// The version of the agent that wrote the stream, once a line said it (Claude
    /// Code's `claude_code_version`, a Codex rollout's `cli_version`, an ACP agent's
    /// `agentInfo.version`, …).
    pub fn agent_version(&self) -> Option<&str> {
        self.core.agent_version.as_deref()
    }

    /// The directory the session ran in, once a line said it (or as `--cwd` gave it):
    /// what paths in titles are made relative to.
    pub fn cwd(&self) -> Option<&str> {
        match &self.core.stage {
            Stage::Ready(_, tracker) => tracker.cwd(),
            Stage::Detecting(_) => None,
        }
    }

    /// What the adapter can read of a line ahead of it, on another thread, if anything.
    pub(crate) fn read_ahead(&self) -> Option<Scanner> {
        self.core.read_ahead.map(|read_ahead| read_ahead.scan)
    }

    /// The dialect, once known.
    pub fn dialect(&self) -> Option<Dialect> {
        match &self.core.stage {
            Stage::Ready(adapter, _) => Some(adapter.dialect()),
            Stage::Detecting(_) => None,
        }
    }

    /// The dialects that claimed lines of the input but understood none of their first
    /// lines, and so were not taken for its dialect (see [`DETECTION_WINDOW`]): a file of
    /// an agent toolnorm does not read that looked like one it does.
    pub fn rejected(&self) -> &[Dialect] {
        &self.core.rejected
    }

    /// The fold: the calls still held (all of them, unless finished ones are evicted).
    pub fn fold(&self) -> &Fold {
        &self.core.fold
    }

    /// Counts so far.
    pub fn stats(&self) -> Stats {
        self.core.stats
    }
}

/// `a` or `an`, as said before `name` (`an opencode`, `a codex-exec`).
fn article(name: &str) -> &'static str {
    match name.chars().next() {
        Some('a' | 'e' | 'i' | 'o' | 'u') => "an",
        _ => "a",
    }
}

fn ready(adapter: Box<dyn Adapter + Send>, setup: &TrackerSetup) -> Stage {
    let mut tracker = Box::new(Tracker::new(adapter.dialect().provider(), &setup.rules));
    if let Some(cwd) = &setup.cwd {
        tracker.set_cwd(cwd);
    }
    if let Some(redactor) = &setup.redactor {
        tracker.redact(redactor.clone());
    }
    Stage::Ready(adapter, tracker)
}

/// What each tracker is set up with (the one made at once, or once the dialect is
/// detected).
struct TrackerSetup {
    rules: TitleRules,
    /// The working directory the builder was given.
    cwd: Option<String>,
    /// The redactor the builder was given.
    redactor: Option<Arc<crate::Redactor>>,
    /// The audit copy gets the lines as read, even when redacting.
    audit_raw: bool,
}

impl Core {
    fn line(
        &mut self,
        line: u64,
        bytes: &[u8],
        last: bool,
        ahead: &mut Ahead<'_>,
        on_step: &mut dyn FnMut(Step<'_>),
    ) {
        self.stats.lines = line;
        match self.document.take(line, bytes) {
            Take::Line => self.whole_line(line, bytes, last, ahead, on_step),
            Take::Held if last => self.flush_document(on_step),
            Take::Held => {}
            Take::Closed {
                first,
                joined,
                inside,
            } => {
                self.stats.known_lines += inside;
                self.whole_line(first, &joined, last, ahead, on_step);
            }
            Take::Broken(held) => {
                for (number, held) in held {
                    self.whole_line(number, &held, false, ahead, on_step);
                }
                // The line that broke the document off may open another.
                self.line(line, bytes, last, ahead, on_step);
            }
        }
        // The line's steps are handed out: a call it finished goes now, not at the next
        // event (lines that carry none, such as the copies of a result some agents write
        // after it, are read without it).
        self.fold.drop_evicted();
    }

    /// The lines of a document the input ended in, each read on its own.
    fn flush_document(&mut self, on_step: &mut dyn FnMut(Step<'_>)) {
        if !self.document.is_open() {
            return;
        }
        for (number, held) in self.document.flush() {
            self.whole_line(number, &held, false, &mut Ahead::none(), on_step);
        }
    }

    /// Reads one line, or one document joined into a line.
    fn whole_line(
        &mut self,
        line: u64,
        bytes: &[u8],
        last: bool,
        ahead: &mut Ahead<'_>,
        on_step: &mut dyn FnMut(Step<'_>),
    ) {
        // A blank line carries nothing: it is skipped (and still counted).
        // So is a logger's line among the events (an agent's logs captured with them).
        if bytes.iter().all(u8::is_ascii_whitespace) || self.log_lines.take(bytes) {
            self.stats.known_lines += 1;
            return;
        }
        if last
            && serde_json::from_slice::<serde::de::IgnoredAny>(bytes)
                .is_err_and(|error| error.is_eof())
        {
            self.diagnostics.push(Diagnostic::at(
                line,
                DiagnosticKind::TruncatedLine,
                "the input ends in the middle of this line",
            ));
            self.classify(0);
            self.report(Some((line, bytes)), on_step);
            return;
        }
        self.detect(line, bytes, ahead, on_step);
    }

    /// Has the adapter read one line (with what was read of it ahead, if anything), then
    /// reports the line's diagnostics.
    fn read_line(
        &mut self,
        line: u64,
        bytes: &[u8],
        ahead: &mut Ahead<'_>,
        on_step: &mut dyn FnMut(Step<'_>),
    ) {
        // A line read ahead was found whole there (`ahead::scan_lines`).
        let scanned = ahead.take(bytes).zip(self.read_ahead);
        let repaired = match scanned {
            Some(_) => None,
            None => surrogates::repair(bytes),
        };
        let read_bytes = match &repaired {
            Some(repaired) => {
                self.diagnostics.push(Diagnostic::notice(
                    line,
                    DiagnosticKind::LoneSurrogate,
                    format!(
                        "lone UTF-16 surrogate {} read as U+FFFD",
                        repaired.replaced.join(", ")
                    ),
                ));
                &repaired.bytes
            }
            None => bytes,
        };
        let mut events = self.read(
            Some((line, read_bytes)),
            on_step,
            |adapter, facts| match scanned {
                Some((scanned, read_ahead)) => {
                    (read_ahead.line)(adapter, line, read_bytes, scanned, facts)
                }
                None => adapter.line(line, read_bytes, facts),
            },
        );
        if events == 0 {
            events = self.read_glued(line, read_bytes, on_step).unwrap_or(events);
        }
        self.foreign_dialect(line, read_bytes, events);
        self.classify(events);
        self.report(Some((line, bytes)), on_step);
    }

    /// Runs `read` on the adapter with the facts of this line; the number of events made.
    fn read(
        &mut self,
        source: Option<(u64, &[u8])>,
        on_step: &mut dyn FnMut(Step<'_>),
        read: impl FnOnce(&mut dyn Adapter, &mut Facts<'_>),
    ) -> u64 {
        let Stage::Ready(adapter, tracker) = &mut self.stage else {
            return 0;
        };
        let dialect = adapter.dialect();
        let mut applier = Applier {
            dialect,
            fold: &mut self.fold,
            stats: &mut self.stats,
            keep_events: self.keep_events,
            start_metadata: &self.start_metadata,
            diagnostics: &mut self.diagnostics,
            events: 0,
            on_step,
            final_cap: self.final_cap,
            recent: &mut self.recent,
            agent_version: &mut self.agent_version,
        };
        read(adapter.as_mut(), &mut Facts::new(tracker, &mut applier));
        let events = applier.events;
        if source.is_none() {
            self.report(None, on_step);
        }
        events
    }

    /// When a line gave no event and only says it is not of the stream's dialect, but it
    /// is an event of another dialect, its diagnostics become one `foreign-dialect`.
    fn foreign_dialect(&mut self, line: u64, bytes: &[u8], events: u64) {
        // A lone surrogate's notice is about the bytes, whatever the dialect: kept.
        let mut said = self
            .diagnostics
            .iter()
            .filter(|diagnostic| diagnostic.kind != DiagnosticKind::LoneSurrogate)
            .peekable();
        let rejected = events == 0
            && said.peek().is_some()
            && said.all(|diagnostic| {
                matches!(
                    diagnostic.kind,
                    DiagnosticKind::UnknownEvent | DiagnosticKind::MalformedEvent
                )
            });
        let Stage::Ready(adapter, _) = &self.stage else {
            return;
        };
        if !rejected {
            return;
        }
        let ours = adapter.dialect();
        if let Some(theirs) = detect_line(bytes).filter(|theirs| *theirs != ours) {
            self.diagnostics
                .retain(|diagnostic| diagnostic.kind == DiagnosticKind::LoneSurrogate);
            self.diagnostics.push(Diagnostic::at(
                line,
                DiagnosticKind::ForeignDialect,
                format!(
                    "{} `{theirs}` event in {} `{ours}` stream, ignored",
                    article(theirs.as_str()),
                    article(ours.as_str())
                ),
            ));
        }
    }

    /// Counts the line just read, which gave `events` events, in its class (see
    /// [`Stats`]); its diagnostics are still waiting.
    fn classify(&mut self, events: u64) {
        let class = if self.diagnostics.iter().any(Diagnostic::is_error) {
            &mut self.stats.error_lines
        } else if !self.diagnostics.is_empty() {
            &mut self.stats.notice_lines
        } else if events > 0 {
            &mut self.stats.applied_lines
        } else {
            &mut self.stats.known_lines
        };
        *class += 1;
    }

    /// Reports the diagnostics waiting, copying the line `source` to the audit file when
    /// one is about it.
    fn report(&mut self, source: Option<(u64, &[u8])>, on_step: &mut dyn FnMut(Step<'_>)) {
        let redactor = self.setup.redactor.as_deref();
        for mut diagnostic in self.diagnostics.drain(..) {
            self.stats.diagnostics += 1;
            if diagnostic.is_error() {
                self.stats.errors += 1;
            } else {
                self.stats.notices += 1;
            }
            if let (Some(audit), Some((line, bytes))) = (self.audit.as_mut(), source)
                && diagnostic.line == Some(line)
            {
                match redactor.filter(|_| !self.setup.audit_raw) {
                    Some(redactor) => audit.write(line, &redactor.redact_line(bytes)),
                    None => audit.write(line, bytes),
                }
            }
            // A message may quote the input (a tool name, an id, a parse error's text).
            if let Some(redactor) = redactor {
                redactor.redact_string(&mut diagnostic.message);
            }
            on_step(Step::Diagnostic(&diagnostic));
        }
    }
}
