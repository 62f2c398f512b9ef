//! Drivers: run each real CLI against the mock model and capture its stream.
//!
//! One file per CLI driver (`claude`, `codex`, `appserver`, `opencode`,
//! `serve` with the `export` of the sessions it stored, `opencode_db` for OpenCode's
//! session database, `acp`, `gemini`, `qwen`, `pi`), the runners they share (`oneshot` for a CLI that prints
//! its stream and exits, `jsonrpc` for a conversation over stdio), the clean
//! environment every CLI runs in (`sandbox`) and the substitutions that make a
//! capture stable (`substitutions`).

use std::collections::BTreeMap;
use std::path::{Path, PathBuf};
use std::time::Duration;

use serde_json::Value;

use crate::error::{Error, Result};
use crate::provenance::{Cli, Entry};
use crate::providers::package_of;
use crate::run::{self, RunDirs};
use crate::scenario::Scenario;
use crate::scrub::Normalizer;

mod acp;
mod amp;
mod appserver;
mod claude;
mod claude_stdio;
mod cline;
mod cline_sdk;
mod codex;
mod continue_cli;
mod copilot;
mod droid;
mod droid_rpc;
mod export;
mod files;
mod gemini;
mod grok;
mod jsonrpc;
mod kilo;
mod kimi;
mod kimi_rpc;
mod oneshot;
mod opencode;
pub mod opencode_db;
mod openhands;
mod pi;
mod python_cli;
mod qwen;
mod sandbox;
mod serve;
mod substitutions;
mod vibe;

pub use claude::TRANSCRIPT_DROPPED;
pub use sandbox::DEAD_PROXY;
pub use substitutions::SHOWN_PORT;

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
    /// Write into `fixtures/<provider>@<version>/` (an older CLI beside the pinned one).
    pub versioned: bool,
    /// The CLIs' data folder (`XDG_DATA_HOME`) when the runs share one, instead of each
    /// run's own under its HOME (the OpenCode database recording, [`opencode_db`]).
    pub data_home: Option<PathBuf>,
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
    /// The files of a session folder as the CLI laid them out, when it wrote more than
    /// one (Claude Code's subagent transcripts): (path in the folder, lines), in the
    /// order the joined transcript of `extras` has them.
    pub session: Vec<(String, Vec<String>)>,
}

/// Appended to the command of a Codex rollout fixture: which files it holds.
const ROLLOUT_SHOWN: &str =
    "  # the rollout files it wrote: $CODEX_HOME/sessions/YYYY/MM/DD/rollout-*.jsonl";

/// Appended to the command of a Qwen Code session fixture: which file it holds.
const QWEN_SESSION_SHOWN: &str =
    "  # the session file it wrote: ~/.qwen/projects/<project>/chats/<session>.jsonl";

/// Appended to the command of a Cline task fixture: which file it holds.
const CLINE_TASK_SHOWN: &str =
    "  # the task's messages it wrote: ~/.cline/data/tasks/<id>/ui_messages.json";

/// The stored forms whose ids are the main stream's (the same session, the same
/// calls): normalized with the main stream's UUID placeholders.
const SHARES_UUIDS: &[&str] = &[
    "codex-rollout",
    "qwen-code-session",
    "droid-session",
    "copilot-session",
    "pi-session",
    "kimi-context",
    "kimi-wire",
    "vibe-journal",
    "openhands-events",
];

/// Appended to the command of a Pi session fixture: which file it holds.
const PI_SESSION_SHOWN: &str =
    "  # the session file it wrote: ~/.pi/agent/sessions/--<cwd>--/<timestamp>_<session>.jsonl";

/// The CLIs of the provenance header: (name, npm package).
const CLI_NAMES: &[(&str, &str)] = &[
    ("claude-code", "@anthropic-ai/claude-code"),
    ("codex", "@openai/codex"),
    ("opencode", "opencode-ai"),
    ("kilo", kilo::PACKAGE),
    ("claude-agent-acp", "@agentclientprotocol/claude-agent-acp"),
    ("codex-acp", "@zed-industries/codex-acp"),
    ("zed-claude-code-acp", "@zed-industries/claude-code-acp"),
    ("gemini-cli", "@google/gemini-cli"),
    ("qwen-code", "@qwen-code/qwen-code"),
    ("amp", "@sourcegraph/amp"),
    ("cline", "cline"),
    ("cline-sdk", cline_sdk::PACKAGE),
    ("droid", droid::PACKAGE),
    ("copilot", "@github/copilot"),
    ("pi", "@mariozechner/pi-coding-agent"),
    ("grok-cli", "@vibe-kit/grok-cli"),
    ("kimi", kimi::PACKAGE),
    ("mistral-vibe", vibe::PACKAGE),
    ("continue-cli", "@continuedev/cli"),
    ("openhands", openhands::PACKAGE),
];

impl Recorder {
    /// The mock model's base URL.
    pub fn base_url(&self) -> String {
        format!("http://127.0.0.1:{}", self.port)
    }

    /// The installed version of a CLI package.
    pub fn cli_version(&self, package: &str) -> Result<String> {
        for cli in [&kimi::CLI, &vibe::CLI, &openhands::CLI] {
            if package == cli.package {
                return self.python_cli_version(cli);
            }
        }
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

    /// The provenance header's entries of the CLIs behind `providers` (the provider
    /// directories being recorded), read from their installed packages. Only those CLIs
    /// need to be installed: the other entries of the header stay as they are.
    pub fn clis<'a>(
        &self,
        providers: impl IntoIterator<Item = &'a str>,
    ) -> Result<BTreeMap<String, Cli>> {
        let mut out = BTreeMap::new();
        for provider in providers {
            let Some((package, _)) = package_of(provider) else {
                continue;
            };
            let Some(name) = CLI_NAMES
                .iter()
                .find(|(_, p)| *p == package)
                .map(|(name, _)| *name)
            else {
                continue;
            };
            let version = self.cli_version(package)?;
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

    /// Records one scenario with one provider; writes raw and normalized files
    /// and returns the provenance entries.
    pub fn record(&self, provider: &str, scenario: &Scenario) -> Result<Vec<Entry>> {
        let dirs = RunDirs::fresh(&self.scratch, provider, &scenario.name)?;
        let raw = match provider {
            "claude-code" => self.claude(scenario, &dirs)?,
            "codex-exec" => self.codex_exec(scenario, &dirs)?,
            "codex-app-server" => appserver::record(self, scenario, &dirs)?,
            "opencode-run" => self.opencode_run(scenario, &dirs)?,
            "kilo-run" => self.kilo_run(scenario, &dirs)?,
            "opencode-serve" => serve::record(self, scenario, &dirs)?,
            "claude-code-acp" => self.claude_acp(scenario, &dirs)?,
            "opencode-acp" => self.opencode_acp(scenario, &dirs)?,
            "codex-acp" => self.codex_acp(scenario, &dirs)?,
            "claude-code-zed-acp" => self.zed_claude_acp(scenario, &dirs)?,
            "gemini-cli" => self.gemini(scenario, &dirs)?,
            "gemini-cli-acp" => self.gemini_acp(scenario, &dirs)?,
            "qwen-code-acp" => self.qwen_acp(scenario, &dirs)?,
            "qwen-code" => self.qwen(scenario, &dirs)?,
            "amp" => self.amp(scenario, &dirs)?,
            "cline-json" => self.cline_json(scenario, &dirs)?,
            "cline-sdk" => self.cline_sdk(scenario, &dirs)?,
            "droid" => self.droid(scenario, &dirs)?,
            "droid-rpc" => droid_rpc::record(self, scenario, &dirs)?,
            "copilot" => self.copilot(scenario, &dirs)?,
            "pi" => self.pi(scenario, &dirs)?,
            "grok" => self.grok(scenario, &dirs)?,
            "kimi" => self.kimi(scenario, &dirs)?,
            "kimi-rpc" => kimi_rpc::record(self, scenario, &dirs)?,
            "vibe" => self.vibe(scenario, &dirs)?,
            "continue-session" => self.continue_cli(scenario, &dirs)?,
            "openhands-cli" => self.openhands(scenario, &dirs)?,
            other => return Err(Error::NotFound(format!("unknown provider {other}"))),
        };
        if raw.lines.is_empty() {
            return Err(Error::Recording {
                provider: provider.into(),
                scenario: scenario.name.clone(),
                message: "the CLI wrote no events".into(),
            });
        }
        let subs = self.substitutions(provider, &dirs)?;
        let mut entries = Vec::new();
        let mut streams = vec![(provider.to_owned(), raw.lines)];
        streams.extend(raw.extras);
        // The main stream's normalizer, for the UUIDs of a Codex rollout file.
        let mut main: Option<Normalizer> = None;
        for (dir, lines) in streams {
            let (package, _) = package_of(&dir).unwrap_or(("", ""));
            let version = self.cli_version(package)?;
            let rel = if self.versioned {
                format!("{dir}@{version}/{}.jsonl", scenario.name)
            } else {
                format!("{dir}/{}.jsonl", scenario.name)
            };
            run::write_lines(&self.scratch.join("raw").join(&rel), &lines)?;
            let mut norm = Normalizer::new(subs.clone())?;
            if scenario.options.print_logs {
                norm.keep_text_lines()?;
            }
            if let Some(main) = main
                .as_ref()
                .filter(|_| SHARES_UUIDS.contains(&dir.as_str()))
            {
                norm.share_uuids(main);
            }
            let (out, _dropped) = norm.normalize_lines(&lines);
            if main.is_none() {
                main = Some(norm);
            }
            run::write_lines(&self.root.join("fixtures").join(&rel), &out)?;
            let mut command = substitutions::apply(&subs, &raw.command);
            if dir == "codex-rollout" {
                command.push_str(ROLLOUT_SHOWN);
            }
            if dir == "qwen-code-session" {
                command.push_str(QWEN_SESSION_SHOWN);
            }
            if dir == "cline-task" {
                command.push_str(CLINE_TASK_SHOWN);
            }
            if dir == "cline-sdk-session" {
                command.push_str(cline_sdk::SESSION_SHOWN);
            }
            if dir == "droid-session" {
                command.push_str(droid::SESSION_SHOWN);
            }
            if dir == "pi-session" {
                command.push_str(PI_SESSION_SHOWN);
            }
            if dir == "opencode-export" {
                command.push_str(export::EXPORT_SHOWN);
            }
            if dir == "copilot-session" {
                command.push_str(copilot::SESSION_SHOWN);
            }
            if dir == "kimi-context" {
                command.push_str(kimi::CONTEXT_SHOWN);
            }
            if dir == "kimi-wire" {
                command.push_str(kimi::WIRE_SHOWN);
            }
            if dir == "vibe-journal" {
                command.push_str(vibe::JOURNAL_SHOWN);
            }
            if dir == "continue-session" {
                command.push_str(continue_cli::SESSION_SHOWN);
            }
            if dir == "openhands-events" {
                command.push_str(openhands::EVENTS_SHOWN);
            }
            entries.push(self.entry(scenario, rel, &dir, package, version, command, out.len()));
        }
        if !raw.session.is_empty() {
            let command = substitutions::apply(&subs, &raw.command);
            entries.extend(self.write_session(scenario, &subs, raw.session, &command)?);
        }
        Ok(entries)
    }

    /// Writes a session folder (`claude-code-session/<scenario>/`): its files normalized
    /// together, in the order of the joined transcript, so that their lines are those of
    /// `claude-code-transcript/<scenario>.jsonl` and their names carry the same ids.
    fn write_session(
        &self,
        scenario: &Scenario,
        subs: &crate::scrub::Substitutions,
        files: Vec<(String, Vec<String>)>,
        command: &str,
    ) -> Result<Vec<Entry>> {
        let dir = "claude-code-session";
        let (package, _) = package_of(dir).unwrap_or(("", ""));
        let version = self.cli_version(package)?;
        let base = if self.versioned {
            format!("{dir}@{version}/{}", scenario.name)
        } else {
            format!("{dir}/{}", scenario.name)
        };
        let fixture_dir = self.root.join("fixtures").join(&base);
        if fixture_dir.exists() {
            std::fs::remove_dir_all(&fixture_dir)
                .map_err(|e| Error::io(format!("removing {}", fixture_dir.display()), e))?;
        }
        // The transcripts are already in their canonical order (`claude::canonical_transcripts`).
        // The transcripts together, as the joined one is; the other files after them.
        let (transcripts, others): (Vec<_>, Vec<_>) =
            files.iter().partition(|(name, _)| name.ends_with(".jsonl"));
        let joined: Vec<String> = transcripts
            .iter()
            .flat_map(|(_, lines)| lines.clone())
            .collect();
        let mut norm = Normalizer::new(subs.clone())?;
        let (out, _dropped) = norm.normalize_lines(&joined);
        let mut out = out.into_iter();
        let mut entries = Vec::new();
        for (name, lines) in transcripts.into_iter().chain(others) {
            let normalized: Vec<String> = if name.ends_with(".jsonl") {
                let json = lines
                    .iter()
                    .filter(|line| serde_json::from_str::<Value>(line).is_ok())
                    .count();
                out.by_ref().take(json).collect()
            } else {
                norm.normalize_lines(lines).0
            };
            let rel = format!("{base}/{}", norm.string(name));
            run::write_lines(&self.scratch.join("raw").join(&base).join(name), lines)?;
            run::write_lines(&self.root.join("fixtures").join(&rel), &normalized)?;
            if name.ends_with(".jsonl") {
                let entry = self.entry(
                    scenario,
                    rel,
                    dir,
                    package,
                    version.clone(),
                    command.to_owned(),
                    normalized.len(),
                );
                entries.push(entry);
            }
        }
        Ok(entries)
    }

    /// The provenance entry of one fixture file.
    #[allow(clippy::too_many_arguments)]
    fn entry(
        &self,
        scenario: &Scenario,
        path: String,
        provider: &str,
        package: &str,
        version: String,
        command: String,
        lines: usize,
    ) -> Entry {
        Entry {
            path,
            provider: provider.to_owned(),
            cli: package.to_owned(),
            version,
            scenario: scenario.name.clone(),
            scenario_file: scenario
                .path
                .strip_prefix(&self.root)
                .unwrap_or(&scenario.path)
                .display()
                .to_string(),
            description: scenario.description.clone(),
            command,
            lines,
        }
    }
}

/// Writes pretty JSON to a file.
pub fn write_json(path: &Path, v: &Value) -> Result<()> {
    let text = serde_json::to_string_pretty(v).map_err(|e| Error::json("encoding", e))?;
    std::fs::write(path, text).map_err(|e| Error::io(format!("writing {}", path.display()), e))
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
