// Playing on a page's board by clicking, as a student would: a movable
// peg, then one of its lit destinations. The choice reads only what the
// page shows (the lit targets' places on the screen), never the rules.

import assert from "node:assert/strict";

/**
 * The selected peg's lit destinations, with their height on the screen
 * (the SVG's `cy`; smaller is further up).
 * @param {import("playwright-core").Page} page
 */
export function targets(page) {
  return page.locator("#board circle.target").evaluateAll((circles) =>
    circles.map((c) => ({ hole: Number(c.getAttribute("data-hole")), cy: Number(c.getAttribute("cy")), move: c.getAttribute("data-move") })),
  );
}

/**
 * Chooses the move that gains the most height on the screen (the board is
 * turned so the player's home is at the bottom: up is progress): every
 * movable peg is clicked and its lit destinations read. Ties go to the
 * destination highest up, then the smaller hole ids, so the choice is the
 * same on every machine. Leaves the chosen peg selected.
 * @param {import("playwright-core").Page} page
 * @returns {Promise<{peg: number, hole: number, gain: number, cy: number, move: string | null}>}
 */
export async function chooseMove(page) {
  const pegs = await page
    .locator("#board .peg.movable")
    .evaluateAll((circles) => circles.map((c) => ({ hole: Number(c.getAttribute("data-hole")), cy: Number(c.getAttribute("cy")) })));
  assert.ok(pegs.length > 0, "no movable peg on the player's turn");
  pegs.sort((a, b) => a.hole - b.hole);
  /** @type {{peg: number, hole: number, gain: number, cy: number, move: string | null} | null} */
  let best = null;
  let selected = null;
  const EPS = 1e-6;
  for (const peg of pegs) {
    // Clicking the selected peg again would put it down.
    const circle = page.locator(`#board .peg.movable[data-hole="${peg.hole}"]`);
    if (!(await circle.evaluate((c) => c.classList.contains("chosen")))) await circle.click();
    await page.locator("#board circle.target").first().waitFor();
    selected = peg.hole;
    for (const target of await targets(page)) {
      const candidate = { peg: peg.hole, hole: target.hole, gain: peg.cy - target.cy, cy: target.cy, move: target.move };
      const better =
        best === null ||
        candidate.gain > best.gain + EPS ||
        (Math.abs(candidate.gain - best.gain) <= EPS &&
          (candidate.cy < best.cy - EPS || (Math.abs(candidate.cy - best.cy) <= EPS && candidate.hole < best.hole)));
      if (better) best = candidate;
    }
  }
  assert.ok(best, "a movable peg with no destination");
  if (selected !== best.peg) {
    await page.locator(`#board .peg.movable[data-hole="${best.peg}"]`).click();
    await page.locator("#board circle.target").first().waitFor();
  }
  return best;
}

/**
 * Plays a move with the keyboard only: Tab until a movable peg has the
 * focus (or use the one that has it), Enter (its destinations light up and the first takes the focus),
 * Enter again.
 * @param {import("playwright-core").Page} page
 * @returns {Promise<{peg: number, hole: number}>}
 */
export async function keyboardMove(page) {
  // Escape puts down a peg picked up before (the focus goes back to it).
  await page.keyboard.press("Escape");
  const focused = () =>
    page.evaluate(() => {
      const active = document.activeElement;
      return active && active.matches("#board .peg.movable:not(.chosen)") ? Number(active.getAttribute("data-hole")) : null;
    });
  let peg = await focused();
  for (let presses = 0; presses < 100 && peg === null; presses++) {
    await page.keyboard.press("Tab");
    peg = await focused();
  }
  assert.ok(peg !== null, "Tab reaches a movable peg");
  await page.keyboard.press("Enter");
  await page.locator("#board circle.target:focus").waitFor();
  const hole = Number(await page.locator("#board circle.target:focus").getAttribute("data-hole"));
  await page.keyboard.press("Enter");
  return { peg, hole };
}
