//! A user's rules file changes the title of Claude Code's calls, in stream-json and in
//! transcripts alike: the adapter asks the rules, it keeps no titles of its own.
#![allow(clippy::unwrap_used, clippy::expect_used)]

use crate::common;

use toolnorm::{NormalizedToolPart, ToolKind, ToolState};
use toolnorm_adapters::{Normalizer, TitleRules};

/// The user's rules: their own title for `Bash`, and nothing else.
const USER_RULES: &str = r#"
[[rule]]
provider = "claude-code"
tool = "Bash"
title = ["Shell: {command|line}", "Shell"]
"#;

/// The one call of a fixture, normalized with `rules`; no diagnostic.
fn shell_call(fixture: &str, rules: TitleRules) -> NormalizedToolPart {
    let bytes = std::fs::read(common::fixtures().join(fixture)).unwrap();
    let (mut parts, diagnostics) = common::run(Normalizer::builder().rules(rules).build(), &bytes);
    assert!(diagnostics.is_empty(), "{fixture}: {diagnostics:?}");
    assert_eq!(parts.len(), 1, "{fixture}: {parts:#?}");
    parts.remove(0)
}

#[test]
fn a_user_rule_titles_a_claude_code_bash_call() {
    for fixture in [
        "claude-code/shell-ok.jsonl",
        "claude-code-transcript/shell-ok.jsonl",
    ] {
        let builtin = shell_call(fixture, TitleRules::builtin());
        assert_eq!(builtin.title, "echo hello from the shell", "{fixture}");

        let rules = TitleRules::from_toml(USER_RULES, "user.toml")
            .unwrap()
            .then(TitleRules::builtin());
        let call = shell_call(fixture, rules);
        assert_eq!(call.name, "Bash", "{fixture}");
        assert_eq!(call.title, "Shell: echo hello from the shell", "{fixture}");
        // The user's rule names no kind: the built-in one still gives it.
        assert_eq!(call.kind, ToolKind::Bash, "{fixture}");
        assert_eq!(call.state, ToolState::Complete, "{fixture}");
    }
}
