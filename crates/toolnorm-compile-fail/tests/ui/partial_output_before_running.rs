use toolnorm::{ToolCall, ToolKind};

fn main() {
    let mut started = ToolCall::start("call_1", "Bash", ToolKind::Bash);
    started.append_output("too early");
}
