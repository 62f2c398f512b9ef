// 10,000 calls: a stream built from the Claude Code recordings, repeated with fresh ids,
// viewed in Chromium. The page renders only the rows in view; scrolling to the end shows
// the last call, a filter finds every error. Prints the load time and memory figures
// (they are measured, not asserted).
//
// Usage: node big.mjs [CALLS] (default 10000; the binary: $TOOLNORM, see common.mjs).
import { readdirSync, readFileSync, statSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { check, done, fileUrl, launch, open, out, parts, root, toolnorm } from "./common.mjs";

const target = Number(process.argv[2] ?? 10000);
const dir = join(root, "fixtures/claude-code");
const recordings = readdirSync(dir).filter((name) => name.endsWith(".jsonl")).sort()
  .map((name) => readFileSync(join(dir, name), "utf8"));
const callsPerRound = readdirSync(dir).filter((name) => name.endsWith(".jsonl"))
  .reduce((sum, name) => sum + parts(join(dir, name)).length, 0);
const rounds = Math.ceil(target / callsPerRound);
let stream = "";
for (let round = 0; round < rounds; round++) {
  for (const text of recordings) stream += text.replaceAll("toolu_mock_", `toolu_r${round}_`);
}
const file = join(out, "big.jsonl");
writeFileSync(file, stream);
const expected = parts(file);
check(expected.length >= target, `the stream has ${expected.length} calls`);
const errors = expected.filter((part) => part.state === "error").length;

const html = join(out, "big.html");
let began = performance.now();
toolnorm(["view", file, "-o", html]);
const writeMs = performance.now() - began;

const browser = await launch();
began = performance.now();
const { page, problems, context } = await open(browser, fileUrl(html));
const loadMs = performance.now() - began;
const timings = await page.evaluate(() => {
  const nav = performance.getEntriesByType("navigation")[0];
  const paint = performance.getEntriesByType("paint").find((entry) => entry.name === "first-contentful-paint");
  return {
    renderMs: Number(document.body.dataset.renderMs),
    readyAt: Number(document.body.dataset.readyAt),
    domContentLoaded: nav.domContentLoadedEventEnd,
    firstPaint: paint ? paint.startTime : null,
    rows: document.querySelectorAll(".row").length,
    shown: document.getElementById("shown").textContent,
  };
});
const cdp = await context.newCDPSession(page);
await cdp.send("Performance.enable");
const metrics = Object.fromEntries((await cdp.send("Performance.getMetrics")).metrics.map((m) => [m.name, m.value]));
check(timings.rows < 200, `only the rows in view are in the DOM (${timings.rows})`);
check(timings.shown === `${expected.length} calls`, `the page counts ${timings.shown}`);

// The end of the list shows the last call.
await page.$eval("#list", (list) => { list.scrollTop = list.scrollHeight; });
await page.waitForFunction((id) => !!document.querySelector(`.row.call[data-id="${id}"]`), expected.at(-1).id);
// Keys reach the end too.
await page.focus("#list");
await page.keyboard.press("Home");
await page.keyboard.press("End");
check(await page.$eval(".row.selected", (row) => row.dataset.id) === expected.at(-1).id, "End selects the last call");
// Filtering 10,000 calls.
began = performance.now();
await page.selectOption("#filter-state", "error");
const filterMs = performance.now() - began;
const filtered = await page.$eval("#shown", (box) => box.textContent);
check(filtered === `${errors} of ${expected.length} calls`, `the error filter: ${filtered}`);
began = performance.now();
await page.fill("#filter-text", "greet");
const searchMs = performance.now() - began;
check(problems.length === 0, problems.join("; "));
await context.close();
await browser.close();

const mb = (bytes) => (bytes / 1048576).toFixed(1) + " MB";
console.log(`${expected.length} calls (${errors} errors), ${stream.split("\n").length - 1} lines; page ${mb(statSync(html).size)}, written in ${writeMs.toFixed(0)} ms`);
console.log(`navigation start to rendered ${timings.readyAt} ms (new tab, load and wait from node ${loadMs.toFixed(0)} ms; the page's build and first render ${timings.renderMs} ms, DOMContentLoaded ${timings.domContentLoaded.toFixed(0)} ms, first contentful paint ${timings.firstPaint?.toFixed(0)} ms)`);
console.log(`JS heap used ${mb(metrics.JSHeapUsedSize)} of ${mb(metrics.JSHeapTotalSize)}; ${metrics.Nodes} DOM nodes, ${timings.rows} rows in the DOM`);
console.log(`error filter ${filterMs.toFixed(0)} ms, text search ${searchMs.toFixed(0)} ms (round trips from node)`);
done("view 10,000-call check");
