//! `toolnorm export`: the spans of `--format otel` sent to an OpenTelemetry collector
//! over OTLP/HTTP, as each call ends (a live stream is exported as it is written).

pub(crate) mod otlp;

use std::fs::File;
use std::io::{self, BufRead, BufReader, Read, Write};
use std::path::{Path, PathBuf};
use std::process::ExitCode;
use std::thread;
use std::time::Duration;

use toolnorm::Fold;
use toolnorm_adapters::{
    Diagnostic, Driver, OtelEmitter, OtelOptions, Sink, Stats, Step, StreamEnd,
};

use crate::normalize::{builders, input_name};
use crate::recordings::expand;
use crate::subagents;
use crate::{EXIT_UNRECOGNIZED, EXIT_USAGE, ReadArgs, io_message};
use otlp::{Exporter, Target};

/// Arguments of `toolnorm export`.
#[derive(Debug, clap::Args)]
pub struct ExportArgs {
    /// How the input is read.
    #[command(flatten)]
    pub read: ReadArgs,
    /// The collector's OTLP/HTTP base URL; spans go to `URL/v1/traces` [default:
    /// `OTEL_EXPORTER_OTLP_TRACES_ENDPOINT` as given, else `OTEL_EXPORTER_OTLP_ENDPOINT`,
    /// else http://localhost:4318].
    #[arg(long, value_name = "URL")]
    pub otlp_endpoint: Option<String>,
    /// A header sent with every request (after those of `OTEL_EXPORTER_OTLP_HEADERS`
    /// and `OTEL_EXPORTER_OTLP_TRACES_HEADERS`); repeatable.
    #[arg(long, value_name = "KEY=VALUE")]
    pub otlp_header: Vec<String>,
    /// Put each call's input and output on its span (`gen_ai.tool.call.arguments`,
    /// `gen_ai.tool.call.result`). Off by default: they can hold secrets (`--redact`
    /// applies) and be large.
    #[arg(long)]
    pub otel_content: bool,
    /// The session (trace) of calls whose stream names none [default: the stream's
    /// first call].
    #[arg(long, value_name = "ID")]
    pub session_id: Option<String>,
    /// Keep reading each file past its end, as it is written (like `tail -f`), and
    /// export its calls as they end; stop with Ctrl-C.
    #[arg(long)]
    pub follow: bool,
    /// The input: files, directories searched for `*.jsonl` and `*.ndjson` files, or
    /// `-` or nothing for stdin (exported as it is read).
    #[arg(value_name = "FILE|DIR")]
    pub inputs: Vec<PathBuf>,
}

/// How long a followed file is left before it is read again, once at its end.
const POLL: Duration = Duration::from_millis(200);

/// `toolnorm export`.
pub fn export(args: &ExportArgs, stderr: &mut impl Write) -> ExitCode {
    let env = |name: &str| std::env::var(name).ok();
    let target = match Target::resolve(args.otlp_endpoint.as_deref(), &args.otlp_header, &env) {
        Ok(target) => target,
        Err(message) => return usage(stderr, &message),
    };
    let make = match builders(&args.read) {
        Ok(make) => make,
        Err(message) => return usage(stderr, &message),
    };
    let inputs = if args.inputs.is_empty() {
        vec![PathBuf::from("-")]
    } else {
        args.inputs.clone()
    };
    let files = match expand(&inputs) {
        Ok(files) => subagents::group(files, true),
        Err(message) => return usage(stderr, &message),
    };
    let url = target.url.clone();
    let exporter = Exporter::start(target);
    let mut status = ExitCode::SUCCESS;
    let mut totals = Totals::default();
    for unit in &files {
        let name = input_name(Some(&unit.path));
        let options = OtelOptions {
            content: args.otel_content,
            session_id: args.session_id.clone(),
        };
        let read = export_one(
            &unit.path,
            &unit.siblings,
            args.follow,
            make().build(),
            options,
            &exporter,
            stderr,
        );
        match read {
            Ok(Some(calls)) => totals.calls += calls,
            Ok(None) => {
                let _ = writeln!(
                    stderr,
                    "toolnorm: {name}: no line is an event of a dialect toolnorm reads"
                );
                status = ExitCode::from(EXIT_UNRECOGNIZED);
            }
            Err(Stop::Read(file, error)) => {
                let _ = writeln!(stderr, "toolnorm: {file}: {}", io_message(&error));
                status = ExitCode::from(EXIT_USAGE);
            }
            Err(Stop::Refused) => break,
        }
    }
    match exporter.finish() {
        Ok(sent) => {
            let rejected = match sent.rejected {
                0 => String::new(),
                n => format!(", {n} rejected by the collector"),
            };
            let _ = writeln!(
                stderr,
                "toolnorm: exported {} span(s) of {} call(s) in {} request(s) to {url}{rejected}",
                sent.spans, totals.calls, sent.requests
            );
            if sent.rejected > 0 {
                status = ExitCode::from(EXIT_USAGE);
            }
            status
        }
        Err(message) => usage(stderr, &message),
    }
}

/// Writes `message` and gives the usage status.
fn usage(stderr: &mut impl Write, message: &str) -> ExitCode {
    let _ = writeln!(stderr, "toolnorm: {message}");
    ExitCode::from(EXIT_USAGE)
}

/// Counts over every file exported.
#[derive(Debug, Default)]
struct Totals {
    calls: u64,
}

/// Why a file's export stopped.
enum Stop {
    /// A file could not be read.
    Read(String, io::Error),
    /// The collector refused the spans: nothing more is sent.
    Refused,
}

/// Exports one stream (a file and the subagent transcripts joined to it): the calls
/// exported, or `None` when no line was of a known dialect.
fn export_one(
    path: &Path,
    siblings: &[PathBuf],
    follow: bool,
    normalizer: toolnorm_adapters::Normalizer,
    options: OtelOptions,
    exporter: &Exporter,
    stderr: &mut impl Write,
) -> Result<Option<u64>, Stop> {
    let name = input_name(Some(&path.to_path_buf()));
    let sink = Spans {
        emitter: OtelEmitter::new(options),
        exporter,
        name: name.clone(),
        stderr,
        calls: 0,
    };
    let mut driver = Driver::new(normalizer, sink);
    for (index, file) in std::iter::once(path)
        .chain(siblings.iter().map(PathBuf::as_path))
        .enumerate()
    {
        let file_name = input_name(Some(&file.to_path_buf()));
        let mut input = open(file, follow && index == 0 && siblings.is_empty())
            .map_err(|error| Stop::Read(file_name.clone(), error))?;
        if index > 0 {
            driver.end_line();
        }
        if let Err(error) = driver.read(input.as_mut()) {
            return Err(match error.kind() {
                io::ErrorKind::BrokenPipe => Stop::Refused,
                _ => Stop::Read(file_name, error),
            });
        }
    }
    let end = driver.finish();
    if driver.take_error().is_some() {
        return Err(Stop::Refused);
    }
    let stats = driver.normalizer().stats();
    if stats.diagnostics > 0 {
        let Spans { stderr, .. } = driver.sink_mut();
        let _ = writeln!(stderr, "toolnorm: {name}: {stats}");
    }
    Ok((end == StreamEnd::Read).then_some(driver.sink().calls))
}

/// Opens `path` (`-` is stdin), followed past its end when `follow`.
fn open(path: &Path, follow: bool) -> io::Result<Box<dyn BufRead>> {
    if path.as_os_str() == "-" {
        return Ok(Box::new(BufReader::new(io::stdin())));
    }
    let file = File::open(path)?;
    Ok(match follow {
        true => Box::new(BufReader::new(Followed(file))),
        false => Box::new(BufReader::new(file)),
    })
}

/// A file read past its end: at the end, it waits and reads again.
struct Followed(File);

impl Read for Followed {
    fn read(&mut self, buffer: &mut [u8]) -> io::Result<usize> {
        loop {
            match self.0.read(buffer)? {
                0 if !buffer.is_empty() => thread::sleep(POLL),
                read => return Ok(read),
            }
        }
    }
}

/// The driver's sink: each ended call's span to the exporter, diagnostics to stderr.
struct Spans<'a, W: Write> {
    emitter: OtelEmitter,
    exporter: &'a Exporter,
    name: String,
    stderr: &'a mut W,
    /// Calls whose spans were sent.
    calls: u64,
}

impl<W: Write> Sink for Spans<'_, W> {
    fn step(&mut self, step: &Step<'_>) -> io::Result<()> {
        let Some(request) = self.emitter.step(step) else {
            return Ok(());
        };
        self.calls += otlp::span_count(&request) as u64;
        match self.exporter.send(request) {
            true => Ok(()),
            false => Err(refused()),
        }
    }

    fn diagnostic(&mut self, diagnostic: &Diagnostic) {
        let _ = writeln!(self.stderr, "{}: {diagnostic}", self.name);
    }

    fn finish(&mut self, fold: &Fold, _: &Stats) -> io::Result<()> {
        for request in self.emitter.finish_fold(fold) {
            // Each request of the end holds a session's root span and its open calls.
            self.calls += otlp::span_count(&request).saturating_sub(1) as u64;
            if !self.exporter.send(request) {
                return Err(refused());
            }
        }
        Ok(())
    }
}

/// The error that stops reading once the exporter stopped (the collector refused).
fn refused() -> io::Error {
    io::Error::new(io::ErrorKind::BrokenPipe, "the collector refused the spans")
}
