//! `toolnorm sessions`: the session files every known agent keeps on this machine, found
//! in each dialect's default stores under the home folder.

mod backend;
pub(crate) mod db;
pub(crate) mod index;
pub(crate) mod query;
mod schema;
pub(crate) mod stores;
mod summary;
mod write;

pub(crate) use backend::{DbError, Location};

pub use index::{IndexArgs, index};

use std::collections::HashMap;
use std::ffi::OsString;
use std::io::Write;
use std::path::{Path, PathBuf};
use std::process::ExitCode;

use serde::Serialize;

use crate::columns::{figure, table, text};
use crate::{EXIT_USAGE, finish_output, subagents};
use stores::Found;

/// Arguments of `toolnorm sessions`.
#[derive(Debug, clap::Args)]
pub struct SessionsArgs {
    /// The home folder the agents' stores are under [default: `$HOME`]. `CLAUDE_CONFIG_DIR`
    /// and `CODEX_HOME` move those agents' stores, as they do for the agents.
    #[arg(long, value_name = "DIR")]
    pub home: Option<PathBuf>,
    /// Only this agent's sessions: a provider (`codex`) or a dialect (`codex-rollout`).
    #[arg(long, value_name = "NAME")]
    pub agent: Option<String>,
    /// One JSON array, an object per session (`agent`, `dialect`, `path`, `bytes`,
    /// `modified`, `subagents`; from the index: `sessionId`, `cwd`, `started`, `ended`,
    /// `calls`, `complete`, `failed`, `open`).
    #[arg(long)]
    pub json: bool,
    /// List the sessions of the index (`toolnorm index`) rather than the files on disk:
    /// when each started and ended, its calls per state [default: the default index; an SQLite file or a `postgres://` URL].
    #[arg(long, value_name = "PATH|URL", num_args = 0..=1)]
    pub db: Option<Option<PathBuf>>,
    /// With `--db`: only the sessions whose first call started at or after this date
    /// (`2026-01-31`, UTC) or instant (RFC 3339).
    #[arg(long, value_name = "DATE", requires = "db", value_parser = parse_since)]
    pub since: Option<i64>,
}

/// `--since`: a date (midnight UTC) or an RFC 3339 instant, as epoch milliseconds.
pub(crate) fn parse_since(text: &str) -> Result<i64, String> {
    if let Ok(instant) = text.parse::<jiff::Timestamp>() {
        return Ok(instant.as_millisecond());
    }
    let date: jiff::civil::Date = text
        .parse()
        .map_err(|_| format!("`{text}` is not a date (2026-01-31) or an RFC 3339 instant"))?;
    date.to_zoned(jiff::tz::TimeZone::UTC)
        .map(|zoned| zoned.timestamp().as_millisecond())
        .map_err(|error| error.to_string())
}

/// A session file, as `--json` writes it.
#[derive(Debug, Serialize)]
struct Listed {
    agent: &'static str,
    dialect: &'static str,
    path: String,
    /// The session's file and its subagents' transcripts beside it.
    bytes: u64,
    /// RFC 3339, UTC: when the session's file last changed.
    modified: Option<String>,
    /// Its subagents' transcripts (Claude Code's `<session>/subagents/*.jsonl`), read
    /// with it as one session.
    subagents: usize,
}

impl Listed {
    /// The session of `found`, with the subagent transcripts `siblings` beside it.
    fn of(found: &Found, siblings: &[&Found]) -> Self {
        Listed {
            agent: found.dialect.provider(),
            dialect: found.dialect.as_str(),
            path: found.path.display().to_string(),
            bytes: found.bytes + siblings.iter().map(|sibling| sibling.bytes).sum::<u64>(),
            modified: found
                .modified
                .and_then(|time| jiff::Timestamp::try_from(time).ok())
                .map(|time| time.round(jiff::Unit::Second).unwrap_or(time).to_string()),
            subagents: siblings.len(),
        }
    }
}

/// `toolnorm sessions`.
pub fn sessions(args: &SessionsArgs, mut stdout: impl Write, stderr: &mut impl Write) -> ExitCode {
    if let Some(db) = &args.db {
        return indexed_sessions(db.as_deref(), args, stdout, stderr);
    }
    let env = |name: &str| std::env::var_os(name);
    let Some(home) = args.home.clone().or_else(|| env("HOME").map(PathBuf::from)) else {
        let _ = writeln!(stderr, "toolnorm: no home folder: set HOME or give --home");
        return ExitCode::from(EXIT_USAGE);
    };
    if let Some(agent) = &args.agent
        && !toolnorm_adapters::Dialect::all()
            .any(|dialect| dialect.provider() == agent || dialect.as_str() == agent)
    {
        let _ = writeln!(
            stderr,
            "toolnorm: --agent {agent}: no such agent or dialect (`toolnorm dialects` lists them)"
        );
        return ExitCode::from(EXIT_USAGE);
    }
    let found = match stores::discover(&home, &|name: &str| -> Option<OsString> { env(name) }) {
        Ok(found) => found,
        Err(message) => {
            let _ = writeln!(stderr, "toolnorm: {message}");
            return ExitCode::from(EXIT_USAGE);
        }
    };
    let found: Vec<Found> = found
        .into_iter()
        .filter(|found| {
            args.agent.as_deref().is_none_or(|agent| {
                found.dialect.provider() == agent || found.dialect.as_str() == agent
            })
        })
        .collect();
    // A Claude Code session's subagent transcripts are part of it, not sessions.
    let by_path: HashMap<&Path, &Found> = found
        .iter()
        .map(|found| (found.path.as_path(), found))
        .collect();
    let units = subagents::group(found.iter().map(|found| found.path.clone()).collect(), true);
    let listed: Vec<Listed> = units
        .iter()
        .filter_map(|unit| {
            let session = by_path.get(unit.path.as_path())?;
            let siblings: Vec<&Found> = unit
                .siblings
                .iter()
                .filter_map(|path| by_path.get(path.as_path()).copied())
                .collect();
            Some(Listed::of(session, &siblings))
        })
        .collect();
    let result = if args.json {
        serde_json::to_writer_pretty(&mut stdout, &listed)
            .map_err(std::io::Error::from)
            .and_then(|()| writeln!(stdout))
    } else {
        write_table(&mut stdout, &listed)
    };
    finish_output(result.and_then(|()| stdout.flush()))
}

/// `toolnorm sessions --db`: the sessions of the index.
fn indexed_sessions(
    db: Option<&Path>,
    args: &SessionsArgs,
    mut stdout: impl Write,
    stderr: &mut impl Write,
) -> ExitCode {
    let rows = db::Index::open(db).and_then(|mut index| {
        index
            .rows(args.agent.as_deref(), args.since)
            .map_err(|error| index.fail(error))
    });
    let rows = match rows {
        Ok(rows) => rows,
        Err(message) => {
            let _ = writeln!(stderr, "toolnorm: {message}");
            return ExitCode::from(EXIT_USAGE);
        }
    };
    let result = if args.json {
        serde_json::to_writer_pretty(&mut stdout, &rows)
            .map_err(std::io::Error::from)
            .and_then(|()| writeln!(stdout))
    } else {
        write_indexed(&mut stdout, &rows)
    };
    finish_output(result.and_then(|()| stdout.flush()))
}

/// An instant as the table shows it: as the provider wrote it, or, for an epoch number
/// (OpenCode's milliseconds), as an RFC 3339 time.
fn shown_instant(text: &str) -> String {
    let epoch = text.parse::<i64>().ok().and_then(|number| match number {
        // Milliseconds from 1973 on, else seconds.
        number if number.abs() >= 100_000_000_000 => jiff::Timestamp::from_millisecond(number).ok(),
        number => jiff::Timestamp::from_second(number).ok(),
    });
    epoch.map_or_else(|| text.to_owned(), |instant| instant.to_string())
}

/// The indexed sessions as aligned columns, oldest first.
fn write_indexed(out: &mut impl Write, rows: &[db::Row]) -> std::io::Result<()> {
    let cells: Vec<Vec<String>> = rows
        .iter()
        .map(|row| {
            vec![
                row.agent.clone().unwrap_or_else(|| "-".to_owned()),
                row.started
                    .as_deref()
                    .map_or_else(|| "-".to_owned(), shown_instant),
                row.calls.to_string(),
                row.failed.to_string(),
                row.open.to_string(),
                row.path.clone(),
            ]
        })
        .collect();
    let columns = [
        text("agent", None),
        text("started", None),
        figure("calls"),
        figure("failed"),
        figure("open"),
        text("path", None),
    ];
    table(out, &columns, &cells)?;
    let calls: u64 = rows.iter().map(|row| row.calls).sum();
    writeln!(out, "{} session(s), {calls} call(s)", rows.len())
}

/// Every session of the index, as `stats` reads sessions from files.
pub(crate) fn indexed_for_stats(
    db: Option<&Path>,
) -> Result<Vec<crate::sessions::Session>, String> {
    let mut index = db::Index::open(db)?;
    index.summaries().map_err(|error| index.fail(error))
}

/// The sessions as aligned columns, newest last, and a count per agent.
fn write_table(out: &mut impl Write, listed: &[Listed]) -> std::io::Result<()> {
    let mut rows: Vec<&Listed> = listed.iter().collect();
    rows.sort_by(|a, b| a.modified.cmp(&b.modified).then(a.path.cmp(&b.path)));
    let cells: Vec<Vec<String>> = rows
        .iter()
        .map(|row| {
            vec![
                row.agent.to_owned(),
                row.dialect.to_owned(),
                row.bytes.to_string(),
                row.modified.clone().unwrap_or_else(|| "-".to_owned()),
                row.subagents.to_string(),
                row.path.clone(),
            ]
        })
        .collect();
    let columns = [
        text("agent", None),
        text("dialect", None),
        figure("bytes"),
        text("modified", None),
        figure("subagents"),
        text("path", None),
    ];
    table(out, &columns, &cells)?;
    let mut counts: Vec<(&str, usize)> = Vec::new();
    for row in &rows {
        match counts.iter_mut().find(|(name, _)| *name == row.agent) {
            Some((_, count)) => *count += 1,
            None => counts.push((row.agent, 1)),
        }
    }
    counts.sort();
    let counts: Vec<String> = counts
        .iter()
        .map(|(name, count)| format!("{name} {count}"))
        .collect();
    writeln!(
        out,
        "{} session(s){}{}",
        rows.len(),
        if counts.is_empty() { "" } else { ": " },
        counts.join(", ")
    )
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn since_takes_a_date_or_an_instant() {
        assert_eq!(parse_since("1970-01-02"), Ok(86_400_000));
        assert_eq!(parse_since("1970-01-01T00:00:01.5Z"), Ok(1_500));
        assert!(parse_since("yesterday").unwrap_err().contains("not a date"));
    }

    #[test]
    fn an_epoch_number_is_shown_as_a_time() {
        assert_eq!(shown_instant("1767225610000"), "2026-01-01T00:00:10Z");
        assert_eq!(shown_instant("1767225610"), "2026-01-01T00:00:10Z");
        assert_eq!(
            shown_instant("2026-01-01T00:01:50.000Z"),
            "2026-01-01T00:01:50.000Z"
        );
    }
}
