//! The fold over arbitrary sequences of canonical events.
//!
//! Each 4 bytes make one event: its type, one of four call ids, and two bytes that pick
//! its data. The events that applied, folded a second time, must change nothing (events
//! are idempotent), and the parts must equal those of a replay.
#![no_main]

use serde_json::{Value, json};
use toolnorm::{Fold, ToolEvent, replay};

fn event(bytes: &[u8]) -> Option<ToolEvent> {
    let [kind, id, a, b] = *bytes else {
        return None;
    };
    let id = format!("call_{}", id % 4);
    let text = ["", "a", "bc", "héllo", "\u{1F600}"][usize::from(a % 5)];
    let at = match b % 3 {
        0 => Value::Null,
        1 => json!(format!("2026-03-01T10:00:0{}Z", b % 10)),
        _ => json!(u64::from(b) * 1000),
    };
    let value = match kind % 8 {
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
    let mut value = value;
    if let Some(object) = value.as_object_mut() {
        object.retain(|_, value| !value.is_null());
    }
    serde_json::from_value(value).ok()
}

libfuzzer_sys::fuzz_target!(|data: &[u8]| {
    let Some((&cap, data)) = data.split_first() else {
        return;
    };
    let events: Vec<ToolEvent> = data.chunks(4).filter_map(event).collect();
    let mut fold = Fold::with_output_cap(usize::from(cap % 16) + 1);
    let applied: Vec<ToolEvent> = events
        .iter()
        .filter(|event| fold.apply((*event).clone()).is_ok())
        .cloned()
        .collect();
    let once = fold.parts();
    for event in applied {
        let _ = fold.apply(event);
    }
    assert_eq!(once, fold.parts(), "folding twice changed the parts");
    let mut live = Fold::new();
    for event in events.iter().cloned() {
        let _ = live.apply(event);
    }
    assert_eq!(
        replay(events).parts,
        live.parts(),
        "replay differs from live folding"
    );
});
