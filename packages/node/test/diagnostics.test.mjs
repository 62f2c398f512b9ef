// Bad input gives the diagnostics the command gives, with the same line numbers: recorded
// fixtures damaged in the ways streams break (a line that is not JSON, invalid UTF-8, a
// line of another dialect, an event type this version does not know, a stream cut in the
// middle of a line), and input of no known dialect at all.
import assert from "node:assert/strict";
import { readFileSync } from "node:fs";
import { join } from "node:path";
import { test } from "node:test";

import { Normalizer, normalize } from "../index.js";
import { asJsonLines, asLines, cli, fixturesDir, lineClasses, randomChunks, stderrOf } from "./common.mjs";

const fixture = (name) => readFileSync(join(fixturesDir, name));
const lines = (bytes) => bytes.toString("utf8").split(/(?<=\n)/);
const bytesOf = (...parts) => Buffer.concat(parts.map((part) => (typeof part === "string" ? Buffer.from(part) : part)));

/** `bytes` with `line` inserted before the line numbered `at` (1-based). */
function insert(bytes, at, line) {
  const all = lines(bytes);
  return bytesOf(...all.slice(0, at - 1), line, ...all.slice(at - 1));
}

const claude = fixture("claude-code/shell-ok.jsonl");
const codexExec = fixture("codex-exec/shell-ok.jsonl");

const damaged = {
  "a line that is not JSON": insert(claude, 3, "this is not json\n"),
  "a JSON line cut short": insert(claude, 4, '{"type":"assistant","message":{"content":[\n'),
  "invalid UTF-8": insert(claude, 2, bytesOf('{"type":"user","text":"', Buffer.from([0xff, 0xfe]), '"}\n')),
  "a line of another dialect": insert(claude, 3, lines(codexExec)[2]),
  "an event type this version does not know": insert(claude, 2, '{"type":"future_event","session_id":"x"}\n'),
  "a tool result for a call never started": insert(
    claude,
    3,
    '{"type":"user","message":{"role":"user","content":[{"tool_use_id":"toolu_never","type":"tool_result","content":"x"}]}}\n',
  ),
  "the stream cut in the middle of its last line": claude.subarray(0, claude.length - 40),
  "blank lines and a bare value": insert(insert(claude, 2, "\n   \n"), 5, "42\n"),
  "codex exec with a broken item": insert(codexExec, 3, '{"type":"item.started","item":{"id":7}}\n'),
};

for (const [what, bytes] of Object.entries(damaged)) {
  test(`diagnostics of ${what}`, () => {
    const expected = cli(["--format", "parts"], bytes);
    assert.equal(expected.status, 0, expected.stderr.join("\n"));
    const { diagnostics, counts } = stderrOf(expected);
    assert.ok(diagnostics.length > 0, "the damage is reported");
    const got = normalize(bytes);
    assert.deepEqual(
      got.diagnostics.map((d) => d.text),
      diagnostics,
    );
    assert.deepEqual(lineClasses(got.stats), counts);
    assert.deepEqual(asLines(got.parts), asJsonLines(expected.stdout));
    for (const d of got.diagnostics) {
      assert.equal(typeof d.line, "number");
      assert.match(d.text, new RegExp(`^line ${d.line}: `));
      assert.equal(d.text, `line ${d.line}: ${d.severity === "notice" ? "notice: " : ""}${d.message}`);
    }
    // Streamed in pieces, the same diagnostics come out.
    const normalizer = new Normalizer();
    const streamed = [...randomChunks(bytes, 7, 32).map((c) => normalizer.push(c)), normalizer.finish()];
    assert.deepEqual(
      streamed.flatMap((chunk) => chunk.diagnostics),
      got.diagnostics,
    );
  });
}

test("input of no known dialect: no dialect, each line undetected, where the command exits 3", () => {
  // JSON Lines of no dialect, and one indented document of none (read whole, as one line).
  const unknown = Buffer.from('{"a":1}\n{"b":2}\n' + JSON.stringify({ type: "mystery", id: 1 }, null, 2) + "\n");
  const expected = cli(["--format", "parts"], unknown);
  assert.equal(expected.status, 3);
  assert.match(expected.stderr.join("\n"), /no line is an event toolnorm reads/);
  const got = normalize(unknown);
  assert.equal(got.dialect, null);
  assert.deepEqual(got.parts, []);
  assert.deepEqual(
    got.diagnostics.map((d) => d.line),
    [1, 2, 3],
  );
  assert.ok(got.diagnostics.every((d) => d.kind === "undetected-dialect" && d.severity === "error"));
});

test("severities and kinds are the library's", () => {
  const got = normalize(damaged["an event type this version does not know"]);
  assert.deepEqual(
    got.diagnostics.map((d) => [d.line, d.severity]),
    [[2, "notice"]],
  );
  const notJson = normalize(damaged["a line that is not JSON"]);
  assert.deepEqual(
    notJson.diagnostics.map((d) => [d.line, d.kind, d.severity]),
    [[3, "invalid-json", "error"]],
  );
});
