use serde_json::json;
use toolnorm::{Completion, ToolCall, ToolKind};

fn main() {
    let mut done = ToolCall::start("call_1", "Bash", ToolKind::Bash).complete(Completion::default());
    done.set_input(json!({"command": "rm -rf /"}));
}
