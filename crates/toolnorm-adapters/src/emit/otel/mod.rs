//! Parts to OpenTelemetry traces (`--format otel`): OTLP/JSON, one
//! `ExportTraceServiceRequest` per line, as the OTLP file exporter writes it.
//!
//! | part | span |
//! | --- | --- |
//! | a session (`metadata.sessionId`, else `--session-id`, else the stream's first call) | a trace, its id derived from the session (the same session gives the same ids again); an `invoke_agent {provider}` root span, written when the stream ends |
//! | a call, once terminal | an `execute_tool {name}` span, child of the root, written at once |
//! | a subagent's call (`metadata.parentToolCallId`) | a child of the span of the call that spawned it, in that call's trace |
//! | `error` | status `ERROR` with the error's message, `error.type` = its canonical code |
//! | a call still open at the end | its span, status unset, `toolnorm.state` `started` or `running` |
//! | `timing` | the span's start and end; a call without both gets the positions of its events (a millisecond per line from the epoch) and `toolnorm.timing.measured = false` |
//!
//! Each span carries the GenAI attributes (`gen_ai.operation.name`, `gen_ai.tool.name`,
//! `gen_ai.tool.call.id`, `gen_ai.tool.type`, `gen_ai.conversation.id`) and toolnorm's
//! (`toolnorm.kind`, `toolnorm.title`, `toolnorm.state`, `toolnorm.provider`,
//! `toolnorm.dialect`, the MCP server and tool, the approval's status); the input and
//! output only with [`OtelOptions::content`] (`gen_ai.tool.call.arguments`,
//! `gen_ai.tool.call.result`). The resource says `service.name = toolnorm` and the agent.

mod ids;
mod json;
mod span;

use foldhash::HashMap;
use opentelemetry_proto::tonic::collector::trace::v1::ExportTraceServiceRequest;
use opentelemetry_proto::tonic::common::v1::InstrumentationScope;
use opentelemetry_proto::tonic::resource::v1::Resource;
use opentelemetry_proto::tonic::trace::v1::{ResourceSpans, ScopeSpans, Span};
use toolnorm::{Fold, NormalizedToolPart, ToolKind, meta};

use super::acp::Fields;
use super::format::FormatSpec;
use super::writer::{FormatWriter, StepOut, WriterOptions};
use crate::pipeline::Step;
use ids::{SpanId, TraceId};
pub use span::attr;
use span::{Place, SessionSummary, Times};

/// The row of `otel`.
pub(crate) const FORMAT: FormatSpec = FormatSpec {
    name: "otel",
    summary: "OpenTelemetry GenAI spans, OTLP/JSON: one ExportTraceServiceRequest per line",
    needs_events: false,
    takes_session_id: true,
    sse: false,
    sse_terminator: None,
    for_people: false,
    make,
};

fn make(options: &WriterOptions) -> Box<dyn FormatWriter> {
    Box::new(OtelWriter {
        emitter: OtelEmitter::new(options.otel.clone()),
        line: Vec::new(),
    })
}

/// What the spans are made with.
#[derive(Debug, Clone, Default)]
pub struct OtelOptions {
    /// Put each call's input and output on its span (`gen_ai.tool.call.arguments`,
    /// `gen_ai.tool.call.result`). Off by default: they can hold secrets and be large.
    pub content: bool,
    /// The session of calls whose stream names none; without it, their trace is keyed by
    /// the stream's first call.
    pub session_id: Option<String>,
}

/// A session seen: its trace and what its root span will say.
#[derive(Debug)]
struct Session {
    trace: TraceId,
    root: SpanId,
    /// The provider's session id, when the stream said it.
    conversation: Option<String>,
    provider: Option<String>,
    dialect: Option<&'static str>,
    /// The earliest start and latest end of its calls' stated times.
    stated: Option<(u64, u64)>,
    /// The earliest start and latest end of its calls' times as positions.
    positions: Option<(u64, u64)>,
    /// Whether every call's start and end were stated.
    measured: bool,
    calls: u64,
    failed: u64,
}

/// Where a call belongs: its session, its span and its parent's.
#[derive(Debug, Clone, Copy)]
struct Placed {
    session: usize,
    span: SpanId,
    parent: SpanId,
}

/// A call seen: where it belongs, and the positions of its first and last events.
#[derive(Debug, Clone, Copy)]
struct Seen {
    /// Where it belongs as far as known: set when it ends, or, for a subagent call (a
    /// possible parent), at each snapshot until a child or its end settles it.
    place: Option<Placed>,
    /// Whether `place` is final.
    settled: bool,
    first: u64,
    last: u64,
    /// When the last call of its subagent ended, if it spawned one (0 until then).
    children_end: u64,
}

/// Turns part snapshots into OpenTelemetry spans: one `execute_tool` span per call once
/// it is terminal, and an `invoke_agent` root span per session at the end.
///
/// ```
/// use toolnorm::{Completion, ToolCall, ToolKind};
/// use toolnorm_adapters::{OtelEmitter, OtelOptions};
///
/// let mut emitter = OtelEmitter::new(OtelOptions::default());
/// let call = ToolCall::start("t1", "Bash", ToolKind::Bash).with_title("ls");
/// assert!(emitter.part(&call.to_part()).is_none());
/// let done = call.complete(Completion::with_output("a.txt"));
/// let request = emitter.part(&done.to_part()).unwrap();
/// let span = &request.resource_spans[0].scope_spans[0].spans[0];
/// assert_eq!(span.name, "execute_tool Bash");
/// let roots = emitter.finish(&[]);
/// assert_eq!(roots[0].resource_spans[0].scope_spans[0].spans[0].name, "invoke_agent");
/// ```
#[derive(Debug)]
pub struct OtelEmitter {
    options: OtelOptions,
    sessions: Vec<Session>,
    by_key: HashMap<String, usize>,
    /// Calls open, and subagent calls (their children may come later).
    calls: HashMap<String, Seen>,
    /// The session key of calls that name none, once one was seen.
    unnamed: Option<String>,
    /// The session the last call without a parent was placed in.
    last_session: Option<usize>,
    /// Snapshots handed to [`part`](Self::part): their positions.
    position: u64,
    /// The stream's dialect, once known.
    dialect: Option<&'static str>,
    /// The version of the agent that wrote the stream, once it said it.
    agent_version: Option<String>,
}

impl OtelEmitter {
    /// An emitter with these options.
    pub fn new(options: OtelOptions) -> Self {
        OtelEmitter {
            options,
            sessions: Vec::new(),
            by_key: HashMap::default(),
            calls: HashMap::default(),
            unnamed: None,
            last_session: None,
            position: 0,
            dialect: None,
            agent_version: None,
        }
    }

    /// Names the dialect the stream was read as (`toolnorm.dialect`).
    pub fn set_dialect(&mut self, dialect: &'static str) {
        self.dialect = Some(dialect);
    }

    /// Names the version of the agent that wrote the stream (`toolnorm.agent.version` of
    /// the resource and the session's root span).
    pub fn set_agent_version(&mut self, version: &str) {
        if self.agent_version.as_deref() != Some(version) {
            self.agent_version = Some(version.to_owned());
        }
    }

    /// The request that carries `part`'s span once it is terminal; `None` while it is
    /// open. Feed every snapshot: the first one places the call.
    pub fn part(&mut self, part: &NormalizedToolPart) -> Option<ExportTraceServiceRequest> {
        self.position += 1;
        let position = self.position;
        self.call(&Fields::from(part), position)
    }

    /// Ends the stream: the spans of the calls still open (`open`, their last snapshots)
    /// and each session's root span, one request per session.
    pub fn finish(&mut self, open: &[NormalizedToolPart]) -> Vec<ExportTraceServiceRequest> {
        let position = self.position;
        self.end(open.iter().map(Fields::from), position)
    }

    /// The request that carries the span of the call `step` changed, once that call is
    /// terminal (the normalizer's steps: an unmeasured call's times are its lines).
    pub fn step(&mut self, step: &Step<'_>) -> Option<ExportTraceServiceRequest> {
        let Step::Applied {
            line,
            dialect,
            agent_version,
            update,
            ..
        } = step
        else {
            return None;
        };
        if self.dialect.is_none() {
            self.set_dialect(dialect.as_str());
        }
        if let Some(version) = agent_version {
            self.set_agent_version(version);
        }
        let view = update.call.part_view();
        self.call(&Fields::from(&view), *line)
    }

    /// Ends the normalizer's stream: the spans of the calls `fold` holds open, and each
    /// session's root span, one request per session.
    pub fn finish_fold(&mut self, fold: &Fold) -> Vec<ExportTraceServiceRequest> {
        let views: Vec<_> = fold
            .calls()
            .filter(|call| !call.is_terminal())
            .map(|call| call.part_view())
            .collect();
        let last = self.position;
        self.end(views.iter().map(Fields::from), last)
    }

    /// The request of `call`'s span when it is terminal, its events having reached
    /// `position`.
    fn call(&mut self, call: &Fields<'_>, position: u64) -> Option<ExportTraceServiceRequest> {
        self.position = self.position.max(position);
        self.observe(call, position);
        if !call.state.is_terminal() {
            return None;
        }
        let (seen, placed) = self.settle(call);
        if call.kind != ToolKind::Subagent {
            self.calls.remove(call.id);
        }
        let span = self.span(call, seen, placed);
        Some(self.request(placed.session, vec![span]))
    }

    /// The spans of the calls still open, then every session's root span.
    fn end<'a>(
        &mut self,
        open: impl Iterator<Item = Fields<'a>>,
        position: u64,
    ) -> Vec<ExportTraceServiceRequest> {
        let mut spans: Vec<Vec<Span>> = vec![Vec::new(); self.sessions.len()];
        for call in open {
            self.observe(&call, position);
            let (seen, placed) = self.settle(&call);
            let span = self.span(&call, seen, placed);
            if spans.len() <= placed.session {
                spans.resize_with(placed.session + 1, Vec::new);
            }
            if let Some(session) = spans.get_mut(placed.session) {
                session.push(span);
            }
        }
        let mut requests = Vec::new();
        for (index, mut session_spans) in spans.into_iter().enumerate() {
            let Some(session) = self.sessions.get(index) else {
                continue;
            };
            let (start, end) = session.stated.or(session.positions).unwrap_or((0, 0));
            let times = Times {
                start,
                end,
                measured: session.measured && session.stated.is_some(),
                stated: session.stated.is_some(),
            };
            let summary = SessionSummary {
                conversation: session.conversation.as_deref(),
                provider: session.provider.as_deref(),
                dialect: session.dialect.or(self.dialect),
                agent_version: self.agent_version.as_deref(),
                calls: session.calls,
                failed: session.failed,
            };
            session_spans.push(span::session_span(
                session.trace,
                session.root,
                times,
                &summary,
            ));
            requests.push(self.request(index, session_spans));
        }
        requests
    }

    /// The span of `call`, counted in its session.
    fn span(&mut self, call: &Fields<'_>, seen: Seen, placed: Placed) -> Span {
        let times = span::times(call, seen.first, seen.last, seen.children_end);
        let parent = call
            .metadata
            .text(meta::PARENT_TOOL_CALL_ID)
            .and_then(|id| self.calls.get_mut(id));
        if let Some(parent) = parent
            && times.stated
        {
            parent.children_end = parent.children_end.max(times.end);
        }
        let dialect = self.dialect;
        let Some(session) = self.sessions.get_mut(placed.session) else {
            return Span::default();
        };
        session.calls += 1;
        if call.state == toolnorm::ToolState::Error {
            session.failed += 1;
        }
        session.measured &= times.measured;
        match times.stated {
            true => widen(&mut session.stated, times),
            false => widen(&mut session.positions, times),
        }
        let place = Place {
            trace: session.trace,
            span: placed.span,
            parent: placed.parent,
        };
        span::call_span(call, place, times, dialect, self.options.content)
    }

    /// Notes a snapshot of `call` at `position`. A call is placed when first seen, since
    /// any call may turn out to be a parent (a subagent's, a code-mode program's); a
    /// subagent call not yet settled is placed again (its parent or session may have come
    /// with it).
    fn observe(&mut self, call: &Fields<'_>, position: u64) {
        let (settled, first) = match self.calls.get_mut(call.id) {
            Some(seen) => {
                seen.last = position;
                (seen.settled, false)
            }
            None => {
                let seen = Seen {
                    place: None,
                    settled: false,
                    first: position,
                    last: position,
                    children_end: 0,
                };
                self.calls.insert(call.id.to_owned(), seen);
                (false, true)
            }
        };
        if first || (call.kind == ToolKind::Subagent && !settled) {
            let known = self.calls.get(call.id).and_then(|seen| seen.place);
            let placed = self.place(call, known);
            if let Some(seen) = self.calls.get_mut(call.id) {
                seen.place = Some(placed);
            }
        }
    }

    /// Where `call` (observed) belongs, for good: placed now unless it was settled.
    fn settle(&mut self, call: &Fields<'_>) -> (Seen, Placed) {
        let position = self.position;
        let mut seen = self.calls.get(call.id).copied().unwrap_or(Seen {
            place: None,
            settled: false,
            first: position,
            last: position,
            children_end: 0,
        });
        if let (true, Some(placed)) = (seen.settled, seen.place) {
            return (seen, placed);
        }
        let placed = self.place(call, seen.place);
        seen.place = Some(placed);
        seen.settled = true;
        match self.calls.get_mut(call.id) {
            Some(stored) => *stored = seen,
            None => {
                self.calls.insert(call.id.to_owned(), seen);
            }
        }
        (seen, placed)
    }

    /// Where `call` belongs now: under its parent when the parent was placed (which
    /// settles the parent), else under its session's root. Its span id is that of its
    /// place `known` before, when in the same session (a digest less per call).
    fn place(&mut self, call: &Fields<'_>, known: Option<Placed>) -> Placed {
        let text = |key: &str| call.metadata.text(key);
        let parent = text(meta::PARENT_TOOL_CALL_ID)
            .and_then(|id| self.calls.get_mut(id))
            .and_then(|parent| {
                parent.settled |= parent.place.is_some();
                parent.place
            });
        let (session, parent) = match parent {
            Some(parent) => (parent.session, parent.span),
            None => {
                let session = self.session(call, text(meta::SESSION_ID), text(meta::PROVIDER));
                let root = self
                    .sessions
                    .get(session)
                    .map(|s| s.root)
                    .unwrap_or_default();
                (session, root)
            }
        };
        let span = match known {
            Some(known) if known.session == session => known.span,
            _ => {
                let trace = self
                    .sessions
                    .get(session)
                    .map(|session| session.trace)
                    .unwrap_or_default();
                ids::call_span_id(&trace, call.id)
            }
        };
        Placed {
            session,
            span,
            parent,
        }
    }

    /// The session of a call with no parent seen: by its provider session id, else the
    /// one given, else the stream's first call.
    fn session(
        &mut self,
        call: &Fields<'_>,
        conversation: Option<&str>,
        provider: Option<&str>,
    ) -> usize {
        // Most calls are of the session the last one was placed in: found by its id,
        // without making its key.
        let named = conversation.or(self.options.session_id.as_deref());
        if let Some(last) = self.last_session
            && named.is_some()
            && self
                .sessions
                .get(last)
                .and_then(|s| s.conversation.as_deref())
                == named
        {
            return last;
        }
        let key = match (conversation, &self.options.session_id) {
            (Some(id), _) => format!("session:{id}"),
            (None, Some(id)) => format!("session:{id}"),
            (None, None) => self
                .unnamed
                .get_or_insert_with(|| format!("call:{}", call.id))
                .clone(),
        };
        if let Some(&index) = self.by_key.get(&key) {
            self.last_session = Some(index);
            return index;
        }
        let trace = ids::trace_id(&key);
        let index = self.sessions.len();
        self.sessions.push(Session {
            trace,
            root: ids::session_span_id(&trace),
            conversation: conversation
                .or(self.options.session_id.as_deref())
                .map(str::to_owned),
            provider: provider.map(str::to_owned),
            dialect: self.dialect,
            stated: None,
            positions: None,
            measured: true,
            calls: 0,
            failed: 0,
        });
        self.by_key.insert(key, index);
        self.last_session = Some(index);
        index
    }

    /// One request: the session's resource and the spans.
    fn request(&self, session: usize, spans: Vec<Span>) -> ExportTraceServiceRequest {
        let session = self.sessions.get(session);
        let mut attributes = vec![span::string("service.name", "toolnorm")];
        if let Some(provider) = session.and_then(|session| session.provider.as_deref()) {
            attributes.push(span::string(attr::AGENT_NAME, provider));
        }
        if let Some(version) = &self.agent_version {
            attributes.push(span::string(attr::AGENT_VERSION, version));
        }
        if let Some(dialect) = session.and_then(|session| session.dialect).or(self.dialect) {
            attributes.push(span::string(attr::DIALECT, dialect));
        }
        ExportTraceServiceRequest {
            resource_spans: vec![ResourceSpans {
                resource: Some(Resource {
                    attributes,
                    ..Resource::default()
                }),
                scope_spans: vec![ScopeSpans {
                    scope: Some(InstrumentationScope {
                        name: "toolnorm".to_owned(),
                        ..InstrumentationScope::default()
                    }),
                    spans,
                    schema_url: String::new(),
                }],
                schema_url: String::new(),
            }],
        }
    }
}

/// Every span of `requests`, in order (each request holds one session's).
pub fn spans_of(
    requests: impl IntoIterator<Item = ExportTraceServiceRequest>,
) -> impl Iterator<Item = Span> {
    requests
        .into_iter()
        .flat_map(|request| request.resource_spans)
        .flat_map(|resource| resource.scope_spans)
        .flat_map(|scope| scope.spans)
}

/// Widens `range` to hold `times`.
fn widen(range: &mut Option<(u64, u64)>, times: Times) {
    let (start, end) = range.get_or_insert((times.start, times.end));
    *start = (*start).min(times.start);
    *end = (*end).max(times.end);
}

/// The writer of `otel`.
struct OtelWriter {
    emitter: OtelEmitter,
    /// The line being written (kept between lines: its room is reused).
    line: Vec<u8>,
}

impl FormatWriter for OtelWriter {
    fn step(&mut self, step: &Step<'_>, out: &mut StepOut<'_>) -> std::io::Result<()> {
        match self.emitter.step(step) {
            Some(request) => json::line(&mut self.line, out, &request),
            None => Ok(()),
        }
    }

    fn finish(&mut self, fold: &Fold, out: &mut StepOut<'_>) -> std::io::Result<()> {
        for request in self.emitter.finish_fold(fold) {
            json::line(&mut self.line, out, &request)?;
        }
        Ok(())
    }
}

#[cfg(test)]
mod tests;
