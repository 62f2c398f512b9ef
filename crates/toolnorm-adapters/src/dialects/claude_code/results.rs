//! Tool results, and what a failed one failed of.
//!
//! A `tool_result` with `is_error` fails its call; the error says why, in this order:
//!
//! | the result | error code |
//! | --- | --- |
//! | a permission check denied the call (see `permissions`) | `permission_denied` |
//! | the user rejected it (`tool_result_meta`, or the CLI's refusal text) | `user_rejected` |
//! | a shell call (kind `bash`) says `Exit code N` | `exit_code`, `details.exitCode` |
//! | the CLI refused to run it (`<tool_use_error>`: unknown tool, invalid input) | `invalid_tool_use` |
//! | an MCP tool (`mcp__server__tool`) failed | `mcp_error` |
//!
//! Server tools (`web_search`, `web_fetch`, MCP connector tools) are answered in the
//! assistant's own message, by `*_tool_result` blocks.
//!
//! A run that ends interrupted (a `result` of subtype `error_during_execution`) with
//! calls no result answered (Amp writes none for the command it was running when
//! cancelled) ends them: each fails with code `interrupted` and the run's error text.

use serde::Serialize;
use serde_json::Value;
use toolnorm::{ErrorCode, Timestamp, ToolError, ToolKind};
use toolnorm_wire::claude_messages as wire;

use super::ClaudeCodeAdapter;
use super::envelope::{Block, Envelope};
use super::permissions::{self, Denial};
use super::result_block::{Content, ToolResult};
use super::tasks::Launch;

/// A user message whose content is text (not blocks).
#[derive(serde::Deserialize)]
struct Notice {
    content: String,
}
use crate::read::json;
use crate::rules::mcp;
use crate::track::MCP_TOOL_FAILED;
use crate::track::{
    Ending, Facts, USER_DECLINED, content_text, exit_code_error, exit_error, is_permission_check,
    text_error, tool_use_error,
};

/// What a `user` message says of all the results it carries.
struct Message {
    at: Option<Timestamp>,
    /// The structured result (`tool_use_result`) when the message has one result.
    launch: Option<Launch>,
    /// `tool_result_meta`: per call, how the CLI decided to run it.
    meta: Vec<Value>,
    /// Transcripts: the permission check refused the message's calls.
    refused: bool,
}

impl Message {
    fn of(envelope: &Envelope<'_>, results: usize) -> Self {
        // The structured result (`tool_use_result`) belongs to the one result of its message.
        let launch = envelope.launch().filter(|_| results == 1);
        let meta: Vec<Value> = envelope
            .tool_result_meta
            .and_then(|raw| serde_json::from_str(raw.get()).ok())
            .unwrap_or_default();
        Message {
            at: envelope.at(),
            launch,
            meta,
            refused: permissions::refused(envelope),
        }
    }

    /// Whether the user rejected call `id` (it was never run).
    fn rejected(&self, id: &str) -> bool {
        self.meta.iter().any(|entry| {
            entry.get("id").and_then(Value::as_str) == Some(id)
                && entry.get("non_execution_kind").and_then(Value::as_str) == Some("user-rejected")
        })
    }
}

impl ClaudeCodeAdapter {
    /// A `user` line: its `tool_result` blocks end their calls.
    pub(super) fn user(
        &mut self,
        line: u64,
        envelope: &Envelope<'_>,
        blocks: Vec<Block<'_>>,
        out: &mut Facts<'_>,
    ) {
        let results: Vec<_> = blocks
            .into_iter()
            .filter(|block| match block {
                Block::ToolResult(_) => true,
                Block::Raw(kind, _) => kind == "tool_result",
                Block::ToolUse(_) | Block::Skipped => false,
            })
            .collect();
        // Transcripts record a background subagent's end as the text of a user message: only
        // a message without tool results (they can be the biggest thing in the stream) is
        // looked at for one.
        if results.is_empty()
            && let Some(message) = envelope
                .message
                .filter(|message| message.get().contains("<task-notification>"))
            && let Ok(Notice { content }) = serde_json::from_str::<Notice>(message.get())
        {
            self.tasks
                .notified_in_text(line, &content, envelope.at(), out);
            return;
        }
        let message = Message::of(envelope, results.len());
        for block in results {
            let result = match block {
                Block::ToolResult(result) => Ok(result),
                Block::Raw(_, raw) => serde_json::from_str::<ToolResult>(raw.get()),
                Block::ToolUse(_) | Block::Skipped => continue,
            };
            match result {
                Ok(result) => self.tool_result(line, result, &message, out),
                Err(error) => out.diagnostic(json::malformed(line, "`tool_result` block", &error)),
            }
        }
    }

    fn tool_result(
        &mut self,
        line: u64,
        result: ToolResult,
        message: &Message,
        out: &mut Facts<'_>,
    ) {
        let id = result.tool_use_id;
        // The host's refusal ended the call: its result (the refusal's message, which the
        // approval holds) adds nothing.
        if self.denials.answered_no(&id) && out.finished(&id).is_some() {
            return;
        }
        if message.refused {
            self.denials.refused(&id);
        }
        // A text result is kept as it came: it can be the biggest thing in the stream.
        let content = result.content.map(Content::into_output);
        let ending = Ending::at(message.at.clone());
        if result.is_error == Some(true) {
            let text = content
                .as_deref()
                .and_then(content_text)
                .unwrap_or_default();
            let failed = Failed {
                amp: self.dialect.as_str() == AMP,
                denial: self.denials.take(&id),
                rejected: message.rejected(&id),
                kind: out.kind(&id),
                mcp: out
                    .name(&id)
                    .is_some_and(|name| mcp::split_double_underscore(name).is_some()),
            };
            out.fail(line, &id, failed.error(&text), ending);
            return;
        }
        if let Some(agent) = message.launch.as_ref().and_then(Launch::agent) {
            self.tasks.ran(agent, &id);
        }
        if let Some(launch) = message
            .launch
            .as_ref()
            .filter(|launch| launch.in_background())
        {
            self.tasks
                .launched(line, &id, launch, message.at.clone(), out);
            return;
        }
        // Amp's `Bash` answers `{"output":…,"exitCode":N}` as text, and leaves `is_error`
        // false for a command that exited non-zero: its output is the `output`, and a
        // non-zero `exitCode` the same failure as Claude Code's `Exit code N`.
        if self.dialect.as_str() == AMP
            && out.kind(&id) == Some(ToolKind::Bash)
            && let Some((code, output)) = content.as_deref().and_then(json_shell_result)
        {
            if code == 0 {
                out.complete(line, &id, Some(output), ending);
            } else {
                out.fail(line, &id, exit_error(code, output), ending);
            }
            return;
        }
        out.complete(line, &id, content, ending);
    }
}

/// The dialect whose `Bash` writes its result as JSON text (`dialects/amp`).
const AMP: &str = "amp";

/// How Amp's results say a call was refused: by a permissions rule (`Rejected by user
/// permissions rule N: …`), or by the user.
const AMP_REJECTED: &str = "Tool execution rejected by user";

/// A shell result written as JSON text with an `exitCode` (Amp's `Bash`): the code and
/// the `output`.
fn json_shell_result(content: &Value) -> Option<(i64, Value)> {
    let text = content.as_str()?.trim_start();
    if !text.starts_with('{') {
        return None;
    }
    let Value::Object(mut object) = serde_json::from_str::<Value>(text).ok()? else {
        return None;
    };
    let code = object.get("exitCode")?.as_i64()?;
    Some((code, object.remove("output").unwrap_or(Value::Null)))
}

/// What is known of a failed call beside its result's text.
#[derive(Debug, Default)]
struct Failed {
    /// It is Amp's (whose refusals say `Tool execution rejected by user`).
    amp: bool,
    /// A permission check denied it.
    denial: Option<Denial>,
    /// The user rejected it (`tool_result_meta`).
    rejected: bool,
    /// Its kind.
    kind: Option<ToolKind>,
    /// It is an MCP server's tool.
    mcp: bool,
}

impl Failed {
    /// The error of a result with this text (see the module's table).
    fn error(self, text: &str) -> ToolError {
        if let Some(denial) = self.denial {
            return denial.error(text);
        }
        // Amp: a call its permission rules refused, or one the user rejected.
        if self.amp
            && let Some(reason) = text.strip_prefix(AMP_REJECTED)
        {
            let code = if reason.contains("permissions rule") {
                ErrorCode::PermissionDenied
            } else {
                ErrorCode::UserRejected
            };
            return text_error(text).with_code(code);
        }
        if self.rejected || text.starts_with(USER_DECLINED) {
            return ToolError::new(text_error(text).message).with_code(ErrorCode::UserRejected);
        }
        if self.kind == Some(ToolKind::Bash)
            && let Some(error) = exit_code_error(text)
        {
            return error;
        }
        // Versions that announce no denial (2.0, 2.1.3x) say so in the result itself.
        if is_permission_check(text) {
            return text_error(text).with_code(ErrorCode::PermissionDenied);
        }
        if let Some(inner) = tool_use_error(text) {
            return text_error(inner).with_code(ErrorCode::InvalidToolUse);
        }
        let error = text_error(text);
        if self.mcp {
            error.with_code(ErrorCode::McpError)
        } else {
            error
        }
    }
}

/// A server tool's result block (`web_search_tool_result`, `web_fetch_tool_result`): an
/// `*_tool_result_error` content is a failure, with the content's `error_code`.
pub(super) fn server_result(
    line: u64,
    id: &str,
    content: &impl Serialize,
    at: Option<Timestamp>,
    out: &mut Facts<'_>,
) {
    let content = serde_json::to_value(content).unwrap_or(Value::Null);
    let error_code = content
        .get("type")
        .and_then(Value::as_str)
        .filter(|kind| kind.ends_with("_error"))
        .and(content.get("error_code").and_then(Value::as_str));
    match error_code {
        Some(code) => {
            let error = ToolError::new(format!("the server tool failed: {code}"))
                .with_code(code)
                .with_details(content.clone());
            out.fail(line, id, error, Ending::at(at));
        }
        None => out.complete(line, id, Some(content), Ending::at(at)),
    }
}

/// An MCP connector tool's result block (`mcp_tool_result`).
pub(super) fn mcp_result(
    line: u64,
    result: wire::BetaMcpToolResultBlock,
    at: Option<Timestamp>,
    out: &mut Facts<'_>,
) {
    let content = serde_json::to_value(&result.content).unwrap_or(Value::Null);
    if result.is_error {
        let message = content_text(&content).unwrap_or_else(|| MCP_TOOL_FAILED.into());
        let error = ToolError::new(message).with_details(content);
        out.fail(line, &result.tool_use_id, error, Ending::at(at));
    } else {
        out.complete(line, &result.tool_use_id, Some(content), Ending::at(at));
    }
}

/// The `result` line that ends a run: a run interrupted (`error_during_execution`, with
/// the reason in `error`, or `errors`) fails every call of its session (`session_id`,
/// else the current one) still open.
pub(super) fn run_ended(line: u64, bytes: &[u8], envelope: &Envelope<'_>, out: &mut Facts<'_>) {
    #[derive(serde::Deserialize)]
    struct RunEnd {
        #[serde(default)]
        error: Option<String>,
        #[serde(default)]
        errors: Option<Vec<Value>>,
        #[serde(default)]
        timestamp: Option<Value>,
    }
    if envelope.subtype.as_deref() != Some("error_during_execution") {
        return;
    }
    let Ok(end) = serde_json::from_slice::<RunEnd>(bytes) else {
        return;
    };
    let listed = end.errors.as_deref().and_then(|errors| {
        let texts: Vec<&str> = errors.iter().filter_map(Value::as_str).collect();
        (!texts.is_empty()).then(|| texts.join("; "))
    });
    let message = end
        .error
        .filter(|error| !error.is_empty())
        .or(listed)
        .unwrap_or_else(|| "the run was interrupted".to_owned());
    let error = ToolError::new(message).with_code(ErrorCode::Other("interrupted".into()));
    let at = end
        .timestamp
        .and_then(|at| serde_json::from_value::<Timestamp>(at).ok());
    let session = envelope.session_id.as_deref();
    out.fail_open_calls_of_session(line, session, &error, &Ending::at(at));
}

#[cfg(test)]
mod tests {
    use serde_json::{Value, json};
    use toolnorm::ToolState;

    use super::super::tests::part;
    use super::*;

    fn code(failed: Failed, text: &str) -> (String, Option<String>) {
        let error = failed.error(text);
        (
            error.message,
            error.code.map(|code| code.as_str().to_owned()),
        )
    }

    fn pair(message: &str, code: Option<&str>) -> (String, Option<String>) {
        (message.to_owned(), code.map(str::to_owned))
    }

    #[test]
    fn a_failure_is_classified_by_what_is_known_first() {
        let bash = || Failed {
            kind: Some(ToolKind::Bash),
            ..Failed::default()
        };
        let exit = "Exit code 3\nchecking";
        assert_eq!(code(bash(), exit), pair("Exit code 3", Some("exit_code")));
        assert_eq!(
            code(Failed::default(), exit),
            pair("Exit code 3", None),
            "only a shell call exits"
        );
        let denied = Failed {
            denial: Some(Denial::default()),
            ..bash()
        };
        assert_eq!(
            code(denied, exit).1.as_deref(),
            Some("permission_denied"),
            "a denial comes first"
        );
        let rejected = Failed {
            rejected: true,
            ..bash()
        };
        assert_eq!(
            code(rejected, exit),
            pair("Exit code 3", Some("user_rejected"))
        );
        let declined = format!("{USER_DECLINED}. The tool use was rejected.\nmore");
        assert_eq!(
            code(Failed::default(), &declined).1.as_deref(),
            Some("user_rejected")
        );
        let invalid = "<tool_use_error>Error: No such tool available: Glob</tool_use_error>";
        assert_eq!(
            code(Failed::default(), invalid),
            pair("No such tool available: Glob", Some("invalid_tool_use"))
        );
        let mcp = Failed {
            mcp: true,
            ..Failed::default()
        };
        assert_eq!(
            code(mcp, "division by zero"),
            pair("division by zero", Some("mcp_error"))
        );
        assert_eq!(code(Failed::default(), "  "), pair("the tool failed", None));
    }

    #[test]
    fn a_server_tool_error_fails_with_its_error_code() {
        let search = json!({"type": "assistant", "message": {"content": [
            {"type": "server_tool_use", "id": "srvtoolu_1", "name": "web_search", "input": {"query": "q"}},
            {"type": "web_search_tool_result", "tool_use_id": "srvtoolu_1",
                "content": {"type": "web_search_tool_result_error", "error_code": "max_uses_exceeded"}}
        ]}});
        let call = part(&[search]);
        assert_eq!(
            (call.name.as_str(), call.title.as_str()),
            ("web_search", "Searching q")
        );
        let error = call.error.unwrap();
        assert_eq!(
            error.code.as_ref().map(ErrorCode::as_str),
            Some("max_uses_exceeded")
        );
    }

    fn calls(names: &[&str]) -> Value {
        let blocks: Vec<Value> = names
            .iter()
            .enumerate()
            .map(|(n, name)| json!({"type": "tool_use", "id": format!("toolu_{n}"), "name": name, "input": {}}))
            .collect();
        json!({"type": "assistant", "message": {"content": blocks}})
    }

    fn results(blocks: Value, fields: Value) -> Value {
        let mut line = json!({"type": "user", "message": {"content": blocks}});
        line.as_object_mut()
            .unwrap()
            .extend(fields.as_object().unwrap().clone());
        line
    }

    #[test]
    fn what_a_message_says_goes_to_the_right_results() {
        let blocks = json!([
            {"type": "tool_result", "tool_use_id": "toolu_0", "content": "launched"},
            {"type": "tool_result", "tool_use_id": "toolu_1", "content": "No.", "is_error": true}
        ]);
        let fields = json!({
            // A structured result names no call: with two results, it is neither's.
            "tool_use_result": {"status": "async_launched", "agentId": "a1"},
            "tool_result_meta": [{"id": "toolu_1", "non_execution_kind": "user-rejected"}]
        });
        let parts =
            super::super::tests::parts(&[calls(&["Agent", "Bash"]), results(blocks, fields)]);
        let states: Vec<ToolState> = parts.iter().map(|part| part.state).collect();
        assert_eq!(states, [ToolState::Complete, ToolState::Error]);
        let error = parts[1].error.as_ref().unwrap();
        assert_eq!(
            (
                error.message.as_str(),
                error.code.as_ref().map(ErrorCode::as_str)
            ),
            ("No.", Some("user_rejected"))
        );
    }
}
