//! OpenAI Responses (`/v1/responses`): `function_call` with `namespace`,
//! `custom_tool_call` and `web_search_call`, always streamed.

use serde_json::{Value, json};

use super::script::{Entry, Request, content_text};
use super::server::Reply;
use super::stream::{chunks, sse_event, words};
use crate::scenario::Dialect;

/// The entries of a Responses `input` list: user messages (and a subagent's
/// task), and where each run of assistant-side items starts.
fn entries(input: &[Value]) -> Vec<Entry> {
    let mut entries = Vec::new();
    let mut prev_assistant = false;
    for item in input {
        let ty = item
            .get("type")
            .and_then(Value::as_str)
            .unwrap_or("message");
        let role = item.get("role").and_then(Value::as_str).unwrap_or("");
        // Codex delivers a subagent's task as an `agent_message` item.
        let is_user = (ty == "message" && role == "user") || ty == "agent_message";
        let is_assistant_side = matches!(
            ty,
            "function_call" | "custom_tool_call" | "web_search_call" | "local_shell_call"
        ) || (ty == "message" && role == "assistant");
        let start = is_assistant_side && !prev_assistant;
        prev_assistant = is_assistant_side || (ty == "reasoning" && prev_assistant);
        entries.push(Entry {
            user: is_user,
            turn_start: start,
            text: content_text(item.get("content").unwrap_or(&Value::Null)),
        });
    }
    entries
}

/// Answers a Responses request (always streamed).
pub(super) fn reply(req: &Request<'_>) -> Reply {
    let model = req.field("model", "gpt-5.5");
    let wrapped: [Value; 1];
    let input: &[Value] = match req.body().get("input") {
        Some(Value::Array(a)) => a,
        Some(Value::String(s)) => {
            wrapped = [json!({"type": "message", "role": "user", "content": s})];
            &wrapped
        }
        _ => &[],
    };
    let step = req.step(Dialect::Responses, &entries(input));
    let chunk = step.chunk;
    let mut items: Vec<Value> = Vec::new();
    match step.turn {
        Some(turn) => {
            let prefix = &step.prefix;
            for (i, call) in turn.calls.iter().enumerate() {
                let n = i + 1;
                let item = match call.r#type.as_str() {
                    "custom" => json!({
                        "type": "custom_tool_call", "id": format!("ctc_mock_{prefix}_{n}"),
                        "status": "completed", "call_id": format!("call_mock_{prefix}_{n}"),
                        "name": call.name, "input": req.call_args(call)
                    }),
                    "web_search" => json!({
                        "type": "web_search_call", "id": format!("ws_mock_{prefix}_{n}"),
                        "status": "completed", "action": req.call_input(call)
                    }),
                    _ => {
                        let mut v = json!({
                            "type": "function_call", "id": format!("fc_mock_{prefix}_{n}"),
                            "status": "completed", "call_id": format!("call_mock_{prefix}_{n}"),
                            "name": call.name, "arguments": req.call_args(call)
                        });
                        if let Some(ns) = &call.namespace {
                            v["namespace"] = json!(ns);
                        }
                        v
                    }
                };
                items.push(item);
            }
            if let Some(t) = &turn.text {
                let msg = json!({"type": "message", "id": format!("msg_mock_{prefix}"), "role": "assistant", "status": "completed",
                    "content": [{"type": "output_text", "text": t, "annotations": []}]});
                // Text before calls when calls follow; after hosted searches.
                if turn.calls.iter().all(|c| c.r#type == "web_search") {
                    items.push(msg);
                } else {
                    items.insert(0, msg);
                }
            }
        }
        None => {
            items.push(json!({"type": "message", "id": "msg_mock_final", "role": "assistant", "status": "completed",
                "content": [{"type": "output_text", "text": step.text, "annotations": []}]}));
        }
    }
    let resp_id = "resp_mock";
    let mut seq = 0usize;
    let mut out = String::new();
    let mut ev = |out: &mut String, mut data: Value| {
        data["sequence_number"] = json!(seq);
        seq += 1;
        let name = data["type"].as_str().unwrap_or("").to_owned();
        sse_event(out, &name, &data);
    };
    let base = json!({"id": resp_id, "object": "response", "created_at": 1_700_000_000, "status": "in_progress", "model": model, "output": []});
    ev(
        &mut out,
        json!({"type": "response.created", "response": base}),
    );
    ev(
        &mut out,
        json!({"type": "response.in_progress", "response": base}),
    );
    for (idx, item) in items.iter().enumerate() {
        let mut added = item.clone();
        added["status"] = json!("in_progress");
        match item["type"].as_str().unwrap_or("") {
            "message" => {
                added["content"] = json!([]);
                ev(
                    &mut out,
                    json!({"type": "response.output_item.added", "output_index": idx, "item": added}),
                );
                let text = item["content"][0]["text"].as_str().unwrap_or("");
                let item_id = item["id"].clone();
                ev(
                    &mut out,
                    json!({"type": "response.content_part.added", "item_id": item_id, "output_index": idx, "content_index": 0, "part": {"type": "output_text", "text": "", "annotations": []}}),
                );
                for w in words(text) {
                    ev(
                        &mut out,
                        json!({"type": "response.output_text.delta", "item_id": item_id, "output_index": idx, "content_index": 0, "delta": w}),
                    );
                }
                ev(
                    &mut out,
                    json!({"type": "response.output_text.done", "item_id": item_id, "output_index": idx, "content_index": 0, "text": text}),
                );
                ev(
                    &mut out,
                    json!({"type": "response.content_part.done", "item_id": item_id, "output_index": idx, "content_index": 0, "part": item["content"][0]}),
                );
            }
            "function_call" => {
                added["arguments"] = json!("");
                ev(
                    &mut out,
                    json!({"type": "response.output_item.added", "output_index": idx, "item": added}),
                );
                let args = item["arguments"].as_str().unwrap_or("");
                for c in chunks(args, chunk, req.named_work_dir()) {
                    ev(
                        &mut out,
                        json!({"type": "response.function_call_arguments.delta", "item_id": item["id"], "output_index": idx, "delta": c}),
                    );
                }
                ev(
                    &mut out,
                    json!({"type": "response.function_call_arguments.done", "item_id": item["id"], "output_index": idx, "arguments": args}),
                );
            }
            "custom_tool_call" => {
                added["input"] = json!("");
                ev(
                    &mut out,
                    json!({"type": "response.output_item.added", "output_index": idx, "item": added}),
                );
                let input = item["input"].as_str().unwrap_or("");
                for c in chunks(input, chunk * 4, req.named_work_dir()) {
                    ev(
                        &mut out,
                        json!({"type": "response.custom_tool_call_input.delta", "item_id": item["id"], "output_index": idx, "delta": c}),
                    );
                }
                ev(
                    &mut out,
                    json!({"type": "response.custom_tool_call_input.done", "item_id": item["id"], "output_index": idx, "input": input}),
                );
            }
            _ => {
                ev(
                    &mut out,
                    json!({"type": "response.output_item.added", "output_index": idx, "item": added}),
                );
            }
        }
        ev(
            &mut out,
            json!({"type": "response.output_item.done", "output_index": idx, "item": item}),
        );
    }
    let mut done = base.clone();
    done["status"] = json!("completed");
    done["output"] = json!(items);
    done["usage"] = json!({"input_tokens": 100, "input_tokens_details": {"cached_tokens": 0}, "output_tokens": 20, "output_tokens_details": {"reasoning_tokens": 0}, "total_tokens": 120});
    ev(
        &mut out,
        json!({"type": "response.completed", "response": done}),
    );
    Reply::sse(out).after(step.delay)
}
