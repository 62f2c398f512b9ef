//! Grok CLI driver (`@vibe-kit/grok-cli`): `grok -p …`, its headless mode.
//!
//! Grok CLI talks to xAI's OpenAI-compatible Chat Completions API, at the base URL of
//! `GROK_BASE_URL` (or `--base-url`, which it would also save in its user settings): it is
//! pointed at the mock model's `/agents/grok/v1`, so that the mock answers with Grok CLI's
//! tool names, with `GROK_API_KEY` and `GROK_MODEL`. Headless mode approves every
//! operation, so no scenario is refused. The mock MCP server is in the working
//! directory's project settings, `.grok/settings.json` (`mcpServers`), which the CLI
//! connects in the background; the CLI then does not exit by itself once it has printed
//! its messages (the server it started keeps it alive), so it is ended (SIGINT) a moment
//! after. Grok CLI 0.0.34 keeps no chat history on disk: the printed messages are all it
//! writes.

use serde_json::json;

use std::time::Duration;

use super::{Raw, Recorder, shell_join, write_json};
use crate::error::{Error, Result};
use crate::run::{self, RunDirs};
use crate::scenario::Scenario;

/// The model named to the CLI (its default model).
const MODEL: &str = "grok-code-fast-1";

/// The agent's path on the mock model.
const AGENT: &str = "grok";

/// The first line headless mode prints, the prompt: the run is over when it is printed.
const PRINTED: &str = r#"{"role":"user","#;

/// How long after its first line the CLI is ended (SIGINT), the rest of its lines printed
/// (it writes them all at once, synchronously).
const END_AFTER_MS: u64 = 1500;

/// The most model turns a run may take (the CLI's default is 400).
const MAX_TOOL_ROUNDS: &str = "10";

impl Recorder {
    pub(super) fn grok(&self, sc: &Scenario, dirs: &RunDirs) -> Result<Raw> {
        let project = dirs.work.join(".grok");
        std::fs::create_dir_all(&project)
            .map_err(|e| Error::io("creating the Grok CLI project settings dir", e))?;
        write_json(
            &project.join("settings.json"),
            &json!({"mcpServers": {crate::mcp::SERVER_NAME: {
                "name": crate::mcp::SERVER_NAME,
                "transport": {"type": "stdio", "command": self.mcp_bin, "args": []}
            }}}),
        )?;
        let mut cmd = self.command("grok", dirs);
        cmd.env(
            "GROK_BASE_URL",
            format!("{}/agents/{AGENT}/v1", self.base_url()),
        )
        .env("GROK_API_KEY", "mock-grok-key")
        .env("GROK_MODEL", MODEL)
        .env("NO_COLOR", "1");
        let args: Vec<String> = vec![
            "-p".into(),
            sc.full_prompt(),
            "--max-tool-rounds".into(),
            MAX_TOOL_ROUNDS.into(),
        ];
        cmd.args(&args);
        // Headless mode prints every message once the run is over, at once; it then
        // waits on the MCP server it started, so it is ended a moment after it printed.
        let printed = |line: &str| line.contains(PRINTED);
        let cap = run::run(
            &mut cmd,
            self.timeout,
            Some((
                Duration::from_millis(END_AFTER_MS),
                &printed as run::Trigger<'_>,
            )),
        )?;
        run::write_lines(&dirs.root.join("stderr.log"), &cap.stderr)?;
        if cap.timed_out {
            return Err(Error::Recording {
                provider: AGENT.into(),
                scenario: sc.name.clone(),
                message: format!(
                    "killed after {}s without finishing ({} lines)",
                    self.timeout.as_secs(),
                    cap.stdout.len()
                ),
            });
        }
        Ok(Raw {
            lines: cap.stdout,
            command: format!("grok {} </dev/null", shell_join(&args)),
            extras: Vec::new(),
            session: Vec::new(),
        })
    }
}
