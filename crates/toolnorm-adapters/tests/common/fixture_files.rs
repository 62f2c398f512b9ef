//! The workspace's fixture recordings, found alike by the crate's unit tests
//! (`src/dialects/claim_checks.rs`) and its integration tests (`tests/common`): both
//! include this file.

use std::path::{Path, PathBuf};

/// The workspace's `fixtures/` directory.
pub fn fixtures() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("../../fixtures")
}

/// Every `.jsonl` file right in the fixture directories whose name `folder` accepts, in
/// path order.
pub fn recordings_where(folder: impl Fn(&str) -> bool) -> Vec<PathBuf> {
    let mut files = Vec::new();
    for dir in std::fs::read_dir(fixtures()).unwrap() {
        let dir = dir.unwrap().path();
        if !dir.is_dir() || !folder(&dir.file_name().unwrap().to_string_lossy()) {
            continue;
        }
        for file in std::fs::read_dir(&dir).unwrap() {
            let file = file.unwrap().path();
            if file.extension().is_some_and(|ext| ext == "jsonl") {
                files.push(file);
            }
        }
    }
    files.sort();
    files
}
