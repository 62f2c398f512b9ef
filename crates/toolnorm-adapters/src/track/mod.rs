//! The call tracker: provider facts in, canonical events out.
//!
//! A provider module only says what its wire data means for a call: it was sighted, its
//! input was refined, output streamed, it ended with an output or an error. [`Facts`] is
//! how it says so, and the one place those facts become canonical
//! [`ToolEvent`](toolnorm::ToolEvent)s, the same way for every provider:
//!
//! - the first sight of a call is `toolCallStarted`, with kind and title from the rules
//!   (unless the provider's data decides them), `metadata.provider` and `metadata.mcp`;
//! - a later, fuller sight (the complete input after streamed fragments) is
//!   `inputUpdated`, and `titleUpdated` when the title follows the input;
//! - streamed output is `outputAppended` at the byte offset the call has reached;
//! - the end is `toolCallCompleted` / `toolCallFailed`, with the title of the final input.
//!
//! The tracker keeps no copy of what the fold holds (name, title, input, output streamed
//! so far): it reads the call back from the fold. It keeps only what the fold has no
//! place for, and only for the open calls that have it: the MCP split of the tool name,
//! the provider's own title, and whether the provider fixed the title.

mod approval;
mod arguments;
mod ending;
mod fact;
mod failure;
mod output;
mod question;
mod redaction;
mod sessions;

pub use output::content_text;
pub(crate) use question::answer;

use foldhash::HashMap;
use std::sync::Arc;

use serde_json::Value;
use toolnorm::meta;
use toolnorm::{
    AnyToolCall, InputUpdated, JsonObject, MetadataMerged, TitleUpdated, ToolCallStarted,
    ToolEvent, ToolKind, ToolState,
};

pub use approval::option_kind;
pub use arguments::arguments_from_text;
use fact::Sighted;
pub use fact::{Ending, Sighting};
pub use failure::{
    MCP_TOOL_FAILED, USER_DECLINED, exit_code_error, exit_error, is_permission_check, is_refusal,
    text_error, tool_use_error,
};
use sessions::Sessions;

use crate::diagnostic::Diagnostic;
use crate::rules::TitleRules;
use crate::rules::describe::{self, Tool};

/// Where the tracker's events go, and where the calls they built are read back.
pub(crate) trait Sink {
    /// Applies one canonical event made from input line `line`.
    fn apply(&mut self, line: u64, event: ToolEvent);
    /// Counts an event that would change nothing (a duplicate), as applying it would,
    /// without it being made.
    fn unchanged(&mut self);
    /// The call with this id, as the fold holds it.
    fn call(&self, id: &str) -> Option<&AnyToolCall>;
    /// Reports a problem with the input.
    fn diagnostic(&mut self, diagnostic: Diagnostic);
    /// The final state of a call that finished, whether or not the fold still holds it.
    fn finished(&self, id: &str) -> Option<ToolState>;
    /// The ids of the calls the fold holds open, in the order they started.
    fn open_ids(&self) -> Vec<String>;
    /// The version of the agent that wrote the stream, as a line says it.
    fn agent_version(&mut self, version: &str) {
        let _ = version;
    }
}

/// What the tracker knows of an open call that the fold does not hold.
#[derive(Debug, Default)]
struct Extras {
    /// The MCP server and bare tool name.
    mcp: Option<(String, String)>,
    /// The provider chose the title: input changes do not recompute it.
    fixed_title: bool,
    /// The provider's own title, the fallback when no rule gives one.
    provided_title: Option<String>,
}

impl Extras {
    fn is_empty(&self) -> bool {
        self.mcp.is_none() && !self.fixed_title && self.provided_title.is_none()
    }
}

/// The tracker of one stream: the rules, the session's working directory, its sessions,
/// and the [`Extras`] of its open calls.
#[derive(Debug)]
pub(crate) struct Tracker {
    provider: &'static str,
    rules: Arc<TitleRules>,
    /// Every provider's rules, for a dialect that carries other providers' tools (ACP).
    all_rules: TitleRules,
    cwd: Option<String>,
    sessions: Sessions,
    extras: HashMap<String, Extras>,
    /// Redaction, when the normalizer redacts.
    redaction: Option<redaction::Redaction>,
}

impl Tracker {
    /// A tracker for `provider`'s calls (the name its rules and `metadata.provider` use).
    pub fn new(provider: &'static str, rules: &TitleRules) -> Self {
        Tracker {
            provider,
            rules: Arc::new(rules.for_provider(provider)),
            all_rules: rules.clone(),
            cwd: None,
            sessions: Sessions::default(),
            extras: HashMap::default(),
            redaction: None,
        }
    }
}

impl Tracker {
    /// Sets the session's working directory (until the stream names its own).
    pub fn set_cwd(&mut self, cwd: &str) {
        self.cwd = Some(cwd.to_owned());
    }

    /// The session's working directory, as the stream (or the reader's options) said it.
    pub fn cwd(&self) -> Option<&str> {
        self.cwd.as_deref()
    }

    /// `f` of the rules that can match `provider`'s tools.
    fn with_rules_of<R>(&self, provider: &str, f: impl FnOnce(&TitleRules) -> R) -> R {
        if provider == self.provider {
            return f(&self.rules);
        }
        // The whole set, as it is: a rule of another provider never matches a call of
        // this one, so it gives what the set of this provider's rules would (a stream with
        // several providers' calls compiles every built-in file once, and makes no set).
        f(self.all_rules.whole())
    }

    /// Redacts every event with `redactor` before it is applied.
    pub fn redact(&mut self, redactor: Arc<crate::Redactor>) {
        self.redaction = Some(redaction::Redaction::new(redactor));
    }
}

/// What a provider says about the calls of one input line: the facts, turned into
/// canonical events as they are said, and the diagnostics.
///
/// An [`Adapter`](crate::Adapter) gets one for each line it reads.
pub struct Facts<'a> {
    tracker: &'a mut Tracker,
    sink: &'a mut dyn Sink,
}

impl<'a> Facts<'a> {
    pub(crate) fn new(tracker: &'a mut Tracker, sink: &'a mut dyn Sink) -> Self {
        Facts { tracker, sink }
    }

    /// Notes the version of the agent that wrote the stream, as a line states it (the
    /// `otel` format's resource carries it).
    pub fn agent_version(&mut self, version: &str) {
        let version = version.trim();
        if !version.is_empty() {
            self.sink.agent_version(version);
        }
    }

    /// Applies an event, redacted first when the normalizer redacts.
    fn emit(&mut self, line: u64, event: ToolEvent) {
        self.emit_event(line, event, false);
    }

    /// Applies an event; `redacted` says its chunk is redacted already.
    fn emit_event(&mut self, line: u64, event: ToolEvent, redacted: bool) {
        match self.tracker.redaction.as_mut() {
            None => self.sink.apply(line, event),
            Some(redaction) => {
                for event in redaction.prepare(event, redacted) {
                    self.sink.apply(line, event);
                }
            }
        }
    }

    /// Sets the session's working directory (paths in titles are shown relative to it).
    pub fn set_cwd(&mut self, cwd: impl Into<String>) {
        self.tracker.cwd = Some(cwd.into());
    }

    /// The session's working directory, when known.
    pub fn cwd(&self) -> Option<&str> {
        self.tracker.cwd.as_deref()
    }

    /// The call, when it is open (started and not finished).
    fn open(&self, id: &str) -> Option<&AnyToolCall> {
        self.sink.call(id).filter(|call| !call.is_terminal())
    }

    /// The call as the fold holds it (open, or finished and not yet dropped).
    pub fn call(&self, id: &str) -> Option<&AnyToolCall> {
        let id = self.part_id(id);
        let id: &str = &id;
        self.sink.call(id)
    }

    /// The final state of a call that finished (also after the fold dropped it).
    pub fn finished(&self, id: &str) -> Option<ToolState> {
        let id = self.part_id(id);
        let id: &str = &id;
        self.sink.finished(id)
    }

    /// Whether the call is open (started and not finished).
    pub fn is_open(&self, id: &str) -> bool {
        let id = self.part_id(id);
        let id: &str = &id;
        self.open(id).is_some()
    }

    /// The tool name of an open call.
    pub fn name(&self, id: &str) -> Option<&str> {
        let id = self.part_id(id);
        let id: &str = &id;
        self.open(id).map(AnyToolCall::name)
    }

    /// Whether `tool` is one of the provider's built-in tools, as its rules list them.
    pub fn is_builtin(&self, tool: &str) -> bool {
        self.tracker.rules.knows(self.tracker.provider, tool)
    }

    /// Whether `tool` is one of `provider`'s built-in tools (any provider's, for a dialect
    /// that carries other providers' tools, as ACP does).
    pub fn is_builtin_of(&self, provider: &str, tool: &str) -> bool {
        // The whole set names a tool built-in only by a rule of that provider.
        self.builtin_providers(tool).any(|owner| owner == provider)
    }

    /// The providers whose built-in tool `tool` is, as their rules list them, in rule
    /// order (one may come more than once): for a dialect whose calls may be of any
    /// provider's tools (ACP), one lookup rather than one [`is_builtin_of`] per provider.
    ///
    /// [`is_builtin_of`]: Self::is_builtin_of
    pub fn builtin_providers<'t>(&'t self, tool: &'t str) -> impl Iterator<Item = &'t str> {
        self.tracker.all_rules.whole().builtin_providers(tool)
    }

    /// The title the rules give a call of `provider`'s `tool` (`server` for an MCP tool),
    /// with paths relative to `cwd`: the first rule whose template resolves, no fallback.
    pub fn rules_title(
        &self,
        provider: &str,
        tool: &str,
        server: Option<&str>,
        input: &Value,
        cwd: Option<&str>,
    ) -> Option<String> {
        let tool = crate::rules::ToolRef {
            provider,
            tool,
            server,
            input,
            cwd,
        };
        self.tracker
            .with_rules_of(provider, |rules| rules.title(&tool))
    }

    /// The kind and title the rules give a call of this provider's tool `name` (an MCP
    /// tool: its server and bare name in `mcp`) with `input`, as a call opened now gets.
    pub fn describe(
        &self,
        name: &str,
        mcp: Option<(&str, &str)>,
        input: &Value,
    ) -> (toolnorm::ToolKind, String) {
        let tool = self.tool_named(name, mcp);
        describe::kind_and_title(
            &self.tracker.rules,
            tool,
            input,
            self.tracker.cwd.as_deref(),
            None,
        )
    }

    /// Reports a problem with the line.
    pub fn diagnostic(&mut self, diagnostic: Diagnostic) {
        self.sink.diagnostic(diagnostic);
    }

    /// A canonical event, as is (for dialects that already speak in events).
    pub fn event(&mut self, line: u64, event: impl Into<ToolEvent>) {
        self.emit(line, event.into());
    }

    /// Who the tool of an open call is, for the rules.
    fn tool<'t>(&'t self, name: &'t str, extras: Option<&'t Extras>) -> Tool<'t> {
        let mcp = extras
            .and_then(|extras| extras.mcp.as_ref())
            .map(|(server, bare)| (server.as_str(), bare.as_str()));
        self.tool_named(name, mcp)
    }

    /// Who a tool is, for the rules: the MCP server's tool (`(server, bare)`), else `name`.
    fn tool_named<'t>(&'t self, name: &'t str, mcp: Option<(&'t str, &'t str)>) -> Tool<'t> {
        let (server, bare) = match mcp {
            Some((server, bare)) => (Some(server), bare),
            None => (None, name),
        };
        Tool {
            provider: self.tracker.provider,
            bare,
            server,
        }
    }

    /// The title of an open call for `input`, unless the provider fixed it.
    fn title_for(&self, id: &str, input: Option<&Value>) -> Option<String> {
        let call = self.open(id)?;
        let extras = self.tracker.extras.get(id);
        if extras.is_some_and(|extras| extras.fixed_title) {
            return None;
        }
        let title = describe::title(
            &self.tracker.rules,
            self.tool(call.name(), extras),
            input.unwrap_or(call.input()),
            self.tracker.cwd.as_deref(),
            extras.and_then(|extras| extras.provided_title.as_deref()),
        );
        (title != call.title()).then_some(title)
    }

    /// A call was seen: starts it, or refines its input and title if it is already open.
    pub fn sighted(&mut self, line: u64, mut sighting: Sighting) {
        if let Some(id) = self.sighted_id(&sighting.id) {
            if !sighting.restored && self.sink.call(&id).is_none() {
                sighting
                    .metadata
                    .insert(meta::RAW_ID.into(), sighting.id.as_str().into());
            }
            sighting.id = id;
        }
        if self.open(&sighting.id).is_some() {
            return self.seen_again(line, sighting);
        }
        let tracker = &mut *self.tracker;
        let mcp = sighting
            .mcp
            .as_ref()
            .map(|(server, bare)| (server.as_str(), bare.as_str()));
        let tool = match mcp {
            Some((server, bare)) => Tool {
                provider: tracker.provider,
                bare,
                server: Some(server),
            },
            None => Tool {
                provider: tracker.provider,
                bare: &sighting.name,
                server: None,
            },
        };
        let fixed_title = sighting.title.is_some();
        let (kind, title) = match (sighting.kind, sighting.title) {
            (Some(kind), Some(title)) => (kind, title),
            (Some(kind), None) => (
                kind,
                describe::title(
                    &tracker.rules,
                    tool,
                    &sighting.input,
                    tracker.cwd.as_deref(),
                    sighting.provided_title.as_deref(),
                ),
            ),
            (None, Some(title)) => (describe::kind(&tracker.rules, tool, &sighting.input), title),
            (None, None) => describe::kind_and_title(
                &tracker.rules,
                tool,
                &sighting.input,
                tracker.cwd.as_deref(),
                sighting.provided_title.as_deref(),
            ),
        };
        let mut metadata = sighting.metadata;
        if !sighting.restored {
            metadata.insert(meta::PROVIDER.into(), tracker.provider.into());
            if let Some((session, _)) = &tracker.sessions.current
                && !session.is_empty()
            {
                metadata.insert(meta::SESSION_ID.into(), session.as_str().into());
            }
            if let Some((server, bare)) = &sighting.mcp {
                let mut names = JsonObject::new();
                names.insert(meta::MCP_SERVER.into(), server.as_str().into());
                names.insert(meta::MCP_TOOL.into(), bare.as_str().into());
                metadata.insert(meta::MCP.into(), Value::Object(names));
            }
        }
        let extras = Extras {
            mcp: sighting.mcp,
            fixed_title,
            provided_title: sighting.provided_title,
        };
        if extras.is_empty() {
            tracker.extras.remove(&sighting.id);
        } else {
            tracker.extras.insert(sighting.id.clone(), extras);
        }
        let id = sighting.id.clone();
        let question = kind == ToolKind::Question;
        self.emit(
            line,
            ToolCallStarted {
                id: sighting.id,
                name: sighting.name,
                kind,
                title,
                input: sighting.input.into(),
                metadata: (!metadata.is_empty()).then_some(metadata),
                at: sighting.at,
            }
            .into(),
        );
        // Only a question call has questions to note (its kind is the one just given).
        if !sighting.restored && question {
            self.note_questions(line, &id, None, None);
        }
    }

    /// An open call seen again: its input, the provider's title and metadata refined.
    fn seen_again(&mut self, line: u64, sighting: Sighting) {
        let known = self
            .tracker
            .extras
            .get(&sighting.id)
            .and_then(|extras| extras.provided_title.as_ref());
        let retitle =
            sighting.provided_title.is_some() && sighting.provided_title.as_ref() != known;
        if retitle {
            self.tracker
                .extras
                .entry(sighting.id.clone())
                .or_default()
                .provided_title = sighting.provided_title;
        }
        let sighted = Sighted {
            input: sighting.input,
            at: sighting.at,
            retitle,
            metadata: &sighting.metadata,
        };
        let unchanged = self.refine(line, &sighting.id, sighted);
        if sighting.metadata.is_empty() {
            return;
        }
        // Metadata the call holds already, seen again with nothing else new, would change
        // nothing: it counts as the duplicate it would be, without being made and applied
        // (a redacted stream compares what it redacted, so its events are made).
        if unchanged && self.tracker.redaction.is_none() {
            return self.sink.unchanged();
        }
        self.merge_metadata(line, &sighting.id, sighting.metadata);
    }

    /// The input of an open call grew or changed: `inputUpdated`, and `titleUpdated` when
    /// the title follows.
    pub fn update_input(
        &mut self,
        line: u64,
        id: &str,
        input: Value,
        at: Option<toolnorm::Timestamp>,
    ) {
        let id = self.part_id(id);
        let id: &str = &id;
        let sighted = Sighted {
            input,
            at,
            retitle: false,
            metadata: &JsonObject::new(),
        };
        self.refine(line, id, sighted);
    }

    /// [`Facts::update_input`]; the title is worked out again only when what it depends
    /// on changed (the input, or the provider's own title when `retitle`).
    ///
    /// Whether nothing changed: the input is the call's, the title stays, and the call
    /// holds every entry of the sighting's metadata.
    fn refine(&mut self, line: u64, id: &str, sighted: Sighted<'_>) -> bool {
        let Sighted {
            input,
            at,
            retitle,
            metadata,
        } = sighted;
        let Some(call) = self.open(id) else {
            return false;
        };
        let changed = *call.input() != input;
        let held = metadata
            .iter()
            .all(|(key, value)| call.metadata().get(key) == Some(value));
        let question = call.kind() == ToolKind::Question;
        if changed {
            self.emit(
                line,
                InputUpdated {
                    id: id.to_owned(),
                    input: input.into(),
                    at: at.clone(),
                }
                .into(),
            );
            if question {
                self.note_questions(line, id, None, None);
            }
        }
        if !(changed || retitle) {
            return held;
        }
        if let Some(title) = self.title_for(id, None) {
            self.emit(
                line,
                TitleUpdated {
                    id: id.to_owned(),
                    title,
                    at,
                }
                .into(),
            );
        }
        false
    }

    /// The provider retitled an open call: `titleUpdated`, and the title is the provider's
    /// from now on.
    pub fn set_title(&mut self, line: u64, id: &str, title: String) {
        let id = self.part_id(id);
        let id: &str = &id;
        if !self.is_open(id) {
            return;
        }
        self.tracker
            .extras
            .entry(id.to_owned())
            .or_default()
            .fixed_title = true;
        self.emit(
            line,
            TitleUpdated {
                id: id.to_owned(),
                title,
                at: None,
            }
            .into(),
        );
    }

    /// Metadata for a call (open or not: the fold decides whether it still applies).
    pub fn merge_metadata(&mut self, line: u64, id: &str, metadata: JsonObject) {
        let id = self.part_id(id);
        let id: &str = &id;
        self.emit(
            line,
            MetadataMerged {
                id: id.to_owned(),
                metadata,
                at: None,
            }
            .into(),
        );
    }
}

impl Facts<'_> {
    /// The kind of an open call, as its rules (or the provider's data) decided it.
    pub fn kind(&self, id: &str) -> Option<toolnorm::ToolKind> {
        let id = self.part_id(id);
        let id: &str = &id;
        self.open(id).map(AnyToolCall::kind)
    }
}
