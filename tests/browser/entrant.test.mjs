// A student plays a tournament against a built-in bot on the entrant page
// (entrant token in the link), clicking every move, while the teacher's
// tournament page (admin token in the link) starts it and follows it live:
// the standings at the end are the API's.

import assert from "node:assert/strict";
import { test } from "node:test";

import { LONG, api, assertClean, checkPage, newPage, setup } from "./lib/harness.mjs";
import { chooseMove } from "./lib/play.mjs";
import { assertStandings } from "./lib/standings.mjs";

const env = setup();

/**
 * Waits until the entrant page has a turn other than `previous` on a
 * playable board, or has no game left.
 * @param {import("playwright-core").Page} page
 * @param {string | null} previous `match:ply` of the turn last played.
 * @returns {Promise<{state: "turn" | "done", key: string}>}
 */
async function nextTurn(page, previous) {
  const handle = await page.waitForFunction(
    (last) => {
      const area = document.getElementById("play-area");
      if (area?.dataset.state === "done") return { state: "done", key: "" };
      const board = document.getElementById("board");
      if (area?.dataset.state !== "turn" || !board?.classList.contains("playable")) return false;
      if (!board.querySelector(".peg.movable")) return false;
      const key = `${board.dataset.match}:${board.dataset.ply}`;
      return key === last ? false : { state: "turn", key };
    },
    previous,
    { timeout: LONG, polling: 100 },
  );
  return /** @type {{state: "turn" | "done", key: string}} */ (await handle.jsonValue());
}

test("a student plays every game by clicking; the teacher's page follows and ranks", async () => {
  const created = await api(env.server, "POST", "/v1/tournaments", {
    name: "Class 3B",
    board: "star2",
    layout: "2",
    // A clock no slow machine runs out: no timeout is ever played.
    move_ms: 600000,
    entrants: [{ name: "Ada" }, { name: "Greedy", bot: { kind: "greedy", seed: 7 } }],
  });
  const id = created.tournament.id;
  const token = created.entrant_tokens[0].token;

  // The teacher's page, with the admin token: starts the tournament.
  const teacher = await newPage(env.browser);
  await teacher.goto(`${env.server.url}/tournaments/${id}#admin=${created.admin_token}`);
  await teacher.locator("#admin").waitFor({ state: "visible" });
  assert.ok(!teacher.url().includes(created.admin_token), "the admin token left the address bar");

  // The student's page, with the entrant token.
  const student = await newPage(env.browser);
  await student.goto(`${env.server.url}/tournaments/${id}/play#token=${token}`);
  await student.locator("#play-area").waitFor({ state: "visible" });
  assert.ok(!student.url().includes(token), "the token left the address bar");
  await student.waitForFunction(() => document.getElementById("play-area")?.dataset.state === "waiting");
  await checkPage(student, "entrant-waiting");

  await teacher.locator("#start").click();
  await teacher.waitForFunction(() => document.getElementById("status")?.textContent?.includes("running"));

  let previous = null;
  let moves = 0;
  for (;;) {
    const next = await nextTurn(student, previous);
    if (next.state === "done") break;
    moves++;
    assert.ok(moves <= 400, "the games end (their move limit ends them at the latest)");
    const chosen = await chooseMove(student);
    if (moves === 2) {
      await student.locator(`#board circle.target[data-hole="${chosen.hole}"]`).hover();
      await checkPage(student, "entrant-turn");
      // The teacher's page shows the game under way as a live miniature.
      await teacher.locator("#live > *").first().waitFor();
      await checkPage(teacher, "tournament-live", { projector: true });
    }
    await student.locator(`#board circle.target[data-hole="${chosen.hole}"]`).click();
    previous = next.key;
  }
  const tournament = await api(env.server, "GET", `/v1/tournaments/${id}`);
  assert.equal(tournament.status, "finished");
  assert.equal(tournament.games.finished, tournament.games.total);
  const standings = await api(env.server, "GET", `/v1/tournaments/${id}/standings`);
  const ada = standings.rows.find((row) => row.name === "Ada");
  assert.equal(ada.games, tournament.games.total, "Ada played every game");
  assert.equal(ada.timeouts, 0, "every move was Ada's own");
  await student.locator("#my-games li").first().waitFor();
  assert.equal(await student.locator('#my-games li[data-status="finished"]').count(), tournament.games.total);
  await checkPage(student, "entrant-done");
  await assertStandings(teacher, standings);
  await checkPage(teacher, "tournament-over", { projector: true });
  assertClean(student, "entrant");
  assertClean(teacher, "tournament (teacher)");
});
