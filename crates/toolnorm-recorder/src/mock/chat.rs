//! OpenAI Chat Completions (`/v1/chat/completions`): streamed `tool_calls`.

use serde_json::{Value, json};

use super::script::{Request, role_entries};
use super::server::Reply;
use super::stream::{chunks, to_wire, words};
use crate::scenario::Dialect;

/// Answers a Chat Completions request streamed or not, with the turns of `dialect` (`Chat`, or `Qwen`
/// for Qwen Code's tool names).
pub(super) fn reply(req: &Request<'_>, dialect: Dialect) -> Reply {
    let model = req.field("model", "mock-model");
    let stream = req.stream();
    let step = req.step(dialect, &role_entries(req.list("messages")));
    let chunk = step.chunk;
    let mut text: Option<String> = None;
    let mut calls: Vec<(String, String, String)> = Vec::new();
    match step.turn {
        Some(turn) => {
            text.clone_from(&turn.text);
            for (i, call) in turn.calls.iter().enumerate() {
                calls.push((
                    format!("call_mock_{}_{}", step.prefix, i + 1),
                    call.name.clone(),
                    req.call_args(call),
                ));
            }
        }
        None => text = Some(step.text.to_owned()),
    }
    let finish = if calls.is_empty() {
        "stop"
    } else {
        "tool_calls"
    };
    let usage = json!({"prompt_tokens": 100, "completion_tokens": 20, "total_tokens": 120});
    let id = "chatcmpl-mock";
    let created = 1_700_000_000;
    if !stream {
        let mut message = json!({"role": "assistant", "content": text});
        if !calls.is_empty() {
            message["tool_calls"] = json!(calls.iter().map(|(id, name, args)| json!({"id": id, "type": "function", "function": {"name": name, "arguments": args}})).collect::<Vec<_>>());
        }
        return Reply::json(json!({
            "id": id, "object": "chat.completion", "created": created, "model": model,
            "choices": [{"index": 0, "message": message, "finish_reason": finish}], "usage": usage
        }))
        .after(step.delay);
    }
    let mut out = String::new();
    let mut push = |delta: Value, finish: Option<&str>| {
        let v = json!({"id": id, "object": "chat.completion.chunk", "created": created, "model": model,
            "choices": [{"index": 0, "delta": delta, "finish_reason": finish}]});
        out.push_str("data: ");
        out.push_str(&to_wire(&v));
        out.push_str("\n\n");
    };
    push(json!({"role": "assistant", "content": ""}), None);
    if let Some(t) = &text {
        for w in words(t) {
            push(json!({"content": w}), None);
        }
    }
    for (i, (cid, name, args)) in calls.iter().enumerate() {
        push(
            json!({"tool_calls": [{"index": i, "id": cid, "type": "function", "function": {"name": name, "arguments": ""}}]}),
            None,
        );
        for c in chunks(args, chunk, req.named_work_dir()) {
            push(
                json!({"tool_calls": [{"index": i, "function": {"arguments": c}}]}),
                None,
            );
        }
    }
    push(json!({}), Some(finish));
    let u = json!({"id": id, "object": "chat.completion.chunk", "created": created, "model": model, "choices": [], "usage": usage});
    out.push_str("data: ");
    out.push_str(&to_wire(&u));
    out.push_str("\n\ndata: [DONE]\n\n");
    Reply::sse(out).after(step.delay)
}
