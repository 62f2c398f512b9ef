//! Claude Code driver: `claude -p … --output-format stream-json --verbose` (or, with
//! `claude_prompt_stdio`, driven over stdin as the SDKs do: `claude_stdio`), plus the
//! session transcripts it writes under `$CLAUDE_CONFIG_DIR/projects/`.

use std::path::{Path, PathBuf};
use std::process::Command;

use serde_json::{Value, json};

use super::files::{files_under, has_extension, lines_of};
use super::oneshot::OneShot;
use super::{Raw, Recorder, write_json};
use crate::error::{Error, Result};
use crate::run::RunDirs;
use crate::scenario::Scenario;

/// Transcript records that snapshot whole prompts or API requests are dropped from the
/// fixture (they are tens of KB each, carry no tool events, and `api-request` holds a
/// hash of the request that differs between runs); the CLI's own files in the run's
/// scratch HOME keep them.
pub const TRANSCRIPT_DROPPED: &[&str] = &[
    "api-request",
    "api-request-shape",
    "api-request-blob",
    "attachment:prompt_snapshot",
    "attachment:skill_listing",
    "attachment:agent_listing_delta",
    "attachment:deferred_tools_delta",
];

impl Recorder {
    /// A `claude` command with its environment and a scratch config dir.
    pub fn claude_command(&self, sc: &Scenario, dirs: &RunDirs) -> Result<Command> {
        let config_dir = dirs.home.join(".claude");
        std::fs::create_dir_all(&config_dir)
            .map_err(|e| Error::io("creating claude config dir", e))?;
        let mut settings = json!({"skipWebFetchPreflight": true, "autoUpdates": false});
        if sc.options.claude_hooks {
            let hook = |event: &str| {
                json!([{"matcher": "*", "hooks": [
                    {"type": "command", "command": format!("echo {event} hook ran")}
                ]}])
            };
            settings["hooks"] = json!({
                "PreToolUse": hook("PreToolUse"),
                "PostToolUse": hook("PostToolUse"),
            });
        }
        write_json(&config_dir.join("settings.json"), &settings)?;
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

    pub(super) fn claude(&self, sc: &Scenario, dirs: &RunDirs) -> Result<Raw> {
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
        if sc.options.claude_hooks {
            args.push("--include-hook-events".into());
        }
        match &sc.options.claude_permission_mode {
            Some(mode) => {
                args.push("--permission-mode".into());
                args.push(mode.clone());
            }
            None => args.push("--dangerously-skip-permissions".into()),
        }
        let cmd = self.claude_command(sc, dirs)?;
        let mut raw = if sc.options.claude_prompt_stdio {
            // The prompt goes in on stdin: `-p` alone.
            args.remove(1);
            super::claude_stdio::record(sc, dirs, cmd, args, self.timeout)?
        } else {
            self.one_shot(
                sc,
                dirs,
                cmd,
                &OneShot {
                    provider: "claude-code",
                    program: "claude",
                    args,
                    trigger: "\"tool_use\"",
                    shown_suffix: "",
                },
            )?
        };
        // Session transcripts: projects/<dir>/<session>.jsonl (+ subagent files).
        let mut transcripts = files_under(&config_dir.join("projects"), |path| {
            has_extension(path, "jsonl")
        });
        // By path as text: a session's transcript before its folder's subagent files
        // (`<session>.jsonl` < `<session>/subagents/…`), so that a subagent's lines come
        // after the result that names it, as a reader of the folder joins them.
        transcripts.sort_by_key(|path| path.display().to_string());
        let files: Vec<Vec<String>> = transcripts.iter().map(|t| lines_of(t)).collect();
        let files = canonical_transcripts(files);
        let lines: Vec<String> = files.iter().flatten().cloned().collect();
        if !lines.is_empty() {
            raw.extras
                .push(("claude-code-transcript".to_owned(), lines));
        }
        raw.session = session_folder(&config_dir.join("projects"), &transcripts, &files);
        Ok(raw)
    }
}

/// Session-state records the CLI rewrites as a session goes (`atis-latch`,
/// `last-prompt`): how many it writes, and where among the conversation records, depends
/// on timing. Only the last of each is kept, at the end of the transcript, so that a
/// re-record gives the same fixture. They carry no tool events.
pub const TRANSCRIPT_LATEST_ONLY: &[&str] = &["atis-latch", "last-prompt"];

/// A session's transcript files (the session's, then its subagents') as fixtures: in
/// each, the records listed in [`TRANSCRIPT_DROPPED`] left out, the conversation records
/// (those with a `uuid`, the ones that carry the tool calls) and every other record in
/// the order the CLI wrote them, and only the last of each [`TRANSCRIPT_LATEST_ONLY`]
/// record, after them; then every record's time set by its place in the files joined
/// (see [`stamp_by_position`]). The joined transcript fixture and the session folder
/// fixture are made of the same lines.
pub(super) fn canonical_transcripts(files: Vec<Vec<String>>) -> Vec<Vec<String>> {
    let mut index = 0;
    files
        .into_iter()
        .map(|lines| {
            canonical_order(lines)
                .into_iter()
                .map(|line| {
                    index += 1;
                    stamp_by_position(line, index - 1)
                })
                .collect()
        })
        .collect()
}

/// One transcript file's records in the order [`canonical_transcripts`] describes.
/// Lines that are not JSON are kept where they are.
fn canonical_order(lines: Vec<String>) -> Vec<String> {
    let mut out = Vec::with_capacity(lines.len());
    let mut latest: Vec<Option<String>> = vec![None; TRANSCRIPT_LATEST_ONLY.len()];
    for line in lines {
        let Ok(v) = serde_json::from_str::<Value>(&line) else {
            out.push(line);
            continue;
        };
        let ty = v.get("type").and_then(Value::as_str).unwrap_or("");
        let sub = v
            .get("attachment")
            .and_then(|a| a.get("type"))
            .and_then(Value::as_str)
            .map(|s| format!("{ty}:{s}"))
            .unwrap_or_default();
        if TRANSCRIPT_DROPPED.contains(&ty) || TRANSCRIPT_DROPPED.contains(&sub.as_str()) {
            continue;
        }
        let state = TRANSCRIPT_LATEST_ONLY.iter().position(|t| *t == ty);
        match state {
            Some(i) if v.get("uuid").is_none() => latest[i] = Some(line),
            _ => out.push(line),
        }
    }
    out.extend(latest.into_iter().flatten());
    out
}

/// Replaces a record's `timestamp` (the time the CLI wrote it) by one that depends only
/// on the record's place in the transcript: two records the CLI wrote in the same
/// millisecond in one run and a millisecond apart in the next would otherwise be
/// numbered differently by the fixture normalizer. The values are increasing, so the
/// order of the records stays their order in time.
fn stamp_by_position(line: String, index: usize) -> String {
    let Ok(v) = serde_json::from_str::<Value>(&line) else {
        return line;
    };
    let Some(raw) = v.get("timestamp").and_then(Value::as_str) else {
        return line;
    };
    let (minutes, seconds) = (index / 60, index % 60);
    let (hours, minutes) = (minutes / 60, minutes % 60);
    let stamp = format!("2020-01-01T{hours:02}:{minutes:02}:{seconds:02}.000Z");
    line.replace(
        &format!("\"timestamp\":\"{raw}\""),
        &format!("\"timestamp\":\"{stamp}\""),
    )
}

/// The session folder, when subagents wrote transcripts of their own beside the
/// session's (`<session>.jsonl` and `<session>/subagents/agent-<id>.jsonl`, with an
/// `agent-<id>.meta.json` each): every file by its path in the project directory, the
/// transcripts in the order of `transcripts` (the joined transcript's), then the rest.
fn session_folder(
    projects: &Path,
    transcripts: &[PathBuf],
    canonical: &[Vec<String>],
) -> Vec<(String, Vec<String>)> {
    let in_project = |path: &Path| -> Option<String> {
        let rel = path.strip_prefix(projects).ok()?;
        let mut parts = rel.components();
        parts.next();
        Some(parts.as_path().display().to_string())
    };
    let subagents = transcripts
        .iter()
        .filter_map(|path| in_project(path))
        .any(|rel| rel.contains("/subagents/"));
    if !subagents {
        return Vec::new();
    }
    let mut files = Vec::new();
    let others = files_under(projects, |_| true);
    let read = |path: &Path| {
        std::fs::read_to_string(path)
            .ok()
            .map(|text| text.lines().map(str::to_owned).collect())
    };
    for (path, lines) in transcripts.iter().zip(canonical) {
        if let Some(rel) = in_project(path) {
            files.push((rel, lines.clone()));
        }
    }
    for path in others
        .iter()
        .filter(|path| path.extension().is_some_and(|x| x == "json") && !transcripts.contains(path))
    {
        if let (Some(rel), Some(lines)) = (in_project(path), read(path)) {
            files.push((rel, lines));
        }
    }
    files
}
