//! Output as it happens: fed a recorded stream line by line through stdin, `toolnorm`
//! writes each part before the next input line comes (no buffering until the end).
#![allow(clippy::unwrap_used, clippy::expect_used)]

use std::io::{BufRead, BufReader, Write};
use std::path::PathBuf;
use std::process::{Command, Stdio};
use std::sync::mpsc;
use std::time::Duration;

use toolnorm_adapters::{Normalizer, Step};

/// How long a part may take to come out before the test fails.
const TIMEOUT: Duration = Duration::from_secs(10);

fn fixture(relative: &str) -> Vec<u8> {
    let path = PathBuf::from(env!("CARGO_MANIFEST_DIR"))
        .join("../../fixtures")
        .join(relative);
    std::fs::read(path).unwrap()
}

/// For each input line, how many calls it ends (each gives one line of output).
fn calls_ended_per_line(bytes: &[u8]) -> Vec<usize> {
    let lines = bytes.split(|&byte| byte == b'\n').count();
    let mut ended = vec![0; lines];
    let mut normalizer = Normalizer::new();
    let mut on_step = |step: Step<'_>| {
        if let Step::Applied { line, update, .. } = step
            && update.call.is_terminal()
        {
            ended[usize::try_from(line).unwrap() - 1] += 1;
        }
    };
    normalizer.push(bytes, &mut on_step);
    normalizer.finish(&mut on_step);
    ended
}

fn parts_arrive_as_calls_end(format: &str, relative: &str) {
    let bytes = fixture(relative);
    let ended = calls_ended_per_line(&bytes);
    assert!(
        ended.iter().sum::<usize>() >= 2,
        "{relative}: a multi-call stream"
    );
    let mut child = Command::new(env!("CARGO_BIN_EXE_toolnorm"))
        .args(["normalize", "--format", format, "-"])
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .stderr(Stdio::null())
        .spawn()
        .unwrap();
    let stdout = child.stdout.take().unwrap();
    let (sender, received) = mpsc::channel();
    let reader = std::thread::spawn(move || {
        for line in BufReader::new(stdout).lines() {
            if sender.send(line.unwrap()).is_err() {
                break;
            }
        }
    });
    let mut stdin = child.stdin.take().unwrap();
    let mut seen = 0;
    for (number, line) in bytes.split(|&byte| byte == b'\n').enumerate() {
        if line.is_empty() {
            continue;
        }
        stdin.write_all(line).unwrap();
        stdin.write_all(b"\n").unwrap();
        stdin.flush().unwrap();
        for _ in 0..ended[number] {
            let output = received.recv_timeout(TIMEOUT).unwrap_or_else(|_| {
                panic!(
                    "{format} {relative}: no output for line {} after {TIMEOUT:?}",
                    number + 1
                )
            });
            assert!(!output.is_empty(), "{format}: {output}");
            seen += 1;
        }
        std::thread::sleep(Duration::from_millis(20));
    }
    drop(stdin);
    assert!(child.wait().unwrap().success());
    reader.join().unwrap();
    // What came after: nothing more than the summary of `pretty`.
    let rest: Vec<String> = received.try_iter().collect();
    assert_eq!(seen, ended.iter().sum::<usize>());
    match format {
        "pretty" => assert_eq!(rest.len(), 1, "{rest:?}"),
        _ => assert!(rest.is_empty(), "{rest:?}"),
    }
}

#[test]
fn parts_are_written_as_each_call_ends() {
    parts_arrive_as_calls_end("parts", "codex-exec/parallel.jsonl");
    parts_arrive_as_calls_end("parts", "claude-code/parallel.jsonl");
}

#[test]
fn pretty_lines_are_written_as_each_call_ends() {
    parts_arrive_as_calls_end("pretty", "codex-exec/parallel.jsonl");
    parts_arrive_as_calls_end("pretty", "claude-code/parallel.jsonl");
}

/// The UI stream formats: a call's end chunk (`tool-output-*`) or result event
/// (`TOOL_CALL_RESULT`) comes out before the next input line goes in.
fn ends_arrive_as_calls_end(format: &str, relative: &str) {
    let bytes = fixture(relative);
    let ended = calls_ended_per_line(&bytes);
    assert!(ended.iter().sum::<usize>() >= 2, "{relative}");
    let mut child = Command::new(env!("CARGO_BIN_EXE_toolnorm"))
        .args(["normalize", "--format", format, "-"])
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .stderr(Stdio::null())
        .spawn()
        .unwrap();
    let stdout = child.stdout.take().unwrap();
    let (sender, received) = mpsc::channel();
    let reader = std::thread::spawn(move || {
        for line in BufReader::new(stdout).lines() {
            if sender.send(line.unwrap()).is_err() {
                break;
            }
        }
    });
    let is_end = |line: &str| {
        let value: serde_json::Value = serde_json::from_str(line).unwrap();
        let kind = value["type"].as_str().unwrap_or_default().to_owned();
        kind.starts_with("tool-output-") || kind == "TOOL_CALL_RESULT"
    };
    let mut stdin = child.stdin.take().unwrap();
    for (number, line) in bytes.split(|&byte| byte == b'\n').enumerate() {
        if line.is_empty() {
            continue;
        }
        stdin.write_all(line).unwrap();
        stdin.write_all(b"\n").unwrap();
        stdin.flush().unwrap();
        let mut ends = 0;
        while ends < ended[number] {
            let output = received.recv_timeout(TIMEOUT).unwrap_or_else(|_| {
                panic!(
                    "{format} {relative}: no end for line {} after {TIMEOUT:?}",
                    number + 1
                )
            });
            ends += usize::from(is_end(&output));
        }
    }
    drop(stdin);
    assert!(child.wait().unwrap().success());
    reader.join().unwrap();
    let rest: Vec<String> = received.try_iter().collect();
    assert!(
        rest.iter().all(|line| !is_end(line)),
        "{format}: ends after the input: {rest:?}"
    );
}

#[test]
fn ui_stream_ends_are_written_as_each_call_ends() {
    for format in ["ai-sdk", "ag-ui"] {
        ends_arrive_as_calls_end(format, "codex-exec/parallel.jsonl");
        ends_arrive_as_calls_end(format, "claude-code/parallel.jsonl");
    }
}

/// For each input line, the calls of the updates it gives (one per change of a call), and
/// how many come at the end of the input.
fn updates_per_line(bytes: &[u8]) -> (Vec<Vec<String>>, usize) {
    let lines = bytes.split(|&byte| byte == b'\n').count();
    let mut updates = vec![Vec::new(); lines];
    let mut normalizer = Normalizer::new();
    normalizer.push(bytes, &mut |step: Step<'_>| {
        if let Step::Applied { line, update, .. } = step {
            updates[usize::try_from(line).unwrap() - 1].push(update.call.id().to_owned());
        }
    });
    let mut at_end = 0;
    normalizer.finish(&mut |step: Step<'_>| {
        at_end += usize::from(matches!(step, Step::Applied { .. }));
    });
    (updates, at_end)
}

/// `--format updates` fed a recorded stream through a pipe one line at a time: each
/// line's updates are read back, whole, before the next line is written (nothing is
/// held back for a batch), and each is the call the line changed.
fn updates_arrive_before_the_next_line(relative: &str) {
    let bytes = fixture(relative);
    let (updates, at_end) = updates_per_line(&bytes);
    let lines_with_updates = updates.iter().filter(|ids| !ids.is_empty()).count();
    assert!(
        lines_with_updates >= 3,
        "{relative}: updates on several lines"
    );
    let mut child = Command::new(env!("CARGO_BIN_EXE_toolnorm"))
        .args(["normalize", "--format", "updates", "-"])
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .stderr(Stdio::null())
        .spawn()
        .unwrap();
    let stdout = child.stdout.take().unwrap();
    let (sender, received) = mpsc::channel();
    let reader = std::thread::spawn(move || {
        for line in BufReader::new(stdout).lines() {
            if sender.send(line.unwrap()).is_err() {
                break;
            }
        }
    });
    let mut stdin = child.stdin.take().unwrap();
    for (number, line) in bytes.split(|&byte| byte == b'\n').enumerate() {
        if line.is_empty() {
            continue;
        }
        stdin.write_all(line).unwrap();
        stdin.write_all(b"\n").unwrap();
        stdin.flush().unwrap();
        for id in &updates[number] {
            let output = received.recv_timeout(TIMEOUT).unwrap_or_else(|_| {
                panic!(
                    "updates {relative}: an update of line {} not written after {TIMEOUT:?}",
                    number + 1
                )
            });
            let part: serde_json::Value = serde_json::from_str(&output).unwrap();
            assert_eq!(part["id"], id.as_str(), "line {}: {output}", number + 1);
        }
        // Nothing more than the line's own updates came out before the next is written.
        std::thread::sleep(Duration::from_millis(5));
        let early: Vec<String> = received.try_iter().collect();
        assert!(
            early.is_empty(),
            "updates {relative}: line {} gave more than its updates: {early:?}",
            number + 1
        );
    }
    drop(stdin);
    assert!(child.wait().unwrap().success());
    reader.join().unwrap();
    assert_eq!(received.try_iter().count(), at_end, "{relative}");
}

#[test]
fn each_lines_updates_are_written_before_the_next_line_is_read() {
    updates_arrive_before_the_next_line("claude-code/partial-input.jsonl");
    updates_arrive_before_the_next_line("codex-exec/parallel.jsonl");
    updates_arrive_before_the_next_line("codex-app-server/shell-stream.jsonl");
}
