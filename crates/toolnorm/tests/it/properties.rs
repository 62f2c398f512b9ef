//! Property tests: random event logs over interleaved calls, valid and invalid
//! (shuffled, duplicated, truncated), checked against a small reference model.
#![allow(clippy::unwrap_used, clippy::expect_used)] // test code: a failure should panic

use std::collections::HashMap;

use proptest::prelude::*;
use proptest::test_runner::FileFailurePersistence;
use serde_json::{Value, json};
use toolnorm::{
    Approval, ApprovalOption, ApprovalRequested, ApprovalResolved, ApprovalScope, ApprovalStatus,
    DecidedBy, Decision, ErrorCode, EventLogDecoder, Fold, InputUpdated, JsonObject,
    MetadataMerged, NormalizedToolPart, OutputAppended, Payload, Timestamp, Timing, TitleUpdated,
    ToolCallCompleted, ToolCallFailed, ToolCallRunning, ToolCallStarted, ToolError, ToolEvent,
    ToolKind, ToolState, replay,
};

// ---------------------------------------------------------------------------------------
// Reference model: the fold's rules, written as plainly as possible.
// ---------------------------------------------------------------------------------------

#[derive(Debug, Clone)]
struct ModelCall {
    id: String,
    name: String,
    kind: ToolKind,
    title: String,
    input: Payload,
    metadata: JsonObject,
    state: ToolState,
    streamed: String,
    output: Option<Payload>,
    error: Option<ToolError>,
    started_at: Option<Timestamp>,
    completed_at: Option<Timestamp>,
    elapsed_ms: Option<u64>,
    approval: Option<Approval>,
    ended_by_approval: bool,
}

impl ModelCall {
    fn part(&self) -> NormalizedToolPart {
        let mut metadata = self.metadata.clone();
        if self.state == ToolState::Running && !self.streamed.is_empty() {
            metadata.insert("partialOutput".into(), Value::String(self.streamed.clone()));
        }
        if let Some(approval) = &self.approval {
            metadata.insert("approval".into(), serde_json::to_value(approval).unwrap());
        }
        let timing = Timing {
            started_at: self.started_at.clone(),
            completed_at: self.completed_at.clone(),
            elapsed_ms: self.elapsed_ms,
        };
        NormalizedToolPart {
            id: self.id.clone(),
            name: self.name.clone(),
            kind: self.kind,
            title: self.title.clone(),
            input: self.input.clone(),
            output: self.output.clone(),
            error: self.error.clone(),
            state: self.state,
            timing: (timing != Timing::default()).then_some(timing),
            metadata: (!metadata.is_empty()).then_some(metadata),
        }
    }

    fn open(&self) -> bool {
        !self.state.is_terminal()
    }

    fn run(&mut self, at: Option<Timestamp>) {
        self.state = ToolState::Running;
        if self.started_at.is_none() {
            self.started_at = at;
        }
    }

    /// A pending approval takes the status the call's outcome implies.
    fn settle(&mut self, status: Option<ApprovalStatus>) {
        self.settle_by(status, None);
    }

    fn settle_by(&mut self, status: Option<ApprovalStatus>, decided_by: Option<DecidedBy>) {
        if let (Some(approval), Some(status)) = (self.approval.as_mut(), status)
            && approval.status == ApprovalStatus::Pending
        {
            approval.status = status;
            approval.decided_by = approval.decided_by.or(decided_by);
        }
    }

    fn fail(&mut self, mut error: ToolError, at: Option<Timestamp>, elapsed: Option<u64>) {
        self.state = ToolState::Error;
        if error.details.is_none() && !self.streamed.is_empty() {
            error.details = Some(json!({ "partialOutput": self.streamed }).into());
        }
        let (settled, by) = match error.code.as_ref().map(ErrorCode::as_str) {
            Some("permission_denied") => (Some(ApprovalStatus::Denied), None),
            Some("user_rejected") => (Some(ApprovalStatus::Denied), Some(DecidedBy::User)),
            Some("interrupted") => (Some(ApprovalStatus::Cancelled), None),
            _ => (Some(ApprovalStatus::Approved), None),
        };
        self.settle_by(settled, by);
        self.error = Some(error);
        self.finish(None, None, at, elapsed);
    }

    fn request(&mut self, e: &ApprovalRequested) -> Result<(), ()> {
        if let Some(approval) = &self.approval {
            let same = approval.requested_at == e.at
                && approval.reason == e.reason
                && approval.options == e.options
                && approval.risk == e.risk;
            return if same { Ok(()) } else { Err(()) };
        }
        if !self.open() {
            return Err(());
        }
        self.approval = Some(Approval {
            status: ApprovalStatus::Pending,
            requested_at: e.at.clone(),
            reason: e.reason.clone(),
            options: e.options.clone(),
            risk: e.risk.clone(),
            ..Approval::default()
        });
        Ok(())
    }

    fn resolve(&mut self, e: &ApprovalResolved) -> Result<(), ()> {
        fn fill<T: Clone + PartialEq>(slot: &mut Option<T>, value: &Option<T>) -> Result<(), ()> {
            match (&*slot, value) {
                (Some(held), Some(value)) if held != value => Err(()),
                (None, Some(value)) => {
                    *slot = Some(value.clone());
                    Ok(())
                }
                _ => Ok(()),
            }
        }
        let approval = self.approval.as_mut().ok_or(())?;
        let status = match e.decision {
            Decision::Approved => ApprovalStatus::Approved,
            Decision::Denied => ApprovalStatus::Denied,
            Decision::Cancelled => ApprovalStatus::Cancelled,
        };
        let was_pending = approval.status == ApprovalStatus::Pending;
        if !was_pending && approval.status != status {
            return Err(());
        }
        let mut next = approval.clone();
        next.status = status;
        fill(&mut next.resolved_at, &e.at)?;
        fill(&mut next.decided_by, &e.decided_by)?;
        fill(&mut next.scope, &e.scope)?;
        fill(&mut next.option_id, &e.option_id)?;
        fill(&mut next.feedback, &e.feedback)?;
        fill(&mut next.risk, &e.risk)?;
        *approval = next.clone();
        if !was_pending || status == ApprovalStatus::Approved || !self.open() {
            return Ok(());
        }
        let (code, default) = match (status, next.decided_by) {
            (ApprovalStatus::Cancelled, _) => ("interrupted", "the approval request was cancelled"),
            (_, Some(DecidedBy::User)) => ("user_rejected", "the user denied the call"),
            (_, Some(DecidedBy::Reviewer)) => ("permission_denied", "a reviewer denied the call"),
            _ => ("permission_denied", "the call was denied"),
        };
        let message = next.feedback.as_deref().unwrap_or(default);
        self.fail(ToolError::new(message).with_code(code), e.at.clone(), None);
        self.ended_by_approval = true;
        Ok(())
    }

    fn finish(
        &mut self,
        input: Option<Payload>,
        title: Option<String>,
        at: Option<Timestamp>,
        elapsed: Option<u64>,
    ) {
        if let Some(input) = input {
            self.input = input;
        }
        if let Some(title) = title {
            self.title = title;
        }
        self.completed_at = at;
        self.elapsed_ms = elapsed.or_else(|| {
            let start = epoch(self.started_at.as_ref()?)?;
            let end = epoch(self.completed_at.as_ref()?)?;
            (end >= start).then(|| end - start)
        });
    }
}

/// The generated timestamps are epoch milliseconds.
fn epoch(timestamp: &Timestamp) -> Option<u64> {
    match timestamp {
        Timestamp::Epoch(number) => number.as_u64(),
        Timestamp::Text(_) => None,
    }
}

#[derive(Debug, Default)]
struct Model {
    calls: Vec<ModelCall>,
}

impl Model {
    /// Applies an event; `Err(())` when the fold should report a diagnostic.
    fn apply(&mut self, event: &ToolEvent) -> Result<(), ()> {
        let Some(call) = self.calls.iter_mut().find(|call| call.id == event.id()) else {
            let ToolEvent::ToolCallStarted(started) = event else {
                return Err(());
            };
            self.calls.push(ModelCall {
                id: started.id.clone(),
                name: started.name.clone(),
                kind: started.kind,
                title: started.title.clone(),
                input: started.input.clone(),
                metadata: started.metadata.clone().unwrap_or_default(),
                state: ToolState::Started,
                streamed: String::new(),
                output: None,
                error: None,
                started_at: started.at.clone(),
                completed_at: None,
                elapsed_ms: None,
                approval: None,
                ended_by_approval: false,
            });
            return Ok(());
        };
        let subset =
            |keys: &JsonObject, of: &JsonObject| keys.iter().all(|(k, v)| of.get(k) == Some(v));
        match event {
            ToolEvent::ToolCallStarted(e) => {
                let same = e.name == call.name
                    && e.kind == call.kind
                    && e.title == call.title
                    && e.input == call.input
                    && e.metadata
                        .as_ref()
                        .is_none_or(|m| subset(m, &call.metadata));
                if same { Ok(()) } else { Err(()) }
            }
            ToolEvent::InputUpdated(e) if e.input == call.input => Ok(()),
            ToolEvent::InputUpdated(e) if call.open() => {
                call.input = e.input.clone();
                Ok(())
            }
            ToolEvent::TitleUpdated(e) if e.title == call.title => Ok(()),
            ToolEvent::TitleUpdated(e) if call.open() => {
                call.title = e.title.clone();
                Ok(())
            }
            ToolEvent::MetadataMerged(e) if subset(&e.metadata, &call.metadata) => Ok(()),
            ToolEvent::MetadataMerged(e) if call.open() => {
                call.metadata.extend(e.metadata.clone());
                Ok(())
            }
            ToolEvent::ToolCallRunning(e) => match call.state {
                ToolState::Started => {
                    call.run(e.at.clone());
                    Ok(())
                }
                ToolState::Running => Ok(()),
                _ => Err(()),
            },
            ToolEvent::OutputAppended(e) if call.open() => {
                let received = call.streamed.len() as u64;
                let end = e.offset + e.chunk.len() as u64;
                if e.offset > received {
                    return Err(());
                }
                let overlap =
                    &call.streamed.as_bytes()[e.offset as usize..end.min(received) as usize];
                if !e.chunk.as_bytes().starts_with(overlap) {
                    return Err(());
                }
                if end > received {
                    let fresh = e.chunk.get((received - e.offset) as usize..).ok_or(())?;
                    if call.state == ToolState::Started {
                        call.run(e.at.clone());
                    }
                    call.streamed.push_str(fresh);
                }
                Ok(())
            }
            ToolEvent::ToolCallCompleted(e) if call.open() => {
                call.state = ToolState::Complete;
                call.output = e.output.clone().or_else(|| {
                    ((!call.streamed.is_empty()).then(|| Value::String(call.streamed.clone())))
                        .map(Payload::from)
                });
                call.finish(e.input.clone(), e.title.clone(), e.at.clone(), e.elapsed_ms);
                call.settle(Some(ApprovalStatus::Approved));
                Ok(())
            }
            ToolEvent::ToolCallCompleted(e) if call.state == ToolState::Complete => {
                let repeat = (e.output.is_none() || e.output == call.output)
                    && (e.input.is_none() || e.input.as_ref() == Some(&call.input))
                    && (e.title.is_none() || e.title.as_ref() == Some(&call.title))
                    && (e.at.is_none() || e.at == call.completed_at);
                if repeat { Ok(()) } else { Err(()) }
            }
            ToolEvent::ToolCallFailed(e) if call.open() => {
                if let Some(input) = &e.input {
                    call.input = input.clone();
                }
                if let Some(title) = &e.title {
                    call.title = title.clone();
                }
                call.fail(e.error.clone(), e.at.clone(), e.elapsed_ms);
                Ok(())
            }
            ToolEvent::ToolCallFailed(e) if call.state == ToolState::Error => {
                let current = call.error.as_ref().ok_or(())?;
                let repeat = e.error.message == current.message
                    && e.error.code == current.code
                    && (e.error.details.is_none() || e.error.details == current.details)
                    && (e.input.is_none() || e.input.as_ref() == Some(&call.input))
                    && (e.title.is_none() || e.title.as_ref() == Some(&call.title))
                    && (e.at.is_none() || e.at == call.completed_at);
                if repeat {
                    return Ok(());
                }
                if !call.ended_by_approval {
                    return Err(());
                }
                // The provider's error for a call its approval ended.
                let error = call.error.as_mut().ok_or(())?;
                error.message = e.error.message.clone();
                if e.error.details.is_some() {
                    error.details = e.error.details.clone();
                }
                let elapsed = match e.at {
                    Some(_) => e.elapsed_ms,
                    None => e.elapsed_ms.or(call.elapsed_ms),
                };
                let at = e.at.clone().or_else(|| call.completed_at.clone());
                call.finish(e.input.clone(), e.title.clone(), at, elapsed);
                call.ended_by_approval = false;
                Ok(())
            }
            ToolEvent::ApprovalRequested(e) => call.request(e),
            ToolEvent::ApprovalResolved(e) => call.resolve(e),
            _ => Err(()),
        }
    }

    fn parts(&self) -> Vec<NormalizedToolPart> {
        self.calls.iter().map(ModelCall::part).collect()
    }

    fn get(&self, id: &str) -> Option<&ModelCall> {
        self.calls.iter().find(|call| call.id == id)
    }

    /// The parts of the calls still open, in first-seen order.
    fn open_parts(&self) -> Vec<NormalizedToolPart> {
        self.calls
            .iter()
            .filter(|call| call.open())
            .map(ModelCall::part)
            .collect()
    }
}

// ---------------------------------------------------------------------------------------
// Generators: per-call lifecycles, interleaved, then damaged.
// ---------------------------------------------------------------------------------------

const IDS: [&str; 4] = ["call_a", "call_b", "call_c", "call_d"];

fn small_value() -> BoxedStrategy<Value> {
    prop_oneof![
        Just(Value::Null),
        any::<bool>().prop_map(Value::from),
        (0u32..5).prop_map(Value::from),
        "[a-c]{0,3}".prop_map(Value::from),
        ("[a-c]{1,2}", 0u32..3).prop_map(|(key, n)| json!({ key: n })),
    ]
    .boxed()
}

fn timestamp() -> impl Strategy<Value = Option<Timestamp>> {
    prop::option::of((1_700_000_000_000u64..1_700_000_000_100).prop_map(Timestamp::from))
}

fn metadata() -> impl Strategy<Value = JsonObject> {
    prop::collection::vec(("[xyz]", small_value()), 0..3)
        .prop_map(|pairs| pairs.into_iter().collect())
}

/// A provider's code or one of the shared ones.
fn error_code() -> impl Strategy<Value = ErrorCode> {
    prop_oneof![
        "[0-9]".prop_map(ErrorCode::from),
        Just(ErrorCode::ExitCode),
        Just(ErrorCode::McpError),
        Just(ErrorCode::PermissionDenied),
        Just(ErrorCode::UserRejected),
        Just(ErrorCode::Interrupted),
    ]
}

/// An approval request for `id`, with or without its details.
fn approval_requested(id: &'static str) -> BoxedStrategy<ToolEvent> {
    let option = (
        "[a-c]{1,2}",
        prop::sample::select(vec![
            Decision::Approved,
            Decision::Denied,
            Decision::Cancelled,
        ]),
        prop::option::of(scope()),
    )
        .prop_map(|(name, decision, scope)| ApprovalOption {
            id: name.clone(),
            label: name,
            decision,
            scope,
        });
    (
        prop::option::of("[a-c ]{0,4}"),
        prop::collection::vec(option, 0..3),
        prop::option::of(prop::sample::select(vec!["low", "high"])),
        timestamp(),
    )
        .prop_map(move |(reason, options, risk, at)| {
            ToolEvent::from(ApprovalRequested {
                id: id.into(),
                reason,
                options,
                risk: risk.map(str::to_owned),
                at,
            })
        })
        .boxed()
}

fn scope() -> impl Strategy<Value = ApprovalScope> {
    prop::sample::select(vec![
        ApprovalScope::Once,
        ApprovalScope::Session,
        ApprovalScope::Always,
    ])
}

/// A decision on `id`'s approval, with or without who made it and when.
fn approval_resolved(id: &'static str) -> BoxedStrategy<ToolEvent> {
    (
        prop::sample::select(vec![
            Decision::Approved,
            Decision::Denied,
            Decision::Cancelled,
        ]),
        prop::option::of(prop::sample::select(vec![
            DecidedBy::User,
            DecidedBy::Policy,
            DecidedBy::Reviewer,
        ])),
        prop::option::of(scope()),
        prop::option::of("[a-c]{1,2}"),
        prop::option::of("[a-c ]{1,4}"),
        prop::option::of(prop::sample::select(vec![
            "low".to_owned(),
            "high".to_owned(),
        ])),
        timestamp(),
    )
        .prop_map(
            move |(decision, decided_by, scope, option_id, feedback, risk, at)| {
                ToolEvent::from(ApprovalResolved {
                    id: id.into(),
                    decision,
                    decided_by,
                    scope,
                    option_id,
                    feedback,
                    risk,
                    at,
                })
            },
        )
        .boxed()
}

fn kind() -> impl Strategy<Value = ToolKind> {
    prop::sample::select(ToolKind::ALL.to_vec())
}

/// One call's events in lifecycle order; the tail may hold events after its terminal one.
fn lifecycle(id: &'static str) -> BoxedStrategy<Vec<ToolEvent>> {
    let start = (
        "[A-C][a-c]{0,3}",
        kind(),
        "[a-c ]{0,5}",
        small_value(),
        prop::option::of(metadata()),
        timestamp(),
    )
        .prop_map(move |(name, kind, title, input, metadata, at)| {
            ToolEvent::from(ToolCallStarted {
                id: id.into(),
                name,
                kind,
                title,
                input: input.into(),
                metadata,
                at,
            })
        })
        .boxed();
    let update = prop_oneof![
        (small_value(), timestamp()).prop_map(move |(input, at)| ToolEvent::from(InputUpdated {
            id: id.into(),
            input: input.into(),
            at
        })),
        ("[a-c ]{0,5}", timestamp()).prop_map(move |(title, at)| ToolEvent::from(TitleUpdated {
            id: id.into(),
            title,
            at
        })),
        (metadata(), timestamp()).prop_map(move |(metadata, at)| ToolEvent::from(MetadataMerged {
            id: id.into(),
            metadata,
            at
        })),
    ]
    .boxed();
    let running = timestamp()
        .prop_map(move |at| ToolEvent::from(ToolCallRunning { id: id.into(), at }))
        .boxed();
    let chunks = prop::collection::vec(("[a-cé\n]{0,4}", timestamp()), 0..4)
        .prop_map(move |chunks| {
            let mut offset = 0u64;
            chunks
                .into_iter()
                .map(|(chunk, at)| {
                    let event = ToolEvent::from(OutputAppended {
                        id: id.into(),
                        offset,
                        chunk: chunk.clone(),
                        at,
                    });
                    offset += chunk.len() as u64;
                    event
                })
                .collect::<Vec<_>>()
        })
        .boxed();
    let terminal = prop_oneof![
        (
            prop::option::of(small_value()),
            prop::option::of(small_value()),
            prop::option::of("[a-c ]{1,4}"),
            prop::option::of(0u64..50),
            timestamp()
        )
            .prop_map(move |(output, input, title, elapsed_ms, at)| {
                ToolEvent::from(ToolCallCompleted {
                    id: id.into(),
                    output: output.map(Payload::from),
                    input: input.map(Payload::from),
                    title,
                    elapsed_ms,
                    at,
                })
            }),
        (
            "[a-c]{1,4}",
            prop::option::of(error_code()),
            prop::option::of(small_value()),
            prop::option::of(0u64..50),
            timestamp()
        )
            .prop_map(move |(message, code, details, elapsed_ms, at)| {
                let error = ToolError {
                    message,
                    code,
                    details: details.map(Payload::from),
                };
                ToolEvent::from(ToolCallFailed {
                    id: id.into(),
                    error,
                    input: None,
                    title: None,
                    elapsed_ms,
                    at,
                })
            }),
    ]
    .boxed();
    // Approval events: a request, its resolutions (none, one, or a second, agreeing or
    // not), before the call runs or after it ended.
    let approvals = (
        prop::option::of(approval_requested(id)),
        prop::collection::vec(approval_resolved(id), 0..3),
        any::<bool>(),
    );
    (
        start,
        prop::collection::vec(update.clone(), 0..3),
        approvals,
        prop::option::of(running),
        chunks,
        prop::collection::vec(update, 0..2),
        prop::option::of(terminal.clone()),
        prop::collection::vec(terminal, 0..2),
    )
        .prop_map(
            |(start, updates, approvals, running, chunks, late_updates, terminal, after)| {
                let (request, resolutions, resolved_late) = approvals;
                let mut events = vec![start];
                events.extend(updates);
                events.extend(request);
                let (early, late) = if resolved_late {
                    (Vec::new(), resolutions)
                } else {
                    (resolutions, Vec::new())
                };
                events.extend(early);
                events.extend(running);
                events.extend(chunks);
                events.extend(late_updates);
                events.extend(terminal);
                events.extend(late);
                events.extend(after);
                events
            },
        )
        .boxed()
}

/// Damage applied to an interleaved log.
#[derive(Debug, Clone)]
enum Damage {
    Swap(usize, usize),
    Duplicate(usize, usize),
    Truncate(usize),
    Drop(usize),
}

fn damage() -> impl Strategy<Value = Damage> {
    prop_oneof![
        (any::<usize>(), any::<usize>()).prop_map(|(a, b)| Damage::Swap(a, b)),
        (any::<usize>(), any::<usize>()).prop_map(|(a, b)| Damage::Duplicate(a, b)),
        any::<usize>().prop_map(Damage::Truncate),
        any::<usize>().prop_map(Damage::Drop),
    ]
}

/// Interleaved lifecycles of up to four calls, then optionally damaged.
fn event_log() -> impl Strategy<Value = Vec<ToolEvent>> {
    let lifecycles = (
        lifecycle(IDS[0]),
        lifecycle(IDS[1]),
        lifecycle(IDS[2]),
        lifecycle(IDS[3]),
        1usize..=4,
    )
        .prop_map(|(a, b, c, d, n)| vec![a, b, c, d].into_iter().take(n).collect::<Vec<_>>());
    (
        lifecycles,
        prop::collection::vec(any::<prop::sample::Index>(), 0..64),
        prop::collection::vec(damage(), 0..4),
    )
        .prop_map(|(mut lifecycles, picks, damages)| {
            // Interleave: keep each call's order, pick which call goes next.
            let mut log = Vec::new();
            let mut picks = picks.into_iter();
            while lifecycles.iter().any(|events| !events.is_empty()) {
                let open: Vec<usize> = (0..lifecycles.len())
                    .filter(|&i| !lifecycles[i].is_empty())
                    .collect();
                let which = picks.next().map_or(0, |pick| pick.index(open.len()));
                log.push(lifecycles[open[which]].remove(0));
            }
            for damage in damages {
                if log.is_empty() {
                    break;
                }
                let n = log.len();
                match damage {
                    Damage::Swap(a, b) => log.swap(a % n, b % n),
                    Damage::Duplicate(a, b) => {
                        let event = log[a % n].clone();
                        log.insert(b % (n + 1), event);
                    }
                    Damage::Truncate(at) => log.truncate(at % (n + 1)),
                    Damage::Drop(at) => {
                        log.remove(at % n);
                    }
                }
            }
            log
        })
}

fn fold_all(events: &[ToolEvent]) -> (Fold, Vec<bool>) {
    let mut fold = Fold::new();
    let applied = events
        .iter()
        .map(|event| fold.apply(event.clone()).is_ok())
        .collect();
    (fold, applied)
}

fn to_jsonl(events: &[ToolEvent]) -> Vec<u8> {
    let mut bytes = Vec::new();
    toolnorm::write_log(&mut bytes, events).expect("writing to memory");
    bytes
}

proptest! {
    #![proptest_config(ProptestConfig {
        cases: 512,
        failure_persistence: Some(Box::new(FileFailurePersistence::Direct("proptest-regressions/properties.txt"))),
        ..ProptestConfig::default()
    })]

    /// The fold agrees with the reference model on every event and on the final parts.
    #[test]
    fn fold_matches_the_reference_model(events in event_log()) {
        let mut model = Model::default();
        let mut fold = Fold::new();
        for (n, event) in events.iter().enumerate() {
            let expected = model.apply(event);
            let actual = fold.apply(event.clone()).map(|update| update.part());
            prop_assert_eq!(expected.is_ok(), actual.is_ok(), "event {} {:?}: fold said {:?}", n, event, actual);
        }
        prop_assert_eq!(fold.parts(), model.parts());
    }

    /// A fold that evicts finished calls agrees with the model while a call is open, hands
    /// over the finished part with the event that finished it, reports every later event
    /// for that call as already finished, and holds only the open calls.
    #[test]
    fn an_evicting_fold_matches_the_model_while_calls_are_open(events in event_log()) {
        let mut model = Model::default();
        let mut fold = Fold::builder().evict_finished(true).build();
        for (n, event) in events.iter().enumerate() {
            let finished = model.get(event.id()).map(|call| call.state).filter(|state| state.is_terminal());
            let actual = fold.apply(event.clone()).map(|update| update.part());
            match finished {
                Some(state) => prop_assert!(
                    matches!(&actual, Err(toolnorm::Error::AlreadyFinished { state: s, .. }) if *s == state),
                    "event {} {:?}: fold said {:?}", n, event, actual
                ),
                None => {
                    let expected = model.apply(event);
                    prop_assert_eq!(expected.is_ok(), actual.is_ok(), "event {} {:?}: fold said {:?}", n, event, actual);
                    if let Ok(part) = actual {
                        prop_assert_eq!(Some(part), model.get(event.id()).map(ModelCall::part));
                    }
                }
            }
        }
        prop_assert_eq!(fold.parts(), model.open_parts());
    }

    /// Every snapshot is about its event's id, never holds both output and error,
    /// holds output only when complete and error only on error, never finishes with its
    /// approval pending, and never moves back from a terminal state.
    #[test]
    fn snapshots_keep_the_invariants(events in event_log()) {
        let mut fold = Fold::new();
        let mut last_state: HashMap<String, ToolState> = HashMap::new();
        for event in events {
            let id = event.id().to_owned();
            let before = fold.get(&id).map(|call| call.to_part());
            match fold.apply(event) {
                Ok(update) => {
                    let part = update.part();
                    prop_assert_eq!(&part.id, &id);
                    prop_assert!(part.output.is_none() || part.error.is_none());
                    prop_assert!(part.output.is_none() || part.state == ToolState::Complete);
                    prop_assert!(part.error.is_none() == (part.state != ToolState::Error));
                    let approval = part.metadata.as_ref().and_then(|metadata| metadata.get("approval"));
                    prop_assert!(!part.state.is_terminal() || approval.is_none_or(|approval| approval["status"] != "pending"),
                        "{} finished with its approval pending", id);
                    if let Some(previous) = last_state.get(&id) {
                        prop_assert!(!previous.is_terminal() || *previous == part.state,
                            "{} moved from {} to {}", id, previous, part.state);
                    }
                    last_state.insert(id, part.state);
                }
                Err(_) => {
                    // A rejected event leaves the part exactly as it was.
                    prop_assert_eq!(fold.get(&id).map(|call| call.to_part()), before);
                }
            }
        }
    }

    /// Folding is deterministic, replay equals live folding, and folding the event log
    /// (the events that applied) twice is the same as folding it once.
    #[test]
    fn fold_is_deterministic_and_idempotent(events in event_log()) {
        let (live, applied) = fold_all(&events);
        let (again, _) = fold_all(&events);
        prop_assert_eq!(live.parts(), again.parts());
        prop_assert_eq!(replay(events.clone()).parts, live.parts());
        let log: Vec<ToolEvent> = events.iter().zip(&applied).filter(|(_, ok)| **ok).map(|(e, _)| e.clone()).collect();
        prop_assert_eq!(replay(log.clone()).parts, live.parts());
        let twice: Vec<ToolEvent> = log.iter().chain(log.iter()).cloned().collect();
        let replayed_twice = replay(twice);
        prop_assert_eq!(replayed_twice.parts, live.parts());
    }

    /// Parts and events survive a serde round trip unchanged.
    #[test]
    fn serde_round_trip_is_lossless(events in event_log()) {
        for event in &events {
            let text = serde_json::to_string(event).expect("serializing an event");
            prop_assert_eq!(&serde_json::from_str::<ToolEvent>(&text).expect("reading it back"), event);
        }
        for part in replay(events).parts {
            let text = serde_json::to_string(&part).expect("serializing a part");
            prop_assert_eq!(serde_json::from_str::<NormalizedToolPart>(&text).expect("reading it back"), part);
        }
    }

    /// A JSONL log fed in chunks cut at arbitrary byte positions gives the same parts as fed whole.
    #[test]
    fn chunked_log_gives_the_same_parts(events in event_log(), cuts in prop::collection::vec(any::<prop::sample::Index>(), 0..8)) {
        let bytes = to_jsonl(&events);
        let mut positions: Vec<usize> = cuts.iter().map(|cut| cut.index(bytes.len() + 1)).collect();
        positions.sort_unstable();
        let mut fold = Fold::new();
        let mut decoder = EventLogDecoder::new();
        let mut errors = 0;
        let mut apply = |result: Result<ToolEvent, toolnorm::Error>| match result {
            Ok(event) => { let _ = fold.apply(event); }
            Err(_) => errors += 1,
        };
        let mut from = 0;
        for to in positions {
            decoder.push(&bytes[from..to], &mut apply);
            from = to;
        }
        decoder.push(&bytes[from..], &mut apply);
        decoder.finish(&mut apply);
        prop_assert_eq!(errors, 0);
        prop_assert_eq!(fold.parts(), replay(events).parts);
    }
}
