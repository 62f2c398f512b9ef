//! Finding the session files every known agent keeps under a home folder: each
//! dialect's default stores ([`Dialect::stores`]), their folders moved by the agents'
//! own environment variables (`CODEX_HOME`, `CLAUDE_CONFIG_DIR`).

use std::ffi::OsString;
use std::path::{Path, PathBuf};
use std::time::SystemTime;

use globset::{GlobBuilder, GlobMatcher};
use toolnorm_adapters::{Dialect, Store};

/// A session file found in a store.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) struct Found {
    pub(crate) dialect: Dialect,
    pub(crate) path: PathBuf,
    pub(crate) bytes: u64,
    pub(crate) modified: Option<SystemTime>,
}

/// Every session file of every dialect's stores under `home` (`env` reads the
/// variables that move a store), sorted by path.
pub(crate) fn discover(
    home: &Path,
    env: &dyn Fn(&str) -> Option<OsString>,
) -> Result<Vec<Found>, String> {
    let mut found = Vec::new();
    for dialect in Dialect::all() {
        for store in dialect.stores() {
            let root = folder(store, home, env);
            // One file (OpenCode's database): no folder to walk.
            if store.is_one_file() {
                let path = root.join(store.files);
                if let Ok(metadata) = std::fs::metadata(&path)
                    && metadata.is_file()
                {
                    found.push(Found {
                        dialect,
                        path,
                        bytes: metadata.len(),
                        modified: metadata.modified().ok(),
                    });
                }
                continue;
            }
            let matcher = matcher(store)?;
            for entry in walkdir::WalkDir::new(&root).follow_links(true) {
                // A store that is not there, or a folder that cannot be read, has no
                // sessions to list.
                let Ok(entry) = entry else { continue };
                if !entry.file_type().is_file() {
                    continue;
                }
                let Ok(relative) = entry.path().strip_prefix(&root) else {
                    continue;
                };
                if !matcher.is_match(relative) {
                    continue;
                }
                let metadata = entry.metadata().ok();
                found.push(Found {
                    dialect,
                    path: entry.path().to_path_buf(),
                    bytes: metadata.as_ref().map_or(0, |metadata| metadata.len()),
                    modified: metadata.and_then(|metadata| metadata.modified().ok()),
                });
            }
        }
    }
    found.sort_by(|a, b| a.path.cmp(&b.path));
    found.dedup_by(|a, b| a.path == b.path);
    Ok(found)
}

/// The folders of every dialect's stores under `home` (`env` reads the variables that
/// move a store), each once, whether or not it is there. A store that is one database
/// (OpenCode's) is not among them: the index does not hold its sessions.
pub(crate) fn roots(home: &Path, env: &dyn Fn(&str) -> Option<OsString>) -> Vec<PathBuf> {
    let mut roots: Vec<PathBuf> = Dialect::all()
        .flat_map(|dialect| dialect.stores())
        .filter(|store| !store.is_one_file())
        .map(|store| folder(store, home, env))
        .collect();
    roots.sort();
    roots.dedup();
    roots
}

/// The folder of `store`: the one its variable names (or its subfolder) when set, else
/// under `home`.
fn folder(store: &Store, home: &Path, env: &dyn Fn(&str) -> Option<OsString>) -> PathBuf {
    let named = store.env.and_then(env).filter(|value| !value.is_empty());
    match named {
        None => home.join(store.folder),
        Some(value) if store.env_subfolder.is_empty() => PathBuf::from(value),
        Some(value) => PathBuf::from(value).join(store.env_subfolder),
    }
}

/// The store's glob: `*` within a path segment, `**` across them.
fn matcher(store: &Store) -> Result<GlobMatcher, String> {
    GlobBuilder::new(store.files)
        .literal_separator(true)
        .build()
        .map(|glob| glob.compile_matcher())
        .map_err(|error| format!("the store glob {}: {error}", store.files))
}

#[cfg(test)]
mod tests {
    #![allow(clippy::unwrap_used)]

    use super::*;

    fn touch(root: &Path, relative: &str) {
        let path = root.join(relative);
        std::fs::create_dir_all(path.parent().unwrap()).unwrap();
        std::fs::write(path, "{}\n").unwrap();
    }

    #[test]
    fn every_declared_glob_compiles() {
        for dialect in Dialect::all() {
            for store in dialect.stores() {
                matcher(store).unwrap();
            }
        }
    }

    #[test]
    fn each_agents_files_are_found_where_it_keeps_them_and_nothing_else() {
        let home = std::env::temp_dir().join(format!("toolnorm-stores-{}", std::process::id()));
        let codex_home = home.join("elsewhere/codex");
        for relative in [
            ".claude/projects/-work-app/s1.jsonl",
            ".claude/projects/-work-app/s1/subagents/agent-a.jsonl",
            ".claude/settings.json",
            ".codex/sessions/2026/01/01/rollout-x.jsonl",
            ".gemini/tmp/abc/chats/session-1.jsonl",
            ".gemini/tmp/abc/logs.json",
            ".qwen/projects/p/chats/s.jsonl",
            ".copilot/session-state/s/events.jsonl",
            ".cline/data/tasks/1/ui_messages.json",
            ".cline/data/tasks/1/api_conversation_history.json",
            ".cline/data/sessions/2/2.messages.json",
            ".pi/agent/sessions/--work--/s.jsonl",
            ".factory/sessions/w/s.jsonl",
            ".vibe/logs/session/unified/s/journal/1.jsonl",
            ".vibe/logs/session/unified/s/meta.json",
            ".continue/sessions/00000000-0000-4000-8000-000000000001.json",
            ".continue/sessions/sessions.json",
            ".continue/config.yaml",
            ".local/share/opencode/opencode.db",
            ".local/share/opencode/storage/session/x.json",
        ] {
            touch(&home, relative);
        }
        touch(&codex_home, "sessions/2026/01/02/rollout-y.jsonl");
        let names = |env: &dyn Fn(&str) -> Option<OsString>| -> Vec<(String, String)> {
            discover(&home, env)
                .unwrap()
                .into_iter()
                .map(|found| {
                    let path = found.path.strip_prefix(&home).unwrap();
                    (found.dialect.to_string(), path.display().to_string())
                })
                .collect()
        };
        let found = names(&|_| None);
        let expected = [
            // A path sorts by its components: `s1/…` before `s1.jsonl`.
            (
                "claude-code",
                ".claude/projects/-work-app/s1/subagents/agent-a.jsonl",
            ),
            ("claude-code", ".claude/projects/-work-app/s1.jsonl"),
            (
                "cline-sdk-session",
                ".cline/data/sessions/2/2.messages.json",
            ),
            ("cline-task", ".cline/data/tasks/1/ui_messages.json"),
            (
                "codex-rollout",
                ".codex/sessions/2026/01/01/rollout-x.jsonl",
            ),
            (
                "continue-session",
                ".continue/sessions/00000000-0000-4000-8000-000000000001.json",
            ),
            ("copilot", ".copilot/session-state/s/events.jsonl"),
            ("droid-session", ".factory/sessions/w/s.jsonl"),
            ("gemini-cli", ".gemini/tmp/abc/chats/session-1.jsonl"),
            ("opencode-export", ".local/share/opencode/opencode.db"),
            ("pi-session", ".pi/agent/sessions/--work--/s.jsonl"),
            ("qwen-code-session", ".qwen/projects/p/chats/s.jsonl"),
            (
                "vibe-journal",
                ".vibe/logs/session/unified/s/journal/1.jsonl",
            ),
        ];
        let expected: Vec<(String, String)> = expected
            .iter()
            .map(|(dialect, path)| ((*dialect).to_owned(), (*path).to_owned()))
            .collect();
        assert_eq!(found, expected);
        // CODEX_HOME moves Codex's store: the one under the home folder is not read.
        let moved = names(&|name| (name == "CODEX_HOME").then(|| codex_home.clone().into()));
        assert!(moved.contains(&(
            "codex-rollout".to_owned(),
            "elsewhere/codex/sessions/2026/01/02/rollout-y.jsonl".to_owned()
        )));
        assert!(!moved.iter().any(|(_, path)| path.starts_with(".codex")));
        // XDG_DATA_HOME moves OpenCode's database to its `opencode` folder.
        let data = home.join("data");
        touch(&data, "opencode/opencode.db");
        let moved = names(&|name| (name == "XDG_DATA_HOME").then(|| data.clone().into()));
        assert!(moved.contains(&(
            "opencode-export".to_owned(),
            "data/opencode/opencode.db".to_owned()
        )));
        assert!(!moved.iter().any(|(_, path)| path.starts_with(".local")));
        std::fs::remove_dir_all(&home).unwrap();
    }
}
