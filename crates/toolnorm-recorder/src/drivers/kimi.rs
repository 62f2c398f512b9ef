//! Kimi Code CLI driver (PyPI `kimi-cli`): `kimi --print --output-format stream-json -c …`.
//!
//! Kimi is a Python program: it is installed from PyPI into a virtual environment of its
//! own (`TOOLNORM_KIMI_VENV`, default `SCRATCH/kimi-cli`, beside the npm folder), whose
//! `bin/kimi` is run, and whose `kimi_cli-<version>.dist-info` says the version. It
//! reaches any OpenAI-compatible API through a provider of its config file
//! (`--config-file`, `type = "openai_legacy"`, `base_url`): it is pointed at the mock
//! model's `/agents/kimi/v1`, so that the mock answers with Kimi's tool names. Print mode
//! approves every call (`--print` implies `--yolo`). The mock MCP server is passed with
//! `--mcp-config`; a scenario's `kimi_block` commands are refused by a `PreToolUse` hook
//! of the config file (1.4x on; hooks block even in print mode). The session the run wrote, `~/.kimi/sessions/<work dir hash>/<session>/`,
//! is kept beside the stream: its `context.jsonl` (`kimi-context/`, a subagent's
//! `subagents/<agent>/context.jsonl` after its parent's) and its `wire.jsonl` (`kimi-wire/`,
//! the parent's only: it carries its subagents' messages as `SubagentEvent`s).

use std::path::{Path, PathBuf};
use std::process::Command;

use serde_json::json;

use super::files::{files_under, lines_of};
use super::oneshot::OneShot;
use super::python_cli::PythonCli;
use super::{Raw, Recorder};
use crate::error::{Error, Result};
use crate::run::RunDirs;
use crate::scenario::Scenario;

/// The PyPI package.
pub(super) const PACKAGE: &str = "kimi-cli";

/// Kimi as installed: its virtual environment, command and version.
pub(super) const CLI: PythonCli = PythonCli {
    package: PACKAGE,
    dist: "kimi_cli",
    venv_variable: "TOOLNORM_KIMI_VENV",
    command: "kimi",
};

/// Appended to the command of a Kimi context fixture: which file it holds.
pub(super) const CONTEXT_SHOWN: &str =
    "  # the session's context it wrote: ~/.kimi/sessions/<work dir hash>/<session>/context.jsonl";

/// Appended to the command of a Kimi wire fixture: which file it holds.
pub(super) const WIRE_SHOWN: &str =
    "  # the session's wire log it wrote: ~/.kimi/sessions/<work dir hash>/<session>/wire.jsonl";

/// The model, as the config file names it.
const MODEL: &str = "mock-kimi-model";

impl Recorder {
    /// The command that runs Kimi against the mock model, and the arguments that point
    /// it there (its config file, written for the scenario, and the mock MCP server);
    /// `block`: with the scenario's blocking hook.
    pub(super) fn kimi_command(
        &self,
        sc: &Scenario,
        dirs: &RunDirs,
        block: bool,
    ) -> Result<(Command, Vec<String>)> {
        let config = dirs.root.join("kimi-config.toml");
        let mut text = config_text(&self.base_url());
        if block && !sc.options.kimi_block.is_empty() {
            let hook = dirs.root.join("block.sh");
            std::fs::write(&hook, block_hook(&sc.options.kimi_block))
                .map_err(|e| Error::io("writing the blocking hook", e))?;
            text.push_str(&format!(
                "\n[[hooks]]\nevent = \"PreToolUse\"\nmatcher = \"Shell\"\ncommand = \"sh {}\"\n",
                hook.display()
            ));
        }
        std::fs::write(&config, text).map_err(|e| Error::io("writing the kimi config", e))?;
        let mcp = json!({"mcpServers": {crate::mcp::SERVER_NAME: {
            "command": self.mcp_bin,
            "args": [],
        }}});
        let cmd = self.command_at(&self.command_of(&CLI), dirs);
        let args = vec![
            "--config-file".into(),
            config.display().to_string(),
            "--mcp-config".into(),
            mcp.to_string(),
        ];
        Ok((cmd, args))
    }

    /// Records one scenario with `kimi --print --output-format stream-json`, and the
    /// session's context file and wire log beside it.
    pub(super) fn kimi(&self, sc: &Scenario, dirs: &RunDirs) -> Result<Raw> {
        let (cmd, mut args) = self.kimi_command(sc, dirs, true)?;
        args.extend([
            "--print".into(),
            "--output-format".into(),
            "stream-json".into(),
            // `-c` (`--command`): the prompt's option in every release (`-p` from 1.x on).
            "-c".into(),
            sc.full_prompt(),
        ]);
        let mut raw = self.one_shot(
            sc,
            dirs,
            cmd,
            &OneShot {
                provider: "kimi",
                program: "kimi",
                args,
                trigger: "\"tool_calls\"",
                shown_suffix: " </dev/null",
            },
        )?;
        let sessions = dirs.home.join(".kimi").join("sessions");
        for (dir, name) in [
            ("kimi-context", "context.jsonl"),
            ("kimi-wire", "wire.jsonl"),
        ] {
            let mut files = session_files(&sessions, name);
            if dir == "kimi-wire" {
                // The parent's wire log carries its subagents' messages (`SubagentEvent`).
                files.retain(|path| {
                    !path
                        .components()
                        .any(|part| part.as_os_str() == "subagents")
                });
            }
            let lines: Vec<String> = files.iter().flat_map(|path| lines_of(path)).collect();
            if !lines.is_empty() {
                raw.extras.push((dir.to_owned(), lines));
            }
        }
        Ok(raw)
    }
}

/// The session files named `name` under `sessions`: the main session's first, then a
/// subagent's (in a folder below it), each in path order.
fn session_files(sessions: &Path, name: &str) -> Vec<PathBuf> {
    let mut files = files_under(sessions, |path| {
        path.file_name().is_some_and(|file| file == name)
    });
    files.sort_by_key(|path| (path.components().count(), path.clone()));
    files
}

/// A `PreToolUse` hook that blocks (exit status 2, no reason: Kimi then says `Blocked by
/// PreToolUse hook`) the `Shell` commands that start with one of `prefixes`; the call comes
/// on its stdin as JSON, `"tool_input": {"command": "…"}`.
fn block_hook(prefixes: &[String]) -> String {
    let mut text = String::from("input=$(cat)\n");
    for prefix in prefixes {
        let pattern = prefix.replace(['\\', '"', '\'', '.', '*', '[', ']'], "");
        text.push_str(&format!(
            "printf '%s' \"$input\" | grep -q '\"command\": *\"{pattern}' && exit 2\n"
        ));
    }
    text.push_str("exit 0\n");
    text
}

/// The config file: one provider and model, the mock's; telemetry off.
fn config_text(base_url: &str) -> String {
    format!(
        "default_model = \"mock\"\n\n[models.mock]\nprovider = \"mock\"\nmodel = \"{MODEL}\"\n\
         max_context_size = 200000\n\n[providers.mock]\ntype = \"openai_legacy\"\n\
         base_url = \"{base_url}/agents/kimi/v1\"\napi_key = \"mock-kimi-key\"\n"
    )
}

#[cfg(test)]
mod tests {
    use super::{block_hook, config_text};

    #[test]
    fn the_hook_blocks_the_prefixes_it_is_given() {
        let text = block_hook(&["rm ".to_owned()]);
        assert!(
            text.contains(r#"grep -q '"command": *"rm ' && exit 2"#),
            "{text}"
        );
        assert!(text.ends_with("exit 0\n"), "{text}");
    }

    #[test]
    fn the_config_points_at_the_mock() {
        let text = config_text("http://127.0.0.1:1");
        assert!(
            text.contains("base_url = \"http://127.0.0.1:1/agents/kimi/v1\""),
            "{text}"
        );
        assert!(text.contains("type = \"openai_legacy\""), "{text}");
    }
}
