// `toolnorm view` in headless Chromium: the page of several fixtures (and of a whole
// directory) shows every call with its state, nesting and duration; selecting a call
// shows its input, output, error and approval; filters and keys work; nothing is loaded from
// anywhere and the Content-Security-Policy is not violated. Writes two screenshots
// (for review) to the scratch directory.
//
// Usage: node check.mjs (the binary: $TOOLNORM, see common.mjs).
import { readdirSync, readFileSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { check, depths, done, fileUrl, human, launch, open, out, parts, root, rows, toolnorm, view } from "./common.mjs";

const fixtures = [
  "claude-code/subagent.jsonl",
  "codex-app-server/subagent.jsonl",
  "opencode-run/subagent.jsonl",
  "claude-code-acp/subagent.jsonl",
  "claude-code/mcp-error.jsonl",
  "claude-code/edit-file.jsonl",
  "codex-exec/shell-exit-3.jsonl",
  "opencode-serve/parallel.jsonl",
  "codex-app-server/interrupted.jsonl",
  // Calls that asked for approval: approved, denied by the user, one still waiting; a
  // question answered.
  "events/session.jsonl",
  "codex-app-server/permission-denied.jsonl",
];

const browser = await launch();

/** Checks the rows of a page against the parts of its files. */
async function checkRows(page, label, sessions) {
  const shown = await rows(page);
  const expected = sessions.flat();
  check(shown.length === expected.length, `${label}: ${shown.length} rows, ${expected.length} calls`);
  sessions.forEach((session, s) => checkSession(label, shown.filter((row) => row.key.startsWith(s + ":")), session));
}

function checkSession(label, shown, expected) {
  check(shown.length === expected.length, `${label}: ${shown.length} rows, ${expected.length} calls`);
  const byId = new Map(shown.map((row) => [row.id, row]));
  const depth = depths(expected);
  for (const part of expected) {
    const row = byId.get(part.id);
    check(row, `${label}: call ${part.id} is shown`);
    if (!row) continue;
    check(row.state === part.state, `${label}: ${part.id} is ${row.state}, not ${part.state}`);
    check(row.depth === depth.get(part.id), `${label}: ${part.id} at depth ${row.depth}, not ${depth.get(part.id)}`);
    check(row.parent === (depth.get(part.id) ? part.metadata.parentToolCallId : null), `${label}: ${part.id}'s parent`);
    const elapsed = part.timing?.elapsedMs ?? null;
    check(row.elapsed === elapsed, `${label}: ${part.id} elapsed ${row.elapsed}, not ${elapsed}`);
    check(row.duration === (elapsed === null ? "" : human(elapsed)), `${label}: ${part.id} shows "${row.duration}"`);
    check(row.title === (part.title || part.name), `${label}: ${part.id} title "${row.title}"`);
    const parent = part.metadata?.parentToolCallId;
    if (depth.get(part.id)) check(byId.get(parent) && byId.get(parent).top < row.top, `${label}: ${part.id} below its parent`);
  }
}

let total = 0;
for (const fixture of fixtures) {
  const file = join(root, "fixtures", fixture);
  const expected = parts(file);
  total += expected.length;
  const html = view([file], fixture.replaceAll("/", "_") + ".html");
  const { page, problems, context } = await open(browser, fileUrl(html));
  await checkRows(page, fixture, [expected]);
  // Each call's details: title, state, error code, input, output.
  for (const part of expected) {
    await page.click(`.row.call[data-id="${part.id}"] .title`);
    const detail = await page.$eval("#detail", (box) => box.textContent);
    check(detail.includes(part.title || part.name), `${fixture}: ${part.id} detail shows the title`);
    check(detail.includes(part.state), `${fixture}: ${part.id} detail shows the state`);
    if (part.error?.code) check(detail.includes(`[${part.error.code}]`), `${fixture}: ${part.id} detail shows error code`);
    if (part.metadata?.mcp) check(detail.includes(`server ${part.metadata.mcp.server}, tool ${part.metadata.mcp.tool}`), `${fixture}: ${part.id} MCP server/tool`);
    // A call that asked: its approval's status and who decided, on its row and in the pane.
    const approval = part.metadata?.approval;
    if (approval) {
      const said = approval.status === "pending" ? "waiting for approval" : approval.status + (approval.decidedBy ? " by " + approval.decidedBy : "");
      const row = await page.$eval(`.row.call[data-id="${part.id}"] .approval`, (span) => span.textContent);
      check(row.startsWith(said), `${fixture}: ${part.id} row says "${row}", not "${said}"`);
      check(detail.includes(said), `${fixture}: ${part.id} detail shows the approval`);
    }
    // A question call: each question with its answer, in the pane.
    for (const q of part.metadata?.questions ?? []) {
      const said = q.question + " → " + (q.answer ? q.answer.join(", ") : "no answer");
      check(detail.includes(said), `${fixture}: ${part.id} detail shows "${said}"`);
    }
    if (typeof part.output === "string" && part.output.length < 2000)
      check(detail.includes(part.output), `${fixture}: ${part.id} detail shows the output`);
    if (part.kind === "file_edit" && part.input?.old_string !== undefined) {
      const diff = await page.$$eval("#detail .diff-add, #detail .diff-del", (lines) => lines.length);
      check(diff > 0, `${fixture}: ${part.id} edit shown as a diff`);
    }
  }
  // Errors highlighted.
  const errorRows = await page.$$eval(".row.call.error", (list) => list.length);
  check(errorRows === expected.filter((part) => part.state === "error").length, `${fixture}: error rows highlighted`);
  // The header counts.
  const header = await page.$eval("#summary", (box) => box.textContent);
  check(header.includes(`calls ${expected.length}`), `${fixture}: header counts ${expected.length} calls`);
  check(problems.length === 0, `${fixture}: ${problems.join("; ")}`);
  if (fixture === "claude-code/subagent.jsonl") {
    // Keys: first row, down to the child, left back to the parent, left folds it.
    await page.focus("#list");
    await page.keyboard.press("Home");
    await page.keyboard.press("ArrowDown");
    const child = await page.$eval(".row.selected", (row) => row.dataset.depth);
    check(child === "1", "keys: ↓ selects the subagent's call");
    await page.keyboard.press("ArrowLeft");
    await page.keyboard.press("ArrowLeft");
    check((await rows(page)).length === 1, "keys: ← folds the subagent");
    await page.keyboard.press("ArrowRight");
    check((await rows(page)).length === 2, "keys: → unfolds it");
    await page.keyboard.press("ArrowDown");
    await page.screenshot({ path: join(out, "subagent.png") });
  }
  if (fixture === "claude-code/edit-file.jsonl") {
    const edit = expected.find((part) => part.kind === "file_edit");
    await page.click(`.row.call[data-id="${edit.id}"] .title`);
    await page.screenshot({ path: join(out, "edit-file.png") });
  }
  await context.close();
}

// A whole directory: one session per file, every call, grouped by file; filters.
{
  const dir = join(root, "fixtures/claude-code");
  const html = view([dir], "claude-code-dir.html");
  const { page, problems, context } = await open(browser, fileUrl(html));
  const files = readdirSync(dir).filter((name) => name.endsWith(".jsonl")).sort();
  const perFile = files.map((name) => parts(join(dir, name)));
  const expected = perFile.flat();
  await checkRows(page, "claude-code/", perFile);
  const sessions = await page.$$eval(".row.session", (list) => list.length);
  check(sessions === files.length, `claude-code/: ${sessions} session rows, ${files.length} files`);
  await page.selectOption("#filter-state", "error");
  const errors = await rows(page);
  const failed = expected.filter((part) => part.state === "error");
  check(errors.filter((row) => row.state === "error").length === failed.length, "state filter shows every error");
  check(errors.every((row) => row.state === "error" || row.context), "state filter shows errors (and their parents as context)");
  await page.selectOption("#filter-state", "");
  await page.selectOption("#filter-kind", "bash");
  const bash = await rows(page);
  check(bash.filter((row) => !row.context).length === expected.filter((part) => part.kind === "bash").length, "kind filter");
  check(bash.every((row) => row.kind === "bash" || row.context), "kind filter: other kinds only as context");
  await page.selectOption("#filter-kind", "");
  await page.fill("#filter-text", "greet.py");
  const found = await rows(page);
  check(found.length > 0 && found.length < expected.length, `text search finds some calls (${found.length})`);
  await page.fill("#filter-text", "");
  await page.focus("#list");
  await page.keyboard.press("e");
  const selected = await page.$eval(".row.selected", (row) => row.dataset.state);
  check(selected === "error", "e selects an error");
  check(problems.length === 0, `claude-code/: ${problems.join("; ")}`);
  await context.close();
}

// A recording cut while a command streamed its output, read with a small output cap: the
// call shows as running, with the output so far, marked as truncated.
{
  const lines = readFileSync(join(root, "fixtures/codex-app-server/shell-stream.jsonl"), "utf8").split("\n");
  const cut = join(out, "cut-stream.jsonl");
  writeFileSync(cut, lines.slice(0, 16).join("\n") + "\n");
  const [part] = toolnorm(["normalize", "--output-cap", "8", cut]).split("\n").filter(Boolean).map((line) => JSON.parse(line));
  check(part.state === "running" && part.metadata.outputTruncated === true, "the cut stream has a running call with truncated output");
  const html = view(["--output-cap", "8", cut], "cut-stream.html");
  const { page, problems, context } = await open(browser, fileUrl(html));
  const [row] = await rows(page);
  check(row && row.state === "running", "cut stream: the call shows as running");
  check(await page.$eval(".row.call", (node) => node.classList.contains("open")), "cut stream: the row is marked open");
  await page.click(".row.call .title");
  const detail = await page.$eval("#detail", (box) => box.textContent);
  check(detail.includes(`output truncated: ${part.metadata.outputTotalBytes} bytes, ${part.metadata.outputCapBytes} kept`), "cut stream: the output is marked truncated");
  check(detail.includes("output so far") && detail.includes(part.metadata.partialOutput), "cut stream: the output so far is shown");
  check(problems.length === 0, `cut stream: ${problems.join("; ")}`);
  await context.close();
}

await browser.close();
console.log(`${fixtures.length} fixtures and a directory, ${total} calls; screenshots in ${out}`);
done("view check");
