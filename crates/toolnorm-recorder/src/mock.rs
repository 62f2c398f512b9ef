//! The scripted mock model: Anthropic Messages, OpenAI Responses and OpenAI
//! Chat Completions over HTTP on loopback, streaming with SSE.
//!
//! The server is stateless: each request carries the scenario marker in a user
//! message and the number of assistant turns after it selects the step.

use std::collections::BTreeMap;
use std::io::Cursor;
use std::path::PathBuf;
use std::sync::atomic::{AtomicUsize, Ordering};
use std::sync::{Arc, Mutex};
use std::thread;
use std::time::Duration;

use regex::Regex;
use serde_json::{Value, json};

use crate::error::{Error, Result};
use crate::scenario::{Call, Dialect, Scenario, Turn, toml_to_json};

/// Text the model answers with when it has no script for a request.
pub const PLAIN_TEXT: &str = "Mock summary.";

/// A page served at `/page/…` for web-fetch tools.
const PAGE_HTML: &str = "<!doctype html><html><head><title>Toolnorm test page</title></head><body><h1>Toolnorm test page</h1><p>The answer is 42.</p><p>This page is served by the mock model on loopback.</p></body></html>";

/// Shared state of a running mock server.
pub struct MockServer {
    server: Arc<tiny_http::Server>,
    port: u16,
    handle: Option<thread::JoinHandle<()>>,
}

struct Ctx {
    scenarios: BTreeMap<String, Scenario>,
    log_dir: Option<PathBuf>,
    counter: AtomicUsize,
    log_lock: Mutex<()>,
    marker: Regex,
    base_url: String,
}

impl MockServer {
    /// Starts the server on `127.0.0.1:port` (0 picks a free port).
    pub fn start(
        scenarios: BTreeMap<String, Scenario>,
        port: u16,
        log_dir: Option<PathBuf>,
    ) -> Result<Self> {
        let server = tiny_http::Server::http(("127.0.0.1", port))
            .map_err(|e| Error::Server(e.to_string()))?;
        let port = server
            .server_addr()
            .to_ip()
            .map(|a| a.port())
            .ok_or_else(|| Error::Server("not an IP listener".into()))?;
        let server = Arc::new(server);
        let marker = Regex::new(r"\[\[scenario:([A-Za-z0-9_.-]+)(?:#([A-Za-z0-9_.-]+))?\]\]")
            .map_err(|e| Error::Server(e.to_string()))?;
        if let Some(dir) = &log_dir {
            std::fs::create_dir_all(dir)
                .map_err(|e| Error::io(format!("creating {}", dir.display()), e))?;
        }
        let ctx = Arc::new(Ctx {
            scenarios,
            log_dir,
            counter: AtomicUsize::new(0),
            log_lock: Mutex::new(()),
            marker,
            base_url: format!("http://127.0.0.1:{port}"),
        });
        let srv = Arc::clone(&server);
        let handle = thread::spawn(move || {
            for req in srv.incoming_requests() {
                let ctx = Arc::clone(&ctx);
                thread::spawn(move || handle(&ctx, req));
            }
        });
        Ok(MockServer {
            server,
            port,
            handle: Some(handle),
        })
    }

    /// The port the server listens on.
    pub fn port(&self) -> u16 {
        self.port
    }

    /// The base URL (`http://127.0.0.1:PORT`).
    pub fn base_url(&self) -> String {
        format!("http://127.0.0.1:{}", self.port)
    }

    /// Blocks until the server stops (never, unless unblocked).
    pub fn wait(mut self) {
        if let Some(h) = self.handle.take() {
            let _ = h.join();
        }
    }
}

impl Drop for MockServer {
    fn drop(&mut self) {
        self.server.unblock();
    }
}

struct Reply {
    status: u16,
    content_type: &'static str,
    body: String,
    delay: Option<Duration>,
}

impl Reply {
    fn json(v: Value) -> Self {
        Reply {
            status: 200,
            content_type: "application/json",
            body: v.to_string(),
            delay: None,
        }
    }
    fn sse(body: String) -> Self {
        Reply {
            status: 200,
            content_type: "text/event-stream",
            body,
            delay: None,
        }
    }
    fn status(status: u16, body: &str) -> Self {
        Reply {
            status,
            content_type: "application/json",
            body: json!({"error": {"type": "not_found", "message": body}}).to_string(),
            delay: None,
        }
    }
}

fn handle(ctx: &Ctx, mut req: tiny_http::Request) {
    let mut body = String::new();
    let _ = req.as_reader().read_to_string(&mut body);
    let method = req.method().as_str().to_owned();
    let url = req.url().to_owned();
    let path = url.split('?').next().unwrap_or("").to_owned();
    let parsed: Value = serde_json::from_str(&body).unwrap_or(Value::Null);
    let work = find_work_dir(&parsed);
    WORK_DIR.with(|w| *w.borrow_mut() = work);
    let reply = route(ctx, &method, &path, &parsed);
    if let Some(dir) = &ctx.log_dir {
        let n = ctx.counter.fetch_add(1, Ordering::SeqCst);
        let _g = ctx.log_lock.lock();
        let name = format!("{n:04}-{}.txt", path.replace('/', "_"));
        let _ = std::fs::write(
            dir.join(name),
            format!(
                "{method} {url}\n\n{}\n\n--- reply {} ---\n{}",
                serde_json::to_string_pretty(&parsed).unwrap_or(body),
                reply.status,
                reply.body
            ),
        );
    }
    if let Some(d) = reply.delay {
        thread::sleep(d);
    }
    let header = tiny_http::Header::from_bytes(&b"Content-Type"[..], reply.content_type.as_bytes());
    let mut resp = tiny_http::Response::new(
        tiny_http::StatusCode(reply.status),
        Vec::new(),
        Cursor::new(reply.body.clone().into_bytes()),
        Some(reply.body.len()),
        None,
    );
    if let Ok(h) = header {
        resp.add_header(h);
    }
    if let Ok(h) = tiny_http::Header::from_bytes(&b"request-id"[..], &b"req_mock"[..]) {
        resp.add_header(h);
    }
    let _ = req.respond(resp);
}

fn route(ctx: &Ctx, method: &str, path: &str, body: &Value) -> Reply {
    let p = path.trim_end_matches('/');
    match (method, p) {
        ("HEAD", _) | ("GET", "") => Reply::json(json!({})),
        ("GET", p) if p.starts_with("/page") => Reply {
            status: 200,
            content_type: "text/html",
            body: PAGE_HTML.to_owned(),
            delay: None,
        },
        ("GET", p) if p.ends_with("/models") => Reply::json(json!({
            "object": "list",
            "data": [
                {"id": "mock-model", "object": "model", "created": 1_700_000_000, "owned_by": "toolnorm", "type": "model", "display_name": "Mock model"},
                {"id": "gpt-5.5", "object": "model", "created": 1_700_000_000, "owned_by": "toolnorm"}
            ],
            "has_more": false
        })),
        ("POST", p) if p.ends_with("/messages/count_tokens") => {
            Reply::json(json!({"input_tokens": 100}))
        }
        ("POST", p) if p.ends_with("/messages") => anthropic(ctx, body),
        ("POST", p) if p.ends_with("/responses") => responses(ctx, body),
        ("POST", p) if p.ends_with("/chat/completions") => chat(ctx, body),
        _ => Reply::status(404, "not served by the mock model"),
    }
}

/// Which script and step a request selects.
struct Selection<'a> {
    scenario: &'a Scenario,
    part: Option<String>,
    step: usize,
}

impl Selection<'_> {
    fn turn(&self, dialect: Dialect) -> Option<&Turn> {
        self.scenario
            .turns(dialect, self.part.as_deref())
            .and_then(|t| t.get(self.step))
    }
    fn id_prefix(&self) -> String {
        match &self.part {
            Some(p) => format!("{p}_{}", self.step + 1),
            None => format!("{}", self.step + 1),
        }
    }
    fn delay(&self) -> Option<Duration> {
        self.scenario.options.delay_ms.map(Duration::from_millis)
    }
}

/// Collects the text of a message content (string or list of text blocks),
/// skipping tool results.
fn content_text(content: &Value) -> String {
    match content {
        Value::String(s) => s.clone(),
        Value::Array(items) => items
            .iter()
            .filter_map(|b| {
                let t = b.get("type").and_then(Value::as_str).unwrap_or("");
                if t == "tool_result" || t == "function_call_output" {
                    return None;
                }
                b.get("text")
                    .or_else(|| b.get("encrypted_content"))
                    .and_then(Value::as_str)
                    .map(str::to_owned)
            })
            .collect::<Vec<_>>()
            .join("\n"),
        _ => String::new(),
    }
}

/// Finds the last user message carrying a marker among `(is_user, is_assistant_start, text)`
/// entries, and counts assistant turns after it.
fn select<'a>(ctx: &'a Ctx, entries: &[(bool, bool, String)]) -> Option<Selection<'a>> {
    let mut found: Option<(usize, &'a Scenario, Option<String>)> = None;
    for (i, (is_user, _, text)) in entries.iter().enumerate() {
        if !is_user {
            continue;
        }
        if let Some(c) = ctx.marker.captures_iter(text).last() {
            let name = c.get(1).map(|m| m.as_str()).unwrap_or("");
            if let Some(s) = ctx.scenarios.get(name) {
                found = Some((i, s, c.get(2).map(|m| m.as_str().to_owned())));
            }
        }
    }
    let (idx, scenario, part) = found?;
    let step = entries[idx + 1..].iter().filter(|e| e.1).count();
    Some(Selection {
        scenario,
        part,
        step,
    })
}

fn has_tools(body: &Value) -> bool {
    body.get("tools")
        .and_then(Value::as_array)
        .is_some_and(|t| !t.is_empty())
}

fn chunks(s: &str, size: usize) -> Vec<String> {
    let size = size.max(1);
    let chars: Vec<char> = s.chars().collect();
    chars
        .chunks(size)
        .map(|c| c.iter().collect::<String>())
        .collect()
}

fn words(s: &str) -> Vec<String> {
    let mut out = Vec::new();
    let mut cur = String::new();
    for ch in s.chars() {
        cur.push(ch);
        if ch == ' ' {
            out.push(std::mem::take(&mut cur));
        }
    }
    if !cur.is_empty() {
        out.push(cur);
    }
    out
}

/// The placeholder in scenario inputs replaced by the mock model's base URL.
pub const BASE_URL_PLACEHOLDER: &str = "{{BASE_URL}}";

/// The placeholder in scenario inputs replaced by the CLI's working directory,
/// as the CLI states it in its request (`{{WORK}}/notes.txt`).
pub const WORK_PLACEHOLDER: &str = "{{WORK}}";

thread_local! {
    static WORK_DIR: std::cell::RefCell<String> = const { std::cell::RefCell::new(String::new()) };
}

/// Finds the working directory a CLI announces in its request.
fn find_work_dir(body: &Value) -> String {
    let text = body.to_string();
    for pat in [
        r"Primary working directory: ([^\\\s]+)",
        r"Working directory: ([^\\\s]+)",
        r"<cwd>([^<]+)</cwd>",
    ] {
        if let Ok(re) = Regex::new(pat)
            && let Some(c) = re.captures(&text)
            && let Some(m) = c.get(1)
        {
            return m.as_str().to_owned();
        }
    }
    ".".to_owned()
}

fn call_args(ctx: &Ctx, call: &Call) -> String {
    let s = match &call.input {
        toml::Value::String(s) if call.r#type == "custom" => s.clone(),
        v => toml_to_json(v).to_string(),
    };
    let work = WORK_DIR.with(|w| w.borrow().clone());
    s.replace(BASE_URL_PLACEHOLDER, &ctx.base_url)
        .replace(WORK_PLACEHOLDER, &work)
}

fn call_input(ctx: &Ctx, call: &Call) -> Value {
    let s = call_args(ctx, call);
    serde_json::from_str(&s).unwrap_or(Value::String(s))
}

// ---------------------------------------------------------------- Anthropic

fn sse_event(out: &mut String, event: &str, data: &Value) {
    out.push_str("event: ");
    out.push_str(event);
    out.push_str("\ndata: ");
    out.push_str(&data.to_string());
    out.push_str("\n\n");
}

fn anthropic(ctx: &Ctx, body: &Value) -> Reply {
    let model = body
        .get("model")
        .and_then(Value::as_str)
        .unwrap_or("claude-mock")
        .to_owned();
    let stream = body.get("stream").and_then(Value::as_bool).unwrap_or(false);
    let messages = body
        .get("messages")
        .and_then(Value::as_array)
        .cloned()
        .unwrap_or_default();
    let tools = body
        .get("tools")
        .and_then(Value::as_array)
        .cloned()
        .unwrap_or_default();
    let hosted_search = tools.iter().any(|t| {
        t.get("type")
            .and_then(Value::as_str)
            .is_some_and(|s| s.starts_with("web_search"))
    });
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
    let mut blocks: Vec<Value> = Vec::new();
    let mut chunk = 24;
    let mut delay = None;
    // Claude Code merges assistant messages that share an id, so every turn
    // needs its own.
    let mut msg_id = format!("msg_mock_u{}", messages.len());
    if hosted_search {
        let last = entries.last().map(|e| e.2.clone()).unwrap_or_default();
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
    } else {
        let sel = if has_tools(body) {
            select(ctx, &entries)
        } else {
            None
        };
        match sel
            .as_ref()
            .and_then(|s| s.turn(Dialect::Anthropic).map(|t| (s, t)))
        {
            Some((sel, turn)) => {
                delay = sel.delay();
                chunk = turn.chunk.unwrap_or(chunk);
                msg_id = format!("msg_mock_{}", sel.id_prefix());
                if let Some(t) = &turn.text {
                    blocks.push(json!({"type": "text", "text": t}));
                }
                for (i, call) in turn.calls.iter().enumerate() {
                    blocks.push(json!({
                        "type": "tool_use",
                        "id": format!("toolu_mock_{}_{}", sel.id_prefix(), i + 1),
                        "name": call.name,
                        "input": call_input(ctx, call),
                    }));
                }
            }
            None => {
                let text = if sel.is_some() { "Done." } else { PLAIN_TEXT };
                blocks.push(json!({"type": "text", "text": text}));
            }
        }
    }
    let stop_reason = if blocks.iter().any(|b| b["type"] == "tool_use") {
        "tool_use"
    } else {
        "end_turn"
    };
    let usage = json!({"input_tokens": 100, "output_tokens": 20, "cache_creation_input_tokens": 0, "cache_read_input_tokens": 0});
    if !stream {
        let mut r = Reply::json(json!({
            "id": msg_id, "type": "message", "role": "assistant", "model": model,
            "content": blocks, "stop_reason": stop_reason, "stop_sequence": null, "usage": usage
        }));
        r.delay = delay;
        return r;
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
                for c in chunks(&block["input"].to_string(), chunk) {
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
    let mut r = Reply::sse(out);
    r.delay = delay;
    r
}

// ---------------------------------------------------------------- Responses

fn responses(ctx: &Ctx, body: &Value) -> Reply {
    let model = body
        .get("model")
        .and_then(Value::as_str)
        .unwrap_or("gpt-5.5")
        .to_owned();
    let input = match body.get("input") {
        Some(Value::Array(a)) => a.clone(),
        Some(Value::String(s)) => vec![json!({"type": "message", "role": "user", "content": s})],
        _ => Vec::new(),
    };
    let mut entries: Vec<(bool, bool, String)> = Vec::new();
    let mut prev_assistant = false;
    for item in &input {
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
        entries.push((
            is_user,
            start,
            content_text(item.get("content").unwrap_or(&Value::Null)),
        ));
    }
    let sel = if has_tools(body) {
        select(ctx, &entries)
    } else {
        None
    };
    let mut items: Vec<Value> = Vec::new();
    let mut chunk = 24;
    let mut delay = None;
    match sel
        .as_ref()
        .and_then(|s| s.turn(Dialect::Responses).map(|t| (s, t)))
    {
        Some((sel, turn)) => {
            delay = sel.delay();
            chunk = turn.chunk.unwrap_or(chunk);
            let prefix = sel.id_prefix();
            for (i, call) in turn.calls.iter().enumerate() {
                let n = i + 1;
                let item = match call.r#type.as_str() {
                    "custom" => json!({
                        "type": "custom_tool_call", "id": format!("ctc_mock_{prefix}_{n}"),
                        "status": "completed", "call_id": format!("call_mock_{prefix}_{n}"),
                        "name": call.name, "input": call_args(ctx, call)
                    }),
                    "web_search" => json!({
                        "type": "web_search_call", "id": format!("ws_mock_{prefix}_{n}"),
                        "status": "completed", "action": call_input(ctx, call)
                    }),
                    _ => {
                        let mut v = json!({
                            "type": "function_call", "id": format!("fc_mock_{prefix}_{n}"),
                            "status": "completed", "call_id": format!("call_mock_{prefix}_{n}"),
                            "name": call.name, "arguments": call_args(ctx, call)
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
            let text = if sel.is_some() { "Done." } else { PLAIN_TEXT };
            items.push(json!({"type": "message", "id": "msg_mock_final", "role": "assistant", "status": "completed",
                "content": [{"type": "output_text", "text": text, "annotations": []}]}));
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
                for c in chunks(args, chunk) {
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
                for c in chunks(input, chunk * 4) {
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
    let mut r = Reply::sse(out);
    r.delay = delay;
    r
}

// ---------------------------------------------------------------- Chat

fn chat(ctx: &Ctx, body: &Value) -> Reply {
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
