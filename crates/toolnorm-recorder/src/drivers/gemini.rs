//! Gemini CLI driver: `gemini -p … --output-format stream-json`, plus the session
//! files it writes under `~/.gemini/tmp/<project>/chats/`.
//!
//! The CLI is pointed at the mock model with `GOOGLE_GEMINI_BASE_URL` (loopback may be
//! plain HTTP), signs in with `GEMINI_API_KEY` (`security.auth.selectedType:
//! gemini-api-key`), trusts the working directory through `GEMINI_CLI_TRUST_WORKSPACE`,
//! and finds the mock MCP server in `mcpServers` of `~/.gemini/settings.json`.

use std::process::Command;

use serde_json::json;

use super::files::{files_under, has_extension, lines_of};
use super::oneshot::OneShot;
use super::{Raw, Recorder, write_json};
use crate::error::{Error, Result};
use crate::run::RunDirs;
use crate::scenario::Scenario;

/// The model named on the command line (an explicit model skips the CLI's router).
pub(super) const MODEL: &str = "gemini-2.5-pro";

impl Recorder {
    /// A `gemini` command with its environment and a scratch `~/.gemini` (settings, the
    /// scenario's deny policy), pointed at the mock model.
    pub(super) fn gemini_command(&self, sc: &Scenario, dirs: &RunDirs) -> Result<Command> {
        let config_dir = dirs.home.join(".gemini");
        std::fs::create_dir_all(&config_dir)
            .map_err(|e| Error::io("creating the gemini config dir", e))?;
        write_json(
            &config_dir.join("settings.json"),
            &json!({
                "security": {"auth": {"selectedType": "gemini-api-key"}},
                "general": {"disableAutoUpdate": true, "disableUpdateNag": true},
                "telemetry": {"enabled": false},
                "privacy": {"usageStatisticsEnabled": false},
                "mcpServers": {crate::mcp::SERVER_NAME: {"command": self.mcp_bin, "args": []}}
            }),
        )?;
        if !sc.options.gemini_deny.is_empty() {
            let policies = config_dir.join("policies");
            std::fs::create_dir_all(&policies)
                .map_err(|e| Error::io("creating the gemini policies dir", e))?;
            let rules: String = sc
                .options
                .gemini_deny
                .iter()
                .map(|prefix| {
                    format!(
                        "[[rule]]\ntoolName = \"run_shell_command\"\ncommandPrefix = {prefix:?}\ndecision = \"deny\"\npriority = 900\n\n"
                    )
                })
                .collect();
            std::fs::write(policies.join("deny.toml"), rules)
                .map_err(|e| Error::io("writing the gemini policy", e))?;
        }
        let mut cmd = self.command("gemini", dirs);
        cmd.env("GEMINI_API_KEY", "mock-gemini-key")
            .env("GOOGLE_GEMINI_BASE_URL", self.base_url())
            .env("GEMINI_CLI_TRUST_WORKSPACE", "true")
            .env("GEMINI_TELEMETRY_ENABLED", "false")
            .env("NO_BROWSER", "true");
        Ok(cmd)
    }

    pub(super) fn gemini(&self, sc: &Scenario, dirs: &RunDirs) -> Result<Raw> {
        let config_dir = dirs.home.join(".gemini");
        let cmd = self.gemini_command(sc, dirs)?;
        let args: Vec<String> = vec![
            "-p".into(),
            sc.full_prompt(),
            "--output-format".into(),
            "stream-json".into(),
            "--model".into(),
            MODEL.into(),
            "--yolo".into(),
        ];
        let mut raw = self.one_shot(
            sc,
            dirs,
            cmd,
            &OneShot {
                provider: "gemini-cli",
                program: "gemini",
                args,
                trigger: "\"tool_use\"",
                shown_suffix: " </dev/null",
            },
        )?;
        // Session files: tmp/<project>/chats/session-….jsonl (subagents' in a folder
        // named after the parent session).
        let sessions = files_under(&config_dir.join("tmp"), |path| {
            has_extension(path, "jsonl") && path.components().any(|c| c.as_os_str() == "chats")
        });
        let lines: Vec<String> = sessions.iter().flat_map(|path| lines_of(path)).collect();
        if !lines.is_empty() {
            raw.extras.push(("gemini-cli-session".to_owned(), lines));
        }
        Ok(raw)
    }
}
