//! `toolnorm serve`: the JSON API over the index answers what `normalize` and `stats`
//! give over the same files, and the page is told when the watched files change.
#![allow(clippy::unwrap_used, clippy::expect_used)]

use std::io::{BufRead, BufReader, Read, Write};
use std::net::TcpStream;
use std::path::{Path, PathBuf};
use std::process::{Child, Command, Stdio};
use std::time::{Duration, Instant};

use serde_json::Value;

use crate::common::root;
use crate::databases;

/// A scratch folder of its own for each test.
fn scratch(name: &str) -> PathBuf {
    let dir = std::env::temp_dir().join(format!("toolnorm-serve-{name}-{}", std::process::id()));
    let _ = std::fs::remove_dir_all(&dir);
    std::fs::create_dir_all(dir.join("sessions")).unwrap();
    dir
}

/// The server, killed when dropped.
struct Server {
    child: Child,
    base: String,
}

impl Drop for Server {
    fn drop(&mut self) {
        let _ = self.child.kill();
        let _ = self.child.wait();
    }
}

/// `toolnorm serve` indexing `dir/sessions` into `db`.
fn serve(dir: &Path, db: &Path) -> Server {
    start(&[
        "--db".as_ref(),
        db.as_os_str(),
        dir.join("sessions").as_os_str(),
    ])
}

/// `toolnorm serve --port 0` with `args`, once it serves.
fn start(args: &[&std::ffi::OsStr]) -> Server {
    let mut child = Command::new(env!("CARGO_BIN_EXE_toolnorm"))
        .args(["serve", "--port", "0"])
        .args(args)
        .env_remove("CODEX_HOME")
        .env_remove("CLAUDE_CONFIG_DIR")
        .stdin(Stdio::null())
        .stdout(Stdio::null())
        .stderr(Stdio::piped())
        .spawn()
        .unwrap();
    let mut line = String::new();
    BufReader::new(child.stderr.take().unwrap())
        .read_line(&mut line)
        .unwrap();
    let base = line
        .trim()
        .strip_prefix("toolnorm: serving ")
        .unwrap_or_else(|| panic!("{line}"))
        .trim_end_matches('/')
        .to_owned();
    Server { child, base }
}

impl Server {
    fn get(&self, path: &str) -> (u16, Value) {
        let response = ureq::get(format!("{}{path}", self.base))
            .config()
            .http_status_as_error(false)
            .build()
            .call()
            .unwrap();
        let status = response.status().as_u16();
        let body = response.into_body().read_to_string().unwrap();
        (status, serde_json::from_str(&body).unwrap_or(Value::Null))
    }

    fn json(&self, path: &str) -> Value {
        let (status, body) = self.get(path);
        assert_eq!(status, 200, "{path}: {body}");
        body
    }

    /// The sessions, once the index holds `count` of them.
    fn sessions(&self, count: usize) -> Vec<Value> {
        let deadline = Instant::now() + Duration::from_secs(30);
        loop {
            let sessions = self.json("/api/sessions?order=oldest");
            let sessions = sessions.as_array().unwrap().clone();
            if sessions.len() == count {
                return sessions;
            }
            assert!(Instant::now() < deadline, "{} sessions", sessions.len());
            std::thread::sleep(Duration::from_millis(100));
        }
    }

    /// The event stream, its response head read.
    fn events(&self) -> BufReader<Box<dyn Read + Send + Sync>> {
        let response = ureq::get(format!("{}/api/events", self.base))
            .call()
            .unwrap();
        assert_eq!(
            response.headers()["content-type"].to_str().unwrap(),
            "text/event-stream"
        );
        BufReader::new(Box::new(response.into_body().into_reader()))
    }
}

/// The data of the next `indexed` event (20 s at most).
fn next_indexed(events: &mut BufReader<Box<dyn Read + Send + Sync>>) -> Value {
    let deadline = Instant::now() + Duration::from_secs(20);
    let mut name = String::new();
    loop {
        assert!(Instant::now() < deadline, "no indexed event in time");
        let mut line = String::new();
        assert!(events.read_line(&mut line).unwrap() > 0, "the stream ended");
        let line = line.trim_end();
        if let Some(event) = line.strip_prefix("event: ") {
            name = event.to_owned();
        } else if let Some(data) = line.strip_prefix("data: ")
            && name == "indexed"
        {
            return serde_json::from_str(data).unwrap();
        }
    }
}

/// What `toolnorm` prints for `args`, as JSON values (one per line, or one document).
fn toolnorm_json(args: &[&str], path: &Path) -> Vec<Value> {
    let output = Command::new(env!("CARGO_BIN_EXE_toolnorm"))
        .args(args)
        .arg(path)
        .output()
        .unwrap();
    let text = String::from_utf8(output.stdout).unwrap();
    match serde_json::from_str::<Value>(&text) {
        Ok(document) => vec![document],
        Err(_) => text
            .lines()
            .map(|line| serde_json::from_str(line).unwrap())
            .collect(),
    }
}

/// A part without `metadata.source` (where the file was read from differs).
fn comparable(mut part: Value) -> Value {
    if let Some(metadata) = part.get_mut("metadata").and_then(Value::as_object_mut) {
        metadata.remove("source");
    }
    part
}

fn copy(fixture: &str, to: &Path) {
    std::fs::create_dir_all(to.parent().unwrap()).unwrap();
    std::fs::copy(root().join("fixtures").join(fixture), to).unwrap();
}

#[test]
fn the_api_answers_what_normalize_and_stats_give_over_the_files() {
    let dir = scratch("api");
    let sessions_dir = dir.join("sessions");
    copy(
        "codex-rollout/subagent.jsonl",
        &sessions_dir.join("rollout.jsonl"),
    );
    copy(
        "pi-session/shell-exit-3.jsonl",
        &sessions_dir.join("pi.jsonl"),
    );
    copy(
        "claude-code-transcript/parallel.jsonl",
        &sessions_dir.join("claude.jsonl"),
    );
    for db in databases::each(&dir, "api") {
        api(&dir, &db);
    }
    let _ = std::fs::remove_dir_all(&dir);
}

/// The API of `serve` over the sessions of `dir/sessions`, indexed into `db`.
fn api(dir: &Path, db: &Path) {
    let sessions_dir = dir.join("sessions");
    let server = serve(dir, db);
    let sessions = server.sessions(3);
    for session in &sessions {
        let path = Path::new(session["path"].as_str().unwrap());
        let expected: Vec<Value> = toolnorm_json(&["normalize"], path)
            .into_iter()
            .map(comparable)
            .collect();
        let parts = server.json(&format!("/api/sessions/{}/parts", session["id"]));
        let parts: Vec<Value> = parts
            .as_array()
            .unwrap()
            .iter()
            .cloned()
            .map(comparable)
            .collect();
        assert_eq!(parts, expected, "{}", path.display());
        assert_eq!(session["calls"], expected.len());
        let failed = expected
            .iter()
            .filter(|part| part["state"] == "error")
            .count();
        assert_eq!(session["failed"], failed);
    }
    // The stats are those of `stats --json` over the same files.
    let stats = server.json("/api/stats");
    let expected = &toolnorm_json(&["stats", "--json"], &sessions_dir)[0];
    for key in [
        "sessions",
        "calls",
        "errors",
        "providers",
        "kinds",
        "errorCodes",
        "tools",
    ] {
        assert_eq!(stats[key], expected[key], "{key}");
    }
    // The filters.
    let codex = server.json("/api/sessions?agent=codex");
    assert_eq!(codex.as_array().unwrap().len(), 1);
    assert_eq!(codex[0]["dialect"], "codex-rollout");
    let dialect = server.json("/api/sessions?agent=pi-session");
    assert_eq!(dialect.as_array().unwrap().len(), 1);
    let failed = server.json("/api/sessions?state=failed");
    assert!(
        failed
            .as_array()
            .unwrap()
            .iter()
            .all(|session| session["failed"].as_u64() > Some(0))
    );
    assert!(
        failed
            .as_array()
            .unwrap()
            .iter()
            .any(|session| session["agent"] == "pi")
    );
    let title = toolnorm_json(&["normalize"], &sessions_dir.join("pi.jsonl"))[0]["title"]
        .as_str()
        .unwrap()
        .to_uppercase();
    let found = server.json(&format!("/api/sessions?q={}", urlencode(&title)));
    let found: Vec<&str> = found
        .as_array()
        .unwrap()
        .iter()
        .map(|s| s["agent"].as_str().unwrap())
        .collect();
    assert!(found.contains(&"pi"), "{found:?}");
    let none = server.json("/api/sessions?q=no%20such%20text%20anywhere");
    assert_eq!(none, serde_json::json!([]));
    let limited = server.json("/api/sessions?limit=2&offset=1&order=oldest");
    assert_eq!(limited.as_array().unwrap(), &sessions[1..3]);
    let facets = server.json("/api/facets");
    assert_eq!(facets["agents"].as_array().unwrap().len(), 3);
    // Errors are answered as such.
    let (status, body) = server.get("/api/sessions?since=yesterday");
    assert_eq!(status, 400);
    assert!(body["error"].as_str().unwrap().contains("since"), "{body}");
    let (status, _) = server.get("/api/sessions/987654/parts");
    assert_eq!(status, 404);
    let (status, _) = server.get("/sessions/987654");
    assert_eq!(status, 404);
    // A session's timeline is the view's page.
    let page = ureq::get(format!("{}/sessions/{}", server.base, sessions[0]["id"]))
        .call()
        .unwrap()
        .into_body()
        .read_to_string()
        .unwrap();
    assert!(page.contains("id=\"toolnorm-data\""));
    // Another host is refused (no DNS rebinding).
    let port = server.base.rsplit(':').next().unwrap();
    let mut stream = TcpStream::connect(format!("127.0.0.1:{port}")).unwrap();
    write!(
        stream,
        "GET /api/sessions HTTP/1.1\r\nHost: attacker.example\r\nConnection: close\r\n\r\n"
    )
    .unwrap();
    let mut answer = String::new();
    stream.read_to_string(&mut answer).unwrap();
    assert!(answer.starts_with("HTTP/1.1 421"), "{answer}");
}

fn urlencode(text: &str) -> String {
    text.bytes()
        .map(|byte| match byte {
            b'A'..=b'Z' | b'a'..=b'z' | b'0'..=b'9' | b'-' | b'.' | b'_' => {
                (byte as char).to_string()
            }
            _ => format!("%{byte:02X}"),
        })
        .collect()
}

#[test]
fn the_page_is_told_as_sessions_grow_appear_and_go() {
    let base = scratch("live");
    for (n, db) in databases::each(&base, "live").iter().enumerate() {
        let dir = base.join(format!("run-{n}"));
        std::fs::create_dir_all(dir.join("sessions")).unwrap();
        live(&dir, db);
    }
    let _ = std::fs::remove_dir_all(&base);
}

/// `serve` over `dir/sessions`, indexed into `db`, as its files change.
fn live(dir: &Path, db: &Path) {
    let sessions_dir = dir.join("sessions");
    let fixture =
        std::fs::read_to_string(root().join("fixtures/codex-rollout/subagent.jsonl")).unwrap();
    let lines: Vec<&str> = fixture.lines().collect();
    let half = lines.len() / 2;
    let file = sessions_dir.join("rollout.jsonl");
    std::fs::write(&file, lines[..half].join("\n") + "\n").unwrap();
    let server = serve(dir, db);
    let first = server.sessions(1);
    let id = first[0]["id"].clone();
    let mut events = server.events();
    // The rest of the session is appended: it grew.
    let mut append = std::fs::OpenOptions::new()
        .append(true)
        .open(&file)
        .unwrap();
    append
        .write_all((lines[half..].join("\n") + "\n").as_bytes())
        .unwrap();
    drop(append);
    let counts = next_indexed(&mut events);
    assert_eq!(counts["grown"], 1, "{counts}");
    let expected = toolnorm_json(
        &["normalize"],
        &root().join("fixtures/codex-rollout/subagent.jsonl"),
    );
    let sessions = server.sessions(1);
    assert_eq!(sessions[0]["id"], id, "a session read again keeps its id");
    assert_eq!(sessions[0]["calls"], expected.len());
    // A new session file appears.
    copy("pi-session/shell-ok.jsonl", &sessions_dir.join("pi.jsonl"));
    let counts = next_indexed(&mut events);
    assert_eq!(counts["new"], 1, "{counts}");
    server.sessions(2);
    // A session file goes.
    std::fs::remove_file(&file).unwrap();
    let counts = next_indexed(&mut events);
    assert_eq!(counts["removed"], 1, "{counts}");
    let left = server.sessions(1);
    assert_eq!(left[0]["agent"], "pi");
}

/// An agent used for the first time while `serve` runs: its store, not there when the
/// server started, is watched from the moment it appears.
#[test]
fn a_store_that_appears_while_serving_is_watched() {
    let dir = scratch("appears");
    let home = dir.join("home");
    std::fs::create_dir_all(&home).unwrap();
    let db = dir.join("index.sqlite");
    let server = start(&[
        "--db".as_ref(),
        db.as_os_str(),
        "--home".as_ref(),
        home.as_os_str(),
    ]);
    let mut events = server.events();
    // The agent is used a moment after the server started.
    std::thread::sleep(Duration::from_millis(500));
    // A file of no store in the home folder is not a session.
    std::fs::write(home.join(".bash_history"), "ls\n").unwrap();
    let sessions = home.join(".pi/agent/sessions/--work--");
    copy("pi-session/shell-ok.jsonl", &sessions.join("first.jsonl"));
    let counts = next_indexed(&mut events);
    assert_eq!(counts["new"], 1, "{counts}");
    assert_eq!(server.sessions(1)[0]["agent"], "pi");
    // The store is watched as the others now: a second session in it is seen.
    copy("pi-session/shell-ok.jsonl", &sessions.join("second.jsonl"));
    let counts = next_indexed(&mut events);
    assert_eq!(counts["new"], 1, "{counts}");
    server.sessions(2);
    drop(server);
    let _ = std::fs::remove_dir_all(&dir);
}
