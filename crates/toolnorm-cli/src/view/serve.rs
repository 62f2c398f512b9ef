//! `toolnorm view --serve`: the page on 127.0.0.1, fed by server-sent events while the
//! stream grows (stdin from a running agent, or a file being appended to, followed like
//! `tail -f`).
//!
//! `GET /` is the page with no call in it; `GET /events` is an event stream that first
//! replays the session so far (`reset`, then a `part` per call, `session` with the line
//! counts), then, after each chunk read, a `part` for every call the chunk changed (at its
//! latest) and `session`; and a `diagnostic` per diagnostic. A client too slow to take
//! every frame gets the replay again. The server is the one `toolnorm serve` runs on
//! ([`crate::http`]: 127.0.0.1 only, another host refused, requests bounded).

use std::collections::HashMap;
use std::convert::Infallible;
use std::io::{self, Read, Write};
use std::process::ExitCode;
use std::sync::{Arc, Mutex, PoisonError};
use std::thread;
use std::time::Duration;

use axum::Router;
use axum::extract::State;
use axum::response::Html;
use axum::response::sse::{Event, KeepAlive, Sse};
use axum::routing::get;
use futures_util::stream::{self, Stream, StreamExt};
use serde_json::json;
use tokio::sync::broadcast;
use tokio_stream::wrappers::BroadcastStream;
use tokio_stream::wrappers::errors::BroadcastStreamRecvError;
use toolnorm::NormalizedToolPart;
use toolnorm_adapters::{Diagnostic, Driver, Normalizer, Sink, Step};

use crate::normalize::{builder, input_name};
use crate::sessions::Lines;
use crate::{EXIT_USAGE, ViewArgs, io_message};

/// How long a followed file is left before it is read again, once at its end.
const POLL: Duration = Duration::from_millis(200);
/// Frames kept for a slow client before it is sent the replay instead.
const BACKLOG: usize = 4096;

/// One server-sent event: its name and its data (JSON).
type Frame = (&'static str, String);

/// The session so far, and the channel its changes go out on.
struct Live {
    source: String,
    dialect: Option<String>,
    parts: Vec<NormalizedToolPart>,
    index: HashMap<String, usize>,
    lines: Lines,
    diagnostics: Vec<String>,
    clients: broadcast::Sender<Frame>,
}

impl Live {
    fn new(source: String) -> Self {
        Live {
            source,
            dialect: None,
            parts: Vec::new(),
            index: HashMap::new(),
            lines: Lines::default(),
            diagnostics: Vec::new(),
            clients: broadcast::channel(BACKLOG).0,
        }
    }

    fn broadcast(&mut self, frame: Frame) {
        // No client listening is not an error: a client that connects gets the replay.
        let _ = self.clients.send(frame);
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
        self.broadcast(frame);
    }

    fn session_frame(&self) -> Frame {
        event(
            "session",
            &json!({"source": self.source, "dialect": self.dialect, "lines": self.lines}),
        )
    }

    /// Everything so far, for a client that just connected (or fell behind).
    fn replay(&self) -> Vec<Frame> {
        let mut frames = vec![event("reset", &json!({}))];
        frames.extend(self.parts.iter().map(|part| event("part", part)));
        frames.extend(
            self.diagnostics
                .iter()
                .map(|diagnostic| event("diagnostic", diagnostic)),
        );
        frames.push(self.session_frame());
        frames
    }
}

/// A frame named `name` whose data is `value` as JSON (which has no raw newline).
fn event(name: &'static str, value: &impl serde::Serialize) -> Frame {
    let data = serde_json::to_string(value).unwrap_or_else(|_| "null".to_owned());
    (name, data)
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
    let runtime = match crate::http::runtime() {
        Ok(runtime) => runtime,
        Err(error) => {
            let _ = writeln!(stderr, "toolnorm: {}", io_message(&error));
            return ExitCode::from(EXIT_USAGE);
        }
    };
    let live = Arc::new(Mutex::new(Live::new(name)));
    let follow = input.as_os_str() != "-";
    let served = runtime.block_on(async {
        let (listener, port) = crate::http::bind(args.port).await?;
        let _ = writeln!(stderr, "toolnorm: serving http://127.0.0.1:{port}/");
        let _ = stderr.flush();
        {
            let live = Arc::clone(&live);
            thread::spawn(move || read(reader, follow, normalizer, &live));
        }
        let router = crate::http::timed(Router::new().route("/", get(page)))
            .route("/events", get(events))
            .with_state(live);
        crate::http::run(listener, crate::http::guarded(router, port)).await
    });
    match served {
        Ok(()) => ExitCode::SUCCESS,
        Err(error) => {
            let _ = writeln!(stderr, "toolnorm: 127.0.0.1: {}", io_message(&error));
            ExitCode::from(EXIT_USAGE)
        }
    }
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
        live.broadcast(frame);
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
        live.broadcast(frame);
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
                live.broadcast(frame);
                break;
            }
        }
    }
    driver.finish();
    send(&mut driver);
}

/// The page, with no call in it: it takes them from `/events`.
async fn page() -> Html<String> {
    Html(super::page(&[], true).unwrap_or_default())
}

/// The event stream: the replay, then every frame broadcast, until the client leaves (a
/// comment every 15 s finds a client that left). A client that fell behind by more than
/// [`BACKLOG`] frames is sent the replay again.
async fn events(
    State(live): State<Arc<Mutex<Live>>>,
) -> Sse<impl Stream<Item = Result<Event, Infallible>>> {
    // Taken under the lock that broadcasts: no frame is missed or sent twice.
    let (replay, changes) = {
        let live = lock(&live);
        (live.replay(), live.clients.subscribe())
    };
    let changes = BroadcastStream::new(changes).flat_map(move |frame| match frame {
        Ok(frame) => stream::iter(vec![frame]),
        Err(BroadcastStreamRecvError::Lagged(_)) => stream::iter(lock(&live).replay()),
    });
    let stream = stream::iter(replay)
        .chain(changes)
        .map(|(name, data)| Ok(Event::default().event(name).data(data)));
    Sse::new(stream).keep_alive(KeepAlive::new().interval(Duration::from_secs(15)))
}
