//! Amp driver: `amp -x … --stream-json`.
//!
//! Amp reaches its model through its own server (`AMP_URL`): the driver points
//! `AMP_URL` at the mock, which answers the server's model proxy
//! (`/api/provider/anthropic/v1/messages`) with the scenarios' Amp turns and its
//! internal calls (`/api/internal?<method>`) with empty answers (`mock/amp.rs`);
//! `AMP_API_KEY` stands for the login. The settings (`~/.config/amp/settings.json`)
//! name the mock MCP server, turn update checks off, and, for `permission-denied`,
//! reject `rm` commands. Amp's stream is Claude Code's shape, with Amp's tools.
//!
//! Releases from May 2026 on run an execute-mode thread on Amp's server (a thread
//! actor reached over a WebSocket with a `wsToken`), which no loopback mock answers:
//! they cannot be recorded offline.

use serde_json::json;

use super::oneshot::{OneShot, sort_init_tools};
use super::{Raw, Recorder, write_json};
use crate::error::{Error, Result};
use crate::run::RunDirs;
use crate::scenario::Scenario;

/// The API key Amp is given (the mock takes any).
const API_KEY: &str = "mock-amp-key";

impl Recorder {
    pub(super) fn amp(&self, sc: &Scenario, dirs: &RunDirs) -> Result<Raw> {
        let config_dir = dirs.home.join(".config").join("amp");
        std::fs::create_dir_all(&config_dir)
            .map_err(|e| Error::io("creating the amp config dir", e))?;
        let refuse = sc.name == "permission-denied";
        let mut settings = json!({
            "amp.updates.mode": "disabled",
            "amp.notifications.enabled": false,
            "amp.mcpServers": {
                crate::mcp::SERVER_NAME: {"command": self.mcp_bin, "args": []}
            },
        });
        if refuse {
            settings["amp.permissions"] = json!([
                {"tool": "Bash", "matches": {"cmd": "*rm *"}, "action": "reject"},
                {"tool": "*", "action": "allow"}
            ]);
        }
        write_json(&config_dir.join("settings.json"), &settings)?;
        let mut cmd = self.command("amp", dirs);
        cmd.env("AMP_URL", self.base_url())
            .env("AMP_API_KEY", API_KEY)
            .env("AMP_SKIP_UPDATE_CHECK", "1");
        let mut args: Vec<String> = vec!["-x".into(), sc.full_prompt(), "--stream-json".into()];
        // The refusal comes from the settings' rule; every other call is allowed.
        if !refuse {
            args.push("--dangerously-allow-all".into());
        }
        let mut raw = self.one_shot(
            sc,
            dirs,
            cmd,
            &OneShot {
                provider: "amp",
                program: "amp",
                args,
                trigger: "\"tool_use\"",
                shown_suffix: " </dev/null",
            },
        )?;
        for line in &mut raw.lines {
            sort_init_tools(line);
        }
        Ok(raw)
    }
}
