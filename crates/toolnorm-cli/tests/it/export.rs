//! `toolnorm export`: the spans of `--format otel` sent over OTLP/HTTP to a collector
//! (here a loopback listener that answers as told), its retries, refusals and options.
#![allow(clippy::unwrap_used, clippy::expect_used)]

use std::io::{BufRead, BufReader, Read, Write};
use std::net::TcpListener;
use std::process::Stdio;
use std::sync::mpsc;
use std::thread;
use std::time::Duration;

use assert_cmd::Command;
use prost::Message;
use toolnorm_adapters::otlp::tonic::collector::trace::v1::{
    ExportTracePartialSuccess, ExportTraceServiceRequest, ExportTraceServiceResponse,
};
use toolnorm_adapters::otlp::tonic::trace::v1::Span;

use crate::common::{self, root};

fn toolnorm() -> Command {
    let mut command = common::toolnorm();
    for variable in [
        "OTEL_EXPORTER_OTLP_ENDPOINT",
        "OTEL_EXPORTER_OTLP_TRACES_ENDPOINT",
        "OTEL_EXPORTER_OTLP_HEADERS",
        "OTEL_EXPORTER_OTLP_TRACES_HEADERS",
        "OTEL_EXPORTER_OTLP_PROTOCOL",
        "OTEL_EXPORTER_OTLP_COMPRESSION",
    ] {
        command.env_remove(variable);
    }
    command
}

/// One request the collector received.
pub(crate) struct Received {
    path: String,
    headers: Vec<(String, String)>,
    pub(crate) body: Vec<u8>,
}

impl Received {
    fn header(&self, name: &str) -> Option<&str> {
        self.headers
            .iter()
            .find(|(key, _)| key.eq_ignore_ascii_case(name))
            .map(|(_, value)| value.as_str())
    }
}

/// A collector on loopback answering each request with the next of `answers` (status,
/// body); the requests it received, once `answers` are all given.
pub(crate) fn collector(
    answers: Vec<(u16, Vec<u8>)>,
) -> (String, thread::JoinHandle<Vec<Received>>) {
    let (url, _arrivals, handle) = collector_told(answers);
    (url, handle)
}

/// [`collector`], which also tells the path of each request as it arrives.
fn collector_told(
    answers: Vec<(u16, Vec<u8>)>,
) -> (
    String,
    mpsc::Receiver<String>,
    thread::JoinHandle<Vec<Received>>,
) {
    let (tell, arrivals) = mpsc::channel();
    let listener = TcpListener::bind("127.0.0.1:0").unwrap();
    let url = format!("http://{}", listener.local_addr().unwrap());
    let handle = thread::spawn(move || {
        let mut received = Vec::new();
        for (status, body) in answers {
            let (stream, _) = listener.accept().unwrap();
            let mut reader = BufReader::new(stream);
            let mut line = String::new();
            reader.read_line(&mut line).unwrap();
            let path = line.split_whitespace().nth(1).unwrap().to_owned();
            let mut headers = Vec::new();
            loop {
                let mut header = String::new();
                reader.read_line(&mut header).unwrap();
                let header = header.trim_end();
                if header.is_empty() {
                    break;
                }
                let (key, value) = header.split_once(':').unwrap();
                headers.push((key.trim().to_owned(), value.trim().to_owned()));
            }
            let length: usize = headers
                .iter()
                .find(|(key, _)| key.eq_ignore_ascii_case("content-length"))
                .map(|(_, value)| value.parse().unwrap())
                .unwrap();
            let mut body_in = vec![0; length];
            reader.read_exact(&mut body_in).unwrap();
            let mut stream = reader.into_inner();
            write!(
                stream,
                "HTTP/1.1 {status} X\r\nContent-Type: application/x-protobuf\r\nContent-Length: {}\r\nConnection: close\r\n\r\n",
                body.len()
            )
            .unwrap();
            stream.write_all(&body).unwrap();
            let _ = tell.send(path.clone());
            received.push(Received {
                path,
                headers,
                body: body_in,
            });
        }
        received
    });
    (url, arrivals, handle)
}

/// The spans of requests.
fn spans(requests: impl IntoIterator<Item = ExportTraceServiceRequest>) -> Vec<Span> {
    toolnorm_adapters::otel_spans(requests).collect()
}

/// What `--format otel` writes for `fixture`, as spans.
fn written(fixture: &str) -> Vec<Span> {
    let output = toolnorm()
        .args(["normalize", "--format", "otel", fixture])
        .output()
        .unwrap();
    assert!(output.status.success());
    spans(
        String::from_utf8(output.stdout)
            .unwrap()
            .lines()
            .map(|line| serde_json::from_str::<ExportTraceServiceRequest>(line).unwrap()),
    )
}

const FIXTURE: &str = "fixtures/claude-code/subagent.jsonl";

#[test]
fn the_collector_gets_the_spans_the_format_writes_with_the_headers_asked() {
    let (url, collector) = collector(vec![(200, Vec::new())]);
    let output = toolnorm()
        .args([
            "export",
            "--otlp-endpoint",
            &url,
            "--otlp-header",
            "x-team=tools",
            FIXTURE,
        ])
        .env(
            "OTEL_EXPORTER_OTLP_HEADERS",
            "api-key=s%3Dcret,x-team=ignored",
        )
        .output()
        .unwrap();
    let stderr = String::from_utf8(output.stderr).unwrap();
    assert!(output.status.success(), "{stderr}");
    assert_eq!(
        stderr,
        format!("toolnorm: exported 3 span(s) of 2 call(s) in 1 request(s) to {url}/v1/traces\n")
    );
    let received = collector.join().unwrap();
    let [request] = &received[..] else {
        panic!("one request")
    };
    assert_eq!(request.path, "/v1/traces");
    assert_eq!(
        request.header("content-type"),
        Some("application/x-protobuf")
    );
    assert_eq!(request.header("api-key"), Some("s=cret"));
    assert_eq!(request.header("x-team"), Some("tools"));
    let sent = ExportTraceServiceRequest::decode(&request.body[..]).unwrap();
    assert_eq!(spans([sent]), written(FIXTURE));
}

#[test]
fn a_collector_that_asks_to_retry_gets_the_batch_again() {
    let (url, collector) = collector(vec![(503, b"busy".to_vec()), (200, Vec::new())]);
    let output = toolnorm()
        .args(["export", FIXTURE])
        .env(
            "OTEL_EXPORTER_OTLP_TRACES_ENDPOINT",
            format!("{url}/custom"),
        )
        .output()
        .unwrap();
    assert!(output.status.success(), "{:?}", output);
    let received = collector.join().unwrap();
    assert_eq!(received.len(), 2);
    assert!(received.iter().all(|request| request.path == "/custom"));
    assert_eq!(received[0].body, received[1].body);
}

#[test]
fn a_refusal_is_said_with_what_the_collector_said() {
    let (url, collector) = collector(vec![(400, b"invalid span".to_vec())]);
    let output = toolnorm()
        .args(["export", "--otlp-endpoint", &url, FIXTURE])
        .output()
        .unwrap();
    assert_eq!(output.status.code(), Some(2));
    assert_eq!(
        String::from_utf8(output.stderr).unwrap(),
        format!(
            "toolnorm: the collector at {url}/v1/traces refused the spans: HTTP 400: invalid span\n"
        )
    );
    collector.join().unwrap();
}

#[test]
fn spans_the_collector_rejected_are_counted_and_fail_the_run() {
    let response = ExportTraceServiceResponse {
        partial_success: Some(ExportTracePartialSuccess {
            rejected_spans: 1,
            error_message: "too old".to_owned(),
        }),
    };
    let (url, collector) = collector(vec![(200, response.encode_to_vec())]);
    let output = toolnorm()
        .args(["export", "--otlp-endpoint", &url, FIXTURE])
        .output()
        .unwrap();
    assert_eq!(output.status.code(), Some(2));
    let stderr = String::from_utf8(output.stderr).unwrap();
    assert!(
        stderr.ends_with(", 1 rejected by the collector\n"),
        "{stderr}"
    );
    collector.join().unwrap();
}

#[test]
fn json_and_gzip_are_sent_when_the_environment_asks() {
    let (url, collector) = collector(vec![(200, Vec::new())]);
    let output = toolnorm()
        .args(["export", "--otlp-endpoint", &url, "--otel-content", FIXTURE])
        .env("OTEL_EXPORTER_OTLP_PROTOCOL", "http/json")
        .env("OTEL_EXPORTER_OTLP_COMPRESSION", "gzip")
        .output()
        .unwrap();
    assert!(output.status.success(), "{output:?}");
    let received = collector.join().unwrap();
    assert_eq!(received[0].header("content-type"), Some("application/json"));
    assert_eq!(received[0].header("content-encoding"), Some("gzip"));
    let mut text = String::new();
    flate2::read::GzDecoder::new(&received[0].body[..])
        .read_to_string(&mut text)
        .unwrap();
    let sent: ExportTraceServiceRequest = serde_json::from_str(&text).unwrap();
    let sent = spans([sent]);
    assert_eq!(sent.len(), 3);
    let arguments = sent
        .iter()
        .flat_map(|span| &span.attributes)
        .filter(|attribute| attribute.key == "gen_ai.tool.call.arguments")
        .count();
    assert_eq!(
        arguments, 2,
        "--otel-content puts each call's input on its span"
    );
}

#[test]
fn a_protocol_toolnorm_does_not_send_is_refused_before_reading() {
    let output = toolnorm()
        .args(["export", FIXTURE])
        .env("OTEL_EXPORTER_OTLP_PROTOCOL", "grpc")
        .output()
        .unwrap();
    assert_eq!(output.status.code(), Some(2));
    let stderr = String::from_utf8(output.stderr).unwrap();
    assert!(
        stderr.contains("`grpc` is not sent by toolnorm"),
        "{stderr}"
    );
}

#[test]
fn a_live_stream_is_exported_as_its_calls_end() {
    let (url, arrivals, collector) = collector_told(vec![(200, Vec::new()), (200, Vec::new())]);
    let text = std::fs::read_to_string(root().join(FIXTURE)).unwrap();
    let lines: Vec<&str> = text.split_inclusive('\n').collect();
    let mut child = std::process::Command::new(assert_cmd::cargo::cargo_bin("toolnorm"))
        .args(["export", "--otlp-endpoint", &url])
        .stdin(Stdio::piped())
        .stdout(Stdio::null())
        .stderr(Stdio::piped())
        .spawn()
        .unwrap();
    let mut stdin = child.stdin.take().unwrap();
    // The first nine lines end the subagent's `Bash` call; the stream stays open.
    stdin.write_all(lines[..9].concat().as_bytes()).unwrap();
    stdin.flush().unwrap();
    let first = arrivals.recv_timeout(Duration::from_secs(20));
    assert_eq!(
        first.as_deref(),
        Ok("/v1/traces"),
        "a span sent while stdin is open"
    );
    stdin.write_all(lines[9..].concat().as_bytes()).unwrap();
    drop(stdin);
    let output = child.wait_with_output().unwrap();
    assert!(output.status.success(), "{output:?}");
    let received = collector.join().unwrap();
    let sent: Vec<Span> = spans(
        received
            .iter()
            .map(|request| ExportTraceServiceRequest::decode(&request.body[..]).unwrap()),
    );
    let names: Vec<&str> = sent.iter().map(|span| span.name.as_str()).collect();
    assert_eq!(
        names,
        [
            "execute_tool Bash",
            "execute_tool Task",
            "invoke_agent claude-code"
        ]
    );
}

#[test]
fn a_followed_file_is_exported_as_it_is_written() {
    let (url, arrivals, _collector) = collector_told(vec![(200, Vec::new()), (200, Vec::new())]);
    let text = std::fs::read_to_string(root().join(FIXTURE)).unwrap();
    let lines: Vec<&str> = text.split_inclusive('\n').collect();
    let dir = std::env::temp_dir().join(format!("toolnorm-follow-{}", std::process::id()));
    std::fs::create_dir_all(&dir).unwrap();
    let path = dir.join("session.jsonl");
    // A session whose subagent is still running: its transcript is being written.
    std::fs::write(&path, lines[..5].concat()).unwrap();
    let mut child = std::process::Command::new(assert_cmd::cargo::cargo_bin("toolnorm"))
        .args(["export", "--follow", "--otlp-endpoint", &url])
        .arg(&path)
        .stdout(Stdio::null())
        .stderr(Stdio::null())
        .spawn()
        .unwrap();
    // Nothing has ended yet: nothing is sent.
    assert!(arrivals.recv_timeout(Duration::from_millis(1500)).is_err());
    // The subagent's call ends in the lines appended: its span is sent while the file
    // is still followed.
    let mut file = std::fs::OpenOptions::new()
        .append(true)
        .open(&path)
        .unwrap();
    file.write_all(lines[5..9].concat().as_bytes()).unwrap();
    file.flush().unwrap();
    let first = arrivals.recv_timeout(Duration::from_secs(20));
    child.kill().unwrap();
    child.wait().unwrap();
    std::fs::remove_dir_all(&dir).unwrap();
    assert_eq!(first.as_deref(), Ok("/v1/traces"));
}
