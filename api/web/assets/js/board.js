// The board on every page: the core's SVG picture (with a `data-hole`
// attribute on every hole and peg), fetched from the API and put in the
// page as it is; state in, DOM out, events up. The rules stay on the
// server: which pegs may move and where comes from the legal moves the
// API gives, and the board only marks them.

import { get } from "./api.js";

const SVG = "http://www.w3.org/2000/svg";

/**
 * A legal move as the API gives it.
 * @typedef {{text: string, kind?: string, path: number[]}} MoveView
 */

/**
 * @typedef {object} BoardOptions
 * @property {string} [label] What the board shows, for screen readers.
 * @property {(move: MoveView) => void} [onMove] A legal move was chosen.
 * @property {(from: number, to: number | null) => void} [onAttempt] A hole
 *   that no legal move reaches was clicked (`to`), or a peg that cannot
 *   move (`to` null): the page asks the API why.
 */

/** Pictures of plies that never change, by URL (a replay steps through them). */
const cache = new Map();
const CACHE_SIZE = 400;

export class Board {
  /**
   * @param {HTMLElement} container
   * @param {BoardOptions} [options]
   */
  constructor(container, options = {}) {
    this.container = container;
    this.options = options;
    container.classList.add("board");
    /** @type {SVGSVGElement | null} */
    this.svg = null;
    /** @type {MoveView[] | null} */
    this.moves = null;
    /** @type {number | null} */
    this.selected = null;
    this.url = "";
    container.addEventListener("click", (event) => this.#click(event));
    container.addEventListener("keydown", (event) => this.#key(event));
  }

  /**
   * Shows the picture at `url`. Pictures of past plies are kept: they
   * never change (`immutable`).
   * @param {string} url
   * @param {{signal?: AbortSignal, keep?: boolean}} [options] `keep`: cache it.
   */
  async load(url, options = {}) {
    let text = cache.get(url);
    if (text === undefined) {
      text = await get(url, { as: "text", signal: options.signal });
      if (options.keep) {
        cache.set(url, text);
        if (cache.size > CACHE_SIZE) cache.delete(cache.keys().next().value);
      }
    }
    this.url = url;
    this.setSvg(text);
  }

  /**
   * Shows an SVG document given as text.
   * @param {string} text
   */
  setSvg(text) {
    const parsed = new DOMParser().parseFromString(text, "image/svg+xml");
    const root = parsed.documentElement;
    if (root.nodeName !== "svg") throw new Error("the server sent no SVG picture");
    const svg = /** @type {SVGSVGElement} */ (/** @type {unknown} */ (document.importNode(root, true)));
    svg.removeAttribute("width");
    svg.removeAttribute("height");
    const title = svg.querySelector("title")?.textContent || "";
    svg.setAttribute("role", "group");
    svg.setAttribute("aria-label", this.options.label ? `${this.options.label}: ${title}` : title);
    svg.setAttribute("focusable", "false");
    this.container.replaceChildren(svg);
    this.svg = svg;
    this.container.dataset.position = title;
    this.container.dataset.state = "ready";
    this.#decorate();
  }

  /**
   * Makes the board playable with these legal moves, or not (`null`).
   * @param {MoveView[] | null} moves
   */
  setMoves(moves) {
    this.moves = moves && moves.length ? moves : null;
    this.selected = null;
    this.#decorate();
  }

  /** The legal moves from `hole`. @param {number} hole */
  movesFrom(hole) {
    return (this.moves || []).filter((m) => m.path.length > 1 && m.path[0] === hole);
  }

  /** Centre of a hole in the picture's coordinates. @param {number} hole */
  centre(hole) {
    const circle = this.svg?.querySelector(`.hole[data-hole="${hole}"]`);
    if (!circle) return null;
    return { x: Number(circle.getAttribute("cx")), y: Number(circle.getAttribute("cy")) };
  }

  /** Selects the peg on `hole` (its destinations light up), or nothing. @param {number | null} hole */
  select(hole) {
    this.selected = hole !== null && this.movesFrom(hole).length ? hole : null;
    this.#decorate();
    if (this.selected !== null) {
      /** @type {SVGElement | null | undefined} */
      const first = this.svg?.querySelector(".target");
      first?.focus();
    }
  }

  /** Draws `path` over the board (a hop path on hover), or clears it. @param {number[] | null} path */
  showPath(path) {
    this.svg?.querySelector(".hover-path")?.remove();
    if (!this.svg || !path || path.length < 2) return;
    const group = document.createElementNS(SVG, "g");
    group.setAttribute("class", "hover-path");
    group.setAttribute("aria-hidden", "true");
    const points = path.map((hole) => this.centre(hole)).filter((p) => p !== null);
    const line = document.createElementNS(SVG, "polyline");
    line.setAttribute("points", points.map((p) => `${p.x},${p.y}`).join(" "));
    group.append(line);
    for (const p of points.slice(1)) {
      const dot = document.createElementNS(SVG, "circle");
      dot.setAttribute("cx", String(p.x));
      dot.setAttribute("cy", String(p.y));
      dot.setAttribute("r", "2.5");
      group.append(dot);
    }
    this.svg.append(group);
  }

  /** Marks the movable pegs and, for the selected one, its destinations. */
  #decorate() {
    const svg = this.svg;
    if (!svg) return;
    svg.querySelector(".targets")?.remove();
    svg.querySelector(".hover-path")?.remove();
    for (const peg of svg.querySelectorAll(".peg.movable")) {
      peg.classList.remove("movable", "chosen");
      peg.removeAttribute("tabindex");
      peg.removeAttribute("role");
      peg.removeAttribute("aria-label");
      peg.removeAttribute("aria-pressed");
    }
    this.container.classList.toggle("playable", this.moves !== null);
    if (!this.moves) return;
    const from = new Set(this.moves.filter((m) => m.path.length > 1).map((m) => m.path[0]));
    for (const hole of from) {
      const peg = svg.querySelector(`.peg[data-hole="${hole}"]`);
      if (!peg) continue;
      const count = this.movesFrom(hole).length;
      peg.classList.add("movable");
      peg.setAttribute("tabindex", "0");
      peg.setAttribute("role", "button");
      peg.setAttribute("aria-label", `peg on hole ${hole}: ${count} move${count === 1 ? "" : "s"}`);
      peg.setAttribute("aria-pressed", String(hole === this.selected));
      if (hole === this.selected) peg.classList.add("chosen");
    }
    if (this.selected === null) return;
    const targets = document.createElementNS(SVG, "g");
    targets.setAttribute("class", "targets");
    for (const move of this.movesFrom(this.selected)) {
      const to = move.path[move.path.length - 1];
      const at = this.centre(to);
      if (!at) continue;
      const target = document.createElementNS(SVG, "circle");
      target.setAttribute("class", "target");
      target.setAttribute("data-hole", String(to));
      target.setAttribute("data-move", move.text);
      target.setAttribute("cx", String(at.x));
      target.setAttribute("cy", String(at.y));
      target.setAttribute("r", "6");
      target.setAttribute("tabindex", "0");
      target.setAttribute("role", "button");
      target.setAttribute("aria-label", `move to hole ${to} (path ${move.path.join("-")})`);
      const show = () => this.showPath(move.path);
      const hide = () => this.showPath(null);
      target.addEventListener("mouseenter", show);
      target.addEventListener("focus", show);
      target.addEventListener("mouseleave", hide);
      target.addEventListener("blur", hide);
      targets.append(target);
    }
    svg.append(targets);
  }

  /** @param {Event} event */
  #click(event) {
    if (!this.moves) return;
    const element = /** @type {Element} */ (event.target).closest("[data-hole]");
    if (!element) {
      this.select(null);
      return;
    }
    this.#activate(Number(element.getAttribute("data-hole")), element);
  }

  /**
   * @param {number} hole
   * @param {Element} element
   */
  #activate(hole, element) {
    if (element.classList.contains("target") && this.selected !== null) {
      const move = this.movesFrom(this.selected).find((m) => m.text === element.getAttribute("data-move"));
      if (move) {
        this.options.onMove?.(move);
        return;
      }
    }
    if (this.movesFrom(hole).length) {
      if (hole === this.selected) {
        this.select(null);
        /** @type {SVGElement | null | undefined} */
        const peg = this.svg?.querySelector(`.peg[data-hole="${hole}"]`);
        peg?.focus();
      } else {
        this.select(hole);
      }
      return;
    }
    if (this.selected !== null) {
      this.options.onAttempt?.(this.selected, hole);
    } else if (this.svg?.querySelector(`.peg[data-hole="${hole}"]`)) {
      this.options.onAttempt?.(hole, null);
    }
  }

  /** @param {KeyboardEvent} event */
  #key(event) {
    if (!this.moves) return;
    if (event.key === "Escape") {
      const selected = this.selected;
      this.select(null);
      if (selected !== null) {
        /** @type {SVGElement | null | undefined} */
        const peg = this.svg?.querySelector(`.peg[data-hole="${selected}"]`);
        peg?.focus();
      }
      return;
    }
    if (event.key !== "Enter" && event.key !== " ") return;
    const element = /** @type {Element} */ (event.target).closest("[data-hole]");
    if (!element) return;
    event.preventDefault();
    this.#activate(Number(element.getAttribute("data-hole")), element);
  }
}

/**
 * The triangle a player's first set starts in, from the position's JSON
 * form: the board is turned so that it is at the bottom.
 * @param {{players: {triangle: string}[][]}} position
 * @param {number} player
 */
export function homeOf(position, player) {
  return position.players[player]?.[0]?.triangle || "south";
}
