use serde_json::json;
use toolnorm::{Completion, ToolCall, ToolError, ToolKind};

fn main() {
    let failed = ToolCall::start("call_1", "Bash", ToolKind::Bash).fail(ToolError::new("boom").into());
    let _both = failed.complete(Completion::with_output(json!("ok")));
}
