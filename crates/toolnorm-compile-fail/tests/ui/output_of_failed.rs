use toolnorm::{ToolCall, ToolError, ToolKind};

fn main() {
    let failed = ToolCall::start("call_1", "Bash", ToolKind::Bash).fail(ToolError::new("boom").into());
    let _output = failed.output();
}
