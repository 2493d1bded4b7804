// Loaded on every page, and tiny: the calculator code and its Python worker load only
// where a page has a calculator. With Material's instant navigation the page's scripts
// live through every navigation of the visit, so the worker (and Python) boots once;
// `document$` emits each new page, and its calculators are bound to that one worker.

import { PYTHON_WIDGETS, initialValue, named } from "./calculator-form.mjs";

/** @typedef {import("./calculator-form.mjs").Control} Control */

// Whether the address names inputs other than those the built results answer (the values
// of the page's fields as built); a name no field has is never read.
/** @param {ParentNode} page */
function asksOtherInputs(page) {
  for (const [name, value] of new URLSearchParams(location.search)) {
    const selectors = PYTHON_WIDGETS.split(",").map((widget) => `${widget} ${named(name)}`);
    /** @type {NodeListOf<Control>} */
    const controls = page.querySelectorAll(selectors.join(","));
    for (const control of controls) {
      if (initialValue(control) !== value) return true;
    }
  }
  return false;
}

/** @param {Document} page */
function onPage(page) {
  if (!page.querySelector(PYTHON_WIDGETS)) return;
  // The widgets' code binds a frame or two later, once imported: until then an address's
  // inputs are not yet read, and the built results beside other inputs say so (as
  // calculator-boot.js has it for a page's first load; an instant navigation, Back
  // included, brings only the body). Beside the page's own inputs they are the answer.
  if (asksOtherInputs(page)) document.documentElement.setAttribute("data-calc-address", "");
  // Python starts as soon as the worker's client has arrived (it imports nothing), not once
  // the widgets' code, some modules deep, has: after an instant navigation no
  // calculator-boot.js started it. (After a page's first load the client takes over the
  // worker calculator-boot.js started.)
  import("./calculator-client.mjs").then((client) => client.connect(page), () => codeMissing(page));
  import("./calculator-site.mjs").then((site) => site.bind(page), () => codeMissing(page));
}

// The widgets' code did not arrive (the connection dropped, a deploy changed it mid-visit):
// nothing on the page will compute, however far Python gets. Each calculator says so where
// its answer is read, with the fix, as a Python that could not start says it
// (calculator-status.mjs, which is among what did not arrive); its figures are said to be
// the build's (calculators.css, calc--unbound), out of date once the reader edits.
/** @param {ParentNode} page */
function codeMissing(page) {
  const unasked = document.documentElement.hasAttribute("data-calc-address");
  /** @type {NodeListOf<HTMLElement>} */
  const sections = page.querySelectorAll(".calc");
  for (const section of sections) {
    const status = section.querySelector(".calc-status");
    const text = status?.querySelector(".calc-status-text");
    if (!status || !text || section.classList.contains("calc--unbound")) continue;
    section.classList.add("calc--failed", "calc--unbound");
    status.classList.remove("calc-status--busy");
    text.textContent =
      "The calculator could not start: its code could not be downloaded. Check the connection, then reload the page." +
      (unasked
        ? " The inputs of this link could not be read, and no figures are shown for them."
        : " The figures shown were computed when the site was built, for the default inputs.");
    const reload = document.createElement("button");
    reload.type = "button";
    reload.className = "calc-retry md-button";
    reload.textContent = "Reload the page";
    reload.addEventListener("click", () => location.reload());
    text.after(reload);
    const results = section.querySelectorAll(".calc-result");
    for (const result of results) result.setAttribute("aria-busy", "false");
    const outOfDate = () => results.forEach((result) => result.classList.add("calc-result--stale"));
    section.addEventListener("input", outOfDate);
    section.addEventListener("change", outOfDate);
  }
}

if (window.document$) window.document$.subscribe(onPage);
else onPage(document); // Material's bundle did not run: the page still computes.
