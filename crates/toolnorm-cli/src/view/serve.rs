//! `toolnorm view --serve`: the page on 127.0.0.1, fed by server-sent events while the
//! stream grows (stdin from a running agent, or a file being appended to, followed like
//! `tail -f`).
//!
//! `GET /` is the page with no call in it; `GET /events` is an event stream that first
//! replays the session so far (`reset`, then a `part` per call, `session` with the line
//! counts), then, after each chunk read, a `part` for every call the chunk changed (at its
//! latest) and `session`; and a `diagnostic` per diagnostic. A request naming another
//! host than 127.0.0.1 or localhost is refused (no DNS rebinding).

use std::collections::HashMap;
use std::io::{self, BufRead, BufReader, Read, Write};
use std::net::{Ipv4Addr, TcpListener, TcpStream};
use std::process::ExitCode;
use std::sync::mpsc::{self, Receiver, Sender};
use std::sync::{Arc, Mutex, PoisonError};
use std::thread;
use std::time::Duration;

use serde_json::json;
use toolnorm::NormalizedToolPart;
use toolnorm_adapters::{Diagnostic, Driver, Normalizer, Sink, Step};

use crate::normalize::{builder, input_name};
use crate::sessions::Lines;
use crate::{EXIT_USAGE, ViewArgs, io_message};

/// How long a followed file is left before it is read again, once at its end.
const POLL: Duration = Duration::from_millis(200);

/// The session so far, and the clients listening.
#[derive(Default)]
struct Live {
    source: String,
    dialect: Option<String>,
    parts: Vec<NormalizedToolPart>,
    index: HashMap<String, usize>,
    lines: Lines,
    diagnostics: Vec<String>,
    clients: Vec<Sender<String>>,
}

impl Live {
    fn broadcast(&mut self, frame: &str) {
        self.clients
            .retain(|client| client.send(frame.to_owned()).is_ok());
    }

    fn part(&mut self, mut part: NormalizedToolPart) {
        part.metadata
            .get_or_insert_with(Default::default)
            .insert("source".to_owned(), self.source.clone().into());
        let frame = event("part", &part);
        match self.index.get(&part.id) {
            Some(&at) => {
                if let Some(slot) = self.parts.get_mut(at) {
                    *slot = part;
                }
            }
            None => {
                self.index.insert(part.id.clone(), self.parts.len());
                self.parts.push(part);
            }
        }
        self.broadcast(&frame);
    }

    fn session_frame(&self) -> String {
        event(
            "session",
            &json!({"source": self.source, "dialect": self.dialect, "lines": self.lines}),
        )
    }

    /// Everything so far, for a client that just connected.
    fn replay(&self) -> String {
        let mut frames = event("reset", &json!({}));
        for part in &self.parts {
            frames.push_str(&event("part", part));
        }
        for diagnostic in &self.diagnostics {
            frames.push_str(&event("diagnostic", diagnostic));
        }
        frames.push_str(&self.session_frame());
        frames
    }
}

/// One server-sent event: `event: NAME` and `data: JSON` (JSON has no raw newline).
fn event(name: &str, value: &impl serde::Serialize) -> String {
    let data = serde_json::to_string(value).unwrap_or_else(|_| "null".to_owned());
    format!("event: {name}\ndata: {data}\n\n")
}

fn lock(live: &Mutex<Live>) -> std::sync::MutexGuard<'_, Live> {
    live.lock().unwrap_or_else(PoisonError::into_inner)
}

/// `toolnorm view --serve`.
pub(crate) fn serve(args: &ViewArgs, stderr: &mut impl Write) -> ExitCode {
    let [input] = args.inputs.as_slice() else {
        let _ = writeln!(stderr, "toolnorm: --serve reads one input: a file or -");
        return ExitCode::from(EXIT_USAGE);
    };
    let name = input_name(Some(input));
    let reader: Box<dyn Read + Send> = if input.as_os_str() == "-" {
        Box::new(io::stdin())
    } else {
        match std::fs::File::open(input) {
            Ok(file) => Box::new(file),
            Err(error) => {
                let _ = writeln!(stderr, "toolnorm: {name}: {}", io_message(&error));
                return ExitCode::from(EXIT_USAGE);
            }
        }
    };
    let normalizer = match builder(&args.read) {
        Ok(builder) => builder.build(),
        Err(message) => {
            let _ = writeln!(stderr, "toolnorm: {message}");
            return ExitCode::from(EXIT_USAGE);
        }
    };
    let listener = match TcpListener::bind((Ipv4Addr::LOCALHOST, args.port.unwrap_or(0))) {
        Ok(listener) => listener,
        Err(error) => {
            let _ = writeln!(stderr, "toolnorm: 127.0.0.1: {}", io_message(&error));
            return ExitCode::from(EXIT_USAGE);
        }
    };
    let port = listener.local_addr().map(|addr| addr.port()).unwrap_or(0);
    let _ = writeln!(stderr, "toolnorm: serving http://127.0.0.1:{port}/");
    let _ = stderr.flush();
    let live = Arc::new(Mutex::new(Live {
        source: name,
        ..Live::default()
    }));
    let follow = input.as_os_str() != "-";
    {
        let live = Arc::clone(&live);
        thread::spawn(move || read(reader, follow, normalizer, &live));
    }
    for stream in listener.incoming().flatten() {
        let live = Arc::clone(&live);
        thread::spawn(move || {
            let _ = respond(stream, port, &live);
        });
    }
    ExitCode::SUCCESS
}

/// Where the driver of `--serve` hands the steps: the calls a chunk changed, each once
/// at its latest, and the diagnostics straight to the clients.
struct Changed<'a> {
    live: &'a Mutex<Live>,
    /// The calls changed by the chunk being read, and where each is in `parts`.
    parts: Vec<NormalizedToolPart>,
    index: HashMap<String, usize>,
}

impl Sink for Changed<'_> {
    fn step(&mut self, step: &Step<'_>) -> io::Result<()> {
        if let Step::Applied { update, .. } = step {
            let part = update.call.to_part();
            match self
                .index
                .get(&part.id)
                .and_then(|&at| self.parts.get_mut(at))
            {
                Some(slot) => *slot = part,
                None => {
                    self.index.insert(part.id.clone(), self.parts.len());
                    self.parts.push(part);
                }
            }
        }
        Ok(())
    }

    fn diagnostic(&mut self, diagnostic: &Diagnostic) {
        let text = diagnostic.to_string();
        let frame = event("diagnostic", &text);
        let mut live = lock(self.live);
        live.diagnostics.push(text);
        live.broadcast(&frame);
    }
}

/// Reads the stream into `live`; a file is followed past its end, stdin read to its end.
fn read(
    mut reader: Box<dyn Read + Send>,
    follow: bool,
    normalizer: Normalizer,
    live: &Mutex<Live>,
) {
    let mut buffer = vec![0u8; 1 << 16];
    // The calls changed by a chunk, each once, at its latest: a call whose output streams
    // is sent once per chunk, not once per line. Diagnostics go out as they come.
    let changed = Changed {
        live,
        parts: Vec::new(),
        index: HashMap::new(),
    };
    let mut driver = Driver::new(normalizer, changed).hold_undetected(false);
    let send = |driver: &mut Driver<Changed<'_>>| {
        let changed = driver.sink_mut();
        changed.index.clear();
        let parts = std::mem::take(&mut changed.parts);
        let normalizer = driver.normalizer();
        let mut live = lock(live);
        for part in parts {
            live.part(part);
        }
        live.dialect = normalizer
            .dialect()
            .map(|dialect| dialect.as_str().to_owned());
        live.lines = normalizer.stats().into();
        let frame = live.session_frame();
        live.broadcast(&frame);
    };
    loop {
        match reader.read(&mut buffer) {
            Ok(0) if follow => thread::sleep(POLL),
            Ok(0) => break,
            Ok(length) => {
                driver.push(buffer.get(..length).unwrap_or_default());
                send(&mut driver);
            }
            Err(error) if error.kind() == io::ErrorKind::Interrupted => {}
            Err(error) => {
                let text = format!("reading the input: {}", io_message(&error));
                let mut live = lock(live);
                let frame = event("diagnostic", &text);
                live.diagnostics.push(text);
                live.broadcast(&frame);
                break;
            }
        }
    }
    driver.finish();
    send(&mut driver);
}

/// Answers one HTTP request: the page, the event stream, or 404.
fn respond(stream: TcpStream, port: u16, live: &Mutex<Live>) -> io::Result<()> {
    stream.set_read_timeout(Some(Duration::from_secs(10)))?;
    let mut reader = BufReader::new(stream.try_clone()?);
    let mut request = String::new();
    reader.read_line(&mut request)?;
    let mut host = String::new();
    loop {
        let mut header = String::new();
        if reader.read_line(&mut header)? == 0 || header.trim().is_empty() {
            break;
        }
        if let Some((name, value)) = header.split_once(':')
            && name.eq_ignore_ascii_case("host")
        {
            host = value.trim().to_owned();
        }
    }
    let mut out = stream;
    let allowed = [format!("127.0.0.1:{port}"), format!("localhost:{port}")];
    if !allowed.contains(&host) {
        return plain(&mut out, "421 Misdirected Request", "unknown host");
    }
    let path = request.split_whitespace().nth(1).unwrap_or("/");
    match path {
        "/" => {
            let page = super::page(&[], true).unwrap_or_default();
            write!(
                out,
                "HTTP/1.1 200 OK\r\nContent-Type: text/html; charset=utf-8\r\nContent-Length: {}\r\n\
                 Cache-Control: no-store\r\nConnection: close\r\n\r\n",
                page.len()
            )?;
            out.write_all(page.as_bytes())?;
            out.flush()
        }
        "/events" => events(out, live),
        _ => plain(&mut out, "404 Not Found", "not found"),
    }
}

fn plain(out: &mut TcpStream, status: &str, body: &str) -> io::Result<()> {
    write!(
        out,
        "HTTP/1.1 {status}\r\nContent-Type: text/plain\r\nContent-Length: {}\r\nConnection: close\r\n\r\n{body}",
        body.len()
    )?;
    out.flush()
}

/// The event stream: the replay, then every frame broadcast, until the client leaves.
fn events(mut out: TcpStream, live: &Mutex<Live>) -> io::Result<()> {
    let (sender, receiver): (Sender<String>, Receiver<String>) = mpsc::channel();
    let replay = {
        let mut live = lock(live);
        live.clients.push(sender);
        live.replay()
    };
    out.write_all(
        b"HTTP/1.1 200 OK\r\nContent-Type: text/event-stream\r\nCache-Control: no-store\r\n\
          Connection: close\r\n\r\n",
    )?;
    out.write_all(replay.as_bytes())?;
    out.flush()?;
    loop {
        match receiver.recv_timeout(Duration::from_secs(15)) {
            Ok(frame) => out.write_all(frame.as_bytes())?,
            // A comment keeps the connection open and finds a client that left.
            Err(mpsc::RecvTimeoutError::Timeout) => out.write_all(b": keep-alive\n\n")?,
            Err(mpsc::RecvTimeoutError::Disconnected) => return Ok(()),
        }
        out.flush()?;
    }
}
