//! The tables of `toolnorm stats`, drawn by [`crate::columns`]: the totals, then per
//! provider, kind and tool, the error codes and the longest calls.

use std::collections::BTreeMap;
use std::io::{self, Write};

use super::{Count, Report};
use crate::columns::{figure, table, text};
use toolnorm_adapters::human_duration;

/// The widest a name column (tool, error code) gets: longer names are cut with `…`.
pub(super) const NAME_WIDTH: usize = 32;

/// The widest a title gets in the longest calls.
pub(super) const TITLE_WIDTH: usize = 60;

fn percent(errors: u64, calls: u64) -> String {
    format!("{:.1}%", errors as f64 * 100.0 / calls.max(1) as f64)
}

fn duration(ms: Option<u64>) -> String {
    ms.map_or_else(|| "-".to_owned(), human_duration)
}

/// `1 call`, `2 calls`.
pub(super) fn plural(n: u64, word: &str) -> String {
    match n {
        1 => format!("1 {word}"),
        n => format!("{n} {word}s"),
    }
}

/// The report as tables: the totals, then per provider, kind and tool, the error codes
/// and the longest calls.
pub(super) fn write_tables(out: &mut impl Write, report: &Report) -> io::Result<()> {
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
        &[
            text("provider", Some(NAME_WIDTH)),
            figure("calls"),
            figure("errors"),
            figure("rate"),
        ],
        &counts(&report.providers),
    )?;
    table(
        out,
        &[
            text("kind", Some(NAME_WIDTH)),
            figure("calls"),
            figure("errors"),
            figure("rate"),
        ],
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
            text("tool", Some(NAME_WIDTH)),
            text("kind", Some(NAME_WIDTH)),
            figure("calls"),
            figure("errors"),
            figure("rate"),
            figure("p50"),
            figure("p95"),
            figure("max"),
        ],
        &tools,
    )?;
    if !report.approvals.is_empty() {
        let approvals: Vec<Vec<String>> = report
            .approvals
            .iter()
            .map(|tool| {
                vec![
                    tool.name.clone(),
                    tool.asked.to_string(),
                    tool.approved.to_string(),
                    tool.denied.to_string(),
                    percent(tool.denied, tool.asked),
                    tool.pending.to_string(),
                    duration(tool.wait_p50_ms),
                    duration(tool.wait_max_ms),
                ]
            })
            .collect();
        table(
            out,
            &[
                text("approvals of", Some(NAME_WIDTH)),
                figure("asked"),
                figure("approved"),
                figure("denied"),
                figure("rate"),
                figure("waiting"),
                figure("wait p50"),
                figure("wait max"),
            ],
            &approvals,
        )?;
    }
    if !report.error_codes.is_empty() {
        let codes: Vec<Vec<String>> = report
            .error_codes
            .iter()
            .map(|(code, n)| vec![code.clone(), n.to_string()])
            .collect();
        table(
            out,
            &[text("error code", Some(NAME_WIDTH)), figure("calls")],
            &codes,
        )?;
    }
    if !report.longest.is_empty() {
        let long: Vec<Vec<String>> = report
            .longest
            .iter()
            .map(|call| {
                vec![
                    human_duration(call.elapsed_ms),
                    call.name.clone(),
                    call.state.clone(),
                    call.title.lines().next().unwrap_or_default().to_owned(),
                    call.source.clone(),
                ]
            })
            .collect();
        table(
            out,
            &[
                figure("longest"),
                text("tool", Some(NAME_WIDTH)),
                text("state", None),
                text("title", Some(TITLE_WIDTH)),
                // The last column: as long as it is, the others stay aligned.
                text("file", None),
            ],
            &long,
        )?;
    }
    out.flush()
}
