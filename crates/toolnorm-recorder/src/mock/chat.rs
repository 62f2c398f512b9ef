//! OpenAI Chat Completions (`/v1/chat/completions`): streamed `tool_calls`.

use serde_json::{Value, json};

use super::PLAIN_TEXT;
use super::script::{call_args, content_text, has_tools, select};
use super::server::{Ctx, Reply};
use super::stream::{chunks, words};
use crate::scenario::Dialect;

pub(super) fn chat(ctx: &Ctx, body: &Value) -> Reply {
    let model = body
        .get("model")
        .and_then(Value::as_str)
        .unwrap_or("mock-model")
        .to_owned();
    let stream = body.get("stream").and_then(Value::as_bool).unwrap_or(false);
    let messages = body
        .get("messages")
        .and_then(Value::as_array)
        .cloned()
        .unwrap_or_default();
    let entries: Vec<(bool, bool, String)> = messages
        .iter()
        .map(|m| {
            let role = m.get("role").and_then(Value::as_str).unwrap_or("");
            (
                role == "user",
                role == "assistant",
                content_text(m.get("content").unwrap_or(&Value::Null)),
            )
        })
        .collect();
    let sel = if has_tools(body) {
        select(ctx, &entries)
    } else {
        None
    };
    let mut text: Option<String> = None;
    let mut calls: Vec<(String, String, String)> = Vec::new();
    let mut chunk = 24;
    let mut delay = None;
    match sel
        .as_ref()
        .and_then(|s| s.turn(Dialect::Chat).map(|t| (s, t)))
    {
        Some((sel, turn)) => {
            delay = sel.delay();
            chunk = turn.chunk.unwrap_or(chunk);
            text.clone_from(&turn.text);
            for (i, call) in turn.calls.iter().enumerate() {
                calls.push((
                    format!("call_mock_{}_{}", sel.id_prefix(), i + 1),
                    call.name.clone(),
                    call_args(ctx, call),
                ));
            }
        }
        None => {
            text = Some(if sel.is_some() { "Done." } else { PLAIN_TEXT }.to_owned());
        }
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
        let mut r = Reply::json(json!({
            "id": id, "object": "chat.completion", "created": created, "model": model,
            "choices": [{"index": 0, "message": message, "finish_reason": finish}], "usage": usage
        }));
        r.delay = delay;
        return r;
    }
    let mut out = String::new();
    let mut push = |delta: Value, finish: Option<&str>| {
        let v = json!({"id": id, "object": "chat.completion.chunk", "created": created, "model": model,
            "choices": [{"index": 0, "delta": delta, "finish_reason": finish}]});
        out.push_str("data: ");
        out.push_str(&v.to_string());
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
        for c in chunks(args, chunk) {
            push(
                json!({"tool_calls": [{"index": i, "function": {"arguments": c}}]}),
                None,
            );
        }
    }
    push(json!({}), Some(finish));
    let u = json!({"id": id, "object": "chat.completion.chunk", "created": created, "model": model, "choices": [], "usage": usage});
    out.push_str("data: ");
    out.push_str(&u.to_string());
    out.push_str("\n\ndata: [DONE]\n\n");
    let mut r = Reply::sse(out);
    r.delay = delay;
    r
}
