//! What adapters share: the calls they have started and not yet finished, and the
//! canonical events that start, refine and finish them.
//!
//! The first sight of a call emits `toolCallStarted`; a later, fuller sight (the complete
//! input after streamed fragments) emits `inputUpdated` and, when the title changes with
//! it, `titleUpdated`. Finishing a call forgets it, so an adapter holds only open calls.

use std::collections::HashMap;
use std::sync::Arc;

use serde_json::Value;
use toolnorm::{
    InputUpdated, JsonObject, MetadataMerged, TitleUpdated, ToolCallCompleted, ToolCallFailed,
    ToolCallRunning, ToolCallStarted, ToolError,
};

use crate::adapter::Emitted;
use crate::describe::{self, Tool};
use crate::titles::TitleRules;

/// A call as first seen.
#[derive(Debug)]
pub struct Sighting {
    /// The provider's call id.
    pub id: String,
    /// The provider's tool name, as given.
    pub name: String,
    /// The MCP server and bare tool name, for MCP tools.
    pub mcp: Option<(String, String)>,
    /// The input so far.
    pub input: Value,
    /// Metadata known at start.
    pub metadata: JsonObject,
    /// When it was seen.
    pub at: Option<toolnorm::Timestamp>,
    /// A kind decided by the adapter from the data (it wins over the rules).
    pub kind: Option<toolnorm::ToolKind>,
    /// A title decided by the adapter from the data (it wins over the rules).
    pub title: Option<String>,
    /// The provider's own title, used when no rule gives one.
    pub provided_title: Option<String>,
}

impl Sighting {
    /// A sighting of `name` with this input and nothing else known yet.
    pub fn new(id: impl Into<String>, name: impl Into<String>, input: Value) -> Self {
        Sighting {
            id: id.into(),
            name: name.into(),
            mcp: None,
            input,
            metadata: JsonObject::new(),
            at: None,
            kind: None,
            title: None,
            provided_title: None,
        }
    }
}

/// The end of a call.
#[derive(Debug, Default)]
pub struct Ending {
    /// The final input, when the provider gives it only at the end.
    pub input: Option<Value>,
    /// When it ended.
    pub at: Option<toolnorm::Timestamp>,
    /// The duration the provider measured.
    pub elapsed_ms: Option<u64>,
}

#[derive(Debug)]
struct OpenCall {
    /// Bytes of output streamed so far (the offset of the next chunk).
    streamed: u64,
    name: String,
    mcp: Option<(String, String)>,
    title: String,
    /// The adapter chose the title: input changes do not recompute it.
    fixed_title: bool,
    /// The provider's own title, the fallback when no rule gives one.
    provided_title: Option<String>,
    input: Value,
}

impl OpenCall {
    fn tool<'a>(&'a self, provider: &'a str) -> Tool<'a> {
        match &self.mcp {
            Some((server, bare)) => Tool {
                provider,
                bare,
                server: Some(server),
            },
            None => Tool {
                provider,
                bare: &self.name,
                server: None,
            },
        }
    }
}

/// The calls one adapter has open.
#[derive(Debug)]
pub struct Calls {
    provider: &'static str,
    rules: Arc<TitleRules>,
    cwd: Option<String>,
    open: HashMap<String, OpenCall>,
}

impl Calls {
    /// No open call yet.
    pub fn new(provider: &'static str, rules: Arc<TitleRules>) -> Self {
        Calls {
            provider,
            rules: Arc::new(rules.for_provider(provider)),
            cwd: None,
            open: HashMap::new(),
        }
    }

    /// Sets the session's working directory (paths in titles are shown relative to it).
    pub fn set_cwd(&mut self, cwd: impl Into<String>) {
        self.cwd = Some(cwd.into());
    }

    /// The session's working directory, when known.
    pub fn cwd(&self) -> Option<&str> {
        self.cwd.as_deref()
    }

    /// Whether the call is open.
    pub fn is_open(&self, id: &str) -> bool {
        self.open.contains_key(id)
    }

    /// The tool name of an open call.
    pub fn name(&self, id: &str) -> Option<&str> {
        self.open.get(id).map(|call| call.name.as_str())
    }

    fn tool<'a>(&'a self, name: &'a str, mcp: Option<(&'a str, &'a str)>) -> Tool<'a> {
        match mcp {
            Some((server, bare)) => Tool {
                provider: self.provider,
                bare,
                server: Some(server),
            },
            None => Tool {
                provider: self.provider,
                bare: name,
                server: None,
            },
        }
    }

    /// A call was seen: starts it, or refines its input and title if it is already open.
    pub fn sighted(&mut self, line: u64, sighting: Sighting, out: &mut Emitted) {
        if let Some(call) = self.open.get_mut(&sighting.id) {
            let retitle =
                sighting.provided_title.is_some() && sighting.provided_title != call.provided_title;
            if retitle {
                call.provided_title = sighting.provided_title;
            }
            self.refine(
                line,
                &sighting.id,
                sighting.input,
                sighting.at,
                retitle,
                out,
            );
            if !sighting.metadata.is_empty() {
                self.merge_metadata(line, &sighting.id, sighting.metadata, out);
            }
            return;
        }
        let mcp = sighting
            .mcp
            .as_ref()
            .map(|(server, bare)| (server.as_str(), bare.as_str()));
        let tool = self.tool(&sighting.name, mcp);
        let kind = sighting
            .kind
            .unwrap_or_else(|| describe::kind(&self.rules, tool, &sighting.input));
        let fixed_title = sighting.title.is_some();
        let title = sighting.title.unwrap_or_else(|| {
            describe::title(
                &self.rules,
                tool,
                &sighting.input,
                self.cwd.as_deref(),
                sighting.provided_title.as_deref(),
            )
        });
        let mut metadata = sighting.metadata;
        metadata.insert("provider".into(), self.provider.into());
        if let Some((server, bare)) = &sighting.mcp {
            let mut names = JsonObject::new();
            names.insert("server".into(), server.as_str().into());
            names.insert("tool".into(), bare.as_str().into());
            metadata.insert("mcp".into(), Value::Object(names));
        }
        out.event(
            line,
            ToolCallStarted {
                id: sighting.id.clone(),
                name: sighting.name.clone(),
                kind,
                title: title.clone(),
                input: sighting.input.clone(),
                metadata: Some(metadata),
                at: sighting.at,
            },
        );
        self.open.insert(
            sighting.id,
            OpenCall {
                streamed: 0,
                name: sighting.name,
                mcp: sighting.mcp,
                title,
                fixed_title,
                provided_title: sighting.provided_title,
                input: sighting.input,
            },
        );
    }

    /// The input of an open call grew or changed: `inputUpdated`, and `titleUpdated` when
    /// the title follows.
    pub fn update_input(
        &mut self,
        line: u64,
        id: &str,
        input: Value,
        at: Option<toolnorm::Timestamp>,
        out: &mut Emitted,
    ) {
        self.refine(line, id, input, at, false, out);
    }

    /// [`Calls::update_input`]; the title is worked out again only when what it depends
    /// on changed (the input, or the provider's own title when `retitle`).
    fn refine(
        &mut self,
        line: u64,
        id: &str,
        input: Value,
        at: Option<toolnorm::Timestamp>,
        retitle: bool,
        out: &mut Emitted,
    ) {
        let Some(call) = self.open.get_mut(id) else {
            return;
        };
        let changed = call.input != input;
        if changed {
            call.input = input;
            out.event(
                line,
                InputUpdated {
                    id: id.to_owned(),
                    input: call.input.clone(),
                    at: at.clone(),
                },
            );
        }
        if call.fixed_title || !(changed || retitle) {
            return;
        }
        let title = describe::title(
            &self.rules,
            call.tool(self.provider),
            &call.input,
            self.cwd.as_deref(),
            call.provided_title.as_deref(),
        );
        if title != call.title {
            call.title = title.clone();
            out.event(
                line,
                TitleUpdated {
                    id: id.to_owned(),
                    title,
                    at,
                },
            );
        }
    }

    /// Metadata for a call (open or not: the fold decides whether it still applies).
    pub fn merge_metadata(&mut self, line: u64, id: &str, metadata: JsonObject, out: &mut Emitted) {
        out.event(
            line,
            MetadataMerged {
                id: id.to_owned(),
                metadata,
                at: None,
            },
        );
    }

    /// A call is executing.
    pub fn running(
        &mut self,
        line: u64,
        id: &str,
        at: Option<toolnorm::Timestamp>,
        out: &mut Emitted,
    ) {
        out.event(
            line,
            ToolCallRunning {
                id: id.to_owned(),
                at,
            },
        );
    }

    /// A chunk of streamed output for an open call (`outputAppended` at the right offset).
    pub fn output(&mut self, line: u64, id: &str, chunk: &str, out: &mut Emitted) {
        let offset = match self.open.get_mut(id) {
            Some(call) => {
                let offset = call.streamed;
                call.streamed += chunk.len() as u64;
                offset
            }
            // Output for a call never started: the fold reports it.
            None => 0,
        };
        out.event(
            line,
            toolnorm::OutputAppended {
                id: id.to_owned(),
                offset,
                chunk: chunk.to_owned(),
                at: None,
            },
        );
    }

    /// The whole output so far, as a provider that resends it reports it: what extends the
    /// output already streamed is appended; a text that does not extend it (the provider
    /// cut or rewrote it) is left for the final output.
    pub fn streamed_text(&mut self, line: u64, id: &str, text: &str, out: &mut Emitted) {
        let Some(call) = self.open.get(id) else {
            return;
        };
        let Ok(seen) = usize::try_from(call.streamed) else {
            return;
        };
        if let Some(fresh) = text.get(seen..).filter(|fresh| !fresh.is_empty()) {
            self.output(line, id, fresh, out);
        }
    }

    /// A call finished with `output`.
    pub fn complete(
        &mut self,
        line: u64,
        id: &str,
        output: Option<Value>,
        ending: Ending,
        out: &mut Emitted,
    ) {
        let title = self.close(id, ending.input.as_ref());
        out.event(
            line,
            ToolCallCompleted {
                id: id.to_owned(),
                output,
                input: ending.input,
                title,
                elapsed_ms: ending.elapsed_ms,
                at: ending.at,
            },
        );
    }

    /// A call failed with `error`.
    pub fn fail(
        &mut self,
        line: u64,
        id: &str,
        error: ToolError,
        ending: Ending,
        out: &mut Emitted,
    ) {
        let title = self.close(id, ending.input.as_ref());
        out.event(
            line,
            ToolCallFailed {
                id: id.to_owned(),
                error,
                input: ending.input,
                title,
                elapsed_ms: ending.elapsed_ms,
                at: ending.at,
            },
        );
    }

    /// Forgets a call that ends; returns the title that goes with its final input, when it
    /// differs from the current one.
    fn close(&mut self, id: &str, input: Option<&Value>) -> Option<String> {
        let title = self.final_title(id, input);
        self.open.remove(id);
        title
    }

    /// The title that goes with a final input, when it differs from the current one.
    fn final_title(&self, id: &str, input: Option<&Value>) -> Option<String> {
        let (call, input) = (self.open.get(id)?, input?);
        // The current title was worked out from the current input.
        if call.fixed_title || call.input == *input {
            return None;
        }
        let title = describe::title(
            &self.rules,
            call.tool(self.provider),
            input,
            self.cwd.as_deref(),
            call.provided_title.as_deref(),
        );
        (title != call.title).then_some(title)
    }
}

/// A command that exited with a non-zero `code`: message `Exit code N`, code `exit_code`,
/// and `details` `{exitCode, output}`, the same in every adapter.
pub fn exit_error(code: i64, output: impl Into<Value>) -> ToolError {
    ToolError::new(format!("Exit code {code}"))
        .with_code("exit_code")
        .with_details(serde_json::json!({ "exitCode": code, "output": output.into() }))
}

/// A failed command reported as text, `Exit code 3\n<output>` (Claude Code's `Bash`, and
/// agents speaking ACP): its [`exit_error`].
pub fn exit_code_error(text: &str) -> Option<ToolError> {
    let rest = text.trim_start().strip_prefix("Exit code ")?;
    let (number, output) = rest.split_once('\n').unwrap_or((rest, ""));
    let code: i64 = number.trim().parse().ok()?;
    Some(exit_error(code, output))
}

/// The message of a tool error given as text: its first non-empty line; the whole text
/// goes to `details.output` when there is more than that line.
pub fn text_error(text: &str) -> ToolError {
    let trimmed = text.trim();
    let first = trimmed.lines().next().unwrap_or_default().trim();
    let message = if first.is_empty() {
        "the tool failed"
    } else {
        first
    };
    let mut error = ToolError::new(message);
    if trimmed.len() > first.len() {
        error.details = Some(serde_json::json!({ "output": trimmed }));
    }
    error
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    #[test]
    fn exit_codes_are_read_from_bash_errors() {
        let error = exit_code_error("Exit code 3\nchecking\ncheck failed").unwrap();
        assert_eq!(error.message, "Exit code 3");
        assert_eq!(error.code, Some(toolnorm::ErrorCode::ExitCode));
        assert_eq!(
            error.details,
            Some(json!({"exitCode": 3, "output": "checking\ncheck failed"}))
        );
        assert!(exit_code_error("File does not exist.").is_none());
    }
}
