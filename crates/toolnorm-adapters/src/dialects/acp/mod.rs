//! ACP to canonical events: the stream an ACP client sees, read into tool-call facts.
//!
//! Read: `session/update` notifications with `tool_call` / `tool_call_update`,
//! `session/request_permission` requests and the responses to them (the call's approval,
//! [`permission`]), `elicitation/create` requests tied to a call and their responses (the
//! call's questions, [`elicitation`]). Everything else
//! (other session updates, `initialize` and `session/*` responses, file-system and
//! terminal requests) carries no tool-call data and is skipped on purpose, without a
//! diagnostic.
//!
//! Frames written by toolnorm carry `_meta.toolnorm` (tool name, kind, error, timing,
//! metadata, output chunks), which is restored losslessly. Other agents' calls get a name
//! from what the agent says of its tool, never from its title (`names`), a kind from the
//! ACP kind and that name, toolnorm's title where the rules give one (`titles`), and the
//! shared error codes (`outcome`).
//!
//! | agent | its tool's name | recordings |
//! | --- | --- | --- |
//! | Claude Code's adapters | `_meta.claudeCode.toolName` (`name` too, in claude-agent-acp) | `claude-code-acp`, `claude-code-zed-acp` |
//! | Qwen Code (`qwen --acp`) | `_meta.toolName` | `qwen-code-acp` |
//! | Gemini CLI (`gemini --acp`) | the call id, `<tool>__<id>` (`<tool>-<ms>-<n>` before 0.6x) | `gemini-cli-acp` |
//! | OpenCode (`opencode acp`) | the first title, its tool's name | `opencode-acp` |
//! | Codex (`codex-acp`) | none (the MCP input names its tool): the ACP kind | `codex-acp` |

mod elicitation;
mod names;
mod outcome;
mod permission;
mod scan;
mod seen;
mod titles;

use foldhash::{HashMap, HashSet};
use std::borrow::Cow;

use serde::Deserialize;
use serde_json::{Map, Value};
use toolnorm::meta;
use toolnorm::{Payload, ToolKind, ToolState};
use toolnorm_wire::acp;

use crate::Dialect;
use crate::acp::{Clues, kind_of, state_of};
use crate::adapter::Adapter;
use crate::diagnostic::{Diagnostic, DiagnosticKind};
use crate::dialects::Entry;
use crate::read::json;
use crate::read::line_keys::LineKeys;
use crate::track::{Ending, Facts, Sighting};
use names::NameFrom;
use outcome::{exit_error, foreign_error, truncation_flags};
use scan::Frame;
use seen::{Raw, Seen, foreign_metadata, marked_mcp, mcp_input, mcp_name};

/// The dialect this module reads.
pub(crate) const DIALECT: Dialect = Dialect::new("acp", "acp");

/// Its rules file (the kind and title of each of its tools), as `(origin, TOML text)`.
pub(crate) const RULES: (&str, &str) = ("src/dialects/acp/rules.toml", include_str!("rules.toml"));

impl Dialect {
    /// Agent Client Protocol v1 JSON-RPC, as a client sees it.
    pub const ACP: Dialect = DIALECT;
}

/// Its row of the dialect table.
pub(crate) const ENTRY: Entry = Entry {
    dialect: DIALECT,
    summary: "Agent Client Protocol JSON-RPC, as a client sees it",
    feature: "acp",
    rules: RULES,
    claims,
    adapter: |options| Box::new(AcpAdapter::new(options.mcp_servers.clone())),
    read_ahead: None,
    recordings: &[
        "opencode-acp",
        "claude-code-acp",
        "codex-acp",
        "claude-code-zed-acp",
        "gemini-cli-acp",
        "qwen-code-acp",
    ],
    agent_version: "`agentInfo.version` of the agent's answer to `initialize`",
    stores: &[],
};

/// Whether a line is ACP: JSON-RPC that says `"jsonrpc": "2.0"` with a method ACP names
/// as a path (`session/…`, `fs/…`, `terminal/…`, an agent's own `craft/…`), an `_…`
/// extension, `authenticate`, or an `initialize` with ACP's `protocolVersion`.
///
/// Other agents speak JSON-RPC 2.0 with bare method names: Kimi CLI's `--wire` mode
/// sends `event` and `request` (and is sent `initialize` with a `protocol_version`,
/// `prompt`, `cancel`); those lines are not ACP's.
pub(crate) fn claims(keys: &LineKeys<'_>) -> bool {
    if keys.str("jsonrpc").as_deref() != Some("2.0") {
        return false;
    }
    keys.str("method")
        .is_some_and(|method| match method.as_ref() {
            "initialize" => keys.object_has("params", "protocolVersion"),
            "authenticate" => true,
            method => method.contains('/') || method.starts_with('_'),
        })
        // Factory Droid's own JSON-RPC names its `factoryApiVersion` on every message.
        && !keys.has("factoryApiVersion")
}

/// Reads ACP JSON-RPC lines (`--provider acp`).
#[derive(Debug, Default)]
pub struct AcpAdapter {
    /// MCP server names, to split `<server>_<tool>` names.
    mcp_servers: Vec<String>,
    /// Open calls whose frames carry `_meta.toolnorm` (the rest are other agents').
    own: HashSet<String>,
    /// Permission requests still unanswered: JSON-RPC id (as JSON text) → call id and
    /// the options offered.
    permissions: HashMap<String, (String, Vec<Value>)>,
    /// Elicitations still unanswered: JSON-RPC id (as JSON text) → call id and its
    /// questions.
    elicitations: HashMap<String, (String, Vec<toolnorm::Question>)>,
    /// Other agents' calls named after their ACP kind (the agent named its tool nowhere),
    /// by session and call id.
    unnamed: HashSet<(String, String)>,
    /// Whether the stream holds the start of its sessions (an `initialize` or `session/new`
    /// answer or request): an update of a call it never saw start is then the agent's way
    /// of telling it (Gemini CLI announces a call its policy refused only by its failed
    /// update), not a sign of a stream joined late.
    from_start: bool,
}

impl AcpAdapter {
    /// A fresh adapter; `mcp_servers` name the MCP servers of `<server>_<tool>` names.
    pub fn new(mcp_servers: Vec<String>) -> Self {
        AcpAdapter {
            mcp_servers,
            ..AcpAdapter::default()
        }
    }

    fn seen(&mut self, line: u64, seen: Seen, out: &mut Facts<'_>) {
        if let Some(Value::String(session)) = &seen.session {
            out.session(session);
        }
        // A `tool_call` reusing the id of another session's finished call is a call of its
        // own; anything else for a finished call comes too late.
        let reused = !seen.update && out.is_other_sessions(&seen.id);
        if !reused && out.finished(&seen.id).is_some() {
            if let Some(status) = seen
                .status
                .filter(|status| !state_of(*status).is_terminal())
            {
                out.diagnostic(Diagnostic::at(
                    line,
                    DiagnosticKind::Rejected,
                    format!(
                        "tool call `{}` already finished: status `{status}` ignored",
                        seen.id
                    ),
                ));
            }
            return;
        }
        let first = reused || out.call(&seen.id).is_none();
        if first {
            if seen.update && !self.from_start {
                // A client that joined mid-stream sees updates of calls it never saw start.
                out.diagnostic(Diagnostic::notice(
                    line,
                    DiagnosticKind::UnknownCall,
                    format!(
                        "an update of tool call `{}`, whose `tool_call` the stream does not hold: the call is opened from it",
                        seen.id
                    ),
                ));
            }
            self.start(line, &seen, out);
        } else {
            let own = self.own.contains(&seen.id);
            let unnamed = self.unnamed.contains(&unnamed_key(&seen));
            refine(line, &seen, own, unnamed, out);
        }
        let Some(call) = out.call(&seen.id) else {
            return;
        };
        let (current, kind) = (call.state(), call.kind());
        let own = self.own.contains(&seen.id);
        let toolnorm = seen.toolnorm();
        let timing = toolnorm.and_then(|meta| meta.timing.as_ref());
        let state = seen.status.map(state_of).unwrap_or(current);
        if state != ToolState::Started && current == ToolState::Started {
            let started_at = timing.and_then(|timing| timing.started_at.clone());
            out.running(line, &seen.id, started_at);
        }
        if state != ToolState::Started {
            stream(line, &seen, own, out);
        }
        let ending = Ending::at(timing.and_then(|timing| timing.completed_at.clone()))
            .elapsed_ms(timing.and_then(|timing| timing.elapsed_ms));
        match state {
            ToolState::Started | ToolState::Running => return,
            ToolState::Complete => {
                let output = if own {
                    seen.raw_output.clone()
                } else {
                    seen.raw_output
                        .clone()
                        .or_else(|| seen.text().map(Payload::from))
                };
                if let Some(error) = (!own && kind == ToolKind::Bash)
                    .then(|| exit_error(output.as_ref(), &seen))
                    .flatten()
                {
                    out.fail(line, &seen.id, error, ending);
                } else {
                    if let Some(flags) = truncation_flags(toolnorm) {
                        out.merge_metadata(line, &seen.id, flags);
                    }
                    out.complete(line, &seen.id, output, ending);
                }
            }
            ToolState::Error => {
                let (error, ending) = match toolnorm.and_then(|meta| meta.error.clone()) {
                    Some(own_error) => (own_error, ending.restored()),
                    None => (foreign_error(&seen, kind), ending),
                };
                out.fail(line, &seen.id, error, ending);
            }
        }
        self.own.remove(&seen.id);
        self.unnamed.remove(&unnamed_key(&seen));
    }

    /// The first sight of a call.
    fn start(&mut self, line: u64, seen: &Seen, out: &mut Facts<'_>) {
        let toolnorm = seen.toolnorm();
        let own_name = toolnorm.and_then(|meta| meta.tool_name.clone());
        let unmarked = matches!(seen.kind, None | Some(acp::ToolKind::Other));
        // An MCP call whose input names its server and tool is named after the tool.
        let input_mcp = (toolnorm.is_none() && unmarked)
            .then(|| mcp_input(seen))
            .flatten();
        // The agent's name of its tool (see `names`); a call the agent names nowhere is
        // named after its kind, never its id or its title.
        let known = |name: &str| {
            out.builtin_providers(name)
                .any(|owner| Dialect::all().any(|dialect| dialect.provider() == owner))
        };
        let agents_name = own_name
            .or_else(|| seen.foreign_name())
            .or_else(|| input_mcp.as_ref().map(|(_, tool)| tool.clone()))
            .or_else(|| names::name_in_id(&seen.id, known).map(str::to_owned))
            .or_else(|| names::name_in_title(seen).map(str::to_owned))
            // toolnorm's own frames name their tool; an old one without it, its title.
            .or_else(|| seen.title.clone().filter(|_| toolnorm.is_some()));
        let (name, name_from) = match agents_name {
            Some(name) => (name, NameFrom::Agent),
            None => {
                let kind = seen.kind.map(|kind| kind.to_string());
                (kind.unwrap_or_else(|| "tool".to_owned()), NameFrom::Kind)
            }
        };
        if name_from == NameFrom::Kind {
            self.unnamed.insert(unnamed_key(seen));
        } else {
            self.unnamed.remove(&unnamed_key(seen));
        }
        // toolnorm's own frames are restored as written, an empty title included.
        let title = seen
            .title
            .clone()
            .filter(|title| toolnorm.is_some() || !title.trim().is_empty())
            .unwrap_or_else(|| name.clone());
        let own_kind = toolnorm.and_then(|meta| meta.kind);
        let marked = marked_mcp(seen);
        // A provider's built-in tool (`write_todos`) is no `<server>_<tool>`.
        let builtin = name_from == NameFrom::Agent && known(&name);
        let mcp = (marked || (unmarked && !builtin))
            .then(|| mcp_name(&name, &self.mcp_servers))
            .flatten()
            .or(input_mcp);
        let kind = own_kind
            .or(marked.then_some(ToolKind::Mcp))
            .unwrap_or_else(|| {
                let clues = Clues {
                    name: (name_from == NameFrom::Agent).then_some(name.as_str()),
                    title: &title,
                    only_new_files: seen.only_new_files(),
                    mcp: mcp.is_some(),
                };
                kind_of(seen.kind, clues)
            });
        let at = toolnorm.and_then(|meta| meta.timing.as_ref()?.started_at.clone());
        let input = seen.raw_input.clone().unwrap_or(Value::Null);
        let mcp = mcp.filter(|_| kind == ToolKind::Mcp);
        // Another agent's call gets toolnorm's title where its tool, MCP name or kind gives
        // one; toolnorm's own frames keep theirs.
        let title = match toolnorm {
            Some(_) => title,
            None => {
                let acp_kind = seen.kind.map(|kind| kind.to_string());
                let call = titles::Call {
                    name: &name,
                    named: name_from == NameFrom::Agent,
                    kind,
                    acp_kind: acp_kind.as_deref(),
                    mcp: mcp
                        .as_ref()
                        .map(|(server, tool)| (server.as_str(), tool.as_str())),
                    input: &input,
                    locations: seen.locations.as_ref(),
                    meta: seen.meta.as_ref(),
                };
                titles::title(&call, out).unwrap_or(title)
            }
        };
        let sighting = Sighting::new(seen.id.clone(), name, input)
            .kind(kind)
            .title(title)
            .at(at);
        let mut approval = None;
        let sighting = match toolnorm {
            Some(meta) => {
                self.own.insert(seen.id.clone());
                let mut metadata = meta.metadata.clone().unwrap_or_default();
                approval = metadata.remove(meta::APPROVAL);
                sighting.metadata(metadata).restored()
            }
            None => {
                let sighting = sighting.metadata(foreign_metadata(seen));
                match mcp {
                    Some((server, tool)) => sighting.mcp(server, tool),
                    None => sighting,
                }
            }
        };
        out.sighted(line, sighting);
        if let Some(approval) = approval {
            out.restore_approval(line, &seen.id, &approval);
        }
    }

    /// A line read into a `Value`, then field by field: the shapes the scan leaves, and
    /// what is wrong with a line.
    fn read_fields(&mut self, line: u64, bytes: &[u8], out: &mut Facts<'_>) {
        let message = match serde_json::from_slice::<Value>(bytes) {
            Ok(Value::Object(message)) => message,
            Ok(_) => {
                out.diagnostic(malformed(line, "not a JSON-RPC message (not an object)"));
                return;
            }
            Err(error) => {
                out.diagnostic(match json::classify(bytes, &error) {
                    Some(invalid) => Diagnostic::at(line, invalid.kind, invalid.message),
                    None => malformed(line, error.to_string()),
                });
                return;
            }
        };
        match message.get("method").and_then(Value::as_str) {
            Some("session/update") => self.update(line, &message, out),
            // The client's requests, when the log holds them: the session's directory.
            Some("session/new" | "session/load" | "session/resume") => {
                let cwd = message.get("params").and_then(|params| params.get("cwd"));
                if let Some(cwd) = cwd.and_then(Value::as_str) {
                    out.set_cwd(cwd);
                }
            }
            Some("session/request_permission") => self.permission_request(line, &message, out),
            Some("elicitation/create") => self.elicitation_request(line, &message, out),
            // Other requests and notifications carry no tool-call data.
            Some(_) => {}
            None if message.contains_key("id") => self.response(line, &message, out),
            None => out.diagnostic(malformed(
                line,
                "not a JSON-RPC message (no method and no id)",
            )),
        }
    }

    fn update(&mut self, line: u64, message: &Map<String, Value>, out: &mut Facts<'_>) {
        let params = message.get("params");
        let Some(update) = params.and_then(|params| params.get("update")) else {
            out.diagnostic(malformed(line, "`session/update` without params.update"));
            return;
        };
        let session = params.and_then(|params| params.get("sessionId")).cloned();
        let seen = match update.get("sessionUpdate").and_then(Value::as_str) {
            Some("tool_call") => acp::ToolCall::deserialize(update)
                .map(|call| Seen::from_call(call, Raw::of(update), session))
                .map_err(|error| format!("`tool_call`: {error}")),
            Some("tool_call_update") => acp::ToolCallUpdate::deserialize(update)
                .map(|call| Seen::from_update(call, Raw::of(update), session))
                .map_err(|error| format!("`tool_call_update`: {error}")),
            // Message chunks, plans, commands, modes, usage: not tool calls.
            Some(_) => return,
            None => Err("`session/update` without `sessionUpdate`".to_owned()),
        };
        match seen {
            Ok(seen) => self.seen(line, seen, out),
            Err(message) => out.diagnostic(malformed(line, message)),
        }
    }
}

impl Adapter for AcpAdapter {
    fn dialect(&self) -> Dialect {
        DIALECT
    }

    fn line(&mut self, line: u64, bytes: &[u8], out: &mut Facts<'_>) {
        let frame = scan::scan(bytes);
        // Only requests with a directory and responses can start a session.
        if !self.from_start
            && matches!(frame, None | Some(Frame::Cwd(_) | Frame::Response(_)))
            && scan::opens_session(bytes)
        {
            self.from_start = true;
        }
        // The agent's answer to `initialize` says its version.
        if matches!(frame, None | Some(Frame::Response(_))) {
            agent_version(bytes, out);
        }
        match frame {
            Some(Frame::Call(seen)) => self.seen(line, *seen, out),
            Some(Frame::Cwd(cwd)) => out.set_cwd(cwd),
            Some(Frame::Skipped) => {}
            Some(Frame::Response(id)) if !self.answers(id) => {}
            _ => self.read_fields(line, bytes, out),
        }
    }
}

/// The agent's version, from its answer to `initialize` (`result.agentInfo.version`).
fn agent_version(bytes: &[u8], out: &mut Facts<'_>) {
    #[derive(serde::Deserialize)]
    struct Answer<'a> {
        #[serde(borrow)]
        result: Initialized<'a>,
    }
    #[derive(serde::Deserialize)]
    #[serde(rename_all = "camelCase")]
    struct Initialized<'a> {
        #[serde(borrow)]
        agent_info: AgentInfo<'a>,
    }
    #[derive(serde::Deserialize)]
    struct AgentInfo<'a> {
        #[serde(borrow)]
        version: Cow<'a, str>,
    }
    /// Built once: building a searcher costs more than a search.
    static AGENT_INFO: std::sync::LazyLock<memchr::memmem::Finder<'static>> =
        std::sync::LazyLock::new(|| memchr::memmem::Finder::new(b"\"agentInfo\""));
    if AGENT_INFO.find(bytes).is_none() {
        return;
    }
    if let Ok(answer) = serde_json::from_slice::<Answer<'_>>(bytes) {
        out.agent_version(&answer.result.agent_info.version);
    }
}

/// A call's key among the unnamed ones: its session (as sent) and id, since sessions of
/// one stream may reuse call ids.
fn unnamed_key(seen: &Seen) -> (String, String) {
    let session = seen
        .session
        .as_ref()
        .map(Value::to_string)
        .unwrap_or_default();
    (session, seen.id.clone())
}

/// A later sight of an open call: a new title, input or (toolnorm's frames) metadata.
/// `unnamed`: the call is named after its ACP kind.
fn refine(line: u64, seen: &Seen, own: bool, unnamed: bool, out: &mut Facts<'_>) {
    let Some(call) = out.call(&seen.id) else {
        return;
    };
    // Another agent's empty title (OpenCode 1.1 ends MCP calls with `"title": ""`) does
    // not erase the one it gave; toolnorm's own frames are taken as written.
    let agent_title = seen
        .title
        .as_ref()
        .filter(|title| own || !title.trim().is_empty())
        .cloned();
    let input = seen
        .raw_input
        .as_ref()
        .filter(|input| *input != call.input())
        .cloned();
    if let Some(input) = input {
        out.update_input(line, &seen.id, input, None);
    }
    // Another agent's call: toolnorm's title of the input as it now stands, else the
    // agent's latest.
    let title = match own {
        true => agent_title,
        false => own_title(seen, unnamed, out).or(agent_title),
    };
    let changed = out
        .call(&seen.id)
        .is_some_and(|call| title.as_deref().is_some_and(|title| title != call.title()));
    if let (true, Some(title)) = (changed, title) {
        out.set_title(line, &seen.id, title);
    }
    if let Some(metadata) = seen
        .toolnorm()
        .and_then(|meta| meta.metadata.as_ref())
        .filter(|metadata| !metadata.is_empty())
    {
        let mut metadata = metadata.clone();
        let approval = metadata.remove(meta::APPROVAL);
        if !metadata.is_empty() {
            out.merge_metadata(line, &seen.id, metadata);
        }
        if let Some(approval) = approval {
            out.restore_approval(line, &seen.id, &approval);
        }
    }
}

/// toolnorm's title of another agent's open call, from what the fold holds of it.
fn own_title(seen: &Seen, unnamed: bool, out: &Facts<'_>) -> Option<String> {
    let call = out.call(&seen.id)?;
    let metadata = call.metadata();
    let mcp = metadata.get(meta::MCP).and_then(|names| {
        Some((
            names.get(meta::MCP_SERVER)?.as_str()?,
            names.get(meta::MCP_TOOL)?.as_str()?,
        ))
    });
    let view = titles::Call {
        name: call.name(),
        named: !unnamed,
        kind: call.kind(),
        acp_kind: metadata.get(meta::ACP_KIND).and_then(Value::as_str),
        mcp,
        input: call.input(),
        locations: seen.locations.as_ref(),
        meta: metadata.get(meta::ACP_META).and_then(Value::as_object),
    };
    titles::title(&view, out)
}

fn malformed(line: u64, message: impl Into<String>) -> Diagnostic {
    Diagnostic::at(line, DiagnosticKind::MalformedEvent, message)
}

/// New text content of a running call, as output chunks: frames from toolnorm carry
/// `_meta.toolnorm.outputAppended` (applied when it starts where the output so far
/// ends); other agents resend their text content, of which what extends the output so
/// far is appended.
fn stream(line: u64, seen: &Seen, own: bool, out: &mut Facts<'_>) {
    if own {
        let chunk = seen
            .toolnorm()
            .and_then(|meta| meta.output_appended.as_ref())
            .filter(|appended| appended.offset == out.streamed(&seen.id))
            .map(|appended| appended.chunk.as_str())
            .filter(|chunk| !chunk.is_empty());
        if let Some(chunk) = chunk {
            out.output(line, &seen.id, chunk);
        }
    } else if let Some(text) = seen.text() {
        out.streamed_text(line, &seen.id, &text);
    }
}
