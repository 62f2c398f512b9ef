//! The provider registry: every dialect toolnorm reads, and what each one brings.
//!
//! Adding a provider takes three things, and only these:
//!
//! 1. a provider module under `src/providers/` (its wire reading, an [`Adapter`], and a
//!    `claims` function that recognises its lines);
//! 2. its rules file under `rules/` (the kind and title of each of its tools);
//! 3. an [`Entry`] in [`ENTRIES`] below, and its [`Dialect`] constant.
//!
//! Detection, the command line's `--provider` values, the fuzz targets and the
//! recorder's list of sources all read this table.

use crate::Dialect;
use crate::providers::{self, Adapter, ProviderOptions};
use crate::read::probe::Probe;
use crate::rules::TitleRules;

/// One provider dialect: how to recognise its lines and how to read them.
pub(crate) struct Entry {
    /// Its name and provider.
    pub dialect: Dialect,
    /// One line for people (`--help`).
    pub summary: &'static str,
    /// Its rules file, as `(origin, TOML text)`.
    pub rules: (&'static str, &'static str),
    /// Whether a line is one of its own (the first entry that claims a line decides).
    pub claims: fn(&Probe<'_>) -> bool,
    /// A fresh adapter.
    pub adapter: fn(&ProviderOptions) -> Box<dyn Adapter + Send>,
    /// The recorder's sources that record this dialect from the real CLIs (each names
    /// a driver of `toolnorm-record`; a source may record several dialects); empty for
    /// dialects no CLI writes.
    pub recordings: &'static [&'static str],
}

#[cfg(feature = "claude-code")]
const CLAUDE_CODE_RULES: (&str, &str) = (
    "rules/claude-code.toml",
    include_str!("../../rules/claude-code.toml"),
);
#[cfg(feature = "codex")]
const CODEX_RULES: (&str, &str) = ("rules/codex.toml", include_str!("../../rules/codex.toml"));
#[cfg(feature = "opencode")]
const OPENCODE_RULES: (&str, &str) = (
    "rules/opencode.toml",
    include_str!("../../rules/opencode.toml"),
);
#[cfg(feature = "gemini-cli")]
const GEMINI_CLI_RULES: (&str, &str) = (
    "rules/gemini-cli.toml",
    include_str!("../../rules/gemini-cli.toml"),
);
#[cfg(feature = "qwen-code")]
const QWEN_CODE_RULES: (&str, &str) = (
    "rules/qwen-code.toml",
    include_str!("../../rules/qwen-code.toml"),
);
const ACP_RULES: (&str, &str) = ("rules/acp.toml", include_str!("../../rules/acp.toml"));
const DEFAULT_RULES: (&str, &str) = (
    "rules/default.toml",
    include_str!("../../rules/default.toml"),
);

impl Dialect {
    /// Claude Code `--output-format stream-json`, and its session transcripts.
    #[cfg(feature = "claude-code")]
    pub const CLAUDE_CODE: Dialect = providers::claude_code::DIALECT;
    /// `codex app-server` (JSON-RPC, protocol v2).
    #[cfg(feature = "codex")]
    pub const CODEX_APP_SERVER: Dialect = providers::codex::app_server::DIALECT;
    /// `codex exec --json`.
    #[cfg(feature = "codex")]
    pub const CODEX_EXEC: Dialect = providers::codex::exec::DIALECT;
    /// Codex rollout files (`$CODEX_HOME/sessions/YYYY/MM/DD/rollout-*.jsonl`).
    #[cfg(feature = "codex")]
    pub const CODEX_ROLLOUT: Dialect = providers::codex::rollout::DIALECT;
    /// OpenCode: `opencode serve` events (plain or `/global/event`), `opencode run --format json`.
    #[cfg(feature = "opencode")]
    pub const OPENCODE: Dialect = providers::opencode::DIALECT;
    /// OpenCode's stored sessions, as `opencode export <session>` prints them.
    #[cfg(feature = "opencode")]
    pub const OPENCODE_EXPORT: Dialect = providers::opencode::export::DIALECT;
    /// Gemini CLI `--output-format stream-json`, and its session files.
    #[cfg(feature = "gemini-cli")]
    pub const GEMINI_CLI: Dialect = providers::gemini_cli::DIALECT;
    /// Qwen Code `--output-format stream-json` (Claude Code's shape, Qwen Code's tools).
    #[cfg(feature = "qwen-code")]
    pub const QWEN_CODE: Dialect = providers::qwen_code::DIALECT;
    /// Qwen Code's session files (`~/.qwen/projects/<project>/chats/<session>.jsonl`).
    #[cfg(feature = "qwen-code")]
    pub const QWEN_CODE_SESSION: Dialect = providers::qwen_code::session::DIALECT;
    /// toolnorm's own canonical event log.
    pub const EVENTS: Dialect = providers::event_log::DIALECT;
    /// Agent Client Protocol v1 JSON-RPC, as a client sees it.
    #[cfg(feature = "acp")]
    pub const ACP: Dialect = providers::acp::DIALECT;
}

/// Every provider dialect. Each line is claimed by at most one of them (a test checks it
/// on every fixture), so the order is the one people see in `--help`. Each provider's
/// entry is there when its cargo feature is on.
pub(crate) const ENTRIES: &[Entry] = &[
    #[cfg(feature = "claude-code")]
    Entry {
        dialect: Dialect::CLAUDE_CODE,
        summary: "Claude Code stream-json or session transcript",
        rules: CLAUDE_CODE_RULES,
        claims: providers::claude_code::claims,
        adapter: |_| Box::new(providers::claude_code::ClaudeCodeAdapter::new()),
        recordings: &["claude-code"],
    },
    #[cfg(feature = "codex")]
    Entry {
        dialect: Dialect::CODEX_APP_SERVER,
        summary: "`codex app-server` JSON-RPC stream",
        rules: CODEX_RULES,
        claims: providers::codex::claims_app_server,
        adapter: |_| Box::new(providers::codex::CodexAppServerAdapter::new()),
        recordings: &["codex-app-server"],
    },
    #[cfg(feature = "codex")]
    Entry {
        dialect: Dialect::CODEX_EXEC,
        summary: "`codex exec --json`",
        rules: CODEX_RULES,
        claims: providers::codex::claims_exec,
        adapter: |_| Box::new(providers::codex::CodexExecAdapter::new()),
        recordings: &["codex-exec"],
    },
    #[cfg(feature = "codex")]
    Entry {
        dialect: Dialect::CODEX_ROLLOUT,
        summary: "Codex rollout file (`$CODEX_HOME/sessions/…/rollout-*.jsonl`)",
        rules: CODEX_RULES,
        claims: providers::codex::rollout::claims,
        adapter: |_| Box::new(providers::codex::CodexRolloutAdapter::new()),
        // The rollout files the app-server runs write (`fixtures/codex-rollout/`).
        recordings: &["codex-app-server"],
    },
    #[cfg(feature = "opencode")]
    Entry {
        dialect: Dialect::OPENCODE,
        summary: "OpenCode serve events, `/global/event`, or `opencode run --format json`",
        rules: OPENCODE_RULES,
        claims: providers::opencode::claims,
        adapter: |options| {
            Box::new(providers::opencode::OpenCodeAdapter::new(
                options.mcp_servers.clone(),
            ))
        },
        recordings: &["opencode-run", "opencode-serve"],
    },
    #[cfg(feature = "opencode")]
    Entry {
        dialect: Dialect::OPENCODE_EXPORT,
        summary: "OpenCode stored session, as `opencode export <session>` prints it",
        rules: OPENCODE_RULES,
        claims: providers::opencode::export::claims,
        adapter: |options| {
            Box::new(providers::opencode::export::OpenCodeExportAdapter::new(
                options.mcp_servers.clone(),
            ))
        },
        // The sessions the serve runs stored, exported (`fixtures/opencode-export/`).
        recordings: &["opencode-serve"],
    },
    #[cfg(feature = "acp")]
    Entry {
        dialect: Dialect::ACP,
        summary: "Agent Client Protocol JSON-RPC, as a client sees it",
        rules: ACP_RULES,
        claims: providers::acp::claims,
        adapter: |options| Box::new(providers::acp::AcpAdapter::new(options.mcp_servers.clone())),
        recordings: &[
            "opencode-acp",
            "claude-code-acp",
            "codex-acp",
            "claude-code-zed-acp",
        ],
    },
    #[cfg(feature = "gemini-cli")]
    Entry {
        dialect: Dialect::GEMINI_CLI,
        summary: "Gemini CLI stream-json or session file",
        rules: GEMINI_CLI_RULES,
        claims: providers::gemini_cli::claims,
        adapter: |options| {
            Box::new(providers::gemini_cli::GeminiCliAdapter::new(
                options.mcp_servers.clone(),
            ))
        },
        recordings: &["gemini-cli"],
    },
    #[cfg(feature = "qwen-code")]
    Entry {
        dialect: Dialect::QWEN_CODE,
        summary: "Qwen Code stream-json",
        rules: QWEN_CODE_RULES,
        claims: providers::qwen_code::claims,
        adapter: |_| {
            Box::new(providers::claude_code::ClaudeCodeAdapter::for_dialect(
                providers::qwen_code::DIALECT,
            ))
        },
        recordings: &["qwen-code"],
    },
    #[cfg(feature = "qwen-code")]
    Entry {
        dialect: Dialect::QWEN_CODE_SESSION,
        summary: "Qwen Code session file (`~/.qwen/projects/…/chats/*.jsonl`)",
        rules: QWEN_CODE_RULES,
        claims: providers::qwen_code::session::claims,
        adapter: |_| Box::new(providers::qwen_code::session::QwenSessionAdapter),
        // The session files the stream-json runs wrote (`fixtures/qwen-code-session/`).
        recordings: &["qwen-code"],
    },
    Entry {
        dialect: Dialect::EVENTS,
        summary: "toolnorm's own event log (`--format events`)",
        rules: DEFAULT_RULES,
        claims: providers::event_log::claims,
        adapter: |_| Box::new(providers::event_log::EventLogAdapter),
        recordings: &[],
    },
];

impl TitleRules {
    /// The built-in rules: each provider's rules file as the provider registry lists it,
    /// then `rules/default.toml`.
    pub fn builtin() -> Self {
        // Parsed once per process, then copied.
        static BUILTIN: std::sync::OnceLock<TitleRules> = std::sync::OnceLock::new();
        BUILTIN
            .get_or_init(|| {
                // The built-in files are tested to parse; a file that did not would add no
                // rule (and fail the test suite) rather than panic here.
                rules_files()
                    .iter()
                    .filter_map(|(origin, text)| TitleRules::from_toml(text, origin).ok())
                    .fold(TitleRules::default(), TitleRules::then)
            })
            .clone()
    }
}

/// The registry entry of a dialect toolnorm reads.
pub(crate) fn entry(dialect: Dialect) -> Option<&'static Entry> {
    ENTRIES.iter().find(|entry| entry.dialect == dialect)
}

/// The dialect one line belongs to, if it says: the first entry that claims it.
pub fn detect_line(bytes: &[u8]) -> Option<Dialect> {
    let probe = Probe::of(bytes)?;
    ENTRIES
        .iter()
        .find(|entry| (entry.claims)(&probe))
        .map(|entry| entry.dialect)
}

/// The recorder's sources, each with the dialect it records, in registry order.
pub fn recordings() -> impl Iterator<Item = (&'static str, Dialect)> {
    ENTRIES.iter().flat_map(|entry| {
        entry
            .recordings
            .iter()
            .map(move |source| (*source, entry.dialect))
    })
}

/// The built-in rules files: each provider's, then the generic ones, once each.
pub(crate) fn rules_files() -> Vec<(&'static str, &'static str)> {
    let mut files: Vec<(&str, &str)> = Vec::new();
    for entry in ENTRIES {
        if entry.rules != DEFAULT_RULES && !files.contains(&entry.rules) {
            files.push(entry.rules);
        }
    }
    files.push(DEFAULT_RULES);
    files
}

// The tests name every provider: they run with the default features.
#[cfg(all(
    test,
    feature = "claude-code",
    feature = "codex",
    feature = "opencode",
    feature = "acp",
    feature = "gemini-cli",
    feature = "qwen-code"
))]
mod tests {
    use super::*;

    #[test]
    fn every_rules_file_is_built_in_once_and_the_generic_ones_last() {
        let files = rules_files();
        let origins: Vec<&str> = files.iter().map(|(origin, _)| *origin).collect();
        assert_eq!(
            origins,
            [
                "rules/claude-code.toml",
                "rules/codex.toml",
                "rules/opencode.toml",
                "rules/acp.toml",
                "rules/gemini-cli.toml",
                "rules/qwen-code.toml",
                "rules/default.toml"
            ]
        );
    }

    #[test]
    fn no_line_of_any_fixture_is_claimed_by_two_dialects() {
        let fixtures = std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("../../fixtures");
        // Every `.jsonl` file under `fixtures/`, session folders included.
        fn jsonl_files(dir: &std::path::Path, out: &mut Vec<std::path::PathBuf>) {
            for entry in std::fs::read_dir(dir).unwrap() {
                let path = entry.unwrap().path();
                if path.is_dir() {
                    jsonl_files(&path, out);
                } else if path.extension().is_some_and(|ext| ext == "jsonl") {
                    out.push(path);
                }
            }
        }
        let mut files = Vec::new();
        jsonl_files(&fixtures, &mut files);
        let mut lines = 0;
        for file in files {
            let bytes = std::fs::read(file).unwrap();
            for line in bytes.split(|byte| *byte == b'\n') {
                let Some(probe) = Probe::of(line) else {
                    continue;
                };
                let claims: Vec<&str> = ENTRIES
                    .iter()
                    .filter(|entry| (entry.claims)(&probe))
                    .map(|entry| entry.dialect.as_str())
                    .collect();
                assert!(
                    claims.len() <= 1,
                    "{claims:?} all claim {}",
                    String::from_utf8_lossy(line)
                );
                lines += 1;
            }
        }
        assert!(lines > 1000, "{lines} lines");
    }

    #[test]
    fn names_are_unique_and_found_again() {
        let names: Vec<&str> = Dialect::all().map(Dialect::as_str).collect();
        let mut unique = names.clone();
        unique.sort_unstable();
        unique.dedup();
        assert_eq!(unique.len(), names.len());
        for dialect in Dialect::all() {
            assert_eq!(Dialect::from_name(dialect.as_str()), Some(dialect));
            assert!(dialect.summary().is_some());
        }
        assert_eq!(Dialect::from_name("auto"), None);
    }

    #[test]
    fn each_dialect_is_recognised() {
        let cases: &[(&str, Option<Dialect>)] = &[
            (
                r#"{"type":"toolCallRunning","id":"a"}"#,
                Some(Dialect::EVENTS),
            ),
            (
                r#"{"type":"system","subtype":"init","cwd":"/w"}"#,
                Some(Dialect::CLAUDE_CODE),
            ),
            (
                r#"{"parentUuid":null,"type":"user","message":{}}"#,
                Some(Dialect::CLAUDE_CODE),
            ),
            (
                r#"{"type":"thread.started","thread_id":"t"}"#,
                Some(Dialect::CODEX_EXEC),
            ),
            (
                r#"{"method":"item/started","params":{}}"#,
                Some(Dialect::CODEX_APP_SERVER),
            ),
            (r#"{"id":1,"result":{}}"#, None),
            (
                r#"{"id":"e","type":"message.part.updated","properties":{}}"#,
                Some(Dialect::OPENCODE),
            ),
            (
                r#"{"directory":"/w","payload":{"type":"server.connected"}}"#,
                Some(Dialect::OPENCODE),
            ),
            (
                r#"{"type":"step_start","timestamp":1,"sessionID":"s","part":{}}"#,
                Some(Dialect::OPENCODE),
            ),
            (
                r#"{"info":{"id":"ses_1","directory":"/w"},"messages":[],"todos":[]}"#,
                Some(Dialect::OPENCODE_EXPORT),
            ),
            (
                r#"{"jsonrpc":"2.0","method":"session/update","params":{}}"#,
                Some(Dialect::ACP),
            ),
            (
                r#"{"jsonrpc":"2.0","id":0,"method":"session/request_permission","params":{}}"#,
                Some(Dialect::ACP),
            ),
            (r#"{"method":"session/update","params":{}}"#, None),
            (
                r#"{"jsonrpc":"2.0","method":"_auth/status_update","params":{}}"#,
                Some(Dialect::ACP),
            ),
            (r#"{"type":"mystery"}"#, None),
            (
                r#"{"timestamp":"2026-01-01T00:00:00.000Z","type":"session_meta","payload":{"id":"s","cwd":"/w"}}"#,
                Some(Dialect::CODEX_ROLLOUT),
            ),
            (
                r#"{"timestamp":"2026-01-01T00:00:01.000Z","type":"response_item","payload":{"type":"function_call","name":"shell","arguments":"{}","call_id":"c"}}"#,
                Some(Dialect::CODEX_ROLLOUT),
            ),
            (
                r#"{"timestamp":"2026-01-01T00:00:02.000Z","type":"event_msg","payload":{"type":"exec_command_end","call_id":"c"}}"#,
                Some(Dialect::CODEX_ROLLOUT),
            ),
            (
                r#"{"sessionId":"s","projectHash":"h","startTime":"t","kind":"main"}"#,
                Some(Dialect::GEMINI_CLI),
            ),
            (
                r#"{"id":"m","timestamp":"t","type":"gemini","content":"","toolCalls":[]}"#,
                Some(Dialect::GEMINI_CLI),
            ),
            (
                r#"{"id":"m","timestamp":"t","type":"user","content":[{"text":"hi"}]}"#,
                Some(Dialect::GEMINI_CLI),
            ),
            (r#"{"$set":{"lastUpdated":"t"}}"#, Some(Dialect::GEMINI_CLI)),
            (
                r#"{"type":"init","timestamp":"t","session_id":"s","model":"m"}"#,
                Some(Dialect::GEMINI_CLI),
            ),
            (
                r#"{"type":"result","timestamp":"t","status":"success"}"#,
                Some(Dialect::GEMINI_CLI),
            ),
            (
                r#"{"type":"result","subtype":"success","session_id":"s"}"#,
                Some(Dialect::CLAUDE_CODE),
            ),
            (
                r#"{"type":"system","subtype":"init","session_id":"s","qwen_code_version":"0.24.4"}"#,
                Some(Dialect::QWEN_CODE),
            ),
            (
                r#"{"type":"system","subtype":"init","session_id":"s","claude_code_version":"2.1.332"}"#,
                Some(Dialect::CLAUDE_CODE),
            ),
            (
                r#"{"uuid":"u","parentUuid":null,"sessionId":"s","type":"user","message":{"role":"user","parts":[{"text":"hi"}]}}"#,
                Some(Dialect::QWEN_CODE_SESSION),
            ),
            (
                r#"{"uuid":"u","sessionId":"s","type":"assistant","message":{"role":"model","parts":[]}}"#,
                Some(Dialect::QWEN_CODE_SESSION),
            ),
            (
                r#"{"uuid":"u","sessionId":"s","type":"tool_result","message":{"role":"user","parts":[]},"toolCallResult":{}}"#,
                Some(Dialect::QWEN_CODE_SESSION),
            ),
            (
                r#"{"uuid":"u","sessionId":"s","type":"system","subtype":"ui_telemetry","systemPayload":{}}"#,
                Some(Dialect::QWEN_CODE_SESSION),
            ),
            (
                r#"{"uuid":"u","sessionId":"s","type":"system","subtype":"turn_duration","durationMs":1}"#,
                Some(Dialect::CLAUDE_CODE),
            ),
            (
                r#"{"uuid":"u","sessionId":"s","type":"assistant","message":{"role":"assistant","content":[]}}"#,
                Some(Dialect::CLAUDE_CODE),
            ),
            (
                r#"{"type":"user","message":"parts"}"#,
                Some(Dialect::CLAUDE_CODE),
            ),
            (r#"{"type":"error","message":"m"}"#, None),
            ("not json", None),
        ];
        for (line, expected) in cases {
            assert_eq!(detect_line(line.as_bytes()), *expected, "{line}");
        }
    }
}
