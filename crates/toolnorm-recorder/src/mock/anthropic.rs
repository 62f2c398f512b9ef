//! Anthropic Messages (`/v1/messages`): SSE with `input_json_delta`, and the
//! hosted `web_search` answer.

use serde_json::{Value, json};

use super::script::{Request, Step, role_entries};
use super::server::Reply;
use super::stream::{chunks, sse_event, to_wire, words};
use crate::scenario::Dialect;

/// Answers a Messages request, streamed or not.
pub(super) fn reply(req: &Request<'_>) -> Reply {
    let model = req.field("model", "claude-mock");
    let stream = req.stream();
    let messages = req.list("messages");
    let hosted_search = req.list("tools").iter().any(|t| {
        t.get("type")
            .and_then(Value::as_str)
            .is_some_and(|s| s.starts_with("web_search"))
    });
    let entries = role_entries(messages);
    let mut blocks: Vec<Value> = Vec::new();
    // Claude Code merges assistant messages that share an id, so every turn
    // needs its own.
    let mut msg_id = format!("msg_mock_u{}", messages.len());
    let step = if hosted_search {
        let last = entries.last().map(|e| e.text.clone()).unwrap_or_default();
        let query = last
            .rsplit_once(": ")
            .map(|(_, q)| q.trim().to_owned())
            .unwrap_or(last);
        blocks.push(json!({"type": "server_tool_use", "id": "srvtoolu_mock_1", "name": "web_search", "input": {"query": query}}));
        blocks.push(json!({"type": "web_search_tool_result", "tool_use_id": "srvtoolu_mock_1", "content": [
            {"type": "web_search_result", "title": "Toolnorm test page", "url": "https://example.com/toolnorm", "encrypted_content": "bW9jaw==", "page_age": "1 day ago"},
            {"type": "web_search_result", "title": "Another result", "url": "https://example.org/result", "encrypted_content": "bW9jaw==", "page_age": null}
        ]}));
        blocks.push(json!({"type": "text", "text": "The search found the toolnorm test page, which says the answer is 42."}));
        Step::plain()
    } else {
        let step = req.step(Dialect::Anthropic, &entries);
        if step
            .overload
            .as_deref()
            .is_some_and(|key| req.overload_now(key))
        {
            return Reply::overloaded();
        }
        match step.turn {
            Some(turn) => {
                msg_id = format!("msg_mock_{}", step.prefix);
                if let Some(t) = &turn.text {
                    blocks.push(json!({"type": "text", "text": t}));
                }
                for (i, call) in turn.calls.iter().enumerate() {
                    blocks.push(json!({
                        "type": "tool_use",
                        "id": format!("toolu_mock_{}_{}", step.prefix, i + 1),
                        "name": call.name,
                        "input": req.call_input(call),
                    }));
                }
            }
            None => blocks.push(json!({"type": "text", "text": step.text})),
        }
        step
    };
    let stop_reason = if blocks.iter().any(|b| b["type"] == "tool_use") {
        "tool_use"
    } else {
        "end_turn"
    };
    let usage = json!({"input_tokens": 100, "output_tokens": 20, "cache_creation_input_tokens": 0, "cache_read_input_tokens": 0});
    if !stream {
        return Reply::json(json!({
            "id": msg_id, "type": "message", "role": "assistant", "model": model,
            "content": blocks, "stop_reason": stop_reason, "stop_sequence": null, "usage": usage
        }))
        .after(step.delay);
    }
    let mut out = String::new();
    sse_event(
        &mut out,
        "message_start",
        &json!({"type": "message_start", "message": {
            "id": msg_id, "type": "message", "role": "assistant", "model": model, "content": [],
            "stop_reason": null, "stop_sequence": null,
            "usage": {"input_tokens": 100, "output_tokens": 1, "cache_creation_input_tokens": 0, "cache_read_input_tokens": 0}
        }}),
    );
    for (index, block) in blocks.iter().enumerate() {
        let ty = block["type"].as_str().unwrap_or("");
        match ty {
            "text" => {
                sse_event(
                    &mut out,
                    "content_block_start",
                    &json!({"type": "content_block_start", "index": index, "content_block": {"type": "text", "text": ""}}),
                );
                for w in words(block["text"].as_str().unwrap_or("")) {
                    sse_event(
                        &mut out,
                        "content_block_delta",
                        &json!({"type": "content_block_delta", "index": index, "delta": {"type": "text_delta", "text": w}}),
                    );
                }
            }
            "tool_use" | "server_tool_use" => {
                let mut start = block.clone();
                start["input"] = json!({});
                sse_event(
                    &mut out,
                    "content_block_start",
                    &json!({"type": "content_block_start", "index": index, "content_block": start}),
                );
                for c in chunks(&to_wire(&block["input"]), step.chunk, req.named_work_dir()) {
                    sse_event(
                        &mut out,
                        "content_block_delta",
                        &json!({"type": "content_block_delta", "index": index, "delta": {"type": "input_json_delta", "partial_json": c}}),
                    );
                }
            }
            _ => {
                sse_event(
                    &mut out,
                    "content_block_start",
                    &json!({"type": "content_block_start", "index": index, "content_block": block}),
                );
            }
        }
        sse_event(
            &mut out,
            "content_block_stop",
            &json!({"type": "content_block_stop", "index": index}),
        );
    }
    sse_event(
        &mut out,
        "message_delta",
        &json!({"type": "message_delta", "delta": {"stop_reason": stop_reason, "stop_sequence": null}, "usage": {"output_tokens": 20}}),
    );
    sse_event(&mut out, "message_stop", &json!({"type": "message_stop"}));
    Reply::sse(out).after(step.delay)
}
