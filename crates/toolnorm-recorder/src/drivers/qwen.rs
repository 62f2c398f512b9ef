//! Qwen Code driver: `qwen -p … --output-format stream-json`.
//!
//! Qwen Code (a fork of the Gemini CLI) talks to any OpenAI-compatible API: it is
//! pointed at the mock model's `/qwen/v1` with `--auth-type openai --openai-base-url`
//! (and `OPENAI_BASE_URL`, for older versions),
//! so that the mock answers with Qwen Code's tool names, and finds the mock MCP server
//! in `mcpServers` of `~/.qwen/settings.json`. Its stream-json is Claude Code's shape
//! (`system`/`assistant`/`user`/`result` lines, `tool_use` and `tool_result` blocks).
//! The session file the run wrote, `~/.qwen/projects/<project>/chats/<session>.jsonl`,
//! is kept beside it (`qwen-code-session/`).

use std::process::Command;

use serde_json::json;

use super::files::{files_under, has_extension, lines_of};
use super::oneshot::{OneShot, sort_init_tools};
use super::{Raw, Recorder, write_json};
use crate::error::{Error, Result};
use crate::run::RunDirs;
use crate::scenario::Scenario;

/// The model named on the command line.
const MODEL: &str = "qwen3-coder-plus";

impl Recorder {
    /// A `qwen` command with its environment and a scratch `~/.qwen` (settings with the
    /// mock MCP server), its model requests going to the mock model.
    pub(super) fn qwen_command(&self, dirs: &RunDirs) -> Result<Command> {
        let config_dir = dirs.home.join(".qwen");
        std::fs::create_dir_all(&config_dir)
            .map_err(|e| Error::io("creating the qwen config dir", e))?;
        write_json(
            &config_dir.join("settings.json"),
            &json!({
                "general": {"disableAutoUpdate": true, "disableUpdateNag": true},
                "telemetry": {"enabled": false},
                "privacy": {"usageStatisticsEnabled": false},
                // The todo tool is off unless asked for.
                "tools": {"todoWrite": {"enabled": true}},
                "mcpServers": {crate::mcp::SERVER_NAME: {"command": self.mcp_bin, "args": []}}
            }),
        )?;
        let mut cmd = self.command("qwen", dirs);
        // Before 0.2x, Qwen Code sends its model requests through `HTTPS_PROXY` without
        // honouring `NO_PROXY`, so the sandbox's refusing proxy would stop them.
        for proxy in [
            "HTTP_PROXY",
            "HTTPS_PROXY",
            "http_proxy",
            "https_proxy",
            "ALL_PROXY",
        ] {
            cmd.env_remove(proxy);
        }
        // Older versions read the endpoint from the environment only.
        cmd.env("OPENAI_BASE_URL", format!("{}/qwen/v1", self.base_url()))
            .env("OPENAI_API_KEY", "mock-qwen-key")
            .env("OPENAI_MODEL", MODEL)
            .env("QWEN_CODE_SUPPRESS_YOLO_WARNING", "1")
            .env("NO_BROWSER", "true");
        Ok(cmd)
    }

    /// The arguments that point `qwen` at the mock model.
    pub(super) fn qwen_model_args(&self) -> Vec<String> {
        vec![
            "--auth-type".into(),
            "openai".into(),
            "--openai-base-url".into(),
            format!("{}/qwen/v1", self.base_url()),
            "--openai-api-key".into(),
            "mock-qwen-key".into(),
            "--model".into(),
            MODEL.into(),
        ]
    }

    pub(super) fn qwen(&self, sc: &Scenario, dirs: &RunDirs) -> Result<Raw> {
        let config_dir = dirs.home.join(".qwen");
        let cmd = self.qwen_command(dirs)?;
        let mut args: Vec<String> = vec![
            "-p".into(),
            sc.full_prompt(),
            "--output-format".into(),
            "stream-json".into(),
        ];
        args.extend(self.qwen_model_args());
        args.push("--yolo".into());
        let mut raw = self.one_shot(
            sc,
            dirs,
            cmd,
            &OneShot {
                provider: "qwen-code",
                program: "qwen",
                args,
                trigger: "\"tool_use\"",
                shown_suffix: " </dev/null",
            },
        )?;
        for line in &mut raw.lines {
            sort_init_tools(line);
        }
        // Session files: projects/<project>/chats/<session>.jsonl.
        let sessions = files_under(&config_dir.join("projects"), |path| {
            has_extension(path, "jsonl") && path.components().any(|c| c.as_os_str() == "chats")
        });
        let mut lines: Vec<String> = sessions
            .iter()
            .flat_map(|path| lines_of(path))
            .map(|line| fixed_content_length(&line))
            .collect();
        numbered_prompt_ids(&mut lines);
        if !lines.is_empty() {
            raw.extras.push(("qwen-code-session".to_owned(), lines));
        }
        Ok(raw)
    }
}

/// The `content_length` of a session file's telemetry record counts the characters of
/// the result the model was given, scratch paths and process ids included, so it moves
/// with the length of `--scratch`: it is written as 100, as durations are.
fn fixed_content_length(line: &str) -> String {
    static LENGTH: std::sync::LazyLock<Option<regex::Regex>> =
        std::sync::LazyLock::new(|| regex::Regex::new(r#""content_length":\d+"#).ok());
    match LENGTH.as_ref() {
        Some(re) => re.replace_all(line, r#""content_length":100"#).into_owned(),
        None => line.to_owned(),
    }
}

/// Before 0.2x, the `prompt_id` of a session file's telemetry records is random hex of
/// no fixed length (later versions name the session): each distinct one becomes
/// `q000000000001`, `q000000000002`, … in order of first appearance.
fn numbered_prompt_ids(lines: &mut [String]) {
    static ID: std::sync::LazyLock<Option<regex::Regex>> =
        std::sync::LazyLock::new(|| regex::Regex::new(r#""prompt_id":"([0-9a-f]{6,20})""#).ok());
    let Some(re) = ID.as_ref() else {
        return;
    };
    let mut seen: Vec<String> = Vec::new();
    for line in lines.iter_mut() {
        let replaced = re.replace_all(line, |caps: &regex::Captures<'_>| {
            let id = caps[1].to_owned();
            let n = match seen.iter().position(|known| *known == id) {
                Some(n) => n + 1,
                None => {
                    seen.push(id);
                    seen.len()
                }
            };
            format!("\"prompt_id\":\"q{n:012}\"")
        });
        *line = replaced.into_owned();
    }
}

#[cfg(test)]
mod tests {
    use super::{fixed_content_length, numbered_prompt_ids, sort_init_tools};

    #[test]
    fn random_prompt_ids_are_numbered() {
        let mut lines = vec![
            r#"{"prompt_id":"a2fd9040fe34","x":1}"#.to_owned(),
            r#"{"prompt_id":"8a10b826455e9"}{"prompt_id":"a2fd9040fe34"}"#.to_owned(),
            r#"{"prompt_id":"s-1########0"}"#.to_owned(),
        ];
        numbered_prompt_ids(&mut lines);
        assert_eq!(
            lines,
            [
                r#"{"prompt_id":"q000000000001","x":1}"#,
                r#"{"prompt_id":"q000000000002"}{"prompt_id":"q000000000001"}"#,
                r#"{"prompt_id":"s-1########0"}"#
            ]
        );
    }

    #[test]
    fn the_content_length_of_telemetry_is_fixed() {
        assert_eq!(
            fixed_content_length(r#"{"uiEvent":{"content_length":253,"x":"content_length"}}"#),
            r#"{"uiEvent":{"content_length":100,"x":"content_length"}}"#
        );
    }

    #[test]
    fn the_init_line_lists_its_tools_sorted_and_other_lines_stay() {
        let mut init = r#"{"type":"system","subtype":"init","tools":["write_file","agent","mcp__toolbox__echo"],"model":"m"}"#.to_owned();
        sort_init_tools(&mut init);
        assert_eq!(
            init,
            r#"{"type":"system","subtype":"init","tools":["agent","mcp__toolbox__echo","write_file"],"model":"m"}"#
        );
        let mut other = r#"{"type":"assistant", "tools":["b","a"]}"#.to_owned();
        sort_init_tools(&mut other);
        assert_eq!(other, r#"{"type":"assistant", "tools":["b","a"]}"#);
    }
}
