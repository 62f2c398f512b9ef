use toolnorm::{Completion, ToolCall, ToolError, ToolKind};

fn main() {
    let done = ToolCall::start("call_1", "Bash", ToolKind::Bash).complete(Completion::default());
    let _failed = done.fail(ToolError::new("too late").into());
}
