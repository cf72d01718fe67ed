// A round robin of built-in bots on the small board, followed live on the
// tournament page from before its start to its end: the standings the page
// shows are those of GET /v1/tournaments/{id}/standings.

import assert from "node:assert/strict";
import { test } from "node:test";

import { LONG, api, assertClean, checkPage, newPage, request, setup, until } from "./lib/harness.mjs";
import { assertStandings } from "./lib/standings.mjs";

const env = setup();

test("a round robin of bots, watched from start to finish: the standings are the API's", async () => {
  const created = await api(env.server, "POST", "/v1/tournaments", {
    name: "Bots on star2",
    board: "star2",
    layout: "2",
    games_per_pairing: 2,
    concurrency: 2,
    entrants: [
      { name: "Greedy one", bot: { kind: "greedy", seed: 1 } },
      { name: "Greedy two", bot: { kind: "greedy", seed: 2 } },
      { name: "Alpha-beta", bot: { kind: "alphabeta", seed: 3, nodes: 2000 } },
      { name: "Random", bot: { kind: "random", seed: 4 } },
    ],
  });
  const id = created.tournament.id;
  assert.equal(created.tournament.status, "waiting");

  const page = await newPage(env.browser);
  await page.goto(`${env.server.url}/tournaments/${id}`);
  await page.locator("#standings tbody tr[data-entrant]").first().waitFor();
  assert.equal(await page.locator("#standings tbody tr[data-entrant]").count(), 4, "one row per entrant before the start");
  await checkPage(page, "tournament-waiting", { projector: true });

  await api(env.server, "POST", `/v1/tournaments/${id}/start`, {}, { token: created.admin_token });
  const finished = await until(
    () => api(env.server, "GET", `/v1/tournaments/${id}`),
    (t) => t.status === "finished",
    "the tournament to finish",
    5 * LONG,
  );
  const games = finished.games;
  const standings = await api(env.server, "GET", `/v1/tournaments/${id}/standings`);
  assert.equal(standings.rows.length, 4);
  // The page follows the events: it reaches the final standings by itself.
  await assertStandings(page, standings);
  // Every game is listed, with a link to its replay.
  const total = games.total;
  assert.equal(games.finished, total, "every game finished");
  await page.waitForFunction((n) => document.querySelectorAll('#games a[href$="/replay"]').length >= n, total);
  // The winner is announced: the entrants ranked first, with their points.
  const first = standings.rows.filter((row) => row.rank === 1).map((row) => row.name);
  const banner = page.locator("#winner");
  await banner.waitFor({ state: "visible" });
  const announced = (await banner.textContent()) ?? "";
  for (const name of first) assert.ok(announced.includes(name), `${announced} names ${name}`);
  assert.match(announced, first.length === 1 ? /^Winner: / : /^Shared first place: /);
  await checkPage(page, "tournament-finished", { projector: true });
  assertClean(page, "tournament");
});

/**
 * A waiting tournament of two open entrants and a bot, as a teacher
 * creates it before the class connects its programs.
 * @param {string} name
 */
function createClassTournament(name) {
  return api(env.server, "POST", "/v1/tournaments", {
    name,
    board: "star2",
    layout: "2",
    move_ms: 600000,
    entrants: [{ name: "Ada" }, { name: "Bob" }, { name: "Greedy", bot: { kind: "greedy", seed: 5 } }],
  });
}

/**
 * The state (`data-state`) and text of each item of the Players panel, by entrant.
 * @param {import("playwright-core").Page} page
 * @returns {Promise<Record<string, {state: string, text: string, withdraw: boolean}>>}
 */
function players(page) {
  return page.evaluate(() =>
    Object.fromEntries(
      [...document.querySelectorAll("#presence li.player")].map((item) => [
        /** @type {HTMLElement} */ (item).dataset.entrant,
        {
          state: /** @type {HTMLElement} */ (item).dataset.state ?? "",
          text: item.textContent ?? "",
          withdraw: item.querySelector("button.withdraw") !== null,
        },
      ]),
    ),
  );
}

/**
 * Waits until the page's event stream is open (its "open" reads the whole
 * tournament again, so an event after this is one the page hears).
 * @param {import("playwright-core").Page} page
 */
async function streamOpen(page) {
  await page.waitForFunction(() => document.getElementById("stream")?.textContent?.startsWith("Live:"));
}

test("the Players panel: open entrants away until their program asks for its turns, then connected", async () => {
  const created = await createClassTournament("Presence");
  const id = created.tournament.id;
  const ada = created.entrant_tokens.find((/** @type {{entrant: number}} */ t) => t.entrant === 0).token;

  const page = await newPage(env.browser);
  await page.goto(`${env.server.url}/tournaments/${id}`);
  await page.locator("#players").waitFor({ state: "visible" });
  await page.waitForFunction(() => document.querySelectorAll("#presence li.player").length === 3);
  await streamOpen(page);
  let shown = await players(page);
  assert.deepEqual(Object.keys(shown).sort(), ["0", "1", "2"], "one item per entrant, the bot too");
  for (const entrant of ["0", "1"]) {
    assert.equal(shown[entrant].state, "away", `open entrant ${entrant} is away before it polls`);
    assert.match(shown[entrant].text, /not seen yet/);
  }
  assert.equal(shown["2"].state, "bot");
  assert.match(shown["2"].text, /built-in bot/);
  // Without the admin token, nobody can be withdrawn from this page.
  assert.equal(await page.locator("#presence button.withdraw").count(), 0, "no Withdraw button without the admin token");

  // Ada's program asks for its turns and waits (the tournament has not
  // started: the long-poll stays open until its timeout).
  const poll = request(env.server, "GET", `/v1/tournaments/${id}/turns?timeout_ms=20000`, undefined, { token: ada });
  // Handled here too: a failing test stops the server under it.
  poll.catch(() => {});
  await page.locator('#presence li.player[data-entrant="0"][data-state="connected"]').waitFor();
  const view = await api(env.server, "GET", `/v1/tournaments/${id}`);
  assert.equal(view.entrants[0].presence.connected, true, "the API says Ada is connected while her poll is open");
  assert.equal(view.entrants[1].presence.connected, false);
  shown = await players(page);
  assert.match(shown["0"].text, /connected/);
  assert.equal(shown["1"].state, "away", "Bob, who never asked, stays away");
  assert.match(shown["1"].text, /not seen yet/);
  assert.equal(shown["2"].state, "bot");
  // The "Latest" list says so too.
  await page.locator("#feed li", { hasText: "Ada connected." }).waitFor();
  await checkPage(page, "tournament-players");

  const answer = await poll;
  assert.equal(answer.status, 200, answer.text);
  assert.deepEqual(answer.body.turns, [], "no turn before the start");
  assertClean(page, "tournament (players)");
  await page.context().close();
});

test("the Players panel: the admin withdraws an entrant by clicking twice", async () => {
  const created = await createClassTournament("Withdrawals");
  const id = created.tournament.id;
  const ada = created.entrant_tokens.find((/** @type {{entrant: number}} */ t) => t.entrant === 0).token;

  // Without the admin token: no Withdraw button.
  const visitor = await newPage(env.browser);
  await visitor.goto(`${env.server.url}/tournaments/${id}`);
  await visitor.waitForFunction(() => document.querySelectorAll("#presence li.player").length === 3);
  assert.equal(await visitor.locator("#presence button.withdraw").count(), 0, "no Withdraw button without the admin token");
  assertClean(visitor, "tournament (visitor)");
  await visitor.context().close();

  const page = await newPage(env.browser);
  await page.goto(`${env.server.url}/tournaments/${id}#admin=${created.admin_token}`);
  await page.locator("#admin").waitFor({ state: "visible" });
  await page.waitForFunction(() => document.querySelectorAll("#presence li.player button.withdraw").length === 3);
  await streamOpen(page);

  const bob = page.locator('#presence li.player[data-entrant="1"]');
  const button = bob.locator("button.withdraw");
  assert.equal(await button.textContent(), "Withdraw");
  await button.click();
  await page.waitForFunction(
    () => document.querySelector('#presence li.player[data-entrant="1"] button.withdraw')?.textContent === "Click again to withdraw Bob",
  );
  // Something else changes meanwhile (Ada's program connects): the list is
  // redrawn, and the confirmation asked for stays armed.
  const poll = request(env.server, "GET", `/v1/tournaments/${id}/turns?timeout_ms=20000`, undefined, { token: ada });
  // Handled here too: a failing test stops the server under it.
  poll.catch(() => {});
  await page.locator('#presence li.player[data-entrant="0"][data-state="connected"]').waitFor();
  assert.equal(await button.textContent(), "Click again to withdraw Bob", "a redraw of the list keeps the click asked for");
  assert.equal(await withdrawnAt(id, 1), null, "one click withdraws nobody");
  await button.click();
  await page.locator('#presence li.player[data-entrant="1"][data-state="withdrawn"]').waitFor();
  assert.ok(await withdrawnAt(id, 1), "the API has Bob's withdrawn_at");
  const shown = await players(page);
  assert.match(shown["1"].text, /withdrawn/);
  assert.equal(shown["1"].withdraw, false, "a withdrawn entrant has no Withdraw button");
  assert.equal(shown["0"].state, "connected");
  assert.equal(shown["0"].withdraw, true, "the others can still be withdrawn");
  assert.equal(shown["2"].withdraw, true);
  assert.equal(await withdrawnAt(id, 0), null, "only Bob was withdrawn");
  await page.locator("#feed li", { hasText: "Bob was withdrawn" }).waitFor();
  await checkPage(page, "tournament-withdrawn");

  const answer = await poll;
  assert.equal(answer.status, 200, answer.text);
  assertClean(page, "tournament (admin)");
  await page.context().close();
});

/**
 * The API's `withdrawn_at` of an entrant (null while it takes part).
 * @param {number} id
 * @param {number} entrant
 */
async function withdrawnAt(id, entrant) {
  const view = await api(env.server, "GET", `/v1/tournaments/${id}`);
  return view.entrants[entrant].withdrawn_at ?? null;
}
