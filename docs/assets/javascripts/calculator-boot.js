// Loaded in the <head> of calculator pages only: starts the rules core's worker at once,
// so Python loads while the page itself is still loading. calculators.mjs takes it over,
// with any message that arrived before it was listening.
(function () {
  var worker = new Worker(new URL("calculator-worker.mjs", document.currentScript.src), {
    type: "module",
  });
  var early = [];
  worker.onmessage = function (event) {
    early.push(event);
  };
  window.rulesCoreWorker = { worker: worker, early: early };
})();
