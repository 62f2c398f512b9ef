//! Output formats: how the normalizer's changes are written.
//!
//! - `parts`: one `NormalizedToolPart` per line, one per call, written (and flushed) as
//!   soon as the call is terminal; calls still open at the end come last, in first-seen
//!   order.
//! - `updates`: one part snapshot per change, as it happens (flushed per line).
//! - `events`: the canonical event log (replayable with `--provider events`), flushed per
//!   line.
//! - `pretty`: one line per call for people: state, kind, title, elapsed time, flushed as
//!   each call ends; [`Writer::summary`] ends it with the line counts.
//! - `acp`: ACP `session/update` notifications (see [`AcpEmitter`]).
//! - `ai-sdk`: AI SDK UI message stream chunks (see [`AiSdkEmitter`]).
//! - `ag-ui`: AG-UI events (see [`AgUiEmitter`]).
//!
//! Every JSON format writes one JSON value per line; the two UI stream formats can be
//! framed as server-sent events instead ([`Writer::sse`]).

mod acp;
mod ag_ui;
mod ai_sdk;
mod json;
mod ui;

use std::io::{self, Write};

use toolnorm::{AnyToolCall, Fold, NormalizedToolPart, ToolState};

use crate::pipeline::{Stats, Step};
pub use acp::{AcpEmitter, AcpOptions};
pub use ag_ui::AgUiEmitter;
pub use ai_sdk::AiSdkEmitter;
pub use ui::{UI_META_KEY, UiMeta};

/// An output format.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Default)]
#[non_exhaustive]
pub enum Format {
    /// One part per call, when it is terminal (the default).
    #[default]
    Parts,
    /// One part snapshot per change.
    Updates,
    /// The canonical event log.
    Events,
    /// A human view, one line per call.
    Pretty,
    /// ACP `session/update` tool frames.
    Acp,
    /// AI SDK UI message stream chunks.
    AiSdk,
    /// AG-UI events.
    AgUi,
}

impl Format {
    /// Every format.
    pub const ALL: &[Format] = &[
        Format::Parts,
        Format::Updates,
        Format::Events,
        Format::Pretty,
        Format::Acp,
        Format::AiSdk,
        Format::AgUi,
    ];

    /// The name used on the command line, e.g. `parts`.
    pub fn as_str(self) -> &'static str {
        match self {
            Format::Parts => "parts",
            Format::Updates => "updates",
            Format::Events => "events",
            Format::Pretty => "pretty",
            Format::Acp => "acp",
            Format::AiSdk => "ai-sdk",
            Format::AgUi => "ag-ui",
        }
    }

    /// The format with this command-line name.
    pub fn from_name(name: &str) -> Option<Format> {
        Format::ALL
            .iter()
            .copied()
            .find(|format| format.as_str() == name)
    }

    /// A line's worth of help about the format.
    pub fn summary(self) -> &'static str {
        match self {
            Format::Parts => "One part per call, written when the call is terminal",
            Format::Updates => "One part snapshot per change, as it happens",
            Format::Events => "The canonical event log",
            Format::Pretty => "One human-readable line per call",
            Format::Acp => {
                "ACP `session/update` tool frames (`tool_call`, then `tool_call_update`s)"
            }
            Format::AiSdk => "AI SDK UI message stream chunks (`useChat`), one message per session",
            Format::AgUi => "AG-UI events: a run, its tool calls and subagents",
        }
    }

    /// Whether the format needs each applied event (costs a copy per event).
    pub fn needs_events(self) -> bool {
        self == Format::Events
    }

    /// Whether the format can be framed as server-sent events (`ai-sdk`, `ag-ui`).
    pub fn streams_to_ui(self) -> bool {
        matches!(self, Format::AiSdk | Format::AgUi)
    }
}

impl std::fmt::Display for Format {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(self.as_str())
    }
}

/// Writes steps in one format, as `toolnorm normalize --format <format>` does: feed it
/// every [`Step`], then [`finish`](Writer::finish) it with the normalizer's fold (see
/// the crate's example).
pub struct Writer<W: Write> {
    format: Format,
    out: W,
    acp: Option<AcpEmitter>,
    ai_sdk: Option<AiSdkEmitter>,
    ag_ui: Option<AgUiEmitter>,
    sse: bool,
    /// The chunks (events) of the UI stream formats for one step, written at once.
    frames: ui::Frames,
}

impl<W: Write> Writer<W> {
    /// A writer of `format` into `out`.
    pub fn new(format: Format, out: W) -> Self {
        Writer::with_acp(format, AcpOptions::default(), out)
    }

    /// A writer of `format` into `out`, with these options for the `acp` format (its
    /// session id is also the `ai-sdk` message id and the `ag-ui` thread id of calls
    /// that name no session).
    pub fn with_acp(format: Format, acp: AcpOptions, out: W) -> Self {
        let ai_sdk = (format == Format::AiSdk).then(|| AiSdkEmitter::new(&acp.session_id));
        let ag_ui = (format == Format::AgUi).then(|| AgUiEmitter::new(&acp.session_id));
        let acp = (format == Format::Acp).then(|| AcpEmitter::new(acp));
        Writer {
            format,
            out,
            acp,
            ai_sdk,
            ag_ui,
            sse: false,
            frames: ui::Frames::new(false),
        }
    }

    /// Frames the `ai-sdk` and `ag-ui` output as server-sent events: `data: <json>` and a
    /// blank line per value, and for `ai-sdk` a last `data: [DONE]`, as the AI SDK's
    /// `createUIMessageStreamResponse` sends. No effect on the other formats.
    #[must_use]
    pub fn sse(mut self, sse: bool) -> Self {
        self.sse = sse && self.format.streams_to_ui();
        self.frames = ui::Frames::new(self.sse);
        self
    }

    /// Writes what `step` means in this format; every line written is flushed at once.
    pub fn step(&mut self, step: &Step<'_>) -> io::Result<()> {
        let Step::Applied { event, update, .. } = step else {
            return Ok(());
        };
        match self.format {
            Format::Parts if update.call.is_terminal() => {
                self.json_line(&update.call.part_view())?;
                self.out.flush()
            }
            Format::Pretty if update.call.is_terminal() => {
                self.pretty_line(update.call)?;
                self.out.flush()
            }
            Format::Updates => {
                self.json_line(&update.call.part_view())?;
                self.out.flush()
            }
            Format::Events => match event {
                Some(event) => {
                    self.json_line(event)?;
                    self.out.flush()
                }
                None => Ok(()),
            },
            Format::Acp => {
                let view = update.call.part_view();
                let written = match self.acp.as_mut() {
                    Some(acp) => acp.write_line((&view).into(), &mut self.out)?,
                    None => false,
                };
                if written { self.out.flush() } else { Ok(()) }
            }
            Format::AiSdk | Format::AgUi => {
                let view = update.call.part_view();
                let part: acp::Fields<'_> = (&view).into();
                self.frames.clear();
                match (&mut self.ai_sdk, &mut self.ag_ui) {
                    (Some(emitter), _) => emitter.write(part, &mut self.frames)?,
                    (None, Some(emitter)) => emitter.write(part, &mut self.frames)?,
                    (None, None) => {}
                }
                self.ui_frames()
            }
            Format::Parts | Format::Pretty => Ok(()),
        }
    }

    /// Ends the output: in `parts` and `pretty`, writes the calls still open.
    pub fn finish(&mut self, fold: &Fold) -> io::Result<()> {
        let open = fold.calls().filter(|call| !call.is_terminal());
        match self.format {
            Format::Parts => {
                for call in open {
                    self.json_line(&call.part_view())?;
                }
            }
            Format::Pretty => {
                for call in open {
                    self.pretty_line(call)?;
                }
            }
            Format::AiSdk | Format::AgUi => {
                self.frames.clear();
                match (&mut self.ai_sdk, &mut self.ag_ui) {
                    (Some(emitter), _) => emitter.write_finish(&mut self.frames),
                    (None, Some(emitter)) => emitter.write_finish(&mut self.frames),
                    (None, None) => {}
                }
                self.ui_frames()?;
                if self.sse && self.format == Format::AiSdk {
                    self.out.write_all(ui::sse("[DONE]").as_bytes())?;
                }
            }
            Format::Updates | Format::Events | Format::Acp => {}
        }
        self.out.flush()
    }

    /// Ends the `pretty` output with the line counts of the run (`N lines: A applied, …`,
    /// see [`Stats`]) and flushes; writes nothing in the other formats.
    pub fn summary(&mut self, stats: &Stats) -> io::Result<()> {
        if self.format != Format::Pretty {
            return Ok(());
        }
        writeln!(self.out, "{stats}")?;
        self.out.flush()
    }

    /// The underlying writer.
    pub fn into_inner(self) -> W {
        self.out
    }

    /// Writes the frames of a UI stream format a step made, and flushes.
    fn ui_frames(&mut self) -> io::Result<()> {
        if self.frames.is_empty() {
            return Ok(());
        }
        self.out.write_all(&self.frames.bytes)?;
        self.frames.clear();
        self.out.flush()
    }

    fn json_line(&mut self, value: &impl serde::Serialize) -> io::Result<()> {
        serde_json::to_writer(&mut self.out, value)?;
        self.out.write_all(b"\n")
    }

    fn pretty_line(&mut self, call: &AnyToolCall) -> io::Result<()> {
        let part = call.to_part();
        writeln!(self.out, "{}", pretty(&part))
    }
}

/// The human line of a part: `complete  bash       echo hi  (12 ms)`.
pub fn pretty(part: &NormalizedToolPart) -> String {
    let mut line = format!(
        "{:<8}  {:<10}  {}",
        part.state.as_str(),
        part.kind.as_str(),
        first_line(&part.title)
    );
    if let Some(elapsed) = part.timing.as_ref().and_then(|timing| timing.elapsed_ms) {
        line.push_str(&format!("  ({elapsed} ms)"));
    }
    if part.state == ToolState::Error
        && let Some(error) = &part.error
    {
        line.push_str("  — ");
        line.push_str(&first_line(&error.message));
    }
    line
}

/// The first line of `text`, at most 100 characters, with `…` when cut: how a title or
/// an error message is shown on one line.
pub fn first_line(text: &str) -> String {
    let first = text.lines().next().unwrap_or_default();
    let mut short: String = first.chars().take(100).collect();
    if short.len() < text.len() {
        short.push('…');
    }
    short
}
