// The table as the server sends it: posts, pot, chips, whose turn and its countdown, the dealer, the count of cards
// turned since the shuffle, the odds of the unseen cards, the moves the seat may make, and the end. It shows; the
// server decides (every number here is the server's).
import { cardBack, cardFace, cardSpace } from "./cards.js";
import { el, clear } from "./dom.js";
import { t } from "./i18n.js";
import { sharePanel } from "./start-view.js";

export function seatName(view, seat) {
  const player = view.players.find((p) => p.seat === seat);
  if (!player || player.name === null) return t("seat.computer", { n: seat + 1 });
  return player.name;
}

function seatOfPlayer(view, playerId) {
  const player = view.players.find((p) => p.player_id === playerId);
  return player ? player.seat : null;
}

export function secondsLeft(view, now) {
  if (!view.turn_deadline) return null;
  return Math.max(0, Math.ceil((Date.parse(view.turn_deadline) - now) / 1000));
}

function countdown(view) {
  const left = secondsLeft(view, Date.now());
  if (left === null) return null;
  return el("span", { id: "countdown", role: "timer", "aria-live": "off", class: left <= 5 ? "countdown low" : "countdown",
    text: t("turn.seconds_left", { n: left }) });
}

let dealtBefore = new Set(); // the cards the last drawing showed: only a card new since then is dealt with motion

function face(code, role) {
  const card = cardFace(code);
  if (!dealtBefore.has(`${role}:${code}`)) card.classList.add("new");
  return card;
}

function posts(game) {
  const turn = game.turn;
  const first = turn && turn.first_post;
  const second = turn && turn.second_post;
  const third = turn && turn.third_card;
  // Face-down posts (pagat-down): the server names them only to their own seat (`own_cards`); everyone else sees
  // their backs until they are shown.
  const down = turn && turn.down && turn.down.length > 0 && !first && !second;
  const own = down ? game.own_cards || [] : [];
  const hidden = (i, label, role) => el("div", { class: `post ${role} down` },
    own[i] ? face(own[i], role) : cardBack(`${label}: ${t("post.face_down")}`), el("span", { class: "post-label", text: label }));
  const slot = (code, label, role) => el("div", { class: `post ${role}` },
    code ? face(code, role) : cardSpace(label), el("span", { class: "post-label", text: label }));
  const drawn = down ? [["first", own[0]], ["second", own[1]], ["third", third]] : [["first", first], ["second", second], ["third", third]];
  const shown = new Set(drawn.filter(([, c]) => c).map(([r, c]) => `${r}:${c}`)); // own face-down cards deal once too
  queueMicrotask(() => { dealtBefore = shown; });
  const row = el("div", { class: "posts", id: "posts" },
    down ? hidden(0, t("post.first"), "first") : slot(first, t("post.first"), "first"),
    slot(third, t("post.third"), "third"),
    down ? hidden(1, t("post.second"), "second") : slot(second, t("post.second"), "second"));
  if (!own.length) return row;
  return el("div", {}, row, el("p", { id: "own-cards", class: "tip", text: t("post.yours_only") }));
}

function odds(game) {
  if (!game.odds) return null;
  const o = game.odds;
  return el("p", { id: "odds", class: "odds" }, t("odds.line", { unseen: o.unseen, win: o.win, post: o.post, lose: o.lose }));
}

function callButtons(kind, calls, send, version) {
  return calls.map(({ call, label }) => el("button", { type: "button", class: "primary", "data-move": `${kind}:${call}`,
    text: label, onclick: () => send({ action: kind, call, version }) }));
}

// A decision between two moves without fields: the first is the primary button.
function twoMoves([first, firstLabel], [second, secondLabel], send, version) {
  return [
    el("button", { type: "button", class: "primary", "data-move": first, text: firstLabel,
      onclick: () => send({ action: first, version }) }),
    el("button", { type: "button", "data-move": second, text: secondLabel,
      onclick: () => send({ action: second, version }) }),
  ];
}

function betControls(game, send) {
  const turn = game.turn;
  const least = turn.min_bet ?? 1;
  const most = turn.max_bet ?? least;
  const amount = el("input", { id: "bet-amount", type: "number", min: least, max: most, step: 1, value: least,
    inputmode: "numeric" });
  const quick = [...new Set([least, Math.max(least, Math.floor(most / 2)), most])].map((n) =>
    el("button", { type: "button", class: "chip", text: t("n", { n }), "aria-label": t("bet.amount_n", { n }),
      onclick: () => { amount.value = n; } }));
  return [
    el("div", { class: "field" }, el("label", { for: "bet-amount", text: t("bet.amount", { least, most }) }), amount),
    el("div", { class: "row quick" }, quick),
    el("div", { class: "row" },
      el("button", { type: "button", class: "primary", "data-move": "bet", text: t("move.bet"),
        onclick: () => send({ action: "bet", amount: Number(amount.value), version: game.version }) }),
      el("button", { type: "button", "data-move": "pass", text: t("move.pass"),
        onclick: () => send({ action: "pass", version: game.version }) })),
  ];
}

/** What splitting a pair costs at this game, from the rule set's terms as the server lists them (null: unknown). */
function splitCost(game, rules) {
  const split = rules && rules.split;
  if (!split) return null;
  return split.cost === "ante" ? game.ante : Number(split.cost);
}

function moves(view, send, rules) {
  const game = view.game;
  if (!view.you || !view.you.to_act || !game.awaiting) return null;
  let controls;
  if (game.awaiting === "ace_call") {
    controls = callButtons("call_ace", [{ call: "high", label: t("move.ace_high") }, { call: "low", label: t("move.ace_low") }],
      send, game.version);
  } else if (game.awaiting === "split") {
    controls = twoMoves(["split", t("move.split")], ["keep_pair", t("move.keep_pair")], send, game.version);
  } else if (game.awaiting === "show") {
    controls = twoMoves(["show", t("move.show")], ["pass", t("move.fold")], send, game.version);
  } else if (game.awaiting === "pair_call") {
    const calls = game.pair_call_odds.map((c) => ({ call: c.call,
      label: t(`move.pair_${c.call}`, { win: c.odds.win, unseen: c.odds.unseen }) }));
    controls = callButtons("call_pair", calls, send, game.version);
  } else {
    controls = betControls(game, send);
  }
  const ask = t(`ask.${game.awaiting}`);
  const tip = view.you.tip ? el("p", { class: "tip", text: t(`tip.${view.you.tip}`) }) : null;
  const cost = game.awaiting === "split" ? splitCost(game, rules) : null;
  const costs = cost === null ? null : el("p", { id: "split-cost", class: "tip", text: t("split.cost", { n: cost }) });
  const hand = game.turn && game.turn.hand ? el("p", { id: "hand", class: "tip",
    text: t("split.hand", { n: game.turn.hand }) }) : null;
  return el("section", { id: "moves", class: "panel moves", "aria-labelledby": "moves-title" },
    el("h2", { id: "moves-title", text: ask }), hand, costs, tip,
    game.awaiting === "bet" ? controls : el("div", { class: "row" }, controls));
}

/** The host's hand-over of another person's seat while the game is played: to the computer, and back. */
function seatControl(view, p, actions) {
  if (!view.you || !view.you.host || view.status !== "playing" || p.seat === view.you.seat || p.name === null) return null;
  if (p.held_by === null) {
    return el("button", { type: "button", id: `hand-${p.seat}`, class: "seat-control", text: t("seat.hand"),
      "aria-label": t("seat.hand_named", { name: p.name }), onclick: () => actions.handSeat(p.seat) });
  }
  if (p.held_by === "host" || p.held_by === "missed") {
    return el("button", { type: "button", id: `give-${p.seat}`, class: "seat-control", text: t("seat.give_back"),
      "aria-label": t("seat.give_back_named", { name: p.name }), onclick: () => actions.giveSeat(p.seat) });
  }
  return null; // a player who left: the computer keeps the seat
}

function players(view, actions = {}) {
  const game = view.game;
  const actingSeat = game && game.to_act ? seatOfPlayer(view, game.to_act) : null;
  const rows = view.players.map((p) => {
    const chips = game ? (game.seats.find((s) => s.seat === p.seat) || {}).chips : null;
    const marks = [
      game && game.dealer === p.seat ? t("mark.dealer") : null,
      p.host ? t("mark.host") : null,
      view.you && view.you.seat === p.seat ? t("mark.you") : null,
      p.name !== null && p.computer_plays ? t("mark.computer_plays") : null,
      game && game.agreed.includes(p.seat) ? t("mark.agreed") : null,
    ].filter(Boolean);
    return el("li", { class: p.seat === actingSeat ? "player acting" : "player", "data-seat": p.seat,
      "aria-current": p.seat === actingSeat ? "true" : null },
      el("span", { class: "player-name", text: seatName(view, p.seat) }),
      el("span", { class: "marks", text: marks.join(" · ") }),
      chips === null || chips === undefined ? null : el("span", { class: "chips", text: t("chips", { n: chips }) }),
      seatControl(view, p, actions));
  });
  return el("ul", { id: "players", class: "players", "aria-label": t("players") }, rows);
}

function turnLine(view) {
  const game = view.game;
  if (!game.to_act) return null;
  const seat = seatOfPlayer(view, game.to_act);
  const whose = view.you && view.you.to_act ? t("turn.yours") : t("turn.of", { name: seatName(view, seat) });
  return el("p", { id: "turn", class: "turn" }, whose, " ", countdown(view));
}

function ending(view, actions) {
  const game = view.game;
  const winners = game.winners.map((s) => seatName(view, s)).join(", ");
  const reveal = game.shoe.reveal;
  return el("section", { id: "ending", class: "panel ending", "aria-labelledby": "ending-title" },
    el("h2", { id: "ending-title", text: t("end.title") }),
    el("p", { id: "winners", text: t(game.winners.length > 1 ? "end.winners" : "end.winner", { names: winners }) }),
    game.ended_reason ? el("p", { text: t(`end.reason.${game.ended_reason}`) }) : null,
    reveal ? el("p", { class: "small-print hash", text: t("shoe.revealed", { salt: reveal.salt.slice(0, 16) }) }) : null,
    el("div", { class: "row" },
      view.you && view.you.host ? el("button", { type: "button", id: "rematch", class: "primary", text: t("end.rematch"),
        onclick: actions.rematch }) : el("p", { text: t("end.wait_rematch") }),
      el("a", { id: "replay-link", class: "button", href: `/play/inbetween/replay?code=${view.code}`, text: t("end.replay") })));
}

function lobby(view, actions) {
  const seated = view.players.length;
  return [
    sharePanel(view),
    el("section", { class: "panel", "aria-labelledby": "lobby-title" },
      el("h2", { id: "lobby-title", text: t("lobby.title", { n: seated, seats: view.seats }) }),
      players(view),
      el("p", { class: "small-print", text: t("lobby.computers") }),
      view.you && view.you.host
        ? el("button", { type: "button", id: "start", class: "primary", text: t("lobby.start"), onclick: actions.start })
        : el("p", { id: "waiting", text: t("lobby.wait") })),
  ];
}

function heldSeat(view, actions) {
  const mine = view.you && view.players.find((p) => p.seat === view.you.seat);
  if (!mine || !mine.held_by || view.status === "closed") return null;
  return el("p", { id: "held", class: "banner" }, t(`held.${mine.held_by}`), " ",
    el("button", { type: "button", id: "back", class: "primary", text: t("held.back"), onclick: actions.back }));
}

/** Stopping by agreement, where the rule set has it (its terms as the server lists them): the seats that agreed, and
 * for a seat that may agree now (the game goes on, it has chips, it has not agreed) the button. The engine's own
 * conditions (`check_agreement`), read from the view; the server still decides. */
function stopPanel(view, actions, rules) {
  const game = view.game;
  if (!rules || !rules.stop_by_agreement || game.status === "game_over") return null;
  const withChips = game.seats.filter((s) => s.chips > 0).map((s) => s.seat);
  const agreed = game.agreed.filter((s) => withChips.includes(s));
  const mine = view.you ? game.seats.find((s) => s.seat === view.you.seat) : null;
  const may = mine && mine.chips > 0 && !game.agreed.includes(mine.seat);
  return el("section", { id: "stop", class: "panel stop", "aria-labelledby": "stop-title" },
    el("h2", { id: "stop-title", text: t("stop.title") }),
    el("p", { id: "stop-count", text: t("stop.count", { n: agreed.length, of: withChips.length }) }),
    may ? el("button", { type: "button", id: "agree-stop", "data-stop": "agree", text: t("move.agree_stop"),
      onclick: () => actions.move({ action: "agree_stop", version: game.version }) })
      : view.you && mine && game.agreed.includes(mine.seat) ? el("p", { id: "stop-mine", text: t("stop.you_agreed") }) : null);
}

export function tableView(main, view, actions, log, rules = null) {
  clear(main);
  if (!view.you) main.append(el("p", { id: "spectating", class: "banner", text: t("watch.banner") }));
  const held = heldSeat(view, actions);
  if (held) main.append(held);
  if (view.status === "waiting") {
    main.append(...lobby(view, actions));
    return;
  }
  if (view.status === "closed" || !view.game) {
    main.append(el("p", { id: "closed", text: t("table.closed") }));
    return;
  }
  const game = view.game;
  main.append(...[ // a panel with nothing to show is null: left out (append would write it as the text "null")
    el("section", { class: "panel table", "aria-labelledby": "table-title" },
      el("h2", { id: "table-title", text: t("table.round", { round: game.round, rounds: game.rounds ?? "∞" }) }),
      el("p", { id: "facts", class: "facts" },
        el("span", { id: "pot", class: "pot", text: t("table.pot", { n: game.pot }) }),
        el("span", { id: "count", text: t("table.count", { n: game.count }) })),
      posts(game), odds(game), turnLine(view)),
    game.status === "game_over" ? ending(view, actions) : moves(view, actions.move, rules),
    stopPanel(view, actions, rules),
    players(view, actions),
    el("section", { class: "panel log", "aria-labelledby": "log-title" },
      el("h2", { id: "log-title", text: t("log.title") }),
      el("ol", { id: "log" }, log.slice(-8).map((line) => el("li", { text: line })))),
    el("p", { class: "small-print hash", id: "commitment", text: t("shoe.commitment", { hash: game.shoe.commitment.slice(0, 16) }) }),
  ].filter(Boolean));
}
