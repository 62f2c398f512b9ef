//! What `toolnorm stats` says of its input besides the figures: the diagnostics summed per
//! file and kind (every one with `--verbose`), and the files it did not read.

use std::collections::{BTreeMap, HashMap};
use std::io::{self, Write};

use serde::Serialize;
use toolnorm_adapters::Severity;

use super::tables::plural;
use crate::columns::fit;
use crate::sessions::{Failure, Note, Session};

/// How many line numbers of one kind of notice the summary lists.
const LINES_SHOWN: usize = 5;

/// How many errors of one file the summary shows with their message.
const ERRORS_SHOWN: usize = 10;

/// How much of an error's message the summary shows (display columns).
const MESSAGE_WIDTH: usize = 120;

/// The diagnostics of one kind and severity in one file.
#[derive(Debug, Serialize)]
#[serde(rename_all = "camelCase")]
pub(super) struct KindCount {
    /// `unknown-event`, `invalid-json` …
    kind: &'static str,
    /// `notice` or `error`.
    severity: &'static str,
    count: u64,
    /// Every line they are about, in order.
    lines: Vec<u64>,
}

/// One error, with its line.
#[derive(Debug, Serialize)]
#[serde(rename_all = "camelCase")]
pub(super) struct ErrorNote {
    line: Option<u64>,
    kind: &'static str,
    message: String,
}

/// The diagnostics of one file, summed.
#[derive(Debug, Serialize)]
#[serde(rename_all = "camelCase")]
pub(super) struct FileDiagnostics {
    file: String,
    pub(super) notices: u64,
    pub(super) errors: u64,
    /// Per kind: errors first, then notices; each by kind name.
    kinds: Vec<KindCount>,
    /// Every error, in line order.
    error_list: Vec<ErrorNote>,
}

/// Why a file was not read.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize)]
#[serde(rename_all = "kebab-case")]
pub(super) enum Why {
    /// It could not be opened or read (exit status 2).
    Unreadable,
    /// No line is an event of a dialect toolnorm reads (exit status 3).
    NoKnownDialect,
    /// It has no event: no line, or blank lines only.
    Empty,
}

/// A file not read.
#[derive(Debug, Serialize)]
#[serde(rename_all = "camelCase")]
pub(super) struct Unread {
    file: String,
    reason: Why,
    /// What went wrong, in full.
    message: String,
}

impl Unread {
    pub(super) fn failed(failure: &Failure) -> Self {
        Unread {
            file: failure.file.clone(),
            reason: if failure.unrecognized {
                Why::NoKnownDialect
            } else {
                Why::Unreadable
            },
            message: failure.reason.clone(),
        }
    }

    pub(super) fn empty(session: &Session) -> Self {
        Unread {
            file: session.source.clone(),
            reason: Why::Empty,
            message: "no event in it".to_owned(),
        }
    }
}

/// Whether a session read nothing: no dialect detected and nothing reported (an empty
/// file, or blank lines only).
pub(super) fn is_empty(session: &Session) -> bool {
    session.dialect.is_none() && session.parts.is_empty() && session.notes.is_empty()
}

/// The diagnostics of `sessions`, summed per file (in the order first reported).
pub(super) fn summarize(sessions: &[Session]) -> Vec<FileDiagnostics> {
    let mut files: Vec<FileDiagnostics> = Vec::new();
    let mut kinds: Vec<BTreeMap<(bool, &'static str), KindCount>> = Vec::new();
    let mut index: HashMap<&str, usize> = HashMap::new();
    for note in sessions.iter().flat_map(|session| &session.notes) {
        let at = match index.get(note.file.as_str()) {
            Some(&at) => at,
            None => {
                index.insert(&note.file, files.len());
                files.push(FileDiagnostics {
                    file: note.file.clone(),
                    notices: 0,
                    errors: 0,
                    kinds: Vec::new(),
                    error_list: Vec::new(),
                });
                kinds.push(BTreeMap::new());
                files.len() - 1
            }
        };
        let (Some(file), Some(kinds)) = (files.get_mut(at), kinds.get_mut(at)) else {
            continue;
        };
        add(file, kinds, note);
    }
    for (file, kinds) in files.iter_mut().zip(kinds) {
        file.kinds = kinds.into_values().collect();
        file.error_list.sort_by_key(|error| error.line);
    }
    files
}

fn add(
    file: &mut FileDiagnostics,
    kinds: &mut BTreeMap<(bool, &'static str), KindCount>,
    note: &Note,
) {
    let error = note.severity != Severity::Notice;
    if error {
        file.errors += 1;
        file.error_list.push(ErrorNote {
            line: note.line,
            kind: note.kind.as_str(),
            message: note.message.clone(),
        });
    } else {
        file.notices += 1;
    }
    // Errors sort before notices.
    let count = kinds
        .entry((!error, note.kind.as_str()))
        .or_insert_with(|| KindCount {
            kind: note.kind.as_str(),
            severity: note.severity.as_str(),
            count: 0,
            lines: Vec::new(),
        });
    count.count += 1;
    count.lines.extend(note.line);
}

/// `line 4`, `lines 3, 7, 9, 11, 13, …`: at most `shown` of `lines`.
fn line_list(lines: &[u64], shown: usize) -> String {
    let mut text = String::from(if lines.len() == 1 { "line " } else { "lines " });
    for (at, line) in lines.iter().take(shown).enumerate() {
        if at > 0 {
            text.push_str(", ");
        }
        text.push_str(&line.to_string());
    }
    if lines.len() > shown {
        text.push_str(", …");
    }
    text
}

/// One line per file, `FILE: 2 invalid-json errors, 212 unknown-event notices (lines 3, 7,
/// 9, 11, 13, …)`, then each error of the file on its own line with its line number (the
/// first [`ERRORS_SHOWN`]; the lines of the rest).
fn write_file(out: &mut impl Write, file: &FileDiagnostics) -> io::Result<()> {
    let mut parts = Vec::new();
    for kind in &file.kinds {
        let mut part = plural(kind.count, &format!("{} {}", kind.kind, kind.severity));
        // The errors' lines are on the lines below.
        if kind.severity == Severity::Notice.as_str() && !kind.lines.is_empty() {
            part.push_str(&format!(" ({})", line_list(&kind.lines, LINES_SHOWN)));
        }
        parts.push(part);
    }
    writeln!(out, "{}: {}", file.file, parts.join(", "))?;
    for error in file.error_list.iter().take(ERRORS_SHOWN) {
        let message = fit(&error.message, Some(MESSAGE_WIDTH));
        match error.line {
            Some(line) => writeln!(out, "  line {line}: {message}")?,
            None => writeln!(out, "  {message}")?,
        }
    }
    let rest: Vec<u64> = file
        .error_list
        .iter()
        .skip(ERRORS_SHOWN)
        .filter_map(|error| error.line)
        .collect();
    let more = file.error_list.len().saturating_sub(ERRORS_SHOWN) as u64;
    if more > 0 {
        write!(out, "  … {} more", plural(more, "error"))?;
        if !rest.is_empty() {
            write!(out, " ({})", line_list(&rest, ERRORS_SHOWN * 2))?;
        }
        writeln!(out)?;
    }
    Ok(())
}

/// What is written after the tables (on stderr): the diagnostics summed per file (each one
/// with `verbose`), their total, and the files not read.
pub(super) fn write_notes(
    out: &mut impl Write,
    sessions: &[Session],
    files: &[FileDiagnostics],
    unread: &[Unread],
    verbose: bool,
) -> io::Result<()> {
    if verbose {
        for session in sessions {
            for diagnostic in &session.diagnostics {
                writeln!(out, "{diagnostic}")?;
            }
        }
    } else {
        for file in files {
            write_file(out, file)?;
        }
    }
    if !files.is_empty() {
        let notices: u64 = files.iter().map(|file| file.notices).sum();
        let errors: u64 = files.iter().map(|file| file.errors).sum();
        writeln!(
            out,
            "diagnostics: {}, {} in {}{}",
            plural(errors, "error"),
            plural(notices, "notice"),
            plural(files.len() as u64, "file"),
            if verbose {
                ""
            } else {
                " (--verbose lists each one)"
            }
        )?;
    }
    if !unread.is_empty() {
        writeln!(out, "not read: {}", plural(unread.len() as u64, "file"))?;
        for file in unread {
            let reason = match (file.reason, verbose) {
                (Why::Unreadable, _) | (_, true) => file.message.as_str(),
                (Why::NoKnownDialect, false) => "no known dialect",
                (Why::Empty, false) => "empty",
            };
            writeln!(out, "  {}: {reason}", file.file)?;
        }
    }
    out.flush()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn line_lists_are_cut() {
        assert_eq!(line_list(&[4], 5), "line 4");
        assert_eq!(line_list(&[3, 7, 9], 5), "lines 3, 7, 9");
        assert_eq!(line_list(&[1, 2, 3, 4, 5, 6], 5), "lines 1, 2, 3, 4, 5, …");
    }
}
