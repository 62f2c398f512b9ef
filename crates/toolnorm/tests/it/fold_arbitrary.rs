//! The `fold` fuzz target's property (see `fuzz/`) as a property test on stable, for CI:
//! any sequence of events over a few call ids folds without panicking; the events that
//! applied, folded a second time, change nothing; a replay gives the parts of live folding.
#![allow(clippy::unwrap_used, clippy::expect_used)]

use proptest::prelude::*;
use serde_json::{Value, json};
use toolnorm::{Fold, ToolEvent, replay};

/// One event from four bytes, as the fuzz target reads them.
fn event([kind, id, a, b]: [u8; 4]) -> ToolEvent {
    let id = format!("call_{}", id % 4);
    let text = ["", "a", "bc", "héllo", "\u{1F600}"][usize::from(a % 5)];
    let at = match b % 3 {
        0 => Value::Null,
        1 => json!(format!("2026-03-01T10:00:0{}Z", b % 10)),
        _ => json!(u64::from(b) * 1000),
    };
    let mut value = match kind % 8 {
        0 => json!({"type": "toolCallStarted", "id": id, "name": text, "kind": "bash",
                    "title": text, "input": {"k": a % 3}, "at": at}),
        1 => json!({"type": "inputUpdated", "id": id, "input": {"k": b % 3}, "at": at}),
        2 => json!({"type": "titleUpdated", "id": id, "title": text}),
        3 => json!({"type": "metadataMerged", "id": id, "metadata": {text: b % 2}}),
        4 => json!({"type": "toolCallRunning", "id": id, "at": at}),
        5 => json!({"type": "outputAppended", "id": id, "offset": b % 8, "chunk": text}),
        6 => json!({"type": "toolCallCompleted", "id": id, "output": text, "at": at}),
        _ => json!({"type": "toolCallFailed", "id": id,
                    "error": {"message": text, "code": "x"}, "at": at}),
    };
    if let Some(object) = value.as_object_mut() {
        object.retain(|_, value| !value.is_null());
    }
    serde_json::from_value(value).unwrap()
}

proptest! {
    #[test]
    fn any_event_sequence(cap in 1..16usize, codes in proptest::collection::vec(any::<[u8; 4]>(), 0..40)) {
        let events: Vec<ToolEvent> = codes.into_iter().map(event).collect();
        let mut fold = Fold::with_output_cap(cap);
        let applied: Vec<ToolEvent> = events
            .iter()
            .filter(|event| fold.apply((*event).clone()).is_ok())
            .cloned()
            .collect();
        let once = fold.parts();
        for event in applied {
            let _ = fold.apply(event);
        }
        prop_assert_eq!(&once, &fold.parts());
        let mut live = Fold::new();
        for event in events.iter().cloned() {
            let _ = live.apply(event);
        }
        prop_assert_eq!(replay(events).parts, live.parts());
    }
}
