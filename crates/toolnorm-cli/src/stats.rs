//! `toolnorm stats`: tool usage across sessions: calls per provider, kind and tool;
//! error rates and codes; p50/p95/max duration per tool; the longest calls.

use std::collections::BTreeMap;
use std::io::{self, Write};
use std::process::ExitCode;

use serde::Serialize;

use crate::normalize::builder;
use crate::sessions::{self, Lines, Session};
use crate::{EXIT_USAGE, StatsArgs, finish_output};
use toolnorm_adapters::human_duration;

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
    longest: Vec<Long>,
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
    report
        .tools
        .sort_by(|a, b| b.calls.cmp(&a.calls).then_with(|| a.name.cmp(&b.name)));
    // Longest first; on a tie, in input order (the sort is stable).
    long.sort_by_key(|call| std::cmp::Reverse(call.elapsed_ms));
    long.truncate(longest);
    report.longest = long;
    report
}

/// Rows of cells as aligned columns; the columns marked in `right` (figures) are aligned
/// to the right.
fn table(
    out: &mut impl Write,
    header: &[&str],
    right: &[bool],
    rows: &[Vec<String>],
) -> io::Result<()> {
    let mut widths: Vec<usize> = header.iter().map(|cell| cell.chars().count()).collect();
    for row in rows {
        for (width, cell) in widths.iter_mut().zip(row) {
            *width = (*width).max(cell.chars().count());
        }
    }
    let line = |cells: &[String]| {
        let mut text = String::new();
        for (at, (cell, width)) in cells.iter().zip(&widths).enumerate() {
            if at > 0 {
                text.push_str("  ");
            }
            let pad = " ".repeat(width - cell.chars().count());
            if !right.get(at).copied().unwrap_or(false) {
                text.push_str(cell);
                text.push_str(&pad);
            } else {
                text.push_str(&pad);
                text.push_str(cell);
            }
        }
        text.trim_end().to_owned()
    };
    let head: Vec<String> = header.iter().map(|cell| (*cell).to_owned()).collect();
    writeln!(out, "{}", line(&head))?;
    for row in rows {
        writeln!(out, "{}", line(row))?;
    }
    writeln!(out)
}

fn percent(errors: u64, calls: u64) -> String {
    format!("{:.1}%", errors as f64 * 100.0 / calls.max(1) as f64)
}

fn duration(ms: Option<u64>) -> String {
    ms.map_or_else(|| "-".to_owned(), human_duration)
}

/// `1 call`, `2 calls`.
fn plural(n: u64, word: &str) -> String {
    match n {
        1 => format!("1 {word}"),
        n => format!("{n} {word}s"),
    }
}

fn write_tables(out: &mut impl Write, report: &Report) -> io::Result<()> {
    let l = &report.lines;
    writeln!(
        out,
        "{}, {}, {} ({}); {}: {} applied, {} known non-tool, {}, {}\n",
        plural(report.sessions, "session"),
        plural(report.calls, "call"),
        plural(report.errors, "error"),
        percent(report.errors, report.calls),
        plural(l.lines, "line"),
        l.applied,
        l.known_non_tool,
        plural(l.notices, "notice"),
        plural(l.errors, "error")
    )?;
    let counts = |map: &BTreeMap<String, Count>| -> Vec<Vec<String>> {
        map.iter()
            .map(|(name, count)| {
                vec![
                    name.clone(),
                    count.calls.to_string(),
                    count.errors.to_string(),
                    percent(count.errors, count.calls),
                ]
            })
            .collect()
    };
    table(
        out,
        &["provider", "calls", "errors", "rate"],
        &[false, true, true, true],
        &counts(&report.providers),
    )?;
    table(
        out,
        &["kind", "calls", "errors", "rate"],
        &[false, true, true, true],
        &counts(&report.kinds),
    )?;
    let tools: Vec<Vec<String>> = report
        .tools
        .iter()
        .map(|tool| {
            vec![
                tool.name.clone(),
                tool.kind.clone(),
                tool.calls.to_string(),
                tool.errors.to_string(),
                percent(tool.errors, tool.calls),
                duration(tool.p50_ms),
                duration(tool.p95_ms),
                duration(tool.max_ms),
            ]
        })
        .collect();
    table(
        out,
        &[
            "tool", "kind", "calls", "errors", "rate", "p50", "p95", "max",
        ],
        &[false, false, true, true, true, true, true, true],
        &tools,
    )?;
    if !report.error_codes.is_empty() {
        let codes: Vec<Vec<String>> = report
            .error_codes
            .iter()
            .map(|(code, n)| vec![code.clone(), n.to_string()])
            .collect();
        table(out, &["error code", "calls"], &[false, true], &codes)?;
    }
    if !report.longest.is_empty() {
        let long: Vec<Vec<String>> = report
            .longest
            .iter()
            .map(|call| {
                let title: String = call
                    .title
                    .lines()
                    .next()
                    .unwrap_or_default()
                    .chars()
                    .take(60)
                    .collect();
                vec![
                    human_duration(call.elapsed_ms),
                    call.name.clone(),
                    call.state.clone(),
                    title,
                    call.source.clone(),
                ]
            })
            .collect();
        table(
            out,
            &["longest", "tool", "state", "title", "file"],
            &[true],
            &long,
        )?;
    }
    out.flush()
}

/// `toolnorm stats`.
pub fn stats(args: &StatsArgs, stdout: impl Write, stderr: &mut impl Write) -> ExitCode {
    if let Err(message) = builder(&args.read) {
        let _ = writeln!(stderr, "toolnorm: {message}");
        return ExitCode::from(EXIT_USAGE);
    }
    let (sessions, status) = match sessions::read_all(&args.inputs, &args.read, stderr) {
        Ok(read) => read,
        Err(status) => return status,
    };
    let report = report(&sessions, args.longest);
    let mut out = io::BufWriter::new(stdout);
    let written = if args.json {
        serde_json::to_writer_pretty(&mut out, &report)
            .map_err(io::Error::from)
            .and_then(|()| writeln!(out))
            .and_then(|()| out.flush())
    } else {
        write_tables(&mut out, &report)
    };
    match written {
        Ok(()) => status,
        Err(error) => finish_output(Err(error)),
    }
}
