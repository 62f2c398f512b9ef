// The catalog page of `toolnorm serve`: the sessions of the index (GET /api/sessions with
// the filters), the agents and projects to filter by (GET /api/facets), the stats (GET
// /api/stats), reloaded when the server says the index changed (GET /api/events).
// Everything from the index is put in with textContent: nothing in a session is read as
// HTML. The binary puts the view's human.js and this file in one function.
  /**
   * The page's element of this id (the page has every id the script names).
   * @param {string} id
   * @returns {HTMLElement}
   */
  function $(id) {
    const node = document.getElementById(id);
    if (!node) throw new Error("the page has no #" + id);
    return node;
  }
  /** @param {string} id */
  const field = (id) => /** @type {HTMLInputElement | HTMLSelectElement} */ ($(id));
  /** @param {string} id */
  const select = (id) => /** @type {HTMLSelectElement} */ ($(id));
  const filters = {
    agent: select("filter-agent"),
    project: select("filter-project"),
    since: field("filter-since"),
    until: field("filter-until"),
    state: select("filter-state"),
    q: field("filter-q"),
  };

  function element(tag, text, className) {
    const node = document.createElement(tag);
    if (text !== undefined && text !== null) node.textContent = String(text);
    if (className) node.className = className;
    return node;
  }

  /** A duration for people, or nothing when there is none. */
  const duration = (ms) => (ms === null || ms === undefined ? "" : human(ms));

  async function json(url) {
    const response = await fetch(url, { headers: { accept: "application/json" } });
    const body = await response.json();
    if (!response.ok) throw new Error(body && body.error ? body.error : response.statusText);
    return body;
  }

  function query() {
    const params = new URLSearchParams();
    for (const [name, input] of Object.entries(filters)) {
      const value = input.value.trim();
      if (value) params.set(name, value);
    }
    // An `until` date is the whole day.
    if (params.has("until")) {
      const day = new Date(params.get("until") + "T00:00:00Z");
      if (!Number.isNaN(day.getTime())) {
        day.setUTCDate(day.getUTCDate() + 1);
        params.set("until", day.toISOString().slice(0, 10));
      }
    }
    return params;
  }

  function fill(select, facets) {
    const chosen = select.value;
    while (select.options.length > 1) select.remove(1);
    for (const facet of facets) {
      const option = element("option", facet.name + " (" + facet.sessions + ")");
      option.value = facet.name;
      select.append(option);
    }
    select.value = chosen;
  }

  function row(session) {
    const tr = element("tr");
    tr.dataset.id = String(session.id);
    if (session.failed > 0) tr.classList.add("failed");
    if (session.open > 0) tr.classList.add("open");
    tr.append(
      element("td", session.started ? session.started.replace("T", " ").slice(0, 19) : "–"),
      element("td", session.agent || "?"),
      element("td", session.cwd || "", "project"),
      element("td", session.calls, "n"),
      element("td", session.failed, "n failed"),
      element("td", session.open, "n open"),
    );
    const cell = element("td", null, "path");
    const link = element("a", session.path);
    link.href = "/sessions/" + encodeURIComponent(String(session.id));
    link.title = session.path;
    cell.append(link);
    tr.append(cell);
    return tr;
  }

  let generation = 0;
  async function loadSessions() {
    const mine = ++generation;
    let sessions;
    try {
      sessions = await json("/api/sessions?" + query().toString());
    } catch (error) {
      $("shown").textContent = String(error.message || error);
      return;
    }
    if (mine !== generation) return;
    $("sessions-body").replaceChildren(...sessions.map(row));
    $("empty").hidden = sessions.length > 0;
    const calls = sessions.reduce((sum, session) => sum + session.calls, 0);
    $("shown").textContent = sessions.length + " session(s), " + calls + " call(s)";
    document.body.dataset.sessions = String(sessions.length);
  }

  function table(headings, rows) {
    const t = element("table");
    const head = element("tr");
    for (const [text, numeric] of headings) head.append(element("th", text, numeric ? "n" : ""));
    t.append(element("thead"));
    t.tHead.append(head);
    const body = element("tbody");
    for (const cells of rows) {
      const tr = element("tr");
      cells.forEach((cell, i) => tr.append(element("td", cell, headings[i][1] ? "n" : "")));
      body.append(tr);
    }
    t.append(body);
    return t;
  }

  async function loadStats() {
    let stats;
    try {
      stats = await json("/api/stats");
    } catch (error) {
      $("stats").replaceChildren(element("p", String(error.message || error)));
      return;
    }
    $("totals").textContent =
      stats.sessions + " session(s), " + stats.calls + " call(s), " + stats.errors + " failed";
    const pane = $("stats");
    pane.replaceChildren(
      element("h2", "Tools"),
      table(
        [["tool"], ["kind"], ["calls", true], ["errors", true], ["p50", true], ["p95", true]],
        stats.tools.slice(0, 30).map((tool) => [
          tool.name, tool.kind, tool.calls, tool.errors, duration(tool.p50Ms), duration(tool.p95Ms),
        ]),
      ),
      element("h2", "Error codes"),
      table(
        [["code"], ["calls", true]],
        Object.entries(stats.errorCodes).sort((a, b) => b[1] - a[1]),
      ),
      element("h2", "Longest calls"),
      table(
        [["took", true], ["tool"], ["title"]],
        stats.longest.map((call) => [duration(call.elapsedMs), call.name, call.title]),
      ),
    );
  }

  async function loadFacets() {
    try {
      const facets = await json("/api/facets");
      fill(filters.agent, facets.agents);
      fill(filters.project, facets.projects);
    } catch (error) {
      $("shown").textContent = String(error.message || error);
    }
  }

  async function reload() {
    await Promise.all([loadFacets(), loadSessions(), loadStats()]);
    document.body.dataset.ready = "1";
  }

  let typing;
  filters.q.addEventListener("input", () => {
    clearTimeout(typing);
    typing = setTimeout(loadSessions, 200);
  });
  for (const name of ["agent", "project", "since", "until", "state"])
    filters[name].addEventListener("change", loadSessions);

  const events = new EventSource("/api/events");
  events.addEventListener("open", () => {
    $("live").textContent = "live";
    $("live").classList.add("open");
    document.body.dataset.live = "open";
  });
  events.addEventListener("error", () => {
    $("live").textContent = "not live";
    $("live").classList.remove("open");
    document.body.dataset.live = "closed";
  });
  events.addEventListener("indexed", () => {
    reload().then(() => {
      document.body.dataset.reloads = String(Number(document.body.dataset.reloads || 0) + 1);
    });
  });
  reload();
