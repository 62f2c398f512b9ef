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
