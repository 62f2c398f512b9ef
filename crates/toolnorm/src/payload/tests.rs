//! The payload's unit tests.

use super::*;
use serde_json::json;

fn read(text: &str) -> Payload {
    serde_json::from_str(text).unwrap()
}

#[test]
fn a_canonical_text_is_kept_and_written_back() {
    let payload = read(r#"{"b":1,"a":[true,null,"x"]}"#);
    assert_eq!(payload.raw_text(), Some(r#"{"b":1,"a":[true,null,"x"]}"#));
    assert_eq!(
        serde_json::to_string(&payload).unwrap(),
        r#"{"b":1,"a":[true,null,"x"]}"#
    );
    assert_eq!(payload["a"][2], "x");
}

#[test]
fn any_other_text_is_parsed_and_written_as_its_value() {
    for (text, written) in [
        (r#"{ "a" : 1.50 }"#, r#"{"a":1.5}"#),
        (r#""\u0041\/""#, r#""A/""#),
        (r#"{"a":1,"a":2}"#, r#"{"a":2}"#),
    ] {
        let payload = read(text);
        assert_eq!(payload.raw_text(), None, "{text}");
        assert_eq!(serde_json::to_string(&payload).unwrap(), written);
    }
}

#[test]
fn a_spaced_text_is_kept_without_its_spaces() {
    let payload = read("{\n  \"a\": [1, 2],\n  \"b\": \"x y\"\n}");
    assert_eq!(payload.raw_text(), Some(r#"{"a":[1,2],"b":"x y"}"#));
    assert_eq!(payload, json!({"a": [1, 2], "b": "x y"}));
}

#[test]
fn a_kept_text_answers_its_type_unparsed() {
    for text in [r#"{"a":"b"}"#, r#""s""#, "null", "[1]", "3", "true"] {
        let kept = read(text);
        let value = Payload::from(kept.value().clone());
        assert_eq!(kept.is_null(), value.is_null(), "{text}");
        assert_eq!(kept.is_object(), value.is_object(), "{text}");
        assert_eq!(kept.is_string(), value.is_string(), "{text}");
        assert_eq!(kept.as_str(), value.as_str(), "{text}");
        assert_eq!(read(text).text().as_deref(), value.as_str(), "{text}");
    }
}

#[test]
fn a_string_read_once_is_not_kept_parsed() {
    let payload = read(r#""line\nnext""#);
    assert_eq!(payload.text().as_deref(), Some("line\nnext"));
    let Repr::Raw(raw) = &payload.0 else {
        panic!("kept as text")
    };
    assert!(raw.value.get().is_none());
    let plain = read(r#""plain""#);
    assert!(matches!(plain.text(), Some(Cow::Borrowed("plain"))));
}

#[test]
fn changing_a_payload_drops_its_text() {
    let mut payload = read(r#"{"a":1}"#);
    payload.to_mut()["b"] = json!(2);
    assert_eq!(payload.raw_text(), None);
    assert_eq!(serde_json::to_string(&payload).unwrap(), r#"{"a":1,"b":2}"#);
}

#[test]
fn equality_is_the_values() {
    assert_eq!(read(r#"{"a":1,"b":2}"#), read(r#"{"b":2,"a":1}"#));
    assert_eq!(read(r#"{"a":1}"#), Payload::from(json!({"a": 1})));
    assert_ne!(read("1"), read("2"));
    assert_eq!(read("[1]").clone().into_value(), json!([1]));
}

#[test]
fn serde_jsons_compact_serializers_take_the_text() {
    assert!(takes_raw_text::<&mut serde_json::Serializer<Vec<u8>>>());
    assert!(takes_raw_text::<&mut serde_json::Serializer<&mut Vec<u8>>>());
    assert!(takes_raw_text::<serde_json::value::Serializer>());
    assert!(!takes_raw_text::<
        &mut serde_json::Serializer<Vec<u8>, serde_json::ser::PrettyFormatter<'_>>,
    >());
    assert!(takes_raw_text::<
        &mut serde_json::Serializer<Vec<u8>, serde_json::ser::CompactFormatter>,
    >());
    assert!(takes_raw_text::<
        &mut serde_json::Serializer<std::collections::HashMap<u8, u8>>,
    >());
    assert!(!takes_raw_text::<std::fmt::Formatter<'_>>());
}

#[test]
fn a_pretty_writer_writes_the_value_pretty() {
    let payload = read(r#"{"a":[1]}"#);
    assert_eq!(
        serde_json::to_string_pretty(&payload).unwrap(),
        serde_json::to_string_pretty(&json!({"a": [1]})).unwrap()
    );
}

#[test]
fn read_through_a_value_and_into_one() {
    let payload: Payload = serde_json::from_value(json!({"k": "v"})).unwrap();
    assert_eq!(payload.raw_text(), Some(r#"{"k":"v"}"#));
    assert_eq!(serde_json::to_value(&payload).unwrap(), json!({"k": "v"}));
}

#[test]
fn read_through_serdes_buffer_for_tagged_enums() {
    #[derive(Deserialize)]
    #[serde(tag = "type")]
    enum Tagged {
        Call { input: Payload },
    }
    let Tagged::Call { input } =
        serde_json::from_str(r#"{"input":{"a":[1]},"type":"Call"}"#).unwrap();
    assert_eq!(input, json!({"a": [1]}));
    assert_eq!(serde_json::to_string(&input).unwrap(), r#"{"a":[1]}"#);
}

#[test]
fn a_large_payload_stays_in_its_shared_line() {
    #[derive(Deserialize)]
    struct Event {
        output: Payload,
        status: Payload,
    }
    let big = "z".repeat(text::SHARED_AT);
    let line = Arc::new(format!(r#"{{"output":"{big}","status":"ok"}}"#));
    let event: Event = read_sharing(&line, |text| serde_json::from_slice(text.as_bytes())).unwrap();
    // The output holds the line; the status, small, is a copy.
    assert_eq!(Arc::strong_count(&line), 2);
    assert_eq!(event.output, Value::String(big.clone()));
    assert_eq!(event.output.text().as_deref(), Some(big.as_str()));
    assert_eq!(event.status, json!("ok"));
    assert_eq!(
        serde_json::to_string(&event.output).unwrap(),
        format!("\"{big}\"")
    );
    drop(event);
    assert_eq!(Arc::strong_count(&line), 1);
    // Read again without sharing, it is a copy.
    let copied: Event = serde_json::from_str(&line).unwrap();
    assert_eq!(Arc::strong_count(&line), 1);
    assert_eq!(copied.output.raw_text().map(str::len), Some(big.len() + 2));
}

#[test]
fn nesting_past_the_limit_is_an_error_not_a_panic() {
    let deep = format!("{}{}", "[".repeat(200), "]".repeat(200));
    let text = RawValue::from_string(deep).unwrap();
    assert!(Payload::from_raw(text).is_err());
}

#[test]
fn a_head_of_a_string_reads_as_the_text_begins() {
    let long = format!("Error: {}", "line\n".repeat(1000));
    for payload in [
        read(&serde_json::to_string(&long).unwrap()),
        Payload::from(long.as_str()),
    ] {
        let head = payload.text_head(16).unwrap();
        assert!(head.len() >= 16 && long.starts_with(&*head), "{head:?}");
        assert_eq!(payload.text_head(long.len() + 1).unwrap(), long);
    }
    assert_eq!(read(r#"{"a":1}"#).text_head(16), None);
    assert_eq!(read("7").text_head(16), None);
}
