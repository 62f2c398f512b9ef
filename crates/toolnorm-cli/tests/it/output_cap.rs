//! `--output-cap`: without it a huge final output is passed whole; with it the output is
//! cut, in every format, with the truncation flags and the size in full.
#![allow(clippy::unwrap_used, clippy::expect_used)]

use std::path::PathBuf;

use assert_cmd::Command;
use serde_json::Value;

/// A recorded Claude Code session whose one command printed `output` (in the tool
/// result's content and in its `stdout`, as Claude Code writes both).
fn session_with_output(name: &str, output: &str) -> PathBuf {
    let fixture =
        PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("../../fixtures/claude-code/shell-ok.jsonl");
    let text = std::fs::read_to_string(fixture).unwrap();
    let path = std::env::temp_dir().join(format!(
        "toolnorm-output-cap-{name}-{}.jsonl",
        std::process::id()
    ));
    // The quoted string is the output; the command (`echo hello from the shell`) stays.
    let quoted = format!("\"{output}\"");
    std::fs::write(&path, text.replace("\"hello from the shell\"", &quoted)).unwrap();
    path
}

fn normalize(args: &[&str], input: &PathBuf) -> Vec<Value> {
    let output = Command::cargo_bin("toolnorm")
        .unwrap()
        .args(["normalize", "--strict"])
        .args(args)
        .arg(input)
        .output()
        .unwrap();
    assert!(
        output.status.success(),
        "{args:?}: {}",
        String::from_utf8_lossy(&output.stderr)
    );
    String::from_utf8(output.stdout)
        .unwrap()
        .lines()
        .map(|line| serde_json::from_str(line).unwrap())
        .collect()
}

/// The one part of the Bash call.
fn bash(parts: &[Value]) -> &Value {
    let bash: Vec<&Value> = parts.iter().filter(|part| part["name"] == "Bash").collect();
    assert_eq!(bash.len(), 1, "one call, never lost, never two");
    bash[0]
}

#[test]
fn a_huge_output_is_whole_without_a_cap_and_cut_with_one() {
    // 15 MB on one line of 30 MB: read as a stream, past the 1 MiB of a long line.
    let big = "0123456789abcdé".repeat(1_000_000);
    let input = session_with_output("big", &big);

    let whole = normalize(&[], &input);
    let part = bash(&whole);
    assert_eq!(part["output"].as_str().map(str::len), Some(big.len()));
    assert_eq!(part["output"].as_str(), Some(big.as_str()));
    assert!(part["metadata"].get("outputTruncated").is_none());

    let cut = normalize(&["--output-cap", "1007"], &input);
    let part = bash(&cut);
    assert_eq!(part["state"], "complete");
    // Cut on a character boundary: byte 1007 is the second of an `é`.
    let kept = &big[..big.floor_char_boundary(1007)];
    assert_eq!(kept.len(), 1006);
    assert_eq!(part["output"].as_str(), Some(kept));
    assert_eq!(part["metadata"]["outputTruncated"], true);
    assert_eq!(part["metadata"]["outputTotalBytes"], big.len());
    assert_eq!(part["metadata"]["outputCapBytes"], 1007);
    // The rest of the call is as without the cap.
    let uncut = bash(&whole);
    for field in ["id", "kind", "title", "input", "timing"] {
        assert_eq!(part[field], uncut[field], "{field}");
    }

    // Every format carries the cut output, none the whole one.
    for format in ["updates", "events", "acp", "ai-sdk", "ag-ui"] {
        let lines = normalize(&["--output-cap", "1007", "--format", format], &input);
        let text: String = lines.iter().map(Value::to_string).collect();
        assert!(text.len() < 100_000, "{format}: {} bytes", text.len());
        assert!(text.contains(&kept[kept.len() - 20..]), "{format}");
    }
    let updates = normalize(&["--output-cap", "1007", "--format", "updates"], &input);
    let last = updates.last().unwrap();
    assert_eq!(last["metadata"]["outputTotalBytes"], big.len());
    let events = normalize(&["--output-cap", "1007", "--format", "events"], &input);
    let merged: Vec<&Value> = events
        .iter()
        .filter(|event| {
            event["type"] == "metadataMerged" && event["metadata"]["outputTruncated"] == true
        })
        .collect();
    assert_eq!(merged.len(), 1, "the flags, once, before the call ends");
    assert_eq!(merged[0]["metadata"]["outputTotalBytes"], big.len());
    std::fs::remove_file(&input).ok();
}

#[test]
fn a_cap_cuts_a_short_line_too_and_a_small_output_not_at_all() {
    let input = session_with_output("short", &"y".repeat(5000));
    let part = bash(&normalize(&["--output-cap", "1000"], &input)).clone();
    assert_eq!(part["output"].as_str().map(str::len), Some(1000));
    assert_eq!(part["metadata"]["outputTotalBytes"], 5000);
    let part = bash(&normalize(&["--output-cap", "5000"], &input)).clone();
    assert_eq!(part["output"].as_str().map(str::len), Some(5000));
    assert!(part["metadata"].get("outputTruncated").is_none());
    std::fs::remove_file(&input).ok();
}
