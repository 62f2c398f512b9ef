//! OpenCode's stored sessions, as `opencode export <session>` prints them: one JSON
//! document, `{info, messages: [{info, parts}], todos}`, the session's `Session`, each
//! message's `Message` and its parts, as OpenCode stored them.
//!
//! `opencode export` indents the document over many lines; the pipeline reads such a
//! document as one line (see `pipeline/document.rs`), and a file of several exports, one
//! a line (a session, then its child sessions), reads as one stream. Each stored part is
//! read as the part of a `message.part.updated` event is (the `opencode` dialect's
//! reading), so a call comes out as it ended in the live stream: its last state is the
//! one stored. The session's directory is the working directory. A child session
//! (the `task` tool's) exported after its parent gets `parentToolCallId` as in the live
//! stream; exported alone, it has no parent to name.

use serde::Deserialize;
use serde_json::value::RawValue;
use toolnorm_wire::opencode_export as wire;

use super::OpenCodeAdapter;
use crate::Dialect;
use crate::adapter::Adapter;
use crate::diagnostic::{Diagnostic, DiagnosticKind};
use crate::dialects::Entry;
use crate::read::json;
use crate::read::line_keys::LineKeys;
use crate::track::Facts;

/// The dialect this module reads.
pub(crate) const DIALECT: Dialect = Dialect::new("opencode-export", "opencode");

impl Dialect {
    /// OpenCode's stored sessions, as `opencode export <session>` prints them.
    pub const OPENCODE_EXPORT: Dialect = DIALECT;
}

/// Its row of the dialect table.
pub(crate) const ENTRY: Entry = Entry {
    dialect: DIALECT,
    summary: "OpenCode stored session, as `opencode export <session>` prints it",
    feature: "opencode",
    rules: super::RULES,
    claims,
    adapter: |options| Box::new(OpenCodeExportAdapter::new(options.mcp_servers.clone())),
    // The sessions the serve runs stored, exported (`fixtures/opencode-export/`).
    read_ahead: None,
    recordings: &["opencode-serve"],
    agent_version: "",
    // Its database (OpenCode 1.1x and later), whose sessions the command reads as
    // exports.
    stores: &[crate::Store::at(".local/share/opencode", "opencode.db")
        .or_env_subfolder("XDG_DATA_HOME", "opencode")],
};

/// Whether a line is an export: `info` and `messages` at the top level, and no `type`.
pub(crate) fn claims(keys: &LineKeys<'_>) -> bool {
    !keys.has("type") && !keys.has("method") && keys.has("info") && keys.has("messages")
}

/// The export's envelope, which `opencode-ai` declares in no schema (the CLI's
/// `export` command builds it): the session and its messages.
#[derive(Deserialize)]
struct Export<'a> {
    #[serde(borrow)]
    info: &'a RawValue,
    #[serde(borrow)]
    messages: Vec<StoredMessage<'a>>,
}

/// One message as `Session.messages` returns it: its `Message` and its parts.
#[derive(Deserialize)]
struct StoredMessage<'a> {
    #[serde(borrow)]
    info: &'a RawValue,
    #[serde(borrow, default)]
    parts: Vec<&'a RawValue>,
}

/// Reads `opencode export` documents.
pub struct OpenCodeExportAdapter {
    /// The live stream's reading of a part (tool parts, child sessions, MCP names).
    parts: OpenCodeAdapter,
}

impl OpenCodeExportAdapter {
    /// An adapter using, when known, the configured MCP server names.
    pub fn new(servers: Vec<String>) -> Self {
        OpenCodeExportAdapter {
            parts: OpenCodeAdapter::new(servers),
        }
    }
}

impl Adapter for OpenCodeExportAdapter {
    fn dialect(&self) -> Dialect {
        DIALECT
    }

    fn line(&mut self, line: u64, bytes: &[u8], out: &mut Facts<'_>) {
        let export: Export<'_> = match json::parse_line(line, bytes, "not an OpenCode export") {
            Ok(export) => export,
            Err(diagnostic) => return out.diagnostic(diagnostic),
        };
        match serde_json::from_str::<wire::Session>(export.info.get()) {
            Ok(session) => {
                out.session(&session.id);
                out.set_cwd(session.directory);
            }
            Err(error) => out.diagnostic(json::malformed(line, "session info", &error)),
        }
        for (index, message) in export.messages.into_iter().enumerate() {
            if let Err(error) = serde_json::from_str::<wire::Message>(message.info.get()) {
                out.diagnostic(Diagnostic::at(
                    line,
                    DiagnosticKind::MalformedEvent,
                    format!(
                        "message {index}: {}",
                        json::malformed(line, "message info", &error).message
                    ),
                ));
            }
            for part in message.parts {
                self.parts.part(line, part.get(), out);
            }
        }
    }
}
