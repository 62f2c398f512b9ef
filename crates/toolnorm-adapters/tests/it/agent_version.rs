//! The version of the agent that wrote a stream, read where the stream says it: Claude
//! Code's `claude_code_version` and its transcripts' `version`, Qwen Code's
//! `qwen_code_version`, a Codex rollout's `cli_version`, a Codex app-server thread's
//! `cliVersion`, an ACP agent's `agentInfo.version`; and none where it says nothing.
#![allow(clippy::unwrap_used, clippy::expect_used)]

use crate::common;

use toolnorm_adapters::Normalizer;

/// The agent version the normalizer knows once `fixture` is read.
fn version_of(fixture: &str) -> Option<String> {
    let bytes = std::fs::read(common::fixtures().join(fixture)).unwrap();
    let mut normalizer = Normalizer::builder().build();
    normalizer.push(&bytes, &mut |_| {});
    normalizer.finish(&mut |_| {});
    normalizer.agent_version().map(str::to_owned)
}

#[test]
fn each_stream_that_says_its_agents_version_gives_it() {
    for (fixture, version) in [
        ("claude-code/shell-ok.jsonl", Some("2.1.332")),
        ("claude-code@2.0.73/shell-ok.jsonl", Some("2.0.73")),
        ("claude-code-transcript/shell-ok.jsonl", Some("2.1.332")),
        ("qwen-code/shell-ok.jsonl", Some("0.24.4")),
        ("codex-rollout/shell-ok.jsonl", Some("0.171.0")),
        ("codex-app-server/shell-ok.jsonl", Some("0.171.0")),
        ("claude-code-acp/shell-ok.jsonl", Some("0.101.0")),
        ("claude-code-zed-acp/shell-ok.jsonl", Some("0.16.2")),
        ("events/session.jsonl", None),
    ] {
        assert_eq!(version_of(fixture).as_deref(), version, "{fixture}");
    }
}

/// The recordings of a dialect that declares where its lines say the agent's version, in
/// a form (or at a version) that does not say it: a fixture folder at every version
/// (`kimi-wire`), or at one (`kimi-rpc@0.70`).
const SILENT_FORMS: &[(&str, &str)] = &[
    (
        "kimi-wire",
        "a Kimi wire log names no version (`kimi --wire`'s answer to `initialize` does)",
    ),
    (
        "kimi-rpc@0.70",
        "Kimi 0.70's `--wire` is not asked to `initialize`: its first line is the turn's",
    ),
];

/// Every fixture of a dialect that declares where its lines say the agent's version gives
/// one (but those of the forms in `SILENT_FORMS`), and no fixture of a dialect that
/// declares none does: the provider reference's column is the readers' behaviour.
#[test]
fn the_declared_sources_are_what_the_readers_read() {
    let mut wrong = Vec::new();
    for folder in std::fs::read_dir(common::fixtures()).unwrap() {
        let folder = folder.unwrap().path();
        if !folder.is_dir() {
            continue;
        }
        let name = folder.file_name().unwrap().to_string_lossy().into_owned();
        let source = name.split('@').next().unwrap_or_default().to_owned();
        let silent = SILENT_FORMS
            .iter()
            .any(|(form, _)| *form == source || *form == name);
        for file in std::fs::read_dir(&folder).unwrap() {
            let path = file.unwrap().path();
            if path
                .extension()
                .is_none_or(|extension| extension != "jsonl")
            {
                continue;
            }
            let bytes = std::fs::read(&path).unwrap();
            let mut normalizer = Normalizer::builder().build();
            normalizer.push(&bytes, &mut |_| {});
            normalizer.finish(&mut |_| {});
            let Some(dialect) = normalizer.dialect() else {
                continue;
            };
            let declared = dialect.agent_version_source().is_some() && !silent;
            if normalizer.agent_version().is_some() != declared {
                wrong.push(format!(
                    "{} ({dialect}): version {:?}, source declared: {declared}",
                    path.strip_prefix(common::fixtures()).unwrap().display(),
                    normalizer.agent_version()
                ));
            }
        }
    }
    assert!(wrong.is_empty(), "{}", wrong.join("\n"));
}
