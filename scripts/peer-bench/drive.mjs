// Drives the Claude Code ACP adapter's own conversion functions over a Claude Code
// `stream-json` file, line by line, as its agent's prompt loop calls them: a
// `stream_event` line goes to `streamEventToAcpNotifications`, a `user` or `assistant`
// line to `toAcpNotifications` with the message's content, role, parent tool use and
// `tool_use_result`; other lines (`system`, `result`, …) make no tool notification there
// either. Each notification is framed as the ACP connection frames it (a JSON-RPC
// `session/update`) and written to stdout, as `toolnorm normalize --format acp` writes its
// frames. Prints the counts to stderr.
//
// Usage: node drive.mjs FILE > /dev/null
import { createReadStream, writeSync } from "node:fs";
import { createInterface } from "node:readline";
import { streamEventToAcpNotifications, toAcpNotifications } from "@agentclientprotocol/claude-agent-acp";

// What Zed announces: file system and terminals.
const clientCapabilities = { fs: { readTextFile: true, writeTextFile: true }, terminal: true };
const cwd = "/workspace";
// The agent keeps this state per session; the stub client discards what hooks send.
const sessions = new Map();
const client = { sessionUpdate: async () => {} };
let logged = 0;
const logger = { log: () => {}, error: () => { logged += 1; }, warn: () => {}, debug: () => {} };

function session(id) {
  let state = sessions.get(id);
  if (!state) {
    state = {
      toolUseCache: {},
      taskState: new Map(),
      emittedToolCalls: new Set(),
      streamedToolInputs: new Map(),
    };
    sessions.set(id, state);
  }
  return state;
}

let pending = [];
let pendingBytes = 0;
function write(notification) {
  const line = JSON.stringify({ jsonrpc: "2.0", method: "session/update", params: notification }) + "\n";
  pending.push(line);
  pendingBytes += line.length;
  if (pendingBytes >= 1 << 16) flush();
}
function flush() {
  if (pending.length) writeSync(1, pending.join(""));
  pending = [];
  pendingBytes = 0;
}

const counts = { lines: 0, notifications: 0, toolNotifications: 0 };
function emit(notifications) {
  for (const notification of notifications) {
    counts.notifications += 1;
    const kind = notification.update.sessionUpdate;
    if (kind === "tool_call" || kind === "tool_call_update") counts.toolNotifications += 1;
    write(notification);
  }
}

const input = createInterface({ input: createReadStream(process.argv[2]), crlfDelay: Infinity });
for await (const line of input) {
  if (!line.trim()) continue;
  counts.lines += 1;
  const message = JSON.parse(line);
  const sessionId = message.session_id ?? "session";
  const state = session(sessionId);
  switch (message.type) {
    case "stream_event":
      emit(
        streamEventToAcpNotifications(message, sessionId, state.toolUseCache, client, logger, {
          clientCapabilities,
          cwd,
          taskState: state.taskState,
          emittedToolCalls: state.emittedToolCalls,
          streamedToolInputs: state.streamedToolInputs,
        }),
      );
      break;
    case "user":
    case "assistant": {
      const content = message.message?.content;
      if (content === undefined) break;
      emit(
        toAcpNotifications(content, message.message.role, sessionId, state.toolUseCache, client, logger, {
          clientCapabilities,
          parentToolUseId: message.parent_tool_use_id,
          cwd,
          taskState: state.taskState,
          emittedToolCalls: state.emittedToolCalls,
          toolUseResult: message.type === "user" ? message.tool_use_result : undefined,
          toolResultMeta: message.type === "user" ? message.tool_result_meta : undefined,
        }),
      );
      break;
    }
    default:
      break;
  }
}
flush();
process.stderr.write(
  `lines ${counts.lines}, notifications ${counts.notifications}, tool notifications ${counts.toolNotifications}, logged errors ${logged}\n`,
);
// Hook callbacks hold 30-second cleanup timers (unref'd); nothing else keeps the process.
process.exit(0);
