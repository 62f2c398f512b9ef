// Writes lines.ts: what `toolnorm normalize` writes for a sample of fixtures, in every
// JSON format, as literals typed with the package's line types, so that the TypeScript
// compiler checks the hand-written envelope types (ACP frames, AI SDK chunks, AG-UI
// events) against real output: a missing, extra or mistyped field fails to compile.
// Usage: node lines.mjs TOOLNORM_BINARY FIXTURES_DIR > lines.ts
import { execFile } from "node:child_process";
import { readdirSync } from "node:fs";
import { availableParallelism } from "node:os";
import { join } from "node:path";
import { promisify } from "node:util";

const [binary, fixtures] = process.argv.slice(2);
const dirs = ["claude-code", "codex-app-server", "codex-exec", "opencode-serve", "claude-code-acp", "codex-acp", "opencode-acp", "claude-code-transcript", "opencode-run", "events"];
const formats = ["parts", "updates", "events", "acp", "ai-sdk", "ag-ui"];
const runs = [];
for (const dir of dirs) {
  for (const file of readdirSync(join(fixtures, dir)).filter((name) => name.endsWith(".jsonl")).sort()) {
    for (const format of formats) runs.push({ format, path: join(fixtures, dir, file) });
  }
}
const files = runs.length / formats.length;
// The runs a few at a time (they are processes, so they use every core), each output
// kept in its run's place so that lines.ts is the same whatever order they end in.
const outputs = new Array(runs.length);
let next = 0;
const worker = async () => {
  while (next < runs.length) {
    const index = next++;
    const { format, path } = runs[index];
    const { stdout } = await promisify(execFile)(binary, ["normalize", "--format", format, path], {
      encoding: "utf8",
      maxBuffer: 1 << 28,
    });
    outputs[index] = stdout;
  }
};
await Promise.all(Array.from({ length: availableParallelism() + 1 }, worker));
const lines = Object.fromEntries(formats.map((format) => [format, []]));
for (const [index, { format }] of runs.entries()) lines[format].push(...outputs[index].split("\n").filter(Boolean));
let text = `// Written by lines.mjs from ${files} fixtures. Do not edit.\nimport type { LineOfFormat } from "@toolnorm/types";\n`;
for (const format of formats) {
  const name = format.replace("-", "_");
  text += `\nexport const ${name}: LineOfFormat[${JSON.stringify(format)}][] = [\n${lines[format].map((line) => `  ${line},`).join("\n")}\n];\n`;
}
process.stdout.write(text);
process.stderr.write(`${files} fixtures: ${formats.map((f) => `${lines[f].length} ${f}`).join(", ")}\n`);
