// Upload page: each chosen or dropped file goes to the API as it is: a JSON log to
// POST /api/v1/games, an NDJSON batch to POST /api/v1/games/batch (read line by line as
// the server streams it back).  "Check only" sends each game with ?dry_run=true.  The
// API key, when one is given, stays in this tab's sessionStorage.

const API = document.body.dataset.api;
const $ = (id) => document.getElementById(id);
const KEY = "rummy-audit.api-key";
const WORDS = { valid: "valid", mismatch: "claims wrong", illegal: "illegal", incomplete: "unfinished" };
const SIGNS = { valid: "✔", mismatch: "≠", illegal: "✘", incomplete: "…" };
const PAGES = document.body.dataset.root;

const keyField = $("api-key");
keyField.value = sessionStorage.getItem(KEY) ?? "";
keyField.addEventListener("input", () => {
  if (keyField.value) sessionStorage.setItem(KEY, keyField.value);
  else sessionStorage.removeItem(KEY);
});

function headers(type) {
  const out = { "Content-Type": type, Accept: "application/json, application/x-ndjson" };
  if (keyField.value) out.Authorization = `Bearer ${keyField.value}`;
  return out;
}

function el(tag, text, className) {
  const node = document.createElement(tag);
  if (text !== undefined) node.textContent = text;
  if (className) node.className = className;
  return node;
}

function badge(status) {
  const span = el("span", "", `status status-${status}`);
  span.append(el("span", SIGNS[status] ?? "?"), ` ${WORDS[status] ?? status}`);
  span.firstChild.setAttribute("aria-hidden", "true");
  return span;
}

function problemText(body, status) {
  if (body && typeof body === "object") {
    const fields = body.errors ? Object.entries(body.errors).map(([k, v]) => `${k}: ${v.join(" ")}`).join("; ") : "";
    return `${body.detail ?? body.title ?? status}${fields ? ` (${fields})` : ""}`;
  }
  return `HTTP ${status}`;
}

function where(v) {
  if (v.deal === null) return "the game";
  return v.move === null ? `deal ${v.deal + 1}` : `deal ${v.deal + 1}, move ${v.move + 1}`;
}

/** One verdict: the status, each violation (a link into the viewer when stored), the
 * totals recomputed beside the claimed ones. */
function verdict(item, name, result) {
  item.replaceChildren();
  item.dataset.status = result.status;
  const head = el("p", "", "verdict-line");
  head.append(el("strong", `${name}: `), badge(result.status));
  const id = result.id;
  if (id && !result.dry_run) {
    const link = el("a", ` game ${id.slice(0, 12)}`, "game-link");
    link.href = `${PAGES}/games/${encodeURIComponent(id)}`;
    head.append(" ·", link, result.created === false ? " (stored before)" : "");
  } else if (result.dry_run) {
    head.append(" · checked only, not stored");
  }
  item.append(head);
  const report = result.report;
  if (!report) return;
  if (report.violations.length) {
    const list = el("ul", undefined, "violations");
    for (const v of report.violations.slice(0, 5)) {
      const li = el("li");
      if (id && !result.dry_run && v.deal !== null) {
        const a = el("a", where(v));
        a.href = `${PAGES}/games/${encodeURIComponent(id)}/replay#deal=${v.deal + 1}&move=${v.move === null ? 0 : v.move + 1}`;
        li.append(a);
      } else li.append(where(v));
      li.append(": ", el("code", v.code), ` ${v.message}`);
      list.append(li);
    }
    if (report.violations.length > 5) list.append(el("li", `and ${report.violations.length - 5} more`));
    item.append(list);
  }
  const totals = report.totals;
  const claimed = totals.claimed?.totals ?? {};
  const parts = Object.entries(totals.points).map(([player, points]) =>
    player in claimed && claimed[player] !== points ? `${player} ${points} (claimed ${claimed[player]})` : `${player} ${points}`);
  const legal = report.status === "valid" || report.status === "mismatch";
  item.append(el("p", `${legal ? "Totals" : "Points of scored deals (no result)"}: ${parts.join(", ")}${legal && totals.winner ? ` · winner ${totals.winner}` : ""}`, "totals-line"));
}

async function send(path, body, type) {
  const response = await fetch(`${API}${path}`, { method: "POST", body, headers: headers(type) });
  const text = await response.text();
  let parsed = null;
  try { parsed = JSON.parse(text); } catch { /* not JSON */ }
  return { ok: response.ok, status: response.status, body: parsed };
}

async function single(name, text, dryRun, list) {
  const item = el("li", `${name}: checking…`);
  list.append(item);
  const answer = await send(`/games${dryRun ? "?dry_run=true" : ""}`, text, "application/json");
  if (!answer.ok) {
    item.dataset.status = "error";
    item.replaceChildren(el("strong", `${name}: `), el("span", `refused: ${problemText(answer.body, answer.status)}`, "refused"));
    return;
  }
  verdict(item, name, answer.body);
}

async function batch(name, text, list) {
  const response = await fetch(`${API}/games/batch`, { method: "POST", body: text, headers: headers("application/x-ndjson") });
  if (!response.ok) {
    let body = null;
    try { body = await response.json(); } catch { /* not JSON */ }
    list.append(el("li", `${name}: refused: ${problemText(body, response.status)}`, "refused"));
    return;
  }
  const reader = response.body.getReader();
  const decoder = new TextDecoder();
  let buffer = "";
  const pending = [];
  const handle = (line) => {
    if (!line.trim()) return;
    const result = JSON.parse(line);
    const label = `${name}, line ${result.line ?? "?"}`;
    const item = el("li", `${label}: ${result.status ?? "…"}`);
    list.append(item);
    if (result.error) {
      item.dataset.status = "error";
      item.replaceChildren(el("strong", `${label}: `), el("span", `refused: ${problemText(result.error, result.error.status)}`, "refused"));
      return;
    }
    verdict(item, label, result);
    pending.push(fetch(`${API}/games/${encodeURIComponent(result.id)}`, { headers: headers("application/json") })
      .then((r) => (r.ok ? r.json() : null))
      .then((game) => { if (game) verdict(item, label, { ...result, report: game.report }); }));
  };
  for (;;) {
    const { value, done } = await reader.read();
    if (done) break;
    buffer += decoder.decode(value, { stream: true });
    const lines = buffer.split("\n");
    buffer = lines.pop();
    lines.forEach(handle);
  }
  handle(buffer);
  await Promise.all(pending);
}

function isBatch(name, text) {
  if (/\.(ndjson|jsonl)$/i.test(name)) return true;
  const lines = text.split("\n").filter((line) => line.trim());
  return lines.length > 1 && lines.every((line) => line.trim().startsWith("{") && line.trim().endsWith("}"));
}

async function upload(files) {
  const list = $("results");
  const dryRun = $("dry-run").checked;
  const state = $("upload-state");
  state.textContent = `Verifying ${files.length} file${files.length === 1 ? "" : "s"}…`;
  for (const file of files) {
    const text = await file.text();
    try {
      if (isBatch(file.name, text)) {
        if (dryRun) {
          const lines = text.split("\n").filter((line) => line.trim());
          for (const [i, line] of lines.entries()) await single(`${file.name}, line ${i + 1}`, line, true, list);
        } else await batch(file.name, text, list);
      } else await single(file.name, text, dryRun, list);
    } catch (error) {
      list.append(el("li", `${file.name}: ${error.message}`, "refused"));
    }
  }
  state.textContent = `Done: ${list.children.length} verdict${list.children.length === 1 ? "" : "s"}.`;
}

$("files").addEventListener("change", (event) => {
  upload([...event.target.files]);
  event.target.value = "";
});
const drop = $("drop");
for (const name of ["dragenter", "dragover"]) {
  drop.addEventListener(name, (event) => { event.preventDefault(); drop.classList.add("over"); });
}
for (const name of ["dragleave", "drop"]) {
  drop.addEventListener(name, () => drop.classList.remove("over"));
}
drop.addEventListener("drop", (event) => {
  event.preventDefault();
  upload([...event.dataTransfer.files]);
});
