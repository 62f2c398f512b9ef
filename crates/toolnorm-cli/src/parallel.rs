//! `toolnorm normalize FILE|DIR...` with many inputs: every file its own stream (dialect
//! detected per file), read in parallel on a thread pool. Each file's output is written
//! whole, in input order (each directory's files sorted by path), as soon as it and every
//! file before it are done; at most [`LOOK_AHEAD`] files per thread are read ahead of
//! the one to be written next, so memory stays bounded however many files there are.
//! Every call carries `metadata.source` (the file), every diagnostic names its file. A
//! Claude Code session's transcript and its subagents' are one stream ([`subagents`]).

use std::collections::BTreeMap;
use std::fs::File;
use std::io::{self, Write};
use std::path::PathBuf;
use std::process::ExitCode;
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::{Arc, Mutex, mpsc};

use toolnorm_adapters::{NormalizerBuilder, Stats};

use crate::normalize::{Ended, Status, Stream, builders, input_name, open_input, run_stream};
use crate::recordings::expand;
use crate::sqlite_stores;
use crate::subagents::{self, Files, Unit};
use crate::{EXIT_USAGE, NormalizeArgs, io_message};

/// How many files per thread are read ahead of the one to be written next.
const LOOK_AHEAD: usize = 8;

/// The metadata key naming the file a call was read from.
pub(crate) const SOURCE: &str = "source";

/// Whether the inputs are read as many: more than one, or a directory.
pub(crate) fn is_many(inputs: &[PathBuf]) -> bool {
    inputs.len() > 1 || inputs.iter().any(|path| path.is_dir())
}

/// One file's run, held until every file before it is written.
struct Done {
    stdout: Vec<u8>,
    stderr: Vec<u8>,
    audit: Vec<u8>,
    ended: Ended,
}

/// A buffer the normalizer writes its audit copy into, read back once it is done.
#[derive(Clone, Default)]
pub(crate) struct Shared(Arc<Mutex<Vec<u8>>>);

impl Shared {
    /// What was written, taken out.
    pub(crate) fn take(&self) -> Vec<u8> {
        self.0
            .lock()
            .map(|mut buffer| std::mem::take(&mut *buffer))
            .unwrap_or_default()
    }
}

impl Write for Shared {
    fn write(&mut self, bytes: &[u8]) -> io::Result<usize> {
        self.0
            .lock()
            .map_err(|_| io::Error::other("audit buffer poisoned"))?
            .extend_from_slice(bytes);
        Ok(bytes.len())
    }

    fn flush(&mut self) -> io::Result<()> {
        Ok(())
    }
}

/// The last frame of an `--sse` stream of a format that has one (`ai-sdk`'s `[DONE]`):
/// each file's is cut, and it is written once after the last file.
fn sse_terminator(args: &NormalizeArgs) -> Option<String> {
    let terminator = args.format.sse_terminator().filter(|_| args.sse)?;
    Some(format!("data: {terminator}\n\n"))
}

/// `toolnorm normalize` of many inputs.
pub(crate) fn normalize_many(
    args: &NormalizeArgs,
    stdout: impl Write,
    stderr: &mut impl Write,
) -> ExitCode {
    let usage = |stderr: &mut dyn Write, message: String| {
        let _ = writeln!(stderr, "toolnorm: {message}");
        ExitCode::from(EXIT_USAGE)
    };
    // A session's own folder (`<session>/`) is the session: its transcript and its
    // subagents'.
    let inputs: Vec<PathBuf> = args
        .inputs
        .iter()
        .map(|path| match args.no_siblings {
            true => path.clone(),
            false => subagents::transcript_of_folder(path).unwrap_or_else(|| path.clone()),
        })
        .collect();
    let files = match expand(&inputs) {
        Ok(files) => sqlite_stores::expand(subagents::group(files, !args.no_siblings)),
        Err(message) => return usage(stderr, message),
    };
    let make = match builders(&args.read) {
        Ok(make) => make,
        Err(message) => return usage(stderr, message),
    };
    let mut audit = match &args.audit {
        None => None,
        Some(path) => match File::create(path) {
            Ok(file) => Some(io::BufWriter::new(file)),
            Err(error) => {
                return usage(
                    stderr,
                    format!("{}: {}", path.display(), io_message(&error)),
                );
            }
        },
    };
    let pool = match rayon::ThreadPoolBuilder::new()
        .num_threads(args.threads.unwrap_or(0))
        .build()
    {
        Ok(pool) => pool,
        Err(error) => return usage(stderr, format!("--threads: {error}")),
    };
    let window = pool.current_num_threads().max(1) * LOOK_AHEAD;
    let mut writer = Written {
        args,
        out: io::BufWriter::new(stdout),
        audit: audit.as_mut(),
        total: Stats::default(),
        files: 0,
        failed: 0,
        worst: Status::Read,
    };
    let stop = AtomicBool::new(false);
    let (sender, receiver) = mpsc::channel::<(usize, Option<Done>)>();
    pool.in_place_scope(|scope| {
        let spawn = |index: usize| {
            let sender = sender.clone();
            let (files, make, stop) = (&files, &make, &stop);
            scope.spawn(move |_| {
                let done = files
                    .get(index)
                    .filter(|_| !stop.load(Ordering::Relaxed))
                    .map(|unit| one(args, unit, make()));
                let _ = sender.send((index, done));
            });
        };
        let mut next = 0;
        while next < files.len() && next < window {
            spawn(next);
            next += 1;
        }
        let mut pending = BTreeMap::new();
        let mut written = 0;
        while written < files.len() && !stop.load(Ordering::Relaxed) {
            let Ok((index, done)) = receiver.recv() else {
                break;
            };
            pending.insert(index, done);
            while let Some(done) = pending.remove(&written) {
                written += 1;
                if let Some(done) = done
                    && !writer.file(done, stderr)
                {
                    stop.store(true, Ordering::Relaxed);
                    break;
                }
                if next < files.len() {
                    spawn(next);
                    next += 1;
                }
            }
        }
    });
    writer.finish(stderr).exit_code()
}

/// The output of the files written so far, in order.
struct Written<'a, W: Write> {
    args: &'a NormalizeArgs,
    out: io::BufWriter<W>,
    audit: Option<&'a mut io::BufWriter<File>>,
    /// The line counts of every file read.
    total: Stats,
    /// Files written.
    files: u64,
    /// Files that could not be read, or were no stream toolnorm reads.
    failed: u64,
    worst: Status,
}

impl<W: Write> Written<'_, W> {
    /// Writes one file's output, diagnostics and audit lines; `false` when the output
    /// cannot take more.
    fn file(&mut self, done: Done, stderr: &mut impl Write) -> bool {
        let _ = stderr.write_all(&done.stderr);
        let mut stdout = done.stdout.as_slice();
        if let Some(terminator) = sse_terminator(self.args) {
            stdout = stdout.strip_suffix(terminator.as_bytes()).unwrap_or(stdout);
        }
        let separate = self.args.format.for_people() && self.files > 0 && !stdout.is_empty();
        self.files += 1;
        add(&mut self.total, &done.ended.stats);
        if matches!(done.ended.status, Status::Failed | Status::Unrecognized) {
            self.failed += 1;
        }
        self.worst = self.worst.max(done.ended.status);
        if let Some(audit) = self.audit.as_mut()
            && let Err(error) = subagents::write_audit(audit, &done.ended.files, &done.audit)
        {
            let _ = writeln!(stderr, "toolnorm: writing the audit file: {error}");
            self.worst = self.worst.max(Status::Failed);
            return false;
        }
        let written = (if separate {
            self.out.write_all(b"\n")
        } else {
            Ok(())
        })
        .and_then(|()| self.out.write_all(stdout))
        .and_then(|()| self.out.flush());
        self.written(written, stderr)
    }

    /// Notes how a write ended; `false` when the output cannot take more.
    fn written(&mut self, result: io::Result<()>, stderr: &mut impl Write) -> bool {
        match result {
            Ok(()) => self.worst != Status::Closed,
            Err(error) if error.kind() == io::ErrorKind::BrokenPipe => {
                self.worst = Status::Closed;
                false
            }
            Err(error) => {
                let _ = writeln!(stderr, "toolnorm: writing output: {error}");
                self.worst = self.worst.max(Status::Failed);
                false
            }
        }
    }

    /// Ends the output with the counts of every file: the worst status of any file.
    fn finish(mut self, stderr: &mut impl Write) -> Status {
        if self.worst == Status::Closed {
            return Status::Closed;
        }
        let files = match self.files {
            1 => "1 file".to_owned(),
            n => format!("{n} files"),
        };
        let failed = match self.failed {
            0 => String::new(),
            n => format!(" ({n} not read)"),
        };
        let summary = format!("{files}{failed}, {}", self.total);
        let mut end = Vec::new();
        if self.args.format.for_people() {
            end.extend_from_slice(format!("\n{summary}\n").as_bytes());
        }
        if let Some(terminator) = sse_terminator(self.args) {
            end.extend_from_slice(terminator.as_bytes());
        }
        let result = self.out.write_all(&end).and_then(|()| self.out.flush());
        self.written(result, stderr);
        if let Some(audit) = self.audit.as_mut()
            && let Err(error) = audit.flush()
        {
            let _ = writeln!(stderr, "toolnorm: writing the audit file: {error}");
            self.worst = self.worst.max(Status::Failed);
        }
        if !self.args.format.for_people() && (self.total.diagnostics > 0 || self.failed > 0) {
            let _ = writeln!(stderr, "toolnorm: {summary}");
        }
        self.worst
    }
}

/// Reads one file (and the subagent transcripts joined to it) through `builder`,
/// everything it writes kept.
fn one(args: &NormalizeArgs, unit: &Unit, builder: NormalizerBuilder) -> Done {
    let path = &unit.path;
    let name = match &unit.session {
        Some(session) => sqlite_stores::session_name(path, session),
        None => input_name(Some(path)),
    };
    let mut stdout = Vec::new();
    let mut stderr = Vec::new();
    let audit = Shared::default();
    // A database's session is its export document; any other file is read as it is.
    let input = match sqlite_stores::document(path, unit.session.as_deref()) {
        Ok(Some(document)) => {
            Ok(Box::new(io::Cursor::new(document)) as Box<dyn io::BufRead + Send>)
        }
        Ok(None) => open_input(Some(path)).map_err(|error| io_message(&error)),
        Err(message) => Err(message),
    };
    let mut input = match input {
        Ok(input) => input,
        Err(message) => {
            let _ = writeln!(stderr, "toolnorm: {name}: {message}");
            return Done {
                stdout,
                stderr,
                audit: Vec::new(),
                ended: Ended {
                    status: Status::Failed,
                    stats: Stats::default(),
                    files: Files(vec![(0, name)]),
                },
            };
        }
    };
    let mut builder = builder
        .keep_events(args.format.needs_events())
        .metadata(SOURCE, name.clone());
    if args.audit.is_some() {
        builder = builder
            .audit_raw(args.audit_raw)
            .audit_to(Box::new(audit.clone()));
    }
    if args.format.for_people() {
        let _ = writeln!(stdout, "{name}");
    }
    let stream = Stream {
        name: &name,
        prefixed: true,
        session_id: args.session_id.clone().unwrap_or_else(|| name.clone()),
        read_ahead: false,
    };
    let ended = run_stream(
        args,
        &stream,
        input.as_mut(),
        &unit.siblings,
        builder.build(),
        &mut stdout,
        &mut stderr,
    );
    Done {
        stdout,
        stderr,
        audit: audit.take(),
        ended,
    }
}

/// Adds the counts of one stream to `total`.
fn add(total: &mut Stats, stats: &Stats) {
    total.lines += stats.lines;
    total.applied_lines += stats.applied_lines;
    total.known_lines += stats.known_lines;
    total.notice_lines += stats.notice_lines;
    total.error_lines += stats.error_lines;
    total.events += stats.events;
    total.changes += stats.changes;
    total.duplicates += stats.duplicates;
    total.diagnostics += stats.diagnostics;
    total.errors += stats.errors;
    total.notices += stats.notices;
}
