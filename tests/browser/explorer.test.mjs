// The explorer: a pasted position shows the legal moves POST
// /v1/legal-moves gives, and its address reproduces the state in another
// browser; a move played from the list is the one POST /v1/apply plays.

import assert from "node:assert/strict";
import { test } from "node:test";

import { api, assertClean, checkPage, newPage, setup } from "./lib/harness.mjs";

const env = setup();

/**
 * Waits until the page shows `position` with `count` legal moves listed.
 * @param {import("playwright-core").Page} page
 * @param {string} position
 * @param {number} count
 */
async function shows(page, position, count) {
  await page.waitForFunction(
    ([p, n]) =>
      document.getElementById("board")?.dataset.position === p &&
      !document.getElementById("board")?.hasAttribute("aria-busy") &&
      document.querySelectorAll("#legal-moves li[data-move]").length === n,
    [position, count],
  );
}

test("a pasted position shows its legal moves; its address reproduces it", async () => {
  // A position some way into a game on the standard board, so that the
  // moves include hops: the start and six moves, replayed by the API.
  const start = (await api(env.server, "POST", "/v1/positions", { board: "star4", layout: "2" })).position_string;
  const replay = await api(env.server, "POST", "/v1/replay", {
    start,
    moves: ["111-102", "3-14", "113-89", "0-16", "116-78", "4-13"],
  });
  const position = replay.final.position_string;
  const legal = await api(env.server, "POST", "/v1/legal-moves", { position });
  assert.ok(legal.count > 0 && legal.moves.length === legal.count);

  const page = await newPage(env.browser);
  await page.goto(`${env.server.url}/explorer`);
  // The page opens on the standard start; then the pasted position.
  await page.locator("#legal-moves li[data-move]").first().waitFor();
  await page.locator("#position-input").fill(position);
  await page.locator("#show").click();
  await shows(page, position, legal.count);
  const listed = await page.locator("#legal-moves li[data-move]").evaluateAll((items) => items.map((li) => li.getAttribute("data-move")));
  assert.deepEqual(listed, legal.moves.map((m) => m.text), "the API's moves, in its order");
  assert.ok(new URL(page.url()).hash.length > 1, "the state is in the address");
  await checkPage(page, "explorer", { projector: true });

  // Another visitor opening the address sees the same state.
  const shared = await newPage(env.browser);
  await shared.goto(page.url());
  await shows(shared, position, legal.count);
  assert.equal(await shared.locator("#position-input").inputValue(), position);
  assertClean(shared, "explorer (shared link)");

  // A move from the list: the position after it is the API's.
  const move = legal.moves[legal.moves.length - 1];
  const applied = await api(env.server, "POST", "/v1/apply", { position, move: move.text });
  const next = applied.position.position_string;
  const after = await api(env.server, "POST", "/v1/legal-moves", { position: next });
  await page.locator(`#legal-moves li[data-move="${move.text}"] button`).click();
  await shows(page, next, after.count);
  // The browser's back button returns to the pasted position.
  await page.goBack();
  await shows(page, position, legal.count);
  assertClean(page, "explorer");
});
