// The docs' copy-paste examples compile: every ```ts/```tsx block of the README and of the
// book's pages (docs/src) whose first line names a file (`// app/page.tsx`) is written under .readme/ and compiled
// with `tsc --strict` (and `skipLibCheck`, as an app compiles) against the pinned ai, @ai-sdk/react,
// @ag-ui/client and the repository's @toolnorm/types.
import { execFileSync } from "node:child_process";
import { mkdirSync, readdirSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { dirname, join } from "node:path";
import { fileURLToPath } from "node:url";

const here = dirname(fileURLToPath(import.meta.url));
const book = join(here, "../../docs/src");
const pages = [
  join(here, "../../README.md"),
  ...readdirSync(book, { recursive: true })
    .filter((page) => page.endsWith(".md"))
    .sort()
    .map((page) => join(book, page)),
];
const readme = pages.map((page) => readFileSync(page, "utf8")).join("\n");
const out = join(here, ".readme");
rmSync(out, { recursive: true, force: true });
const files = [];
for (const [, lang, body] of readme.matchAll(/```(tsx?)\n([\s\S]*?)```/g)) {
  const name = body.match(/^\/\/ ([\w./-]+\.tsx?)\n/)?.[1];
  if (!name || lang !== name.split(".").pop()) continue;
  const path = join(out, name);
  mkdirSync(dirname(path), { recursive: true });
  writeFileSync(path, body);
  files.push(name);
}
if (files.length < 4) throw new Error(`only ${files.length} named examples in the README and the book: ${files}`);
writeFileSync(
  join(out, "tsconfig.json"),
  JSON.stringify({
    compilerOptions: {
      strict: true,
      skipLibCheck: true,
      noEmit: true,
      target: "ES2022",
      module: "ESNext",
      moduleResolution: "Bundler",
      jsx: "react-jsx",
      lib: ["ES2022", "DOM"],
      types: ["node", "react"],
      paths: { "@toolnorm/types": [join(here, "../../packages/types/src/index.ts")] },
    },
    files,
  }),
);
execFileSync(join(here, "node_modules/.bin/tsc"), ["-p", out], { stdio: "inherit" });
console.log(`README and book examples compile: ${files.join(", ")}`);
