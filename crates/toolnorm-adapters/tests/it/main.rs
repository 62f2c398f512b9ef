//! The integration tests, one binary: each module is one former test file (the
//! recorded fixtures' goldens are `tests/fixtures.rs`, a binary of their own).

#[path = "../common/mod.rs"]
mod common;

mod acp;
mod acp_agents;
mod agent_version;
mod approvals;
mod arbitrary_bytes;
mod bad_input;
mod claude_code_user_rules;
mod cline_sdk;
mod code_mode;
mod codex_rules;
mod copilot;
mod encodings;
mod export;
mod gemini_cli;
mod json_schema;
mod layers;
mod line_classes;
mod lone_surrogates;
mod midstream;
mod openhands;
mod pi;
mod questions;
mod qwen_session;
mod read_ahead;
mod redaction;
mod rollout;
mod run_end;
mod semantics;
mod sessions;
mod subagent_threads;
mod tolerance;
mod ui_cases;
mod ui_streams;
mod unclaimed;
mod unknown_items;
mod versions;
