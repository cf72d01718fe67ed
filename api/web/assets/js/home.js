// The home page, the lobby a teacher projects and students open: the
// matches and tournaments on this server (refreshed while the tab is
// visible), and a form that starts a match against a built-in bot or
// between classmates.

import { ApiError, get, post, query, withBase } from "./api.js";
import { byId, el, guard, say, swatches, when } from "./ui.js";

/**
 * @typedef {{name: string, shape: string, holes: number, rows: number, pegs_per_set: number, triangles: string[]}} BoardSummary
 * @typedef {{name: string, text: string, players: string[][]}} LayoutView
 * @typedef {{name: string, description: string, default_board: string}} PresetView
 * @typedef {{boards: BoardSummary[], layouts: LayoutView[], presets: PresetView[]}} Catalogue
 * @typedef {{kind: string, description: string}} BotKindView
 * @typedef {{seat: number, name: string, kind: string, bot?: {kind: string} | null}} SeatView
 * @typedef {{summary: string, winners: number[]}} MatchResult
 * @typedef {{id: number, status: string, ending?: string | null, ply: number, seats: SeatView[],
 *   start_position: string, created_at: string, updated_at: string, result?: MatchResult | null}} MatchSummary
 * @typedef {{total: number, pending: number, in_progress: number, finished: number, abandoned: number}} GameCounts
 * @typedef {{id: number, name: string, status: string, created_at: string, start_position: string,
 *   players: number, format: string, entrants: {name: string, kind: string}[], games: GameCounts}} TournamentSummary
 * @typedef {{players: {triangle: string}[][]}} Sets
 * @typedef {{seat: number, name: string, token: string}} SeatToken
 * @typedef {{match: {id: number, seats: SeatView[], position: {position: Sets}}, admin_token: string,
 *   seat_tokens: SeatToken[]}} CreatedMatch
 */

/** Entries per page of a list. */
const PAGE = 20;
/** How often the lists are fetched again while the tab is visible. */
const REFRESH_MS = 10000;
/** Where the admin key is kept for this tab (asked once). */
const ADMIN_KEY = "sternhalma:admin-key";
/** Where the player's name is remembered on this device (not a secret). */
const NAME_KEY = "sternhalma:name";
const TRIANGLES = new Set(["north", "north_east", "south_east", "south", "south_west", "north_west"]);
/** Player counts a match between classmates may have. */
const CLASS_PLAYERS = new Set([2, 3, 4, 6]);

const form = /** @type {HTMLFormElement} */ (byId("new-match"));
const boardSelect = /** @type {HTMLSelectElement} */ (byId("board"));
const layoutSelect = /** @type {HTMLSelectElement} */ (byId("layout"));
const rulesSelect = /** @type {HTMLSelectElement} */ (byId("rules"));
const botSelect = /** @type {HTMLSelectElement} */ (byId("bot-kind"));
const firstSelect = /** @type {HTMLSelectElement} */ (byId("first"));
const vsBot = /** @type {HTMLInputElement} */ (byId("vs-bot"));
const vsClass = /** @type {HTMLInputElement} */ (byId("vs-class"));
const nameInput = /** @type {HTMLInputElement} */ (byId("name"));
const adminInput = /** @type {HTMLInputElement} */ (byId("admin-key"));
const createButton = /** @type {HTMLButtonElement} */ (byId("create"));

/** @type {Catalogue | null} */
let catalogue = null;
/** @type {BotKindView[]} */
let bots = [];
/** Boards the server has solved with depths: where the perfect bot plays. @type {string[]} */
let solvedBoards = [];

// ---------------------------------------------------------------- lists

/**
 * The players' start triangles, read from a position string's third field
 * (`south:111-120/north:0-9`): enough for the colour swatches, without a
 * request per entry. Null if the text is not of that form.
 * @param {string} positionString
 * @returns {Sets | null}
 */
function setsOf(positionString) {
  const pegs = positionString.split(" ")[2] || "";
  const players = pegs.split("/").map((player) => player.split("+").map((set) => ({ triangle: set.split(":")[0] })));
  return players.every((sets) => sets.every((set) => TRIANGLES.has(set.triangle))) ? { players } : null;
}

/** The board's name, the first field of a position string. @param {string} positionString */
function boardOf(positionString) {
  return positionString.split(" ")[0] || "";
}

/** @param {string} status */
function badge(status) {
  return el("span", { class: `badge ${status}` }, status.replace(/_/g, " "));
}

/** @param {string} text */
function time(text) {
  return el("time", { datetime: text }, when(text));
}

/** @param {MatchSummary} match */
function matchEntry(match) {
  const sets = setsOf(match.start_position);
  /** @type {(Node | string)[]} */
  const seats = [];
  match.seats.forEach((seat, index) => {
    if (index > 0) seats.push(" v ");
    seats.push(
      el(
        "span",
        { class: "seat" },
        sets ? swatches(sets, seat.seat) : null,
        seat.name,
        seat.kind === "bot" && !/\bbot\b/i.test(seat.name) ? el("span", { class: "kind" }, " (bot)") : null,
      ),
    );
  });
  /** @type {string[]} */
  const facts = [boardOf(match.start_position), `ply ${match.ply}`];
  if (match.result) facts.push(match.result.summary);
  return el(
    "li",
    { class: "entry", dataset: { id: String(match.id), status: match.status } },
    el(
      "div",
      { class: "entry-head" },
      el("a", { class: "entry-title", href: withBase(`/matches/${match.id}`) }, `Match ${match.id}: `, ...seats),
      badge(match.status),
    ),
    el(
      "div",
      { class: "entry-meta" },
      el("span", { class: "muted" }, facts.join(" · "), " · ", time(match.created_at)),
      el("a", { href: withBase(`/matches/${match.id}/replay`), "aria-label": `Replay match ${match.id}` }, "Replay"),
    ),
  );
}

/** @param {TournamentSummary} tournament */
function tournamentEntry(tournament) {
  const names = tournament.entrants.map((entrant) => entrant.name);
  const shown = names.length > 8 ? `${names.slice(0, 7).join(", ")} and ${names.length - 7} more` : names.join(", ");
  const games = tournament.games;
  const live = games.in_progress ? `, ${games.in_progress} live` : "";
  const facts = [
    tournament.format.replace(/_/g, " "),
    boardOf(tournament.start_position),
    `${tournament.players} players a game`,
    `games ${games.finished} of ${games.total} played${live}`,
  ];
  return el(
    "li",
    { class: "entry", dataset: { id: String(tournament.id), status: tournament.status } },
    el(
      "div",
      { class: "entry-head" },
      el("a", { class: "entry-title", href: withBase(`/tournaments/${tournament.id}`) }, tournament.name || `Tournament ${tournament.id}`),
      badge(tournament.status),
    ),
    el("div", { class: "entry-meta" }, el("span", {}, `${names.length} entrants: ${shown}`)),
    el("div", { class: "entry-meta" }, el("span", { class: "muted" }, facts.join(" · "), " · ", time(tournament.created_at))),
  );
}

/**
 * One list of the page: its entries as the API last sent them, and the
 * `before` of its next page.
 * @template T
 */
class Listing {
  /**
   * @param {string} path `/v1/matches` or `/v1/tournaments`.
   * @param {string} field The answer's array (`matches`, `tournaments`).
   * @param {string} list Id of the `ul`.
   * @param {string} empty Id of the "none yet" note.
   * @param {string} more Id of the "more" button.
   * @param {(entry: T) => HTMLElement} render
   */
  constructor(path, field, list, empty, more, render) {
    this.path = path;
    this.field = field;
    this.list = byId(list);
    this.empty = byId(empty);
    this.more = /** @type {HTMLButtonElement} */ (byId(more));
    this.render = render;
    /** @type {T[]} */
    this.entries = [];
    /** @type {number | null} */
    this.next = null;
    this.seen = "";
    this.more.addEventListener("click", () => guard(() => this.loadMore()));
  }

  /** Fetches every entry shown so far again (at least a page), newest first. */
  async refresh() {
    const limit = Math.min(200, Math.max(PAGE, this.entries.length));
    const answer = await get(`${this.path}${query({ limit })}`);
    this.show(answer[this.field], answer.next_before ?? null);
  }

  /** Appends the next page. */
  async loadMore() {
    if (this.next === null) return;
    this.more.disabled = true;
    try {
      const answer = await get(`${this.path}${query({ limit: PAGE, before: this.next })}`);
      const known = new Set(this.entries.map((entry) => /** @type {any} */ (entry).id));
      const fresh = answer[this.field].filter((/** @type {any} */ entry) => !known.has(entry.id));
      this.show([...this.entries, ...fresh], answer.next_before ?? null);
    } finally {
      this.more.disabled = false;
    }
  }

  /**
   * Redraws the list if anything changed, keeping the keyboard focus on
   * the same link.
   * @param {T[]} entries
   * @param {number | null} next
   */
  show(entries, next) {
    this.entries = entries;
    this.next = next;
    this.more.hidden = next === null;
    this.empty.hidden = entries.length > 0;
    const seen = JSON.stringify(entries);
    if (seen === this.seen) return;
    this.seen = seen;
    const active = document.activeElement;
    const focused = active && this.list.contains(active) ? active.getAttribute("href") : null;
    this.list.replaceChildren(...entries.map((entry) => this.render(entry)));
    if (focused) {
      /** @type {HTMLElement | null} */
      const again = this.list.querySelector(`a[href="${CSS.escape(focused)}"]`);
      again?.focus();
    }
  }
}

/** @type {Listing<MatchSummary>} */
const matches = new Listing("/v1/matches", "matches", "matches", "no-matches", "more-matches", matchEntry);
/** @type {Listing<TournamentSummary>} */
const tournaments = new Listing(
  "/v1/tournaments",
  "tournaments",
  "tournaments",
  "no-tournaments",
  "more-tournaments",
  tournamentEntry,
);

let refreshing = false;
let refreshedAt = 0;

/** Fetches both lists again; a failure is shown beside the button, not as an alert. */
async function refresh() {
  if (refreshing) return;
  refreshing = true;
  const updated = byId("updated");
  try {
    await Promise.all([matches.refresh(), tournaments.refresh()]);
    refreshedAt = Date.now();
    updated.textContent = `Updated at ${new Date().toLocaleTimeString()}; again every 10 seconds.`;
  } catch (error) {
    updated.textContent = `Could not update: ${error instanceof Error ? error.message : String(error)}`;
  } finally {
    refreshing = false;
  }
}

byId("refresh").addEventListener("click", () => refresh());
setInterval(() => {
  if (document.visibilityState === "visible") refresh();
}, REFRESH_MS);
document.addEventListener("visibilitychange", () => {
  if (document.visibilityState === "visible" && Date.now() - refreshedAt > REFRESH_MS / 2) refresh();
});

// ------------------------------------------------------------ the form

function playingBot() {
  return vsBot.checked;
}

/** The layout chosen, from the catalogue. */
function chosenLayout() {
  return catalogue?.layouts.find((layout) => layout.name === layoutSelect.value) || null;
}

/** @param {LayoutView} layout */
function layoutLabel(layout) {
  const players = layout.players.length;
  const sets = layout.players[0]?.length || 1;
  const each = sets > 1 ? `, ${sets} sets each` : "";
  return `${players} player${players === 1 ? "" : "s"}${each}`;
}

/** @param {BoardSummary} board */
function boardLabel(board) {
  const standard = board.name === "star4" ? ", standard" : "";
  return `${board.name} (${board.holes} holes${standard})`;
}

/** The layouts the chosen board holds and the chosen opponent allows. */
function fillLayouts() {
  if (!catalogue) return;
  const board = catalogue.boards.find((b) => b.name === boardSelect.value);
  const holds = new Set(board?.triangles || []);
  const layouts = catalogue.layouts.filter((layout) => {
    const players = layout.players.length;
    if (playingBot() ? players !== 2 : !CLASS_PLAYERS.has(players)) return false;
    return layout.players.every((sets) => sets.every((triangle) => holds.has(triangle)));
  });
  const previous = layoutSelect.value;
  layoutSelect.replaceChildren(
    ...layouts.map((layout) => el("option", { value: layout.name, title: layout.text }, layoutLabel(layout))),
  );
  const keep = layouts.find((layout) => layout.name === previous) || layouts.find((layout) => layout.name === "2") || layouts[0];
  if (keep) layoutSelect.value = keep.name;
  fillNames();
}

/** One name field per seat for classmates (the first is `#name`); one for a game against a bot. */
function fillNames() {
  const bot = playingBot();
  for (const element of form.querySelectorAll(".bot-only")) /** @type {HTMLElement} */ (element).hidden = !bot;
  byId("name-label").textContent = bot ? "Your name" : "Seat 0 name";
  const box = byId("other-names");
  const players = bot ? 1 : chosenLayout()?.players.length || 2;
  /** @type {Record<string, string>} */
  const values = {};
  for (const input of box.querySelectorAll("input")) values[input.id] = input.value;
  /** @type {HTMLElement[]} */
  const fields = [];
  for (let seat = 1; seat < players; seat++) {
    const id = `seat-name-${seat}`;
    fields.push(
      el("label", { for: id }, `Seat ${seat} name`),
      el("input", { id, type: "text", maxlength: "40", spellcheck: "false", autocomplete: "off", value: values[id] || "" }),
    );
  }
  box.replaceChildren(...fields);
  box.hidden = fields.length === 0;
  const kind = bots.find((b) => b.kind === botSelect.value);
  byId("bot-description").textContent = kind ? `${kind.kind}: ${kind.description}.` : "";
  const preset = catalogue?.presets.find((p) => p.name === rulesSelect.value);
  byId("rules-description").textContent = preset ? `${preset.name}: ${preset.description}` : "";
}

/** The form's choices as the body of `POST /v1/matches` (schema NewMatch). */
function newMatch() {
  const layout = chosenLayout();
  if (!layout) throw new Error("choose the number of players");
  const myName = nameInput.value.trim();
  /** @type {{name?: string, bot?: {kind: string}}[]} */
  let seats;
  if (playingBot()) {
    const kind = botSelect.value;
    const me = myName ? { name: myName } : {};
    const bot = { name: `${kind} bot`, bot: { kind } };
    seats = firstSelect.value === "bot" ? [bot, me] : [me, bot];
  } else {
    seats = layout.players.map((_, seat) => {
      const input = /** @type {HTMLInputElement | null} */ (document.getElementById(`seat-name-${seat}`));
      const name = seat === 0 ? myName : input?.value.trim() || "";
      return name ? { name } : {};
    });
  }
  return { board: boardSelect.value, layout: layout.name, rules: rulesSelect.value, seats };
}

/** Asks for the admin key (the server answered that it needs one). @param {ApiError} error */
function askAdminKey(error) {
  sessionStorage.removeItem(ADMIN_KEY);
  byId("admin-row").hidden = false;
  adminInput.value = "";
  say(
    error.code === "wrong_admin_key"
      ? "That is not this server's admin key: type it again and press Create match."
      : "This server needs its admin key to create a match: type it in the Admin key field and press Create match again.",
    "error",
  );
  adminInput.focus();
}

/** @param {SubmitEvent} event */
async function create(event) {
  event.preventDefault();
  say("");
  const body = newMatch();
  const key = adminInput.value.trim() || sessionStorage.getItem(ADMIN_KEY) || undefined;
  if (nameInput.value.trim()) localStorage.setItem(NAME_KEY, nameInput.value.trim());
  /** @type {CreatedMatch} */
  let created;
  createButton.disabled = true;
  try {
    created = await post("/v1/matches", body, { token: key });
  } catch (error) {
    createButton.disabled = false;
    if (error instanceof ApiError && (error.status === 401 || error.status === 403)) {
      askAdminKey(error);
      return;
    }
    throw error;
  }
  if (key) sessionStorage.setItem(ADMIN_KEY, key);
  byId("admin-row").hidden = true;
  if (playingBot()) {
    const seat = created.seat_tokens[0];
    // The match page keeps the token in this tab and takes it out of the address.
    location.assign(withBase(`/matches/${created.match.id}`) + `#seat=${seat.seat}&token=${encodeURIComponent(seat.token)}`);
    return;
  }
  createButton.disabled = false;
  showCreated(created);
  refresh();
}

/**
 * Copies `text`; where the clipboard is out of reach (a page over plain
 * http on a LAN), selects `node`'s text for Ctrl+C instead.
 * @param {string} text
 * @param {Node} node
 * @param {HTMLButtonElement} button
 */
async function copy(text, node, button) {
  let done = false;
  try {
    if (navigator.clipboard && window.isSecureContext) {
      await navigator.clipboard.writeText(text);
      done = true;
    }
  } catch {
    done = false;
  }
  if (!done) {
    const selection = getSelection();
    const range = document.createRange();
    range.selectNodeContents(node);
    selection?.removeAllRanges();
    selection?.addRange(range);
    try {
      done = document.execCommand("copy");
    } catch {
      done = false;
    }
  }
  const label = button.textContent;
  button.textContent = done ? "Copied" : "Selected";
  setTimeout(() => (button.textContent = label), 2000);
  say(done ? "Copied." : "The text is selected: press Ctrl+C (or ⌘C) to copy it.");
}

/**
 * A link or a token to hand out, with its copy button.
 * @param {string} text
 * @param {string} what For the button's accessible name.
 * @param {boolean} link Whether `text` is a URL to open.
 */
function handout(text, what, link) {
  const node = link ? el("a", { class: "mono", href: text }, text) : el("code", {}, text);
  const button = /** @type {HTMLButtonElement} */ (el("button", { type: "button", class: "copy", "aria-label": `Copy ${what}` }, "Copy"));
  button.addEventListener("click", () => guard(() => copy(text, node, button)));
  return el("span", { class: "handout" }, node, button);
}

/** The new match's links for classmates: shown once, as the tokens are. @param {CreatedMatch} created */
function showCreated(created) {
  const id = created.match.id;
  const position = created.match.position.position;
  const base = location.origin + withBase("");
  const box = byId("created");
  box.replaceChildren(
    el("h3", {}, `Match ${id} is ready`),
    el(
      "p",
      { class: "warning" },
      el("strong", {}, "Shown only now: "),
      "each seat link holds that seat's secret token. Copy them before leaving this page and give each player their own link; whoever opens a link plays that seat.",
    ),
    el(
      "ol",
      { class: "seat-links" },
      ...created.seat_tokens.map((seat) =>
        el(
          "li",
          { dataset: { seat: String(seat.seat) } },
          el("span", { class: "seat-name" }, swatches(position, seat.seat), ` Seat ${seat.seat}: ${seat.name}`),
          handout(
            `${base}/matches/${id}#seat=${seat.seat}&token=${encodeURIComponent(seat.token)}`,
            `seat ${seat.seat}'s link`,
            true,
          ),
        ),
      ),
    ),
    el("p", { class: "watch" }, el("span", {}, "Watch (for the projector): "), handout(`${base}/matches/${id}`, "the watch link", true)),
    el(
      "p",
      { class: "admin" },
      el("span", {}, "Admin token (abandons the match through the API): "),
      handout(created.admin_token, "the admin token", false),
    ),
  );
  box.hidden = false;
  box.scrollIntoView({ block: "start" });
  box.focus();
}

/**
 * The boards to choose from: every board, or against the perfect bot only
 * those the server has solved (and their rules, `sturtevant`).
 */
function fillBoards() {
  if (!catalogue) return;
  const previous = boardSelect.value;
  if (playingBot() && botSelect.value === "perfect") {
    boardSelect.replaceChildren(
      el("optgroup", { label: "Solved (perfect play)" }, ...solvedBoards.map((name) => el("option", { value: name }, name))),
    );
    boardSelect.value = solvedBoards.includes(previous) ? previous : solvedBoards[0] || "";
    rulesSelect.value = "sturtevant";
    return;
  }
  const stars = catalogue.boards.filter((board) => board.shape === "star");
  const others = catalogue.boards.filter((board) => board.shape !== "star");
  /** @param {BoardSummary} board */
  const option = (board) => el("option", { value: board.name }, boardLabel(board));
  boardSelect.replaceChildren(el("optgroup", { label: "Star" }, ...stars.map(option)));
  if (others.length) boardSelect.append(el("optgroup", { label: "Rhombus (two players)" }, ...others.map(option)));
  const names = catalogue.boards.map((board) => board.name);
  boardSelect.value = names.includes(previous) ? previous : names.includes("star4") ? "star4" : names[0] || "";
}

/** Fills the form's choices from the catalogue and the bots. */
async function setUp() {
  const [catalogueAnswer, botAnswer, tables] = await Promise.all([
    get("/v1/catalogue"),
    get("/v1/bots"),
    get("/v1/tablebases").catch(() => ({ tablebases: [] })),
  ]);
  catalogue = /** @type {Catalogue} */ (catalogueAnswer);
  bots = botAnswer.bots;
  solvedBoards = tables.tablebases
    .filter((/** @type {{board: string, depths: boolean}} */ t) => t.depths)
    .map((/** @type {{board: string}} */ t) => t.board);
  fillBoards();
  rulesSelect.replaceChildren(
    ...catalogue.presets.map((preset) => el("option", { value: preset.name, title: preset.description }, preset.name)),
  );
  rulesSelect.value = "classic";
  botSelect.replaceChildren(...bots.map((bot) => el("option", { value: bot.kind }, bot.kind)));
  if (bots.some((bot) => bot.kind === "greedy")) botSelect.value = "greedy";
  nameInput.value = localStorage.getItem(NAME_KEY) || "";
  fillLayouts();
}

boardSelect.addEventListener("change", fillLayouts);
for (const radio of [vsBot, vsClass]) {
  radio.addEventListener("change", () => {
    fillBoards();
    fillLayouts();
  });
}
layoutSelect.addEventListener("change", fillNames);
botSelect.addEventListener("change", () => {
  fillBoards();
  fillLayouts();
});

rulesSelect.addEventListener("change", fillNames);
form.addEventListener("submit", (event) => guard(() => create(/** @type {SubmitEvent} */ (event))));

guard(async () => {
  createButton.disabled = true;
  await Promise.all([setUp(), refresh()]);
  createButton.disabled = false;
});
