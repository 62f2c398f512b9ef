//! Redaction never breaks what it redacts: JSON stays JSON of the same shape, text stays
//! UTF-8, and redacting twice changes nothing more.
#![allow(clippy::unwrap_used, clippy::expect_used)]

use proptest::prelude::*;
use serde_json::Value;
use toolnorm_adapters::Redactor;

/// Text made of secret-looking pieces, JSON's special characters and plain words.
fn text() -> impl Strategy<Value = String> {
    let piece = prop_oneof![
        Just("sk-ant-api03-AbCdEfGhIjKlMnOpQrStUvWxYz0123".to_owned()),
        Just("ghp_AbCdEfGhIjKlMnOpQrStUvWxYz0123456789".to_owned()),
        Just("PASSWORD=".to_owned()),
        Just("--token ".to_owned()),
        Just("Authorization: Bearer ".to_owned()),
        Just("https://u:p@h/".to_owned()),
        Just("-----BEGIN RSA PRIVATE KEY-----".to_owned()),
        Just("-----END RSA PRIVATE KEY-----".to_owned()),
        Just("\"".to_owned()),
        Just("\\".to_owned()),
        Just("'".to_owned()),
        Just("\n".to_owned()),
        Just("é✓".to_owned()),
        "[a-z0-9 =:]{0,12}",
    ];
    prop::collection::vec(piece, 0..8).prop_map(|pieces| pieces.concat())
}

fn json() -> impl Strategy<Value = Value> {
    let leaf = prop_oneof![
        text().prop_map(Value::from),
        any::<i64>().prop_map(Value::from),
        Just(Value::Null),
    ];
    leaf.prop_recursive(3, 24, 4, |inner| {
        prop_oneof![
            prop::collection::vec(inner.clone(), 0..4).prop_map(Value::from),
            prop::collection::vec(
                (prop_oneof![text(), Just("password".to_owned())], inner),
                0..4
            )
            .prop_map(|entries| Value::Object(entries.into_iter().collect())),
        ]
    })
}

/// The value with every string emptied: its shape.
fn shape(value: &Value) -> Value {
    match value {
        Value::String(_) => Value::String(String::new()),
        Value::Array(items) => items.iter().map(shape).collect(),
        Value::Object(object) => Value::Object(
            object
                .iter()
                .map(|(key, value)| (key.clone(), shape(value)))
                .collect(),
        ),
        other => other.clone(),
    }
}

proptest! {
    #[test]
    fn a_json_line_stays_json_of_the_same_shape(value in json()) {
        let redactor = Redactor::builtin();
        let line = serde_json::to_vec(&value).unwrap();
        let redacted = redactor.redact_line(&line);
        let parsed: Value = serde_json::from_slice(&redacted).unwrap();
        prop_assert_eq!(shape(&parsed), shape(&value));
        // Once redacted, nothing more is found.
        let again = redactor.redact_line(&redacted);
        prop_assert_eq!(again.as_ref(), redacted.as_ref());
    }

    #[test]
    fn text_redacted_twice_is_redacted_once(text in text()) {
        let redactor = Redactor::builtin();
        let once = redactor.redact_text(&text).0.into_owned();
        let (twice, found) = redactor.redact_text(&once);
        prop_assert_eq!(found, 0, "{:?} → {:?}", text, once);
        prop_assert_eq!(once.as_str(), twice.as_ref());
    }
}
