//! Parts to ACP: `session/update` notifications with `tool_call` and `tool_call_update`.
//!
//! [`AcpEmitter`] takes successive snapshots of parts (as the normalizer reports them)
//! and writes, per call id, one `tool_call` first and then `tool_call_update`s that carry
//! only the fields that changed. Whatever ACP has no field for travels under
//! `_meta.toolnorm` (see [`META_KEY`]).

use std::collections::HashMap;

use serde_json::{Map, Value, json};
use toolnorm::{NormalizedToolPart, ToolKind, ToolState};

use crate::acp::{
    META_KEY, OutputChunk, ToolnormMeta, Truncated, Truncation, acp_kind, acp_status,
};

/// Metadata keys the core derives from streamed output while a call runs; they travel as
/// `outputAppended` chunks instead, so output is never resent whole.
const STREAMED_KEYS: &[&str] = &[
    toolnorm::meta::PARTIAL_OUTPUT,
    toolnorm::meta::OUTPUT_TRUNCATED,
    toolnorm::meta::OUTPUT_TOTAL_BYTES,
    toolnorm::meta::OUTPUT_CAP_BYTES,
];

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

/// What a call looks like in ACP, as last sent.
#[derive(Debug, Default)]
struct View {
    /// Standard ACP fields (`title`, `kind`, `status`, `name`, `rawInput`, …).
    fields: Map<String, Value>,
    /// `_meta.toolnorm` fields other than `metadata` and `outputAppended`.
    meta: ToolnormMeta,
    /// The part's metadata, without the keys derived from streamed output.
    metadata: Map<String, Value>,
    /// The streamed output so far (`metadata.partialOutput` of a running call).
    streamed: String,
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
/// let done = call.complete(Completion::with_output("a.txt".into()));
/// let last = emitter.part(&done.to_part()).unwrap();
/// assert_eq!(last["params"]["update"]["sessionUpdate"], "tool_call_update");
/// assert_eq!(last["params"]["update"]["status"], "completed");
/// ```
#[derive(Debug, Default)]
pub struct AcpEmitter {
    options: AcpOptions,
    open: HashMap<String, View>,
}

impl AcpEmitter {
    /// An emitter with these options.
    pub fn new(options: AcpOptions) -> Self {
        AcpEmitter {
            options,
            open: HashMap::new(),
        }
    }

    /// The frame for a new snapshot of `part`: a `tool_call` the first time its id is
    /// seen, then a `tool_call_update` with what changed; `None` when nothing changed.
    ///
    /// Feed it the changes the [`Normalizer`](crate::Normalizer) (or a
    /// [`Fold`](toolnorm::Fold)) reports, in order: a terminal snapshot ends its call
    /// here, and the fold reports nothing for a call after its end (an exact duplicate,
    /// [`Outcome::Unchanged`](toolnorm::Outcome::Unchanged), is not a change).
    pub fn part(&mut self, part: &NormalizedToolPart) -> Option<Value> {
        let view = view(part, self.options.output_cap);
        let update = match self.open.get(&part.id) {
            None => first_frame(part, &view),
            Some(sent) => changes(part, sent, &view)?,
        };
        if part.state.is_terminal() {
            self.open.remove(&part.id);
        } else {
            self.open.insert(part.id.clone(), view);
        }
        Some(self.notification(update))
    }

    fn notification(&self, update: Map<String, Value>) -> Value {
        json!({
            "jsonrpc": "2.0",
            "method": "session/update",
            "params": { "sessionId": self.options.session_id, "update": update },
        })
    }
}

fn first_frame(part: &NormalizedToolPart, view: &View) -> Map<String, Value> {
    let mut update = Map::new();
    update.insert("sessionUpdate".into(), "tool_call".into());
    update.insert("toolCallId".into(), part.id.clone().into());
    for (key, value) in &view.fields {
        let empty_list = ["content", "locations"].contains(&key.as_str())
            && value.as_array().is_some_and(Vec::is_empty);
        if !empty_list {
            update.insert(key.clone(), value.clone());
        }
    }
    let mut meta = view.meta.clone();
    if !view.metadata.is_empty() {
        meta.metadata = Some(view.metadata.clone());
    }
    if !view.streamed.is_empty() {
        meta.output_appended = Some(appended(0, &view.streamed));
    }
    update.insert("_meta".into(), json!({ META_KEY: meta }));
    update
}

fn changes(part: &NormalizedToolPart, sent: &View, view: &View) -> Option<Map<String, Value>> {
    let mut update = Map::new();
    for (key, value) in &view.fields {
        if sent.fields.get(key) != Some(value) {
            update.insert(key.clone(), value.clone());
        }
    }
    for key in sent.fields.keys() {
        if !view.fields.contains_key(key) {
            update.insert(key.clone(), Value::Null);
        }
    }
    let changed = |now: &ToolnormMeta, then: &ToolnormMeta| ToolnormMeta {
        tool_name: now
            .tool_name
            .clone()
            .filter(|_| now.tool_name != then.tool_name),
        kind: now.kind.filter(|_| now.kind != then.kind),
        error: now.error.clone().filter(|_| now.error != then.error),
        timing: now.timing.clone().filter(|_| now.timing != then.timing),
        truncated: now
            .truncated
            .clone()
            .filter(|_| now.truncated != then.truncated),
        ..ToolnormMeta::default()
    };
    let mut meta = changed(&view.meta, &sent.meta);
    let metadata: Map<String, Value> = view
        .metadata
        .iter()
        .filter(|(key, value)| sent.metadata.get(*key) != Some(*value))
        .map(|(key, value)| (key.clone(), value.clone()))
        .collect();
    if !metadata.is_empty() {
        meta.metadata = Some(metadata);
    }
    if let Some(fresh) = view
        .streamed
        .strip_prefix(sent.streamed.as_str())
        .filter(|fresh| !fresh.is_empty())
    {
        meta.output_appended = Some(appended(sent.streamed.len(), fresh));
    }
    let meta_is_empty = meta == ToolnormMeta::default();
    if update.is_empty() && meta_is_empty {
        return None;
    }
    let mut frame = Map::new();
    frame.insert("sessionUpdate".into(), "tool_call_update".into());
    frame.insert("toolCallId".into(), part.id.clone().into());
    frame.extend(update);
    if !meta_is_empty {
        frame.insert("_meta".into(), json!({ META_KEY: meta }));
    }
    Some(frame)
}

fn appended(offset: usize, chunk: &str) -> OutputChunk {
    OutputChunk {
        offset: offset as u64,
        chunk: chunk.to_owned(),
    }
}

/// The ACP view of a part.
fn view(part: &NormalizedToolPart, cap: usize) -> View {
    let mut fields = Map::new();
    let mut truncated = Truncated::default();
    fields.insert("title".into(), part.title.clone().into());
    fields.insert("kind".into(), acp_kind(part.kind).to_string().into());
    fields.insert("status".into(), acp_status(part.state).to_string().into());
    fields.insert("name".into(), part.name.clone().into());
    fields.insert("rawInput".into(), part.input.clone());
    let raw_output = match part.state {
        ToolState::Complete => part.output.as_ref(),
        ToolState::Error => part.error.as_ref().and_then(|error| error.details.as_ref()),
        ToolState::Started | ToolState::Running => None,
    };
    if let Some(output) = raw_output {
        let (value, total) = capped_value(output, cap);
        if let Some(total) = total {
            truncated.raw_output = Some(truncation(total, cap));
        }
        fields.insert("rawOutput".into(), value);
    }
    let mut content: Vec<Value> = diffs(part);
    if let Some(text) = result_text(part) {
        let (text, total) = capped_text(&text, cap);
        if let Some(total) = total {
            truncated.content = Some(truncation(total, cap));
        }
        content.push(json!({ "type": "content", "content": { "type": "text", "text": text } }));
    }
    fields.insert("content".into(), Value::Array(content));
    fields.insert("locations".into(), Value::Array(locations(part)));

    let meta = ToolnormMeta {
        tool_name: Some(part.name.clone()),
        kind: Some(part.kind),
        error: part.error.clone(),
        timing: part.timing.clone(),
        truncated: (!truncated.is_empty()).then_some(truncated),
        ..ToolnormMeta::default()
    };
    let mut metadata = part.metadata.clone().unwrap_or_default();
    let mut streamed = String::new();
    if part.state == ToolState::Running {
        if let Some(Value::String(text)) = metadata.get(toolnorm::meta::PARTIAL_OUTPUT) {
            streamed = text.clone();
        }
        for key in STREAMED_KEYS {
            metadata.remove(*key);
        }
    }
    View {
        fields,
        meta,
        metadata,
        streamed,
    }
}

fn truncation(total: usize, cap: usize) -> Truncation {
    Truncation {
        total_bytes: total as u64,
        cap_bytes: cap as u64,
    }
}

/// `text` cut to at most `cap` bytes (on a character boundary), and its length when cut.
fn capped_text(text: &str, cap: usize) -> (String, Option<usize>) {
    if text.len() <= cap {
        return (text.to_owned(), None);
    }
    let cut = (0..=cap)
        .rev()
        .find_map(|end| text.get(..end))
        .unwrap_or_default();
    (cut.to_owned(), Some(text.len()))
}

/// A value within the cap: itself, or (cut) its text or its JSON text.
fn capped_value(value: &Value, cap: usize) -> (Value, Option<usize>) {
    let text = match value {
        Value::String(text) => text.clone(),
        other => other.to_string(),
    };
    match capped_text(&text, cap) {
        (_, None) => (value.clone(), None),
        (cut, Some(total)) => (Value::String(cut), Some(total)),
    }
}

/// The text a UI shows for the result: the output, or the error's output or message.
fn result_text(part: &NormalizedToolPart) -> Option<String> {
    match part.state {
        ToolState::Complete => match part.output.as_ref()? {
            Value::Null => None,
            Value::String(text) => Some(text.clone()),
            other => Some(other.to_string()),
        },
        ToolState::Error => {
            let error = part.error.as_ref()?;
            let output = error
                .details
                .as_ref()
                .and_then(|details| details.get("output"))
                .and_then(Value::as_str);
            Some(output.unwrap_or(&error.message).to_owned())
        }
        ToolState::Started | ToolState::Running => None,
    }
}

fn string_at<'a>(value: &'a Value, keys: &[&str]) -> Option<&'a str> {
    keys.iter().find_map(|key| value.get(key)?.as_str())
}

const PATH_KEYS: &[&str] = &["file_path", "filePath", "path", "notebook_path"];
const OLD_KEYS: &[&str] = &["old_string", "oldString"];
const NEW_KEYS: &[&str] = &["new_string", "newString"];

fn diff(path: &str, old: Option<&str>, new: &str) -> Value {
    let mut diff = json!({ "type": "diff", "path": path, "newText": new });
    if let (Some(old), Value::Object(fields)) = (old, &mut diff) {
        fields.insert("oldText".into(), old.into());
    }
    diff
}

/// `diff` content for file writes and edits, from what the provider gave: before/after
/// strings (Claude `Edit`/`MultiEdit`, OpenCode `edit`), the whole new file (`Write`,
/// `write`) or unified diffs (Codex `fileChange`).
fn diffs(part: &NormalizedToolPart) -> Vec<Value> {
    if !matches!(part.kind, ToolKind::FileWrite | ToolKind::FileEdit) {
        return Vec::new();
    }
    let input = &part.input;
    if let Some(path) = string_at(input, PATH_KEYS) {
        if let (Some(old), Some(new)) = (string_at(input, OLD_KEYS), string_at(input, NEW_KEYS)) {
            return vec![diff(path, Some(old), new)];
        }
        if let Some(edits) = input.get("edits").and_then(Value::as_array) {
            return edits
                .iter()
                .filter_map(|edit| {
                    let old = string_at(edit, OLD_KEYS)?;
                    Some(diff(path, Some(old), string_at(edit, NEW_KEYS)?))
                })
                .collect();
        }
        if let Some(content) = string_at(input, &["content"]) {
            return vec![diff(path, None, content)];
        }
    }
    let changes = part
        .output
        .as_ref()
        .and_then(|output| output.get("changes"))
        .and_then(Value::as_array);
    changes
        .into_iter()
        .flatten()
        .filter_map(|change| {
            let path = string_at(change, &["path"])?;
            let patch = string_at(change, &["diff"])?;
            let kind = change.get("kind").and_then(|kind| match kind {
                Value::String(kind) => Some(kind.as_str()),
                other => string_at(other, &["type"]),
            });
            Some(match kind {
                Some("add") => diff(path, None, patch),
                Some("delete") => diff(path, Some(patch), ""),
                _ => {
                    let (old, new) = sides_of_patch(patch);
                    diff(path, Some(&old), &new)
                }
            })
        })
        .collect()
}

/// The old and new text of the regions a unified diff touches (context lines in both).
pub(crate) fn sides_of_patch(patch: &str) -> (String, String) {
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

/// The files a call touches: the input's path (with its line when given) and, for
/// Codex file changes, every changed path.
fn locations(part: &NormalizedToolPart) -> Vec<Value> {
    let mut paths: Vec<(String, Option<u64>)> = Vec::new();
    if let Some(path) = string_at(&part.input, PATH_KEYS) {
        let line = ["line", "offset"]
            .iter()
            .find_map(|key| part.input.get(key)?.as_u64())
            .filter(|line| *line > 0 && *line <= u64::from(u32::MAX));
        paths.push((path.to_owned(), line));
    }
    for source in [Some(&part.input), part.output.as_ref()]
        .into_iter()
        .flatten()
    {
        let changes = source.get("changes").and_then(Value::as_array);
        for change in changes.into_iter().flatten() {
            if let Some(path) = string_at(change, &["path"])
                && !paths.iter().any(|(seen, _)| seen == path)
            {
                paths.push((path.to_owned(), None));
            }
        }
    }
    paths
        .into_iter()
        .map(|(path, line)| match line {
            Some(line) => json!({ "path": path, "line": line }),
            None => json!({ "path": path }),
        })
        .collect()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_patch_gives_the_old_and_new_region() {
        let (old, new) = sides_of_patch("@@ -1,2 +1,2 @@\n a\n-b\n+c\n");
        assert_eq!(old, "a\nb\n");
        assert_eq!(new, "a\nc\n");
    }

    #[test]
    fn text_is_cut_on_a_character_boundary() {
        assert_eq!(capped_text("héllo", 2), ("h".to_owned(), Some(6)));
        assert_eq!(capped_text("hello", 5), ("hello".to_owned(), None));
        let (value, total) = capped_value(&json!({"a": "bcdef"}), 4);
        assert_eq!((value, total), (json!("{\"a\""), Some(13)));
    }
}
