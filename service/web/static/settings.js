// Tournament settings page: the form is sent as JSON to PUT /api/v1/tournaments/{id}/settings
// with the write key as a Bearer header.  The key is kept in this tab's sessionStorage under
// the upload page's name, so it is typed once per tab.  A refusal shows the API's problem.

const KEY = "rummy-audit.api-key";
const $ = (id) => document.getElementById(id);
const form = $("settings-form");
const result = $("settings-result");
const keyField = $("api-key");

keyField.value = sessionStorage.getItem(KEY) ?? "";
keyField.addEventListener("input", () => {
  if (keyField.value) sessionStorage.setItem(KEY, keyField.value);
  else sessionStorage.removeItem(KEY);
});

function text(id) {
  const value = $(id).value.trim();
  return value === "" ? null : value;
}

// The schedule's text area: one table a line, "round, table, player, player…", and
// "| not played: why" after a table that was not played; blank lines are skipped.
// Each entry remembers its line, so that the API's errors (schedule.<n>.<field>) and
// the page's own are shown by line.
const scheduleErrors = $("s-schedule-errors");

function readSchedule() {
  const entries = [];
  const lines = [];
  const errors = [];
  $("s-schedule").value.split("\n").forEach((raw, index) => {
    const line = raw.trim();
    if (line === "") return;
    const [table, ...rest] = line.split("|");
    const parts = table.split(",").map((part) => part.trim());
    const entry = { round: /^[0-9]+$/.test(parts[0]) ? Number(parts[0]) : parts[0],
      table: parts[1] ?? "", players: parts.slice(2) };
    if (rest.length) {
      const note = rest.join("|").trim();
      const match = /^not played:\s*(.*)$/i.exec(note);
      if (!match) errors.push([index + 1, `after "|" write "not played: the reason"`]);
      else entry.not_played = match[1].trim();
    }
    if (typeof entry.round !== "number") errors.push([index + 1, "the round is a whole number"]);
    entries.push(entry);
    lines.push(index + 1);
  });
  return { entries, lines, errors };
}

function showScheduleErrors(items) {
  scheduleErrors.replaceChildren(...items.map(([line, message]) => {
    const item = document.createElement("li");
    item.textContent = line === null ? message : `line ${line}: ${message}`;
    if (line !== null) item.dataset.line = String(line);
    return item;
  }));
}

/** The API's errors on the schedule, by line of the text area. */
function scheduleProblems(problem, lines) {
  const out = [];
  for (const [path, messages] of Object.entries(problem.errors ?? {})) {
    const match = /^schedule(?:\.([0-9]+)(?:\.(.*))?)?$/.exec(path);
    if (!match) continue;
    const text = [].concat(messages).join("; ");
    if (match[1] === undefined) out.push([null, `the schedule: ${text}`]);
    else out.push([lines[Number(match[1])] ?? null, match[2] ? `${match[2]}: ${text}` : text]);
  }
  return out;
}

function body(schedule) {
  const out = {
    name: text("s-name"),
    venue: text("s-venue"),
    ranking: $("s-ranking").value,
    match_points: Object.fromEntries(["win", "draw", "loss"].map(
      (part) => [part, Number($(`s-mp-${part}`).value)])),
    tie_breaks: [...form.querySelectorAll("select.tie-break")].map((s) => s.value).filter((v) => v),
    public: $("s-public").checked,
  };
  const start = text("s-start");
  const end = text("s-end");
  if (start !== null || end !== null) out.dates = { start, end };
  if (schedule.entries.length) out.schedule = schedule.entries;
  return out;
}

function problemText(problem, status) {
  const lines = [`Refused (HTTP ${status}): ${problem.detail ?? problem.title ?? "no detail"}`];
  for (const [field, messages] of Object.entries(problem.errors ?? {})) {
    lines.push(`${field}: ${[].concat(messages).join("; ")}`);
  }
  return lines.join("\n");
}

// What the message says holds for the form as it was sent: an edit made while it is on
// its way, or after its answer, is said to be not saved yet (a refusal stays readable,
// marked as the answer to the form before the edit).
let state = "idle";  // "sending", "saved", "refused"
let editedWhileSending = false;
let refusal = "";

function markChanged() {
  if (state === "sending") {
    editedWhileSending = true;
  } else if (state === "saved") {
    state = "idle";
    result.className = "";
    result.textContent = "Changed since it was saved: not saved yet.";
  } else if (state === "refused") {
    state = "idle";
    result.className = "error stale";
    result.textContent = `Changed since it was refused: not sent yet. The refusal was:\n${refusal}`;
  }
}

form.addEventListener("input", (event) => {
  if (event.target !== keyField) markChanged();
});

form.addEventListener("submit", async (event) => {
  event.preventDefault();
  if (state === "sending") return;  // one save at a time: its answer says what was kept
  result.className = "";
  const schedule = readSchedule();
  showScheduleErrors(schedule.errors);
  if (schedule.errors.length) {
    state = "idle";
    result.className = "error";
    result.textContent = "Not sent: the schedule has lines that cannot be read (listed under it).";
    return;
  }
  state = "sending";
  editedWhileSending = false;
  result.textContent = "Saving…";
  const headers = { "Content-Type": "application/json", Accept: "application/json" };
  if (keyField.value) headers.Authorization = `Bearer ${keyField.value}`;
  let response;
  try {
    response = await fetch(form.dataset.url, { method: "PUT", headers, body: JSON.stringify(body(schedule)) });
  } catch (error) {
    state = "idle";
    result.className = "error";
    result.textContent = `Not sent: ${error.message}`;
    return;
  }
  const answer = await response.json().catch(() => ({}));
  const changed = editedWhileSending;
  if (response.ok) {
    const saved = `Saved${answer.updated_by ? ` by ${answer.updated_by}` : ""}`;
    state = changed ? "idle" : "saved";
    result.className = changed ? "" : "saved";
    result.textContent = changed
      ? `${saved}, as it was sent; changed while it was saving: not saved yet.` : `${saved}.`;
  } else {
    refusal = problemText(answer, response.status);
    state = changed ? "idle" : "refused";
    result.className = changed ? "error stale" : "error";
    result.textContent = changed
      ? `Changed since it was sent: not sent yet. The refusal was:\n${refusal}` : refusal;
    showScheduleErrors(scheduleProblems(answer, schedule.lines));
  }
});
