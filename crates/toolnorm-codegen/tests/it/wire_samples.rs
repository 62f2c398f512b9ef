//! The generated `toolnorm-wire` types parse real provider events.
//!
//! Every `.jsonl` line under `tests/samples/<dialect>/` and, when present,
//! under the repository's `fixtures/<provider>/` (or `$TOOLNORM_FIXTURES`)
//! is dispatched to its generated type by its discriminator. Parsing must
//! succeed, and the tool-related part of each event (tool items, tool
//! parts, tool blocks, tool inputs) must survive a round trip through the
//! generated type without losing a field.

use std::path::{Path, PathBuf};

use serde::Serialize;
use serde::de::DeserializeOwned;
use serde_json::Value;
use toolnorm_wire::{
    acp, claude_messages as cm, claude_tools as ct, codex_app_server as cas, codex_exec as cx,
    codex_rollout as cr, gemini_session as gs, gemini_stream as gst, opencode as oc,
    opencode_export as oe,
};

mod amp;
mod copilot;
mod pi;
mod qwen;

/// Result of checking one line.
#[derive(Debug, PartialEq, Eq)]
enum Outcome {
    /// Parsed, and it carried tool data that round-tripped.
    Tool,
    /// Parsed; no tool data in it.
    Other,
    /// Not a message kind the normalizer reads (e.g. Claude `system/init`).
    Skipped,
}

type Check = Result<Outcome, String>;

fn round_trip<T: DeserializeOwned + Serialize>(what: &str, value: &Value) -> Result<Value, String> {
    let typed: T = serde_json::from_value(value.clone()).map_err(|e| format!("{what}: {e}"))?;
    serde_json::to_value(&typed).map_err(|e| format!("{what}: re-serializing: {e}"))
}

fn numbers_equal(a: &serde_json::Number, b: &serde_json::Number) -> bool {
    a == b || a.as_f64() == b.as_f64()
}

/// Every field of `orig` must be in `back` with the same value. Absent and
/// `null` are the same; fields `back` adds (serde defaults) are fine.
fn lossless(orig: &Value, back: &Value, path: &str, errors: &mut Vec<String>) {
    match (orig, back) {
        (Value::Object(a), Value::Object(b)) => {
            for (key, value) in a {
                let here = format!("{path}/{key}");
                match b.get(key) {
                    Some(other) => lossless(value, other, &here, errors),
                    None if is_empty(value) => {}
                    None => errors.push(format!("{here}: dropped {value}")),
                }
            }
        }
        (Value::Array(a), Value::Array(b)) if a.len() == b.len() => {
            for (i, (x, y)) in a.iter().zip(b).enumerate() {
                lossless(x, y, &format!("{path}/{i}"), errors);
            }
        }
        (Value::Number(a), Value::Number(b)) if numbers_equal(a, b) => {}
        (a, b) if a == b => {}
        (a, b) => errors.push(format!("{path}: {a} became {b}")),
    }
}

/// `null`, `[]` and `{}` carry nothing that an absent field does not.
fn is_empty(value: &Value) -> bool {
    match value {
        Value::Null => true,
        Value::Array(a) => a.is_empty(),
        Value::Object(o) => o.is_empty(),
        _ => false,
    }
}

fn require_lossless(what: &str, orig: &Value, back: &Value, pointer: &str) -> Result<(), String> {
    let (Some(a), Some(b)) = (orig.pointer(pointer), back.pointer(pointer)) else {
        return match orig.pointer(pointer) {
            Some(_) => Err(format!("{what}: {pointer} lost entirely")),
            None => Ok(()),
        };
    };
    let mut errors = Vec::new();
    lossless(a, b, pointer, &mut errors);
    if errors.is_empty() {
        Ok(())
    } else {
        Err(format!("{what}: {}", errors.join("; ")))
    }
}

const CLAUDE_TOOL_BLOCKS: &[&str] = &[
    "tool_use",
    "tool_result",
    "server_tool_use",
    "web_search_tool_result",
    "web_fetch_tool_result",
    "mcp_tool_use",
    "mcp_tool_result",
];

/// Claude tool inputs are dispatched by tool name, not through the
/// generated union (whose members overlap).
fn claude_tool_input(name: &str, input: &Value) -> Result<Option<Value>, String> {
    let what = format!("{name} input");
    let back = match name {
        "Bash" => round_trip::<ct::BashInput>(&what, input)?,
        "Read" => round_trip::<ct::FileReadInput>(&what, input)?,
        "Write" => round_trip::<ct::FileWriteInput>(&what, input)?,
        "Edit" => round_trip::<ct::FileEditInput>(&what, input)?,
        "Glob" => round_trip::<ct::GlobInput>(&what, input)?,
        "Grep" => round_trip::<ct::GrepInput>(&what, input)?,
        "Task" | "Agent" => round_trip::<ct::AgentInput>(&what, input)?,
        "TodoWrite" => round_trip::<ct::TodoWriteInput>(&what, input)?,
        "WebSearch" => round_trip::<ct::WebSearchInput>(&what, input)?,
        "WebFetch" => round_trip::<ct::WebFetchInput>(&what, input)?,
        "NotebookEdit" => round_trip::<ct::NotebookEditInput>(&what, input)?,
        "TaskCreate" => round_trip::<ct::TaskCreateInput>(&what, input)?,
        "TaskUpdate" => round_trip::<ct::TaskUpdateInput>(&what, input)?,
        "TaskGet" => round_trip::<ct::TaskGetInput>(&what, input)?,
        "TaskList" => round_trip::<ct::TaskListInput>(&what, input)?,
        "TaskStop" => round_trip::<ct::TaskStopInput>(&what, input)?,
        _ => return Ok(None),
    };
    Ok(Some(back))
}

/// Claude tool outputs (`tool_use_result`), dispatched by the name of the
/// `tool_use` they answer.
fn claude_tool_output(name: &str, output: &Value) -> Result<Option<Value>, String> {
    let what = format!("{name} output");
    let back = match name {
        "Bash" => round_trip::<ct::BashOutput>(&what, output)?,
        "Read" => round_trip::<ct::FileReadOutput>(&what, output)?,
        "Write" => round_trip::<ct::FileWriteOutput>(&what, output)?,
        "Edit" => round_trip::<ct::FileEditOutput>(&what, output)?,
        "Glob" => round_trip::<ct::GlobOutput>(&what, output)?,
        "Grep" => round_trip::<ct::GrepOutput>(&what, output)?,
        "Task" | "Agent" => round_trip::<ct::AgentOutput>(&what, output)?,
        "TodoWrite" => round_trip::<ct::TodoWriteOutput>(&what, output)?,
        "WebSearch" => round_trip::<ct::WebSearchOutput>(&what, output)?,
        "WebFetch" => round_trip::<ct::WebFetchOutput>(&what, output)?,
        _ => return Ok(None),
    };
    Ok(Some(back))
}

thread_local! {
    /// `tool_use` id → tool name, filled from assistant lines so that the
    /// user line carrying the result can be dispatched by name.
    static CLAUDE_TOOL_NAMES: std::cell::RefCell<std::collections::HashMap<String, String>> =
        std::cell::RefCell::default();
}

fn check_claude_tool_use_result(line: &Value) -> Result<(), String> {
    let Some(output) = line.get("tool_use_result").filter(|o| o.is_object()) else {
        return Ok(());
    };
    let Some(blocks) = line.pointer("/message/content").and_then(Value::as_array) else {
        return Ok(());
    };
    for block in blocks.iter().filter(|b| b["type"] == "tool_result") {
        let id = block["tool_use_id"].as_str().unwrap_or_default();
        let name = CLAUDE_TOOL_NAMES.with(|names| names.borrow().get(id).cloned());
        let is_error = block["is_error"].as_bool().unwrap_or(false);
        if let (Some(name), false) = (name, is_error)
            && let Some(back) = claude_tool_output(&name, output)?
        {
            let mut errors = Vec::new();
            lossless(output, &back, "/tool_use_result", &mut errors);
            if !errors.is_empty() {
                return Err(format!("{name} output: {}", errors.join("; ")));
            }
        }
    }
    Ok(())
}

fn check_claude_content(what: &str, orig: &Value, back: &Value) -> Result<bool, String> {
    let mut saw_tool = false;
    let Some(blocks) = orig.pointer("/message/content").and_then(Value::as_array) else {
        return Ok(false);
    };
    for (i, block) in blocks.iter().enumerate() {
        let kind = block
            .get("type")
            .and_then(Value::as_str)
            .unwrap_or_default();
        if !CLAUDE_TOOL_BLOCKS.contains(&kind) {
            continue;
        }
        saw_tool = true;
        require_lossless(what, orig, back, &format!("/message/content/{i}"))?;
        if kind == "tool_use" {
            let name = block
                .get("name")
                .and_then(Value::as_str)
                .unwrap_or_default();
            if let Some(id) = block.get("id").and_then(Value::as_str) {
                CLAUDE_TOOL_NAMES
                    .with(|names| names.borrow_mut().insert(id.to_string(), name.to_string()));
            }
            if let Some(input) = block.get("input")
                && let Some(input_back) = claude_tool_input(name, input)?
            {
                let mut errors = Vec::new();
                lossless(input, &input_back, "/input", &mut errors);
                if !errors.is_empty() {
                    return Err(format!("{what}: {name} input: {}", errors.join("; ")));
                }
            }
        }
    }
    Ok(saw_tool)
}

/// `claude -p --output-format stream-json --verbose` lines (`SDKMessage`).
fn check_claude(line: &Value) -> Check {
    let kind = line.get("type").and_then(Value::as_str).unwrap_or_default();
    let subtype = line
        .get("subtype")
        .and_then(Value::as_str)
        .unwrap_or_default();
    let tool = |t: bool| if t { Outcome::Tool } else { Outcome::Other };
    match (kind, subtype) {
        ("assistant", _) => {
            let back = round_trip::<cm::SdkAssistantMessage>("assistant", line)?;
            check_claude_content("assistant", line, &back).map(tool)
        }
        ("user", _) => {
            let back = round_trip::<cm::SdkUserMessage>("user", line)?;
            let saw = check_claude_content("user", line, &back)?;
            require_lossless("user", line, &back, "/tool_use_result")?;
            check_claude_tool_use_result(line)?;
            Ok(tool(saw || line.get("tool_use_result").is_some()))
        }
        ("stream_event", _) => {
            let back = round_trip::<cm::SdkPartialAssistantMessage>("stream_event", line)?;
            require_lossless("stream_event", line, &back, "/event")?;
            let block = line
                .pointer("/event/content_block/type")
                .or_else(|| line.pointer("/event/delta/type"))
                .and_then(Value::as_str)
                .unwrap_or_default();
            Ok(tool(matches!(block, "tool_use" | "input_json_delta")))
        }
        ("system", "task_started") => whole::<cm::SdkTaskStartedMessage>(line),
        ("system", "task_progress") => whole::<cm::SdkTaskProgressMessage>(line),
        ("system", "task_updated") => whole::<cm::SdkTaskUpdatedMessage>(line),
        ("system", "task_notification") => whole::<cm::SdkTaskNotificationMessage>(line),
        ("system", "permission_denied") => whole::<cm::SdkPermissionDeniedMessage>(line),
        ("result", _) => {
            let back = round_trip::<cm::SdkResultMessage>("result", line)?;
            require_lossless("result", line, &back, "/permission_denials")?;
            let denied = line
                .get("permission_denials")
                .and_then(Value::as_array)
                .is_some_and(|d| !d.is_empty());
            Ok(tool(denied))
        }
        ("tool_progress", _) => whole::<cm::SdkToolProgressMessage>(line),
        ("tool_use_summary", _) => whole::<cm::SdkToolUseSummaryMessage>(line),
        _ => Ok(Outcome::Skipped),
    }
}

/// Claude session transcript lines: their `message` is the Messages API
/// object (`BetaMessage` for the assistant, `MessageParam` for the user).
fn check_claude_transcript(line: &Value) -> Check {
    let Some(message) = line.get("message") else {
        return Ok(Outcome::Skipped);
    };
    let wrapped = |back: Value| serde_json::json!({ "message": back });
    let orig = serde_json::json!({ "message": message });
    let back = match line.get("type").and_then(Value::as_str) {
        Some("assistant") => wrapped(round_trip::<cm::BetaMessage>("assistant", message)?),
        Some("user") => wrapped(round_trip::<cm::MessageParam>("user", message)?),
        _ => return Ok(Outcome::Skipped),
    };
    let saw = check_claude_content("transcript", &orig, &back)?;
    Ok(if saw { Outcome::Tool } else { Outcome::Other })
}

fn whole<T: DeserializeOwned + Serialize>(line: &Value) -> Check {
    let back = round_trip::<T>(std::any::type_name::<T>(), line)?;
    require_lossless(std::any::type_name::<T>(), line, &back, "")?;
    Ok(Outcome::Tool)
}

const CODEX_EXEC_TOOL_ITEMS: &[&str] = &[
    "command_execution",
    "file_change",
    "mcp_tool_call",
    "web_search",
    "todo_list",
];

/// `codex exec --json` lines (`ThreadEvent`).
fn check_codex_exec(line: &Value) -> Check {
    let back = round_trip::<cx::ThreadEvent>("ThreadEvent", line)?;
    let item = line.pointer("/item/type").and_then(Value::as_str);
    match item {
        Some(kind) if CODEX_EXEC_TOOL_ITEMS.contains(&kind) => {
            require_lossless("ThreadEvent", line, &back, "/item")?;
            Ok(Outcome::Tool)
        }
        _ => Ok(Outcome::Other),
    }
}

const CODEX_TOOL_ITEMS: &[&str] = &[
    "commandExecution",
    "fileChange",
    "mcpToolCall",
    "dynamicToolCall",
    "collabAgentToolCall",
    "webSearch",
    "imageView",
];

/// Codex app-server JSON-RPC notifications.
fn check_codex_app_server(line: &Value) -> Check {
    let method = line
        .get("method")
        .and_then(Value::as_str)
        .unwrap_or_default();
    let params = line.get("params").cloned().unwrap_or(Value::Null);
    let back = match method {
        "item/started" => round_trip::<cas::ItemStartedNotification>(method, &params)?,
        "item/completed" => round_trip::<cas::ItemCompletedNotification>(method, &params)?,
        "item/commandExecution/outputDelta" => {
            round_trip::<cas::CommandExecutionOutputDeltaNotification>(method, &params)?
        }
        "item/fileChange/outputDelta" => {
            round_trip::<cas::FileChangeOutputDeltaNotification>(method, &params)?
        }
        "item/mcpToolCall/progress" => {
            round_trip::<cas::McpToolCallProgressNotification>(method, &params)?
        }
        _ => return Ok(Outcome::Skipped),
    };
    let kind = params.pointer("/item/type").and_then(Value::as_str);
    Ok(match kind {
        Some(k) if !CODEX_TOOL_ITEMS.contains(&k) => Outcome::Other,
        _ => {
            require_lossless(method, &params, &back, "")?;
            Outcome::Tool
        }
    })
}

const CODEX_ROLLOUT_TOOL_ITEMS: &[&str] = &[
    "function_call",
    "function_call_output",
    "custom_tool_call",
    "custom_tool_call_output",
    "local_shell_call",
    "web_search_call",
    "image_generation_call",
    "tool_search_call",
    "tool_search_output",
];

/// Codex rollout lines: the `response_item` payloads (`ResponseItem`); the envelope and
/// the other line types have no pinned schema.
fn check_codex_rollout(line: &Value) -> Check {
    if line.get("type").and_then(Value::as_str) != Some("response_item") {
        return Ok(Outcome::Skipped);
    }
    let payload = line.get("payload").cloned().unwrap_or(Value::Null);
    let back = round_trip::<cr::ResponseItem>("ResponseItem", &payload)?;
    match payload.get("type").and_then(Value::as_str) {
        Some(kind) if CODEX_ROLLOUT_TOOL_ITEMS.contains(&kind) => {
            require_lossless("ResponseItem", &payload, &back, "")?;
            Ok(Outcome::Tool)
        }
        _ => Ok(Outcome::Other),
    }
}

fn check_codex(line: &Value) -> Check {
    if line.get("method").is_some() {
        check_codex_app_server(line)
    } else {
        check_codex_exec(line)
    }
}

/// OpenCode bus events (`/event` SSE payloads; `/global/event` wraps each
/// in `payload`), or `opencode run --format json` lines, which carry a
/// `part` at the top level.
fn check_opencode(line: &Value) -> Check {
    if let Some(payload) = line.get("payload").filter(|p| p.get("type").is_some()) {
        return check_opencode(payload);
    }
    let kind = line.get("type").and_then(Value::as_str).unwrap_or_default();
    let (back, pointer) = match kind {
        "message.part.updated" => (
            round_trip::<oc::EventMessagePartUpdated>(kind, line)?,
            "/properties/part",
        ),
        "message.part.delta" => (
            round_trip::<oc::EventMessagePartDelta>(kind, line)?,
            "/properties",
        ),
        "message.part.removed" => (
            round_trip::<oc::EventMessagePartRemoved>(kind, line)?,
            "/properties",
        ),
        _ => match line.get("part") {
            Some(part) => {
                let back = round_trip::<oc::Part>("part", part)?;
                (serde_json::json!({ "part": back }), "/part")
            }
            None => return Ok(Outcome::Skipped),
        },
    };
    require_lossless(kind, line, &back, pointer)?;
    let part_type = line
        .pointer(pointer)
        .and_then(|p| p.get("type"))
        .and_then(Value::as_str);
    Ok(if part_type == Some("tool") {
        Outcome::Tool
    } else {
        Outcome::Other
    })
}

/// `opencode export` documents: the session (`Session`), each message (`Message`) and
/// each of its parts (`Part`, the `opencode` module's).
fn check_opencode_export(line: &Value) -> Check {
    let info = line.get("info").ok_or("export without info")?;
    require_lossless(
        "Session",
        info,
        &round_trip::<oe::Session>("Session", info)?,
        "",
    )?;
    let messages = line
        .get("messages")
        .and_then(Value::as_array)
        .ok_or("export without messages")?;
    let mut outcome = Outcome::Other;
    for message in messages {
        let info = message.get("info").ok_or("message without info")?;
        require_lossless(
            "Message",
            info,
            &round_trip::<oe::Message>("Message", info)?,
            "",
        )?;
        for part in message
            .get("parts")
            .and_then(Value::as_array)
            .into_iter()
            .flatten()
        {
            require_lossless("Part", part, &round_trip::<oc::Part>("Part", part)?, "")?;
            if part.get("type").and_then(Value::as_str) == Some("tool") {
                outcome = Outcome::Tool;
            }
        }
    }
    Ok(outcome)
}

/// ACP `session/update` notifications (JSON-RPC frames).
fn check_acp(line: &Value) -> Check {
    if line.get("method").and_then(Value::as_str) != Some("session/update") {
        return Ok(Outcome::Skipped);
    }
    let params = line.get("params").cloned().unwrap_or(Value::Null);
    let back = round_trip::<acp::SessionNotification>("session/update", &params)?;
    require_lossless("session/update", &params, &back, "")?;
    let update = params
        .pointer("/update/sessionUpdate")
        .and_then(Value::as_str);
    Ok(match update {
        Some("tool_call" | "tool_call_update") => Outcome::Tool,
        _ => Outcome::Other,
    })
}

/// `gemini -p … --output-format stream-json` events (`JsonStreamEvent`).
fn check_gemini_stream(line: &Value) -> Check {
    let back = round_trip::<gst::JsonStreamEvent>("JsonStreamEvent", line)?;
    require_lossless("JsonStreamEvent", line, &back, "")?;
    Ok(match line.get("type").and_then(Value::as_str) {
        Some("tool_use" | "tool_result") => Outcome::Tool,
        _ => Outcome::Other,
    })
}

/// Gemini CLI session records: metadata, messages (with `toolCalls`), `$set`, `$rewindTo`.
fn check_gemini_session(line: &Value) -> Check {
    if line.get("type").is_some() {
        let back = round_trip::<gs::MessageRecord>("MessageRecord", line)?;
        require_lossless("MessageRecord", line, &back, "")?;
        return Ok(if line.get("toolCalls").is_some() {
            Outcome::Tool
        } else {
            Outcome::Other
        });
    }
    if line.get("$set").is_some() {
        whole::<gs::MetadataUpdateRecord>(line)?;
    } else if line.get("$rewindTo").is_some() {
        whole::<gs::RewindRecord>(line)?;
    } else {
        whole::<gs::PartialMetadataRecord>(line)?;
    }
    Ok(Outcome::Other)
}

/// Picks the checker for a fixture or sample directory name.
fn checker(dir: &str) -> Option<fn(&Value) -> Check> {
    // ACP frames of any agent (`acp`, `claude-code-acp`, `opencode-acp`).
    if dir == "acp" || dir.ends_with("-acp") {
        Some(check_acp)
    } else if dir.starts_with("claude-code-transcript") {
        Some(check_claude_transcript)
    } else if dir.starts_with("claude") {
        Some(check_claude)
    } else if dir.starts_with("codex-app-server") {
        Some(check_codex_app_server)
    } else if dir.starts_with("codex-exec") {
        Some(check_codex_exec)
    } else if dir.starts_with("codex-rollout") {
        Some(check_codex_rollout)
    } else if dir.starts_with("codex") {
        Some(check_codex)
    } else if dir.starts_with("opencode-export") {
        Some(check_opencode_export)
    } else if dir.starts_with("opencode") {
        Some(check_opencode)
    } else if dir.starts_with("qwen-code-session") {
        // Qwen Code's session files: no package declares their records.
        None
    } else if dir.starts_with("qwen-code") {
        Some(qwen::check)
    } else if dir.starts_with("gemini-cli-session") {
        Some(check_gemini_session)
    } else if dir.starts_with("gemini-cli") {
        Some(check_gemini_stream)
    } else {
        None
    }
}

#[derive(Debug, Default)]
struct Tally {
    files: usize,
    tool: usize,
    other: usize,
    skipped: usize,
    failures: Vec<String>,
}

fn check_dir(root: &Path, tally: &mut Tally) {
    let Ok(providers) = std::fs::read_dir(root) else {
        return;
    };
    let mut providers: Vec<PathBuf> = providers.flatten().map(|e| e.path()).collect();
    providers.sort();
    for provider in providers.iter().filter(|p| p.is_dir()) {
        let name = provider
            .file_name()
            .map(|n| n.to_string_lossy().into_owned())
            .unwrap_or_default();
        // `<provider>@<version>/` holds an older CLI release: the pinned schemas describe
        // the pinned CLI, and older wire data is only required to normalize (the adapters'
        // fixture test), not to round-trip through the latest types.
        if name.contains('@') {
            continue;
        }
        if let Some(check) = checker(&name) {
            let before = (tally.tool, tally.other, tally.skipped);
            check_provider(provider, check, tally);
            eprintln!(
                "{name}: tool {} other {} skipped {}",
                tally.tool - before.0,
                tally.other - before.1,
                tally.skipped - before.2
            );
        }
    }
}

fn check_provider(provider: &Path, check: fn(&Value) -> Check, tally: &mut Tally) {
    let Ok(files) = std::fs::read_dir(provider) else {
        tally
            .failures
            .push(format!("{}: unreadable", provider.display()));
        return;
    };
    let mut files: Vec<PathBuf> = files.flatten().map(|e| e.path()).collect();
    files.sort();
    for file in files
        .iter()
        .filter(|f| f.extension().is_some_and(|e| e == "jsonl"))
    {
        tally.files += 1;
        let text = match std::fs::read_to_string(file) {
            Ok(text) => text,
            Err(e) => {
                tally.failures.push(format!("{}: {e}", file.display()));
                continue;
            }
        };
        // The CLI's logs among the events (a capture with `2>&1`) are not wire values.
        let mut logs = toolnorm_adapters::LogLines::default();
        for (n, line) in text
            .lines()
            .enumerate()
            .filter(|(_, l)| !l.trim().is_empty())
            .filter(|(_, l)| !logs.take(l.as_bytes()))
        {
            let at = format!("{}:{}", file.display(), n + 1);
            let outcome = serde_json::from_str::<Value>(line)
                .map_err(|e| format!("not JSON: {e}"))
                .and_then(|value| check(&value));
            match outcome {
                Ok(Outcome::Tool) => tally.tool += 1,
                Ok(Outcome::Other) => tally.other += 1,
                Ok(Outcome::Skipped) => tally.skipped += 1,
                Err(e) => tally.failures.push(format!("{at}: {e}")),
            }
        }
    }
}

/// Every line of the `.jsonl` recordings in the folders of `fixtures/` whose name `keep`
/// accepts (a source's folder and its `@<version>` ones), in path order, parsed: each as
/// `(file:line, value)`. A line that is not JSON goes to `failures`, unless it is the CLI's
/// log line.
fn recorded_lines(keep: impl Fn(&str) -> bool, failures: &mut Vec<String>) -> Vec<(String, Value)> {
    let root = toolnorm_codegen::default_repo_root().join("fixtures");
    let mut files: Vec<PathBuf> = std::fs::read_dir(&root)
        .into_iter()
        .flatten()
        .flatten()
        .map(|entry| entry.path())
        .filter(|path| {
            path.file_name()
                .and_then(|name| name.to_str())
                .is_some_and(&keep)
        })
        .flat_map(|dir| std::fs::read_dir(dir).into_iter().flatten().flatten())
        .map(|entry| entry.path())
        .filter(|path| path.extension().is_some_and(|ext| ext == "jsonl"))
        .collect();
    files.sort();
    let mut lines = Vec::new();
    for file in files {
        let text = std::fs::read_to_string(&file).unwrap_or_default();
        let mut logs = toolnorm_adapters::LogLines::default();
        for (n, line) in text
            .lines()
            .enumerate()
            .filter(|(_, l)| !l.trim().is_empty())
            .filter(|(_, l)| !logs.take(l.as_bytes()))
        {
            let at = format!("{}:{}", file.display(), n + 1);
            match serde_json::from_str::<Value>(line) {
                Ok(value) => lines.push((at, value)),
                Err(e) => failures.push(format!("{at}: not JSON: {e}")),
            }
        }
    }
    lines
}

/// Whether a fixture folder is `source`'s, at any version.
fn of_source(name: &str, source: &str) -> bool {
    name == source
        || name
            .strip_prefix(source)
            .is_some_and(|rest| rest.starts_with('@'))
}

fn samples_root() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/samples")
}

fn assert_clean(tally: &Tally) {
    assert!(
        tally.failures.is_empty(),
        "{} lines failed:\n{}",
        tally.failures.len(),
        tally.failures.join("\n")
    );
}

#[test]
fn samples_of_every_provider_parse_without_loss() {
    for dialect in [
        "acp",
        "claude-code",
        "codex-app-server",
        "codex-exec",
        "opencode",
    ] {
        let mut tally = Tally::default();
        let Some(check) = checker(dialect) else {
            panic!("no checker for {dialect}");
        };
        check_provider(&samples_root().join(dialect), check, &mut tally);
        assert_clean(&tally);
        assert!(
            tally.tool >= 3,
            "{dialect}: expected at least 3 tool events in the samples, got {tally:?}"
        );
    }
}

#[test]
fn recorded_fixtures_parse_without_loss() {
    let root = std::env::var_os("TOOLNORM_FIXTURES")
        .map(PathBuf::from)
        .unwrap_or_else(|| toolnorm_codegen::default_repo_root().join("fixtures"));
    let mut tally = Tally::default();
    check_dir(&root, &mut tally);
    eprintln!("fixtures under {}: {tally:?}", root.display());
    assert_clean(&tally);
}

#[test]
fn a_wrong_event_is_rejected() {
    // A Codex tool item without its required `command` must not parse.
    let bad = serde_json::json!({"type": "item.started", "item": {
        "id": "item_1", "type": "command_execution", "status": "in_progress"}});
    assert!(check_codex_exec(&bad).is_err());
    // An OpenCode tool state with an unknown status must not parse.
    let bad = serde_json::json!({"type": "message.part.updated", "properties": {
        "sessionID": "ses_1", "time": 1, "part": {"id": "prt_1", "sessionID": "ses_1",
        "messageID": "msg_1", "type": "tool", "callID": "c", "tool": "bash",
        "state": {"status": "exploded"}}}});
    assert!(check_opencode(&bad).is_err());
    // The lossless check notices a dropped field.
    let mut errors = Vec::new();
    lossless(
        &serde_json::json!({"a": 1, "b": 2}),
        &serde_json::json!({"a": 1.0}),
        "",
        &mut errors,
    );
    assert_eq!(errors, vec!["/b: dropped 2".to_string()]);
}

fn first_line<T: DeserializeOwned>(
    dialect: &str,
    scenario: &str,
    pick: impl Fn(&Value) -> Option<Value>,
) -> T {
    let path = samples_root()
        .join(dialect)
        .join(format!("{scenario}.jsonl"));
    let text = std::fs::read_to_string(&path).unwrap_or_default();
    let value = text
        .lines()
        .filter_map(|l| serde_json::from_str::<Value>(l).ok())
        .find_map(|v| pick(&v));
    let Some(value) = value else {
        panic!("{}: no matching line", path.display());
    };
    match serde_json::from_value(value) {
        Ok(typed) => typed,
        Err(e) => panic!("{}: {e}", path.display()),
    }
}

/// Untagged enums parse anything that fits some variant; these check that
/// tool events land in the variant their tag names.
#[test]
fn tool_events_land_in_their_variant() {
    let acp: acp::SessionNotification = first_line("acp", "tool-calls", |v| {
        (v.pointer("/params/update/sessionUpdate")? == "tool_call_update")
            .then(|| v["params"].clone())
    });
    assert!(matches!(
        acp.update,
        acp::SessionUpdate::ToolCallUpdate { .. }
    ));
    let chunk: acp::SessionNotification = first_line("acp", "tool-calls", |v| {
        (v.pointer("/params/update/sessionUpdate")? == "agent_message_chunk")
            .then(|| v["params"].clone())
    });
    assert!(matches!(
        chunk.update,
        acp::SessionUpdate::AgentMessageChunk { .. }
    ));

    let mcp: cas::ItemStartedNotification = first_line("codex-app-server", "mcp-ok", |v| {
        (v.pointer("/params/item/type")? == "mcpToolCall").then(|| v["params"].clone())
    });
    assert!(matches!(mcp.item, cas::ThreadItem::McpToolCall { .. }));

    let exec: cx::ThreadEvent = first_line("codex-exec", "shell-ok", |v| {
        (v.pointer("/item/type")? == "command_execution").then(|| v.clone())
    });
    assert!(matches!(
        exec,
        cx::ThreadEvent::ItemStartedEvent(cx::ItemStartedEvent {
            item: cx::ThreadItem::CommandExecutionItem(_),
            ..
        })
    ));

    let part: oc::EventMessagePartUpdated = first_line("opencode", "shell-ok", |v| {
        let completed = v.pointer("/properties/part/state/status")? == "completed";
        (v["type"] == "message.part.updated" && completed).then(|| v.clone())
    });
    let oc::Part::ToolPart(tool) = part.properties.part else {
        panic!("not a tool part");
    };
    assert!(matches!(tool.state, oc::ToolState::Completed(_)));

    let assistant: cm::SdkAssistantMessage = first_line("claude-code", "shell-ok", |v| {
        let has_tool = v
            .pointer("/message/content")?
            .as_array()?
            .iter()
            .any(|b| b["type"] == "tool_use");
        (v["type"] == "assistant" && has_tool).then(|| v.clone())
    });
    assert!(
        assistant
            .message
            .content
            .iter()
            .any(|b| matches!(b, cm::BetaContentBlock::ToolUseBlock(_)))
    );
}
