// The tournament page: what a teacher projects while a class tournament
// runs. The standings, the cross table, a small live board for every game
// under way and the whole schedule, all redrawn from what the API sends;
// one Server-Sent Events stream says when something changed.
//
// With `#admin=<token>` in the address (kept in session storage, removed
// from the address bar) the page also starts, pauses and abandons it.

import { ApiError, get, post, request, withBase } from "./api.js";
import { Board } from "./board.js";
import { byId, confirmTwice, el, forget, guard, idFromPath, say, secret, swatches } from "./ui.js";

/**
 * @typedef {{players: {triangle: string, pegs: number[]}[][]}} PositionJson
 * @typedef {{kind: string, nodes?: number | null, depth?: number | null, seed?: number | null}} BotSpec
 * @typedef {{connected: boolean, seen_ms_ago?: number | null, absent_since?: string | null}} Presence
 * @typedef {{entrant: number, name: string, kind: string, bot?: BotSpec | null, reference: boolean,
 *   withdrawn_at?: string | null, presence?: Presence | null}} Entrant
 * @typedef {{total: number, pending: number, in_progress: number, finished: number, abandoned: number}} GameCounts
 * @typedef {{win: number, draw: number, loss: number}} Points
 * @typedef {{id: number, name: string, status: string, version: number, start_position: string,
 *   players: number, format: string, games_per_pairing: number, move_ms: number, max_timeouts: number,
 *   concurrency: number, points: Points, entrants: Entrant[], games: GameCounts}} TournamentView
 * @typedef {{rank: number, entrant: number, name: string, kind: string, games: number, wins: number,
 *   draws: number, losses: number, points: number, timeouts: number, forfeits: number,
 *   rating: number, uncertainty: number, judged_moves: number, mistakes: number,
 *   accuracy: number | null}} StandingRow
 * @typedef {{opponent: number, games: number, points: number}} CrossCell
 * @typedef {{entrant: number, name: string, against: CrossCell[]}} CrossRow
 * @typedef {{rows: StandingRow[], cross_table: CrossRow[], games_counted: number, points: Points,
 *   rating_system: string}} Standings
 * @typedef {{seat: number, entrant: number, name: string, timeouts?: number, forfeited?: boolean}} GameSeat
 * @typedef {{place: number, seat: number, entrant: number, name: string, result: number}} PlaceView
 * @typedef {{ending: string, summary: string, places: PlaceView[]}} GameResult
 * @typedef {{game: number, status: string, match_id?: number | null, seats: GameSeat[],
 *   result?: GameResult | null}} TournamentGame
 */

const id = idFromPath();
const adminKey = `tournament-admin:${id}`;
const adminSecret = secret(adminKey, ["admin"]);
let adminToken = adminSecret ? adminSecret.admin : "";

/** Statuses after which nothing changes any more. */
const TERMINAL = new Set(["finished", "abandoned"]);
/** The least time between two pictures of one live game, in ms. */
const MINIATURE_MS = 400;
/** How many lines the "Latest" list keeps. */
const FEED_SIZE = 8;

/** @type {TournamentView | null} */
let tournament = null;
/** @type {TournamentGame[]} */
let games = [];
/** The last standings shown. @type {Standings | null} */
let lastStandings = null;
/** The start position's JSON form: every game's seats have its colours. @type {PositionJson | null} */
let start = null;

/** A game's or entrant's number as people read it (the API counts from 0). @param {number} index */
const gameNo = (index) => index + 1;

/** Points as a number without trailing zeros ("4", "4.5"). @param {number} value */
function points(value) {
  return String(Math.round(value * 1000) / 1000);
}

/** The label of a game's status. @param {string} status */
function statusLabel(status) {
  return { pending: "pending", in_progress: "playing", finished: "finished", abandoned: "abandoned" }[status] || status;
}

/** Text only screen readers get (link texts that differ row by row). @param {string} text */
function hidden(text) {
  return el("span", { class: "visually-hidden" }, text);
}

/** A seat's colours, if the start position is known. @param {number} seat */
function seatSwatches(seat) {
  return start ? swatches(start, seat) : null;
}

/** What kind of player an entrant is, in words ("greedy bot"). @param {number} entrant */
function entrantKind(entrant) {
  const view = tournament?.entrants[entrant];
  if (!view) return "";
  if (view.kind !== "bot") return "";
  const what = `${view.bot?.kind ?? ""} bot`;
  return view.reference ? `${what}, reference` : what;
}

// ---------------------------------------------------------------------------
// The header: name, status, format, progress; the admin controls.

/** @param {TournamentView} next */
function showTournament(next) {
  const before = tournament;
  // An answer that left before the last event came in says less than it.
  if (before && next.version < before.version) return;
  tournament = next;
  byId("title").textContent = next.name || `Tournament ${next.id}`;
  document.title = `${next.name || "Tournament"} · Sternhalma`;
  const status = byId("status");
  status.textContent = next.status;
  status.className = `badge ${next.status}`;
  const [board, rules] = next.start_position.split(" ");
  const format =
    next.format === "gauntlet"
      ? `Gauntlet: ${next.games_per_pairing} game${next.games_per_pairing === 1 ? "" : "s"} per entrant against the reference`
      : `Round robin: ${next.games_per_pairing} game${next.games_per_pairing === 1 ? "" : "s"} per group of ${next.players}`;
  byId("format").textContent = `${format} · ${next.entrants.length} entrants`;
  byId("board-name").textContent = `Board ${board}, rules ${rules}`;
  const open = next.entrants.some((e) => e.kind !== "bot");
  byId("clock").textContent = open
    ? `${next.move_ms / 1000} s per move; a game is forfeited at ${next.max_timeouts} timeout${next.max_timeouts === 1 ? "" : "s"}`
    : "";
  const counts = next.games;
  const over = counts.finished + counts.abandoned;
  const bar = /** @type {HTMLProgressElement} */ (byId("progress-bar"));
  bar.max = Math.max(counts.total, 1);
  bar.value = over;
  const parts = [`${counts.finished} of ${counts.total} games finished`];
  if (counts.in_progress) parts.push(`${counts.in_progress} in progress`);
  if (counts.abandoned) parts.push(`${counts.abandoned} abandoned`);
  const progress = byId("progress");
  progress.textContent = parts.join(", ");
  progress.dataset.finished = String(counts.finished);
  progress.dataset.total = String(counts.total);
  const hint = byId("play-hint");
  hint.hidden = !open || TERMINAL.has(next.status);
  if (open) {
    const url = `${location.origin}${withBase(`/tournaments/${next.id}/play`)}`;
    hint.replaceChildren("Players play their games at ", el("a", { href: withBase(`/tournaments/${next.id}/play`) }, url), " with their entrant token.");
  }
  presenceAt = Date.now();
  presenceAtOf.clear();
  showAdmin();
  showPlayers();
  showWinner();
  if (before && before.status !== next.status) {
    note(`The tournament is ${next.status === "running" ? "running" : next.status}.`);
  }
}

/**
 * Once the tournament is finished, who won: the entrants ranked first in
 * the final standings (several on a tie), with their points. Announced
 * once (the message line is a live region).
 */
function showWinner() {
  const banner = byId("winner");
  const finished = tournament?.status === "finished";
  const first = finished && lastStandings ? lastStandings.rows.filter((row) => row.rank === 1) : [];
  if (!first.length || !lastStandings?.games_counted) {
    banner.hidden = true;
    return;
  }
  const names = first.map((row) => row.name);
  const text =
    names.length === 1
      ? `Winner: ${names[0]}, with ${points(first[0].points)} points`
      : `Shared first place: ${names.join(", ")}, with ${points(first[0].points)} points each`;
  if (banner.hidden || banner.textContent !== text) {
    banner.textContent = text;
    banner.hidden = false;
    note(text);
  }
}

function showAdmin() {
  const box = byId("admin");
  // Nothing is left to run once the tournament is over.
  box.hidden = !adminToken || !tournament || TERMINAL.has(tournament.status);
  if (!tournament) return;
  const status = tournament.status;
  /** @type {HTMLButtonElement} */ (byId("start")).disabled = !(status === "waiting" || status === "paused");
  byId("start").textContent = status === "paused" ? "Resume" : "Start";
  /** @type {HTMLButtonElement} */ (byId("pause")).disabled = status !== "running";
  /** @type {HTMLButtonElement} */ (byId("abandon")).disabled = TERMINAL.has(status);
}

/**
 * One of the admin's actions; the answer is the tournament after it.
 * @param {"start" | "pause" | "abandon"} action
 */
async function act(action) {
  try {
    const next = await request("POST", `/v1/tournaments/${id}/${action}`, { token: adminToken });
    showTournament(next);
    schedule(["games", "standings"]);
    if (TERMINAL.has(next.status)) stopStream("The tournament is over.");
  } catch (error) {
    if (error instanceof ApiError && (error.status === 401 || error.status === 403)) {
      forget(adminKey);
      adminToken = "";
      showAdmin();
    }
    throw error;
  }
}

byId("start").addEventListener("click", () => guard(() => act("start")));
byId("pause").addEventListener("click", () => guard(() => act("pause")));
confirmTwice(byId("abandon"), "Click again to abandon", () => act("abandon"));

// ---------------------------------------------------------------------------
// Players: who is connected, absent or withdrawn; the admin withdraws.

/** When the presence shown was read (its `seen_ms_ago` counts from then). */
let presenceAt = Date.now();
/** When an entrant's presence was told by an event since (its own clock). @type {Map<number, number>} */
const presenceAtOf = new Map();

/** @param {number} ms */
function ago(ms) {
  const seconds = Math.round(ms / 1000);
  if (seconds < 60) return `${seconds} s ago`;
  const minutes = Math.round(seconds / 60);
  return minutes < 60 ? `${minutes} min ago` : `${Math.round(minutes / 60)} h ago`;
}

/** @param {Entrant} entrant */
function presenceText(entrant) {
  if (entrant.withdrawn_at) return "withdrawn";
  const presence = entrant.presence;
  if (!presence) return "";
  if (presence.absent_since) return "absent: its turns are forfeited until it asks for them again";
  if (presence.connected) return "connected";
  if (presence.seen_ms_ago === null || presence.seen_ms_ago === undefined) return "not seen yet";
  const readAt = presenceAtOf.get(entrant.entrant) ?? presenceAt;
  return `last seen ${ago(presence.seen_ms_ago + (Date.now() - readAt))}`;
}

/**
 * The Players panel's items by entrant, kept from one drawing to the next:
 * a redraw (every presence event, every few seconds) updates them in
 * place, so a Withdraw button waiting for its second click stays armed
 * and keeps the focus.
 * @type {Map<number, {item: HTMLElement, name: HTMLElement, text: HTMLElement, button: HTMLElement | null}>}
 */
const playerItems = new Map();

function showPlayers() {
  const box = byId("players");
  const open = tournament?.entrants.filter((e) => e.kind !== "bot") ?? [];
  box.hidden = open.length === 0 || !tournament || TERMINAL.has(tournament.status);
  if (box.hidden || !tournament) return;
  const over = TERMINAL.has(tournament.status);
  const list = byId("presence");
  const items = tournament.entrants.map((entrant) => {
    const state = entrant.withdrawn_at
      ? "withdrawn"
      : entrant.presence?.absent_since
        ? "absent"
        : entrant.presence?.connected
          ? "connected"
          : entrant.presence
            ? "away"
            : "bot";
    let entry = playerItems.get(entrant.entrant);
    if (!entry) {
      const name = el("span", { class: "name" }, "");
      const text = el("span", { class: "muted" }, "");
      entry = { item: el("li", { dataset: { entrant: String(entrant.entrant) } }, name, " ", text), name, text, button: null };
      playerItems.set(entrant.entrant, entry);
    }
    entry.item.className = `player ${state}`;
    entry.item.dataset.state = state;
    entry.name.textContent = entrant.name;
    entry.text.textContent = entrant.presence || entrant.withdrawn_at ? presenceText(entrant) : "built-in bot";
    const withdrawable = Boolean(adminToken) && !over && !entrant.withdrawn_at;
    if (withdrawable && !entry.button) {
      const button = el("button", { type: "button", class: "withdraw" }, "Withdraw");
      confirmTwice(button, `Click again to withdraw ${entrant.name}`, () => withdraw(entrant.entrant));
      entry.item.append(" ", button);
      entry.button = button;
    } else if (!withdrawable && entry.button) {
      entry.button.previousSibling?.remove();
      entry.button.remove();
      entry.button = null;
    }
    return entry.item;
  });
  const current = [...list.children];
  if (current.length !== items.length || current.some((item, i) => item !== items[i])) list.replaceChildren(...items);
}

/** @param {number} entrant */
async function withdraw(entrant) {
  const next = await request("POST", `/v1/tournaments/${id}/entrants/${entrant}/withdraw`, { token: adminToken });
  showTournament(next);
  note(`${next.entrants[entrant]?.name ?? `Entrant ${gameNo(entrant)}`} was withdrawn: its game under way is forfeited, its games not started are not played.`);
  schedule(["games", "standings"]);
}

// "Last seen" grows while nothing is told; the presence itself is read
// again now and then while players may come and go.
setInterval(() => {
  if (!tournament || TERMINAL.has(tournament.status)) return;
  showPlayers();
}, 5000);
setInterval(() => {
  if (!tournament || TERMINAL.has(tournament.status) || document.hidden) return;
  if (tournament.entrants.some((e) => e.kind !== "bot")) schedule(["tournament"]);
}, 15000);

// ---------------------------------------------------------------------------
// Standings and cross table.

/** @param {Standings} standings */
function showStandings(standings) {
  lastStandings = standings;
  showWinner();
  const table = /** @type {HTMLTableElement} */ (byId("standings"));
  const p = standings.points;
  // On a solved board, each entrant's moves judged against perfect play.
  const judged = standings.rows.some((row) => row.judged_moves > 0);
  byId("accuracy-heading").hidden = !judged;
  byId("standings-caption").textContent =
    `${standings.games_counted} finished game${standings.games_counted === 1 ? "" : "s"} counted. ` +
    `Each opponent beaten scores ${points(p.win)}, drawn ${points(p.draw)}, lost to ${points(p.loss)}. ` +
    `Rating: Weng-Lin estimate ± its uncertainty.` +
    (standings.rows.some((row) => row.judged_moves > 0)
      ? " Accuracy: the share of an entrant's moves that kept the game-theoretic value, judged by the solved table."
      : "");
  table.tBodies[0].replaceChildren(
    ...standings.rows.map((row) =>
      el(
        "tr",
        { dataset: { entrant: String(row.entrant), rank: String(row.rank) }, class: row.rank === 1 && standings.games_counted ? "leader" : null },
        el("td", { class: "num rank" }, row.rank),
        el(
          "th",
          { scope: "row", class: "name" },
          el("span", { class: "entrant-name" }, row.name),
          entrantKind(row.entrant) ? el("span", { class: "kind" }, ` ${entrantKind(row.entrant)}`) : null,
        ),
        el("td", { class: "num points", dataset: { value: String(row.points) } }, points(row.points)),
        el("td", { class: "num games" }, row.games),
        el("td", { class: "num wdl" }, `${row.wins} / ${row.draws} / ${row.losses}`),
        el("td", { class: `num tf${row.timeouts || row.forfeits ? " warn" : ""}` }, `${row.timeouts} / ${row.forfeits}`),
        el(
          "td",
          { class: "num rating", dataset: { rating: String(row.rating), uncertainty: String(row.uncertainty) } },
          row.rating.toFixed(1),
          el("span", { class: "uncertainty" }, ` ± ${row.uncertainty.toFixed(1)}`),
        ),
        judged
          ? el(
              "td",
              { class: "num accuracy", dataset: { accuracy: String(row.accuracy ?? ""), mistakes: String(row.mistakes) } },
              row.accuracy === null ? "—" : `${Math.round(row.accuracy * 100)}%`,
              el("span", { class: "muted" }, ` ${row.mistakes} mistake${row.mistakes === 1 ? "" : "s"} in ${row.judged_moves}`),
            )
          : null,
      ),
    ),
  );
  showCross(standings.cross_table);
}

/** @param {CrossRow[]} cross */
function showCross(cross) {
  const table = /** @type {HTMLTableElement} */ (byId("cross-table"));
  const head = /** @type {HTMLTableSectionElement} */ (table.tHead);
  head.replaceChildren(
    el(
      "tr",
      {},
      el("th", { scope: "col" }, "Entrant"),
      ...cross.map((row) =>
        el("th", { scope: "col", class: "num", title: row.name }, el("span", { "aria-hidden": "true" }, gameNo(row.entrant)), hidden(row.name)),
      ),
    ),
  );
  /** Points of `a` against `b`, if they met. @param {number} a @param {number} b */
  const against = (a, b) => cross.find((row) => row.entrant === a)?.against.find((cell) => cell.opponent === b);
  table.tBodies[0].replaceChildren(
    ...cross.map((row) =>
      el(
        "tr",
        { dataset: { entrant: String(row.entrant) } },
        el("th", { scope: "row" }, el("span", { class: "muted" }, `${gameNo(row.entrant)} `), row.name),
        ...cross.map((column) => {
          if (column.entrant === row.entrant) return el("td", { class: "num self" }, el("span", { "aria-hidden": "true" }, "×"), hidden("same entrant"));
          const cell = against(row.entrant, column.entrant);
          if (!cell) return el("td", { class: "num" }, "");
          const theirs = against(column.entrant, row.entrant)?.points ?? 0;
          const trend = cell.points > theirs ? "ahead" : cell.points < theirs ? "behind" : "level";
          return el(
            "td",
            { class: `num ${trend}`, dataset: { opponent: String(column.entrant), points: String(cell.points), games: String(cell.games) } },
            `${points(cell.points)}/${cell.games}`,
          );
        }),
      ),
    ),
  );
}

// ---------------------------------------------------------------------------
// Games in progress: one small live board each.

/** A card with the live board of one game under way. */
class Miniature {
  /** @param {TournamentGame} game */
  constructor(game) {
    this.game = game.game;
    this.matchId = /** @type {number} */ (game.match_id);
    const names = game.seats.map((s) => s.name).join(" v ");
    const heading = `live-game-${game.game}`;
    this.seats = el(
      "ol",
      { class: "seats" },
      ...game.seats.map((seat) =>
        el("li", { dataset: { seat: String(seat.seat) } }, seatSwatches(seat.seat), el("span", {}, seat.name), el("span", { class: "kind timeouts" }, "")),
      ),
    );
    const box = el("div", { class: "mini-board" });
    this.last = el("p", { class: "muted last-move" }, "");
    this.element = el(
      "article",
      { class: "card miniature", dataset: { match: String(this.matchId), game: String(game.game) }, "aria-labelledby": heading },
      el("h3", { id: heading }, `Game ${gameNo(game.game)}`),
      this.seats,
      box,
      this.last,
      el("a", { class: "watch", href: withBase(`/matches/${this.matchId}`) }, "Watch", hidden(` game ${gameNo(game.game)}`)),
    );
    this.board = new Board(box, { label: `Game ${gameNo(game.game)}: ${names}` });
    this.loading = false;
    this.again = false;
    this.lastLoad = 0;
    /** @type {ReturnType<typeof setTimeout> | undefined} */
    this.timer = undefined;
    this.update(game);
    this.reload();
  }

  /** Timeouts per seat, from the schedule. @param {TournamentGame} game */
  update(game) {
    for (const seat of game.seats) this.timeouts(seat.seat, seat.timeouts || 0);
  }

  /** @param {number} seat @param {number} count */
  timeouts(seat, count) {
    const span = this.seats.querySelector(`li[data-seat="${seat}"] .timeouts`);
    if (span) span.textContent = count ? ` ${count} timeout${count === 1 ? "" : "s"}` : "";
  }

  /**
   * Fetches the picture again: at most one load at a time and a few a
   * second (a projector needs no more), the last move always drawn.
   */
  reload() {
    if (this.loading || this.timer) {
      this.again = true;
      return;
    }
    const wait = this.lastLoad + MINIATURE_MS - performance.now();
    if (wait > 0) {
      this.timer = setTimeout(() => {
        this.timer = undefined;
        this.reload();
      }, wait);
      return;
    }
    this.loading = true;
    this.again = false;
    this.lastLoad = performance.now();
    this.board
      .load(`/v1/matches/${this.matchId}/board.svg?size=240`)
      .catch(() => {
        // A lost picture is drawn again at the next move; the stream line says when the connection is down.
      })
      .finally(() => {
        this.loading = false;
        if (this.again) this.reload();
      });
  }
}

/** @type {Map<number, Miniature>} match id to card */
const cards = new Map();

function showLive() {
  const live = byId("live");
  const playing = games.filter((g) => g.status === "in_progress" && g.match_id !== null && g.match_id !== undefined);
  const keep = new Set(playing.map((g) => /** @type {number} */ (g.match_id)));
  for (const [match, card] of cards) {
    if (!keep.has(match)) {
      clearTimeout(card.timer);
      card.element.remove();
      cards.delete(match);
    }
  }
  for (const game of playing) {
    const match = /** @type {number} */ (game.match_id);
    const card = cards.get(match);
    if (card) card.update(game);
    else cards.set(match, new Miniature(game));
  }
  live.replaceChildren(...playing.map((g) => /** @type {Miniature} */ (cards.get(/** @type {number} */ (g.match_id))).element));
  const empty = byId("live-empty");
  empty.hidden = playing.length > 0;
  const status = tournament?.status ?? "";
  empty.textContent =
    status === "waiting"
      ? "The tournament has not started yet."
      : TERMINAL.has(status)
        ? `The tournament is ${status}: no game is being played.`
        : "No game is being played right now.";
}

// ---------------------------------------------------------------------------
// The schedule.

/** @type {Map<number, {key: string, row: HTMLElement}>} */
const scheduleRows = new Map();

/** @param {TournamentGame} game */
function gameRow(game) {
  /** @type {HTMLElement[]} */
  const seats = [];
  game.seats.forEach((seat, index) => {
    if (index) seats.push(el("span", { class: "versus" }, " v "));
    seats.push(
      el(
        "span",
        { class: `seat${seat.forfeited ? " forfeited" : ""}`, dataset: { entrant: String(seat.entrant) } },
        seatSwatches(seat.seat),
        ` ${seat.name}`,
        seat.timeouts ? el("span", { class: "kind" }, ` (${seat.timeouts} timeout${seat.timeouts === 1 ? "" : "s"}${seat.forfeited ? ", forfeited" : ""})`) : null,
      ),
    );
  });
  const match = game.match_id;
  const links =
    match === null || match === undefined
      ? []
      : [
          el("a", { class: "watch", href: withBase(`/matches/${match}`) }, game.status === "in_progress" ? "Watch" : "Match", hidden(` game ${gameNo(game.game)}`)),
          el("a", { class: "replay", href: withBase(`/matches/${match}/replay`) }, "Replay", hidden(` game ${gameNo(game.game)}`)),
        ];
  return el(
    "tr",
    { dataset: { game: String(game.game), status: game.status, match: match === null || match === undefined ? null : String(match) } },
    el("td", { class: "num" }, gameNo(game.game)),
    el("td", { class: "seats-cell" }, ...seats),
    el("td", {}, el("span", { class: `badge ${game.status}` }, statusLabel(game.status))),
    el("td", { class: "result" }, game.result ? game.result.summary : ""),
    el("td", { class: "links" }, ...links),
  );
}

function showGames() {
  const body = /** @type {HTMLTableElement} */ (byId("games")).tBodies[0];
  const seen = new Set();
  /** @type {HTMLElement[]} */
  const ordered = [];
  for (const game of games) {
    seen.add(game.game);
    const key = JSON.stringify(game);
    let entry = scheduleRows.get(game.game);
    if (!entry || entry.key !== key) {
      entry = { key, row: gameRow(game) };
      scheduleRows.set(game.game, entry);
    }
    ordered.push(entry.row);
  }
  for (const game of [...scheduleRows.keys()]) if (!seen.has(game)) scheduleRows.delete(game);
  // Only rows that changed are new elements: replaceChildren keeps the rest in place.
  const current = [...body.children];
  if (current.length !== ordered.length || current.some((row, i) => row !== ordered[i])) body.replaceChildren(...ordered);
  showLive();
}

// ---------------------------------------------------------------------------
// The "Latest" list: games started and over, timeouts, status changes.

/** @param {string} text */
function note(text) {
  const feed = byId("feed");
  feed.hidden = false;
  byId("feed-heading").hidden = false;
  const time = new Date().toLocaleTimeString([], { hour: "2-digit", minute: "2-digit", second: "2-digit" });
  feed.prepend(el("li", {}, el("span", { class: "muted" }, `${time} `), text));
  while (feed.children.length > FEED_SIZE) feed.lastElementChild?.remove();
}

// ---------------------------------------------------------------------------
// Reading the state: everything at once, or in coalesced parts when events say so.

/** @type {Set<"tournament" | "games" | "standings">} */
const wanted = new Set();
/** @type {ReturnType<typeof setTimeout> | null} */
let flushTimer = null;
let flushing = false;

/**
 * Reads these parts again soon; many events in a burst make one read.
 * @param {("tournament" | "games" | "standings")[]} parts
 * @param {number} [delay]
 */
function schedule(parts, delay = 250) {
  for (const part of parts) wanted.add(part);
  if (!flushTimer && !flushing) flushTimer = setTimeout(flush, delay);
}

async function flush() {
  flushTimer = null;
  flushing = true;
  const parts = new Set(wanted);
  wanted.clear();
  try {
    await Promise.all([
      parts.has("tournament") || parts.has("games") ? get(`/v1/tournaments/${id}`).then(showTournament) : null,
      parts.has("games")
        ? get(`/v1/tournaments/${id}/games`).then((answer) => {
            games = answer.games;
            showGames();
          })
        : null,
      parts.has("standings") ? get(`/v1/tournaments/${id}/standings`).then(showStandings) : null,
    ]);
  } catch (error) {
    // Read again a little later: the stream line says what is wrong.
    for (const part of parts) wanted.add(part);
    byId("stream").textContent = `Could not read the tournament (${error instanceof Error ? error.message : error}); trying again.`;
    flushing = false;
    flushTimer = setTimeout(flush, 3000);
    return;
  }
  flushing = false;
  if (wanted.size && !flushTimer) flushTimer = setTimeout(flush, 250);
}

// ---------------------------------------------------------------------------
// The event stream.

/** @type {EventSource | null} */
let source = null;
let failures = 0;

/** @param {string} text */
function streamLine(text) {
  byId("stream").textContent = text;
}

/** @param {string} text */
function stopStream(text) {
  if (source) {
    source.close();
    source = null;
  }
  streamLine(text);
}

/**
 * @param {string} type
 * @param {(data: any) => void} handle
 */
function on(type, handle) {
  source?.addEventListener(type, (event) => {
    let data;
    try {
      data = JSON.parse(/** @type {MessageEvent} */ (event).data);
    } catch {
      return;
    }
    handle(data);
  });
}

function connect() {
  if (source || (tournament && TERMINAL.has(tournament.status))) return;
  source = new EventSource(withBase(`/v1/tournaments/${id}/events`));
  const mine = source;
  source.addEventListener("open", () => {
    failures = 0;
    streamLine("Live: the page follows the tournament as it is played.");
    // Whatever happened while the stream was down (or between the first
    // reads and its opening) is read again.
    schedule(["tournament", "games", "standings"], 0);
  });
  source.addEventListener("error", () => {
    if (source !== mine) return;
    // The stream ended or could not open. The page reconnects by itself,
    // waiting longer after each failure (an EventSource left alone would
    // retry every few seconds, each failure another console error).
    mine.close();
    source = null;
    failures++;
    const wait = Math.min(30, 2 ** (failures - 1));
    streamLine(`The live stream was interrupted; reconnecting in ${wait} s…`);
    setTimeout(connect, wait * 1000);
  });
  on("tournament", (data) => {
    const previous = tournament?.status;
    showTournament(data.tournament);
    if (previous !== data.tournament.status) schedule(["games"]);
    if (TERMINAL.has(data.tournament.status)) {
      // The stream ends after this: an EventSource would reconnect
      // forever, so it is closed here, and the final state read once.
      stopStream(`The tournament is ${data.tournament.status}.`);
      schedule(["tournament", "games", "standings"], 0);
    }
  });
  on("game_started", (data) => {
    note(`Game ${gameNo(data.game)} started: ${data.seats.map((/** @type {GameSeat} */ s) => s.name).join(" v ")}.`);
    schedule(["games"]);
  });
  on("move", (data) => {
    const card = cards.get(data.match_id);
    if (!card) {
      schedule(["games"]);
      return;
    }
    const name = games.find((g) => g.game === data.game)?.seats.find((s) => s.seat === data.seat)?.name ?? `seat ${data.seat}`;
    card.last.textContent = `Ply ${data.ply + 1}: ${name} ${data.move}`;
    card.reload();
  });
  on("timeout", (data) => {
    const game = games.find((g) => g.game === data.game);
    const name = game?.seats.find((s) => s.seat === data.seat)?.name ?? `seat ${data.seat}`;
    cards.get(data.match_id)?.timeouts(data.seat, data.timeouts);
    note(
      data.forfeited
        ? `${name} forfeited game ${gameNo(data.game)} (${data.timeouts} timeouts).`
        : `${name} timed out in game ${gameNo(data.game)} (${data.timeouts} of ${tournament?.max_timeouts ?? "?"}).`,
    );
  });
  on("game_over", (data) => {
    note(`Game ${gameNo(data.game)} ${data.status === "abandoned" ? "was abandoned" : `is over: ${data.result?.summary ?? "finished"}`}.`);
    schedule(["games"]);
  });
  on("standings", (data) => showStandings(data.standings));
  on("presence", (data) => {
    const entrant = tournament?.entrants[data.entrant];
    if (!entrant) return;
    const was = entrant.presence;
    entrant.presence = data.presence;
    presenceAtOf.set(data.entrant, Date.now());
    showPlayers();
    if (data.presence.absent_since && !was?.absent_since) note(`${entrant.name} is absent: its turns are forfeited at once until it asks for them again.`);
    else if (was?.absent_since && !data.presence.absent_since) note(`${entrant.name} is back.`);
    else if (data.presence.connected) note(`${entrant.name} connected.`);
  });
  on("lagged", () => schedule(["tournament", "games", "standings"], 0));
}

// ---------------------------------------------------------------------------

guard(async () => {
  if (id === null) throw new Error("no tournament id in the address");
  const csv = byId("csv");
  csv.setAttribute("href", withBase(`/v1/tournaments/${id}/standings.csv`));
  csv.setAttribute("download", `tournament-${id}-standings.csv`);
  const [view, schedule_, standings] = await Promise.all([
    get(`/v1/tournaments/${id}`),
    get(`/v1/tournaments/${id}/games`),
    get(`/v1/tournaments/${id}/standings`),
  ]);
  // The colours of the seats: every game starts from the same position.
  try {
    start = (await post("/v1/positions/validate", { position: view.start_position })).position;
  } catch {
    start = null;
  }
  showTournament(view);
  games = schedule_.games;
  showGames();
  showStandings(standings);
  if (TERMINAL.has(view.status)) streamLine(`The tournament is ${view.status}.`);
  else connect();
});
