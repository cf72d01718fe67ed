// The explorer: paste a position (string or JSON) and see its board, legal
// moves and outcome; play moves from the list or on the board. Every state
// has its own address (`#position=<string>&move=<last path>`), so the
// browser's back and forward step through what was shown, and a link
// shows the same position to anyone.

import { ApiError, get, post, query } from "./api.js";
import { Board } from "./board.js";
import { probe, solvedRules, valueLabel } from "./tablebase.js";
import { byId, el, fragment, guard, say, swatches, triangles } from "./ui.js";

/**
 * @typedef {import("./board.js").MoveView} MoveView
 * @typedef {{triangle: string, pegs: number[]}} PegSet
 * @typedef {{board: string, players: PegSet[][], side_to_move?: number, ply?: number}} PositionJson
 * @typedef {{status: string, summary: string, results: number[]}} OutcomeView
 * @typedef {{position_string: string, position: PositionJson, side_to_move: number,
 *   rules: {text: string}, outcome: OutcomeView}} PositionView
 * @typedef {{name: string, triangles: string[]}} BoardSummary
 * @typedef {{name: string, players: string[][]}} LayoutView
 * @typedef {{boards: BoardSummary[], layouts: LayoutView[], presets: {name: string, description: string}[]}} Catalogue
 * @typedef {import("./tablebase.js").Probe} Probe
 */

const input = /** @type {HTMLTextAreaElement} */ (byId("position-input"));
const startBoard = /** @type {HTMLSelectElement} */ (byId("start-board"));
const startLayout = /** @type {HTMLSelectElement} */ (byId("start-layout"));
const startRules = /** @type {HTMLSelectElement} */ (byId("start-rules"));
const list = byId("legal-moves");

/** What is shown: the position as the API gave it, its legal moves, the path that led here. */
/** @type {{view: PositionView, moves: MoveView[], last: string} | null} */
let current = null;
/** Positions the API has already checked (from Show, a start, a move), by string: no second request. */
/** @type {Map<string, PositionView>} */
const checked = new Map();
/** Cancels the requests of a state that is no longer wanted. */
/** @type {AbortController | null} */
let pending = null;
/** Where the keyboard goes once the next state is shown. */
/** @type {"list" | "board" | null} */
let focusAfter = null;

const board = new Board(byId("board"), {
  label: "Explored position",
  onMove: (move) => {
    focusAfter = "board";
    guard(() => play(move));
  },
  onAttempt: (from, to) => guard(() => attempt(from, to)),
});

// ------------------------------------------------------------- the address

/** @param {string} value */
function encode(value) {
  // Readable in the address bar: only what a fragment cannot hold is escaped.
  return encodeURIComponent(value)
    .replace(/%20/g, "+")
    .replace(/%3A/gi, ":")
    .replace(/%2F/gi, "/")
    .replace(/%2C/gi, ",")
    .replace(/%40/gi, "@")
    .replace(/%3D/gi, "=");
}

/**
 * The fragment of a state.
 * @param {string} position
 * @param {string} last
 */
function hashOf(position, last) {
  return `#position=${encode(position)}${last ? `&move=${encode(last)}` : ""}`;
}

/**
 * Goes to a state: a new entry in the browser's history (so back returns
 * here), shown by the `hashchange` listener.
 * @param {string} position
 * @param {string} last
 */
function navigate(position, last) {
  const hash = hashOf(position, last);
  if (location.hash === hash) guard(() => showState(position, last));
  else location.hash = hash;
}

/** Shows the state in the address (or the standard start when there is none). */
function fromAddress() {
  const params = fragment();
  const position = params.get("position");
  if (!position) {
    guard(async () => {
      const view = await post("/v1/positions", { board: "star4", layout: "2" });
      checked.set(view.position_string, view);
      history.replaceState(null, "", hashOf(view.position_string, ""));
      await showState(view.position_string, "");
    });
    return;
  }
  guard(() => showState(position, params.get("move") || ""));
}

// --------------------------------------------------------------- showing

/**
 * What the text box holds, as the API takes a position: JSON if it looks
 * like an object, else the position string.
 */
function typedPosition() {
  const text = input.value.trim();
  if (!text) throw new Error("Paste a position string or its JSON form first.");
  if (!text.startsWith("{")) return text.replace(/\s+/g, " ");
  try {
    return JSON.parse(text);
  } catch (error) {
    throw new Error(`That is not valid JSON: ${error instanceof Error ? error.message : String(error)}`);
  }
}

/**
 * Checks a position with the API: the answer carries both forms and the
 * outcome, or a 422 whose explanation is thrown.
 * @param {unknown} position
 * @param {AbortSignal} [signal]
 * @returns {Promise<PositionView>}
 */
async function validate(position, signal) {
  if (typeof position === "string" && checked.has(position)) return /** @type {PositionView} */ (checked.get(position));
  const view = await post("/v1/positions/validate", { position }, { signal });
  checked.set(view.position_string, view);
  const oldest = checked.keys().next().value;
  if (checked.size > 500 && oldest !== undefined) checked.delete(oldest);
  return view;
}

/**
 * The picture of a state: drawn once per state (renders are rate-limited), kept for back and forward.
 * @param {string} position
 * @param {string} last
 */
function pictureUrl(position, last) {
  return `/v1/render.svg${query({ position, highlight: last || undefined, ids: true })}`;
}

/**
 * Shows a position: the API checks it, gives its legal moves and draws it.
 * @param {string} position The position string (or what the address holds).
 * @param {string} last The path that led here, drawn on the board.
 */
async function showState(position, last) {
  pending?.abort();
  const controller = new AbortController();
  pending = controller;
  const signal = controller.signal;
  board.setMoves(null);
  byId("board").setAttribute("aria-busy", "true");
  try {
    const view = await validate(position, signal);
    const [legal, , perfect] = await Promise.all([
      post("/v1/legal-moves", { position: view.position_string }, { signal }),
      board.load(pictureUrl(view.position_string, last), { signal, keep: true }),
      // On a solved board, what perfect play makes of it and of each move.
      solvedRules(view.rules.text) ? probe(view.position_string, signal) : Promise.resolve(null),
    ]);
    if (signal.aborted) return;
    current = { view, moves: legal.moves, last };
    input.value = view.position_string;
    if (view.position_string !== position) history.replaceState(null, "", hashOf(view.position_string, last));
    showPanel(view, legal.moves, perfect);
    board.setMoves(legal.moves.filter((/** @type {MoveView} */ move) => move.path.length > 1));
    byId("board").dataset.side = String(view.side_to_move);
    restoreFocus();
  } catch (error) {
    if (error instanceof ApiError) {
      // Nothing is shown that could be played: the text stays to be corrected.
      current = null;
      input.value = position;
      list.replaceChildren();
      byId("move-count").textContent = "";
    }
    throw error;
  } finally {
    if (pending === controller) {
      pending = null;
      byId("board").removeAttribute("aria-busy");
    }
  }
}

/**
 * The panel: outcome, side to move, legal moves (with their values under
 * perfect play on a solved board, best first), JSON.
 * @param {PositionView} view
 * @param {MoveView[]} moves
 * @param {Probe | null} perfect
 */
function showPanel(view, moves, perfect) {
  const position = view.position;
  const side = view.side_to_move;
  const over = view.outcome.status !== "in_progress";
  const outcome = byId("outcome");
  outcome.textContent = view.outcome.summary;
  outcome.dataset.status = view.outcome.status;
  byId("to-move").replaceChildren(
    ...(over
      ? ["The game is over."]
      : [swatches(position, side), ` Player ${side} (${triangles(position, side)}) to move.`]),
  );
  const plies = position.ply ?? 0;
  byId("facts").textContent = `${position.board} · rules ${view.rules.text} · ${position.players.length} player${
    position.players.length === 1 ? "" : "s"
  } · ply ${plies}`;
  byId("move-count").textContent = `(${moves.length})`;
  const value = byId("value");
  value.hidden = !perfect;
  if (perfect) {
    value.replaceChildren(
      "Perfect play: ",
      valueLabel(perfect, `player ${side} to move: `),
      perfect.best_move ? ` · best ${perfect.best_move.text}` : "",
    );
    // The table's order: the fastest win first, the longest loss last.
    const order = new Map(perfect.moves.map((m, i) => [m.move.text, i]));
    moves = [...moves].sort((a, b) => (order.get(a.text) ?? 0) - (order.get(b.text) ?? 0));
  }
  const values = new Map(perfect ? perfect.moves.map((m) => [m.move.text, m]) : []);
  list.replaceChildren(
    ...moves.map((move) => {
      const button = el(
        "button",
        { type: "button", class: `move ${move.kind || ""}`, title: move.path.length > 2 ? `${move.kind}: ${move.path.join("-")}` : move.kind || "" },
        move.text,
      );
      const show = () => board.showPath(move.path);
      const hide = () => board.showPath(null);
      button.addEventListener("mouseenter", show);
      button.addEventListener("focus", show);
      button.addEventListener("mouseleave", hide);
      button.addEventListener("blur", hide);
      button.addEventListener("click", () => {
        focusAfter = "list";
        guard(() => play(move));
      });
      const known = values.get(move.text);
      return el("li", { dataset: { move: move.text } }, button, known ? valueLabel(known, " ") : null);
    }),
  );
  if (!moves.length) list.append(el("li", { class: "none muted" }, over ? "None: the game is over." : "None."));
  byId("position-json").textContent = compactJson(position);
  document.title = `${view.position_string} · Explorer · Sternhalma`;
}

/** JSON with each list of holes on one line. @param {unknown} value */
function compactJson(value) {
  return JSON.stringify(value, null, 2).replace(/\[\s+([\d,\s]+?)\s+\]/g, (_, inner) => `[${inner.replace(/\s+/g, "")}]`);
}

/** After a move, the keyboard stays where it was: on the list, or on the board. */
function restoreFocus() {
  const where = focusAfter;
  focusAfter = null;
  /** @type {HTMLElement | SVGElement | null} */
  let target = null;
  if (where === "list") target = list.querySelector("button") || byId("moves-heading");
  if (where === "board") target = byId("board").querySelector(".peg.movable");
  target?.focus();
}

// --------------------------------------------------------------- playing

/** Plays `move` in the position shown, and goes to the position after it. @param {MoveView} move */
async function play(move) {
  if (!current) return;
  say("");
  const answer = await post("/v1/apply", { position: current.view.position_string, move: move.text });
  const view = /** @type {PositionView} */ (answer.position);
  checked.set(view.position_string, view);
  const played = /** @type {MoveView} */ (answer.played.move);
  navigate(view.position_string, played.path.length > 1 ? played.path.join("-") : "");
}

/**
 * A click no legal move explains: the API says why.
 * @param {number} from
 * @param {number | null} to
 */
async function attempt(from, to) {
  if (!current) return;
  const position = current.view.position;
  const side = current.view.side_to_move;
  if (to === null) {
    const mine = position.players[side]?.some((set) => set.pegs.includes(from));
    say(
      mine ? `The peg on hole ${from} has no legal move.` : `The peg on hole ${from} is not player ${side}'s, who is to move.`,
      "error",
    );
    return;
  }
  try {
    const answer = await post("/v1/apply", { position: current.view.position_string, move: `${from}-${to}` });
    const view = /** @type {PositionView} */ (answer.position);
    checked.set(view.position_string, view);
    navigate(view.position_string, answer.played.move.path.join("-"));
  } catch (error) {
    if (!(error instanceof ApiError)) throw error;
    say(`${from}-${to}: ${error.message}`, "error");
    board.select(from);
  }
}

// --------------------------------------------------------------- the forms

byId("position-form").addEventListener("submit", (event) => {
  event.preventDefault();
  guard(async () => {
    say("");
    const view = await validate(typedPosition());
    navigate(view.position_string, "");
  });
});

input.addEventListener("keydown", (event) => {
  if (event.key === "Enter" && (event.ctrlKey || event.metaKey)) {
    event.preventDefault();
    /** @type {HTMLFormElement} */ (byId("position-form")).requestSubmit();
  }
});

byId("copy-link").addEventListener("click", () =>
  guard(async () => {
    try {
      if (!navigator.clipboard || !window.isSecureContext) throw new Error("no clipboard");
      await navigator.clipboard.writeText(location.href);
      say("The link to this position is copied.");
    } catch {
      say("Copy the address from the address bar: it holds this position.");
    }
  }),
);

byId("edit-json").addEventListener("click", () => {
  if (!current) return;
  input.value = compactJson(current.view.position);
  input.focus();
});

/** @type {Catalogue | null} */
let catalogue = null;

/** The layouts the chosen board holds. */
function fillStartLayouts() {
  if (!catalogue) return;
  const holds = new Set(catalogue.boards.find((b) => b.name === startBoard.value)?.triangles || []);
  const layouts = catalogue.layouts.filter((layout) => layout.players.every((sets) => sets.every((t) => holds.has(t))));
  const previous = startLayout.value || "2";
  startLayout.replaceChildren(
    ...layouts.map((layout) => {
      const players = layout.players.length;
      const sets = layout.players[0]?.length || 1;
      const label = players === 1 ? "1 player (solitaire)" : `${players} players${sets > 1 ? `, ${sets} sets each` : ""}`;
      return el("option", { value: layout.name }, label);
    }),
  );
  startLayout.value = layouts.some((layout) => layout.name === previous) ? previous : layouts[0]?.name || "";
}

startBoard.addEventListener("change", fillStartLayouts);
byId("start-form").addEventListener("submit", (event) => {
  event.preventDefault();
  guard(async () => {
    say("");
    const view = await post("/v1/positions", { board: startBoard.value, layout: startLayout.value, rules: startRules.value });
    checked.set(view.position_string, view);
    input.value = view.position_string;
    navigate(view.position_string, "");
  });
});

guard(async () => {
  catalogue = /** @type {Catalogue} */ (await get("/v1/catalogue"));
  startBoard.replaceChildren(...catalogue.boards.map((b) => el("option", { value: b.name }, b.name)));
  startBoard.value = "star4";
  startRules.replaceChildren(
    ...catalogue.presets.map((preset) => el("option", { value: preset.name, title: preset.description }, preset.name)),
  );
  startRules.value = "classic";
  fillStartLayouts();
});

window.addEventListener("hashchange", fromAddress);
fromAddress();
