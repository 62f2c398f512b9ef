//! Given these events, when this one arrives, then this part or this diagnostic.
#![allow(clippy::unwrap_used, clippy::expect_used)] // test code: a failure should panic

use serde_json::{Value, json};
use toolnorm::{
    Error, FINISHED_WINDOW, Fold, InputUpdated, NormalizedToolPart, Outcome, OutputAppended,
    Rejection, ToolCallCompleted, ToolCallFailed, ToolCallRunning, ToolCallStarted, ToolError,
    ToolEvent, ToolKind, ToolState,
};

fn started(id: &str) -> ToolEvent {
    ToolCallStarted {
        id: id.into(),
        name: "Bash".into(),
        kind: ToolKind::Bash,
        title: "ls".into(),
        input: json!({"command": "ls"}).into(),
        metadata: None,
        at: Some("2026-03-01T10:00:00Z".into()),
    }
    .into()
}

fn running(id: &str) -> ToolEvent {
    ToolCallRunning {
        id: id.into(),
        at: None,
    }
    .into()
}

fn chunk(id: &str, offset: u64, text: &str) -> ToolEvent {
    OutputAppended {
        id: id.into(),
        offset,
        chunk: text.into(),
        at: None,
    }
    .into()
}

fn completed(id: &str, output: Value) -> ToolEvent {
    ToolCallCompleted {
        id: id.into(),
        output: Some(output.into()),
        input: None,
        title: None,
        elapsed_ms: None,
        at: Some("2026-03-01T10:00:01.500Z".into()),
    }
    .into()
}

fn failed(id: &str, message: &str) -> ToolEvent {
    ToolCallFailed {
        id: id.into(),
        error: ToolError::new(message).with_code("1"),
        input: None,
        title: None,
        elapsed_ms: None,
        at: None,
    }
    .into()
}

struct Given(Fold);

fn given(events: impl IntoIterator<Item = ToolEvent>) -> Given {
    given_to(Fold::new(), events)
}

/// Given these events, folded by a fold that evicts finished calls.
fn given_evicting(events: impl IntoIterator<Item = ToolEvent>) -> Given {
    given_to(Fold::builder().evict_finished(true).build(), events)
}

fn given_to(mut fold: Fold, events: impl IntoIterator<Item = ToolEvent>) -> Given {
    for event in events {
        if let Err(error) = fold.apply(event) {
            panic!("the given events must apply: {error}");
        }
    }
    Given(fold)
}

impl Given {
    /// Applies the event; returns the outcome and snapshot, or the error with the
    /// fold's parts checked unchanged.
    fn when(mut self, event: ToolEvent) -> Result<(Outcome, NormalizedToolPart), Error> {
        let before = self.0.parts();
        match self.0.apply(event) {
            Ok(update) => Ok((update.outcome, update.part())),
            Err(error) => {
                assert_eq!(self.0.parts(), before, "a rejected event changed the fold");
                Err(error)
            }
        }
    }
}

fn rejection(
    result: Result<(Outcome, NormalizedToolPart), Error>,
) -> (ToolState, Rejection, String) {
    match result {
        Err(error @ Error::Rejected { .. }) => {
            let text = error.to_string();
            let Error::Rejected { state, reason, .. } = error else {
                unreachable!()
            };
            (state, reason, text)
        }
        other => panic!("expected a rejection, got {other:?}"),
    }
}

#[test]
fn a_full_lifecycle_reports_each_snapshot() {
    let (outcome, part) = given([started("a"), running("a"), chunk("a", 0, "x\n")])
        .when(completed("a", json!("x\n")))
        .unwrap();
    assert_eq!(outcome, Outcome::Changed);
    assert_eq!(part.state, ToolState::Complete);
    assert_eq!(part.output.as_deref(), Some(&json!("x\n")));
    let timing = part.timing.unwrap();
    assert_eq!(timing.elapsed_ms, Some(1500));
    assert_eq!(
        part.metadata, None,
        "the partial output goes away once the output is final"
    );
}

#[test]
fn an_event_for_an_unknown_call_is_reported_with_the_event() {
    let error = given([started("a")])
        .when(completed("b", json!(1)))
        .unwrap_err();
    assert_eq!(
        error.to_string(),
        "toolCallCompleted for tool call `b`, which was never started"
    );
    let Error::UnknownCall { event, .. } = error else {
        panic!("{error:?}")
    };
    assert_eq!(
        *event,
        completed("b", json!(1)),
        "the event is handed back, not lost"
    );
}

#[test]
fn completing_twice_with_different_output_is_rejected() {
    let (state, reason, text) =
        rejection(given([started("a"), completed("a", json!(1))]).when(completed("a", json!(2))));
    assert_eq!((state, reason), (ToolState::Complete, Rejection::Terminal));
    assert_eq!(
        text,
        "tool call `a` is complete: toolCallCompleted rejected, terminal states are final"
    );
}

#[test]
fn an_exact_duplicate_is_unchanged() {
    let (outcome, part) = given([started("a"), completed("a", json!(1))])
        .when(completed("a", json!(1)))
        .unwrap();
    assert_eq!(outcome, Outcome::Unchanged);
    assert_eq!(part.output.as_deref(), Some(&json!(1)));
    let (outcome, _) = given([started("a")]).when(started("a")).unwrap();
    assert_eq!(outcome, Outcome::Unchanged);
}

#[test]
fn an_error_after_completion_is_rejected() {
    let (state, reason, _) =
        rejection(given([started("a"), completed("a", json!(1))]).when(failed("a", "late")));
    assert_eq!((state, reason), (ToolState::Complete, Rejection::Terminal));
}

#[test]
fn a_completion_after_an_error_is_rejected() {
    let (state, reason, _) =
        rejection(given([started("a"), failed("a", "boom")]).when(completed("a", json!(1))));
    assert_eq!((state, reason), (ToolState::Error, Rejection::Terminal));
}

#[test]
fn input_after_completion_is_rejected() {
    let update = InputUpdated {
        id: "a".into(),
        input: json!({"command": "rm"}).into(),
        at: None,
    };
    let (state, reason, _) =
        rejection(given([started("a"), completed("a", json!(1))]).when(update.into()));
    assert_eq!((state, reason), (ToolState::Complete, Rejection::Terminal));
}

#[test]
fn a_second_start_with_different_input_is_rejected() {
    let mut again = started("a");
    if let ToolEvent::ToolCallStarted(start) = &mut again {
        start.input = json!({"command": "pwd"}).into();
    }
    let (state, reason, _) = rejection(given([started("a")]).when(again));
    assert_eq!(
        (state, reason),
        (ToolState::Started, Rejection::ConflictingStart)
    );
}

#[test]
fn output_chunks_must_follow_each_other() {
    let (state, reason, text) =
        rejection(given([started("a"), chunk("a", 0, "abc")]).when(chunk("a", 5, "x")));
    assert_eq!(
        (state, reason),
        (ToolState::Running, Rejection::OutputGap { expected: 3 })
    );
    assert!(text.contains("byte 3"), "{text}");

    let (_, reason, _) =
        rejection(given([started("a"), chunk("a", 0, "abc")]).when(chunk("a", 1, "xy")));
    assert_eq!(reason, Rejection::OutputMismatch);

    let (outcome, part) = given([started("a"), chunk("a", 0, "abc")])
        .when(chunk("a", 1, "bcd"))
        .unwrap();
    assert_eq!(
        outcome,
        Outcome::Changed,
        "an overlapping chunk adds only what is new"
    );
    assert_eq!(part.metadata.unwrap()["partialOutput"], "abcd");
}

#[test]
fn output_on_a_started_call_moves_it_to_running() {
    let (outcome, part) = given([started("a")]).when(chunk("a", 0, "hi")).unwrap();
    assert_eq!(outcome, Outcome::Changed);
    assert_eq!(part.state, ToolState::Running);
}

#[test]
fn a_gap_on_a_started_call_leaves_it_started() {
    let (state, reason, _) = rejection(given([started("a")]).when(chunk("a", 4, "late")));
    assert_eq!(
        (state, reason),
        (ToolState::Started, Rejection::OutputGap { expected: 0 })
    );
}

#[test]
fn running_after_completion_is_rejected() {
    let (state, reason, _) =
        rejection(given([started("a"), completed("a", json!(1))]).when(running("a")));
    assert_eq!((state, reason), (ToolState::Complete, Rejection::Terminal));
}

#[test]
fn parts_keep_first_seen_order_and_removal_keeps_the_rest() {
    let Given(mut fold) = given([
        started("b"),
        started("a"),
        started("c"),
        completed("a", json!(1)),
    ]);
    let ids: Vec<String> = fold.parts().into_iter().map(|part| part.id).collect();
    assert_eq!(ids, ["b", "a", "c"]);
    assert!(fold.remove("a").is_some());
    let ids: Vec<String> = fold.parts().into_iter().map(|part| part.id).collect();
    assert_eq!(ids, ["b", "c"]);
    assert!(matches!(
        fold.apply(completed("a", json!(1))),
        Err(Error::UnknownCall { .. })
    ));
    // A call started again after its removal is new: it goes last.
    fold.apply(started("a")).unwrap();
    let ids: Vec<String> = fold.calls().map(|call| call.id().to_owned()).collect();
    assert_eq!(ids, ["b", "c", "a"]);
    assert_eq!(fold.len(), 3);
    assert!(fold.get("c").is_some() && fold.remove("c").is_some() && fold.get("c").is_none());
    assert_eq!(fold.len(), 2);
}

#[test]
fn an_evicting_fold_hands_over_the_finished_call_and_then_holds_only_open_ones() {
    let Given(mut fold) = given_evicting([started("a"), started("b"), running("a")]);
    let update = fold.apply(completed("a", json!("done"))).unwrap();
    assert_eq!(update.outcome, Outcome::Changed);
    let part = update.part();
    assert_eq!(
        (part.id.as_str(), part.state),
        ("a", ToolState::Complete),
        "the event that finishes a call still reports its part"
    );
    assert_eq!(part.output.as_deref(), Some(&json!("done")));
    let ids: Vec<String> = fold.parts().into_iter().map(|part| part.id).collect();
    assert_eq!(ids, ["b"], "only open calls are held");
    assert!(fold.get("a").is_none());
    assert_eq!(fold.finished("a"), Some(ToolState::Complete));
}

#[test]
fn a_late_event_for_an_evicted_call_is_already_finished() {
    let error = given_evicting([started("a"), failed("a", "boom")])
        .when(completed("a", json!(1)))
        .unwrap_err();
    assert_eq!(
        error.to_string(),
        "tool call `a` already finished (error): toolCallCompleted ignored"
    );
    let Error::AlreadyFinished { id, state, event } = error else {
        panic!("{error:?}")
    };
    assert_eq!((id.as_str(), state), ("a", ToolState::Error));
    assert_eq!(*event, completed("a", json!(1)), "the event is handed back");

    // Even an exact duplicate, or a new start: the call is not opened again.
    for late in [failed("a", "boom"), started("a")] {
        let error = given_evicting([started("a"), failed("a", "boom")])
            .when(late.clone())
            .unwrap_err();
        assert!(
            matches!(
                error,
                Error::AlreadyFinished {
                    state: ToolState::Error,
                    ..
                }
            ),
            "{late:?}: {error}"
        );
    }
}

#[test]
fn an_evicting_fold_forgets_the_oldest_finished_call_past_the_window() {
    let ids: Vec<String> = (0..=FINISHED_WINDOW).map(|n| format!("call_{n}")).collect();
    let lifecycles = ids
        .iter()
        .flat_map(|id| [started(id), completed(id, json!(1))]);
    let Given(mut fold) = given_evicting(lifecycles);
    assert!(fold.is_empty());
    assert_eq!(fold.finished("call_0"), None, "the oldest is forgotten");
    assert_eq!(fold.finished("call_1"), Some(ToolState::Complete));
    assert!(matches!(
        fold.apply(completed("call_0", json!(2))),
        Err(Error::UnknownCall { .. })
    ));
    assert!(matches!(
        fold.apply(completed("call_1", json!(2))),
        Err(Error::AlreadyFinished { .. })
    ));
    // A call forgotten can start again, as a new call.
    let (outcome, part) = Given(fold).when(started("call_0")).unwrap();
    assert_eq!(
        (outcome, part.state),
        (Outcome::Created, ToolState::Started)
    );
}
