//! `toolnorm view --serve`: the live page on 127.0.0.1, fed by server-sent events while a
//! file is appended to line by line.
#![allow(clippy::unwrap_used, clippy::expect_used)]

use crate::common::root;
use std::collections::HashMap;
use std::io::{BufRead, BufReader, Read, Write};
use std::net::TcpStream;
use std::process::{Child, Command, Stdio};
use std::time::{Duration, Instant};

/// The server, killed when dropped.
struct Server {
    child: Child,
    port: u16,
}

impl Drop for Server {
    fn drop(&mut self) {
        let _ = self.child.kill();
        let _ = self.child.wait();
    }
}

fn serve(input: &std::path::Path) -> Server {
    let mut child = Command::new(env!("CARGO_BIN_EXE_toolnorm"))
        .args(["view", "--serve"])
        .arg(input)
        .stdin(if input.as_os_str() == "-" {
            Stdio::piped()
        } else {
            Stdio::null()
        })
        .stdout(Stdio::null())
        .stderr(Stdio::piped())
        .spawn()
        .unwrap();
    let mut line = String::new();
    BufReader::new(child.stderr.take().unwrap())
        .read_line(&mut line)
        .unwrap();
    let port = line
        .trim()
        .strip_prefix("toolnorm: serving http://127.0.0.1:")
        .and_then(|rest| rest.strip_suffix('/'))
        .unwrap_or_else(|| panic!("{line}"))
        .parse()
        .unwrap();
    Server { child, port }
}

fn request(port: u16, path: &str, host: &str) -> TcpStream {
    let mut stream = TcpStream::connect(("127.0.0.1", port)).unwrap();
    write!(
        stream,
        "GET {path} HTTP/1.1\r\nHost: {host}\r\nConnection: close\r\n\r\n"
    )
    .unwrap();
    stream
}

/// Reads server-sent events until `done` says so (or 20 s pass).
fn read_events(
    reader: &mut BufReader<TcpStream>,
    mut done: impl FnMut(&str, &serde_json::Value) -> bool,
) {
    let deadline = Instant::now() + Duration::from_secs(20);
    let mut name = String::new();
    loop {
        assert!(Instant::now() < deadline, "no such event in time");
        let mut line = String::new();
        if reader.read_line(&mut line).unwrap() == 0 {
            panic!("the event stream ended");
        }
        let line = line.trim_end();
        if let Some(event) = line.strip_prefix("event: ") {
            name = event.to_owned();
        } else if let Some(data) = line.strip_prefix("data: ")
            && done(&name, &serde_json::from_str(data).unwrap())
        {
            return;
        }
    }
}

#[test]
fn the_live_page_follows_a_file_written_line_by_line() {
    let source =
        std::fs::read_to_string(root().join("fixtures/claude-code/subagent.jsonl")).unwrap();
    let expected: Vec<serde_json::Value> = {
        let output = Command::new(env!("CARGO_BIN_EXE_toolnorm"))
            .arg("normalize")
            .arg(root().join("fixtures/claude-code/subagent.jsonl"))
            .output()
            .unwrap();
        String::from_utf8(output.stdout)
            .unwrap()
            .lines()
            .map(|line| serde_json::from_str(line).unwrap())
            .collect()
    };
    let file = std::env::temp_dir().join(format!("toolnorm-serve-{}.jsonl", std::process::id()));
    std::fs::write(&file, "").unwrap();
    let server = serve(&file);

    // The page: live, allowed to reach its own origin only.
    let mut page = String::new();
    request(server.port, "/", &format!("127.0.0.1:{}", server.port))
        .read_to_string(&mut page)
        .unwrap();
    assert!(page.starts_with("HTTP/1.1 200 OK\r\n"), "{page:.200}");
    assert!(page.contains("connect-src 'self'"));
    assert!(page.contains(r#"{"sessions":[],"live":true}"#));
    // Another host (DNS rebinding) is refused.
    let mut refused = String::new();
    request(server.port, "/", "evil.example:80")
        .read_to_string(&mut refused)
        .unwrap();
    assert!(refused.starts_with("HTTP/1.1 421"), "{refused}");

    let events = request(
        server.port,
        "/events",
        &format!("localhost:{}", server.port),
    );
    events
        .set_read_timeout(Some(Duration::from_secs(20)))
        .unwrap();
    let mut events = BufReader::new(events);
    read_events(&mut events, |name, _| name == "session");

    // Line by line: each call's parts arrive as the line that changes it is written.
    let mut latest: HashMap<String, serde_json::Value> = HashMap::new();
    let mut appended = std::fs::OpenOptions::new()
        .append(true)
        .open(&file)
        .unwrap();
    let lines: Vec<&str> = source.lines().collect();
    let mut seen_open = false;
    for (at, line) in lines.iter().enumerate() {
        writeln!(appended, "{line}").unwrap();
        appended.flush().unwrap();
        // After each chunk the server sends the line counts: this line's, once read.
        read_events(&mut events, |name, data| {
            if name == "part" {
                latest.insert(data["id"].as_str().unwrap().to_owned(), data.clone());
            }
            name == "session" && data["lines"]["lines"] == at as u64 + 1
        });
        seen_open |= latest
            .values()
            .any(|part| part["state"] == "started" || part["state"] == "running");
        // A call is shown as soon as the line that ends it is in.
        for part in &expected {
            let id = part["id"].as_str().unwrap();
            if let Some(shown) = latest.get(id)
                && shown["state"] == part["state"]
            {
                assert_eq!(shown["title"], part["title"]);
            }
        }
    }
    drop(server);
    std::fs::remove_file(&file).unwrap();
    assert!(seen_open, "calls were shown while they ran");
    assert_eq!(latest.len(), expected.len());
    for part in &expected {
        let shown = &latest[part["id"].as_str().unwrap()];
        let mut shown = shown.clone();
        shown["metadata"].as_object_mut().unwrap().remove("source");
        assert_eq!(&shown, part);
    }
}

#[test]
fn stdin_is_read_to_its_end_and_the_session_served_after() {
    let source = std::fs::read(root().join("fixtures/claude-code/interrupted.jsonl")).unwrap();
    let mut server = serve(std::path::Path::new("-"));
    let events = request(
        server.port,
        "/events",
        &format!("127.0.0.1:{}", server.port),
    );
    events
        .set_read_timeout(Some(Duration::from_secs(20)))
        .unwrap();
    let mut events = BufReader::new(events);
    read_events(&mut events, |name, _| name == "session");
    let mut stdin = server.child.stdin.take().unwrap();
    stdin.write_all(&source).unwrap();
    drop(stdin);
    let lines = source.iter().filter(|&&byte| byte == b'\n').count() as u64;
    let mut parts = HashMap::new();
    read_events(&mut events, |name, data| {
        if name == "part" {
            parts.insert(
                data["id"].as_str().unwrap().to_owned(),
                data["state"].clone(),
            );
        }
        name == "session" && data["lines"]["lines"] == lines
    });
    assert_eq!(parts.len(), 1, "{parts:?}");
    assert_eq!(parts.values().next().unwrap(), "error");
    // Still served after the input ended: a new client gets the whole session.
    let late = request(
        server.port,
        "/events",
        &format!("127.0.0.1:{}", server.port),
    );
    late.set_read_timeout(Some(Duration::from_secs(20)))
        .unwrap();
    let mut late = BufReader::new(late);
    let mut replayed = 0;
    read_events(&mut late, |name, _| {
        replayed += usize::from(name == "part");
        name == "session"
    });
    assert_eq!(replayed, 1);
}
