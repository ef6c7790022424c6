// The replay viewer: fetches every position of a deal at once from the API
// (GET .../deals/{d}/positions) and steps through them here, so a step costs nothing.
// The fragment names the position as people count: #deal=1&move=0 is the first deal
// as dealt, move=k the table after the k-th move, move=end the table after the last.
// One seat's view shows only what that seat knows: the other hands face down with their
// card count until the rules lay them down (a position's "public" hands: the knocker's
// at the knock, every hand once the deal is counted), the others' stock draws without
// the card, the seat's own deadwood line.

import { back, card, row } from "./cards.js";

const SVG = "http://www.w3.org/2000/svg";
const game = JSON.parse(document.getElementById("game-data").textContent);
const $ = (id) => document.getElementById(id);
const cache = new Map();
// seat: the seat chosen in the View list ("" for all hands), kept across deals; a deal
// it sits out is shown with all hands.
const view = { deal: 0, move: 0, data: null, timer: null, seat: "" };

function positionsUrl(deal) {
  return game.positions.replace("{deal}", String(deal));
}

async function load(deal) {
  if (!cache.has(deal)) {
    cache.set(deal, fetch(positionsUrl(deal), { headers: { Accept: "application/json" } })
      .then((response) => {
        if (!response.ok) throw new Error(`the positions of deal ${deal + 1} answered ${response.status}`);
        return response.json();
      }));
  }
  try {
    return await cache.get(deal);
  } catch (error) {
    cache.delete(deal);
    throw error;
  }
}

function readFragment() {
  const params = new URLSearchParams(location.hash.slice(1));
  const deal = Number.parseInt(params.get("deal") ?? "1", 10);
  const given = params.get("move") ?? "0";
  const move = given === "end" ? Number.MAX_SAFE_INTEGER : Number.parseInt(given, 10);
  return { deal: Number.isFinite(deal) ? deal - 1 : 0, move: Number.isFinite(move) ? move : 0 };
}

function clamp(value, low, high) {
  return Math.min(Math.max(value, low), high);
}

/** The deal to show for a wish to show ``deal``: itself, or when it was recorded by its
 * result (a score sheet: no positions), the nearest recorded move by move, looked for in
 * the direction of travel first; null when no deal has its moves. */
function recorded(deal, toward) {
  const sheet = new Set(game.sheet);
  for (const by of [toward || 1, -(toward || 1)]) {
    for (let d = deal; d >= 0 && d < game.deals; d += by) if (!sheet.has(d)) return d;
  }
  return null;
}

async function go(deal, move, toward = 0) {
  deal = recorded(clamp(deal, 0, game.deals - 1), toward);
  if (deal === null) return;
  let data;
  try {
    data = await load(deal);
  } catch (error) {
    $("move-words").textContent = String(error.message);
    return;
  }
  view.deal = deal;
  view.data = data;
  view.move = clamp(move, 0, data.positions.length - 1);
  const fragment = `#deal=${deal + 1}&move=${view.move}`;
  if (location.hash !== fragment) history.replaceState(null, "", fragment);
  render();
}

/** The seat whose view is shown in this deal: "" (all hands) when none is chosen or the
 * chosen one sits the deal out. */
function seatIn(data) {
  return data.players.includes(view.seat) ? view.seat : "";
}

/** A move as the seat knows it: its own moves in full, the others' as everyone saw them. */
function wordsOf(move, seat) {
  return seat && move.player !== seat ? move.public : move.words;
}

/** The log stops inside the deal: no illegal move stopped it, and it has no result
 * (a deal logged after the game's end has none either, though it may be complete). */
function endsUnfinished(data) {
  return data.stopped_by === null && data.outcome === null
    && !game.violations.some((v) => v.deal === data.deal && v.code === "GAME_OVER");
}

function text(tag, content, className) {
  const element = document.createElement(tag);
  if (className) element.className = className;
  element.textContent = content;
  return element;
}

function renderHands(position, data, seat) {
  const box = $("hands");
  box.replaceChildren();
  for (const player of data.players) {
    const hand = position.hands[player];
    const section = document.createElement("section");
    section.className = "hand";
    section.dataset.player = player;
    section.dataset.count = String(hand.count);
    if (position.to_move === player) section.classList.add("to-move");
    const title = text("h3", player);
    if (position.to_move === player) title.append(text("span", " · to move", "marker"));
    section.append(title);
    const value = game.gin ? "deadwood" : "points in hand";
    const count = `${hand.count} card${hand.count === 1 ? "" : "s"}`;
    const hidden = seat && seat !== player && !(position.public ?? []).includes(player);
    if (seat && seat !== player && !hidden) section.classList.add("shown");
    section.append(text("p", hidden ? count : `${count} · ${value} ${position.hand_values[player]}`, "meta"));
    const cards = document.createElement("div");
    cards.className = "hand-cards";
    if (hidden) {
      const backs = document.createElement("span");
      backs.className = "cards";
      for (let i = 0; i < hand.count; i += 1) backs.append(back());
      cards.append(backs);
    } else {
      hand.melds.forEach((meld, i) => {
        const group = row(meld, `meld ${i + 1} of ${player}'s hand`);
        group.classList.add("meld");
        cards.append(group);
      });
      if (hand.rest.length) {
        const rest = row(hand.rest, game.gin ? "deadwood" : "unmatched cards");
        rest.classList.add("rest");
        cards.append(rest);
      }
    }
    section.append(cards);
    box.append(section);
  }
}

function renderMiddle(position, data, last) {
  const stock = $("stock");
  stock.dataset.count = String(position.stock_count);
  stock.textContent = `${position.stock_count} card${position.stock_count === 1 ? "" : "s"}`;
  const top = $("discard-top");
  top.dataset.card = position.discard_top ?? "";
  top.replaceChildren(position.discard_top ? card(position.discard_top) : text("p", "empty"));
  $("pile-cards").replaceChildren(row(position.discard_pile, "the discard pile, bottom first"));
  const melds = $("table-melds");
  melds.replaceChildren();
  if (!position.melds.length) melds.append(text("li", "no meld yet", "none"));
  for (const meld of position.melds) {
    const item = document.createElement("li");
    item.append(text("span", `${meld.kind}${meld.owner ? ` by ${meld.owner}` : ""} `, "meld-owner"));
    item.append(row(meld.cards));
    melds.append(item);
  }
  const over = last && data.outcome !== null;
  const scores = over ? data.scores_after : data.scores_before;
  const body = $("scores");
  body.replaceChildren();
  for (const [player, points] of Object.entries(scores)) {
    const tr = document.createElement("tr");
    tr.append(text("th", player), text("td", String(points)));
    if (over && data.points && player in data.points) tr.append(text("td", `+${data.points[player]} this deal`));
    body.append(tr);
  }
  const caption = over ? `after deal ${data.deal + 1}: ${data.outcome}${data.winner ? `, ${data.winner} wins it` : ""}` : `before deal ${data.deal + 1}`;
  const row0 = document.createElement("tr");
  row0.append(text("td", caption, "hint"));
  row0.firstChild.colSpan = 3;
  body.prepend(row0);
  if (over && data.final) {
    // The game is over: its totals with what is added at its end, as the game page shows.
    const head = document.createElement("tr");
    head.append(text("td", "game over: totals with boxes and bonuses", "hint"));
    head.firstChild.colSpan = 3;
    body.append(head);
    for (const [side, points] of Object.entries(data.final)) {
      const tr = document.createElement("tr");
      tr.className = "final";
      tr.dataset.side = side;
      tr.append(text("th", side), text("td", String(points)));
      body.append(tr);
    }
  }
}

function renderSeats(data, seat) {
  const select = $("seat");
  for (const option of select.options) {
    if (option.value) option.disabled = !data.players.includes(option.value);
  }
  select.value = seat;
  const out = game.players.filter((player) => !data.players.includes(player));
  const line = $("sits-out");
  line.hidden = !out.length;
  const verb = out.length === 1 ? "sits" : "sit";
  const then = out.includes(view.seat) ? ", so all hands are shown" : "";
  line.textContent = out.length ? `${out.join(" and ")} ${verb} out this deal${then}.` : "";
}

function renderEnd(data, last) {
  const note = $("log-ends");
  const shown = last && endsUnfinished(data);
  note.hidden = !shown;
  if (!shown) return;
  const position = data.positions[data.positions.length - 1];
  const next = position.to_move ? ` (${position.to_move} was to play)` : "";
  note.textContent = `The log ends here: the deal is not finished${next}.`;
}

function renderWords(data, seat) {
  const stop = data.stopped_by;
  const m = view.move;
  const words = $("move-words");
  const box = $("violation");
  words.classList.remove("illegal");
  if (m === 0) {
    words.textContent = `As dealt: ${data.dealer ?? "the dealer"} dealt, ${data.players[0]} plays first.`;
  } else {
    words.textContent = `Move ${m}: ${wordsOf(data.moves[m - 1], seat)}`;
  }
  const here = stop && ((stop.move === null && m === 0) || stop.move === m - 1);
  // What the report says of this position beyond the replay's stop: a problem of the
  // deal as a whole (seating, a deal after the game's end) at move 0, and the deal's
  // wrong claims once it is over; a deal cut short is also told where it stops.
  const last = m === data.positions.length - 1;
  const notes = game.violations.filter((v) => v.deal === data.deal
    && !(stop && v.code === stop.code && v.move === stop.move)
    && ((v.code === "SCORE_MISMATCH" && last) || (v.code !== "SCORE_MISMATCH"
      && ((v.move === null && (m === 0 || (last && v.code === "DEAL_NOT_FINISHED")))
        || v.move === m - 1))));
  box.hidden = !here && !notes.length;
  box.replaceChildren();
  box.classList.toggle("claims-only", !here && notes.every((v) => v.code === "SCORE_MISMATCH"));
  if (here) {
    words.classList.add("illegal");
    box.append(text("strong", "Illegal: "), text("code", stop.code), text("span", ` ${stop.message}`, "message"));
    if (stop.move !== null) box.append(text("p", "The table is shown as this move found it; the replay of the deal stops here.", "hint"));
  }
  for (const v of notes) {
    const line = document.createElement("p");
    line.append(text("strong", v.code === "SCORE_MISMATCH" ? "Wrong claim: " : "Illegal: "), text("code", v.code), text("span", ` ${v.message}`, "message"));
    box.append(line);
  }
}

function renderMoves(data, seat) {
  const list = $("moves");
  list.replaceChildren();
  const entries = [["as dealt", 0], ...data.moves.map((move, i) => [wordsOf(move, seat), i + 1])];
  const reached = data.positions.length - 1;
  for (const [words, k] of entries) {
    const item = document.createElement("li");
    if (k > reached) {
      item.className = "unplayed";
      item.textContent = `${words} (not replayed)`;
    } else {
      const link = document.createElement("a");
      link.href = `#deal=${data.deal + 1}&move=${k}`;
      link.textContent = words;
      link.dataset.move = String(k);
      item.append(link);
      if (data.stopped_by && data.stopped_by.move === k - 1) item.className = "illegal";
    }
    if (k === view.move) item.setAttribute("aria-current", "step");
    list.append(item);
  }
  const current = list.querySelector("[aria-current]");
  if (current) list.scrollTop = current.offsetTop - list.clientHeight / 2;
}

function renderChart(data, seat) {
  const box = $("chart-box");
  box.hidden = !game.gin;
  if (!game.gin) return;
  // a seat knows its own deadwood only
  const shown = seat ? [seat] : data.players;
  const width = 640;
  const height = 180;
  const pad = 28;
  const points = data.positions.length;
  const top = Math.max(10, ...data.positions.flatMap((p) => shown.map((player) => p.hand_values[player])));
  const x = (k) => pad + (points > 1 ? (k * (width - 2 * pad)) / (points - 1) : 0);
  const y = (v) => height - pad - (v * (height - 2 * pad)) / top;
  const svg = document.createElementNS(SVG, "svg");
  svg.setAttribute("viewBox", `0 0 ${width} ${height}`);
  svg.setAttribute("class", "line-chart");
  svg.setAttribute("role", "img");
  svg.setAttribute("aria-label", `deadwood of ${shown.join(" and ")} after each move of deal ${data.deal + 1}`);
  const axis = document.createElementNS(SVG, "path");
  axis.setAttribute("d", `M${pad} ${pad / 2}V${height - pad}H${width - pad / 2}`);
  axis.setAttribute("class", "axis");
  svg.append(axis);
  for (const v of [0, top]) {
    const label = document.createElementNS(SVG, "text");
    label.setAttribute("x", String(pad - 4));
    label.setAttribute("y", String(y(v) + 4));
    label.setAttribute("text-anchor", "end");
    label.textContent = String(v);
    svg.append(label);
  }
  const marker = document.createElementNS(SVG, "line");
  marker.setAttribute("class", "now");
  marker.setAttribute("x1", String(x(view.move)));
  marker.setAttribute("x2", String(x(view.move)));
  marker.setAttribute("y1", String(pad / 2));
  marker.setAttribute("y2", String(height - pad));
  svg.append(marker);
  shown.forEach((player) => {
    const i = data.players.indexOf(player); // a player keeps their line's style in every view
    const line = document.createElementNS(SVG, "polyline");
    line.setAttribute("class", `series series-${i}`);
    line.dataset.player = player;
    line.setAttribute("points", data.positions.map((p, k) => `${x(k)},${y(p.hand_values[player])}`).join(" "));
    svg.append(line);
    data.positions.forEach((p, k) => {
      const dot = document.createElementNS(SVG, "circle");
      dot.setAttribute("class", `point series-${i}`);
      dot.setAttribute("cx", String(x(k)));
      dot.setAttribute("cy", String(y(p.hand_values[player])));
      dot.setAttribute("r", "4");
      dot.dataset.move = String(k);
      dot.dataset.player = player;
      dot.dataset.value = String(p.hand_values[player]);
      const title = document.createElementNS(SVG, "title");
      title.textContent = `${player}: ${p.hand_values[player]} after move ${k}`;
      dot.append(title);
      dot.addEventListener("click", () => go(view.deal, k));
      svg.append(dot);
    });
    const legend = document.createElementNS(SVG, "text");
    legend.setAttribute("class", `legend series-${i}`);
    legend.setAttribute("x", String(width - pad));
    legend.setAttribute("y", String(14 + shown.indexOf(player) * 14));
    legend.setAttribute("text-anchor", "end");
    legend.textContent = `${i === 0 ? "—" : "- -"} ${player}`;
    svg.append(legend);
  });
  $("chart").replaceChildren(svg);
}

function render() {
  const data = view.data;
  const position = data.positions[view.move];
  const last = view.move === data.positions.length - 1;
  const slider = $("slider");
  slider.max = String(data.positions.length - 1);
  slider.value = String(view.move);
  slider.setAttribute("aria-valuetext", `move ${view.move}`);
  $("where").textContent = `deal ${data.deal + 1} of ${game.deals} · move ${view.move} of ${data.moves.length}`;
  const seat = seatIn(data);
  renderSeats(data, seat);
  renderWords(data, seat);
  renderEnd(data, last);
  renderHands(position, data, seat);
  renderMiddle(position, data, last);
  renderMoves(data, seat);
  renderChart(data, seat);
  document.body.dataset.position = `${data.deal + 1}:${view.move}`;
}

function step(by) {
  const data = view.data;
  const next = view.move + by;
  if (next >= 0 && next < data.positions.length) return go(view.deal, next);
  const beside = recorded(view.deal + by, by);
  if (by > 0 && view.deal < game.deals - 1 && beside > view.deal) return go(beside, 0);
  if (by < 0 && view.deal > 0 && beside !== null && beside < view.deal) {
    return load(beside).then((previous) => go(beside, previous.positions.length - 1));
  }
  stop();
  return undefined;
}

function stop() {
  clearInterval(view.timer);
  view.timer = null;
  $("play").setAttribute("aria-pressed", "false");
  $("play").firstChild.textContent = "Play";
}

function togglePlay() {
  if (view.timer) return stop();
  $("play").setAttribute("aria-pressed", "true");
  $("play").firstChild.textContent = "Pause";
  view.timer = setInterval(() => {
    const data = view.data;
    if (view.move === data.positions.length - 1 && view.deal === game.deals - 1) stop();
    else step(1);
  }, Number($("speed").value));
  return undefined;
}

const ACTIONS = {
  first: () => go(view.deal, 0),
  last: () => go(view.deal, view.data.positions.length - 1),
  prev: () => step(-1),
  next: () => step(1),
  "prev-deal": () => go(view.deal - 1, 0, -1),
  "next-deal": () => go(view.deal + 1, 0, 1),
  play: () => togglePlay(),
};
const KEYS = { ArrowLeft: "prev", ArrowRight: "next", Home: "first", End: "last",
  PageUp: "prev-deal", PageDown: "next-deal", " ": "play" };

/** Runs a control's action; before the first deal has arrived there is nothing to step
 * through, so the press is dropped. */
function act(name) {
  if (view.data) ACTIONS[name]();
}

document.querySelectorAll("[data-go]").forEach((button) => {
  button.addEventListener("click", () => act(button.dataset.go));
});
document.addEventListener("keydown", (event) => {
  const action = KEYS[event.key];
  const target = event.target;
  if (!action || event.altKey || event.ctrlKey || event.metaKey) return;
  if (target.tagName === "SELECT" || (target.tagName === "INPUT" && target.type !== "range")) return;
  if (event.key === " " && target.tagName === "BUTTON") return; // the button's own click
  event.preventDefault();
  act(action);
});
$("slider").addEventListener("input", (event) => go(view.deal, Number(event.target.value)));
$("seat").addEventListener("change", (event) => {
  view.seat = event.target.value;
  if (view.data) render(); // otherwise the first deal is drawn from this seat when it arrives
});
$("speed").addEventListener("change", () => { if (view.timer) { stop(); togglePlay(); } });
window.addEventListener("hashchange", () => {
  const wanted = readFragment();
  if (wanted.deal !== view.deal || wanted.move !== view.move) go(wanted.deal, wanted.move);
});

if (recorded(0, 1) !== null) {
  $("viewer").hidden = false;
  const start = readFragment();
  go(start.deal, start.move);
}
