use super::*;
use crate::Payload;
use crate::meta;
use crate::part::{ToolError, ToolKind, ToolState};
use serde_json::json;

fn bash() -> ToolCall<Started> {
    ToolCall::start("call_1", "Bash", ToolKind::Bash)
        .with_title("ls -la")
        .with_input(json!({"command": "ls -la"}))
        .started_at(1_700_000_000_000_u64)
}

#[test]
fn started_running_complete() {
    let mut running = bash().run(None);
    running.append_output("a\n");
    running.append_output("b\n");
    assert_eq!(running.streamed_output().text(), "a\nb\n");
    let part = running.to_part();
    assert_eq!(part.state, ToolState::Running);
    assert_eq!(part.metadata.unwrap()[meta::PARTIAL_OUTPUT], "a\nb\n");

    let done = bash()
        .run(None)
        .complete(Completion::with_output(json!("a\nb\n")).at(1_700_000_000_750_u64));
    let part = done.to_part();
    assert_eq!(part.state, ToolState::Complete);
    assert_eq!(part.output.as_deref(), Some(&json!("a\nb\n")));
    assert_eq!(part.error, None);
    assert_eq!(part.timing.unwrap().elapsed_ms, Some(750));
}

#[test]
fn complete_from_started_goes_through_running() {
    let direct = bash().complete(Completion::with_output(json!(1)));
    let via_running = bash().run(None).complete(Completion::with_output(json!(1)));
    assert_eq!(direct, via_running);
}

#[test]
fn streamed_output_becomes_the_output_when_none_is_given() {
    let mut running = bash().run(None);
    running.append_output("hello");
    let done = running.complete(Completion::default());
    assert_eq!(done.output(), Some(&Payload::from(json!("hello"))));
}

#[test]
fn completion_carries_final_input_and_title() {
    let search = ToolCall::start("ws_1", "webSearch", ToolKind::WebSearch)
        .with_input(json!({"query": ""}))
        .complete(
            Completion::default()
                .input(json!({"query": "Reuters top news"}))
                .title("Searching Reuters top news"),
        );
    assert_eq!(search.input(), &json!({"query": "Reuters top news"}));
    assert_eq!(search.title(), "Searching Reuters top news");
    assert_eq!(search.output(), None);
}

#[test]
fn failure_keeps_streamed_output_in_details() {
    let mut running = bash().run(None);
    running.append_output("partial");
    let failed = running.fail(ToolError::new("exit 3").with_code("3").into());
    assert_eq!(
        failed.error().details,
        Some(json!({"partialOutput": "partial"}).into())
    );
    let part = failed.to_part();
    assert_eq!(part.state, ToolState::Error);
    assert_eq!(part.output, None);
}

#[test]
fn partial_output_is_capped_on_a_char_boundary_and_flagged() {
    let mut running = bash().with_output_cap(5).run(None);
    running.append_output("ab");
    running.append_output("cdé"); // 'é' is 2 bytes: only "abcd" fits in 5 bytes
    running.append_output("x"); // dropped: the kept text stays a prefix
    let streamed = running.streamed_output();
    assert_eq!(streamed.text(), "abcd");
    assert_eq!(streamed.total_bytes(), 7);
    assert!(streamed.is_truncated());
    let done = running.complete(Completion::default());
    let part = done.to_part();
    let metadata = part.metadata.unwrap();
    assert_eq!(metadata[meta::OUTPUT_TRUNCATED], true);
    assert_eq!(metadata[meta::OUTPUT_TOTAL_BYTES], 7);
    assert_eq!(metadata[meta::OUTPUT_CAP_BYTES], 5);
    assert_eq!(part.output.as_deref(), Some(&json!("abcd")));
}

#[test]
fn metadata_merges_by_top_level_key() {
    let mut call = bash();
    call.merge_metadata(json!({"a": 1, "b": {"x": 1}}).as_object().unwrap().clone());
    call.merge_metadata(json!({"b": {"y": 2}}).as_object().unwrap().clone());
    assert_eq!(
        call.metadata(),
        json!({"a": 1, "b": {"y": 2}}).as_object().unwrap()
    );
}

#[test]
fn debug_names_the_state() {
    let text = format!("{:?}", bash().run(None));
    assert!(
        text.starts_with("ToolCall<running> { id: \"call_1\""),
        "{text}"
    );
}

#[test]
fn output_that_exactly_fills_the_cap_is_not_truncated() {
    let mut running = bash().with_output_cap(4).run(None);
    running.append_output("abcd");
    running.append_output("");
    assert!(!running.streamed_output().is_truncated());
    running.append_output("é");
    let streamed = running.streamed_output();
    assert_eq!((streamed.text(), streamed.total_bytes()), ("abcd", 6));
    assert!(streamed.is_truncated());
}

#[test]
fn a_final_output_given_whole_is_not_flagged_truncated() {
    let cut = || {
        let mut running = bash().with_output_cap(2).run(None);
        running.append_output("abcdef");
        running
    };
    let done = cut().complete(Completion::with_output(json!("abcdef")));
    let part = done.to_part();
    assert_eq!(part.output.as_deref(), Some(&json!("abcdef")));
    let metadata = part.metadata.unwrap_or_default();
    assert!(
        !metadata.contains_key(meta::OUTPUT_TRUNCATED),
        "{metadata:?}"
    );

    let failed = cut().fail(Failure::new(
        ToolError::new("boom").with_details(json!({"exitCode": 1})),
    ));
    let metadata = failed.to_part().metadata.unwrap_or_default();
    assert!(
        !metadata.contains_key(meta::OUTPUT_TRUNCATED),
        "{metadata:?}"
    );

    // The partial output the part keeps is flagged when it was cut.
    let failed = cut().fail(Failure::new(ToolError::new("boom")));
    let part = failed.to_part();
    assert_eq!(part.metadata.unwrap()[meta::OUTPUT_TRUNCATED], true);
    assert_eq!(
        part.error.unwrap().details,
        Some(json!({ "partialOutput": "ab" }).into())
    );
}
