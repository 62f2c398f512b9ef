//! OpenCode server driver: runs `opencode serve` on loopback, subscribes to
//! its event streams (`GET /event` and `GET /global/event`, SSE), creates a
//! session, sends the prompt with `POST /session/{id}/prompt_async`, and
//! records every event until the session is idle again. Then, the server stopped, the
//! sessions it stored are exported beside it (`export`, `opencode-export/`).

use std::io::{BufRead, BufReader};
use std::net::TcpListener;
use std::sync::mpsc;
use std::thread;
use std::time::{Duration, Instant};

use serde_json::{Value, json};

use super::{Raw, Recorder};
use crate::error::{Error, Result};
use crate::run::{self, RunDirs};
use crate::scenario::Scenario;

fn free_port() -> Result<u16> {
    let l = TcpListener::bind(("127.0.0.1", 0)).map_err(|e| Error::io("finding a free port", e))?;
    l.local_addr()
        .map(|a| a.port())
        .map_err(|e| Error::io("finding a free port", e))
}

fn agent() -> ureq::Agent {
    ureq::AgentBuilder::new()
        .timeout_connect(Duration::from_secs(2))
        .build()
}

fn post(url: &str, body: &Value) -> Result<Value> {
    let resp = agent()
        .post(url)
        .timeout(Duration::from_secs(30))
        .send_json(body.clone())
        .map_err(|e| Error::Http {
            url: url.to_owned(),
            message: e.to_string(),
        })?;
    let text = resp
        .into_string()
        .map_err(|e| Error::io(format!("reading {url}"), e))?;
    if text.trim().is_empty() {
        return Ok(Value::Null);
    }
    serde_json::from_str(&text).map_err(|e| Error::json(url.to_owned(), e))
}

/// Subscribes to an SSE endpoint; each `data:` payload goes to the channel.
fn subscribe(url: String, tx: mpsc::Sender<String>) -> Result<()> {
    let resp = agent().get(&url).call().map_err(|e| Error::Http {
        url: url.clone(),
        message: e.to_string(),
    })?;
    thread::spawn(move || {
        let reader = BufReader::new(resp.into_reader());
        for line in reader.lines().map_while(|l| l.ok()) {
            if let Some(data) = line.strip_prefix("data:")
                && tx.send(data.trim_start().to_owned()).is_err()
            {
                break;
            }
        }
    });
    Ok(())
}

/// The port the provenance shows for `opencode serve` (its default): the recorder picks
/// a free one per run, which would change the provenance at every re-record.
const SHOWN_SERVE_PORT: u16 = 4096;

/// Records one scenario through `opencode serve`.
pub(super) fn record(rec: &Recorder, sc: &Scenario, dirs: &RunDirs) -> Result<Raw> {
    let fail = |message: String| Error::Recording {
        provider: "opencode-serve".into(),
        scenario: sc.name.clone(),
        message,
    };
    let port = free_port()?;
    let base = format!("http://127.0.0.1:{port}");
    let mut cmd = rec.opencode_command(sc, dirs)?;
    cmd.args([
        "serve",
        "--hostname",
        "127.0.0.1",
        "--port",
        &port.to_string(),
    ]);
    let (mut child, orx, erx) = run::spawn_lines(&mut cmd, false)?;
    let result = drive(rec, sc, &base, &orx);
    let _ = child.kill();
    let _ = child.wait();
    let mut stderr: Vec<String> = orx.try_iter().collect();
    stderr.extend(erx.try_iter());
    run::write_lines(&dirs.root.join("stderr.log"), &stderr)?;
    let (events, global) = result.map_err(|e| fail(e.to_string()))?;
    let exports = rec.opencode_exports(sc, dirs, &super::export::sessions(&events))?;
    Ok(Raw {
        lines: events,
        command: format!(
            "opencode serve --hostname 127.0.0.1 --port {SHOWN_SERVE_PORT}  # GET /event and /global/event (SSE), POST /session, POST /session/{{id}}/prompt_async"
        ),
        extras: vec![
            ("opencode-serve-global".to_owned(), global),
            ("opencode-export".to_owned(), exports),
        ],
        session: Vec::new(),
    })
}

fn drive(
    rec: &Recorder,
    sc: &Scenario,
    base: &str,
    stdout: &mpsc::Receiver<String>,
) -> Result<(Vec<String>, Vec<String>)> {
    let start = Instant::now();
    // Wait for the listening line (or for the port to answer).
    loop {
        if start.elapsed() > Duration::from_secs(60) {
            return Err(Error::Server("opencode serve did not start".into()));
        }
        if let Ok(l) = stdout.recv_timeout(Duration::from_millis(100))
            && l.contains("listening")
        {
            break;
        }
        if agent()
            .get(&format!("{base}/session"))
            .timeout(Duration::from_secs(5))
            .call()
            .is_ok()
        {
            break;
        }
    }
    let (etx, erx) = mpsc::channel();
    let (gtx, grx) = mpsc::channel();
    subscribe(format!("{base}/event"), etx)?;
    subscribe(format!("{base}/global/event"), gtx)?;
    // Let the subscriptions attach before anything happens.
    thread::sleep(Duration::from_millis(300));
    let session = post(&format!("{base}/session"), &json!({}))?;
    let sid = session
        .get("id")
        .and_then(Value::as_str)
        .ok_or_else(|| Error::Server(format!("no session id in {session}")))?
        .to_owned();
    post(
        &format!("{base}/session/{sid}/prompt_async"),
        &json!({
            "parts": [{"type": "text", "text": sc.full_prompt()}],
            "model": {"providerID": "mock", "modelID": "mock-model"}
        }),
    )?;
    let mut events: Vec<String> = Vec::new();
    let mut busy_seen = false;
    let mut idle = false;
    let mut abort_at: Option<Instant> = None;
    let mut aborted = false;
    let deadline = Instant::now() + rec.timeout;
    while !idle && Instant::now() < deadline {
        if let Some(t) = abort_at
            && !aborted
            && Instant::now() >= t
        {
            post(&format!("{base}/session/{sid}/abort"), &json!({}))?;
            aborted = true;
        }
        let Ok(data) = erx.recv_timeout(Duration::from_millis(100)) else {
            continue;
        };
        let v: Value = serde_json::from_str(&data).unwrap_or(Value::Null);
        let ty = v.get("type").and_then(Value::as_str).unwrap_or("");
        let props = v.get("properties").cloned().unwrap_or(Value::Null);
        let is_main = props.get("sessionID").and_then(Value::as_str) == Some(sid.as_str());
        if ty == "session.status" && is_main {
            match props.pointer("/status/type").and_then(Value::as_str) {
                Some("busy") => busy_seen = true,
                Some("idle") if busy_seen => idle = true,
                _ => {}
            }
        }
        if ty == "session.idle" && is_main && busy_seen {
            idle = true;
        }
        if abort_at.is_none()
            && let Some(ms) = sc.options.interrupt_after_ms
            && ty == "message.part.updated"
            && props.pointer("/part/state/status").and_then(Value::as_str) == Some("running")
        {
            abort_at = Some(Instant::now() + Duration::from_millis(ms));
        }
        events.push(data);
    }
    // Trailing events (e.g. session.idle after session.status).
    let tail = Instant::now() + Duration::from_millis(500);
    while let Ok(d) = erx.recv_timeout(tail.saturating_duration_since(Instant::now())) {
        events.push(d);
    }
    if !idle {
        return Err(Error::Server(format!(
            "session did not become idle within {}s",
            rec.timeout.as_secs()
        )));
    }
    let global: Vec<String> = grx.try_iter().collect();
    Ok((events, global))
}
