//! Continue CLI driver (`@continuedev/cli`, command `cn`): `cn -p --format json …`, and
//! the session file it saved.
//!
//! `cn` reads its models and MCP servers from a config file (`--config config.yaml`):
//! one `openai` model whose `apiBase` is the mock model's `/agents/continue/v1` (so that
//! the mock answers with Continue's tool names, `Bash`, `Read`, `Write`, `Edit`,
//! `Checklist`, and MCP tools by their own names), and the mock MCP server. `--auto`
//! allows every tool; `permission-denied` (scenario option `continue_exclude`) runs
//! without it and with `--exclude <tool>`, and the headless mode refuses the model's call
//! of that tool (`canceled`, `Command blocked by security policy`). `-p --format json`
//! prints the final answer only (`--format` takes `json` alone): the tool calls are in
//! the session it saved when the run ended, `~/.continue/sessions/<session>.json`, one
//! indented document, which is the recording (the same JSON text on one line, as
//! `opencode export`'s). The session index beside it, `sessions.json`, is left out.

use super::export::one_line;
use super::files::files_under;
use super::oneshot::OneShot;
use super::{Raw, Recorder};
use crate::error::{Error, Result};
use crate::run::RunDirs;
use crate::scenario::Scenario;

/// The provider directory of the recording.
const PROVIDER: &str = "continue-session";

/// Appended to the command of a session fixture: which file it holds.
pub(super) const SESSION_SHOWN: &str =
    "  # the session file it wrote: ~/.continue/sessions/<session>.json";

/// The model, as the config file names it.
const MODEL: &str = "mock-model";

/// The config file, in the working directory's parent (not among the files the
/// scenario's tools see).
const CONFIG: &str = "config.yaml";

impl Recorder {
    /// Records one scenario with `cn -p --format json`; the recording is the session
    /// file the run saved.
    pub(super) fn continue_cli(&self, sc: &Scenario, dirs: &RunDirs) -> Result<Raw> {
        let config = dirs.root.join(CONFIG);
        std::fs::write(&config, config_text(&self.base_url(), &self.mcp_bin))
            .map_err(|e| Error::io("writing the Continue config", e))?;
        let mut cmd = self.command("cn", dirs);
        cmd.env("CONTINUE_CLI_ENABLE_TELEMETRY", "0")
            .env("CONTINUE_METRICS_ENABLED", "0")
            .env("NO_COLOR", "1");
        let mut args: Vec<String> = vec!["--config".into(), config.display().to_string()];
        if sc.options.continue_exclude.is_empty() {
            args.push("--auto".into());
        }
        for tool in &sc.options.continue_exclude {
            args.push("--exclude".into());
            args.push(tool.clone());
        }
        args.extend([
            "--format".into(),
            "json".into(),
            "-p".into(),
            sc.full_prompt(),
        ]);
        let run = self.one_shot(
            sc,
            dirs,
            cmd,
            &OneShot {
                provider: PROVIDER,
                program: "cn",
                args,
                // Nothing is printed before the answer, and SIGINT ends the run before it
                // saves the session: no scenario interrupts it.
                trigger: "\"response\"",
                shown_suffix: " </dev/null",
            },
        )?;
        let sessions = files_under(&dirs.home.join(".continue").join("sessions"), |path| {
            path.extension().is_some_and(|x| x == "json")
                && path.file_name().is_some_and(|name| name != "sessions.json")
        });
        let mut lines = Vec::new();
        for path in sessions {
            let text = std::fs::read_to_string(&path)
                .map_err(|e| Error::io(format!("reading {}", path.display()), e))?;
            lines.push(one_line(&text));
        }
        Ok(Raw {
            lines,
            command: run.command.replace(&config.display().to_string(), CONFIG),
            extras: Vec::new(),
            session: Vec::new(),
        })
    }
}

/// The config file: one model at the mock, and the mock MCP server.
fn config_text(base_url: &str, mcp_bin: &std::path::Path) -> String {
    format!(
        "name: mock\nversion: 1.0.0\nschema: v1\nmodels:\n  - name: {MODEL}\n    provider: openai\n    model: {MODEL}\n    apiBase: {base_url}/agents/continue/v1\n    apiKey: mock-continue-key\n    roles:\n      - chat\nmcpServers:\n  - name: {server}\n    command: {mcp}\n    args: []\n",
        server = crate::mcp::SERVER_NAME,
        mcp = mcp_bin.display(),
    )
}
