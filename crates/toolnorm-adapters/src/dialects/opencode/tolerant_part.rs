//! A tool part that does not read as the pinned `ToolPart`: its `state` read as the type
//! its `status` names, then the part around it, each with what its schema requires and
//! the part lacks filled in ([`tolerant`]). An empty object written `[]` (as Lua and
//! PHP encoders write one: `state.input`, `state.metadata`, the part's `metadata`) reads
//! as `{}`. (`ToolState` is untagged: read whole, it says only that no state matched.)

use serde::Serialize;
use serde::de::DeserializeOwned;
use serde_json::Value;
use toolnorm_wire::opencode as wire;

use crate::read::tolerant::{self, Repair, Tolerated};

/// The part read with its gaps filled, or `None` when it does not read even so (or is
/// not an object with a known `state.status`).
pub(super) fn read(text: &str) -> Option<Tolerated<wire::ToolPart>> {
    let Ok(Value::Object(mut part)) = serde_json::from_str::<Value>(text) else {
        return None;
    };
    let mut repairs = Vec::new();
    if let Some(state) = part.get_mut("state") {
        let status = state.get("status").and_then(Value::as_str)?;
        let (read, state_repairs) = match status {
            "pending" => again::<wire::ToolStatePending>(state.take())?,
            "running" => again::<wire::ToolStateRunning>(state.take())?,
            "completed" => again::<wire::ToolStateCompleted>(state.take())?,
            "error" => again::<wire::ToolStateError>(state.take())?,
            _ => return None,
        };
        *state = read;
        repairs.extend(state_repairs.into_iter().map(|mut repair| {
            repair.path = format!("state.{}", repair.path);
            repair
        }));
    }
    let read = tolerant::from_value::<wire::ToolPart>(Value::Object(part)).ok()?;
    repairs.extend(read.repairs);
    Some(Tolerated {
        value: read.value,
        repairs,
    })
}

/// `value` read as `T` with its gaps filled, written back as JSON, and the gaps.
fn again<T: DeserializeOwned + Serialize>(value: Value) -> Option<(Value, Vec<Repair>)> {
    let read = tolerant::from_value::<T>(value).ok()?;
    Some((serde_json::to_value(&read.value).ok()?, read.repairs))
}
