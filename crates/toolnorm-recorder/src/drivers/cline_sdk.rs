//! Cline CLI 3.x driver (the CLI built on `@cline/sdk`): `cline --json …`, and the session
//! file it wrote.
//!
//! The 3.x CLI is another program than 2.x (`cline.rs`): it declares its tools to the
//! model (`run_commands`, `read_files`, `editor`, …, MCP tools as `<server>__<tool>`), so
//! the scenarios' `[[agents.cline-sdk]]` turns are tool calls, served under
//! `/agents/cline-sdk/v1`. `--json` prints the SDK's `agent_event` and `hook_event` lines
//! and a `run_result`; the session's messages are kept in
//! `~/.cline/data/sessions/<id>/<id>.messages.json`, one JSON document, written here on one
//! line (`cline-sdk-session/`). The platform package's binary is run directly, so that
//! SIGINT reaches it; the hub daemon it starts in the background is stopped after the run.

use std::path::PathBuf;

use serde_json::{Value, json};

use super::files::files_under;
use super::oneshot::OneShot;
use super::{Raw, Recorder, write_json};
use crate::error::{Error, Result};
use crate::run::{self, RunDirs};
use crate::scenario::Scenario;

/// The platform package that holds the binary.
pub(super) const PACKAGE: &str = "@cline/cli-linux-x64";

/// The model named to the CLI.
const MODEL: &str = "mock-model";

/// Appended to the command of a session fixture: which files it holds.
pub(super) const SESSION_SHOWN: &str =
    "  # the session's messages it wrote: ~/.cline/data/sessions/<id>/<id>.messages.json";

impl Recorder {
    /// The `cline` binary of the installed platform package.
    fn cline_sdk_bin(&self) -> PathBuf {
        self.npm_dir
            .join("node_modules")
            .join(PACKAGE)
            .join("bin")
            .join("cline")
    }

    pub(super) fn cline_sdk(&self, sc: &Scenario, dirs: &RunDirs) -> Result<Raw> {
        let data = dirs.home.join(".cline").join("data");
        let settings = data.join("settings");
        std::fs::create_dir_all(&settings)
            .map_err(|e| Error::io("creating the cline settings dir", e))?;
        write_json(
            &settings.join("cline_mcp_settings.json"),
            &json!({"mcpServers": {crate::mcp::SERVER_NAME: {
                "command": self.mcp_bin, "args": [], "disabled": false,
                "autoApprove": ["echo", "divide"]
            }}}),
        )?;
        let base = format!("{}/agents/cline-sdk/v1", self.base_url());
        let mut auth = self.command_at(&self.cline_sdk_bin(), dirs);
        auth.args([
            "auth",
            "-p",
            "openai",
            "-k",
            "mock-cline-key",
            "-m",
            MODEL,
            "-b",
            &base,
        ]);
        let configured = run::run(&mut auth, self.timeout, None)?;
        run::write_lines(&dirs.root.join("auth.log"), &configured.stderr)?;
        let mut cmd = self.command_at(&self.cline_sdk_bin(), dirs);
        cmd.env("CLINE_NO_AUTO_UPDATE", "1")
            .env("CLINE_DISABLE_CLINE_PASS_NOTICE", "1");
        let mut args: Vec<String> = vec!["--json".into()];
        if sc.options.cline_ask {
            args.extend(["--auto-approve".into(), "false".into()]);
        }
        args.extend([
            "-c".into(),
            dirs.work.display().to_string(),
            sc.full_prompt(),
        ]);
        let recorded = self.one_shot(
            sc,
            dirs,
            cmd,
            &OneShot {
                provider: "cline-sdk",
                program: "cline",
                args,
                trigger: "\"contentType\":\"tool\"",
                shown_suffix: " </dev/null",
            },
        );
        run::stop_processes_naming(&dirs.work);
        let mut raw = recorded?;
        raw.command = format!(
            "cline auth -p openai -k mock-cline-key -m {MODEL} -b {base} && {}",
            raw.command
        );
        let sessions = files_under(&data.join("sessions"), |path| {
            path.to_str()
                .is_some_and(|name| name.ends_with(".messages.json"))
        });
        let mut lines = Vec::new();
        for path in sessions {
            let text = std::fs::read_to_string(&path)
                .map_err(|e| Error::io(format!("reading {}", path.display()), e))?;
            let document: Value = serde_json::from_str(&text)
                .map_err(|e| Error::json(path.display().to_string(), e))?;
            lines.push(document.to_string());
        }
        if !lines.is_empty() {
            raw.extras.push(("cline-sdk-session".to_owned(), lines));
        }
        Ok(raw)
    }
}
