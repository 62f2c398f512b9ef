//! The fuzz targets' properties (see `fuzz/`) as property tests on stable, for CI: any
//! bytes, and recorded fixtures with random damage, through every adapter and through
//! detection, never panic, every diagnostic is counted and names a line that exists, and
//! every line is counted in exactly one class (applied, known, notice, error).
#![allow(clippy::unwrap_used, clippy::expect_used)]

use crate::common;

use proptest::prelude::*;
use toolnorm_adapters::{Dialect, Normalizer, Step};

/// Every fixture file, read once.
fn fixtures() -> &'static [Vec<u8>] {
    static FILES: std::sync::OnceLock<Vec<Vec<u8>>> = std::sync::OnceLock::new();
    FILES.get_or_init(|| {
        let mut files = Vec::new();
        for dir in std::fs::read_dir(common::fixtures()).unwrap() {
            let dir = dir.unwrap().path();
            if !dir.is_dir() {
                continue;
            }
            for file in std::fs::read_dir(&dir).unwrap() {
                let file = file.unwrap().path();
                if file.is_file() {
                    files.push(std::fs::read(file).unwrap());
                }
            }
        }
        files.sort();
        files
    })
}

/// Runs `bytes`, cut at `cut`, through a normalizer for `dialect` (or detection).
fn check(dialect: Option<Dialect>, bytes: &[u8], cut: usize) {
    let (head, tail) = bytes.split_at(cut.min(bytes.len()));
    let mut normalizer = Normalizer::builder()
        .dialect(dialect)
        .evict_finished(cut.is_multiple_of(2))
        .output_cap(64)
        .build();
    let mut diagnostics = 0;
    let lines = bytes.split(|&byte| byte == b'\n').count() as u64;
    let mut on_step = |step: Step<'_>| match step {
        Step::Diagnostic(diagnostic) => {
            diagnostics += 1;
            if let Some(line) = diagnostic.line {
                assert!((1..=lines).contains(&line), "{diagnostic}");
            }
        }
        Step::Applied { update, .. } => {
            serde_json::to_vec(&update.part()).unwrap();
        }
    };
    normalizer.push(head, &mut on_step);
    normalizer.push(tail, &mut on_step);
    normalizer.finish(&mut on_step);
    let stats = normalizer.stats();
    assert_eq!(stats.diagnostics, diagnostics);
    assert_eq!(stats.errors + stats.notices, stats.diagnostics);
    // Every line is in exactly one class, whatever the damage.
    assert_eq!(stats.accounted_lines(), stats.lines, "{stats:?}");
    assert!(stats.lines <= lines, "{stats:?}");
}

fn dialect() -> impl Strategy<Value = Option<Dialect>> {
    prop_oneof![
        Just(None),
        proptest::sample::select(Dialect::all().collect::<Vec<_>>()).prop_map(Some),
    ]
}

/// A fixture with up to 8 bytes overwritten, inserted or removed.
fn damaged_fixture() -> impl Strategy<Value = Vec<u8>> {
    let edits =
        proptest::collection::vec((any::<prop::sample::Index>(), any::<u8>(), 0..3u8), 0..8);
    (any::<prop::sample::Index>(), edits).prop_map(|(file, edits)| {
        let files = fixtures();
        let mut bytes = files[file.index(files.len())].clone();
        for (at, byte, edit) in edits {
            if bytes.is_empty() {
                break;
            }
            let at = at.index(bytes.len());
            match edit {
                0 => bytes[at] = byte,
                1 => bytes.insert(at, byte),
                _ => {
                    bytes.remove(at);
                }
            }
        }
        bytes
    })
}

proptest! {
    #[test]
    fn any_bytes(dialect in dialect(), bytes in proptest::collection::vec(any::<u8>(), 0..512), cut in 0..512usize) {
        check(dialect, &bytes, cut);
    }

    #[test]
    fn any_json_shaped_lines(dialect in dialect(), text in r#"(\{("(type|method|id|item|params|properties|payload|part|message)":("[a-z./_]{0,12}"|\{\}|\[\]|null|1),?){0,4}\}\n){0,6}"#, cut in 0..256usize) {
        check(dialect, text.as_bytes(), cut);
    }

    #[test]
    fn damaged_fixtures(dialect in dialect(), bytes in damaged_fixture(), cut in 0..4096usize) {
        check(dialect, &bytes, cut);
    }
}
