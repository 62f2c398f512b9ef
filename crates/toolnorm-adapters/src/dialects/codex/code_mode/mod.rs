//! Codex code mode (`[features] code_mode = true`): the model runs a JavaScript script,
//! a custom tool call `exec` whose input calls tools (`await tools.exec_command({…})`,
//! `tools.apply_patch("…")`, `tools.mcp__<server>__<tool>({…})`), and waits for a script
//! that yielded before it ended with `wait` (`{"cell_id": "1", "yield_time_ms": …}`).
//!
//! Only the rollout files record the `exec` and `wait` calls; `codex exec --json` and the
//! app-server show the tools the script called, each as an item of its own (ids
//! `exec-<uuid>`), with nothing that names the `exec` call or its cell, so no dialect
//! links them to it. An `exec` call's result names the cell it started when the script
//! yields (`Script running with cell ID 1`); a `wait` names its cell in its arguments.
//!
//! - `exec`: the kind and title of the first tool the script calls, the title counting
//!   the others (`ls src (+2 more)`); every call in `metadata.scriptCalls`
//!   (`{tool, arguments}`, read by [`script`] without running anything); a script that
//!   calls no tool keeps the rules' `exec` kind and title. `metadata.cellId` once its
//!   result names the cell.
//! - `wait` with a `cell_id`: the continuation of that cell, `metadata.cellId`, and
//!   `metadata.cellCallId` the `exec` call that started it when the file said so; its
//!   kind and title are the rules' (a `wait` of the collaboration tools has no
//!   `cell_id`, and stays a subagent wait).
//! - A message the script sends while it runs (`notify(…)`, a result that names the
//!   `exec` tool and is no script result) is output of the `exec` call (`outputAppended`).
//! - Both end as their result's first line says: `Script completed` or `Script running
//!   with cell ID N` complete the call (with the output after `Output:`), `Script failed`
//!   fails it with the script's error, `Script terminated` fails it as interrupted.

mod scan;
mod script;

use std::collections::HashMap;

use serde_json::{Value, json};
use toolnorm::{JsonObject, ToolError, ToolKind, meta};

use super::items::{ItemFacts, Outcome, item_metadata};
use crate::track::{Facts, Sighting};

pub(super) use script::{ScriptCall, script_calls};

/// The custom tool that runs a script.
pub(super) const EXEC_TOOL: &str = "exec";
/// The function tool that waits for a script's cell.
pub(super) const WAIT_TOOL: &str = "wait";

/// The first line of a script's result when it yielded: the cell that runs on.
const RUNNING_PREFIX: &str = "Script running with cell ID ";

/// How a tool call of a script is seen as a call of its own: the facts the dialect would
/// give a direct call of that tool (`exec_command` a `commandExecution`, …).
pub(super) type DirectCall<'f> = dyn Fn(&ScriptCall) -> ItemFacts + 'f;

/// The facts of an `exec` call with this script.
pub(super) fn exec_facts(
    id: String,
    script: &str,
    direct: &DirectCall<'_>,
    out: &Facts<'_>,
) -> ItemFacts {
    let calls = script_calls(script);
    let mut sighting = Sighting::new(id, EXEC_TOOL, json!({ "input": script }));
    sighting.metadata = item_metadata("custom_tool_call");
    if let Some(first) = calls.first() {
        let (kind, title) = described(&direct(first), out);
        sighting.kind = Some(kind);
        sighting.title = Some(match calls.len() - 1 {
            0 => title,
            more => format!("{title} (+{more} more)"),
        });
    }
    let listed: Vec<Value> = calls
        .into_iter()
        .map(|call| json!({ "tool": call.tool, "arguments": call.arguments }))
        .collect();
    if !listed.is_empty() {
        sighting
            .metadata
            .insert(meta::SCRIPT_CALLS.into(), Value::Array(listed));
    }
    ItemFacts::new(sighting, Outcome::InProgress)
}

/// The kind and title a direct call of the tool gets.
fn described(facts: &ItemFacts, out: &Facts<'_>) -> (ToolKind, String) {
    let sighting = &facts.sighting;
    let mcp = sighting
        .mcp
        .as_ref()
        .map(|(server, bare)| (server.as_str(), bare.as_str()));
    let (kind, title) = out.describe(&sighting.name, mcp, &sighting.input);
    (
        sighting.kind.unwrap_or(kind),
        sighting.title.clone().unwrap_or(title),
    )
}

/// The input a script's call gives its tool: an object as is, a string (a free-form
/// tool's input, as `apply_patch`'s) as `{"input": …}`.
pub(super) fn call_input(call: &ScriptCall) -> Value {
    match &call.arguments {
        Value::Object(_) => call.arguments.clone(),
        Value::Null => json!({}),
        other => json!({ "input": other }),
    }
}

/// The cell a function call waits for, when it is code mode's `wait` (the collaboration
/// tools' `wait` names agents, not a cell).
pub(super) fn waited_cell(name: &str, namespace: Option<&str>, input: &Value) -> Option<String> {
    if name != WAIT_TOOL || namespace.is_some() {
        return None;
    }
    match input.get("cell_id")? {
        Value::String(cell) => Some(cell.clone()),
        Value::Number(cell) => Some(cell.to_string()),
        _ => None,
    }
}

/// Whether a result given for a call is a message the running script sent (`notify(…)`):
/// the CLI names the tool on those (`"name": "exec"`), never on the script's result, and
/// it is no script result. It is output of the call, which goes on.
pub(super) fn is_notice(named: Option<&str>, result: &str) -> bool {
    named == Some(EXEC_TOOL) && script_outcome(result).is_none()
}

/// The cell a script's result says is still running.
fn running_cell(result: &str) -> Option<&str> {
    let first = result.lines().next()?;
    let cell = first.strip_prefix(RUNNING_PREFIX)?.trim();
    (!cell.is_empty()).then_some(cell)
}

/// How a script's call (`exec`, or `wait`) ended, as its result says; `None` when the
/// text is no script result.
fn script_outcome(result: &str) -> Option<Outcome> {
    let (status, rest) = result.split_once('\n').unwrap_or((result, ""));
    // The result's header is an item of its own, joined to the output by a line break.
    let output = rest.split_once("Output:\n").map_or(rest, |(_, output)| {
        output.strip_prefix('\n').unwrap_or(output)
    });
    let status = status.trim();
    if status == "Script completed" || running_cell(status).is_some() {
        return Some(Outcome::Completed(Some(output.into())));
    }
    match status {
        "Script failed" => {
            let message = output
                .split_once("Script error:\n")
                .map_or(output, |(_, error)| error)
                .trim();
            let message = if message.is_empty() {
                "the script failed"
            } else {
                message
            };
            Some(Outcome::Failed(ToolError::new(message)))
        }
        "Script terminated" => Some(Outcome::Failed(
            ToolError::new("the script was terminated").with_code("interrupted"),
        )),
        _ => None,
    }
}

/// The cells of a file: the `exec` call that started each, per session (every thread
/// numbers its cells from 1).
#[derive(Debug, Default)]
pub(super) struct Cells {
    started_by: HashMap<(Option<String>, String), String>,
}

impl Cells {
    /// The facts of a `wait` call for `cell`, linked to the `exec` call that started the
    /// cell in `session` when a result said so.
    pub(super) fn wait_facts(
        &self,
        id: String,
        input: Value,
        cell: String,
        session: Option<&str>,
    ) -> ItemFacts {
        let exec_call = self
            .started_by
            .get(&(session.map(str::to_owned), cell.clone()));
        let mut sighting = Sighting::new(id, WAIT_TOOL, input);
        sighting.metadata = item_metadata("function_call");
        sighting
            .metadata
            .insert(meta::CELL_ID.into(), Value::String(cell));
        if let Some(exec_call) = exec_call {
            sighting
                .metadata
                .insert(meta::CELL_CALL_ID.into(), exec_call.as_str().into());
        }
        ItemFacts::new(sighting, Outcome::InProgress)
    }

    /// How the open call `call_id` ended, when it is a code-mode call (`exec`, `wait`)
    /// and `result` its script's result; an `exec` whose script yielded started the cell
    /// the result names (`metadata.cellId`).
    pub(super) fn result(
        &mut self,
        line: u64,
        session: Option<&str>,
        call_id: &str,
        result: &str,
        out: &mut Facts<'_>,
    ) -> Option<Outcome> {
        let name = out.name(call_id)?;
        if name != EXEC_TOOL && name != WAIT_TOOL {
            return None;
        }
        let is_exec = name == EXEC_TOOL;
        let outcome = script_outcome(result)?;
        if let Some(cell) = running_cell(result).filter(|_| is_exec) {
            self.started_by.insert(
                (session.map(str::to_owned), cell.to_owned()),
                call_id.to_owned(),
            );
            let mut metadata = JsonObject::new();
            metadata.insert(meta::CELL_ID.into(), cell.into());
            out.merge_metadata(line, call_id, metadata);
        }
        Some(outcome)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn results_say_how_scripts_ended() {
        let running = "Script running with cell ID 7\nWall time 1.0 seconds\nOutput:\n";
        assert_eq!(running_cell(running), Some("7"));
        assert!(matches!(
            script_outcome(running),
            Some(Outcome::Completed(_))
        ));
        let done = "Script completed\nWall time 1.1 seconds\nOutput:\n\nhi";
        let Some(Outcome::Completed(Some(output))) = script_outcome(done) else {
            panic!("{:?}", script_outcome(done))
        };
        assert_eq!(output, Value::from("hi"));
        assert_eq!(running_cell(done), None);
        let failed = "Script failed\nWall time 0.1 seconds\nOutput:\n\nScript error:\nTypeError: tools.update_plan is not a function\n";
        let Some(Outcome::Failed(error)) = script_outcome(failed) else {
            panic!("{:?}", script_outcome(failed))
        };
        assert_eq!(
            error.message,
            "TypeError: tools.update_plan is not a function"
        );
        assert!(matches!(
            script_outcome("Script terminated\nWall time 0.0 seconds\nOutput:\n"),
            Some(Outcome::Failed(error)) if error.code.is_some()
        ));
        assert!(script_outcome("Process exited with code 0").is_none());
    }

    #[test]
    fn only_a_wait_with_a_cell_is_code_modes() {
        let cell = json!({ "cell_id": "2", "yield_time_ms": 100 });
        assert_eq!(waited_cell("wait", None, &cell), Some("2".to_owned()));
        assert_eq!(
            waited_cell("wait", None, &json!({ "cell_id": 3 })),
            Some("3".to_owned())
        );
        let agents = json!({ "targets": ["a"], "timeout_ms": 100 });
        assert_eq!(waited_cell("wait", None, &agents), None);
        assert_eq!(waited_cell("wait", Some("collaboration"), &cell), None);
        assert_eq!(waited_cell("wait_agent", None, &cell), None);
    }
}
