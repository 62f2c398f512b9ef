//! The book's generated pages and its link check.
//!
//! `cargo run -p toolnorm-docgen` writes the provider reference of the book
//! (`docs/src/reference/providers.md`) from the dialect table (`Dialect::all()` of
//! `toolnorm-adapters`) and the rules files; `-- --check` fails when that page is stale or
//! a relative link of the book or the README leads nowhere. See the book's page
//! "The docs" (`docs/src/contributor/docs.md`).
#![deny(missing_docs)]

mod error;
pub mod links;
pub mod reference;
pub mod rules;

use std::path::{Path, PathBuf};

pub use error::Error;

/// The repository's root (this crate is `crates/toolnorm-docgen`).
pub fn repository_root() -> PathBuf {
    let manifest_dir = Path::new(env!("CARGO_MANIFEST_DIR"));
    manifest_dir
        .parent()
        .and_then(Path::parent)
        .map_or_else(|| manifest_dir.join("../.."), Path::to_path_buf)
}

/// Writes the provider reference under `root`.
pub fn write(root: &Path) -> Result<(), Error> {
    let page = root.join(reference::PAGE);
    let text = reference::render(root)?;
    if let Some(folder) = page.parent() {
        std::fs::create_dir_all(folder).map_err(|e| Error::io(folder, e))?;
    }
    std::fs::write(&page, text).map_err(|e| Error::io(&page, e))
}

/// Checks that the provider reference under `root` is up to date and that the links of the
/// book and the README lead somewhere; returns how many relative links it followed.
pub fn check(root: &Path) -> Result<usize, Error> {
    let page = root.join(reference::PAGE);
    let written = std::fs::read_to_string(&page).map_err(|e| Error::io(&page, e))?;
    if written != reference::render(root)? {
        return Err(Error::Stale { path: page });
    }
    links::check(root)
}
