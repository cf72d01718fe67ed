// A match against a built-in bot, created from the home page and played to
// the end by clicking, while a second browser (another context: another
// visitor) watches it live; an illegal attempt explained in the API's words;
// matches ended off the board (resigned, forfeited by timeouts, abandoned)
// saying how under their board.

import assert from "node:assert/strict";
import { test } from "node:test";

import { LONG, api, assertClean, checkPage, newPage, request, setup, until } from "./lib/harness.mjs";
import { chooseMove, keyboardMove, targets } from "./lib/play.mjs";

const env = setup();

/** @type {import("./lib/harness.mjs").TrackedPage} */
let player;
/** @type {import("./lib/harness.mjs").TrackedPage} */
let watcher;
/** @type {number} */
let id;
/** @type {{seat: string, token: string}} */
let seat;

/** The match as the API gives it now. */
function match() {
  return api(env.server, "GET", `/v1/matches/${id}`);
}

/** How many moves a page's list shows. */
function listed(page) {
  return page.locator("#moves li").count();
}

/**
 * Waits until it is the player's turn again (movable pegs on the board,
 * at a ply other than `before`) or the result is shown; returns which.
 * @param {import("playwright-core").Page} page
 * @param {number | null} before
 */
async function settled(page, before) {
  const handle = await page
    .waitForFunction(
      (previous) => {
        const result = document.getElementById("result");
        if (result && !result.hidden) return "over";
        const board = document.getElementById("board");
        if (!board || !board.classList.contains("playable")) return false;
        if (previous !== null && board.dataset.ply === String(previous)) return false;
        return board.querySelector(".peg.movable") ? "turn" : false;
      },
      before,
      { timeout: LONG, polling: 100 },
    )
    .catch(async (error) => {
      // What the page shows against what the API says, for the report.
      const shown = await page.evaluate(() => {
        const board = document.getElementById("board");
        return {
          ply: board?.dataset.ply,
          position: board?.dataset.position,
          playable: board?.classList.contains("playable"),
          turn: document.getElementById("turn")?.textContent,
          message: document.getElementById("message")?.textContent,
        };
      });
      const state = await match();
      throw new Error(
        `${error.message}\nthe page shows ${JSON.stringify(shown)}\nthe API: ply ${state.ply}, version ${state.version}, ` +
          `to move ${state.to_move}, status ${state.status}, ${state.position.position_string}\nproblems: ${page.problems?.join("\n")}`,
      );
    });
  return /** @type {"over" | "turn"} */ (await handle.jsonValue());
}

/**
 * Waits until the page shows the match as the API gave it: the board's
 * position and one list item per ply.
 * @param {import("playwright-core").Page} page
 * @param {string} name
 * @param {{ply: number, position: {position_string: string}}} state
 */
async function shows(page, name, state) {
  const expected = { moves: state.ply, position: state.position.position_string };
  const seen = () =>
    page.evaluate(() => ({
      moves: document.querySelectorAll("#moves li").length,
      position: document.getElementById("board")?.dataset.position,
    }));
  await page
    .waitForFunction(
      ([n, position]) =>
        document.querySelectorAll("#moves li").length === n && document.getElementById("board")?.dataset.position === position,
      [expected.moves, expected.position],
      { timeout: LONG, polling: 100 },
    )
    .catch(async (error) => {
      throw new Error(`${error.message}\n${name} shows ${JSON.stringify(await seen())}, the API ${JSON.stringify(expected)}`);
    });
}

test("create a match against the greedy bot on star2 from the home page", async () => {
  player = await newPage(env.browser);
  await player.goto(`${env.server.url}/`);
  const form = player.locator("#new-match");
  await form.waitFor();
  await form.locator("#board").selectOption("star2");
  await form.locator("#layout").selectOption("2");
  await form.locator("#vs-bot").check();
  await form.locator("#bot-kind").selectOption("greedy");
  await form.locator("#name").fill("Ada");
  await form.locator("#create").click();
  await player.waitForURL(/\/matches\/\d+(#.*)?$/);
  id = Number(new URL(player.url()).pathname.split("/").pop());
  assert.ok(Number.isInteger(id) && id > 0, `landed on ${player.url()}`);
  // The seat token went from the fragment to the tab's session storage,
  // and out of the address bar.
  await player.waitForFunction((key) => sessionStorage.getItem(key) !== null, `sternhalma:match:${id}`);
  seat = JSON.parse(await player.evaluate((key) => sessionStorage.getItem(key) || "null", `sternhalma:match:${id}`));
  assert.ok(seat && seat.token, "the page keeps the seat's token");
  assert.ok(!player.url().includes(seat.token), "the token is not left in the address bar");
  const state = await match();
  assert.equal(state.position.position.board, "star2");
  assert.equal(state.seats.length, 2);
  const bots = state.seats.filter((s) => s.kind === "bot");
  assert.equal(bots.length, 1);
  assert.equal(bots[0].bot.kind, "greedy");
  assert.equal(state.seats[Number(seat.seat)].name, "Ada");
  assert.equal(await settled(player, null), "turn");
  await checkPage(player, "match-playing", { projector: true });
});

test("a second visitor watches the same match", async () => {
  const context = await env.browser.newContext({ viewport: { width: 1366, height: 768 } });
  watcher = await newPage(env.browser, { context });
  await watcher.goto(`${env.server.url}/matches/${id}`);
  await watcher.locator('#board[data-state="ready"]').waitFor();
  const state = await match();
  await watcher.waitForFunction((ply) => document.getElementById("board")?.dataset.ply === String(ply), state.ply);
  assert.equal(await watcher.locator("#board").getAttribute("data-position"), state.position.position_string);
  assert.equal(await watcher.locator("#board .peg.movable").count(), 0, "a visitor without a token cannot move");
  await checkPage(watcher, "match-watching", { projector: true });
});

test("an illegal attempt is explained in the API's words", async () => {
  const state = await match();
  assert.equal(state.to_move, Number(seat.seat), "the player is to move");
  await settled(player, null);
  const peg = await player.locator("#board .peg.movable").first().getAttribute("data-hole");
  await player.locator(`#board .peg.movable[data-hole="${peg}"]`).click();
  await player.locator("#board circle.target").first().waitFor();
  const lit = new Set((await targets(player)).map((t) => t.hole));
  // An empty hole that no legal move of this peg reaches: the one with
  // the smallest id.
  const empty = await player.locator("#board .hole").evaluateAll((holes) => {
    const pegs = new Set([...document.querySelectorAll("#board .peg")].map((p) => p.getAttribute("data-hole")));
    return holes.map((h) => h.getAttribute("data-hole")).filter((h) => !pegs.has(h)).map(Number);
  });
  const hole = empty.filter((h) => !lit.has(h)).sort((a, b) => a - b)[0];
  assert.ok(hole !== undefined, "an empty hole out of reach");
  // The API's explanation for the same move, posted directly (refused:
  // nothing changes).
  const direct = await request(env.server, "POST", `/v1/matches/${id}/moves`, { ply: state.ply, move: `${peg}-${hole}` }, { token: seat.token });
  assert.ok(direct.status >= 400 && direct.status < 500, `the API refuses ${peg}-${hole}: ${direct.status} ${direct.text}`);
  assert.ok(direct.body.detail, "the refusal has a detail");
  const before = player.problems.length;
  await player.locator(`#board .hole[data-hole="${hole}"]`).click();
  const message = player.locator('#message[data-kind="error"]');
  await message.waitFor({ state: "visible" });
  assert.equal((await message.textContent())?.trim(), direct.body.detail);
  // The page's own refused request is the one expected failure: Chromium
  // logs it as a console error; nothing else went wrong.
  const fresh = player.problems.splice(before);
  const expected = [new RegExp(`^HTTP ${direct.status} POST .*/v1/matches/${id}/moves$`), new RegExp(`status of ${direct.status}\\b`)];
  const unexpected = fresh.filter((problem) => !expected.some((pattern) => pattern.test(problem)));
  assert.deepEqual(unexpected, [], "only the refused move failed");
  assert.equal((await match()).version, state.version, "the refused move changed nothing");
});

test("play to the end (the first move by keyboard, then by clicking); the watcher sees every move arrive", async () => {
  let turns = 0;
  let shot = false;
  for (;;) {
    const state = await settled(player, null);
    // Both pages come to show what the API says, move for move: the
    // board's position and every ply in the move list.
    const now = await match();
    await shows(player, "the player's page", now);
    await shows(watcher, "the watcher's page", now);
    if (state === "over") break;
    turns++;
    assert.ok(turns <= 200, "the game ends (the match's move limit ends it at the latest)");
    const before = Number(await player.locator("#board").getAttribute("data-ply"));
    if (turns === 1) {
      // The first move from the keyboard alone.
      await keyboardMove(player);
      await settled(player, before);
      continue;
    }
    const chosen = await chooseMove(player);
    if (turns === 3 && !shot) {
      // A peg chosen, its destinations lit, the hop path drawn.
      await player.locator(`#board circle.target[data-hole="${chosen.hole}"]`).hover();
      await checkPage(player, "match-choosing", { projector: true });
      shot = true;
    }
    await player.locator(`#board circle.target[data-hole="${chosen.hole}"]`).click();
    await settled(player, before);
  }
  const final = await match();
  assert.notEqual(final.status, "in_progress");
  assert.ok(final.result, "the API gives the result");
  assert.equal(await listed(player), final.ply, "ply equals the moves listed");
  assert.equal(await listed(watcher), final.ply, "the watcher lists every move");
  await watcher.locator("#result").waitFor({ state: "visible" });
  assert.equal(await player.locator("#board").getAttribute("data-position"), final.position.position_string);
  assert.equal(await watcher.locator("#board").getAttribute("data-position"), final.position.position_string);
  await checkPage(player, "match-over", { projector: true });
  await checkPage(watcher, "match-over-watcher");
  assertClean(player, "match (player)");
  assertClean(watcher, "match (watcher)");
});

test("resigning takes two clicks and ends a two-seat match", async () => {
  const created = await api(env.server, "POST", "/v1/matches", {
    board: "star2",
    layout: "2",
    seats: [{ name: "Ada" }, { name: "Grace" }],
  });
  const match = created.match.id;
  const grace = created.seat_tokens.find((t) => t.seat === 1);
  const page = await newPage(env.browser);
  await page.goto(`${env.server.url}/matches/${match}#seat=1&token=${grace.token}`);
  const resign = page.locator("#resign");
  await resign.waitFor({ state: "visible" });
  await resign.click();
  assert.equal(await resign.textContent(), "Click again to resign");
  const before = await api(env.server, "GET", `/v1/matches/${match}`);
  assert.equal(before.status, "in_progress", "one click resigns nothing");
  await resign.click();
  await page.locator("#result").waitFor({ state: "visible" });
  const after = await api(env.server, "GET", `/v1/matches/${match}`);
  assert.equal(after.status, "finished");
  assert.equal(after.result.resigned_seat, 1);
  assert.deepEqual(after.result.winners, [0]);
  assert.ok((await page.locator("#places").textContent())?.includes("Ada"));
  // The board's legend says how the match ended, not whose turn it was.
  await page.waitForFunction(() => document.querySelector("#board text.legend")?.textContent === "finished: seat 0 won; seat 1 resigned");
  assertClean(page, "match resigned");
});

/** The text under a page's board once it says `expected`. */
async function legendSays(page, expected) {
  await page
    .waitForFunction((text) => document.querySelector("#board text.legend")?.textContent === text, expected, { timeout: LONG, polling: 100 })
    .catch(async (error) => {
      const shown = await page.evaluate(() => document.querySelector("#board text.legend")?.textContent);
      throw new Error(`${error.message}\nthe legend says ${JSON.stringify(shown)}, not ${JSON.stringify(expected)}`);
    });
}

test("a tournament game forfeited by timeouts says so, under its board and in its result", async () => {
  const created = await api(env.server, "POST", "/v1/tournaments", {
    name: "forfeits",
    board: "star2",
    move_ms: 200,
    max_timeouts: 2,
    games_per_pairing: 1,
    entrants: [{ name: "sleeper" }, { name: "greedy", bot: { kind: "greedy", seed: 1 } }],
  });
  const tournament = created.tournament.id;
  await api(env.server, "POST", `/v1/tournaments/${tournament}/start`, {}, { token: created.admin_token });
  const games = await until(
    () => api(env.server, "GET", `/v1/tournaments/${tournament}/games`),
    (answer) => answer.games.every((/** @type {{status: string}} */ g) => g.status === "finished"),
    "the sleeper to forfeit its game",
  );
  const game = games.games[0];
  const sleeper = game.seats.findIndex((/** @type {{name: string}} */ s) => s.name === "sleeper");
  const state = await api(env.server, "GET", `/v1/matches/${game.match_id}`);
  assert.equal(state.result.ending, "forfeit");
  assert.deepEqual(state.result.forfeits, [{ seat: sleeper, ply: state.ply, reason: "timeouts", timeouts: 2 }]);
  const page = await newPage(env.browser);
  await page.goto(`${env.server.url}/matches/${game.match_id}`);
  await page.locator("#result").waitFor({ state: "visible" });
  await legendSays(page, `finished: seat ${1 - sleeper} won; seat ${sleeper} forfeited (2 timeouts)`);
  assert.equal(await page.locator("#summary").textContent(), `seat ${sleeper} (sleeper) forfeited (2 timeouts)`);
  assert.equal(await page.locator("#status").textContent(), "finished");
  await checkPage(page, "match-forfeited", { projector: true });
});

test("an abandoned match says so under its board", async () => {
  const created = await api(env.server, "POST", "/v1/matches", {
    board: "star2",
    layout: "2",
    seats: [{ name: "Ada" }, { name: "Grace" }],
  });
  const match = created.match.id;
  const page = await newPage(env.browser);
  await page.goto(`${env.server.url}/matches/${match}`);
  await legendSays(page, "player 0 to move, ply 0");
  await api(env.server, "POST", `/v1/matches/${match}/abandon`, {}, { token: created.admin_token });
  // The watching page hears of it on its long-poll and redraws.
  await legendSays(page, "abandoned by its creator");
  assert.equal(await page.locator("#status").textContent(), "abandoned");
  assertClean(page, "match abandoned");
});
