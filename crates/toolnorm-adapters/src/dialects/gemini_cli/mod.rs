//! Gemini CLI: `gemini -p … --output-format stream-json` events, and the session files
//! it writes under `~/.gemini/tmp/<project>/chats/` (JSON lines of records).
//!
//! In stream-json a call is a `tool_use` event (`tool_id`, `tool_name`, `parameters`)
//! answered by a `tool_result` (`status` `success` with `output`, or `error` with
//! `error.type`/`error.message`). In a session file a call is an entry of a `gemini`
//! message's `toolCalls` (`id`, `name`, `args`, `status`, `result`: the function response
//! sent back to the model); the CLI appends a message record again each time it changes,
//! so a call is seen again with fuller data until it ends. Both readings give the same
//! parts (a test compares them on every recorded run). MCP tools are named
//! `mcp_<server>_<tool>`: servers given in the options are matched first, else the name
//! splits at the first `_` after `mcp_`.
//!
//! An event or tool call entry that lacks a field its schema requires is read with that
//! field's empty value and a notice naming it (`read::tolerant`); an event that carries no
//! call (`message`, `error`, `result`) and does not read even so is a notice.

use std::borrow::Cow;

use serde::Deserialize;
use serde::de::IgnoredAny;

use crate::Dialect;
use crate::adapter::Adapter;
use crate::diagnostic::{Diagnostic, DiagnosticKind};
use crate::dialects::Entry;
use crate::read::json;
use crate::read::line_keys::LineKeys;
use crate::rules::mcp;
use crate::track::Facts;

mod outcome;
mod session;
mod session_scan;
mod stream;
mod stream_checked;
mod stream_scan;

/// The dialect this module reads.
pub(crate) const DIALECT: Dialect = Dialect::new("gemini-cli", "gemini-cli");

/// Its rules file (the kind and title of each of its tools), as `(origin, TOML text)`.
pub(crate) const RULES: (&str, &str) = (
    "src/dialects/gemini_cli/rules.toml",
    include_str!("rules.toml"),
);

impl Dialect {
    /// Gemini CLI `--output-format stream-json`, and its session files.
    pub const GEMINI_CLI: Dialect = DIALECT;
}

/// Its row of the dialect table.
pub(crate) const ENTRY: Entry = Entry {
    dialect: DIALECT,
    summary: "Gemini CLI stream-json or session file",
    feature: "gemini-cli",
    rules: RULES,
    claims,
    adapter: |options| Box::new(GeminiCliAdapter::new(options.mcp_servers.clone())),
    read_ahead: None,
    recordings: &["gemini-cli"],
    agent_version: "",
    stores: &[crate::Store::at(".gemini", "tmp/*/chats/**/*.jsonl")],
};

/// stream-json event types.
const STREAM_TYPES: &[&str] = &[
    "init",
    "message",
    "tool_use",
    "tool_result",
    "error",
    "result",
];

/// Session file message types.
const MESSAGE_TYPES: &[&str] = &["user", "gemini", "info", "error", "warning"];

/// Whether a line is Gemini CLI's: a stream-json event or a session message record
/// (`type` and `timestamp`, no Claude `message` envelope, no OpenCode `sessionID`, no
/// JSON-RPC, no `session_id` but on `init`), or a session file's metadata (`sessionId` with `projectHash`), `$set` or
/// `$rewindTo` record.
pub(crate) fn claims(keys: &LineKeys<'_>) -> bool {
    if keys.has("method") || keys.has("payload") || keys.has("sessionID") {
        return false;
    }
    if !keys.has("type") {
        return keys.has("projectHash") || keys.has("$set") || keys.has("$rewindTo");
    }
    // Gemini CLI names the session on its `init` event alone: a `message`,
    // `tool_result` or `error` event with a `session_id` is Factory Droid's.
    keys.has("timestamp")
        && !keys.has("message")
        && !keys.has("subtype")
        && (keys.kind().as_deref() == Some("init") || !keys.has("session_id"))
        // Copilot CLI's closing `result` line (`sessionId`, `exitCode`, `usage`).
        && !keys.has("exitCode")
        && keys
            .kind()
            .as_deref()
            .is_some_and(|kind| STREAM_TYPES.contains(&kind) || MESSAGE_TYPES.contains(&kind))
}

/// Reads Gemini CLI stream-json and session files.
pub struct GeminiCliAdapter {
    servers: Vec<String>,
}

impl GeminiCliAdapter {
    /// An adapter that knows these MCP server names (else it splits at the first `_`).
    pub fn new(servers: Vec<String>) -> Self {
        GeminiCliAdapter { servers }
    }

    /// The MCP server and tool of a tool name, for `mcp_<server>_<tool>` names that are
    /// not built-in tools.
    fn split_mcp(&self, tool: &str, builtin: bool) -> Option<(String, String)> {
        if builtin {
            return None;
        }
        let rest = tool.strip_prefix("mcp_")?;
        if let Some(split) = mcp::split_server_prefix(rest, &self.servers) {
            return Some((split.server.to_owned(), split.tool.to_owned()));
        }
        let (server, bare) = rest.split_once('_')?;
        (!server.is_empty() && !bare.is_empty()).then(|| (server.to_owned(), bare.to_owned()))
    }
}

impl Adapter for GeminiCliAdapter {
    fn dialect(&self) -> Dialect {
        DIALECT
    }

    fn line(&mut self, line: u64, bytes: &[u8], facts: &mut Facts<'_>) {
        // Checked as UTF-8 once: every reading of the line below is of this text.
        let Some(text) = crate::read::utf8::text(bytes) else {
            if let Err(diagnostic) =
                json::parse_line::<Envelope<'_>>(line, bytes, "not a Gemini CLI record")
            {
                facts.diagnostic(diagnostic);
            }
            return;
        };
        // One scan reads nearly every line (a stream-json event begins with its type); the
        // rest are read field by field, which also says what is wrong with them.
        if text.starts_with(r#"{"type":""#) {
            if let Some(event) = stream_scan::scan(text) {
                return stream::apply(self, line, event, facts);
            }
        } else if let Some(calls) = session_scan::scan(text) {
            return session::calls(self, line, calls, facts);
        }
        let envelope: Envelope<'_> = match json::parse_text(line, text, "not a Gemini CLI record") {
            Ok(envelope) => envelope,
            Err(diagnostic) => return facts.diagnostic(diagnostic),
        };
        match envelope.kind.as_deref() {
            // Session metadata, `$set` and `$rewindTo` records have no type.
            None => session::record(self, line, text, facts),
            // `error` is both a stream-json event and a session message type (with an id).
            Some("error") if envelope.id.is_some() => session::message(self, line, text, facts),
            Some(kind) if STREAM_TYPES.contains(&kind) => {
                stream::event(self, line, kind, text, facts)
            }
            Some(kind) if MESSAGE_TYPES.contains(&kind) => {
                session::message(self, line, text, facts)
            }
            Some(other) => {
                facts.diagnostic(Diagnostic::notice(
                    line,
                    DiagnosticKind::UnknownEvent,
                    format!("unknown Gemini CLI record type `{other}`"),
                ));
                // Nothing tool-like is dropped: a tool_use-shaped event or a message with
                // tool calls is read as one.
                let retyped = if envelope.tool_id.is_some() && envelope.tool_name.is_some() {
                    Some("tool_use")
                } else if envelope.tool_calls.is_some() {
                    Some("gemini")
                } else {
                    None
                };
                if let Some(kind) = retyped {
                    let text = with_type(text, kind);
                    match kind {
                        "tool_use" => stream::event(self, line, kind, &text, facts),
                        _ => session::message(self, line, &text, facts),
                    }
                }
            }
        }
    }
}

/// The keys of a line that say what it is.
#[derive(Deserialize)]
struct Envelope<'a> {
    #[serde(borrow, rename = "type", default)]
    kind: Option<Cow<'a, str>>,
    #[serde(default)]
    id: Option<IgnoredAny>,
    #[serde(default)]
    tool_id: Option<IgnoredAny>,
    #[serde(default)]
    tool_name: Option<IgnoredAny>,
    #[serde(default, rename = "toolCalls")]
    tool_calls: Option<IgnoredAny>,
}

/// The line with its `type` replaced by `kind`, to be read as a record of that type.
fn with_type(text: &str, kind: &str) -> String {
    match serde_json::from_str::<serde_json::Value>(text) {
        Ok(serde_json::Value::Object(mut object)) => {
            object.insert("type".into(), kind.into());
            serde_json::to_string(&object).unwrap_or_else(|_| text.to_owned())
        }
        _ => text.to_owned(),
    }
}
