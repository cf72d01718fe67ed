// The replay page: step through a game ply by ply. A stored match
// (`/matches/{id}/replay`) is read from its moves, and every ply's picture
// is the server's `board.svg?ply=k` (immutable, kept once fetched); a game
// record (`/replay`, a file or pasted JSON as `GET /v1/matches/{id}/export`
// gives it) is replayed by `POST /v1/replay`, and its pictures come from
// `/v1/render.svg`, which is rate-limited: the page fetches only the ply
// shown (and the next one when it can spare it), the newest wish first.
//
// The shown ply is in the address (`#ply=N`), so a link shows that moment.

import { ApiError, get, post, query, sleep, withBase } from "./api.js";
import { Board } from "./board.js";
import { analyse, markAnalysis, solvedRules, valueLabel } from "./tablebase.js";
import { byId, el, fragment, guard, idFromPath, say, setFragment, swatches } from "./ui.js";

/**
 * @typedef {import("./board.js").MoveView} MoveView
 * @typedef {{players: {triangle: string, pegs: number[]}[][]}} PositionJson
 * @typedef {{seat: number, text: string, path: number[]}} Step One move: who played it, what.
 * @typedef {{place: number, seat: number, name: string}} Place
 * @typedef {{summary: string, places: Place[]}} Result
 */

const id = idFromPath();
const boardBox = byId("board");
const board = new Board(boardBox, { label: "Replay" });

/** @type {Step[]} */
let moves = [];
/** Seat names, by seat. @type {string[]} */
let names = [];
/** The position's JSON form, for the seats' colours. @type {PositionJson | null} */
let colours = null;
/** The result, once the game is over. @type {Result | null} */
let result = null;
/** For a record: the position string after each ply (0: the start). @type {string[]} */
let positions = [];
/** Whether pictures come from the rate-limited renderer. */
let rendered = false;
/** The ply asked for, and the one the board shows. */
let current = 0;
let shown = -1;
let loaded = false;
/** On a solved board, the game checked against perfect play. @type {import("./tablebase.js").Analysis | null} */
let analysis = null;

// ---------------------------------------------------------------------------
// Pictures: fetched once each, the same request shared by whoever asks.

/**
 * Requests to /v1/render* a client may send: a burst, then one a second
 * (a default server's heavy-request limit, with a little margin, so the
 * page never runs into a 429).
 */
const bucket = {
  burst: 18,
  tokens: 18,
  perMs: 1 / 1050,
  last: performance.now(),
  refill() {
    const now = performance.now();
    this.tokens = Math.min(this.burst, this.tokens + (now - this.last) * this.perMs);
    this.last = now;
  },
  async take() {
    for (;;) {
      this.refill();
      if (this.tokens >= 1) {
        this.tokens -= 1;
        return;
      }
      await sleep(Math.ceil((1 - this.tokens) / this.perMs));
    }
  },
};

/** @type {Map<string, Promise<string>>} */
const pictures = new Map();
const PICTURES = 400;

/** The picture of ply `k`'s URL. @param {number} k */
function pictureUrl(k) {
  if (!rendered) return `/v1/matches/${id}/board.svg?ply=${k}`;
  const move = k > 0 ? moves[k - 1] : null;
  const highlight = move && move.path.length > 1 ? move.path.join("-") : undefined;
  return `/v1/render.svg${query({ position: positions[k], highlight })}`;
}

/** The picture at `url`, fetched at most once. @param {string} url */
function picture(url) {
  let promise = pictures.get(url);
  if (!promise) {
    promise = (rendered ? bucket.take() : Promise.resolve()).then(() => get(url, { as: "text" }));
    pictures.set(url, promise);
    promise.catch(() => pictures.delete(url));
    if (pictures.size > PICTURES) pictures.delete(/** @type {string} */ (pictures.keys().next().value));
  }
  return promise;
}

/** Fetches the next ply's picture ahead, when the budget allows. */
function preload() {
  const next = current + 1;
  if (next > moves.length) return;
  const url = pictureUrl(next);
  if (pictures.has(url)) return;
  if (rendered) {
    bucket.refill();
    if (!playing && bucket.tokens < 4) return;
  }
  picture(url).catch(() => {});
}

let drawing = false;

/** Shows the ply asked for; while a picture loads, newer wishes replace older ones. */
async function draw() {
  if (drawing) return;
  drawing = true;
  try {
    while (shown !== current) {
      const k = current;
      const url = pictureUrl(k);
      const text = await picture(url);
      if (k !== current) continue;
      board.setSvg(text);
      board.url = url;
      shown = k;
      boardBox.dataset.ply = String(k);
    }
  } catch (error) {
    stop();
    say(`The picture of ply ${current} did not load: ${error instanceof Error ? error.message : error}`, "error");
    return;
  } finally {
    drawing = false;
  }
  preload();
  tick();
}

// ---------------------------------------------------------------------------
// Going to a ply: the controls, the move list, the address.

/** @param {number} seat */
function seatName(seat) {
  return names[seat] ?? `player ${seat}`;
}

/** Shows ply `k` (clamped to the game). @param {number} k */
function go(k) {
  if (!loaded) return;
  const ply = Math.max(0, Math.min(moves.length, Math.trunc(Number.isFinite(k) ? k : 0)));
  current = ply;
  const range = /** @type {HTMLInputElement} */ (byId("ply"));
  range.value = String(ply);
  range.setAttribute("aria-valuetext", `ply ${ply} of ${moves.length}`);
  byId("ply-label").textContent = `ply ${ply} of ${moves.length}`;
  const list = byId("moves");
  list.querySelector("li.current")?.removeAttribute("aria-current");
  list.querySelector("li.current")?.classList.remove("current");
  const item = ply > 0 ? /** @type {HTMLElement | null} */ (list.children[ply - 1]) : null;
  if (item) {
    item.classList.add("current");
    item.setAttribute("aria-current", "step");
    // Keep it in view inside the list (not by scrolling the page).
    if (item.offsetTop < list.scrollTop) list.scrollTop = item.offsetTop;
    else if (item.offsetTop + item.offsetHeight > list.scrollTop + list.clientHeight) {
      list.scrollTop = item.offsetTop + item.offsetHeight - list.clientHeight;
    }
  } else {
    list.scrollTop = 0;
  }
  const turn = byId("turn");
  const atEnd = ply === moves.length;
  if (ply === 0) turn.textContent = moves.length ? `Start: ${seatName(moves[0].seat)} moves first.` : "The record has no moves.";
  else {
    const move = moves[ply - 1];
    turn.textContent = `Ply ${ply}: ${seatName(move.seat)} played ${move.text}.`;
  }
  byId("result").hidden = !(atEnd && result);
  showValue(ply);
  // aria-disabled rather than disabled: a button in use keeps the focus.
  for (const name of ["first", "prev"]) byId(name).setAttribute("aria-disabled", String(ply === 0));
  for (const name of ["next", "last"]) byId(name).setAttribute("aria-disabled", String(atEnd));
  if (fragment().get("ply") !== String(ply)) setFragment({ ply });
  draw();
}

// ---------------------------------------------------------------------------
// Autoplay.

let playing = false;
/** @type {ReturnType<typeof setTimeout> | undefined} */
let timer;

function speed() {
  return Number(/** @type {HTMLSelectElement} */ (byId("speed")).value) || 1000;
}

/** @param {boolean} on */
function setPlaying(on) {
  playing = on;
  const button = byId("play");
  button.setAttribute("aria-pressed", String(on));
  const icon = button.querySelector(".icon");
  if (icon) icon.textContent = on ? "▮▮" : "▶";
  clearTimeout(timer);
  if (on) {
    if (current >= moves.length) go(0);
    tick();
  }
}

function stop() {
  if (playing) setPlaying(false);
}

/** The next step of the autoplay, once the shown ply is on the board. */
function tick() {
  clearTimeout(timer);
  if (!playing || shown !== current) return;
  if (current >= moves.length) {
    setPlaying(false);
    return;
  }
  timer = setTimeout(() => {
    if (playing) go(current + 1);
  }, speed());
}

byId("first").addEventListener("click", () => go(0));
byId("prev").addEventListener("click", () => go(current - 1));
byId("next").addEventListener("click", () => go(current + 1));
byId("last").addEventListener("click", () => go(moves.length));
byId("play").addEventListener("click", () => setPlaying(!playing));
byId("speed").addEventListener("change", () => tick());
byId("ply").addEventListener("input", (event) => go(Number(/** @type {HTMLInputElement} */ (event.target).value)));
window.addEventListener("hashchange", () => {
  const ply = Number(fragment().get("ply"));
  if (loaded && Number.isFinite(ply) && ply !== current) go(ply);
});

/** Whether keys typed at `target` are text (fields keep their keys). @param {EventTarget | null} target */
function typing(target) {
  if (!(target instanceof Element)) return false;
  if (target.closest("textarea, select, [contenteditable]")) return true;
  if (target instanceof HTMLInputElement) return !["button", "checkbox", "radio", "file", "submit", "reset", "range"].includes(target.type);
  return false;
}

document.addEventListener("keydown", (event) => {
  if (!loaded || event.altKey || event.ctrlKey || event.metaKey || typing(event.target)) return;
  const target = /** @type {Element | null} */ (event.target instanceof Element ? event.target : null);
  // The range moves itself with arrows, Home and End (its input event follows).
  if (target instanceof HTMLInputElement && target.type === "range" && event.key !== " ") return;
  switch (event.key) {
    case "ArrowLeft":
      go(current - 1);
      break;
    case "ArrowRight":
      go(current + 1);
      break;
    case "Home":
      go(0);
      break;
    case "End":
      go(moves.length);
      break;
    case " ":
    case "Spacebar":
      // A focused button or link does its own thing with Space.
      if (target?.closest("button, a, summary, input:not([type=range])")) return;
      setPlaying(!playing);
      break;
    default:
      return;
  }
  event.preventDefault();
});

// ---------------------------------------------------------------------------
// Showing a game.

/** The seats, the move list and the result, once the game is read. */
function showGame() {
  byId("seats").replaceChildren(
    ...names.map((name, seat) => el("li", { dataset: { seat: String(seat) } }, colours ? swatches(colours, seat) : null, el("span", {}, name))),
  );
  byId("moves").replaceChildren(
    ...moves.map((move, k) =>
      el(
        "li",
        { dataset: { ply: String(k + 1) } },
        colours ? swatches(colours, move.seat) : null,
        ` ${seatName(move.seat)}: `,
        el(
          "a",
          {
            href: `#ply=${k + 1}`,
            onclick: (/** @type {Event} */ event) => {
              event.preventDefault();
              go(k + 1);
            },
          },
          move.text,
        ),
      ),
    ),
  );
  if (result) {
    byId("summary").textContent = result.summary;
    byId("places").replaceChildren(
      ...result.places.map((p) => el("li", { value: String(p.place) }, colours ? swatches(colours, p.seat) : null, ` ${p.name}`)),
    );
  }
  const range = /** @type {HTMLInputElement} */ (byId("ply"));
  range.max = String(moves.length);
  byId("viewer").hidden = false;
  // The ply in the address counts for the first game shown; another
  // record starts at its beginning.
  const wanted = loaded ? 0 : Number(fragment().get("ply") ?? 0);
  loaded = true;
  shown = -1;
  pictures.clear();
  go(Number.isFinite(wanted) ? wanted : 0);
}

/**
 * The value of ply `k`'s position under perfect play, for the side to move.
 * @param {number} k
 */
function showValue(k) {
  const box = byId("value");
  box.hidden = !analysis;
  if (!analysis) return;
  const at = k < analysis.plies.length ? analysis.plies[k] : null;
  const who = at ? seatName(at.seat) : "the side to move";
  box.replaceChildren("Perfect play: ", valueLabel(at ? at.before : analysis.end, `${who}: `), at ? ` · best ${at.best.move.text}` : "");
}

/**
 * Checks the game against perfect play where a table covers it: every
 * move's verdict in the list, each seat's accuracy, each ply's value.
 * @param {{match: number} | {start: string, moves: string[]}} game
 * @param {string} start The start position string.
 */
async function check(game, start) {
  analysis = null;
  if (!solvedRules(start.split(" ")[1] ?? "")) return;
  analysis = await analyse(game);
  if (!analysis) return;
  markAnalysis(analysis, byId("moves"), byId("seats"));
  showValue(current);
}

/** A stored match: its seats, moves and result. @param {number} match */
async function loadMatch(match) {
  const [view, history] = await Promise.all([get(`/v1/matches/${match}`), get(`/v1/matches/${match}/moves`)]);
  rendered = false;
  names = view.seats.map((/** @type {{name: string}} */ s) => s.name);
  colours = view.position.position;
  moves = history.moves.map((/** @type {{seat: number, move: MoveView}} */ r) => ({
    seat: r.seat,
    text: r.move.path.length ? r.move.path.join("-") : r.move.text,
    path: r.move.path,
  }));
  result = view.result ? { summary: view.result.summary, places: view.result.places } : null;
  const title = `Replay: match ${match}, ${names.join(" v ")}`;
  byId("title").textContent = title;
  document.title = `${title} · Sternhalma`;
  byId("links").replaceChildren(
    el("a", { class: "button", href: withBase(`/matches/${match}`) }, view.status === "in_progress" ? "Watch it live" : "The match"),
    el("a", { class: "button", href: withBase(`/v1/matches/${match}/export`), download: `match-${match}.json` }, "Download the record"),
  );
  if (view.status === "in_progress") say("The match is still being played: the replay shows the moves so far.");
  analysis = null;
  showGame();
  await check({ match }, view.position.position_string);
}

/** Places from an outcome's results (+1 best): equal results share a place. @param {number[]} results */
function placesOf(results) {
  return results
    .map((value, seat) => ({ seat, name: seatName(seat), place: 1 + results.filter((other) => other > value).length }))
    .sort((a, b) => a.place - b.place || a.seat - b.seat);
}

/**
 * A game record: replayed by the server, which checks every move.
 * @param {string} text The record as JSON.
 */
async function loadRecord(text) {
  /** @type {any} */
  let record;
  try {
    record = JSON.parse(text);
  } catch (error) {
    throw new Error(`The record is not JSON: ${error instanceof Error ? error.message : error}`);
  }
  if (!record || typeof record !== "object" || !record.start || !Array.isArray(record.moves)) {
    throw new Error('The record needs "start" and "moves", as GET /v1/matches/{id}/export gives them.');
  }
  /** @type {Record<string, unknown>} */
  const body = { start: record.start, moves: record.moves };
  if (Array.isArray(record.resigned) && record.resigned.length) body.resigned = record.resigned;
  stop();
  let replay;
  try {
    await bucket.take(); // a replay is a heavy request too
    replay = await post("/v1/replay", body);
  } catch (error) {
    if (error instanceof ApiError && typeof error.problem.move_index === "number") {
      const index = error.problem.move_index;
      const move = record.moves[index];
      const shown = typeof move === "string" ? move : JSON.stringify(move);
      throw new Error(`Move ${index + 1} (${shown}): ${error.message}`);
    }
    throw error;
  }
  const start =
    typeof record.start === "string" ? record.start : (await post("/v1/positions/validate", { position: record.start })).position_string;
  rendered = true;
  colours = replay.final.position;
  const players = /** @type {PositionJson} */ (colours).players.length;
  names = Array.from({ length: players }, (_, seat) => {
    const sets = /** @type {PositionJson} */ (colours).players[seat].map((set) => set.triangle.replace(/_/g, " "));
    return `player ${seat} (${sets.join(", ")})`;
  });
  positions = [start, ...replay.steps.map((/** @type {{position_string: string}} */ s) => s.position_string)];
  moves = replay.steps.map((/** @type {{played: {player: number, move: MoveView}}} */ s) => ({
    seat: s.played.player,
    text: s.played.move.path.length ? s.played.move.path.join("-") : s.played.move.text,
    path: s.played.move.path,
  }));
  const outcome = replay.final.outcome;
  result = outcome.status === "in_progress" ? null : { summary: outcome.summary, places: placesOf(outcome.results) };
  const board = start.split(" ")[0];
  byId("title").textContent = `Replay: a game on ${board}, ${moves.length} move${moves.length === 1 ? "" : "s"}`;
  document.title = `Replay of a record · Sternhalma`;
  byId("links").replaceChildren();
  say(outcome.status === "in_progress" ? "The record ends before the game does." : "");
  analysis = null;
  showGame();
  byId("viewer").scrollIntoView({ block: "start" });
  await check({ start, moves: moves.map((m) => m.text) }, start);
}

function setUpUpload() {
  const form = /** @type {HTMLFormElement} */ (byId("upload"));
  form.hidden = false;
  byId("title").textContent = "Replay a game record";
  form.addEventListener("submit", (event) => {
    event.preventDefault();
    guard(() => loadRecord(/** @type {HTMLTextAreaElement} */ (byId("record")).value));
  });
  byId("file").addEventListener("change", (event) =>
    guard(async () => {
      const input = /** @type {HTMLInputElement} */ (event.target);
      const file = input.files?.[0];
      if (!file) return;
      if (file.size > 8_000_000) throw new Error("That file is too big for a game record.");
      const text = await file.text();
      /** @type {HTMLTextAreaElement} */ (byId("record")).value = text;
      await loadRecord(text);
    }),
  );
}

guard(async () => {
  if (id === null) setUpUpload();
  else await loadMatch(id);
});
