//! The mapping rules, one focused test each: the contract's titles, the kind tables, the
//! MCP naming forms, subagent nesting and the same failure giving the same state everywhere.
#![allow(clippy::unwrap_used, clippy::expect_used)]

use crate::common;

use serde_json::{Value, json};
use toolnorm::{ErrorCode, NormalizedToolPart, ToolKind, ToolState};
use toolnorm_adapters::Dialect;
use toolnorm_adapters::{TitleRules, ToolRef};

fn only(parts: Vec<NormalizedToolPart>) -> NormalizedToolPart {
    assert_eq!(parts.len(), 1, "{parts:#?}");
    parts.into_iter().next().unwrap()
}

fn codex_item(method: &str, item: Value) -> Value {
    json!({"method": method, "params": {"item": item, "threadId": "thr", "turnId": "turn", "startedAtMs": 1, "completedAtMs": 2}})
}

fn codex_web_search(id: &str, action: Value) -> NormalizedToolPart {
    let started = json!({"type": "webSearch", "id": id, "query": "", "action": {"type": "other"}, "results": null});
    let completed = json!({"type": "webSearch", "id": id, "query": "q", "action": action, "results": null, "completedAtMs": 2});
    only(common::lines(
        Dialect::CODEX_APP_SERVER,
        &[
            codex_item("item/started", started),
            codex_item("item/completed", completed),
        ],
    ))
}

fn codex_mcp(tool: &str, arguments: Value) -> NormalizedToolPart {
    let item = json!({"type": "mcpToolCall", "id": "mcp_1", "server": "amalgm", "tool": tool, "arguments": arguments,
        "status": "completed", "result": {"content": []}, "error": null});
    only(common::lines(
        Dialect::CODEX_APP_SERVER,
        &[codex_item("item/completed", item)],
    ))
}

fn opencode_tool(tool: &str, input: Value) -> NormalizedToolPart {
    let part = json!({"type": "tool", "tool": tool, "callID": "call_1", "id": "prt_1", "messageID": "msg_1",
        "sessionID": "ses_1", "state": {"status": "running", "input": input, "time": {"start": 1}}});
    let event = json!({"id": "evt_1", "type": "message.part.updated", "properties": {"sessionID": "ses_1", "part": part, "time": 1}});
    only(common::lines(Dialect::OPENCODE, &[event]))
}

#[test]
fn the_contract_titles_come_out_exactly() {
    let search = codex_web_search(
        "ws_1",
        json!({"type": "search", "query": "Reuters top news"}),
    );
    assert_eq!(search.title, "Searching Reuters top news");
    assert_eq!(
        search.input["query"], "q",
        "the final input comes with the completion"
    );
    assert_eq!(search.metadata.unwrap()["action"]["type"], "search");

    let open = codex_web_search(
        "ws_2",
        json!({"type": "openPage", "url": "https://apnews.com/world"}),
    );
    assert_eq!(open.title, "Opening apnews.com");

    let find = codex_web_search(
        "ws_3",
        json!({"type": "findInPage", "url": "https://apnews.com/world", "pattern": "Updated"}),
    );
    assert_eq!(find.title, "Finding \"Updated\" on apnews.com");

    let snapshot = codex_mcp("browser_snapshot", json!({}));
    assert_eq!(
        (snapshot.title.as_str(), snapshot.kind),
        ("Reading browser page", ToolKind::Browser)
    );
    let navigate = codex_mcp("browser_navigate", json!({"url": "https://apnews.com"}));
    assert_eq!(
        (navigate.title.as_str(), navigate.kind),
        ("Opening browser page", ToolKind::Browser)
    );

    let register = only(common::lines(
        Dialect::CLAUDE_CODE,
        &[
            json!({"type": "assistant", "session_id": "s", "message": {"content": [
                {"type": "tool_use", "id": "toolu_1", "name": "mcp__amalgm__artifacts_register", "input": {"name": "Spotify Clone"}}
            ]}}),
        ],
    ));
    assert_eq!(register.title, "Registering artifact Spotify Clone");
    assert_eq!(
        register.metadata.unwrap()["mcp"],
        json!({"server": "amalgm", "tool": "artifacts_register"})
    );

    let tab = opencode_tool("amalgm_browser_tabs_new", json!({}));
    assert_eq!(
        (tab.title.as_str(), tab.kind),
        ("Opening browser tab", ToolKind::Browser)
    );

    let task = opencode_tool(
        "task",
        json!({"description": "Research Northern India politics", "prompt": "…"}),
    );
    assert_eq!(
        (task.title.as_str(), task.kind),
        ("Research Northern India politics", ToolKind::Subagent)
    );
}

#[test]
fn an_opencode_action_descriptor_is_the_preferred_title() {
    let part = json!({"type": "tool", "tool": "amalgm_browser_tabs_new", "callID": "call_1", "id": "prt_1",
        "messageID": "m", "sessionID": "s", "state": {"status": "running", "input": {},
        "metadata": {"actionDescriptor": "Opening the docs tab"}, "time": {"start": 1}}});
    let event = json!({"id": "e", "type": "message.part.updated", "properties": {"sessionID": "s", "part": part, "time": 1}});
    assert_eq!(
        only(common::lines(Dialect::OPENCODE, &[event])).title,
        "Opening the docs tab"
    );
}

fn kind_of(rules: &TitleRules, provider: &str, tool: &str) -> Option<ToolKind> {
    rules.kind(&ToolRef {
        provider,
        tool,
        server: None,
        input: &json!({}),
        cwd: None,
    })
}

#[test]
fn every_built_in_tool_has_a_kind() {
    let rules = TitleRules::builtin();
    // Claude Code: the tools its `init` message lists, plus those of earlier 2.x versions.
    let init =
        std::fs::read_to_string(common::fixtures().join("claude-code/shell-ok.jsonl")).unwrap();
    let init: Value = serde_json::from_str(init.lines().next().unwrap()).unwrap();
    let mut claude: Vec<String> = init["tools"]
        .as_array()
        .unwrap()
        .iter()
        .filter_map(Value::as_str)
        .filter(|name| !name.starts_with("mcp__"))
        .map(str::to_owned)
        .collect();
    claude.extend(
        [
            "Glob",
            "Grep",
            "LS",
            "MultiEdit",
            "TodoWrite",
            "AskUserQuestion",
            "ExitPlanMode",
            "Agent",
            "BashOutput",
            "KillShell",
        ]
        .map(str::to_owned),
    );
    for tool in &claude {
        assert!(
            kind_of(&rules, "claude-code", tool).is_some(),
            "Claude Code `{tool}` has no kind"
        );
    }
    let codex = [
        "commandExecution",
        "fileChange",
        "webSearch",
        "spawnAgent",
        "sendInput",
        "wait",
        "closeAgent",
        "resumeAgent",
        "subAgentActivity",
        "todo_list",
        "imageView",
    ];
    for tool in codex {
        assert!(
            kind_of(&rules, "codex", tool).is_some(),
            "Codex `{tool}` has no kind"
        );
    }
    let opencode = [
        "bash",
        "read",
        "write",
        "edit",
        "multiedit",
        "patch",
        "list",
        "glob",
        "grep",
        "webfetch",
        "websearch",
        "todowrite",
        "todoread",
        "task",
        "skill",
        "question",
    ];
    for tool in opencode {
        assert!(
            kind_of(&rules, "opencode", tool).is_some(),
            "OpenCode `{tool}` has no kind"
        );
    }
    // Gemini CLI: the tools 0.61 declares (its `*_TOOL_NAME` constants), and the names of
    // earlier versions.
    let gemini = [
        "activate_skill",
        "ask_user",
        "complete_task",
        "enter_plan_mode",
        "exit_plan_mode",
        "get_internal_docs",
        "glob",
        "google_web_search",
        "grep_search",
        "search_file_content",
        "invoke_agent",
        "list_directory",
        "list_mcp_resources",
        "read_file",
        "read_many_files",
        "read_mcp_resource",
        "replace",
        "run_shell_command",
        "list_background_processes",
        "read_background_output",
        "save_memory",
        "take_snapshot",
        "tracker_add_dependency",
        "tracker_create_task",
        "tracker_get_task",
        "tracker_list_tasks",
        "tracker_update_task",
        "tracker_visualize",
        "update_topic",
        "web_fetch",
        "write_file",
        "write_todos",
    ];
    for tool in gemini {
        assert!(
            kind_of(&rules, "gemini-cli", tool).is_some(),
            "Gemini CLI `{tool}` has no kind"
        );
    }
    assert_eq!(
        kind_of(&rules, "gemini-cli", "run_shell_command"),
        Some(ToolKind::Bash)
    );
    assert_eq!(
        kind_of(&rules, "gemini-cli", "replace"),
        Some(ToolKind::FileEdit)
    );
    assert_eq!(kind_of(&rules, "claude-code", "Bash"), Some(ToolKind::Bash));
    assert_eq!(
        kind_of(&rules, "claude-code", "WebSearch"),
        Some(ToolKind::WebSearch)
    );
    assert_eq!(
        kind_of(&rules, "claude-code", "Task"),
        Some(ToolKind::Subagent)
    );
    assert_eq!(
        kind_of(&rules, "claude-code", "TodoWrite"),
        Some(ToolKind::Todo)
    );
    assert_eq!(
        kind_of(&rules, "claude-code", "AskUserQuestion"),
        Some(ToolKind::Question)
    );
    assert_eq!(
        kind_of(&rules, "opencode", "edit"),
        Some(ToolKind::FileEdit)
    );
    assert_eq!(
        kind_of(&rules, "codex", "webSearch"),
        Some(ToolKind::WebSearch)
    );
    // Built-in rules never apply to an MCP tool that happens to share a name.
    let mcp_bash = rules.kind(&ToolRef {
        provider: "claude-code",
        tool: "Bash",
        server: Some("shell"),
        input: &json!({}),
        cwd: None,
    });
    assert_eq!(mcp_bash, None);
}

#[test]
fn unknown_tools_are_unknown_not_errors() {
    let part = only(common::lines(
        Dialect::CLAUDE_CODE,
        &[json!({"type": "assistant", "message": {"content": [
            {"type": "tool_use", "id": "toolu_9", "name": "FrobnicateWidgets", "input": {}}
        ]}})],
    ));
    assert_eq!(part.kind, ToolKind::Unknown);
    assert_eq!(
        part.title, "Frobnicate widgets",
        "a name that does not start with a known verb is shown as it is"
    );
    let part = only(common::lines(
        Dialect::CLAUDE_CODE,
        &[json!({"type": "assistant", "message": {"content": [
            {"type": "tool_use", "id": "toolu_9", "name": "FetchWidgets", "input": {}}
        ]}})],
    ));
    assert_eq!(
        part.title, "Fetching widgets",
        "a verb_object name becomes action text"
    );
}

#[test]
fn mcp_tools_carry_server_and_tool_in_every_naming_form() {
    let expected = json!({"server": "toolbox", "tool": "echo"});
    for fixture in [
        "claude-code/mcp-ok.jsonl",
        "codex-exec/mcp-ok.jsonl",
        "codex-app-server/mcp-ok.jsonl",
        "opencode-serve/mcp-ok.jsonl",
    ] {
        let part = only(common::fixture(fixture));
        assert_eq!(part.kind, ToolKind::Mcp, "{fixture}");
        assert_eq!(
            part.metadata.as_ref().unwrap()["mcp"],
            expected,
            "{fixture}"
        );
        assert_eq!(part.state, ToolState::Complete, "{fixture}");
    }
    // Codex dynamic tools in an `mcp__<server>` namespace.
    let item = json!({"type": "dynamicToolCall", "id": "dyn_1", "tool": "echo", "namespace": "mcp__toolbox",
        "arguments": {"text": "hi"}, "status": "completed", "success": true, "contentItems": []});
    let part = only(common::lines(
        Dialect::CODEX_APP_SERVER,
        &[codex_item("item/completed", item)],
    ));
    assert_eq!(part.metadata.unwrap()["mcp"], expected);
}

fn parent(part: &NormalizedToolPart) -> Option<&str> {
    part.metadata.as_ref()?.get("parentToolCallId")?.as_str()
}

#[test]
fn calls_inside_a_subagent_name_their_parent() {
    for fixture in [
        "claude-code/subagent.jsonl",
        "codex-app-server/subagent.jsonl",
        "opencode-serve/subagent.jsonl",
    ] {
        let parts = common::fixture(fixture);
        let agent = parts
            .iter()
            .find(|part| part.kind == ToolKind::Subagent && parent(part).is_none())
            .unwrap();
        let child = parts
            .iter()
            .find(|part| part.kind == ToolKind::Bash)
            .unwrap();
        assert_eq!(parent(child), Some(agent.id.as_str()), "{fixture}");
        assert_eq!(
            agent.state,
            ToolState::Complete,
            "{fixture}: the agent call ends when the agent does"
        );
    }
    let opencode = common::fixture("opencode-serve/subagent.jsonl");
    let task = opencode.iter().find(|part| part.name == "task").unwrap();
    assert_eq!(
        task.metadata.as_ref().unwrap()["childSessionId"],
        "ses_00000000000000000000000001"
    );
    let claude = common::fixture("claude-code/subagent.jsonl");
    let task = claude.iter().find(|part| part.name == "Task").unwrap();
    assert_eq!(
        task.metadata.as_ref().unwrap()["task"]["taskId"],
        "a0000000000000001"
    );
}

/// The providers that recorded each cross-provider scenario.
const PROVIDERS: &[&str] = &[
    "claude-code",
    "codex-exec",
    "codex-app-server",
    "opencode-run",
    "opencode-serve",
];

#[test]
fn the_same_step_gives_the_same_kind_and_state_everywhere() {
    let cases: &[(&str, Option<ToolKind>, ToolState)] = &[
        ("shell-ok", Some(ToolKind::Bash), ToolState::Complete),
        ("shell-exit-3", Some(ToolKind::Bash), ToolState::Error),
        // Codex reads with `cat` (bash), the others with a read tool: the state agrees.
        ("read-missing", None, ToolState::Error),
        ("write-file", Some(ToolKind::FileWrite), ToolState::Complete),
        ("mcp-ok", Some(ToolKind::Mcp), ToolState::Complete),
        ("mcp-error", Some(ToolKind::Mcp), ToolState::Error),
    ];
    for (scenario, kind, state) in cases {
        for provider in PROVIDERS {
            let part = only(common::fixture(&format!("{provider}/{scenario}.jsonl")));
            assert_eq!(part.state, *state, "{provider}/{scenario}");
            if let Some(kind) = kind {
                assert_eq!(part.kind, *kind, "{provider}/{scenario}");
            }
            assert!(part.output.is_none() || part.error.is_none());
        }
    }
}

#[test]
fn a_non_zero_exit_is_an_error_with_its_code_everywhere() {
    for provider in PROVIDERS {
        let part = only(common::fixture(&format!("{provider}/shell-exit-3.jsonl")));
        let error = part.error.unwrap();
        assert_eq!(error.code, Some(ErrorCode::ExitCode), "{provider}");
        let details = error.details.unwrap();
        assert_eq!(details["exitCode"], 3, "{provider}");
        assert!(
            details["output"].as_str().unwrap().contains("checking"),
            "{provider}: output kept"
        );
    }
}

#[test]
fn a_refused_permission_is_an_error_with_its_own_code() {
    for provider in [
        "claude-code",
        "claude-code-transcript",
        "opencode-serve",
        "opencode-run",
    ] {
        let part = only(common::fixture(&format!(
            "{provider}/permission-denied.jsonl"
        )));
        assert_eq!(part.state, ToolState::Error, "{provider}");
        assert_eq!(
            part.error.unwrap().code,
            Some(ErrorCode::PermissionDenied),
            "{provider}"
        );
    }
    // The recording holds the client's answer too: the user declined the call.
    let part = only(common::fixture("codex-app-server/permission-denied.jsonl"));
    assert_eq!(part.state, ToolState::Error);
    assert_eq!(part.error.unwrap().code, Some(ErrorCode::UserRejected));
}

#[test]
fn a_call_that_never_finished_stays_open() {
    for provider in ["codex-exec", "codex-app-server"] {
        let part = only(common::fixture(&format!("{provider}/interrupted.jsonl")));
        assert!(!part.state.is_terminal(), "{provider}: no invented result");
        assert!(part.output.is_none() && part.error.is_none());
    }
}

#[test]
fn streamed_input_refines_the_call_as_it_arrives() {
    let bytes = std::fs::read(common::fixtures().join("claude-code/partial-input.jsonl")).unwrap();
    let mut normalizer = toolnorm_adapters::Normalizer::new();
    let mut inputs = Vec::new();
    let mut on_step = |step: toolnorm_adapters::Step<'_>| {
        if let toolnorm_adapters::Step::Applied { update, .. } = step {
            inputs.push(update.part().input);
        }
    };
    normalizer.push(&bytes, &mut on_step);
    normalizer.finish(&mut on_step);
    let contents: Vec<usize> = inputs
        .iter()
        .filter_map(|input| input.get("content").and_then(Value::as_str).map(str::len))
        .collect();
    assert!(
        contents.len() > 2,
        "the input grew in several steps: {inputs:?}"
    );
    assert!(
        contents.windows(2).all(|pair| pair[0] <= pair[1]),
        "{contents:?}"
    );
    let mut steps = contents.clone();
    steps.dedup();
    assert!(
        steps.len() > 2,
        "the input streamed in fragments, not only whole: {contents:?}"
    );
}

#[test]
fn an_mcp_tool_error_has_the_same_code_everywhere() {
    for provider in PROVIDERS.iter().chain(&[
        "claude-code-transcript",
        "opencode-serve-global",
        "opencode-export",
    ]) {
        let part = only(common::fixture(&format!("{provider}/mcp-error.jsonl")));
        let error = part.error.unwrap();
        assert_eq!(error.code, Some(ErrorCode::McpError), "{provider}");
        assert!(
            error.message.contains("division by zero"),
            "{provider}: {}",
            error.message
        );
    }
}

#[test]
fn opencode_attachments_are_listed_without_their_data() {
    let attachments = json!([
        {"id": "prt_a", "sessionID": "s", "messageID": "m", "type": "file", "mime": "image/png", "filename": "shot.png", "url": "data:image/png;base64,AAAA"},
        {"id": "prt_b", "sessionID": "s", "messageID": "m", "type": "file", "mime": "text/plain", "url": "file:///w/notes.txt"}
    ]);
    let part = json!({"type": "tool", "tool": "read", "callID": "call_1", "id": "prt_1", "messageID": "m", "sessionID": "s",
        "state": {"status": "completed", "input": {"filePath": "/w/shot.png"}, "output": "ok", "metadata": {}, "title": "shot.png",
        "time": {"start": 1, "end": 2}, "attachments": attachments}});
    let event = json!({"id": "e", "type": "message.part.updated", "properties": {"sessionID": "s", "part": part, "time": 2}});
    let part = only(common::lines(Dialect::OPENCODE, &[event]));
    assert_eq!(
        part.metadata.unwrap()["attachments"],
        json!([
            {"id": "prt_a", "mime": "image/png", "filename": "shot.png"},
            {"id": "prt_b", "mime": "text/plain", "url": "file:///w/notes.txt"}
        ])
    );
}

/// A transcript's lines, the subagent's sidechain records moved after (or before) the main
/// session's: as a session folder is read (main transcript, then the subagent's file).
fn transcript_ordered(sidechain_first: bool) -> Vec<NormalizedToolPart> {
    let text =
        std::fs::read_to_string(common::fixtures().join("claude-code-transcript/subagent.jsonl"))
            .unwrap();
    let (mut main, mut side) = (Vec::new(), Vec::new());
    for line in text.lines() {
        let record: Value = serde_json::from_str(line).unwrap();
        match record.get("isSidechain") == Some(&Value::Bool(true)) {
            true => side.push(line),
            false => main.push(line),
        }
    }
    assert!(!side.is_empty() && !main.is_empty());
    let ordered = match sidechain_first {
        true => [side, main].concat(),
        false => [main, side].concat(),
    };
    let (parts, diagnostics) = common::normalize(ordered.join("\n").as_bytes(), None);
    assert!(diagnostics.is_empty(), "{diagnostics:?}");
    parts
}

#[test]
fn a_transcripts_sidechain_calls_are_inside_the_call_that_ran_their_agent() {
    let parts = transcript_ordered(false);
    let task = parts.iter().find(|part| part.name == "Task").unwrap();
    let agent = task.metadata.as_ref().unwrap()["task"]["taskId"].clone();
    let child = parts.iter().find(|part| part.name == "Bash").unwrap();
    let metadata = child.metadata.as_ref().unwrap();
    assert_eq!(metadata["parentToolCallId"], json!(task.id));
    assert_eq!(metadata["agentId"], agent);
    // Read before the call that ran it, a sidechain call still names its agent, and no
    // parent is made up.
    let parts = transcript_ordered(true);
    let child = parts.iter().find(|part| part.name == "Bash").unwrap();
    let metadata = child.metadata.as_ref().unwrap();
    assert_eq!(metadata["agentId"], agent);
    assert!(metadata.get("parentToolCallId").is_none(), "{metadata:?}");
}

#[test]
fn resent_output_that_does_not_extend_what_streamed_is_not_appended() {
    let running = |output: &str| {
        json!({"type": "message.part.updated", "properties": {"part": {
            "id": "prt_1", "sessionID": "ses_1", "messageID": "msg_1", "type": "tool",
            "callID": "call_1", "tool": "bash",
            "state": {"status": "running", "input": {"command": "build"},
                      "metadata": {"output": output}, "time": {"start": 1}}}}})
    };
    let mut normalizer = toolnorm_adapters::Normalizer::builder()
        .dialect(Dialect::OPENCODE)
        .build();
    let mut outputs = Vec::new();
    let lines = [
        running("step 1\n"),
        running("step 1\nstep 2\n"),
        running("rewritten: a longer text than before\n"),
    ];
    for line in lines {
        normalizer.push(format!("{line}\n").as_bytes(), &mut |_| {});
        match normalizer.fold().get("call_1") {
            Some(toolnorm::AnyToolCall::Running(call)) => {
                outputs.push(call.streamed_output().text().to_owned());
            }
            other => panic!("{other:?}"),
        }
    }
    assert_eq!(
        outputs,
        [
            "step 1\n",
            "step 1\nstep 2\n",
            // Not "step 1\nstep 2\n" and the rewrite's tail: it is left for the final output.
            "step 1\nstep 2\n",
        ]
    );
}
