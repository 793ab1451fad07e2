// Plays a round with openapi-fetch on the types openapi-typescript generates from /schema/openapi.json (default
// settings, no flag) and the shipped signedFetch: type-checked by tsc in tests/api/test_generated_clients.py, then run
// by node against a live server.
import createClient from "openapi-fetch";
import type { components, paths } from "./schema";
import { signedFetch } from "./signed-fetch.js";

type Schemas = components["schemas"];

export interface Played {
  round: Schemas["RoundOut"];
  rolledBack: Schemas["RoundOut"];
  replayed: boolean;
  auditLines: number;
  unknownCode: string;
}

function must<T>(data: T | undefined, error: Schemas["Problem"] | undefined): T {
  if (data === undefined) throw new Error(`${error?.type.toUpperCase()} ${error?.status} ${error?.code}: ${error?.detail}`);
  return data;
}

export async function play(baseUrl: string, operatorId: string, secret: string): Promise<Played> {
  const client = createClient<paths>({ baseUrl, fetch: signedFetch({ operatorId, secret }) });
  const key = (): { header: { "Idempotency-Key": string } } => ({ header: { "Idempotency-Key": crypto.randomUUID() } });
  // Only the fields without a default: the rest stay optional under the generator's default settings.
  const create: Schemas["CreateTable"] = {
    name: "ts", paytable: "standard/v1", currency: "EUR", min_ante: 100, max_ante: 10000,
  };
  const made = await client.POST("/v1/tables", { body: create, params: key() });
  const table = must(made.data, made.error);
  // What a table reports can be sent back to open another like it: the enums are the same types.
  const again: Schemas["CreateTable"] = { ...create, shoe_policy: table.shoe_policy, mode: table.mode };
  void again;
  const opening = { params: { path: { table_id: table.table_id }, ...key() }, body: { bets: [{ player_id: "alice", ante: 500 }] } };
  const opened = await client.POST("/v1/tables/{table_id}/rounds", opening);
  let round = must(opened.data, opened.error);
  const retried = await client.POST("/v1/tables/{table_id}/rounds", opening); // the same key: the first reply again
  const replayed = retried.response.headers.get("Idempotent-Replayed") === "true" && retried.data?.round_id === round.round_id;
  if (round.status === "raise_window") {
    const raise: Schemas["DecisionIn"] = { action: "raise", bet_id: round.bets[0].bet_id };
    const path = { round_id: round.round_id };
    const decided = await client.POST("/v1/rounds/{round_id}/decisions", { params: { path, ...key() }, body: raise });
    round = must(decided.data, decided.error);
  }
  const result: Schemas["BetOut"]["result"] = round.bets[0].result;
  if (result === null) throw new Error("the round did not settle");
  const reveal: Schemas["RevealOut"] | null = round.shoe.reveal; // required, and null until the shoe retires
  void reveal;
  const listed = await client.GET("/v1/rounds", { params: { query: { table_id: table.table_id, limit: 5 } } });
  if (must(listed.data, listed.error).items[0].round_id !== round.round_id) throw new Error("the round is not listed");
  const back = await client.POST("/v1/rounds/{round_id}/rollback", {
    params: { path: { round_id: round.round_id }, ...key() },
    body: { reason: "the ts client's rollback" },
  });
  const rolledBack = must(back.data, back.error);
  // The audit export is JSON Lines: read as text (or parseAs: "stream"), one JSON document a line.
  const audit = await client.GET("/v1/audit/records", { params: { query: { table_id: table.table_id } }, parseAs: "text" });
  const lines = must(audit.data, audit.error).split("\n").filter((line) => line !== "");
  const kinds = lines.map((line) => (JSON.parse(line) as { type: string }).type);
  if (kinds[0] !== "table") throw new Error(`the export starts with ${kinds[0]}`);
  return { round, rolledBack, replayed, auditLines: lines.length, unknownCode: await unknownCode(baseUrl, operatorId, secret) };
}

// A later server may answer a code this document does not list: the client's type takes it (with a closed enum tsc
// refuses the comparison below as one that can never be true).
async function unknownCode(baseUrl: string, operatorId: string, secret: string): Promise<string> {
  const signed = signedFetch({ operatorId, secret });
  const later: typeof fetch = async (input, init) => {
    const reply = await signed(input, init);
    const text = (await reply.text()).replace('"code":"NOT_FOUND"', '"code":"SOME_NEW_CODE"');
    return new Response(text, { status: reply.status, headers: reply.headers });
  };
  const client = createClient<paths>({ baseUrl, fetch: later });
  const missing = await client.GET("/v1/tables/{table_id}", { params: { path: { table_id: "00000000-0000-4000-8000-000000000000" } } });
  const problem: Schemas["Problem"] | undefined = missing.error;
  if (problem?.code === "SOME_NEW_CODE" && problem.status === 404) return problem.code;
  const known: Schemas["ProblemCode"] = "NOT_FOUND"; // the documented codes are a type of their own
  throw new Error(`expected the unlisted code, got ${problem?.code} (a listed one: ${known})`);
}
