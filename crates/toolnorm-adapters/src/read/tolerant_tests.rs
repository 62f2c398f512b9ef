//! The filling of gaps on a small schema: missing fields where they are missing, nulls,
//! empty arrays for objects, and what is never filled.

use serde::Deserialize;

use super::*;

#[derive(Deserialize, Debug, PartialEq)]
struct Stats {
    cached: i64,
    input: i64,
}

#[derive(Deserialize, Debug, PartialEq)]
#[serde(tag = "type")]
enum Event {
    #[serde(rename = "result")]
    Result {
        status: Status,
        stats: Stats,
        #[serde(default)]
        note: Option<String>,
        actions: Vec<Action>,
        meta: Map<String, Value>,
    },
}

#[derive(Deserialize, Debug, PartialEq)]
#[serde(rename_all = "lowercase")]
enum Status {
    Success,
}

#[derive(Deserialize, Debug, PartialEq)]
struct Action {
    command: String,
    args: Value,
}

fn read(text: &str) -> Result<(Event, Vec<String>), String> {
    from_str::<Event>(text)
        .map(|read| {
            let said = read.repairs.iter().map(Repair::to_string).collect();
            (read.value, said)
        })
        .map_err(|error| json::without_position(&error))
}

const WHOLE: &str = r#"{"type":"result","status":"success","stats":{"cached":1,"input":2},"actions":[{"command":"ls","args":{}}],"meta":{"a":[]}}"#;

#[test]
fn a_whole_value_reads_as_it_is() {
    let (_, repairs) = read(WHOLE).unwrap();
    assert!(repairs.is_empty());
}

#[test]
fn missing_fields_are_filled_where_they_are_missing() {
    let (event, repairs) = read(&WHOLE.replace(r#""cached":1,"#, "")).unwrap();
    assert_eq!(repairs, ["missing required field `stats.cached` (as `0`)"]);
    let Event::Result { stats, .. } = event;
    assert_eq!(
        stats,
        Stats {
            cached: 0,
            input: 2
        }
    );
    // On the item itself, in an array, of any type, several at once.
    let (event, repairs) = read(
        r#"{"type":"result","status":"success","stats":{"input":2},"actions":[{"args":1},{"command":"x"}]}"#,
    )
    .unwrap();
    assert_eq!(
        repairs,
        [
            "missing required field `stats.cached` (as `0`)",
            "missing required field `actions[0].command` (as `\"\"`)",
            "missing required field `actions[1].args` (as `null`)",
            "missing required field `meta` (as `{}`)",
        ]
    );
    let Event::Result { actions, meta, .. } = event;
    assert_eq!(actions[1].args, Value::Null);
    assert!(meta.is_empty());
}

#[test]
fn nulls_and_empty_arrays_for_objects_are_read_as_their_empty_value() {
    let (event, repairs) = read(
        &WHOLE
            .replace(r#""command":"ls""#, r#""command":null"#)
            .replace(r#""meta":{"a":[]}"#, r#""meta":[]"#),
    )
    .unwrap();
    assert_eq!(
        repairs,
        [
            "required field is null: `actions[0].command` (as `\"\"`)",
            "object written as `[]`: `meta` (as `{}`)",
        ]
    );
    let Event::Result { meta, .. } = event;
    assert!(meta.is_empty());
    // An empty array where an array goes stays one.
    let (_, repairs) = read(&WHOLE.replace(
        r#""actions":[{"command":"ls","args":{}}]"#,
        r#""actions":[]"#,
    ))
    .unwrap();
    assert!(repairs.is_empty());
}

#[test]
fn what_cannot_be_filled_keeps_its_error() {
    // An enum has no empty value: its value would be invented. The error is of what
    // could not be filled.
    assert_eq!(
        read(&WHOLE.replace(r#""status":"success","#, "")).unwrap_err(),
        "missing field `status`"
    );
    assert_eq!(
        read(
            &WHOLE
                .replace(r#""status":"success","#, "")
                .replace(r#""cached":1,"#, "")
        )
        .unwrap_err(),
        "missing field `status`"
    );
    // Another type than the schema's is not a gap.
    assert_eq!(
        read(&WHOLE.replace(r#""cached":1"#, r#""cached":"1""#)).unwrap_err(),
        "invalid type: string \"1\", expected i64"
    );
    assert!(read(r#"{"type":"other"}"#).is_err());
    // A field that names the call is not made up.
    #[derive(Deserialize, Debug)]
    struct Call {
        #[serde(rename = "callID")]
        _call_id: String,
        #[serde(rename = "tool_name")]
        _tool_name: String,
    }
    for text in [
        r#"{"tool_name":"ls"}"#,
        r#"{"callID":null,"tool_name":"ls"}"#,
        r#"{"callID":"c"}"#,
    ] {
        assert!(from_str::<Call>(text).is_err(), "{text}");
    }
}
