//! The facts a provider reports about a call, before the tracker makes events of them.

use serde_json::Value;
use toolnorm::{JsonObject, Timestamp, ToolKind};

/// A call as a provider sees it: first seen, or seen again with fuller data.
#[derive(Debug)]
#[non_exhaustive]
pub struct Sighting {
    /// The provider's call id.
    pub id: String,
    /// The provider's tool name, as given.
    pub name: String,
    /// The MCP server and bare tool name, for MCP tools.
    pub mcp: Option<(String, String)>,
    /// The input so far.
    pub input: Value,
    /// Metadata known at this sight.
    pub metadata: JsonObject,
    /// When it was seen.
    pub at: Option<Timestamp>,
    /// A kind the provider's data decides (it wins over the rules).
    pub kind: Option<ToolKind>,
    /// A title the provider's data decides (it wins over the rules, and input changes do
    /// not recompute it).
    pub title: Option<String>,
    /// The provider's own title, used when no rule gives one.
    pub provided_title: Option<String>,
    /// The metadata is the call's whole metadata as toolnorm itself wrote it (a stream
    /// read back, such as ACP frames with `_meta.toolnorm`): the tracker adds nothing.
    pub restored: bool,
}

impl Sighting {
    /// A sighting of tool `name` with this input and nothing else known yet.
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
            restored: false,
        }
    }

    /// The tool is `tool` of MCP server `server`.
    #[must_use]
    pub fn mcp(mut self, server: impl Into<String>, tool: impl Into<String>) -> Self {
        self.mcp = Some((server.into(), tool.into()));
        self
    }

    /// Metadata known at this sight.
    #[must_use]
    pub fn metadata(mut self, metadata: JsonObject) -> Self {
        self.metadata = metadata;
        self
    }

    /// When it was seen.
    #[must_use]
    pub fn at(mut self, at: Option<Timestamp>) -> Self {
        self.at = at;
        self
    }

    /// The kind, decided by the provider's data rather than the rules.
    #[must_use]
    pub fn kind(mut self, kind: ToolKind) -> Self {
        self.kind = Some(kind);
        self
    }

    /// The title, decided by the provider's data rather than the rules.
    #[must_use]
    pub fn title(mut self, title: impl Into<String>) -> Self {
        self.title = Some(title.into());
        self
    }

    /// The metadata is the call's whole metadata, as toolnorm wrote it.
    #[must_use]
    pub fn restored(mut self) -> Self {
        self.restored = true;
        self
    }

    /// The provider's own title, the fallback when no rule gives one.
    #[must_use]
    pub fn provided_title(mut self, title: Option<String>) -> Self {
        self.provided_title = title;
        self
    }
}

/// What a provider says of a call's end beside its output or error.
#[derive(Debug, Default, Clone)]
#[non_exhaustive]
pub struct Ending {
    /// The final input, when the provider gives it only at the end.
    pub input: Option<Value>,
    /// When it ended.
    pub at: Option<Timestamp>,
    /// The duration the provider measured.
    pub elapsed_ms: Option<u64>,
    /// The end as toolnorm wrote it (a stream toolnorm wrote, read back): the call's
    /// approval, if it had one, came with it, so a refusal asks none.
    pub restored: bool,
}

impl Ending {
    /// An end at `at`, nothing else known.
    pub fn at(at: Option<Timestamp>) -> Self {
        Ending {
            at,
            ..Ending::default()
        }
    }

    /// The final input.
    #[must_use]
    pub fn input(mut self, input: Option<Value>) -> Self {
        self.input = input;
        self
    }

    /// The duration the provider measured.
    #[must_use]
    pub fn elapsed_ms(mut self, elapsed_ms: Option<u64>) -> Self {
        self.elapsed_ms = elapsed_ms;
        self
    }

    /// The end as toolnorm wrote it (see [`Ending::restored`](Self#structfield.restored)).
    #[must_use]
    pub fn restored(mut self) -> Self {
        self.restored = true;
        self
    }
}

/// An open call seen again, as the tracker compares it with the call.
pub(super) struct Sighted<'m> {
    pub input: Value,
    pub at: Option<Timestamp>,
    /// The provider's own title changed.
    pub retitle: bool,
    pub metadata: &'m JsonObject,
}
