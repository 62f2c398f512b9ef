//! Every recorded fixture: normalized with no diagnostic, every call id of the raw stream
//! (as the dialects' `call_ids.toml` say) exactly once in the parts, the parts and the
//! event log as reviewed (a golden per fixture, stored once: see `tests/goldens.toml`),
//! and every fixture written in every emitter format, whose goldens are on the named
//! cases of `tests/goldens.toml`.
#![allow(clippy::unwrap_used, clippy::expect_used)]

mod common;
mod goldens;

use std::collections::{BTreeMap, BTreeSet};

use common::call_ids::CallIds;

/// Every fixture's output for one golden test, by `folder/name.jsonl`.
fn outputs(output: impl Fn(&std::path::Path) -> String) -> BTreeMap<String, String> {
    goldens::fixtures()
        .into_iter()
        .map(|fixture| {
            let text = output(&goldens::fixtures_dir().join(&fixture));
            (fixture, text)
        })
        .collect()
}

/// A fixture's parts, as compact JSON.
fn parts_json(path: &std::path::Path) -> String {
    let (parts, _) = common::normalize(&std::fs::read(path).unwrap(), None);
    serde_json::to_string(&parts).unwrap()
}

#[test]
fn every_fixture_normalizes_to_its_reviewed_parts() {
    let call_ids = CallIds::load();
    let rules = goldens::Rules::load();
    let outputs = outputs(parts_json);
    let mut redundant = Vec::new();
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
        // The lines that are not JSON are the CLI's logs among the events (read without a
        // diagnostic, as asserted above).
        for value in bytes
            .split(|byte| *byte == b'\n')
            .filter_map(|line| serde_json::from_slice(line).ok())
        {
            call_ids.of(&value, &mut raw_ids);
        }
        raw_ids.extend(call_ids.made(&goldens::relative(path)).map(str::to_owned));
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
        let fixture = goldens::relative(path);
        let test = "every_fixture_normalizes_to_its_reviewed_parts";
        if rules.needs_golden(test, &fixture, &outputs, "[]", &mut redundant) {
            insta::assert_json_snapshot!(parts);
        }
    });
    goldens::assert_none_redundant(&redundant);
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
    let rules = goldens::Rules::load();
    let outputs = outputs(|path| written(path, toolnorm_adapters::Format::Events));
    let mut redundant = Vec::new();
    insta::glob!("../../../fixtures", "*/*.jsonl", |path| {
        let fixture = goldens::relative(path);
        let test = "every_fixture_gives_its_reviewed_event_log";
        if rules.needs_golden(test, &fixture, &outputs, "", &mut redundant) {
            let log = &outputs[&fixture];
            insta::assert_snapshot!(log);
        }
    });
    goldens::assert_none_redundant(&redundant);
}

#[test]
fn every_case_gives_its_reviewed_acp_frames() {
    let rules = goldens::Rules::load();
    insta::glob!("../../../fixtures", &rules.case_pattern(), |path| {
        let frames = written(path, toolnorm_adapters::Format::Acp);
        insta::assert_snapshot!(frames);
    });
}

#[test]
fn every_case_gives_its_reviewed_ai_sdk_chunks() {
    let rules = goldens::Rules::load();
    insta::glob!("../../../fixtures", &rules.case_pattern(), |path| {
        let chunks = written(path, toolnorm_adapters::Format::AiSdk);
        insta::assert_snapshot!(chunks);
    });
}

#[test]
fn every_case_gives_its_reviewed_ag_ui_events() {
    let rules = goldens::Rules::load();
    insta::glob!("../../../fixtures", &rules.case_pattern(), |path| {
        let events = written(path, toolnorm_adapters::Format::AgUi);
        insta::assert_snapshot!(events);
    });
}

#[test]
fn every_case_gives_its_reviewed_otel_spans() {
    let rules = goldens::Rules::load();
    insta::glob!("../../../fixtures", &rules.case_pattern(), |path| {
        let spans = written(path, toolnorm_adapters::Format::Otel);
        insta::assert_snapshot!(spans);
    });
}

/// The emitter formats whose goldens are on the cases.
const CASE_FORMATS: &[toolnorm_adapters::Format] = &[
    toolnorm_adapters::Format::Acp,
    toolnorm_adapters::Format::AiSdk,
    toolnorm_adapters::Format::AgUi,
    toolnorm_adapters::Format::Otel,
];

/// Every frame shape that any fixture writes in an emitter format is written by a case
/// (see `goldens::shape`): the cases' goldens reach every kind of frame each emitter
/// builds.
#[test]
fn the_cases_write_every_frame_shape() {
    let rules = goldens::Rules::load();
    for format in CASE_FORMATS {
        // Every fixture written in the format (with no diagnostic, as `written` asserts):
        // the shapes of its lines, and a fixture that writes each.
        let mut shapes: BTreeMap<String, String> = BTreeMap::new();
        let mut covered = BTreeSet::new();
        for fixture in goldens::fixtures() {
            let text = written(&goldens::fixtures_dir().join(&fixture), *format);
            for line in text.lines() {
                let value: serde_json::Value = serde_json::from_str(line)
                    .unwrap_or_else(|error| panic!("{fixture} in {format}: {error}: {line}"));
                let shape = goldens::shape(&value);
                if rules.cases.contains_key(&fixture) {
                    covered.insert(shape.clone());
                }
                shapes.entry(shape).or_insert_with(|| fixture.clone());
            }
        }
        let missing: Vec<String> = shapes
            .iter()
            .filter(|(shape, _)| !covered.contains(*shape))
            .map(|(shape, fixture)| format!("{fixture}: {shape}"))
            .collect();
        assert!(
            missing.is_empty(),
            "{format}: no case of goldens.toml writes these shapes (add a case):\n{}",
            missing.join("\n")
        );
    }
}

/// Every fixture written in every format, with no diagnostic: the `parts` lines are its
/// parts, and the last `updates` snapshot of each call is its part.
#[test]
fn every_fixture_is_written_in_every_format() {
    use toolnorm_adapters::Format;
    for fixture in goldens::fixtures() {
        let path = goldens::fixtures_dir().join(&fixture);
        let parts: serde_json::Value = serde_json::from_str(&parts_json(&path)).unwrap();
        let by_id = |lines: &str| -> BTreeMap<String, serde_json::Value> {
            lines
                .lines()
                .map(|line| {
                    let part: serde_json::Value = serde_json::from_str(line).unwrap();
                    (part["id"].as_str().unwrap().to_owned(), part)
                })
                .collect()
        };
        let expected = by_id(
            &parts
                .as_array()
                .unwrap()
                .iter()
                .map(|part| format!("{part}\n"))
                .collect::<String>(),
        );
        for format in Format::all() {
            let text = written(&path, format);
            if format == Format::Parts || format == Format::Updates {
                assert_eq!(by_id(&text), expected, "{fixture} in {format}");
            }
        }
    }
}

/// Every fixture's event log, read back as the `events` dialect, folds into the fixture's
/// parts.
#[test]
fn every_event_log_replays_to_its_parts() {
    for fixture in goldens::fixtures() {
        let path = goldens::fixtures_dir().join(&fixture);
        let log = written(&path, toolnorm_adapters::Format::Events);
        let (replayed, diagnostics) = common::normalize(
            log.as_bytes(),
            toolnorm_adapters::Dialect::from_name("events"),
        );
        assert!(diagnostics.is_empty(), "{fixture}: {diagnostics:?}");
        assert_eq!(
            serde_json::to_string(&replayed).unwrap(),
            parts_json(&path),
            "{fixture}: its event log replays to other parts"
        );
    }
}

/// Every golden of this crate belongs to a fixture or a case, and no two goldens of the
/// workspace hold the same output (insta's header, which names the test and the input,
/// left out).
#[test]
fn every_golden_is_used_and_no_two_are_identical() {
    let rules = goldens::Rules::load();
    let fixtures: BTreeSet<String> = goldens::fixtures().into_iter().collect();
    let mut expected: BTreeSet<String> = BTreeSet::new();
    for fixture in &fixtures {
        for test in [
            "every_fixture_normalizes_to_its_reviewed_parts",
            "every_fixture_gives_its_reviewed_event_log",
        ] {
            expected.insert(goldens::golden_name(test, fixture));
        }
    }
    for case in rules.cases.keys() {
        assert!(fixtures.contains(case), "goldens.toml: no fixture {case}");
        for test in [
            "every_case_gives_its_reviewed_acp_frames",
            "every_case_gives_its_reviewed_ai_sdk_chunks",
            "every_case_gives_its_reviewed_ag_ui_events",
            "every_case_gives_its_reviewed_otel_spans",
        ] {
            expected.insert(goldens::golden_name(test, case));
        }
    }
    for fixture in rules.no_calls.keys() {
        assert!(
            fixtures.contains(fixture),
            "goldens.toml: no fixture {fixture}"
        );
    }
    let own = goldens::snapshots().canonicalize().unwrap();
    let mut bodies: BTreeMap<String, String> = BTreeMap::new();
    for dir in goldens::snapshot_dirs() {
        for entry in std::fs::read_dir(&dir).unwrap() {
            let path = entry.unwrap().path();
            let name = path.file_name().unwrap().to_string_lossy().into_owned();
            if !name.ends_with(".snap") {
                continue;
            }
            if dir.canonicalize().unwrap() == own {
                assert!(
                    expected.contains(&name),
                    "{}: no fixture or case of goldens.toml has this golden; delete it",
                    path.display()
                );
            }
            let text = std::fs::read_to_string(&path).unwrap();
            let body = goldens::body(&text).to_owned();
            if let Some(other) = bodies.insert(body, path.display().to_string()) {
                panic!("{} and {other} hold the same output", path.display());
            }
        }
    }
}
