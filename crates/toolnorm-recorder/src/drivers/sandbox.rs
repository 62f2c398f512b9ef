//! The clean environment every CLI runs in: only loopback, a refusing proxy,
//! the scratch HOME and working directory.

use std::path::PathBuf;
use std::process::Command;

use super::Recorder;
use crate::run::RunDirs;

/// The loopback port used as an HTTP(S) proxy that refuses every connection,
/// so that update checks and telemetry fail at once.
pub const DEAD_PROXY: &str = "http://127.0.0.1:9";

impl Recorder {
    /// `node_modules/.bin` of the installed CLIs.
    pub(super) fn bin_dir(&self) -> PathBuf {
        self.npm_dir.join("node_modules").join(".bin")
    }

    /// The `rg` Codex ships, put on every CLI's PATH (`codex-path/`; `path/` before
    /// Codex 0.12x).
    fn rg_dir(&self) -> PathBuf {
        let vendor = self
            .npm_dir
            .join("node_modules/@openai/codex-linux-x64/vendor/x86_64-unknown-linux-musl");
        ["codex-path", "path"]
            .iter()
            .map(|d| vendor.join(d))
            .find(|d| d.exists())
            .unwrap_or_else(|| vendor.join("codex-path"))
    }

    /// A command with a clean environment: only loopback, a refusing proxy,
    /// the scratch HOME.
    pub(super) fn command(&self, program: &str, dirs: &RunDirs) -> Command {
        self.command_at(&self.bin_dir().join(program), dirs)
    }

    /// [`Recorder::command`] of a program given by its path (a binary a platform package
    /// ships without a `bin` entry).
    pub(super) fn command_at(&self, program: &std::path::Path, dirs: &RunDirs) -> Command {
        let mut cmd = Command::new(program);
        let path = format!(
            "{}:{}:/usr/local/bin:/usr/bin:/bin",
            self.bin_dir().display(),
            self.rg_dir().display()
        );
        cmd.env_clear()
            .env("PATH", path)
            .env("HOME", &dirs.home)
            .env("USER", "user")
            .env("LANG", "C.UTF-8")
            .env("TERM", "dumb")
            .env("TZ", "UTC")
            .env("XDG_CONFIG_HOME", dirs.home.join(".config"))
            .env("XDG_DATA_HOME", dirs.home.join(".local/share"))
            .env("XDG_CACHE_HOME", dirs.home.join(".cache"))
            .env("XDG_STATE_HOME", dirs.home.join(".local/state"))
            .env("TMPDIR", dirs.root.join("tmp"))
            .env("HTTP_PROXY", DEAD_PROXY)
            .env("HTTPS_PROXY", DEAD_PROXY)
            .env("http_proxy", DEAD_PROXY)
            .env("https_proxy", DEAD_PROXY)
            .env("ALL_PROXY", DEAD_PROXY)
            .env("NO_PROXY", "127.0.0.1,localhost")
            .env("no_proxy", "127.0.0.1,localhost")
            .current_dir(&dirs.work);
        if let Some(data) = &self.data_home {
            cmd.env("XDG_DATA_HOME", data);
        }
        let _ = std::fs::create_dir_all(dirs.root.join("tmp"));
        cmd
    }
}
