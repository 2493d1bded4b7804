// One calculator's widget (hooks/pages/calculators.py) bound to its form and its answer, on
// any page: every input sent to the rules core running in the worker, and its answer shown
// (calculator-client.mjs). The page already shows the build-time answer for the default
// inputs; the live answer replaces it once Python is ready. The inputs are read from the
// address, and kept there as the reader edits (calculator-address.mjs); what the answer
// says beside the fields is calculator-refusal.mjs's, what a switch of system carries over
// calculator-switch.mjs's, and what the status line says of Python's start
// calculator-status.mjs's.
//
// Safety: inputs only ever become text (form values, URL parameters, textContent). The
// result markup comes from rules_core.web, which escapes everything it was given.

import { addressLags } from "./calculator-address.mjs";
import { askPython, isReady, startFailure } from "./calculator-client.mjs";
import { endAboveDock } from "./calculator-dock.mjs";
import { initialValue, named } from "./calculator-form.mjs";
import {
  TYPING_PAUSE_MS,
  clearFieldErrors,
  goToField,
  markRefused,
  sayRefusal,
  showNotes,
  showRefusal,
  unmarkRefused,
} from "./calculator-refusal.mjs";
import { clearStartFailure, loadingStatus, showStartFailure } from "./calculator-status.mjs";
import { carryOver, ofSystem, sayCarried } from "./calculator-switch.mjs";
import { Staleness, bindCopyLink, markFirstLiveResult, showChoicesInFull, wrapTables } from "./calculator-view.mjs";
import { placeQuestions } from "./situation-questions.mjs";


/**
 * @typedef {import("./calculator-form.mjs").Control} Control
 * @typedef {import("../../../types/rules-core-web").Answer} Answer
 * @typedef {import("../../../types/rules-core-web").Refused} Refused
 */

export class Calculator {
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
    this.typing = false; // a field is being typed in, and has not paused since
    this.pause = 0; // the timer that ends the typing
    /** @type {{response: Refused, key: string} | null} a refusal that waits for the typing to end */
    this.held = null;
    /** @type {string | undefined} the inputs whose answer (or refusal) was last said */
    this.saidKey = undefined;
    this.summary = ""; // what the answer shown says in short
    /** @type {Control | null} the field the answer names: where a tap on it goes */
    this.named = null;
  }

  start() {
    const { form, result } = this;
    // The build-time result answers the form as it was built: its default values, for
    // the fields of its default system.
    this.showFieldsFor(true);
    this.shownKey = JSON.stringify(this.inputs(true));
    this.saidKey = this.shownKey; // the page says the build's answer itself
    this.path = location.pathname; // the page this widget belongs to
    result.setAttribute("aria-busy", "true");
    if (isReady()) this.setStatus("", false);
    else this.sayLoading(loadingStatus());
    form.addEventListener("submit", (event) => event.preventDefault());
    form.addEventListener("input", (event) => this.onEdit(event));
    form.addEventListener("change", (event) => this.onEdit(event));
    const roll = this.section.querySelector(".calc-roll");
    if (roll) {
      roll.addEventListener("click", () => {
        this.saidKey = undefined; // each roll is said, of the same inputs too
        this.compute({ rolled: "on" });
        this.settle();
      });
    }
    bindCopyLink(this.section);
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
    // would take the refusal, and its button, away under the tap. It ends the typing.
    if (event.type === "change" && this.key() === this.askedKey) return this.settle();
    // Typed by the reader, key by key; a choice, a box, the party's rows filled in, a field
    // left: a value given whole.
    const typed = event.type === "input" && event.isTrusted && target instanceof HTMLInputElement && target.type === "text";
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
    if (typed) this.typingGoesOn();
    else this.settle();
    addressLags(this.path, { answering: isReady() });
  }

  typingGoesOn() {
    this.typing = true;
    clearTimeout(this.pause);
    this.pause = setTimeout(() => this.settle(), TYPING_PAUSE_MS);
  }

  // The typing has paused, or a value was given whole: what the widget has for these
  // inputs is said, a refusal that waited placed; an answer still coming is said as it comes.
  settle() {
    clearTimeout(this.pause);
    this.typing = false;
    const held = this.held;
    this.held = null;
    if (held && held.key === this.key()) this.showRefused(held.response, held.key);
    else if (this.shownKey === this.key()) this.sayAnswer();
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
    this.held = null;
    this.named = null;
    this.say(""); // what was said of other inputs
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
    // headline's data-progress, shown by calculators.css): "working out round 4 of 10…";
    // and by the progress bar beside the status line, for screen readers. Without
    // arguments, taken off.
    /** @type {HTMLElement | null} */
    const headline = this.result.querySelector(".calc-headline");
    /** @type {HTMLProgressElement | null} */
    const bar = this.section.querySelector("progress.calc-progress");
    if (done === undefined || total === undefined) {
      if (headline) delete headline.dataset.progress;
      if (bar && isReady()) bar.hidden = true;
      return;
    }
    // A progress report means the answer is late (the worker sends none before
    // PROGRESS_AFTER_MS): the out-of-date mark, which says the round, is due now, whatever
    // the page's own timer, which a busy phone fires late, has done.
    this.staleness.mark([this.result], { now: true });
    const round = Math.min(done + 1, total);
    if (headline) headline.dataset.progress = `working out round ${round} of ${total}…`;
    if (!bar) return;
    bar.hidden = false;
    bar.setAttribute("aria-label", "Working out the answer");
    bar.max = total;
    bar.value = done;
    bar.setAttribute("aria-valuetext", `round ${round} of ${total}`);
  }

  /**
   * @param {Answer} response
   * @param {string} key the inputs it answers, as JSON
   */
  show(response, key) {
    const { section, result } = this;
    if (!response.ok) {
      if (!this.typing) return this.showRefused(response, key);
      // Typed on: the refusal waits for the typing to end (settle), what is said beside
      // the fields as it was; the last good result stays, marked out of date.
      this.held = { response, key };
      this.staleness.mark([result], { now: true });
      result.classList.add("calc-result--held");
      result.setAttribute("aria-busy", "false"); // all there is to know of these inputs has come
      return;
    }
    clearFieldErrors(section);
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
    }
    this.summary = response.summary ?? "";
    this.shownKey = key;
    this.markPending(); // the form as it is now: it may have moved on since the request
    markFirstLiveResult();
    if (!this.typing) this.sayAnswer();
  }

  /**
   * @param {Refused} response
   * @param {string} key the inputs it answers, as JSON
   */
  showRefused(response, key) {
    const { section, result } = this;
    clearFieldErrors(section);
    /** @type {HTMLElement | null} */
    const headline = result.querySelector(".calc-headline");
    // The last good result stays visible, marked out of date; each message sits next
    // to its field, and what no field holds in the status line.
    const refusal = showRefusal(section, this.form, response, (_, control) => control && `${control.id}-error`);
    // A question not yet complete (a fight with no opponent yet) says what it needs, and
    // beside the fields that would give it, what each counts: quietly, not as an error.
    const noted = showNotes(section, this.form, response.notes);
    this.statusText().textContent = refusal.reason;
    this.staleness.mark([result], { now: true });
    result.classList.remove("calc-result--held"); // said now: no longer waiting
    markRefused(result, headline, refusal, response.incomplete);
    // Said in the dock, where the reader looks, and once to screen readers: a refusal at a
    // field as the dock says it, the reason by the status line's own words.
    this.say(sayRefusal(section, headline, refusal, this.edited));
    this.saidKey = key;
    // The field it names, where a tap on the docked answer goes (dockAnswer).
    this.named = refusal.placed[0]?.control ?? noted[0] ?? null;
    result.setAttribute("aria-busy", "false");
  }

  // The answer shown, said once in short by screen readers (its summary, not the whole
  // result), unless it is what was said last.
  sayAnswer() {
    if (this.saidKey === this.shownKey) return;
    this.saidKey = this.shownKey;
    this.say(this.summary);
  }

  // What the status line says besides its own words, unseen (calc-announce): the status
  // line is one live region, said whole as it changes.
  /** @param {string} text */
  say(text) {
    /** @type {HTMLElement} */ (this.section.querySelector(".calc-announce")).textContent = text;
  }

  // A tap on the docked answer that names a field (a refusal, a question not yet complete)
  // goes to that field: whether it did.
  goToNamed() {
    const control = this.named;
    if (!control?.isConnected || control.closest("[hidden]")) return false;
    goToField(control);
    return true;
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
