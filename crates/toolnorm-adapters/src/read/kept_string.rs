//! A JSON string field read as a [`Payload`]: kept as the text it came as (shared with
//! the line when the line is long, see [`toolnorm::read_sharing`]), not decoded into a
//! `String`, for the fields that hold a call's output, which can be the biggest thing
//! in a stream.

use serde::de::Error;
use serde::{Deserialize, Deserializer};
use toolnorm::Payload;

/// A JSON string kept as it came (`#[serde(deserialize_with = "kept_string::read")]`);
/// anything else refused with the error a `String` field gives it, so that a struct of
/// the generated type's fields refuses what the generated type refuses.
pub(crate) fn read<'de, D: Deserializer<'de>>(deserializer: D) -> Result<Payload, D::Error> {
    let text = Payload::deserialize(deserializer)?;
    if text.is_string() {
        return Ok(text);
    }
    match String::deserialize(text.value()) {
        Err(error) => Err(D::Error::custom(error)),
        // Not reached: a value that reads as a string is one.
        Ok(read) => Ok(read.into()),
    }
}

/// [`read`] for an optional field (`#[serde(default, deserialize_with = "kept_string::optional")]`):
/// `null` is none, as for an `Option<String>` field.
pub(crate) fn optional<'de, D: Deserializer<'de>>(
    deserializer: D,
) -> Result<Option<Payload>, D::Error> {
    let text = Payload::deserialize(deserializer)?;
    if text.is_null() {
        return Ok(None);
    }
    if text.is_string() {
        return Ok(Some(text));
    }
    match String::deserialize(text.value()) {
        Err(error) => Err(D::Error::custom(error)),
        Ok(read) => Ok(Some(read.into())),
    }
}

#[cfg(test)]
mod tests {
    use serde_json::Value;

    use super::*;
    use crate::read::json::without_position;

    #[derive(Deserialize)]
    struct Kept {
        #[serde(deserialize_with = "read")]
        text: Payload,
    }

    #[derive(Deserialize)]
    struct Decoded {
        text: String,
    }

    #[derive(Deserialize)]
    struct KeptOptional {
        #[serde(default, deserialize_with = "optional")]
        text: Option<Payload>,
    }

    #[derive(Deserialize)]
    struct DecodedOptional {
        text: Option<String>,
    }

    #[test]
    fn reads_what_a_string_field_reads() {
        for object in [
            r#"{"text":"plain"}"#,
            r#"{"text":"a\nb \u001b \"q\" \u00e9 \ud83d\ude00"}"#,
            r#"{"text":""}"#,
            r#"{"text":null}"#,
            r#"{"text":7}"#,
            r#"{"text":-1.5}"#,
            r#"{"text":true}"#,
            r#"{"text":["x"]}"#,
            r#"{"text":{"a":"b"}}"#,
            r#"{"text":"\ud800"}"#,
            r#"{}"#,
            r#"{"text":"a","text":"b"}"#,
        ] {
            let kept = serde_json::from_str::<Kept>(object).map_err(|e| without_position(&e));
            let decoded = serde_json::from_str::<Decoded>(object).map_err(|e| without_position(&e));
            match (kept, decoded) {
                (Ok(kept), Ok(decoded)) => assert_eq!(kept.text, Value::String(decoded.text)),
                (Err(kept), Err(decoded)) => assert_eq!(kept, decoded, "{object}"),
                (kept, decoded) => panic!("{object}: {:?} / {:?}", kept.err(), decoded.err()),
            }
            let kept =
                serde_json::from_str::<KeptOptional>(object).map_err(|e| without_position(&e));
            let decoded =
                serde_json::from_str::<DecodedOptional>(object).map_err(|e| without_position(&e));
            match (kept, decoded) {
                (Ok(kept), Ok(decoded)) => assert_eq!(
                    kept.text.map(Payload::into_value),
                    decoded.text.map(Value::String)
                ),
                (Err(kept), Err(decoded)) => assert_eq!(kept, decoded, "{object}"),
                (kept, decoded) => panic!("{object}: {:?} / {:?}", kept.err(), decoded.err()),
            }
        }
    }

    #[test]
    fn the_text_is_kept_as_it_came() {
        let kept: Kept = serde_json::from_str(r#"{"text":"a\tb"}"#).unwrap();
        assert_eq!(kept.text.raw_text(), Some(r#""a\tb""#));
    }
}
