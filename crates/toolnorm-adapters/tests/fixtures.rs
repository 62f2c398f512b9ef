//! Every recorded fixture: normalized with no diagnostic, every call id of the raw stream
//! (as the dialects' `call_ids.toml` say) exactly once in the parts, and the parts as
//! reviewed (one golden per fixture).
#![allow(clippy::unwrap_used, clippy::expect_used)]

mod common;

use std::collections::BTreeSet;

use common::call_ids::CallIds;

#[test]
fn every_fixture_normalizes_to_its_reviewed_parts() {
    let call_ids = CallIds::load();
    insta::glob!("../../../fixtures", "*/*.jsonl", |path| {
        let bytes = std::fs::read(path).unwrap();
        let (parts, diagnostics) = common::normalize(&bytes, None);
        assert!(
            diagnostics.is_empty(),
            "{}: {:#?}",
            path.display(),
            diagnostics
        );

        let mut raw_ids = BTreeSet::new();
        for line in bytes
            .split(|byte| *byte == b'\n')
            .filter(|line| !line.is_empty())
        {
            call_ids.of(&serde_json::from_slice(line).unwrap(), &mut raw_ids);
        }
        let part_ids: Vec<&str> = parts.iter().map(|part| part.id.as_str()).collect();
        let unique: BTreeSet<&str> = part_ids.iter().copied().collect();
        assert_eq!(
            unique.len(),
            part_ids.len(),
            "{}: a call id appears twice",
            path.display()
        );
        let raw: BTreeSet<&str> = raw_ids.iter().map(String::as_str).collect();
        assert_eq!(
            unique,
            raw,
            "{}: call ids of the stream and of the parts differ",
            path.display()
        );
        insta::assert_json_snapshot!(parts);
    });
}

/// Every fixture written in `format` exactly as `toolnorm normalize --format <format>`
/// writes it (finished calls evicted, applied events kept for the event log).
fn written(path: &std::path::Path, format: toolnorm_adapters::Format) -> String {
    use toolnorm_adapters::Writer;
    use toolnorm_adapters::{Normalizer, Step};
    let bytes = std::fs::read(path).unwrap();
    let mut normalizer = Normalizer::builder()
        .evict_finished(true)
        .keep_events(format.needs_events())
        .build();
    let mut writer = Writer::new(format, Vec::new());
    let mut on_step = |step: Step<'_>| {
        assert!(
            !matches!(step, Step::Diagnostic(_)),
            "{}: a diagnostic",
            path.display()
        );
        writer.step(&step).unwrap();
    };
    normalizer.push(&bytes, &mut on_step);
    normalizer.finish(&mut on_step);
    writer.finish(normalizer.fold()).unwrap();
    String::from_utf8(writer.into_inner()).unwrap()
}

#[test]
fn every_fixture_gives_its_reviewed_event_log() {
    insta::glob!("../../../fixtures", "*/*.jsonl", |path| {
        let log = written(path, toolnorm_adapters::Format::Events);
        insta::assert_snapshot!(log);
    });
}

#[test]
fn every_fixture_gives_its_reviewed_acp_frames() {
    insta::glob!("../../../fixtures", "*/*.jsonl", |path| {
        let frames = written(path, toolnorm_adapters::Format::Acp);
        insta::assert_snapshot!(frames);
    });
}

#[test]
fn every_fixture_gives_its_reviewed_ai_sdk_chunks() {
    insta::glob!("../../../fixtures", "*/*.jsonl", |path| {
        let chunks = written(path, toolnorm_adapters::Format::AiSdk);
        insta::assert_snapshot!(chunks);
    });
}

#[test]
fn every_fixture_gives_its_reviewed_ag_ui_events() {
    insta::glob!("../../../fixtures", "*/*.jsonl", |path| {
        let events = written(path, toolnorm_adapters::Format::AgUi);
        insta::assert_snapshot!(events);
    });
}
