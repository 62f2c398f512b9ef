//! Which goldens the recorded fixtures have (`tests/goldens.toml`), and the checks that
//! keep them stored once: a fixture's parts and event log are pinned by a golden of its
//! own only where they differ from those of every fixture it shares with.
#![allow(dead_code, clippy::unwrap_used, clippy::expect_used)]

use std::cmp::Ordering;
use std::collections::{BTreeMap, BTreeSet};
use std::path::{Path, PathBuf};

/// The adapters' golden directory.
pub fn snapshots() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/snapshots")
}

/// Every golden directory of the workspace: the folders named `snapshots` under each
/// crate's `tests/`, this crate's first.
pub fn snapshot_dirs() -> Vec<PathBuf> {
    fn walk(dir: &Path, found: &mut Vec<PathBuf>) {
        for entry in std::fs::read_dir(dir).unwrap() {
            let path = entry.unwrap().path();
            if path.is_dir() {
                if path.file_name().is_some_and(|name| name == "snapshots") {
                    found.push(path);
                } else {
                    walk(&path, found);
                }
            }
        }
    }
    let crates = Path::new(env!("CARGO_MANIFEST_DIR")).join("..");
    let mut dirs = Vec::new();
    for entry in std::fs::read_dir(&crates).unwrap() {
        let tests = entry.unwrap().path().join("tests");
        if tests.is_dir() {
            walk(&tests, &mut dirs);
        }
    }
    dirs.sort();
    let own = snapshots().canonicalize().unwrap();
    dirs.sort_by_key(|dir| dir.canonicalize().unwrap() != own);
    dirs
}

/// The workspace's `fixtures/` directory.
pub fn fixtures_dir() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("../../fixtures")
}

/// Every recorded fixture (`<folder>/<name>.jsonl`), as `folder/name.jsonl`, in name order.
pub fn fixtures() -> Vec<String> {
    let mut names = Vec::new();
    for folder in std::fs::read_dir(fixtures_dir()).unwrap() {
        let folder = folder.unwrap().path();
        if !folder.is_dir() {
            continue;
        }
        let folder_name = folder.file_name().unwrap().to_string_lossy().into_owned();
        for file in std::fs::read_dir(&folder).unwrap() {
            let file = file.unwrap().path();
            if file.is_file() && file.extension().is_some_and(|ext| ext == "jsonl") {
                let name = file.file_name().unwrap().to_string_lossy().into_owned();
                names.push(format!("{folder_name}/{name}"));
            }
        }
    }
    names.sort();
    names
}

/// A fixture's path relative to `fixtures/` (`folder/name.jsonl`).
pub fn relative(path: &Path) -> String {
    let folder = path
        .parent()
        .unwrap()
        .file_name()
        .unwrap()
        .to_string_lossy();
    let name = path.file_name().unwrap().to_string_lossy();
    format!("{folder}/{name}")
}

/// `tests/goldens.toml`: the sources that share goldens, the recordings without calls, and
/// the emitter cases.
pub struct Rules {
    /// Source folder -> the source whose outputs it shares.
    pub shares: BTreeMap<String, String>,
    /// Recordings with no tool call, and why.
    pub no_calls: BTreeMap<String, String>,
    /// The emitter cases, and why each is there.
    pub cases: BTreeMap<String, String>,
}

fn table(root: &toml::Table, key: &str) -> BTreeMap<String, String> {
    root.get(key)
        .and_then(toml::Value::as_table)
        .unwrap_or_else(|| panic!("goldens.toml: no [{key}] table"))
        .iter()
        .map(|(name, why)| {
            let why = why.as_str().expect("goldens.toml: a value is a string");
            (name.clone(), why.to_owned())
        })
        .collect()
}

impl Rules {
    /// Reads `tests/goldens.toml`.
    pub fn load() -> Rules {
        let path = Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/goldens.toml");
        let root: toml::Table = std::fs::read_to_string(path).unwrap().parse().unwrap();
        Rules {
            shares: table(&root, "shares"),
            no_calls: table(&root, "no-calls"),
            cases: table(&root, "cases"),
        }
    }

    /// A glob pattern (under `fixtures/`) matching the cases.
    pub fn case_pattern(&self) -> String {
        let names: Vec<&str> = self.cases.keys().map(String::as_str).collect();
        format!("{{{}}}", names.join(","))
    }

    /// The fixtures `fixture` shares its goldens with, in the order they are tried: the same
    /// file in each newer version folder of its source (newest first; the unversioned
    /// folder is the newest), then in the folder of the source it shares with, at its
    /// version.
    pub fn shared_with(&self, fixture: &str, all: &BTreeSet<String>) -> Vec<String> {
        let (folder, name) = fixture.split_once('/').unwrap();
        let (source, version) = split(folder);
        let mut newer: Vec<(&str, Option<Vec<u64>>)> = all
            .iter()
            .filter_map(|other| {
                let (other_folder, other_name) = other.split_once('/')?;
                let (other_source, other_version) = split(other_folder);
                (other_name == name
                    && other_source == source
                    && newer_than(&other_version, &version) == Ordering::Greater)
                    .then_some((other_folder, other_version))
            })
            .collect();
        newer.sort_by(|a, b| newer_than(&b.1, &a.1));
        let mut candidates: Vec<String> = newer
            .into_iter()
            .map(|(other_folder, _)| format!("{other_folder}/{name}"))
            .collect();
        if let Some(twin) = self.shares.get(source) {
            let twin_folder = match folder.split_once('@') {
                Some((_, version)) => format!("{twin}@{version}"),
                None => twin.clone(),
            };
            let twin_fixture = format!("{twin_folder}/{name}");
            if all.contains(&twin_fixture) {
                candidates.push(twin_fixture);
            }
        }
        candidates
    }

    /// Whether `fixture` needs its own golden for `test` (a test of `fixtures.rs`), given
    /// every fixture's output for it. A golden of its own that is redundant (a fixture it
    /// shares with writes its output, or it has no calls) is added to `redundant`, to be
    /// deleted. Panics where a recording listed without calls has output (`empty` is the
    /// output of no calls).
    pub fn needs_golden(
        &self,
        test: &str,
        fixture: &str,
        outputs: &BTreeMap<String, String>,
        empty: &str,
        redundant: &mut Vec<String>,
    ) -> bool {
        let golden = snapshots().join(golden_name(test, fixture));
        let own = golden.exists();
        let output = &outputs[fixture];
        if self.no_calls.contains_key(fixture) {
            assert_eq!(
                output, empty,
                "{fixture} is listed in goldens.toml as having no calls, and has output"
            );
            if own {
                redundant.push(format!("{} ({fixture} has no calls)", golden.display()));
            }
            return false;
        }
        let keys: BTreeSet<String> = outputs.keys().cloned().collect();
        let candidates = self.shared_with(fixture, &keys);
        let shared = candidates
            .iter()
            .find(|other| outputs.get(*other) == Some(output));
        match shared {
            Some(other) => {
                if own {
                    redundant.push(format!(
                        "{} ({fixture} writes what {other} writes)",
                        golden.display()
                    ));
                }
                false
            }
            None => {
                if !own && !candidates.is_empty() {
                    // The golden insta proposes is the whole output: say what to diff it with.
                    eprintln!(
                        "{fixture} writes its own output now, not that of {}: compare its new \
                         golden with theirs",
                        candidates.join(" or ")
                    );
                }
                true
            }
        }
    }
}

/// Panics listing the goldens that `needs_golden` found redundant.
pub fn assert_none_redundant(redundant: &[String]) {
    assert!(
        redundant.is_empty(),
        "redundant goldens (their fixture's output is pinned by the golden of the fixture it \
         shares with, see tests/goldens.toml); delete them:\n{}",
        redundant.join("\n")
    );
}

/// The golden file insta names for `test` on `fixture` (`folder/name.jsonl`).
pub fn golden_name(test: &str, fixture: &str) -> String {
    format!("fixtures__{test}@{}.snap", fixture.replace('/', "__"))
}

/// A source folder's source and version (`claude-code@2.0.73` -> `claude-code`, `[2, 0, 73]`;
/// no version for the unversioned folder, which holds the newest recordings). A suffix
/// after `-` is not compared (Amp's `0.0.1767830505-ga62310` names its commit).
fn split(folder: &str) -> (&str, Option<Vec<u64>>) {
    match folder.split_once('@') {
        Some((source, version)) => {
            let version = version
                .split_once('-')
                .map_or(version, |(numbers, _)| numbers);
            let numbers = version
                .split('.')
                .map(|number| number.parse().expect("a version folder's version"))
                .collect();
            (source, Some(numbers))
        }
        None => (folder, None),
    }
}

/// Orders two version folders' versions, the unversioned one newest.
fn newer_than(a: &Option<Vec<u64>>, b: &Option<Vec<u64>>) -> Ordering {
    match (a, b) {
        (None, None) => Ordering::Equal,
        (None, Some(_)) => Ordering::Greater,
        (Some(_), None) => Ordering::Less,
        (Some(a), Some(b)) => a.cmp(b),
    }
}

/// A golden's body: the file after insta's header.
pub fn body(text: &str) -> &str {
    text.strip_prefix("---\n")
        .and_then(|rest| rest.split_once("\n---\n"))
        .map_or(text, |(_, body)| body)
}

/// The shape of a line an emitter writes: its keys, with the values of `type`,
/// `sessionUpdate` and `status` and the shape of what the emitter builds, but not the
/// values that only pass through (inputs, outputs, titles, kinds, metadata, texts).
pub fn shape(value: &serde_json::Value) -> String {
    use serde_json::Value;
    const TAGS: &[&str] = &["type", "sessionUpdate", "status"];
    const PASSED_THROUGH: &[&str] = &[
        "input",
        "rawInput",
        "output",
        "rawOutput",
        "metadata",
        "inputTextDelta",
        "delta",
        "result",
        "errorText",
        "error",
        "timing",
        "kind",
        "title",
        "name",
        "toolName",
        "text",
        "oldText",
        "newText",
        "path",
        "terminalId",
    ];
    match value {
        Value::Object(object) => {
            let mut keys: Vec<&String> = object.keys().collect();
            keys.sort();
            let fields: Vec<String> = keys
                .into_iter()
                .map(|key| match &object[key] {
                    _ if PASSED_THROUGH.contains(&key.as_str()) => format!("{key}:*"),
                    Value::String(tag) if TAGS.contains(&key.as_str()) => format!("{key}={tag:?}"),
                    field => format!("{key}:{}", shape(field)),
                })
                .collect();
            format!("{{{}}}", fields.join(","))
        }
        Value::Array(items) => {
            let shapes: BTreeSet<String> = items.iter().map(shape).collect();
            format!("[{}]", shapes.into_iter().collect::<Vec<_>>().join("|"))
        }
        Value::Bool(_) => "bool".to_owned(),
        Value::Null => "null".to_owned(),
        Value::Number(_) => "number".to_owned(),
        Value::String(_) => "string".to_owned(),
    }
}
