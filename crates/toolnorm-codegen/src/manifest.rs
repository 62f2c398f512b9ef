//! `schemas/PROVENANCE.toml`: where each pinned file came from.

use std::collections::BTreeMap;
use std::path::Path;

use serde::{Deserialize, Serialize};
use sha2::{Digest, Sha256};

use crate::error::{Error, Result, io};

/// File name of the manifest inside `schemas/`.
pub const MANIFEST: &str = "PROVENANCE.toml";

/// The whole manifest.
#[derive(Debug, Clone, Default, PartialEq, Eq, Serialize, Deserialize)]
pub struct Manifest {
    /// Pinned npm package versions, by package name.
    pub packages: BTreeMap<String, String>,
    /// One entry per pinned schema file.
    #[serde(default, rename = "file")]
    pub files: Vec<FileEntry>,
}

/// Provenance of one pinned schema file.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct FileEntry {
    /// Path relative to `schemas/`.
    pub path: String,
    /// Generated module fed by this file.
    pub module: String,
    /// npm package the file was extracted from.
    pub package: String,
    /// That package's pinned version.
    pub version: String,
    /// The exact extraction command, relative to the scratch npm prefix.
    pub command: String,
    /// Definitions kept (the `$ref` closure of these roots; `*` for all).
    pub roots: Vec<String>,
    /// Number of definitions kept.
    pub definitions: usize,
    /// sha256 of the file as stored.
    pub sha256: String,
}

const HEADER: &str = "\
# Provenance of the pinned provider schemas.
# Written by `cargo run -p toolnorm-codegen -- sync`; do not edit by hand.
# Each file is the official extraction output, pruned to the $ref closure
# of `roots` and re-serialized with sorted keys. Commands run in the npm
# prefix where `sync` installed `packages`.

";

impl Manifest {
    /// Reads `schemas/PROVENANCE.toml`.
    pub fn load(schemas_dir: &Path) -> Result<Self> {
        let path = schemas_dir.join(MANIFEST);
        let text = std::fs::read_to_string(&path).map_err(io(&path))?;
        toml::from_str(&text).map_err(|e| Error::Manifest {
            path,
            message: e.to_string(),
        })
    }

    /// Serializes the manifest with its header comment.
    pub fn render(&self) -> Result<String> {
        let body = toml::to_string(self).map_err(|e| Error::Manifest {
            path: MANIFEST.into(),
            message: e.to_string(),
        })?;
        Ok(format!("{HEADER}{body}"))
    }
}

/// Lowercase hex sha256 of `bytes`.
pub fn sha256_hex(bytes: &[u8]) -> String {
    Sha256::digest(bytes)
        .iter()
        .map(|b| format!("{b:02x}"))
        .collect()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn round_trips_through_toml() -> Result<()> {
        let mut manifest = Manifest::default();
        manifest
            .packages
            .insert("opencode-ai".into(), "1.18.33".into());
        manifest.files.push(FileEntry {
            path: "opencode/openapi.json".into(),
            module: "opencode".into(),
            package: "opencode-ai".into(),
            version: "1.18.33".into(),
            command: "opencode serve".into(),
            roots: vec!["Part".into()],
            definitions: 3,
            sha256: sha256_hex(b"abc"),
        });
        let text = manifest.render()?;
        let back: Manifest = toml::from_str(&text).map_err(|e| Error::Usage(e.to_string()))?;
        assert_eq!(back, manifest);
        assert_eq!(
            sha256_hex(b"abc"),
            "ba7816bf8f01cfea414140de5dae2223b00361a396177a9cb410ff61f20015ad"
        );
        Ok(())
    }
}
