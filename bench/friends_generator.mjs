// The friends' push benchmark's phones (bench/friends_push.py drives it over stdin/stdout). It opens T tables of S
// seats, one phone per seat, each phone holding its own Server-Sent Events stream on its own connection (the kernel
// spreads them over the server's workers), then moves at a steady rate, the tables taking turns: the seat to act
// posts a move naming the game version. A move's latency is from its reply reaching the mover to a hint at least as
// new as the reply's table version reaching each other phone of the table; a move's "all" latency is its slowest.
// Events: {"event":"connected"} once every stream has sent its first event, "go" starts moving, "start" opens the
// measured window, "stop" closes it and prints {"event":"window", ...}.
import { createInterface } from 'node:readline';
import { Client, Pool } from 'undici';

const config = JSON.parse(process.argv[2]);
const TABLES = '/v1/friends/tables';
const BLANK_LINE = /\r\n\r\n|\n\n|\r\r/; // an event ends at a blank line (Litestar writes CRLF)
const LATE_MS = config.lateMs ?? 5000; // a hint this late counts as never delivered
const rest = new Pool(config.url, { connections: config.restConnections ?? 32, pipelining: 1 });
const print = (event) => process.stdout.write(`${JSON.stringify(event)}\n`);
const pause = (ms) => new Promise((resolve) => setTimeout(resolve, ms));
const commands = createInterface({ input: process.stdin });
const nextCommand = () => new Promise((resolve) => commands.once('line', (line) => resolve(line.trim())));

let measured = null; // the open window's figures; null outside it
let stopping = false;
const totals = { reconnects: 0, streamErrors: 0 };

function newWindow() {
  return {
    startedAt: performance.now(), moves: 0, reply_us: [], delivery_us: [], all_us: [], early: 0, late: 0,
    fetch_us: [], errors: {},
  };
}

function recordError(what) {
  if (measured !== null) measured.errors[what] = (measured.errors[what] ?? 0) + 1;
}

async function call(method, path, token, payload) {
  const headers = { 'content-type': 'application/json' };
  if (token) headers.authorization = `Bearer ${token}`;
  const body = payload === undefined ? undefined : JSON.stringify(payload);
  try {
    const response = await rest.request({ method, path, headers, body });
    const parsed = await response.body.json();
    if (response.statusCode < 300) return parsed;
    recordError(`${method} ${response.statusCode} ${parsed?.code ?? ''}`.trim());
    return null;
  } catch (error) {
    recordError(`${method} network ${error.code ?? error.name}`);
    return null;
  }
}

// A phone's stream: hints arrive as `table` events; each is timed on arrival and settles the moves it covers.
class Phone {
  constructor(table, seat, token) {
    Object.assign(this, { table, seat, token, hints: [], waiting: [], lastVersion: 0, firstEvent: null });
    this.connected = new Promise((resolve) => { this.firstEvent = resolve; });
  }

  async stream() {
    while (!stopping) {
      const client = new Client(config.url, { bodyTimeout: 0, headersTimeout: 30_000 });
      this.client = client;
      try {
        const response = await client.request({
          method: 'GET', path: `${TABLES}/${this.table.code}/events`, headers: { authorization: `Bearer ${this.token}` },
        });
        if (response.statusCode !== 200) throw new Error(`status ${response.statusCode}`);
        let buffered = '';
        response.body.setEncoding('utf8');
        for await (const chunk of response.body) {
          buffered += chunk;
          let blank;
          while ((blank = BLANK_LINE.exec(buffered)) !== null) {
            this.onBlock(buffered.slice(0, blank.index));
            buffered = buffered.slice(blank.index + blank[0].length);
          }
        }
      } catch (error) {
        if (!stopping) totals.streamErrors += 1;
      } finally {
        client.destroy().catch(() => {});
      }
      if (!stopping) {
        totals.reconnects += 1;
        await pause(100);
      }
    }
  }

  onBlock(block) {
    const data = block.split(/\r?\n/).find((line) => line.startsWith('data: '));
    if (data === undefined) return; // a keep-alive comment
    const at = performance.now();
    const hint = JSON.parse(data.slice(6));
    this.firstEvent();
    this.hints.push([hint.version, at]);
    if (this.hints.length > 16) this.hints.shift();
    this.waiting = this.waiting.filter((move) => (hint.version >= move.version ? (move.arrived(at), false) : true));
    if (config.fetchOnHint && hint.version > this.lastVersion && this.table.started) this.catchUp(hint.game_version);
    this.lastVersion = Math.max(this.lastVersion, hint.version);
  }

  // As a phone does on a hint: the state since the game version it last read.
  async catchUp(gameVersion) {
    if (this.fetching) return;
    this.fetching = true;
    const started = performance.now();
    const after = this.gameVersion ?? 0;
    const state = await call('GET', `${TABLES}/${this.table.code}?after=${after}`, this.token);
    if (state !== null) {
      this.gameVersion = state.game?.version ?? gameVersion;
      measured?.fetch_us.push(Math.round((performance.now() - started) * 1000));
    }
    this.fetching = false;
  }

  // The reply to a move at `version` reached the mover at `replyAt`: when did (or will) this phone hear of it?
  expect(move) {
    const heard = this.hints.find(([version]) => version >= move.version);
    if (heard) move.arrived(heard[1]);
    else this.waiting.push(move);
  }
}

class Move {
  constructor(version, replyAt, others, window) {
    Object.assign(this, { version, replyAt, left: others, slowest: 0, window });
    this.timer = setTimeout(() => this.expire(), LATE_MS);
  }

  arrived(at) {
    if (this.left < 0) return; // expired: counted as late
    const micros = Math.round((at - this.replyAt) * 1000);
    if (this.window !== null && this.window === measured) {
      if (micros < 0) this.window.early += 1;
      this.window.delivery_us.push(Math.max(micros, 0));
    }
    this.slowest = Math.max(this.slowest, micros, 0);
    this.left -= 1;
    if (this.left === 0) {
      clearTimeout(this.timer);
      if (this.window !== null && this.window === measured) this.window.all_us.push(this.slowest);
    }
  }

  expire() {
    if (this.left > 0 && this.window !== null && this.window === measured) this.window.late += 1;
    this.left = -1; // arrivals after this no longer count
  }
}

function quietMove(game) {
  if (game.awaiting === 'ace_call') return { action: 'call_ace', call: 'high', version: game.version };
  if (game.awaiting === 'pair_call') {
    return { action: 'call_pair', call: game.pair_call_odds[0].call, version: game.version };
  }
  return { action: 'pass', version: game.version };
}

async function openTable(index) {
  const created = await call('POST', TABLES, null, {
    name: `h${index}`, bearer: true, seats: config.seats, turn_seconds: 120, rounds: 15,
  });
  if (created === null) throw new Error(`could not create table ${index}`);
  const table = { code: created.table.code, phones: [], state: null, busy: false, started: false };
  table.phones.push(new Phone(table, created.seat, created.token));
  for (let i = 1; i < config.seats; i += 1) {
    const joined = await call('POST', `${TABLES}/${table.code}/join`, null, { name: `p${i}`, bearer: true });
    if (joined === null) throw new Error(`could not join table ${index}`);
    table.phones.push(new Phone(table, joined.seat, joined.token));
  }
  return table;
}

// One move at the table: the host starts (or rematches) a table whose game is not on; else the seat to act moves.
async function move(table) {
  table.busy = true;
  const game = table.state?.game;
  const playing = table.state?.status === 'playing' && game?.to_act;
  const mover = playing ? table.phones.find((p) => `seat-${p.seat}` === game.to_act) : table.phones[0];
  const path = playing ? `${TABLES}/${table.code}/moves` : `${TABLES}/${table.code}/start`;
  const window = measured !== null && !measured.closed ? measured : null; // moves after "stop" do not count
  const sent = performance.now();
  const reply = await call('POST', path, mover.token, playing ? quietMove(game) : {});
  const replyAt = performance.now();
  if (reply === null) {
    table.state = await call('GET', `${TABLES}/${table.code}`, mover.token); // catch up after a refusal
  } else {
    table.state = reply;
    table.started = true;
    if (window !== null && window === measured) {
      window.moves += 1;
      window.reply_us.push(Math.round((replyAt - sent) * 1000));
    }
    const others = table.phones.filter((p) => p !== mover);
    const pending = new Move(reply.version, replyAt, others.length, window);
    for (const phone of others) phone.expect(pending);
  }
  table.busy = false;
}

// Moves at `rate` a second in all, the tables taking turns (each moves every tables / rate seconds).
async function moveAtRate(tables) {
  const begun = performance.now();
  let made = 0;
  let next = 0;
  while (!stopping) {
    const owed = Math.floor(((performance.now() - begun) / 1000) * config.rate) - made;
    for (let i = 0; i < owed; i += 1) {
      for (let tries = 0; tries < tables.length && tables[next].busy; tries += 1) next = (next + 1) % tables.length;
      const table = tables[next];
      next = (next + 1) % tables.length;
      made += 1;
      if (!table.busy) move(table);
    }
    await pause(5);
  }
}

async function inBatches(items, size, work) {
  const results = [];
  for (let i = 0; i < items.length; i += size) results.push(...(await Promise.all(items.slice(i, i + size).map(work))));
  return results;
}

function closeWindow() {
  const window = measured ?? newWindow();
  measured = null;
  const { startedAt, closed, closedAt, ...figures } = window;
  const seconds = ((closedAt ?? performance.now()) - startedAt) / 1000;
  return { event: 'window', seconds, ...figures, ...totals };
}

async function main() {
  const count = Math.ceil(config.clients / config.seats);
  const tables = await inBatches([...Array(count).keys()], 16, openTable);
  print({ event: 'tables', tables: tables.length });
  const phones = tables.flatMap((t) => t.phones);
  const connectedAt = performance.now();
  const gap = 1000 / (config.connectRate ?? 400);
  for (const phone of phones) {
    phone.stream();
    await pause(gap);
  }
  await Promise.all(phones.map((p) => p.connected));
  print({ event: 'connected', clients: phones.length, seconds: (performance.now() - connectedAt) / 1000 });
  await nextCommand(); // "go"
  const moving = moveAtRate(tables);
  for (;;) {
    const command = await nextCommand();
    if (command === 'start') measured = newWindow();
    if (command === 'stop') break;
  }
  if (measured !== null) Object.assign(measured, { closed: true, closedAt: performance.now() });
  await pause(LATE_MS + 100); // the window's last moves' hints arrive or expire, and still count
  print(closeWindow());
  stopping = true;
  await moving;
  await Promise.all(phones.map((p) => p.client?.destroy().catch(() => {})));
  await rest.destroy();
}

await main();
commands.close();
process.exit(0);
