// What toolnorm writes, line by line, in each `toolnorm normalize --format`, as types.
// The part and event types themselves are generated from the Rust types (./toolnorm.ts);
// these are the envelopes around them (ACP frames, AI SDK chunks, AG-UI events), written
// after the emitters in crates/toolnorm-adapters/src/emit/.

import type { Approval, ApprovalScope, DecidedBy, NormalizedToolPart, ToolError, ToolEvent, ToolKind, ToolState } from "./toolnorm.js";

/** `timing` of a part. */
export type ToolTiming = NonNullable<NormalizedToolPart["timing"]>;

/** A JSON object (`metadata`). */
export type JsonObject = Record<string, unknown>;

/** A line of `--format parts`: a call, once, when it is terminal (open calls last). */
export type PartsLine = NormalizedToolPart;

/** A line of `--format updates`: the call's whole part after each change. */
export type UpdateLine = NormalizedToolPart;

/** A line of `--format events`: the canonical event log (replayable with `--provider events`). */
export type EventLine = ToolEvent;

// --- ACP (`--format acp`) ---------------------------------------------------------------

/** ACP tool kinds toolnorm writes. */
export type AcpToolKind = "read" | "edit" | "delete" | "move" | "search" | "execute" | "think" | "fetch" | "switch_mode" | "other";

/** ACP tool call statuses (`started` ↔ `pending`, `running` ↔ `in_progress`, …). */
export type AcpToolCallStatus = "pending" | "in_progress" | "completed" | "failed";

/** A field cut at the output cap. */
export type AcpTruncation = { totalBytes: number; capBytes: number };

/**
 * `_meta.toolnorm`: the contract fields ACP has no field for. In a `tool_call_update`, only
 * what changed.
 */
export type AcpToolnormMeta = {
  toolName?: string;
  kind?: ToolKind;
  error?: ToolError;
  timing?: ToolTiming;
  truncated?: { rawOutput?: AcpTruncation; content?: AcpTruncation };
  metadata?: JsonObject;
  /** Streamed output since the last frame, at its byte offset in the whole output. */
  outputAppended?: { offset: number; chunk: string };
};

/** ACP tool call content: the result text, or a file diff. */
export type AcpToolCallContent =
  | { type: "content"; content: { type: "text"; text: string } }
  | { type: "diff"; path: string; oldText?: string; newText: string };

/** A file a call touches. */
export type AcpToolCallLocation = { path: string; line?: number };

/** The first frame of a call. */
export type AcpToolCall = {
  sessionUpdate: "tool_call";
  toolCallId: string;
  title: string;
  kind: AcpToolKind;
  status: AcpToolCallStatus;
  name: string;
  rawInput: unknown;
  rawOutput?: unknown;
  content?: AcpToolCallContent[];
  locations?: AcpToolCallLocation[];
  _meta: { toolnorm: AcpToolnormMeta };
};

/** A later frame of a call: the fields that changed (`null`: no longer present). */
export type AcpToolCallUpdate = {
  sessionUpdate: "tool_call_update";
  toolCallId: string;
  title?: string | null;
  kind?: AcpToolKind | null;
  status?: AcpToolCallStatus | null;
  name?: string | null;
  rawInput?: unknown;
  rawOutput?: unknown;
  content?: AcpToolCallContent[] | null;
  locations?: AcpToolCallLocation[] | null;
  _meta?: { toolnorm: AcpToolnormMeta };
};

/** A `session/update` notification of a tool call. */
export type AcpUpdateFrame = {
  jsonrpc: "2.0";
  method: "session/update";
  params: { sessionId: string; update: AcpToolCall | AcpToolCallUpdate };
};

/** An option of a permission request. */
export type AcpPermissionOption = {
  optionId: string;
  name: string;
  kind: "allow_once" | "allow_always" | "reject_once" | "reject_always";
};

/** The `session/request_permission` request of a call that waits for approval (after its frame). */
export type AcpPermissionRequest = {
  jsonrpc: "2.0";
  /** `<call id>:approval`. */
  id: string;
  method: "session/request_permission";
  params: {
    sessionId: string;
    toolCall: { toolCallId: string; title: string; kind: AcpToolKind; status: AcpToolCallStatus };
    options: AcpPermissionOption[];
    _meta: { toolnorm: { approval: Approval } };
  };
};

/** A line of `--format acp`: a `session/update` notification, or a permission request. */
export type AcpFrame = AcpUpdateFrame | AcpPermissionRequest;

// --- The UI streams (`--format ai-sdk`, `--format ag-ui`) --------------------------------

/**
 * `toolnorm` under the AI SDK chunks' `toolMetadata` and the AG-UI events' `metadata`:
 * the contract fields the protocols have no field for.
 */
export type UiToolnormMeta = {
  kind: ToolKind;
  /** AG-UI only (the AI SDK chunks have `title`). */
  title?: string;
  /** AG-UI only. */
  state?: ToolState;
  error?: ToolError;
  timing?: ToolTiming;
  /** Without the streamed-output keys of a running call. */
  metadata?: JsonObject;
};

/** `toolMetadata` / `metadata` of the UI stream formats. */
export type UiMetadata = { toolnorm: UiToolnormMeta };

/** A line of `--format ai-sdk`: an AI SDK 7 UI message stream chunk (the ones toolnorm writes). */
export type AiSdkChunk =
  | { type: "start"; messageId: string }
  | { type: "finish" }
  | { type: "tool-input-start"; toolCallId: string; toolName: string; dynamic: true; title: string; toolMetadata: UiMetadata }
  | { type: "tool-input-delta"; toolCallId: string; inputTextDelta: string }
  | { type: "tool-input-available"; toolCallId: string; toolName: string; input: unknown; dynamic: true; title: string; toolMetadata: UiMetadata }
  | { type: "tool-output-available"; toolCallId: string; output?: unknown; dynamic: true; toolMetadata: UiMetadata }
  | { type: "tool-output-error"; toolCallId: string; errorText: string; dynamic: true; toolMetadata: UiMetadata }
  | { type: "tool-output-denied"; toolCallId: string }
  | { type: "tool-approval-request"; approvalId: string; toolCallId: string; reason?: string; isAutomatic?: true }
  | { type: "tool-approval-response"; approvalId: string; approved: boolean; reason?: string };

/** Fields of the AG-UI tool call events toolnorm writes. */
type AgUiToolCallFields = { toolCallId: string; subagentRunId?: string };

/** An AG-UI interrupt: a call waiting for approval, in a `RUN_FINISHED` outcome. */
export type AgUiInterrupt = {
  /** `<call id>:approval`. */
  id: string;
  reason: "tool_approval";
  /** The approval's reason. */
  message?: string;
  toolCallId: string;
  subagentRunId?: string;
  /** JSON Schema of the answer: `approved`, and `optionId` among the provider's options. */
  responseSchema: JsonObject;
  metadata: { toolnorm: { approval: Approval } };
};

/** The answer to an interrupt, in the `input.resume` of the run that continues. */
export type AgUiResumeEntry =
  | {
      interruptId: string;
      status: "resolved";
      payload: { approved: boolean; optionId?: string; scope?: ApprovalScope; decidedBy?: DecidedBy; feedback?: string };
    }
  | { interruptId: string; status: "cancelled" };

/** A line of `--format ag-ui`: an AG-UI 1.0 event (the ones toolnorm writes). */
export type AgUiEvent =
  | {
      type: "RUN_STARTED";
      threadId: string;
      runId: string;
      protocolVersion: "1.0";
      /** A run that continues after an interrupt: the answers known. */
      input?: { threadId: string; runId: string; messages: []; resume: AgUiResumeEntry[] };
    }
  | { type: "RUN_FINISHED"; threadId: string; runId: string; outcome?: { type: "interrupt"; interrupts: AgUiInterrupt[] } }
  | (AgUiToolCallFields & { type: "TOOL_CALL_START"; toolCallName: string; metadata: UiMetadata })
  | (AgUiToolCallFields & { type: "TOOL_CALL_ARGS"; delta: string })
  | (AgUiToolCallFields & { type: "TOOL_CALL_END" })
  | (AgUiToolCallFields & { type: "TOOL_CALL_RESULT"; messageId: string; content: string; role: "tool"; metadata: UiMetadata })
  | { type: "SUBAGENT_STARTED"; subagentRunId: string; name: string; description: string; parentToolCallId: string; parentSubagentRunId?: string }
  | { type: "SUBAGENT_FINISHED"; subagentRunId: string; result?: unknown; outcome?: { type: "suspended"; interruptIds?: string[] } }
  | { type: "SUBAGENT_ERROR"; subagentRunId: string; message: string; code?: string };

/** The line type of each `--format`. */
export type LineOfFormat = {
  parts: PartsLine;
  updates: UpdateLine;
  events: EventLine;
  acp: AcpFrame;
  "ai-sdk": AiSdkChunk;
  "ag-ui": AgUiEvent;
};
