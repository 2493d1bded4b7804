// A Compare page's widget (hooks/pages/compare.py) bound to its form and its answers: one
// attack (bonus, defense, damage) answered for every system side by side, each by the
// attack calculator, through the worker every widget of the page shares.
//
// Safety: inputs only ever become text; the answers shown are the core's short summary,
// as text, and its notes, which rules_core.web escaped.

import { addressLags } from "./calculator-address.mjs";
import { askPython, isReady } from "./calculator-client.mjs";
import { named } from "./calculator-form.mjs";
import { TYPING_PAUSE_MS, clearFieldErrors, markRefused, showRefusal, unmarkRefused } from "./calculator-refusal.mjs";
import { clearStartFailure, showStartFailure } from "./calculator-status.mjs";
import { Staleness, bindCopyLink, markFirstLiveResult } from "./calculator-view.mjs";

/** @typedef {import("../../../types/rules-core-web").Answer} Answer */

export class Comparison {
  /** @param {HTMLElement} section a Compare page's widget (hooks/pages/compare.py) */
  constructor(section) {
    this.section = section;
    // The calculator that answers for each system (the attack's), as the widget names it.
    this.calculator = /** @type {string} */ (section.dataset.compare);
    this.form = /** @type {HTMLFormElement} */ (section.querySelector("form"));
    /** @type {NodeListOf<HTMLElement>} */
    const answers = section.querySelectorAll(".compare-answer[data-system]");
    this.answers = [...answers];
    // Under each system's quotes, its "Open in the calculator", which carries the numbers:
    // found once, by the system it names.
    /** @type {NodeListOf<HTMLAnchorElement>} */
    const links = document.querySelectorAll('.compare a[href*="calculators/"]');
    this.links = new Map([...links].map((link) => [new URL(link.href).searchParams.get("system"), link]));
    this.latest = 0;
    this.staleness = new Staleness();
    /** @type {string | null} the numbers the answers shown answer, as JSON (null: mixed) */
    this.shownKey = null;
    this.typing = false; // a number is being typed, and has not paused since
    this.pause = 0; // the timer that ends the typing
    /** @type {Array<() => void>} refusals that wait for the typing to end */
    this.held = [];
    this.path = ""; // the page this widget belongs to
  }

  start() {
    this.form.addEventListener("submit", (event) => event.preventDefault());
    this.form.addEventListener("input", (event) => {
      this.showQuestion();
      this.compute();
      // Typed key by key: a refusal ("-" on the way to "-2") waits for a pause, as a
      // calculator's does (calculator-widget.mjs); leaving the field says it at once.
      if (event.isTrusted) {
        this.typing = true;
        clearTimeout(this.pause);
        this.pause = setTimeout(() => this.settle(), TYPING_PAUSE_MS);
      }
      addressLags(this.path, { answering: isReady() });
    });
    this.form.addEventListener("change", () => this.settle());
    bindCopyLink(this.section);
    this.path = location.pathname;
    const params = new URLSearchParams(location.search);
    for (const control of this.controls()) {
      const value = params.get(control.name);
      if (value !== null) control.value = value;
    }
    this.showQuestion();
    // The build-time answers are those of the page's own question (no number changed):
    // while that is what is asked, they are already its answer, never marked out of date.
    this.shownKey = JSON.stringify([]);
    if (this.key() !== this.shownKey) this.staleness.mark(this.answers, { now: true });
  }

  // The typing has paused, or the field was left: a refusal that waited is said.
  settle() {
    clearTimeout(this.pause);
    this.typing = false;
    const held = this.held;
    this.held = [];
    held.forEach((say) => say());
  }

  showQuestion() {
    // The page's words above the form state the numbers asked: the reader's, as typed
    // (hooks/pages/compare.py marks each by its field), never the page's own once changed.
    /** @type {NodeListOf<HTMLElement>} */
    const numbers = document.querySelectorAll("[data-compare-number]");
    for (const number of numbers) {
      /** @type {HTMLInputElement | null} */
      const field = this.form.querySelector(named(/** @type {string} */ (number.dataset.compareNumber)));
      const typed = field?.value.trim();
      if (typed === undefined) continue;
      const signed = number.hasAttribute("data-signed") && /^\d/.test(typed);
      number.textContent = !typed ? "?" : signed ? "+" + typed : typed;
    }
  }

  key() {
    // The numbers asked: those the reader changed from the page's own question.
    return JSON.stringify(this.addressEntries());
  }

  onReady() {
    clearStartFailure(this.section);
    this.compute();
  }

  onFailure() {
    showStartFailure(this.section);
  }

  /** @returns {HTMLInputElement[]} the form's numbers (text boxes) */
  controls() {
    return [...this.form.querySelectorAll("[name]")].map((control) => /** @type {HTMLInputElement} */ (control));
  }

  addressEntries() {
    return this.controls()
      .filter((control) => control.value !== control.defaultValue)
      .map((control) => /** @type {[string, string]} */ ([control.name, control.value]));
  }

  compute() {
    // Text boxes only: every value is a string.
    const inputs = /** @type {Record<string, string>} */ (Object.fromEntries(new FormData(this.form)));
    const key = this.key();
    const id = ++this.latest;
    // A system's answer is marked out of date until its answer to these numbers arrives:
    // at once while Python loads, else only if that answer is slow. A quick one replaces
    // it before the mark could be read, and the mark's line would make the rows jump.
    const waiting = new Set(this.answers); // live: the mark falls on those still waiting
    if (key === this.shownKey) this.staleness.clear(this.answers);
    else this.staleness.mark(waiting, { now: !isReady() });
    if (!isReady()) return;
    let refused = false;
    this.held = [];
    clearFieldErrors(this.section);
    this.answers.forEach(unmarkRefused);
    const status = /** @type {HTMLElement} */ (this.section.querySelector(".calc-status-text"));
    status.textContent = "";
    for (const answer of this.answers) {
      const system = /** @type {string} */ (answer.dataset.system);
      const request = { ...inputs, system };
      askPython(this.calculator, request, (/** @type {Answer} */ response) => {
        if (this.latest !== id) return;
        waiting.delete(answer);
        if (key !== this.shownKey) this.shownKey = null; // the answers shown are mixed now
        if (!response.ok) {
          answer.classList.add("calc-result--stale"); // the last good answer stays
          refused = true;
          const say = () => {
            if (this.latest !== id) return; // other numbers asked since
            // The same inputs for every system: one message per field is enough.
            const refusal = showRefusal(this.section, this.form, response, (name) => `compare-${name}-error`);
            // Said in the status line too, the page's one live region: a field's message
            // has none of its own (no alert at each key).
            const [first] = refusal.placed;
            const said = refusal.reason || (first ? `Out of date: ${first.text}` : "");
            if (said && status.textContent !== said) status.textContent = said;
            markRefused(answer, answer, refusal);
          };
          if (this.typing) this.held.push(say);
          else say();
        } else {
          answer.textContent = response.summary; // the short answer, as data
          const parsed = new DOMParser().parseFromString(response.html, "text/html");
          const link = this.links.get(system);
          if (link) {
            const url = new URL(link.href);
            for (const [name, value] of Object.entries(request)) {
              if (value) url.searchParams.set(name, value);
              else url.searchParams.delete(name);
            }
            link.href = url.href;
            fillNotes(system, parsed, link.closest("p"));
          }
          answer.classList.remove("calc-result--stale");
        }
        if (waiting.size) return;
        this.staleness.clear();
        this.shownKey = refused ? null : key;
        markFirstLiveResult();
      });
    }
  }
}

/**
 * @param {string} system
 * @param {Document} parsed the answer's markup
 * @param {Element | null} before where the notes go when none is shown yet
 */
function fillNotes(system, parsed, before) {
  // Under the system's quotes, the interpretations its answer to these numbers rests on,
  // in place of those of the last answer.
  const shown = [...document.querySelectorAll(`.compare .calc-interpretation[data-system="${CSS.escape(system)}"]`)];
  /** @type {NodeListOf<HTMLElement>} */
  const notes = parsed.querySelectorAll(".calc-interpretation");
  for (const note of notes) {
    note.dataset.system = system;
    /** @type {Element} */ (shown[0] ?? before).before(document.adoptNode(note));
  }
  shown.forEach((note) => note.remove());
}
