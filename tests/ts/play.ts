// Plays a round with the types openapi-typescript generates from /schema/openapi.json and the shipped signedFetch:
// type-checked by tsc in tests/api/test_generated_clients.py, then run by node against a live server.
import type { components } from "./schema";
import { signedFetch } from "./signed-fetch.js";

type Schemas = components["schemas"];

export async function play(base: string, operatorId: string, secret: string): Promise<Schemas["RoundOut"]> {
  const send = signedFetch({ operatorId, secret });
  const post = async <T>(path: string, body: unknown): Promise<T> => {
    const res = await send(base + path, {
      method: "POST",
      headers: { "Content-Type": "application/json" },
      body: JSON.stringify(body),
    });
    const json: unknown = await res.json();
    if (!res.ok) {
      const p = json as Schemas["Problem"];
      throw new Error(`${p.type.toUpperCase()} ${p.status} ${p.code}: ${p.detail}`); // `type` is always sent
    }
    return json as T;
  };
  const create: Schemas["CreateTable"] = {
    name: "ts", paytable: "standard/v1", currency: "EUR", min_ante: 100, max_ante: 10000,
  };
  const table = await post<Schemas["TableOut"]>("/v1/tables", create);
  // What a table reports can be sent back to open another like it: the enums are the same types.
  const again: Schemas["CreateTable"] = { ...create, shoe_policy: table.shoe_policy, mode: table.mode };
  void again;
  const exponent: number = table.currency_exponent;
  void exponent;
  const opened: Schemas["CreateRound"] = { bets: [{ player_id: "alice", ante: 500 }] };
  let round = await post<Schemas["RoundOut"]>(`/v1/tables/${table.table_id}/rounds`, opened);
  if (round.status === "raise_window") {
    const bet = round.bets[0];
    const raise: Schemas["DecisionIn"] = { action: "raise", bet_id: bet.bet_id };
    round = await post<Schemas["RoundOut"]>(`/v1/rounds/${round.round_id}/decisions`, raise);
  }
  const result: Schemas["BetOut"]["result"] = round.bets[0].result;
  if (result === null) throw new Error("the round did not settle");
  const reveal: Schemas["RevealOut"] | null = round.shoe.reveal; // required, and null until the shoe retires
  void reveal;
  const list = await send(`${base}/v1/rounds?table_id=${table.table_id}&limit=5`);
  const page = (await list.json()) as Schemas["RoundPage"];
  if (page.items[0].round_id !== round.round_id) throw new Error("the signed GET did not list the round");
  return round;
}
