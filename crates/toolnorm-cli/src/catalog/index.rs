//! `toolnorm index`: every session file of the agents' stores (or the paths named) read
//! into the index, incrementally: a file whose size and modification time are as when it
//! was read is not read again; one that grew, or was rewritten or cut, is read again
//! whole, its rows replaced; a session whose file is gone is dropped. Each session of a
//! session database (OpenCode's, Goose's) is one (`<database>#<session>`), stamped by its rows (the length of
//! their data, their last update): read again when its stamp changed, dropped when the
//! database no longer holds it.

use std::collections::HashSet;
use std::io::Write;
use std::path::{Path, PathBuf};
use std::process::ExitCode;
use std::time::UNIX_EPOCH;

use rayon::prelude::*;

use toolnorm_adapters::{Dialect, OtelEmitter, OtelOptions};

use super::backend::Location;
use super::db::{FileState, Index};
use super::stores;
use super::write;
use crate::export::otlp::{Exporter, Target};
use crate::normalize::builders;
use crate::recordings::expand;
use crate::sessions::{Failure, Session, load};
use crate::sqlite_stores;
use crate::subagents::{self, Unit};
use crate::{EXIT_USAGE, ReadArgs};

/// Arguments of `toolnorm index`.
#[derive(Debug, clap::Args)]
pub struct IndexArgs {
    /// How the files are read (`--redact` keeps secrets out of the index).
    #[command(flatten)]
    pub read: ReadArgs,
    /// The index: an SQLite file, or a PostgreSQL database (`postgres://user@host/db`)
    /// [default: `$XDG_DATA_HOME/toolnorm/index.sqlite`, else
    /// `~/.local/share/toolnorm/index.sqlite`].
    #[arg(long, value_name = "PATH|URL")]
    pub db: Option<PathBuf>,
    /// The home folder whose agents' stores are indexed when no path is named
    /// [default: `$HOME`].
    #[arg(long, value_name = "DIR")]
    pub home: Option<PathBuf>,
    /// Also send each session read (new, grown or rewritten) to this OpenTelemetry
    /// collector as spans, as `toolnorm export` does (`URL/v1/traces`, OTLP/HTTP).
    #[arg(long, value_name = "URL")]
    pub otlp_endpoint: Option<String>,
    /// A header sent with every span request (with `--otlp-endpoint`); repeatable.
    #[arg(long, value_name = "KEY=VALUE", requires = "otlp_endpoint")]
    pub otlp_header: Vec<String>,
    /// With `--otlp-endpoint`: each call's input and output on its span.
    #[arg(long, requires = "otlp_endpoint")]
    pub otel_content: bool,
    /// Files or folders to index instead of the agents' stores (folders searched for
    /// `*.jsonl` and `*.ndjson` files).
    #[arg(value_name = "PATH")]
    pub paths: Vec<PathBuf>,
}

/// Sessions read at once, then written in one transaction.
const BATCH: usize = 64;

/// What a run did: sessions per change, and calls.
#[derive(Debug, Default, Clone, Copy, PartialEq, Eq, serde::Serialize)]
#[serde(rename_all = "camelCase")]
pub(crate) struct Counts {
    pub(crate) new: u64,
    pub(crate) grown: u64,
    pub(crate) rewritten: u64,
    pub(crate) unchanged: u64,
    pub(crate) removed: u64,
    pub(crate) unread: u64,
    pub(crate) calls_added: u64,
    pub(crate) calls_updated: u64,
}

impl Counts {
    /// Whether the run changed the index.
    pub(crate) fn changed(&self) -> bool {
        self.new + self.grown + self.rewritten + self.removed > 0
    }
}

/// Why a session is read.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Change {
    New,
    Grown,
    Rewritten,
}

/// The default index path.
pub(crate) fn default_db(env: &dyn Fn(&str) -> Option<std::ffi::OsString>) -> Option<PathBuf> {
    let data = env("XDG_DATA_HOME")
        .filter(|value| !value.is_empty())
        .map(PathBuf::from)
        .or_else(|| env("HOME").map(|home| PathBuf::from(home).join(".local/share")))?;
    Some(data.join("toolnorm").join("index.sqlite"))
}

/// `toolnorm index`.
pub fn index(args: &IndexArgs, stderr: &mut impl Write) -> ExitCode {
    match run(args, stderr) {
        Ok(code) => code,
        Err(message) => {
            let _ = writeln!(stderr, "toolnorm: {message}");
            ExitCode::from(EXIT_USAGE)
        }
    }
}

fn run(args: &IndexArgs, stderr: &mut impl Write) -> Result<ExitCode, String> {
    let (location, counts, status) = update(args, stderr, true)?;
    let _ = writeln!(
        stderr,
        "toolnorm: indexed into {}: {} new, {} grown, {} rewritten, {} unchanged, {} removed \
         session(s){}; {} call(s) added, {} updated",
        location,
        counts.new,
        counts.grown,
        counts.rewritten,
        counts.unchanged,
        counts.removed,
        match counts.unread {
            0 => String::new(),
            n => format!(", {n} not read"),
        },
        counts.calls_added,
        counts.calls_updated,
    );
    Ok(status)
}

/// One incremental run into the index `args` names: the index's path, what the run did,
/// and the exit status (not 0 when a file could not be read; each such file is named on
/// `stderr`). `progress` draws a bar on a terminal.
pub(crate) fn update(
    args: &IndexArgs,
    stderr: &mut impl Write,
    progress: bool,
) -> Result<(Location, Counts, ExitCode), String> {
    let make = builders(&args.read)?;
    let files = if args.paths.is_empty() {
        let env = |name: &str| std::env::var_os(name);
        let home = args
            .home
            .clone()
            .or_else(|| env("HOME").map(PathBuf::from))
            .ok_or("no home folder: set HOME or give --home")?;
        stores::discover(&home, &env)?
            .into_iter()
            .map(|found| found.path)
            .collect()
    } else {
        // Stored absolute: a run from another folder finds the same files.
        expand(&args.paths)?
            .into_iter()
            .map(|path| std::path::absolute(&path).unwrap_or(path))
            .collect()
    };
    // A session database is one unit per session, each stamped by its rows.
    let (databases, files): (Vec<Unit>, Vec<Unit>) = subagents::group(files, true)
        .into_iter()
        .partition(|unit| sqlite_stores::is_sqlite(&unit.path));
    let mut units: Vec<(Unit, Vec<FileState>)> = files
        .into_iter()
        .map(|unit| {
            let states = states(&unit);
            (unit, states)
        })
        .collect();
    let mut databases_read = HashSet::new();
    let mut status = ExitCode::SUCCESS;
    let mut unread_databases = 0;
    for database in databases {
        match database_sessions(&database.path) {
            Ok(sessions) => {
                databases_read.insert(database.path.display().to_string());
                units.extend(sessions);
            }
            Err(reason) => {
                let _ = writeln!(stderr, "toolnorm: {}: {reason}", database.path.display());
                status = ExitCode::from(EXIT_USAGE);
                unread_databases += 1;
            }
        }
    }
    let exporter = match &args.otlp_endpoint {
        Some(url) => {
            let env = |name: &str| std::env::var(name).ok();
            Some(Exporter::start(Target::resolve(
                Some(url),
                &args.otlp_header,
                &env,
            )?))
        }
        None => None,
    };
    let mut index = Index::open(args.db.as_deref())?;
    let mut counts = Counts {
        unread: unread_databases,
        ..Counts::default()
    };
    // Which sessions to read, and why.
    let mut to_read = Vec::new();
    let mut seen = HashSet::new();
    let stored = index.file_states().map_err(|error| index.fail(error))?;
    for (unit, states) in units {
        let key = match &unit.session {
            Some(session) => sqlite_stores::session_name(&unit.path, session),
            None => unit.path.display().to_string(),
        };
        let before = stored.get(&key);
        match change(before.map(Vec::as_slice), &states) {
            None => counts.unchanged += 1,
            Some(change) => {
                // The calls it had, to count those added and updated.
                let calls: HashSet<String> = match before {
                    Some(_) => index
                        .call_ids(&key)
                        .map_err(|error| index.fail(error))?
                        .into_iter()
                        .collect(),
                    None => HashSet::new(),
                };
                to_read.push((unit, states, change, calls));
            }
        }
        seen.insert(key);
    }
    let indexed_at = jiff::Timestamp::now().to_string();
    // On a terminal, a bar over the sessions to read (drawn on stderr, hidden elsewhere).
    let progress = match progress {
        true => indicatif::ProgressBar::new(to_read.len() as u64),
        false => indicatif::ProgressBar::hidden(),
    }
    .with_style(
        indicatif::ProgressStyle::with_template("{bar:40} {pos}/{len} sessions read {eta}")
            .unwrap_or_else(|_| indicatif::ProgressStyle::default_bar()),
    );
    for batch in to_read.chunks(BATCH) {
        let read: Vec<Result<Session, Failure>> = batch
            .par_iter()
            .map(|(unit, _, _, _)| load(unit, make()))
            .collect();
        let written = index.transaction(|transaction| {
            let mut batch_counts = Counts::default();
            let mut failures = Vec::new();
            let mut stored = Vec::new();
            let mut files = Vec::new();
            for ((_, states, change, before), result) in batch.iter().zip(read) {
                match result {
                    Ok(session) => {
                        for part in &session.parts {
                            match before.contains(&part.id) {
                                true => batch_counts.calls_updated += 1,
                                false => batch_counts.calls_added += 1,
                            }
                        }
                        match change {
                            Change::New => batch_counts.new += 1,
                            Change::Grown => batch_counts.grown += 1,
                            Change::Rewritten => batch_counts.rewritten += 1,
                        }
                        stored.push(session);
                        files.push(&states[..]);
                    }
                    Err(failure) => failures.push(failure),
                }
            }
            let read: Vec<write::Read<'_>> = stored
                .iter()
                .zip(&files)
                .map(|(session, files)| write::Read { session, files })
                .collect();
            write::store(transaction, &read, &indexed_at)?;
            Ok((batch_counts, failures, stored))
        });
        let (batch_counts, failures, stored) = written?;
        progress.inc(batch.len() as u64);
        // What the index now holds goes to the collector too.
        if let Some(exporter) = &exporter {
            for session in &stored {
                if !export_session(exporter, session, args.otel_content) {
                    break;
                }
            }
        }
        add(&mut counts, &batch_counts);
        for failure in failures {
            let _ = writeln!(stderr, "toolnorm: {}: {}", failure.file, failure.reason);
            counts.unread += 1;
            status = failure.status();
        }
    }
    progress.finish_and_clear();
    // Sessions whose file is gone, or no longer in a database read now.
    let gone: Vec<String> = index
        .paths()
        .map_err(|error| index.fail(error))?
        .into_iter()
        .filter(|stored| {
            !seen.contains(stored)
                && match database_of(stored) {
                    Some(database) => databases_read.contains(database),
                    None => !Path::new(stored).exists(),
                }
        })
        .collect();
    index.transaction(|transaction| {
        for stored in &gone {
            write::remove(transaction, stored)?;
        }
        Ok(())
    })?;
    counts.removed = gone.len() as u64;
    if let Some(exporter) = exporter {
        let sent = exporter.finish()?;
        let _ = writeln!(
            stderr,
            "toolnorm: exported {} span(s) in {} request(s) to {}",
            sent.spans,
            sent.requests,
            args.otlp_endpoint.as_deref().unwrap_or_default()
        );
    }
    Ok((index.location().clone(), counts, status))
}

/// Sends the spans of `session` (its calls in the order first seen, then its root);
/// `false` once the exporter stopped (the collector refused).
fn export_session(exporter: &Exporter, session: &Session, content: bool) -> bool {
    let mut emitter = OtelEmitter::new(OtelOptions {
        content,
        session_id: None,
    });
    if let Some(dialect) = session.dialect.as_deref().and_then(Dialect::from_name) {
        emitter.set_dialect(dialect.as_str());
    }
    let open: Vec<_> = session
        .parts
        .iter()
        .filter(|part| !part.state.is_terminal())
        .cloned()
        .collect();
    let ended = session.parts.iter().filter_map(|part| emitter.part(part));
    let requests: Vec<_> = ended.collect();
    requests
        .into_iter()
        .chain(emitter.finish(&open))
        .all(|request| exporter.send(request))
}

fn add(total: &mut Counts, batch: &Counts) {
    total.new += batch.new;
    total.grown += batch.grown;
    total.rewritten += batch.rewritten;
    total.calls_added += batch.calls_added;
    total.calls_updated += batch.calls_updated;
}

/// The state of a session's files now: its own, then its subagents' transcripts.
/// The sessions of a session database (OpenCode's, Goose's), each a unit with its stamp as its state (the
/// length of its rows' data as its size, their last update as its time).
fn database_sessions(path: &Path) -> Result<Vec<(Unit, Vec<FileState>)>, String> {
    let stamps = sqlite_stores::Database::open(path)?.session_stamps()?;
    Ok(stamps
        .into_iter()
        .map(|(session, bytes, updated_ms)| {
            let state = FileState {
                path: PathBuf::from(sqlite_stores::session_name(path, &session)),
                bytes,
                modified_ns: u64::try_from(updated_ms)
                    .ok()
                    .and_then(|ms| ms.checked_mul(1_000_000)),
            };
            let unit = Unit {
                path: path.to_path_buf(),
                siblings: Vec::new(),
                session: Some(session),
            };
            (unit, vec![state])
        })
        .collect())
}

/// The database a stored session of a session database was read from
/// (`<database>#<session>`), when that file is one still.
fn database_of(stored: &str) -> Option<&str> {
    let (database, _) = stored.rsplit_once('#')?;
    sqlite_stores::is_sqlite(Path::new(database)).then_some(database)
}

fn states(unit: &Unit) -> Vec<FileState> {
    std::iter::once(&unit.path)
        .chain(&unit.siblings)
        .map(|path| {
            let metadata = std::fs::metadata(path).ok();
            FileState {
                path: path.clone(),
                bytes: metadata.as_ref().map_or(0, std::fs::Metadata::len),
                modified_ns: metadata
                    .and_then(|metadata| metadata.modified().ok())
                    .and_then(|time| time.duration_since(UNIX_EPOCH).ok())
                    .and_then(|since| u64::try_from(since.as_nanos()).ok()),
            }
        })
        .collect()
}

/// Whether a session is read again, and why: `None` when its files are as when read.
fn change(before: Option<&[FileState]>, now: &[FileState]) -> Option<Change> {
    let Some(before) = before else {
        return Some(Change::New);
    };
    if before == now {
        return None;
    }
    // Every file still there, none smaller, and those of the same size untouched: only
    // appended to.
    let grown = now.iter().all(
        |file| match before.iter().find(|old| old.path == file.path) {
            None => true,
            Some(old) => file.bytes > old.bytes || old == file,
        },
    ) && before
        .iter()
        .all(|old| now.iter().any(|file| file.path == old.path));
    Some(if grown {
        Change::Grown
    } else {
        Change::Rewritten
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    fn state(path: &str, bytes: u64, modified: u64) -> FileState {
        FileState {
            path: PathBuf::from(path),
            bytes,
            modified_ns: Some(modified),
        }
    }

    #[test]
    fn a_session_is_read_again_only_when_its_files_changed() {
        let before = [state("s.jsonl", 10, 1), state("s/subagents/a.jsonl", 5, 1)];
        assert_eq!(change(None, &before), Some(Change::New));
        assert_eq!(change(Some(&before), &before), None);
        let appended = [state("s.jsonl", 12, 2), state("s/subagents/a.jsonl", 5, 1)];
        assert_eq!(change(Some(&before), &appended), Some(Change::Grown));
        let new_subagent = [
            state("s.jsonl", 10, 1),
            state("s/subagents/a.jsonl", 5, 1),
            state("s/subagents/b.jsonl", 3, 3),
        ];
        assert_eq!(change(Some(&before), &new_subagent), Some(Change::Grown));
        let cut = [state("s.jsonl", 4, 2), state("s/subagents/a.jsonl", 5, 1)];
        assert_eq!(change(Some(&before), &cut), Some(Change::Rewritten));
        let touched = [state("s.jsonl", 10, 9), state("s/subagents/a.jsonl", 5, 1)];
        assert_eq!(change(Some(&before), &touched), Some(Change::Rewritten));
        let lost_subagent = [state("s.jsonl", 10, 1)];
        assert_eq!(
            change(Some(&before), &lost_subagent),
            Some(Change::Rewritten)
        );
    }

    #[test]
    fn the_default_index_is_in_the_data_folder() {
        let env = |pairs: &'static [(&'static str, &'static str)]| {
            move |name: &str| {
                pairs
                    .iter()
                    .find(|(key, _)| *key == name)
                    .map(|(_, value)| std::ffi::OsString::from(value))
            }
        };
        assert_eq!(
            default_db(&env(&[("HOME", "/h")])),
            Some(PathBuf::from("/h/.local/share/toolnorm/index.sqlite"))
        );
        assert_eq!(
            default_db(&env(&[("HOME", "/h"), ("XDG_DATA_HOME", "/d")])),
            Some(PathBuf::from("/d/toolnorm/index.sqlite"))
        );
        assert_eq!(default_db(&env(&[])), None);
    }
}
