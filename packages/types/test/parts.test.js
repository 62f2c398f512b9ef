// The helpers, with node's test runner, on the built package (dist/). With TOOLNORM set to
// a toolnorm binary, also on the repository's fixtures: the updates fold into the parts.
import assert from "node:assert/strict";
import { execFile } from "node:child_process";
import { readdirSync } from "node:fs";
import { availableParallelism } from "node:os";
import { join } from "node:path";
import { test } from "node:test";
import { promisify } from "node:util";

import {
  LEGACY_STATE_BY_TOOL_STATE,
  TOOL_KINDS,
  TOOL_STATES,
  foldUpdates,
  fromLegacyState,
  isComplete,
  isFailed,
  isNormalizedToolPart,
  isOpen,
  isTerminal,
  isToolKind,
  isToolPart,
  isToolState,
  parseUpdateLine,
  reduceUpdate,
  toLegacyState,
  toLegacyToolPart,
  toToolPart,
} from "../dist/index.js";

const part = (fields) => ({ id: "t1", name: "Bash", kind: "bash", title: "ls", input: { command: "ls" }, state: "started", ...fields });

test("a part is recognised, and what is not one is refused", () => {
  assert.equal(isNormalizedToolPart(part({})), true);
  assert.equal(isNormalizedToolPart(part({ timing: { startedAt: "2026-01-01T00:00:00Z", elapsedMs: 3 }, metadata: {} })), true);
  for (const broken of [
    null,
    [],
    "part",
    part({ kind: "shell" }),
    part({ state: "done" }),
    part({ id: 7 }),
    part({ error: { code: "x" } }),
    part({ timing: { elapsedMs: "3" } }),
    part({ metadata: [] }),
    (({ input, ...rest }) => rest)(part({})),
  ]) {
    assert.equal(isNormalizedToolPart(broken), false, JSON.stringify(broken));
  }
});

test("the state-discriminated view holds only parts that keep the invariants", () => {
  const failed = part({ state: "error", error: { message: "exit 1", code: "exit_code" } });
  assert.equal(isToolPart(failed), true);
  assert.equal(isToolPart(part({ state: "error" })), false, "an error state without its error");
  assert.equal(isToolPart(part({ state: "error", error: { message: "m" }, output: "x" })), false);
  assert.equal(isToolPart(part({ state: "running", output: "x" })), false);
  assert.equal(isToolPart(part({ state: "complete", error: { message: "m" } })), false);
  assert.equal(toToolPart(part({ state: "complete", output: "a.txt" }))?.output, "a.txt");
  assert.equal(toToolPart(part({ state: "started", error: { message: "m" } })), undefined);
  assert.equal(isFailed(failed), true);
  assert.equal(isFailed(part({ state: "error" })), false);
  assert.equal(isComplete(part({ state: "complete" })), true);
  assert.deepEqual(
    TOOL_STATES.map((state) => [isOpen(part({ state })), isTerminal(state)]),
    [[true, false], [true, false], [false, true], [false, true]],
  );
});

test("names are checked against the lists", () => {
  assert.equal(TOOL_KINDS.every(isToolKind), true);
  assert.equal(TOOL_STATES.every(isToolState), true);
  assert.equal(isToolKind("Bash"), false);
  assert.equal(isToolState("calling"), false);
});

test("legacy state names map both ways", () => {
  assert.deepEqual(TOOL_STATES.map(toLegacyState), ["calling", "calling", "output-available", "output-error"]);
  assert.equal(fromLegacyState("calling"), "running");
  for (const state of ["running", "complete", "error"]) {
    assert.equal(fromLegacyState(toLegacyState(state)), state);
  }
  assert.equal(Object.keys(LEGACY_STATE_BY_TOOL_STATE).length, TOOL_STATES.length);
  const legacy = toLegacyToolPart(part({ state: "complete", output: "x" }));
  assert.equal(legacy.state, "output-available");
  assert.equal(legacy.output, "x");
});

test("updates fold into the last snapshot of each call, in first-seen order", () => {
  const lines = [
    JSON.stringify(part({ id: "a" })),
    "",
    JSON.stringify(part({ id: "b" })),
    JSON.stringify(part({ id: "a", state: "complete", output: "done" })),
  ];
  const parts = foldUpdates(lines);
  assert.deepEqual([...parts.keys()], ["a", "b"]);
  assert.equal(parts.get("a")?.state, "complete");
  const before = new Map(parts);
  const after = reduceUpdate(parts, part({ id: "b", state: "running" }));
  assert.notEqual(after, parts);
  assert.deepEqual(parts, before, "the reducer leaves its input as it was");
  assert.equal(after.get("b")?.state, "running");
  assert.equal(parseUpdateLine("  "), undefined);
  assert.throws(() => parseUpdateLine('{"id":"x"}'), TypeError);
  assert.throws(() => parseUpdateLine("{"), SyntaxError);
});

const binary = process.env.TOOLNORM;
test("every fixture's updates fold into its parts", { skip: binary ? false : "TOOLNORM is not set" }, async () => {
  const root = join(import.meta.dirname, "../../../fixtures");
  const paths = readdirSync(root, { withFileTypes: true })
    .filter((entry) => entry.isDirectory())
    .flatMap((dir) =>
      readdirSync(join(root, dir.name))
        .filter((name) => name.endsWith(".jsonl"))
        .map((file) => join(root, dir.name, file)),
    );
  const run = async (format, path) =>
    (await promisify(execFile)(binary, ["normalize", "--format", format, path], { encoding: "utf8", maxBuffer: 1 << 28 })).stdout;
  const check = async (path) => {
    const [updates, partLines] = await Promise.all([run("updates", path), run("parts", path)]);
    const folded = foldUpdates(updates.split("\n"));
    const parts = partLines.split("\n").filter(Boolean).map((line) => JSON.parse(line));
    assert.deepEqual(
      [...folded.values()].sort((a, b) => a.id.localeCompare(b.id)),
      parts.sort((a, b) => a.id.localeCompare(b.id)),
      path,
    );
    for (const part of parts) assert.equal(isToolPart(part), true, `${path}: ${part.id}`);
  };
  // The fixtures a few at a time: the runs are processes, so they use every core.
  let next = 0;
  const worker = async () => {
    while (next < paths.length) await check(paths[next++]);
  };
  await Promise.all(Array.from({ length: availableParallelism() + 1 }, worker));
  assert.ok(paths.length > 100, `${paths.length} fixtures`);
});
