//! The pipeline: bytes in, canonical events folded into parts, changes out.
//!
//! [`Normalizer`] splits input into lines (chunks may be cut anywhere), detects the
//! dialect from the first lines unless told, hands each line to the adapter, applies the
//! events to a [`Fold`] and reports every change and every diagnostic to a callback, in
//! input order. It holds only open calls when asked to drop finished ones, so memory
//! stays flat however long the stream.

use std::io::{self, Write};

use toolnorm::{Error as FoldError, Fold, LineSplitter, ToolEvent, Update};

use crate::adapter::{Adapter, Emitted};
use crate::detect::{DETECTION_WINDOW, detect_line};
use crate::diagnostic::{Diagnostic, DiagnosticKind};
use crate::titles::TitleRules;
use crate::{Dialect, adapter_for};

/// What the normalizer reports, in input order.
#[derive(Debug)]
pub enum Step<'a> {
    /// An event applied and changed (or created) a part.
    Applied {
        /// The input line the event came from.
        line: u64,
        /// The event, when [`Options::keep_events`] is set.
        event: Option<&'a ToolEvent>,
        /// The part after the event.
        update: &'a Update<'a>,
    },
    /// Something in the input could not be used.
    Diagnostic(&'a Diagnostic),
}

/// How the normalizer runs.
#[derive(Debug, Clone)]
pub struct Options {
    /// The input dialect; `None` detects it from the first lines.
    pub dialect: Option<Dialect>,
    /// The cap on partial output a running call keeps, in bytes.
    pub output_cap: usize,
    /// Drop calls from memory once they are terminal (after reporting them).
    pub evict_terminal: bool,
    /// Pass each applied event to the callback (costs a copy per event).
    pub keep_events: bool,
    /// Title and kind rules (user rules first, then the built-in ones).
    pub rules: TitleRules,
    /// MCP server names, for providers that prefix tool names with them (OpenCode).
    pub mcp_servers: Vec<String>,
}

impl Default for Options {
    fn default() -> Self {
        Options {
            dialect: None,
            output_cap: toolnorm::DEFAULT_OUTPUT_CAP,
            evict_terminal: false,
            keep_events: false,
            rules: TitleRules::builtin(),
            mcp_servers: Vec::new(),
        }
    }
}

/// Counts of what went through.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub struct Stats {
    /// Input lines read.
    pub lines: u64,
    /// Canonical events produced by the adapter.
    pub events: u64,
    /// Events that changed a part.
    pub changes: u64,
    /// Exact duplicates (applied, changed nothing).
    pub duplicates: u64,
    /// Diagnostics reported.
    pub diagnostics: u64,
}

enum Stage {
    Detecting(Vec<(u64, Vec<u8>)>),
    Ready(Box<dyn Adapter + Send>),
}

struct Core {
    stage: Stage,
    options: Options,
    fold: Fold,
    emitted: Emitted,
    stats: Stats,
    audit: Option<Audit>,
}

/// Where the lines that produced a diagnostic are copied.
struct Audit {
    out: Box<dyn Write + Send>,
    /// The last line written (a line with several diagnostics is written once).
    last: u64,
    /// The first write error.
    error: Option<io::Error>,
}

impl Audit {
    fn write(&mut self, line: u64, bytes: &[u8]) {
        if line <= self.last || self.error.is_some() {
            return;
        }
        self.last = line;
        let result = write!(self.out, "{line}\t")
            .and_then(|()| self.out.write_all(bytes))
            .and_then(|()| self.out.write_all(b"\n"));
        if let Err(error) = result {
            self.error = Some(error);
        }
    }
}

/// Normalizes one stream.
pub struct Normalizer {
    lines: LineSplitter,
    core: Core,
}

impl Normalizer {
    /// A normalizer with these options.
    pub fn new(options: Options) -> Self {
        let stage = match options.dialect {
            Some(dialect) => Stage::Ready(adapter_for(dialect, &options)),
            None => Stage::Detecting(Vec::new()),
        };
        Normalizer {
            lines: LineSplitter::new(),
            core: Core {
                stage,
                fold: Fold::builder()
                    .output_cap(options.output_cap)
                    .evict_finished(options.evict_terminal)
                    .build(),
                options,
                emitted: Emitted::default(),
                stats: Stats::default(),
                audit: None,
            },
        }
    }

    /// Copies every input line that produces a diagnostic to `out`, verbatim, as
    /// `N<TAB>line<LF>` (`N` the 1-based line number), each line once, in input order.
    pub fn audit_to(&mut self, out: Box<dyn Write + Send>) {
        self.core.audit = Some(Audit {
            out,
            last: 0,
            error: None,
        });
    }

    /// Flushes the audit output; the first error writing it, if any.
    pub fn finish_audit(&mut self) -> io::Result<()> {
        match self.core.audit.as_mut() {
            None => Ok(()),
            Some(audit) => match audit.error.take() {
                Some(error) => Err(error),
                None => audit.out.flush(),
            },
        }
    }

    /// Feeds a chunk of input.
    pub fn push(&mut self, chunk: &[u8], on_step: &mut dyn FnMut(Step<'_>)) {
        let core = &mut self.core;
        self.lines
            .push(chunk, |line, bytes| core.line(line, bytes, false, on_step));
    }

    /// Ends the input: reads a last line without newline, flushes detection and the adapter.
    pub fn finish(&mut self, on_step: &mut dyn FnMut(Step<'_>)) {
        let core = &mut self.core;
        self.lines
            .finish(|line, bytes| core.line(line, bytes, true, on_step));
        core.flush_detection(on_step);
        if let Stage::Ready(adapter) = &mut core.stage {
            adapter.finish(&mut core.emitted);
        }
        core.drain(None, on_step);
    }

    /// The dialect, once known.
    pub fn dialect(&self) -> Option<Dialect> {
        match &self.core.stage {
            Stage::Ready(adapter) => Some(adapter.dialect()),
            Stage::Detecting(_) => None,
        }
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

impl Core {
    fn line(&mut self, line: u64, bytes: &[u8], last: bool, on_step: &mut dyn FnMut(Step<'_>)) {
        self.stats.lines = line;
        // A blank line carries nothing: it is skipped (and still counted).
        if bytes.iter().all(u8::is_ascii_whitespace) {
            return;
        }
        if last
            && serde_json::from_slice::<serde::de::IgnoredAny>(bytes)
                .is_err_and(|error| error.is_eof())
        {
            self.emitted.diagnostic(Diagnostic::at(
                line,
                DiagnosticKind::TruncatedLine,
                "the input ends in the middle of this line",
            ));
            self.drain(Some((line, bytes)), on_step);
            return;
        }
        match &mut self.stage {
            Stage::Ready(adapter) => read_line(adapter.as_mut(), line, bytes, &mut self.emitted),
            Stage::Detecting(buffered) => {
                let detected = detect_line(bytes);
                buffered.push((line, bytes.to_vec()));
                match detected {
                    Some(dialect) => self.start(dialect, on_step),
                    None if buffered.len() >= DETECTION_WINDOW => self.flush_detection(on_step),
                    None => {}
                }
                return;
            }
        }
        self.drain(Some((line, bytes)), on_step);
    }

    /// Starts the adapter for `dialect` and replays the buffered lines through it.
    fn start(&mut self, dialect: Dialect, on_step: &mut dyn FnMut(Step<'_>)) {
        let mut adapter = adapter_for(dialect, &self.options);
        let buffered = match &mut self.stage {
            Stage::Detecting(buffered) => std::mem::take(buffered),
            Stage::Ready(_) => Vec::new(),
        };
        for (line, bytes) in buffered {
            read_line(adapter.as_mut(), line, &bytes, &mut self.emitted);
            self.drain(Some((line, &bytes)), on_step);
        }
        self.stage = Stage::Ready(adapter);
    }

    /// Detection failed (window full or input ended): every buffered line is reported.
    fn flush_detection(&mut self, on_step: &mut dyn FnMut(Step<'_>)) {
        let Stage::Detecting(buffered) = &mut self.stage else {
            return;
        };
        let lines = std::mem::take(buffered);
        for (line, bytes) in lines {
            let message = match serde_json::from_slice::<serde::de::IgnoredAny>(&bytes) {
                Err(error) => crate::json::classify(&bytes, &error)
                    .map_or_else(|| error.to_string(), |invalid| invalid.message),
                Ok(_) => "not an event of any known dialect (use --provider to name it)".to_owned(),
            };
            self.emitted.diagnostic(Diagnostic::at(
                line,
                DiagnosticKind::UndetectedDialect,
                message,
            ));
            self.drain(Some((line, &bytes)), on_step);
        }
    }

    /// Reports what the adapter emitted for the line `source` (if any), then applies
    /// its events.
    fn drain(&mut self, source: Option<(u64, &[u8])>, on_step: &mut dyn FnMut(Step<'_>)) {
        if !self.emitted.diagnostics.is_empty() {
            for diagnostic in std::mem::take(&mut self.emitted.diagnostics) {
                self.report(diagnostic, source, on_step);
            }
        }
        if !self.emitted.events.is_empty() {
            let events = std::mem::take(&mut self.emitted.events);
            for (line, event) in events {
                self.apply(line, event, source, on_step);
            }
        }
    }

    fn report(
        &mut self,
        diagnostic: Diagnostic,
        source: Option<(u64, &[u8])>,
        on_step: &mut dyn FnMut(Step<'_>),
    ) {
        self.stats.diagnostics += 1;
        if let (Some(audit), Some((line, bytes))) = (self.audit.as_mut(), source)
            && diagnostic.line == Some(line)
        {
            audit.write(line, bytes);
        }
        on_step(Step::Diagnostic(&diagnostic));
    }

    fn apply(
        &mut self,
        line: u64,
        event: ToolEvent,
        source: Option<(u64, &[u8])>,
        on_step: &mut dyn FnMut(Step<'_>),
    ) {
        self.stats.events += 1;
        let kept = self.options.keep_events.then(|| event.clone());
        match self.fold.apply(event) {
            Ok(update) => {
                if update.outcome == toolnorm::Outcome::Unchanged {
                    self.stats.duplicates += 1;
                    return;
                }
                self.stats.changes += 1;
                on_step(Step::Applied {
                    line,
                    event: kept.as_ref(),
                    update: &update,
                });
            }
            Err(error) => {
                // `AlreadyFinished` (a late event for an evicted call) is a rejection too.
                let kind = match error {
                    FoldError::UnknownCall { .. } => DiagnosticKind::UnknownCall,
                    _ => DiagnosticKind::Rejected,
                };
                let diagnostic = Diagnostic::at(line, kind, error.to_string());
                self.report(diagnostic, source, on_step);
            }
        }
    }
}

/// Has `adapter` read one line; when the line is unusable in the adapter's dialect but is
/// an event of another dialect, its diagnostics become one `foreign-dialect` diagnostic.
fn read_line(adapter: &mut dyn Adapter, line: u64, bytes: &[u8], out: &mut Emitted) {
    let diagnostics = out.diagnostics.len();
    let events = out.events.len();
    adapter.line(line, bytes, out);
    let rejected = out.diagnostics.len() > diagnostics
        && out.events.len() == events
        && out.diagnostics.iter().skip(diagnostics).all(|diagnostic| {
            matches!(
                diagnostic.kind,
                DiagnosticKind::UnknownEvent | DiagnosticKind::MalformedEvent
            )
        });
    if !rejected {
        return;
    }
    let ours = adapter.dialect();
    if let Some(theirs) = detect_line(bytes).filter(|theirs| *theirs != ours) {
        out.diagnostics.truncate(diagnostics);
        out.diagnostic(Diagnostic::at(
            line,
            DiagnosticKind::ForeignDialect,
            format!("a `{theirs}` event in a `{ours}` stream, ignored"),
        ));
    }
}
