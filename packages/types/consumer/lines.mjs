// Writes lines.ts: what `toolnorm normalize` writes for a sample of fixtures, in every
// JSON format, as literals typed with the package's line types, so that the TypeScript
// compiler checks the hand-written envelope types (ACP frames, AI SDK chunks, AG-UI
// events) against real output: a missing, extra or mistyped field fails to compile.
// Usage: node lines.mjs TOOLNORM_BINARY FIXTURES_DIR > lines.ts
import { execFileSync } from "node:child_process";
import { readdirSync } from "node:fs";
import { join } from "node:path";

const [binary, fixtures] = process.argv.slice(2);
const dirs = ["claude-code", "codex-app-server", "codex-exec", "opencode-serve", "claude-code-acp", "codex-acp", "opencode-acp", "claude-code-transcript", "opencode-run", "events"];
const formats = ["parts", "updates", "events", "acp", "ai-sdk", "ag-ui"];
const lines = Object.fromEntries(formats.map((format) => [format, []]));
let files = 0;
for (const dir of dirs) {
  for (const file of readdirSync(join(fixtures, dir)).filter((name) => name.endsWith(".jsonl")).sort()) {
    files += 1;
    for (const format of formats) {
      const out = execFileSync(binary, ["normalize", "--format", format, join(fixtures, dir, file)], {
        encoding: "utf8",
        stdio: ["ignore", "pipe", "ignore"],
        maxBuffer: 1 << 28,
      });
      lines[format].push(...out.split("\n").filter(Boolean));
    }
  }
}
let text = `// Written by lines.mjs from ${files} fixtures. Do not edit.\nimport type { LineOfFormat } from "@toolnorm/types";\n`;
for (const format of formats) {
  const name = format.replace("-", "_");
  text += `\nexport const ${name}: LineOfFormat[${JSON.stringify(format)}][] = [\n${lines[format].map((line) => `  ${line},`).join("\n")}\n];\n`;
}
process.stdout.write(text);
process.stderr.write(`${files} fixtures: ${formats.map((f) => `${lines[f].length} ${f}`).join(", ")}\n`);
