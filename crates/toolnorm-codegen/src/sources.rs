//! The table of pinned sources: where each schema comes from, which root
//! types the normalizer needs, and which preprocessing steps it takes.

use crate::preprocess::Step;

mod cli_patches;

use cli_patches::{
    CLAUDE_MESSAGE_PATCHES, CLAUDE_TOOL_PATCHES, CODEX_EXEC_PATCHES, CODEX_ROLLOUT_PATCHES,
    COPILOT_EVENT_PATCHES, PI_EVENT_PATCHES, QWEN_MESSAGE_PATCHES,
};

/// How `sync` extracts a schema from its installed npm package.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Extraction {
    /// `codex app-server generate-json-schema --out DIR`, then the named file of DIR.
    CodexAppServer {
        /// File inside the output directory.
        file: &'static str,
    },
    /// `opencode serve --port P --hostname 127.0.0.1`, then `GET /doc`.
    OpencodeServe,
    /// `ts-json-schema-generator --path FILE --type TYPE --no-type-check`.
    TsJsonSchema {
        /// The `.d.ts` inside the package.
        file: &'static str,
        /// The root type (`*` for every exported type).
        type_name: &'static str,
        /// Export the file's non-exported `type` aliases and replace imports of
        /// these names by `unknown` before converting (see the book's codegen page).
        opaque_imports: &'static [&'static str],
    },
    /// A JSON file shipped inside the package.
    PackageFile {
        /// Path inside the package.
        file: &'static str,
    },
}

/// Which definitions are the roots of the generated module.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Roots {
    /// Exactly these definitions (plus what they reference).
    Named(&'static [&'static str]),
    /// Every definition in the file.
    All,
}

/// One pinned schema file and the Rust module generated from it.
#[derive(Debug, Clone, Copy)]
pub struct Source {
    /// Rust module name in `toolnorm-wire`, also the source's id on the command line.
    pub module: &'static str,
    /// The cargo feature of `toolnorm-wire` (and `toolnorm-adapters`) that compiles the
    /// module: one per provider.
    pub feature: &'static str,
    /// One-line description for docs and banners.
    pub title: &'static str,
    /// Path under `schemas/`.
    pub schema: &'static str,
    /// The npm package the schema comes from.
    pub package: &'static str,
    /// How `sync` extracts it.
    pub extraction: Extraction,
    /// Definitions kept in `schemas/` (with their `$ref` closure).
    pub roots: Roots,
    /// Definitions generated, when fewer than those kept (with their closure).
    pub generate: Option<&'static [&'static str]>,
    /// Preprocessing, applied in order before typify.
    pub steps: &'static [Step],
}

/// The npm packages the extraction runs or reads besides the sources' own packages, each
/// pinned exactly in the extraction project (`extract/package.json`, see
/// [`pins`](crate::pins)): the converter of `.d.ts` files to JSON Schema and the
/// TypeScript compiler it runs on; the content blocks `@anthropic-ai/claude-agent-sdk`
/// declares its messages with; Node's declarations, which the SDKs import types from
/// (`crypto`'s `UUID`: without them such a type is read as `any`).
pub const TOOL_PACKAGES: &[&str] = &[
    "ts-json-schema-generator",
    "typescript",
    "@anthropic-ai/sdk",
    "@types/node",
];

/// The packages whose install script the extraction needs (run with `npm rebuild` after an
/// install without scripts): `opencode-ai`'s puts its platform's binary in place of the
/// placeholder `bin/opencode`.
pub const SCRIPTED_PACKAGES: &[&str] = &["opencode-ai"];

/// Token counts, sizes and durations that TS declares as `number`.
const CLAUDE_INTEGERS: &[&str] = &[
    "input_tokens",
    "output_tokens",
    "cache_creation_input_tokens",
    "cache_read_input_tokens",
    "ephemeral_1h_input_tokens",
    "ephemeral_5m_input_tokens",
    "web_search_requests",
    "web_fetch_requests",
    "duration_ms",
    "duration_api_ms",
    "num_turns",
    "total_tokens",
    "tool_uses",
    "elapsed_time_seconds",
    "exitCode",
    "numLines",
    "startLine",
    "totalLines",
    "numFiles",
    "numMatches",
    "durationMs",
    "totalDurationMs",
    "totalTokens",
    "totalToolUseCount",
    "size_bytes",
    "offset",
    "limit",
    "timeout",
    "head_limit",
];

/// Token counts and durations that Gemini CLI's types declare as `number`.
const GEMINI_INTEGERS: &[&str] = &[
    "total_tokens",
    "input_tokens",
    "output_tokens",
    "cached",
    "input",
    "duration_ms",
    "tool_calls",
    "output",
    "thoughts",
    "tool",
    "total",
];

/// Token counts and durations that Qwen Code's SDK types declare as `number`.
/// Token counts of Pi's messages that TS declares as `number` (its times are epoch
/// milliseconds, kept as numbers).
const PI_INTEGERS: &[&str] = &[
    "input",
    "output",
    "cacheRead",
    "cacheWrite",
    "totalTokens",
    "contentIndex",
    "version",
];

/// Token counts and durations of Amp's stream messages that TS declares as `number`.
const AMP_INTEGERS: &[&str] = &[
    "input_tokens",
    "output_tokens",
    "cache_creation_input_tokens",
    "cache_read_input_tokens",
    "duration_ms",
    "num_turns",
];

/// What the SDK declares required in an assistant message and the CLI
/// (0.0.1777266064, 0.0.1767830505: every line of `fixtures/amp/`) does not send.
const AMP_UNSENT: &[&str] = &[
    "AssistantMessage.message.id",
    "AssistantMessage.message.model",
    "AssistantMessage.message.stop_sequence",
];

/// Counts, sizes and durations of the Copilot tool events that TS declares as `number`.
const COPILOT_INTEGERS: &[&str] = &[
    "byteLength",
    "chunkCount",
    "chunkIndex",
    "endBlock",
    "endIndex",
    "endPage",
    "exitCode",
    "outputTokens",
    "size",
    "startBlock",
    "startIndex",
    "startPage",
    "totalTokens",
    "totalToolCalls",
];

const QWEN_INTEGERS: &[&str] = &[
    "input_tokens",
    "output_tokens",
    "cache_creation_input_tokens",
    "cache_read_input_tokens",
    "total_tokens",
    "web_search_requests",
    "ephemeral_1h_input_tokens",
    "ephemeral_5m_input_tokens",
    "duration_ms",
    "duration_api_ms",
    "num_turns",
    "pre_tokens",
    "index",
    "inputTokens",
    "outputTokens",
    "cacheReadInputTokens",
    "cacheCreationInputTokens",
    "webSearchRequests",
    "contextWindow",
];

/// The Claude tools whose inputs and outputs are generated: the built-in
/// tools whose calls the normalizer reads. The pinned file keeps them all.
const CLAUDE_TOOLS: &[&str] = &[
    "AgentInput",
    "AgentOutput",
    "AskUserQuestionInput",
    "AskUserQuestionOutput",
    "BashInput",
    "BashOutput",
    "ExitPlanModeInput",
    "ExitPlanModeOutput",
    "FileEditInput",
    "FileEditOutput",
    "FileReadInput",
    "FileReadOutput",
    "FileWriteInput",
    "FileWriteOutput",
    "GlobInput",
    "GlobOutput",
    "GrepInput",
    "GrepOutput",
    "ListMcpResourcesInput",
    "ListMcpResourcesOutput",
    "McpInput",
    "McpOutput",
    "NotebookEditInput",
    "NotebookEditOutput",
    "ReadMcpResourceInput",
    "ReadMcpResourceOutput",
    "TaskCreateInput",
    "TaskCreateOutput",
    "TaskGetInput",
    "TaskGetOutput",
    "TaskListInput",
    "TaskListOutput",
    "TaskStopInput",
    "TaskStopOutput",
    "TaskUpdateInput",
    "TaskUpdateOutput",
    "TodoWriteInput",
    "TodoWriteOutput",
    "WebFetchInput",
    "WebFetchOutput",
    "WebSearchInput",
    "WebSearchOutput",
];

/// Properties of the Codex app-server schema that older CLIs do not send; the normalizer
/// needs none of them. Each is shown by a fixture of `fixtures/codex-app-server@<version>/`.
pub const CODEX_APP_SERVER_OPTIONAL: &[&str] = &[
    // 0.118.0: `item/started` and `item/completed` without `startedAtMs`/`completedAtMs`.
    "ItemStartedNotification.startedAtMs",
    "ItemCompletedNotification.completedAtMs",
];

/// Every pinned source, in module order.
pub const SOURCES: &[Source] = &[
    Source {
        module: "codex_app_server",
        feature: "codex",
        title: "Codex app-server protocol v2 (item lifecycle notifications)",
        schema: "codex/app-server.v2.schemas.json",
        package: "@openai/codex",
        extraction: Extraction::CodexAppServer {
            file: "codex_app_server_protocol.v2.schemas.json",
        },
        roots: Roots::Named(&[
            "ItemStartedNotification",
            "ItemCompletedNotification",
            "CommandExecutionOutputDeltaNotification",
            "FileChangeOutputDeltaNotification",
            "McpToolCallProgressNotification",
            "TerminalInteractionNotification",
        ]),
        generate: None,
        steps: &[
            Step::HoistParentProperties("ThreadItem"),
            // Before 0.12x the item notifications carry no lifecycle timestamps
            // (fixtures/codex-app-server@0.118.0/).
            Step::OptionalProperties(CODEX_APP_SERVER_OPTIONAL),
        ],
    },
    Source {
        module: "codex_exec",
        feature: "codex",
        title: "Codex `codex exec --json` events (types of @openai/codex-sdk)",
        schema: "codex/exec-thread-event.schema.json",
        package: "@openai/codex-sdk",
        extraction: Extraction::TsJsonSchema {
            file: "dist/index.d.ts",
            type_name: "ThreadEvent",
            opaque_imports: &["ContentBlock"],
        },
        roots: Roots::Named(&["ThreadEvent"]),
        generate: None,
        steps: &[
            Step::Patches(CODEX_EXEC_PATCHES),
            Step::DropAdditionalPropertiesFalse,
            Step::ConstToEnum,
            Step::AnyOfToOneOf,
            Step::NullableNotRequired,
            Step::IntegerByPropertyName(&[
                "input_tokens",
                "cached_input_tokens",
                "output_tokens",
                "reasoning_output_tokens",
                "exit_code",
            ]),
        ],
    },
    Source {
        module: "codex_rollout",
        feature: "codex",
        title: "Codex rollout files (`response_item` payloads: `ResponseItem` of the app-server protocol)",
        schema: "codex/rollout-response-item.schema.json",
        package: "@openai/codex",
        // The package declares no type for a rollout line's envelope
        // (`{timestamp, type, payload}`) nor for its `event_msg` payloads: the adapter
        // reads those few fields by hand. The `response_item` payload is the Responses
        // API item the app-server protocol declares (`rawResponseItem/completed`).
        extraction: Extraction::CodexAppServer {
            file: "codex_app_server_protocol.v2.schemas.json",
        },
        roots: Roots::Named(&["ResponseItem"]),
        generate: None,
        steps: &[Step::Patches(CODEX_ROLLOUT_PATCHES)],
    },
    Source {
        module: "opencode",
        feature: "opencode",
        title: "OpenCode server events (OpenAPI `components.schemas`)",
        schema: "opencode/openapi.json",
        package: "opencode-ai",
        extraction: Extraction::OpencodeServe,
        roots: Roots::Named(&[
            "EventMessagePartUpdated",
            "EventMessagePartDelta",
            "EventMessagePartRemoved",
        ]),
        generate: None,
        steps: &[
            Step::RewriteRefs,
            Step::DropPatterns,
            Step::DropAdditionalPropertiesFalse,
            Step::RenameCollisions,
        ],
    },
    Source {
        module: "opencode_export",
        feature: "opencode",
        title: "OpenCode stored sessions, `opencode export` (OpenAPI `Session`, `Message`)",
        schema: "opencode/export.json",
        package: "opencode-ai",
        extraction: Extraction::OpencodeServe,
        // An export is `{info: Session, messages: [{info: Message, parts: [Part]}]}`:
        // the envelope is the CLI's own (no schema declares it); the parts are read with
        // the `opencode` module's types, as the parts of `message.part.updated` are.
        roots: Roots::Named(&["Session", "Message"]),
        generate: None,
        steps: &[
            Step::RewriteRefs,
            Step::DropPatterns,
            Step::DropAdditionalPropertiesFalse,
            Step::RenameCollisions,
        ],
    },
    Source {
        module: "claude_tools",
        feature: "claude-code",
        title: "Claude Code tool inputs and outputs (`sdk-tools.d.ts`)",
        schema: "claude/sdk-tools.schema.json",
        package: "@anthropic-ai/claude-code",
        extraction: Extraction::TsJsonSchema {
            file: "sdk-tools.d.ts",
            type_name: "*",
            opaque_imports: &[],
        },
        roots: Roots::All,
        generate: Some(CLAUDE_TOOLS),
        steps: &[
            Step::Patches(CLAUDE_TOOL_PATCHES),
            Step::DropAdditionalPropertiesFalse,
            Step::CollapseTuples,
            Step::ConstToEnum,
            Step::AnyOfToOneOf,
            Step::NullableNotRequired,
            Step::OrderUntaggedVariants,
            Step::IntegerByPropertyName(CLAUDE_INTEGERS),
            Step::TitleMemberProperties,
        ],
    },
    Source {
        module: "claude_messages",
        feature: "claude-code",
        title: "Claude Agent SDK messages (`SDKMessage` of `sdk.d.ts`, content blocks of @anthropic-ai/sdk)",
        schema: "claude/sdk-message.schema.json",
        package: "@anthropic-ai/claude-agent-sdk",
        extraction: Extraction::TsJsonSchema {
            file: "sdk.d.ts",
            type_name: "SDKMessage",
            opaque_imports: &[],
        },
        roots: Roots::Named(&[
            "SDKAssistantMessage",
            "SDKUserMessage",
            "SDKPartialAssistantMessage",
            "SDKTaskStartedMessage",
            "SDKTaskProgressMessage",
            "SDKTaskUpdatedMessage",
            "SDKTaskNotificationMessage",
            "SDKToolProgressMessage",
            "SDKToolUseSummaryMessage",
            "SDKPermissionDeniedMessage",
            "SDKResultMessage",
        ]),
        generate: None,
        steps: &[
            Step::DropAdditionalPropertiesFalse,
            Step::CollapseTuples,
            Step::FillEmptyMapped("NonNullableUsage", "BetaUsage"),
            Step::ConstToEnum,
            Step::AnyOfToOneOf,
            Step::NullableNotRequired,
            Step::OrderUntaggedVariants,
            Step::IntegerByPropertyName(CLAUDE_INTEGERS),
            Step::TitleInlineCollisions,
            Step::TitleMemberProperties,
            Step::Patches(CLAUDE_MESSAGE_PATCHES),
            Step::Opaque(&[
                // Tool definitions echoed in compaction blocks (~90 types).
                "BetaResponseToolUnion",
                "BetaToolChangeToolDefinition",
                // Citations, documents, browser state: not tool lifecycle.
                "BetaTextCitation",
                "TextCitationParam",
                "DocumentBlockParam",
                "BrowserStateBlockParam",
                // Usage and cache diagnostics.
                "BetaDiagnostics",
                "BetaCacheMissReason",
                "BetaIterationsUsage",
                "BetaContainer",
                "BetaContextManagementResponse",
            ]),
        ],
    },
    Source {
        module: "acp",
        feature: "acp",
        title: "Agent Client Protocol v1 (`session/update` notifications)",
        schema: "acp/schema.v1.json",
        package: "@agentclientprotocol/sdk",
        extraction: Extraction::PackageFile {
            file: "schema/v1/schema.json",
        },
        roots: Roots::Named(&["SessionNotification"]),
        generate: None,
        // `sessionUpdate` is a `const`: without ConstToEnum every update
        // parses as the first variant (`user_message_chunk`).
        steps: &[
            Step::RewriteRefs,
            Step::ConstToEnum,
            Step::TitleMembersByTag,
        ],
    },
    Source {
        module: "gemini_stream",
        feature: "gemini-cli",
        title: "Gemini CLI `--output-format stream-json` events (`JsonStreamEvent` of @google/gemini-cli-core)",
        schema: "gemini/stream-json-event.schema.json",
        package: "@google/gemini-cli-core",
        extraction: Extraction::TsJsonSchema {
            file: "dist/src/output/types.d.ts",
            type_name: "JsonStreamEvent",
            opaque_imports: &[],
        },
        roots: Roots::Named(&["JsonStreamEvent"]),
        generate: None,
        steps: &[
            Step::DropAdditionalPropertiesFalse,
            Step::ConstToEnum,
            Step::AnyOfToOneOf,
            Step::IntegerByPropertyName(GEMINI_INTEGERS),
        ],
    },
    Source {
        module: "gemini_session",
        feature: "gemini-cli",
        title: "Gemini CLI session files (`chats/session-*.jsonl` records of @google/gemini-cli-core)",
        schema: "gemini/session-record.schema.json",
        package: "@google/gemini-cli-core",
        extraction: Extraction::TsJsonSchema {
            file: "dist/src/services/chatRecordingTypes.d.ts",
            type_name: "*",
            // Parts (`@google/genai`), the scheduler's status, the display of a
            // result and thoughts: read as JSON values.
            opaque_imports: &[
                "PartListUnion",
                "Status",
                "ToolResultDisplay",
                "ThoughtSummary",
            ],
        },
        roots: Roots::Named(&[
            "ConversationRecord",
            "PartialMetadataRecord",
            "MessageRecord",
            "ToolCallRecord",
            "MetadataUpdateRecord",
            "RewindRecord",
        ]),
        generate: None,
        steps: &[
            Step::DropAdditionalPropertiesFalse,
            Step::ConstToEnum,
            Step::AnyOfToOneOf,
            Step::NullableNotRequired,
            Step::IntegerByPropertyName(GEMINI_INTEGERS),
        ],
    },
    Source {
        module: "qwen_messages",
        feature: "qwen-code",
        title: "Qwen Code `--output-format stream-json` messages (`SDKMessage` of @qwen-code/sdk)",
        schema: "qwen/sdk-message.schema.json",
        package: "@qwen-code/sdk",
        // The CLI package `@qwen-code/qwen-code` ships only bundled JS; its SDK
        // declares the stream-json messages. Nothing declares the session files.
        // `SDKMessage`'s closure imports nothing from the MCP SDK or zod.
        extraction: Extraction::TsJsonSchema {
            file: "dist/index.d.ts",
            type_name: "SDKMessage",
            opaque_imports: &[],
        },
        roots: Roots::Named(&["SDKMessage"]),
        generate: None,
        steps: &[
            Step::Patches(QWEN_MESSAGE_PATCHES),
            Step::DropAdditionalPropertiesFalse,
            Step::ConstToEnum,
            Step::AnyOfToOneOf,
            Step::NullableNotRequired,
            Step::OrderUntaggedVariants,
            Step::IntegerByPropertyName(QWEN_INTEGERS),
            Step::TitleMemberProperties,
        ],
    },
    Source {
        module: "copilot_events",
        feature: "copilot",
        title: "GitHub Copilot CLI session events (tool events of `SessionEvent`, @github/copilot-sdk)",
        schema: "copilot/session-events.schema.json",
        package: "@github/copilot-sdk",
        // The SDK declares every event the CLI writes, to its `--output-format json`
        // stream and to `events.jsonl`, generated from the CLI's own schema. Only the
        // events of a call's life are kept: the model's request, the execution, and the
        // subagents a `task` call runs.
        extraction: Extraction::TsJsonSchema {
            file: "dist/generated/session-events.d.ts",
            type_name: "SessionEvent",
            opaque_imports: &[],
        },
        roots: Roots::Named(&[
            "AssistantToolCallDeltaEvent",
            "AssistantMessageEvent",
            "ToolExecutionStartEvent",
            "ToolExecutionPartialResultEvent",
            "ToolExecutionProgressEvent",
            "ToolExecutionCompleteEvent",
            "SubagentStartedEvent",
            "SubagentCompletedEvent",
            "SubagentFailedEvent",
        ]),
        generate: None,
        steps: &[
            Step::Patches(COPILOT_EVENT_PATCHES),
            Step::DeprecatedAsFlag,
            Step::DropAdditionalPropertiesFalse,
            Step::ConstToEnum,
            Step::AnyOfToOneOf,
            Step::NullableNotRequired,
            Step::IntegerByPropertyName(COPILOT_INTEGERS),
        ],
    },
    Source {
        module: "amp_messages",
        feature: "amp",
        title: "Amp `--stream-json` messages (`StreamMessage` of @sourcegraph/amp-sdk)",
        schema: "amp/stream-message.schema.json",
        package: "@sourcegraph/amp-sdk",
        // The CLI package ships one bundled script; its SDK declares the stream's
        // messages (`StreamMessage`'s closure imports nothing from zod).
        extraction: Extraction::TsJsonSchema {
            file: "dist/types.d.ts",
            type_name: "StreamMessage",
            opaque_imports: &[],
        },
        roots: Roots::Named(&["StreamMessage"]),
        generate: None,
        steps: &[
            Step::DropAdditionalPropertiesFalse,
            Step::ConstToEnum,
            Step::AnyOfToOneOf,
            Step::NullableNotRequired,
            Step::OrderUntaggedVariants,
            Step::OptionalProperties(AMP_UNSENT),
            Step::IntegerByPropertyName(AMP_INTEGERS),
            Step::TitleMemberProperties,
        ],
    },
    Source {
        module: "pi_events",
        feature: "pi",
        title: "Pi `--mode json` events (`AgentSessionEvent` of @mariozechner/pi-coding-agent)",
        schema: "pi/agent-session-event.schema.json",
        package: "@mariozechner/pi-coding-agent",
        // The coding agent's declarations: its session's events are the agent core's
        // (`@mariozechner/pi-agent-core`) and its own, their messages `@mariozechner/pi-ai`'s.
        extraction: Extraction::TsJsonSchema {
            file: "dist/core/agent-session.d.ts",
            type_name: "AgentSessionEvent",
            opaque_imports: &[],
        },
        roots: Roots::Named(&["AgentSessionEvent"]),
        generate: None,
        steps: &[
            Step::Patches(PI_EVENT_PATCHES),
            Step::DropAdditionalPropertiesFalse,
            Step::ConstToEnum,
            Step::AnyOfToOneOf,
            Step::NullableNotRequired,
            Step::OrderUntaggedVariants,
            Step::IntegerByPropertyName(PI_INTEGERS),
            Step::TitleMembersByTag,
            Step::TitleMemberProperties,
        ],
    },
    Source {
        module: "pi_session",
        feature: "pi",
        title: "Pi session files (`FileEntry` of @mariozechner/pi-coding-agent)",
        schema: "pi/session-file-entry.schema.json",
        package: "@mariozechner/pi-coding-agent",
        extraction: Extraction::TsJsonSchema {
            file: "dist/core/session-manager.d.ts",
            type_name: "FileEntry",
            opaque_imports: &[],
        },
        roots: Roots::Named(&["FileEntry"]),
        generate: None,
        steps: &[
            Step::DropAdditionalPropertiesFalse,
            Step::ConstToEnum,
            Step::AnyOfToOneOf,
            Step::NullableNotRequired,
            Step::OrderUntaggedVariants,
            Step::IntegerByPropertyName(PI_INTEGERS),
            Step::TitleMemberProperties,
        ],
    },
];

/// Looks a source up by module name.
pub fn find(module: &str) -> Option<&'static Source> {
    SOURCES.iter().find(|s| s.module == module)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn every_patch_applies_to_the_pinned_schemas() -> crate::Result<()> {
        let repo = crate::default_repo_root();
        for source in SOURCES {
            let doc = crate::schema_doc::read_json(&repo.join("schemas").join(source.schema))?;
            let defs = crate::schema_doc::definitions(source.schema, &doc)?;
            for step in source.steps {
                let Step::Patches(patches) = step else {
                    continue;
                };
                for patch in *patches {
                    let mut patched = defs.clone();
                    crate::preprocess::apply_patches(&mut patched, std::slice::from_ref(patch));
                    assert_ne!(
                        patched, defs,
                        "{}: {patch:?} changed nothing",
                        source.module
                    );
                }
            }
        }
        Ok(())
    }
}
