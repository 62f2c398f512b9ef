// normalize() on every recorded fixture gives what `toolnorm normalize --format parts`
// writes: the same parts (each line of both written again by JavaScript's JSON, so that a
// number the provider wrote as `1.0` compares as the `1` JavaScript holds), the same
// diagnostics with their line numbers, the same line counts.
import assert from "node:assert/strict";
import { readFileSync } from "node:fs";
import { createRequire } from "node:module";
import { test } from "node:test";

import { dialects, normalize } from "../index.js";
import { platformName } from "../platform.js";
import { asJsonLines, asLines, cli, cliDialects, cliMany, fixtureName, fixtures, lineClasses, stderrOf } from "./common.mjs";

const all = fixtures();
const expectations = await cliMany(all.map((path) => [["--format", "parts"], path]));

test("there are fixtures to compare", () => {
  assert.ok(all.length > 100, `${all.length} fixtures`);
});

for (const [index, path] of all.entries()) {
  test(`parts of ${fixtureName(path)}`, () => {
    const expected = expectations[index];
    const got = normalize(readFileSync(path));
    if (expected.status === 3) {
      // No line of a known dialect: the command says so in one message instead of the
      // lines' diagnostics, which the binding gives (and no dialect).
      assert.equal(got.dialect, null);
      assert.deepEqual(got.parts, []);
      assert.ok(got.diagnostics.every((d) => d.kind === "undetected-dialect"));
      return;
    }
    assert.equal(expected.status, 0, expected.stderr.join("\n"));
    assert.deepEqual(asLines(got.parts), asJsonLines(expected.stdout));
    const { diagnostics, counts } = stderrOf(expected);
    assert.deepEqual(
      got.diagnostics.map((d) => d.text),
      diagnostics,
    );
    if (counts) assert.deepEqual(lineClasses(got.stats), counts);
    assert.equal(got.stats.lines, got.stats.appliedLines + got.stats.knownLines + got.stats.noticeLines + got.stats.errorLines);
    assert.notEqual(got.dialect, null);
  });
}

test("a string gives what its bytes give", () => {
  const path = all.find((p) => p.endsWith("claude-code/shell-ok.jsonl"));
  const bytes = readFileSync(path);
  assert.deepEqual(normalize(bytes.toString("utf8")), normalize(bytes));
  assert.deepEqual(normalize(new Uint8Array(bytes)), normalize(bytes));
});

test("the dialects are the command's", () => {
  assert.deepEqual(dialects(), cliDialects());
});

test("a long stream, its parts handed over in several batches, gives the command's parts", () => {
  // About 2.7 MB of parts: several batches, each parsed while the next is read.
  const path = all.find((p) => p.endsWith("codex-exec/shell-ok.jsonl"));
  const data = Buffer.concat(Array(8000).fill(readFileSync(path)));
  const expected = cli(["--format", "parts"], data);
  assert.equal(expected.status, 0, expected.stderr.join("\n"));
  assert.ok(expected.stdout.join("\n").length > 2 << 20);
  const got = normalize(data);
  assert.deepEqual(asLines(got.parts), asJsonLines(expected.stdout));
  assert.deepEqual(got.diagnostics.map((d) => d.text), stderrOf(expected).diagnostics);
  assert.equal(got.stats.lines, 8000 * readFileSync(path, "utf8").split("\n").filter(Boolean).length);
});

test("a run ended before its last batch stops reading, and ends once", () => {
  const native = createRequire(import.meta.url)(`../toolnorm.${platformName()}.node`);
  const path = all.find((p) => p.endsWith("codex-exec/shell-ok.jsonl"));
  const copies = 40000;
  const lines = copies * readFileSync(path, "utf8").split("\n").filter(Boolean).length;
  const run = native.startNormalize(Buffer.concat(Array(copies).fill(readFileSync(path))));
  assert.ok(JSON.parse(run.nextBatch()).length > 0);
  // At most the batches read ahead are read beyond the one taken: far from the end.
  const ended = run.end();
  assert.ok(ended.stats.lines > 0 && ended.stats.lines < lines, `${ended.stats.lines} of ${lines}`);
  assert.equal(run.nextBatch(), null);
  assert.throws(() => run.end(), /finished/);
});
