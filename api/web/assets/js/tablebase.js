// Perfect play on the pages: on a board the server has solved (the
// sturtevant game on a small rhombus, `--tablebases`), the value of a
// position and of each of its moves (`POST /v1/tablebase/probe`), and a
// game checked move by move (`POST /v1/analysis`), shown as lichess shows
// its tablebase: "win in 7" in green, "draw" in grey, "loss in 12" in red.
// On any other board these answer null and the pages show nothing more.

import { ApiError, post } from "./api.js";
import { el } from "./ui.js";

/**
 * @typedef {import("./board.js").MoveView} MoveView
 * @typedef {{value: "win" | "loss" | "draw", depth: number | null, text: string}} Value
 * @typedef {Value & {move: MoveView, best: boolean}} MoveValue
 * @typedef {Value & {board: string, side_to_move: number, moves: MoveValue[], best_move: MoveView | null}} Probe
 * @typedef {{ply: number, seat: number, move: MoveView, before: Value, after: Value, best: Value & {move: MoveView}, verdict: "best" | "slower" | "mistake"}} PlyAnalysis
 * @typedef {{seat: number, moves: number, kept: number, best: number, mistakes: number, accuracy: number | null}} SeatAnalysis
 * @typedef {{board: string, plies: PlyAnalysis[], seats: SeatAnalysis[], end: Value}} Analysis
 */

/** Problems that mean "no table for this game", not a failure. */
const UNSOLVED = new Set(["no_tablebase", "tablebase_other_game"]);

/**
 * Whether a position string or rules text is of the solved game.
 * @param {string} rules The rules' text (`sturtevant`, with options after a comma).
 */
export function solvedRules(rules) {
  return rules.split(",")[0] === "sturtevant";
}

/**
 * The value of a position and of every move, or null where no table
 * covers it.
 * @param {string} position A position string.
 * @param {AbortSignal} [signal]
 * @returns {Promise<Probe | null>}
 */
export async function probe(position, signal) {
  try {
    return await post("/v1/tablebase/probe", { position }, { signal });
  } catch (error) {
    if (error instanceof ApiError && UNSOLVED.has(error.code)) return null;
    throw error;
  }
}

/**
 * A game checked against perfect play, or null where no table covers it.
 * @param {{match: number} | {start: string, moves: string[]}} game
 * @returns {Promise<Analysis | null>}
 */
export async function analyse(game) {
  try {
    return await post("/v1/analysis", game);
  } catch (error) {
    if (error instanceof ApiError && UNSOLVED.has(error.code)) return null;
    throw error;
  }
}

/**
 * A value as a coloured label: `win in 7`, `draw`, `loss in 12`.
 * @param {Value} value
 * @param {string} [prefix] Words before it, inside the label.
 */
export function valueLabel(value, prefix = "") {
  return el("span", { class: `value value-${value.value}`, dataset: { value: value.value } }, `${prefix}${value.text}`);
}

/** What a verdict is called in a move list. */
export const VERDICTS = {
  best: "",
  slower: "slower",
  mistake: "mistake",
};

/**
 * The mark after a move in a move list: `?? mistake: win → loss` or
 * `?! slower: win in 9, best win in 5`; nothing for a best move.
 * @param {PlyAnalysis} ply
 */
export function verdictMark(ply) {
  if (ply.verdict === "best") return null;
  const text =
    ply.verdict === "mistake"
      ? `${ply.before.value} → ${ply.after.value}`
      : `${ply.after.text}, best ${ply.best.text} (${ply.best.move.text})`;
  return el(
    "span",
    { class: `verdict verdict-${ply.verdict}`, dataset: { verdict: ply.verdict }, title: `${ply.verdict}: ${text}` },
    ` ${ply.verdict === "mistake" ? "??" : "?!"} ${VERDICTS[ply.verdict]}: ${text}`,
  );
}

/**
 * A seat's accuracy as words: `12 moves, 2 mistakes, 83% kept the value`.
 * @param {SeatAnalysis} seat
 */
export function accuracyText(seat) {
  const share = seat.accuracy === null ? "—" : `${Math.round(seat.accuracy * 100)}%`;
  return `${seat.moves} move${seat.moves === 1 ? "" : "s"}, ${seat.mistakes} mistake${seat.mistakes === 1 ? "" : "s"}, ${share} kept the value`;
}

/**
 * Marks a game's analysis on a page: each move of `moves` (an `<ol>`, a
 * ply an item) gets its verdict, the mistakes their class, and each seat
 * of `seats` (items with `data-seat`) its accuracy.
 * @param {Analysis} analysis
 * @param {HTMLElement} moves
 * @param {HTMLElement} seats
 */
export function markAnalysis(analysis, moves, seats) {
  for (const ply of analysis.plies) {
    const item = /** @type {HTMLElement | undefined} */ (moves.children[ply.ply]);
    if (!item) continue;
    const mark = verdictMark(ply);
    if (mark) item.append(mark);
    item.classList.toggle("mistake", ply.verdict === "mistake");
    item.dataset.verdict = ply.verdict;
  }
  for (const seat of analysis.seats) {
    seats
      .querySelector(`li[data-seat="${seat.seat}"]`)
      ?.append(el("span", { class: "accuracy", dataset: { accuracy: String(seat.accuracy ?? "") } }, accuracyText(seat)));
  }
}
