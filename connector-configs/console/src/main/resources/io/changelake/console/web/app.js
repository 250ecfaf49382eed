// Changelake console: hash-routed pages, each re-read from /api every few seconds (no reloads).
// Every value from the API goes into the page as text (textContent), never as HTML.
"use strict";

const POLL_MS = 2000;
const SVG = "http://www.w3.org/2000/svg";
let info = { actionsEnabled: false };
let timer = null;
let travel = {}; // chosen time-travel snapshot per table ("db.table" -> id)
let lastAction = null; // { connector, text } of the latest action answer

function el(tag, attrs, ...children) {
  const e = document.createElement(tag);
  setAttrs(e, attrs);
  append(e, children);
  return e;
}

function svg(tag, attrs, ...children) {
  const e = document.createElementNS(SVG, tag);
  setAttrs(e, attrs);
  append(e, children);
  return e;
}

function setAttrs(e, attrs) {
  for (const [k, v] of Object.entries(attrs || {})) {
    if (v === null || v === undefined || v === false) continue;
    if (k.startsWith("on")) e.addEventListener(k.substring(2), v);
    else e.setAttribute(k, v === true ? "" : String(v));
  }
}

function append(e, children) {
  for (const c of children.flat(Infinity)) {
    if (c === null || c === undefined || c === false) continue;
    e.appendChild(typeof c === "object" ? c : document.createTextNode(String(c)));
  }
}

async function api(path, options) {
  const response = await fetch("/api/" + path, options);
  const body = await response.json();
  if (!response.ok) {
    const error = new Error(body.error || response.statusText);
    error.status = response.status;
    throw error;
  }
  return body;
}

// replaceChildren would turn a null (an optional part left out) into the text "null"
function show(view, ...parts) {
  view.replaceChildren(...parts.flat(Infinity).filter((p) => p !== null && p !== undefined && p !== false));
}

function showError(message) {
  const box = document.getElementById("error");
  box.hidden = !message;
  box.textContent = message || "";
}

function ago(ms) {
  if (ms === null || ms === undefined) return "unknown";
  const s = Math.round(ms / 1000);
  if (s < 120) return s + " s";
  if (s < 7200) return Math.round(s / 60) + " min";
  return Math.round(s / 3600) + " h";
}

function bytes(n) {
  if (n < 1024) return n + " B";
  if (n < 1024 * 1024) return (n / 1024).toFixed(1) + " KiB";
  return (n / 1024 / 1024).toFixed(1) + " MiB";
}

function stateSpan(state) {
  return el("span", { class: "state state-" + state, "data-state": state }, state);
}

// ---------------------------------------------------------------- pipelines

function layers(nodes, edges) {
  const incoming = new Map(nodes.map((n) => [n.id, []]));
  for (const e of edges) if (incoming.has(e.to)) incoming.get(e.to).push(e.from);
  const layer = new Map();
  const visiting = new Set();
  const depth = (id) => {
    if (layer.has(id)) return layer.get(id);
    if (visiting.has(id)) return 0; // a cycle (a sink writing a topic it reads): cut it
    visiting.add(id);
    let d = 0;
    for (const from of incoming.get(id) || []) d = Math.max(d, depth(from) + 1);
    visiting.delete(id);
    layer.set(id, d);
    return d;
  };
  nodes.forEach((n) => depth(n.id));
  return layer;
}

function nodeLines(n) {
  if (n.kind === "connector") {
    // a connector stays RUNNING while its tasks die: show the tasks' state where it hides
    const failed = failedTasks(n);
    const lines = [n.role + " · " + (failed ? failed + (failed > 1 ? " tasks" : " task") + " FAILED" : n.state)];
    if (n.lag !== null && n.lag !== undefined) lines.push("lag " + n.lag + " records");
    if (n.snapshotsBehind !== null && n.snapshotsBehind !== undefined)
      lines.push(n.snapshotsBehind + " snapshots behind");
    return lines;
  }
  if (n.kind === "table") {
    const lines = ["lake table"];
    if (n.freshnessMs !== null && n.freshnessMs !== undefined) lines.push("fresh " + ago(n.freshnessMs) + " ago");
    else lines.push((n.details[0] || "no snapshot"));
    return lines;
  }
  return ["topic"];
}

function failedTasks(n) {
  return (n.tasks || []).filter((t) => t.state === "FAILED").length;
}

// Connect's trace starts with its own wrapper ("Exiting WorkerSinkTask due to unrecoverable
// exception"); the connector's reason, saying what to do, is the first cause under it
function traceReason(trace) {
  const lines = trace.split("\n");
  const cause = lines.find((l) => l.startsWith("Caused by: "));
  return cause ? cause.substring("Caused by: ".length) : lines[0];
}

function nodeLink(n) {
  if (n.kind === "connector") return "#/connector/" + encodeURIComponent(n.label);
  if (n.kind === "table") {
    const dot = n.label.indexOf(".");
    return "#/table/" + encodeURIComponent(n.label.substring(0, dot)) + "/" +
      encodeURIComponent(n.label.substring(dot + 1));
  }
  return null;
}

function graph(pipeline) {
  const W = 230, H = 64, GX = 60, GY = 18;
  const layer = layers(pipeline.nodes, pipeline.edges);
  const columns = [];
  for (const n of pipeline.nodes) {
    const l = layer.get(n.id);
    (columns[l] = columns[l] || []).push(n);
  }
  const pos = new Map();
  let height = 0;
  columns.forEach((col, x) => (col || []).forEach((n, y) => {
    pos.set(n.id, { x: 10 + x * (W + GX), y: 10 + y * (H + GY) });
    height = Math.max(height, 10 + (y + 1) * (H + GY));
  }));
  const width = 10 + columns.length * (W + GX);
  const root = svg("svg", { class: "graph", width, height, viewBox: `0 0 ${width} ${height}` },
    svg("defs", {}, svg("marker", { id: "arrow", viewBox: "0 0 10 10", refX: 10, refY: 5,
      markerWidth: 7, markerHeight: 7, orient: "auto-start-reverse" },
      svg("path", { d: "M 0 0 L 10 5 L 0 10 z", fill: "#9aa4b5" }))));
  for (const e of pipeline.edges) {
    const a = pos.get(e.from), b = pos.get(e.to);
    if (!a || !b) continue;
    const x1 = a.x + W, y1 = a.y + H / 2, x2 = b.x, y2 = b.y + H / 2, mx = (x1 + x2) / 2;
    root.appendChild(svg("path", { class: "edge", d: `M ${x1} ${y1} C ${mx} ${y1}, ${mx} ${y2}, ${x2} ${y2}`,
      "data-edge": e.from + " -> " + e.to }));
  }
  for (const n of pipeline.nodes) {
    const p = pos.get(n.id);
    const label = n.label.length > 32 ? n.label.substring(0, 31) + "…" : n.label;
    const body = [svg("rect", { width: W, height: H }),
      svg("text", { x: 10, y: 20, "font-weight": 600 }, label),
      ...nodeLines(n).map((line, i) => svg("text", { class: "sub", x: 10, y: 38 + i * 14 }, line)),
      svg("title", {}, [n.label, ...nodeLines(n), ...(n.details || [])].join("\n"))];
    const link = nodeLink(n);
    const g = svg("g", { class: `node kind-${n.kind}` + (n.state ? ` state-${n.state}` : "") +
      (failedTasks(n) ? " state-FAILED" : ""),
      transform: `translate(${p.x},${p.y})`, "data-node": n.id, "data-state": n.state },
      link ? svg("a", { href: link }, ...body) : body);
    root.appendChild(g);
  }
  return root;
}

function connectorCards(pipeline) {
  return pipeline.nodes.filter((n) => n.kind === "connector").map((n) =>
    el("div", { class: "card", "data-connector": n.label },
      el("strong", {}, el("a", { href: nodeLink(n) }, n.label)), " ", el("span", { class: "muted" }, n.role),
      " ", stateSpan(n.state),
      n.lag !== null && n.lag !== undefined ? el("span", { class: "muted" }, " · lag " + n.lag) : null,
      (n.details || []).length ? el("div", { class: "muted" }, n.details.join(" · ")) : null,
      el("table", {}, el("tr", {}, el("th", {}, "task"), el("th", {}, "state"), el("th", {}, "worker")),
        n.tasks.map((t) => [el("tr", { "data-task": n.label + "/" + t.id },
          el("td", {}, String(t.id)), el("td", {}, stateSpan(t.state)), el("td", {}, t.worker)),
          t.trace ? el("tr", {}, el("td", { colspan: 3 },
            el("div", { class: "trace-reason", "data-trace-reason": n.label + "/" + t.id }, traceReason(t.trace)),
            el("pre", { class: "trace", "data-trace": n.label + "/" + t.id }, t.trace))) : null]))));
}

async function pipelinesPage(view) {
  const data = await api("pipelines");
  const parts = [el("h1", {}, "Pipelines")];
  if (!data.pipelines.length) parts.push(el("p", { class: "muted" }, "No connectors on this Connect cluster yet."));
  data.pipelines.forEach((p, i) => {
    parts.push(el("section", { class: "pipeline", "data-pipeline": i },
      el("h2", {}, "Pipeline " + (i + 1)), graph(p), ...connectorCards(p)));
  });
  if (data.problems.length) parts.push(el("div", { class: "card warning" }, data.problems.join("\n")));
  show(view, ...parts);
}

// ---------------------------------------------------------------- tables

async function tablesPage(view) {
  const names = await api("tables");
  show(view, el("h1", {}, "Tables"),
    names.length ? el("ul", { id: "table-list" }, names.map((n) => {
      const dot = n.indexOf(".");
      return el("li", {}, el("a", { href: "#/table/" + encodeURIComponent(n.substring(0, dot)) + "/" +
        encodeURIComponent(n.substring(dot + 1)) }, n));
    })) : el("p", { class: "muted" }, "The lake has no tables yet."));
}

function commitChart(snapshots) {
  const W = 760, H = 150, pad = 28;
  const max = Math.max(1, ...snapshots.map((s) => s.deltaRecords));
  const bw = Math.max(3, Math.min(24, (W - pad) / Math.max(1, snapshots.length) - 2));
  const colors = { APPEND: "#2457c5", COMPACT: "#9aa4b5", OVERWRITE: "#c0392b", ANALYZE: "#b7791f" };
  const root = svg("svg", { class: "graph", id: "commit-chart", width: W, height: H + 20 });
  snapshots.forEach((s, i) => {
    const h = Math.max(1, (s.deltaRecords / max) * (H - 10));
    root.appendChild(svg("rect", { x: pad + i * (bw + 2), y: H - h, width: bw, height: h,
      fill: colors[s.commitKind] || "#6b7280", "data-snapshot": s.id },
      svg("title", {}, `snapshot ${s.id} · ${s.commitKind} · ${s.commitTime}\n` +
        `${s.deltaRecords} records changed · ${s.totalRecords} records in the table`)));
  });
  root.appendChild(svg("text", { x: 2, y: 12, "font-size": 11, fill: "#6b7280" }, String(max)));
  root.appendChild(svg("text", { x: pad, y: H + 15, "font-size": 11, fill: "#6b7280" },
    snapshots.length ? "snapshots " + snapshots[0].id + " … " + snapshots[snapshots.length - 1].id : ""));
  return el("div", {}, root, el("div", { class: "legend" }, Object.entries(colors).map(([k, c]) =>
    el("span", {}, el("span", { class: "swatch swatch-" + k }), k))));
}

async function tablePage(view, database, table) {
  const key = database + "." + table;
  const at = travel[key];
  const data = await api(`tables/${encodeURIComponent(database)}/${encodeURIComponent(table)}?limit=50` +
    (at ? "&snapshot=" + at : ""));
  const latest = data.snapshots[data.snapshots.length - 1];
  const select = el("select", { id: "snapshot-select", onchange: (e) => {
    travel[key] = e.target.value === "latest" ? undefined : e.target.value; refresh(); } },
    el("option", { value: "latest" }, "latest"),
    data.snapshots.slice().reverse().map((s) => el("option", { value: s.id, selected: String(s.id) === String(at) },
      "snapshot " + s.id + " (" + s.commitKind + ")")));
  const versions = data.schemas.slice().reverse();
  show(view, 
    el("h1", {}, key),
    el("div", { class: "card", id: "latest-snapshot", "data-snapshot": data.latestSnapshot },
      latest ? [el("strong", {}, "Latest snapshot " + latest.id), ` · ${latest.commitKind} at ${latest.commitTime}`,
        ` · ${latest.totalRecords} records`] : "No snapshot yet",
      el("div", { class: "muted" }, "primary key: " + (data.primaryKeys.join(", ") || "none"))),
    data.warnings.length ? el("div", { class: "card warning", id: "warnings" }, data.warnings.map((w) => el("div", {}, w))) : null,
    el("h2", {}, "Commits"), commitChart(data.snapshots),
    el("h2", {}, "Schema history"),
    el("ol", { id: "schema-history", reversed: true }, versions.map((v) => el("li", { "data-schema": v.id },
      el("strong", {}, "schema " + v.id), el("span", { class: "muted" }, " · " + v.updateTime),
      v.id === 0 || (!v.added.length && !v.removed.length && !v.changed.length)
        ? el("div", { class: "muted" }, v.columns.join(", "))
        : el("div", {}, v.added.map((c) => el("div", { class: "diff-add" }, "+ " + c)),
          v.removed.map((c) => el("div", { class: "diff-remove" }, "− " + c)),
          v.changed.map((c) => el("div", { class: "diff-change" }, "~ " + c)))))),
    el("h2", {}, "Files per bucket and LSM level"),
    el("table", { id: "files" }, el("tr", {}, ["partition", "bucket", "level", "files", "size", "records"].map((h) => el("th", {}, h))),
      data.files.map((f) => el("tr", {}, el("td", {}, f.partition), el("td", { class: "num" }, f.bucket),
        el("td", { class: "num" }, f.level), el("td", { class: "num" }, f.files), el("td", { class: "num" }, bytes(f.bytes)),
        el("td", { class: "num" }, f.records)))),
    el("h2", {}, "Consumers"),
    data.consumers.length ? el("table", { id: "consumers" }, el("tr", {}, el("th", {}, "consumer"), el("th", {}, "next snapshot"), el("th", {}, "behind")),
      data.consumers.map((c) => el("tr", {}, el("td", {}, c.id), el("td", { class: "num" }, c.nextSnapshot),
        el("td", { class: "num" }, c.snapshotsBehind)))) : el("p", { class: "muted" }, "No registered consumers pin snapshots."),
    el("h2", {}, "Rows"),
    el("p", {}, "Read at ", select, el("span", { class: "muted", id: "rows-snapshot" }, " snapshot " + (data.rowsSnapshot ?? "–"))),
    el("table", { id: "rows" }, el("tr", {}, data.columns.map((c) => el("th", {}, c))),
      data.rows.map((r) => el("tr", {}, data.columns.map((c) => el("td", {}, r[c] === null ? "∅" : String(r[c])))))));
}

// ---------------------------------------------------------------- dead letters

async function deadLettersPage(view) {
  const data = await api("dead-letters");
  const topics = Object.entries(data.topics);
  show(view, 
    el("h1", {}, "Dead letters"),
    el("p", { class: "muted" }, topics.length ? "Dead-letter topics: " + topics.map(([t, c]) => t + " (" + c + ")").join(", ")
      : "No connector has a dead-letter topic (errors.deadletterqueue.topic.name)."),
    data.problems.length ? el("div", { class: "card warning" }, data.problems.join("\n")) : null,
    el("table", { id: "dead-letters" },
      el("tr", {}, ["time", "from", "connector", "stage", "reason", "value", "dead-letter record"].map((h) => el("th", {}, h))),
      data.letters.map((d) => el("tr", { "data-origin": d.topic + "-" + d.partition + "@" + d.offset },
        el("td", {}, new Date(d.timestamp).toISOString()),
        el("td", {}, d.topic === null ? "(no context headers)" : `${d.topic} partition ${d.partition} offset ${d.offset}`),
        el("td", {}, d.connector || ""), el("td", {}, d.stage || ""),
        el("td", { class: "reason" }, (d.exceptionClass ? d.exceptionClass + ": " : "") + (d.reason || "")),
        el("td", {}, el("code", {}, d.valuePreview || "")),
        el("td", { class: "muted" }, `${d.dlqTopic}-${d.dlqPartition}@${d.dlqOffset}`)))));
}

// ---------------------------------------------------------------- connector

async function act(name, action) {
  try {
    const answer = await api(`connectors/${encodeURIComponent(name)}/${action}`,
      { method: "POST", headers: { "X-Changelake-Action": "1" } });
    lastAction = { connector: name, text: answer.message, refused: false };
  } catch (e) {
    lastAction = { connector: name, text: e.message, refused: true };
  }
  refresh();
}

async function connectorPage(view, name) {
  const c = await api("connectors/" + encodeURIComponent(name));
  const result = lastAction && lastAction.connector === name ? lastAction : null;
  show(view, 
    el("h1", {}, name),
    el("div", { class: "card" }, el("span", { class: "muted" }, c.role + " · " + c.connectorClass), " ",
      el("span", { id: "connector-state" }, stateSpan(c.state)), el("span", { class: "muted" }, " on " + c.worker),
      c.trace ? el("pre", { class: "trace" }, c.trace) : null),
    el("div", { class: "card" },
      ["pause", "resume", "restart"].map((a) => el("button", { id: "action-" + a, onclick: () => act(name, a) }, a)),
      el("span", { class: "muted" }, c.actionsEnabled ? "actions enabled" : "read-only console: actions are refused"),
      result ? el("div", { id: "action-result", class: result.refused ? "warning" : "" }, result.text) : null),
    el("h2", {}, "Tasks"),
    el("table", { id: "tasks" }, el("tr", {}, el("th", {}, "task"), el("th", {}, "state"), el("th", {}, "worker")),
      c.tasks.map((t) => [el("tr", {}, el("td", {}, t.id), el("td", {}, stateSpan(t.state)), el("td", {}, t.worker)),
        t.trace ? el("tr", {}, el("td", { colspan: 3 }, el("pre", { class: "trace" }, t.trace))) : null])),
    el("h2", {}, "Topics"), el("p", {}, c.topics.join(", ") || "none yet"),
    el("h2", {}, "Configuration"),
    el("table", { id: "config" }, el("tr", {}, el("th", {}, "key"), el("th", {}, "value")),
      c.config.map((e) => el("tr", { "data-key": e.key }, el("td", {}, e.key),
        el("td", { class: e.masked ? "muted" : "" }, e.value)))));
}

// ---------------------------------------------------------------- routing

function route() {
  const parts = (location.hash || "#/pipelines").substring(2).split("/").map(decodeURIComponent);
  for (const a of document.querySelectorAll("header nav a")) a.classList.remove("active");
  const nav = { pipelines: "nav-pipelines", tables: "nav-tables", table: "nav-tables", "dead-letters": "nav-dead-letters" }[parts[0]];
  if (nav) document.getElementById(nav).classList.add("active");
  const view = document.getElementById("view");
  switch (parts[0]) {
    case "tables": return tablesPage(view);
    case "table": return tablePage(view, parts[1], parts[2]);
    case "dead-letters": return deadLettersPage(view);
    case "connector": return connectorPage(view, parts[1]);
    default: return pipelinesPage(view);
  }
}

async function refresh() {
  clearTimeout(timer);
  try {
    await route();
    showError(null);
    document.getElementById("updated").textContent = "updated " + new Date().toLocaleTimeString();
  } catch (e) {
    showError(e.message);
  }
  timer = setTimeout(refresh, POLL_MS);
}

window.addEventListener("hashchange", refresh);
window.addEventListener("DOMContentLoaded", async () => {
  try {
    info = await api("info");
    document.getElementById("mode").textContent = info.actionsEnabled ? "actions enabled" : "read-only";
  } catch (e) {
    showError(e.message);
  }
  refresh();
});
