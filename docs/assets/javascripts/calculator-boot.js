// Loaded in the <head> of calculator pages only: starts the rules core's worker at once,
// so Python loads while the page itself is still loading. calculator-client.mjs takes it over,
// with any message that arrived before it was listening: imported from here at once, it
// says how far Python's download has got from the first message on, before the widgets'
// own code has arrived. The tag names this build's Pyodide bundle (data-bundle), which the
// worker loads and nothing else.
//
// It also runs before the page is first painted, which the widgets' own code does not: an
// address whose inputs are other than those the build-time result answers (its defaults,
// data-defaults: each field's value as built) hides that result until the widgets have
// read it (calculator-site.mjs): every result is shown as not yet the answer
// (data-calc-address; calculators.css), never as one beside inputs it does not answer. An
// address of the defaults (a link of the page's own inputs) keeps it readable throughout.
(function () {
  var script = /** @type {HTMLScriptElement} */ (document.currentScript);
  var defaults = JSON.parse(script.dataset.defaults || "{}");
  var asked = false;
  new URLSearchParams(location.search).forEach(function (value, name) {
    // A name no field has is never read: it changes no answer.
    if (Object.prototype.hasOwnProperty.call(defaults, name) && defaults[name] !== value) asked = true;
  });
  if (asked) document.documentElement.setAttribute("data-calc-address", "");
  // Said where the answer is read from the first paint (calculators.css), until the
  // worker says how far it has got (calculator-client.mjs).
  document.documentElement.setAttribute("data-calc-loading", "");
  // A page with calculators, from the first paint (calculators.css).
  document.documentElement.setAttribute("data-calc-page", "");
  document.documentElement.style.setProperty("--calc-loading", '"loading the calculators\' Python…"');
  var worker = new Worker(new URL("calculator-worker.mjs", script.src), {
    type: "module",
    name: script.dataset.bundle,
  });
  // The page's calculators, imported as soon as Python has started, before it says so.
  /** @type {import("./calculator-worker.mjs").ToWorker} */
  var prepare = { prepare: JSON.parse(script.dataset.calculators || "[]") };
  worker.postMessage(prepare);
  /** @type {MessageEvent<import("./calculator-worker.mjs").FromWorker>[]} */
  var early = [];
  worker.onmessage = function (event) {
    early.push(event);
  };
  window.rulesCoreWorker = { worker: worker, early: early };
  import(new URL("calculator-client.mjs", script.src).href).then(function (client) {
    client.adopt();
  });
  // The widgets' code starts at calculator-loader.mjs, a module script of every page
  // (mkdocs.yml), which tries its own imports twice (calculator-unbound.mjs). Where it, or
  // a module it imports, does not arrive (Chromium aborted its fetch, served by the site's
  // service worker, on a returning reader's page), none of the site's code runs to say so,
  // and a shared link's answer said "Computing…" for ever: it is imported once more, and if
  // that fails too each calculator says its code did not arrive, with the fix.
  var loader = new URL("calculator-loader.mjs", script.src).href;
  addEventListener(
    "error",
    function (event) {
      var failed = event.target;
      if (!(failed instanceof HTMLScriptElement) || failed.src !== loader) return;
      import(new URL("calculator-unbound.mjs", script.src).href).then(function (module) {
        var load = function () {
          return import(loader);
        };
        module.tryAgain(load, loader).catch(function (/** @type {unknown} */ reason) {
          module.codeMissing(document, reason);
        });
      });
    },
    true, // a script's failure does not bubble: heard on its way down
  );
})();
