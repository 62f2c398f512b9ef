//! ACP from other agents: ingest reads what they send and invents nothing.
#![allow(clippy::unwrap_used, clippy::expect_used)]

use crate::common;

use serde_json::{Value, json};
use toolnorm::{NormalizedToolPart, ToolKind};
use toolnorm_adapters::Dialect;

fn update(update: Value) -> Value {
    json!({"jsonrpc": "2.0", "method": "session/update",
        "params": {"sessionId": "s1", "update": update}})
}

fn one(frames: &[Value]) -> NormalizedToolPart {
    let parts = common::lines(Dialect::ACP, frames);
    assert_eq!(parts.len(), 1, "{parts:#?}");
    parts.into_iter().next().unwrap()
}

#[test]
fn a_title_with_spaces_is_never_split_into_an_mcp_server_and_tool() {
    let part = one(&[update(
        json!({"sessionUpdate": "tool_call", "toolCallId": "c1",
        "title": "Read notes_2026.txt", "status": "pending"}),
    )]);
    // A title is not a name: with no kind either, the call is a `tool`.
    assert_eq!(part.name, "tool");
    assert_eq!(part.title, "Read notes_2026.txt");
    assert_ne!(part.kind, ToolKind::Mcp);
    assert!(!part.metadata.unwrap().contains_key("mcp"));
}

#[test]
fn a_call_with_no_title_or_name_is_named_after_its_kind_not_its_id() {
    let part = one(&[update(
        json!({"sessionUpdate": "tool_call", "toolCallId": "call_abc123",
        "title": "", "kind": "execute", "status": "pending", "rawInput": {"command": "ls"}}),
    )]);
    assert_eq!(part.name, "execute");
    assert_eq!(part.kind, ToolKind::Bash);
    assert!(!part.title.contains("call_abc123"), "{}", part.title);
}

#[test]
fn a_name_comes_from_what_the_agent_says_of_its_tool_never_its_title() {
    let named = |call: Value| {
        let mut frame = json!({"sessionUpdate": "tool_call", "status": "in_progress"});
        frame
            .as_object_mut()
            .unwrap()
            .extend(call.as_object().unwrap().clone());
        let part = one(&[update(frame)]);
        (part.name, part.kind, part.title)
    };
    // Gemini CLI: no name, no input; the id is made from the tool's name.
    for id in ["write_file-1759000000000-3", "write_file__call_7"] {
        assert_eq!(
            named(
                json!({"toolCallId": id, "title": "Writing to mandelbrot.py",
                "kind": "edit"})
            ),
            (
                "write_file".to_owned(),
                ToolKind::FileWrite,
                "Writing to mandelbrot.py".to_owned()
            ),
            "{id}"
        );
    }
    // Its MCP tools, `mcp_<server>_<tool>`; a built-in of some provider is no MCP tool.
    let (name, kind, title) = named(json!({"toolCallId": "mcp_toolbox_echo__c1",
        "title": "echo (toolbox MCP Server)", "kind": "other"}));
    assert_eq!(
        (name.as_str(), kind, title.as_str()),
        ("mcp_toolbox_echo", ToolKind::Mcp, "Echoing")
    );
    let (name, kind, title) = named(json!({"toolCallId": "write_todos__c1",
        "title": "Set 3 todo(s)", "kind": "other"}));
    assert_eq!(
        (name.as_str(), kind, title.as_str()),
        ("write_todos", ToolKind::Todo, "Set 3 todo(s)")
    );
    // Qwen Code: `_meta.toolName` at the top of its `_meta`.
    let (name, kind, title) = named(json!({"toolCallId": "call_1", "title": "ReadFile: a.txt",
        "kind": "read", "rawInput": {"absolute_path": "/w/a.txt"},
        "_meta": {"toolName": "read_file", "provenance": "builtin"}}));
    assert_eq!(
        (name.as_str(), kind, title.as_str()),
        ("read_file", ToolKind::FileRead, "Reading /w/a.txt")
    );
    // OpenCode: a first title that is a bare tool name.
    assert_eq!(
        named(
            json!({"toolCallId": "call_2", "title": "bash", "kind": "execute",
            "rawInput": {}})
        )
        .0,
        "bash"
    );
    // Codex's adapter names nothing: the kind stands in, the title stays a title.
    let (name, kind, title) = named(json!({"toolCallId": "call_3", "title": "Read notes.txt",
        "kind": "read", "rawInput": {"parsed_cmd": [{"type": "read", "path": "notes.txt"}]}}));
    assert_eq!(
        (name.as_str(), kind, title.as_str()),
        ("read", ToolKind::FileRead, "Reading notes.txt")
    );
    // A bare title that is the file the call works on is no tool name.
    let (name, _, title) = named(json!({"toolCallId": "call_4", "title": "Makefile",
        "kind": "read", "locations": [{"path": "/w/Makefile"}]}));
    assert_eq!(
        (name.as_str(), title.as_str()),
        ("read", "Reading /w/Makefile")
    );
}

#[test]
fn a_subagents_call_names_its_parent_at_the_top_of_meta() {
    let part = one(&[update(
        json!({"sessionUpdate": "tool_call", "toolCallId": "c9",
        "title": "Shell", "kind": "execute", "status": "pending", "rawInput": {"command": "ls"},
        "_meta": {"toolName": "run_shell_command", "parentToolCallId": "agent_1"}}),
    )]);
    assert_eq!(part.name, "run_shell_command");
    assert_eq!(part.metadata.unwrap()["parentToolCallId"], "agent_1");
}

#[test]
fn an_update_of_a_call_never_started_is_a_notice_only_in_a_stream_joined_late() {
    // Gemini CLI announces a call its policy refused only by its failed update.
    let refused = update(json!({"sessionUpdate": "tool_call_update",
        "toolCallId": "run_shell_command__c1", "status": "failed", "kind": "execute",
        "content": [{"type": "content", "content": {"type": "text",
            "text": "Tool execution for \"Shell\" denied by policy."}}]}));
    let started = json!({"jsonrpc": "2.0", "id": 2, "result": {"sessionId": "s1"}});
    let text = |lines: &[&Value]| -> String { lines.iter().map(|l| format!("{l}\n")).collect() };
    let (parts, diagnostics) =
        common::normalize(text(&[&started, &refused]).as_bytes(), Some(Dialect::ACP));
    assert!(diagnostics.is_empty(), "{diagnostics:?}");
    let error = parts[0].error.as_ref().unwrap();
    assert_eq!(
        error.code.as_ref().map(toolnorm::ErrorCode::as_str),
        Some("permission_denied")
    );
    let (parts, diagnostics) = common::normalize(text(&[&refused]).as_bytes(), Some(Dialect::ACP));
    assert_eq!(parts.len(), 1);
    assert_eq!(diagnostics.len(), 1, "{diagnostics:?}");
}

#[test]
fn an_mcp_marker_in_the_agents_meta_wins_over_the_acp_kind() {
    let part = one(&[update(
        json!({"sessionUpdate": "tool_call", "toolCallId": "c2",
        "title": "toolbox_echo", "kind": "fetch", "status": "pending",
        "_meta": {"codex": {"is_mcp_tool_call": true}}}),
    )]);
    assert_eq!(part.kind, ToolKind::Mcp);
    assert_eq!(
        part.metadata.unwrap()["mcp"],
        json!({"server": "toolbox", "tool": "echo"})
    );
}

#[test]
fn spawn_agent_calls_are_subagents() {
    for (name, title) in [
        ("spawnAgent", "Spawn"),
        ("x", "Start subagent: count files"),
    ] {
        let part = one(&[update(
            json!({"sessionUpdate": "tool_call", "toolCallId": "c3",
            "title": title, "kind": "think", "status": "pending",
            "_meta": {"agent": {"toolName": name}}}),
        )]);
        assert_eq!(part.kind, ToolKind::Subagent, "{name} / {title}");
    }
}

#[test]
fn a_snake_case_exit_code_is_an_exit_code() {
    let parts = common::lines(
        Dialect::ACP,
        &[
            update(
                json!({"sessionUpdate": "tool_call", "toolCallId": "c4", "title": "false",
                "kind": "execute", "status": "pending", "rawInput": {"command": "false"}}),
            ),
            update(
                json!({"sessionUpdate": "tool_call_update", "toolCallId": "c4",
                "status": "completed", "rawOutput": {"exit_code": 1, "output": ""}}),
            ),
        ],
    );
    let error = parts[0].error.as_ref().unwrap();
    assert_eq!(
        error.code.as_ref().map(toolnorm::ErrorCode::as_str),
        Some("exit_code")
    );
}

#[test]
fn another_agents_empty_title_does_not_erase_the_title() {
    let parts = common::lines(
        Dialect::ACP,
        &[
            update(json!({"sessionUpdate": "tool_call", "toolCallId": "c5",
                "title": "Weighing the options", "kind": "think", "status": "pending"})),
            update(
                json!({"sessionUpdate": "tool_call_update", "toolCallId": "c5",
                "title": "", "status": "completed", "rawOutput": "echo: hi"}),
            ),
        ],
    );
    assert_eq!(parts[0].title, "Weighing the options");
}

#[test]
fn an_mcp_call_whose_input_names_server_and_tool_is_mcp() {
    // Codex's ACP adapter: no kind, `Tool: server/tool`, `rawInput` {server, tool, arguments}.
    let parts = common::lines(
        Dialect::ACP,
        &[
            update(json!({"sessionUpdate": "tool_call", "toolCallId": "c6",
                "title": "Tool: toolbox/divide", "status": "in_progress",
                "rawInput": {"server": "toolbox", "tool": "divide", "arguments": {"a": 1, "b": 0}}})),
            update(
                json!({"sessionUpdate": "tool_call_update", "toolCallId": "c6",
                "status": "failed",
                "content": [{"type": "content", "content": {"type": "text", "text": "division by zero"}}],
                "rawOutput": {"content": [{"type": "text", "text": "division by zero"}], "isError": true}}),
            ),
        ],
    );
    let part = &parts[0];
    assert_eq!(part.kind, ToolKind::Mcp);
    assert_eq!(part.name, "divide");
    // toolnorm's title of the MCP tool, not the agent's wording.
    assert_eq!(part.title, "Dividing");
    assert_eq!(
        part.metadata.as_ref().unwrap()["mcp"],
        json!({"server": "toolbox", "tool": "divide"})
    );
    let error = part.error.as_ref().unwrap();
    assert_eq!(
        error.code.as_ref().map(toolnorm::ErrorCode::as_str),
        Some("mcp_error")
    );
}

#[test]
fn a_failed_command_with_its_exit_status_in_raw_output_is_an_exit_code() {
    // Codex's ACP adapter: `status: failed`, the exit status and output in `rawOutput`,
    // no content; a `cat` is given the kind `read`.
    let parts = common::lines(
        Dialect::ACP,
        &[
            update(json!({"sessionUpdate": "tool_call", "toolCallId": "c7",
                "title": "Read missing.txt", "kind": "read", "status": "in_progress",
                "rawInput": {"command": ["/bin/bash", "-lc", "cat missing.txt"]}})),
            update(
                json!({"sessionUpdate": "tool_call_update", "toolCallId": "c7",
                "status": "failed",
                "rawOutput": {"exit_code": 1, "stdout": "",
                    "aggregated_output": "cat: missing.txt: No such file or directory\n"}}),
            ),
        ],
    );
    let error = parts[0].error.as_ref().unwrap();
    assert_eq!(
        error.code.as_ref().map(toolnorm::ErrorCode::as_str),
        Some("exit_code")
    );
    assert_eq!(error.message, "Exit code 1");
    assert_eq!(
        error.details.as_ref().unwrap()["output"],
        json!("cat: missing.txt: No such file or directory\n")
    );
}

/// The titles of one recording, by call id.
fn titles(bytes: &[u8]) -> std::collections::BTreeMap<String, String> {
    let (parts, diagnostics) = common::normalize(bytes, None);
    assert!(diagnostics.is_empty(), "{diagnostics:?}");
    parts
        .into_iter()
        .map(|part| (part.id, part.title))
        .collect()
}

/// Every call an ACP recording shares with the agent's native recording of the same
/// scenario gets the same title, once the session's directory is known (a client's log
/// holds its `session/new` request). Returns how many calls were compared.
fn same_titles_as_native(native: &str, acp: &str) -> usize {
    let session_new = json!({"jsonrpc": "2.0", "id": 2, "method": "session/new",
        "params": {"cwd": "/workspace", "mcpServers": []}});
    let mut compared = 0;
    for entry in std::fs::read_dir(common::fixtures().join(acp)).unwrap() {
        let path = entry.unwrap().path();
        let native_path = common::fixtures()
            .join(native)
            .join(path.file_name().unwrap());
        let Ok(native_bytes) = std::fs::read(&native_path) else {
            continue;
        };
        let mut acp_bytes = format!("{session_new}\n").into_bytes();
        acp_bytes.extend(std::fs::read(&path).unwrap());
        let (want, got) = (titles(&native_bytes), titles(&acp_bytes));
        for (id, title) in &got {
            if let Some(native_title) = want.get(id) {
                assert_eq!(title, native_title, "{}: {id}", path.display());
                compared += 1;
            }
        }
    }
    compared
}

#[test]
fn other_agents_calls_get_the_titles_of_their_native_dialect() {
    for (native, acp, at_least) in [
        ("claude-code", "claude-code-acp", 15),
        ("claude-code", "claude-code-zed-acp", 15),
        ("opencode-serve", "opencode-acp", 15),
    ] {
        let compared = same_titles_as_native(native, acp);
        assert!(compared >= at_least, "{acp}: {compared} calls compared");
    }
}

#[test]
fn a_title_comes_from_the_acp_kind_and_input_never_the_agents_wording() {
    let read = |extra: Value| {
        let mut call = json!({"sessionUpdate": "tool_call", "toolCallId": "c1",
            "title": "Read File", "kind": "read", "status": "pending",
            "locations": [{"path": "/w/src/a.rs"}]});
        call.as_object_mut()
            .unwrap()
            .extend(extra.as_object().unwrap().clone());
        one(&[update(call)]).title
    };
    // No working directory known: the path as the agent gave it.
    assert_eq!(read(json!({})), "Reading /w/src/a.rs");
    // The call's own `cwd`.
    assert_eq!(
        read(json!({"rawInput": {"path": "/w/src/a.rs", "cwd": "/w"}})),
        "Reading src/a.rs"
    );
    // A command as an argument list, unwrapped from its shell.
    let part = one(&[update(
        json!({"sessionUpdate": "tool_call", "toolCallId": "c2",
        "title": "Run", "kind": "execute", "status": "pending",
        "rawInput": {"command": ["/bin/bash", "-lc", "cargo test -p x"]}}),
    )]);
    assert_eq!(part.title, "cargo test -p x");
    // A kind with no rule keeps the agent's title.
    let part = one(&[update(
        json!({"sessionUpdate": "tool_call", "toolCallId": "c3",
        "title": "Pondering", "kind": "think", "status": "pending"}),
    )]);
    assert_eq!(part.title, "Pondering");
}

#[test]
fn the_clients_session_request_gives_the_working_directory() {
    let parts = common::lines(
        Dialect::ACP,
        &[
            json!({"jsonrpc": "2.0", "id": 1, "method": "session/new",
                "params": {"cwd": "/w", "mcpServers": []}}),
            update(json!({"sessionUpdate": "tool_call", "toolCallId": "c1",
                "title": "Edit", "kind": "edit", "status": "pending",
                "rawInput": {"file_path": "/w/lib/b.py"}})),
        ],
    );
    assert_eq!(parts[0].title, "Editing lib/b.py");
}
