//! The HTTP server on loopback: reads each request, routes it to a model API
//! or a fixed answer, logs the exchange when asked, and sends the reply.

use std::collections::BTreeMap;
use std::io::Cursor;
use std::path::PathBuf;
use std::sync::atomic::{AtomicUsize, Ordering};
use std::sync::{Arc, Mutex};
use std::thread;
use std::time::Duration;

use serde_json::{Value, json};

use super::script::{Request, Script};
use super::{anthropic, chat, gemini, responses};
use crate::error::{Error, Result};
use crate::scenario::Dialect;
use crate::scenario::Scenario;

/// A page served at `/page/…` for web-fetch tools.
const PAGE_HTML: &str = "<!doctype html><html><head><title>Toolnorm test page</title></head><body><h1>Toolnorm test page</h1><p>The answer is 42.</p><p>This page is served by the mock model on loopback.</p></body></html>";

/// Shared state of a running mock server.
pub struct MockServer {
    server: Arc<tiny_http::Server>,
    port: u16,
    handle: Option<thread::JoinHandle<()>>,
}

struct Ctx {
    script: Script,
    log_dir: Option<PathBuf>,
    counter: AtomicUsize,
    log_lock: Mutex<()>,
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
        let script = Script::new(scenarios, format!("http://127.0.0.1:{port}"))?;
        if let Some(dir) = &log_dir {
            std::fs::create_dir_all(dir)
                .map_err(|e| Error::io(format!("creating {}", dir.display()), e))?;
        }
        let ctx = Arc::new(Ctx {
            script,
            log_dir,
            counter: AtomicUsize::new(0),
            log_lock: Mutex::new(()),
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

/// A reply of the mock model.
pub(super) struct Reply {
    status: u16,
    content_type: &'static str,
    body: String,
    delay: Option<Duration>,
}

impl Reply {
    pub(super) fn json(v: Value) -> Self {
        Reply {
            status: 200,
            content_type: "application/json",
            body: super::stream::to_wire(&v),
            delay: None,
        }
    }
    pub(super) fn sse(body: String) -> Self {
        Reply {
            status: 200,
            content_type: "text/event-stream",
            body,
            delay: None,
        }
    }
    /// The same reply, sent after `delay`.
    pub(super) fn after(self, delay: Option<Duration>) -> Self {
        Reply { delay, ..self }
    }
    /// Anthropic's answer when the API is overloaded (HTTP 529), which clients retry.
    pub(super) fn overloaded() -> Self {
        Reply {
            status: 529,
            content_type: "application/json",
            body: json!({"type": "error", "error": {"type": "overloaded_error", "message": "Overloaded"}})
                .to_string(),
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
    let (agent, api_path) = match super::amp::provider_path(&path) {
        Some(api_path) => (Some(super::amp::AGENT), api_path),
        None => agent_path(&path),
    };
    let request = Request::new(&ctx.script, &parsed).for_agent(agent);
    let reply =
        super::amp::internal(&path, &url).unwrap_or_else(|| route(&request, &method, api_path));
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
    let len = reply.body.len();
    let mut resp = tiny_http::Response::new(
        tiny_http::StatusCode(reply.status),
        Vec::new(),
        Cursor::new(reply.body.into_bytes()),
        Some(len),
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

/// The model and method of a Gemini API path (`/v1beta/models/{model}:{method}`).
fn gemini_target(path: &str) -> (&str, &str) {
    let target = path.rsplit('/').next().unwrap_or("");
    target.split_once(':').unwrap_or((target, ""))
}

/// The agent a path names (`/agents/<agent>/v1/chat/completions`) and the API path
/// after it; a path without that prefix names none.
fn agent_path(path: &str) -> (Option<&str>, &str) {
    path.strip_prefix("/agents/")
        .and_then(|rest| rest.split_once('/'))
        .map_or((None, path), |(agent, rest)| {
            (Some(agent), &path[path.len() - rest.len() - 1..])
        })
}

fn route(req: &Request<'_>, method: &str, path: &str) -> Reply {
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
        ("POST", p) if p.ends_with("/messages") => anthropic::reply(req),
        ("POST", p) if p.ends_with("/responses") => responses::reply(req),
        ("POST", p) if p.starts_with("/qwen/") && p.ends_with("/chat/completions") => {
            chat::reply(req, Dialect::Qwen)
        }
        ("POST", p) if p.ends_with("/chat/completions") => chat::reply(req, Dialect::Chat),
        ("POST", p) if p.contains("/models/") && p.contains(':') => match gemini_target(p) {
            (_, "countTokens") => Reply::json(json!({"totalTokens": 100})),
            (model, "streamGenerateContent") => gemini::reply(req, model, true),
            (model, "generateContent") => gemini::reply(req, model, false),
            _ => Reply::status(404, "not served by the mock model"),
        },
        _ => Reply::status(404, "not served by the mock model"),
    }
}

#[cfg(test)]
mod tests {
    use super::agent_path;

    #[test]
    fn a_path_under_agents_names_the_agent_and_keeps_the_api_path() {
        assert_eq!(
            agent_path("/agents/pi/v1/chat/completions"),
            (Some("pi"), "/v1/chat/completions")
        );
        assert_eq!(agent_path("/v1/messages"), (None, "/v1/messages"));
        assert_eq!(agent_path("/agents/pi"), (None, "/agents/pi"));
    }
}
