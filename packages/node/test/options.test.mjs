// The options are the command's reading flags: each gives the parts the flag gives, and
// what the flag refuses, the option refuses.
import assert from "node:assert/strict";
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { after, test } from "node:test";

import { Normalizer, normalize } from "../index.js";
import { asJsonLines, asLines, cli, fixtureName, fixtures, fixturesDir, stderrOf } from "./common.mjs";

const scratch = mkdtempSync(join(tmpdir(), "toolnorm-node-"));
after(() => rmSync(scratch, { recursive: true, force: true }));

/** A file in the scratch folder holding `text`, for the command's flags that take files. */
function file(name, text) {
  const path = join(scratch, name);
  writeFileSync(path, text);
  return path;
}

/** The binding with `options` and the command with `flags` give the same parts and diagnostics. */
function same(input, options, flags) {
  const expected = cli(["--format", "parts", ...flags], input);
  assert.equal(expected.status, 0, expected.stderr.join("\n"));
  const got = normalize(typeof input === "string" ? readFileSync(input) : input, options);
  assert.deepEqual(asLines(got.parts), asJsonLines(expected.stdout));
  assert.deepEqual(
    got.diagnostics.map((d) => d.text),
    stderrOf(expected).diagnostics,
  );
  return got;
}

/** The updates of `bytes` pushed in one chunk. */
function streamed(bytes, options) {
  const normalizer = new Normalizer(options);
  return [...normalizer.push(bytes).updates, ...normalizer.finish().updates];
}

const at = (name) => join(fixturesDir, name);
const titles = (got) => got.parts.map((part) => part.title);

test("provider: named, the dialect is not detected; a wrong one reports every line", () => {
  const path = at("codex-exec/shell-ok.jsonl");
  assert.equal(same(path, { provider: "codex-exec" }, ["--provider", "codex-exec"]).dialect, "codex-exec");
  assert.equal(same(path, { provider: "auto" }, ["--provider", "auto"]).dialect, "codex-exec");
  const wrong = same(path, { provider: "claude-code" }, ["--provider", "claude-code"]);
  assert.ok(wrong.diagnostics.length > 0);
  assert.throws(() => normalize("", { provider: "claude" }), /provider `claude`: expected `auto` or one of .*`claude-code`/);
});

test("rules: the user's go first, as with --rules", () => {
  const rules = '[[rule]]\ntool = "echo"\nserver = "toolbox"\ntitle = "Echoing {text|quote}"\nkind = "question"\n';
  const path = at("codex-exec/mcp-ok.jsonl");
  const got = same(path, { rules }, ["--rules", file("rules.toml", rules)]);
  assert.notDeepEqual(titles(got), titles(normalize(readFileSync(path))), "the rules changed a title");
  assert.equal(got.parts[0].kind, "question");
  const bad = "[[rule]]\ntool = 3\n";
  const refused = cli(["--rules", file("bad.toml", bad)], at("codex-exec/mcp-ok.jsonl"));
  assert.equal(refused.status, 2);
  // The same message, the rules named `rules` instead of by their file.
  const message = refused.stderr.join("\n").replace(`toolnorm: ${join(scratch, "bad.toml")}: `, "rules: ");
  const nonEmpty = (text) => text.split("\n").filter((line) => line !== "").join("\n");
  assert.throws(() => normalize("", { rules: bad }), (error) => nonEmpty(error.message) === message);
});

test("outputCap: partial and final output capped as with --output-cap", () => {
  let capped = 0;
  for (const path of fixtures().filter((p) => /(shell-stream|stream|long)/.test(fixtureName(p)))) {
    const expected = cli(["--format", "updates", "--output-cap", "8"], path);
    assert.equal(expected.status, 0, expected.stderr.join("\n"));
    const got = streamed(readFileSync(path), { outputCap: 8 });
    assert.deepEqual(asLines(got), asJsonLines(expected.stdout), fixtureName(path));
    if (JSON.stringify(got) !== JSON.stringify(streamed(readFileSync(path)))) capped += 1;
  }
  assert.ok(capped > 0, "the cap changed the snapshots of some fixture");
  assert.throws(() => normalize("", { outputCap: -1 }), /outputCap -1/);
});

test("redact, redactPattern, redactPatterns: secrets replaced as with --redact", () => {
  const secret = "sk-ant-api03-" + "a1B2c3D4e5".repeat(8);
  const stream = Buffer.from(
    readFileSync(at("claude-code/shell-ok.jsonl"), "utf8")
      .replace("echo hello from the shell", `curl -H 'Authorization: Bearer ${secret}' TICKET-1234`)
      .replace('"hello from the shell"', `"${secret}"`),
  );
  const plain = same(stream, {}, []);
  assert.ok(JSON.stringify(plain.parts).includes(secret));
  const redacted = same(stream, { redact: true }, ["--redact"]);
  assert.ok(!JSON.stringify(redacted.parts).includes(secret));
  assert.match(JSON.stringify(redacted.parts), /\[REDACTED:/);
  const ticket = same(stream, { redactPattern: ["ticket=TICKET-[0-9]+"] }, ["--redact-pattern", "ticket=TICKET-[0-9]+"]);
  assert.match(JSON.stringify(ticket.parts), /\[REDACTED:ticket\]/);
  const patterns = '[[pattern]]\nkind = "ticket"\nregex = "TICKET-[0-9]+"\n';
  same(stream, { redactPatterns: patterns }, ["--redact-patterns", file("patterns.toml", patterns)]);
  assert.throws(() => normalize("", { redactPattern: ["no-equals"] }), /redactPattern no-equals: expected KIND=REGEX/);
  assert.throws(() => normalize("", { redactPattern: ["bad=("] }), /pattern `bad`/);
});

test("mcpServers and cwd, as --mcp-server and --cwd", () => {
  for (const path of fixtures().filter((p) => /opencode-run\//.test(fixtureName(p)))) {
    same(path, { mcpServers: ["toolbox"] }, ["--mcp-server", "toolbox"]);
  }
  const path = at("codex-exec/edit-file.jsonl");
  const relative = same(path, { cwd: "/workspace" }, ["--cwd", "/workspace"]);
  assert.notDeepEqual(titles(relative), titles(normalize(readFileSync(path))), "the cwd changed a title");
});

test("an unknown option is refused, not ignored", () => {
  assert.throws(() => normalize("", { output_cap: 5 }), /unknown option `output_cap`/);
  assert.throws(() => new Normalizer({ redacted: true }), /unknown option `redacted`/);
  assert.throws(() => normalize(42), /expected a string, a Buffer or a Uint8Array/);
});

test("the streaming Normalizer takes the same options", () => {
  const rules = '[[rule]]\ntool = "echo"\nserver = "toolbox"\ntitle = "Echoing {text|quote}"\nkind = "question"\n';
  const normalizer = new Normalizer({ rules, provider: "codex-exec" });
  const chunk = normalizer.push(readFileSync(at("codex-exec/mcp-ok.jsonl")));
  const rest = normalizer.finish();
  const last = [...chunk.updates, ...rest.updates].at(-1);
  assert.equal(last.kind, "question");
  assert.equal(normalizer.dialect, "codex-exec");
});

test("format gives the lines of that format, as the command writes them", () => {
  for (const [fixture, format, flags] of [
    ["claude-code/subagent.jsonl", "otel", []],
    ["codex-app-server/subagent.jsonl", "otel", []],
    ["claude-code/subagent.jsonl", "otel", ["--otel-content"]],
    ["claude-code/subagent.jsonl", "ag-ui", []],
    ["opencode-run/mcp-ok.jsonl", "acp", []],
  ]) {
    const path = join(fixturesDir, fixture);
    const expected = cli(["--format", format, ...flags], path);
    assert.equal(expected.status, 0, expected.stderr.join("\n"));
    const options = { format, ...(flags.length > 0 ? { otelContent: true } : {}) };
    const got = normalize(readFileSync(path), options);
    assert.equal(got.parts, undefined);
    assert.deepEqual(asLines(got.lines), asJsonLines(expected.stdout), `${fixture} ${format} ${flags}`);
  }
  const spans = normalize(readFileSync(join(fixturesDir, "claude-code/subagent.jsonl")), { format: "otel" })
    .lines.flatMap((line) => line.resourceSpans[0].scopeSpans[0].spans);
  assert.deepEqual(
    spans.map((span) => span.name),
    ["execute_tool Bash", "execute_tool Task", "invoke_agent claude-code"],
  );
});

test("a format for people or unknown, otelContent elsewhere, and either for a Normalizer are refused", () => {
  assert.throws(() => normalize("", { format: "pretty" }), /format `pretty`: expected one of parts, /);
  assert.throws(() => normalize("", { format: "nope" }), /format `nope`: expected one of/);
  assert.throws(() => normalize("", { format: "acp", otelContent: true }), /otelContent applies to format `otel`, not `acp`/);
  assert.throws(() => new Normalizer({ format: "otel" }), /a Normalizer gives updates/);
});
