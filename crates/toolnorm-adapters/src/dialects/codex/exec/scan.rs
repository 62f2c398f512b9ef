//! One scan of a `codex exec` line: the event, and its item read in place as the
//! generated type its `type` names.
//!
//! It reads only the common shapes: an item whose `type` comes among its first keys (as
//! `codex exec` writes them, after `id`), of a type read in its generated type, readable as
//! that type, or a `web_search` item (written with `id` twice, each key's last value
//! kept, as the field-by-field reading keeps it). Anything else (an item type this
//! version does not know; an item that does not read; a line that is not JSON) makes the
//! scan give up, and the line is read as before, the event first, then the
//! item's `type`, then the item (`CodexExecAdapter::read_fields`), which says what is
//! wrong with it: the scan changes how often the bytes are read, never what a line means.

use std::borrow::Cow;
use std::fmt;

use serde::Deserialize;
use serde::de::value::{BorrowedStrDeserializer, MapAccessDeserializer};
use serde::de::{self, DeserializeSeed, Deserializer, IgnoredAny, MapAccess, Visitor};
use serde_json::value::RawValue;
use toolnorm_wire::codex_exec as exec;

use super::{CommandItem, ExecItem};
use crate::read::checked::Checked;
use crate::read::json::give_up;

/// The line read in one scan, or `None` when it is not of the shapes the scan reads.
pub(super) fn scan(bytes: &[u8]) -> Option<Scanned<'_>> {
    crate::read::json::scan_line(bytes)
}

/// An exec event (the fields of `ExecEvent`), its item read in place.
#[derive(Deserialize)]
pub(super) struct Scanned<'a> {
    #[serde(borrow, rename = "type")]
    pub kind: Option<Cow<'a, str>>,
    #[serde(default)]
    pub item: Option<Box<ExecItem>>,
    #[serde(borrow, default)]
    pub thread_id: Option<Cow<'a, str>>,
}

/// How many keys may come before an item's `type`.
const BEFORE_TYPE: usize = 2;

impl<'de> Deserialize<'de> for ExecItem {
    fn deserialize<D: Deserializer<'de>>(deserializer: D) -> Result<Self, D::Error> {
        deserializer.deserialize_map(ItemVisitor)
    }
}

struct ItemVisitor;

impl<'de> Visitor<'de> for ItemVisitor {
    type Value = ExecItem;

    fn expecting(&self, formatter: &mut fmt::Formatter<'_>) -> fmt::Result {
        formatter.write_str("an exec item")
    }

    fn visit_map<A: MapAccess<'de>>(self, mut map: A) -> Result<Self::Value, A::Error> {
        // The entries before `type`, kept raw to be given back to the generated type.
        let mut before: [Option<(&'de str, &'de RawValue)>; BEFORE_TYPE] = [None; BEFORE_TYPE];
        let mut count = 0;
        loop {
            // A key with an escape does not borrow: the scan gives up.
            let key = map.next_key::<&'de str>()?.ok_or_else(give_up)?;
            if key == "type" {
                break;
            }
            let slot = before.get_mut(count).ok_or_else(give_up)?;
            *slot = Some((key, map.next_value::<&'de RawValue>()?));
            count += 1;
        }
        let kind = map.next_value::<&'de str>()?;
        if matches!(kind, "agent_message" | "reasoning" | "error") {
            // Read past, as the reading of the item's `type` alone does: a second `type`
            // is left to it (it says so).
            while let Some(key) = map.next_key::<&'de str>()? {
                if key == "type" {
                    return Err(give_up());
                }
                map.next_value::<IgnoredAny>()?;
            }
            return Ok(ExecItem::NotACall);
        }
        if kind == "web_search" {
            return web_search(before.into_iter().flatten(), map);
        }
        let rest = MapAccessDeserializer::new(Replayed {
            before: before.into_iter().flatten(),
            value: None,
            kind: Some(kind),
            map,
        });
        match kind {
            "command_execution" => CommandItem::deserialize(rest).map(ExecItem::Command),
            "file_change" => exec::FileChangeItem::deserialize(rest).map(ExecItem::FileChange),
            "mcp_tool_call" => exec::McpToolCallItem::deserialize(rest).map(ExecItem::Mcp),
            "collab_tool_call" => exec::CollabToolCallItem::deserialize(rest).map(ExecItem::Collab),
            "todo_list" => exec::TodoListItem::deserialize(rest).map(ExecItem::Todo),
            _ => Err(give_up()),
        }
    }
}

/// A `web_search` item's entries after its `type` (`before` those read before it), each
/// key's last value kept, as reading the item into a `serde_json::Value` first keeps it.
/// Gives up on anything else: a value of another type, a second `type`, a missing `id` or
/// `query`.
fn web_search<'de, A: MapAccess<'de>>(
    before: impl Iterator<Item = (&'de str, &'de RawValue)>,
    mut map: A,
) -> Result<ExecItem, A::Error> {
    let (mut id, mut query, mut action) = (None, None, None);
    for (key, raw) in before {
        let raw = raw.get();
        match key {
            "id" => id = Some(serde_json::from_str(raw).map_err(|_| give_up::<A::Error>())?),
            "query" => query = Some(serde_json::from_str(raw).map_err(|_| give_up::<A::Error>())?),
            "action" => {
                action = serde_json::from_str(raw).map_err(|_| give_up::<A::Error>())?;
            }
            // Checked as the `Value` reading reads it, so that what it refuses this refuses.
            _ => {
                serde_json::from_str::<Checked>(raw).map_err(|_| give_up::<A::Error>())?;
            }
        }
    }
    while let Some(key) = map.next_key::<Cow<'de, str>>()? {
        match key.as_ref() {
            "id" => id = Some(map.next_value::<String>()?),
            "query" => query = Some(map.next_value::<String>()?),
            "action" => action = map.next_value::<Option<serde_json::Value>>()?,
            // A second `type` is left to the field-by-field reading (it says so).
            "type" => return Err(give_up()),
            _ => {
                map.next_value::<Checked>()?;
            }
        }
    }
    match (id, query) {
        (Some(id), Some(query)) => Ok(ExecItem::WebSearch { id, query, action }),
        _ => Err(give_up()),
    }
}

/// An item's entries, with those read before its `type`, and the `type`, given back first.
struct Replayed<'de, I, A> {
    before: I,
    /// The value of the key given back last.
    value: Option<Pending<'de>>,
    /// The item's `type`, until given back.
    kind: Option<&'de str>,
    map: A,
}

/// A value given back.
enum Pending<'de> {
    Raw(&'de RawValue),
    Str(&'de str),
}

impl<'de, I, A> MapAccess<'de> for Replayed<'de, I, A>
where
    I: Iterator<Item = (&'de str, &'de RawValue)>,
    A: MapAccess<'de>,
{
    type Error = A::Error;

    fn next_key_seed<K: DeserializeSeed<'de>>(
        &mut self,
        seed: K,
    ) -> Result<Option<K::Value>, A::Error> {
        let key = if let Some((key, value)) = self.before.next() {
            self.value = Some(Pending::Raw(value));
            key
        } else if let Some(kind) = self.kind.take() {
            self.value = Some(Pending::Str(kind));
            "type"
        } else {
            return self.map.next_key_seed(seed);
        };
        seed.deserialize(BorrowedStrDeserializer::new(key))
            .map(Some)
    }

    fn next_value_seed<V: DeserializeSeed<'de>>(&mut self, seed: V) -> Result<V::Value, A::Error> {
        match self.value.take() {
            Some(Pending::Raw(raw)) => seed.deserialize(raw).map_err(de::Error::custom),
            Some(Pending::Str(text)) => seed.deserialize(BorrowedStrDeserializer::new(text)),
            None => self.map.next_value_seed(seed),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::Dialect;
    use crate::read::scan_check;

    #[test]
    fn the_scan_reads_every_recording_as_the_field_by_field_reading_does() {
        let files = scan_check::recordings_read_alike(Dialect::CODEX_EXEC, |name| {
            name.starts_with("codex-exec")
        });
        assert!(files > 20, "{files} recordings");
    }

    #[test]
    fn odd_lines_read_as_the_field_by_field_reading_reads_them() {
        let lines = [
            r#"{"type":"item.started","item":{"id":"a","type":"command_execution","command":"ls","aggregated_output":"","status":"in_progress"}}"#,
            r#"{"type":"item.completed","item":{"type":"command_execution","id":"a","command":"ls","aggregated_output":"x","exit_code":0,"status":"completed"}}"#,
            r#"{"type":"item.completed","item":{"id":"b","type":"command_execution","type":"command_execution","command":"ls","aggregated_output":"","status":"completed"}}"#,
            r#"{"type":"item.completed","item":{"id":"c","type":"agent_message","text":"hi","type":"x"}}"#,
            r#"{"type":"item.completed","item":{"id":"d","type":"agent_message","text":"hi"}}"#,
            r#"{"type":"item.completed","item":{"id":"e","type":"hologram","text":"hi"}}"#,
            r#"{"type":"item.completed","item":{"id":"f","type":"command_execution","status":"nope"}}"#,
            r#"{"type":"item.completed","item":{"id":"g","k":1,"j":2,"type":"todo_list","items":[]}}"#,
            r#"{"type":"item.completed","item":{"id":"\u0068","type":"todo_list","items":[]}}"#,
            r#"{"type":"item.completed","item":null}"#,
            r#"{"type":"item.completed","item":"x"}"#,
            r#"{"type":"item.deleted","item":{"id":"d","type":"agent_message"}}"#,
            r#"{"type":"thread.started","thread_id":"t"}"#,
            r#"{"type":"turn.started","type":"turn.started"}"#,
            r#"{"type":"session.nope"}"#,
            r#"{"item":{}}"#,
            r#"{"type":"item.completed","item":{"id":"h","type":"command_execution""#,
            r#"{"type":"item.started","item":{"id":"w","type":"web_search","id":"ws","query":"q","action":{"type":"search","query":"q"}}}"#,
            r#"{"type":"item.completed","item":{"query":"q","id":"w","type":"web_search","id":"ws","action":null}}"#,
            r#"{"type":"item.completed","item":{"id":1,"type":"web_search","id":"ws","query":"q"}}"#,
            r#"{"type":"item.completed","item":{"id":"w","type":"web_search","id":2,"query":"q"}}"#,
            r#"{"type":"item.completed","item":{"id":"w","type":"web_search","query":"q","type":"web_search"}}"#,
            r#"{"type":"item.completed","item":{"id":"w","type":"web_search","query":"q","type":"x"}}"#,
            r#"{"type":"item.completed","item":{"id":"w","type":"web_search"}}"#,
            r#"{"type":"item.completed","item":{"type":"web_search","query":"q"}}"#,
            r#"{"type":"item.completed","item":{"id":"w","type":"web_search","query":"q","n":1e400}}"#,
            r#"{"type":"item.completed","item":{"id":"w","n":1e400,"type":"web_search","query":"q"}}"#,
            r#"{"type":"item.completed","item":{"id":"w","type":"web_search","\u0069d":"esc","query":"q","extra":[1,{"a":null}]}}"#,
            r#"{"type":"item.completed","item":{"id":"w","type":"web_search","query":"q","action":{"type":"open_page"},"action":"x"}}"#,
        ];
        let text = lines.join("\n");
        scan_check::read_alike(Dialect::CODEX_EXEC, text.as_bytes(), "the lines above");
    }

    #[test]
    fn the_common_lines_are_read_in_one_scan() {
        let item = |line: &[u8]| {
            scan(line)
                .and_then(|scanned| scanned.item)
                .map(|item| *item)
        };
        let line = br#"{"type":"item.started","item":{"id":"a","type":"command_execution","command":"ls","aggregated_output":"","status":"in_progress"}}"#;
        assert!(matches!(item(line), Some(ExecItem::Command(_))));
        let line = br#"{"type":"item.completed","item":{"id":"w","type":"web_search","id":"x","query":"q"}}"#;
        assert!(matches!(
            item(line),
            Some(ExecItem::WebSearch { ref id, .. }) if id == "x"
        ));
    }
}
