// `npm run build` (release) and `npm run build:debug`: builds the addon from source with
// cargo (`cargo build -p toolnorm-node`, for the host, in the workspace's target folder,
// so it reuses what the workspace's builds of that profile have compiled) and copies it
// here as `toolnorm.<platform>.node`, the file index.js loads.
// Usage: node scripts/build.mjs [--release] [CARGO_ARGS…]   (npm run build -- CARGO_ARGS…)
// CARGO_ARGS go to cargo: `-p toolnorm-cli` builds the command with the addon, in one
// run whose dependency features are those of both, as CI builds them (a run of the addon
// alone unifies the features of the proc-macro dependencies otherwise, and builds serde
// and all above it again).
import { spawnSync } from "node:child_process";
import { copyFileSync } from "node:fs";
import { dirname, join, resolve } from "node:path";
import { fileURLToPath } from "node:url";

import { platformName } from "../platform.js";

const here = resolve(dirname(fileURLToPath(import.meta.url)), "..");
// Every argument but `--` goes to cargo (`--release` among them).
const args = ["build", "--locked", "-p", "toolnorm-node", "--message-format", "json-render-diagnostics"];
args.push(...process.argv.slice(2).filter((arg) => arg !== "--"));

const cargo = spawnSync(process.env.CARGO ?? "cargo", args, {
  cwd: join(here, "../.."),
  stdio: ["ignore", "pipe", "inherit"],
  encoding: "utf8",
  maxBuffer: 1 << 28,
});
if (cargo.error) throw cargo.error;
if (cargo.status !== 0) process.exit(cargo.status ?? 1);

// The shared library cargo made for the crate's cdylib target, from its JSON messages.
let library;
for (const line of cargo.stdout.split("\n")) {
  if (!line.startsWith("{")) continue;
  const message = JSON.parse(line);
  if (
    message.reason === "compiler-artifact" &&
    message.target?.name === "toolnorm_node" &&
    message.target.kind.includes("cdylib")
  ) {
    library = message.filenames.find((file) => /\.(so|dylib|dll)$/.test(file));
  }
}
if (library === undefined) {
  console.error("scripts/build.mjs: cargo named no shared library of toolnorm-node");
  process.exit(1);
}
const addon = join(here, `toolnorm.${platformName()}.node`);
copyFileSync(library, addon);
console.error(`${library} -> ${addon}`);
