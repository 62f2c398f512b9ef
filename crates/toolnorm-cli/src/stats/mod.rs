//! `toolnorm stats`: tool usage across sessions: calls per provider, kind and tool;
//! error rates and codes; p50/p95/max duration per tool; the longest calls. The tables
//! are in [`tables`]; the diagnostics summed per file and the files not read in [`notes`].

mod approvals;
mod notes;
mod tables;

use std::collections::BTreeMap;
use std::io::{self, Write};
use std::process::ExitCode;

use serde::Serialize;

use crate::normalize::builder;
use crate::sessions::{self, Lines, Session};
use crate::{EXIT_USAGE, StatsArgs, finish_output};
use notes::{FileDiagnostics, Unread};

/// Calls and errors of one group (a provider, a kind).
#[derive(Debug, Default, Serialize)]
struct Count {
    calls: u64,
    errors: u64,
}

/// One tool's figures.
#[derive(Debug, Default, Serialize)]
#[serde(rename_all = "camelCase")]
struct Tool {
    name: String,
    kind: String,
    calls: u64,
    errors: u64,
    error_rate: f64,
    /// Calls with a duration (the percentiles are over them).
    timed: u64,
    p50_ms: Option<u64>,
    p95_ms: Option<u64>,
    max_ms: Option<u64>,
}

/// One of the longest calls.
#[derive(Debug, Serialize)]
#[serde(rename_all = "camelCase")]
struct Long {
    elapsed_ms: u64,
    name: String,
    title: String,
    state: String,
    source: String,
}

/// The whole report, as `--json` writes it.
#[derive(Debug, Default, Serialize)]
#[serde(rename_all = "camelCase")]
struct Report {
    sessions: u64,
    calls: u64,
    errors: u64,
    lines: Lines,
    providers: BTreeMap<String, Count>,
    kinds: BTreeMap<String, Count>,
    error_codes: BTreeMap<String, u64>,
    tools: Vec<Tool>,
    /// The tools whose calls asked for approval.
    approvals: Vec<approvals::ToolApprovals>,
    longest: Vec<Long>,
    /// The diagnostics, summed per file and kind (files without any left out).
    diagnostics: Vec<FileDiagnostics>,
    /// The files not read, in input order.
    unread: Vec<Unread>,
}

/// The value at quantile `q` of sorted `values` (nearest rank).
fn quantile(sorted: &[u64], q: f64) -> Option<u64> {
    if sorted.is_empty() {
        return None;
    }
    let rank = (q * sorted.len() as f64).ceil() as usize;
    sorted.get(rank.clamp(1, sorted.len()) - 1).copied()
}

fn report(sessions: &[Session], longest: usize) -> Report {
    let mut report = Report {
        sessions: sessions.len() as u64,
        ..Report::default()
    };
    let mut durations: BTreeMap<String, Vec<u64>> = BTreeMap::new();
    let mut tools: BTreeMap<String, Tool> = BTreeMap::new();
    let mut kinds_of: BTreeMap<String, BTreeMap<String, u64>> = BTreeMap::new();
    let mut long = Vec::new();
    let mut asked = approvals::Tally::default();
    for session in sessions {
        let lines = &mut report.lines;
        lines.lines += session.lines.lines;
        lines.applied += session.lines.applied;
        lines.known_non_tool += session.lines.known_non_tool;
        lines.notices += session.lines.notices;
        lines.errors += session.lines.errors;
        let provider = session
            .provider
            .clone()
            .unwrap_or_else(|| "unknown".to_owned());
        for part in &session.parts {
            let failed = part.state == toolnorm::ToolState::Error;
            report.calls += 1;
            report.errors += u64::from(failed);
            for count in [
                report.providers.entry(provider.clone()).or_default(),
                report
                    .kinds
                    .entry(part.kind.as_str().to_owned())
                    .or_default(),
            ] {
                count.calls += 1;
                count.errors += u64::from(failed);
            }
            if failed {
                let code = part
                    .error
                    .as_ref()
                    .and_then(|error| error.code.as_ref())
                    .map_or("(no code)", |code| code.as_str());
                *report.error_codes.entry(code.to_owned()).or_default() += 1;
            }
            let tool = tools.entry(part.name.clone()).or_insert_with(|| Tool {
                name: part.name.clone(),
                ..Tool::default()
            });
            tool.calls += 1;
            tool.errors += u64::from(failed);
            asked.add(part);
            *kinds_of
                .entry(part.name.clone())
                .or_default()
                .entry(part.kind.as_str().to_owned())
                .or_default() += 1;
            if let Some(elapsed) = part.timing.as_ref().and_then(|timing| timing.elapsed_ms) {
                durations
                    .entry(part.name.clone())
                    .or_default()
                    .push(elapsed);
                long.push(Long {
                    elapsed_ms: elapsed,
                    name: part.name.clone(),
                    title: part.title.clone(),
                    state: part.state.as_str().to_owned(),
                    source: session.source.clone(),
                });
            }
        }
    }
    for (name, tool) in &mut tools {
        tool.error_rate = tool.errors as f64 / tool.calls.max(1) as f64;
        // The kind the tool was most often given (the first by name on a tie).
        if let Some(kinds) = kinds_of.get(name) {
            let mut best: Option<(&String, u64)> = None;
            for (kind, &n) in kinds {
                if best.is_none_or(|(_, most)| n > most) {
                    best = Some((kind, n));
                }
            }
            tool.kind = best.map(|(kind, _)| kind.clone()).unwrap_or_default();
        }
        if let Some(values) = durations.get_mut(name) {
            values.sort_unstable();
            tool.timed = values.len() as u64;
            tool.p50_ms = quantile(values, 0.5);
            tool.p95_ms = quantile(values, 0.95);
            tool.max_ms = values.last().copied();
        }
    }
    report.tools = tools.into_values().collect();
    report.approvals = asked.finish();
    report
        .tools
        .sort_by(|a, b| b.calls.cmp(&a.calls).then_with(|| a.name.cmp(&b.name)));
    // Longest first; on a tie, in input order (the sort is stable).
    long.sort_by_key(|call| std::cmp::Reverse(call.elapsed_ms));
    long.truncate(longest);
    report.longest = long;
    report.diagnostics = notes::summarize(sessions);
    report
}

/// The report of `sessions` as `stats --json` writes it (the sessions without a call or
/// a line read listed as not read), for the server's `/api/stats`.
pub(crate) fn report_json(sessions: Vec<Session>, longest: usize) -> serde_json::Result<String> {
    let (sessions, unread): (Vec<Session>, Vec<Session>) = sessions
        .into_iter()
        .partition(|session| !notes::is_empty(session));
    let mut report = report(&sessions, longest);
    report.unread = unread.iter().map(Unread::empty).collect();
    serde_json::to_string(&report)
}

/// `toolnorm stats`: the tables (or `--json`) on `stdout`, then on `stderr` the
/// diagnostics summed per file and kind (each one with `--verbose`) and the files not
/// read.
pub fn stats(args: &StatsArgs, stdout: impl Write, stderr: &mut impl Write) -> ExitCode {
    if let Err(message) = builder(&args.read) {
        let _ = writeln!(stderr, "toolnorm: {message}");
        return ExitCode::from(EXIT_USAGE);
    }
    let results = match &args.db {
        Some(db) => match crate::catalog::indexed_for_stats(db.as_deref()) {
            Ok(sessions) => sessions.into_iter().map(Ok).collect(),
            Err(message) => {
                let _ = writeln!(stderr, "toolnorm: {message}");
                return ExitCode::from(EXIT_USAGE);
            }
        },
        None => match sessions::read_each(&args.inputs, &args.read, stderr) {
            Ok(results) => results,
            Err(status) => return status,
        },
    };
    let mut sessions = Vec::new();
    let mut unread = Vec::new();
    let mut status = ExitCode::SUCCESS;
    for result in results {
        match result {
            Ok(session) if notes::is_empty(&session) => unread.push(Unread::empty(&session)),
            Ok(session) => sessions.push(session),
            Err(failure) => {
                status = failure.status();
                unread.push(Unread::failed(&failure));
            }
        }
    }
    let mut report = report(&sessions, args.longest);
    report.unread = unread;
    let mut out = io::BufWriter::new(stdout);
    let written = if args.json {
        serde_json::to_writer_pretty(&mut out, &report)
            .map_err(io::Error::from)
            .and_then(|()| writeln!(out))
            .and_then(|()| out.flush())
    } else {
        tables::write_tables(&mut out, &report)
    };
    if let Err(error) = written {
        return finish_output(Err(error));
    }
    let _ = notes::write_notes(
        stderr,
        &sessions,
        &report.diagnostics,
        &report.unread,
        args.verbose,
    );
    status
}
