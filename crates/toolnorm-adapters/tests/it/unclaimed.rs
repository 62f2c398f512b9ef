//! Real files of agents toolnorm does not read (`fixtures/unclaimed/<agent>/`, listed in
//! `fixtures/unclaimed/PROVENANCE.toml`) are never taken for a dialect it reads: no line
//! of them is claimed, or the dialect that claims some understands none of the first
//! lines and is rejected; the stream ends unrecognized, with no call and no diagnostic but
//! `undetected-dialect` ones.
#![allow(clippy::unwrap_used, clippy::expect_used)]

use std::collections::BTreeSet;
use std::path::{Path, PathBuf};

use serde::Deserialize;
use toolnorm_adapters::{
    Diagnostic, DiagnosticKind, Dialect, Driver, Normalizer, Sink, Step, StreamEnd,
};

use crate::common;

/// `fixtures/unclaimed/PROVENANCE.toml`.
#[derive(Deserialize)]
#[serde(deny_unknown_fields)]
struct Provenance {
    file: Vec<Entry>,
}

/// Where one file comes from.
#[derive(Deserialize)]
#[serde(deny_unknown_fields)]
struct Entry {
    /// Under `fixtures/unclaimed/`: `<agent>/<file>`.
    path: String,
    /// The agent's folder name.
    agent: String,
    /// The package its CLI is installed from (`npm:…`, `pypi:…`).
    package: String,
    version: String,
    /// What the file is, as the agent writes it.
    what: String,
    /// `recorded` (the real CLI against the loopback mock model) or `sample` (a file
    /// from a public repository).
    how: String,
    /// How it was recorded.
    command: Option<String>,
    /// Where a sample comes from.
    repository: Option<String>,
    source_path: Option<String>,
    commit: Option<String>,
    /// Its number of lines.
    lines: usize,
}

fn root() -> PathBuf {
    common::fixtures().join("unclaimed")
}

fn provenance() -> Provenance {
    let text = std::fs::read_to_string(root().join("PROVENANCE.toml")).unwrap();
    toml::from_str(&text).unwrap()
}

/// Every file under `fixtures/unclaimed/<agent>/`, relative to `fixtures/unclaimed/`.
fn files() -> BTreeSet<String> {
    fn walk(dir: &Path, out: &mut BTreeSet<String>) {
        for entry in std::fs::read_dir(dir).unwrap() {
            let path = entry.unwrap().path();
            if path.is_dir() {
                walk(&path, out);
            } else {
                let relative = path.strip_prefix(root()).unwrap();
                out.insert(relative.to_string_lossy().replace('\\', "/"));
            }
        }
    }
    let mut files = BTreeSet::new();
    walk(&root(), &mut files);
    files.remove("PROVENANCE.toml");
    files
}

#[test]
fn every_unclaimed_file_has_its_provenance() {
    let provenance = provenance();
    let mut listed = BTreeSet::new();
    for entry in &provenance.file {
        assert!(
            listed.insert(entry.path.clone()),
            "{} listed twice",
            entry.path
        );
        assert!(
            entry.path.starts_with(&format!("{}/", entry.agent)),
            "{}: not under its agent's folder",
            entry.path
        );
        assert!(!entry.package.is_empty() && !entry.version.is_empty() && !entry.what.is_empty());
        match entry.how.as_str() {
            "recorded" => assert!(entry.command.is_some(), "{}: no command", entry.path),
            "sample" => assert!(
                entry.repository.is_some()
                    && entry.source_path.is_some()
                    && entry
                        .commit
                        .as_ref()
                        .is_some_and(|commit| commit.len() == 40),
                "{}: a sample names its repository, path and commit",
                entry.path
            ),
            how => panic!("{}: `how` is `{how}`", entry.path),
        }
        let text = std::fs::read_to_string(root().join(&entry.path)).unwrap();
        assert_eq!(text.lines().count(), entry.lines, "{}", entry.path);
        for needle in ["/work/scratch", "/tmp/toolnorm-record", "/root/"] {
            assert!(
                !text.contains(needle),
                "{}: unscrubbed {needle}",
                entry.path
            );
        }
    }
    assert_eq!(listed, files(), "files and provenance entries differ");
    let agents: BTreeSet<&str> = provenance.file.iter().map(|e| e.agent.as_str()).collect();
    assert!(!agents.is_empty(), "{agents:?}");
}

/// Keeps the diagnostics.
#[derive(Default)]
struct Kept {
    steps: usize,
    diagnostics: Vec<Diagnostic>,
}

impl Sink for Kept {
    fn step(&mut self, _: &Step<'_>) -> std::io::Result<()> {
        self.steps += 1;
        Ok(())
    }

    fn diagnostic(&mut self, diagnostic: &Diagnostic) {
        self.diagnostics.push(diagnostic.clone());
    }
}

#[test]
fn no_dialect_reads_a_file_of_an_agent_toolnorm_does_not_read() {
    for path in files() {
        let bytes = std::fs::read(root().join(&path)).unwrap();
        // As a host reads it: the stream ends unrecognized, nothing handed over.
        let mut driver = Driver::new(Normalizer::new(), Kept::default());
        driver.push(&bytes);
        assert_eq!(driver.finish(), StreamEnd::Unrecognized, "{path}");
        assert_eq!(driver.normalizer().dialect(), None, "{path}");
        assert_eq!(driver.sink().steps, 0, "{path}");
        assert!(driver.sink().diagnostics.is_empty(), "{path}");
        let message = driver.unrecognized("`--provider`");
        assert!(
            message.starts_with("no line is an event toolnorm reads"),
            "{message}"
        );
        for dialect in Dialect::all() {
            assert!(message.contains(&format!("`{dialect}`")), "{message}");
        }
        // Every line is one of no known dialect (or not JSON); no call.
        let (parts, diagnostics) = common::normalize(&bytes, None);
        assert!(parts.is_empty(), "{path}: {parts:?}");
        assert!(
            diagnostics.iter().all(|diagnostic| matches!(
                diagnostic.kind,
                DiagnosticKind::UndetectedDialect
                    | DiagnosticKind::InvalidJson
                    | DiagnosticKind::TruncatedLine
            )),
            "{path}: {diagnostics:#?}"
        );
    }
}

/// Runs `text` through a driver with detection: how the stream ended, the dialect, the
/// rejected dialects, the message for an unrecognized stream, and the sink.
fn drive(text: &str) -> (StreamEnd, Option<Dialect>, Vec<Dialect>, String, Kept) {
    let mut driver = Driver::new(Normalizer::new(), Kept::default());
    driver.push(text.as_bytes());
    let end = driver.finish();
    let dialect = driver.normalizer().dialect();
    let rejected = driver.normalizer().rejected().to_vec();
    let message = driver.unrecognized("`--provider`");
    (end, dialect, rejected, message, driver.into_sink())
}

/// `count` lines of Codex's exec shape (`turn.` types) that no Codex writes.
fn unknown_turn_lines(count: usize) -> String {
    (0..count)
        .map(|n| format!("{{\"type\":\"turn.hologram\",\"n\":{n}}}\n"))
        .collect()
}

#[test]
fn a_dialect_that_understands_none_of_the_first_lines_is_rejected() {
    // Longer than the detection window, and shorter: neither is read as Codex.
    for count in [1, 3, toolnorm_adapters::DETECTION_WINDOW + 8] {
        let (end, dialect, rejected, message, sink) = drive(&unknown_turn_lines(count));
        assert_eq!(end, StreamEnd::Unrecognized, "{count}");
        assert_eq!(dialect, None);
        assert_eq!(rejected, [Dialect::CODEX_EXEC]);
        assert!(
            message.contains("some lines look like events of `codex-exec`, but none of the first lines is one it reads"),
            "{message}"
        );
        assert_eq!((sink.steps, sink.diagnostics.len()), (0, 0));
        // Read line by line, each is of no known dialect, and says what it looked like.
        let (parts, diagnostics) = common::normalize(unknown_turn_lines(count).as_bytes(), None);
        assert!(parts.is_empty());
        assert_eq!(diagnostics.len(), count);
        assert!(diagnostics.iter().all(|diagnostic| {
            diagnostic.kind == DiagnosticKind::UndetectedDialect
                && diagnostic
                    .message
                    .contains("it looks like a `codex-exec` event")
        }));
    }
    // Named, the dialect reads it without a trial: one notice a line.
    let (parts, diagnostics) =
        common::normalize(unknown_turn_lines(3).as_bytes(), Some(Dialect::CODEX_EXEC));
    assert!(parts.is_empty());
    assert_eq!(diagnostics.len(), 3, "{diagnostics:?}");
    assert!(
        diagnostics
            .iter()
            .all(|d| d.kind == DiagnosticKind::UnknownEvent)
    );
}

#[test]
fn a_line_the_dialect_understands_confirms_it_from_the_first_line_on() {
    // A new event type first, then one Codex exec knows: the stream is Codex's, and the
    // new type a notice of its own.
    let mut text = unknown_turn_lines(2);
    text.push_str(r#"{"type":"thread.started","thread_id":"t"}"#);
    text.push('\n');
    text.push_str(r#"{"type":"item.completed","item":{"id":"item_0","type":"command_execution","command":"ls","aggregated_output":"","exit_code":0,"status":"completed"}}"#);
    text.push('\n');
    let (end, dialect, rejected, _, sink) = drive(&text);
    assert_eq!(end, StreamEnd::Read);
    assert_eq!(dialect, Some(Dialect::CODEX_EXEC));
    assert!(rejected.is_empty());
    assert!(sink.steps > 0);
    assert_eq!(sink.diagnostics.len(), 2, "{:?}", sink.diagnostics);
    assert!(
        sink.diagnostics
            .iter()
            .all(|d| d.kind == DiagnosticKind::UnknownEvent)
    );
}

#[test]
fn after_a_rejected_dialect_the_lines_are_detected_again_without_it() {
    // A stray line Codex exec would claim, then a Claude Code stream: Codex exec
    // understands none of them, so Claude Code reads the stream.
    let mut text = unknown_turn_lines(1);
    text.push_str(r#"{"type":"assistant","message":{"id":"m","role":"assistant","content":[{"type":"tool_use","id":"toolu_1","name":"Bash","input":{"command":"ls"}}]},"session_id":"s"}"#);
    text.push('\n');
    text.push_str(r#"{"type":"user","message":{"role":"user","content":[{"type":"tool_result","tool_use_id":"toolu_1","content":"a.txt"}]},"session_id":"s"}"#);
    text.push('\n');
    let (end, dialect, rejected, _, sink) = drive(&text);
    assert_eq!(end, StreamEnd::Read);
    assert_eq!(dialect, Some(Dialect::CLAUDE_CODE));
    assert_eq!(rejected, [Dialect::CODEX_EXEC]);
    let (parts, diagnostics) = common::normalize(text.as_bytes(), None);
    assert_eq!(parts.len(), 1, "{diagnostics:?}");
    assert_eq!(parts[0].id, "toolu_1");
    assert_eq!(sink.diagnostics.len(), 1, "{:?}", sink.diagnostics);
    assert_eq!(sink.diagnostics[0].line, Some(1));
}
