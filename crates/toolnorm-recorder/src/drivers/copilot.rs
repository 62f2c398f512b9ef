//! GitHub Copilot CLI driver: `copilot -p … --output-format json`, plus the session event
//! log it writes, `~/.copilot/session-state/<session>/events.jsonl` (`copilot-session/`).
//!
//! Copilot CLI talks to a custom model provider when `COPILOT_PROVIDER_BASE_URL` is set
//! ("BYOK": no GitHub sign-in), here the mock model's OpenAI Chat Completions under
//! `/agents/copilot/v1`, with `COPILOT_MODEL` naming the model. Its built-in GitHub MCP
//! servers are turned off (`--disable-builtin-mcps`), the mock MCP server is added with
//! `--additional-mcp-config`, and every tool, path and URL is allowed (`--allow-all`)
//! but `rm`, which a `--deny-tool` rule refuses (the `permission-denied` scenario; no
//! other scenario removes a file). The printed stream's `session.background_tasks_changed`
//! lines (ephemeral, with empty `data`, a number of them that varies from run to run) are
//! left out of the fixture.

use serde_json::json;

use super::files::{files_under, lines_of};
use super::oneshot::OneShot;
use super::{Raw, Recorder};
use crate::error::Result;
use crate::run::RunDirs;
use crate::scenario::Scenario;

/// The model named to the CLI (a model it knows, so it declares its usual tools).
const MODEL: &str = "gpt-4.1";

/// The commands refused even under `--allow-all`.
const DENIED: &str = "shell(rm)";

/// The agent's path on the mock model.
const AGENT: &str = "copilot";

/// Appended to the command of a session log fixture: which file it holds.
pub(super) const SESSION_SHOWN: &str =
    "  # the session events it wrote: ~/.copilot/session-state/<session>/events.jsonl";

impl Recorder {
    pub(super) fn copilot(&self, sc: &Scenario, dirs: &RunDirs) -> Result<Raw> {
        // The platform's native binary, run directly (`copilot` is a Node loader that
        // runs it as a child), so that the interrupt reaches the CLI itself.
        let native = "copilot-linux-x64";
        let program = if self.bin_dir().join(native).exists() {
            native
        } else {
            "copilot"
        };
        let mut cmd = self.command(program, dirs);
        cmd.env(
            "COPILOT_PROVIDER_BASE_URL",
            format!("{}/agents/{AGENT}/v1", self.base_url()),
        )
        .env("COPILOT_PROVIDER_API_KEY", "mock-copilot-key")
        .env("COPILOT_MODEL", MODEL)
        .env("COPILOT_AUTO_UPDATE", "false")
        .env("NO_COLOR", "1");
        let mcp = json!({"mcpServers": {crate::mcp::SERVER_NAME: {
            "type": "local",
            "command": self.mcp_bin,
            "args": [],
            "tools": ["*"]
        }}});
        let mut args: Vec<String> = vec![
            "-p".into(),
            sc.full_prompt(),
            "--output-format".into(),
            "json".into(),
            "--allow-all".into(),
            "--no-auto-update".into(),
            "--disable-builtin-mcps".into(),
            "--no-custom-instructions".into(),
            "--additional-mcp-config".into(),
            mcp.to_string(),
        ];
        args.push(format!("--deny-tool={DENIED}"));
        let mut raw = self.one_shot(
            sc,
            dirs,
            cmd,
            &OneShot {
                provider: "copilot",
                program: "copilot",
                args,
                trigger: "\"tool.execution_start\"",
                shown_suffix: " </dev/null",
            },
        )?;
        // Ephemeral notices that the set of background tasks changed (empty `data`): how
        // many the CLI prints, and where, varies from run to run.
        raw.lines
            .retain(|line| !line.starts_with(r#"{"type":"session.background_tasks_changed""#));
        for line in &mut raw.lines {
            *line = fixed_counts(line);
        }
        let logs = files_under(&dirs.home.join(".copilot/session-state"), |path| {
            path.file_name().is_some_and(|name| name == "events.jsonl")
        });
        let lines: Vec<String> = logs
            .iter()
            .flat_map(|path| lines_of(path))
            .map(|line| fixed_counts(&line))
            .collect();
        if !lines.is_empty() {
            raw.extras.push(("copilot-session".to_owned(), lines));
        }
        Ok(raw)
    }
}

/// The sizes and token counts of what the CLI sent the model and wrote (they count the
/// scratch paths, so they move with the length of `--scratch`) and the time to the first
/// token (a duration the scrubber's key list does not name) are written as 100, as
/// durations are (a count the CLI writes as a string stays a string).
fn fixed_counts(line: &str) -> String {
    static COUNT: std::sync::LazyLock<Option<regex::Regex>> = std::sync::LazyLock::new(|| {
        regex::Regex::new(
            r#""(timeToFirstTokenMs|requestBodyBytes|requestBodyWireBytes|eventsFileSizeBytes|context_current_tokens|currentTokens|systemTokens|conversationTokens|toolDefinitionsTokens|resultLength|resultForLlmLength|result_token_count|prompt_length|response_length|mcp_result_content_bytes)":("?)[0-9]+(\.[0-9]+)?("?)"#,
        )
        .ok()
    });
    match COUNT.as_ref() {
        Some(re) => re.replace_all(line, r#""$1":${2}100${4}"#).into_owned(),
        None => line.to_owned(),
    }
}

#[cfg(test)]
mod tests {
    use super::fixed_counts;

    #[test]
    fn counts_that_move_with_the_scratch_path_are_fixed() {
        assert_eq!(
            fixed_counts(
                r#"{"requestBodyBytes":50149,"context_current_tokens":10873.0,"timeToFirstTokenMs":80.5,"prompt_length":"41","x":7}"#
            ),
            r#"{"requestBodyBytes":100,"context_current_tokens":100,"timeToFirstTokenMs":100,"prompt_length":"100","x":7}"#
        );
    }
}
