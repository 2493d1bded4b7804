// Loaded in the <head> of calculator pages only: starts the rules core's worker at once,
// so Python loads while the page itself is still loading. calculator-client.mjs takes it over,
// with any message that arrived before it was listening. The tag names this build's
// Pyodide bundle (data-bundle), which the worker loads and nothing else.
//
// It also runs before the page is first painted, which the widgets' own code does not: an
// address with a query may name inputs other than those the build-time result answers, so
// until the widgets have read it (calculators.mjs), every result is shown as not yet the
// answer (data-calc-address; calculators.css), never as one beside inputs it does not answer.
(function () {
  if (location.search) document.documentElement.setAttribute("data-calc-address", "");
  var script = document.currentScript;
  var worker = new Worker(new URL("calculator-worker.mjs", script.src), {
    type: "module",
    name: script.dataset.bundle,
  });
  var early = [];
  worker.onmessage = function (event) {
    early.push(event);
  };
  window.rulesCoreWorker = { worker: worker, early: early };
})();
