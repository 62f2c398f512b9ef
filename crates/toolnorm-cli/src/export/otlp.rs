//! The OTLP/HTTP client of `toolnorm export`: where spans go (the flags, then the
//! standard `OTEL_EXPORTER_OTLP_*` variables), batching on a thread of its own, and
//! retries of what a collector may accept later.

use std::io::Write as _;
use std::sync::mpsc::{self, Receiver, RecvTimeoutError, Sender};
use std::thread::{self, JoinHandle};
use std::time::{Duration, Instant};

use prost::Message as _;
use toolnorm_adapters::otlp::tonic::collector::trace::v1::{
    ExportTraceServiceRequest, ExportTraceServiceResponse,
};

/// The collector's default base URL (the OTLP specification's).
const DEFAULT_BASE: &str = "http://localhost:4318";
/// The path of traces under a base URL.
const TRACES_PATH: &str = "/v1/traces";
/// Spans sent per request, at most.
pub(crate) const BATCH_SPANS: usize = 512;
/// How long a span waits for others before its batch is sent (live streams).
const BATCH_DELAY: Duration = Duration::from_secs(1);
/// Attempts per batch, the first included, when the collector asks to retry.
const ATTEMPTS: u32 = 5;
/// The longest wait between attempts.
const MAX_BACKOFF: Duration = Duration::from_secs(30);

/// The encoding of the requests (`OTEL_EXPORTER_OTLP_PROTOCOL`).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum Protocol {
    /// `http/protobuf`, the default.
    Protobuf,
    /// `http/json`.
    Json,
}

/// Where and how spans are sent.
#[derive(Debug, Clone)]
pub(crate) struct Target {
    /// The traces URL (`…/v1/traces`).
    pub(crate) url: String,
    pub(crate) headers: Vec<(String, String)>,
    pub(crate) timeout: Duration,
    pub(crate) gzip: bool,
    pub(crate) protocol: Protocol,
}

impl Target {
    /// The target the flags name, completed by the environment (`env` reads a variable).
    pub(crate) fn resolve(
        endpoint: Option<&str>,
        headers: &[String],
        env: &dyn Fn(&str) -> Option<String>,
    ) -> Result<Target, String> {
        let signal = |name: &str| {
            env(&format!("OTEL_EXPORTER_OTLP_TRACES_{name}"))
                .or_else(|| env(&format!("OTEL_EXPORTER_OTLP_{name}")))
                .filter(|value| !value.trim().is_empty())
        };
        let url = match endpoint {
            Some(base) => traces_url(base),
            None => match env("OTEL_EXPORTER_OTLP_TRACES_ENDPOINT").filter(|v| !v.is_empty()) {
                // The signal's own variable is the whole URL, as given.
                Some(url) => url,
                None => traces_url(
                    &env("OTEL_EXPORTER_OTLP_ENDPOINT")
                        .filter(|value| !value.is_empty())
                        .unwrap_or_else(|| DEFAULT_BASE.to_owned()),
                ),
            },
        };
        if !(url.starts_with("http://") || url.starts_with("https://")) {
            return Err(format!(
                "the OTLP endpoint {url} is not an http:// or https:// URL"
            ));
        }
        let mut pairs = Vec::new();
        for variable in [
            "OTEL_EXPORTER_OTLP_HEADERS",
            "OTEL_EXPORTER_OTLP_TRACES_HEADERS",
        ] {
            if let Some(list) = env(variable) {
                for item in list.split(',').filter(|item| !item.trim().is_empty()) {
                    let (key, value) = item
                        .split_once('=')
                        .ok_or_else(|| format!("{variable}: `{item}` is not KEY=VALUE"))?;
                    let value = percent_encoding::percent_decode_str(value.trim())
                        .decode_utf8()
                        .map_err(|_| format!("{variable}: `{item}` is not UTF-8 once decoded"))?;
                    set(&mut pairs, key.trim(), &value);
                }
            }
        }
        for header in headers {
            let (key, value) = header
                .split_once('=')
                .ok_or_else(|| format!("--otlp-header {header}: expected KEY=VALUE"))?;
            set(&mut pairs, key.trim(), value);
        }
        let timeout = match signal("TIMEOUT") {
            Some(ms) => Duration::from_millis(ms.trim().parse().map_err(|_| {
                format!("OTEL_EXPORTER_OTLP_TIMEOUT: `{ms}` is not a number of milliseconds")
            })?),
            None => Duration::from_secs(10),
        };
        let gzip = match signal("COMPRESSION").as_deref().map(str::trim) {
            None | Some("none") => false,
            Some("gzip") => true,
            Some(other) => {
                return Err(format!(
                    "OTEL_EXPORTER_OTLP_COMPRESSION: `{other}` is not gzip or none"
                ));
            }
        };
        let protocol = match signal("PROTOCOL").as_deref().map(str::trim) {
            None | Some("http/protobuf") => Protocol::Protobuf,
            Some("http/json") => Protocol::Json,
            Some(other) => {
                return Err(format!(
                    "OTEL_EXPORTER_OTLP_PROTOCOL: `{other}` is not sent by toolnorm \
                     (http/protobuf or http/json; a collector takes both on port 4318)"
                ));
            }
        };
        Ok(Target {
            url,
            headers: pairs,
            timeout,
            gzip,
            protocol,
        })
    }
}

/// `base` with the traces path, unless it already ends with it.
fn traces_url(base: &str) -> String {
    let base = base.trim_end_matches('/');
    if base.ends_with(TRACES_PATH) {
        base.to_owned()
    } else {
        format!("{base}{TRACES_PATH}")
    }
}

/// Sets `key` (case-insensitive, as HTTP header names are) to `value`.
fn set(pairs: &mut Vec<(String, String)>, key: &str, value: &str) {
    pairs.retain(|(name, _)| !name.eq_ignore_ascii_case(key));
    pairs.push((key.to_owned(), value.to_owned()));
}

/// What was sent, once the sender is done.
#[derive(Debug, Default, Clone, Copy, PartialEq, Eq)]
pub(crate) struct Sent {
    pub(crate) requests: u64,
    pub(crate) spans: u64,
    /// Spans the collector said it rejected (a partial success).
    pub(crate) rejected: u64,
}

/// The sending thread: requests go in, batches go out.
pub(crate) struct Exporter {
    queue: Option<Sender<ExportTraceServiceRequest>>,
    thread: Option<JoinHandle<Result<Sent, String>>>,
}

impl Exporter {
    /// Starts the thread that sends to `target`; `warn` gets what is worth saying but
    /// stops nothing (spans a collector rejected).
    pub(crate) fn start(target: Target) -> Exporter {
        let (queue, requests) = mpsc::channel();
        let thread = thread::spawn(move || send_all(&target, &requests));
        Exporter {
            queue: Some(queue),
            thread: Some(thread),
        }
    }

    /// Queues `request`; `false` once the thread stopped (the collector refused).
    pub(crate) fn send(&self, request: ExportTraceServiceRequest) -> bool {
        self.queue
            .as_ref()
            .is_some_and(|queue| queue.send(request).is_ok())
    }

    /// Sends what is queued and stops: what was sent, or why the collector refused.
    pub(crate) fn finish(mut self) -> Result<Sent, String> {
        drop(self.queue.take());
        match self.thread.take().map(JoinHandle::join) {
            Some(Ok(result)) => result,
            _ => Err("the sending thread stopped".to_owned()),
        }
    }
}

/// Batches the requests of `queue` and sends each batch when it is full, a span waited
/// [`BATCH_DELAY`], or the queue closed.
fn send_all(target: &Target, queue: &Receiver<ExportTraceServiceRequest>) -> Result<Sent, String> {
    let agent: ureq::Agent = ureq::Agent::config_builder()
        .http_status_as_error(false)
        .timeout_global(Some(target.timeout))
        .build()
        .into();
    let mut sent = Sent::default();
    let mut batch = ExportTraceServiceRequest::default();
    let mut spans = 0;
    let mut since: Option<Instant> = None;
    loop {
        let wait = since.map_or(Duration::from_secs(3600), |since| {
            BATCH_DELAY.saturating_sub(since.elapsed())
        });
        let closed = match queue.recv_timeout(wait) {
            Ok(request) => {
                spans += span_count(&request);
                batch.resource_spans.extend(request.resource_spans);
                since.get_or_insert_with(Instant::now);
                false
            }
            Err(RecvTimeoutError::Timeout) => false,
            Err(RecvTimeoutError::Disconnected) => true,
        };
        let due = since.is_some_and(|since| since.elapsed() >= BATCH_DELAY);
        if spans > 0 && (closed || due || spans >= BATCH_SPANS) {
            let rejected = post(&agent, target, &batch)?;
            sent.requests += 1;
            sent.spans += spans as u64;
            sent.rejected += rejected;
            batch = ExportTraceServiceRequest::default();
            spans = 0;
            since = None;
        }
        if closed {
            return Ok(sent);
        }
    }
}

/// The spans of a request.
pub(crate) fn span_count(request: &ExportTraceServiceRequest) -> usize {
    request
        .resource_spans
        .iter()
        .flat_map(|resource| &resource.scope_spans)
        .map(|scope| scope.spans.len())
        .sum()
}

/// Sends one batch, retrying what the collector may take later (429, 502, 503, 504, or
/// no answer) with a backoff that honours `Retry-After`: the spans it rejected.
fn post(
    agent: &ureq::Agent,
    target: &Target,
    batch: &ExportTraceServiceRequest,
) -> Result<u64, String> {
    let (content_type, body) = match target.protocol {
        Protocol::Protobuf => ("application/x-protobuf", batch.encode_to_vec()),
        Protocol::Json => (
            "application/json",
            serde_json::to_vec(batch).map_err(|error| error.to_string())?,
        ),
    };
    let body = if target.gzip { gzip(&body)? } else { body };
    let mut backoff = Duration::from_secs(1);
    let mut attempt = 1;
    loop {
        let mut request = agent.post(&target.url).header("Content-Type", content_type);
        if target.gzip {
            request = request.header("Content-Encoding", "gzip");
        }
        for (key, value) in &target.headers {
            request = request.header(key.as_str(), value.as_str());
        }
        let retry_after = match request.send(&body[..]) {
            Ok(mut response) => {
                let status = response.status().as_u16();
                let retry_after = response
                    .headers()
                    .get("retry-after")
                    .and_then(|value| value.to_str().ok())
                    .and_then(|value| value.trim().parse::<u64>().ok())
                    .map(Duration::from_secs);
                let text = response
                    .body_mut()
                    .with_config()
                    .limit(1 << 20)
                    .read_to_vec()
                    .unwrap_or_default();
                if (200..300).contains(&status) {
                    return Ok(rejected(&text, target.protocol));
                }
                if !matches!(status, 429 | 502 | 503 | 504) || attempt >= ATTEMPTS {
                    return Err(format!(
                        "the collector at {} refused the spans: HTTP {status}{}",
                        target.url,
                        reason(&text)
                    ));
                }
                retry_after
            }
            Err(error) if attempt >= ATTEMPTS => {
                return Err(format!(
                    "could not send to the collector at {}: {error}",
                    target.url
                ));
            }
            Err(_) => None,
        };
        thread::sleep(retry_after.unwrap_or(backoff).min(MAX_BACKOFF));
        backoff = (backoff * 2).min(MAX_BACKOFF);
        attempt += 1;
    }
}

/// `bytes`, gzipped.
fn gzip(bytes: &[u8]) -> Result<Vec<u8>, String> {
    let mut encoder = flate2::write::GzEncoder::new(Vec::new(), flate2::Compression::default());
    encoder
        .write_all(bytes)
        .and_then(|()| encoder.finish())
        .map_err(|error| error.to_string())
}

/// The spans a successful response says were rejected (a partial success).
fn rejected(body: &[u8], protocol: Protocol) -> u64 {
    let response = match protocol {
        Protocol::Protobuf => ExportTraceServiceResponse::decode(body).ok(),
        Protocol::Json => serde_json::from_slice::<ExportTraceServiceResponse>(body).ok(),
    };
    response
        .and_then(|response| response.partial_success)
        .map_or(0, |partial| {
            u64::try_from(partial.rejected_spans).unwrap_or(0)
        })
}

/// What a refusal's body says, for the message: its text, cut, after `: `.
fn reason(body: &[u8]) -> String {
    let text = String::from_utf8_lossy(body);
    let printable: String = text
        .chars()
        .filter(|c| !c.is_control() || *c == ' ')
        .take(300)
        .collect();
    let printable = printable.trim();
    if printable.is_empty() {
        String::new()
    } else {
        format!(": {printable}")
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn env(pairs: &'static [(&'static str, &'static str)]) -> impl Fn(&str) -> Option<String> {
        move |name| {
            pairs
                .iter()
                .find(|(key, _)| *key == name)
                .map(|(_, value)| (*value).to_owned())
        }
    }

    #[test]
    fn the_flag_then_the_signal_variable_then_the_base_variable_then_the_default() {
        let none = env(&[]);
        let url = |endpoint, env: &dyn Fn(&str) -> Option<String>| {
            Target::resolve(endpoint, &[], env).map(|target| target.url)
        };
        assert_eq!(url(None, &none).unwrap(), "http://localhost:4318/v1/traces");
        assert_eq!(
            url(Some("http://c:4318/"), &none).unwrap(),
            "http://c:4318/v1/traces"
        );
        assert_eq!(
            url(Some("http://c:4318/v1/traces"), &none).unwrap(),
            "http://c:4318/v1/traces"
        );
        let base = env(&[("OTEL_EXPORTER_OTLP_ENDPOINT", "https://b")]);
        assert_eq!(url(None, &base).unwrap(), "https://b/v1/traces");
        let signal = env(&[
            ("OTEL_EXPORTER_OTLP_ENDPOINT", "https://b"),
            ("OTEL_EXPORTER_OTLP_TRACES_ENDPOINT", "https://t/custom"),
        ]);
        assert_eq!(url(None, &signal).unwrap(), "https://t/custom");
        assert_eq!(
            url(Some("http://f"), &signal).unwrap(),
            "http://f/v1/traces"
        );
        assert!(
            url(Some("ftp://x"), &none)
                .unwrap_err()
                .contains("not an http")
        );
    }

    #[test]
    fn headers_come_from_both_variables_and_the_flags_last() {
        let variables = env(&[
            ("OTEL_EXPORTER_OTLP_HEADERS", "api-key=a%20b, x-team=one"),
            ("OTEL_EXPORTER_OTLP_TRACES_HEADERS", "X-Team=two"),
        ]);
        let flags = ["authorization=Bearer t".to_owned()];
        let target = Target::resolve(None, &flags, &variables).unwrap();
        assert_eq!(
            target.headers,
            [
                ("api-key".to_owned(), "a b".to_owned()),
                ("X-Team".to_owned(), "two".to_owned()),
                ("authorization".to_owned(), "Bearer t".to_owned()),
            ]
        );
        let bad = Target::resolve(None, &["novalue".to_owned()], &env(&[])).unwrap_err();
        assert_eq!(bad, "--otlp-header novalue: expected KEY=VALUE");
    }

    #[test]
    fn timeout_compression_and_protocol_are_read_or_refused_clearly() {
        let target = Target::resolve(
            None,
            &[],
            &env(&[
                ("OTEL_EXPORTER_OTLP_TIMEOUT", "2500"),
                ("OTEL_EXPORTER_OTLP_TRACES_COMPRESSION", "gzip"),
                ("OTEL_EXPORTER_OTLP_PROTOCOL", "http/json"),
            ]),
        )
        .unwrap();
        assert_eq!(target.timeout, Duration::from_millis(2500));
        assert!(target.gzip);
        assert_eq!(target.protocol, Protocol::Json);
        let grpc = env(&[("OTEL_EXPORTER_OTLP_PROTOCOL", "grpc")]);
        assert!(
            Target::resolve(None, &[], &grpc)
                .unwrap_err()
                .contains("grpc")
        );
        let zstd = env(&[("OTEL_EXPORTER_OTLP_COMPRESSION", "zstd")]);
        assert!(
            Target::resolve(None, &[], &zstd)
                .unwrap_err()
                .contains("zstd")
        );
    }

    #[test]
    fn a_refusal_says_what_the_collector_said() {
        assert_eq!(reason(b""), "");
        assert_eq!(reason(b"bad\nspan"), ": badspan");
    }
}
