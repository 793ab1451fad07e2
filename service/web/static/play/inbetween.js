// The friends' In Between page: start (create or join), the lobby, the table live over Server-Sent Events, the
// moves, the end and the rematch. The seat's token is an HttpOnly cookie; a refresh finds the seat again.
import { announce, el, clear, showAlert } from "./dom.js";
import { LiveTable, createTable, joinTable, rulesets, tableState } from "./friends-client.js";
import { preferredLanguage, t, translate, useLanguage } from "./i18n.js";
import { narrate, soundOf } from "./narrate.js";
import { settingsBar } from "./settings-bar.js";
import { reactionBar, showReaction } from "./reactions.js";
import { play } from "./sound.js";
import { startView } from "./start-view.js";
import { seatName, secondsLeft, tableView } from "./table-view.js";

const main = document.getElementById("main");
const state = { view: null, live: null, log: [], link: "live", wasToAct: false, rules: {} };
const params = new URLSearchParams(location.search);

function problemText(problem) {
  const key = `problem.${problem.code}`;
  const text = t(key);
  return text === key ? t("problem.other", { code: problem.code }) : text;
}

async function attempt(work) {
  try {
    return await work();
  } catch (problem) {
    showAlert(problemText(problem));
    if (state.live) state.live.refresh().catch(() => {});
    return null;
  }
}

function redraw() {
  translate(document);
  if (!state.view) {
    startView(main, { code: params.get("code"), onCreate: create, onJoin: join });
    return;
  }
  const focused = document.activeElement && document.activeElement.id;
  const actions = { move, start: startGame, rematch: startGame, back: takeSeatBack, handSeat, giveSeat };
  tableView(main, state.view, actions, state.log, state.rules[state.view.ruleset] || null);
  main.dataset.version = String(state.view.version);
  main.dataset.status = state.view.status;
  main.prepend(el("p", { id: "link", class: `link ${state.link}`, text: t(`link.${state.link}`) }));
  if (state.view.you && state.view.status !== "closed") {
    const table = main.querySelector(".panel.table"); // under the cards, where a thumb already is
    if (table) table.after(reactionBar(react));
    else main.append(reactionBar(react));
  }
  const again = focused && document.getElementById(focused);
  if (again) again.focus();
  else if (state.view.you && state.view.you.to_act) document.querySelector("[data-move]")?.focus();
}

function onView(view, records) {
  state.view = view;
  const lines = narrate(view, records);
  state.log.push(...lines);
  if (lines.length) announce(lines.slice(-3).join(". "));
  const sound = soundOf(records, view.you && view.you.seat);
  if (sound) play(sound);
  const toAct = Boolean(view.you && view.you.to_act);
  if (toAct && !state.wasToAct) { play("turn"); announce(t("turn.yours")); }
  state.wasToAct = toAct;
  redraw();
}

async function follow(code) {
  if (state.live) state.live.close();
  await readRules();
  state.live = new LiveTable(code, { onView, onLink: (link) => { state.link = link; if (state.view) redraw(); },
    onReaction: (sent) => { if (state.view) showReaction(seatName(state.view, sent.seat), sent.reaction); } });
  state.live.follow();
  return state.live.refresh();
}

async function create(terms) {
  const joined = await attempt(() => createTable(terms));
  if (!joined) return;
  history.replaceState(null, "", `?code=${joined.table.code}`);
  await follow(joined.table.code);
}

async function join(code, name) {
  let started = false;
  const joined = await attempt(() => joinTable(code.trim(), name).catch((problem) => {
    started = problem.code === "TABLE_STARTED";
    throw problem;
  }));
  if (started) {
    await follow(code.trim()); // too late to sit down: watch it
    return;
  }
  if (!joined) return;
  history.replaceState(null, "", `?code=${joined.table.code}`);
  await follow(joined.table.code);
}

async function move(body) {
  const view = await attempt(() => state.live.move(body));
  if (view) state.live.accept(view);
}

async function react(reaction) {
  await attempt(() => state.live.react(reaction)); // it shows when the push brings it back, as on every phone
}

async function takeSeatBack() {
  const view = await attempt(() => state.live.post("/back", {}));
  if (view) state.live.accept(view);
}

async function handSeat(seat) {
  const view = await attempt(() => state.live.post(`/seats/${seat}/computer`, {}));
  if (view) state.live.accept(view);
}

async function giveSeat(seat) {
  const view = await attempt(() => state.live.post(`/seats/${seat}/person`, {}));
  if (view) state.live.accept(view);
}

/** The rule sets' terms as the server lists them (what a split costs, whether players may agree to stop), read
 * once; without them the page offers only what the game awaits. */
async function readRules() {
  if (Object.keys(state.rules).length) return;
  try {
    const listed = await rulesets();
    state.rules = Object.fromEntries(listed.items.map((r) => [r.id, r.terms]));
  } catch {
    state.rules = {};
  }
}

async function startGame() {
  const view = await attempt(() => state.live.post("/start", {}));
  if (view) state.live.accept(view);
}

async function open() {
  await useLanguage(preferredLanguage());
  settingsBar(redraw);
  const code = params.get("watch") || params.get("code");
  if (code) {
    // A seat's cookie finds its seat again; without one, a table that still waits is joined, any other watched.
    const view = await attempt(() => tableState(code));
    if (view && (view.you || params.get("watch") || view.status !== "waiting")) {
      await follow(view.code);
      return;
    }
  }
  redraw();
}

setInterval(() => {
  const timer = document.getElementById("countdown");
  if (!timer || !state.view) return;
  const left = secondsLeft(state.view, Date.now());
  timer.textContent = t("turn.seconds_left", { n: left });
  timer.classList.toggle("low", left <= 5);
}, 1000);

open().catch((error) => { clear(main); main.append(el("p", { text: String(error) })); });
