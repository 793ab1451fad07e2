// The start: open a table (its rule set with one line each, rounds, ante, seats, turn time, your name) or join one
// by its code; and, while it waits, the lobby with the code, the link, the share sheet and a QR code.
import { el, clear } from "./dom.js";
import { t } from "./i18n.js";
import { qrCode } from "./qr.js";

export const RULESETS = [
  "inbetween/nepal/v2", "inbetween/nepal/v1", "inbetween/nepal-half-pot/v1", "inbetween/home/v2",
  "inbetween/home/v1", "inbetween/home-three/v1", "inbetween/pay-the-bet/v1", "inbetween/pagat-ante/v1",
  "inbetween/pagat-push/v1", "inbetween/pagat-min-ante/v1", "inbetween/pagat-banker/v1", "inbetween/pagat-ante/v2",
  "inbetween/pagat-split/v1", "inbetween/pagat-down/v1",
];

function field(id, label, control) {
  control.id = id;
  return el("div", { class: "field" }, el("label", { for: id, text: t(label) }), control);
}

function choice(name, values, chosen, words = (v) => String(v)) {
  return el("select", { name }, values.map((v) => el("option", { value: v, selected: v === chosen, text: words(v) })));
}

function nameInput() {
  return el("input", { name: "name", type: "text", maxlength: 32, required: true, autocomplete: "nickname" });
}

export function startView(main, { code, onCreate, onJoin }) {
  clear(main);
  const join = el("form", { class: "panel", id: "join-form", "aria-labelledby": "join-title" },
    el("h2", { id: "join-title", text: t("start.join") }),
    field("join-code", "start.code", el("input", { name: "code", type: "text", value: code || "", required: true,
      autocomplete: "off", autocapitalize: "characters", spellcheck: "false", inputmode: "text" })),
    field("join-name", "start.your_name", nameInput()),
    el("button", { type: "submit", class: "primary", text: t("start.join_button") }));
  join.addEventListener("submit", (event) => {
    event.preventDefault();
    const data = new FormData(join);
    onJoin(String(data.get("code")), String(data.get("name")));
  });
  const create = el("form", { class: "panel", id: "create-form", "aria-labelledby": "create-title" },
    el("h2", { id: "create-title", text: t("start.create") }),
    field("create-name", "start.your_name", nameInput()),
    field("create-ruleset", "start.ruleset",
      choice("ruleset", RULESETS, RULESETS[0], (id) => t(`ruleset.${id}`))),
    el("div", { class: "row" },
      field("create-rounds", "start.rounds", choice("rounds", [5, 10, 15], 10, (v) => t("n", { n: v }))),
      field("create-ante", "start.ante", choice("ante", [5, 10, 20], 10, (v) => t("n", { n: v })))),
    el("div", { class: "row" },
      field("create-seats", "start.seats", choice("seats", [2, 3, 4, 5, 6, 7, 8], 4, (v) => t("n", { n: v }))),
      field("create-turn", "start.turn_seconds",
        choice("turn_seconds", [15, 30, 60, 120], 30, (v) => t("seconds", { n: v })))),
    el("button", { type: "submit", class: "primary", text: t("start.create_button") }));
  create.addEventListener("submit", (event) => {
    event.preventDefault();
    const data = new FormData(create);
    onCreate({
      name: String(data.get("name")),
      ruleset: String(data.get("ruleset")),
      rounds: Number(data.get("rounds")),
      ante: Number(data.get("ante")),
      seats: Number(data.get("seats")),
      turn_seconds: Number(data.get("turn_seconds")),
    });
  });
  main.append(el("p", { class: "intro", text: t("start.intro") }), ...(code ? [join, create] : [create, join]));
}

export function watchLink(view) {
  return view.share_url.replace("?code=", "?watch=");
}

/** Where the table can be passed on: its code read aloud, the link, the phone's share sheet, a QR code. */
export function sharePanel(view) {
  const link = el("input", { id: "share-link", type: "text", readonly: true, value: view.share_url,
    "aria-label": t("share.link") });
  const panel = el("section", { class: "panel share", "aria-labelledby": "share-title" },
    el("h2", { id: "share-title", text: t("share.title") }),
    el("p", {}, t("share.code"), " ", el("strong", { id: "table-code", class: "code", text: view.display_code })),
    link,
    el("div", { class: "row" },
      el("button", { type: "button", id: "copy-link", text: t("share.copy"), onclick: async () => {
        link.select();
        try { await navigator.clipboard.writeText(view.share_url); } catch { /* selected: the phone copies */ }
      } }),
      navigator.share ? el("button", { type: "button", id: "share-sheet", text: t("share.share"),
        onclick: () => navigator.share({ title: t("title"), url: view.share_url }).catch(() => {}) }) : null),
    qrCode(view.share_url, t("share.qr")),
    el("p", { class: "small-print" }, t("share.watch"), " ",
      el("a", { id: "watch-link", href: watchLink(view), text: t("share.watch_link") })));
  return panel;
}
