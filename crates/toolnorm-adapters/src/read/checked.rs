//! JSON values read in place by the one-scan readers as `serde_json::Value` would read
//! them, but kept nowhere (or only when a string): a scan that reads a line the way a
//! field-by-field reading through `Value` does refuses what that reading refuses.

use std::borrow::Cow;
use std::fmt;

use serde::Deserialize;
use serde::de::value::{MapAccessDeserializer, SeqAccessDeserializer};
use serde::de::{self, Deserializer, MapAccess, SeqAccess, Visitor};

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
}
