//! Aligned columns for the command's tables (`stats`, `sessions`): drawn by comfy-table
//! with no borders, two spaces between columns, figures to the right, widths by display
//! width (a CJK character or an emoji takes two columns); a text column may be capped, a
//! cell past its cap cut with `…`.

use std::io::{self, Write};

use comfy_table::{CellAlignment, ContentArrangement, Table, presets};
use unicode_width::{UnicodeWidthChar, UnicodeWidthStr};

/// One column: its header, how wide it may get (`None`: as wide as its widest cell), and
/// whether its figures are aligned to the right.
pub(crate) struct Column {
    header: &'static str,
    cap: Option<usize>,
    right: bool,
}

pub(crate) const fn text(header: &'static str, cap: Option<usize>) -> Column {
    Column {
        header,
        cap,
        right: false,
    }
}

pub(crate) const fn figure(header: &'static str) -> Column {
    Column {
        header,
        cap: None,
        right: true,
    }
}

/// `cell` on one line (control characters as spaces), cut to at most `cap` columns of
/// display width, ending with `…` when cut.
pub(crate) fn fit(cell: &str, cap: Option<usize>) -> String {
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

/// Rows of cells as aligned columns (comfy-table: no borders, two spaces between columns,
/// figures to the right), each cell fitted to its column's cap.
pub(crate) fn table(
    out: &mut impl Write,
    columns: &[Column],
    rows: &[Vec<String>],
) -> io::Result<()> {
    let mut table = Table::new();
    table
        .load_style(presets::NOTHING)
        .set_content_arrangement(ContentArrangement::Disabled)
        .set_header(columns.iter().map(|column| column.header));
    for row in rows {
        table.add_row(
            row.iter()
                .zip(columns)
                .map(|(cell, column)| fit(cell, column.cap)),
        );
    }
    let last = columns.len().saturating_sub(1);
    for ((at, column), spec) in table.column_iter_mut().enumerate().zip(columns) {
        column.set_padding((0, if at == last { 0 } else { 2 }));
        if spec.right {
            column.set_cell_alignment(CellAlignment::Right);
        }
    }
    for line in table.lines() {
        writeln!(out, "{}", line.trim_end())?;
    }
    writeln!(out)
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
