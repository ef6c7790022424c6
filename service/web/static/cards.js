// Cards drawn as SVG: the rank and the suit's symbol in two corners and a large suit
// in the middle; red suits are red, but the symbol always says the suit, so colour is
// never the only sign.  Every face has an accessible name ("queen of hearts").

const SVG = "http://www.w3.org/2000/svg";
const RANKS = { A: "ace", 2: "two", 3: "three", 4: "four", 5: "five", 6: "six", 7: "seven",
  8: "eight", 9: "nine", T: "ten", J: "jack", Q: "queen", K: "king" };
const SUITS = { C: ["clubs", "♣"], D: ["diamonds", "♦"], H: ["hearts", "♥"], S: ["spades", "♠"] };

export function cardName(code) {
  const [rank, suit] = [code.slice(0, -1), code.slice(-1)];
  return `${RANKS[rank]} of ${SUITS[suit][0]}`;
}

function node(name, attributes, text) {
  const element = document.createElementNS(SVG, name);
  for (const [key, value] of Object.entries(attributes)) element.setAttribute(key, value);
  if (text !== undefined) element.textContent = text;
  return element;
}

/** The face of a card code such as "QH" (rank, then C, D, H or S). */
export function card(code) {
  const rank = code.slice(0, -1);
  const suit = code.slice(-1);
  const symbol = SUITS[suit][1];
  const shown = rank === "T" ? "10" : rank;
  const svg = node("svg", { viewBox: "0 0 50 70", class: `card suit-${suit}`, role: "img",
    "aria-label": cardName(code), "data-card": code });
  svg.append(node("rect", { x: 1, y: 1, width: 48, height: 68, rx: 5, class: "face" }));
  svg.append(node("text", { x: 5, y: 16, class: "corner" }, shown));
  svg.append(node("text", { x: 5, y: 29, class: "corner" }, symbol));
  svg.append(node("text", { x: 25, y: 50, class: "pip", "text-anchor": "middle" }, symbol));
  svg.append(node("text", { x: 45, y: 64, class: "corner", "text-anchor": "end" }, shown + symbol));
  return svg;
}

/** A card face down: what a seat's view shows of the other hands. */
export function back() {
  const svg = node("svg", { viewBox: "0 0 50 70", class: "card back", role: "img",
    "aria-label": "a card face down" });
  svg.append(node("rect", { x: 1, y: 1, width: 48, height: 68, rx: 5, class: "face" }));
  svg.append(node("rect", { x: 6, y: 6, width: 38, height: 58, rx: 3, class: "pattern" }));
  return svg;
}

/** Cards in a row, in a span labelled for screen readers. */
export function row(codes, label) {
  const span = document.createElement("span");
  span.className = "cards";
  if (label) span.setAttribute("aria-label", label);
  for (const code of codes) span.append(card(code));
  return span;
}
