// normalize() on every recorded fixture gives what `toolnorm normalize --format parts`
// writes: the same parts byte for byte (each serialized again as JSON), the same
// diagnostics with their line numbers, the same line counts.
import assert from "node:assert/strict";
import { readFileSync } from "node:fs";
import { test } from "node:test";

import { dialects, normalize } from "../index.js";
import { asLines, cliDialects, cliMany, fixtureName, fixtures, lineClasses, stderrOf } from "./common.mjs";

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
    assert.deepEqual(asLines(got.parts), expected.stdout);
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
