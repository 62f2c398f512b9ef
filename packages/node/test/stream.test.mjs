// The streaming Normalizer, fed every fixture in random chunks (bytes cut anywhere, UTF-8
// sequences included; strings cut anywhere, surrogate pairs included), gives what the
// whole stream gives in one push, and what `toolnorm normalize --format updates` writes.
import assert from "node:assert/strict";
import { readFileSync } from "node:fs";
import { test } from "node:test";

import { Normalizer } from "../index.js";
import { asJsonLines, asLines, cliMany, fixtureName, fixtures, randomChunks, seedOf, stderrOf } from "./common.mjs";

/** Every update and diagnostic of `chunks` pushed one by one, then finish. */
function stream(chunks, options) {
  const normalizer = new Normalizer(options);
  const updates = [];
  const diagnostics = [];
  for (const chunk of [...chunks.map((c) => normalizer.push(c)), normalizer.finish()]) {
    updates.push(...chunk.updates);
    diagnostics.push(...chunk.diagnostics);
  }
  return { updates, diagnostics, normalizer };
}

const all = fixtures();
const expectations = await cliMany(all.map((path) => [["--format", "updates"], path]));

for (const [index, path] of all.entries()) {
  const name = fixtureName(path);
  test(`updates of ${name}, whole and in random chunks`, () => {
    const bytes = readFileSync(path);
    const whole = stream([bytes]);
    const expected = expectations[index];
    if (expected.status !== 3) {
      assert.equal(expected.status, 0, expected.stderr.join("\n"));
      assert.deepEqual(asLines(whole.updates), asJsonLines(expected.stdout));
      assert.deepEqual(
        whole.diagnostics.map((d) => d.text),
        stderrOf(expected).diagnostics,
      );
    }
    const seed = seedOf(name);
    for (const chunks of [randomChunks(bytes, seed), randomChunks(bytes, seed + 1, 64)]) {
      const cut = stream(chunks);
      assert.deepEqual(cut.updates, whole.updates, `${chunks.length} chunks`);
      assert.deepEqual(cut.diagnostics, whole.diagnostics);
      assert.deepEqual(cut.normalizer.stats, whole.normalizer.stats);
      assert.equal(cut.normalizer.dialect, whole.normalizer.dialect);
    }
    const text = stream(randomChunks(bytes.toString("utf8"), seed + 2, 512));
    assert.deepEqual(text.updates, whole.updates);
    assert.deepEqual(text.diagnostics, whole.diagnostics);
  });
}

test("a string cut inside a surrogate pair is joined again", () => {
  const path = fixtures().find((p) => p.endsWith("claude-code/shell-ok.jsonl"));
  const line = readFileSync(path, "utf8").replace("hello from the shell", "hello 🐚 shell");
  const at = line.indexOf("🐚") + 1;
  const cut = stream([line.slice(0, at), line.slice(at)]);
  assert.deepEqual(cut.updates, stream([line]).updates);
  assert.ok(JSON.stringify(cut.updates).includes("🐚"));
});

test("updates come out with the chunk that completes their line", () => {
  const path = fixtures().find((p) => p.endsWith("claude-code/shell-ok.jsonl"));
  const lines = readFileSync(path, "utf8").split(/(?<=\n)/);
  const normalizer = new Normalizer();
  const counts = lines.map((line) => normalizer.push(line).updates.length);
  assert.equal(normalizer.finish().updates.length, 0);
  // The tool_use line opens the call, the tool_result line ends it: each at once.
  assert.ok(counts.filter((n) => n > 0).length >= 2, JSON.stringify(counts));
  assert.deepEqual(normalizer.stats.lines, lines.length);
});

test("push or finish after finish is refused", () => {
  const normalizer = new Normalizer();
  normalizer.finish();
  assert.throws(() => normalizer.push("{}\n"), /finished/);
  assert.throws(() => normalizer.finish(), /finished/);
});
