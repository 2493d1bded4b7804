// Loaded on every page, and tiny: the calculator code and its Python worker load only
// where a page has a calculator. With Material's instant navigation the page's scripts
// live through every navigation of the visit, so the worker (and Python) boots once;
// `document$` emits each new page, and its calculators are bound to that one worker.

import { PYTHON_WIDGETS, initialValue, named } from "./calculator-form.mjs";
import { codeMissing, importWithSecondTry } from "./calculator-unbound.mjs";

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
  // The root's mark of a page with calculators (calculators.css), which an instant
  // navigation keeps: set on each page it brings, as calculator-boot.js sets it on a first load.
  const calculators = Boolean(page.querySelector(PYTHON_WIDGETS));
  document.documentElement.toggleAttribute("data-calc-page", calculators);
  if (!calculators) return;
  // The widgets' code binds a frame or two later, once imported: until then an address's
  // inputs are not yet read, and the built results beside other inputs say so (as
  // calculator-boot.js has it for a page's first load; an instant navigation, Back
  // included, brings only the body). Beside the page's own inputs they are the answer.
  if (asksOtherInputs(page)) document.documentElement.setAttribute("data-calc-address", "");
  // Python starts as soon as the worker's client has arrived (it imports nothing), not once
  // the widgets' code, some modules deep, has: after an instant navigation no
  // calculator-boot.js started it. (After a page's first load the client takes over the
  // worker calculator-boot.js started.)
  const missing = (/** @type {unknown} */ reason) => codeMissing(page, reason);
  importWithSecondTry(() => import("./calculator-client.mjs")).then((client) => client.connect(page), missing);
  importWithSecondTry(() => import("./calculator-site.mjs")).then((site) => site.bind(page), missing);
}

if (window.document$) window.document$.subscribe(onPage);
else onPage(document); // Material's bundle did not run: the page still computes.
