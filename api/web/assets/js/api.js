// The one client every page uses for the API: same origin, JSON in and
// out, problem details turned into ApiError, and the server's "come back
// later" answers (429, 503 with Retry-After) waited out and retried.

/**
 * The path prefix the server is reached under behind a proxy (`sternhalma
 * serve --base-path /services/game`), from the page's
 * `<meta name="sternhalma-base">`; "" when it answers at the root.
 */
export const BASE = (() => {
  const meta = /** @type {HTMLMetaElement | null} */ (document.querySelector('meta[name="sternhalma-base"]'));
  const content = meta?.content || "";
  return content.startsWith("/") ? content.replace(/\/+$/, "") : "";
})();

/**
 * The address of a path of the server (`/matches/12`, `/v1/catalogue`)
 * under its base path: every link, request and stream a page makes goes
 * through this. Anything not starting with one `/` (a fragment, a full
 * URL) is returned as it is.
 * @param {string} path
 */
export function withBase(path) {
  return path.startsWith("/") && !path.startsWith("//") ? BASE + path : path;
}

/**
 * The page's path without the base path (`/services/game/matches/12` →
 * `/matches/12`).
 */
export function pagePath() {
  const path = location.pathname;
  return BASE && (path === BASE || path.startsWith(`${BASE}/`)) ? path.slice(BASE.length) || "/" : path;
}

/** An answer of the API that is not a success: its problem details. */
export class ApiError extends Error {
  /**
   * @param {number} status
   * @param {{title?: string, detail?: string, code?: string}} problem
   */
  constructor(status, problem) {
    super(problem.detail || problem.title || `HTTP ${status}`);
    this.name = "ApiError";
    this.status = status;
    this.code = problem.code || "";
    this.title = problem.title || "";
    /** The whole problem: its extra members too (`move_index` of a replay). @type {Record<string, any>} */
    this.problem = problem;
  }
}

/** How many times a 429 or 503 answer is retried before giving up. */
const RETRIES = 5;

/**
 * Resolves after `ms` milliseconds, or rejects when `signal` aborts.
 * @param {number} ms
 * @param {AbortSignal} [signal]
 * @returns {Promise<void>}
 */
export function sleep(ms, signal) {
  return new Promise((resolve, reject) => {
    if (signal?.aborted) {
      reject(signal.reason);
      return;
    }
    const timer = setTimeout(resolve, ms);
    signal?.addEventListener(
      "abort",
      () => {
        clearTimeout(timer);
        reject(signal.reason);
      },
      { once: true },
    );
  });
}

/**
 * @typedef {object} RequestOptions
 * @property {unknown} [body] Sent as JSON.
 * @property {string} [token] Sent as `Authorization: Bearer <token>`.
 * @property {AbortSignal} [signal]
 * @property {"json" | "text"} [as] How to read a success (default JSON).
 * @property {Record<string, string>} [headers]
 */

/**
 * One request; a 2xx answer read as JSON (or text), anything else thrown
 * as an ApiError with the server's own explanation.
 * @param {string} method
 * @param {string} path A path of the server (`/v1/...`): the base path is
 *   put in front here.
 * @param {RequestOptions} [options]
 * @returns {Promise<any>}
 */
export async function request(method, path, options = {}) {
  /** @type {Record<string, string>} */
  const headers = { Accept: "application/json, image/svg+xml", ...options.headers };
  if (options.body !== undefined) headers["Content-Type"] = "application/json";
  if (options.token) headers.Authorization = `Bearer ${options.token}`;
  for (let attempt = 0; ; attempt++) {
    const response = await fetch(withBase(path), {
      method,
      headers,
      body: options.body === undefined ? undefined : JSON.stringify(options.body),
      signal: options.signal,
    });
    // 304: the client named the version it holds (If-None-Match) and
    // nothing changed.
    if (response.status === 304) return null;
    if (response.ok) {
      if (response.status === 204) return null;
      return options.as === "text" ? response.text() : response.json();
    }
    const retryAfter = Number(response.headers.get("Retry-After") || "1");
    if ((response.status === 429 || response.status === 503) && attempt < RETRIES) {
      await sleep(Math.min(Math.max(retryAfter, 1), 30) * 1000, options.signal);
      continue;
    }
    let problem = {};
    try {
      problem = await response.json();
    } catch {
      problem = { detail: `${response.status} ${response.statusText}` };
    }
    throw new ApiError(response.status, problem);
  }
}

/**
 * @param {string} path
 * @param {RequestOptions} [options]
 */
export function get(path, options) {
  return request("GET", path, options);
}

/**
 * @param {string} path
 * @param {unknown} body
 * @param {RequestOptions} [options]
 */
export function post(path, body, options = {}) {
  return request("POST", path, { ...options, body });
}

/**
 * A query string from the defined entries of `params`.
 * @param {Record<string, string | number | boolean | undefined | null>} params
 */
export function query(params) {
  const search = new URLSearchParams();
  for (const [key, value] of Object.entries(params)) {
    if (value !== undefined && value !== null && value !== "") search.set(key, String(value));
  }
  const text = search.toString();
  return text ? `?${text}` : "";
}
