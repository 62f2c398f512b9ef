use serde_json::json;
use toolnorm::{Complete, ToolCall};

fn main() {
    let _forged: ToolCall<Complete> = ToolCall { data: Some(json!("forged").into()) };
}
