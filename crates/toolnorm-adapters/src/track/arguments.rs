//! A call's arguments as the model sent them: JSON text (OpenAI's `function.arguments`,
//! and the agents that keep it as it came).

use serde_json::Value;
use toolnorm::JsonObject;

use super::Facts;
use crate::diagnostic::{Diagnostic, DiagnosticKind};

/// The input of `agent`'s call `id` from its arguments' JSON `text`: the object it holds,
/// `{}` for no text; a text that is not a JSON object is kept as it is (the agent then
/// fails the call), with a notice on `line`.
pub fn arguments_from_text(
    line: u64,
    agent: &str,
    id: &str,
    text: String,
    facts: &mut Facts<'_>,
) -> Value {
    if text.trim().is_empty() {
        return Value::Object(JsonObject::new());
    }
    match serde_json::from_str::<Value>(&text) {
        Ok(object @ Value::Object(_)) => object,
        _ => {
            facts.diagnostic(Diagnostic::notice(
                line,
                DiagnosticKind::MalformedEvent,
                format!("the arguments of {agent} tool call `{id}` are not a JSON object"),
            ));
            Value::String(text)
        }
    }
}
