// The game's records told as lines of the log: what happened since the version the page last saw.
import { cardName } from "./cards.js";
import { t } from "./i18n.js";
import { seatName } from "./table-view.js";

// Seats asked to split a pair and not yet answered. A keep writes no record of its own: what follows it (the bet or
// the call awaited, the pair paid or pushed) tells it; a split says so. Kept across reads, since the question and
// the answer may come in different ones, and seeded by a view that shows the question with no records.
const splitAsked = new Set();
const AFTER_A_KEEP = new Set(["ib_turn_ended", "ib_awaiting", "ib_chips_moved"]);

function keptPair(event) {
  if (!splitAsked.has(event.seat) || !AFTER_A_KEEP.has(event.kind)) return false;
  if (event.kind === "ib_awaiting" && !["bet", "pair_call"].includes(event.decision)) return false;
  if (event.kind === "ib_chips_moved" && !["pair_paid", "ante_returned"].includes(event.reason)) return false;
  return true;
}

/** The records told as lines (`view` is the table after them). */
export function narrate(view, records) {
  const lines = [];
  let reanted = false;
  let anteBack = false;
  if (!records.length && view.game && view.game.awaiting === "split" && view.game.turn) splitAsked.add(view.game.turn.seat);
  for (const record of records) {
    const event = JSON.parse(record.body).event || {};
    const who = event.seat === undefined || event.seat === null ? "" : seatName(view, event.seat);
    if (keptPair(event)) {
      splitAsked.delete(event.seat);
      lines.push(t("log.keep_pair", { name: who }));
    }
    if (event.kind === "ib_pair_split" || (event.kind === "ib_card_dealt" && event.role === "first_post")) {
      splitAsked.delete(event.seat); // split, or a new turn: no answer pending
    }
    switch (event.kind) {
      case "ib_awaiting":
        if (event.decision === "split") splitAsked.add(event.seat);
        break;
      case "ib_hand_ended":
        lines.push(`${t("log.first_hand")} ${t(`log.outcome.${event.outcome}`, { name: who })}`);
        break;
      case "ib_stop_agreed":
        lines.push(t("log.agree_stop", { name: who }));
        break;
      case "ib_stood_in": // the timer's default move follows; the computer's seats show who holds them
        if (event.by === "timer") lines.push(t("log.timed_out", { name: who }));
        break;
      case "ib_shoe_shuffled":
        lines.push(t("log.shuffled", { n: event.size, kept: event.excluded.length }));
        break;
      case "ib_dealer_chosen":
        lines.push(t("log.dealer", { name: seatName(view, event.dealer) }));
        break;
      case "ib_round_started":
        lines.push(t("log.round", { n: event.round }));
        break;
      case "ib_card_dealt":
        lines.push(t(`log.card.${event.role}`, { name: who, card: cardName(event.card) }));
        break;
      case "ib_card_dealt_down": // a face-down post: the record names its place in the pack, never the card
        if (event.role === "second_post") lines.push(t("log.card.down", { name: who }));
        break;
      case "ib_cards_shown":
        lines.push(t("log.shown", { name: who, first: cardName(event.cards[0]), second: cardName(event.cards[1]) }));
        break;
      case "ib_ace_called":
        lines.push(t(`log.ace.${event.call}`, { name: who }));
        break;
      case "ib_pair_called":
        lines.push(t(`log.pair.${event.call}`, { name: who }));
        break;
      case "ib_bet_placed":
        lines.push(t("log.bet", { name: who, n: event.amount }));
        break;
      case "ib_turn_ended":
        // A pair that pushes gives the ante back under some rules and leaves everything as it was under others.
        lines.push(t(event.outcome === "pair_pushed" && !anteBack ? "log.outcome.pair_stands" : `log.outcome.${event.outcome}`,
          { name: who }));
        anteBack = false;
        break;
      case "ib_chips_moved":
        if (event.reason === "reante" && !reanted) lines.push(t("log.refilled"));
        if (event.reason === "reante") reanted = true;
        if (event.reason === "shared") lines.push(t("log.shared", { name: who, n: event.delta }));
        if (event.reason === "split") lines.push(t("log.split", { name: who, n: -event.delta })); // then ib_pair_split
        if (event.reason === "ante_returned") anteBack = true;
        break;
      case "ib_game_ended":
        lines.push(t("log.ended"));
        break;
      default:
        break;
    }
  }
  return lines;
}

/** The sound a batch of records calls for, if any: a card, a win, a loss. */
export function soundOf(records, yourSeat) {
  let sound = null;
  for (const record of records) {
    const event = JSON.parse(record.body).event || {};
    if (event.kind === "ib_card_dealt") sound = sound || "deal";
    if (event.kind === "ib_turn_ended" && event.seat === yourSeat) sound = ["win", "pair_paid"].includes(event.outcome) ? "win" : "lose";
  }
  return sound;
}
