  // The pane of the selected call (in the function of page.js, whose helpers it uses):
  // its fields, error, diff, input, output and metadata, long texts folded.

  // The detail pane of the selected call.
  function text(value) {
    if (typeof value === "string") return value;
    try {
      return JSON.stringify(value, null, 2);
    } catch (_) {
      return String(value);
    }
  }

  /** A <pre> of `value`, folded past FOLD_CHARS characters or FOLD_LINES lines. */
  function folded(value) {
    const full = text(value);
    const box = el("div", "");
    const lines = full.split("\n");
    if (full.length <= FOLD_CHARS && lines.length <= FOLD_LINES) {
      box.appendChild(el("pre", "", full));
      return box;
    }
    let head = lines.slice(0, FOLD_LINES).join("\n");
    if (head.length > FOLD_CHARS) head = head.slice(0, FOLD_CHARS);
    const pre = el("pre", "", head + "\n…");
    const more = el("button", "", "show all (" + full.length + " characters, " + lines.length + " lines)");
    more.addEventListener("click", () => { pre.textContent = full; more.remove(); });
    box.append(pre, more);
    return box;
  }

  function section(title, content, open) {
    const box = el("details", "");
    if (open) box.open = true;
    box.appendChild(el("summary", "", title));
    box.appendChild(content);
    return box;
  }

  /** Before and after texts of an edit, when the input has them. */
  function editTexts(input) {
    if (!input || typeof input !== "object") return null;
    const pick = (o, a, b) => (typeof o[a] === "string" ? o[a] : typeof o[b] === "string" ? o[b] : null);
    const edits = Array.isArray(input.edits) ? input.edits : [input];
    const pairs = [];
    for (const edit of edits) {
      if (!edit || typeof edit !== "object") continue;
      const before = pick(edit, "old_string", "oldString");
      const after = pick(edit, "new_string", "newString");
      if (before !== null || after !== null) pairs.push([before || "", after || ""]);
    }
    return pairs.length ? pairs : null;
  }

  /** A line diff of two texts (longest common subsequence; whole texts past 400 lines). */
  function lineDiff(before, after) {
    const a = before.split("\n");
    const b = after.split("\n");
    const out = [];
    if (a.length * b.length > 160000) {
      a.forEach((line) => out.push(["-", line]));
      b.forEach((line) => out.push(["+", line]));
      return out;
    }
    const lcs = Array.from({ length: a.length + 1 }, () => new Uint32Array(b.length + 1));
    for (let i = a.length - 1; i >= 0; i--)
      for (let j = b.length - 1; j >= 0; j--)
        lcs[i][j] = a[i] === b[j] ? lcs[i + 1][j + 1] + 1 : Math.max(lcs[i + 1][j], lcs[i][j + 1]);
    let i = 0;
    let j = 0;
    while (i < a.length && j < b.length) {
      if (a[i] === b[j]) { out.push([" ", a[i]]); i++; j++; }
      else if (lcs[i + 1][j] >= lcs[i][j + 1]) out.push(["-", a[i++]]);
      else out.push(["+", b[j++]]);
    }
    while (i < a.length) out.push(["-", a[i++]]);
    while (j < b.length) out.push(["+", b[j++]]);
    return out;
  }

  function diffView(lines) {
    const pre = el("pre", "diff");
    for (const [sign, line] of lines) {
      const cls = sign === "+" ? "diff-add" : sign === "-" ? "diff-del" : sign === "@" ? "diff-hunk" : "";
      pre.appendChild(el("span", cls, (sign === "@" ? "" : sign + " ") + line + "\n"));
    }
    return pre;
  }

  /** A unified diff found in the input, output or metadata (`diff`, `patch`, `unified_diff`). */
  function unifiedDiff(part) {
    const found = [];
    const look = (value, depth) => {
      if (!value || typeof value !== "object" || depth > 3 || found.length > 8) return;
      for (const [key, inner] of Object.entries(value)) {
        if (typeof inner === "string" && /^(diff|patch|unified_diff|unifiedDiff)$/.test(key) && /^(@@|---|diff |\*\*\* Begin Patch)/m.test(inner)) found.push(inner);
        else look(inner, depth + 1);
      }
    };
    look(part.input, 0);
    look(part.output, 0);
    look(part.metadata, 0);
    if (!found.length) return null;
    const lines = [];
    for (const patch of found) for (const line of patch.split("\n")) {
      const sign = line.startsWith("@@") ? "@" : line.startsWith("+") && !line.startsWith("+++") ? "+" : line.startsWith("-") && !line.startsWith("---") ? "-" : " ";
      lines.push([sign, sign === "@" || sign === " " ? line : line.slice(1)]);
    }
    return lines;
  }

  /** @param {Call | Group | null} node */
  function renderDetail(node) {
    detail.replaceChildren();
    if (!node || node.isSession) {
      detail.appendChild(el("p", "empty", "Select a call (click, or ↑ ↓) to see its input and output."));
      return;
    }
    const p = node.part;
    const meta = p.metadata || {};
    detail.appendChild(el("h2", "", p.title || p.name));
    const dl = el("dl", "");
    const field = (name, value) => {
      if (value === undefined || value === null || value === "") return;
      dl.append(el("dt", "", name), el("dd", "", value));
    };
    field("state", p.state);
    field("kind", p.kind);
    field("tool", p.name);
    field("id", p.id);
    const mcp = /** @type {{server?: unknown, tool?: unknown} | undefined} */ (meta.mcp);
    if (mcp && typeof mcp === "object") field("MCP", "server " + String(mcp.server) + ", tool " + String(mcp.tool));
    if (node.parent) field("inside", node.parent.part.title || node.parent.part.id);
    if (node.children.length) field("calls inside", node.children.length);
    field("duration", node.elapsed !== null ? human(node.elapsed) + " (" + node.elapsed + " ms)" : "");
    const timing = p.timing || {};
    field("started", timing.startedAt !== undefined ? String(timing.startedAt) : "");
    field("ended", timing.completedAt !== undefined ? String(timing.completedAt) : "");
    const approval = /** @type {{reason?: unknown} | undefined} */ (meta.approval);
    const asked = approval && typeof approval === "object" && approval.reason ? " (asked: " + String(approval.reason) + ")" : "";
    field("approval", approvalNote(p) + asked);
    // A question call's questions, each with its answer once given.
    const questions = Array.isArray(meta.questions) ? meta.questions : [];
    for (const q of /** @type {Array<{question?: unknown, answer?: unknown}>} */ (questions)) {
      if (!q || typeof q !== "object" || typeof q.question !== "string") continue;
      const answer = Array.isArray(q.answer) ? q.answer.map(String).join(", ") : "no answer";
      field("asked", q.question + " → " + answer);
    }
    field("provider", meta.provider);
    field("source", meta.source);
    detail.appendChild(dl);
    if (p.error) {
      const box = el("div", "error-box");
      box.appendChild(el("strong", "", "error" + (p.error.code ? " [" + p.error.code + "]" : "") + ": "));
      box.appendChild(el("span", "", p.error.message));
      const details = /** @type {{output?: unknown} | undefined} */ (p.error.details);
      if (details && typeof details === "object" && typeof details.output === "string") {
        // A failed call's output, as text; the other details as JSON.
        box.appendChild(folded(details.output));
        const rest = Object.assign({}, details);
        delete rest.output;
        if (Object.keys(rest).length) box.appendChild(el("pre", "", text(rest)));
      } else if (details !== undefined) box.appendChild(folded(details));
      detail.appendChild(box);
    }
    const edits = p.kind === "file_edit" || p.kind === "file_write" ? editTexts(p.input) : null;
    const patch = unifiedDiff(p);
    if (edits) {
      const lines = edits.flatMap(([before, after], i) => (i ? [["@", "…"]] : []).concat(lineDiff(before, after)));
      detail.appendChild(section("diff", diffView(lines), true));
    } else if (patch) {
      detail.appendChild(section("diff", diffView(patch), true));
    }
    detail.appendChild(section("input", folded(p.input), !edits && !patch));
    if (meta.outputTruncated) {
      detail.appendChild(el("p", "truncated", "output truncated: " + String(meta.outputTotalBytes) + " bytes, " + String(meta.outputCapBytes) + " kept"));
    }
    if (p.output !== undefined) detail.appendChild(section("output", folded(p.output), true));
    else if (meta.partialOutput !== undefined) detail.appendChild(section("output so far", folded(meta.partialOutput), true));
    detail.appendChild(section("metadata", folded(meta), false));
  }
