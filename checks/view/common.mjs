// Shared by the checks of `toolnorm view`: the binary, Chromium, and what a page shows.
import { execFileSync } from "node:child_process";
import { mkdtempSync, mkdirSync } from "node:fs";
import { tmpdir } from "node:os";
import { dirname, join } from "node:path";
import { fileURLToPath, pathToFileURL } from "node:url";
import { chromium } from "playwright-core";

export const here = dirname(fileURLToPath(import.meta.url));
export const root = join(here, "../..");
/** The `toolnorm` binary: $TOOLNORM, else $CARGO_TARGET_DIR/debug/toolnorm, else target/. */
export const binary =
  process.env.TOOLNORM ?? join(process.env.CARGO_TARGET_DIR ?? join(root, "target"), "debug/toolnorm");
/** Debian's Chromium (`apt-get install chromium`), or $CHROMIUM. */
export const executablePath = process.env.CHROMIUM ?? "/usr/bin/chromium";
/** A scratch directory for pages, streams and screenshots ($VIEW_OUT to keep them). */
export const out = process.env.VIEW_OUT ?? mkdtempSync(join(tmpdir(), "toolnorm-view-"));
mkdirSync(out, { recursive: true });

export function toolnorm(args, options = {}) {
  return execFileSync(binary, args, { encoding: "utf8", maxBuffer: 1 << 30, ...options });
}

/** The parts `toolnorm normalize` writes for a file. */
export function parts(file) {
  return toolnorm(["normalize", file]).split("\n").filter(Boolean).map((line) => JSON.parse(line));
}

/** Writes the page of `inputs` to `name` in the scratch directory; its path. */
export function view(inputs, name) {
  const page = join(out, name);
  toolnorm(["view", ...inputs, "-o", page]);
  return page;
}

export async function launch() {
  return chromium.launch({ executablePath, args: ["--no-sandbox"] });
}

/**
 * Opens `url` in a new page; `problems` collects every console error, page error, CSP
 * violation and request to anything but the page itself, its event stream and what
 * `allowed(url)` allows.
 */
export async function open(browser, url, viewport = { width: 1400, height: 1000 }, allowed = () => false) {
  const context = await browser.newContext({ viewport });
  const page = await context.newPage();
  const problems = [];
  page.on("console", (message) => {
    if (message.type() === "error") problems.push("console: " + message.text());
  });
  page.on("pageerror", (error) => problems.push("page error: " + error.message));
  page.on("request", (request) => {
    if (request.url() !== url && !request.url().startsWith(new URL(url).origin + "/events") && !allowed(request.url()))
      problems.push("request: " + request.url());
  });
  await page.addInitScript(() => {
    document.addEventListener("securitypolicyviolation", (event) => {
      console.error("CSP violation: " + event.violatedDirective + " " + event.blockedURI);
    });
  });
  await page.goto(url);
  await page.waitForFunction(() => document.body && document.body.dataset.ready === "1");
  return { page, problems, context };
}

export const fileUrl = (path) => pathToFileURL(path).href;

/** The call rows in the DOM: id, state, depth, parent, elapsed, duration text, title. */
export async function rows(page) {
  return page.$$eval(".row.call", (elements) =>
    elements.map((row) => ({
      id: row.dataset.id,
      key: row.dataset.session + ":" + row.dataset.id,
      kind: row.dataset.kind,
      context: row.classList.contains("context"),
      state: row.dataset.state,
      depth: Number(row.dataset.depth),
      parent: row.dataset.parent ?? null,
      elapsed: row.dataset.elapsed === undefined ? null : Number(row.dataset.elapsed),
      duration: row.querySelector(".duration").textContent,
      title: row.querySelector(".title").textContent,
      top: parseFloat(row.style.top),
    })),
  );
}

/** The depth of each part: how many parents up its `metadata.parentToolCallId` chain. */
export function depths(partList) {
  const byId = new Map(partList.map((part) => [part.id, part]));
  const depth = (part, seen = new Set()) => {
    const parent = part.metadata?.parentToolCallId;
    if (!parent || !byId.has(parent) || seen.has(parent)) return 0;
    seen.add(part.id);
    return 1 + depth(byId.get(parent), seen);
  };
  return new Map(partList.map((part) => [part.id, depth(part)]));
}

/** `pretty`'s durations, written again: 340 ms, 2.1 s, 3 min 4 s, 1 h 2 min. */
export function human(ms) {
  if (ms < 1000) return `${ms} ms`;
  if (ms < 60000) {
    const tenths = Math.floor((ms + 50) / 100);
    return tenths >= 600 ? "1 min 0 s" : `${Math.floor(tenths / 10)}.${tenths % 10} s`;
  }
  const seconds = Math.floor((ms + 500) / 1000);
  if (seconds < 3600) return `${Math.floor(seconds / 60)} min ${seconds % 60} s`;
  const minutes = Math.floor((seconds + 30) / 60);
  return `${Math.floor(minutes / 60)} h ${minutes % 60} min`;
}

let failures = 0;
export function check(condition, message) {
  if (!condition) {
    failures++;
    console.error("FAIL " + message);
  }
}
export function done(name) {
  if (failures) {
    console.error(`${name}: ${failures} failure(s)`);
    process.exit(1);
  }
  console.log(`${name}: ok`);
}

/** Markup, handlers, `javascript:` URLs and the pages' own placeholders, planted in data. */
export const PAYLOAD =
  `<script>window.__pwned="script"</script><img src=x onerror="window.__pwned='img'">` +
  `<a href="javascript:window.__pwned='link'">click</a></script><svg onload="window.__pwned='svg'">` +
  `<!-- \u2028 \u2029 & &amp; {{SCRIPT}} {{DATA}} --><iframe src="javascript:parent.__pwned='frame'">`;

/** Keys whose text the planting appends the payload to: commands, paths, edits, outputs. */
const PLANT = new Set(["command", "content", "stdout", "stderr", "old_string", "new_string", "file_path", "text", "description", "aggregatedOutput", "output"]);

/** `value` with PAYLOAD appended to every string under a key of PLANT (40 more times to `content` when `long`). */
export function plant(value, long) {
  if (Array.isArray(value)) return value.map((item) => plant(item, long));
  if (value && typeof value === "object") {
    const copy = {};
    for (const [key, inner] of Object.entries(value)) {
      copy[key] = typeof inner === "string" && PLANT.has(key) ? inner + PAYLOAD + (long && key === "content" ? PAYLOAD.repeat(40) : "") : plant(inner, long);
    }
    return copy;
  }
  return value;
}
