//! [`Payload`]: a JSON value a provider gave, carried as the text it came as.

mod canonical;
mod head;
mod text;

use std::borrow::Cow;
use std::cell::Cell;
use std::fmt;
use std::ops::Deref;
use std::sync::{Arc, OnceLock};

use serde::de::{self, DeserializeSeed, MapAccess, Unexpected, Visitor};
use serde::ser::SerializeStruct;
use serde::{Deserialize, Deserializer, Serialize, Serializer};
use serde_json::Value;
use serde_json::value::RawValue;

use canonical::Form;
use text::Text;
pub use text::read_sharing;

/// A JSON value a provider gave: a call's input or output, an error's details.
///
/// Read from JSON, a payload keeps the text it came as, when that text is what
/// `serde_json` would write for its value (the usual escapes, integers, no repeated key;
/// whitespace between tokens is taken out), and writes that text back without building
/// a tree. It is parsed into a [`Value`] the first time something reads into it (through
/// `Deref`, [`Payload::value`]), once, however often it is cloned after. Any other text
/// is parsed as it is read, so a payload always writes the same bytes as its value would.
///
/// A payload built from a [`Value`] (`Payload::from(value)`, `.into()`) holds the value.
/// Equality is that of the values.
///
/// ```
/// use serde_json::json;
/// use toolnorm::Payload;
///
/// let payload: Payload = serde_json::from_str(r#"{"command":"ls"}"#).unwrap();
/// assert!(payload.raw_text().is_some());
/// assert_eq!(payload["command"], "ls");
/// assert_eq!(payload, Payload::from(json!({"command": "ls"})));
/// assert_eq!(serde_json::to_string(&payload).unwrap(), r#"{"command":"ls"}"#);
/// ```
#[derive(Clone)]
pub struct Payload(Repr);

#[derive(Clone)]
enum Repr {
    Value(Value),
    Raw(Arc<Raw>),
}

/// A JSON text a payload is read from: lent by the reader (copied only when kept, and
/// not even then when it lies in the line being read shared), or its own.
enum Source<'a> {
    Lent(&'a str),
    Own(Box<str>),
}

impl Source<'_> {
    fn get(&self) -> &str {
        match self {
            Source::Lent(text) => text,
            Source::Own(text) => text,
        }
    }
}

/// A canonical text and its value once something read it.
struct Raw {
    text: Text,
    value: OnceLock<Value>,
}

impl Payload {
    /// JSON `null`.
    pub const NULL: Payload = Payload(Repr::Value(Value::Null));

    /// A payload of `text`, a JSON text already known to be valid: kept as it is when
    /// canonical, without its spaces when only they differ, parsed otherwise (which fails
    /// only when it nests past the parser's recursion limit).
    pub fn from_raw(text: Box<RawValue>) -> Result<Payload, serde_json::Error> {
        Payload::from_text(Source::Own(text.into()))
    }

    /// A payload of `text`, valid JSON: kept when canonical (a lent text stays in the
    /// line it was lent from when that line is shared, else is copied), compacted when
    /// spaced, parsed otherwise.
    fn from_text(text: Source<'_>) -> Result<Payload, serde_json::Error> {
        let kept = match (canonical::form(text.get()), text) {
            (Form::Canonical, Source::Own(text)) => Text::Own(text),
            (Form::Canonical, Source::Lent(text)) => {
                Text::in_line(text).unwrap_or_else(|| Text::Own(text.into()))
            }
            (Form::Spaced, text) => Text::Own(canonical::compact(text.get()).into_boxed_str()),
            (Form::Other, text) => {
                return serde_json::from_str::<Value>(text.get()).map(Payload::from);
            }
        };
        Ok(Payload(Repr::Raw(Arc::new(Raw {
            text: kept,
            value: OnceLock::new(),
        }))))
    }

    /// A payload of a JSON text, checked (an error when it is not JSON).
    pub fn from_json(text: &str) -> Result<Payload, serde_json::Error> {
        RawValue::from_string(text.to_owned()).and_then(Payload::from_raw)
    }

    /// The value, parsed from the kept text the first time it is asked for.
    pub fn value(&self) -> &Value {
        match &self.0 {
            Repr::Value(value) => value,
            Repr::Raw(raw) => raw.value.get_or_init(|| parse_canonical(&raw.text)),
        }
    }

    /// The JSON text kept, when the payload was read from one it could keep (and was not
    /// changed since): the text read, whitespace between tokens taken out; exactly what
    /// serde_json's compact writer writes for the payload.
    pub fn raw_text(&self) -> Option<&str> {
        match &self.0 {
            Repr::Raw(raw) => Some(raw.text.get()),
            Repr::Value(_) => None,
        }
    }

    /// The value to change in place; the kept text, if any, is dropped.
    pub fn to_mut(&mut self) -> &mut Value {
        if let Repr::Raw(raw) = &self.0 {
            let value = raw
                .value
                .get()
                .cloned()
                .unwrap_or_else(|| parse_canonical(&raw.text));
            self.0 = Repr::Value(value);
        }
        match &mut self.0 {
            Repr::Value(value) => value,
            Repr::Raw(_) => unreachable!("the text was replaced by its value just above"),
        }
    }

    /// The value, owned.
    pub fn into_value(self) -> Value {
        match self.0 {
            Repr::Value(value) => value,
            Repr::Raw(raw) => match Arc::try_unwrap(raw) {
                Ok(raw) => raw
                    .value
                    .into_inner()
                    .unwrap_or_else(|| parse_canonical(&raw.text)),
                Err(raw) => raw
                    .value
                    .get()
                    .cloned()
                    .unwrap_or_else(|| parse_canonical(&raw.text)),
            },
        }
    }

    /// Whether the payload is `null` (read without parsing a kept text).
    pub fn is_null(&self) -> bool {
        match &self.0 {
            Repr::Raw(raw) => raw.text.get() == "null",
            Repr::Value(value) => value.is_null(),
        }
    }

    /// The string, when the payload is a JSON string (a kept text is parsed only then).
    pub fn as_str(&self) -> Option<&str> {
        match &self.0 {
            Repr::Raw(raw) if !raw.text.get().starts_with('"') => None,
            _ => self.value().as_str(),
        }
    }

    /// The string, when the payload is a JSON string, without keeping a parsed copy: a
    /// kept text without escapes is borrowed as it is, one with escapes decoded for the
    /// caller alone. For a writer that reads a huge output once, where [`Payload::as_str`]
    /// would hold the text twice for the payload's life.
    pub fn text(&self) -> Option<Cow<'_, str>> {
        match &self.0 {
            Repr::Raw(raw) => match raw.value.get() {
                Some(value) => value.as_str().map(Cow::Borrowed),
                None if raw.text.get().starts_with('"') => {
                    let quoted = raw.text.get();
                    // A kept string has no raw control character: without a backslash,
                    // what is between its quotes is its text.
                    match quoted.contains('\\') {
                        false => quoted.get(1..quoted.len() - 1).map(Cow::Borrowed),
                        true => serde_json::from_str::<String>(quoted).ok().map(Cow::Owned),
                    }
                }
                None => None,
            },
            Repr::Value(value) => value.as_str().map(Cow::Borrowed),
        }
    }

    /// The beginning of the string, when the payload is a JSON string: the whole text when
    /// it is shorter than `max` bytes, else a prefix at least `max` bytes long (cut where a
    /// character ends), decoded without decoding the rest and without keeping a parsed
    /// copy. For telling a possibly huge output's kind by how it begins: a head shorter
    /// than `max` is the whole text, so a comparison with a text shorter than `max` is
    /// exact.
    pub fn text_head(&self, max: usize) -> Option<Cow<'_, str>> {
        match &self.0 {
            Repr::Raw(raw) if raw.value.get().is_none() && raw.text.get().starts_with('"') => {
                head::string_head(raw.text.get(), max)
            }
            _ => self.text(),
        }
    }

    /// Whether the payload is a JSON string (read without parsing a kept text).
    pub fn is_string(&self) -> bool {
        match &self.0 {
            Repr::Raw(raw) => raw.text.get().starts_with('"'),
            Repr::Value(value) => value.is_string(),
        }
    }

    /// Whether the payload is a JSON object (read without parsing a kept text).
    pub fn is_object(&self) -> bool {
        match &self.0 {
            Repr::Raw(raw) => raw.text.get().starts_with('{'),
            Repr::Value(value) => value.is_object(),
        }
    }

    /// The JSON text of the payload: the kept text, or the value written.
    pub fn to_json(&self) -> String {
        match &self.0 {
            Repr::Raw(raw) => raw.text.get().to_owned(),
            // Written by serde_json's writer straight into the string (`to_string`, through
            // `Display`, goes through the formatter a piece at a time); a `Value` always
            // serializes, and `Display` writes the same text.
            Repr::Value(value) => {
                serde_json::to_string(value).unwrap_or_else(|_| value.to_string())
            }
        }
    }
}

/// Parses a text [`canonical::is_canonical`] accepted: valid JSON (it was read as such)
/// nested at most [`canonical::MAX_DEPTH`] deep, under the parser's limit, so it cannot
/// fail; were it to, the value reads as `null` and the text is still what is written.
fn parse_canonical(text: &Text) -> Value {
    serde_json::from_str(text.get()).unwrap_or(Value::Null)
}

impl Default for Payload {
    fn default() -> Self {
        Payload::NULL
    }
}

impl Deref for Payload {
    type Target = Value;

    fn deref(&self) -> &Value {
        self.value()
    }
}

impl From<Value> for Payload {
    fn from(value: Value) -> Self {
        Payload(Repr::Value(value))
    }
}

/// A JSON string.
impl From<&str> for Payload {
    fn from(text: &str) -> Self {
        Payload(Repr::Value(Value::from(text)))
    }
}

/// A JSON string.
impl From<String> for Payload {
    fn from(text: String) -> Self {
        Payload(Repr::Value(Value::String(text)))
    }
}

impl From<Payload> for Value {
    fn from(payload: Payload) -> Self {
        payload.into_value()
    }
}

impl PartialEq for Payload {
    fn eq(&self, other: &Payload) -> bool {
        match (self.raw_text(), other.raw_text()) {
            (Some(left), Some(right)) if left == right => true,
            _ => self.value() == other.value(),
        }
    }
}

impl PartialEq<Value> for Payload {
    fn eq(&self, other: &Value) -> bool {
        self.value() == other
    }
}

impl PartialEq<Payload> for Value {
    fn eq(&self, other: &Payload) -> bool {
        self == other.value()
    }
}

impl fmt::Debug for Payload {
    fn fmt(&self, formatter: &mut fmt::Formatter<'_>) -> fmt::Result {
        match &self.0 {
            Repr::Value(value) => fmt::Debug::fmt(value, formatter),
            Repr::Raw(raw) => write!(formatter, "Payload({})", raw.text.get()),
        }
    }
}

impl fmt::Display for Payload {
    fn fmt(&self, formatter: &mut fmt::Formatter<'_>) -> fmt::Result {
        match &self.0 {
            Repr::Value(value) => fmt::Display::fmt(value, formatter),
            Repr::Raw(raw) => formatter.write_str(raw.text.get()),
        }
    }
}

/// A kept text is written as it is to `serde_json`'s compact writer and `Value`
/// serializer; to any other serializer (pretty JSON, a snapshot tool, another format), as
/// its value.
impl Serialize for Payload {
    fn serialize<S: Serializer>(&self, serializer: S) -> Result<S::Ok, S::Error> {
        match &self.0 {
            // What `RawValue` hands serde_json's serializers, which write the text as it is.
            Repr::Raw(raw) if takes_raw_text::<S>() => {
                let mut text = serializer.serialize_struct(RAW_VALUE_TOKEN, 1)?;
                text.serialize_field(RAW_VALUE_TOKEN, raw.text.get())?;
                text.end()
            }
            _ => self.value().serialize(serializer),
        }
    }
}

/// Whether `S` is `serde_json`'s compact writer or its `Value` serializer, which take a
/// `RawValue` as its text (any other serializer would write it as a struct; a pretty
/// writer would write it compact). Told by the type's name: a name this does not know
/// only costs the parse. The answer for the last name asked is kept (a writer asks for
/// every payload it writes, with the same serializer).
fn takes_raw_text<S>() -> bool {
    thread_local! {
        static LAST: Cell<(usize, usize, bool)> = const { Cell::new((0, 0, false)) };
    }
    let name = std::any::type_name::<S>();
    // The name is a static string: the same address and length are the same bytes.
    let key = (name.as_ptr() as usize, name.len());
    LAST.with(|last| match last.get() {
        (at, len, answer) if (at, len) == key => answer,
        _ => {
            let answer = names_a_raw_serializer(name);
            last.set((key.0, key.1, answer));
            answer
        }
    })
}

/// Whether `name`, a serializer's type name, is one of [`takes_raw_text`]'s.
fn names_a_raw_serializer(name: &str) -> bool {
    if name == "serde_json::value::ser::Serializer" {
        return true;
    }
    // `&mut serde_json::ser::Serializer<W>` (the default, compact formatter, which the
    // name leaves out) or `<W, serde_json::ser::CompactFormatter>`.
    let Some(params) = name
        .strip_prefix("&mut serde_json::ser::Serializer<")
        .and_then(|rest| rest.strip_suffix('>'))
    else {
        return false;
    };
    let mut depth = 0_usize;
    let last_comma = params.char_indices().rev().find_map(|(at, char)| {
        match char {
            '>' => depth += 1,
            '<' => depth = depth.saturating_sub(1),
            ',' if depth == 0 => return Some(at),
            _ => {}
        }
        None
    });
    last_comma.is_none_or(|at| params.get(at..) == Some(", serde_json::ser::CompactFormatter"))
}

/// Reads the value's text as it is from `serde_json`'s readers and from a `Value`; from
/// any other deserializer (serde's buffer for a tagged enum, say), reads the value.
impl<'de> Deserialize<'de> for Payload {
    fn deserialize<D: Deserializer<'de>>(deserializer: D) -> Result<Self, D::Error> {
        deserializer.deserialize_newtype_struct(RAW_VALUE_TOKEN, PayloadVisitor)
    }
}

/// The name under which `serde_json` hands a value's text to `RawValue` (what its own
/// `Deserialize` asks for; a test fails if a release changes it).
const RAW_VALUE_TOKEN: &str = "$serde_json::private::RawValue";

struct PayloadVisitor;

impl<'de> Visitor<'de> for PayloadVisitor {
    type Value = Payload;

    fn expecting(&self, formatter: &mut fmt::Formatter<'_>) -> fmt::Result {
        formatter.write_str("any JSON value")
    }

    /// `serde_json` offers the text as a one-entry map, keyed by its token.
    fn visit_map<A: MapAccess<'de>>(self, mut map: A) -> Result<Payload, A::Error> {
        match map.next_key::<Token>()? {
            Some(Token) => map.next_value_seed(TextSeed),
            None => Err(de::Error::invalid_type(Unexpected::Map, &self)),
        }
    }

    /// Any other deserializer gives the value itself.
    fn visit_newtype_struct<D: Deserializer<'de>>(
        self,
        deserializer: D,
    ) -> Result<Payload, D::Error> {
        Value::deserialize(deserializer).map(Payload::from)
    }
}

/// The key under which `serde_json` offers a value's text.
struct Token;

impl<'de> Deserialize<'de> for Token {
    fn deserialize<D: Deserializer<'de>>(deserializer: D) -> Result<Self, D::Error> {
        struct TokenVisitor;
        impl Visitor<'_> for TokenVisitor {
            type Value = Token;
            fn expecting(&self, formatter: &mut fmt::Formatter<'_>) -> fmt::Result {
                formatter.write_str("serde_json's raw value")
            }
            fn visit_str<E: de::Error>(self, key: &str) -> Result<Token, E> {
                match key == RAW_VALUE_TOKEN {
                    true => Ok(Token),
                    false => Err(E::invalid_value(Unexpected::Str(key), &self)),
                }
            }
        }
        deserializer.deserialize_identifier(TokenVisitor)
    }
}

/// A value's text, as `serde_json` lends or gives it: lent from the line being read
/// shared, it may stay there ([`read_sharing`]).
struct TextSeed;

impl<'de> DeserializeSeed<'de> for TextSeed {
    type Value = Payload;

    fn deserialize<D: Deserializer<'de>>(self, deserializer: D) -> Result<Payload, D::Error> {
        deserializer.deserialize_str(self)
    }
}

impl<'de> Visitor<'de> for TextSeed {
    type Value = Payload;

    fn expecting(&self, formatter: &mut fmt::Formatter<'_>) -> fmt::Result {
        formatter.write_str("a JSON text")
    }

    fn visit_borrowed_str<E: de::Error>(self, text: &'de str) -> Result<Payload, E> {
        Payload::from_text(Source::Lent(text)).map_err(E::custom)
    }

    /// A text the reader holds for the moment: copied only when kept.
    fn visit_str<E: de::Error>(self, text: &str) -> Result<Payload, E> {
        Payload::from_text(Source::Lent(text)).map_err(E::custom)
    }

    fn visit_string<E: de::Error>(self, text: String) -> Result<Payload, E> {
        Payload::from_text(Source::Own(text.into_boxed_str())).map_err(E::custom)
    }
}

/// Any JSON value, as [`Value`]'s schema says.
#[cfg(feature = "schema")]
impl schemars::JsonSchema for Payload {
    fn schema_name() -> std::borrow::Cow<'static, str> {
        Value::schema_name()
    }

    fn inline_schema() -> bool {
        Value::inline_schema()
    }

    fn json_schema(generator: &mut schemars::SchemaGenerator) -> schemars::Schema {
        Value::json_schema(generator)
    }
}

#[cfg(test)]
mod tests;
