//! Pins the official provider schemas and generates the `toolnorm-wire`
//! Rust types from them.
//!
//! - [`sync`]: installs the npm packages [`pins`] pins (from a committed
//!   lockfile) into a scratch prefix,
//!   extracts each schema the official way, prunes it to what the
//!   normalizer needs, rewrites `schemas/` and `schemas/PROVENANCE.toml`,
//!   and reports what changed.
//! - [`generate`]: loads `schemas/`, applies the documented
//!   [`preprocess`] steps of each [`sources::Source`], runs typify, formats
//!   with prettyplease and writes `generated/rust/src/`; `--check` diffs
//!   instead of writing.
//!
//! The book's [Provider schemas and codegen](https://github.com/toolnorm/toolnorm/blob/main/docs/src/contributor/codegen.md) tells how to
//! regenerate and how to sync a new provider version.
#![deny(missing_docs)]

pub mod error;
pub mod generate;
pub mod manifest;
pub mod pins;
pub mod preprocess;
pub mod report;
pub mod schema_doc;
pub mod sources;
pub mod sync;

pub use error::{Error, Result};

/// The repository root this crate was built in (`crates/toolnorm-codegen/../..`).
pub fn default_repo_root() -> std::path::PathBuf {
    let manifest_dir = std::path::Path::new(env!("CARGO_MANIFEST_DIR"));
    manifest_dir
        .parent()
        .and_then(std::path::Path::parent)
        .map_or_else(|| manifest_dir.to_path_buf(), std::path::Path::to_path_buf)
}
