// Cards drawn as SVG: the suits are shapes of our own (no font needed), the ranks are text in the shipped font.
// Two colour schemes: the classic red and black, and four colours (spades black, hearts red, diamonds blue, clubs
// green) that tell every suit apart for eyes that mix red and green; the shapes tell them apart in either.
import { t } from "./i18n.js";

const NS = "http://www.w3.org/2000/svg";
export const SUIT_PATHS = {
  S: "M50 6C30 32 6 46 12 66c4 14 22 18 34 6l-6 22h20l-6-22c12 12 30 8 34-6 6-20-18-34-38-60z",
  H: "M50 92C22 70 6 54 8 34 10 16 30 8 42 18c4 3 6 7 8 11 2-4 4-8 8-11 12-10 32-2 34 16 2 20-14 36-42 58z",
  D: "M50 4 86 50 50 96 14 50z",
  C: "M50 8a19 19 0 0 1 16 29 19 19 0 1 1 -8 30l6 27H36l6-27a19 19 0 1 1 -8-30A19 19 0 0 1 50 8z",
};
const CLASSIC = { S: "#1a1a1a", H: "#c8102e", D: "#c8102e", C: "#1a1a1a" };
const FOUR = { S: "#1a1a1a", H: "#c8102e", D: "#0b57d0", C: "#137333" };
const FOUR_COLOURS_KEY = "rd.four-colours";

export function fourColours() {
  return localStorage.getItem(FOUR_COLOURS_KEY) === "on";
}

export function setFourColours(on) {
  localStorage.setItem(FOUR_COLOURS_KEY, on ? "on" : "off");
}

export function rankOf(code) {
  return code[0] === "T" ? "10" : code[0];
}

/** A card's words for a screen reader: "Ace of spades", "एक्का, हुकुम". */
export function cardName(code) {
  return t("card.name", { rank: t(`rank.${code[0]}`), suit: t(`suit.${code[1]}`) });
}

function svg(tag, attrs) {
  const node = document.createElementNS(NS, tag);
  for (const [name, value] of Object.entries(attrs)) node.setAttribute(name, value);
  return node;
}

function suit(code, x, y, size, colour) {
  const group = svg("g", { transform: `translate(${x} ${y}) scale(${size / 100})` });
  group.append(svg("path", { d: SUIT_PATHS[code], fill: colour }));
  return group;
}

/** A face-up card: `code` is two characters (rank AKQJT98765432, suit SHDC). */
export function cardFace(code, { label = cardName(code) } = {}) {
  const colour = (fourColours() ? FOUR : CLASSIC)[code[1]];
  const card = svg("svg", { viewBox: "0 0 100 140", class: "card", role: "img", "aria-label": label });
  card.dataset.card = code;
  card.append(svg("rect", { x: 1, y: 1, width: 98, height: 138, rx: 9, fill: "#fff", stroke: "#444", "stroke-width": 2 }));
  const rank = rankOf(code);
  for (const turn of [0, 180]) {
    const [x, y] = [13, 26];
    const corner = svg("g", { transform: `rotate(${turn} 50 70)` });
    const text = svg("text", { x, y, "text-anchor": "middle", "font-size": 24, "font-weight": 700, fill: colour });
    text.textContent = rank;
    corner.append(text, suit(code[1], x - 7, y + 4, 14, colour));
    card.append(corner);
  }
  card.append(suit(code[1], 25, 45, 50, colour));
  return card;
}

/** A place where a card will go: an outline with the words of what it waits for. */
export function cardSpace(label) {
  const card = svg("svg", { viewBox: "0 0 100 140", class: "card space", role: "img", "aria-label": label });
  card.append(svg("rect", { x: 3, y: 3, width: 94, height: 134, rx: 9, fill: "none", stroke: "#8a8f98",
    "stroke-width": 3, "stroke-dasharray": "8 6" }));
  return card;
}

/** A card dealt face down: its back, never its face (the page is not told the card). */
export function cardBack(label) {
  const card = svg("svg", { viewBox: "0 0 100 140", class: "card back", role: "img", "aria-label": label });
  card.append(svg("rect", { x: 1, y: 1, width: 98, height: 138, rx: 9, fill: "#7a1f2b", stroke: "#444", "stroke-width": 2 }));
  card.append(svg("rect", { x: 10, y: 10, width: 80, height: 120, rx: 6, fill: "none", stroke: "#e9c46a", "stroke-width": 3 }));
  return card;
}
