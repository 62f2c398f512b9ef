//! Cline CLI driver: `cline -y --json …` (2.x), and the task folder it wrote.
//!
//! The CLI is pointed at the mock model with `cline auth -p openai -b <mock>/agents/cline/v1`
//! (Cline's OpenAI-compatible provider) before the run, and finds the mock MCP server in
//! `~/.cline/data/settings/cline_mcp_settings.json`. Cline 2.x asks its model for tools
//! as XML in the reply's text (`<read_file><path>…</path></read_file>`), so the
//! scenarios' `cline` turns are text. `--json` prints the task's `ClineMessage`s, one a
//! line; the task's `ui_messages.json` (`~/.cline/data/tasks/<id>/`) is kept beside it
//! (`cline-task/`).

use serde_json::json;

use super::files::{files_under, lines_of};
use super::oneshot::OneShot;
use super::{Raw, Recorder, write_json};
use crate::error::{Error, Result};
use crate::run::{self, RunDirs};
use crate::scenario::Scenario;

/// The model named to the CLI.
const MODEL: &str = "mock-model";

impl Recorder {
    pub(super) fn cline_json(&self, sc: &Scenario, dirs: &RunDirs) -> Result<Raw> {
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
        let base = format!("{}/agents/cline/v1", self.base_url());
        let mut auth = self.command("cline", dirs);
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
        let cmd = self.command("cline", dirs);
        let args: Vec<String> = vec![
            "-y".into(),
            "--json".into(),
            "-c".into(),
            dirs.work.display().to_string(),
            sc.full_prompt(),
        ];
        let mut raw = self.one_shot(
            sc,
            dirs,
            cmd,
            &OneShot {
                provider: "cline-json",
                program: "cline",
                args,
                trigger: "\"say\":\"command\"",
                shown_suffix: " </dev/null",
            },
        )?;
        raw.command = format!(
            "cline auth -p openai -k mock-cline-key -m {MODEL} -b {base} && {}",
            raw.command
        );
        let tasks = files_under(&data.join("tasks"), |path| {
            path.file_name()
                .is_some_and(|name| name == "ui_messages.json")
        });
        let lines: Vec<String> = tasks.iter().flat_map(|path| lines_of(path)).collect();
        if !lines.is_empty() {
            raw.extras.push(("cline-task".to_owned(), lines));
        }
        Ok(raw)
    }
}
