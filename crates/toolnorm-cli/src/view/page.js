// The page of `toolnorm view`: reads the sessions from #toolnorm-data and shows their
// tool calls as a tree on a time axis. Everything from a session is untrusted text: it
// only ever goes into the page through textContent (never innerHTML, never a URL).
// The binary puts human.js, this file and detail.js (the selected call's pane) in one
// function.
  const ROW = 26;
  const OVERSCAN = 20;
  const FOLD_CHARS = 4000;
  const FOLD_LINES = 80;
  const STATES = ["started", "running", "complete", "error"];
  const STATE_ICON = { started: "○", running: "◔", complete: "✓", error: "✗" };
  const KIND_LABEL = {
    web_search: "search", browser: "web", file_read: "read", file_write: "write",
    file_edit: "edit", bash: "shell", subagent: "agent", mcp: "mcp", question: "ask",
    todo: "todo", unknown: "other",
  };

  /**
   * The canonical part (checked with tsc by checks/view against generated/ts).
   * @typedef {import("../../../../generated/ts/toolnorm").NormalizedToolPart} Part
   * @typedef {{lines: number, applied: number, knownNonTool: number, notices: number, errors: number}} Lines
   * @typedef {{source: string, dialect: string | null, parts: Part[], lines: Lines, diagnostics: string[]}} Session
   */
  /** The page's own element `id` (page.html has each). @param {string} id */
  const $ = (id) => /** @type {HTMLElement} */ (document.getElementById(id));
  /**
   * `1 call`, `2 calls`.
   * @param {number} n
   * @param {string} word
   */
  const plural = (n, word) => n + " " + word + (n === 1 ? "" : "s");
  /** @type {{sessions: Session[], live: boolean}} */
  const data = JSON.parse(/** @type {string} */ ($("toolnorm-data").textContent));
  const sessions = data.sessions;
  const list = $("list");
  const spacer = $("spacer");
  const detail = $("detail");

  /** A new element with a class and text (text only, never markup). */
  function el(tag, className, text) {
    const node = document.createElement(tag);
    if (className) node.className = className;
    if (text !== undefined && text !== null) node.textContent = String(text);
    return node;
  }

  /** A known name or "unknown": class names never come from the data. */
  const known = (value, names) => (names.includes(value) ? value : "unknown");

  /** Milliseconds since the epoch of a timestamp (RFC 3339 text or epoch ms). */
  function toMs(value) {
    if (typeof value === "number") return value < 1e11 ? value * 1000 : value;
    if (typeof value === "string") {
      const ms = Date.parse(value);
      return Number.isNaN(ms) ? null : ms;
    }
    return null;
  }

  // The model: one node per call, with its parent, children and times.
  /**
   * A call: its part, session group, tree links and times (ms since the epoch).
   * @typedef {{part: Part, session: number, group: Group, key: string, children: Call[],
   *   parent: Call | null, depth: number, start: number | null, end: number | null,
   *   elapsed: number | null, haystack: string | null, isSession: false}} Call
   * A session's group row (shown when there are several) and its time span.
   * @typedef {{session: number, key: string, children: Call[], depth: number, isSession: true,
   *   t0: number, t1: number, parent?: null, part?: undefined}} Group
   * @typedef {{node: Call | Group, mark: string}} Row
   */
  /** @type {Call[]} */
  let nodes = [];
  /** @type {Array<Call | Group>} */
  let roots = [];
  /** @type {Group[]} */
  let groups = [];
  /** @type {Map<string, Call>} */
  let byKey = new Map();
  const collapsed = new Set();
  /** @type {Row[]} */
  let rows = [];
  /** @type {Call | Group | null} */
  let selected = null;

  function build() {
    nodes = [];
    roots = [];
    groups = [];
    byKey = new Map();
    sessions.forEach((session, s) => {
      /** @type {Group} */
      const group = { session: s, key: "s" + s, children: [], depth: -1, isSession: true, t0: 0, t1: 0 };
      groups.push(group);
      if (sessions.length > 1) roots.push(group);
      let t0 = Infinity;
      let t1 = -Infinity;
      const ids = new Map();
      for (const part of session.parts) {
        const timing = part.timing || {};
        const start = toMs(timing.startedAt);
        let end = toMs(timing.completedAt);
        const elapsed = typeof timing.elapsedMs === "number" ? timing.elapsedMs : null;
        if (end === null && start !== null && elapsed !== null) end = start + elapsed;
        if (start !== null) t0 = Math.min(t0, start);
        if (end !== null) t1 = Math.max(t1, end);
        if (start !== null && end === null) t1 = Math.max(t1, start);
        /** @type {Call} */
        const node = {
          part, session: s, group, key: s + ":" + part.id, children: [], parent: null,
          depth: 0, start, end, elapsed, haystack: null, isSession: false,
        };
        ids.set(part.id, node);
        nodes.push(node);
        byKey.set(node.key, node);
      }
      group.t0 = t0;
      group.t1 = t1;
      for (const node of ids.values()) {
        const meta = node.part.metadata || {};
        const parent = typeof meta.parentToolCallId === "string" ? ids.get(meta.parentToolCallId) : null;
        if (parent && parent !== node) {
          node.parent = parent;
          parent.children.push(node);
        } else if (sessions.length > 1) {
          group.children.push(node);
        } else {
          roots.push(node);
        }
      }
    });
    // Depths, from the roots down (a cycle in hostile data cannot loop: each node once).
    const seen = new Set();
    const walk = (node, depth) => {
      if (seen.has(node)) return;
      seen.add(node);
      node.depth = depth;
      for (const child of node.children) walk(child, depth + 1);
    };
    for (const root of roots) {
      if (root.isSession) root.children.forEach((child) => walk(child, 0));
      else walk(root, 0);
    }
    for (const node of nodes) if (!seen.has(node)) walk(node, 0);
  }

  // Filters.
  const filterKind = /** @type {HTMLSelectElement} */ ($("filter-kind"));
  const filterState = /** @type {HTMLSelectElement} */ ($("filter-state"));
  const filterText = /** @type {HTMLInputElement} */ ($("filter-text"));

  /** @param {Call} node */
  function haystack(node) {
    if (node.haystack === null) {
      const p = node.part;
      let text = [p.id, p.name, p.title, p.kind, p.state, p.error ? p.error.message : "",
        p.error && p.error.code ? p.error.code : ""].join("\n");
      try {
        text += "\n" + JSON.stringify(p.input).slice(0, 20000);
        if (p.output !== undefined) text += "\n" + JSON.stringify(p.output).slice(0, 20000);
      } catch (_) { /* keep what there is */ }
      node.haystack = text.toLowerCase();
    }
    return node.haystack;
  }

  /** @param {Call} node */
  function matches(node) {
    const p = node.part;
    if (filterKind.value && p.kind !== filterKind.value) return false;
    if (filterState.value && p.state !== filterState.value) return false;
    const text = filterText.value.trim().toLowerCase();
    return !text || haystack(node).includes(text);
  }

  const filtering = () => filterKind.value || filterState.value || filterText.value.trim();

  /** The rows shown: the tree in order, folded where collapsed; filtered, the matches
   *  and their ancestors (shown as context). */
  function computeRows() {
    rows = [];
    let shown = 0;
    if (filtering()) {
      const keep = new Map();
      for (const node of nodes) {
        if (!matches(node)) continue;
        shown++;
        keep.set(node, "match");
        for (let up = node.parent; up && !keep.has(up); up = up.parent) keep.set(up, "context");
      }
      const visit = (node) => {
        if (node.isSession) {
          if (node.children.some((child) => keep.has(child))) rows.push({ node, mark: "" });
          node.children.forEach(visit);
          return;
        }
        if (!keep.has(node)) return;
        rows.push({ node, mark: keep.get(node) });
        node.children.forEach(visit);
      };
      roots.forEach(visit);
    } else {
      const visit = (node) => {
        rows.push({ node, mark: "" });
        if (!node.isSession) shown++;
        if (!collapsed.has(node.key)) node.children.forEach(visit);
      };
      roots.forEach(visit);
    }
    $("shown").textContent = filtering() ? shown + " of " + plural(nodes.length, "call") : plural(nodes.length, "call");
    spacer.style.height = rows.length * ROW + "px";
  }

  // Rendering: only the rows in view (and a margin) are in the DOM.
  let frame = 0;
  function schedule() {
    if (!frame) frame = requestAnimationFrame(() => { frame = 0; renderRows(); });
  }

  function renderRows() {
    const first = Math.max(0, Math.floor(list.scrollTop / ROW) - OVERSCAN);
    const last = Math.min(rows.length, Math.ceil((list.scrollTop + list.clientHeight) / ROW) + OVERSCAN);
    const fragment = document.createDocumentFragment();
    for (let i = first; i < last; i++) fragment.appendChild(renderRow(rows[i], i));
    spacer.replaceChildren(fragment);
    if (!rows.length) spacer.appendChild(el("div", "empty", nodes.length ? "No call matches." : "No tool calls."));
  }

  /** @param {Row} row @param {number} index */
  function renderRow(row, index) {
    const node = row.node;
    const div = el("div", "row");
    div.style.top = index * ROW + "px";
    div.dataset.index = String(index);
    div.setAttribute("role", "treeitem");
    if (node === selected) div.classList.add("selected");
    const indent = (node.isSession ? 0 : node.depth + (sessions.length > 1 ? 1 : 0)) * 16 + 4;
    div.style.paddingLeft = indent + "px";
    const twisty = el("span", "twisty", node.children.length ? (collapsed.has(node.key) && !filtering() ? "▸" : "▾") : "");
    div.appendChild(twisty);
    if (node.isSession) {
      const session = sessions[node.session];
      div.classList.add("session");
      div.appendChild(el("span", "title", session.source + " · " + (session.dialect || "unknown dialect") + " · " + plural(session.parts.length, "call")));
      return div;
    }
    const p = node.part;
    const state = known(p.state, STATES);
    div.classList.add("call");
    if (row.mark === "context") div.classList.add("context");
    if (state === "error") div.classList.add("error");
    if (state === "started" || state === "running") div.classList.add("open");
    div.dataset.id = p.id;
    div.dataset.session = String(node.session);
    div.dataset.state = state;
    div.dataset.depth = String(node.depth);
    div.dataset.kind = known(p.kind, Object.keys(KIND_LABEL));
    if (node.elapsed !== null) div.dataset.elapsed = String(node.elapsed);
    if (node.parent) div.dataset.parent = node.parent.part.id;
    div.setAttribute("aria-level", String(node.depth + 1));
    div.appendChild(el("span", "icon state-" + state, STATE_ICON[state]));
    const kind = known(p.kind, Object.keys(KIND_LABEL));
    div.appendChild(el("span", "kind kind-" + kind, KIND_LABEL[kind]));
    div.appendChild(el("span", "title", p.title || p.name));
    const mcp = /** @type {{server?: unknown, tool?: unknown} | undefined} */ ((p.metadata || {}).mcp);
    if (mcp && typeof mcp === "object") div.appendChild(el("span", "mcp", String(mcp.server) + "/" + String(mcp.tool)));
    if (state === "error" && p.error && p.error.code) div.appendChild(el("span", "code", p.error.code));
    const approval = approvalNote(p);
    if (approval) div.appendChild(el("span", "approval", approval));
    div.appendChild(el("span", "duration", node.elapsed !== null ? human(node.elapsed) : ""));
    div.appendChild(axis(node));
    return div;
  }

  /**
   * What a call's approval says: "waiting for approval", "denied by user after 4.5 s",
   * "approved"; "" for a call that did not ask.
   * @param {Part} p
   */
  function approvalNote(p) {
    const approval = /** @type {{status?: unknown, decidedBy?: unknown, requestedAt?: unknown, resolvedAt?: unknown} | undefined} */ ((p.metadata || {}).approval);
    if (!approval || typeof approval !== "object") return "";
    if (approval.status === "pending") return "waiting for approval";
    let note = String(approval.status);
    if (approval.decidedBy) note += " by " + String(approval.decidedBy);
    const asked = Date.parse(String(approval.requestedAt));
    const decided = Date.parse(String(approval.resolvedAt));
    const epoch = (/** @type {unknown} */ t) => (typeof t === "number" ? (t < 1e11 ? t * 1000 : t) : NaN);
    const from = isNaN(asked) ? epoch(approval.requestedAt) : asked;
    const to = isNaN(decided) ? epoch(approval.resolvedAt) : decided;
    if (to >= from) note += " after " + human(to - from);
    return note;
  }

  /** @param {Call} node */
  function axis(node) {
    const box = el("span", "axis");
    const g = node.group;
    if (node.start === null || !(g.t1 >= g.t0)) return box;
    const span = Math.max(g.t1 - g.t0, 1);
    const end = node.end !== null ? node.end : g.t1;
    const bar = el("span", "bar");
    bar.style.left = ((node.start - g.t0) / span) * 100 + "%";
    bar.style.width = (Math.max(end - node.start, 0) / span) * 100 + "%";
    box.appendChild(bar);
    return box;
  }

  // The header: counts per kind and state, errors, durations.
  function renderSummary() {
    const header = $("summary");
    header.replaceChildren();
    header.appendChild(el("h1", "", sessions.length === 1 ? sessions[0].source : plural(sessions.length, "session")));
    const count = (key) => {
      const counts = new Map();
      for (const node of nodes) counts.set(node.part[key], (counts.get(node.part[key]) || 0) + 1);
      return [...counts.entries()].sort((a, b) => b[1] - a[1]);
    };
    const stat = (label, value) => {
      const span = el("span", "stat", label + " ");
      span.appendChild(el("b", "", value));
      header.appendChild(span);
    };
    stat("calls", nodes.length);
    const errors = nodes.filter((node) => node.part.state === "error").length;
    stat("errors", errors);
    const total = nodes.reduce((sum, node) => sum + (node.elapsed || 0), 0);
    stat("call time", human(total));
    let wall = 0;
    for (const group of groups) if (group.t1 >= group.t0) wall += group.t1 - group.t0;
    if (wall) stat("wall time", human(wall));
    /** @type {Call | null} */
    let longest = null;
    let most = -1;
    for (const node of nodes) if (node.elapsed !== null && node.elapsed > most) { longest = node; most = node.elapsed; }
    if (longest) {
      const span = el("span", "stat", "longest ");
      const button = el("button", "", (longest.part.title || longest.part.name).slice(0, 60) + " · " + human(most));
      button.id = "longest";
      button.addEventListener("click", () => select(longest, true));
      span.appendChild(button);
      header.appendChild(span);
    }
    const kinds = el("span", "stat kinds");
    for (const [kind, n] of count("kind")) kinds.appendChild(el("span", "badge", KIND_LABEL[known(kind, Object.keys(KIND_LABEL))] + " " + n));
    header.appendChild(kinds);
    const states = el("span", "stat states");
    for (const [state, n] of count("state")) states.appendChild(el("span", "badge state-" + known(state, STATES), state + " " + n));
    header.appendChild(states);
    const lines = sessions.reduce((sum, s) => {
      for (const key of ["applied", "knownNonTool", "notices", "errors"]) sum[key] += s.lines[key];
      return sum;
    }, { applied: 0, knownNonTool: 0, notices: 0, errors: 0 });
    header.appendChild(el("span", "stat lines", "lines: " + lines.applied + " applied, " + lines.knownNonTool +
      " known non-tool, " + plural(lines.notices, "notice") + ", " + plural(lines.errors, "error")));
    const diagnostics = sessions.flatMap((s) => s.diagnostics);
    if (diagnostics.length) {
      const box = el("details", "stat");
      box.appendChild(el("summary", "", plural(diagnostics.length, "diagnostic")));
      box.appendChild(el("pre", "", diagnostics.join("\n")));
      header.appendChild(box);
    }
    fillSelect(filterKind, count("kind"));
    fillSelect(filterState, count("state"));
  }

  function fillSelect(select, counts) {
    const value = select.value;
    while (select.options.length > 1) select.remove(1);
    for (const [name, n] of counts) {
      const option = el("option", "", name + " (" + n + ")");
      option.value = String(name);
      select.appendChild(option);
    }
    select.value = value;
  }

  // Selection and keyboard.
  /** @param {Call | Group | null} node @param {boolean} reveal */
  function select(node, reveal) {
    selected = node;
    if (reveal && node && !node.isSession) {
      for (let up = node.parent; up; up = up.parent) collapsed.delete(up.key);
      if (!rows.some((row) => row.node === node)) {
        filterKind.value = ""; filterState.value = ""; filterText.value = "";
      }
      computeRows();
    }
    const index = rows.findIndex((row) => row.node === node);
    if (index >= 0) {
      const top = index * ROW;
      if (top < list.scrollTop) list.scrollTop = top;
      else if (top + ROW > list.scrollTop + list.clientHeight) list.scrollTop = top + ROW - list.clientHeight;
    }
    renderDetail(node);
    renderRows();
  }

  function move(delta) {
    if (!rows.length) return;
    const at = rows.findIndex((row) => row.node === selected);
    const next = Math.max(0, Math.min(rows.length - 1, at < 0 ? 0 : at + delta));
    select(rows[next].node, false);
  }

  /** @param {Call | Group | null} node @param {boolean} open */
  function toggle(node, open) {
    if (!node || !node.children.length) return;
    const isOpen = !collapsed.has(node.key);
    if (open === isOpen) return;
    if (isOpen) collapsed.add(node.key);
    else collapsed.delete(node.key);
    computeRows();
    select(node, false);
  }

  list.addEventListener("click", (event) => {
    const target = event.target instanceof HTMLElement ? event.target : null;
    const rowEl = target ? /** @type {HTMLElement | null} */ (target.closest(".row")) : null;
    if (!target || !rowEl) return;
    const row = rows[Number(rowEl.dataset.index)];
    if (!row) return;
    if (target.classList.contains("twisty")) toggle(row.node, collapsed.has(row.node.key));
    else select(row.node, false);
    list.focus();
  });

  document.addEventListener("keydown", (event) => {
    if (event.target === filterText) {
      if (event.key === "Escape" || event.key === "Enter") { filterText.blur(); list.focus(); }
      return;
    }
    if (event.target instanceof HTMLSelectElement) return;
    const page = Math.max(1, Math.floor(list.clientHeight / ROW) - 1);
    const keys = {
      ArrowDown: () => move(1), j: () => move(1), ArrowUp: () => move(-1), k: () => move(-1),
      PageDown: () => move(page), PageUp: () => move(-page),
      Home: () => move(-rows.length), End: () => move(rows.length),
      ArrowRight: () => toggle(selected, true), l: () => toggle(selected, true),
      ArrowLeft: () => {
        if (selected && selected.children.length && !collapsed.has(selected.key)) toggle(selected, false);
        else if (selected && selected.parent) select(selected.parent, false);
      },
      h: () => keys.ArrowLeft(),
      Enter: () => toggle(selected, selected ? collapsed.has(selected.key) : false),
      "/": () => filterText.focus(),
      e: () => {
        const at = rows.findIndex((row) => row.node === selected);
        for (let i = 1; i <= rows.length; i++) {
          const row = rows[(at + i) % rows.length];
          if (!row.node.isSession && row.node.part.state === "error") { select(row.node, false); break; }
        }
      },
    };
    const action = keys[event.key];
    if (action && !event.ctrlKey && !event.metaKey && !event.altKey) {
      event.preventDefault();
      action();
    }
  });

  const refilter = () => { computeRows(); list.scrollTop = 0; renderRows(); };
  filterKind.addEventListener("change", refilter);
  filterState.addEventListener("change", refilter);
  filterText.addEventListener("input", refilter);
  list.addEventListener("scroll", schedule);
  window.addEventListener("resize", schedule);

  function refresh() {
    build();
    if (selected && !selected.isSession) selected = byKey.get(selected.key) || null;
    renderSummary();
    computeRows();
    renderRows();
    if (selected) renderDetail(selected);
  }

  const began = performance.now();
  refresh();
  renderDetail(selected);
  document.body.dataset.renderMs = String(Math.round(performance.now() - began));
  document.body.dataset.readyAt = String(Math.round(performance.now()));
  document.body.dataset.ready = "1";

  // Live: parts, line counts and diagnostics arrive as server-sent events.
  if (data.live) {
    const source = new EventSource("events");
    let pending = 0;
    const liveIndex = new Map();
    const later = () => { if (!pending) pending = setTimeout(() => { pending = 0; refresh(); }, 100); };
    const session = () => {
      if (!sessions.length) sessions.push({ source: "stdin", dialect: null, parts: [], lines: { lines: 0, applied: 0, knownNonTool: 0, notices: 0, errors: 0 }, diagnostics: [] });
      return sessions[0];
    };
    source.addEventListener("part", (event) => {
      const part = JSON.parse(event.data);
      const parts = session().parts;
      const at = liveIndex.get(part.id);
      if (at !== undefined) parts[at] = part;
      else {
        liveIndex.set(part.id, parts.length);
        parts.push(part);
      }
      later();
    });
    source.addEventListener("session", (event) => {
      const info = JSON.parse(event.data);
      const s = session();
      s.source = info.source; s.dialect = info.dialect; s.lines = info.lines;
      later();
    });
    source.addEventListener("reset", () => { sessions.length = 0; liveIndex.clear(); later(); });
    source.addEventListener("diagnostic", (event) => { session().diagnostics.push(JSON.parse(event.data)); later(); });
    source.addEventListener("open", () => { document.body.dataset.live = "open"; });
  }
