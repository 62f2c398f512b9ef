//! Factory Droid driver: `droid exec … --output-format stream-json`, plus the session
//! files it writes under `~/.factory/sessions/<cwd>/`.
//!
//! `@factory/cli` is a launcher; the CLI is the binary of its platform package
//! (`@factory/cli-linux-x64`), run directly. It talks to the mock model as a BYOK custom
//! model (`customModels` in `~/.factory/settings.json`: provider `anthropic`, base URL
//! the mock's `/agents/droid`, so its requests reach `/agents/droid/v1/messages`, where
//! the mock answers with the scenarios' Droid turns), picked with `-m custom:mock-model`.
//! `FACTORY_AIRGAP_ENABLED` runs it without a Factory account (no sign-in, no Factory
//! services, no telemetry or update checks); the mock MCP server is in
//! `~/.factory/mcp.json`. Tools run under `--skip-permissions-unsafe`; the settings'
//! `commandBlocklist` refuses `rm` commands all the same (what `permission-denied`
//! runs; no other scenario runs `rm`).

use std::path::{Path, PathBuf};
use std::process::Command;

use serde_json::{Value, json};

use super::files::{files_under, has_extension, lines_of};
use super::oneshot::{OneShot, sort_init_tools};
use super::{Raw, Recorder, write_json};
use crate::error::{Error, Result};
use crate::run::RunDirs;
use crate::scenario::Scenario;

/// The platform package that holds the binary.
pub(super) const PACKAGE: &str = "@factory/cli-linux-x64";

/// The custom model, as named in the settings.
const MODEL: &str = "mock-model";

/// The custom model, as named on the command line and in JSON-RPC.
pub(super) const MODEL_ID: &str = "custom:mock-model";

/// Appended to the command of a Droid session fixture: which files it holds.
pub(super) const SESSION_SHOWN: &str =
    "  # the session files it wrote: ~/.factory/sessions/<cwd>/<session>.jsonl";

impl Recorder {
    /// The `droid` binary of the installed platform package.
    fn droid_bin(&self) -> PathBuf {
        self.npm_dir
            .join("node_modules")
            .join(PACKAGE)
            .join("bin")
            .join("droid")
    }

    /// A `droid` command with its environment and a scratch `~/.factory` (the custom
    /// model, the mock MCP server), its model requests going to the mock model.
    pub(super) fn droid_command(&self, dirs: &RunDirs) -> Result<Command> {
        let config_dir = dirs.home.join(".factory");
        std::fs::create_dir_all(&config_dir)
            .map_err(|e| Error::io("creating the droid config dir", e))?;
        write_json(
            &config_dir.join("settings.json"),
            &json!({
                "customModels": [{
                    "model": MODEL,
                    "displayName": "Mock",
                    "baseUrl": format!("{}/agents/droid", self.base_url()),
                    "apiKey": "mock-droid-key",
                    "provider": "anthropic",
                    "maxOutputTokens": 4096
                }],
                "commandBlocklist": ["rm"]
            }),
        )?;
        write_json(
            &config_dir.join("mcp.json"),
            &json!({
                "mcpServers": {crate::mcp::SERVER_NAME: {
                    "type": "stdio", "command": self.mcp_bin, "args": []
                }}
            }),
        )?;
        let mut cmd = self.command_at(&self.droid_bin(), dirs);
        cmd.env("FACTORY_AIRGAP_ENABLED", "true")
            .env("FACTORY_DISABLE_KEYRING", "true")
            .env("FACTORY_DROID_AUTO_UPDATE_ENABLED", "false");
        Ok(cmd)
    }

    pub(super) fn droid(&self, sc: &Scenario, dirs: &RunDirs) -> Result<Raw> {
        let cmd = self.droid_command(dirs)?;
        let args: Vec<String> = vec![
            "exec".into(),
            "--output-format".into(),
            "stream-json".into(),
            "-m".into(),
            MODEL_ID.into(),
            "--skip-permissions-unsafe".into(),
            sc.full_prompt(),
        ];
        let mut raw = self.one_shot(
            sc,
            dirs,
            cmd,
            &OneShot {
                provider: "droid",
                program: "droid",
                args,
                trigger: "\"tool_call\"",
                shown_suffix: " </dev/null",
            },
        )?;
        for line in &mut raw.lines {
            sort_init_tools(line);
        }
        let session = raw.lines.iter().find_map(|line| init_session(line));
        let lines = session_lines(&dirs.home.join(".factory/sessions"), session.as_deref());
        if !lines.is_empty() {
            raw.extras.push(("droid-session".to_owned(), lines));
        }
        Ok(raw)
    }
}

/// The session id of the stream's `init` line.
fn init_session(line: &str) -> Option<String> {
    if !line.contains("\"subtype\":\"init\"") {
        return None;
    }
    let value: Value = serde_json::from_str(line).ok()?;
    value.get("session_id")?.as_str().map(str::to_owned)
}

/// The session files' lines: the run's own session first, then any other (a subagent's),
/// in the order of their paths.
fn session_lines(dir: &Path, session: Option<&str>) -> Vec<String> {
    let files = files_under(dir, |path| has_extension(path, "jsonl"));
    let (own, others): (Vec<PathBuf>, Vec<PathBuf>) = files
        .into_iter()
        .partition(|path| session.is_some_and(|id| path.file_stem().is_some_and(|n| n == id)));
    own.iter()
        .chain(&others)
        .flat_map(|path| lines_of(path))
        .collect()
}
