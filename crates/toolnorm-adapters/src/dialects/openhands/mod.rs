//! OpenHands: the events of `openhands-ai` 0.x (its CodeAct agent; this module), and
//! those of its agent SDK, which the `openhands` CLI 1.x and `openhands-ai` 1.x run on
//! ([`sdk`], the `openhands-sdk` dialect).
//!
//! `openhands-ai` 0.x keeps the events of a session as its trajectory holds them
//! (`save_trajectory_path`: one JSON array of every event, written indented when the run
//! ends) and as its file store keeps them (`~/.openhands/sessions/<session>/events/<id>.json`,
//! one event a file, without a newline: read joined one a line, in the order of their
//! ids).
//!
//! An event is an action (`{"id", "timestamp", "source", "message", "action", "args",
//! "tool_call_metadata"?, "timeout"?}`) or an observation (`{"id", "timestamp",
//! "source", "message", "cause", "observation", "content", "extras", "success"?,
//! "tool_call_metadata"?}`). An action the model called carries the call in
//! `tool_call_metadata` (`function_name`, `tool_call_id`, and the model's whole
//! response), and so does the observation that answers it, whose `cause` is the action's
//! event id:
//!
//! | event | canonical events |
//! | --- | --- |
//! | an action that runs a tool: `run`, `run_ipython`, `read`, `write`, `edit`, `browse`, `browse_interactive`, `call_tool_mcp`, `delegate`, `think`, `task_tracking` | `toolCallStarted` (named by the model's `tool_call_id` and function, else by its event id and type: a command the user ran) |
//! | an action of the model's that runs nothing: `finish`, `reject`, `condensation_request` | `toolCallStarted`, `toolCallCompleted` (its final thought or outputs) |
//! | the observation whose `cause` is that action (else whose `tool_call_id` names its call) | `toolCallCompleted`, or `toolCallFailed` (see [`outcome`]) |
//! | `message`, `system`, `recall`, `change_agent_state`, `condensation`, …; `agent_state_changed`, `recall`, `null`, … not caused by a call | (known, nothing about tools) |
//!
//! An action of an unknown type that carries `tool_call_metadata` is still a call (with a
//! notice); an observation of a call whose action the input does not hold opens it (with
//! a notice). A call's tool is the function the model called (`execute_bash`,
//! `str_replace_editor`, an MCP tool's own name); `metadata.itemType` is the action's
//! type. An MCP tool's action (`call_tool_mcp`) names no server: such a call is `mcp`
//! unless the rules know its tool. The events say no session id and no version. The
//! stored events' `event_cache/<start>-<end>.json` pages (an array of events on one
//! line) read as a trajectory does.
//!
//! OpenHands publishes Python dataclasses only: the reader reads the fields a call needs
//! with hand-written serde structs (`wire`).

use crate::Dialect;
use crate::dialects::Entry;
use crate::read::line_keys::LineKeys;

mod events;
mod outcome;
pub(crate) mod sdk;
// The tests read every dialect's recordings: they run with all of them.
#[cfg(all(test, feature = "all-dialects"))]
mod tests;
mod wire;

use events::OpenHandsAdapter;

/// The dialect: OpenHands' events.
pub(crate) const DIALECT: Dialect = Dialect::new("openhands", "openhands");

/// Its rules file (the kind and title of each of its tools), as `(origin, TOML text)`.
pub(crate) const RULES: (&str, &str) = (
    "src/dialects/openhands/rules.toml",
    include_str!("rules.toml"),
);

impl Dialect {
    /// OpenHands' events: a saved trajectory, or a session's stored events.
    pub const OPENHANDS: Dialect = DIALECT;
}

/// Its row of the dialect table.
pub(crate) const ENTRY: Entry = Entry {
    dialect: DIALECT,
    summary: "OpenHands trajectory (`save_trajectory_path`) or stored events (`sessions/<id>/events/*.json`, one a line)",
    feature: "openhands",
    rules: RULES,
    claims,
    adapter: |_| Box::<OpenHandsAdapter>::default(),
    read_ahead: None,
    recordings: &[],
    agent_version: "",
    stores: &[],
};

/// Whether a line is an OpenHands event (or a trajectory, whose first event it is): an
/// action with its `args`, or an observation with its `extras` and `content`, each with
/// the `source` every event has. No other agent writes these keys together.
pub(crate) fn claims(keys: &LineKeys<'_>) -> bool {
    if !keys.has("source") || keys.has("type") {
        return false;
    }
    let action = keys.str("action").is_some() && keys.has("args");
    let observation =
        keys.str("observation").is_some() && keys.has("extras") && keys.has("content");
    action || observation
}

/// The action type of an MCP tool's call.
const MCP_ACTION: &str = "call_tool_mcp";

/// The actions that run a tool, each answered by an observation.
const ACTIONS_OBSERVED: &[&str] = &[
    "run",
    "run_ipython",
    "read",
    "write",
    "edit",
    "browse",
    "browse_interactive",
    MCP_ACTION,
    "delegate",
    "think",
    "task_tracking",
];

/// The actions the model calls as tools that run nothing: no observation answers them.
const ACTIONS_UNOBSERVED: &[&str] = &["finish", "reject", "condensation_request"];

/// The actions that are no tool call (a message, the agent's state, the history's
/// condensation, a recall of the workspace's context).
const NON_TOOL_ACTIONS: &[&str] = &[
    "message",
    "system",
    "start",
    "recall",
    "change_agent_state",
    "null",
    "pause",
    "resume",
    "stop",
    "condensation",
    "loop_recovery",
    "push",
    "send_pr",
];

/// The observations that answer a tool's action.
const TOOL_OBSERVATIONS: &[&str] = &[
    "run",
    "run_ipython",
    "read",
    "write",
    "edit",
    "browse",
    "mcp",
    "delegate",
    "think",
    "task_tracking",
    "download",
    "error",
    "user_rejected",
];

/// The observations that are about no call when no call's action caused them.
const NON_TOOL_OBSERVATIONS: &[&str] = &[
    "null",
    "agent_state_changed",
    "recall",
    "chat",
    "message",
    "success",
    "condense",
    "loop_detection",
];
