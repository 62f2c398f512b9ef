//! `fixtures/PROVENANCE.toml`: where every fixture came from.

use std::collections::BTreeMap;
use std::path::Path;

use serde::{Deserialize, Serialize};

use crate::error::{Error, Result};

/// The provenance file.
#[derive(Debug, Clone, Default, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct Provenance {
    /// The CLIs used, by provider directory name.
    #[serde(default)]
    pub cli: BTreeMap<String, Cli>,
    /// One entry per fixture file.
    #[serde(default)]
    pub fixture: Vec<Entry>,
    /// One entry per fixture that `toolnorm-record` did not record: a public sample of a
    /// CLI that cannot run here, or a stream recorded by hand.
    #[serde(default)]
    pub sample: Vec<Sample>,
    /// One entry per database fixture: an agent's session store as it wrote it, with the
    /// agent's own export of each session beside it.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub database: Vec<Database>,
}

/// Where a database fixture came from (`opencode-db/<version>/opencode.db`).
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct Database {
    /// Path of the database, relative to `fixtures/`.
    pub path: String,
    /// Path of the agent's export of each of its sessions, one JSON document a line in
    /// the database's order, relative to `fixtures/`.
    pub exports: String,
    /// npm package of the CLI that wrote it.
    pub cli: String,
    /// Version of that CLI.
    pub version: String,
    /// The scenarios run into it, in order.
    pub scenarios: Vec<String>,
    /// How many sessions it holds (the lines of `exports`).
    pub sessions: usize,
    /// The commands that were run.
    pub command: String,
}

/// Where a fixture that `toolnorm-record` did not record came from.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct Sample {
    /// Path relative to `fixtures/`.
    pub path: String,
    /// Dialect directory.
    pub provider: String,
    /// `captured` (a CLI's own output, copied verbatim from a public repository),
    /// `recorded` (the real CLI run here against a loopback server, outside
    /// `toolnorm-record`) or `assembled` (written from the documented format and the
    /// lines of public samples).
    pub origin: String,
    /// The CLI and its version, as far as the source says.
    pub cli: String,
    /// The public repository the lines come from (`owner/name`), if any.
    #[serde(default)]
    pub repository: String,
    /// The file in that repository, if any.
    #[serde(default)]
    pub repository_path: String,
    /// The commit of that repository, if any.
    #[serde(default)]
    pub commit: String,
    /// What it shows, and how it was made.
    pub description: String,
    /// Number of JSON lines in the fixture.
    pub lines: usize,
}

/// A CLI package at a pinned version.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct Cli {
    /// npm package name.
    pub package: String,
    /// Exact version.
    pub version: String,
}

/// One fixture's provenance.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct Entry {
    /// Path relative to `fixtures/`.
    pub path: String,
    /// Provider (dialect) directory.
    pub provider: String,
    /// npm package of the CLI that produced it.
    pub cli: String,
    /// Version of that CLI.
    pub version: String,
    /// Scenario name.
    pub scenario: String,
    /// Scenario file, relative to the repository root.
    pub scenario_file: String,
    /// What the scenario shows.
    pub description: String,
    /// The command that was run (paths shown normalized).
    pub command: String,
    /// Number of JSON lines in the fixture.
    pub lines: usize,
}

impl Provenance {
    /// Reads the file, or an empty provenance when it does not exist.
    pub fn load(path: &Path) -> Result<Self> {
        if !path.exists() {
            return Ok(Provenance::default());
        }
        let text = std::fs::read_to_string(path)
            .map_err(|e| Error::io(format!("reading {}", path.display()), e))?;
        toml::from_str(&text).map_err(|e| Error::Provenance {
            path: path.to_owned(),
            message: e.to_string(),
        })
    }

    /// Inserts or replaces an entry (by path), keeping entries sorted.
    pub fn upsert(&mut self, entry: Entry) {
        self.fixture.retain(|e| e.path != entry.path);
        self.fixture.push(entry);
        self.fixture.sort_by(|a, b| a.path.cmp(&b.path));
    }

    /// Inserts or replaces a database entry (by path), keeping them sorted.
    pub fn upsert_database(&mut self, database: Database) {
        self.database.retain(|d| d.path != database.path);
        self.database.push(database);
        self.database.sort_by(|a, b| a.path.cmp(&b.path));
    }

    /// Writes the file.
    pub fn save(&self, path: &Path) -> Result<()> {
        let body = toml::to_string_pretty(self).map_err(|e| Error::Provenance {
            path: path.to_owned(),
            message: e.to_string(),
        })?;
        let text = format!(
            "# Provenance of the recorded fixtures. Written by `toolnorm-record`; do not edit by hand.\n\n{body}"
        );
        std::fs::write(path, text).map_err(|e| Error::io(format!("writing {}", path.display()), e))
    }
}
