//! The Agent Client Protocol vocabulary shared by the ACP emitter and the ACP reader:
//! the kind and status mappings between toolnorm and ACP, and the `_meta` key of
//! toolnorm's own fields.
//!
//! | toolnorm kind | ACP kind | back (no `_meta.toolnorm`) |
//! | --- | --- | --- |
//! | `file_read` | `read` | `read` → `file_read` |
//! | `file_write` | `edit` | `edit` → `file_write` when the name is a write/create tool or every diff is a new file, else `file_edit` |
//! | `file_edit` | `edit` | (as above); `delete`, `move` → `file_edit` |
//! | `bash` | `execute` | `execute` → `bash` |
//! | `web_search` | `search` | `search` → `web_search` when name or title says web, else `file_read` |
//! | `browser` | `fetch` | `fetch` → `web_search` when name or title says search, else `browser` |
//! | `subagent` | `think` | `think` → `subagent` for task/agent tools, `todo` for todo/plan tools, else `unknown` |
//! | `todo` | `think` | (as above) |
//! | `mcp` | `other` | `other` → `subagent` for task tools, `mcp` for MCP names (`mcp__server__tool`, `<server>_<tool>`), `todo` for todo/plan tools, `question` for question tools, else `unknown` |
//! | `question` | `other` | (as above) |
//! | `unknown` | `other` | `switch_mode` → `unknown` |
//!
//! States map one to one: `started` ↔ `pending`, `running` ↔ `in_progress`,
//! `complete` ↔ `completed`, `error` ↔ `failed`.

use serde::de::DeserializeOwned;
use serde::{Deserialize, Deserializer, Serialize};
use serde_json::Value;
use toolnorm::{JsonObject, Timing, ToolError, ToolKind, ToolState};
use toolnorm_wire::acp;

/// The key under `_meta` that holds toolnorm's own fields ([`ToolnormMeta`]).
pub const META_KEY: &str = "toolnorm";

/// `_meta.toolnorm`: what toolnorm's ACP frames carry that ACP has no field for. The
/// emitter writes it (each `tool_call_update` with only the fields that changed); the
/// reader restores the part from it. Read leniently: a field that does not fit is left
/// out, the others still count.
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize)]
#[cfg_attr(feature = "schema", derive(schemars::JsonSchema))]
#[serde(rename_all = "camelCase")]
pub struct ToolnormMeta {
    /// The part's `name`.
    #[serde(
        default,
        skip_serializing_if = "Option::is_none",
        deserialize_with = "lenient"
    )]
    pub tool_name: Option<String>,
    /// The part's `kind`.
    #[serde(
        default,
        skip_serializing_if = "Option::is_none",
        deserialize_with = "lenient"
    )]
    pub kind: Option<ToolKind>,
    /// The part's `error`.
    #[serde(
        default,
        skip_serializing_if = "Option::is_none",
        deserialize_with = "lenient"
    )]
    pub error: Option<ToolError>,
    /// The part's `timing`.
    #[serde(
        default,
        skip_serializing_if = "Option::is_none",
        deserialize_with = "lenient"
    )]
    pub timing: Option<Timing>,
    /// Which frame fields were cut at the output cap, and from how much.
    #[serde(
        default,
        skip_serializing_if = "Option::is_none",
        deserialize_with = "lenient"
    )]
    pub truncated: Option<Truncated>,
    /// The part's `metadata` (in an update: the keys that changed).
    #[serde(
        default,
        skip_serializing_if = "Option::is_none",
        deserialize_with = "lenient"
    )]
    pub metadata: Option<JsonObject>,
    /// Streamed output that arrived since the last frame.
    #[serde(
        default,
        skip_serializing_if = "Option::is_none",
        deserialize_with = "lenient"
    )]
    pub output_appended: Option<OutputChunk>,
}

/// The frame fields cut at the output cap.
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize)]
#[cfg_attr(feature = "schema", derive(schemars::JsonSchema))]
#[serde(rename_all = "camelCase")]
pub struct Truncated {
    /// `rawOutput` was cut.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub raw_output: Option<Truncation>,
    /// The text `content` was cut.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub content: Option<Truncation>,
}

impl Truncated {
    /// Whether nothing was cut.
    pub fn is_empty(&self) -> bool {
        self.raw_output.is_none() && self.content.is_none()
    }
}

/// How much of a field there was, and the cap it was cut at.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[cfg_attr(feature = "schema", derive(schemars::JsonSchema))]
#[serde(rename_all = "camelCase")]
pub struct Truncation {
    /// Bytes before the cut.
    pub total_bytes: u64,
    /// The cap, in bytes.
    pub cap_bytes: u64,
}

/// A chunk of streamed output and where it starts in the call's whole output.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[cfg_attr(feature = "schema", derive(schemars::JsonSchema))]
pub struct OutputChunk {
    /// Byte offset of `chunk`.
    pub offset: u64,
    /// The text.
    pub chunk: String,
}

/// A field read as `T`, or left out when it does not fit.
fn lenient<'de, D: Deserializer<'de>, T: DeserializeOwned>(
    deserializer: D,
) -> Result<Option<T>, D::Error> {
    let value = Value::deserialize(deserializer)?;
    Ok(T::deserialize(value).ok())
}

/// The ACP kind of a toolnorm kind.
pub fn acp_kind(kind: ToolKind) -> acp::ToolKind {
    match kind {
        ToolKind::FileRead => acp::ToolKind::Read,
        ToolKind::FileWrite | ToolKind::FileEdit => acp::ToolKind::Edit,
        ToolKind::Bash => acp::ToolKind::Execute,
        ToolKind::WebSearch => acp::ToolKind::Search,
        ToolKind::Browser => acp::ToolKind::Fetch,
        ToolKind::Subagent | ToolKind::Todo => acp::ToolKind::Think,
        ToolKind::Mcp | ToolKind::Question | ToolKind::Unknown => acp::ToolKind::Other,
    }
}

/// The ACP status of a toolnorm state.
pub fn acp_status(state: ToolState) -> acp::ToolCallStatus {
    match state {
        ToolState::Started => acp::ToolCallStatus::Pending,
        ToolState::Running => acp::ToolCallStatus::InProgress,
        ToolState::Complete => acp::ToolCallStatus::Completed,
        ToolState::Error => acp::ToolCallStatus::Failed,
    }
}

/// The toolnorm state of an ACP status.
pub fn state_of(status: acp::ToolCallStatus) -> ToolState {
    match status {
        acp::ToolCallStatus::Pending => ToolState::Started,
        acp::ToolCallStatus::InProgress => ToolState::Running,
        acp::ToolCallStatus::Completed => ToolState::Complete,
        acp::ToolCallStatus::Failed => ToolState::Error,
    }
}

/// What is known of a foreign call when its kind is decided.
#[derive(Debug, Clone, Copy)]
pub struct Clues<'a> {
    /// The tool name, when the agent gave one.
    pub name: Option<&'a str>,
    /// The title.
    pub title: &'a str,
    /// Whether the call's content has diffs and every one is a new file (no `oldText`).
    pub only_new_files: bool,
    /// Whether the name is an MCP tool's (`mcp__server__tool`, `<server>_<tool>`).
    pub mcp: bool,
}

impl Clues<'_> {
    fn says(&self, words: &[&str]) -> bool {
        let name = self.name.unwrap_or_default().to_ascii_lowercase();
        let title = self.title.to_ascii_lowercase();
        words
            .iter()
            .any(|word| name.contains(word) || title.contains(word))
    }

    fn name_is(&self, names: &[&str]) -> bool {
        self.name.is_some_and(|name| {
            names
                .iter()
                .any(|candidate| name.eq_ignore_ascii_case(candidate))
        })
    }
}

/// The toolnorm kind of a call from an agent that did not send `_meta.toolnorm`.
pub fn kind_of(kind: Option<acp::ToolKind>, clues: Clues<'_>) -> ToolKind {
    const TASK_TOOLS: &[&str] = &[
        "task",
        "agent",
        "subagent",
        "spawnAgent",
        "spawn_agent",
        "spawnSubagent",
        "spawn_subagent",
    ];
    // Codex's ACP adapter titles its subagent calls "Start subagent …".
    let subagent = clues.name_is(TASK_TOOLS)
        || clues
            .title
            .get(..14)
            .is_some_and(|start| start.eq_ignore_ascii_case("start subagent"));
    match kind.unwrap_or(acp::ToolKind::Other) {
        acp::ToolKind::Read => ToolKind::FileRead,
        acp::ToolKind::Edit
            if clues.only_new_files || clues.name_is(&["write", "create", "write_file"]) =>
        {
            ToolKind::FileWrite
        }
        acp::ToolKind::Edit | acp::ToolKind::Delete | acp::ToolKind::Move => ToolKind::FileEdit,
        acp::ToolKind::Execute => ToolKind::Bash,
        acp::ToolKind::Search if clues.says(&["web"]) => ToolKind::WebSearch,
        acp::ToolKind::Search => ToolKind::FileRead,
        acp::ToolKind::Fetch if clues.says(&["search"]) => ToolKind::WebSearch,
        acp::ToolKind::Fetch => ToolKind::Browser,
        acp::ToolKind::Think | acp::ToolKind::Other if subagent => ToolKind::Subagent,
        acp::ToolKind::Other if clues.mcp => ToolKind::Mcp,
        acp::ToolKind::Think | acp::ToolKind::Other if clues.says(&["todo", "plan"]) => {
            ToolKind::Todo
        }
        acp::ToolKind::Other if clues.says(&["question"]) => ToolKind::Question,
        acp::ToolKind::Think | acp::ToolKind::SwitchMode | acp::ToolKind::Other => {
            ToolKind::Unknown
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn states_map_one_to_one() {
        for state in ToolState::ALL {
            assert_eq!(state_of(acp_status(state)), state);
        }
    }

    #[test]
    fn every_kind_maps_and_the_usual_tools_map_back() {
        let clues = |name: &'static str, title: &'static str| Clues {
            name: Some(name),
            title,
            only_new_files: false,
            mcp: name.contains('_'),
        };
        let cases: &[(ToolKind, Clues<'_>)] = &[
            (ToolKind::FileRead, clues("Read", "Read src/main.rs")),
            (ToolKind::FileWrite, clues("Write", "Write a.txt")),
            (ToolKind::FileEdit, clues("Edit", "Edit a.txt")),
            (ToolKind::Bash, clues("Bash", "ls")),
            (ToolKind::WebSearch, clues("WebSearch", "news")),
            (ToolKind::Browser, clues("WebFetch", "Fetch apnews.com")),
            (ToolKind::Subagent, clues("Task", "Research")),
            (ToolKind::Todo, clues("TodoWrite", "Update todos")),
            (ToolKind::Todo, clues("todowrite", "2 todos")),
            (ToolKind::Mcp, clues("mcp__toolbox__echo", "echo")),
            (ToolKind::Question, clues("AskUserQuestion", "Ask")),
            (ToolKind::Unknown, clues("Mystery", "Something")),
        ];
        for (kind, clues) in cases {
            assert_eq!(kind_of(Some(acp_kind(*kind)), *clues), *kind, "{kind}");
        }
        let new_file = Clues {
            name: Some("edit"),
            title: "a.txt",
            only_new_files: true,
            mcp: false,
        };
        assert_eq!(
            kind_of(Some(acp::ToolKind::Edit), new_file),
            ToolKind::FileWrite
        );
        let nothing = Clues {
            name: None,
            title: "t",
            only_new_files: false,
            mcp: false,
        };
        assert_eq!(kind_of(None, nothing), ToolKind::Unknown);
        let spawn = Clues {
            name: Some("spawnAgent"),
            title: "Spawn",
            only_new_files: false,
            mcp: false,
        };
        assert_eq!(
            kind_of(Some(acp::ToolKind::Other), spawn),
            ToolKind::Subagent
        );
        let start = Clues {
            name: None,
            title: "Start subagent: count files",
            only_new_files: false,
            mcp: false,
        };
        assert_eq!(
            kind_of(Some(acp::ToolKind::Think), start),
            ToolKind::Subagent
        );
        let opencode_todo = Clues {
            name: Some("todowrite"),
            title: "2 todos",
            only_new_files: false,
            mcp: false,
        };
        assert_eq!(
            kind_of(Some(acp::ToolKind::Other), opencode_todo),
            ToolKind::Todo
        );
        assert_eq!(
            kind_of(Some(acp::ToolKind::Search), nothing),
            ToolKind::FileRead
        );
    }
}
