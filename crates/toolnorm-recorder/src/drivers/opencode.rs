//! OpenCode driver: `opencode run --format json`, and the config the serve
//! and ACP drivers share.

use std::path::PathBuf;
use std::process::Command;

use serde_json::json;

use super::oneshot::OneShot;
use super::{Raw, Recorder, write_json};
use crate::error::Result;
use crate::run::RunDirs;
use crate::scenario::Scenario;

impl Recorder {
    /// Writes the OpenCode config and returns its path.
    pub fn opencode_config(&self, sc: &Scenario, dirs: &RunDirs) -> Result<PathBuf> {
        let mut permission = serde_json::Map::new();
        for k in [
            "edit",
            "bash",
            "webfetch",
            "websearch",
            "read",
            "external_directory",
            "doom_loop",
        ] {
            permission.insert(k.into(), json!("allow"));
        }
        for (k, v) in &sc.options.opencode_permission {
            permission.insert(k.clone(), crate::scenario::toml_to_json(v));
        }
        let config = json!({
            "$schema": "https://opencode.ai/config.json",
            "model": "mock/mock-model",
            "small_model": "mock/mock-model",
            "autoupdate": false,
            "share": "disabled",
            "provider": {"mock": {
                "npm": "@ai-sdk/openai-compatible",
                "name": "Mock",
                "options": {"baseURL": format!("{}/v1", self.base_url()), "apiKey": "sk-mock"},
                "models": {"mock-model": {"name": "Mock model", "tool_call": true, "limit": {"context": 200000, "output": 8192}}}
            }},
            "permission": permission,
            "mcp": {crate::mcp::SERVER_NAME: {"type": "local", "command": [self.mcp_bin], "enabled": true}}
        });
        let p = dirs.root.join("opencode.json");
        write_json(&p, &config)?;
        Ok(p)
    }

    /// An `opencode` command with its environment.
    pub fn opencode_command(&self, sc: &Scenario, dirs: &RunDirs) -> Result<Command> {
        let config = self.opencode_config(sc, dirs)?;
        let mut cmd = self.command("opencode", dirs);
        cmd.env("OPENCODE_CONFIG", config)
            .env("OPENCODE_DISABLE_MODELS_FETCH", "1")
            .env("OPENCODE_DISABLE_AUTOUPDATE", "1")
            .env("OPENCODE_DISABLE_SHARE", "1")
            .env("OPENCODE_DISABLE_LSP_DOWNLOAD", "1")
            .env("OPENCODE_DISABLE_DEFAULT_PLUGINS", "1")
            .env("OPENCODE_DISABLE_CLAUDE_CODE", "1");
        Ok(cmd)
    }

    pub(super) fn opencode_run(&self, sc: &Scenario, dirs: &RunDirs) -> Result<Raw> {
        let args: Vec<String> = vec![
            "run".into(),
            "--format".into(),
            "json".into(),
            "--model".into(),
            "mock/mock-model".into(),
            sc.full_prompt(),
        ];
        let cmd = self.opencode_command(sc, dirs)?;
        self.one_shot(
            sc,
            dirs,
            cmd,
            &OneShot {
                provider: "opencode-run",
                program: "opencode",
                args,
                trigger: "\"step_start\"",
                shown_suffix: "",
            },
        )
    }
}
