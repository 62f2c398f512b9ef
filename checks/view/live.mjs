// `toolnorm view --serve` in Chromium: the page follows a file written line by line (a
// recording with a subagent), showing each call as its lines come in, running calls
// first, and in the end every call with the state, nesting and duration of `normalize`.
//
// Usage: node live.mjs (the binary: $TOOLNORM, see common.mjs).
import { spawn } from "node:child_process";
import { appendFileSync, readFileSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { binary, check, depths, done, human, launch, open, out, parts, root, rows } from "./common.mjs";

const fixture = join(root, "fixtures/codex-app-server/subagent.jsonl");
const expected = parts(fixture);
const lines = readFileSync(fixture, "utf8").split("\n").filter(Boolean);
const file = join(out, "live.jsonl");
writeFileSync(file, "");

const server = spawn(binary, ["view", "--serve", file], { stdio: ["ignore", "ignore", "pipe"] });
const url = await new Promise((resolve, reject) => {
  let text = "";
  server.stderr.on("data", (chunk) => {
    text += chunk;
    const found = text.match(/serving (http:\/\/127\.0\.0\.1:\d+\/)/);
    if (found) resolve(found[1]);
  });
  server.on("exit", (code) => reject(new Error(`toolnorm view --serve exited (${code}): ${text}`)));
});

const browser = await launch();
try {
  const { page, problems, context } = await open(browser, url);
  await page.waitForFunction(() => document.body.dataset.live === "open");
  let sawOpen = false;
  for (const line of lines) {
    appendFileSync(file, line + "\n");
    // A moment for the page to take the line (the dialect's detection may hold the
    // first lines back until it knows the dialect).
    await page.waitForTimeout(60);
    const shown = await rows(page);
    sawOpen ||= shown.some((row) => row.state === "running" || row.state === "started");
  }
  await page.waitForFunction((n) => document.querySelectorAll(".row.call").length === n && ![...document.querySelectorAll(".row.call")].some((row) => row.dataset.state === "running" || row.dataset.state === "started"), expected.length);
  const shown = await rows(page);
  const byId = new Map(shown.map((row) => [row.id, row]));
  const depth = depths(expected);
  for (const part of expected) {
    const row = byId.get(part.id);
    check(row, `live: call ${part.id} is shown`);
    if (!row) continue;
    check(row.state === part.state, `live: ${part.id} is ${row.state}, not ${part.state}`);
    check(row.depth === depth.get(part.id), `live: ${part.id} at depth ${row.depth}`);
    const elapsed = part.timing?.elapsedMs ?? null;
    check(row.duration === (elapsed === null ? "" : human(elapsed)), `live: ${part.id} shows "${row.duration}"`);
  }
  check(sawOpen, "live: calls were shown while they ran");
  check(problems.length === 0, problems.join("; "));
  await page.screenshot({ path: join(out, "live.png") });
  await context.close();
} finally {
  await browser.close();
  server.kill();
}
done("view live check");
