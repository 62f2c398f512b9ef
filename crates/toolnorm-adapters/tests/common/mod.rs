//! Helpers shared by the adapter tests.
#![allow(dead_code, clippy::unwrap_used, clippy::expect_used)]

pub mod call_ids;
mod fixture_files;

use std::path::PathBuf;

use serde_json::Value;
use toolnorm::NormalizedToolPart;
use toolnorm_adapters::{Diagnostic, Dialect, Normalizer, Severity, Step};

pub use fixture_files::{fixtures, recordings_where};

/// The recordings of one fixture directory (`.jsonl` files), in name order: each file's
/// name and text.
pub fn recordings(dir: &str) -> Vec<(String, String)> {
    recordings_where(|folder| folder == dir)
        .into_iter()
        .map(|path| {
            let name = path.file_name().unwrap().to_string_lossy().into_owned();
            (name, std::fs::read_to_string(path).unwrap())
        })
        .collect()
}

/// Every recording right in a fixture directory (`.jsonl` files), all directories, in
/// path order.
pub fn all_recordings() -> Vec<PathBuf> {
    recordings_where(|_| true)
}

/// Runs `bytes` through `normalizer`: the final parts and every diagnostic.
pub fn run(mut normalizer: Normalizer, bytes: &[u8]) -> (Vec<NormalizedToolPart>, Vec<Diagnostic>) {
    let mut diagnostics = Vec::new();
    let mut on_step = |step: Step<'_>| {
        if let Step::Diagnostic(diagnostic) = step {
            diagnostics.push(diagnostic.clone());
        }
    };
    normalizer.push(bytes, &mut on_step);
    normalizer.finish(&mut on_step);
    (normalizer.fold().parts(), diagnostics)
}

/// Normalizes `bytes` (dialect detected unless given): the final parts and the diagnostics.
pub fn normalize(
    bytes: &[u8],
    dialect: Option<Dialect>,
) -> (Vec<NormalizedToolPart>, Vec<Diagnostic>) {
    run(Normalizer::builder().dialect(dialect).build(), bytes)
}

/// The final parts of `lines` (one JSON value a line) read as dialect `dialect` (by its
/// name), which must give no diagnostic.
pub fn read_lines(dialect: &str, lines: &[serde_json::Value]) -> Vec<NormalizedToolPart> {
    let text: String = lines.iter().map(|line| format!("{line}\n")).collect();
    let dialect = Dialect::from_name(dialect).expect("a dialect");
    let (parts, diagnostics) = normalize(text.as_bytes(), Some(dialect));
    assert!(diagnostics.is_empty(), "{diagnostics:#?}");
    parts
}

/// Normalizes `text` read as `dialect`: the final parts and each diagnostic as
/// (severity, message).
pub fn shown(dialect: Dialect, text: &str) -> (Vec<NormalizedToolPart>, Vec<(Severity, String)>) {
    let (parts, diagnostics) = normalize(text.as_bytes(), Some(dialect));
    let shown = diagnostics
        .iter()
        .map(|d| (d.severity, d.to_string()))
        .collect();
    (parts, shown)
}

/// [`shown`] of `lines`, each written as one JSON line.
pub fn shown_lines(
    dialect: Dialect,
    lines: &[Value],
) -> (Vec<NormalizedToolPart>, Vec<(Severity, String)>) {
    let text: String = lines.iter().map(|line| format!("{line}\n")).collect();
    shown(dialect, &text)
}

/// Normalizes a fixture file, by path relative to `fixtures/`.
pub fn fixture(relative: &str) -> Vec<NormalizedToolPart> {
    let bytes = std::fs::read(fixtures().join(relative)).expect("reading the fixture");
    let (parts, diagnostics) = normalize(&bytes, None);
    assert!(diagnostics.is_empty(), "{relative}: {diagnostics:?}");
    parts
}

/// Normalizes lines given as JSON text, one per element.
pub fn lines(dialect: Dialect, lines: &[serde_json::Value]) -> Vec<NormalizedToolPart> {
    let text: String = lines.iter().map(|line| format!("{line}\n")).collect();
    let (parts, diagnostics) = normalize(text.as_bytes(), Some(dialect));
    assert!(diagnostics.is_empty(), "{diagnostics:?}");
    parts
}

/// A compiled JSON Schema (draft 2020-12 unless the schema names another), checked with
/// `boon`, which passes the JSON-Schema-Test-Suite.
pub struct JsonSchema {
    schemas: boon::Schemas,
    root: boon::SchemaIndex,
}

impl JsonSchema {
    /// Compiles `schema`; `name` is its id in error messages.
    pub fn new(name: &str, schema: serde_json::Value) -> Self {
        let url = format!("urn:toolnorm:{name}");
        let mut schemas = boon::Schemas::new();
        let mut compiler = boon::Compiler::new();
        compiler.add_resource(&url, schema).unwrap();
        let root = compiler
            .compile(&url, &mut schemas)
            .unwrap_or_else(|error| panic!("{name}: {error:#}"));
        JsonSchema { schemas, root }
    }

    /// Whether `value` fits.
    pub fn is_valid(&self, value: &serde_json::Value) -> bool {
        self.schemas.validate(value, self.root).is_ok()
    }

    /// Fails with every reason the schema gives when `value` does not fit.
    pub fn assert_valid(&self, value: &serde_json::Value, origin: &str) {
        if let Err(error) = self.schemas.validate(value, self.root) {
            panic!("{origin}: {value}\n{error:#}");
        }
    }
}

/// What two readings of one session must agree on for each call (a stored form and the
/// live stream of the same run): ids, names, kinds, titles, states, error codes,
/// sessions and parents.
#[derive(Debug, PartialEq)]
pub struct CallSummary {
    pub id: String,
    pub name: String,
    pub kind: String,
    pub title: String,
    pub state: toolnorm::ToolState,
    pub error_code: Option<String>,
    pub session: Option<String>,
    pub parent: Option<String>,
}

/// The summaries of `parts`, sorted by call id.
pub fn call_summaries(parts: &[NormalizedToolPart]) -> Vec<CallSummary> {
    let mut calls: Vec<CallSummary> = parts
        .iter()
        .map(|part| {
            let value = serde_json::to_value(part).unwrap();
            let text = |pointer: &str| {
                value
                    .pointer(pointer)
                    .and_then(serde_json::Value::as_str)
                    .map(str::to_owned)
            };
            CallSummary {
                id: part.id.clone(),
                name: part.name.clone(),
                kind: text("/kind").unwrap(),
                title: part.title.clone(),
                state: part.state,
                error_code: text("/error/code"),
                session: text("/metadata/sessionId"),
                parent: text("/metadata/parentToolCallId"),
            }
        })
        .collect();
    calls.sort_by(|a, b| a.id.cmp(&b.id));
    calls
}
