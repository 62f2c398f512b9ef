//! A call as its ACP frames show it: each field as JSON text, written straight from the
//! borrowed part, and the small JSON writer the frames are made with.

use std::borrow::Cow;
use std::io::Write;
use std::sync::LazyLock;

use serde_json::Value;
use toolnorm::{MetaValue, Payload, ToolKind, ToolState};

use super::Fields;
use super::cap::{capped_kept_string, capped_text};
use crate::acp::{Truncated, Truncation, acp_kind, acp_status};
use crate::emit::json::{Object, json};
use crate::emit::json_text;

/// Metadata keys the core derives from streamed output while a call runs; they travel as
/// `outputAppended` chunks instead, so output is never resent whole.
const STREAMED_KEYS: &[&str] = &[
    toolnorm::meta::PARTIAL_OUTPUT,
    toolnorm::meta::OUTPUT_TRUNCATED,
    toolnorm::meta::OUTPUT_TOTAL_BYTES,
    toolnorm::meta::OUTPUT_CAP_BYTES,
];

/// The standard ACP fields of a frame, in the order they are written.
pub(super) const FIELDS: [&str; 8] = [
    "title",
    "kind",
    "status",
    "name",
    "rawInput",
    "rawOutput",
    "content",
    "locations",
];
const TITLE: usize = 0;
const KIND: usize = 1;
const STATUS: usize = 2;
const NAME: usize = 3;
const RAW_INPUT: usize = 4;
const RAW_OUTPUT: usize = 5;
const LOCATIONS: usize = 7;

/// toolnorm's own fields of a frame (under `_meta.toolnorm`), in the order they are
/// written: its kind, and the error, timing and truncation when there are any.
pub(super) const TOOLNORM_FIELDS: [&str; 4] = ["kind", "error", "timing", "truncated"];
const TOOLNORM_KIND: usize = 0;
const TOOLNORM_ERROR: usize = 1;
const TOOLNORM_TIMING: usize = 2;
const TOOLNORM_TRUNCATED: usize = 3;

/// What a call looks like in ACP, each piece as JSON text (empty when absent).
#[derive(Debug, Default, Clone)]
pub(super) struct View {
    /// The standard fields, by their place in [`FIELDS`]; only `rawOutput` can be absent.
    pub(super) fields: [Vec<u8>; 8],
    /// toolnorm's own fields under `_meta.toolnorm`, by their place in
    /// [`TOOLNORM_FIELDS`]; all but `kind` can be absent.
    pub(super) toolnorm: [Vec<u8>; 4],
    /// The part's metadata, without the keys derived from streamed output.
    pub(super) metadata: Metadata,
    /// The streamed output so far (`metadata.partialOutput` of a running call): how
    /// long it is and how it ends, not the text.
    pub(super) streamed: Streamed,
}

/// How much streamed output a view holds, and its last bytes: what tells the output that
/// arrived since a view was sent. A running call's streamed output only grows at its end,
/// so the text of the next view is this one's followed by what is new; a text that does
/// not end the same way where this one ended is not its continuation, and none of it is
/// sent as new.
#[derive(Debug, Default, Clone)]
pub(super) struct Streamed {
    len: usize,
    tail: String,
}

/// How many bytes of the end of the streamed output a view keeps to tell what is new.
const TAIL: usize = 64;

impl Streamed {
    pub(super) fn set(&mut self, text: &str) {
        self.len = text.len();
        self.tail.clear();
        let start = text.ceil_char_boundary(text.len().saturating_sub(TAIL));
        self.tail.push_str(text.get(start..).unwrap_or_default());
    }

    /// Whether there is none.
    pub(super) fn is_empty(&self) -> bool {
        self.len == 0
    }

    /// Where `text` goes on from the output of this view, when it does.
    pub(super) fn fresh_in<'t>(&self, text: &'t str) -> Option<(usize, &'t str)> {
        let seen = text.get(..self.len)?;
        seen.ends_with(self.tail.as_str())
            .then(|| text.get(self.len..))
            .flatten()
            .filter(|fresh| !fresh.is_empty())
            .map(|fresh| (self.len, fresh))
    }
}

impl View {
    /// `name` as JSON text (also `_meta.toolnorm.toolName`).
    pub(super) fn name(&self) -> &[u8] {
        &self.fields[NAME]
    }

    /// Makes this the view of `part`, reusing the buffers.
    pub(super) fn fill(&mut self, part: Fields<'_>, cap: usize) -> serde_json::Result<()> {
        let mut truncated = Truncated::default();
        for field in &mut self.fields {
            field.clear();
        }
        json(&mut self.fields[TITLE], part.title);
        self.fields[KIND].extend_from_slice(json_text::name_of(
            &KIND_NAMES,
            &ToolKind::ALL,
            part.kind,
        ));
        self.fields[STATUS].extend_from_slice(json_text::name_of(
            &STATUS_NAMES,
            &ToolState::ALL,
            part.state,
        ));
        json(&mut self.fields[NAME], part.name);
        json_text::payload(&mut self.fields[RAW_INPUT], part.input);
        let raw_output = match part.state {
            ToolState::Complete => part.output,
            ToolState::Error => part.error.and_then(|error| error.details.as_ref()),
            ToolState::Started | ToolState::Running => None,
        };
        if let Some(output) = raw_output
            && let Some(total) = capped_value(&mut self.fields[RAW_OUTPUT], output, cap)?
        {
            truncated.raw_output = Some(truncation(total, cap));
        }
        let [.., raw_output, content, _] = &mut self.fields;
        content.push(b'[');
        let blocks = diffs(content, &part);
        if part.state == ToolState::Complete && part.output.is_some_and(Payload::is_string) {
            // The text block of a text output is `rawOutput` again, cut at the same cap.
            text_block(content, raw_output, blocks > 0);
            truncated.content = truncated.raw_output;
        } else if let Some(total) = result_text(content, &part, cap, blocks > 0)? {
            truncated.content = Some(truncation(total, cap));
        }
        content.push(b']');
        locations(&mut self.fields[LOCATIONS], &part);

        for field in &mut self.toolnorm {
            field.clear();
        }
        self.toolnorm[TOOLNORM_KIND].extend_from_slice(json_text::kind(part.kind));
        if let Some(error) = part.error {
            serde_json::to_writer(&mut self.toolnorm[TOOLNORM_ERROR], error)?;
        }
        if let Some(timing) = part.timing {
            json_text::timing(&mut self.toolnorm[TOOLNORM_TIMING], timing);
        }
        if !truncated.is_empty() {
            serde_json::to_writer(&mut self.toolnorm[TOOLNORM_TRUNCATED], &truncated)?;
        }
        self.metadata.clear();
        let running = part.state == ToolState::Running;
        self.streamed.set(streamed_text(&part));
        for (key, value) in part.metadata.iter() {
            if running && STREAMED_KEYS.contains(&key) {
                continue;
            }
            self.metadata.push(key, &value)?;
        }
        self.metadata.index();
        Ok(())
    }
}

/// A view's text buffers, borrowed with `iter` or `iter_mut` (and `mut`): one list for
/// both, and a field added to [`View`] but not listed here does not compile.
macro_rules! buffers {
    ($view:expr, $iter:ident $(, $mut:tt)?) => {{
        let View {
            fields,
            toolnorm,
            metadata,
            streamed: _,
        } = $view;
        fields
            .$iter()
            .chain(toolnorm.$iter())
            .chain([&$($mut)? metadata.text])
    }};
}

impl View {
    /// Whether a buffer holds more than `bytes`.
    pub(super) fn holds_more_than(&self, bytes: usize) -> bool {
        self.buffers().any(|buffer| buffer.capacity() > bytes)
    }

    /// Gives back the memory of buffers much larger than what they hold (a kept view's
    /// buffers are reused from one of its frames to the next).
    pub(super) fn shrink(&mut self) {
        for buffer in self.buffers_mut() {
            if buffer.capacity() > 2 * buffer.len() + 4096 {
                buffer.shrink_to_fit();
            }
        }
    }

    /// Every text buffer: the standard fields, toolnorm's, the metadata's text.
    fn buffers(&self) -> impl Iterator<Item = &Vec<u8>> {
        buffers!(self, iter)
    }

    /// [`buffers`](Self::buffers), to write to.
    fn buffers_mut(&mut self) -> impl Iterator<Item = &mut Vec<u8>> {
        buffers!(self, iter_mut, mut)
    }
}

/// The streamed output of a running call (`metadata.partialOutput`); `""` for others.
pub(super) fn streamed_text<'a>(part: &Fields<'a>) -> &'a str {
    if part.state != ToolState::Running {
        return "";
    }
    part.metadata
        .text(toolnorm::meta::PARTIAL_OUTPUT)
        .unwrap_or_default()
}

/// An object's entries as JSON text, in order, findable by key.
#[derive(Debug, Default, Clone)]
pub(super) struct Metadata {
    text: Vec<u8>,
    /// Where each entry's key starts, its value starts and ends in `text`, in order.
    entries: Vec<(usize, usize, usize)>,
    /// The places in `entries`, sorted by key.
    sorted: Vec<usize>,
}

impl Metadata {
    fn clear(&mut self) {
        self.text.clear();
        self.entries.clear();
        self.sorted.clear();
    }

    fn push(&mut self, key: &str, value: &MetaValue<'_>) -> serde_json::Result<()> {
        let start = self.text.len();
        json(&mut self.text, key);
        let middle = self.text.len();
        json_text::meta_value(&mut self.text, value)?;
        self.entries.push((start, middle, self.text.len()));
        Ok(())
    }

    fn index(&mut self) {
        self.sorted.extend(0..self.entries.len());
        let (text, entries) = (&self.text, &self.entries);
        self.sorted
            .sort_unstable_by_key(|place| entries.get(*place).and_then(|e| text.get(e.0..e.1)));
    }

    pub(super) fn is_empty(&self) -> bool {
        self.entries.is_empty()
    }

    /// The entries, in order: key and value as JSON text.
    fn iter(&self) -> impl Iterator<Item = (&[u8], &[u8])> {
        self.entries.iter().filter_map(|(start, middle, end)| {
            Some((
                self.text.get(*start..*middle)?,
                self.text.get(*middle..*end)?,
            ))
        })
    }

    /// The value of the key whose JSON text is `key`.
    fn get(&self, key: &[u8]) -> Option<&[u8]> {
        let entry = |place: &usize| {
            let (start, middle, end) = *self.entries.get(*place)?;
            Some((self.text.get(start..middle)?, self.text.get(middle..end)?))
        };
        let found = self
            .sorted
            .binary_search_by(|place| entry(place).map(|(k, _)| k).cmp(&Some(key)))
            .ok()?;
        self.sorted
            .get(found)
            .and_then(entry)
            .map(|(_, value)| value)
    }

    /// The entries whose value is not the one in `sent`, in order.
    pub(super) fn changed_from<'s>(
        &'s self,
        sent: &'s Metadata,
    ) -> impl Iterator<Item = (&'s [u8], &'s [u8])> {
        self.iter()
            .filter(move |(key, value)| sent.get(key) != Some(*value))
    }

    /// The whole object.
    pub(super) fn write_all(&self, out: &mut Vec<u8>) {
        let mut object = Object::open(out);
        for (key, value) in self.iter() {
            object.raw_key(key, value);
        }
        object.close();
    }
}

/// The ACP kind of each toolnorm kind (in [`ToolKind::ALL`]'s order) as a JSON string,
/// written once: a frame writes one, and formatting it each time cost more than the rest
/// of the name.
static KIND_NAMES: LazyLock<Vec<Vec<u8>>> =
    LazyLock::new(|| ToolKind::ALL.map(|kind| quoted(acp_kind(kind))).to_vec());

/// The ACP status of each toolnorm state (in [`ToolState::ALL`]'s order) as a JSON string.
static STATUS_NAMES: LazyLock<Vec<Vec<u8>>> = LazyLock::new(|| {
    ToolState::ALL
        .map(|state| quoted(acp_status(state)))
        .to_vec()
});

/// A wire name (plain ASCII) as a JSON string.
fn quoted(name: impl std::fmt::Display) -> Vec<u8> {
    format!("\"{name}\"").into_bytes()
}

fn truncation(total: usize, cap: usize) -> Truncation {
    Truncation {
        total_bytes: total as u64,
        cap_bytes: cap as u64,
    }
}

/// Writes a value within the cap: itself, or (cut) its text or its JSON text as a
/// string. Returns its length when cut.
fn capped_value(
    out: &mut Vec<u8>,
    value: &Payload,
    cap: usize,
) -> serde_json::Result<Option<usize>> {
    if let Some(quoted) = value.raw_text().filter(|text| text.starts_with('"')) {
        return Ok(capped_kept_string(out, quoted, cap));
    }
    if let Some(text) = value.text() {
        let (cut, total) = capped_text(&text, cap);
        json(out, cut);
        return Ok(total);
    }
    // Another kept value: its text is what the writer would write (not written whole to
    // be read back when it passes the cap).
    if let Some(kept) = value.raw_text() {
        if kept.len() <= cap {
            out.extend_from_slice(kept.as_bytes());
            return Ok(None);
        }
        let (cut, total) = capped_text(kept, cap);
        json(out, cut);
        return Ok(total);
    }
    let start = out.len();
    json_text::payload(out, value);
    if out.len() - start <= cap {
        return Ok(None);
    }
    let text = String::from_utf8_lossy(out.get(start..).unwrap_or_default()).into_owned();
    out.truncate(start);
    let (cut, total) = capped_text(&text, cap);
    json(out, cut);
    Ok(total)
}

/// Writes the text block a UI shows for the result (the output, or the error's output
/// or message) into the content list, after a comma when `after` is set. Returns the
/// text's length when cut.
fn result_text(
    out: &mut Vec<u8>,
    part: &Fields<'_>,
    cap: usize,
    after: bool,
) -> serde_json::Result<Option<usize>> {
    let owned;
    let text: &str = match part.state {
        ToolState::Complete => match part.output {
            None => return Ok(None),
            Some(output) if output.is_null() => return Ok(None),
            Some(output) => {
                owned = match (output.text(), output.raw_text()) {
                    (Some(text), _) => text,
                    // Another value's JSON text: the kept one, not a copy.
                    (None, Some(json)) => Cow::Borrowed(json),
                    (None, None) => Cow::Owned(output.to_json()),
                };
                &owned
            }
        },
        ToolState::Error => {
            let Some(error) = part.error else {
                return Ok(None);
            };
            let output = error
                .details
                .as_ref()
                .and_then(|details| details.get("output"))
                .and_then(Value::as_str);
            output.unwrap_or(&error.message)
        }
        ToolState::Started | ToolState::Running => return Ok(None),
    };
    let (text, total) = capped_text(text, cap);
    if after {
        out.push(b',');
    }
    out.extend_from_slice(TEXT_BLOCK_START);
    json(out, text);
    out.extend_from_slice(TEXT_BLOCK_END);
    Ok(total)
}

/// A text content block, around its text (a JSON string).
const TEXT_BLOCK_START: &[u8] = br#"{"type":"content","content":{"type":"text","text":"#;
const TEXT_BLOCK_END: &[u8] = b"}}";

/// Writes a text content block whose text is `string` (JSON text), after a comma when
/// `after` is set.
fn text_block(out: &mut Vec<u8>, string: &[u8], after: bool) {
    if after {
        out.push(b',');
    }
    out.extend_from_slice(TEXT_BLOCK_START);
    out.extend_from_slice(string);
    out.extend_from_slice(TEXT_BLOCK_END);
}

/// Whether a payload may have `changes` (a file change's): an object, whose kept text
/// (when it is kept) names the key; another object's is not parsed for it (a huge MCP
/// result is then written from its text alone).
fn may_have_changes(payload: &Payload) -> bool {
    payload.is_object()
        && payload
            .raw_text()
            .is_none_or(|text| memchr::memmem::find(text.as_bytes(), b"\"changes\"").is_some())
}

fn string_at<'a>(value: &'a Value, keys: &[&str]) -> Option<&'a str> {
    keys.iter().find_map(|key| get(value, key)?.as_str())
}

/// `value[key]`: a small object is searched in order rather than by hashing the key
/// (serde_json's ordered maps hash with SipHash, slower than comparing a few keys).
fn get<'a>(value: &'a Value, key: &str) -> Option<&'a Value> {
    let object = value.as_object()?;
    if object.len() > 8 {
        return object.get(key);
    }
    object
        .iter()
        .find_map(|(name, value)| (name == key).then_some(value))
}

const PATH_KEYS: &[&str] = &["file_path", "filePath", "path", "notebook_path"];
const OLD_KEYS: &[&str] = &["old_string", "oldString"];
const NEW_KEYS: &[&str] = &["new_string", "newString"];

/// Writes the diffs of a file write or edit (see [`diffs`]), one per call.
struct Diffs<'b> {
    out: &'b mut Vec<u8>,
    count: usize,
}

impl Diffs<'_> {
    fn diff(&mut self, path: &str, old: Option<&str>, new: &str) {
        if self.count > 0 {
            self.out.push(b',');
        }
        self.count += 1;
        let mut diff = Object::open(self.out);
        diff.raw("type", br#""diff""#);
        diff.key("path");
        json(diff.out(), path);
        diff.key("newText");
        json(diff.out(), new);
        if let Some(old) = old {
            diff.key("oldText");
            json(diff.out(), old);
        }
        diff.close();
    }
}

/// Writes the `diff` content blocks for file writes and edits, from what the provider
/// gave: before/after strings (Claude `Edit`/`MultiEdit`, OpenCode `edit`), the whole
/// new file (`Write`, `write`) or unified diffs (Codex `fileChange`). Returns how many.
fn diffs(out: &mut Vec<u8>, part: &Fields<'_>) -> usize {
    if !matches!(part.kind, ToolKind::FileWrite | ToolKind::FileEdit) {
        return 0;
    }
    let mut diffs = Diffs { out, count: 0 };
    let input = part.input;
    if let Some(path) = string_at(input, PATH_KEYS) {
        if let (Some(old), Some(new)) = (string_at(input, OLD_KEYS), string_at(input, NEW_KEYS)) {
            diffs.diff(path, Some(old), new);
            return diffs.count;
        }
        if let Some(edits) = get(input, "edits").and_then(Value::as_array) {
            for edit in edits {
                if let (Some(old), Some(new)) =
                    (string_at(edit, OLD_KEYS), string_at(edit, NEW_KEYS))
                {
                    diffs.diff(path, Some(old), new);
                }
            }
            return diffs.count;
        }
        if let Some(content) = string_at(input, &["content"]) {
            diffs.diff(path, None, content);
            return diffs.count;
        }
    }
    // Only an object has `changes` (a text output is never parsed for them).
    let changes = part
        .output
        .filter(|output| may_have_changes(output))
        .and_then(|output| get(output, "changes"))
        .and_then(Value::as_array);
    for change in changes.into_iter().flatten() {
        let (Some(path), Some(patch)) =
            (string_at(change, &["path"]), string_at(change, &["diff"]))
        else {
            continue;
        };
        let kind = get(change, "kind").and_then(|kind| match kind {
            Value::String(kind) => Some(kind.as_str()),
            other => string_at(other, &["type"]),
        });
        match kind {
            Some("add") => diffs.diff(path, None, patch),
            Some("delete") => diffs.diff(path, Some(patch), ""),
            _ => {
                let (old, new) = sides_of_patch(patch);
                diffs.diff(path, Some(&old), &new);
            }
        }
    }
    diffs.count
}

/// The old and new text of the regions a unified diff touches (context lines in both).
pub(super) fn sides_of_patch(patch: &str) -> (String, String) {
    let (mut old, mut new) = (String::new(), String::new());
    for line in patch.split_inclusive('\n') {
        if ["@@", "---", "+++", "diff ", "index ", "\\"]
            .iter()
            .any(|prefix| line.starts_with(prefix))
        {
            continue;
        }
        match line.split_at_checked(1) {
            Some(("-", rest)) => old.push_str(rest),
            Some(("+", rest)) => new.push_str(rest),
            Some((" ", rest)) => {
                old.push_str(rest);
                new.push_str(rest);
            }
            _ => {
                old.push_str(line);
                new.push_str(line);
            }
        }
    }
    (old, new)
}

/// Writes the files a call touches: the input's path (with its line when given) and,
/// for Codex file changes, every changed path.
fn locations(out: &mut Vec<u8>, part: &Fields<'_>) {
    let mut paths: Vec<(&str, Option<u64>)> = Vec::new();
    if let Some(path) = string_at(part.input, PATH_KEYS) {
        let line = ["line", "offset"]
            .iter()
            .find_map(|key| get(part.input, key)?.as_u64())
            .filter(|line| *line > 0 && *line <= u64::from(u32::MAX));
        paths.push((path, line));
    }
    let sources = [Some(part.input), part.output].into_iter().flatten();
    for source in sources.filter(|source| may_have_changes(source)) {
        let changes = get(source, "changes").and_then(Value::as_array);
        for change in changes.into_iter().flatten() {
            if let Some(path) = string_at(change, &["path"])
                && !paths.iter().any(|(seen, _)| *seen == path)
            {
                paths.push((path, None));
            }
        }
    }
    out.push(b'[');
    for (index, (path, line)) in paths.into_iter().enumerate() {
        if index > 0 {
            out.push(b',');
        }
        let mut location = Object::open(out);
        location.key("path");
        json(location.out(), path);
        if let Some(line) = line {
            location.key("line");
            let _ = write!(location.out(), "{line}");
        }
        location.close();
    }
    out.push(b']');
}
