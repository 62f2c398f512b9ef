//! Qwen Code driver: `qwen -p … --output-format stream-json`.
//!
//! Qwen Code (a fork of the Gemini CLI) talks to any OpenAI-compatible API: it is
//! pointed at the mock model's `/qwen/v1` with `--auth-type openai --openai-base-url`
//! (and `OPENAI_BASE_URL`, for older versions),
//! so that the mock answers with Qwen Code's tool names, and finds the mock MCP server
//! in `mcpServers` of `~/.qwen/settings.json`. Its stream-json is Claude Code's shape
//! (`system`/`assistant`/`user`/`result` lines, `tool_use` and `tool_result` blocks).

use serde_json::json;

use super::oneshot::OneShot;
use super::{Raw, Recorder, write_json};
use crate::error::{Error, Result};
use crate::run::RunDirs;
use crate::scenario::Scenario;

/// The model named on the command line.
const MODEL: &str = "qwen3-coder-plus";

impl Recorder {
    pub(super) fn qwen(&self, sc: &Scenario, dirs: &RunDirs) -> Result<Raw> {
        let config_dir = dirs.home.join(".qwen");
        std::fs::create_dir_all(&config_dir)
            .map_err(|e| Error::io("creating the qwen config dir", e))?;
        write_json(
            &config_dir.join("settings.json"),
            &json!({
                "general": {"disableAutoUpdate": true, "disableUpdateNag": true},
                "telemetry": {"enabled": false},
                "privacy": {"usageStatisticsEnabled": false},
                // The todo tool is off unless asked for.
                "tools": {"todoWrite": {"enabled": true}},
                "mcpServers": {crate::mcp::SERVER_NAME: {"command": self.mcp_bin, "args": []}}
            }),
        )?;
        let args: Vec<String> = vec![
            "-p".into(),
            sc.full_prompt(),
            "--output-format".into(),
            "stream-json".into(),
            "--auth-type".into(),
            "openai".into(),
            "--openai-base-url".into(),
            format!("{}/qwen/v1", self.base_url()),
            "--openai-api-key".into(),
            "mock-qwen-key".into(),
            "--model".into(),
            MODEL.into(),
            "--yolo".into(),
        ];
        let mut cmd = self.command("qwen", dirs);
        // Before 0.2x, Qwen Code sends its model requests through `HTTPS_PROXY` without
        // honouring `NO_PROXY`, so the sandbox's refusing proxy would stop them.
        for proxy in [
            "HTTP_PROXY",
            "HTTPS_PROXY",
            "http_proxy",
            "https_proxy",
            "ALL_PROXY",
        ] {
            cmd.env_remove(proxy);
        }
        // Older versions read the endpoint from the environment only.
        cmd.env("OPENAI_BASE_URL", format!("{}/qwen/v1", self.base_url()))
            .env("OPENAI_API_KEY", "mock-qwen-key")
            .env("OPENAI_MODEL", MODEL)
            .env("QWEN_CODE_SUPPRESS_YOLO_WARNING", "1")
            .env("NO_BROWSER", "true");
        self.one_shot(
            sc,
            dirs,
            cmd,
            &OneShot {
                provider: "qwen-code",
                program: "qwen",
                args,
                trigger: "\"tool_use\"",
                shown_suffix: " </dev/null",
            },
        )
    }
}
