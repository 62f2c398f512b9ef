//! What the stream-json scan checks of an event but does not keep: a text (`content`,
//! `model`, `message`), and a `result`'s `stats`, read as their generated types read
//! them (`String`, `StreamStats`) without building them.

use std::fmt;

use serde::Deserialize;
use serde::de::{self, Deserializer, MapAccess, Visitor};

use crate::read::borrowed::Text;

/// A string, checked and dropped.
pub(super) struct AnyText;

impl<'de> Deserialize<'de> for AnyText {
    fn deserialize<D: Deserializer<'de>>(deserializer: D) -> Result<Self, D::Error> {
        deserializer.deserialize_str(AnyTextVisitor)
    }
}

struct AnyTextVisitor;

impl Visitor<'_> for AnyTextVisitor {
    type Value = AnyText;

    fn expecting(&self, formatter: &mut fmt::Formatter<'_>) -> fmt::Result {
        formatter.write_str("a string")
    }

    fn visit_str<E: de::Error>(self, _: &str) -> Result<AnyText, E> {
        Ok(AnyText)
    }
}

/// A `result`'s `stats` (`StreamStats`), checked only: its counts, and each model's.
#[derive(Deserialize)]
pub(super) struct Stats {
    #[serde(rename = "cached")]
    _cached: i64,
    #[serde(rename = "duration_ms")]
    _duration_ms: i64,
    #[serde(rename = "input")]
    _input: i64,
    #[serde(rename = "input_tokens")]
    _input_tokens: i64,
    #[serde(rename = "models")]
    _models: Models,
    #[serde(rename = "output_tokens")]
    _output_tokens: i64,
    #[serde(rename = "tool_calls")]
    _tool_calls: i64,
    #[serde(rename = "total_tokens")]
    _total_tokens: i64,
}

/// One model's counts (`ModelStreamStats`).
#[derive(Deserialize)]
struct ModelStats {
    #[serde(rename = "cached")]
    _cached: i64,
    #[serde(rename = "input")]
    _input: i64,
    #[serde(rename = "input_tokens")]
    _input_tokens: i64,
    #[serde(rename = "output_tokens")]
    _output_tokens: i64,
    #[serde(rename = "total_tokens")]
    _total_tokens: i64,
}

/// `models`: each model's counts by name, read as the map of them is.
struct Models;

impl<'de> Deserialize<'de> for Models {
    fn deserialize<D: Deserializer<'de>>(deserializer: D) -> Result<Self, D::Error> {
        deserializer.deserialize_map(ModelsVisitor)
    }
}

struct ModelsVisitor;

impl<'de> Visitor<'de> for ModelsVisitor {
    type Value = Models;

    fn expecting(&self, formatter: &mut fmt::Formatter<'_>) -> fmt::Result {
        formatter.write_str("counts by model")
    }

    fn visit_map<A: MapAccess<'de>>(self, mut map: A) -> Result<Models, A::Error> {
        while map.next_key::<Text<'de>>()?.is_some() {
            map.next_value::<ModelStats>()?;
        }
        Ok(Models)
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use toolnorm_wire::gemini_stream as wire;

    #[test]
    fn stats_read_as_their_generated_type_reads_them() {
        let model = r#"{"total_tokens":1,"input_tokens":1,"output_tokens":0,"cached":0,"input":1}"#;
        let counts = r#""total_tokens":1,"input_tokens":1,"output_tokens":0,"cached":0,"input":1,"duration_ms":5,"tool_calls":0"#;
        for stats in [
            format!(r#"{{{counts},"models":{{"m":{model}}}}}"#),
            format!(r#"{{{counts},"models":{{}},"other":[1e400]}}"#),
            format!(r#"{{{counts}}}"#),
            format!(r#"{{{counts},"models":null}}"#),
            format!(r#"{{{counts},"models":{{"m":{{"cached":0}}}}}}"#),
            format!(r#"{{{counts},"cached":0,"models":{{}}}}"#),
            format!(r#"{{{counts},"models":{{}},"models":{{}}}}"#),
            r#"[0,5,200,200,{"m":[0,1,1,0,1]},40,1,240]"#.to_owned(),
            format!(r#"{{{counts},"models":{{"m":{model},"m":{model}}}}}"#),
            format!(
                r#"{{{},"models":{{}}}}"#,
                counts.replace(r#""cached":0"#, r#""cached":0.5"#)
            ),
            format!(
                r#"{{{},"models":{{}}}}"#,
                counts.replace(r#""cached":0"#, r#""cached":-3"#)
            ),
            format!(
                r#"{{{},"models":{{}}}}"#,
                counts.replace(r#""cached":0"#, r#""cached":18446744073709551615"#)
            ),
        ] {
            let checked = serde_json::from_str::<Stats>(&stats).is_ok();
            let typed = serde_json::from_str::<wire::StreamStats>(&stats).is_ok();
            assert!(!checked || typed, "{stats}");
            assert_eq!(checked, typed, "{stats}");
        }
    }
}
