//! Codex driver: `codex exec --json`, the `CODEX_HOME` config the
//! app-server driver shares, and the rollout files the CLI writes there.

use std::path::PathBuf;
use std::process::Command;

use super::files::{files_under, lines_of};
use super::oneshot::OneShot;
use super::{Raw, Recorder};
use crate::error::{Error, Result};
use crate::run::RunDirs;
use crate::scenario::Scenario;

impl Recorder {
    /// Writes `CODEX_HOME/config.toml` and returns CODEX_HOME.
    pub fn codex_home(&self, sc: &Scenario, dirs: &RunDirs) -> Result<PathBuf> {
        let home = dirs.home.join(".codex");
        std::fs::create_dir_all(&home).map_err(|e| Error::io("creating CODEX_HOME", e))?;
        let approval = sc
            .options
            .codex_approval_policy
            .as_deref()
            .unwrap_or("never");
        let sandbox = sc
            .options
            .codex_sandbox
            .as_deref()
            .unwrap_or("danger-full-access");
        let features: String = sc
            .options
            .codex_features
            .iter()
            .map(|feature| format!("{feature} = true\n"))
            .collect();
        let config = format!(
            r#"model = "gpt-5.5"
model_provider = "mock"
approval_policy = "{approval}"
sandbox_mode = "{sandbox}"
model_reasoning_effort = "low"
check_for_update_on_startup = false

[analytics]
enabled = false

[feedback]
enabled = false

[features]
multi_agent_v2 = true
{features}
[model_providers.mock]
name = "Mock"
base_url = "{base}/v1"
wire_api = "responses"
env_key = "MOCK_API_KEY"
request_max_retries = 0
stream_max_retries = 0
stream_idle_timeout_ms = 60000

[mcp_servers.{server}]
command = "{mcp}"
args = []

[projects."{work}"]
trust_level = "trusted"
"#,
            base = self.base_url(),
            server = crate::mcp::SERVER_NAME,
            mcp = self.mcp_bin.display(),
            work = dirs.work.display(),
        );
        let p = home.join("config.toml");
        std::fs::write(&p, config).map_err(|e| Error::io("writing codex config", e))?;
        Ok(home)
    }

    /// A `codex` command with its environment.
    pub fn codex_command(&self, sc: &Scenario, dirs: &RunDirs) -> Result<Command> {
        let home = self.codex_home(sc, dirs)?;
        let mut cmd = self.command("codex", dirs);
        cmd.env("CODEX_HOME", home)
            .env("MOCK_API_KEY", "sk-mock")
            .env("RUST_LOG", "error");
        Ok(cmd)
    }

    /// The rollout files a run wrote under `CODEX_HOME/sessions/` (a subagent's thread
    /// has a file of its own), in the order of their names (which begin with the time the
    /// thread started), concatenated.
    pub(super) fn codex_rollout(&self, dirs: &RunDirs) -> Vec<String> {
        let mut files = files_under(&dirs.home.join(".codex").join("sessions"), |path| {
            path.file_name()
                .and_then(|name| name.to_str())
                .is_some_and(|name| name.starts_with("rollout-") && name.ends_with(".jsonl"))
        });
        files.sort_by_key(|path| path.file_name().map(ToOwned::to_owned));
        files.iter().flat_map(|file| lines_of(file)).collect()
    }

    pub(super) fn codex_exec(&self, sc: &Scenario, dirs: &RunDirs) -> Result<Raw> {
        let args: Vec<String> = vec![
            "exec".into(),
            "--json".into(),
            "--skip-git-repo-check".into(),
            "-C".into(),
            dirs.work.display().to_string(),
            sc.full_prompt(),
        ];
        let cmd = self.codex_command(sc, dirs)?;
        self.one_shot(
            sc,
            dirs,
            cmd,
            &OneShot {
                provider: "codex-exec",
                program: "codex",
                args,
                trigger: "\"item.started\"",
                shown_suffix: " </dev/null",
            },
        )
    }
}
