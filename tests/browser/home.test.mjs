// The home page: the server's matches and tournaments, newest first, and a
// match for classmates created from the form, its seat links handed out
// once (each opens the match page as that seat).

import assert from "node:assert/strict";
import { test } from "node:test";

import { api, assertClean, checkPage, newPage, setup } from "./lib/harness.mjs";

const env = setup();

test("the lists show the matches and tournaments, newest first", async () => {
  const first = await api(env.server, "POST", "/v1/matches", {
    board: "star2",
    layout: "2",
    seats: [{ name: "Ada" }, { name: "Greedy", bot: { kind: "greedy", seed: 1 } }],
  });
  // One finished: its seat resigns.
  await api(env.server, "POST", `/v1/matches/${first.match.id}/resign`, {}, { token: first.seat_tokens[0].token });
  const second = await api(env.server, "POST", "/v1/matches", {
    board: "star4",
    layout: "2",
    seats: [{ name: "Grace" }, { name: "Alan" }],
  });
  const tournament = await api(env.server, "POST", "/v1/tournaments", {
    name: "Class 3B",
    board: "star2",
    layout: "2",
    move_ms: 600000,
    entrants: [{ name: "Ada" }, { name: "Greedy", bot: { kind: "greedy", seed: 1 } }],
  });

  const page = await newPage(env.browser);
  await page.goto(`${env.server.url}/`);
  await page.locator("#matches li[data-id]").nth(1).waitFor();
  const ids = await page.locator("#matches li[data-id]").evaluateAll((items) => items.map((li) => Number(li.getAttribute("data-id"))));
  assert.deepEqual(ids, [second.match.id, first.match.id], "newest first");
  assert.equal(await page.locator(`#matches li[data-id="${first.match.id}"]`).getAttribute("data-status"), "finished");
  assert.equal(await page.locator(`#matches a[href="/matches/${second.match.id}"]`).count(), 1, "a link to the match");
  assert.equal(await page.locator(`#matches a[href="/matches/${first.match.id}/replay"]`).count(), 1, "a link to the replay");
  await page.locator(`#tournaments li[data-id="${tournament.tournament.id}"]`).waitFor();
  assert.equal(await page.locator(`#tournaments a[href="/tournaments/${tournament.tournament.id}"]`).count(), 1);
  assert.ok((await page.locator("#tournaments").textContent())?.includes("Class 3B"));
  await checkPage(page, "home", { projector: true });
  assertClean(page, "home");
});

test("a match for classmates: one link per seat, each opens the match as that seat", async () => {
  const page = await newPage(env.browser);
  await page.goto(`${env.server.url}/`);
  const form = page.locator("#new-match");
  await form.locator("#vs-class").check();
  await form.locator("#board").selectOption("star2");
  await form.locator("#layout").selectOption("3");
  await form.locator("#name").fill("Ada");
  await form.locator("#seat-name-1").fill("Grace");
  await form.locator("#seat-name-2").fill("Alan");
  await form.locator("#create").click();
  const created = page.locator("#created");
  await created.waitFor({ state: "visible" });
  const links = await created.locator(".seat-links li a").evaluateAll((anchors) => anchors.map((a) => a.getAttribute("href") || ""));
  assert.equal(links.length, 3, "one link per seat");
  const id = Number(new URL(links[0]).pathname.split("/").pop());
  for (const [seat, link] of links.entries()) {
    const url = new URL(link);
    assert.equal(url.pathname, `/matches/${id}`);
    assert.equal(url.search, "", "no token in a query string");
    const fragment = new URLSearchParams(url.hash.slice(1));
    assert.equal(fragment.get("seat"), String(seat));
    assert.match(fragment.get("token") || "", /^[0-9a-f]{16,}$/);
  }
  const match = await api(env.server, "GET", `/v1/matches/${id}`);
  assert.deepEqual(
    match.seats.map((s) => s.name),
    ["Ada", "Grace", "Alan"],
  );
  assert.ok(match.seats.every((s) => s.kind === "open"));
  await page.locator(`#matches li[data-id="${id}"]`).waitFor();
  await checkPage(page, "home-created");

  // Seat 0's link, opened by its player: the match page, seat 0's pegs movable.
  const player = await newPage(env.browser);
  await player.goto(links[0]);
  await player.locator("#board .peg.movable").first().waitFor();
  assert.ok(((await player.locator("#you").textContent()) || "").includes("Ada"));
  // Seat 1's link: not its turn, nothing to move.
  const other = await newPage(env.browser);
  await other.goto(links[1]);
  await other.waitForFunction(() => document.getElementById("board")?.dataset.ply === "0");
  assert.equal(await other.locator("#board .peg.movable").count(), 0);
  assertClean(page, "home (classmates)");
  assertClean(player, "match (seat 0)");
  assertClean(other, "match (seat 1)");
});
