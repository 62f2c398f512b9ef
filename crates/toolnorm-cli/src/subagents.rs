//! Claude Code session folders: a session's transcript `<session>.jsonl` and the
//! transcripts its subagents write beside it, `<session>/subagents/agent-<id>.jsonl`.
//! They are read as one stream, the session's transcript first: its `Task` (`Agent`)
//! call's result names the agent, so each subagent's calls get `parentToolCallId`.

use std::collections::HashSet;
use std::io::{self, Write};
use std::path::{Path, PathBuf};

/// One stream to read: a file, and the subagent transcripts joined after it.
#[derive(Debug, Clone)]
pub(crate) struct Unit {
    /// The file named or found (the session's transcript).
    pub(crate) path: PathBuf,
    /// Its subagents' transcripts, sorted by path.
    pub(crate) siblings: Vec<PathBuf>,
    /// The session read from it, when it is a session database (`sqlite_stores`).
    pub(crate) session: Option<String>,
}

/// The subagent transcripts beside `path` (`<session>.jsonl`):
/// `<session>/subagents/*.jsonl`, sorted; none for another name or without the folder.
pub(crate) fn siblings(path: &Path) -> Vec<PathBuf> {
    if path
        .extension()
        .is_none_or(|extension| extension != "jsonl")
    {
        return Vec::new();
    }
    let folder = path.with_extension("").join("subagents");
    let Ok(entries) = std::fs::read_dir(&folder) else {
        return Vec::new();
    };
    let mut found: Vec<PathBuf> = entries
        .flatten()
        .map(|entry| entry.path())
        .filter(|path| path.is_file() && path.extension().is_some_and(|ext| ext == "jsonl"))
        .collect();
    found.sort();
    found
}

/// A session's own folder named (`<session>/`, beside `<session>.jsonl`): the
/// session's transcript, which brings the folder's subagents along.
pub(crate) fn transcript_of_folder(path: &Path) -> Option<PathBuf> {
    if !path.is_dir() || !path.join("subagents").is_dir() {
        return None;
    }
    let mut name = path.file_name()?.to_os_string();
    name.push(".jsonl");
    let transcript = path.with_file_name(name);
    transcript.is_file().then_some(transcript)
}

/// The streams of `files`: with `join`, a session's transcript takes its subagents'
/// transcripts, which are then no streams of their own.
pub(crate) fn group(files: Vec<PathBuf>, join: bool) -> Vec<Unit> {
    let units: Vec<Unit> = files
        .into_iter()
        .map(|path| Unit {
            siblings: if join { siblings(&path) } else { Vec::new() },
            path,
            session: None,
        })
        .collect();
    let taken: HashSet<PathBuf> = units
        .iter()
        .flat_map(|unit| unit.siblings.iter().cloned())
        .collect();
    units
        .into_iter()
        .filter(|unit| !taken.contains(&unit.path))
        .collect()
}

/// Where each file of a joined stream starts: (lines before it, its name).
#[derive(Debug, Clone, Default)]
pub(crate) struct Files(pub(crate) Vec<(u64, String)>);

impl Files {
    /// Whether the stream is more than one file.
    pub(crate) fn joined(&self) -> bool {
        self.0.len() > 1
    }

    /// The file and the line in it of line `line` of the stream.
    pub(crate) fn locate(&self, line: u64) -> Option<(&str, u64)> {
        self.0
            .iter()
            .rev()
            .find(|(before, _)| *before < line)
            .map(|(before, name)| (name.as_str(), line - before))
    }
}

/// Writes audit lines (`N<TAB>line`, numbered in the stream) as
/// `FILE<TAB>N<TAB>line`, numbered in their file.
pub(crate) fn write_audit(out: &mut impl Write, files: &Files, lines: &[u8]) -> io::Result<()> {
    for line in lines.split_inclusive(|&byte| byte == b'\n') {
        let tab = line.iter().position(|&byte| byte == b'\t');
        let number = tab
            .and_then(|tab| line.get(..tab))
            .and_then(|digits| std::str::from_utf8(digits).ok())
            .and_then(|digits| digits.parse::<u64>().ok());
        match (number.and_then(|number| files.locate(number)), tab) {
            (Some((name, local)), Some(tab)) => {
                write!(out, "{name}\t{local}")?;
                out.write_all(line.get(tab..).unwrap_or_default())?;
            }
            _ => {
                let name = files.0.first().map(|(_, name)| name.as_str());
                write!(out, "{}\t", name.unwrap_or_default())?;
                out.write_all(line)?;
            }
        }
    }
    Ok(())
}
