//! Test support shared by the dialects' tests: the recordings under `fixtures/`, the
//! dialect a whole file is detected as, the claim checks over every fixture folder (each
//! recording of a dialect is detected as its own, no other folder is), and a text read
//! as one dialect with its diagnostics.
#![allow(clippy::unwrap_used, clippy::expect_used, clippy::panic)]
// A build of some dialects only leaves some checks without a caller.
#![cfg_attr(not(feature = "all-dialects"), allow(dead_code))]

use std::path::{Path, PathBuf};

use toolnorm::NormalizedToolPart;

use crate::dialects::detect_line;
use crate::{Diagnostic, Dialect, Normalizer, Step};

// The fixture lister the integration tests use too.
#[path = "../../tests/common/fixture_files.rs"]
mod fixture_files;
pub(crate) use fixture_files::{fixtures, recordings_where};

/// A fixture folder's name without its version: `vibe` of `vibe@2.7.0`.
pub(crate) fn unversioned(folder: &str) -> &str {
    folder.split('@').next().unwrap_or_default()
}

/// Every recording of the fixture folders `folders`, each version's too:
/// `fixtures/<folder>/*.jsonl` and `fixtures/<folder>@<version>/*.jsonl`.
pub(crate) fn recordings_of(folders: &[&str]) -> Vec<PathBuf> {
    recordings_where(|name| folders.contains(&unversioned(name)))
}

/// Every file below `dir`, subfolders included, whose name ends in one of `extensions`.
pub(crate) fn files_under(dir: &Path, extensions: &[&str]) -> Vec<PathBuf> {
    let mut files = Vec::new();
    let mut paths = vec![dir.to_path_buf()];
    while let Some(path) = paths.pop() {
        if path.is_dir() {
            paths.extend(std::fs::read_dir(&path).unwrap().map(|e| e.unwrap().path()));
        } else if path
            .extension()
            .is_some_and(|ext| extensions.iter().any(|wanted| ext == *wanted))
        {
            files.push(path);
        }
    }
    files
}

/// The dialect a whole file is read as when none is named.
pub(crate) fn detected(bytes: &[u8]) -> Option<Dialect> {
    let mut normalizer = Normalizer::new();
    normalizer.push(bytes, &mut |_| {});
    normalizer.finish(&mut |_| {});
    normalizer.dialect()
}

/// What each line of a dialect's recording must be claimed by, besides the whole file
/// being detected as the dialect.
#[derive(Clone, Copy)]
pub(crate) enum EachLine {
    /// The dialect itself: every line says whose it is.
    Claimed,
    /// The dialect or nobody, but the lines `exempt` picks out.
    ClaimedByNoOther {
        /// Lines another dialect claims and detection tries and drops.
        exempt: fn(&[u8]) -> bool,
    },
    /// Anything: the lines are not looked at one by one.
    Unchecked,
}

/// No line is exempt from [`EachLine::ClaimedByNoOther`].
pub(crate) fn no_line(_: &[u8]) -> bool {
    false
}

/// Asserts every recording of the fixture folders `folders` (each version's too) is
/// detected as `dialect` and its lines are claimed as `lines` says; returns how many
/// files it read.
pub(crate) fn assert_recordings_detected_as(
    folders: &[&str],
    dialect: Dialect,
    lines: EachLine,
) -> usize {
    let files = recordings_of(folders);
    for file in &files {
        let bytes = std::fs::read(file).unwrap();
        assert_eq!(detected(&bytes), Some(dialect), "{}", file.display());
        for line in bytes.split(|byte| *byte == b'\n').filter(|l| !l.is_empty()) {
            let claimant = detect_line(line);
            let fits = match lines {
                EachLine::Claimed => claimant == Some(dialect),
                EachLine::ClaimedByNoOther { exempt } => {
                    exempt(line) || claimant.is_none() || claimant == Some(dialect)
                }
                EachLine::Unchecked => true,
            };
            assert!(
                fits,
                "{}: {claimant:?} claims {}",
                file.display(),
                String::from_utf8_lossy(line)
            );
        }
    }
    files.len()
}

/// Asserts no file of any other fixture folder than `own` (each version's, subfolders
/// included, `.jsonl` and `.json`) is detected as one of `dialects`, and none of its
/// lines is claimed by one of them; returns how many files it read.
pub(crate) fn assert_no_other_fixture_is(own: &[&str], dialects: &[Dialect]) -> usize {
    let mut read = 0;
    let ours =
        |dialect: Option<Dialect>| dialect.is_some_and(|dialect| dialects.contains(&dialect));
    for entry in std::fs::read_dir(fixtures()).unwrap() {
        let dir = entry.unwrap().path();
        let name = dir.file_name().unwrap().to_string_lossy().into_owned();
        if own.contains(&unversioned(&name)) || !dir.is_dir() {
            continue;
        }
        for path in files_under(&dir, &["jsonl", "json"]) {
            let bytes = std::fs::read(&path).unwrap();
            for line in bytes.split(|byte| *byte == b'\n') {
                let claimant = detect_line(line);
                assert!(
                    !ours(claimant),
                    "{}: {claimant:?} claims {}",
                    path.display(),
                    String::from_utf8_lossy(line)
                );
            }
            let whole = detected(&bytes);
            assert!(!ours(whole), "{}: detected as {whole:?}", path.display());
            read += 1;
        }
    }
    read
}

/// What a text read as one dialect gave.
pub(crate) struct TextRead {
    /// The dialect it was read as (the one detected, when none was named).
    pub(crate) dialect: Option<Dialect>,
    /// The final parts.
    pub(crate) parts: Vec<NormalizedToolPart>,
    /// Every diagnostic, in order.
    pub(crate) diagnostics: Vec<Diagnostic>,
}

impl TextRead {
    /// Each diagnostic's line (0 for one about no line).
    pub(crate) fn lines(&self) -> Vec<u64> {
        self.diagnostics
            .iter()
            .map(|diagnostic| diagnostic.line.unwrap_or_default())
            .collect()
    }

    /// Each diagnostic's line (0 for one about no line) and kind.
    pub(crate) fn kinds(&self) -> Vec<(u64, &'static str)> {
        self.diagnostics
            .iter()
            .map(|diagnostic| {
                (
                    diagnostic.line.unwrap_or_default(),
                    diagnostic.kind.as_str(),
                )
            })
            .collect()
    }

    /// The parts, once asserted no line gave a diagnostic.
    pub(crate) fn clean_parts(self) -> Vec<NormalizedToolPart> {
        assert!(self.diagnostics.is_empty(), "{:?}", self.diagnostics);
        self.parts
    }
}

/// `text` read as `dialect` (detected, with `None`).
pub(crate) fn read(dialect: impl Into<Option<Dialect>>, text: &str) -> TextRead {
    let mut normalizer = Normalizer::builder().dialect(dialect).build();
    let mut diagnostics = Vec::new();
    let mut on_step = |step: Step<'_>| {
        if let Step::Diagnostic(diagnostic) = step {
            diagnostics.push(diagnostic.clone());
        }
    };
    normalizer.push(text.as_bytes(), &mut on_step);
    normalizer.finish(&mut on_step);
    TextRead {
        dialect: normalizer.dialect(),
        parts: normalizer.fold().parts(),
        diagnostics,
    }
}

/// `lines` one a line, each ended by a newline.
pub(crate) fn one_a_line<L: std::fmt::Display>(lines: &[L]) -> String {
    lines.iter().map(|line| format!("{line}\n")).collect()
}
