// The load generator of `make bench`: C aggregator clients, each on its own keep-alive connection and its own table,
// playing complete signed rounds (or GET /health/live) back to back. bench/load_generator.py drives it over stdin/stdout:
// it prints {"event":"ready"} once the tables exist, "start" opens the measured window, "stop" closes it and prints
// the window's figures. It is kept small because its own CPU is measured and must stay a small share of a round.
import { createHmac, randomUUID } from 'node:crypto';
import { createInterface } from 'node:readline';
import { Client } from 'undici';

const config = JSON.parse(process.argv[2]);
const EMPTY = Buffer.alloc(0);

// The bytes an operator signs (docs/api.md, "Signing requests"):
// timestamp \n METHOD \n path_with_query \n idempotency_key \n raw_body, the key line empty for a GET.
function signingMessage(timestamp, method, pathWithQuery, idempotencyKey, body) {
  return Buffer.concat([Buffer.from(`${timestamp}\n${method}\n${pathWithQuery}\n${idempotencyKey ?? ''}\n`), body]);
}

function signedHeaders(method, path, key, body) {
  const timestamp = String(Math.floor(Date.now() / 1000));
  const signature = createHmac('sha256', config.secret)
    .update(signingMessage(timestamp, method, path, key, body))
    .digest('hex');
  const headers = {
    'content-type': 'application/json',
    'x-operator-id': config.operator,
    'x-timestamp': timestamp,
    'x-signature': signature,
  };
  if (key !== undefined) headers['idempotency-key'] = key;
  return headers;
}

let measured = null; // the open window's figures; null outside it
let stopping = false;

function newWindow() {
  return { startedAt: performance.now(), rounds: { settled_at_open: 0, raise: 0, call: 0 }, requests: {}, latencies_us: {}, errors: {} };
}

function recordRequest(endpoint, micros) {
  if (measured === null) return;
  measured.requests[endpoint] = (measured.requests[endpoint] ?? 0) + 1;
  (measured.latencies_us[endpoint] ??= []).push(micros);
}

function recordError(endpoint, what) {
  if (measured === null) return;
  const key = `${endpoint} ${what}`;
  measured.errors[key] = (measured.errors[key] ?? 0) + 1;
}

function recordRound(kind) {
  if (measured !== null) measured.rounds[kind] += 1;
}

const pause = (ms) => new Promise((resolve) => setTimeout(resolve, ms));

// One request; the parsed body of a 2xx, or null after recording the failure. A fresh Idempotency-Key per POST.
async function call(client, endpoint, method, path, payload) {
  const body = payload === undefined ? EMPTY : Buffer.from(JSON.stringify(payload));
  const key = method === 'POST' ? randomUUID() : undefined;
  const headers = config.signed === false ? {} : signedHeaders(method, path, key, body);
  const started = performance.now();
  try {
    const response = await client.request({ method, path, headers, body: body.length ? body : undefined });
    const parsed = await response.body.json();
    const micros = Math.round((performance.now() - started) * 1000);
    if (response.statusCode >= 200 && response.statusCode < 300) {
      recordRequest(endpoint, micros);
      return { body: parsed, key };
    }
    recordError(endpoint, `${response.statusCode} ${parsed?.code ?? ''}`.trim());
  } catch (error) {
    recordError(endpoint, `network ${error.code ?? error.name}`);
  }
  await pause(5); // a failing server must not turn the generator into a busy loop
  return null;
}

async function openTable(client, index) {
  const created = await call(client, 'setup', 'POST', '/v1/tables', {
    name: `bench-${index}`, paytable: config.paytable, currency: 'EUR', min_ante: 100, max_ante: 10000,
  });
  if (created === null) throw new Error(`could not create table ${index}`);
  return { tableId: created.body.table_id, minRaiseSpread: created.body.theoretical.min_raise_spread };
}

// One complete round: open with one bet, and if a raise window opened, raise on a wide enough spread or call.
async function playRound(client, table, player, played) {
  const opened = await call(client, 'open', 'POST', `/v1/tables/${table.tableId}/rounds`, {
    bets: [{ player_id: player, ante: config.ante }],
  });
  if (opened === null) return;
  const round = opened.body;
  played?.push({ round_id: round.round_id, keys: [opened.key] });
  if (round.status === 'settled') {
    recordRound('settled_at_open');
    return;
  }
  const action = round.spread >= table.minRaiseSpread ? 'raise' : 'call';
  const decided = await call(client, 'decide', 'POST', `/v1/rounds/${round.round_id}/decisions`, {
    bet_id: round.bets[0].bet_id, action,
  });
  if (decided === null) return;
  played?.at(-1).keys.push(decided.key);
  if (decided.body.status === 'settled') recordRound(action);
}

async function roundsLoop(client, index) {
  const table = await openTable(client, index);
  return async () => {
    while (!stopping) await playRound(client, table, `player-${index}`);
  };
}

async function healthLoop(client) {
  return async () => {
    while (!stopping) await call(client, 'health', 'GET', '/health/live');
  };
}

const print = (event) => process.stdout.write(`${JSON.stringify(event)}\n`);
const commands = createInterface({ input: process.stdin });
const nextCommand = () => new Promise((resolve) => commands.once('line', (line) => resolve(line.trim())));

function closeWindow() {
  const window = measured ?? newWindow(); // "stop" without "start": an empty window
  measured = null;
  const { startedAt, ...figures } = window;
  return { event: 'window', seconds: (performance.now() - startedAt) / 1000, ...figures };
}

async function measure() {
  const clients = Array.from({ length: config.clients }, () => new Client(config.url, { pipelining: 1 }));
  const prepare = config.mode === 'health' ? healthLoop : roundsLoop;
  const loops = await Promise.all(clients.map((client, index) => prepare(client, index)));
  const running = loops.map((loop) => loop());
  print({ event: 'ready' });
  for (;;) {
    const command = await nextCommand();
    if (command === 'start') measured = newWindow();
    if (command === 'stop') break;
  }
  print(closeWindow());
  stopping = true;
  await Promise.race([Promise.all(running), pause(5000)]);
  await Promise.all(clients.map((client) => client.destroy()));
}

// Capture mode: one client plays rounds one at a time so the server's statements can be told apart by request.
async function capture() {
  const client = new Client(config.url, { pipelining: 1 });
  const table = await openTable(client, 0);
  print({ event: 'table', table_id: table.tableId });
  await nextCommand(); // "go": the harness has prepared the table
  for (let i = 0; i < config.warmup_rounds; i += 1) await playRound(client, table, 'player-0');
  const played = [];
  for (let i = 0; i < config.rounds; i += 1) await playRound(client, table, 'player-0', played);
  print({ event: 'captured', table_id: table.tableId, rounds: played });
  await client.close();
}

// Counted mode (bench/instructions.py): one client warms up, waits for "go" while the harness zeroes its counters,
// then plays a fixed number of rounds one at a time and prints what they were.
async function counted() {
  const client = new Client(config.url, { pipelining: 1 });
  const table = await openTable(client, 0);
  for (let i = 0; i < config.warmup_rounds; i += 1) await playRound(client, table, 'player-0');
  print({ event: 'warm' });
  await nextCommand(); // "go"
  measured = newWindow();
  for (let i = 0; i < config.rounds; i += 1) await playRound(client, table, 'player-0');
  print(closeWindow());
  await client.close();
}

const modes = { capture, counted };
await (modes[config.mode] ?? measure)();
commands.close();
