//! `toolnorm normalize`: one stream in, one format out.

use std::cell::RefCell;
use std::fs::File;
use std::io::{self, BufRead, BufReader, Write};
use std::path::PathBuf;
use std::process::ExitCode;

use toolnorm::Fold;
use toolnorm_adapters::{
    AcpOptions, Diagnostic, DiagnosticKind, Format, Normalizer, NormalizerBuilder, Stats, Step,
    Writer,
};

use crate::many::Shared;
use crate::pretty::{Colors, PrettyWriter};
use crate::session::{self, Files, Tail};
use crate::{ColorChoice, EXIT_UNRECOGNIZED, EXIT_USAGE, NormalizeArgs, ReadArgs, io_message};

/// How many `undetected-dialect` diagnostics are held, at most, while the dialect is not
/// known (the rest are counted).
const HELD: usize = 4096;

/// Diagnostics on their way to stderr. While the dialect is being detected, the lines
/// detection could not place are held back: once it is known they are written; when it
/// never is, one message about the whole input replaces them.
struct Report<'a, E: Write> {
    stderr: &'a mut E,
    /// The input's name, written before each diagnostic when many are read.
    prefix: Option<&'a str>,
    /// The files of a joined stream, to name the file and line of each diagnostic.
    files: Files,
    held: Vec<String>,
    /// Held diagnostics beyond [`HELD`], counted only.
    unheld: u64,
}

impl<E: Write> Report<'_, E> {
    fn diagnostic(&mut self, diagnostic: &Diagnostic) {
        let line = self.render(diagnostic);
        if diagnostic.kind == DiagnosticKind::UndetectedDialect {
            if self.held.len() < HELD {
                self.held.push(line);
            } else {
                self.unheld += 1;
            }
            return;
        }
        self.release();
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

    /// Writes the held diagnostics.
    fn release(&mut self) {
        for line in self.held.drain(..) {
            let _ = writeln!(self.stderr, "{line}");
        }
        if self.unheld > 0 {
            let name = self
                .prefix
                .map(|name| format!("{name}: "))
                .unwrap_or_default();
            let _ = writeln!(
                self.stderr,
                "toolnorm: {name}{} more line(s) of no known dialect",
                self.unheld
            );
            self.unheld = 0;
        }
    }
}

/// The message for an input of which no line is an event toolnorm reads; `head` is the
/// start of the input.
pub(crate) fn unrecognized(head: &[u8]) -> String {
    toolnorm_adapters::unrecognized_input(head, "`--provider`")
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
        return Some(format!(
            "--sse frames only --format ai-sdk and --format ag-ui, not {format}"
        ));
    }
    if args.session_id.is_some() && !matches!(format, Format::Acp | Format::AiSdk | Format::AgUi) {
        return Some(format!(
            "--session-id applies to --format acp, ai-sdk and ag-ui, not {format}"
        ));
    }
    if args.color.is_some() && format != Format::Pretty {
        return Some(format!("--color applies to --format pretty, not {format}"));
    }
    None
}

/// Where the steps go: the library's writer, or the tree of `pretty`.
enum Output<W: Write> {
    Writer(Box<Writer<W>>),
    Pretty(PrettyWriter<W>),
}

impl<W: Write> Output<W> {
    fn step(&mut self, step: &Step<'_>) -> io::Result<()> {
        match self {
            Output::Writer(writer) => writer.step(step),
            Output::Pretty(writer) => writer.step(step),
        }
    }

    fn finish(&mut self, fold: &Fold, stats: &Stats) -> io::Result<()> {
        match self {
            Output::Writer(writer) => writer.finish(fold).and_then(|()| writer.summary(stats)),
            Output::Pretty(writer) => writer.finish(fold, stats),
        }
    }
}

/// `toolnorm normalize`: one file or stdin streamed as it is read; more files, or a
/// directory, go to the `many` module.
pub fn normalize(args: &NormalizeArgs, stdout: impl Write, stderr: &mut impl Write) -> ExitCode {
    if let Some(message) = inapplicable(args) {
        let _ = writeln!(stderr, "toolnorm: {message}");
        return ExitCode::from(EXIT_USAGE);
    }
    if crate::many::is_many(&args.inputs) {
        return crate::many::normalize_many(args, stdout, stderr);
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
    let name = input_name(path);
    let siblings = match path {
        Some(path) if !args.no_siblings && path.as_os_str() != "-" => session::siblings(path),
        _ => Vec::new(),
    };
    let mut input = match open_input(path) {
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
        && let Err(error) = session::write_audit(&mut file, &ended.files, &shared.take())
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
}

/// Reads `first`, then the files `siblings` (a session's subagent transcripts), as one
/// stream through `normalizer`, writing the `--format` output on `stdout` and the
/// diagnostics and messages on `stderr`.
pub(crate) fn run_stream(
    args: &NormalizeArgs,
    stream: &Stream<'_>,
    first: &mut dyn BufRead,
    siblings: &[PathBuf],
    mut normalizer: Normalizer,
    stdout: impl Write,
    stderr: &mut impl Write,
) -> Ended {
    let name = stream.name;
    let format = args.format;
    let out = io::BufWriter::new(stdout);
    let mut output = if format == Format::Pretty {
        let colors = Colors::choose(args.color.unwrap_or(ColorChoice::Auto));
        Output::Pretty(PrettyWriter::new(out, colors))
    } else {
        let acp = AcpOptions {
            session_id: stream.session_id.clone(),
            output_cap: args.read.output_cap(),
        };
        Output::Writer(Box::new(Writer::with_acp(format, acp, out).sse(args.sse)))
    };
    let mut write_error: Option<io::Error> = None;
    let report = RefCell::new(Report {
        stderr: &mut *stderr,
        prefix: stream.prefixed.then_some(name),
        files: Files(vec![(0, name.to_owned())]),
        held: Vec::new(),
        unheld: 0,
    });
    let mut on_step = |step: Step<'_>| {
        if let Step::Diagnostic(diagnostic) = &step {
            report.borrow_mut().diagnostic(diagnostic);
        }
        if write_error.is_none()
            && let Err(error) = output.step(&step)
        {
            write_error = Some(error);
        }
    };
    let mut head = Vec::new();
    let mut after_chunk = |normalizer: &Normalizer| {
        if normalizer.dialect().is_some() {
            report.borrow_mut().release();
        }
    };
    let mut tail = Tail::new(first);
    let mut read_error = pump(
        &mut tail,
        &mut normalizer,
        &mut on_step,
        &mut after_chunk,
        &mut head,
    )
    .map(|error| (name.to_owned(), error));
    let mut last = tail.last;
    for sibling in siblings {
        if read_error.is_some() {
            break;
        }
        // Each file ends its last line, so that it is not joined to the next file's first.
        if last.is_some_and(|byte| byte != b'\n') {
            normalizer.push(b"\n", &mut on_step);
        }
        let sibling_name = input_name(Some(sibling));
        let mut input = match open_input(Some(sibling)) {
            Ok(input) => input,
            Err(error) => {
                read_error = Some((sibling_name, error));
                break;
            }
        };
        let before = normalizer.stats().lines;
        report
            .borrow_mut()
            .files
            .0
            .push((before, sibling_name.clone()));
        let mut tail = Tail::new(input.as_mut());
        read_error = pump(
            &mut tail,
            &mut normalizer,
            &mut on_step,
            &mut after_chunk,
            &mut head,
        )
        .map(|error| (sibling_name, error));
        last = tail.last;
    }
    normalizer.finish(&mut on_step);
    let hopeless = normalizer.dialect().is_none() && !report.borrow().held.is_empty();
    if !hopeless {
        report.borrow_mut().release();
    }
    let Report { stderr, files, .. } = report.into_inner();
    let stats = normalizer.stats();
    let ended = |status| Ended {
        status,
        stats,
        files: files.clone(),
    };
    if write_error.is_none()
        && let Err(error) = output.finish(normalizer.fold(), &stats)
    {
        write_error = Some(error);
    }
    if let Some(error) = write_error {
        // A closed pipe (`| head`) is a normal way for output to end.
        if error.kind() == io::ErrorKind::BrokenPipe {
            return ended(Status::Closed);
        }
        let _ = writeln!(stderr, "toolnorm: writing output: {error}");
        return ended(Status::Failed);
    }
    if let Err(error) = normalizer.finish_audit() {
        let _ = writeln!(stderr, "toolnorm: writing the audit file: {error}");
        return ended(Status::Failed);
    }
    if let Some((name, error)) = read_error {
        let _ = writeln!(stderr, "toolnorm: {name}: {}", io_message(&error));
        return ended(Status::Failed);
    }
    if hopeless {
        let _ = writeln!(stderr, "toolnorm: {name}: {}", unrecognized(&head));
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

/// How much of the start of the input is kept, to say what it looks like.
pub(crate) const HEAD: usize = 1 << 16;

/// Feeds the whole input through the normalizer, chunk by chunk, calling `after_chunk`
/// after each; keeps the first [`HEAD`] bytes in `head`.
pub(crate) fn pump(
    input: &mut dyn BufRead,
    normalizer: &mut Normalizer,
    on_step: &mut dyn FnMut(Step<'_>),
    after_chunk: &mut dyn FnMut(&Normalizer),
    head: &mut Vec<u8>,
) -> Option<io::Error> {
    loop {
        let chunk = match input.fill_buf() {
            Ok([]) => return None,
            Ok(chunk) => chunk,
            Err(error) if error.kind() == io::ErrorKind::Interrupted => continue,
            Err(error) => return Some(error),
        };
        let length = chunk.len();
        let room = HEAD.saturating_sub(head.len()).min(length);
        head.extend_from_slice(chunk.get(..room).unwrap_or_default());
        normalizer.push(chunk, on_step);
        input.consume(length);
        after_chunk(normalizer);
    }
}
