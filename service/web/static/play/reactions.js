// Emoji reactions (docs/friends-api.md, "Reactions"): a seat taps one of a fixed few; the server pushes its name to
// every phone at the table, which shows it a moment and lets it go. Names on the wire, never text: each is drawn
// here as a small SVG of our own (a phone without a colour emoji font, Debian's Chromium among them, draws the clapping
// hands, the fire and the folded hands as empty boxes) and its words come from the catalogues, so a screen reader says "Sita: Applause", not a glyph's name.
import { announce, el } from "./dom.js";
import { t } from "./i18n.js";

const SVG = "http://www.w3.org/2000/svg";
const SKIN = { fill: "#ffcc4d", stroke: "#a66a00", "stroke-width": 1.5, "stroke-linejoin": "round" };
const INK = { fill: "none", stroke: "#5b3a00", "stroke-width": 2, "stroke-linecap": "round" };
const FACE = ["circle", { cx: 16, cy: 16, r: 14, ...SKIN }];
const DROP = (x, y) => ["path", { d: `M${x} ${y}c-2 3-2.6 5.5 0 5.5s2-2.5 0-5.5z`, fill: "#4a9fe0" }];

// Drawn on a 32 x 32 grid, each from a few shapes: what matters is that they read at 28 px and tell apart.
const DRAWINGS = {
  clap: [ // two open hands meeting, the front one tilted the other way, and the clap's lines above
    ["path", { d: "M5 29 3.5 15c-.3-3 3.7-3.5 4.2-.6L8.5 19 7.8 9.5c-.2-2.8 3.8-3 4-.2l.7 8.2.3-9.6c.1-2.8 4-2.7 4 .1l-.4 10"
      + " 1.6-7c.6-2.7 4.4-1.8 3.9.9L19 24c-.8 3.5-3.5 5.5-7 5.5z", ...SKIN }],
    ["path", { d: "M27.5 30.5 26.8 18c-.2-2.6-3.9-2.4-3.9.3l-.3 3.2-2.3-9.2c-.7-2.6-4.4-1.6-3.8 1l1.7 8.3-4.4-7.6"
      + "c-1.4-2.4-4.7-.4-3.4 2l4.6 8.2c1.8 3.3 4.6 6.3 9 6.3z", ...SKIN }],
    ["path", { d: "M9 4.5 7 2M15.5 3.5V.8M22 4.5l2-2.5", ...INK, stroke: "#a66a00", "stroke-width": 1.6 }],
  ],
  laugh: [
    FACE,
    ["path", { d: "M8 13q3-4 6 0M18 13q3-4 6 0", ...INK }],
    ["path", { d: "M8 17h16q0 8-8 8t-8-8z", fill: "#5b3a00" }],
    ["path", { d: "M11 22.5q5-3 10 0q-2 2.5-5 2.5t-5-2.5z", fill: "#e0475b" }],
    DROP(4.5, 15), DROP(27.5, 15),
  ],
  wow: [
    FACE,
    ["path", { d: "M8 9q3-2.5 6-1M18 8q3-1.5 6 1", ...INK }],
    ["circle", { cx: 11, cy: 13.5, r: 2.2, fill: "#5b3a00" }],
    ["circle", { cx: 21, cy: 13.5, r: 2.2, fill: "#5b3a00" }],
    ["ellipse", { cx: 16, cy: 22.5, rx: 3.2, ry: 4, fill: "#5b3a00" }],
  ],
  sad: [
    FACE,
    ["path", { d: "M7.5 11l5-2.5M24.5 11l-5-2.5", ...INK }],
    ["circle", { cx: 11, cy: 14.5, r: 1.8, fill: "#5b3a00" }],
    ["circle", { cx: 21, cy: 14.5, r: 1.8, fill: "#5b3a00" }],
    ["path", { d: "M10.5 24q5.5-5 11 0", ...INK }],
    DROP(9.5, 17.5),
  ],
  fire: [
    ["path", { d: "M16 1.5c2 6 10 9.5 10 18.5a10 10 0 0 1-20 0c0-5.5 3.5-8 4.5-12.5 2 2.5 3 4.5 3 7 2.5-3 3.5-8 2.5-13z",
      fill: "#f4900c", stroke: "#b34700", "stroke-width": 1.2, "stroke-linejoin": "round" }],
    ["path", { d: "M16 14c1 4 5.5 5.5 5.5 9.5a5.5 5.5 0 0 1-11 0c0-3.5 4-5 5.5-9.5z", fill: "#ffcc4d" }],
  ],
  namaste: [
    ["path", { d: "M15.6 3C12.5 6 11.5 12 11.5 18L7.5 25.5l6 3.5 2.1-6.5z", ...SKIN }],
    ["path", { d: "M16.4 3c3.1 3 4.1 9 4.1 15l4 7.5-6 3.5-2.1-6.5z", ...SKIN }],
    ["path", { d: "M5 27.5l8.5 4.5M27 27.5 18.5 32", fill: "none", stroke: "#3b6fb6", "stroke-width": 3,
      "stroke-linecap": "round" }],
  ],
};

export const REACTIONS = ["clap", "laugh", "wow", "sad", "fire", "namaste"]; // docs/friends-api.md's names, in order

/** A reaction's drawing, hidden from a screen reader (the button or the line around it says it in words). */
export function reactionIcon(name) {
  const svg = document.createElementNS(SVG, "svg");
  for (const [key, value] of Object.entries({ viewBox: "0 0 32 32", class: "reaction-icon", "aria-hidden": "true",
    focusable: "false", "data-icon": name })) svg.setAttribute(key, value);
  for (const [tag, attrs] of DRAWINGS[name]) {
    const shape = document.createElementNS(SVG, tag);
    for (const [key, value] of Object.entries(attrs)) shape.setAttribute(key, String(value));
    svg.append(shape);
  }
  return svg;
}

const SHOWN_MS = 3000; // long enough to read at a glance, short enough that a burst does not pile up

/** The row of reaction buttons for a seated phone (a spectator's link is read-only: none). */
export function reactionBar(send) {
  return el("section", { id: "reactions", class: "reactions", "aria-labelledby": "reactions-title" },
    el("h2", { id: "reactions-title", class: "visually-hidden", text: t("reaction.title") }),
    el("div", { class: "reaction-row" }, REACTIONS.map((name) =>
      el("button", { type: "button", id: `reaction-${name}`, class: "reaction", "data-reaction": name,
        "aria-label": t(`reaction.${name}`), title: t(`reaction.${name}`), onclick: () => send(name) },
      reactionIcon(name)))));
}

function shelf() {
  let box = document.getElementById("reactions-shown");
  if (!box) {
    box = el("div", { id: "reactions-shown", class: "reactions-shown", "aria-hidden": "true" }); // #live speaks
    document.body.append(box);
  }
  return box;
}

/** Show a reaction that arrived (`who` is the sender's name) for a moment, and say it to a screen reader. */
export function showReaction(who, name) {
  if (!Object.hasOwn(DRAWINGS, name)) return; // a newer server's reaction this page does not know: nothing to draw
  const shown = el("p", { class: "reaction-shown", "data-reaction": name },
    reactionIcon(name), el("span", { class: "reaction-who", text: who }));
  shelf().append(shown);
  announce(t("reaction.from", { name: who, reaction: t(`reaction.${name}`) }));
  setTimeout(() => shown.remove(), SHOWN_MS);
}
