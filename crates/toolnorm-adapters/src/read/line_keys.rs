//! [`LineKeys`]: the top-level keys of a line, found once, for the dialects' claims.

use std::borrow::Cow;
use std::fmt;

use serde::de::{self, Deserializer, MapAccess, Visitor};
use serde_json::value::RawValue;

/// The top-level keys of a JSON object line, each with its value still raw. Each
/// dialect says, from these, whether a line is one of its own; the line is read once
/// for all of them.
///
/// A key whose value is `null` counts as absent.
pub struct LineKeys<'a> {
    /// The keys in line order, each with its raw value (`null` values left out).
    keys: Vec<(Cow<'a, str>, &'a RawValue)>,
    /// The object is the first item of an array the line holds, not the line itself.
    array_head: bool,
}

impl<'a> LineKeys<'a> {
    /// The keys of a line, when it is a JSON object (and nothing else). A key written
    /// twice is read where it is first.
    pub fn of(bytes: &'a [u8]) -> Option<Self> {
        let mut deserializer = serde_json::Deserializer::from_slice(bytes);
        let keys = deserializer.deserialize_map(KeysVisitor).ok()?;
        deserializer.end().ok()?;
        Some(keys)
    }

    /// The keys of the first item of a line that is a JSON array (a whole document of
    /// records, such as a Cline task's `ui_messages.json`), when that item is an object.
    pub fn of_array_head(bytes: &'a [u8]) -> Option<Self> {
        let items: Vec<&'a RawValue> = serde_json::from_slice(bytes).ok()?;
        let first = items.first()?;
        let mut keys = LineKeys::of(first.get().as_bytes())?;
        keys.array_head = true;
        Some(keys)
    }

    /// Whether these are the keys of an array's first item ([`LineKeys::of_array_head`]).
    pub fn is_array_head(&self) -> bool {
        self.array_head
    }

    /// The raw value of `key`, when the line has it (and it is not `null`).
    fn get(&self, key: &str) -> Option<&'a RawValue> {
        self.keys
            .iter()
            .find(|(name, _)| name == key)
            .map(|(_, value)| *value)
    }

    /// Whether the line has `key` (with a value other than `null`).
    pub fn has(&self, key: &str) -> bool {
        self.get(key).is_some()
    }

    /// The value of `key` when it is a string (its escapes read).
    pub fn str(&self, key: &str) -> Option<Cow<'a, str>> {
        let raw = self.get(key)?;
        serde_json::from_str::<BorrowedStr<'a>>(raw.get())
            .ok()
            .map(|text| text.0)
    }

    /// The raw JSON text of `key`'s value, when the line has it (and it is not `null`),
    /// for a claim that looks inside a nested value.
    pub fn raw(&self, key: &str) -> Option<&'a str> {
        self.get(key).map(RawValue::get)
    }

    /// `type`, when the line has it as a string.
    pub fn kind(&self) -> Option<Cow<'a, str>> {
        self.str("type")
    }

    /// Whether the value of `key` is an object that has `inner` among its keys.
    pub fn object_has(&self, key: &str, inner: &str) -> bool {
        self.get(key)
            .and_then(|raw| LineKeys::of(raw.get().as_bytes()))
            .is_some_and(|object| object.keys.iter().any(|(name, _)| name == inner))
    }
}

/// A string, borrowed from the line when it has no escapes.
struct BorrowedStr<'a>(Cow<'a, str>);

impl<'de> de::Deserialize<'de> for BorrowedStr<'de> {
    fn deserialize<D: Deserializer<'de>>(deserializer: D) -> Result<Self, D::Error> {
        deserializer.deserialize_str(StrVisitor).map(BorrowedStr)
    }
}

/// Reads a string, borrowed when it can be.
struct StrVisitor;

impl<'de> Visitor<'de> for StrVisitor {
    type Value = Cow<'de, str>;

    fn expecting(&self, formatter: &mut fmt::Formatter<'_>) -> fmt::Result {
        formatter.write_str("a string")
    }

    fn visit_borrowed_str<E: de::Error>(self, text: &'de str) -> Result<Self::Value, E> {
        Ok(Cow::Borrowed(text))
    }

    fn visit_str<E: de::Error>(self, text: &str) -> Result<Self::Value, E> {
        Ok(Cow::Owned(text.to_owned()))
    }
}

/// Reads an object's keys and raw values.
struct KeysVisitor;

impl<'de> Visitor<'de> for KeysVisitor {
    type Value = LineKeys<'de>;

    fn expecting(&self, formatter: &mut fmt::Formatter<'_>) -> fmt::Result {
        formatter.write_str("a JSON object")
    }

    fn visit_map<A: MapAccess<'de>>(self, mut map: A) -> Result<Self::Value, A::Error> {
        let mut keys: Vec<(Cow<'de, str>, &'de RawValue)> = Vec::new();
        while let Some(BorrowedStr(key)) = map.next_key::<BorrowedStr<'de>>()? {
            let value: &'de RawValue = map.next_value()?;
            if value.get() != "null" {
                keys.push((key, value));
            }
        }
        Ok(LineKeys {
            keys,
            array_head: false,
        })
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn keys_are_read_once_and_null_is_absent() {
        let keys = LineKeys::of(br#"{"type":"a\"b","n":null,"m":{"parts":[]},"x":1}"#).unwrap();
        assert_eq!(keys.kind().as_deref(), Some("a\"b"));
        assert!(!keys.has("n") && keys.has("x") && !keys.has("y"));
        assert!(keys.object_has("m", "parts") && !keys.object_has("x", "parts"));
        assert_eq!(keys.str("x"), None);
        assert!(LineKeys::of(b"[1]").is_none());
        assert_eq!(
            LineKeys::of(br#"{"a":"1","a":"2"}"#)
                .unwrap()
                .str("a")
                .as_deref(),
            Some("1")
        );
        assert!(LineKeys::of(br#"{"a":1} x"#).is_none());
    }
}
