// The tournament page's standings table against the API's standings.

import assert from "node:assert/strict";

import { LONG } from "./harness.mjs";

/**
 * A number as the page shows it equals the API's, to the digits shown.
 * @param {string} shown
 * @param {number} value
 * @param {string} what
 */
export function assertShown(shown, value, what) {
  const match = shown.replace(/\u2212/g, "-").match(/-?\d+(?:\.(\d+))?/);
  assert.ok(match, `${what}: no number in ${JSON.stringify(shown)}`);
  const digits = match[1] ? match[1].length : 0;
  const tolerance = 0.5 * 10 ** -digits + 1e-9;
  assert.ok(Math.abs(Number(match[0]) - value) <= tolerance, `${what}: the page shows ${shown}, the API ${value}`);
}

/**
 * Waits until the page's standings list the API's entrants in the API's
 * order with the status finished, then checks every row's name, points
 * and rating.
 * @param {import("playwright-core").Page} page
 * @param {{rows: {entrant: number, name: string, points: number, rating: number}[]}} standings
 */
export async function assertStandings(page, standings) {
  const order = standings.rows.map((row) => String(row.entrant));
  await page.waitForFunction(
    (expected) => {
      const rows = [...document.querySelectorAll("#standings tbody tr[data-entrant]")];
      return (
        rows.map((row) => row.getAttribute("data-entrant")).join(",") === expected.join(",") &&
        Boolean(document.querySelector("#status")?.textContent?.includes("finished"))
      );
    },
    order,
    { timeout: LONG, polling: 200 },
  );
  const shown = await page.locator("#standings tbody tr[data-entrant]").evaluateAll((rows) =>
    rows.map((row) => ({
      entrant: row.getAttribute("data-entrant"),
      points: row.querySelector(".points")?.textContent || "",
      rating: row.querySelector(".rating")?.textContent || "",
      text: row.textContent || "",
    })),
  );
  assert.equal(shown.length, standings.rows.length, "one row per entrant");
  for (const [index, row] of standings.rows.entries()) {
    const line = shown[index];
    assert.equal(line.entrant, String(row.entrant), `row ${index + 1} is entrant ${row.entrant}`);
    assert.ok(line.text.includes(row.name), `row ${index + 1} names ${row.name}`);
    assertShown(line.points, row.points, `${row.name}'s points`);
    assertShown(line.rating, row.rating, `${row.name}'s rating`);
  }
}
