// Throughput through the binding beside the command's, on the same stream files:
//   TOOLNORM=…/release/toolnorm node bench/throughput.mjs STREAM...   (RUNS=7 by default)
// with TOOLNORM a release build of the command and the addon built with `npm run build`.
// Per stream, alternating runs, best of RUNS, each run:
// - `toolnorm normalize --format parts STREAM > /dev/null`, and normalize() on the file
//   (read with readFileSync, timed) into parts objects;
// - `toolnorm normalize --format updates STREAM > /dev/null`, and a Normalizer fed the
//   file in 64 KiB chunks (read with readSync, timed) into update objects.
// MB are 10^6 bytes of input; the `all` row is the streams' bytes over the sum of their
// best times, as the bench table of the book's performance page counts it.
import { spawnSync } from "node:child_process";
import { closeSync, openSync, readFileSync, readSync, statSync } from "node:fs";
import { cpus, loadavg } from "node:os";
import { basename } from "node:path";

import { Normalizer, normalize } from "../index.js";

const streams = process.argv.slice(2);
if (streams.length === 0 || !process.env.TOOLNORM) {
  console.error("usage: TOOLNORM=path/to/release/toolnorm [RUNS=7] node bench/throughput.mjs STREAM...");
  process.exit(2);
}
const runs = Number(process.env.RUNS ?? 7);

function seconds(run) {
  const start = process.hrtime.bigint();
  const result = run();
  return [Number(process.hrtime.bigint() - start) / 1e9, result];
}

function command(stream, format) {
  const [time, result] = seconds(() =>
    spawnSync(process.env.TOOLNORM, ["normalize", "--format", format, stream], { stdio: ["ignore", "ignore", "pipe"] }),
  );
  if (result.status !== 0) throw new Error(`toolnorm exited ${result.status}: ${result.stderr}`);
  return time;
}

const whole = (stream) => seconds(() => normalize(readFileSync(stream)).parts.length)[0];

function streamed(stream) {
  return seconds(() => {
    const normalizer = new Normalizer();
    const buffer = Buffer.allocUnsafe(1 << 16);
    const fd = openSync(stream, "r");
    let updates = 0;
    for (let read; (read = readSync(fd, buffer, 0, buffer.length, null)) > 0; ) {
      updates += normalizer.push(buffer.subarray(0, read)).updates.length;
    }
    closeSync(fd);
    return updates + normalizer.finish().updates.length;
  })[0];
}

const measures = {
  "toolnorm --format parts": (stream) => command(stream, "parts"),
  "normalize()": whole,
  "toolnorm --format updates": (stream) => command(stream, "updates"),
  "Normalizer.push (64 KiB)": streamed,
};

const names = Object.keys(measures);
const mb = (time, bytes) => (bytes / 1e6 / time).toFixed(0).padStart(6);
console.log(`machine: ${cpus()[0]?.model}, ${cpus().length} cores; best of ${runs} alternating runs; MB/s of input`);
console.log(`load before: ${loadavg().map((l) => l.toFixed(2)).join(" ")} (1, 5, 15 min)`);
console.log(["stream".padEnd(26), "MB", ...names, "normalize()/parts", "Normalizer/updates"].join(" | "));
const total = Object.fromEntries(names.map((name) => [name, 0]));
let bytesInAll = 0;
for (const stream of streams) {
  const bytes = statSync(stream).size;
  bytesInAll += bytes;
  const best = Object.fromEntries(names.map((name) => [name, Infinity]));
  for (let run = 0; run < runs; run++) {
    for (const name of names) best[name] = Math.min(best[name], measures[name](stream));
  }
  for (const name of names) total[name] += best[name];
  row(basename(stream), bytes, best);
}
if (streams.length > 1) row("all", bytesInAll, total);
console.log(`load after: ${loadavg().map((l) => l.toFixed(2)).join(" ")} (1, 5, 15 min)`);

function row(name, bytes, times) {
  const ratio = (a, b) => (times[b] / times[a]).toFixed(2) + "×";
  console.log(
    [
      name.padEnd(26),
      (bytes / 1e6).toFixed(1),
      ...names.map((n) => mb(times[n], bytes)),
      ratio("normalize()", "toolnorm --format parts"),
      ratio("Normalizer.push (64 KiB)", "toolnorm --format updates"),
    ].join(" | "),
  );
}
