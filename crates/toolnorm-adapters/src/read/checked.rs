//! JSON values read in place by the one-scan readers as `serde_json::Value` would read
//! them, but kept nowhere (or only when a string): a scan that reads a line the way a
//! field-by-field reading through `Value` does refuses what that reading refuses.

use std::borrow::Cow;
use std::fmt;

use serde::Deserialize;
use serde::de::value::{MapAccessDeserializer, SeqAccessDeserializer};
use serde::de::{self, Deserializer, MapAccess, SeqAccess, Visitor};
use serde_json::value::RawValue;

use toolnorm::Payload;

use super::borrowed::Text;
use super::visit::visit_scalars_as;

/// Any JSON value, read as far as `serde_json::Value` reads it (every number parsed, the
/// nesting counted against the recursion limit) and dropped. A map whose first key is
/// serde_json's raw value token, which `Value` reads otherwise, is refused.
pub(crate) struct Checked;

impl<'de> Deserialize<'de> for Checked {
    fn deserialize<D: Deserializer<'de>>(deserializer: D) -> Result<Self, D::Error> {
        deserializer.deserialize_any(CheckedVisitor)
    }
}

struct CheckedVisitor;

impl<'de> Visitor<'de> for CheckedVisitor {
    type Value = Checked;

    fn expecting(&self, formatter: &mut fmt::Formatter<'_>) -> fmt::Result {
        formatter.write_str("any JSON value")
    }

    visit_scalars_as!(Checked, str);

    fn visit_none<E: de::Error>(self) -> Result<Checked, E> {
        Ok(Checked)
    }

    fn visit_some<D: Deserializer<'de>>(self, deserializer: D) -> Result<Checked, D::Error> {
        Checked::deserialize(deserializer)
    }

    fn visit_seq<A: SeqAccess<'de>>(self, mut seq: A) -> Result<Checked, A::Error> {
        while seq.next_element::<Checked>()?.is_some() {}
        Ok(Checked)
    }

    fn visit_map<A: MapAccess<'de>>(self, mut map: A) -> Result<Checked, A::Error> {
        let mut first = true;
        while let Some(Text(key)) = map.next_key::<Text<'de>>()? {
            if first && key == RAW_VALUE_TOKEN {
                return Err(de::Error::custom("a raw value token"));
            }
            first = false;
            map.next_value::<Checked>()?;
        }
        Ok(Checked)
    }
}

/// Any JSON value, checked as `Value` reads it; kept when a string.
pub(crate) struct MaybeText<'a>(pub Option<Cow<'a, str>>);

impl<'de> Deserialize<'de> for MaybeText<'de> {
    fn deserialize<D: Deserializer<'de>>(deserializer: D) -> Result<Self, D::Error> {
        deserializer.deserialize_any(MaybeTextVisitor)
    }
}

struct MaybeTextVisitor;

impl<'de> Visitor<'de> for MaybeTextVisitor {
    type Value = MaybeText<'de>;

    fn expecting(&self, formatter: &mut fmt::Formatter<'_>) -> fmt::Result {
        formatter.write_str("any JSON value")
    }

    fn visit_borrowed_str<E: de::Error>(self, text: &'de str) -> Result<Self::Value, E> {
        Ok(MaybeText(Some(text.into())))
    }

    fn visit_str<E: de::Error>(self, text: &str) -> Result<Self::Value, E> {
        Ok(MaybeText(Some(text.to_owned().into())))
    }

    visit_scalars_as!(MaybeText(None));

    fn visit_seq<A: SeqAccess<'de>>(self, seq: A) -> Result<Self::Value, A::Error> {
        Checked::deserialize(SeqAccessDeserializer::new(seq))?;
        Ok(MaybeText(None))
    }

    fn visit_map<A: MapAccess<'de>>(self, map: A) -> Result<Self::Value, A::Error> {
        Checked::deserialize(MapAccessDeserializer::new(map))?;
        Ok(MaybeText(None))
    }
}

/// Any JSON value, checked as `Value` reads it, kept as a [`Payload`] (the JSON text it
/// came as, shared with a long line): for a field that may hold a huge output, which a
/// `Value` would decode into a copy.
pub(crate) struct KeptValue(pub Payload);

impl<'de> Deserialize<'de> for KeptValue {
    fn deserialize<D: Deserializer<'de>>(deserializer: D) -> Result<Self, D::Error> {
        let payload = Payload::deserialize(deserializer)?;
        // A kept text is valid JSON, but `Value` refuses more (a number out of range, the
        // raw value token as a key); a string's text is checked by the payload already, a
        // text the payload parsed was read by `Value`.
        if let Some(text) = payload.raw_text().filter(|text| !text.starts_with('"')) {
            serde_json::from_str::<Checked>(text).map_err(de::Error::custom)?;
        }
        Ok(KeptValue(payload))
    }
}

/// Any JSON value, checked as `Value` reads it; kept as a [`Payload`] when a string (see
/// [`KeptValue`]), where [`MaybeText`] would decode it.
pub(crate) struct MaybeKeptText(pub Option<Payload>);

impl<'de> Deserialize<'de> for MaybeKeptText {
    fn deserialize<D: Deserializer<'de>>(deserializer: D) -> Result<Self, D::Error> {
        // The text first, borrowed: a value that is not a string is only checked, without
        // the payload's look at whether its text can be kept.
        let raw = <&'de RawValue>::deserialize(deserializer)?.get();
        if raw.starts_with('"') {
            let text = serde_json::from_str::<Payload>(raw).map_err(de::Error::custom)?;
            return Ok(MaybeKeptText(Some(text)));
        }
        serde_json::from_str::<Checked>(raw).map_err(de::Error::custom)?;
        Ok(MaybeKeptText(None))
    }
}

/// The key by which serde_json's `Value` reads a map as a raw value.
pub(crate) const RAW_VALUE_TOKEN: &str = "$serde_json::private::RawValue";

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::Value;

    #[test]
    fn checked_accepts_what_value_accepts() {
        let deep = format!("{}{}", "[".repeat(200), "]".repeat(200));
        for text in [
            r#"{"a":[1,-2,3.5,"x\u0041",null,true,{"b":{}}]}"#,
            "1e400",
            "18446744073709551616",
            &deep,
            r#"{"$serde_json::private::RawValue":"[1"}"#,
            r#"{"a":"\ud800"}"#,
            "[1,]",
        ] {
            let value = serde_json::from_str::<Value>(text).is_ok();
            let checked = serde_json::from_str::<Checked>(text).is_ok();
            assert!(!checked || value, "{text}");
            assert_eq!(checked, value, "{text}");
        }
    }

    #[test]
    fn a_kept_text_reads_what_a_text_reads() {
        let deep = format!("{}{}", "[".repeat(200), "]".repeat(200));
        for text in [
            &deep,
            r#""plain""#,
            r#""a\nb \u001b \"q\" \u00e9 \ud83d\ude00 \/""#,
            r#""""#,
            r#""\ud800""#,
            "null",
            "true",
            "-7",
            "2.5e3",
            "1e400",
            r#"{"fileDiff":"d","n":[1,{"a":null}]}"#,
            r#"{"$serde_json::private::RawValue":"[1"}"#,
            r#"{"a":1,"a":2}"#,
            "[1, 2 ,{ }]",
        ] {
            let read = serde_json::from_str::<MaybeText<'_>>(text).map(|text| text.0);
            let kept = serde_json::from_str::<MaybeKeptText>(text)
                .map(|kept| kept.0.map(|payload| payload.text().unwrap().into_owned()));
            match (read, kept) {
                (Ok(read), Ok(kept)) => assert_eq!(read.map(Cow::into_owned), kept, "{text}"),
                (read, kept) => assert_eq!(read.is_ok(), kept.is_ok(), "{text}"),
            }
        }
    }
}
