//! Where agents keep their sessions by default: each dialect whose agent writes session
//! files declares them in its row of the dialect table ([`Dialect::stores`]); the command
//! finds them under a home folder.

/// Where an agent keeps its sessions by default: files under a folder of the home
/// directory, or of the folder an environment variable names, that match a glob.
///
/// ```
/// use toolnorm_adapters::Dialect;
///
/// let rollouts = Dialect::from_name("codex-rollout").unwrap().stores()[0];
/// assert_eq!(rollouts.env, Some("CODEX_HOME"));
/// assert_eq!(rollouts.folder, ".codex");
/// assert_eq!(rollouts.files, "sessions/**/rollout-*.jsonl");
/// ```
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Store {
    /// The environment variable that names the folder instead, when it is set
    /// (`CODEX_HOME`, `CLAUDE_CONFIG_DIR`).
    pub env: Option<&'static str>,
    /// The folder, relative to the home directory (`.codex`).
    pub folder: &'static str,
    /// The session files under the folder, as a glob: `*` within a path segment, `**`
    /// across segments (`sessions/**/rollout-*.jsonl`).
    pub files: &'static str,
}

impl Store {
    /// A store in `folder` of the home directory, its files matching `files`.
    pub const fn at(folder: &'static str, files: &'static str) -> Store {
        Store {
            env: None,
            folder,
            files,
        }
    }

    /// The same store, its folder named by `env` when that is set.
    pub const fn or_env(self, env: &'static str) -> Store {
        Store {
            env: Some(env),
            ..self
        }
    }
}
