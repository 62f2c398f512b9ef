// What the tests share: the repository's fixtures, the toolnorm command they are compared
// with (TOOLNORM, else the workspace's debug build), a seeded random source.
import { execFile, execFileSync, spawnSync } from "node:child_process";
import { availableParallelism } from "node:os";
import { existsSync, readdirSync } from "node:fs";
import { dirname, join, relative, resolve } from "node:path";
import { fileURLToPath } from "node:url";

export const root = resolve(dirname(fileURLToPath(import.meta.url)), "../../..");
export const fixturesDir = join(root, "fixtures");

/** The toolnorm binary the binding is compared with. */
export const toolnorm = (() => {
  const path =
    process.env.TOOLNORM ?? join(process.env.CARGO_TARGET_DIR ?? join(root, "target"), "debug", "toolnorm");
  if (!existsSync(path)) {
    throw new Error(`no toolnorm binary at ${path}: build it (cargo build -p toolnorm-cli) or set TOOLNORM`);
  }
  return path;
})();

/**
 * Every recorded stream: the `.jsonl` and `.ndjson` files under fixtures/, sorted (not
 * `unclaimed/`: files of agents toolnorm does not read).
 */
export function fixtures() {
  const found = [];
  const walk = (dir) => {
    for (const entry of readdirSync(dir, { withFileTypes: true })) {
      const path = join(dir, entry.name);
      if (entry.isDirectory() && path === join(fixturesDir, "unclaimed")) continue;
      if (entry.isDirectory()) walk(path);
      else if (/\.(jsonl|ndjson)$/.test(entry.name)) found.push(path);
    }
  };
  walk(fixturesDir);
  return found.sort();
}

export const fixtureName = (path) => relative(fixturesDir, path);

/**
 * `toolnorm normalize ARGS…` on `input` (a file path, or the bytes given on stdin as `-`),
 * each file read alone (`--no-siblings`, as the binding reads the bytes it is given).
 */
export function cli(args, input) {
  const fromStdin = typeof input !== "string";
  const result = spawnSync(toolnorm, ["normalize", "--no-siblings", ...args, fromStdin ? "-" : input], {
    input: fromStdin ? input : undefined,
    maxBuffer: 1 << 30,
  });
  if (result.error) throw result.error;
  return { status: result.status, stdout: lines(result.stdout), stderr: lines(result.stderr) };
}

/**
 * `toolnorm normalize ARGS… FILE` for each `[args, file]` of `runs`, several at once (the
 * runs are mostly process start-up): a promise of the results in order, as `cli` gives.
 */
export async function cliMany(runs) {
  const results = new Array(runs.length);
  let next = 0;
  const worker = async () => {
    while (next < runs.length) {
      const index = next++;
      const [args, file] = runs[index];
      results[index] = await new Promise((resolve, reject) => {
        const child = execFile(
          toolnorm,
          ["normalize", "--no-siblings", ...args, file],
          { maxBuffer: 1 << 30, encoding: "buffer" },
          (error, stdout, stderr) => {
            if (error && typeof error.code !== "number") return reject(error);
            resolve({ status: child.exitCode, stdout: lines(stdout), stderr: lines(stderr) });
          },
        );
      });
    }
  };
  await Promise.all(Array.from({ length: Math.max(2, availableParallelism()) * 2 }, worker));
  return results;
}

const lines = (text) => text.toString("utf8").split("\n").filter((line) => line !== "");

/** `toolnorm dialects --names`. */
export const cliDialects = () =>
  execFileSync(toolnorm, ["dialects", "--names"], { encoding: "utf8" }).split("\n").filter(Boolean);

/**
 * What the command's stderr says of a run: the diagnostics (one line each) and the
 * closing counts (`toolnorm: N lines: A applied, …`), when there were diagnostics.
 */
export function stderrOf(run) {
  const summary = /^toolnorm: (\d+) lines?: (\d+) applied, (\d+) known non-tool, (\d+) notices?, (\d+) errors?$/;
  const last = run.stderr.at(-1);
  const match = last?.match(summary);
  return {
    diagnostics: match ? run.stderr.slice(0, -1) : run.stderr,
    counts: match && {
      lines: Number(match[1]),
      appliedLines: Number(match[2]),
      knownLines: Number(match[3]),
      noticeLines: Number(match[4]),
      errorLines: Number(match[5]),
    },
  };
}

/** The four line classes of a binding's stats, as the command's closing line counts them. */
export const lineClasses = ({ lines, appliedLines, knownLines, noticeLines, errorLines }) => ({
  lines,
  appliedLines,
  knownLines,
  noticeLines,
  errorLines,
});

/** A seeded random source (mulberry32): the same cuts on every run for a seed. */
export function random(seed) {
  let state = seed >>> 0;
  return () => {
    state = (state + 0x6d2b79f5) >>> 0;
    let t = state;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}

/** A seed of a name (FNV-1a), so each fixture has its own cuts. */
export function seedOf(name) {
  let hash = 0x811c9dc5;
  for (const char of name) hash = Math.imul(hash ^ char.charCodeAt(0), 0x01000193) >>> 0;
  return hash;
}

/** `data` cut at random places into chunks of 1 to `max` units (bytes of a Buffer, UTF-16 units of a string). */
export function randomChunks(data, seed, max = 4096) {
  const next = random(seed);
  const chunks = [];
  for (let at = 0; at < data.length; ) {
    const size = 1 + Math.floor(next() * Math.min(max, data.length));
    chunks.push(data.slice(at, at + size));
    at += size;
  }
  return chunks;
}

/** The lines a format writes for these values (the binding's objects, serialized again). */
export const asLines = (values) => values.map((value) => JSON.stringify(value));

/** The command's JSON lines as JavaScript writes the same values: a number the provider
 * wrote as `1.0` is `1` in JavaScript, which has no other way to hold it. */
export const asJsonLines = (lines) => lines.map((line) => JSON.stringify(JSON.parse(line)));
