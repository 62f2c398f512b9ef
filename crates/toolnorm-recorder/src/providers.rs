//! The recorder's sources (each a driver that runs one CLI and writes one provider
//! directory of fixtures) and the npm package behind each.
//!
//! Which sources exist is the adapters' dialect table's business
//! (`toolnorm_adapters::recordings`): a dialect lists the sources that record it, and
//! the recorder has a driver for each.

/// Every source the recorder records, in the dialect table's order, once each (the
/// `codex-app-server` source records two dialects: its stream and the rollout files).
pub fn providers() -> Vec<&'static str> {
    let mut sources: Vec<&'static str> = Vec::new();
    for (source, _) in toolnorm_adapters::recordings() {
        if !sources.contains(&source) {
            sources.push(source);
        }
    }
    sources
}

/// The npm package behind a provider directory: (package, program).
pub fn package_of(provider: &str) -> Option<(&'static str, &'static str)> {
    match provider {
        "claude-code" | "claude-code-transcript" | "claude-code-session" => {
            Some(("@anthropic-ai/claude-code", "claude"))
        }
        "claude-code-acp" => Some(("@agentclientprotocol/claude-agent-acp", "claude-agent-acp")),
        "claude-code-zed-acp" => Some(("@zed-industries/claude-code-acp", "claude-code-acp")),
        "codex-acp" => Some(("@zed-industries/codex-acp", "codex-acp")),
        "codex-exec" | "codex-app-server" | "codex-rollout" => Some(("@openai/codex", "codex")),
        "opencode-run"
        | "opencode-serve"
        | "opencode-serve-global"
        | "opencode-export"
        | "opencode-acp" => Some(("opencode-ai", "opencode")),
        "kilo-run" => Some(("@kilocode/cli-linux-x64", "kilo")),
        "gemini-cli" | "gemini-cli-session" | "gemini-cli-acp" => {
            Some(("@google/gemini-cli", "gemini"))
        }
        "qwen-code" | "qwen-code-session" | "qwen-code-acp" => {
            Some(("@qwen-code/qwen-code", "qwen"))
        }
        "amp" => Some(("@sourcegraph/amp", "amp")),
        "cline-json" | "cline-task" => Some(("cline", "cline")),
        "cline-sdk" | "cline-sdk-session" => Some(("@cline/cli-linux-x64", "cline")),
        "droid" | "droid-session" | "droid-rpc" => Some(("@factory/cli-linux-x64", "droid")),
        "copilot" | "copilot-session" => Some(("@github/copilot", "copilot")),
        "pi" | "pi-session" => Some(("@mariozechner/pi-coding-agent", "pi")),
        "grok" => Some(("@vibe-kit/grok-cli", "grok")),
        "kimi" | "kimi-context" | "kimi-wire" | "kimi-rpc" => Some(("kimi-cli", "kimi")),
        "vibe" | "vibe-journal" => Some(("mistral-vibe", "vibe")),
        "continue-session" => Some(("@continuedev/cli", "cn")),
        "openhands-cli" | "openhands-events" => Some(("openhands", "openhands")),
        _ => None,
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn every_source_of_the_registry_has_a_cli() {
        let sources = providers();
        assert!(!sources.is_empty());
        for source in sources {
            assert!(package_of(source).is_some(), "no CLI records `{source}`");
        }
        let mut unique = providers();
        unique.sort_unstable();
        unique.dedup();
        assert_eq!(unique.len(), providers().len());
    }
}
