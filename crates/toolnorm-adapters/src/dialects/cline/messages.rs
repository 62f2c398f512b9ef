//! The reader of Cline's `ClineMessage`s, which the task folder's `ui_messages.json`
//! holds (an array) and the Cline CLI 2.x prints with `--json` (one a line).
//!
//! | message | canonical events |
//! | --- | --- |
//! | `say`/`ask` `tool`: JSON text `{"tool": "readFile", "path", …}` | `toolCallStarted` (name: its `tool`, input: the other fields) |
//! | `say`/`ask` `command`: the command | `toolCallStarted` of `execute_command` |
//! | `say`/`ask` `command_output` | `toolCallOutput` of the open command |
//! | `say`/`ask` `use_mcp_server`: `{type, serverName, toolName, arguments, uri}` | `toolCallStarted` of `use_mcp_tool` (MCP) or `access_mcp_resource` |
//! | `ask` `followup`: `{question, options}` | `toolCallStarted` of `ask_followup_question` |
//! | `say`/`ask` `browser_action_launch` (the URL), `say` `browser_action` | `toolCallStarted` of `browser_action` |
//! | `say`/`ask` `use_subagents`: `{prompts}`, `ask` `new_task` | `toolCallStarted` of `use_subagents`, `new_task` |
//! | `say` `api_req_started`: its `request` holds `[<tool> for '…'] Result:` sections | `toolCallCompleted`, or `toolCallFailed` (`The user denied this operation` → `permission_denied`; `Command failed with exit code N` → `exit_code`; `Error executing MCP tool` → `mcp_error`) |
//! | every other `say` and `ask` of the published lists (`text`, `reasoning`, `task`, `completion_result`, `checkpoint_created`, …) | (known, nothing about tools) |
//!
//! A message is identified by its `ts` (epoch milliseconds), which Cline keeps when it
//! rewrites a partial message whole: the call's id is that `ts`. A result goes to the
//! oldest open call of its tool (a header names the model's tool, `read_file`; the
//! message, `readFile`). A result whose call was never shown (a tool that failed while
//! its message was still partial, which `--json` does not print, though the task file
//! keeps the partial message) opens its call, named by the model's tool.

use std::borrow::Cow;

use serde::Deserialize;
use serde_json::{Map, Value, json};
use toolnorm::{JsonObject, Timestamp, meta};

use super::results::{self, Outcome};
use crate::diagnostic::{Diagnostic, DiagnosticKind};
use crate::track::{Ending, Facts, Sighting};

/// One `ClineMessage` (`src/shared/ExtensionMessage.ts`): the fields a tool call needs.
#[derive(Deserialize)]
pub(super) struct Message<'a> {
    /// The message's time, which is also its id.
    #[serde(default)]
    pub ts: Option<u64>,
    /// `say` or `ask`.
    #[serde(borrow, rename = "type", default)]
    pub kind: Option<Cow<'a, str>>,
    #[serde(borrow, default)]
    pub say: Option<Cow<'a, str>>,
    #[serde(borrow, default)]
    pub ask: Option<Cow<'a, str>>,
    #[serde(borrow, default)]
    pub text: Option<Cow<'a, str>>,
    /// Whether the message is still being written.
    #[serde(default)]
    pub partial: Option<bool>,
}

/// The `say` values that carry nothing about tools (`ClineSay`, Cline 3.x extension).
const QUIET_SAYS: &[&str] = &[
    "task",
    "error",
    "error_retry",
    "api_req_finished",
    "text",
    "reasoning",
    "completion_result",
    "user_feedback",
    "user_feedback_diff",
    "api_req_retried",
    "shell_integration_warning",
    "shell_integration_warning_with_suggestion",
    "browser_action_result",
    "mcp_server_request_started",
    "mcp_notification",
    "diff_error",
    "deleted_api_reqs",
    "clineignore_error",
    "command_permission_denied",
    "checkpoint_created",
    "load_mcp_documentation",
    "generate_explanation",
    "info",
    "task_progress",
    "hook_status",
    "hook_output_stream",
    "subagent",
    "subagent_usage",
    "conditional_rules_applied",
    "mcp_server_response",
];

/// The `ask` values that carry nothing about tools (`ClineAsk`).
const QUIET_ASKS: &[&str] = &[
    "plan_mode_respond",
    "act_mode_respond",
    "completion_result",
    "api_req_failed",
    "resume_task",
    "resume_completed_task",
    "mistake_limit_reached",
    "condense",
    "summarize_task",
    "report_bug",
];

/// The model's tool names (in result headers) of a call's name.
fn model_tools(name: &str) -> &'static [&'static str] {
    match name {
        "readFile" => &["read_file"],
        "newFileCreated" => &["write_to_file", "apply_patch"],
        "editedExistingFile" => &["replace_in_file", "write_to_file", "apply_patch"],
        "fileDeleted" => &["apply_patch"],
        "listFilesTopLevel" | "listFilesRecursive" => &["list_files"],
        "listCodeDefinitionNames" => &["list_code_definition_names"],
        "searchFiles" => &["search_files"],
        "webFetch" => &["web_fetch"],
        "webSearch" => &["web_search"],
        "summarizeTask" => &["summarize_task"],
        "useSkill" => &["use_skill"],
        "execute_command" => &["execute_command"],
        "use_mcp_tool" => &["use_mcp_tool"],
        "access_mcp_resource" => &["access_mcp_resource"],
        "ask_followup_question" => &["ask_followup_question"],
        "browser_action" => &["browser_action"],
        "use_subagents" => &["use_subagents"],
        "new_task" => &["new_task"],
        _ => &[],
    }
}

/// The calls of one task, read message by message.
#[derive(Debug, Default)]
pub(super) struct Messages {
    /// The calls shown and not yet ended, oldest first: (id, name).
    open: Vec<(String, String)>,
    /// The ids of the calls that ended (a message rewritten later does not restart one).
    ended: std::collections::BTreeSet<String>,
}

impl Messages {
    /// Reads one message of line `line`.
    pub(super) fn message(&mut self, line: u64, message: Message<'_>, facts: &mut Facts<'_>) {
        let at = message.ts.map(Timestamp::from);
        let id = message.ts.map(|ts| ts.to_string());
        let what = match (message.kind.as_deref(), &message.say, &message.ask) {
            (Some("say"), Some(say), _) => say.as_ref(),
            (Some("ask"), _, Some(ask)) => ask.as_ref(),
            _ => {
                return facts.diagnostic(Diagnostic::notice(
                    line,
                    DiagnosticKind::UnknownEvent,
                    format!(
                        "a Cline message that is neither a `say` nor an `ask` (`type` {})",
                        message.kind.as_deref().unwrap_or("missing")
                    ),
                ));
            }
        };
        let text = message.text.as_deref().unwrap_or_default();
        let sighting = match what {
            "tool" => tool(text),
            "command" => Some(command(text)),
            "command_output" => {
                if let Some((id, _)) = self
                    .open
                    .iter()
                    .rev()
                    .find(|(_, name)| name == "execute_command")
                {
                    facts.streamed_text(line, id, text);
                }
                return;
            }
            "use_mcp_server" => mcp(text),
            "followup" => Some(Sighting::new(
                "",
                "ask_followup_question",
                object_text(text, "question"),
            )),
            "browser_action_launch" => Some(Sighting::new(
                "",
                "browser_action",
                json!({"action": "launch", "url": text}),
            )),
            "browser_action" => Some(Sighting::new(
                "",
                "browser_action",
                object_text(text, "action"),
            )),
            "use_subagents" => Some(Sighting::new(
                "",
                "use_subagents",
                object_text(text, "prompts"),
            )),
            "new_task" => Some(Sighting::new("", "new_task", json!({ "context": text }))),
            "api_req_started" => return self.results(line, text, message.ts, facts),
            quiet if message.say.is_some() && QUIET_SAYS.contains(&quiet) => return,
            quiet if message.ask.is_some() && QUIET_ASKS.contains(&quiet) => return,
            other => {
                return facts.diagnostic(Diagnostic::notice(
                    line,
                    DiagnosticKind::UnknownEvent,
                    format!("unknown Cline message `{other}`"),
                ));
            }
        };
        let Some(mut sighting) = sighting else {
            return facts.diagnostic(Diagnostic::at(
                line,
                DiagnosticKind::MalformedEvent,
                format!("a Cline `{what}` message whose text is not the JSON object it should be"),
            ));
        };
        let Some(id) = id else {
            return facts.diagnostic(Diagnostic::at(
                line,
                DiagnosticKind::MalformedEvent,
                format!("a Cline `{what}` message without its `ts`"),
            ));
        };
        if self.ended.contains(&id) {
            return;
        }
        let mut metadata = JsonObject::new();
        metadata.insert(meta::ITEM_TYPE.into(), what.into());
        if message.partial == Some(true) {
            metadata.insert("partial".into(), true.into());
        }
        sighting.id = id.clone();
        sighting = sighting.metadata(metadata).at(at);
        if !self.open.iter().any(|(open, _)| *open == id) {
            self.open.push((id, sighting.name.clone()));
        }
        facts.sighted(line, sighting);
    }

    /// An `api_req_started` message: the results its request holds end their calls.
    fn results(&mut self, line: u64, text: &str, ts: Option<u64>, facts: &mut Facts<'_>) {
        let at = ts.map(Timestamp::from);
        #[derive(Deserialize)]
        struct Info<'a> {
            #[serde(borrow, default)]
            request: Option<Cow<'a, str>>,
        }
        let request = match serde_json::from_str::<Info<'_>>(text) {
            Ok(info) => info.request.unwrap_or_default(),
            Err(error) => {
                return facts.diagnostic(Diagnostic::at(
                    line,
                    DiagnosticKind::MalformedEvent,
                    format!(
                        "a Cline `api_req_started` message whose text is not its request: {error}"
                    ),
                ));
            }
        };
        if let Some(cwd) = results::cwd(&request)
            && facts.cwd() != Some(cwd)
        {
            facts.set_cwd(cwd);
        }
        for (index, section) in results::sections(&request).into_iter().enumerate() {
            let call = match self.take_open(section.tool) {
                Some(call) => call,
                None => self.open_unseen(line, (ts, index), &section, at.clone(), facts),
            };
            self.ended.insert(call.clone());
            match results::outcome(&section) {
                Outcome::Complete(output) => {
                    facts.complete(line, &call, Some(output), Ending::at(at.clone()))
                }
                Outcome::Failed(error) => facts.fail(line, &call, error, Ending::at(at.clone())),
            }
        }
    }

    /// A result whose call no message showed (a tool that failed while its message was
    /// still partial, which `--json` does not print; a stream joined late): the call is
    /// opened from the section, named by the model's tool, its input the header's target
    /// (Cline's own behaviour, so no notice: the line is read whole). Its id is the
    /// request message's `ts` and the section's place in it.
    fn open_unseen(
        &mut self,
        line: u64,
        (ts, index): (Option<u64>, usize),
        section: &results::Section<'_>,
        at: Option<Timestamp>,
        facts: &mut Facts<'_>,
    ) -> String {
        let id = match ts {
            Some(ts) => format!("{ts}.{index}"),
            None => format!("line{line}.{index}"),
        };
        let mut input = JsonObject::new();
        if let Some(target) = section.target {
            input.insert(results::target_key(section.tool).into(), target.into());
        }
        let mut metadata = JsonObject::new();
        metadata.insert(meta::ITEM_TYPE.into(), "api_req_started".into());
        let sighting = Sighting::new(id.clone(), section.tool, Value::Object(input))
            .metadata(metadata)
            .at(at);
        facts.sighted(line, sighting);
        id
    }

    /// The oldest open call the model's tool `tool` names.
    fn take_open(&mut self, tool: &str) -> Option<String> {
        let index = self
            .open
            .iter()
            .position(|(_, name)| name == tool || model_tools(name).contains(&tool))?;
        Some(self.open.remove(index).0)
    }
}

/// A `tool` message: its JSON text names the tool (`tool`) beside its input.
fn tool(text: &str) -> Option<Sighting> {
    let Value::Object(mut object) = serde_json::from_str::<Value>(text).ok()? else {
        return None;
    };
    let Some(Value::String(name)) = object.remove("tool") else {
        return None;
    };
    Some(Sighting::new("", name, Value::Object(object)))
}

/// A `command` message: the command, with the `REQ_APP` mark of one that asks for
/// approval taken off.
fn command(text: &str) -> Sighting {
    let command = text.strip_suffix("REQ_APP").unwrap_or(text).trim_end();
    Sighting::new("", "execute_command", json!({ "command": command }))
}

/// A `use_mcp_server` message: an MCP tool call or resource read.
fn mcp(text: &str) -> Option<Sighting> {
    #[derive(Deserialize)]
    struct Use {
        #[serde(rename = "type", default)]
        kind: Option<String>,
        #[serde(rename = "serverName", default)]
        server: Option<String>,
        #[serde(rename = "toolName", default)]
        tool: Option<String>,
        #[serde(default)]
        arguments: Option<String>,
        #[serde(default)]
        uri: Option<String>,
    }
    let used: Use = serde_json::from_str(text).ok()?;
    let server = used.server.unwrap_or_default();
    let mut input = Map::new();
    input.insert("server_name".into(), server.clone().into());
    if used.kind.as_deref() == Some("access_mcp_resource") {
        if let Some(uri) = used.uri {
            input.insert("uri".into(), uri.into());
        }
        return Some(Sighting::new(
            "",
            "access_mcp_resource",
            Value::Object(input),
        ));
    }
    let tool = used.tool.unwrap_or_default();
    input.insert("tool_name".into(), tool.clone().into());
    if let Some(arguments) = used.arguments {
        let parsed = serde_json::from_str::<Value>(&arguments).unwrap_or(Value::String(arguments));
        input.insert("arguments".into(), parsed);
    }
    Some(Sighting::new("", "use_mcp_tool", Value::Object(input)).mcp(server, tool))
}

/// A message whose text is a JSON object, or else plain text kept under `key`.
fn object_text(text: &str, key: &str) -> Value {
    match serde_json::from_str::<Value>(text) {
        Ok(Value::Object(object)) => Value::Object(object),
        _ => json!({ key: text }),
    }
}
