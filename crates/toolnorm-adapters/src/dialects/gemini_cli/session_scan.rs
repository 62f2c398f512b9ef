//! One scan of a session file's message record or `$set` record: the keys that route it
//! and the calls of its messages, read together, strings borrowed from the line.
//!
//! The field-by-field reading reads such a line whole as JSON before its generated type
//! picks from it (a `$set` as a `Value`, a message through serde's buffer for untagged
//! enums), so every value of the line, known or not, is read as `Value` reads it: the
//! scan does the same ([`Checked`]), reads each known field as its generated type does,
//! and refuses a key seen twice. Anything else (metadata, `$rewindTo` and whole
//! conversations, which come once a file; a stream-json event; a field missing or of
//! another type even where the generated type would ignore it; a `memoryScratchpad`; a
//! line that is not JSON) makes the scan give up, and the line is read as before, which
//! says what is wrong with it: the scan changes how often the bytes are read, never what
//! a line means.

use std::borrow::Cow;
use std::fmt;
use std::marker::PhantomData;

use serde::Deserialize;
use serde::de::{Deserializer, MapAccess, Visitor};
use serde_json::{Map, Value};

use super::session::Call;
use crate::read::borrowed::Text;
use crate::read::checked::{Checked, MaybeKeptText, MaybeText, RAW_VALUE_TOKEN};
use crate::read::json::give_up;

/// The calls of a session file line read in one scan (those of its `gemini` messages, in
/// order), or `None` when it is not of the shapes the scan reads.
pub(super) fn scan(text: &str) -> Option<Vec<Call<'_>>> {
    #[cfg(test)]
    if crate::read::scan_check::field_by_field() {
        return None;
    }
    serde_json::from_str::<Line<'_>>(text).ok()?.0
}

/// Reads the value of a key into its slot, unless the key was seen before.
fn once<'de, A: MapAccess<'de>, T: Deserialize<'de>>(
    map: &mut A,
    slot: &mut Option<T>,
) -> Result<(), A::Error> {
    if slot.is_some() {
        return Err(give_up());
    }
    *slot = Some(map.next_value()?);
    Ok(())
}

/// The next key of a map. serde_json's raw value token is refused wherever it is: a `$set`
/// is read whole as a `Value` first, which reads a map that begins with it otherwise.
fn next_key<'de, A: MapAccess<'de>>(map: &mut A) -> Result<Option<Cow<'de, str>>, A::Error> {
    match map.next_key::<Text<'de>>()? {
        Some(Text(key)) if key == RAW_VALUE_TOKEN => Err(give_up()),
        key => Ok(key.map(|Text(key)| key)),
    }
}

/// A call's `args` (`Map<String, Value>`), read as that map reads them.
struct Args(Map<String, Value>);

impl<'de> Deserialize<'de> for Args {
    fn deserialize<D: Deserializer<'de>>(deserializer: D) -> Result<Self, D::Error> {
        deserializer.deserialize_map(ArgsVisitor)
    }
}

struct ArgsVisitor;

impl<'de> Visitor<'de> for ArgsVisitor {
    type Value = Args;

    fn expecting(&self, formatter: &mut fmt::Formatter<'_>) -> fmt::Result {
        formatter.write_str("a map")
    }

    fn visit_map<A: MapAccess<'de>>(self, mut map: A) -> Result<Args, A::Error> {
        let mut args = Map::new();
        while let Some(key) = next_key(&mut map)? {
            let value = map.next_value::<Value>()?;
            args.insert(key.into_owned(), value);
        }
        Ok(Args(args))
    }
}

/// Implements `Deserialize` for a type read from a map by its visitor.
macro_rules! from_map {
    ($type:ident, $visitor:ident, $what:literal) => {
        impl<'de> Deserialize<'de> for $type<'de> {
            fn deserialize<D: Deserializer<'de>>(deserializer: D) -> Result<Self, D::Error> {
                deserializer.deserialize_map($visitor)
            }
        }

        struct $visitor;

        impl<'de> Visitor<'de> for $visitor {
            type Value = $type<'de>;

            fn expecting(&self, formatter: &mut fmt::Formatter<'_>) -> fmt::Result {
                formatter.write_str($what)
            }

            fn visit_map<A: MapAccess<'de>>(self, map: A) -> Result<Self::Value, A::Error> {
                $type::read(map)
            }
        }
    };
}

/// A line: a message record or a `$set`; `None` for the shapes the scan leaves alone
/// (it gives up on them as soon as it can).
struct Line<'a>(Option<Vec<Call<'a>>>);

from_map!(Line, LineVisitor, "a session file record");

impl<'de> Line<'de> {
    fn read<A: MapAccess<'de>>(mut map: A) -> Result<Self, A::Error> {
        let mut message = MessageFields::default();
        let (mut set, mut tool_id, mut tool_name) = (None, None, None);
        while let Some(key) = next_key(&mut map)? {
            if message.read(&key, &mut map)? {
                continue;
            }
            match key.as_ref() {
                "$set" => once(&mut map, &mut set)?,
                // Keys the routing reads, which it refuses twice.
                "tool_id" => once::<_, Checked>(&mut map, &mut tool_id)?,
                "tool_name" => once::<_, Checked>(&mut map, &mut tool_name)?,
                _ => {
                    map.next_value::<Checked>()?;
                }
            }
        }
        let calls = match message.kind.as_ref().and_then(Option::as_ref) {
            // A record without a type: only a `$set` is read here.
            None => set.map(|set: Set<'de>| set.0),
            // `error` is also a stream-json event: a message's has an id.
            Some(Text(kind)) if kind == "error" && !matches!(message.id, Some(Some(_))) => None,
            Some(_) => message.into_calls(),
        };
        Ok(Line(calls))
    }
}

/// The fields of a message record (`MessageRecord`: a `gemini` message, or a `user`,
/// `info`, `error` or `warning` one, which has no calls).
#[derive(Default)]
struct MessageFields<'a> {
    kind: Option<Option<Text<'a>>>,
    id: Option<Option<Text<'a>>>,
    timestamp: Option<Option<Text<'a>>>,
    content: Option<Checked>,
    display_content: Option<Checked>,
    model: Option<Option<Text<'a>>>,
    thoughts: Option<Vec<Thought<'a>>>,
    tokens: Option<Option<Tokens<'a>>>,
    tool_calls: Option<Vec<Call<'a>>>,
}

impl<'de> MessageFields<'de> {
    /// Reads the value of `key` when it is a message's field; says whether it was.
    fn read<A: MapAccess<'de>>(&mut self, key: &str, map: &mut A) -> Result<bool, A::Error> {
        match key {
            "type" => once(map, &mut self.kind)?,
            "id" => once(map, &mut self.id)?,
            "timestamp" => once(map, &mut self.timestamp)?,
            "content" => once(map, &mut self.content)?,
            "displayContent" => once(map, &mut self.display_content)?,
            "model" => once(map, &mut self.model)?,
            "thoughts" => once(map, &mut self.thoughts)?,
            "tokens" => once(map, &mut self.tokens)?,
            "toolCalls" => once(map, &mut self.tool_calls)?,
            _ => return Ok(false),
        }
        Ok(true)
    }

    /// The calls of the message, when it has every field its type requires (none for a
    /// message of another type than `gemini`).
    fn into_calls(self) -> Option<Vec<Call<'de>>> {
        let Some(Some(Text(kind))) = self.kind else {
            return None;
        };
        self.content.as_ref()?;
        self.id.flatten()?;
        self.timestamp.flatten()?;
        match kind.as_ref() {
            "gemini" => Some(self.tool_calls.unwrap_or_default()),
            "user" | "info" | "error" | "warning" => Some(Vec::new()),
            _ => None,
        }
    }
}

/// A message record inside a `$set`.
struct Message<'a>(Vec<Call<'a>>);

from_map!(Message, MessageVisitor, "a message record");

impl<'de> Message<'de> {
    fn read<A: MapAccess<'de>>(mut map: A) -> Result<Self, A::Error> {
        let mut message = MessageFields::default();
        while let Some(key) = next_key(&mut map)? {
            if !message.read(&key, &mut map)? {
                map.next_value::<Checked>()?;
            }
        }
        message.into_calls().map(Message).ok_or_else(give_up)
    }
}

/// `$set` (`MetadataUpdateRecordSet`): the calls of the messages it sets.
struct Set<'a>(Vec<Call<'a>>);

from_map!(Set, SetVisitor, "a $set record");

impl<'de> Set<'de> {
    fn read<A: MapAccess<'de>>(mut map: A) -> Result<Self, A::Error> {
        let mut texts: [Option<Option<Text<'de>>>; 6] = Default::default();
        let (mut directories, mut scratchpad, mut messages) = (None, None, None);
        while let Some(key) = next_key(&mut map)? {
            let slot = match key.as_ref() {
                "kind" => 0,
                "lastUpdated" => 1,
                "projectHash" => 2,
                "sessionId" => 3,
                "startTime" => 4,
                "summary" => 5,
                "directories" => {
                    once::<_, Vec<Text<'de>>>(&mut map, &mut directories)?;
                    continue;
                }
                "memoryScratchpad" => {
                    once::<_, Option<Checked>>(&mut map, &mut scratchpad)?;
                    continue;
                }
                "messages" => {
                    once::<_, Vec<Message<'de>>>(&mut map, &mut messages)?;
                    continue;
                }
                _ => {
                    map.next_value::<Checked>()?;
                    continue;
                }
            };
            let slot = texts.get_mut(slot).ok_or_else(give_up)?;
            once(&mut map, slot)?;
        }
        // A scratchpad is read by its own type, which the scan does not.
        if matches!(scratchpad, Some(Some(_))) {
            return Err(give_up());
        }
        if let Some(Some(Text(kind))) = &texts[0]
            && !matches!(kind.as_ref(), "main" | "subagent")
        {
            return Err(give_up());
        }
        let calls = messages
            .unwrap_or_default()
            .into_iter()
            .flat_map(|message| message.0)
            .collect();
        Ok(Set(calls))
    }
}

/// An entry of a message's `thoughts` (`timestamp` is all its type requires), checked only.
struct Thought<'a>(PhantomData<&'a ()>);

from_map!(Thought, ThoughtVisitor, "a thought");

impl<'de> Thought<'de> {
    fn read<A: MapAccess<'de>>(mut map: A) -> Result<Self, A::Error> {
        let mut timestamp = None;
        while let Some(key) = next_key(&mut map)? {
            if key == "timestamp" {
                once::<_, Text<'de>>(&mut map, &mut timestamp)?;
            } else {
                map.next_value::<Checked>()?;
            }
        }
        timestamp.map(|_| Thought(PhantomData)).ok_or_else(give_up)
    }
}

/// A message's `tokens` (`TokensSummary`), checked only.
struct Tokens<'a>(PhantomData<&'a ()>);

from_map!(Tokens, TokensVisitor, "a tokens summary");

impl<'de> Tokens<'de> {
    fn read<A: MapAccess<'de>>(mut map: A) -> Result<Self, A::Error> {
        // `cached`, `input`, `output`, `total` (required), `thoughts`, `tool`.
        let mut counts: [Option<Option<i64>>; 6] = [None; 6];
        while let Some(key) = next_key(&mut map)? {
            let slot = match key.as_ref() {
                "cached" => 0,
                "input" => 1,
                "output" => 2,
                "total" => 3,
                "thoughts" => 4,
                "tool" => 5,
                _ => {
                    map.next_value::<Checked>()?;
                    continue;
                }
            };
            let slot = counts.get_mut(slot).ok_or_else(give_up)?;
            once(&mut map, slot)?;
        }
        if counts
            .iter()
            .take(4)
            .any(|count| !matches!(count, Some(Some(_))))
        {
            return Err(give_up());
        }
        Ok(Tokens(PhantomData))
    }
}

/// An entry of a message's `toolCalls` (`ToolCallRecord`).
impl<'de> Deserialize<'de> for Call<'de> {
    fn deserialize<D: Deserializer<'de>>(deserializer: D) -> Result<Self, D::Error> {
        deserializer.deserialize_map(CallVisitor)
    }
}

struct CallVisitor;

impl<'de> Visitor<'de> for CallVisitor {
    type Value = Call<'de>;

    fn expecting(&self, formatter: &mut fmt::Formatter<'_>) -> fmt::Result {
        formatter.write_str("a tool call record")
    }

    fn visit_map<A: MapAccess<'de>>(self, mut map: A) -> Result<Call<'de>, A::Error> {
        // `agentId`, `description`, `displayName`, `id`, `name`, `timestamp`.
        let mut texts: [Option<Option<Text<'de>>>; 6] = Default::default();
        let (mut args, mut render, mut result, mut display, mut status) =
            (None, None, None, None, None);
        while let Some(key) = next_key(&mut map)? {
            let slot = match key.as_ref() {
                "agentId" => 0,
                "description" => 1,
                "displayName" => 2,
                "id" => 3,
                "name" => 4,
                "timestamp" => 5,
                "args" => {
                    once::<_, Args>(&mut map, &mut args)?;
                    continue;
                }
                "renderOutputAsMarkdown" => {
                    once::<_, Option<bool>>(&mut map, &mut render)?;
                    continue;
                }
                "result" => {
                    once::<_, Option<Value>>(&mut map, &mut result)?;
                    continue;
                }
                "resultDisplay" => {
                    once::<_, MaybeKeptText>(&mut map, &mut display)?;
                    continue;
                }
                "status" => {
                    once::<_, MaybeText<'de>>(&mut map, &mut status)?;
                    continue;
                }
                _ => {
                    map.next_value::<Checked>()?;
                    continue;
                }
            };
            let slot = texts.get_mut(slot).ok_or_else(give_up)?;
            once(&mut map, slot)?;
        }
        let [_, _, display_name, id, name, timestamp] = texts;
        let required = |text: Option<Option<Text<'de>>>| text.flatten().map(|text| text.0);
        Ok(Call {
            id: required(id).ok_or_else(give_up)?,
            name: required(name).ok_or_else(give_up)?,
            args: args.ok_or_else(give_up)?.0,
            status: status.ok_or_else(give_up)?.0,
            timestamp: required(timestamp).ok_or_else(give_up)?,
            display_name: required(display_name),
            result_display: display.and_then(|display| display.0),
            result: result.flatten(),
        })
    }
}

#[cfg(test)]
mod tests {
    use std::borrow::Cow;

    use super::*;
    use crate::Dialect;
    use crate::read::scan_check;

    /// A `gemini` message whose one call has `call` spliced in after its id.
    fn gemini(id: &str, call: &str) -> String {
        format!(
            r#"{{"id":"m-{id}","timestamp":"t","type":"gemini","content":"x","toolCalls":[{{"id":"{id}"{call}}}]}}"#
        )
    }

    #[test]
    fn the_scan_reads_every_recording_as_the_field_by_field_reading_does() {
        // The session files of every recorded version.
        let files = scan_check::recordings_read_alike(Dialect::GEMINI_CLI, |name| {
            name.starts_with("gemini-cli-session")
        });
        assert!(files >= 28, "{files} recordings");
    }

    #[test]
    fn odd_lines_read_as_the_field_by_field_reading_reads_them() {
        let ok = r#","name":"read_file","args":{"p":1},"status":"success","timestamp":"t","result":[{"functionResponse":{"response":{"output":"ok"}}}],"resultDisplay":"ok""#;
        let deep = format!(
            r#"{{"$set":{{"lastUpdated":"t","x":{}{}}}}}"#,
            "[".repeat(200),
            "]".repeat(200)
        );
        let lines = [
            r#"{"sessionId":"s","projectHash":"p","startTime":"t","lastUpdated":"t","kind":"main"}"#.to_owned(),
            gemini("a", ok),
            gemini("b", &ok.replace(r#""status":"success""#, r#""status":"executing""#)),
            gemini("c", &ok.replace(r#""status":"success""#, r#""status":"error""#)),
            gemini("d", &ok.replace(r#""status":"success""#, r#""status":"cancelled""#)),
            // Duplicate keys, in the record, in a call, in a `$set`.
            gemini("e", ok).replacen(r#""type":"gemini""#, r#""type":"gemini","type":"gemini""#, 1),
            gemini("f", ok).replacen(r#""id":"m-f""#, r#""id":"m-f","id":"m-f""#, 1),
            gemini("g", ok).replacen(r#""content":"x""#, r#""content":"x","tool_id":1,"tool_id":2"#, 1),
            gemini("h", ok).replacen(r#""content":"x""#, r#""content":"x","other":1,"other":2"#, 1),
            gemini("i", &format!(r#","id":"i2"{ok}"#)),
            gemini("j", &format!(r#"{ok},"args":{{}}"#)),
            format!(r#"{{"$set":{{"messages":[],"messages":[{}]}}}}"#, gemini("k", ok)),
            // Null, string and other payloads.
            gemini("l", &ok.replace(r#""args":{"p":1}"#, r#""args":null"#)),
            gemini("m", &ok.replace(r#""args":{"p":1}"#, r#""args":"x""#)),
            gemini("n", &ok.replace(r#""result":["#, r#""result":null,"r":["#)),
            gemini("o", &ok.replace(r#""result":["#, r#""result":"x","r":["#)),
            gemini("p", &ok.replace(r#""resultDisplay":"ok""#, r#""resultDisplay":{"fileDiff":"d"}"#)),
            gemini("q", &ok.replace(r#""resultDisplay":"ok""#, r#""resultDisplay":null"#)),
            gemini("r", &ok.replace(r#""status":"success""#, r#""status":null"#)),
            gemini("s", &ok.replace(r#""status":"success""#, r#""status":5"#)),
            gemini("t", &ok.replace(r#""status":"success","#, "")),
            gemini("u", &format!(r#"{ok},"displayName":null,"agentId":"x","renderOutputAsMarkdown":true"#)),
            gemini("v", ok).replacen(r#""content":"x""#, r#""content":null,"displayContent":null"#, 1),
            gemini("w", ok).replacen(r#""content":"x""#, r#""content":"x","toolCalls":null"#, 1),
            gemini("x", ok).replacen(r#""content":"x""#, r#""content":"x","thoughts":null"#, 1),
            gemini("y", ok).replacen(r#""content":"x""#, r#""content":"x","thoughts":[{"subject":"s","timestamp":"t"}],"tokens":null,"model":null"#, 1),
            gemini("z", ok).replacen(r#""content":"x""#, r#""content":"x","tokens":{"input":1,"output":2,"cached":0,"total":3,"thoughts":null}"#, 1),
            gemini("aa", ok).replacen(r#""content":"x""#, r#""content":"x","tokens":{"input":1,"output":2,"cached":0}"#, 1),
            gemini("ab", ok).replacen(r#""content":"x""#, r#""content":"x","tokens":{"input":1.5,"output":2,"cached":0,"total":3}"#, 1),
            gemini("ac", ok).replacen(r#""content":"x""#, r#""content":"x","thoughts":[{"timestamp":"t","x":1e400}]"#, 1),
            gemini("ad", ok).replacen(r#""content":"x""#, r#""content":"x","extra":1e400"#, 1),
            gemini("ae", &format!(r#"{ok},"extra":{{"$serde_json::private::RawValue":"[1"}}"#)),
            gemini("af", ok).replacen(r#""content":"x","#, "", 1),
            // Other types, routing by `error`'s id, a message with calls that is not `gemini`.
            gemini("ag", ok).replacen(r#""type":"gemini""#, r#""type":"user""#, 1),
            gemini("ah", ok).replacen(r#""type":"gemini""#, r#""type":"hologram""#, 1),
            gemini("ai", ok).replacen(r#""type":"gemini""#, r#""type":"tool_use""#, 1),
            gemini("aj", ok).replacen(r#""type":"gemini""#, r#""type":null"#, 1),
            r#"{"id":"e","timestamp":"t","type":"error","content":"m"}"#.to_owned(),
            r#"{"id":null,"timestamp":"t","type":"error","content":"m","message":"m","severity":"error"}"#.to_owned(),
            r#"{"timestamp":"t","type":"info","content":[{"text":"hi"}],"id":"i"}"#.to_owned(),
            // `$set` records.
            r#"{"$set":{"lastUpdated":"t"}}"#.to_owned(),
            r#"{"$set":{"lastUpdated":"t","kind":"subagent","directories":["/a"]}}"#.to_owned(),
            r#"{"$set":{"lastUpdated":"t","kind":"weird"}}"#.to_owned(),
            r#"{"$set":{"lastUpdated":5}}"#.to_owned(),
            r#"{"$set":{"directories":null}}"#.to_owned(),
            r#"{"$set":{"memoryScratchpad":{"version":1}}}"#.to_owned(),
            r#"{"$set":{"memoryScratchpad":null}}"#.to_owned(),
            r#"{"$set":null}"#.to_owned(),
            r#"{"$set":{},"type":null}"#.to_owned(),
            r#"{"$set":{},"$set":{}}"#.to_owned(),
            r#"{"$set":{},"projectHash":"p","sessionId":"s2"}"#.to_owned(),
            format!(r#"{{"$set":{{"messages":[{},{}]}}}}"#, gemini("ak", ok), gemini("a", ok)),
            format!(r#"{{"$set":{{"messages":[{}]}}}}"#, gemini("al", ok).replacen(r#""type":"gemini""#, r#""type":"bad""#, 1)),
            r#"{"$set":{"x":{"$serde_json::private::RawValue":"[1"}}}"#.to_owned(),
            // serde_json's raw value token as a key, which `Value` reads otherwise.
            r#"{"$set":{"$serde_json::private::RawValue":"[1"}}"#.to_owned(),
            r#"{"$set":{"$serde_json::private::RawValue":"{}"}}"#.to_owned(),
            r#"{"$serde_json::private::RawValue":"{}","$set":{}}"#.to_owned(),
            format!(
                r#"{{"$set":{{"messages":[{}]}}}}"#,
                gemini("aq", &ok.replace(r#""args":{"p":1}"#, r#""args":{"$serde_json::private::RawValue":"[1"}"#))
            ),
            gemini("ar", &ok.replace(r#""args":{"p":1}"#, r#""args":{"$serde_json::private::RawValue":"{}"}"#)),
            deep,
            r#"{"$rewindTo":"m-a"}"#.to_owned(),
            r#"{"$rewindTo":5}"#.to_owned(),
            r#"{"other":1}"#.to_owned(),
            // Escaped keys, unicode escapes, cut JSON.
            gemini("am", ok).replacen("toolCalls", r"tool\u0043alls", 1),
            gemini("\\u00e9\\ud83d\\ude00", &ok.replace("read_file", r"mcp_s\u005ft")),
            gemini("an", ok).replacen(r#""type""#, r#""\u0074ype""#, 1),
            gemini("ao", ok)[..60].to_owned(),
            format!("{} x", gemini("ap", ok)),
        ];
        let text = lines.join("\n");
        scan_check::read_alike(Dialect::GEMINI_CLI, text.as_bytes(), "the lines above");
    }

    #[test]
    fn the_common_lines_are_read_in_one_scan() {
        let line = gemini(
            "a",
            r#","name":"read_file","args":{"p":1},"status":"success","timestamp":"t","resultDisplay":"ok""#,
        );
        let calls = scan(&line).unwrap();
        assert!(matches!(
            calls.as_slice(),
            [Call {
                id: Cow::Borrowed("a"),
                status: Some(Cow::Borrowed("success")),
                result_display: Some(display),
                ..
            }] if display.raw_text() == Some(r#""ok""#)
        ));
        for line in [
            r#"{"$set":{"lastUpdated":"t"}}"#,
            r#"{"id":"u","timestamp":"t","type":"user","content":[{"text":"hi"}]}"#,
            r#"{"id":"g","timestamp":"t","type":"gemini","content":"hi","thoughts":[],"tokens":{"input":1,"output":2,"cached":0,"thoughts":0,"tool":0,"total":3},"model":"m"}"#,
        ] {
            assert!(scan(line).is_some_and(|calls| calls.is_empty()), "{line}");
        }
        let line = r#"{"sessionId":"s","projectHash":"p","startTime":"t","lastUpdated":"t"}"#;
        assert!(scan(line).is_none());
    }
}
