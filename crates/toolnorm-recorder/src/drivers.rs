//! Drivers: run each real CLI against the mock model and capture its stream.

use std::collections::BTreeMap;
use std::path::{Path, PathBuf};
use std::process::Command;
use std::time::Duration;

use serde_json::{Value, json};

use crate::error::{Error, Result};
use crate::normalize::{Normalizer, Substitutions};
use crate::provenance::{Cli, Entry};
use crate::providers::package_of;
use crate::run::{self, RunDirs};
use crate::scenario::Scenario;

/// The loopback port used as an HTTP(S) proxy that refuses every connection,
/// so that update checks and telemetry fail at once.
pub const DEAD_PROXY: &str = "http://127.0.0.1:9";

/// Port shown in fixtures instead of the mock model's real port.
pub const SHOWN_PORT: u16 = 4010;

/// Settings shared by every recording.
#[derive(Debug, Clone)]
pub struct Recorder {
    /// Repository root (holds `fixtures/`).
    pub root: PathBuf,
    /// Scratch directory outside the repository.
    pub scratch: PathBuf,
    /// Directory holding `node_modules/` with the CLIs.
    pub npm_dir: PathBuf,
    /// Path of the `toolnorm-mock-mcp` binary.
    pub mcp_bin: PathBuf,
    /// Port of the running mock model.
    pub port: u16,
    /// Per-recording time limit.
    pub timeout: Duration,
}

/// A raw capture before normalization.
#[derive(Debug, Default)]
pub struct Raw {
    /// Lines of the main stream.
    pub lines: Vec<String>,
    /// The command line as shown in provenance.
    pub command: String,
    /// Extra streams: (provider directory, lines), e.g. session transcripts.
    pub extras: Vec<(String, Vec<String>)>,
}

impl Recorder {
    /// The mock model's base URL.
    pub fn base_url(&self) -> String {
        format!("http://127.0.0.1:{}", self.port)
    }

    fn bin_dir(&self) -> PathBuf {
        self.npm_dir.join("node_modules").join(".bin")
    }

    fn rg_dir(&self) -> PathBuf {
        self.npm_dir.join(
            "node_modules/@openai/codex-linux-x64/vendor/x86_64-unknown-linux-musl/codex-path",
        )
    }

    /// The installed version of a CLI package.
    pub fn cli_version(&self, package: &str) -> Result<String> {
        let p = self
            .npm_dir
            .join("node_modules")
            .join(package)
            .join("package.json");
        let text = std::fs::read_to_string(&p).map_err(|e| {
            Error::io(
                format!("reading {} (is the CLI installed?)", p.display()),
                e,
            )
        })?;
        let v: Value =
            serde_json::from_str(&text).map_err(|e| Error::json(p.display().to_string(), e))?;
        v.get("version")
            .and_then(Value::as_str)
            .map(str::to_owned)
            .ok_or_else(|| Error::NotFound(format!("no version in {}", p.display())))
    }

    /// The CLI packages and versions for the provenance header.
    pub fn clis(&self) -> Result<BTreeMap<String, Cli>> {
        let mut out = BTreeMap::new();
        for (name, package, required) in [
            ("claude-code", "@anthropic-ai/claude-code", true),
            ("codex", "@openai/codex", true),
            ("opencode", "opencode-ai", true),
            (
                "claude-agent-acp",
                "@agentclientprotocol/claude-agent-acp",
                false,
            ),
        ] {
            let version = match self.cli_version(package) {
                Ok(v) => v,
                Err(_) if !required => continue,
                Err(e) => return Err(e),
            };
            out.insert(
                name.to_owned(),
                Cli {
                    package: package.to_owned(),
                    version,
                },
            );
        }
        Ok(out)
    }

    /// A command with a clean environment: only loopback, a refusing proxy,
    /// the scratch HOME.
    fn command(&self, program: &str, dirs: &RunDirs) -> Command {
        let mut cmd = Command::new(self.bin_dir().join(program));
        let path = format!(
            "{}:{}:/usr/local/bin:/usr/bin:/bin",
            self.bin_dir().display(),
            self.rg_dir().display()
        );
        cmd.env_clear()
            .env("PATH", path)
            .env("HOME", &dirs.home)
            .env("USER", "user")
            .env("LANG", "C.UTF-8")
            .env("TERM", "dumb")
            .env("TZ", "UTC")
            .env("XDG_CONFIG_HOME", dirs.home.join(".config"))
            .env("XDG_DATA_HOME", dirs.home.join(".local/share"))
            .env("XDG_CACHE_HOME", dirs.home.join(".cache"))
            .env("XDG_STATE_HOME", dirs.home.join(".local/state"))
            .env("TMPDIR", dirs.root.join("tmp"))
            .env("HTTP_PROXY", DEAD_PROXY)
            .env("HTTPS_PROXY", DEAD_PROXY)
            .env("http_proxy", DEAD_PROXY)
            .env("https_proxy", DEAD_PROXY)
            .env("ALL_PROXY", DEAD_PROXY)
            .env("NO_PROXY", "127.0.0.1,localhost")
            .env("no_proxy", "127.0.0.1,localhost")
            .current_dir(&dirs.work);
        let _ = std::fs::create_dir_all(dirs.root.join("tmp"));
        cmd
    }

    fn substitutions(&self, dirs: &RunDirs) -> Result<Substitutions> {
        let mut s = Substitutions::default();
        s.add_pattern(r"cc-socks/\d+\.sock", "cc-socks/4242.sock")?;
        // Codex rollout file names and plain calendar dates.
        s.add_pattern(
            r"sessions/\d{4}/\d{2}/\d{2}/rollout-\d{4}-\d{2}-\d{2}T\d{2}-\d{2}-\d{2}-",
            "sessions/2026/01/01/rollout-2026-01-01T00-00-00-",
        )?;
        s.add_pattern(r"\b20\d\d-\d\d-\d\d\b", "2026-01-01")?;
        // Claude Code agent ids and run ids.
        s.add_counted(r"\ba[0-9a-f]{16}\b", "a")?;
        s.add_counted(r"\b[0-9a-z]{9}-[0-9a-f]{8}\b", "run")?;
        s.add(dirs.work.display().to_string(), "/workspace");
        s.add(
            dirs.work
                .display()
                .to_string()
                .replace(['/', '.', '_'], "-"),
            "-workspace",
        );
        s.add(dirs.home.display().to_string(), "/home/user");
        s.add(dirs.root.display().to_string(), "/scratch");
        // OpenCode also shows paths relative to `/` (its global project).
        for (dir, to) in [
            (&dirs.work, "workspace"),
            (&dirs.home, "home/user"),
            (&dirs.root, "scratch"),
        ] {
            let rel = dir.display().to_string();
            s.add(rel.trim_start_matches('/'), to);
        }
        s.add(
            self.mcp_bin.display().to_string(),
            "/opt/toolnorm/toolnorm-mock-mcp",
        );
        s.add(self.npm_dir.display().to_string(), "/opt/cli");
        s.add(
            format!("127.0.0.1:{}", self.port),
            format!("127.0.0.1:{SHOWN_PORT}"),
        );
        s.add(
            format!("localhost:{}", self.port),
            format!("localhost:{SHOWN_PORT}"),
        );
        Ok(s)
    }

    /// Records one scenario with one provider; writes raw and normalized files
    /// and returns the provenance entries.
    pub fn record(&self, provider: &str, scenario: &Scenario) -> Result<Vec<Entry>> {
        let dirs = RunDirs::fresh(&self.scratch, provider, &scenario.name)?;
        let raw = match provider {
            "claude-code" => self.claude(scenario, &dirs)?,
            "codex-exec" => self.codex_exec(scenario, &dirs)?,
            "codex-app-server" => crate::appserver::record(self, scenario, &dirs)?,
            "opencode-run" => self.opencode_run(scenario, &dirs)?,
            "opencode-serve" => crate::serve::record(self, scenario, &dirs)?,
            "claude-code-acp" => {
                let mut cmd = self.claude_command(scenario, &dirs)?;
                cmd.env("CLAUDE_CODE_EXECUTABLE", self.bin_dir().join("claude"));
                let program = self.bin_dir().join("claude-agent-acp");
                let mut acp = Command::new(program);
                acp.current_dir(&dirs.work).env_clear();
                for (k, v) in cmd.get_envs() {
                    if let Some(v) = v {
                        acp.env(k, v);
                    }
                }
                crate::acp::record(
                    "claude-code-acp",
                    acp,
                    "claude-agent-acp  # CLAUDE_CODE_EXECUTABLE=claude",
                    scenario,
                    &dirs,
                    self.timeout,
                    Some(&self.mcp_bin),
                )?
            }
            "opencode-acp" => {
                let mut cmd = self.opencode_command(scenario, &dirs)?;
                cmd.arg("acp");
                crate::acp::record(
                    "opencode-acp",
                    cmd,
                    "opencode acp",
                    scenario,
                    &dirs,
                    self.timeout,
                    None,
                )?
            }
            other => return Err(Error::NotFound(format!("unknown provider {other}"))),
        };
        if raw.lines.is_empty() {
            return Err(Error::Recording {
                provider: provider.into(),
                scenario: scenario.name.clone(),
                message: "the CLI wrote no events".into(),
            });
        }
        let subs = self.substitutions(&dirs)?;
        let mut entries = Vec::new();
        let mut streams = vec![(provider.to_owned(), raw.lines)];
        streams.extend(raw.extras);
        for (dir, lines) in streams {
            let rel = format!("{dir}/{}.jsonl", scenario.name);
            run::write_lines(&self.scratch.join("raw").join(&rel), &lines)?;
            let lines = if dir == "claude-code-transcript" {
                trim_transcript(lines)
            } else {
                lines
            };
            let mut norm = Normalizer::new(subs.clone())?;
            let (out, _dropped) = norm.normalize_lines(&lines);
            run::write_lines(&self.root.join("fixtures").join(&rel), &out)?;
            let (package, _) = package_of(&dir).unwrap_or(("", ""));
            let command = subs_apply(&subs, &raw.command);
            entries.push(Entry {
                path: rel,
                provider: dir.clone(),
                cli: package.to_owned(),
                version: self.cli_version(package)?,
                scenario: scenario.name.clone(),
                scenario_file: scenario
                    .path
                    .strip_prefix(&self.root)
                    .unwrap_or(&scenario.path)
                    .display()
                    .to_string(),
                description: scenario.description.clone(),
                command,
                lines: out.len(),
            });
        }
        Ok(entries)
    }

    // ------------------------------------------------------------ Claude Code

    /// A `claude` command with its environment and a scratch config dir.
    pub fn claude_command(&self, sc: &Scenario, dirs: &RunDirs) -> Result<Command> {
        let config_dir = dirs.home.join(".claude");
        std::fs::create_dir_all(&config_dir)
            .map_err(|e| Error::io("creating claude config dir", e))?;
        write_json(
            &config_dir.join("settings.json"),
            &json!({"skipWebFetchPreflight": true, "autoUpdates": false}),
        )?;
        let mut cmd = self.command("claude", dirs);
        cmd.env("ANTHROPIC_BASE_URL", self.base_url())
            .env("ANTHROPIC_API_KEY", "sk-ant-mock")
            .env("ANTHROPIC_MODEL", "claude-sonnet-4-5")
            .env("CLAUDE_CONFIG_DIR", &config_dir)
            .env("DISABLE_TELEMETRY", "1")
            .env("CLAUDE_CODE_DISABLE_NONESSENTIAL_TRAFFIC", "1")
            .env("DISABLE_AUTOUPDATER", "1")
            .env("DISABLE_ERROR_REPORTING", "1")
            .env("IS_SANDBOX", "1");
        for (k, v) in &sc.options.claude_env {
            cmd.env(k, v);
        }
        Ok(cmd)
    }

    fn claude(&self, sc: &Scenario, dirs: &RunDirs) -> Result<Raw> {
        let config_dir = dirs.home.join(".claude");
        let mcp = dirs.root.join("mcp.json");
        write_json(
            &mcp,
            &json!({"mcpServers": {crate::mcp::SERVER_NAME: {"type": "stdio", "command": self.mcp_bin, "args": []}}}),
        )?;
        let mut args: Vec<String> = vec![
            "-p".into(),
            sc.full_prompt(),
            "--output-format".into(),
            "stream-json".into(),
            "--verbose".into(),
            "--model".into(),
            "claude-sonnet-4-5".into(),
            "--mcp-config".into(),
            mcp.display().to_string(),
            "--strict-mcp-config".into(),
        ];
        if sc.options.partial_messages {
            args.push("--include-partial-messages".into());
        }
        match &sc.options.claude_permission_mode {
            Some(mode) => {
                args.push("--permission-mode".into());
                args.push(mode.clone());
            }
            None => args.push("--dangerously-skip-permissions".into()),
        }
        let mut cmd = self.claude_command(sc, dirs)?;
        cmd.args(&args);
        let trigger = |l: &str| l.contains("\"tool_use\"");
        let interrupt = sc
            .options
            .interrupt_after_ms
            .map(|ms| (Duration::from_millis(ms), &trigger as &dyn Fn(&str) -> bool));
        let stdout = self.finished(
            "claude-code",
            sc,
            dirs,
            run::run(&mut cmd, self.timeout, interrupt)?,
        )?;
        let mut extras = Vec::new();
        // Session transcripts: projects/<dir>/<session>.jsonl (+ subagent files).
        let mut transcripts: Vec<PathBuf> = Vec::new();
        collect_jsonl(&config_dir.join("projects"), &mut transcripts);
        transcripts.sort();
        let mut lines = Vec::new();
        for t in &transcripts {
            if let Ok(text) = std::fs::read_to_string(t) {
                lines.extend(text.lines().map(str::to_owned));
            }
        }
        if !lines.is_empty() {
            extras.push(("claude-code-transcript".to_owned(), lines));
        }
        Ok(Raw {
            lines: stdout,
            command: format!("claude {}", shell_join(&args)),
            extras,
        })
    }

    /// Keeps a CLI run's stderr next to the recording and returns its stdout; a run that
    /// had to be killed on timeout is an error, not a shorter fixture.
    fn finished(
        &self,
        provider: &str,
        sc: &Scenario,
        dirs: &RunDirs,
        cap: run::Captured,
    ) -> Result<Vec<String>> {
        run::write_lines(&dirs.root.join("stderr.log"), &cap.stderr)?;
        if cap.timed_out {
            return Err(Error::Recording {
                provider: provider.into(),
                scenario: sc.name.clone(),
                message: format!(
                    "killed after {}s without finishing ({} lines)",
                    self.timeout.as_secs(),
                    cap.stdout.len()
                ),
            });
        }
        Ok(cap.stdout)
    }

    // ------------------------------------------------------------ Codex

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

    fn codex_exec(&self, sc: &Scenario, dirs: &RunDirs) -> Result<Raw> {
        let args: Vec<String> = vec![
            "exec".into(),
            "--json".into(),
            "--skip-git-repo-check".into(),
            "-C".into(),
            dirs.work.display().to_string(),
            sc.full_prompt(),
        ];
        let mut cmd = self.codex_command(sc, dirs)?;
        cmd.args(&args);
        let trigger = |l: &str| l.contains("\"item.started\"");
        let interrupt = sc
            .options
            .interrupt_after_ms
            .map(|ms| (Duration::from_millis(ms), &trigger as &dyn Fn(&str) -> bool));
        let stdout = self.finished(
            "codex-exec",
            sc,
            dirs,
            run::run(&mut cmd, self.timeout, interrupt)?,
        )?;
        Ok(Raw {
            lines: stdout,
            command: format!("codex {} </dev/null", shell_join(&args)),
            extras: Vec::new(),
        })
    }

    // ------------------------------------------------------------ OpenCode

    /// Writes the OpenCode config and returns its path.
    pub fn opencode_config(&self, sc: &Scenario, dirs: &RunDirs) -> Result<PathBuf> {
        let mut permission = serde_json::Map::new();
        for k in [
            "edit",
            "bash",
            "webfetch",
            "websearch",
            "read",
            "external_directory",
            "doom_loop",
        ] {
            permission.insert(k.into(), json!("allow"));
        }
        for (k, v) in &sc.options.opencode_permission {
            permission.insert(k.clone(), crate::scenario::toml_to_json(v));
        }
        let config = json!({
            "$schema": "https://opencode.ai/config.json",
            "model": "mock/mock-model",
            "small_model": "mock/mock-model",
            "autoupdate": false,
            "share": "disabled",
            "provider": {"mock": {
                "npm": "@ai-sdk/openai-compatible",
                "name": "Mock",
                "options": {"baseURL": format!("{}/v1", self.base_url()), "apiKey": "sk-mock"},
                "models": {"mock-model": {"name": "Mock model", "tool_call": true, "limit": {"context": 200000, "output": 8192}}}
            }},
            "permission": permission,
            "mcp": {crate::mcp::SERVER_NAME: {"type": "local", "command": [self.mcp_bin], "enabled": true}}
        });
        let p = dirs.root.join("opencode.json");
        write_json(&p, &config)?;
        Ok(p)
    }

    /// An `opencode` command with its environment.
    pub fn opencode_command(&self, sc: &Scenario, dirs: &RunDirs) -> Result<Command> {
        let config = self.opencode_config(sc, dirs)?;
        let mut cmd = self.command("opencode", dirs);
        cmd.env("OPENCODE_CONFIG", config)
            .env("OPENCODE_DISABLE_MODELS_FETCH", "1")
            .env("OPENCODE_DISABLE_AUTOUPDATE", "1")
            .env("OPENCODE_DISABLE_SHARE", "1")
            .env("OPENCODE_DISABLE_LSP_DOWNLOAD", "1")
            .env("OPENCODE_DISABLE_DEFAULT_PLUGINS", "1")
            .env("OPENCODE_DISABLE_CLAUDE_CODE", "1");
        Ok(cmd)
    }

    fn opencode_run(&self, sc: &Scenario, dirs: &RunDirs) -> Result<Raw> {
        let args: Vec<String> = vec![
            "run".into(),
            "--format".into(),
            "json".into(),
            "--model".into(),
            "mock/mock-model".into(),
            sc.full_prompt(),
        ];
        let mut cmd = self.opencode_command(sc, dirs)?;
        cmd.args(&args);
        let trigger = |l: &str| l.contains("\"step_start\"");
        let interrupt = sc
            .options
            .interrupt_after_ms
            .map(|ms| (Duration::from_millis(ms), &trigger as &dyn Fn(&str) -> bool));
        let stdout = self.finished(
            "opencode-run",
            sc,
            dirs,
            run::run(&mut cmd, self.timeout, interrupt)?,
        )?;
        Ok(Raw {
            lines: stdout,
            command: format!("opencode {}", shell_join(&args)),
            extras: Vec::new(),
        })
    }
}

/// Transcript records that snapshot whole prompts or API request bodies are
/// dropped from the fixture (they are tens of KB each and carry no tool events);
/// the raw file keeps them.
pub const TRANSCRIPT_DROPPED: &[&str] = &[
    "api-request-shape",
    "api-request-blob",
    "attachment:prompt_snapshot",
    "attachment:skill_listing",
    "attachment:agent_listing_delta",
    "attachment:deferred_tools_delta",
];

fn trim_transcript(lines: Vec<String>) -> Vec<String> {
    lines
        .into_iter()
        .filter(|l| {
            let Ok(v) = serde_json::from_str::<Value>(l) else {
                return true;
            };
            let ty = v.get("type").and_then(Value::as_str).unwrap_or("");
            let sub = v
                .get("attachment")
                .and_then(|a| a.get("type"))
                .and_then(Value::as_str)
                .map(|s| format!("{ty}:{s}"))
                .unwrap_or_default();
            !TRANSCRIPT_DROPPED.contains(&ty) && !TRANSCRIPT_DROPPED.contains(&sub.as_str())
        })
        .collect()
}

fn subs_apply(subs: &Substitutions, s: &str) -> String {
    let mut n = match Normalizer::new(subs.clone()) {
        Ok(n) => n,
        Err(_) => return s.to_owned(),
    };
    n.string(s)
}

/// Writes pretty JSON to a file.
pub fn write_json(path: &Path, v: &Value) -> Result<()> {
    let text = serde_json::to_string_pretty(v).map_err(|e| Error::json("encoding", e))?;
    std::fs::write(path, text).map_err(|e| Error::io(format!("writing {}", path.display()), e))
}

fn collect_jsonl(dir: &Path, out: &mut Vec<PathBuf>) {
    let Ok(entries) = std::fs::read_dir(dir) else {
        return;
    };
    for e in entries.flatten() {
        let p = e.path();
        if p.is_dir() {
            collect_jsonl(&p, out);
        } else if p.extension().is_some_and(|x| x == "jsonl") {
            out.push(p);
        }
    }
}

/// Quotes arguments for display.
pub fn shell_join(args: &[String]) -> String {
    args.iter()
        .map(|a| {
            if !a.is_empty()
                && a.chars()
                    .all(|c| c.is_ascii_alphanumeric() || "-_./=:@".contains(c))
            {
                a.clone()
            } else {
                format!("'{}'", a.replace('\'', "'\\''"))
            }
        })
        .collect::<Vec<_>>()
        .join(" ")
}
