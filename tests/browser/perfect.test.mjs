// Perfect play on the pages (issue 35): a server with the small solved
// tables (`--tablebases DIR --build-tablebases`). A finished match against
// the perfect bot shows on its replay every move's verdict (the mistakes
// marked, as POST /v1/analysis finds them), each seat's accuracy and each
// ply's value; the explorer shows every legal move's value, best first;
// the home page creates a match against the perfect bot on a solved board.

import assert from "node:assert/strict";
import { mkdtempSync } from "node:fs";
import { tmpdir } from "node:os";
import path from "node:path";
import { test } from "node:test";

import { api, checkPage, newPage, setup } from "./lib/harness.mjs";

const tables = mkdtempSync(path.join(tmpdir(), "sternhalma-tables-"));
const env = setup({ args: ["--tablebases", tables, "--build-tablebases"] });

/** A match on 7×7 with 2 pegs: Ada plays the first legal move each turn, the perfect bot answers. */
async function finishedMatch() {
  const created = await api(env.server, "POST", "/v1/matches", {
    board: "rhombus7p2",
    layout: "2",
    rules: "sturtevant",
    seats: [{ name: "Ada" }, { name: "Perfect", bot: { kind: "perfect", seed: 3 } }],
  });
  const id = created.match.id;
  const token = created.seat_tokens[0].token;
  let state = created.match;
  while (state.status === "in_progress") {
    const answer = await api(env.server, "POST", `/v1/matches/${id}/moves`, { ply: state.ply, move: state.legal_moves[0].text }, { token });
    state = answer.match;
  }
  const analysis = await api(env.server, "POST", "/v1/analysis", { match: id });
  return { id, state, analysis };
}

test("a finished match's replay marks the mistakes and shows each ply's value", async () => {
  const { id, state, analysis } = await finishedMatch();
  assert.equal(analysis.plies.length, state.ply);
  // The perfect bot made no mistake; Ada, playing the first move listed, lost.
  assert.equal(analysis.seats[1].mistakes, 0);
  assert.ok(analysis.seats[0].mistakes >= 1, JSON.stringify(analysis.seats));
  const page = await newPage(env.browser);
  await page.goto(`${env.server.url}/matches/${id}/replay`);
  await page.locator("#moves li[data-verdict]").nth(state.ply - 1).waitFor();
  const verdicts = await page.locator("#moves li").evaluateAll((items) => items.map((li) => li.getAttribute("data-verdict")));
  assert.deepEqual(
    verdicts,
    analysis.plies.map((/** @type {{verdict: string}} */ p) => p.verdict),
  );
  assert.equal(await page.locator("#moves li.mistake").count(), analysis.seats[0].mistakes);
  assert.equal(await page.locator("#moves li.mistake .verdict-mistake").count(), analysis.seats[0].mistakes);
  const accuracy = await page.locator("#seats .accuracy").allTextContents();
  assert.equal(accuracy.length, 2);
  assert.match(accuracy[1], /0 mistakes, 100% kept the value/);
  // Each ply's value, for the side to move, under the board.
  await page.locator("#value .value").waitFor();
  assert.ok(((await page.locator("#value").textContent()) || "").includes(analysis.plies[0].before.text));
  await page.keyboard.press("ArrowRight");
  await page.waitForFunction(
    (text) => (document.getElementById("value")?.textContent || "").includes(text),
    analysis.plies[1].before.text,
  );
  await checkPage(page, "replay-perfect-play");

  // The match page of the finished match marks the same mistakes.
  const match = await newPage(env.browser);
  await match.goto(`${env.server.url}/matches/${id}`);
  await match.locator("#moves li[data-verdict]").nth(state.ply - 1).waitFor();
  assert.equal(await match.locator("#moves li.mistake").count(), analysis.seats[0].mistakes);
  await checkPage(match, "match-perfect-play");
});

test("the explorer shows every legal move's value on a solved board, best first", async () => {
  const start = await api(env.server, "POST", "/v1/positions", { board: "rhombus7p2", layout: "2", rules: "sturtevant" });
  const probe = await api(env.server, "POST", "/v1/tablebase/probe", { position: start.position_string });
  const page = await newPage(env.browser);
  await page.goto(`${env.server.url}/explorer#position=${encodeURIComponent(start.position_string)}`);
  await page.locator("#legal-moves li .value").nth(probe.moves.length - 1).waitFor();
  const shown = await page.locator("#legal-moves li").evaluateAll((items) =>
    items.map((li) => [li.getAttribute("data-move"), li.querySelector(".value")?.textContent?.trim()]),
  );
  assert.deepEqual(
    shown,
    probe.moves.map((/** @type {{move: {text: string}, text: string}} */ m) => [m.move.text, m.text]),
  );
  assert.ok(((await page.locator("#value").textContent()) || "").includes(probe.text));
  await checkPage(page, "explorer-perfect-play");
});

test("the home page starts a match against the perfect bot on a solved board", async () => {
  const page = await newPage(env.browser);
  await page.goto(`${env.server.url}/`);
  await page.locator("#vs-bot").check();
  await page.locator("#bot-kind").selectOption("perfect");
  const boards = await page.locator("#board option").evaluateAll((options) => options.map((o) => o.getAttribute("value")));
  const listed = await api(env.server, "GET", "/v1/tablebases");
  assert.deepEqual(
    boards,
    listed.tablebases.filter((/** @type {{depths: boolean}} */ t) => t.depths).map((/** @type {{board: string}} */ t) => t.board),
  );
  await page.locator("#board").selectOption("rhombus7p2");
  assert.equal(await page.locator("#rules").inputValue(), "sturtevant");
  await page.locator("#create").click();
  await page.waitForURL(/\/matches\/\d+#seat=0/);
  await page.locator("#board .peg.movable").first().waitFor();
  await checkPage(page, "match-against-perfect");
});

test("a tournament's standings on a solved board show each entrant's accuracy", async () => {
  const created = await api(env.server, "POST", "/v1/tournaments", {
    board: "rhombus7p2",
    rules: "sturtevant",
    games_per_pairing: 2,
    start: true,
    entrants: [
      { name: "Perfect", bot: { kind: "perfect", seed: 1 } },
      { name: "Random", bot: { kind: "random", seed: 2 } },
    ],
  });
  const id = created.tournament.id;
  const page = await newPage(env.browser);
  await page.goto(`${env.server.url}/tournaments/${id}`);
  await page.locator("#status", { hasText: "finished" }).waitFor();
  const standings = await api(env.server, "GET", `/v1/tournaments/${id}/standings`);
  await page.locator("#standings td.accuracy").nth(standings.rows.length - 1).waitFor();
  assert.equal(await page.locator("#accuracy-heading").isVisible(), true);
  const shown = await page.locator("#standings tbody tr").evaluateAll((rows) =>
    rows.map((tr) => [tr.querySelector(".entrant-name")?.textContent, tr.querySelector("td.accuracy")?.getAttribute("data-accuracy")]),
  );
  assert.deepEqual(
    shown,
    standings.rows.map((/** @type {{name: string, accuracy: number}} */ row) => [row.name, String(row.accuracy)]),
  );
  const perfect = standings.rows.find((/** @type {{name: string}} */ row) => row.name === "Perfect");
  assert.equal(perfect.accuracy, 1);
  assert.match((await page.locator("#standings tbody tr", { hasText: "Perfect" }).locator("td.accuracy").textContent()) || "", /^100% 0 mistakes in \d+$/);
  await checkPage(page, "tournament-accuracy");
});
