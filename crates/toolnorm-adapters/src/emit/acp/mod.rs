//! Parts to ACP: `session/update` notifications with `tool_call` and `tool_call_update`.
//!
//! [`AcpEmitter`] takes successive snapshots of parts (as the normalizer reports them)
//! and writes, per call id, one `tool_call` first and then `tool_call_update`s that carry
//! only the fields that changed. Whatever ACP has no field for travels under
//! `_meta.toolnorm` (see [`META_KEY`]).
//!
//! A call that waits for approval (its `metadata.approval` pending) is also asked about:
//! a `session/request_permission` request follows its frame (see [`permission`]), which
//! [`AcpEmitter::frames`] and the `acp` format give, and [`AcpEmitter::part`] does not.
//!
//! Frames are written straight into a byte buffer from the borrowed part: each field of
//! a call's view ([`view::View`]) is kept as the JSON text last sent, so a change is a
//! comparison of bytes and nothing is built as a `serde_json::Value` on the way.

mod cap;
mod format;
mod permission;
mod view;

use std::io::{self, Write};

use foldhash::{HashMap, HashSet};
use serde_json::Value;
use toolnorm::{
    MetadataView, NormalizedToolPart, PartView, Payload, Timing, ToolError, ToolKind, ToolState,
};

use super::json::{Object, json};
use super::ui::approval_of;
use crate::acp::META_KEY;
pub(crate) use format::FORMAT;
use view::{FIELDS, TOOLNORM_FIELDS, View, streamed_text};

/// How frames are written.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct AcpOptions {
    /// The `sessionId` of every notification.
    pub session_id: String,
    /// The cap, in bytes, on `rawOutput` and on each text `content` block.
    pub output_cap: usize,
}

impl Default for AcpOptions {
    fn default() -> Self {
        AcpOptions {
            session_id: "toolnorm".to_owned(),
            output_cap: toolnorm::DEFAULT_OUTPUT_CAP,
        }
    }
}

/// The fields of a part that frames are made of, borrowed from an owned part or from a
/// call's [`PartView`].
#[derive(Debug, Clone, Copy)]
pub(crate) struct Fields<'a> {
    pub(crate) id: &'a str,
    pub(crate) name: &'a str,
    pub(crate) kind: ToolKind,
    pub(crate) title: &'a str,
    pub(crate) input: &'a Payload,
    pub(crate) output: Option<&'a Payload>,
    pub(crate) error: Option<&'a ToolError>,
    pub(crate) state: ToolState,
    pub(crate) timing: Option<&'a Timing>,
    pub(crate) metadata: MetadataView<'a>,
}

impl<'a> From<&'a NormalizedToolPart> for Fields<'a> {
    fn from(part: &'a NormalizedToolPart) -> Self {
        Fields {
            id: &part.id,
            name: &part.name,
            kind: part.kind,
            title: &part.title,
            input: &part.input,
            output: part.output.as_ref(),
            error: part.error.as_ref(),
            state: part.state,
            timing: part.timing.as_ref(),
            metadata: MetadataView::of(part.metadata.as_ref()),
        }
    }
}

impl<'a> From<&'a PartView<'a>> for Fields<'a> {
    fn from(part: &'a PartView<'a>) -> Self {
        Fields {
            id: part.id(),
            name: part.name(),
            kind: part.kind(),
            title: part.title(),
            input: part.input(),
            output: part.output(),
            error: part.error(),
            state: part.state(),
            timing: part.timing(),
            metadata: part.metadata(),
        }
    }
}

/// Turns part snapshots into ACP frames, remembering what each open call was last sent.
///
/// ```
/// use toolnorm::{Completion, ToolCall, ToolKind};
/// use toolnorm_adapters::{AcpEmitter, AcpOptions};
///
/// let mut emitter = AcpEmitter::new(AcpOptions::default());
/// let call = ToolCall::start("t1", "Bash", ToolKind::Bash).with_title("ls");
/// let first = emitter.part(&call.to_part()).unwrap();
/// assert_eq!(first["params"]["update"]["sessionUpdate"], "tool_call");
/// assert_eq!(first["params"]["update"]["kind"], "execute");
/// let done = call.complete(Completion::with_output("a.txt"));
/// let last = emitter.part(&done.to_part()).unwrap();
/// assert_eq!(last["params"]["update"]["sessionUpdate"], "tool_call_update");
/// assert_eq!(last["params"]["update"]["status"], "completed");
/// ```
#[derive(Debug)]
pub struct AcpEmitter {
    options: AcpOptions,
    /// `options.session_id` as JSON text.
    session_id: Vec<u8>,
    open: HashMap<String, View>,
    /// The view being built; then swapped with the call's, whose buffers it reuses.
    scratch: View,
    /// Views of calls that ended, their buffers kept for the next calls' first views.
    spare: Vec<View>,
    /// The frame being written.
    frame: Vec<u8>,
    /// The permission request written with it, when its call asks now.
    request: Vec<u8>,
    /// Open calls whose permission request was written.
    asked: HashSet<String>,
}

impl Default for AcpEmitter {
    fn default() -> Self {
        AcpEmitter::new(AcpOptions::default())
    }
}

impl AcpEmitter {
    /// An emitter with these options.
    pub fn new(options: AcpOptions) -> Self {
        let mut session_id = Vec::new();
        json(&mut session_id, options.session_id.as_str());
        AcpEmitter {
            options,
            session_id,
            open: HashMap::default(),
            scratch: View::default(),
            spare: Vec::new(),
            frame: Vec::new(),
            request: Vec::new(),
            asked: HashSet::default(),
        }
    }

    /// The frame for a new snapshot of `part`: a `tool_call` the first time its id is
    /// seen, then a `tool_call_update` with what changed; `None` when nothing changed.
    ///
    /// Feed it the changes the [`Normalizer`](crate::Normalizer) (or a
    /// [`Fold`](toolnorm::Fold)) reports, in order: a terminal snapshot ends its call
    /// here, and the fold reports nothing for a call after its end (an exact duplicate,
    /// [`Outcome::Unchanged`](toolnorm::Outcome::Unchanged), is not a change).
    ///
    /// A call's permission request, when it asks, is not among them: see
    /// [`frames`](Self::frames).
    pub fn part(&mut self, part: &NormalizedToolPart) -> Option<Value> {
        if !self.frame_of(Fields::from(part)).ok()? {
            return None;
        }
        read_back(&self.frame)
    }

    /// Every frame for a new snapshot of `part`: its frame as [`part`](Self::part)
    /// makes it, then, when its approval is asked now, the `session/request_permission`
    /// request.
    ///
    /// ```
    /// use toolnorm_adapters::{AcpEmitter, AcpOptions};
    ///
    /// let mut emitter = AcpEmitter::new(AcpOptions::default());
    /// let part: toolnorm::NormalizedToolPart = serde_json::from_str(
    ///     r#"{"id":"t1","name":"Bash","kind":"bash","title":"rm a.txt","input":{},"state":"started",
    ///         "metadata":{"approval":{"status":"pending","reason":"Run it?"}}}"#,
    /// )?;
    /// let frames = emitter.frames(&part);
    /// assert_eq!(frames[0]["params"]["update"]["sessionUpdate"], "tool_call");
    /// assert_eq!(frames[1]["method"], "session/request_permission");
    /// assert_eq!(frames[1]["params"]["options"][0]["kind"], "allow_once");
    /// # Ok::<(), serde_json::Error>(())
    /// ```
    pub fn frames(&mut self, part: &NormalizedToolPart) -> Vec<Value> {
        let Ok(written) = self.frame_of(Fields::from(part)) else {
            return Vec::new();
        };
        let frame = written.then(|| read_back(&self.frame)).flatten();
        let request = (!self.request.is_empty())
            .then(|| read_back(&self.request))
            .flatten();
        frame.into_iter().chain(request).collect()
    }

    /// Writes the frame for a new snapshot (as [`part`](Self::part) makes it) as one
    /// line into `out`; `false` when nothing changed and nothing was written.
    pub(crate) fn write_line(
        &mut self,
        part: Fields<'_>,
        out: &mut impl Write,
    ) -> io::Result<bool> {
        let written = self.frame_of(part)?;
        if written {
            self.frame.push(b'\n');
            out.write_all(&self.frame)?;
        }
        if !self.request.is_empty() {
            self.request.push(b'\n');
            out.write_all(&self.request)?;
        }
        if !written {
            return Ok(!self.request.is_empty());
        }
        if self.frame.capacity() > 1 << 20 {
            // One huge frame does not hold its memory for the rest of the stream.
            self.frame = Vec::new();
        }
        Ok(true)
    }

    /// Writes the frame for `part` into `self.frame`, and its permission request into
    /// `self.request` when it asks now; `false` when nothing changed.
    fn frame_of(&mut self, part: Fields<'_>) -> serde_json::Result<bool> {
        self.request.clear();
        if part.state.is_terminal() {
            self.asked.remove(part.id);
        } else if !self.asked.contains(part.id)
            && let Some(approval) = approval_of(&part).filter(|approval| approval.is_pending())
        {
            permission::write_request(
                &mut self.request,
                &self.options.session_id,
                &part,
                &approval,
            )?;
            self.asked.insert(part.id.to_owned());
        }
        self.scratch.fill(part, self.options.output_cap)?;
        self.frame.clear();
        // A call's first view is kept, and the next fill gets the buffers of a spare
        // view; a later one is swapped with the view it replaces, whose buffers the next
        // fill reuses.
        let written = match self.open.get_mut(part.id) {
            None => {
                first_frame(&mut self.frame, &self.session_id, &part, &self.scratch);
                if !part.state.is_terminal() {
                    let spare = self.spare.pop().unwrap_or_default();
                    let view = std::mem::replace(&mut self.scratch, spare);
                    self.open.insert(part.id.to_owned(), view);
                }
                true
            }
            Some(sent) => {
                let written = changes(
                    &mut self.frame,
                    &self.session_id,
                    &part,
                    sent,
                    &self.scratch,
                );
                if written && part.state.is_terminal() {
                    // A view that held a huge frame is not kept: its memory goes.
                    if let Some(ended) = self.open.remove(part.id)
                        && self.spare.len() < MAX_SPARE
                        && !ended.holds_more_than(SPARE_BYTES)
                    {
                        self.spare.push(ended);
                    }
                } else if written {
                    std::mem::swap(sent, &mut self.scratch);
                    sent.shrink();
                }
                written
            }
        };
        if self.scratch.holds_more_than(1 << 20) {
            // One huge frame does not hold its memory for the rest of the stream.
            self.scratch = View::default();
        }
        Ok(written)
    }
}

/// At most this many views of ended calls are kept for the next calls.
const MAX_SPARE: usize = 16;

/// A view of an ended call is kept only when none of its buffers is larger than this.
const SPARE_BYTES: usize = 64 * 1024;

/// A frame read back as a value. It nests the part's values a few levels deeper than
/// they came: read without serde_json's depth limit (it is no deeper than the part).
fn read_back(frame: &[u8]) -> Option<Value> {
    let mut reader = serde_json::Deserializer::from_slice(frame);
    reader.disable_recursion_limit();
    serde::Deserialize::deserialize(&mut reader).ok()
}

/// Opens `{"jsonrpc":"2.0","method":"session/update","params":{"sessionId":…,"update":{`
/// with `sessionUpdate` and `toolCallId`; the caller closes it, then [`close_frame_tail`].
fn open_frame<'b>(out: &'b mut Vec<u8>, session_id: &[u8], update: &str, id: &str) -> Object<'b> {
    out.extend_from_slice(br#"{"jsonrpc":"2.0","method":"session/update","params":{"sessionId":"#);
    out.extend_from_slice(session_id);
    out.extend_from_slice(br#","update":"#);
    let mut frame = Object::open(out);
    frame.key("sessionUpdate");
    json(frame.out(), update);
    frame.key("toolCallId");
    json(frame.out(), id);
    frame
}

fn first_frame(out: &mut Vec<u8>, session_id: &[u8], part: &Fields<'_>, view: &View) {
    let mut frame = open_frame(out, session_id, "tool_call", part.id);
    for (name, value) in FIELDS.iter().zip(&view.fields) {
        let empty_list = matches!(*name, "content" | "locations") && value.as_slice() == b"[]";
        if !value.is_empty() && !empty_list {
            frame.raw(name, value);
        }
    }
    frame.key("_meta");
    let mut meta = Object::open(frame.out());
    meta.key(META_KEY);
    let mut toolnorm = Object::open(meta.out());
    toolnorm.raw("toolName", view.name());
    for (name, value) in TOOLNORM_FIELDS.iter().zip(&view.toolnorm) {
        if !value.is_empty() {
            toolnorm.raw(name, value);
        }
    }
    if !view.metadata.is_empty() {
        toolnorm.key("metadata");
        view.metadata.write_all(toolnorm.out());
    }
    if !view.streamed.is_empty() {
        toolnorm.key("outputAppended");
        appended(toolnorm.out(), 0, streamed_text(part));
    }
    toolnorm.close();
    meta.close();
    frame.close();
    close_frame_tail(out);
}

/// Ends a frame whose `update` object is closed: `params` and the notification.
fn close_frame_tail(out: &mut Vec<u8>) {
    out.extend_from_slice(b"}}");
}

fn changes(
    out: &mut Vec<u8>,
    session_id: &[u8],
    part: &Fields<'_>,
    sent: &View,
    view: &View,
) -> bool {
    let fields_changed = view.fields != sent.fields;
    let name_changed = view.name() != sent.name();
    // toolnorm's fields that changed: a field now gone is not sent again.
    let mut toolnorm_changed = [false; TOOLNORM_FIELDS.len()];
    let pairs = view.toolnorm.iter().zip(&sent.toolnorm);
    for (changed, (now, then)) in toolnorm_changed.iter_mut().zip(pairs) {
        *changed = !now.is_empty() && now != then;
    }
    let metadata_changed = view.metadata.changed_from(&sent.metadata).next().is_some();
    let fresh = sent.streamed.fresh_in(streamed_text(part));
    let meta_changed =
        name_changed || toolnorm_changed.contains(&true) || metadata_changed || fresh.is_some();
    if !fields_changed && !meta_changed {
        return false;
    }
    let mut frame = open_frame(out, session_id, "tool_call_update", part.id);
    let fields = || FIELDS.iter().zip(view.fields.iter().zip(&sent.fields));
    for (name, (value, then)) in fields() {
        if !value.is_empty() && value != then {
            frame.raw(name, value);
        }
    }
    // A field sent before and now gone (only `rawOutput` can go) is cleared.
    for (name, (value, then)) in fields() {
        if value.is_empty() && !then.is_empty() {
            frame.raw(name, b"null");
        }
    }
    if meta_changed {
        frame.key("_meta");
        let mut meta = Object::open(frame.out());
        meta.key(META_KEY);
        let mut toolnorm = Object::open(meta.out());
        if name_changed {
            toolnorm.raw("toolName", view.name());
        }
        let fields = TOOLNORM_FIELDS.iter().zip(&view.toolnorm);
        for ((name, value), _) in fields.zip(toolnorm_changed).filter(|(_, changed)| *changed) {
            toolnorm.raw(name, value);
        }
        if metadata_changed {
            toolnorm.key("metadata");
            let mut metadata = Object::open(toolnorm.out());
            for (key, value) in view.metadata.changed_from(&sent.metadata) {
                metadata.raw_key(key, value);
            }
            metadata.close();
        }
        if let Some((offset, fresh)) = fresh {
            toolnorm.key("outputAppended");
            appended(toolnorm.out(), offset, fresh);
        }
        toolnorm.close();
        meta.close();
    }
    frame.close();
    close_frame_tail(out);
    true
}

/// `{"offset":…,"chunk":…}`: streamed output that arrived since the last frame.
fn appended(out: &mut Vec<u8>, offset: usize, chunk: &str) {
    out.extend_from_slice(br#"{"offset":"#);
    out.extend_from_slice(offset.to_string().as_bytes());
    out.extend_from_slice(br#","chunk":"#);
    json(out, chunk);
    out.push(b'}');
}

#[cfg(test)]
mod tests {
    use serde_json::json;

    use super::cap::{capped_kept_string, capped_text};
    use super::view::{Streamed, sides_of_patch};
    use super::*;

    #[test]
    fn streamed_output_goes_on_where_the_last_view_ended() {
        let mut sent = Streamed::default();
        assert_eq!(sent.fresh_in("abc"), Some((0, "abc")));
        sent.set("abc");
        assert_eq!(sent.fresh_in("abcdé"), Some((3, "dé")));
        assert_eq!(sent.fresh_in("abc"), None, "nothing new");
        assert_eq!(sent.fresh_in("xbcdef"), None, "not the text sent");
        assert_eq!(sent.fresh_in("ab"), None);
        let long = "é".repeat(100);
        sent.set(&long);
        let grown = format!("{long}!");
        assert_eq!(sent.fresh_in(&grown), Some((200, "!")));
        let other = format!("xx{}!", &long[2..]);
        assert_eq!(
            sent.fresh_in(&other),
            Some((200, "!")),
            "only its end is kept"
        );
    }

    #[test]
    fn a_running_call_sends_only_the_output_that_is_new() {
        let running = |output: &str| -> NormalizedToolPart {
            serde_json::from_value(json!({"id": "t1", "name": "Bash", "kind": "bash",
                "title": "make", "input": {}, "state": "running",
                "metadata": {"partialOutput": output}}))
            .unwrap_or_else(|error| panic!("{error}"))
        };
        let mut emitter = AcpEmitter::default();
        let first = emitter.part(&running("one\n")).unwrap_or_default();
        let appended = &first["params"]["update"]["_meta"]["toolnorm"]["outputAppended"];
        assert_eq!(*appended, json!({"offset": 0, "chunk": "one\n"}));
        let next = emitter.part(&running("one\ntwo\n")).unwrap_or_default();
        let appended = &next["params"]["update"]["_meta"]["toolnorm"]["outputAppended"];
        assert_eq!(*appended, json!({"offset": 4, "chunk": "two\n"}));
        assert_eq!(emitter.part(&running("one\ntwo\n")), None, "nothing new");
        assert_eq!(
            emitter.part(&running("something else")),
            None,
            "not a continuation of what was sent"
        );
    }

    #[test]
    fn a_patch_gives_the_old_and_new_region() {
        let (old, new) = sides_of_patch("@@ -1,2 +1,2 @@\n a\n-b\n+c\n");
        assert_eq!(old, "a\nb\n");
        assert_eq!(new, "a\nc\n");
    }

    #[test]
    fn text_is_cut_on_a_character_boundary() {
        assert_eq!(capped_text("héllo", 2), ("h", Some(6)));
        assert_eq!(capped_text("hello", 5), ("hello", None));
    }

    #[test]
    fn a_kept_string_is_cut_as_its_text_would_be() {
        let texts = [
            "",
            "hello",
            "héllo wörld ✓ 🦀",
            "line\nnext\ttab \"quoted\" back\\slash",
            "\u{1}\u{1f}é\n🦀\u{7f}",
        ];
        let long = "ab\ncd\\\u{1}é🦀\"".repeat(20);
        for text in texts.into_iter().chain([long.as_str()]) {
            let quoted = serde_json::to_string(text).unwrap();
            for cap in 0..=text.len() + 1 {
                let (cut, total) = capped_text(text, cap);
                let mut expected = Vec::new();
                json(&mut expected, cut);
                let mut written = Vec::new();
                let length = capped_kept_string(&mut written, &quoted, cap);
                assert_eq!((written, length), (expected, total), "{text:?} at {cap}");
            }
        }
    }
}
