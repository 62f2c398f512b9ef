// Runs `toolnorm normalize` in `--format ai-sdk`, `--format ag-ui` (plain and `--sse`)
// and `--format acp` on every fixture, on every edge case of cases/ (canonical event logs
// written by crates/toolnorm-adapters/tests/it/ui_cases.rs) and on all the edge cases as
// one stream, and checks the output with the real packages, as an app receives it:
//
// - ai-sdk: every chunk passes the AI SDK's `uiMessageChunkSchema` (with the zod an app
//   installs today: package.json pins zod 4, whose schemas reject a missing required key
//   that zod 3.25's copy of v4 let through); the SSE output goes through the chat client
//   a `useChat` page runs (`Chat` of @ai-sdk/react over `DefaultChatTransport`), which
//   must take every chunk (a chunk it rejects ends the stream there and drops the rest)
//   and report no error; and `readUIMessageStream` (terminating on an error) folds the
//   chunks into messages. In both, every call ends as a tool part with the id, name,
//   title, input, output (`null` for a call that completed without one), error text,
//   state and approval (asked, and whether it was approved) of `--format parts`.
// - ag-ui: every event passes `@ag-ui/core`'s `EventSchemas`; the stream passes
//   `@ag-ui/client`'s `verifyEvents`; its SSE framing parses with `parseSSEStream`; an
//   `AbstractAgent` whose run yields the events applies them (`runAgent`, no failure, no
//   error event) into messages holding every call with its name and arguments, and a tool
//   message with the result's content for every call that ended; the calls and their end
//   states are those of `--format parts`. Approvals: every call that waited for one (an
//   `updates` snapshot with its approval pending) is an interrupt (`tool_approval`) of a
//   `RUN_FINISHED`; every `resume` entry of the run that continues answers an interrupt
//   of the run before, as the call's approval was decided; the client's
//   `pendingInterrupts` at the end are the calls still waiting.
// - acp: the ACP SDK's client (`@agentclientprotocol/sdk`, the version whose JSON Schema
//   the Rust tests validate every frame with) takes every `session/update` frame and
//   every `session/request_permission` request, its params as sent; every call that
//   waited for approval is asked once.
//
// agent.mjs runs the book's AG-UI client example (docs/src/formats/ui-streams.md)
// (HttpAgent) against a few fixtures.
//
// Usage: node check.mjs [TOOLNORM_BINARY] (default: $TOOLNORM, else
// $CARGO_TARGET_DIR/debug/toolnorm, else ../../target/debug/toolnorm).
import { execFile } from "node:child_process";
import { mkdtempSync, readFileSync, readdirSync, rmSync, statSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { dirname, join, relative } from "node:path";
import { fileURLToPath } from "node:url";
import { isDeepStrictEqual, promisify } from "node:util";

import { DefaultChatTransport, parseJsonEventStream, readUIMessageStream, uiMessageChunkSchema } from "ai";
import { Chat } from "@ai-sdk/react";
import { EventSchemas } from "@ag-ui/core/schemas";
import { AbstractAgent, parseSSEStream, verifyEvents } from "@ag-ui/client";
import { client as acpClient, ndJsonStream } from "@agentclientprotocol/sdk";
import { Observable, from, lastValueFrom, toArray } from "rxjs";

/** Equal as JSON (a key whose value is undefined is the same as no key). */
const same = (a, b) => isDeepStrictEqual(asJson(a), asJson(b));
const asJson = (value) => (value === undefined ? undefined : JSON.parse(JSON.stringify(value)));

const here = dirname(fileURLToPath(import.meta.url));
const root = join(here, "../..");
const binary =
  process.argv[2] ??
  process.env.TOOLNORM ??
  join(process.env.CARGO_TARGET_DIR ?? join(root, "target"), "debug/toolnorm");

/** The `.jsonl` files directly under `dir`, or under its folders when `nested`. */
function jsonlFiles(dir, nested) {
  const files = [];
  for (const entry of readdirSync(dir).sort()) {
    const path = join(dir, entry);
    if (nested && statSync(path).isDirectory()) files.push(...jsonlFiles(path, false));
    else if (!nested && entry.endsWith(".jsonl")) files.push(path);
  }
  return files;
}

const execFileAsync = promisify(execFile);

/** The formats each input is written in: `toolnorm normalize` arguments by name. */
const FORMATS = {
  parts: ["--format", "parts"],
  aiSdk: ["--format", "ai-sdk"],
  aiSdkSse: ["--format", "ai-sdk", "--sse"],
  agUi: ["--format", "ag-ui"],
  agUiSse: ["--format", "ag-ui", "--sse"],
  updates: ["--format", "updates"],
  acp: ["--format", "acp"],
};

/** What `toolnorm normalize` writes for `input` in every format of FORMATS, the runs at
 * once (the checks are the main thread's; the runs are processes, on the other cores). */
async function outputs(input) {
  const written = await Promise.all(
    Object.entries(FORMATS).map(async ([name, args]) => {
      const { stdout } = await execFileAsync(binary, ["normalize", ...args, input], {
        encoding: "utf8",
        maxBuffer: 1 << 28,
      });
      return [name, stdout];
    }),
  );
  return Object.fromEntries(written);
}

const jsonLines = (text) =>
  text
    .split("\n")
    .filter((line) => line.length > 0)
    .map((line) => JSON.parse(line));

function streamOf(values) {
  return new ReadableStream({
    start(controller) {
      for (const value of values) controller.enqueue(value);
      controller.close();
    },
  });
}

async function collect(stream) {
  const values = [];
  for await (const value of stream) values.push(value);
  return values;
}

/** The text a result shows, as the emitter writes it. */
const outputText = (output) =>
  output === undefined || output === null
    ? ""
    : typeof output === "string"
      ? output
      : JSON.stringify(output);

const isDenial = (part) =>
  part.state === "error" &&
  (part.error?.code === "permission_denied" ||
    part.error?.code === "user_rejected" ||
    ["denied", "cancelled"].includes(part.metadata?.approval?.status));

/** The AI SDK state a toolnorm part folds to. */
function aiState(part) {
  const approval = part.metadata?.approval?.status;
  if (!["complete", "error"].includes(part.state) && approval !== undefined) {
    return approval === "pending" ? "approval-requested" : "approval-responded";
  }
  switch (part.state) {
    case "complete":
      return "output-available";
    case "error":
      return isDenial(part) ? "output-denied" : "output-error";
    case "running":
      return "input-available";
    default:
      return "input-streaming";
  }
}

function expect(condition, message) {
  if (!condition) throw new Error(message);
}

/** The `dynamic-tool` parts of `messages`, by call id (a later message's part wins). */
function toolParts(messages) {
  const tools = new Map();
  for (const message of messages) {
    for (const part of message.parts) {
      if (message.role === "user") continue;
      expect(part.type === "dynamic-tool", `a ${part.type} part`);
      tools.set(part.toolCallId, part);
    }
  }
  return tools;
}

/** Every call of `parts` is a tool part of `tools` as toolnorm ended it. */
function expectToolParts(tools, parts, path) {
  expect(tools.size === parts.length, `${path}: ${tools.size} tool parts for ${parts.length} toolnorm parts`);
  for (const part of parts) {
    const tool = tools.get(part.id);
    const where = `${path}: call ${part.id}`;
    expect(tool !== undefined, `${where}: no tool part`);
    expect(tool.state === aiState(part), `${where}: state ${tool.state}, expected ${aiState(part)} (${part.state})`);
    expect(tool.toolName === part.name, `${where}: toolName ${tool.toolName}`);
    expect(tool.title === part.title, `${where}: title ${tool.title}`);
    if (part.state !== "started") {
      expect(isDeepStrictEqual(tool.input, part.input), `${where}: input ${JSON.stringify(tool.input)?.slice(0, 200)}`);
    }
    const meta = tool.toolMetadata?.toolnorm;
    expect(meta?.kind === part.kind, `${where}: toolMetadata.toolnorm.kind ${meta?.kind}`);
    // A call that asked: its approval, and the decision once made.
    const approval = part.metadata?.approval;
    expect((tool.approval !== undefined) === (approval !== undefined), `${where}: approval ${JSON.stringify(tool.approval)}`);
    if (approval !== undefined && approval.status !== "pending") {
      expect(tool.approval.approved === (approval.status === "approved"), `${where}: approved ${tool.approval.approved}, ${approval.status}`);
    }
    if (part.state === "complete") {
      expect(isDeepStrictEqual(tool.output, part.output ?? null), `${where}: output differs`);
    }
    if (part.state === "error") {
      expect(meta?.error?.code === part.error?.code, `${where}: error code ${meta?.error?.code}`);
      expect(meta?.error?.message === part.error?.message, `${where}: error message in toolMetadata`);
      if (!isDenial(part)) {
        expect(tool.errorText === part.error.message, `${where}: errorText ${tool.errorText}`);
      }
    }
  }
}

/** A chat transport that answers with `sseText` and counts the chunks it hands on. */
class RecordedTransport extends DefaultChatTransport {
  constructor(sseText) {
    super({
      api: "http://127.0.0.1/agent",
      fetch: async () =>
        new Response(sseText, { headers: { "content-type": "text/event-stream" } }),
    });
    this.chunks = 0;
  }

  processResponseStream(stream) {
    return super.processResponseStream(stream).pipeThrough(
      new TransformStream({
        transform: (chunk, controller) => {
          this.chunks += 1;
          controller.enqueue(chunk);
        },
      }),
    );
  }
}

async function checkAiSdk(parts, text, sseText) {
  const chunks = jsonLines(text);
  const schema = uiMessageChunkSchema();
  for (const chunk of chunks) {
    const result = await schema.validate(chunk);
    expect(result.success, `chunk fails uiMessageChunkSchema: ${JSON.stringify(chunk).slice(0, 300)}\n${result.error}`);
  }
  // The SSE framing, read the way the AI SDK's chat transport reads a response.
  const parsed = await collect(
    parseJsonEventStream({
      stream: streamOf([new TextEncoder().encode(sseText)]),
      schema: uiMessageChunkSchema,
    }),
  );
  expect(parsed.length === chunks.length, `SSE gave ${parsed.length} chunks, lines ${chunks.length}`);
  for (const [index, result] of parsed.entries()) {
    expect(result.success, `SSE chunk ${index} does not parse: ${result.error}`);
    expect(same(result.value, chunks[index]), `SSE chunk ${index} differs from its line`);
  }
  const starts = chunks.filter((chunk) => chunk.type === "start").length;
  const finishes = chunks.filter((chunk) => chunk.type === "finish").length;
  expect(starts === finishes, `${starts} start chunks, ${finishes} finish chunks`);
  expect((starts > 0) === (parts.length > 0), `${starts} messages for ${parts.length} parts`);

  // The chat client of `useChat`: the SSE response through its transport, every chunk
  // taken, no error, the calls as toolnorm ended them.
  const errors = [];
  const transport = new RecordedTransport(sseText);
  const chat = new Chat({ transport, onError: (error) => errors.push(error) });
  await chat.sendMessage({ text: "run" });
  expect(errors.length === 0 && chat.error === undefined, `useChat's client: ${[...errors, chat.error].filter(Boolean).map(String).join("; ")}`);
  expect(chat.status === "ready", `useChat's client ended ${chat.status}`);
  expect(transport.chunks === chunks.length, `useChat's client took ${transport.chunks} of ${chunks.length} chunks`);
  expectToolParts(toolParts(chat.messages), parts, "useChat");

  // readUIMessageStream: the last snapshot of each message; a call's last tool part wins.
  const messages = new Map();
  for await (const message of readUIMessageStream({
    stream: streamOf(chunks),
    onError: (error) => errors.push(error),
    terminateOnError: true,
  })) {
    messages.set(message.id, message);
  }
  expect(errors.length === 0, `readUIMessageStream: ${errors.map(String).join("; ")}`);
  expectToolParts(toolParts(messages.values()), parts, "readUIMessageStream");
  return chunks.length;
}

/** The input each call had when it first left `started`, from the `updates` snapshots:
 * what `TOOL_CALL_ARGS` carries (AG-UI arguments are deltas that cannot be taken back, so
 * an input a provider replaces later, as a Codex rollout's end record does, is not
 * sent again). A call still `started` when another asks for approval has its arguments
 * sent then, as they are: the run ends on the interrupt, and it cannot end with a call
 * whose arguments are open. */
function inputsWhenStarted(updates) {
  const inputs = new Map();
  const current = new Map();
  const asked = new Set();
  for (const update of updates) {
    current.set(update.id, update.input);
    if (update.state !== "started" && !inputs.has(update.id)) inputs.set(update.id, update.input);
    const asks = update.metadata?.approval?.status === "pending" && !["complete", "error"].includes(update.state);
    if (asks && !asked.has(update.id)) {
      asked.add(update.id);
      for (const [id, input] of current) if (!inputs.has(id)) inputs.set(id, input);
    }
  }
  return inputs;
}

/** An AG-UI agent whose run yields recorded events. */
class RecordedAgent extends AbstractAgent {
  constructor(threadId, events) {
    super({ threadId });
    this.events = events;
  }

  run() {
    return from(this.events);
  }
}

/** The events applied by an AG-UI client: no failure, every call in its messages, the
 * interrupts it is left with those of the calls still waiting for approval. */
async function applyAgUi(events, parts, argsInput) {
  const threadId = events[0]?.threadId ?? "thread";
  const failures = [];
  const results = new Map();
  const agent = new RecordedAgent(threadId, events);
  const { newMessages } = await agent.runAgent(
    {},
    {
      onRunFailed: ({ error }) => failures.push(error),
      onRunErrorEvent: ({ event }) => failures.push(event.message),
      onToolCallResultEvent: ({ event }) => results.set(event.toolCallId, event),
    },
  );
  expect(failures.length === 0, `the AG-UI client failed: ${failures.map(String).join("; ")}`);
  const waiting = parts.filter((part) => part.metadata?.approval?.status === "pending").map((part) => part.id);
  const pendingInterrupts = agent.pendingInterrupts.map((interrupt) => interrupt.toolCallId);
  expect(same(pendingInterrupts, waiting), `AG-UI client: pending interrupts ${pendingInterrupts}, waiting ${waiting}`);
  const calls = new Map();
  const toolMessages = new Map();
  for (const message of newMessages) {
    if (message.role === "assistant") for (const call of message.toolCalls ?? []) calls.set(call.id, call);
    if (message.role === "tool") toolMessages.set(message.toolCallId, message);
  }
  expect(calls.size === parts.length, `the AG-UI client holds ${calls.size} calls for ${parts.length} parts`);
  for (const part of parts) {
    const where = `AG-UI client: call ${part.id}`;
    const call = calls.get(part.id);
    expect(call !== undefined, `${where}: not among the messages' tool calls`);
    expect(call.function.name === part.name, `${where}: named ${call.function.name}`);
    if (part.state !== "started") {
      expect(isDeepStrictEqual(JSON.parse(call.function.arguments), argsInput.get(part.id)), `${where}: arguments`);
    }
    const terminal = part.state === "complete" || part.state === "error";
    expect(terminal === toolMessages.has(part.id), `${where}: ${part.state} with tool message ${toolMessages.has(part.id)}`);
    if (!terminal) continue;
    const content = part.state === "complete" ? outputText(part.output) : part.error.message;
    expect(toolMessages.get(part.id).content === content, `${where}: tool message content differs`);
    expect(results.get(part.id)?.metadata?.toolnorm?.state === part.state, `${where}: result state`);
  }
}

/** The interrupts and resumes of an AG-UI stream against the calls' approvals: every call
 * that waited is an interrupt; a resume answers an interrupt of the run before it, as its
 * call's approval was decided. */
function checkInterrupts(events, parts, updates) {
  const byId = new Map(parts.map((part) => [part.id, part]));
  const waited = new Set(
    updates
      .filter((update) => update.metadata?.approval?.status === "pending" && !["complete", "error"].includes(update.state))
      .map((update) => update.id),
  );
  const raised = new Set();
  let last = [];
  for (const event of events) {
    if (event.type === "RUN_FINISHED") {
      last = event.outcome?.type === "interrupt" ? event.outcome.interrupts : [];
      for (const interrupt of last) {
        const where = `interrupt ${interrupt.id}`;
        expect(interrupt.reason === "tool_approval", `${where}: reason ${interrupt.reason}`);
        expect(interrupt.id === `${interrupt.toolCallId}:approval`, `${where}: not its call's`);
        expect(byId.has(interrupt.toolCallId), `${where}: no such call`);
        expect(interrupt.metadata?.toolnorm?.approval?.status === "pending", `${where}: approval not pending`);
        raised.add(interrupt.toolCallId);
      }
    }
    if (event.type === "RUN_STARTED") {
      for (const entry of event.input?.resume ?? []) {
        const interrupt = last.find((raisedBefore) => raisedBefore.id === entry.interruptId);
        expect(interrupt !== undefined, `resume ${entry.interruptId}: no interrupt of the run before`);
        const approval = byId.get(interrupt.toolCallId).metadata?.approval;
        if (approval.status === "cancelled") {
          expect(entry.status === "cancelled", `resume ${entry.interruptId}: ${entry.status}, the approval was cancelled`);
        } else {
          expect(entry.status === "resolved", `resume ${entry.interruptId}: ${entry.status}`);
          expect(entry.payload?.approved === (approval.status === "approved"), `resume ${entry.interruptId}: approved ${entry.payload?.approved}, ${approval.status}`);
        }
      }
    }
  }
  for (const id of waited) expect(raised.has(id), `call ${id} waited for approval: no interrupt`);
  for (const id of raised) expect(waited.has(id), `call ${id} is an interrupt: it never waited`);
}

async function checkAgUi(parts, text, sseText, updates) {
  const argsInput = inputsWhenStarted(updates);
  const events = jsonLines(text);
  for (const event of events) {
    const result = EventSchemas.safeParse(event);
    expect(result.success, `event fails EventSchemas: ${JSON.stringify(event).slice(0, 300)}\n${result.error}`);
  }
  await lastValueFrom(verifyEvents(false)(from(events)).pipe(toArray()));
  const fromSse = await lastValueFrom(
    parseSSEStream(
      // parseSSEStream subscribes at once and multicasts: the data must come later.
      new Observable((subscriber) => {
        setTimeout(() => {
          subscriber.next({ type: "data", data: new TextEncoder().encode(sseText) });
          subscriber.complete();
        });
      }),
    ).pipe(toArray()),
  );
  expect(same(fromSse, events), `SSE gave ${fromSse.length} events, lines ${events.length}`);
  await applyAgUi(events, parts, argsInput);
  checkInterrupts(events, parts, updates);

  const calls = new Map();
  for (const event of events) {
    switch (event.type) {
      case "TOOL_CALL_START":
        expect(!calls.has(event.toolCallId), `a second TOOL_CALL_START for ${event.toolCallId}`);
        calls.set(event.toolCallId, { start: event, args: "" });
        break;
      case "TOOL_CALL_ARGS":
        calls.get(event.toolCallId).args += event.delta;
        break;
      case "TOOL_CALL_END":
        calls.get(event.toolCallId).ended = true;
        break;
      case "TOOL_CALL_RESULT":
        expect(typeof event.content === "string", `the result of ${event.toolCallId} is no string`);
        calls.get(event.toolCallId).result = event;
        break;
    }
  }
  expect(calls.size === parts.length, `${calls.size} calls for ${parts.length} parts`);
  for (const part of parts) {
    const call = calls.get(part.id);
    const where = `call ${part.id}`;
    expect(call !== undefined, `${where}: no TOOL_CALL_START`);
    expect(call.start.toolCallName === part.name, `${where}: toolCallName ${call.start.toolCallName}`);
    expect(call.start.metadata?.toolnorm?.kind === part.kind, `${where}: kind`);
    expect(call.ended, `${where}: no TOOL_CALL_END`);
    if (part.state !== "started") {
      const sent = argsInput.get(part.id);
      expect(isDeepStrictEqual(JSON.parse(call.args), sent), `${where}: arguments ${call.args.slice(0, 200)}`);
      if (!isDeepStrictEqual(sent, part.input)) totals.replacedInputs += 1;
    }
    const terminal = part.state === "complete" || part.state === "error";
    expect(terminal === (call.result !== undefined), `${where}: ${part.state} with result ${call.result !== undefined}`);
    if (!terminal) continue;
    const meta = call.result.metadata?.toolnorm;
    expect(meta?.state === part.state, `${where}: result state ${meta?.state}, expected ${part.state}`);
    expect(meta?.title === part.title, `${where}: result title`);
    if (part.state === "complete") {
      expect(call.result.content === outputText(part.output), `${where}: content differs from the output`);
    } else {
      expect(call.result.content === part.error.message, `${where}: content differs from the error message`);
      expect(meta?.error?.code === part.error.code, `${where}: error code ${meta?.error?.code}`);
    }
  }
  return events.length;
}

/** The ACP frames read by the ACP SDK's client: it validates each `session/update` and
 * each `session/request_permission` with its schema and hands its handler every frame,
 * params as sent (a frame it rejects, it drops, or answers with an error). Every call
 * that waited for approval is asked once, with the approval it waited on. */
async function checkAcp(text, updates) {
  const frames = jsonLines(text);
  const notifications = frames.filter((frame) => frame.method === "session/update");
  const asks = frames.filter((frame) => frame.method === "session/request_permission");
  expect(notifications.length + asks.length === frames.length, "an ACP frame that is neither an update nor a permission request");
  const delivered = [];
  const asked = [];
  const input = streamOf([new TextEncoder().encode(text)]);
  const connection = acpClient()
    .onNotification("session/update", ({ params }) => {
      delivered.push(params);
    })
    .onRequest("session/request_permission", ({ params }) => {
      asked.push(params);
      return { outcome: { outcome: "cancelled" } };
    })
    .connect(ndJsonStream(new WritableStream(), input));
  await connection.connection.closed;
  expect(delivered.length === notifications.length, `the ACP client took ${delivered.length} of ${notifications.length} frames`);
  for (const [index, frame] of notifications.entries()) {
    expect(same(delivered[index], frame.params), `ACP frame ${index} reached the client changed`);
  }
  expect(asked.length === asks.length, `the ACP client took ${asked.length} of ${asks.length} permission requests`);
  for (const [index, frame] of asks.entries()) {
    expect(same(asked[index], frame.params), `ACP permission request ${index} reached the client changed`);
    expect(frame.params._meta?.toolnorm?.approval?.status === "pending", `ACP permission request ${index}: approval not pending`);
  }
  const waited = new Set(
    updates
      .filter((update) => update.metadata?.approval?.status === "pending" && !["complete", "error"].includes(update.state))
      .map((update) => update.id),
  );
  const askedIds = asks.map((frame) => frame.params.toolCall.toolCallId);
  expect(new Set(askedIds).size === askedIds.length, "a call asked twice");
  expect(same([...askedIds].sort(), [...waited].sort()), `asked ${askedIds}, waited ${[...waited]}`);
  return frames.length;
}

const fixtures = jsonlFiles(join(root, "fixtures"), true);
const cases = jsonlFiles(join(here, "cases"), false);
// All the edge cases as one stream: a chunk the client rejects would lose every later call.
const scratch = mkdtempSync(join(tmpdir(), "toolnorm-ui-cases-"));
const allCases = join(scratch, "all-cases.jsonl");
writeFileSync(allCases, cases.map((file) => readFileSync(file, "utf8")).join(""));
let failures = 0;
const totals = { inputs: 0, parts: 0, chunks: 0, events: 0, frames: 0, replacedInputs: 0 };
const inputs = [...fixtures, ...cases, allCases];
// The next input's runs go while the checks of this one run.
let pending = outputs(inputs[0]);
for (const [index, input] of inputs.entries()) {
  const name = input === allCases ? "every edge case as one stream" : relative(root, input);
  const current = pending;
  if (index + 1 < inputs.length) {
    pending = outputs(inputs[index + 1]);
    // Its failure is reported when its turn comes, not as an unhandled rejection now.
    pending.catch(() => {});
  }
  try {
    const out = await current;
    const parts = jsonLines(out.parts);
    totals.chunks += await checkAiSdk(parts, out.aiSdk, out.aiSdkSse);
    totals.events += await checkAgUi(parts, out.agUi, out.agUiSse, jsonLines(out.updates));
    totals.frames += await checkAcp(out.acp, jsonLines(out.updates));
    totals.inputs += 1;
    totals.parts += parts.length;
  } catch (error) {
    failures += 1;
    console.error(`FAIL ${name}: ${error.message ?? error}`);
  }
}
rmSync(scratch, { recursive: true, force: true });
console.log(
  `${totals.inputs}/${inputs.length} inputs pass (${fixtures.length} fixtures, ${cases.length} edge cases, ` +
    `the edge cases as one stream): ${totals.parts} calls, ` +
    `${totals.chunks} ai-sdk chunks, ${totals.events} ag-ui events, ${totals.frames} acp frames ` +
    `(${totals.replacedInputs} calls whose input the provider replaced after they started running: ` +
    `their TOOL_CALL_ARGS are the input as it was then)`,
);
if (failures > 0 || fixtures.length < 100 || cases.length < 10) process.exit(1);
