//! `pretty`: the calls for people, as a tree by parent (a subagent's calls indented
//! under it), with human durations, coloured on request.
//!
//! A call is written when it ends, with the calls made inside it that ended before it
//! (a subagent ends after its calls); a call whose parent was already written is written
//! when it ends, one level under it. Calls still open at the end come last, then the
//! line counts ([`Writer::summary`](super::Writer::summary)).

use std::collections::{HashMap, HashSet, VecDeque};
use std::io::{self, Write};

use anstyle::{AnsiColor, Style};
use serde::Deserialize;
use toolnorm::{Approval, Fold, NormalizedToolPart, Question, ToolKind, ToolState, meta};

use super::format::FormatSpec;
use super::writer::{FormatWriter, StepOut, WriterOptions};
use crate::pipeline::{Stats, Step};

/// The row of `pretty`.
pub(crate) const FORMAT: FormatSpec = FormatSpec {
    name: "pretty",
    summary: "One human-readable line per call",
    needs_events: false,
    takes_session_id: false,
    sse: false,
    sse_terminator: None,
    for_people: true,
    make,
};

fn make(options: &WriterOptions) -> Box<dyn FormatWriter> {
    Box::new(Pretty::new(Colors(options.color)))
}

/// Whether `pretty` writes ANSI colours (whether it should is the caller's choice: the
/// command asks `anstream`).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
struct Colors(bool);

/// The styles of `pretty`, as the terminal's escape codes (anstyle renders them).
const GREEN: Style = AnsiColor::Green.on_default();
const RED: Style = AnsiColor::Red.on_default();
const YELLOW: Style = AnsiColor::Yellow.on_default();
const CYAN: Style = AnsiColor::Cyan.on_default();
const MAGENTA: Style = AnsiColor::Magenta.on_default();
const DIM: Style = Style::new().dimmed();

impl Colors {
    fn paint(self, style: Style, text: &str) -> String {
        if self.0 {
            format!("{style}{text}{style:#}")
        } else {
            text.to_owned()
        }
    }
}

/// A duration for people: `340 ms`, `2.1 s`, `3 min 4 s`, `1 h 2 min`.
pub fn human_duration(ms: u64) -> String {
    if ms < 1000 {
        return format!("{ms} ms");
    }
    if ms < 60_000 {
        let tenths = (ms + 50) / 100;
        if tenths >= 600 {
            return "1 min 0 s".to_owned();
        }
        return format!("{}.{} s", tenths / 10, tenths % 10);
    }
    let seconds = (ms + 500) / 1000;
    if seconds < 3600 {
        return format!("{} min {} s", seconds / 60, seconds % 60);
    }
    let minutes = (seconds + 30) / 60;
    format!("{} h {} min", minutes / 60, minutes % 60)
}

/// The parent call of `part`, when it was made inside a subagent.
fn parent_of(part: &NormalizedToolPart) -> Option<&str> {
    part.metadata
        .as_ref()?
        .get(meta::PARENT_TOOL_CALL_ID)?
        .as_str()
}

/// The tree writer of `pretty`.
struct Pretty {
    colors: Colors,
    /// Ended calls whose parent has not been written yet, by parent id, in end order.
    waiting: HashMap<String, Vec<NormalizedToolPart>>,
    /// The depth at which each written subagent was written (the calls others are made
    /// inside), the last [`REMEMBERED`] of them.
    written: HashMap<String, usize>,
    /// The ids in `written`, oldest first.
    order: VecDeque<String>,
}

/// How many written subagents are remembered, for calls that end after them.
const REMEMBERED: usize = 65_536;

impl Pretty {
    /// A writer colouring with `colors`.
    fn new(colors: Colors) -> Self {
        Pretty {
            colors,
            waiting: HashMap::new(),
            written: HashMap::new(),
            order: VecDeque::new(),
        }
    }

    fn ended(&mut self, part: NormalizedToolPart, out: &mut dyn Write) -> io::Result<()> {
        match parent_of(&part).map(str::to_owned) {
            Some(parent) if !self.written.contains_key(&parent) => {
                self.waiting.entry(parent).or_default().push(part);
                Ok(())
            }
            Some(parent) => {
                let depth = self.written.get(&parent).map_or(0, |depth| depth + 1);
                self.write_tree(part, depth, out)
            }
            None => self.write_tree(part, 0, out),
        }
    }

    /// Writes `part` at `depth`, then the calls that waited for it, under it.
    fn write_tree(
        &mut self,
        part: NormalizedToolPart,
        depth: usize,
        out: &mut dyn Write,
    ) -> io::Result<()> {
        let line = self.line(&part, depth);
        writeln!(out, "{line}")?;
        if part.kind == ToolKind::Subagent && self.written.insert(part.id.clone(), depth).is_none()
        {
            self.order.push_back(part.id.clone());
            if self.order.len() > REMEMBERED
                && let Some(oldest) = self.order.pop_front()
            {
                self.written.remove(&oldest);
            }
        }
        for child in self.waiting.remove(&part.id).unwrap_or_default() {
            self.write_tree(child, depth + 1, out)?;
        }
        Ok(())
    }

    /// One call's line: `  ✓ complete  bash        echo hi  12 ms`.
    fn line(&self, part: &NormalizedToolPart, depth: usize) -> String {
        let (icon, color) = match part.state {
            ToolState::Complete => ("✓", GREEN),
            ToolState::Error => ("✗", RED),
            ToolState::Running => ("…", YELLOW),
            ToolState::Started => ("·", YELLOW),
        };
        let c = self.colors;
        let mut line = format!(
            "{}{} {}  {}  {}",
            "  ".repeat(depth),
            c.paint(color, icon),
            c.paint(color, &format!("{:<8}", part.state.as_str())),
            c.paint(DIM, &format!("{:<10}", part.kind.as_str())),
            first_line(&part.title)
        );
        if let Some(elapsed) = part.timing.as_ref().and_then(|timing| timing.elapsed_ms) {
            line.push_str("  ");
            line.push_str(&c.paint(CYAN, &human_duration(elapsed)));
        }
        if part.state == ToolState::Error
            && let Some(error) = &part.error
        {
            let code = error
                .code
                .as_ref()
                .map(|code| format!(" [{}]", code.as_str()))
                .unwrap_or_default();
            line.push_str("  — ");
            line.push_str(&c.paint(RED, &format!("{}{code}", first_line(&error.message))));
        }
        if let Some(approval) = approval_note(part) {
            line.push_str("  ");
            line.push_str(&c.paint(MAGENTA, &approval));
        }
        if let Some(answers) = question_note(part) {
            line.push_str("  ");
            line.push_str(&c.paint(MAGENTA, &answers));
        }
        line
    }
}

impl FormatWriter for Pretty {
    /// Takes one step: a call that ends is written, or held for its parent.
    fn step(&mut self, step: &Step<'_>, out: &mut StepOut<'_>) -> io::Result<()> {
        let Step::Applied { update, .. } = step else {
            return Ok(());
        };
        if !update.call.is_terminal() {
            return Ok(());
        }
        self.ended(update.call.to_part(), out)
    }

    /// Writes the calls still open, then those whose parent never came.
    fn finish(&mut self, fold: &Fold, out: &mut StepOut<'_>) -> io::Result<()> {
        let open: Vec<NormalizedToolPart> = fold
            .calls()
            .filter(|call| !call.is_terminal())
            .map(|call| call.to_part())
            .collect();
        let ids: HashSet<String> = open.iter().map(|part| part.id.clone()).collect();
        // The calls inside another open call first: they wait for it, and it is written
        // with them.
        let (inside, outside): (Vec<_>, Vec<_>) = open
            .into_iter()
            .partition(|part| parent_of(part).is_some_and(|parent| ids.contains(parent)));
        for part in inside.into_iter().chain(outside) {
            self.ended(part, out)?;
        }
        // Calls whose parent is not in the stream: at the top, in the order they ended.
        let mut orphans: Vec<(String, Vec<NormalizedToolPart>)> = self.waiting.drain().collect();
        orphans.sort_by(|a, b| a.0.cmp(&b.0));
        for (_, parts) in orphans {
            for part in parts {
                self.write_tree(part, 0, out)?;
            }
        }
        Ok(())
    }

    fn summary(&mut self, stats: &Stats, out: &mut StepOut<'_>) -> io::Result<()> {
        writeln!(out, "{stats}")
    }
}

/// What a call's approval says, on its line: `waiting for approval`, `denied by user
/// after 4.5 s`, `approved`.
fn approval_note(part: &NormalizedToolPart) -> Option<String> {
    let approval = part.metadata.as_ref()?.get(meta::APPROVAL)?;
    let approval = Approval::deserialize(approval).ok()?;
    if approval.is_pending() {
        return Some("waiting for approval".to_owned());
    }
    let mut note = approval.status.to_string();
    if let Some(decided_by) = approval.decided_by {
        note.push_str(" by ");
        note.push_str(decided_by.as_str());
    }
    if let Some(wait) = approval.wait_ms() {
        note.push_str(" after ");
        note.push_str(&human_duration(wait));
    }
    Some(note)
}

/// What a `question` call's questions say, on its line: `answered: SQLite · auth, search`
/// (each question's answer), or `waiting for an answer` while it is open.
fn question_note(part: &NormalizedToolPart) -> Option<String> {
    let questions = part.metadata.as_ref()?.get(meta::QUESTIONS)?;
    let questions = Vec::<Question>::deserialize(questions).ok()?;
    let answers: Vec<String> = questions
        .iter()
        .filter_map(|question| question.answer.as_ref())
        .map(|answer| first_line(&answer.join(", ")))
        .collect();
    if !answers.is_empty() {
        return Some(format!("answered: {}", answers.join(" · ")));
    }
    (!questions.is_empty() && !part.state.is_terminal()).then(|| "waiting for an answer".to_owned())
}

/// The first line of `text`, at most 100 characters, with `…` when cut: how a title or
/// an error message is shown on one line.
pub fn first_line(text: &str) -> String {
    let first = text.lines().next().unwrap_or_default();
    let mut short: String = first.chars().take(100).collect();
    if short.len() < text.len() {
        short.push('…');
    }
    short
}

#[cfg(test)]
mod tests {
    use super::human_duration;

    #[test]
    fn durations_read_as_people_say_them() {
        assert_eq!(human_duration(0), "0 ms");
        assert_eq!(human_duration(999), "999 ms");
        assert_eq!(human_duration(1000), "1.0 s");
        assert_eq!(human_duration(2149), "2.1 s");
        assert_eq!(human_duration(59_960), "1 min 0 s");
        assert_eq!(human_duration(184_000), "3 min 4 s");
        assert_eq!(human_duration(3_720_000), "1 h 2 min");
    }
}
