//! Claude Code session folders: a session's transcript and its subagents' transcripts
//! (`<session>/subagents/agent-*.jsonl`), read as one session.
#![allow(clippy::unwrap_used, clippy::expect_used)]

use std::path::{Path, PathBuf};

use serde_json::Value;

use crate::common::{root, toolnorm};

/// The session folders recorded, with the joined transcript of the same run.
const RUNS: &[(&str, &str)] = &[
    (
        "fixtures/claude-code-session/subagent",
        "fixtures/claude-code-transcript/subagent.jsonl",
    ),
    (
        "fixtures/claude-code-session@2.1.36/subagent",
        "fixtures/claude-code-transcript@2.1.36/subagent.jsonl",
    ),
];

/// The parts `toolnorm normalize ARGS` writes.
fn parts(args: &[&Path]) -> Vec<Value> {
    let output = toolnorm().arg("normalize").args(args).output().unwrap();
    assert!(
        output.status.success() && output.stderr.is_empty(),
        "{}",
        String::from_utf8_lossy(&output.stderr)
    );
    String::from_utf8(output.stdout)
        .unwrap()
        .lines()
        .map(|line| serde_json::from_str(line).unwrap())
        .collect()
}

/// What a call is: id, kind, state, parent.
fn calls(parts: &[Value]) -> Vec<[Value; 4]> {
    parts
        .iter()
        .map(|part| {
            [
                part["id"].clone(),
                part["kind"].clone(),
                part["state"].clone(),
                part["metadata"]["parentToolCallId"].clone(),
            ]
        })
        .collect()
}

/// The session's transcript in a recorded folder: its one `*.jsonl` file.
fn transcript(folder: &str) -> PathBuf {
    let mut found: Vec<PathBuf> = std::fs::read_dir(root().join(folder))
        .unwrap()
        .map(|entry| entry.unwrap().path())
        .filter(|path| path.is_file() && path.extension().is_some_and(|ext| ext == "jsonl"))
        .collect();
    assert_eq!(found.len(), 1, "{folder}");
    found.remove(0)
}

#[test]
fn a_folder_reads_as_its_joined_transcript_with_the_subagents_calls_inside_theirs() {
    for (folder, joined) in RUNS {
        let expected = parts(&[Path::new(joined)]);
        let from_folder = parts(&[Path::new(folder)]);
        assert_eq!(calls(&from_folder), calls(&expected), "{folder}");
        // The subagent's call is inside the call that spawned it.
        let spawner = from_folder
            .iter()
            .find(|part| part["kind"] == "subagent")
            .unwrap();
        let inside: Vec<&Value> = from_folder
            .iter()
            .filter(|part| part["metadata"]["parentToolCallId"] == spawner["id"])
            .collect();
        assert!(!inside.is_empty(), "{folder}: no call inside the subagent");
        // Every call is the session's: its transcript is the source.
        let main = transcript(folder);
        let source = Path::new(folder)
            .join(main.file_name().unwrap())
            .display()
            .to_string();
        for part in &from_folder {
            assert_eq!(part["metadata"]["source"], Value::from(source.clone()));
        }
    }
}

#[test]
fn the_transcript_named_brings_its_subagents_unless_told_not_to() {
    for (folder, joined) in RUNS {
        let main = transcript(folder);
        let expected = parts(&[Path::new(joined)]);
        // Read alone, as one file: the same parts as the joined transcript, byte for byte
        // (the recorder joins the files in this order).
        assert_eq!(parts(&[&main]), expected, "{folder}");
        // The session's own folder named: the same session.
        let own = main.with_extension("");
        assert_eq!(calls(&parts(&[&own])), calls(&expected), "{folder}");
        // `--no-siblings`: the transcript alone, without the subagent's calls.
        let output = toolnorm()
            .args(["normalize", "--no-siblings"])
            .arg(&main)
            .output()
            .unwrap();
        let alone = String::from_utf8(output.stdout).unwrap();
        assert_eq!(alone.lines().count(), expected.len() - 1, "{folder}");
    }
}

#[test]
fn diagnostics_name_the_subagents_file_and_its_own_line() {
    let scratch = PathBuf::from(env!("CARGO_TARGET_TMPDIR")).join("session");
    let _ = std::fs::remove_dir_all(&scratch);
    let (folder, _) = RUNS[0];
    let main = transcript(folder);
    let name = main.file_name().unwrap();
    std::fs::create_dir_all(scratch.join(name).with_extension("").join("subagents")).unwrap();
    let copy = scratch.join(name);
    std::fs::copy(&main, &copy).unwrap();
    let subagents = main.with_extension("").join("subagents");
    let mut agent = None;
    for entry in std::fs::read_dir(&subagents).unwrap() {
        let path = entry.unwrap().path();
        let to = copy
            .with_extension("")
            .join("subagents")
            .join(path.file_name().unwrap());
        std::fs::copy(&path, &to).unwrap();
        if to.extension().is_some_and(|ext| ext == "jsonl") {
            agent = Some(to);
        }
    }
    let agent = agent.unwrap();
    // The subagent's transcript ends with a line cut short.
    let mut text = std::fs::read_to_string(&agent).unwrap();
    let lines = text.lines().count();
    text.push_str("{not json");
    std::fs::write(&agent, text).unwrap();
    let output = toolnorm().arg("normalize").arg(&copy).output().unwrap();
    let stderr = String::from_utf8(output.stderr).unwrap();
    assert!(
        stderr.starts_with(&format!("{}: line {}: ", agent.display(), lines + 1)),
        "{stderr}"
    );
    // The calls are all there all the same.
    let stdout = String::from_utf8(output.stdout).unwrap();
    assert_eq!(stdout.lines().count(), 2);
    // The audit file names the file and the line in it.
    let audit = scratch.join("audit.tsv");
    toolnorm()
        .arg("normalize")
        .arg("--audit")
        .arg(&audit)
        .arg(&copy)
        .output()
        .unwrap();
    assert_eq!(
        std::fs::read_to_string(&audit).unwrap(),
        format!("{}\t{}\t{{not json\n", agent.display(), lines + 1)
    );
}

#[test]
fn view_and_stats_read_a_session_folder_as_one_session() {
    let output = toolnorm()
        .args(["stats", "--json", "fixtures/claude-code-session"])
        .output()
        .unwrap();
    assert!(output.status.success());
    let report: Value = serde_json::from_slice(&output.stdout).unwrap();
    let (folder, joined) = RUNS[0];
    assert_eq!(report["sessions"], 1);
    assert_eq!(report["calls"], parts(&[Path::new(joined)]).len());
    let output = toolnorm()
        .args(["view", "-o", "-", folder])
        .output()
        .unwrap();
    assert!(output.status.success());
    let page = String::from_utf8(output.stdout).unwrap();
    assert!(page.contains(r#""parentToolCallId":"toolu_mock_1_1""#));
}
