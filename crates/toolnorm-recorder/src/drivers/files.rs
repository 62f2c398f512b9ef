//! The files a CLI wrote under its scratch HOME (session transcripts, rollout and
//! chat files), found by walking a folder.

use std::path::{Path, PathBuf};

/// Every file at any depth below `dir` that `keep` accepts, sorted by path. A folder
/// that cannot be read (the CLI never wrote it) gives nothing.
pub(super) fn files_under(dir: &Path, keep: impl Fn(&Path) -> bool) -> Vec<PathBuf> {
    fn walk(dir: &Path, keep: &dyn Fn(&Path) -> bool, out: &mut Vec<PathBuf>) {
        let Ok(entries) = std::fs::read_dir(dir) else {
            return;
        };
        for entry in entries.flatten() {
            let path = entry.path();
            if path.is_dir() {
                walk(&path, keep, out);
            } else if keep(&path) {
                out.push(path);
            }
        }
    }
    let mut out = Vec::new();
    walk(dir, &keep, &mut out);
    out.sort();
    out
}

/// The lines of a text file, none when it cannot be read.
pub(super) fn lines_of(path: &Path) -> Vec<String> {
    std::fs::read_to_string(path)
        .map(|text| text.lines().map(str::to_owned).collect())
        .unwrap_or_default()
}

/// Whether `path` names a `.<extension>` file.
pub(super) fn has_extension(path: &Path, extension: &str) -> bool {
    path.extension().is_some_and(|x| x == extension)
}

#[cfg(test)]
mod tests {
    use super::{files_under, has_extension};

    #[test]
    fn finds_the_kept_files_at_any_depth_in_order() -> std::io::Result<()> {
        let root = std::env::temp_dir().join(format!("toolnorm-files-{}", std::process::id()));
        std::fs::create_dir_all(root.join("b/chats"))?;
        std::fs::create_dir_all(root.join("a"))?;
        for file in ["b/chats/2.jsonl", "a/1.jsonl", "a/notes.txt"] {
            std::fs::write(root.join(file), "")?;
        }
        let found = files_under(&root, |path| has_extension(path, "jsonl"));
        assert_eq!(
            found,
            [root.join("a/1.jsonl"), root.join("b/chats/2.jsonl")]
        );
        assert!(files_under(&root.join("missing"), |_| true).is_empty());
        std::fs::remove_dir_all(&root)
    }
}
