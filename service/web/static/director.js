// The director's actions on the game and tournament pages: each form goes to the API
// with fetch, the write key (typed once, kept in this tab's sessionStorage under the
// same name the upload and sheet pages use) sent as a Bearer header.  No cookie carries
// the key, so another site's page cannot send these requests on the director's behalf.
// The answer is said in words (the problem's detail when refused); after a change the
// page is loaded again, to show the state the server now holds, and says what was done.
// The answer is a live region that gets the focus once an action is done, so that it is
// heard and read at once; it is cleared when a form is changed or another action starts,
// never left over from the last one.  An action that withdraws a game or a ruling, or
// restores a withdrawn game, asks first (dismissed, nothing is sent).

const API = document.body.dataset.api;
const PAGES = document.body.dataset.root;
const KEY = "rummy-audit.api-key";
const SAID = "rummy-audit.director-said";
const answer = document.getElementById("director-answer");
const keyField = document.getElementById("director-key");

if (keyField) {
  keyField.value = sessionStorage.getItem(KEY) ?? "";
  keyField.addEventListener("input", () => {
    if (keyField.value) sessionStorage.setItem(KEY, keyField.value);
    else sessionStorage.removeItem(KEY);
  });
}

function key() {
  return keyField ? keyField.value.trim() : "";
}

function headers(type) {
  const out = { Accept: "application/json" };
  if (type) out["Content-Type"] = type;
  if (key()) out.Authorization = `Bearer ${key()}`;
  return out;
}

if (answer) answer.tabIndex = -1;  // focusable by the page, not a stop of Tab

function say(text, refused, state) {
  if (!answer) return;
  answer.textContent = text;
  answer.classList.toggle("error", Boolean(refused));
  answer.dataset.state = state ?? (refused ? "refused" : "done");
}

/** An action's outcome: said, and the focus moved to it. */
function tell(text, refused) {
  say(text, refused);
  answer?.focus();
}

/** The last answer, once the director moves on (not while an action is under way). */
function forget() {
  if (!answer || answer.dataset.state === "sending") return;
  answer.textContent = "";
  answer.classList.remove("error");
  delete answer.dataset.state;
}

/** Why the server refused, in words. */
function problemText(body, status) {
  if (status === 401) {
    return key()
      ? "the server did not take the key it was sent: check the write key field"
      : "this server needs a write key for the director's actions: type it in the write key field, then try again";
  }
  if (status === 403) return "the key typed is not one of this server's write keys: check it, then try again";
  if (body && typeof body === "object") {
    const said = [body.detail, body.title].find((text) => typeof text === "string" && text.trim());
    const fields = body.errors && typeof body.errors === "object"
      ? Object.entries(body.errors).map(([k, v]) => `${k}: ${Array.isArray(v) ? v.join(" ") : JSON.stringify(v)}`).join("; ")
      : "";
    const text = said ?? `the server answered ${status}`;
    return fields && !text.includes(fields) ? `${text} (${fields})` : text;
  }
  return `the server answered ${status}`;
}

async function call(method, path, body, type) {
  const response = await fetch(`${API}${path}`, { method, body, headers: headers(type) });
  const text = await response.text();
  let parsed = null;
  try { parsed = JSON.parse(text); } catch { /* not JSON */ }
  return { ok: response.ok, status: response.status, body: parsed };
}

const game = (id) => `/games/${encodeURIComponent(id)}`;
const short = (id) => id.slice(0, 12);
// A reason in its own bidirectional isolate (first strong isolate ... pop), so that a
// right-to-left reason leaves the sentence around it in order.
const QUERY_ROOM = 7000;  // bytes of a correction's query: the request line's limit, less the path
const isolated = (text) => `\u2068${text}\u2069`;

/** Done: said again on the page loaded next (here, or at ``target``). */
function done(text, target) {
  sessionStorage.setItem(SAID, text);
  if (target) location.assign(target);
  else location.reload();
}

const ACTIONS = {
  async ruling(form) {
    const ruling = form.elements.ruling.value;
    const body = { ruling, reason: form.elements.reason.value.trim() };
    if (ruling === "forfeit") body.against = form.elements.against.value;
    const id = form.dataset.game;
    const r = await call("PUT", `${game(id)}/ruling`, JSON.stringify(body), "application/json");
    if (!r.ok) return problemText(r.body, r.status);
    const inForce = r.body.ruling;
    done(`Recorded on game ${short(id)}: ${inForce.ruling}${inForce.against ? ` against ${inForce.against}` : ""} (reason: ${isolated(inForce.reason)}).`);
    return null;
  },
  async unrule(form) {
    const id = form.dataset.game;
    const r = await call("DELETE", `${game(id)}/ruling`,
      JSON.stringify({ reason: form.elements.reason.value.trim() }), "application/json");
    if (!r.ok) return problemText(r.body, r.status);
    done(`The ruling on game ${short(id)} is withdrawn: its matter is open again.`);
    return null;
  },
  async withdraw(form) {
    const id = form.dataset.game;
    const reason = form.elements.reason.value.trim();
    const r = await call("DELETE", game(id), JSON.stringify({ reason }), "application/json");
    if (!r.ok) return problemText(r.body, r.status);
    const text = `Game ${short(id)} is withdrawn (reason: ${isolated(r.body.reason ?? reason)}); it no longer counts anywhere.`;
    const panel = document.getElementById("director");
    const back = panel?.dataset.tournament;
    // Back to its tournament (which stays readable when that was its last game).
    if (back) return done(text, back);
    tell(text, false);
    panel?.querySelectorAll("button").forEach((b) => { b.disabled = true; });
    return null;
  },
  async replace(form) {
    const id = form.dataset.game;
    const file = form.elements.log.files[0];
    const reason = form.elements.reason.value.trim();
    const query = new URLSearchParams({ replaces: id, reason });
    if (form.elements.relocate?.checked) query.set("relocate", "true");
    // A correction's reason rides in the query, and a request line holds about 8,000
    // bytes: a long reason in a script of several bytes a character does not fit.
    if (query.toString().length > QUERY_ROOM) {
      return `the reason is too long to go with a correction (${query.toString().length} bytes once encoded, at most ${QUERY_ROOM}): shorten it, or send the correction as a line of a batch (POST /api/v1/games/batch), whose reason rides in the body`;
    }
    const r = await call("POST", `/games?${query}`, await file.text(), "application/json");
    if (!r.ok) return problemText(r.body, r.status);
    const words = { valid: "valid", mismatch: "with wrong claims", illegal: "illegal", incomplete: "unfinished" };
    done(`Game ${short(id)} is replaced by game ${short(r.body.id)} (${words[r.body.status] ?? r.body.status}; reason: ${isolated(reason)}).`,
      `${PAGES}/games/${encodeURIComponent(r.body.id)}`);
    return null;
  },
  async restore(form) {
    const id = form.dataset.game;
    const reason = form.elements.reason.value.trim();
    const r = await call("POST", `${game(id)}/restore`, JSON.stringify({ reason }), "application/json");
    if (!r.ok) return `nothing changed: ${problemText(r.body, r.status)}`;
    let text = `Game ${short(id)} is restored (reason: ${isolated(r.body.reason)}): it counts again.`;
    if (r.body.warning) {
      text += ` Its round and table are re-entered: ${r.body.at_table.map(short).join(", ")} ${r.body.at_table.length === 1 ? "holds" : "hold"} it too, and the table counts for nothing until one game is kept.`;
    }
    // From the tournament's list, its page again (the table's state); else the game's.
    done(text, "stay" in form.dataset ? undefined : `${PAGES}/games/${encodeURIComponent(id)}`);
    return null;
  },
  async keep(form, submitter) {
    const kept = submitter?.value;
    if (!kept) return "choose the game to keep";
    const reason = form.elements.reason.value.trim();
    const { tournament, round, table } = form.dataset;
    // One request: the other copies are withdrawn together, or none of them.
    const path = `/tournaments/${encodeURIComponent(tournament)}/tables/${encodeURIComponent(round)}/${encodeURIComponent(table)}/keep`;
    const r = await call("POST", path, JSON.stringify({ game: kept, reason }), "application/json");
    if (!r.ok) return `nothing was withdrawn: ${problemText(r.body, r.status)}`;
    const withdrawn = r.body.withdrawn.map((w) => short(w.id));
    done(`Kept game ${short(kept)}; withdrawn: ${withdrawn.join(", ") || "none"} (reason: ${isolated(reason)}).`);
    return null;
  },
};

/** The question an action that withdraws a game or a ruling, or restores a game, asks
 * first, in words; none for the others. */
const QUESTIONS = {
  restore(form) {
    return `Restore game ${short(form.dataset.game)}? It counts again in the standings, statistics and ratings (its withdrawal stays on record).`;
  },
  unrule(form) {
    return `Withdraw the ruling on game ${short(form.dataset.game)}? Its matter is open again.`;
  },
  withdraw(form) {
    return `Withdraw game ${short(form.dataset.game)}? It no longer counts anywhere (it stays readable as withdrawn).`;
  },
  replace(form) {
    const file = form.elements.log.files[0];
    return `Replace game ${short(form.dataset.game)} by the log in ${file ? file.name : "the file chosen"}? This game is withdrawn.`;
  },
  keep(form, submitter) {
    const kept = submitter?.value;
    if (!kept) return null;
    const others = (form.dataset.games ?? "").split(" ").filter((id) => id && id !== kept).map(short);
    return `Keep game ${short(kept)} and withdraw ${others.length === 1 ? "game" : "games"} ${others.join(", ") || "none"}? The ${others.length === 1 ? "other copy no longer counts" : "other copies no longer count"}.`;
  },
};

function showAgainst(form) {
  const line = form.querySelector(".against-line");
  if (line) line.hidden = form.elements.ruling.value !== "forfeit";
}

for (const form of document.querySelectorAll("form.director-form")) {
  form.querySelectorAll("button").forEach((b) => { b.disabled = false; });
  if (form.dataset.action === "ruling") {
    showAgainst(form);
    form.elements.ruling.addEventListener("change", () => showAgainst(form));
  }
  form.addEventListener("input", forget);
  form.addEventListener("change", forget);
  form.addEventListener("submit", async (event) => {
    event.preventDefault();
    forget();
    if (keyField && !key()) {
      say("This server needs a write key for the director's actions: type it in the write key field, then try again.", true);
      keyField.focus();
      return;
    }
    const reason = form.elements.reason;
    if (reason && !reason.value.trim()) {
      say("Every action of the director needs a reason: type it, then try again.", true);
      reason.focus();
      return;
    }
    const question = QUESTIONS[form.dataset.action]?.(form, event.submitter);
    if (question && !window.confirm(question)) return;  // dismissed: nothing is sent
    const buttons = [...form.querySelectorAll("button")];
    buttons.forEach((b) => { b.disabled = true; });
    say("Sending…", false, "sending");
    let refused;
    try {
      refused = await ACTIONS[form.dataset.action](form, event.submitter);
    } catch (error) {
      refused = `the server could not be reached${error && error.message ? ` (${error.message})` : ""}`;
    }
    if (refused) {
      buttons.forEach((b) => { b.disabled = false; });
      tell(`Refused: ${refused}.`, true);
    }
  });
}
keyField?.addEventListener("input", forget);

document.querySelectorAll("[data-director-nojs]").forEach((note) => note.remove());
const said = sessionStorage.getItem(SAID);
if (said && answer) {
  sessionStorage.removeItem(SAID);
  tell(said, false);
}
