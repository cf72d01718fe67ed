// Safe by construction: every page and asset carries the
// Content-Security-Policy, no page has an inline script or an inline style
// attribute, and no page sends a token in a query string.

import assert from "node:assert/strict";
import { test } from "node:test";

import { api, assertClean, newPage, request, setup } from "./lib/harness.mjs";

const env = setup();

/** The pages, with the ids of a match and a tournament that exist. */
function pages(match, tournament) {
  return [
    "/",
    `/matches/${match}`,
    `/matches/${match}/replay`,
    "/replay",
    `/tournaments/${tournament}`,
    `/tournaments/${tournament}/play`,
    "/explorer",
  ];
}

/** @param {import("node:http").IncomingHttpHeaders | Record<string, string>} headers */
function assertPolicy(headers, what) {
  const policy = String(headers["content-security-policy"] || "");
  assert.ok(policy, `${what}: no Content-Security-Policy header`);
  const directives = new Map(
    policy
      .split(";")
      .map((d) => d.trim().split(/\s+/))
      .filter((d) => d[0])
      .map(([name, ...values]) => [name, values]),
  );
  assert.deepEqual(directives.get("default-src"), ["'none'"], `${what}: default-src`);
  assert.deepEqual(directives.get("script-src"), ["'self'"], `${what}: script-src allows only this origin`);
  assert.deepEqual(directives.get("style-src"), ["'self'"], `${what}: style-src allows only this origin`);
  assert.ok(!policy.includes("unsafe-inline") && !policy.includes("unsafe-eval"), `${what}: nothing unsafe`);
  assert.equal(headers["x-content-type-options"], "nosniff", `${what}: nosniff`);
}

test("pages and assets carry the Content-Security-Policy; no inline script or style", async () => {
  const created = await api(env.server, "POST", "/v1/matches", {
    board: "star2",
    layout: "2",
    seats: [{ name: "Ada" }, { name: "Greedy", bot: { kind: "greedy", seed: 1 } }],
  });
  const tournament = await api(env.server, "POST", "/v1/tournaments", {
    name: "Policy",
    board: "star2",
    layout: "2",
    move_ms: 600000,
    entrants: [{ name: "Ada" }, { name: "Greedy", bot: { kind: "greedy", seed: 1 } }],
  });
  const assets = new Set();
  for (const route of pages(created.match.id, tournament.tournament.id)) {
    const answer = await request(env.server, "GET", route);
    assert.equal(answer.status, 200, `${route} answers 200`);
    assert.match(String(answer.headers["content-type"]), /^text\/html/, `${route} is HTML`);
    assertPolicy(answer.headers, route);
    // The served HTML itself: no inline handlers or style attributes.
    assert.doesNotMatch(answer.text, /\sstyle\s*=/i, `${route}: an inline style attribute`);
    assert.doesNotMatch(answer.text, /\son[a-z]+\s*=/i, `${route}: an inline event handler`);

    const page = await newPage(env.browser);
    /** @type {string[]} */
    const queried = [];
    page.on("request", (sent) => {
      const url = new URL(sent.url());
      if ([...url.searchParams.keys()].some((key) => /token|key|secret/i.test(key))) queried.push(sent.url());
    });
    page.on("response", (response) => {
      const url = new URL(response.url());
      if (url.pathname.startsWith("/assets/")) assets.add(url.pathname);
    });
    await page.goto(`${env.server.url}${route}`);
    await page.waitForLoadState("load");
    assert.equal(await page.locator("script:not([src])").count(), 0, `${route}: an inline script`);
    const modules = await page.locator("script[src]").evaluateAll((scripts) => scripts.map((s) => s.getAttribute("src")));
    assert.ok(modules.length > 0, `${route} loads its module`);
    for (const src of modules) assert.match(String(src), /^\/assets\/js\/[a-z0-9_-]+\.js$/, `${route}: a same-origin module`);
    assert.deepEqual(queried, [], `${route}: a secret in a query string`);
    await page.context().close();
    assertClean(page, route);
  }
  assert.ok(assets.has("/assets/site.css") && assets.has("/assets/palette.css"), "the pages load the stylesheets");
  for (const asset of assets) {
    const answer = await request(env.server, "GET", asset);
    assert.equal(answer.status, 200, `${asset} answers 200`);
    assertPolicy(answer.headers, asset);
  }
});

test("a page with a seat token keeps it out of the address bar and out of every URL it requests", async () => {
  const created = await api(env.server, "POST", "/v1/matches", {
    board: "star2",
    layout: "2",
    seats: [{ name: "Ada" }, { name: "Greedy", bot: { kind: "greedy", seed: 1 } }],
  });
  const token = created.seat_tokens[0].token;
  const page = await newPage(env.browser);
  /** @type {string[]} */
  const leaked = [];
  page.on("request", (sent) => {
    if (sent.url().includes(token)) leaked.push(sent.url());
  });
  await page.goto(`${env.server.url}/matches/${created.match.id}#seat=0&token=${token}`);
  await page.locator("#board .peg.movable").first().waitFor();
  assert.ok(!page.url().includes(token), "the token left the address bar");
  assert.deepEqual(leaked, [], "no URL carries the token");
  await page.context().close();
  assertClean(page, "match with a token");
});

test("Swagger UI renders the API under the pages' policy, and cannot be framed", async () => {
  const answer = await request(env.server, "GET", "/docs/");
  assert.equal(answer.status, 200);
  const policy = String(answer.headers["content-security-policy"] || "");
  assert.ok(policy.includes("frame-ancestors 'none'"), `/docs/: ${policy}`);
  assert.equal(answer.headers["x-frame-options"], "DENY");
  assert.equal(answer.headers["referrer-policy"], "no-referrer");
  const page = await newPage(env.browser);
  await page.goto(`${env.server.url}/docs/`);
  // The document is fetched and drawn: its title and an operation.
  await page.locator(".swagger-ui .info .title", { hasText: "Sternhalma" }).waitFor();
  await page.locator(".swagger-ui .opblock-summary-path", { hasText: "/v1/legal-moves" }).first().waitFor();
  // A console line "Refused to ..." is a policy violation: assertClean fails on it.
  assertClean(page, "/docs/");
  await page.context().close();
});
