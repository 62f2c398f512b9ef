//! The `toolnorm` command line, as a library: argument parsing and the `normalize` run.
#![deny(missing_docs)]

use std::cell::RefCell;
use std::fs::File;
use std::io::{self, BufRead, BufReader, Write};
use std::path::PathBuf;
use std::process::ExitCode;

use clap::builder::{PossibleValue, PossibleValuesParser, TypedValueParser};
use clap::{Parser, Subcommand};
use serde::de::IgnoredAny;
use toolnorm_adapters::{
    AcpOptions, Diagnostic, DiagnosticKind, Dialect, Format, Normalizer, Redactor, Step,
    TitleRules, Writer,
};

/// Normalize the tool-call events of AI coding agents into one canonical lifecycle.
#[derive(Debug, Parser)]
#[command(name = "toolnorm", version, about)]
pub struct Cli {
    /// What to do.
    #[command(subcommand)]
    pub command: Command,
}

/// The subcommands.
#[derive(Debug, Subcommand)]
pub enum Command {
    /// Read an event stream and write canonical tool parts.
    Normalize(Box<NormalizeArgs>),
    /// List the dialects toolnorm reads (the values of `normalize --provider`).
    Dialects(DialectsArgs),
}

/// Arguments of `toolnorm dialects`.
#[derive(Debug, clap::Args)]
pub struct DialectsArgs {
    /// Only the names, one per line (for scripts).
    #[arg(long)]
    pub names: bool,
}

/// Arguments of `toolnorm normalize`.
#[derive(Debug, clap::Args)]
pub struct NormalizeArgs {
    /// The input dialect.
    #[arg(long, value_name = "DIALECT", default_value = "auto", value_parser = provider_parser())]
    pub provider: Provider,
    /// The output format.
    #[arg(long, default_value = "parts", value_parser = format_parser())]
    pub format: Format,
    /// Exit with status 1 when an error was reported (a line that could not be used).
    #[arg(long)]
    pub strict: bool,
    /// Exit with status 1 when anything was reported, notices of events this version
    /// does not know included (for drift canaries).
    #[arg(long)]
    pub deny_unknown: bool,
    /// A TOML file of title and kind rules, tried before the built-in ones.
    #[arg(long, value_name = "FILE")]
    pub rules: Option<PathBuf>,
    /// The cap on partial output kept per running call, in bytes.
    #[arg(long, value_name = "BYTES", default_value_t = toolnorm::DEFAULT_OUTPUT_CAP)]
    pub output_cap: usize,
    /// The `sessionId` of `--format acp` frames (`rawOutput` and text content are capped
    /// at `--output-cap`); in `ai-sdk` the message id, in `ag-ui` the thread id, of calls
    /// that name no session.
    #[arg(long, value_name = "ID", default_value = "toolnorm")]
    pub session_id: String,
    /// Frame `--format ai-sdk` and `--format ag-ui` as server-sent events (`data: …`
    /// lines, as an HTTP response streams them).
    #[arg(long)]
    pub sse: bool,
    /// An MCP server name (repeatable), to split OpenCode's `<server>_<tool>` names.
    #[arg(long = "mcp-server", value_name = "NAME")]
    pub mcp_servers: Vec<String>,
    /// The directory the session ran in, for paths in titles shown relative to it when
    /// the stream does not name one (`codex exec --json`, `opencode run`, an ACP log
    /// without the client's requests).
    #[arg(long, value_name = "DIR")]
    pub cwd: Option<String>,
    /// Write every input line that produced a diagnostic to FILE, verbatim, as
    /// `N<TAB>line` (N the line number); redacted with `--redact`.
    #[arg(long, value_name = "FILE")]
    pub audit: Option<PathBuf>,
    /// Replace secrets (API keys and tokens, passwords, private keys, credentials in
    /// URLs and headers) with `[REDACTED:<kind>]` in everything written: every format,
    /// diagnostics and the audit file.
    #[arg(long)]
    pub redact: bool,
    /// More patterns to redact (implies `--redact`): a TOML file of `[[pattern]]` tables
    /// with `kind` and `regex`.
    #[arg(long, value_name = "FILE")]
    pub redact_patterns: Option<PathBuf>,
    /// A pattern to redact, `KIND=REGEX` (repeatable; implies `--redact`).
    #[arg(long, value_name = "KIND=REGEX")]
    pub redact_pattern: Vec<String>,
    /// With `--redact`: write the audit file's lines as read, secrets included.
    #[arg(long, requires = "audit")]
    pub audit_raw: bool,
    /// The input file; `-` or nothing reads stdin.
    #[arg(value_name = "FILE")]
    pub input: Option<PathBuf>,
}

/// The `--provider` choice: `auto` (detect the dialect from the first lines) or one of
/// the library's dialects.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Provider(pub Option<Dialect>);

/// `--provider` values: `auto`, then every dialect of the provider registry.
fn provider_parser() -> impl TypedValueParser<Value = Provider> {
    let auto = PossibleValue::new("auto").help("Detect the dialect from the first lines");
    let dialects = Dialect::all()
        .map(|dialect| PossibleValue::new(dialect.as_str()).help(dialect.summary().unwrap_or("")));
    PossibleValuesParser::new(std::iter::once(auto).chain(dialects))
        .map(|name| Provider(Dialect::from_name(&name)))
}

/// `--format` values: the library's formats.
fn format_parser() -> impl TypedValueParser<Value = Format> {
    let formats = Format::ALL
        .iter()
        .map(|format| PossibleValue::new(format.as_str()).help(format.summary()));
    PossibleValuesParser::new(formats).map(|name| Format::from_name(&name).unwrap_or_default())
}

/// Exit status for usage errors and unreadable input.
pub const EXIT_USAGE: u8 = 2;

/// Exit status when no line of the input is an event of a dialect toolnorm reads (the
/// dialect detected, no `--provider` named).
pub const EXIT_UNRECOGNIZED: u8 = 3;

/// How many `undetected-dialect` diagnostics are held, at most, while the dialect is not
/// known (the rest are counted).
const HELD: usize = 4096;

/// Diagnostics on their way to stderr. While the dialect is being detected, the lines
/// detection could not place are held back: once it is known they are written; when it
/// never is, one message about the whole input replaces them.
struct Report<'a, E: Write> {
    stderr: &'a mut E,
    held: Vec<String>,
    /// Held diagnostics beyond [`HELD`], counted only.
    unheld: u64,
}

impl<E: Write> Report<'_, E> {
    fn diagnostic(&mut self, diagnostic: &Diagnostic) {
        if diagnostic.kind == DiagnosticKind::UndetectedDialect {
            if self.held.len() < HELD {
                self.held.push(diagnostic.to_string());
            } else {
                self.unheld += 1;
            }
            return;
        }
        self.release();
        let _ = writeln!(self.stderr, "{diagnostic}");
    }

    /// Writes the held diagnostics.
    fn release(&mut self) {
        for line in self.held.drain(..) {
            let _ = writeln!(self.stderr, "{line}");
        }
        if self.unheld > 0 {
            let _ = writeln!(
                self.stderr,
                "toolnorm: {} more line(s) of no known dialect",
                self.unheld
            );
            self.unheld = 0;
        }
    }
}

/// The message for an input of which no line is an event toolnorm reads; `head` is the
/// start of the input.
fn unrecognized(head: &[u8]) -> String {
    let dialects: Vec<String> = Dialect::all()
        .map(|dialect| format!("`{dialect}`"))
        .collect();
    let mut message = format!(
        "no line is an event toolnorm reads: expected JSON Lines (one JSON event per line) \
         of one of {} (`--provider` names one)",
        dialects.join(", ")
    );
    if is_multi_line_json(head) {
        message.push_str(
            "; this looks like one JSON document over several lines, but input is JSON \
             Lines: one event per line (`jq -c` writes them)",
        );
    }
    message
}

/// Whether `head` starts with a JSON document that spans several lines (pretty-printed
/// JSON rather than JSON Lines), or looks like the start of one.
fn is_multi_line_json(head: &[u8]) -> bool {
    let text = head.trim_ascii_start();
    let mut values = serde_json::Deserializer::from_slice(text).into_iter::<IgnoredAny>();
    match values.next() {
        Some(Ok(_)) => text
            .get(..values.byte_offset())
            .is_some_and(|value| value.contains(&b'\n')),
        // Cut short (the head is only the start of the input): a first line that only
        // opens an object or array.
        Some(Err(error)) if error.is_eof() => {
            let first = text.split(|&byte| byte == b'\n').next().unwrap_or_default();
            matches!(first.trim_ascii(), b"{" | b"[")
        }
        _ => false,
    }
}

/// An I/O error for people: `Is a directory`, without the OS error number.
fn io_message(error: &io::Error) -> String {
    let text = error.to_string();
    match text.find(" (os error ") {
        Some(at) if error.raw_os_error().is_some() => text.get(..at).unwrap_or(&text).to_owned(),
        _ => text,
    }
}

/// Runs the command line; diagnostics go to `stderr`.
pub fn run(cli: Cli, stdout: impl Write, stderr: &mut impl Write) -> ExitCode {
    match cli.command {
        Command::Normalize(args) => normalize(&args, stdout, stderr),
        Command::Dialects(args) => dialects(&args, stdout),
    }
}

/// `toolnorm dialects`: the dialects of the provider registry, in its order.
pub fn dialects(args: &DialectsArgs, mut stdout: impl Write) -> ExitCode {
    let mut result = Ok(());
    for dialect in Dialect::all() {
        if result.is_err() {
            break;
        }
        result = if args.names {
            writeln!(stdout, "{dialect}")
        } else {
            writeln!(
                stdout,
                "{:<18} {:<12} {}",
                dialect.as_str(),
                dialect.provider(),
                dialect.summary().unwrap_or_default()
            )
        };
    }
    match result.and_then(|()| stdout.flush()) {
        Err(error) if error.kind() != io::ErrorKind::BrokenPipe => ExitCode::from(EXIT_USAGE),
        _ => ExitCode::SUCCESS,
    }
}

fn open_input(input: Option<&PathBuf>) -> io::Result<Box<dyn BufRead>> {
    const CHUNK: usize = 1 << 16;
    match input {
        None => Ok(Box::new(BufReader::with_capacity(CHUNK, io::stdin()))),
        Some(path) if path.as_os_str() == "-" => {
            Ok(Box::new(BufReader::with_capacity(CHUNK, io::stdin())))
        }
        Some(path) => Ok(Box::new(BufReader::with_capacity(CHUNK, File::open(path)?))),
    }
}

fn load_rules(path: Option<&PathBuf>) -> Result<TitleRules, String> {
    let builtin = TitleRules::builtin();
    let Some(path) = path else { return Ok(builtin) };
    let text =
        std::fs::read_to_string(path).map_err(|error| format!("{}: {error}", path.display()))?;
    let user = TitleRules::from_toml(&text, &path.display().to_string())
        .map_err(|error| error.to_string())?;
    Ok(user.then(builtin))
}

/// The redactor the flags ask for, if any.
fn load_redactor(args: &NormalizeArgs) -> Result<Option<Redactor>, String> {
    if !args.redact && args.redact_patterns.is_none() && args.redact_pattern.is_empty() {
        return Ok(None);
    }
    let mut redactor = Redactor::builtin();
    if let Some(path) = &args.redact_patterns {
        let text = std::fs::read_to_string(path)
            .map_err(|error| format!("{}: {error}", path.display()))?;
        redactor = redactor
            .with_patterns_toml(&text, &path.display().to_string())
            .map_err(|error| error.to_string())?;
    }
    for pattern in args.redact_pattern.iter().rev() {
        let Some((kind, regex)) = pattern.split_once('=') else {
            return Err(format!("--redact-pattern {pattern}: expected KIND=REGEX"));
        };
        redactor = redactor
            .with_pattern(kind, regex)
            .map_err(|error| error.to_string())?;
    }
    Ok(Some(redactor))
}

/// `toolnorm normalize`.
pub fn normalize(args: &NormalizeArgs, stdout: impl Write, stderr: &mut impl Write) -> ExitCode {
    let rules = match load_rules(args.rules.as_ref()) {
        Ok(rules) => rules,
        Err(message) => {
            let _ = writeln!(stderr, "toolnorm: {message}");
            return ExitCode::from(EXIT_USAGE);
        }
    };
    let redactor = match load_redactor(args) {
        Ok(redactor) => redactor,
        Err(message) => {
            let _ = writeln!(stderr, "toolnorm: {message}");
            return ExitCode::from(EXIT_USAGE);
        }
    };
    let name = match &args.input {
        Some(path) if path.as_os_str() != "-" => path.display().to_string(),
        _ => "stdin".to_owned(),
    };
    let mut input = match open_input(args.input.as_ref()) {
        Ok(input) => input,
        Err(error) => {
            let _ = writeln!(stderr, "toolnorm: {name}: {}", io_message(&error));
            return ExitCode::from(EXIT_USAGE);
        }
    };
    let format = args.format;
    if args.sse && !format.streams_to_ui() {
        let _ = writeln!(
            stderr,
            "toolnorm: --sse frames only --format ai-sdk and --format ag-ui, not {format}"
        );
        return ExitCode::from(EXIT_USAGE);
    }
    let mut builder = Normalizer::builder()
        .dialect(args.provider.0)
        .output_cap(args.output_cap)
        .evict_finished(true)
        .keep_events(format.needs_events())
        .rules(rules)
        .mcp_servers(args.mcp_servers.iter().cloned());
    if let Some(cwd) = &args.cwd {
        builder = builder.cwd(cwd.as_str());
    }
    if let Some(redactor) = redactor {
        builder = builder.redact(redactor).audit_raw(args.audit_raw);
    }
    if let Some(path) = &args.audit {
        match File::create(path) {
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
    let mut normalizer = builder.build();
    let acp = AcpOptions {
        session_id: args.session_id.clone(),
        output_cap: args.output_cap,
    };
    let mut writer = Writer::with_acp(format, acp, io::BufWriter::new(stdout)).sse(args.sse);
    let mut write_error: Option<io::Error> = None;
    let report = RefCell::new(Report {
        stderr: &mut *stderr,
        held: Vec::new(),
        unheld: 0,
    });
    let mut on_step = |step: Step<'_>| {
        if let Step::Diagnostic(diagnostic) = &step {
            report.borrow_mut().diagnostic(diagnostic);
        }
        if write_error.is_none()
            && let Err(error) = writer.step(&step)
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
    let read_error = pump(
        &mut input,
        &mut normalizer,
        &mut on_step,
        &mut after_chunk,
        &mut head,
    );
    normalizer.finish(&mut on_step);
    let hopeless = normalizer.dialect().is_none() && !report.borrow().held.is_empty();
    if !hopeless {
        report.borrow_mut().release();
    }
    let stderr = report.into_inner().stderr;
    if write_error.is_none()
        && let Err(error) = writer
            .finish(normalizer.fold())
            .and_then(|()| writer.summary(&normalizer.stats()))
    {
        write_error = Some(error);
    }
    if let Some(error) = write_error {
        // A closed pipe (`| head`) is a normal way for output to end.
        if error.kind() == io::ErrorKind::BrokenPipe {
            return ExitCode::SUCCESS;
        }
        let _ = writeln!(stderr, "toolnorm: writing output: {error}");
        return ExitCode::from(EXIT_USAGE);
    }
    if let Err(error) = normalizer.finish_audit() {
        let _ = writeln!(stderr, "toolnorm: writing the audit file: {error}");
        return ExitCode::from(EXIT_USAGE);
    }
    if let Some(error) = read_error {
        let _ = writeln!(stderr, "toolnorm: {name}: {}", io_message(&error));
        return ExitCode::from(EXIT_USAGE);
    }
    if hopeless {
        let _ = writeln!(stderr, "toolnorm: {name}: {}", unrecognized(&head));
        return ExitCode::from(EXIT_UNRECOGNIZED);
    }
    let stats = normalizer.stats();
    if stats.diagnostics > 0 {
        let _ = writeln!(stderr, "toolnorm: {stats}");
    }
    if (args.strict && stats.errors > 0) || (args.deny_unknown && stats.diagnostics > 0) {
        ExitCode::FAILURE
    } else {
        ExitCode::SUCCESS
    }
}

/// How much of the start of the input is kept, to say what it looks like.
const HEAD: usize = 1 << 16;

/// Feeds the whole input through the normalizer, chunk by chunk, calling `after_chunk`
/// after each; keeps the first [`HEAD`] bytes in `head`.
fn pump(
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
