//! OpenHands CLI driver (PyPI `openhands`, the CLI on OpenHands' agent SDK):
//! `openhands --headless --json -t …`.
//!
//! The CLI is a Python package, installed from PyPI into a virtual environment of its own
//! (`TOOLNORM_OPENHANDS_VENV`, default `SCRATCH/openhands`, beside the npm folder), whose
//! `bin/openhands` is run, and whose `openhands-<version>.dist-info` says the version.
//! `--override-with-envs` takes the model from `LLM_MODEL`, `LLM_API_KEY` and
//! `LLM_BASE_URL` (the mock model's `/agents/openhands/v1`, so that the mock answers with
//! the SDK's tool names); `--always-approve` runs every call; `~/.openhands/mcp.json`
//! names the mock MCP server. Headless mode prints lines
//! of plain text for people among its events: the recording keeps the JSON lines. The
//! conversation's stored events, `~/.openhands/conversations/<id>/events/event-<n>-<id>.json`
//! (one event a file, without a newline), are kept beside the stream, joined one a line
//! in the order of their names (`openhands-events/`).

use std::path::{Path, PathBuf};

use super::files::{files_under, has_extension};
use super::oneshot::OneShot;
use super::python_cli::PythonCli;
use super::{Raw, Recorder};
use crate::error::{Error, Result};
use crate::run::RunDirs;
use crate::scenario::Scenario;

/// The PyPI package.
pub(super) const PACKAGE: &str = "openhands";

/// OpenHands CLI as installed: its virtual environment, command and version.
pub(super) const CLI: PythonCli = PythonCli {
    package: PACKAGE,
    dist: "openhands",
    venv_variable: "TOOLNORM_OPENHANDS_VENV",
    command: "openhands",
};

/// Appended to the command of a stored-events fixture: which files it holds.
pub(super) const EVENTS_SHOWN: &str =
    "  # the events it stored: ~/.openhands/conversations/<id>/events/event-*.json, one a line";

impl Recorder {
    /// Records one scenario with `openhands --headless --json`, and the stored events
    /// beside it.
    pub(super) fn openhands(&self, sc: &Scenario, dirs: &RunDirs) -> Result<Raw> {
        let home = dirs.home.join(".openhands");
        std::fs::create_dir_all(&home)
            .map_err(|e| Error::io("creating the OpenHands home folder", e))?;
        std::fs::write(home.join("mcp.json"), mcp_config(&self.mcp_bin))
            .map_err(|e| Error::io("writing the OpenHands MCP config", e))?;
        let mut cmd = self.command_at(&self.command_of(&CLI), dirs);
        cmd.env("LLM_MODEL", "openai/mock-model")
            .env("LLM_API_KEY", "mock-openhands-key")
            .env(
                "LLM_BASE_URL",
                format!("{}/agents/openhands/v1", self.base_url()),
            )
            .env("OPENHANDS_SUPPRESS_BANNER", "1")
            .env("NO_COLOR", "1");
        let args = vec![
            "--headless".into(),
            "--json".into(),
            "--override-with-envs".into(),
            "--always-approve".into(),
            "-t".into(),
            sc.full_prompt(),
        ];
        let mut raw = self.one_shot(
            sc,
            dirs,
            cmd,
            &OneShot {
                provider: "openhands-cli",
                program: "openhands",
                args,
                trigger: "\"kind\": \"ActionEvent\"",
                shown_suffix: " </dev/null",
            },
        )?;
        // The lines for people (`Agent is working`, the summary) are not events.
        raw.lines.retain(|line| line.starts_with('{'));
        let events: Vec<String> = event_files(&dirs.home.join(".openhands").join("conversations"))
            .iter()
            .filter_map(|path| std::fs::read_to_string(path).ok())
            .map(|text| text.trim_end().to_owned())
            .filter(|text| !text.is_empty())
            .collect();
        if !events.is_empty() {
            raw.extras.push(("openhands-events".to_owned(), events));
        }
        Ok(raw)
    }
}

/// The MCP config (`~/.openhands/mcp.json`): the mock MCP server, over stdio.
fn mcp_config(mcp_bin: &Path) -> String {
    serde_json::json!({
        "mcpServers": {
            crate::mcp::SERVER_NAME: {"command": mcp_bin.display().to_string(), "args": []}
        }
    })
    .to_string()
}

/// The stored event files under `conversations`: by conversation, then by name (their
/// index, zero-padded).
fn event_files(conversations: &Path) -> Vec<PathBuf> {
    let mut files = files_under(conversations, |path| {
        has_extension(path, "json")
            && path
                .parent()
                .is_some_and(|dir| dir.file_name().is_some_and(|name| name == "events"))
    });
    files.sort();
    files
}

#[cfg(test)]
mod tests {
    use std::path::Path;

    use super::{event_files, mcp_config};

    #[test]
    fn the_mcp_config_names_the_mock_server() {
        let text = mcp_config(Path::new("/opt/mcp"));
        assert_eq!(
            text,
            r#"{"mcpServers":{"toolbox":{"command":"/opt/mcp","args":[]}}}"#
        );
    }

    #[test]
    fn event_files_come_by_conversation_and_index() -> std::io::Result<()> {
        let root = std::env::temp_dir().join(format!("toolnorm-openhands-{}", std::process::id()));
        let events = root.join("c1/events");
        std::fs::create_dir_all(&events)?;
        for file in ["event-00010-b.json", "event-00002-a.json", ".eventlog.lock"] {
            std::fs::write(events.join(file), "")?;
        }
        std::fs::write(root.join("c1/base_state.json"), "")?;
        let found = event_files(&root);
        let names: Vec<_> = found
            .iter()
            .filter_map(|path| path.file_name()?.to_str())
            .collect();
        assert_eq!(names, ["event-00002-a.json", "event-00010-b.json"]);
        std::fs::remove_dir_all(&root)
    }
}
