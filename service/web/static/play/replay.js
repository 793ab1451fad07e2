// A friends' game's replay, in the style of the Red Dog recall page: every record of the game's audit chain told
// move by move with its cards, the chain's hashes checked (SHA-256(prev_hash || body)) and every retired pack's
// commitment checked against its reveal (SHA-256(salt || order)), in the page with WebCrypto.
import { cardFace } from "./cards.js";
import { el, clear } from "./dom.js";
import { records, tableState } from "./friends-client.js";
import { preferredLanguage, t, translate, useLanguage } from "./i18n.js";
import { narrate } from "./narrate.js";
import { settingsBar } from "./settings-bar.js";

const main = document.getElementById("main");
const code = new URLSearchParams(location.search).get("code") || "";
const utf8 = new TextEncoder();
const fromHex = (text) => new Uint8Array((text.match(/../g) || []).map((h) => parseInt(h, 16)));
const toHex = (bytes) => Array.from(new Uint8Array(bytes), (b) => b.toString(16).padStart(2, "0")).join("");
let shown = null;

async function sha256(...parts) {
  const bytes = new Uint8Array(parts.reduce((n, p) => n + p.length, 0));
  let at = 0;
  for (const part of parts) { bytes.set(part, at); at += part.length; }
  return toHex(await crypto.subtle.digest("SHA-256", bytes));
}

async function allRecords() {
  const items = [];
  let after = 0;
  for (;;) {
    const page = await records(code, after);
    items.push(...page.items);
    if (page.next_after === null) return items;
    after = page.next_after;
  }
}

async function checks(items) {
  let chained = true;
  for (let i = 0; i < items.length; i++) {
    const record = items[i];
    const linked = i === 0 || record.prev_hash === items[i - 1].hash;
    chained = chained && linked && (await sha256(fromHex(record.prev_hash), utf8.encode(record.body))) === record.hash;
  }
  const packs = [];
  for (const record of items) {
    const event = JSON.parse(record.body).event || {};
    if (event.kind !== "ib_shoe_revealed") continue;
    packs.push((await sha256(fromHex(event.salt), utf8.encode(event.order))) === event.commitment);
  }
  return { chained, packs };
}

function draw() {
  translate(document);
  if (!shown) return;
  const { view, items, verdict } = shown;
  const turns = [];
  let cards = [];
  for (const record of items) {
    const event = JSON.parse(record.body).event || {};
    if (event.kind === "ib_card_dealt") cards.push(event.card);
    if (event.kind === "ib_turn_ended") {
      turns.push(el("li", { class: "replay-turn" },
        el("div", { class: "posts small" }, cards.map((c) => cardFace(c))), narrate(view, [record]).join(" ")));
      cards = [];
    }
  }
  const packs = verdict.packs.length === 0 ? t("replay.unrevealed")
    : verdict.packs.every(Boolean) ? t("replay.checked") : t("replay.mismatch");
  clear(main).append(
    el("p", { class: "intro", text: t("replay.intro") }),
    el("p", { id: "pack-check", "data-state": verdict.packs.length && verdict.packs.every(Boolean) ? "verified" : "other",
      class: "banner", text: packs }),
    el("p", { id: "chain-check", "data-state": verdict.chained ? "verified" : "failed", class: "small-print",
      text: t(verdict.chained ? "replay.chain_ok" : "replay.chain_broken", { n: items.length }) }),
    el("section", { class: "panel" }, el("h2", { text: t("log.title") }),
      el("ol", { id: "replay-log" }, narrate(view, items).map((line) => el("li", { text: line })))),
    el("section", { class: "panel" }, el("h2", { text: t("replay.turns") }), el("ol", { id: "replay-turns" }, turns)),
    el("a", { class: "button", href: `/play/inbetween?code=${encodeURIComponent(code)}`, text: t("replay.back") }));
}

async function open() {
  await useLanguage(preferredLanguage());
  settingsBar(draw);
  const [view, items] = await Promise.all([tableState(code), allRecords()]);
  shown = { view, items, verdict: await checks(items) };
  draw();
}

open().catch((error) => { clear(main).append(el("p", { text: t(`problem.${error.code}`) })); });
