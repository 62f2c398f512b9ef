//! Mistral Vibe driver (PyPI `mistral-vibe`): `vibe --output streaming -p …`.
//!
//! Vibe is a Python package whose `vibe` command runs a Rust client it ships
//! (`vibe/_bin/vibe-rs`), which starts the package's `vibe-app-server` and its local
//! harness. It is installed from PyPI into a virtual environment of its own
//! (`TOOLNORM_VIBE_VENV`, default `SCRATCH/mistral-vibe`, beside the npm folder), whose
//! `bin/vibe` is run, and whose `mistral_vibe-<version>.dist-info` says the version. Its
//! config file (`~/.vibe/config.toml`) names one provider, `api_style = "openai"` with
//! `api_base` at the mock model's `/agents/vibe/v1` (so that the mock answers with Vibe's
//! tool names), one model, the mock MCP server, and telemetry and update checks off.
//! `--trust` trusts the working directory and `--auto-approve` runs every call. The
//! session journal the run wrote, `~/.vibe/logs/session/unified/<session>/journal/<n>.jsonl`,
//! is kept beside the stream (`vibe-journal/`).

use std::path::{Path, PathBuf};

use super::files::{files_under, has_extension, lines_of};
use super::oneshot::OneShot;
use super::python_cli::PythonCli;
use super::{Raw, Recorder};
use crate::error::{Error, Result};
use crate::run::RunDirs;
use crate::scenario::Scenario;

/// The PyPI package.
pub(super) const PACKAGE: &str = "mistral-vibe";

/// Vibe as installed: its virtual environment, command and version.
pub(super) const CLI: PythonCli = PythonCli {
    package: PACKAGE,
    dist: "mistral_vibe",
    venv_variable: "TOOLNORM_VIBE_VENV",
    command: "vibe",
};

/// Appended to the command of a Vibe journal fixture: which files it holds.
pub(super) const JOURNAL_SHOWN: &str =
    "  # the session journal it wrote: ~/.vibe/logs/session/unified/<session>/journal/<n>.jsonl";

/// The model, as the config file names it.
const MODEL: &str = "mock-vibe-model";

impl Recorder {
    /// Records one scenario with `vibe --output streaming -p`, and the session journal
    /// beside it.
    pub(super) fn vibe(&self, sc: &Scenario, dirs: &RunDirs) -> Result<Raw> {
        let home = dirs.home.join(".vibe");
        std::fs::create_dir_all(&home)
            .map_err(|e| Error::io("creating the Vibe home folder", e))?;
        std::fs::write(
            home.join("config.toml"),
            config_text(&self.base_url(), &self.mcp_bin),
        )
        .map_err(|e| Error::io("writing the Vibe config", e))?;
        let mut cmd = self.command_at(&self.command_of(&CLI), dirs);
        cmd.env("MOCK_VIBE_API_KEY", "mock-vibe-key")
            .env("NO_COLOR", "1");
        let args = vec![
            "--trust".into(),
            "--auto-approve".into(),
            "--output".into(),
            "streaming".into(),
            "-p".into(),
            sc.full_prompt(),
        ];
        let mut raw = self.one_shot(
            sc,
            dirs,
            cmd,
            &OneShot {
                provider: "vibe",
                program: "vibe",
                args,
                // Streaming prints an entry once it is settled: a call's once it ended,
                // the assistant message that makes it before it runs.
                trigger: "\"role\":\"assistant\"",
                shown_suffix: " </dev/null",
            },
        )?;
        let lines: Vec<String> = journal_files(&home.join("logs/session/unified"))
            .iter()
            .flat_map(|path| lines_of(path))
            .collect();
        if !lines.is_empty() {
            raw.extras.push(("vibe-journal".to_owned(), lines));
        }
        Ok(raw)
    }
}

/// The journal files under `sessions`: by session, then by their number.
fn journal_files(sessions: &Path) -> Vec<PathBuf> {
    let mut files = files_under(sessions, |path| {
        has_extension(path, "jsonl")
            && path
                .parent()
                .is_some_and(|dir| dir.file_name().is_some_and(|name| name == "journal"))
    });
    files.sort_by_key(|path| {
        let number: u64 = path
            .file_stem()
            .and_then(|stem| stem.to_str())
            .and_then(|stem| stem.parse().ok())
            .unwrap_or(u64::MAX);
        (path.parent().map(Path::to_path_buf), number)
    });
    files
}

/// The config file: one provider and model, the mock's; the mock MCP server; telemetry
/// and update checks off.
fn config_text(base_url: &str, mcp_bin: &Path) -> String {
    format!(
        "active_model = \"mock\"\nenable_telemetry = false\nenable_update_checks = false\n\n\
         [[providers]]\nname = \"mock\"\napi_base = \"{base_url}/agents/vibe/v1\"\n\
         api_key_env_var = \"MOCK_VIBE_API_KEY\"\napi_style = \"openai\"\n\n\
         [[models]]\nname = \"{MODEL}\"\nprovider = \"mock\"\nalias = \"mock\"\n\n\
         [[mcp_servers]]\nname = \"{}\"\ntransport = \"stdio\"\ncommand = \"{}\"\n",
        crate::mcp::SERVER_NAME,
        mcp_bin.display()
    )
}

#[cfg(test)]
mod tests {
    use std::path::Path;

    use super::{config_text, journal_files};

    #[test]
    fn the_config_points_at_the_mock() {
        let text = config_text("http://127.0.0.1:1", Path::new("/opt/mcp"));
        assert!(
            text.contains("api_base = \"http://127.0.0.1:1/agents/vibe/v1\""),
            "{text}"
        );
        assert!(text.contains("command = \"/opt/mcp\""), "{text}");
        assert!(text.contains("enable_telemetry = false"), "{text}");
    }

    #[test]
    fn journal_files_come_by_number() -> std::io::Result<()> {
        let root = std::env::temp_dir().join(format!("toolnorm-vibe-{}", std::process::id()));
        let journal = root.join("s1/journal");
        std::fs::create_dir_all(&journal)?;
        for file in ["10.jsonl", "2.jsonl", "1.jsonl"] {
            std::fs::write(journal.join(file), "")?;
        }
        std::fs::write(root.join("s1/meta.jsonl"), "")?;
        let found = journal_files(&root);
        let names: Vec<_> = found
            .iter()
            .filter_map(|path| path.file_name()?.to_str())
            .collect();
        assert_eq!(names, ["1.jsonl", "2.jsonl", "10.jsonl"]);
        std::fs::remove_dir_all(&root)
    }
}
