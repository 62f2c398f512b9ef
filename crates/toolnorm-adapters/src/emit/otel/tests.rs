//! The emitter's placing of calls in sessions and traces, and its ending of open calls.

use serde_json::json;
use toolnorm::{Completion, ToolCall, ToolKind};

use super::*;

fn spans(requests: Vec<ExportTraceServiceRequest>) -> Vec<Span> {
    spans_of(requests).collect()
}

#[test]
fn a_parent_told_after_the_first_snapshot_still_parents_the_span() {
    let mut emitter = OtelEmitter::new(OtelOptions::default());
    let task = ToolCall::start("task", "task", ToolKind::Subagent);
    assert!(emitter.part(&task.to_part()).is_none());
    let child = ToolCall::start("child", "bash", ToolKind::Bash);
    assert!(emitter.part(&child.to_part()).is_none());
    let mut metadata = toolnorm::JsonObject::new();
    metadata.insert(meta::PARENT_TOOL_CALL_ID.into(), json!("task"));
    let child = child.with_metadata(metadata);
    let child_done = emitter
        .part(&child.complete(Completion::with_output("1")).to_part())
        .unwrap();
    let task_done = emitter
        .part(&task.complete(Completion::with_output("done")).to_part())
        .unwrap();
    let child_span = &spans(vec![child_done])[0];
    let task_span = &spans(vec![task_done])[0];
    assert_eq!(child_span.parent_span_id, task_span.span_id);
    assert_eq!(child_span.trace_id, task_span.trace_id);
    let root = &spans(emitter.finish(&[]))[0];
    assert_eq!(task_span.parent_span_id, root.span_id);
    assert!(root.parent_span_id.is_empty());
}

#[test]
fn a_call_of_any_kind_parents_the_calls_that_name_it() {
    // A code-mode program's calls name the program's call as their parent.
    let mut emitter = OtelEmitter::new(OtelOptions::default());
    let program = ToolCall::start("program", "run_typescript", ToolKind::Unknown);
    assert!(emitter.part(&program.to_part()).is_none());
    let mut metadata = toolnorm::JsonObject::new();
    metadata.insert(meta::PARENT_TOOL_CALL_ID.into(), json!("program"));
    let child = ToolCall::start("child", "mcp_toolbox.echo", ToolKind::Mcp).with_metadata(metadata);
    let child_done = emitter
        .part(&child.complete(Completion::with_output("ping")).to_part())
        .unwrap();
    let program_done = emitter
        .part(&program.complete(Completion::with_output("ping")).to_part())
        .unwrap();
    let child_span = &spans(vec![child_done])[0];
    let program_span = &spans(vec![program_done])[0];
    assert_eq!(child_span.parent_span_id, program_span.span_id);
    assert_eq!(child_span.trace_id, program_span.trace_id);
}

#[test]
fn a_stream_that_names_no_session_is_keyed_by_its_first_call_or_the_one_given() {
    let trace = |options: OtelOptions| {
        let mut emitter = OtelEmitter::new(options);
        let call = ToolCall::start("c1", "Bash", ToolKind::Bash);
        let done = call.complete(Completion::with_output(""));
        spans(vec![emitter.part(&done.to_part()).unwrap()])[0]
            .trace_id
            .clone()
    };
    assert_eq!(
        trace(OtelOptions::default()),
        ids::trace_id("call:c1").to_vec()
    );
    let given = OtelOptions {
        session_id: Some("s".into()),
        ..OtelOptions::default()
    };
    assert_eq!(trace(given), ids::trace_id("session:s").to_vec());
}

#[test]
fn calls_of_sessions_that_take_turns_keep_each_its_session() {
    let mut emitter = OtelEmitter::new(OtelOptions {
        session_id: Some("given".into()),
        ..OtelOptions::default()
    });
    let mut trace = |id: &str, session: Option<&str>| {
        let mut metadata = toolnorm::JsonObject::new();
        if let Some(session) = session {
            metadata.insert(meta::SESSION_ID.into(), json!(session));
        }
        let call = ToolCall::start(id, "Bash", ToolKind::Bash).with_metadata(metadata);
        let done = emitter.part(&call.complete(Completion::with_output("")).to_part());
        spans(vec![done.unwrap()])[0].trace_id.clone()
    };
    let of = |key: &str| ids::trace_id(key).to_vec();
    for (id, session, key) in [
        ("c1", Some("a"), "session:a"),
        ("c2", Some("a"), "session:a"),
        ("c3", Some("b"), "session:b"),
        ("c4", Some("a"), "session:a"),
        ("c5", None, "session:given"),
        ("c6", Some("given"), "session:given"),
        ("c7", Some("b"), "session:b"),
    ] {
        assert_eq!(trace(id, session), of(key), "{id}");
    }
}

#[test]
fn open_calls_end_with_the_stream_unmeasured() {
    let mut emitter = OtelEmitter::new(OtelOptions::default());
    let open = ToolCall::start("c1", "Bash", ToolKind::Bash).to_part();
    assert!(emitter.part(&open).is_none());
    let requests = emitter.finish(std::slice::from_ref(&open));
    let [request] = &requests[..] else {
        panic!("one request for the one session")
    };
    let spans = &request.resource_spans[0].scope_spans[0].spans;
    assert_eq!(spans.len(), 2, "the open call and the root");
    let attribute = |span: &Span, key: &str| {
        span.attributes
            .iter()
            .find(|attribute| attribute.key == key)
            .and_then(|attribute| attribute.value.clone())
    };
    let state = attribute(&spans[0], attr::STATE).unwrap();
    assert_eq!(
        state.value,
        Some(
            opentelemetry_proto::tonic::common::v1::any_value::Value::StringValue("started".into())
        )
    );
    assert_eq!(spans[0].status.as_ref().map(|status| status.code), Some(0));
    assert_eq!(spans[0].start_time_unix_nano, span::NANOS_PER_POSITION);
}
