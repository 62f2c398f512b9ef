//! Redaction never breaks what it redacts: JSON stays JSON of the same shape, text stays
//! UTF-8, and redacting twice changes nothing more.
#![allow(clippy::unwrap_used, clippy::expect_used)]

use proptest::prelude::*;
use serde_json::Value;
use toolnorm_adapters::Redactor;

/// Made-up secrets of each service's published shape (none is a real credential).
const SAMPLES: &[(&str, &str)] = &[
    (
        "anthropic_key",
        "sk-ant-api03-AbCdEfGhIjKlMnOpQrStUvWxYz0123456789-_abcdEFGH",
    ),
    ("openai_key", "sk-proj-AbCdEfGhIjKlMnOpQrStUvWxYz0123456789"),
    ("github_token", "ghp_AbCdEfGhIjKlMnOpQrStUvWxYz0123456789"),
    (
        "github_token",
        "github_pat_11ABCDEFG0123456789abc_AbCdEfGhIjKlMnOpQrStUvWxYz0123456789abcdefghijklmnopq",
    ),
    ("gitlab_token", "glpat-AbCdEfGhIjKlMnOpQrSt"),
    ("aws_access_key_id", "AKIAIOSFODNN7EXAMPLE"),
    ("google_api_key", "AIzaSyA-AbCdEfGhIjKlMnOpQrStUvWxYz01234"),
    (
        "slack_token",
        "xoxb-123456789012-1234567890123-AbCdEfGhIjKlMnOpQrStUvWx",
    ),
    ("stripe_key", "sk_live_AbCdEfGhIjKlMnOpQrStUvWx"),
    ("npm_token", "npm_AbCdEfGhIjKlMnOpQrStUvWxYz0123456789"),
    (
        "pypi_token",
        "pypi-AgEIcHlwaS5vcmcCJDAbCdEfGhIjKlMnOpQrStUvWxYz",
    ),
    ("huggingface_token", "hf_AbCdEfGhIjKlMnOpQrStUvWxYz01234567"),
    (
        "jwt",
        "eyJhbGciOiJIUzI1NiJ9.eyJzdWIiOiIxMjM0NTY3ODkwIn0.dozjgNryP4J3jVmNHl0w5N_XgL0n3I9PlFUP0THsR8U",
    ),
];

#[test]
fn every_service_format_is_found_by_its_kind() {
    let redactor = Redactor::builtin();
    for (kind, secret) in SAMPLES {
        let text = format!("echo {secret} done");
        let (redacted, found) = redactor.redact_text(&text);
        assert_eq!(found, 1, "{kind}: {redacted}");
        assert_eq!(redacted, format!("echo [REDACTED:{kind}] done"), "{kind}");
    }
}

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

/// Text around a planted secret: words, punctuation, quotes, a line end.
fn surrounding() -> impl Strategy<Value = String> {
    prop::collection::vec(
        prop_oneof![
            "[a-z]{1,8}".prop_map(|word| word),
            Just(" ".to_owned()),
            Just("\n".to_owned()),
            Just("\"".to_owned()),
            Just("'".to_owned()),
            Just(": ".to_owned()),
            Just("(".to_owned()),
        ],
        0..6,
    )
    .prop_map(|pieces| pieces.concat())
}

proptest! {
    #[test]
    fn a_secret_planted_anywhere_in_a_real_part_is_gone(
        sample in 0..SAMPLES.len(),
        field in 0..4usize,
        before in surrounding(),
        after in surrounding(),
    ) {
        let (kind, secret) = SAMPLES[sample];
        // A real part, with the secret planted in its command, output, title or metadata.
        let text = std::fs::read_to_string(
            std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("../../fixtures/claude-code/shell-ok.jsonl"),
        )
        .unwrap();
        let mut parts: Vec<Value> = Vec::new();
        let mut normalizer = toolnorm_adapters::Normalizer::builder().build();
        normalizer.push(text.as_bytes(), &mut |_| {});
        normalizer.finish(&mut |_| {});
        parts.extend(normalizer.fold().parts().iter().map(|part| serde_json::to_value(part).unwrap()));
        let mut part = parts.remove(0);
        // Separated from the text around it, as a secret is in a command or a log.
        let planted = format!("{before} {secret} {after}");
        let slot = match field {
            0 => &mut part["input"]["command"],
            1 => &mut part["output"],
            2 => &mut part["title"],
            _ => &mut part["metadata"]["note"],
        };
        *slot = Value::from(planted.clone());
        let found = Redactor::builtin().redact_value(&mut part);
        let written = serde_json::to_string(&part).unwrap();
        prop_assert!(found >= 1, "{kind}: {planted:?}");
        prop_assert!(!written.contains(secret), "{kind} survived in {written}");
    }
}
