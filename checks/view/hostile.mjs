// Hostile content: real recordings with markup, event handlers, `javascript:` URLs and
// the page's own placeholders planted in their commands, file paths, edits and outputs.
// In Chromium nothing runs, no element comes from the data, and the text shows as text.
//
// Usage: node hostile.mjs (the binary: $TOOLNORM, see common.mjs).
import { readFileSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { PAYLOAD, check, done, fileUrl, launch, open, out, parts, plant, root, toolnorm } from "./common.mjs";

const recordings = ["claude-code/shell-ok.jsonl", "claude-code/edit-file.jsonl", "claude-code/mcp-error.jsonl", "codex-exec/shell-exit-3.jsonl"];
const files = recordings.map((name, at) => {
  const lines = readFileSync(join(root, "fixtures", name), "utf8").split("\n").filter(Boolean);
  const planted = lines.map((line) => JSON.stringify(plant(JSON.parse(line), at === 0))).join("\n") + "\n";
  const file = join(out, "hostile-" + name.replace("/", "-"));
  writeFileSync(file, planted);
  return file;
});

const expected = files.flatMap((file) => parts(file));
const planted = expected.filter((part) => JSON.stringify(part).includes("__pwned")).length;
check(planted === expected.length, `the payload reached every call (${planted} of ${expected.length})`);

const html = join(out, "hostile.html");
toolnorm(["view", ...files, "-o", html]);
const source = readFileSync(html, "utf8");
check(source.split("</script>").length - 1 === 2, "the file has exactly the page's two </script>");
check(!source.includes("<img") && !source.includes("<iframe") && !source.includes("<svg"), "no planted tag in the file's markup");

const browser = await launch();
const { page, problems, context } = await open(browser, fileUrl(html));

/** What the DOM holds that could have come from the data. */
async function audit(label) {
  const found = await page.evaluate(() => ({
    pwned: window.__pwned,
    scripts: document.scripts.length,
    tags: document.querySelectorAll("img, svg, iframe, a, object, embed, link, base, form").length,
    handlers: [...document.querySelectorAll("*")].flatMap((node) => [...node.attributes].map((a) => a.name)).filter((name) => name.startsWith("on") || name === "href" || name === "src").length,
  }));
  check(found.pwned === undefined, `${label}: nothing ran (window.__pwned = ${found.pwned})`);
  check(found.scripts === 2, `${label}: ${found.scripts} script elements`);
  check(found.tags === 0, `${label}: ${found.tags} planted elements`);
  check(found.handlers === 0, `${label}: ${found.handlers} handler, href or src attributes`);
}

await audit("loaded");
const titles = await page.$$eval(".row.call .title", (list) => list.map((node) => node.textContent));
check(titles.some((title) => title.includes("<script>window.__pwned")), "a planted title shows as text");
const count = await page.$$eval(".row.call", (list) => list.length);
check(count === expected.length, `${count} rows for ${expected.length} calls`);
for (let at = 0; at < count; at++) {
  await page.click(`.row.call >> nth=${at}`);
  // Open every section and unfold every long text.
  await page.$$eval("#detail details", (list) => list.forEach((box) => { box.open = true; }));
  for (const button of await page.$$("#detail button")) await button.click();
  const detail = await page.$eval("#detail", (box) => box.textContent);
  check(detail.includes(PAYLOAD), `call ${at}: the payload shows as text in its details`);
  await audit(`call ${at}`);
}
// Typing the payload into the search box.
await page.fill("#filter-text", "<img src=x onerror=");
check((await page.$$eval(".row.call", (list) => list.length)) > 0, "searching the payload finds the calls");
await audit("searched");
await page.screenshot({ path: join(out, "hostile.png") });
check(problems.length === 0, problems.join("; "));
await context.close();
await browser.close();
done("view hostile-content check");
