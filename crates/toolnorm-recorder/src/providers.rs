//! The provider directories the recorder writes and the npm package behind each.

/// Every provider directory the recorder writes, in recording order.
pub const PROVIDERS: &[&str] = &[
    "claude-code",
    "codex-exec",
    "codex-app-server",
    "opencode-run",
    "opencode-serve",
    "opencode-acp",
    "claude-code-acp",
];

/// The npm package behind a provider directory: (package, program).
pub fn package_of(provider: &str) -> Option<(&'static str, &'static str)> {
    match provider {
        "claude-code" | "claude-code-transcript" => Some(("@anthropic-ai/claude-code", "claude")),
        "claude-code-acp" => Some(("@agentclientprotocol/claude-agent-acp", "claude-agent-acp")),
        "codex-exec" | "codex-app-server" => Some(("@openai/codex", "codex")),
        "opencode-run" | "opencode-serve" | "opencode-serve-global" | "opencode-acp" => {
            Some(("opencode-ai", "opencode"))
        }
        _ => None,
    }
}
