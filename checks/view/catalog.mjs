// `toolnorm serve` in Chromium: the catalog page over an index of several agents'
// sessions, one of them with hostile content planted in its commands and outputs. Every
// session is listed with the calls `normalize` gives; the filters and the search narrow
// the list; nothing planted runs or becomes an element; a session's link opens its
// timeline with every call; a session written meanwhile appears without a reload.
//
// Usage: node catalog.mjs (the binary: $TOOLNORM, see common.mjs).
import { spawn } from "node:child_process";
import { copyFileSync, mkdirSync, readFileSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { PAYLOAD, binary, check, done, launch, open, out, parts, plant, root, rows, toolnorm } from "./common.mjs";

const dir = join(out, "catalog");
const sessions = join(dir, "sessions");
mkdirSync(sessions, { recursive: true });
const fixtures = {
  "claude.jsonl": "claude-code-transcript/subagent.jsonl",
  "rollout.jsonl": "codex-rollout/parallel.jsonl",
  "pi.jsonl": "pi-session/shell-exit-3.jsonl",
  "gemini.jsonl": "gemini-cli-session/read-file.jsonl",
};
for (const [name, fixture] of Object.entries(fixtures)) copyFileSync(join(root, "fixtures", fixture), join(sessions, name));
// The hostile session: a Claude Code transcript with the payload in every command and output.
const hostile = join(sessions, "hostile.jsonl");
const hostileLines = readFileSync(join(root, "fixtures/claude-code-transcript/shell-exit-3.jsonl"), "utf8").split("\n").filter(Boolean);
writeFileSync(hostile, hostileLines.map((line) => JSON.stringify(plant(JSON.parse(line), true))).join("\n") + "\n");
const files = [...Object.keys(fixtures), "hostile.jsonl"].map((name) => join(sessions, name));
const expected = new Map(files.map((file) => [file, parts(file)]));
check(expected.get(hostile).every((part) => JSON.stringify(part).includes("__pwned")), "the payload reached every hostile call");

const server = spawn(binary, ["serve", "--port", "0", "--db", join(dir, "index.sqlite"), sessions], { stdio: ["ignore", "ignore", "pipe"] });
const url = await new Promise((resolve, reject) => {
  let text = "";
  server.stderr.on("data", (chunk) => {
    text += chunk;
    const found = text.match(/serving (http:\/\/127\.0\.0\.1:\d+\/)/);
    if (found) resolve(found[1]);
  });
  server.on("exit", (code) => reject(new Error(`toolnorm serve exited (${code}): ${text}`)));
});
const origin = new URL(url).origin;
// The first index run is in the background: wait for it.
for (let tries = 0; ; tries++) {
  const listed = await (await fetch(origin + "/api/sessions")).json();
  if (listed.length === files.length) break;
  if (tries > 300) throw new Error(`the index holds ${listed.length} sessions`);
  await new Promise((resolve) => setTimeout(resolve, 100));
}

/** The session rows the page shows: path, agent and calls. */
const listed = (page) =>
  page.$$eval("#sessions-body tr", (list) =>
    list.map((tr) => ({ id: tr.dataset.id, agent: tr.children[1].textContent, calls: Number(tr.children[3].textContent), path: tr.querySelector("a").textContent })),
  );

/** What the DOM holds that could have come from the data (the page has one script). */
async function audit(page, label, scripts) {
  const found = await page.evaluate(() => ({
    pwned: window.__pwned,
    scripts: document.scripts.length,
    tags: document.querySelectorAll("img, svg, iframe, object, embed, link, base, form").length,
    handlers: [...document.querySelectorAll("*")].flatMap((node) => [...node.attributes].map((a) => a.name)).filter((name) => name.startsWith("on") || name === "src").length,
    links: [...document.querySelectorAll("a")].map((a) => a.getAttribute("href")).filter((href) => href !== null && !/^\/sessions\/\d+$/.test(href)),
  }));
  check(found.pwned === undefined, `${label}: nothing ran (window.__pwned = ${found.pwned})`);
  check(found.scripts === scripts, `${label}: ${found.scripts} script elements`);
  check(found.tags === 0, `${label}: ${found.tags} planted elements`);
  check(found.handlers === 0, `${label}: ${found.handlers} handler or src attributes`);
  check(found.links.length === 0, `${label}: links not to a session: ${found.links.join(", ")}`);
}

const allowed = (request) => request.startsWith(origin + "/api/") || request.startsWith(origin + "/sessions/");
const browser = await launch();
try {
  const { page, problems, context } = await open(browser, url, undefined, allowed);
  await page.waitForFunction((n) => document.body.dataset.sessions === String(n), files.length);
  await audit(page, "catalog", 1);
  const shown = await listed(page);
  check(shown.length === files.length, `${shown.length} sessions listed for ${files.length}`);
  for (const file of files) {
    const row = shown.find((row) => row.path === file);
    check(row, `${file} is listed`);
    if (row) check(row.calls === expected.get(file).length, `${file}: ${row.calls} calls shown, normalize gives ${expected.get(file).length}`);
  }
  // The stats pane: the totals of `stats --json` over the same files.
  const stats = JSON.parse(toolnorm(["stats", "--json", sessions]));
  const totals = await page.$eval("#totals", (node) => node.textContent);
  check(totals.startsWith(`${stats.sessions} session(s), ${stats.calls} call(s), ${stats.errors} failed`), `totals: ${totals}`);
  const toolRows = await page.$eval("#stats table tbody", (node) => node.children.length);
  check(toolRows === Math.min(30, stats.tools.length), `the stats pane lists ${toolRows} tools`);
  const firstTool = await page.$eval("#stats tbody tr td", (node) => node.textContent);
  check(firstTool === stats.tools[0].name, `the most used tool first: ${firstTool}`);

  // Filters: an agent; a state; the search, with the payload typed in.
  await page.selectOption("#filter-agent", "pi");
  await page.waitForFunction(() => document.body.dataset.sessions === "1");
  check((await listed(page))[0]?.agent === "pi", "the agent filter shows pi's session");
  await page.selectOption("#filter-agent", "");
  await page.selectOption("#filter-state", "failed");
  const failing = files.filter((file) => expected.get(file).some((part) => part.state === "error")).length;
  await page.waitForFunction((n) => document.body.dataset.sessions === String(n), failing);
  check((await listed(page)).length === failing, `the state filter shows the ${failing} sessions with a failed call`);
  await page.selectOption("#filter-state", "");
  await page.fill("#filter-q", "<img src=x onerror=");
  await page.waitForFunction(() => document.body.dataset.sessions === "1");
  const searched = await listed(page);
  check(searched[0]?.path === hostile, "searching the payload finds the hostile session");
  await audit(page, "searched", 1);

  // The hostile session's timeline: every call, the payload as text.
  await page.click(`#sessions-body a`);
  await page.waitForFunction(() => document.body && document.body.dataset.ready === "1");
  const calls = await rows(page);
  check(calls.length === expected.get(hostile).length, `the timeline shows ${calls.length} of ${expected.get(hostile).length} calls`);
  await page.click(".row.call >> nth=0");
  await page.$$eval("#detail details", (list) => list.forEach((box) => { box.open = true; }));
  for (const button of await page.$$("#detail button")) await button.click();
  const detail = await page.$eval("#detail", (box) => box.textContent);
  check(detail.includes(PAYLOAD), "the payload shows as text in the timeline's details");
  await audit(page, "timeline", 2);
  await page.goBack();
  await page.waitForFunction(() => document.body.dataset.ready === "1" && document.body.dataset.live === "open");
  await page.fill("#filter-q", "");
  await page.waitForFunction((n) => document.body.dataset.sessions === String(n), files.length);

  // Live: a session written meanwhile appears, its calls counted.
  const added = join(sessions, "added.jsonl");
  copyFileSync(join(root, "fixtures/codex-rollout/shell-ok.jsonl"), added);
  await page.waitForFunction((n) => document.body.dataset.sessions === String(n), files.length + 1, { timeout: 20000 });
  const after = await listed(page);
  const row = after.find((row) => row.path === added);
  check(row && row.calls === parts(added).length, "the session written meanwhile is listed with its calls");
  await page.screenshot({ path: join(out, "catalog.png") });
  check(problems.length === 0, problems.join("; "));
  await context.close();
} finally {
  await browser.close();
  server.kill();
}
done("serve catalog check");
