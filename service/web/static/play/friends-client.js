// The friends' tables' API as the page uses it (docs/friends-api.md): the seat's token rides in its HttpOnly
// cookie, so the page never sees it; the push stream only hints that something changed, and the page then reads
// the table (with the game's records since the version it last saw), so a lost or doubled hint loses nothing.
const TABLES = "/v1/friends/tables";

export class ApiProblem extends Error {
  constructor(status, problem) {
    super(problem.detail || problem.title || String(status));
    this.status = status;
    this.code = problem.code || "UNKNOWN";
    this.retryable = Boolean(problem.retryable);
  }
}

async function call(method, path, body) {
  const init = { method, credentials: "same-origin", headers: { accept: "application/json" } };
  if (body !== undefined) {
    init.headers["content-type"] = "application/json";
    init.body = JSON.stringify(body);
  }
  let reply;
  try {
    reply = await fetch(path, init);
  } catch {
    throw new ApiProblem(0, { code: "OFFLINE", retryable: true });
  }
  const data = await reply.json().catch(() => ({}));
  if (!reply.ok) throw new ApiProblem(reply.status, data);
  return data;
}

export const createTable = (terms) => call("POST", `${TABLES}`, terms);
export const joinTable = (code, name) => call("POST", `${TABLES}/${encodeURIComponent(code)}/join`, { name });
export const tableState = (code) => call("GET", `${TABLES}/${encodeURIComponent(code)}`);
export const rulesets = () => call("GET", "/v1/inbetween/rulesets");
export const records = (code, after) => call("GET", `${TABLES}/${encodeURIComponent(code)}/records?after=${after}&limit=1000`);

/** One table followed live: `onView(view, newRecords)` after every read; `onLink(state)` as the stream comes and
 * goes ("live", "reconnecting"); `onReaction({seat, reaction})` for each reaction a seat sends (no version: it
 * changes nothing to read). */
export class LiveTable {
  constructor(code, { onView, onLink, onReaction = () => {} }) {
    this.onReaction = onReaction;
    this.code = code;
    this.path = `${TABLES}/${encodeURIComponent(code)}`;
    this.onView = onView;
    this.onLink = onLink;
    this.version = -1; // the table's version last shown
    this.gameId = null;
    this.recordsAfter = null; // the game's version whose records were last read; null: none read yet
    this.reading = null;
    this.again = false;
    this.source = null;
  }

  /** Read the table now, with the records since the last read (once at a time: a hint during a read makes one
   * more read after it). */
  async refresh() {
    if (this.reading) {
      this.again = true;
      return this.reading;
    }
    this.reading = (async () => {
      do {
        this.again = false;
        // The first read shows the table as it is; once a table is shown, a game that begins is told from its start.
        const asked = this.recordsAfter ?? (this.version >= 0 ? 0 : null);
        const after = asked === null ? "" : `?after=${asked}`;
        const view = await call("GET", `${this.path}${after}`);
        if (view.game && this.gameId !== null && view.game.game_id !== this.gameId) {
          this.recordsAfter = 0; // a rematch: its records from the start
          this.gameId = view.game.game_id;
          this.again = true;
          continue;
        }
        const fresh = asked === null ? [] : view.records;
        this.gameId = view.game ? view.game.game_id : null;
        this.recordsAfter = view.game ? view.game.version : null;
        this.show(view, fresh);
      } while (this.again);
    })().finally(() => { this.reading = null; });
    return this.reading;
  }

  show(view, fresh) {
    if (view.version < this.version) return; // an older read that finished late
    this.version = view.version;
    this.onView(view, fresh);
  }

  /** A reply to a move or a start is the table as it is now: show it at once, then read the records it made. */
  accept(view) {
    this.show(view, []);
    this.refresh().catch(() => {});
  }

  follow() {
    this.source = new EventSource(`${this.path}/events`, { withCredentials: true });
    this.source.addEventListener("open", () => { this.onLink("live"); this.refresh().catch(() => {}); });
    this.source.addEventListener("error", () => this.onLink("reconnecting"));
    this.source.addEventListener("table", (event) => {
      const hint = JSON.parse(event.data);
      if (hint.version > this.version) this.refresh().catch(() => {});
    });
    this.source.addEventListener("reaction", (event) => this.onReaction(JSON.parse(event.data)));
  }

  close() {
    if (this.source) this.source.close();
  }

  post(suffix, body = {}) {
    return call("POST", `${this.path}${suffix}`, body);
  }

  move(body) {
    return this.post("/moves", body);
  }

  react(reaction) {
    return this.post("/reactions", { reaction });
  }
}
