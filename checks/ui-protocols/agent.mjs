// The book's AG-UI client example (docs/src/formats/ui-streams.md), run: an HTTP endpoint streams
// `toolnorm normalize --format ag-ui --sse` of a fixture, and `@ag-ui/client`'s HttpAgent
// runs against it; the messages it builds hold every call with its arguments and result.
import { spawn, execFileSync } from "node:child_process";
import { createServer } from "node:http";
import { dirname, join } from "node:path";
import { fileURLToPath } from "node:url";
import { isDeepStrictEqual } from "node:util";

import { HttpAgent } from "@ag-ui/client";

const root = join(dirname(fileURLToPath(import.meta.url)), "../..");
const binary =
  process.argv[2] ??
  process.env.TOOLNORM ??
  join(process.env.CARGO_TARGET_DIR ?? join(root, "target"), "debug/toolnorm");

async function runAgainst(fixture) {
  const server = createServer(async (request, response) => {
    let body = "";
    for await (const chunk of request) body += chunk;
    const { threadId } = JSON.parse(body);
    response.writeHead(200, { "Content-Type": "text/event-stream", "Cache-Control": "no-cache" });
    const toolnorm = spawn(binary, ["normalize", "--format", "ag-ui", "--sse", "--session-id", threadId, fixture]);
    toolnorm.stdout.pipe(response);
  });
  await new Promise((resolve) => server.listen(0, "127.0.0.1", resolve));
  try {
    const agent = new HttpAgent({ url: `http://127.0.0.1:${server.address().port}/agent` });
    const results = [];
    const failures = [];
    const { newMessages } = await agent.runAgent({}, {
      onRunFailed: ({ error }) => failures.push(error),
      onRunErrorEvent: ({ event }) => failures.push(event.message),
      onToolCallResultEvent: ({ event }) => {
        results.push([event.toolCallId, event.metadata?.toolnorm?.state]);
      },
    });
    if (failures.length > 0) throw new Error(`${fixture}: the run failed: ${failures.map(String).join("; ")}`);
    return { newMessages, results };
  } finally {
    server.close();
  }
}

const fixtures = ["claude-code/subagent.jsonl", "codex-app-server/shell-exit-3.jsonl", "opencode-serve/subagent.jsonl"];
for (const name of fixtures) {
  const fixture = join(root, "fixtures", name);
  const parts = execFileSync(binary, ["normalize", fixture], { encoding: "utf8" }).split("\n").filter(Boolean).map((line) => JSON.parse(line));
  const { newMessages, results } = await runAgainst(fixture);
  const calls = newMessages.flatMap((message) => (message.role === "assistant" ? (message.toolCalls ?? []) : []));
  const toolMessages = new Map(newMessages.filter((message) => message.role === "tool").map((message) => [message.toolCallId, message]));
  for (const part of parts) {
    const call = calls.find((call) => call.id === part.id);
    if (!call) throw new Error(`${name}: ${part.id} is not among the agent's tool calls`);
    if (call.function.name !== part.name) throw new Error(`${name}: ${part.id} named ${call.function.name}`);
    if (!isDeepStrictEqual(JSON.parse(call.function.arguments), part.input)) throw new Error(`${name}: ${part.id} arguments`);
    const terminal = part.state === "complete" || part.state === "error";
    if (terminal !== toolMessages.has(part.id)) throw new Error(`${name}: ${part.id} (${part.state}) tool message`);
    const state = results.find(([id]) => id === part.id)?.[1];
    if (terminal && state !== part.state) throw new Error(`${name}: ${part.id} result state ${state}`);
  }
  console.log(`HttpAgent on ${name}: ${calls.length} tool calls, ${toolMessages.size} results`);
}
