//! The `toolnorm` command line, as a library: argument parsing and the runs of its
//! subcommands (`normalize`, `view`, `stats`, `dialects`, `export`, `sessions`, `index`,
//! `serve`).
//!
//! What the command does is told in the book: [the command](https://github.com/toolnorm/toolnorm/blob/main/docs/src/user-guide/command.md),
//! its [output formats](https://github.com/toolnorm/toolnorm/blob/main/docs/src/formats/README.md), [the view](https://github.com/toolnorm/toolnorm/blob/main/docs/src/user-guide/view.md) and [stats](https://github.com/toolnorm/toolnorm/blob/main/docs/src/user-guide/stats.md).
#![deny(missing_docs)]

mod catalog;
mod columns;
mod export;
mod http;
mod normalize;
mod parallel;
mod recordings;
mod serve;
mod sessions;
mod sqlite_stores;
mod stats;
mod subagents;
mod view;

use std::io::{self, Write};
use std::path::PathBuf;
use std::process::ExitCode;

pub use catalog::{IndexArgs, SessionsArgs};
use clap::builder::{PossibleValue, PossibleValuesParser, TypedValueParser};
use clap::{Parser, Subcommand, ValueEnum};
pub use export::ExportArgs;
pub use serve::ServeArgs;
use toolnorm_adapters::{Dialect, Format, ReadOptions, Reading, Toml};

pub use normalize::normalize;
pub use stats::stats;
pub use toolnorm_adapters::human_duration;
pub use view::view;

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
    /// Write a session's tool calls as one self-contained HTML timeline, or serve it live.
    View(Box<ViewArgs>),
    /// Tool usage across sessions: calls, errors and durations per provider, kind and tool.
    Stats(Box<StatsArgs>),
    /// List the dialects toolnorm reads (the values of `normalize --provider`).
    Dialects(DialectsArgs),
    /// Send the tool calls as OpenTelemetry spans to a collector (OTLP/HTTP), as they end.
    Export(Box<ExportArgs>),
    /// List the session files every known agent keeps under the home folder (or, with
    /// `--db`, the sessions of the index).
    Sessions(SessionsArgs),
    /// Read every agent's sessions (or the paths named) into the index, incrementally.
    Index(Box<IndexArgs>),
    /// A local web page over the index (127.0.0.1): every agent's sessions, their
    /// timelines and stats, kept current while the agents write.
    Serve(Box<ServeArgs>),
}

/// Arguments of `toolnorm dialects`.
#[derive(Debug, clap::Args)]
pub struct DialectsArgs {
    /// Only the names, one per line (for scripts).
    #[arg(long)]
    pub names: bool,
}

/// How a stream is read: the options `normalize`, `view` and `stats` share.
#[derive(Debug, clap::Args)]
pub struct ReadArgs {
    /// The input dialect.
    #[arg(long, value_name = "DIALECT", default_value = "auto", value_parser = provider_parser())]
    pub provider: Provider,
    /// A TOML file of title and kind rules, tried before the built-in ones.
    #[arg(long, value_name = "FILE")]
    pub rules: Option<PathBuf>,
    /// Cut each call's output to BYTES: the output a call ends with (with
    /// `outputTruncated`, `outputTotalBytes`, its size in full, and `outputCapBytes` in
    /// its metadata), and every string of a line over 1 MiB past BYTES + 64 KiB, so a
    /// huge output costs about BYTES of memory. Without it the final output is kept
    /// whole, and only the partial output of a running call is cut, at 1 MiB.
    #[arg(long, value_name = "BYTES")]
    pub output_cap: Option<usize>,
    /// An MCP server name (repeatable), to split OpenCode's `<server>_<tool>` names.
    #[arg(long = "mcp-server", value_name = "NAME")]
    pub mcp_servers: Vec<String>,
    /// The directory the session ran in, for paths in titles shown relative to it when
    /// the stream does not name one (`codex exec --json`, `opencode run`, an ACP log
    /// without the client's requests).
    #[arg(long, value_name = "DIR")]
    pub cwd: Option<String>,
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
}

impl ReadArgs {
    /// The cap on output in bytes: `--output-cap`, else the default cap on partial
    /// output ([`toolnorm::DEFAULT_OUTPUT_CAP`]).
    pub fn output_cap(&self) -> usize {
        self.output_cap.unwrap_or(toolnorm::DEFAULT_OUTPUT_CAP)
    }
}

/// Arguments of `toolnorm normalize`.
#[derive(Debug, clap::Args)]
pub struct NormalizeArgs {
    /// How the input is read.
    #[command(flatten)]
    pub read: ReadArgs,
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
    /// The `sessionId` of `--format acp` frames (`rawOutput` and text content are capped
    /// at `--output-cap`); in `ai-sdk` the message id, in `ag-ui` the thread id, in
    /// `otel` the session (trace) of calls that name no session [default: toolnorm; in
    /// `otel`, the stream's first call].
    #[arg(long, value_name = "ID")]
    pub session_id: Option<String>,
    /// Frame `--format ai-sdk` and `--format ag-ui` as server-sent events (`data: …`
    /// lines, as an HTTP response streams them).
    #[arg(long)]
    pub sse: bool,
    /// In `--format otel`: put each call's input and output on its span
    /// (`gen_ai.tool.call.arguments`, `gen_ai.tool.call.result`). Off by default: they
    /// can hold secrets (`--redact` applies) and be large.
    #[arg(long)]
    pub otel_content: bool,
    /// Colour in `--format pretty`: `auto` when stdout is a terminal and `NO_COLOR` is
    /// not set (`CLICOLOR_FORCE` colours a pipe too).
    #[arg(long, value_name = "WHEN")]
    pub color: Option<ColorChoice>,
    /// Write every input line that produced a diagnostic to FILE, verbatim, as
    /// `N<TAB>line` (N the line number); redacted with `--redact`.
    #[arg(long, value_name = "FILE")]
    pub audit: Option<PathBuf>,
    /// With `--redact`: write the audit file's lines as read, secrets included.
    #[arg(long, requires = "audit")]
    pub audit_raw: bool,
    /// Read a Claude Code session's transcript alone, without the subagent transcripts
    /// beside it (`<session>/subagents/*.jsonl`), which are otherwise joined to it.
    #[arg(long)]
    pub no_siblings: bool,
    /// With a session database (OpenCode's `opencode.db`, Goose's `sessions.db`) as the
    /// one input: read only the session of this id (`ses_…`), as one stream. Without it,
    /// each of its sessions is a stream.
    #[arg(long, value_name = "ID")]
    pub only_session: Option<String>,
    /// How many files are read at once, with many inputs [default: the cores, or
    /// `RAYON_NUM_THREADS`]. With one input, 1 reads it on one thread (by default a
    /// second thread parses its lines ahead, for the dialects that can).
    #[arg(long, value_name = "N")]
    pub threads: Option<usize>,
    /// The input: a file, `-` or nothing for stdin, streamed as it is read. Or many:
    /// files, and directories searched for `*.jsonl` and `*.ndjson` files
    /// (recursively), each file its own stream (dialect detected per file), read in
    /// parallel, written whole one after the other in sorted path order, every call
    /// with `metadata.source` (the file) and every diagnostic naming its file. A session
    /// database (OpenCode's `~/.local/share/opencode/opencode.db`, Goose's
    /// `~/.local/share/goose/sessions/sessions.db`, known by their SQLite header and
    /// tables) is read as many: each session its own stream, `<path>#<session id>`.
    #[arg(value_name = "FILE|DIR")]
    pub inputs: Vec<PathBuf>,
}

/// When `pretty` output is coloured.
#[derive(Debug, Clone, Copy, PartialEq, Eq, ValueEnum)]
pub enum ColorChoice {
    /// When stdout is a terminal and `NO_COLOR` is unset or empty (`CLICOLOR=0` turns
    /// it off, `CLICOLOR_FORCE` on).
    Auto,
    /// Always.
    Always,
    /// Never.
    Never,
}

/// Arguments of `toolnorm view`.
#[derive(Debug, clap::Args)]
pub struct ViewArgs {
    /// How the input is read.
    #[command(flatten)]
    pub read: ReadArgs,
    /// The HTML file to write; `-` or nothing writes stdout.
    #[arg(short, long, value_name = "OUT.html", conflicts_with_all = ["serve", "port"])]
    pub output: Option<PathBuf>,
    /// Serve the page live on 127.0.0.1, fed as the one input (a file or `-`) grows.
    #[arg(long)]
    pub serve: bool,
    /// The port of `--serve` (0: any free port; the address is printed on stderr).
    #[arg(long, value_name = "P", requires = "serve")]
    pub port: Option<u16>,
    /// Show sessions of the index (`toolnorm index`) instead of reading files: each input
    /// names one by its file's path, the provider's session id or its id in the index
    /// [default: the default index; an SQLite file or a `postgres://` URL].
    #[arg(long, value_name = "PATH|URL", num_args = 0..=1, conflicts_with = "serve")]
    pub db: Option<Option<PathBuf>>,
    /// Recordings: files, or directories searched for `*.jsonl` files (recursively, in
    /// sorted order); each file is one session, a session database (OpenCode's
    /// `opencode.db`, Goose's `sessions.db`) one per session it holds. With `--serve`,
    /// one file or `-`. With `--db`, sessions of
    /// the index.
    #[arg(value_name = "FILE|DIR", required = true)]
    pub inputs: Vec<PathBuf>,
}

/// Arguments of `toolnorm stats`.
#[derive(Debug, clap::Args)]
pub struct StatsArgs {
    /// How the input is read.
    #[command(flatten)]
    pub read: ReadArgs,
    /// One JSON document instead of the tables.
    #[arg(long)]
    pub json: bool,
    /// How many of the longest calls are listed.
    #[arg(long, value_name = "N", default_value_t = 10)]
    pub longest: usize,
    /// Every diagnostic on its own line, and the full reason a file was not read, rather
    /// than the diagnostics summed per file and kind.
    #[arg(short, long)]
    pub verbose: bool,
    /// The sessions of the index (`toolnorm index`) instead of files, at once
    /// [default: the default index; an SQLite file or a `postgres://` URL].
    #[arg(long, value_name = "PATH|URL", num_args = 0..=1, conflicts_with = "inputs")]
    pub db: Option<Option<PathBuf>>,
    /// Recordings: files, or directories searched for `*.jsonl` files (recursively);
    /// each file is one session, a session database (OpenCode's `opencode.db`, Goose's
    /// `sessions.db`) one per session it holds, read in parallel.
    #[arg(value_name = "FILE|DIR", required_unless_present = "db")]
    pub inputs: Vec<PathBuf>,
}

/// The `--provider` choice: `auto` (detect the dialect from the first lines) or one of
/// the library's dialects.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Provider(pub Option<Dialect>);

/// `--provider` values: `auto`, then every dialect of the dialect table.
fn provider_parser() -> impl TypedValueParser<Value = Provider> {
    let auto = PossibleValue::new("auto").help("Detect the dialect from the first lines");
    let dialects = Dialect::all()
        .map(|dialect| PossibleValue::new(dialect.as_str()).help(dialect.summary().unwrap_or("")));
    PossibleValuesParser::new(std::iter::once(auto).chain(dialects))
        .map(|name| Provider(Dialect::from_name(&name)))
}

/// `--format` values: the library's formats.
fn format_parser() -> impl TypedValueParser<Value = Format> {
    let formats =
        Format::all().map(|format| PossibleValue::new(format.as_str()).help(format.summary()));
    PossibleValuesParser::new(formats).map(|name| Format::from_name(&name).unwrap_or_default())
}

/// Exit status for usage errors and unreadable input.
pub const EXIT_USAGE: u8 = 2;

/// Exit status when no line of the input is an event of a dialect toolnorm reads (the
/// dialect detected, no `--provider` named).
pub const EXIT_UNRECOGNIZED: u8 = 3;

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
        Command::View(args) => view(&args, stdout, stderr),
        Command::Stats(args) => stats(&args, stdout, stderr),
        Command::Dialects(args) => dialects(&args, stdout),
        Command::Export(args) => export::export(&args, stderr),
        Command::Sessions(args) => catalog::sessions(&args, stdout, stderr),
        Command::Index(args) => catalog::index(&args, stderr),
        Command::Serve(args) => serve::serve(*args, stderr),
    }
}

/// `toolnorm dialects`: the dialects of the dialect table, in its order.
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
    finish_output(result.and_then(|()| stdout.flush()))
}

/// The exit status of a run whose output ended with `result`: a closed pipe (`| head`)
/// is a normal way for output to end.
fn finish_output(result: io::Result<()>) -> ExitCode {
    match result {
        Err(error) if error.kind() != io::ErrorKind::BrokenPipe => ExitCode::from(EXIT_USAGE),
        _ => ExitCode::SUCCESS,
    }
}

/// The reading flags as the library's [`Reading`], the files they name read.
fn reading(args: &ReadArgs) -> Result<Reading, String> {
    let rules = args
        .rules
        .as_ref()
        .map(|path| read_text(path))
        .transpose()?;
    let patterns = args
        .redact_patterns
        .as_ref()
        .map(|path| read_text(path))
        .transpose()?;
    let pairs = args
        .redact_pattern
        .iter()
        .map(|pattern| {
            pattern
                .split_once('=')
                .ok_or_else(|| format!("--redact-pattern {pattern}: expected KIND=REGEX"))
        })
        .collect::<Result<Vec<_>, _>>()?;
    let options = ReadOptions {
        dialect: args.provider.0,
        rules: rules.as_ref().map(|(text, origin)| Toml { text, origin }),
        output_cap: args.output_cap,
        mcp_servers: &args.mcp_servers,
        cwd: args.cwd.as_deref(),
        redact: args.redact,
        redact_patterns: patterns
            .as_ref()
            .map(|(text, origin)| Toml { text, origin }),
        redact_pattern: &pairs,
    };
    options.prepare().map_err(|error| error.to_string())
}

/// A file's text and its name in messages.
fn read_text(path: &std::path::Path) -> Result<(String, String), String> {
    let text =
        std::fs::read_to_string(path).map_err(|error| format!("{}: {error}", path.display()))?;
    Ok((text, path.display().to_string()))
}
