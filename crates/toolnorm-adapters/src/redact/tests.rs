use serde_json::json;

use super::*;

#[test]
fn the_name_of_a_secret_stays_readable() {
    let redactor = Redactor::builtin();
    let cases = [
        (
            "DB_PASSWORD=hunter2 ./migrate",
            "DB_PASSWORD=[REDACTED:secret_assignment] ./migrate",
        ),
        (
            "export API_TOKEN='a b c'",
            "export API_TOKEN='[REDACTED:secret_assignment]'",
        ),
        (
            "curl -H 'Authorization: Bearer abc.def-123456' x",
            "curl -H 'Authorization: Bearer [REDACTED:authorization]' x",
        ),
        (
            "git remote -v\norigin https://me:s3cret@example.com/r.git",
            "git remote -v\norigin https://me:[REDACTED:url_password]@example.com/r.git",
        ),
        (
            "deploy --api-key abcdef123 --verbose",
            "deploy --api-key [REDACTED:secret_flag] --verbose",
        ),
        (
            "login --password=pw123",
            "login --password=[REDACTED:secret_flag]",
        ),
        (
            r#"{"client_secret": "xyz"}"#,
            r#"{"client_secret": "[REDACTED:secret_field]"}"#,
        ),
        (
            "aws_secret_access_key = wJalrXUtnFEMI/K7MDENG/bPxRfiCYEXAMPLEKEY",
            "aws_secret_access_key = [REDACTED:aws_secret_access_key]",
        ),
    ];
    for (text, want) in cases {
        assert_eq!(redactor.redact_text(text).0, want, "{text}");
    }
}

#[test]
fn a_pem_private_key_goes_whole() {
    let key =
        "-----BEGIN RSA PRIVATE KEY-----\nMIIEowIBAAKCAQEA\nabc\n-----END RSA PRIVATE KEY-----";
    let text = format!("cat id_rsa\n{key}\nbye");
    let (redacted, found) = Redactor::builtin().redact_text(&text);
    assert_eq!(found, 1);
    assert_eq!(redacted, "cat id_rsa\n[REDACTED:private_key]\nbye");
}

#[test]
fn text_without_secrets_is_left_alone() {
    let redactor = Redactor::builtin();
    for text in [
        "cargo test --workspace",
        "PWD=/home/me ls",
        "read src/token.rs",
        "https://example.com/a:b@c",
        "sk-short",
    ] {
        assert_eq!(
            redactor.redact_text(text),
            (Cow::Borrowed(text), 0),
            "{text}"
        );
    }
}

#[test]
fn values_are_redacted_in_place_and_keys_that_name_secrets_whole() {
    let mut value = json!({
        "command": "GITHUB_TOKEN=ghp_AbCdEfGhIjKlMnOpQrStUvWxYz0123456789 gh pr list",
        "env": {"password": "p", "count": 3, "api_key": "k"},
        "list": ["Bearer abcdefgh1234"],
    });
    let found = Redactor::builtin().redact_value(&mut value);
    assert_eq!(found, 4, "{value}");
    assert_eq!(
        value,
        json!({
            // The service's format names the kind, before the generic name/value form.
            "command": "GITHUB_TOKEN=[REDACTED:github_token] gh pr list",
            "env": {"password": "[REDACTED:secret_field]", "count": 3, "api_key": "[REDACTED:secret_field]"},
            "list": ["Bearer [REDACTED:bearer_token]"],
        })
    );
    // Redacting again finds nothing more.
    assert_eq!(Redactor::builtin().redact_value(&mut value), 0);
}

#[test]
fn a_json_line_stays_json_and_a_broken_one_is_redacted_as_text() {
    let redactor = Redactor::builtin();
    let line = br#"{"type":"x","input":{"command":"curl -u me:pw https://me:pw@host/ -H \"Authorization: token abcdefgh\""}}"#;
    let redacted = redactor.redact_line(line);
    let value: Value = serde_json::from_slice(&redacted).unwrap();
    let command = value["input"]["command"].as_str().unwrap();
    assert!(
        !command.contains("abcdefgh") && !command.contains(":pw@"),
        "{command}"
    );
    let broken = br#"{"type":"x","input":{"command":"DB_PASSWORD=hunter2 ./m"#;
    let redacted = redactor.redact_line(broken);
    assert!(!String::from_utf8_lossy(&redacted).contains("hunter2"));
}

#[test]
fn user_patterns_come_first_and_bad_ones_are_errors() {
    let redactor = Redactor::builtin()
        .with_patterns_toml(
            "[[pattern]]\nkind = \"ticket\"\nregex = 'TICKET-[0-9]+'\n",
            "mine.toml",
        )
        .unwrap();
    assert_eq!(
        redactor.redact_text("see TICKET-42").0,
        "see [REDACTED:ticket]"
    );
    let error = Redactor::builtin()
        .with_pattern("bad", "(unclosed")
        .unwrap_err();
    assert!(error.to_string().starts_with("pattern `bad`"), "{error}");
    let error = Redactor::builtin()
        .with_patterns_toml("[[pattern]]\nkind = 1\n", "mine.toml")
        .unwrap_err();
    assert!(error.to_string().starts_with("mine.toml"), "{error}");
}

#[test]
fn every_built_in_pattern_compiles() {
    let count = patterns::builtin().len() + patterns::named().len();
    assert_eq!(Redactor::builtin().rules.len(), count);
    assert!(Redactor::builtin().secret_key.is_some());
}
