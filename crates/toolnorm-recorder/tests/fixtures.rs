//! Every recorded fixture parses as JSONL and matches its provenance entry,
//! and every provenance entry has its fixture. Runs without npm or network.

use std::collections::BTreeSet;
use std::path::{Path, PathBuf};

use toolnorm_recorder::provenance::Provenance;
use toolnorm_recorder::providers::{package_of, providers};
use toolnorm_recorder::scenario;

fn repo_root() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("../..")
}

fn jsonl_files(dir: &Path, out: &mut Vec<PathBuf>) {
    let Ok(entries) = std::fs::read_dir(dir) else {
        return;
    };
    for e in entries.flatten() {
        let p = e.path();
        if p.is_dir() {
            jsonl_files(&p, out);
        } else if p.extension().is_some_and(|x| x == "jsonl") {
            out.push(p);
        }
    }
}

#[test]
fn scenarios_parse() -> Result<(), Box<dyn std::error::Error>> {
    let scenarios = scenario::load_dir(&repo_root().join("crates/toolnorm-recorder/scenarios"))?;
    assert!(scenarios.len() >= 8, "too few scenarios");
    for sc in scenarios.values() {
        assert!(!sc.description.is_empty(), "{}: empty description", sc.name);
        assert!(
            providers().iter().any(|p| sc.applies_to(p)),
            "{}: no provider records it",
            sc.name
        );
    }
    Ok(())
}

#[test]
fn fixtures_match_provenance() -> Result<(), Box<dyn std::error::Error>> {
    let root = repo_root();
    let fixtures = root.join("fixtures");
    let prov = Provenance::load(&fixtures.join("PROVENANCE.toml"))?;
    assert!(!prov.fixture.is_empty(), "PROVENANCE.toml lists no fixture");
    let mut listed = BTreeSet::new();
    for e in &prov.fixture {
        assert!(listed.insert(e.path.clone()), "{} listed twice", e.path);
        let path = fixtures.join(&e.path);
        let text =
            std::fs::read_to_string(&path).map_err(|err| format!("{}: {err}", path.display()))?;
        let mut n = 0;
        // Each line is JSON, or the CLI's log line (a recording of its logs with its events).
        let mut logs = toolnorm_adapters::LogLines::default();
        for (i, line) in text.lines().enumerate() {
            if !logs.take(line.as_bytes()) {
                serde_json::from_str::<serde_json::Value>(line)
                    .map_err(|err| format!("{} line {}: {err}", e.path, i + 1))?;
            }
            n += 1;
        }
        assert!(n > 0, "{} is empty", e.path);
        assert_eq!(n, e.lines, "{}: line count differs from provenance", e.path);
        // `<provider>/` holds the pinned CLI's recordings, `<provider>@<version>/` an
        // older release's.
        let dir = e.path.split('/').next().unwrap_or_default();
        let versioned = dir != e.provider;
        let expected_dir = if versioned {
            format!("{}@{}", e.provider, e.version)
        } else {
            e.provider.clone()
        };
        // A session folder: `claude-code-session[@<version>]/<scenario>/<files as the
        // CLI laid them out>`.
        if e.provider == "claude-code-session" {
            assert!(
                e.path
                    .starts_with(&format!("{expected_dir}/{}/", e.scenario))
                    && e.path.ends_with(".jsonl"),
                "{}: path does not follow <provider>[@<version>]/<scenario>/…/*.jsonl",
                e.path
            );
        } else {
            assert_eq!(
                e.path,
                format!("{expected_dir}/{}.jsonl", e.scenario),
                "{}: path does not follow <provider>[@<version>]/<scenario>.jsonl",
                e.path
            );
        }
        let (package, _) = package_of(&e.provider)
            .ok_or_else(|| format!("{}: unknown provider {}", e.path, e.provider))?;
        assert_eq!(e.cli, package, "{}: wrong CLI package", e.path);
        let pinned = prov
            .cli
            .values()
            .find(|c| c.package == e.cli)
            .ok_or_else(|| format!("{}: CLI {} missing from [cli]", e.path, e.cli))?;
        if !versioned {
            assert_eq!(
                e.version, pinned.version,
                "{}: version differs from [cli]",
                e.path
            );
        }
        let sc = scenario::load(&root.join(&e.scenario_file))?;
        assert_eq!(sc.name, e.scenario, "{}: scenario file mismatch", e.path);
        assert_eq!(
            sc.description, e.description,
            "{}: stale description",
            e.path
        );
        assert!(!e.command.is_empty(), "{}: no command", e.path);
        for needle in ["/work/scratch", "/tmp/toolnorm-record", "/runs/"] {
            assert!(
                !text.contains(needle),
                "{}: un-normalized scratch path {needle}",
                e.path
            );
        }
    }
    for sample in &prov.sample {
        assert!(
            listed.insert(sample.path.clone()),
            "{} listed twice",
            sample.path
        );
        let path = fixtures.join(&sample.path);
        let text =
            std::fs::read_to_string(&path).map_err(|err| format!("{}: {err}", path.display()))?;
        let mut n = 0;
        for (i, line) in text.lines().enumerate() {
            serde_json::from_str::<serde_json::Value>(line)
                .map_err(|err| format!("{} line {}: {err}", sample.path, i + 1))?;
            n += 1;
        }
        assert_eq!(
            n, sample.lines,
            "{}: line count differs from provenance",
            sample.path
        );
        assert!(
            sample.path.starts_with(&format!("{}/", sample.provider))
                || sample.path.starts_with(&format!("{}@", sample.provider)),
            "{}: not under its provider's directory",
            sample.path
        );
        assert!(
            ["captured", "recorded", "assembled"].contains(&sample.origin.as_str()),
            "{}: unknown origin {}",
            sample.path,
            sample.origin
        );
        assert!(
            sample.origin != "captured"
                || !(sample.repository.is_empty() || sample.commit.is_empty()),
            "{}: a captured sample names its repository and commit",
            sample.path
        );
        assert!(
            !text.contains("/work/scratch"),
            "{}: un-normalized scratch path",
            sample.path
        );
    }
    // A database fixture: the database as the agent wrote it, and the agent's export of
    // each of its sessions, one document a line.
    for database in &prov.database {
        let header = std::fs::read(fixtures.join(&database.path))
            .map_err(|err| format!("{}: {err}", database.path))?;
        assert!(
            header.starts_with(b"SQLite format 3\0"),
            "{}: not an SQLite database",
            database.path
        );
        assert!(
            listed.insert(database.exports.clone()),
            "{} listed twice",
            database.exports
        );
        let text = std::fs::read_to_string(fixtures.join(&database.exports))
            .map_err(|err| format!("{}: {err}", database.exports))?;
        for (i, line) in text.lines().enumerate() {
            serde_json::from_str::<serde_json::Value>(line)
                .map_err(|err| format!("{} line {}: {err}", database.exports, i + 1))?;
        }
        assert_eq!(
            text.lines().count(),
            database.sessions,
            "{}: one export per session",
            database.exports
        );
        let pinned = prov.cli.values().any(|c| c.package == database.cli);
        assert!(
            pinned,
            "{}: CLI {} missing from [cli]",
            database.path, database.cli
        );
        assert!(
            database
                .path
                .starts_with(&format!("opencode-db/{}/", database.version)),
            "{}: not under opencode-db/<version>/",
            database.path
        );
        for name in &database.scenarios {
            assert!(
                root.join(format!("crates/toolnorm-recorder/scenarios/{name}.toml"))
                    .is_file(),
                "{}: unknown scenario {name}",
                database.path
            );
        }
        for needle in ["/work/scratch", "/tmp/toolnorm-record", "/runs/"] {
            assert!(
                !text.contains(needle),
                "{}: un-normalized scratch path {needle}",
                database.exports
            );
        }
    }
    let mut files = Vec::new();
    jsonl_files(&fixtures, &mut files);
    for f in files {
        let rel = f
            .strip_prefix(&fixtures)?
            .to_string_lossy()
            .replace('\\', "/");
        // `events/` holds canonical toolnorm event logs, not recordings of a CLI;
        // `unclaimed/` files of agents toolnorm does not read, with a provenance file of
        // their own (`unclaimed/PROVENANCE.toml`, checked by the adapters' tests).
        if rel.starts_with("events/") || rel.starts_with("unclaimed/") {
            continue;
        }
        assert!(listed.contains(&rel), "{rel} has no provenance entry");
    }
    Ok(())
}
