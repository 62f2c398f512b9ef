//! ACP (Agent Client Protocol) driver (Claude Code's adapters, `opencode acp`,
//! `codex-acp`, `gemini --acp`, `qwen --acp`): runs an ACP agent over stdio as an ACP
//! client would (`initialize`, `session/new`, `session/prompt`), answers
//! `session/request_permission` (rejecting or cancelling when the scenario says so), and
//! records every line the agent writes, and each answer to its requests, until the
//! prompt's response arrives.

use std::path::Path;
use std::process::Command;
use std::time::Duration;

use serde_json::{Value, json};

use super::jsonrpc::{self, Protocol};
use super::{Raw, Recorder};
use crate::error::Result;
use crate::run::RunDirs;
use crate::scenario::{Answer, Scenario};

/// Picks the permission option: the first `reject*` option when the scenario
/// declines the call, the `cancelled` outcome when it cancels it, else the
/// `allow_once` option when the scenario allows once, or the first `allow*` option.
fn permission_outcome(sc: &Scenario, params: &Value) -> Value {
    let text = params
        .get("toolCall")
        .map(Value::to_string)
        .unwrap_or_default();
    let want = match sc.options.answer(&text) {
        Answer::Cancel => return json!({"outcome": {"outcome": "cancelled"}}),
        Answer::Decline => "reject",
        Answer::Allow if sc.options.approval_once => "allow_once",
        Answer::Allow => "allow",
    };
    let options = params
        .get("options")
        .and_then(Value::as_array)
        .cloned()
        .unwrap_or_default();
    let chosen = options
        .iter()
        .find(|o| {
            o.get("kind")
                .and_then(Value::as_str)
                .is_some_and(|k| k.starts_with(want))
        })
        .or_else(|| options.first())
        .and_then(|o| o.get("optionId"))
        .cloned();
    match chosen {
        Some(id) => json!({"outcome": {"outcome": "selected", "optionId": id}}),
        None => json!({"outcome": {"outcome": "cancelled"}}),
    }
}

impl Recorder {
    /// Records one scenario through `claude-agent-acp`, which drives the
    /// pinned `claude` binary (`CLAUDE_CODE_EXECUTABLE`); the MCP server is
    /// handed over in `session/new`.
    pub(super) fn claude_acp(&self, sc: &Scenario, dirs: &RunDirs) -> Result<Raw> {
        self.claude_acp_with("claude-code-acp", "claude-agent-acp", sc, dirs)
    }

    /// Records one scenario through Zed's older `claude-code-acp`
    /// (`@zed-industries/claude-code-acp`), driving the pinned `claude` binary
    /// the same way.
    pub(super) fn zed_claude_acp(&self, sc: &Scenario, dirs: &RunDirs) -> Result<Raw> {
        self.claude_acp_with("claude-code-zed-acp", "claude-code-acp", sc, dirs)
    }

    /// An ACP adapter of Claude Code (`program`) driving the pinned `claude`.
    fn claude_acp_with(
        &self,
        provider: &str,
        program: &str,
        sc: &Scenario,
        dirs: &RunDirs,
    ) -> Result<Raw> {
        let mut cmd = self.claude_command(sc, dirs)?;
        cmd.env("CLAUDE_CODE_EXECUTABLE", self.bin_dir().join("claude"));
        let shown = format!("{program}  # CLAUDE_CODE_EXECUTABLE=claude");
        let program = self.bin_dir().join(program);
        let mut acp = Command::new(program);
        acp.current_dir(&dirs.work).env_clear();
        for (k, v) in cmd.get_envs() {
            if let Some(v) = v {
                acp.env(k, v);
            }
        }
        record(
            provider,
            acp,
            &shown,
            sc,
            dirs,
            self.timeout,
            Some(&self.mcp_bin),
        )
    }

    /// Records one scenario through `opencode acp` (its MCP server comes from
    /// the OpenCode config).
    pub(super) fn opencode_acp(&self, sc: &Scenario, dirs: &RunDirs) -> Result<Raw> {
        let mut cmd = self.opencode_command(sc, dirs)?;
        cmd.arg("acp");
        record(
            "opencode-acp",
            cmd,
            "opencode acp",
            sc,
            dirs,
            self.timeout,
            None,
        )
    }

    /// Records one scenario through `codex-acp` (`@zed-industries/codex-acp`),
    /// Codex's own ACP adapter: it reads the same `CODEX_HOME/config.toml` as
    /// `codex` (mock model provider, MCP server), so `session/new` hands over
    /// no MCP server.
    pub(super) fn codex_acp(&self, sc: &Scenario, dirs: &RunDirs) -> Result<Raw> {
        let codex = self.codex_command(sc, dirs)?;
        let mut cmd = self.command("codex-acp", dirs);
        for (k, v) in codex.get_envs() {
            if let Some(v) = v {
                cmd.env(k, v);
            }
        }
        record(
            "codex-acp",
            cmd,
            "codex-acp  # CODEX_HOME=/home/user/.codex",
            sc,
            dirs,
            self.timeout,
            None,
        )
    }

    /// Records one scenario through Gemini CLI's ACP mode (`gemini --acp`), configured as
    /// `gemini -p` is (settings, mock MCP server, deny policy) but without `--yolo`: the
    /// calls that need approval ask for it.
    pub(super) fn gemini_acp(&self, sc: &Scenario, dirs: &RunDirs) -> Result<Raw> {
        let mut cmd = self.gemini_command(sc, dirs)?;
        cmd.args(["--acp", "--model", super::gemini::MODEL]);
        record(
            "gemini-cli-acp",
            cmd,
            &format!("gemini --acp --model {}", super::gemini::MODEL),
            sc,
            dirs,
            self.timeout,
            None,
        )
    }

    /// Records one scenario through Qwen Code's ACP mode (`qwen --acp`), pointed at the
    /// mock model as `qwen -p` is, without `--yolo`.
    pub(super) fn qwen_acp(&self, sc: &Scenario, dirs: &RunDirs) -> Result<Raw> {
        let mut cmd = self.qwen_command(dirs)?;
        cmd.arg("--acp").args(self.qwen_model_args());
        let shown = format!("qwen --acp {}", super::shell_join(&self.qwen_model_args()));
        let mut raw = record("qwen-code-acp", cmd, &shown, sc, dirs, self.timeout, None)?;
        raw.lines
            .retain(|line| !line.contains(QWEN_COMMANDS_UPDATE));
        Ok(raw)
    }
}

/// Qwen Code's list of slash commands and skills (half a megabyte: every bundled skill's
/// text), sent when its skills have loaded, before or after the prompt's answer: left out
/// of the fixture, like Claude Code's prompt snapshots. It carries no tool call.
const QWEN_COMMANDS_UPDATE: &str = r#""sessionUpdate":"available_commands_update""#;

/// The ACP client side, from `initialize` to the response to
/// `session/prompt`.
struct Acp<'a> {
    sc: &'a Scenario,
    work: &'a Path,
    /// MCP servers handed over in `session/new` (agents that take them from
    /// their own config get none).
    mcp_servers: Vec<Value>,
    session: Option<String>,
    done: bool,
}

impl Protocol for Acp<'_> {
    const PEER: &'static str = "the ACP agent";
    const JSONRPC: bool = true;
    const UNFINISHED: &'static str = "prompt did not finish";
    const GRACE: Duration = Duration::ZERO;

    fn opening(&mut self) -> Vec<Value> {
        vec![json!({"id": 1, "method": "initialize", "params": {
            "protocolVersion": 1,
            "clientCapabilities": {"fs": {"readTextFile": false, "writeTextFile": false}, "terminal": false},
            "clientInfo": {"name": "toolnorm-record", "version": env!("CARGO_PKG_VERSION")}
        }})]
    }

    fn answer(&self, method: &str, params: &Value) -> Value {
        if method == "session/request_permission" {
            permission_outcome(self.sc, params)
        } else {
            json!({})
        }
    }

    fn response(
        &mut self,
        id: &Value,
        msg: &Value,
        line: &str,
    ) -> std::result::Result<Vec<Value>, String> {
        if id == &json!(1) {
            return Ok(vec![
                json!({"id": 2, "method": "session/new", "params": {"cwd": self.work, "mcpServers": self.mcp_servers}}),
            ]);
        }
        if id == &json!(2) {
            let sid = msg
                .pointer("/result/sessionId")
                .and_then(Value::as_str)
                .ok_or_else(|| format!("session/new failed: {line}"))?
                .to_owned();
            let prompt = json!({"id": 3, "method": "session/prompt", "params": {"sessionId": sid, "prompt": [{"type": "text", "text": self.sc.full_prompt()}]}});
            self.session = Some(sid);
            return Ok(vec![prompt]);
        }
        if id == &json!(3) {
            self.done = true;
        }
        Ok(Vec::new())
    }

    fn notification(&mut self, _method: &str, _msg: &Value) {}

    fn arms_interrupt(&self, method: &str, msg: &Value) -> bool {
        method == "session/update"
            && msg
                .pointer("/params/update/sessionUpdate")
                .and_then(Value::as_str)
                == Some("tool_call_update")
    }

    fn interrupt(&self) -> Option<Value> {
        let sid = self.session.as_ref()?;
        Some(json!({"method": "session/cancel", "params": {"sessionId": sid}}))
    }

    fn done(&self) -> bool {
        self.done
    }
}

/// Records one scenario by driving an ACP agent started by `cmd`.
fn record(
    provider: &str,
    mut cmd: Command,
    display: &str,
    sc: &Scenario,
    dirs: &RunDirs,
    timeout: Duration,
    mcp_bin: Option<&Path>,
) -> Result<Raw> {
    let mut proto = Acp {
        sc,
        work: &dirs.work,
        mcp_servers: mcp_bin
            .map(|p| json!({"name": crate::mcp::SERVER_NAME, "command": p, "args": [], "env": []}))
            .into_iter()
            .collect(),
        session: None,
        done: false,
    };
    let lines = jsonrpc::converse(&mut proto, &mut cmd, provider, sc, dirs, timeout)?;
    Ok(Raw {
        lines,
        command: format!(
            "{display}  # stdio ACP: initialize, session/new {{cwd}}, session/prompt {{sessionId, prompt}}"
        ),
        extras: Vec::new(),
        session: Vec::new(),
    })
}
