// Calculator pages: keep every input in the address, send it to the rules core running
// in a worker, and show its answer. The page already shows the build-time answer for the
// default inputs; the live answer replaces it once Python is ready.
//
// calculator-loader.mjs calls bind() for each page Material's instant navigation shows;
// the worker (calculator-client.mjs) serves the whole visit. The address is kept by
// calculator-address.mjs, what both widgets show by calculator-view.mjs, and what a switch
// of system carries over by calculator-switch.mjs.
//
// Safety: inputs only ever become text (form values, URL parameters, textContent). The
// result markup comes from rules_core.web, which escapes everything it was given.

import { addressLags, recallHandedAddress, setAddressSources } from "./calculator-address.mjs";
import {
  ask,
  connect,
  isDownloading,
  isReady,
  loadingState,
  loadingText,
  onLoading,
  onStarted,
  restart,
  startFailure,
} from "./calculator-client.mjs";
import { endAboveDock, keepDockFitted } from "./calculator-dock.mjs";
import { initialValue, named } from "./calculator-form.mjs";
import {
  clearFieldErrors,
  markRefused,
  sayRefusal,
  showNotes,
  showRefusal,
  unmarkRefused,
} from "./calculator-refusal.mjs";
import { carryOver, ofSystem, sayCarried } from "./calculator-switch.mjs";
import { Staleness, bindCopyLink, markFirstLiveResult, showChoicesInFull, wrapTables } from "./calculator-view.mjs";
import { offerParty } from "./party.mjs";
import { placeQuestions } from "./situation-questions.mjs";

/**
 * @typedef {import("./calculator-form.mjs").Control} Control
 * @typedef {import("../../../types/rules-core-web").Answer} Answer
 */

/** @type {(Calculator | Comparison)[]} */
let current = []; // the widgets of the page on screen
setAddressSources(() => current);

onStarted(() => {
  for (const widget of current) {
    if (isReady()) widget.onReady();
    else widget.onFailure();
  }
  if (isReady()) return; // settled once Python has answered
  console.warn("The calculator could not start:", startFailure()?.detail);
  settled();
});

// While Python loads, each widget's status line says what is happening (downloading, then
// starting), once per step: the figures, which change ten times a second, are said where
// the answer is read (calculator-client.mjs), not in this live region.
onLoading(() => {
  const said = loadingStatus();
  for (const widget of current) {
    if (widget instanceof Calculator && !isReady() && !startFailure() && widget.loadingSaid !== said) {
      widget.sayLoading(said);
    }
  }
});

// Each fits a phone's line, as the build's does (hooks/pages/calculators.py): the answer
// under it never moves as it changes. How much has arrived, and that it is downloaded once,
// is said where the answer is read (calculator-client.mjs, loadingText).
function loadingStatus() {
  const state = loadingState();
  if (!state) return "Loading the calculators' Python…";
  if (isDownloading(state)) {
    return `Downloading the calculators' Python (${(state.total / 1e6).toFixed(1)} MB)…`;
  }
  const text = loadingText(state);
  return text[0].toUpperCase() + text.slice(1);
}

/** @param {Document} page */
export function bind(page) {
  connect(page);
  recallHandedAddress();
  // Marks are per page; an instant navigation keeps the visit's timeline.
  performance.clearMarks("calc-first-live-result");
  /** @type {NodeListOf<HTMLElement>} */
  const calculators = page.querySelectorAll(".calc[data-calculator]");
  /** @type {NodeListOf<HTMLElement>} */
  const comparisons = page.querySelectorAll(".calc[data-compare]");
  current = [...[...calculators].map((s) => new Calculator(s)), ...[...comparisons].map((s) => new Comparison(s))];
  for (const widget of current) widget.start();
  const siblings = current.filter((widget) => widget instanceof Calculator);
  for (const widget of siblings) widget.siblings = siblings;
  // The party kept on this device, kept and offered where a calculator takes its numbers.
  offerParty(siblings);
  // What the build put in for the widget's code to work is shown (calculators.css).
  for (const widget of current) widget.section.dataset.bound = "";
  // Each result now says for itself whether it answers the inputs on screen.
  document.documentElement.removeAttribute("data-calc-address");
  if (isReady()) current.forEach((widget) => widget.onReady());
  else if (startFailure()) current.forEach((widget) => widget.onFailure());
}

class Calculator {
  /** @param {HTMLElement} section a calculator's widget (hooks/pages/calculators.py) */
  constructor(section) {
    this.section = section;
    this.name = /** @type {string} */ (section.dataset.calculator);
    this.form = /** @type {HTMLFormElement} */ (section.querySelector("form"));
    this.result = /** @type {HTMLElement} */ (section.querySelector(".calc-result"));
    /** @type {Calculator[]} */
    this.siblings = [this];
    this.staleness = new Staleness();
    this.answered = false; // whether Python has answered: until then, the built result shows
    /** @type {string | undefined} the inputs the result shown answers, as JSON */
    this.shownKey = undefined;
    /** @type {string | undefined} the markup of the result shown, once Python has answered */
    this.shownHtml = undefined;
    /** @type {string | undefined} the inputs last asked, as JSON */
    this.askedKey = undefined;
    /** @type {AbortController | null} the request in flight */
    this.inFlight = null;
    /** @type {Control | undefined} the control the reader last changed */
    this.edited = undefined;
    /** @type {string | null | undefined} the system whose fields are shown */
    this.shownSystem = undefined;
    /** @type {string | undefined} what the status line says while Python loads */
    this.loadingSaid = undefined;
    this.path = ""; // the page this widget belongs to
  }

  start() {
    const { form, result } = this;
    // The build-time result answers the form as it was built: its default values, for
    // the fields of its default system.
    this.showFieldsFor(true);
    this.shownKey = JSON.stringify(this.inputs(true));
    this.path = location.pathname; // the page this widget belongs to
    result.setAttribute("aria-busy", "true");
    if (isReady()) this.setStatus("", false);
    else this.sayLoading(loadingStatus());
    form.addEventListener("submit", (event) => event.preventDefault());
    form.addEventListener("input", (event) => this.onEdit(event));
    form.addEventListener("change", (event) => this.onEdit(event));
    const roll = this.section.querySelector(".calc-roll");
    if (roll) roll.addEventListener("click", () => this.compute({ rolled: "on" }));
    bindCopyLink(this.section);
    keepDockFitted(result);
    showChoicesInFull(form);
    // A side of situations opened near the bottom of the screen scrolls up to show them
    // (opened by the reader: one the address opens leaves the page where it is).
    /** @type {NodeListOf<HTMLDetailsElement>} */
    const sides = form.querySelectorAll("details.calc-side");
    for (const side of sides) {
      /** @type {HTMLElement} */ (side.querySelector("summary")).addEventListener("click", () => {
        requestAnimationFrame(() => {
          // On a phone the answer docked at the bottom covers the end of the screen.
          const end = endAboveDock(result.querySelector(".calc-headline"));
          if (side.open && side.getBoundingClientRect().bottom > end) {
            side.scrollIntoView({ block: "start" });
          }
        });
      });
    }
    // A tap on the docked answer (on a phone) brings the full result into view.
    /** @returns {HTMLElement | null} */
    const headline = () => result.querySelector(".calc-headline");
    result.addEventListener("click", (event) => {
      const docked = headline();
      const details = /** @type {HTMLElement | null | undefined} */ (docked?.nextElementSibling);
      const target = /** @type {Element} */ (event.target);
      if (docked?.contains(target) && !target.closest("a") && details) {
        // Scrolled to, the answer sticks at the top (at its own `top`, below Material's
        // header) and covers as much as its height, which grows with its words (three lines
        // of figures on a phone): what it opens starts below it, never under it.
        const stuck = parseFloat(getComputedStyle(docked).top) || 0;
        // The page's own scroll padding (below the header) counts towards it.
        const padded = parseFloat(getComputedStyle(document.documentElement).scrollPaddingTop) || 0;
        details.style.scrollMarginTop = `${stuck + docked.offsetHeight + 8 - padded}px`;
        details.scrollIntoView({ block: "start", behavior: "smooth" });
      }
    });
    this.applyAddress();
    this.markPending();
  }

  /** @param {string} said */
  sayLoading(said) {
    this.loadingSaid = said;
    this.setStatus(said, true);
  }

  onReady() {
    clearStartFailure(this.section);
    this.setStatus("", false);
    this.compute();
  }

  onFailure() {
    showStartFailure(this.section);
    this.result.setAttribute("aria-busy", "false"); // no Python: the build-time result is final
  }

  /** @param {Event} event an input or change of one of the form's controls */
  onEdit(event) {
    const target = /** @type {Control} */ (event.target);
    // A field typed in says "change" once more as it loses focus, to a tap on the button a
    // refusal offers, say: the answer to those inputs is asked already, and asking again
    // would take the refusal, and its button, away under the tap.
    if (event.type === "change" && this.key() === this.askedKey) return;
    const situations = target.dataset.situation !== undefined ? listOf(target) : null;
    if (situations) this.collectSituations();
    const name = target.name || situations?.name || "";
    this.edited = target; // where the reader is looking: a refusal is said there too
    if (name === "system") this.switchSystem();
    // Widgets on one page share a field of the same name (the system, on the abilities page).
    for (const other of this.siblings) {
      if (other === this || !name || situations) continue;
      /** @type {Control | null} */
      const twin = other.form.querySelector(named(name));
      if (twin && twin.value !== target.value) {
        twin.value = target.value;
        if (name === "system") other.switchSystem();
        other.compute();
      }
    }
    this.compute();
    addressLags(this.path, { answering: isReady() });
  }

  inputs(asBuilt = false) {
    /** @type {Record<string, string>} */
    const values = {};
    /** @type {NodeListOf<HTMLElement>} */
    const fields = this.form.querySelectorAll(".calc-field");
    for (const field of fields) {
      if (field.hidden) continue;
      /** @type {Control | null} */
      const control = field.querySelector("[name]");
      if (!control) continue;
      // (A select of the form always has options: its value as built is a string.)
      values[control.name] = asBuilt ? /** @type {string} */ (initialValue(control))
        : control instanceof HTMLInputElement && control.type === "checkbox" ? (control.checked ? "on" : "")
        : control.value;
    }
    return values;
  }

  key() {
    return JSON.stringify(this.inputs());
  }

  markPending(key = this.key()) {
    // Until Python has answered these very inputs the result is not theirs: mark it
    // (busy at once, and out of date if the answer does not follow at once).
    const matches = key === this.shownKey;
    // Busy while an answer may come: never once Python could not start.
    this.result.setAttribute("aria-busy", String((!matches || !isReady()) && !startFailure()));
    if (matches) this.staleness.clear([this.result]);
    else this.staleness.mark([this.result], { now: !isReady() });
    // The build-time figures beside other inputs (an address's, or a form brought back by
    // Back) answer a question nobody on this screen asked: hidden from the first frame the
    // widget is bound in, not only once an answer is late, and in place (extra.css).
    this.result.classList.toggle("calc-result--unasked", !matches && !this.answered);
  }

  /** @param {Record<string, string>} [extra] */
  compute(extra = {}) {
    unmarkRefused(this.result);
    const inputs = this.inputs();
    const key = JSON.stringify(inputs);
    this.markPending(key);
    if (!isReady()) return;
    this.askedKey = key;
    // One request at a time per calculator: a new one withdraws the one in flight, whose
    // work the worker stops at its next step. A slow answer (a whole fight) is never
    // finished for inputs already gone, nor followed by a queue of them.
    if (this.inFlight) {
      this.inFlight.abort();
      this.showProgress(); // the new request says its own progress, if it takes long
    }
    this.inFlight = new AbortController();
    /** @type {(done: number, total: number) => void} */
    const onProgress = (done, total) => this.showProgress(done, total);
    // Only the newest request is ever answered here: each one before it was withdrawn.
    askPython(this.name, { ...inputs, ...extra }, (/** @type {Answer} */ response) => {
      this.inFlight = null;
      this.showProgress(); // the answer, a refusal or a failure: never left on "working"
      this.show(response, key);
    }, { onProgress, signal: this.inFlight.signal });
  }

  /**
   * @param {number} [done]
   * @param {number} [total]
   */
  showProgress(done, total) {
    // Said in the dock, where the out-of-date answer says it is being computed (the
    // headline's data-progress, shown by calculators.css): "working out round 4 of 10…".
    // Without arguments, taken off.
    /** @type {HTMLElement | null} */
    const headline = this.result.querySelector(".calc-headline");
    if (!headline) return;
    if (done === undefined) delete headline.dataset.progress;
    else headline.dataset.progress = `working out round ${Math.min(done + 1, /** @type {number} */ (total))} of ${total}…`;
  }

  /**
   * @param {Answer} response
   * @param {string} key the inputs it answers, as JSON
   */
  show(response, key) {
    const { section, result } = this;
    clearFieldErrors(section);
    /** @type {HTMLElement | null} */
    const headline = result.querySelector(".calc-headline");
    if (!response.ok) {
      // The last good result stays visible, marked out of date; each message sits next
      // to its field, and what no field holds in the status line.
      const refusal = showRefusal(section, this.form, response, (_, control) => control && `${control.id}-error`);
      // A question not yet complete (a fight with no opponent yet) says what it needs, and
      // beside the fields that would give it, what each counts: quietly, not as an error.
      showNotes(section, this.form, response.notes);
      if (refusal.reason) this.statusText().textContent = refusal.reason;
      this.staleness.mark([result], { now: true });
      markRefused(result, headline, refusal, response.incomplete);
      sayRefusal(section, headline, refusal, this.edited);
      result.setAttribute("aria-busy", "false");
      return;
    }
    this.statusText().textContent = "";
    showNotes(section, this.form, response.notes);
    this.answered = true;
    result.classList.remove("calc-result--built"); // Python's answer now, not the build's
    // Before any live answer the result shown is the build-time one, for shownKey's inputs.
    // A first answer to those (never a roll: the Roll button asks only once Python has
    // answered) is the same markup, from the same rules core and data (tests/test_web.py):
    // that stays, not written over again.
    if (this.shownHtml === undefined && key === this.shownKey) this.shownHtml = response.html;
    if (response.html !== this.shownHtml) {
      // A table of the chart the reader opened stays open through the new answer.
      const open = [...result.querySelectorAll("details")].map((details) => details.open);
      result.innerHTML = response.html;
      result.querySelectorAll("details").forEach((details, index) => (details.open ||= open[index]));
      wrapTables(result);
      // As Material does with the whole page for instant navigation: links absolute, so
      // the live answer is the same markup as the built one it replaces.
      for (const link of /** @type {NodeListOf<HTMLAnchorElement>} */ (result.querySelectorAll("a[href]"))) {
        link.href = link.href;
      }
      this.shownHtml = response.html;
      // Said once, in short, by screen readers: the answer's summary, not the whole result.
      /** @type {HTMLElement} */ (section.querySelector(".calc-announce")).textContent = response.summary ?? "";
    }
    this.shownKey = key;
    this.markPending(); // the form as it is now: it may have moved on since the request
    markFirstLiveResult();
  }

  showFieldsFor(asBuilt = false) {
    /** @type {HTMLSelectElement | null} */
    const select = this.form.querySelector('[name="system"]');
    const system = select && (asBuilt ? initialValue(select) : select.value);
    this.shownSystem = system;
    /** @type {NodeListOf<HTMLElement>} */
    const ofSystems = this.form.querySelectorAll("[data-systems]");
    for (const element of ofSystems) {
      const systems = /** @type {string} */ (element.dataset.systems).split(" ");
      element.hidden = system !== undefined && !systems.includes(/** @type {string} */ (system));
    }
    this.collectSituations();
  }

  switchSystem() {
    // The reader chose another system: what it has too is kept (the situations of the
    // same name, the fields it shares), and what it lacks is dropped and said so.
    const before = this.shownSystem;
    this.showFieldsFor();
    if (before === undefined || before === this.shownSystem) return;
    const now = /** @type {string} */ (this.shownSystem);
    sayCarried(this.form, now, carryOver(this.form, /** @type {string} */ (before), now));
    this.collectSituations();
  }

  collectSituations() {
    // Each situations field (the attack's; a fight's, one per side) is a hidden input that
    // holds the names of the boxes ticked in its own block.
    /** @param {HTMLInputElement} box */
    const applies = (box) => box.checked && !(/** @type {HTMLElement | null} */ (box.closest("[data-systems]")))?.hidden;
    /** @type {NodeListOf<HTMLInputElement>} */
    const lists = this.form.querySelectorAll('input[type="hidden"]');
    for (const hidden of lists) {
      hidden.value = [...boxesOf(hidden)]
        .filter(applies)
        .map((box) => box.dataset.situation)
        .join(",");
    }
    placeQuestions(this.form);
    // A closed side still says how many of its situations are ticked.
    for (const side of this.form.querySelectorAll("details.calc-side")) {
      /** @type {NodeListOf<HTMLInputElement>} */
      const boxes = side.querySelectorAll("[data-situation]");
      const ticked = [...boxes].filter(applies).length;
      /** @type {HTMLElement} */ (side.querySelector(".calc-side-ticked")).textContent = ticked ? ` · ${ticked} ticked` : "";
    }
  }

  applyAddress() {
    // What the address names; a field it leaves out keeps its value (the default, or
    // what the reader typed before this script arrived on a slow connection). The system
    // comes first: a field or situation of another system is not read from the address,
    // or switching to that system would apply a value nobody chose on this screen.
    const params = new URLSearchParams(location.search);
    /** @type {HTMLSelectElement | null} */
    const select = this.form.querySelector('[name="system"]');
    /** @type {NodeListOf<Control>} */
    const named = this.form.querySelectorAll("[name]");
    const controls = [...named];
    if (select) controls.sort((a, b) => Number(b === select) - Number(a === select));
    /** @param {Element} element */
    const ofChosen = (element) => !select || ofSystem(element, select.value);
    for (const control of controls) {
      if (control.type === "hidden" || !params.has(control.name)) continue; // situations: below
      if (!ofChosen(control)) continue;
      const value = /** @type {string} */ (params.get(control.name));
      if (control instanceof HTMLSelectElement) {
        if ([...control.options].some((option) => option.value === value && ofChosen(option))) {
          control.value = value;
        }
      } else if (control.type === "checkbox") control.checked = value === "on";
      else control.value = value;
    }
    /** @type {NodeListOf<HTMLInputElement>} */
    const lists = this.form.querySelectorAll('input[type="hidden"]');
    for (const hidden of lists) {
      if (!params.has(hidden.name)) continue;
      const situations = /** @type {string} */ (params.get(hidden.name)).split(",");
      for (const box of boxesOf(hidden)) {
        box.checked = ofChosen(box) && situations.includes(/** @type {string} */ (box.dataset.situation));
        // What the address ticks is shown, not folded away.
        if (box.checked) box.closest("details.calc-side")?.setAttribute("open", "");
      }
    }
    this.showFieldsFor();
  }

  addressEntries() {
    // The inputs that differ from the form as built: the address stays short, and an
    // address without them means the defaults.
    /** @type {[string, string][]} */
    const entries = [];
    for (const [name, value] of Object.entries(this.inputs())) {
      const control = /** @type {Control} */ (this.form.querySelector(named(name)));
      if (value !== initialValue(control)) entries.push([name, value]);
    }
    return entries;
  }

  statusText() {
    return /** @type {HTMLElement} */ (this.section.querySelector(".calc-status-text"));
  }

  /**
   * @param {string} text
   * @param {boolean} busy
   */
  setStatus(text, busy) {
    const status = /** @type {HTMLElement} */ (this.section.querySelector(".calc-status"));
    status.classList.toggle("calc-status--busy", busy);
    if (text || !busy) this.statusText().textContent = text;
  }
}

// A Compare page: one attack (bonus, defense, damage) answered for every system side by
// side, each by the attack calculator, through the same worker.
class Comparison {
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
    this.path = ""; // the page this widget belongs to
  }

  start() {
    this.form.addEventListener("submit", (event) => event.preventDefault());
    this.form.addEventListener("input", () => {
      this.showQuestion();
      this.compute();
      addressLags(this.path, { answering: isReady() });
    });
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
          // The same inputs for every system: one message per field is enough.
          const refusal = showRefusal(this.section, this.form, response, (name) => `compare-${name}-error`);
          if (refusal.reason) status.textContent = refusal.reason;
          answer.classList.add("calc-result--stale"); // the last good answer stays
          markRefused(answer, answer, refusal);
          refused = true;
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

// Python could not start: the widget's status line says why in words, what the figures
// shown are, and what to do, with a button that does it; on a phone it takes the dock's
// place at the bottom of the screen (calculators.css). The out-of-date mark (calc--failed)
// says so too, in place of "computing". The reason is never the raw error (the console
// has it).
/** @param {Element} section */
function showStartFailure(section) {
  const failure = /** @type {import("./calculator-client.mjs").Failure} */ (startFailure());
  const unstored = failure.kind === "download" && failure.offline; // nothing kept to start from
  const status = /** @type {Element} */ (section.querySelector(".calc-status"));
  const text = /** @type {Element} */ (status.querySelector(".calc-status-text"));
  status.classList.remove("calc-status--busy");
  // Figures for the default inputs stay readable, said to be those; beside other inputs
  // (a shared link) they stay hidden (calc-result--unasked), and the sentence says so.
  const unasked = section.querySelector(".calc-result--unasked");
  text.textContent =
    failureSentence(failure.kind, unstored) +
    (unasked
      ? " No figures are shown for these inputs until it starts."
      : " The figures shown were computed when the site was built, for the default inputs.");
  /** @type {HTMLButtonElement | null} */
  let button = status.querySelector(".calc-retry");
  if (!button) {
    button = document.createElement("button");
    button.type = "button";
    button.className = "calc-retry md-button";
    text.after(button);
  }
  // A damaged file is downloaded again, like one that did not arrive.
  const retried = failure.kind === "download" || failure.kind === "damaged";
  button.textContent =
    !retried ? "Reload the page"
    : !unstored ? "Try again"
    : navigator.onLine ? "Store the calculators for offline use"
    : "Store the calculators for offline use: needs a connection";
  button.onclick = () => {
    if (!retried) location.reload();
    else if (navigator.onLine) retryStart();
    else text.textContent = "Still offline: try again once the device is connected.";
  };
  section.classList.add("calc--failed");
}

/**
 * @param {import("./calculator-client.mjs").FailureKind} kind
 * @param {boolean} unstored
 */
function failureSentence(kind, unstored) {
  if (unstored && navigator.onLine) {
    return "The calculators are not stored on this device, and you are back online: they can be downloaded and stored now.";
  }
  if (unstored) return "You are offline, and the calculators are not stored on this device.";
  if (kind === "download") {
    return "The calculator could not start: part of it could not be downloaded. Check the connection, then try again.";
  }
  if (kind === "damaged") {
    return "The calculator could not start: a file it downloaded arrived damaged. Try again.";
  }
  return "The calculator could not start in this browser. Reloading the page may help.";
}

/** @param {Element} section */
function clearStartFailure(section) {
  section.classList.remove("calc--failed");
  section.querySelector(".calc-retry")?.remove();
}

// A failed download is tried again when the reader asks (not by itself when the browser
// is back online: Python is 14 MB, and the connection may be a phone's). The visit
// settles again once Python answers, so offline.mjs keeps what it loaded.
function retryStart() {
  if (!startFailure()) return;
  delete document.documentElement.dataset.calculators;
  restart();
  for (const widget of current) {
    clearStartFailure(widget.section);
    const status = /** @type {Element} */ (widget.section.querySelector(".calc-status"));
    status.classList.add("calc-status--busy");
    /** @type {Element} */ (status.querySelector(".calc-status-text")).textContent = loadingStatus();
    if ("markPending" in widget) widget.markPending();
  }
}

// Back online, or offline again: the sentence says which.
for (const change of ["online", "offline"]) {
  window.addEventListener(change, () => {
    if (startFailure()) current.forEach((widget) => showStartFailure(widget.section));
  });
}

// Every request of the page's widgets: show(response) gets rules_core.web's reply, or, where
// Python failed to answer, a refusal that says so. Once the first answer is shown, the visit
// is settled.
/**
 * @param {string} calculator
 * @param {Record<string, string>} inputs
 * @param {(response: Answer) => void} show
 * @param {{onProgress?: (done: number, total: number) => void, signal?: AbortSignal}} [options]
 */
function askPython(calculator, inputs, show, { onProgress, signal } = {}) {
  ask(calculator, inputs, { onProgress, signal })
    .then((data) =>
      "withdrawn" in data ? null
      : "failed" in data ? failed(data.failed)
      : /** @type {Answer} */ (JSON.parse(data.response)),
    )
    // A reply that is not the core's JSON is a failure said in words, never "computing".
    .catch((error) => failed(String(error?.message ?? error)))
    .then((response) => {
      if (!response) return; // withdrawn: the request that replaced it answers
      show(response);
      settled();
    });
}

/**
 * @param {string} why
 * @returns {import("../../../types/rules-core-web").Refused}
 */
function failed(why) {
  return { ok: false, html: "", summary: "", errors: {}, message: "The calculation failed: " + why };
}

function settled() {
  // Once a visit: Python has given its first answer, or could not start. offline.mjs waits
  // for this before it stores the site, which would slow Python's download, start and
  // first answer.
  if (document.documentElement.dataset.calculators === "settled") return;
  document.documentElement.dataset.calculators = "settled";
  document.dispatchEvent(new Event("calculators-settled"));
}

// A situations field's hidden input (the names ticked) and its boxes share the field's block.
/**
 * @param {Element} hidden
 * @returns {NodeListOf<HTMLInputElement> | []}
 */
function boxesOf(hidden) {
  return hidden.closest(".calc-field")?.querySelectorAll("[data-situation]") ?? [];
}

/**
 * @param {Element} box
 * @returns {HTMLInputElement | null}
 */
function listOf(box) {
  return box.closest(".calc-field")?.querySelector('input[type="hidden"]') ?? null;
}
