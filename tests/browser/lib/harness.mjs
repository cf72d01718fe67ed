// What every browser test file shares: a real server (the release binary,
// its pages compiled in, a fresh database, the default per-client limits of
// a classroom server), Debian's headless Chromium driven by playwright-core,
// a direct client for the API, and the checks every page gets (no console
// errors, an axe-core scan with no serious or critical violation,
// screenshots at laptop, phone and, for the pages a class projects,
// projector sizes).
//
// Nothing here builds: run.sh (and scripts/test before it) builds
// target/release/sternhalma. Nothing asserted depends on the machine's
// speed: tests wait for conditions with generous timeouts.

import assert from "node:assert/strict";
import { spawn } from "node:child_process";
import { existsSync, mkdirSync, mkdtempSync, rmSync } from "node:fs";
import http from "node:http";
import { tmpdir } from "node:os";
import path from "node:path";
import { fileURLToPath } from "node:url";
import { after, before } from "node:test";

import AxeBuilder from "@axe-core/playwright";
import { chromium } from "playwright-core";

const here = path.dirname(fileURLToPath(import.meta.url));
/** The root of the checkout. */
export const ROOT = path.resolve(here, "../../..");
/** Where the screenshots go (gitignored; the README names it). */
export const SCREENSHOTS = path.resolve(here, "../screenshots");
const BINARY = path.join(ROOT, "target/release/sternhalma");
const CHROMIUM = process.env.CHROMIUM || "/usr/bin/chromium";
const CHROMIUM_FLAGS = [
  "--headless",
  "--no-sandbox",
  "--disable-gpu",
  "--no-first-run",
  "--disable-background-networking",
  "--disable-component-update",
  "--disable-sync",
];

/** Generous waits: a slow, busy CI machine passes, a hang still fails. */
export const LONG = 60_000;
export const SHORT = 15_000;

/** The sizes every page is looked at. */
export const SIZES = {
  laptop: { width: 1366, height: 768 },
  phone: { width: 390, height: 844 },
  projector: { width: 1920, height: 1080 },
};

/**
 * @typedef {object} Server
 * @property {string} url e.g. `http://127.0.0.1:40123`
 * @property {() => string} log What the server wrote on stderr.
 * @property {() => Promise<void>} stop
 */

/** Servers and browsers still running, killed when the process exits however it exits. */
const running = new Set();
process.on("exit", () => {
  for (const child of running) {
    try {
      child.kill("SIGKILL");
    } catch {
      // already gone
    }
  }
});

/**
 * Starts `sternhalma serve` on a free port with a fresh database.
 * @param {{limits?: boolean, args?: string[]}} [options] `limits: false`
 *   turns the per-client limits off (default: on, as on a classroom server).
 * @returns {Promise<Server>}
 */
export async function startServer(options = {}) {
  if (!existsSync(BINARY)) {
    throw new Error(`${BINARY} is missing: build it first (cargo build --release -p sternhalma-api)`);
  }
  const dir = mkdtempSync(path.join(tmpdir(), "sternhalma-browser-"));
  const args = ["serve", "--port", "0", "--database", path.join(dir, "db.sqlite3"), "--log-level", "warn"];
  if (options.limits === false) args.push("--no-limits");
  args.push(...(options.args || []));
  // The server's settings are these arguments only: no STERNHALMA_*
  // variable of the caller's shell (an admin key, --no-limits, a web
  // folder) changes what is tested. BROWSER_TEST_WEB_DIR serves the pages
  // from a folder while editing them (the test command never sets it).
  const environment = Object.fromEntries(Object.entries(process.env).filter(([name]) => !name.startsWith("STERNHALMA_")));
  if (process.env.BROWSER_TEST_WEB_DIR) args.push("--web-dir", process.env.BROWSER_TEST_WEB_DIR);
  const child = spawn(BINARY, args, { stdio: ["ignore", "pipe", "pipe"], env: environment });
  running.add(child);
  let stderr = "";
  child.stderr.setEncoding("utf8");
  child.stderr.on("data", (chunk) => {
    stderr += chunk;
  });
  const url = await new Promise((resolve, reject) => {
    let stdout = "";
    const timer = setTimeout(() => reject(new Error(`the server did not start in time:\n${stderr}`)), LONG);
    child.stdout.setEncoding("utf8");
    child.stdout.on("data", (chunk) => {
      stdout += chunk;
      const found = stdout.match(/sternhalma listening on (http:\/\/[0-9.:]+)/);
      if (found) {
        clearTimeout(timer);
        resolve(found[1]);
      }
    });
    child.on("exit", (code) => {
      clearTimeout(timer);
      reject(new Error(`the server exited (${code}) before listening:\n${stderr}`));
    });
  });
  return {
    url,
    log: () => stderr,
    stop: async () => {
      if (child.exitCode === null && child.signalCode === null) {
        const exited = new Promise((resolve) => child.once("exit", resolve));
        child.kill("SIGTERM");
        const timer = setTimeout(() => child.kill("SIGKILL"), 10_000);
        await exited;
        clearTimeout(timer);
      }
      running.delete(child);
      rmSync(dir, { recursive: true, force: true });
    },
  };
}

/**
 * One request to the API from the test itself. It comes from 127.0.0.2,
 * another client than the browser (127.0.0.1), as a teacher's script would
 * be: the test's own calls never use up the pages' per-client budgets.
 * @param {Server} server
 * @param {string} method
 * @param {string} route e.g. `/v1/matches/1`
 * @param {unknown} [body] Sent as JSON.
 * @param {{token?: string}} [options]
 * @returns {Promise<{status: number, headers: http.IncomingHttpHeaders, body: any, text: string}>}
 */
export function request(server, method, route, body, options = {}) {
  const target = new URL(route, server.url);
  /** @type {Record<string, string>} */
  const headers = { Accept: "application/json" };
  const payload = body === undefined ? undefined : JSON.stringify(body);
  if (payload !== undefined) headers["Content-Type"] = "application/json";
  if (options.token) headers.Authorization = `Bearer ${options.token}`;
  return new Promise((resolve, reject) => {
    const req = http.request(
      {
        host: target.hostname,
        port: target.port,
        path: target.pathname + target.search,
        method,
        headers,
        localAddress: "127.0.0.2",
        // A fresh connection each call: a kept-alive one that the server
        // closes (its keep-alive timeout) just as it is reused answers
        // ECONNRESET, "socket hang up" (seen once in CI).
        agent: false,
      },
      (res) => {
        let text = "";
        res.setEncoding("utf8");
        res.on("data", (chunk) => {
          text += chunk;
        });
        res.on("end", () => {
          let parsed = text;
          if ((res.headers["content-type"] || "").includes("json")) {
            try {
              parsed = JSON.parse(text);
            } catch {
              // leave as text
            }
          }
          resolve({ status: res.statusCode || 0, headers: res.headers, body: parsed, text });
        });
      },
    );
    req.setTimeout(LONG, () => req.destroy(new Error(`${method} ${route}: no answer in ${LONG} ms`)));
    req.on("error", reject);
    if (payload !== undefined) req.write(payload);
    req.end();
  });
}

/**
 * A request that must succeed (2xx); its body.
 * @param {Server} server
 * @param {string} method
 * @param {string} route
 * @param {unknown} [body]
 * @param {{token?: string}} [options]
 */
export async function api(server, method, route, body, options) {
  const answer = await request(server, method, route, body, options);
  if (answer.status < 200 || answer.status >= 300) {
    throw new Error(`${method} ${route} answered ${answer.status}: ${answer.text}`);
  }
  return answer.body;
}

/** Launches Debian's Chromium, headless. */
export async function launchBrowser() {
  if (!existsSync(CHROMIUM)) throw new Error(`${CHROMIUM} is missing (apt-get install chromium; run.sh does it)`);
  return chromium.launch({ executablePath: CHROMIUM, headless: true, args: CHROMIUM_FLAGS, timeout: LONG });
}

/**
 * The server and the browser of one test file, started before its tests
 * and stopped after them (even when a test fails).
 * @param {{limits?: boolean, args?: string[]}} [options] For startServer.
 * @returns {{server: Server, browser: import("playwright-core").Browser}}
 *   Filled in once the `before` hook has run.
 */
export function setup(options = {}) {
  const env = /** @type {any} */ ({});
  before(async () => {
    mkdirSync(SCREENSHOTS, { recursive: true });
    env.server = await startServer(options);
    env.browser = await launchBrowser();
  });
  after(async () => {
    await env.browser?.close().catch(() => {});
    if (env.server) {
      const log = env.server.log().trim();
      if (log) console.log(`server log (warnings and errors):\n${log}`);
      await env.server.stop();
    }
  });
  return env;
}

/**
 * @typedef {import("playwright-core").Page & {problems: string[], allow: RegExp[]}} TrackedPage
 */

/**
 * A new page (in its own browser context unless `context` is given) whose
 * console errors, uncaught exceptions and failed requests are collected in
 * `page.problems`; `check(page)` fails the test if there were any.
 * Expected ones (a deliberately illegal move's 4xx answer) can be allowed
 * with `page.allow.push(/regex/)`.
 * @param {import("playwright-core").Browser} browser
 * @param {{context?: import("playwright-core").BrowserContext, size?: keyof SIZES}} [options]
 * @returns {Promise<TrackedPage>}
 */
export async function newPage(browser, options = {}) {
  const context = options.context || (await browser.newContext({ viewport: SIZES[options.size || "laptop"] }));
  const page = /** @type {TrackedPage} */ (await context.newPage());
  page.setDefaultTimeout(LONG);
  page.problems = [];
  page.allow = [];
  page.on("console", (message) => {
    if (message.type() !== "error") return;
    const where = message.location();
    const at = where && where.url ? ` (${where.url}:${where.lineNumber})` : "";
    page.problems.push(`console error: ${message.text()}${at}`);
  });
  page.on("pageerror", (error) => {
    page.problems.push(`uncaught exception: ${error.stack || error.message}`);
  });
  page.on("response", (response) => {
    // Keep the failed URLs: Chromium's console line "Failed to load
    // resource" does not say which.
    if (response.status() >= 400) page.problems.push(`HTTP ${response.status()} ${response.request().method()} ${response.url()}`);
  });
  return page;
}

/**
 * Fails if the page logged a console error, threw, or got a 4xx/5xx
 * answer, other than those `page.allow` matches.
 * @param {TrackedPage} page
 * @param {string} name
 */
export function assertClean(page, name) {
  const unexpected = page.problems.filter((problem) => !page.allow.some((pattern) => pattern.test(problem)));
  assert.deepEqual(unexpected, [], `${name}: the page had console errors or failed requests:\n  ${unexpected.join("\n  ")}`);
}

/**
 * Scans the page with axe-core (WCAG 2 A/AA and best practices); fails on
 * serious or critical violations, printing each with its elements.
 * @param {import("playwright-core").Page} page
 * @param {string} name
 */
export async function assertAccessible(page, name) {
  const results = await new AxeBuilder({ page }).analyze();
  const bad = results.violations.filter((v) => v.impact === "serious" || v.impact === "critical");
  const minor = results.violations.filter((v) => !bad.includes(v));
  for (const violation of minor) {
    console.log(`axe (${name}, ${violation.impact}, not failing): ${violation.id}: ${violation.help} (${violation.nodes.length} elements)`);
  }
  const report = bad
    .map((v) => {
      const nodes = v.nodes
        .slice(0, 5)
        .map((node) => `      ${node.target.join(" ")}\n        ${node.failureSummary?.replace(/\n/g, "\n        ")}`)
        .join("\n");
      const more = v.nodes.length > 5 ? `\n      ... and ${v.nodes.length - 5} more` : "";
      return `  [${v.impact}] ${v.id}: ${v.help}\n    ${v.helpUrl}\n${nodes}${more}`;
    })
    .join("\n");
  assert.equal(bad.length, 0, `${name}: axe-core found serious or critical violations:\n${report}`);
}

/**
 * Screenshots of the page at laptop and phone sizes (and projector when
 * asked), into tests/browser/screenshots/<name>-<size>.png; the laptop and
 * projector ones show what fits on the screen, the phone one the whole page.
 * The viewport is set back afterwards.
 * @param {import("playwright-core").Page} page
 * @param {string} name
 * @param {{projector?: boolean}} [options]
 */
export async function screenshots(page, name, options = {}) {
  const original = page.viewportSize();
  const sizes = ["laptop", "phone", ...(options.projector ? ["projector"] : [])];
  for (const size of sizes) {
    await page.setViewportSize(SIZES[size]);
    // Let the layout settle (two frames) before the picture.
    await page.evaluate(() => new Promise((resolve) => requestAnimationFrame(() => requestAnimationFrame(resolve))));
    await page.screenshot({ path: path.join(SCREENSHOTS, `${name}-${size}.png`), fullPage: size === "phone" });
    // A page wider than the screen scrolls sideways (on a phone, mostly):
    // reported with the elements that stick out, not failed.
    const wide = await page.evaluate(() => {
      const width = document.documentElement.clientWidth;
      if (document.documentElement.scrollWidth <= width) return null;
      const out = [];
      for (const element of document.querySelectorAll("body *")) {
        const box = element.getBoundingClientRect();
        if (box.right <= width + 1 || box.width === 0) continue;
        // Only the outermost: skip those inside one already named, or
        // inside a box that scrolls sideways by itself.
        if (out.some((e) => e.contains(element))) continue;
        let clipped = false;
        for (let up = element.parentElement; up; up = up.parentElement) {
          if (["auto", "scroll", "hidden"].includes(getComputedStyle(up).overflowX)) clipped = true;
        }
        if (!clipped) out.push(element);
      }
      const describe = (e) => `${e.tagName.toLowerCase()}${e.id ? `#${e.id}` : ""}${e.classList.length ? `.${[...e.classList].join(".")}` : ""}`;
      return { width, scroll: document.documentElement.scrollWidth, elements: out.slice(0, 5).map(describe) };
    });
    if (wide) {
      console.log(`layout (${name}, ${size}): the page is ${wide.scroll}px wide on a ${wide.width}px screen; sticking out: ${wide.elements.join(", ")}`);
    }
  }
  if (original) await page.setViewportSize(original);
}

/**
 * Everything every page gets: screenshots, an axe scan, and no console
 * errors so far.
 * @param {TrackedPage} page
 * @param {string} name
 * @param {{projector?: boolean}} [options]
 */
export async function checkPage(page, name, options = {}) {
  await screenshots(page, name, options);
  await assertAccessible(page, name);
  assertClean(page, name);
}

/**
 * Waits until `predicate` (run in the test, not the page) holds, polling.
 * @template T
 * @param {() => Promise<T>} probe
 * @param {(value: T) => boolean} predicate
 * @param {string} what For the timeout's message.
 * @param {number} [timeout]
 * @returns {Promise<T>}
 */
export async function until(probe, predicate, what, timeout = LONG) {
  const end = Date.now() + timeout;
  let value = await probe();
  while (!predicate(value)) {
    if (Date.now() > end) throw new Error(`timed out waiting for ${what}; last value: ${JSON.stringify(value)}`);
    await new Promise((resolve) => setTimeout(resolve, 100));
    value = await probe();
  }
  return value;
}
