// Score-sheet page: the sheet typed in the table is written as a rummy-log/1 game whose
// deals carry their `result` (who knocked, went gin or went out, the hand values) and
// the figures the sheet claims (each deal's points, the running totals, the final
// totals).  After every change the game so far goes to the API's dry run
// (POST /api/v1/games?dry_run=true) and the engine's verdict is written under the line
// it concerns, in words; the page itself judges nothing but what is missing from a line.
// "Store" posts the same document without the dry run; "Download" saves it.
// Gin is kept for two, three or four (the variant's choice says which): at three each
// line names who sat out, at four which pair played (partners sit opposite, players 1
// and 3 against 2 and 4), and the running totals are the teams'.  Which pair should play
// is the engine's to say (WRONG_SEATING), as every other rule.

const API = document.body.dataset.api;
const PAGES = document.body.dataset.root;
const $ = (id) => document.getElementById(id);
const KEY = "rummy-audit.api-key";
const SETUP = $("setup").dataset;
const MAX_GAME = Number(SETUP.maxGameBytes);
const VARIANTS = Object.fromEntries(JSON.parse($("sheet-variants").textContent).map((v) => [v.name, v]));
const STATUS_WORDS = {
  valid: "valid: every figure agrees with the rules",
  mismatch: "claims wrong: a figure written differs from the one the rules give",
  illegal: "illegal: a line breaks a rule",
  incomplete: "unfinished: the game has not reached its end yet",
};
const SIGNS = { ok: "✔", mismatch: "≠", illegal: "✘", pending: "…", waiting: "·" };
const ENDS = {
  gin: [["knock", "knock"], ["gin", "gin"], ["big_gin", "big gin"], ["void", "void deal"]],
  rummy: [["out", "went out"], ["rummy", "rummy"], ["blocked", "blocked"]],
};

const keyField = $("api-key");
keyField.value = sessionStorage.getItem(KEY) ?? "";
keyField.addEventListener("input", () => {
  if (keyField.value) sessionStorage.setItem(KEY, keyField.value);
  else sessionStorage.removeItem(KEY);
  schedule();
});

function el(tag, text, className) {
  const node = document.createElement(tag);
  if (text !== undefined) node.textContent = text;
  if (className) node.className = className;
  return node;
}

// ------------------------------------------------------------------ the game's setup

let rows = [];        // each deal as typed: {pair, dealer, end, by, upcard, value[], points[], total[], team[], games[3][]}
let final = { total: [], team: [], winner: "" };

// The variant field's value: a preset's name, or for gin at three or four `gin:3`, `gin:4`.
function choice() {
  const [name, count] = $("variant").value.split(":");
  return { name, count: count ? Number(count) : null };
}
function variant() { return VARIANTS[choice().name]; }
function isGin() { return variant().family === "gin"; }
/** The players of a gin table (2, 3 or 4); 0 in the Rummy family (the names typed). */
function ginSize() { return isGin() ? choice().count ?? 2 : 0; }
/** Three- and four-player gin: each deal is played by a pair, which the line names. */
function paired() { return ginSize() > 2; }
function partnership() { return ginSize() === 4; }
function option(name) {
  const field = $(`opt-${name}`);
  return field ? field.value.trim() : "";
}
// Hollywood is for two (the engine refuses it at three or four, and says so).
function hollywood() { return ginSize() === 2 && option("hollywood") === "yes"; }
function oklahoma() { return isGin() && option("oklahoma") === "yes"; }

/** The seats shown for the variant, and the names typed in them (blank ones too). */
function shownSeats() { return isGin() ? ginSize() : variant().max_players; }
function seats() {
  const shown = shownSeats();
  return [...document.querySelectorAll(".player-field")].slice(0, shown)
    .map((p) => p.querySelector("input").value.trim());
}
function players() { return seats().filter((name) => name !== ""); }

function showSeats() {
  const shown = shownSeats();
  document.querySelectorAll(".player-field").forEach((p, i) => { p.hidden = i >= shown; });
  $("partners-note").hidden = !partnership();
}

/** The two partnerships, by seat: 1 and 3 against 2 and 4 (partners sit opposite). */
const TEAMS = [[0, 2], [1, 3]];
function teamNames() {
  const names = players();
  return TEAMS.map((team) => team.map((seat) => names[seat] ?? `player ${seat + 1}`).join("+"));
}

/** The pairs a line may name, as [value, words]: at three each pair by who sits out,
 * at four the pairs of opponents (one of each team), in the order of the rounds (the
 * first of each team meet, then the partners swap), so the first letter typed in the
 * field names a round's first pair, the same letter again its second. */
function pairChoices() {
  const names = players();
  const name = (seat) => names[seat] ?? `player ${seat + 1}`;
  if (ginSize() === 3) {
    return [[2, [0, 1]], [1, [0, 2]], [0, [1, 2]]].map(([out, pair]) => [pair.join("-"), name(out)]);
  }
  if (partnership()) {
    return [[0, 1], [2, 3], [0, 3], [2, 1]].map(([a, b]) => [[a, b].sort().join("-"), `${name(a)} v ${name(b)}`]);
  }
  return [];
}

/** The seats that play a line: its pair at three or four (null until chosen), else
 * every player. */
function pairOf(row) {
  if (!paired()) return players().map((_, seat) => seat);
  if (!pairChoices().some(([value]) => value === row.pair)) return null;
  return row.pair.split("-").map(Number);
}
/** The names that may deal or go out in a line: its pair's, or every player's while no
 * pair is chosen. */
function playing(row) {
  const names = players();
  const pair = pairOf(row);
  return pair ? pair.map((seat) => names[seat]).filter((name) => name !== undefined) : names;
}

function buildOptions() {
  const box = $("options");
  const kept = Object.fromEntries([...box.querySelectorAll("[id^=opt-]")].map((f) => [f.id, f.value]));
  box.replaceChildren();
  for (const o of variant().options) {
    const p = el("p");
    const label = el("label", o.name.replaceAll("_", " "));
    label.htmlFor = `opt-${o.name}`;
    label.title = o.description;
    let field;
    const preset = o.default === null ? "none" : String(o.default === true ? "yes" : o.default === false ? "no" : o.default);
    if (o.kind === "bool" || o.kind === "choice") {
      field = el("select");
      field.append(new Option(`preset (${preset})`, ""));
      const choices = o.kind === "bool" ? ["yes", "no"] : o.choices.map(String);
      for (const c of choices) field.append(new Option(c.replaceAll("_", " "), c));
    } else {
      field = el("input");
      field.type = "text";
      field.inputMode = "numeric";
      field.size = 6;
      field.placeholder = preset;
      field.autocomplete = "off";
    }
    field.id = `opt-${o.name}`;
    field.dataset.kind = o.kind;
    field.setAttribute("aria-describedby", `opt-${o.name}-note`);
    if (kept[field.id] !== undefined) field.value = kept[field.id];
    const note = el("small", o.description + (o.nullable ? " (type none for none)" : ""), "hint");
    note.id = `opt-${o.name}-note`;
    p.append(label, el("br"), field, el("br"), note);
    box.append(p);
  }
}

/** The options typed, as the log's `rules`, or an error in words. */
function rules() {
  const out = {};
  for (const o of variant().options) {
    const text = option(o.name);
    if (text === "") continue;
    if (o.kind === "bool") out[o.name] = text === "yes";
    else if (o.kind === "choice") out[o.name] = /^\d+$/.test(text) ? Number(text) : text;
    else if (o.nullable && text.toLowerCase() === "none") out[o.name] = null;
    else if (/^-?\d+$/.test(text)) out[o.name] = Number(text);
    else return { error: `the option ${o.name.replaceAll("_", " ")} is a whole number${o.nullable ? " (or none)" : ""}, not “${text}”` };
  }
  return { rules: out };
}

// ------------------------------------------------------------------ the table

function blankRow() {
  return { pair: "", dealer: "", end: "", by: "", upcard: "", value: [], points: [], total: [], team: [], games: [[], [], []] };
}

/** The dealer the page gives line `d` until one is chosen by hand: the seat after the
 * last line's dealer (the last seat first); at three or four, one of the line's pair
 * (the other one when the last line's dealer is of it), none before the pair is named. */
function dealerFor(d) {
  const names = players();
  if (!names.length) return "";
  const last = d ? rows[d - 1].dealer : "";
  if (paired()) {
    if (!pairOf(rows[d])) return "";
    const two = playing(rows[d]);
    return two.includes(last) ? two.find((name) => name !== last) : two[0];
  }
  const at = names.indexOf(last);
  return at < 0 ? names[names.length - 1] : names[(at + 1) % names.length];
}

/** Focus the first field of a line (its pair at three or four, else its dealer), the
 * sheet scrolled back to the lines' start: a field only partly hidden under the sticky
 * deal number would not be scrolled to. */
function toLine(n) {
  $("sheet-box").scrollLeft = 0;
  $(`d${n}-${paired() ? "pair" : "dealer"}`).focus();
}

function input(id, label, value, size = 4) {
  const field = el("input");
  field.type = "text";
  field.id = id;
  field.size = size;
  field.inputMode = "numeric";
  field.autocomplete = "off";
  field.value = value ?? "";
  field.setAttribute("aria-label", label);
  return field;
}

function select(id, label, options, value) {
  const field = el("select");
  field.id = id;
  field.setAttribute("aria-label", label);
  refill(field, options, value);
  return field;
}

function refill(field, options, value) {
  field.replaceChildren(new Option("—", ""), ...options.map(([v, text]) => new Option(text, v)));
  field.value = value ?? "";
}

/** The column groups of the sheet: each a heading and its columns (a player's, or at
 * four a team's running total), each a field of a line. */
function groups() {
  const each = players().map((label, seat) => ({ seat, label }));
  const out = [{ key: "value", head: isGin() ? "Deadwood" : "Hand value", cols: each }, { key: "points", head: "Points", cols: each }];
  if (hollywood()) for (const g of [1, 2, 3]) out.push({ key: `g${g}`, head: `Game ${g} total`, cols: each });
  else if (partnership()) out.push({ key: "team", head: "Team running total", cols: teamNames().map((label, seat) => ({ seat, label })) });
  else out.push({ key: "total", head: "Running total", cols: each });
  return out;
}

/** The columns before the figures: deal, (pair), dealer, end, by, (upcard). */
function fixedColumns() { return 4 + (paired() ? 1 : 0) + (oklahoma() ? 1 : 0); }

function columns() {
  return fixedColumns() + groups().reduce((n, g) => n + Math.max(g.cols.length, 1), 0);
}

function cell(row, key, seat) {
  if (/^g\d$/.test(key)) return row.games[Number(key[1]) - 1][seat];
  return row[key][seat];
}
function setCell(row, key, seat, value) {
  if (/^g\d$/.test(key)) row.games[Number(key[1]) - 1][seat] = value;
  else row[key][seat] = value;
}

/** At three or four, the deadwood and points of who does not play a line are passed
 * over (disabled: Tab skips them, and they are not sent). */
function sitOut(tr, row) {
  const pair = paired() ? pairOf(row) : null;
  for (const field of tr.querySelectorAll('input[data-key="value"], input[data-key="points"]')) {
    field.disabled = pair !== null && !pair.includes(Number(field.dataset.seat));
  }
}

function render() {
  const had = document.activeElement;
  const focusId = had && had.closest && had.closest("#sheet") ? had.id : null;
  rebuild();
  const again = focusId && $(focusId);
  if (again) again.focus();
  schedule();
}

function rebuild() {
  showSeats();
  const names = players();
  const table = $("sheet");
  const head1 = el("tr");
  const head2 = el("tr");
  const fixed = ["Deal"];
  if (paired()) fixed.push(partnership() ? "Pair" : "Sits out");
  fixed.push("Dealer", "End", isGin() ? "Knocked or gin by" : "Went out");
  if (oklahoma()) fixed.push("Upcard");
  for (const text of fixed) {
    const th = el("th", text);
    th.scope = "col";
    th.rowSpan = 2;
    head1.append(th);
  }
  for (const g of groups()) {
    const th = el("th", g.head, "group");
    th.scope = "colgroup";
    th.colSpan = Math.max(g.cols.length, 1);
    head1.append(th);
    for (const c of g.cols.length ? g.cols : [{ label: "—" }]) {
      const sub = g.cols.length ? nameHeading(c.label) : el("th", c.label);
      sub.scope = "col";
      head2.append(sub);
    }
  }
  table.tHead.replaceChildren(head1, head2);

  const body = table.tBodies[0];
  body.replaceChildren();
  const ends = ENDS[isGin() ? "gin" : "rummy"];
  rows.forEach((row, d) => {
    const n = d + 1;
    const who = playing(row).map((name) => [name, name]);
    const tr = el("tr", undefined, "deal");
    tr.dataset.deal = String(n);
    const th = el("th");
    th.scope = "row";
    th.append(el("span", "", "mark"), ` ${n}`);
    th.firstChild.setAttribute("aria-hidden", "true");
    tr.append(th);
    const fields = [];
    if (paired()) {
      fields.push(["pair", select(`d${n}-pair`, `Deal ${n}: ${partnership() ? "the pair who played it" : "who sat out"}`, pairChoices(), row.pair)]);
    }
    fields.push(
      ["dealer", select(`d${n}-dealer`, `Deal ${n}: dealer`, who, row.dealer)],
      ["end", select(`d${n}-end`, `Deal ${n}: how it ended`, ends, row.end)],
      ["by", select(`d${n}-by`, `Deal ${n}: ${isGin() ? "who knocked or went gin" : "who went out"}`, who, row.by)],
    );
    if (oklahoma()) {
      const upcard = input(`d${n}-upcard`, `Deal ${n}: first upcard (as 7S)`, row.upcard, 3);
      upcard.inputMode = "text";  // a rank and a suit: letters too
      fields.push(["upcard", upcard]);
    }
    for (const [key, field] of fields) {
      field.dataset.key = key;
      tr.append(wrap(field));
    }
    for (const g of groups()) {
      for (const c of g.cols) {
        const what = g.key === "value" ? (isGin() ? "deadwood" : "hand value") : g.head.toLowerCase();
        const field = input(`d${n}-${g.key}-${c.seat + 1}`, `Deal ${n}: ${c.label}'s ${what}`, cell(row, g.key, c.seat));
        field.dataset.key = g.key;
        field.dataset.seat = String(c.seat);
        tr.append(wrap(field));
      }
    }
    sitOut(tr, row);
    for (const field of tr.querySelectorAll("input, select")) field.setAttribute("aria-describedby", `d${n}-note`);
    const note = el("tr", undefined, "note");
    note.dataset.deal = String(n);
    const td = el("td");
    td.colSpan = columns();
    const text = el("div", "", "note-text");
    text.id = `d${n}-note`;
    td.append(text);
    note.append(td);
    body.append(tr, note);
  });

  // The final line: the totals with every bonus, and the winner; at four, the teams'.
  const sides = partnership() ? teamNames() : names;
  const foot = el("tr", undefined, "final");
  const label = el("th", "Final, with bonuses");
  label.scope = "row";
  label.colSpan = 2;
  foot.append(label);
  const winner = select("final-winner", `The winning ${partnership() ? "team" : "player"} written on the sheet`, sides.map((s) => [s, s]), final.winner);
  const wcell = el("td");
  wcell.colSpan = fixedColumns() - 2;
  const wlabel = el("label", "Winner ");
  wlabel.htmlFor = "final-winner";
  wcell.append(wlabel, winner);
  foot.append(wcell);
  const key = partnership() ? "team" : "total";
  sides.forEach((name, seat) => {
    const field = input(`final-total-${seat + 1}`, `Final total of ${name}`, final[key][seat], 5);
    field.dataset.seat = String(seat);
    field.dataset.key = "final";
    foot.append(wrap(field));
  });
  const rest = el("td");
  rest.colSpan = Math.max(columns() - fixedColumns() - sides.length, 1);
  foot.append(rest);
  const footNote = el("tr", undefined, "note");
  const ftd = el("td");
  ftd.colSpan = columns();
  const ftext = el("div", "", "note-text");
  ftext.id = "final-note";
  ftd.append(ftext);
  footNote.append(ftd);
  table.tFoot.replaceChildren(foot, footNote);
}

/** A player's or a team's name as a column's heading: it wraps at its spaces (and after
 * a team's "+"), never inside a word; a word too long for the column ends in "…", the
 * whole name in the heading's title (the text itself stays whole for a screen reader). */
function nameHeading(label) {
  const th = el("th", undefined, "name");
  th.title = label;
  label.split(" ").forEach((word, w) => {
    if (w) th.append(" ");
    word.split(/(?<=\+)/).forEach((part, p) => {
      if (p) th.append(el("wbr"));
      th.append(el("span", part, "word"));
    });
  });
  return th;
}

function wrap(field) {
  const td = el("td");
  td.append(field);
  return td;
}

function addRow(focus = true) {
  const row = blankRow();
  rows.push(row);
  row.dealer = dealerFor(rows.length - 1);
  row.autoDealer = true;
  render();
  if (focus) toLine(rows.length);
}

/** A line's pair chosen: its dealer (when the page chose it, or when not of the pair)
 * and who went out are kept to the pair, and the fields of who sits out are passed
 * over; the line is changed in place, so the focus and what is being typed stay. */
function repair(tr, d) {
  const row = rows[d];
  const may = playing(row);
  if (row.autoDealer || !may.includes(row.dealer)) {
    row.dealer = dealerFor(d);
    row.autoDealer = true;
  }
  if (!may.includes(row.by)) row.by = "";
  const who = may.map((name) => [name, name]);
  refill(tr.querySelector('[data-key="dealer"]'), who, row.dealer);
  refill(tr.querySelector('[data-key="by"]'), who, row.by);
  sitOut(tr, row);
}

// A change in a field of the table is kept in `rows` (the table is rebuilt from them
// when the players or the columns change).
$("sheet").addEventListener("input", (event) => {
  const field = event.target;
  const tr = field.closest("tr");
  if (field.dataset.key === "final") {
    final[partnership() ? "team" : "total"][Number(field.dataset.seat)] = field.value;
  } else if (field.id === "final-winner") {
    final.winner = field.value;
  } else if (tr && tr.dataset.deal) {
    const d = Number(tr.dataset.deal) - 1;
    const row = rows[d];
    const key = field.dataset.key;
    if (field.dataset.seat !== undefined) setCell(row, key, Number(field.dataset.seat), field.value);
    else row[key] = field.value;
    if (key === "dealer") row.autoDealer = false;
    if (key === "pair") repair(tr, d);
  }
  schedule();
});

// Enter in a line goes to the next deal, adding it after the last.
$("sheet").addEventListener("keydown", (event) => {
  if (event.key !== "Enter" || event.altKey || event.ctrlKey || event.metaKey || event.shiftKey) return;
  const tr = event.target.closest("tr.deal");
  if (!tr) return;
  event.preventDefault();
  const n = Number(tr.dataset.deal);
  check();
  if (n === rows.length) addRow();
  else toLine(n + 1);
});

// A field reached while the sheet is scrolled sideways (Shift+Tab going back along a
// line, most of all) is brought out from under the cell that stays at the box's left
// edge, the deal's number or the final line's label: the browser scrolls a field into
// the box's view, not clear of what sticks over it.  Measured again once the browser
// has scrolled to the field itself.
function clearOfStuck(field) {
  const cell = field.closest("td");
  const stuck = cell && cell.parentElement.cells[0];
  if (!stuck || stuck === cell || getComputedStyle(stuck).position !== "sticky") return;
  const hidden = stuck.getBoundingClientRect().right - cell.getBoundingClientRect().left;
  if (hidden > 0) $("sheet-box").scrollLeft -= hidden;
}
$("sheet").addEventListener("focusin", (event) => {
  const field = event.target;
  clearOfStuck(field);
  requestAnimationFrame(() => {
    if (document.activeElement === field) clearOfStuck(field);
  });
});

$("add-row").addEventListener("click", () => addRow());
$("remove-row").addEventListener("click", () => {
  if (rows.length > 1) {
    rows.pop();
    render();
  }
});

// A change of the setup rebuilds the table once the focus has moved on (a field's
// change is told as it is left), so that the field just reached is focused again in the
// table rebuilt and what is typed there is kept.
function later(change) {
  setTimeout(() => {
    change();
    render();
  });
}
$("variant").addEventListener("input", () => later(() => {
  buildOptions();
  redeal();
}));
for (const id of ["tournament", "round", "table", "played-on"]) $(id).addEventListener("input", schedule);
// A line whose dealer was not chosen by hand, or is no longer a player (of its pair),
// gets the one a new line would get; a pair the table no longer has is dropped.
function redeal() {
  const names = players();
  rows.forEach((row, d) => {
    if (!pairChoices().some(([value]) => value === row.pair)) row.pair = "";
    if ((playing(row).includes(row.dealer) && !row.autoDealer) || !names.length) return;
    row.dealer = dealerFor(d);
    row.autoDealer = true;
  });
}
document.querySelectorAll(".player-field input").forEach((field) => field.addEventListener("change", () => later(redeal)));
$("options").addEventListener("change", () => later(() => {}));
$("options").addEventListener("input", schedule);

// ------------------------------------------------------------------ the log

const INTEGER = /^-?\d+$/;

/** What a line lacks before it can be checked, in words, or null. */
function missing(row, n) {
  const names = players();
  const pair = pairOf(row);
  if (!pair) return partnership() ? `choose the pair who played deal ${n}` : `choose who sat out of deal ${n}`;
  const may = playing(row);
  if (!row.dealer || !may.includes(row.dealer)) return `choose who dealt deal ${n}`;
  if (!row.end) return `choose how deal ${n} ended`;
  const alone = row.end === "void" || row.end === "blocked";
  if (!alone && !may.includes(row.by)) return `choose who ${isGin() ? (row.end === "knock" ? "knocked" : "went gin") : "went out"} in deal ${n}`;
  if (oklahoma() && row.end !== "void" && !/^(10|[2-9TJQKA])[CDHS]$/i.test(row.upcard.trim())) {
    return `give deal ${n}'s first upcard (Oklahoma sets the knock limit by it), as 7S or TD`;
  }
  if (row.end === "void") return null;
  for (const seat of pair) {
    const name = names[seat];
    const text = (row.value[seat] ?? "").trim();
    if (text === "" && (name === row.by && row.end !== "knock")) continue;
    if (text === "") return `give ${name}'s ${isGin() ? "deadwood" : "hand value"} in deal ${n}`;
    if (!/^\d+$/.test(text)) return `${name}'s ${isGin() ? "deadwood" : "hand value"} in deal ${n} is a whole number from 0, not “${text}”`;
  }
  for (const g of groups()) {
    if (g.key === "value") continue;
    for (const { seat, label } of g.cols) {
      if (g.key === "points" && !pair.includes(seat)) continue;  // not sent
      const text = (cell(row, g.key, seat) ?? "").trim();
      if (text !== "" && !INTEGER.test(text)) return `${label}'s ${g.head.toLowerCase()} in deal ${n} is a whole number, not “${text}”`;
    }
  }
  return null;
}

function isBlank(row) {
  const figures = [row.pair, row.end, row.by, row.upcard, ...row.value, ...row.points, ...row.total, ...row.team, ...row.games.flat()];
  return figures.every((v) => (v ?? "").trim() === "");
}

/** The whole numbers of a list of fields by seat, by name (of the seats `only`, when
 * given). */
function byName(list, only = null) {
  const names = players();
  const out = {};
  names.forEach((name, seat) => {
    const text = (list[seat] ?? "").trim();
    if (INTEGER.test(text) && (!only || only.includes(seat))) out[name] = Number(text);
  });
  return out;
}

/** The same for the two teams' fields, by the team's name (`ana+cy`). */
function byTeam(list) {
  const out = {};
  teamNames().forEach((team, i) => {
    const text = (list[i] ?? "").trim();
    if (INTEGER.test(text)) out[team] = Number(text);
  });
  return out;
}

function dealOf(row) {
  const names = players();
  const pair = pairOf(row);
  const result = { end: row.end };
  if (row.end !== "void" && row.end !== "blocked") result.by = row.by;
  if (row.end !== "void") {
    const values = {};
    pair.forEach((seat) => {
      const name = names[seat];
      const text = (row.value[seat] ?? "").trim();
      if (text !== "") values[name] = Number(text);
      else if (name === row.by && (isGin() || row.end !== "blocked")) values[name] = 0;
    });
    result.hand_values = values;
  }
  const deal = { dealer: row.dealer };
  if (paired()) deal.players = pair.map((seat) => names[seat]);
  deal.result = result;
  if (oklahoma() && row.end !== "void") deal.upcard = row.upcard.trim().toUpperCase().replace(/^10/, "T");
  const claimed = {};
  const points = byName(row.points, pair);
  if (Object.keys(points).length) claimed.points = points;
  if (hollywood()) {
    const games = row.games.map((g) => byName(g));
    while (games.length && !Object.keys(games[games.length - 1]).length) games.pop();
    if (games.length) claimed.games = games;
  } else {
    const totals = partnership() ? byTeam(row.team) : byName(row.total);
    if (Object.keys(totals).length) claimed.totals = totals;
  }
  if (Object.keys(claimed).length) deal.claimed = claimed;
  return deal;
}

/** The sheet as a rummy-log/1 game: {doc, checked (the lines sent), problems (lines
 * that cannot be sent yet, by line number), error (why nothing can be sent)}. */
function sheet() {
  const names = players();
  const typed = seats();
  const out = { doc: null, checked: 0, problems: {}, error: null };
  const least = isGin() ? ginSize() : variant().min_players;
  if (names.length < least) {
    out.error = `name ${least === 2 ? "both" : isGin() ? `all ${["three", "four"][least - 3]}` : `at least ${least}`} players of the game`;
    return out;
  }
  if (typed.slice(0, names.length).some((name) => name === "")) {
    out.error = "name the players in seating order, without a gap";
    return out;
  }
  if (new Set(names).size !== names.length) {
    out.error = "two players have the same name: each needs a name of their own";
    return out;
  }
  const options = rules();
  if (options.error) {
    out.error = options.error;
    return out;
  }
  const deals = [];
  let stop = null;
  rows.forEach((row, d) => {
    if (stop !== null) return;
    if (isBlank(row) && d === rows.length - 1 && d > 0) return;  // a fresh line after the last
    const lack = missing(row, d + 1);
    if (lack) {
      out.problems[d + 1] = lack;
      stop = d + 1;
      return;
    }
    deals.push(dealOf(row));
  });
  out.checked = deals.length;
  out.waitingAfter = stop;
  if (!deals.length) {
    out.error = out.error ?? (stop ? null : "enter the first deal");
    return out;
  }
  const doc = { format: "rummy-log/1", variant: variant().name, players: names };
  if (partnership()) doc.teams = TEAMS.map((team) => team.map((seat) => names[seat]));
  if (Object.keys(options.rules).length) doc.rules = options.rules;
  const tournament = {};
  const id = $("tournament").value.trim();
  const round = $("round").value.trim();
  const table = $("table").value.trim();
  if (id) tournament.id = id;
  if (round) {
    if (!/^\d+$/.test(round) || Number(round) < 1) {
      out.error = `the round is a whole number from 1, not “${round}”`;
      return out;
    }
    tournament.round = Number(round);
  }
  if (table) tournament.table = table;
  if (Object.keys(tournament).length) doc.tournament = tournament;
  // A paper sheet gives the day, not the hour: the game is dated at that day's start, UTC.
  const played = $("played-on").value;
  if (played) doc.played_at = `${played}T00:00:00Z`;
  doc.deals = deals;
  const claimed = {};
  const totals = partnership() ? byTeam(final.team) : byName(final.total);
  if (Object.keys(totals).length) claimed.totals = totals;
  const sides = partnership() ? teamNames() : names;
  if (final.winner && sides.includes(final.winner)) claimed.winner = final.winner;
  if (Object.keys(claimed).length) doc.claimed = claimed;
  out.doc = doc;
  return out;
}

// ------------------------------------------------------------------ the checks

function headers() {
  const out = { "Content-Type": "application/json", Accept: "application/json" };
  if (keyField.value) out.Authorization = `Bearer ${keyField.value}`;
  return out;
}

async function post(doc, dryRun) {
  const text = JSON.stringify(doc);
  if (new TextEncoder().encode(text).length > MAX_GAME) {
    return { ok: false, status: 413, body: null };
  }
  const response = await fetch(`${API}/games${dryRun ? "?dry_run=true" : ""}`, { method: "POST", body: text, headers: headers() });
  let body = null;
  try { body = await response.json(); } catch { /* not JSON */ }
  return { ok: response.ok, status: response.status, body };
}

/** Why the server refused, in words. */
function refusal(status, body) {
  if (status === 401) {
    return keyField.value ? "the server did not take the API key typed above: check it"
      : "this server needs an API key to check or store a game: type it in the API key field above";
  }
  if (status === 403) return "the API key typed above is not one of this server's write keys: check it";
  if (status === 413) return "the sheet is larger than this server takes in a game";
  const said = body && [body.detail, body.title].find((t) => typeof t === "string" && t.trim());
  return said ?? `the server answered ${status}`;
}

function noteOf(n) { return n === null ? $("final-note") : $(`d${n}-note`); }

function mark(n, state, lines) {
  const tr = document.querySelector(`tr.deal[data-deal="${n}"]`);
  if (!tr) return;
  tr.dataset.state = state;
  tr.nextElementSibling.dataset.state = state;
  tr.querySelector(".mark").textContent = SIGNS[state];
  const note = noteOf(n);
  note.replaceChildren();
  for (const line of lines) {
    const p = el("p");
    if (line.code) p.append(el("code", line.code), " ");
    p.append(line.text);
    note.append(p);
  }
}

function sayState(parts) {
  const box = $("sheet-state");
  box.replaceChildren(...parts.map((part) => (typeof part === "string" ? el("p", part) : part)));
}

let timer = null;
let asked = 0;
function schedule() {
  clearTimeout(timer);
  timer = setTimeout(check, 300);
}

function clearMarks() {
  for (const tr of document.querySelectorAll("tr.deal")) mark(Number(tr.dataset.deal), "waiting", []);
  const fnote = $("final-note");
  if (fnote) fnote.replaceChildren();
}

async function check() {
  clearTimeout(timer);
  const mine = ++asked;
  const made = sheet();
  clearMarks();
  for (const [n, text] of Object.entries(made.problems)) mark(Number(n), "pending", [{ text: `Not checked yet: ${text}.` }]);
  if (made.waitingAfter) {
    for (let n = made.waitingAfter + 1; n <= rows.length; n += 1) {
      if (!isBlank(rows[n - 1])) mark(n, "waiting", [{ text: `Checked once deal ${made.waitingAfter} is complete.` }]);
    }
  }
  if (!made.doc) {
    sayState([made.error ? `Not checked yet: ${made.error}.` : "Not checked yet."]);
    return;
  }
  sayState([`Checking ${made.checked} deal${made.checked === 1 ? "" : "s"}…`]);
  let answer;
  try {
    answer = await post(made.doc, true);
  } catch (error) {
    if (mine === asked) sayState([`Not checked: the server could not be reached${error && error.message ? ` (${error.message})` : ""}.`]);
    return;
  }
  if (mine !== asked) return;  // a later change is being checked
  if (answer.status === 422 && answer.body && answer.body.errors) {
    shown422(answer.body, made.checked);
    return;
  }
  if (!answer.ok) {
    sayState([`Not checked: ${refusal(answer.status, answer.body)}.`]);
    return;
  }
  shownReport(answer.body.report, made.checked);
}

/** A sheet the log format refuses: each field's error under its line. */
function shown422(body, count) {
  const byDeal = {};
  const game = [];
  for (const [path, messages] of Object.entries(body.errors)) {
    const m = /^deals\.(\d+)\.?(.*)$/.exec(path);
    const text = `${m ? m[2] || "the deal" : path}: ${[].concat(messages).join(" ")}`;
    if (m) (byDeal[Number(m[1]) + 1] ??= []).push({ text });
    else game.push({ text });
  }
  for (let n = 1; n <= count; n += 1) mark(n, byDeal[n] ? "illegal" : "waiting", byDeal[n] ?? []);
  sayState([`Not a valid sheet yet: ${body.detail}.`, ...game.map((g) => el("p", g.text, "refused"))]);
}

function shownReport(report, count) {
  const byDeal = {};
  const game = [];
  for (const v of report.violations) {
    const line = { code: v.code, text: v.message, illegal: v.code !== "SCORE_MISMATCH" };
    if (v.deal === null || v.deal === undefined) game.push(line);
    else (byDeal[v.deal + 1] ??= []).push(line);
  }
  for (let n = 1; n <= count; n += 1) {
    const lines = byDeal[n] ?? [];
    const deal = report.deals[n - 1];
    if (lines.length) {
      mark(n, lines.some((l) => l.illegal) ? "illegal" : "mismatch", lines);
    } else {
      const points = deal ? Object.entries(deal.points).filter(([, p]) => p).map(([who, p]) => `${who} ${p}`) : [];
      mark(n, "ok", [{ text: `Agrees with the rules${deal && deal.outcome ? ` (${deal.outcome.replaceAll("_", " ")}` : ""}${points.length ? `: ${points.join(", ")}` : deal && deal.outcome ? ": no points" : ""}${deal && deal.outcome ? ")" : ""}.` }]);
    }
  }
  const fnote = $("final-note");
  fnote.replaceChildren(...game.map((g) => {
    const p = el("p");
    p.append(el("code", g.code), ` ${g.text}`);
    return p;
  }));
  const totals = report.totals;
  const parts = Object.entries(totals.points).map(([who, p]) => `${who} ${p}`);
  const status = el("p");
  status.append(el("strong", "Checked: "), el("span", STATUS_WORDS[report.status] ?? report.status, `status status-${report.status}`));
  status.dataset.status = report.status;
  status.id = "sheet-status";
  const legal = report.status === "valid" || report.status === "mismatch";
  const won = legal && totals.winner ? ` · winner ${totals.winner}` : "";
  const said = [status];
  if (totals.teams) {  // partnerships: the teams' totals, and each player's deal points
    const teams = Object.entries(totals.teams).map(([who, p]) => `${who} ${p}`);
    said.push(`${legal ? "Team totals" : "Team points so far"} as the rules give them: ${teams.join(", ")}${won}.`,
      `Deal points by player: ${parts.join(", ")}.`);
  } else {
    said.push(`${legal ? "Totals" : "Points so far"} as the rules give them: ${parts.join(", ")}${won}.`);
  }
  (totals.games ?? []).forEach((g, i) => {
    const figures = Object.entries(g.points).map(([who, p]) => `${who} ${p}`).join(", ");
    said.push(`Game ${i + 1}: ${figures}${legal && g.winner ? ` · winner ${g.winner}` : ""}.`);
  });
  sayState(said);
}

// ------------------------------------------------------------------ store, download

$("store").addEventListener("click", async () => {
  const made = sheet();
  const out = $("stored");
  out.replaceChildren();
  const pending = Object.entries(made.problems);
  if (!made.doc || pending.length) {
    out.append(el("p", `Not stored: ${made.error ?? (pending.length ? `deal ${pending[0][0]}: ${pending[0][1]}` : "the sheet is empty")}.`, "refused"));
    return;
  }
  out.append(el("p", "Storing…"));
  let answer;
  try {
    answer = await post(made.doc, false);
  } catch (error) {
    out.replaceChildren(el("p", `Not stored: the server could not be reached${error && error.message ? ` (${error.message})` : ""}.`, "refused"));
    return;
  }
  if (!answer.ok) {
    out.replaceChildren(el("p", `Not stored: ${refusal(answer.status, answer.body)}.`, "refused"));
    return;
  }
  const body = answer.body;
  const p = el("p");
  p.id = "stored-line";
  p.dataset.status = body.status;
  const link = el("a", `game ${body.id.slice(0, 12)}`, "game-link");
  link.href = `${PAGES}/games/${encodeURIComponent(body.id)}`;
  p.append(body.created === false ? "Stored before as " : "Stored as ", link, ` (${STATUS_WORDS[body.status]?.split(":")[0] ?? body.status})`);
  const tid = made.doc.tournament?.id;
  if (tid) {
    const t = el("a", `tournament ${tid}`, "tournament-link");
    t.href = `${PAGES}/tournaments/${encodeURIComponent(tid)}`;
    p.append("; see the standings of ", t);
  }
  p.append(".");
  out.replaceChildren(p);
});

$("download").addEventListener("click", () => {
  const made = sheet();
  const out = $("stored");
  if (!made.doc) {
    out.replaceChildren(el("p", `Nothing to download yet: ${made.error ?? "enter the first deal"}.`, "refused"));
    return;
  }
  const blob = new Blob([`${JSON.stringify(made.doc, null, 1)}\n`], { type: "application/json" });
  const link = el("a");
  link.href = URL.createObjectURL(blob);
  const t = made.doc.tournament ?? {};
  const parts = ["sheet", t.id, t.round && `r${t.round}`, t.table && `t${t.table}`].filter(Boolean);
  link.download = `${parts.join("-").replace(/[^\p{L}\p{N}._-]+/gu, "_")}.json`;
  document.body.append(link);
  link.click();
  link.remove();
  setTimeout(() => URL.revokeObjectURL(link.href), 10_000);
});

if (SETUP.keyNeeded === "true" && !keyField.value) {
  $("key-note").textContent = "This server needs an API key to check or store games. It is kept in this browser tab only (session storage), sent only to this server; the upload page shares it.";
}

buildOptions();
addRow(false);
