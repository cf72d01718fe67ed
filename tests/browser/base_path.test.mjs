// Behind a proxy that keeps a path prefix (`sternhalma serve --base-path
// /prefix`, as JupyterHub forwards /services/game/...): a visitor opens
// /prefix/, plays a bot from the home page, follows the site's links to the
// explorer, watches a tournament live and tries the API in Swagger UI, and
// nothing the pages ask for (pages, assets, API calls, the event stream,
// links) leaves /prefix/.

import assert from "node:assert/strict";
import { test } from "node:test";

import { api, assertClean, newPage, setup } from "./lib/harness.mjs";
import { chooseMove } from "./lib/play.mjs";

const PREFIX = "/prefix";
const env = setup({ args: ["--base-path", PREFIX] });

/**
 * A page that records every request it makes.
 * @returns {Promise<import("./lib/harness.mjs").TrackedPage & {sent: string[]}>}
 */
async function trackedPage() {
  const page = /** @type {any} */ (await newPage(env.browser));
  page.sent = [];
  page.on("request", (/** @type {import("playwright-core").Request} */ sent) => page.sent.push(sent.url()));
  return page;
}

/**
 * Fails if the page asked for anything outside the server's /prefix/, or
 * names a link, stylesheet or script outside it.
 * @param {Awaited<ReturnType<typeof trackedPage>>} page
 * @param {string} name
 */
async function assertUnderPrefix(page, name) {
  const origin = new URL(env.server.url).origin;
  const outside = (/** @type {string} */ address) => {
    const url = new URL(address);
    return url.origin !== origin || !url.pathname.startsWith(`${PREFIX}/`);
  };
  assert.ok(page.sent.length > 3, `${name}: requests were recorded`);
  assert.deepEqual(page.sent.filter(outside), [], `${name}: requests outside ${PREFIX}/`);
  const named = await page.evaluate(() =>
    [...document.querySelectorAll("a[href], link[href], script[src]")].map((e) =>
      e instanceof HTMLScriptElement ? e.src : /** @type {HTMLAnchorElement | HTMLLinkElement} */ (e).href,
    ),
  );
  assert.deepEqual(named.filter(outside), [], `${name}: links outside ${PREFIX}/`);
  assertClean(page, name);
}

test("under a base path every page, request, stream and link stays under it", async () => {
  // The home page: a match against the greedy bot.
  const page = await trackedPage();
  await page.goto(`${env.server.url}${PREFIX}/`);
  const form = page.locator("#new-match");
  await form.locator("#board option[value='star2']").waitFor({ state: "attached" });
  await form.locator("#board").selectOption("star2");
  await form.locator("#layout").selectOption("2");
  await form.locator("#vs-bot").check();
  await form.locator("#bot-kind").selectOption("greedy");
  await form.locator("#name").fill("Ada");
  await form.locator("#create").click();
  await page.waitForURL(new RegExp(`^${env.server.url}${PREFIX}/matches/\\d+(#.*)?$`));
  const id = Number(new URL(page.url()).pathname.split("/").pop());
  assert.ok(id > 0, page.url());

  // The match page: the board is drawn; a move, and the bot's reply.
  await page.locator("#board .peg.movable").first().waitFor();
  const before = Number(await page.locator("#board").getAttribute("data-ply"));
  const chosen = await chooseMove(page);
  await page.locator(`#board circle.target[data-hole="${chosen.hole}"]`).click();
  await page.waitForFunction((ply) => Number(document.getElementById("board")?.dataset.ply) >= ply + 2, before);
  const match = await api(env.server, "GET", `${PREFIX}/v1/matches/${id}`);
  assert.ok(match.ply >= before + 2, "the move and the bot's reply are stored");
  assert.equal(await page.locator("#replay-link").getAttribute("href"), `${PREFIX}/matches/${id}/replay`);
  await assertUnderPrefix(page, "home and match");

  // The site's links lead on under the prefix: to the explorer.
  const explorer = await trackedPage();
  await explorer.goto(`${env.server.url}${PREFIX}/matches/${id}`);
  await explorer.locator('#board[data-state="ready"]').waitFor();
  await explorer.locator("nav a", { hasText: "Explorer" }).click();
  await explorer.waitForURL(`${env.server.url}${PREFIX}/explorer`);
  await explorer.locator("#legal-moves li[data-move]").first().waitFor();
  await explorer.locator("#board svg").waitFor();
  await assertUnderPrefix(explorer, "match, then explorer");

  // A tournament of two bots, followed live over the event stream.
  const created = await api(env.server, "POST", `${PREFIX}/v1/tournaments`, {
    name: "Under a prefix",
    board: "star2",
    layout: "2",
    entrants: [
      { name: "Greedy one", bot: { kind: "greedy", seed: 1 } },
      { name: "Greedy two", bot: { kind: "greedy", seed: 2 } },
    ],
  });
  const tournament = await trackedPage();
  await tournament.goto(`${env.server.url}${PREFIX}/tournaments/${created.tournament.id}`);
  await tournament.locator("#stream", { hasText: "Live" }).waitFor();
  await api(env.server, "POST", `${PREFIX}/v1/tournaments/${created.tournament.id}/start`, {}, { token: created.admin_token });
  await tournament.waitForFunction(() => {
    const progress = document.getElementById("progress");
    return progress?.dataset.total !== undefined && progress.dataset.finished === progress.dataset.total;
  });
  await tournament.locator("#games a.replay").first().waitFor();
  await assertUnderPrefix(tournament, "tournament");

  // Swagger UI reads the document through the prefix and tries routes there.
  const docs = await trackedPage();
  await docs.goto(`${env.server.url}${PREFIX}/docs`);
  assert.equal(docs.url(), `${env.server.url}${PREFIX}/docs/`);
  await docs.locator(".swagger-ui .info .title", { hasText: "Sternhalma" }).waitFor();
  const health = docs.locator(".opblock", { has: docs.locator(".opblock-summary-path", { hasText: /^\/healthz$/ }) });
  await health.locator(".opblock-summary").click();
  await health.locator("button.try-out__btn").click();
  const answered = docs.waitForResponse((response) => new URL(response.url()).pathname.endsWith("/healthz"));
  await health.locator("button.execute").click();
  const response = await answered;
  assert.equal(new URL(response.url()).pathname, `${PREFIX}/healthz`);
  assert.equal(response.status(), 200);
  // Swagger UI's own links (the document, the licence, swagger.io) are its
  // business; what it asked this server for is checked.
  const origin = new URL(env.server.url).origin;
  const outside = docs.sent.filter((address) => new URL(address).origin === origin && !new URL(address).pathname.startsWith(`${PREFIX}/`));
  assert.deepEqual(outside, [], "Swagger UI's requests outside the prefix");
  assertClean(docs, "Swagger UI");
});
