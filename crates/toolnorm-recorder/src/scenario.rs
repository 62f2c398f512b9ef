//! Scenario files: the scripted model turns for each wire API.
//!
//! A scenario is a TOML file in `scenarios/`. Its name is the file stem. The
//! prompt sent to the CLI carries the marker `[[scenario:NAME]]`; the mock
//! model finds the marker in the request and answers with the turn whose index
//! is the number of assistant turns already present after the marker.

use std::collections::BTreeMap;
use std::path::{Path, PathBuf};

use serde::Deserialize;

use crate::error::{Error, Result};

/// One scripted scenario.
#[derive(Debug, Clone, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct Scenario {
    /// Scenario name (file stem); filled in by the loader.
    #[serde(skip)]
    pub name: String,
    /// Scenario file path; filled in by the loader.
    #[serde(skip)]
    pub path: PathBuf,
    /// What the scenario shows.
    pub description: String,
    /// The user prompt (the marker is appended by the driver).
    pub prompt: String,
    /// Per-driver options.
    #[serde(default)]
    pub options: Options,
    /// Turns for the Anthropic Messages API (Claude Code).
    #[serde(default)]
    pub anthropic: Vec<Turn>,
    /// Turns for the OpenAI Responses API (Codex).
    #[serde(default)]
    pub responses: Vec<Turn>,
    /// Turns for the OpenAI Chat Completions API (OpenCode).
    #[serde(default)]
    pub chat: Vec<Turn>,
    /// Turns for the Gemini API (Gemini CLI).
    #[serde(default)]
    pub gemini: Vec<Turn>,
    /// Turns for Qwen Code: OpenAI Chat Completions with Qwen Code's tool names.
    #[serde(default)]
    pub qwen: Vec<Turn>,
    /// Turns for an agent with tool names of its own, by agent (`[[agents.pi]]`): the
    /// mock answers requests under `/agents/<agent>/` with them, in whichever API the
    /// request's path names.
    #[serde(default)]
    pub agents: BTreeMap<String, Vec<Turn>>,
    /// Named sub-scripts, selected by a marker `[[scenario:NAME#PART]]`
    /// (used for subagents, whose prompt the parent turn writes).
    #[serde(default)]
    pub parts: BTreeMap<String, Script>,
}

/// A script for one part of a scenario (e.g. a subagent).
#[derive(Debug, Clone, Default, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct Script {
    /// Turns for the Anthropic Messages API.
    #[serde(default)]
    pub anthropic: Vec<Turn>,
    /// Turns for the OpenAI Responses API.
    #[serde(default)]
    pub responses: Vec<Turn>,
    /// Turns for the OpenAI Chat Completions API.
    #[serde(default)]
    pub chat: Vec<Turn>,
    /// Turns for the Gemini API.
    #[serde(default)]
    pub gemini: Vec<Turn>,
    /// Turns for Qwen Code.
    #[serde(default)]
    pub qwen: Vec<Turn>,
    /// Turns for an agent with tool names of its own, by agent.
    #[serde(default)]
    pub agents: BTreeMap<String, Vec<Turn>>,
}

/// Per-driver options of a scenario.
#[derive(Debug, Clone, Default, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct Options {
    /// Drivers that must not record this scenario even though the dialect has turns.
    #[serde(default)]
    pub skip: Vec<String>,
    /// The only drivers that record this scenario (when not empty).
    #[serde(default)]
    pub only: Vec<String>,
    /// OpenCode and Kilo one-shot runs: `--print-logs`, and the logger's lines (on
    /// stderr) kept in the recording among the events, as a capture with `2>&1` has them.
    #[serde(default)]
    pub print_logs: bool,
    /// Claude Code: pass `--include-partial-messages`.
    #[serde(default)]
    pub partial_messages: bool,
    /// Claude Code: `--permission-mode` instead of `--dangerously-skip-permissions`.
    pub claude_permission_mode: Option<String>,
    /// Claude Code: run as the SDKs do, the prompt on stdin (`--input-format stream-json`)
    /// and each permission check asked of the recorder (`--permission-prompt-tool stdio`),
    /// which allows it, or denies the calls `codex_decline` names; the answers are recorded.
    #[serde(default)]
    pub claude_prompt_stdio: bool,
    /// Claude Code: extra environment variables.
    #[serde(default)]
    pub claude_env: BTreeMap<String, String>,
    /// Claude Code: a `PreToolUse` and a `PostToolUse` command hook for every tool in the
    /// scratch settings, and `--include-hook-events`, so that stream-json shows the
    /// hooks' lifecycle (`hook_started`, `hook_response`).
    #[serde(default)]
    pub claude_hooks: bool,
    /// Codex: `approval_policy` (default `never`).
    pub codex_approval_policy: Option<String>,
    /// Codex: `sandbox_mode` (default `danger-full-access`).
    pub codex_sandbox: Option<String>,
    /// Codex: features turned on in `CODEX_HOME/config.toml`'s `[features]` (as
    /// `code_mode`), besides the ones every run has.
    #[serde(default)]
    pub codex_features: Vec<String>,
    /// Codex app-server and ACP: decline approval requests whose text contains one of
    /// these (Codex `decline`, ACP the first `reject*` option).
    #[serde(default)]
    pub codex_decline: Vec<String>,
    /// Codex app-server and ACP: cancel approval requests whose text contains one of
    /// these (Codex `cancel`, which ends the turn; ACP the `cancelled` outcome).
    #[serde(default)]
    pub approval_cancel: Vec<String>,
    /// ACP: allow a call once (the `allow_once` option) instead of with the first
    /// `allow*` option the agent offers.
    #[serde(default)]
    pub approval_once: bool,
    /// OpenCode: permission map merged into the config (default: allow
    /// everything); values are an action or a pattern → action table.
    #[serde(default)]
    pub opencode_permission: BTreeMap<String, toml::Value>,
    /// Gemini CLI: shell command prefixes a user policy denies (`~/.gemini/policies/`),
    /// even under `--yolo`.
    #[serde(default)]
    pub gemini_deny: Vec<String>,
    /// Pi: `bash` command prefixes an extension's `tool_call` handler blocks (Pi asks
    /// no permission of its own).
    #[serde(default)]
    pub pi_block: Vec<String>,
    /// Kimi: `Shell` command prefixes a `PreToolUse` hook of the config file blocks (exit
    /// status 2), even in print mode, which approves every call.
    #[serde(default)]
    pub kimi_block: Vec<String>,
    /// Continue CLI: tools excluded with `--exclude` (run without `--auto`): the headless
    /// mode refuses the model's calls of them.
    #[serde(default)]
    pub continue_exclude: Vec<String>,
    /// Cline 3: run without auto-approval (`--auto-approve false`), so that a tool that
    /// needs approval is refused in a run nobody answers.
    #[serde(default)]
    pub cline_ask: bool,
    /// Interrupt the turn this many milliseconds after the first tool call starts
    /// (drivers that support cancellation).
    pub interrupt_after_ms: Option<u64>,
    /// The mock model answers the first request for each scripted step with an
    /// overloaded API's error (Anthropic Messages: 529 `overloaded_error`), once; the CLI
    /// retries (Claude Code's `system` `api_retry`).
    #[serde(default)]
    pub overloaded_once: bool,
    /// Milliseconds the mock model waits before answering a scripted turn.
    pub delay_ms: Option<u64>,
}

/// How the recorder answers an approval request of the CLI.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Answer {
    /// Let the call run.
    Allow,
    /// Refuse the call (`codex_decline`).
    Decline,
    /// Cancel the request (`approval_cancel`).
    Cancel,
}

impl Options {
    /// The answer to an approval request whose text (its params, or the call it is
    /// about, as JSON) is `text`.
    pub fn answer(&self, text: &str) -> Answer {
        let named = |list: &[String]| list.iter().any(|d| text.contains(d.as_str()));
        if named(&self.approval_cancel) {
            Answer::Cancel
        } else if named(&self.codex_decline) {
            Answer::Decline
        } else {
            Answer::Allow
        }
    }
}

/// One model turn: optional text, then tool calls.
#[derive(Debug, Clone, Default, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct Turn {
    /// Assistant text emitted before the calls.
    pub text: Option<String>,
    /// Tool calls emitted in this turn (in parallel when more than one).
    #[serde(default)]
    pub calls: Vec<Call>,
    /// Size of the streamed argument chunks (default 24 characters).
    pub chunk: Option<usize>,
}

/// One tool call in a model turn.
#[derive(Debug, Clone, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct Call {
    /// Tool name as the CLI declares it.
    pub name: String,
    /// Call type: `function` (default), `custom` (Responses free-form input,
    /// e.g. `apply_patch`), `web_search` (Responses hosted web search).
    #[serde(default = "default_call_type")]
    pub r#type: String,
    /// Responses API: the tool namespace (e.g. `mcp__toolbox`).
    pub namespace: Option<String>,
    /// Arguments (for `custom` calls: a string; for `web_search`: the action).
    #[serde(default = "empty_object")]
    pub input: toml::Value,
}

fn default_call_type() -> String {
    "function".to_owned()
}

fn empty_object() -> toml::Value {
    toml::Value::Table(toml::map::Map::new())
}

/// The four wire APIs the mock model speaks.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Dialect {
    /// Anthropic Messages.
    Anthropic,
    /// OpenAI Responses.
    Responses,
    /// OpenAI Chat Completions.
    Chat,
    /// Gemini API (`generateContent`, `streamGenerateContent`).
    Gemini,
    /// OpenAI Chat Completions under `/qwen/` (Qwen Code, whose tools are named
    /// unlike OpenCode's).
    Qwen,
}

impl Scenario {
    /// The marker appended to the prompt.
    pub fn marker(&self) -> String {
        format!("[[scenario:{}]]", self.name)
    }

    /// The full prompt sent to the CLI.
    pub fn full_prompt(&self) -> String {
        format!("{} {}", self.prompt.trim(), self.marker())
    }

    /// The turns for a dialect and optional part.
    pub fn turns(&self, dialect: Dialect, part: Option<&str>) -> Option<&[Turn]> {
        match part {
            None => Some(match dialect {
                Dialect::Anthropic => &self.anthropic,
                Dialect::Responses => &self.responses,
                Dialect::Chat => &self.chat,
                Dialect::Gemini => &self.gemini,
                Dialect::Qwen => &self.qwen,
            }),
            Some(p) => self.parts.get(p).map(|s| match dialect {
                Dialect::Anthropic => s.anthropic.as_slice(),
                Dialect::Responses => s.responses.as_slice(),
                Dialect::Chat => s.chat.as_slice(),
                Dialect::Gemini => s.gemini.as_slice(),
                Dialect::Qwen => s.qwen.as_slice(),
            }),
        }
    }

    /// The turns of an agent with tool names of its own (`[[agents.<agent>]]`), for the
    /// scenario or one of its parts.
    pub fn agent_turns(&self, agent: &str, part: Option<&str>) -> Option<&[Turn]> {
        let agents = match part {
            None => &self.agents,
            Some(p) => &self.parts.get(p)?.agents,
        };
        agents.get(agent).map(Vec::as_slice)
    }

    /// Whether a driver (by provider directory name) records this scenario.
    pub fn applies_to(&self, provider: &str) -> bool {
        if self.options.skip.iter().any(|s| s == provider)
            || (!self.options.only.is_empty() && !self.options.only.iter().any(|s| s == provider))
        {
            return false;
        }
        // An agent's own turns apply to the provider directories named after it.
        // The longest name wins: `cline-sdk-session` is `cline-sdk`'s, not `cline`'s.
        if let Some(turns) = self
            .agents
            .iter()
            .filter(|(agent, _)| provider.starts_with(agent.as_str()))
            .max_by_key(|(agent, _)| agent.len())
            .map(|(_, turns)| turns)
        {
            return !turns.is_empty();
        }
        let dialect = match provider {
            p if p.starts_with("claude-code") => Dialect::Anthropic,
            p if p.starts_with("codex") => Dialect::Responses,
            p if p.starts_with("opencode") || p.starts_with("kilo") => Dialect::Chat,
            p if p.starts_with("gemini-cli") => Dialect::Gemini,
            p if p.starts_with("qwen-code") => Dialect::Qwen,
            _ => return false,
        };
        self.turns(dialect, None).is_some_and(|t| !t.is_empty())
    }
}

/// Loads one scenario file.
pub fn load(path: &Path) -> Result<Scenario> {
    let text = std::fs::read_to_string(path)
        .map_err(|e| Error::io(format!("reading {}", path.display()), e))?;
    let mut s: Scenario = toml::from_str(&text).map_err(|source| Error::Scenario {
        path: path.to_owned(),
        source,
    })?;
    s.name = path
        .file_stem()
        .map(|n| n.to_string_lossy().into_owned())
        .unwrap_or_default();
    s.path = path.to_owned();
    Ok(s)
}

/// Loads every `*.toml` scenario in a directory, sorted by name.
pub fn load_dir(dir: &Path) -> Result<BTreeMap<String, Scenario>> {
    let mut out = BTreeMap::new();
    let entries =
        std::fs::read_dir(dir).map_err(|e| Error::io(format!("listing {}", dir.display()), e))?;
    for entry in entries {
        let entry = entry.map_err(|e| Error::io(format!("listing {}", dir.display()), e))?;
        let path = entry.path();
        if path.extension().is_some_and(|e| e == "toml") {
            let s = load(&path)?;
            out.insert(s.name.clone(), s);
        }
    }
    Ok(out)
}

/// Converts a TOML value into JSON.
pub fn toml_to_json(v: &toml::Value) -> serde_json::Value {
    use serde_json::Value as J;
    match v {
        toml::Value::String(s) => J::String(s.clone()),
        toml::Value::Integer(i) => J::from(*i),
        toml::Value::Float(f) => serde_json::Number::from_f64(*f).map_or(J::Null, J::Number),
        toml::Value::Boolean(b) => J::Bool(*b),
        toml::Value::Datetime(d) => J::String(d.to_string()),
        toml::Value::Array(a) => J::Array(a.iter().map(toml_to_json).collect()),
        toml::Value::Table(t) => J::Object(
            t.iter()
                .map(|(k, v)| (k.clone(), toml_to_json(v)))
                .collect(),
        ),
    }
}
