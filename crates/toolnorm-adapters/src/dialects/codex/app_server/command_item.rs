//! `item/started` and `item/completed` of a command item, read with its output kept as it
//! came: a command's output, which can be the biggest thing in a stream, stays the JSON
//! text it was in the line (shared with the line when the line is long), not a decoded
//! copy.
//!
//! The generated notifications hold the item as `ThreadItem`, an internally tagged enum
//! that serde buffers whole (the output decoded) before reading its variant. This reads
//! the notification's and the command variant's fields with the same types, the output
//! kept; it is tried first, and a notification it does not read (another item type, a
//! field missing or of another type, a key given twice) is read with the generated types
//! as before, which say what is wrong with it. What it reads, they read the same.

use serde::Deserialize;
use toolnorm::Payload;
use toolnorm_wire::codex_app_server as app;

use crate::read::kept_string;

/// An `item/started` or `item/completed` notification of a command item: the fields of
/// both (each optional one read as the notification that has it reads it).
#[derive(Deserialize)]
pub(super) struct CommandNotification {
    pub item: CommandItem,
    #[serde(rename = "threadId")]
    pub thread_id: String,
    #[serde(rename = "turnId")]
    _turn_id: String,
    #[serde(rename = "startedAtMs", default)]
    _started_at_ms: Option<i64>,
    #[serde(rename = "completedAtMs", default)]
    _completed_at_ms: Option<i64>,
    #[serde(rename = "contentTokenCount", default)]
    _content_token_count: Option<u64>,
}

/// The `commandExecution` variant of `ThreadItem`, its output kept.
#[derive(Deserialize)]
pub(super) struct CommandItem {
    #[serde(rename = "type")]
    _type: CommandType,
    /// Stdout and stderr: a JSON string.
    #[serde(
        rename = "aggregatedOutput",
        default,
        deserialize_with = "kept_string::optional"
    )]
    pub aggregated_output: Option<Payload>,
    pub command: String,
    #[serde(rename = "commandActions")]
    _command_actions: Vec<app::CommandAction>,
    #[serde(rename = "completedAtMs", default)]
    pub completed_at_ms: Option<i64>,
    pub cwd: app::LegacyAppPathString,
    #[serde(rename = "durationMs", default)]
    pub duration_ms: Option<i64>,
    #[serde(rename = "exitCode", default)]
    pub exit_code: Option<i32>,
    pub id: String,
    #[serde(rename = "pluginId", default)]
    _plugin_id: Option<String>,
    #[serde(rename = "processId", default)]
    _process_id: Option<String>,
    #[serde(rename = "scriptPath", default)]
    _script_path: Option<String>,
    #[serde(default = "agent", rename = "source")]
    _source: app::CommandExecutionSource,
    #[serde(rename = "startedAtMs", default)]
    pub started_at_ms: Option<i64>,
    pub status: app::CommandExecutionStatus,
}

/// The one item type read here.
#[derive(Deserialize)]
enum CommandType {
    #[serde(rename = "commandExecution")]
    CommandExecution,
}

/// The generated type's default `source`.
fn agent() -> app::CommandExecutionSource {
    app::CommandExecutionSource::Agent
}

/// The notification, when it is a command item's that reads so.
pub(super) fn read(params: &str) -> Option<CommandNotification> {
    #[cfg(test)]
    if crate::read::scan_check::field_by_field() {
        return None;
    }
    // Another item's notification is not tried (most are messages and reasoning).
    memchr::memmem::find(params.as_bytes(), b"\"commandExecution\"")?;
    serde_json::from_str(params).ok()
}

#[cfg(test)]
mod tests {
    use super::*;

    /// The notification read here and with the generated type, as the adapter uses them.
    fn both(params: &str) -> (Option<String>, Option<String>) {
        let here = serde_json::from_str::<CommandNotification>(params)
            .ok()
            .map(|read| {
                let item = read.item;
                format!(
                    "{} {} {} {:?} {:?} {:?} {:?} {:?} {:?} {}",
                    item.id,
                    item.command,
                    item.cwd.0,
                    item.status,
                    item.exit_code,
                    item.aggregated_output.map(Payload::into_value),
                    item.started_at_ms,
                    item.completed_at_ms,
                    item.duration_ms,
                    read.thread_id
                )
            });
        let generated = serde_json::from_str::<app::ItemCompletedNotification>(params)
            .ok()
            .and_then(|read| match read.item {
                app::ThreadItem::CommandExecution {
                    id,
                    command,
                    cwd,
                    status,
                    exit_code,
                    aggregated_output,
                    started_at_ms,
                    completed_at_ms,
                    duration_ms,
                    ..
                } => Some(format!(
                    "{id} {command} {} {status:?} {exit_code:?} {:?} {started_at_ms:?} {completed_at_ms:?} {duration_ms:?} {}",
                    cwd.0,
                    aggregated_output.map(serde_json::Value::String),
                    read.thread_id
                )),
                _ => None,
            });
        (here, generated)
    }

    #[test]
    fn what_it_reads_the_generated_types_read_the_same() {
        let item = r#""type":"commandExecution","id":"c","command":"ls","cwd":"/w","commandActions":[],"status":"completed""#;
        let cases = [
            format!(
                r#"{{"threadId":"t","turnId":"u","item":{{{item},"aggregatedOutput":"a\nb \"q\"","exitCode":0}}}}"#
            ),
            format!(
                r#"{{"threadId":"t","turnId":"u","item":{{{item},"aggregatedOutput":null,"durationMs":5,"startedAtMs":1,"completedAtMs":6}}}}"#
            ),
            format!(
                r#"{{"threadId":"t","turnId":"u","item":{{{item}}},"completedAtMs":9,"contentTokenCount":3}}"#
            ),
            format!(r#"{{"threadId":"t","turnId":"u","item":{{{item},"aggregatedOutput":7}}}}"#),
            format!(
                r#"{{"threadId":"t","turnId":"u","item":{{{item},"aggregatedOutput":"a","aggregatedOutput":"b"}}}}"#
            ),
            format!(
                r#"{{"threadId":"t","turnId":"u","item":{{{item},"source":"userShell","processId":"9","pluginId":null}}}}"#
            ),
            format!(r#"{{"threadId":"t","turnId":"u","item":{{{item},"source":"nope"}}}}"#),
            format!(r#"{{"threadId":"t","item":{{{item}}}}}"#),
            format!(
                r#"{{"threadId":"t","turnId":"u","item":{{{item},"type":"commandExecution"}}}}"#
            ),
            format!(
                r#"{{"threadId":"t","turnId":"u","item":{{{}}}}}"#,
                item.replace("commandExecution", "fileChange")
            ),
            format!(
                r#"{{"threadId":"t","turnId":"u","item":{{{}}}}}"#,
                item.replace(r#""status":"completed""#, r#""status":"declined""#)
            ),
            format!(
                r#"{{"threadId":"t","turnId":"u","item":{{{}}}}}"#,
                item.replace(r#","commandActions":[]"#, "")
            ),
            format!(r#"{{"threadId":"t","turnId":"u","item":{{{item},"exitCode":1.5}}}}"#),
            format!(r#"{{"threadId":"t","turnId":"u","item":{{{item}}},"extra":[1]}}"#),
        ];
        for params in cases {
            let (here, generated) = both(&params);
            if here.is_some() {
                assert_eq!(here, generated, "{params}");
            }
        }
        // The common notification is read here.
        assert!(
            both(&format!(
                r#"{{"threadId":"t","turnId":"u","item":{{{item},"aggregatedOutput":"x"}}}}"#
            ))
            .0
            .is_some()
        );
    }

    #[test]
    fn every_recording_reads_as_with_the_generated_types() {
        let files = crate::read::scan_check::recordings_read_alike(
            crate::Dialect::CODEX_APP_SERVER,
            |name| name.starts_with("codex-app-server"),
        );
        assert!(files > 10, "{files} recordings");
    }

    #[test]
    fn the_output_is_kept_as_it_came() {
        let params = r#"{"threadId":"t","turnId":"u","item":{"type":"commandExecution","id":"c","command":"ls","cwd":"/w","commandActions":[],"status":"completed","aggregatedOutput":"a\tb"}}"#;
        let output = read(params).and_then(|read| read.item.aggregated_output);
        assert_eq!(
            output.as_ref().and_then(Payload::raw_text),
            Some(r#""a\tb""#)
        );
    }
}
