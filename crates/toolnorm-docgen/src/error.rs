//! [`Error`]: what can go wrong writing or checking the docs.

use std::path::PathBuf;

/// An error of the docs generator.
#[derive(Debug, thiserror::Error)]
pub enum Error {
    /// A file could not be read or written.
    #[error("{path}: {source}")]
    Io {
        /// The file.
        path: PathBuf,
        /// Why.
        source: std::io::Error,
    },
    /// A rules file is not TOML.
    #[error("{path}: {source}")]
    Toml {
        /// The rules file.
        path: PathBuf,
        /// Why.
        source: Box<toml::de::Error>,
    },
    /// The adapters' `Cargo.toml` does not declare a dialect's feature.
    #[error(
        "the dialect `{dialect}` names the cargo feature `{feature}`, which {manifest} does not declare"
    )]
    UnknownFeature {
        /// The dialect.
        dialect: String,
        /// Its feature.
        feature: String,
        /// The adapters' manifest.
        manifest: PathBuf,
    },
    /// The checked-in reference differs from what the table and rules files give.
    #[error("{path} is stale: run `cargo run -p toolnorm-docgen` and commit the result")]
    Stale {
        /// The reference page.
        path: PathBuf,
    },
    /// Links that lead nowhere.
    #[error("{} broken link(s):\n{}", .0.len(), .0.join("\n"))]
    BrokenLinks(Vec<String>),
}

impl Error {
    /// An I/O error on `path`.
    pub fn io(path: impl Into<PathBuf>, source: std::io::Error) -> Self {
        Error::Io {
            path: path.into(),
            source,
        }
    }
}
