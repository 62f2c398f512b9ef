//! The recordings `view` and `stats` read: `FILE|DIR...` expanded into a sorted list of
//! files, each read as its own stream (dialect detected per file; a Claude Code session's
//! transcript with its subagents' transcripts, see [`session`]), in parallel, results in
//! input order.

use std::cell::RefCell;
use std::collections::HashMap;
use std::io::{self, Write};
use std::path::{Path, PathBuf};
use std::process::ExitCode;

use rayon::prelude::*;
use serde::Serialize;
use toolnorm::NormalizedToolPart;
use toolnorm_adapters::{DiagnosticKind, NormalizerBuilder, Stats, Step};

use crate::normalize::{HEAD, builder, open_input, pump, unrecognized};
use crate::session::{self, Files, Tail, Unit};
use crate::{EXIT_UNRECOGNIZED, EXIT_USAGE, ReadArgs, io_message};

/// The file names a directory is searched for.
const EXTENSIONS: &[&str] = &["jsonl", "ndjson"];

/// Expands files and directories into the files to read: a file named is read whatever
/// its name; a directory gives its `*.jsonl` and `*.ndjson` files, recursively, sorted
/// by path. `-` is stdin.
pub(crate) fn expand(paths: &[PathBuf]) -> Result<Vec<PathBuf>, String> {
    let mut files = Vec::new();
    for path in paths {
        if path.as_os_str() == "-" || !path.is_dir() {
            files.push(path.clone());
            continue;
        }
        let mut found = Vec::new();
        for entry in walkdir::WalkDir::new(path).sort_by_file_name() {
            let entry = entry.map_err(|error| format!("{}: {error}", path.display()))?;
            let matches = entry
                .path()
                .extension()
                .and_then(|extension| extension.to_str())
                .is_some_and(|extension| EXTENSIONS.contains(&extension));
            if entry.file_type().is_file() && matches {
                found.push(entry.into_path());
            }
        }
        if found.is_empty() {
            return Err(format!(
                "{}: no *.jsonl file in this directory",
                path.display()
            ));
        }
        files.extend(found);
    }
    Ok(files)
}

/// The line counts of one session, as the page and `stats --json` show them.
#[derive(Debug, Clone, Copy, Default, Serialize)]
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
    /// Every call, in the order first seen; `metadata.source` is [`Session::source`].
    pub(crate) parts: Vec<NormalizedToolPart>,
    /// The line counts.
    pub(crate) lines: Lines,
    /// The diagnostics, as `normalize` writes them.
    pub(crate) diagnostics: Vec<String>,
}

/// A file that could not be read, or was no stream toolnorm reads.
#[derive(Debug)]
pub(crate) struct Failure {
    /// `path: reason`.
    pub(crate) message: String,
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
    let paths: Vec<PathBuf> = paths
        .iter()
        .map(|path| session::transcript_of_folder(path).unwrap_or_else(|| path.clone()))
        .collect();
    let files = expand(&paths).map_err(|message| {
        let _ = writeln!(stderr, "toolnorm: {message}");
        ExitCode::from(EXIT_USAGE)
    })?;
    let files = session::group(files, true);
    let make = || builder(read).unwrap_or_default();
    let mut sessions = Vec::new();
    let mut status = ExitCode::SUCCESS;
    for result in load_all(&files, &make) {
        match result {
            Ok(session) => {
                for diagnostic in &session.diagnostics {
                    let _ = writeln!(stderr, "{diagnostic}");
                }
                sessions.push(session);
            }
            Err(failure) => {
                let _ = writeln!(stderr, "toolnorm: {}", failure.message);
                status = ExitCode::from(if failure.unrecognized {
                    EXIT_UNRECOGNIZED
                } else {
                    EXIT_USAGE
                });
            }
        }
    }
    Ok((sessions, status))
}

/// Reads every file in parallel; the results are in the order of `files`.
pub(crate) fn load_all(
    files: &[Unit],
    builder: &(dyn Fn() -> NormalizerBuilder + Sync),
) -> Vec<Result<Session, Failure>> {
    files
        .par_iter()
        .map(|unit| load(&unit.path, &unit.siblings, builder()))
        .collect()
}

/// Reads one file, and the subagent transcripts joined to it, into a [`Session`].
pub(crate) fn load(
    path: &Path,
    siblings: &[PathBuf],
    builder: NormalizerBuilder,
) -> Result<Session, Failure> {
    let stdin = path.as_os_str() == "-";
    let source = if stdin {
        "stdin".to_owned()
    } else {
        path.display().to_string()
    };
    let failure = |name: &str, error: &io::Error| Failure {
        message: format!("{name}: {}", io_message(error)),
        unrecognized: false,
    };
    let named = (!stdin).then(|| path.to_path_buf());
    let mut input = open_input(named.as_ref()).map_err(|error| failure(&source, &error))?;
    let files = RefCell::new(Files(vec![(0, source.clone())]));
    let mut normalizer = builder.build();
    let mut order: HashMap<String, usize> = HashMap::new();
    let mut parts: Vec<(usize, NormalizedToolPart)> = Vec::new();
    let mut diagnostics = Vec::new();
    let mut undetected = 0usize;
    let mut on_step = |step: Step<'_>| match step {
        Step::Applied { update, .. } => {
            let next = order.len();
            let at = *order.entry(update.call.id().to_owned()).or_insert(next);
            if update.call.is_terminal() {
                parts.push((at, update.call.to_part()));
            }
        }
        Step::Diagnostic(diagnostic) => {
            if diagnostic.kind == DiagnosticKind::UndetectedDialect {
                undetected += 1;
            }
            let files = files.borrow();
            let located = diagnostic
                .line
                .filter(|_| files.joined())
                .and_then(|line| files.locate(line));
            diagnostics.push(match located {
                Some((name, line)) => {
                    let mut diagnostic = diagnostic.clone();
                    diagnostic.line = Some(line);
                    format!("{name}: {diagnostic}")
                }
                None => format!("{source}: {diagnostic}"),
            });
        }
    };
    let mut head = Vec::with_capacity(HEAD);
    let mut tail = Tail::new(input.as_mut());
    let mut read_error = pump(
        &mut tail,
        &mut normalizer,
        &mut on_step,
        &mut |_| {},
        &mut head,
    )
    .map(|error| (source.clone(), error));
    let mut last = tail.last;
    for sibling in siblings {
        if read_error.is_some() {
            break;
        }
        if last.is_some_and(|byte| byte != b'\n') {
            normalizer.push(b"\n", &mut on_step);
        }
        let name = sibling.display().to_string();
        let mut input = match open_input(Some(sibling)) {
            Ok(input) => input,
            Err(error) => {
                read_error = Some((name, error));
                break;
            }
        };
        files
            .borrow_mut()
            .0
            .push((normalizer.stats().lines, name.clone()));
        let mut tail = Tail::new(input.as_mut());
        read_error = pump(
            &mut tail,
            &mut normalizer,
            &mut on_step,
            &mut |_| {},
            &mut head,
        )
        .map(|error| (name, error));
        last = tail.last;
    }
    normalizer.finish(&mut on_step);
    if let Some((name, error)) = read_error {
        return Err(failure(&name, &error));
    }
    if normalizer.dialect().is_none() && undetected > 0 {
        return Err(Failure {
            message: format!("{source}: {}", unrecognized(&head)),
            unrecognized: true,
        });
    }
    for call in normalizer.fold().calls() {
        if !call.is_terminal() {
            let at = order.get(call.id()).copied().unwrap_or(usize::MAX);
            parts.push((at, call.to_part()));
        }
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
    let dialect = normalizer.dialect();
    Ok(Session {
        dialect: dialect.map(|dialect| dialect.as_str().to_owned()),
        provider: dialect.map(|dialect| dialect.provider().to_string()),
        source,
        parts,
        lines: normalizer.stats().into(),
        diagnostics,
    })
}
