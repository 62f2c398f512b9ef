//! `toolnorm normalize`: one stream in, one format out.

use std::fs::File;
use std::io::{self, BufRead, BufReader, Write};
use std::path::PathBuf;
use std::process::ExitCode;

use toolnorm::Fold;
use toolnorm_adapters::{
    AcpOptions, Diagnostic, Driver, Format, Normalizer, NormalizerBuilder, OtelOptions, Sink,
    Stats, Step, StreamEnd, Writer, format_names,
};

use crate::parallel::Shared;
use crate::sqlite_stores;
use crate::subagents::{self, Files};
use crate::{ColorChoice, EXIT_UNRECOGNIZED, EXIT_USAGE, NormalizeArgs, ReadArgs, io_message};

/// Diagnostics on their way to stderr, as the [`Driver`] releases them (the lines
/// detection could not place once the dialect is known; when it never is, one message
/// about the whole input replaces them).
struct Report<'a, E: Write> {
    stderr: &'a mut E,
    /// The input's name, written before each diagnostic when many are read.
    prefix: Option<&'a str>,
    /// The files of a joined stream, to name the file and line of each diagnostic.
    files: Files,
}

impl<E: Write> Report<'_, E> {
    fn diagnostic(&mut self, diagnostic: &Diagnostic) {
        let line = self.render(diagnostic);
        let _ = writeln!(self.stderr, "{line}");
    }

    /// The diagnostic's line on stderr: after its file's name, when many are read or
    /// the stream joins files (its line number then the file's own).
    fn render(&self, diagnostic: &Diagnostic) -> String {
        if self.files.joined()
            && let Some((name, line)) = diagnostic.line.and_then(|line| self.files.locate(line))
        {
            let mut located = diagnostic.clone();
            located.line = Some(line);
            return format!("{name}: {located}");
        }
        match self.prefix {
            Some(prefix) => format!("{prefix}: {diagnostic}"),
            None => diagnostic.to_string(),
        }
    }

    /// Says how many diagnostics of no known dialect were only counted.
    fn more_undetected(&mut self, count: u64) {
        let name = self
            .prefix
            .map(|name| format!("{name}: "))
            .unwrap_or_default();
        let _ = writeln!(
            self.stderr,
            "toolnorm: {name}{count} more line(s) of no known dialect"
        );
    }
}

/// Where a stream's steps go: the `--format` writer, and the diagnostics to stderr.
struct Output<'a, W: Write, E: Write> {
    writer: Writer<io::BufWriter<W>>,
    report: Report<'a, E>,
}

impl<W: Write, E: Write> Sink for Output<'_, W, E> {
    fn step(&mut self, step: &Step<'_>) -> io::Result<()> {
        self.writer.step(step)
    }

    fn diagnostic(&mut self, diagnostic: &Diagnostic) {
        self.report.diagnostic(diagnostic);
    }

    fn more_undetected(&mut self, count: u64) {
        self.report.more_undetected(count);
    }

    fn finish(&mut self, fold: &Fold, stats: &Stats) -> io::Result<()> {
        Sink::finish(&mut self.writer, fold, stats)
    }

    fn flush(&mut self) -> io::Result<()> {
        self.writer.flush()
    }
}

/// The message for an input of which no line is an event toolnorm reads, read through
/// `driver`.
pub(crate) fn unrecognized<S: Sink>(driver: &Driver<S>) -> String {
    driver.unrecognized("`--provider`")
}

/// The input named on the command line: a file, or stdin for `-` or nothing.
pub(crate) fn open_input(input: Option<&PathBuf>) -> io::Result<Box<dyn BufRead + Send>> {
    const CHUNK: usize = 1 << 16;
    match input {
        Some(path) if path.as_os_str() != "-" => {
            Ok(Box::new(BufReader::with_capacity(CHUNK, File::open(path)?)))
        }
        _ => Ok(Box::new(BufReader::with_capacity(CHUNK, io::stdin()))),
    }
}

/// The name of the input in messages: its path, or `stdin`.
pub(crate) fn input_name(input: Option<&PathBuf>) -> String {
    match input {
        Some(path) if path.as_os_str() != "-" => path.display().to_string(),
        _ => "stdin".to_owned(),
    }
}

/// The normalizer the reading options ask for (rules, redaction, MCP servers, cwd).
pub(crate) fn builder(read: &ReadArgs) -> Result<NormalizerBuilder, String> {
    Ok(builders(read)?())
}

/// Makes the normalizers the reading options ask for, the files they name read once.
pub(crate) fn builders(
    read: &ReadArgs,
) -> Result<impl Fn() -> NormalizerBuilder + Sync + '_, String> {
    let reading = crate::reading(read)?;
    Ok(move || reading.builder())
}

/// The options given that do not apply to `format`, as a message.
fn inapplicable(args: &NormalizeArgs) -> Option<String> {
    let format = args.format;
    if args.sse && !format.streams_to_ui() {
        let framed = format_names("--format ", |spec| spec.sse);
        return Some(format!("--sse frames only {framed}, not {format}"));
    }
    if args.session_id.is_some() && !format.takes_session_id() {
        let taking = format_names("", |spec| spec.takes_session_id);
        return Some(format!(
            "--session-id applies to --format {taking}, not {format}"
        ));
    }
    if args.otel_content && format != Format::Otel {
        return Some(format!(
            "--otel-content applies to --format otel, not {format}"
        ));
    }
    if args.color.is_some() && !format.for_people() {
        let coloured = format_names("--format ", |spec| spec.for_people);
        return Some(format!("--color applies to {coloured}, not {format}"));
    }
    None
}

/// Whether `pretty` writes colours: `auto` asks `anstream`, which colours a terminal
/// that can show them unless `NO_COLOR` (<https://no-color.org>) or `CLICOLOR=0` says
/// not to, and also a pipe when `CLICOLOR_FORCE` says to.
fn colors(choice: ColorChoice) -> bool {
    match choice {
        ColorChoice::Always => true,
        ColorChoice::Never => false,
        ColorChoice::Auto => !matches!(
            anstream::AutoStream::choice(&io::stdout()),
            anstream::ColorChoice::Never
        ),
    }
}

/// `toolnorm normalize`: one file or stdin streamed as it is read; more files, or a
/// directory, go to the `many` module.
pub fn normalize(args: &NormalizeArgs, stdout: impl Write, stderr: &mut impl Write) -> ExitCode {
    if let Some(message) = inapplicable(args) {
        let _ = writeln!(stderr, "toolnorm: {message}");
        return ExitCode::from(EXIT_USAGE);
    }
    let database = matches!(args.inputs.as_slice(), [path] if sqlite_stores::is_sqlite(path));
    if args.only_session.is_some() && !database {
        let _ = writeln!(
            stderr,
            "toolnorm: --only-session applies to one session database (OpenCode's opencode.db, \
             Goose's sessions.db) as the input"
        );
        return ExitCode::from(EXIT_USAGE);
    }
    // A database's sessions are many streams, unless one is picked.
    if crate::parallel::is_many(&args.inputs) || (database && args.only_session.is_none()) {
        return crate::parallel::normalize_many(args, stdout, stderr);
    }
    let format = args.format;
    let mut builder = match builder(&args.read) {
        Ok(builder) => builder.keep_events(format.needs_events()),
        Err(message) => {
            let _ = writeln!(stderr, "toolnorm: {message}");
            return ExitCode::from(EXIT_USAGE);
        }
    };
    let path = args.inputs.first();
    // The session picked from a database: its export document.
    let (name, document) = match (path, &args.only_session) {
        (Some(path), Some(id)) => match sqlite_stores::document(path, Some(id)) {
            Ok(document) => (sqlite_stores::session_name(path, id), document),
            Err(message) => {
                let _ = writeln!(stderr, "toolnorm: {}: {message}", path.display());
                return ExitCode::from(EXIT_USAGE);
            }
        },
        _ => (input_name(path), None),
    };
    let siblings = match path {
        Some(path) if !args.no_siblings && document.is_none() && path.as_os_str() != "-" => {
            subagents::siblings(path)
        }
        _ => Vec::new(),
    };
    let input = match document {
        Some(bytes) => Ok(Box::new(io::Cursor::new(bytes)) as Box<dyn BufRead + Send>),
        None => open_input(path),
    };
    let mut input = match input {
        Ok(input) => input,
        Err(error) => {
            let _ = writeln!(stderr, "toolnorm: {name}: {}", io_message(&error));
            return ExitCode::from(EXIT_USAGE);
        }
    };
    if args.audit_raw {
        builder = builder.audit_raw(true);
    }
    // A joined session's audit lines are numbered in their file, after its name.
    let mut joined_audit = None;
    if let Some(path) = &args.audit {
        match File::create(path) {
            Ok(file) if !siblings.is_empty() => {
                let shared = Shared::default();
                builder = builder.audit_to(Box::new(shared.clone()));
                joined_audit = Some((io::BufWriter::new(file), shared));
            }
            Ok(file) => builder = builder.audit_to(Box::new(io::BufWriter::new(file))),
            Err(error) => {
                let _ = writeln!(
                    stderr,
                    "toolnorm: {}: {}",
                    path.display(),
                    io_message(&error)
                );
                return ExitCode::from(EXIT_USAGE);
            }
        }
    }
    let stream = Stream {
        name: &name,
        prefixed: false,
        session_id: args
            .session_id
            .clone()
            .unwrap_or_else(|| "toolnorm".to_owned()),
        read_ahead: args.threads.is_none_or(|threads| threads > 1),
    };
    let ended = run_stream(
        args,
        &stream,
        input.as_mut(),
        &siblings,
        builder.build(),
        stdout,
        stderr,
    );
    if let Some((mut file, shared)) = joined_audit
        && let Err(error) = subagents::write_audit(&mut file, &ended.files, &shared.take())
            .and_then(|()| file.flush())
    {
        let _ = writeln!(stderr, "toolnorm: writing the audit file: {error}");
        return ExitCode::from(EXIT_USAGE);
    }
    ended.status.exit_code()
}

/// How one stream's run ended, worst last.
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord)]
pub(crate) enum Status {
    /// Read to its end.
    Read,
    /// `--strict` or `--deny-unknown` found what they deny (exit status 1).
    Denied,
    /// No line was an event of a known dialect (exit status 3).
    Unrecognized,
    /// The input could not be read, or the output not written (exit status 2).
    Failed,
    /// The output was closed (`| head`): a normal way for output to end.
    Closed,
}

impl Status {
    /// The exit status of a run that ended so.
    pub(crate) fn exit_code(self) -> ExitCode {
        match self {
            Status::Read | Status::Closed => ExitCode::SUCCESS,
            Status::Denied => ExitCode::FAILURE,
            Status::Unrecognized => ExitCode::from(EXIT_UNRECOGNIZED),
            Status::Failed => ExitCode::from(EXIT_USAGE),
        }
    }
}

/// What one stream's run ended with.
pub(crate) struct Ended {
    pub(crate) status: Status,
    /// The line counts.
    pub(crate) stats: Stats,
    /// The files read, where each starts in the stream.
    pub(crate) files: Files,
}

/// One stream to normalize.
pub(crate) struct Stream<'a> {
    /// Its name in messages (its path, or `stdin`).
    pub(crate) name: &'a str,
    /// Whether each diagnostic and the line counts start with the name (many inputs).
    pub(crate) prefixed: bool,
    /// The session id of `acp` frames, of `ai-sdk` messages and `ag-ui` threads.
    pub(crate) session_id: String,
    /// Whether its lines may be read ahead on another core (one stream at a time, not
    /// when streams already share the cores).
    pub(crate) read_ahead: bool,
}

/// Reads `first`, then the files `siblings` (a session's subagent transcripts), as one
/// stream through `normalizer`, writing the `--format` output on `stdout` and the
/// diagnostics and messages on `stderr`.
pub(crate) fn run_stream(
    args: &NormalizeArgs,
    stream: &Stream<'_>,
    first: &mut (dyn BufRead + Send),
    siblings: &[PathBuf],
    normalizer: Normalizer,
    stdout: impl Write,
    stderr: &mut impl Write,
) -> Ended {
    let name = stream.name;
    let acp = AcpOptions {
        session_id: stream.session_id.clone(),
        output_cap: args.read.output_cap(),
    };
    let otel = OtelOptions {
        content: args.otel_content,
        session_id: args.session_id.clone(),
    };
    // Flushed after each chunk of input read rather than after each update: a live
    // stream's updates leave before the next read waits, a file's in large writes.
    let writer = Writer::with_acp(
        args.format,
        acp,
        io::BufWriter::with_capacity(1 << 16, stdout),
    )
    .batched(true)
    .otel(otel)
    .sse(args.sse)
    .color(colors(args.color.unwrap_or(ColorChoice::Auto)));
    let output = Output {
        writer,
        report: Report {
            stderr: &mut *stderr,
            prefix: stream.prefixed.then_some(name),
            files: Files(vec![(0, name.to_owned())]),
        },
    };
    let mut driver = Driver::new(normalizer, output);
    let read = |driver: &mut Driver<_>, input: &mut (dyn BufRead + Send)| match stream.read_ahead {
        true => driver.read_ahead(input),
        false => driver.read(input),
    };
    let mut read_error = read(&mut driver, first)
        .err()
        .map(|error| (name.to_owned(), error));
    for sibling in siblings {
        if read_error.is_some() {
            break;
        }
        // Each file ends its last line, so that it is not joined to the next file's first.
        driver.end_line();
        let sibling_name = input_name(Some(sibling));
        let mut input = match open_input(Some(sibling)) {
            Ok(input) => input,
            Err(error) => {
                read_error = Some((sibling_name, error));
                break;
            }
        };
        let before = driver.normalizer().stats().lines;
        driver
            .sink_mut()
            .report
            .files
            .0
            .push((before, sibling_name.clone()));
        read_error = read(&mut driver, input.as_mut())
            .err()
            .map(|error| (sibling_name, error));
    }
    let end = driver.finish();
    let write_error = driver.take_error();
    let audit = match write_error {
        None => driver.normalizer_mut().finish_audit(),
        Some(_) => Ok(()),
    };
    let stats = driver.normalizer().stats();
    // Made before the driver is taken apart, and only for an input no dialect read.
    let unrecognized = (end == StreamEnd::Unrecognized).then(|| unrecognized(&driver));
    let Output { report, .. } = driver.into_sink();
    let Report { stderr, files, .. } = report;
    let ended = |status| Ended {
        status,
        stats,
        files: files.clone(),
    };
    if let Some(error) = write_error {
        // A closed pipe (`| head`) is a normal way for output to end.
        if error.kind() == io::ErrorKind::BrokenPipe {
            return ended(Status::Closed);
        }
        let _ = writeln!(stderr, "toolnorm: writing output: {error}");
        return ended(Status::Failed);
    }
    if let Err(error) = audit {
        let _ = writeln!(stderr, "toolnorm: writing the audit file: {error}");
        return ended(Status::Failed);
    }
    if let Some((name, error)) = read_error {
        let _ = writeln!(stderr, "toolnorm: {name}: {}", io_message(&error));
        return ended(Status::Failed);
    }
    if let Some(unrecognized) = unrecognized {
        let _ = writeln!(stderr, "toolnorm: {name}: {unrecognized}");
        return ended(Status::Unrecognized);
    }
    if stats.diagnostics > 0 {
        match stream.prefixed {
            true => writeln!(stderr, "toolnorm: {name}: {stats}"),
            false => writeln!(stderr, "toolnorm: {stats}"),
        }
        .ok();
    }
    if (args.strict && stats.errors > 0) || (args.deny_unknown && stats.diagnostics > 0) {
        ended(Status::Denied)
    } else {
        ended(Status::Read)
    }
}
