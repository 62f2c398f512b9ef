//! Parts to the AI SDK's UI message stream (`ai` 7): the chunks `useChat` and
//! `readUIMessageStream` fold into a message's `dynamic-tool` parts.
//!
//! Per call, from successive snapshots of its part:
//!
//! | part | chunks |
//! | --- | --- |
//! | first seen | `tool-input-start` (`dynamic: true`, `toolName`, `title`, `toolMetadata`) |
//! | `started`, input grew | `tool-input-delta` with the new argument text (a changed title, metadata or an input that does not extend the text sent restarts it: `tool-input-start`, then the whole text) |
//! | `running` (or terminal), input, title or metadata new | `tool-input-available` |
//! | approval requested (`metadata.approval`) | `tool-input-available` if not sent yet, then `tool-approval-request` (`approvalId` = `<call id>:approval`, `reason`, `isAutomatic` when a policy or a reviewer already decided) |
//! | approval decided | `tool-approval-response` (`approved`, `reason` = the decision's feedback) |
//! | `complete` | `tool-output-available` with `output` (`null` when the call completed without one: the chunk requires the key) |
//! | `error`, refused (`permission_denied`, `user_rejected`, or its approval denied or cancelled) | `tool-input-available` carrying the error in `toolMetadata`, then `tool-output-denied` |
//! | `error`, otherwise | `tool-output-error` with `errorText` = `error.message` |
//!
//! Whatever the chunks have no field for (kind, error code and details, timing,
//! metadata) travels in `toolMetadata.toolnorm` (see [`UiMeta`]), sent whole with every
//! chunk that has the field.
//!
//! Calls are grouped into assistant messages, one per session: a `start` chunk
//! (`messageId` = the part's `metadata.sessionId`, or the configured session id) opens
//! it, a `finish` chunk closes it when the next session begins or the stream ends. A
//! subagent's calls (`metadata.parentToolCallId`) go to the message of the call that
//! spawned them. When a session comes back after another one, its calls continue in a
//! new message (`<session>~<n>`), re-opened there with `tool-input-start`; a snapshot
//! that shows nothing new (streamed output, which the chunks do not carry) writes no
//! chunk, so it neither closes the open message nor sends its call again.
//!
//! So `readUIMessageStream` gives a call that asks `approval-requested`, then
//! `approval-responded`, then `output-available`, `output-error` or `output-denied`.
//!
//! No chunk of a call repeats the one before it: a snapshot writes only what changed.

use foldhash::HashMap;
use serde_json::Value;
use toolnorm::{
    Approval, ApprovalStatus, DecidedBy, NormalizedToolPart, Payload, ToolKind, ToolState,
};

use super::acp::Fields;
use super::format::FormatSpec;
use super::frames::Frames;
use super::json::{Object, json};
use super::ui::{
    UiEmitter, approval_of, is_denial, meta_differs, open_json, parent_of, session_of, ui_writer,
    write_meta,
};

/// What a call looks like in the stream, as last sent.
#[derive(Debug)]
struct Sent {
    /// The message (stretch) the call was opened in.
    stretch: u64,
    /// The argument text sent while the input streams.
    text: String,
    /// The input, title and `toolMetadata` (as JSON text) of the last `tool-input-*`
    /// chunk.
    input: Option<Payload>,
    title: String,
    meta: Vec<u8>,
    /// Whether `tool-input-available` was sent (the input is complete).
    available: bool,
    /// How far the call's approval was sent.
    approval: ApprovalSent,
}

/// How far a call's approval was sent.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum ApprovalSent {
    /// Not asked.
    No,
    /// `tool-approval-request` sent.
    Requested,
    /// `tool-approval-response` sent too.
    Responded,
}

/// Turns part snapshots into AI SDK UI message chunks.
///
/// ```
/// use toolnorm::{Completion, ToolCall, ToolKind};
/// use toolnorm_adapters::AiSdkEmitter;
///
/// let mut emitter = AiSdkEmitter::new("session-1");
/// let call = ToolCall::start("t1", "Bash", ToolKind::Bash).with_title("ls");
/// let chunks = emitter.part(&call.to_part());
/// assert_eq!(chunks[0]["type"], "start");
/// assert_eq!(chunks[1]["type"], "tool-input-start");
/// let done = call.complete(Completion::with_output("a.txt"));
/// let chunks = emitter.part(&done.to_part());
/// assert_eq!(chunks.last().unwrap()["type"], "tool-output-available");
/// assert_eq!(emitter.finish()[0]["type"], "finish");
/// ```
#[derive(Debug)]
pub struct AiSdkEmitter {
    session_id: String,
    /// The open message: its session key and stretch number.
    current: Option<(String, u64)>,
    stretches: u64,
    /// How many messages each session key had.
    seen: HashMap<String, u64>,
    /// Open calls.
    calls: HashMap<String, Sent>,
    /// The session key of each subagent call, for its children.
    subagents: HashMap<String, String>,
    /// The `toolMetadata` of the snapshot being written, as JSON text.
    meta: Vec<u8>,
    /// The buffer the chunks of [`part`](Self::part) and [`finish`](Self::finish) are written in.
    buffer: Vec<u8>,
}

impl AiSdkEmitter {
    /// An emitter whose calls without a `metadata.sessionId` belong to `session_id`.
    pub fn new(session_id: impl Into<String>) -> Self {
        AiSdkEmitter {
            session_id: session_id.into(),
            current: None,
            stretches: 0,
            seen: HashMap::default(),
            calls: HashMap::default(),
            subagents: HashMap::default(),
            meta: Vec::new(),
            buffer: Vec::new(),
        }
    }

    /// The chunks for a new snapshot of `part` (none when nothing the stream shows
    /// changed). Feed it the changes the normalizer reports, in order.
    pub fn part(&mut self, part: &NormalizedToolPart) -> Vec<Value> {
        let mut frames = Frames::held(std::mem::take(&mut self.buffer));
        let written = self.write(Fields::from(part), &mut frames);
        let values = if written.is_ok() {
            frames.values()
        } else {
            Vec::new()
        };
        self.buffer = frames.into_buffer();
        values
    }

    /// The chunks that end the stream: `finish` of the open message.
    pub fn finish(&mut self) -> Vec<Value> {
        let mut frames = Frames::held(std::mem::take(&mut self.buffer));
        self.write_finish(&mut frames);
        let values = frames.values();
        self.buffer = frames.into_buffer();
        values
    }

    /// Writes the chunks for a new snapshot of `part` into `frames`.
    pub(crate) fn write(
        &mut self,
        part: Fields<'_>,
        frames: &mut Frames<'_>,
    ) -> serde_json::Result<()> {
        let key = self.key(&part);
        if part.kind == ToolKind::Subagent {
            self.subagents.insert(part.id.to_owned(), key.clone());
        }
        let id = part.id;
        let mut meta = std::mem::take(&mut self.meta);
        meta.clear();
        write_meta(&mut meta, &part, false)?;
        // A call sent in a message that is no longer the open one is re-opened in a new
        // message only when the snapshot shows something new: one that changes nothing
        // the chunks carry (streamed output, a key they leave out) would otherwise close
        // the open message and send the call again, unchanged, in a new one.
        let open = self.current.as_ref().map(|(_, stretch)| *stretch);
        let elsewhere = self.calls.get(id).filter(|sent| Some(sent.stretch) != open);
        if elsewhere.is_some_and(|sent| !shows_change(sent, &part, &meta)) {
            self.meta = meta;
            return Ok(());
        }
        let stretch = self.enter(&key, frames);
        let written = self.write_call(&part, stretch, &meta, frames);
        if meta.capacity() > 1 << 16 {
            meta = Vec::new();
        }
        self.meta = meta;
        if part.state.is_terminal() {
            self.calls.remove(id);
        }
        written
    }

    fn write_call(
        &mut self,
        part: &Fields<'_>,
        stretch: u64,
        meta: &[u8],
        frames: &mut Frames<'_>,
    ) -> serde_json::Result<()> {
        let id = part.id;
        let fresh = self
            .calls
            .get(id)
            .is_none_or(|sent| sent.stretch != stretch);
        if fresh {
            input_start(frames, part, meta);
            self.calls.insert(
                id.to_owned(),
                Sent {
                    stretch,
                    text: String::new(),
                    input: None,
                    title: part.title.to_owned(),
                    meta: meta.to_vec(),
                    available: false,
                    approval: ApprovalSent::No,
                },
            );
        }
        let Some(sent) = self.calls.get_mut(id) else {
            return Ok(());
        };
        let approval = approval_of(part);
        let denied = ends_denied(part, approval.as_deref());
        if part.state == ToolState::Started && !sent.available {
            stream_input(frames, part, meta, sent, fresh);
        } else if input_changes(sent, part, meta, denied) {
            input_available(frames, part, meta)?;
            sent.available = true;
            if !denied {
                // The input changed after the approval was asked (an agent that asks
                // before it tells the call's input): the approval chunks again, which
                // take the part back to its approval state.
                sent.approval = ApprovalSent::No;
            }
            if !part.state.is_terminal() {
                // A terminal call is forgotten at once: nothing compares with it again.
                sent.input = Some(part.input.clone());
                part.title.clone_into(&mut sent.title);
                sent.meta.clear();
                sent.meta.extend_from_slice(meta);
            }
        }
        if let Some(approval) = &approval {
            write_approval(frames, part, meta, sent, approval)?;
        }
        match part.state {
            ToolState::Complete => frames.object(|chunk| {
                tool_chunk(chunk, "tool-output-available", id);
                // The chunk's `output` is required (the SDK's schema rejects a chunk
                // without one, and its client then drops the rest of the stream): a
                // call that completed without output has `null`.
                match part.output {
                    Some(output) => chunk.payload("output", output),
                    None => chunk.raw("output", b"null"),
                }
                chunk.raw("dynamic", b"true");
                chunk.raw("toolMetadata", meta);
                Ok(())
            }),
            ToolState::Error if denied => frames.object(|chunk| {
                tool_chunk(chunk, "tool-output-denied", id);
                Ok(())
            }),
            ToolState::Error => frames.object(|chunk| {
                tool_chunk(chunk, "tool-output-error", id);
                let message = part.error.map_or("", |error| error.message.as_str());
                chunk.str("errorText", message);
                chunk.raw("dynamic", b"true");
                chunk.raw("toolMetadata", meta);
                Ok(())
            }),
            ToolState::Started | ToolState::Running => Ok(()),
        }
    }

    /// Writes the chunks that end the stream: `finish` of the open message.
    pub(crate) fn write_finish(&mut self, frames: &mut Frames<'_>) {
        if self.current.take().is_some() {
            frames.raw(br#"{"type":"finish"}"#);
        }
    }

    /// The session key of a part: its parent subagent's, its own session's, or the
    /// configured one.
    fn key(&self, part: &Fields<'_>) -> String {
        if let Some(key) = parent_of(part).and_then(|parent| self.subagents.get(parent)) {
            return key.clone();
        }
        if let Some(sent) = self.calls.get(part.id)
            && let Some((key, stretch)) = &self.current
            && sent.stretch == *stretch
        {
            return key.clone();
        }
        session_of(part).unwrap_or(&self.session_id).to_owned()
    }

    /// Makes `key`'s message the open one (closing another, opening a new one) and
    /// returns its stretch number.
    fn enter(&mut self, key: &str, frames: &mut Frames<'_>) -> u64 {
        if let Some((open, stretch)) = &self.current
            && open == key
        {
            return *stretch;
        }
        self.write_finish(frames);
        self.stretches += 1;
        let count = self.seen.entry(key.to_owned()).or_insert(0);
        let count = {
            *count += 1;
            *count
        };
        let _ = frames.object(|chunk| {
            chunk.str("type", "start");
            chunk.key("messageId");
            match count {
                1 => json(chunk.out(), key),
                n => json(chunk.out(), &format!("{key}~{n}")),
            }
            Ok(())
        });
        self.current = Some((key.to_owned(), self.stretches));
        self.stretches
    }
}

/// Whether the snapshot `part` (with `meta`, its `toolMetadata`) shows something new of a
/// call last sent as `sent`: an end (a terminal part always does), a grown or rewritten
/// streaming input, or a changed input, title or metadata.
fn shows_change(sent: &Sent, part: &Fields<'_>, meta: &[u8]) -> bool {
    if part.state.is_terminal() {
        return true;
    }
    if part.state == ToolState::Started && !sent.available {
        return sent.title != part.title
            || meta_differs(meta, &sent.meta)
            || open_json(part.input) != sent.text;
    }
    input_changes(
        sent,
        part,
        meta,
        ends_denied(part, approval_of(part).as_deref()),
    )
}

/// Whether a `tool-input-available` is due: the input was not marked complete yet, or
/// its input, title or metadata changed (a terminal part's metadata travels with its end
/// chunk, except a refusal's, whose end chunk has no field for it).
///
/// Once the call's approval was asked, a change of metadata alone of an open call sends
/// nothing: a `tool-input-available` would take the call back from its approval state
/// until its end, whose chunk carries the metadata.
/// `denied`: the part ends refused (see [`ends_denied`]).
fn input_changes(sent: &Sent, part: &Fields<'_>, meta: &[u8], denied: bool) -> bool {
    let meta_due = match part.state.is_terminal() {
        true => denied,
        false => sent.approval == ApprovalSent::No,
    };
    !sent.available
        || sent.input.as_ref() != Some(part.input)
        || sent.title != part.title
        || meta_due && meta_differs(meta, &sent.meta)
}

/// Whether the part ends refused: a refusal's error code, or its approval denied or
/// withdrawn.
fn ends_denied(part: &Fields<'_>, approval: Option<&Approval>) -> bool {
    is_denial(part)
        || approval.is_some_and(|approval| {
            matches!(
                approval.status,
                ApprovalStatus::Denied | ApprovalStatus::Cancelled
            )
        })
}

/// The approval chunks not sent yet: the request (after the complete input it is about),
/// then the response once decided.
fn write_approval(
    frames: &mut Frames<'_>,
    part: &Fields<'_>,
    meta: &[u8],
    sent: &mut Sent,
    approval: &Approval,
) -> serde_json::Result<()> {
    let approval_id = format!("{}:approval", part.id);
    if sent.approval == ApprovalSent::No {
        if !sent.available {
            input_available(frames, part, meta)?;
            sent.available = true;
            sent.input = Some(part.input.clone());
            part.title.clone_into(&mut sent.title);
            sent.meta.clear();
            sent.meta.extend_from_slice(meta);
        }
        let automatic = !approval.is_pending()
            && matches!(
                approval.decided_by,
                Some(DecidedBy::Policy | DecidedBy::Reviewer)
            );
        frames.object(|chunk| {
            chunk.str("type", "tool-approval-request");
            chunk.str("approvalId", &approval_id);
            chunk.str("toolCallId", part.id);
            if let Some(reason) = &approval.reason {
                chunk.str("reason", reason);
            }
            if automatic {
                chunk.raw("isAutomatic", b"true");
            }
            Ok(())
        })?;
        sent.approval = ApprovalSent::Requested;
    }
    if sent.approval == ApprovalSent::Requested && !approval.is_pending() {
        frames.object(|chunk| {
            chunk.str("type", "tool-approval-response");
            chunk.str("approvalId", &approval_id);
            let approved = approval.status == ApprovalStatus::Approved;
            chunk.raw("approved", if approved { b"true" } else { b"false" });
            let reason = approval.feedback.as_deref().or_else(|| {
                (!approved)
                    .then_some(part.error)
                    .flatten()
                    .map(|error| error.message.as_str())
            });
            if let Some(reason) = reason {
                chunk.str("reason", reason);
            }
            Ok(())
        })?;
        sent.approval = ApprovalSent::Responded;
    }
    Ok(())
}

/// `"type"` and `"toolCallId"`, the first entries of every tool chunk.
fn tool_chunk(chunk: &mut Object<'_, Frames<'_>>, kind: &str, id: &str) {
    chunk.str("type", kind);
    chunk.str("toolCallId", id);
}

fn input_start(frames: &mut Frames<'_>, part: &Fields<'_>, meta: &[u8]) {
    let _ = frames.object(|chunk| {
        tool_chunk(chunk, "tool-input-start", part.id);
        chunk.str("toolName", part.name);
        chunk.raw("dynamic", b"true");
        chunk.str("title", part.title);
        chunk.raw("toolMetadata", meta);
        Ok(())
    });
}

fn input_available(
    frames: &mut Frames<'_>,
    part: &Fields<'_>,
    meta: &[u8],
) -> serde_json::Result<()> {
    frames.object(|chunk| {
        tool_chunk(chunk, "tool-input-available", part.id);
        chunk.str("toolName", part.name);
        chunk.payload("input", part.input);
        chunk.raw("dynamic", b"true");
        chunk.str("title", part.title);
        chunk.raw("toolMetadata", meta);
        Ok(())
    })
}

fn input_delta(frames: &mut Frames<'_>, id: &str, delta: &str) {
    let _ = frames.object(|chunk| {
        tool_chunk(chunk, "tool-input-delta", id);
        chunk.str("inputTextDelta", delta);
        Ok(())
    });
}

/// The chunks of a streaming input: a delta when the new text extends what was sent, a
/// restart otherwise (or when the title or metadata changed, which a delta cannot say).
/// `just_started`: a `tool-input-start` was the last chunk written.
fn stream_input(
    frames: &mut Frames<'_>,
    part: &Fields<'_>,
    meta: &[u8],
    sent: &mut Sent,
    just_started: bool,
) {
    let text = open_json(part.input);
    let restart = sent.title != part.title || meta_differs(meta, &sent.meta);
    match text.strip_prefix(sent.text.as_str()) {
        Some(fresh) if !restart => {
            if !fresh.is_empty() {
                input_delta(frames, part.id, fresh);
            }
        }
        _ => {
            if (!sent.text.is_empty() || restart) && !just_started {
                input_start(frames, part, meta);
            }
            if !text.is_empty() {
                input_delta(frames, part.id, &text);
            }
        }
    }
    sent.text = text;
    part.title.clone_into(&mut sent.title);
    sent.meta.clear();
    sent.meta.extend_from_slice(meta);
}
/// The row of `ai-sdk`.
pub(crate) const FORMAT: FormatSpec = FormatSpec {
    name: "ai-sdk",
    summary: "AI SDK UI message stream chunks (`useChat`), one message per session",
    needs_events: false,
    takes_session_id: true,
    sse: true,
    sse_terminator: Some("[DONE]"),
    for_people: false,
    make: ui_writer::<AiSdkEmitter>,
};

impl UiEmitter for AiSdkEmitter {
    fn new(session_id: &str) -> Self {
        AiSdkEmitter::new(session_id)
    }

    fn write(&mut self, part: Fields<'_>, frames: &mut Frames<'_>) -> serde_json::Result<()> {
        AiSdkEmitter::write(self, part, frames)
    }

    fn write_finish(&mut self, frames: &mut Frames<'_>) {
        AiSdkEmitter::write_finish(self, frames);
    }
}
