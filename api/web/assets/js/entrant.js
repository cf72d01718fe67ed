// The entrant page: a student plays their tournament games by hand with
// their entrant token (`#token=...` in the link, kept in session storage,
// or pasted). One long-poll of `GET /v1/tournaments/{id}/turns` at a time
// says which game waits for their move; the board is the core's picture
// of exactly that ply, made playable with the legal moves the API lists.

import { ApiError, get, post, query, sleep, withBase } from "./api.js";
import { Board, homeOf } from "./board.js";
import { byId, confirmTwice, el, forget, guard, idFromPath, say, secret, swatches } from "./ui.js";

/**
 * @typedef {import("./board.js").MoveView} MoveView
 * @typedef {{players: {triangle: string, pegs: number[]}[][]}} PositionJson
 * @typedef {{match_id: number, game: number, seat: number, ply: number,
 *   position: {position_string: string, position: PositionJson}, legal_moves: MoveView[],
 *   deadline_ms?: number | null, timeouts: number}} Turn
 * @typedef {{tournament_id: number, entrant: number, name: string, status: string, done: boolean,
 *   turns: Turn[]}} EntrantTurns
 * @typedef {{seat: number, entrant: number, name: string, timeouts: number, forfeited: boolean}} GameSeat
 * @typedef {{game: number, status: string, match_id?: number | null, seats: GameSeat[],
 *   result?: {summary: string} | null}} TournamentGame
 */

const id = idFromPath();
const key = `entrant:${id}`;
let token = secret(key, ["token"])?.token || "";

/** The tournament (public): its name, clock and timeout rule. @type {any} */
let tournament = null;
/** This entrant's number, once the API said it. @type {number | null} */
let me = null;
/** The turn on the board, while it waits for a move. @type {Turn | null} */
let turn = null;
/** The last turn shown (kept after it is played): a new one in the same game with more timeouts means one ran out. @type {Turn | null} */
let seen = null;
/** When that turn times out, on this page's clock (performance.now()). */
let deadlineAt = 0;
let warned = false;
let submitting = false;
/** Ends the wait for the student's move early (a move went through). @type {(() => void) | null} */
let wake = null;
/** Stops the long-poll (another token). */
let polling = new AbortController();
/** @type {TournamentGame[]} */
let schedule = [];

const board = new Board(byId("board"), {
  label: "Your game",
  onMove: (move) => guard(() => play(move.text)),
  onAttempt: (from, to) => guard(() => attempt(from, to)),
});

/** A game's number as people read it (the API counts from 0). @param {number} game */
const gameNo = (game) => game + 1;

// ---------------------------------------------------------------------------
// The token.

function askForToken() {
  byId("token-form").hidden = false;
  byId("play-area").hidden = true;
  /** @type {HTMLInputElement} */ (byId("token-input")).focus();
}

byId("token-form").addEventListener("submit", (event) => {
  event.preventDefault();
  const input = /** @type {HTMLInputElement} */ (byId("token-input"));
  const value = input.value.trim();
  if (!value) return;
  input.value = "";
  // Kept as a link's token would be (session storage, never the address bar).
  history.replaceState(null, "", `#${new URLSearchParams({ token: value })}`);
  token = secret(key, ["token"])?.token || "";
  say("");
  begin();
});

byId("forget").addEventListener("click", () => {
  forget(key);
  token = "";
  polling.abort();
  stopClock();
  turn = null;
  board.setMoves(null);
  say("The token is forgotten in this tab.");
  askForToken();
});

/** The token did not fit: forget it and ask again. @param {ApiError} error */
function refused(error) {
  forget(key);
  token = "";
  polling.abort();
  stopClock();
  say(`${error.message}. Paste your token again.`, "error");
  askForToken();
}

// ---------------------------------------------------------------------------
// The clock.

/** @type {ReturnType<typeof setInterval> | undefined} */
let clockTimer;

function stopClock() {
  clearInterval(clockTimer);
  clockTimer = undefined;
  byId("clock-line").hidden = true;
}

function showClock() {
  const left = Math.max(0, deadlineAt - performance.now());
  const seconds = Math.ceil(left / 1000);
  const clock = byId("clock");
  clock.textContent = `${Math.floor(seconds / 60)}:${String(seconds % 60).padStart(2, "0")}`;
  clock.classList.toggle("low", seconds <= 10);
  clock.dataset.ms = String(Math.round(left));
  if (!warned && seconds <= 10 && seconds > 0 && (tournament?.move_ms ?? 0) > 15000) {
    warned = true;
    say("10 seconds left for this move.");
  }
}

/** @param {number | null | undefined} ms */
function startClock(ms) {
  if (ms === null || ms === undefined) {
    stopClock();
    return;
  }
  deadlineAt = performance.now() + ms;
  byId("clock-line").hidden = false;
  showClock();
  if (!clockTimer) clockTimer = setInterval(showClock, 250);
}

// ---------------------------------------------------------------------------
// Showing the entrant's games and turn.

async function showMyGames() {
  const answer = await get(`/v1/tournaments/${id}/games`);
  schedule = answer.games;
  const mine = schedule.filter((g) => g.seats.some((s) => s.entrant === me));
  const list = byId("my-games");
  list.replaceChildren(
    ...mine.map((game) => {
      const others = game.seats.filter((s) => s.entrant !== me).map((s) => s.name);
      const self = game.seats.find((s) => s.entrant === me);
      const status = game.status === "in_progress" ? "playing" : game.status;
      const extra = self && self.timeouts ? ` (your timeouts: ${self.timeouts})` : "";
      return el(
        "li",
        { dataset: { game: String(game.game), status: game.status }, class: turn && turn.game === game.game ? "current" : null },
        el("span", {}, `Game ${gameNo(game.game)} against ${others.join(", ") || "?"} `),
        el("span", { class: `badge ${game.status}` }, status),
        game.result ? el("span", { class: "result" }, ` ${game.result.summary}${extra}.`) : extra,
        game.match_id !== null && game.match_id !== undefined && game.status !== "pending"
          ? el("span", {}, " ", el("a", { class: "replay", href: withBase(`/matches/${game.match_id}/replay`) }, "Replay", el("span", { class: "visually-hidden" }, ` game ${gameNo(game.game)}`)))
          : null,
      );
    }),
  );
}

/** The seats of the turn's game, the entrant's own marked. @param {Turn} next */
function showSeats(next) {
  const game = schedule.find((g) => g.game === next.game);
  const position = next.position.position;
  const seats = game ? game.seats : position.players.map((_, seat) => ({ seat, name: seat === next.seat ? "you" : `seat ${seat}`, entrant: -1 }));
  byId("seats-box").hidden = false;
  byId("seats").replaceChildren(
    ...seats.map((seat) =>
      el(
        "li",
        { class: seat.seat === next.seat ? "to-move" : null, dataset: { seat: String(seat.seat) } },
        swatches(position, seat.seat),
        el("span", {}, seat.name),
        seat.seat === next.seat ? el("strong", {}, "you") : null,
      ),
    ),
  );
}

/** @param {EntrantTurns} answer */
function showStatus(answer) {
  me = answer.entrant;
  const status = byId("status");
  status.textContent = answer.status;
  status.className = `badge ${answer.status}`;
  byId("you").textContent = `You play as ${answer.name}.`;
  const title = `${tournament?.name || `Tournament ${id}`}: ${answer.name}`;
  byId("title").textContent = title;
  document.title = `${title} · Sternhalma`;
}

/** Puts a waiting turn on the board (or only resets its clock if it is on it already). @param {Turn} next */
async function showTurn(next) {
  const same = turn && turn.match_id === next.match_id && turn.ply === next.ply;
  if (!same) {
    const previous = seen;
    if (!previous || previous.match_id !== next.match_id) {
      await showMyGames();
      say(`Game ${gameNo(next.game)}: your move.`);
    } else if (next.timeouts > previous.timeouts) {
      const max = tournament?.max_timeouts ?? "?";
      say(`Your time ran out: the server played a move for you (timeout ${next.timeouts} of ${max} in this game).`, "error");
    }
    turn = next;
    seen = next;
    warned = false;
    await board.load(
      `/v1/matches/${next.match_id}/board.svg${query({ ply: next.ply, bottom: homeOf(next.position.position, next.seat) })}`,
      { keep: true },
    );
    byId("board").dataset.ply = String(next.ply);
    byId("board").dataset.match = String(next.match_id);
    showSeats(next);
  }
  turn = next;
  byId("play-area").dataset.state = "turn";
  byId("turn").textContent = `Game ${gameNo(next.game)}, ply ${next.ply}: your move.`;
  const timeouts = byId("timeouts");
  timeouts.hidden = !next.timeouts;
  timeouts.textContent = `Timeouts in this game: ${next.timeouts} of ${tournament?.max_timeouts ?? "?"}.`;
  startClock(next.deadline_ms);
  if (!submitting) board.setMoves(next.legal_moves);
  byId("play-controls").hidden = false;
  byId("pass").hidden = !next.legal_moves.some((m) => m.path.length === 0);
}

/**
 * The turn on the board is gone without a move from this page: the
 * server played it at a timeout, the game ended (a forfeit, an abandoned
 * game) or, with three or more players, the others are moving.
 * @param {Turn} gone
 */
async function turnGone(gone) {
  turn = null;
  stopClock();
  board.setMoves(null);
  byId("play-controls").hidden = true;
  await showMyGames();
  const game = schedule.find((g) => g.game === gone.game);
  if (!game || game.status === "in_progress") return;
  const self = game.seats.find((s) => s.entrant === me);
  const summary = game.result?.summary ?? game.status;
  await board.load(`/v1/matches/${gone.match_id}/board.svg${query({ bottom: homeOf(gone.position.position, gone.seat) })}`);
  byId("play-area").dataset.state = "over";
  if (self?.forfeited) {
    say(`You forfeited game ${gameNo(gone.game)} after ${self.timeouts} timeouts: ${summary}.`, "error");
  } else {
    say(`Game ${gameNo(gone.game)} is over: ${summary}.`);
  }
  byId("turn").textContent = `Game ${gameNo(gone.game)} is over: ${summary}.`;
}

/** No game waits for the entrant now. @param {EntrantTurns} answer */
function showWaiting(answer) {
  stopClock();
  byId("play-controls").hidden = true;
  // The result of the game just over stays up until the next turn.
  if (byId("play-area").dataset.state === "over" && answer.status === "running") return;
  byId("play-area").dataset.state = "waiting";
  byId("turn").textContent =
    answer.status === "paused"
      ? "The tournament is paused."
      : answer.status === "waiting"
        ? "The tournament has not started yet."
        : "Waiting for your turn…";
}

// ---------------------------------------------------------------------------
// Moves.

/** Plays `text` at the turn's ply. @param {string} text */
async function play(text) {
  const current = turn;
  if (!current || submitting) return;
  submitting = true;
  board.setMoves(null);
  try {
    const answer = await post(`/v1/matches/${current.match_id}/moves`, { ply: current.ply, move: text }, { token });
    say("");
    const match = answer.match;
    if (match.status !== "in_progress") await gameOver(current, match);
    else byId("turn").textContent = `Game ${gameNo(current.game)}: you played ${text}.`;
    stopClock();
    submitting = false;
    wake?.();
  } catch (error) {
    submitting = false;
    if (error instanceof ApiError && (error.status === 401 || error.status === 403)) {
      refused(error);
      return;
    }
    if (error instanceof ApiError && error.status === 409) {
      // The turn is gone (a timeout came first, or the game is over): read it again.
      say(error.message, "error");
      wake?.();
      return;
    }
    if (turn === current) board.setMoves(current.legal_moves);
    throw error;
  }
}

/**
 * The game of `current` is over: its last picture and result.
 * @param {Turn} current
 * @param {{ply: number, result?: {summary: string} | null}} match
 */
async function gameOver(current, match) {
  turn = null;
  stopClock();
  byId("play-controls").hidden = true;
  await board.load(
    `/v1/matches/${current.match_id}/board.svg${query({ ply: match.ply, bottom: homeOf(current.position.position, current.seat) })}`,
    { keep: true },
  );
  board.setMoves(null);
  byId("board").dataset.ply = String(match.ply);
  byId("play-area").dataset.state = "over";
  await showMyGames();
  // The schedule's result names the entrants ("greedy beat sam").
  const summary = schedule.find((g) => g.game === current.game)?.result?.summary ?? match.result?.summary ?? "the game is over";
  byId("turn").textContent = `Game ${gameNo(current.game)} is over: ${summary}.`;
  say(`Game ${gameNo(current.game)} is over: ${summary}.`);
}

/** A click no legal move explains: the server says why. @param {number} from @param {number | null} to */
async function attempt(from, to) {
  const current = turn;
  if (!current || submitting) return;
  if (to === null) {
    const mine = current.position.position.players[current.seat]?.some((set) => set.pegs.includes(from));
    say(mine ? `The peg on hole ${from} has no legal move now.` : `The peg on hole ${from} is not yours.`, "error");
    return;
  }
  try {
    await post(`/v1/matches/${current.match_id}/moves`, { ply: current.ply, move: `${from}-${to}` }, { token });
    // Legal after all: read the turn again.
    wake?.();
  } catch (error) {
    if (!(error instanceof ApiError)) throw error;
    if (error.status === 401 || error.status === 403) {
      refused(error);
      return;
    }
    say(error.message, "error");
    if (error.status === 409) wake?.();
    else board.select(from);
  }
}

byId("pass").addEventListener("click", () => guard(() => play("pass")));

confirmTwice(byId("resign"), "Click again to resign", async () => {
  const current = turn;
  if (!current) return;
  const match = await post(`/v1/matches/${current.match_id}/resign`, {}, { token });
  if (match.status !== "in_progress") await gameOver(current, match);
  wake?.();
});

// ---------------------------------------------------------------------------
// The long-poll.

/**
 * Waits for the student's move, the deadline (the server then plays for
 * them), or a while (to read the turn again), whichever comes first.
 * @param {Turn} current
 */
function waitForMove(current) {
  const limit = current.deadline_ms === null || current.deadline_ms === undefined ? 20000 : Math.min(current.deadline_ms + 750, 20000);
  return new Promise((resolve) => {
    const done = () => {
      clearTimeout(timer);
      wake = null;
      resolve(undefined);
    };
    const timer = setTimeout(done, limit);
    wake = done;
    polling.signal.addEventListener("abort", done, { once: true });
  });
}

async function follow() {
  const signal = polling.signal;
  let failures = 0;
  const line = byId("poll");
  while (token && !signal.aborted) {
    /** @type {EntrantTurns} */
    let answer;
    const asked = performance.now();
    try {
      line.textContent = "Connected: the page asks the server for your turns.";
      answer = await get(`/v1/tournaments/${id}/turns${query({ timeout_ms: 25000 })}`, { token, signal });
      failures = 0;
    } catch (error) {
      if (signal.aborted) return;
      if (error instanceof ApiError && (error.status === 401 || error.status === 403)) {
        refused(error);
        return;
      }
      if (error instanceof ApiError && error.status === 404) throw error;
      failures++;
      line.textContent = "Connection lost; trying again.";
      await sleep(Math.min(30, 2 ** failures) * 1000).catch(() => {});
      continue;
    }
    showStatus(answer);
    const next = answer.turns[0];
    if (turn && (!next || next.match_id !== turn.match_id)) await turnGone(turn);
    if (answer.done) {
      await finished(answer);
      return;
    }
    if (!next) {
      showWaiting(answer);
      // The server waits for a turn; an answer at once means it would not: ask again a little later.
      if (performance.now() - asked < 1000) await sleep(2000, signal).catch(() => {});
      continue;
    }
    await showTurn(next);
    await waitForMove(next);
  }
}

/** No game left for the entrant. @param {EntrantTurns} answer */
async function finished(answer) {
  turn = null;
  stopClock();
  board.setMoves(null);
  byId("play-controls").hidden = true;
  byId("turn").textContent =
    answer.status === "abandoned" ? "The tournament was abandoned." : "You have no game left to play.";
  byId("poll").textContent = "";
  byId("play-area").dataset.state = "done";
  await guard(showMyGames);
}

function begin() {
  byId("token-form").hidden = true;
  byId("play-area").hidden = false;
  polling.abort();
  polling = new AbortController();
  guard(follow);
}

guard(async () => {
  if (id === null) throw new Error("no tournament id in the address");
  byId("tournament-link").setAttribute("href", withBase(`/tournaments/${id}`));
  tournament = await get(`/v1/tournaments/${id}`);
  byId("title").textContent = `${tournament.name}: play your games`;
  document.title = `${tournament.name}: play · Sternhalma`;
  if (token) begin();
  else askForToken();
});
