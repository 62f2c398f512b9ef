//! The crate's error type.

use std::path::PathBuf;

/// Everything that can go wrong while syncing schemas or generating code.
#[derive(Debug, thiserror::Error)]
pub enum Error {
    /// A file or directory could not be read or written.
    #[error("{path}: {source}")]
    Io {
        /// The path involved.
        path: PathBuf,
        /// The underlying error.
        source: std::io::Error,
    },
    /// A file did not contain valid JSON.
    #[error("{path}: invalid JSON: {source}")]
    Json {
        /// The path involved.
        path: PathBuf,
        /// The underlying error.
        source: serde_json::Error,
    },
    /// A schema document did not have the expected shape.
    #[error("schema {name}: {message}")]
    Schema {
        /// Which schema file or definition.
        name: String,
        /// What was wrong.
        message: String,
    },
    /// typify refused a schema.
    #[error("typify failed for module `{module}`: {message}")]
    Typify {
        /// The generated module.
        module: String,
        /// typify's message.
        message: String,
    },
    /// typify produced tokens that do not parse as a Rust file.
    #[error("generated code for module `{module}` does not parse: {source}")]
    Syn {
        /// The generated module.
        module: String,
        /// The parse error.
        source: syn::Error,
    },
    /// `schemas/PROVENANCE.toml` could not be read.
    #[error("manifest {path}: {message}")]
    Manifest {
        /// The manifest path.
        path: PathBuf,
        /// What was wrong.
        message: String,
    },
    /// An external command (npm, codex, opencode, …) failed during `sync`.
    #[error("command `{command}` failed: {message}")]
    Command {
        /// The command line.
        command: String,
        /// Exit status and stderr, or the spawn error.
        message: String,
    },
    /// `generate --check` found the checked-in files out of date.
    #[error(
        "generated/ is stale; run `cargo run -p toolnorm-codegen -- generate` and commit the result\n{diff}"
    )]
    Stale {
        /// Unified diff between the checked-in and the regenerated files.
        diff: String,
    },
    /// A command-line argument was invalid.
    #[error("{0}")]
    Usage(String),
}

/// Shorthand for this crate's results.
pub type Result<T, E = Error> = std::result::Result<T, E>;

/// Wraps an I/O error with its path.
pub(crate) fn io(path: impl Into<PathBuf>) -> impl FnOnce(std::io::Error) -> Error {
    let path = path.into();
    move |source| Error::Io { path, source }
}
