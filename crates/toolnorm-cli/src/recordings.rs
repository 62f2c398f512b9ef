//! The recordings named on the command line: `FILE|DIR...` expanded into a sorted list
//! of files.

use std::path::PathBuf;

/// The file names a directory is searched for.
const EXTENSIONS: &[&str] = &["jsonl", "ndjson"];

/// Expands files and directories into the files to read: a file named is read whatever
/// its name; a directory gives its `*.jsonl` and `*.ndjson` files, recursively, sorted
/// by path. `-` is stdin.
pub(crate) fn expand(paths: &[PathBuf]) -> Result<Vec<PathBuf>, String> {
    let mut files = Vec::new();
    for path in paths {
        if path.as_os_str() == "-" || !path.is_dir() {
            files.push(path.clone());
            continue;
        }
        let mut found = Vec::new();
        for entry in walkdir::WalkDir::new(path).sort_by_file_name() {
            let entry = entry.map_err(|error| format!("{}: {error}", path.display()))?;
            let matches = entry
                .path()
                .extension()
                .and_then(|extension| extension.to_str())
                .is_some_and(|extension| EXTENSIONS.contains(&extension));
            if entry.file_type().is_file() && matches {
                found.push(entry.into_path());
            }
        }
        if found.is_empty() {
            return Err(format!(
                "{}: no *.jsonl file in this directory",
                path.display()
            ));
        }
        files.extend(found);
    }
    Ok(files)
}
