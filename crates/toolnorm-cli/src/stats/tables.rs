//! The tables of `toolnorm stats`: columns aligned by display width (a CJK character or
//! an emoji takes two columns), text columns capped, a cell cut with `…` past its cap.

use std::collections::BTreeMap;
use std::io::{self, Write};

use unicode_width::{UnicodeWidthChar, UnicodeWidthStr};

use super::{Count, Report};
use toolnorm_adapters::human_duration;

/// The widest a name column (tool, error code) gets: longer names are cut with `…`.
pub(super) const NAME_WIDTH: usize = 32;

/// The widest a title gets in the longest calls.
pub(super) const TITLE_WIDTH: usize = 60;

/// One column: its header, how wide it may get (`None`: as wide as its widest cell), and
/// whether its figures are aligned to the right.
struct Column {
    header: &'static str,
    cap: Option<usize>,
    right: bool,
}

const fn text(header: &'static str, cap: Option<usize>) -> Column {
    Column {
        header,
        cap,
        right: false,
    }
}

const fn figure(header: &'static str) -> Column {
    Column {
        header,
        cap: None,
        right: true,
    }
}

/// `cell` on one line (control characters as spaces), cut to at most `cap` columns of
/// display width, ending with `…` when cut.
pub(super) fn fit(cell: &str, cap: Option<usize>) -> String {
    let cell: String = cell
        .chars()
        .map(|c| if c.is_control() { ' ' } else { c })
        .collect();
    let Some(cap) = cap else {
        return cell;
    };
    if cell.width() <= cap {
        return cell;
    }
    let mut cut = String::new();
    let mut width = 0;
    for c in cell.chars() {
        let w = c.width().unwrap_or(0);
        // Room is left for the `…` (one column).
        if width + w + 1 > cap {
            break;
        }
        width += w;
        cut.push(c);
    }
    cut.push('…');
    cut
}

/// Rows of cells as aligned columns, each cell fitted to its column's cap.
fn table(out: &mut impl Write, columns: &[Column], rows: &[Vec<String>]) -> io::Result<()> {
    let rows: Vec<Vec<String>> = rows
        .iter()
        .map(|row| {
            row.iter()
                .zip(columns)
                .map(|(cell, column)| fit(cell, column.cap))
                .collect()
        })
        .collect();
    let mut widths: Vec<usize> = columns.iter().map(|column| column.header.width()).collect();
    for row in &rows {
        for (width, cell) in widths.iter_mut().zip(row) {
            *width = (*width).max(cell.width());
        }
    }
    let line = |cells: &[String]| {
        let mut text = String::new();
        for (at, ((cell, width), column)) in cells.iter().zip(&widths).zip(columns).enumerate() {
            if at > 0 {
                text.push_str("  ");
            }
            let pad = " ".repeat(width.saturating_sub(cell.width()));
            if column.right {
                text.push_str(&pad);
                text.push_str(cell);
            } else {
                text.push_str(cell);
                text.push_str(&pad);
            }
        }
        text.trim_end().to_owned()
    };
    let head: Vec<String> = columns
        .iter()
        .map(|column| column.header.to_owned())
        .collect();
    writeln!(out, "{}", line(&head))?;
    for row in &rows {
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

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_cell_past_its_cap_is_cut_by_display_width() {
        assert_eq!(fit("Bash", Some(8)), "Bash");
        assert_eq!(fit("mcp__toolbox__divide", Some(8)), "mcp__to…");
        // Two columns per character: 3 of them and the `…` fit in 8.
        assert_eq!(fit("読み込みツール", Some(8)), "読み込…");
        assert_eq!(fit("読み込みツール", Some(8)).width(), 7);
        assert_eq!(fit("a\nb\tc", None), "a b c");
    }

    #[test]
    fn wide_cells_keep_the_columns_aligned() {
        let mut out = Vec::new();
        let rows = vec![
            vec!["読み込み".to_owned(), "1".to_owned()],
            vec!["x".repeat(40), "22".to_owned()],
        ];
        table(&mut out, &[text("tool", Some(10)), figure("calls")], &rows).unwrap();
        let text = String::from_utf8(out).unwrap();
        let widths: Vec<usize> = text.lines().take(3).map(|line| line.width()).collect();
        assert_eq!(widths, [17, 17, 17], "{text}");
    }
}
