// A UI's use of every export of @toolnorm/types, compiled in a fresh project against the
// packed tarball (`tsc --strict --exactOptionalPropertyTypes`), then run.
import {
  LEGACY_STATE_BY_TOOL_STATE,
  LEGACY_TOOL_STATES,
  TOOL_KINDS,
  TOOL_STATES,
  TOOL_STATE_BY_LEGACY_STATE,
  foldUpdates,
  fromLegacyState,
  isComplete,
  isFailed,
  isLegacyToolState,
  isNormalizedToolPart,
  isOpen,
  isTerminal,
  isToolError,
  isToolKind,
  isToolPart,
  isToolState,
  parseUpdateLine,
  reduceUpdate,
  toLegacyState,
  toLegacyToolPart,
  toToolPart,
} from "@toolnorm/types";
import type {
  AcpFrame,
  AcpPermissionOption,
  AcpPermissionRequest,
  AcpToolCall,
  AcpToolCallContent,
  AcpToolCallLocation,
  AcpToolCallStatus,
  AcpToolCallUpdate,
  AcpToolKind,
  AcpToolnormMeta,
  AcpTruncation,
  AgUiEvent,
  AgUiInterrupt,
  AgUiResumeEntry,
  AiSdkChunk,
  Approval,
  CompleteToolPart,
  EventLine,
  FailedToolPart,
  InputUpdated,
  JsonObject,
  LegacyStateByToolState,
  LegacyToolPart,
  LegacyToolState,
  LineOfFormat,
  MetadataMerged,
  NormalizedToolPart,
  OpenToolPart,
  OutputAppended,
  PartsById,
  PartsLine,
  Question,
  QuestionOption,
  TitleUpdated,
  ToolCallCompleted,
  ToolCallFailed,
  ToolCallRunning,
  ToolCallStarted,
  ToolError,
  ToolEvent,
  ToolKind,
  ToolPart,
  ToolState,
  ToolStateByLegacyState,
  ToolTiming,
  UiMetadata,
  UiToolnormMeta,
  UpdateLine,
} from "@toolnorm/types";
import schema from "@toolnorm/types/schema/NormalizedToolPart.json" with { type: "json" };

function check(condition: boolean, message: string): void {
  if (!condition) throw new Error(message);
}

// The discriminated view: `error` is there exactly when the state is `error`.
function describe(part: ToolPart): string {
  switch (part.state) {
    case "error": {
      const error: ToolError = part.error;
      return `failed: ${error.message}${error.code === undefined ? "" : ` (${error.code})`}`;
    }
    case "complete":
      return `done: ${JSON.stringify(part.output ?? null)}`;
    default:
      return part.state;
  }
}

const lines = [
  '{"id":"t1","name":"Bash","kind":"bash","title":"ls","input":{"command":"ls"},"state":"started"}',
  '{"id":"t1","name":"Bash","kind":"bash","title":"ls","input":{"command":"ls"},"state":"complete","output":"a.txt","timing":{"elapsedMs":4}}',
  '{"id":"t2","name":"Bash","kind":"bash","title":"false","input":{},"state":"error","error":{"message":"exit 1","code":"exit_code"}}',
];
const parts: PartsById = foldUpdates(lines);
let byId: Map<string, NormalizedToolPart> = new Map();
for (const line of lines) {
  const update: UpdateLine | undefined = parseUpdateLine(line);
  if (update !== undefined) byId = reduceUpdate(byId, update);
}
check(byId.size === parts.size, "reducer and fold agree");

const described: string[] = [];
for (const part of parts.values()) {
  const line: PartsLine = part;
  check(isNormalizedToolPart(line), "a part");
  const view: ToolPart | undefined = toToolPart(part);
  if (view === undefined || !isToolPart(view)) throw new Error("invariants");
  described.push(describe(view));
  if (isOpen(view)) {
    const open: OpenToolPart = view;
    described.push(open.title);
  } else if (isComplete(view)) {
    const complete: CompleteToolPart = view;
    const timing: ToolTiming | undefined = complete.timing;
    described.push(String(timing?.elapsedMs));
  } else if (isFailed(view)) {
    const failed: FailedToolPart = view;
    check(isToolError(failed.error), "an error");
  }
  const terminal: boolean = isTerminal(part.state);
  const legacy: LegacyToolPart = toLegacyToolPart(part);
  const legacyState: LegacyToolState = legacy.state;
  const back: ToolState = fromLegacyState(legacyState);
  check(terminal === (back !== "running"), "legacy round trip");
}
check(described.join("|") === 'done: "a.txt"|4|failed: exit 1 (exit_code)', described.join("|"));

const calling: "calling" = toLegacyState("started");
const map: LegacyStateByToolState = LEGACY_STATE_BY_TOOL_STATE;
const back: ToolStateByLegacyState = TOOL_STATE_BY_LEGACY_STATE;
check(calling === map.running && back.calling === "running", "legacy maps");
const kinds: readonly ToolKind[] = TOOL_KINDS;
const states: readonly ToolState[] = TOOL_STATES;
const legacies: readonly LegacyToolState[] = LEGACY_TOOL_STATES;
check(kinds.every(isToolKind) && states.every(isToolState) && legacies.every(isLegacyToolState), "names");

// The envelopes of the other formats.
const meta: AcpToolnormMeta = { toolName: "Bash", kind: "bash", outputAppended: { offset: 0, chunk: "a" } };
const truncation: AcpTruncation = { totalBytes: 10, capBytes: 4 };
const content: AcpToolCallContent = { type: "diff", path: "a.txt", newText: "b" };
const location: AcpToolCallLocation = { path: "a.txt", line: 1 };
const status: AcpToolCallStatus = "completed";
const acpKind: AcpToolKind = "execute";
const first: AcpToolCall = {
  sessionUpdate: "tool_call", toolCallId: "t1", title: "ls", kind: acpKind, status: "pending",
  name: "Bash", rawInput: {}, content: [content], locations: [location],
  _meta: { toolnorm: { ...meta, truncated: { content: truncation } } },
};
const update: AcpToolCallUpdate = { sessionUpdate: "tool_call_update", toolCallId: "t1", status, rawOutput: null };
const frames: AcpFrame[] = [first, update].map((u) => ({ jsonrpc: "2.0", method: "session/update", params: { sessionId: "s", update: u } }));
const approval: Approval = { status: "pending", reason: "Run it?" };
const offered: QuestionOption = { label: "SQLite", description: "One file" };
const question: Question = { question: "Which database?", options: [offered], answer: ["SQLite"] };
check(question.answer?.[0] === offered.label, "a question's answer");
const permissionOption: AcpPermissionOption = { optionId: "allow", name: "Allow", kind: "allow_once" };
const ask: AcpPermissionRequest = {
  jsonrpc: "2.0", id: "t1:approval", method: "session/request_permission",
  params: { sessionId: "s", toolCall: { toolCallId: "t1", title: "ls", kind: acpKind, status: "pending" }, options: [permissionOption], _meta: { toolnorm: { approval } } },
};
frames.push(ask);
const uiMeta: UiToolnormMeta = { kind: "bash" };
const toolMetadata: UiMetadata = { toolnorm: uiMeta };
const chunks: AiSdkChunk[] = [
  { type: "start", messageId: "s" },
  { type: "tool-input-start", toolCallId: "t1", toolName: "Bash", dynamic: true, title: "ls", toolMetadata },
  { type: "tool-approval-request", approvalId: "t1:approval", toolCallId: "t1", reason: "Run it?" },
  { type: "tool-approval-response", approvalId: "t1:approval", approved: false, reason: "no" },
  { type: "tool-output-denied", toolCallId: "t1" },
  { type: "finish" },
];
const interrupt: AgUiInterrupt = {
  id: "t1:approval", reason: "tool_approval", toolCallId: "t1", responseSchema: { type: "object" }, metadata: { toolnorm: { approval } },
};
const answer: AgUiResumeEntry = { interruptId: "t1:approval", status: "resolved", payload: { approved: true, decidedBy: "user" } };
const events: AgUiEvent[] = [
  { type: "RUN_STARTED", threadId: "t", runId: "r", protocolVersion: "1.0" },
  { type: "TOOL_CALL_START", toolCallId: "t1", toolCallName: "Bash", metadata: toolMetadata },
  { type: "RUN_FINISHED", threadId: "t", runId: "r", outcome: { type: "interrupt", interrupts: [interrupt] } },
  { type: "RUN_STARTED", threadId: "t", runId: "r-2", protocolVersion: "1.0", input: { threadId: "t", runId: "r-2", messages: [], resume: [answer] } },
  { type: "RUN_FINISHED", threadId: "t", runId: "r-2" },
];
const events2: EventLine[] = [];
const started: ToolCallStarted | undefined = undefined;
const event: ToolEvent | undefined = undefined;
type Events = [InputUpdated, TitleUpdated, MetadataMerged, ToolCallRunning, OutputAppended, ToolCallCompleted, ToolCallFailed];
const eventTypes: Events | undefined = undefined;
const object: JsonObject = {};
const formats: LineOfFormat["ai-sdk"][] = chunks;
check(frames.length === 3 && formats.length === 6 && events.length === 5, "envelopes");
check(events2.length === 0 && started === undefined && event === undefined && eventTypes === undefined && Object.keys(object).length === 0, "types");
check(schema.$schema === "https://json-schema.org/draft/2020-12/schema", "the schema ships");
console.log("consumer ok");
