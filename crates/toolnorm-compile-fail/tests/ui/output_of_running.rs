use toolnorm::{ToolCall, ToolKind};

fn main() {
    let running = ToolCall::start("call_1", "Bash", ToolKind::Bash).run(None);
    let _output = running.output();
}
