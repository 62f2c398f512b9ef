//! A tool part, read with a completed call's output kept as it came: an output, which can
//! be the biggest thing in a stream, stays the JSON text it was in the line (shared with
//! the line when the line is long, see [`toolnorm::read_sharing`]), not a decoded copy.
//!
//! The generated `ToolPart`'s fields, read with the same types, so that a part it refuses
//! is refused here too, with the same error. Its `state` is an untagged enum (the first
//! of its four types that reads); each type's `status` has one value, so the `status`
//! picks the one type that can read, and only that one is tried.

use std::borrow::Cow;

use serde::de::Error;
use serde::{Deserialize, Deserializer};
use serde_json::value::RawValue;
use serde_json::{Map, Value};
use toolnorm::Payload;
use toolnorm_wire::opencode as wire;

use crate::read::kept_string;

/// A tool part.
#[derive(Deserialize)]
pub(super) struct ToolPart {
    #[serde(rename = "callID")]
    pub call_id: String,
    pub id: String,
    #[serde(rename = "messageID")]
    _message_id: String,
    #[serde(default, rename = "metadata")]
    _metadata: Map<String, Value>,
    #[serde(rename = "sessionID")]
    pub session_id: String,
    pub state: ToolState,
    pub tool: String,
    #[serde(rename = "type")]
    _type: wire::ToolPartType,
}

/// A tool part's state.
pub(super) enum ToolState {
    Pending(wire::ToolStatePending),
    Running(wire::ToolStateRunning),
    Completed(Completed),
    Error(wire::ToolStateError),
}

/// A completed state: the generated `ToolStateCompleted`'s fields, the output kept.
#[derive(Deserialize)]
pub(super) struct Completed {
    #[serde(default)]
    pub attachments: Vec<wire::FilePart>,
    pub input: Map<String, Value>,
    pub metadata: Map<String, Value>,
    /// A JSON string.
    #[serde(deserialize_with = "kept_string::read")]
    pub output: Payload,
    #[serde(rename = "status")]
    _status: wire::ToolStateCompletedStatus,
    pub time: wire::ToolStateCompletedTime,
    pub title: String,
}

/// The message of the generated untagged enum when no state type reads.
const NO_STATE: &str = "data did not match any variant of untagged enum ToolState";

impl<'de> Deserialize<'de> for ToolState {
    fn deserialize<D: Deserializer<'de>>(deserializer: D) -> Result<Self, D::Error> {
        #[derive(Deserialize)]
        struct Status<'a> {
            #[serde(borrow, default)]
            status: Option<Cow<'a, str>>,
        }
        let raw = <&'de RawValue>::deserialize(deserializer)?;
        let text = raw.get();
        // OpenCode writes `status` first: read there without a scan of the state.
        let status = match first_status(text) {
            Some(status) => Some(Cow::Borrowed(status)),
            None => {
                serde_json::from_str::<Status<'_>>(text)
                    .map_err(|_| D::Error::custom(NO_STATE))?
                    .status
            }
        };
        let state = match status.as_deref() {
            Some("pending") => serde_json::from_str(text).map(ToolState::Pending),
            Some("running") => serde_json::from_str(text).map(ToolState::Running),
            Some("completed") => serde_json::from_str(text).map(ToolState::Completed),
            Some("error") => serde_json::from_str(text).map(ToolState::Error),
            _ => return Err(D::Error::custom(NO_STATE)),
        };
        state.map_err(|_| D::Error::custom(NO_STATE))
    }
}

/// The `status` of a state that begins with it, when it is one of the four plain words.
fn first_status(state: &str) -> Option<&str> {
    let rest = state.strip_prefix(r#"{"status":""#)?;
    ["pending", "running", "completed", "error"]
        .into_iter()
        .find(|status| {
            rest.strip_prefix(status)
                .is_some_and(|rest| rest.starts_with('"'))
        })
}

/// A part read with the generated type (with its gaps filled, or of an unknown type).
impl From<wire::ToolPart> for ToolPart {
    fn from(part: wire::ToolPart) -> Self {
        ToolPart {
            call_id: part.call_id,
            id: part.id,
            _message_id: part.message_id,
            _metadata: part.metadata,
            session_id: part.session_id,
            state: match part.state {
                wire::ToolState::Pending(state) => ToolState::Pending(state),
                wire::ToolState::Running(state) => ToolState::Running(state),
                wire::ToolState::Error(state) => ToolState::Error(state),
                wire::ToolState::Completed(state) => ToolState::Completed(Completed {
                    attachments: state.attachments,
                    input: state.input,
                    metadata: state.metadata,
                    output: state.output.into(),
                    _status: state.status,
                    time: state.time,
                    title: state.title,
                }),
            },
            tool: part.tool,
            _type: part.type_,
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::read::json::without_position;

    /// `part` with `state` in it.
    fn part(state: &str) -> String {
        format!(
            r#"{{"id":"p","callID":"c","messageID":"m","sessionID":"s","type":"tool","tool":"bash","state":{state}}}"#
        )
    }

    /// The state's type and its fields as the generated type has them.
    fn as_wire(part: ToolPart) -> (String, String, String, wire::ToolState) {
        let wire = match part.state {
            ToolState::Pending(state) => wire::ToolState::Pending(state),
            ToolState::Running(state) => wire::ToolState::Running(state),
            ToolState::Error(state) => wire::ToolState::Error(state),
            ToolState::Completed(state) => wire::ToolState::Completed(wire::ToolStateCompleted {
                attachments: state.attachments,
                input: state.input,
                metadata: state.metadata,
                output: state.output.as_str().unwrap().to_owned(),
                status: state._status,
                time: state.time,
                title: state.title,
            }),
        };
        (part.id, part.call_id, part.tool, wire)
    }

    #[test]
    fn reads_what_the_generated_type_reads() {
        let time = r#""time":{"start":1,"end":2}"#;
        let states = [
            format!(
                r#"{{"status":"completed","input":{{"a":1}},"output":"a\n\"b\"","title":"t","metadata":{{}},{time}}}"#
            ),
            format!(
                r#"{{"status":"completed","input":{{}},"output":"","title":"t","metadata":{{"exit":0}},{time},"attachments":[]}}"#
            ),
            format!(
                r#"{{"status":"completed","input":{{}},"output":7,"title":"t","metadata":{{}},{time}}}"#
            ),
            format!(
                r#"{{"status":"completed","input":{{}},"output":null,"title":"t","metadata":{{}},{time}}}"#
            ),
            format!(r#"{{"status":"completed","input":{{}},"title":"t","metadata":{{}},{time}}}"#),
            format!(
                r#"{{"status":"completed","input":[],"output":"x","title":"t","metadata":{{}},{time}}}"#
            ),
            r#"{"status":"pending","input":{},"raw":""}"#.to_owned(),
            r#"{"status":"running","input":{},"time":{"start":1}}"#.to_owned(),
            r#"{"input":{},"status":"running","time":{"start":1}}"#.to_owned(),
            r#"{"status":"running","status":"running","input":{},"time":{"start":1}}"#.to_owned(),
            r#"{"status":"runningX","input":{},"time":{"start":1}}"#.to_owned(),
            r#"{"status":"r\u0075nning","input":{},"time":{"start":1}}"#.to_owned(),
            format!(r#"{{"status":"error","input":{{}},"error":"boom",{time}}}"#),
            format!(r#"{{"status":"error","input":{{}},"output":"x",{time}}}"#),
            format!(r#"{{"status":"done","input":{{}},"output":"x",{time}}}"#),
            format!(r#"{{"input":{{}},"output":"x",{time}}}"#),
            r#"{"status":1}"#.to_owned(),
            r#""completed""#.to_owned(),
            "null".to_owned(),
        ];
        let mut parts: Vec<String> = states.iter().map(|state| part(state)).collect();
        parts.push(part("{}").replace(r#""messageID":"m","#, ""));
        parts.push(part(&states[0]).replace(r#""type":"tool""#, r#""type":"text""#));
        parts.push(part(&states[0]).replace(r#""tool":"bash","#, r#""tool":"bash","metadata":7,"#));
        for part in parts {
            let here = serde_json::from_str::<ToolPart>(&part).map_err(|e| without_position(&e));
            let generated =
                serde_json::from_str::<wire::ToolPart>(&part).map_err(|e| without_position(&e));
            match (here, generated) {
                (Ok(here), Ok(generated)) => {
                    let generated = (
                        generated.id,
                        generated.call_id,
                        generated.tool,
                        generated.state,
                    );
                    assert_eq!(as_wire(here), generated, "{part}");
                }
                (Err(here), Err(generated)) => assert_eq!(here, generated, "{part}"),
                (here, generated) => {
                    panic!(
                        "{part}: here {:?}, generated {:?}",
                        here.err(),
                        generated.err()
                    )
                }
            }
        }
    }

    #[test]
    fn a_completed_output_is_kept_as_it_came() {
        let text = part(
            r#"{"status":"completed","input":{},"output":"a\tb","title":"t","metadata":{},"time":{"start":1,"end":2}}"#,
        );
        let ToolState::Completed(state) = serde_json::from_str::<ToolPart>(&text).unwrap().state
        else {
            panic!("not completed")
        };
        assert_eq!(state.output.raw_text(), Some(r#""a\tb""#));
    }
}
