//! A wire message's `payload`, read as a value but for a `ToolResult`'s output
//! (`return_value.output`), which is kept apart as the JSON text it came as (shared with
//! a long line, [`ValueApart`]): an output can be the biggest thing in a wire log.

use crate::read::apart::{KeptAt, Step, ValueApart};

/// A payload: its value, `return_value.output` taken out and kept (the last one given).
pub(super) type PayloadApart = ValueApart<ReturnOutput>;

/// Where a `ToolResult`'s output lies in its payload.
pub(super) struct ReturnOutput;

impl KeptAt for ReturnOutput {
    const IN_OBJECT: &'static [Step] = &[Step::Key("return_value"), Step::Key("output")];
}

#[cfg(test)]
mod tests {
    use serde_json::Value;

    use super::*;

    #[test]
    fn a_kept_output_ends_a_call_as_the_value_did() {
        use super::super::outcome::from_return_value;
        for return_value in [
            r#"{"is_error": false, "output": "a\nb", "message": "m"}"#,
            r#"{"is_error": false, "output": "", "message": "File written."}"#,
            r#"{"is_error": true, "output": "", "message": "failed"}"#,
            r#"{"is_error": true, "output": "checking\n", "message": "Command failed with exit code: 3."}"#,
            r#"{"is_error": false, "output": [{"type": "text", "text": "<system>ok</system>"}, {"type": "text", "text": "x"}]}"#,
            r#"{"is_error": false, "output": {"type": "text", "text": "one"}}"#,
            r#"{"is_error": false, "output": null, "message": "nothing"}"#,
            r#"{"is_error": false, "output": 7}"#,
            r#"{"is_error": false}"#,
        ] {
            let text = format!(r#"{{"tool_call_id": "c", "return_value": {return_value}}}"#);
            let read: PayloadApart = serde_json::from_str(&text).unwrap();
            let value: Value = serde_json::from_str(&text).unwrap();
            assert_eq!(
                from_return_value(&read.value["return_value"], read.kept.last()),
                from_return_value(&value["return_value"], None),
                "{return_value}"
            );
        }
    }
}
