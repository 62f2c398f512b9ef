//! `--format acp` and `--provider acp` as a user runs them.
#![allow(clippy::unwrap_used, clippy::expect_used)]

use std::collections::BTreeSet;
use std::path::PathBuf;

use assert_cmd::Command;
use serde_json::Value;

fn fixture(relative: &str) -> PathBuf {
    PathBuf::from(env!("CARGO_MANIFEST_DIR"))
        .join("../../fixtures")
        .join(relative)
}

fn toolnorm() -> Command {
    Command::cargo_bin("toolnorm").unwrap()
}

fn lines(bytes: &[u8]) -> Vec<Value> {
    String::from_utf8(bytes.to_vec())
        .unwrap()
        .lines()
        .map(|line| serde_json::from_str(line).unwrap())
        .collect()
}

#[test]
fn acp_frames_out_and_back_in_give_the_same_parts() {
    let input = fixture("codex-app-server/edit-file.jsonl");
    let acp = toolnorm()
        .args(["normalize", "--format", "acp", "--session-id", "sess-7"])
        .arg(&input)
        .output()
        .unwrap();
    assert!(acp.status.success());
    assert!(acp.stderr.is_empty());
    let frames = lines(&acp.stdout);
    let mut started = BTreeSet::new();
    for frame in &frames {
        assert_eq!(frame["jsonrpc"], "2.0");
        assert_eq!(frame["method"], "session/update");
        assert_eq!(frame["params"]["sessionId"], "sess-7");
        let update = &frame["params"]["update"];
        let id = update["toolCallId"].as_str().unwrap().to_owned();
        match update["sessionUpdate"].as_str().unwrap() {
            "tool_call" => assert!(started.insert(id), "a second tool_call"),
            "tool_call_update" => assert!(started.contains(&id), "an update first"),
            other => panic!("{other}"),
        }
    }
    assert!(!started.is_empty());

    let back = toolnorm()
        .args(["normalize", "--strict", "--provider", "acp", "-"])
        .write_stdin(acp.stdout.clone())
        .output()
        .unwrap();
    assert!(
        back.status.success(),
        "{}",
        String::from_utf8_lossy(&back.stderr)
    );
    let direct = toolnorm().args(["normalize"]).arg(&input).output().unwrap();
    assert_eq!(lines(&back.stdout), lines(&direct.stdout));
}
