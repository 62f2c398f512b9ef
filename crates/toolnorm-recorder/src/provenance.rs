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
