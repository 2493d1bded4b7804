// Calculator pages: keep every input in the address, send it to the rules core running
// in a worker, and show its answer. The page already shows the build-time answer for the
// default inputs; the live answer replaces it once Python is ready.
//
// One worker serves the whole visit: calculator-loader.mjs calls bind() for each page
// Material's instant navigation shows, and this module (loaded once) keeps the worker.
//
// Safety: inputs only ever become text (form values, URL parameters, textContent). The
// result markup comes from rules_core.web, which escapes everything it was given.

// The site root, from where this file lives (assets/javascripts/ under the root): the
// __config block Material wrote is relative to the first page of the visit only.
const ROOT_PATH = new URL("../../", import.meta.url).pathname;
// A result still waiting for Python after this long is marked out of date; a quicker
// answer replaces it before anyone could read the mark, so it would only flicker.
const STALE_AFTER_MS = 150;
// The address is written once the edits pause for this long (see addressLags).
const ADDRESS_IDLE_MS = 300;

const pending = new Map(); // request id -> {done}: what to do with its answer
let nextId = 1;
let ready = false;
let failure = null;
let current = []; // the widgets of the page on screen
let worker = null;
let addressTimer = 0; // set while the address lags behind an edit
let addressPath = ""; // the page whose edit it lags behind

function startWorker(page) {
  // calculator-boot.js, in the head of a calculator page opened directly, has usually
  // started the worker already; after an instant navigation this module starts it.
  const booted = window.rulesCoreWorker;
  // Each widget names its build's Python bundle (hooks/calculators.py): the worker's name.
  const name = page.querySelector(".calc[data-bundle]")?.dataset.bundle ?? "";
  worker =
    booted?.worker ??
    new Worker(new URL("./calculator-worker.mjs", import.meta.url), { type: "module", name });
  window.rulesCoreWorker = { worker, early: [] };
  worker.onmessage = onMessage;
  for (const event of booted?.early ?? []) onMessage(event); // e.g. "ready", already sent
}

function onMessage({ data }) {
  if (data.ready) {
    ready = true;
    for (const widget of current) widget.onReady();
    settled();
    return;
  }
  if (data.failed && data.id === undefined) {
    failure = data.failed;
    for (const widget of current) widget.onFailure();
    settled();
    return;
  }
  const request = pending.get(data.id);
  pending.delete(data.id);
  if (request) request.done(data);
}

function ask(calculator, inputs, done) {
  const id = nextId++;
  pending.set(id, { done });
  const request = JSON.stringify({ calculator, inputs, base: siteBase() });
  worker.postMessage({ id, request });
}

export function bind(page) {
  if (!worker) startWorker(page);
  recallHandedAddress();
  // Marks are per page; an instant navigation keeps the visit's timeline.
  performance.clearMarks("calc-first-live-result");
  current = [
    ...[...page.querySelectorAll(".calc[data-calculator]")].map((s) => new Calculator(s)),
    ...[...page.querySelectorAll(".calc[data-compare]")].map((s) => new Comparison(s)),
  ];
  for (const widget of current) widget.start();
  const siblings = current.filter((widget) => widget instanceof Calculator);
  for (const widget of siblings) widget.siblings = siblings;
  if (ready) current.forEach((widget) => widget.onReady());
  else if (failure) current.forEach((widget) => widget.onFailure());
}

class Calculator {
  constructor(section) {
    this.section = section;
    this.name = section.dataset.calculator;
    this.form = section.querySelector("form");
    this.result = section.querySelector(".calc-result");
    this.siblings = [this];
    this.latest = 0; // id of the newest request
    this.staleTimer = 0;
  }

  start() {
    const { form, result } = this;
    // The build-time result answers the form as it was built: its default values, for
    // the fields of its default system.
    this.showFieldsFor(true);
    this.shownKey = JSON.stringify(this.inputs(true));
    this.path = location.pathname; // the page this widget belongs to
    result.setAttribute("aria-busy", "true");
    this.setStatus(ready ? "" : "Loading the calculator…", !ready);
    form.addEventListener("submit", (event) => event.preventDefault());
    form.addEventListener("input", (event) => this.onEdit(event));
    form.addEventListener("change", (event) => this.onEdit(event));
    const roll = this.section.querySelector(".calc-roll");
    if (roll) roll.addEventListener("click", () => this.compute({ rolled: "on" }));
    addCopyLink(this.section);
    // A side of situations opened near the bottom of the screen scrolls up to show them
    // (opened by the reader: one the address opens leaves the page where it is).
    for (const side of form.querySelectorAll("details.calc-side")) {
      side.querySelector("summary").addEventListener("click", () => {
        requestAnimationFrame(() => {
          // On a phone the answer docked at the bottom covers the end of the screen.
          const docked = result.querySelector(".calc-headline")?.getBoundingClientRect();
          const end = docked && docked.bottom >= innerHeight - 1 ? docked.top : innerHeight;
          if (side.open && side.getBoundingClientRect().bottom > end) {
            side.scrollIntoView({ block: "start" });
          }
        });
      });
    }
    // A tap on the docked answer (on a phone) brings the full result into view.
    const headline = () => result.querySelector(".calc-headline");
    result.addEventListener("click", (event) => {
      if (headline()?.contains(event.target) && !event.target.closest("a")) {
        headline().nextElementSibling?.scrollIntoView({ block: "start", behavior: "smooth" });
      }
    });
    this.applyAddress();
    this.markPending();
  }

  onReady() {
    this.setStatus("", false);
    this.compute();
  }

  onFailure() {
    this.setStatus("The calculator could not start: " + failure, false);
    this.result.setAttribute("aria-busy", "false"); // no Python: the build-time result is final
  }

  onEdit(event) {
    const target = event.target;
    if (target.dataset.situation !== undefined) this.collectSituations();
    const name = target.name || (target.dataset.situation !== undefined ? "situations" : "");
    if (name === "system") this.showFieldsFor();
    // Widgets on one page share a field of the same name (the system, on the abilities page).
    for (const other of this.siblings) {
      if (other === this || !name || name === "situations") continue;
      const twin = other.form.querySelector(named(name));
      if (twin && twin.value !== target.value) {
        twin.value = target.value;
        if (name === "system") other.showFieldsFor();
        other.compute();
      }
    }
    this.compute();
    addressLags(this.path);
  }

  inputs(asBuilt = false) {
    const values = {};
    for (const field of this.form.querySelectorAll(".calc-field")) {
      if (field.hidden) continue;
      const control = field.querySelector("[name]");
      if (!control) continue;
      values[control.name] = asBuilt ? initialValue(control)
        : control.type === "checkbox" ? (control.checked ? "on" : "")
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
    this.result.setAttribute("aria-busy", String(!matches || !ready));
    clearTimeout(this.staleTimer);
    if (matches) this.result.classList.remove("calc-result--stale");
    else if (!ready) this.result.classList.add("calc-result--stale");
    else this.staleTimer = setTimeout(() => this.result.classList.add("calc-result--stale"), STALE_AFTER_MS);
  }

  compute(extra = {}) {
    const inputs = this.inputs();
    const key = JSON.stringify(inputs);
    this.markPending(key);
    if (!ready) return;
    const id = nextId;
    this.latest = id;
    ask(this.name, { ...inputs, ...extra }, (data) => {
      if (this.latest !== id) return; // a newer request is on its way
      if (data.failed) {
        this.statusText().textContent = "The calculation failed: " + data.failed;
        this.result.setAttribute("aria-busy", "false");
        return;
      }
      this.show(JSON.parse(data.response), key);
    });
  }

  show(response, key) {
    const { section, result } = this;
    for (const message of section.querySelectorAll(".calc-error")) message.textContent = "";
    for (const control of section.querySelectorAll("[aria-invalid]")) control.removeAttribute("aria-invalid");
    if (!response.ok) {
      // The last good result stays visible, marked out of date; each message sits next
      // to its field.
      for (const [name, message] of Object.entries(response.errors || {})) {
        const control = this.form.querySelector(named(name));
        const slot = control && section.querySelector("#" + CSS.escape(`${control.id}-error`));
        if (slot) slot.textContent = message;
        if (control) control.setAttribute("aria-invalid", "true");
      }
      if (response.message) this.statusText().textContent = response.message;
      clearTimeout(this.staleTimer);
      result.classList.add("calc-result--stale");
      result.setAttribute("aria-busy", "false");
      return;
    }
    this.statusText().textContent = "";
    if (response.html !== this.shownHtml) {
      // A table of the chart the reader opened stays open through the new answer.
      const open = [...result.querySelectorAll("details")].map((details) => details.open);
      result.innerHTML = response.html;
      result.querySelectorAll("details").forEach((details, index) => (details.open ||= open[index]));
      wrapTables(result);
      // As Material does with the whole page for instant navigation: links absolute, so
      // the live answer is the same markup as the built one it replaces.
      for (const link of result.querySelectorAll("a[href]")) link.href = link.href;
      this.shownHtml = response.html;
      // Said once, in short, by screen readers: the headline, not the whole result.
      const summary = result.querySelector(".calc-headline, .calc-undefined");
      section.querySelector(".calc-announce").textContent = summary ? summary.textContent : "";
    }
    this.shownKey = key;
    this.markPending(); // the form as it is now: it may have moved on since the request
    if (!performance.getEntriesByName("calc-first-live-result").length) {
      // When Python first answered on this page (User Timing; the benchmark reads it).
      performance.mark("calc-first-live-result");
    }
  }

  showFieldsFor(asBuilt = false) {
    const select = this.form.querySelector('[name="system"]');
    const system = select && (asBuilt ? initialValue(select) : select.value);
    for (const element of this.form.querySelectorAll("[data-systems]")) {
      element.hidden = system !== undefined && !element.dataset.systems.split(" ").includes(system);
    }
    this.collectSituations();
  }

  collectSituations() {
    const hidden = this.form.querySelector('input[type="hidden"][name="situations"]');
    if (!hidden) return;
    const applies = (box) => box.checked && !box.closest("[data-systems]")?.hidden;
    hidden.value = [...this.form.querySelectorAll("[data-situation]")]
      .filter(applies)
      .map((box) => box.dataset.situation)
      .join(",");
    // A closed side still says how many of its situations are ticked.
    for (const side of this.form.querySelectorAll("details.calc-side")) {
      const ticked = [...side.querySelectorAll("[data-situation]")].filter(applies).length;
      side.querySelector(".calc-side-ticked").textContent = ticked ? ` · ${ticked} ticked` : "";
    }
  }

  applyAddress() {
    // What the address names; a field it leaves out keeps its value (the default, or
    // what the reader typed before this script arrived on a slow connection). The system
    // comes first: a field or situation of another system is not read from the address,
    // or switching to that system would apply a value nobody chose on this screen.
    const params = new URLSearchParams(location.search);
    const select = this.form.querySelector('[name="system"]');
    const controls = [...this.form.querySelectorAll("[name]")];
    if (select) controls.sort((a, b) => (b === select) - (a === select));
    const ofSystem = (element) => {
      const systems = element.closest("[data-systems]")?.dataset.systems;
      return !select || !systems || systems.split(" ").includes(select.value);
    };
    for (const control of controls) {
      if (control.type === "hidden" || !params.has(control.name)) continue; // situations: below
      if (!ofSystem(control)) continue;
      const value = params.get(control.name);
      if (control.type === "checkbox") control.checked = value === "on";
      else if (control.tagName !== "SELECT") control.value = value;
      else if ([...control.options].some((option) => option.value === value)) control.value = value;
    }
    if (params.has("situations")) {
      const situations = params.get("situations").split(",");
      for (const box of this.form.querySelectorAll("[data-situation]")) {
        box.checked = ofSystem(box) && situations.includes(box.dataset.situation);
        // What the address ticks is shown, not folded away.
        if (box.checked) box.closest("details.calc-side")?.setAttribute("open", "");
      }
    }
    this.showFieldsFor();
  }

  addressEntries() {
    // The inputs that differ from the form as built: the address stays short, and an
    // address without them means the defaults.
    const entries = [];
    for (const [name, value] of Object.entries(this.inputs())) {
      if (value !== initialValue(this.form.querySelector(named(name)))) entries.push([name, value]);
    }
    return entries;
  }

  statusText() {
    return this.section.querySelector(".calc-status-text");
  }

  setStatus(text, busy) {
    const status = this.section.querySelector(".calc-status");
    status.classList.toggle("calc-status--busy", busy);
    if (text || !busy) this.statusText().textContent = text;
  }
}

// A Compare page: one attack (bonus, defense, damage) answered for every system side by
// side, each by the attack calculator, through the same worker.
class Comparison {
  constructor(section) {
    this.section = section;
    this.form = section.querySelector("form");
    this.answers = [...section.querySelectorAll(".compare-answer[data-system]")];
    // Under each system's quotes, its "Open in the calculator", which carries the numbers:
    // found once, by the system it names.
    this.links = new Map(
      [...document.querySelectorAll('.compare a[href*="calculators/"]')].map((link) => [
        new URL(link.href).searchParams.get("system"),
        link,
      ]),
    );
    this.latest = 0;
    this.staleTimer = 0;
  }

  start() {
    this.form.addEventListener("submit", (event) => event.preventDefault());
    this.form.addEventListener("input", () => {
      this.compute();
      addressLags(this.path);
    });
    addCopyLink(this.section);
    this.path = location.pathname;
    const params = new URLSearchParams(location.search);
    for (const control of this.form.querySelectorAll("[name]")) {
      const value = params.get(control.name);
      if (value !== null) control.value = value;
    }
    if (params.size) this.answers.forEach((answer) => answer.classList.add("calc-result--stale"));
  }

  onReady() {
    this.compute();
  }

  onFailure() {}

  addressEntries() {
    return [...this.form.querySelectorAll("[name]")]
      .filter((control) => control.value !== control.defaultValue)
      .map((control) => [control.name, control.value]);
  }

  compute() {
    const inputs = Object.fromEntries(new FormData(this.form));
    const id = ++this.latest;
    // A system's answer is marked out of date until its answer to these numbers arrives:
    // at once while Python loads, else only if that answer is slow. A quick one replaces
    // it before the mark could be read, and the mark's line would make the rows jump.
    const waiting = new Set(this.answers);
    const mark = () => waiting.forEach((answer) => answer.classList.add("calc-result--stale"));
    clearTimeout(this.staleTimer);
    if (!ready) {
      mark();
      return;
    }
    this.staleTimer = setTimeout(mark, STALE_AFTER_MS);
    for (const slot of this.section.querySelectorAll(".calc-error")) slot.textContent = "";
    for (const control of this.form.querySelectorAll("[aria-invalid]")) control.removeAttribute("aria-invalid");
    const status = this.section.querySelector(".calc-status-text");
    status.textContent = "";
    for (const answer of this.answers) {
      const request = { ...inputs, system: answer.dataset.system };
      ask("attack", request, (data) => {
        if (this.latest !== id) return;
        waiting.delete(answer);
        const response = data.failed ? null : JSON.parse(data.response);
        if (!response?.ok) {
          // The same inputs for every system: one message per field is enough.
          for (const [name, message] of Object.entries(response?.errors || {})) {
            const slot = this.section.querySelector("#" + CSS.escape(`compare-${name}-error`));
            if (slot) slot.textContent = message;
            this.form.querySelector(named(name))?.setAttribute("aria-invalid", "true");
          }
          const message = response ? response.message : "The calculation failed: " + data.failed;
          if (message) status.textContent = message;
          answer.classList.add("calc-result--stale"); // the last good answer stays
        } else {
          const parsed = new DOMParser().parseFromString(response.html, "text/html");
          fillAnswer(answer, parsed);
          const system = answer.dataset.system;
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
        clearTimeout(this.staleTimer);
        if (!performance.getEntriesByName("calc-first-live-result").length) {
          performance.mark("calc-first-live-result");
        }
      });
    }
  }
}

function initialValue(control) {
  // A control's value as the page was built.
  if (control.type === "checkbox") return control.defaultChecked ? "on" : "";
  if (control.type === "hidden") return ""; // the situations: no box ticked
  if (control.tagName === "SELECT") {
    return ([...control.options].find((option) => option.defaultSelected) ?? control.options[0])?.value;
  }
  return control.defaultValue;
}

function fillAnswer(answer, parsed) {
  // The short answer of the calculator's result (its headline, or the message of a
  // system that lacks the rule), in the row of its system.
  const short = parsed.querySelector(".calc-headline, .calc-undefined p");
  if (short) answer.replaceChildren(...[...short.childNodes].map((node) => document.adoptNode(node)));
}

function fillNotes(system, parsed, before) {
  // Under the system's quotes, the interpretations its answer to these numbers rests on,
  // in place of those of the last answer.
  const shown = [...document.querySelectorAll(`.compare .calc-interpretation[data-system="${CSS.escape(system)}"]`)];
  for (const note of parsed.querySelectorAll(".calc-interpretation")) {
    note.dataset.system = system;
    (shown[0] ?? before).before(document.adoptNode(note));
  }
  shown.forEach((note) => note.remove());
}

function addCopyLink(section) {
  if (section.querySelector(".calc-copy")) return;
  const button = document.createElement("button");
  button.type = "button";
  button.className = "calc-copy";
  button.textContent = "Copy link";
  const note = document.createElement("span");
  note.className = "calc-copied";
  note.setAttribute("role", "status");
  button.addEventListener("click", async () => {
    const address = location.href;
    let copied = false;
    try {
      await navigator.clipboard.writeText(address);
      copied = true;
    } catch {
      // No clipboard API (an insecure origin, an old browser): a selected field the
      // reader copies from, which also serves the old execCommand route.
      copied = copyByHand(address);
    }
    note.textContent = copied ? "Copied" : "Select the address to copy it";
    clearTimeout(note.timer);
    note.timer = setTimeout(() => (note.textContent = ""), 2500);
  });
  const tools = document.createElement("div");
  tools.className = "calc-tools";
  tools.append(button, note);
  // Beside the widget's own heading; under the form of one the page's heading names.
  const title = section.querySelector(":scope > h2");
  if (title) title.after(tools);
  else section.querySelector("form").after(tools);
}

function copyByHand(text) {
  const field = document.createElement("textarea");
  field.value = text;
  field.setAttribute("readonly", "");
  field.className = "calc-copy-field";
  document.body.append(field);
  field.select();
  let copied = false;
  try {
    copied = document.execCommand("copy");
  } catch {
    copied = false;
  }
  field.remove();
  return copied;
}

// Each history.replaceState sets off work in the page and the browser (the tab's history
// entry, its icon fetched again) that competes with Python for a phone's processor: written
// after every answer, it slowed the answer to the next keystroke. So the address is written
// once the edits pause for ADDRESS_IDLE_MS, and at once when the reader copies the link,
// follows one or leaves the page, or while Python loads (no answer is coming yet).
function addressLags(path) {
  clearTimeout(addressTimer);
  addressTimer = setTimeout(writeAddressNow, ADDRESS_IDLE_MS);
  addressPath = path;
  if (!ready) writeAddressNow();
}

function writeAddressNow() {
  if (!addressTimer) return;
  clearTimeout(addressTimer);
  addressTimer = 0;
  // A change event can come late, from a field losing focus as a link is followed: by
  // then the address is the next page's, which this page's edit must not write.
  if (location.pathname === addressPath) writeAddress();
}

// Capture: before Material's instant navigation takes the click to the next page.
document.addEventListener("click", writeAddressNow, true);
document.addEventListener("visibilitychange", writeAddressNow);
window.addEventListener("pagehide", () => {
  // A reload has taken the page's address before the page hears of it: an edit whose
  // address still lagged is handed to the reloaded page, which takes it up only if it
  // opens at the address this page had (recallHandedAddress).
  const lagging = addressTimer && location.pathname === addressPath;
  const stale = location.search;
  writeAddressNow();
  if (lagging && location.search !== stale) {
    const handed = { path: location.pathname, stale, fresh: location.search };
    try {
      sessionStorage.setItem(HANDED_ADDRESS, JSON.stringify(handed));
    } catch {
      // Storage refused (private mode, quota): only the last 300 ms of edits are lost.
    }
  }
});

const HANDED_ADDRESS = "calculators-handed-address";

function recallHandedAddress() {
  let handed = null;
  try {
    handed = JSON.parse(sessionStorage.getItem(HANDED_ADDRESS));
    sessionStorage.removeItem(HANDED_ADDRESS);
  } catch {
    return;
  }
  if (handed?.path === location.pathname && handed.stale === location.search) {
    history.replaceState(history.state, "", location.pathname + handed.fresh + location.hash);
  }
}

function writeAddress() {
  // The inputs that differ from the page as built, in place of the page's history entry:
  // Back leaves the calculator for the page the reader came from, however many edits were
  // made. Material keeps its scroll position in the entry's state, which stays.
  const params = new URLSearchParams();
  for (const widget of current) {
    for (const [name, value] of widget.addressEntries()) params.set(name, value);
  }
  const query = params.toString();
  const url = location.pathname + (query ? "?" + query : "") + location.hash;
  if (url !== location.pathname + location.search + location.hash) {
    history.replaceState(history.state, "", url);
  }
}

function settled() {
  // offline.mjs waits for this before it precaches the site beside Python's download.
  document.documentElement.dataset.calculators = "settled";
  document.dispatchEvent(new Event("calculators-settled"));
}

function named(name) {
  // A selector for a control by name; the name is quoted as a CSS string, never markup.
  return `[name="${CSS.escape(name)}"]`;
}

function wrapTables(result) {
  // Material wraps the tables of a page in a scroll container once, when it loads; a
  // live result is new markup, so it gets the same wrapper, or the result would shift
  // when the live answer replaces the build-time one.
  for (const table of result.querySelectorAll("table:not([class])")) {
    const scroll = document.createElement("div");
    scroll.className = "md-typeset__scrollwrap";
    const inner = document.createElement("div");
    inner.className = "md-typeset__table";
    table.replaceWith(scroll);
    scroll.append(inner);
    inner.append(table);
  }
}

function siteBase() {
  // The way from the page on screen to the site root ("../../"), as the build-time
  // result's links are written.
  const below = location.pathname.startsWith(ROOT_PATH) ? location.pathname.slice(ROOT_PATH.length) : "";
  const depth = below.split("/").length - 1;
  return depth > 0 ? "../".repeat(depth) : "./";
}
