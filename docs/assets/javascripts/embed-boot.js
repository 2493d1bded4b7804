// In the head of an embed page (hooks/pages/embed.py), and all it runs before the first paint:
// the page is light or dark as the reader's setting says, or as the snippet's `theme` says
// (light, dark); and an address whose inputs are other than those the build-time answer
// answers (its defaults, data-defaults) hides that answer until the widget has read it, as
// calculator-boot.js does on the site (calculators.css, data-calc-address). An address of
// the defaults keeps it readable: the answer is on screen at the first paint, from the
// page, its styles and this script.
//
// The widget's code (embed-page.mjs) is imported once the page has loaded: it costs nothing
// before the answer is shown, and starts Python once the embed is in view.
(function () {
  var script = /** @type {HTMLScriptElement} */ (document.currentScript);
  var root = document.documentElement;
  var params = new URLSearchParams(location.search);
  var theme = params.get("theme");
  root.dataset.embedTheme = theme === "light" || theme === "dark" ? theme : "auto";
  var dark = matchMedia("(prefers-color-scheme: dark)");
  // Material's palette, by its attribute (its own script, which reads the reader's setting
  // on the site, is not on this page); embed-page.mjs calls it again for a host's theme.
  function showTheme() {
    var chosen = root.dataset.embedTheme;
    var slate = chosen === "dark" || (chosen === "auto" && dark.matches);
    root.setAttribute("data-md-color-scheme", slate ? "slate" : "default");
  }
  showTheme();
  dark.addEventListener("change", showTheme);
  root.addEventListener("embed-theme", showTheme);

  var defaults = JSON.parse(script.dataset.defaults || "{}");
  var asked = false;
  params.forEach(function (value, name) {
    // A name no field has is never read: it changes no answer.
    if (Object.prototype.hasOwnProperty.call(defaults, name) && defaults[name] !== value) asked = true;
  });
  if (asked) root.setAttribute("data-calc-address", "");

  var page = new URL("embed-page.mjs", script.src).href;
  // What says, as a page of the site does, that the embed's code did not arrive (preloaded
  // with it, hooks/pages/embed.py): nothing else on this page would.
  var unbound = new URL("calculator-unbound.mjs", script.src).href;
  // Once the page has loaded (its styles: the answer can be painted). Not by the frames the
  // page paints: a browser paints no frame of another site's page out of view (Chromium),
  // and the embed says its height, and starts Python, as it comes into view.
  // A failed import is tried once more before the embed says its code did not arrive, as
  // calculator-boot.js does on the site: the import may have joined the page's preload of
  // the same module while it was still on its way, and been handed its failure (a preload
  // that failed late, on a slow connection) without a download of its own.
  addEventListener("load", function () {
    setTimeout(function () {
      var load = function () {
        return import(page);
      };
      load().catch(function (/** @type {unknown} */ first) {
        return import(unbound).then(function (module) {
          module.tryAgain(load, first).catch(function (/** @type {unknown} */ reason) {
            module.codeMissing(document, reason);
          });
        });
      });
    });
  });
})();
