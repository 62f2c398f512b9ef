// Runs `toolnorm normalize` on every fixture in `--format ai-sdk` and `--format ag-ui`
// (plain and `--sse`) and checks the output with the real packages:
//
// - ai-sdk: every chunk passes the AI SDK's `uiMessageChunkSchema`; the SSE framing
//   parses with `parseJsonEventStream` (what `DefaultChatTransport` reads); and
//   `readUIMessageStream` folds the stream into messages whose tool parts have the
//   ids, names, titles, inputs, outputs, error texts and states of `--format parts`.
// - ag-ui: every event passes `@ag-ui/core`'s `EventSchemas`; the whole stream passes
//   `@ag-ui/client`'s `verifyEvents`; its SSE framing parses with `parseSSEStream`;
//   the calls and their end states are those of `--format parts`.
//
// agent.mjs runs the book's AG-UI client example (docs/src/formats/ui-streams.md) (HttpAgent) against a few fixtures.
//
// Usage: node check.mjs [TOOLNORM_BINARY] (default: $TOOLNORM, else
// $CARGO_TARGET_DIR/debug/toolnorm, else ../../target/debug/toolnorm).
import { execFileSync } from "node:child_process";
import { readdirSync, statSync } from "node:fs";
import { dirname, join, relative } from "node:path";
import { fileURLToPath } from "node:url";
import { isDeepStrictEqual } from "node:util";

/** Equal as JSON (a key whose value is undefined is the same as no key). */
const same = (a, b) => isDeepStrictEqual(asJson(a), asJson(b));
const asJson = (value) => (value === undefined ? undefined : JSON.parse(JSON.stringify(value)));

import { parseJsonEventStream, readUIMessageStream, uiMessageChunkSchema } from "ai";
import { EventSchemas } from "@ag-ui/core/schemas";
import { parseSSEStream, verifyEvents } from "@ag-ui/client";
import { Observable, from, lastValueFrom, toArray } from "rxjs";

const here = dirname(fileURLToPath(import.meta.url));
const root = join(here, "../..");
const binary =
  process.argv[2] ??
  process.env.TOOLNORM ??
  join(process.env.CARGO_TARGET_DIR ?? join(root, "target"), "debug/toolnorm");

function fixtures() {
  const dir = join(root, "fixtures");
  const files = [];
  for (const sub of readdirSync(dir).sort()) {
    const path = join(dir, sub);
    if (!statSync(path).isDirectory()) continue;
    for (const file of readdirSync(path).sort()) {
      if (file.endsWith(".jsonl")) files.push(join(path, file));
    }
  }
  return files;
}

function run(fixture, ...args) {
  return execFileSync(binary, ["normalize", ...args, fixture], {
    encoding: "utf8",
    maxBuffer: 1 << 28,
    stdio: ["ignore", "pipe", "ignore"],
  });
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
  (part.error?.code === "permission_denied" || part.error?.code === "user_rejected");

/** The AI SDK state a toolnorm part folds to. */
function aiState(part) {
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

  // Fold: the last snapshot of each message; a call's last tool part wins.
  const errors = [];
  const messages = new Map();
  for await (const message of readUIMessageStream({
    stream: streamOf(chunks),
    onError: (error) => errors.push(error),
  })) {
    messages.set(message.id, message);
  }
  expect(errors.length === 0, `readUIMessageStream: ${errors.map(String).join("; ")}`);
  const tools = new Map();
  for (const message of messages.values()) {
    for (const part of message.parts) {
      expect(part.type === "dynamic-tool", `a ${part.type} part`);
      tools.set(part.toolCallId, part);
    }
  }
  expect(tools.size === parts.length, `${tools.size} tool parts for ${parts.length} toolnorm parts`);
  for (const part of parts) {
    const tool = tools.get(part.id);
    const where = `call ${part.id}`;
    expect(tool !== undefined, `${where}: no tool part`);
    expect(tool.state === aiState(part), `${where}: state ${tool.state}, expected ${aiState(part)} (${part.state})`);
    expect(tool.toolName === part.name, `${where}: toolName ${tool.toolName}`);
    expect(tool.title === part.title, `${where}: title ${tool.title}`);
    expect(isDeepStrictEqual(tool.input, part.input), `${where}: input ${JSON.stringify(tool.input)} != ${JSON.stringify(part.input)}`);
    const meta = tool.toolMetadata?.toolnorm;
    expect(meta?.kind === part.kind, `${where}: toolMetadata.toolnorm.kind ${meta?.kind}`);
    if (part.state === "complete") {
      expect(isDeepStrictEqual(tool.output, part.output), `${where}: output differs`);
    }
    if (part.state === "error") {
      expect(meta?.error?.code === part.error?.code, `${where}: error code ${meta?.error?.code}`);
      expect(meta?.error?.message === part.error?.message, `${where}: error message in toolMetadata`);
      if (!isDenial(part)) {
        expect(tool.errorText === part.error.message, `${where}: errorText ${tool.errorText}`);
      }
    }
  }
  return chunks.length;
}

/** The input each call had when it first left `started`, from the `updates` snapshots:
 * what `TOOL_CALL_ARGS` carries (AG-UI arguments are deltas that cannot be taken back, so
 * an input a provider replaces later, as a Codex rollout's end record does, is not
 * sent again). */
function inputsWhenStarted(updates) {
  const inputs = new Map();
  for (const update of updates) {
    if (update.state !== "started" && !inputs.has(update.id)) inputs.set(update.id, update.input);
  }
  return inputs;
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

const files = fixtures();
let failures = 0;
const totals = { fixtures: 0, parts: 0, chunks: 0, events: 0, replacedInputs: 0 };
for (const fixture of files) {
  const name = relative(root, fixture);
  try {
    const parts = jsonLines(run(fixture, "--format", "parts"));
    totals.chunks += await checkAiSdk(
      parts,
      run(fixture, "--format", "ai-sdk"),
      run(fixture, "--format", "ai-sdk", "--sse"),
    );
    totals.events += await checkAgUi(
      parts,
      run(fixture, "--format", "ag-ui"),
      run(fixture, "--format", "ag-ui", "--sse"),
      jsonLines(run(fixture, "--format", "updates")),
    );
    totals.fixtures += 1;
    totals.parts += parts.length;
  } catch (error) {
    failures += 1;
    console.error(`FAIL ${name}: ${error.message ?? error}`);
  }
}
console.log(
  `${totals.fixtures}/${files.length} fixtures pass: ${totals.parts} calls, ` +
    `${totals.chunks} ai-sdk chunks, ${totals.events} ag-ui events ` +
    `(${totals.replacedInputs} calls whose input the provider replaced after they started running: ` +
    `their TOOL_CALL_ARGS are the input as it was then)`,
);
if (failures > 0 || files.length < 100) process.exit(1);
