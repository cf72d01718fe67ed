// Small DOM helpers the pages share. Text is always set as text (never as
// HTML), so names chosen by students cannot become markup.

import { pagePath } from "./api.js";

/**
 * An element with attributes and children (strings become text nodes).
 * `class` sets the class list; `dataset` an object of data-* values;
 * an attribute whose value is false, null or undefined is left out.
 * @param {string} tag
 * @param {Record<string, any>} [attributes]
 * @param {...(Node | string | number | null | undefined | false)} children
 * @returns {HTMLElement}
 */
export function el(tag, attributes = {}, ...children) {
  const element = document.createElement(tag);
  for (const [name, value] of Object.entries(attributes)) {
    if (value === false || value === null || value === undefined) continue;
    if (name === "dataset") Object.assign(element.dataset, value);
    else if (name.startsWith("on") && typeof value === "function") element.addEventListener(name.slice(2), value);
    else element.setAttribute(name, value === true ? "" : String(value));
  }
  for (const child of children) {
    if (child === null || child === undefined || child === false) continue;
    element.append(typeof child === "object" ? child : String(child));
  }
  return element;
}

/**
 * The element with this id (the pages' HTML has it).
 * @param {string} id
 * @returns {HTMLElement}
 */
export function byId(id) {
  const element = document.getElementById(id);
  if (!element) throw new Error(`the page has no #${id}`);
  return element;
}

/**
 * Swatches in the colours of a player's sets (the pegs' colours on the
 * board, from /assets/palette.css).
 * @param {{players: {triangle: string}[][]}} position The position's JSON form.
 * @param {number} player
 */
export function swatches(position, player) {
  const sets = position.players[player] || [];
  return el(
    "span",
    { class: "swatches", "aria-hidden": "true" },
    ...sets.map((set) => el("span", { class: `swatch set-${set.triangle.replace(/_/g, "-")}`, title: set.triangle })),
  );
}

/** The triangles of a player's sets, as words ("south and north_east"). */
export function triangles(position, player) {
  return (position.players[player] || []).map((set) => set.triangle.replace(/_/g, " ")).join(" and ");
}

/**
 * The parameters in the page's URL fragment (`#seat=1&token=...`).
 * @returns {URLSearchParams}
 */
export function fragment() {
  return new URLSearchParams(location.hash.slice(1));
}

/**
 * Replaces the URL fragment without a new history entry (and without
 * sending anything anywhere: fragments stay in the browser).
 * @param {Record<string, string | number | null | undefined>} params
 */
export function setFragment(params) {
  const search = new URLSearchParams();
  for (const [key, value] of Object.entries(params)) {
    if (value !== null && value !== undefined && value !== "") search.set(key, String(value));
  }
  const text = search.toString();
  history.replaceState(null, "", text ? `#${text}` : location.pathname + location.search);
}

/**
 * A secret for this page (a seat, entrant or admin token): taken from the
 * URL fragment if there, then kept in the tab's session storage and
 * removed from the address bar (so it is not on the projector or in a
 * screenshot), else read back from session storage.
 * @param {string} key Session storage key, e.g. `match:12`.
 * @param {string[]} names Fragment parameters to take, e.g. ["seat", "token"].
 * @returns {Record<string, string> | null}
 */
export function secret(key, names) {
  const params = fragment();
  if (names.every((name) => params.has(name))) {
    const value = Object.fromEntries(names.map((name) => [name, params.get(name) || ""]));
    sessionStorage.setItem(`sternhalma:${key}`, JSON.stringify(value));
    for (const name of names) params.delete(name);
    const rest = params.toString();
    history.replaceState(null, "", rest ? `#${rest}` : location.pathname + location.search);
    return value;
  }
  const stored = sessionStorage.getItem(`sternhalma:${key}`);
  return stored ? JSON.parse(stored) : null;
}

/** Forgets a secret kept by `secret`. @param {string} key */
export function forget(key) {
  sessionStorage.removeItem(`sternhalma:${key}`);
}

/**
 * Shows a message in the page's live region (`#message`): read out by
 * screen readers; `error` ones in the alert style.
 * @param {string} text
 * @param {"info" | "error"} [kind]
 */
export function say(text, kind = "info") {
  const box = document.getElementById("message");
  if (!box) return;
  box.textContent = text;
  box.dataset.kind = kind;
  box.hidden = !text;
}

/**
 * A date and time from the server's RFC 3339 text, in the reader's locale.
 * @param {string} text
 */
export function when(text) {
  const date = new Date(text);
  return Number.isNaN(date.getTime()) ? text : date.toLocaleString();
}

/** The first path segment after the base path that is a number (the id in `/matches/12`). */
export function idFromPath() {
  const parts = pagePath().split("/").filter(Boolean);
  const id = parts.find((part) => /^\d+$/.test(part));
  return id ? Number(id) : null;
}

/**
 * Runs `task` for the page, showing what went wrong if it throws (an
 * aborted request is not an error).
 * @param {() => Promise<void>} task
 */
export async function guard(task) {
  try {
    await task();
  } catch (error) {
    if (error instanceof DOMException && error.name === "AbortError") return;
    say(error instanceof Error ? error.message : String(error), "error");
  }
}

/**
 * A button for an action that cannot be undone (resign, abandon): the
 * first click asks for a second within five seconds, which runs `action`.
 * @param {HTMLElement} button
 * @param {string} confirm The label while it waits for the second click.
 * @param {() => Promise<void>} action
 */
export function confirmTwice(button, confirm, action) {
  const label = button.textContent || "";
  /** @type {ReturnType<typeof setTimeout> | undefined} */
  let timer;
  const disarm = () => {
    clearTimeout(timer);
    timer = undefined;
    button.textContent = label;
  };
  button.addEventListener("click", () =>
    guard(async () => {
      if (timer === undefined) {
        button.textContent = confirm;
        timer = setTimeout(disarm, 5000);
        return;
      }
      disarm();
      await action();
    }),
  );
}
