// Loaded on every page, and tiny: the calculator code and its Python worker load only
// where a page has a calculator. With Material's instant navigation the page's scripts
// live through every navigation of the visit, so the worker (and Python) boots once;
// `document$` emits each new page, and its calculators are bound to that one worker.

// The widgets that run Python: calculators and Compare answers.
export const PYTHON_WIDGETS = ".calc[data-calculator], .calc[data-compare]";

function onPage(page) {
  if (!page.querySelector(PYTHON_WIDGETS)) return;
  // The widgets' code binds a frame or two later, once imported: until then an address's
  // inputs are not yet read, and the built results say so (as calculator-boot.js has it for
  // a page's first load; an instant navigation, Back included, brings only the body).
  if (location.search) document.documentElement.setAttribute("data-calc-address", "");
  import("./calculators.mjs").then((calculators) => calculators.bind(page));
}

if (window.document$) window.document$.subscribe(onPage);
else onPage(document); // Material's bundle did not run: the page still computes.
