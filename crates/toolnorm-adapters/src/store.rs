//! Where agents keep their sessions by default: each dialect whose agent writes session
//! files (or a session database: OpenCode's) declares them in its row of the dialect
//! table ([`Dialect::stores`]); the command finds them under a home folder.

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
///
/// // OpenCode's database: one file, in `opencode` of `$XDG_DATA_HOME` when that is set.
/// let database = Dialect::from_name("opencode-export").unwrap().stores()[0];
/// assert_eq!(database.folder, ".local/share/opencode");
/// assert_eq!((database.env, database.env_subfolder), (Some("XDG_DATA_HOME"), "opencode"));
/// assert!(database.is_one_file() && !rollouts.is_one_file());
/// ```
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Store {
    /// The environment variable that names the folder instead, when it is set
    /// (`CODEX_HOME`, `CLAUDE_CONFIG_DIR`), or the folder it is in (`XDG_DATA_HOME`).
    pub env: Option<&'static str>,
    /// The store's folder in the one `env` names: empty when `env` names the store's
    /// own folder (`CODEX_HOME`), `opencode` in `XDG_DATA_HOME`.
    pub env_subfolder: &'static str,
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
            env_subfolder: "",
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

    /// The same store, in folder `subfolder` of the one `env` names when that is set
    /// (OpenCode's `opencode` in `XDG_DATA_HOME`).
    pub const fn or_env_subfolder(self, env: &'static str, subfolder: &'static str) -> Store {
        Store {
            env: Some(env),
            env_subfolder: subfolder,
            ..self
        }
    }

    /// Whether the store is one file, not a glob (OpenCode's database).
    pub fn is_one_file(&self) -> bool {
        !self.files.contains(['*', '?', '[', '{'])
    }
}
