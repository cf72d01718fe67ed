// The match page: watch a stored match live, and play it with a seat's
// token (`#seat=N&token=...`, kept in session storage). One long-poll
// follows the match; every redraw starts from the state the API sends.

import { ApiError, get, post, query, sleep, withBase } from "./api.js";
import { Board, homeOf } from "./board.js";
import { analyse, markAnalysis, probe, solvedRules, valueLabel } from "./tablebase.js";
import { byId, confirmTwice, el, forget, guard, idFromPath, say, secret, swatches } from "./ui.js";

/**
 * @typedef {import("./board.js").MoveView} MoveView
 * @typedef {{seat: number, name: string, kind: string, bot?: {kind: string}}} Seat
 * @typedef {{place: number, seat: number, name: string, result: number}} Place
 * @typedef {{summary: string, places: Place[]}} Result
 * @typedef {{players: {triangle: string, pegs: number[]}[][]}} PositionJson
 * @typedef {{id: number, status: string, version: number, seats: Seat[], ply: number,
 *   to_move: number | null, position: {position_string: string, position: PositionJson},
 *   legal_moves: MoveView[], result: Result | null}} MatchView
 * @typedef {{ply: number, seat: number, move: MoveView, played_at: string}} MoveRecord
 */

const id = idFromPath();
const key = `match:${id}`;
const seatSecret = secret(key, ["seat", "token"]);
const mySeat = seatSecret ? Number(seatSecret.seat) : null;
const token = seatSecret ? seatSecret.token : "";

/** @type {MatchView | null} */
let state = null;
/** @type {MoveRecord[]} */
let history = [];
let submitting = false;

const board = new Board(byId("board"), {
  label: `Match ${id}`,
  onMove: (move) => guard(() => play(move.text)),
  onAttempt: (from, to) => guard(() => attempt(from, to)),
});

/** The triangle at the bottom of the board: the player's own home. */
function bottom() {
  if (!state || mySeat === null) return undefined;
  return homeOf(state.position.position, mySeat);
}

function seatLabel(seat) {
  const view = state?.seats[seat];
  return view ? view.name : `seat ${seat}`;
}

/** The redraws, one at a time, in the order asked. */
let drawing = Promise.resolve();
/** The version last drawn. */
let drawn = -1;

/** Redraws everything from `next`, the match as the API sent it (an older version than one drawn is skipped). */
function show(next) {
  const run = drawing.then(() => (next.version >= drawn ? draw(next) : undefined));
  drawing = run.catch(() => {});
  return run;
}

/** @param {MatchView} next */
async function draw(next) {
  drawn = next.version;
  const moved = !state || state.version !== next.version;
  state = next;
  const position = next.position.position;
  const names = next.seats.map((s) => s.name).join(" v ");
  byId("title").textContent = `Match ${next.id}: ${names}`;
  document.title = `Match ${next.id}: ${names} · Sternhalma`;
  const status = byId("status");
  status.textContent = next.status.replace(/_/g, " ");
  status.className = `badge ${next.status}`;
  const myTurn = next.status === "in_progress" && next.to_move === mySeat;
  const turn = byId("turn");
  if (next.status !== "in_progress") turn.textContent = `after ${next.ply} plies`;
  else if (myTurn) turn.textContent = `ply ${next.ply}: your move`;
  else if (next.to_move !== null) {
    const seat = next.seats[next.to_move];
    const thinking = seat?.kind === "bot" ? " (thinking)" : "";
    turn.textContent = `ply ${next.ply}: ${seatLabel(next.to_move)} to move${thinking}`;
  }
  byId("seats").replaceChildren(
    ...next.seats.map((seat) =>
      el(
        "li",
        { class: seat.seat === next.to_move && next.status === "in_progress" ? "to-move" : null, dataset: { seat: String(seat.seat) } },
        swatches(position, seat.seat),
        el("span", {}, seat.name),
        el("span", { class: "kind" }, seat.kind === "bot" ? `bot: ${seat.bot?.kind ?? ""}` : "player"),
        seat.seat === mySeat ? el("strong", {}, "you") : null,
      ),
    ),
  );
  const you = byId("you");
  you.hidden = mySeat === null;
  if (mySeat !== null) you.textContent = `You play seat ${mySeat} (${seatLabel(mySeat)}); your home is at the bottom.`;
  const result = byId("result");
  result.hidden = !next.result;
  if (next.result) {
    byId("summary").textContent = next.result.summary;
    byId("places").replaceChildren(
      ...next.result.places.map((p) => el("li", { value: String(p.place) }, swatches(position, p.seat), ` ${p.name}`)),
    );
  }
  if (moved) {
    await board.load(`/v1/matches/${id}/board.svg${query({ ply: next.ply, bottom: bottom() })}`);
    await showMoves();
    await showPerfectPlay(next);
  }
  board.setMoves(myTurn && !submitting ? next.legal_moves : null);
  byId("play-controls").hidden = mySeat === null || next.status !== "in_progress";
  byId("pass").hidden = !(myTurn && next.legal_moves.some((m) => m.path.length === 0));
  byId("resign").hidden = mySeat === null || next.status !== "in_progress";
  byId("board").dataset.ply = String(next.ply);
}

/** The move list, fetched again when the match has moved. */
async function showMoves() {
  const known = history.length;
  const answer = await get(`/v1/matches/${id}/moves`);
  history = answer.moves;
  const position = state?.position.position;
  const list = byId("moves");
  list.replaceChildren(
    ...history.map((record) =>
      el(
        "li",
        { dataset: { ply: String(record.ply) } },
        position ? swatches(position, record.seat) : null,
        ` ${seatLabel(record.seat)}: `,
        el("a", { href: withBase(`/matches/${id}/replay#ply=${record.ply + 1}`) }, record.move.text === "pass" ? "pass" : record.move.path.join("-")),
      ),
    ),
  );
  list.lastElementChild?.classList.add("current");
  list.scrollTop = list.scrollHeight;
  // Someone else's moves are read out as they arrive.
  const fresh = history.slice(known).filter((record) => record.seat !== mySeat);
  if (known > 0 && fresh.length) {
    const last = fresh[fresh.length - 1];
    say(`${seatLabel(last.seat)} played ${last.move.text}.`);
  }
}

/**
 * On a solved board: the position's value under the board while the match
 * is played, and once it is over every move checked against perfect play
 * (mistakes marked in the move list, each seat's accuracy).
 * @param {MatchView} next
 */
async function showPerfectPlay(next) {
  const value = byId("value");
  if (!solvedRules(next.position.position_string.split(" ")[1] ?? "")) return;
  if (next.status === "in_progress") {
    const perfect = await probe(next.position.position_string);
    value.hidden = !perfect;
    if (perfect && next.to_move !== null) value.replaceChildren("Perfect play: ", valueLabel(perfect, `${seatLabel(next.to_move)} to move: `));
    return;
  }
  const analysis = await analyse({ match: next.id });
  if (!analysis || state !== next) return;
  value.hidden = false;
  value.replaceChildren("Checked against perfect play.");
  markAnalysis(analysis, byId("moves"), byId("seats"));
}

/** Plays `text` for the seat; the answer carries the state after the bots' replies. */
async function play(text) {
  if (!state || submitting) return;
  submitting = true;
  board.setMoves(null);
  say("");
  try {
    const answer = await post(`/v1/matches/${id}/moves`, { ply: state.ply, move: text }, { token });
    submitting = false;
    await show(answer.match);
  } catch (error) {
    submitting = false;
    if (error instanceof ApiError && error.status === 403) forget(key);
    // The match as it is now: the error may come from a move that the
    // other side's reply has made stale.
    await show(await get(`/v1/matches/${id}`));
    throw error;
  }
}

/** A click no legal move explains: asks the server, and shows its words. */
async function attempt(from, to) {
  if (!state) return;
  if (to === null) {
    const mine = state.position.position.players[mySeat ?? -1]?.some((set) => set.pegs.includes(from));
    say(mine ? `The peg on hole ${from} has no legal move now.` : `The peg on hole ${from} is not yours.`, "error");
    return;
  }
  try {
    await post(`/v1/matches/${id}/moves`, { ply: state.ply, move: `${from}-${to}` }, { token });
    // Legal after all (the page's moves were stale): show the new state.
    await show(await get(`/v1/matches/${id}`));
  } catch (error) {
    if (!(error instanceof ApiError)) throw error;
    say(error.message, "error");
    board.select(from);
  }
}

confirmTwice(byId("resign"), "Click again to resign", async () => {
  await show(await post(`/v1/matches/${id}/resign`, {}, { token }));
});
byId("pass").addEventListener("click", () => guard(() => play("pass")));

/** Follows the match: one long-poll at a time until it is over. */
async function follow() {
  const live = byId("live");
  while (state && state.status === "in_progress") {
    live.textContent = "Live: updates as moves are played.";
    try {
      const next = await get(`/v1/matches/${id}${query({ wait_ply: state.ply, timeout_ms: 25000 })}`, {
        headers: { "If-None-Match": `"${id}-${state.version}"` },
      });
      if (next && state && next.version > state.version) await show(next);
    } catch (error) {
      live.textContent = "Connection lost; trying again.";
      if (error instanceof ApiError && error.status === 404) throw error;
      await sleep(3000);
    }
  }
  live.textContent = "The match is over.";
}

guard(async () => {
  if (id === null) throw new Error("no match id in the address");
  byId("replay-link").setAttribute("href", withBase(`/matches/${id}/replay`));
  const exportLink = byId("export-link");
  exportLink.setAttribute("href", withBase(`/v1/matches/${id}/export`));
  exportLink.setAttribute("download", `match-${id}.json`);
  await show(await get(`/v1/matches/${id}`));
  await follow();
});
