//! The generated JSON Schemas (`generated/schema/`, draft 2020-12, from the Rust types) hold
//! every part and every event of every fixture, the `_meta.toolnorm` of every ACP frame
//! and the `toolnorm` object of every AI SDK chunk and AG-UI event, and refuse what is not
//! one.
#![allow(clippy::unwrap_used, clippy::expect_used)]

use crate::common;

use serde_json::{Value, json};
use toolnorm_adapters::{AcpEmitter, AcpOptions, AgUiEmitter, AiSdkEmitter, Normalizer, Step};

fn validator(name: &str) -> common::JsonSchema {
    let path = common::fixtures().join(format!("../generated/schema/{name}.json"));
    let schema: Value = serde_json::from_slice(&std::fs::read(&path).unwrap()).unwrap();
    assert_eq!(
        schema["$schema"],
        "https://json-schema.org/draft/2020-12/schema"
    );
    common::JsonSchema::new(name, schema)
}

fn assert_valid(validator: &common::JsonSchema, value: &Value, origin: &str) {
    validator.assert_valid(value, origin);
}

#[test]
fn every_fixture_part_and_event_fits_the_schemas() {
    let parts = validator("NormalizedToolPart");
    let events = validator("ToolEvent");
    let acp_meta = validator("AcpToolnormMeta");
    let ui_meta = validator("UiToolnormMeta");
    let (mut checked_parts, mut checked_events, mut files, mut metas) = (0, 0, 0, 0);
    for dir in std::fs::read_dir(common::fixtures()).unwrap() {
        let dir = dir.unwrap().path();
        if !dir.is_dir() {
            continue;
        }
        for file in std::fs::read_dir(&dir).unwrap() {
            let path = file.unwrap().path();
            if path.extension().is_none_or(|ext| ext != "jsonl") {
                continue;
            }
            let origin = path.display().to_string();
            let mut normalizer = Normalizer::builder().keep_events(true).build();
            let mut acp = AcpEmitter::new(AcpOptions::default());
            let mut ai_sdk = AiSdkEmitter::new("s");
            let mut ag_ui = AgUiEmitter::new("t");
            let mut on_step = |step: Step<'_>| {
                if let Step::Applied { event, update, .. } = step {
                    let snapshot = update.part();
                    if let Some(frame) = acp.part(&snapshot) {
                        let meta = &frame["params"]["update"]["_meta"]["toolnorm"];
                        if !meta.is_null() {
                            assert_valid(&acp_meta, meta, &origin);
                            metas += 1;
                        }
                    }
                    let ui = ai_sdk
                        .part(&snapshot)
                        .into_iter()
                        .chain(ag_ui.part(&snapshot));
                    for value in ui {
                        let field = ["toolMetadata", "metadata"]
                            .into_iter()
                            .find_map(|key| value.get(key));
                        if let Some(meta) = field {
                            assert_valid(&ui_meta, &meta["toolnorm"], &origin);
                            metas += 1;
                        }
                    }
                    let part = serde_json::to_value(snapshot).unwrap();
                    assert_valid(&parts, &part, &origin);
                    checked_parts += 1;
                    if let Some(event) = event {
                        assert_valid(&events, &serde_json::to_value(event).unwrap(), &origin);
                        checked_events += 1;
                    }
                }
            };
            normalizer.push(&std::fs::read(&path).unwrap(), &mut on_step);
            normalizer.finish(&mut on_step);
            files += 1;
        }
    }
    assert!(files > 100, "{files} fixtures");
    assert!(
        checked_parts > 1000 && checked_events > 1000,
        "{checked_parts} {checked_events}"
    );
}

#[test]
fn the_schemas_refuse_what_is_not_a_part_or_an_event() {
    let parts = validator("NormalizedToolPart");
    let part = json!({"id": "t", "name": "Bash", "kind": "bash", "title": "ls", "input": {}, "state": "started"});
    assert!(parts.is_valid(&part));
    for (field, value) in [
        ("state", json!("done")),
        ("kind", json!("shell")),
        ("error", json!({"code": "x"})),
        ("error", Value::Null),
        ("metadata", json!([])),
        ("timing", json!({"elapsedMs": -1})),
    ] {
        let mut broken = part.clone();
        broken[field] = value;
        assert!(!parts.is_valid(&broken), "{broken}");
    }
    let mut no_input = part.clone();
    no_input.as_object_mut().unwrap().remove("input");
    assert!(!parts.is_valid(&no_input));

    let events = validator("ToolEvent");
    assert!(events.is_valid(&json!({"type": "toolCallRunning", "id": "t"})));
    assert!(!events.is_valid(&json!({"type": "toolCallExploded", "id": "t"})));
    assert!(!events.is_valid(&json!({"type": "toolCallFailed", "id": "t"})));

    let ui = validator("UiToolnormMeta");
    assert!(ui.is_valid(&json!({"kind": "bash", "error": {"message": "m", "code": "exit_code"}})));
    assert!(!ui.is_valid(&json!({"title": "no kind"})));
    assert!(!ui.is_valid(&json!({"kind": "bash", "state": "done"})));
    let acp = validator("AcpToolnormMeta");
    assert!(acp.is_valid(&json!({"outputAppended": {"offset": 0, "chunk": "a"}})));
    assert!(!acp.is_valid(&json!({"outputAppended": {"offset": -1, "chunk": "a"}})));
}
