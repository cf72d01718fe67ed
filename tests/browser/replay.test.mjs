// Replay: a stored match stepped by keyboard (ArrowRight, ArrowLeft, End,
// Home) shows at each ply the position POST /v1/replay gives for that ply;
// an exported record pasted on /replay is replayed the same way.

import assert from "node:assert/strict";
import { test } from "node:test";

import { api, assertClean, checkPage, newPage, setup } from "./lib/harness.mjs";

const env = setup();

/** A match against the greedy bot, a few moves in (played through the API). */
async function playedMatch(turns) {
  const created = await api(env.server, "POST", "/v1/matches", {
    board: "star2",
    layout: "2",
    seats: [{ name: "Ada" }, { name: "Greedy", bot: { kind: "greedy", seed: 5 } }],
  });
  const id = created.match.id;
  const token = created.seat_tokens[0].token;
  let state = created.match;
  for (let turn = 0; turn < turns && state.status === "in_progress"; turn++) {
    // The first legal move the API lists: a game that is the same every run.
    const answer = await api(env.server, "POST", `/v1/matches/${id}/moves`, { ply: state.ply, move: state.legal_moves[0].text }, { token });
    state = answer.match;
  }
  const record = await api(env.server, "GET", `/v1/matches/${id}/export`);
  const replay = await api(env.server, "POST", "/v1/replay", record);
  const positions = [record.start, ...replay.steps.map((step) => step.position_string)];
  assert.equal(positions.length, state.ply + 1);
  return { id, record, positions };
}

/**
 * Waits until the page shows ply `k` (label, board) and checks it against
 * the API's position of that ply.
 */
async function assertAt(page, k, positions) {
  const last = positions.length - 1;
  await page.waitForFunction(
    ([ply, position]) => {
      const board = document.getElementById("board");
      return board?.dataset.ply === String(ply) && board.dataset.position === position;
    },
    [k, positions[k]],
  );
  assert.equal((await page.locator("#ply-label").textContent())?.trim(), `ply ${k} of ${last}`);
  assert.equal(await page.locator("#board").getAttribute("data-position"), positions[k]);
}

test("a stored match steps forward and back by keyboard", async () => {
  const { id, positions } = await playedMatch(5);
  const last = positions.length - 1;
  const page = await newPage(env.browser);
  await page.goto(`${env.server.url}/matches/${id}/replay`);
  await assertAt(page, 0, positions);
  await checkPage(page, "replay-start");
  for (let k = 1; k <= 3; k++) {
    await page.keyboard.press("ArrowRight");
    await assertAt(page, k, positions);
  }
  await page.keyboard.press("ArrowLeft");
  await assertAt(page, 2, positions);
  await page.keyboard.press("End");
  await assertAt(page, last, positions);
  await page.keyboard.press("ArrowRight");
  await assertAt(page, last, positions);
  await page.keyboard.press("ArrowLeft");
  await assertAt(page, last - 1, positions);
  await page.keyboard.press("Home");
  await assertAt(page, 0, positions);
  await page.keyboard.press("ArrowLeft");
  await assertAt(page, 0, positions);
  // The shown ply is in the address: a link opens at that moment.
  await page.keyboard.press("ArrowRight");
  await page.keyboard.press("ArrowRight");
  await assertAt(page, 2, positions);
  assert.match(page.url(), /#ply=2$/);
  const linked = await newPage(env.browser);
  await linked.goto(page.url());
  await assertAt(linked, 2, positions);
  await checkPage(page, "replay-ply-2", { projector: true });
  assertClean(page, "replay");
  assertClean(linked, "replay (linked)");
});

test("an exported record pasted on /replay is replayed", async () => {
  const { record, positions } = await playedMatch(3);
  const last = positions.length - 1;
  const page = await newPage(env.browser);
  await page.goto(`${env.server.url}/replay`);
  await page.locator("#record").waitFor();
  await checkPage(page, "replay-upload");
  await page.locator("#record").fill(JSON.stringify(record));
  await page.locator("#load").click();
  await assertAt(page, 0, positions);
  await page.keyboard.press("End");
  await assertAt(page, last, positions);
  await page.keyboard.press("ArrowLeft");
  await assertAt(page, last - 1, positions);
  await checkPage(page, "replay-record");
  assertClean(page, "replay of a record");
});
