use toolnorm::{Completion, ToolCall, ToolKind};

fn main() {
    let done = ToolCall::start("call_1", "Bash", ToolKind::Bash).complete(Completion::default());
    let _again = done.complete(Completion::default());
}
