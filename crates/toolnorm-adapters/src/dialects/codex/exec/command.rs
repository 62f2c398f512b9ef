//! A `command_execution` item, read with its output kept as it came: a command's output,
//! which can be the biggest thing in a stream, stays the JSON text it was in the line
//! (shared with the line when the line is long, see [`toolnorm::read_sharing`]), not a
//! decoded copy.

use serde::Deserialize;
use toolnorm::Payload;
use toolnorm_wire::codex_exec as exec;

use crate::read::kept_string;

/// A command item: the generated `CommandExecutionItem`'s fields, read with the same
/// types (so an item it refuses is refused here too, with the same error), the output
/// kept.
#[derive(Deserialize)]
pub(in crate::dialects::codex) struct CommandItem {
    /// Stdout and stderr so far: a JSON string.
    #[serde(deserialize_with = "kept_string::read")]
    pub aggregated_output: Payload,
    /// The command line.
    pub command: String,
    /// Set when the command exits.
    pub exit_code: Option<i64>,
    /// The item's id.
    pub id: String,
    /// Whether it runs, completed or failed.
    pub status: exec::CommandExecutionStatus,
    #[serde(rename = "type")]
    _type: exec::CommandExecutionItemType,
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::Value;

    /// Reads `item` both ways: the generated type and this one, the error without its
    /// position (an error is told without it).
    fn both(
        item: &str,
    ) -> (
        Result<exec::CommandExecutionItem, String>,
        Result<CommandItem, String>,
    ) {
        let message = |error: serde_json::Error| crate::read::json::without_position(&error);
        (
            serde_json::from_str(item).map_err(message),
            serde_json::from_str(item).map_err(message),
        )
    }

    #[test]
    fn reads_what_the_generated_type_reads() {
        let items = [
            r#"{"id":"a","type":"command_execution","command":"ls","aggregated_output":"","status":"in_progress"}"#,
            r#"{"id":"a","type":"command_execution","command":"ls","aggregated_output":"a\nb \u001b \"q\"","exit_code":0,"status":"completed"}"#,
            r#"{"id":"a","type":"command_execution","command":"ls","aggregated_output":"x","exit_code":2,"status":"failed"}"#,
            r#"{"id":"a","type":"command_execution","command":"ls","aggregated_output":"x","exit_code":null,"status":"completed"}"#,
            r#"{"id":"a","type":"command_execution","command":"ls","status":"completed"}"#,
            r#"{"id":"a","type":"command_execution","command":"ls","aggregated_output":null,"status":"completed"}"#,
            r#"{"id":"a","type":"command_execution","command":"ls","aggregated_output":7,"status":"completed"}"#,
            r#"{"id":"a","type":"command_execution","command":"ls","aggregated_output":1.5,"status":"completed"}"#,
            r#"{"id":"a","type":"command_execution","command":"ls","aggregated_output":["x"],"status":"completed"}"#,
            r#"{"id":"a","type":"command_execution","command":"ls","aggregated_output":{"a":1},"status":"completed"}"#,
            r#"{"id":"a","type":"command_execution","command":"ls","aggregated_output":false,"status":"completed"}"#,
            r#"{"id":"a","type":"command_execution","command":"ls","aggregated_output":"x","status":"nope"}"#,
            r#"{"id":"a","type":"file_change","command":"ls","aggregated_output":"x","status":"completed"}"#,
            r#"{"type":"command_execution","command":"ls","aggregated_output":"x","status":"completed"}"#,
            r#"{"id":"a","type":"command_execution","aggregated_output":"x","status":"completed"}"#,
            r#"{"id":"a","type":"command_execution","command":"ls","aggregated_output":"x","exit_code":"0","status":"completed"}"#,
            r#"{"id":"a","type":"command_execution","command":"ls","aggregated_output":"x","aggregated_output":"y","status":"completed"}"#,
            r#"{"id":"a","type":"command_execution","command":"ls","aggregated_output":"x","status":"completed","extra":[1]}"#,
        ];
        for item in items {
            match both(item) {
                (Ok(generated), Ok(read)) => {
                    assert_eq!(read.id, generated.id, "{item}");
                    assert_eq!(read.command, generated.command, "{item}");
                    assert_eq!(read.exit_code, generated.exit_code, "{item}");
                    assert_eq!(read.status, generated.status, "{item}");
                    assert_eq!(
                        read.aggregated_output,
                        Value::String(generated.aggregated_output),
                        "{item}"
                    );
                }
                (Err(generated), Err(read)) => assert_eq!(read, generated, "{item}"),
                (generated, read) => panic!(
                    "{item}: generated {:?}, here {:?}",
                    generated.err(),
                    read.err()
                ),
            }
        }
    }

    #[test]
    fn the_output_is_kept_as_it_came() {
        let read: CommandItem = serde_json::from_str(
            r#"{"id":"a","type":"command_execution","command":"ls","aggregated_output":"a\tb","status":"completed"}"#,
        )
        .unwrap();
        assert_eq!(read.aggregated_output.raw_text(), Some(r#""a\tb""#));
    }
}
