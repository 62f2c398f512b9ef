//! ACP: every fixture's frames validate against the pinned official schema and follow the
//! sequence rules; parts → ACP → parts keeps every field, for every fixture and for
//! generated calls; streams of other ACP agents fold into the expected parts.
#![allow(clippy::unwrap_used, clippy::expect_used)]

use crate::common;

use std::collections::HashMap;
use std::sync::OnceLock;

use proptest::prelude::*;
use serde_json::{Map, Value, json};
use toolnorm::{
    ErrorCode, Fold, InputUpdated, MetadataMerged, NormalizedToolPart, OutputAppended,
    TitleUpdated, ToolCallCompleted, ToolCallFailed, ToolCallRunning, ToolCallStarted, ToolError,
    ToolEvent, ToolKind, ToolState,
};
use toolnorm_adapters::{AcpEmitter, AcpOptions};
use toolnorm_adapters::{Dialect, Normalizer, Step};

/// The pinned ACP v1 schema, wrapped in the JSON-RPC notification envelope.
fn validator() -> &'static common::JsonSchema {
    static VALIDATOR: OnceLock<common::JsonSchema> = OnceLock::new();
    VALIDATOR.get_or_init(|| {
        let path = common::fixtures().join("../schemas/acp/schema.v1.json");
        let pinned: Value = serde_json::from_slice(&std::fs::read(path).unwrap()).unwrap();
        assert_eq!(
            pinned["$schema"],
            "https://json-schema.org/draft/2020-12/schema"
        );
        let schema = json!({
            "$schema": pinned["$schema"],
            "$defs": pinned["$defs"],
            "type": "object",
            "required": ["jsonrpc", "method", "params"],
            "properties": {
                "jsonrpc": { "const": "2.0" },
                "method": { "const": "session/update" },
                "params": { "$ref": "#/$defs/SessionNotification" }
            },
            "additionalProperties": false
        });
        common::JsonSchema::new("acp-session-update", schema)
    })
}

pub(crate) fn assert_valid(frame: &Value, origin: &str) {
    validator().assert_valid(frame, origin);
}

/// Normalizes `bytes` and emits a frame per change, as `--format acp` does.
pub(crate) fn emit(bytes: &[u8], dialect: Option<Dialect>, acp: AcpOptions) -> (Vec<Value>, usize) {
    let mut normalizer = Normalizer::builder().dialect(dialect).build();
    let mut emitter = AcpEmitter::new(acp);
    let mut frames = Vec::new();
    let mut diagnostics = 0;
    let mut on_step = |step: Step<'_>| match step {
        Step::Applied { update, .. } => frames.extend(emitter.part(&update.part())),
        Step::Diagnostic(_) => diagnostics += 1,
    };
    normalizer.push(bytes, &mut on_step);
    normalizer.finish(&mut on_step);
    (frames, diagnostics)
}

/// Ingests frames: the parts and the diagnostics.
pub(crate) fn ingest(
    frames: &[Value],
) -> (Vec<NormalizedToolPart>, Vec<toolnorm_adapters::Diagnostic>) {
    let text: String = frames.iter().map(|frame| format!("{frame}\n")).collect();
    common::normalize(text.as_bytes(), None)
}

/// The sequence rules: per id one `tool_call`, first; then updates, each carrying only
/// fields whose value changed; nothing after a terminal status.
pub(crate) fn check_sequence(frames: &[Value], origin: &str) {
    let mut calls: HashMap<String, (Map<String, Value>, bool)> = HashMap::new();
    for frame in frames {
        let update = frame["params"]["update"].as_object().unwrap();
        let id = update["toolCallId"].as_str().unwrap().to_owned();
        let kind = update["sessionUpdate"].as_str().unwrap();
        let fields: Map<String, Value> = update
            .iter()
            .filter(|(key, _)| !["sessionUpdate", "toolCallId", "_meta"].contains(&key.as_str()))
            .map(|(key, value)| (key.clone(), value.clone()))
            .collect();
        let meta = update
            .get("_meta")
            .and_then(|meta| meta.get("toolnorm"))
            .unwrap_or(&Value::Null);
        match (kind, calls.get_mut(&id)) {
            ("tool_call", None) => {
                assert!(fields.contains_key("status"), "{origin}: {frame}");
                assert!(meta.is_object(), "{origin}: no _meta.toolnorm: {frame}");
                let terminal = matches!(fields["status"].as_str(), Some("completed" | "failed"));
                calls.insert(id, (fields, terminal));
            }
            ("tool_call", Some(_)) => panic!("{origin}: a second tool_call for {id}"),
            ("tool_call_update", None) => panic!("{origin}: an update before the tool_call"),
            ("tool_call_update", Some((state, terminal))) => {
                assert!(!*terminal, "{origin}: a frame after the end of {id}");
                assert!(
                    !fields.is_empty() || meta.is_object(),
                    "{origin}: an empty update: {frame}"
                );
                for (key, value) in fields {
                    assert_ne!(
                        state.get(&key),
                        Some(&value),
                        "{origin}: {key} resent unchanged: {frame}"
                    );
                    *terminal |=
                        key == "status" && matches!(value.as_str(), Some("completed" | "failed"));
                    state.insert(key, value);
                }
            }
            (other, _) => panic!("{origin}: unexpected {other}"),
        }
    }
}

#[test]
fn every_fixture_emits_valid_frames_in_order_and_round_trips() {
    let mut validated = 0;
    let files = common::all_recordings();
    assert!(files.len() > 100, "{} fixtures", files.len());
    for path in &files {
        let origin = path.display().to_string();
        let bytes = std::fs::read(path).unwrap();
        let (frames, diagnostics) = emit(&bytes, None, AcpOptions::default());
        assert_eq!(diagnostics, 0, "{origin}");
        for frame in &frames {
            assert_valid(frame, &origin);
            validated += 1;
        }
        check_sequence(&frames, &origin);

        let (expected, _) = common::normalize(&bytes, None);
        let (parts, diagnostics) = ingest(&frames);
        assert!(diagnostics.is_empty(), "{origin}: {diagnostics:#?}");
        assert_eq!(parts, expected, "{origin}");
    }
    eprintln!("{validated} frames of {} fixtures validated", files.len());
}

#[test]
fn the_validator_rejects_what_acp_does_not_allow() {
    let good = json!({
        "jsonrpc": "2.0",
        "method": "session/update",
        "params": { "sessionId": "s", "update": {
            "sessionUpdate": "tool_call", "toolCallId": "a", "title": "t", "kind": "execute"
        }}
    });
    assert!(validator().is_valid(&good));
    let mut bad_kind = good.clone();
    bad_kind["params"]["update"]["kind"] = json!("bash");
    assert!(!validator().is_valid(&bad_kind));
    let mut no_title = good.clone();
    no_title["params"]["update"]
        .as_object_mut()
        .unwrap()
        .remove("title");
    assert!(!validator().is_valid(&no_title));
    let mut bad_diff = good;
    bad_diff["params"]["update"]["content"] = json!([{ "type": "diff", "path": "/a" }]);
    assert!(!validator().is_valid(&bad_diff));
}

#[test]
fn outputs_over_the_cap_are_cut_and_flagged() {
    let big = "x".repeat(10_000);
    let lines = [
        json!({"type":"toolCallStarted","id":"a","name":"Bash","kind":"bash","title":"yes","input":{"command":"yes"}}),
        json!({"type":"toolCallCompleted","id":"a","output": big}),
    ];
    let text: String = lines.iter().map(|line| format!("{line}\n")).collect();
    let options = AcpOptions {
        session_id: "sess-1".into(),
        output_cap: 1000,
    };
    let (frames, _) = emit(text.as_bytes(), Some(Dialect::EVENTS), options);
    assert_eq!(frames.len(), 2);
    for frame in &frames {
        assert_valid(frame, "cap");
        assert!(
            frame.to_string().len() < 3000,
            "{}",
            frame.to_string().len()
        );
        assert_eq!(frame["params"]["sessionId"], "sess-1");
    }
    let update = &frames[1]["params"]["update"];
    assert_eq!(update["rawOutput"].as_str().unwrap().len(), 1000);
    assert_eq!(
        update["_meta"]["toolnorm"]["truncated"],
        json!({
            "rawOutput": {"totalBytes": 10_000, "capBytes": 1000},
            "content": {"totalBytes": 10_000, "capBytes": 1000}
        })
    );
    let (parts, diagnostics) = ingest(&frames);
    assert!(diagnostics.is_empty());
    let metadata = parts[0].metadata.as_ref().unwrap();
    assert_eq!(metadata["outputTruncated"], true);
    assert_eq!(metadata["outputTotalBytes"], 10_000);
}

#[test]
fn streamed_output_is_sent_as_chunks_not_resent() {
    let lines = [
        json!({"type":"toolCallStarted","id":"a","name":"Bash","kind":"bash","title":"t","input":{}}),
        json!({"type":"toolCallRunning","id":"a"}),
        json!({"type":"outputAppended","id":"a","offset":0,"chunk":"one\n"}),
        json!({"type":"outputAppended","id":"a","offset":4,"chunk":"two\n"}),
        json!({"type":"toolCallCompleted","id":"a"}),
    ];
    let text: String = lines.iter().map(|line| format!("{line}\n")).collect();
    let (frames, _) = emit(
        text.as_bytes(),
        Some(Dialect::EVENTS),
        AcpOptions::default(),
    );
    let chunks: Vec<&Value> = frames
        .iter()
        .filter_map(|frame| frame["params"]["update"]["_meta"]["toolnorm"].get("outputAppended"))
        .collect();
    assert_eq!(
        chunks,
        [
            &json!({"offset": 0, "chunk": "one\n"}),
            &json!({"offset": 4, "chunk": "two\n"})
        ]
    );
    assert!(frames.iter().all(|frame| {
        frame["params"]["update"]["_meta"]["toolnorm"]
            .get("metadata")
            .is_none_or(|metadata| metadata.get("partialOutput").is_none())
    }));
    let (parts, _) = ingest(&frames);
    assert_eq!(parts[0].output.as_deref(), Some(&json!("one\ntwo\n")));
}

#[test]
fn edits_carry_diff_content_and_locations() {
    let lines = [
        json!({"type":"toolCallStarted","id":"e","name":"Edit","kind":"file_edit","title":"Editing a.py",
               "input":{"file_path":"/w/a.py","old_string":"a","new_string":"b"}}),
        json!({"type":"toolCallStarted","id":"w","name":"write","kind":"file_write","title":"Writing b.py",
               "input":{"filePath":"/w/b.py","content":"hi\n"}}),
        json!({"type":"toolCallStarted","id":"c","name":"fileChange","kind":"file_edit","title":"Editing c.py",
               "input":{"changes":[{"path":"/w/c.py","kind":"update"}]}}),
        json!({"type":"toolCallCompleted","id":"c","output":{"changes":[
               {"path":"/w/c.py","kind":"update","diff":"@@ -1,2 +1,2 @@\n x\n-y\n+z\n"}]}}),
    ];
    let text: String = lines.iter().map(|line| format!("{line}\n")).collect();
    let (frames, _) = emit(
        text.as_bytes(),
        Some(Dialect::EVENTS),
        AcpOptions::default(),
    );
    for frame in &frames {
        assert_valid(frame, "edits");
    }
    let update = |index: usize| &frames[index]["params"]["update"];
    assert_eq!(
        update(0)["content"],
        json!([{"type":"diff","path":"/w/a.py","newText":"b","oldText":"a"}])
    );
    assert_eq!(update(0)["locations"], json!([{"path":"/w/a.py"}]));
    assert_eq!(
        update(1)["content"],
        json!([{"type":"diff","path":"/w/b.py","newText":"hi\n"}])
    );
    assert_eq!(
        update(3)["content"][0],
        json!({"type":"diff","path":"/w/c.py","newText":"x\nz\n","oldText":"x\ny\n"})
    );
}

/// A Claude Code-style ACP stream (hand-written lines, no `_meta.toolnorm`).
#[test]
fn a_foreign_agent_stream_folds_into_parts() {
    let update = |update: Value| json!({"jsonrpc":"2.0","method":"session/update","params":{"sessionId":"s1","update":update}});
    let lines = [
        json!({"jsonrpc":"2.0","id":0,"result":{"protocolVersion":1}}),
        update(
            json!({"sessionUpdate":"agent_message_chunk","content":{"type":"text","text":"hi"}}),
        ),
        update(
            json!({"sessionUpdate":"tool_call","toolCallId":"t1","title":"`ls`","kind":"execute",
                      "status":"pending","rawInput":{"command":"ls"},"_meta":{"claudeCode":{"toolName":"Bash"}}}),
        ),
        json!({"jsonrpc":"2.0","id":5,"method":"session/request_permission","params":{"sessionId":"s1",
               "toolCall":{"toolCallId":"t1"},"options":[{"optionId":"allow","name":"Allow","kind":"allow_once"}]}}),
        json!({"jsonrpc":"2.0","id":5,"result":{"outcome":{"outcome":"selected","optionId":"allow"}}}),
        update(
            json!({"sessionUpdate":"tool_call_update","toolCallId":"t1","status":"in_progress"}),
        ),
        update(json!({"sessionUpdate":"tool_call_update","toolCallId":"t1",
                      "content":[{"type":"content","content":{"type":"text","text":"a\n"}}]})),
        update(
            json!({"sessionUpdate":"tool_call_update","toolCallId":"t1","status":"completed",
                      "content":[{"type":"content","content":{"type":"text","text":"a\nb\n"}}]}),
        ),
        update(
            json!({"sessionUpdate":"tool_call","toolCallId":"t2","title":"Write /w/new.txt","kind":"edit",
                      "status":"pending","rawInput":{"file_path":"/w/new.txt","content":"x"},
                      "content":[{"type":"diff","path":"/w/new.txt","newText":"x"}]}),
        ),
        update(
            json!({"sessionUpdate":"tool_call_update","toolCallId":"t2","status":"failed",
                      "rawOutput":{"error":"EACCES: permission denied"}}),
        ),
        update(json!({"sessionUpdate":"plan","entries":[]})),
    ];
    let text: String = lines.iter().map(|line| format!("{line}\n")).collect();
    let (parts, diagnostics) = common::normalize(text.as_bytes(), None);
    assert!(diagnostics.is_empty(), "{diagnostics:#?}");
    assert_eq!(parts.len(), 2);
    let bash = &parts[0];
    assert_eq!(
        (
            bash.name.as_str(),
            bash.kind,
            bash.title.as_str(),
            bash.state
        ),
        ("Bash", ToolKind::Bash, "ls", ToolState::Complete)
    );
    assert_eq!(bash.input, json!({"command":"ls"}));
    assert_eq!(bash.output.as_deref(), Some(&json!("a\nb\n")));
    let metadata = bash.metadata.as_ref().unwrap();
    assert_eq!(metadata["provider"], "acp");
    assert_eq!(metadata["acpKind"], "execute");
    assert_eq!(
        metadata["approval"],
        json!({"status": "approved", "decidedBy": "user", "scope": "once", "optionId": "allow",
               "options": [{"id": "allow", "label": "Allow", "decision": "approved", "scope": "once"}]})
    );
    let write = &parts[1];
    assert_eq!(
        (write.kind, write.state, write.title.as_str()),
        (ToolKind::FileWrite, ToolState::Error, "Writing /w/new.txt")
    );
    let error = write.error.as_ref().unwrap();
    assert_eq!(error.message, "EACCES: permission denied");
    assert_eq!(
        error.details.as_deref(),
        Some(&json!({"error":"EACCES: permission denied"}))
    );
}

/// OpenCode-style lines (`opencode acp`): MCP tools named `<server>_<tool>` with kind
/// `other`, a shell command reported completed with a non-zero exit, a refused call.
#[test]
fn foreign_errors_have_the_shared_codes() {
    let update = |update: Value| json!({"jsonrpc":"2.0","method":"session/update","params":{"sessionId":"s","update":update}});
    let lines = [
        update(
            json!({"sessionUpdate":"tool_call","toolCallId":"m","title":"toolbox_divide","kind":"other",
                      "status":"pending","rawInput":{}}),
        ),
        update(
            json!({"sessionUpdate":"tool_call_update","toolCallId":"m","status":"failed",
                      "content":[{"type":"content","content":{"type":"text","text":"division by zero"}}],
                      "rawOutput":{"error":"division by zero"}}),
        ),
        update(
            json!({"sessionUpdate":"tool_call","toolCallId":"b","title":"bash","kind":"execute",
                      "status":"pending","rawInput":{"command":"exit 3"}}),
        ),
        update(
            json!({"sessionUpdate":"tool_call_update","toolCallId":"b","status":"completed",
                      "rawOutput":{"output":"nope\n","metadata":{"exit":3}}}),
        ),
        update(
            json!({"sessionUpdate":"tool_call","toolCallId":"r","title":"rm x","kind":"execute",
                      "status":"pending"}),
        ),
        update(
            json!({"sessionUpdate":"tool_call_update","toolCallId":"r","status":"failed",
                      "content":[{"type":"content","content":{"type":"text",
                      "text":"The user rejected permission to use this specific tool call."}}]}),
        ),
        // Claude Code's ACP adapter: fenced text content, the tool name and the parent
        // call in `_meta.claudeCode`.
        update(
            json!({"sessionUpdate":"tool_call","toolCallId":"c","title":"Terminal","kind":"execute",
                      "status":"pending","rawInput":{},
                      "_meta":{"claudeCode":{"toolName":"Bash","parentToolUseId":"task_1"}}}),
        ),
        update(
            json!({"sessionUpdate":"tool_call_update","toolCallId":"c","status":"failed",
                      "rawOutput":"Exit code 2\nboom",
                      "content":[{"type":"content","content":{"type":"text","text":"```\nExit code 2\nboom\n```"}}]}),
        ),
        update(
            json!({"sessionUpdate":"tool_call","toolCallId":"u","title":"rm y","kind":"execute",
                      "status":"failed","rawOutput":"User refused permission to run tool"}),
        ),
        update(
            json!({"sessionUpdate":"tool_call","toolCallId":"d","title":"Read x","kind":"read",
                      "status":"failed",
                      "content":[{"type":"content","content":{"type":"text","text":"```\nFile does not exist.\n```"}}]}),
        ),
    ];
    let text: String = lines.iter().map(|line| format!("{line}\n")).collect();
    let (parts, diagnostics) = common::normalize(text.as_bytes(), None);
    assert!(diagnostics.is_empty(), "{diagnostics:#?}");
    let codes: Vec<(ToolKind, Option<ErrorCode>)> = parts
        .iter()
        .map(|part| {
            (
                part.kind,
                part.error.as_ref().and_then(|error| error.code.clone()),
            )
        })
        .collect();
    assert_eq!(
        codes,
        [
            (ToolKind::Mcp, Some(ErrorCode::McpError)),
            (ToolKind::Bash, Some(ErrorCode::ExitCode)),
            (ToolKind::Bash, Some(ErrorCode::PermissionDenied)),
            (ToolKind::Bash, Some(ErrorCode::ExitCode)),
            (ToolKind::Bash, Some(ErrorCode::PermissionDenied)),
            (ToolKind::FileRead, None)
        ]
    );
    assert_eq!(
        parts[0].metadata.as_ref().unwrap()["mcp"],
        json!({"server": "toolbox", "tool": "divide"})
    );
    assert_eq!(
        parts[1].error.as_ref().unwrap().details.as_deref(),
        Some(&json!({"exitCode": 3, "output": "nope\n"}))
    );
    assert_eq!(parts[3].name, "Bash");
    assert_eq!(
        parts[3].metadata.as_ref().unwrap()["parentToolCallId"],
        "task_1"
    );
    assert_eq!(
        parts[3].error.as_ref().unwrap().details.as_deref(),
        Some(&json!({"exitCode": 2, "output": "boom"}))
    );
    assert_eq!(
        parts[5].error.as_ref().unwrap().message,
        "File does not exist."
    );
}

#[test]
fn bad_acp_lines_are_reported() {
    let lines = [
        r#"{"jsonrpc":"2.0","method":"session/update","params":{"sessionId":"s","update":{"sessionUpdate":"tool_call","toolCallId":"a"}}}"#,
        r#"{"jsonrpc":"2.0","method":"session/update","params":{"sessionId":"s"}}"#,
        r#"{"jsonrpc":"2.0"}"#,
        r#"[1]"#,
    ];
    let text = lines.join("\n");
    let (parts, diagnostics) = common::normalize(text.as_bytes(), Some(Dialect::ACP));
    assert!(parts.is_empty());
    let found: Vec<Option<u64>> = diagnostics
        .iter()
        .map(|diagnostic| diagnostic.line)
        .collect();
    assert_eq!(
        found,
        [Some(1), Some(2), Some(3), Some(4)],
        "{diagnostics:#?}"
    );
}

// --- Round trip over generated calls -----------------------------------------------

fn timestamp() -> impl Strategy<Value = Option<toolnorm::Timestamp>> {
    prop_oneof![
        Just(None),
        (1_700_000_000_000_u64..1_700_000_100_000).prop_map(|ms| Some(ms.into())),
        (0_u32..60).prop_map(|s| Some(format!("2026-01-01T00:00:{s:02}.000Z").into())),
    ]
}

fn json_value() -> impl Strategy<Value = Value> {
    let leaf = prop_oneof![
        Just(Value::Null),
        any::<bool>().prop_map(Value::from),
        any::<i32>().prop_map(Value::from),
        "[a-z \n]{0,12}".prop_map(Value::from),
    ];
    leaf.prop_recursive(2, 8, 3, |inner| {
        prop_oneof![
            prop::collection::vec(inner.clone(), 0..3).prop_map(Value::from),
            prop::collection::btree_map("[a-z_]{1,6}", inner, 0..3)
                .prop_map(|map| Value::Object(map.into_iter().collect())),
        ]
    })
}

fn input() -> impl Strategy<Value = Value> {
    prop_oneof![
        json_value(),
        ("[a-z/]{1,8}", "[a-z]{0,5}", "[a-z]{0,5}").prop_map(|(path, old, new)| {
            json!({"file_path": path, "old_string": old, "new_string": new, "offset": 3})
        }),
        ("[a-z/]{1,8}", "[a-z]{0,5}")
            .prop_map(|(path, content)| json!({"filePath": path, "content": content})),
    ]
}

fn metadata() -> impl Strategy<Value = Map<String, Value>> {
    prop::collection::btree_map("[a-z]{1,5}", json_value(), 0..3)
        .prop_map(|map| map.into_iter().collect())
}

fn error() -> impl Strategy<Value = ToolError> {
    (
        "[a-z ]{0,10}",
        prop::option::of("[a-z_]{1,8}"),
        prop::option::of(json_value()),
    )
        .prop_map(|(message, code, details)| ToolError {
            message,
            code: code.map(ErrorCode::from),
            details: details.map(toolnorm::Payload::from),
        })
}

/// One event for call `id`; events that do not fit its state are rejected by the fold.
fn event(id: String) -> impl Strategy<Value = ToolEvent> {
    let kind = prop::sample::select(ToolKind::ALL.to_vec());
    let name = prop::sample::select(vec!["Bash", "Edit", "write", "mcp__t__echo", "webSearch"]);
    prop_oneof![
        2 => (name, kind, "[A-Za-z ]{0,10}", input(), prop::option::of(metadata()), timestamp())
            .prop_map({
                let id = id.clone();
                move |(name, kind, title, input, metadata, at)| {
                    ToolEvent::ToolCallStarted(ToolCallStarted {
                        id: id.clone(), name: name.into(), kind, title, input: input.into(), metadata, at,
                    })
                }
            }),
        1 => input().prop_map({
            let id = id.clone();
            move |input| ToolEvent::InputUpdated(InputUpdated { id: id.clone(), input: input.into(), at: None })
        }),
        1 => "[A-Za-z ]{0,10}".prop_map({
            let id = id.clone();
            move |title| ToolEvent::TitleUpdated(TitleUpdated { id: id.clone(), title, at: None })
        }),
        1 => metadata().prop_map({
            let id = id.clone();
            move |metadata| ToolEvent::MetadataMerged(MetadataMerged { id: id.clone(), metadata, at: None })
        }),
        1 => timestamp().prop_map({
            let id = id.clone();
            move |at| ToolEvent::ToolCallRunning(ToolCallRunning { id: id.clone(), at })
        }),
        2 => "[a-z\n]{1,6}".prop_map({
            let id = id.clone();
            // The offset is fixed up when applied, so chunks follow each other.
            move |chunk| ToolEvent::OutputAppended(OutputAppended { id: id.clone(), offset: 0, chunk, at: None })
        }),
        1 => (prop::option::of(json_value()), prop::option::of(input()),
              prop::option::of("[A-Za-z ]{0,10}"), prop::option::of(0_u64..5000), timestamp())
            .prop_map({
                let id = id.clone();
                move |(output, input, title, elapsed_ms, at)| {
                    ToolEvent::ToolCallCompleted(ToolCallCompleted { id: id.clone(), output: output.map(toolnorm::Payload::from), input: input.map(toolnorm::Payload::from), title, elapsed_ms, at })
                }
            }),
        1 => (error(), prop::option::of(0_u64..5000), timestamp()).prop_map(move |(error, elapsed_ms, at)| {
            ToolEvent::ToolCallFailed(ToolCallFailed { id: id.clone(), error, input: None, title: None, elapsed_ms, at })
        }),
    ]
}

pub(crate) fn events() -> impl Strategy<Value = Vec<ToolEvent>> {
    let ids = prop::sample::select(vec!["call_1", "call_2", "call_3"]);
    prop::collection::vec(ids.prop_flat_map(|id| event(id.to_owned())), 1..24)
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(256))]

    #[test]
    fn parts_survive_acp_and_back(events in events()) {
        let mut fold = Fold::new();
        let mut emitter = AcpEmitter::new(AcpOptions::default());
        let mut frames = Vec::new();
        let mut streamed: HashMap<String, u64> = HashMap::new();
        for mut event in events {
            if let ToolEvent::OutputAppended(appended) = &mut event {
                appended.offset = streamed.get(&appended.id).copied().unwrap_or(0);
            }
            let chunk = match &event {
                ToolEvent::OutputAppended(appended) => Some((appended.id.clone(), appended.chunk.len() as u64)),
                _ => None,
            };
            if let Ok(update) = fold.apply(event) {
                if let Some((id, length)) = chunk {
                    *streamed.entry(id).or_default() += length;
                }
                // Changes only, as the normalizer reports them: a duplicate is not one.
                if update.outcome != toolnorm::Outcome::Unchanged {
                    frames.extend(emitter.part(&update.part()));
                }
            }
        }
        for frame in &frames {
            prop_assert!(validator().is_valid(frame), "{}", frame);
        }
        check_sequence(&frames, "generated");
        let (parts, diagnostics) = ingest(&frames);
        prop_assert!(diagnostics.is_empty(), "{:#?}", diagnostics);
        prop_assert_eq!(parts, fold.parts());
    }
}

/// A permission request answered by the client: rejected, cancelled, or with an error;
/// and a stream that holds the answer without the request.
#[test]
fn the_clients_answer_to_a_permission_request_decides_the_calls_approval() {
    let call = |id: &str| {
        json!({"jsonrpc":"2.0","method":"session/update","params":{"sessionId":"s1",
        "update":{"sessionUpdate":"tool_call","toolCallId":id,"title":"`rm notes.txt`","kind":"execute",
                  "status":"pending","rawInput":{"command":"rm notes.txt"}}}})
    };
    let asked = |request: u64, id: &str| {
        json!({"jsonrpc":"2.0","id":request,"method":"session/request_permission",
        "params":{"sessionId":"s1","toolCall":{"toolCallId":id},"options":[
            {"optionId":"allow","name":"Allow","kind":"allow_once"},
            {"optionId":"never","name":"Never","kind":"reject_always"}]}})
    };
    let lines = [
        call("t1"),
        asked(1, "t1"),
        json!({"jsonrpc":"2.0","id":1,"result":{"outcome":{"outcome":"selected","optionId":"never"}}}),
        call("t2"),
        asked(2, "t2"),
        json!({"jsonrpc":"2.0","id":2,"result":{"outcome":{"outcome":"cancelled"}}}),
        call("t3"),
        asked(3, "t3"),
        json!({"jsonrpc":"2.0","id":3,"error":{"code":-32603,"message":"the client went away"}}),
    ];
    let text: String = lines.iter().map(|line| format!("{line}\n")).collect();
    let (parts, diagnostics) = common::normalize(text.as_bytes(), None);
    assert!(diagnostics.is_empty(), "{diagnostics:#?}");
    let summary: Vec<(String, ToolState, String, Value)> = parts
        .iter()
        .map(|part| {
            let error = part.error.as_ref().unwrap();
            let approval = &part.metadata.as_ref().unwrap()["approval"];
            (
                error.code.as_ref().unwrap().to_string(),
                part.state,
                error.message.clone(),
                json!([approval["status"], approval["scope"], approval["optionId"]]),
            )
        })
        .collect();
    assert_eq!(
        summary,
        [
            (
                "user_rejected".into(),
                ToolState::Error,
                "the user denied the call".into(),
                json!(["denied", "always", "never"])
            ),
            (
                "interrupted".into(),
                ToolState::Error,
                "the approval request was cancelled".into(),
                json!(["cancelled", null, null])
            ),
            (
                "interrupted".into(),
                ToolState::Error,
                "the client went away".into(),
                json!(["cancelled", null, null])
            ),
        ]
    );
}
