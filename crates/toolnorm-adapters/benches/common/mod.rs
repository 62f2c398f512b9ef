//! Shared by the benches and the `perf_stream` example: a large stream built from the
//! recorded fixtures, and the workloads measured on it.
#![allow(dead_code, clippy::unwrap_used, clippy::expect_used)]

use std::io::{self, BufWriter, Write};
use std::path::PathBuf;

use serde::de::IgnoredAny;
use serde_json::Value;
use toolnorm_adapters::{Dialect, Normalizer, Step};
use toolnorm_adapters::{Format, Writer};

// The fixture lister the tests use.
#[path = "../../tests/common/fixture_files.rs"]
mod fixture_files;
use fixture_files::recordings_where;

/// The allocator of the `toolnorm` command, so that the figures are the command's; the
/// baselines run with it too.
#[global_allocator]
static ALLOCATOR: mimalloc::MiMalloc = mimalloc::MiMalloc;

/// A part of the bench stream: the sessions recorded in some fixture directories, all of
/// one dialect.
pub struct Source {
    /// Its name in the tables (a dialect's name, or the kind of file it reads).
    pub name: &'static str,
    /// Its dialect.
    pub dialect: Dialect,
    /// The fixture directories it is built from.
    pub dirs: &'static [&'static str],
}

/// Every dialect's part of the bench stream; Claude Code's and Gemini CLI's stream output
/// and their session files apart. The dialects whose files are whole documents (a Cline
/// task, Continue's sessions, an OpenHands trajectory, an OpenCode export, the Goose and
/// Grok session samples) are left out: their lines cannot be interleaved; so are Amp's,
/// Cline's and Copilot CLI's streams for now, whose copies do not yet read cleanly (some
/// of their call ids are not renamed in each copy, so `--strict` finds calls that ended
/// already).
pub const SOURCES: &[Source] = &[
    Source {
        name: "claude-code",
        dialect: Dialect::CLAUDE_CODE,
        dirs: &["claude-code"],
    },
    Source {
        name: "claude-transcript",
        dialect: Dialect::CLAUDE_CODE,
        dirs: &["claude-code-transcript"],
    },
    Source {
        name: "codex-app-server",
        dialect: Dialect::CODEX_APP_SERVER,
        dirs: &["codex-app-server"],
    },
    Source {
        name: "codex-exec",
        dialect: Dialect::CODEX_EXEC,
        dirs: &["codex-exec"],
    },
    Source {
        name: "codex-rollout",
        dialect: Dialect::CODEX_ROLLOUT,
        dirs: &["codex-rollout"],
    },
    Source {
        name: "opencode",
        dialect: Dialect::OPENCODE,
        dirs: &["opencode-run", "opencode-serve", "opencode-serve-global"],
    },
    Source {
        name: "acp",
        dialect: Dialect::ACP,
        dirs: &[
            "claude-code-acp",
            "claude-code-zed-acp",
            "codex-acp",
            "opencode-acp",
        ],
    },
    Source {
        name: "gemini-cli",
        dialect: Dialect::GEMINI_CLI,
        dirs: &["gemini-cli"],
    },
    Source {
        name: "gemini-session",
        dialect: Dialect::GEMINI_CLI,
        dirs: &["gemini-cli-session"],
    },
    Source {
        name: "cline-sdk",
        dialect: Dialect::CLINE_SDK,
        dirs: &["cline-sdk"],
    },
    Source {
        name: "cursor",
        dialect: Dialect::CURSOR,
        dirs: &["cursor"],
    },
    Source {
        name: "droid",
        dialect: Dialect::DROID,
        dirs: &["droid"],
    },
    Source {
        name: "droid-session",
        dialect: Dialect::DROID_SESSION,
        dirs: &["droid-session"],
    },
    Source {
        name: "pi",
        dialect: Dialect::PI,
        dirs: &["pi"],
    },
    Source {
        name: "pi-session",
        dialect: Dialect::PI_SESSION,
        dirs: &["pi-session"],
    },
    Source {
        name: "qwen-code",
        dialect: Dialect::QWEN_CODE,
        dirs: &["qwen-code"],
    },
    Source {
        name: "kimi",
        dialect: Dialect::KIMI,
        dirs: &["kimi"],
    },
    Source {
        name: "kimi-wire",
        dialect: Dialect::KIMI_WIRE,
        dirs: &["kimi-wire"],
    },
    Source {
        name: "vibe",
        dialect: Dialect::VIBE,
        dirs: &["vibe"],
    },
    Source {
        name: "vibe-journal",
        dialect: Dialect::VIBE_JOURNAL,
        dirs: &["vibe-journal"],
    },
    Source {
        name: "grok",
        dialect: Dialect::GROK,
        dirs: &["grok"],
    },
    Source {
        name: "goose",
        dialect: Dialect::GOOSE,
        dirs: &["goose"],
    },
    Source {
        name: "openhands-sdk",
        dialect: Dialect::OPENHANDS_SDK,
        dirs: &["openhands-cli"],
    },
    Source {
        name: "crush",
        dialect: Dialect::CRUSH,
        dirs: &["crush"],
    },
    Source {
        name: "events",
        dialect: Dialect::EVENTS,
        dirs: &["events"],
    },
];

/// Which of a source's sessions a stream is built from.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Kind {
    /// All of them.
    Bench,
    /// The tool-dense ones: at least [`DENSE_CALLS`] calls per 40 lines (the densest
    /// quarter, when none is that dense).
    Dense,
}

impl Kind {
    /// Its name in the tables.
    pub fn as_str(self) -> &'static str {
        match self {
            Kind::Bench => "bench",
            Kind::Dense => "dense",
        }
    }
}

/// The calls per 40 lines of a tool-dense session.
pub const DENSE_CALLS: usize = 15;

/// How many sessions of one dialect are interleaved, line by line.
pub const INTERLEAVED: usize = 4;

/// One dialect's part of the stream.
pub struct Stream {
    /// The source's name.
    pub name: &'static str,
    /// Its dialect.
    pub dialect: Dialect,
    /// JSON Lines.
    pub bytes: Vec<u8>,
    /// Lines (provider events).
    pub lines: u64,
    /// Tool calls.
    pub calls: u64,
}

impl Stream {
    /// Tool calls per 40 lines.
    pub fn density(&self) -> f64 {
        self.calls as f64 * 40.0 / self.lines.max(1) as f64
    }
}

/// The repository's `fixtures/` directory.
pub fn fixtures_dir() -> PathBuf {
    fixture_files::fixtures()
}

/// A recorded session, with the call ids to rename in each copy.
struct Session {
    lines: Vec<String>,
    ids: Vec<String>,
    /// Its session ids, renamed in each copy too: interleaved copies of one recording are
    /// distinct sessions, so a run's end (an interrupt that ends its session's open calls)
    /// does not reach another copy's calls.
    session_ids: Vec<String>,
}

/// The keys under which the recorded streams name their session.
const SESSION_KEYS: &[&str] = &["\"session_id\":\"", "\"sessionId\":\""];

/// The session ids `lines` name under [`SESSION_KEYS`].
fn session_ids(lines: &[String]) -> Vec<String> {
    let mut found: Vec<String> = Vec::new();
    for line in lines {
        for key in SESSION_KEYS {
            for (start, _) in line.match_indices(key) {
                let rest = &line[start + key.len()..];
                if let Some(id) = rest.split('"').next().filter(|id| !id.is_empty())
                    && !found.iter().any(|known| known == id)
                {
                    found.push(id.to_owned());
                }
            }
        }
    }
    found
}

fn sessions(dialect: Dialect, dirs: &[&str], kind: Kind) -> Vec<Session> {
    let mut sessions = Vec::new();
    for dir in dirs {
        for file in recordings_where(|folder| folder == *dir) {
            let text = std::fs::read_to_string(&file).unwrap();
            let mut ids = Vec::new();
            let mut normalizer = Normalizer::builder().dialect(Some(dialect)).build();
            let mut on_step = |step: Step<'_>| {
                if let Step::Applied { update, .. } = step {
                    let id = update.call.id().to_owned();
                    if !ids.contains(&id) {
                        ids.push(id);
                    }
                }
            };
            normalizer.push(text.as_bytes(), &mut on_step);
            normalizer.finish(&mut on_step);
            let lines: Vec<String> = text
                .lines()
                .filter(|line| !line.trim().is_empty())
                .map(str::to_owned)
                .collect();
            let session_ids = session_ids(&lines);
            sessions.push(Session {
                lines,
                ids,
                session_ids,
            });
        }
    }
    if kind == Kind::Dense {
        let dense = |session: &Session| session.ids.len() * 40 >= DENSE_CALLS * session.lines.len();
        if sessions.iter().any(dense) {
            sessions.retain(dense);
        } else {
            // Densest first, then the first quarter (at least one).
            sessions
                .sort_by(|a, b| (b.ids.len() * a.lines.len()).cmp(&(a.ids.len() * b.lines.len())));
            sessions.truncate(sessions.len().div_ceil(4).max(1));
        }
    }
    sessions
}

/// `line` with every call id and session id of its session renamed for copy `copy`.
fn renamed(line: &str, session: &Session, copy: usize) -> String {
    let mut line = line.to_owned();
    for id in session.ids.iter().chain(&session.session_ids) {
        for quote in ["\"", "\\\""] {
            let from = format!("{quote}{id}{quote}");
            if line.contains(&from) {
                line = line.replace(&from, &format!("{quote}{id}-r{copy}{quote}"));
            }
        }
    }
    line
}

/// The stream of `source` of at least `bytes` bytes: its recorded sessions (those `kind`
/// picks) repeated with fresh call ids, [`INTERLEAVED`] sessions at a time, line by line.
pub fn source_stream(source: &Source, kind: Kind, bytes: usize) -> Stream {
    stream_of(source.name, source.dialect, source.dirs, kind, bytes)
}

/// The source named `name`.
pub fn source(name: &str) -> Option<&'static Source> {
    SOURCES.iter().find(|source| source.name == name)
}

/// The fixture directories of Claude Code's `stream-json` output (no transcripts): the
/// input both `toolnorm` and the Claude Code ACP adapter read in `scripts/peer-bench.sh`.
pub const CLAUDE_STREAM_JSON: &[&str] =
    &["claude-code", "claude-code@2.0.73", "claude-code@2.1.36"];

/// A stream named `name` of `dialect` of at least `bytes` bytes from the sessions
/// recorded in `dirs`, built as [`source_stream`] builds it.
pub fn stream_of(
    name: &'static str,
    dialect: Dialect,
    dirs: &[&str],
    kind: Kind,
    bytes: usize,
) -> Stream {
    let sessions = sessions(dialect, dirs, kind);
    let mut out = Vec::with_capacity(bytes + (1 << 20));
    let mut lines = 0;
    let mut calls = 0;
    let mut copy = 0;
    while out.len() < bytes {
        // Start the next INTERLEAVED copies, then take one line of each in turn.
        let group: Vec<(usize, usize)> = (0..INTERLEAVED)
            .map(|slot| ((copy + slot) % sessions.len(), copy + slot))
            .collect();
        calls += group
            .iter()
            .map(|(session, _)| sessions[*session].ids.len() as u64)
            .sum::<u64>();
        let longest = group
            .iter()
            .map(|(session, _)| sessions[*session].lines.len())
            .max()
            .unwrap_or(0);
        for index in 0..longest {
            for (session, fresh) in &group {
                let session = &sessions[*session];
                if let Some(line) = session.lines.get(index) {
                    out.extend_from_slice(renamed(line, session, *fresh).as_bytes());
                    out.push(b'\n');
                    lines += 1;
                }
            }
        }
        copy += INTERLEAVED;
    }
    Stream {
        name,
        dialect,
        bytes: out,
        lines,
        calls,
    }
}

/// Every source, `total` bytes in all, split evenly.
pub fn streams(total: usize, kind: Kind) -> Vec<Stream> {
    SOURCES
        .iter()
        .map(|source| source_stream(source, kind, total / SOURCES.len()))
        .collect()
}

/// The stream size: `TOOLNORM_BENCH_MB` (default 200) megabytes.
pub fn bench_bytes() -> usize {
    std::env::var("TOOLNORM_BENCH_MB")
        .ok()
        .and_then(|mb| mb.parse::<usize>().ok())
        .unwrap_or(200)
        * 1_000_000
}

fn lines(bytes: &[u8]) -> impl Iterator<Item = &[u8]> {
    bytes
        .split(|&byte| byte == b'\n')
        .filter(|line| !line.is_empty())
}

/// The floor: each line parsed into `IgnoredAny`. Returns the lines read.
pub fn floor(bytes: &[u8]) -> u64 {
    let mut count = 0;
    for line in lines(bytes) {
        serde_json::from_slice::<IgnoredAny>(line).unwrap();
        count += 1;
    }
    count
}

/// The passthrough: each line parsed into `Value` and written back.
pub fn value_round_trip(bytes: &[u8]) -> u64 {
    let mut out = BufWriter::with_capacity(1 << 16, io::sink());
    let mut count = 0;
    for line in lines(bytes) {
        let value: Value = serde_json::from_slice(line).unwrap();
        serde_json::to_writer(&mut out, &value).unwrap();
        out.write_all(b"\n").unwrap();
        count += 1;
    }
    out.flush().unwrap();
    count
}

/// The adapter, the tracker and the fold, with nothing written. Returns the canonical
/// events produced.
pub fn adapter(dialect: Dialect, bytes: &[u8]) -> u64 {
    let mut normalizer = Normalizer::builder()
        .dialect(dialect)
        .evict_finished(true)
        .build();
    let mut on_step = |_: Step<'_>| {};
    normalizer.push(bytes, &mut on_step);
    normalizer.finish(&mut on_step);
    normalizer.stats().events
}

/// The whole `toolnorm normalize` pipeline: 64 KiB chunks in, `format` out (to a sink),
/// dialect detected as the command does by default. Returns the diagnostics.
pub fn pipeline(bytes: &[u8], format: Format) -> u64 {
    let mut normalizer = Normalizer::builder()
        .evict_finished(true)
        .keep_events(format.needs_events())
        .build();
    let mut writer = Writer::new(format, BufWriter::with_capacity(1 << 16, io::sink()));
    let mut on_step = |step: Step<'_>| writer.step(&step).unwrap();
    for chunk in bytes.chunks(1 << 16) {
        normalizer.push(chunk, &mut on_step);
    }
    normalizer.finish(&mut on_step);
    writer.finish(normalizer.fold()).unwrap();
    normalizer.stats().diagnostics
}

/// The longest string in `value` (the value itself when a string).
fn longest_text(value: &Value) -> Option<&str> {
    match value {
        Value::String(text) => Some(text),
        Value::Array(items) => items
            .iter()
            .filter_map(longest_text)
            .max_by_key(|text| text.len()),
        Value::Object(map) => map
            .values()
            .filter_map(longest_text)
            .max_by_key(|text| text.len()),
        _ => None,
    }
}

/// The outputs of a recording's calls, in order: each the output when a string, else the
/// longest string in it (a text block's text).
fn output_texts(dialect: Dialect, text: &[u8]) -> Vec<String> {
    let mut outputs = Vec::new();
    let mut normalizer = Normalizer::builder().dialect(Some(dialect)).build();
    let mut on_step = |step: Step<'_>| {
        if let Step::Applied { update, .. } = step
            && update.call.is_terminal()
            && let Some(output) = update.call.to_part().output
            && let Some(text) = longest_text(output.value())
        {
            outputs.push(text.to_owned());
        }
    };
    normalizer.push(text, &mut on_step);
    normalizer.finish(&mut on_step);
    outputs
}

/// The longest output of a call in `text`, in bytes of its JSON.
fn longest_output(dialect: Dialect, text: &[u8]) -> usize {
    let mut longest = 0;
    let mut normalizer = Normalizer::builder()
        .dialect(Some(dialect))
        .evict_finished(true)
        .build();
    let mut on_step = |step: Step<'_>| {
        if let Step::Applied { update, .. } = step
            && update.call.is_terminal()
            && let Some(output) = update.call.to_part().output
        {
            longest = longest.max(output.to_json().len());
        }
    };
    normalizer.push(text, &mut on_step);
    normalizer.finish(&mut on_step);
    longest
}

/// How many times an output may be written in a recording to be replaced (some agents
/// write a call's output in two events, the end of the call and the message it adds).
const MAX_COPIES: usize = 8;

/// A recording with one call's output made huge.
pub struct BigOutput {
    /// The recording.
    pub recording: PathBuf,
    /// Its lines, the output replaced.
    pub bytes: Vec<u8>,
    /// How many times the recording writes the output (each replaced).
    pub copies: usize,
}

/// A recording of `source` with one call's string output replaced by `bytes` bytes of
/// text in lines of 80 characters, as a command's output is (so its JSON has escapes, as
/// a real output's has), wherever the recording writes it (a huge output is one line, or a few: as the
/// agent writes it); `None` when no recording has a string output that is found in its
/// lines and then read back as the huge output.
pub fn big_output_of(source: &Source, bytes: usize) -> Option<BigOutput> {
    let line = format!("{}\n", "x".repeat(79));
    let mut huge = line.repeat(bytes / line.len());
    huge.push_str(&"x".repeat(bytes - huge.len()));
    // A recording that writes the output once is taken first.
    [1, MAX_COPIES]
        .into_iter()
        .find_map(|most| replaced_output(source, &huge, most))
}

/// [`big_output_of`] among the outputs a recording writes at most `most` times.
fn replaced_output(source: &Source, huge: &str, most: usize) -> Option<BigOutput> {
    let bytes = huge.len();
    for dir in source.dirs {
        for file in recordings_where(|folder| folder == *dir) {
            let text = std::fs::read_to_string(&file).unwrap();
            for output in output_texts(source.dialect, text.as_bytes()) {
                let quoted = serde_json::to_string(&output).unwrap();
                let copies = text.matches(&quoted).count();
                if output.len() < 4 || !(1..=most).contains(&copies) {
                    continue;
                }
                let replaced = text.replace(&quoted, &serde_json::to_string(huge).unwrap());
                if longest_output(source.dialect, replaced.as_bytes()) >= bytes {
                    return Some(BigOutput {
                        recording: file,
                        bytes: replaced.into_bytes(),
                        copies,
                    });
                }
            }
        }
    }
    None
}
