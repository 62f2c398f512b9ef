//! Several sessions in one stream: recordings concatenated give the parts of each
//! recording, none lost, even where their call ids repeat (`codex exec` numbers its items
//! `item_0`, … in every run; recordings of one scenario reuse ids), in every dialect,
//! those whose sessions interleave in one stream (OpenCode's child sessions, ACP
//! sessions, Codex app-server threads) included.
#![allow(clippy::unwrap_used, clippy::expect_used)]

use crate::common;

use std::collections::BTreeSet;

use serde_json::Value;
use toolnorm::NormalizedToolPart;

/// What a part says, beside its id and the metadata that names its session.
fn essence(part: &NormalizedToolPart) -> Value {
    let mut value = serde_json::to_value(part).unwrap();
    let object = value.as_object_mut().unwrap();
    object.remove("id");
    if let Some(Value::Object(metadata)) = object.get_mut("metadata") {
        metadata.shift_remove("sessionId");
        metadata.shift_remove("rawId");
    }
    value
}

/// Concatenates the recordings of `dir` (with `distinct` turning each file's session id
/// into one of its own, as two real sessions have) and checks every recording's parts come
/// out, each once.
fn concatenated(dir: &str, distinct: impl Fn(usize, &str) -> String) {
    let files = common::recordings(dir);
    let mut stream = String::new();
    let mut expected = Vec::new();
    for (index, (name, text)) in files.iter().enumerate() {
        let text = distinct(index, text);
        let (parts, diagnostics) = common::normalize(text.as_bytes(), None);
        assert!(diagnostics.is_empty(), "{dir}/{name}: {diagnostics:?}");
        expected.extend(parts.iter().map(essence));
        stream.push_str(&text);
    }
    let (parts, diagnostics) = common::normalize(stream.as_bytes(), None);
    assert!(diagnostics.is_empty(), "{dir}: {diagnostics:#?}");
    let ids: BTreeSet<&str> = parts.iter().map(|part| part.id.as_str()).collect();
    assert_eq!(ids.len(), parts.len(), "{dir}: a part id appears twice");
    let got: Vec<Value> = parts.iter().map(essence).collect();
    let mut got_sorted: Vec<String> = got.iter().map(Value::to_string).collect();
    let mut expected_sorted: Vec<String> = expected.iter().map(Value::to_string).collect();
    got_sorted.sort();
    expected_sorted.sort();
    assert_eq!(got_sorted, expected_sorted, "{dir}: the parts differ");
    // A renamed part says which raw id it had, and names its session's number.
    for part in &parts {
        if let Some((raw, number)) = part.id.split_once('~') {
            let metadata = part.metadata.as_ref().unwrap();
            assert_eq!(metadata["rawId"], raw, "{dir}: {}", part.id);
            assert!(number.parse::<u32>().unwrap() >= 2, "{dir}: {}", part.id);
        }
    }
}

/// Each recording's session ids made its own (recorded sessions are numbered alike).
fn own_sessions(index: usize, text: &str) -> String {
    text.replace(
        "00000000-0000-4000-8000-0000000000",
        &format!("00000000-0000-4000-9{index:03}-0000000000"),
    )
    .replace(
        "ses_000000000000000000000000",
        &format!("ses_{index:04}00000000000000000000"),
    )
}

#[test]
fn claude_code_runs_concatenated_keep_every_call() {
    // Every `claude -p` run begins with `system` `init`, whatever its session id.
    concatenated("claude-code", |_, text| text.to_owned());
}

#[test]
fn claude_code_transcripts_concatenated_keep_every_call() {
    concatenated("claude-code-transcript", own_sessions);
}

#[test]
fn codex_exec_runs_concatenated_keep_every_call() {
    // `codex exec`, then `codex exec resume`: every run numbers its items from `item_0`.
    concatenated("codex-exec", |_, text| text.to_owned());
}

#[test]
fn a_repeated_id_in_a_later_run_is_its_own_call() {
    let run =
        std::fs::read_to_string(common::fixtures().join("codex-exec/shell-ok.jsonl")).unwrap();
    let (parts, diagnostics) = common::normalize(format!("{run}{run}").as_bytes(), None);
    assert!(diagnostics.is_empty(), "{diagnostics:?}");
    let ids: Vec<&str> = parts.iter().map(|part| part.id.as_str()).collect();
    assert_eq!(ids, ["item_0", "item_0~2"]);
    assert_eq!(parts[1].metadata.as_ref().unwrap()["rawId"], "item_0");
    assert_eq!(essence(&parts[0]), essence(&parts[1]));
}

#[test]
fn codex_app_server_runs_concatenated_keep_every_call() {
    for dir in [
        "codex-app-server",
        "codex-app-server@0.118.0",
        "codex-app-server@0.142.0",
    ] {
        concatenated(dir, own_sessions);
    }
}

#[test]
fn opencode_sessions_concatenated_keep_every_call() {
    for dir in [
        "opencode-serve",
        "opencode-serve-global",
        "opencode-export",
        "opencode-run",
        "opencode-serve@1.1.53",
        "opencode-run@1.1.53",
    ] {
        concatenated(dir, own_sessions);
    }
}

#[test]
fn acp_sessions_concatenated_keep_every_call() {
    for dir in [
        "claude-code-acp",
        "claude-code-zed-acp",
        "codex-acp",
        "opencode-acp",
    ] {
        concatenated(dir, own_sessions);
    }
}

/// Two recordings of `dir`, each with a session id of its own, interleaved line by line
/// (two threads of one server): each call comes out once, as its own recording has it.
fn interleaved(dir: &str, first: &str, second: &str) {
    let read = |name: &str, index: usize| {
        let text = std::fs::read_to_string(common::fixtures().join(dir).join(name)).unwrap();
        own_sessions(index, &text)
    };
    let (a, b) = (read(first, 0), read(second, 1));
    let mut expected = Vec::new();
    for text in [&a, &b] {
        let (parts, diagnostics) = common::normalize(text.as_bytes(), None);
        assert!(diagnostics.is_empty(), "{dir}: {diagnostics:?}");
        expected.extend(parts.iter().map(|part| essence(part).to_string()));
    }
    let (mut a_lines, mut b_lines) = (a.lines(), b.lines());
    let mut stream = String::new();
    loop {
        let (x, y) = (a_lines.next(), b_lines.next());
        if x.is_none() && y.is_none() {
            break;
        }
        for line in [x, y].into_iter().flatten() {
            stream.push_str(line);
            stream.push('\n');
        }
    }
    let (parts, diagnostics) = common::normalize(stream.as_bytes(), None);
    assert!(diagnostics.is_empty(), "{dir}: {diagnostics:#?}");
    let ids: BTreeSet<&str> = parts.iter().map(|part| part.id.as_str()).collect();
    assert_eq!(ids.len(), parts.len(), "{dir}: a part id appears twice");
    let mut got: Vec<String> = parts.iter().map(|part| essence(part).to_string()).collect();
    got.sort();
    expected.sort();
    assert_eq!(got, expected, "{dir}: the parts differ");
}

#[test]
fn interleaved_threads_with_the_same_call_ids_keep_every_call() {
    // Both recordings name their first command `call_mock_1_1`.
    interleaved("codex-app-server", "shell-ok.jsonl", "shell-exit-3.jsonl");
    interleaved(
        "codex-app-server",
        "read-file.jsonl",
        "permission-denied.jsonl",
    );
    interleaved("opencode-serve", "shell-ok.jsonl", "subagent.jsonl");
    interleaved("codex-acp", "shell-ok.jsonl", "read-file.jsonl");
}

#[test]
fn session_files_and_newer_dialects_concatenated_keep_every_call() {
    for dir in [
        "codex-rollout",
        "codex-rollout@0.142.0",
        "gemini-cli",
        "gemini-cli@0.44.0",
        "gemini-cli-session",
        "gemini-cli-session@0.44.0",
        "qwen-code",
        "qwen-code@0.15.10",
        "qwen-code-session",
        "qwen-code-session@0.15.10",
        "claude-code@2.1.36",
        "claude-code-transcript@2.1.36",
        "codex-exec@0.142.0",
        "opencode-export@1.17.19",
        "opencode-serve@1.17.19",
        "cursor",
        "amp",
        "amp@0.0.1767830505-ga62310",
        "droid",
        "droid@0.215.0",
        "droid-session",
        "droid-session@0.215.0",
        "droid-rpc",
        "droid-rpc@0.215.0",
        "copilot-session",
        "copilot-session@1.0.82",
        "pi",
        "pi@0.52.12",
        "pi-session",
        "pi-session@0.52.12",
    ] {
        concatenated(dir, own_sessions);
    }
}

#[test]
fn copilot_runs_concatenated_keep_every_call() {
    // A `copilot -p --output-format json` stream names its session only in its last line
    // (`result`): the next run's calls, whatever their ids, are calls of their own.
    for dir in ["copilot", "copilot@1.0.82"] {
        concatenated(dir, |_, text| text.to_owned());
    }
}

#[test]
fn cline_tasks_concatenated_keep_every_call() {
    // Every `cline --json` run starts with its `task_started` line, and every task file
    // is a line of its own: the same ids in the next run are calls of their own.
    for dir in ["cline-json", "cline-task"] {
        concatenated(dir, |_, text| text.to_owned());
    }
}

#[test]
fn cline_sdk_runs_concatenated_keep_every_call() {
    // Every `cline --json` (3.x) run starts with its lead agent's `agent_start` hook, and
    // every session file is a document of its own: the same ids in the next run (the mock
    // model's `call_mock_1_1`) are calls of their own.
    for dir in [
        "cline-sdk",
        "cline-sdk-session",
        "cline-sdk@3.0.57",
        "cline-sdk-session@3.0.57",
    ] {
        concatenated(dir, |_, text| text.to_owned());
    }
}

#[test]
fn recordings_concatenated_without_their_last_newline_keep_every_call() {
    // `cat` of files that do not end with a newline: each file's last line and the next
    // file's first share a line, read as the two events they are.
    for dir in [
        "claude-code",
        "claude-code-transcript",
        "codex-exec",
        "codex-rollout",
        "gemini-cli",
        "gemini-cli-session",
        "opencode-serve",
        "claude-code-acp",
        "cursor",
        "amp",
        "copilot-session",
    ] {
        let files = common::recordings(dir);
        let texts: Vec<String> = files
            .iter()
            .enumerate()
            .map(|(index, (_, text))| own_sessions(index, text))
            .collect();
        let (expected, diagnostics) = common::normalize(texts.concat().as_bytes(), None);
        assert!(diagnostics.is_empty(), "{dir}: {diagnostics:?}");
        let glued: String = texts
            .iter()
            .map(|text| text.trim_end_matches('\n'))
            .collect();
        let (parts, diagnostics) = common::normalize(glued.as_bytes(), None);
        let essences = |parts: &[NormalizedToolPart]| -> Vec<String> {
            parts.iter().map(|part| essence(part).to_string()).collect()
        };
        assert_eq!(essences(&parts), essences(&expected), "{dir}");
        assert_eq!(
            diagnostics.len(),
            files.len() - 1,
            "{dir}: {diagnostics:#?}"
        );
        assert!(
            diagnostics
                .iter()
                .all(|d| d.message.starts_with("2 JSON objects on one line")),
            "{dir}: {diagnostics:#?}"
        );
    }
}
