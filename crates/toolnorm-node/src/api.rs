//! What JavaScript sees of the addon (the package's `index.js` wraps it):
//! `startNormalize` and its `NormalizeRun`, the class `NativeNormalizer`, `dialects`, and
//! the objects they take and give.
//! The code `#[napi]` generates here is unsafe (the N-API calls); the functions are thin
//! and call the safe modules.

use napi::bindgen_prelude::{Buffer, Either};
use napi_derive::napi;
use toolnorm_adapters::{Dialect, Format};

use crate::options;
use crate::run::{Output, Run};
use crate::whole::Background;

/// The options of `normalize` and of `Normalizer`: the reading flags of `toolnorm
/// normalize`, camel-cased; the two that name files take the files' text.
#[napi(object)]
#[derive(Debug, Default)]
pub struct NormalizeOptions {
    /// `--provider`: `auto` (the default: detected from the first lines) or a dialect.
    pub provider: Option<String>,
    /// `--rules`: title and kind rules (TOML text), tried before the built-in ones.
    pub rules: Option<String>,
    /// `--output-cap`: the bytes of partial output a running call keeps (default 1 MiB).
    pub output_cap: Option<i64>,
    /// `--mcp-server`: MCP server names, to split OpenCode's `<server>_<tool>` names.
    pub mcp_servers: Option<Vec<String>>,
    /// `--cwd`: the directory the session ran in, where the stream names none.
    pub cwd: Option<String>,
    /// `--redact`: secrets become `[REDACTED:<kind>]` in the parts and diagnostics.
    pub redact: Option<bool>,
    /// `--redact-patterns`: more patterns (TOML text of `[[pattern]]` tables with `kind`
    /// and `regex`); implies `redact`.
    pub redact_patterns: Option<String>,
    /// `--redact-pattern`: more patterns, each `KIND=REGEX`; implies `redact`.
    pub redact_pattern: Option<Vec<String>>,
    /// `--format` of `normalize` (not of `Normalizer`, which gives updates): `parts` (the
    /// default) or another JSON format (`updates`, `events`, `acp`, `ai-sdk`, `ag-ui`,
    /// `otel`), whose lines are then given.
    pub format: Option<String>,
    /// `--otel-content`: with `format: "otel"`, each call's input and output on its span.
    pub otel_content: Option<bool>,
}

/// A problem with the input, as the library reports it.
#[napi(object)]
pub struct Diagnostic {
    /// The 1-based input line, when it is about one.
    pub line: Option<i64>,
    /// What kind of problem (`invalid-json`, `unknown-event`, …).
    pub kind: String,
    /// `error` or `notice`.
    pub severity: String,
    /// What happened, for people.
    pub message: String,
    /// The line `toolnorm normalize` writes on stderr for it: `line N: message`, or
    /// `line N: notice: message`.
    pub text: String,
}

/// Counts of what went through (the command's line classes).
#[napi(object)]
pub struct Stats {
    /// Input lines read.
    pub lines: i64,
    /// Lines that gave at least one event.
    pub applied_lines: i64,
    /// Lines the dialect knows that carry no tool data.
    pub known_lines: i64,
    /// Lines with a notice and no error.
    pub notice_lines: i64,
    /// Lines with an error.
    pub error_lines: i64,
    /// Canonical events made.
    pub events: i64,
    /// Events that changed a part.
    pub changes: i64,
    /// Exact duplicates.
    pub duplicates: i64,
    /// Diagnostics reported.
    pub diagnostics: i64,
    /// Error diagnostics reported.
    pub errors: i64,
    /// Notice diagnostics reported.
    pub notices: i64,
}

/// What a `NormalizeRun` ended with, once its parts were given.
#[napi(object)]
pub struct Normalized {
    /// The diagnostics, in input order.
    pub diagnostics: Vec<Diagnostic>,
    /// The counts.
    pub stats: Stats,
    /// The dialect read, or none when no line was an event of a known dialect.
    pub dialect: Option<String>,
}

/// What one `push` or `finish` of a `NativeNormalizer` gives.
#[napi(object)]
pub struct Chunk {
    /// The part snapshots of the changes, as one JSON array: the lines `toolnorm
    /// normalize --format updates` writes for them, joined by commas.
    pub json: String,
    /// The diagnostics, in input order.
    pub diagnostics: Vec<Diagnostic>,
}

/// Starts normalizing a whole stream into its parts, on a thread of its own: `nextBatch`
/// gives the parts in batches as they are read, `end` what the stream ended with.
#[napi]
pub fn start_normalize(
    data: Either<String, Buffer>,
    options: Option<NormalizeOptions>,
) -> napi::Result<NormalizeRun> {
    let options = options.unwrap_or_default();
    let builder = options::builder(&options)?;
    let (format, otel) = options::written(&options)?;
    // The reading thread owns its input: a string is taken, a Buffer's bytes copied.
    let data = match data {
        Either::A(text) => text.into_bytes(),
        Either::B(buffer) => buffer.to_vec(),
    };
    Ok(NormalizeRun {
        background: Background::start(builder, data, format, otel),
    })
}

/// A whole stream being normalized (`startNormalize`).
#[napi]
pub struct NormalizeRun {
    background: Background,
}

#[napi]
impl NormalizeRun {
    /// The next batch of parts, as one JSON array (the lines `toolnorm normalize
    /// --format parts` writes, joined by commas); waits for it; none once all were given.
    #[napi]
    pub fn next_batch(&mut self) -> Option<String> {
        self.background.next_batch()
    }

    /// Ends the run (dropping the batches not taken) and gives its diagnostics, counts and
    /// dialect.
    #[napi]
    pub fn end(&mut self) -> napi::Result<Normalized> {
        let ended = self.background.end()?;
        Ok(Normalized {
            diagnostics: diagnostics(ended.diagnostics),
            stats: stats(ended.stats),
            dialect: ended.dialect.map(|dialect| dialect.to_string()),
        })
    }
}

/// The dialects this build reads: the values of `provider`, besides `auto`.
#[napi]
pub fn dialects() -> Vec<String> {
    Dialect::all().map(|dialect| dialect.to_string()).collect()
}

/// A stream normalized as it comes: `push` each chunk (cut anywhere), then `finish`.
#[napi]
pub struct NativeNormalizer {
    run: Run,
}

#[napi]
impl NativeNormalizer {
    /// A normalizer set up by `options`.
    #[napi(constructor)]
    pub fn new(options: Option<NormalizeOptions>) -> napi::Result<Self> {
        let options = options.unwrap_or_default();
        if options.format.is_some() || options.otel_content.is_some() {
            return Err(crate::Error::NotForNormalizer.into());
        }
        let builder = options::builder(&options)?;
        Ok(NativeNormalizer {
            run: Run::new(builder, Format::Updates),
        })
    }

    /// Feeds a chunk; the changes and diagnostics of the lines it completed.
    #[napi]
    pub fn push(&mut self, chunk: Either<String, Buffer>) -> napi::Result<Chunk> {
        Ok(chunk_of(self.run.push(bytes(&chunk))?))
    }

    /// Ends the stream; the changes and diagnostics of what was left.
    #[napi]
    pub fn finish(&mut self) -> napi::Result<Chunk> {
        Ok(chunk_of(self.run.finish()?))
    }

    /// The dialect, once known.
    #[napi(getter)]
    pub fn dialect(&self) -> Option<String> {
        self.run
            .normalizer()
            .dialect()
            .map(|dialect| dialect.to_string())
    }

    /// The counts so far.
    #[napi(getter)]
    pub fn stats(&self) -> Stats {
        stats(self.run.normalizer().stats())
    }
}

fn bytes(data: &Either<String, Buffer>) -> &[u8] {
    match data {
        Either::A(text) => text.as_bytes(),
        Either::B(buffer) => buffer,
    }
}

fn chunk_of(output: Output) -> Chunk {
    Chunk {
        json: output.json,
        diagnostics: diagnostics(output.diagnostics),
    }
}

fn diagnostics(diagnostics: Vec<toolnorm_adapters::Diagnostic>) -> Vec<Diagnostic> {
    diagnostics
        .into_iter()
        .map(|diagnostic| Diagnostic {
            line: diagnostic.line.map(count),
            kind: diagnostic.kind.as_str().to_owned(),
            severity: diagnostic.severity.as_str().to_owned(),
            text: diagnostic.to_string(),
            message: diagnostic.message,
        })
        .collect()
}

fn stats(stats: toolnorm_adapters::Stats) -> Stats {
    Stats {
        lines: count(stats.lines),
        applied_lines: count(stats.applied_lines),
        known_lines: count(stats.known_lines),
        notice_lines: count(stats.notice_lines),
        error_lines: count(stats.error_lines),
        events: count(stats.events),
        changes: count(stats.changes),
        duplicates: count(stats.duplicates),
        diagnostics: count(stats.diagnostics),
        errors: count(stats.errors),
        notices: count(stats.notices),
    }
}

/// A count as a JavaScript number (exact below 2^53).
fn count(n: u64) -> i64 {
    i64::try_from(n).unwrap_or(i64::MAX)
}
