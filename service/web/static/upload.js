// Upload page: each chosen or dropped file goes to the API as it is: a JSON log to
// POST /api/v1/games, an NDJSON batch to POST /api/v1/games/batch (read line by line as
// the server streams it back).  "Check only" sends each game with ?dry_run=true.  The
// API key, when one is given, stays in this tab's sessionStorage.  A file that is not
// text, or larger than the server takes (its limits are in the form's data), is refused
// here, before anything is sent.  Files are sent one after another, each once.

const API = document.body.dataset.api;
const $ = (id) => document.getElementById(id);
const KEY = "rummy-audit.api-key";
const WORDS = { valid: "valid", mismatch: "claims wrong", illegal: "illegal", incomplete: "unfinished" };
const SIGNS = { valid: "✔", mismatch: "≠", illegal: "✘", incomplete: "…" };
const PAGES = document.body.dataset.root;
const FORM = document.getElementById("upload").dataset;
const MAX_GAME = Number(FORM.maxGameBytes);
const MAX_BATCH = Number(FORM.maxBatchBytes);
const KEY_NEEDED = FORM.keyNeeded === "true";
// How much of a game was checked, in words, by the answer's verification level.
const LEVEL_WORDS = JSON.parse(FORM.levels || "{}");
const STATUS_WORDS = { valid: "valid", mismatch: "with wrong claims", illegal: "illegal", incomplete: "unfinished" };

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

/** A game with deals recorded by their result (a score sheet) had its play unchecked:
 * a short mark beside its verdict, with the words for a screen reader and on hover;
 * nothing for a game whose every move was checked. */
function levelMark(level) {
  if (!level || level === "moves") return null;
  const words = LEVEL_WORDS[level] ?? level;
  const span = el("span", "", `level level-${level}`);
  span.title = words;
  const shown = el("span", `· ${level === "results" ? "sheet" : "part sheet"}`);
  shown.setAttribute("aria-hidden", "true");
  span.append(shown, el("span", `(${words})`, "visually-hidden"));
  return span;
}

function plural(n, noun) {
  return `${n} ${noun}${n === 1 ? "" : "s"}`;
}

function bytes(n) {
  if (n >= 1 << 20) return `${(n / (1 << 20)).toFixed(1).replace(/\.0$/, "")} MiB`;
  if (n >= 1 << 10) return `${(n / (1 << 10)).toFixed(1).replace(/\.0$/, "")} KiB`;
  return plural(n, "byte");
}

/** Why the server refused, in words: what to do about a missing or wrong key, else the
 * problem's detail and its field errors; never an empty part. */
function problemText(body, status) {
  if (status === 401) {
    return keyField.value
      ? "the server did not take the key it was sent: check the API key field above"
      : "this server needs an API key to check or store a game: type it in the API key field above, then send the file again";
  }
  if (status === 403) return "the API key typed above is not one of this server's write keys: check it, then send the file again";
  if (status === 413) return "the file is larger than this server takes";
  if (body && typeof body === "object") {
    const said = [body.detail, body.title].find((text) => typeof text === "string" && text.trim());
    const fields = body.errors && typeof body.errors === "object"
      ? Object.entries(body.errors).map(([k, v]) => `${k} ${Array.isArray(v) ? v.join(" ") : JSON.stringify(v)}`).join("; ")
      : "";
    const text = said ?? `the server answered ${status}`;
    return fields ? `${text} (${fields})` : text;
  }
  return `the server answered ${status}`;
}

/** A refusal line: "name" then what happened, said once. */
function refusal(item, name, text) {
  item.dataset.status = "error";
  item.replaceChildren(el("strong", name), el("span", ` was refused: ${text}.`, "refused"));
}

function where(v) {
  if (v.deal === null) return "the game";
  return v.move === null ? `deal ${v.deal + 1}` : `deal ${v.deal + 1}, move ${v.move + 1}`;
}

/** How the log names its game, "" when it names none: its own id, then its
 * tournament, round and table ("log r5-t3 · spring-cup, round 5, table 3"). */
function gameName(result) {
  const parts = [];
  if (result.source_id) parts.push(`log ${result.source_id}`);
  const t = result.tournament;
  if (t) {
    const place = [t.id, t.round == null ? null : `round ${t.round}`, t.table == null ? null : `table ${t.table}`]
      .filter((part) => part != null && part !== "");
    if (place.length) parts.push(place.join(", "));
  }
  return parts.join(" · ");
}

/** One verdict: the status, each violation (a link into the viewer when stored), the
 * totals recomputed beside the claimed ones. */
function verdict(item, name, result) {
  item.replaceChildren();
  item.dataset.status = result.status;
  const head = el("p", "", "verdict-line");
  const named = gameName(result);
  head.append(el("strong", name));
  if (named) head.append(" (", el("span", named, "game-name"), ")");
  head.append(": ", badge(result.status));
  const mark = levelMark(result.verification);
  if (mark) head.append(" ", mark);
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

async function single(name, text, dryRun, list, tally) {
  const item = el("li", `${name}: checking…`);
  list.append(item);
  const answer = await send(`/games${dryRun ? "?dry_run=true" : ""}`, text, "application/json");
  if (!answer.ok) {
    refusal(item, name, problemText(answer.body, answer.status));
    tally.refused(dryRun && name.includes(", line ") ? "line" : "file");
    return;
  }
  verdict(item, name, answer.body);
  tally.game(answer.body.status);
}

async function batch(name, text, list, tally) {
  const response = await fetch(`${API}/games/batch`, { method: "POST", body: text, headers: headers("application/x-ndjson") });
  if (!response.ok) {
    let body = null;
    try { body = await response.json(); } catch { /* not JSON */ }
    const item = el("li");
    list.append(item);
    refusal(item, name, problemText(body, response.status));
    tally.refused("file");
    return;
  }
  const reader = response.body.getReader();
  const decoder = new TextDecoder();
  let buffer = "";
  const pending = [];
  const handle = (line) => {
    if (!line.trim()) return;
    const result = JSON.parse(line);
    const label = result.line === undefined || result.line === null ? name : `${name}, line ${result.line}`;
    const item = el("li", `${label}: checking…`);
    list.append(item);
    if (result.error) {
      refusal(item, label, problemText(result.error, result.error.status));
      tally.refused(result.line === undefined || result.line === null ? "file" : "line");
      return;
    }
    verdict(item, label, result);
    tally.game(result.status);
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

/** The counts of one upload, by kind: games checked by status, files and lines refused. */
function counter() {
  const games = {};
  const refused = {};
  return {
    game(status) { games[status] = (games[status] ?? 0) + 1; },
    refused(kind) { refused[kind] = (refused[kind] ?? 0) + 1; },
    text() {
      const checked = Object.values(games).reduce((a, b) => a + b, 0);
      const parts = Object.keys(STATUS_WORDS).filter((k) => games[k]).map((k) => `${games[k]} ${STATUS_WORDS[k]}`);
      const refusals = ["file", "line"].filter((k) => refused[k]).map((k) => `${plural(refused[k], k)} refused`);
      const head = `Done: ${plural(checked, "game")} checked${parts.length ? `: ${parts.join(", ")}` : ""}`;
      return `${[head, ...refusals].join(", ")}.`;
    },
  };
}

/** Why a file is not sent, or null: too large for the server, or not text (the page
 * sends text; a gzipped or binary file would be refused, or misread, by the server). */
function unsendable(file, data) {
  if (file.size > MAX_BATCH) {
    return `it is larger than ${bytes(MAX_BATCH)}, the most this server takes in a batch (${bytes(MAX_GAME)} in a single log)`;
  }
  if (data[0] === 0x1f && data[1] === 0x8b) return "it is gzip-compressed; this page sends text: unpack it first (or send it with curl, as the README shows)";
  if (data.includes(0)) return "it is not a text file (a game log is JSON text, a batch NDJSON text)";
  try {
    new TextDecoder("utf-8", { fatal: true }).decode(data);
  } catch {
    return "it is not UTF-8 text (a game log is JSON text, a batch NDJSON text)";
  }
  return null;
}

async function sendFile(file, dryRun, list, tally) {
  const refuse = (why) => {
    const item = el("li");
    list.append(item);
    refusal(item, file.name, why);
    tally.refused("file");
  };
  if (file.size > MAX_BATCH) return refuse(unsendable(file, new Uint8Array()));
  const data = new Uint8Array(await file.arrayBuffer());
  const why = unsendable(file, data);
  if (why) return refuse(why);
  const text = new TextDecoder().decode(data);
  if (isBatch(file.name, text)) {
    if (!dryRun) return batch(file.name, text, list, tally);
    const lines = text.split("\n").filter((line) => line.trim());
    for (const [i, line] of lines.entries()) {
      const name = `${file.name}, line ${i + 1}`;
      const size = new TextEncoder().encode(line).length;
      if (size > MAX_GAME) {
        const item = el("li");
        list.append(item);
        refusal(item, name, `it is larger than ${bytes(MAX_GAME)}, the most this server takes in a log`);
        tally.refused("line");
      } else await single(name, line, true, list, tally);
    }
    return undefined;
  }
  if (file.size > MAX_GAME) {
    return refuse(`it is larger than ${bytes(MAX_GAME)}, the most this server takes in a single log (a batch, one game a line, may be up to ${bytes(MAX_BATCH)})`);
  }
  return single(file.name, text, dryRun, list, tally);
}

async function upload(files) {
  const list = $("results");
  const dryRun = $("dry-run").checked;
  const state = $("upload-state");
  const tally = counter();
  state.textContent = `Verifying ${plural(files.length, "file")}…`;
  for (const file of files) {
    try {
      await sendFile(file, dryRun, list, tally);
    } catch (error) {
      const item = el("li");
      list.append(item);
      const reason = error && error.message ? ` (${error.message})` : "";
      item.dataset.status = "error";
      item.replaceChildren(el("strong", file.name), el("span", ` was not sent: the server could not be reached${reason}.`, "refused"));
      tally.refused("file");
    }
  }
  state.textContent = tally.text();
}

// One gesture, one upload: the files of a drop or a choice are queued and sent one
// after another, and a gesture seen twice (a drop that also reaches the file field,
// which then reports a change of the same files) sends its files once.  Two choices,
// or two drops, are two gestures, however close.
let queue = Promise.resolve();
let last = { files: [], at: 0, source: "" };
function start(files, source) {
  if (!files.length) return;
  const same = files.length === last.files.length && files.every((f, i) => {
    const g = last.files[i];
    return f === g || (f.name === g.name && f.size === g.size && f.lastModified === g.lastModified);
  });
  const echo = same && source !== last.source && performance.now() - last.at < 1000;
  last = { files, at: performance.now(), source };
  if (echo) return;
  queue = queue.then(() => upload(files));
}

if (KEY_NEEDED && !keyField.value) {
  $("key-note").textContent = "This server needs an API key to check or store games. It is kept in this browser tab only (session storage), sent only to this server.";
}

$("files").addEventListener("change", (event) => {
  start([...event.target.files], "choice");
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
  event.stopPropagation();
  start([...event.dataTransfer.files], "drop");
});
