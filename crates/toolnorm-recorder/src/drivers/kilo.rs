//! Kilo Code CLI driver: `kilo run --format json` (`@kilocode/cli` 7.x, a fork of
//! OpenCode), configured as `opencode run` is (the same config file, under Kilo's
//! `KILO_*` variables), its platform package's binary run directly (the launcher's
//! install script fetches it, which an offline install cannot).

use std::path::PathBuf;

use super::oneshot::OneShot;
use super::{Raw, Recorder};
use crate::error::Result;
use crate::run::RunDirs;
use crate::scenario::Scenario;

/// The platform package that holds the binary.
pub(super) const PACKAGE: &str = "@kilocode/cli-linux-x64";

impl Recorder {
    /// The `kilo` binary of the installed platform package.
    fn kilo_bin(&self) -> PathBuf {
        self.npm_dir
            .join("node_modules")
            .join(PACKAGE)
            .join("bin")
            .join("kilo")
    }

    pub(super) fn kilo_run(&self, sc: &Scenario, dirs: &RunDirs) -> Result<Raw> {
        let config = self.opencode_config(sc, dirs)?;
        let mut cmd = self.command_at(&self.kilo_bin(), dirs);
        cmd.env("KILO_CONFIG", config)
            .env("KILO_DISABLE_MODELS_FETCH", "1")
            .env("KILO_DISABLE_AUTOUPDATE", "1")
            .env("KILO_DISABLE_DEFAULT_PLUGINS", "1")
            .env("KILO_DISABLE_CLAUDE_CODE", "1")
            .env("KILO_DISABLE_LSP_DOWNLOAD", "1");
        let args: Vec<String> = vec![
            "run".into(),
            "--format".into(),
            "json".into(),
            "--model".into(),
            "mock/mock-model".into(),
            sc.full_prompt(),
        ];
        self.one_shot(
            sc,
            dirs,
            cmd,
            &OneShot {
                provider: "kilo-run",
                program: "kilo",
                args,
                trigger: "\"step_start\"",
                shown_suffix: "",
            },
        )
    }
}
