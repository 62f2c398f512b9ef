//! Joining a stream in the middle: a UI that attaches to a running agent sees updates of
//! calls whose start it never saw. When the update says what the call is, the call is
//! opened from it, with a notice, instead of being rejected.
#![allow(clippy::unwrap_used, clippy::expect_used)]

use crate::common;

use toolnorm::ToolState;
use toolnorm_adapters::{Dialect, Severity};

/// The recording from the first line that mentions `marker` on.
fn from(relative: &str, marker: &str) -> String {
    let text = std::fs::read_to_string(common::fixtures().join(relative)).unwrap();
    let start = text.find(marker).unwrap();
    let start = text[..start].rfind('\n').map_or(0, |newline| newline + 1);
    text[start..].to_owned()
}

#[test]
fn codex_app_server_output_deltas_open_their_call() {
    let text = from(
        "codex-app-server/shell-stream.jsonl",
        "item/commandExecution/outputDelta",
    );
    let (parts, diagnostics) = common::shown(Dialect::CODEX_APP_SERVER, &text);
    assert!(
        diagnostics
            .iter()
            .all(|(severity, _)| *severity == Severity::Notice),
        "{diagnostics:?}"
    );
    assert_eq!(diagnostics.len(), 1, "{diagnostics:?}");
    assert!(
        diagnostics[0].1.contains("`commandExecution` item"),
        "{diagnostics:?}"
    );
    let whole = common::fixture("codex-app-server/shell-stream.jsonl");
    assert_eq!(parts.len(), whole.len());
    let (joined, recorded) = (&parts[0], &whole[0]);
    assert_eq!(joined.id, recorded.id);
    assert_eq!(joined.state, ToolState::Complete);
    assert_eq!(joined.kind, recorded.kind);
    assert_eq!(joined.output, recorded.output);
}

#[test]
fn an_acp_update_without_its_tool_call_opens_the_call() {
    let text =
        std::fs::read_to_string(common::fixtures().join("claude-code-acp/shell-ok.jsonl")).unwrap();
    // A client that joined late sees neither the session's start (the answers to
    // `initialize` and `session/new`) nor the call's `tool_call`.
    let session_start = |line: &str| {
        line.contains(r#""result""#)
            && (line.contains(r#""protocolVersion""#) || line.contains(r#""sessionId""#))
            && !line.contains(r#""stopReason""#)
    };
    let without_start: String = text
        .lines()
        .filter(|line| !line.contains(r#""sessionUpdate":"tool_call""#) && !session_start(line))
        .map(|line| format!("{line}\n"))
        .collect();
    assert_ne!(
        without_start.len(),
        text.len(),
        "the recording has a tool_call"
    );
    let (parts, diagnostics) = common::shown(Dialect::ACP, &without_start);
    assert!(
        diagnostics
            .iter()
            .all(|(severity, _)| *severity == Severity::Notice),
        "{diagnostics:?}"
    );
    assert!(!diagnostics.is_empty());
    let whole = common::fixture("claude-code-acp/shell-ok.jsonl");
    assert_eq!(parts.len(), whole.len());
    assert_eq!(parts[0].id, whole[0].id);
    assert_eq!(parts[0].state, whole[0].state);
}

#[test]
fn a_cursor_completion_without_its_start_opens_the_call() {
    // Joined after the `started` line of the edit: its `completed` line repeats the
    // payload, so the call is opened from it, with a notice.
    let text = from(
        "cursor/tools.jsonl",
        r#""subtype":"completed","call_id":"call-5""#,
    );
    let (parts, diagnostics) = common::shown(Dialect::CURSOR, &text);
    assert_eq!(diagnostics.len(), 1, "{diagnostics:?}");
    assert_eq!(diagnostics[0].0, Severity::Notice);
    assert!(
        diagnostics[0].1.contains("completed without its start"),
        "{diagnostics:?}"
    );
    let whole = common::fixture("cursor/tools.jsonl");
    let joined = parts.iter().find(|part| part.id == "call-5").unwrap();
    let recorded = whole.iter().find(|part| part.id == "call-5").unwrap();
    assert_eq!(joined.state, ToolState::Complete);
    assert_eq!(joined.kind, recorded.kind);
    assert_eq!(joined.output, recorded.output);
    // Without the `init` line, the path is not made relative to its `cwd`.
    assert_eq!(joined.title, "Editing /workspace/note.txt");
    assert_eq!(recorded.title, "Editing note.txt");
    // The calls after it are read as in the whole stream.
    assert_eq!(parts.len(), whole.len() - 4);
}

#[test]
fn an_amp_stream_joined_after_its_init_is_still_amps() {
    // Every Amp line names its thread: a stream joined after `init` is detected all the
    // same, and read with Amp's rules.
    let text = from("amp/shell-exit-3.jsonl", r#""type":"assistant""#);
    let (parts, diagnostics) = common::normalize(text.as_bytes(), None);
    assert!(diagnostics.is_empty(), "{diagnostics:?}");
    // The same calls, but for the session the `init` line named.
    let whole = common::fixture("amp/shell-exit-3.jsonl");
    assert_eq!(parts.len(), whole.len());
    for (joined, recorded) in parts.iter().zip(&whole) {
        assert_eq!(
            (
                &joined.id,
                &joined.name,
                joined.kind,
                &joined.title,
                &joined.error
            ),
            (
                &recorded.id,
                &recorded.name,
                recorded.kind,
                &recorded.title,
                &recorded.error
            )
        );
        assert_eq!(joined.metadata.as_ref().unwrap()["provider"], "amp");
    }
    assert_eq!(parts[0].state, ToolState::Error);
    assert_eq!(
        parts[0]
            .error
            .as_ref()
            .and_then(|error| error.code.as_ref())
            .map(|code| code.as_str()),
        Some("exit_code")
    );
}

#[test]
fn cline_joined_late_reads_the_calls_it_sees() {
    // Joined after a command's message: its output lines name no call shown, and its
    // result opens the call it ends, from the result's header (the command) and text
    // (the output), under an id of its own; joined before it, the call is read whole.
    let whole = common::fixture("cline-json/shell-ok.jsonl");
    let late = from("cline-json/shell-ok.jsonl", "\"ask\":\"command_output\"");
    let (parts, diagnostics) = common::shown(Dialect::CLINE_JSON, &late);
    assert!(diagnostics.is_empty(), "{diagnostics:?}");
    assert_eq!(parts.len(), 1, "{parts:?}");
    assert_ne!(parts[0].id, whole[0].id);
    assert_eq!(parts[0].name, whole[0].name);
    assert_eq!(parts[0].state, ToolState::Complete);
    assert_eq!(parts[0].output, whole[0].output);
    assert_eq!(parts[0].input, whole[0].input);
    let early = from("cline-json/shell-ok.jsonl", "\"say\":\"command\"");
    let (parts, diagnostics) = common::shown(Dialect::CLINE_JSON, &early);
    assert!(diagnostics.is_empty(), "{diagnostics:?}");
    assert_eq!(parts.len(), 1, "{parts:?}");
    assert_eq!(parts[0].id, whole[0].id);
    assert_eq!(parts[0].state, ToolState::Complete);
    assert_eq!(parts[0].output, whole[0].output);
    assert_eq!(parts[0].input, whole[0].input);
}

#[test]
fn a_cline_sdk_stream_joined_late_opens_the_calls_it_sees() {
    // Joined after a command's `content_start`: its output chunks open the call, with a
    // notice, and its end completes it as recorded (but for the input, which only the
    // start holds); joined after the subagent's start, the child's call is read as
    // recorded, and the `spawn_agent` call is opened by its end.
    let whole = common::fixture("cline-sdk/shell-stream.jsonl");
    let late = from("cline-sdk/shell-stream.jsonl", r#""type":"content_update""#);
    let (parts, diagnostics) = common::shown(Dialect::CLINE_SDK, &late);
    assert!(
        diagnostics
            .iter()
            .all(|(severity, _)| *severity == Severity::Notice),
        "{diagnostics:?}"
    );
    assert_eq!(diagnostics.len(), 1, "{diagnostics:?}");
    assert_eq!(parts.len(), 1, "{parts:?}");
    assert_eq!(parts[0].id, whole[0].id);
    assert_eq!(parts[0].name, whole[0].name);
    assert_eq!(parts[0].state, ToolState::Complete);
    assert_eq!(parts[0].output, whole[0].output);
    let whole = common::fixture("cline-sdk/subagent.jsonl");
    let late = from("cline-sdk/subagent.jsonl", r#""parentAgentId":"agent_"#);
    let (parts, _) = common::shown(Dialect::CLINE_SDK, &late);
    let child = |parts: &[toolnorm::NormalizedToolPart]| {
        parts
            .iter()
            .find(|part| part.name == "run_commands")
            .map(|part| (part.id.clone(), part.state, part.output.clone()))
    };
    assert_eq!(child(&parts), child(&whole));
    assert!(
        parts
            .iter()
            .any(|part| part.name == "spawn_agent" && part.state == ToolState::Complete)
    );
}

#[test]
fn a_droid_stream_joined_after_its_init_line_reads_the_same_calls() {
    // A viewer that attaches to `droid exec` late misses the `init` line: the next lines
    // still say they are Droid's, and every call comes out as recorded.
    for (dialect, dir, marker) in [
        (Dialect::DROID, "droid", r#""type":"message""#),
        (Dialect::DROID_SESSION, "droid-session", r#""tool_use""#),
        (Dialect::DROID_RPC, "droid-rpc", r#""type":"tool_call""#),
    ] {
        let relative = format!("{dir}/parallel.jsonl");
        let text = from(&relative, marker);
        assert_eq!(
            toolnorm_adapters::detect_line(text.lines().next().unwrap().as_bytes()),
            Some(dialect),
            "{relative}"
        );
        let (parts, diagnostics) = common::shown(dialect, &text);
        assert!(diagnostics.is_empty(), "{relative}: {diagnostics:?}");
        let whole = common::fixture(&relative);
        assert_eq!(parts.len(), whole.len(), "{relative}");
        for (joined, recorded) in parts.iter().zip(&whole) {
            assert_eq!(joined.id, recorded.id);
            assert_eq!(joined.state, recorded.state);
            assert_eq!(joined.output, recorded.output);
        }
    }
}

#[test]
fn a_pi_stream_joined_while_a_command_runs_opens_the_call_from_its_update() {
    // `tool_execution_update` names the call's tool and arguments.
    let text = from("pi/shell-stream.jsonl", r#""type":"tool_execution_update""#);
    let (parts, diagnostics) = common::shown(Dialect::PI, &text);
    assert!(
        diagnostics
            .iter()
            .all(|(severity, _)| *severity == Severity::Notice),
        "{diagnostics:?}"
    );
    assert_eq!(diagnostics.len(), 1, "{diagnostics:?}");
    assert!(
        diagnostics[0]
            .1
            .contains("whose start the input does not hold"),
        "{diagnostics:?}"
    );
    let whole = common::fixture("pi/shell-stream.jsonl");
    assert_eq!(parts.len(), whole.len());
    let (joined, recorded) = (&parts[0], &whole[0]);
    assert_eq!(joined.id, recorded.id);
    assert_eq!(joined.state, ToolState::Complete);
    assert_eq!(joined.kind, recorded.kind);
    assert_eq!(joined.title, recorded.title);
    assert_eq!(joined.output, recorded.output);
}

#[test]
fn a_pi_session_file_joined_at_a_tool_result_opens_the_call_from_it() {
    // The result names the tool, not its arguments: the call is opened without them.
    let text = from("pi-session/shell-exit-3.jsonl", r#""role":"toolResult""#);
    let (parts, diagnostics) = common::shown(Dialect::PI_SESSION, &text);
    assert_eq!(diagnostics.len(), 1, "{diagnostics:?}");
    assert_eq!(diagnostics[0].0, Severity::Notice, "{diagnostics:?}");
    let whole = common::fixture("pi-session/shell-exit-3.jsonl");
    assert_eq!(parts.len(), whole.len());
    let (joined, recorded) = (&parts[0], &whole[0]);
    assert_eq!(joined.id, recorded.id);
    assert_eq!(joined.state, ToolState::Error);
    assert_eq!(joined.kind, recorded.kind);
    assert_eq!(joined.error, recorded.error);
}
