//! The sessions `view` and `stats` read: each file (see [`recordings`](crate::recordings))
//! read whole as its own stream (dialect detected per file; a Claude Code session's
//! transcript with its subagents' transcripts, see [`subagents`]), in parallel, results in
//! input order.

use std::collections::HashMap;
use std::io::{self, Write};
use std::path::PathBuf;
use std::process::ExitCode;

use rayon::prelude::*;
use serde::{Deserialize, Serialize};
use toolnorm::NormalizedToolPart;
use toolnorm_adapters::{
    Diagnostic, DiagnosticKind, Driver, NormalizerBuilder, Severity, Sink, Stats, Step,
};

use crate::normalize::{builder, open_input, unrecognized};
use crate::recordings::expand;
use crate::sqlite_stores;
use crate::subagents::{self, Files, Unit};
use crate::{EXIT_UNRECOGNIZED, EXIT_USAGE, ReadArgs, io_message};

/// The line counts of one session, as the page and `stats --json` show them.
#[derive(Debug, Clone, Copy, Default, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub(crate) struct Lines {
    pub(crate) lines: u64,
    pub(crate) applied: u64,
    pub(crate) known_non_tool: u64,
    pub(crate) notices: u64,
    pub(crate) errors: u64,
}

impl From<Stats> for Lines {
    fn from(stats: Stats) -> Self {
        Lines {
            lines: stats.lines,
            applied: stats.applied_lines,
            known_non_tool: stats.known_lines,
            notices: stats.notice_lines,
            errors: stats.error_lines,
        }
    }
}

/// One file, read whole.
#[derive(Debug, Serialize)]
#[serde(rename_all = "camelCase")]
pub(crate) struct Session {
    /// The file's path as named (`stdin` for `-`).
    pub(crate) source: String,
    /// The dialect read, when one was.
    pub(crate) dialect: Option<String>,
    /// The provider of the dialect (`claude-code`, `codex` …).
    pub(crate) provider: Option<String>,
    /// The directory the session ran in, when the stream said it.
    #[serde(skip)]
    pub(crate) cwd: Option<String>,
    /// Every call, in the order first seen; `metadata.source` is [`Session::source`].
    pub(crate) parts: Vec<NormalizedToolPart>,
    /// The line counts.
    pub(crate) lines: Lines,
    /// The diagnostics, as `normalize` writes them.
    pub(crate) diagnostics: Vec<String>,
    /// The same diagnostics, each with the file and line it is about (`stats` sums them).
    #[serde(skip)]
    pub(crate) notes: Vec<Note>,
}

/// One diagnostic of a session, with the file it is about (a joined subagent transcript
/// names its own file and line).
#[derive(Debug, Clone)]
pub(crate) struct Note {
    /// The file's path as named.
    pub(crate) file: String,
    /// The line of that file, when the diagnostic is about one.
    pub(crate) line: Option<u64>,
    pub(crate) kind: DiagnosticKind,
    pub(crate) severity: Severity,
    /// What happened, for people.
    pub(crate) message: String,
}

/// A file that could not be read, or was no stream toolnorm reads.
#[derive(Debug)]
pub(crate) struct Failure {
    /// The file's path as named.
    pub(crate) file: String,
    /// Why: the I/O error, or that no line is an event of a dialect toolnorm reads.
    pub(crate) reason: String,
    /// Whether no line was an event of a known dialect (exit status 3).
    pub(crate) unrecognized: bool,
}

/// Expands `paths` and reads every file, writing each file's diagnostics and failures on
/// `stderr` in input order: the sessions read, and the exit status (`2` when a file
/// could not be read, `3` when one was no stream toolnorm reads); `Err` when nothing
/// could be read at all.
pub(crate) fn read_all(
    paths: &[PathBuf],
    read: &ReadArgs,
    stderr: &mut impl Write,
) -> Result<(Vec<Session>, ExitCode), ExitCode> {
    let mut sessions = Vec::new();
    let mut status = ExitCode::SUCCESS;
    for result in read_each(paths, read, stderr)? {
        match result {
            Ok(session) => {
                for diagnostic in &session.diagnostics {
                    let _ = writeln!(stderr, "{diagnostic}");
                }
                sessions.push(session);
            }
            Err(failure) => {
                let _ = writeln!(stderr, "toolnorm: {}: {}", failure.file, failure.reason);
                status = failure.status();
            }
        }
    }
    Ok((sessions, status))
}

/// Expands `paths` and reads every file, writing nothing but a usage error: each file's
/// session or failure, in input order; `Err` (the exit status, the error written on
/// `stderr`) when the paths name no file to read.
pub(crate) fn read_each(
    paths: &[PathBuf],
    read: &ReadArgs,
    stderr: &mut impl Write,
) -> Result<Vec<Result<Session, Failure>>, ExitCode> {
    let paths: Vec<PathBuf> = paths
        .iter()
        .map(|path| subagents::transcript_of_folder(path).unwrap_or_else(|| path.clone()))
        .collect();
    let files = expand(&paths).map_err(|message| {
        let _ = writeln!(stderr, "toolnorm: {message}");
        ExitCode::from(EXIT_USAGE)
    })?;
    let files = sqlite_stores::expand(subagents::group(files, true));
    let make = || builder(read).unwrap_or_default();
    Ok(load_all(&files, &make))
}

impl Failure {
    /// The exit status of a run with this failure: `3` for a file of no known dialect,
    /// `2` for one that could not be read.
    pub(crate) fn status(&self) -> ExitCode {
        ExitCode::from(if self.unrecognized {
            EXIT_UNRECOGNIZED
        } else {
            EXIT_USAGE
        })
    }
}

/// Reads every file in parallel; the results are in the order of `files`.
pub(crate) fn load_all(
    files: &[Unit],
    builder: &(dyn Fn() -> NormalizerBuilder + Sync),
) -> Vec<Result<Session, Failure>> {
    files.par_iter().map(|unit| load(unit, builder())).collect()
}

/// What one file's steps gave, as they come.
struct Collected {
    /// The file's name (`stdin` for `-`).
    source: String,
    /// The files of a joined stream, to name the file and line of each diagnostic.
    files: Files,
    /// Where each call was first seen.
    order: HashMap<String, usize>,
    /// The calls that ended, with where each was first seen.
    parts: Vec<(usize, NormalizedToolPart)>,
    diagnostics: Vec<String>,
    notes: Vec<Note>,
    /// Diagnostics of lines of no known dialect.
    undetected: usize,
}

impl Sink for Collected {
    fn step(&mut self, step: &Step<'_>) -> io::Result<()> {
        if let Step::Applied { update, .. } = step {
            let next = self.order.len();
            let at = *self
                .order
                .entry(update.call.id().to_owned())
                .or_insert(next);
            if update.call.is_terminal() {
                self.parts.push((at, update.call.to_part()));
            }
        }
        Ok(())
    }

    fn diagnostic(&mut self, diagnostic: &Diagnostic) {
        if diagnostic.kind == DiagnosticKind::UndetectedDialect {
            self.undetected += 1;
        }
        let located = diagnostic
            .line
            .filter(|_| self.files.joined())
            .and_then(|line| self.files.locate(line));
        let (file, line) = match located {
            Some((name, line)) => (name.to_owned(), Some(line)),
            None => (self.source.clone(), diagnostic.line),
        };
        let mut shown = diagnostic.clone();
        shown.line = line;
        self.diagnostics.push(format!("{file}: {shown}"));
        self.notes.push(Note {
            file,
            line,
            kind: diagnostic.kind,
            severity: diagnostic.severity,
            message: diagnostic.message.clone(),
        });
    }
}

/// Reads one file, and the subagent transcripts joined to it (or one session of a
/// session database), into a [`Session`].
pub(crate) fn load(unit: &Unit, builder: NormalizerBuilder) -> Result<Session, Failure> {
    let (path, siblings) = (&unit.path, &unit.siblings);
    let stdin = path.as_os_str() == "-";
    let source = match (&unit.session, stdin) {
        (Some(session), _) => sqlite_stores::session_name(path, session),
        (None, true) => "stdin".to_owned(),
        (None, false) => path.display().to_string(),
    };
    let failure = |name: &str, error: &io::Error| Failure {
        file: name.to_owned(),
        reason: io_message(error),
        unrecognized: false,
    };
    let document =
        sqlite_stores::document(path, unit.session.as_deref()).map_err(|reason| Failure {
            file: source.clone(),
            reason,
            unrecognized: false,
        })?;
    let named = (!stdin).then(|| path.to_path_buf());
    let mut input = match document {
        Some(document) => Box::new(io::Cursor::new(document)) as Box<dyn io::BufRead + Send>,
        None => open_input(named.as_ref()).map_err(|error| failure(&source, &error))?,
    };
    let collected = Collected {
        source: source.clone(),
        files: Files(vec![(0, source.clone())]),
        order: HashMap::new(),
        parts: Vec::new(),
        diagnostics: Vec::new(),
        notes: Vec::new(),
        undetected: 0,
    };
    // Every diagnostic is kept, in input order: none waits for the dialect.
    let mut driver = Driver::new(builder.build(), collected).hold_undetected(false);
    let mut read_error = driver
        .read(input.as_mut())
        .err()
        .map(|error| (source.clone(), error));
    for sibling in siblings {
        if read_error.is_some() {
            break;
        }
        driver.end_line();
        let name = sibling.display().to_string();
        let mut input = match open_input(Some(sibling)) {
            Ok(input) => input,
            Err(error) => {
                read_error = Some((name, error));
                break;
            }
        };
        let before = driver.normalizer().stats().lines;
        driver.sink_mut().files.0.push((before, name.clone()));
        read_error = driver.read(input.as_mut()).err().map(|error| (name, error));
    }
    driver.finish();
    if let Some((name, error)) = read_error {
        return Err(failure(&name, &error));
    }
    let normalizer = driver.normalizer();
    if normalizer.dialect().is_none() && driver.sink().undetected > 0 {
        return Err(Failure {
            file: source.clone(),
            reason: unrecognized(&driver),
            unrecognized: true,
        });
    }
    let dialect = normalizer.dialect();
    let cwd = normalizer.cwd().map(str::to_owned);
    let lines = normalizer.stats().into();
    let mut open = Vec::new();
    for call in normalizer.fold().calls() {
        if !call.is_terminal() {
            open.push((call.id().to_owned(), call.to_part()));
        }
    }
    let Collected {
        order,
        mut parts,
        diagnostics,
        notes,
        ..
    } = driver.into_sink();
    for (id, part) in open {
        let at = order.get(&id).copied().unwrap_or(usize::MAX);
        parts.push((at, part));
    }
    parts.sort_by_key(|(at, _)| *at);
    let parts = parts
        .into_iter()
        .map(|(_, mut part)| {
            part.metadata
                .get_or_insert_with(Default::default)
                .insert("source".to_owned(), source.clone().into());
            part
        })
        .collect();
    Ok(Session {
        dialect: dialect.map(|dialect| dialect.as_str().to_owned()),
        provider: dialect.map(|dialect| dialect.provider().to_string()),
        cwd,
        source,
        parts,
        lines,
        diagnostics,
        notes,
    })
}
