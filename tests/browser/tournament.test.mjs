// A round robin of built-in bots on the small board, followed live on the
// tournament page from before its start to its end: the standings the page
// shows are those of GET /v1/tournaments/{id}/standings.

import assert from "node:assert/strict";
import { test } from "node:test";

import { LONG, api, assertClean, checkPage, newPage, setup, until } from "./lib/harness.mjs";
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
